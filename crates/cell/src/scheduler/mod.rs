//! MAC schedulers.
//!
//! A scheduler is a component behind one interface, [`MacScheduler`], modelled on ns-3's
//! `FfMacSchedSapProvider`: every TTI the cell hands it a [`TtiView`] of the UEs with data
//! queued (buffer status, link quality, head-of-line delay) and the PRBs free for new data,
//! and it answers with the allocation, a list of [`Grant`]s in order; after each grant the
//! cell reports what it carried ([`MacScheduler::sent`]). Each scheduler is a file of this
//! module owning its state (PF its averaged rates, RR its pointer) and one line of the
//! registry below, which names it in `cell.scheduler.kind`; the cell holds a [`Scheduler`],
//! the registered schedulers dispatched statically.
//!
//! The built-in schedulers rank the UEs by a metric; the winner takes all PRBs its queue can
//! fill, the rest go to the next UE, and so on ([`TtiView::allocate_ranked`]):
//!
//! | scheduler | metric (higher wins) |
//! |---|---|
//! | proportional fair (`pf`) | r_i(t) / R̄_i(t): achievable bytes this TTI with all PRBs over the averaged served bytes per TTI |
//! | round robin (`rr`) | cyclic order of UE index, starting after the last UE served |
//! | max throughput (`mt`) | r_i(t) |
//! | blind equal throughput (`bet`) | 1 / R̄_i(t) |
//! | ideal priority (`priority`) | UEs with foreground data queued first, PF within each class |
//!
//! R̄ is an exponential average over all TTIs (0 served in TTIs a UE is not scheduled) with
//! weight α = 1 / `time_constant_tti`: R̄ ← (1 − α)·R̄ + α·served ([`pf::AveragedRate`]).

mod interface;

pub use interface::{Grant, MacScheduler, Sent, TtiView, UeStatus};

use serde::{Deserialize, Serialize};

