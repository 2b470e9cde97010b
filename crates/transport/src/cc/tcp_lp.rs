//! TCP-LP, a low-priority TCP: A. Kuzmanovic and E. W. Knightly, "TCP-LP: A Distributed
//! Algorithm for Low Priority Data Transfer", IEEE INFOCOM 2003 (cited as *\[KK03\]*), with the
//! details the paper leaves open taken from Linux `net/ipv4/tcp_lp.c` (cited as *Linux*).
//!
//! TCP-LP is Reno (slow start, additive increase, halving on loss) plus an *early congestion
//! indication* from one-way delays, which makes it yield to best-effort traffic before that
//! traffic sees any loss:
//!
//! - **One-way delay** [KK03 §III-A]: from RFC 7323 timestamps: the ACK's `TSval` (the
//!   receiver's 1 ms clock when it acknowledged) minus the send time of the segment that
//!   triggered the ACK, i.e. the OWD plus an unknown constant clock offset (see below for why
//!   this is not `TSval − TSecr`). It is smoothed with an EWMA of gain 1/8 (`sowd`, Linux) and
//!   its minimum and maximum are tracked.
//! - **Early congestion indication** [KK03 §III-A, eq. (1)]:
//!   `sowd > owd_min + δ·(owd_max − owd_min)`, δ = 0.15.
//! - **Reaction** [KK03 §III-B]: on an indication outside an inference phase, halve `cwnd`
//!   and start the inference time-out `itt`; on another indication before `itt` expires,
//!   `cwnd = 1·MSS` (and restart `itt`). While the inference phase lasts `cwnd` does not grow;
//!   afterwards Reno growth resumes.
//!
//! Choices where the sources differ or are silent:
//! - **Which segment's delay.** Linux uses `TSval − TSecr`. By RFC 7323 §4.3 `TSecr` echoes
//!   the *earliest* segment the ACK covers, so with delayed ACKs the difference also contains
//!   the time between sending that segment and the one that triggered the ACK — up to the
//!   delayed-ACK timeout when a pair straddles two flights. TCP-LP's threshold sits only
//!   δ·(max − min), a few ms, above the smoothed delay, so this noise alone made a lone
//!   TCP-LP flow signal congestion continuously (≈ 1 Mbit/s on an idle 10 Mbit/s, 50 ms
//!   path). The sender knows when it sent the newest acknowledged segment (`now −
//!   rtt_sample`, exact), so the OWD sample is `TSval − that send time`, in ms, both taken
//!   relative to the first sample (the clock offset cancels as with `TSecr`). ACKs without an
//!   RTT sample (Karn: they acknowledge a retransmission) give no delay sample.
//! - `itt = inference_factor · srtt` with factor 3 (Linux: three times the RTT measured from
//!   the timestamp echo of the latest ACK; the smoothed RTT here is steadier).
//! - Outlier rejection of the maximum (Linux): a new largest sample first goes into a
//!   *reserve* and becomes `owd_max` only when a later sample confirms it, so `owd_max` is
//!   the second-largest sample since the last reset.
//! - After each indication the range is reset around the current smoothed delay (Linux):
//!   `owd_min = sowd`, `owd_max = 2·sowd`, so the next indication needs `sowd` to grow by
//!   δ·sowd. `2·sowd` needs the absolute OWD, which the timestamps do not give when the two
//!   clocks are offset (the simulator offsets them, as Linux does since 4.10). The absolute
//!   smoothed OWD is therefore estimated offset-free as `sowd − (minimum OWD ever) +
//!   min_rtt/2` (queuing part plus half the base RTT), and the reset is `owd_max = sowd +
//!   that estimate`, which is Linux's `2·sowd` for unoffset clocks on a symmetric path.
//! - No indication while `owd_max == owd_min` (no delay variation seen yet): Linux would
//!   signal on the very first sample, where the threshold collapses to `owd_min`.
//! - `ssthresh` on an early reduction becomes `max(cwnd/2, 2·MSS)` of the window before the
//!   cut, the Reno response [KK03 §III-B: "otherwise, TCP-LP behaves like TCP"]: after the
//!   halving the flow is in congestion avoidance, and after `cwnd = 1·MSS` it slow-starts back
//!   to half its former window, like Reno after a timeout. Linux leaves `ssthresh` untouched.
//! - Delays are sampled from ACKs that acknowledge new data (a duplicate ACK echoes an older
//!   timestamp, RFC 7323 §4.3). Indications during fast recovery update the statistics but do
//!   not cut the window (the loss response has just halved it).
//! - **Delayed-ACK filter** (not in the sources): an ACK sent by the receiver's delayed-ACK
//!   timer carries a `TSval` taken up to the delayed-ACK timeout (40 ms) after the segment
//!   arrived, which looks exactly like forward queuing. Without a filter a lone TCP-LP flow
//!   with a small window keeps signalling itself congested (every single-segment flight is
//!   acknowledged late) and stays at one segment. So when the receiver is seen to delay ACKs
//!   (an EWMA, gain 1/8, of the share of ACKs covering ≥ 2 segments exceeds 1/4), ACKs
//!   covering a single segment give no delay sample; with a receiver that acknowledges every
//!   segment all ACKs are sampled.
//! - Loss and timeout: Reno (RFC 5681 §3.1–3.2): `ssthresh = max(FlightSize/2, 2·MSS)`, `cwnd
//!   = ssthresh` after recovery, `cwnd = 1·MSS` after a timeout. Window growth is skipped on
//!   application-limited ACKs (RFC 7661; Linux `tcp_is_cwnd_limited`).

