//! The TCP sender: windows, SACK (RFC 6675 + PRR) and NewReno loss recovery, the
//! retransmission timer, pacing and delivery-rate samples.
//!
//! # SACK-based loss recovery
//!
//! - [`sack`]: the RFC 6675 \[rfc6675\] scoreboard — SACKed, lost and retransmitted
//!   segments, `pipe`, NextSeg's candidate and the lost-retransmission rule — kept in
//!   O(new data) per ACK.
//! - [`prr`]: Proportional Rate Reduction (RFC 6937 \[prr\]), the send quota during
//!   recovery.
//! - Recovery entry and exit, NextSeg's rules and the timeout here, in [`TcpSender`].
//!
//! # Linux's loss recovery on top (each switchable, see [`TcpConfig`])
//!
//! The sender keeps Linux's congestion states for SACK connections: Open (or Disorder),
//! Recovery (`in_recovery`) and Loss (`in_loss`, after a timeout until the cumulative ACK
//! reaches the highest sequence sent before it). Per ACK it follows `tcp_ack` /
//! `tcp_fastretrans_alert`: D-SACK check, scoreboard and RACK updates, the tail-loss-probe
//! check, state exits (with undo), loss detection, recovery entry, then the controller.
//!
//! - [`rack`]: RACK-TLP's time-based loss detection (RFC 8985 §6) replaces IsLost and the
//!   lost-retransmission rule above (`TcpConfig::rack`); with it, only lost segments are
//!   retransmitted (NextSeg rules 1 and 2, as Linux's `tcp_xmit_retransmit_queue`).
//! - [`tlp`]: tail loss probes (RFC 8985 §7).
//! - [`undo`]: D-SACK (RFC 2883), undo of spurious reductions (RFC 3708, Eifel RFC 3522) and
//!   F-RTO (RFC 5682).
//! - Restart after idle (RFC 5681 §4.1) in [`TcpSender::poll_transmit`].
//! - A timeout that repeats before any progress, or that interrupts fast recovery, starts no
//!   new loss episode (Linux `tcp_enter_loss`): the controller keeps its ssthresh
//!   ([`CongestionControl::on_timeout_again`]).

mod handshake;
mod prr;
mod rack;
mod sack;
mod tlp;
mod undo;

use std::collections::VecDeque;

use cellshare_core::{Nanos, SEC};

use crate::cc::{AckEvent, CongestionControl, IdleRestart, LossEvent, RateSample};
use crate::tcp::rate::{PacketRateState, RateEstimator, SampleBuilder};
use crate::tcp::rtt::{RtoEstimator, RttEstimator};
use crate::tcp::{ts_clock, ts_newer_or_equal, ts_not_older, TcpConfig};
use crate::wire::{Ack, Segment};

use handshake::Handshake;
pub use handshake::TCP_SYN_RETRIES;
use prr::Prr;
use rack::{sent_after, Rack};
use sack::Scoreboard;
use tlp::Tlp;
use undo::{Dsack, Undo};

/// Counters and RTT figures kept by a [`TcpSender`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Segments transmitted (new and retransmitted).
    pub segments_sent: u64,
    /// Payload bytes transmitted (new and retransmitted).
    pub bytes_sent: u64,
    /// Segments retransmitted (fast retransmit, partial-ACK, SACK-recovery, after-timeout
    /// and go-back-N retransmissions).
    pub retransmits: u64,
    /// Payload bytes retransmitted.
    pub bytes_retransmitted: u64,
    /// Fast retransmits, i.e. fast-recovery episodes entered on the third duplicate ACK
    /// (or, with SACK, when the scoreboard deems `snd_una` lost).
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Bytes newly SACKed (each SACKed byte counted once).
    pub bytes_sacked: u64,
    /// SACK-based recovery episodes (RFC 6675), a subset of `fast_retransmits`.
    pub sack_recoveries: u64,
    /// Retransmissions detected lost (by SACKs of data sent after them, or by RACK) and
    /// resent again.
    pub lost_retransmits: u64,
    /// Tail loss probes sent (RFC 8985 §7).
    pub loss_probes: u64,
    /// Probes whose retransmission repaired a loss (followed by a window reduction).
    pub loss_probe_recoveries: u64,
    /// Duplicate segments the peer reported by D-SACK (RFC 2883).
    pub dsacks_received: u64,
    /// Window reductions undone as spurious (D-SACK, Eifel, F-RTO).
    pub undos: u64,
    /// Timeouts F-RTO found spurious (RFC 5682).
    pub spurious_timeouts: u64,
    /// Times reordering was observed (Linux `reord_seen`).
    pub reorderings: u64,
    /// Congestion-window restarts after idle (RFC 5681 §4.1).
    pub idle_restarts: u64,
    /// Duplicate ACKs received.
    pub dup_acks: u64,
    /// RTT samples taken (Karn's rule applied).
    pub rtt_samples: u64,
    /// Smoothed RTT (RFC 6298), nanoseconds; 0 before the first sample.
    pub srtt: Nanos,
    /// Smallest RTT sample, nanoseconds; 0 before the first sample.
    pub min_rtt: Nanos,
    /// Most recent RTT sample, nanoseconds; 0 before the first sample.
    pub latest_rtt: Nanos,
}

/// One transmitted, not yet acknowledged segment.
#[derive(Clone, Copy, Debug)]
struct SentSegment {
    seq: u64,
    len: u32,
    /// Time of the latest transmission.
    sent_at: Nanos,
    /// Ordinal of the latest transmission (RACK's "sent after", see [`rack::sent_after`]).
    order: u64,
    /// Time of the first transmission (bookkeeping for the simulator's one-way delay,
    /// which counts a retransmitted segment from its first transmission).
    first_sent_at: Nanos,
    /// Whether it was ever retransmitted (Karn's rule; Linux `TCPCB_EVER_RETRANS`).
    retransmitted: bool,
    /// Delivery state at the latest transmission.
    rate: PacketRateState,
    /// SACK scoreboard: the receiver holds it.
    sacked: bool,
    /// SACK scoreboard: deemed lost (RFC 6675 IsLost, or a timeout).
    lost: bool,
    /// SACK scoreboard: retransmitted since it was last deemed lost (or by NextSeg rules 3
    /// and 4) and presumed in flight; counts in `pipe` (RFC 6675 `HighRxt`).
    retx_out: bool,
}

impl SentSegment {
    fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

/// What [`TcpSender::poll_transmit`] would send next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// Retransmit the segment at `snd_una` (fast retransmit or NewReno partial ACK).
    Hole,
    /// Resend the segment at `snd_nxt` after a timeout (go-back-N).
    GoBackN,
    /// Send `len` new bytes.
    New(u32),
    /// Retransmit the segment with this ring index (SACK: NextSeg rules 1, 3 and 4, and
    /// after-timeout retransmissions).
    Retx(usize),
}

/// What the sender knew when an ACK arrived, for judging each segment it delivers.
#[derive(Clone, Copy, Debug)]
struct AckCtx {
    now: Nanos,
    /// Smallest RTT sample before this ACK (0: none yet).
    min_rtt: Nanos,
    /// The ACK's TSecr and the sender's timestamp offset (to recompute a segment's TSval).
    ts_ecr: u32,
    ts_offset_ms: u32,
    /// Highest SACKed sequence before this ACK (`snd_una` when nothing is SACKed): Linux's
    /// `prior_fack`, for reordering detection.
    prior_fack: u64,
    /// Linux `high_seq` (`recover`): for F-RTO's "sent before the timeout".
    high_seq: u64,
}

/// What an ACK says, judged against the sender's state before it (from
/// [`TcpSender::accept_ack`]).
#[derive(Clone, Copy, Debug)]
struct AckInfo {
    /// Bytes in flight before the ACK (`pipe` with SACK).
    prior_in_flight: u64,
    prior_snd_una: u64,
    /// `snd_max − snd_una` before the ACK.
    outstanding: u64,
    /// Bytes newly acknowledged cumulatively.
    acked: u64,
    /// The advertised window differs from the previous ACK's.
    window_changed: bool,
    /// A duplicate ACK (RFC 5681 §2).
    is_dup: bool,
    /// The first SACK block is a D-SACK (RFC 2883 §4).
    dsack: Option<Dsack>,
}

