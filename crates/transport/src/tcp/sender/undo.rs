//! Spurious retransmissions and their undo: D-SACK at the sender (RFC 2883 §4), the D-SACK
//! undo of RFC 3708, the Eifel timestamp check (RFC 3522) and F-RTO (RFC 5682 §3, the
//! SACK-enhanced version), as Linux's `tcp_input.c` does them.
//!
//! # Bookkeeping (Linux `tcp_init_undo`)
//!
//! When a reduction starts (fast recovery, or a timeout that starts a loss episode) the
//! sender remembers the controller's `cwnd` and `max(ssthresh, ¾·cwnd)` (`prior_cwnd`,
//! `prior_ssthresh`), the undo marker (`snd_una`) and how many retransmissions must be
//! shown spurious (`undo_retrans`: those in flight, then +1 per retransmission; −1 stands
//! for "none yet", as 0 means "all shown spurious"). Each D-SACK of a retransmitted segment
//! above the marker takes one off (RFC 3708 §3). `retrans_stamp` is the timestamp clock of
//! the first retransmission since the connection was last in order.
//!
//! # When a reduction is undone (`tcp_may_undo`)
//!
//! With a marker set, when every retransmission was D-SACKed (`undo_retrans == 0`), or when
//! the ACK echoes a timestamp older than the first retransmission (`TSecr < retrans_stamp`,
//! Eifel: the ACK was triggered by an original transmission). Checked
//! - at the end of fast recovery (`tcp_try_undo_recovery`), and on a partial ACK by Eifel
//!   (`tcp_try_undo_partial`, which also unmarks the losses when no retransmission is in
//!   flight, and counts the event as reordering);
//! - on any ACK outside recovery and after it, by D-SACKs (`tcp_try_undo_dsack`): late
//!   D-SACKs still undo a finished recovery;
//! - after a timeout, on every ACK that advances `snd_una` (`tcp_try_undo_loss`), which also
//!   clears the loss marks.
//!
//! The undo calls the controller's [`crate::cc::CongestionControl::undo_cwnd`] (Linux
//! `tcp_undo_cwnd_reduction`).
//!
//! # F-RTO (RFC 5682 §3.1, Linux `tcp_process_loss` with `tcp_frto = 2`)
//!
//! After a timeout that starts a loss episode (or repeats on the same `snd_una`, §3.2) the
//! head is retransmitted; then
//! 1. an ACK that acknowledges or SACKs data never retransmitted and sent before the
//!    timeout (`FLAG_ORIG_SACK_ACKED`) shows the timeout spurious: undo (step 3.b, applied
//!    from the first ACK as Linux does);
//! 2. the first ACK that advances `snd_una` without that (step 2.b): send up to what the
//!    window allows of *new* data instead of retransmitting, and wait for the next ACK;
//! 3. after new data went out, a duplicate ACK or a SACK means the loss was real (step 3.a):
//!    F-RTO ends and the lost segments are retransmitted as after any timeout.

use cellshare_core::Nanos;

use crate::cc::UndoEvent;
use crate::tcp::ts_newer_or_equal;
use crate::wire::Ack;

use super::TcpSender;

/// Undo and F-RTO state (Linux `undo_marker`, `undo_retrans`, `retrans_stamp`,
/// `prior_cwnd`, `prior_ssthresh`, `frto`).
#[derive(Clone, Debug)]
pub(super) struct Undo {
    /// `snd_una` when the reduction started; None when nothing can be undone.
    pub marker: Option<u64>,
    /// Retransmissions not shown spurious yet (−1: none sent yet).
    pub retrans: i64,
    /// Timestamp clock of the first retransmission since the connection was in order.
    pub retrans_stamp: Option<u32>,
    /// (`prior_cwnd`, `prior_ssthresh`) of the reduction, bytes.
    pub prior: Option<(u64, u64)>,
    /// F-RTO is running for the current timeout.
    pub frto: bool,
    /// F-RTO step 2.b: send new data before any retransmission on this ACK.
    pub frto_new_data: bool,
}

impl Default for Undo {
    fn default() -> Self {
        Self {
            marker: None,
            retrans: -1,
            retrans_stamp: None,
            prior: None,
            frto: false,
            frto_new_data: false,
        }
    }
}

/// What the first SACK block of an ACK says when it is a D-SACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Dsack {
    pub start: u64,
    pub end: u64,
    /// It reports the tail loss probe (Linux `FLAG_DSACK_TLP`).
    pub tlp: bool,
}

