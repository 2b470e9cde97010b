//! Reno / NewReno congestion control (RFC 5681 with Appropriate Byte Counting, RFC 3465).
//!
//! The window logic only; NewReno's recovery mechanics (fast retransmit, inflation, partial
//! ACKs) live in the TCP sender.
//!
//! - slow start (`cwnd < ssthresh`): `cwnd += min(acked, L·MSS)` per ACK with L = 2
//!   (RFC 3465 §2.2), not beyond `ssthresh`;
//! - congestion avoidance: byte counting, `+1 MSS` once a full `cwnd` of bytes has been
//!   acknowledged (RFC 5681 §3.1, RFC 3465 §2.1);
//! - fast retransmit: `ssthresh = max(FlightSize·β, 2·MSS)` with β = 1/2 (RFC 5681 eq. 4),
//!   `cwnd = ssthresh` (the sender adds the inflation during recovery, RFC 6582 exits with
//!   `cwnd = ssthresh`);
//! - timeout: same `ssthresh`, `cwnd = 1 MSS` (the loss window, RFC 5681 §3.1).
//!
//! The window only grows while it limits the sender (as Linux's `tcp_is_cwnd_limited`),
//! see [`is_cwnd_limited`]: an application- or receive-window-limited flow does not inflate
//! `cwnd` beyond what it uses.

use cellshare_core::Nanos;

use super::{
    idle_restart, reno_undo, AckEvent, CcContext, CcParams, CcTrace, CongestionControl,
    IdleRestart, LossEvent, UndoEvent,
};

/// Reno parameters.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RenoConfig {
    /// Appropriate Byte Counting limit L in segments: slow start grows `cwnd` by at most
    /// `L·MSS` per ACK. Default 2 (RFC 3465 §2.2).
    pub abc_limit: u32,
    /// Multiplicative decrease factor: `ssthresh = max(FlightSize·beta, 2·MSS)` on loss.
    /// Default 0.5 (RFC 5681 eq. 4).
    pub beta: f64,
    /// Initial slow-start threshold in bytes; `None` (default) = unlimited (RFC 5681 §3.1
    /// "arbitrarily high").
    pub initial_ssthresh: Option<u64>,
}

impl Default for RenoConfig {
    fn default() -> Self {
        Self {
            abc_limit: 2,
            beta: 0.5,
            initial_ssthresh: None,
        }
    }
}

impl CcParams for RenoConfig {
    /// Checks every field, naming the first bad one.
    fn validate(&self) -> Result<(), String> {
        if self.abc_limit == 0 {
            return Err("abc_limit must be >= 1 segment, got 0".into());
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(format!("beta must be in (0, 1), got {}", self.beta));
        }
        if self.initial_ssthresh == Some(0) {
            return Err("initial_ssthresh must be > 0 bytes, got 0".into());
        }
        Ok(())
    }

    fn build(&self, ctx: &CcContext) -> Box<dyn CongestionControl> {
        Box::new(Reno::new(self, ctx.mss, ctx.initial_window))
    }
}

/// Linux `tcp_reno_cong_avoid` growth on `acked` newly acknowledged bytes: slow start below
/// `ssthresh` (cwnd += acked, up to ssthresh; RFC 5681 §3.1, Linux `tcp_slow_start`), then one
/// MSS per window of acknowledged bytes, with the remainder carried in `ca_acked` (RFC 3465
/// byte counting; Linux `tcp_cong_avoid_ai`). Shared by the controllers that fall back to
/// Reno behaviour (Vegas, TCP-LP).
pub fn reno_cong_avoid(cwnd: &mut u64, ca_acked: &mut u64, ssthresh: u64, mss: u64, acked: u64) {
    let mut acked = acked;
    if *cwnd < ssthresh {
        let used = acked.min(ssthresh - *cwnd);
        *cwnd += used;
        acked -= used;
        if acked == 0 {
            return;
        }
    }
    *ca_acked += acked;
    if *ca_acked >= *cwnd {
        let segments = *ca_acked / *cwnd;
        *ca_acked -= segments * *cwnd;
        *cwnd += segments * mss;
    }
}

