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
//! | [`CongestionControl::undo_cwnd`] | `undo_cwnd` | when the sender finds a reduction spurious (D-SACK, Eifel, F-RTO) |
//! | [`CongestionControl::on_idle_restart`] | `tcp_cwnd_restart` + `cwnd_event(CA_EVENT_CWND_RESTART)` | before sending after an idle period longer than the RTO |
//! | [`CongestionControl::on_sent`] | (BBR's `tcp_rate_skb_sent`) | for every segment sent |
//! | [`CongestionControl::pacing_rate`] | `sk_pacing_rate` | before each send |
//! | [`CongestionControl::poll_timeout`] / [`CongestionControl::on_timer`] | a CC-owned hrtimer | when a controller needs to wake up without an ACK (e.g. Legilimens' GAP wait) |
//!
//! The TCP sender owns loss *recovery* mechanics (with SACK: the RFC 6675 scoreboard and PRR;
//! without: NewReno window inflation; and retransmission);
//! a controller owns the window (`cwnd`, `ssthresh`) and the pacing rate.
//! Controllers must not grow `cwnd` while `AckEvent::in_recovery` is true.
//!
//! A scenario names a controller through [`CcConfig`], which the registry below declares
//! (its macro is in `registry.rs`): each controller's parameters implement [`CcParams`]
//! (validation and constructor) in its own file, and one registry entry makes it selectable
//! as `cc = { kind = "..." }`.

use cellshare_core::Nanos;

#[macro_use]
mod registry;
mod plugin;

pub use plugin::{ExternalCc, ExternalConfig};
pub use registry::CcParams;

/// What a controller is built for: one TCP sender's segment size and initial window, and
/// what seeds its random draws (if it draws any).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcContext {
    /// Maximum segment size in bytes.
    pub mss: u32,
    /// Initial congestion window in bytes (RFC 6928's 10·MSS unless the scenario says
    /// otherwise).
    pub initial_window: u64,
    /// The scenario's seed: a controller drawing random numbers uses
    /// `stream_rng(seed, "cc.<name>", index)`.
    pub seed: u64,
    /// The flow's index (the random stream of this flow).
    pub index: u64,
}

// The controllers, one entry each: its description (the scenario reference shows it), its
// `kind`, and its module (`cc/<module>.rs`) with its parameters type (see `registry.rs`).
registry! {
    /// Reno/NewReno AIMD (RFC 5681, RFC 6582).
    "reno" => Reno(reno::RenoConfig),
    /// CUBIC (RFC 9438).
    "cubic" => Cubic(cubic::CubicConfig),
    /// BBR v1 \[bbr\] (Cardwell et al. 2016).
    "bbr" => Bbr(bbr::BbrConfig),
    /// TCP Vegas (Brakmo & Peterson 1995).
    "vegas" => Vegas(vegas::VegasConfig),
    /// LEDBAT (RFC 6817).
    "ledbat" => Ledbat(ledbat::LedbatConfig),
    /// TCP-LP (Kuzmanovic & Knightly 2003).
    "tcp_lp" => TcpLp(tcp_lp::TcpLpConfig),
    /// Legilimens \[legilimens\]: capacity and busyness from TCP timestamps
    /// under a PF scheduler, GAP probing modes.
    "legilimens" => Legilimens(legilimens::LegilimensConfig),
    /// Westwood+ \[westwood\] (Mascolo et al. 2004; Linux `tcp_westwood.c`): Reno with ssthresh =
    /// bandwidth estimate × RTTmin after a loss.
    "westwood" => Westwood(westwood::WestwoodConfig),
    /// C2TCP \[c2tcp\] (Abbasloo et al., IEEE JSAC 2019) on top of CUBIC: a CoDel-like Setpoint and
    /// Interval on the RTT, α tuned towards the application's target delay.
    "c2tcp" => C2tcp(c2tcp::C2tcpConfig),
    /// A controller written in Python: a subclass of `cellshare.plugins.CongestionControl`,
    /// whose hooks are those of the Rust controllers (docs/extending/python.md). Runs in the
    /// simulator from Python (`cellshare run`, `cellshare.run`); the emulator refuses it.
    "python" => Python(external::ExternalConfig),
    /// AIMD, the worked example of docs/extending/controller.md, compiled from that page's
    /// file; registered only with the `cc-example` feature, which its test enables.
    #[cfg(feature = "cc-example")]
    #[path = "../../../../docs/extending/cc_example.rs"]
    "aimd_example" => AimdExample(example::AimdConfig),
}

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

/// The connection's handshake completed (Linux `tcp_init_transfer`, which calls the
/// controller's `init` through `tcp_init_congestion_control` once the SYN-ACK has been
/// processed): what the handshake measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Established {
    /// Time the handshake completed at the sender.
    pub now: Nanos,
    /// Smoothed RTT after the handshake's sample (Linux `tp->srtt_us`).
    pub srtt: Nanos,
    /// Minimum RTT after the handshake's sample (Linux `tcp_min_rtt(tp)`).
    pub min_rtt: Nanos,
    /// Maximum segment size in bytes.
    pub mss: u32,
}

