//! What a run produces: the summary (serialized as `summary.json`) and the per-second series
//! and CDFs the Python layer writes as Parquet tables. The types only: the engine fills them
//! (`engine/collect.rs`).

use std::collections::BTreeMap;

use serde::Serialize;

use cellshare_core::TrafficClass;

use cellshare_cell::LinkStats;
use cellshare_ran::HandoverLog;

use crate::metrics::DelayPercentiles;

/// What the user of an interactive app (ping, game, voip) feels: request → whole response.
pub use cellshare_apps::RttReport as AppResult;

/// Drop counters by cause.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct DropCounts {
    /// Rejected at the base-station queue on arrival (queue full or AQM).
    pub bs_enqueue: u64,
    /// Dropped at the base-station queue at dequeue (AQM) or pushed out by head drop.
    pub bs_dequeue: u64,
    /// Dropped on arrival at the base station by a cell-level dropper (Sneaker, strict
    /// priority) before reaching the UE's queue.
    pub bs_admission: u64,
    /// Lost over the air (realistic link on radio channels): a transport block carrying
    /// part of the packet was given up by HARQ, or its control information missed (reported
    /// only when non-zero).
    #[serde(skip_serializing_if = "is_zero")]
    pub air: u64,
    /// Lost at a handover (a network of cells; reported only when non-zero): in HARQ or on
    /// air when the UE left its cell, partly sent, or queued with `forwarding = "drop"`.
    #[serde(skip_serializing_if = "is_zero")]
    pub handover: u64,
    /// Dropped at a full wired-link buffer.
    pub wired: u64,
    /// Lost at random on a server's remote link (`wired.remote_loss_rate`; reported only
    /// when non-zero).
    #[serde(skip_serializing_if = "is_zero")]
    pub random_loss: u64,
    /// Dropped at the full shared FIFO.
    pub shared_fifo: u64,
    /// Dropped at a UE's full device transmit queue (reported only when non-zero, i.e.
    /// with a modelled uplink).
    #[serde(skip_serializing_if = "is_zero")]
    pub device: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Results of one run.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// Scenario name.
    pub scenario: String,
    /// Seed used.
    pub seed: u64,
    /// Simulated seconds.
    pub duration_s: f64,
    /// Access type: `"lte_cell"` or `"shared_fifo"`.
    pub access: String,
    /// PRBs used over PRBs *offered* across the run (LTE cell only; 0 for a shared FIFO; 0
    /// when nothing was offered). Radio and fixed channels offer every PRB of every TTI, so
    /// there it is PRBs used over all PRBs. In a cell of trace UEs a TTI offers its PRBs when
    /// some UE's trace has an opportunity in it, and PRBs count weighted by the bytes they
    /// carry in that TTI: the share of the offered delivery opportunities used
    /// ([`Cell::offers_every_tti`], `docs/outputs.md`).
    ///
    /// [`Cell::offers_every_tti`]: cellshare_cell::Cell::offers_every_tti
    pub prb_utilization: f64,
    /// PRBs used over all the cell's PRBs of the run, offered or not (the figure
    /// `prb_utilization` was before trace channels were accounted for; equal to it on radio
    /// and fixed channels). 0 for a shared FIFO.
    pub prb_used_share_of_all: f64,
    /// Share of the run's TTIs that offered the cell's PRBs (1 on radio and fixed channels;
    /// on trace channels the share of milliseconds with an opportunity). 0 for a shared FIFO.
    pub prb_offered_share: f64,
    /// Bytes delivered over the access link (headers included), as Mbps over the run.
    pub delivered_mbps: f64,
    /// Sojourn at the base station (arrival at the queue to end of the TTI that carried the
    /// packet's last byte; for a shared FIFO, to the end of its serialization), all packets.
    pub queue_delay_ms: DelayPercentiles,
    /// Drops by cause.
    pub drops: DropCounts,
    /// The radio link (`cell.link`) and, for the realistic link, what it did over the
    /// cell's radio UEs.
    pub link: LinkResult,
    /// Jain's fairness index over the throughputs of every flow (workload arrivals and
    /// apps' legs included; 1 with no flow).
    pub jain_index: f64,
    /// Jain's fairness index over the throughputs of the long-lived flows: the `[[flows]]`
    /// entries without a `size` or an on/off pattern that are not an app's legs, either
    /// direction, save a `cbr` source the network carried whole (goodput at least 90 % of
    /// its set rate's payload: limited by its own rate, not by the network). The throughput
    /// fairness among competing bulk flows the papers report; `None` with fewer than two.
    pub bulk_jain_index: Option<f64>,
    /// Discrete events processed.
    pub events: u64,
    /// TTIs in which the scheduler ran (idle TTIs are skipped).
    pub ttis: u64,
    /// Most packets alive at once.
    pub peak_packets: usize,
    /// Per-flow results.
    pub flows: Vec<FlowResult>,
    /// The flows of the scenario's `[[flows]]` entries that are not an app's legs, by id
    /// (bulk, sized and on/off flows): the flows a run summary lists one by one.
    pub entry_flows: Vec<u32>,
    /// The flows that come in numbers, summarised by group: the workload's arrivals per
    /// size class, then the legs of the apps' sessions per app kind.
    pub flow_groups: Vec<FlowGroup>,
    /// Per-UE results.
    pub ues: Vec<UeResult>,
    /// Per traffic class: foreground, background, then one entry per DSCP value in use.
    pub classes: Vec<ClassResult>,
    /// The generated workload (when the scenario has `[workload]`).
    pub workload: Option<WorkloadResult>,
    /// Video calls (`app = { kind = "video_call" }`), with every frame.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub video_calls: Vec<SessionResult>,
    /// Adaptive streams (`app = { kind = "stream" }`), with every chunk.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<SessionResult>,
    /// Web page loads (`app = { kind = "web" }`), with every page.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub web: Vec<SessionResult>,
    /// What the apps measured, per app kind present, pooled over the kind's sessions.
    #[serde(skip_serializing_if = "AppsSummary::is_empty")]
    pub apps: AppsSummary,
    /// The sessions of the other apps with a list of their own, by the list's name
    /// (`cellshare_apps::AppReport::TABLE`); each list is a key of the summary.
    #[serde(flatten)]
    pub app_tables: BTreeMap<&'static str, Vec<SessionResult>>,
    /// Cell-wide per-second series.
    pub series: CellSeries,
    /// The network's cells (a scenario with `[network]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells: Option<Vec<CellResult>>,
    /// Every handover (a scenario with `[network]`): time, UE, source and target cells,
    /// their filtered RSRP at the decision, packets forwarded, lost and dropped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handovers: Option<HandoverLog>,
}

