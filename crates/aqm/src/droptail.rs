//! Tail drop and head drop with a byte or packet limit.

use cellshare_core::{Nanos, Packet};

use crate::{DequeueVerdict, EnqueueVerdict, QueueDiscipline, QueueView};

/// A hard limit on a queue's occupancy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// At most this many bytes queued.
    Bytes(u64),
    /// At most this many packets queued.
    Packets(u32),
}

impl QueueLimit {
    /// Whether a packet of `size` bytes fits into `q`.
    #[inline]
    pub fn fits(&self, size: u32, q: &QueueView) -> bool {
        match *self {
            QueueLimit::Bytes(b) => q.bytes + size as u64 <= b,
            QueueLimit::Packets(p) => q.packets < p,
        }
    }

    /// Tail drop at this limit: accept a packet of `size` bytes if it fits into `q`, else
    /// drop it (the enqueue rule of every discipline that decides at dequeue).
    #[inline]
    pub fn admit(&self, size: u32, q: &QueueView) -> EnqueueVerdict {
        if self.fits(size, q) {
            EnqueueVerdict::Accept
        } else {
            EnqueueVerdict::Drop
        }
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

/// Head drop: an arriving packet that does not fit pushes the oldest packets out.
/// A packet larger than the whole limit is dropped itself.
#[derive(Clone, Debug)]
pub struct HeadDrop {
    /// The queue limit.
    pub limit: QueueLimit,
}

impl QueueDiscipline for HeadDrop {
    #[inline]
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        if self.limit.fits(pkt.size, q) {
            EnqueueVerdict::Accept
        } else if self.limit.fits(pkt.size, &QueueView::default()) {
            EnqueueVerdict::AcceptDroppingHead
        } else {
            EnqueueVerdict::Drop
        }
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

    #[test]
    fn head_drop_makes_room_unless_oversized() {
        let mut d = HeadDrop { limit: QueueLimit::Bytes(3000) };
        let full = QueueView { bytes: 3000, packets: 2, head_enqueued_at: Some(0) };
        assert_eq!(d.on_enqueue(0, &pkt(1500), &full), EnqueueVerdict::AcceptDroppingHead);
        assert_eq!(d.on_enqueue(0, &pkt(4000), &full), EnqueueVerdict::Drop);
    }
}
