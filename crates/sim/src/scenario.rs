//! Scenarios: the TOML a user writes, parsed with serde and validated.
//!
//! Every struct here derives `schemars::JsonSchema`; the scenario reference
//! (`docs/scenario-reference.md`) is generated from these types and their doc comments, so
//! each field's doc states its unit and default. Unknown keys are errors
//! (`deny_unknown_fields`), and [`Scenario::validate`] checks ranges, reporting the full key
//! path, the offending value and what was expected.

use serde::{Deserialize, Serialize};

use cellshare_aqm::{BodeConfig, CoDelConfig, PieConfig, RedConfig, SneakerConfig};
use cellshare_cell::{LinkConfig, SchedulerConfig};
use cellshare_channel::RadioConfig;
use cellshare_core::TrafficClass;
use cellshare_ran::{geometry, MobilityConfig, NetworkConfig};

use crate::apps::{AppConfig, AppConfigExt, Direction};
use crate::limits::Limits;
use crate::transport::TransportConfig;
use crate::uplink::UplinkConfig;

pub use cellshare_core::ScenarioError;

/// The shortest on or off period of an on/off flow, s: one TTI.
const MIN_ON_OFF_S: f64 = 0.001;

/// A transport's range error at `path`: `got V, expected E`, or the message `E` alone when it
/// carries no separate value.
fn transport_error(path: String, value: String, expected: String) -> ScenarioError {
    if value.is_empty() {
        ScenarioError { path, message: expected }
    } else {
        ScenarioError::new(path, value, expected)
    }
}


/// A complete scenario.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name, used in reports. Default: empty.
    #[serde(default)]
    pub name: String,
    /// Free-form description. Default: empty.
    #[serde(default)]
    pub description: String,
    /// Duration and seed.
    #[serde(default)]
    pub simulation: SimulationConfig,
    /// The LTE cell (ignored when `shared_fifo` is given).
    #[serde(default)]
    pub cell: CellConfig,
    /// Wired path between the servers and the base station, and the ACK return path.
    #[serde(default)]
    pub wired: WiredConfig,
    /// When present, the receivers sit behind one shared drop-tail FIFO (a wired or
    /// Wi-Fi-like bottleneck) instead of the LTE cell. Default: absent (LTE cell).
    #[serde(default)]
    pub shared_fifo: Option<SharedFifoConfig>,
    /// Several cells, UE mobility and handover (docs/mobility.md). Default: absent — one
    /// cell, UEs standing still at their `channel.distance_m`.
    #[serde(default)]
    pub network: Option<NetworkConfig>,
    /// The UEs (receivers), in groups. UE indices count from 0 across groups in order.
    pub ues: Vec<UeGroup>,
    /// Flows between servers and UEs (downlink by default; `direction = "uplink"` for
    /// uploads), bulk, finite, on/off or interactive (`app`). A flow with `class =
    /// "background"` is a background flow (reported with category `"background"`; an
    /// always-on background flow is one without `bytes` or `stop_s`), any other is reported
    /// with category `"custom"`.
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// A generated foreground workload: flows created as they arrive (reported with category
    /// `"short"`, `"medium"` or `"long"`). Default: none.
    #[serde(default)]
    pub workload: Option<WorkloadConfig>,
}

/// `[workload]`: foreground flows generated while the run goes, each to a UE drawn uniformly
/// from `ues`, created when it arrives and freed when it completes.
///
/// With `arrivals = { kind = "poisson", load = ρ }` the byte rate is ρ times the cell's
/// estimated capacity for these UEs: each UE's mean full-cell rate C_u (bytes per TTI with
/// every PRB, averaged over the TTIs in which it can be served, from its channel model and
/// the seed) gives a UE's cost of c_u = 1/C_u cell-TTIs per byte on the air; a byte sent to a
/// uniformly drawn UE costs the mean of c_u, so the air-byte rate that fills a fraction ρ of
/// the PRBs is ρ / mean(c_u) per TTI (ρ times the harmonic mean of the C_u), and the payload
/// rate removes the headers (MSS / (MSS + 52) for TCP). `cellshare calibrate` runs the
/// workload alone and reports the PRB utilization achieved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    /// `"all"` or a list of UE indices; each flow goes to one of them, drawn uniformly.
    /// Default `"all"`.
    #[serde(default = "all_ues")]
    pub ues: UeSelector,
    /// The arrival process: `{ kind = "poisson", load = 0.6, preset = "legilimens" }` (the
    /// default) or `{ kind = "randomized" }`.
    #[serde(default)]
    pub arrivals: cellshare_workload::Arrivals,
    /// Transport of every workload flow. Default `{ kind = "tcp", cc = { kind = "cubic" } }`.
    #[serde(default = "cubic_transport")]
    pub transport: TransportConfig,
    /// DiffServ-like class index carried by the packets. Default 0.
    #[serde(default)]
    pub dscp: u8,
    /// First possible arrival, s (≥ 0). Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// No arrivals from this time on, s. Default: the end of the run.
    #[serde(default)]
    pub stop_s: Option<f64>,
}

fn all_ues() -> UeSelector {
    UeSelector::All(AllUes::All)
}

fn cubic_transport() -> TransportConfig {
    TransportConfig::Tcp { cc: Default::default(), tcp: Default::default() }
}

