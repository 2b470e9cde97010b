//! RACK: time-based loss detection (RFC 8985 §6), as Linux's `net/ipv4/tcp_recovery.c`.
//!
//! A segment is lost once a segment *sent after it* has been delivered (cumulatively ACKed
//! or SACKed) and it has stayed unacknowledged for `RACK.rtt + RACK.reo_wnd` since its
//! (latest) transmission. RACK.rtt is the RTT of the most recently sent delivered segment;
//! the reordering window follows Linux's `tcp_rack_reo_wnd`:
//!
//! - 0 while no reordering has been seen and either the sender is in recovery (or after a
//!   timeout) or at least `reordering` (initially DupThresh) segments are SACKed — RFC 8985
//!   §6.2 step 4's "DupThresh" shortcut, so a burst of losses is repaired as fast as
//!   RFC 6675 would;
//! - else `min(min_rtt/4 · steps, SRTT)`, where `steps` grows by one per round trip that
//!   brought a D-SACK (once reordering has been seen) and falls back to 1 after 16
//!   recoveries without one (§6.2 step 4, Linux `tcp_rack_update_reo_wnd`).
//!
//! Reordering is "seen" when a never-retransmitted segment is delivered below the highest
//! SACKed sequence (Linux `tcp_check_sack_reordering`); its degree (in segments) raises
//! `reordering` up to 300 (`tcp_max_reordering`).
//!
//! Because retransmissions carry their own send time, the same rule finds lost
//! retransmissions (§6.2: "RACK ... detects lost retransmissions"), which RFC 6675 cannot.
//! Segments still waiting for their deadline arm the reordering timer (§6.3, Linux
//! `ICSK_TIME_REO_TIMEOUT`: the largest remaining wait plus 2 ms, `TCP_TIMEOUT_MIN_US`).
//!
//! # Walking in send order without a time-sorted list
//!
//! Linux keeps a second, time-sorted list of the sent segments. Here the scoreboard ring is
//! in sequence order, which is send order for segments never retransmitted, and the
//! retransmissions are already queued in send order (`retx_queue`). The detection walks
//! (a) the never-retransmitted, unSACKed, not yet lost segments from `lost_high` upward and
//! stops at the first one not yet due, and (b) the front of the retransmission queue.
//! Lost marks stay a prefix of the unSACKed segments (`lost_high`, as in the RFC 6675
//! mode): a segment whose only transmission in flight is a retransmission not found lost
//! itself (a tail loss probe, or a segment whose marks an undo cleared) is marked lost
//! together with the first original above it that is. Linux would keep it until its own
//! deadline; the difference only arises after a probe or an undo.

use cellshare_core::{Nanos, MS};

use super::TcpSender;

/// Linux `TCP_TIMEOUT_MIN_US`: slack added to the reordering timer.
const REO_TIMER_SLACK: Nanos = 2 * MS;
/// Linux `TCP_RACK_RECOVERY_THRESH`: recoveries a grown reordering window persists for.
const RECOVERY_THRESH: u32 = 16;
/// Linux `net.ipv4.tcp_max_reordering`.
const MAX_REORDERING: u32 = 300;

/// `RACK_sent_after` (RFC 8985 §6.2) on transmission ordinals: whether transmission `a`
/// went after transmission `b`. The RFC (and Linux) compare send times and break ties by
/// end sequence, assuming that segments sent at the same instant went in sequence order.
/// In the simulator many ACKs arrive at the same nanosecond (a TTI delivers a batch), and a
/// retransmission triggered by a later one of them goes after new data released by an
/// earlier one, below it in sequence: the tie-break would put it first and declare it lost
/// the moment that new data is acknowledged. Every transmission gets an ordinal instead.
pub(super) fn sent_after(a: u64, b: u64) -> bool {
    a > b
}

