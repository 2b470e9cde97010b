//! C2TCP, Cellular Controlled Delay TCP: S. Abbasloo, Y. Xu and H. J. Chao, "C2TCP: A
//! Flexible Cellular TCP to Meet Stringent Delay Requirements", IEEE JSAC 37(4), 2019
//! \[c2tcp\] (cited as *\[C2TCP\]*; its first version: Abbasloo, Li, Xu and Chao, IFIP
//! Networking 2018 \[c2tcp-ifip\]),
//! on top of CUBIC as in the paper. The paper's full text was not available to this project
//! (only its abstract: "inspired by … RED and CoDel", "works on top of classic
//! throughput-oriented TCP", an application's target delay); the rules below follow the
//! authors' release `github.com/Soheil-ab/c2tcp` (cited as *ref*): branch `v2.0-jsac-19`
//! ("the IEEE JSAC'19 release") for the Tuner (`src/server.cc`) and its parameters
//! (`run.sh`, `run-c2tcp.sh`), and, since that branch ships its kernel only as binary
//! packages, the kernel patch of `master` (`linux-patch/…-c2tcp-0521.patch`,
//! `c2tcp_pkts_acked` in `tcp_cubic.c`) for the per-ACK logic, which uses the same two
//! parameters (Setpoint and Interval, both `α·minRTT`).
//!
//! Per ACK with an RTT sample `rtt` (ref `c2tcp_pkts_acked`; CoDel's good/bad conditions
//! moved to the sender, with the RTT in place of CoDel's sojourn):
//!
//! - `Setpoint = Interval = α·minRTT`, minRTT the smallest RTT sample of the connection.
//! - **Good condition**, `rtt ≤ Setpoint`: the bad-condition state is cleared and the window
//!   grows by an extra `Setpoint/rtt` segments per window of ACKs (ref: `snd_cwnd_cnt +=
//!   Setpoint/rtt`, one more segment per `cwnd` of it) on top of CUBIC's own growth.
//! - **Bad condition**, `rtt > Setpoint`: the first such sample arms a deadline `now +
//!   Interval`; a sample after the deadline (with no good sample in between) cuts the window
//!   — `ssthresh` as CUBIC's loss response (ref: `icsk_ca_ops->ssthresh`, i.e.
//!   `bictcp_recalc_ssthresh`), `cwnd = 1` — and sets the next deadline `now +
//!   Interval/√n` for the n-th cut in a row (CoDel's control law, ref `control_law` with
//!   `cnt_rtt`).
//!
//! **The Tuner** (ref `server.cc`, a user-space thread in the release, here part of the
//! controller): every `tuning_period` (500 ms, ref `run.sh`), with `avg` the mean RTT sample
//! since the previous tuning and `T` the application's Target:
//! `α = T/minRTT`, then `α ← α·(1 − 2(avg − T)/avg)` if `avg > T`, or `α ← α·(1 + (T −
//! avg)/(2·avg))` if `avg < T`, kept within `[1, 10]` (ref `TARGET_RATIO_MIN/MAX`).
//! Parameters of the release: Target 50 ms, initial α 1.5 (`initial_alpha=150`, scaled by
//! 100), period 500 ms; a Target of 0 means `T = 2·minRTT` (the release's later "no target"
//! mode).
//!
//! Choices where the reference is silent or that differ from it:
//! - Times are exact (nanoseconds). The reference computes Setpoint and Interval from the
//!   minimum RTT truncated to whole milliseconds, compares in CoDel's ~1 µs units, and adds
//!   `Setpoint/rtt` to `snd_cwnd_cnt` in integer milliseconds (0 whenever `rtt > Setpoint`
//!   would make it fractional).
//! - The reference's hook sits at the end of Linux 4.13's `bictcp_acked`, after CUBIC's
//!   "discard delay samples right after fast recovery" return, so C2TCP ignores every RTT
//!   sample for one second after each CUBIC epoch starts (including the epoch after each of
//!   its own cuts). That filter belongs to HyStart's delay samples, not to C2TCP's algorithm
//!   (the CoDel-like logic reacts within an Interval); here every RTT sample is used.
//! - The extra increase follows this project's rules for every controller: it is not
//!   applied in fast recovery or when the window does not limit the sender (the reference
//!   applies it on every ACK).
//! - A cut due during fast recovery lowers `ssthresh` and sets `cwnd = ssthresh` (the
//!   recovery's target, PRR) instead of 1: in Linux, PRR overwrites `snd_cwnd` on the next
//!   ACK of the recovery and recovery ends with `cwnd = ssthresh`, so a cut there only lowers
//!   `ssthresh`.
//! - `α` is clamped to `[alpha_min, alpha_max]` after every tuning (the reference clamps
//!   only the side it moved). A tuning period without RTT samples sets `α = T/minRTT`, as the
//!   reference (its average is 0 then); before the first RTT sample `α` keeps its value.
//! - The cut's `ssthresh` uses the bytes in flight before the ACK (as this project's CUBIC
//!   does for every reduction, RFC 9438 §4.6 `flight_size`); Linux's CUBIC uses `cwnd`.