impl TcpSender {
    /// RFC 2883 §4 / Linux `tcp_check_dsack`: the first block is a D-SACK when it lies below
    /// the cumulative ACK or inside the second block. Counts it, notes it for RACK's
    /// reordering window, and takes D-SACKed retransmissions below `snd_una` off
    /// `undo_retrans`.
    pub(super) fn check_dsack(&mut self, ack: &Ack, prior_snd_una: u64) -> Option<Dsack> {
        let blocks = ack.sack_blocks();
        let &(start, end) = blocks.first()?;
        let is_dsack =
            start < ack.ack || (blocks.len() > 1 && blocks[1].0 <= start && end <= blocks[1].1);
        if !is_dsack || end <= start {
            return None;
        }
        let len = end - start;
        let segs = len.div_ceil(self.mss as u64).max(1);
        let tlp = len <= self.mss as u64 && self.tlp.high_seq == Some(end);
        self.stats.dsacks_received += segs;
        if self.stats.dsacks_received > self.stats.retransmits {
            // More duplicates than retransmissions: not from us (Linux ignores it too).
            return None;
        }
        if self.rack.reord_seen && !tlp {
            self.rack.dsack_seen = true;
        }
        if let Some(marker) = self.undo.marker {
            if self.undo.retrans > 0 && end <= prior_snd_una && end > marker {
                self.undo.retrans = (self.undo.retrans - segs as i64).max(0);
            }
        }
        Some(Dsack { start, end, tlp })
    }

    /// A D-SACK above `snd_una` (Linux `tcp_sacktag_one` with `dup_sack`): each
    /// retransmitted segment it covers was received twice.
    pub(super) fn dsack_above_una(&mut self, d: Dsack) {
        let Some(marker) = self.undo.marker else {
            return;
        };
        if d.end <= self.snd_una {
            return;
        }
        let mut i = self.index_of(d.start.max(self.snd_una));
        while let Some(s) = self.segments.get(i) {
            if s.seq >= d.end {
                break;
            }
            if s.retransmitted
                && s.seq >= d.start
                && s.end() <= d.end
                && self.undo.retrans > 0
                && s.end() > marker
            {
                self.undo.retrans -= 1;
            }
            i += 1;
        }
    }

    /// Linux `tcp_init_undo` with the `prior_cwnd`/`prior_ssthresh` of the reduction about
    /// to start.
    pub(super) fn init_undo(&mut self) {
        if !self.undo_enabled {
            return;
        }
        let (cwnd, ssthresh) = (self.cc.cwnd(), self.cc.ssthresh());
        // Linux `tcp_current_ssthresh` outside a reduction: max(ssthresh, ¾·cwnd).
        let prior_ssthresh = ssthresh.max((cwnd >> 1) + (cwnd >> 2));
        self.undo.prior = Some((cwnd, prior_ssthresh));
        self.undo.marker = Some(self.snd_una);
        let in_flight = self.retx_segments();
        self.undo.retrans = if in_flight > 0 { in_flight as i64 } else { -1 };
    }

    /// Retransmitted segments presumed in flight (Linux `retrans_out`).
    fn retx_segments(&self) -> u64 {
        if self.board.retx_bytes == 0 {
            return 0;
        }
        self.segments
            .iter()
            .filter(|s| s.retx_out && !s.sacked)
            .count() as u64
    }

    /// Bookkeeping of one retransmission (Linux `tcp_retransmit_skb`).
    pub(super) fn note_retransmission(&mut self, now: Nanos) {
        if self.undo.retrans_stamp.is_none() {
            self.undo.retrans_stamp = Some(crate::tcp::ts_clock(now, self.ts_offset_ms));
        }
        if self.undo.retrans < 0 {
            self.undo.retrans = 0;
        }
        self.undo.retrans += 1;
    }

    /// RFC 3522 (Linux `tcp_packet_delayed`): the ACK echoes a timestamp older than the
    /// first retransmission, so an original transmission triggered it.
    pub(super) fn packet_delayed(&self, ack: &Ack) -> bool {
        self.undo
            .retrans_stamp
            .is_some_and(|t| ack.ts_ecr != 0 && !ts_newer_or_equal(ack.ts_ecr, t))
    }

    /// Linux `tcp_may_undo`.
    pub(super) fn may_undo(&self, ack: &Ack) -> bool {
        self.undo_enabled
            && self.undo.marker.is_some()
            && (self.undo.retrans == 0 || self.packet_delayed(ack))
    }

