//! TCP Vegas: L. S. Brakmo and L. L. Peterson, "TCP Vegas: End to End Congestion Avoidance
//! on a Global Internet", IEEE JSAC 13(8), 1995 \[vegas\] (cited as *\[BP95\]*), with the
//! details the paper leaves open taken from Linux `net/ipv4/tcp_vegas.c` (cited as *Linux*).
//!
//! Vegas keeps a small, bounded backlog in the bottleneck queue. Once per round trip it
//! compares the expected rate `cwnd / BaseRTT` with the actual rate `cwnd / RTT` and
//! converts the difference into the number of its own segments sitting in queues:
//!
//! ```text
//! diff = (Expected − Actual) · BaseRTT = cwnd · (RTT − BaseRTT) / RTT      [BP95 §3.2]
//! ```
//!
//! In congestion avoidance `cwnd` grows by one segment per RTT while `diff < α`, shrinks by
//! one while `diff > β` and holds in between. In slow start `cwnd` doubles only every other
//! RTT so that the RTT in between measures the doubled window, and slow start ends once
//! `diff > γ` [BP95 §3.3]. Losses and timeouts get the Reno response [BP95 §3.1 keeps
//! Reno's loss handling].
//!
//! Choices where the sources differ or are silent:
//! - `RTT` is the **minimum** RTT sample of the last round trip, not the average, to filter
//!   delayed ACKs (Linux). `BaseRTT` is the minimum over the connection (both).
//! - `diff` uses the paper's definition `cwnd·(RTT−BaseRTT)/RTT` (in segments, as a real
//!   number); Linux divides by `BaseRTT` instead and truncates to an integer.
//! - α = 2, β = 4 segments (Linux defaults; the paper used α = 1, β = 3), γ = 1.
//! - A round trip with fewer than 3 RTT samples gives no Vegas decision and behaves like Reno
//!   for that ACK (Linux: two samples are probably both delayed ACKs).
//! - On leaving slow start `cwnd = min(cwnd, cwnd·BaseRTT/RTT + 1 segment)`, the window that
//!   matches the actual rate (Linux), and `ssthresh = cwnd`.
//! - A round trip ends with the first ACK that acknowledges data sent after the previous
//!   round ended (Linux `after(ack, beg_snd_nxt)`), with `snd_nxt` as the sender reports it
//!   in the ACK event.
//! - During fast recovery and after a timeout Vegas is switched off (Linux disables it outside
//!   the `Open` state) and restarts with a fresh round on the first ACK outside recovery.
//! - Window growth (slow start, Reno and Vegas increases) is skipped on application-limited
//!   ACKs (RFC 7661's rule, Linux's `tcp_is_cwnd_limited`), and nothing grows while the
//!   sender is in fast recovery.
//! - Loss: `ssthresh = max(FlightSize/2, 2·MSS)`, `cwnd = ssthresh` once recovery ends;
//!   timeout: same `ssthresh`, `cwnd = 1·MSS` (RFC 5681 §3.1 eq. 4 and §3.2).
//! - `cwnd` never goes below 2 segments after a Vegas decision (Linux).
//! - `rtt = "srtt"` (not a default; to compare with ns-3 only) takes BaseRTT and each round's
//!   minimum from the smoothed RTT after each ACK, as ns-3.44's `TcpVegas` is fed
//!   (`TcpSocketBase` calls `PktsAcked(m_tcb, segsAcked, m_tcb->m_srtt)`).

use cellshare_core::Nanos;

use super::{
    idle_restart, reno_undo, AckEvent, CcContext, CcParams, CcTrace, CongestionControl,
    IdleRestart, LossEvent, UndoEvent,
};

