//! An NR carrier as the cell's channels see it: the transport block sizes of its PDSCH,
//! tabulated once per carrier, and the CQI rule and CQI-to-MCS mapping of its radio UEs.
//!
//! The PHY itself (TS 38.214's TBS procedure, the MCS/CQI tables, the LDPC error model) is
//! [`crate::nr`]; this module only arranges it for the scheduler's hot path:
//!
//! - [`NrTbsTable`]: `tbs_bits(mcs, n_prb, layers) / 8` for every MCS of the table, every
//!   PRB count up to the carrier's and 1–4 layers, computed when the cell is built, so that
//!   a grant's size in a slot is one array read. Tables are interned per (MCS table, PDSCH
//!   configuration, carrier PRBs): every UE of every cell of a run, and every run of a process
//!   with the same carrier, shares one (the cache lives as long as the process, like the
//!   fading tables of [`crate::radio`]); [`LinkQuality::Nr`](crate::LinkQuality::Nr) holds a
//!   reference to it, so the quality stays `Copy`.
//! - [`NrRadio`]: what an NR cell installs on its radio channels
//!   ([`RadioChannel::set_nr`](crate::RadioChannel::set_nr)): the SINR from which each CQI
//!   of the CQI table is reported (TS 38.214 § 5.2.2.1: the highest CQI whose block would
//!   meet the BLER target, on the error model of [`crate::nr::error_model`]) and the MCS the
//!   gNB schedules for each CQI ([`crate::nr::mcs_for_cqi`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use crate::nr::{cqi_entry, max_mcs, mcs_for_cqi, tbs_bits, CqiTable, McsTable, PdschConfig, SinrThresholds};

/// Most spatial layers of a PDSCH (TS 38.211 § 7.3.1.3: 1–4 layers for one codeword).
pub const MAX_LAYERS: u8 = 4;

/// The transport block sizes of one NR carrier, bytes (`tbs_bits / 8`, TS 38.214 § 5.1.3.2),
/// by layers, MCS and PRB count.
#[derive(PartialEq, Eq)]
pub struct NrTbsTable {
    mcs_table: McsTable,
    pdsch: PdschConfig,
    n_prb: u32,
    /// Row length: `n_prb + 1` (PRB counts 0..=n_prb).
    stride: usize,
    /// MCSs of the table (`max_mcs + 1`).
    n_mcs: usize,
    /// `bytes[((layers − 1)·n_mcs + mcs)·stride + n]`.
    bytes: Vec<u32>,
}

impl fmt::Debug for NrTbsTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NrTbsTable").field("mcs_table", &self.mcs_table).field("pdsch", &self.pdsch).field("n_prb", &self.n_prb).finish()
    }
}

impl NrTbsTable {
    /// The table of a carrier of `n_prb` PRBs with MCS table `mcs_table` and PDSCH `pdsch`,
    /// computed on first use and shared afterwards.
    pub fn get(mcs_table: McsTable, pdsch: PdschConfig, n_prb: u32) -> &'static NrTbsTable {
        type Key = (McsTable, PdschConfig, u32);
        static CACHE: OnceLock<Mutex<HashMap<Key, &'static NrTbsTable>>> = OnceLock::new();
        let mut cache = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        cache.entry((mcs_table, pdsch, n_prb)).or_insert_with(|| Box::leak(Box::new(NrTbsTable::compute(mcs_table, pdsch, n_prb))))
    }

    fn compute(mcs_table: McsTable, pdsch: PdschConfig, n_prb: u32) -> NrTbsTable {
        let stride = n_prb as usize + 1;
        let n_mcs = max_mcs(mcs_table) as usize + 1;
        let mut bytes = Vec::with_capacity(MAX_LAYERS as usize * n_mcs * stride);
        for layers in 1..=MAX_LAYERS {
            for mcs in 0..n_mcs as u8 {
                for n in 0..=n_prb {
                    bytes.push(tbs_bits(mcs_table, mcs, n, layers, &pdsch) / 8);
                }
            }
        }
        NrTbsTable { mcs_table, pdsch, n_prb, stride, n_mcs, bytes }
    }

    /// Bytes of a block of MCS `mcs` on `n_prb` PRBs (capped at the carrier's) and `layers`
    /// layers (1–4); 0 for an MCS above the table's.
    #[inline]
    pub fn bytes(&self, mcs: u8, n_prb: u32, layers: u8) -> u32 {
        let m = mcs as usize;
        if m >= self.n_mcs {
            return 0;
        }
        let n = n_prb.min(self.n_prb) as usize;
        self.bytes[((layers as usize - 1) * self.n_mcs + m) * self.stride + n]
    }

    /// The block's size in bits as TS 38.214 gives it (a multiple of 8).
    #[inline]
    pub fn bits(&self, mcs: u8, n_prb: u32, layers: u8) -> u32 {
        self.bytes(mcs, n_prb, layers) * 8
    }

    /// The MCS table.
    pub fn mcs_table(&self) -> McsTable {
        self.mcs_table
    }

    /// The carrier's PRBs.
    pub fn n_prb(&self) -> u32 {
        self.n_prb
    }
}

