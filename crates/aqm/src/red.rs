//! RED, Random Early Detection (Floyd & Jacobson, IEEE/ACM ToN 1993 \[red\]), with the "gentle"
//! variant (Floyd 2000 \[red-gentle\]), deciding at enqueue.
//!
//! On every arrival the average queue size is updated: `avg ← (1 − w_q)·avg + w_q·q` when
//! the queue is non-empty, and `avg ← (1 − w_q)^m·avg` when the arrival finds it empty, `m`
//! being the number of typical packets the link could have sent while it was idle
//! (idle time × `idle_rate_mbps` / (8 × `mean_packet_bytes`)). The queue becomes idle, for
//! this purpose, when its last packet starts transmission (the hook's view of a departure).
//!
//! Then, with `count` the arrivals since the last drop:
//! - `avg < min_th`: accept (count ← −1);
//! - `min_th ≤ avg < max_th`: count ← count + 1, `p_b = max_p·(avg − min_th)/(max_th − min_th)`,
//!   drop with `p_a = p_b / (1 − count·p_b)` (1 once count·p_b ≥ 1), which makes the gap
//!   between drops uniform, at most 1/p_b arrivals; count ← 0 on a drop;
//! - gentle, `max_th ≤ avg < 2·max_th`: the same with
//!   `p_b = max_p + (1 − max_p)·(avg − max_th)/max_th`;
//! - otherwise drop (count ← 0).
//!
//! Packet mode measures the queue in packets. Byte mode measures it in bytes divided by
//! `mean_packet_bytes` (so thresholds stay in packets) and scales `p_b` by
//! size / `mean_packet_bytes`, so large packets are more likely to be dropped (the paper's
//! byte-mode variant). Arrivals beyond the hard limit are dropped.

use cellshare_core::{Nanos, Packet, StreamRng};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::{check_range, DequeueVerdict, EnqueueVerdict, ParamError, QueueConfig, QueueDiscipline, QueueLimit, QueueSite, QueueView};

/// How RED measures the queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedMode {
    /// Queue length in packets.
    #[default]
    Packets,
    /// Queue length in bytes / `mean_packet_bytes`; drop probability scaled by packet size.
    Bytes,
}

/// RED's parameters (`cell.aqm = { kind = "red", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RedConfig {
    /// `"packets"` or `"bytes"`. Default `"packets"`.
    pub mode: RedMode,
    /// min_th, packets (> 0). Default 5 (Floyd & Jacobson \[red\]).
    pub min_th: f64,
    /// max_th, packets (> min_th). Default 15 (Floyd & Jacobson: 3 × min_th).
    pub max_th: f64,
    /// max_p, the drop probability at max_th (0..=1). Default 0.1 (Floyd's recommendation).
    pub max_p: f64,
    /// w_q, the averaging weight (0 < w_q ≤ 1). Default 0.002 (Floyd & Jacobson).
    pub w_q: f64,
    /// Gentle RED: ramp from max_p to 1 between max_th and 2·max_th instead of dropping
    /// everything above max_th. Default true.
    pub gentle: bool,
    /// Typical packet size, bytes: the unit of byte mode and of the idle-time correction.
    /// Default 1500.
    pub mean_packet_bytes: u32,
    /// Link rate assumed to convert idle time into packets the link could have sent, Mbps
    /// (> 0). Default 10.
    pub idle_rate_mbps: f64,
    /// Packet limit instead of the byte limit. Default: none.
    pub limit_packets: Option<u32>,
}

impl Default for RedConfig {
    fn default() -> Self {
        Self {
            mode: RedMode::Packets,
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            mean_packet_bytes: 1500,
            idle_rate_mbps: 10.0,
            limit_packets: None,
        }
    }
}

impl QueueConfig for RedConfig {
    type Discipline = Red;

    /// Checks ranges.
    fn validate(&self) -> Result<(), ParamError> {
        check_range("min_th", self.min_th, 1e-9, 1e9, "a threshold in packets > 0")?;
        if !(self.max_th > self.min_th && self.max_th.is_finite()) {
            return Err(("max_th", self.max_th.to_string(), format!("a threshold in packets > min_th = {}", self.min_th)));
        }
        check_range("max_p", self.max_p, 0.0, 1.0, "a probability in [0, 1]")?;
        check_range("w_q", self.w_q, 1e-12, 1.0, "a weight in (0, 1]")?;
        if self.mean_packet_bytes == 0 {
            return Err(("mean_packet_bytes", "0".into(), "a packet size in bytes >= 1".into()));
        }
        check_range("idle_rate_mbps", self.idle_rate_mbps, 1e-9, 1e9, "a rate in Mbps > 0")
    }

    fn limit_packets(&self) -> Option<u32> {
        self.limit_packets
    }

    fn build(&self, limit: QueueLimit, site: &QueueSite) -> Red {
        Red::new(self, limit, site.rng())
    }
}

