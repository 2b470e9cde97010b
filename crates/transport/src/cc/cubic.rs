//! CUBIC congestion control \[cubic\] (RFC 9438), with optional HyStart++ (RFC 9406).
//!
//! Windows are kept in (fractional) segments, as in the RFC, and reported in bytes.
//!
//! - **Window increase** (§4.2): `W_cubic(t) = C·(t − K)³ + W_max`, `t` the time since the
//!   start of the current congestion-avoidance epoch (excluding application-limited
//!   periods, §5.8), `K = ∛((W_max − cwnd_epoch)/C)` (which equals `∛(W_max·(1−β)/C)` when
//!   the epoch starts right after a reduction without fast convergence). On every ACK the
//!   target is `W_cubic(t + RTT)` clamped to `[cwnd, 1.5·cwnd]`, where RTT is the minimum
//!   RTT as Linux's `bictcp_update` has it (`t + delay_min`; `lookahead = "min_rtt"`, the
//!   default) or the smoothed RTT as RFC 9438 §4.2 writes (`lookahead = "srtt"`) — on a
//!   bloated cellular queue the smoothed RTT is seconds and the RFC's target runs far ahead
//!   of Linux's; and
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
//! - **Slow start** (§4.10): `cwnd += acked` per ACK, Linux's `tcp_slow_start` (no byte
//!   counting limit; RFC 3465's L with `abc_limit`), with **HyStart on by default**
//!   (`hystart = true`), as Linux's `tcp_cubic` enables it: without it, slow start overshoots a deep base-station buffer by a
//!   whole window and (with no SACK) NewReno repairs the burst one hole per RTT. It
//!   applies to the initial slow start only (while `ssthresh` is unset); on its exit
//!   `cwnd_prior = cwnd` and the first epoch uses `K = 0`, `W_max = cwnd_epoch`. By default
//!   the exit rules are Linux's HyStart \[hystart\] (`hystart_rules = "linux"`: the ACK-train and delay
//!   rules of `tcp_cubic.c`, exit at once); `"rfc9406"` is HyStart++ with `css_rounds` of
//!   Conservative Slow Start.
//! - **Growth floor while W_max is unknown** (Linux `bictcp_update`, not in RFC 9438): until
//!   the first reduction and after a timeout, at least 5 % growth a round trip
//!   (`initial_growth_floor`).
//! - The window never grows while the sender is not window-limited
//!   ([`super::reno::is_cwnd_limited`], §5.8).
//!
//! - **Spurious congestion events** (§4.9): as Linux, which gives CUBIC Reno's `undo_cwnd`:
//!   `cwnd = max(cwnd, cwnd before the reduction)`, `ssthresh = max(ssthresh, prior)`; the
//!   next epoch starts from the restored window (`K = 0` when it is at or above `W_max`,
//!   as Linux's `bictcp_update`). §4.9's restoring of `W_max`, `K` and the epoch is not done
//!   (Linux does not).
//! - **Restart after idle** (RFC 5681 §4.1): Linux's `tcp_cwnd_restart` on `cwnd`/`ssthresh`;
//!   the epoch is left running (Linux's `CA_EVENT_TX_START` slides it by the idle time, which
//!   §5.8's sliding on application-limited ACKs does here).

use cellshare_core::{Nanos, MS, SEC};

