//! CoDel, Controlled Delay (RFC 8289), dropping at dequeue.
//!
//! Each dequeued packet's sojourn time is compared with `target`. Once every packet has
//! stayed above it for `interval` (and more than one MTU is queued), CoDel enters the
//! dropping state: it drops the head, then drops again at times given by the control law
//! `next = t + interval / sqrt(count)`, so the drop rate grows while the sojourn stays above
//! target. It leaves the state as soon as a packet's sojourn falls below target or the queue
//! holds at most one MTU. Re-entering shortly after leaving (within 16 intervals of the last
//! scheduled drop) starts from the drop count of the previous episode minus its initial
//! count (`count − lastcount`, when that exceeds 1), Linux's variant as the RFC's
//! pseudocode has it.
//!
//! The hook is asked once per head packet; a `Drop` makes the queue ask again for the next
//! head at the same instant, which reproduces the RFC's `while` loop exactly: after a drop in
//! the dropping state, the next packet's `ok_to_drop` decides whether the state continues
//! and whether the next drop time advances by the control law.
//!
//! Defaults are RFC 8289's (target 5 ms, interval 100 ms); the BoDe paper's \[bode\] Table I uses
//! target = D/2 and interval = 5 × RTT. Arrivals beyond the hard limit are dropped.

use cellshare_core::{time::from_millis_f64, Nanos, Packet};
use serde::{Deserialize, Serialize};

use crate::{check_range, DequeueVerdict, EnqueueVerdict, ParamError, QueueConfig, QueueDiscipline, QueueLimit, QueueSite, QueueView};

/// CoDel's parameters (`cell.aqm = { kind = "codel", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CoDelConfig {
    /// TARGET: acceptable standing sojourn time, ms (> 0). Default 5 (RFC 8289).
    pub target_ms: f64,
    /// INTERVAL: how long the sojourn must stay above target before dropping, and the base
    /// of the control law, ms (> 0). Default 100 (RFC 8289).
    pub interval_ms: f64,
    /// MAXPACKET: no drop while at most this many bytes remain queued, bytes. Default 1500.
    pub mtu_bytes: u32,
    /// Packet limit instead of the byte limit. Default: none.
    pub limit_packets: Option<u32>,
}

impl Default for CoDelConfig {
    fn default() -> Self {
        Self { target_ms: 5.0, interval_ms: 100.0, mtu_bytes: 1500, limit_packets: None }
    }
}

impl QueueConfig for CoDelConfig {
    type Discipline = CoDel;

    /// Checks ranges.
    fn validate(&self) -> Result<(), ParamError> {
        check_range("target_ms", self.target_ms, 1e-3, 1e6, "a delay in ms in (0, 1e6]")?;
        check_range("interval_ms", self.interval_ms, 1e-3, 1e6, "a duration in ms in (0, 1e6]")?;
        if self.mtu_bytes == 0 {
            return Err(("mtu_bytes", "0".into(), "a packet size in bytes >= 1".into()));
        }
        Ok(())
    }

    fn limit_packets(&self) -> Option<u32> {
        self.limit_packets
    }

    fn build(&self, limit: QueueLimit, _site: &QueueSite) -> CoDel {
        CoDel::new(self, limit)
    }
}

/// The CoDel discipline and its state.
#[derive(Clone, Debug)]
pub struct CoDel {
    target: Nanos,
    interval: Nanos,
    mtu: u64,
    limit: QueueLimit,
    /// When the sojourn will have been above target for a whole interval; `None` while below.
    first_above_time: Option<Nanos>,
    /// Time of the next drop in the dropping state.
    drop_next: Nanos,
    /// Drops in the current dropping episode (or the carried-over count).
    count: u32,
    /// `count` at the start of the last episode.
    lastcount: u32,
    dropping: bool,
    /// The previous call dropped inside the dropping state (the RFC's `while` loop body).
    just_dropped: bool,
}

impl CoDel {
    /// CoDel from its configuration and the queue's hard limit.
    pub fn new(cfg: &CoDelConfig, limit: QueueLimit) -> Self {
        Self {
            target: from_millis_f64(cfg.target_ms),
            interval: from_millis_f64(cfg.interval_ms),
            mtu: cfg.mtu_bytes as u64,
            limit,
            first_above_time: None,
            drop_next: 0,
            count: 0,
            lastcount: 0,
            dropping: false,
            just_dropped: false,
        }
    }

    /// The control law: `t + interval / sqrt(count)`.
    pub fn control_law(&self, t: Nanos, count: u32) -> Nanos {
        t + (self.interval as f64 / (count.max(1) as f64).sqrt()) as Nanos
    }

