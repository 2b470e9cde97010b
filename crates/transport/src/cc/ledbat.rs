//! LEDBAT, Low Extra Delay Background Transport (RFC 6817), over TCP.
//!
//! LEDBAT measures the one-way delay (OWD) of its data, keeps the minimum over the last few
//! minutes as the *base delay*, and treats the excess of the current delay over the base as
//! queuing delay. It steers that queuing delay towards `TARGET` with a proportional
//! controller (RFC 6817 §2.4.2):
//!
//! ```text
//! queuing_delay = FILTER(current_delays) − MIN(base_delays)
//! off_target    = (TARGET − queuing_delay) / TARGET
//! cwnd         += GAIN · off_target · bytes_newly_acked · MSS / cwnd
//! cwnd          = min(cwnd, flightsize + ALLOWED_INCREASE · MSS)
//! cwnd          = max(cwnd, MIN_CWND · MSS)
//! ```
//!
//! The OWD comes from RFC 7323 timestamps, as in TCP LEDBAT implementations:
//! `TSval − TSecr` of an ACK is the receiver's clock when it acknowledged minus the sender's
//! clock when it sent the echoed segment, i.e. the OWD plus an unknown constant clock offset
//! (which cancels in `queuing_delay`). Differences are taken in wrapping `u32` arithmetic and
//! kept relative to the first sample, so the filters work whatever the offset. With delayed
//! ACKs `TSecr` echoes the earliest segment an ACK covers (RFC 7323 §4.3), so some samples
//! also contain the receiver's ACK hold time; the MIN filter over `CURRENT_FILTER` samples
//! removes those upward outliers (on a 10 Mbit/s, 50 ms path the estimate follows the true
//! bottleneck queue within a few ms).
//!
//! Choices where RFC 6817 leaves room (each documented at the code):
//! - **Slow start.** RFC 6817 starts in congestion avoidance; Linux LEDBAT modules start with
//!   NewReno slow start. Here slow start (`cwnd += bytes_acked` while `cwnd < ssthresh`, RFC
//!   5681 §3.1) runs until the first of: queuing delay above
//!   `slow_start_exit_fraction · TARGET` (then `ssthresh = cwnd`), a loss, or `cwnd ≥
//!   ssthresh`. It resumes after a retransmission timeout (with `ssthresh = max(FlightSize/2,
//!   2·MSS)`) under the same exit rules. `slow_start = false` gives plain RFC 6817. The delay
//!   signal lags the doubling window by about one RTT, so slow start overshoots: the queue
//!   peaks above the exit threshold and the RFC 6817 controller then walks it down.
//! - **FILTER** is the minimum of the last `CURRENT_FILTER` samples (RFC 6817 §3.1.2 suggests
//!   MIN over a short window).
//! - **flightsize** is the flight *before* this ACK (RFC 6817's pseudo-code subtracts
//!   `bytes_newly_acked` only after the cap), i.e. `AckEvent::prior_in_flight`.
//! - **Decrease GAIN.** `decrease_gain` (default 1, i.e. the RFC's single GAIN) replaces
//!   GAIN while `off_target < 0`, as RFC 6817 §2.5 permits. With GAIN = 1 the window shrinks
//!   by at most `|off_target|` segments per RTT, so a large window takes many RTTs to yield
//!   to loss-based traffic that fills the buffer.
//! - **Loss** (§2.4.2): `cwnd = min(cwnd, max(cwnd/2, MIN_CWND·MSS))`, at most once per
//!   smoothed RTT; it also ends slow start (`ssthresh = cwnd`).
//! - **Timeout**: RFC 6817's congestion timeout is the sender's RTO here; `cwnd = 1·MSS`
//!   (the `MIN_CWND` floor lifts it again on the next ACK, as in the RFC's pseudo-code).
//! - Only ACKs that acknowledge new data give delay samples (a duplicate ACK echoes an older
//!   timestamp, RFC 7323 §4.3) and change `cwnd`; nothing changes `cwnd` during fast recovery.
//! - Base-delay buckets roll over as in the RFC's pseudo-code: a new bucket starts when an
//!   ACK arrives in a different `base_interval_s` period than the last rollover; idle periods
//!   do not evict more than one bucket.

