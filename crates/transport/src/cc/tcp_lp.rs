//! TCP-LP, a low-priority TCP: A. Kuzmanovic and E. W. Knightly, "TCP-LP: A Distributed
//! Algorithm for Low Priority Data Transfer", IEEE INFOCOM 2003 \[tcp-lp\] (cited as *\[KK03\]*),
//! with the details the paper leaves open taken from Linux `net/ipv4/tcp_lp.c` (cited as *Linux*).
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
//! - **Range over the connection's lifetime** [KK03 §III-A: "d_min and d_max … experienced
//!   throughout the connection's lifetime", so d_max − d_min estimates the bottleneck's
//!   maximum queuing delay], with Linux's outlier rejection of the maximum: a new largest
//!   sample first goes into a *reserve* and becomes `owd_max` only when a later sample
//!   confirms it, so `owd_max` is the second-largest sample. Linux instead re-centres the
//!   range after every indication (`owd_min = sowd`, `owd_max = 2·sowd`, flagged there as
//!   provisional, to keep the lagging `sowd` from re-triggering during the inference phase). That
//!   reset locked a lone flow at one segment: the next sample below `sowd` (the queue drains
//!   once the window is cut) pulled `owd_min` straight back down while `sowd`, an EWMA that
//!   moves 1/8 per sample and gets about one sample per RTT at a small window, still carried
//!   the old queue, so every sample re-triggered (≈ 0.3 Mbit/s on an idle 30 Mbit/s cell);
//!   and when no lower sample came, a persistent queue of cross traffic looked like an empty
//!   one. The lag is handled by the next rule instead.
//! - **One reaction per window** (the paper's "with persistent congestion, it takes two
//!   round-trip times for a TCP-LP flow to decrease its window to 1" [KK03 §III-B]; Reno's
//!   one reduction per window of data, RFC 6582): only a sample of a segment sent after the
//!   last window reduction (early, loss or timeout; the send time is `now − rtt_sample`) can
//!   indicate congestion, since the segments sent before it show the queue the flow has
//!   already reacted to. The first such sample replaces a higher `sowd` rather than being
//!   averaged into it, so the second indication — the paper's evidence that cross traffic
//!   persists although the window was halved — is about the queue *after* the halving and
//!   not the EWMA's memory of the flow's own queue before it.
//! - **Sample resolution** (in the spirit of Linux's finer `LP_RESOL` time base and ×8
//!   fixed-point `sowd`, which keep a one-tick step from looking like a queue): the
//!   threshold is `owd_min + max(δ·(owd_max − owd_min), OWD_RESOLUTION_MS)` with a 2 ms
//!   floor. `TSval` counts whole 1 ms ticks and the cell delivers in 1 ms TTIs, so with no
//!   queue at all the samples spread over up to 2 ms; with a range that small δ·range is
//!   0.15–0.3 ms and pure quantization noise crossed it (a 0/1/2 ms jitter moves `sowd` by
//!   1/8 ms per sample). No smoothed delay within 2 ms of the minimum can be told from that
//!   noise, so none is an indication.
//! - **Indications need a measured range.** Until the flow has seen the bottleneck's queue,
//!   d_max − d_min is not the "maximum queuing delay" eq. (1) scales δ by: at start-up it is
//!   just the flow's own slow-start burstiness, and reacting to it cut slow start at a few
//!   ms of queue and left δ·range at 2–4 ms for good — an AIMD flow that halves at a queue
//!   that small leaves the link idle after every cut (48 % of CUBIC alone on the idle cell).
//!   So early indications are acted upon only once the range has been measured: after the
//!   first loss or timeout (the queue reached the buffer, so d_max is its delay), or once
//!   δ·(owd_max − owd_min) reaches the base RTT (`min_rtt`; the threshold then allows a
//!   bandwidth-delay product of queue, enough for Reno's halving to keep the link busy, so
//!   there is no need to fill a larger buffer). Until then — the first slow start — TCP-LP
//!   is Reno, as the paper describes it in the absence of early indications; delay samples
//!   are still collected.
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
//!   segment all ACKs are sampled. The share is learnt only from ACKs that arrive while two
//!   or more segments were in flight: with one segment in flight every receiver acknowledges
//!   one segment, and counting those ACKs made the filter forget the delaying receiver at
//!   `cwnd = 1`, let the 40 ms timer samples through and kept the flow at one segment.
//! - Loss and timeout: Reno (RFC 5681 §3.1–3.2): `ssthresh = max(FlightSize/2, 2·MSS)`, `cwnd
//!   = ssthresh` after recovery, `cwnd = 1·MSS` after a timeout. Window growth is skipped on
//!   application-limited ACKs (RFC 7661; Linux `tcp_is_cwnd_limited`).

