//! Constant-bit-rate channel.

use crate::LinkQuality;

/// A channel that offers the same bit rate every TTI.
///
/// Rates that are not a whole number of bytes per TTI are exact over time: TTI `k` offers
/// `floor((k+1)·r) − floor(k·r)` bytes, where `r` is the rate in bytes per TTI. The answer is
/// a pure function of `k`.
#[derive(Clone, Debug)]
pub struct FixedChannel {
    /// Bit rate in bits per second.
    rate_bps: u64,
}

impl FixedChannel {
    /// A channel of `rate_bps` bits per second.
    pub fn new(rate_bps: u64) -> Self {
        Self { rate_bps }
    }

    /// Whether every TTI offers the same whole number of bytes.
    pub fn is_constant(&self) -> bool {
        self.rate_bps % 8000 == 0
    }

    /// Bytes offered in TTI `tti` with every PRB.
    #[inline]
    pub fn quality(&self, tti: u64) -> LinkQuality {
        // bytes up to the end of TTI k = floor(k * rate_bps / 8000)
        let r = self.rate_bps as u128;
        let upto = |k: u64| (k as u128 * r) / 8000;
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
}
