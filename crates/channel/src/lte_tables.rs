//! 3GPP TS 36.213 tables for downlink link adaptation, and the SINR → CQI rule.
//!
//! The chain a radio channel walks every TTI is SINR → CQI → MCS → I_TBS → transport block
//! size:
//!
//! - [`sinr_to_cqi`] / [`sinr_linear_to_cqi`]: the wideband CQI a UE would report, from the
//!   SINR thresholds [`CQI_SINR_THRESHOLD_DB`] (rule below);
//! - [`CQI_TABLE`]: the 4-bit CQI table (TS 36.213 Table 7.2.3-1);
//! - [`cqi_to_mcs`]: the MCS the eNB picks for a CQI;
//! - [`MCS_TABLE`] / [`mcs_to_itbs`]: the PDSCH MCS table (TS 36.213 Table 7.1.7.1-1);
//! - [`tbs_bits`]: the transport block size table (TS 36.213 Table 7.1.7.2.1-1, I_TBS 0..=26 ×
//!   N_PRB 1..=110) and its two-layer rule (§ 7.1.7.2.2).
//!
//! # Where the numbers come from
//!
//! The CQI, MCS and transport block size tables are those of TS 36.213 Release 8; later
//! releases add 256-QAM variants and I_TBS rows above 26 but leave these unchanged. The
//! transport block sizes were taken from two independent public reproductions of
//! Table 7.1.7.2.1-1 — the ns-3 LTE module
//! (`src/lte/model/lte-amc.cc`, from TS 36.213 v8.8.0) and srsRAN 4G
//! (`lib/src/phy/phch/tbs_tables.h`, generated from ETSI TS 136 213 v12.13.0) — which agree on
//! all 2970 entries but one, and are laid out here I_TBS by I_TBS as in the standard. The one
//! disagreement is an inconsistency of the standard itself (srsRAN keeps it, ns-3 corrects it):
//! it lists 328 bits for I_TBS 6 on one PRB, more than the 176 bits of two PRBs and the 104 bits
//! of I_TBS 7. We use 88 bits, which follows the N_PRB = 1 column (16, 24, 32, 40, 56, 72, 88,
//! 104, …); with it the table is non-decreasing along both axes.
//!
//! # SINR → CQI rule
//!
//! We use the rule of the `PiroEW2010` AMC model of the ns-3 LTE (LENA) module \[ns3\], which
//! ns-3 takes from G. Piro et al., "A two-level scheduling algorithm for QoS support in the
//! downlink of LTE cellular networks", European Wireless 2010 \[piro-ew2010\]: ns-3's
//! closed-form alternative to its default model, which picks the MCS from
//! mutual-information block error curves we do not reproduce. The spectral efficiency a UE can
//! sustain at a linear SINR γ is that of a capacity-achieving code with an SNR gap Γ for a
//! target bit error rate BER:
//!
//! > efficiency = log2(1 + γ / Γ),  Γ = −ln(5 · BER) / 1.5,  BER = 5·10⁻⁵ ([`AMC_TARGET_BER`])
//!
//! (Γ ≈ 5.53, i.e. 7.43 dB), and the reported CQI is the highest CQI whose Table 7.2.3-1
//! efficiency does not exceed it (CQI 0 if even CQI 1 is out of reach). Inverting the formula
//! gives, for each CQI *k*, the SINR at which it becomes reachable, γ_k = Γ · (2^eff_k − 1);
//! [`CQI_SINR_THRESHOLD_DB`] and [`CQI_SINR_THRESHOLD_LINEAR`] hold those thresholds
//! precomputed (a unit test recomputes them from the formula), so the per-TTI lookup is fifteen
//! comparisons and no logarithm or power.
//!
//! # CQI → MCS rule
//!
//! TS 36.213 leaves the choice of MCS to the eNB. Like ns-3, we pick the highest MCS whose
//! spectral efficiency does not exceed the CQI's, with the per-MCS efficiencies of 3GPP
//! TSG-RAN WG1 contribution R1-081483 \[r1-081483\] ("Conveying MCS and TB size via PDCCH",
//! [`MCS_SPECTRAL_EFFICIENCY`]). Both sides of the comparison are taken to two decimals, the
//! precision R1-081483 gives; the result is I_MCS = 2·CQI − 2 for every CQI 1..=15.
//!
//! # Two spatial layers
//!
//! § 7.1.7.2.2: for N_PRB ≤ 55 a transport block on two layers has the one-layer size of
//! 2·N_PRB PRBs (exact). For N_PRB > 55 the standard translates the one-layer size TBS_L1 with
//! its Table 7.1.7.2.2-1, for which we found no public copy we could check. We approximate it
//! by doubling TBS_L1 and rounding to the nearest size of Table 7.1.7.2.1-1 (ties upward);
//! doubled sizes above the table's largest entry (75376 bits) are kept as they are. The
//! approximation is within 2 % of the doubled size, and keeps the two-layer sizes
//! non-decreasing in both N_PRB and I_TBS (the plain doubling would not, across N_PRB 55 → 56).

use std::sync::OnceLock;

/// Modulation of a CQI or MCS entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modulation {
    /// QPSK, 2 bits per symbol.
    Qpsk,
    /// 16-QAM, 4 bits per symbol.
    Qam16,
    /// 64-QAM, 6 bits per symbol.
    Qam64,
}

impl Modulation {
    /// Bits per modulation symbol (the modulation order Q_m): 2, 4 or 6.
    pub const fn bits_per_symbol(self) -> u8 {
        match self {
            Modulation::Qpsk => 2,
            Modulation::Qam16 => 4,
            Modulation::Qam64 => 6,
        }
    }
}

/// One row of the 4-bit CQI table (TS 36.213 Table 7.2.3-1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CqiEntry {
    /// Modulation.
    pub modulation: Modulation,
    /// Code rate × 1024.
    pub code_rate_x1024: u16,
    /// Spectral efficiency in information bits per resource element, as the standard prints it
    /// (Q_m × code rate, to four decimals).
    pub efficiency: f64,
}

const fn cqi(modulation: Modulation, code_rate_x1024: u16, efficiency: f64) -> CqiEntry {
    CqiEntry { modulation, code_rate_x1024, efficiency }
}

/// The 4-bit CQI table (TS 36.213 Table 7.2.3-1) for CQI 1..=15: `CQI_TABLE[k - 1]` is CQI
/// `k`. CQI 0 means "out of range" and has no entry (see [`cqi_entry`]).
pub const CQI_TABLE: [CqiEntry; 15] = {
    use Modulation::*;
    [
        cqi(Qpsk, 78, 0.1523),
        cqi(Qpsk, 120, 0.2344),
        cqi(Qpsk, 193, 0.3770),
        cqi(Qpsk, 308, 0.6016),
        cqi(Qpsk, 449, 0.8770),
        cqi(Qpsk, 602, 1.1758),
        cqi(Qam16, 378, 1.4766),
        cqi(Qam16, 490, 1.9141),
        cqi(Qam16, 616, 2.4063),
        cqi(Qam64, 466, 2.7305),
        cqi(Qam64, 567, 3.3223),
        cqi(Qam64, 666, 3.9023),
        cqi(Qam64, 772, 4.5234),
        cqi(Qam64, 873, 5.1152),
        cqi(Qam64, 948, 5.5547),
    ]
};

/// Highest CQI index.
pub const MAX_CQI: u8 = 15;

/// The Table 7.2.3-1 row of CQI `cqi`, or `None` for CQI 0 (out of range).
///
/// # Panics
/// If `cqi > 15`.
pub fn cqi_entry(cqi: u8) -> Option<&'static CqiEntry> {
    assert!(cqi <= MAX_CQI, "CQI {cqi} is out of the 4-bit CQI range 0..=15");
    cqi.checked_sub(1).map(|i| &CQI_TABLE[i as usize])
}

/// One row of the PDSCH MCS table (TS 36.213 Table 7.1.7.1-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct McsEntry {
    /// Modulation (order Q_m).
    pub modulation: Modulation,
    /// Transport block size index I_TBS (0..=26).
    pub itbs: u8,
}

const fn mcs(modulation: Modulation, itbs: u8) -> McsEntry {
    McsEntry { modulation, itbs }
}

