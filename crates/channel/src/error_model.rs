//! Block errors: the mutual-information effective-SINR (MIESM) error model of the ns-3 LTE
//! module, for the wideband SINR of a [`crate::RadioChannel`].
//!
//! A transport block sent with modulation and coding scheme I_MCS on a channel of linear SINR
//! γ fails with probability
//!
//! > BLER_TB = 1 − (1 − BLER_CB(K₊))^C₊ · (1 − BLER_CB(K₋))^C₋,
//!
//! where C₊ code blocks of K₊ bits and C₋ of K₋ bits are the code-block segmentation of the
//! block (TS 36.212 § 5.1.2, [`segment`]), and each code block of K bits fails with
//!
//! > BLER_CB = ½·erfc((MIB − b) / (√2·c))
//!
//! (IEEE 802.16m-08/004r5 Evaluation Methodology Document \[ieee80216m-emd\], § 4.3.2.1,
//! Eq. (55)): MIB is the mean mutual information per coded bit of the modulation at γ
//! ([`mib`]), and (b, c) the
//! parameters of the BLER curve of the block's effective code rate (ECR) and code-block size
//! ([`MCS_CURVES`], [`HARQ_CURVES`]).
//!
//! # Where the numbers come from
//!
//! - **MIB.** The closed-form J-function approximation of the EMD (§ 4.3.2.1, Table 22 and
//!   the J(·) fit of its Appendix): QPSK J(2√γ), 16-QAM ½J(0.8√γ) + ¼J(2.17√γ) + ¼J(0.965√γ),
//!   64-QAM ⅓(J(1.47√γ) + J(0.529√γ) + J(0.366√γ)). ns-3's `LteMiErrorModel` tabulates these
//!   same functions (its `MI_map_*` tables agree with them within 5·10⁻⁷); we evaluate them
//!   directly. ns-3 sets MIB to 1 above the last SINR of each table (5.05 dB for QPSK, 10.0 dB
//!   for 16-QAM, 22.0 dB for 64-QAM); where that matters at all the curves give BLERs below
//!   10⁻⁶ (a unit test checks it), so we keep the continuous functions.
//! - **(b, c).** M. Mezzavilla, M. Miozzo, M. Rossi, N. Baldo, M. Zorzi, "A lightweight and
//!   accurate link abstraction model for the system-level simulation of LTE networks in
//!   ns-3", ACM MSWiM 2012 \[mezzavilla\], § 3.2–3.3 and Figs. 3–5: erfc fits to the AWGN BLER
//!   curves of the Vienna LTE link-level simulator, per ECR and per code-block size (40, 104, 160, 256, 512,
//!   1024, 2560, 4032 and 6144 bits). The values are those the authors published with the
//!   model in the ns-3 LTE module (ns-3.44 `src/lte/model/lte-mi-error-model.cc`, tables
//!   `bEcrTable` / `cEcrTable`), laid out here by I_MCS (first transmissions) and by
//!   modulation and ECR (HARQ retransmissions). A missing entry (a size for which the
//!   link-level simulator produced no curve at that ECR) is replaced, as in ns-3, by the curve
//!   of the next larger size.
//! - **ECR of an MCS** ([`MCS_ECR`]): the code rate the curves are labelled with, the
//!   R1-081483 spectral efficiency of the MCS ([`crate::lte_tables::MCS_SPECTRAL_EFFICIENCY`])
//!   over its modulation order, to two decimals (ibid., Table 1).
//!
//! # HARQ (chase combining)
//!
//! A retransmission repeats the same coded bits, so after n transmissions the receiver holds
//! n copies: the effective MIB is the mean of the n MIBs and the effective code rate is
//! R_eff = ECR / n (the information bits of the first transmission over all the coded bits
//! received; ns-3's `GetTbDecodificationStats` with equal code bits per transmission). The
//! block is then judged on the curve, of the same modulation, with the largest ECR not above
//! R_eff (the MCS curves and three lower-rate curves per modulation fitted for
//! retransmissions; the lowest when R_eff is below all of them). ns-3 means the same rule
//! but starts its search of the ECR list at an index that skips the three highest QPSK
//! ECRs and may pick a QPSK curve for a 16-QAM block; we do not reproduce that slip. Either
//! way a retransmission at an unchanged SINR almost always succeeds.
//!
//! # Control channel
//!
//! [`pdcch_bler`]: the PCFICH/PDCCH error rate against SINR of 3GPP R4-081920 \[r4-081920\] ("LTE
//! PDCCH/PCFICH demodulation performance results with implementation margin"), the curve
//! ns-3 uses (−10 to −1 dB in steps of 0.2 dB; 0 above −1 dB, its first value below −10 dB).
//! A UE that misses the downlink control information of a transmission does not know a
//! block was sent: it sends no HARQ feedback and the block is lost without retransmission.