/// What one ACK newly delivered (cumulatively or by SACK): rate sample, RTT candidate, and
/// the facts RACK, reordering detection and F-RTO need.
#[derive(Debug)]
struct Delivery {
    ctx: AckCtx,
    rs: SampleBuilder,
    /// Latest send time among the newly delivered segments.
    newest: Option<Nanos>,
    /// None of the newly delivered segments was ever retransmitted (Karn).
    karn_ok: bool,
    /// Newly cumulatively acknowledged bytes that had not been SACKed.
    cum_unsacked: u64,
    /// Newly SACKed bytes.
    sacked: u64,
    /// RACK's candidate: (transmission ordinal, RTT) of the most recently sent delivered
    /// segment not ruled out as a possibly spurious retransmission.
    rack: Option<(u64, Nanos)>,
    /// Lowest start of a delivered, never retransmitted segment below `prior_fack`.
    reord_low: Option<u64>,
    /// A delivered segment was never retransmitted and lies below `high_seq` (Linux
    /// `FLAG_ORIG_SACK_ACKED`).
    orig_acked: bool,
    /// Linux's RTT sample sources: send times of the oldest and newest newly cumulatively
    /// acknowledged (not SACKed before) and newly SACKed segments never retransmitted
    /// (`first_ackt`, `last_ackt`, `first_sackt`, `last_sackt`), and whether any
    /// cumulatively acknowledged segment was ever retransmitted (`FLAG_RETRANS_DATA_ACKED`).
    cum_times: Option<(Nanos, Nanos)>,
    sack_times: Option<(Nanos, Nanos)>,
    cum_retx: bool,
}

impl Delivery {
    fn new(ctx: AckCtx) -> Self {
        Self {
            ctx,
            rs: SampleBuilder::default(),
            newest: None,
            karn_ok: true,
            cum_unsacked: 0,
            sacked: 0,
            rack: None,
            reord_low: None,
            orig_acked: false,
            cum_times: None,
            sack_times: None,
            cum_retx: false,
        }
    }

    /// A newly delivered segment: `cum` when the cumulative ACK covers it, else SACKed.
    fn add(&mut self, rate: &mut RateEstimator, s: &SentSegment, cum: bool) {
        if cum {
            self.cum_retx |= s.retransmitted;
        }
        if !s.retransmitted {
            let t = if cum {
                &mut self.cum_times
            } else {
                &mut self.sack_times
            };
            *t = Some(t.map_or((s.sent_at, s.sent_at), |(a, b)| {
                (a.min(s.sent_at), b.max(s.sent_at))
            }));
        }
        self.karn_ok &= !s.retransmitted;
        self.newest = Some(self.newest.map_or(s.sent_at, |t| t.max(s.sent_at)));
        rate.on_segment_delivered(&mut self.rs, s.rate, s.sent_at, s.end());
        let c = &self.ctx;
        let rtt = c.now.saturating_sub(s.sent_at);
        if s.retransmitted {
            // RFC 8985 §6.2 step 2 (Linux `tcp_rack_advance`, `tcp_skb_spurious_retrans`):
            // the delivery may be the original's. Not a RACK sample when the ACK echoes a
            // timestamp older than the retransmission, or the RTT is below the minimum.
            let echo_older =
                c.ts_ecr != 0 && !ts_newer_or_equal(c.ts_ecr, ts_clock(s.sent_at, c.ts_offset_ms));
            if echo_older || c.min_rtt == 0 || rtt < c.min_rtt {
                return;
            }
        } else {
            if s.seq < c.prior_fack {
                self.reord_low = Some(self.reord_low.map_or(s.seq, |l| l.min(s.seq)));
            }
            if s.end() <= c.high_seq {
                self.orig_acked = true;
            }
        }
        if self.rack.is_none_or(|(o, _)| sent_after(s.order, o)) {
            self.rack = Some((s.order, rtt));
        }
    }

    /// RTT sample: `now` minus the latest send time of the newly delivered segments, or
    /// `None` if any of them was ever retransmitted (Karn's rule, RFC 6298 §3; Linux
    /// `FLAG_RETRANS_DATA_ACKED`). Previously SACKed segments are not "newly delivered",
    /// so a cumulative ACK after SACKs does not yield an inflated sample.
    fn rtt(&self, now: Nanos) -> Option<Nanos> {
        self.newest
            .filter(|_| self.karn_ok)
            .map(|t| now.saturating_sub(t))
    }

    /// Linux `tcp_clean_rtx_queue` + `tcp_ack_update_rtt`: `(ca_rtt, seq_rtt)` — the sample
    /// for the controller and the minimum (most recently sent segment) and the one for SRTT
    /// (oldest segment): from cumulatively acknowledged data unless any of it was
    /// retransmitted, else from newly SACKed data, else, when the ACK acknowledged data,
    /// from the timestamp echo (RFC 7323 §4, at least one clock tick).
    fn linux_rtt(
        &self,
        now: Nanos,
        acked: bool,
        ts_ecr: u32,
        ts_offset_ms: u32,
    ) -> Option<(Nanos, Nanos)> {
        let age = |t: Nanos| now.saturating_sub(t);
        let mut out = self
            .cum_times
            .filter(|_| !self.cum_retx)
            .map(|(first, last)| (age(last), age(first)));
        if let Some((first, last)) = self.sack_times {
            out = Some((age(last), out.map_or(age(first), |(_, seq)| seq)));
        }
        if out.is_none() && acked && ts_ecr != 0 {
            let ticks = ts_clock(now, ts_offset_ms).wrapping_sub(ts_ecr);
            if (ticks as i32) >= 0 {
                let r = (ticks.max(1) as Nanos) * cellshare_core::MS;
                out = Some((r, r));
            }
        }
        out
    }
}

/// The sending end of one TCP connection (sans-I/O).
///
/// See the [module documentation](crate::tcp) for the rules it implements. Sequence numbers
/// start at 0 and count payload bytes only (no SYN/FIN).
#[derive(Debug)]
pub struct TcpSender {
    mss: u32,
    dupack_threshold: u32,
    limited_transmit: bool,
    /// `TcpConfig::sack`: we offer SACK.
    sack_enabled: bool,
    /// `TcpConfig::prr`.
    prr_enabled: bool,
    /// `TcpConfig::{rack, tlp, frto, undo, slow_start_after_idle}` (the first four act on
    /// SACK connections only).
    rack_enabled: bool,
    tlp_enabled: bool,
    frto_enabled: bool,
    undo_enabled: bool,
    idle_restart_enabled: bool,
    /// Initial window, bytes (RFC 5681's restart window bound).
    initial_window: u64,
    /// `TcpConfig::min_rto` (the PTO's delayed-ACK allowance).
    min_rto: Nanos,
    /// `CONFIG_HZ` of the timers ([`TcpConfig::timer_hz`]).
    timer_hz: u32,
    ts_offset_ms: u32,
    cc: Box<dyn CongestionControl>,
    rtt: RttEstimator,
    rate: RateEstimator,
    /// Oldest unacknowledged byte.
    snd_una: u64,
    /// Next byte to (re)transmit; below `snd_max` only during go-back-N after a timeout.
    snd_nxt: u64,
    /// One past the highest byte ever sent.
    snd_max: u64,
    /// One past the last byte the application has written.
    app_end: u64,
    /// Peer's advertised window.
    snd_wnd: u64,
    /// Segments in `[snd_una, snd_max)`, in sequence order.
    segments: VecDeque<SentSegment>,
    /// Consecutive duplicate ACKs.
    dupacks: u32,
    in_recovery: bool,
    /// Linux `TCP_CA_Loss`: a timeout's loss episode, until the cumulative ACK reaches
    /// `recover`.
    in_loss: bool,
    /// Timeouts since `snd_una` last advanced (Linux `icsk_retransmits`).
    rto_repeats: u32,
    /// RFC 6582 `recover`, exclusive: one past the highest byte sent when recovery (or a
    /// timeout) started. Fast retransmit needs `ack >= recover`.
    recover: u64,
    /// Bytes added to (positive) or taken from (negative) the controller's cwnd during fast
    /// recovery (RFC 5681 §3.2 inflation, RFC 6582 deflation).
    inflation: i64,
    /// Whether this recovery episode has seen a partial ACK (RFC 6582 "impatient" timer).
    partial_ack_seen: bool,
    /// The hole at `snd_una` must be retransmitted (at once, whatever the window).
    hole_pending: bool,
    /// The SACK scoreboard (RFC 6675).
    board: Scoreboard,
    /// RACK state (RFC 8985 §6) and the reordering timer.
    rack: Rack,
    reo_deadline: Option<Nanos>,
    /// Tail loss probe state (RFC 8985 §7).
    tlp: Tlp,
    /// Undo and F-RTO state.
    undo: Undo,
    /// When data was last sent (Linux `lsndtime`), for the restart after idle.
    last_send: Option<Nanos>,
    /// Transmissions so far: the next one's ordinal.
    xmit_count: u64,
    /// RFC 6675 RescueRxt (exclusive end): rule 4 may fire once `snd_una` passes it.
    rescue_point: u64,
    /// PRR (RFC 6937) during SACK recovery.
    prr: Prr,
    /// Bytes sent under Limited Transmit since the last new ACK (excluded from FlightSize).
    limited_bytes: u64,
    rto_deadline: Option<Nanos>,
    /// Earliest time the pacer releases the next segment.
    next_release: Nanos,
    /// Latest receiver TSval seen (echoed as TSecr).
    ts_recent: Option<u32>,
    /// The three-way handshake (`TcpConfig::handshake`).
    hs: Handshake,
    stats: SenderStats,
}

