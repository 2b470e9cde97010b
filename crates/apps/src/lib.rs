//! # cellshare-apps
//!
//! The applications the papers judge their mechanisms by, as sans-I/O state machines:
//!
//! - [`video_call`]: a real-time video call over UDP (RTP-like media, RTCP-like feedback)
//!   whose sending rate follows Google Congestion Control ([`gcc`]: the delay-based
//!   controller of draft-ietf-rmcat-gcc-02 §5 at the receiver, the loss-based one of §6 at
//!   the sender) — BoDe \[bode\] §VI-A's Skype and Hangouts calls;
//! - [`stream`]: adaptive video streaming over TCP (chunked video, bitrate ladder, player
//!   buffer) with the ABR algorithms of [`abr`] (BB, FESTIVE, BOLA, robustMPC) and the MPC
//!   paper's QoE ([`qoe`]) — BoDe §VI-B, the thesis's \[rsd-thesis\] YouTube start-up delay (§3.4.3);
//! - [`web`]: web page loads, a page as objects fetched over a few persistent HTTP/1.1
//!   connections ([`http`]) — the thesis's web page loading time (§3.4.3).
//!
//! An app is a set of **legs**, one-way channels between its server and its UE that the
//! engine carries as flows: TCP legs (a byte stream: the app writes bytes, the engine tells
//! it how many have been delivered in order at the far end) and UDP legs (datagrams the app
//! sends itself; the engine hands over each one that arrives). The engine calls the
//! [`App`] hooks — start, stop, timer, bytes delivered, datagram arrived — and carries out
//! the [`Action`]s the app leaves in its [`Io`]. One app object holds both ends (the server
//! and the UE side), which is what lets it keep one per-event record (a frame, a chunk, a
//! page) from the sender's decision to the receiver's outcome.
//!
//! Per-packet hooks allocate nothing: actions go into a buffer the engine reuses; records
//! grow by one entry per frame, chunk or page.
//!
//! Nothing here performs I/O or reads the wall clock; time is the simulator's integer ns.

#![warn(missing_docs)]

pub mod abr;
pub mod gcc;
pub mod http;
pub mod qoe;
pub mod stream;
pub mod video_call;
pub mod web;

use cellshare_core::Nanos;
use serde::Serialize;

pub use stream::{Stream, StreamConfig, StreamReport};
pub use video_call::{VideoCall, VideoCallConfig, VideoCallReport};
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
    /// Write `bytes` more on TCP leg `leg` (through the socket's send buffer at a UE).
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
}

/// A running app of any kind (the engine dispatches over this enum, not a trait object).
#[derive(Debug)]
pub enum Session {
    /// A video call.
    VideoCall(Box<VideoCall>),
    /// An adaptive stream.
    Stream(Box<Stream>),
    /// Web page loads.
    Web(Box<Web>),
}

/// Dispatches one [`App`] method over the variants.
macro_rules! dispatch {
    ($self:ident, $app:ident => $e:expr) => {
        match $self {
            Session::VideoCall($app) => $e,
            Session::Stream($app) => $e,
            Session::Web($app) => $e,
        }
    };
}

impl Session {
    /// `"video_call"`, `"stream"` or `"web"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Session::VideoCall(_) => "video_call",
            Session::Stream(_) => "stream",
            Session::Web(_) => "web",
        }
    }

    /// See [`App::start`].
    pub fn start(&mut self, now: Nanos, io: &mut Io) {
        dispatch!(self, a => a.start(now, io))
    }
    /// See [`App::stop`].
    pub fn stop(&mut self, now: Nanos, io: &mut Io) {
        dispatch!(self, a => a.stop(now, io))
    }
    /// See [`App::on_timer`].
    #[inline]
    pub fn on_timer(&mut self, now: Nanos, io: &mut Io) {
        dispatch!(self, a => a.on_timer(now, io))
    }
    /// See [`App::on_bytes`].
    #[inline]
    pub fn on_bytes(&mut self, now: Nanos, leg: u8, delivered: u64, io: &mut Io) {
        dispatch!(self, a => a.on_bytes(now, leg, delivered, io))
    }
    /// See [`App::on_datagram`].
    #[inline]
    pub fn on_datagram(&mut self, now: Nanos, leg: u8, d: &Datagram, io: &mut Io) {
        dispatch!(self, a => a.on_datagram(now, leg, d, io))
    }
    /// See [`App::next_timer`].
    #[inline]
    pub fn next_timer(&self) -> Option<Nanos> {
        dispatch!(self, a => a.next_timer())
    }

    /// What the app measured, over the run that ends at `end`.
    pub fn report(&self, end: Nanos) -> Report {
        match self {
            Session::VideoCall(a) => Report::VideoCall(a.report(end)),
            Session::Stream(a) => Report::Stream(a.report(end)),
            Session::Web(a) => Report::Web(a.report(end)),
        }
    }
}

/// What an app measured.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Report {
    /// A video call's frames.
    VideoCall(VideoCallReport),
    /// A stream's chunks and QoE.
    Stream(StreamReport),
    /// Page loads.
    Web(WebReport),
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
