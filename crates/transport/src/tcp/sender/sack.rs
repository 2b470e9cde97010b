//! The SACK scoreboard (RFC 6675 \[rfc6675\] §4 over the SACK blocks of RFC 2018 \[sack\],
//! a D-SACK block skipped as RFC 2883 \[rfc2883\] §4 asks): which outstanding segments the
//! receiver holds, which are lost, which were retransmitted and are presumed in flight,
//! `pipe`, and NextSeg's next candidate.
//!
//! Every `SentSegment` of the sender's ring carries the scoreboard flags: `sacked`, `lost`
//! (IsLost held, or an RTO) and `retx_out` (a retransmission sent since and presumed in
//! flight). The [`Scoreboard`] keeps running byte totals of SACKed, lost and
//! retransmitted-in-flight unSACKed bytes, so
//!
//! `pipe = (snd_max − snd_una) − sacked − lost + retx_out`
//!
//! (RFC 6675 `SetPipe` with a per-segment `HighRxt`, as Linux's `tcp_packets_in_flight`)
//! costs O(1). Per ACK the work is bounded by what is new:
//!
//! - SACK blocks are compared with the previous ACK's (Linux's `recv_sack_cache`); only
//!   byte ranges not covered by those are walked, so an ACK that extends a block by one
//!   segment walks one segment (plus an O(log n) search);
//! - IsLost is monotone, so a boundary `lost_high` only moves up: below it every unSACKed
//!   segment is lost. Finding the new boundary walks down from the highest SACKed segment
//!   until DupThresh SACKed segments (or more than `(DupThresh − 1)·MSS` SACKed bytes) are
//!   counted, usually DupThresh segments;
//! - `retx_next` points at the first unSACKed segment not retransmitted since it was marked
//!   lost: NextSeg rules 1 and 3 read it in O(log n), and it only moves forward, except
//!   when a lost retransmission is detected (it moves back to that segment) and on an RTO
//!   (one O(outstanding) pass that also marks everything lost);
//! - lost retransmissions (beyond RFC 6675, as Linux's pre-RACK `tcp_mark_lost_retrans`):
//!   each retransmission of a lost segment remembers `snd_max` when it was sent; once a
//!   byte at or above that mark is SACKed, data sent after the retransmission has arrived,
//!   so on this FIFO path the retransmission is lost and the segment is resent again
//!   instead of waiting for the RTO. Retransmissions are queued in send order and the
//!   marks never decrease, so the check pops from the front: amortised O(1) per ACK.
//!
//! With RACK (\[rack-tlp\], [`super::rack`]) the lost marks come from RACK instead of IsLost
//! and the lost-retransmission rule; the bookkeeping here is the same.

use std::collections::VecDeque;

use crate::wire::{Ack, MAX_SACK_BLOCKS};

use super::{Delivery, TcpSender};

/// The scoreboard's totals and pointers (the per-segment flags live in the sender's ring).
#[derive(Clone, Debug)]
pub(super) struct Scoreboard {
    /// Bytes SACKed, and the number of SACKed segments (Linux `sacked_out`).
    pub sacked_bytes: u64,
    pub sacked_segs: u32,
    /// UnSACKed bytes marked lost.
    pub lost_bytes: u64,
    /// UnSACKed bytes retransmitted and presumed in flight.
    pub retx_bytes: u64,
    /// One past the highest SACKed byte (RFC 6675 HighSACK, exclusive).
    pub high_sacked: u64,
    /// Every unSACKed segment below this sequence is marked lost.
    pub lost_high: u64,
    /// Start of the first unSACKed segment not retransmitted since it was deemed lost
    /// (`snd_max` if none): NextSeg's candidate for rules 1 and 3.
    pub retx_next: u64,
    /// Blocks of the previous ACK, clipped and sorted: already applied to the scoreboard.
    pub cache: [(u64, u64); MAX_SACK_BLOCKS],
    pub cache_len: usize,
    /// Retransmissions in send order: (segment start, `snd_max` when sent, ordinal), for
    /// lost-retransmission detection (RFC 6675 mode: of lost segments only). Capacity is
    /// reused.
    pub retx_queue: VecDeque<(u64, u64, u64)>,
}

impl Scoreboard {
    /// An empty scoreboard (nothing outstanding).
    pub fn new() -> Self {
        Self {
            sacked_bytes: 0,
            sacked_segs: 0,
            lost_bytes: 0,
            retx_bytes: 0,
            high_sacked: 0,
            lost_high: 0,
            retx_next: 0,
            cache: [(0, 0); MAX_SACK_BLOCKS],
            cache_len: 0,
            retx_queue: VecDeque::new(),
        }
    }

    /// RFC 6675 `pipe` for `outstanding = snd_max − snd_una` bytes.
    #[inline]
    pub fn pipe(&self, outstanding: u64) -> u64 {
        outstanding.saturating_sub(self.sacked_bytes + self.lost_bytes) + self.retx_bytes
    }
}