use cellshare_core::{time::from_secs_f64, Nanos};

use super::{
    idle_restart, AckEvent, CcContext, CcParams, CcTrace, CongestionControl, IdleRestart,
    LossEvent, UndoEvent,
};

/// Parameters of [`Ledbat`] (names as in RFC 6817 §2.5).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LedbatConfig {
    /// TARGET: the queuing delay LEDBAT aims for, in milliseconds. Default 100 (RFC 6817
    /// §2.5: TARGET MUST NOT exceed 100 ms).
    pub target_ms: f64,
    /// GAIN: how fast `cwnd` reacts to being off target (dimensionless). Default 1 (RFC 6817
    /// §2.5: GAIN MUST NOT exceed 1, so LEDBAT never ramps up faster than TCP).
    pub gain: f64,
    /// GAIN used instead of `gain` while the queuing delay is above TARGET (negative
    /// off_target), dimensionless. Default 1 (RFC 6817 §2.5: the same GAIN for increase and
    /// decrease, though implementations MAY use a higher one for decrease, to yield faster).
    pub decrease_gain: f64,
    /// BASE_HISTORY: number of base-delay buckets whose minimum is the base delay. Default 10
    /// (RFC 6817 §2.5 recommends 10).
    pub base_history: usize,
    /// Length of one base-delay bucket in seconds. Default 60 (RFC 6817 §2.4.2: each minimum
    /// is measured over a period of a minute).
    pub base_interval_s: f64,
    /// CURRENT_FILTER: number of recent delay samples whose minimum is the current delay.
    /// Default 4 (RFC 6817 §2.5: use at least 4 delay samples per RTT, none older than an RTT;
    /// keep it at most the window in segments).
    pub current_filter: usize,
    /// ALLOWED_INCREASE: how far `cwnd` may exceed the flight size, in segments. Default 1
    /// (RFC 6817 §2.5: SHOULD be 1, MUST be greater than 0). 0 is accepted to reproduce ns-3's
    /// `TcpLedbat` (the simulator of the Legilimens and Sneaker papers), which caps `cwnd` at
    /// the flight before the ACK (`m_highTxMark − m_lastAckedSeq + segmentsAcked·MSS`): the
    /// window can then never grow in congestion avoidance, and every loss halving is for good.
    /// That is outside RFC 6817; use it only to compare with ns-3 results.
    pub allowed_increase: f64,
    /// MIN_CWND: smallest window, in segments. Default 2 (RFC 6817 §2.5 recommends 2).
    pub min_cwnd: u32,
    /// Whether to start with NewReno slow start before the first delay-based decision, as
    /// Linux LEDBAT implementations do. Default true.
    pub slow_start: bool,
    /// Slow start ends once the queuing delay exceeds this fraction of TARGET
    /// (dimensionless). Default 0.5.
    pub slow_start_exit_fraction: f64,
}

impl Default for LedbatConfig {
    fn default() -> Self {
        Self {
            target_ms: 100.0,
            gain: 1.0,
            decrease_gain: 1.0,
            base_history: 10,
            base_interval_s: 60.0,
            current_filter: 4,
            allowed_increase: 1.0,
            min_cwnd: 2,
            slow_start: true,
            slow_start_exit_fraction: 0.5,
        }
    }
}

/// Largest filter length accepted (the filters are allocated once, at construction).
const MAX_FILTER_LEN: usize = 1024;