    /// Whether CoDel is in its dropping state.
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// Drops counted in the current (or last) episode.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// RFC 8289's `dodequeue` bookkeeping for the head packet: whether it is OK to drop.
    fn ok_to_drop(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> bool {
        let sojourn = now.saturating_sub(pkt.enqueued_at);
        let after = q.bytes.saturating_sub(pkt.size as u64);
        if sojourn < self.target || after <= self.mtu {
            self.first_above_time = None;
            false
        } else {
            match self.first_above_time {
                None => {
                    self.first_above_time = Some(now + self.interval);
                    false
                }
                Some(t) => now >= t,
            }
        }
    }
}

impl QueueDiscipline for CoDel {
    #[inline]
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        self.limit.admit(pkt.size, q)
    }

    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict {
        let ok = self.ok_to_drop(now, pkt, q);
        if self.dropping {
            if !ok {
                self.dropping = false;
                self.just_dropped = false;
                return DequeueVerdict::Transmit;
            }
            if self.just_dropped {
                self.drop_next = self.control_law(self.drop_next, self.count);
            }
            self.just_dropped = false;
            if now >= self.drop_next {
                self.count += 1;
                self.just_dropped = true;
                return DequeueVerdict::Drop;
            }
            DequeueVerdict::Transmit
        } else if ok {
            self.dropping = true;
            self.just_dropped = false;
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            if delta > 1 && delta < u32::MAX / 2 && now.saturating_sub(self.drop_next) < 16 * self.interval {
                self.count = delta;
            }
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
            DequeueVerdict::Drop
        } else {
            DequeueVerdict::Transmit
        }
    }

    fn fits(&self, size: u32, q: &QueueView) -> bool {
        self.limit.fits(size, q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    /// Clock origin of the tests, so that packets can have arrived before "time 0".
    const O: Nanos = 1_000 * MS;

    /// Dequeues one packet per ms from `O + from` to `O + to` (ms) with the sojourn
    /// `sojourn`; a drop is followed at once by the next packet (same sojourn). Returns the
    /// drop times relative to `O`.
    fn drive(c: &mut CoDel, from: u64, to: u64, sojourn: Nanos) -> Vec<Nanos> {
        let q = QueueView { bytes: 100 * 1500, packets: 100, head_enqueued_at: Some(0) };
        let mut drops = Vec::new();
        for ms in from..to {
            let now = O + ms * MS;
            loop {
                let p = Packet { size: 1500, enqueued_at: now - sojourn, ..Default::default() };
                match c.on_dequeue(now, &p, &q) {
                    DequeueVerdict::Drop => drops.push(now - O),
                    DequeueVerdict::Transmit => break,
                }
            }
        }
        drops
    }

    #[test]
    fn control_law_spaces_drops_by_interval_over_sqrt_count() {
        let mut c = CoDel::new(&CoDelConfig::default(), QueueLimit::Bytes(u64::MAX));
        let drops = drive(&mut c, 1, 400, 50 * MS);
        // First above target at 1 ms → may drop from 101 ms; then 101 + 100/√1 = 201,
        // 201 + 100/√2 = 271.7 (first dequeue at 272), 271.7 + 100/√3 = 329.5 (→ 330),
        // 329.5 + 100/√4 = 379.5 (→ 380).
        assert_eq!(drops, vec![101 * MS, 201 * MS, 272 * MS, 330 * MS, 380 * MS]);
        assert!(c.dropping());
        assert_eq!(c.count(), 5);
        assert_eq!(c.control_law(0, 4), 50 * MS);
    }

    #[test]
    fn leaves_below_target_and_reenters_with_the_previous_rate() {
        let mut c = CoDel::new(&CoDelConfig::default(), QueueLimit::Bytes(u64::MAX));
        drive(&mut c, 1, 400, 50 * MS); // 5 drops, lastcount 1
        // Sojourn below target: leave the dropping state, no drops.
        assert!(drive(&mut c, 400, 410, MS).is_empty());
        assert!(!c.dropping());
        // Above target again: first_above at 410 + 100 = 510 → drop at 510 with
        // count = 5 − 1 = 4 (re-entry within 16 intervals), next drop 510 + 100/√4 = 560.
        let drops = drive(&mut c, 410, 561, 50 * MS);
        assert_eq!(drops, vec![510 * MS, 560 * MS]);
        assert_eq!(c.count(), 5);
    }

    #[test]
    fn no_drop_with_one_mtu_left_or_below_target() {
        let mut c = CoDel::new(&CoDelConfig::default(), QueueLimit::Bytes(u64::MAX));
        let small = QueueView { bytes: 3000, packets: 2, head_enqueued_at: Some(0) };
        for ms in 0..1000 {
            let p = Packet { size: 1500, enqueued_at: 0, ..Default::default() };
            assert_eq!(c.on_dequeue(ms * MS, &p, &small), DequeueVerdict::Transmit);
        }
        let big = QueueView { bytes: 30000, packets: 20, head_enqueued_at: Some(0) };
        for ms in 0..1000u64 {
            let p = Packet { size: 1500, enqueued_at: ms * MS - (ms * MS).min(4 * MS), ..Default::default() };
            assert_eq!(c.on_dequeue(ms * MS, &p, &big), DequeueVerdict::Transmit);
        }
    }
}
