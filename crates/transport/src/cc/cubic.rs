//! CUBIC congestion control (RFC 9438), with optional HyStart++ (RFC 9406).
//!
//! Windows are kept in (fractional) segments, as in the RFC, and reported in bytes.
//!
//! - **Window increase** (§4.2): `W_cubic(t) = C·(t − K)³ + W_max`, `t` the time since the
//!   start of the current congestion-avoidance epoch (excluding application-limited
//!   periods, §5.8), `K = ∛((W_max − cwnd_epoch)/C)` (which equals `∛(W_max·(1−β)/C)` when
//!   the epoch starts right after a reduction without fast convergence). On every ACK the
//!   target is `W_cubic(t + RTT)` (RTT = smoothed RTT) clamped to `[cwnd, 1.5·cwnd]`, and
//!   `cwnd += (target − cwnd)/cwnd` per acknowledged segment (concave and convex regions,
//!   §4.4–4.5; counted per segment like Linux, so delayed ACKs do not halve the growth).
//! - **Reno-friendly region** (§4.3): `W_est` starts at `cwnd_epoch` and grows by
//!   `α_cubic·segments_acked/cwnd`, `α_cubic = 3(1−β)/(1+β)`, switching to α = 1 once
//!   `W_est ≥ cwnd_prior`; when `W_cubic(t) < W_est`, `cwnd = W_est`.
//! - **Multiplicative decrease** (§4.6): `ssthresh = max(flight_size·β, 2)`, `cwnd =
//!   ssthresh`, β = 0.7; `flight_size` is the sender's FlightSize, so a rate-limited flow is
//!   not credited with an unused window.
//! - **Fast convergence** (§4.7): `W_max = cwnd·(1+β)/2` if `cwnd < W_max`, else `cwnd`.
//! - **Timeout** (§4.8): `cwnd = 1`, `ssthresh` as above; the first epoch afterwards uses
//!   `K = 0` and `W_max = cwnd_epoch`.
//! - **Slow start** (§4.10): RFC 5681 with ABC (L = 2), with **HyStart++ (RFC 9406) on by
//!   default** (`hystart = true`), standing in for the HyStart that Linux's `tcp_cubic`
//!   enables by default: without it, slow start overshoots a deep base-station buffer by a
//!   whole window and (with no SACK) NewReno repairs the burst one hole per RTT. It
//!   applies to the initial slow start only (while `ssthresh` is unset); on its exit
//!   `cwnd_prior = cwnd` and the first epoch uses `K = 0`, `W_max = cwnd_epoch`.
//! - The window never grows while the sender is not window-limited
//!   ([`super::reno::is_cwnd_limited`], §5.8).
//!
//! Not implemented: the spurious-congestion-event undo of §4.9 (the sender has no
//! spurious-loss detection).

use cellshare_core::{Nanos, MS, SEC};

use super::reno::is_cwnd_limited;
use super::{AckEvent, CcTrace, CongestionControl, LossEvent};

/// CUBIC parameters.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// Aggressiveness constant C in segments/second³. Default 0.4 (RFC 9438 §5).
    pub c: f64,
    /// Multiplicative decrease factor β_cubic. Default 0.7 (RFC 9438 §4.6).
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7). Default true (as Linux).
    pub fast_convergence: bool,
    /// Reno-friendly region (RFC 9438 §4.3, Linux `tcp_friendliness`). Default true.
    pub reno_friendly: bool,
    /// HyStart++ (RFC 9406) in the initial slow start. Default true (Linux enables HyStart).
    pub hystart: bool,
    /// Appropriate Byte Counting limit L in segments for slow start (RFC 3465). Default 2.
    pub abc_limit: u32,
    /// Initial slow-start threshold in bytes; `None` (default) = unlimited.
    pub initial_ssthresh: Option<u64>,
}

impl Default for CubicConfig {
    fn default() -> Self {
        Self {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            hystart: true,
            abc_limit: 2,
            initial_ssthresh: None,
        }
    }
}

impl CubicConfig {
    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(format!("c must be > 0, got {}", self.c));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(format!("beta must be in (0, 1), got {}", self.beta));
        }
        if self.abc_limit == 0 {
            return Err("abc_limit must be >= 1 segment, got 0".into());
        }
        if self.initial_ssthresh == Some(0) {
            return Err("initial_ssthresh must be > 0 bytes, got 0".into());
        }
        Ok(())
    }
}

