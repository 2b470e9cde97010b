//! LLN scenarios: the TOML form, parsed with serde and validated.
//!
//! An LLN scenario is its own scenario kind: the top-level `[lln]` table marks it (the
//! cellular keys `cell`, `ues`, `flows` do not apply). `[simulation]` has the same meaning
//! as in cellular scenarios. Every struct derives `schemars::JsonSchema`; the LLN part of
//! `docs/scenario-reference.md` is generated from these types and their doc comments.
//! Unknown keys are errors and [`LlnScenario::validate`] names the key path, the value and
//! what was expected.

use serde::{Deserialize, Serialize};

use cellshare_transport::tcp::{RtoEstimator, RwndConfig, TcpConfig};

/// A problem with an LLN scenario (the project's one key-path error type).
pub use cellshare_core::ScenarioError as LlnError;

/// A complete LLN scenario: sensor nodes in a multi-hop tree sending TCP uplinks to an end
/// host behind the border router.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LlnScenario {
    /// Short name, used in reports. Default: empty.
    #[serde(default)]
    pub name: String,
    /// Free-form description. Default: empty.
    #[serde(default)]
    pub description: String,
    /// Duration and seed.
    #[serde(default)]
    pub simulation: LlnSimulation,
    /// The low-power network: radio, MAC, queues, topology, TCP, application, DTPA.
    pub lln: LlnConfig,
}

/// `[simulation]`: how long and with which seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LlnSimulation {
    /// Simulated duration in seconds (> 0, at most 86400). Default 300.
    pub duration_s: f64,
    /// Seed of every random draw in the run. Default 1.
    pub seed: u64,
}

impl Default for LlnSimulation {
    fn default() -> Self {
        Self { duration_s: 300.0, seed: 1 }
    }
}

/// `[lln]`: the low-power and lossy network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LlnConfig {
    /// The IEEE 802.15.4-like radio.
    #[serde(default)]
    pub radio: RadioConfig,
    /// Unslotted CSMA/CA and link-layer retransmission parameters.
    #[serde(default)]
    pub mac: MacConfig,
    /// Transmit FIFO of every sensor node, packets (shared by own and forwarded packets).
    /// Default 15 (the thesis's TelosB setup).
    #[serde(default = "default_queue")]
    pub queue_packets: u32,
    /// Who hears whom: from positions and a radio range, or an explicit link list.
    pub topology: TopologyConfig,
    /// The border router and its wired link to the TCP end host.
    #[serde(default)]
    pub border_router: BorderRouterConfig,
    /// The sensor nodes, numbered 1, 2, … in the order given (0 is the border router).
    pub nodes: Vec<NodeConfig>,
    /// The application on every node.
    #[serde(default)]
    pub app: AppConfig,
    /// TCP (Reno congestion control) on the nodes and the end host.
    #[serde(default)]
    pub tcp: LlnTcpConfig,
    /// Dynamic TX period adjustment (thesis Algorithm 2). Default: off (plain TCP Reno).
    #[serde(default)]
    pub dtpa: DtpaConfig,
}

fn default_queue() -> u32 {
    15
}

/// `[lln.radio]`: the physical layer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RadioConfig {
    /// Bit rate, kbps. Default 250 (IEEE 802.15.4, 2.4 GHz O-QPSK).
    pub rate_kbps: f64,
    /// Probability that a frame (data or link-layer ACK) is lost at its receiver for reasons
    /// other than collisions (fading, noise), drawn independently per reception, in [0, 1).
    /// Default 0.02.
    pub frame_loss: f64,
}

impl Default for RadioConfig {
    fn default() -> Self {
        Self { rate_kbps: 250.0, frame_loss: 0.02 }
    }
}