use cellshare_core::{Nanos, MS};

use super::cubic::{Cubic, CubicConfig};
use super::reno::is_cwnd_limited;
use super::{AckEvent, CcContext, CcParams, CcTrace, CongestionControl, LossEvent};

/// C2TCP parameters.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct C2tcpConfig {
    /// The application's target delay T, ms: the Tuner steers the average RTT to it. 0 means
    /// `2·minRTT` (the release's "no target" mode). Default 50 (the JSAC release's `run.sh`,
    /// `target=50`).
    pub target_ms: f64,
    /// α before the first tuning: Setpoint = Interval = α·minRTT. Default 1.5 (`run.sh`,
    /// `initial_alpha=150`, scaled by 100).
    pub initial_alpha: f64,
    /// Whether the Tuner adjusts α; without it α stays `initial_alpha`. Default true.
    pub tuner: bool,
    /// Tuner period, ms. Default 500 (`run.sh`, `tuning_period=500`).
    pub tuning_period_ms: f64,
    /// Smallest α the Tuner sets. Default 1 (`server.cc` `TARGET_RATIO_MIN` = 100/100).
    pub alpha_min: f64,
    /// Largest α the Tuner sets. Default 10 (`server.cc` `TARGET_RATIO_MAX` = 1000/100).
    pub alpha_max: f64,
    /// The base controller, CUBIC, with its own parameters (RFC 9438 defaults).
    pub cubic: CubicConfig,
}

impl Default for C2tcpConfig {
    fn default() -> Self {
        Self {
            target_ms: 50.0,
            initial_alpha: 1.5,
            tuner: true,
            tuning_period_ms: 500.0,
            alpha_min: 1.0,
            alpha_max: 10.0,
            cubic: CubicConfig::default(),
        }
    }
}

impl CcParams for C2tcpConfig {
    /// Checks every field, naming the first bad one.
    fn validate(&self) -> Result<(), String> {
        if !(self.target_ms.is_finite() && (0.0..=60_000.0).contains(&self.target_ms)) {
            return Err(format!(
                "target_ms must be in [0, 60000] ms (0: 2·minRTT), got {}",
                self.target_ms
            ));
        }
        if !(self.alpha_min.is_finite() && self.alpha_min > 0.0) {
            return Err(format!("alpha_min must be > 0, got {}", self.alpha_min));
        }
        if !(self.alpha_max.is_finite() && self.alpha_max >= self.alpha_min) {
            return Err(format!(
                "alpha_max must be >= alpha_min ({}), got {}",
                self.alpha_min, self.alpha_max
            ));
        }
        if !(self.initial_alpha.is_finite() && self.initial_alpha > 0.0) {
            return Err(format!(
                "initial_alpha must be > 0, got {}",
                self.initial_alpha
            ));
        }
        if !(self.tuning_period_ms.is_finite() && self.tuning_period_ms > 0.0) {
            return Err(format!(
                "tuning_period_ms must be > 0 ms, got {}",
                self.tuning_period_ms
            ));
        }
        self.cubic.validate().map_err(|e| format!("cubic.{e}"))
    }

    fn build(&self, ctx: &CcContext) -> Box<dyn CongestionControl> {
        Box::new(C2tcp::new(self, ctx.mss, ctx.initial_window))
    }
}