impl TcpSender {
    /// RFC 6675 `pipe` from the scoreboard totals.
    #[inline]
    pub(super) fn pipe(&self) -> u64 {
        self.board.pipe(self.snd_max - self.snd_una)
    }

    /// Index of the segment at `retx_next`, if any.
    pub(super) fn retx_candidate(&self) -> Option<usize> {
        (self.board.retx_next < self.snd_max).then(|| self.index_of(self.board.retx_next))
    }

    /// Moves `retx_next` over SACKed and already retransmitted segments.
    pub(super) fn advance_retx_next(&mut self) {
        self.board.retx_next = self.board.retx_next.max(self.snd_una);
        // The ring starts at snd_una: no search for the usual case.
        let mut i = if self.board.retx_next == self.snd_una {
            0
        } else {
            self.index_of(self.board.retx_next)
        };
        while i < self.segments.len() && (self.segments[i].sacked || self.segments[i].retx_out) {
            i += 1;
        }
        self.board.retx_next = self.segments.get(i).map_or(self.snd_max, |s| s.seq);
    }

    /// Removes the segments a cumulative ACK up to `ack` covers (trimming one only partly
    /// covered), updating the scoreboard totals, and feeds those not SACKed before to
    /// `dl` (RTT candidate and rate sample); sets `snd_una = ack`.
    pub(super) fn take_acked(&mut self, ack: u64, dl: &mut Delivery) {
        while let Some(front) = self.segments.front_mut() {
            if front.end() <= ack {
                let s = *front;
                self.segments.pop_front();
                let len = s.len as u64;
                if s.sacked {
                    self.board.sacked_bytes -= len;
                    self.board.sacked_segs -= 1;
                    dl.cum_retx |= s.retransmitted;
                } else {
                    self.board.lost_bytes -= if s.lost { len } else { 0 };
                    self.board.retx_bytes -= if s.retx_out { len } else { 0 };
                    dl.cum_unsacked += len;
                    dl.add(&mut self.rate, &s, true);
                }
            } else {
                if front.seq < ack {
                    let d = ack - front.seq;
                    if front.sacked {
                        self.board.sacked_bytes -= d;
                    } else {
                        self.board.lost_bytes -= if front.lost { d } else { 0 };
                        self.board.retx_bytes -= if front.retx_out { d } else { 0 };
                        dl.cum_unsacked += d;
                    }
                    front.len -= d as u32;
                    front.seq = ack;
                }
                break;
            }
        }
        self.snd_una = ack;
        if self.segments.is_empty() {
            self.board.retx_queue.clear();
        }
        if self.sack_active() {
            self.board.lost_high = self.board.lost_high.max(ack);
            if self.board.retx_next < ack {
                self.advance_retx_next();
            }
        }
    }

    /// Applies the ACK's SACK blocks to the scoreboard (RFC 6675 §4 Update()). Ranges
    /// already covered by the previous ACK's blocks were applied then and are skipped; so is
    /// the first block when it is a D-SACK (`skip_first`, RFC 2883 §4).
    pub(super) fn apply_sack(&mut self, ack: &Ack, skip_first: bool, dl: &mut Delivery) {
        if ack.sack_len == 0 && self.board.cache_len == 0 {
            return;
        }
        let mut blocks = [(0u64, 0u64); MAX_SACK_BLOCKS];
        let mut n = 0;
        for &(s, e) in &ack.sack_blocks()[skip_first as usize..] {
            let (s, e) = (s.max(self.snd_una), e.min(self.snd_max));
            if s < e {
                blocks[n] = (s, e);
                n += 1;
            }
        }
        let cache = self.board.cache;
        let cache = &cache[..self.board.cache_len];
        for &(bs, be) in &blocks[..n] {
            // [bs, be) minus the cached ranges (sorted, disjoint).
            let mut cur = bs;
            for &(cs, ce) in cache {
                if ce <= cur {
                    continue;
                }
                if cs >= be {
                    break;
                }
                if cs > cur {
                    self.mark_sacked(bs, be, cur, cs, dl);
                }
                cur = cur.max(ce);
                if cur >= be {
                    break;
                }
            }
            if cur < be {
                self.mark_sacked(bs, be, cur, be, dl);
            }
        }
        blocks[..n].sort_unstable();
        self.board.cache = blocks;
        self.board.cache_len = n;
        if dl.sacked > 0 && self.board.retx_next < self.snd_max {
            self.advance_retx_next();
        }
    }

    /// Marks SACKed the segments overlapping `[from, to)` that lie wholly inside the block
    /// `[bs, be)`.
    pub(super) fn mark_sacked(&mut self, bs: u64, be: u64, from: u64, to: u64, dl: &mut Delivery) {
        let mut i = self.index_of(from);
        while let Some(s) = self.segments.get_mut(i) {
            if s.seq >= to {
                break;
            }
            if !s.sacked && s.seq >= bs && s.end() <= be {
                let len = s.len as u64;
                s.sacked = true;
                self.board.sacked_bytes += len;
                self.board.sacked_segs += 1;
                self.board.lost_bytes -= if s.lost { len } else { 0 };
                self.board.retx_bytes -= if s.retx_out { len } else { 0 };
                self.board.high_sacked = self.board.high_sacked.max(s.end());
                dl.sacked += len;
                self.stats.bytes_sacked += len;
                let s = *s;
                dl.add(&mut self.rate, &s, false);
            }
            i += 1;
        }
    }

