//! The simulation engine: a discrete-event core for everything that is not TTI-aligned
//! (wired links, endpoint timers, ACKs) interleaved with the 1 ms TTI loop of the cell.
//!
//! Time advances TTI by TTI: before TTI `k` runs at `k·TTI`, every event due at or before
//! that instant is processed in (time, insertion) order. TTIs in which no UE has queued data
//! are skipped (the PF averages decay lazily, see `cellshare-cell`), so idle periods cost
//! nothing. Packets live in one arena; queues and events carry indices.

use crate::event_queue::EventQueue;

/// The event queue's sorted lanes (`event_queue.rs`, "Sorted lanes"): deliveries (one TTI
/// after the TTI that sent them), arrivals at the access over the one backhaul link (a FIFO
/// with a fixed delay), ACKs reaching the server a fixed delay after they left a UE without
/// a modelled uplink.
const LANE_DELIVER: usize = 0;
const LANE_BACKHAUL: usize = 1;
const LANE_ACK: usize = 2;
const _: () = assert!(LANE_ACK < crate::event_queue::LANES);
use std::collections::{BTreeMap, VecDeque};

use cellshare_cell::{Delivery, DropCause};
use cellshare_core::time::{from_millis_f64, from_secs_f64, rearm, serialization_time, to_secs_f64};
use cellshare_core::{stream_rng, Nanos, StreamRng, Packet, PacketArena, PacketId, PacketKind, TrafficClass, MS, SEC, TTI};
use cellshare_ran::Ran;
use cellshare_transport::wire::{Segment, TCP_SYN_HEADER_BYTES};
use rand::Rng;

use crate::assembly::{build_ran, PositionTraces, TraceSet};

use crate::metrics::{DelayHistogram, DelayPercentiles, PerSecond};
use crate::results::{FlowSample, FlowTrace, ModeChange, ModeChanges, UeSample, UeTrace};
use crate::results::{self, RunResult};
use crate::scenario::{Scenario, ScenarioError, UeSelector};
use crate::apps::{AppRt, Direction};
use crate::transport::{header_bytes, Receiver, Sender, TransportConfig};
use crate::uplink::{sorpc_band, UeUplink};
use cellshare_transport::tcp::SendBuffer;
use cellshare_workload::{Arrivals, Category, Generator};

#[path = "app_sessions.rs"]
mod app_sessions;

const _: () = assert!(cellshare_core::packet::MAX_SACK_BLOCKS == cellshare_transport::wire::MAX_SACK_BLOCKS);

/// A store-and-forward link: serialization at `rate_bps`, then `delay`, with a drop-tail
/// buffer of `limit` bytes. FIFO order is implicit in `free_at`, so a packet's arrival time
/// is known when it is sent and one event per packet suffices.
#[derive(Clone, Debug)]
struct Link {
    rate_bps: u64,
    delay: Nanos,
    limit: u64,
    free_at: Nanos,
}

impl Link {
    fn new(rate_mbps: f64, delay_ms: f64, limit: u64) -> Self {
        Self { rate_bps: (rate_mbps * 1e6).round() as u64, delay: from_millis_f64(delay_ms), limit, free_at: 0 }
    }

    /// Sends `size` bytes at `now`; returns the arrival time at the far end, or `None` when
    /// the buffer is full.
    #[inline]
    fn send(&mut self, now: Nanos, size: u32) -> Option<Nanos> {
        let start = self.free_at.max(now);
        let backlog = ((start - now) as u128 * self.rate_bps as u128 / 8 / SEC as u128) as u64;
        if backlog + size as u64 > self.limit {
            return None;
        }
        self.free_at = start + serialization_time(size as u64, self.rate_bps);
        Some(self.free_at + self.delay)
    }
}


/// The shared drop-tail FIFO bottleneck (wired / Wi-Fi-like access).
#[derive(Debug)]
struct SharedFifo {
    rate_bps: u64,
    limit: u64,
    bytes: u64,
    queue: VecDeque<PacketId>,
    busy: bool,
}

#[derive(Debug)]
enum Access {
    /// The LTE cell, or a network of cells (one code path: a network of one).
    Cell(Box<Ran>),
    Fifo(SharedFifo),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    FlowOn(u32),
    FlowOff(u32),
    SenderWake(u32),
    ReceiverWake(u32),
    AtGateway(PacketId),
    AtAccess(PacketId),
    Deliver(PacketId),
    AckAtServer(PacketId),
    FifoDepart,
    /// A UE's uplink serves one TTI.
    UplinkTti(u32),
    /// An uplink data packet reaches the server.
    AtServer(PacketId),
    /// An interactive app issues its next request.
    AppTick(u32),
    /// Take the fine-grained trace samples.
    Sample,
    /// The workload's next flow arrives.
    Arrival,
    /// An app session's timer (video call, stream, web).
    AppTimer(u32),
}

/// The workload category named `name`, if it is one.
fn category_of(name: &str) -> Option<Category> {
    match name {
        "short" => Some(Category::Short),
        "medium" => Some(Category::Medium),
        "long" => Some(Category::Long),
        _ => None,
    }
}

/// What a flow is made from (a `[[flows]]` entry or a workload arrival).
struct FlowSpec<'a> {
    name: String,
    ue: u32,
    class: TrafficClass,
    category: &'static str,
    dscp: u8,
    transport: &'a TransportConfig,
    start: Nanos,
    stop: Nanos,
    size: Option<u64>,
    on_off: Option<(Nanos, Nanos)>,
    /// Downlink (server → UE) or uplink (UE → server).
    dir: Direction,
}

/// Per-flow run-time state.
#[derive(Debug)]
pub(crate) struct FlowRt {
    pub name: String,
    pub ue: u32,
    pub class: TrafficClass,
    /// `"custom"`, `"background"`, or the workload category (`"short"`, `"medium"`, `"long"`).
    pub category: &'static str,
    /// Whether the flow finished and its endpoint state and histograms were freed.
    pub closed: bool,
    /// Queue-delay, RTT and one-way-delay percentiles, kept when the histograms are freed.
    pub final_delays: Option<(DelayPercentiles, DelayPercentiles, DelayPercentiles)>,
    pub dscp: u8,
    pub label: String,
    pub start: Nanos,
    pub stop: Nanos,
    pub size: Option<u64>,
    on_off: Option<(Nanos, Nanos)>,
    sender: Sender,
    receiver: Receiver,
    header: u32,
    remote: Link,
    sender_timer: Option<Nanos>,
    receiver_timer: Option<Nanos>,
    delivered_prev: u64,
    pub series: PerSecond,
    pub delay: DelayHistogram,
    /// The sender's smoothed RTT after every ACK (TCP flows).
    pub rtt: DelayHistogram,
    /// One-way delay of each data packet the receiver did not already hold: from the first
    /// transmission of its payload (a retransmission counts from its first copy) to its
    /// arrival at the receiver.
    pub owd: DelayHistogram,
    /// Random loss of data packets on the remote link (`wired.remote_loss_rate > 0`).
    remote_loss: Option<StreamRng>,
    pub fct: Option<Nanos>,
    pub first_send: Option<Nanos>,
    pub drops: u64,
    pub packets_delivered: u64,
    /// Fine-grained samples (see `SimulationConfig::trace_interval_ms`).
    pub trace: FlowTrace,
    /// Controller mode changes as they happened.
    pub mode_changes: ModeChanges,
    trace_delivered_prev: u64,
    /// Bytes of this flow's packets delivered over the access link, headers included.
    pub air_bytes: u64,
    /// Where the data goes.
    pub dir: Direction,
    /// Send buffer of a TCP sender at the UE (uplink legs).
    sndbuf: Option<SendBuffer>,
    /// Bytes the application still wants to write into `sndbuf` (`u64::MAX`: bulk).
    app_left: u64,
    /// Interactive app state (request legs).
    pub app: Option<Box<AppRt>>,
    /// For a response leg: its request leg.
    pub response_of: Option<u32>,
    /// For a leg of an app session (video call, stream, web): (session, leg).
    pub session: Option<(u32, u8)>,
}