/// HyStart++ constants (RFC 9406 §4.3).
const MIN_RTT_THRESH: Nanos = 4 * MS;
const MAX_RTT_THRESH: Nanos = 16 * MS;
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;

/// What HyStart++ wants done with one slow-start ACK.
#[derive(Clone, Copy, Debug, PartialEq)]
enum HyStartAction {
    /// Grow by the slow-start increase divided by this.
    Grow(f64),
    /// Leave slow start: `ssthresh = cwnd`.
    EnterCongestionAvoidance,
}

/// HyStart++ state (RFC 9406 §4.2).
#[derive(Clone, Debug)]
struct HyStart {
    active: bool,
    window_end: Option<u64>,
    last_round_min_rtt: Nanos,
    current_round_min_rtt: Nanos,
    rtt_sample_count: u32,
    css_baseline_min_rtt: Nanos,
    css_rounds: u32,
    in_css: bool,
}

impl HyStart {
    fn new(active: bool) -> Self {
        Self {
            active,
            window_end: None,
            last_round_min_rtt: Nanos::MAX,
            current_round_min_rtt: Nanos::MAX,
            rtt_sample_count: 0,
            css_baseline_min_rtt: Nanos::MAX,
            css_rounds: 0,
            in_css: false,
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) -> HyStartAction {
        // A round ends when the ACK covers what was SND.NXT when it began.
        let snd_nxt = ev.snd_nxt;
        match self.window_end {
            Some(end) if ev.ack_seq < end => {}
            _ => {
                if self.window_end.is_some() && self.in_css {
                    self.css_rounds += 1;
                }
                self.last_round_min_rtt = self.current_round_min_rtt;
                self.current_round_min_rtt = Nanos::MAX;
                self.rtt_sample_count = 0;
                self.window_end = Some(snd_nxt);
            }
        }
        if let Some(r) = ev.rtt_sample {
            self.current_round_min_rtt = self.current_round_min_rtt.min(r);
            self.rtt_sample_count += 1;
        }
        let enough = self.rtt_sample_count >= N_RTT_SAMPLE && self.current_round_min_rtt != Nanos::MAX;
        if !self.in_css {
            if enough && self.last_round_min_rtt != Nanos::MAX {
                let thresh = (self.last_round_min_rtt / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if self.current_round_min_rtt >= self.last_round_min_rtt.saturating_add(thresh) {
                    // Delay increase: leave standard slow start for Conservative Slow Start.
                    self.css_baseline_min_rtt = self.current_round_min_rtt;
                    self.in_css = true;
                    self.css_rounds = 0;
                }
            }
        } else if enough && self.current_round_min_rtt < self.css_baseline_min_rtt {
            // The RTT fell back: the exit was spurious, resume standard slow start.
            self.css_baseline_min_rtt = Nanos::MAX;
            self.in_css = false;
        } else if self.css_rounds >= CSS_ROUNDS {
            self.active = false;
            self.in_css = false;
            return HyStartAction::EnterCongestionAvoidance;
        }
        HyStartAction::Grow(if self.in_css { CSS_GROWTH_DIVISOR } else { 1.0 })
    }
}

/// The CUBIC controller.
#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    mss: f64,
    /// Congestion window, segments.
    cwnd: f64,
    /// Slow-start threshold, segments (infinite when unset).
    ssthresh: f64,
    /// W_max, segments.
    w_max: f64,
    /// cwnd_prior, segments.
    cwnd_prior: f64,
    /// K, seconds.
    k: f64,
    /// Start of the current congestion-avoidance epoch (t_epoch), if one is running.
    epoch_start: Option<Nanos>,
    /// cwnd_epoch, segments.
    cwnd_epoch: f64,
    /// W_est, segments.
    w_est: f64,
    /// The next epoch takes `W_max = cwnd_epoch`, `K = 0` (after a timeout, a HyStart++
    /// exit, or when no congestion event has defined W_max yet).
    w_max_from_epoch: bool,
    /// Time of the previous ACK, to exclude application-limited time from `t`.
    last_ack: Option<Nanos>,
    in_recovery: bool,
    hystart: HyStart,
}

impl Cubic {
    /// A controller starting with `initial_window_bytes` (e.g. 10·MSS, RFC 6928).
    pub fn new(cfg: &CubicConfig, mss: u32, initial_window_bytes: u64) -> Cubic {
        let mss_f = mss.max(1) as f64;
        let cwnd = (initial_window_bytes as f64 / mss_f).max(1.0);
        let ssthresh = cfg.initial_ssthresh.map_or(f64::INFINITY, |b| b as f64 / mss_f);
        Cubic {
            cfg: cfg.clone(),
            mss: mss_f,
            cwnd,
            ssthresh,
            w_max: 0.0,
            cwnd_prior: cwnd,
            k: 0.0,
            epoch_start: None,
            cwnd_epoch: cwnd,
            w_est: cwnd,
            w_max_from_epoch: true,
            last_ack: None,
            in_recovery: false,
            hystart: HyStart::new(cfg.hystart && ssthresh.is_infinite()),
        }
    }

