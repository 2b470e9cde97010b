//! The TCP receiver: reassembly, delayed ACKs, timestamps and the advertised window.

use cellshare_core::Nanos;

/// Linux `net.ipv4.tcp_synack_retries` default: SYN-ACK retransmissions before the
/// half-open connection is dropped (`reqsk_timer_handler`).
pub const TCP_SYNACK_RETRIES: u32 = 5;

/// Linux `TCP_MAX_QUICKACKS`: quick ACKs granted at most when quick-ACK mode is entered.
pub const TCP_MAX_QUICKACKS: u32 = 16;

use crate::tcp::{linux_timer_expiry, ts_clock, ts_not_older, ReceiveWindowPolicy, TcpConfig};
use crate::wire::{Ack, Segment, MAX_SACK_BLOCKS};

/// Counters kept by a [`TcpReceiver`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Data segments received (including duplicates and out-of-order ones).
    pub segments_received: u64,
    /// Payload bytes received (including duplicates).
    pub bytes_received: u64,
    /// Segments that carried no new byte (entirely below `rcv_nxt` or already buffered).
    pub duplicate_segments: u64,
    /// Segments that arrived beyond a hole.
    pub out_of_order_segments: u64,
    /// ACKs emitted.
    pub acks_sent: u64,
    /// ACKs emitted because the delayed-ACK timer fired.
    pub delayed_acks: u64,
    /// ACKs that did not advance the cumulative ACK (duplicate ACKs).
    pub dup_acks_sent: u64,
    /// ACKs whose first SACK block reported a duplicate segment (D-SACK, RFC 2883).
    pub dsacks_sent: u64,
}