/// What an NR cell installs on its radio channels: the carrier's TBS table, the SINR from
/// which each CQI is reported and the MCS scheduled for each CQI.
#[derive(Clone, Debug, PartialEq)]
pub struct NrRadio {
    /// The carrier's transport block sizes.
    pub tbs: &'static NrTbsTable,
    /// Linear SINR from which CQI k is reported: `cqi_thresholds[k − 1]`, ascending.
    pub cqi_thresholds: [f64; 15],
    /// The MCS scheduled for CQI k (`None` for CQI 0, out of range).
    pub cqi_to_mcs: [Option<u8>; 16],
    /// Bandwidth of one PRB, Hz: 12 subcarriers of the numerology's spacing.
    pub prb_hz: f64,
}

impl NrRadio {
    /// The rule of a carrier with TBS table `tbs` whose UEs report CQI table `cqi_table` at
    /// block error rate `bler_target` (TS 38.214 § 5.2.2.1: 0.1). A CQI's threshold is judged
    /// for the block its MCS carries on the whole carrier with one layer (the code-block size
    /// the report stands for: the error model's block-size dependence is through the number
    /// of LDPC code blocks, which a wideband report on the whole carrier sets). `scs_khz` is
    /// the numerology's subcarrier spacing.
    pub fn new(tbs: &'static NrTbsTable, cqi_table: CqiTable, bler_target: f64, scs_khz: u32) -> NrRadio {
        let mcs_table = tbs.mcs_table();
        let mut cqi_to_mcs = [None; 16];
        for (c, m) in cqi_to_mcs.iter_mut().enumerate() {
            *m = mcs_for_cqi(mcs_table, cqi_table, c as u8);
        }
        let hint = |c: u8| cqi_to_mcs[c as usize].map_or(0, |m| tbs.bits(m, tbs.n_prb(), 1));
        let th = SinrThresholds::for_cqi(cqi_table, bler_target, hint);
        let mut cqi_thresholds = [0.0; 15];
        for (k, t) in cqi_thresholds.iter_mut().enumerate() {
            *t = th.threshold(k as u8 + 1).expect("CQI 1-15 have thresholds");
        }
        debug_assert!(cqi_entry(cqi_table, 15).is_some());
        NrRadio { tbs, cqi_thresholds, cqi_to_mcs, prb_hz: 12.0 * scs_khz as f64 * 1e3 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_the_tbs_procedure_and_is_shared() {
        let pdsch = PdschConfig::default();
        let t = NrTbsTable::get(McsTable::Qam64, pdsch, 273);
        assert!(std::ptr::eq(t, NrTbsTable::get(McsTable::Qam64, pdsch, 273)));
        for (mcs, n, layers) in [(0, 1, 1), (9, 52, 2), (28, 273, 4), (16, 100, 3)] {
            assert_eq!(t.bits(mcs, n, layers), tbs_bits(McsTable::Qam64, mcs, n, layers, &pdsch));
        }
        assert_eq!(t.bytes(29, 273, 1), 0);
        assert_eq!(t.bytes(28, 400, 1), t.bytes(28, 273, 1));
        assert_eq!(t.bytes(5, 0, 1), 0);
    }

    #[test]
    fn cqi_thresholds_ascend_and_map_to_mcs() {
        let r = NrRadio::new(NrTbsTable::get(McsTable::Qam256, PdschConfig::default(), 51), CqiTable::Table2, 0.1, 30);
        assert!(r.cqi_thresholds.windows(2).all(|w| w[0] < w[1]), "{:?}", r.cqi_thresholds);
        assert_eq!(r.cqi_to_mcs[0], None);
        assert_eq!(r.cqi_to_mcs[15], Some(27));
        assert!(r.cqi_to_mcs[1..].windows(2).all(|w| w[0] <= w[1]));
    }
}