impl FlowRt {
    pub fn delivered(&self) -> u64 {
        self.receiver.delivered()
    }
    pub fn loss_stats(&self) -> (u64, u64) {
        self.sender.loss_stats()
    }
    pub fn sent_datagrams(&self) -> u64 {
        self.sender.cbr_datagrams()
    }
    /// Whether data-direction packet `p` is the TCP handshake's SYN or third segment (a pure
    /// ACK of the sender): no payload, so no delivery, delay or application event.
    #[inline]
    pub fn is_handshake(&self, p: &Packet) -> bool {
        p.syn || (p.payload == 0 && matches!(self.receiver, Receiver::Tcp(_)))
    }
}

/// What distinguishes one leg of a flow entry.
/// Per-UE statistics.
#[derive(Debug)]
pub(crate) struct UeRt {
    pub series: PerSecond,
    /// Base-station queue samples (see `SimulationConfig::trace_interval_ms`).
    pub trace: UeTrace,
    pub delay: DelayHistogram,
    pub bytes: u64,
    pub mean_snr_db: Option<f64>,
}

/// Where a packet was dropped.
#[derive(Clone, Copy, Debug)]
enum DropSite {
    /// At a base-station RLC queue.
    Bs(DropCause),
    /// At a full wired-link buffer.
    Wired,
    /// At the full shared FIFO.
    SharedFifo,
    /// At a UE's full device transmit queue.
    Device,
}

/// Drop counters by cause.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, PartialEq, Eq)]
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

/// A running simulation.
#[derive(Debug)]
pub struct Simulation {
    pub(crate) scenario: Scenario,
    now: Nanos,
    pub(crate) end: Nanos,
    tti: u64,
    seq: u64,
    heap: EventQueue<Ev>,
    arena: PacketArena,
    access: Access,
    backhaul: Link,
    ack_delay: Nanos,
    pub(crate) flows: Vec<FlowRt>,
    pub(crate) ues: Vec<UeRt>,
    pub(crate) prbs: PerSecond,
    /// PRBs used weighted by their TTI's capacity, per second (a cell of trace UEs only:
    /// `TtiReport::prb_bytes_used`; the numerator of its `prb_utilization`).
    pub(crate) prb_bytes: PerSecond,
    pub(crate) air_bytes: PerSecond,
    pub(crate) n_prb: u32,
    pub(crate) drops: DropCounts,
    pub(crate) delay: DelayHistogram,
    /// One-way delay of every data packet (as [`FlowRt::owd`]).
    pub(crate) owd: DelayHistogram,
    pub(crate) events: u64,
    pub(crate) ttis_run: u64,
    /// Trace sampling interval (0: no traces).
    trace_interval: Nanos,
    delivered_scratch: Vec<Delivery>,
    dropped_scratch: Vec<(PacketId, DropCause)>,
    /// Each UE's modelled uplink, if any.
    pub(crate) uplinks: Vec<Option<UeUplink>>,
    uplink_done: Vec<PacketId>,
    /// The generated workload, if any.
    pub(crate) workload: Option<WorkloadRt>,
    /// Queue-delay histograms of closed flows, by class name (`"foreground"`,
    /// `"background"`, `"dscp<N>"`), merged when each flow closed.
    pub(crate) closed_delay: BTreeMap<String, DelayHistogram>,
    /// App sessions (video calls, streams, web page loads).
    pub(crate) sessions: Vec<app_sessions::SessionRt>,
    /// The actions of the app being called (a buffer reused for every call).
    app_io: cellshare_apps::Io,
}

/// The workload's run-time state: the generator and what it produced.
#[derive(Debug)]
pub(crate) struct WorkloadRt {
    generator: Generator,
    /// The time of the `Arrival` event last scheduled.
    scheduled: Option<Nanos>,
    transport: TransportConfig,
    dscp: u8,
    /// Target PRB utilization (Poisson arrivals).
    pub target_load: Option<f64>,
    /// Offered payload rate, bytes per second (mean).
    pub offered_bytes_per_s: f64,
    /// Estimated capacity of the workload's UEs (ρ = 1), payload bytes per second.
    pub capacity_bytes_per_s: f64,
    /// Flows and payload bytes generated per category (short, medium, long).
    pub flows: [u64; 3],
    /// Payload bytes generated per category.
    pub bytes: [u64; 3],
}

impl Simulation {
    /// Builds a simulation of `scenario`, whose trace files have been parsed into `traces`
    /// (keyed by the file string as written in the scenario).
    pub fn new(scenario: &Scenario, traces: &TraceSet) -> Result<Self, ScenarioError> {
        Self::with_inputs(scenario, traces, &PositionTraces::new(), &crate::Limits::default())
    }

