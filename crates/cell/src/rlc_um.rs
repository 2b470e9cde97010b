//! The UE side of RLC unacknowledged mode (TS 36.322 § 5.1.2.2): packets (RLC SDUs) reach
//! the UE in the order they were sent, although HARQ retransmissions decode transport blocks
//! out of order, and a packet with a byte in a lost block is lost.
//!
//! Each transport block is one RLC PDU, numbered in the order the eNB built them. The
//! receiver delivers the packets a block completes once every earlier block has been
//! delivered or given up. A gap (a block not yet decoded, or never to be) is noticed when a
//! later block arrives: t-Reordering starts then, and when it expires every block before the
//! one that started it (VR(UX)) that is still missing is given up (§ 5.1.2.2.4); if later
//! blocks are still held behind a gap, the timer starts again. A block being retransmitted
//! is decoded within the HARQ limit (3 retransmissions × 8 TTIs) long before ns-3's 100 ms
//! t-Reordering ends, so in practice only blocks HARQ gave up are skipped, and the packets
//! behind them wait for the timer. (We deviate in one corner: at expiry a block still in
//! HARQ is waited for rather than given up; it can only happen if its retransmissions are
//! held back longer than t-Reordering for lack of PRBs.)
//!
//! A packet's fate is known as soon as one of its blocks is given up: it is dropped then
//! ([`UmReceiver::lost`]), not when the receiver skips the block.

use std::collections::VecDeque;

use cellshare_core::PacketId;

/// Where one transport block stands at the UE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    /// Sent, not yet decoded (in HARQ, or on its way).
    Pending,
    /// Decoded at the end of TTI `at`.
    Received { at: u64 },
    /// Given up by HARQ: never decoded.
    Lost,
}

/// A packet every byte of which has been sent, held until it can be delivered in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Held {
    id: PacketId,
    /// The block carrying its first byte.
    first: u64,
    /// The block carrying its last byte.
    last: u64,
}

/// A UE's RLC UM receiving entity for the cell's downlink.
#[derive(Clone, Debug)]
pub struct UmReceiver {
    /// Sequence number of `blocks[0]` (VR(UR): the first block not delivered or skipped).
    base: u64,
    blocks: VecDeque<Block>,
    held: VecDeque<Held>,
    /// The highest block given up so far.
    max_lost: Option<u64>,
    /// The running t-Reordering: (TTI it expires, VR(UX)).
    timer: Option<(u64, u64)>,
    /// t-Reordering, TTIs.
    t_reordering: u64,
}

impl UmReceiver {
    /// A receiver with a t-Reordering of `t_reordering` TTIs.
    pub fn new(t_reordering: u64) -> Self {
        Self {
            base: 0,
            blocks: VecDeque::with_capacity(32),
            held: VecDeque::with_capacity(64),
            max_lost: None,
            timer: None,
            t_reordering,
        }
    }

    /// Block `seq` was sent for the first time (sequence numbers follow each other from 0).
    pub fn sent(&mut self, seq: u64) {
        debug_assert_eq!(seq, self.base + self.blocks.len() as u64, "blocks are numbered in order");
        self.blocks.push_back(Block::Pending);
    }

    fn slot(&mut self, seq: u64) -> &mut Block {
        &mut self.blocks[(seq - self.base) as usize]
    }

    /// Packet `id` is complete: its first byte went in block `first`, its last in `last`.
    /// Returns `false` (the packet is lost; the caller drops it) if a block it used was
    /// already given up.
    pub fn packet_complete(&mut self, id: PacketId, first: u64, last: u64) -> bool {
        if self.max_lost.is_some_and(|l| l >= first) {
            return false;
        }
        self.held.push_back(Held { id, first, last });
        true
    }

    /// Block `seq` was decoded at the end of TTI `at`.
    pub fn received(&mut self, seq: u64, at: u64) {
        *self.slot(seq) = Block::Received { at };
    }

    /// HARQ gave block `seq` up: the packets it carries a byte of are appended to `lost`.
    pub fn lost(&mut self, seq: u64, lost: &mut Vec<PacketId>) {
        *self.slot(seq) = Block::Lost;
        self.max_lost = Some(self.max_lost.map_or(seq, |l| l.max(seq)));
        // Held packets are ordered by both `first` and `last`: those spanning `seq` are
        // consecutive.
        let i = self.held.iter().position(|h| h.last >= seq).unwrap_or(self.held.len());
        while i < self.held.len() && self.held[i].first <= seq {
            lost.push(self.held.remove(i).expect("index in range").id);
        }
    }

    /// Delivers (to `deliver`, in order) every packet that can reach the UE's upper layers by
    /// the end of TTI `tti`, and runs t-Reordering. Returns the TTI at which a timer started
    /// now expires, for the caller to call again then.
    pub fn release(&mut self, tti: u64, mut deliver: impl FnMut(PacketId)) -> Option<u64> {
        let mut started = None;
        let mut again = false;
        loop {
            while let Some(&front) = self.blocks.front() {
                let expired = matches!(self.timer, Some((e, ux)) if e <= tti && self.base < ux);
                match front {
                    Block::Received { at } if at <= tti => {
                        while self.held.front().is_some_and(|h| h.last == self.base) {
                            deliver(self.held.pop_front().expect("front exists").id);
                        }
                    }
                    Block::Lost if expired => {}
                    _ => break,
                }
                self.blocks.pop_front();
                self.base += 1;
            }
            // § 5.1.2.2.3: stop the timer once VR(UR) has passed VR(UX); an expired timer
            // has done its work. § 5.1.2.2.4: start one while a later block is held.
            if let Some((e, ux)) = self.timer {
                if self.base >= ux || e <= tti {
                    self.timer = None;
                }
            }
            if self.timer.is_some() {
                break;
            }
            let Some(highest) = self.highest_received(tti) else { break };
            let expiry = tti + self.t_reordering;
            self.timer = Some((expiry, highest + 1));
            started = Some(expiry);
            if expiry > tti || again {
                break;
            }
            // A t-Reordering of 0 expires at once: skip what it covers now (once; a block
            // still in HARQ stops it, see the module documentation).
            again = true;
        }
        started
    }

