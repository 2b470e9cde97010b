//! PIE, Proportional Integral controller Enhanced (RFC 8033), dropping at enqueue.
//!
//! **Queue delay estimate: sojourn timestamps** (RFC 8033 §5.2 allows either a departure-rate
//! estimate or timestamps; Linux's default is timestamps). `current_qdelay` is the sojourn
//! of the last packet that left the queue (stamp at enqueue, read at dequeue), and 0 once the
//! queue has drained. In a cell the departure rate changes every TTI with the channel and
//! the scheduler, so a rate estimate over 16 KB of departures lags; the timestamp needs no
//! estimate.
//!
//! **Probability update** every `t_update` (RFC 8033 §4.2):
//! `p = α·(qdelay − QDELAY_REF) + β·(qdelay − qdelay_old)` (delays in seconds, α and β in
//! Hz), scaled by the auto-tuning of §5.1 (÷2048 below drop_prob 10⁻⁶, ÷512 below 10⁻⁵, ÷128
//! below 10⁻⁴, ÷32 below 10⁻³, ÷8 below 1 %, ÷2 below 10 %), capped at +2 % per update once
//! drop_prob ≥ 10 %, then `drop_prob += p`; when both delays are 0, drop_prob decays by 2 %
//! per update; drop_prob is kept in [0, 1]. The simulator has no timers inside a queue, so
//! the updates that fell due since the last hook call are run in a loop, each with the
//! delay known at that time (nothing changed in between: the queue only changes in hooks),
//! as Mahimahi's PIE does.
//!
//! **Burst allowance** (§4.4): starts at `max_burst`, decreases by `t_update` per update;
//! while positive, arrivals are not dropped early. It is reset to `max_burst` when
//! drop_prob is 0 and both the current and the previous delay are below half the target.
//!
//! **Enqueue** (§4.1, with §5.4's de-randomization when `derandomize`): no early drop while
//! the burst allowance lasts, when `qdelay_old < QDELAY_REF/2` and drop_prob < 20 %, or when
//! at most two packets (2 × 1500 bytes) are queued; otherwise drop with probability
//! drop_prob. De-randomization accumulates drop_prob per arrival and never drops below an
//! accumulated 0.85, always drops at 8.5. Arrivals beyond the hard limit are dropped.

use cellshare_core::{time::from_millis_f64, Nanos, Packet, StreamRng};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::{check_range, DequeueVerdict, EnqueueVerdict, ParamError, QueueConfig, QueueDiscipline, QueueLimit, QueueSite, QueueView};

/// Mean packet size PIE's small-queue safeguard counts in (RFC 8033 `MEAN_PKTSIZE`).
const MEAN_PKTSIZE: u64 = 1500;

/// PIE's parameters (`cell.aqm = { kind = "pie", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PieConfig {
    /// QDELAY_REF: target queueing delay, ms (> 0). Default 15 (RFC 8033).
    pub target_ms: f64,
    /// T_UPDATE: period of the drop-probability update, ms (> 0). Default 15 (RFC 8033).
    pub t_update_ms: f64,
    /// α, Hz (≥ 0). Default 0.125 (RFC 8033).
    pub alpha: f64,
    /// β, Hz (≥ 0). Default 1.25 (RFC 8033).
    pub beta: f64,
    /// MAX_BURST: burst allowance, ms (≥ 0). Default 150 (RFC 8033).
    pub max_burst_ms: f64,
    /// Use RFC 8033 §5.4's de-randomized dropping (accumulated probability). Default true.
    pub derandomize: bool,
    /// Packet limit instead of the byte limit. Default: none.
    pub limit_packets: Option<u32>,
}

impl Default for PieConfig {
    fn default() -> Self {
        Self { target_ms: 15.0, t_update_ms: 15.0, alpha: 0.125, beta: 1.25, max_burst_ms: 150.0, derandomize: true, limit_packets: None }
    }
}

impl QueueConfig for PieConfig {
    type Discipline = Pie;

    /// Checks ranges.
    fn validate(&self) -> Result<(), ParamError> {
        check_range("target_ms", self.target_ms, 1e-3, 1e6, "a delay in ms in (0, 1e6]")?;
        check_range("t_update_ms", self.t_update_ms, 1e-3, 1e6, "a period in ms in (0, 1e6]")?;
        check_range("alpha", self.alpha, 0.0, 1e3, "a gain in Hz in [0, 1000]")?;
        check_range("beta", self.beta, 0.0, 1e3, "a gain in Hz in [0, 1000]")?;
        check_range("max_burst_ms", self.max_burst_ms, 0.0, 1e6, "a duration in ms in [0, 1e6]")
    }