    /// The simulation of `scenario` with its parsed trace files, its parsed position traces
    /// and the limits it is checked against (before anything is allocated).
    pub fn with_inputs(
        scenario: &Scenario,
        traces: &TraceSet,
        positions: &PositionTraces,
        limits: &crate::Limits,
    ) -> Result<Self, ScenarioError> {
        scenario.validate_with_limits(limits)?;
        let sc = scenario.clone();
        let seed = sc.simulation.seed;
        let end = from_secs_f64(sc.simulation.duration_s);
        let n_prb = cellshare_channel::prbs_for_bandwidth(sc.cell.bandwidth_mhz).expect("validated");
        let (ran, snrs) = build_ran(&sc, traces, positions)?;
        let ues: Vec<UeRt> = snrs
            .into_iter()
            .map(|mean_snr_db| UeRt { series: PerSecond::new(end), trace: UeTrace::default(), delay: DelayHistogram::default(), bytes: 0, mean_snr_db })
            .collect();
        let access = match &sc.shared_fifo {
            Some(f) => Access::Fifo(SharedFifo {
                rate_bps: (f.rate_mbps * 1e6).round() as u64,
                limit: f.queue_bytes,
                bytes: 0,
                queue: VecDeque::new(),
                busy: false,
            }),
            None => Access::Cell(Box::new(ran)),
        };
        let w = &sc.wired;
        let backhaul = Link::new(w.backhaul_rate_mbps, w.backhaul_delay_ms, w.backhaul_queue_bytes);
        let ack_delay = from_millis_f64(w.uplink_delay_ms + w.backhaul_delay_ms + w.remote_delay_ms);
        let n_ues = ues.len() as u32;
        let mut sim = Simulation {
            scenario: sc.clone(),
            now: 0,
            end,
            tti: 0,
            seq: 0,
            heap: EventQueue::new(),
            arena: PacketArena::with_capacity(4096),
            access,
            backhaul,
            ack_delay,
            flows: Vec::new(),
            ues,
            prbs: PerSecond::new(end),
            prb_bytes: PerSecond::new(end),
            air_bytes: PerSecond::new(end),
            n_prb,
            drops: DropCounts::default(),
            delay: DelayHistogram::default(),
            owd: DelayHistogram::default(),
            events: 0,
            ttis_run: 0,
            trace_interval: sc.simulation.trace_interval_ms * MS,
            delivered_scratch: Vec::new(),
            dropped_scratch: Vec::new(),
            uplinks: Vec::new(),
            uplink_done: Vec::new(),
            workload: None,
            closed_delay: BTreeMap::new(),
            sessions: Vec::new(),
            app_io: cellshare_apps::Io::default(),
        };
        // UEs are numbered across the groups in order (one pass: scenarios may have thousands
        // of groups).
        let mut ue = 0u64;
        for (gi, g) in sc.ues.iter().enumerate() {
            for _ in 0..g.count {
                let up = match &g.uplink {
                    Some(u) => Some(UeUplink::new(u, n_prb, traces, seed, ue, &format!("ues[{gi}].uplink"))?),
                    None => None,
                };
                sim.uplinks.push(up);
                ue += 1;
            }
        }
        debug_assert_eq!(ue, n_ues as u64);
        for f in sc.flows.iter() {
            let targets: Vec<u32> = match (&f.ue, &f.ues) {
                (Some(u), _) => vec![*u],
                (None, Some(UeSelector::List(l))) => l.clone(),
                (None, Some(UeSelector::All(_))) => (0..n_ues).collect(),
                (None, None) => unreachable!("validated"),
            };
            for (k, ue) in targets.iter().enumerate() {
                let id = sim.flows.len() as u32;
                let name = match (&f.name, targets.len()) {
                    (Some(n), 1) => n.clone(),
                    (Some(n), _) => format!("{n}-{k}"),
                    (None, _) => format!("flow{id}"),
                };
                let start = from_secs_f64(f.start_s);
                let stop = f.stop_s.map(from_secs_f64).unwrap_or(u64::MAX).min(end);
                let on_off = match (f.on_s, f.off_s) {
                    (Some(on), Some(off)) => Some((from_secs_f64(on), from_secs_f64(off))),
                    _ => None,
                };
                let category = if f.class == TrafficClass::Background { "background" } else { "custom" };
                let spec = |name: String, dir: Direction, on_off, size| FlowSpec {
                    name, ue: *ue, class: f.class, category, dscp: f.dscp, transport: &f.transport, start, stop, size, on_off, dir,
                };
                sim.add_flow(spec(name, f.direction, on_off, f.bytes), PerSecond::new(end));
                if let Some((app, legs)) = f.app.as_ref().and_then(|a| a.legs().map(|l| (a, l))) {
                    // An app of cellshare-apps: its other legs, then the session.
                    let mut ids = vec![id];
                    for leg in &legs[1..] {
                        let leg_name = format!("{}{}", sim.flows[id as usize].name, leg.suffix.text());
                        let dir = if leg.reverse { f.direction.reverse() } else { f.direction };
                        ids.push(sim.add_flow(spec(leg_name, dir, None, None), PerSecond::new(end)));
                    }
                    // The client (the reverse legs' sender: requests, at the UE of a downlink
                    // app) connects; the server's legs ride on its handshake.
                    for (leg, &fid) in legs.iter().zip(&ids) {
                        if leg.tcp && !leg.reverse {
                            sim.flows[fid as usize].sender.established_by_peer();
                        }
                    }
                    sim.add_session(app, ids, &legs);
                } else if let Some(app) = &f.app {
                    let partner = id + 1;
                    let resp_name = format!("{}.response", sim.flows[id as usize].name);
                    sim.add_flow(spec(resp_name, f.direction.reverse(), None, None), PerSecond::new(end));
                    sim.flows[partner as usize].response_of = Some(id);
                    // The requester's leg connects; the response rides on its handshake.
                    sim.flows[partner as usize].sender.established_by_peer();
                    sim.flows[id as usize].app = Some(Box::new(AppRt::new(app, &f.transport, partner, end)));
                }
                if start < end {
                    sim.push(start, Ev::FlowOn(id));
                }
                if stop < end {
                    sim.push(stop, Ev::FlowOff(id));
                }
            }
        }
        if let Some(w) = &sc.workload {
            let ues_of = w.ue_list(n_ues);
            let target_load = match &w.arrivals {
                Arrivals::Poisson(p) => Some(p.load),
                Arrivals::Randomized(_) => None,
            };
            let capacity = crate::load::capacity_bytes_per_s(&sc, traces, positions, &ues_of, &w.transport)?;
            let rate = target_load.map_or(0.0, |l| l * capacity);
            let w_start = from_secs_f64(w.start_s);
            let w_end = w.stop_s.map(from_secs_f64).unwrap_or(u64::MAX).min(end);
            let generator = Generator::new(&w.arrivals, rate, ues_of, seed, 0, w_start, w_end);
            sim.workload = Some(WorkloadRt {
                generator,
                scheduled: None,
                transport: w.transport.clone(),
                dscp: w.dscp,
                target_load,
                offered_bytes_per_s: Generator::mean_bytes_per_s(&w.arrivals, rate),
                capacity_bytes_per_s: capacity,
                flows: [0; 3],
                bytes: [0; 3],
            });
            sim.schedule_arrival();
        }
        if sim.trace_interval > 0 && sim.trace_interval < end {
            sim.push(sim.trace_interval, Ev::Sample);
        }
        Ok(sim)
    }