/// Linux `tcp_reno_cong_avoid` on one ACK, the whole of it: nothing during recovery or for
/// an ACK of no new data; nothing unless the window limited the sender
/// ([`is_cwnd_limited`]); else [`reno_cong_avoid`] on the acknowledged bytes. The growth
/// of the controllers that, like Linux's `tcp_westwood`, call Reno's.
pub fn tcp_reno_cong_avoid(
    cwnd: &mut u64,
    ca_acked: &mut u64,
    ssthresh: u64,
    mss: u64,
    ev: &AckEvent,
) {
    if ev.in_recovery || ev.acked_bytes == 0 {
        return;
    }
    if !is_cwnd_limited(*cwnd, *cwnd < ssthresh, ev) {
        return;
    }
    reno_cong_avoid(cwnd, ca_acked, ssthresh, mss, ev.acked_bytes);
}

/// Whether the window limited the sender when this ACK arrived (Linux
/// `tcp_is_cwnd_limited`): in slow start, `cwnd < 2·prior_in_flight` (so `cwnd` may grow
/// to twice what is in use); in congestion avoidance, the flight filled `cwnd` to within
/// one segment.
pub fn is_cwnd_limited(cwnd: u64, in_slow_start: bool, ev: &AckEvent) -> bool {
    if in_slow_start {
        cwnd < 2 * ev.prior_in_flight
    } else {
        ev.prior_in_flight + ev.mss as u64 > cwnd
    }
}

/// The Reno controller (NewReno when driven by [`crate::tcp::TcpSender`]).
#[derive(Clone, Debug)]
pub struct Reno {
    cfg: RenoConfig,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// RFC 3465 `bytes_acked` counter for congestion avoidance.
    bytes_acked: u64,
    in_recovery: bool,
}

impl Reno {
    /// A controller starting with `initial_window_bytes` (e.g. 10·MSS, RFC 6928).
    pub fn new(cfg: &RenoConfig, mss: u32, initial_window_bytes: u64) -> Reno {
        Reno {
            cfg: cfg.clone(),
            mss: mss as u64,
            cwnd: initial_window_bytes.max(mss as u64),
            ssthresh: cfg.initial_ssthresh.unwrap_or(u64::MAX),
            bytes_acked: 0,
            in_recovery: false,
        }
    }

