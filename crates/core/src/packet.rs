//! Packets and the packet arena.
//!
//! A [`Packet`] is a plain, copyable record: what a real IP packet's headers would tell the
//! network (size, flow, class, the TCP fields that matter) plus simulator bookkeeping
//! (creation and enqueue stamps). Packets live in a [`PacketArena`] for their whole life;
//! queues and events hold [`PacketId`] indices, so the hot path never allocates.

/// Index of a packet in a [`PacketArena`].
pub type PacketId = u32;

/// Traffic class a packet belongs to, as the papers use it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrafficClass {
    /// Interactive or user-facing traffic (web, video, calls).
    #[default]
    Foreground,
    /// Bulk transfers that should use only spare capacity (updates, sync).
    Background,
}

/// What a packet carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PacketKind {
    /// A data segment (TCP) or datagram (UDP).
    #[default]
    Data,
    /// A pure acknowledgement travelling back to the sender.
    Ack,
}

/// One packet in flight.
///
/// Sequence fields are in bytes. `ts_val`/`ts_ecr` are the TCP timestamp option (RFC 7323):
/// the sender's or receiver's 1 ms clock and the echoed peer value.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Packet {
    /// Flow index in the scenario.
    pub flow: u32,
    /// UE (receiver) index.
    pub ue: u32,
    /// Size on the wire in bytes (headers included).
    pub size: u32,
    /// Payload bytes (0 for a pure ACK).
    pub payload: u32,
    /// Data or ACK.
    pub kind: PacketKind,
    /// Foreground or background.
    pub class: TrafficClass,
    /// DiffServ-like class index used by multi-class queues (0 = highest priority).
    pub dscp: u8,
    /// Whether this is a retransmission.
    pub retransmit: bool,
    /// A TCP SYN (data direction) or SYN-ACK (ACK direction) of the handshake.
    pub syn: bool,
    /// First payload byte's sequence number (data) or cumulative ACK number (ACK).
    pub seq: u64,
    /// Advertised receive window in bytes (ACKs).
    pub rwnd: u32,
    /// TCP timestamp value: sender clock for data, receiver clock for ACKs, in ms ticks.
    pub ts_val: u32,
    /// TCP timestamp echo reply.
    pub ts_ecr: u32,
    /// Sender's smoothed RTT carried end-to-end (Sneaker's signalling), nanoseconds; 0 = none.
    pub rtt_hint: u64,
    /// When the sender emitted the packet.
    pub sent_at: u64,
    /// When the packet entered its current queue (base-station RLC queue).
    pub enqueued_at: u64,
    /// When its service at that queue began: the queue discipline let it through and its
    /// first byte went into a transport block (a shared FIFO: its serialization began; a UE's
    /// device queue: its first byte was sent). `served_at − enqueued_at` is the sojourn a
    /// dequeue-time discipline such as BoDe bounds. 0 until then.
    pub served_at: u64,
    /// Application-level identifier (e.g. request number of an interactive app).
    pub app_tag: u64,
    /// TCP SACK blocks `[start, end)` carried by an ACK (RFC 2018); the first `sack_len`
    /// entries are meaningful.
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    /// Number of valid SACK blocks (0 = no SACK option).
    pub sack_len: u8,
}

/// SACK blocks that fit in a TCP header next to the timestamp option (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// A slab of packets with a free list. Allocation after warm-up reuses freed slots.
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
    live: usize,
    peak: usize,
}

impl PacketArena {
    /// An empty arena with room for `capacity` packets before it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        Self { slots: Vec::with_capacity(capacity), free: Vec::with_capacity(capacity), live: 0, peak: 0 }
    }

    /// Stores `p` and returns its id.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.live += 1;
        if self.live > self.peak {
            self.peak = self.live;
        }
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as PacketId
        }
    }

    /// Releases packet `id`; its slot will be reused.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        debug_assert!(self.live > 0);
        self.live -= 1;
        self.free.push(id);
    }

    /// The packet with id `id`.
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    /// Mutable access to packet `id`.
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Number of packets currently stored.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Largest number of packets stored at once.
    pub fn peak(&self) -> usize {
        self.peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arena_reuses_slots() {
        let mut a = PacketArena::with_capacity(2);
        let x = a.alloc(Packet { size: 10, ..Default::default() });
        let y = a.alloc(Packet { size: 20, ..Default::default() });
        assert_eq!(a.get(y).size, 20);
        a.free(x);
        let z = a.alloc(Packet { size: 30, ..Default::default() });
        assert_eq!(z, x);
        assert_eq!(a.get(z).size, 30);
        assert_eq!(a.live(), 2);
        assert_eq!(a.peak(), 2);
    }
}