    /// Checks `scenario` with its inputs as [`Simulation::with_inputs`] does — ranges,
    /// limits, the trace and position files its UEs and uplinks name, the workload's UEs —
    /// without building the simulation: the cell is built and dropped, the flows, app
    /// sessions and per-second series are not (`cellshare validate`; building every flow
    /// made validating 1,000 UEs with 64,000 web legs take 500 MB). Building flows cannot
    /// fail, so the errors are those of `with_inputs`, in the same order.
    pub fn check_inputs(
        scenario: &Scenario,
        traces: &TraceSet,
        positions: &PositionTraces,
        limits: &crate::Limits,
    ) -> Result<(), ScenarioError> {
        let sc = scenario;
        sc.validate_with_limits(limits)?;
        let n_prb = cellshare_channel::prbs_for_bandwidth(sc.cell.bandwidth_mhz).expect("validated");
        drop(build_ran(sc, traces, positions)?);
        let mut ue = 0u64;
        for (gi, g) in sc.ues.iter().enumerate() {
            for _ in 0..g.count {
                if let Some(u) = &g.uplink {
                    UeUplink::new(u, n_prb, traces, sc.simulation.seed, ue, &format!("ues[{gi}].uplink"))?;
                }
                ue += 1;
            }
        }
        if let Some(w) = &sc.workload {
            crate::load::capacity_bytes_per_s(sc, traces, positions, &w.ue_list(ue as u32), &w.transport)?;
        }
        Ok(())
    }

    /// Creates a flow (its id is the next index; the caller schedules its start): a bulk,
    /// finite or on/off flow, one leg of an app, or a workload arrival.
    fn add_flow(&mut self, f: FlowSpec<'_>, series: PerSecond) -> u32 {
        let id = self.flows.len() as u32;
        let seed = self.scenario.simulation.seed;
        let w = &self.scenario.wired;
        let mut clock = stream_rng(seed, "flow-clock", id as u64);
        let sender = Sender::new(f.transport, f.start, clock.gen(), seed, id as u64);
        let receiver = Receiver::new(f.transport, f.start, clock.gen());
        let sndbuf = match (f.transport, f.dir) {
            (TransportConfig::Tcp { tcp, .. }, Direction::Uplink) => Some(SendBuffer::new(tcp.wmem_initial, tcp.wmem_max)),
            _ => None,
        };
        self.flows.push(FlowRt {
            name: f.name,
            ue: f.ue,
            class: f.class,
            category: f.category,
            closed: false,
            final_delays: None,
            dscp: f.dscp,
            label: f.transport.label(),
            start: f.start,
            stop: f.stop,
            size: f.size,
            on_off: f.on_off,
            header: header_bytes(&sender),
            receiver,
            sender,
            remote: Link::new(w.remote_rate_mbps, w.remote_delay_ms, w.remote_queue_bytes),
            sender_timer: None,
            receiver_timer: None,
            delivered_prev: 0,
            series,
            delay: DelayHistogram::default(),
            rtt: DelayHistogram::default(),
            owd: DelayHistogram::default(),
            remote_loss: (w.remote_loss_rate > 0.0).then(|| stream_rng(seed, "remote-loss", id as u64)),
            fct: None,
            first_send: None,
            drops: 0,
            packets_delivered: 0,
            trace: FlowTrace::default(),
            mode_changes: ModeChanges::default(),
            trace_delivered_prev: 0,
            air_bytes: 0,
            dir: f.dir,
            sndbuf,
            app_left: 0,
            app: None,
            response_of: None,
            session: None,
        });
        id
    }

    /// Every workload arrival due now becomes a flow starting now; the next one is scheduled.
    fn arrival(&mut self) {
        loop {
            let Some(wl) = self.workload.as_mut() else { return };
            if wl.generator.peek_time().is_none_or(|t| t > self.now) {
                break;
            }
            let Some(a) = wl.generator.next() else { break };
            let k = a.category as usize;
            wl.flows[k] += 1;
            wl.bytes[k] += a.bytes;
            let transport = wl.transport.clone();
            let dscp = wl.dscp;
            let id = self.flows.len();
            let spec = FlowSpec {
                name: format!("{}-{id}", a.category.name()),
                ue: a.ue,
                class: TrafficClass::Foreground,
                category: a.category.name(),
                dscp,
                transport: &transport,
                start: a.at,
                stop: self.end,
                size: Some(a.bytes),
                on_off: None,
                dir: Direction::Downlink,
            };
            let series = PerSecond::from_second(a.at, self.end);
            let id = self.add_flow(spec, series);
            if a.at < self.end {
                self.push(a.at, Ev::FlowOn(id));
            }
        }
        self.schedule_arrival();
    }

    /// Schedules an `Arrival` event at the workload's next arrival (once per time).
    fn schedule_arrival(&mut self) {
        let Some(wl) = self.workload.as_mut() else { return };
        if let Some(t) = wl.generator.peek_time() {
            if wl.scheduled != Some(t) {
                wl.scheduled = Some(t);
                self.push(t.max(self.now), Ev::Arrival);
            }
        }
    }

    /// Frees the state of finished flow `f` (every byte delivered and acknowledged): its
    /// endpoints, and its delay histograms after keeping their percentiles and merging them
    /// into its classes'. Packets of the flow still in the network are delivered and counted
    /// as before; nothing more is sent.
    fn close_flow(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        fl.sender.close();
        fl.receiver.close();
        fl.closed = true;
        fl.sender_timer = None;
        fl.receiver_timer = None;
        fl.final_delays = Some((fl.delay.percentiles(), fl.rtt.percentiles(), fl.owd.percentiles()));
        let delay = std::mem::take(&mut fl.delay);
        fl.rtt = DelayHistogram::default();
        fl.owd = DelayHistogram::default();
        let class = if fl.class == TrafficClass::Background { "background" } else { "foreground" };
        let dscp = format!("dscp{}", fl.dscp);
        self.closed_delay.entry(class.to_string()).or_default().merge(&delay);
        self.closed_delay.entry(dscp).or_default().merge(&delay);
    }

    #[inline]
    fn push(&mut self, t: Nanos, ev: Ev) {
        self.seq += 1;
        self.heap.push(t, self.seq, ev);
    }

    /// [`push`](Self::push) for events of a source whose times never decrease (the event
    /// queue's sorted `lane`; an out-of-order one would still pop in its place).
    #[inline]
    fn push_sorted(&mut self, lane: usize, t: Nanos, ev: Ev) {
        self.seq += 1;
        self.heap.push_sorted(lane, t, self.seq, ev);
    }

    /// Current simulated time.
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// End of the run.
    pub fn end(&self) -> Nanos {
        self.end
    }

