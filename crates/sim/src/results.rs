//! What a run produces: the summary (serialized as `summary.json`) and the per-second series
//! and CDFs the Python layer writes as Parquet tables.

use serde::Serialize;

use cellshare_core::time::to_secs_f64;
use cellshare_core::TTI;
use cellshare_core::TrafficClass;

use cellshare_cell::LinkStats;
use cellshare_ran::HandoverLog;

use crate::engine::{DropCounts, Simulation};
use crate::metrics::{jain_index, DelayPercentiles};

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
    /// Jain's fairness index over the flows' throughputs.
    pub jain_index: f64,
    /// Discrete events processed.
    pub events: u64,
    /// TTIs in which the scheduler ran (idle TTIs are skipped).
    pub ttis: u64,
    /// Most packets alive at once.
    pub peak_packets: usize,
    /// Per-flow results.
    pub flows: Vec<FlowResult>,
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

/// What the user of an interactive app feels: request → whole response.
#[derive(Clone, Debug, Serialize)]
pub struct AppResult {
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

/// Nearest-rank percentile `q` (0..=1) of `sorted` (NaN when empty).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn app_result(f: &crate::engine::FlowRt) -> Option<AppResult> {
    let app = f.app.as_ref()?;
    let mut sorted = app.rtt_ms.clone();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let mean = if n > 0 { sorted.iter().sum::<f64>() / n as f64 } else { f64::NAN };
    Some(AppResult {
        kind: app.kind,
        requests: if app.tcp.is_some() { app.requests } else { f.sent_datagrams() },
        completed: n as u64,
        rtt_p50_ms: percentile(&sorted, 0.5),
        rtt_p95_ms: percentile(&sorted, 0.95),
        rtt_mean_ms: mean,
        rtt_max_ms: sorted.last().copied().unwrap_or(f64::NAN),
        t_s: app.t_s.clone(),
        rtt_ms: app.rtt_ms.clone(),
    })
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

pub(crate) fn collect(sim: &Simulation) -> RunResult {
    let end = sim.end;
    let dur = to_secs_f64(end);
    let lte = sim.scenario.shared_fifo.is_none();
    let total_prbs: u64 = sim.prbs.bins().iter().sum();
    let n_cells = sim.ran().map_or(1, |r| r.n_cells());
    let prb_per_sec = sim.n_prb as f64 * 1000.0 * n_cells as f64;
    let offered = Offered::of(sim);
    let flows: Vec<FlowResult> = sim
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let delivered = f.delivered();
            let life_end = match f.fct {
                Some(fct) => f.start + fct,
                None => f.stop.min(end),
            };
            let life = to_secs_f64(life_end.saturating_sub(f.start));
            let (retransmits, timeouts) = f.loss_stats();
            let (queue_delay_ms, rtt_ms, one_way_delay_ms) =
                f.final_delays.unwrap_or_else(|| (f.delay.percentiles(), f.rtt.percentiles(), f.owd.percentiles()));
            FlowResult {
                id: i as u32,
                name: f.name.clone(),
                ue: f.ue,
                class: f.class,
                category: f.category.to_string(),
                transport: f.label.clone(),
                start_s: to_secs_f64(f.start),
                size_bytes: f.size,
                bytes_delivered: delivered,
                throughput_mbps: if life > 0.0 { delivered as f64 * 8.0 / life / 1e6 } else { 0.0 },
                fct_s: f.fct.map(to_secs_f64),
                completed: f.size.is_some() && f.fct.is_some(),
                drops: f.drops,
                retransmits,
                timeouts,
                queue_delay_ms,
                rtt_ms,
                one_way_delay_ms,
                per_second_mbps: f.series.mbps(end),
                series_start_s: f.series.first_second(),
                trace: f.trace.clone(),
                mode_changes: f.mode_changes.clone(),
                direction: (f.dir == crate::apps::Direction::Uplink).then_some("uplink"),
                app: app_result(f),
            }
        })
        .collect();
    let tputs: Vec<f64> = flows.iter().map(|f| f.throughput_mbps).collect();
    let class = |name: String, member: &dyn Fn(&crate::engine::FlowRt) -> bool| {
        let mut delay = sim.closed_delay.get(&name).cloned().unwrap_or_default();
        let (mut n, mut air, mut good, mut drops) = (0u32, 0u64, 0u64, 0u64);
        for f in sim.flows.iter().filter(|f| member(f)) {
            delay.merge(&f.delay);
            n += 1;
            air += f.air_bytes;
            good += f.delivered();
            drops += f.drops;
        }
        let queue_delay_ms = delay.percentiles();
        let delivered_mbps = air as f64 * 8.0 / dur / 1e6;
        let power = if queue_delay_ms.p99 > 0.0 { delivered_mbps / queue_delay_ms.p99 } else { 0.0 };
        ClassResult { class: name, flows: n, delivered_mbps, goodput_mbps: good as f64 * 8.0 / dur / 1e6, drops, queue_delay_ms, power }
    };
    let mut classes = vec![
        class("foreground".into(), &|f| f.class == TrafficClass::Foreground),
        class("background".into(), &|f| f.class == TrafficClass::Background),
    ];
    let mut dscps: Vec<u8> = sim.flows.iter().map(|f| f.dscp).collect();
    dscps.sort_unstable();
    dscps.dedup();
    for d in dscps {
        classes.push(class(format!("dscp{d}"), &|f| f.dscp == d));
    }
    let (video_calls, streams, web) = sim.session_results();
    RunResult {
        video_calls,
        streams,
        web,
        scenario: sim.scenario.name.clone(),
        seed: sim.scenario.simulation.seed,
        duration_s: dur,
        access: if lte { "lte_cell".into() } else { "shared_fifo".into() },
        prb_utilization: if lte {
            offered.utilization(total_prbs, prb_per_sec * dur, sim.prb_bytes.bins().iter().sum())
        } else {
            0.0
        },
        prb_used_share_of_all: if lte { total_prbs as f64 / (prb_per_sec * dur) } else { 0.0 },
        prb_offered_share: if lte { offered.share(1000.0 * dur * n_cells as f64) } else { 0.0 },
        delivered_mbps: sim.air_bytes.bins().iter().sum::<u64>() as f64 * 8.0 / dur / 1e6,
        queue_delay_ms: sim.delay.percentiles(),
        drops: sim.drops,
        link: {
            let per_ue: Vec<LinkStats> = sim.ran().map_or(Vec::new(), |c| (0..c.n_ues() as u32).filter_map(|u| c.link_stats(u)).collect());
            let stats = (!per_ue.is_empty()).then(|| {
                let mut sum = LinkStats::default();
                per_ue.iter().for_each(|s| sum.add(s));
                sum
            });
            LinkResult {
                kind: if lte { sim.scenario.cell.link.kind_name() } else { "none" },
                retransmissions_per_block: stats.filter(|s| s.transport_blocks > 0).map(|s| s.retransmissions as f64 / s.transport_blocks as f64),
                stats,
            }
        },
        jain_index: jain_index(&tputs),
        events: sim.events,
        ttis: sim.ttis_run,
        peak_packets: sim.peak_packets(),
        flows,
        ues: sim
            .ues
            .iter()
            .enumerate()
            .map(|(i, u)| UeResult {
                id: i as u32,
                bytes: u.bytes,
                throughput_mbps: u.bytes as f64 * 8.0 / dur / 1e6,
                mean_snr_db: u.mean_snr_db,
                queue_delay_ms: u.delay.percentiles(),
                per_second_mbps: u.series.mbps(end),
                trace: u.trace.clone(),
                link: sim.ran().and_then(|c| c.link_stats(i as u32)),
            })
            .collect(),
        classes,
        workload: sim.workload.as_ref().map(|w| WorkloadResult {
            kind: sim.scenario.workload.as_ref().map_or("", |c| c.arrivals.kind()).to_string(),
            target_load: w.target_load,
            capacity_mbps: w.capacity_bytes_per_s * 8.0 / 1e6,
            offered_mbps: w.offered_bytes_per_s * 8.0 / 1e6,
            generated_mbps: w.bytes.iter().sum::<u64>() as f64 * 8.0 / dur / 1e6,
            flows: w.flows,
            bytes: w.bytes,
        }),
        series: CellSeries {
            prb_utilization: if lte {
                sim.prbs
                    .bins()
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| {
                        let len = (dur - i as f64).min(1.0);
                        let weighted = sim.prb_bytes.bins().get(i).copied().unwrap_or(0);
                        offered.utilization_in(i, b, prb_per_sec * len.max(0.0), weighted)
                    })
                    .collect()
            } else {
                vec![]
            },
            prb_used_share_of_all: if lte {
                sim.prbs
                    .bins()
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| {
                        let len = (dur - i as f64).min(1.0);
                        if len > 0.0 { b as f64 / (prb_per_sec * len) } else { 0.0 }
                    })
                    .collect()
            } else {
                vec![]
            },
            delivered_mbps: sim.air_bytes.mbps(end),
            queue_delay_cdf: sim.delay.cdf_ms(),
            one_way_delay_cdf: sim.owd.cdf_ms(),
        },
        cells: sim.ran().filter(|r| r.is_network()).map(|r| {
            r.sites()
                .iter()
                .zip(r.prbs_used())
                .enumerate()
                .map(|(i, (s, &p))| CellResult {
                    id: i as u32,
                    site: s.site,
                    x_m: s.pos[0],
                    y_m: s.pos[1],
                    azimuth_deg: s.azimuth.map(f64::to_degrees),
                    // A network's UEs are radio UEs: every cell offers every PRB.
                    prb_utilization: p as f64 / (sim.n_prb as f64 * 1000.0 * dur),
                    prb_used_share_of_all: p as f64 / (sim.n_prb as f64 * 1000.0 * dur),
                })
                .collect()
        }),
        handovers: sim.ran().and_then(|r| r.handovers().cloned()),
    }
}

