//! Transport block size (TS 38.214 § 5.1.3.2), LDPC code-block segmentation (TS 38.212
//! § 5.2.2, § 7.2.2) and the approximate peak data rate of TS 38.306 § 4.1.2.
//!
//! # The TBS procedure
//!
//! LTE reads the size from a table indexed by (I_TBS, N_PRB). NR computes it:
//!
//! 1. REs for data in one PRB of the slot: N'_RE = 12·N_symb − N_DMRS − N_oh, where N_symb is
//!    the PDSCH's OFDM symbols, N_DMRS the DM-RS REs per PRB in those symbols (including the
//!    REs of CDM groups left without data) and N_oh the RRC `xOverhead` (0, 6, 12 or 18) for
//!    CSI-RS and the like. Then N_RE = min(156, N'_RE)·n_PRB.
//! 2. Information bits: N_info = N_RE·R·Q_m·υ, with υ the number of layers.
//! 3. If N_info ≤ 3824: n = max(3, ⌊log₂ N_info⌋ − 6), N'_info = max(24, 2ⁿ·⌊N_info/2ⁿ⌋),
//!    and the TBS is the smallest entry of Table 5.1.3.2-1 (93 sizes, 24 to 3824) not below
//!    N'_info.
//! 4. Otherwise n = ⌊log₂(N_info − 24)⌋ − 5, N'_info = max(3840, 2ⁿ·round((N_info − 24)/2ⁿ))
//!    (round half up), and with C code blocks the TBS is 8·C·⌈(N'_info + 24)/(8·C)⌉ − 24, so
//!    that the block plus its 24-bit CRC splits into C equal byte-aligned code blocks:
//!    C = ⌈(N'_info + 24)/3816⌉ when R ≤ 1/4 (base graph 2), else C = ⌈(N'_info + 24)/8424⌉
//!    when N'_info > 8424 (base graph 1), else C = 1.
//!
//! Every code rate of the MCS tables is a multiple of 1/2048, so N_info·2048 is an integer
//! and [`tbs_bits`] follows the procedure in exact integer arithmetic.

use super::numerology::{FrequencyRange, Numerology};
use super::tables::{mcs_row, McsTable};

/// The PDSCH resources of one slot in one PRB (TS 38.214 § 5.1.3.2 step 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PdschConfig {
    /// OFDM symbols of the PDSCH in the slot, N_symb (1–14).
    pub symbols: u8,
    /// DM-RS resource elements per PRB over those symbols, N_DMRS (including the REs of DM-RS
    /// CDM groups without data).
    pub dmrs_re_per_prb: u8,
    /// The RRC `xOverhead` N_oh: 0, 6, 12 or 18 REs per PRB.
    pub overhead_re_per_prb: u8,
}

impl Default for PdschConfig {
    /// A full-slot PDSCH after a one-symbol control region, with one front-loaded DM-RS
    /// symbol, no extra overhead: N'_RE = 12·13 − 12 − 0 = 144 REs per PRB.
    ///
    /// - `symbols` = 13: PDSCH mapping type A starting at symbol S = 1, length L = 13 (TS 38.214
    ///   Table 5.1.2.1-1 allows S ∈ {0..3}, L ∈ {3..14}), after a CORESET of one symbol;
    /// - `dmrs_re_per_prb` = 12: DM-RS configuration type 1, single symbol, no additional
    ///   position (`dmrs-AdditionalPosition` pos0, TS 38.211 § 7.4.1.1.2), with both CDM
    ///   groups without data (all 12 REs of the DM-RS symbol), as for more than two layers;
    /// - `overhead_re_per_prb` = 0: `xOverhead` not configured (TS 38.214 § 5.1.3.2).
    ///
    /// 144 REs per PRB is 12·14·(1 − 0.143): the two symbols of control and DM-RS are the
    /// 14 % overhead TS 38.306 § 4.1.2 assumes for FR1 downlink.
    fn default() -> PdschConfig {
        PdschConfig { symbols: 13, dmrs_re_per_prb: 12, overhead_re_per_prb: 0 }
    }
}

