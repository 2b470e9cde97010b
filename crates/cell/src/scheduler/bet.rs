//! Blind equal throughput: the UE with the lowest averaged served rate R̄_i(t) wins, whatever
//! its channel, so every UE ends up with the same throughput.

use super::pf::AveragedRate;
use super::{Grant, Leftover, MacScheduler, SchedulerConfig, Sent, TtiView};

/// Blind equal throughput (least served wins).
#[derive(Clone, Debug)]
pub struct BlindEqualThroughput {
    avg: AveragedRate,
    padding: bool,
}

impl MacScheduler for BlindEqualThroughput {
    fn new(cfg: &SchedulerConfig) -> Self {
        Self { avg: AveragedRate::new(cfg.time_constant_tti), padding: cfg.leftover == Leftover::Padding }
    }

    fn add_ue(&mut self, ue: u32) {
        self.avg.add_ue(ue);
    }

    fn reset_ue(&mut self, ue: u32) {
        self.avg.reset(ue);
    }

    #[inline]
    fn schedule(&mut self, tti: &mut TtiView<'_>, grants: &mut Vec<Grant>) {
        self.avg.advance(tti.tti());
        let scaled = self.avg.scaled(tti.n_ues());
        tti.allocate_ranked(grants, self.padding, |u| 1.0 / scaled[u.ue() as usize]);
    }

    #[inline]
    fn sent(&mut self, ue: u32, sent: &Sent) {
        self.avg.served(ue, if self.padding { sent.block_bytes as u64 } else { sent.bytes });
    }

    fn averaged_rate(&self, ue: u32, tti: u64) -> Option<f64> {
        Some(self.avg.rate(ue, tti))
    }
}