/// `[lln.mac]`: unslotted CSMA/CA (IEEE 802.15.4-2006 §7.5.1.4) and link-layer
/// retransmissions. Defaults are the standard's; the last four keys let a profile follow a
/// real stack instead (the shipped thesis presets model TinyOS's CC2420 CSMA with BLIP's
/// link retries, see the README).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MacConfig {
    /// macMinBE: initial back-off exponent (window `[0, 2^BE − 1]` unit periods of 320 µs).
    /// Default 3.
    pub min_be: u8,
    /// macMaxBE: largest back-off exponent (≥ `min_be`, ≤ 8). Default 5.
    pub max_be: u8,
    /// macMaxCSMABackoffs: busy CCAs tolerated before a channel-access failure. The standard
    /// allows 0..=5; 255 means "never give up", as stacks that back off until the channel is
    /// clear (TinyOS's CC2420 CSMA). Default 4.
    pub max_csma_backoffs: u8,
    /// macMaxFrameRetries: retransmissions after the first attempt when no link-layer ACK
    /// comes back (or the channel access fails) before the frame is dropped (0..=15).
    /// Default 3.
    pub max_frame_retries: u8,
    /// Back-off exponent after a busy CCA. Default: none (the standard: BE + 1, capped at
    /// `max_be`). TinyOS's CC2420 CSMA uses a fixed congestion window (BE 3, 0–2.24 ms)
    /// after an initial one of BE 5 (0–9.92 ms).
    pub congestion_be: Option<u8>,
    /// How long the sender waits for a link-layer ACK after its frame, ms. Default: none
    /// (macAckWaitDuration, 54 symbols = 0.864 ms). TinyOS's CC2420 stack: 8 ms.
    pub ack_wait_ms: Option<f64>,
    /// Pause before a link-layer retransmission, ms (0..=10000). Default 0 (the standard
    /// retries at once). TinyOS BLIP 1.x (PacketLink `BLIP_L2_DELAY`): 103 ms.
    pub retry_delay_ms: f64,
}

impl Default for MacConfig {
    fn default() -> Self {
        Self {
            min_be: 3,
            max_be: 5,
            max_csma_backoffs: 4,
            max_frame_retries: 3,
            congestion_be: None,
            ack_wait_ms: None,
            retry_delay_ms: 0.0,
        }
    }
}

/// `[lln.topology]`: the neighbourhood graph. Two nodes that hear each other can exchange
/// frames and interfere with each other. Give exactly one of `range_m` (with every node's
/// `position` and `border_router_position`) and `links`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopologyConfig {
    /// Radio range, m: nodes closer than this hear each other. Default: none (use `links`).
    #[serde(default)]
    pub range_m: Option<f64>,
    /// Position `[x, y]` of the border router, m. Needed with `range_m`. Default: none.
    #[serde(default)]
    pub border_router_position: Option<[f64; 2]>,
    /// Explicit undirected links `[[a, b], …]` between node ids (0 = border router).
    /// Default: none (use `range_m`).
    #[serde(default)]
    pub links: Option<Vec<[u32; 2]>>,
}

/// `[lln.border_router]`: the LLN border router (node 0) and its wired link to the end host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BorderRouterConfig {
    /// Transmit FIFO of the border router's radio (TCP ACKs going down), packets. Default 15.
    pub queue_packets: u32,
    /// Rate of the wired link between border router and end host, kbps, each direction.
    /// Default 115.2 (the thesis's UART between the LLN interface and the Linux PC).
    pub wired_rate_kbps: f64,
    /// One-way delay of the wired link, ms. Default 1.
    pub wired_delay_ms: f64,
}

impl Default for BorderRouterConfig {
    fn default() -> Self {
        Self { queue_packets: 15, wired_rate_kbps: 115.2, wired_delay_ms: 1.0 }
    }
}

/// `[[lln.nodes]]`: one sensor node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    /// Position `[x, y]`, m (needed with `topology.range_m`). Default: none.
    #[serde(default)]
    pub position: Option<[f64; 2]>,
    /// Routing parent (a node id this node hears; 0 = border router). Default: RPL-like
    /// choice, the neighbour with the fewest hops to the border router (ties: the closer
    /// one, then the lower id).
    #[serde(default)]
    pub parent: Option<u32>,
}

/// `[lln.app]`: the sensing application on every node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AppConfig {
    /// Packets (segments of `tcp.mss` bytes) each node's application writes per second,
    /// at a fixed period with a random phase per node. Default 2 (the thesis).
    pub rate_pps: f64,
    /// TCP send buffer, segments: a write that does not fit next to the unacknowledged and
    /// unsent data is discarded (counted as `app_blocked`). Default 8.
    pub send_buffer_segments: u32,
}

impl Default for AppConfig {
    fn default() -> Self {
        Self { rate_pps: 2.0, send_buffer_segments: 8 }
    }
}

