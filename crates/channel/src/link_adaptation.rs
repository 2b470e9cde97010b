//! Link adaptation: which MCS the eNB picks for a UE, from which CQI report.
//!
//! Two AMC rules turn a UE's wideband SINR into the CQI it reports (the eNB then schedules
//! I_MCS = 2·CQI − 2, [`crate::lte_tables::cqi_to_mcs`]):
//!
//! - [`AmcRule::BlerTarget`] (the default; ns-3's default `LteAmc::AmcModel`, "MiErrorModel"
//!   or "Vienna"): the CQI of TS 36.213 § 7.2.3, the highest index whose transport block
//!   "could be received with a transport block error probability not exceeding 0.1", computed
//!   as ns-3's `LteAmc::CreateCqiFeedbacks` does for the subband reports its PF scheduler
//!   uses: the highest I_MCS m* such that every I_MCS up to m* decodes a one-layer block on
//!   one resource block group (TS 36.213 Table 7.1.6.1-1: 3 PRBs at 50) with error rate at
//!   most the target under [`crate::error_model`]; then the highest CQI whose R1-081483
//!   efficiency is *below* that of m* (CQI 15 if m* = 28, CQI 0 if m* = 0). The strict
//!   comparison and the CQI → MCS rule each round down, so at a steady SINR the block error
//!   rate of the scheduled MCS is far below the target (ns-3 at 46 dBm and 50–650 m without
//!   fading: no block error in 14 000 blocks); errors come from fading between a report and
//!   its use.
//! - [`AmcRule::PiroEw2010`] (ns-3's alternative \[piro-ew2010\], cellshare's rule before block
//!   errors were modelled): the CQI whose efficiency a code with an SNR gap for BER 5·10⁻⁵ reaches
//!   ([`crate::lte_tables::sinr_linear_to_cqi`]).
//!
//! Either rule reduces to fifteen SINR thresholds, one per CQI, computed once per cell: the
//! per-TTI cost is the same comparisons whichever rule is used.
//!
//! # Report timing
//!
//! A decision in TTI t uses the report measured in TTI m(t) = ⌊(t − D)/P⌋·P: reports are
//! measured every P TTIs ([`LinkAdaptation::cqi_period_tti`]) and reach the scheduler D TTIs
//! later ([`LinkAdaptation::cqi_delay_tti`]); before the first report has arrived the one of
//! TTI 0 is used. ns-3 LENA's defaults, read from its code: the UE measures the CQI on the
//! control region of every subframe and sends a report when more than
//! `LteUePhy::DownlinkCqiPeriodicity` (1 ms) has passed since the last, i.e. every 2 TTIs;
//! the report waits `UL_PUSCH_TTIS_DELAY` = 4 TTIs in the UE PHY's control queue, arrives at
//! the eNB at the end of that uplink subframe, and the scheduler uses it from the next
//! subframe: D = 5 TTIs from measurement to scheduling decision (the block then goes on air
//! `LteEnbPhy::MacToChannelDelay` = 2 TTIs after the decision, which the cell models).

use serde::{Deserialize, Serialize};

use crate::error_model::{self, modulation_of};
use crate::lte_tables::{self, MAX_MCS};

/// How the UE's CQI (hence the scheduled MCS) follows its SINR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AmcRule {
    /// The CQI whose block meets a target block error rate (ns-3's default AMC).
    #[default]
    BlerTarget,
    /// The CQI of the SNR-gap rule for BER 5·10⁻⁵ (ns-3's `PiroEW2010` AMC).
    PiroEw2010,
}

/// A cell's link adaptation: the SINR thresholds of its CQIs and the timing of the reports.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkAdaptation {
    /// Linear SINR from which CQI k is reported: `cqi_thresholds[k - 1]`, ascending.
    pub cqi_thresholds: [f64; 15],
    /// TTIs between two CQI measurements (≥ 1).
    pub cqi_period_tti: u32,
    /// TTIs from a CQI measurement to the first scheduling decision that uses it.
    pub cqi_delay_tti: u32,
}

impl Default for LinkAdaptation {
    /// The ideal link: the `PiroEW2010` rule on a CQI of the TTI itself.
    fn default() -> Self {
        Self { cqi_thresholds: lte_tables::CQI_SINR_THRESHOLD_LINEAR, cqi_period_tti: 1, cqi_delay_tti: 0 }
    }
}

