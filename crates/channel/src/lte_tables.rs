//! 3GPP TS 36.213 tables (CQI, MCS → I_TBS, transport block sizes). Filled in by the radio model work.

/// Transport block size in bits for I_TBS `itbs`, `n_prb` PRBs and `layers` spatial layers.
pub fn tbs_bits(itbs: u8, n_prb: u32, layers: u8) -> u32 {
    let _ = (itbs, n_prb, layers);
    0
}