/// The receiving end of one TCP connection (sans-I/O).
///
/// Rules implemented (sources next to the code):
///
/// - cumulative ACK of the in-order point `rcv_nxt`; out-of-order data is kept as a sorted
///   list of disjoint, coalesced ranges (no per-segment allocation once warmed up);
/// - delayed ACKs as Linux (RFC 1122 §4.2.3.2, RFC 5681 §4.2): ACK as soon as more than
///   `delayed_ack_segments − 1` full-sized segments' worth of bytes is unacknowledged, else
///   within `delayed_ack_timeout`; immediate ACK for an out-of-order segment (a duplicate
///   ACK), for a segment that fills all or part of a hole, and for a duplicate segment;
/// - Linux's quick-ACK mode (when [`TcpConfig::quickack`] is on, as in Linux): while quick
///   ACKs are left, every in-order segment is ACKed at once (`__tcp_ack_snd_check`:
///   `tcp_in_quickack_mode`); each ACK sent uses one (`tcp_dec_quickack_mode`). Quick ACKs
///   are granted (`tcp_incr_quickack`: `min(rcv_wnd / (2·MSS), 16)`, at least 2, never
///   lowering what is left) by the first data segment and by in-order data arriving more
///   than the receiver's RTO after the previous data (`tcp_event_data_recv`: "Too long gap.
///   Apparently sender failed to restart window, so that we send ACKs quickly"), and by a
///   duplicate segment (`tcp_data_queue` → `tcp_enter_quickack_mode`). The receiver's RTO
///   is Linux's from one RTT sample: the handshake's, from the (last) SYN-ACK to the
///   sender's next segment (`tcp_synack_rtt_meas`), `RTT + max(2·RTT, min RTO)`; without a
///   handshake, the initial RTO. (Linux also adapts the delayed-ACK timeout `ato` between
///   40 ms and max(that RTT, 40 ms); here it is `delayed_ack_timeout_ms` throughout, the
///   same whenever the handshake's RTT is at most 40 ms.)
/// - timestamps (RFC 7323): the ACK's TSval is the receiver clock when it is sent, its
///   TSecr is TS.Recent, which is updated only from a segment covering `Last.ACK.sent`
///   (§4.3) and never moves backwards (PAWS, §5.3);
/// - the advertised window comes from a [`ReceiveWindowPolicy`]; its right edge never moves
///   left, and it only changes when `rcv_nxt` advances;
/// - SACK (RFC 2018 §4, when [`TcpConfig::sack`] is on): every ACK carries up to
///   [`MAX_SACK_BLOCKS`] out-of-order ranges. The first is the range containing the segment
///   that triggered the ACK (unless that segment advanced `rcv_nxt`), then the most recently
///   reported other ranges, then (if slots remain) further buffered ranges, lowest first.
///   A range leaves the list once `rcv_nxt` covers it. The recency list is a fixed array: no
///   per-ACK allocation;
/// - D-SACK (RFC 2883, when [`TcpConfig::dsack`] is on as well): the ACK answering a
///   duplicate segment reports the duplicated bytes in its first block (§4 (1)) — the part
///   below `rcv_nxt`, or the part of an out-of-order segment already buffered, as Linux's
///   `tcp_dsack_set` — followed by the buffered range holding them when above `rcv_nxt`
///   (§4 (3): the duplicate's block moves to the front of the recency list) and then the
///   other blocks. A D-SACK block is reported once (§4 (2)).
///
/// The application reads instantly: in-order bytes count as delivered at once.
#[derive(Debug)]
pub struct TcpReceiver {
    mss: u32,
    delayed_ack: bool,
    delayed_ack_timeout: Nanos,
    delayed_ack_segments: u32,
    ts_offset_ms: u32,
    policy: Box<dyn ReceiveWindowPolicy>,
    /// Next in-order byte expected.
    rcv_nxt: u64,
    /// Out-of-order ranges `[start, end)` above `rcv_nxt`, sorted, disjoint, non-adjacent.
    ooo: Vec<(u64, u64)>,
    /// Whether ACKs carry SACK blocks.
    sack: bool,
    /// Whether a duplicate segment is reported in a D-SACK block (with `sack`).
    dsack: bool,
    /// The duplicate range the next ACK reports as its first (D-SACK) block.
    pending_dsack: Option<(u64, u64)>,
    /// The most recently reported SACK blocks, newest first (each an exact `ooo` range);
    /// the first `sack_recent_len` entries are valid.
    sack_recent: [(u64, u64); MAX_SACK_BLOCKS],
    sack_recent_len: usize,
    /// RFC 7323 TS.Recent, once a segment has set it.
    ts_recent: Option<u32>,
    /// RFC 7323 Last.ACK.sent: the cumulative ACK of the last ACK emitted.
    last_ack_sent: u64,
    /// Right edge (`ack + window`) of the last advertised window.
    right_edge: u64,
    /// In-order bytes received since the last ACK.
    unacked_bytes: u64,
    /// An ACK must be sent now.
    ack_now: bool,
    /// Delayed-ACK deadline, while in-order data waits for an ACK.
    delack_deadline: Option<Nanos>,
    /// Whether the pending ACK was released by the delayed-ACK timer.
    ack_by_timer: bool,
    /// The handshake's passive side: a SYN-ACK is due.
    synack_due: bool,
    /// SYN-RECEIVED (a SYN answered, the sender's next segment not yet here): the SYN-ACK's
    /// retransmission deadline and the retransmissions so far (Linux's request socket,
    /// `reqsk_timer_handler`: `TCP_TIMEOUT_INIT << num_timeout`).
    syn_rcvd: Option<(Nanos, u32)>,
    /// Whether the sender's first non-SYN segment has arrived (the connection is
    /// established; a SYN after that is stale).
    established: bool,
    initial_rto: Nanos,
    min_rto: Nanos,
    max_rto: Nanos,
    /// `CONFIG_HZ` of the delayed-ACK and SYN-ACK timers ([`TcpConfig::timer_hz`]).
    timer_hz: u32,
    /// Quick-ACK mode on (Linux's behaviour).
    quickack: bool,
    /// One ACK per burst of segments arriving together ([`TcpConfig::burst_acks`]).
    burst_acks: bool,
    /// An ACK is due once the segments arriving at this instant are all in.
    burst_ack_at: Option<Nanos>,
    /// SACK compression ([`TcpConfig::comp_sack_nr`]): the most SACKs held back, the
    /// longest wait, the SACKs held back now (`tp->compressed_ack`), the cumulative ACK the
    /// duplicate-ACK count belongs to (`compressed_ack_rcv_nxt`), the duplicate ACKs sent at
    /// once for it (`dup_ack_counter`) and when the held SACK goes (the hrtimer).
    comp_sack_nr: u32,
    comp_sack_delay: Nanos,
    compressed_ack: u32,
    compressed_rcv_nxt: u64,
    dup_ack_counter: u32,
    comp_sack_at: Option<Nanos>,
    /// The handshake's RTT (the passive side's first SRTT, `tcp_synack_rtt_meas`), if
    /// measured.
    handshake_rtt: Option<Nanos>,
    /// Quick ACKs left (Linux `icsk_ack.quick`).
    quick: u32,
    /// When in-order data last arrived (Linux `icsk_ack.lrcvtime`).
    last_data_at: Option<Nanos>,
    /// The receiver's own RTO (Linux `icsk_rto` of the receiving socket), for the
    /// quick-ACK gap rule.
    rto: Nanos,
    /// When the latest SYN-ACK was sent.
    synack_sent_at: Option<Nanos>,
    stats: ReceiverStats,
}