/// The RED discipline and its state.
#[derive(Clone, Debug)]
pub struct Red {
    cfg: RedConfig,
    limit: QueueLimit,
    rng: StreamRng,
    /// Average queue size, packets.
    avg: f64,
    /// Arrivals since the last drop (−1: below min_th).
    count: i64,
    /// When the queue last went idle, if it is idle.
    idle_since: Option<Nanos>,
    /// Nanoseconds per typical packet at `idle_rate_mbps`.
    packet_time: f64,
}

impl Red {
    /// RED from its configuration, the queue's hard limit and its random stream.
    pub fn new(cfg: &RedConfig, limit: QueueLimit, rng: StreamRng) -> Self {
        let packet_time = cfg.mean_packet_bytes as f64 * 8.0 / (cfg.idle_rate_mbps * 1e6) * 1e9;
        Self { cfg: cfg.clone(), limit, rng, avg: 0.0, count: -1, idle_since: None, packet_time }
    }

    /// The average queue size, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// Updates the average for an arrival at `now` that finds the queue `q`.
    fn update_avg(&mut self, now: Nanos, q: &QueueView) {
        let w = self.cfg.w_q;
        if q.packets > 0 {
            let len = match self.cfg.mode {
                RedMode::Packets => q.packets as f64,
                RedMode::Bytes => q.bytes as f64 / self.cfg.mean_packet_bytes as f64,
            };
            self.avg = (1.0 - w) * self.avg + w * len;
            self.idle_since = None;
        } else if let Some(t) = self.idle_since {
            let m = now.saturating_sub(t) as f64 / self.packet_time;
            self.avg *= (1.0 - w).powf(m);
            // The idle time up to now is accounted for; the queue stays idle until a packet
            // is actually queued (an arrival larger than the hard limit is dropped even at
            // an empty queue), so the next arrival decays from here.
            self.idle_since = Some(now);
        }
    }

    /// The early-drop probability p_b for the current average (0 below min_th, `None` when
    /// the average is past the region where RED drops at random: drop for sure).
    pub fn p_b(&self) -> Option<f64> {
        let (min, max, max_p) = (self.cfg.min_th, self.cfg.max_th, self.cfg.max_p);
        if self.avg < min {
            Some(0.0)
        } else if self.avg < max {
            Some(max_p * (self.avg - min) / (max - min))
        } else if self.cfg.gentle && self.avg < 2.0 * max {
            Some(max_p + (1.0 - max_p) * (self.avg - max) / max)
        } else {
            None
        }
    }
}

