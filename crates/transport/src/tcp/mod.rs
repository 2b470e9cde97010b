//! TCP endpoints as sans-I/O state machines.
//!
//! [`TcpSender`] and [`TcpReceiver`] exchange [`Segment`](crate::wire::Segment)s and
//! [`Ack`](crate::wire::Ack)s through whatever network the caller simulates. Neither reads a
//! clock: every call carries `now`, and each reports when it next wants to be woken
//! (`poll_timeout`). Sequence numbers count payload bytes from 0. The connection opens
//! with a three-way handshake ([`TcpConfig::handshake`], on by default as Linux; see the
//! sender's `handshake` module): the sender connects when the application first writes,
//! the SYN-ACK's RTT seeds its estimator and its controller; with `handshake = false` it is
//! established at construction. There is no teardown: a flow is complete when
//! [`TcpSender::all_acked`] holds.
//!
//! # Driving the endpoints
//!
//! - sender: `write` data; after every event (`on_ack`, `on_timeout`, a pacer release at
//!   `poll_timeout`) call `poll_transmit(now)` until it returns `None`;
//! - receiver: after every `on_segment` and `on_timeout` call `poll_ack(now)` (it yields at
//!   most one ACK).
//!
//! # What is implemented (sources are cited next to the code)
//!
//! - **Windows**: the congestion controller ([`crate::cc::CongestionControl`]) owns `cwnd`
//!   and `ssthresh`, i.e. slow start and congestion avoidance; the sender never has more
//!   than `min(effective cwnd, rwnd)` bytes outstanding, except that one segment may
//!   always be in flight unless the controller pauses the sender
//!   ([`crate::cc::CongestionControl::paused`]). Initial window 10·MSS (RFC 6928), MSS
//!   1448 by default.
//! - **SACK** (RFC 2018), on by default ([`TcpConfig::sack`], Linux `tcp_sack = 1`): the
//!   receiver reports up to three out-of-order blocks per ACK (the one holding the segment
//!   that triggered the ACK first, then the most recently reported ones), carried in the
//!   fixed-size [`Ack::sack`](crate::wire::Ack::sack) array. Both endpoints of a connection
//!   are built from one [`TcpConfig`], so `sack` stands for the handshake's SACK-permitted
//!   exchange: on, the sender keeps the scoreboard from the start (as Linux with
//!   `tcp_sack = 1`); off, it is the NewReno sender below.
//! - **SACK loss recovery** (RFC 6675) on a per-segment scoreboard (see the `sender`
//!   module): IsLost (DupThresh SACKed segments, or more than `(DupThresh − 1)·MSS` SACKed
//!   bytes, above a hole), `pipe`, recovery entered on the DupThresh-th duplicate ACK that
//!   SACKs new data or as soon as IsLost(`snd_una`) holds (not before the cumulative ACK
//!   reaches the previous `recover`), the first hole retransmitted at once, then NextSeg
//!   rules 1–4 (lost holes, new data, other holes below the highest SACK, one rescue of the
//!   tail per episode), exit when the cumulative ACK reaches `recover` (`cc.on_recovery_end`).
//!   No window inflation: the controller sets `cwnd = ssthresh` in `on_congestion_event`;
//!   during recovery **PRR** (RFC 6937, PRR-SSRB, [`TcpConfig::prr`], default on as in
//!   Linux) meters (re)transmissions so the flight falls smoothly to that `cwnd`; with
//!   `prr = false` the sender uses RFC 6675's rule, sending while `pipe + len ≤ cwnd`.
//!   `LossEvent::bytes_in_flight` is `pipe` just before the ACK that revealed the loss
//!   (for a window-limited flow, the cwnd), not the RFC's FlightSize, which SACKed data
//!   held behind holes can inflate far beyond what the path holds. Beyond RFC 6675, a
//!   retransmission is deemed lost once data sent after it is SACKed (Linux's pre-RACK
//!   `tcp_mark_lost_retrans`) and is resent without waiting for the RTO. With SACK in use
//!   [`TcpSender::bytes_in_flight`] (and `AckEvent::{bytes_in_flight, prior_in_flight}`) is
//!   `pipe`, and SACKed bytes count as delivered (`AckEvent::delivered`, rate samples); a
//!   later cumulative ACK does not count them again. `AckEvent::acked_bytes` stays the
//!   cumulatively acknowledged bytes.
//! - **NewReno loss recovery** (without SACK): RFC 5681 duplicate-ACK counting, fast
//!   retransmit on the third duplicate ACK, Limited Transmit (RFC 3042), and NewReno fast
//!   recovery (RFC 6582): `recover` point, window inflation by one MSS per duplicate ACK
//!   (done by the sender: effective window = `cc.cwnd()` + inflation, so controllers only
//!   set `ssthresh`/`cwnd` in `on_congestion_event`), partial ACKs retransmit the next hole
//!   and deflate the window, the full ACK ends recovery with `cwnd = ssthresh`
//!   (`cc.on_recovery_end`).
//! - **Retransmission timer** (RFC 6298 §5, exponential back-off): the RTO follows Linux's
//!   estimator by default (`RTO = SRTT + max(4·mdev, 200 ms)`, [`RtoEstimator::Linux`]) or
//!   RFC 6298 §2 with a 200 ms floor ([`RtoEstimator::Rfc6298`]), with the matching choice of
//!   RTT samples (Karn's rule either way, Linux adding timestamp samples). After a timeout
//!   without SACK the sender goes back to `snd_una` and resends everything (go-back-N) as the
//!   controller's post-timeout window allows; with SACK (RFC 6675 §5.1) unSACKed segments
//!   are marked lost (with RACK only those sent at least RACK.rtt ago, and the head) and
//!   resent in order, SACKed ones never, and the controller's `on_timeout` gets `pipe`; a
//!   timeout that repeats before any progress keeps ssthresh (Linux `tcp_enter_loss`). RTT
//!   samples are taken with nanosecond precision from per-segment send times, kept in a
//!   ring buffer that is reused (no per-segment allocation in steady state).
//! - **Linux's loss recovery** (see the `sender` module): RACK-TLP (RFC 8985), F-RTO
//!   (RFC 5682), D-SACK (RFC 2883) at both ends, undo of spurious reductions (RFC 3708,
//!   Eifel RFC 3522) and the congestion-window restart after idle (RFC 5681 §4.1), each with
//!   its [`TcpConfig`] switch, on by default as in Linux. `docs/tcp.md` lists the rules and
//!   the comparison with Linux in the emulator.
//! - **Timestamps** (RFC 7323): both ends' clocks tick every millisecond,
//!   `ts = now / MS + ts_offset_ms` ([`ts_clock`]); data carries the sender clock and the
//!   newest receiver TSval; ACKs carry the receiver clock and TS.Recent, updated by the
//!   RFC 7323 §4.3 rule. The ACK's TSval/TSecr are passed to the controller in
//!   [`crate::cc::AckEvent`].
//! - **Delayed ACKs** (RFC 1122, RFC 5681 §4.2, Linux-like): ACK every second full-sized
//!   segment or after 40 ms; immediate ACK for out-of-order segments (duplicate ACKs),
//!   hole-filling segments and duplicate segments; Linux's quick-ACK mode (up to 16
//!   immediate ACKs after the first data, after a pause in the data longer than the
//!   receiver's RTO, and after a duplicate segment; [`TcpConfig::quickack`]).
//! - **Timers**: exact by default, or firing when Linux's timer wheel would at a given
//!   `CONFIG_HZ` ([`TcpConfig::timer_hz`], [`linux_timer_expiry`]).
//! - **Delivery-rate samples** (draft-cheng-iccrg-delivery-rate-estimation \[delivery-rate\]) with
//!   application-limited marking, for BBR-like controllers; SACKed segments are delivered
//!   when first SACKed.
//! - **Pacing**: when `cc.pacing_rate()` is `Some(r)` (bytes/s), consecutive segments are
//!   released `len / r` apart (payload bytes); the timeout retransmission is not delayed.
//! - **Receive window**: a pluggable [`ReceiveWindowPolicy`]; [`AutoTuning`] models Linux's
//!   dynamic right-sizing, [`FixedWindow`] a constant buffer, [`Drwa`] and [`Rtac`] the
//!   receiver-side bufferbloat controls of \[rsd-thesis\] chapter 2.
//! - **Send buffer** ([`SendBuffer`]): Linux-like auto-tuning `sndbuf = min(2·cwnd,
//!   tcp_wmem max)` (\[rsd-thesis\] Eq. (3.2)); the simulator applies it to senders at the UE.
//!
//! # Not implemented
//!
//! - SACK reneging (the receiver never discards out-of-order data, so the sender keeps SACK
//!   marks across a timeout); F-RTO and undo without SACK; RFC 6675 mode's DupThresh stays
//!   `dupack_threshold` (only RACK adapts to reordering). Without SACK the delivery-rate
//!   estimator credits one MSS per duplicate ACK, as Linux does for non-SACK connections.
//! - Nagle's algorithm (segments are sent as soon as the windows allow, like
//!   `TCP_NODELAY`), zero-window probing (the policies never advertise zero), Linux's
//!   adaptive delayed-ACK timeout (`ato`, which stays 40 ms when the handshake's RTT is at
//!   most 40 ms), ECN, connection teardown; the passive side's own
//!   SRTT seed from the SYN-ACK (`tcp_synack_rtt_meas`, which matters only for an app's
//!   server-side leg, established without a handshake of its own).