impl TcpReceiver {
    /// A receiver whose window policy is built from `cfg.rwnd`.
    pub fn new(cfg: &TcpConfig, now: Nanos, ts_offset_ms: u32) -> Self {
        let policy = cfg.rwnd.build(cfg.mss, ts_offset_ms);
        Self::with_policy(cfg, policy, now, ts_offset_ms)
    }

    /// A receiver using a caller-supplied window `policy` (e.g. DRWA); `cfg.rwnd` is ignored.
    pub fn with_policy(
        cfg: &TcpConfig,
        policy: Box<dyn ReceiveWindowPolicy>,
        now: Nanos,
        ts_offset_ms: u32,
    ) -> Self {
        let right_edge = policy.window(now) as u64;
        Self {
            mss: cfg.mss,
            delayed_ack: cfg.delayed_ack,
            delayed_ack_timeout: cfg.delayed_ack_timeout(),
            delayed_ack_segments: cfg.delayed_ack_segments.max(1),
            ts_offset_ms,
            policy,
            rcv_nxt: 0,
            ooo: Vec::with_capacity(8),
            sack: cfg.sack,
            dsack: cfg.sack && cfg.dsack,
            pending_dsack: None,
            sack_recent: [(0, 0); MAX_SACK_BLOCKS],
            sack_recent_len: 0,
            ts_recent: None,
            last_ack_sent: 0,
            right_edge,
            unacked_bytes: 0,
            ack_now: false,
            delack_deadline: None,
            ack_by_timer: false,
            synack_due: false,
            syn_rcvd: None,
            established: false,
            initial_rto: cfg.initial_rto(),
            min_rto: cfg.min_rto(),
            max_rto: cfg.max_rto(),
            timer_hz: cfg.timer_hz,
            quickack: cfg.quickack,
            burst_acks: cfg.burst_acks,
            burst_ack_at: None,
            comp_sack_nr: if cfg.sack { cfg.comp_sack_nr } else { 0 },
            comp_sack_delay: cfg.comp_sack_delay_us as Nanos * 1_000,
            compressed_ack: 0,
            compressed_rcv_nxt: 0,
            dup_ack_counter: 0,
            comp_sack_at: None,
            handshake_rtt: None,
            quick: 0,
            last_data_at: None,
            rto: cfg.initial_rto(),
            synack_sent_at: None,
            stats: ReceiverStats::default(),
        }
    }

