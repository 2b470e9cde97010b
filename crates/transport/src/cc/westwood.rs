//! TCP Westwood+: S. Mascolo, L. A. Grieco, R. Ferorelli, P. Camarda and G. Piscitelli,
//! "Performance evaluation of Westwood+ TCP congestion control", Performance Evaluation
//! 55(1–2), 2004 \[westwood\] (cited as *\[MG04\]*; Westwood itself: Casetti, Gerla, Mascolo,
//! Sanadidi and Wang, Wireless Networks 8(5), 2002 \[westwood-2002\], BoDe's reference \[18\]), with the details the
//! paper leaves open taken from Linux `net/ipv4/tcp_westwood.c` (cited as *Linux*) and ns-3's
//! `TcpWestwoodPlus` (`src/internet/model/tcp-westwood-plus.cc`, cited as *ns-3*).
//!
//! Westwood+ is Reno whose multiplicative decrease is replaced by an *adaptive* one: the
//! sender estimates the bandwidth its ACKs carry and, after a loss, sets the window to the
//! pipe that bandwidth fills at the minimum RTT, so a random (non-congestion) loss costs
//! little:
//!
//! - **Bandwidth samples once per RTT** \[MG04 §2, the "+" of Westwood+, which replaced
//!   Westwood's per-ACK samples that ACK compression inflated\]: the bytes acknowledged over
//!   a window of at least one RTT, `b_k = d_k / Δ_k`. Linux closes a window on the first ACK
//!   more than `max(RTT, 50 ms)` after it opened (`westwood_update_window`,
//!   `TCP_WESTWOOD_RTT_MIN = HZ/20`), RTT being the newest sample; the 50 ms floor is
//!   [`WestwoodConfig::min_sample_ms`] (0 gives ns-3's once per RTT).
//! - **Bytes acknowledged** (Linux `westwood_acked_count`): a cumulative ACK counts the bytes
//!   it acknowledges; a duplicate ACK counts one MSS (a segment left the network), remembered
//!   as `accounted` and subtracted from the next cumulative ACK that covers more than one MSS,
//!   so every byte counts once \[MG04 §2: "DUPACKs … count … as one delivered segment"\].
//! - **Low-pass filter** \[MG04 §2, eq. (2): an EWMA of the samples\]: Linux cascades two
//!   7/8 EWMAs (`westwood_do_filter`: `bw_ns_est ← (7·bw_ns_est + b)/8`, `bw_est ← (7·bw_est
//!   + bw_ns_est)/8`, the first sample filling both); ns-3 uses a Tustin (bilinear) filter,
//!   `b̂_k = α·b̂_{k−1} + (1−α)·(b_k + b_{k−1})/2` with α = 0.9, starting from 0.
//!   [`WestwoodConfig::filter`] picks one (default Linux's).
//! - **Adaptive decrease** \[MG04 §2 pseudo-code "after 3 DUPACKs" and "after a
//!   timeout"\]: `ssthresh = max(BWE·RTTmin / MSS, 2)` segments; after three duplicate ACKs
//!   `cwnd = ssthresh` (if larger), after a timeout `cwnd = 1`. RTTmin is the smallest RTT
//!   sample; after a timeout it restarts from the next sample (Linux `reset_rtt_min`,
//!   `CA_EVENT_LOSS`).
//! - **Growth** is Reno's (Linux uses `tcp_reno_cong_avoid`; ns-3 derives from NewReno):
//!   slow start below `ssthresh`, one MSS per window of acknowledged bytes above it
//!   ([`super::reno::tcp_reno_cong_avoid`], as Linux calls `tcp_reno_cong_avoid`), only while the window limits the sender.
//!
//! Choices where the sources differ or are silent:
//! - **When the window is set after a loss.** Linux halves `ssthresh` at the loss
//!   (`tcp_reno_ssthresh`) and sets `cwnd = ssthresh = BWE·RTTmin` only when recovery
//!   completes (`CA_EVENT_COMPLETE_CWR`); ns-3 and \[MG04\] set `ssthresh = BWE·RTTmin` at
//!   the loss. Here the loss sets `ssthresh = cwnd = BWE·RTTmin` (so PRR, RFC 6937, steers
//!   the flight towards it during recovery, as in ns-3 with its default PRR), and the end of
//!   recovery sets both again from the estimate as it is then (Linux's
//!   `CA_EVENT_COMPLETE_CWR`; the estimate moves a little during recovery).
//! - Estimates are real numbers (bytes per second, nanoseconds) instead of Linux's integer
//!   bytes per jiffy; `BWE·RTTmin` is then rounded down to whole segments, as Linux's
//!   `(bw_est · rtt_min) / mss_cache`.
//! - The first sampling window opens at the first ACK (Linux opens it when the socket is
//!   initialised, before the handshake, which the simulator does not model).
//! - ACKs without an RTT sample (Karn) keep the previous RTT, as Linux keeps `w->rtt`.