impl LinkAdaptation {
    /// The link adaptation of `rule` (`bler_target`: the block error rate the CQI aims at) for
    /// a cell of `n_prb` PRBs, with reports every `cqi_period_tti` TTIs arriving
    /// `cqi_delay_tti` TTIs after their measurement.
    ///
    /// # Panics
    /// If `cqi_period_tti` is 0, or the rule is `BlerTarget` and `bler_target` is not in
    /// (0, 1).
    pub fn new(rule: AmcRule, bler_target: f64, n_prb: u32, cqi_period_tti: u32, cqi_delay_tti: u32) -> Self {
        assert!(cqi_period_tti >= 1, "the CQI period is at least one TTI");
        let cqi_thresholds = match rule {
            AmcRule::PiroEw2010 => lte_tables::CQI_SINR_THRESHOLD_LINEAR,
            AmcRule::BlerTarget => bler_target_thresholds(bler_target, rbg_size(n_prb)),
        };
        Self { cqi_thresholds, cqi_period_tti, cqi_delay_tti }
    }
}

/// Resource block group size for a downlink of `n_prb` PRBs (TS 36.213 Table 7.1.6.1-1):
/// 1 up to 10 PRBs, 2 up to 26, 3 up to 63, 4 above.
pub fn rbg_size(n_prb: u32) -> u32 {
    match n_prb {
        0..=10 => 1,
        11..=26 => 2,
        27..=63 => 3,
        _ => 4,
    }
}

/// Error rate of a first transmission of I_MCS `mcs` on `n_prb` PRBs (one layer) at linear
/// SINR `sinr`.
pub fn first_tx_bler(mcs: u8, n_prb: u32, sinr: f64) -> f64 {
    let tbs = lte_tables::tbs_bits(lte_tables::mcs_to_itbs(mcs), n_prb, 1);
    error_model::tb_bler(mcs, tbs, error_model::mib(sinr, modulation_of(mcs)), 1)
}

