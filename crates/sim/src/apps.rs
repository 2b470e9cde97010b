//! Interactive request/response applications and flow directions.
//!
//! An interactive app measures what a user feels: the time from writing a request to
//! receiving the whole response. It runs as **two legs**, each a one-way flow of the
//! engine: the request leg (from the requester to the responder; its results carry the
//! per-request RTTs) and the response leg, named `<name>.response`, in the opposite
//! direction. For a TCP app (ping, game) each leg is one direction of the connection; the
//! pure ACKs of each leg travel separately instead of being piggybacked on the other leg's
//! data (**a choice**: the sans-I/O endpoints are one-way; with requests and responses a
//! few hundred bytes apart in time, piggybacking would rarely apply anyway). The
//! requester sits at the UE for `direction = "uplink"` (a messenger or game client) and at
//! the server for `"downlink"`.
//!
//! - `ping` (a messenger, thesis §3.4.2 KakaoTalk) and `game` (small frequent packets,
//!   Marble for all): every `interval_ms` the requester writes `request_bytes` on its TCP
//!   socket (open loop: requests do not wait for earlier responses); when the responder
//!   has received a request whole it writes `response_bytes`; request *k*'s RTT is the time
//!   from writing it to receiving response *k* whole.
//! - `voip` (Skype): the flow's `cbr` transport sends the voice datagrams; the responder
//!   echoes each one with a `response_bytes` datagram at once; the RTT of a datagram is the
//!   time from sending it to receiving its echo (lost datagrams have none).
//!
//! The applications the papers measure — `video_call`, `stream` and `web` — live in the
//! `cellshare-apps` crate (one file per app and per ABR algorithm, see docs/apps.md); their
//! configurations are variants of [`AppConfig`] and the engine drives them through
//! `engine/app_sessions.rs`. Each is a set of legs (flows named `<name>`, `<name>.request`,
//! `<name>.feedback`, …). Unlike the request/response apps above, they do not need a
//! modelled uplink: without one, what the UE sends takes the fixed uplink delay, as ACKs do.

use std::collections::VecDeque;

use cellshare_core::{Nanos, MS};
use serde::{Deserialize, Serialize};

use cellshare_apps::{LegSpec, StreamConfig, VideoCallConfig, WebConfig};

use crate::scenario::ScenarioError;
use crate::transport::TransportConfig;

/// Where a flow's data goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Server → UE through the cell (or shared FIFO).
    #[default]
    Downlink,
    /// UE → server through the UE's modelled uplink (`ues[i].uplink` required); the
    /// server's ACKs come back through the cell.
    Uplink,
}

impl Direction {
    /// The opposite direction.
    pub fn reverse(self) -> Self {
        match self {
            Direction::Downlink => Direction::Uplink,
            Direction::Uplink => Direction::Downlink,
        }
    }

    /// `"downlink"` or `"uplink"`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Downlink => "downlink",
            Direction::Uplink => "uplink",
        }
    }
}

/// `flows[i].app`: an application (`kind` selects it): an interactive request/response
/// app (ping, game, voip) or a video call, an adaptive stream or web page loads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// A messenger-like ping over the flow's TCP transport.
    Ping {
        /// Time between requests, ms (0.1 to 3,600,000). Default 1000.
        #[serde(default = "default_ping_interval")]
        interval_ms: f64,
        /// Request size, payload bytes (≥ 1). Default 100.
        #[serde(default = "default_ping_bytes")]
        request_bytes: u32,
        /// Response size, payload bytes (≥ 1). Default 100.
        #[serde(default = "default_ping_bytes")]
        response_bytes: u32,
    },
    /// A game-like flow of small frequent messages over the flow's TCP transport.
    Game {
        /// Time between requests, ms (0.1 to 3,600,000). Default 100.
        #[serde(default = "default_game_interval")]
        interval_ms: f64,
        /// Request size, payload bytes (≥ 1). Default 64.
        #[serde(default = "default_game_request")]
        request_bytes: u32,
        /// Response size, payload bytes (≥ 1). Default 256.
        #[serde(default = "default_game_response")]
        response_bytes: u32,
    },
    /// VoIP-like: the flow's `cbr` (UDP) transport carries the voice datagrams, each echoed.
    Voip {
        /// Echo size, payload bytes (≥ 1). Default 160 (20 ms of G.711).
        #[serde(default = "default_voip_bytes")]
        response_bytes: u32,
    },
    /// A real-time video call over UDP (`transport = { kind = "udp" }`) whose rate follows
    /// Google Congestion Control; legs `<name>` (media) and `<name>.feedback`. Per-frame
    /// results: the `video_frames` table. See docs/apps.md.
    VideoCall(VideoCallConfig),
    /// Adaptive video streaming over the flow's TCP transport with an ABR algorithm (BB,
    /// FESTIVE, BOLA, robustMPC); legs `<name>` (chunks) and `<name>.request`. Per-chunk
    /// results: the `stream_chunks` table. Downlink only.
    Stream(StreamConfig),
    /// Web page loads over `connections` persistent TCP connections; legs `<name>`,
    /// `<name>.request`, `<name>.c1`, `<name>.c1.request`, …. Per-page results: the
    /// `page_loads` table. Downlink only.
    Web(WebConfig),
}