use crate::lte_tables::{self, Modulation};

/// Code-block sizes (bits) with BLER curves.
pub const CB_SIZES: [u32; 9] = [40, 104, 160, 256, 512, 1024, 2560, 4032, 6144];

/// Parameters of one BLER curve: BLER = ½·erfc((MIB − b) / (√2·c)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Curve {
    /// MIB at which half the code blocks fail.
    pub b: f64,
    /// Spread of the curve in MIB.
    pub c: f64,
}

const fn c(b: f64, c: f64) -> Option<Curve> {
    Some(Curve { b, c })
}

/// BLER curves of first transmissions: `MCS_CURVES[mcs][k]` for code blocks of
/// `CB_SIZES[k]` bits (`None`: no curve at that size; the next larger size's is used).
/// Mezzavilla et al. 2012, § 3.3 (see the [module documentation](self)).
pub const MCS_CURVES: [[Option<Curve>; 9]; 29] = [
    [c(0.1777, 0.0342), c(0.1423, 0.0198), c(0.1354, 0.0157), c(0.1304, 0.0123), c(0.1257, 0.0085), c(0.1224, 0.0061), c(0.1211, 0.004), c(0.1208, 0.0032), c(0.1207, 0.0025)], // I_MCS 0
    [None, c(0.1753, 0.0239), c(0.1655, 0.019), c(0.1584, 0.0149), c(0.1528, 0.0106), c(0.1497, 0.0074), c(0.148, 0.0047), c(0.1477, 0.0038), c(0.1474, 0.0032)], // I_MCS 1
    [None, c(0.1882, 0.0248), c(0.1812, 0.0204), c(0.1735, 0.0163), c(0.1667, 0.0109), c(0.1638, 0.0078), c(0.1615, 0.005), c(0.1612, 0.0039), c(0.1612, 0.0032)], // I_MCS 2
    [None, c(0.2499, 0.032), c(0.2351, 0.0252), c(0.2265, 0.0212), c(0.2188, 0.014), c(0.2139, 0.0102), c(0.2119, 0.0063), c(0.2112, 0.0051), c(0.2111, 0.0042)], // I_MCS 3
    [None, None, c(0.2873, 0.031), c(0.2782, 0.0252), c(0.268, 0.0178), c(0.2636, 0.0121), c(0.2611, 0.0079), c(0.2606, 0.0063), c(0.2605, 0.0054)], // I_MCS 4
    [None, None, c(0.3462, 0.0348), c(0.334, 0.0298), c(0.3229, 0.0217), c(0.3195, 0.0138), c(0.3157, 0.0091), c(0.3153, 0.0072), c(0.3153, 0.0059)], // I_MCS 5
    [None, None, None, c(0.3927, 0.0304), c(0.3818, 0.0219), c(0.3768, 0.0163), c(0.3735, 0.0101), c(0.3728, 0.0079), c(0.3726, 0.0064)], // I_MCS 6
    [None, None, None, c(0.4785, 0.0341), c(0.4607, 0.0249), c(0.452, 0.0178), c(0.4458, 0.0117), c(0.4441, 0.0084), c(0.4439, 0.0073)], // I_MCS 7
    [None, None, None, c(0.5566, 0.0382), c(0.5373, 0.027), c(0.5269, 0.0207), c(0.5205, 0.0123), c(0.5185, 0.01), c(0.5193, 0.0081)], // I_MCS 8
    [None, None, None, None, c(0.6081, 0.0292), c(0.5963, 0.0198), c(0.5902, 0.0129), c(0.5882, 0.0106), c(0.5882, 0.0076)], // I_MCS 9
    [None, None, None, None, c(0.3783, 0.0202), c(0.3754, 0.0141), c(0.3729, 0.0083), c(0.3864, 0.0092), c(0.3724, 0.0056)], // I_MCS 10
    [None, None, None, None, c(0.4049, 0.0206), c(0.3979, 0.0137), c(0.3939, 0.0091), c(0.3921, 0.0074), c(0.3921, 0.0058)], // I_MCS 11
    [None, None, None, None, c(0.4472, 0.022), c(0.4399, 0.0154), c(0.4351, 0.0095), c(0.4338, 0.0078), c(0.4339, 0.0064)], // I_MCS 12
    [None, None, None, None, c(0.4975, 0.0235), c(0.4894, 0.0164), c(0.4851, 0.0102), c(0.4871, 0.009), c(0.4833, 0.007)], // I_MCS 13
    [None, None, None, None, c(0.5556, 0.0236), c(0.5464, 0.0175), c(0.5416, 0.0112), c(0.5386, 0.0084), c(0.5407, 0.0068)], // I_MCS 14
    [None, None, None, None, None, c(0.6034, 0.0188), c(0.5976, 0.0114), c(0.594, 0.0089), c(0.5952, 0.0074)], // I_MCS 15
    [None, None, None, None, None, c(0.6619, 0.0188), c(0.6554, 0.0119), c(0.6527, 0.0092), c(0.6528, 0.008)], // I_MCS 16
    [None, None, None, None, None, c(0.50662, 0.01661), c(0.50028, 0.00951), c(0.50316, 0.00795), c(0.4978, 0.006)], // I_MCS 17
    [None, None, None, None, None, c(0.52226, 0.01655), c(0.51888, 0.00943), c(0.51872, 0.008), c(0.51606, 0.00609)], // I_MCS 18
    [None, None, None, None, None, c(0.5627, 0.0157), c(0.5619, 0.0096), c(0.5591, 0.008), c(0.56, 0.0061)], // I_MCS 19
    [None, None, None, None, None, c(0.6089, 0.0169), c(0.6056, 0.0104), c(0.6027, 0.0081), c(0.6027, 0.0066)], // I_MCS 20
    [None, None, None, None, None, c(0.6577, 0.0185), c(0.6521, 0.0109), c(0.6512, 0.009), c(0.6494, 0.0069)], // I_MCS 21
    [None, None, None, None, None, c(0.7049, 0.0189), c(0.6982, 0.0108), c(0.6981, 0.0091), c(0.6948, 0.008)], // I_MCS 22
    [None, None, None, None, None, c(0.7508, 0.02), c(0.7441, 0.0118), c(0.7437, 0.0095), c(0.7407, 0.0081)], // I_MCS 23
    [None, None, None, None, None, None, c(0.7874, 0.0122), c(0.7873, 0.0096), c(0.7842, 0.008)], // I_MCS 24
    [None, None, None, None, None, None, c(0.8315, 0.0117), c(0.8301, 0.0094), c(0.8284, 0.0077)], // I_MCS 25
    [None, None, None, None, None, None, c(0.8735, 0.011), c(0.8702, 0.0086), c(0.8692, 0.0068)], // I_MCS 26
    [None, None, None, None, None, None, c(0.9089, 0.0097), c(0.9082, 0.0078), c(0.9058, 0.0066)], // I_MCS 27
    [None, None, None, None, None, None, c(0.9369, 0.0085), c(0.9339, 0.0071), c(0.9325, 0.0058)], // I_MCS 28
];