/// Parameters of [`Vegas`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {
    /// α: lower edge of the target backlog band, in segments. Below it `cwnd` grows by one
    /// segment per RTT. Default 2 (Linux `tcp_vegas` default; Brakmo & Peterson used 1).
    pub alpha: f64,
    /// β: upper edge of the target backlog band, in segments. Above it `cwnd` shrinks by one
    /// segment per RTT. Default 4 (Linux default; Brakmo & Peterson used 3).
    pub beta: f64,
    /// γ: backlog in segments above which slow start ends. Default 1.
    pub gamma: f64,
    /// The RTT that BaseRTT and each round's minimum are taken from: `"sample"` (default:
    /// each ACK's RTT sample, as [BP95] and Linux `tcp_vegas_pkts_acked`) or `"srtt"` (the
    /// smoothed RTT after each ACK that carries a sample). `"srtt"` is accepted to reproduce
    /// ns-3's `TcpVegas` (the simulator of the Legilimens and Sneaker papers): ns-3.44's
    /// `TcpSocketBase` passes `m_tcb->m_srtt` to `PktsAcked`, so its Vegas compares the
    /// smallest smoothed RTT of a round with the smallest smoothed RTT of the connection. Use
    /// it only to compare with ns-3 results.
    pub rtt: VegasRtt,
}

/// The RTT [`VegasConfig::rtt`] measures with: `"sample"` or `"srtt"`. (No variant doc
/// comments, so the schema is a string enum.)
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
pub enum VegasRtt {
    #[default]
    Sample,
    Srtt,
}

impl Default for VegasConfig {
    fn default() -> Self {
        Self {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
            rtt: VegasRtt::Sample,
        }
    }
}

impl CcParams for VegasConfig {
    /// Checks the parameters; the error names the offending field, its value and what is expected.
    fn validate(&self) -> Result<(), String> {
        if !(self.alpha.is_finite() && self.alpha >= 0.0) {
            return Err(format!(
                "vegas.alpha = {}: expected a finite number of segments >= 0",
                self.alpha
            ));
        }
        if !(self.beta.is_finite() && self.beta >= self.alpha) {
            return Err(format!(
                "vegas.beta = {}: expected a finite number of segments >= alpha ({})",
                self.beta, self.alpha
            ));
        }
        if !(self.gamma.is_finite() && self.gamma >= 0.0) {
            return Err(format!(
                "vegas.gamma = {}: expected a finite number of segments >= 0",
                self.gamma
            ));
        }
        Ok(())
    }

    fn build(&self, ctx: &CcContext) -> Box<dyn CongestionControl> {
        Box::new(Vegas::new(self, ctx.mss, ctx.initial_window))
    }
}

/// RTT samples a round trip needs before Vegas trusts its minimum (Linux: `cntRTT <= 2`
/// means Reno).
const MIN_SAMPLES_PER_ROUND: u32 = 3;

/// TCP Vegas congestion controller.
#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged since the last additive increase (Reno fallback, RFC 3465 byte counting).
    ca_acked: u64,
    /// Whether Vegas decisions are active (Linux `doing_vegas_now`).
    enabled: bool,
    /// End of the current round: it ends with an ACK above this sequence number.
    beg_snd_nxt: u64,
    /// Minimum RTT over the connection.
    base_rtt: Nanos,
    /// Minimum RTT sample in the current round.
    round_min_rtt: Nanos,
    /// RTT samples in the current round.
    round_samples: u32,
    /// Whether slow start grows `cwnd` in the current round (it alternates) [BP95 §3.3].
    ss_grow_round: bool,
    /// `diff` of the last Vegas decision, in segments (NaN before the first).
    last_diff: f64,
    /// Round trips completed (for tests and tracing).
    rounds: u64,
}

impl Vegas {
    /// A Vegas controller for segments of `mss` bytes starting with `initial_window_bytes`.
    pub fn new(cfg: &VegasConfig, mss: u32, initial_window_bytes: u64) -> Vegas {
        let mss = mss.max(1) as u64;
        Vegas {
            cfg: cfg.clone(),
            mss,
            cwnd: initial_window_bytes.max(mss),
            ssthresh: u64::MAX,
            ca_acked: 0,
            enabled: false,
            beg_snd_nxt: 0,
            base_rtt: Nanos::MAX,
            round_min_rtt: Nanos::MAX,
            round_samples: 0,
            ss_grow_round: true,
            last_diff: f64::NAN,
            rounds: 0,
        }
    }

    /// Minimum RTT over the connection (`Nanos::MAX` before the first sample).
    pub fn base_rtt(&self) -> Nanos {
        self.base_rtt
    }