/// One cell of a network.
#[derive(Clone, Debug, Serialize)]
pub struct CellResult {
    /// Cell index.
    pub id: u32,
    /// Its site's index.
    pub site: u32,
    /// Site position, metres.
    pub x_m: f64,
    /// Site position, metres.
    pub y_m: f64,
    /// Sector boresight, degrees from the x axis (`None`: omnidirectional).
    pub azimuth_deg: Option<f64>,
    /// PRBs used over PRBs offered across the run (see [`RunResult::prb_utilization`]; a
    /// network's cells offer every PRB, their UEs being radio UEs, so it equals
    /// `prb_used_share_of_all`).
    pub prb_utilization: f64,
    /// PRBs used over all the cell's PRBs of the run (see [`RunResult::prb_used_share_of_all`]).
    pub prb_used_share_of_all: f64,
}

/// The cell's radio link and its HARQ counts.
#[derive(Clone, Debug, Serialize)]
pub struct LinkResult {
    /// `"realistic"` or `"ideal"` (the scenario's `cell.link.kind`); `"none"` behind a shared FIFO.
    pub kind: &'static str,
    /// Sums over the UEs with a realistic link (radio channels), when there are any.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub stats: Option<LinkStats>,
    /// HARQ retransmissions per new transport block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retransmissions_per_block: Option<f64>,
}