impl TcpSender {
    /// A sender with congestion controller `cc` (built with
    /// [`TcpConfig::initial_window_bytes`] as its initial window) whose timestamp clock runs
    /// `ts_offset_ms` ahead of `now / MS`. Until the first ACK, the peer window is
    /// `cfg.rwnd.initial_window()` (what the handshake would have announced).
    pub fn new(
        cfg: &TcpConfig,
        cc: Box<dyn CongestionControl>,
        now: Nanos,
        ts_offset_ms: u32,
    ) -> Self {
        Self {
            mss: cfg.mss,
            dupack_threshold: cfg.dupack_threshold.max(1),
            limited_transmit: cfg.limited_transmit,
            sack_enabled: cfg.sack,
            prr_enabled: cfg.prr,
            rack_enabled: cfg.sack && cfg.rack,
            tlp_enabled: cfg.sack && cfg.tlp,
            frto_enabled: cfg.sack && cfg.frto,
            undo_enabled: cfg.sack && cfg.undo,
            idle_restart_enabled: cfg.slow_start_after_idle,
            initial_window: cfg.initial_window_bytes(),
            min_rto: cfg.min_rto(),
            timer_hz: cfg.timer_hz,
            ts_offset_ms,
            cc,
            rtt: RttEstimator::with_algorithm(
                cfg.rto_estimator,
                cfg.min_rto(),
                cfg.initial_rto(),
                cfg.max_rto(),
            ),
            rate: RateEstimator::new(now),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 0,
            snd_wnd: cfg.rwnd.initial_window() as u64,
            segments: VecDeque::with_capacity(64),
            dupacks: 0,
            in_recovery: false,
            in_loss: false,
            rto_repeats: 0,
            recover: 0,
            inflation: 0,
            partial_ack_seen: false,
            hole_pending: false,
            board: Scoreboard::new(),
            rack: Rack::new(cfg.dupack_threshold.max(1)),
            reo_deadline: None,
            tlp: Tlp::default(),
            undo: Undo::default(),
            last_send: None,
            xmit_count: 0,
            rescue_point: 0,
            prr: Prr::default(),
            limited_bytes: 0,
            rto_deadline: None,
            next_release: 0,
            ts_recent: None,
            hs: Handshake::new(cfg.handshake),
            stats: SenderStats::default(),
        }
    }

    /// The application hands `bytes` more bytes to send (saturating: `u64::MAX` means an
    /// endless bulk transfer).
    pub fn write(&mut self, bytes: u64) {
        self.app_end = self.app_end.saturating_add(bytes);
    }

    /// One past the last byte the application has written.
    pub fn written(&self) -> u64 {
        self.app_end
    }

    /// The application stops writing: bytes written but never sent are discarded, bytes
    /// already sent are still delivered (and retransmitted if lost). Models an on/off
    /// source whose socket buffer holds only what is in flight.
    pub fn stop_writing(&mut self) {
        self.app_end = self.app_end.min(self.snd_max);
    }

    /// Bytes in flight. Without SACK: `snd_nxt − snd_una` (after a timeout, bytes not yet
    /// resent by go-back-N count as lost, not in flight). With SACK in use: the RFC 6675
    /// `pipe` estimate, outstanding bytes minus SACKed and lost ones plus retransmissions
    /// presumed in flight. This is also `AckEvent::{bytes_in_flight, prior_in_flight}`.
    pub fn bytes_in_flight(&self) -> u64 {
        if self.sack_active() {
            self.pipe()
        } else {
            self.snd_nxt - self.snd_una
        }
    }

    /// Whether SACK-based recovery is in use (`TcpConfig::sack`: both endpoints of a
    /// connection are built from one configuration, so SACK-permitted was exchanged in the
    /// handshake as Linux's `tcp_sack` would).
    pub fn sack_active(&self) -> bool {
        self.sack_enabled
    }

    /// Window the sender currently honours. Without SACK: `cc.cwnd()` plus fast-recovery
    /// inflation (or the Limited Transmit allowance). With SACK: `cc.cwnd()`, compared with
    /// `pipe`; during recovery with PRR, `pipe` plus what PRR still allows (as Linux sets
    /// `snd_cwnd = in_flight + sndcnt`).
    pub fn cwnd(&self) -> u64 {
        if self.sack_active() {
            return if self.in_recovery && self.prr_enabled {
                self.pipe() + self.prr.quota()
            } else {
                self.cc.cwnd()
            };
        }
        let base = self.cc.cwnd().min(i64::MAX as u64) as i64;
        let extra = if self.in_recovery {
            self.inflation
        } else if self.limited_transmit
            && self.dupacks > 0
            && self.dupacks < self.dupack_threshold
            && self.snd_nxt == self.snd_max
        {
            // RFC 3042: each of the first two duplicate ACKs releases one new segment.
            self.dupacks.min(2) as i64 * self.mss as i64
        } else {
            0
        };
        base.saturating_add(extra).max(0) as u64
    }

    /// What would be sent next, ignoring pacing.
    fn next(&self) -> Option<Next> {
        if self.sack_active() {
            self.next_sack()
        } else {
            self.next_newreno()
        }
    }

    fn next_newreno(&self) -> Option<Next> {
        if self.hole_pending {
            // RFC 5681 §3.2 step 2 / RFC 6582 §3.2 step 3: retransmit at once, whatever cwnd.
            return Some(Next::Hole);
        }
        let flight = self.bytes_in_flight();
        let window = self.cwnd();
        // At least one segment may always be in flight, whatever the controller says.
        let fits = |len: u64| flight == 0 || flight + len <= window;
        if self.snd_nxt < self.snd_max {
            let len = self.segments[self.index_of(self.snd_nxt)].end() - self.snd_nxt;
            return fits(len).then_some(Next::GoBackN);
        }
        let len = self.new_data_len(flight == 0)?;
        fits(len as u64).then_some(Next::New(len))
    }

    /// Length of the next new segment as the data, the receiver window and the controller
    /// ([`CongestionControl::paused`]) allow. `nothing_outstanding` permits a partial segment
    /// for a window below one MSS.
    fn new_data_len(&self, nothing_outstanding: bool) -> Option<u32> {
        let avail = self.app_end - self.snd_nxt;
        if avail == 0 || self.cc.paused() {
            return None;
        }
        let mut len = avail.min(self.mss as u64);
        let room = (self.snd_una + self.snd_wnd).saturating_sub(self.snd_nxt);
        if len > room {
            // Receiver window: never more than rwnd beyond snd_una. Sender-side silly window
            // avoidance (RFC 9293 §3.8.6.2.1): a partial segment only when nothing is
            // outstanding, so a window smaller than one MSS cannot deadlock.
            if nothing_outstanding && room > 0 {
                len = room;
            } else {
                return None;
            }
        }
        Some(len as u32)
    }