    /// The backlog estimate `diff` (segments) of the last Vegas decision, NaN before the first.
    pub fn diff(&self) -> f64 {
        self.last_diff
    }

    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Starts Vegas with a fresh round (Linux `vegas_enable`).
    fn enable(&mut self, ev: &AckEvent) {
        self.enabled = true;
        self.beg_snd_nxt = ev.snd_nxt;
        self.round_samples = 0;
        self.round_min_rtt = Nanos::MAX;
        self.ss_grow_round = true;
    }

    /// Slow start: `cwnd += acked` up to `ssthresh`; returns the bytes left over
    /// (RFC 5681 §3.1, Linux `tcp_slow_start`).
    fn slow_start(&mut self, acked: u64) -> u64 {
        let room = self.ssthresh.saturating_sub(self.cwnd);
        let used = acked.min(room);
        self.cwnd += used;
        acked - used
    }

    /// Reno window growth (Linux `tcp_reno_cong_avoid`, [`super::reno::reno_cong_avoid`]).
    fn reno_cong_avoid(&mut self, acked: u64) {
        super::reno::reno_cong_avoid(
            &mut self.cwnd,
            &mut self.ca_acked,
            self.ssthresh,
            self.mss,
            acked,
        );
    }

    /// The once-per-RTT Vegas decision (Linux `tcp_vegas_cong_avoid`, the `after(ack,
    /// beg_snd_nxt)` branch).
    fn round_decision(&mut self, ev: &AckEvent, may_grow: bool) {
        let rtt = self.round_min_rtt as f64;
        let base = self.base_rtt as f64;
        let cwnd_segments = self.cwnd as f64 / self.mss as f64;
        // [BP95 §3.2]: Diff = (Expected − Actual)·BaseRTT = cwnd·(RTT − BaseRTT)/RTT segments.
        let diff = cwnd_segments * (rtt - base) / rtt;
        self.last_diff = diff;
        if self.in_slow_start() {
            if diff > self.cfg.gamma {
                // [BP95 §3.3]: leave slow start when the backlog exceeds γ. Linux sets cwnd to
                // the window matching the actual rate, plus one segment for truncation.
                let target = (self.cwnd as f64 * base / rtt) as u64 + self.mss;
                self.cwnd = self.cwnd.min(target);
                self.ssthresh = self.ssthresh.min(self.cwnd);
            } else {
                // [BP95 §3.3]: exponential growth only every other RTT.
                if self.ss_grow_round && may_grow {
                    self.slow_start(ev.acked_bytes);
                }
                self.ss_grow_round = !self.ss_grow_round;
            }
        } else if diff > self.cfg.beta {
            // [BP95 §3.2]: too much backlog: decrease linearly by one segment per RTT.
            self.cwnd = self.cwnd.saturating_sub(self.mss);
            self.ssthresh = self.ssthresh.min(self.cwnd);
        } else if diff < self.cfg.alpha {
            // [BP95 §3.2]: too little backlog: increase linearly by one segment per RTT.
            if may_grow {
                self.cwnd += self.mss;
            }
        }
        // Linux: never fewer than two segments after a Vegas decision.
        self.cwnd = self.cwnd.max(2 * self.mss);
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let sample = ev
            .rtt_sample
            .map(|r| match self.cfg.rtt {
                VegasRtt::Sample => r,
                VegasRtt::Srtt => ev.srtt,
            })
            .map(|r| r.max(1));
        // BaseRTT: the minimum of all measured RTTs [BP95 §3.2].
        if let Some(r) = sample {
            self.base_rtt = self.base_rtt.min(r);
        }
        if ev.in_recovery {
            // Linux: Vegas is off outside the Open state, and nothing grows in recovery.
            self.enabled = false;
            return;
        }
        if !self.enabled {
            self.enable(ev);
        }
        // Linux `tcp_vegas_pkts_acked`: minimum RTT and sample count of the current round.
        if let Some(r) = sample {
            self.round_min_rtt = self.round_min_rtt.min(r);
            self.round_samples += 1;
        }
        if ev.is_dup || ev.acked_bytes == 0 {
            return;
        }
        let may_grow = !ev.app_limited;
        if ev.ack_seq > self.beg_snd_nxt {
            // End of a round trip: the next round ends after what is in flight now.
            self.beg_snd_nxt = ev.snd_nxt;
            self.rounds += 1;
            if self.round_samples < MIN_SAMPLES_PER_ROUND {
                // Linux: too few samples (likely delayed ACKs only): behave like Reno.
                if may_grow {
                    self.reno_cong_avoid(ev.acked_bytes);
                }
            } else {
                self.round_decision(ev, may_grow);
            }
            self.round_samples = 0;
            self.round_min_rtt = Nanos::MAX;
        } else if self.in_slow_start() && self.ss_grow_round && may_grow {
            self.slow_start(ev.acked_bytes);
        }
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        // Reno response (RFC 5681 §3.2 eq. 4; Linux Vegas uses `tcp_reno_ssthresh`).
        let mss = self.mss;
        self.ssthresh = (ev.bytes_in_flight / 2).max(2 * mss);
        self.cwnd = self.ssthresh;
        self.ca_acked = 0;
        self.enabled = false;
    }

