//! # cellshare-apps
//!
//! The applications the papers judge their mechanisms by, as sans-I/O state machines:
//!
//! - [`ping`] and [`game`]: request/response over TCP (a messenger, the thesis's
//!   \[rsd-thesis\] KakaoTalk, §3.4.2; small frequent game messages), and [`voip`]: voice
//!   datagrams echoed by the far end (Skype) — the per-request RTT a user feels;
//! - [`video_call`]: a real-time video call over UDP (RTP-like media, RTCP-like feedback)
//!   whose sending rate follows Google Congestion Control ([`gcc`]: the delay-based
//!   controller of draft-ietf-rmcat-gcc-02 §5 at the receiver, the loss-based one of §6 at
//!   the sender) — BoDe \[bode\] §VI-A's Skype and Hangouts calls;
//! - [`stream`]: adaptive video streaming over TCP (chunked video, bitrate ladder, player
//!   buffer) with the ABR algorithms of [`abr`] (BB, FESTIVE, BOLA, robustMPC) and the MPC
//!   paper's QoE ([`qoe`]) — BoDe §VI-B, the thesis's YouTube start-up delay (§3.4.3);
//! - [`web`]: web page loads, a page as objects fetched over a few persistent HTTP/1.1
//!   connections ([`http`]) — the thesis's web page loading time (§3.4.3).
//!
//! An app is a set of **legs**, one-way channels between its server and its UE that the
//! engine carries as flows: TCP legs (a byte stream: the app writes bytes, the engine tells
//! it how many have been delivered in order at the far end) and UDP legs (datagrams the app
//! sends itself, or that the flow's own rate-driven transport sends once the app writes;
//! the engine hands over each one that arrives). The engine calls the [`App`] hooks —
//! start, stop, timer, bytes delivered, datagram arrived — and carries out the [`Action`]s
//! the app leaves in its [`Io`]. One app object holds both ends (the server and the UE
//! side), which is what lets it keep one per-event record (a request, a frame, a chunk, a
//! page) from the sender's decision to the receiver's outcome.
//!
//! An app is its file and one line of the registry in this file (the macro is in
//! `registry.rs`): the line declares the file's module, and makes the app's configuration,
//! which implements [`AppSpec`] (its `kind`, legs, checks, the transport it needs, its
//! memory estimate), a variant of [`AppConfig`] (`app = { kind = "..." }` in a `[[flows]]`
//! entry), its running app a variant of [`Session`] and its report a variant of [`Report`].
//! docs/extending/app.md walks through a complete one.
//!
//! Per-packet hooks allocate nothing: actions go into a buffer the engine reuses; records
//! grow by one entry per request, frame, chunk or page.
//!
//! Nothing here performs I/O or reads the wall clock; time is the simulator's integer ns.

#![warn(missing_docs)]

pub mod abr;
pub mod gcc;
pub mod http;
pub mod memory;
pub mod qoe;
#[macro_use]
mod registry;

// The apps, one line each: the variant's doc comment (the `kind`'s description in the
// scenario reference) and `Variant(module::ConfigType)`, where `module` is the app's file
// (`src/<module>.rs`, declared by the line) and `ConfigType` implements [`AppSpec`]. The
// variant's name in snake case is the `kind` a scenario writes. See `registry.rs`.
registry! {
    /// A messenger-like ping over the flow's TCP transport.
    Ping(ping::PingConfig),
    /// A game-like flow of small frequent messages over the flow's TCP transport.
    Game(game::GameConfig),
    /// VoIP-like: the flow's `cbr` (UDP) transport carries the voice datagrams, each echoed.
    Voip(voip::VoipConfig),
    /// A real-time video call over UDP (`transport = { kind = "udp" }`) whose rate follows
    /// Google Congestion Control; legs `<name>` (media) and `<name>.feedback`. Per-frame
    /// results: the `video_frames` table. See docs/apps.md.
    VideoCall(video_call::VideoCallConfig),
    /// Adaptive video streaming over the flow's TCP transport with an ABR algorithm (BB,
    /// FESTIVE, BOLA, robustMPC); legs `<name>` (chunks) and `<name>.request`. Per-chunk
    /// results: the `stream_chunks` table. Downlink only.
    Stream(stream::StreamConfig),
    /// Web page loads over `connections` persistent TCP connections; legs `<name>`,
    /// `<name>.request`, `<name>.c1`, `<name>.c1.request`, …. Per-page results: the
    /// `page_loads` table. Downlink only.
    Web(web::WebConfig),
    /// A heartbeat: a small request every `interval_ms`, answered by the server; the worked
    /// example of docs/extending/app.md, compiled from that page's file and registered only
    /// with the `example-app` feature (the simulator's tests turn it on).
    #[cfg(feature = "example-app")]
    #[path = "../../../docs/extending/app_example.rs"]
    Heartbeat(heartbeat::HeartbeatConfig),
}

