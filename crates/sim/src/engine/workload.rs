//! The generated workload (`[workload]`): its arrivals become flows as they come.

use cellshare_core::{Nanos, TrafficClass};
use cellshare_workload::Generator;

use super::flows::FlowSpec;
use super::{Ev, Simulation};
use crate::apps::Direction;
use crate::metrics::PerSecond;
use crate::transport::TransportConfig;

/// The workload's run-time state: the generator and what it produced.
#[derive(Debug)]
pub(crate) struct WorkloadRt {
    pub(super) generator: Generator,
    /// The time of the `Arrival` event last scheduled.
    pub(super) scheduled: Option<Nanos>,
    pub(super) transport: TransportConfig,
    pub(super) dscp: u8,
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
    /// Every workload arrival due now becomes a flow starting now; the next one is scheduled.
    pub(super) fn arrival(&mut self) {
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
    pub(super) fn schedule_arrival(&mut self) {
        let Some(wl) = self.workload.as_mut() else { return };
        if let Some(t) = wl.generator.peek_time() {
            if wl.scheduled != Some(t) {
                wl.scheduled = Some(t);
                self.push(t.max(self.now), Ev::Arrival);
            }
        }
    }
}
