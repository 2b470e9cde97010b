//! RTT estimation and the retransmission timeout (RFC 6298, or Linux's variant).

use cellshare_core::{Nanos, MS};

/// Clock granularity `G` of RFC 6298 §2: the timestamp clock ticks every millisecond.
pub const CLOCK_GRANULARITY: Nanos = MS;

/// How the retransmission timeout follows the RTT samples: `"linux"` or `"rfc6298"`.
///
/// - `Linux` (default): Linux's `tcp_rtt_estimator`/`__tcp_set_rto` (RFC 6298 §2 with
///   Linux's deviations): `RTO = SRTT + RTTVAR'`, where `RTTVAR'` is the largest `4·mdev` of
///   the last round trip, never below `min_rto_ms` and decaying by a quarter per round trip
///   towards it; `mdev` moves with gain 1/4, or 1/32 when the sample is below SRTT (a falling
///   RTT barely shrinks the RTO). The RTO is therefore at least SRTT + `min_rto_ms`. The
///   first sample R gives `SRTT = R`, `RTTVAR' = max(2R, min_rto)`. RTT samples are Linux's
///   too: the oldest newly acknowledged segment (else the oldest newly SACKed one) never
///   retransmitted, or, when the ACK acknowledges only retransmitted data, its timestamp
///   echo (RFC 7323 §4, 1 ms resolution).
/// - `Rfc6298`: RFC 6298 §2, `RTO = max(min_rto, SRTT + max(G, 4·RTTVAR))` with `min_rto_ms`
///   as the lower bound; samples from the most recently sent newly acknowledged segment,
///   Karn's rule (none from retransmitted data).
///
/// (The variants carry no doc comments of their own so that the schema is a plain string
/// enumeration.)
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum RtoEstimator {
    #[default]
    Linux,
    Rfc6298,
}

/// Smoothed RTT, RTT variation and the retransmission timeout with exponential back-off.
///
/// All arithmetic is on integer nanoseconds. Samples must already obey Karn's rule (the
/// sender never passes a sample taken from a retransmitted segment), except the timestamp
/// samples of [`RtoEstimator::Linux`].
#[derive(Clone, Debug)]
pub struct RttEstimator {
    algorithm: RtoEstimator,
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
    /// Linux: `4·mdev` (`mdev_us`), its maximum over the current round trip
    /// (`mdev_max_us`) and the round trip's end (`rtt_seq`).
    mdev4: i64,
    mdev_max: i64,
    rtt_seq: u64,
}

impl RttEstimator {
    /// An estimator with no samples; the RTO is `initial_rto` until the first sample.
    pub fn new(min_rto: Nanos, initial_rto: Nanos, max_rto: Nanos) -> Self {
        Self::with_algorithm(RtoEstimator::Rfc6298, min_rto, initial_rto, max_rto)
    }

    /// An estimator of the given kind with no samples.
    pub fn with_algorithm(
        algorithm: RtoEstimator,
        min_rto: Nanos,
        initial_rto: Nanos,
        max_rto: Nanos,
    ) -> Self {
        Self {
            algorithm,
            srtt: 0,
            rttvar: 0,
            min_rtt: 0,
            latest: 0,
            samples: 0,
            min_rto,
            max_rto,
            initial_rto,
            backoff: 0,
            mdev4: 0,
            mdev_max: 0,
            rtt_seq: 0,
        }
    }

    /// The estimator's kind.
    pub fn algorithm(&self) -> RtoEstimator {
        self.algorithm
    }

