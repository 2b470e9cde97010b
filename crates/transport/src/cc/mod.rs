//! Congestion controllers.
//!
//! One file per algorithm, each implementing [`CongestionControl`], the hook set of Linux's
//! `tcp_congestion_ops` reduced to what the papers need:
//!
//! | hook | Linux analogue | called |
//! |---|---|---|
//! | [`CongestionControl::on_ack`] | `cong_avoid` + `pkts_acked` + `cong_control` | for every ACK, new or duplicate |
//! | [`CongestionControl::on_congestion_event`] | `ssthresh` (+ `set_state(Recovery)`) | once when fast retransmit starts a recovery episode |
//! | [`CongestionControl::on_timeout`] | `set_state(Loss)` | on a retransmission timeout |
//! | [`CongestionControl::on_sent`] | (BBR's `tcp_rate_skb_sent`) | for every segment sent |
//! | [`CongestionControl::pacing_rate`] | `sk_pacing_rate` | before each send |
//! | [`CongestionControl::poll_timeout`] / [`CongestionControl::on_timer`] | a CC-owned hrtimer | when a controller needs to wake up without an ACK (e.g. Legilimens' GAP wait) |
//!
//! The TCP sender owns loss *recovery* mechanics (with SACK: the RFC 6675 scoreboard and PRR;
//! without: NewReno window inflation; and retransmission);
//! a controller owns the window (`cwnd`, `ssthresh`) and the pacing rate.
//! Controllers must not grow `cwnd` while `AckEvent::in_recovery` is true.

use cellshare_core::Nanos;

pub mod bbr;
pub mod c2tcp;
pub mod cubic;
pub mod ledbat;
pub mod legilimens;
pub mod reno;
pub mod tcp_lp;
pub mod vegas;
pub mod westwood;

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation), computed by the
/// sender for the newest segment this ACK delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Delivery rate in bytes per second.
    pub delivery_rate: f64,
    /// Bytes delivered over the sample interval.
    pub delivered: u64,
    /// Sample interval.
    pub interval: Nanos,
    /// Total bytes delivered (cumulatively) when the sampled segment was sent.
    pub prior_delivered: u64,
    /// Whether the sender was application-limited when the sampled segment was sent.
    pub is_app_limited: bool,
}

/// Everything a controller may want to know about one arriving ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AckEvent {
    /// Arrival time.
    pub now: Nanos,
    /// Bytes newly acknowledged cumulatively by this ACK (0 for a duplicate ACK).
    pub acked_bytes: u64,
    /// The cumulative ACK number (bytes).
    pub ack_seq: u64,
    /// The sender's `snd_nxt` after this ACK: one past the highest byte sent (Linux
    /// `tp->snd_nxt`), for controllers that count round trips by sequence number.
    pub snd_nxt: u64,
    /// Whether this is a duplicate ACK.
    pub is_dup: bool,
    /// RTT sample from this ACK (Karn's rule applied), if any.
    pub rtt_sample: Option<Nanos>,
    /// Smoothed RTT (RFC 6298) after this ACK (0 before the first sample).
    pub srtt: Nanos,
    /// Minimum RTT seen so far on the connection (0 before the first sample).
    pub min_rtt: Nanos,
    /// Receiver timestamp carried by the ACK (TSval, receiver's 1 ms clock).
    pub ts_val: u32,
    /// Sender timestamp echoed by the ACK (TSecr, sender's 1 ms clock).
    pub ts_ecr: u32,
    /// Bytes in flight after this ACK was processed: with SACK the RFC 6675 `pipe`
    /// (outstanding minus SACKed and lost, plus retransmissions in flight), else FlightSize.
    pub bytes_in_flight: u64,
    /// Bytes in flight before this ACK was processed.
    pub prior_in_flight: u64,
    /// Total bytes delivered over the connection's life: cumulatively acknowledged bytes plus
    /// SACKed bytes (each counted once); without SACK, one MSS per duplicate ACK not yet
    /// covered by the cumulative ACK (a duplicate ACK is then the only evidence of delivery;
    /// Linux counts it the same way).
    pub delivered: u64,
    /// Delivery-rate sample, when this ACK delivered new data.
    pub rate_sample: Option<RateSample>,
    /// Whether this ACK was processed in fast recovery: true from the duplicate ACK that
    /// starts recovery up to and including the full ACK that ends it (which is followed by
    /// [`CongestionControl::on_recovery_end`]).
    pub in_recovery: bool,
    /// Whether the sender had no data to send (application-limited) at this point.
    pub app_limited: bool,
    /// Maximum segment size in bytes.
    pub mss: u32,
}

