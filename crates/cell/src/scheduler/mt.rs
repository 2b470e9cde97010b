//! Max throughput: the UE that could receive the most bytes this TTI wins. Keeps no state.

use super::{Grant, Leftover, MacScheduler, SchedulerConfig, TtiView};

/// Max throughput (best channel wins).
#[derive(Clone, Debug)]
pub struct MaxThroughput {
    padding: bool,
}

impl MacScheduler for MaxThroughput {
    fn new(cfg: &SchedulerConfig) -> Self {
        Self { padding: cfg.leftover == Leftover::Padding }
    }

    #[inline]
    fn schedule(&mut self, tti: &mut TtiView<'_>, grants: &mut Vec<Grant>) {
        tti.allocate_ranked(grants, self.padding, |u| u.full_bytes() as f64);
    }
}