impl WorkloadConfig {
    /// The UEs the workload draws from, given the scenario's UE count.
    pub fn ue_list(&self, n_ues: u32) -> Vec<u32> {
        match &self.ues {
            UeSelector::All(_) => (0..n_ues).collect(),
            UeSelector::List(l) => l.clone(),
        }
    }
}

/// `[simulation]`: how long and with which seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SimulationConfig {
    /// Simulated duration in seconds (> 0, at most 86400). Default 10.
    pub duration_s: f64,
    /// Seed of every random draw in the run. Default 1.
    pub seed: u64,
    /// Interval of the fine-grained traces in milliseconds: every flow's delivered rate,
    /// window, smoothed RTT and congestion-controller state (mode, estimate, flag) and every
    /// UE's base-station queue are sampled this often (integer, 1 to 60000, or 0 for no
    /// traces). Controller mode changes are recorded as they happen whenever traces are on.
    /// Default 100.
    pub trace_interval_ms: u64,
}

impl Default for SimulationConfig {
    fn default() -> Self {
        Self { duration_s: 10.0, seed: 1, trace_interval_ms: 100 }
    }
}

/// `[cell]`: the base station's downlink.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CellConfig {
    /// Channel bandwidth in MHz: 1.4, 3, 5, 10, 15 or 20 (6, 15, 25, 50, 75 or 100 PRBs).
    /// Default 10 (50 PRBs), as in the papers.
    pub bandwidth_mhz: f64,
    /// The MAC scheduler.
    pub scheduler: SchedulerConfig,
    /// Byte limit of each UE's RLC transmit queue at the base station. Default 524288
    /// (512 KB, the Sneaker paper's setup).
    pub rlc_queue_bytes: u64,
    /// Queue discipline of each RLC queue. Default: tail drop at `rlc_queue_bytes`.
    pub aqm: AqmConfig,
    /// The radio link of UEs on `radio` channels: `{ kind = "realistic" }` (the default:
    /// block errors, HARQ, BLER-targeted link adaptation with delayed CQI reports, the MAC
    /// pipeline and in-order RLC delivery, at ns-3 LENA's defaults) or `{ kind = "ideal" }`
    /// (every block decoded, delivered at the end of its TTI, CQI of the TTI itself by the
    /// `PiroEW2010` rule: cellshare before block errors were modelled). Fixed and trace
    /// channels are delivery processes of their own and ignore it. See docs/radio-link.md.
    pub link: LinkConfig,
}

impl Default for CellConfig {
    fn default() -> Self {
        Self {
            bandwidth_mhz: 10.0,
            scheduler: SchedulerConfig::default(),
            rlc_queue_bytes: 512 * 1024,
            aqm: AqmConfig::default(),
            link: LinkConfig::default(),
        }
    }
}

/// A queue discipline (`kind` selects it). Every discipline also enforces a hard limit:
/// `cell.rlc_queue_bytes` (or, inside a DiffServ class, the class's `queue_bytes`), or
/// `limit_packets` packets when given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmConfig {
    /// Drop arriving packets that do not fit.
    TailDrop {
        /// Packet limit instead of the byte limit. Default: none (use the byte limit).
        #[serde(default)]
        limit_packets: Option<u32>,
    },
    /// Drop the oldest packets to make room for arriving ones.
    HeadDrop {
        /// Packet limit instead of the byte limit. Default: none (use the byte limit).
        #[serde(default)]
        limit_packets: Option<u32>,
    },
    /// RED (Floyd & Jacobson 1993, gentle variant): random drops at arrival as the average
    /// queue grows between `min_th` and `max_th`.
    Red(RedConfig),
    /// CoDel (RFC 8289): drops at dequeue once the sojourn stays above `target_ms` for
    /// `interval_ms`, spaced by interval/sqrt(count).
    Codel(CoDelConfig),
    /// PIE (RFC 8033): random drops at arrival with a probability steered every
    /// `t_update_ms` towards `target_ms` of queueing delay (sojourn timestamps).
    Pie(PieConfig),
    /// BoDe \[bode\]: drop at dequeue every packet whose sojourn
    /// reached `bounded_delay_ms`, unless fewer than 3 packets remain queued behind it.
    Bode(BodeConfig),
    /// The Sneaker paper's strict-priority baseline: every background data packet arriving
    /// while any foreground packet is queued in the cell is dropped (at arrival only; queued
    /// background packets are served). UE queues are tail drop at `cell.rlc_queue_bytes`.
    StrictPriority {},
    /// Sneaker \[sneaker\]: background data packets dropped at arrival
    /// with the probability of Eq. (5) (or Eq. (4)), from cell-wide signals and the RTT
    /// each packet carries. UE queues are tail drop at `cell.rlc_queue_bytes`.
    Sneaker(SneakerConfig),
    /// DiffServ: each UE's queue split into classes served in strict priority, each with its
    /// own discipline.
    Diffserv(DiffServConfig),
}

impl Default for AqmConfig {
    fn default() -> Self {
        AqmConfig::TailDrop { limit_packets: None }
    }
}