impl PdschConfig {
    /// N'_RE: the REs per PRB left for data, 12·N_symb − N_DMRS − N_oh (0 if negative), before
    /// the cap of 156.
    #[inline]
    pub fn re_per_prb(&self) -> u32 {
        (12 * self.symbols as u32).saturating_sub(self.dmrs_re_per_prb as u32 + self.overhead_re_per_prb as u32)
    }
}

/// TS 38.214 Table 5.1.3.2-1: the transport block sizes for N_info ≤ 3824.
pub const TBS_TABLE: [u32; 93] = [
    24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 208, 224,
    240, 256, 272, 288, 304, 320, 336, 352, 368, 384, 408, 432, 456, 480, 504, 528, 552, 576, 608, 640, 672, 704,
    736, 768, 808, 848, 888, 928, 984, 1032, 1064, 1128, 1160, 1192, 1224, 1256, 1288, 1320, 1352, 1416, 1480,
    1544, 1608, 1672, 1736, 1800, 1864, 1928, 2024, 2088, 2152, 2216, 2280, 2408, 2472, 2536, 2600, 2664, 2728,
    2792, 2856, 2976, 3104, 3240, 3368, 3496, 3624, 3752, 3824,
];

/// ⌊log₂ x⌋ for x ≥ 1.
#[inline]
fn ilog2(x: u64) -> u32 {
    63 - x.leading_zeros()
}

#[inline]
fn div_ceil(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}

/// The transport block size in bits of TS 38.214 § 5.1.3.2 for MCS `mcs` of table `t` on
/// `n_prb` PRBs with `layers` layers; 0 when `mcs` is reserved, `n_prb` or `layers` is 0 or
/// the configuration leaves no RE for data. O(1), no allocation.
pub fn tbs_bits(t: McsTable, mcs: u8, n_prb: u32, layers: u8, pdsch: &PdschConfig) -> u32 {
    let Some(row) = mcs_row(t, mcs) else { return 0 };
    let n_re = pdsch.re_per_prb().min(156) as u64 * n_prb as u64;
    // N_info·2048, exact: R·2048 is an integer for every row.
    let info_x2048 = n_re * row.rate_x2048 as u64 * row.qm as u64 * layers as u64;
    if info_x2048 == 0 {
        return 0;
    }
    const SCALE: u32 = 11; // 2048 = 2^11
    if info_x2048 <= 3824 << SCALE {
        // n = max(3, ⌊log₂ N_info⌋ − 6); ⌊log₂(x/2048)⌋ = ⌊log₂ x⌋ − 11. N_info < 8 gives
        // N'_info = 24 by the max anyway.
        let n = (ilog2(info_x2048) as i32 - SCALE as i32 - 6).max(3) as u32;
        let n_info_q = ((info_x2048 >> (n + SCALE)) << n).max(24) as u32;
        let i = TBS_TABLE.partition_point(|&s| s < n_info_q);
        return TBS_TABLE[i];
    }
    // (N_info − 24)·2048, then n = ⌊log₂(N_info − 24)⌋ − 5 and round half up of
    // (N_info − 24)/2ⁿ.
    let y = info_x2048 - (24 << SCALE);
    let n = ilog2(y) - SCALE - 5;
    let shift = n + SCALE;
    let rounded = (y + (1 << (shift - 1))) >> shift;
    let n_info_q = (rounded << n).max(3840);
    let c = if row.rate_x2048 <= 512 {
        div_ceil(n_info_q + 24, 3816)
    } else if n_info_q > 8424 {
        div_ceil(n_info_q + 24, 8424)
    } else {
        1
    };
    (8 * c * div_ceil(n_info_q + 24, 8 * c) - 24) as u32
}