use super::reno::is_cwnd_limited;
use super::{
    idle_restart, AckEvent, CcContext, CcParams, CcTrace, CongestionControl, IdleRestart,
    LossEvent, UndoEvent,
};

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
    /// HyStart in the initial slow start (rules: `hystart_rules`). Default true (Linux
    /// enables HyStart).
    pub hystart: bool,
    /// CSS_ROUNDS of RFC 9406 §4.3: rounds of Conservative Slow Start (growth at a quarter
    /// of slow start's) after the RTT rose, before leaving slow start, with `hystart_rules =
    /// "rfc9406"`. Default 5 (RFC 9406); 0 leaves at once.
    pub css_rounds: u32,
    /// Which rules end the initial slow start when `hystart` is on: `"rfc9406"` (HyStart++:
    /// the round's minimum RTT against the previous round's, then `css_rounds` of
    /// Conservative Slow Start) or `"linux"` (`tcp_cubic`'s HyStart: the delay rule against
    /// the connection's minimum RTT and the ACK-train rule, exit at once, from a window of
    /// 16 segments). Default `"linux"`: measured against Linux in the emulator
    /// (docs/tcp.md), with the growth floor below, the median RTT on a fixed 20 Mbit/s cell
    /// is 338 ms with `"linux"`, 367 with `"rfc9406"` (Linux 342); on the T-Mobile UMTS
    /// trace 4486 against 4254 (Linux 4837).
    pub hystart_rules: HyStartRules,
    /// Linux's growth floor while W_max is unknown (`bictcp_update`: `if (last_max_cwnd == 0
    /// && cnt > 20) cnt = 20`, "the initial growth of cubic function may be too conservative
    /// when the available bandwidth is still unknown"): until the first window reduction, and
    /// again after a timeout (`cubic_state` resets on `TCP_CA_Loss`), congestion avoidance adds
    /// at least 1/20 segment per acknowledged segment (5 % a round trip). RFC 9438 has no such
    /// floor (`false`). Default true.
    pub initial_growth_floor: bool,
    /// Appropriate Byte Counting limit L in segments for slow start (RFC 3465: `cwnd +=
    /// min(acked, L·MSS)` per ACK). Default unset: no limit, `cwnd += acked`, as Linux's
    /// `tcp_slow_start` (Linux dropped RFC 3465's limit with `tcp_abc` in 3.8). It matters
    /// with ACKs of more than two segments: Linux's receiver ACKs a TTI's burst at once
    /// (`TcpConfig::burst_acks`), and with L = 2 slow start grew by two segments per ACK of
    /// six, so HyStart fired later and at a larger window (emulator cross-check, T-Mobile LTE
    /// from +500 ms: exit at 390 ms with 234 segments, without the limit at 174 ms with 150;
    /// Linux had 149 after 1 s). That run's recovery was still open at the trace's 812 ms
    /// pause and timed out: 1.48 retransmissions per drop over four starts against Linux's
    /// 0.99; without the limit 1.00 and no timeout.
    pub abc_limit: Option<u32>,
    /// Initial slow-start threshold in bytes; `None` (default) = unlimited.
    pub initial_ssthresh: Option<u64>,
    /// How far ahead each ACK aims on the cubic curve: `"min_rtt"` (default, Linux's
    /// `bictcp_update`: `W_cubic(t + min RTT)`) or `"srtt"` (RFC 9438 §4.2: `W_cubic(t + SRTT)`).
    pub lookahead: CubicLookahead,
}

/// The RTT CUBIC adds to `t` when it computes its target window: `"min_rtt"` (Linux) or
/// `"srtt"` (RFC 9438 §4.2). (No variant doc comments, so the schema is a string enum.)
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum CubicLookahead {
    #[default]
    MinRtt,
    Srtt,
}

/// The slow-start exit rules of [`CubicConfig::hystart_rules`]: `"rfc9406"` or `"linux"`.
/// (No variant doc comments, so the schema is a string enum.)
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum HyStartRules {
    Rfc9406,
    #[default]
    Linux,
}

impl Default for CubicConfig {
    fn default() -> Self {
        Self {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            hystart: true,
            css_rounds: 5,
            hystart_rules: HyStartRules::Linux,
            initial_growth_floor: true,
            abc_limit: None,
            initial_ssthresh: None,
            lookahead: CubicLookahead::MinRtt,
        }
    }
}

