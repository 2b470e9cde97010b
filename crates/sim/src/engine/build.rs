//! A scenario becomes a simulation: the cell or network, the UEs' uplinks, the flows of
//! every `[[flows]]` entry (an app's legs and its session included) and the workload.

use std::collections::BTreeMap;

use cellshare_apps::AppContext;
use cellshare_core::time::{from_millis_f64, from_secs_f64};
use cellshare_core::{PacketArena, TrafficClass, MS};
use cellshare_workload::{Arrivals, Generator};

use super::flows::{self, FlowSpec};
use super::wired::{self, SharedFifo};
use super::{workload, Access, Ev, Simulation};
use crate::apps::Direction;
use crate::assembly::{build_ran, PositionTraces, TraceSet};
use crate::event_queue::EventQueue;
use crate::metrics::{DelayHistogram, PerSecond};
use crate::results::UeTrace;
use crate::scenario::{Scenario, ScenarioError, UeSelector};
use crate::validate::ValidScenario;
use crate::uplink::UeUplink;

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
        Self::with_plugins(scenario, traces, positions, limits, None)
    }

    /// [`Simulation::with_inputs`] with `external`, the factory of the congestion
    /// controllers written outside the transport crate (`cc = { kind = "python" }`, built by
    /// the Python bindings' factory); it checks each of them before anything is built.
    pub fn with_plugins(
        scenario: &Scenario,
        traces: &TraceSet,
        positions: &PositionTraces,
        limits: &crate::Limits,
        external: Option<std::sync::Arc<dyn cellshare_transport::cc::ExternalCc>>,
    ) -> Result<Self, ScenarioError> {
        Self::from_valid(scenario.clone().checked(limits)?, traces, positions, external)
    }

    /// The simulation of a scenario checked already ([`Scenario::parse_checked`]), which is
    /// not checked again, with its parsed trace files and position traces and `external`
    /// (see [`Simulation::with_plugins`]).
    pub fn from_valid(
        scenario: ValidScenario,
        traces: &TraceSet,
        positions: &PositionTraces,
        external: Option<std::sync::Arc<dyn cellshare_transport::cc::ExternalCc>>,
    ) -> Result<Self, ScenarioError> {
        crate::validate::check_external(&scenario, external.as_deref())?;
        let sc = scenario.into_scenario();
        let seed = sc.simulation.seed;
        let end = from_secs_f64(sc.simulation.duration_s);
        let n_prb = sc.cell.n_prb().expect("validated");
        let nr = crate::assembly::nr_radio(&sc, n_prb).map(|(_, r)| r);
        let (ran, snrs) = build_ran(&sc, traces, positions)?;
        let ues: Vec<flows::UeRt> = snrs
            .into_iter()
            .map(|mean_snr_db| flows::UeRt { series: PerSecond::new(end), trace: UeTrace::default(), delay: DelayHistogram::default(), bytes: 0, mean_snr_db })
            .collect();
        let access = match &sc.shared_fifo {
            Some(f) => Access::Fifo(SharedFifo::new(f.rate_mbps, f.queue_bytes)),
            None => Access::Cell(Box::new(ran)),
        };
        let w = &sc.wired;
        let backhaul = wired::Link::new(w.backhaul_rate_mbps, w.backhaul_delay_ms, w.backhaul_queue_bytes);
        let ack_delay = from_millis_f64(w.uplink_delay_ms + w.backhaul_delay_ms + w.remote_delay_ms);
        let n_ues = ues.len() as u32;
        let mut sim = Simulation {
            scenario: sc.clone(),
            now: 0,
            end,
            slot: sc.cell.slot(),
            tdd: sc.cell.tdd(),
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
            drops: crate::results::DropCounts::default(),
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
            external,
        };
        // UEs are numbered across the groups in order (one pass: scenarios may have thousands
        // of groups).
        let mut ue = 0u64;
        for (gi, g) in sc.ues.iter().enumerate() {
            for _ in 0..g.count {
                let up = match &g.uplink {
                    Some(u) => Some(UeUplink::new(u, n_prb, sc.cell.slot(), nr.as_ref(), traces, seed, ue, &format!("ues[{gi}].uplink"))?),
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
                if let Some(app) = &f.app {
                    // An app: its other legs, then the session.
                    let legs = app.legs();
                    let mut ids = vec![id];
                    for leg in &legs[1..] {
                        let leg_name = format!("{}{}", sim.flows[id as usize].name, leg.suffix.text());
                        let dir = if leg.reverse { f.direction.reverse() } else { f.direction };
                        ids.push(sim.add_flow(spec(leg_name, dir, None, None), PerSecond::new(end)));
                    }
                    // The client's legs connect (requests, at the UE of a downlink stream;
                    // the requester's leg of a ping); the other TCP legs ride on their
                    // handshake.
                    for (leg, &fid) in legs.iter().zip(&ids) {
                        if leg.tcp && !leg.opens {
                            sim.flows[fid as usize].sender.established_by_peer();
                        }
                    }
                    let ctx = AppContext { seed, index: id as u64, start, stop };
                    sim.add_session(app.build(&ctx), ids, &legs);
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
            sim.workload = Some(workload::WorkloadRt {
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

    /// Checks a scenario checked already ([`Scenario::parse_checked`]: ranges, limits) with
    /// its inputs as [`Simulation::from_valid`] does — the trace and position files its UEs
    /// and uplinks name, the workload's UEs — without building the simulation: the cell is
    /// built and dropped, the flows, app sessions and per-second series are not (`cellshare
    /// validate`; building every flow made validating 1,000 UEs with 64,000 web legs take
    /// 500 MB). Building flows cannot fail, so the errors are those of `from_valid` but for
    /// its check of the controllers written outside the transport crate, in the same order.
    pub fn check_inputs(scenario: &ValidScenario, traces: &TraceSet, positions: &PositionTraces) -> Result<(), ScenarioError> {
        let sc = scenario.scenario();
        let n_prb = sc.cell.n_prb().expect("validated");
        let nr = crate::assembly::nr_radio(sc, n_prb).map(|(_, r)| r);
        drop(build_ran(sc, traces, positions)?);
        let mut ue = 0u64;
        for (gi, g) in sc.ues.iter().enumerate() {
            for _ in 0..g.count {
                if let Some(u) = &g.uplink {
                    UeUplink::new(u, n_prb, sc.cell.slot(), nr.as_ref(), traces, sc.simulation.seed, ue, &format!("ues[{gi}].uplink"))?;
                }
                ue += 1;
            }
        }
        if let Some(w) = &sc.workload {
            crate::load::capacity_bytes_per_s(sc, traces, positions, &w.ue_list(ue as u32), &w.transport)?;
        }
        Ok(())
    }
}