use cellshare_core::{Nanos, MS, SEC};

use super::reno::tcp_reno_cong_avoid;
use super::{AckEvent, CcContext, CcParams, CcTrace, CongestionControl, LossEvent};

/// The low-pass filter applied to Westwood+'s bandwidth samples.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum WestwoodFilter {
    /// Linux `tcp_westwood.c`: two cascaded 7/8 EWMAs.
    Linux,
    /// ns-3 `TcpWestwoodPlus` (its default `FilterType = Tustin`): a Tustin filter, α = 0.9.
    Tustin,
    /// No filter: the estimate is the latest sample.
    None,
}

/// Westwood+ parameters.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WestwoodConfig {
    /// Low-pass filter of the bandwidth samples: `"linux"` (default; two cascaded 7/8
    /// EWMAs), `"tustin"` (ns-3's, α = 0.9) or `"none"`.
    pub filter: WestwoodFilter,
    /// Shortest bandwidth-sampling window, ms: a window closes after `max(RTT, this)`.
    /// Default 50 (Linux `TCP_WESTWOOD_RTT_MIN`); 0 samples once per RTT, as ns-3.
    pub min_sample_ms: f64,
}

impl Default for WestwoodConfig {
    fn default() -> Self {
        Self {
            filter: WestwoodFilter::Linux,
            min_sample_ms: 50.0,
        }
    }
}

impl CcParams for WestwoodConfig {
    /// Checks every field, naming the first bad one.
    fn validate(&self) -> Result<(), String> {
        if !(self.min_sample_ms.is_finite() && (0.0..=10_000.0).contains(&self.min_sample_ms)) {
            return Err(format!(
                "min_sample_ms must be in [0, 10000] ms, got {}",
                self.min_sample_ms
            ));
        }
        Ok(())
    }

    fn build(&self, ctx: &CcContext) -> Box<dyn CongestionControl> {
        Box::new(Westwood::new(self, ctx.mss, ctx.initial_window))
    }
}

/// Gain of ns-3's Tustin filter (`TcpWestwoodPlus::EstimateBW`, `ALPHA = 0.9`).
const TUSTIN_ALPHA: f64 = 0.9;

/// The Westwood+ controller.
#[derive(Clone, Debug)]
pub struct Westwood {
    cfg: WestwoodConfig,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Reno's congestion-avoidance byte counter (Linux `snd_cwnd_cnt`, in bytes).
    ca_acked: u64,
    /// Shortest sampling window.
    min_sample: Nanos,
    /// Start of the current sampling window (Linux `rtt_win_sx`); `None` before the first ACK.
    win_start: Option<Nanos>,
    /// Bytes acknowledged in the current window (Linux `bk`).
    bk: u64,
    /// Bytes credited to duplicate ACKs and not yet matched by a cumulative ACK (Linux
    /// `accounted`).
    accounted: u64,
    /// Newest RTT sample (Linux `w->rtt`); 0 before the first.
    rtt: Nanos,
    /// RTTmin (Linux `rtt_min`); 0 before the first sample.
    rtt_min: Nanos,
    /// The next RTT sample restarts RTTmin (after a timeout).
    reset_rtt_min: bool,
    /// First filter stage, bytes/s (Linux `bw_ns_est`; ns-3's previous sample for Tustin).
    bw_ns_est: f64,
    /// The bandwidth estimate BWE, bytes/s (Linux `bw_est`).
    bw_est: f64,
    /// Whether the filter has seen a sample.
    filled: bool,
    /// Bandwidth samples taken.
    samples: u64,
    in_recovery: bool,
}

impl Westwood {
    /// A controller starting with `initial_window_bytes` (e.g. 10·MSS, RFC 6928).
    pub fn new(cfg: &WestwoodConfig, mss: u32, initial_window_bytes: u64) -> Westwood {
        let mss = mss.max(1) as u64;
        Westwood {
            cfg: cfg.clone(),
            mss,
            cwnd: initial_window_bytes.max(mss),
            ssthresh: u64::MAX,
            ca_acked: 0,
            min_sample: (cfg.min_sample_ms * MS as f64).round() as Nanos,
            win_start: None,
            bk: 0,
            accounted: 0,
            rtt: 0,
            rtt_min: 0,
            reset_rtt_min: true,
            bw_ns_est: 0.0,
            bw_est: 0.0,
            filled: false,
            samples: 0,
            in_recovery: false,
        }
    }