    /// RFC 6675 §4 NextSeg() with the §5 sending rule (or PRR's quota in recovery). With
    /// RACK only rules 1 and 2 apply (Linux retransmits only segments marked lost; tail
    /// losses are the probe's), and F-RTO's step 2.b puts new data first.
    fn next_sack(&self) -> Option<Next> {
        if self.hole_pending {
            // RFC 6675 §5 (4.3): the first retransmission goes at once, whatever the window
            // (with RACK: the first lost segment, at recovery entry or after a timeout).
            if !self.rack_enabled {
                return Some(Next::Hole);
            }
            if let Some(i) = self.retx_candidate().filter(|&i| self.segments[i].lost) {
                return Some(Next::Retx(i));
            }
        }
        let pipe = self.pipe();
        let outstanding = self.snd_max - self.snd_una;
        let cwnd = self.cc.cwnd();
        // Before recovery, sending against `pipe` is RFC 6675's Limited Transmit (§5 step
        // 1); without Limited Transmit the whole outstanding data counts until a loss.
        let flight = if !self.limited_transmit && !self.in_recovery && self.board.lost_bytes == 0 {
            outstanding
        } else {
            pipe
        };
        let fits = |len: u64| {
            // At least one segment may always be in flight, whatever the controller says.
            pipe == 0
                || if self.in_recovery && self.prr_enabled {
                    len <= self.prr.quota()
                } else {
                    flight + len <= cwnd
                }
        };
        // NextSeg's candidate (rules 1 and 3) only matters with a lost segment, or for rule 3
        // in RFC 6675 recovery: no search otherwise.
        let cand = if self.board.lost_bytes > 0 || (self.in_recovery && !self.rack_enabled) {
            self.retx_candidate()
        } else {
            None
        };
        if self.undo.frto_new_data {
            // RFC 5682 §3.1 step 2.b: new data, as the window allows, instead of
            // retransmissions; once some went out, nothing else until the next ACK.
            if let Some(len) = self.new_data_len(outstanding == 0) {
                return fits(len as u64).then_some(Next::New(len));
            }
            if self.snd_max > self.recover {
                return None;
            }
        }
        // Rule 1: the first lost, unSACKed segment not yet retransmitted.
        if let Some(i) = cand.filter(|&i| self.segments[i].lost) {
            return fits(self.segments[i].len as u64).then_some(Next::Retx(i));
        }
        // Rule 2: new data, if the application, the receiver window and the controller allow.
        if let Some(len) = self.new_data_len(outstanding == 0) {
            return fits(len as u64).then_some(Next::New(len));
        }
        if !self.in_recovery || self.rack_enabled {
            return None;
        }
        // Rule 3: an unSACKed hole below the highest SACK, not yet deemed lost.
        if let Some(i) = cand.filter(|&i| self.segments[i].end() <= self.board.high_sacked) {
            return fits(self.segments[i].len as u64).then_some(Next::Retx(i));
        }
        // Rule 4: one rescue retransmission per episode of the tail, when it is unSACKed
        // (if the last segment is SACKed, every unSACKed byte lies below HighSACK and is
        // rule 3's or already retransmitted).
        if self.snd_una > self.rescue_point {
            let i = self.segments.len().checked_sub(1)?;
            let s = &self.segments[i];
            if !s.sacked && !s.retx_out && s.end() > self.board.high_sacked {
                return fits(s.len as u64).then_some(Next::Retx(i));
            }
        }
        None
    }

    /// Index in `segments` of the segment containing byte `seq` (`segments.len()` at or
    /// beyond `snd_max`, 0 below `snd_una`): the first segment whose end lies above `seq`.
    ///
    /// The ring is contiguous (`check_scoreboard`) and, for a bulk sender, every segment but
    /// a partly acknowledged head is one MSS long, so the index is arithmetic: one guess
    /// from the head's end, checked against the guessed segment's bounds (a single ring
    /// access instead of a binary search's log₂(n) scattered ones — the latter was 14.5 % of
    /// the samples of 300 simulated s of the 100-UE benchmark, `perf record`). Short segments (application- or
    /// receiver-window-limited) break the arithmetic; the check then fails and the binary
    /// search answers. Either way the answer is the same index.
    #[inline]
    fn index_of(&self, seq: u64) -> usize {
        let Some(head) = self.segments.front() else {
            return 0;
        };
        let head_end = head.end();
        if seq < head_end {
            return 0;
        }
        if self.segments.back().is_some_and(|s| s.end() <= seq) {
            return self.segments.len();
        }
        let guess = 1 + ((seq - head_end) / self.mss as u64) as usize;
        if let Some(s) = self.segments.get(guess) {
            // Segments are contiguous and non-empty: `s` holds `seq` exactly when the
            // search's predicate flips at `guess`.
            if s.seq <= seq && seq < s.end() {
                return guess;
            }
        }
        self.segments.partition_point(|s| s.end() <= seq)
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.cc.pacing_rate().filter(|r| r.is_finite() && *r > 0.0)
    }

    /// Whether [`TcpSender::poll_transmit`] at `now` would return a segment, without sending
    /// it (for a caller that delays its transmissions, e.g. DTPA's TX period).
    pub fn can_transmit(&self, now: Nanos) -> bool {
        if self.hs.busy && (!self.established() || self.handshake_due()) {
            return self.handshake_due();
        }
        !(self.pacing_rate().is_some() && now < self.next_release) && self.next().is_some()
    }

    /// The next segment to put on the wire at `now`, if the windows and the pacer allow.
    /// Call in a loop until `None` (and after every [`TcpSender::on_timeout`]);
    /// retransmissions come first.
    pub fn poll_transmit(&mut self, now: Nanos) -> Option<Segment> {
        if self.hs.busy {
            // The handshake's segments first; no data before the SYN-ACK.
            if let Some(seg) = self.handshake_transmit(now) {
                return Some(seg);
            }
            if !self.established() {
                return None;
            }
        }
        if self.tlp.pending {
            // RFC 8985 §7.3: the probe goes whatever cwnd and the pacer say.
            if let Some(seg) = self.send_probe(now) {
                return Some(seg);
            }
        }
        if self.pacing_rate().is_some() && now < self.next_release {
            return None;
        }
        if self.idle_restart_enabled && self.snd_una == self.snd_max && self.app_end > self.snd_nxt
        {
            self.check_idle_restart(now);
        }
        let Some(next) = self.next() else {
            self.check_app_limited();
            return None;
        };
        if self.undo.frto_new_data && !matches!(next, Next::New(_)) {
            // F-RTO step 2.b found no new data to send: conventional recovery (Linux
            // `tcp_xmit_recovery` clears `frto`).
            self.undo.frto_new_data = false;
            self.undo.frto = false;
        }
        let seg = self.transmit(now, next);
        if matches!(next, Next::New(_))
            && self.tlp_enabled
            && !(self.tlp.armed_at == Some(now) && self.segments.len() > 2)
        {
            // RFC 8985 §7.2: re-arm the probe timer after new data (once per burst: the
            // rest of a burst sent at the same instant would arm the same deadline).
            self.schedule_tlp(now, false);
        }
        Some(seg)
    }

    /// RFC 5681 §4.1 (Linux `tcp_slow_start_after_idle_check`): new data with nothing in
    /// flight after more than an RTO without sending restarts the window.
    fn check_idle_restart(&mut self, now: Nanos) {
        let Some(last) = self.last_send else { return };
        let idle = now.saturating_sub(last);
        let rto = self.rtt.rto();
        if idle > rto {
            self.cc.on_idle_restart(&IdleRestart {
                now,
                idle,
                rto,
                initial_window: self.initial_window,
                mss: self.mss,
            });
            self.stats.idle_restarts += 1;
            // Once per idle period, even if the segment does not go at once.
            self.last_send = Some(now);
        }
    }

    /// Sends the tail loss probe (Linux `tcp_send_loss_probe`): a new segment if the
    /// application and the receive window allow, else the highest segment again.
    fn send_probe(&mut self, now: Nanos) -> Option<Segment> {
        self.tlp.pending = false;
        if self.snd_una == self.snd_max {
            return None;
        }
        let next = match self.new_data_len(false) {
            Some(len) => Next::New(len),
            None => {
                let i = self.segments.len().checked_sub(1)?;
                if self.segments[i].sacked {
                    return None;
                }
                Next::Retx(i)
            }
        };
        let seg = self.transmit(now, next);
        self.tlp_sent(now, seg.retransmit);
        Some(seg)
    }