    fn reduced_ssthresh(&self, flight: u64) -> u64 {
        ((flight as f64 * self.cfg.beta) as u64).max(2 * self.mss)
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.in_recovery = ev.in_recovery;
        if ev.in_recovery || ev.acked_bytes == 0 {
            return;
        }
        let slow_start = self.cwnd < self.ssthresh;
        if !is_cwnd_limited(self.cwnd, slow_start, ev) {
            return;
        }
        if slow_start {
            // RFC 5681 §3.1 eq. 2 with RFC 3465 ABC: cwnd += min(N, L·SMSS).
            let inc = ev.acked_bytes.min(self.cfg.abc_limit as u64 * self.mss);
            self.cwnd = (self.cwnd + inc).min(self.ssthresh.max(self.cwnd));
        } else {
            // RFC 3465 §2.1: once bytes_acked >= cwnd, subtract cwnd and add one SMSS.
            self.bytes_acked += ev.acked_bytes;
            if self.bytes_acked >= self.cwnd {
                self.bytes_acked -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.ssthresh = self.reduced_ssthresh(ev.bytes_in_flight);
        self.cwnd = self.ssthresh;
        self.bytes_acked = 0;
        self.in_recovery = true;
    }

    fn on_timeout(&mut self, _now: Nanos, bytes_in_flight: u64, mss: u32) {
        self.ssthresh = self.reduced_ssthresh(bytes_in_flight);
        self.cwnd = mss as u64;
        self.bytes_acked = 0;
        self.in_recovery = false;
    }

    fn on_recovery_end(&mut self, _now: Nanos) {
        // RFC 6582 §3.2 step 3 (full ACK), option 2: cwnd = ssthresh.
        self.cwnd = self.ssthresh;
        self.in_recovery = false;
    }

    fn undo_cwnd(&mut self, ev: &UndoEvent) {
        // Linux `tcp_reno_undo_cwnd`: cwnd = max(cwnd, prior_cwnd); ssthresh restored.
        reno_undo(&mut self.cwnd, &mut self.ssthresh, ev);
        self.bytes_acked = 0;
        self.in_recovery = false;
    }

    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        // RFC 5681 §4.1, Linux `tcp_cwnd_restart`.
        (self.cwnd, self.ssthresh) = idle_restart(self.cwnd, self.ssthresh, ev);
        self.bytes_acked = 0;
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// Mode 0 = slow start, 1 = congestion avoidance, 2 = fast recovery; estimate = NaN.
    fn trace(&self) -> CcTrace {
        let mode = if self.in_recovery {
            2
        } else if self.cwnd < self.ssthresh {
            0
        } else {
            1
        };
        CcTrace {
            mode,
            estimate: f64::NAN,
            flag: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    const MSS: u32 = 1448;
    const M: u64 = MSS as u64;

    /// One RTT of ACKs: every segment of the window at the start of the round acknowledged,
    /// `per_ack` segments per ACK (2 = delayed ACKs). The sender refills the window after
    /// each ACK, so it is window-limited throughout.
    fn one_rtt(r: &mut Reno, per_ack: u64, now: Nanos) {
        let segs = r.cwnd() / M;
        let mut acked = 0;
        while acked < segs {
            let n = per_ack.min(segs - acked);
            let in_flight = r.cwnd() / M * M;
            let ev = AckEvent {
                now,
                acked_bytes: n * M,
                prior_in_flight: in_flight,
                bytes_in_flight: in_flight - n * M,
                mss: MSS,
                ..Default::default()
            };
            r.on_ack(&ev);
            acked += n;
        }
    }

    #[test]
    fn slow_start_doubles_per_rtt() {
        let mut r = Reno::new(&RenoConfig::default(), MSS, 10 * M);
        for (i, per_ack) in [1, 2, 2].into_iter().enumerate() {
            let before = r.cwnd();
            one_rtt(&mut r, per_ack, i as u64 * 100 * MS);
            assert_eq!(r.cwnd(), 2 * before, "round {i}");
        }
        assert_eq!(r.cwnd(), 80 * M);
    }

    #[test]
    fn abc_limits_stretch_acks() {
        let mut r = Reno::new(&RenoConfig::default(), MSS, 10 * M);
        let ev = AckEvent {
            acked_bytes: 8 * M,
            prior_in_flight: 10 * M,
            mss: MSS,
            ..Default::default()
        };
        r.on_ack(&ev);
        assert_eq!(r.cwnd(), 12 * M, "at most L = 2 MSS per ACK");
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_rtt() {
        let cfg = RenoConfig {
            initial_ssthresh: Some(20 * M),
            ..Default::default()
        };
        let mut r = Reno::new(&cfg, MSS, 20 * M);
        for i in 0..5 {
            one_rtt(&mut r, 2, i * 100 * MS);
            assert_eq!(r.cwnd(), (21 + i) * M);
        }
    }

    #[test]
    fn loss_halves_and_timeout_collapses() {
        let mut r = Reno::new(&RenoConfig::default(), MSS, 40 * M);
        r.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: 40 * M,
            mss: MSS,
        });
        assert_eq!((r.ssthresh(), r.cwnd()), (20 * M, 20 * M));
        // No growth during recovery.
        r.on_ack(&AckEvent {
            acked_bytes: 5 * M,
            prior_in_flight: 40 * M,
            in_recovery: true,
            mss: MSS,
            ..Default::default()
        });
        assert_eq!(r.cwnd(), 20 * M);
        r.on_recovery_end(0);
        assert_eq!(r.cwnd(), r.ssthresh());
        // Tiny flight: ssthresh floor of 2 MSS.
        r.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: 3 * M,
            mss: MSS,
        });
        assert_eq!(r.ssthresh(), 2 * M);
        let mut r = Reno::new(&RenoConfig::default(), MSS, 40 * M);
        r.on_timeout(0, 30 * M, MSS);
        assert_eq!((r.ssthresh(), r.cwnd()), (15 * M, M));
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let cfg = RenoConfig {
            initial_ssthresh: Some(20 * M),
            ..Default::default()
        };
        let mut r = Reno::new(&cfg, MSS, 20 * M);
        for _ in 0..100 {
            // Only 5 segments in flight against a 20-segment window (application-limited).
            r.on_ack(&AckEvent {
                acked_bytes: M,
                prior_in_flight: 5 * M,
                mss: MSS,
                ..Default::default()
            });
        }
        assert_eq!(r.cwnd(), 20 * M);
    }

    #[test]
    fn config_validation_names_the_field() {
        assert!(RenoConfig::default().validate().is_ok());
        let e = RenoConfig {
            beta: 1.5,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("beta"), "{e}");
        let e = RenoConfig {
            abc_limit: 0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("abc_limit"), "{e}");
    }
}
