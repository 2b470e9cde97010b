//! The RLC transmit queue the base station keeps for each UE.
//!
//! FIFO of packet ids with byte and packet counts, a per-packet arrival stamp, and the
//! queue-discipline hook at enqueue and at dequeue. Transmission is segmented: a grant of
//! `b` bytes sends the next `b` bytes of the queue, finishing packets (delivered) and
//! possibly leaving the head partly sent.

use std::collections::VecDeque;

use cellshare_aqm::{Aqm, DequeueVerdict, EnqueueVerdict, QueueDiscipline, QueueView};
use cellshare_core::{Nanos, PacketArena, PacketId, TrafficClass};

use crate::Delivery;

/// Why a packet was dropped at the base station.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// Rejected on arrival by the queue discipline (for tail drop: the queue was full).
    Enqueue,
    /// Dropped at dequeue by the queue discipline (e.g. sojourn-based AQMs), or pushed out
    /// of the head by head drop.
    Dequeue,
}

/// A per-UE RLC queue.
#[derive(Debug)]
pub struct RlcQueue {
    ids: VecDeque<PacketId>,
    bytes: u64,
    fg_bytes: u64,
    /// Bytes of the head packet already transmitted.
    head_sent: u32,
    aqm: Aqm,
}

impl RlcQueue {
    /// An empty queue governed by `aqm`.
    pub fn new(aqm: Aqm) -> Self {
        Self { ids: VecDeque::with_capacity(64), bytes: 0, fg_bytes: 0, head_sent: 0, aqm }
    }

    /// Bytes queued (including the unsent part of a partly sent head).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes still to transmit.
    #[inline]
    pub fn pending_bytes(&self) -> u64 {
        self.bytes - self.head_sent as u64
    }

    /// Bytes of foreground packets queued.
    pub fn foreground_bytes(&self) -> u64 {
        self.fg_bytes
    }

    /// Packets queued.
    pub fn packets(&self) -> u32 {
        self.ids.len() as u32
    }

    /// Whether the queue is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The queue discipline.
    pub fn aqm(&self) -> &Aqm {
        &self.aqm
    }

    fn view(&self, arena: &PacketArena) -> QueueView {
        QueueView {
            bytes: self.bytes,
            packets: self.ids.len() as u32,
            head_enqueued_at: self.ids.front().map(|&id| arena.get(id).enqueued_at),
        }
    }

    fn push(&mut self, now: Nanos, id: PacketId, arena: &mut PacketArena) {
        let p = arena.get_mut(id);
        p.enqueued_at = now;
        self.bytes += p.size as u64;
        if p.class == TrafficClass::Foreground {
            self.fg_bytes += p.size as u64;
        }
        self.ids.push_back(id);
    }

    fn pop_front(&mut self, arena: &PacketArena) -> Option<PacketId> {
        let id = self.ids.pop_front()?;
        let p = arena.get(id);
        self.bytes -= p.size as u64;
        if p.class == TrafficClass::Foreground {
            self.fg_bytes -= p.size as u64;
        }
        self.head_sent = 0;
        Some(id)
    }

    /// Offers a packet; returns whether it was queued. Dropped ids go to `dropped`.
    pub fn enqueue(&mut self, now: Nanos, id: PacketId, arena: &mut PacketArena, dropped: &mut Vec<(PacketId, DropCause)>) -> bool {
        let view = self.view(arena);
        let size = arena.get(id).size;
        match self.aqm.on_enqueue(now, arena.get(id), &view) {
            EnqueueVerdict::Accept => {
                self.push(now, id, arena);
                true
            }
            EnqueueVerdict::Drop => {
                dropped.push((id, DropCause::Enqueue));
                false
            }
            EnqueueVerdict::AcceptDroppingHead => {
                // A partly transmitted head is not pushed out: RLC has already sent some of it.
                while !self.aqm.fits(size, &self.view(arena)) {
                    if self.head_sent > 0 && self.ids.len() == 1 {
                        break;
                    }
                    let victim = if self.head_sent > 0 { self.remove_second(arena) } else { self.pop_front(arena) };
                    match victim {
                        Some(v) => dropped.push((v, DropCause::Dequeue)),
                        None => break,
                    }
                }
                if self.aqm.fits(size, &self.view(arena)) {
                    self.push(now, id, arena);
                    true
                } else {
                    dropped.push((id, DropCause::Enqueue));
                    false
                }
            }
        }
    }

    fn remove_second(&mut self, arena: &PacketArena) -> Option<PacketId> {
        let id = self.ids.remove(1)?;
        let p = arena.get(id);
        self.bytes -= p.size as u64;
        if p.class == TrafficClass::Foreground {
            self.fg_bytes -= p.size as u64;
        }
        Some(id)
    }

    /// Transmits up to `grant` bytes at `now`. Finished packets go to `delivered`, packets
    /// the discipline drops at dequeue to `dropped`. Returns the bytes actually sent.
    pub fn transmit(
        &mut self,
        now: Nanos,
        grant: u64,
        ue: u32,
        arena: &mut PacketArena,
        delivered: &mut Vec<Delivery>,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> u64 {
        let mut left = grant;
        let mut sent = 0;
        while left > 0 {
            let Some(&head) = self.ids.front() else { break };
            if self.head_sent == 0 {
                // A new head is about to start transmission: the dequeue hook decides.
                let view = self.view(arena);
                if self.aqm.on_dequeue(now, arena.get(head), &view) == DequeueVerdict::Drop {
                    self.pop_front(arena);
                    dropped.push((head, DropCause::Dequeue));
                    continue;
                }
            }
            let remaining = (arena.get(head).size - self.head_sent) as u64;
            if remaining <= left {
                left -= remaining;
                sent += remaining;
                self.pop_front(arena);
                delivered.push(Delivery { id: head, ue });
            } else {
                self.head_sent += left as u32;
                sent += left;
                left = 0;
            }
        }
        sent
    }
}