    /// Whether the run has reached its end.
    pub fn finished(&self) -> bool {
        self.tti * TTI >= self.end
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> RunResult {
        self.advance(self.end);
        self.results()
    }

    /// Advances the simulation until simulated time `until` (or the end). The outcome does
    /// not depend on how a run is cut into `advance` calls.
    pub fn advance(&mut self, until: Nanos) {
        self.advance_bounded(until, u64::MAX);
    }

    /// [`advance`](Self::advance), returning early once `max_events` more events have been
    /// processed: at the start of a TTI, in the state `advance` to that TTI's time leaves,
    /// so the outcome still does not depend on how the run is cut. Returns whether `until`
    /// (or the end) was reached. For a caller that checks something between steps (the
    /// memory guard, `limits::MemoryGuard`).
    pub fn advance_bounded(&mut self, until: Nanos, max_events: u64) -> bool {
        let until = until.min(self.end);
        let stop = self.events.saturating_add(max_events);
        while self.tti * TTI < until {
            if self.events >= stop {
                return false;
            }
            let t = self.tti * TTI;
            self.process_events_upto(t);
            self.now = t;
            let (backlog, tick) = match &self.access {
                Access::Cell(r) => (r.has_backlog(), r.next_tick()),
                Access::Fifo(_) => (false, u64::MAX),
            };
            if backlog || tick <= self.tti {
                self.run_tti();
                self.tti += 1;
            } else {
                // Nothing to schedule: jump to the TTI at or after the next event, or to the
                // network's next move or measurement.
                let next = self.heap.peek_time().unwrap_or(self.end);
                self.tti = (self.tti + 1).max(next.div_ceil(TTI).min(tick));
            }
        }
        if self.tti * TTI >= self.end {
            // Events strictly before the end still count (e.g. deliveries in the last TTI).
            self.process_events_before(self.end);
            self.now = self.end;
        }
        true
    }

    fn process_events_upto(&mut self, t: Nanos) {
        while let Some((et, ev)) = self.heap.pop_upto(t) {
            self.now = et;
            self.events += 1;
            self.handle(ev);
        }
    }

    fn process_events_before(&mut self, t: Nanos) {
        if t > 0 {
            self.process_events_upto(t - 1);
        }
    }

    fn run_tti(&mut self) {
        let Access::Cell(cell) = &mut self.access else { return };
        self.delivered_scratch.clear();
        self.dropped_scratch.clear();
        let r = cell.run_tti(self.tti, self.now, &mut self.arena, &mut self.delivered_scratch, &mut self.dropped_scratch);
        self.ttis_run += 1;
        self.prbs.add(self.now, r.prbs_used as u64);
        if r.prb_bytes_used > 0 {
            self.prb_bytes.add(self.now, r.prb_bytes_used);
        }
        let at = self.now + TTI;
        for i in 0..self.delivered_scratch.len() {
            let d = self.delivered_scratch[i];
            self.push_sorted(LANE_DELIVER, at, Ev::Deliver(d.id));
        }
        for i in 0..self.dropped_scratch.len() {
            let (id, cause) = self.dropped_scratch[i];
            self.drop_packet(id, DropSite::Bs(cause));
        }
    }

    /// Counts a drop of a packet of `flow` at `site`.
    fn count_drop(&mut self, flow: u32, site: DropSite) {
        self.flows[flow as usize].drops += 1;
        match site {
            DropSite::Bs(DropCause::Enqueue) => self.drops.bs_enqueue += 1,
            DropSite::Bs(DropCause::Dequeue) => self.drops.bs_dequeue += 1,
            DropSite::Bs(DropCause::Admission) => self.drops.bs_admission += 1,
            DropSite::Bs(DropCause::Air) => self.drops.air += 1,
            DropSite::Bs(DropCause::Handover) => self.drops.handover += 1,
            DropSite::Wired => self.drops.wired += 1,
            DropSite::SharedFifo => self.drops.shared_fifo += 1,
            DropSite::Device => self.drops.device += 1,
        }
    }

    /// Drops packet `id` at `site`: counts it and frees it.
    fn drop_packet(&mut self, id: PacketId, site: DropSite) {
        self.count_drop(self.arena.get(id).flow, site);
        self.arena.free(id);
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::FlowOn(f) => self.flow_on(f),
            Ev::FlowOff(f) => self.flow_off(f),
            Ev::SenderWake(f) => {
                let fl = &mut self.flows[f as usize];
                if fl.sender_timer != Some(self.now) {
                    return; // superseded
                }
                fl.sender_timer = None;
                if fl.sender.poll_timeout().is_some_and(|t| t <= self.now) {
                    fl.sender.on_timeout(self.now);
                    self.note_cc_mode(f);
                }
                self.service_sender(f);
            }
            Ev::ReceiverWake(f) => {
                let fl = &mut self.flows[f as usize];
                if fl.receiver_timer != Some(self.now) {
                    return;
                }
                fl.receiver_timer = None;
                if fl.receiver.poll_timeout().is_some_and(|t| t <= self.now) {
                    fl.receiver.on_timeout(self.now);
                }
                self.service_receiver(f);
            }
            Ev::AtGateway(id) => {
                let size = self.arena.get(id).size;
                match self.backhaul.send(self.now, size) {
                    Some(at) => self.push_sorted(LANE_BACKHAUL, at, Ev::AtAccess(id)),
                    None => self.drop_packet(id, DropSite::Wired),
                }
            }
            Ev::AtAccess(id) => self.at_access(id),
            Ev::Deliver(id) => self.deliver(id),
            Ev::AckAtServer(id) => {
                let p = *self.arena.get(id);
                self.arena.free(id);
                self.ack_arrives(&p);
            }
            Ev::FifoDepart => self.fifo_depart(),
            Ev::UplinkTti(ue) => self.uplink_tti(ue),
            Ev::AtServer(id) => {
                let p = *self.arena.get(id);
                self.arena.free(id);
                self.data_arrives(&p);
            }
            Ev::AppTick(f) => self.app_tick(f),
            Ev::Sample => self.sample(),
            Ev::Arrival => self.arrival(),
            Ev::AppTimer(s) => self.session_timer(s),
        }
    }

    /// An ACK (packet `p`) reaches its flow's sender: at the server for a downlink flow, at
    /// the UE for an uplink one.
    fn ack_arrives(&mut self, p: &Packet) {
        let f = p.flow;
        let ack = cellshare_transport::wire::Ack {
            ack: p.seq,
            rwnd: p.rwnd,
            ts_val: p.ts_val,
            ts_ecr: p.ts_ecr,
            sack: p.sack,
            sack_len: p.sack_len,
            syn: p.syn,
        };
        let fl = &mut self.flows[f as usize];
        fl.sender.on_ack(self.now, &ack);
        let srtt = fl.sender.rtt_hint();
        if srtt > 0 {
            fl.rtt.record(srtt);
        }
        self.fill_sndbuf(f);
        self.note_cc_mode(f);
        self.service_sender(f);
        let fl = &self.flows[f as usize];
        if fl.fct.is_some() && !fl.closed && fl.sender.all_acked() {
            self.close_flow(f);
        }
    }

    /// A sender at the UE: the application writes what its send buffer has room for
    /// (after auto-tuning the buffer to the current cwnd).
    #[inline]
    fn fill_sndbuf(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        let (Some(sb), Sender::Tcp(t)) = (fl.sndbuf.as_mut(), &mut fl.sender) else { return };
        sb.on_cwnd(t.cwnd());
        let queued = t.written() - t.snd_una();
        let w = sb.room(queued).min(fl.app_left);
        if w > 0 {
            t.write(w);
            if fl.app_left != u64::MAX {
                fl.app_left -= w;
            }
        }
    }

