//! TCP endpoints as sans-I/O state machines.
//!
//! [`TcpSender`] and [`TcpReceiver`] exchange [`Segment`](crate::wire::Segment)s and
//! [`Ack`](crate::wire::Ack)s through whatever network the caller simulates. Neither reads a
//! clock: every call carries `now`, and each reports when it next wants to be woken
//! (`poll_timeout`). Sequence numbers count payload bytes from 0; there is no handshake or
//! teardown (the connection is established at construction, and a flow is complete when
//! [`TcpSender::all_acked`] holds).
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
//!   always be in flight. Initial window 10·MSS (RFC 6928), MSS 1448 by default.
//! - **Loss recovery**: RFC 5681 duplicate-ACK counting, fast retransmit on the third
//!   duplicate ACK, Limited Transmit (RFC 3042), and **NewReno** fast recovery (RFC 6582):
//!   `recover` point, window inflation by one MSS per duplicate ACK (done by the sender:
//!   effective window = `cc.cwnd()` + inflation, so controllers only set `ssthresh`/`cwnd`
//!   in `on_congestion_event`), partial ACKs retransmit the next hole and deflate the
//!   window, the full ACK ends recovery with `cwnd = ssthresh` (`cc.on_recovery_end`).
//! - **Retransmission timer** (RFC 6298): SRTT/RTTVAR with K = 4 and G = 1 ms, Linux's
//!   200 ms minimum, exponential back-off, Karn's rule (no RTT sample from a retransmitted
//!   segment). After a timeout the sender goes back to `snd_una` and resends everything
//!   (go-back-N) as the controller's post-timeout window allows. RTT samples are taken
//!   with nanosecond precision from per-segment send times, kept in a ring buffer that is
//!   reused (no per-segment allocation in steady state).
//! - **Timestamps** (RFC 7323): both ends' clocks tick every millisecond,
//!   `ts = now / MS + ts_offset_ms` ([`ts_clock`]); data carries the sender clock and the
//!   newest receiver TSval; ACKs carry the receiver clock and TS.Recent, updated by the
//!   RFC 7323 §4.3 rule. The ACK's TSval/TSecr are passed to the controller in
//!   [`crate::cc::AckEvent`].
//! - **Delayed ACKs** (RFC 1122, RFC 5681 §4.2, Linux-like): ACK every second full-sized
//!   segment or after 40 ms; immediate ACK for out-of-order segments (duplicate ACKs),
//!   hole-filling segments and duplicate segments.
//! - **Delivery-rate samples** (draft-cheng-iccrg-delivery-rate-estimation) with
//!   application-limited marking, for BBR-like controllers.
//! - **Pacing**: when `cc.pacing_rate()` is `Some(r)` (bytes/s), consecutive segments are
//!   released `len / r` apart (payload bytes); the timeout retransmission is not delayed.
//! - **Receive window**: a pluggable [`ReceiveWindowPolicy`]; [`AutoTuning`] models Linux's
//!   dynamic right-sizing, [`FixedWindow`] a constant buffer.
//!
//! # Not implemented
//!
//! - **SACK** (RFC 2018/6675), D-SACK, RACK-TLP (RFC 8985), F-RTO and any undo of
//!   spurious retransmissions or timeouts: loss recovery is NewReno with cumulative ACKs
//!   only. Consequently the delivery-rate estimator credits one MSS per duplicate ACK, as
//!   Linux does for non-SACK connections.
//! - Proportional Rate Reduction (Linux uses PRR instead of window inflation).
//! - Nagle's algorithm (segments are sent as soon as the windows allow, like
//!   `TCP_NODELAY`), zero-window probing (the policies never advertise zero), Linux's
//!   quick-ACK mode at connection start, congestion-window restart after idle (RFC 5681
//!   §4.1), ECN, handshake and connection teardown.

mod config;
mod rate;
mod receiver;
mod rtt;
mod rwnd;
mod sender;

#[cfg(test)]
mod tests;

pub use config::{RwndConfig, TcpConfig, DEFAULT_RMEM_INITIAL, DEFAULT_RMEM_MAX};
pub use receiver::{ReceiverStats, TcpReceiver};
pub use rtt::{RttEstimator, CLOCK_GRANULARITY};
pub use rwnd::{AutoTuning, FixedWindow, ReceiveWindowPolicy};
pub use sender::{SenderStats, TcpSender};

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
