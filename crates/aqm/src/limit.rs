//! The hard byte or packet limit every queue discipline enforces.

use crate::{EnqueueVerdict, QueueView};

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

/// The byte or packet limit configured for a queue: packets when given, else bytes.
pub fn limit_of(limit_packets: Option<u32>, bytes: u64) -> QueueLimit {
    match limit_packets {
        Some(n) => QueueLimit::Packets(n),
        None => QueueLimit::Bytes(bytes),
    }
}