/// The C2TCP controller: CUBIC plus the Setpoint/Interval logic and the Tuner.
#[derive(Clone, Debug)]
pub struct C2tcp {
    cfg: C2tcpConfig,
    cubic: Cubic,
    /// Smallest RTT sample (0 before the first).
    min_rtt: Nanos,
    alpha: f64,
    /// When the bad condition started plus Interval (ref `first_above_time`); `None` in the
    /// good condition.
    first_above: Option<Nanos>,
    /// The next time a bad sample cuts the window (ref `next_time`).
    next_time: Nanos,
    /// Cuts in the current bad period plus one (ref `cnt_rtt`).
    count: u32,
    period: Nanos,
    /// When the Tuner runs next (set at the first ACK).
    next_tune: Option<Nanos>,
    /// Sum and number of RTT samples since the last tuning.
    rtt_sum: f64,
    rtt_n: u64,
    cuts: u64,
}

impl C2tcp {
    /// A controller starting with `initial_window_bytes` (e.g. 10·MSS, RFC 6928).
    pub fn new(cfg: &C2tcpConfig, mss: u32, initial_window_bytes: u64) -> C2tcp {
        C2tcp {
            cfg: cfg.clone(),
            cubic: Cubic::new(&cfg.cubic, mss, initial_window_bytes),
            min_rtt: 0,
            alpha: cfg.initial_alpha,
            first_above: None,
            next_time: 0,
            count: 1,
            period: (cfg.tuning_period_ms * MS as f64).round().max(1.0) as Nanos,
            next_tune: None,
            rtt_sum: 0.0,
            rtt_n: 0,
            cuts: 0,
        }
    }

    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Setpoint = Interval = α·minRTT (0 before the first RTT sample).
    pub fn setpoint(&self) -> Nanos {
        (self.alpha * self.min_rtt as f64).round() as Nanos
    }

    /// Delay-triggered cuts so far.
    pub fn cuts(&self) -> u64 {
        self.cuts
    }

    /// Whether the last RTT sample found the bad condition (`rtt > Setpoint`).
    pub fn in_bad_condition(&self) -> bool {
        self.first_above.is_some()
    }

    /// The base CUBIC controller.
    pub fn cubic(&self) -> &Cubic {
        &self.cubic
    }

    /// The Tuner (ref `server.cc`), once per period.
    fn tune(&mut self) {
        let (sum, n) = (self.rtt_sum, self.rtt_n);
        self.rtt_sum = 0.0;
        self.rtt_n = 0;
        if !self.cfg.tuner || self.min_rtt == 0 {
            return;
        }
        let min_rtt = self.min_rtt as f64;
        let target = if self.cfg.target_ms > 0.0 {
            self.cfg.target_ms * MS as f64
        } else {
            2.0 * min_rtt
        };
        let base = target / min_rtt;
        let alpha = if n == 0 {
            base
        } else {
            let avg = sum / n as f64;
            if avg > target {
                // alpha_2 = alpha_1·(1 − 2(avg − T)/avg)
                base * (1.0 - 2.0 * (avg - target) / avg)
            } else if avg < target {
                // alpha_2 = alpha_1·(1 + (T − avg)/(2·avg))
                base * (1.0 + (target - avg) / (2.0 * avg))
            } else {
                base
            }
        };
        self.alpha = alpha.clamp(self.cfg.alpha_min, self.cfg.alpha_max);
    }

    /// The per-sample logic (ref `c2tcp_pkts_acked`).
    fn on_rtt(&mut self, ev: &AckEvent, rtt: Nanos) {
        let now = ev.now;
        self.min_rtt = if self.min_rtt == 0 {
            rtt
        } else {
            self.min_rtt.min(rtt)
        };
        self.rtt_sum += rtt as f64;
        self.rtt_n += 1;
        let setpoint = self.setpoint();
        let interval = setpoint;
        if rtt <= setpoint {
            // Good condition.
            self.first_above = None;
            self.count = 1;
            let w = self.cubic.cwnd_segments();
            if !ev.in_recovery
                && ev.acked_bytes > 0
                && is_cwnd_limited(self.cubic.cwnd(), self.cubic.in_slow_start(), ev)
            {
                let extra = setpoint as f64 / rtt as f64;
                self.cubic.set_cwnd_segments(w + extra / w);
            }
        } else if self.first_above.is_none() {
            // First bad sample: the deadline is one Interval away.
            self.first_above = Some(now + interval);
            self.next_time = now + interval;
            self.count = 1;
        } else if now > self.next_time {
            // Bad for a whole Interval: cut, and the next deadline by CoDel's control law.
            self.next_time = now + (interval as f64 / (self.count as f64).sqrt()).round() as Nanos;
            self.count += 1;
            self.cuts += 1;
            self.cubic.multiplicative_decrease(ev.prior_in_flight);
            if !ev.in_recovery {
                self.cubic.set_cwnd_segments(1.0);
            }
        }
    }
}

