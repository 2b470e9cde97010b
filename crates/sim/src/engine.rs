//! The simulation engine: a discrete-event core for everything that is not TTI-aligned
//! (wired links, endpoint timers, ACKs) interleaved with the TTI loop of the cell: LTE's
//! 1 ms TTI, or an NR cell's slot of 1/2^μ ms (the engine's `slot`, set from the scenario's
//! `[cell]`; the "TTI" of the code and of the outputs is the slot on NR).
//!
//! Time advances TTI by TTI: before TTI `k` runs at `k·slot`, every event due at or before
//! that instant is processed in (time, insertion) order. TTIs in which no UE has queued data
//! are skipped (the PF averages decay lazily, see `cellshare-cell`), so idle periods cost
//! nothing. Packets live in one arena; queues and events carry indices.
//!
//! This file is the loop: the events (`Ev`), their dispatch and the run. What the events
//! do lives in the child modules:
//!
//! - `build`: a scenario becomes a simulation (its flows, app sessions, uplinks, workload);
//! - `flows`: the flows' endpoints — TCP and datagram senders and receivers, the
//!   application writes of a flow, ACKs and arrivals at the receiver;
//! - `wired`: the wired links (remote, backhaul), the access behind them (the cell or the
//!   shared FIFO), delivery to the UE and the UE's uplink;
//! - `sessions`: the apps of `cellshare-apps` (ping, game, voip, video call, stream, web),
//!   whose legs are flows;
//! - `workload`: the generated workload's arrivals;
//! - `drops`: drop accounting; `sampling`: the fine-grained traces;
//! - `collect`: the results of a run.

mod build;
mod collect;
mod drops;
mod flows;
mod sampling;
mod sessions;
mod wired;
mod workload;

use std::collections::BTreeMap;

use cellshare_cell::{Delivery, DropCause};
use cellshare_core::{Nanos, PacketArena, PacketId, Slot};
use cellshare_ran::Ran;

use crate::event_queue::EventQueue;
use crate::metrics::{DelayHistogram, PerSecond};
use crate::results::RunResult;
use crate::scenario::Scenario;
use crate::uplink::UeUplink;

/// Drop counters by cause (in the results: [`RunResult::drops`]).
pub use crate::results::DropCounts;

use drops::DropSite;

/// The event queue's sorted lanes (`event_queue.rs`, "Sorted lanes"): deliveries (one TTI
/// after the TTI that sent them), arrivals at the access over the one backhaul link (a FIFO
/// with a fixed delay), ACKs reaching the server a fixed delay after they left a UE without
/// a modelled uplink.
const LANE_DELIVER: usize = 0;
const LANE_BACKHAUL: usize = 1;
const LANE_ACK: usize = 2;
const _: () = assert!(LANE_ACK < crate::event_queue::LANES);

const _: () = assert!(cellshare_core::packet::MAX_SACK_BLOCKS == cellshare_transport::wire::MAX_SACK_BLOCKS);

/// What the UEs reach the servers through.
#[derive(Debug)]
enum Access {
    /// The LTE cell, or a network of cells (one code path: a network of one).
    Cell(Box<Ran>),
    /// The shared drop-tail FIFO.
    Fifo(wired::SharedFifo),
}

/// An event.
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
    /// Take the fine-grained trace samples.
    Sample,
    /// The workload's next flow arrives.
    Arrival,
    /// An app session's timer.
    AppTimer(u32),
}