impl CcParams for CubicConfig {
    /// Checks every field, naming the first bad one.
    fn validate(&self) -> Result<(), String> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(format!("c must be > 0, got {}", self.c));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(format!("beta must be in (0, 1), got {}", self.beta));
        }
        if self.abc_limit == Some(0) {
            return Err("abc_limit must be >= 1 segment, got 0".into());
        }
        if self.initial_ssthresh == Some(0) {
            return Err("initial_ssthresh must be > 0 bytes, got 0".into());
        }
        Ok(())
    }

    fn build(&self, ctx: &CcContext) -> Box<dyn CongestionControl> {
        Box::new(Cubic::new(self, ctx.mss, ctx.initial_window))
    }
}

/// HyStart++ constants (RFC 9406 §4.3).
const MIN_RTT_THRESH: Nanos = 4 * MS;
const MAX_RTT_THRESH: Nanos = 16 * MS;
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
/// Linux `tcp_cubic.c`: `hystart_low_window` (segments), `hystart_ack_delta_us`,
/// `HYSTART_MIN_SAMPLES`; the delay threshold is `HYSTART_DELAY_THRESH`, the same clamp of
/// `delay_min/8` to [4, 16] ms as RFC 9406's.
/// Linux `bictcp_update`'s largest `cnt` (ACKed segments per cwnd increment) while
/// `last_max_cwnd == 0`.
const LINUX_UNKNOWN_W_MAX_CNT: f64 = 20.0;
const LINUX_HYSTART_LOW_WINDOW: f64 = 16.0;
const LINUX_HYSTART_ACK_DELTA: Nanos = 2 * MS;
const LINUX_HYSTART_MIN_SAMPLES: u32 = 8;
/// `hystart_ack_delay`: `min(1 ms, 4·GSO_MAX_SIZE / pacing rate)`, 1 ms at the rates a
/// cellular link allows in slow start.
const LINUX_HYSTART_ACK_DELAY: Nanos = MS;

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
    /// CSS_ROUNDS (RFC 9406 §4.3; `CubicConfig::css_rounds`).
    css_limit: u32,
    rules: HyStartRules,
    /// Linux's rules: when the round began (`round_start`) and the last ACK of its train
    /// (`last_ack`).
    round_start: Nanos,
    train_last_ack: Nanos,
}