use std::fmt::Debug;

use cellshare_core::time::to_secs_f64;
use cellshare_core::{Nanos, MS};
use serde::Serialize;

pub use game::GameConfig;
pub use ping::{PingConfig, RequestResponse};
pub use memory::{MemoryContext, MemoryUse};
pub use stream::{Stream, StreamConfig, StreamReport};
pub use video_call::{VideoCall, VideoCallConfig, VideoCallReport};
pub use voip::{Voip, VoipConfig};
pub use web::{Web, WebConfig, WebReport};

/// A datagram of a UDP leg, as the app fills it and as the far end receives it. The engine
/// carries the fields in its packet record (`seq`, `app_tag`, `ts_val`, `ts_ecr`); their
/// meaning belongs to the app (see [`video_call`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Datagram {
    /// A sequence number.
    pub seq: u64,
    /// An app-defined 64-bit field.
    pub tag: u64,
    /// An app-defined 32-bit field.
    pub a: u32,
    /// An app-defined 32-bit field.
    pub b: u32,
    /// UDP payload bytes (the engine adds the IP + UDP headers).
    pub payload: u32,
    /// When it was sent (set by the engine).
    pub sent_at: Nanos,
}

/// What an app asks the engine to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Write `bytes` more on leg `leg`: a TCP leg's byte stream (through the socket's send
    /// buffer at a UE), or what a UDP leg's own rate-driven transport (`cbr`) sends
    /// (`u64::MAX`: until the leg stops).
    Write {
        /// The leg.
        leg: u8,
        /// Payload bytes.
        bytes: u64,
    },
    /// Send a datagram on UDP leg `leg` now.
    Send {
        /// The leg.
        leg: u8,
        /// The datagram.
        datagram: Datagram,
    },
    /// Stop writing on leg `leg`: what the leg's transport has not sent yet is dropped
    /// (what is in flight still arrives and is repaired).
    Stop {
        /// The leg.
        leg: u8,
    },
}

/// Where an app leaves its actions for the engine (a buffer the engine reuses).
#[derive(Debug, Default)]
pub struct Io {
    actions: Vec<Action>,
}

impl Io {
    /// Writes `bytes` more on TCP leg `leg`.
    #[inline]
    pub fn write(&mut self, leg: u8, bytes: u64) {
        if bytes > 0 {
            self.actions.push(Action::Write { leg, bytes });
        }
    }

    /// Stops writing on leg `leg` (see [`Action::Stop`]).
    #[inline]
    pub fn stop(&mut self, leg: u8) {
        self.actions.push(Action::Stop { leg });
    }

    /// Sends `datagram` on UDP leg `leg`.
    #[inline]
    pub fn send(&mut self, leg: u8, datagram: Datagram) {
        self.actions.push(Action::Send { leg, datagram });
    }

    /// The actions left so far, in order.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// Forgets the actions (keeps the buffer).
    pub fn clear(&mut self) {
        self.actions.clear();
    }
}

/// One leg of an app: a one-way channel the engine carries as a flow named
/// `<flow name><suffix>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegSpec {
    /// Appended to the flow's name (`""` for the first leg, which carries the name itself).
    pub suffix: LegName,
    /// A TCP byte stream (`true`) or UDP datagrams.
    pub tcp: bool,
    /// Whether data goes against the app's direction: for a downlink app (content from the
    /// server to the UE, the default) a reverse leg carries what the UE sends (requests,
    /// feedback).
    pub reverse: bool,
    /// For a TCP leg: whether its sender opens the connection (the client's legs); the other
    /// TCP legs ride on its handshake.
    pub opens: bool,
}