/// The lowest SINR in dB (to 10⁻⁶ dB) at which a one-layer block of I_MCS `mcs` on `n_prb`
/// PRBs fails with probability at most `target`.
pub fn mcs_sinr_threshold_db(mcs: u8, n_prb: u32, target: f64) -> f64 {
    let (mut lo, mut hi) = (-30.0f64, 60.0f64);
    while hi - lo > 1e-6 {
        let mid = 0.5 * (lo + hi);
        if first_tx_bler(mcs, n_prb, 10f64.powf(mid / 10.0)) <= target {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The CQI reported when I_MCS `mcs` is the highest that meets the target: the highest CQI
/// whose R1-081483 efficiency (two decimals) is below the MCS's; 15 for I_MCS 28 and 0 for
/// I_MCS 0 (ns-3's `LteAmc::CreateCqiFeedbacks`).
pub fn cqi_for_best_mcs(mcs: u8) -> u8 {
    match mcs {
        0 => 0,
        MAX_MCS => 15,
        m => {
            let e = lte_tables::MCS_SPECTRAL_EFFICIENCY[m as usize];
            (1..=15u8).filter(|&k| cqi_efficiency_x100(k) < (e * 100.0).round() as u32).max().unwrap_or(0)
        }
    }
}

/// CQI `k`'s Table 7.2.3-1 efficiency in hundredths, rounded half up (the R1-081483 value).
fn cqi_efficiency_x100(k: u8) -> u32 {
    let e = lte_tables::cqi_entry(k).expect("CQI 1..=15");
    (e.modulation.bits_per_symbol() as u32 * e.code_rate_x1024 as u32 * 100 + 512) / 1024
}

/// SINR thresholds (linear) of CQI 1..=15 under the BLER-target rule with `target` and
/// resource block groups of `rbg_prbs` PRBs (see the [module documentation](self)): CQI ≥ k
/// is reported from the SINR at which every I_MCS up to the first one mapping to CQI k meets
/// the target.
///
/// # Panics
/// If `target` is not in (0, 1).
pub fn bler_target_thresholds(target: f64, rbg_prbs: u32) -> [f64; 15] {
    assert!(target > 0.0 && target < 1.0, "a block error rate target in (0, 1), got {target}");
    let mcs_db: Vec<f64> = (0..=MAX_MCS).map(|m| mcs_sinr_threshold_db(m, rbg_prbs, target)).collect();
    let mut thresholds = [0.0; 15];
    for (k, t) in (1..=15u8).zip(thresholds.iter_mut()) {
        let first = (0..=MAX_MCS).find(|&m| cqi_for_best_mcs(m) >= k).expect("I_MCS 28 maps to CQI 15");
        let db = mcs_db[..=first as usize].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        *t = 10f64.powf(db / 10.0);
    }
    thresholds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rbg_sizes_follow_table_7_1_6_1_1() {
        assert_eq!([6, 15, 25, 50, 75, 100].map(rbg_size), [1, 2, 2, 3, 4, 4]);
    }

    #[test]
    fn best_mcs_maps_to_a_strictly_lower_cqi() {
        // MCS 2 (0.23) is not above CQI 2 (0.23): CQI 1. MCS 3 (0.31): CQI 2.
        assert_eq!(cqi_for_best_mcs(1), 1);
        assert_eq!(cqi_for_best_mcs(2), 1);
        assert_eq!(cqi_for_best_mcs(3), 2);
        assert_eq!(cqi_for_best_mcs(0), 0);
        assert_eq!(cqi_for_best_mcs(28), 15);
        assert_eq!(cqi_for_best_mcs(27), 14);
        // The scheduled MCS (2·CQI − 2) never exceeds the best one.
        for m in 1..=28u8 {
            let cqi = cqi_for_best_mcs(m);
            if let Some(sched) = lte_tables::cqi_to_mcs(cqi) {
                assert!(sched <= m, "best {m}, CQI {cqi}, scheduled {sched}");
            }
        }
    }

    #[test]
    fn bler_target_thresholds_ascend_and_meet_the_target() {
        let t = bler_target_thresholds(0.1, 3);
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "{t:?}");
        // The scheduled MCS of each CQI meets the target on an RBG at that CQI's threshold.
        for k in 1..=15u8 {
            let mcs = lte_tables::cqi_to_mcs(k).unwrap();
            assert!(first_tx_bler(mcs, 3, t[k as usize - 1]) <= 0.1 + 1e-9, "CQI {k}");
        }
        // A looser target reports higher CQIs at the same SINR.
        let loose = bler_target_thresholds(0.3, 3);
        assert!(loose.iter().zip(&t).all(|(a, b)| a <= b));
    }

    #[test]
    fn bler_target_picks_ns3s_mcs_at_its_defaults() {
        // ns-3.44 at 46 dBm, 10 MHz, log-distance exponent 3.52 (46.68 dB at 1 m), UE noise
        // figure 9 dB, no fading: the MCS of its DlTxPhyStats trace at each distance
        // (tools/ns3_crosscheck.py --case udp).
        let la = LinkAdaptation::new(AmcRule::BlerTarget, 0.1, 50, 2, 5);
        let noise_dbm = -174.0 + 10.0 * 180e3f64.log10() + 9.0;
        let expected = [(50.0, Some(28)), (150.0, Some(24)), (200.0, Some(20)), (250.0, Some(16)), (300.0, Some(12)),
            (350.0, Some(10)), (400.0, Some(8)), (450.0, Some(6)), (500.0, Some(4)), (550.0, Some(2)), (600.0, Some(2)),
            (650.0, Some(0)), (700.0, None)];
        for (d, mcs) in expected {
            let snr_db = 46.0 - 10.0 * 50f64.log10() - (46.6777 + 35.2 * f64::log10(d)) - noise_dbm;
            let cqi = la.cqi_thresholds.iter().filter(|&&x| 10f64.powf(snr_db / 10.0) >= x).count() as u8;
            assert_eq!(lte_tables::cqi_to_mcs(cqi), mcs, "{d} m ({snr_db:.2} dB)");
        }
    }

    #[test]
    fn piro_is_the_old_rule_and_ideal_is_the_default() {
        let la = LinkAdaptation::new(AmcRule::PiroEw2010, 0.1, 50, 1, 0);
        assert_eq!(la, LinkAdaptation::default());
    }
}