/// One flow's results.
#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    /// Flow index.
    pub id: u32,
    /// Flow name.
    pub name: String,
    /// Receiving UE.
    pub ue: u32,
    /// Traffic class.
    pub class: TrafficClass,
    /// `"short"`, `"medium"` or `"long"` for workload flows, `"background"` for `[[flows]]`
    /// entries with `class = "background"`, `"custom"` for other `[[flows]]` entries.
    pub category: String,
    /// Transport label, e.g. `"tcp-cubic"`.
    pub transport: String,
    /// Start time, s.
    pub start_s: f64,
    /// Flow size in payload bytes (finite flows; `None` for bulk and on/off flows).
    pub size_bytes: Option<u64>,
    /// Payload bytes delivered to the receiving application.
    pub bytes_delivered: u64,
    /// Goodput over the flow's life (start to completion, stop or end of run), Mbps.
    pub throughput_mbps: f64,
    /// Flow completion time (start to last byte delivered), s; `None` if not finite or not
    /// completed. With the TCP handshake (`transport.tcp.handshake`, default on) it
    /// includes the handshake: the start is the SYN, as an FCT measured from `connect()`.
    pub fct_s: Option<f64>,
    /// Whether a finite flow completed.
    pub completed: bool,
    /// Packets of this flow dropped anywhere.
    pub drops: u64,
    /// Retransmitted segments.
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Sojourn of this flow's packets at the base station.
    pub queue_delay_ms: DelayPercentiles,
    /// Wait of this flow's delivered data packets in the base-station queue before their
    /// service began: arrival at the queue to the moment the queue discipline let the packet
    /// through and its first byte went into a transport block (a shared FIFO: its
    /// serialization began; uplink data: the wait in the UE's device queue). The sojourn a
    /// dequeue-time discipline bounds (BoDe's BoundedDelay); `queue_delay_ms` adds the
    /// transmission, to the end of the TTI that carried the last byte.
    pub queue_wait_ms: DelayPercentiles,
    /// The sender's smoothed RTT sampled after every ACK (TCP flows; empty otherwise).
    pub rtt_ms: DelayPercentiles,
    /// One-way delay of each data packet the receiver did not already hold, from the first
    /// transmission of its payload (a retransmitted packet counts from its first copy, so
    /// the time spent on retransmissions is included) to its arrival at the receiver.
    pub one_way_delay_ms: DelayPercentiles,
    /// Goodput per second of simulated time, Mbps; element i is second `series_start_s + i`.
    pub per_second_mbps: Vec<f64>,
    /// The second of `per_second_mbps[0]`: 0 for `[[flows]]` entries (whole run); a
    /// workload flow's series starts at its arrival and ends at its last delivery.
    pub series_start_s: u64,
    /// Fine-grained samples every `simulation.trace_interval_ms` (empty when traces are off).
    pub trace: FlowTrace,
    /// The congestion controller's mode changes, as they happened (controllers with modes,
    /// e.g. Legilimens: 0 NORMAL, 1–3 GAP I–III, 4 back-off).
    pub mode_changes: ModeChanges,
    /// `"uplink"` for an upload (or an app leg whose data goes up); absent for downlink.
    /// For uplink data `queue_delay_ms` is the sojourn in the UE's device queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<&'static str>,
    /// An interactive app's per-request RTTs (its request leg only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<AppResult>,
}

/// What an app session measured (see `cellshare-apps`).
#[derive(Clone, Debug, Serialize)]
pub struct SessionResult {
    /// The flow of the app's `[[flows]]` entry (its first leg).
    pub flow: u32,
    /// That flow's name.
    pub name: String,
    /// The UE.
    pub ue: u32,
    /// The app's measurements.
    #[serde(flatten)]
    pub report: cellshare_apps::Report,
}

/// Flows summarised together ([`RunResult::flow_groups`]).
#[derive(Clone, Debug, Serialize)]
pub struct FlowGroup {
    /// `"workload"`: the arrivals of `[workload]` of one size class; `"app"`: the legs of
    /// the sessions of one app kind.
    pub source: &'static str,
    /// The size class (`"short"`, `"medium"`, `"long"`) or the app kind (`"web"`,
    /// `"video_call"`, `"stream"`, `"ping"`, `"game"`, `"voip"`, ...).
    pub name: &'static str,
    /// Flows in the group.
    pub flows: u32,
    /// App sessions (0 for the workload).
    pub sessions: u32,
    /// Finite flows that completed (0 for apps' legs).
    pub completed: u32,
    /// Payload bytes delivered to the receiving applications.
    pub bytes_delivered: u64,
    /// Those bytes over the run, Mbps.
    pub goodput_mbps: f64,
    /// Median flow completion time of the completed flows, s (`None` without one).
    pub fct_p50_s: Option<f64>,
    /// 95th percentile (nearest rank) of the same, s.
    pub fct_p95_s: Option<f64>,
}

/// What the apps measured per app kind ([`RunResult::apps`]): each kind present, pooled
/// over its sessions. Percentiles are nearest-rank over the pooled events (pages, frames,
/// requests), as each session's own are over its events.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AppsSummary {
    /// Web page loads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web: Option<WebSummary>,
    /// Video calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub video_call: Option<VideoCallSummary>,
    /// Adaptive streams.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamSummary>,
    /// The request/response apps (`ping`, `game`, `voip`), by kind.
    #[serde(flatten)]
    pub rtt: BTreeMap<&'static str, RttSummary>,
}