    /// Linux `tcp_undo_cwnd_reduction`: the controller restores its window; with
    /// `unmark_loss` every loss mark goes too (the segments count as in flight again).
    pub(super) fn undo_reduction(&mut self, now: Nanos, unmark_loss: bool) {
        if unmark_loss {
            for s in &mut self.segments {
                s.lost = false;
            }
            self.board.lost_bytes = 0;
            self.board.lost_high = self.snd_una;
            self.hole_pending = false;
            self.board.retx_next = self.snd_una;
            self.advance_retx_next();
        }
        if let Some((prior_cwnd, prior_ssthresh)) = self.undo.prior.take() {
            self.cc.undo_cwnd(&UndoEvent {
                now,
                prior_cwnd,
                prior_ssthresh,
                mss: self.mss,
            });
        }
        self.undo.marker = None;
        self.rack.advanced = true;
        self.stats.undos += 1;
    }

    /// Linux `tcp_try_undo_recovery`, when fast recovery or a loss episode reaches its
    /// recovery point: undo if the reduction was spurious. Returns whether it undid.
    pub(super) fn try_undo_recovery(&mut self, now: Nanos, ack: &Ack) -> bool {
        if self.may_undo(ack) {
            self.undo_reduction(now, false);
            true
        } else {
            self.rack.recovery_done();
            false
        }
    }

    /// Linux `tcp_try_undo_dsack`: every retransmission of the episode was D-SACKed.
    pub(super) fn try_undo_dsack(&mut self, now: Nanos) -> bool {
        if self.undo_enabled && self.undo.marker.is_some() && self.undo.retrans == 0 {
            self.rack.dsack_undo();
            self.undo_reduction(now, false);
            true
        } else {
            false
        }
    }

    /// Linux `tcp_try_undo_partial`, on a partial ACK in fast recovery: an ACK for an
    /// original transmission (Eifel) means the hole was reordering. Returns `true` when
    /// retransmissions are still in flight (the sender then marks nothing more lost on
    /// this ACK), after undoing when none is.
    pub(super) fn try_undo_partial(&mut self, now: Nanos, ack: &Ack, prior_snd_una: u64) -> bool {
        if !(self.undo_enabled && self.undo.marker.is_some() && self.packet_delayed(ack)) {
            return false;
        }
        if self.rack_enabled {
            self.rack_check_reordering(prior_snd_una);
        }
        if self.board.retx_bytes > 0 {
            return true;
        }
        self.undo_reduction(now, true);
        self.in_recovery = false;
        false
    }

    /// Linux `tcp_try_undo_loss`, after a timeout: undo on Eifel/D-SACK evidence, or at
    /// once when F-RTO found the timeout spurious (`frto_undo`). Leaves the loss state.
    pub(super) fn try_undo_loss(&mut self, now: Nanos, ack: &Ack, frto_undo: bool) -> bool {
        if !(frto_undo || self.may_undo(ack)) || !self.undo_enabled {
            return false;
        }
        self.undo_reduction(now, true);
        if frto_undo {
            self.stats.spurious_timeouts += 1;
        }
        self.rto_repeats = 0;
        self.in_loss = false;
        self.undo.frto = false;
        self.undo.frto_new_data = false;
        true
    }

    /// Linux `tcp_process_loss`: an ACK after a timeout. `orig_acked`: it delivered data
    /// never retransmitted and sent before the timeout; `sacked`: it SACKed new data;
    /// `dupack`: a duplicate ACK.
    pub(super) fn process_loss(
        &mut self,
        now: Nanos,
        ack: &Ack,
        advanced: bool,
        orig_acked: bool,
        sacked: bool,
        dupack: bool,
    ) {
        let recovered = self.snd_una >= self.recover;
        if advanced && self.try_undo_loss(now, ack, false) {
            return;
        }
        if self.undo.frto {
            // RFC 5682 §3.1 step 3.b: data never retransmitted was (S)ACKed.
            if orig_acked && self.try_undo_loss(now, ack, true) {
                return;
            }
            if self.snd_max > self.recover {
                // Step 3.a: new data went out after the timeout and the reply is a
                // duplicate ACK or a SACK: the loss was real.
                if sacked || dupack {
                    self.undo.frto = false;
                }
            } else if advanced && !recovered {
                // Step 2.b: send new data, if there is any and the receiver window allows.
                self.recover = self.snd_max;
                if self.app_end > self.snd_max && self.snd_una + self.snd_wnd > self.snd_max {
                    self.undo.frto_new_data = true;
                    return;
                }
                self.undo.frto = false;
            }
        }
        if recovered {
            self.try_undo_recovery(now, ack);
            self.in_loss = false;
            self.undo.frto = false;
        }
    }
}