    /// `W_cubic(t) = C·(t − K)³ + W_max` in segments, `t` in seconds since the epoch start
    /// (RFC 9438 Figure 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.k).powi(3) + self.w_max
    }

    /// K in seconds (RFC 9438 Figure 2) of the current epoch.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// W_max in segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// W_est in segments (Reno-friendly estimate).
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    /// Congestion window in (fractional) segments.
    pub fn cwnd_segments(&self) -> f64 {
        self.cwnd
    }

    /// Start of the current congestion-avoidance epoch, if one is running.
    pub fn epoch_start(&self) -> Option<Nanos> {
        self.epoch_start
    }

    fn slow_start(&mut self, ev: &AckEvent) {
        let inc = ev.acked_bytes.min(self.cfg.abc_limit as u64 * self.mss as u64) as f64 / self.mss;
        let divisor = if self.hystart.active {
            match self.hystart.on_ack(ev) {
                HyStartAction::Grow(d) => d,
                HyStartAction::EnterCongestionAvoidance => {
                    // RFC 9406 §4.2: ssthresh = cwnd; RFC 9438 §4.10: cwnd_prior = cwnd,
                    // next epoch with K = 0 and W_max = cwnd_epoch.
                    self.ssthresh = self.cwnd;
                    self.cwnd_prior = self.cwnd;
                    self.w_max_from_epoch = true;
                    return;
                }
            }
        } else {
            1.0
        };
        self.cwnd = (self.cwnd + inc / divisor).min(self.ssthresh.max(self.cwnd));
    }