    /// The bandwidth estimate BWE in bytes per second (0 before the first sample).
    pub fn bandwidth_estimate(&self) -> f64 {
        self.bw_est
    }

    /// RTTmin (0 before the first RTT sample).
    pub fn rtt_min(&self) -> Nanos {
        self.rtt_min
    }

    /// Bandwidth samples taken so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// `max(BWE·RTTmin / MSS, 2)` segments, in bytes (\[MG04\] §2; Linux
    /// `tcp_westwood_bw_rttmin`).
    pub fn bw_rttmin(&self) -> u64 {
        let bytes = self.bw_est * self.rtt_min as f64 / SEC as f64;
        let segments = (bytes / self.mss as f64).floor().max(2.0) as u64;
        segments * self.mss
    }

    /// One bandwidth sample `b` (bytes/s) through the configured filter.
    fn filter(&mut self, b: f64) {
        self.samples += 1;
        match self.cfg.filter {
            WestwoodFilter::Linux => {
                // Linux westwood_filter: the first sample fills both stages.
                if !self.filled {
                    self.bw_ns_est = b;
                    self.bw_est = b;
                } else {
                    self.bw_ns_est = (7.0 * self.bw_ns_est + b) / 8.0;
                    self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
                }
            }
            WestwoodFilter::Tustin => {
                // ns-3 EstimateBW: previous estimate and previous sample start at 0.
                self.bw_est =
                    TUSTIN_ALPHA * self.bw_est + (1.0 - TUSTIN_ALPHA) * (b + self.bw_ns_est) / 2.0;
                self.bw_ns_est = b;
            }
            WestwoodFilter::None => {
                self.bw_ns_est = b;
                self.bw_est = b;
            }
        }
        self.filled = true;
    }

    /// Linux `westwood_update_window`: closes the sampling window once it spans more than
    /// `max(RTT, min_sample)`, feeding `bk / Δ` to the filter.
    fn update_window(&mut self, now: Nanos) {
        let start = *self.win_start.get_or_insert(now);
        let delta = now - start;
        if self.rtt > 0 && delta > self.rtt.max(self.min_sample) {
            self.filter(self.bk as f64 * SEC as f64 / delta as f64);
            self.bk = 0;
            self.win_start = Some(now);
        }
    }

    /// Linux `westwood_acked_count`: the bytes this ACK tells were delivered.
    fn acked_count(&mut self, acked_bytes: u64) -> u64 {
        let mut cumul = acked_bytes;
        if cumul == 0 {
            // A duplicate ACK: one segment left the network.
            self.accounted += self.mss;
            cumul = self.mss;
        }
        if cumul > self.mss {
            // A partial or delayed ACK: what duplicate ACKs already counted is not counted again.
            if self.accounted >= cumul {
                self.accounted -= cumul;
                cumul = 0;
            } else {
                cumul -= self.accounted;
                self.accounted = 0;
            }
        }
        cumul
    }