impl AqmConfig {
    /// The discipline's name, as written in `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            AqmConfig::TailDrop { .. } => "tail_drop",
            AqmConfig::HeadDrop { .. } => "head_drop",
            AqmConfig::Red(_) => "red",
            AqmConfig::Codel(_) => "codel",
            AqmConfig::Pie(_) => "pie",
            AqmConfig::Bode(_) => "bode",
            AqmConfig::StrictPriority {} => "strict_priority",
            AqmConfig::Sneaker(_) => "sneaker",
            AqmConfig::Diffserv(_) => "diffserv",
        }
    }

    /// Checks the discipline's parameters; `at` is its key path (e.g. `cell.aqm`);
    /// `per_queue` restricts it to the disciplines a single queue can run (DiffServ classes).
    pub fn validate(&self, at: &str, per_queue: bool) -> Result<(), ScenarioError> {
        let wrap = |(k, v, e): cellshare_aqm::ParamError| ScenarioError::new(format!("{at}.{k}"), v, e);
        let limit = match self {
            AqmConfig::TailDrop { limit_packets } | AqmConfig::HeadDrop { limit_packets } => *limit_packets,
            AqmConfig::Red(c) => {
                c.validate().map_err(wrap)?;
                c.limit_packets
            }
            AqmConfig::Codel(c) => {
                c.validate().map_err(wrap)?;
                c.limit_packets
            }
            AqmConfig::Pie(c) => {
                c.validate().map_err(wrap)?;
                c.limit_packets
            }
            AqmConfig::Bode(c) => {
                c.validate().map_err(wrap)?;
                c.limit_packets
            }
            AqmConfig::StrictPriority {} | AqmConfig::Sneaker(_) | AqmConfig::Diffserv(_) if per_queue => {
                return Err(ScenarioError::new(
                    format!("{at}.kind"),
                    format!("{:?}", self.kind()),
                    "a per-queue discipline inside a DiffServ class: tail_drop, head_drop, red, codel, pie or bode",
                ));
            }
            AqmConfig::StrictPriority {} => None,
            AqmConfig::Sneaker(c) => {
                c.validate().map_err(wrap)?;
                None
            }
            AqmConfig::Diffserv(d) => {
                if d.classes.is_empty() || d.classes.len() > 16 {
                    return Err(ScenarioError::new(format!("{at}.classes"), format!("{} classes", d.classes.len()), "1 to 16 classes"));
                }
                let mut seen = [false; 256];
                for (i, c) in d.classes.iter().enumerate() {
                    for &v in &c.dscp {
                        if std::mem::replace(&mut seen[v as usize], true) {
                            return Err(ScenarioError::new(format!("{at}.classes[{i}].dscp"), v, "each DSCP value in at most one class"));
                        }
                    }
                    if let Some(b) = c.queue_bytes {
                        if b < 1500 {
                            return Err(ScenarioError::new(format!("{at}.classes[{i}].queue_bytes"), b, "at least 1500 bytes (one packet)"));
                        }
                    }
                    c.aqm.validate(&format!("{at}.classes[{i}].aqm"), true)?;
                }
                None
            }
        };
        if limit == Some(0) {
            return Err(ScenarioError::new(format!("{at}.limit_packets"), 0, "at least 1 packet"));
        }
        Ok(())
    }
}

/// `cell.aqm = { kind = "diffserv", classes = [...] }`: per-UE DiffServ queues.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffServConfig {
    /// The classes in priority order (the first is served first), 1 to 16. A packet goes to
    /// the class listing its flow's `dscp`; packets whose DSCP no class lists go to the last
    /// class.
    pub classes: Vec<DiffServClass>,
}

/// One DiffServ class of a per-UE queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffServClass {
    /// DSCP values (flows' `dscp`) of this class. Default: none.
    #[serde(default)]
    pub dscp: Vec<u8>,
    /// Byte limit of this class's queue. Default: `cell.rlc_queue_bytes`.
    #[serde(default)]
    pub queue_bytes: Option<u64>,
    /// The class's discipline (tail_drop, head_drop, red, codel, pie or bode). Default: tail
    /// drop.
    #[serde(default)]
    pub aqm: AqmConfig,
}

/// `[wired]`: the path from the servers to the base station and back.
///
/// Data: server → (per-flow remote link) → gateway → (shared backhaul) → base station.
/// ACKs: UE → uplink (fixed delay) → backhaul → remote link, delays only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WiredConfig {
    /// Rate of each server's link to the gateway, Mbps (0.001 to 1e6). Default 1000 (the
    /// papers' 1 Gbps).
    pub remote_rate_mbps: f64,
    /// One-way delay of each server's link, ms. Default 10 (the papers' 10 ms).
    pub remote_delay_ms: f64,
    /// Drop-tail buffer of each server's link, bytes. Default 16777216 (16 MB).
    pub remote_queue_bytes: u64,
    /// Rate of the gateway → base-station backhaul, Mbps (0.001 to 1e6). Default 1000
    /// (Legilimens' setup; the Sneaker paper uses 300).
    pub backhaul_rate_mbps: f64,
    /// One-way delay of the backhaul, ms. Default 0 (ns-3's EPC default).
    pub backhaul_delay_ms: f64,
    /// Drop-tail buffer of the backhaul, bytes. Default 16777216 (16 MB).
    pub backhaul_queue_bytes: u64,
    /// One-way delay of the UE → base-station uplink that carries ACKs, ms. Default 4
    /// (roughly LTE's scheduling-request/grant/HARQ pipeline).
    pub uplink_delay_ms: f64,
    /// Probability that a data packet sent by a server is lost on its remote link
    /// (independently per packet, from the flow's own random stream): random,
    /// non-congestion losses as in the Westwood papers' lossy links. Default 0.
    pub remote_loss_rate: f64,
}