/// The PDSCH modulation and TBS index table (TS 36.213 Table 7.1.7.1-1) for I_MCS 0..=28:
/// `MCS_TABLE[i]` is I_MCS `i`. I_MCS 29..=31 are reserved for retransmissions and have no
/// entry.
pub const MCS_TABLE: [McsEntry; 29] = {
    use Modulation::*;
    [
        mcs(Qpsk, 0),
        mcs(Qpsk, 1),
        mcs(Qpsk, 2),
        mcs(Qpsk, 3),
        mcs(Qpsk, 4),
        mcs(Qpsk, 5),
        mcs(Qpsk, 6),
        mcs(Qpsk, 7),
        mcs(Qpsk, 8),
        mcs(Qpsk, 9),
        mcs(Qam16, 9),
        mcs(Qam16, 10),
        mcs(Qam16, 11),
        mcs(Qam16, 12),
        mcs(Qam16, 13),
        mcs(Qam16, 14),
        mcs(Qam16, 15),
        mcs(Qam64, 15),
        mcs(Qam64, 16),
        mcs(Qam64, 17),
        mcs(Qam64, 18),
        mcs(Qam64, 19),
        mcs(Qam64, 20),
        mcs(Qam64, 21),
        mcs(Qam64, 22),
        mcs(Qam64, 23),
        mcs(Qam64, 24),
        mcs(Qam64, 25),
        mcs(Qam64, 26),
    ]
};

/// Highest I_MCS with a transport block size (29..=31 are reserved).
pub const MAX_MCS: u8 = 28;

/// Spectral efficiency (bits per resource element) of I_MCS 0..=28, from 3GPP R1-081483
/// (two decimals), used by [`cqi_to_mcs`].
pub const MCS_SPECTRAL_EFFICIENCY: [f64; 29] = [
    0.15, 0.19, 0.23, 0.31, 0.38, 0.49, 0.60, 0.74, 0.88, 1.03, 1.18, 1.33, 1.48, 1.70, 1.91, 2.16, 2.41, 2.57, 2.73,
    3.03, 3.32, 3.61, 3.90, 4.21, 4.52, 4.82, 5.12, 5.33, 5.55,
];

/// [`MCS_SPECTRAL_EFFICIENCY`] in hundredths, for exact integer comparison.
const MCS_EFFICIENCY_X100: [u16; 29] = [
    15, 19, 23, 31, 38, 49, 60, 74, 88, 103, 118, 133, 148, 170, 191, 216, 241, 257, 273, 303, 332, 361, 390, 421, 452,
    482, 512, 533, 555,
];

/// I_TBS of I_MCS `mcs` (TS 36.213 Table 7.1.7.1-1).
///
/// # Panics
/// If `mcs > 28` (I_MCS 29..=31 are reserved for retransmissions).
#[inline]
pub fn mcs_to_itbs(mcs: u8) -> u8 {
    assert!(mcs <= MAX_MCS, "I_MCS {mcs} has no transport block size (valid: 0..=28)");
    MCS_TABLE[mcs as usize].itbs
}

/// The MCS the eNB schedules for a UE reporting CQI `cqi`: `None` for CQI 0 (out of range,
/// nothing can be sent), otherwise the highest I_MCS whose R1-081483 spectral efficiency
/// ([`MCS_SPECTRAL_EFFICIENCY`]) does not exceed the CQI's Table 7.2.3-1 efficiency, both to
/// two decimals (the ns-3 rule; see the [module documentation](self)). This gives
/// I_MCS = 2·CQI − 2.
///
/// # Panics
/// If `cqi > 15`.
pub const fn cqi_to_mcs(cqi: u8) -> Option<u8> {
    assert!(cqi <= MAX_CQI, "CQI out of the 4-bit CQI range 0..=15");
    if cqi == 0 {
        return None;
    }
    let entry = &CQI_TABLE[cqi as usize - 1];
    // Q_m · rate / 1024 in hundredths, rounded half up, in integers.
    let bits = entry.modulation.bits_per_symbol() as u32 * entry.code_rate_x1024 as u32 * 100;
    let efficiency_x100 = ((bits + 512) / 1024) as u16;
    let mut mcs = 0;
    while mcs < MAX_MCS as usize && MCS_EFFICIENCY_X100[mcs + 1] <= efficiency_x100 {
        mcs += 1;
    }
    Some(mcs as u8)
}

/// [`cqi_to_mcs`] for each CQI 0..=15, precomputed.
const CQI_TO_MCS: [Option<u8>; 16] = {
    let mut table = [None; 16];
    let mut cqi = 0;
    while cqi <= MAX_CQI {
        table[cqi as usize] = cqi_to_mcs(cqi);
        cqi += 1;
    }
    table
};

/// [`cqi_to_mcs`] from a precomputed table: the per-TTI path of the radio channel.
///
/// # Panics
/// If `cqi > 15`.
#[inline]
pub fn cqi_to_mcs_table(cqi: u8) -> Option<u8> {
    CQI_TO_MCS[cqi as usize]
}

/// I_TBS for each CQI 0..=15 (`None` for CQI 0), precomputed with [`cqi_to_mcs`] and
/// [`mcs_to_itbs`].
const CQI_TO_ITBS: [Option<u8>; 16] = {
    let mut table = [None; 16];
    let mut cqi = 1;
    while cqi <= MAX_CQI {
        if let Some(mcs) = cqi_to_mcs(cqi) {
            table[cqi as usize] = Some(MCS_TABLE[mcs as usize].itbs);
        }
        cqi += 1;
    }
    table
};

/// I_TBS the eNB uses for a UE reporting CQI `cqi` (CQI → MCS → I_TBS), `None` for CQI 0.
///
/// # Panics
/// If `cqi > 15`.
#[inline]
pub fn cqi_to_itbs(cqi: u8) -> Option<u8> {
    CQI_TO_ITBS[cqi as usize]
}

/// Target bit error rate of the SINR → CQI rule (the ns-3 `LteAmc` default).
pub const AMC_TARGET_BER: f64 = 5e-5;

/// The SNR gap Γ = −ln(5 · BER) / 1.5 of the SINR → CQI rule for BER = [`AMC_TARGET_BER`]
/// (linear, ≈ 5.53).
pub fn snr_gap() -> f64 {
    -(5.0 * AMC_TARGET_BER).ln() / 1.5
}

/// Spectral efficiency (bits per resource element) the SINR → CQI rule grants at linear SINR
/// `sinr`: log2(1 + sinr / Γ).
pub fn spectral_efficiency_for_sinr(sinr: f64) -> f64 {
    (1.0 + sinr / snr_gap()).log2()
}

/// SINR in dB from which CQI `k` is reported: `CQI_SINR_THRESHOLD_DB[k - 1]` for k = 1..=15,
/// i.e. 10·log10(Γ · (2^eff_k − 1)) with eff_k the Table 7.2.3-1 efficiency of CQI k.
pub const CQI_SINR_THRESHOLD_DB: [f64; 15] = [
    -2.1067418705610157,
    -0.10783267547326823,
    2.1782131619006364,
    4.565005218265338,
    6.651684816051873,
    8.427636084945576,
    9.938074927789627,
    11.849648116077564,
    13.762579699275753,
    14.93712321438478,
    16.97042272895669,
    18.87322623841541,
    20.85047082230701,
    22.697895605674383,
    24.054673892448793,
];

/// [`CQI_SINR_THRESHOLD_DB`] as linear power ratios: Γ · (2^eff_k − 1).
pub const CQI_SINR_THRESHOLD_LINEAR: [f64; 15] = [
    0.615638558958588,
    0.9754763227667174,
    1.6512822636615765,
    2.860885798122466,
    4.625604337860312,
    6.962474354263582,
    9.858424000667306,
    15.309634114676882,
    23.782525437086086,
    31.168243021136167,
    49.77855355413933,
    77.14763620023614,
    121.63178555425249,
    186.11850721557002,
    254.3708781311542,
];

/// The wideband CQI (0..=15) a UE reports at SINR `sinr_db` (dB): the number of thresholds of
/// [`CQI_SINR_THRESHOLD_DB`] it reaches. NaN gives CQI 0.
#[inline]
pub fn sinr_to_cqi(sinr_db: f64) -> u8 {
    count_reached(&CQI_SINR_THRESHOLD_DB, sinr_db)
}

/// As [`sinr_to_cqi`], for a linear SINR (power ratio). This is the per-TTI path of the radio
/// channel: fifteen comparisons, no logarithm.
#[inline]
pub fn sinr_linear_to_cqi(sinr: f64) -> u8 {
    count_reached(&CQI_SINR_THRESHOLD_LINEAR, sinr)
}

/// [`sinr_linear_to_cqi`], searching from `near`, the CQI of a nearby SINR: the result is the
/// same, found in a step or two when the SINR moved little.
#[inline]
pub fn sinr_linear_to_cqi_near(sinr: f64, near: u8) -> u8 {
    cqi_near(&CQI_SINR_THRESHOLD_LINEAR, sinr, near)
}