impl AppsSummary {
    /// Whether the run had no app session.
    pub fn is_empty(&self) -> bool {
        self.web.is_none() && self.video_call.is_none() && self.stream.is_none() && self.rtt.is_empty()
    }
}

/// The web sessions' page loads, pooled.
#[derive(Clone, Debug, Default, Serialize)]
pub struct WebSummary {
    /// Sessions.
    pub sessions: u32,
    /// Pages whose load started.
    pub pages_started: u64,
    /// Pages loaded.
    pub pages_loaded: u64,
    /// Pages started but not loaded by the end of the run.
    pub pages_unfinished: u64,
    /// Median page load time, s (NaN, serialized as null, without a loaded page).
    pub load_time_p50_s: f64,
    /// 95th-percentile page load time, s.
    pub load_time_p95_s: f64,
    /// Mean page load time, s.
    pub load_time_mean_s: f64,
}

/// The video calls' frames, pooled.
#[derive(Clone, Debug, Default, Serialize)]
pub struct VideoCallSummary {
    /// Calls.
    pub sessions: u32,
    /// Frames captured and sent.
    pub frames_sent: u64,
    /// Frames shown.
    pub frames_rendered: u64,
    /// Frames shown more than `freeze_ms` after their capture.
    pub frames_late: u64,
    /// Frames with a lost packet.
    pub frames_lost: u64,
    /// Frames complete but not decodable.
    pub frames_undecodable: u64,
    /// Median delay of the shown frames, ms (NaN, serialized as null, without one).
    pub frame_delay_p50_ms: f64,
    /// 95th percentile, ms.
    pub frame_delay_p95_ms: f64,
    /// Runs of frozen frames, summed over the calls.
    pub freezes: u64,
    /// Frozen frames × frame interval, s, summed over the calls.
    pub freeze_s: f64,
    /// Media received, kbit/s, the mean over the calls.
    pub bitrate_kbps: f64,
}

/// The adaptive streams, pooled.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StreamSummary {
    /// Streams.
    pub sessions: u32,
    /// Chunks that arrived, summed.
    pub chunks_downloaded: u64,
    /// QoE, the MPC paper's Eq. (5), the mean over the streams.
    pub qoe: f64,
    /// QoE over the chunks downloaded, the mean over the streams (NaN, serialized as null,
    /// when no stream downloaded a chunk).
    pub qoe_per_chunk: f64,
    /// Mean bitrate of the chunks that arrived, kbit/s, the mean over the streams.
    pub bitrate_kbps: f64,
    /// Stalled playback after the start, s, summed over the streams.
    pub rebuffer_s: f64,
    /// Stalls, summed.
    pub rebuffers: u64,
    /// Changes of bitrate between consecutive chunks, summed.
    pub switches: u64,
    /// From the session's start to playback, s, the mean over the streams that started (NaN,
    /// serialized as null, when none did).
    pub startup_delay_s: f64,
}

/// A request/response app's requests (ping, game, voip), pooled.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RttSummary {
    /// Sessions.
    pub sessions: u32,
    /// Requests issued (VoIP: datagrams sent).
    pub requests: u64,
    /// Requests completed.
    pub completed: u64,
    /// Median RTT, ms (NaN, serialized as null, without a completed request).
    pub rtt_p50_ms: f64,
    /// 95th-percentile RTT, ms.
    pub rtt_p95_ms: f64,
}

/// What the workload generated.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadResult {
    /// `"poisson"` or `"randomized"`.
    pub kind: String,
    /// Target PRB utilization (Poisson arrivals; `None` for the randomized workload).
    pub target_load: Option<f64>,
    /// Estimated capacity of the workload's UEs (ρ = 1), payload Mbps (see `load`).
    pub capacity_mbps: f64,
    /// Mean offered payload rate, Mbps.
    pub offered_mbps: f64,
    /// Payload bytes generated over the run divided by its duration, Mbps.
    pub generated_mbps: f64,
    /// Flows generated per category: short, medium, long.
    pub flows: [u64; 3],
    /// Payload bytes generated per category: short, medium, long.
    pub bytes: [u64; 3],
}

