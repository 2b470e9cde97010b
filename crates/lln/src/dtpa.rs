//! DTPA: dynamic TX period adjustment (\[rsd-thesis\] §4.3.2, Eq. (4.6), Algorithm 2).
//!
//! Each node estimates its TCP loss rate `p = (RTOs + fast retransmits) / transmissions`
//! and a smoothed RTT `R̂TT ← (1 − β)·R̂TT + β·RTT`, and sets
//!
//! `TXP = a / (c·√p) − R̂TT`, floored at 0,
//!
//! so that, by Eq. (4.3), every node's throughput `(1/(TXP + RTT))·(a/√p)` equals c
//! segments per second: nodes near the border router (low p, low RTT) wait longer. The node
//! sends its own data only after waiting TXP (its forwarding is never delayed).
//!
//! Choices where the thesis is silent (each is tested below):
//! - **p = 0** (no loss seen yet, including before the first transmission): TXP = 0. The
//!   formula gives an infinite period, which would silence a node that has seen no loss
//!   forever; without any loss there is no congestion evidence to yield to.
//! - **First RTT sample**: R̂TT starts at the first valid sample (as RFC 6298's SRTT);
//!   Algorithm 2 leaves the initial value open.
//! - **Counters** are cumulative over the connection (Algorithm 2 never resets them);
//!   "transmissions" counts every segment sent, retransmissions included.
//! - TXP is recomputed on every ACK that yields a valid RTT sample (Karn's rule), as in
//!   Algorithm 2's "if measured RTT is valid".

use cellshare_core::{Nanos, SEC};

/// Eq. (4.6): TXP in seconds for loss rate `p`, smoothed RTT `rtt_s` (seconds), constant
/// `a` and target rate `c` (segments/s). 0 when `p` is 0 (see the module docs) or when the
/// formula is negative.
pub fn txp_seconds(a: f64, c: f64, p: f64, rtt_s: f64) -> f64 {
    if p.is_nan() || p <= 0.0 {
        return 0.0;
    }
    (a / (c * p.sqrt()) - rtt_s).max(0.0)
}

/// Eq. (4.3): modelled throughput in segments per second of a Reno flow with loss rate `p`,
/// round-trip time `rtt_s` and TX period `txp_s` (Eq. (4.1) when `txp_s` is 0).
pub fn model_throughput(a: f64, p: f64, rtt_s: f64, txp_s: f64) -> f64 {
    if p.is_nan() || p <= 0.0 || (rtt_s + txp_s).is_nan() || rtt_s + txp_s <= 0.0 {
        return f64::INFINITY;
    }
    a / p.sqrt() / (rtt_s + txp_s)
}

/// One node's DTPA estimator (Algorithm 2).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dtpa {
    a: f64,
    c: f64,
    beta: f64,
    /// R̂TT, seconds (`None` before the first sample).
    srtt_s: Option<f64>,
    /// Current TX period.
    txp: Nanos,
    /// Loss rate used for the current TXP.
    p: f64,
}

impl Dtpa {
    /// An estimator with constants `a`, `c` (segments/s) and RTT gain `beta`; TXP starts at 0.
    pub fn new(a: f64, c: f64, beta: f64) -> Self {
        Self { a, c, beta, srtt_s: None, txp: 0, p: 0.0 }
    }

    /// Algorithm 2, "on receiving a packet" with a valid RTT measurement `rtt`: updates
    /// R̂TT and p from the sender's cumulative counters and recomputes TXP.
    pub fn on_rtt_sample(&mut self, rtt: Nanos, rtos: u64, fast_retransmits: u64, transmissions: u64) {
        let r = rtt as f64 / SEC as f64;
        let s = match self.srtt_s {
            None => r,
            Some(s) => (1.0 - self.beta) * s + self.beta * r,
        };
        self.srtt_s = Some(s);
        self.p = if transmissions == 0 { 0.0 } else { (rtos + fast_retransmits) as f64 / transmissions as f64 };
        self.txp = (txp_seconds(self.a, self.c, self.p, s) * SEC as f64).round() as Nanos;
    }

    /// The current TX period.
    pub fn txp(&self) -> Nanos {
        self.txp
    }

    /// The loss rate p of the latest update.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// R̂TT in seconds, if a sample was seen.
    pub fn srtt_s(&self) -> Option<f64> {
        self.srtt_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    const A: f64 = 1.224744871391589;

    #[test]
    fn txp_follows_eq_4_6() {
        // a/(c·√p) − RTT with a = √1.5, c = 1 seg/s, p = 0.04, RTT = 0.5 s: 1.2247/0.2 − 0.5.
        let t = txp_seconds(A, 1.0, 0.04, 0.5);
        assert!((t - (A / 0.2 - 0.5)).abs() < 1e-12, "{t}");
        // Floored at 0 when the RTT exceeds a/(c·√p).
        assert_eq!(txp_seconds(A, 1.0, 0.25, 3.0), 0.0);
        // No loss seen: no TX period (the formula's infinity is not used).
        assert_eq!(txp_seconds(A, 1.0, 0.0, 0.1), 0.0);
        // A larger c (more bandwidth per node) shortens the period; c → ∞ is plain Reno.
        assert!(txp_seconds(A, 2.0, 0.04, 0.5) < t);
        assert_eq!(txp_seconds(A, 1e12, 0.04, 0.5), 0.0);
        // Lower loss → longer wait (the node near the border router yields).
        assert!(txp_seconds(A, 1.0, 0.01, 0.5) > t);
    }

    #[test]
    fn txp_equalises_the_modelled_throughput_at_c() {
        for &(p, rtt) in &[(0.01, 0.2), (0.05, 0.6), (0.1, 1.0)] {
            let txp = txp_seconds(A, 0.8, p, rtt);
            assert!(txp > 0.0);
            let x = model_throughput(A, p, rtt, txp);
            assert!((x - 0.8).abs() < 1e-9, "{x}");
        }
    }

    #[test]
    fn estimator_smooths_rtt_and_counts_losses_over_transmissions() {
        let mut d = Dtpa::new(A, 1.0, 0.125);
        assert_eq!(d.txp(), 0);
        d.on_rtt_sample(400 * MS, 0, 0, 10);
        assert_eq!(d.srtt_s(), Some(0.4), "first sample initialises R̂TT");
        assert_eq!(d.txp(), 0, "no loss yet");
        d.on_rtt_sample(800 * MS, 1, 3, 100);
        let s = 0.875 * 0.4 + 0.125 * 0.8;
        assert!((d.srtt_s().unwrap() - s).abs() < 1e-12);
        assert!((d.p() - 0.04).abs() < 1e-12);
        let want = ((A / 0.2 - s) * 1e9).round() as Nanos;
        assert_eq!(d.txp(), want);
    }
}