/// The CQI reported at linear SINR `sinr` under the ascending thresholds `t` (CQI k from
/// `t[k - 1]` on; a rule of [`crate::link_adaptation`]), searching from `near`.
#[inline]
pub fn cqi_near(t: &[f64; 15], sinr: f64, near: u8) -> u8 {
    let mut c = near.min(15) as usize;
    // CQI c is reached iff sinr >= t[c - 1] (t[c - 1] is the threshold of CQI c).
    while c > 0 && sinr < t[c - 1] {
        c -= 1;
    }
    while c < 15 && sinr >= t[c] {
        c += 1;
    }
    c as u8
}

/// Number of (ascending) thresholds `x` reaches; branch-free.
#[inline]
pub(crate) fn count_reached(thresholds: &[f64; 15], x: f64) -> u8 {
    thresholds.iter().map(|&t| u8::from(x >= t)).sum()
}

#[cfg(test)]
mod near_tests {
    use super::*;

    #[test]
    fn near_search_matches_full_search() {
        for i in 0..4000 {
            let db = -15.0 + i as f64 * 0.013;
            let sinr = 10f64.powf(db / 10.0);
            for near in 0..=15u8 {
                assert_eq!(sinr_linear_to_cqi_near(sinr, near), sinr_linear_to_cqi(sinr), "{db} dB from {near}");
            }
        }
    }
}

/// Highest transport block size index (Table 7.1.7.2.1-1 rows 0..=26).
pub const MAX_ITBS: u8 = 26;

/// Highest number of PRBs in Table 7.1.7.2.1-1.
pub const MAX_PRB: u32 = 110;

/// PRB count up to which the two-layer size is the one-layer size of twice the PRBs
/// (TS 36.213 § 7.1.7.2.2).
const TWO_LAYER_DIRECT_MAX_PRB: usize = 55;

/// Transport block size in bits for I_TBS `itbs`, `n_prb` PRBs and `layers` spatial layers
/// (TS 36.213 Table 7.1.7.2.1-1 and § 7.1.7.2.2; see the [module documentation](self) for the
/// two-layer approximation above 55 PRBs).
///
/// `n_prb = 0` gives 0; `n_prb` above 110 is treated as 110.
///
/// # Panics
/// If `itbs > 26` or `layers` is not 1 or 2.
#[inline]
pub fn tbs_bits(itbs: u8, n_prb: u32, layers: u8) -> u32 {
    assert!(itbs <= MAX_ITBS, "I_TBS {itbs} is out of the transport block size table (0..=26)");
    if n_prb == 0 {
        return 0;
    }
    let n = n_prb.min(MAX_PRB) as usize;
    let row = &TBS_ONE_LAYER[itbs as usize];
    match layers {
        1 => row[n - 1],
        2 if n <= TWO_LAYER_DIRECT_MAX_PRB => row[2 * n - 1],
        2 => two_layer_upper()[itbs as usize][n - TWO_LAYER_DIRECT_MAX_PRB - 1],
        _ => panic!("{layers} spatial layers: expected 1 or 2"),
    }
}

/// Two-layer transport block sizes for N_PRB 56..=110 (column `n - 56`), built on first use.
fn two_layer_upper() -> &'static [[u32; 110 - TWO_LAYER_DIRECT_MAX_PRB]; 27] {
    static TABLE: OnceLock<[[u32; 110 - TWO_LAYER_DIRECT_MAX_PRB]; 27]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut sizes: Vec<u32> = TBS_ONE_LAYER.iter().flatten().copied().collect();
        sizes.sort_unstable();
        sizes.dedup();
        let mut table = [[0; 110 - TWO_LAYER_DIRECT_MAX_PRB]; 27];
        for (row, one_layer) in table.iter_mut().zip(TBS_ONE_LAYER.iter()) {
            for (cell, &tbs_l1) in row.iter_mut().zip(&one_layer[TWO_LAYER_DIRECT_MAX_PRB..]) {
                *cell = nearest_size(&sizes, 2 * tbs_l1);
            }
        }
        table
    })
}

/// The entry of `sizes` (ascending) nearest to `x`, ties to the larger; `x` itself if it lies
/// above the largest entry.
fn nearest_size(sizes: &[u32], x: u32) -> u32 {
    match sizes.binary_search(&x) {
        Ok(_) => x,
        Err(i) if i == sizes.len() => x,
        Err(0) => sizes[0],
        Err(i) => {
            let (below, above) = (sizes[i - 1], sizes[i]);
            if above - x <= x - below {
                above
            } else {
                below
            }
        }
    }
}

