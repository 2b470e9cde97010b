//! Oldest head-of-line first: a complete MAC scheduler, the worked example of
//! docs/extending/scheduler.md.
//!
//! Every TTI the UE whose oldest queued packet has waited longest gets the fewest PRBs that
//! carry its whole queue; the PRBs left go to the UE with the next-oldest packet, and so on
//! until the PRBs or the UEs run out. Ties go to the lower UE index. The ranking needs no
//! memory of earlier TTIs, so the scheduler keeps no state beyond its configuration.

use cellshare_core::Nanos;

use super::{Grant, Leftover, MacScheduler, SchedulerConfig, TtiView};

/// Oldest head-of-line packet first.
#[derive(Debug)]
pub struct OldestFirst {
    /// `cell.scheduler.leftover = "padding"`: the first UE's block takes every PRB.
    padding: bool,
}

impl MacScheduler for OldestFirst {
    /// Built once per cell from `[cell.scheduler]`.
    fn new(cfg: &SchedulerConfig) -> Self {
        Self { padding: cfg.leftover == Leftover::Padding }
    }

    /// Called once per TTI; `tti` offers the UEs that may be granted PRBs now, `grants`
    /// receives the allocation in the order the cell is to send it.
    fn schedule(&mut self, tti: &mut TtiView<'_>, grants: &mut Vec<Grant>) {
        let mut prbs = tti.prbs();
        while prbs > 0 {
            // The UE with the oldest head-of-line packet among those not granted yet.
            let mut oldest: Option<(Nanos, u32)> = None;
            tti.for_each_ue(|ue| {
                if grants.iter().any(|g| g.ue == ue.ue()) {
                    return;
                }
                let delay = ue.hol_delay();
                if oldest.is_none_or(|(d, i)| delay > d || (delay == d && ue.ue() < i)) {
                    oldest = Some((delay, ue.ue()));
                }
            });
            let Some((_, winner)) = oldest else { break };
            // As many PRBs as its queue fills at its link quality this TTI.
            let ue = tti.ue(winner);
            let n = if self.padding { prbs } else { ue.prbs_for_bytes(ue.queued_bytes(), prbs) };
            grants.push(Grant { ue: winner, prbs: n });
            prbs -= n;
        }
    }

    // `add_ue`, `reset_ue` and `sent` keep their defaults (do nothing): there is no per-UE
    // state to create, forget or update. A scheduler with an average of what each UE was
    // served (as PF) keeps it in its own struct and updates it in `sent`.
}