    /// Processes an arriving data segment.
    pub fn on_segment(&mut self, now: Nanos, seg: &Segment) {
        if seg.syn {
            self.on_syn(now, seg);
            return;
        }
        if !self.established {
            // Linux `tcp_check_req`: the sender's first segment after the SYN (its third
            // segment, or data if that was lost) completes the handshake.
            if let Some(sent) = self.synack_sent_at.take() {
                // `tcp_synack_rtt_meas` → `tcp_rtt_estimator`'s first sample R:
                // SRTT = R, RTTVAR = max(2R, min RTO), RTO = SRTT + RTTVAR.
                let r = now.saturating_sub(sent);
                self.rto = (r + (2 * r).max(self.min_rto)).min(self.max_rto);
                self.handshake_rtt = Some(r);
            }
            self.established = true;
            self.syn_rcvd = None;
            self.synack_due = false;
        }
        if seg.len == 0 {
            // A pure ACK (the handshake's third segment): no data.
            return;
        }
        self.stats.segments_received += 1;
        self.stats.bytes_received += seg.len as u64;
        self.update_ts_recent(seg);
        let (seq, end) = (seg.seq, seg.end());
        if end <= self.rcv_nxt {
            // Entirely old: the ACK was lost or the retransmission was spurious. Answer at
            // once so the sender learns rcv_nxt (RFC 9293 §3.10.7.4; Linux quick-ACKs).
            self.stats.duplicate_segments += 1;
            self.note_dsack(seq, end);
            self.ack_now = true;
            // Linux `tcp_data_queue`: "A retransmit ... Force an immediate ack", and
            // `tcp_enter_quickack_mode` for the ACKs after it.
            self.grant_quickacks();
        } else if seq <= self.rcv_nxt {
            if seq < self.rcv_nxt {
                // Partly old (Linux `tcp_data_queue`: D-SACK the part below rcv_nxt).
                self.note_dsack(seq, self.rcv_nxt);
            }
            let had_hole = !self.ooo.is_empty();
            self.data_received(now);
            let before = self.rcv_nxt;
            self.rcv_nxt = end;
            self.absorb_ooo();
            self.unacked_bytes += self.rcv_nxt - before;
            if had_hole {
                // RFC 5681 §4.2: immediate ACK when a segment fills all or part of a gap.
                self.ack_now = true;
            } else if !self.delayed_ack || self.quick > 0 {
                self.ack_now = true;
            } else if self.unacked_bytes > (self.delayed_ack_segments as u64 - 1) * self.mss as u64
            {
                // RFC 5681 §4.2 / Linux __tcp_ack_snd_check: ACK once more than one
                // full-sized segment (in general, n − 1) is unacknowledged; with
                // `burst_acks`, once the segments of this instant are all in (the read).
                if self.burst_acks {
                    self.burst_ack_at = Some(now);
                } else {
                    self.ack_now = true;
                }
            } else if self.delack_deadline.is_none() {
                // RFC 1122 §4.2.3.2: delay at most 500 ms; Linux's minimum is 40 ms.
                self.delack_deadline = Some(self.timer_at(now, self.delayed_ack_timeout));
            }
        } else {
            // RFC 5681 §4.2: an out-of-order segment SHOULD trigger an immediate duplicate ACK.
            let (new_bytes, block, dup) = self.insert_ooo(seq, end);
            if new_bytes {
                self.stats.out_of_order_segments += 1;
            } else {
                self.stats.duplicate_segments += 1;
            }
            if let Some((ds, de)) = dup {
                self.note_dsack(ds, de);
            }
            self.note_sack_block(block);
            self.ack_out_of_order(now);
        }
        self.policy.on_segment(now, seg, self.rcv_nxt);
    }

    /// The ACK of an out-of-order segment: at once (RFC 5681 §4.2), or, with SACK
    /// compression, as Linux's `__tcp_ack_snd_check` with out-of-order data queued: at once
    /// in quick-ACK mode, for the first `TCP_FASTRETRANS_THRESH` (3) duplicate ACKs of a
    /// cumulative ACK, and once `comp_sack_nr` SACKs are held; otherwise held until the
    /// compression timer (`comp_sack_delay`, at most 5 % of the RTT) or another ACK.
    fn ack_out_of_order(&mut self, now: Nanos) {
        const TCP_FASTRETRANS_THRESH: u32 = 3;
        if self.comp_sack_nr == 0 || self.quick > 0 || self.compressed_ack >= self.comp_sack_nr {
            self.ack_now = true;
            return;
        }
        if self.compressed_rcv_nxt != self.rcv_nxt {
            self.compressed_rcv_nxt = self.rcv_nxt;
            self.dup_ack_counter = 0;
        }
        if self.dup_ack_counter < TCP_FASTRETRANS_THRESH {
            self.dup_ack_counter += 1;
            self.ack_now = true;
            return;
        }
        self.compressed_ack += 1;
        if self.comp_sack_at.is_none() {
            // "compress ack timer: 5 % of rtt, but no more than tcp_comp_sack_delay_ns".
            let delay = self.handshake_rtt.map_or(self.comp_sack_delay, |r| self.comp_sack_delay.min(r / 20));
            self.comp_sack_at = Some(now + delay);
        }
    }