    /// Puts `next` on the wire at `now`.
    fn transmit(&mut self, now: Nanos, next: Next) -> Segment {
        let nothing_outstanding = self.snd_una == self.snd_max;
        self.xmit_count += 1;
        let order = self.xmit_count;
        let snapshot = self.rate.on_send(now, nothing_outstanding);
        let (seq, len, retransmit) = match next {
            Next::Hole => {
                self.hole_pending = false;
                self.retransmit(0, now, order, snapshot)
            }
            Next::Retx(i) => {
                self.hole_pending = false;
                self.retransmit(i, now, order, snapshot)
            }
            Next::GoBackN => {
                let i = self.index_of(self.snd_nxt);
                let seq = self.snd_nxt;
                let s = &mut self.segments[i];
                s.sent_at = now;
                s.order = order;
                s.retransmitted = true;
                s.rate = snapshot;
                let len = (s.end() - seq) as u32;
                self.snd_nxt = s.end();
                (seq, len, true)
            }
            Next::New(len) => {
                let seq = self.snd_nxt;
                // Limited Transmit data (sent beyond cwnd on duplicate ACKs) is excluded
                // from the FlightSize that sets ssthresh (RFC 3042 §2, RFC 5681 §3.2).
                if !self.in_recovery
                    && self.dupacks > 0
                    && self.snd_max - self.snd_una + len as u64 > self.cc.cwnd()
                {
                    self.limited_bytes += len as u64;
                }
                self.segments.push_back(SentSegment {
                    seq,
                    len,
                    sent_at: now,
                    order,
                    first_sent_at: now,
                    retransmitted: false,
                    rate: snapshot,
                    sacked: false,
                    lost: false,
                    retx_out: false,
                });
                self.snd_nxt += len as u64;
                self.snd_max = self.snd_nxt;
                (seq, len, false)
            }
        };
        if self.in_recovery && self.sack_active() {
            self.prr.on_sent(len as u64);
        }
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if retransmit {
            self.stats.retransmits += 1;
            self.stats.bytes_retransmitted += len as u64;
            self.note_retransmission(now);
        }
        self.last_send = Some(now);
        if let Some(rate) = self.pacing_rate() {
            // Linux tcp_update_skb_after_send: release time advances by len / rate.
            let gap = (len as f64 * SEC as f64 / rate).ceil() as Nanos;
            self.next_release = self.next_release.max(now).saturating_add(gap);
        }
        if self.rto_deadline.is_none() {
            // RFC 6298 §5.1: start the timer when sending data and it is not running.
            self.restart_rto(now);
        } else if retransmit
            && seq == self.snd_una
            && self.sack_active()
            && self.rtt.algorithm() == RtoEstimator::Linux
        {
            // Linux `tcp_xmit_retransmit_queue`: resending the head restarts the timer, so
            // the RTO counts from the head's latest transmission.
            self.restart_rto(now);
        }
        self.cc.on_sent(now, len, self.bytes_in_flight());
        #[cfg(test)]
        self.check_scoreboard();
        Segment {
            seq,
            len,
            ts_val: ts_clock(now, self.ts_offset_ms),
            ts_ecr: self.ts_recent.unwrap_or(0),
            retransmit,
            syn: false,
        }
    }

    /// When the bytes at `seq` were first transmitted, while they are outstanding (for a
    /// retransmission just returned by [`TcpSender::poll_transmit`]: the time its first copy
    /// left).
    pub fn first_sent_of(&self, seq: u64) -> Option<Nanos> {
        let i = self.index_of(seq);
        self.segments
            .get(i)
            .filter(|s| s.seq <= seq)
            .map(|s| s.first_sent_at)
    }

    /// Resends the whole segment at ring index `i`; returns `(seq, len, true)`.
    fn retransmit(
        &mut self,
        i: usize,
        now: Nanos,
        order: u64,
        snapshot: PacketRateState,
    ) -> (u64, u32, bool) {
        let sack = self.sack_active();
        let s = &mut self.segments[i];
        s.sent_at = now;
        s.order = order;
        s.retransmitted = true;
        s.rate = snapshot;
        let (seq, len) = (s.seq, s.len);
        if sack && !s.sacked && !s.retx_out {
            s.retx_out = true;
            self.board.retx_bytes += len as u64;
            if s.lost || self.rack_enabled {
                self.board.retx_queue.push_back((seq, self.snd_max, order));
            }
            if seq == self.board.retx_next {
                self.advance_retx_next();
            }
        }
        (seq, len, true)
    }

    /// Linux `tcp_rate_check_app_limited`: nothing left to send, window not full, no loss
    /// being repaired → mark the delivery-rate samples that follow as application-limited.
    fn check_app_limited(&mut self) {
        let flight = self.bytes_in_flight();
        let lost_pending = self.sack_active()
            && self.board.lost_bytes > 0
            && self.retx_candidate().is_some_and(|i| self.segments[i].lost);
        if self.snd_nxt == self.app_end
            && self.snd_nxt == self.snd_max
            && !self.hole_pending
            && !lost_pending
            && !self.in_recovery
            && flight < self.cc.cwnd()
        {
            self.rate.mark_app_limited(flight);
        }
    }

    /// Processes an arriving ACK, step by step as Linux's `tcp_ack`: accept it (range,
    /// timestamp, window, D-SACK), update the scoreboard, take the RTT and delivery-rate
    /// samples, advance RACK, handle the cumulative ACK (timer, NewReno's partial ACKs),
    /// detect losses and run the recovery state machine (with PRR's send quota), inform the
    /// controller, then re-arm the tail loss probe.
    pub fn on_ack(&mut self, now: Nanos, ack: &Ack) {
        if (self.hs.busy || ack.syn) && self.handshake_ack(now, ack) {
            return;
        }
        let Some(info) = self.accept_ack(ack) else {
            return;
        };
        let sack = self.sack_active();
        let mut dl = Delivery::new(self.ack_ctx(now, ack));
        self.update_scoreboard(ack, &info, &mut dl);
        let rtt_sample = self.take_rtt_sample(now, ack, info.acked, &dl);
        let rate_sample = self.take_rate_sample(now, info.acked, &dl);
        if self.rack_enabled {
            self.rack_on_delivery(&dl);
        }

        let mut ends_recovery = false;
        if info.acked > 0 {
            ends_recovery = self.on_new_ack(now, ack, info.acked);
        } else if sack && self.rtt.algorithm() == RtoEstimator::Linux && self.rto_deadline.is_some()
        {
            self.restart_rto_on_sack(now, &dl);
        }
        if info.is_dup {
            self.stats.dup_acks += 1;
        }
        let mut reenter = false;
        if sack {
            ends_recovery = self.sack_recovery_step(now, ack, &info, &dl, &mut reenter);
            if self.in_recovery && self.prr_enabled {
                // RFC 6937: what this ACK lets the sender send.
                let delivered = dl.cum_unsacked + dl.sacked;
                self.prr
                    .on_ack(delivered, self.cc.cwnd(), self.pipe(), self.mss);
            }
        } else if info.is_dup {
            self.newreno_dupack(now, ack.ack, info.outstanding);
        }

        self.cc_on_ack(now, ack, &info, rtt_sample, rate_sample, ends_recovery);
        if reenter && !self.in_recovery && !self.in_loss && self.time_to_recover(ack.ack) {
            // RACK found losses above the recovery point that just ended: a new episode
            // (Linux enters it on the same ACK, after the exit).
            let pipe = self.pipe();
            self.enter_sack_recovery(now, pipe);
        }
        if self.tlp_enabled {
            if info.acked > 0 {
                self.schedule_tlp(now, true);
            } else if self.tlp.deadline.is_some() && !self.tlp_allowed() {
                self.tlp.deadline = None;
            }
        }
        #[cfg(test)]
        self.check_scoreboard();
    }

