//! The TCP sender: windows, NewReno loss recovery, the retransmission timer, pacing and
//! delivery-rate samples.

use std::collections::VecDeque;

use cellshare_core::{Nanos, SEC};

use crate::cc::{AckEvent, CongestionControl, LossEvent};
use crate::tcp::rate::{PacketRateState, RateEstimator, SampleBuilder};
use crate::tcp::rtt::RttEstimator;
use crate::tcp::{ts_clock, ts_not_older, TcpConfig};
use crate::wire::{Ack, Segment};

/// Counters and RTT figures kept by a [`TcpSender`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Segments transmitted (new and retransmitted).
    pub segments_sent: u64,
    /// Payload bytes transmitted (new and retransmitted).
    pub bytes_sent: u64,
    /// Segments retransmitted (fast retransmit, partial-ACK and go-back-N retransmissions).
    pub retransmits: u64,
    /// Payload bytes retransmitted.
    pub bytes_retransmitted: u64,
    /// Fast retransmits, i.e. fast-recovery episodes entered on the third duplicate ACK.
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Bytes cumulatively acknowledged.
    pub bytes_acked: u64,
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
    /// Whether it was ever retransmitted (Karn's rule).
    retransmitted: bool,
    /// Delivery state at the latest transmission.
    rate: PacketRateState,
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
    /// The hole at `snd_una` must be retransmitted.
    hole_pending: bool,
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

    /// The application stops writing: bytes written but never sent are discarded, bytes
    /// already sent are still delivered (and retransmitted if lost). Models an on/off
    /// source whose socket buffer holds only what is in flight.
    pub fn stop_writing(&mut self) {
        self.app_end = self.app_end.min(self.snd_max);
    }

    /// Bytes in flight: `snd_nxt − snd_una` (after a timeout, bytes not yet resent by
    /// go-back-N count as lost, not in flight).
    pub fn bytes_in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// Window the sender currently honours: `cc.cwnd()` plus fast-recovery inflation (or
    /// the Limited Transmit allowance).
    pub fn cwnd(&self) -> u64 {
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
        let avail = self.app_end - self.snd_nxt;
        if avail == 0 {
            return None;
        }
        let mut len = avail.min(self.mss as u64);
        let room = (self.snd_una + self.snd_wnd).saturating_sub(self.snd_nxt);
        if len > room {
            // Receiver window: never more than rwnd beyond snd_una. Sender-side silly window
            // avoidance (RFC 9293 §3.8.6.2.1): a partial segment only when nothing is
            // outstanding, so a window smaller than one MSS cannot deadlock.
            if flight == 0 && room > 0 {
                len = room;
            } else {
                return None;
            }
        }
        fits(len).then_some(Next::New(len as u32))
    }

    /// Index in `segments` of the segment containing byte `seq`.
    fn index_of(&self, seq: u64) -> usize {
        self.segments.partition_point(|s| s.end() <= seq)
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.cc.pacing_rate().filter(|r| r.is_finite() && *r > 0.0)
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
                let s = &mut self.segments[0];
                s.sent_at = now;
                s.retransmitted = true;
                s.rate = snapshot;
                (s.seq, s.len, true)
            }
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
                if !self.in_recovery && self.dupacks > 0 && self.bytes_in_flight() + len as u64 > self.cc.cwnd() {
                    self.limited_bytes += len as u64;
                }
                self.segments.push_back(SentSegment { seq, len, sent_at: now, retransmitted: false, rate: snapshot });
                self.snd_nxt += len as u64;
                self.snd_max = self.snd_nxt;
                (seq, len, false)
            }
        };
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
        Some(Segment {
            seq,
            len,
            ts_val: ts_clock(now, self.ts_offset_ms),
            ts_ecr: self.ts_recent.unwrap_or(0),
            retransmit,
        })
    }

    /// Linux `tcp_rate_check_app_limited`: nothing left to send, window not full, no loss
    /// being repaired → mark the delivery-rate samples that follow as application-limited.
    fn check_app_limited(&mut self) {
        let flight = self.bytes_in_flight();
        if self.snd_nxt == self.app_end
            && self.snd_nxt == self.snd_max
            && !self.hole_pending
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
        let prior_in_flight = self.bytes_in_flight();
        let outstanding = self.snd_max - self.snd_una;
        let acked = ack.ack - self.snd_una;
        let rwnd = ack.rwnd as u64;
        // RFC 5681 §2 "duplicate acknowledgment": (a) data outstanding, (b)-(c) a pure ACK,
        // (d) acknowledges snd_una, (e) the same advertised window.
        let is_dup = acked == 0 && outstanding > 0 && rwnd == self.snd_wnd;
        self.snd_wnd = rwnd;

        let mut rtt_sample = None;
        let mut rate_sample = None;
        let mut ends_recovery = false;
        if acked > 0 {
            rtt_sample = self.take_acked(now, ack.ack);
            if let Some(r) = rtt_sample {
                self.rtt.on_sample(r);
                self.stats.rtt_samples += 1;
                self.stats.srtt = self.rtt.srtt();
                self.stats.min_rtt = self.rtt.min_rtt();
                self.stats.latest_rtt = r;
            }
            let mut rs = SampleBuilder::default();
            self.rate.on_cumulative_ack(now, acked, self.mss);
            self.rate_deliver(&mut rs, ack.ack);
            rate_sample = self.rate.generate(&rs, now, self.rtt.min_rtt());
            self.snd_una = ack.ack;
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            self.stats.bytes_acked += acked;
            self.dupacks = 0;
            self.limited_bytes = 0;
            self.hole_pending = false;
            let mut restart_timer = true;
            if self.in_recovery {
                if ack.ack >= self.recover {
                    // RFC 6582 §3.2 step 3, full acknowledgment: exit (after the controller
                    // has seen this ACK as part of recovery), cwnd = ssthresh.
                    ends_recovery = true;
                } else {
                    // Partial acknowledgment: retransmit the next hole, deflate by the
                    // amount acknowledged, add back one SMSS if at least one SMSS was
                    // acknowledged; reset the timer on the first partial ACK only.
                    self.hole_pending = true;
                    let add_back = if acked >= self.mss as u64 { self.mss as i64 } else { 0 };
                    self.inflation = self.inflation - acked.min(i64::MAX as u64) as i64 + add_back;
                    restart_timer = !self.partial_ack_seen;
                    self.partial_ack_seen = true;
                }
            }
            if self.snd_una == self.snd_max {
                // RFC 6298 §5.2: all data acknowledged, stop the timer.
                self.rto_deadline = None;
            } else if restart_timer {
                // RFC 6298 §5.3: new data acknowledged, restart the timer.
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        } else if is_dup {
            self.dupacks += 1;
            self.stats.dup_acks += 1;
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
    }

    /// Removes the segments a cumulative ACK up to `ack` covers and returns the RTT sample:
    /// `now` minus the send time of the newest acknowledged segment, or `None` if any of
    /// them was ever retransmitted (Karn's rule, RFC 6298 §3; Linux `FLAG_RETRANS_DATA_ACKED`).
    fn take_acked(&mut self, now: Nanos, ack: u64) -> Option<Nanos> {
        let mut karn_ok = true;
        let mut newest = None;
        for s in self.segments.iter().take_while(|s| s.end() <= ack) {
            karn_ok &= !s.retransmitted;
            newest = Some(s.sent_at);
        }
        newest.filter(|_| karn_ok).map(|t| now.saturating_sub(t))
    }

    /// Feeds the segments covered by `ack` to the rate estimator and drops them; a segment
    /// only partly covered is trimmed.
    fn rate_deliver(&mut self, rs: &mut SampleBuilder, ack: u64) {
        while let Some(front) = self.segments.front_mut() {
            if front.end() <= ack {
                let s = *front;
                self.segments.pop_front();
                self.rate.on_segment_delivered(rs, s.rate, s.sent_at, s.end());
            } else {
                if front.seq < ack {
                    front.len -= (ack - front.seq) as u32;
                    front.seq = ack;
                }
                break;
            }
        }
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

    /// Retransmission timeout (RFC 6298 §5.4–5.6, RFC 5681 §3.1, RFC 6582 §4).
    fn on_rto(&mut self, now: Nanos) {
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
            return;
        }
        self.stats.timeouts += 1;
        self.cc.on_timeout(now, self.bytes_in_flight(), self.mss);
        // RFC 6582 §4: duplicate ACKs for data sent before the timeout must not trigger
        // another fast retransmit.
        self.recover = self.snd_max;
        self.in_recovery = false;
        self.inflation = 0;
        self.dupacks = 0;
        self.limited_bytes = 0;
        self.hole_pending = false;
        self.rate.reset_dup_credit();
        // Go-back-N: everything from snd_una is resent as the (slow-starting) window allows.
        self.snd_nxt = self.snd_una;
        // RFC 6298 §5.5–5.6: back off, restart the timer, retransmit now (unpaced).
        self.rtt.back_off();
        self.rto_deadline = Some(now + self.rtt.rto());
        self.next_release = self.next_release.min(now);
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

    /// Whether the sender is in NewReno fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Total bytes delivered as seen by the rate estimator (cumulative ACKs plus
    /// duplicate-ACK credit).
    pub fn delivered(&self) -> u64 {
        self.rate.delivered()
    }
}