/// `[lln.tcp]`: TCP Reno between every node and the end host (the project's TCP sender and
/// receiver; NewReno fast recovery when SACK is off).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LlnTcpConfig {
    /// Payload bytes per segment. Default 64: a 127-byte 802.15.4 frame minus 11 bytes of
    /// MAC header and FCS, 20 bytes of 6LoWPAN IPHC and 32 bytes of TCP header with the
    /// timestamp option (see the crate documentation).
    pub mss: u32,
    /// Initial window, segments. Default 4 (RFC 3390 for a 64-byte MSS: min(4·MSS, …)).
    pub initial_window: u32,
    /// Minimum retransmission timeout, ms. Default 1000 (RFC 6298 §2.4; an embedded stack,
    /// not Linux's 200 ms).
    pub min_rto_ms: u64,
    /// Whether the end host delays ACKs (every second segment or after
    /// `delayed_ack_timeout_ms`). Default true.
    pub delayed_ack: bool,
    /// Delayed-ACK timer of the end host, ms. Default 40 (Linux).
    pub delayed_ack_timeout_ms: u64,
    /// Selective acknowledgements. Default false (sensor TCP stacks do not implement SACK;
    /// loss recovery is NewReno's).
    pub sack: bool,
}

impl Default for LlnTcpConfig {
    fn default() -> Self {
        Self { mss: 64, initial_window: 4, min_rto_ms: 1000, delayed_ack: true, delayed_ack_timeout_ms: 40, sack: false }
    }
}

impl LlnTcpConfig {
    /// The endpoint configuration this maps to (the other fields keep the project's
    /// defaults; the receive window is a fixed 64 segments, far above what the send buffer lets a node have in flight).
    /// An embedded stack, not Linux: RFC 6298's RTO and no restart after idle.
    pub fn tcp_config(&self) -> TcpConfig {
        TcpConfig {
            mss: self.mss,
            initial_window: self.initial_window,
            min_rto_ms: self.min_rto_ms,
            initial_rto_ms: self.min_rto_ms.max(1000),
            max_rto_ms: 60_000,
            delayed_ack: self.delayed_ack,
            delayed_ack_timeout_ms: self.delayed_ack_timeout_ms,
            sack: self.sack,
            rto_estimator: RtoEstimator::Rfc6298,
            slow_start_after_idle: false,
            rwnd: RwndConfig::Fixed { bytes: 64 * self.mss.max(1) },
            ..TcpConfig::default()
        }
    }
}

/// `[lln.dtpa]`: dynamic TX period adjustment (thesis §4.3.2, Algorithm 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DtpaConfig {
    /// Whether nodes wait a TX period before sending their own data. Default false.
    pub enabled: bool,
    /// The target per-node rate c of Eq. (4.5), segments per second (> 0). Default 0.5.
    pub c: f64,
    /// The Reno throughput constant a of Eq. (4.1). Default √(3/2) ≈ 1.2247.
    pub a: f64,
    /// Gain β of DTPA's smoothed RTT (Algorithm 2, line 2), in (0, 1]. Default 0.125 (the
    /// thesis gives no value; RFC 6298's α).
    pub beta: f64,
}

impl Default for DtpaConfig {
    fn default() -> Self {
        Self { enabled: false, c: 0.5, a: 1.5f64.sqrt(), beta: 0.125 }
    }
}

