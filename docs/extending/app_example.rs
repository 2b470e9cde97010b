//! Heartbeat: a keep-alive probe. The requester sends a `bytes`-byte heartbeat on a TCP
//! connection; the far end answers each one with as many bytes; `interval_ms` after an
//! answer arrives the next heartbeat leaves (closed loop: at most one is outstanding). Its
//! RTTs go to the first flow's `app` record, like a ping's.
//!
//! The requester sits at the server for `direction = "downlink"` (the default) and at the
//! UE for `"uplink"`.

use cellshare_core::{Nanos, MS};
use serde::{Deserialize, Serialize};

use crate::{App, AppContext, AppSpec, Datagram, Io, LegCounts, LegName, LegSpec, MemoryContext, MemoryUse, ParamError, RttReport, Rtts, TransportKind};

/// `flows[i].app = { kind = "heartbeat", ... }`: what a scenario may set (and its checks).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HeartbeatConfig {
    /// Pause between an answer and the next heartbeat, ms (1 to 3,600,000). Default 500.
    pub interval_ms: f64,
    /// Heartbeat and answer size, payload bytes (1 to 65536). Default 40.
    pub bytes: u32,
}

impl Default for HeartbeatConfig {
    fn default() -> Self { Self { interval_ms: 500.0, bytes: 40 } }
}

impl AppSpec for HeartbeatConfig {
    type App = Heartbeat;
    const KIND: &'static str = "heartbeat"; // the registry's variant `Heartbeat`, in snake case
    const TRANSPORT: TransportKind = TransportKind::Tcp;

    fn validate(&self) -> Result<(), ParamError> {
        crate::check_range("interval_ms", self.interval_ms, 1.0, 3_600_000.0, "an interval in ms in [1, 3600000]")?;
        if !(1..=65_536).contains(&self.bytes) {
            return Err(("bytes".into(), self.bytes.to_string(), "payload bytes in 1..=65536".into()));
        }
        Ok(())
    }

    /// Leg 0 carries the heartbeats (its sender opens the connection), leg 1 the answers.
    fn legs(&self) -> Vec<LegSpec> {
        vec![
            LegSpec { suffix: LegName::Fixed(""), tcp: true, reverse: false, opens: true },
            LegSpec { suffix: LegName::Fixed(".answer"), tcp: true, reverse: true, opens: false },
        ]
    }

    fn build(&self, ctx: &AppContext) -> Heartbeat {
        let interval = (self.interval_ms * MS as f64).round() as Nanos;
        Heartbeat { interval, bytes: self.bytes as u64, stop: ctx.stop, sent_at: 0, next: None, beats: 0, answered: 0, rtts: Rtts::default() }
    }

    /// For the memory estimate: its state and an RTT record per heartbeat, at most one per
    /// `interval_ms` over the active seconds (the estimate runs before `validate`).
    fn memory(&self, ctx: &MemoryContext) -> MemoryUse {
        MemoryUse::session(ctx.events(1e3 / MemoryContext::positive(self.interval_ms).max(1.0)))
    }
}

/// A running heartbeat: both ends in one object. No heartbeat leaves at or after `stop`;
/// `sent_at` is when the outstanding one left; `next` is the timer the engine arms; `beats`
/// were sent, `answered` answered by the far end.
#[derive(Debug)]
pub struct Heartbeat {
    interval: Nanos,
    bytes: u64,
    stop: Nanos,
    sent_at: Nanos,
    next: Option<Nanos>,
    beats: u64,
    answered: u64,
    rtts: Rtts,
}

impl Heartbeat {
    fn beat(&mut self, now: Nanos, io: &mut Io) {
        self.next = None;
        self.sent_at = now;
        self.beats += 1;
        io.write(0, self.bytes);
    }
}

impl App for Heartbeat {
    fn start(&mut self, now: Nanos, io: &mut Io) { self.beat(now, io); }

    fn stop(&mut self, _now: Nanos, _io: &mut Io) {
        self.stop = 0; // an outstanding heartbeat may still be answered; no new one leaves
        self.next = None;
    }

    fn on_timer(&mut self, now: Nanos, io: &mut Io) { self.beat(now, io); }

    /// `delivered` counts the in-order bytes at the far end of `leg` since the start.
    fn on_bytes(&mut self, now: Nanos, leg: u8, delivered: u64, io: &mut Io) {
        if leg == 0 && delivered / self.bytes > self.answered {
            self.answered += 1; // a whole heartbeat reached the far end: answer it
            io.write(1, self.bytes);
        } else if leg == 1 && delivered / self.bytes > self.rtts.len() as u64 {
            self.rtts.record(now, now - self.sent_at); // the answer is whole
            self.next = Some(now + self.interval).filter(|&t| t < self.stop);
        }
    }

    fn on_datagram(&mut self, _now: Nanos, _leg: u8, _d: &Datagram, _io: &mut Io) {}

    fn next_timer(&self) -> Option<Nanos> { self.next }

    type Report = RttReport;
    fn report(&self, _end: Nanos, _legs: &[LegCounts]) -> RttReport {
        self.rtts.report(HeartbeatConfig::KIND, self.beats)
    }
}