/// Effective code rate of each I_MCS 0..=28, the label of its curve in [`MCS_CURVES`].
pub const MCS_ECR: [f64; 29] = [
    0.08, 0.1, 0.11, 0.15, 0.19, 0.24, 0.3, 0.37, 0.44, 0.51, // QPSK
    0.3, 0.33, 0.37, 0.42, 0.48, 0.54, 0.6, // 16-QAM
    0.43, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.89, 0.92, // 64-QAM
];

/// The lower-rate curves fitted for retransmissions, (ECR, curves by code-block size): three
/// per modulation, QPSK then 16-QAM then 64-QAM. Mezzavilla et al. 2012, § 3.3.
pub const HARQ_CURVES: [(f64, [Option<Curve>; 9]); 9] = [
    // QPSK
    (0.01, [c(0.02472, 0.00543), c(0.0194, 0.00301), c(0.0182, 0.00245), c(0.01728, 0.00187), c(0.01658, 0.00135), c(0.01622, 0.00093), c(0.016, 0.00059), c(0.01598, 0.00045), c(0.01598, 0.00037)]),
    (0.026, [c(0.06352, 0.01337), c(0.0502, 0.00749), c(0.04688, 0.00589), c(0.04488, 0.00453), c(0.04332, 0.00319), c(0.04216, 0.00239), c(0.04164, 0.00145), c(0.04164, 0.00111), c(0.04154, 0.00093)]),
    (0.04, [c(0.09516, 0.01969), c(0.07592, 0.01071), c(0.07082, 0.00843), c(0.06786, 0.00699), c(0.0655, 0.00469), c(0.06402, 0.00327), c(0.0632, 0.00209), c(0.063, 0.00173), c(0.06288, 0.00141)]),
    // 16QAM
    (0.075, [None, None, None, None, c(0.15004, 0.01027), c(0.14846, 0.00725), c(0.14484, 0.00419), c(0.16928, 0.00577), c(0.1449, 0.00273)]),
    (0.1, [None, None, None, None, c(0.18266, 0.01197), c(0.18102, 0.00879), c(0.1777, 0.00515), c(0.19982, 0.00615), c(0.17742, 0.00351)]),
    (0.15, [None, None, None, None, c(0.24084, 0.01485), c(0.23788, 0.01015), c(0.23558, 0.00649), c(0.2552, 0.00723), c(0.23514, 0.00417)]),
    // 64QAM
    (0.1075, [None, None, None, None, None, c(0.13938, 0.00705), c(0.1377, 0.00451), c(0.13754, 0.00369), c(0.13752, 0.00303)]),
    (0.143, [None, None, None, None, None, c(0.19212, 0.01111), c(0.18336, 0.00597), c(0.18956, 0.00565), c(0.18244, 0.00377)]),
    (0.215, [None, None, None, None, None, c(0.2889, 0.01359), c(0.276, 0.00791), c(0.28408, 0.00737), c(0.27578, 0.00507)]),
];