/// The LDPC coding of one transport block (TS 38.212 § 7.2.2 and § 5.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LdpcSegmentation {
    /// LDPC base graph, 1 or 2.
    pub base_graph: u8,
    /// Number of code blocks C.
    pub code_blocks: u32,
    /// Bits per code block K' = B'/C: its share of the block and transport-block CRC plus its
    /// own 24-bit CRC when C > 1 (the filler bits up to the LDPC length K are not counted).
    pub cb_bits: u32,
}

/// Maximum code block sizes K_cb (TS 38.212 § 5.2.2).
const KCB_BG1: u32 = 8448;
const KCB_BG2: u32 = 3840;

/// The LDPC base graph (TS 38.212 § 7.2.2) and code-block segmentation (§ 5.2.2) of a
/// transport block of `tbs_bits` payload bits (A) sent at code rate `rate` (R, 0–1):
/// base graph 2 if A ≤ 292, or A ≤ 3824 and R ≤ 0.67, or R ≤ 0.25, else base graph 1; the
/// block gets a CRC of 16 bits (A ≤ 3824) or 24 bits, B = A + CRC; if B > K_cb (8448 for
/// base graph 1, 3840 for 2) it is cut into C = ⌈B/(K_cb − 24)⌉ code blocks, each with a
/// 24-bit CRC of its own. A block of 0 bits has 0 code blocks.
pub fn ldpc_segmentation(tbs_bits: u32, rate: f64) -> LdpcSegmentation {
    let a = tbs_bits;
    let base_graph = if a <= 292 || (a <= 3824 && rate <= 0.67) || rate <= 0.25 { 2 } else { 1 };
    if a == 0 {
        return LdpcSegmentation { base_graph, code_blocks: 0, cb_bits: 0 };
    }
    let b = a + if a > 3824 { 24 } else { 16 };
    let kcb = if base_graph == 1 { KCB_BG1 } else { KCB_BG2 };
    let (c, b_prime) = if b <= kcb {
        (1, b)
    } else {
        let c = b.div_ceil(kcb - 24);
        (c, b + c * 24)
    };
    LdpcSegmentation { base_graph, code_blocks: c, cb_bits: b_prime.div_ceil(c) }
}

/// The lifting sizes Z_c of TS 38.212 Table 5.3.2-1 (a·2^j ≤ 384, a ∈ {2,3,5,7,9,11,13,15}),
/// ascending.
const LIFTING_SIZES: [u16; 51] = [
    2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 26, 28, 30, 32, 36, 40, 44, 48, 52, 56, 60,
    64, 72, 80, 88, 96, 104, 112, 120, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384,
];

/// The lifting size Z_c and LDPC information length K of the code blocks of `seg`, for a
/// transport block of `tbs_bits` (TS 38.212 § 5.2.2): K_b = 22 for base graph 1; for base
/// graph 2 K_b = 10, 9, 8 or 6 as B exceeds 640, 560, 192 or not; Z_c the smallest lifting
/// size with K_b·Z_c ≥ K'; K = 22·Z_c (base graph 1) or 10·Z_c (base graph 2). `None` for an
/// empty block.
pub fn ldpc_lifting(seg: &LdpcSegmentation, tbs_bits: u32) -> Option<(u32, u32)> {
    if seg.code_blocks == 0 {
        return None;
    }
    let b = tbs_bits + if tbs_bits > 3824 { 24 } else { 16 };
    let kb = match (seg.base_graph, b) {
        (1, _) => 22,
        (_, b) if b > 640 => 10,
        (_, b) if b > 560 => 9,
        (_, b) if b > 192 => 8,
        _ => 6,
    };
    let zc = *LIFTING_SIZES.iter().find(|&&z| kb * z as u32 >= seg.cb_bits)? as u32;
    Some((zc, if seg.base_graph == 1 { 22 * zc } else { 10 * zc }))
}