impl Default for WiredConfig {
    fn default() -> Self {
        Self {
            remote_rate_mbps: 1000.0,
            remote_delay_ms: 10.0,
            remote_queue_bytes: 16 << 20,
            backhaul_rate_mbps: 1000.0,
            backhaul_delay_ms: 0.0,
            backhaul_queue_bytes: 16 << 20,
            uplink_delay_ms: 4.0,
            remote_loss_rate: 0.0,
        }
    }
}

/// `[shared_fifo]`: one drop-tail FIFO shared by all receivers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedFifoConfig {
    /// Bottleneck rate, Mbps (> 0). Required.
    pub rate_mbps: f64,
    /// Buffer size, bytes. Default 524288 (512 KB).
    #[serde(default = "default_fifo_bytes")]
    pub queue_bytes: u64,
}

fn default_fifo_bytes() -> u64 {
    512 * 1024
}

/// `[[ues]]`: a group of identical UEs.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UeGroup {
    /// Number of UEs in the group (1..=10000). Default 1.
    #[serde(default = "one")]
    pub count: u32,
    /// The downlink channel of each UE in the group (ignored behind a shared FIFO).
    #[serde(default)]
    pub channel: ChannelConfig,
    /// Each UE's modelled uplink: channel and device transmit queue (single FIFO or SORPC).
    /// Default: absent — ACKs return over the fixed `wired.uplink_delay_ms` and the UEs
    /// cannot upload.
    #[serde(default)]
    pub uplink: Option<UplinkConfig>,
    /// How the UEs of the group move (needs `[network]`): `{ kind = "static" }`,
    /// `"waypoints"`, `"random_waypoint"` or `"trace"` (docs/mobility.md). Default in a
    /// network: static, each UE at a point drawn uniformly over the network's area.
    #[serde(default)]
    pub mobility: Option<MobilityConfig>,
}

fn one() -> u32 {
    1
}

/// A UE's downlink channel (`kind` selects the model).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ChannelConfig {
    /// Constant bit rate when the UE has the whole cell.
    Fixed {
        /// Rate with all PRBs, Mbps (> 0).
        rate_mbps: f64,
    },
    /// A Mahimahi trace: the UE's capacity when it has the whole cell; repeats at its end.
    Trace {
        /// A trace shipped with cellshare, `"builtin:NAME"` (`builtin:ATT-LTE-driving.down`,
        /// `builtin:TMobile-LTE-driving.down`, `builtin:TMobile-UMTS-driving.down`,
        /// `builtin:Verizon-EVDO-driving.down` and the `.up` traces of ATT, T-Mobile UMTS and
        /// Verizon; docs/traces.md), or the path of a Mahimahi trace file, relative to the
        /// scenario file's folder.
        file: String,
        /// Start this many ms into the trace. Default 0.
        #[serde(default)]
        offset_ms: u64,
        /// Give each UE of the group its own random start offset (from the seed) instead of
        /// `offset_ms`. Default false.
        #[serde(default)]
        random_offset: bool,
    },
    /// Stochastic LTE radio: path loss, shadowing, fading → CQI → MCS → TBS.
    Radio(RadioConfig),
}

impl ChannelConfig {
    /// The model's name, as written in `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            ChannelConfig::Fixed { .. } => "fixed",
            ChannelConfig::Trace { .. } => "trace",
            ChannelConfig::Radio(_) => "radio",
        }
    }
}

impl Default for ChannelConfig {
    fn default() -> Self {
        ChannelConfig::Fixed { rate_mbps: 20.0 }
    }
}

/// Which UEs a flow entry creates flows to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum UeSelector {
    /// The word `"all"`: one flow per UE.
    All(AllUes),
    /// An explicit list of UE indices: one flow per listed UE.
    List(Vec<u32>),
}

/// The literal `"all"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AllUes {
    /// Every UE.
    All,
}

/// `[[flows]]`: downlink flows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Name used in results. Default: `flow<index>`.
    #[serde(default)]
    pub name: Option<String>,
    /// Receiving UE index. Give exactly one of `ue` and `ues`.
    #[serde(default)]
    pub ue: Option<u32>,
    /// `"all"` or a list of UE indices: one flow per UE.
    #[serde(default)]
    pub ues: Option<UeSelector>,
    /// `"foreground"` or `"background"`. Default `"foreground"`.
    #[serde(default)]
    pub class: TrafficClass,
    /// DiffServ-like class index carried by the packets (0 = highest). Default 0.
    #[serde(default)]
    pub dscp: u8,
    /// The transport and its parameters.
    pub transport: TransportConfig,
    /// Start time, s (≥ 0). Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// Stop time, s: no new data after it. Default: the end of the run.
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Finite flow size in payload bytes (the flow ends when all are delivered; FCT is
    /// reported). Default: unlimited (bulk).
    #[serde(default)]
    pub bytes: Option<u64>,
    /// `"downlink"` (server → UE) or `"uplink"` (UE → server, through the UE's modelled
    /// uplink; needs `ues[..].uplink`). For a request/response `app`, the requester's side:
    /// `"uplink"` puts the requester at the UE; for a video call, the media's direction.
    /// Default `"downlink"`.
    #[serde(default)]
    pub direction: Direction,
    /// An application instead of a bulk transfer: an interactive request/response app
    /// (ping, game, voip; its per-request RTTs are reported) or one of docs/apps.md (a
    /// video call, an adaptive stream, web page loads; per-frame, per-chunk, per-page
    /// tables). Default: none.
    #[serde(default)]
    pub app: Option<AppConfig>,
    /// On period, s (>= 0.001, one TTI), for an on/off flow (needs `off_s`). Default: always on.
    #[serde(default)]
    pub on_s: Option<f64>,
    /// Off period, s (>= 0.001, one TTI), for an on/off flow (needs `on_s`). Default: always on.
    #[serde(default)]
    pub off_s: Option<f64>,
}