impl LlnScenario {
    /// Parses TOML text; syntax, type and unknown-key errors name the key path. The result
    /// is validated.
    pub fn from_toml_str(text: &str) -> Result<Self, LlnError> {
        let de = toml::Deserializer::new(text);
        let sc: LlnScenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let mut message = inner.message().to_string();
            if let Some(span) = inner.span() {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                message = format!("{message} (line {line})");
            }
            LlnError { path: if path == "." { String::new() } else { path }, message }
        })?;
        sc.validate()?;
        Ok(sc)
    }

    /// Checks every range and cross-field rule (the topology itself is checked when the
    /// network is built, see [`crate::topology::Topology::build`]).
    pub fn validate(&self) -> Result<(), LlnError> {
        let s = &self.simulation;
        if !(s.duration_s > 0.0 && s.duration_s <= 86_400.0) {
            return Err(LlnError::new("simulation.duration_s", s.duration_s, "a duration in seconds in (0, 86400]"));
        }
        let l = &self.lln;
        let r = &l.radio;
        if !(r.rate_kbps >= 1.0 && r.rate_kbps <= 100_000.0) {
            return Err(LlnError::new("lln.radio.rate_kbps", r.rate_kbps, "a bit rate in kbps in [1, 100000]"));
        }
        if !(r.frame_loss >= 0.0 && r.frame_loss < 1.0) {
            return Err(LlnError::new("lln.radio.frame_loss", r.frame_loss, "a probability in [0, 1)"));
        }
        let m = &l.mac;
        if m.min_be > 8 {
            return Err(LlnError::new("lln.mac.min_be", m.min_be, "a back-off exponent in 0..=8"));
        }
        if m.max_be < m.min_be || m.max_be > 8 {
            return Err(LlnError::new("lln.mac.max_be", m.max_be, format!("a back-off exponent in min_be..=8 ({}..=8)", m.min_be)));
        }
        if m.max_frame_retries > 15 {
            return Err(LlnError::new("lln.mac.max_frame_retries", m.max_frame_retries, "a count in 0..=15"));
        }
        if let Some(b) = m.congestion_be {
            if b > 8 {
                return Err(LlnError::new("lln.mac.congestion_be", b, "a back-off exponent in 0..=8"));
            }
        }
        if let Some(w) = m.ack_wait_ms {
            if !(w > 0.0 && w <= 1000.0) {
                return Err(LlnError::new("lln.mac.ack_wait_ms", w, "a wait in ms in (0, 1000]"));
            }
        }
        if !(m.retry_delay_ms >= 0.0 && m.retry_delay_ms <= 10_000.0) {
            return Err(LlnError::new("lln.mac.retry_delay_ms", m.retry_delay_ms, "a delay in ms in [0, 10000]"));
        }
        if !(1..=1000).contains(&l.queue_packets) {
            return Err(LlnError::new("lln.queue_packets", l.queue_packets, "a queue size in 1..=1000 packets"));
        }
        let b = &l.border_router;
        if !(1..=100_000).contains(&b.queue_packets) {
            return Err(LlnError::new("lln.border_router.queue_packets", b.queue_packets, "a queue size in 1..=100000 packets"));
        }
        if !(b.wired_rate_kbps >= 1.0 && b.wired_rate_kbps <= 1e7) {
            return Err(LlnError::new("lln.border_router.wired_rate_kbps", b.wired_rate_kbps, "a rate in kbps in [1, 1e7]"));
        }
        if !(b.wired_delay_ms >= 0.0 && b.wired_delay_ms <= 10_000.0) {
            return Err(LlnError::new("lln.border_router.wired_delay_ms", b.wired_delay_ms, "a delay in ms in [0, 10000]"));
        }
        if l.nodes.is_empty() || l.nodes.len() > 1000 {
            return Err(LlnError::new("lln.nodes", format!("{} nodes", l.nodes.len()), "1..=1000 [[lln.nodes]] entries"));
        }
        let a = &l.app;
        if !(a.rate_pps > 0.0 && a.rate_pps <= 1000.0) {
            return Err(LlnError::new("lln.app.rate_pps", a.rate_pps, "packets per second in (0, 1000]"));
        }
        if a.send_buffer_segments == 0 {
            return Err(LlnError::new("lln.app.send_buffer_segments", 0, "at least 1 segment"));
        }
        let t = &l.tcp;
        // The frame must hold MAC + 6LoWPAN + TCP headers and the payload.
        let max_mss = crate::MAX_FRAME_BYTES - crate::DATA_OVERHEAD_BYTES;
        if t.mss == 0 || t.mss > max_mss {
            return Err(LlnError::new("lln.tcp.mss", t.mss, format!("a segment size in 1..={max_mss} bytes (it must fit one 127-byte frame)")));
        }
        if t.initial_window == 0 || t.initial_window > 64 {
            return Err(LlnError::new("lln.tcp.initial_window", t.initial_window, "a window in 1..=64 segments"));
        }
        if !(1..=60_000).contains(&t.min_rto_ms) {
            return Err(LlnError::new("lln.tcp.min_rto_ms", t.min_rto_ms, "a timeout in 1..=60000 ms"));
        }
        if t.delayed_ack && !(1..=500).contains(&t.delayed_ack_timeout_ms) {
            return Err(LlnError::new("lln.tcp.delayed_ack_timeout_ms", t.delayed_ack_timeout_ms, "a timeout in 1..=500 ms"));
        }
        let d = &l.dtpa;
        if !(d.c > 0.0 && d.c.is_finite()) {
            return Err(LlnError::new("lln.dtpa.c", d.c, "a rate in segments per second > 0"));
        }
        if !(d.a > 0.0 && d.a.is_finite()) {
            return Err(LlnError::new("lln.dtpa.a", d.a, "a constant > 0"));
        }
        if !(d.beta > 0.0 && d.beta <= 1.0) {
            return Err(LlnError::new("lln.dtpa.beta", d.beta, "a gain in (0, 1]"));
        }
        Ok(())
    }
}
