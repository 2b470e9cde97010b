//! Numerologies and carrier sizes: TS 38.211 § 4.2–4.3 and the maximum transmission bandwidth
//! configurations N_RB of TS 38.101-1 / 38.101-2 (Release 17), Table 5.3.2-1 of each.
//!
//! An LTE carrier has one subcarrier spacing (15 kHz) and one TTI (1 ms). An NR carrier has a
//! *numerology* μ: subcarriers 15·2^μ kHz apart, so a PRB (still 12 subcarriers) is 2^μ times
//! wider, and an OFDM symbol 2^μ times shorter. A *slot* is always 14 symbols (normal cyclic
//! prefix), so it lasts 1 ms / 2^μ, and it is NR's scheduling interval: 1, 2, 4 or 8 slots per
//! millisecond for μ = 0..3. The carrier's PRB count depends on both its bandwidth and μ (and
//! on guard bands the standard sets per combination), hence the tables below rather than a
//! formula.
//!
//! Frequency range 1 (FR1, 410 MHz – 7.125 GHz) allows μ = 0, 1, 2 for data; frequency range
//! 2 (FR2, 24.25 – 52.6 GHz) allows μ = 2, 3. Bandwidths are those of TS 38.101-1 Release 17
//! (5–100 MHz, including 35 and 45 MHz) and TS 38.101-2 Release 17 for FR2-1 (50–400 MHz).

/// The frequency range of a carrier (TS 38.104 § 5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrequencyRange {
    /// FR1: 410 MHz – 7.125 GHz, subcarrier spacings 15, 30 and 60 kHz.
    Fr1,
    /// FR2: 24.25 – 52.6 GHz, subcarrier spacings 60 and 120 kHz.
    Fr2,
}

/// A numerology μ (TS 38.211 § 4.2): subcarrier spacing 15·2^μ kHz, slots of 1/2^μ ms. Only
/// μ = 0..=3 (15 – 120 kHz), the spacings of FR1 and FR2-1 data channels, can be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Numerology(u8);

impl Numerology {
    /// The numerology μ, or `None` unless μ ∈ 0..=3.
    pub const fn new(mu: u8) -> Option<Numerology> {
        if mu <= 3 {
            Some(Numerology(mu))
        } else {
            None
        }
    }

    /// μ.
    #[inline]
    pub const fn mu(self) -> u8 {
        self.0
    }

    /// Subcarrier spacing in kHz: 15·2^μ.
    #[inline]
    pub const fn scs_khz(self) -> u32 {
        15 << self.0
    }

    /// Slot duration in nanoseconds (14 OFDM symbols, normal cyclic prefix): 1 ms / 2^μ.
    #[inline]
    pub const fn slot_ns(self) -> u64 {
        1_000_000 >> self.0
    }

    /// Slots per millisecond (per LTE subframe): 2^μ.
    #[inline]
    pub const fn slots_per_ms(self) -> u32 {
        1 << self.0
    }
}

/// FR1 channel bandwidths (MHz) of TS 38.101-1 Table 5.3.2-1, the columns of [`FR1_NRB`].
const FR1_BW: [u32; 15] = [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100];
/// N_RB per FR1 bandwidth, rows SCS 15, 30, 60 kHz; 0 where the table says N/A.
const FR1_NRB: [[u32; 15]; 3] = [
    [25, 52, 79, 106, 133, 160, 188, 216, 242, 270, 0, 0, 0, 0, 0],
    [11, 24, 38, 51, 65, 78, 92, 106, 119, 133, 162, 189, 217, 245, 273],
    [0, 11, 18, 24, 31, 38, 44, 51, 58, 65, 79, 93, 107, 121, 135],
];
/// FR2 channel bandwidths (MHz) of TS 38.101-2 Table 5.3.2-1, the columns of [`FR2_NRB`].
const FR2_BW: [u32; 4] = [50, 100, 200, 400];
/// N_RB per FR2 bandwidth, rows SCS 60, 120 kHz; 0 where the table says N/A.
const FR2_NRB: [[u32; 4]; 2] = [[66, 132, 264, 0], [32, 66, 132, 264]];

const FR1_BW_15: [u32; 10] = [5, 10, 15, 20, 25, 30, 35, 40, 45, 50];
const FR1_BW_60: [u32; 14] = [10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100];
const FR2_BW_60: [u32; 3] = [50, 100, 200];

