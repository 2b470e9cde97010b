//! MAC schedulers.
//!
//! Every TTI the scheduler ranks backlogged UEs; the winner takes all PRBs its queue can
//! fill, the rest go to the next UE, and so on. The rankings:
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
//! weight α = 1 / `time_constant_tti`: R̄ ← (1 − α)·R̄ + α·served.

use serde::{Deserialize, Serialize};

/// Which scheduler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    /// Proportional fair.
    #[default]
    #[serde(rename = "pf")]
    ProportionalFair,
    /// Round robin.
    #[serde(rename = "rr")]
    RoundRobin,
    /// Max throughput (best channel wins).
    #[serde(rename = "mt")]
    MaxThroughput,
    /// Blind equal throughput (least served wins).
    #[serde(rename = "bet")]
    BlindEqualThroughput,
    /// Strict foreground-over-background priority, PF inside each class ("ideal priority").
    Priority,
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
    /// window; vendors use ~100–1000).
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
}
