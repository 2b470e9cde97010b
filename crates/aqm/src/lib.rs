//! # cellshare-aqm
//!
//! Queue disciplines for the base station's per-UE RLC queues (and any other packet queue in
//! cellshare). A discipline is consulted at the two moments a queue has: when a packet
//! arrives ([`QueueDiscipline::on_enqueue`]) and when the head packet is about to be
//! transmitted ([`QueueDiscipline::on_dequeue`]) — the shape of Mahimahi's packet queues,
//! nothing else. The queue itself (FIFO order, byte and packet counts, arrival stamps)
//! belongs to the caller; disciplines see it through a [`QueueView`].
//!
//! One file per discipline; [`Aqm`] dispatches with a `match` (no trait objects on the
//! per-packet path).

#![warn(missing_docs)]

use cellshare_core::{Nanos, Packet};

pub mod droptail;

pub use droptail::{HeadDrop, QueueLimit, TailDrop};

/// What a queue looks like to a discipline at the moment of a decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueView {
    /// Bytes queued (before the decision is applied).
    pub bytes: u64,
    /// Packets queued (before the decision is applied).
    pub packets: u32,
    /// Arrival time of the head packet, if any.
    pub head_enqueued_at: Option<Nanos>,
}

/// Decision on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnqueueVerdict {
    /// Append it to the queue.
    Accept,
    /// Drop it.
    Drop,
    /// Drop packets from the head until it fits, then append it (head drop).
    AcceptDroppingHead,
}

/// Decision on the head packet about to be transmitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DequeueVerdict {
    /// Transmit it.
    Transmit,
    /// Drop it (and ask again for the next head).
    Drop,
}

/// The hook set every queue discipline implements.
pub trait QueueDiscipline {
    /// A packet arrives at `now`; the queue is `q` before it is added.
    fn on_enqueue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict;
    /// The head packet `pkt` (enqueued at `pkt.enqueued_at`) is about to be transmitted at
    /// `now`; the queue is `q`, head included.
    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict;
    /// Whether a packet of `size` bytes still fits the hard limit when the queue is `q`
    /// (used by head drop to know how many head packets to discard).
    fn fits(&self, size: u32, q: &QueueView) -> bool;
}

/// A queue discipline chosen by the scenario.
#[derive(Clone, Debug)]
pub enum Aqm {
    /// Drop arrivals that do not fit.
    TailDrop(TailDrop),
    /// Drop from the head to make room for arrivals.
    HeadDrop(HeadDrop),
}

impl QueueDiscipline for Aqm {
    #[inline]
    fn on_enqueue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        match self {
            Aqm::TailDrop(d) => d.on_enqueue(now, pkt, q),
            Aqm::HeadDrop(d) => d.on_enqueue(now, pkt, q),
        }
    }

    #[inline]
    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict {
        match self {
            Aqm::TailDrop(d) => d.on_dequeue(now, pkt, q),
            Aqm::HeadDrop(d) => d.on_dequeue(now, pkt, q),
        }
    }

    #[inline]
    fn fits(&self, size: u32, q: &QueueView) -> bool {
        match self {
            Aqm::TailDrop(d) => d.fits(size, q),
            Aqm::HeadDrop(d) => d.fits(size, q),
        }
    }
}
