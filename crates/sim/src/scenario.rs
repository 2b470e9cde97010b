//! Scenarios: the TOML a user writes, as serde types.
//!
//! Every struct here derives `schemars::JsonSchema`; the scenario reference
//! (`docs/scenario-reference.md`) is generated from these types and their doc comments, so
//! each field's doc states its unit and default. Unknown keys are errors
//! (`deny_unknown_fields`). A component's own table is defined with the component: the
//! queue disciplines' [`AqmConfig`] in `cellshare-aqm`, the channels' [`ChannelConfig`] in
//! [`crate::channel`], the uplink's in [`crate::uplink`], the transports' in
//! [`crate::transport`], the apps' in [`crate::apps`]. [`Scenario::from_toml_str`] and
//! [`Scenario::validate`] (in `validate.rs`) parse and check a scenario, reporting the
//! full key path, the offending value and what was expected.

use serde::{Deserialize, Serialize};

use cellshare_cell::nr::{NrConfig, Rat};
use cellshare_cell::{LinkConfig, LinkKind, SchedulerConfig};
use cellshare_core::TrafficClass;
use cellshare_ran::{MobilityConfig, NetworkConfig};

use crate::apps::{AppConfig, Direction};
use crate::transport::TransportConfig;
use crate::uplink::UplinkConfig;

pub use cellshare_aqm::{AqmConfig, DiffServClass, DiffServConfig};
pub use cellshare_core::ScenarioError;

pub use crate::channel::{validate_channel, ChannelConfig};

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
    /// The cell: LTE, or 5G NR with `rat = "nr"` (ignored when `shared_fifo` is given).
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

/// `[cell]`: the base station's downlink (an LTE eNB, or an NR gNB with `rat = "nr"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CellConfig {
    /// The radio access technology: `"lte"` (1 ms TTIs, TS 36.213) or `"nr"` (5G NR slots
    /// of 1/2^μ ms, TS 38.214, configured by `[cell.nr]`; docs/nr.md). On NR every "TTI" of
    /// the other keys and of the outputs is a slot. Default `"lte"`.
    pub rat: Rat,
    /// Channel bandwidth in MHz. LTE: 1.4, 3, 5, 10, 15 or 20 (6, 15, 25, 50, 75 or 100
    /// PRBs). NR: a carrier of TS 38.101-1/-2 Table 5.3.2-1 for the numerology and frequency
    /// range of `[cell.nr]` (5 to 100 MHz in FR1, 50 to 400 MHz in FR2; e.g. 100 MHz at
    /// 30 kHz is 273 PRBs). Default 10 (50 PRBs), as in the papers.
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
    /// The NR carrier (read when `rat = "nr"`): numerology, frequency range, MCS/CQI tables,
    /// PDSCH resources, the UE's layers, HARQ processes and K1, TDD pattern.
    pub nr: NrConfig,
}

impl CellConfig {
    /// The scheduling period: LTE's 1 ms TTI, or the NR numerology's slot.
    pub fn slot(&self) -> cellshare_core::Slot {
        match self.rat {
            Rat::Lte => cellshare_core::Slot::LTE,
            Rat::Nr => self.nr.slot(),
        }
    }

    /// Whether the cell is an NR cell.
    pub fn is_nr(&self) -> bool {
        self.rat == Rat::Nr
    }

    /// The PRBs of the carrier, or the error naming `cell.bandwidth_mhz` and the bandwidths
    /// allowed.
    pub fn n_prb(&self) -> Result<u32, ScenarioError> {
        match self.rat {
            Rat::Lte => cellshare_channel::prbs_for_bandwidth(self.bandwidth_mhz)
                .ok_or_else(|| ScenarioError::new("cell.bandwidth_mhz", self.bandwidth_mhz, "one of 1.4, 3, 5, 10, 15, 20 (MHz)")),
            Rat::Nr => self.nr.n_prb(self.bandwidth_mhz).map_err(|(_, v, e)| ScenarioError::new("cell.bandwidth_mhz", v, e)),
        }
    }

    /// The TDD pattern of an NR cell, if any.
    pub fn tdd(&self) -> Option<cellshare_cell::nr::TddPattern> {
        if self.is_nr() {
            self.nr.tdd()
        } else {
            None
        }
    }

    /// The radio link the cell runs: `link`, on NR with its HARQ processes and round trip
    /// from `[cell.nr]` (`harq_processes`; `pipeline_delay_tti` + `k1_slots` + 1).
    pub fn effective_link(&self) -> LinkConfig {
        match self.rat {
            Rat::Lte => self.link.clone(),
            Rat::Nr => LinkConfig {
                harq_processes: self.nr.harq_processes,
                harq_rtt_tti: self.link.pipeline_delay_tti + self.nr.k1_slots + 1,
                ..self.link.clone()
            },
        }
    }

    /// The downlink PRBs offered per second: every slot's on FDD, the `D` and `S` slots' on
    /// TDD.
    pub fn downlink_share(&self) -> f64 {
        self.tdd().map_or(1.0, |p| p.downlink_share())
    }

    /// Whether the realistic link is on (for the UEs on radio channels).
    pub fn realistic(&self) -> bool {
        self.link.kind == LinkKind::Realistic
    }
}

impl Default for CellConfig {
    fn default() -> Self {
        Self {
            bandwidth_mhz: 10.0,
            scheduler: SchedulerConfig::default(),
            rlc_queue_bytes: 512 * 1024,
            aqm: AqmConfig::default(),
            link: LinkConfig::default(),
            rat: Rat::default(),
            nr: NrConfig::default(),
        }
    }
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

impl Scenario {
    /// Total number of UEs.
    pub fn n_ues(&self) -> u32 {
        self.ues.iter().map(|g| g.count).sum()
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
