//! The fine-grained traces (`simulation.trace_interval_ms`): per-flow and per-UE samples,
//! controller mode changes, and handing them over to a caller during a run.

use cellshare_core::time::to_secs_f64;
use cellshare_core::MS;

use super::{Access, Ev, Simulation};
use crate::results::{self, FlowSample, ModeChange, UeSample};

impl Simulation {
    /// Records a change of flow `f`'s controller mode (when traces are on).
    #[inline]
    pub(super) fn note_cc_mode(&mut self, f: u32) {
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
    pub(super) fn sample(&mut self) {
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
}