use cellshare_core::{Nanos, MS};

use super::{AckEvent, CcTrace, CongestionControl, LossEvent};

/// Parameters of [`TcpLp`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpLpConfig {
    /// δ: early congestion is inferred when the smoothed one-way delay exceeds
    /// `owd_min + δ·(owd_max − owd_min)`; a fraction in (0, 1]. Default 0.15 (Kuzmanovic &
    /// Knightly; Linux `tcp_lp`).
    pub delta: f64,
    /// Inference time-out as a multiple of the smoothed RTT (dimensionless). Default 3
    /// (Linux `tcp_lp`: three RTTs).
    pub inference_factor: f64,
}

impl Default for TcpLpConfig {
    fn default() -> Self {
        Self { delta: 0.15, inference_factor: 3.0 }
    }
}

impl TcpLpConfig {
    /// Checks the parameters; the error names the offending field, its value and what is expected.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.delta > 0.0 && self.delta <= 1.0) {
            return Err(format!("tcp_lp.delta = {}: expected a fraction in (0, 1]", self.delta));
        }
        if !(self.inference_factor.is_finite() && self.inference_factor > 0.0) {
            return Err(format!(
                "tcp_lp.inference_factor = {}: expected a finite multiple of the RTT > 0",
                self.inference_factor
            ));
        }
        Ok(())
    }
}

/// Gain of the one-way-delay EWMA (Linux: `sowd = 7/8·sowd + 1/8·owd`).
const SOWD_GAIN: f64 = 1.0 / 8.0;

/// Resolution of a one-way-delay sample in ms: two ticks of the 1 ms timestamp clock.
/// With no queue at all, samples spread over this much (the receiver's `TSval` is its
/// clock floored to the tick, and arrivals are slotted by the link, e.g. the 1 ms LTE
/// TTI), so a smoothed delay within this distance of the minimum is no evidence of queuing
/// (see the module documentation).
pub const OWD_RESOLUTION_MS: f64 = 2.0;

/// Gain of the EWMA of the share of ACKs that acknowledge two or more segments.
const MULTI_ACK_GAIN: f64 = 1.0 / 8.0;
/// Above this share of multi-segment ACKs the receiver is taken to delay its ACKs.
const DELAYED_ACK_SHARE: f64 = 0.25;