/// `s` with control characters (a newline in a quoted key) escaped, so an error stays on one
/// line.
fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The key inside a `{ kind = "…", … }` table that a deserialization error is about.
///
/// serde's internally tagged enums (transports, controllers, AQMs, channels, apps, mobility)
/// buffer their whole table before choosing the variant, so `serde_path_to_error`'s path
/// stops at that table (`flows[0].transport`) whatever key inside it was wrong. Given the
/// scenario text, that path and serde's message, this returns the full path of the one key
/// the message is about: the key an `unknown field` message names, or the one scalar value
/// an `invalid type` / `invalid value` / `unknown variant` message quotes (serde quotes it as
/// `string "yes"`, ``integer `3` ``, ``floating point `0.7` ``, ``boolean `true` ``). `None`
/// when the path does not lead to a table, the message quotes nothing, or more than one key
/// matches: the table's path is then the best there is and is kept.
pub fn refine_error_path(text: &str, path: &str, message: &str) -> Option<String> {
    let root: toml::Value = toml::from_str::<toml::Table>(text).ok().map(toml::Value::Table)?;
    let mut v = &root;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, indices) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            v = v.as_table()?.get(name)?;
        }
        for idx in indices.split(|c| c == '[' || c == ']').filter(|s| !s.is_empty()) {
            v = v.as_array()?.get(idx.parse::<usize>().ok()?)?;
        }
    }
    if !v.is_table() {
        return None;
    }
    let quoted = |prefix: &str| -> Option<String> {
        let rest = &message[message.find(prefix)? + prefix.len()..];
        Some(rest.split(", expected").next().unwrap_or(rest).trim().to_string())
    };
    let mut found = Vec::new();
    if let Some(field) = quoted("unknown field ").map(|f| f.trim_matches('`').to_string()) {
        collect(v, "", &mut |key_path, key, _| {
            if key == field {
                found.push(key_path.to_string());
            }
        });
    } else if let Some(unexpected) = quoted("invalid type: ").or_else(|| quoted("invalid value: ")) {
        collect(v, "", &mut |key_path, _, value| {
            if unexpected_form(value).as_deref() == Some(unexpected.as_str()) {
                found.push(key_path.to_string());
            }
        });
    } else if let Some(variant) = quoted("unknown variant ").map(|f| f.trim_matches('`').to_string()) {
        collect(v, "", &mut |key_path, _, value| {
            if value.as_str() == Some(variant.as_str()) {
                found.push(key_path.to_string());
            }
        });
    }
    match found.as_slice() {
        [one] => Some(if path.is_empty() { one.clone() } else { format!("{path}.{one}") }),
        _ => None,
    }
}

/// Calls `f(path, key, value)` for every key of `v`'s tables, depth first (array items as
/// `key[i]`).
fn collect(v: &toml::Value, prefix: &str, f: &mut dyn FnMut(&str, &str, &toml::Value)) {
    match v {
        toml::Value::Table(t) => {
            for (k, item) in t {
                let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                f(&p, k, item);
                collect(item, &p, f);
            }
        }
        toml::Value::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                collect(item, &format!("{prefix}[{i}]"), f);
            }
        }
        _ => {}
    }
}

/// How serde's `Unexpected` prints a scalar (`serde::de::Unexpected`'s `Display`).
fn unexpected_form(v: &toml::Value) -> Option<String> {
    use serde::de::Unexpected;
    Some(match v {
        toml::Value::String(s) => Unexpected::Str(s).to_string(),
        toml::Value::Integer(i) => Unexpected::Signed(*i).to_string(),
        toml::Value::Float(x) => Unexpected::Float(*x).to_string(),
        toml::Value::Boolean(b) => Unexpected::Bool(*b).to_string(),
        _ => return None,
    })
}

impl Scenario {
    /// Parses TOML text. Syntax, type and unknown-key errors name the key path.
    pub fn from_toml_str(text: &str) -> Result<Self, ScenarioError> {
        Self::from_toml_str_with_limits(text, &Limits::default())
    }