/// A congestion-window reduction the sender found spurious (Linux `tcp_undo_cwnd_reduction`):
/// the window and threshold the controller had just before the reduction.
///
/// Linux's stack sets `cwnd = ca->undo_cwnd()` and then `ssthresh = max(ssthresh,
/// prior_ssthresh)`; here the controller owns both, so [`CongestionControl::undo_cwnd`]
/// does the two steps ([`reno_undo`] is `tcp_reno_undo_cwnd` plus the threshold step).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UndoEvent {
    /// Time of the undo.
    pub now: Nanos,
    /// `cwnd` when the reduction started (Linux `tp->prior_cwnd`).
    pub prior_cwnd: u64,
    /// Linux `tp->prior_ssthresh`: `tcp_current_ssthresh()` when the reduction started,
    /// `max(ssthresh, ¾·cwnd)` (`u64::MAX` while ssthresh was unset).
    pub prior_ssthresh: u64,
    /// Maximum segment size in bytes.
    pub mss: u32,
}

/// Linux `tcp_reno_undo_cwnd` with the stack's threshold step: `cwnd = max(cwnd,
/// prior_cwnd)`, `ssthresh = max(ssthresh, prior_ssthresh)`. Reno, CUBIC, Vegas and TCP-LP
/// use it in Linux.
pub fn reno_undo(cwnd: &mut u64, ssthresh: &mut u64, ev: &UndoEvent) {
    *cwnd = (*cwnd).max(ev.prior_cwnd);
    *ssthresh = (*ssthresh).max(ev.prior_ssthresh);
}

/// The sender restarts after idle (RFC 5681 §4.1; Linux `tcp_slow_start_after_idle_check`):
/// nothing was in flight and no data was sent for `idle > rto`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IdleRestart {
    /// Time of the restart (the first new segment after the idle period).
    pub now: Nanos,
    /// Time since the last data segment was sent.
    pub idle: Nanos,
    /// The current retransmission timeout.
    pub rto: Nanos,
    /// The initial window in bytes (RFC 5681's RW, Linux `tcp_init_cwnd`).
    pub initial_window: u64,
    /// Maximum segment size in bytes.
    pub mss: u32,
}