/// RACK's per-connection state (RFC 8985 §6.1, Linux `struct tcp_rack` plus
/// `reordering`/`reord_seen`).
#[derive(Clone, Debug)]
pub(super) struct Rack {
    /// The transmission ordinal of the most recently sent delivered segment (RACK.xmit_ts
    /// and RACK.end_seq; None before the first delivery).
    pub reference: Option<u64>,
    /// RACK.rtt: the RTT of that segment.
    pub rtt: Nanos,
    /// The reference moved since the last detection (Linux `rack.advanced`).
    pub advanced: bool,
    /// Reordering has been observed on the connection (Linux `reord_seen`).
    pub reord_seen: bool,
    /// Reordering degree in segments (Linux `tp->reordering`), initially DupThresh.
    pub reordering: u32,
    /// RACK.reo_wnd_mult (Linux `reo_wnd_steps`).
    pub steps: u32,
    /// Recoveries left before `steps` returns to 1 (Linux `reo_wnd_persist`).
    pub persist: u32,
    /// A D-SACK arrived since the window was last grown (Linux `rack.dsack_seen`).
    pub dsack_seen: bool,
    /// Bytes delivered when the window was last grown (Linux `rack.last_delivered`).
    pub last_delivered: u64,
}

impl Rack {
    pub fn new(dupthresh: u32) -> Self {
        Self {
            reference: None,
            rtt: 0,
            advanced: false,
            reord_seen: false,
            reordering: dupthresh,
            steps: 1,
            persist: 0,
            dsack_seen: false,
            last_delivered: 0,
        }
    }

    /// RFC 8985 §6.2 step 2 (`RACK_update`) for the newest delivered segment that passed the
    /// retransmission-ambiguity checks: transmission `order`, RTT `rtt`.
    pub fn advance(&mut self, order: u64, rtt: Nanos) {
        let newer = match self.reference {
            None => true,
            Some(r) => sent_after(order, r),
        };
        if newer {
            self.reference = Some(order);
            self.rtt = rtt;
            self.advanced = true;
        }
    }

    /// Linux `tcp_rack_update_reo_wnd` (RFC 8985 §6.2 step 4): once per round trip, a
    /// D-SACK grows the window by one step and makes it persist for 16 recoveries.
    /// `prior_delivered`: bytes delivered when the newest delivered segment was sent.
    pub fn update_reo_wnd(&mut self, prior_delivered: Option<u64>, delivered: u64) {
        let Some(prior) = prior_delivered.filter(|&p| p > 0) else {
            return;
        };
        if prior < self.last_delivered {
            // A round trip has not passed since the last adjustment.
            self.dsack_seen = false;
        }
        if self.dsack_seen {
            self.steps = (self.steps + 1).min(255);
            self.dsack_seen = false;
            self.last_delivered = delivered;
            self.persist = RECOVERY_THRESH;
        } else if self.persist == 0 {
            self.steps = 1;
        }
    }

    /// A recovery ended without an undo (Linux `tcp_try_undo_recovery`).
    pub fn recovery_done(&mut self) {
        self.persist = self.persist.saturating_sub(1);
    }

    /// A D-SACK undid a reduction (Linux `tcp_try_undo_dsack`).
    pub fn dsack_undo(&mut self) {
        self.persist = (self.persist + 1).min(RECOVERY_THRESH);
    }
}

impl TcpSender {
    /// Linux `tcp_rack_reo_wnd` (RFC 8985 §6.2 step 4).
    pub(super) fn rack_reo_wnd(&self) -> Nanos {
        if !self.rack.reord_seen
            && (self.in_recovery || self.in_loss || self.board.sacked_segs >= self.rack.reordering)
        {
            return 0;
        }
        let min_rtt = self.rtt.min_rtt();
        (min_rtt / 4)
            .saturating_mul(self.rack.steps as u64)
            .min(self.rtt.srtt())
    }

    /// Linux `tcp_check_sack_reordering`: a never-retransmitted segment starting at `low`
    /// was delivered below the highest SACKed sequence.
    pub(super) fn rack_check_reordering(&mut self, low: u64) {
        let fack = if self.board.sacked_segs > 0 {
            self.board.high_sacked
        } else {
            self.snd_una
        };
        if low >= fack {
            return;
        }
        let metric = fack - low;
        let mss = self.mss as u64;
        if metric > self.rack.reordering as u64 * mss {
            self.rack.reordering = (metric.div_ceil(mss)).min(MAX_REORDERING as u64) as u32;
        }
        self.rack.reord_seen = true;
        self.stats.reorderings += 1;
    }