impl QueueDiscipline for Red {
    fn on_enqueue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        self.update_avg(now, q);
        if !self.limit.fits(pkt.size, q) {
            self.count = 0;
            return EnqueueVerdict::Drop;
        }
        if q.packets == 0 {
            // A packet arriving at an idle queue is never dropped early (ns-2's `REDQueue`,
            // the reference implementation of Floyd & Jacobson 1993 [red]: "A packet that arrives
            // to an idle queue will never be dropped"). Dropping it would also leave the
            // queue idle with the idle period already consumed by `update_avg`, so the
            // average would stop decaying and, once above 2·max_th, drop every later
            // arrival for good.
            self.count = -1;
            return EnqueueVerdict::Accept;
        }
        match self.p_b() {
            Some(p) if p <= 0.0 => {
                self.count = -1;
                EnqueueVerdict::Accept
            }
            Some(mut p_b) => {
                self.count += 1;
                if self.cfg.mode == RedMode::Bytes {
                    p_b = (p_b * pkt.size as f64 / self.cfg.mean_packet_bytes as f64).min(1.0);
                }
                let c = self.count as f64;
                let p_a = if c * p_b >= 1.0 { 1.0 } else { p_b / (1.0 - c * p_b) };
                if self.rng.gen::<f64>() < p_a {
                    self.count = 0;
                    EnqueueVerdict::Drop
                } else {
                    EnqueueVerdict::Accept
                }
            }
            None => {
                self.count = 0;
                EnqueueVerdict::Drop
            }
        }
    }

    #[inline]
    fn on_dequeue(&mut self, now: Nanos, _pkt: &Packet, q: &QueueView) -> DequeueVerdict {
        if q.packets <= 1 {
            self.idle_since = Some(now);
        }
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

    fn red(cfg: RedConfig) -> Red {
        Red::new(&cfg, QueueLimit::Bytes(u64::MAX), stream_rng(3, "test", 0))
    }

    fn view(packets: u32) -> QueueView {
        QueueView { bytes: packets as u64 * 1500, packets, head_enqueued_at: Some(0) }
    }

    #[test]
    fn average_is_an_ewma_of_the_arrivals_queue() {
        let mut r = red(RedConfig::default());
        let pkt = Packet { size: 1500, ..Default::default() };
        for n in 1..=100 {
            r.on_enqueue(0, &pkt, &view(4)); // below min_th: never dropped
            let want = 4.0 * (1.0 - (1.0 - 0.002f64).powi(n));
            assert!((r.avg() - want).abs() < 1e-12, "{n}: {} vs {want}", r.avg());
        }
    }

    #[test]
    fn an_arrival_at_an_idle_queue_is_never_dropped_early_and_the_average_keeps_decaying() {
        let mut r = red(RedConfig::default());
        r.avg = 299.0; // far above 2·max_th = 30: every arrival to a busy queue is dropped
        let pkt = Packet { size: 1500, ..Default::default() };
        r.on_dequeue(0, &pkt, &view(1)); // the queue goes idle at t = 0
        // 1.2 ms per packet time at 10 Mbps: 1.2 s idle = 1000 packet times, avg -> ~40,
        // still past 2·max_th, where a busy queue drops for sure.
        assert_eq!(r.on_enqueue(1200 * MS, &pkt, &QueueView::default()), EnqueueVerdict::Accept);
        let after = r.avg();
        assert!(after > 30.0 && after < 299.0, "{after}");
        // The accepted packet leaves, the queue idles again, and the average decays further
        // instead of freezing where it was.
        r.on_dequeue(1201 * MS, &pkt, &view(1));
        assert_eq!(r.on_enqueue(3201 * MS, &pkt, &QueueView::default()), EnqueueVerdict::Accept);
        assert!(r.avg() < 0.1 * after, "{} vs {after}", r.avg());
        // A busy queue is still policed: with the average past 2·max_th, an arrival to a
        // non-empty queue is dropped.
        r.avg = 100.0;
        assert_eq!(r.on_enqueue(3202 * MS, &pkt, &view(3)), EnqueueVerdict::Drop);
    }

    #[test]
    fn idle_time_decays_the_average() {
        let mut r = red(RedConfig::default());
        r.avg = 10.0;
        let pkt = Packet { size: 1500, ..Default::default() };
        r.on_dequeue(0, &pkt, &view(1)); // the last packet leaves at t = 0
        // 120 ms idle at 10 Mbps = 100 packet times of 1.2 ms.
        r.on_enqueue(120 * MS, &pkt, &QueueView::default());
        assert!((r.avg() - 10.0 * 0.998f64.powi(100)).abs() < 1e-9, "{}", r.avg());
    }

    #[test]
    fn thresholds_and_gentle_region() {
        let mut r = red(RedConfig::default());
        r.avg = 4.9;
        assert_eq!(r.p_b(), Some(0.0));
        r.avg = 10.0; // halfway between 5 and 15
        assert!((r.p_b().unwrap() - 0.05).abs() < 1e-12);
        r.avg = 22.5; // gentle: 0.1 + 0.9 · 7.5/15
        assert!((r.p_b().unwrap() - 0.55).abs() < 1e-12);
        r.avg = 30.0;
        assert_eq!(r.p_b(), None);
        let mut hard = red(RedConfig { gentle: false, ..RedConfig::default() });
        hard.avg = 15.0;
        assert_eq!(hard.p_b(), None);
        // Above the forced region every arrival is dropped.
        let mut r = red(RedConfig { w_q: 1.0, ..RedConfig::default() });
        let pkt = Packet { size: 1500, ..Default::default() };
        for _ in 0..50 {
            assert_eq!(r.on_enqueue(0, &pkt, &view(40)), EnqueueVerdict::Drop);
        }
    }

    #[test]
    fn count_spaces_drops_at_most_one_over_pb_apart() {
        // avg pinned at 10 (w_q = 1, queue 10): p_b = 0.05. With count = n on the n-th
        // arrival after a drop, P(gap = n) = p_b/(1 − p_b) for n = 1..19: uniform, mean 10,
        // never more than 1/p_b = 20.
        let mut r = red(RedConfig { w_q: 1.0, ..RedConfig::default() });
        let pkt = Packet { size: 1500, ..Default::default() };
        let mut gaps = Vec::new();
        let mut since = 0;
        for _ in 0..20_000 {
            since += 1;
            if r.on_enqueue(0, &pkt, &view(10)) == EnqueueVerdict::Drop {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.iter().all(|&g| g <= 20), "{:?}", gaps.iter().max());
        let mean = gaps.iter().sum::<u32>() as f64 / gaps.len() as f64;
        assert!((mean - 10.0).abs() < 0.5, "{mean}");
    }

    #[test]
    fn byte_mode_scales_by_packet_size() {
        let mut r = red(RedConfig { mode: RedMode::Bytes, w_q: 1.0, ..RedConfig::default() });
        // 15000 bytes queued = 10 mean packets.
        let q = QueueView { bytes: 15_000, packets: 30, head_enqueued_at: Some(0) };
        let small = Packet { size: 150, ..Default::default() };
        let mut drops = 0;
        for _ in 0..20_000 {
            if r.on_enqueue(0, &small, &q) == EnqueueVerdict::Drop {
                drops += 1;
            }
        }
        assert!((r.avg() - 10.0).abs() < 1e-12);
        // p_b = 0.005 for a tenth-size packet: uniform gaps of mean 1/(2 p_b) = 100.
        let mean_gap = 20_000.0 / drops as f64;
        assert!((mean_gap - 100.0).abs() < 10.0, "{mean_gap}");
    }
}
