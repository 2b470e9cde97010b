//! The connecting side of the three-way handshake (RFC 9293 §3.5) as Linux's active open
//! does it (`tcp_connect`, `tcp_rcv_synsent_state_process`, `tcp_finish_connect`,
//! `tcp_init_transfer` in net/ipv4/tcp_output.c and tcp_input.c).
//!
//! The sender is the side that connects, as the emulator's traffic tool (`traffic send`
//! calls `connect()`, `traffic recv` accepts). The SYN goes when the application first
//! writes; the SYN-ACK's RTT sample seeds the estimator (`tcp_ack_update_rtt` from
//! `tcp_clean_rtx_queue`: the SYN's send time if it was sent once, else the SYN-ACK's
//! timestamp echo, `tcp_rtt_tsopt_us`), the controller's `init` runs with it
//! (`tcp_init_transfer`), the third segment (a pure ACK, `tcp_send_ack`) goes at once and
//! data follows in the same burst. Sequence numbers stay payload bytes: SYN and SYN-ACK are
//! flagged segments that occupy no sequence space here.

use cellshare_core::Nanos;

use crate::cc::{Established, UndoEvent};
use crate::tcp::{ts_clock, ts_newer_or_equal, ts_not_older};
use crate::wire::{Ack, Segment};

use super::TcpSender;

/// Linux `net.ipv4.tcp_syn_retries` default: SYN retransmissions before `connect()` fails
/// with ETIMEDOUT (1 + 2 + 4 + 8 + 16 + 32 + 64 = 127 s with the 1 s initial RTO).
pub const TCP_SYN_RETRIES: u32 = 6;

/// Where the connection stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Phase {
    /// Nothing sent yet: the SYN goes with the application's first write.
    #[default]
    Closed,
    /// SYN sent, no SYN-ACK yet.
    SynSent,
    /// Established: data flows.
    Established,
    /// `tcp_syn_retries` retransmissions went unanswered: `connect()` failed.
    Failed,
}

/// Handshake state of a [`TcpSender`].
#[derive(Clone, Debug, Default)]
pub(super) struct Handshake {
    pub(super) phase: Phase,
    /// Whether `poll_transmit` must look here first: not established yet, or a pure ACK
    /// is due. The only test on the per-segment path.
    pub(super) busy: bool,
    /// First and latest SYN transmissions, and the latter's TSval.
    first_syn: Nanos,
    /// TSval of the first SYN retransmission (the Eifel check of the SYN-ACK's echo).
    first_retx_tsval: Option<u32>,
    /// SYN retransmissions so far.
    pub(super) retries: u32,
    /// SYN retransmission deadline while in SYN-SENT.
    pub(super) deadline: Option<Nanos>,
    /// A SYN (re)transmission is due.
    syn_due: bool,
    /// A pure ACK is due: the handshake's third segment, or the answer to a SYN-ACK
    /// received again (the peer did not get the third segment).
    ack_due: bool,
    /// The handshake's RTT sample.
    pub(super) rtt: Option<Nanos>,
}

impl Handshake {
    /// State at construction: established at once when the handshake is switched off.
    pub(super) fn new(enabled: bool) -> Self {
        let phase = if enabled {
            Phase::Closed
        } else {
            Phase::Established
        };
        Self {
            phase,
            busy: enabled,
            ..Self::default()
        }
    }
}

impl TcpSender {
    /// Whether the connection is established (data may flow).
    pub fn established(&self) -> bool {
        self.hs.phase == Phase::Established
    }

    /// This direction of the connection was opened by the other direction's handshake (an
    /// app's server-side leg, whose client connected): established from the start, as with
    /// `handshake = false`. Linux's passive side seeds its own SRTT from the SYN-ACK → ACK
    /// time (`tcp_synack_rtt_meas`); that seed is not modelled here.
    pub fn established_by_peer(&mut self) {
        self.hs = Handshake::new(false);
    }