/// N_RB, the PRBs of a carrier of `bandwidth_mhz` MHz at numerology `mu` in range `fr`
/// (TS 38.101-1 Table 5.3.2-1 for FR1, TS 38.101-2 Table 5.3.2-1 for FR2, Release 17); `None`
/// when the standard defines no such (range, SCS, bandwidth) combination, e.g. 60 MHz at
/// 15 kHz or any FR2 carrier at 15 or 30 kHz.
pub fn max_prbs(fr: FrequencyRange, mu: Numerology, bandwidth_mhz: u32) -> Option<u32> {
    let n = match (fr, mu.mu()) {
        (FrequencyRange::Fr1, m @ 0..=2) => {
            FR1_BW.iter().position(|&b| b == bandwidth_mhz).map(|i| FR1_NRB[m as usize][i])
        }
        (FrequencyRange::Fr2, m @ 2..=3) => {
            FR2_BW.iter().position(|&b| b == bandwidth_mhz).map(|i| FR2_NRB[(m - 2) as usize][i])
        }
        _ => None,
    }?;
    (n > 0).then_some(n)
}

/// The channel bandwidths (MHz) defined for (`fr`, `mu`), ascending, for error messages;
/// empty when the subcarrier spacing is not allowed in that range.
pub fn bandwidths_mhz(fr: FrequencyRange, mu: Numerology) -> &'static [u32] {
    match (fr, mu.mu()) {
        (FrequencyRange::Fr1, 0) => &FR1_BW_15,
        (FrequencyRange::Fr1, 1) => &FR1_BW,
        (FrequencyRange::Fr1, 2) => &FR1_BW_60,
        (FrequencyRange::Fr2, 2) => &FR2_BW_60,
        (FrequencyRange::Fr2, 3) => &FR2_BW,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mu(m: u8) -> Numerology {
        Numerology::new(m).unwrap()
    }

    #[test]
    fn numerologies_scale_by_powers_of_two() {
        assert_eq!(Numerology::new(4), None);
        let expect = [(15, 1_000_000, 1), (30, 500_000, 2), (60, 250_000, 4), (120, 125_000, 8)];
        for (m, &(scs, slot, per_ms)) in expect.iter().enumerate() {
            let n = mu(m as u8);
            assert_eq!((n.mu(), n.scs_khz(), n.slot_ns(), n.slots_per_ms()), (m as u8, scs, slot, per_ms));
        }
    }

    #[test]
    fn prb_tables_match_the_standard() {
        use FrequencyRange::*;
        // Spot values read from the tables, including the corners.
        assert_eq!(max_prbs(Fr1, mu(1), 100), Some(273));
        assert_eq!(max_prbs(Fr1, mu(0), 50), Some(270));
        assert_eq!(max_prbs(Fr1, mu(0), 20), Some(106));
        assert_eq!(max_prbs(Fr1, mu(0), 5), Some(25));
        assert_eq!(max_prbs(Fr1, mu(1), 5), Some(11));
        assert_eq!(max_prbs(Fr1, mu(1), 40), Some(106));
        assert_eq!(max_prbs(Fr1, mu(2), 100), Some(135));
        assert_eq!(max_prbs(Fr1, mu(2), 10), Some(11));
        assert_eq!(max_prbs(Fr2, mu(2), 200), Some(264));
        assert_eq!(max_prbs(Fr2, mu(3), 400), Some(264));
        assert_eq!(max_prbs(Fr2, mu(3), 50), Some(32));
        // Combinations the standard does not define.
        assert_eq!(max_prbs(Fr1, mu(0), 60), None);
        assert_eq!(max_prbs(Fr1, mu(2), 5), None);
        assert_eq!(max_prbs(Fr1, mu(3), 100), None);
        assert_eq!(max_prbs(Fr2, mu(2), 400), None);
        assert_eq!(max_prbs(Fr2, mu(1), 100), None);
        assert_eq!(max_prbs(Fr1, mu(1), 55), None);
    }

    #[test]
    fn bandwidth_lists_agree_with_the_prb_tables() {
        use FrequencyRange::*;
        for fr in [Fr1, Fr2] {
            for m in 0..=3 {
                let listed = bandwidths_mhz(fr, mu(m));
                for bw in 1..=400 {
                    assert_eq!(max_prbs(fr, mu(m), bw).is_some(), listed.contains(&bw), "{fr:?} μ={m} {bw} MHz");
                }
                // Wider carriers have more PRBs, and a PRB never exceeds its share of the band.
                let prbs: Vec<u32> = listed.iter().map(|&bw| max_prbs(fr, mu(m), bw).unwrap()).collect();
                assert!(prbs.windows(2).all(|w| w[0] < w[1]));
                for (&bw, &n) in listed.iter().zip(&prbs) {
                    assert!(n * 12 * mu(m).scs_khz() < bw * 1000, "{fr:?} μ={m} {bw} MHz");
                }
            }
        }
        assert!(bandwidths_mhz(Fr1, mu(3)).is_empty());
        assert!(bandwidths_mhz(Fr2, mu(0)).is_empty());
        assert_eq!(bandwidths_mhz(Fr1, mu(1)).len(), 15);
    }
}