    /// Re-establishment at a handover (TS 36.322 § 5.4): every held packet whose blocks were
    /// all decoded by the end of TTI `tti` goes to `deliver`, in order; the others (a block
    /// still in HARQ, on air, or given up) to `lost`. The receiver is then empty, as new.
    pub fn reestablish(&mut self, tti: u64, mut deliver: impl FnMut(PacketId), mut lost: impl FnMut(PacketId)) {
        for h in std::mem::take(&mut self.held) {
            let ok = (h.first.max(self.base)..=h.last).all(|seq| {
                matches!(self.blocks.get((seq - self.base) as usize), Some(Block::Received { at }) if *at <= tti)
            });
            if ok {
                deliver(h.id);
            } else {
                lost(h.id);
            }
        }
        *self = Self::new(self.t_reordering);
    }

    /// The highest block decoded by TTI `tti` behind the first one not yet delivered.
    fn highest_received(&self, tti: u64) -> Option<u64> {
        let i = self.blocks.iter().rposition(|b| matches!(b, Block::Received { at } if *at <= tti))?;
        (i > 0).then_some(self.base + i as u64)
    }

    /// Whether nothing is held or awaited.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty() && self.blocks.iter().all(|b| *b == Block::Lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Releases at `tti` and returns the packets delivered.
    fn at(rx: &mut UmReceiver, tti: u64) -> (Vec<PacketId>, Option<u64>) {
        let mut out = Vec::new();
        let started = rx.release(tti, |id| out.push(id));
        (out, started)
    }

    #[test]
    fn in_order_blocks_deliver_at_once() {
        let mut rx = UmReceiver::new(100);
        for seq in 0..3 {
            rx.sent(seq);
            assert!(rx.packet_complete(seq as u32, seq, seq));
            rx.received(seq, 10 + seq);
        }
        assert_eq!(at(&mut rx, 9).0, Vec::<u32>::new());
        assert_eq!(at(&mut rx, 11).0, vec![0, 1]);
        assert_eq!(at(&mut rx, 12).0, vec![2]);
        assert!(rx.is_empty());
    }

    #[test]
    fn a_retransmitted_block_holds_later_packets_until_it_is_decoded() {
        let mut rx = UmReceiver::new(100);
        for seq in 0..4 {
            rx.sent(seq);
        }
        // Packet 7 spans blocks 0-1, packet 8 is in block 2, packet 9 in block 3.
        assert!(rx.packet_complete(7, 0, 1));
        assert!(rx.packet_complete(8, 2, 2));
        assert!(rx.packet_complete(9, 3, 3));
        rx.received(0, 2);
        rx.received(2, 4);
        rx.received(3, 5);
        // Block 1 fails its first transmission and is decoded 8 TTIs later.
        let (got, started) = at(&mut rx, 5);
        assert!(got.is_empty());
        assert_eq!(started, Some(105), "the gap starts t-Reordering");
        rx.received(1, 11);
        assert_eq!(at(&mut rx, 11).0, vec![7, 8, 9]);
        assert!(rx.is_empty());
        assert_eq!(at(&mut rx, 105).0, Vec::<u32>::new());
    }

    #[test]
    fn a_lost_block_loses_its_packets_and_the_rest_wait_for_t_reordering() {
        let mut rx = UmReceiver::new(100);
        for seq in 0..3 {
            rx.sent(seq);
        }
        assert!(rx.packet_complete(1, 0, 0));
        assert!(rx.packet_complete(2, 0, 1)); // spans the lost block
        assert!(rx.packet_complete(3, 2, 2));
        rx.received(0, 2);
        rx.received(2, 4);
        let (got, started) = at(&mut rx, 4);
        assert_eq!(got, vec![1]);
        assert_eq!(started, Some(104));
        let mut lost = Vec::new();
        rx.lost(1, &mut lost);
        assert_eq!(lost, vec![2]);
        // A packet completed later whose first byte was in the lost block is lost too.
        rx.sent(3);
        assert!(!rx.packet_complete(4, 1, 3));
        assert!(rx.packet_complete(5, 3, 3));
        rx.received(3, 30);
        assert_eq!(at(&mut rx, 30).0, Vec::<u32>::new());
        assert_eq!(at(&mut rx, 103).0, Vec::<u32>::new());
        assert_eq!(at(&mut rx, 104).0, vec![3, 5]);
        assert!(rx.is_empty());
    }

    #[test]
    fn zero_t_reordering_skips_a_lost_block_at_once() {
        let mut rx = UmReceiver::new(0);
        rx.sent(0);
        rx.sent(1);
        assert!(rx.packet_complete(9, 1, 1));
        rx.lost(0, &mut Vec::new());
        rx.received(1, 3);
        assert_eq!(at(&mut rx, 3).0, vec![9]);
    }
}
