//! The TCP sender: windows, SACK (RFC 6675 + PRR) and NewReno loss recovery, the
//! retransmission timer, pacing and delivery-rate samples.
//!
//! # SACK scoreboard
//!
//! With SACK in use, every `SentSegment` of the ring carries RFC 6675 scoreboard flags:
//! `sacked`, `lost` (IsLost held, or an RTO) and `retx_out` (a retransmission sent since and
//! presumed in flight). The sender keeps running byte totals of SACKed, lost and
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

use std::collections::VecDeque;

use cellshare_core::{Nanos, SEC};

use crate::cc::{AckEvent, CongestionControl, LossEvent};
use crate::tcp::rate::{PacketRateState, RateEstimator, SampleBuilder};
use crate::tcp::rtt::RttEstimator;
use crate::tcp::{ts_clock, ts_not_older, TcpConfig};
use crate::wire::{Ack, Segment, MAX_SACK_BLOCKS};

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
    /// Retransmissions detected lost by SACKs of data sent after them (and resent again).
    pub lost_retransmits: u64,
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
    /// Time of the first transmission (bookkeeping for the simulator's one-way delay,
    /// which counts a retransmitted segment from its first transmission).
    first_sent_at: Nanos,
    /// Whether it was ever retransmitted (Karn's rule).
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

/// What one ACK newly delivered (cumulatively or by SACK): rate sample and RTT candidate.
#[derive(Debug)]
struct Delivery {
    rs: SampleBuilder,
    /// Latest send time among the newly delivered segments.
    newest: Option<Nanos>,
    /// None of the newly delivered segments was ever retransmitted (Karn).
    karn_ok: bool,
    /// Newly cumulatively acknowledged bytes that had not been SACKed.
    cum_unsacked: u64,
    /// Newly SACKed bytes.
    sacked: u64,
}

impl Delivery {
    fn new() -> Self {
        Self { rs: SampleBuilder::default(), newest: None, karn_ok: true, cum_unsacked: 0, sacked: 0 }
    }

    fn add(&mut self, rate: &mut RateEstimator, s: &SentSegment) {
        self.karn_ok &= !s.retransmitted;
        self.newest = Some(self.newest.map_or(s.sent_at, |t| t.max(s.sent_at)));
        rate.on_segment_delivered(&mut self.rs, s.rate, s.sent_at, s.end());
    }