fn default_ping_interval() -> f64 {
    1000.0
}
fn default_ping_bytes() -> u32 {
    100
}
fn default_game_interval() -> f64 {
    100.0
}
fn default_game_request() -> u32 {
    64
}
fn default_game_response() -> u32 {
    256
}
fn default_voip_bytes() -> u32 {
    160
}

impl AppConfig {
    /// `"ping"`, `"game"` or `"voip"`.
    pub fn kind(&self) -> &'static str {
        match self {
            AppConfig::Ping { .. } => "ping",
            AppConfig::Game { .. } => "game",
            AppConfig::Voip { .. } => "voip",
            AppConfig::VideoCall(_) => "video_call",
            AppConfig::Stream(_) => "stream",
            AppConfig::Web(_) => "web",
        }
    }

    /// The legs of an app of `cellshare-apps` (video call, stream, web); `None` for the
    /// request/response apps, which have their two legs built by the engine itself.
    pub fn legs(&self) -> Option<Vec<LegSpec>> {
        match self {
            AppConfig::VideoCall(_) => Some(VideoCallConfig::legs()),
            AppConfig::Stream(_) => Some(StreamConfig::legs()),
            AppConfig::Web(c) => Some(c.legs()),
            AppConfig::Ping { .. } | AppConfig::Game { .. } | AppConfig::Voip { .. } => None,
        }
    }

    /// Flows the app creates per UE.
    pub fn flow_count(&self) -> u64 {
        self.legs().map_or(2, |l| l.len() as u64)
    }

    /// Whether the app needs the UE's modelled uplink (the request/response apps do).
    pub fn needs_uplink(&self) -> bool {
        self.legs().is_none()
    }

    /// (interval, request bytes, response bytes) of a TCP app; `None` for VoIP.
    pub fn tcp_params(&self) -> Option<(Nanos, u32, u32)> {
        match *self {
            AppConfig::Ping { interval_ms, request_bytes, response_bytes }
            | AppConfig::Game { interval_ms, request_bytes, response_bytes } => {
                Some(((interval_ms * MS as f64).round() as Nanos, request_bytes, response_bytes))
            }
            _ => None,
        }
    }

    /// Echo size of a VoIP app, payload bytes.
    pub fn response_bytes(&self) -> u32 {
        match *self {
            AppConfig::Ping { response_bytes, .. } | AppConfig::Game { response_bytes, .. } | AppConfig::Voip { response_bytes } => {
                response_bytes
            }
            AppConfig::VideoCall(_) | AppConfig::Stream(_) | AppConfig::Web(_) => 0,
        }
    }

    /// Checks the parameters and that the transport and direction fit; `at` is the flow's
    /// key path.
    pub fn validate(&self, at: &str, transport: &TransportConfig, dir: Direction) -> Result<(), ScenarioError> {
        let k = |key: &str| format!("{at}.app.{key}");
        let wrap = |(key, v, e): cellshare_apps::ParamError| ScenarioError::new(k(&key), v, e);
        let needs = |tcp: bool| -> Result<(), ScenarioError> {
            let ok = if tcp { matches!(transport, TransportConfig::Tcp { .. }) } else { matches!(transport, TransportConfig::Udp {}) };
            if ok {
                return Ok(());
            }
            let want = if tcp { "\"tcp\"" } else { "\"udp\"" };
            Err(ScenarioError::new(format!("{at}.transport.kind"), format!("{:?}", transport.kind()), format!("{want} for a {} app", self.kind())))
        };
        let downlink_only = || -> Result<(), ScenarioError> {
            if dir == Direction::Downlink {
                Ok(())
            } else {
                Err(ScenarioError::new(format!("{at}.direction"), "\"uplink\"", format!("\"downlink\" for a {} app (the server sends the content)", self.kind())))
            }
        };
        match self {
            AppConfig::VideoCall(c) => return c.validate().map_err(wrap).and_then(|_| needs(false)),
            AppConfig::Stream(c) => return c.validate().map_err(wrap).and_then(|_| needs(true)).and_then(|_| downlink_only()),
            AppConfig::Web(c) => return c.validate().map_err(wrap).and_then(|_| needs(true)).and_then(|_| downlink_only()),
            _ => {}
        }
        match *self {
            AppConfig::Ping { interval_ms, request_bytes, response_bytes }
            | AppConfig::Game { interval_ms, request_bytes, response_bytes } => {
                // At least 0.1 ms: shorter intervals (down to ones that round to 0 ns and
                // would never let simulated time advance) are no ping or game.
                if !(interval_ms >= 0.1 && interval_ms <= 3_600_000.0) {
                    return Err(ScenarioError::new(k("interval_ms"), interval_ms, "an interval in ms in [0.1, 3600000]"));
                }
                if request_bytes == 0 {
                    return Err(ScenarioError::new(k("request_bytes"), 0, "a request size in bytes >= 1"));
                }
                if response_bytes == 0 {
                    return Err(ScenarioError::new(k("response_bytes"), 0, "a response size in bytes >= 1"));
                }
                if !matches!(transport, TransportConfig::Tcp { .. }) {
                    return Err(ScenarioError::new(
                        format!("{at}.transport.kind"),
                        format!("{:?}", transport.kind()),
                        format!("\"tcp\" for a {} app", self.kind()),
                    ));
                }
            }
            AppConfig::Voip { response_bytes } => {
                if !(1..=65_507).contains(&response_bytes) {
                    return Err(ScenarioError::new(k("response_bytes"), response_bytes, "an echo size in 1..=65507 bytes"));
                }
                if !matches!(transport, TransportConfig::Cbr { .. }) {
                    return Err(ScenarioError::new(
                        format!("{at}.transport.kind"),
                        format!("{:?}", transport.kind()),
                        "\"cbr\" (UDP) for a voip app",
                    ));
                }
            }
            AppConfig::VideoCall(_) | AppConfig::Stream(_) | AppConfig::Web(_) => unreachable!("checked above"),
        }
        Ok(())
    }
}