    /// Linux `tcp_event_data_recv`, the quick-ACK part: the first data, or data after a
    /// pause longer than the receiver's RTO, grants quick ACKs.
    fn data_received(&mut self, now: Nanos) {
        let pause_over_rto = self
            .last_data_at
            .is_none_or(|t| now.saturating_sub(t) > self.rto);
        if pause_over_rto {
            self.grant_quickacks();
        }
        self.last_data_at = Some(now);
    }

    /// When a timer armed at `now` for `timeout` fires ([`TcpConfig::timer_hz`]).
    fn timer_at(&self, now: Nanos, timeout: Nanos) -> Nanos {
        linux_timer_expiry(now, timeout, self.timer_hz)
    }

    /// When the SYN-ACK sent at `now` after `retries` retransmissions is resent: the
    /// initial RTO doubled per retransmission, at most the maximum RTO.
    fn synack_timer(&self, now: Nanos, retries: u32) -> Nanos {
        let backoff = self.initial_rto.saturating_mul(1u64 << retries.min(30));
        self.timer_at(now, backoff.min(self.max_rto))
    }

    /// Linux `tcp_incr_quickack(sk, TCP_MAX_QUICKACKS)`.
    fn grant_quickacks(&mut self) {
        if !self.quickack {
            return;
        }
        let by_window = (self.advertised_window() as u64 / (2 * self.mss.max(1) as u64)) as u32;
        let n = if by_window == 0 {
            2
        } else {
            by_window.min(TCP_MAX_QUICKACKS)
        };
        self.quick = self.quick.max(n);
    }

    /// A SYN (RFC 9293 §3.10.7.2, Linux `tcp_conn_request` / `tcp_check_req`): answered by a
    /// SYN-ACK at once, a retransmitted SYN by the SYN-ACK again (`inet_rtx_syn_ack`).
    /// TS.Recent takes the SYN's TSval (RFC 7323 §4.3), which the SYN-ACK echoes.
    fn on_syn(&mut self, now: Nanos, seg: &Segment) {
        if self.established {
            // A stale SYN on an established connection (Linux answers with a challenge
            // ACK, RFC 5961 §4.2; the sender ignores it): nothing changes here.
            return;
        }
        if ts_not_older(seg.ts_val, self.ts_recent) {
            self.ts_recent = Some(seg.ts_val);
        }
        self.synack_due = true;
        let retries = self.syn_rcvd.map_or(0, |(_, r)| r);
        self.syn_rcvd = Some((self.synack_timer(now, retries), retries));
    }

    /// RFC 7323 §4.3: TS.Recent takes the TSval of a segment that covers Last.ACK.sent
    /// (`SEG.SEQ <= Last.ACK.sent < SEG.SEQ + SEG.LEN`), i.e. the segment at the left edge
    /// of the window, and never moves backwards (§5.3 R1/R3).
    fn update_ts_recent(&mut self, seg: &Segment) {
        if seg.seq <= self.last_ack_sent
            && self.last_ack_sent < seg.end()
            && ts_not_older(seg.ts_val, self.ts_recent)
        {
            self.ts_recent = Some(seg.ts_val);
        }
    }

