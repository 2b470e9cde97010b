//! BoDe, the Bounded-Delay AQM (\[bode\] Section V-C).
//!
//! 1. At ingress the packet's arrival time is stamped (the queue does this:
//!    `Packet::enqueued_at`).
//! 2. At egress the packet is served if its sojourn time (now − arrival) is smaller than
//!    `BoundedDelay`; otherwise it is dropped, and the next head is examined the same way.
//! 3. "If the queue length is smaller than 3 packets, do not drop the packet even if its
//!    sojourn time is larger than BoundedDelay." The queue length is counted as in the
//!    paper's Mahimahi queue, where the head has already been taken out when it is examined:
//!    the head is dropped only if at least 3 packets remain behind it. So the last 3 packets
//!    before any gap are always delivered, which is the rule's stated purpose (footnote 2:
//!    the sender must get enough duplicate ACKs — three — to trigger fast retransmit);
//!    counting the head too would leave only two and turn every burst of drops into a
//!    retransmission timeout.
//!
//! The paper's Table I sets `BoundedDelay = D` (20 ms for bulk TCP, 100 ms for interactive
//! apps). BoDe bounds the sojourn of *served* packets at the start of their transmission:
//! the queue stamps that moment (`Packet::served_at`) and each flow reports the wait
//! (`queue_wait_ms`); cellshare's queue delay (arrival to the end of the TTI carrying the last
//! byte) adds the transmission, at least one TTI. Arrivals that exceed the hard limit are
//! dropped.

use cellshare_core::{time::from_millis_f64, Nanos, Packet};
use serde::{Deserialize, Serialize};

use crate::{check_range, DequeueVerdict, EnqueueVerdict, ParamError, QueueConfig, QueueDiscipline, QueueLimit, QueueSite, QueueView};

/// Rule 3: the head is dropped only if at least this many packets remain behind it.
pub const BODE_MIN_PACKETS: u32 = 3;

/// BoDe's parameters (`cell.aqm = { kind = "bode", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BodeConfig {
    /// BoundedDelay: the largest sojourn a served packet may have, ms (> 0). Default 20
    /// (the paper's D for bulk TCP traffic, Table I).
    pub bounded_delay_ms: f64,
    /// Packet limit instead of the byte limit (the byte limit is `cell.rlc_queue_bytes`, or
    /// the class's `queue_bytes` in a DiffServ queue). Default: none.
    pub limit_packets: Option<u32>,
}

impl Default for BodeConfig {
    fn default() -> Self {
        Self { bounded_delay_ms: 20.0, limit_packets: None }
    }
}

impl QueueConfig for BodeConfig {
    type Discipline = Bode;

    /// Checks ranges.
    fn validate(&self) -> Result<(), ParamError> {
        check_range("bounded_delay_ms", self.bounded_delay_ms, 1e-3, 1e6, "a delay in ms in (0, 1e6]")
    }

    fn limit_packets(&self) -> Option<u32> {
        self.limit_packets
    }

    fn build(&self, limit: QueueLimit, _site: &QueueSite) -> Bode {
        Bode::new(self, limit)
    }
}

/// The BoDe discipline.
#[derive(Clone, Debug)]
pub struct Bode {
    /// BoundedDelay.
    pub bound: Nanos,
    /// Hard limit.
    pub limit: QueueLimit,
}

impl Bode {
    /// BoDe from its configuration and the queue's hard limit.
    pub fn new(cfg: &BodeConfig, limit: QueueLimit) -> Self {
        Self { bound: from_millis_f64(cfg.bounded_delay_ms), limit }
    }
}