/// One UE's results.
#[derive(Clone, Debug, Serialize)]
pub struct UeResult {
    /// UE index.
    pub id: u32,
    /// Bytes received over the air (headers included).
    pub bytes: u64,
    /// Mbps over the run.
    pub throughput_mbps: f64,
    /// Mean SNR without fading (radio channels only), dB.
    pub mean_snr_db: Option<f64>,
    /// Sojourn of this UE's packets at the base station.
    pub queue_delay_ms: DelayPercentiles,
    /// Received Mbps per second.
    pub per_second_mbps: Vec<f64>,
    /// Base-station queue samples every `simulation.trace_interval_ms` (empty when traces are
    /// off or the access is a shared FIFO).
    pub trace: UeTrace,
    /// What the realistic link did for this UE (radio channels under `cell.link = { kind =
    /// "realistic" }`): new transport blocks, HARQ retransmissions, block errors, residual
    /// (given-up) blocks and the packets lost with them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkStats>,
}

/// One fine-grained sample of a flow, taken at `t_s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowSample {
    /// Sample time, seconds.
    pub t_s: f64,
    /// Payload delivered in order to the receiver over the interval ending at `t_s`, Mbit/s.
    pub mbps: f64,
    /// Congestion window, bytes (0 for non-TCP flows).
    pub cwnd_bytes: u64,
    /// Smoothed RTT, ms (0 before the first sample, and for non-TCP flows).
    pub srtt_ms: f64,
    /// The controller's mode (controller-defined; 0 when it has none).
    pub mode: u8,
    /// The controller's estimate (Legilimens: capacity in Mbit/s; NaN, serialized as null,
    /// when it has none).
    pub estimate: f64,
    /// The controller's flag (Legilimens: cell busy).
    pub flag: bool,
    /// A second transport-specific quantity (Sprout: the posterior mean link rate, Mbit/s;
    /// Verus: the delay profile's delay at the current window, ms; PCC-Vivace: the utility of
    /// the latest monitor interval; NaN, serialized as null, for the others).
    pub aux: f64,
}

/// A change of a controller's mode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModeChange {
    /// When, seconds.
    pub t_s: f64,
    /// The new mode.
    pub mode: u8,
}

/// One fine-grained sample of a UE's base-station queue, taken at `t_s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UeSample {
    /// Sample time, seconds.
    pub t_s: f64,
    /// Bytes queued.
    pub queue_bytes: u64,
    /// Packets queued.
    pub queue_packets: u32,
}

/// Aggregates over the flows of one traffic class.
#[derive(Clone, Debug, Serialize)]
pub struct ClassResult {
    /// `"foreground"`, `"background"`, or `"dscp<N>"` for the flows carrying DSCP value N.
    pub class: String,
    /// Flows in the class.
    pub flows: u32,
    /// Delivery rate: bytes of the class's packets delivered over the access link (headers
    /// included) over the run, Mbps.
    pub delivered_mbps: f64,
    /// Payload delivered in order to the receiving applications over the run, Mbps.
    pub goodput_mbps: f64,
    /// Packets of the class dropped anywhere.
    pub drops: u64,
    /// Sojourn of the class's packets at the base station.
    pub queue_delay_ms: DelayPercentiles,
    /// BoDe's power: delivery rate over p99 sojourn, Mbps per ms (0 without samples).
    pub power: f64,
}

/// A flow's fine-grained samples, one column per field of [`FlowSample`] (columns, not a
/// list of records: a 100-UE minute is 60 000 samples, and records cost several times the
/// memory once the results are read into Python).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FlowTrace {
    /// Sample times, seconds.
    pub t_s: Vec<f64>,
    /// Payload delivered over each interval, Mbit/s.
    pub mbps: Vec<f64>,
    /// Congestion windows, bytes.
    pub cwnd_bytes: Vec<u64>,
    /// Smoothed RTTs, ms.
    pub srtt_ms: Vec<f64>,
    /// Controller modes.
    pub mode: Vec<u8>,
    /// Controller estimates (NaN, serialized as null, when none).
    pub estimate: Vec<f64>,
    /// Controller flags.
    pub flag: Vec<bool>,
    /// Second transport-specific quantities (NaN, serialized as null, when none).
    pub aux: Vec<f64>,
}

impl FlowTrace {
    /// Appends one sample.
    pub fn push(&mut self, s: FlowSample) {
        self.t_s.push(s.t_s);
        self.mbps.push(s.mbps);
        self.cwnd_bytes.push(s.cwnd_bytes);
        self.srtt_ms.push(s.srtt_ms);
        self.mode.push(s.mode);
        self.estimate.push(s.estimate);
        self.flag.push(s.flag);
        self.aux.push(s.aux);
    }