    /// RFC 2883 §4: the next ACK reports `[start, end)` as duplicated (the latest duplicate
    /// wins when several arrive before an ACK, as Linux's single `duplicate_sack` slot).
    fn note_dsack(&mut self, start: u64, end: u64) {
        if self.dsack && start < end {
            self.pending_dsack = Some((start, end));
        }
    }

    /// Moves `rcv_nxt` over buffered ranges that became contiguous.
    fn absorb_ooo(&mut self) {
        let mut n = 0;
        for &(s, e) in &self.ooo {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            n += 1;
        }
        self.ooo.drain(..n);
        if n > 0 {
            // RFC 2018 §4: blocks covered by the cumulative ACK are no longer reported.
            let rcv_nxt = self.rcv_nxt;
            self.retain_recent(|(_, e)| e > rcv_nxt);
        }
    }

    /// Keeps the recency-list entries for which `keep` holds, in order.
    fn retain_recent(&mut self, keep: impl Fn((u64, u64)) -> bool) {
        let mut k = 0;
        for i in 0..self.sack_recent_len {
            let b = self.sack_recent[i];
            if keep(b) {
                self.sack_recent[k] = b;
                k += 1;
            }
        }
        self.sack_recent_len = k;
    }

    /// The segment that triggers the next ACK lies in the buffered range `block`: it becomes
    /// the first SACK block, replacing the ranges it absorbed (RFC 2018 §4).
    fn note_sack_block(&mut self, block: (u64, u64)) {
        if !self.sack {
            return;
        }
        // Ranges merged into `block` are contained in it; drop them (and `block` itself).
        self.retain_recent(|(s, e)| !(s >= block.0 && e <= block.1));
        let n = self.sack_recent_len.min(MAX_SACK_BLOCKS - 1);
        self.sack_recent.copy_within(0..n, 1);
        self.sack_recent[0] = block;
        self.sack_recent_len = n + 1;
    }