    /// Step 1 of [`TcpSender::on_ack`]: ignores an ACK outside `[snd_una, snd_max]`; else
    /// records its timestamp and window, checks for a D-SACK and returns what it says
    /// against the state before it.
    fn accept_ack(&mut self, ack: &Ack) -> Option<AckInfo> {
        if ack.ack > self.snd_max || ack.ack < self.snd_una {
            // RFC 9293 §3.10.7.4: ignore ACKs of unsent data and old ACKs.
            return None;
        }
        // RFC 7323 §4.3: remember the newest peer TSval, echoed as TSecr (PAWS, §5.3).
        if ts_not_older(ack.ts_val, self.ts_recent) {
            self.ts_recent = Some(ack.ts_val);
        }
        // F-RTO's "new data first" holds for the ACK that asked for it only (Linux's
        // per-ACK `rexmit`).
        self.undo.frto_new_data = false;
        let prior_in_flight = self.bytes_in_flight();
        let prior_snd_una = self.snd_una;
        let outstanding = self.snd_max - self.snd_una;
        let acked = ack.ack - self.snd_una;
        let rwnd = ack.rwnd as u64;
        let window_changed = rwnd != self.snd_wnd;
        // RFC 5681 §2 "duplicate acknowledgment": (a) data outstanding, (b)-(c) a pure ACK,
        // (d) acknowledges snd_una, (e) the same advertised window.
        let is_dup = acked == 0 && outstanding > 0 && !window_changed;
        self.snd_wnd = rwnd;
        // RFC 2883 §4: a duplicate reported in the first SACK block.
        let dsack = if self.sack_active() {
            self.check_dsack(ack, prior_snd_una)
        } else {
            None
        };
        Some(AckInfo {
            prior_in_flight,
            prior_snd_una,
            outstanding,
            acked,
            window_changed,
            is_dup,
            dsack,
        })
    }

    /// What the sender knows as `ack` arrives at `now`, for judging what it delivers.
    fn ack_ctx(&self, now: Nanos, ack: &Ack) -> AckCtx {
        AckCtx {
            now,
            min_rtt: self.rtt.min_rtt(),
            ts_ecr: ack.ts_ecr,
            ts_offset_ms: self.ts_offset_ms,
            prior_fack: if self.board.sacked_segs > 0 {
                self.board.high_sacked
            } else {
                self.snd_una
            },
            high_seq: self.recover,
        }
    }

    /// Step 2: the cumulative ACK and the SACK blocks update the ring and the scoreboard;
    /// what they newly delivered goes to `dl`.
    fn update_scoreboard(&mut self, ack: &Ack, info: &AckInfo, dl: &mut Delivery) {
        if info.acked > 0 {
            self.take_acked(ack.ack, dl);
        }
        if self.sack_active() {
            self.apply_sack(ack, info.dsack.is_some(), dl);
            if let Some(d) = info.dsack {
                self.dsack_above_una(d);
            }
        }
    }

    /// Step 3: the ACK's RTT sample (RFC 6298 with Karn's rule, or Linux's sources) goes to
    /// the estimator; returns the controller's sample.
    fn take_rtt_sample(
        &mut self,
        now: Nanos,
        ack: &Ack,
        acked: u64,
        dl: &Delivery,
    ) -> Option<Nanos> {
        let (rtt_sample, srtt_sample) = match self.rtt.algorithm() {
            RtoEstimator::Rfc6298 => {
                let r = dl.rtt(now);
                (r, r)
            }
            RtoEstimator::Linux => {
                match dl.linux_rtt(now, acked > 0, ack.ts_ecr, self.ts_offset_ms) {
                    Some((ca, seq)) => (Some(ca), Some(seq)),
                    None => (None, None),
                }
            }
        };
        if let Some(r) = srtt_sample {
            self.rtt
                .on_sample_at(r, rtt_sample.unwrap_or(r), self.snd_una, self.snd_max);
            self.stats.rtt_samples += 1;
            self.stats.srtt = self.rtt.srtt();
            self.stats.min_rtt = self.rtt.min_rtt();
            self.stats.latest_rtt = r;
        }
        rtt_sample
    }

    /// Step 4: the delivery-rate sample of what the ACK delivered (SACKed bytes count
    /// with SACK; duplicate ACKs count as delivered segments without it).
    fn take_rate_sample(&mut self, now: Nanos, acked: u64, dl: &Delivery) -> Option<RateSample> {
        if self.sack_active() {
            if acked > 0 || dl.sacked > 0 {
                self.rate.on_sack_delivery(now, dl.cum_unsacked, dl.sacked);
                return self.rate.generate(&dl.rs, now, self.rtt.min_rtt());
            }
        } else if acked > 0 {
            self.rate.on_cumulative_ack(now, acked, self.mss);
            return self.rate.generate(&dl.rs, now, self.rtt.min_rtt());
        }
        None
    }

    /// Step 5, with RACK: RFC 8985 §6.2 steps 2-4 (Linux `tcp_rack_advance`,
    /// `tcp_check_sack_reordering`, `tcp_rack_update_reo_wnd`).
    fn rack_on_delivery(&mut self, dl: &Delivery) {
        if let Some((o, r)) = dl.rack {
            self.rack.advance(o, r);
        }
        if let Some(low) = dl
            .reord_low
            .filter(|_| !self.in_loss || self.undo.marker.is_some())
        {
            self.rack_check_reordering(low);
        }
        self.rack
            .update_reo_wnd(dl.rs.prior_delivered(), self.rate.delivered());
    }

    /// Step 6: `acked` new bytes cumulatively acknowledged — the retransmission timer
    /// (RFC 6298 §5.2–5.3) and, without SACK, NewReno's partial and full acknowledgments
    /// (RFC 6582 §3.2). Returns whether NewReno's fast recovery ends on this ACK (the
    /// controller is told after its `on_ack`).
    fn on_new_ack(&mut self, now: Nanos, ack: &Ack, acked: u64) -> bool {
        let sack = self.sack_active();
        let mut ends_recovery = false;
        self.snd_nxt = self.snd_nxt.max(self.snd_una);
        self.stats.bytes_acked += acked;
        self.dupacks = 0;
        self.limited_bytes = 0;
        self.hole_pending = false;
        self.rto_repeats = 0;
        let mut restart_timer = true;
        if self.in_recovery && !sack {
            if ack.ack >= self.recover {
                // RFC 6582 §3.2 step 3: full acknowledgment, exit (after the controller
                // has seen this ACK as part of recovery), cwnd = ssthresh.
                ends_recovery = true;
            } else {
                // Partial acknowledgment: retransmit the next hole, deflate by the
                // amount acknowledged, add back one SMSS if at least one SMSS was
                // acknowledged; reset the timer on the first partial ACK only.
                self.hole_pending = true;
                let add_back = if acked >= self.mss as u64 {
                    self.mss as i64
                } else {
                    0
                };
                self.inflation = self.inflation - acked.min(i64::MAX as u64) as i64 + add_back;
                restart_timer = !self.partial_ack_seen;
                self.partial_ack_seen = true;
            }
            // With SACK a partial ACK needs nothing special: the scoreboard says what
            // is lost, and the timer restarts as on any new ACK (RFC 6298 §5.3).
        }
        if !sack && self.in_loss && ack.ack >= self.recover {
            self.in_loss = false;
        }
        if self.snd_una == self.snd_max {
            // RFC 6298 §5.2: all data acknowledged, stop the timer.
            self.rto_deadline = None;
        } else if restart_timer {
            // RFC 6298 §5.3: new data acknowledged, restart the timer.
            self.restart_rto(now);
        }
        ends_recovery
    }

    /// Step 6 without new data acknowledged, with SACK and Linux's timer: Linux
    /// `tcp_clean_rtx_queue` (`FLAG_SET_XMIT_TIMER`): a SACK of data sent before the head's
    /// latest transmission restarts the timer; the head may still be on its way behind
    /// that data.
    fn restart_rto_on_sack(&mut self, now: Nanos, dl: &Delivery) {
        if let (Some((first, _)), Some(head)) = (dl.sack_times, self.segments.front()) {
            if first < head.sent_at {
                self.restart_rto(now);
            }
        }
    }

