//! Tail drop: an arriving packet that does not fit the hard limit is dropped.

use cellshare_core::{Nanos, Packet};
use serde::{Deserialize, Serialize};

use crate::{DequeueVerdict, EnqueueVerdict, QueueConfig, QueueDiscipline, QueueLimit, QueueSite, QueueView};

/// Tail drop's parameters (`cell.aqm = { kind = "tail_drop" }`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TailDropConfig {
    /// Packet limit instead of the byte limit. Default: none (use the byte limit).
    #[serde(default)]
    pub limit_packets: Option<u32>,
}

impl QueueConfig for TailDropConfig {
    type Discipline = TailDrop;

    fn limit_packets(&self) -> Option<u32> {
        self.limit_packets
    }

    fn build(&self, limit: QueueLimit, _site: &QueueSite) -> TailDrop {
        TailDrop { limit }
    }
}

/// Drop-tail: an arriving packet that does not fit is dropped.
#[derive(Clone, Debug)]
pub struct TailDrop {
    /// The queue limit.
    pub limit: QueueLimit,
}

impl QueueDiscipline for TailDrop {
    #[inline]
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        self.limit.admit(pkt.size, q)
    }

    #[inline]
    fn on_dequeue(&mut self, _now: Nanos, _pkt: &Packet, _q: &QueueView) -> DequeueVerdict {
        DequeueVerdict::Transmit
    }

    fn fits(&self, size: u32, q: &QueueView) -> bool {
        self.limit.fits(size, q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(size: u32) -> Packet {
        Packet { size, ..Default::default() }
    }

    #[test]
    fn tail_drop_byte_limit() {
        let mut d = TailDrop { limit: QueueLimit::Bytes(3000) };
        let q = QueueView { bytes: 1500, packets: 1, head_enqueued_at: Some(0) };
        assert_eq!(d.on_enqueue(0, &pkt(1500), &q), EnqueueVerdict::Accept);
        let q = QueueView { bytes: 1501, packets: 2, head_enqueued_at: Some(0) };
        assert_eq!(d.on_enqueue(0, &pkt(1500), &q), EnqueueVerdict::Drop);
    }

    #[test]
    fn tail_drop_packet_limit() {
        let mut d = TailDrop { limit: QueueLimit::Packets(2) };
        let q = QueueView { bytes: 100, packets: 1, head_enqueued_at: Some(0) };
        assert_eq!(d.on_enqueue(0, &pkt(9000), &q), EnqueueVerdict::Accept);
        let q = QueueView { bytes: 100, packets: 2, head_enqueued_at: Some(0) };
        assert_eq!(d.on_enqueue(0, &pkt(1), &q), EnqueueVerdict::Drop);
    }
}