/// The PCFICH/PDCCH error rate of 3GPP R4-081920 at SINR −10, −9.8, …, −1 dB.
const PDCCH_BLER_CURVE: [f64; 46] = [
    0.922602, 0.871559, 0.82334, 0.777789, 0.734758, 0.694107, 0.655706, 0.619429, 0.585159, 0.552785, 0.520927,
    0.479229, 0.440869, 0.405579, 0.373114, 0.343104, 0.309947, 0.279994, 0.252936, 0.228492, 0.206048, 0.181449,
    0.159787, 0.140711, 0.123912, 0.109119, 0.0916184, 0.0769244, 0.0645871, 0.0542285, 0.0454971, 0.037584,
    0.0310472, 0.0256473, 0.0211866, 0.0175023, 0.0144636, 0.0119524, 0.00987724, 0.00816236, 0.00673821,
    0.00532283, 0.00420476, 0.00332154, 0.00262385, 0.0020727,
];

/// Probability that a UE at linear SINR `sinr` misses the downlink control information of a
/// subframe: the R4-081920 curve read at the first point at or above the SINR in dB (ns-3's
/// lookup), 0 above −1 dB.
pub fn pdcch_bler(sinr: f64) -> f64 {
    // Above −0.9995 dB the curve is 0: no logarithm needed.
    if sinr > 0.7944 {
        return 0.0;
    }
    if !(sinr > 0.0) {
        return PDCCH_BLER_CURVE[0];
    }
    let db = 10.0 * sinr.log10();
    if db > -1.0 {
        return 0.0;
    }
    let i = ((db + 10.0) / 0.2).ceil().max(0.0) as usize;
    PDCCH_BLER_CURVE[i.min(PDCCH_BLER_CURVE.len() - 1)]
}