/// Declares the registered schedulers. One line per scheduler:
///
/// ```text
/// "key" => module::Type, "description";
/// ```
///
/// declares `pub mod module;` (the file `module.rs` beside this one, or the file an optional
/// leading `#[path = "..."]` names), the variant `SchedulerKind::Type` that
/// `cell.scheduler.kind = "key"` selects (the description is its doc, in the scenario
/// schema) and the variant `Scheduler::Type(module::Type)` that dispatches to it. An optional
/// leading `#[cfg(...)]` applies to all three.
macro_rules! registry {
    ($( $(#[cfg($cfg:meta)])? $(#[path = $path:literal])? $key:literal => $module:ident :: $kind:ident, $doc:literal; )+) => {
        $( $(#[cfg($cfg)])? $(#[path = $path])? pub mod $module; )+

        /// Which scheduler.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum SchedulerKind {
            $( $(#[cfg($cfg)])? #[doc = $doc] #[serde(rename = $key)] $kind, )+
        }

        /// The cell's scheduler: the registered scheduler its configuration names, called
        /// through [`MacScheduler`] with static dispatch.
        #[derive(Debug)]
        pub enum Scheduler {
            $( $(#[cfg($cfg)])? #[doc = $doc] $kind($module::$kind), )+
        }

        impl MacScheduler for Scheduler {
            fn new(cfg: &SchedulerConfig) -> Self {
                match cfg.kind { $( $(#[cfg($cfg)])? SchedulerKind::$kind => Scheduler::$kind(<$module::$kind as MacScheduler>::new(cfg)), )+ }
            }

            #[inline]
            fn add_ue(&mut self, ue: u32) {
                match self { $( $(#[cfg($cfg)])? Scheduler::$kind(s) => s.add_ue(ue), )+ }
            }

            #[inline]
            fn reset_ue(&mut self, ue: u32) {
                match self { $( $(#[cfg($cfg)])? Scheduler::$kind(s) => s.reset_ue(ue), )+ }
            }

            #[inline]
            fn schedule(&mut self, tti: &mut TtiView<'_>, grants: &mut Vec<Grant>) {
                match self { $( $(#[cfg($cfg)])? Scheduler::$kind(s) => s.schedule(tti, grants), )+ }
            }

            #[inline]
            fn sent(&mut self, ue: u32, sent: &Sent) {
                match self { $( $(#[cfg($cfg)])? Scheduler::$kind(s) => s.sent(ue, sent), )+ }
            }

            fn averaged_rate(&self, ue: u32, tti: u64) -> Option<f64> {
                match self { $( $(#[cfg($cfg)])? Scheduler::$kind(s) => s.averaged_rate(ue, tti), )+ }
            }
        }
    };
}

registry! {
    "pf" => pf::ProportionalFair, "Proportional fair.";
    "rr" => rr::RoundRobin, "Round robin.";
    "mt" => mt::MaxThroughput, "Max throughput (best channel wins).";
    "bet" => bet::BlindEqualThroughput, "Blind equal throughput (least served wins).";
    "priority" => priority::Priority, "Strict foreground-over-background priority, PF inside each class (\"ideal priority\").";
    #[cfg(test)] #[path = "../../../../docs/extending/scheduler_example.rs"] "oldest_first" => scheduler_example::OldestFirst, "Oldest head-of-line packet first (the worked example of docs/extending/scheduler.md).";
}

impl Default for SchedulerKind {
    fn default() -> Self {
        SchedulerKind::ProportionalFair
    }
}

/// What happens to the PRBs a TTI's winner cannot fill.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Leftover {
    /// The winner takes the fewest PRBs that carry its queue; the rest go to the next UE in
    /// the ranking, and so on (the papers' description of PF). The averaged rate counts the
    /// bytes sent.
    #[default]
    NextUe,
    /// The winner takes every PRB left, whatever its queue holds, and the rest of its block
    /// is padding; the averaged rate counts the whole block. This is ns-3 LENA's
    /// `PfFfMacScheduler` on a channel that is flat over the band: every resource-block group
    /// goes to the best-metric UE with data (the metric does not change within a TTI), the
    /// MAC pads what RLC cannot fill, and `lastTtiBytesTransmitted` is the block's size
    /// (`pf-ff-mac-scheduler.cc`, ns-3.44). For cross-checks against ns-3.
    Padding,
}

/// Scheduler configuration (`[cell.scheduler]`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerConfig {
    /// Scheduler: `"pf"` (proportional fair), `"rr"` (round robin), `"mt"` (max throughput),
    /// `"bet"` (blind equal throughput) or `"priority"` (ideal foreground priority, PF within
    /// classes). Default `"pf"`.
    pub kind: SchedulerKind,
    /// Time constant of the averaged served rate used by PF, BET and priority, in TTIs
    /// (α = 1/time_constant_tti). Default 100 TTIs (ns-3 LENA's PF uses a comparable
    /// window; vendors use ~100–1000). On an NR cell it counts slots, since the average is
    /// updated once per scheduling decision: T seconds are T·1000·2^μ slots (the default is
    /// 100 ms on LTE, 50 ms at μ = 1).
    pub time_constant_tti: f64,
    /// The PRBs a TTI's winner cannot fill: `"next_ue"` (default: they go to the next UE in
    /// the ranking) or `"padding"` (the winner's block takes them all and is padded, and the
    /// averaged rate counts the whole block: ns-3 LENA's `PfFfMacScheduler` on a flat
    /// channel, for cross-checks).
    pub leftover: Leftover,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        Self { kind: SchedulerKind::ProportionalFair, time_constant_tti: 100.0, leftover: Leftover::NextUe }
    }
}

impl SchedulerConfig {
    /// EWMA weight α.
    #[inline]
    pub fn alpha(&self) -> f64 {
        1.0 / self.time_constant_tti
    }

    /// Builds the scheduler this configuration names.
    pub fn build(&self) -> Scheduler {
        Scheduler::new(self)
    }
}