    /// Samples held.
    pub fn len(&self) -> usize {
        self.t_s.len()
    }

    /// Whether none are held.
    pub fn is_empty(&self) -> bool {
        self.t_s.is_empty()
    }
}

/// A controller's mode changes, one column per field of [`ModeChange`].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ModeChanges {
    /// When, seconds.
    pub t_s: Vec<f64>,
    /// The new modes.
    pub mode: Vec<u8>,
    /// The mode after the last change (0 before any), kept when the columns are taken.
    #[serde(skip)]
    last: u8,
}

impl ModeChanges {
    /// Appends one change.
    pub fn push(&mut self, c: ModeChange) {
        self.t_s.push(c.t_s);
        self.mode.push(c.mode);
        self.last = c.mode;
    }

    /// The mode after the last change (0 before any).
    pub fn current(&self) -> u8 {
        self.last
    }

    /// Changes held.
    pub fn len(&self) -> usize {
        self.t_s.len()
    }

    /// Whether none are held.
    pub fn is_empty(&self) -> bool {
        self.t_s.is_empty()
    }

    /// Moves the changes held out (the current mode stays).
    pub fn take(&mut self) -> ModeChanges {
        ModeChanges { t_s: std::mem::take(&mut self.t_s), mode: std::mem::take(&mut self.mode), last: self.last }
    }
}

/// A UE's queue samples, one column per field of [`UeSample`].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct UeTrace {
    /// Sample times, seconds.
    pub t_s: Vec<f64>,
    /// Bytes queued.
    pub queue_bytes: Vec<u64>,
    /// Packets queued.
    pub queue_packets: Vec<u32>,
    /// Position, metres (a network only; empty otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub x_m: Vec<f64>,
    /// Position, metres (a network only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub y_m: Vec<f64>,
    /// Serving cell (a network only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cell: Vec<u32>,
    /// Filtered RSRP of the serving cell, dBm (a network only; NaN, serialized as null,
    /// before the first measurement).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rsrp_dbm: Vec<f64>,
}

impl UeTrace {
    /// Appends one sample.
    pub fn push(&mut self, s: UeSample) {
        self.t_s.push(s.t_s);
        self.queue_bytes.push(s.queue_bytes);
        self.queue_packets.push(s.queue_packets);
    }

    /// Samples held.
    pub fn len(&self) -> usize {
        self.t_s.len()
    }

    /// Whether none are held.
    pub fn is_empty(&self) -> bool {
        self.t_s.is_empty()
    }

    /// Appends where the UE is to the sample just pushed (a network).
    pub fn push_place(&mut self, pos: [f64; 2], cell: u32, rsrp_dbm: f64) {
        self.x_m.push(pos[0]);
        self.y_m.push(pos[1]);
        self.cell.push(cell);
        self.rsrp_dbm.push(rsrp_dbm);
    }
}

/// Trace samples taken out of a running simulation by [`Simulation::take_traces`]: per flow
/// and per UE (by index), what was recorded since the previous call.
///
/// [`Simulation::take_traces`]: crate::Simulation::take_traces
#[derive(Clone, Debug, Default)]
pub struct TraceDrain {
    /// (flow index, its samples, its mode changes), flows with something recorded only.
    pub flows: Vec<(u32, FlowTrace, ModeChanges)>,
    /// (UE index, its queue samples), UEs with something recorded only.
    pub ues: Vec<(u32, UeTrace)>,
}

/// Cell-wide per-second series.
#[derive(Clone, Debug, Serialize)]
pub struct CellSeries {
    /// PRBs used over PRBs offered, per second (0..1; `None` for a second in which nothing
    /// was offered: a trace channel without opportunities).
    pub prb_utilization: Vec<Option<f64>>,
    /// PRBs used over all the cell's PRBs, per second (0..1).
    pub prb_used_share_of_all: Vec<f64>,
    /// Delivered Mbps per second.
    pub delivered_mbps: Vec<f64>,
    /// CDF of all packets' sojourn as (ms, fraction) points.
    pub queue_delay_cdf: Vec<(f64, f64)>,
    /// CDF of all data packets' one-way delay (first transmission to arrival, see
    /// `FlowResult::one_way_delay_ms`) as (ms, fraction) points.
    pub one_way_delay_cdf: Vec<(f64, f64)>,
}