    /// [`Scenario::from_toml_str`] checked against `limits` instead of the defaults.
    pub fn from_toml_str_with_limits(text: &str, limits: &Limits) -> Result<Self, ScenarioError> {
        let de = toml::Deserializer::new(text);
        let sc: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { escape_controls(&path) };
            let inner = e.into_inner();
            // One line: the TOML parser's messages can span lines (a syntax error and what
            // it expected), and a key it quotes may hold a newline.
            let mut message = inner.message().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
            let path = refine_error_path(text, &path, &message).unwrap_or(path);
            if let Some(span) = inner.span() {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                message = format!("{message} (line {line})");
            }
            ScenarioError { path, message }
        })?;
        sc.validate_with_limits(limits)?;
        Ok(sc)
    }

    /// Total number of UEs.
    pub fn n_ues(&self) -> u32 {
        self.ues.iter().map(|g| g.count).sum()
    }

    /// Checks every range and cross-field rule, and the default [`Limits`].
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.validate_with_limits(&Limits::default())
    }

    /// Checks every range and cross-field rule, and `limits` (before anything that grows
    /// with the number of UEs or flows).
    pub fn validate_with_limits(&self, limits: &Limits) -> Result<(), ScenarioError> {
        let s = &self.simulation;
        if !(s.duration_s > 0.0 && s.duration_s <= 86_400.0) {
            return Err(ScenarioError::new("simulation.duration_s", s.duration_s, "a duration in seconds in (0, 86400]"));
        }
        if s.trace_interval_ms > 60_000 {
            return Err(ScenarioError::new(
                "simulation.trace_interval_ms",
                s.trace_interval_ms,
                "an interval in milliseconds in [1, 60000], or 0 for no traces",
            ));
        }
        let c = &self.cell;
        if cellshare_channel::prbs_for_bandwidth(c.bandwidth_mhz).is_none() {
            return Err(ScenarioError::new("cell.bandwidth_mhz", c.bandwidth_mhz, "one of 1.4, 3, 5, 10, 15, 20 (MHz)"));
        }
        if !(c.scheduler.time_constant_tti >= 1.0 && c.scheduler.time_constant_tti.is_finite()) {
            return Err(ScenarioError::new("cell.scheduler.time_constant_tti", c.scheduler.time_constant_tti, "a number of TTIs >= 1"));
        }
        if c.rlc_queue_bytes < 1500 {
            return Err(ScenarioError::new("cell.rlc_queue_bytes", c.rlc_queue_bytes, "at least 1500 bytes (one packet)"));
        }
        c.aqm.validate("cell.aqm", false)?;
        c.link.validate().map_err(|(k, v, e)| ScenarioError::new(format!("cell.link.{k}"), v, e))?;
        let w = &self.wired;
        for (key, v) in [("wired.remote_rate_mbps", w.remote_rate_mbps), ("wired.backhaul_rate_mbps", w.backhaul_rate_mbps)] {
            // 1 kbit/s to 1 Tbit/s: below, one packet takes hours to serialize.
            if !(v >= 1e-3 && v <= 1e6) {
                return Err(ScenarioError::new(key, v, "a rate in Mbps in [0.001, 1000000]"));
            }
        }
        for (key, v) in [
            ("wired.remote_delay_ms", w.remote_delay_ms),
            ("wired.backhaul_delay_ms", w.backhaul_delay_ms),
            ("wired.uplink_delay_ms", w.uplink_delay_ms),
        ] {
            if !(v >= 0.0 && v <= 10_000.0) {
                return Err(ScenarioError::new(key, v, "a delay in ms in [0, 10000]"));
            }
        }
        if !(w.remote_loss_rate >= 0.0 && w.remote_loss_rate < 1.0) {
            return Err(ScenarioError::new("wired.remote_loss_rate", w.remote_loss_rate, "a probability in [0, 1)"));
        }
        for (key, v) in [("wired.remote_queue_bytes", w.remote_queue_bytes), ("wired.backhaul_queue_bytes", w.backhaul_queue_bytes)] {
            if v < 1500 {
                return Err(ScenarioError::new(key, v, "at least 1500 bytes"));
            }
        }
        if let Some(f) = &self.shared_fifo {
            if !(f.rate_mbps > 0.0 && f.rate_mbps.is_finite()) {
                return Err(ScenarioError::new("shared_fifo.rate_mbps", f.rate_mbps, "a rate in Mbps > 0"));
            }
            if f.queue_bytes < 1500 {
                return Err(ScenarioError::new("shared_fifo.queue_bytes", f.queue_bytes, "at least 1500 bytes"));
            }
        }
        if self.ues.is_empty() {
            return Err(ScenarioError::new("ues", "an empty list", "at least one [[ues]] group"));
        }
        if let Some(net) = &self.network {
            net.validate().map_err(|(k, v, e)| ScenarioError::new(format!("network.{k}"), v, e))?;
            if self.shared_fifo.is_some() {
                return Err(ScenarioError::new("network", "a network with [shared_fifo]", "either [network] (LTE cells) or [shared_fifo], not both"));
            }
        }
        for (i, g) in self.ues.iter().enumerate() {
            if g.count == 0 || g.count > 10_000 {
                return Err(ScenarioError::new(format!("ues[{i}].count"), g.count, "a UE count in 1..=10000"));
            }
            if let Some(net) = &self.network {
                validate_network_ue(i, g, net)?;
                if let Some(u) = &g.uplink {
                    u.validate(&format!("ues[{i}].uplink"))?;
                }
                continue;
            }
            if let Some(m) = &g.mobility {
                return Err(ScenarioError::new(
                    format!("ues[{i}].mobility"),
                    format!("{{ kind = {:?} }} without [network]", m.kind()),
                    "a [network] table (UEs move among its cells; one cell is a network of one site)",
                ));
            }
            validate_channel(&format!("ues[{i}].channel"), &g.channel)?;
            if let Some(u) = &g.uplink {
                u.validate(&format!("ues[{i}].uplink"))?;
            }
        }
        limits.check(self)?;
        let n_ues = self.n_ues();
        // Each group's end (exclusive) in the UE numbering.
        let ends: Vec<u64> = self
            .ues
            .iter()
            .scan(0u64, |first, g| {
                *first += g.count as u64;
                Some(*first)
            })
            .collect();
        for (i, f) in self.flows.iter().enumerate() {
            let p = |k: &str| format!("flows[{i}].{k}");
            match (&f.ue, &f.ues) {
                (Some(_), Some(_)) => return Err(ScenarioError::new(p("ues"), "both `ue` and `ues`", "exactly one of `ue` and `ues`")),
                (None, None) => return Err(ScenarioError::new(p("ue"), "neither `ue` nor `ues`", "exactly one of `ue` and `ues`")),
                (Some(u), None) if *u >= n_ues => {
                    return Err(ScenarioError::new(p("ue"), u, format!("a UE index below {n_ues} (the scenario has {n_ues} UEs)")))
                }
                (None, Some(UeSelector::List(l))) => {
                    if l.is_empty() {
                        return Err(ScenarioError::new(p("ues"), "[]", "a non-empty list of UE indices or \"all\""));
                    }
                    if let Some(u) = l.iter().find(|&&u| u >= n_ues) {
                        return Err(ScenarioError::new(p("ues"), u, format!("UE indices below {n_ues}")));
                    }
                }
                _ => {}
            }
            if !(f.start_s >= 0.0 && f.start_s.is_finite()) {
                return Err(ScenarioError::new(p("start_s"), f.start_s, "a start time in seconds >= 0"));
            }
            if let Some(stop) = f.stop_s {
                if !(stop > f.start_s) {
                    return Err(ScenarioError::new(p("stop_s"), stop, format!("a stop time after start_s = {}", f.start_s)));
                }
            }
            if f.bytes == Some(0) {
                return Err(ScenarioError::new(p("bytes"), 0, "a flow size in bytes >= 1 (omit it for a bulk flow)"));
            }
            match (f.on_s, f.off_s) {
                (Some(on), Some(off)) => {
                    // At least a TTI (1 ms): shorter periods mean nothing to the cell, and
                    // periods that round to 0 ns would never let simulated time advance.
                    if !(on >= MIN_ON_OFF_S && on.is_finite()) {
                        return Err(ScenarioError::new(p("on_s"), on, "an on period in seconds >= 0.001 (one TTI)"));
                    }
                    if !(off >= MIN_ON_OFF_S && off.is_finite()) {
                        return Err(ScenarioError::new(p("off_s"), off, "an off period in seconds >= 0.001 (one TTI)"));
                    }
                    if f.bytes.is_some() {
                        return Err(ScenarioError::new(p("bytes"), "a size on an on/off flow", "either `bytes` or `on_s`/`off_s`, not both"));
                    }
                }
                (None, None) => {}
                (Some(_), None) => return Err(ScenarioError::new(p("off_s"), "nothing", "`off_s` together with `on_s`")),
                (None, Some(_)) => return Err(ScenarioError::new(p("on_s"), "nothing", "`on_s` together with `off_s`")),
            }
            f.transport.validate().map_err(|(k, v, e)| transport_error(p(&format!("transport.{k}")), v, e))?;
            if let Some(app) = &f.app {
                app.validate(&format!("flows[{i}]"), &f.transport, f.direction)?;
                if f.bytes.is_some() || f.on_s.is_some() {
                    return Err(ScenarioError::new(p("app"), app.kind(), "an app without `bytes`, `on_s` or `off_s`"));
                }
            } else if matches!(f.transport, TransportConfig::Udp {}) {
                return Err(ScenarioError::new(
                    p("transport.kind"),
                    "\"udp\"",
                    "an app that sends its own datagrams (app = { kind = \"video_call\" }), or \"cbr\" / \"tcp\"",
                ));
            }
            // An uplink leg (the flow itself, or a request/response app's response leg) needs
            // the UE's modelled uplink.
            let needs_uplink = f.direction == Direction::Uplink || f.app.as_ref().is_some_and(|a| a.needs_uplink());
            if needs_uplink {
                // The first UE without an uplink: per group for "all" (O(groups)), per UE of
                // a list through the groups' running totals (O(len · log groups)).
                let lacks = |u: u32| {
                    let g = ends.partition_point(|&end| end <= u as u64);
                    self.ues.get(g).is_none_or(|g| g.uplink.is_none())
                };
                let missing = match (&f.ue, &f.ues) {
                    (Some(u), _) => lacks(*u).then_some(*u),
                    (None, Some(UeSelector::List(l))) => l.iter().copied().find(|&u| lacks(u)),
                    _ => self.ues.iter().zip(&ends).find(|(g, _)| g.uplink.is_none()).map(|(g, &end)| (end - g.count as u64) as u32),
                };
                if let Some(u) = missing {
                    let what = if f.direction == Direction::Uplink { "direction" } else { "app" };
                    return Err(ScenarioError::new(
                        p(what),
                        format!("UE {u} without an uplink"),
                        "an `uplink` table in the UE's [[ues]] group (uploads and interactive apps need the modelled uplink)",
                    ));
                }
            }
        }
        if let Some(w) = &self.workload {
            if let UeSelector::List(l) = &w.ues {
                if l.is_empty() {
                    return Err(ScenarioError::new("workload.ues", "[]", "a non-empty list of UE indices or \"all\""));
                }
                if let Some(u) = l.iter().find(|&&u| u >= n_ues) {
                    return Err(ScenarioError::new("workload.ues", u, format!("UE indices below {n_ues}")));
                }
            }
            w.arrivals.validate().map_err(|(k, v, e)| ScenarioError::new(format!("workload.arrivals.{k}"), v, e))?;
            w.transport.validate().map_err(|(k, v, e)| transport_error(format!("workload.transport.{k}"), v, e))?;
            if matches!(w.transport, TransportConfig::Udp {}) {
                return Err(ScenarioError::new("workload.transport.kind", "\"udp\"", "\"tcp\" or \"cbr\" (workload flows have no app to send datagrams)"));
            }
            if !(w.start_s >= 0.0 && w.start_s.is_finite()) {
                return Err(ScenarioError::new("workload.start_s", w.start_s, "a start time in seconds >= 0"));
            }
            if let Some(stop) = w.stop_s {
                if stop.partial_cmp(&w.start_s) != Some(std::cmp::Ordering::Greater) {
                    return Err(ScenarioError::new("workload.stop_s", stop, format!("a stop time after start_s = {}", w.start_s)));
                }
            }
            if self.shared_fifo.is_some() {
                if let cellshare_workload::Arrivals::Poisson(_) = w.arrivals {
                    return Err(ScenarioError::new(
                        "workload.arrivals.kind",
                        "\"poisson\" behind a shared FIFO",
                        "an LTE cell (the load is a PRB utilization), or kind = \"randomized\"",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The uplink configuration of UE `ue`, if its group has one.
    pub fn uplink_of(&self, ue: u32) -> Option<&UplinkConfig> {
        let mut first = 0;
        for g in &self.ues {
            if ue < first + g.count {
                return g.uplink.as_ref();
            }
            first += g.count;
        }
        None
    }

    /// The position trace files the scenario reads (`ues[i].mobility = { kind = "trace" }`),
    /// as (key path, file as written).
    pub fn position_files(&self) -> Vec<(String, String)> {
        self.ues
            .iter()
            .enumerate()
            .filter_map(|(i, g)| match &g.mobility {
                Some(MobilityConfig::Trace { file }) => Some((format!("ues[{i}].mobility.file"), file.clone())),
                _ => None,
            })
            .collect()
    }

    /// The trace files the scenario reads, as (key path, file as written).
    pub fn trace_files(&self) -> Vec<(String, String)> {
        self.ues
            .iter()
            .enumerate()
            .flat_map(|(i, g)| {
                let down = match &g.channel {
                    ChannelConfig::Trace { file, .. } => Some((format!("ues[{i}].channel.file"), file.clone())),
                    _ => None,
                };
                let up = match g.uplink.as_ref().map(|u| &u.channel) {
                    Some(ChannelConfig::Trace { file, .. }) => Some((format!("ues[{i}].uplink.channel.file"), file.clone())),
                    _ => None,
                };
                down.into_iter().chain(up)
            })
            .collect()
    }
}

/// Checks UE group `i` of a network: a radio channel without a distance (the mobility places
/// the UE) or a fixed interference, and a mobility inside the network's area.
fn validate_network_ue(i: usize, g: &UeGroup, net: &NetworkConfig) -> Result<(), ScenarioError> {
    let ChannelConfig::Radio(r) = &g.channel else {
        return Err(ScenarioError::new(
            format!("ues[{i}].channel.kind"),
            format!("{:?}", g.channel.kind()),
            "\"radio\": a network's UEs receive every cell over radio channels",
        ));
    };
    for (key, given) in [("distance_m", r.distance_m.is_some()), ("distance_range_m", r.distance_range_m.is_some())] {
        if given {
            return Err(ScenarioError::new(
                format!("ues[{i}].channel.{key}"),
                "a distance in a network",
                format!("no `{key}`: a network's UEs are placed by `ues[{i}].mobility` (default: static, drawn over the area)"),
            ));
        }
    }
    if r.interference_dbm.is_some() {
        return Err(ScenarioError::new(
            format!("ues[{i}].channel.interference_dbm"),
            "a fixed interference in a network",
            "no `interference_dbm`: the network's cells interfere (network.interference)",
        ));
    }
    r.validate_link().map_err(|e| ScenarioError::new(format!("ues[{i}].channel.{}", e.field), e.value, e.expected))?;
    if let Some(m) = &g.mobility {
        m.validate(geometry::area(net)).map_err(|(k, v, e)| ScenarioError::new(format!("ues[{i}].mobility.{k}"), v, e))?;
    }
    Ok(())
}

/// Checks a channel's parameters; `at` is its key path (e.g. `ues[0].channel`).
pub fn validate_channel(at: &str, channel: &ChannelConfig) -> Result<(), ScenarioError> {
    match channel {
        ChannelConfig::Fixed { rate_mbps } => {
            if !(*rate_mbps > 0.0 && rate_mbps.is_finite() && *rate_mbps <= 100_000.0) {
                return Err(ScenarioError::new(format!("{at}.rate_mbps"), rate_mbps, "a rate in Mbps in (0, 100000]"));
            }
        }
        ChannelConfig::Trace { file, .. } => {
            if file.trim().is_empty() {
                return Err(ScenarioError::new(format!("{at}.file"), "an empty path", "the path of a Mahimahi trace file"));
            }
        }
        ChannelConfig::Radio(r) => {
            r.validate().map_err(|e| ScenarioError::new(format!("{at}.{}", e.field), e.value, e.expected))?;
        }
    }
    Ok(())
}