    /// The application of flow `f` writes `bytes` more (through the send buffer at a UE).
    fn app_write(&mut self, f: u32, bytes: u64) {
        let fl = &mut self.flows[f as usize];
        if fl.sndbuf.is_some() {
            fl.app_left = fl.app_left.saturating_add(bytes);
            self.fill_sndbuf(f);
        } else {
            fl.sender.app_start(self.now, bytes);
        }
    }

    /// Issues the next request of the app whose request leg is `f`.
    fn app_tick(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if now >= fl.stop {
            return;
        }
        let Some(app) = fl.app.as_mut() else { return };
        let Some((interval, req, _)) = app.tcp else { return };
        app.pending.push_back(now);
        app.requests += 1;
        if now + interval < fl.stop.min(self.end) {
            self.push(now + interval, Ev::AppTick(f));
        }
        self.app_write(f, req as u64);
        self.service_sender(f);
    }

    fn flow_on(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if now >= fl.stop {
            return;
        }
        if let Some((s, _)) = fl.session {
            self.session_start(s);
            return;
        }
        if fl.app.as_ref().is_some_and(|a| a.tcp.is_some()) {
            self.app_tick(f);
            return;
        }
        if fl.sndbuf.is_some() {
            fl.app_left = fl.size.unwrap_or(u64::MAX);
            self.fill_sndbuf(f);
        } else {
            fl.sender.app_start(now, fl.size.unwrap_or(u64::MAX));
        }
        let fl = &mut self.flows[f as usize];
        if let Some((on, off)) = fl.on_off {
            let off_at = now + on;
            let stop = fl.stop.min(self.end);
            if off_at < stop {
                self.push(off_at, Ev::FlowOff(f));
                if off_at + off < stop {
                    self.push(off_at + off, Ev::FlowOn(f));
                }
            }
        }
        self.service_sender(f);
    }

    fn flow_off(&mut self, f: u32) {
        if let Some((s, _)) = self.flows[f as usize].session {
            self.session_stop(s);
            return;
        }
        let fl = &mut self.flows[f as usize];
        fl.app_left = 0;
        fl.sender.app_stop(self.now);
    }

    /// Lets the sender of flow `f` emit everything it may, then re-arms its timer.
    fn service_sender(&mut self, f: u32) {
        let now = self.now;
        let remote_loss_rate = self.scenario.wired.remote_loss_rate;
        loop {
            let fl = &mut self.flows[f as usize];
            let Some(seg) = fl.sender.poll_transmit(now) else { break };
            // A retransmission carries the time its bytes were first sent (one-way delay).
            let first_sent = if seg.retransmit { fl.sender.first_sent_of(seg.seq).unwrap_or(now) } else { now };
            // A SYN carries the handshake's options (60 bytes, `TCP_SYN_HEADER_BYTES`).
            let header = if seg.syn { TCP_SYN_HEADER_BYTES } else { fl.header };
            let p = Packet {
                flow: f,
                ue: fl.ue,
                size: seg.len + header,
                payload: seg.len,
                kind: PacketKind::Data,
                class: fl.class,
                dscp: fl.dscp,
                retransmit: seg.retransmit,
                syn: seg.syn,
                seq: seg.seq,
                ts_val: seg.ts_val,
                ts_ecr: seg.ts_ecr,
                rtt_hint: fl.sender.rtt_hint(),
                sent_at: first_sent,
                ..Default::default()
            };
            fl.first_send.get_or_insert(now);
            if fl.dir == Direction::Uplink {
                // SORPC's SOR of this socket as the packet enters the device queue.
                let sor = match (&fl.sndbuf, &fl.sender) {
                    (Some(sb), Sender::Tcp(t)) => sb.occupancy(t.written() - t.snd_una()),
                    _ => 0.0,
                };
                let udp = matches!(fl.sender, Sender::Cbr { .. } | Sender::Datagram(_));
                let id = self.arena.alloc(p);
                self.enqueue_uplink(id, udp, sor);
                continue;
            }
            match fl.remote.send(now, p.size) {
                Some(_) if fl.remote_loss.as_mut().is_some_and(|r| r.gen::<f64>() < remote_loss_rate) => {
                    // Lost on the way (after taking its place on the link), never allocated.
                    fl.drops += 1;
                    self.drops.random_loss += 1;
                }
                Some(at) => {
                    let id = self.arena.alloc(p);
                    self.seq += 1;
                    self.heap.push(at, self.seq, Ev::AtGateway(id));
                }
                None => {
                    fl.drops += 1;
                    self.drops.wired += 1; // never allocated: counted here, not via drop_packet
                }
            }
        }
        let fl = &mut self.flows[f as usize];
        if let Some(t) = rearm(&mut fl.sender_timer, fl.sender.poll_timeout(), now) {
            self.push(t, Ev::SenderWake(f));
        }
    }

    /// Sends the receiver's pending ACK, if any, and re-arms its timer.
    fn service_receiver(&mut self, f: u32) {
        let now = self.now;
        loop {
            let fl = &mut self.flows[f as usize];
            let Some(ack) = fl.receiver.poll_ack(now) else { break };
            // With SACK blocks the TCP options grow by 2 + 8 bytes per block (+2 padding); a
            // datagram transport's control packet has its scheme's size.
            let p = Packet {
                flow: f,
                ue: fl.ue,
                size: fl.receiver.ack_size(&ack),
                sack: ack.sack,
                sack_len: ack.sack_len,
                syn: ack.syn,
                kind: PacketKind::Ack,
                class: fl.class,
                seq: ack.ack,
                rwnd: ack.rwnd,
                ts_val: ack.ts_val,
                ts_ecr: ack.ts_ecr,
                sent_at: now,
                ..Default::default()
            };
            let (dir, ue) = (fl.dir, fl.ue);
            let id = self.arena.alloc(p);
            if dir == Direction::Uplink {
                // The server's ACK of an upload goes back down through the cell.
                self.downlink_from_server(id);
            } else if self.uplinks[ue as usize].is_some() {
                self.enqueue_uplink(id, false, 0.0);
            } else {
                self.seq += 1;
                self.heap.push_sorted(LANE_ACK, now + self.ack_delay, self.seq, Ev::AckAtServer(id));
            }
        }
        let fl = &mut self.flows[f as usize];
        if let Some(t) = rearm(&mut fl.receiver_timer, fl.receiver.poll_timeout(), now) {
            self.push(t, Ev::ReceiverWake(f));
        }
    }

    fn at_access(&mut self, id: PacketId) {
        let now = self.now;
        match &mut self.access {
            Access::Cell(cell) => {
                self.dropped_scratch.clear();
                cell.enqueue(now, id, &mut self.arena, &mut self.dropped_scratch);
                for i in 0..self.dropped_scratch.len() {
                    let (d, cause) = self.dropped_scratch[i];
                    self.drop_packet(d, DropSite::Bs(cause));
                }
            }
            Access::Fifo(q) => {
                let size = self.arena.get(id).size as u64;
                if q.bytes + size > q.limit {
                    self.drop_packet(id, DropSite::SharedFifo);
                    return;
                }
                self.arena.get_mut(id).enqueued_at = now;
                q.bytes += size;
                q.queue.push_back(id);
                if !q.busy {
                    q.busy = true;
                    let t = now + serialization_time(size, q.rate_bps);
                    self.push(t, Ev::FifoDepart);
                }
            }
        }
    }