/// A leg's name suffix: fixed, or numbered for the web's connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegName {
    /// A fixed suffix.
    Fixed(&'static str),
    /// Connection `k`'s download (`.c<k>`) or request (`.c<k>.request`) leg, k ≥ 1.
    Connection(u32, bool),
}

impl LegName {
    /// The suffix as text.
    pub fn text(&self) -> String {
        match *self {
            LegName::Fixed(s) => s.to_string(),
            LegName::Connection(k, false) => format!(".c{k}"),
            LegName::Connection(k, true) => format!(".c{k}.request"),
        }
    }
}

/// The hooks the engine calls. Every hook may leave actions in `io`; after each call the
/// engine re-arms the app's timer at [`App::next_timer`].
pub trait App {
    /// The app starts (the flow's `start_s`).
    fn start(&mut self, now: Nanos, io: &mut Io);
    /// The app stops (the flow's `stop_s`): it sends nothing new; what is in flight arrives.
    fn stop(&mut self, now: Nanos, io: &mut Io);
    /// The timer the app asked for is due.
    fn on_timer(&mut self, now: Nanos, io: &mut Io);
    /// In-order bytes delivered at the far end of TCP leg `leg` now total `delivered`.
    fn on_bytes(&mut self, now: Nanos, leg: u8, delivered: u64, io: &mut Io);
    /// Datagram `d` arrived at the far end of UDP leg `leg`.
    fn on_datagram(&mut self, now: Nanos, leg: u8, d: &Datagram, io: &mut Io);
    /// When the app next wants [`App::on_timer`], if ever.
    fn next_timer(&self) -> Option<Nanos>;

    /// What the app measures.
    type Report: AppReport;
    /// What the app measured over the run that ends at `end`; `legs` are the engine's
    /// counts of each leg, in leg order.
    fn report(&self, end: Nanos, legs: &[LegCounts]) -> Self::Report;
}

/// An app's configuration: one variant of [`AppConfig`] (one line of the registry).
/// The simulator checks the flow entry against it and builds the app from it.
pub trait AppSpec {
    /// The running app.
    type App: App;
    /// The `kind` that selects the app (the registry's variant name in snake case).
    const KIND: &'static str;
    /// The transport the flow entry must declare.
    const TRANSPORT: TransportKind;
    /// Whether only `direction = "downlink"` fits (the server sends the content).
    const DOWNLINK_ONLY: bool = false;
    /// Whether the UE needs a modelled uplink (`ues[i].uplink`); without one what the UE
    /// sends takes the fixed uplink delay, as ACKs do.
    const NEEDS_UPLINK: bool = false;
    /// Checks the parameters; errors name the key below `app`.
    fn validate(&self) -> Result<(), ParamError>;
    /// The legs, the first being the flow entry's own.
    fn legs(&self) -> Vec<LegSpec>;
    /// The app for one UE of the flow entry.
    fn build(&self, ctx: &AppContext) -> Self::App;
    /// What one session holds, for the memory estimate before a run (see [`memory`]): by
    /// default its state only ([`MemoryUse::SESSION`]); an app keeping per-event records
    /// says how many it keeps over `ctx.active_s`.
    fn memory(&self, _ctx: &MemoryContext) -> MemoryUse {
        MemoryUse::SESSION
    }
}

/// The transport a flow entry with an app must declare (`transport.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportKind {
    /// `"tcp"`: the legs are TCP connections.
    Tcp,
    /// `"udp"`: the app sends its datagrams itself.
    Udp,
    /// `"cbr"`: constant-rate datagrams sent by the transport once the app writes.
    Cbr,
}

impl TransportKind {
    /// What an error about `transport.kind` expects.
    pub fn expected(self) -> &'static str {
        match self {
            TransportKind::Tcp => "\"tcp\"",
            TransportKind::Udp => "\"udp\"",
            TransportKind::Cbr => "\"cbr\" (UDP)",
        }
    }
}

/// What the engine tells an app when building it.
#[derive(Clone, Copy, Debug)]
pub struct AppContext {
    /// The scenario's seed.
    pub seed: u64,
    /// The index of the app's first leg among the run's flows (seeds the app's own draws).
    pub index: u64,
    /// When the flow entry starts.
    pub start: Nanos,
    /// When it stops (its `stop_s`, or the end of the run).
    pub stop: Nanos,
}

