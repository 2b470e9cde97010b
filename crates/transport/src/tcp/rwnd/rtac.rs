//! RTAC, receiver-side TCP adaptive queue control (\[rsd-thesis\] chapter 2,
//! Algorithm 1): the receiver emulates a linear AQM price `q̂ = K(Q̂ + 1)` on its own queue
//! estimate and advertises the window a TCP-Reno sender would settle at under that price.

use cellshare_core::{Nanos, MS};

use super::{ReceiveWindowPolicy, ReceiverEstimator};
use crate::wire::Segment;

/// Reno's utility coefficient `a` in Eqs. (2.2)/(2.8): 3/2.
pub const RENO_A: f64 = 1.5;

/// Eq. (2.14): `rwnd = √a · (R̂TT / R̂TTm) / √(K · (ŵ·(1 − R̂TTm/R̂TT) + 1))`, in packets.
///
/// `rtt` and `rtt_min` in any common unit, `window` (ŵ) in packets, `k` per packet³ as in
/// Eq. (2.11). The queue estimate `Q̂ = ŵ·(1 − R̂TTm/R̂TT)` (Eq. (2.10)) is clamped at 0:
/// with the compensation Δ, `R̂TTm` can exceed a measured `R̂TT` (a **choice**: a negative
/// queue has no meaning, and the thesis's `+1` then leaves `q̂ = K`).
pub fn rtac_window(a: f64, k: f64, rtt: f64, rtt_min: f64, window: f64) -> f64 {
    let queue = (window * (1.0 - rtt_min / rtt)).max(0.0);
    let price = k * (queue + 1.0);
    a.sqrt() * (rtt / rtt_min) / price.sqrt()
}

/// Eq. (2.11): `K = a / (θ − 1) · (1 / BDP)³`, BDP in packets.
pub fn k_from_theta(a: f64, theta: f64, bdp_packets: f64) -> f64 {
    a / (theta - 1.0) / bdp_packets.powi(3)
}

/// RTAC's parameters (see `RwndConfig::Rtac` for their meaning and defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtacParams {
    /// Weight of the previous window estimate (Algorithm 1 line 3: `ŵ ← α·ŵ + (1 − α)·pkts`).
    pub alpha: f64,
    /// RTT gain (Algorithm 1 line 2: `R̂TT ← (1 − β)·R̂TT + β·sample`).
    pub beta: f64,
    /// The slope K of the emulated price, per packet³, when given directly.
    pub k: Option<f64>,
    /// Operating point θ = RTT*/RTTm for Eq. (2.11), used when `k` is not given.
    pub theta: f64,
    /// Wireless link capacity (bits/s) for the BDP of Eq. (2.11), used when `k` is not given.
    pub capacity_bps: u64,
    /// RTTm compensation Δ (§2.4.1): `R̂TT*m = R̂TTm + Δ`.
    pub delta: Nanos,
    /// Largest window, bytes (`tcp_rmem` max).
    pub rmem_max: u32,
}

/// The RTAC receiver (Algorithm 1).
///
/// On every arriving segment the [`ReceiverEstimator`] updates `R̂TT` (gain β) and
/// `R̂TTm`; once per `R̂TT` it updates `ŵ` (weight α on the old value) and RTAC recomputes
/// `rwnd` by Eq. (2.14) with `R̂TT*m = R̂TTm + Δ` in place of `R̂TTm`, bounded to
/// `[2·MSS, rmem_max]` (a **choice**: the thesis gives no lower bound; a receiver never
/// advertises less than two segments here, so delayed ACKs keep flowing). K is either given
/// or recomputed from θ at each update by Eq. (2.11) with `BDP = capacity · R̂TT*m / MSS`
/// (the thesis: "we obtain BDP from multiplying the wireless link capacity by R̂TTm").
/// Until the first update the receiver advertises `rmem_initial`.
#[derive(Clone, Debug)]
pub struct Rtac {
    mss: u32,
    p: RtacParams,
    est: ReceiverEstimator,
    window: u32,
    k_used: f64,
}

impl Rtac {
    /// An RTAC receiver.
    pub fn new(mss: u32, rmem_initial: u32, p: RtacParams, ts_offset_ms: u32) -> Self {
        Self {
            mss,
            p,
            est: ReceiverEstimator::new(mss, ts_offset_ms, p.beta, p.alpha),
            window: rmem_initial.min(p.rmem_max),
            k_used: p.k.unwrap_or(f64::NAN),
        }
    }

    /// The receiver-side estimates.
    pub fn estimator(&self) -> &ReceiverEstimator {
        &self.est
    }

    /// The K of the last window computation (NaN before the first one when derived from θ).
    pub fn k(&self) -> f64 {
        self.k_used
    }