/// Trace mode: no inference phase.
pub const MODE_NORMAL: u8 = 0;
/// Trace mode: inference phase after halving the window.
pub const MODE_INFERENCE: u8 = 1;
/// Trace mode: inference phase after cutting the window to one segment.
pub const MODE_MIN: u8 = 2;

/// The TCP-LP congestion controller.
#[derive(Clone, Debug)]
pub struct TcpLp {
    cfg: TcpLpConfig,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged since the last additive increase (RFC 3465 byte counting).
    ca_acked: u64,
    /// `(TSval, send time)` of the first sample: the origin of the relative delay frame.
    owd_origin: Option<(u32, Nanos)>,
    /// Smoothed one-way delay in ms, relative to the first sample (NaN before it).
    sowd: f64,
    /// Minimum one-way delay in ms over the connection's lifetime.
    owd_min: f64,
    /// Maximum one-way delay in ms over the connection's lifetime (outlier-filtered).
    owd_max: f64,
    /// Largest sample not yet confirmed as maximum (NaN when unset).
    owd_max_rsv: f64,
    /// Time of the last early-congestion reduction (start of the inference phase).
    last_drop: Option<Nanos>,
    /// Time of the last window reduction of any kind (early indication, loss, timeout):
    /// only segments sent after it show the effect of that reduction.
    last_cut: Option<Nanos>,
    /// Whether no sample of a segment sent after `last_cut` has arrived yet.
    awaiting_fresh_sample: bool,
    /// Whether early indications are acted upon: once the range has measured the
    /// bottleneck's queue (a loss or timeout, or `δ·(owd_max − owd_min) ≥ min_rtt`).
    armed: bool,
    /// Whether the last reduction set the window to one segment.
    reduced_to_min: bool,
    /// Latest smoothed RTT.
    srtt: Nanos,
    /// Mode at the last ACK (`MODE_*`).
    mode: u8,
    /// Whether the last ACK carried an early congestion indication.
    early: bool,
    /// Connection minimum RTT in ms (0 before known).
    min_rtt_ms: f64,
    /// EWMA of the share of ACKs acknowledging at least two segments, among the
    /// (non-recovery) ACKs sent while at least two segments were in flight.
    multi_ack_share: f64,
}

impl TcpLp {
    /// A TCP-LP controller for segments of `mss` bytes starting with `initial_window_bytes`.
    pub fn new(cfg: &TcpLpConfig, mss: u32, initial_window_bytes: u64) -> TcpLp {
        let mss = mss.max(1) as u64;
        TcpLp {
            cfg: cfg.clone(),
            mss,
            cwnd: initial_window_bytes.max(mss),
            ssthresh: u64::MAX,
            ca_acked: 0,
            owd_origin: None,
            sowd: f64::NAN,
            owd_min: f64::INFINITY,
            owd_max: f64::NEG_INFINITY,
            owd_max_rsv: f64::NAN,
            last_drop: None,
            last_cut: None,
            awaiting_fresh_sample: false,
            armed: false,
            reduced_to_min: false,
            srtt: 0,
            mode: MODE_NORMAL,
            early: false,
            min_rtt_ms: 0.0,
            multi_ack_share: 0.0,
        }
    }

    /// Smoothed one-way delay in ms with the clock offset removed: `sowd − owd_min +
    /// min_rtt/2` (queuing part plus half the base RTT; NaN before the first sample).
    pub fn sowd_ms(&self) -> f64 {
        self.sowd - self.owd_min + self.min_rtt_ms / 2.0
    }

    /// Current early-congestion threshold in ms (relative frame):
    /// `owd_min + max(δ·(owd_max − owd_min), OWD_RESOLUTION_MS)`.
    pub fn threshold_ms(&self) -> f64 {
        self.owd_min + (self.cfg.delta * (self.owd_max - self.owd_min)).max(OWD_RESOLUTION_MS)
    }