    /// RFC 8985 §6.2 step 5 (`RACK_detect_loss`), Linux `tcp_rack_detect_loss`: marks every
    /// segment sent before the RACK reference and unacknowledged for `RACK.rtt + reo_wnd`
    /// lost, and (re)arms the reordering timer for the ones not due yet. Returns whether a
    /// retransmission was found lost.
    pub(super) fn rack_detect_loss(&mut self, now: Nanos) -> bool {
        self.rack.advanced = false;
        self.reo_deadline = None;
        let Some(reference) = self.rack.reference else {
            return false;
        };
        if self.board.sacked_segs == 0 && self.board.retx_bytes == 0 {
            // Nothing SACKed and no retransmission in flight: every delivered segment lies
            // below snd_una, and every unacknowledged one still counted in flight was sent
            // after it (originals go in sequence order). Nothing can be due.
            return false;
        }
        let deadline = self.rack.rtt + self.rack_reo_wnd();
        let mut wait: Option<Nanos> = None;
        // (a) Segments never retransmitted (send order = sequence order), from lost_high.
        let start = self.board.lost_high.max(self.snd_una);
        let mut i = self.index_of(start);
        let mut mark_end = self.board.lost_high;
        while let Some(s) = self.segments.get(i) {
            if s.sacked || s.lost || s.retransmitted {
                i += 1;
                continue;
            }
            if !sent_after(reference, s.order) {
                break;
            }
            let elapsed = now.saturating_sub(s.sent_at);
            if elapsed >= deadline {
                mark_end = s.end();
                i += 1;
            } else {
                wait = Some(wait.map_or(0, |w: Nanos| w).max(deadline - elapsed));
                break;
            }
        }
        self.mark_lost_below(mark_end);
        // Keep the walk short: SACKed segments right above the boundary need no new look.
        let mut j = self.index_of(self.board.lost_high.max(self.snd_una));
        while let Some(s) = self.segments.get(j) {
            if !s.sacked {
                break;
            }
            self.board.lost_high = s.end();
            j += 1;
        }
        // (b) Retransmissions in flight, in send order.
        let mut lost_retx = false;
        while let Some(&(seq, _, order)) = self.board.retx_queue.front() {
            if seq < self.snd_una {
                self.board.retx_queue.pop_front();
                continue;
            }
            let k = self.index_of(seq);
            let s = self.segments[k];
            if s.seq != seq || s.order != order || !s.retx_out || s.sacked {
                // Stale: acknowledged, SACKed, resent since, or no longer in flight.
                self.board.retx_queue.pop_front();
                continue;
            }
            if !sent_after(reference, s.order) {
                break;
            }
            let elapsed = now.saturating_sub(s.sent_at);
            if elapsed < deadline {
                wait = Some(wait.map_or(0, |w: Nanos| w).max(deadline - elapsed));
                break;
            }
            self.board.retx_queue.pop_front();
            if !s.lost {
                // A probe's retransmission (not deemed lost before): lost with the prefix.
                self.mark_lost_below(s.end());
            }
            let s = &mut self.segments[k];
            s.retx_out = false;
            self.board.retx_bytes -= s.len as u64;
            self.board.retx_next = self.board.retx_next.min(seq);
            self.stats.lost_retransmits += 1;
            lost_retx = true;
        }
        if let Some(w) = wait {
            self.reo_deadline = Some(self.timer_at(now, w + REO_TIMER_SLACK));
        }
        lost_retx
    }

    /// The reordering timer fired (RFC 8985 §6.3, Linux `tcp_rack_reo_timeout`): detect
    /// again; if something was marked lost, start recovery (unless in it) and let the
    /// retransmissions go.
    pub(super) fn on_reo_timeout(&mut self, now: Nanos) {
        self.reo_deadline = None;
        if !self.sack_active() || self.snd_una == self.snd_max {
            return;
        }
        let prior_pipe = self.pipe();
        let (lost_before, retx_before) = (self.board.lost_bytes, self.board.retx_bytes);
        self.rack_detect_loss(now);
        if self.board.lost_bytes == lost_before && self.board.retx_bytes == retx_before {
            return;
        }
        if !self.in_recovery {
            self.in_loss = false;
            self.enter_sack_recovery(now, prior_pipe);
            if self.prr_enabled {
                // Linux: `tcp_cwnd_reduction(sk, 1, 0)`, one segment's worth delivered.
                self.prr
                    .on_ack(self.mss as u64, self.cc.cwnd(), self.pipe(), self.mss);
            }
        }
        #[cfg(test)]
        self.check_scoreboard();
    }
}
