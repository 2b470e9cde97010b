//! RTT estimation and the retransmission timeout (RFC 6298).

use cellshare_core::{Nanos, MS};

/// Clock granularity `G` of RFC 6298 §2: the timestamp clock ticks every millisecond.
pub const CLOCK_GRANULARITY: Nanos = MS;

/// Smoothed RTT, RTT variation and the retransmission timeout with exponential back-off.
///
/// All arithmetic is on integer nanoseconds. Samples must already obey Karn's rule (the
/// sender never passes a sample taken from a retransmitted segment).
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Nanos,
    rttvar: Nanos,
    min_rtt: Nanos,
    latest: Nanos,
    samples: u64,
    min_rto: Nanos,
    max_rto: Nanos,
    initial_rto: Nanos,
    /// Number of consecutive back-offs (RFC 6298 §5.5) since the last valid sample.
    backoff: u32,
}

impl RttEstimator {
    /// An estimator with no samples; the RTO is `initial_rto` until the first sample.
    pub fn new(min_rto: Nanos, initial_rto: Nanos, max_rto: Nanos) -> Self {
        Self { srtt: 0, rttvar: 0, min_rtt: 0, latest: 0, samples: 0, min_rto, max_rto, initial_rto, backoff: 0 }
    }

    /// Feeds one RTT measurement `r`.
    pub fn on_sample(&mut self, r: Nanos) {
        if self.samples == 0 {
            // RFC 6298 §2.2: SRTT <- R, RTTVAR <- R/2.
            self.srtt = r;
            self.rttvar = r / 2;
            self.min_rtt = r;
        } else {
            // RFC 6298 §2.3 (alpha = 1/8, beta = 1/4), RTTVAR first, from the old SRTT.
            self.rttvar = (3 * self.rttvar + self.srtt.abs_diff(r)) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
            self.min_rtt = self.min_rtt.min(r);
        }
        self.latest = r;
        self.samples += 1;
        // Karn's algorithm: a valid sample ends the back-off.
        self.backoff = 0;
    }

    /// RTO before back-off: `max(min_rto, SRTT + max(G, 4·RTTVAR))`, capped at `max_rto`
    /// (RFC 6298 §2.2–2.5, with Linux's 200 ms minimum instead of 1 s).
    pub fn base_rto(&self) -> Nanos {
        if self.samples == 0 {
            return self.initial_rto.min(self.max_rto);
        }
        let rto = self.srtt + CLOCK_GRANULARITY.max(4 * self.rttvar);
        rto.max(self.min_rto).min(self.max_rto)
    }

    /// Current RTO including exponential back-off (RFC 6298 §5.5), capped at `max_rto`.
    pub fn rto(&self) -> Nanos {
        let base = self.base_rto();
        let factor = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        base.saturating_mul(factor).min(self.max_rto)
    }

    /// Doubles the RTO after a timeout (RFC 6298 §5.5).
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// Smoothed RTT (0 before the first sample).
    pub fn srtt(&self) -> Nanos {
        self.srtt
    }

    /// RTT variation (0 before the first sample).
    pub fn rttvar(&self) -> Nanos {
        self.rttvar
    }

    /// Smallest sample so far (0 before the first sample).
    pub fn min_rtt(&self) -> Nanos {
        self.min_rtt
    }

    /// Most recent sample (0 before the first sample).
    pub fn latest(&self) -> Nanos {
        self.latest
    }

    /// Number of samples taken.
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(200 * MS, 1000 * MS, 120_000 * MS)
    }

    #[test]
    fn first_and_second_sample_follow_rfc6298() {
        let mut e = est();
        assert_eq!(e.rto(), 1000 * MS);
        e.on_sample(300 * MS);
        // SRTT = 300, RTTVAR = 150, RTO = 300 + 4*150 = 900 ms.
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (300 * MS, 150 * MS, 900 * MS));
        e.on_sample(100 * MS);
        // RTTVAR = 3/4*150 + 1/4*|300-100| = 162.5; SRTT = 7/8*300 + 1/8*100 = 275;
        // RTO = 275 + 4*162.5 = 925 ms.
        assert_eq!(e.rttvar(), 162_500_000);
        assert_eq!(e.srtt(), 275 * MS);
        assert_eq!(e.rto(), 925 * MS);
        assert_eq!(e.min_rtt(), 100 * MS);
    }

    #[test]
    fn minimum_and_granularity_apply() {
        let mut e = est();
        for _ in 0..50 {
            e.on_sample(10 * MS);
        }
        // SRTT 10 ms, RTTVAR decays towards 0: 10 + max(1, 4·var) << 200 ms.
        assert_eq!(e.rto(), 200 * MS);
        let mut e = RttEstimator::new(MS / 2, 1000 * MS, 120_000 * MS);
        for _ in 0..200 {
            e.on_sample(10 * MS);
        }
        assert_eq!(e.rttvar(), 0);
        assert_eq!(e.rto(), 10 * MS + CLOCK_GRANULARITY);
    }

    #[test]
    fn backoff_doubles_until_cap_and_resets_on_sample() {
        let mut e = est();
        e.on_sample(300 * MS);
        e.back_off();
        assert_eq!(e.rto(), 1800 * MS);
        e.back_off();
        assert_eq!(e.rto(), 3600 * MS);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), 120_000 * MS);
        e.on_sample(300 * MS);
        assert!(e.rto() < 1000 * MS);
    }
}