/// Run-time state of an app, kept by its request leg.
#[derive(Debug)]
pub(crate) struct AppRt {
    /// The app's kind name.
    pub kind: &'static str,
    /// The response leg's flow index.
    pub partner: u32,
    /// (interval, request bytes, response bytes) for TCP apps.
    pub tcp: Option<(Nanos, u32, u32)>,
    /// Echo size (VoIP).
    pub echo_bytes: u32,
    /// Write times of requests not yet answered, oldest first (TCP apps).
    pub pending: VecDeque<Nanos>,
    /// Requests issued.
    pub requests: u64,
    /// Requests the responder has answered (responses written).
    pub served: u64,
    /// Completed requests: (completion time s, RTT ms).
    pub t_s: Vec<f64>,
    /// RTTs, ms, in completion order.
    pub rtt_ms: Vec<f64>,
}

impl AppRt {
    /// State for `cfg` whose response leg is `partner`, over a run of `duration`; the
    /// VoIP datagram rate comes from the flow's `cbr` transport.
    pub fn new(cfg: &AppConfig, transport: &TransportConfig, partner: u32, duration: Nanos) -> Self {
        let tcp = cfg.tcp_params();
        // Room for every request of the run: one allocation up front.
        let interval = match (tcp, transport) {
            (Some((iv, _, _)), _) => iv,
            (None, TransportConfig::Cbr { rate_mbps, packet_bytes }) => {
                let wire = (*packet_bytes + cellshare_transport::wire::UDP_HEADER_BYTES) as f64 * 8.0;
                (wire / (rate_mbps * 1e6) * 1e9) as Nanos
            }
            (None, _) => duration,
        };
        let n = (duration / interval.max(1)) as usize + 1;
        Self {
            kind: cfg.kind(),
            partner,
            tcp,
            echo_bytes: cfg.response_bytes(),
            pending: VecDeque::with_capacity(n.min(1 << 20)),
            requests: 0,
            served: 0,
            t_s: Vec::with_capacity(n.min(1 << 20)),
            rtt_ms: Vec::with_capacity(n.min(1 << 20)),
        }
    }

    /// Records one completed request.
    pub fn record(&mut self, now: Nanos, rtt: Nanos) {
        self.t_s.push(cellshare_core::time::to_secs_f64(now));
        self.rtt_ms.push(rtt as f64 / MS as f64);
    }
}
