//! Proportional fair: the UE with the highest r_i(t) / R̄_i(t) wins, r_i(t) the bytes it
//! could receive this TTI with every PRB, R̄_i(t) its averaged served bytes per TTI.

use super::{Grant, Leftover, MacScheduler, SchedulerConfig, Sent, TtiView, UeStatus};

/// Smallest initial value of the averaged rate, so a never-served UE has a finite, maximal
/// PF metric.
const AVG_FLOOR: f64 = 1e-3;

/// Every UE's averaged served bytes per TTI: R̄ ← (1 − α)·R̄ + α·served, over all TTIs (0
/// served in TTIs a UE is not scheduled), α = 1 / `time_constant_tti`.
///
/// Kept as a scaled value per UE and one common decay factor: the average at the current
/// TTI is `scaled · decay`. Every UE not served in a TTI has its average multiplied by
/// 1 − α; keeping that factor once for all UEs makes skipping idle TTIs and ranking UEs cost
/// one multiply per UE instead of a power.
#[derive(Clone, Debug)]
pub struct AveragedRate {
    alpha: f64,
    /// Averaged served bytes per TTI divided by `decay`, by UE.
    scaled: Vec<f64>,
    /// Common decay factor (1 − α)^(TTIs since the last renormalization), valid at the start
    /// of TTI `decay_tti`.
    decay: f64,
    decay_tti: u64,
}

impl AveragedRate {
    /// No UEs, weight α = 1 / `time_constant_tti`.
    pub fn new(time_constant_tti: f64) -> Self {
        Self { alpha: 1.0 / time_constant_tti, scaled: Vec::new(), decay: 1.0, decay_tti: 0 }
    }

    /// UE `ue` (the next index) starts at the floor.
    pub fn add_ue(&mut self, ue: u32) {
        debug_assert_eq!(ue as usize, self.scaled.len(), "UEs are added in index order");
        self.scaled.push(AVG_FLOOR / self.decay);
    }

    /// UE `ue` forgets its history: back to the floor.
    pub fn reset(&mut self, ue: u32) {
        self.scaled[ue as usize] = AVG_FLOOR / self.decay;
    }

    /// Brings the common decay factor to the start of TTI `tti`, renormalizing every UE's
    /// scaled average before the factor underflows.
    #[inline]
    pub fn advance(&mut self, tti: u64) {
        if tti > self.decay_tti {
            let gap = (tti - self.decay_tti).min(i32::MAX as u64) as i32;
            self.decay *= (1.0 - self.alpha).powi(gap);
            self.decay_tti = tti;
        }
        if self.decay < 1e-150 {
            for s in &mut self.scaled {
                *s = (*s * self.decay).max(AVG_FLOOR);
            }
            self.decay = 1.0;
        }
    }

    /// Every UE's average divided by the common decay factor (by UE index; `n_ues` of them,
    /// the cell's count): ranking UEs by r_i / R̄_i, the common factor cancels and
    /// r_i / scaled_i orders them alike. (Taking the slice at the cell's length lets the
    /// compiler drop the bounds check of each read, as the cell checks the same index.)
    #[inline(always)]
    pub fn scaled(&self, n_ues: usize) -> &[f64] {
        &self.scaled[..n_ues]
    }

    /// UE `ue` was served `bytes` in the TTI the factor was last advanced to. With
    /// R = scaled·decay and the common factor moving to (1 − α)·decay at the next TTI, the
    /// scaled value grows by α·served / ((1 − α)·decay).
    #[inline]
    pub fn served(&mut self, ue: u32, bytes: u64) {
        self.scaled[ue as usize] += self.alpha * bytes as f64 / ((1.0 - self.alpha) * self.decay);
    }

    /// UE `ue`'s averaged served bytes per TTI at the start of TTI `tti`.
    pub fn rate(&self, ue: u32, tti: u64) -> f64 {
        let extra = tti.saturating_sub(self.decay_tti).min(i32::MAX as u64) as i32;
        let d = self.decay * (1.0 - self.alpha).powi(extra);
        (self.scaled[ue as usize] * d).max(AVG_FLOOR)
    }
}

/// Proportional fair.
#[derive(Clone, Debug)]
pub struct ProportionalFair {
    avg: AveragedRate,
    /// `leftover = "padding"`: the winner takes every PRB and its average counts the whole
    /// block, as ns-3's `lastTtiBytesTransmitted` does.
    padding: bool,
}

impl ProportionalFair {
    /// The PF metric of `u`, up to the common decay factor: r_i / (R̄_i / decay), with
    /// `scaled` from [`AveragedRate::scaled`].
    #[inline(always)]
    pub fn metric(scaled: &[f64], u: UeStatus<'_>) -> f64 {
        u.full_bytes() as f64 / scaled[u.ue() as usize]
    }

    /// The averaged rates.
    #[inline]
    pub fn averages(&self) -> &AveragedRate {
        &self.avg
    }

    /// Ages the averages to TTI `tti`.
    #[inline]
    pub fn advance(&mut self, tti: u64) {
        self.avg.advance(tti);
    }

    /// Whether PRBs the winner cannot fill are padding.
    #[inline]
    pub fn padding(&self) -> bool {
        self.padding
    }
}

impl MacScheduler for ProportionalFair {
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
        tti.allocate_ranked(grants, self.padding, |u| Self::metric(scaled, u));
    }

    #[inline]
    fn sent(&mut self, ue: u32, sent: &Sent) {
        self.avg.served(ue, if self.padding { sent.block_bytes as u64 } else { sent.bytes });
    }

    fn averaged_rate(&self, ue: u32, tti: u64) -> Option<f64> {
        Some(self.avg.rate(ue, tti))
    }
}