/// TS 38.306 § 4.1.2's approximate maximum data rate of one downlink carrier in bit/s:
/// υ·Q_m·f·R_max·(N_PRB·12/T_s^μ)·(1 − OH), with R_max = 948/1024, T_s^μ = 10⁻³/(14·2^μ) s
/// (the average OFDM symbol duration), OH = 0.14 in FR1 and 0.18 in FR2 (downlink), `layers`
/// = υ, `qm` = Q_m and `scaling` = f (1, 0.8, 0.75 or 0.4).
pub fn peak_rate_bps(fr: FrequencyRange, mu: Numerology, n_prb: u32, layers: u8, qm: u8, scaling: f64) -> f64 {
    let overhead = match fr {
        FrequencyRange::Fr1 => 0.14,
        FrequencyRange::Fr2 => 0.18,
    };
    let symbols_per_s = 14_000.0 * mu.slots_per_ms() as f64;
    layers as f64 * qm as f64 * scaling * (948.0 / 1024.0) * (n_prb as f64 * 12.0 * symbols_per_s) * (1.0 - overhead)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nr::numerology::max_prbs;
    use crate::nr::tables::{max_mcs, mcs_entry};
    use McsTable::{Qam256, Qam64};

    const D: PdschConfig = PdschConfig { symbols: 13, dmrs_re_per_prb: 12, overhead_re_per_prb: 0 };

    #[test]
    fn default_pdsch_leaves_144_res_per_prb() {
        assert_eq!(PdschConfig::default(), D);
        assert_eq!(D.re_per_prb(), 144);
        assert_eq!(PdschConfig { symbols: 2, dmrs_re_per_prb: 18, overhead_re_per_prb: 18 }.re_per_prb(), 0);
    }

    #[test]
    fn tbs_table_has_93_ascending_byte_aligned_sizes() {
        assert_eq!(TBS_TABLE.len(), 93);
        assert!(TBS_TABLE.windows(2).all(|w| w[0] < w[1]));
        assert!(TBS_TABLE.iter().all(|s| s % 8 == 0));
    }

    /// TBS cases worked by hand from TS 38.214 § 5.1.3.2 (the arithmetic in each comment; no
    /// value here comes from the implementation). The default PDSCH gives N'_RE = 144.
    #[test]
    fn tbs_matches_hand_worked_cases() {
        let cases: &[(McsTable, u8, u32, u8, PdschConfig, u32)] = &[
            // 1. MCS1-0 (Qm 2, R 120/1024), 1 PRB, 1 layer: N_RE = 144, N_info = 144·120·2/1024
            //    = 33.75 ≤ 3824; n = max(3, 5 − 6) = 3; N'_info = max(24, 8·⌊4.22⌋) = 32;
            //    smallest table size ≥ 32: 32.
            (Qam64, 0, 1, 1, D, 32),
            // 2. MCS1-9 (Qm 2, R 679), 10 PRBs: N_RE = 1440, N_info = 1440·679·2/1024 =
            //    1909.6875; n = max(3, 10 − 6) = 4; N'_info = 16·⌊119.36⌋ = 1904; table: 1928.
            (Qam64, 9, 10, 1, D, 1928),
            // 3. MCS1-16 (Qm 4, R 658), 10 PRBs: N_info = 1440·658·4/1024 = 3701.25; n = 11 − 6
            //    = 5; N'_info = 32·⌊115.66⌋ = 3680; table: 3752.
            (Qam64, 16, 10, 1, D, 3752),
            // 4. Top of the table: MCS1-15 (Qm 4, R 616), 11 PRBs: N_RE = 1584, N_info =
            //    1584·616·4/1024 = 3811.5 ≤ 3824; n = 5; N'_info = 32·⌊119.11⌋ = 3808; table: 3824.
            (Qam64, 15, 11, 1, D, 3824),
            // 5. Just above 3824, floor of 3840: MCS1-11 (Qm 4, R 378), 18 PRBs: N_RE = 2592,
            //    N_info = 2592·378·4/1024 = 3827.25 > 3824; N_info − 24 = 3803.25, n = 11 − 5 = 6;
            //    64·round(59.43) = 3776 → N'_info = max(3840, 3776) = 3840; R > 1/4, ≤ 8424 →
            //    TBS = 8·⌈3864/8⌉ − 24 = 3840.
            (Qam64, 11, 18, 1, D, 3840),
            // 6. MCS1-12 (Qm 4, R 434), 16 PRBs: N_RE = 2304, N_info = 2304·434·4/1024 = 3906;
            //    3882 → n = 6, 64·round(60.66) = 3904; TBS = 8·⌈3928/8⌉ − 24 = 3904.
            (Qam64, 12, 16, 1, D, 3904),
            // 7. MCS1-16, 20 PRBs: N_info = 2880·658·4/1024 = 7402.5; 7378.5 → n = 12 − 5 = 7,
            //    128·round(57.64) = 7424; ≤ 8424 → TBS = 8·⌈7448/8⌉ − 24 = 7424.
            (Qam64, 16, 20, 1, D, 7424),
            // 8. 8424 boundary, below: MCS1-19 (Qm 6, R 517), 19 PRBs: N_RE = 2736, N_info =
            //    2736·517·6/1024 = 8288.15625; 8264.16 → n = 13 − 5 = 8, 256·round(32.28) = 8192
            //    ≤ 8424 → one code block: TBS = 8·⌈8216/8⌉ − 24 = 8192.
            (Qam64, 19, 19, 1, D, 8192),
            // 9. 8424 boundary, above: MCS1-17 (Qm 6, R 438), 23 PRBs: N_RE = 3312, N_info =
            //    3312·438·6/1024 = 8499.9375; 8475.94 → n = 8, 256·round(33.11) = 8448 > 8424 →
            //    C = ⌈8472/8424⌉ = 2; TBS = 16·⌈8472/16⌉ − 24 = 16·530 − 24 = 8456.
            (Qam64, 17, 23, 1, D, 8456),
            // 10. R ≤ 1/4 above 3824, 273 PRBs: MCS1-0, N_RE = 39312, N_info = 39312·240/1024 =
            //    9213.75; 9189.75 → n = 13 − 5 = 8, 256·round(35.90) = 9216; C = ⌈9240/3816⌉ = 3;
            //    TBS = 24·⌈9240/24⌉ − 24 = 24·385 − 24 = 9216.
            (Qam64, 0, 273, 1, D, 9216),
            // 11. R ≤ 1/4 (MCS1-3, Qm 2, R 251), 100 PRBs, 4 layers: N_RE = 14400, N_info =
            //    14400·251·2·4/1024 = 28237.5; 28213.5 → n = 14 − 5 = 9, 512·round(55.10) =
            //    28160; C = ⌈28184/3816⌉ = 8; TBS = 64·⌈28184/64⌉ − 24 = 64·441 − 24 = 28200.
            (Qam64, 3, 100, 4, D, 28200),
            // 12. 2 layers, MCS1-28 (Qm 6, R 948), 52 PRBs: N_RE = 7488, N_info =
            //    7488·948·6·2/1024 = 83187; 83163 → n = 16 − 5 = 11, 2048·round(40.61) = 83968;
            //    C = ⌈83992/8424⌉ = 10; TBS = 80·⌈83992/80⌉ − 24 = 80·1050 − 24 = 83976.
            (Qam64, 28, 52, 2, D, 83976),
            // 13. 3 layers, MCS2-10 (Qm 4, R 658), 24 PRBs: N_RE = 3456, N_info =
            //    3456·658·4·3/1024 = 26649; 26625 → n = 14 − 5 = 9, 512·round(52.002) = 26624;
            //    C = ⌈26648/8424⌉ = 4; TBS = 32·⌈26648/32⌉ − 24 = 32·833 − 24 = 26632.
            (Qam256, 10, 24, 3, D, 26632),
            // 14. 256QAM, 273 PRBs, 4 layers, MCS2-27 (Qm 8, R 948): N_RE = 39312, N_info =
            //    39312·948·8·4/1024 = 1164618; 1164594 → n = 20 − 5 = 15, 32768·round(35.54) =
            //    1179648; C = ⌈1179672/8424⌉ = 141; TBS = 1128·⌈1179672/1128⌉ − 24 =
            //    1128·1046 − 24 = 1179864.
            (Qam256, 27, 273, 4, D, 1_179_864),
            // 15. 256QAM rate 682.5 (MCS2-20, Qm 8), 1 PRB: N_info = 144·682.5·8/1024 =
            //    767.8125; n = max(3, 9 − 6) = 3; N'_info = 8·⌊95.98⌋ = 760; table: 768.
            (Qam256, 20, 1, 1, D, 768),
            // 16. The 156-RE cap: 14 symbols, no DM-RS, no overhead → N'_RE = 168, capped at 156;
            //    MCS1-5 (Qm 2, R 379), 2 PRBs: N_RE = 312, N_info = 312·379·2/1024 = 230.95;
            //    n = 3; N'_info = 8·⌊28.87⌋ = 224; table: 224.
            (Qam64, 5, 2, 1, PdschConfig { symbols: 14, dmrs_re_per_prb: 0, overhead_re_per_prb: 0 }, 224),
            // 17. xOverhead 18 and two DM-RS symbols with both CDM groups (18 REs as configured):
            //    N'_RE = 12·12 − 18 − 18 = 108; MCS1-13 (Qm 4, R 490), 5 PRBs: N_RE = 540,
            //    N_info = 540·490·4/1024 = 1033.59; n = 10 − 6 = 4; N'_info = 16·⌊64.6⌋ = 1024;
            //    table: 1032.
            (Qam64, 13, 5, 1, PdschConfig { symbols: 12, dmrs_re_per_prb: 18, overhead_re_per_prb: 18 }, 1032),
            // 18. N_info barely above 3824 takes the second branch (N_info is not an integer):
            //    MCS1-2 (Qm 2, R 193 ≤ 256), N'_RE = 12·12 − 24 − 6 = 114, 89 PRBs: N_RE = 10146,
            //    N_info = 10146·193·2/1024 = 3824.57 > 3824; 3800.57 → n = 11 − 5 = 6,
            //    64·round(59.38) = 3776 → N'_info = 3840; R ≤ 1/4 → C = ⌈3864/3816⌉ = 2;
            //    TBS = 16·⌈3864/16⌉ − 24 = 16·242 − 24 = 3848 (truncating N_info to 3824 would
            //    give 3824).
            (Qam64, 2, 89, 1, PdschConfig { symbols: 12, dmrs_re_per_prb: 24, overhead_re_per_prb: 6 }, 3848),
            // 19. The same above 1/4: MCS1-5 (Qm 2, R 379), 4 symbols with 6 DM-RS REs → N'_RE =
            //    42, 123 PRBs: N_RE = 5166, N_info = 5166·379·2/1024 = 3824.05; n = 6,
            //    64·round(59.38) = 3776 → 3840; one block: TBS = 8·⌈3864/8⌉ − 24 = 3840.
            (Qam64, 5, 123, 1, PdschConfig { symbols: 4, dmrs_re_per_prb: 6, overhead_re_per_prb: 0 }, 3840),
            // 20. Reserved MCS, no PRB, no RE: 0.
            (Qam64, 29, 10, 1, D, 0),
            (Qam256, 28, 10, 1, D, 0),
            (Qam64, 10, 0, 1, D, 0),
            (Qam64, 10, 10, 1, PdschConfig { symbols: 1, dmrs_re_per_prb: 12, overhead_re_per_prb: 0 }, 0),
        ];
        for (i, &(t, mcs, n_prb, layers, pdsch, want)) in cases.iter().enumerate() {
            let got = tbs_bits(t, mcs, n_prb, layers, &pdsch);
            assert_eq!(got, want, "case {} ({t:?} MCS {mcs}, {n_prb} PRBs, {layers} layers)", i + 1);
        }
    }

    #[test]
    fn tbs_grows_with_prbs_layers_and_mcs() {
        for t in [Qam64, Qam256] {
            for layers in 1..=4 {
                let mut last = 0;
                for n in 1..=273 {
                    let s = tbs_bits(t, 10, n, layers, &D);
                    assert!(s >= last, "{t:?} {layers} layers {n} PRBs");
                    last = s;
                }
            }
            let sizes: Vec<u32> = (0..=max_mcs(t)).map(|m| tbs_bits(t, m, 50, 2, &D)).collect();
            // MCS table 1's 16 → 17 (16QAM → 64QAM) lowers the efficiency slightly.
            assert!(sizes.windows(2).all(|w| w[1] as f64 >= w[0] as f64 * 0.99), "{t:?} {sizes:?}");
        }
    }

    /// Segmentation at the boundaries of TS 38.212 § 5.2.2 and § 7.2.2, worked by hand.
    #[test]
    fn ldpc_segmentation_at_its_boundaries() {
        let s = |bg, c, k| LdpcSegmentation { base_graph: bg, code_blocks: c, cb_bits: k };
        let cases = [
            // A ≤ 292 is always base graph 2: B = 292 + 16 = 308.
            (292, 0.9, s(2, 1, 308)),
            // A = 296 > 292, A ≤ 3824 but R > 0.67: base graph 1, B = 312.
            (296, 0.9, s(1, 1, 312)),
            // A ≤ 3824 and R ≤ 0.67: base graph 2, B = 3824 + 16 = 3840 = K_cb: one block.
            (3824, 0.67, s(2, 1, 3840)),
            // A = 3840 > 3824 at R 0.5: base graph 1, B = 3864, one block.
            (3840, 0.5, s(1, 1, 3864)),
            // Base graph 1, B = 8424 + 24 = 8448 = K_cb: one block.
            (8424, 0.9, s(1, 1, 8448)),
            // A = 8456: B = 8480 > 8448 → C = ⌈8480/8424⌉ = 2, B' = 8480 + 48 = 8528, K' = 4264.
            (8456, 0.9, s(1, 2, 4264)),
            // R ≤ 0.25: base graph 2 at any size. A = 3840: B = 3864 > 3840 → C = ⌈3864/3816⌉
            // = 2, B' = 3864 + 48 = 3912, K' = 1956.
            (3840, 0.25, s(2, 2, 1956)),
            // A = 9216 at R ≤ 1/4: B = 9240, C = ⌈9240/3816⌉ = 3, B' = 9312, K' = 3104.
            (9216, 0.2, s(2, 3, 3104)),
            // The largest block above: A = 1179864, B = 1179888, C = ⌈1179888/8424⌉ = 141,
            // B' = 1179888 + 3384 = 1183272, K' = 8392.
            (1_179_864, 0.93, s(1, 141, 8392)),
            (0, 0.5, s(2, 0, 0)),
        ];
        for (a, r, want) in cases {
            assert_eq!(ldpc_segmentation(a, r), want, "A = {a}, R = {r}");
        }
        // Lifting: BG1 K' = 8448 → Z_c = 384 (22·384 = 8448), K = 8448; BG2 B = 308 → K_b = 8,
        // K' = 308 → Z_c = 40 (8·40 = 320 ≥ 308, 8·36 = 288 < 308), K = 400.
        assert_eq!(ldpc_lifting(&ldpc_segmentation(8424, 0.9), 8424), Some((384, 8448)));
        assert_eq!(ldpc_lifting(&ldpc_segmentation(292, 0.9), 292), Some((40, 400)));
        assert_eq!(ldpc_lifting(&ldpc_segmentation(0, 0.9), 0), None);
    }

    #[test]
    fn tbs_segments_into_equal_byte_aligned_blocks() {
        // The > 3824 branch makes A + 24 a multiple of 8·C with the C of its own base graph.
        for t in [Qam64, Qam256] {
            for m in 0..=max_mcs(t) {
                let rate = mcs_entry(t, m).unwrap().rate_x1024 / 1024.0;
                for n in [20, 52, 106, 273] {
                    let a = tbs_bits(t, m, n, 4, &D);
                    let seg = ldpc_segmentation(a, rate);
                    if a > 3824 {
                        assert_eq!((a + 24) % (8 * seg.code_blocks), 0, "{t:?} MCS {m} {n} PRBs: {a} {seg:?}");
                        let crc = if seg.code_blocks > 1 { 24 } else { 0 };
                        assert_eq!(seg.cb_bits, (a + 24) / seg.code_blocks + crc);
                    }
                }
            }
        }
    }

    /// TS 38.306 § 4.1.2: the TBS of the top MCS on every PRB, slot after slot, against the
    /// peak-rate formula, for μ = 0..3 at the largest bandwidth of each range.
    ///
    /// The formula counts 12·14 = 168 REs per PRB and slot, less a flat overhead OH: 144.48 in
    /// FR1 (OH = 0.14) and 137.76 in FR2 (OH = 0.18). The default [`PdschConfig`] leaves
    /// N'_RE = 12·13 − 12 = 144 (one control symbol and one full DM-RS symbol), so the REs
    /// differ by 144/144.48 − 1 = −0.3 % in FR1 and 144/137.76 − 1 = +4.5 % in FR2. The TBS
    /// then drops the block's 24 CRC bits and quantises N_info to 2^(⌊log₂ N_info⌋−5) steps
    /// (under ±1.6 %) and rounds up to whole code blocks, and the formula's R_max = 948/1024 is
    /// the code rate of both top MCSs: the ratios stay within −2 % … +6 %.
    #[test]
    fn peak_rate_matches_38_306_within_10_percent() {
        use FrequencyRange::{Fr1, Fr2};
        let carriers = [(Fr1, 0, 50), (Fr1, 1, 100), (Fr1, 2, 100), (Fr2, 2, 200), (Fr2, 3, 400)];
        for (fr, m, bw) in carriers {
            let mu = Numerology::new(m).unwrap();
            let n_prb = max_prbs(fr, mu, bw).unwrap();
            for t in [Qam64, Qam256] {
                let qm = mcs_entry(t, max_mcs(t)).unwrap().qm;
                for layers in 1..=4 {
                    let per_s = tbs_bits(t, max_mcs(t), n_prb, layers, &D) as f64 * 1000.0 * mu.slots_per_ms() as f64;
                    let formula = peak_rate_bps(fr, mu, n_prb, layers, qm, 1.0);
                    let ratio = per_s / formula;
                    let expect = if fr == Fr1 { 144.0 / 144.48 } else { 144.0 / 137.76 };
                    assert!((ratio - 1.0).abs() <= 0.10, "{fr:?} μ={m} {bw} MHz {t:?} {layers} layers: {ratio}");
                    assert!((ratio - expect).abs() <= 0.02, "{fr:?} μ={m} {t:?} {layers}: {ratio} vs {expect}");
                }
            }
        }
        // The formula itself: 100 MHz at 30 kHz, 273 PRBs, 4 layers of 256QAM:
        // 4·8·(948/1024)·273·12·28000·0.86 = 2337.0 Mbit/s.
        let r = peak_rate_bps(Fr1, Numerology::new(1).unwrap(), 273, 4, 8, 1.0);
        assert!((r / 1e6 - 2337.0).abs() < 0.01, "{r}");
    }
}