    /// Inserts `[s0, e0)` into the out-of-order list, coalescing overlapping and adjacent
    /// ranges; returns whether any of its bytes was not buffered already, the buffered
    /// range that now contains it, and the first part of it that was already buffered (the
    /// D-SACK range, Linux `tcp_data_queue_ofo`), if any.
    fn insert_ooo(&mut self, s0: u64, e0: u64) -> (bool, (u64, u64), Option<(u64, u64)>) {
        let i = self.ooo.partition_point(|r| r.1 < s0);
        let (mut s, mut e) = (s0, e0);
        let mut covered = 0;
        let mut dup = None;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            let (rs, re) = self.ooo[j];
            let (os, oe) = (rs.max(s0), re.min(e0));
            if oe > os && dup.is_none() {
                dup = Some((os, oe));
            }
            covered += oe.saturating_sub(os);
            s = s.min(rs);
            e = e.max(re);
            j += 1;
        }
        if i == j {
            self.ooo.insert(i, (s, e));
        } else {
            self.ooo[i] = (s, e);
            self.ooo.drain(i + 1..j);
        }
        (covered < e0 - s0, (s, e), dup)
    }

    /// The pending ACK, if one is due (at most one: the simulator calls this after every
    /// [`TcpReceiver::on_segment`] and [`TcpReceiver::on_timeout`]).
    pub fn poll_ack(&mut self, now: Nanos) -> Option<Ack> {
        if self.synack_due {
            // RFC 7323 §2.2: the window field of a SYN-ACK is never scaled.
            self.synack_due = false;
            self.synack_sent_at = Some(now);
            return Some(Ack {
                ack: 0,
                rwnd: self.advertised_window().min(u16::MAX as u32),
                ts_val: ts_clock(now, self.ts_offset_ms),
                ts_ecr: self.ts_recent.unwrap_or(0),
                syn: true,
                ..Ack::default()
            });
        }
        if !self.ack_now {
            return None;
        }
        if self.rcv_nxt != self.last_ack_sent {
            // New in-order data: the policy may move the right edge, but never to the left
            // (RFC 9293 §3.8.6 "the window should not be shrunk").
            let want = self.rcv_nxt + self.policy.window(now) as u64;
            self.right_edge = self.right_edge.max(want);
        } else {
            self.stats.dup_acks_sent += 1;
        }
        let rwnd = (self.right_edge.saturating_sub(self.rcv_nxt)).min(u32::MAX as u64) as u32;
        let mut ack = Ack {
            ack: self.rcv_nxt,
            rwnd,
            ts_val: ts_clock(now, self.ts_offset_ms),
            ts_ecr: self.ts_recent.unwrap_or(0),
            ..Ack::default()
        };
        if let Some((s, e)) = self.pending_dsack.take() {
            // RFC 2883 §4 (1): the D-SACK block comes first.
            ack.push_sack(s, e);
            self.stats.dsacks_sent += 1;
        }
        if self.sack {
            self.fill_sack(&mut ack);
        }
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_bytes = 0;
        self.ack_now = false;
        self.delack_deadline = None;
        self.burst_ack_at = None;
        // `tcp_event_ack_sent`: any ACK carries the held SACKs and cancels the timer.
        self.compressed_ack = 0;
        self.comp_sack_at = None;
        self.stats.acks_sent += 1;
        // Linux `tcp_dec_quickack_mode`: each ACK sent uses a quick ACK.
        self.quick = self.quick.saturating_sub(1);
        if std::mem::take(&mut self.ack_by_timer) {
            self.stats.delayed_acks += 1;
        }
        Some(ack)
    }

    /// Writes the SACK blocks: the recency list, then other buffered ranges (RFC 2018 §4:
    /// "as many distinct SACK blocks as possible"), lowest first.
    fn fill_sack(&self, ack: &mut Ack) {
        let recent = &self.sack_recent[..self.sack_recent_len];
        for &(s, e) in recent {
            ack.push_sack(s, e);
        }
        for &r in &self.ooo {
            if ack.sack_blocks().len() >= MAX_SACK_BLOCKS {
                break;
            }
            if !recent.contains(&r) {
                ack.push_sack(r.0, r.1);
            }
        }
    }

    /// When the delayed-ACK timer (or the end-of-burst ACK, at the current instant) fires,
    /// if armed.
    pub fn poll_timeout(&self) -> Option<Nanos> {
        [
            self.delack_deadline,
            self.burst_ack_at,
            self.comp_sack_at,
            self.syn_rcvd.map(|(d, _)| d),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Fires the delayed-ACK timer (and the SYN-ACK's retransmission timer) if due;
    /// harmless at any other time.
    pub fn on_timeout(&mut self, now: Nanos) {
        if let Some((_, retries)) = self.syn_rcvd.filter(|&(d, _)| d <= now) {
            // `reqsk_timer_handler`: resend the SYN-ACK, doubling, `tcp_synack_retries` times,
            // then drop the half-open connection.
            if retries >= TCP_SYNACK_RETRIES {
                self.syn_rcvd = None;
            } else {
                self.syn_rcvd = Some((self.synack_timer(now, retries + 1), retries + 1));
                self.synack_due = true;
            }
        }
        if self.comp_sack_at.is_some_and(|d| d <= now) {
            // `tcp_compressed_ack_kick`: send the held SACKs.
            self.comp_sack_at = None;
            if self.compressed_ack > 0 {
                self.ack_now = true;
            }
        }
        if self.burst_ack_at.is_some_and(|d| d <= now) {
            // The burst is in: the read ACKs it (not a delayed ACK).
            self.burst_ack_at = None;
            self.ack_now = true;
        }
        if self.delack_deadline.is_some_and(|d| d <= now) {
            self.delack_deadline = None;
            self.ack_now = true;
            self.ack_by_timer = true;
        }
    }

    /// In-order bytes handed to the application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    /// The window (bytes) the next ACK would advertise if `rcv_nxt` does not move.
    pub fn advertised_window(&self) -> u32 {
        self.right_edge
            .saturating_sub(self.rcv_nxt)
            .min(u32::MAX as u64) as u32
    }

    /// Number of disjoint out-of-order ranges buffered.
    pub fn ooo_ranges(&self) -> usize {
        self.ooo.len()
    }

    /// Counters.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
}