    /// One-way delay sample in ms of the newest segment this ACK acknowledges, with that
    /// segment's send time: the ACK's `TSval` (receiver clock when it acknowledged) minus
    /// the send time (sender clock, `now − rtt_sample`), both relative to the first sample so
    /// the clock offset drops out. `None` without an RTT sample (Karn: a retransmission was
    /// acknowledged).
    fn owd_sample(&mut self, ev: &AckEvent) -> Option<(f64, Nanos)> {
        let sent = ev.now.checked_sub(ev.rtt_sample?)?;
        let (ts0, sent0) = *self.owd_origin.get_or_insert((ev.ts_val, sent));
        let recv_ms = ev.ts_val.wrapping_sub(ts0) as i32 as f64;
        let sent_ms = (sent as f64 - sent0 as f64) / MS as f64;
        Some((recv_ms - sent_ms, sent))
    }

    /// Linux `tcp_lp_rtt_sample`: min/max tracking (lifetime, [KK03 §III-A]) and the EWMA.
    /// `fresh`: the first sample of a segment sent after a window reduction, which replaces
    /// a higher smoothed delay instead of being averaged into it.
    fn update_owd(&mut self, owd: f64, fresh: bool) {
        self.owd_min = self.owd_min.min(owd);
        if owd > self.owd_max && std::env::var_os("LP_V2").is_some() { self.owd_max = owd; }
        if owd > self.owd_max {
            if self.owd_max_rsv.is_nan() || owd > self.owd_max_rsv {
                // A new largest sample: keep it in reserve, promote the previous reserve.
                self.owd_max = if self.owd_max_rsv.is_nan() { owd } else { self.owd_max_rsv };
                self.owd_max_rsv = owd;
            } else {
                self.owd_max = owd;
            }
        }
        self.sowd = if self.sowd.is_nan() || (fresh && owd < self.sowd) {
            owd
        } else {
            self.sowd + SOWD_GAIN * (owd - self.sowd)
        };
    }

    /// A window reduction happened at `now`: delay samples of segments sent before it no
    /// longer describe the window in use.
    fn note_cut(&mut self, now: Nanos) {
        self.last_cut = Some(now);
        self.awaiting_fresh_sample = true;
    }

    /// Reno growth: slow start below `ssthresh`, then one segment per window of acknowledged
    /// bytes (RFC 5681 §3.1 with RFC 3465 byte counting; Linux `tcp_reno_cong_avoid`).
    fn reno_cong_avoid(&mut self, acked: u64) {
        let mut acked = acked;
        if self.cwnd < self.ssthresh {
            let used = acked.min(self.ssthresh - self.cwnd);
            self.cwnd += used;
            acked -= used;
            if acked == 0 {
                return;
            }
        }
        self.ca_acked += acked;
        if self.ca_acked >= self.cwnd {
            let segments = self.ca_acked / self.cwnd;
            self.ca_acked -= segments * self.cwnd;
            self.cwnd += segments * self.mss;
        }
    }
}

