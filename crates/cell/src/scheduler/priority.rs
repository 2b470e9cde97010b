//! Ideal priority: UEs with foreground data queued before all others, proportional fair
//! within each of the two classes.

use super::pf::ProportionalFair;
use super::{Grant, MacScheduler, SchedulerConfig, Sent, TtiView};

/// Strict foreground-over-background priority, PF inside each class.
#[derive(Clone, Debug)]
pub struct Priority {
    pf: ProportionalFair,
}

impl MacScheduler for Priority {
    fn new(cfg: &SchedulerConfig) -> Self {
        Self { pf: ProportionalFair::new(cfg) }
    }

    fn add_ue(&mut self, ue: u32) {
        self.pf.add_ue(ue);
    }

    fn reset_ue(&mut self, ue: u32) {
        self.pf.reset_ue(ue);
    }

    #[inline]
    fn schedule(&mut self, tti: &mut TtiView<'_>, grants: &mut Vec<Grant>) {
        self.pf.advance(tti.tti());
        let (scaled, padding) = (self.pf.averages().scaled(tti.n_ues()), self.pf.padding());
        tti.allocate_ranked(grants, padding, |u| (u8::from(u.foreground_bytes() > 0), ProportionalFair::metric(scaled, u)));
    }

    #[inline]
    fn sent(&mut self, ue: u32, sent: &Sent) {
        self.pf.sent(ue, sent);
    }

    fn averaged_rate(&self, ue: u32, tti: u64) -> Option<f64> {
        self.pf.averaged_rate(ue, tti)
    }
}