impl QueueDiscipline for Bode {
    #[inline]
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        self.limit.admit(pkt.size, q)
    }

    #[inline]
    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict {
        // `q.packets` counts the head: the packets behind it are one fewer.
        if q.packets.saturating_sub(1) < BODE_MIN_PACKETS || now.saturating_sub(pkt.enqueued_at) < self.bound {
            DequeueVerdict::Transmit
        } else {
            DequeueVerdict::Drop
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
    use std::collections::VecDeque;

    /// Runs a FIFO of arrival times through BoDe, serving one packet at each of `services`
    /// (dropping as BoDe says first); returns (served sojourns, dropped count).
    fn run(arrivals: &[Nanos], services: &[Nanos], bound_ms: f64) -> (Vec<Nanos>, usize) {
        let mut d = Bode::new(&BodeConfig { bounded_delay_ms: bound_ms, limit_packets: None }, QueueLimit::Bytes(u64::MAX));
        let mut q: VecDeque<Nanos> = VecDeque::new();
        let mut served = Vec::new();
        let mut dropped = 0;
        let mut events: Vec<(Nanos, bool)> = arrivals.iter().map(|&t| (t, true)).chain(services.iter().map(|&t| (t, false))).collect();
        events.sort();
        for (t, is_arrival) in events {
            if is_arrival {
                let view = QueueView { bytes: q.len() as u64 * 1500, packets: q.len() as u32, head_enqueued_at: q.front().copied() };
                assert_eq!(d.on_enqueue(t, &Packet { size: 1500, ..Default::default() }, &view), EnqueueVerdict::Accept);
                q.push_back(t);
                continue;
            }
            while let Some(&head) = q.front() {
                let view = QueueView { bytes: q.len() as u64 * 1500, packets: q.len() as u32, head_enqueued_at: Some(head) };
                let p = Packet { size: 1500, enqueued_at: head, ..Default::default() };
                q.pop_front();
                match d.on_dequeue(t, &p, &view) {
                    DequeueVerdict::Transmit => {
                        served.push(t - head);
                        break;
                    }
                    DequeueVerdict::Drop => dropped += 1,
                }
            }
        }
        (served, dropped)
    }

    #[test]
    fn served_packets_never_exceed_the_bound_while_three_or_more_are_queued() {
        // 10 packets arrive at once; the link serves one every 8 ms: without BoDe the last
        // would wait 80 ms. With D = 20 ms, packets older than 20 ms are dropped at egress.
        let arrivals: Vec<Nanos> = vec![0; 10];
        let services: Vec<Nanos> = (1..=10).map(|k| k * 8 * MS).collect();
        let (served, dropped) = run(&arrivals, &services, 20.0);
        // t=8: 8 ms, serve; t=16: 16 ms, serve; t=24: 24 ms ≥ 20 with 8 queued → drop heads
        // while ≥ 3 packets remain behind them (8, 7, 6, 5, 4 queued: five drops); the head
        // of the last three is served despite its 24 ms, and so are the two after it at
        // t=32 and t=40: three packets reach the receiver after the hole.
        assert_eq!(served, vec![8 * MS, 16 * MS, 24 * MS, 32 * MS, 40 * MS]);
        assert_eq!(dropped, 5);
        assert_eq!(served.len() + dropped, 10);
    }

    #[test]
    fn three_packet_rule_keeps_the_tail() {
        let d = Bode::new(&BodeConfig::default(), QueueLimit::Bytes(u64::MAX));
        let mut d2 = d.clone();
        let old = Packet { enqueued_at: 0, ..Default::default() };
        for n in 1..=3 {
            let q = QueueView { bytes: 1500 * n as u64, packets: n, head_enqueued_at: Some(0) };
            assert_eq!(d2.on_dequeue(SEC_LATER, &old, &q), DequeueVerdict::Transmit, "{n} queued");
        }
        let q = QueueView { bytes: 6000, packets: 4, head_enqueued_at: Some(0) };
        assert_eq!(d2.on_dequeue(SEC_LATER, &old, &q), DequeueVerdict::Drop);
        // The bound itself: sojourn < D serves, sojourn ≥ D drops.
        assert_eq!(d2.on_dequeue(20 * MS - 1, &old, &q), DequeueVerdict::Transmit);
        assert_eq!(d2.on_dequeue(20 * MS, &old, &q), DequeueVerdict::Drop);
    }

    const SEC_LATER: Nanos = 1_000 * MS;

    #[test]
    fn hard_limit_drops_arrivals() {
        let mut d = Bode::new(&BodeConfig { bounded_delay_ms: 20.0, limit_packets: Some(2) }, QueueLimit::Packets(2));
        let q = QueueView { bytes: 3000, packets: 2, head_enqueued_at: Some(0) };
        assert_eq!(d.on_enqueue(0, &Packet::default(), &q), EnqueueVerdict::Drop);
    }
}