    /// Whether the SYN went unanswered `tcp_syn_retries` times (Linux: `connect()` fails).
    pub fn connect_failed(&self) -> bool {
        self.hs.phase == Phase::Failed
    }

    /// The handshake's RTT sample, once the SYN-ACK arrived.
    pub fn handshake_rtt(&self) -> Option<Nanos> {
        self.hs.rtt
    }

    /// SYN retransmissions so far.
    pub fn syn_retransmits(&self) -> u32 {
        self.hs.retries
    }

    /// Whether [`TcpSender::poll_transmit`] would return a handshake segment.
    pub(super) fn handshake_due(&self) -> bool {
        match self.hs.phase {
            Phase::Closed => self.app_end > 0,
            Phase::SynSent => self.hs.syn_due,
            Phase::Established => self.hs.ack_due,
            Phase::Failed => false,
        }
    }

    /// A handshake segment due at `now`, if any (SYN, or a pure ACK).
    pub(super) fn handshake_transmit(&mut self, now: Nanos) -> Option<Segment> {
        let ts_val = ts_clock(now, self.ts_offset_ms);
        match self.hs.phase {
            Phase::Closed if self.app_end > 0 => {
                // `tcp_connect`: the SYN, its retransmission timer at the initial RTO
                // (`TCP_TIMEOUT_INIT` = 1 s, RFC 6298 §2.1).
                self.hs.phase = Phase::SynSent;
                self.hs.first_syn = now;
                self.hs.deadline = Some(self.timer_at(now, self.rtt.rto()));
                self.stats.segments_sent += 1;
                Some(self.syn_segment(ts_val, false))
            }
            Phase::SynSent if self.hs.syn_due => {
                self.hs.syn_due = false;
                self.hs.first_retx_tsval.get_or_insert(ts_val);
                self.stats.segments_sent += 1;
                self.stats.retransmits += 1;
                Some(self.syn_segment(ts_val, true))
            }
            Phase::Established if self.hs.ack_due => {
                self.hs.ack_due = false;
                self.hs.busy = false;
                Some(Segment {
                    seq: self.snd_nxt,
                    len: 0,
                    ts_val,
                    ts_ecr: self.ts_recent.unwrap_or(0),
                    retransmit: false,
                    syn: false,
                })
            }
            _ => None,
        }
    }

    fn syn_segment(&self, ts_val: u32, retransmit: bool) -> Segment {
        Segment {
            seq: 0,
            len: 0,
            ts_val,
            ts_ecr: 0,
            retransmit,
            syn: true,
        }
    }

    /// SYN retransmission timer (Linux `tcp_retransmit_timer` in SYN-SENT): the SYN again,
    /// the timer doubled (`inet_csk_rto_backoff`), up to `tcp_syn_retries` times
    /// (`tcp_write_timeout`), then the connection fails.
    pub(super) fn handshake_timeout(&mut self, now: Nanos) {
        if self.hs.phase != Phase::SynSent || self.hs.deadline.is_none_or(|d| d > now) {
            return;
        }
        if self.hs.retries >= TCP_SYN_RETRIES {
            // `busy` stays set: nothing more is sent.
            self.hs.phase = Phase::Failed;
            self.hs.deadline = None;
            return;
        }
        self.hs.retries += 1;
        // Linux counts the SYN's timeouts in `tcpi_total_rto` and its retransmissions in
        // `tcpi_total_retrans` (`tcp_update_rto_stats`, `tcp_retransmit_skb`).
        self.stats.timeouts += 1;
        self.rtt.back_off();
        self.hs.deadline = Some(self.timer_at(now, self.rtt.rto()));
        self.hs.syn_due = true;
    }