    /// Step 7 without SACK: a duplicate ACK (RFC 5681 §3.2 steps 2 and 4): the
    /// delivery-rate credit, inflation during fast recovery, fast retransmit on the
    /// DupThresh-th.
    fn newreno_dupack(&mut self, now: Nanos, ack: u64, outstanding: u64) {
        self.dupacks += 1;
        self.rate.on_dupack(now, self.mss, outstanding);
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: inflate by one SMSS per additional duplicate ACK.
            self.inflation += self.mss as i64;
        } else if self.dupacks == self.dupack_threshold && ack >= self.recover {
            self.enter_recovery(now);
        }
    }

    /// Step 8: the controller's view of the ACK ([`CongestionControl::on_ack`]), then the
    /// end of a fast recovery that ended on it.
    fn cc_on_ack(
        &mut self,
        now: Nanos,
        ack: &Ack,
        info: &AckInfo,
        rtt_sample: Option<Nanos>,
        rate_sample: Option<RateSample>,
        ends_recovery: bool,
    ) {
        let ev = AckEvent {
            now,
            acked_bytes: info.acked,
            ack_seq: ack.ack,
            snd_nxt: self.snd_max,
            is_dup: info.is_dup,
            rtt_sample,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            ts_val: ack.ts_val,
            ts_ecr: ack.ts_ecr,
            bytes_in_flight: self.bytes_in_flight(),
            prior_in_flight: info.prior_in_flight,
            delivered: self.rate.delivered(),
            rate_sample,
            in_recovery: self.in_recovery || ends_recovery,
            app_limited: self.rate.is_app_limited(),
            mss: self.mss,
        };
        self.cc.on_ack(&ev);
        if ends_recovery {
            self.in_recovery = false;
            self.inflation = 0;
            self.cc.on_recovery_end(now);
        }
    }

    /// Step 7 with SACK: RFC 6675's DupAck count and the probe's acknowledgment (RFC 8985
    /// §7.4), then Linux `tcp_fastretrans_alert`: state exits (with undo), loss detection
    /// by state, recovery entry. Returns whether fast recovery ends on this ACK without an
    /// undo (the controller is told after its `on_ack`); `reenter` asks for a new recovery
    /// after that (RACK only).
    fn sack_recovery_step(
        &mut self,
        now: Nanos,
        ack: &Ack,
        info: &AckInfo,
        dl: &Delivery,
        reenter: &mut bool,
    ) -> bool {
        // RFC 6675 §2 DupAck: the cumulative ACK did not move and the ACK SACKs new data.
        if info.acked == 0 && dl.sacked > 0 {
            self.dupacks += 1;
        }
        if self.tlp.high_seq.is_some() {
            let progress = info.acked > 0 || info.window_changed || dl.sacked > 0;
            self.process_tlp_ack(
                now,
                ack.ack,
                info.dsack.is_some_and(|d| d.tlp),
                progress,
                info.prior_in_flight,
            );
        }
        let (prior_snd_una, prior_pipe) = (info.prior_snd_una, info.prior_in_flight);
        let dupack = info.is_dup && info.dsack.is_none();
        let advanced = self.snd_una > prior_snd_una;
        let mut ends = false;
        // D. State exit: the recovery point is acknowledged (RFC 6675 §5, RFC 6582 §3.2).
        if self.in_recovery && self.snd_una >= self.recover {
            self.in_recovery = false;
            if !self.try_undo_recovery(now, ack) {
                ends = true;
            }
        }
        // E. By state.
        let mut lost_retx = false;
        if self.in_recovery {
            let hold = advanced && self.try_undo_partial(now, ack, prior_snd_una);
            if self.in_recovery && self.try_undo_dsack(now) {
                self.in_recovery = false;
            }
            if !hold {
                self.identify_loss(now, dl);
            }
        } else if self.in_loss {
            self.process_loss(now, ack, advanced, dl.orig_acked, dl.sacked > 0, dupack);
            lost_retx = self.identify_loss(now, dl);
            if self.in_loss && !(lost_retx && self.rack_enabled) {
                return ends;
            }
        } else {
            if self.board.retx_bytes == 0 && !self.segments.front().is_some_and(|s| s.retransmitted)
            {
                // Linux: in order again, nothing retransmitted outstanding.
                self.undo.retrans_stamp = None;
            }
            if !ends {
                self.try_undo_dsack(now);
            }
            self.identify_loss(now, dl);
        }
        if ends {
            *reenter = self.rack_enabled;
            return true;
        }
        // Recovery starts (Linux `tcp_time_to_recover`; from Loss when a retransmission was
        // found lost again).
        if !self.in_recovery && (!self.in_loss || lost_retx) && self.time_to_recover(ack.ack) {
            self.in_loss = false;
            self.enter_sack_recovery(now, prior_pipe);
        }
        false
    }

    /// Loss detection of this ACK: RACK (RFC 8985) or RFC 6675's IsLost plus the
    /// lost-retransmission rule. Returns whether a retransmission was found lost.
    fn identify_loss(&mut self, now: Nanos, dl: &Delivery) -> bool {
        if self.rack_enabled {
            return self.rack.advanced && self.rack_detect_loss(now);
        }
        if dl.sacked == 0 {
            return false;
        }
        let before = self.stats.lost_retransmits;
        self.update_lost();
        self.detect_lost_retransmissions();
        self.stats.lost_retransmits > before
    }

    /// Whether fast recovery starts (Linux `tcp_time_to_recover`): with RACK, once anything
    /// is marked lost; else RFC 6675 §5 — the DupThresh-th DupAck or IsLost(HighACK + 1),
    /// not before the ACK reaches the previous RecoveryPoint.
    fn time_to_recover(&self, ack: u64) -> bool {
        if self.snd_una >= self.snd_max {
            return false;
        }
        if self.rack_enabled {
            return self.board.lost_bytes > 0;
        }
        ack >= self.recover
            && (self.dupacks >= self.dupack_threshold || self.board.lost_high > self.snd_una)
    }

    /// SACK loss recovery (RFC 6675 §5 steps 4.1–4.3): RecoveryPoint = HighData, the
    /// controller's congestion response, the segment at `snd_una` lost and retransmitted at
    /// once, RescueRxt = its end, PRR initialised (RFC 6937).
    ///
    /// The controller's `LossEvent::bytes_in_flight` is `pipe` before the ACK that revealed
    /// the loss, not RFC 6675 (4.2)'s FlightSize: SACKed data held behind holes (e.g. right
    /// after a previous recovery) inflates FlightSize far beyond what the path holds and
    /// would *raise* cwnd on a loss. For a window-limited flow `pipe` equals cwnd (Limited
    /// Transmit keeps it there), which is what Linux bases ssthresh on.
    fn enter_sack_recovery(&mut self, now: Nanos, prior_pipe: u64) {
        let flight = prior_pipe;
        self.recover = self.snd_max;
        self.in_recovery = true;
        self.in_loss = false;
        self.partial_ack_seen = false;
        self.inflation = 0;
        // Linux `tcp_enter_recovery`: undo bookkeeping, then the reduction; a probe in
        // flight is this episode's (`tcp_init_cwnd_reduction` clears `tlp_high_seq`).
        self.init_undo();
        self.tlp = Tlp::default();
        self.cc.on_congestion_event(&LossEvent {
            now,
            bytes_in_flight: flight,
            mss: self.mss,
        });
        let head_end = self.segments.front().map_or(self.snd_una, |s| s.end());
        if !self.rack_enabled {
            // RFC 6675 §5 (4.3): the segment at snd_una is lost; with RACK, RACK said so.
            self.mark_lost_below(head_end);
        }
        self.hole_pending = true;
        self.rescue_point = head_end;
        self.prr.start(self.snd_max - self.snd_una);
        self.stats.fast_retransmits += 1;
        self.stats.sack_recoveries += 1;
    }

    /// Third duplicate ACK: fast retransmit and NewReno fast recovery (RFC 5681 §3.2,
    /// RFC 6582 §3.2).
    fn enter_recovery(&mut self, now: Nanos) {
        // RFC 5681 §3.2 step 2 with RFC 3042: Limited Transmit data is not part of FlightSize.
        let flight = (self.snd_max - self.snd_una).saturating_sub(self.limited_bytes);
        // RFC 6582 §3.2 step 2: recover = highest sequence number transmitted.
        self.recover = self.snd_max;
        self.in_recovery = true;
        self.partial_ack_seen = false;
        self.cc.on_congestion_event(&LossEvent {
            now,
            bytes_in_flight: flight,
            mss: self.mss,
        });
        // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3·SMSS (the controller set ssthresh/cwnd).
        self.inflation = self.dupack_threshold as i64 * self.mss as i64;
        self.hole_pending = true;
        self.stats.fast_retransmits += 1;
    }

    /// When a timer armed at `now` for `timeout` fires (Linux's timer wheel at
    /// [`TcpConfig::timer_hz`]).
    pub(super) fn timer_at(&self, now: Nanos, timeout: Nanos) -> Nanos {
        crate::tcp::linux_timer_expiry(now, timeout, self.timer_hz)
    }

    /// (Re)starts the retransmission timer: one RTO (with back-off) from `now`.
    fn restart_rto(&mut self, now: Nanos) {
        self.rto_deadline = Some(self.timer_at(now, self.rtt.rto()));
    }

    /// The earliest time the sender needs [`TcpSender::on_timeout`] (retransmission, probe,
    /// reordering and controller timers) or another [`TcpSender::poll_transmit`] (pacer
    /// release).
    pub fn poll_timeout(&self) -> Option<Nanos> {
        let pacer = (self.pacing_rate().is_some() && self.established() && self.next().is_some())
            .then_some(self.next_release);
        [
            self.hs.deadline,
            self.rto_deadline,
            self.tlp.deadline,
            self.reo_deadline,
            self.cc.poll_timeout(),
            pacer,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Handles whatever timers are due at `now`; does nothing if none is. Call
    /// [`TcpSender::poll_transmit`] afterwards (a due probe is sent there). When the probe
    /// and the RTO are due together the probe goes (Linux has one timer, and the probe's
    /// deadline is never after the RTO's) and restarts the RTO.
    pub fn on_timeout(&mut self, now: Nanos) {
        if self.hs.deadline.is_some() {
            self.handshake_timeout(now);
        }
        if self.reo_deadline.is_some_and(|d| d <= now) {
            self.on_reo_timeout(now);
        }
        if self.tlp.deadline.is_some_and(|d| d <= now) {
            self.on_tlp_timeout(now);
        }
        if !self.tlp.pending && self.rto_deadline.is_some_and(|d| d <= now) {
            self.on_rto(now);
        }
        if self.cc.poll_timeout().is_some_and(|d| d <= now) {
            self.cc.on_timer(now);
        }
    }

    /// Retransmission timeout (RFC 6298 §5.4–5.6, RFC 5681 §3.1, RFC 6582 §4, RFC 6675 §5.1).
    fn on_rto(&mut self, now: Nanos) {
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
            return;
        }
        self.stats.timeouts += 1;
        let sack = self.sack_active();
        // The controller gets the bytes in flight: with SACK, `pipe` (RFC 5681 eq. 4's
        // FlightSize is meant as data in the network; SACKed data stuck behind a hole is
        // not, and would set ssthresh far above what the path held).
        let flight = self.bytes_in_flight();
        // Linux `tcp_enter_loss`: a timeout starts a loss episode (saves the undo state and
        // asks the controller for ssthresh) unless it repeats one before any progress (RFC
        // 5681 §3.1: "the value of ssthresh is held constant") or interrupts fast recovery;
        // F-RTO runs for a new episode or a repeated timeout on the same snd_una (RFC 5682
        // §3.1 step 1, §3.2).
        let new_recovery = !self.in_recovery && !self.in_loss;
        let new_episode =
            new_recovery || self.recover <= self.snd_una || (self.in_loss && self.rto_repeats == 0);
        let frto = self.frto_enabled && sack && (new_recovery || self.rto_repeats > 0);
        if sack {
            if self.rack_enabled {
                self.rack_timeout_mark_lost(now);
            } else {
                self.sack_timeout_mark_lost();
            }
            self.board.retx_next = self.snd_una;
            self.advance_retx_next();
        } else {
            // Go-back-N: everything from snd_una is resent as the (slow-starting) window allows.
            self.snd_nxt = self.snd_una;
        }
        if new_episode {
            self.init_undo();
            self.cc.on_timeout(now, flight, self.mss);
        } else {
            self.cc.on_timeout_again(now, self.mss);
        }
        // RFC 6582 §4 / RFC 6675 §5.1: duplicate ACKs for data sent before the timeout must
        // not trigger another fast retransmit.
        self.recover = self.snd_max;
        self.in_recovery = false;
        self.in_loss = true;
        self.inflation = 0;
        self.dupacks = 0;
        self.limited_bytes = 0;
        // With RACK some segments may still count in flight: the head goes regardless
        // (Linux sets cwnd = in flight + 1 and retransmits the head).
        self.hole_pending = sack && self.rack_enabled;
        self.rate.reset_dup_credit();
        self.tlp = Tlp::default();
        self.reo_deadline = None;
        self.undo.frto = frto;
        self.undo.frto_new_data = false;
        self.rto_repeats = self.rto_repeats.saturating_add(1);
        // RFC 6298 §5.5–5.6: back off, restart the timer, retransmit now (unpaced).
        self.rtt.back_off();
        self.restart_rto(now);
        self.next_release = self.next_release.min(now);
        #[cfg(test)]
        self.check_scoreboard();
    }

    /// Linux `tcp_timeout_mark_lost` with RACK: the head and every segment whose RACK
    /// deadline without reordering window (`RACK.rtt` after its latest transmission) has
    /// passed are lost; a lost segment's retransmission that old is lost too. Segments sent
    /// more recently are left in flight. Lost marks stay a prefix (see [`rack`]).
    fn rack_timeout_mark_lost(&mut self, now: Nanos) {
        let rtt = self.rack.rtt;
        let mut end = self.segments.front().map_or(self.snd_una, |s| s.end());
        for (i, s) in self.segments.iter_mut().enumerate() {
            if s.sacked {
                continue;
            }
            let due = i == 0 || now.saturating_sub(s.sent_at) >= rtt;
            if !due {
                continue;
            }
            end = end.max(s.end());
            if s.lost && s.retx_out {
                s.retx_out = false;
                self.board.retx_bytes -= s.len as u64;
                self.stats.lost_retransmits += 1;
            }
        }
        self.mark_lost_below(end);
    }

    /// Whether every byte written so far has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una >= self.app_end
    }

    /// Counters.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// The congestion controller.
    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }

    /// Smoothed RTT (0 before the first sample).
    pub fn srtt(&self) -> Nanos {
        self.rtt.srtt()
    }

    /// Current retransmission timeout, back-off included.
    pub fn rto(&self) -> Nanos {
        self.rtt.rto()
    }

    /// Oldest unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// One past the highest byte sent.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }

    /// The peer's advertised window.
    pub fn peer_window(&self) -> u64 {
        self.snd_wnd
    }

    /// Whether the sender is in fast recovery (NewReno, or SACK-based when SACK is in use).
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Total bytes delivered as seen by the rate estimator (cumulative ACKs plus SACKed
    /// bytes, or plus duplicate-ACK credit without SACK).
    pub fn delivered(&self) -> u64 {
        self.rate.delivered()
    }
}