impl CongestionControl for TcpLp {
    fn name(&self) -> &'static str {
        "tcp_lp"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if ev.is_dup || ev.acked_bytes == 0 {
            return;
        }
        if ev.srtt > 0 {
            self.srtt = ev.srtt;
        } else if let Some(r) = ev.rtt_sample {
            self.srtt = r;
        }
        if ev.min_rtt > 0 && ev.min_rtt < Nanos::MAX / 2 {
            self.min_rtt_ms = ev.min_rtt as f64 / MS as f64;
        }
        // Delayed-ACK filter: learn whether the receiver delays ACKs (a good share of ACKs
        // cover two or more segments); if it does, an ACK of a single segment was most likely
        // sent by the delayed-ACK timer, and its TSval includes the time the receiver held
        // it, not queuing. Such samples are skipped. Only ACKs sent while two or more
        // segments were in flight teach the filter: with one segment in flight any receiver
        // acknowledges one segment, so a small window must not make the filter forget.
        let multi = ev.acked_bytes >= 2 * self.mss;
        if !ev.in_recovery && ev.prior_in_flight >= 2 * self.mss {
            let x = if multi { 1.0 } else { 0.0 };
            self.multi_ack_share += MULTI_ACK_GAIN * (x - self.multi_ack_share);
        }
        let eligible = multi || self.multi_ack_share < DELAYED_ACK_SHARE;
        // A sample is "current" when its segment was sent after the last window reduction.
        let mut current = false;
        let mut dbg_raw = f64::NAN;
        if let Some((owd, sent)) = if eligible { self.owd_sample(ev) } else { None } {
            dbg_raw = owd;
            current = self.last_cut.map_or(true, |t| sent >= t);
            let fresh = current && self.awaiting_fresh_sample;
            if current {
                self.awaiting_fresh_sample = false;
            }
            self.update_owd(owd, fresh);
        }

        // [KK03 §III-B] inference phase: itt after the last early reduction (Linux computes
        // this before testing the threshold).
        let itt = (self.cfg.inference_factor * self.srtt as f64) as Nanos;
        let within_inference = self.last_drop.is_some_and(|t| ev.now.saturating_sub(t) < itt);

        // [KK03 §III-A eq. (1)] early congestion indication, on each current delay sample,
        // with the threshold floored at the sample resolution (`threshold_ms`).
        if self.cfg.delta * (self.owd_max - self.owd_min) >= self.min_rtt_ms && self.min_rtt_ms > 0.0 {
            self.armed = true;
        }
        self.early = self.armed && current && self.owd_max > self.owd_min && self.sowd > self.threshold_ms();

        if std::env::var_os("LP_DEBUG").is_some() {
            eprintln!("LPDBG t={:.3} raw={:.1} acked={} cur={} sowd={:.3} min={:.3} max={:.3} thr={:.3} early={} inf={} cwnd={} ss={} rec={} appl={} flight={} rtt={:?} srtt={:.1} share={:.2}",
                ev.now as f64/1e9, dbg_raw, ev.acked_bytes/self.mss, current, self.sowd, self.owd_min, self.owd_max, self.threshold_ms(), self.early, within_inference, self.cwnd/self.mss, if self.ssthresh==u64::MAX {0} else {self.ssthresh/self.mss}, ev.in_recovery, ev.app_limited, ev.prior_in_flight/self.mss, ev.rtt_sample.map(|r| r as f64/1e6), self.srtt as f64/1e6, self.multi_ack_share);
        }
        if self.early && !ev.in_recovery {
            let prior = self.cwnd;
            if within_inference {
                // [KK03 §III-B]: a second indication within itt: cwnd = 1 segment.
                self.cwnd = self.mss;
                self.reduced_to_min = true;
            } else {
                // [KK03 §III-B]: first indication: halve cwnd and start the inference phase.
                self.cwnd = (self.cwnd / 2).max(self.mss);
                self.reduced_to_min = false;
            }
            if std::env::var_os("LP_V1").is_none() { self.ssthresh = (prior / 2).max(2 * self.mss); }
            let _ = prior;
            self.ca_acked = 0;
            self.last_drop = Some(ev.now);
            self.note_cut(ev.now);
            self.mode = if self.reduced_to_min { MODE_MIN } else { MODE_INFERENCE };
            return;
        }

