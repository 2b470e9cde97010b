//! Round robin: UEs in cyclic order of index, starting after the last UE served.

use super::{Grant, Leftover, MacScheduler, SchedulerConfig, Sent, TtiView};

/// Round robin.
#[derive(Clone, Debug)]
pub struct RoundRobin {
    /// The next UE index to consider.
    next: u32,
    /// UEs in the cell.
    n: u32,
    padding: bool,
}

impl MacScheduler for RoundRobin {
    fn new(cfg: &SchedulerConfig) -> Self {
        Self { next: 0, n: 0, padding: cfg.leftover == Leftover::Padding }
    }

    fn add_ue(&mut self, ue: u32) {
        self.n = self.n.max(ue + 1);
    }

    #[inline]
    fn schedule(&mut self, tti: &mut TtiView<'_>, grants: &mut Vec<Grant>) {
        let (n, next) = (self.n, self.next);
        // Nearer in the cyclic order from the pointer is better.
        tti.allocate_ranked(grants, self.padding, |u| -(((u.ue() + n - next) % n) as f64));
    }

    #[inline]
    fn sent(&mut self, ue: u32, _sent: &Sent) {
        self.next = (ue + 1) % self.n;
    }
}