#[cfg(test)]
mod index_tests {
    use super::*;
    use crate::cc::reno::{Reno, RenoConfig};

    /// The binary search `index_of` replaced in its common case.
    fn searched(s: &TcpSender, seq: u64) -> usize {
        s.segments.partition_point(|x| x.end() <= seq)
    }

    fn check_all(s: &TcpSender) {
        let lo = s.snd_una.saturating_sub(3);
        for seq in lo..s.snd_max + 3 {
            assert_eq!(s.index_of(seq), searched(s, seq), "seq {seq}");
        }
    }

    #[test]
    fn index_of_agrees_with_the_search_for_short_segments_and_a_trimmed_head() {
        // No handshake: the sender is established from the start, as the test drives it.
        let cfg = TcpConfig {
            handshake: false,
            ..TcpConfig::default()
        };
        let mss = cfg.mss as u64;
        let cc = Reno::new(&RenoConfig::default(), cfg.mss, cfg.initial_window_bytes());
        let mut s = TcpSender::new(&cfg, Box::new(cc), 0, 0);
        check_all(&s);
        // Full segments, a short one (the application ran dry), full ones again: the
        // arithmetic guess misses above the short segment and the search answers.
        for bytes in [3 * mss + 100, 2 * mss, 7, 3 * mss] {
            s.write(bytes);
            while s.poll_transmit(0).is_some() {}
            check_all(&s);
        }
        assert!(s.segments.iter().any(|x| (x.len as u64) < mss));
        // A cumulative ACK inside the second segment: the head is trimmed.
        let ack = Ack {
            ack: mss + mss / 2,
            rwnd: s.snd_wnd as u32,
            ..Default::default()
        };
        s.on_ack(1_000_000, &ack);
        assert_eq!(s.segments.front().unwrap().len as u64, mss / 2);
        check_all(&s);
    }
}
