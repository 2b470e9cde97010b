//! VoIP (Skype): the flow's `cbr` transport sends the voice datagrams; the far end echoes
//! each one at once with a `response_bytes` datagram; a datagram's RTT is the time from
//! sending it to receiving its echo (lost datagrams have none).
//!
//! Two UDP legs: the voice (the flow entry's own, sent by its `cbr` transport from the
//! app's start to its stop) and the echoes, `<name>.response`, in the opposite direction.
//! The UE needs a modelled uplink.

use cellshare_core::Nanos;
use serde::{Deserialize, Serialize};

use crate::{App, AppContext, AppSpec, Datagram, Io, LegCounts, LegName, LegSpec, MemoryContext, MemoryUse, ParamError, RttReport, Rtts, TransportKind};

/// `flows[i].app = { kind = "voip", ... }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoipConfig {
    /// Echo size, payload bytes (≥ 1). Default 160 (20 ms of G.711).
    #[serde(default = "default_bytes")]
    pub response_bytes: u32,
}

fn default_bytes() -> u32 {
    160
}

impl AppSpec for VoipConfig {
    type App = Voip;
    const KIND: &'static str = "voip";
    const TRANSPORT: TransportKind = TransportKind::Cbr;
    const NEEDS_UPLINK: bool = true;

    fn validate(&self) -> Result<(), ParamError> {
        if !(1..=65_507).contains(&self.response_bytes) {
            return Err(("response_bytes".into(), self.response_bytes.to_string(), "an echo size in 1..=65507 bytes".into()));
        }
        Ok(())
    }
    fn legs(&self) -> Vec<LegSpec> {
        vec![
            LegSpec { suffix: LegName::Fixed(""), tcp: false, reverse: false, opens: false },
            LegSpec { suffix: LegName::Fixed(".response"), tcp: false, reverse: true, opens: false },
        ]
    }
    fn build(&self, _ctx: &AppContext) -> Voip {
        Voip { echo_bytes: self.response_bytes, rtts: Rtts::default() }
    }
    /// A request per datagram the flow's `cbr` transport sends over the active seconds.
    fn memory(&self, ctx: &MemoryContext) -> MemoryUse {
        MemoryUse::requests(ctx.events(ctx.datagrams_per_s))
    }
}

const VOICE: u8 = 0;
const ECHO: u8 = 1;

/// A running VoIP echo.
#[derive(Debug)]
pub struct Voip {
    echo_bytes: u32,
    rtts: Rtts,
}

impl App for Voip {
    fn start(&mut self, _now: Nanos, io: &mut Io) {
        // The voice leg's `cbr` transport sends until the app stops.
        io.write(VOICE, u64::MAX);
    }

    fn stop(&mut self, _now: Nanos, io: &mut Io) {
        io.stop(VOICE);
    }

    fn on_timer(&mut self, _now: Nanos, _io: &mut Io) {}

    fn on_bytes(&mut self, _now: Nanos, _leg: u8, _delivered: u64, _io: &mut Io) {}

    fn on_datagram(&mut self, now: Nanos, leg: u8, d: &Datagram, io: &mut Io) {
        if leg == VOICE {
            // The echo carries the voice datagram's sequence number and send time.
            io.send(ECHO, Datagram { seq: d.seq, tag: d.sent_at, payload: self.echo_bytes, ..Datagram::default() });
        } else {
            self.rtts.record(now, now - d.tag);
        }
    }

    fn next_timer(&self) -> Option<Nanos> {
        None
    }

    type Report = RttReport;
    fn report(&self, _end: Nanos, legs: &[LegCounts]) -> RttReport {
        self.rtts.report(VoipConfig::KIND, legs[VOICE as usize].datagrams_sent)
    }
}