/// The EMD's J-function fit (IEEE 802.16m-08/004r5, Appendix): the mutual information of a
/// binary input under Gaussian LLRs of standard deviation `x`. The cubic in the exponent
/// turns back up beyond its minimum near x = 52.7, where J is 1 to double precision; J is
/// held at 1 from there on.
#[inline]
fn j(x: f64) -> f64 {
    const X_STAR: f64 = 1.6363;
    const X_MAX: f64 = 52.0;
    if x < X_STAR {
        ((-0.04210661 * x + 0.209252) * x - 0.00640081) * x
    } else if x < X_MAX {
        1.0 - (((0.00181492 * x - 0.142675) * x - 0.0822054) * x + 0.0549608).exp()
    } else {
        1.0
    }
}

/// Mean mutual information per coded bit (MIB) of `modulation` at linear SINR `sinr`
/// (EMD § 4.3.2.1; see the [module documentation](self)).
#[inline]
pub fn mib(sinr: f64, modulation: Modulation) -> f64 {
    let s = sinr.max(0.0).sqrt();
    match modulation {
        Modulation::Qpsk => j(2.0 * s),
        Modulation::Qam16 => 0.5 * j(0.8 * s) + 0.25 * j(2.17 * s) + 0.25 * j(0.965 * s),
        Modulation::Qam64 => (j(1.47 * s) + j(0.529 * s) + j(0.366 * s)) / 3.0,
    }
}

/// Code-block segmentation of a transport block (TS 36.212 § 5.1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segmentation {
    /// Code blocks of `k_plus` bits.
    pub c_plus: u32,
    /// Size K₊ of the larger code blocks, bits.
    pub k_plus: u32,
    /// Code blocks of `k_minus` bits.
    pub c_minus: u32,
    /// Size K₋ of the smaller code blocks, bits (0 when there are none).
    pub k_minus: u32,
}

/// Maximum code-block size Z, bits.
const Z: u32 = 6144;
/// CRC bits: attached to the transport block, and to each code block when there are several.
const CRC_BITS: u32 = 24;

/// The smallest turbo-interleaver size K of TS 36.212 Table 5.1.3-3 at or above `x`: 40 to
/// 512 in steps of 8, to 1024 in steps of 16, to 2048 in steps of 32, to 6144 in steps of 64.
fn k_at_or_above(x: u32) -> u32 {
    match x {
        0..=40 => 40,
        41..=512 => x.div_ceil(8) * 8,
        513..=1024 => x.div_ceil(16) * 16,
        1025..=2048 => x.div_ceil(32) * 32,
        _ => x.div_ceil(64) * 64,
    }
}

/// The Table 5.1.3-3 size just below `k` (a size of the table above 40).
fn k_below(k: u32) -> u32 {
    match k {
        41..=512 => k - 8,
        513..=1024 => k - 16,
        1025..=2048 => k - 32,
        _ => k - 64,
    }
}