/// Context of a congestion event (fast retransmit starting a recovery episode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossEvent {
    /// Time of the event.
    pub now: Nanos,
    /// Bytes in flight when the loss was detected.
    pub bytes_in_flight: u64,
    /// Maximum segment size in bytes.
    pub mss: u32,
}

/// Controller-specific state exported for tracing (e.g. Legilimens' mode and estimates).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CcTrace {
    /// A small integer naming the controller's mode (controller-defined; 0 if none).
    pub mode: u8,
    /// An estimate the controller wants plotted (e.g. capacity in bytes per TTI), or NaN.
    pub estimate: f64,
    /// A flag the controller wants plotted (e.g. "cell busy").
    pub flag: bool,
}

/// A congestion controller: owns `cwnd`, `ssthresh` and the pacing rate of one TCP sender.
pub trait CongestionControl: std::fmt::Debug + Send {
    /// Short name, e.g. `"cubic"`.
    fn name(&self) -> &'static str;
    /// Called for every arriving ACK after the sender has updated its state.
    fn on_ack(&mut self, ev: &AckEvent);
    /// Called once when fast retransmit starts a recovery episode. The controller sets its
    /// `ssthresh` and the `cwnd` to use once recovery ends.
    fn on_congestion_event(&mut self, ev: &LossEvent);
    /// Called on a retransmission timeout. Standard response: `ssthresh = max(flight/2, 2·MSS)`,
    /// `cwnd = 1·MSS` (the loss window).
    fn on_timeout(&mut self, now: Nanos, bytes_in_flight: u64, mss: u32);
    /// Called for every segment sent (new or retransmitted), with bytes in flight after it.
    fn on_sent(&mut self, _now: Nanos, _bytes: u32, _bytes_in_flight: u64) {}
    /// Called when fast recovery ends (the ACK covering the recovery point arrived), right
    /// after [`CongestionControl::on_ack`] for that ACK.
    fn on_recovery_end(&mut self, _now: Nanos) {}
    /// Congestion window in bytes.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold in bytes (`u64::MAX` when unset).
    fn ssthresh(&self) -> u64;
    /// Pacing rate in bytes per second, or `None` to send as fast as the window allows.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    /// Whether the controller withholds new data: while true the sender sends no new
    /// segment, not even the one an empty pipe otherwise always allows (retransmissions
    /// still follow the window and loss recovery). For a controller that *waits* — sends
    /// nothing for a while, e.g. Legilimens' GAP waits and back-off — rather than sending
    /// slowly; it ends the pause itself, from an ACK or from its timer
    /// ([`CongestionControl::poll_timeout`]), since no ACK may come. Linux's hook set has
    /// no counterpart (the kernel always lets one segment out), so the default is never.
    fn paused(&self) -> bool {
        false
    }
    /// The next time the controller wants [`CongestionControl::on_timer`] called, if any.
    fn poll_timeout(&self) -> Option<Nanos> {
        None
    }
    /// Wakes the controller at (or after) the time it asked for.
    fn on_timer(&mut self, _now: Nanos) {}
    /// Controller state for tracing.
    fn trace(&self) -> CcTrace {
        CcTrace { mode: 0, estimate: f64::NAN, flag: false }
    }
}