impl CongestionControl for C2tcp {
    fn name(&self) -> &'static str {
        "c2tcp"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let due = *self.next_tune.get_or_insert(ev.now + self.period);
        if ev.now >= due {
            self.tune();
            self.next_tune = Some(ev.now + self.period);
        }
        if let Some(rtt) = ev.rtt_sample {
            self.on_rtt(ev, rtt.max(1));
        }
        self.cubic.on_ack(ev);
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.cubic.on_congestion_event(ev);
    }

    fn on_timeout(&mut self, now: Nanos, bytes_in_flight: u64, mss: u32) {
        self.cubic.on_timeout(now, bytes_in_flight, mss);
    }

    fn on_recovery_end(&mut self, now: Nanos) {
        self.cubic.on_recovery_end(now);
    }

    fn cwnd(&self) -> u64 {
        self.cubic.cwnd()
    }

    fn ssthresh(&self) -> u64 {
        self.cubic.ssthresh()
    }

    /// Mode = CUBIC's (0 slow start, 1 congestion avoidance, 2 fast recovery, 3 HyStart++
    /// conservative slow start); estimate = Setpoint in ms; flag = bad condition.
    fn trace(&self) -> CcTrace {
        CcTrace {
            mode: self.cubic.trace().mode,
            estimate: self.setpoint() as f64 / MS as f64,
            flag: self.in_bad_condition(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;
    const M: u64 = MSS as u64;

    fn c2(cfg: C2tcpConfig, segs: u64) -> C2tcp {
        C2tcp::new(&cfg, MSS, segs * M)
    }

    fn ev(c: &C2tcp, now: Nanos, segs: u64, rtt: Nanos) -> AckEvent {
        let cwnd = c.cwnd();
        AckEvent {
            now,
            acked_bytes: segs * M,
            prior_in_flight: cwnd,
            bytes_in_flight: cwnd.saturating_sub(segs * M),
            rtt_sample: Some(rtt),
            srtt: rtt,
            mss: MSS,
            ..Default::default()
        }
    }

    fn ack(c: &mut C2tcp, now: Nanos, segs: u64, rtt: Nanos) {
        let e = ev(c, now, segs, rtt);
        c.on_ack(&e);
    }

    /// No tuner, α = 1.5: Setpoint = Interval = 15 ms on a 10 ms path.
    fn fixed() -> C2tcpConfig {
        C2tcpConfig {
            tuner: false,
            cubic: CubicConfig {
                hystart: false,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn setpoint_is_alpha_times_min_rtt() {
        let mut c = c2(fixed(), 10);
        assert_eq!(c.setpoint(), 0);
        ack(&mut c, 0, 1, 12 * MS);
        ack(&mut c, MS, 1, 10 * MS);
        ack(&mut c, 2 * MS, 1, 11 * MS);
        assert_eq!(c.setpoint(), 15 * MS);
    }

    #[test]
    fn good_condition_adds_setpoint_over_rtt_per_window_on_top_of_cubic() {
        // Congestion avoidance at 20 segments, at the flat start of a CUBIC epoch (its own
        // step is ~1e-7 segments there; without Linux's growth floor before the first loss), so the
        // step is C2TCP's extra increase.
        let cubic_cfg = CubicConfig {
            initial_ssthresh: Some(20 * M),
            hystart: false,
            reno_friendly: false,
            initial_growth_floor: false,
            ..Default::default()
        };
        let mut c = c2(
            C2tcpConfig {
                cubic: cubic_cfg,
                ..fixed()
            },
            20,
        );
        ack(&mut c, 0, 1, 10 * MS); // min RTT 10 ms → Setpoint 15 ms
        let w0 = c.cubic().cwnd_segments();
        assert!((w0 - (20.0 + 1.5 / 20.0)).abs() < 1e-6, "{w0}");
        ack(&mut c, MS, 1, 12 * MS);
        // Extra increase (Setpoint/rtt)/cwnd = (15/12)/w0.
        let got = c.cubic().cwnd_segments() - w0;
        assert!((got - 1.25 / w0).abs() < 1e-6, "got {got}");
        // Not in recovery, not above the Setpoint.
        let w = c.cubic().cwnd_segments();
        let mut e = ev(&c, 2 * MS, 1, 12 * MS);
        e.in_recovery = true;
        c.on_ack(&e);
        assert_eq!(c.cubic().cwnd_segments(), w);
        ack(&mut c, 3 * MS, 1, 16 * MS);
        assert!(c.cubic().cwnd_segments() - w < 1e-6);
    }

    #[test]
    fn a_whole_interval_in_the_bad_condition_cuts_to_one_segment_then_codel_spacing() {
        let mut c = c2(fixed(), 40);
        ack(&mut c, 0, 1, 10 * MS); // Setpoint = Interval = 15 ms
        let mut t = MS;
        let mut cut_times = vec![];
        while t <= 200 * MS {
            let before = c.cuts();
            ack(&mut c, t, 1, 30 * MS);
            if c.cuts() > before {
                cut_times.push(t);
                if cut_times.len() == 1 {
                    // cwnd = 1, then CUBIC's slow start adds the segment this ACK acknowledged.
                    assert_eq!(c.cwnd(), 2 * M);
                    assert!(c.ssthresh() < 40 * M && c.ssthresh() >= 2 * M);
                }
            }
            t += MS;
        }
        // First bad sample at 1 ms: deadline 16 ms; the first sample after it (17 ms) cuts;
        // then Interval/√1 = 15 ms (cut at 33 ms), Interval/√2 = 10.6 ms (cut at 44 ms),
        // Interval/√3 = 8.66 ms (53 ms), /√4 = 7.5 ms (61 ms).
        assert_eq!(
            &cut_times[..5],
            &[17 * MS, 33 * MS, 44 * MS, 53 * MS, 61 * MS]
        );
        assert!(c.in_bad_condition());
    }

    #[test]
    fn a_good_sample_clears_the_bad_condition() {
        let mut c = c2(fixed(), 40);
        ack(&mut c, 0, 1, 10 * MS);
        for i in 1..=14 {
            ack(&mut c, i * MS, 1, 30 * MS);
        }
        ack(&mut c, 15 * MS, 1, 14 * MS); // below the 15 ms Setpoint: good again
        assert!(!c.in_bad_condition());
        for i in 16..=30 {
            ack(&mut c, i * MS, 1, 30 * MS);
        }
        assert_eq!(
            c.cuts(),
            0,
            "the bad condition restarted at 16 ms: deadline 31 ms"
        );
        ack(&mut c, 32 * MS, 1, 30 * MS);
        assert_eq!(c.cuts(), 1);
    }

    #[test]
    fn a_cut_in_recovery_lowers_ssthresh_and_keeps_the_window_at_it() {
        let mut c = c2(fixed(), 40);
        ack(&mut c, 0, 1, 10 * MS);
        c.on_congestion_event(&LossEvent {
            now: MS,
            bytes_in_flight: 40 * M,
            mss: MSS,
        });
        assert_eq!(c.ssthresh(), 28 * M);
        for i in 2..=40 {
            let mut e = ev(&c, i * MS, 1, 30 * MS);
            e.in_recovery = true;
            e.prior_in_flight = 20 * M;
            c.on_ack(&e);
        }
        assert!(c.cuts() >= 1);
        assert_eq!(c.ssthresh(), 14 * M, "0.7 of the 20 segments in flight");
        assert_eq!(c.cwnd(), c.ssthresh());
        c.on_recovery_end(41 * MS);
        assert_eq!(c.cwnd(), 14 * M);
    }

    #[test]
    fn the_tuner_steers_alpha_from_the_average_rtt() {
        let cfg = C2tcpConfig {
            cubic: CubicConfig {
                hystart: false,
                ..Default::default()
            },
            ..Default::default()
        };
        // Target 50 ms, min RTT 20 ms: base α = 2.5. Average 100 ms > T: α = 2.5·(1 − 2·50/100) = 0 → α_min 1.
        let mut c = c2(cfg.clone(), 10);
        assert_eq!(c.alpha(), 1.5);
        ack(&mut c, 0, 1, 20 * MS); // first ACK: the first tuning is due at 500 ms
        for i in 1..500 {
            ack(&mut c, i * MS, 1, if i == 1 { 20 * MS } else { 100 * MS });
        }
        assert_eq!(c.alpha(), 1.5, "no tuning before 500 ms");
        ack(&mut c, 500 * MS, 1, 100 * MS);
        assert_eq!(c.alpha(), 1.0);
        // Average 75 ms: α = 2.5·(1 − 2·25/75) = 0.833 → 1.
        // Average 40 ms < T: α = 2.5·(1 + 10/80) = 2.8125.
        let mut c = c2(cfg.clone(), 10);
        ack(&mut c, 0, 1, 20 * MS);
        for i in 1..=500 {
            ack(&mut c, i * MS, 1, 40 * MS);
        }
        // Samples in the period: 20 ms once and 40 ms 499 times before the tuning ACK.
        let avg = (20.0 + 499.0 * 40.0) / 500.0;
        let expect = 2.5 * (1.0 + (50.0 - avg) / (2.0 * avg));
        assert!(
            (c.alpha() - expect).abs() < 1e-9,
            "{} vs {expect}",
            c.alpha()
        );
        // Average 55 ms > T: α = 2.5·(1 − 2·5/55) = 2.045.
        let mut c = c2(cfg.clone(), 10);
        ack(&mut c, 0, 1, 20 * MS);
        for i in 1..=1000 {
            ack(&mut c, i * MS, 1, 55 * MS);
        }
        let expect = 2.5 * (1.0 - 2.0 * 5.0 / 55.0);
        assert!(
            (c.alpha() - expect).abs() < 1e-9,
            "{} vs {expect}",
            c.alpha()
        );
        // A tiny average would push α far up: clamped at 10.
        let mut c = c2(
            C2tcpConfig {
                target_ms: 500.0,
                ..cfg.clone()
            },
            10,
        );
        for i in 0..=500 {
            ack(&mut c, i * MS, 1, 20 * MS);
        }
        assert_eq!(c.alpha(), 10.0);
        // Target 0: T = 2·minRTT; at an average of 2·minRTT α = 2.
        let mut c = c2(
            C2tcpConfig {
                target_ms: 0.0,
                ..cfg
            },
            10,
        );
        ack(&mut c, 0, 1, 20 * MS);
        for i in 1..=500 {
            ack(&mut c, i * MS, 1, if i < 250 { 20 * MS } else { 60 * MS });
        }
        // The period's samples: 250 of 20 ms and 250 of 60 ms, an average of exactly 2·minRTT.
        assert!((c.alpha() - 2.0).abs() < 0.05, "{}", c.alpha());
    }

    #[test]
    fn config_validation_names_the_field() {
        use schemars::_serde_json as json;
        assert!(C2tcpConfig::default().validate().is_ok());
        let e = C2tcpConfig {
            target_ms: -5.0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("target_ms"), "{e}");
        let e = C2tcpConfig {
            alpha_max: 0.5,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("alpha_max"), "{e}");
        let e = C2tcpConfig {
            tuning_period_ms: 0.0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("tuning_period_ms"), "{e}");
        let e = C2tcpConfig {
            cubic: CubicConfig {
                beta: 2.0,
                ..Default::default()
            },
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("cubic.beta"), "{e}");
        let cfg: C2tcpConfig =
            json::from_str(r#"{"target_ms": 20, "cubic": {"hystart": false}}"#).unwrap();
        assert_eq!(cfg.target_ms, 20.0);
        assert!(!cfg.cubic.hystart);
        assert!(json::from_str::<C2tcpConfig>(r#"{"setpoint": 1}"#).is_err());
    }
}