    fn fifo_depart(&mut self) {
        let Access::Fifo(q) = &mut self.access else { return };
        let Some(id) = q.queue.pop_front() else {
            q.busy = false;
            return;
        };
        q.bytes -= self.arena.get(id).size as u64;
        let next = q.queue.front().map(|&n| self.arena.get(n).size as u64);
        let rate = q.rate_bps;
        if next.is_none() {
            q.busy = false;
        }
        self.deliver(id);
        if let Some(size) = next {
            let t = self.now + serialization_time(size, rate);
            self.push(t, Ev::FifoDepart);
        }
    }

    /// Packet `id` (a server's packet) leaves the server on its flow's remote link.
    fn downlink_from_server(&mut self, id: PacketId) {
        let p = *self.arena.get(id);
        let fl = &mut self.flows[p.flow as usize];
        match fl.remote.send(self.now, p.size) {
            Some(at) => self.push(at, Ev::AtGateway(id)),
            None => self.drop_packet(id, DropSite::Wired),
        }
    }

    /// Packet `id` enters its UE's device transmit queue (SORPC band from `udp` and `sor`).
    /// A UE without a modelled uplink (only app sessions send from one: validated) sends it
    /// over the fixed uplink delay, as its ACKs go.
    fn enqueue_uplink(&mut self, id: PacketId, udp: bool, sor: f64) {
        let now = self.now;
        let (ue, kind) = {
            let p = self.arena.get(id);
            (p.ue as usize, p.kind)
        };
        let Some(up) = self.uplinks[ue].as_mut() else {
            let ev = if kind == PacketKind::Ack { Ev::AckAtServer(id) } else { Ev::AtServer(id) };
            self.push(now + self.ack_delay, ev);
            return;
        };
        let band = up.sor_threshold.map_or(0, |th| sorpc_band(kind, udp, sor, th));
        if !up.enqueue(&mut self.arena, id, band, now) {
            self.drop_packet(id, DropSite::Device);
            return;
        }
        if !up.active {
            up.active = true;
            // Served from the next TTI boundary on.
            self.push((now / TTI + 1) * TTI, Ev::UplinkTti(ue as u32));
        }
    }

    /// UE `ue`'s uplink serves one TTI; packets completed in it leave at its end and reach
    /// the server after the fixed uplink + backhaul + remote delay.
    fn uplink_tti(&mut self, ue: u32) {
        let now = self.now;
        let up = self.uplinks[ue as usize].as_mut().expect("uplink event for a UE with an uplink");
        self.uplink_done.clear();
        up.serve_tti(now / TTI, &self.arena, &mut self.uplink_done);
        let more = up.backlogged();
        up.active = more;
        let at = now + TTI + self.ack_delay;
        for i in 0..self.uplink_done.len() {
            let id = self.uplink_done[i];
            let p = self.arena.get(id);
            let ev = if p.kind == PacketKind::Ack { Ev::AckAtServer(id) } else { Ev::AtServer(id) };
            if p.kind == PacketKind::Data && !self.flows[p.flow as usize].is_handshake(p) {
                // An upload's queueing: sojourn in the device queue, transmission included.
                let sojourn = now + TTI - p.enqueued_at;
                self.flows[p.flow as usize].delay.record(sojourn);
            }
            self.push(at, ev);
        }
        if more {
            self.push(now + TTI, Ev::UplinkTti(ue));
        }
    }

    /// A packet without payload delivered to a UE (an upload's ACK, a handshake segment):
    /// its bytes count as air time of the UE, the cell and the flow, with no delay sample.
    fn count_control_air_bytes(&mut self, p: &Packet) {
        let now = self.now;
        let ue = &mut self.ues[p.ue as usize];
        ue.series.add(now, p.size as u64);
        ue.bytes += p.size as u64;
        self.air_bytes.add(now, p.size as u64);
        self.flows[p.flow as usize].air_bytes += p.size as u64;
    }

    /// Packet `id` reaches its UE.
    fn deliver(&mut self, id: PacketId) {
        let now = self.now;
        let p = *self.arena.get(id);
        self.arena.free(id);
        if p.kind == PacketKind::Ack {
            // The server's ACK of an upload reached the UE's sender.
            self.count_control_air_bytes(&p);
            self.ack_arrives(&p);
            return;
        }
        if self.flows[p.flow as usize].is_handshake(&p) {
            // The handshake's SYN or third segment: air bytes like an ACK's, no delay sample.
            self.count_control_air_bytes(&p);
            self.data_arrives(&p);
            return;
        }
        let sojourn = now - p.enqueued_at;
        let ue = &mut self.ues[p.ue as usize];
        ue.delay.record(sojourn);
        ue.series.add(now, p.size as u64);
        ue.bytes += p.size as u64;
        self.air_bytes.add(now, p.size as u64);
        self.delay.record(sojourn);
        let f = p.flow;
        let fl = &mut self.flows[f as usize];
        if fl.closed {
            // A late copy (a spurious retransmission) of a finished flow: it counts in the
            // flow's classes, whose histograms hold the flow's samples now.
            let class = if fl.class == TrafficClass::Background { "background" } else { "foreground" };
            let dscp = format!("dscp{}", fl.dscp);
            fl.packets_delivered += 1;
            fl.air_bytes += p.size as u64;
            self.closed_delay.entry(class.to_string()).or_default().record(sojourn);
            self.closed_delay.entry(dscp).or_default().record(sojourn);
            return;
        }
        fl.delay.record(sojourn);
        fl.air_bytes += p.size as u64;
        self.data_arrives(&p);
    }

    /// Data packet `p` reaches its flow's receiver (the UE for downlink, the server for
    /// uplink); interactive apps react to what became complete.
    fn data_arrives(&mut self, p: &Packet) {
        let now = self.now;
        let f = p.flow;
        let fl = &mut self.flows[f as usize];
        let seg =
            Segment { seq: p.seq, len: p.payload, ts_val: p.ts_val, ts_ecr: p.ts_ecr, retransmit: p.retransmit, syn: p.syn };
        if fl.is_handshake(p) {
            // The handshake's SYN or third segment: the receiver answers; no data, so no
            // delivery, delay or application event.
            fl.receiver.on_segment(now, &seg);
            self.service_receiver(f);
            return;
        }
        fl.packets_delivered += 1;
        let duplicates = fl.receiver.duplicate_segments();
        fl.receiver.on_segment(now, &seg);
        if fl.receiver.duplicate_segments() == duplicates {
            // A packet the receiver did not hold yet: its one-way delay from the first copy.
            let owd = now.saturating_sub(p.sent_at);
            fl.owd.record(owd);
            self.owd.record(owd);
        }
        let fl = &mut self.flows[f as usize];
        let d = fl.receiver.delivered();
        if d > fl.delivered_prev {
            fl.series.add(now, d - fl.delivered_prev);
            fl.delivered_prev = d;
        }
        let mut completed = None;
        if let (Some(size), None) = (fl.size, fl.fct) {
            if d >= size {
                fl.fct = Some(now - fl.start);
                completed = category_of(fl.category);
            }
        }
        self.service_receiver(f);
        if self.flows[f as usize].app.is_some() {
            self.request_arrives(f, p);
        } else if let Some(q) = self.flows[f as usize].response_of {
            self.response_arrives(q, p);
        } else if let Some((s, leg)) = self.flows[f as usize].session {
            self.session_data(s, leg, p);
        }
        if let (Some(c), Some(wl)) = (completed, self.workload.as_mut()) {
            wl.generator.complete(c, now);
            self.schedule_arrival();
        }
    }

