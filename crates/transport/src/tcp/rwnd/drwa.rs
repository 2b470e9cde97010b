//! DRWA, dynamic receive-window adjustment (Jiang et al., IMC 2012 \[drwa\]), as the thesis
//! \[rsd-thesis\] states it (Eq. (2.13)): `rwnd = λ · R̂TTm / R̂TT · ŵ`, λ = 3.

use cellshare_core::Nanos;

use super::{ReceiveWindowPolicy, ReceiverEstimator};
use crate::wire::Segment;

/// Weight DRWA gives the previous window estimate (`cwnd_est ← 7/8·cwnd_est + 1/8·data`,
/// Jiang et al. 2012 \[drwa\]), and its RTT gain (1/8, the TCP smoothing it reuses).
const DRWA_KEEP: f64 = 7.0 / 8.0;
const DRWA_BETA: f64 = 1.0 / 8.0;

/// The DRWA rule: `λ · rtt_min / rtt · window` (any consistent units; the window's).
pub fn drwa_window(lambda: f64, rtt_min: Nanos, rtt: Nanos, window: f64) -> f64 {
    lambda * rtt_min as f64 / rtt.max(1) as f64 * window
}

/// DRWA receiver: once per receiver-estimated RTT, `rwnd = λ · R̂TTm / R̂TT · ŵ` (ŵ the
/// bytes that arrived per RTT, averaged), at least 2 MSS and at most `rmem_max`. Until
/// the first estimate it advertises `rmem_initial`.
#[derive(Clone, Debug)]
pub struct Drwa {
    mss: u32,
    lambda: f64,
    rmem_max: u32,
    est: ReceiverEstimator,
    window: u32,
}

impl Drwa {
    /// A DRWA receiver with multiplier `lambda`.
    pub fn new(mss: u32, rmem_initial: u32, rmem_max: u32, lambda: f64, ts_offset_ms: u32) -> Self {
        Self {
            mss,
            lambda,
            rmem_max,
            est: ReceiverEstimator::new(mss, ts_offset_ms, DRWA_BETA, DRWA_KEEP),
            window: rmem_initial.min(rmem_max),
        }
    }

    /// The receiver-side estimates.
    pub fn estimator(&self) -> &ReceiverEstimator {
        &self.est
    }
}

impl ReceiveWindowPolicy for Drwa {
    fn on_segment(&mut self, now: Nanos, seg: &Segment, rcv_nxt: u64) {
        if !self.est.on_segment(now, seg, rcv_nxt) {
            return;
        }
        let (Some(rtt), Some(min), Some(w)) = (
            self.est.rtt(),
            self.est.rtt_min(),
            self.est.window_packets(),
        ) else {
            return;
        };
        let bytes = drwa_window(self.lambda, min, rtt, w) * self.mss as f64;
        self.window = bytes.clamp(2.0 * self.mss as f64, self.rmem_max as f64) as u32;
    }

    fn window(&self, _now: Nanos) -> u32 {
        self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    #[test]
    fn rule_matches_eq_2_13() {
        // λ = 3, RTTm = 50 ms, RTT = 150 ms, ŵ = 100 packets: 3 · 1/3 · 100 = 100.
        assert!((drwa_window(3.0, 50 * MS, 150 * MS, 100.0) - 100.0).abs() < 1e-9);
        // No queueing (RTT = RTTm): three times the window, letting the sender grow.
        assert!((drwa_window(3.0, 40 * MS, 40 * MS, 20.0) - 60.0).abs() < 1e-9);
        // RTT four times RTTm: 3/4 of the window, the sender is throttled.
        assert!((drwa_window(3.0, 25 * MS, 100 * MS, 80.0) - 60.0).abs() < 1e-9);
    }

    #[test]
    fn policy_advertises_lambda_times_window_without_queueing() {
        let mss = 1448;
        let mut d = Drwa::new(mss, 131_072, 2_560_000, 3.0, 0);
        let mut seq = 0;
        // 30 packets per 40 ms RTT, no queueing: rwnd = 3 · 30 packets.
        for r in 0..8u64 {
            for i in 0..30u64 {
                let now = (r + 1) * 40 * MS + i * 40 * MS / 30;
                let ecr = crate::tcp::ts_clock(now - 40 * MS, 0);
                let seg = Segment {
                    seq,
                    len: mss,
                    ts_val: 1,
                    ts_ecr: ecr,
                    retransmit: false,
                    syn: false,
                };
                seq += mss as u64;
                d.on_segment(now, &seg, seq);
            }
        }
        let w = d.window(0) as f64 / mss as f64;
        assert!((w - 90.0).abs() < 4.0, "window {w} packets, want about 90");
    }
}