/// Segments a transport block of `tbs_bits` information bits into code blocks (TS 36.212
/// § 5.1.2): B = TBS + 24 (the transport-block CRC, § 5.3.2.1); one block if B ≤ Z = 6144,
/// otherwise C = ⌈B / (Z − 24)⌉ blocks carrying a 24-bit CRC each, of sizes K₊ (the smallest
/// table size with C·K₊ ≥ B′) and K₋ (the next smaller size), C₋ = ⌊(C·K₊ − B′) / (K₊ − K₋)⌋.
/// (ns-3 segments B = TBS, without the transport-block CRC; the block counts differ only for
/// sizes within 24 bits of a multiple of 6120.)
pub fn segment(tbs_bits: u32) -> Segmentation {
    let b = tbs_bits + CRC_BITS;
    let (cbs, b_prime) = if b <= Z { (1, b) } else { (b.div_ceil(Z - CRC_BITS), b + b.div_ceil(Z - CRC_BITS) * CRC_BITS) };
    let k_plus = k_at_or_above(b_prime.div_ceil(cbs));
    if cbs == 1 {
        return Segmentation { c_plus: 1, k_plus, c_minus: 0, k_minus: 0 };
    }
    let k_minus = k_below(k_plus);
    let c_minus = (cbs * k_plus - b_prime) / (k_plus - k_minus);
    Segmentation { c_plus: cbs - c_minus, k_plus, c_minus, k_minus }
}

/// The curve of a row for code blocks of `k` bits: the largest size in [`CB_SIZES`] not above
/// `k` (the smallest for blocks below 40 bits), or the next larger size that has a curve.
fn curve_for(row: &[Option<Curve>; 9], k: u32) -> Curve {
    let class = CB_SIZES.iter().rposition(|&s| s <= k).unwrap_or(0);
    row[class..].iter().find_map(|c| *c).expect("every row has a curve at 6144 bits")
}

/// Code-block error rate on `curve` at `mib`.
#[inline]
pub fn curve_bler(curve: Curve, mib: f64) -> f64 {
    let z = (mib - curve.b) / (std::f64::consts::SQRT_2 * curve.c);
    // erfc(6) < 2.2·10⁻¹⁷: a code block this far above its curve always decodes.
    if z > 6.0 {
        return 0.0;
    }
    0.5 * libm::erfc(z)
}