impl CcParams for LedbatConfig {
    /// Checks the parameters; the error names the offending field, its value and what is expected.
    fn validate(&self) -> Result<(), String> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("ledbat.{name} = {v}: expected a finite number > 0"))
            }
        };
        positive("target_ms", self.target_ms)?;
        positive("gain", self.gain)?;
        positive("decrease_gain", self.decrease_gain)?;
        positive("base_interval_s", self.base_interval_s)?;
        if !(self.allowed_increase.is_finite() && self.allowed_increase >= 0.0) {
            return Err(format!(
                "ledbat.allowed_increase = {}: expected a finite number ≥ 0 (segments)",
                self.allowed_increase
            ));
        }
        positive("slow_start_exit_fraction", self.slow_start_exit_fraction)?;
        if !(1..=MAX_FILTER_LEN).contains(&self.base_history) {
            return Err(format!(
                "ledbat.base_history = {}: expected a bucket count in 1..={MAX_FILTER_LEN}",
                self.base_history
            ));
        }
        if !(1..=MAX_FILTER_LEN).contains(&self.current_filter) {
            return Err(format!(
                "ledbat.current_filter = {}: expected a sample count in 1..={MAX_FILTER_LEN}",
                self.current_filter
            ));
        }
        if self.min_cwnd == 0 {
            return Err("ledbat.min_cwnd = 0: expected at least 1 segment".to_string());
        }
        Ok(())
    }

    fn build(&self, ctx: &CcContext) -> Box<dyn CongestionControl> {
        Box::new(Ledbat::new(self, ctx.mss, ctx.initial_window))
    }
}

/// The LEDBAT congestion controller (RFC 6817) with optional initial slow start.
#[derive(Clone, Debug)]
pub struct Ledbat {
    cfg: LedbatConfig,
    mss: u64,
    /// Congestion window in bytes (fractional: the controller adds fractions of a segment).
    cwnd: f64,
    ssthresh: u64,
    /// Whether slow start may still run (cleared by its exit conditions, set by a timeout).
    slow_start: bool,
    /// TARGET in ms.
    target: f64,
    /// Bucket length in ns.
    base_interval: Nanos,
    /// `base_delays`: per-bucket minimum OWD in ms (relative frame), ring of BASE_HISTORY.
    base_delays: Vec<i64>,
    /// Index of the newest bucket (`base_delays.tail`).
    base_tail: usize,
    /// Bucket number (`now / base_interval`) of the last rollover.
    last_rollover: Option<u64>,
    /// `current_delays`: the last CURRENT_FILTER OWD samples in ms (relative frame).
    current_delays: Vec<i64>,
    /// Next slot of `current_delays` to overwrite.
    current_next: usize,
    /// Raw `TSval − TSecr` of the first sample: the origin of the relative frame.
    owd_origin: Option<u32>,
    /// Latest queuing delay in ms (NaN before the first sample).
    queuing_delay: f64,
    /// Time of the last loss reduction.
    last_loss_cut: Option<Nanos>,
    /// Latest smoothed RTT.
    srtt: Nanos,
}

impl Ledbat {
    /// A LEDBAT controller for segments of `mss` bytes starting with `initial_window_bytes`.
    pub fn new(cfg: &LedbatConfig, mss: u32, initial_window_bytes: u64) -> Ledbat {
        let mss = mss.max(1) as u64;
        Ledbat {
            cfg: cfg.clone(),
            mss,
            cwnd: initial_window_bytes.max(mss) as f64,
            ssthresh: u64::MAX,
            slow_start: cfg.slow_start,
            target: cfg.target_ms,
            base_interval: from_secs_f64(cfg.base_interval_s).max(1),
            base_delays: vec![i64::MAX; cfg.base_history.clamp(1, MAX_FILTER_LEN)],
            base_tail: 0,
            last_rollover: None,
            current_delays: vec![i64::MAX; cfg.current_filter.clamp(1, MAX_FILTER_LEN)],
            current_next: 0,
            owd_origin: None,
            queuing_delay: f64::NAN,
            last_loss_cut: None,
            srtt: 0,
        }
    }

    /// Current queuing-delay estimate in ms (NaN before the first delay sample).
    pub fn queuing_delay_ms(&self) -> f64 {
        self.queuing_delay
    }

    /// Current base delay in ms: the minimum over the base-delay buckets, in the frame of the
    /// raw timestamp difference (OWD plus the clock offset). `None` before the first sample.
    pub fn base_delay_ms(&self) -> Option<i64> {
        let origin = self.owd_origin? as i32 as i64;
        self.base_delays
            .iter()
            .min()
            .filter(|&&m| m != i64::MAX)
            .map(|m| origin + m)
    }

    /// Whether slow start is currently in effect.
    pub fn in_slow_start(&self) -> bool {
        self.slow_start && (self.cwnd as u64) < self.ssthresh
    }