/// TS 36.213 Table 7.1.7.2.1-1, transport block sizes in bits: `TBS_ONE_LAYER[i_tbs][n_prb - 1]`.
/// Entry (6, 1) is 88 rather than the misprinted 328 (see the module documentation).
#[rustfmt::skip]
const TBS_ONE_LAYER: [[u32; 110]; 27] = [
    // I_TBS 0
    [
           16,    32,    56,    88,   120,   152,   176,   208,   224,   256, // N_PRB 1..=10
          288,   328,   344,   376,   392,   424,   456,   488,   504,   536, // N_PRB 11..=20
          568,   600,   616,   648,   680,   712,   744,   776,   776,   808, // N_PRB 21..=30
          840,   872,   904,   936,   968,  1000,  1032,  1032,  1064,  1096, // N_PRB 31..=40
         1128,  1160,  1192,  1224,  1256,  1256,  1288,  1320,  1352,  1384, // N_PRB 41..=50
         1416,  1416,  1480,  1480,  1544,  1544,  1608,  1608,  1608,  1672, // N_PRB 51..=60
         1672,  1736,  1736,  1800,  1800,  1800,  1864,  1864,  1928,  1928, // N_PRB 61..=70
         1992,  1992,  2024,  2088,  2088,  2088,  2152,  2152,  2216,  2216, // N_PRB 71..=80
         2280,  2280,  2280,  2344,  2344,  2408,  2408,  2472,  2472,  2536, // N_PRB 81..=90
         2536,  2536,  2600,  2600,  2664,  2664,  2728,  2728,  2728,  2792, // N_PRB 91..=100
         2792,  2856,  2856,  2856,  2984,  2984,  2984,  2984,  2984,  3112, // N_PRB 101..=110
    ],
    // I_TBS 1
    [
           24,    56,    88,   144,   176,   208,   224,   256,   328,   344, // N_PRB 1..=10
          376,   424,   456,   488,   520,   568,   600,   632,   680,   712, // N_PRB 11..=20
          744,   776,   808,   872,   904,   936,   968,  1000,  1032,  1064, // N_PRB 21..=30
         1128,  1160,  1192,  1224,  1256,  1288,  1352,  1384,  1416,  1416, // N_PRB 31..=40
         1480,  1544,  1544,  1608,  1608,  1672,  1736,  1736,  1800,  1800, // N_PRB 41..=50
         1864,  1864,  1928,  1992,  1992,  2024,  2088,  2088,  2152,  2152, // N_PRB 51..=60
         2216,  2280,  2280,  2344,  2344,  2408,  2472,  2472,  2536,  2536, // N_PRB 61..=70
         2600,  2600,  2664,  2728,  2728,  2792,  2792,  2856,  2856,  2856, // N_PRB 71..=80
         2984,  2984,  2984,  3112,  3112,  3112,  3240,  3240,  3240,  3240, // N_PRB 81..=90
         3368,  3368,  3368,  3496,  3496,  3496,  3496,  3624,  3624,  3624, // N_PRB 91..=100
         3752,  3752,  3752,  3752,  3880,  3880,  3880,  4008,  4008,  4008, // N_PRB 101..=110
    ],
    // I_TBS 2
    [
           32,    72,   144,   176,   208,   256,   296,   328,   376,   424, // N_PRB 1..=10
          472,   520,   568,   616,   648,   696,   744,   776,   840,   872, // N_PRB 11..=20
          936,   968,  1000,  1064,  1096,  1160,  1192,  1256,  1288,  1320, // N_PRB 21..=30
         1384,  1416,  1480,  1544,  1544,  1608,  1672,  1672,  1736,  1800, // N_PRB 31..=40
         1800,  1864,  1928,  1992,  2024,  2088,  2088,  2152,  2216,  2216, // N_PRB 41..=50
         2280,  2344,  2344,  2408,  2472,  2536,  2536,  2600,  2664,  2664, // N_PRB 51..=60
         2728,  2792,  2856,  2856,  2856,  2984,  2984,  3112,  3112,  3112, // N_PRB 61..=70
         3240,  3240,  3240,  3368,  3368,  3368,  3496,  3496,  3496,  3624, // N_PRB 71..=80
         3624,  3624,  3752,  3752,  3880,  3880,  3880,  4008,  4008,  4008, // N_PRB 81..=90
         4136,  4136,  4136,  4264,  4264,  4264,  4392,  4392,  4392,  4584, // N_PRB 91..=100
         4584,  4584,  4584,  4584,  4776,  4776,  4776,  4776,  4968,  4968, // N_PRB 101..=110
    ],
    // I_TBS 3
    [
           40,   104,   176,   208,   256,   328,   392,   440,   504,   568, // N_PRB 1..=10
          616,   680,   744,   808,   872,   904,   968,  1032,  1096,  1160, // N_PRB 11..=20
         1224,  1256,  1320,  1384,  1416,  1480,  1544,  1608,  1672,  1736, // N_PRB 21..=30
         1800,  1864,  1928,  1992,  2024,  2088,  2152,  2216,  2280,  2344, // N_PRB 31..=40
         2408,  2472,  2536,  2536,  2600,  2664,  2728,  2792,  2856,  2856, // N_PRB 41..=50
         2984,  2984,  3112,  3112,  3240,  3240,  3368,  3368,  3496,  3496, // N_PRB 51..=60
         3624,  3624,  3624,  3752,  3752,  3880,  3880,  4008,  4008,  4136, // N_PRB 61..=70
         4136,  4264,  4264,  4392,  4392,  4392,  4584,  4584,  4584,  4776, // N_PRB 71..=80
         4776,  4776,  4776,  4968,  4968,  4968,  5160,  5160,  5160,  5352, // N_PRB 81..=90
         5352,  5352,  5352,  5544,  5544,  5544,  5736,  5736,  5736,  5736, // N_PRB 91..=100
         5992,  5992,  5992,  5992,  6200,  6200,  6200,  6200,  6456,  6456, // N_PRB 101..=110
    ],
    // I_TBS 4
    [
           56,   120,   208,   256,   328,   408,   488,   552,   632,   696, // N_PRB 1..=10
          776,   840,   904,  1000,  1064,  1128,  1192,  1288,  1352,  1416, // N_PRB 11..=20
         1480,  1544,  1608,  1736,  1800,  1864,  1928,  1992,  2088,  2152, // N_PRB 21..=30
         2216,  2280,  2344,  2408,  2472,  2600,  2664,  2728,  2792,  2856, // N_PRB 31..=40
         2984,  2984,  3112,  3112,  3240,  3240,  3368,  3496,  3496,  3624, // N_PRB 41..=50
         3624,  3752,  3752,  3880,  4008,  4008,  4136,  4136,  4264,  4264, // N_PRB 51..=60
         4392,  4392,  4584,  4584,  4584,  4776,  4776,  4968,  4968,  4968, // N_PRB 61..=70
         5160,  5160,  5160,  5352,  5352,  5544,  5544,  5544,  5736,  5736, // N_PRB 71..=80
         5736,  5992,  5992,  5992,  5992,  6200,  6200,  6200,  6456,  6456, // N_PRB 81..=90
         6456,  6456,  6712,  6712,  6712,  6968,  6968,  6968,  6968,  7224, // N_PRB 91..=100
         7224,  7224,  7480,  7480,  7480,  7480,  7736,  7736,  7736,  7992, // N_PRB 101..=110
    ],
    // I_TBS 5
    [
           72,   144,   224,   328,   424,   504,   600,   680,   776,   872, // N_PRB 1..=10
          968,  1032,  1128,  1224,  1320,  1384,  1480,  1544,  1672,  1736, // N_PRB 11..=20
         1864,  1928,  2024,  2088,  2216,  2280,  2344,  2472,  2536,  2664, // N_PRB 21..=30
         2728,  2792,  2856,  2984,  3112,  3112,  3240,  3368,  3496,  3496, // N_PRB 31..=40
         3624,  3752,  3752,  3880,  4008,  4008,  4136,  4264,  4392,  4392, // N_PRB 41..=50
         4584,  4584,  4776,  4776,  4776,  4968,  4968,  5160,  5160,  5352, // N_PRB 51..=60
         5352,  5544,  5544,  5736,  5736,  5736,  5992,  5992,  5992,  6200, // N_PRB 61..=70
         6200,  6200,  6456,  6456,  6712,  6712,  6712,  6968,  6968,  6968, // N_PRB 71..=80
         7224,  7224,  7224,  7480,  7480,  7480,  7736,  7736,  7736,  7992, // N_PRB 81..=90
         7992,  7992,  8248,  8248,  8248,  8504,  8504,  8760,  8760,  8760, // N_PRB 91..=100
         8760,  9144,  9144,  9144,  9144,  9528,  9528,  9528,  9528,  9528, // N_PRB 101..=110
    ],
    // I_TBS 6
    [
           88,   176,   256,   392,   504,   600,   712,   808,   936,  1032, // N_PRB 1..=10
         1128,  1224,  1352,  1480,  1544,  1672,  1736,  1864,  1992,  2088, // N_PRB 11..=20
         2216,  2280,  2408,  2472,  2600,  2728,  2792,  2984,  2984,  3112, // N_PRB 21..=30
         3240,  3368,  3496,  3496,  3624,  3752,  3880,  4008,  4136,  4136, // N_PRB 31..=40
         4264,  4392,  4584,  4584,  4776,  4776,  4968,  4968,  5160,  5160, // N_PRB 41..=50
         5352,  5352,  5544,  5736,  5736,  5992,  5992,  5992,  6200,  6200, // N_PRB 51..=60
         6456,  6456,  6456,  6712,  6712,  6968,  6968,  6968,  7224,  7224, // N_PRB 61..=70
         7480,  7480,  7736,  7736,  7736,  7992,  7992,  8248,  8248,  8248, // N_PRB 71..=80
         8504,  8504,  8760,  8760,  8760,  9144,  9144,  9144,  9144,  9528, // N_PRB 81..=90
         9528,  9528,  9528,  9912,  9912,  9912, 10296, 10296, 10296, 10296, // N_PRB 91..=100
        10680, 10680, 10680, 10680, 11064, 11064, 11064, 11448, 11448, 11448, // N_PRB 101..=110
    ],
    // I_TBS 7
    [
          104,   224,   328,   472,   584,   712,   840,   968,  1096,  1224, // N_PRB 1..=10
         1320,  1480,  1608,  1672,  1800,  1928,  2088,  2216,  2344,  2472, // N_PRB 11..=20
         2536,  2664,  2792,  2984,  3112,  3240,  3368,  3368,  3496,  3624, // N_PRB 21..=30
         3752,  3880,  4008,  4136,  4264,  4392,  4584,  4584,  4776,  4968, // N_PRB 31..=40
         4968,  5160,  5352,  5352,  5544,  5736,  5736,  5992,  5992,  6200, // N_PRB 41..=50
         6200,  6456,  6456,  6712,  6712,  6712,  6968,  6968,  7224,  7224, // N_PRB 51..=60
         7480,  7480,  7736,  7736,  7992,  7992,  8248,  8248,  8504,  8504, // N_PRB 61..=70
         8760,  8760,  8760,  9144,  9144,  9144,  9528,  9528,  9528,  9912, // N_PRB 71..=80
         9912,  9912, 10296, 10296, 10296, 10680, 10680, 10680, 11064, 11064, // N_PRB 81..=90
        11064, 11448, 11448, 11448, 11448, 11832, 11832, 11832, 12216, 12216, // N_PRB 91..=100
        12216, 12576, 12576, 12576, 12960, 12960, 12960, 12960, 13536, 13536, // N_PRB 101..=110
    ],
    // I_TBS 8
    [
          120,   256,   392,   536,   680,   808,   968,  1096,  1256,  1384, // N_PRB 1..=10
         1544,  1672,  1800,  1928,  2088,  2216,  2344,  2536,  2664,  2792, // N_PRB 11..=20
         2984,  3112,  3240,  3368,  3496,  3624,  3752,  3880,  4008,  4264, // N_PRB 21..=30
         4392,  4584,  4584,  4776,  4968,  4968,  5160,  5352,  5544,  5544, // N_PRB 31..=40
         5736,  5992,  5992,  6200,  6200,  6456,  6456,  6712,  6968,  6968, // N_PRB 41..=50
         7224,  7224,  7480,  7480,  7736,  7736,  7992,  7992,  8248,  8504, // N_PRB 51..=60
         8504,  8760,  8760,  9144,  9144,  9144,  9528,  9528,  9528,  9912, // N_PRB 61..=70
         9912,  9912, 10296, 10296, 10680, 10680, 10680, 11064, 11064, 11064, // N_PRB 71..=80
        11448, 11448, 11448, 11832, 11832, 12216, 12216, 12216, 12576, 12576, // N_PRB 81..=90
        12576, 12960, 12960, 12960, 13536, 13536, 13536, 13536, 14112, 14112, // N_PRB 91..=100
        14112, 14112, 14688, 14688, 14688, 14688, 15264, 15264, 15264, 15264, // N_PRB 101..=110
    ],
    // I_TBS 9
    [
          136,   296,   456,   616,   776,   936,  1096,  1256,  1416,  1544, // N_PRB 1..=10
         1736,  1864,  2024,  2216,  2344,  2536,  2664,  2856,  2984,  3112, // N_PRB 11..=20
         3368,  3496,  3624,  3752,  4008,  4136,  4264,  4392,  4584,  4776, // N_PRB 21..=30
         4968,  5160,  5160,  5352,  5544,  5736,  5736,  5992,  6200,  6200, // N_PRB 31..=40
         6456,  6712,  6712,  6968,  6968,  7224,  7480,  7480,  7736,  7992, // N_PRB 41..=50
         7992,  8248,  8248,  8504,  8760,  8760,  9144,  9144,  9144,  9528, // N_PRB 51..=60
         9528,  9912,  9912, 10296, 10296, 10296, 10680, 10680, 11064, 11064, // N_PRB 61..=70
        11064, 11448, 11448, 11832, 11832, 11832, 12216, 12216, 12576, 12576, // N_PRB 71..=80
        12960, 12960, 12960, 13536, 13536, 13536, 13536, 14112, 14112, 14112, // N_PRB 81..=90
        14112, 14688, 14688, 14688, 15264, 15264, 15264, 15264, 15840, 15840, // N_PRB 91..=100
        15840, 16416, 16416, 16416, 16416, 16992, 16992, 16992, 16992, 17568, // N_PRB 101..=110
    ],
    // I_TBS 10
    [
          144,   328,   504,   680,   872,  1032,  1224,  1384,  1544,  1736, // N_PRB 1..=10
         1928,  2088,  2280,  2472,  2664,  2792,  2984,  3112,  3368,  3496, // N_PRB 11..=20
         3752,  3880,  4008,  4264,  4392,  4584,  4776,  4968,  5160,  5352, // N_PRB 21..=30
         5544,  5736,  5736,  5992,  6200,  6200,  6456,  6712,  6712,  6968, // N_PRB 31..=40
         7224,  7480,  7480,  7736,  7992,  7992,  8248,  8504,  8504,  8760, // N_PRB 41..=50
         9144,  9144,  9144,  9528,  9528,  9912,  9912, 10296, 10296, 10680, // N_PRB 51..=60
        10680, 11064, 11064, 11448, 11448, 11448, 11832, 11832, 12216, 12216, // N_PRB 61..=70
        12576, 12576, 12960, 12960, 12960, 13536, 13536, 13536, 14112, 14112, // N_PRB 71..=80
        14112, 14688, 14688, 14688, 14688, 15264, 15264, 15264, 15840, 15840, // N_PRB 81..=90
        15840, 16416, 16416, 16416, 16992, 16992, 16992, 16992, 17568, 17568, // N_PRB 91..=100
        17568, 18336, 18336, 18336, 18336, 18336, 19080, 19080, 19080, 19080, // N_PRB 101..=110
    ],
    // I_TBS 11
    [
          176,   376,   584,   776,  1000,  1192,  1384,  1608,  1800,  2024, // N_PRB 1..=10
         2216,  2408,  2600,  2792,  2984,  3240,  3496,  3624,  3880,  4008, // N_PRB 11..=20
         4264,  4392,  4584,  4776,  4968,  5352,  5544,  5736,  5992,  5992, // N_PRB 21..=30
         6200,  6456,  6712,  6968,  6968,  7224,  7480,  7736,  7736,  7992, // N_PRB 31..=40
         8248,  8504,  8760,  8760,  9144,  9144,  9528,  9528,  9912,  9912, // N_PRB 41..=50
        10296, 10680, 10680, 11064, 11064, 11448, 11448, 11832, 11832, 12216, // N_PRB 51..=60
        12216, 12576, 12576, 12960, 12960, 13536, 13536, 13536, 14112, 14112, // N_PRB 61..=70
        14112, 14688, 14688, 14688, 15264, 15264, 15840, 15840, 15840, 16416, // N_PRB 71..=80
        16416, 16416, 16992, 16992, 16992, 17568, 17568, 17568, 18336, 18336, // N_PRB 81..=90
        18336, 18336, 19080, 19080, 19080, 19080, 19848, 19848, 19848, 19848, // N_PRB 91..=100
        20616, 20616, 20616, 21384, 21384, 21384, 21384, 22152, 22152, 22152, // N_PRB 101..=110
    ],
    // I_TBS 12
    [
          208,   440,   680,   904,  1128,  1352,  1608,  1800,  2024,  2280, // N_PRB 1..=10
         2472,  2728,  2984,  3240,  3368,  3624,  3880,  4136,  4392,  4584, // N_PRB 11..=20
         4776,  4968,  5352,  5544,  5736,  5992,  6200,  6456,  6712,  6712, // N_PRB 21..=30
         6968,  7224,  7480,  7736,  7992,  8248,  8504,  8760,  8760,  9144, // N_PRB 31..=40
         9528,  9528,  9912,  9912, 10296, 10680, 10680, 11064, 11064, 11448, // N_PRB 41..=50
        11832, 11832, 12216, 12216, 12576, 12576, 12960, 12960, 13536, 13536, // N_PRB 51..=60
        14112, 14112, 14112, 14688, 14688, 15264, 15264, 15264, 15840, 15840, // N_PRB 61..=70
        16416, 16416, 16416, 16992, 16992, 17568, 17568, 17568, 18336, 18336, // N_PRB 71..=80
        18336, 19080, 19080, 19080, 19080, 19848, 19848, 19848, 20616, 20616, // N_PRB 81..=90
        20616, 21384, 21384, 21384, 21384, 22152, 22152, 22152, 22920, 22920, // N_PRB 91..=100
        22920, 23688, 23688, 23688, 23688, 24496, 24496, 24496, 24496, 25456, // N_PRB 101..=110
    ],
    // I_TBS 13
    [
          224,   488,   744,  1000,  1256,  1544,  1800,  2024,  2280,  2536, // N_PRB 1..=10
         2856,  3112,  3368,  3624,  3880,  4136,  4392,  4584,  4968,  5160, // N_PRB 11..=20
         5352,  5736,  5992,  6200,  6456,  6712,  6968,  7224,  7480,  7736, // N_PRB 21..=30
         7992,  8248,  8504,  8760,  9144,  9144,  9528,  9912,  9912, 10296, // N_PRB 31..=40
        10680, 10680, 11064, 11448, 11448, 11832, 12216, 12216, 12576, 12960, // N_PRB 41..=50
        12960, 13536, 13536, 14112, 14112, 14688, 14688, 14688, 15264, 15264, // N_PRB 51..=60
        15840, 15840, 16416, 16416, 16992, 16992, 16992, 17568, 17568, 18336, // N_PRB 61..=70
        18336, 18336, 19080, 19080, 19080, 19848, 19848, 19848, 20616, 20616, // N_PRB 71..=80
        20616, 21384, 21384, 21384, 22152, 22152, 22152, 22920, 22920, 22920, // N_PRB 81..=90
        23688, 23688, 23688, 24496, 24496, 24496, 25456, 25456, 25456, 25456, // N_PRB 91..=100
        26416, 26416, 26416, 26416, 27376, 27376, 27376, 27376, 28336, 28336, // N_PRB 101..=110
    ],
    // I_TBS 14
    [
          256,   552,   840,  1128,  1416,  1736,  1992,  2280,  2600,  2856, // N_PRB 1..=10
         3112,  3496,  3752,  4008,  4264,  4584,  4968,  5160,  5544,  5736, // N_PRB 11..=20
         5992,  6200,  6456,  6968,  7224,  7480,  7736,  7992,  8248,  8504, // N_PRB 21..=30
         8760,  9144,  9528,  9912,  9912, 10296, 10680, 11064, 11064, 11448, // N_PRB 31..=40
        11832, 12216, 12216, 12576, 12960, 12960, 13536, 13536, 14112, 14112, // N_PRB 41..=50
        14688, 14688, 15264, 15264, 15840, 15840, 16416, 16416, 16992, 16992, // N_PRB 51..=60
        17568, 17568, 18336, 18336, 18336, 19080, 19080, 19848, 19848, 19848, // N_PRB 61..=70
        20616, 20616, 20616, 21384, 21384, 22152, 22152, 22152, 22920, 22920, // N_PRB 71..=80
        22920, 23688, 23688, 24496, 24496, 24496, 25456, 25456, 25456, 25456, // N_PRB 81..=90
        26416, 26416, 26416, 27376, 27376, 27376, 28336, 28336, 28336, 28336, // N_PRB 91..=100
        29296, 29296, 29296, 29296, 30576, 30576, 30576, 30576, 31704, 31704, // N_PRB 101..=110
    ],
    // I_TBS 15
    [
          280,   600,   904,  1224,  1544,  1800,  2152,  2472,  2728,  3112, // N_PRB 1..=10
         3368,  3624,  4008,  4264,  4584,  4968,  5160,  5544,  5736,  6200, // N_PRB 11..=20
         6456,  6712,  6968,  7224,  7736,  7992,  8248,  8504,  8760,  9144, // N_PRB 21..=30
         9528,  9912, 10296, 10296, 10680, 11064, 11448, 11832, 11832, 12216, // N_PRB 31..=40
        12576, 12960, 12960, 13536, 13536, 14112, 14688, 14688, 15264, 15264, // N_PRB 41..=50
        15840, 15840, 16416, 16416, 16992, 16992, 17568, 17568, 18336, 18336, // N_PRB 51..=60
        18336, 19080, 19080, 19848, 19848, 20616, 20616, 20616, 21384, 21384, // N_PRB 61..=70
        22152, 22152, 22152, 22920, 22920, 23688, 23688, 23688, 24496, 24496, // N_PRB 71..=80
        24496, 25456, 25456, 25456, 26416, 26416, 26416, 27376, 27376, 27376, // N_PRB 81..=90
        28336, 28336, 28336, 29296, 29296, 29296, 29296, 30576, 30576, 30576, // N_PRB 91..=100
        30576, 31704, 31704, 31704, 31704, 32856, 32856, 32856, 34008, 34008, // N_PRB 101..=110
    ],
    // I_TBS 16
    [
          328,   632,   968,  1288,  1608,  1928,  2280,  2600,  2984,  3240, // N_PRB 1..=10
         3624,  3880,  4264,  4584,  4968,  5160,  5544,  5992,  6200,  6456, // N_PRB 11..=20
         6712,  7224,  7480,  7736,  7992,  8504,  8760,  9144,  9528,  9912, // N_PRB 21..=30
         9912, 10296, 10680, 11064, 11448, 11832, 12216, 12216, 12576, 12960, // N_PRB 31..=40
        13536, 13536, 14112, 14112, 14688, 14688, 15264, 15840, 15840, 16416, // N_PRB 41..=50
        16416, 16992, 16992, 17568, 17568, 18336, 18336, 19080, 19080, 19848, // N_PRB 51..=60
        19848, 19848, 20616, 20616, 21384, 21384, 22152, 22152, 22152, 22920, // N_PRB 61..=70
        22920, 23688, 23688, 24496, 24496, 24496, 25456, 25456, 25456, 26416, // N_PRB 71..=80
        26416, 26416, 27376, 27376, 27376, 28336, 28336, 28336, 29296, 29296, // N_PRB 81..=90
        29296, 30576, 30576, 30576, 30576, 31704, 31704, 31704, 31704, 32856, // N_PRB 91..=100
        32856, 32856, 34008, 34008, 34008, 34008, 35160, 35160, 35160, 35160, // N_PRB 101..=110
    ],
    // I_TBS 17
    [
          336,   696,  1064,  1416,  1800,  2152,  2536,  2856,  3240,  3624, // N_PRB 1..=10
         4008,  4392,  4776,  5160,  5352,  5736,  6200,  6456,  6712,  7224, // N_PRB 11..=20
         7480,  7992,  8248,  8760,  9144,  9528,  9912, 10296, 10296, 10680, // N_PRB 21..=30
        11064, 11448, 11832, 12216, 12576, 12960, 13536, 13536, 14112, 14688, // N_PRB 31..=40
        14688, 15264, 15264, 15840, 16416, 16416, 16992, 17568, 17568, 18336, // N_PRB 41..=50
        18336, 19080, 19080, 19848, 19848, 20616, 20616, 20616, 21384, 21384, // N_PRB 51..=60
        22152, 22152, 22920, 22920, 23688, 23688, 24496, 24496, 24496, 25456, // N_PRB 61..=70
        25456, 26416, 26416, 26416, 27376, 27376, 27376, 28336, 28336, 29296, // N_PRB 71..=80
        29296, 29296, 30576, 30576, 30576, 30576, 31704, 31704, 31704, 32856, // N_PRB 81..=90
        32856, 32856, 34008, 34008, 34008, 35160, 35160, 35160, 35160, 36696, // N_PRB 91..=100
        36696, 36696, 36696, 37888, 37888, 37888, 39232, 39232, 39232, 39232, // N_PRB 101..=110
    ],
    // I_TBS 18
    [
          376,   776,  1160,  1544,  1992,  2344,  2792,  3112,  3624,  4008, // N_PRB 1..=10
         4392,  4776,  5160,  5544,  5992,  6200,  6712,  7224,  7480,  7992, // N_PRB 11..=20
         8248,  8760,  9144,  9528,  9912, 10296, 10680, 11064, 11448, 11832, // N_PRB 21..=30
        12216, 12576, 12960, 13536, 14112, 14112, 14688, 15264, 15264, 15840, // N_PRB 31..=40
        16416, 16416, 16992, 17568, 17568, 18336, 18336, 19080, 19080, 19848, // N_PRB 41..=50
        19848, 20616, 21384, 21384, 22152, 22152, 22920, 22920, 23688, 23688, // N_PRB 51..=60
        24496, 24496, 24496, 25456, 25456, 26416, 26416, 27376, 27376, 27376, // N_PRB 61..=70
        28336, 28336, 29296, 29296, 29296, 30576, 30576, 30576, 31704, 31704, // N_PRB 71..=80
        31704, 32856, 32856, 32856, 34008, 34008, 34008, 35160, 35160, 35160, // N_PRB 81..=90
        36696, 36696, 36696, 37888, 37888, 37888, 37888, 39232, 39232, 39232, // N_PRB 91..=100
        40576, 40576, 40576, 40576, 42368, 42368, 42368, 42368, 43816, 43816, // N_PRB 101..=110
    ],
    // I_TBS 19
    [
          408,   840,  1288,  1736,  2152,  2600,  2984,  3496,  3880,  4264, // N_PRB 1..=10
         4776,  5160,  5544,  5992,  6456,  6968,  7224,  7736,  8248,  8504, // N_PRB 11..=20
         9144,  9528,  9912, 10296, 10680, 11064, 11448, 12216, 12576, 12960, // N_PRB 21..=30
        13536, 13536, 14112, 14688, 15264, 15264, 15840, 16416, 16992, 16992, // N_PRB 31..=40
        17568, 18336, 18336, 19080, 19080, 19848, 20616, 20616, 21384, 21384, // N_PRB 41..=50
        22152, 22152, 22920, 22920, 23688, 24496, 24496, 25456, 25456, 25456, // N_PRB 51..=60
        26416, 26416, 27376, 27376, 28336, 28336, 29296, 29296, 29296, 30576, // N_PRB 61..=70
        30576, 30576, 31704, 31704, 32856, 32856, 32856, 34008, 34008, 34008, // N_PRB 71..=80
        35160, 35160, 35160, 36696, 36696, 36696, 37888, 37888, 37888, 39232, // N_PRB 81..=90
        39232, 39232, 40576, 40576, 40576, 40576, 42368, 42368, 42368, 43816, // N_PRB 91..=100
        43816, 43816, 43816, 45352, 45352, 45352, 46888, 46888, 46888, 46888, // N_PRB 101..=110
    ],
    // I_TBS 20
    [
          440,   904,  1384,  1864,  2344,  2792,  3240,  3752,  4136,  4584, // N_PRB 1..=10
         5160,  5544,  5992,  6456,  6968,  7480,  7992,  8248,  8760,  9144, // N_PRB 11..=20
         9912, 10296, 10680, 11064, 11448, 12216, 12576, 12960, 13536, 14112, // N_PRB 21..=30
        14688, 14688, 15264, 15840, 16416, 16992, 16992, 17568, 18336, 18336, // N_PRB 31..=40
        19080, 19848, 19848, 20616, 20616, 21384, 22152, 22152, 22920, 22920, // N_PRB 41..=50
        23688, 24496, 24496, 25456, 25456, 26416, 26416, 27376, 27376, 28336, // N_PRB 51..=60
        28336, 29296, 29296, 29296, 30576, 30576, 31704, 31704, 31704, 32856, // N_PRB 61..=70
        32856, 34008, 34008, 34008, 35160, 35160, 35160, 36696, 36696, 36696, // N_PRB 71..=80
        37888, 37888, 39232, 39232, 39232, 40576, 40576, 40576, 42368, 42368, // N_PRB 81..=90
        42368, 42368, 43816, 43816, 43816, 45352, 45352, 45352, 46888, 46888, // N_PRB 91..=100
        46888, 46888, 48936, 48936, 48936, 48936, 48936, 51024, 51024, 51024, // N_PRB 101..=110
    ],
    // I_TBS 21
    [
          488,  1000,  1480,  1992,  2472,  2984,  3496,  4008,  4584,  4968, // N_PRB 1..=10
         5544,  5992,  6456,  6968,  7480,  7992,  8504,  9144,  9528,  9912, // N_PRB 11..=20
        10680, 11064, 11448, 12216, 12576, 12960, 13536, 14112, 14688, 15264, // N_PRB 21..=30
        15840, 15840, 16416, 16992, 17568, 18336, 18336, 19080, 19848, 19848, // N_PRB 31..=40
        20616, 21384, 21384, 22152, 22920, 22920, 23688, 24496, 24496, 25456, // N_PRB 41..=50
        25456, 26416, 26416, 27376, 27376, 28336, 28336, 29296, 29296, 30576, // N_PRB 51..=60
        30576, 31704, 31704, 31704, 32856, 32856, 34008, 34008, 35160, 35160, // N_PRB 61..=70
        35160, 36696, 36696, 36696, 37888, 37888, 39232, 39232, 39232, 40576, // N_PRB 71..=80
        40576, 40576, 42368, 42368, 42368, 43816, 43816, 43816, 45352, 45352, // N_PRB 81..=90
        45352, 46888, 46888, 46888, 46888, 48936, 48936, 48936, 48936, 51024, // N_PRB 91..=100
        51024, 51024, 51024, 52752, 52752, 52752, 52752, 55056, 55056, 55056, // N_PRB 101..=110
    ],
    // I_TBS 22
    [
          520,  1064,  1608,  2152,  2664,  3240,  3752,  4264,  4776,  5352, // N_PRB 1..=10
         5992,  6456,  6968,  7480,  7992,  8504,  9144,  9528, 10296, 10680, // N_PRB 11..=20
        11448, 11832, 12576, 12960, 13536, 14112, 14688, 15264, 15840, 16416, // N_PRB 21..=30
        16992, 16992, 17568, 18336, 19080, 19080, 19848, 20616, 21384, 21384, // N_PRB 31..=40
        22152, 22920, 22920, 23688, 24496, 24496, 25456, 25456, 26416, 27376, // N_PRB 41..=50
        27376, 28336, 28336, 29296, 29296, 30576, 30576, 31704, 31704, 32856, // N_PRB 51..=60
        32856, 34008, 34008, 34008, 35160, 35160, 36696, 36696, 36696, 37888, // N_PRB 61..=70
        37888, 39232, 39232, 40576, 40576, 40576, 42368, 42368, 42368, 43816, // N_PRB 71..=80
        43816, 43816, 45352, 45352, 45352, 46888, 46888, 46888, 48936, 48936, // N_PRB 81..=90
        48936, 48936, 51024, 51024, 51024, 51024, 52752, 52752, 52752, 55056, // N_PRB 91..=100
        55056, 55056, 55056, 57336, 57336, 57336, 57336, 59256, 59256, 59256, // N_PRB 101..=110
    ],
    // I_TBS 23
    [
          552,  1128,  1736,  2280,  2856,  3496,  4008,  4584,  5160,  5736, // N_PRB 1..=10
         6200,  6968,  7480,  7992,  8504,  9144,  9912, 10296, 11064, 11448, // N_PRB 11..=20
        12216, 12576, 12960, 13536, 14112, 14688, 15264, 15840, 16416, 16992, // N_PRB 21..=30
        17568, 18336, 19080, 19848, 19848, 20616, 21384, 22152, 22152, 22920, // N_PRB 31..=40
        23688, 24496, 24496, 25456, 25456, 26416, 27376, 27376, 28336, 28336, // N_PRB 41..=50
        29296, 29296, 30576, 30576, 31704, 31704, 32856, 32856, 34008, 34008, // N_PRB 51..=60
        35160, 35160, 36696, 36696, 37888, 37888, 37888, 39232, 39232, 40576, // N_PRB 61..=70
        40576, 40576, 42368, 42368, 43816, 43816, 43816, 45352, 45352, 45352, // N_PRB 71..=80
        46888, 46888, 46888, 48936, 48936, 48936, 51024, 51024, 51024, 51024, // N_PRB 81..=90
        52752, 52752, 52752, 55056, 55056, 55056, 55056, 57336, 57336, 57336, // N_PRB 91..=100
        57336, 59256, 59256, 59256, 59256, 61664, 61664, 61664, 61664, 63776, // N_PRB 101..=110
    ],
    // I_TBS 24
    [
          584,  1192,  1800,  2408,  2984,  3624,  4264,  4968,  5544,  5992, // N_PRB 1..=10
         6712,  7224,  7992,  8504,  9144,  9912, 10296, 11064, 11448, 12216, // N_PRB 11..=20
        12960, 13536, 14112, 14688, 15264, 15840, 16416, 16992, 17568, 18336, // N_PRB 21..=30
        19080, 19848, 19848, 20616, 21384, 22152, 22920, 22920, 23688, 24496, // N_PRB 31..=40
        25456, 25456, 26416, 26416, 27376, 28336, 28336, 29296, 29296, 30576, // N_PRB 41..=50
        31704, 31704, 32856, 32856, 34008, 34008, 35160, 35160, 36696, 36696, // N_PRB 51..=60
        36696, 37888, 37888, 39232, 39232, 40576, 40576, 42368, 42368, 42368, // N_PRB 61..=70
        43816, 43816, 45352, 45352, 45352, 46888, 46888, 46888, 48936, 48936, // N_PRB 71..=80
        48936, 51024, 51024, 51024, 52752, 52752, 52752, 52752, 55056, 55056, // N_PRB 81..=90
        55056, 57336, 57336, 57336, 57336, 59256, 59256, 59256, 61664, 61664, // N_PRB 91..=100
        61664, 61664, 63776, 63776, 63776, 63776, 66592, 66592, 66592, 66592, // N_PRB 101..=110
    ],
    // I_TBS 25
    [
          616,  1256,  1864,  2536,  3112,  3752,  4392,  5160,  5736,  6200, // N_PRB 1..=10
         6968,  7480,  8248,  8760,  9528, 10296, 10680, 11448, 12216, 12576, // N_PRB 11..=20
        13536, 14112, 14688, 15264, 15840, 16416, 16992, 17568, 18336, 19080, // N_PRB 21..=30
        19848, 20616, 20616, 21384, 22152, 22920, 23688, 24496, 24496, 25456, // N_PRB 31..=40
        26416, 26416, 27376, 28336, 28336, 29296, 29296, 30576, 31704, 31704, // N_PRB 41..=50
        32856, 32856, 34008, 34008, 35160, 35160, 36696, 36696, 37888, 37888, // N_PRB 51..=60
        39232, 39232, 40576, 40576, 40576, 42368, 42368, 43816, 43816, 43816, // N_PRB 61..=70
        45352, 45352, 46888, 46888, 46888, 48936, 48936, 48936, 51024, 51024, // N_PRB 71..=80
        51024, 52752, 52752, 52752, 55056, 55056, 55056, 55056, 57336, 57336, // N_PRB 81..=90
        57336, 59256, 59256, 59256, 61664, 61664, 61664, 61664, 63776, 63776, // N_PRB 91..=100
        63776, 63776, 66592, 66592, 66592, 66592, 68808, 68808, 68808, 71112, // N_PRB 101..=110
    ],
    // I_TBS 26
    [
          712,  1480,  2216,  2984,  3752,  4392,  5160,  5992,  6712,  7480, // N_PRB 1..=10
         8248,  8760,  9528, 10296, 11064, 11832, 12576, 13536, 14112, 14688, // N_PRB 11..=20
        15264, 16416, 16992, 17568, 18336, 19080, 19848, 20616, 21384, 22152, // N_PRB 21..=30
        22920, 23688, 24496, 25456, 25456, 26416, 27376, 28336, 29296, 29296, // N_PRB 31..=40
        30576, 30576, 31704, 32856, 32856, 34008, 35160, 35160, 36696, 36696, // N_PRB 41..=50
        37888, 37888, 39232, 40576, 40576, 40576, 42368, 42368, 43816, 43816, // N_PRB 51..=60
        45352, 45352, 46888, 46888, 48936, 48936, 48936, 51024, 51024, 52752, // N_PRB 61..=70
        52752, 52752, 55056, 55056, 55056, 55056, 57336, 57336, 57336, 59256, // N_PRB 71..=80
        59256, 59256, 61664, 61664, 61664, 63776, 63776, 63776, 66592, 66592, // N_PRB 81..=90
        66592, 68808, 68808, 68808, 71112, 71112, 71112, 73712, 73712, 75376, // N_PRB 91..=100
        75376, 75376, 75376, 75376, 75376, 75376, 75376, 75376, 75376, 75376, // N_PRB 101..=110
    ],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tbs_table_has_27_rows_of_110_sizes_in_whole_bytes() {
        assert_eq!(TBS_ONE_LAYER.len(), 27);
        assert!(TBS_ONE_LAYER.iter().all(|row| row.len() == 110));
        assert!(TBS_ONE_LAYER.iter().flatten().all(|&b| b > 0 && b % 8 == 0));
    }

    #[test]
    fn tbs_spot_values_match_the_standard() {
        // (I_TBS, N_PRB, bits), checked against both public reproductions of the table.
        let spots = [
            (0, 1, 16),
            (0, 110, 3112),
            (6, 1, 88),
            (9, 50, 7992),
            (10, 50, 8760),
            (15, 25, 7736),
            (20, 75, 35160),
            (26, 1, 712),
            (26, 50, 36696),
            (26, 100, 75376),
            (26, 110, 75376),
        ];
        for (itbs, n_prb, bits) in spots {
            assert_eq!(tbs_bits(itbs, n_prb, 1), bits, "I_TBS {itbs}, N_PRB {n_prb}");
        }
    }

    #[test]
    fn tbs_is_monotone_along_both_axes() {
        for layers in [1, 2] {
            for itbs in 0..=MAX_ITBS {
                for n in 1..MAX_PRB {
                    assert!(tbs_bits(itbs, n + 1, layers) >= tbs_bits(itbs, n, layers), "{layers}L I_TBS {itbs} N {n}");
                    if itbs < MAX_ITBS {
                        assert!(
                            tbs_bits(itbs + 1, n, layers) >= tbs_bits(itbs, n, layers),
                            "{layers}L I_TBS {itbs} N {n}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn prb_count_is_clamped() {
        assert_eq!(tbs_bits(26, 0, 1), 0);
        assert_eq!(tbs_bits(26, 0, 2), 0);
        assert_eq!(tbs_bits(26, 500, 1), tbs_bits(26, 110, 1));
        assert_eq!(tbs_bits(13, 111, 2), tbs_bits(13, 110, 2));
    }

    #[test]
    fn two_layers_up_to_55_prbs_use_twice_the_prbs() {
        for itbs in 0..=MAX_ITBS {
            for n in 1..=55 {
                assert_eq!(tbs_bits(itbs, n, 2), tbs_bits(itbs, 2 * n, 1));
            }
        }
        assert_eq!(tbs_bits(26, 50, 2), 75376);
        assert_eq!(tbs_bits(0, 1, 2), 32);
    }

    #[test]
    fn two_layers_above_55_prbs_are_close_to_double() {
        for itbs in 0..=MAX_ITBS {
            for n in 56..=MAX_PRB {
                let double = 2.0 * tbs_bits(itbs, n, 1) as f64;
                let two = tbs_bits(itbs, n, 2) as f64;
                assert!((two - double).abs() <= 0.02 * double, "I_TBS {itbs} N {n}: {two} vs {double}");
            }
        }
        // 2 × 1544 = 3088 rounds to the table size 3112; 2 × 40576 = 81152 is above the table.
        assert_eq!(tbs_bits(0, 56, 2), 3112);
        assert_eq!(tbs_bits(26, 56, 2), 81152);
    }

    #[test]
    fn nearest_size_rounds_to_the_closest_table_entry() {
        let sizes = [16, 24, 40];
        assert_eq!(nearest_size(&sizes, 8), 16);
        assert_eq!(nearest_size(&sizes, 24), 24);
        assert_eq!(nearest_size(&sizes, 27), 24);
        assert_eq!(nearest_size(&sizes, 32), 40); // tie goes up
        assert_eq!(nearest_size(&sizes, 41), 41);
    }

    #[test]
    fn cqi_table_efficiency_is_modulation_times_code_rate() {
        let mut last = 0.0;
        for (k, e) in CQI_TABLE.iter().enumerate() {
            let exact = e.modulation.bits_per_symbol() as f64 * e.code_rate_x1024 as f64 / 1024.0;
            assert!((e.efficiency - exact).abs() < 1e-4, "CQI {}", k + 1);
            assert!(e.efficiency > last, "CQI {}", k + 1);
            last = e.efficiency;
        }
        assert!(cqi_entry(0).is_none());
        assert_eq!(cqi_entry(7).unwrap().modulation, Modulation::Qam16);
        assert_eq!(cqi_entry(15).unwrap().code_rate_x1024, 948);
    }

    #[test]
    fn mcs_table_maps_to_itbs() {
        let spots = [(0, 0), (9, 9), (10, 9), (11, 10), (16, 15), (17, 15), (18, 16), (28, 26)];
        for (mcs, itbs) in spots {
            assert_eq!(mcs_to_itbs(mcs), itbs, "I_MCS {mcs}");
        }
        for (i, e) in MCS_TABLE.iter().enumerate() {
            let expected = match i {
                0..=9 => Modulation::Qpsk,
                10..=16 => Modulation::Qam16,
                _ => Modulation::Qam64,
            };
            assert_eq!(e.modulation, expected, "I_MCS {i}");
        }
        for (x, f) in MCS_EFFICIENCY_X100.iter().zip(MCS_SPECTRAL_EFFICIENCY) {
            assert!((*x as f64 - 100.0 * f).abs() < 1e-9);
        }
    }

    #[test]
    fn cqi_maps_to_the_highest_mcs_not_above_its_efficiency() {
        assert_eq!(cqi_to_mcs(0), None);
        assert_eq!(cqi_to_itbs(0), None);
        for cqi in 1..=MAX_CQI {
            let mcs = cqi_to_mcs(cqi).unwrap();
            assert_eq!(mcs, 2 * cqi - 2, "CQI {cqi}");
            let eff = (CQI_TABLE[cqi as usize - 1].efficiency * 100.0).round() / 100.0;
            assert!(MCS_SPECTRAL_EFFICIENCY[mcs as usize] <= eff + 1e-9);
            if mcs < MAX_MCS {
                assert!(MCS_SPECTRAL_EFFICIENCY[mcs as usize + 1] > eff + 1e-9);
            }
            assert_eq!(cqi_to_itbs(cqi), Some(mcs_to_itbs(mcs)));
        }
        assert_eq!(cqi_to_itbs(15), Some(26));
        assert_eq!(cqi_to_itbs(1), Some(0));
    }

    #[test]
    fn sinr_thresholds_follow_the_formula() {
        let gap = snr_gap();
        assert!((10.0 * gap.log10() - 7.4268).abs() < 1e-3);
        for (k, e) in CQI_TABLE.iter().enumerate() {
            let linear = gap * (2f64.powf(e.efficiency) - 1.0);
            assert!((CQI_SINR_THRESHOLD_LINEAR[k] - linear).abs() < 1e-9 * linear, "CQI {}", k + 1);
            assert!((CQI_SINR_THRESHOLD_DB[k] - 10.0 * linear.log10()).abs() < 1e-9, "CQI {}", k + 1);
            // At its threshold a CQI's efficiency is exactly reachable.
            assert!((spectral_efficiency_for_sinr(linear) - e.efficiency).abs() < 1e-9);
        }
    }

    #[test]
    fn cqi_is_monotone_in_sinr() {
        assert_eq!(sinr_to_cqi(-30.0), 0);
        assert_eq!(sinr_to_cqi(f64::NAN), 0);
        assert_eq!(sinr_to_cqi(40.0), 15);
        let mut last = 0;
        for i in 0..=7000 {
            let db = -20.0 + i as f64 * 0.01;
            let cqi = sinr_to_cqi(db);
            assert!(cqi >= last, "CQI drops at {db} dB");
            assert_eq!(cqi, sinr_linear_to_cqi(10f64.powf(db / 10.0)), "dB and linear disagree at {db} dB");
            last = cqi;
        }
        for k in 1..=MAX_CQI {
            let t = CQI_SINR_THRESHOLD_DB[k as usize - 1];
            assert_eq!(sinr_to_cqi(t), k);
            assert_eq!(sinr_to_cqi(t - 1e-9), k - 1);
            // The rule: highest CQI whose efficiency does not exceed log2(1 + SINR/Γ).
            let se = spectral_efficiency_for_sinr(10f64.powf((t + 0.05) / 10.0));
            let by_rule = CQI_TABLE.iter().filter(|e| e.efficiency <= se).count() as u8;
            assert_eq!(sinr_to_cqi(t + 0.05), by_rule);
        }
    }

    #[test]
    #[should_panic(expected = "spatial layers")]
    fn three_layers_are_rejected() {
        tbs_bits(0, 10, 3);
    }

    #[test]
    #[should_panic(expected = "I_TBS 27")]
    fn itbs_above_26_is_rejected() {
        tbs_bits(27, 10, 1);
    }
}