        self.mode = match (within_inference, self.reduced_to_min) {
            (false, _) => MODE_NORMAL,
            (true, false) => MODE_INFERENCE,
            (true, true) => MODE_MIN,
        };
        // [KK03 §III-B]: no growth during the inference phase; otherwise Reno.
        if within_inference || ev.in_recovery || ev.app_limited {
            return;
        }
        self.reno_cong_avoid(ev.acked_bytes);
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        // Reno (RFC 5681 §3.2 eq. 4; Linux TCP-LP uses `tcp_reno_ssthresh`).
        self.ssthresh = (ev.bytes_in_flight / 2).max(2 * self.mss);
        self.cwnd = self.ssthresh;
        self.ca_acked = 0;
        self.armed = true;
        self.note_cut(ev.now);
    }

    fn on_timeout(&mut self, now: Nanos, bytes_in_flight: u64, _mss: u32) {
        // RFC 5681 §3.1: ssthresh = max(FlightSize/2, 2·MSS), cwnd = 1·MSS.
        self.ssthresh = (bytes_in_flight / 2).max(2 * self.mss);
        self.cwnd = self.mss;
        self.ca_acked = 0;
        self.armed = true;
        self.note_cut(now);
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// `mode`: [`MODE_NORMAL`], [`MODE_INFERENCE`] or [`MODE_MIN`]; `estimate`: smoothed
    /// one-way delay in ms, offset removed ([`TcpLp::sowd_ms`]); `flag`: early congestion
    /// indicated by the last ACK.
    fn trace(&self) -> CcTrace {
        CcTrace { mode: self.mode, estimate: self.sowd_ms(), flag: self.early }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;
    const MSS64: u64 = MSS as u64;

    /// An ACK at `now` (ms) acknowledging one segment, with one-way delay `owd` ms and srtt
    /// 100 ms (so itt = 300 ms).
    fn ack(now_ms: u64, owd: u32) -> AckEvent {
        // The newest acknowledged segment left at now_ms (RTT sample 1 s); the receiver clock
        // runs 10 s ahead of the sender's. TSecr is not used.
        AckEvent {
            now: (now_ms + 1000) * MS,
            acked_bytes: MSS64,
            rtt_sample: Some(1000 * MS),
            ts_ecr: 12345,
            ts_val: (now_ms as u32 + 10_000).wrapping_add(owd),
            srtt: 100 * MS,
            mss: MSS,
            ..Default::default()
        }
    }

    /// Drives a fresh controller (cwnd 20 segments) to its first early indication at t = 3 ms:
    /// samples 0, 640, 80 ms. The reserve holds 640 back, so `owd_max` is 80 at the third
    /// sample, where sowd = 80 > 0 + 0.15·80.
    fn after_first_indication(cfg: &TcpLpConfig) -> TcpLp {
        let mut lp = TcpLp::new(cfg, MSS, 20 * MSS64);
        lp.on_ack(&ack(1, 0));
        assert!(!lp.early, "no range yet");
        lp.on_ack(&ack(2, 640));
        assert_eq!(lp.owd_max, 0.0, "640 only in reserve");
        assert!(!lp.early, "no range yet");
        // Slow start ran on the first two ACKs.
        assert_eq!(lp.cwnd, 22 * MSS64);
        lp.on_ack(&ack(3, 80));
        assert_eq!(lp.sowd_ms(), 80.0);
        assert!(lp.early);
        lp
    }

    #[test]
    fn default_config_is_valid_and_bad_fields_are_named() {
        TcpLpConfig::default().validate().unwrap();
        let err = TcpLpConfig { delta: 1.5, ..Default::default() }.validate().unwrap_err();
        assert!(err.contains("tcp_lp.delta") && err.contains("1.5"), "{err}");
        let err = TcpLpConfig { inference_factor: 0.0, ..Default::default() }.validate().unwrap_err();
        assert!(err.contains("tcp_lp.inference_factor"), "{err}");
    }

    #[test]
    fn first_indication_halves_and_enters_inference() {
        let lp = after_first_indication(&TcpLpConfig::default());
        assert_eq!(lp.cwnd, 11 * MSS64);
        assert_eq!(lp.ssthresh, 11 * MSS64);
        assert_eq!(lp.trace().mode, MODE_INFERENCE);
        assert!(lp.trace().flag);
        // The range is re-centred: min = sowd, max = 2·sowd.
        assert_eq!((lp.owd_min, lp.owd_max), (80.0, 160.0));
    }

    #[test]
    fn threshold_is_exactly_delta_of_the_range() {
        // After the reset min = 80, max = 160: threshold = 80 + 0.15·80 = 92.
        // A 176 ms sample moves sowd to 80 + 96/8 = 92 = threshold (and 176 only enters the
        // reserve, so max stays 160): not an indication.
        let mut lp = after_first_indication(&TcpLpConfig::default());
        lp.on_ack(&ack(10, 176));
        assert_eq!(lp.sowd_ms(), 92.0);
        assert_eq!(lp.threshold_ms(), 92.0);
        assert!(!lp.early);
        assert_eq!(lp.cwnd, 11 * MSS64);
        // 177 ms instead: sowd = 92.125 > 92: indication.
        let mut lp = after_first_indication(&TcpLpConfig::default());
        lp.on_ack(&ack(10, 177));
        assert!(lp.early);
        // With δ = 0.1 the same 176 ms sample is above the threshold 88.
        let mut lp = after_first_indication(&TcpLpConfig { delta: 0.1, ..Default::default() });
        lp.on_ack(&ack(10, 176));
        assert!(lp.early);
    }

    #[test]
    fn second_indication_within_inference_cuts_to_one_segment() {
        let mut lp = after_first_indication(&TcpLpConfig::default());
        // 100 ms after the first indication (itt = 300 ms).
        lp.on_ack(&ack(103, 177));
        assert!(lp.early);
        assert_eq!(lp.cwnd, MSS64);
        assert_eq!(lp.ssthresh, (11 * MSS64 / 2).max(2 * MSS64));
        assert_eq!(lp.trace().mode, MODE_MIN);
    }

    #[test]
    fn indication_after_inference_only_halves() {
        let mut lp = after_first_indication(&TcpLpConfig::default());
        // Quiet until the inference phase is over, then a rise: halving again, not 1 segment.
        lp.on_ack(&ack(400, 80));
        assert_eq!(lp.trace().mode, MODE_NORMAL);
        let cwnd = lp.cwnd;
        lp.on_ack(&ack(401, 177));
        assert!(lp.early);
        assert_eq!(lp.cwnd, cwnd / 2);
        assert_eq!(lp.trace().mode, MODE_INFERENCE);
    }

    #[test]
    fn no_growth_during_inference_then_reno_growth() {
        let mut lp = after_first_indication(&TcpLpConfig::default());
        let cwnd = lp.cwnd;
        // Steady delays (sowd stays at 80 < 92) during the 300 ms inference phase.
        for t in (10..300).step_by(10) {
            lp.on_ack(&ack(3 + t, 80));
            assert!(!lp.early);
            assert_eq!(lp.cwnd, cwnd, "t = {t}");
            assert_eq!(lp.trace().mode, MODE_INFERENCE);
        }
        // After itt: congestion avoidance (cwnd = ssthresh): +1 segment per window acked.
        for t in 303..314 {
            lp.on_ack(&ack(t, 80));
            assert_eq!(lp.trace().mode, MODE_NORMAL);
        }
        assert_eq!(lp.cwnd, cwnd + MSS64);
    }

    #[test]
    fn owd_min_max_outlier_reserve() {
        let mut lp = TcpLp::new(&TcpLpConfig::default(), MSS, 20 * MSS64);
        lp.update_owd(50.0);
        lp.update_owd(40.0);
        assert_eq!((lp.owd_min, lp.owd_max), (40.0, 50.0));
        assert_eq!(lp.sowd, 50.0 - 10.0 / 8.0);
        assert_eq!(lp.sowd_ms(), 50.0 - 10.0 / 8.0 - 40.0);
        // A single spike is held in reserve; a second confirms the first spike as the maximum.
        lp.update_owd(300.0);
        assert_eq!(lp.owd_max, 50.0);
        lp.update_owd(310.0);
        assert_eq!(lp.owd_max, 300.0);
        // A sample between max and reserve becomes the maximum directly.
        lp.update_owd(305.0);
        assert_eq!(lp.owd_max, 305.0);
    }

    #[test]
    fn decisions_do_not_depend_on_the_clock_offset() {
        let run = |offset: u32| {
            let mut lp = TcpLp::new(&TcpLpConfig::default(), MSS, 20 * MSS64);
            let owds = [20, 25, 22, 60, 90, 120, 120, 40, 30, 30, 150, 200, 30, 30, 30];
            let mut out = Vec::new();
            for (i, &owd) in owds.iter().cycle().take(300).enumerate() {
                let mut a = ack(i as u64 * 7, owd);
                a.ts_val = a.ts_val.wrapping_add(offset);
                a.min_rtt = 40 * MS;
                lp.on_ack(&a);
                out.push((lp.cwnd, lp.trace().mode, lp.early, lp.sowd_ms()));
            }
            out
        };
        let base = run(0);
        assert!(base.iter().any(|r| r.1 == MODE_MIN) && base.iter().any(|r| r.1 == MODE_NORMAL));
        assert_eq!(run(0x9000_0000), base);
        assert_eq!(run(u32::MAX - 1000), base); // the raw difference wraps during the run
    }

    #[test]
    fn delayed_ack_timer_samples_and_karn_acks_are_not_delay_samples() {
        let mut lp = TcpLp::new(&TcpLpConfig::default(), MSS, 20 * MSS64);
        // A receiver that acknowledges every second segment: two-segment ACKs at 30 ms.
        for t in 0..20 {
            lp.on_ack(&AckEvent { acked_bytes: 2 * MSS64, ..ack(t, 30) });
        }
        assert_eq!(lp.sowd, 0.0);
        // A lone segment acknowledged by the 40 ms delayed-ACK timer: TSval is 40 ms late.
        // Not a sample: sowd and the range are unchanged, no indication.
        let cwnd = lp.cwnd;
        lp.on_ack(&ack(20, 70));
        assert_eq!((lp.sowd, lp.owd_max), (0.0, 0.0));
        assert!(!lp.early);
        // An ACK covering a retransmission has no RTT sample, hence no delay sample either.
        lp.on_ack(&AckEvent { acked_bytes: 2 * MSS64, rtt_sample: None, ..ack(21, 500) });
        assert_eq!(lp.sowd, 0.0);
        assert!(lp.cwnd > cwnd, "Reno growth continued");
        // Two-segment ACKs still are: the second 70 ms sample confirms the maximum (40 ms
        // above the minimum) and sowd = 9.375 ms > 0.15·40 ms: early congestion.
        lp.on_ack(&AckEvent { acked_bytes: 2 * MSS64, ..ack(22, 70) });
        assert!(!lp.early);
        lp.on_ack(&AckEvent { acked_bytes: 2 * MSS64, ..ack(23, 70) });
        assert!(lp.early);
        assert_eq!(lp.owd_min, 9.375, "range re-centred on sowd");
        assert_eq!(lp.trace().mode, MODE_INFERENCE);
    }

    #[test]
    fn reno_on_loss_and_timeout_and_recovery_freeze() {
        let mut lp = TcpLp::new(&TcpLpConfig::default(), MSS, 20 * MSS64);
        lp.on_congestion_event(&LossEvent { now: 0, bytes_in_flight: 20 * MSS64, mss: MSS });
        assert_eq!((lp.cwnd, lp.ssthresh), (10 * MSS64, 10 * MSS64));
        let mut a = ack(5, 30);
        a.in_recovery = true;
        for _ in 0..30 {
            lp.on_ack(&a);
        }
        assert_eq!(lp.cwnd, 10 * MSS64);
        lp.on_timeout(0, 10 * MSS64, MSS);
        assert_eq!((lp.cwnd, lp.ssthresh), (MSS64, 5 * MSS64));
    }
}