/// The engine's counts of one leg, for [`App::report`].
#[derive(Clone, Copy, Debug, Default)]
pub struct LegCounts {
    /// Datagrams its own rate-driven transport sent (`cbr`; 0 otherwise).
    pub datagrams_sent: u64,
}

/// What an app measured, as the results hold it.
pub trait AppReport: Serialize + Clone + Debug {
    /// The results' list of this report (`"video_calls"`, `"streams"`, …), or `"flows"` for
    /// a per-request record carried by the app's first flow ([`AppReport::flow_record`]).
    const TABLE: &'static str;
    /// The record on the first leg's flow (`flows[i].app`), for request/response apps.
    fn flow_record(&self) -> Option<&RttReport> {
        None
    }
}

/// What the user of a request/response app feels: request → whole response. Carried by
/// the app's first flow (`flows[i].app`).
#[derive(Clone, Debug, Serialize)]
pub struct RttReport {
    /// `"ping"`, `"game"` or `"voip"`.
    pub kind: &'static str,
    /// Requests issued (VoIP: datagrams sent).
    pub requests: u64,
    /// Requests completed (response or echo received).
    pub completed: u64,
    /// Median RTT, ms (NaN, serialized as null, without completed requests).
    pub rtt_p50_ms: f64,
    /// 95th-percentile RTT, ms.
    pub rtt_p95_ms: f64,
    /// Mean RTT, ms.
    pub rtt_mean_ms: f64,
    /// Largest RTT, ms.
    pub rtt_max_ms: f64,
    /// Completion time of each completed request, s (the per-request table).
    pub t_s: Vec<f64>,
    /// RTT of each completed request, ms, in completion order.
    pub rtt_ms: Vec<f64>,
}

impl AppReport for RttReport {
    const TABLE: &'static str = "flows";
    fn flow_record(&self) -> Option<&RttReport> {
        Some(self)
    }
}

/// The completed requests of a request/response app: (completion time, RTT) each.
#[derive(Clone, Debug, Default)]
pub struct Rtts {
    t_s: Vec<f64>,
    rtt_ms: Vec<f64>,
}

impl Rtts {
    /// Room for `n` requests (one allocation up front; at most 2^20).
    pub fn with_capacity(n: usize) -> Self {
        let n = n.min(1 << 20);
        Self { t_s: Vec::with_capacity(n), rtt_ms: Vec::with_capacity(n) }
    }

    /// Records one request completed at `now` after `rtt`.
    #[inline]
    pub fn record(&mut self, now: Nanos, rtt: Nanos) {
        self.t_s.push(to_secs_f64(now));
        self.rtt_ms.push(rtt as f64 / MS as f64);
    }

    /// Requests completed.
    pub fn len(&self) -> usize {
        self.rtt_ms.len()
    }

    /// Whether none completed.
    pub fn is_empty(&self) -> bool {
        self.rtt_ms.is_empty()
    }

    /// The report of app `kind` that issued `requests`.
    pub fn report(&self, kind: &'static str, requests: u64) -> RttReport {
        let mut sorted = self.rtt_ms.clone();
        sorted.sort_by(f64::total_cmp);
        RttReport {
            kind,
            requests,
            completed: sorted.len() as u64,
            rtt_p50_ms: percentile(&sorted, 0.5),
            rtt_p95_ms: percentile(&sorted, 0.95),
            rtt_mean_ms: mean(&sorted),
            rtt_max_ms: sorted.last().copied().unwrap_or(f64::NAN),
            t_s: self.t_s.clone(),
            rtt_ms: self.rtt_ms.clone(),
        }
    }
}

/// Nearest-rank percentile `q` (0..=1) of `sorted` (NaN when empty).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Mean of `xs` (NaN when empty).
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        f64::NAN
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// A parameter error: (key below the app's table, the value, what was expected).
pub type ParamError = (String, String, String);

/// Checks that `v` is finite and in `[lo, hi]`.
pub(crate) fn check_range(key: &str, v: f64, lo: f64, hi: f64, what: &str) -> Result<(), ParamError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err((key.to_string(), v.to_string(), what.to_string()))
    }
}