    /// Feeds one RTT measurement `r` for the RTO, and `ca_rtt` (Linux's sample for the
    /// minimum: the most recently sent acknowledged segment) for the minimum RTT. `snd_una`
    /// and `snd_max` after the ACK delimit Linux's round trips.
    pub fn on_sample_at(&mut self, r: Nanos, ca_rtt: Nanos, snd_una: u64, snd_max: u64) {
        if self.algorithm == RtoEstimator::Rfc6298 {
            self.on_sample(r);
            return;
        }
        // Linux `tcp_rtt_estimator` (net/ipv4/tcp_input.c), in nanoseconds.
        let m = r.min(i64::MAX as u64) as i64;
        let min_rto = self.min_rto.min(i64::MAX as u64) as i64;
        if self.samples == 0 {
            self.srtt = r;
            self.mdev4 = 2 * m;
            self.rttvar = self.mdev4.max(min_rto) as Nanos;
            self.mdev_max = self.rttvar as i64;
            self.rtt_seq = snd_max;
            self.min_rtt = ca_rtt;
        } else {
            let srtt = self.srtt as i64;
            let mut err = m - srtt;
            self.srtt = (srtt + err / 8).max(1) as Nanos;
            if err < 0 {
                err = -err - self.mdev4 / 4;
                if err > 0 {
                    err /= 8;
                }
            } else {
                err -= self.mdev4 / 4;
            }
            self.mdev4 += err;
            if self.mdev4 > self.mdev_max {
                self.mdev_max = self.mdev4;
                if self.mdev_max > self.rttvar as i64 {
                    self.rttvar = self.mdev_max as Nanos;
                }
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max < self.rttvar as i64 {
                    self.rttvar -= (self.rttvar - self.mdev_max as Nanos) / 4;
                }
                self.rtt_seq = snd_max;
                self.mdev_max = min_rto;
            }
            self.min_rtt = self.min_rtt.min(ca_rtt);
        }
        self.latest = r;
        self.samples += 1;
        self.backoff = 0;
    }

    /// Feeds one RTT measurement `r` (RFC 6298).
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
        if self.algorithm == RtoEstimator::Linux {
            // Linux `__tcp_set_rto` + `tcp_bound_rto`: SRTT + RTTVAR' (≥ min RTO inside).
            return (self.srtt + self.rttvar).min(self.max_rto);
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
        assert_eq!(
            (e.srtt(), e.rttvar(), e.rto()),
            (300 * MS, 150 * MS, 900 * MS)
        );
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
    fn linux_estimator_follows_tcp_rtt_estimator() {
        let mut e =
            RttEstimator::with_algorithm(RtoEstimator::Linux, 200 * MS, 1000 * MS, 120_000 * MS);
        assert_eq!(e.rto(), 1000 * MS);
        // First sample R: SRTT = R, RTTVAR' = max(2R, min RTO) → RTO = 100 + 200 ms.
        e.on_sample_at(100 * MS, 100 * MS, 0, 10);
        assert_eq!((e.srtt(), e.rto()), (100 * MS, 300 * MS));
        // A smaller sample moves mdev with gain 1/32 (here not at all: |err| < mdev):
        // SRTT = 95, 4·mdev = 200 − 10 = 190 < RTTVAR' = 200, RTO = 295 ms.
        e.on_sample_at(60 * MS, 60 * MS, 5, 20);
        assert_eq!(
            (e.srtt(), e.rto(), e.min_rtt()),
            (95 * MS, 295 * MS, 60 * MS)
        );
        // A larger one in the next round trip (snd_una 11 > rtt_seq 10): err = 205 ms,
        // SRTT = 95 + 25.625, 4·mdev = 190 + (205 − 47.5) = 347.5 ms becomes RTTVAR'.
        e.on_sample_at(300 * MS, 300 * MS, 11, 30);
        assert_eq!(e.srtt(), 120_625_000);
        assert_eq!(e.rto(), 120_625_000 + 347_500_000);
        // Steady samples: RTTVAR' decays by a quarter per round trip towards the floor, so
        // the RTO never falls below SRTT + 200 ms.
        let rto = |e: &RttEstimator| e.rto();
        e.on_sample_at(120_625_000, 120_625_000, 31, 40);
        // err = 0: 4·mdev = 347.5 − 86.875 = 260.625 ms, the round's maximum; a new round
        // (snd_una 31 > rtt_seq 30): RTTVAR' −= (347.5 − 260.625)/4 → 325.78125 ms.
        assert_eq!(rto(&e), 120_625_000 + 325_781_250);
        for round in 1..100u64 {
            e.on_sample_at(120_625_000, 120_625_000, 31 + 10 * round, 40 + 10 * round);
        }
        assert!(
            rto(&e) >= 120_625_000 + 200 * MS && rto(&e) < 120_625_000 + 200 * MS + 1000,
            "{}",
            rto(&e)
        );
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