    /// The OWD sample of an ACK in ms, relative to the first sample (wrapping u32 arithmetic
    /// on the 1 ms timestamp clocks; the constant clock offset drops out).
    fn owd_sample(&mut self, ts_val: u32, ts_ecr: u32) -> i64 {
        let raw = ts_val.wrapping_sub(ts_ecr);
        let origin = *self.owd_origin.get_or_insert(raw);
        raw.wrapping_sub(origin) as i32 as i64
    }

    /// RFC 6817 §2.4.2 `update_base_delay`: one minimum per bucket, BASE_HISTORY buckets.
    fn update_base_delay(&mut self, now: Nanos, delay: i64) {
        let bucket = now / self.base_interval;
        if self.last_rollover == Some(bucket) {
            let tail = &mut self.base_delays[self.base_tail];
            *tail = (*tail).min(delay);
        } else {
            // "delete first item in base_delays list; append delay to base_delays list"
            self.last_rollover = Some(bucket);
            self.base_tail = (self.base_tail + 1) % self.base_delays.len();
            self.base_delays[self.base_tail] = delay;
        }
    }

    /// RFC 6817 §2.4.2 `update_current_delay`: keep the last CURRENT_FILTER samples.
    fn update_current_delay(&mut self, delay: i64) {
        self.current_delays[self.current_next] = delay;
        self.current_next = (self.current_next + 1) % self.current_delays.len();
    }

    fn min_cwnd_bytes(&self) -> f64 {
        (self.cfg.min_cwnd as u64 * self.mss) as f64
    }
}

impl CongestionControl for Ledbat {
    fn name(&self) -> &'static str {
        "ledbat"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if ev.is_dup || ev.acked_bytes == 0 {
            return;
        }
        if ev.srtt > 0 {
            self.srtt = ev.srtt;
        }
        // RFC 6817 §2.4.2 "on acknowledgement": update the delay filters.
        let delay = self.owd_sample(ev.ts_val, ev.ts_ecr);
        self.update_base_delay(ev.now, delay);
        self.update_current_delay(delay);
        let current = *self.current_delays.iter().min().expect("non-empty filter");
        let base = *self.base_delays.iter().min().expect("non-empty filter");
        let queuing_delay = (current - base) as f64;
        self.queuing_delay = queuing_delay;