    /// Data of request leg `f` reached the responder: answer every request now complete
    /// (TCP apps), or echo the datagram (VoIP).
    fn request_arrives(&mut self, f: u32, p: &Packet) {
        let fl = &mut self.flows[f as usize];
        let d = fl.receiver.delivered();
        let app = fl.app.as_mut().expect("request leg");
        let partner = app.partner;
        match app.tcp {
            Some((_, req, resp)) => {
                let complete = d / req as u64;
                if complete > app.served {
                    let n = complete - app.served;
                    app.served = complete;
                    self.app_write(partner, n * resp as u64);
                    self.service_sender(partner);
                }
            }
            None => {
                app.served += 1;
                let payload = app.echo_bytes;
                let resp = &self.flows[partner as usize];
                let e = Packet {
                    flow: partner,
                    ue: resp.ue,
                    size: payload + resp.header,
                    payload,
                    kind: PacketKind::Data,
                    class: resp.class,
                    dscp: resp.dscp,
                    seq: p.seq,
                    sent_at: self.now,
                    app_tag: p.sent_at,
                    ..Default::default()
                };
                let dir = resp.dir;
                let id = self.arena.alloc(e);
                if dir == Direction::Uplink {
                    self.enqueue_uplink(id, true, 0.0);
                } else {
                    self.downlink_from_server(id);
                }
            }
        }
    }

    /// Data of response leg `r` (of request leg `q`) reached the requester: record the RTT
    /// of every request whose response is now complete.
    fn response_arrives(&mut self, q: u32, p: &Packet) {
        let now = self.now;
        let r = self.flows[q as usize].app.as_ref().expect("request leg").partner;
        let d = self.flows[r as usize].receiver.delivered();
        let app = self.flows[q as usize].app.as_mut().expect("request leg");
        match app.tcp {
            Some((_, _, resp)) => {
                let complete = d / resp as u64;
                while (app.t_s.len() as u64) < complete {
                    let Some(t0) = app.pending.pop_front() else { break };
                    app.record(now, now - t0);
                }
            }
            None => app.record(now, now - p.app_tag),
        }
    }



    /// Records a change of flow `f`'s controller mode (when traces are on).
    #[inline]
    fn note_cc_mode(&mut self, f: u32) {
        if self.trace_interval == 0 {
            return;
        }
        let fl = &mut self.flows[f as usize];
        if let Some(mode) = fl.sender.cc_mode() {
            if mode != fl.mode_changes.current() {
                fl.mode_changes.push(ModeChange { t_s: to_secs_f64(self.now), mode });
            }
        }
    }

    /// Takes one sample of every flow and UE and schedules the next.
    fn sample(&mut self) {
        let now = self.now;
        let t_s = to_secs_f64(now);
        let secs = to_secs_f64(self.trace_interval);
        for fl in self.flows.iter_mut().filter(|f| !f.closed) {
            let d = fl.receiver.delivered();
            let mbps = (d - fl.trace_delivered_prev) as f64 * 8.0 / secs / 1e6;
            fl.trace_delivered_prev = d;
            let (cwnd, srtt) = fl.sender.window().unwrap_or((0, 0));
            let tr = fl.sender.cc_trace();
            fl.trace.push(FlowSample {
                t_s,
                mbps,
                cwnd_bytes: cwnd,
                srtt_ms: srtt as f64 / MS as f64,
                mode: tr.map_or(0, |t| t.mode),
                estimate: tr.map_or(f64::NAN, |t| t.estimate),
                flag: tr.is_some_and(|t| t.flag),
                aux: {
                    let a = fl.sender.trace_aux();
                    if a.is_nan() { fl.receiver.trace_aux() } else { a }
                },
            });
        }
        if let Access::Cell(ran) = &self.access {
            for (i, u) in self.ues.iter_mut().enumerate() {
                let q = ran.queue(i as u32);
                u.trace.push(UeSample { t_s, queue_bytes: q.bytes(), queue_packets: q.packets() });
                if let Some((pos, _, rsrp)) = ran.whereabouts(i as u32) {
                    u.trace.push_place(pos, ran.serving(i as u32), rsrp);
                }
            }
        }
        let next = now + self.trace_interval;
        if next < self.end {
            self.push(next, Ev::Sample);
        }
    }

    /// Builds the results of the run so far. Trace samples already taken by
    /// [`Simulation::take_traces`] are not in them.
    pub fn results(&self) -> RunResult {
        results::collect(self)
    }

    /// The LTE cell or network (`None` behind a shared FIFO).
    pub(crate) fn ran(&self) -> Option<&Ran> {
        match &self.access {
            Access::Cell(c) => Some(c),
            Access::Fifo(_) => None,
        }
    }

    /// Trace samples and mode changes recorded and not yet taken (flows and UEs together).
    pub fn buffered_trace_rows(&self) -> usize {
        self.flows.iter().map(|f| f.trace.len() + f.mode_changes.len()).sum::<usize>()
            + self.ues.iter().map(|u| u.trace.len()).sum::<usize>()
    }

    /// Moves the trace samples and mode changes recorded so far out of the simulation, so a
    /// caller can store them elsewhere while the run goes on (memory then stays flat in
    /// simulated time). The run itself is unaffected; later samples continue where these end.
    pub fn take_traces(&mut self) -> results::TraceDrain {
        let mut out = results::TraceDrain::default();
        for (i, f) in self.flows.iter_mut().enumerate() {
            if !f.trace.is_empty() || !f.mode_changes.is_empty() {
                out.flows.push((i as u32, std::mem::take(&mut f.trace), f.mode_changes.take()));
            }
        }
        for (i, u) in self.ues.iter_mut().enumerate() {
            if !u.trace.is_empty() {
                out.ues.push((i as u32, std::mem::take(&mut u.trace)));
            }
        }
        out
    }

    /// Flows created so far (workload arrivals included).
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }

    /// Number of packets alive in the arena (queued or in flight).
    pub fn packets_in_flight(&self) -> usize {
        self.arena.live()
    }

    /// Most packets alive at once so far.
    pub fn peak_packets(&self) -> usize {
        self.arena.peak()
    }
}
