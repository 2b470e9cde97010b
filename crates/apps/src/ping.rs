//! Ping: a messenger's request/response over TCP (the thesis \[rsd-thesis\] §3.4.2,
//! KakaoTalk), and [`RequestResponse`], the app it shares with [`crate::game`].
//!
//! Every `interval_ms` the requester writes `request_bytes` on its TCP leg (open loop:
//! requests do not wait for earlier responses); when the responder has received a request
//! whole it writes `response_bytes` on the response leg; request *k*'s RTT is the time from
//! writing it to receiving response *k* whole.
//!
//! Two legs, each one direction of the connection: the request leg (the flow entry's own,
//! from the requester, which opens the connection) and the response leg `<name>.response`.
//! The pure ACKs of each leg travel separately instead of being piggybacked on the other
//! leg's data (**a choice**: the sans-I/O endpoints are one-way; with requests and
//! responses a few hundred bytes apart in time, piggybacking would rarely apply anyway).
//! The requester sits at the UE for `direction = "uplink"` (a messenger or game client) and
//! at the server for `"downlink"`; the UE needs a modelled uplink.

use std::collections::VecDeque;

use cellshare_core::{Nanos, MS};
use serde::{Deserialize, Serialize};

use crate::{App, AppContext, AppSpec, Datagram, Io, LegCounts, LegName, LegSpec, MemoryContext, MemoryUse, ParamError, RttReport, Rtts, TransportKind};

/// `flows[i].app = { kind = "ping", ... }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingConfig {
    /// Time between requests, ms (0.1 to 3,600,000). Default 1000.
    #[serde(default = "default_interval")]
    pub interval_ms: f64,
    /// Request size, payload bytes (≥ 1). Default 100.
    #[serde(default = "default_bytes")]
    pub request_bytes: u32,
    /// Response size, payload bytes (≥ 1). Default 100.
    #[serde(default = "default_bytes")]
    pub response_bytes: u32,
}

fn default_interval() -> f64 {
    1000.0
}
fn default_bytes() -> u32 {
    100
}

impl AppSpec for PingConfig {
    type App = RequestResponse;
    const KIND: &'static str = "ping";
    const TRANSPORT: TransportKind = TransportKind::Tcp;
    const NEEDS_UPLINK: bool = true;

    fn validate(&self) -> Result<(), ParamError> {
        validate(self.interval_ms, self.request_bytes, self.response_bytes)
    }
    fn legs(&self) -> Vec<LegSpec> {
        legs()
    }
    fn build(&self, ctx: &AppContext) -> RequestResponse {
        RequestResponse::new(Self::KIND, self.interval_ms, self.request_bytes, self.response_bytes, ctx)
    }
    /// A request every `interval_ms` over the active seconds.
    fn memory(&self, ctx: &MemoryContext) -> MemoryUse {
        crate::ping::memory(self.interval_ms, ctx)
    }
}

/// A request/response app's records: a request every `interval_ms` (at least 0.1 ms) over
/// the active seconds.
pub(crate) fn memory(interval_ms: f64, ctx: &MemoryContext) -> MemoryUse {
    MemoryUse::requests(ctx.events(1e3 / MemoryContext::positive(interval_ms).max(0.1)))
}

/// Checks a request/response app's parameters.
pub(crate) fn validate(interval_ms: f64, request_bytes: u32, response_bytes: u32) -> Result<(), ParamError> {
    // At least 0.1 ms: shorter intervals (down to ones that round to 0 ns and would never
    // let simulated time advance) are no ping or game.
    crate::check_range("interval_ms", interval_ms, 0.1, 3_600_000.0, "an interval in ms in [0.1, 3600000]")?;
    if request_bytes == 0 {
        return Err(("request_bytes".into(), "0".into(), "a request size in bytes >= 1".into()));
    }
    if response_bytes == 0 {
        return Err(("response_bytes".into(), "0".into(), "a response size in bytes >= 1".into()));
    }
    Ok(())
}

/// The legs of a request/response app: requests (the entry's direction; the requester
/// opens the connection) and responses (reverse).
pub(crate) fn legs() -> Vec<LegSpec> {
    vec![
        LegSpec { suffix: LegName::Fixed(""), tcp: true, reverse: false, opens: true },
        LegSpec { suffix: LegName::Fixed(".response"), tcp: true, reverse: true, opens: false },
    ]
}

const REQUEST: u8 = 0;
const RESPONSE: u8 = 1;

/// A running request/response app over TCP (ping, game).
#[derive(Debug)]
pub struct RequestResponse {
    kind: &'static str,
    interval: Nanos,
    request: u64,
    response: u64,
    /// No request is written at or after this time (the entry's stop, or the run's end).
    stop: Nanos,
    /// When the next request is due.
    next: Option<Nanos>,
    /// Write times of requests not yet answered, oldest first.
    pending: VecDeque<Nanos>,
    /// Requests written.
    requests: u64,
    /// Requests the responder has answered (responses written).
    served: u64,
    rtts: Rtts,
}

impl RequestResponse {
    /// App `kind` writing `request_bytes` every `interval_ms`, answered by `response_bytes`.
    pub fn new(kind: &'static str, interval_ms: f64, request_bytes: u32, response_bytes: u32, ctx: &AppContext) -> Self {
        let interval = (interval_ms * MS as f64).round() as Nanos;
        // Room for every request of the run: one allocation up front.
        let n = (ctx.stop.saturating_sub(ctx.start) / interval.max(1)) as usize + 1;
        Self {
            kind,
            interval,
            request: request_bytes as u64,
            response: response_bytes as u64,
            stop: ctx.stop,
            next: None,
            pending: VecDeque::with_capacity(n.min(1 << 20)),
            requests: 0,
            served: 0,
            rtts: Rtts::with_capacity(n),
        }
    }

    /// Writes the request due now and plans the next.
    fn tick(&mut self, now: Nanos, io: &mut Io) {
        self.next = None;
        if now >= self.stop {
            return;
        }
        self.pending.push_back(now);
        self.requests += 1;
        self.next = Some(now + self.interval).filter(|&t| t < self.stop);
        io.write(REQUEST, self.request);
    }
}

impl App for RequestResponse {
    fn start(&mut self, now: Nanos, io: &mut Io) {
        self.tick(now, io);
    }

    fn stop(&mut self, _now: Nanos, io: &mut Io) {
        self.next = None;
        io.stop(REQUEST);
    }

    fn on_timer(&mut self, now: Nanos, io: &mut Io) {
        self.tick(now, io);
    }

    fn on_bytes(&mut self, now: Nanos, leg: u8, delivered: u64, io: &mut Io) {
        if leg == REQUEST {
            // The responder answers every request now whole.
            let complete = delivered / self.request;
            if complete > self.served {
                let n = complete - self.served;
                self.served = complete;
                io.write(RESPONSE, n * self.response);
            }
        } else {
            // Every response now whole completes its request.
            let complete = delivered / self.response;
            while (self.rtts.len() as u64) < complete {
                let Some(t0) = self.pending.pop_front() else { break };
                self.rtts.record(now, now - t0);
            }
        }
    }

    fn on_datagram(&mut self, _now: Nanos, _leg: u8, _d: &Datagram, _io: &mut Io) {}

    fn next_timer(&self) -> Option<Nanos> {
        self.next
    }

    type Report = RttReport;
    fn report(&self, _end: Nanos, _legs: &[LegCounts]) -> RttReport {
        self.rtts.report(self.kind, self.requests)
    }
}