mod config;
mod rate;
mod receiver;
mod rtt;
mod rwnd;
mod sender;
mod sndbuf;
mod timer;

#[cfg(test)]
mod tests;

pub use config::{win_from_space, RwndConfig, TcpConfig, DEFAULT_RMEM_INITIAL, DEFAULT_RMEM_MAX};
pub use receiver::{ReceiverStats, TcpReceiver, TCP_MAX_QUICKACKS, TCP_SYNACK_RETRIES};
pub use rtt::{RtoEstimator, RttEstimator, CLOCK_GRANULARITY};
pub use rwnd::{
    drwa_window, k_from_theta, rtac_window, AutoTuning, Drwa, FixedWindow, ReceiveWindowPolicy,
    ReceiverEstimator, Rtac, RtacParams, RENO_A,
};
pub use sender::{SenderStats, TcpSender, TCP_SYN_RETRIES};
pub use sndbuf::{SendBuffer, DEFAULT_WMEM_INITIAL, DEFAULT_WMEM_MAX};
pub use timer::linux_timer_expiry;

use cellshare_core::{Nanos, MS};

/// An endpoint's RFC 7323 timestamp clock at `now`: one tick per millisecond, offset by
/// `ts_offset_ms` (wrapping).
pub fn ts_clock(now: Nanos, ts_offset_ms: u32) -> u32 {
    ((now / MS) as u32).wrapping_add(ts_offset_ms)
}

/// Whether timestamp `a` is the same as or newer than `b` in modulo-2³² arithmetic
/// (RFC 7323 §5.2).
pub fn ts_newer_or_equal(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

/// Whether `ts_val` may replace the remembered `recent` timestamp: always when none is
/// remembered yet, else only if it is not older (RFC 7323 §5.3 PAWS).
pub(crate) fn ts_not_older(ts_val: u32, recent: Option<u32>) -> bool {
    match recent {
        None => true,
        Some(r) => ts_newer_or_equal(ts_val, r),
    }
}
