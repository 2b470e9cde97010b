//! Constant-bit-rate channel.

use crate::LinkQuality;

/// A channel that offers the same bit rate every TTI (every slot of an NR cell: the rate is
/// per second, so a slot of 1/2^μ ms carries rate × slot).
///
/// Rates that are not a whole number of bytes per slot are exact over time: slot `k` offers
/// `floor((k+1)·r) − floor(k·r)` bytes, where `r` is the rate in bytes per slot. The answer is
/// a pure function of `k`.
#[derive(Clone, Debug)]
pub struct FixedChannel {
    /// Bit rate in bits per second.
    rate_bps: u64,
    /// μ of the slot (0: LTE's 1 ms TTI); a slot is 1 ms / 2^μ.
    shift: u32,
}

impl FixedChannel {
    /// A channel of `rate_bps` bits per second, on 1 ms TTIs.
    pub fn new(rate_bps: u64) -> Self {
        Self { rate_bps, shift: 0 }
    }

    /// A channel of `rate_bps` bits per second, on the slots of `slot`.
    pub fn with_slot(rate_bps: u64, slot: cellshare_core::Slot) -> Self {
        Self { rate_bps, shift: slot.shift() }
    }

    /// Whether every slot offers the same whole number of bytes.
    pub fn is_constant(&self) -> bool {
        self.rate_bps.is_multiple_of(8000 << self.shift)
    }

    /// Bytes offered in slot `tti` with every PRB.
    #[inline]
    pub fn quality(&self, tti: u64) -> LinkQuality {
        // bytes up to the end of slot k = floor(k · rate_bps / (8000 · 2^μ)), as
        // floor(floor(k · rate_bps / 2^μ) / 8000): a shift and a division by a constant.
        let r = self.rate_bps as u128;
        let sh = self.shift;
        let upto = |k: u64| ((k as u128 * r) >> sh) / 8000;
        LinkQuality::Linear { full_bytes: (upto(tti + 1) - upto(tti)) as u32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractional_rates_are_exact_over_time() {
        let c = FixedChannel::new(10_500_000); // 1312.5 bytes per TTI
        let total: u64 = (0..1000)
            .map(|k| match c.quality(k) {
                LinkQuality::Linear { full_bytes } => full_bytes as u64,
                _ => unreachable!(),
            })
            .sum();
        assert_eq!(total, 1_312_500);
        assert_eq!(FixedChannel::new(20_000_000).quality(5), LinkQuality::Linear { full_bytes: 2500 });
    }

    #[test]
    fn nr_slots_carry_rate_times_slot() {
        // 10.5 Mbit/s in slots of 0.125 ms (μ = 3): 164.0625 bytes per slot, 8000 slots in 1 s.
        let c = FixedChannel::with_slot(10_500_000, cellshare_core::Slot::nr(3).unwrap());
        let per_slot: Vec<u32> = (0..8000)
            .map(|k| match c.quality(k) {
                LinkQuality::Linear { full_bytes } => full_bytes,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(per_slot.iter().map(|&b| b as u64).sum::<u64>(), 1_312_500);
        assert!(per_slot.iter().all(|&b| b == 164 || b == 165));
        assert!(!c.is_constant());
        // 64 Mbit/s at μ = 3: exactly 1000 bytes every slot.
        let c = FixedChannel::with_slot(64_000_000, cellshare_core::Slot::nr(3).unwrap());
        assert!(c.is_constant());
        assert_eq!(c.quality(7), LinkQuality::Linear { full_bytes: 1000 });
    }
}