    fn on_timeout(&mut self, _now: Nanos, bytes_in_flight: u64, _mss: u32) {
        // RFC 5681 §3.1: ssthresh = max(FlightSize/2, 2·MSS), cwnd = loss window = 1·MSS.
        self.ssthresh = (bytes_in_flight / 2).max(2 * self.mss);
        self.cwnd = self.mss;
        self.ca_acked = 0;
        self.enabled = false;
    }

    fn undo_cwnd(&mut self, ev: &UndoEvent) {
        // Linux Vegas uses `tcp_reno_undo_cwnd`.
        reno_undo(&mut self.cwnd, &mut self.ssthresh, ev);
        self.ca_acked = 0;
    }

    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        // Linux `tcp_cwnd_restart`, and `tcp_vegas_cwnd_event(CA_EVENT_CWND_RESTART)` runs
        // `tcp_vegas_init`: BaseRTT is measured afresh and Vegas waits for a new round.
        (self.cwnd, self.ssthresh) = idle_restart(self.cwnd, self.ssthresh, ev);
        self.ca_acked = 0;
        self.base_rtt = Nanos::MAX;
        self.enabled = false;
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// `mode`: 0 = slow start, 1 = congestion avoidance; `estimate`: last `diff` in segments;
    /// `flag`: Vegas is switched off (recovery, or too few samples since it restarted).
    fn trace(&self) -> CcTrace {
        CcTrace {
            mode: u8::from(!self.in_slow_start()),
            estimate: self.last_diff,
            flag: !self.enabled,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    const MSS: u32 = 1000;

    /// A controller in congestion avoidance with `cwnd_segments` and a known BaseRTT.
    fn in_ca(cwnd_segments: u64, base_rtt: Nanos) -> Vegas {
        let mut v = Vegas::new(&VegasConfig::default(), MSS, cwnd_segments * MSS as u64);
        v.ssthresh = 2 * MSS as u64;
        v.base_rtt = base_rtt;
        v
    }

    /// Feeds one ACK per segment, each with RTT `rtt`, with the window full, until Vegas
    /// completes a round; returns the cwnd change in segments.
    fn run_round(v: &mut Vegas, seq: &mut u64, now: &mut Nanos, rtt: Nanos) -> i64 {
        let before = v.cwnd as i64;
        let rounds = v.rounds;
        for _ in 0..10_000 {
            *seq += MSS as u64;
            *now += MS;
            let ev = AckEvent {
                now: *now,
                acked_bytes: MSS as u64,
                ack_seq: *seq,
                snd_nxt: *seq + v.cwnd,
                rtt_sample: Some(rtt),
                srtt: rtt,
                bytes_in_flight: v.cwnd,
                prior_in_flight: v.cwnd,
                mss: MSS,
                ..Default::default()
            };
            v.on_ack(&ev);
            if v.rounds > rounds {
                return (v.cwnd as i64 - before) / MSS as i64;
            }
        }
        panic!("no round completed");
    }

    #[test]
    fn default_config_is_valid_and_bad_fields_are_named() {
        VegasConfig::default().validate().unwrap();
        let err = VegasConfig {
            beta: 1.0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(err.contains("vegas.beta") && err.contains('1'), "{err}");
        let err = VegasConfig {
            alpha: f64::NAN,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(err.contains("vegas.alpha"), "{err}");
    }

    #[test]
    fn srtt_option_measures_base_and_round_rtt_with_the_smoothed_rtt_as_ns3() {
        // Every ACK's sample is 100 ms (no queue) but the smoothed RTT is 110 ms: with the
        // samples (default) diff = 0 and cwnd grows; fed the smoothed RTT as ns-3.44's
        // TcpVegas is, BaseRTT becomes 110 ms too once it is the smallest smoothed RTT seen.
        // Then the smoothed RTT alone rises to 130 ms: diff = 20·20/130 ≈ 3.1 (hold) with
        // `srtt`, while the samples still say 0.
        for (rtt, grows) in [(VegasRtt::Sample, true), (VegasRtt::Srtt, false)] {
            let cfg = VegasConfig {
                rtt,
                ..Default::default()
            };
            let mut v = Vegas::new(&cfg, MSS, 20 * MSS as u64);
            v.ssthresh = 2 * MSS as u64;
            let (mut seq, mut now) = (0u64, 0);
            let mut round = |v: &mut Vegas, srtt: Nanos| {
                let (before, rounds) = (v.cwnd as i64, v.rounds);
                while v.rounds == rounds {
                    seq += MSS as u64;
                    now += MS;
                    v.on_ack(&AckEvent {
                        now,
                        acked_bytes: MSS as u64,
                        ack_seq: seq,
                        snd_nxt: seq + v.cwnd,
                        rtt_sample: Some(100 * MS),
                        srtt,
                        bytes_in_flight: v.cwnd,
                        prior_in_flight: v.cwnd,
                        mss: MSS,
                        ..Default::default()
                    });
                }
                (v.cwnd as i64 - before) / MSS as i64
            };
            round(&mut v, 110 * MS);
            let expect_base = if grows { 100 * MS } else { 110 * MS };
            assert_eq!(v.base_rtt(), expect_base, "{rtt:?}");
            let before = v.cwnd;
            let change = round(&mut v, 130 * MS);
            if grows {
                assert_eq!(change, 1, "{rtt:?}");
                assert_eq!(v.diff(), 0.0);
            } else {
                assert_eq!(change, 0, "{rtt:?}");
                let want = (before / MSS as u64) as f64 * 20.0 / 130.0;
                assert!((v.diff() - want).abs() < 1e-9, "{} != {want}", v.diff());
            }
        }
    }

    #[test]
    fn increases_one_segment_when_diff_below_alpha() {
        // cwnd 20, BaseRTT 100 ms, RTT 105 ms: diff = 20·5/105 ≈ 0.95 < α = 2.
        let mut v = in_ca(20, 100 * MS);
        let (mut seq, mut now) = (0, 0);
        v.on_ack(&AckEvent {
            ack_seq: 0,
            snd_nxt: v.cwnd,
            bytes_in_flight: v.cwnd,
            mss: MSS,
            ..Default::default()
        });
        assert_eq!(run_round(&mut v, &mut seq, &mut now, 105 * MS), 1);
        assert!((v.diff() - 20.0 * 5.0 / 105.0).abs() < 1e-9);
        // cwnd 21 with RTT = BaseRTT: diff 0: +1 again.
        assert_eq!(run_round(&mut v, &mut seq, &mut now, 100 * MS), 1);
        assert_eq!(v.diff(), 0.0);
        assert_eq!(v.cwnd, 22 * MSS as u64);
    }

    #[test]
    fn holds_inside_alpha_beta_band_including_edges() {
        // diff exactly α: cwnd 20, BaseRTT 90 ms, RTT 100 ms → 20·10/100 = 2.
        // diff exactly β: cwnd 20, BaseRTT 80 ms, RTT 100 ms → 20·20/100 = 4.
        // diff = 3: BaseRTT 85 ms, RTT 100 ms.
        for (base, expect) in [(90, 2.0), (85, 3.0), (80, 4.0)] {
            let mut v = in_ca(20, base * MS);
            let (mut seq, mut now) = (0, 0);
            v.on_ack(&AckEvent {
                ack_seq: 0,
                snd_nxt: v.cwnd,
                bytes_in_flight: v.cwnd,
                mss: MSS,
                ..Default::default()
            });
            for _ in 0..3 {
                assert_eq!(
                    run_round(&mut v, &mut seq, &mut now, 100 * MS),
                    0,
                    "base {base}"
                );
                assert_eq!(v.cwnd, 20 * MSS as u64);
                assert!(
                    (v.diff() - expect).abs() < 1e-12,
                    "diff {} expected {expect}",
                    v.diff()
                );
            }
        }
    }

    #[test]
    fn decreases_one_segment_when_diff_above_beta() {
        // cwnd 20, BaseRTT 70 ms, RTT 100 ms: diff = 6 > β = 4.
        let mut v = in_ca(20, 70 * MS);
        let (mut seq, mut now) = (0, 0);
        v.on_ack(&AckEvent {
            ack_seq: 0,
            snd_nxt: v.cwnd,
            bytes_in_flight: v.cwnd,
            mss: MSS,
            ..Default::default()
        });
        assert_eq!(run_round(&mut v, &mut seq, &mut now, 100 * MS), -1);
        assert!((v.diff() - 6.0).abs() < 1e-12);
        // cwnd 19: diff = 19·30/100 = 5.7 > 4: again −1.
        assert_eq!(run_round(&mut v, &mut seq, &mut now, 100 * MS), -1);
        // The RTT falls back to BaseRTT: diff 0 < α: +1.
        assert_eq!(run_round(&mut v, &mut seq, &mut now, 70 * MS), 1);
    }

    #[test]
    fn slow_start_doubles_every_other_rtt_and_exits_above_gamma() {
        let mut v = Vegas::new(&VegasConfig::default(), MSS, 4 * MSS as u64);
        let (mut seq, mut now) = (0, 0);
        v.on_ack(&AckEvent {
            ack_seq: 0,
            snd_nxt: v.cwnd,
            bytes_in_flight: v.cwnd,
            mss: MSS,
            ..Default::default()
        });
        // No queueing (RTT = BaseRTT): diff = 0 ≤ γ. Growth rounds alternate with hold rounds.
        let mut growth = Vec::new();
        for _ in 0..4 {
            let before = v.cwnd;
            run_round(&mut v, &mut seq, &mut now, 50 * MS);
            growth.push(v.cwnd as f64 / before as f64);
        }
        assert!(growth[0] > 1.8 && growth[2] > 1.8, "{growth:?}");
        assert_eq!(growth[1], 1.0);
        assert_eq!(growth[3], 1.0);
        assert!(v.in_slow_start());
        // Now a queue builds: RTT 75 ms with BaseRTT 50 ms → diff = cwnd/3 > γ: exit, cwnd set
        // to the rate-matching window cwnd·BaseRTT/RTT + 1 segment. This is a growth round, so
        // the window has doubled by the ACK that ends it.
        let cwnd = 2 * v.cwnd;
        run_round(&mut v, &mut seq, &mut now, 75 * MS);
        assert!(!v.in_slow_start());
        assert_eq!(v.cwnd, (cwnd as f64 * 50.0 / 75.0) as u64 + MSS as u64);
        assert_eq!(v.ssthresh, v.cwnd);
    }

    #[test]
    fn reno_response_to_loss_and_timeout_and_no_growth_in_recovery() {
        let mut v = in_ca(20, 100 * MS);
        v.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: 20 * MSS as u64,
            mss: MSS,
        });
        assert_eq!(v.cwnd, 10 * MSS as u64);
        assert_eq!(v.ssthresh, 10 * MSS as u64);
        for i in 1..50u64 {
            v.on_ack(&AckEvent {
                ack_seq: i * MSS as u64,
                snd_nxt: i * MSS as u64 + v.cwnd,
                acked_bytes: MSS as u64,
                rtt_sample: Some(100 * MS),
                in_recovery: true,
                bytes_in_flight: v.cwnd,
                mss: MSS,
                ..Default::default()
            });
        }
        assert_eq!(v.cwnd, 10 * MSS as u64);
        v.on_timeout(0, 10 * MSS as u64, MSS);
        assert_eq!(v.cwnd, MSS as u64);
        assert_eq!(v.ssthresh, 5 * MSS as u64);
    }
}