    /// An ACK before the connection is established, or a SYN-ACK: the handshake's part.
    /// Returns whether the ACK was consumed here.
    pub(super) fn handshake_ack(&mut self, now: Nanos, ack: &Ack) -> bool {
        match self.hs.phase {
            Phase::SynSent if ack.syn => {
                self.finish_connect(now, ack);
                true
            }
            Phase::Established if ack.syn => {
                // The peer resent its SYN-ACK: our third segment was lost. Linux answers
                // the out-of-window SYN-ACK with an ACK (`tcp_send_dupack`).
                self.hs.ack_due = true;
                self.hs.busy = true;
                true
            }
            Phase::Established => false,
            // Nothing else can arrive before our SYN was answered.
            _ => true,
        }
    }

    /// `tcp_rcv_synsent_state_process` → `tcp_ack` (RTT sample), `tcp_finish_connect` →
    /// `tcp_init_transfer` (initial window, the controller's `init`), then the third segment.
    fn finish_connect(&mut self, now: Nanos, ack: &Ack) {
        self.hs.phase = Phase::Established;
        self.hs.deadline = None;
        self.hs.syn_due = false;
        self.hs.ack_due = true;
        self.hs.busy = true;
        if ts_not_older(ack.ts_val, self.ts_recent) {
            self.ts_recent = Some(ack.ts_val);
        }
        // RFC 7323 §2.2: the window field of a SYN-ACK is never scaled.
        self.snd_wnd = (ack.rwnd as u64).min(u16::MAX as u64);
        // `tcp_clean_rtx_queue`: a SYN sent once is timed from its send time; after a
        // retransmission (Karn) only the timestamp echo gives a sample
        // (`tcp_ack_update_rtt` → `tcp_rtt_tsopt_us`, 1 ms ticks).
        let sample = if self.hs.retries == 0 {
            Some(now - self.hs.first_syn)
        } else if ack.ts_ecr != 0 {
            let ticks = ts_clock(now, self.ts_offset_ms).wrapping_sub(ack.ts_ecr);
            Some((ticks.max(1) as Nanos) * cellshare_core::MS)
        } else {
            None
        };
        if let Some(r) = sample {
            self.rtt.on_sample_at(r, r, 0, 0);
            self.stats.rtt_samples += 1;
            self.stats.srtt = self.rtt.srtt();
            self.stats.min_rtt = self.rtt.min_rtt();
            self.stats.latest_rtt = r;
            self.hs.rtt = Some(r);
        }
        if self.hs.retries > 0 {
            self.syn_loss_window(now, ack);
        }
        // `tcp_init_transfer` → `tcp_init_congestion_control` → the controller's `init`.
        self.cc.on_established(&Established {
            now,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            mss: self.mss,
        });
        // `tcp_finish_connect`: `lsndtime = now` (the restart-after-idle clock).
        self.last_send = Some(now);
    }

    /// The window after SYN retransmissions, as Linux: the first SYN timeout went through
    /// `tcp_enter_loss`, which set ssthresh by the controller's rule from the initial window
    /// and armed undo; the SYN-ACK then undoes it if its echo shows the first SYN arrived
    /// (Eifel, `tcp_try_undo_loss` → `tcp_packet_delayed`). Otherwise `tcp_init_transfer`
    /// sets cwnd to 1 segment when more than one SYN retransmission occurred
    /// (`tp->total_retrans > 1 && tp->undo_marker`), else to the initial window; ssthresh
    /// stays reduced.
    fn syn_loss_window(&mut self, now: Nanos, ack: &Ack) {
        let spurious = ack.ts_ecr != 0
            && self
                .hs
                .first_retx_tsval
                .is_some_and(|r| !ts_newer_or_equal(ack.ts_ecr, r));
        if spurious {
            return;
        }
        self.cc.on_timeout(now, self.initial_window, self.mss);
        if self.hs.retries == 1 {
            // `tcp_init_cwnd`: the initial window again; the threshold stays where the
            // timeout put it.
            let ssthresh = self.cc.ssthresh();
            self.cc.undo_cwnd(&UndoEvent {
                now,
                prior_cwnd: self.initial_window,
                prior_ssthresh: ssthresh,
                mss: self.mss,
            });
        }
    }
}