    fn limit_packets(&self) -> Option<u32> {
        self.limit_packets
    }

    fn build(&self, limit: QueueLimit, site: &QueueSite) -> Pie {
        Pie::new(self, limit, site.rng())
    }
}

/// The PIE discipline and its state.
#[derive(Clone, Debug)]
pub struct Pie {
    target: Nanos,
    t_update: Nanos,
    alpha: f64,
    beta: f64,
    max_burst: Nanos,
    derandomize: bool,
    limit: QueueLimit,
    rng: StreamRng,
    drop_prob: f64,
    accu_prob: f64,
    burst_allowance: Nanos,
    /// Sojourn of the last departure (0 once the queue drained).
    current_qdelay: Nanos,
    qdelay_old: Nanos,
    /// When the next probability update is due.
    next_update: Nanos,
}

impl Pie {
    /// PIE from its configuration, the queue's hard limit and its random stream.
    pub fn new(cfg: &PieConfig, limit: QueueLimit, rng: StreamRng) -> Self {
        let t_update = from_millis_f64(cfg.t_update_ms).max(1);
        Self {
            target: from_millis_f64(cfg.target_ms),
            t_update,
            alpha: cfg.alpha,
            beta: cfg.beta,
            max_burst: from_millis_f64(cfg.max_burst_ms),
            derandomize: cfg.derandomize,
            limit,
            rng,
            drop_prob: 0.0,
            accu_prob: 0.0,
            burst_allowance: from_millis_f64(cfg.max_burst_ms),
            current_qdelay: 0,
            qdelay_old: 0,
            next_update: t_update,
        }
    }

    /// The current drop probability.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// The remaining burst allowance.
    pub fn burst_allowance(&self) -> Nanos {
        self.burst_allowance
    }

    /// One periodic update (RFC 8033 §4.2, §4.4, §5.1) with the current delay estimate.
    pub fn update(&mut self) {
        let s = |t: Nanos| t as f64 / 1e9;
        let qd = self.current_qdelay;
        let mut p = self.alpha * (s(qd) - s(self.target)) + self.beta * (s(qd) - s(self.qdelay_old));
        let dp = self.drop_prob;
        p /= if dp < 1e-6 {
            2048.0
        } else if dp < 1e-5 {
            512.0
        } else if dp < 1e-4 {
            128.0
        } else if dp < 1e-3 {
            32.0
        } else if dp < 1e-2 {
            8.0
        } else if dp < 0.1 {
            2.0
        } else {
            1.0
        };
        if dp >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        if qd == 0 && self.qdelay_old == 0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(self.t_update);
        if self.drop_prob == 0.0 && qd < self.target / 2 && self.qdelay_old < self.target / 2 {
            self.burst_allowance = self.max_burst;
        }
        self.qdelay_old = qd;
    }

    /// Runs every update due at or before `now`. After a long idle period (delays 0 and
    /// drop_prob 0) further updates change nothing but the clock, so the loop stops early.
    fn catch_up(&mut self, now: Nanos) {
        while self.next_update <= now {
            self.update();
            self.next_update += self.t_update;
            let idle = self.drop_prob == 0.0 && self.current_qdelay == 0 && self.qdelay_old == 0 && self.burst_allowance == self.max_burst;
            if idle && self.next_update <= now {
                let missed = (now - self.next_update) / self.t_update + 1;
                self.next_update += missed * self.t_update;
            }
        }
    }

    fn drop_early(&mut self, q: &QueueView) -> bool {
        if (self.qdelay_old < self.target / 2 && self.drop_prob < 0.2) || q.bytes <= 2 * MEAN_PKTSIZE {
            return false;
        }
        if !self.derandomize {
            return self.rng.gen::<f64>() < self.drop_prob;
        }
        if self.drop_prob == 0.0 {
            self.accu_prob = 0.0;
        }
        self.accu_prob += self.drop_prob;
        if self.accu_prob < 0.85 {
            return false;
        }
        if self.accu_prob >= 8.5 {
            return true;
        }
        self.rng.gen::<f64>() < self.drop_prob
    }
}