/// What the run's cells offered ([`cellshare_cell::Cell::offers_every_tti`]): every PRB of
/// every TTI (radio and fixed channels; every network, whose UEs are radio UEs), or, in a cell
/// of trace UEs, the TTIs with an opportunity, their PRBs weighted by the bytes they carry.
struct Offered {
    /// Every TTI of every cell offered its PRBs, unweighted.
    every: bool,
    /// Per second of the run: (offered cell-TTIs, offered PRBs × bytes); empty when `every`.
    per_second: Vec<(u64, u64)>,
}

impl Offered {
    fn of(sim: &Simulation) -> Self {
        let every = Self { every: true, per_second: Vec::new() };
        let Some(ran) = sim.ran() else { return every };
        if ran.cells().iter().all(|c| c.offers_every_tti()) {
            return every;
        }
        // Only a lone cell can hold trace UEs (a network's UEs are radio UEs).
        let n_ttis = sim.end.div_ceil(TTI);
        Self { every: false, per_second: ran.cells()[0].offered_per_second(n_ttis) }
    }

    /// PRBs used over PRBs offered. `used` PRBs of `all` (the run's PRBs) when every TTI
    /// offered, computed exactly as before trace channels were accounted for (radio and
    /// fixed outputs unchanged to the byte); else `used_weighted` (PRBs × bytes,
    /// [`cellshare_cell::TtiReport::prb_bytes_used`]) over the offered weighted PRBs. 0 when
    /// nothing was offered.
    fn utilization(&self, used: u64, all: f64, used_weighted: u64) -> f64 {
        if self.every {
            return used as f64 / all;
        }
        let offered: u64 = self.per_second.iter().map(|&(_, w)| w).sum();
        if offered > 0 { used_weighted as f64 / offered as f64 } else { 0.0 }
    }

    /// The utilization of second `i` (`None` when it offered nothing); `used`, `all` and
    /// `used_weighted` are that second's.
    fn utilization_in(&self, i: usize, used: u64, all: f64, used_weighted: u64) -> Option<f64> {
        if self.every {
            return Some(if all > 0.0 { used as f64 / all } else { 0.0 });
        }
        let offered = self.per_second.get(i).map_or(0, |&(_, w)| w);
        (offered > 0).then(|| used_weighted as f64 / offered as f64)
    }

    /// Offered TTIs over the run's TTIs, `all_ttis` (summed over the cells).
    fn share(&self, all_ttis: f64) -> f64 {
        if self.every {
            return 1.0;
        }
        self.per_second.iter().map(|&(n, _)| n).sum::<u64>() as f64 / all_ttis
    }
}