    /// RTT sample: `now` minus the latest send time of the newly delivered segments, or
    /// `None` if any of them was ever retransmitted (Karn's rule, RFC 6298 §3; Linux
    /// `FLAG_RETRANS_DATA_ACKED`). Previously SACKed segments are not "newly delivered",
    /// so a cumulative ACK after SACKs does not yield an inflated sample.
    fn rtt(&self, now: Nanos) -> Option<Nanos> {
        self.newest.filter(|_| self.karn_ok).map(|t| now.saturating_sub(t))
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
    /// The peer has sent a SACK block: with `sack_enabled`, SACK recovery is in use.
    peer_sacks: bool,
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
    /// SACK scoreboard totals over unSACKed segments (see the module docs):
    /// bytes SACKed, bytes lost, bytes retransmitted and presumed in flight.
    sacked_bytes: u64,
    lost_bytes: u64,
    retx_bytes: u64,
    /// One past the highest SACKed byte (RFC 6675 HighSACK, exclusive).
    high_sacked: u64,
    /// Every unSACKed segment below this sequence is marked lost.
    lost_high: u64,
    /// Start of the first unSACKed segment not retransmitted since it was deemed lost
    /// (`snd_max` if none): NextSeg's candidate for rules 1 and 3.
    retx_next: u64,
    /// Blocks of the previous ACK, clipped and sorted: already applied to the scoreboard.
    sack_cache: [(u64, u64); MAX_SACK_BLOCKS],
    sack_cache_len: usize,
    /// Retransmissions of lost segments in send order: (segment start, `snd_max` when sent,
    /// send time), for lost-retransmission detection. Capacity is reused.
    retx_queue: VecDeque<(u64, u64, Nanos)>,
    /// RFC 6675 RescueRxt (exclusive end): rule 4 may fire once `snd_una` passes it.
    rescue_point: u64,
    /// RFC 6937 PRR state: bytes delivered and sent during this recovery, FlightSize at its
    /// start, and what the last ACK allowed to send that has not been sent yet.
    prr_delivered: u64,
    prr_out: u64,
    prr_recover_fs: u64,
    prr_quota: u64,
    /// Bytes sent under Limited Transmit since the last new ACK (excluded from FlightSize).
    limited_bytes: u64,
    rto_deadline: Option<Nanos>,
    /// Earliest time the pacer releases the next segment.
    next_release: Nanos,
    /// Latest receiver TSval seen (echoed as TSecr).
    ts_recent: Option<u32>,
    stats: SenderStats,
}

impl TcpSender {
    /// A sender with congestion controller `cc` (built with
    /// [`TcpConfig::initial_window_bytes`] as its initial window) whose timestamp clock runs
    /// `ts_offset_ms` ahead of `now / MS`. Until the first ACK, the peer window is
    /// `cfg.rwnd.initial_window()` (what the handshake would have announced).
    pub fn new(cfg: &TcpConfig, cc: Box<dyn CongestionControl>, now: Nanos, ts_offset_ms: u32) -> Self {
        Self {
            mss: cfg.mss,
            dupack_threshold: cfg.dupack_threshold.max(1),
            limited_transmit: cfg.limited_transmit,
            sack_enabled: cfg.sack,
            prr_enabled: cfg.prr,
            peer_sacks: false,
            ts_offset_ms,
            cc,
            rtt: RttEstimator::new(cfg.min_rto(), cfg.initial_rto(), cfg.max_rto()),
            rate: RateEstimator::new(now),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 0,
            snd_wnd: cfg.rwnd.initial_window() as u64,
            segments: VecDeque::with_capacity(64),
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            inflation: 0,
            partial_ack_seen: false,
            hole_pending: false,
            sacked_bytes: 0,
            lost_bytes: 0,
            retx_bytes: 0,
            high_sacked: 0,
            lost_high: 0,
            retx_next: 0,
            sack_cache: [(0, 0); MAX_SACK_BLOCKS],
            sack_cache_len: 0,
            retx_queue: VecDeque::new(),
            rescue_point: 0,
            prr_delivered: 0,
            prr_out: 0,
            prr_recover_fs: 0,
            prr_quota: 0,
            limited_bytes: 0,
            rto_deadline: None,
            next_release: 0,
            ts_recent: None,
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

    /// Whether SACK-based recovery is in use: configured on and the peer sends SACK blocks.
    pub fn sack_active(&self) -> bool {
        self.sack_enabled && self.peer_sacks
    }

    /// RFC 6675 `pipe` from the scoreboard totals.
    fn pipe(&self) -> u64 {
        (self.snd_max - self.snd_una).saturating_sub(self.sacked_bytes + self.lost_bytes) + self.retx_bytes
    }

    /// Window the sender currently honours. Without SACK: `cc.cwnd()` plus fast-recovery
    /// inflation (or the Limited Transmit allowance). With SACK: `cc.cwnd()`, compared with
    /// `pipe`; during recovery with PRR, `pipe` plus what PRR still allows (as Linux sets
    /// `snd_cwnd = in_flight + sndcnt`).
    pub fn cwnd(&self) -> u64 {
        if self.sack_active() {
            return if self.in_recovery && self.prr_enabled { self.pipe() + self.prr_quota } else { self.cc.cwnd() };
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

    /// RFC 6675 §4 NextSeg() with the §5 sending rule (or PRR's quota in recovery).
    fn next_sack(&self) -> Option<Next> {
        if self.hole_pending {
            // RFC 6675 §5 (4.3): the first retransmission goes at once, whatever the window.
            return Some(Next::Hole);
        }
        let pipe = self.pipe();
        let outstanding = self.snd_max - self.snd_una;
        let cwnd = self.cc.cwnd();
        // Before recovery, sending against `pipe` is RFC 6675's Limited Transmit (§5 step
        // 1); without Limited Transmit the whole outstanding data counts until a loss.
        let flight =
            if !self.limited_transmit && !self.in_recovery && self.lost_bytes == 0 { outstanding } else { pipe };
        let fits = |len: u64| {
            // At least one segment may always be in flight, whatever the controller says.
            pipe == 0 || if self.in_recovery && self.prr_enabled { len <= self.prr_quota } else { flight + len <= cwnd }
        };
        let cand = self.retx_candidate();
        // Rule 1: the first lost, unSACKed segment not yet retransmitted.
        if let Some(i) = cand.filter(|&i| self.segments[i].lost) {
            return fits(self.segments[i].len as u64).then_some(Next::Retx(i));
        }
        // Rule 2: new data, if the application, the receiver window and the controller allow.
        if let Some(len) = self.new_data_len(outstanding == 0) {
            return fits(len as u64).then_some(Next::New(len));
        }
        if !self.in_recovery {
            return None;
        }
        // Rule 3: an unSACKed hole below the highest SACK, not yet deemed lost.
        if let Some(i) = cand.filter(|&i| self.segments[i].end() <= self.high_sacked) {
            return fits(self.segments[i].len as u64).then_some(Next::Retx(i));
        }
        // Rule 4: one rescue retransmission per episode of the tail, when it is unSACKed
        // (if the last segment is SACKed, every unSACKed byte lies below HighSACK and is
        // rule 3's or already retransmitted).
        if self.snd_una > self.rescue_point {
            let i = self.segments.len().checked_sub(1)?;
            let s = &self.segments[i];
            if !s.sacked && !s.retx_out && s.end() > self.high_sacked {
                return fits(s.len as u64).then_some(Next::Retx(i));
            }
        }
        None
    }

    /// Index of the segment at `retx_next`, if any.
    fn retx_candidate(&self) -> Option<usize> {
        (self.retx_next < self.snd_max).then(|| self.index_of(self.retx_next))
    }

    /// Moves `retx_next` over SACKed and already retransmitted segments.
    fn advance_retx_next(&mut self) {
        self.retx_next = self.retx_next.max(self.snd_una);
        let mut i = self.index_of(self.retx_next);
        while i < self.segments.len() && (self.segments[i].sacked || self.segments[i].retx_out) {
            i += 1;
        }
        self.retx_next = self.segments.get(i).map_or(self.snd_max, |s| s.seq);
    }

    /// Index in `segments` of the segment containing byte `seq`.
    fn index_of(&self, seq: u64) -> usize {
        self.segments.partition_point(|s| s.end() <= seq)
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.cc.pacing_rate().filter(|r| r.is_finite() && *r > 0.0)
    }

    /// Whether [`TcpSender::poll_transmit`] at `now` would return a segment, without sending
    /// it (for a caller that delays its transmissions, e.g. DTPA's TX period).
    pub fn can_transmit(&self, now: Nanos) -> bool {
        !(self.pacing_rate().is_some() && now < self.next_release) && self.next().is_some()
    }

    /// The next segment to put on the wire at `now`, if the windows and the pacer allow.
    /// Call in a loop until `None`; retransmissions come first.
    pub fn poll_transmit(&mut self, now: Nanos) -> Option<Segment> {
        if self.pacing_rate().is_some() && now < self.next_release {
            return None;
        }
        let Some(next) = self.next() else {
            self.check_app_limited();
            return None;
        };
        let nothing_outstanding = self.snd_una == self.snd_max;
        let snapshot = self.rate.on_send(now, nothing_outstanding);
        let (seq, len, retransmit) = match next {
            Next::Hole => {
                self.hole_pending = false;
                self.retransmit(0, now, snapshot)
            }
            Next::Retx(i) => self.retransmit(i, now, snapshot),
            Next::GoBackN => {
                let i = self.index_of(self.snd_nxt);
                let seq = self.snd_nxt;
                let s = &mut self.segments[i];
                s.sent_at = now;
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
                if !self.in_recovery && self.dupacks > 0 && self.snd_max - self.snd_una + len as u64 > self.cc.cwnd() {
                    self.limited_bytes += len as u64;
                }
                self.segments.push_back(SentSegment {
                    seq,
                    len,
                    sent_at: now,
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
            // RFC 6937: prr_out counts every byte sent during recovery.
            self.prr_out += len as u64;
            self.prr_quota = self.prr_quota.saturating_sub(len as u64);
        }
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if retransmit {
            self.stats.retransmits += 1;
            self.stats.bytes_retransmitted += len as u64;
        }
        if let Some(rate) = self.pacing_rate() {
            // Linux tcp_update_skb_after_send: release time advances by len / rate.
            let gap = (len as f64 * SEC as f64 / rate).ceil() as Nanos;
            self.next_release = self.next_release.max(now).saturating_add(gap);
        }
        if self.rto_deadline.is_none() {
            // RFC 6298 §5.1: start the timer when sending data and it is not running.
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.cc.on_sent(now, len, self.bytes_in_flight());
        #[cfg(test)]
        self.check_scoreboard();
        Some(Segment {
            seq,
            len,
            ts_val: ts_clock(now, self.ts_offset_ms),
            ts_ecr: self.ts_recent.unwrap_or(0),
            retransmit,
        })
    }

    /// When the bytes at `seq` were first transmitted, while they are outstanding (for a
    /// retransmission just returned by [`TcpSender::poll_transmit`]: the time its first copy
    /// left).
    pub fn first_sent_of(&self, seq: u64) -> Option<Nanos> {
        let i = self.index_of(seq);
        self.segments.get(i).filter(|s| s.seq <= seq).map(|s| s.first_sent_at)
    }

    /// Resends the whole segment at ring index `i`; returns `(seq, len, true)`.
    fn retransmit(&mut self, i: usize, now: Nanos, snapshot: PacketRateState) -> (u64, u32, bool) {
        let sack = self.sack_active();
        let s = &mut self.segments[i];
        s.sent_at = now;
        s.retransmitted = true;
        s.rate = snapshot;
        let (seq, len) = (s.seq, s.len);
        if sack && !s.sacked && !s.retx_out {
            s.retx_out = true;
            self.retx_bytes += len as u64;
            if s.lost {
                self.retx_queue.push_back((seq, self.snd_max, now));
            }
            if seq == self.retx_next {
                self.advance_retx_next();
            }
        }
        (seq, len, true)
    }

    /// Linux `tcp_rate_check_app_limited`: nothing left to send, window not full, no loss
    /// being repaired → mark the delivery-rate samples that follow as application-limited.
    fn check_app_limited(&mut self) {
        let flight = self.bytes_in_flight();
        let lost_pending = self.sack_active() && self.retx_candidate().is_some_and(|i| self.segments[i].lost);
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

    /// Processes an arriving ACK.
    pub fn on_ack(&mut self, now: Nanos, ack: &Ack) {
        if ack.ack > self.snd_max || ack.ack < self.snd_una {
            // RFC 9293 §3.10.7.4: ignore ACKs of unsent data and old ACKs.
            return;
        }
        // RFC 7323 §4.3: remember the newest peer TSval, echoed as TSecr (PAWS, §5.3).
        if ts_not_older(ack.ts_val, self.ts_recent) {
            self.ts_recent = Some(ack.ts_val);
        }
        if self.sack_enabled && !self.peer_sacks && !ack.sack_blocks().is_empty() {
            self.activate_sack();
        }
        let sack = self.sack_active();
        let prior_in_flight = self.bytes_in_flight();
        let outstanding = self.snd_max - self.snd_una;
        let acked = ack.ack - self.snd_una;
        let rwnd = ack.rwnd as u64;
        // RFC 5681 §2 "duplicate acknowledgment": (a) data outstanding, (b)-(c) a pure ACK,
        // (d) acknowledges snd_una, (e) the same advertised window.
        let is_dup = acked == 0 && outstanding > 0 && rwnd == self.snd_wnd;
        self.snd_wnd = rwnd;

        let mut dl = Delivery::new();
        if acked > 0 {
            self.take_acked(ack.ack, &mut dl);
        }
        if sack {
            self.apply_sack(ack, &mut dl);
        }
        let rtt_sample = dl.rtt(now);
        if let Some(r) = rtt_sample {
            self.rtt.on_sample(r);
            self.stats.rtt_samples += 1;
            self.stats.srtt = self.rtt.srtt();
            self.stats.min_rtt = self.rtt.min_rtt();
            self.stats.latest_rtt = r;
        }
        let mut rate_sample = None;
        if sack {
            if acked > 0 || dl.sacked > 0 {
                self.rate.on_sack_delivery(now, dl.cum_unsacked, dl.sacked);
                rate_sample = self.rate.generate(&dl.rs, now, self.rtt.min_rtt());
            }
        } else if acked > 0 {
            self.rate.on_cumulative_ack(now, acked, self.mss);
            rate_sample = self.rate.generate(&dl.rs, now, self.rtt.min_rtt());
        }

        let mut ends_recovery = false;
        if acked > 0 {
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            self.stats.bytes_acked += acked;
            self.dupacks = 0;
            self.limited_bytes = 0;
            self.hole_pending = false;
            let mut restart_timer = true;
            if self.in_recovery {
                if ack.ack >= self.recover {
                    // RFC 6582 §3.2 step 3 / RFC 6675 §5: full acknowledgment, exit (after
                    // the controller has seen this ACK as part of recovery), cwnd = ssthresh.
                    ends_recovery = true;
                } else if !sack {
                    // Partial acknowledgment: retransmit the next hole, deflate by the
                    // amount acknowledged, add back one SMSS if at least one SMSS was
                    // acknowledged; reset the timer on the first partial ACK only.
                    self.hole_pending = true;
                    let add_back = if acked >= self.mss as u64 { self.mss as i64 } else { 0 };
                    self.inflation = self.inflation - acked.min(i64::MAX as u64) as i64 + add_back;
                    restart_timer = !self.partial_ack_seen;
                    self.partial_ack_seen = true;
                }
                // With SACK a partial ACK needs nothing special: the scoreboard says what
                // is lost, and the timer restarts as on any new ACK (RFC 6298 §5.3).
            }
            if self.snd_una == self.snd_max {
                // RFC 6298 §5.2: all data acknowledged, stop the timer.
                self.rto_deadline = None;
            } else if restart_timer {
                // RFC 6298 §5.3: new data acknowledged, restart the timer.
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        }
        if is_dup {
            self.stats.dup_acks += 1;
        }
        if sack {
            // RFC 6675 §2 DupAck: the cumulative ACK did not move and the ACK SACKs new data.
            if acked == 0 && dl.sacked > 0 {
                self.dupacks += 1;
            }
            if dl.sacked > 0 {
                self.update_lost();
                self.detect_lost_retransmissions();
            }
            // RFC 6675 §5: recovery starts on the DupThresh-th DupAck or once IsLost(HighACK
            // + 1) holds, but not before the ACK reaches the previous RecoveryPoint.
            if !self.in_recovery
                && self.snd_una < self.snd_max
                && ack.ack >= self.recover
                && (self.dupacks >= self.dupack_threshold || self.lost_high > self.snd_una)
            {
                self.enter_sack_recovery(now, prior_in_flight);
            }
            if self.in_recovery && self.prr_enabled {
                self.prr_on_ack(dl.cum_unsacked + dl.sacked);
            }
        } else if is_dup {
            self.dupacks += 1;
            self.rate.on_dupack(now, self.mss, outstanding);
            if self.in_recovery {
                // RFC 5681 §3.2 step 4: inflate by one SMSS per additional duplicate ACK.
                self.inflation += self.mss as i64;
            } else if self.dupacks == self.dupack_threshold && ack.ack >= self.recover {
                self.enter_recovery(now);
            }
        }

        let ev = AckEvent {
            now,
            acked_bytes: acked,
            ack_seq: ack.ack,
            snd_nxt: self.snd_max,
            is_dup,
            rtt_sample,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            ts_val: ack.ts_val,
            ts_ecr: ack.ts_ecr,
            bytes_in_flight: self.bytes_in_flight(),
            prior_in_flight,
            delivered: self.rate.delivered(),
            rate_sample,
            in_recovery: self.in_recovery,
            app_limited: self.rate.is_app_limited(),
            mss: self.mss,
        };
        self.cc.on_ack(&ev);
        if ends_recovery {
            self.in_recovery = false;
            self.inflation = 0;
            self.cc.on_recovery_end(now);
        }
        #[cfg(test)]
        self.check_scoreboard();
    }

    /// The first SACK block arrived: the peer is SACK-capable (what the SYN's
    /// SACK-permitted option would have told). Converts NewReno state to the scoreboard:
    /// after a timeout, bytes not yet resent by go-back-N become lost, resent ones lost and
    /// retransmitted; a NewReno recovery in progress continues as a SACK recovery.
    fn activate_sack(&mut self) {
        self.peer_sacks = true;
        self.lost_high = self.snd_una;
        self.retx_next = self.snd_una;
        if self.snd_nxt < self.snd_max {
            let resent_end = self.snd_nxt;
            for s in &mut self.segments {
                s.lost = true;
                s.retx_out = s.seq < resent_end;
            }
            self.lost_bytes = self.snd_max - self.snd_una;
            self.retx_bytes = resent_end - self.snd_una;
            self.lost_high = self.snd_max;
            self.snd_nxt = self.snd_max;
        }
        if self.in_recovery {
            self.inflation = 0;
            self.prr_init();
            self.rescue_point = self.segments.front().map_or(self.snd_una, |s| s.end());
            if self.hole_pending {
                let end = self.rescue_point;
                self.mark_lost_below(end);
            }
        }
        self.advance_retx_next();
    }

    /// Removes the segments a cumulative ACK up to `ack` covers (trimming one only partly
    /// covered), updating the scoreboard totals, and feeds those not SACKed before to
    /// `dl` (RTT candidate and rate sample); sets `snd_una = ack`.
    fn take_acked(&mut self, ack: u64, dl: &mut Delivery) {
        while let Some(front) = self.segments.front_mut() {
            if front.end() <= ack {
                let s = *front;
                self.segments.pop_front();
                let len = s.len as u64;
                if s.sacked {
                    self.sacked_bytes -= len;
                } else {
                    self.lost_bytes -= if s.lost { len } else { 0 };
                    self.retx_bytes -= if s.retx_out { len } else { 0 };
                    dl.cum_unsacked += len;
                    dl.add(&mut self.rate, &s);
                }
            } else {
                if front.seq < ack {
                    let d = ack - front.seq;
                    if front.sacked {
                        self.sacked_bytes -= d;
                    } else {
                        self.lost_bytes -= if front.lost { d } else { 0 };
                        self.retx_bytes -= if front.retx_out { d } else { 0 };
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
            self.retx_queue.clear();
        }
        if self.sack_active() {
            self.lost_high = self.lost_high.max(ack);
            if self.retx_next < ack {
                self.advance_retx_next();
            }
        }
    }

    /// Applies the ACK's SACK blocks to the scoreboard (RFC 6675 §4 Update()). Ranges
    /// already covered by the previous ACK's blocks were applied then and are skipped.
    fn apply_sack(&mut self, ack: &Ack, dl: &mut Delivery) {
        let mut blocks = [(0u64, 0u64); MAX_SACK_BLOCKS];
        let mut n = 0;
        for &(s, e) in ack.sack_blocks() {
            let (s, e) = (s.max(self.snd_una), e.min(self.snd_max));
            if s < e {
                blocks[n] = (s, e);
                n += 1;
            }
        }
        let cache = self.sack_cache;
        let cache = &cache[..self.sack_cache_len];
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
        self.sack_cache = blocks;
        self.sack_cache_len = n;
        if dl.sacked > 0 && self.retx_next < self.snd_max {
            self.advance_retx_next();
        }
    }

    /// Marks SACKed the segments overlapping `[from, to)` that lie wholly inside the block
    /// `[bs, be)`.
    fn mark_sacked(&mut self, bs: u64, be: u64, from: u64, to: u64, dl: &mut Delivery) {
        let mut i = self.index_of(from);
        while let Some(s) = self.segments.get_mut(i) {
            if s.seq >= to {
                break;
            }
            if !s.sacked && s.seq >= bs && s.end() <= be {
                let len = s.len as u64;
                s.sacked = true;
                self.sacked_bytes += len;
                self.lost_bytes -= if s.lost { len } else { 0 };
                self.retx_bytes -= if s.retx_out { len } else { 0 };
                self.high_sacked = self.high_sacked.max(s.end());
                dl.sacked += len;
                self.stats.bytes_sacked += len;
                let s = *s;
                dl.add(&mut self.rate, &s);
            }
            i += 1;
        }
    }

    /// RFC 6675 IsLost(): an unSACKed segment is lost once DupThresh segments, or more than
    /// `(DupThresh − 1)·MSS` bytes, above it are SACKed. Walks down from the highest SACKed
    /// segment to the point where that count is reached and marks everything unSACKed
    /// below it lost.
    fn update_lost(&mut self) {
        if self.high_sacked <= self.lost_high {
            return;
        }
        let bytes_limit = (self.dupack_threshold as u64 - 1) * self.mss as u64;
        let mut i = self.index_of(self.high_sacked - 1);
        let (mut count, mut bytes) = (0u32, 0u64);
        let mut boundary = None;
        while let Some(s) = self.segments.get(i) {
            if s.seq < self.lost_high {
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
    fn detect_lost_retransmissions(&mut self) {
        while let Some(&(seq, mark, sent_at)) = self.retx_queue.front() {
            if self.high_sacked <= mark {
                break;
            }
            self.retx_queue.pop_front();
            if seq < self.snd_una {
                continue;
            }
            let i = self.index_of(seq);
            let s = &mut self.segments[i];
            // Only if this is still that retransmission, in flight and unSACKed.
            if s.seq == seq && s.sent_at == sent_at && s.retx_out && !s.sacked && s.lost {
                s.retx_out = false;
                self.retx_bytes -= s.len as u64;
                self.retx_next = self.retx_next.min(seq);
                self.stats.lost_retransmits += 1;
            }
        }
    }

    /// Marks every unSACKed segment below `end` lost.
    fn mark_lost_below(&mut self, end: u64) {
        if end <= self.lost_high {
            return;
        }
        let mut i = self.index_of(self.lost_high);
        while let Some(s) = self.segments.get_mut(i) {
            if s.seq >= end {
                break;
            }
            if !s.sacked && !s.lost {
                s.lost = true;
                self.lost_bytes += s.len as u64;
            }
            i += 1;
        }
        self.lost_high = end;
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
        self.partial_ack_seen = false;
        self.inflation = 0;
        self.cc.on_congestion_event(&LossEvent { now, bytes_in_flight: flight, mss: self.mss });
        let head_end = self.segments.front().map_or(self.snd_una, |s| s.end());
        self.mark_lost_below(head_end);
        self.hole_pending = true;
        self.rescue_point = head_end;
        self.prr_init();
        self.stats.fast_retransmits += 1;
        self.stats.sack_recoveries += 1;
    }

    /// RFC 6937 §3 "on entering recovery": RecoverFS = snd.nxt − snd.una.
    fn prr_init(&mut self) {
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.prr_quota = 0;
        self.prr_recover_fs = (self.snd_max - self.snd_una).max(1);
    }

    /// RFC 6937 §3 "on every ACK during recovery" (PRR-SSRB): the quota `sndcnt` this ACK
    /// releases. The target is the controller's `cwnd` (= ssthresh for loss-based
    /// controllers, which set it in `on_congestion_event`).
    fn prr_on_ack(&mut self, delivered: u64) {
        self.prr_delivered += delivered;
        let target = self.cc.cwnd();
        let pipe = self.pipe();
        self.prr_quota = if pipe > target {
            // Proportional part: sndcnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let fs = self.prr_recover_fs as u128;
            let allowed = (self.prr_delivered as u128 * target as u128).div_ceil(fs);
            (allowed.min(u64::MAX as u128) as u64).saturating_sub(self.prr_out)
        } else {
            // Slow-start reduction bound: grow back towards the target, at most one MSS
            // beyond what was delivered.
            let limit = self.prr_delivered.saturating_sub(self.prr_out).max(delivered) + self.mss as u64;
            (target - pipe).min(limit)
        };
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
        self.cc.on_congestion_event(&LossEvent { now, bytes_in_flight: flight, mss: self.mss });
        // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3·SMSS (the controller set ssthresh/cwnd).
        self.inflation = self.dupack_threshold as i64 * self.mss as i64;
        self.hole_pending = true;
        self.stats.fast_retransmits += 1;
    }

    /// The earliest time the sender needs [`TcpSender::on_timeout`] (retransmission timer,
    /// controller timer) or another [`TcpSender::poll_transmit`] (pacer release).
    pub fn poll_timeout(&self) -> Option<Nanos> {
        let pacer = (self.pacing_rate().is_some() && self.next().is_some()).then_some(self.next_release);
        [self.rto_deadline, self.cc.poll_timeout(), pacer].into_iter().flatten().min()
    }

    /// Handles whatever timers are due at `now`; does nothing if none is. Call
    /// [`TcpSender::poll_transmit`] afterwards.
    pub fn on_timeout(&mut self, now: Nanos) {
        if self.rto_deadline.is_some_and(|d| d <= now) {
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
        self.cc.on_timeout(now, self.bytes_in_flight(), self.mss);
        // RFC 6582 §4 / RFC 6675 §5.1: duplicate ACKs for data sent before the timeout must
        // not trigger another fast retransmit.
        self.recover = self.snd_max;
        self.in_recovery = false;
        self.inflation = 0;
        self.dupacks = 0;
        self.limited_bytes = 0;
        self.hole_pending = false;
        self.rate.reset_dup_credit();
        if sack {
            // RFC 6675 §5.1: every unSACKed segment is lost and resent, in order, as the
            // (slow-starting) window allows; SACKed segments are never resent.
            for s in &mut self.segments {
                s.retx_out = false;
                s.lost = !s.sacked;
            }
            self.lost_bytes = self.snd_max - self.snd_una - self.sacked_bytes;
            self.retx_bytes = 0;
            self.lost_high = self.snd_max;
            self.retx_next = self.snd_una;
            self.retx_queue.clear();
            self.advance_retx_next();
        } else {
            // Go-back-N: everything from snd_una is resent as the (slow-starting) window allows.
            self.snd_nxt = self.snd_una;
        }
        // RFC 6298 §5.5–5.6: back off, restart the timer, retransmit now (unpaced).
        self.rtt.back_off();
        self.rto_deadline = Some(now + self.rtt.rto());
        self.next_release = self.next_release.min(now);
        #[cfg(test)]
        self.check_scoreboard();
    }

    /// Test-only consistency check of the scoreboard totals and pointers.
    #[cfg(test)]
    fn check_scoreboard(&self) {
        let (mut sacked, mut lost, mut retx) = (0, 0, 0);
        let mut expect = self.snd_una;
        for s in &self.segments {
            assert_eq!(s.seq, expect, "ring is contiguous");
            expect = s.end();
            if s.sacked {
                sacked += s.len as u64;
            } else {
                lost += if s.lost { s.len as u64 } else { 0 };
                retx += if s.retx_out { s.len as u64 } else { 0 };
                if self.sack_active() {
                    assert_eq!(s.lost, s.end() <= self.lost_high, "lost marks form a prefix: {s:?}");
                    if s.seq < self.retx_next {
                        assert!(s.retx_out, "below retx_next every unSACKed segment was resent: {s:?}");
                    }
                }
            }
        }
        assert_eq!(expect, self.snd_max);
        assert_eq!((sacked, lost, retx), (self.sacked_bytes, self.lost_bytes, self.retx_bytes));
        if self.sack_active() {
            assert_eq!(self.snd_nxt, self.snd_max);
            if let Some(i) = self.retx_candidate() {
                let s = &self.segments[i];
                assert!(s.seq == self.retx_next && !s.sacked && !s.retx_out, "{s:?}");
            }
        }
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