impl HyStart {
    fn new(active: bool, css_limit: u32, rules: HyStartRules) -> Self {
        Self {
            css_limit,
            rules,
            round_start: 0,
            train_last_ack: 0,
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

    /// Linux `hystart_update` (`tcp_cubic.c`), called for each slow-start ACK with an RTT
    /// sample once cwnd is at least `hystart_low_window`; `bictcp_acked` has already folded
    /// the sample into the connection's minimum (`delay_min`, here `ev.min_rtt`).
    /// - A round starts when `snd_una` passes the `snd_nxt` of the previous start
    ///   (`bictcp_hystart_reset`).
    /// - ACK train: ACKs at most 2 ms apart since the round began, for longer than
    ///   `(delay_min + hystart_ack_delay)/2` (halved without fq pacing), mean the window
    ///   already fills the path.
    /// - Delay: after 8 samples in the round, their minimum above `delay_min +
    ///   clamp(delay_min/8, 4 ms, 16 ms)`.
    /// Either sets ssthresh = cwnd at once (no Conservative Slow Start).
    fn on_ack_linux(&mut self, ev: &AckEvent, cwnd: f64) -> HyStartAction {
        let Some(delay) = ev.rtt_sample else {
            return HyStartAction::Grow(1.0);
        };
        if cwnd < LINUX_HYSTART_LOW_WINDOW {
            return HyStartAction::Grow(1.0);
        }
        if self.window_end.is_none_or(|end| ev.ack_seq > end) {
            self.round_start = ev.now;
            self.train_last_ack = ev.now;
            self.window_end = Some(ev.snd_nxt);
            self.current_round_min_rtt = Nanos::MAX;
            self.rtt_sample_count = 0;
        }
        let delay_min = ev.min_rtt.max(1);
        if ev.now.saturating_sub(self.train_last_ack) <= LINUX_HYSTART_ACK_DELTA {
            self.train_last_ack = ev.now;
            if ev.now - self.round_start > (delay_min + LINUX_HYSTART_ACK_DELAY) / 2 {
                self.active = false;
                return HyStartAction::EnterCongestionAvoidance;
            }
        }
        self.current_round_min_rtt = self.current_round_min_rtt.min(delay);
        if self.rtt_sample_count < LINUX_HYSTART_MIN_SAMPLES {
            self.rtt_sample_count += 1;
        } else if self.current_round_min_rtt
            > delay_min + (delay_min / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
        {
            self.active = false;
            return HyStartAction::EnterCongestionAvoidance;
        }
        HyStartAction::Grow(1.0)
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
        let enough =
            self.rtt_sample_count >= N_RTT_SAMPLE && self.current_round_min_rtt != Nanos::MAX;
        if !self.in_css {
            if enough && self.last_round_min_rtt != Nanos::MAX {
                let thresh = (self.last_round_min_rtt / MIN_RTT_DIVISOR)
                    .clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if self.current_round_min_rtt >= self.last_round_min_rtt.saturating_add(thresh) {
                    // Delay increase: leave standard slow start for Conservative Slow Start,
                    // or (no CSS rounds, Linux's HyStart) for congestion avoidance.
                    if self.css_limit == 0 {
                        self.active = false;
                        return HyStartAction::EnterCongestionAvoidance;
                    }
                    self.css_baseline_min_rtt = self.current_round_min_rtt;
                    self.in_css = true;
                    self.css_rounds = 0;
                }
            }
        } else if enough && self.current_round_min_rtt < self.css_baseline_min_rtt {
            // The RTT fell back: the exit was spurious, resume standard slow start.
            self.css_baseline_min_rtt = Nanos::MAX;
            self.in_css = false;
        } else if self.css_rounds >= self.css_limit {
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
    /// No reduction since the start or the last timeout (Linux `last_max_cwnd == 0`).
    w_max_unknown: bool,
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
        let ssthresh = cfg
            .initial_ssthresh
            .map_or(f64::INFINITY, |b| b as f64 / mss_f);
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
            w_max_unknown: true,
            last_ack: None,
            in_recovery: false,
            hystart: HyStart::new(
                cfg.hystart && ssthresh.is_infinite(),
                cfg.css_rounds,
                cfg.hystart_rules,
            ),
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
        let acked = match self.cfg.abc_limit {
            Some(l) => ev.acked_bytes.min(l as u64 * self.mss as u64),
            None => ev.acked_bytes,
        };
        let inc = acked as f64 / self.mss;
        let divisor = if self.hystart.active {
            let action = match self.hystart.rules {
                HyStartRules::Rfc9406 => self.hystart.on_ack(ev),
                HyStartRules::Linux => self.hystart.on_ack_linux(ev, self.cwnd),
            };
            match action {
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
        let rtt = match self.cfg.lookahead {
            CubicLookahead::MinRtt => ev.min_rtt,
            CubicLookahead::Srtt => ev.srtt,
        } as f64
            / SEC as f64;
        let segments_acked = ev.acked_bytes as f64 / self.mss;
        let before = self.cwnd;
        if self.cfg.reno_friendly {
            // RFC 9438 §4.3, Figure 4.
            let beta = self.cfg.beta;
            let alpha = if self.w_est >= self.cwnd_prior {
                1.0
            } else {
                3.0 * (1.0 - beta) / (1.0 + beta)
            };
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
        if self.cfg.initial_growth_floor && self.w_max_unknown {
            // Linux `bictcp_update`: cnt at most 20 while last_max_cwnd == 0.
            self.cwnd = self
                .cwnd
                .max(before + segments_acked / LINUX_UNKNOWN_W_MAX_CNT);
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
        self.w_max_unknown = false;
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
        self.w_max_unknown = true;
        self.hystart.active = false;
        self.in_recovery = false;
    }

    fn on_timeout_again(&mut self, _now: Nanos, _mss: u32) {
        // Linux `tcp_enter_loss` on a timeout of the same episode: loss window only.
        self.cwnd = 1.0;
        self.epoch_start = None;
        self.w_max_from_epoch = true;
        self.w_max_unknown = true;
        self.in_recovery = false;
    }

    fn on_recovery_end(&mut self, _now: Nanos) {
        // RFC 6582: leave fast recovery with cwnd = ssthresh.
        self.cwnd = self.ssthresh;
        self.in_recovery = false;
    }

    fn undo_cwnd(&mut self, ev: &UndoEvent) {
        // Linux CUBIC's `undo_cwnd` is `tcp_reno_undo_cwnd` (RFC 9438 §4.9 leaves the
        // restoring of W_max optional).
        self.cwnd = self.cwnd.max(ev.prior_cwnd as f64 / self.mss);
        let prior_ssthresh = if ev.prior_ssthresh == u64::MAX {
            f64::INFINITY
        } else {
            ev.prior_ssthresh as f64 / self.mss
        };
        self.ssthresh = self.ssthresh.max(prior_ssthresh);
        self.in_recovery = false;
        self.epoch_start = None;
        // Linux `bictcp_update`: an epoch starting at or above W_max has K = 0, origin cwnd.
        self.w_max_from_epoch = self.cwnd >= self.w_max;
    }

    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        let ssthresh = if self.ssthresh.is_finite() {
            (self.ssthresh * self.mss) as u64
        } else {
            u64::MAX
        };
        let (cwnd, ssthresh) = idle_restart(self.cwnd(), ssthresh, ev);
        self.cwnd = cwnd as f64 / self.mss;
        self.ssthresh = if ssthresh == u64::MAX {
            f64::INFINITY
        } else {
            ssthresh as f64 / self.mss
        };
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
        CcTrace {
            mode,
            estimate: self.w_max * self.mss,
            flag: false,
        }
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
        c.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: flight_segments * M,
            mss: MSS,
        });
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
            min_rtt: srtt,
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
        min_rtt: Nanos,
    }

    impl Flow {
        fn new() -> Self {
            Self {
                una: 0,
                nxt: 0,
                in_flight: VecDeque::new(),
                now: 0,
                min_rtt: Nanos::MAX,
            }
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
                    min_rtt: {
                        self.min_rtt = self.min_rtt.min(arrival - sent);
                        self.min_rtt
                    },
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
        c.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: 100 * M,
            mss: MSS,
        });
        assert!((c.cwnd_segments() - 70.0).abs() < 1e-9);
        assert_eq!(c.ssthresh(), 70 * M);
        assert_eq!(c.cwnd(), 70 * M);
        assert_eq!(c.w_max(), 100.0);
        c.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: M,
            mss: MSS,
        });
        assert_eq!(c.ssthresh(), 2 * M, "ssthresh is at least 2 MSS");
    }

    #[test]
    fn k_and_w_cubic_match_rfc9438() {
        let mut c = cubic(
            CubicConfig {
                reno_friendly: false,
                ..Default::default()
            },
            100,
        );
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
            assert!(
                (c.w_cubic(t) - w).abs() < 1e-9,
                "W({t}) = {} != {w}",
                c.w_cubic(t)
            );
        }
        assert!((c.w_cubic(c.k()) - 100.0).abs() < 1e-12);
    }

    #[test]
    fn lookahead_is_the_min_rtt_as_linux_or_the_srtt_as_rfc9438() {
        // A bloated queue: SRTT 2 s, minimum RTT 25 ms. Linux aims at W(t + 25 ms), the RFC
        // at W(t + 2 s), which is 25 segments further up the curve (K = 4.2 s).
        for (lookahead, ahead) in [(CubicLookahead::MinRtt, 0.025), (CubicLookahead::Srtt, 2.0)] {
            let mut c = cubic(
                CubicConfig {
                    reno_friendly: false,
                    lookahead,
                    ..Default::default()
                },
                100,
            );
            loss(&mut c, 100);
            let cwnd = c.cwnd();
            c.on_ack(&AckEvent {
                now: SEC,
                acked_bytes: M,
                prior_in_flight: cwnd,
                srtt: 2 * SEC,
                min_rtt: 25 * MS,
                mss: MSS,
                ..Default::default()
            });
            let want = 70.0 + (c.w_cubic(ahead) - 70.0) / 70.0;
            assert!(
                (c.cwnd_segments() - want).abs() < 1e-9,
                "{lookahead:?}: {} != {want}",
                c.cwnd_segments()
            );
        }
    }

    #[test]
    fn each_ack_moves_cwnd_towards_w_cubic_one_rtt_ahead() {
        let mut c = cubic(
            CubicConfig {
                reno_friendly: false,
                ..Default::default()
            },
            100,
        );
        loss(&mut c, 100);
        // Epoch starts at the first CA ACK (t = 0): target W(0 + 0.1 s), one segment acked:
        // cwnd = 70 + (W(0.1) − 70)/70.
        ca_ack(&mut c, 1000 * MS, 1, 100 * MS);
        assert!(
            (c.cwnd_segments() - 70.029_770_428_896_8).abs() < 1e-9,
            "{}",
            c.cwnd_segments()
        );
        // One second later: cwnd += (W(1.1) − cwnd)/cwnd.
        ca_ack(&mut c, 2000 * MS, 1, 100 * MS);
        assert!(
            (c.cwnd_segments() - 70.284_730_628_270_51).abs() < 1e-9,
            "{}",
            c.cwnd_segments()
        );
    }

    #[test]
    fn target_is_capped_at_one_and_a_half_cwnd() {
        let mut c = cubic(
            CubicConfig {
                reno_friendly: false,
                ..Default::default()
            },
            100,
        );
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
        let mut c = cubic(
            CubicConfig {
                reno_friendly: false,
                fast_convergence: false,
                ..Default::default()
            },
            100,
        );
        let mut f = Flow::new();
        loss(&mut c, 100);
        // A 100 ms RTT flow: cwnd follows W(t) one RTT ahead; at t ≈ K it plateaus at W_max.
        f.run(&mut c, 4217 * MS, |_| 100 * MS);
        let epoch = c.epoch_start().unwrap();
        let t = (f.now - epoch) as f64 / 1e9;
        let w = c.cwnd_segments();
        assert!(
            w > c.w_cubic(t) - 1.0 && w <= c.w_cubic(t + 0.1) + 1e-9,
            "cwnd {w} vs W(t) {}",
            c.w_cubic(t)
        );
        assert!(
            (w - 100.0).abs() < 1.5,
            "cwnd {w} should be near W_max at t = K"
        );
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = cubic(CubicConfig::default(), 100);
        loss(&mut c, 100);
        assert_eq!(c.w_max(), 100.0);
        // The next loss at cwnd = 70 < W_max: W_max = 70·(1 + 0.7)/2 = 59.5.
        loss(&mut c, 70);
        assert!((c.w_max() - 59.5).abs() < 1e-9);
        let mut c = cubic(
            CubicConfig {
                fast_convergence: false,
                ..Default::default()
            },
            100,
        );
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
        assert!(
            (c.cwnd_segments() - c.w_est()).abs() < 1e-9,
            "cwnd follows W_est"
        );
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
        c.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: 100 * M,
            mss: MSS,
        });
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
        assert_eq!(
            c.epoch_start(),
            Some(epoch + 5000 * MS),
            "t excludes the application-limited time"
        );
    }

    #[test]
    fn slow_start_counts_every_acked_segment_as_linux_or_l_with_abc() {
        // One ACK for a TTI's burst of six segments (Linux's receiver) in slow start, below
        // HyStart's low window: Linux's tcp_slow_start adds all six; RFC 3465 with L = 2 two.
        let ack = |c: &mut Cubic| {
            c.on_ack(&AckEvent {
                now: MS,
                acked_bytes: 6 * M,
                prior_in_flight: 10 * M,
                rtt_sample: Some(20 * MS),
                srtt: 20 * MS,
                min_rtt: 20 * MS,
                mss: MSS,
                ..Default::default()
            })
        };
        let mut linux = cubic(CubicConfig::default(), 10);
        ack(&mut linux);
        assert_eq!(linux.cwnd(), 16 * M);
        let mut abc = cubic(
            CubicConfig {
                abc_limit: Some(2),
                ..Default::default()
            },
            10,
        );
        ack(&mut abc);
        assert_eq!(abc.cwnd(), 12 * M);
        let e = CubicConfig {
            abc_limit: Some(0),
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("abc_limit"), "{e}");
    }

    #[test]
    fn hystart_plus_plus_exits_slow_start_on_delay_increase() {
        let rtt = |now: Nanos| if now < 600 * MS { 100 * MS } else { 140 * MS };
        // RFC 9406's five rounds of conservative slow start, and Linux's immediate exit.
        let mut exits = Vec::new();
        for css_rounds in [5, 0] {
            let mut c = cubic(
                CubicConfig {
                    hystart: true,
                    hystart_rules: HyStartRules::Rfc9406,
                    css_rounds,
                    initial_growth_floor: false,
                    ..Default::default()
                },
                10,
            );
            let mut f = Flow::new();
            let mut saw_css = false;
            while c.ssthresh() == u64::MAX && f.now < 5000 * MS {
                let until = f.now + 10 * MS;
                f.run(&mut c, until, rtt);
                saw_css |= c.trace().mode == 3;
            }
            assert_eq!(
                saw_css,
                css_rounds > 0,
                "conservative slow start precedes the exit ({css_rounds} rounds)"
            );
            assert!(c.ssthresh() < u64::MAX, "left slow start without loss");
            // ssthresh = cwnd at the exit; congestion avoidance has barely added to it since.
            assert!(c.ssthresh() <= c.cwnd() && c.cwnd() - c.ssthresh() < 2 * M);
            exits.push((f.now, c.ssthresh()));
        }
        assert!(
            exits[1].0 < exits[0].0 && exits[1].1 < exits[0].1,
            "without CSS earlier, smaller: {exits:?}"
        );
        // Standard slow start keeps doubling instead.
        let mut c = cubic(
            CubicConfig {
                hystart: false,
                ..Default::default()
            },
            10,
        );
        let mut f = Flow::new();
        f.run(&mut c, 1500 * MS, rtt);
        assert_eq!(c.ssthresh(), u64::MAX);
    }

    /// A bottleneck of `rate` segments per ms behind a base RTT: each ACK returns
    /// `max(sent + base, previous + 1/rate)`, so a full window arrives as a train of ACKs.
    fn run_bottleneck(c: &mut Cubic, base: Nanos, per_segment: Nanos, until: Nanos) -> Nanos {
        let (mut una, mut nxt, mut last, mut now, mut min_rtt) = (0u64, 0u64, 0, 0, Nanos::MAX);
        let mut flight: VecDeque<(Nanos, Nanos, u64)> = VecDeque::new();
        while now < until && c.ssthresh() == u64::MAX {
            while nxt + M <= una + c.cwnd() {
                last = (now + base).max(last + per_segment);
                nxt += M;
                flight.push_back((now, last, nxt));
            }
            let (sent, arrival, end) = flight.pop_front().unwrap();
            now = arrival;
            una = end;
            min_rtt = min_rtt.min(arrival - sent);
            c.on_ack(&AckEvent {
                now,
                acked_bytes: M,
                ack_seq: end,
                snd_nxt: nxt,
                prior_in_flight: nxt - una + M,
                bytes_in_flight: nxt - una,
                rtt_sample: Some(arrival - sent),
                srtt: arrival - sent,
                min_rtt,
                mss: MSS,
                ..Default::default()
            });
        }
        now
    }

    #[test]
    fn linux_hystart_leaves_slow_start_on_an_ack_train_or_a_delay_rise() {
        let linux = CubicConfig {
            hystart_rules: HyStartRules::Linux,
            ..Default::default()
        };
        // 40 ms base RTT, one segment per ms (BDP 40 segments): the ACKs of a round come 1 ms
        // apart, and once they last longer than (40 + 1)/2 ms the window has passed the BDP
        // (grown by one segment per ACK of the round meanwhile: below twice the BDP).
        let mut c = cubic(linux.clone(), 10);
        let t = run_bottleneck(&mut c, 40 * MS, MS, 5000 * MS);
        let exit = c.ssthresh() / M;
        assert!(
            (40..=80).contains(&exit),
            "ACK train exit near the BDP: {exit} segments at {t}"
        );
        assert!(c.trace().mode != 3, "no conservative slow start");
        // ACKs 3 ms apart never form a train (BDP 13 segments): the delay rule ends slow
        // start once the queue adds more than max(4 ms, 40/8 ms) to the minimum RTT.
        let mut c = cubic(linux, 10);
        let t2 = run_bottleneck(&mut c, 40 * MS, 3 * MS, 5000 * MS);
        let exit2 = c.ssthresh() / M;
        assert!(
            c.ssthresh() < u64::MAX && (16..=60).contains(&exit2),
            "delay exit at {exit2} segments at {t2}"
        );
        // RFC 9406 on the same path still grows through its conservative rounds first.
        let mut c = cubic(
            CubicConfig {
                hystart_rules: HyStartRules::Rfc9406,
                ..Default::default()
            },
            10,
        );
        let t3 = run_bottleneck(&mut c, 40 * MS, MS, 5000 * MS);
        assert!(
            t3 > t && c.ssthresh() / M > exit,
            "RFC 9406 {} segments at {t3}, Linux {exit} at {t}",
            c.ssthresh() / M
        );
    }

    #[test]
    fn growth_floor_while_w_max_is_unknown_as_linux() {
        // 100 segments in congestion avoidance with no reduction yet, 100 ms RTT, for 1 s.
        let grow = |floor: bool, after_loss: bool| {
            let cfg = CubicConfig {
                initial_growth_floor: floor,
                initial_ssthresh: Some(100 * M),
                ..Default::default()
            };
            let mut c = cubic(cfg, 100);
            if after_loss {
                loss(&mut c, 143); // W_max = 143, cwnd = 100: K ≈ 3.2 s.
            }
            let mut f = Flow::new();
            f.run(&mut c, 1000 * MS, |_| 100 * MS);
            c.cwnd_segments()
        };
        // Linux: at least 1/20 segment per ACKed segment, ~5 % a round trip (100·1.05^10 ≈ 163).
        let (with, without) = (grow(true, false), grow(false, false));
        assert!(with > 150.0 && with < 170.0, "floor: {with}");
        assert!(
            without < 110.0,
            "RFC 9438's curve from K = 0 starts flat: {without}"
        );
        // Once a reduction has set W_max the curve alone decides, as in Linux.
        assert_eq!(grow(true, true), grow(false, true));
        // A timeout forgets W_max again (Linux `cubic_state` on TCP_CA_Loss).
        let mut c = cubic(CubicConfig::default(), 100);
        loss(&mut c, 100);
        c.on_timeout(0, 100 * M, MSS);
        assert!(c.w_max_unknown);
    }

    #[test]
    fn config_validation_and_serde() {
        use schemars::_serde_json as json;
        assert!(CubicConfig::default().validate().is_ok());
        let e = CubicConfig {
            c: -1.0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e, "c must be > 0, got -1");
        let e = CubicConfig {
            beta: 1.0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("beta"), "{e}");
        let cfg: CubicConfig = json::from_str(r#"{"beta": 0.8}"#).unwrap();
        assert_eq!(
            cfg,
            CubicConfig {
                beta: 0.8,
                ..Default::default()
            }
        );
        assert!(json::from_str::<CubicConfig>(r#"{"betta": 0.8}"#).is_err());
    }
}