    fn congestion_avoidance(&mut self, ev: &AckEvent) {
        let now = ev.now;
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => self.start_epoch(now),
        };
        let t = (now - epoch) as f64 / SEC as f64;
        let rtt = ev.srtt as f64 / SEC as f64;
        let segments_acked = ev.acked_bytes as f64 / self.mss;
        if self.cfg.reno_friendly {
            // RFC 9438 §4.3, Figure 4.
            let beta = self.cfg.beta;
            let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { 3.0 * (1.0 - beta) / (1.0 + beta) };
            self.w_est += alpha * segments_acked / self.cwnd;
        }
        if self.cfg.reno_friendly && self.w_cubic(t) < self.w_est {
            // Reno-friendly region.
            self.cwnd = self.cwnd.max(self.w_est);
        } else {
            // Concave / convex region: target = W_cubic(t + RTT) within [cwnd, 1.5·cwnd].
            let target = self.w_cubic(t + rtt).max(self.cwnd).min(1.5 * self.cwnd);
            self.cwnd += (target - self.cwnd) / self.cwnd * segments_acked;
        }
    }

    /// Starts a congestion-avoidance epoch at `now` (RFC 9438 §4.2, §4.8, §4.10) and
    /// returns `now`.
    fn start_epoch(&mut self, now: Nanos) -> Nanos {
        self.epoch_start = Some(now);
        self.cwnd_epoch = self.cwnd;
        self.w_est = self.cwnd;
        if self.w_max_from_epoch {
            self.w_max = self.cwnd;
            self.k = 0.0;
            self.w_max_from_epoch = false;
        } else {
            self.k = ((self.w_max - self.cwnd_epoch) / self.cfg.c).cbrt();
        }
        now
    }

    fn reduced_ssthresh(&self, flight_bytes: u64) -> f64 {
        (flight_bytes as f64 / self.mss * self.cfg.beta).max(2.0)
    }

    /// The multiplicative decrease of a congestion event without its recovery: fast
    /// convergence (§4.7), `ssthresh = max(flight_size·β, 2)` and `cwnd = ssthresh` (§4.6),
    /// the epoch ended. Linux's `bictcp_recalc_ssthresh`, which a controller built on CUBIC
    /// calls for a reduction of its own (C2TCP's delay-triggered cut, `super::c2tcp`).
    pub fn multiplicative_decrease(&mut self, flight_bytes: u64) {
        self.w_max = if self.cfg.fast_convergence && self.cwnd < self.w_max {
            self.cwnd * (1.0 + self.cfg.beta) / 2.0
        } else {
            self.cwnd
        };
        self.w_max_from_epoch = false;
        self.cwnd_prior = self.cwnd;
        self.ssthresh = self.reduced_ssthresh(flight_bytes);
        self.cwnd = self.ssthresh;
        self.epoch_start = None;
        self.hystart.active = false;
    }

    /// Sets the window to `segments` (at least 1); for a controller built on CUBIC (C2TCP's
    /// `cwnd = 1` and its extra increase).
    pub fn set_cwnd_segments(&mut self, segments: f64) {
        self.cwnd = segments.max(1.0);
    }

    /// Whether the window is below `ssthresh` (slow start).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.in_recovery = ev.in_recovery;
        if ev.in_recovery || ev.acked_bytes == 0 {
            return;
        }
        let slow_start = self.cwnd < self.ssthresh;
        if !is_cwnd_limited(self.cwnd(), slow_start, ev) {
            // RFC 9438 §5.8: no growth while application-limited, and `t` must not include
            // such periods: slide the epoch forward by the time since the previous ACK.
            if let (Some(e), Some(l)) = (self.epoch_start, self.last_ack) {
                self.epoch_start = Some(e + ev.now.saturating_sub(l));
            }
            self.last_ack = Some(ev.now);
            return;
        }
        self.last_ack = Some(ev.now);
        if slow_start {
            self.slow_start(ev);
        } else {
            self.congestion_avoidance(ev);
        }
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        // RFC 9438 §4.7 (before the reduction), then §4.6.
        self.multiplicative_decrease(ev.bytes_in_flight);
        self.in_recovery = true;
    }

    fn on_timeout(&mut self, _now: Nanos, bytes_in_flight: u64, _mss: u32) {
        // RFC 9438 §4.8: Reno's loss window, ssthresh with β_cubic; next epoch K = 0.
        self.cwnd_prior = self.cwnd;
        self.ssthresh = self.reduced_ssthresh(bytes_in_flight);
        self.cwnd = 1.0;
        self.epoch_start = None;
        self.w_max_from_epoch = true;
        self.hystart.active = false;
        self.in_recovery = false;
    }

    fn on_recovery_end(&mut self, _now: Nanos) {
        // RFC 6582: leave fast recovery with cwnd = ssthresh.
        self.cwnd = self.ssthresh;
        self.in_recovery = false;
    }

    fn cwnd(&self) -> u64 {
        ((self.cwnd * self.mss) as u64).max(self.mss as u64)
    }

    fn ssthresh(&self) -> u64 {
        if self.ssthresh.is_finite() {
            (self.ssthresh * self.mss) as u64
        } else {
            u64::MAX
        }
    }

    /// Mode 0 = slow start, 1 = congestion avoidance, 2 = fast recovery, 3 = HyStart++
    /// conservative slow start; estimate = W_max in bytes.
    fn trace(&self) -> CcTrace {
        let mode = if self.in_recovery {
            2
        } else if self.hystart.active && self.hystart.in_css {
            3
        } else if self.cwnd < self.ssthresh {
            0
        } else {
            1
        };
        CcTrace { mode, estimate: self.w_max * self.mss, flag: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    const MSS: u32 = 1448;
    const M: u64 = MSS as u64;

    fn cubic(cfg: CubicConfig, segments: u64) -> Cubic {
        Cubic::new(&cfg, MSS, segments * M)
    }

    fn loss(c: &mut Cubic, flight_segments: u64) {
        c.on_congestion_event(&LossEvent { now: 0, bytes_in_flight: flight_segments * M, mss: MSS });
        c.on_recovery_end(0);
    }

    /// A window-limited CA ACK of `segs` segments at `now`.
    fn ca_ack(c: &mut Cubic, now: Nanos, segs: u64, srtt: Nanos) {
        let cwnd = c.cwnd();
        c.on_ack(&AckEvent {
            now,
            acked_bytes: segs * M,
            prior_in_flight: cwnd,
            bytes_in_flight: cwnd - segs * M,
            srtt,
            rtt_sample: Some(srtt),
            mss: MSS,
            ..Default::default()
        });
    }

    /// An ACK-clocked window-limited flow: every segment is ACKed `rtt(now)` after it was
    /// sent, and the window is refilled at once. Runs until `until`.
    struct Flow {
        una: u64,
        nxt: u64,
        in_flight: VecDeque<(Nanos, Nanos, u64)>,
        now: Nanos,
    }

    impl Flow {
        fn new() -> Self {
            Self { una: 0, nxt: 0, in_flight: VecDeque::new(), now: 0 }
        }

        fn fill(&mut self, c: &Cubic, rtt: Nanos) {
            while self.nxt + M <= self.una + c.cwnd() {
                let arrival = (self.now + rtt).max(self.in_flight.back().map_or(0, |x| x.1));
                self.nxt += M;
                self.in_flight.push_back((self.now, arrival, self.nxt));
            }
        }

        fn run(&mut self, c: &mut Cubic, until: Nanos, rtt: impl Fn(Nanos) -> Nanos) {
            self.fill(c, rtt(self.now));
            while let Some(&(sent, arrival, end)) = self.in_flight.front() {
                if arrival > until {
                    break;
                }
                self.in_flight.pop_front();
                self.now = arrival;
                let prior = self.nxt - self.una;
                self.una = end;
                c.on_ack(&AckEvent {
                    now: arrival,
                    acked_bytes: M,
                    ack_seq: end,
                    snd_nxt: self.nxt,
                    prior_in_flight: prior,
                    bytes_in_flight: self.nxt - end,
                    rtt_sample: Some(arrival - sent),
                    srtt: arrival - sent,
                    mss: MSS,
                    ..Default::default()
                });
                self.fill(c, rtt(self.now));
            }
            self.now = until;
        }
    }

    #[test]
    fn beta_reduction_and_ssthresh_floor() {
        let mut c = cubic(CubicConfig::default(), 100);
        c.on_congestion_event(&LossEvent { now: 0, bytes_in_flight: 100 * M, mss: MSS });
        assert!((c.cwnd_segments() - 70.0).abs() < 1e-9);
        assert_eq!(c.ssthresh(), 70 * M);
        assert_eq!(c.cwnd(), 70 * M);
        assert_eq!(c.w_max(), 100.0);
        c.on_congestion_event(&LossEvent { now: 0, bytes_in_flight: M, mss: MSS });
        assert_eq!(c.ssthresh(), 2 * M, "ssthresh is at least 2 MSS");
    }

    #[test]
    fn k_and_w_cubic_match_rfc9438() {
        let mut c = cubic(CubicConfig { reno_friendly: false, ..Default::default() }, 100);
        loss(&mut c, 100);
        ca_ack(&mut c, 1000 * MS, 1, 100 * MS);
        // K = ∛((W_max − cwnd_epoch)/C) = ∛((100 − 70)/0.4) = ∛75, which equals
        // ∛(W_max·(1 − β)/C) here.
        assert!((c.k() - 4.217_163_326_508_746).abs() < 1e-12);
        assert!((c.k() - (100.0 * 0.3 / 0.4f64).cbrt()).abs() < 1e-12);
        // W(t) = 0.4·(t − K)³ + 100, evaluated by hand.
        for (t, w) in [
            (0.0, 70.0),
            (1.0, 86.680_763_835_129_88),
            (2.0, 95.640_335_686_638_78),
            (3.0, 99.278_715_554_526_67),
            (6.0, 102.266_703_256_464_42),
        ] {
            assert!((c.w_cubic(t) - w).abs() < 1e-9, "W({t}) = {} != {w}", c.w_cubic(t));
        }
        assert!((c.w_cubic(c.k()) - 100.0).abs() < 1e-12);
    }

    #[test]
    fn each_ack_moves_cwnd_towards_w_cubic_one_rtt_ahead() {
        let mut c = cubic(CubicConfig { reno_friendly: false, ..Default::default() }, 100);
        loss(&mut c, 100);
        // Epoch starts at the first CA ACK (t = 0): target W(0 + 0.1 s), one segment acked:
        // cwnd = 70 + (W(0.1) − 70)/70.
        ca_ack(&mut c, 1000 * MS, 1, 100 * MS);
        assert!((c.cwnd_segments() - 70.029_770_428_896_8).abs() < 1e-9, "{}", c.cwnd_segments());
        // One second later: cwnd += (W(1.1) − cwnd)/cwnd.
        ca_ack(&mut c, 2000 * MS, 1, 100 * MS);
        assert!((c.cwnd_segments() - 70.284_730_628_270_51).abs() < 1e-9, "{}", c.cwnd_segments());
    }

    #[test]
    fn target_is_capped_at_one_and_a_half_cwnd() {
        let mut c = cubic(CubicConfig { reno_friendly: false, ..Default::default() }, 100);
        loss(&mut c, 100);
        ca_ack(&mut c, 1000 * MS, 1, 100 * MS);
        let before = c.cwnd_segments();
        // Far into the convex region W(t + RTT) ≫ 1.5·cwnd: a 10-segment ACK adds at most
        // (1.5·cwnd − cwnd)/cwnd · 10 = 5 segments.
        ca_ack(&mut c, 100_000 * MS, 10, 100 * MS);
        assert!((c.cwnd_segments() - (before + 5.0)).abs() < 1e-9);
    }

    #[test]
    fn cwnd_tracks_the_cubic_curve_over_time() {
        let mut c = cubic(CubicConfig { reno_friendly: false, fast_convergence: false, ..Default::default() }, 100);
        let mut f = Flow::new();
        loss(&mut c, 100);
        // A 100 ms RTT flow: cwnd follows W(t) one RTT ahead; at t ≈ K it plateaus at W_max.
        f.run(&mut c, 4217 * MS, |_| 100 * MS);
        let epoch = c.epoch_start().unwrap();
        let t = (f.now - epoch) as f64 / 1e9;
        let w = c.cwnd_segments();
        assert!(w > c.w_cubic(t) - 1.0 && w <= c.w_cubic(t + 0.1) + 1e-9, "cwnd {w} vs W(t) {}", c.w_cubic(t));
        assert!((w - 100.0).abs() < 1.5, "cwnd {w} should be near W_max at t = K");
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = cubic(CubicConfig::default(), 100);
        loss(&mut c, 100);
        assert_eq!(c.w_max(), 100.0);
        // The next loss at cwnd = 70 < W_max: W_max = 70·(1 + 0.7)/2 = 59.5.
        loss(&mut c, 70);
        assert!((c.w_max() - 59.5).abs() < 1e-9);
        let mut c = cubic(CubicConfig { fast_convergence: false, ..Default::default() }, 100);
        loss(&mut c, 100);
        loss(&mut c, 70);
        assert!((c.w_max() - 70.0).abs() < 1e-9);
    }

    #[test]
    fn reno_friendly_region_wins_at_small_rtt() {
        let mut c = cubic(CubicConfig::default(), 100);
        let mut f = Flow::new();
        loss(&mut c, 100);
        // 1 ms RTT: Reno's +α per RTT outruns the flat start of the cubic curve.
        f.run(&mut c, 200 * MS, |_| MS);
        let t = (f.now - c.epoch_start().unwrap()) as f64 / 1e9;
        assert!(c.w_cubic(t) < 75.0);
        assert!((c.cwnd_segments() - c.w_est()).abs() < 1e-9, "cwnd follows W_est");
        // α_cubic = 3·0.3/1.7 ≈ 0.53 per RTT up to cwnd_prior = 100 (~57 RTTs), then 1 per
        // RTT: well above 150 segments after ~200 RTTs.
        assert!(c.cwnd_segments() > 150.0, "{}", c.cwnd_segments());
        // At a long RTT the same time span leaves cwnd on the cubic curve instead.
        let mut c = cubic(CubicConfig::default(), 100);
        let mut f = Flow::new();
        loss(&mut c, 100);
        f.run(&mut c, 3000 * MS, |_| 200 * MS);
        assert!(c.w_est() < c.cwnd_segments());
    }

    #[test]
    fn timeout_collapses_and_restarts_with_k_zero() {
        let mut c = cubic(CubicConfig::default(), 100);
        c.on_timeout(0, 100 * M, MSS);
        assert_eq!(c.cwnd(), M);
        assert_eq!(c.ssthresh(), 70 * M);
        let mut f = Flow::new();
        f.run(&mut c, 2000 * MS, |_| 100 * MS);
        // Slow start to ssthresh = 70, then an epoch with K = 0 and W_max = cwnd_epoch.
        assert_eq!(c.k(), 0.0);
        assert!(c.w_max() >= 70.0 && c.w_max() < 72.0, "{}", c.w_max());
        assert!(c.cwnd_segments() > c.w_max());
    }

    #[test]
    fn no_growth_in_recovery_or_when_application_limited() {
        let mut c = cubic(CubicConfig::default(), 100);
        c.on_congestion_event(&LossEvent { now: 0, bytes_in_flight: 100 * M, mss: MSS });
        c.on_ack(&AckEvent {
            now: MS,
            acked_bytes: 10 * M,
            prior_in_flight: 100 * M,
            in_recovery: true,
            mss: MSS,
            ..Default::default()
        });
        assert_eq!(c.cwnd(), 70 * M);
        c.on_recovery_end(2 * MS);
        ca_ack(&mut c, 10 * MS, 1, 100 * MS);
        let w = c.cwnd_segments();
        let epoch = c.epoch_start().unwrap();
        // 10 segments in flight against a 70-segment window for 5 s.
        for i in 1..=50 {
            c.on_ack(&AckEvent {
                now: 10 * MS + i * 100 * MS,
                acked_bytes: M,
                prior_in_flight: 10 * M,
                srtt: 100 * MS,
                mss: MSS,
                ..Default::default()
            });
        }
        assert_eq!(c.cwnd_segments(), w);
        assert_eq!(c.epoch_start(), Some(epoch + 5000 * MS), "t excludes the application-limited time");
    }

    #[test]
    fn hystart_plus_plus_exits_slow_start_on_delay_increase() {
        let rtt = |now: Nanos| if now < 600 * MS { 100 * MS } else { 140 * MS };
        let mut c = cubic(CubicConfig { hystart: true, ..Default::default() }, 10);
        let mut f = Flow::new();
        let mut saw_css = false;
        while c.ssthresh() == u64::MAX && f.now < 5000 * MS {
            let until = f.now + 10 * MS;
            f.run(&mut c, until, rtt);
            saw_css |= c.trace().mode == 3;
        }
        assert!(saw_css, "conservative slow start precedes the exit");
        assert!(c.ssthresh() < u64::MAX, "left slow start without loss");
        // ssthresh = cwnd at the exit; congestion avoidance has barely added to it since.
        assert!(c.ssthresh() <= c.cwnd() && c.cwnd() - c.ssthresh() < 2 * M);
        // Standard slow start keeps doubling instead.
        let mut c = cubic(CubicConfig { hystart: false, ..Default::default() }, 10);
        let mut f = Flow::new();
        f.run(&mut c, 1500 * MS, rtt);
        assert_eq!(c.ssthresh(), u64::MAX);
    }

    #[test]
    fn config_validation_and_serde() {
        use schemars::_serde_json as json;
        assert!(CubicConfig::default().validate().is_ok());
        let e = CubicConfig { c: -1.0, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e, "c must be > 0, got -1");
        let e = CubicConfig { beta: 1.0, ..Default::default() }.validate().unwrap_err();
        assert!(e.starts_with("beta"), "{e}");
        let cfg: CubicConfig = json::from_str(r#"{"beta": 0.8}"#).unwrap();
        assert_eq!(cfg, CubicConfig { beta: 0.8, ..Default::default() });
        assert!(json::from_str::<CubicConfig>(r#"{"betta": 0.8}"#).is_err());
    }
}