        if ev.in_recovery {
            // The sender owns the window during fast recovery.
            return;
        }
        let mss = self.mss as f64;
        let acked = ev.acked_bytes as f64;
        if self.slow_start {
            if queuing_delay > self.cfg.slow_start_exit_fraction * self.target {
                // Slow-start exit on delay: hand over to the delay-based controller from here.
                self.slow_start = false;
                self.ssthresh = self.cwnd as u64;
            } else if (self.cwnd as u64) < self.ssthresh {
                // NewReno slow start (RFC 5681 §3.1), only when the window limits the sender
                // (RFC 7661).
                if !ev.app_limited {
                    self.cwnd = (self.cwnd + acked).min(self.ssthresh as f64);
                }
                return;
            } else {
                self.slow_start = false;
            }
        }
        // RFC 6817 §2.4.2: proportional controller on the queuing delay.
        let off_target = (self.target - queuing_delay) / self.target;
        let gain = if off_target < 0.0 {
            self.cfg.decrease_gain
        } else {
            self.cfg.gain
        };
        self.cwnd += gain * off_target * acked * mss / self.cwnd;
        // RFC 6817 §2.4.2: max_allowed_cwnd = flightsize + ALLOWED_INCREASE·MSS. With
        // ALLOWED_INCREASE = 0 (ns-3's TcpLedbat) this never lets cwnd exceed the flight, which
        // is at most cwnd: congestion avoidance can only shrink the window.
        let max_allowed = ev.prior_in_flight as f64 + self.cfg.allowed_increase * mss;
        self.cwnd = self.cwnd.min(max_allowed);
        // RFC 6817 §2.4.2: cwnd = max(cwnd, MIN_CWND·MSS).
        self.cwnd = self.cwnd.max(self.min_cwnd_bytes());
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        // RFC 6817 §2.4.2 "on data loss": at most once per RTT,
        // cwnd = min(cwnd, max(cwnd/2, MIN_CWND·MSS)).
        let once_per_rtt = match self.last_loss_cut {
            None => true,
            Some(t) => ev.now.saturating_sub(t) >= self.srtt,
        };
        if once_per_rtt {
            self.cwnd = self.cwnd.min((self.cwnd / 2.0).max(self.min_cwnd_bytes()));
            self.last_loss_cut = Some(ev.now);
        }
        // A loss ends slow start for good (until a timeout).
        self.slow_start = false;
        self.ssthresh = self.cwnd as u64;
    }

    fn on_timeout(&mut self, now: Nanos, bytes_in_flight: u64, _mss: u32) {
        // RFC 6817 §2.4.2 congestion timeout: cwnd = 1·MSS. Slow start resumes up to
        // ssthresh = max(FlightSize/2, 2·MSS) (RFC 5681 §3.1 eq. 4), still exiting on delay.
        self.cwnd = self.mss as f64;
        self.ssthresh = (bytes_in_flight / 2).max(2 * self.mss);
        self.slow_start = self.cfg.slow_start;
        self.last_loss_cut = Some(now);
    }

    fn undo_cwnd(&mut self, ev: &UndoEvent) {
        // LEDBAT is not in Linux; the project's eBPF LEDBAT returns `snd_cwnd` from
        // `undo_cwnd` and the stack restores ssthresh: the same here.
        self.ssthresh = self.ssthresh.max(ev.prior_ssthresh);
    }

    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        // The eBPF LEDBAT has a `cong_avoid` hook, so Linux's `tcp_cwnd_restart` applies.
        let (cwnd, ssthresh) = idle_restart(self.cwnd as u64, self.ssthresh, ev);
        self.cwnd = cwnd as f64;
        self.ssthresh = ssthresh;
    }

    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// `mode`: 0 = delay-based (RFC 6817) control, 1 = slow start; `estimate`: queuing delay
    /// in ms; `flag`: queuing delay above TARGET.
    fn trace(&self) -> CcTrace {
        CcTrace {
            mode: u8::from(self.in_slow_start()),
            estimate: self.queuing_delay,
            flag: self.queuing_delay > self.target,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::{MS, SEC};

    const MSS: u32 = 1000;
    const M: f64 = MSS as f64;

    /// Delay-based controller (no slow start) with `cwnd_segments`.
    fn no_ss(cwnd_segments: u64) -> Ledbat {
        let cfg = LedbatConfig {
            slow_start: false,
            ..Default::default()
        };
        Ledbat::new(&cfg, MSS, cwnd_segments * MSS as u64)
    }

    /// An ACK at `now` of `acked` bytes with one-way delay `owd_ms` (sender clock = now in ms,
    /// receiver clock offset by +1000 ms) and `flight` bytes in flight before it.
    fn ack(now: Nanos, owd_ms: u32, acked: u64, flight: u64) -> AckEvent {
        let send_ms = (now / MS) as u32 - owd_ms;
        AckEvent {
            now,
            acked_bytes: acked,
            ts_ecr: send_ms,
            ts_val: send_ms.wrapping_add(owd_ms).wrapping_add(1000),
            srtt: 100 * MS,
            prior_in_flight: flight,
            bytes_in_flight: flight.saturating_sub(acked),
            mss: MSS,
            ..Default::default()
        }
    }

    #[test]
    fn default_config_is_valid_and_bad_fields_are_named() {
        LedbatConfig::default().validate().unwrap();
        let err = LedbatConfig {
            target_ms: -5.0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(
            err.contains("ledbat.target_ms") && err.contains("-5"),
            "{err}"
        );
        let err = LedbatConfig {
            current_filter: 0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(err.contains("ledbat.current_filter"), "{err}");
    }

    #[test]
    fn grows_by_gain_times_bytes_acked_mss_over_cwnd_at_zero_queuing_delay() {
        let mut l = no_ss(20);
        let big = 100 * MSS as u64;
        // Constant OWD: queuing delay 0, off_target = 1.
        l.on_ack(&ack(SEC, 30, MSS as u64, big));
        assert_eq!(l.queuing_delay_ms(), 0.0);
        let expected = 20.0 * M + M * M / (20.0 * M);
        assert!((l.cwnd - expected).abs() < 1e-9, "{} vs {expected}", l.cwnd);
        // A 2-segment (delayed) ACK grows twice as much.
        let before = l.cwnd;
        l.on_ack(&ack(SEC + MS, 30, 2 * MSS as u64, big));
        assert!((l.cwnd - (before + 2.0 * M * M / before)).abs() < 1e-9);
        // Over one window of ACKs the window grows by ≈ GAIN·1 segment (per RTT).
        let start = l.cwnd;
        let n = (start / M).round() as u64;
        for i in 0..n {
            l.on_ack(&ack(SEC + (2 + i) * MS, 30, MSS as u64, big));
        }
        assert!((l.cwnd - start - M).abs() < 0.05 * M, "{}", l.cwnd - start);
    }

    #[test]
    fn shrinks_when_queuing_delay_exceeds_target() {
        let mut l = no_ss(20);
        let big = 100 * MSS as u64;
        l.on_ack(&ack(SEC, 20, MSS as u64, big)); // base 20 ms
        let mut before = l.cwnd;
        // 170 ms OWD: queuing delay 150 ms once the current filter (min of 4) holds only these.
        for i in 1..=4 {
            before = l.cwnd;
            l.on_ack(&ack(SEC + i * MS, 170, MSS as u64, big));
        }
        assert_eq!(l.queuing_delay_ms(), 150.0);
        // off_target = (100 − 150)/100 = −0.5.
        let expected = before - 0.5 * M * M / before;
        assert!((l.cwnd - expected).abs() < 1e-9, "{} vs {expected}", l.cwnd);
        assert!(l.cwnd < before);
        assert!(l.trace().flag);
        assert_eq!(l.trace().estimate, 150.0);
        // With a decrease GAIN of 4 (RFC 6817 §2.5 allows a higher one) the cut is 4× larger.
        let cfg = LedbatConfig {
            slow_start: false,
            decrease_gain: 4.0,
            ..Default::default()
        };
        let mut f = Ledbat::new(&cfg, MSS, 20 * MSS as u64);
        f.on_ack(&ack(SEC, 20, MSS as u64, big));
        for i in 1..=4 {
            before = f.cwnd;
            f.on_ack(&ack(SEC + i * MS, 170, MSS as u64, big));
        }
        assert!((f.cwnd - (before - 4.0 * 0.5 * M * M / before)).abs() < 1e-9);
    }

    #[test]
    fn current_filter_takes_minimum_of_last_samples() {
        let mut l = no_ss(20);
        let big = 100 * MSS as u64;
        l.on_ack(&ack(SEC, 20, MSS as u64, big));
        // Three high samples: the filter still holds the 20 ms sample.
        for i in 1..=3 {
            l.on_ack(&ack(SEC + i * MS, 120, MSS as u64, big));
            assert_eq!(l.queuing_delay_ms(), 0.0);
        }
        // The fourth pushes it out.
        l.on_ack(&ack(SEC + 4 * MS, 120, MSS as u64, big));
        assert_eq!(l.queuing_delay_ms(), 100.0);
    }

    #[test]
    fn base_delay_keeps_minimum_across_buckets_and_rolls_over() {
        let mut l = no_ss(20);
        let big = 100 * MSS as u64;
        let minute = 60 * SEC;
        // Minute 0: minimum 50 ms; minutes 1..=9: 80 ms.
        l.on_ack(&ack(SEC, 50, MSS as u64, big));
        for m in 1..10 {
            l.on_ack(&ack(m * minute + SEC, 80, MSS as u64, big));
            assert_eq!(l.base_delay_ms(), Some(1050), "minute {m}"); // +1000 ms clock offset
            if m >= 4 {
                // Once the 50 ms sample has left the current filter.
                assert_eq!(l.queuing_delay_ms(), 30.0);
            }
        }
        // Minute 10: the eleventh bucket evicts minute 0; the base becomes 80 ms.
        l.on_ack(&ack(10 * minute + SEC, 80, MSS as u64, big));
        assert_eq!(l.base_delay_ms(), Some(1080));
        assert_eq!(l.queuing_delay_ms(), 0.0);
        // A lower delay within the current bucket lowers that bucket.
        l.on_ack(&ack(10 * minute + 2 * SEC, 60, MSS as u64, big));
        assert_eq!(l.base_delay_ms(), Some(1060));
    }

    #[test]
    fn owd_survives_timestamp_wraparound() {
        let mut l = no_ss(20);
        let big = 100 * MSS as u64;
        // Receiver clock just below the u32 wrap; it wraps between the two ACKs.
        let mut a = ack(SEC, 40, MSS as u64, big);
        a.ts_val = u32::MAX - 5;
        a.ts_ecr = 1000;
        l.on_ack(&a);
        let mut b = ack(SEC + 20 * MS, 40, MSS as u64, big);
        b.ts_val = (u32::MAX - 5).wrapping_add(20 + 30); // 20 ms later, 30 ms more delay
        b.ts_ecr = 1020;
        for _ in 0..4 {
            l.on_ack(&b);
        }
        assert_eq!(l.queuing_delay_ms(), 30.0);
    }

    #[test]
    fn newreno_slow_start_then_exit_on_delay() {
        let mut l = Ledbat::new(&LedbatConfig::default(), MSS, 2 * MSS as u64);
        assert!(l.in_slow_start());
        assert_eq!(l.trace().mode, 1);
        // No queuing: cwnd += bytes acked (doubling per RTT).
        let mut t = SEC;
        for _ in 0..8 {
            let cwnd = l.cwnd;
            l.on_ack(&ack(t, 30, MSS as u64, cwnd as u64));
            assert_eq!(l.cwnd, cwnd + M);
            t += MS;
        }
        assert_eq!(l.cwnd, 10.0 * M);
        // Queuing delay 40 ms ≤ TARGET/2: still slow start.
        for _ in 0..4 {
            l.on_ack(&ack(t, 70, MSS as u64, l.cwnd as u64));
            t += MS;
        }
        assert!(l.in_slow_start());
        assert_eq!(l.cwnd, 14.0 * M);
        // Queuing delay 60 ms > TARGET/2: exit; the same ACK is handled by the RFC 6817 law.
        for _ in 0..4 {
            l.on_ack(&ack(t, 90, MSS as u64, l.cwnd as u64));
            t += MS;
        }
        assert!(!l.in_slow_start());
        assert_eq!(l.trace().mode, 0);
        assert_eq!(l.ssthresh, 17 * MSS as u64);
        let before = l.cwnd;
        l.on_ack(&ack(t, 90, MSS as u64, 100 * MSS as u64));
        // off_target = (100 − 60)/100 = 0.4.
        assert!((l.cwnd - (before + 0.4 * M * M / before)).abs() < 1e-9);
    }

    #[test]
    fn loss_halves_at_most_once_per_rtt_and_ends_slow_start() {
        let mut l = Ledbat::new(&LedbatConfig::default(), MSS, 40 * MSS as u64);
        l.on_ack(&ack(SEC, 30, MSS as u64, 40 * MSS as u64)); // srtt = 100 ms
        let w = l.cwnd;
        let loss = |now| LossEvent {
            now,
            bytes_in_flight: 40 * MSS as u64,
            mss: MSS,
        };
        l.on_congestion_event(&loss(2 * SEC));
        assert_eq!(l.cwnd, w / 2.0);
        assert!(!l.in_slow_start());
        // A second loss within one RTT: no further cut.
        l.on_congestion_event(&loss(2 * SEC + 50 * MS));
        assert_eq!(l.cwnd, w / 2.0);
        // One RTT later: halves again.
        l.on_congestion_event(&loss(2 * SEC + 100 * MS));
        assert_eq!(l.cwnd, w / 4.0);
    }

    #[test]
    fn min_cwnd_floor_and_timeout() {
        let mut l = no_ss(4);
        let big = 100 * MSS as u64;
        l.on_ack(&ack(SEC, 10, MSS as u64, big));
        // Huge queuing delay (900 ms, off_target = −8) for many ACKs: floor at MIN_CWND = 2.
        for i in 1..100 {
            l.on_ack(&ack(SEC + i * MS, 910, MSS as u64, big));
            assert!(l.cwnd >= 2.0 * M);
        }
        assert_eq!(l.cwnd, 2.0 * M);
        // Halving never goes below MIN_CWND either.
        l.on_congestion_event(&LossEvent {
            now: 5 * SEC,
            bytes_in_flight: 2 * MSS as u64,
            mss: MSS,
        });
        assert_eq!(l.cwnd, 2.0 * M);
        // Timeout: 1 MSS, lifted back to MIN_CWND by the next ACK.
        l.on_timeout(6 * SEC, 2 * MSS as u64, MSS);
        assert_eq!(l.cwnd(), MSS as u64);
        l.on_ack(&ack(7 * SEC, 10, MSS as u64, MSS as u64));
        assert!(l.cwnd >= 2.0 * M);
    }

    #[test]
    fn cwnd_capped_at_flightsize_plus_allowed_increase() {
        let mut l = no_ss(20);
        // Application-limited: only 5 segments were in flight. cwnd = min(cwnd + …, 5 + 1).
        l.on_ack(&ack(SEC, 30, MSS as u64, 5 * MSS as u64));
        assert_eq!(l.cwnd, 6.0 * M);
        // Growth is bounded by the flight each ACK.
        for i in 1..50 {
            l.on_ack(&ack(SEC + i * MS, 30, MSS as u64, 6 * MSS as u64));
            assert!(l.cwnd <= 7.0 * M);
        }
        assert_eq!(l.cwnd, 7.0 * M);
    }

    #[test]
    fn allowed_increase_zero_never_grows_in_congestion_avoidance_as_ns3s_tcp_ledbat() {
        let cfg = LedbatConfig {
            slow_start: false,
            allowed_increase: 0.0,
            ..Default::default()
        };
        cfg.validate().unwrap();
        let mut l = Ledbat::new(&cfg, MSS, 20 * MSS as u64);
        // Window-limited at zero queuing delay: the RFC's controller would add a segment per
        // RTT; capped at the flight before each ACK (= cwnd), the window stays.
        for i in 0..200 {
            let flight = l.cwnd();
            l.on_ack(&ack(SEC + i * MS, 30, MSS as u64, flight));
        }
        assert_eq!(l.cwnd(), 20 * MSS as u64);
        // A loss halves it for good: the empty queue afterwards does not bring it back.
        l.on_congestion_event(&LossEvent {
            now: 2 * SEC,
            bytes_in_flight: 20 * MSS as u64,
            mss: MSS,
        });
        assert_eq!(l.cwnd(), 10 * MSS as u64);
        for i in 0..1000 {
            let flight = l.cwnd();
            l.on_ack(&ack(3 * SEC + i * MS, 30, MSS as u64, flight));
        }
        assert_eq!(l.cwnd(), 10 * MSS as u64);
        // The default (ALLOWED_INCREASE = 1) regrows from the same state.
        let mut rfc = no_ss(10);
        for i in 0..1000 {
            let flight = rfc.cwnd();
            rfc.on_ack(&ack(3 * SEC + i * MS, 30, MSS as u64, flight));
        }
        assert!(rfc.cwnd() > 30 * MSS as u64, "{}", rfc.cwnd());
        // Negative or non-finite values are refused with the field named.
        let err = LedbatConfig {
            allowed_increase: -1.0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(err.contains("ledbat.allowed_increase = -1"), "{err}");
    }

    #[test]
    fn no_change_during_recovery_or_on_dup_acks() {
        let mut l = no_ss(20);
        let mut a = ack(SEC, 30, MSS as u64, 100 * MSS as u64);
        a.in_recovery = true;
        l.on_ack(&a);
        assert_eq!(l.cwnd, 20.0 * M);
        let d = AckEvent {
            is_dup: true,
            acked_bytes: 0,
            ..ack(SEC, 30, 0, 100 * MSS as u64)
        };
        l.on_ack(&d);
        assert_eq!(l.cwnd, 20.0 * M);
    }
}