    fn update_rtt_min(&mut self) {
        if self.rtt == 0 {
            return;
        }
        if self.reset_rtt_min || self.rtt_min == 0 {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.in_recovery = ev.in_recovery;
        // Linux tcp_westwood_pkts_acked: the newest RTT sample.
        if let Some(r) = ev.rtt_sample {
            self.rtt = r.max(1);
        }
        // Linux tcp_westwood_ack (every ACK, duplicates included).
        self.update_window(ev.now);
        self.bk += self.acked_count(ev.acked_bytes);
        self.update_rtt_min();
        // Linux tcp_westwood's cong_avoid is tcp_reno_cong_avoid.
        tcp_reno_cong_avoid(
            &mut self.cwnd,
            &mut self.ca_acked,
            self.ssthresh,
            self.mss,
            ev,
        );
    }

    fn on_congestion_event(&mut self, _ev: &LossEvent) {
        // [MG04] §2 "after 3 DUPACKs": ssthresh = BWE·RTTmin; cwnd = ssthresh.
        self.ssthresh = self.bw_rttmin();
        self.cwnd = self.ssthresh;
        self.ca_acked = 0;
        self.in_recovery = true;
    }

    fn on_timeout(&mut self, _now: Nanos, _bytes_in_flight: u64, mss: u32) {
        // [MG04] §2 "after a timeout": ssthresh = BWE·RTTmin, cwnd = 1; Linux CA_EVENT_LOSS
        // also restarts RTTmin from the next sample.
        self.ssthresh = self.bw_rttmin();
        self.cwnd = mss as u64;
        self.ca_acked = 0;
        self.reset_rtt_min = true;
        self.in_recovery = false;
    }

    fn on_recovery_end(&mut self, _now: Nanos) {
        // Linux CA_EVENT_COMPLETE_CWR: cwnd = ssthresh = BWE·RTTmin with the estimate as it is now.
        self.ssthresh = self.bw_rttmin();
        self.cwnd = self.ssthresh;
        self.in_recovery = false;
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// Mode 0 = slow start, 1 = congestion avoidance, 2 = fast recovery; estimate = BWE in
    /// bytes per second.
    fn trace(&self) -> CcTrace {
        let mode = if self.in_recovery {
            2
        } else if self.cwnd < self.ssthresh {
            0
        } else {
            1
        };
        CcTrace {
            mode,
            estimate: self.bw_est,
            flag: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;
    const M: u64 = MSS as u64;

    fn ww(cfg: WestwoodConfig) -> Westwood {
        Westwood::new(&cfg, MSS, 10 * M)
    }

    /// A window-limited cumulative ACK of `segs` segments at `now` with RTT sample `rtt`.
    fn ack(w: &mut Westwood, now: Nanos, segs: u64, rtt: Option<Nanos>) {
        let cwnd = w.cwnd();
        w.on_ack(&AckEvent {
            now,
            acked_bytes: segs * M,
            prior_in_flight: cwnd,
            bytes_in_flight: cwnd.saturating_sub(segs * M),
            rtt_sample: rtt,
            mss: MSS,
            ..Default::default()
        });
    }

    fn dupack(w: &mut Westwood, now: Nanos) {
        let cwnd = w.cwnd();
        w.on_ack(&AckEvent {
            now,
            is_dup: true,
            prior_in_flight: cwnd,
            bytes_in_flight: cwnd,
            mss: MSS,
            ..Default::default()
        });
    }

    /// A steady stream: one `segs`-segment ACK every `gap`, RTT `rtt`, from `from` to `to`.
    fn stream(
        w: &mut Westwood,
        from: Nanos,
        to: Nanos,
        gap: Nanos,
        segs: u64,
        rtt: Nanos,
    ) -> Nanos {
        let mut t = from;
        while t <= to {
            ack(w, t, segs, Some(rtt));
            t += gap;
        }
        t
    }

    #[test]
    fn one_sample_per_window_of_max_rtt_and_50ms() {
        // RTT 10 ms, 2 segments every ms: 2·1448 B/ms = 2.896 MB/s. Linux's 50 ms floor
        // closes a window on the first ACK more than 50 ms after it opened.
        let mut w = ww(WestwoodConfig::default());
        stream(&mut w, 0, 50 * MS, MS, 2, 10 * MS);
        assert_eq!(w.samples(), 0, "a window spans more than 50 ms");
        ack(&mut w, 51 * MS, 2, Some(10 * MS));
        assert_eq!(w.samples(), 1);
        // The window [0, 51 ms] counted the ACKs at 0..=50 ms: 51 ACKs of 2 segments.
        let b = 51.0 * 2.0 * M as f64 / 0.051;
        assert!(
            (w.bandwidth_estimate() - b).abs() < 1e-6,
            "{} vs {b}",
            w.bandwidth_estimate()
        );
        // ns-3's per-RTT sampling (min_sample_ms = 0): a window closes after one RTT.
        let mut w = ww(WestwoodConfig {
            min_sample_ms: 0.0,
            ..Default::default()
        });
        stream(&mut w, 0, 100 * MS, MS, 2, 10 * MS);
        assert_eq!(w.samples(), 9, "windows close at 11, 22, …, 99 ms");
        // A 200 ms RTT stretches Linux's windows beyond 50 ms.
        let mut w = ww(WestwoodConfig::default());
        stream(&mut w, 0, 1000 * MS, MS, 1, 200 * MS);
        assert_eq!(w.samples(), 4, "windows close at 201, 402, 603, 804 ms");
    }

    #[test]
    fn linux_filter_is_two_cascaded_seven_eighths_ewmas() {
        let mut w = ww(WestwoodConfig {
            min_sample_ms: 0.0,
            ..Default::default()
        });
        // One ACK (one segment) per ms at RTT 99 ms: the window [0, 100 ms] closes at the
        // ACK at 100 ms with the 100 segments acknowledged before it.
        let t = stream(&mut w, 0, 100 * MS, MS, 1, 99 * MS);
        assert_eq!(w.samples(), 1);
        let b1 = w.bandwidth_estimate();
        assert!(
            (b1 - 100.0 * M as f64 / 0.1).abs() < 1e-6,
            "first sample fills both stages: {b1}"
        );
        // Then two segments per ACK: the window [100, 200 ms] holds the ACK at 100 ms (one
        // segment) and 99 ACKs of two.
        stream(&mut w, t, 200 * MS, MS, 2, 99 * MS);
        assert_eq!(w.samples(), 2);
        let b2 = 199.0 * M as f64 / 0.1;
        let ns = (7.0 * b1 + b2) / 8.0;
        let est = (7.0 * b1 + ns) / 8.0;
        assert!(
            (w.bandwidth_estimate() - est).abs() < 1e-6,
            "{} vs {est}",
            w.bandwidth_estimate()
        );
    }

    #[test]
    fn tustin_filter_matches_ns3() {
        let mut w = ww(WestwoodConfig {
            filter: WestwoodFilter::Tustin,
            min_sample_ms: 0.0,
        });
        let t = stream(&mut w, 0, 100 * MS, MS, 1, 99 * MS);
        let b1 = 100.0 * M as f64 / 0.1;
        // ns-3: 0.9·0 + 0.1·(b1 + 0)/2.
        assert!((w.bandwidth_estimate() - 0.05 * b1).abs() < 1e-6);
        stream(&mut w, t, 200 * MS, MS, 1, 99 * MS);
        let b2 = 100.0 * M as f64 / 0.1;
        let est = 0.9 * 0.05 * b1 + 0.1 * (b2 + b1) / 2.0;
        assert!((w.bandwidth_estimate() - est).abs() < 1e-6);
        let mut w = ww(WestwoodConfig {
            filter: WestwoodFilter::None,
            min_sample_ms: 0.0,
        });
        stream(&mut w, 0, 100 * MS, MS, 1, 99 * MS);
        assert!((w.bandwidth_estimate() - b1).abs() < 1e-6);
    }

    #[test]
    fn duplicate_acks_count_one_segment_and_are_not_counted_twice() {
        let mut w = ww(WestwoodConfig {
            min_sample_ms: 0.0,
            filter: WestwoodFilter::None,
        });
        ack(&mut w, 0, 1, Some(50 * MS)); // opens the window at 0 with 1 segment
                                          // Three duplicate ACKs (3 segments reached the receiver out of order), then the
                                          // retransmission fills the hole: the cumulative ACK covers 5 segments, of which 3
                                          // were already counted.
        for i in 1..=3 {
            dupack(&mut w, i * MS);
        }
        ack(&mut w, 10 * MS, 5, None);
        // A delayed ACK of 2 segments later in the window counts fully.
        ack(&mut w, 20 * MS, 2, None);
        ack(&mut w, 51 * MS, 1, Some(50 * MS)); // closes the window [0, 51 ms]
        assert_eq!(w.samples(), 1);
        let counted = (1 + 3 + 2 + 2) as f64 * M as f64;
        assert!(
            (w.bandwidth_estimate() - counted / 0.051).abs() < 1e-6,
            "{}",
            w.bandwidth_estimate()
        );
    }

    #[test]
    fn loss_sets_ssthresh_and_cwnd_to_bwe_times_rtt_min() {
        let mut w = ww(WestwoodConfig {
            min_sample_ms: 0.0,
            filter: WestwoodFilter::None,
        });
        // 1448 kB/s measured; RTTmin 40 ms (later samples are larger: a queue builds).
        let mut t = 0;
        for i in 0..300 {
            let rtt = if i < 10 { 40 * MS } else { 60 * MS };
            ack(&mut w, t, 1, Some(rtt));
            t += MS;
        }
        assert_eq!(w.rtt_min(), 40 * MS);
        let bwe = w.bandwidth_estimate();
        assert!((bwe - 1448e3).abs() / 1448e3 < 0.02, "{bwe}");
        let expect = ((bwe * 0.040 / M as f64).floor() as u64) * M;
        w.on_congestion_event(&LossEvent {
            now: t,
            bytes_in_flight: 100 * M,
            mss: MSS,
        });
        assert_eq!(w.ssthresh(), expect);
        assert_eq!(w.cwnd(), expect, "≈ 40 segments, not Reno's 50");
        assert!(expect >= 39 * M && expect <= 40 * M);
        // No growth during recovery; the end of recovery recomputes BWE·RTTmin.
        ack(&mut w, t + MS, 1, None);
        let mut ev = AckEvent {
            now: t + 2 * MS,
            acked_bytes: M,
            prior_in_flight: 100 * M,
            in_recovery: true,
            mss: MSS,
            ..Default::default()
        };
        w.on_ack(&ev);
        ev.now += MS;
        w.on_ack(&ev);
        w.on_recovery_end(t + 3 * MS);
        assert_eq!(w.cwnd(), w.bw_rttmin());
        assert_eq!(w.ssthresh(), w.cwnd());
        // Timeout: cwnd = 1 MSS, ssthresh = BWE·RTTmin, RTTmin restarts from the next sample.
        let before = w.bw_rttmin();
        w.on_timeout(t + 10 * MS, 40 * M, MSS);
        assert_eq!((w.cwnd(), w.ssthresh()), (M, before));
        ack(&mut w, t + 500 * MS, 1, Some(80 * MS));
        assert_eq!(w.rtt_min(), 80 * MS);
    }

    #[test]
    fn ssthresh_is_at_least_two_segments_before_any_estimate() {
        let mut w = ww(WestwoodConfig::default());
        w.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: 10 * M,
            mss: MSS,
        });
        assert_eq!((w.ssthresh(), w.cwnd()), (2 * M, 2 * M));
        let mut w = ww(WestwoodConfig::default());
        w.on_timeout(0, 10 * M, MSS);
        assert_eq!((w.ssthresh(), w.cwnd()), (2 * M, M));
    }

    #[test]
    fn reno_growth_only_when_window_limited() {
        let mut w = ww(WestwoodConfig::default());
        // Slow start: +1 segment per acknowledged segment.
        ack(&mut w, 0, 2, Some(10 * MS));
        assert_eq!(w.cwnd(), 12 * M);
        // Application-limited: 2 segments in flight against 12.
        w.on_ack(&AckEvent {
            now: MS,
            acked_bytes: M,
            prior_in_flight: 2 * M,
            mss: MSS,
            ..Default::default()
        });
        assert_eq!(w.cwnd(), 12 * M);
        // Congestion avoidance: one MSS per window of acknowledged bytes.
        w.on_congestion_event(&LossEvent {
            now: 0,
            bytes_in_flight: 12 * M,
            mss: MSS,
        });
        w.on_recovery_end(0);
        let c = w.cwnd();
        assert_eq!(c, 2 * M, "no estimate yet: 2 segments");
        for i in 0..2 {
            ack(&mut w, (10 + i) * MS, 1, Some(10 * MS));
        }
        assert_eq!(w.cwnd(), 3 * M);
    }

    #[test]
    fn random_losses_cost_westwood_less_than_reno() {
        // A 100-segment pipe (RTTmin 100 ms, 1448 kB/s) without a standing queue: a random
        // loss at a 100-segment window leaves Westwood+ at ≈ BWE·RTTmin ≈ 100 segments,
        // where Reno would halve to 50.
        let mut w = ww(WestwoodConfig::default());
        let mut t = 0;
        for _ in 0..2000 {
            ack(&mut w, t, 1, Some(100 * MS));
            t += MS;
        }
        w.on_congestion_event(&LossEvent {
            now: t,
            bytes_in_flight: 100 * M,
            mss: MSS,
        });
        let segs = w.cwnd() / M;
        assert!((97..=101).contains(&segs), "{segs}");
    }

    #[test]
    fn config_validation_and_serde() {
        use schemars::_serde_json as json;
        assert!(WestwoodConfig::default().validate().is_ok());
        let e = WestwoodConfig {
            min_sample_ms: -1.0,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("min_sample_ms"), "{e}");
        let cfg: WestwoodConfig = json::from_str(r#"{"filter": "tustin"}"#).unwrap();
        assert_eq!(cfg.filter, WestwoodFilter::Tustin);
        assert!(json::from_str::<WestwoodConfig>(r#"{"filter": "kalman"}"#).is_err());
        assert!(json::from_str::<WestwoodConfig>(r#"{"alpha": 0.9}"#).is_err());
    }
}