impl QueueDiscipline for Pie {
    fn on_enqueue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        self.catch_up(now);
        if !self.limit.fits(pkt.size, q) {
            self.accu_prob = 0.0;
            return EnqueueVerdict::Drop;
        }
        if self.burst_allowance == 0 && self.drop_early(q) {
            self.accu_prob = 0.0;
            return EnqueueVerdict::Drop;
        }
        EnqueueVerdict::Accept
    }

    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict {
        self.catch_up(now);
        self.current_qdelay = if q.packets <= 1 { 0 } else { now.saturating_sub(pkt.enqueued_at) };
        DequeueVerdict::Transmit
    }

    fn fits(&self, size: u32, q: &QueueView) -> bool {
        self.limit.fits(size, q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::{stream_rng, MS};

    fn pie() -> Pie {
        Pie::new(&PieConfig::default(), QueueLimit::Bytes(u64::MAX), stream_rng(1, "test", 0))
    }

    #[test]
    fn probability_update_follows_the_rfc() {
        let mut p = pie();
        // qdelay 45 ms, old 0: p = 0.125·(0.045 − 0.015) + 1.25·(0.045 − 0) = 0.06
        // → drop_prob < 1e-6 so ÷2048.
        p.current_qdelay = 45 * MS;
        p.update();
        let d1 = 0.06 / 2048.0;
        assert!((p.drop_prob() - d1).abs() < 1e-15, "{}", p.drop_prob());
        // Same delay again: only the α term, 0.125·0.03 = 0.00375, ÷128 (1e-5 ≤ d1 < 1e-4).
        p.update();
        let d2 = d1 + 0.00375 / 128.0;
        assert!((p.drop_prob() - d2).abs() < 1e-15, "{}", p.drop_prob());
        // From 15 % a large step is capped at +2 %.
        p.drop_prob = 0.15;
        p.current_qdelay = 500 * MS;
        p.update();
        assert!((p.drop_prob() - 0.17).abs() < 1e-12);
        // From 5 %: ÷2.
        p.drop_prob = 0.05;
        p.qdelay_old = 15 * MS;
        p.current_qdelay = 23 * MS;
        p.update();
        let want = 0.05 + (0.125 * 0.008 + 1.25 * 0.008) / 2.0;
        assert!((p.drop_prob() - want).abs() < 1e-12, "{}", p.drop_prob());
        // Both delays 0: p < 0 and the 2 % decay, floored at 0.
        p.drop_prob = 0.5;
        p.qdelay_old = 0;
        p.current_qdelay = 0;
        p.update();
        assert!((p.drop_prob() - (0.5 - 0.125 * 0.015) * 0.98).abs() < 1e-12);
    }

    #[test]
    fn burst_allowance_then_drops_under_a_standing_queue() {
        let mut p = pie();
        let q = QueueView { bytes: 200 * 1500, packets: 200, head_enqueued_at: Some(0) };
        let mut first_drop = None;
        let mut drops = 0;
        for ms in 1..3000u64 {
            let now = ms * MS;
            // A departure every ms with 100 ms of sojourn, then an arrival.
            p.on_dequeue(now, &Packet { size: 1500, enqueued_at: now.saturating_sub(100 * MS), ..Default::default() }, &q);
            if p.on_enqueue(now, &Packet { size: 1500, ..Default::default() }, &q) == EnqueueVerdict::Drop {
                drops += 1;
                first_drop.get_or_insert(now);
            }
        }
        // No drop during the 150 ms burst allowance (it runs out after 10 updates).
        assert!(first_drop.unwrap() >= 150 * MS, "{first_drop:?}");
        assert!(p.drop_prob() > 0.1, "{}", p.drop_prob());
        assert!(drops > 100);
        // The queue drains: delays 0, the probability decays and the allowance returns.
        let empty = QueueView { bytes: 1500, packets: 1, head_enqueued_at: Some(0) };
        p.on_dequeue(3000 * MS, &Packet { size: 1500, enqueued_at: 3000 * MS, ..Default::default() }, &empty);
        p.on_enqueue(600_000 * MS, &Packet { size: 1500, ..Default::default() }, &QueueView::default());
        assert_eq!(p.drop_prob(), 0.0);
        assert_eq!(p.burst_allowance(), 150 * MS);
    }

    #[test]
    fn small_queue_is_never_dropped_early() {
        let mut p = pie();
        p.drop_prob = 1.0;
        p.burst_allowance = 0;
        p.qdelay_old = 100 * MS;
        p.next_update = u64::MAX;
        let q = QueueView { bytes: 3000, packets: 2, head_enqueued_at: Some(0) };
        assert_eq!(p.on_enqueue(0, &Packet { size: 1500, ..Default::default() }, &q), EnqueueVerdict::Accept);
    }
}