    /// The window (bytes) for estimates `rtt`, `rtt_min` (before Δ) and `window_packets`.
    pub fn window_for(&self, rtt: Nanos, rtt_min: Nanos, window_packets: f64) -> (f64, u32) {
        let rtt_m = (rtt_min + self.p.delta) as f64;
        let k = self.p.k.unwrap_or_else(|| {
            let bdp =
                self.p.capacity_bps as f64 * (rtt_m / (1000.0 * MS as f64)) / 8.0 / self.mss as f64;
            k_from_theta(RENO_A, self.p.theta, bdp.max(1.0))
        });
        let pkts = rtac_window(RENO_A, k, rtt as f64, rtt_m, window_packets);
        let bytes = (pkts * self.mss as f64).clamp(2.0 * self.mss as f64, self.p.rmem_max as f64);
        (k, bytes as u32)
    }
}

impl ReceiveWindowPolicy for Rtac {
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
        let (k, bytes) = self.window_for(rtt, min, w);
        self.k_used = k;
        self.window = bytes;
    }

    fn window(&self, _now: Nanos) -> u32 {
        self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(k: Option<f64>) -> RtacParams {
        RtacParams {
            alpha: 0.125,
            beta: 0.125,
            k,
            theta: 1.38,
            capacity_bps: 55_000_000,
            delta: 0,
            rmem_max: 2_560_000,
        }
    }

    #[test]
    fn eq_2_14_by_hand() {
        // RTT = 100 ms, RTTm = 50 ms, ŵ = 200 packets, K = 3e-7:
        // Q̂ = 200·(1 − 0.5) = 100; q̂ = 3e-7 · 101 = 3.03e-5; √q̂ = 5.504544e-3;
        // rwnd = √1.5 · 2 / 5.504544e-3 = 1.2247449 · 2 / 5.504544e-3 = 444.994 packets.
        let w = rtac_window(1.5, 3e-7, 100.0, 50.0, 200.0);
        assert!((w - 444.994).abs() < 0.01, "{w}");
        // No queueing (RTT = RTTm): Q̂ = 0, rwnd = √1.5 / √(3e-7) = 2236.07 packets.
        let w = rtac_window(1.5, 3e-7, 50.0, 50.0, 200.0);
        assert!((w - 2236.068).abs() < 0.01, "{w}");
        // Wi-Fi K = 15e-5, RTT = 40 ms, RTTm = 20 ms, ŵ = 60: Q̂ = 30, q̂ = 4.65e-3,
        // rwnd = 1.2247449 · 2 / 0.0681909 = 35.921 packets.
        let w = rtac_window(1.5, 15e-5, 40.0, 20.0, 60.0);
        assert!((w - 35.921).abs() < 0.01, "{w}");
        // RTT below the compensated RTTm: the queue estimate is clamped at 0.
        let w = rtac_window(1.5, 3e-7, 40.0, 50.0, 200.0);
        assert!((w - 0.8 * 2236.068).abs() < 0.01, "{w}");
    }

    #[test]
    fn k_from_theta_matches_the_thesis() {
        // The thesis's K for LTE, 3e-7 with θ = 1.38, corresponds to a BDP of 236 packets;
        // Eq. (2.11): 1.5 / 0.38 / 236³ = 3.003e-7.
        let k = k_from_theta(1.5, 1.38, 236.0);
        assert!((k - 3.003e-7).abs() < 1e-9, "{k}");
        // Wi-Fi: 15e-5 ↔ 29.8 packets.
        let k = k_from_theta(1.5, 1.38, 29.8);
        assert!((k / 15e-5 - 1.0).abs() < 0.01, "{k}");
    }

    #[test]
    fn window_in_bytes_uses_delta_and_bounds() {
        let r = Rtac::new(
            1448,
            131_072,
            RtacParams {
                delta: 10 * MS,
                ..params(Some(3e-7))
            },
            0,
        );
        // RTTm 40 + Δ 10 = 50 ms, RTT 100 ms, ŵ 200: 444.994 packets · 1448 bytes.
        let (_, b) = r.window_for(100 * MS, 40 * MS, 200.0);
        assert!((b as f64 / 1448.0 - 444.994).abs() < 0.01);
        // No queueing: 2236 packets = 3.24 MB, capped at rmem_max.
        let (_, b) = r.window_for(50 * MS, 40 * MS, 200.0);
        assert_eq!(b, 2_560_000);
        // K from θ: capacity 55 Mbit/s · 50 ms = 237.4 packets.
        let r = Rtac::new(
            1448,
            131_072,
            RtacParams {
                delta: 10 * MS,
                ..params(None)
            },
            0,
        );
        let (k, _) = r.window_for(100 * MS, 40 * MS, 200.0);
        let bdp = 55e6 * 0.05 / 8.0 / 1448.0;
        assert!((k - 1.5 / 0.38 / (bdp * bdp * bdp)).abs() < 1e-12, "{k}");
    }
}