/// A running simulation.
#[derive(Debug)]
pub struct Simulation {
    pub(crate) scenario: Scenario,
    now: Nanos,
    pub(crate) end: Nanos,
    /// The scheduling period (fixed for the run).
    pub(crate) slot: Slot,
    /// An NR cell's TDD pattern: the cell schedules only in its downlink slots, the uplinks
    /// send only in its uplink slots.
    pub(crate) tdd: Option<cellshare_cell::nr::TddPattern>,
    tti: u64,
    seq: u64,
    heap: EventQueue<Ev>,
    arena: PacketArena,
    access: Access,
    backhaul: wired::Link,
    ack_delay: Nanos,
    pub(crate) flows: Vec<flows::FlowRt>,
    pub(crate) ues: Vec<flows::UeRt>,
    pub(crate) prbs: PerSecond,
    /// PRBs used weighted by their TTI's capacity, per second (a cell of trace UEs only:
    /// `TtiReport::prb_bytes_used`; the numerator of its `prb_utilization`).
    pub(crate) prb_bytes: PerSecond,
    pub(crate) air_bytes: PerSecond,
    pub(crate) n_prb: u32,
    pub(crate) drops: crate::results::DropCounts,
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
    pub(crate) workload: Option<workload::WorkloadRt>,
    /// Queue-delay histograms of closed flows, by class name (`"foreground"`,
    /// `"background"`, `"dscp<N>"`), merged when each flow closed.
    pub(crate) closed_delay: BTreeMap<String, DelayHistogram>,
    /// App sessions (every flow entry with an `app`, per UE).
    pub(crate) sessions: Vec<sessions::SessionRt>,
    /// The actions of the app being called (a buffer reused for every call).
    app_io: cellshare_apps::Io,
    /// The factory of the controllers written outside the transport crate, if any.
    external: Option<std::sync::Arc<dyn cellshare_transport::cc::ExternalCc>>,
}

impl Simulation {
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
        self.slot.start(self.tti) >= self.end
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
        while self.slot.start(self.tti) < until {
            if self.events >= stop {
                return false;
            }
            let t = self.slot.start(self.tti);
            self.process_events_upto(t);
            self.now = t;
            let (backlog, tick) = match &self.access {
                Access::Cell(r) => (r.has_backlog(), r.next_tick()),
                Access::Fifo(_) => (false, u64::MAX),
            };
            if backlog || tick <= self.tti {
                if self.tdd.is_none_or(|p| p.is_downlink(self.tti)) {
                    self.run_tti();
                }
                self.tti += 1;
            } else {
                // Nothing to schedule: jump to the TTI at or after the next event, or to the
                // network's next move or measurement.
                let next = self.heap.peek_time().unwrap_or(self.end);
                self.tti = (self.tti + 1).max(self.slot.index_ceil(next).min(tick));
            }
        }
        if self.slot.start(self.tti) >= self.end {
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
        let at = self.now + self.slot.ns();
        for i in 0..self.delivered_scratch.len() {
            let d = self.delivered_scratch[i];
            self.push_sorted(LANE_DELIVER, at, Ev::Deliver(d.id));
        }
        for i in 0..self.dropped_scratch.len() {
            let (id, cause) = self.dropped_scratch[i];
            self.drop_packet(id, DropSite::Bs(cause));
        }
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::FlowOn(f) => self.flow_on(f),
            Ev::FlowOff(f) => self.flow_off(f),
            Ev::SenderWake(f) => self.sender_wake(f),
            Ev::ReceiverWake(f) => self.receiver_wake(f),
            Ev::AtGateway(id) => self.at_gateway(id),
            Ev::AtAccess(id) => self.at_access(id),
            Ev::Deliver(id) => self.deliver(id),
            Ev::AckAtServer(id) => self.ack_at_server(id),
            Ev::FifoDepart => self.fifo_depart(),
            Ev::UplinkTti(ue) => self.uplink_tti(ue),
            Ev::AtServer(id) => self.at_server(id),
            Ev::Sample => self.sample(),
            Ev::Arrival => self.arrival(),
            Ev::AppTimer(s) => self.session_timer(s),
        }
    }

    /// Builds the results of the run so far. Trace samples already taken by
    /// [`Simulation::take_traces`] are not in them.
    pub fn results(&self) -> RunResult {
        collect::collect(self)
    }

    /// The LTE cell or network (`None` behind a shared FIFO).
    pub(crate) fn ran(&self) -> Option<&Ran> {
        match &self.access {
            Access::Cell(c) => Some(c),
            Access::Fifo(_) => None,
        }
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