/// The curves a block of I_MCS `mcs` is judged on after `transmissions` (≥ 1) chase-combined
/// transmissions (see the [module documentation](self)).
fn curves(mcs: u8, transmissions: u32) -> &'static [Option<Curve>; 9] {
    let m = mcs as usize;
    if transmissions <= 1 {
        return &MCS_CURVES[m];
    }
    let modulation = lte_tables::MCS_TABLE[m].modulation;
    let r_eff = MCS_ECR[m] / transmissions as f64;
    let same = |i: usize| lte_tables::MCS_TABLE[i].modulation == modulation;
    let harq = match modulation {
        Modulation::Qpsk => &HARQ_CURVES[0..3],
        Modulation::Qam16 => &HARQ_CURVES[3..6],
        Modulation::Qam64 => &HARQ_CURVES[6..9],
    };
    let candidates = (0..29).filter(|&i| same(i)).map(|i| (MCS_ECR[i], &MCS_CURVES[i])).chain(harq.iter().map(|(e, r)| (*e, r)));
    let mut best: Option<(f64, &'static [Option<Curve>; 9])> = None;
    let mut lowest: Option<(f64, &'static [Option<Curve>; 9])> = None;
    for (ecr, row) in candidates {
        if ecr <= r_eff + 1e-12 && best.is_none_or(|(e, _)| ecr > e) {
            best = Some((ecr, row));
        }
        if lowest.is_none_or(|(e, _)| ecr < e) {
            lowest = Some((ecr, row));
        }
    }
    best.or(lowest).expect("every modulation has curves").1
}

/// Error rate of a transport block of `tbs_bits` bits sent with I_MCS `mcs`, judged at MIB
/// `mib` (the mean MIB over the `transmissions` chase-combined transmissions so far; 1 for a
/// first transmission).
pub fn tb_bler(mcs: u8, tbs_bits: u32, mib: f64, transmissions: u32) -> f64 {
    let row = curves(mcs, transmissions);
    let s = segment(tbs_bits);
    let mut ok = (1.0 - curve_bler(curve_for(row, s.k_plus), mib)).powi(s.c_plus as i32);
    if s.c_minus > 0 {
        ok *= (1.0 - curve_bler(curve_for(row, s.k_minus), mib)).powi(s.c_minus as i32);
    }
    1.0 - ok
}

/// Modulation of I_MCS `mcs` (TS 36.213 Table 7.1.7.1-1).
#[inline]
pub fn modulation_of(mcs: u8) -> Modulation {
    lte_tables::MCS_TABLE[mcs as usize].modulation
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    #[test]
    fn mib_is_increasing_from_zero_to_one() {
        for m in [Modulation::Qpsk, Modulation::Qam16, Modulation::Qam64] {
            let mut last = 0.0;
            for i in 0..=800 {
                let v = mib(db(-20.0 + i as f64 * 0.1), m);
                assert!(v >= last - 1e-12 && (0.0..=1.0).contains(&v), "{m:?} at step {i}: {v}");
                last = v;
            }
            assert!(mib(db(-20.0), m) < 0.05 && mib(db(60.0), m) > 0.999_999);
        }
        // Spot values: the first entries of ns-3's MI_map_qpsk / _16qam / _64qam tables.
        assert!((mib(0.013, Modulation::Qpsk) - 0.008922).abs() < 1e-6, "{}", mib(0.013, Modulation::Qpsk));
        assert!((mib(0.063, Modulation::Qam16) - 0.018884).abs() < 1e-6);
        assert!((mib(0.25, Modulation::Qam64) - 0.036455).abs() < 1e-6);
        // Higher orders carry less information per bit at the same SINR.
        let g = db(8.0);
        assert!(mib(g, Modulation::Qpsk) > mib(g, Modulation::Qam16));
        assert!(mib(g, Modulation::Qam16) > mib(g, Modulation::Qam64));
    }

    #[test]
    fn segmentation_follows_36_212() {
        // One code block up to B = 6144 (TBS 6120 with its CRC).
        assert_eq!(segment(6120), Segmentation { c_plus: 1, k_plus: 6144, c_minus: 0, k_minus: 0 });
        assert_eq!(segment(16), Segmentation { c_plus: 1, k_plus: 40, c_minus: 0, k_minus: 0 });
        assert_eq!(segment(1000).k_plus, 1024); // B = 1024
        // TBS 6200: B = 6224 → C = 2, B' = 6272, K+ = 3136, K- = 3072, C- = 0.
        assert_eq!(segment(6200), Segmentation { c_plus: 2, k_plus: 3136, c_minus: 0, k_minus: 3072 });
        // Larger blocks: C = ⌈B / 6120⌉ code blocks that hold every bit with their CRCs.
        for tbs in [6200u32, 9912, 25456, 36696, 75376] {
            let s = segment(tbs);
            let b = tbs + 24;
            let cbs = s.c_plus + s.c_minus;
            assert_eq!(cbs, b.div_ceil(6120), "TBS {tbs}");
            let capacity = s.c_plus * s.k_plus + s.c_minus * s.k_minus;
            assert!(capacity >= b + 24 * cbs && capacity - (b + 24 * cbs) < s.k_plus - s.k_minus.max(1) + 64, "TBS {tbs}: {s:?}");
            assert!(s.k_plus <= 6144);
        }
    }

    #[test]
    fn bler_falls_with_sinr_and_rises_with_mcs() {
        let tbs = |mcs: u8, prb: u32| lte_tables::tbs_bits(lte_tables::mcs_to_itbs(mcs), prb, 1);
        for mcs in 0..=28u8 {
            let m = modulation_of(mcs);
            let mut last = 1.0;
            for i in 0..400 {
                let b = tb_bler(mcs, tbs(mcs, 50), mib(db(-10.0 + i as f64 * 0.1), m), 1);
                assert!(b <= last + 1e-12, "MCS {mcs}");
                last = b;
            }
            assert!(tb_bler(mcs, tbs(mcs, 50), mib(db(-15.0), m), 1) > 0.99);
            assert!(tb_bler(mcs, tbs(mcs, 50), mib(db(30.0), m), 1) < 1e-6);
        }
        // At a fixed SINR a higher MCS of the same modulation fails more often.
        let g = db(6.0);
        for mcs in 10..16u8 {
            let a = tb_bler(mcs, tbs(mcs, 3), mib(g, Modulation::Qam16), 1);
            let b = tb_bler(mcs + 1, tbs(mcs + 1, 3), mib(g, Modulation::Qam16), 1);
            assert!(b >= a, "MCS {mcs}: {a} then {b}");
        }
    }

    #[test]
    fn more_code_blocks_fail_more_often() {
        // The same MCS and MIB: a block of seven code blocks fails more often than one.
        let mcs = 20u8;
        let mib = 0.60;
        let one = tb_bler(mcs, 6000, mib, 1);
        let seven = tb_bler(mcs, 40_000, mib, 1);
        assert!(seven > one, "{seven} vs {one}");
        assert!(one > 0.0 && one < 1.0);
    }

    #[test]
    fn chase_combining_lowers_the_error_rate() {
        // A block that failed at an SINR where its BLER is high is almost surely decoded
        // after a second copy at the same SINR.
        for mcs in [4u8, 14, 24] {
            let tbs = lte_tables::tbs_bits(lte_tables::mcs_to_itbs(mcs), 20, 1);
            let m = modulation_of(mcs);
            // SINR where the first transmission fails half the time.
            let (mut lo, mut hi) = (-10.0, 30.0);
            for _ in 0..60 {
                let mid = (lo + hi) / 2.0;
                if tb_bler(mcs, tbs, mib(db(mid), m), 1) > 0.5 { lo = mid } else { hi = mid }
            }
            let x = mib(db(hi), m);
            let second = tb_bler(mcs, tbs, x, 2);
            assert!(second < 0.01, "MCS {mcs}: {second}");
            assert!(tb_bler(mcs, tbs, x, 3) <= second);
        }
    }

    #[test]
    fn missing_curves_fall_back_to_the_next_larger_size() {
        // I_MCS 28 has no curve below 2560 bits.
        assert_eq!(curve_for(&MCS_CURVES[28], 1000), MCS_CURVES[28][6].unwrap());
        assert_eq!(curve_for(&MCS_CURVES[28], 6144), MCS_CURVES[28][8].unwrap());
        assert_eq!(curve_for(&MCS_CURVES[0], 10), MCS_CURVES[0][0].unwrap());
        assert_eq!(curve_for(&MCS_CURVES[0], 4100), MCS_CURVES[0][7].unwrap());
    }

    #[test]
    fn ns3_saturation_of_the_mib_tables_only_touches_negligible_errors() {
        // Above the end of ns-3's tables its MIB is 1; ours keeps growing towards 1. There,
        // every curve of the modulation gives a block error rate below 1e-6 either way.
        let ends = [(Modulation::Qpsk, 3.197, 0..=9u8), (Modulation::Qam16, 9.993, 10..=16), (Modulation::Qam64, 157.96, 17..=28)];
        for (m, end, mcss) in ends {
            for mcs in mcss {
                let b = tb_bler(mcs, 75_376, mib(end, m), 1);
                assert!(b < 1e-6, "{m:?} MCS {mcs}: {b}");
            }
        }
    }

    #[test]
    fn pdcch_curve_lookup() {
        assert_eq!(pdcch_bler(db(0.0)), 0.0);
        assert_eq!(pdcch_bler(db(-1.0)), 0.0020727);
        assert_eq!(pdcch_bler(db(-10.0)), 0.922602);
        assert_eq!(pdcch_bler(db(-30.0)), 0.922602);
        assert_eq!(pdcch_bler(db(-3.05)), PDCCH_BLER_CURVE[35]); // -3.0 dB
        assert_eq!(pdcch_bler(0.0), 0.922602);
    }
}