    /// RFC 6675 IsLost(): an unSACKed segment is lost once DupThresh segments, or more than
    /// `(DupThresh − 1)·MSS` bytes, above it are SACKed. Walks down from the highest SACKed
    /// segment to the point where that count is reached and marks everything unSACKed
    /// below it lost.
    pub(super) fn update_lost(&mut self) {
        if self.board.high_sacked <= self.board.lost_high {
            return;
        }
        let bytes_limit = (self.dupack_threshold as u64 - 1) * self.mss as u64;
        let mut i = self.index_of(self.board.high_sacked - 1);
        let (mut count, mut bytes) = (0u32, 0u64);
        let mut boundary = None;
        while let Some(s) = self.segments.get(i) {
            if s.seq < self.board.lost_high {
                break;
            }
            if s.sacked {
                count += 1;
                bytes += s.len as u64;
                if count >= self.dupack_threshold || bytes > bytes_limit {
                    boundary = Some(s.seq);
                    break;
                }
            }
            if i == 0 {
                break;
            }
            i -= 1;
        }
        if let Some(b) = boundary {
            self.mark_lost_below(b);
        }
    }

    /// A retransmission is lost once data sent after it is SACKed: it loses its `retx_out`
    /// mark (leaves `pipe`) and becomes NextSeg's rule-1 candidate again.
    pub(super) fn detect_lost_retransmissions(&mut self) {
        while let Some(&(seq, mark, order)) = self.board.retx_queue.front() {
            if self.board.high_sacked <= mark {
                break;
            }
            self.board.retx_queue.pop_front();
            if seq < self.snd_una {
                continue;
            }
            let i = self.index_of(seq);
            let s = &mut self.segments[i];
            // Only if this is still that retransmission, in flight and unSACKed.
            if s.seq == seq && s.order == order && s.retx_out && !s.sacked && s.lost {
                s.retx_out = false;
                self.board.retx_bytes -= s.len as u64;
                self.board.retx_next = self.board.retx_next.min(seq);
                self.stats.lost_retransmits += 1;
            }
        }
    }

    /// Marks every unSACKed segment below `end` lost.
    pub(super) fn mark_lost_below(&mut self, end: u64) {
        if end <= self.board.lost_high {
            return;
        }
        let mut i = self.index_of(self.board.lost_high);
        while let Some(s) = self.segments.get_mut(i) {
            if s.seq >= end {
                break;
            }
            if !s.sacked && !s.lost {
                s.lost = true;
                self.board.lost_bytes += s.len as u64;
            }
            i += 1;
        }
        self.board.lost_high = end;
    }

    /// RFC 6675 §5.1 after a timeout: every unSACKed segment is lost and resent, in order,
    /// as the (slow-starting) window allows; SACKed segments are never resent.
    pub(super) fn sack_timeout_mark_lost(&mut self) {
        for s in &mut self.segments {
            s.retx_out = false;
            s.lost = !s.sacked;
        }
        self.board.lost_bytes = self.snd_max - self.snd_una - self.board.sacked_bytes;
        self.board.retx_bytes = 0;
        self.board.lost_high = self.snd_max;
        self.board.retx_queue.clear();
    }

    /// Test-only consistency check of the scoreboard totals and pointers.
    #[cfg(test)]
    pub(super) fn check_scoreboard(&self) {
        let (mut sacked, mut lost, mut retx, mut sacked_segs) = (0, 0, 0, 0);
        let mut expect = self.snd_una;
        for s in &self.segments {
            assert_eq!(s.seq, expect, "ring is contiguous");
            expect = s.end();
            if s.sacked {
                sacked += s.len as u64;
                sacked_segs += 1;
            } else {
                lost += if s.lost { s.len as u64 } else { 0 };
                retx += if s.retx_out { s.len as u64 } else { 0 };
                if self.sack_active() {
                    assert_eq!(
                        s.lost,
                        s.end() <= self.board.lost_high,
                        "lost marks form a prefix: {s:?}"
                    );
                    if s.seq < self.board.retx_next {
                        assert!(
                            s.retx_out,
                            "below retx_next every unSACKed segment was resent: {s:?}"
                        );
                    }
                }
            }
        }
        assert_eq!(expect, self.snd_max);
        assert_eq!(
            (sacked, lost, retx),
            (
                self.board.sacked_bytes,
                self.board.lost_bytes,
                self.board.retx_bytes
            )
        );
        assert_eq!(sacked_segs, self.board.sacked_segs);
        if self.sack_active() {
            assert_eq!(self.snd_nxt, self.snd_max);
            if let Some(i) = self.retx_candidate() {
                let s = &self.segments[i];
                assert!(
                    s.seq == self.board.retx_next && !s.sacked && !s.retx_out,
                    "{s:?}"
                );
            }
        }
    }
}