/// Linux `tcp_cwnd_restart`: the new `(cwnd, ssthresh)` after an idle period. The restart
/// window is `RW = min(IW, cwnd)` (RFC 5681 §4.1: "cwnd is reduced to no more than RW");
/// Linux halves cwnd once per RTO of idleness and stops at RW (RFC 2861 §3's decay), and
/// first keeps `ssthresh = max(ssthresh, ¾·cwnd)` (`tcp_current_ssthresh`) so slow start
/// climbs back to where the window was.
pub fn idle_restart(cwnd: u64, ssthresh: u64, ev: &IdleRestart) -> (u64, u64) {
    let ssthresh = ssthresh.max((cwnd >> 1) + (cwnd >> 2));
    let restart = ev.initial_window.min(cwnd);
    let mut w = cwnd;
    let mut idle = ev.idle as i128;
    let rto = ev.rto.max(1) as i128;
    loop {
        idle -= rto;
        if idle <= 0 || w <= restart {
            break;
        }
        w >>= 1;
    }
    (w.max(restart), ssthresh)
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
    /// Called on a timeout that starts no new loss episode: it repeats one before any
    /// progress (the RTO backed off) or interrupts fast recovery. RFC 5681 §3.1 holds
    /// ssthresh constant when the segment was already retransmitted by the timer, and Linux's
    /// `tcp_enter_loss` then only sets the loss window (keeping the undo state too). The default
    /// calls [`CongestionControl::on_timeout`] with `2·ssthresh` as the flight, which leaves
    /// ssthresh where it is for the controllers that halve it.
    fn on_timeout_again(&mut self, now: Nanos, mss: u32) {
        let flight = self.ssthresh().saturating_mul(2);
        self.on_timeout(now, flight, mss);
    }
    /// Called for every segment sent (new or retransmitted), with bytes in flight after it.
    fn on_sent(&mut self, _now: Nanos, _bytes: u32, _bytes_in_flight: u64) {}
    /// Called when fast recovery ends (the ACK covering the recovery point arrived), right
    /// after [`CongestionControl::on_ack`] for that ACK.
    fn on_recovery_end(&mut self, _now: Nanos) {}
    /// A reduction (fast recovery, timeout or tail-loss-probe recovery) was found spurious:
    /// restore the window (Linux `undo_cwnd`, see [`UndoEvent`]). Called after the
    /// reduction's hooks (`on_congestion_event`, `on_timeout`, possibly `on_recovery_end`).
    /// The default keeps the current window, as the project's eBPF controllers without a
    /// Linux counterpart (LEDBAT, Legilimens) return `snd_cwnd`.
    fn undo_cwnd(&mut self, _ev: &UndoEvent) {}
    /// The sender is about to send after an idle period longer than the RTO (RFC 5681 §4.1):
    /// reduce the window, usually with [`idle_restart`]. The default does nothing: Linux
    /// exempts controllers with a `cong_control` hook (BBR, the eBPF Legilimens), which
    /// handle idleness themselves.
    fn on_idle_restart(&mut self, _ev: &IdleRestart) {}
    /// The handshake completed before any data was sent (Linux `tcp_init_transfer` →
    /// the controller's `init`): controllers whose Linux `init` reads what the handshake
    /// measured take it here (BBR's `bbr_init`: RTprop = `tcp_min_rtt`, pacing rate from
    /// SRTT). The default does nothing: the others' `init` starts from constants.
    fn on_established(&mut self, _ev: &Established) {}
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
        CcTrace {
            mode: 0,
            estimate: f64::NAN,
            flag: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    const M: u64 = 1448;

    fn idle(idle_ms: u64, rto_ms: u64) -> IdleRestart {
        IdleRestart {
            now: 0,
            idle: idle_ms * MS,
            rto: rto_ms * MS,
            initial_window: 10 * M,
            mss: M as u32,
        }
    }

    #[test]
    fn idle_restart_halves_per_rto_down_to_the_restart_window() {
        // Linux `tcp_cwnd_restart`: ssthresh keeps ¾ of cwnd, cwnd halves once per RTO of
        // idleness (started or not: `while ((delta -= rto) > 0 ...)`), never below min(IW, cwnd).
        assert_eq!(
            idle_restart(80 * M, 20 * M, &idle(301, 300)),
            (40 * M, 60 * M)
        );
        assert_eq!(
            idle_restart(80 * M, 20 * M, &idle(600, 300)),
            (40 * M, 60 * M)
        );
        assert_eq!(
            idle_restart(80 * M, 20 * M, &idle(601, 300)),
            (20 * M, 60 * M)
        );
        assert_eq!(
            idle_restart(80 * M, 20 * M, &idle(60_000, 300)),
            (10 * M, 60 * M)
        );
        // A window already below IW is the restart window itself; ssthresh never falls.
        assert_eq!(
            idle_restart(4 * M, 100 * M, &idle(60_000, 300)),
            (4 * M, 100 * M)
        );
        assert_eq!(
            idle_restart(80 * M, u64::MAX, &idle(60_000, 300)),
            (10 * M, u64::MAX)
        );
    }

    #[test]
    fn reno_undo_restores_window_and_threshold() {
        let ev = UndoEvent {
            now: 0,
            prior_cwnd: 40 * M,
            prior_ssthresh: 30 * M,
            mss: M as u32,
        };
        let (mut cwnd, mut ssthresh) = (20 * M, 20 * M);
        reno_undo(&mut cwnd, &mut ssthresh, &ev);
        assert_eq!((cwnd, ssthresh), (40 * M, 30 * M));
        // Never lowers what grew since.
        let (mut cwnd, mut ssthresh) = (50 * M, 35 * M);
        reno_undo(&mut cwnd, &mut ssthresh, &ev);
        assert_eq!((cwnd, ssthresh), (50 * M, 35 * M));
    }

    #[test]
    fn controllers_undo_as_linux() {
        use crate::cc::bbr::{Bbr, BbrConfig};
        use crate::cc::cubic::{Cubic, CubicConfig};
        use crate::cc::reno::{Reno, RenoConfig};
        let ev = |prior_cwnd: u64| UndoEvent {
            now: 0,
            prior_cwnd,
            prior_ssthresh: u64::MAX,
            mss: M as u32,
        };
        // Reno and CUBIC: back to the window before the loss, and (ssthresh was unset) to
        // slow start.
        let mut r = Reno::new(&RenoConfig::default(), M as u32, 40 * M);
        r.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: 40 * M,
            mss: M as u32,
        });
        r.undo_cwnd(&ev(40 * M));
        assert_eq!((r.cwnd(), r.ssthresh()), (40 * M, u64::MAX));
        let mut c = Cubic::new(&CubicConfig::default(), M as u32, 40 * M);
        c.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: 40 * M,
            mss: M as u32,
        });
        assert_eq!(c.cwnd(), 28 * M);
        c.undo_cwnd(&ev(40 * M));
        assert_eq!((c.cwnd(), c.ssthresh()), (40 * M, u64::MAX));
        // BBR: the cwnd saved at the timeout comes back.
        let mut b = Bbr::new(&BbrConfig::default(), M as u32, 30 * M);
        b.on_timeout(0, 30 * M, M as u32);
        assert_eq!(b.cwnd(), M);
        b.undo_cwnd(&ev(30 * M));
        assert_eq!(b.cwnd(), 30 * M);
        // LEDBAT (not in Linux) keeps its window, as the project's eBPF LEDBAT.
        let mut l = crate::cc::ledbat::Ledbat::new(&Default::default(), M as u32, 40 * M);
        l.on_timeout(0, 40 * M, M as u32);
        l.undo_cwnd(&ev(40 * M));
        assert_eq!(l.cwnd(), M);
    }
}

impl Default for CcConfig {
    /// CUBIC with its defaults, as Linux.
    fn default() -> Self {
        CcConfig::Cubic(cubic::CubicConfig::default())
    }
}
