//! AIMD, the smallest complete congestion controller: additive increase of `a` segments per
//! round trip, multiplicative decrease to `b·cwnd` on a loss (Chiu & Jain's rule, which
//! Reno instantiates with a = 1, b = ½). No slow start, so the window starts at the
//! initial window and climbs one step per round trip.
//!
//! The TCP sender does the rest: it counts what is in flight, retransmits, and runs loss
//! recovery (SACK and PRR); the controller only owns `cwnd` and `ssthresh`.

use cellshare_core::Nanos;

use super::{AckEvent, CcContext, CcParams, CongestionControl, LossEvent};

/// The scenario's keys: `cc = { kind = "aimd_example", increase_segments = 1, decrease = 0.5 }`.
/// The derives give the TOML/JSON shape and the schema the scenario reference shows; the
/// doc comments become that reference's descriptions.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AimdConfig {
    /// Additive increase a: segments added to `cwnd` per round trip. Default 1.
    pub increase_segments: u32,
    /// Multiplicative decrease b: the share of `cwnd` kept after a loss, in (0, 1). Default 0.5.
    pub decrease: f64,
}

impl Default for AimdConfig {
    fn default() -> Self {
        Self {
            increase_segments: 1,
            decrease: 0.5,
        }
    }
}

impl CcParams for AimdConfig {
    /// One line per bad key: `key must be EXPECTED, got VALUE` (the scenario's error then
    /// reads `` `flows[0].transport.cc.decrease`: got 1.5, expected in (0, 1) ``).
    fn validate(&self) -> Result<(), String> {
        if self.increase_segments == 0 {
            return Err("increase_segments must be >= 1 segment, got 0".into());
        }
        if !(self.decrease > 0.0 && self.decrease < 1.0) {
            return Err(format!("decrease must be in (0, 1), got {}", self.decrease));
        }
        Ok(())
    }

    fn build(&self, ctx: &CcContext) -> Box<dyn CongestionControl> {
        let mss = ctx.mss.max(1) as u64;
        Box::new(Aimd {
            mss,
            increase: self.increase_segments as u64 * mss,
            decrease: self.decrease,
            cwnd: ctx.initial_window.max(mss),
            ssthresh: u64::MAX,
            acked: 0,
        })
    }
}

/// The controller: its whole state is the window and a byte counter.
#[derive(Clone, Debug)]
pub struct Aimd {
    mss: u64,
    /// a·MSS, bytes added per round trip.
    increase: u64,
    decrease: f64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged since the last increase (RFC 3465 byte counting).
    acked: u64,
}

impl CongestionControl for Aimd {
    fn name(&self) -> &'static str {
        "aimd_example"
    }

    /// Additive increase: one step of a·MSS per `cwnd` of acknowledged bytes, i.e. per round
    /// trip. Nothing during fast recovery (the trait's rule) or for a duplicate ACK.
    fn on_ack(&mut self, ev: &AckEvent) {
        if ev.in_recovery || ev.acked_bytes == 0 {
            return;
        }
        self.acked += ev.acked_bytes;
        if self.acked >= self.cwnd {
            self.acked -= self.cwnd;
            self.cwnd += self.increase;
        }
    }

    /// Multiplicative decrease, once per loss episode (fast retransmit): the window the
    /// sender returns to when recovery ends.
    fn on_congestion_event(&mut self, _ev: &LossEvent) {
        self.ssthresh = ((self.cwnd as f64 * self.decrease) as u64).max(2 * self.mss);
        self.cwnd = self.ssthresh;
        self.acked = 0;
    }

    /// A retransmission timeout: everything in flight is presumed lost, so the window
    /// restarts from one segment (RFC 5681's loss window) and climbs additively again.
    /// (Reno would slow-start back to `ssthresh`; see `crates/transport/src/cc/reno.rs`.)
    fn on_timeout(&mut self, _now: Nanos, bytes_in_flight: u64, _mss: u32) {
        self.ssthresh = ((bytes_in_flight as f64 * self.decrease) as u64).max(2 * self.mss);
        self.cwnd = self.mss;
        self.acked = 0;
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
}