use cellshare_core::{Nanos, MS};

use super::{
    idle_restart, reno_undo, AckEvent, CcContext, CcParams, CcTrace, CongestionControl,
    IdleRestart, LossEvent, UndoEvent,
};

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
        Self {
            delta: 0.15,
            inference_factor: 3.0,
        }
    }
}

impl CcParams for TcpLpConfig {
    /// Checks the parameters; the error names the offending field, its value and what is expected.
    fn validate(&self) -> Result<(), String> {
        if !(self.delta > 0.0 && self.delta <= 1.0) {
            return Err(format!(
                "tcp_lp.delta = {}: expected a fraction in (0, 1]",
                self.delta
            ));
        }
        if !(self.inference_factor.is_finite() && self.inference_factor > 0.0) {
            return Err(format!(
                "tcp_lp.inference_factor = {}: expected a finite multiple of the RTT > 0",
                self.inference_factor
            ));
        }
        Ok(())
    }

    fn build(&self, ctx: &CcContext) -> Box<dyn CongestionControl> {
        Box::new(TcpLp::new(self, ctx.mss, ctx.initial_window))
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
        if owd > self.owd_max {
            if self.owd_max_rsv.is_nan() || owd > self.owd_max_rsv {
                // A new largest sample: keep it in reserve, promote the previous reserve.
                self.owd_max = if self.owd_max_rsv.is_nan() {
                    owd
                } else {
                    self.owd_max_rsv
                };
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
    /// bytes ([`super::reno::reno_cong_avoid`]).
    fn reno_cong_avoid(&mut self, acked: u64) {
        super::reno::reno_cong_avoid(
            &mut self.cwnd,
            &mut self.ca_acked,
            self.ssthresh,
            self.mss,
            acked,
        );
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
        if let Some((owd, sent)) = if eligible { self.owd_sample(ev) } else { None } {
            current = !matches!(self.last_cut, Some(t) if sent < t);
            let fresh = current && self.awaiting_fresh_sample;
            if current {
                self.awaiting_fresh_sample = false;
            }
            self.update_owd(owd, fresh);
        }

        // [KK03 §III-B] inference phase: itt after the last early reduction (Linux computes
        // this before testing the threshold).
        let itt = (self.cfg.inference_factor * self.srtt as f64) as Nanos;
        let within_inference = self
            .last_drop
            .is_some_and(|t| ev.now.saturating_sub(t) < itt);

        // Indications are acted upon once the range has measured the bottleneck's queue: a
        // loss or timeout (`armed` there), or a threshold of one base RTT.
        if !self.armed
            && self.min_rtt_ms > 0.0
            && self.cfg.delta * (self.owd_max - self.owd_min) >= self.min_rtt_ms
        {
            self.armed = true;
        }
        // [KK03 §III-A eq. (1)] early congestion indication, on each current delay sample,
        // with the threshold floored at the sample resolution (`threshold_ms`).
        self.early =
            self.armed && current && self.owd_max > self.owd_min && self.sowd > self.threshold_ms();

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
            self.ssthresh = (prior / 2).max(2 * self.mss);
            self.ca_acked = 0;
            self.last_drop = Some(ev.now);
            self.note_cut(ev.now);
            self.mode = if self.reduced_to_min {
                MODE_MIN
            } else {
                MODE_INFERENCE
            };
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

    fn undo_cwnd(&mut self, ev: &UndoEvent) {
        // Linux `tcp_lp` uses `tcp_reno_undo_cwnd`.
        reno_undo(&mut self.cwnd, &mut self.ssthresh, ev);
        self.ca_acked = 0;
    }

    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        // Linux `tcp_cwnd_restart` (TCP-LP has no `cwnd_event`).
        (self.cwnd, self.ssthresh) = idle_restart(self.cwnd, self.ssthresh, ev);
        self.ca_acked = 0;
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
        CcTrace {
            mode: self.mode,
            estimate: self.sowd_ms(),
            flag: self.early,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;
    const MSS64: u64 = MSS as u64;
    /// RTT of every sample in ms (also the smoothed RTT, so itt = 300 ms).
    const RTT_MS: u64 = 100;

    /// An ACK at `now_ms` (≥ 100) acknowledging one segment sent `RTT_MS` earlier, with
    /// one-way delay `owd` ms, while 20 segments were in flight. The receiver clock runs
    /// 10 s ahead of the sender's; TSecr is not used.
    fn ack(now_ms: u64, owd: u32) -> AckEvent {
        AckEvent {
            now: now_ms * MS,
            acked_bytes: MSS64,
            rtt_sample: Some(RTT_MS * MS),
            ts_ecr: 12345,
            ts_val: ((now_ms - RTT_MS) as u32 + 10_000).wrapping_add(owd),
            srtt: RTT_MS * MS,
            prior_in_flight: 20 * MSS64,
            mss: MSS,
            ..Default::default()
        }
    }

    /// A controller (cwnd 20 segments) whose range counts as measured.
    fn armed(cfg: &TcpLpConfig) -> TcpLp {
        let mut lp = TcpLp::new(cfg, MSS, 20 * MSS64);
        lp.armed = true;
        lp
    }

    /// Drives an armed controller to its first early indication at t = 103 ms: samples 0,
    /// 640, 80 ms. The reserve holds 640 back, so `owd_max` is 80 at the third sample, where
    /// sowd = 80 > 0 + 0.15·80.
    fn after_first_indication(cfg: &TcpLpConfig) -> TcpLp {
        let mut lp = armed(cfg);
        lp.on_ack(&ack(101, 0));
        assert!(!lp.early, "no range yet");
        lp.on_ack(&ack(102, 640));
        assert_eq!(lp.owd_max, 0.0, "640 only in reserve");
        assert!(!lp.early, "no range yet");
        // Slow start ran on the first two ACKs.
        assert_eq!(lp.cwnd, 22 * MSS64);
        lp.on_ack(&ack(103, 80));
        assert_eq!(lp.sowd, 80.0);
        assert!(lp.early);
        lp
    }

    #[test]
    fn default_config_is_valid_and_bad_fields_are_named() {
        TcpLpConfig::default().validate().unwrap();
        let err = TcpLpConfig {
            delta: 1.5,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(err.contains("tcp_lp.delta") && err.contains("1.5"), "{err}");
        let err = TcpLpConfig {
            inference_factor: 0.0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(err.contains("tcp_lp.inference_factor"), "{err}");
    }

    #[test]
    fn first_indication_halves_and_enters_inference() {
        let lp = after_first_indication(&TcpLpConfig::default());
        assert_eq!(lp.cwnd, 11 * MSS64);
        assert_eq!(lp.ssthresh, 11 * MSS64);
        assert_eq!(lp.trace().mode, MODE_INFERENCE);
        assert!(lp.trace().flag);
        // The range is the connection's (not re-centred): min 0, max 80, 640 in reserve.
        assert_eq!((lp.owd_min, lp.owd_max, lp.owd_max_rsv), (0.0, 80.0, 640.0));
    }

    #[test]
    fn threshold_is_exactly_delta_of_the_range() {
        // Samples 0, 80, 80: min 0, max 80 (the second 80 confirms the first), sowd = 18.75.
        let run = |delta: f64| {
            let mut lp = armed(&TcpLpConfig {
                delta,
                ..Default::default()
            });
            for (t, owd) in [(101, 0), (102, 80), (103, 80)] {
                lp.on_ack(&ack(t, owd));
            }
            assert_eq!((lp.owd_min, lp.owd_max, lp.sowd), (0.0, 80.0, 18.75));
            lp
        };
        // δ = 15/64: threshold 18.75 = sowd: not an indication.
        let lp = run(15.0 / 64.0);
        assert_eq!(lp.threshold_ms(), 18.75);
        assert!(!lp.early);
        assert_eq!(lp.cwnd, 23 * MSS64);
        // Just below: threshold 18.4 < sowd: indication.
        assert!(run(0.23).early);
        assert!(run(0.15).early);
    }

    #[test]
    fn threshold_never_falls_within_the_sample_resolution() {
        // Range 8 ms: δ·range = 1.2 ms, but the threshold is min + 2 ms.
        let mut lp = armed(&TcpLpConfig::default());
        lp.on_ack(&ack(101, 0));
        lp.on_ack(&ack(102, 8));
        lp.on_ack(&ack(103, 8));
        assert_eq!(lp.threshold_ms(), OWD_RESOLUTION_MS);
        assert_eq!(lp.sowd, 1.875);
        assert!(!lp.early, "1.875 > 1.2 but within the resolution");
        lp.on_ack(&ack(104, 8));
        assert!(lp.early, "sowd = 2.64 > 2");
    }

    #[test]
    fn quantization_jitter_without_a_queue_is_no_congestion() {
        // One ACK per ms for 20 s with a constant true OWD, as the cell delivers it: the
        // sample is 1 ms ± 1 tick (TSval's 1 ms tick and the 1 ms TTI), a deterministic
        // pseudo-random walk over {0, 1, 2}. Nothing above the minimum is queuing.
        let mut lp = armed(&TcpLpConfig::default());
        let mut x: u32 = 12345;
        let mut above_delta_range = false;
        for t in 0..20_000u64 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let owd = (x >> 16) % 3;
            let mut a = ack(100 + t, owd);
            a.min_rtt = 26 * MS;
            lp.on_ack(&a);
            above_delta_range |= lp.sowd > lp.owd_min + 0.15 * (lp.owd_max - lp.owd_min);
            assert!(
                !lp.early,
                "t = {t} ms: sowd {} min {} max {}",
                lp.sowd, lp.owd_min, lp.owd_max
            );
            assert_eq!(lp.trace().mode, MODE_NORMAL);
        }
        assert_eq!(lp.owd_max - lp.owd_min, 2.0);
        // The unfloored threshold min + δ·(max − min) = 0.3 ms was crossed by the noise.
        assert!(above_delta_range);
        // Reno growth throughout: slow start, then one segment per window.
        assert!(lp.cwnd > 150 * MSS64, "cwnd {}", lp.cwnd / MSS64);
    }

    #[test]
    fn second_indication_within_inference_cuts_to_one_segment() {
        let mut lp = after_first_indication(&TcpLpConfig::default());
        // 147 ms after the first indication (itt = 300 ms), a segment sent after it (at
        // 150 ms) still sees a high delay: sowd = 80 + (177 − 80)/8 > 12.
        lp.on_ack(&ack(250, 177));
        assert!(lp.early);
        assert_eq!(lp.cwnd, MSS64);
        assert_eq!(lp.ssthresh, (11 * MSS64 / 2).max(2 * MSS64));
        assert_eq!(lp.trace().mode, MODE_MIN);
    }

    #[test]
    fn samples_sent_before_the_cut_do_not_count_again() {
        let mut lp = after_first_indication(&TcpLpConfig::default());
        // Segments sent before the halving (at 103 ms) still arrive with the queue they were
        // part of: statistics only, no second reduction.
        for t in 104..203 {
            lp.on_ack(&ack(t, 300));
            assert!(!lp.early, "t = {t}");
            assert_eq!(lp.cwnd, 11 * MSS64);
        }
        assert!(lp.sowd > 250.0);
        // The first segment sent after the cut sees the drained queue: it replaces the
        // smoothed delay instead of being averaged into the old queue, so no indication.
        lp.on_ack(&ack(204, 1));
        assert_eq!(lp.sowd, 1.0);
        assert!(!lp.early);
        assert_eq!(lp.cwnd, 11 * MSS64);
        // Later samples are averaged again.
        lp.on_ack(&ack(205, 9));
        assert_eq!(lp.sowd, 2.0);
    }

    #[test]
    fn indication_after_inference_only_halves() {
        let mut lp = after_first_indication(&TcpLpConfig::default());
        // Quiet until the inference phase is over, then a rise: halving again, not 1 segment.
        lp.on_ack(&ack(450, 0));
        assert_eq!(lp.sowd, 0.0);
        assert_eq!(lp.trace().mode, MODE_NORMAL);
        let cwnd = lp.cwnd;
        lp.on_ack(&ack(451, 80));
        assert!(!lp.early, "sowd = 10 < 12");
        lp.on_ack(&ack(452, 80));
        assert!(lp.early, "sowd = 18.75 > 12");
        assert_eq!(lp.cwnd, cwnd / 2);
        assert_eq!(lp.trace().mode, MODE_INFERENCE);
    }

    #[test]
    fn no_growth_during_inference_then_reno_growth() {
        let mut lp = after_first_indication(&TcpLpConfig::default());
        let cwnd = lp.cwnd;
        // Steady low delays during the 300 ms inference phase.
        for t in (110..403).step_by(10) {
            lp.on_ack(&ack(t, 5));
            assert!(!lp.early);
            assert_eq!(lp.cwnd, cwnd, "t = {t}");
            assert_eq!(lp.trace().mode, MODE_INFERENCE);
        }
        // After itt: congestion avoidance (cwnd = ssthresh): +1 segment per window acked.
        for t in 403..414 {
            lp.on_ack(&ack(t, 5));
            assert_eq!(lp.trace().mode, MODE_NORMAL);
        }
        assert_eq!(lp.cwnd, cwnd + MSS64);
    }

    #[test]
    fn reduced_to_one_segment_grows_again_without_further_indications() {
        // A lone flow's own queue: 30 ms above the minimum (range 0..40) until the window is
        // cut; from then on one segment per RTT, each seeing the drained queue (0–1 ms).
        // Re-centring the range on sowd after each cut (Linux) re-triggered here on every
        // sample, as the lagging sowd stayed above the minimum that the next sample restored.
        let mut lp = armed(&TcpLpConfig::default());
        lp.on_ack(&ack(100, 0));
        lp.on_ack(&ack(101, 40));
        let mut t = 102;
        while !lp.early {
            lp.on_ack(&ack(t, 30));
            t += 1;
        }
        assert_eq!(lp.trace().mode, MODE_INFERENCE);
        let cut = t - 1;
        // Within the RTT after the halving, another high sample of a segment sent after it
        // (cross traffic would look the same): cwnd = 1.
        lp.on_ack(&ack(cut + RTT_MS + 1, 30));
        assert_eq!((lp.cwnd, lp.trace().mode), (MSS64, MODE_MIN));
        let min_at = cut + RTT_MS + 1;
        let mut grew_at = None;
        for k in 1..40u64 {
            let now = min_at + k * RTT_MS;
            lp.on_ack(&ack(now, (k % 2) as u32));
            assert!(!lp.early, "re-triggered at {now} ms: sowd {}", lp.sowd);
            if lp.cwnd > MSS64 && grew_at.is_none() {
                grew_at = Some(now);
            }
        }
        // It left the inference phase after itt (300 ms) and grew back: slow start to
        // ssthresh, then additive increase.
        let grew_at = grew_at.expect("cwnd grew again");
        assert!(
            grew_at >= min_at + 300 && grew_at <= min_at + 400,
            "{grew_at}"
        );
        assert_eq!(lp.trace().mode, MODE_NORMAL);
        assert!(
            lp.cwnd > lp.ssthresh,
            "in congestion avoidance: {}",
            lp.cwnd / MSS64
        );
    }

    #[test]
    fn indications_wait_for_a_measured_range() {
        // Fresh connection, base RTT 20 ms: a 10 ms queue in slow start is not acted upon
        // (δ·10 = 1.5 ms would be no estimate of the bottleneck's queue yet).
        let mut lp = TcpLp::new(&TcpLpConfig::default(), MSS, 20 * MSS64);
        let with_min_rtt = |mut a: AckEvent| {
            a.min_rtt = 20 * MS;
            a
        };
        lp.on_ack(&with_min_rtt(ack(100, 0)));
        for t in 101..200 {
            lp.on_ack(&with_min_rtt(ack(t, 10)));
            assert!(!lp.early);
        }
        assert!(lp.sowd > lp.threshold_ms());
        assert_eq!(lp.cwnd, 120 * MSS64, "slow start throughout");
        // A loss arms the indications (the queue reached the buffer): Reno's halving, then
        // the first sample of a segment sent after it that is still above the threshold.
        lp.on_congestion_event(&LossEvent {
            now: 200 * MS,
            bytes_in_flight: 100 * MSS64,
            mss: MSS,
        });
        lp.on_recovery_end(250 * MS);
        lp.on_ack(&with_min_rtt(ack(299, 10)));
        assert!(!lp.early, "sent before the loss");
        lp.on_ack(&with_min_rtt(ack(300, 10)));
        assert!(lp.early);
        assert_eq!(lp.cwnd, 25 * MSS64);

        // Without a loss, a range whose δ-share reaches the base RTT arms them too:
        // δ·(140 − 0) = 21 ≥ 20 ms.
        let mut lp = TcpLp::new(&TcpLpConfig::default(), MSS, 20 * MSS64);
        lp.on_ack(&with_min_rtt(ack(100, 0)));
        lp.on_ack(&with_min_rtt(ack(101, 130)));
        lp.on_ack(&with_min_rtt(ack(102, 130)));
        assert!(!lp.armed, "δ·130 = 19.5 < 20");
        lp.on_ack(&with_min_rtt(ack(103, 140)));
        lp.on_ack(&with_min_rtt(ack(104, 140)));
        assert!(lp.armed && lp.early);
    }

    #[test]
    fn owd_min_max_outlier_reserve() {
        let mut lp = TcpLp::new(&TcpLpConfig::default(), MSS, 20 * MSS64);
        lp.update_owd(50.0, false);
        lp.update_owd(40.0, false);
        assert_eq!((lp.owd_min, lp.owd_max), (40.0, 50.0));
        assert_eq!(lp.sowd, 50.0 - 10.0 / 8.0);
        assert_eq!(lp.sowd_ms(), 50.0 - 10.0 / 8.0 - 40.0);
        // A single spike is held in reserve; a second confirms the first spike as the maximum.
        lp.update_owd(300.0, false);
        assert_eq!(lp.owd_max, 50.0);
        lp.update_owd(310.0, false);
        assert_eq!(lp.owd_max, 300.0);
        // A sample between max and reserve becomes the maximum directly.
        lp.update_owd(305.0, false);
        assert_eq!(lp.owd_max, 305.0);
    }

    #[test]
    fn decisions_do_not_depend_on_the_clock_offset() {
        let run = |offset: u32| {
            let mut lp = TcpLp::new(&TcpLpConfig::default(), MSS, 20 * MSS64);
            let owds = [
                20, 25, 22, 60, 90, 120, 120, 40, 30, 30, 150, 200, 30, 30, 30,
            ];
            let mut out = Vec::new();
            for (i, &owd) in owds.iter().cycle().take(300).enumerate() {
                let mut a = ack(100 + i as u64 * 7, owd);
                a.ts_val = a.ts_val.wrapping_add(offset);
                a.min_rtt = 20 * MS;
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
        let mut lp = armed(&TcpLpConfig::default());
        // A receiver that acknowledges every second segment: two-segment ACKs at 30 ms.
        for t in 100..120 {
            lp.on_ack(&AckEvent {
                acked_bytes: 2 * MSS64,
                ..ack(t, 30)
            });
        }
        assert_eq!(lp.sowd, 0.0);
        // A lone segment acknowledged by the 40 ms delayed-ACK timer: TSval is 40 ms late.
        // Not a sample: sowd and the range are unchanged, no indication.
        let cwnd = lp.cwnd;
        lp.on_ack(&ack(120, 70));
        assert_eq!((lp.sowd, lp.owd_max), (0.0, 0.0));
        assert!(!lp.early);
        // An ACK covering a retransmission has no RTT sample, hence no delay sample either.
        lp.on_ack(&AckEvent {
            acked_bytes: 2 * MSS64,
            rtt_sample: None,
            ..ack(121, 500)
        });
        assert_eq!(lp.sowd, 0.0);
        assert!(lp.cwnd > cwnd, "Reno growth continued");
        // Two-segment ACKs still are: the second 70 ms sample confirms the maximum (40 ms
        // above the minimum) and sowd = 9.375 ms > 0.15·40 ms: early congestion.
        lp.on_ack(&AckEvent {
            acked_bytes: 2 * MSS64,
            ..ack(122, 70)
        });
        assert!(!lp.early);
        lp.on_ack(&AckEvent {
            acked_bytes: 2 * MSS64,
            ..ack(123, 70)
        });
        assert!(lp.early);
        assert_eq!((lp.owd_min, lp.owd_max, lp.sowd), (0.0, 40.0, 9.375));
        assert_eq!(lp.trace().mode, MODE_INFERENCE);
    }

    #[test]
    fn delayed_ack_filter_holds_at_one_segment_in_flight() {
        let mut lp = armed(&TcpLpConfig::default());
        for t in 100..120 {
            lp.on_ack(&AckEvent {
                acked_bytes: 2 * MSS64,
                ..ack(t, 0)
            });
        }
        let share = lp.multi_ack_share;
        assert!(share > DELAYED_ACK_SHARE);
        // cwnd = 1: every flight is one segment, acknowledged by the receiver's timer 40 ms
        // after it arrived. These ACKs say nothing about the receiver's policy: the filter
        // keeps skipping them however many there are.
        for k in 0..100 {
            let a = AckEvent {
                prior_in_flight: MSS64,
                ..ack(200 + k * 70, 40)
            };
            lp.on_ack(&a);
            assert!(!lp.early);
        }
        assert_eq!(lp.multi_ack_share, share);
        assert_eq!((lp.sowd, lp.owd_max), (0.0, 0.0));
        // A receiver that acknowledges every segment is learnt from windows of two or more.
        let mut lp = armed(&TcpLpConfig::default());
        for t in 100..140 {
            lp.on_ack(&ack(t, 1));
        }
        assert!(lp.multi_ack_share < DELAYED_ACK_SHARE);
        assert_eq!(lp.sowd, 0.0);
    }

    #[test]
    fn reno_on_loss_and_timeout_and_recovery_freeze() {
        let mut lp = TcpLp::new(&TcpLpConfig::default(), MSS, 20 * MSS64);
        lp.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: 20 * MSS64,
            mss: MSS,
        });
        assert_eq!((lp.cwnd, lp.ssthresh), (10 * MSS64, 10 * MSS64));
        assert!(lp.armed, "a loss measured the buffer");
        let mut a = ack(105, 30);
        a.in_recovery = true;
        for _ in 0..30 {
            lp.on_ack(&a);
        }
        assert_eq!(lp.cwnd, 10 * MSS64);
        lp.on_timeout(0, 10 * MSS64, MSS);
        assert_eq!((lp.cwnd, lp.ssthresh), (MSS64, 5 * MSS64));
    }
}
