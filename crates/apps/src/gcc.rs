//! Google Congestion Control (GCC), as draft-ietf-rmcat-gcc-02 (Holmer, Lundin, Carlucci,
//! De Cicco, Mascolo, 2016 \[gcc\]) describes it and Carlucci et al. ("Analysis and Design of
//! the Google Congestion Control for Web Real-time Communication", MMSys 2016 \[gcc-mmsys\])
//! analyse it:
//!
//! - at the **receiver**, the delay-based controller: packets are grouped (§5.2
//!   pre-filtering, [`ArrivalGroups`]); each group's inter-group delay variation d(i) feeds
//!   a scalar Kalman filter (§5.3, [`ArrivalFilter`]) whose estimate m(i) an over-use
//!   detector with an adaptive threshold turns into over-use / normal / under-use (§5.4,
//!   [`OveruseDetector`]); an AIMD rate controller (§5.5, [`AimdRateControl`]) moves the
//!   estimate A_r, which goes back to the sender in REMB-like feedback;
//! - at the **sender**, the loss-based controller (§6, [`LossBasedControl`]) moves A_s from
//!   the fraction of packets lost since the last receiver report; the encoder's target is
//!   min(A_s, A_r).
//!
//! Times inside the filter and detector are in milliseconds, as in the draft; rates in bit/s.
//! Table 1 of the draft (§5.6) gives the constants: burst_time 5 ms, q = 10⁻³, e(0) = 0.1,
//! chi in [0.1, 0.001] (we take 0.01), del_var_th(0) = 12.5 ms, overuse_time_th = 10 ms,
//! K_u = 0.01, K_d = 0.00018, T in [0.5, 1] s (we take 0.5 s), beta = 0.85.

use cellshare_core::{Nanos, MS};

/// burst_time, ms (Table 1).
pub const BURST_TIME_MS: f64 = 5.0;
/// q, the state noise variance (Table 1).
pub const Q: f64 = 1e-3;
/// e(0), the initial system error covariance (Table 1).
pub const E0: f64 = 0.1;
/// chi, the measured-noise filter coefficient: **a choice** in Table 1's [0.001, 0.1] (the
/// value WebRTC's estimator uses).
pub const CHI: f64 = 0.01;
/// del_var_th(0), ms (Table 1).
pub const THRESHOLD_INIT_MS: f64 = 12.5;
/// overuse_time_th, ms (Table 1).
pub const OVERUSE_TIME_TH_MS: f64 = 10.0;
/// K_u (Table 1).
pub const K_U: f64 = 0.01;
/// K_d (Table 1).
pub const K_D: f64 = 0.00018;
/// beta, the decrease factor (Table 1).
pub const BETA: f64 = 0.85;
/// T, the window of the received-rate measurement: **a choice**, the low end of Table 1's
/// [0.5, 1] s (the faster reaction).
pub const RATE_WINDOW_MS: u64 = 500;

/// §5.2 pre-filtering: packets become groups. A packet sent within `burst_time` of the
/// group's first packet belongs to the group; so does one that arrives within `burst_time`
/// of the group's last packet with a negative delay variation (a burst released after an
/// outage). A closed group yields d(i) = t(i) − t(i−1) − (T(i) − T(i−1)), with t the
/// arrival and T the send time of each group's last packet (§5.1).
#[derive(Clone, Debug, Default)]
pub struct ArrivalGroups {
    cur: Option<Group>,
    prev: Option<Group>,
}

#[derive(Clone, Copy, Debug)]
struct Group {
    first_send: Nanos,
    last_send: Nanos,
    last_arrival: Nanos,
}

/// A closed group's delay variation d(i), ms, with its send-time and arrival-time deltas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupDelta {
    /// d(i), ms.
    pub d_ms: f64,
    /// T(i) − T(i−1), ms.
    pub send_delta_ms: f64,
    /// t(i), the closed group's last arrival.
    pub arrival: Nanos,
}

impl ArrivalGroups {
    /// A packet sent at `sent` arrived at `arrival`; returns the delta of the group this
    /// packet closed, if any.
    pub fn on_packet(&mut self, sent: Nanos, arrival: Nanos) -> Option<GroupDelta> {
        let burst = (BURST_TIME_MS * MS as f64) as Nanos;
        let Some(cur) = self.cur.as_mut() else {
            self.cur = Some(Group { first_send: sent, last_send: sent, last_arrival: arrival });
            return None;
        };
        if sent.saturating_sub(cur.first_send) <= burst {
            cur.last_send = cur.last_send.max(sent);
            cur.last_arrival = arrival;
            return None;
        }
        let inter_arrival = arrival as i128 - cur.last_arrival as i128;
        let d = inter_arrival - (sent as i128 - cur.last_send as i128);
        if inter_arrival < burst as i128 && d < 0 {
            cur.last_send = sent;
            cur.last_arrival = arrival;
            return None;
        }
        let closed = *cur;
        let out = self.prev.map(|p| GroupDelta {
            d_ms: ((closed.last_arrival as i128 - p.last_arrival as i128) - (closed.last_send as i128 - p.last_send as i128))
                as f64
                / MS as f64,
            send_delta_ms: (closed.last_send - p.last_send) as f64 / MS as f64,
            arrival: closed.last_arrival,
        });
        self.prev = Some(closed);
        self.cur = Some(Group { first_send: sent, last_send: sent, last_arrival: arrival });
        out
    }
}

/// §5.3 arrival-time filter: a scalar Kalman filter of the queuing-delay gradient m(i).
///
/// z(i) = d(i) − m̂(i−1); var_v̂(i) = max(α·var_v̂(i−1) + (1 − α)·z(i)², 1) with z(i) clamped
/// at 3·√var_v̂(i−1) (the draft's outlier filter) and α = (1 − chi)^(30/(1000·f_max)),
/// f_max = max 1/(T(j) − T(j−1)) over the last K = 60 groups (in 1/ms); k(i) = (e(i−1) +
/// q)/(var_v̂(i) + e(i−1) + q); m̂(i) = m̂(i−1) + z(i)·k(i); e(i) = (1 − k(i))·(e(i−1) + q).
#[derive(Clone, Debug)]
pub struct ArrivalFilter {
    m: f64,
    e: f64,
    var_v: f64,
    send_deltas: [f64; 60],
    n: usize,
}

impl Default for ArrivalFilter {
    fn default() -> Self {
        // var_v̂(0): the floor of 1 ms² (the draft gives no initial value; WebRTC starts its
        // noise variance at 50, which the floor-1 update forgets within a few groups).
        Self { m: 0.0, e: E0, var_v: 1.0, send_deltas: [f64::INFINITY; 60], n: 0 }
    }
}

impl ArrivalFilter {
    /// Updates with d(i) (ms) whose groups were sent `send_delta_ms` apart; returns m̂(i), ms.
    pub fn update(&mut self, d_ms: f64, send_delta_ms: f64) -> f64 {
        self.send_deltas[self.n % 60] = send_delta_ms.max(1e-3);
        self.n += 1;
        let min_delta = self.send_deltas.iter().copied().fold(f64::INFINITY, f64::min);
        let f_max = 1.0 / min_delta;
        let alpha = (1.0 - CHI).powf(30.0 / (1000.0 * f_max));
        let z = d_ms - self.m;
        let lim = 3.0 * self.var_v.sqrt();
        let zc = z.clamp(-lim, lim);
        self.var_v = (alpha * self.var_v + (1.0 - alpha) * zc * zc).max(1.0);
        let k = (self.e + Q) / (self.var_v + self.e + Q);
        self.m += z * k;
        self.e = (1.0 - k) * (self.e + Q);
        self.m
    }

    /// m̂, ms.
    pub fn estimate(&self) -> f64 {
        self.m
    }

    /// Groups seen (N).
    pub fn groups(&self) -> usize {
        self.n
    }
}

/// The detector's signal (§5.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Usage {
    /// m(i) > del_var_th for at least overuse_time_th, and not decreasing.
    Overuse,
    /// −del_var_th ≤ m(i) ≤ del_var_th (or over-use not yet definitive).
    Normal,
    /// m(i) < −del_var_th.
    Underuse,
}

/// §5.4 over-use detector with the adaptive threshold
/// del_var_th(i) = del_var_th(i−1) + (t(i) − t(i−1))·K(i)·(|m(i)| − del_var_th(i−1)),
/// K(i) = K_d when |m(i)| < del_var_th(i−1), else K_u; not updated when |m(i)| −
/// del_var_th(i−1) > 15 ms; clamped to [6, 600] ms.
///
/// **What is compared with the threshold**: min(N, 60)·m̂(i), N the groups seen so far, as
/// WebRTC's `OveruseDetector::Detect` of the draft's time does (Carlucci et al. 2016
/// analyse that implementation); Table 1's thresholds (12.5 ms, K_u, K_d) are its values
/// for this product. The draft's text compares m̂(i) itself, which cannot see a sending rate
/// a few percent above the link: m̂ is the delay growth per group (1.7 ms per 33-ms frame at
/// 5 % too much) and the threshold never falls below 6 ms. Measured on a 1 Mbit/s link
/// (the `on_a_slow_link` test's set-up): compared with m̂ itself, over-use was first
/// signalled with the target 25 % above the link and the frame delay reached 6 s within two
/// minutes; with the product the delay stays near the path's.
#[derive(Clone, Debug)]
pub struct OveruseDetector {
    threshold: f64,
    last_update: Option<Nanos>,
    over_since: Option<Nanos>,
    prev_m: f64,
    usage: Usage,
}

impl Default for OveruseDetector {
    fn default() -> Self {
        Self { threshold: THRESHOLD_INIT_MS, last_update: None, over_since: None, prev_m: 0.0, usage: Usage::Normal }
    }
}

impl OveruseDetector {
    /// Detects from m̂(i) (ms) of the `n`-th group, which arrived at `t`; then adapts the
    /// threshold.
    pub fn detect(&mut self, m_hat: f64, n: usize, t: Nanos) -> Usage {
        let m = (n.min(60) as f64) * m_hat;
        let th = self.threshold;
        self.usage = if m > th {
            let since = *self.over_since.get_or_insert(t);
            // "A definitive over-use will be signaled only if over-use has been detected for
            // at least overuse_time_th milliseconds. However, if m(i) < m(i−1), over-use will
            // not be signaled even if all the above conditions are met."
            if (t - since) as f64 / MS as f64 >= OVERUSE_TIME_TH_MS && m >= self.prev_m {
                Usage::Overuse
            } else {
                Usage::Normal
            }
        } else {
            self.over_since = None;
            if m < -th {
                Usage::Underuse
            } else {
                Usage::Normal
            }
        };
        let dt_ms = self.last_update.map_or(0.0, |l| (t.saturating_sub(l)) as f64 / MS as f64);
        self.last_update = Some(t);
        if m.abs() - th <= 15.0 {
            let k = if m.abs() < th { K_D } else { K_U };
            self.threshold = (th + dt_ms * k * (m.abs() - th)).clamp(6.0, 600.0);
        }
        self.prev_m = m;
        self.usage
    }

    /// del_var_th, ms.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }
}

/// The received rate R̂ over the last [`RATE_WINDOW_MS`], from 10 ms bins (a fixed ring:
/// nothing allocated per packet).
#[derive(Clone, Debug)]
pub struct RateWindow {
    bins: [u64; 50],
    /// Index (time / 10 ms) of the newest bin.
    head: u64,
    sum: u64,
    first: Option<Nanos>,
}

impl Default for RateWindow {
    fn default() -> Self {
        Self { bins: [0; 50], head: 0, sum: 0, first: None }
    }
}

const BIN: Nanos = 10 * MS;

impl RateWindow {
    fn roll(&mut self, now: Nanos) {
        let k = now / BIN;
        if k <= self.head {
            return;
        }
        let steps = (k - self.head).min(self.bins.len() as u64);
        for s in 1..=steps {
            let i = ((self.head + s) % self.bins.len() as u64) as usize;
            self.sum -= self.bins[i];
            self.bins[i] = 0;
        }
        self.head = k;
    }

    /// `bytes` arrived at `now`.
    #[inline]
    pub fn add(&mut self, now: Nanos, bytes: u64) {
        self.first.get_or_insert(now);
        self.roll(now);
        let i = (self.head % self.bins.len() as u64) as usize;
        self.bins[i] += bytes;
        self.sum += bytes;
    }

    /// R̂ at `now`, bit/s; `None` until a whole window has been seen.
    pub fn rate(&mut self, now: Nanos) -> Option<f64> {
        let first = self.first?;
        if now < first + RATE_WINDOW_MS * MS {
            return None;
        }
        self.roll(now);
        Some(self.sum as f64 * 8.0 / (RATE_WINDOW_MS as f64 / 1000.0))
    }
}

/// The rate controller's state (§5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateState {
    /// Keep A_r.
    Hold,
    /// Raise A_r.
    Increase,
    /// Cut A_r to beta·R̂.
    Decrease,
}

/// §5.5 AIMD rate controller. State transitions follow the draft's table (over-use: Hold
/// and Increase → Decrease; normal: Hold → Increase, Decrease → Hold; under-use: Increase
/// and Decrease → Hold). In Increase, A_r grows multiplicatively, η = 1.08^min(Δt/1 s, 1),
/// until the received rate R̂ is within three standard deviations of the average of the
/// rates measured at past decreases ("close to convergence"), then additively by
/// max(1000, α·expected packet size in bits) with α = 0.5·min(Δt / (100 ms + RTT), 1), the
/// expected packet size being a 30 fps frame of A_r cut into packets of at most 1200 bytes.
/// A_r stays below 1.5·R̂. Decrease: A_r = beta·R̂.
///
/// The draft does not give how the average and deviation of the rates at decrease are kept:
/// **a choice**, an exponential average with weight 0.05 and a variance normalised by the
/// average, clamped to [0.4, 2.5] kbit/s, as WebRTC's AIMD controller keeps them; when R̂
/// exceeds the average by more than three deviations it is forgotten (the draft: "the
/// congestion level has changed"). The RTT is not measured at the receiver: **a choice**,
/// 200 ms (WebRTC's default before an RTT is known).
#[derive(Clone, Debug)]
pub struct AimdRateControl {
    rate: Option<f64>,
    state: RateState,
    last_change: Nanos,
    avg_max_kbps: Option<f64>,
    var_max: f64,
    rtt_ms: f64,
}

impl Default for AimdRateControl {
    fn default() -> Self {
        Self { rate: None, state: RateState::Hold, last_change: 0, avg_max_kbps: None, var_max: 0.4, rtt_ms: 200.0 }
    }
}

impl AimdRateControl {
    /// Applies signal `usage` at `now` with the received rate `r_hat` (bit/s); returns A_r.
    pub fn update(&mut self, usage: Usage, r_hat: f64, now: Nanos) -> f64 {
        let rate = *self.rate.get_or_insert_with(|| {
            self.last_change = now;
            r_hat
        });
        self.state = match (usage, self.state) {
            (Usage::Overuse, _) => RateState::Decrease,
            (Usage::Normal, RateState::Hold) | (Usage::Normal, RateState::Increase) => RateState::Increase,
            (Usage::Normal, RateState::Decrease) => RateState::Hold,
            (Usage::Underuse, _) => RateState::Hold,
        };
        let dt_ms = now.saturating_sub(self.last_change) as f64 / MS as f64;
        let r_kbps = r_hat / 1000.0;
        let new = match self.state {
            RateState::Hold => rate,
            RateState::Increase => {
                if let Some(avg) = self.avg_max_kbps {
                    if r_kbps > avg + 3.0 * self.std_max(avg) {
                        self.avg_max_kbps = None;
                    }
                }
                let near = self.avg_max_kbps.is_some_and(|avg| (r_kbps - avg).abs() <= 3.0 * self.std_max(avg));
                let grown = if near {
                    let bits_per_frame = rate / 30.0;
                    let packets = (bits_per_frame / (1200.0 * 8.0)).ceil().max(1.0);
                    let alpha = 0.5 * (dt_ms / (100.0 + self.rtt_ms)).min(1.0);
                    rate + (alpha * bits_per_frame / packets).max(1000.0)
                } else {
                    rate * 1.08f64.powf((dt_ms / 1000.0).min(1.0))
                };
                // "A_hat(i) < 1.5 * R_hat(i)": the cap stops an increase, it never cuts A_r.
                if r_hat > 0.0 && grown > 1.5 * r_hat {
                    rate.max(1.5 * r_hat).min(grown)
                } else {
                    grown
                }
            }
            RateState::Decrease => {
                self.update_max(r_kbps);
                BETA * r_hat
            }
        };
        self.rate = Some(new);
        self.last_change = now;
        new
    }

    fn std_max(&self, avg: f64) -> f64 {
        (self.var_max * avg).sqrt()
    }

    fn update_max(&mut self, r_kbps: f64) {
        const W: f64 = 0.05;
        let avg = match self.avg_max_kbps {
            None => r_kbps,
            Some(a) => (1.0 - W) * a + W * r_kbps,
        };
        let norm = avg.max(1.0);
        self.var_max = ((1.0 - W) * self.var_max + W * (avg - r_kbps).powi(2) / norm).clamp(0.4, 2.5);
        self.avg_max_kbps = Some(avg);
    }

    /// A_r, bit/s (`None` before the first update).
    pub fn rate(&self) -> Option<f64> {
        self.rate
    }

    /// The controller's state.
    pub fn state(&self) -> RateState {
        self.state
    }
}

/// §6 loss-based controller at the sender, run on each receiver report carrying the
/// fraction p of packets lost since the previous one: p > 10 %: A_s ← A_s·(1 − 0.5·p);
/// p < 2 %: A_s ← 1.05·A_s; otherwise unchanged. A_s never exceeds A_r (when known) nor
/// the encoder's `[min, max]`.
#[derive(Clone, Debug)]
pub struct LossBasedControl {
    rate: f64,
    min: f64,
    max: f64,
}

impl LossBasedControl {
    /// Starts at `start` bit/s, kept within `[min, max]`.
    pub fn new(start: f64, min: f64, max: f64) -> Self {
        Self { rate: start.clamp(min, max), min, max }
    }

    /// A report with loss fraction `p` and the receiver's estimate `a_r` (bit/s, if any).
    pub fn on_report(&mut self, p: f64, a_r: Option<f64>) -> f64 {
        if p > 0.1 {
            self.rate *= 1.0 - 0.5 * p;
        } else if p < 0.02 {
            self.rate *= 1.05;
        }
        if let Some(a) = a_r {
            self.rate = self.rate.min(a);
        }
        self.rate = self.rate.clamp(self.min, self.max);
        self.rate
    }

    /// A_s, bit/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_frames_and_yield_delay_variation() {
        let mut g = ArrivalGroups::default();
        // Frame 0 (3 packets sent at 0) arrives at 20, 21, 22 ms; frame 1 sent at 33 ms
        // arrives at 60, 61 ms (6 ms more delay): d = (61 − 22) − 33 = 6 ms, known when
        // frame 2's first packet arrives.
        assert_eq!(g.on_packet(0, 20 * MS), None);
        assert_eq!(g.on_packet(0, 21 * MS), None);
        assert_eq!(g.on_packet(0, 22 * MS), None);
        assert_eq!(g.on_packet(33 * MS, 60 * MS), None, "closes frame 0, which has no predecessor");
        assert_eq!(g.on_packet(33 * MS, 61 * MS), None);
        let d = g.on_packet(66 * MS, 90 * MS).expect("closes frame 1");
        assert!((d.d_ms - 6.0).abs() < 1e-9 && (d.send_delta_ms - 33.0).abs() < 1e-9, "{d:?}");
        assert_eq!(d.arrival, 61 * MS);
        let d = g.on_packet(100 * MS, 130 * MS).expect("closes frame 2");
        assert!((d.d_ms - ((90.0 - 61.0) - (66.0 - 33.0))).abs() < 1e-9, "{d:?}");
    }

    #[test]
    fn a_burst_after_an_outage_merges_into_one_group() {
        let mut g = ArrivalGroups::default();
        g.on_packet(0, 10 * MS);
        // Frames sent 33 ms apart, held by an outage and released together 1 ms apart:
        // each arrives within burst_time with a negative delay variation: one group.
        assert_eq!(g.on_packet(33 * MS, 200 * MS), None);
        assert_eq!(g.on_packet(66 * MS, 201 * MS), None);
        assert_eq!(g.on_packet(99 * MS, 202 * MS), None);
        // The next frame closes the merged group (last sent 99, last arrival 202).
        let d = g.on_packet(300 * MS, 320 * MS).unwrap();
        assert!((d.d_ms - ((202.0 - 10.0) - 99.0)).abs() < 1e-9, "{d:?}");
        let d = g.on_packet(333 * MS, 353 * MS).unwrap();
        assert!((d.d_ms - ((320.0 - 202.0) - (300.0 - 99.0))).abs() < 1e-9, "{d:?}");
    }

    #[test]
    fn kalman_follows_a_steady_gradient_and_the_detector_signals_overuse() {
        let mut f = ArrivalFilter::default();
        let mut det = OveruseDetector::default();
        let mut t = 0;
        let mut step = |f: &mut ArrivalFilter, det: &mut OveruseDetector, d: f64| {
            t += 33 * MS;
            let m = f.update(d, 33.0);
            det.detect(m, f.groups(), t)
        };
        // Jitter of ±1 ms around no growth: normal.
        for k in 0..100 {
            assert_eq!(step(&mut f, &mut det, if k % 2 == 0 { 1.0 } else { -1.0 }), Usage::Normal);
        }
        // A queue growing by 1.7 ms per frame (sending 5 % above the link): over-use within
        // a second.
        let first = (0..60).position(|_| step(&mut f, &mut det, 1.7) == Usage::Overuse);
        assert!(first.is_some_and(|k| k < 30), "{first:?}, m = {}", f.estimate());
        // Draining at 5 ms per frame: under-use within a second.
        let first = (0..60).position(|_| step(&mut f, &mut det, -5.0) == Usage::Underuse);
        assert!(first.is_some_and(|k| k < 30), "{first:?}");
        // No gradient: normal, and the threshold decays slowly towards |m| (K_d).
        let th = det.threshold();
        let mut usage = Usage::Overuse;
        for _ in 0..300 {
            usage = step(&mut f, &mut det, 0.0);
        }
        assert_eq!(usage, Usage::Normal);
        assert!(det.threshold() < th && det.threshold() >= 6.0, "{} -> {}", th, det.threshold());
    }

    #[test]
    fn one_noisy_group_is_not_a_definitive_overuse() {
        let mut det = OveruseDetector::default();
        assert_eq!(det.detect(0.0, 60, 0), Usage::Normal);
        // Above the threshold (60·0.33 = 20 ms > 12.5) for the first time: not yet
        // overuse_time_th long.
        assert_eq!(det.detect(0.33, 60, 33 * MS), Usage::Normal);
        // Still above 33 ms later and not decreasing: over-use.
        assert_eq!(det.detect(0.35, 60, 66 * MS), Usage::Overuse);
        // Above but decreasing: not signalled.
        assert_eq!(det.detect(0.34, 60, 99 * MS), Usage::Normal);
        // Early on the estimate counts for less: 2 groups × 0.5 ms = 1 ms.
        let mut det = OveruseDetector::default();
        assert_eq!(det.detect(0.5, 2, 0), Usage::Normal);
        assert_eq!(det.detect(0.5, 2, 33 * MS), Usage::Normal);
    }

    #[test]
    fn aimd_decreases_to_beta_times_received_and_grows_at_most_8_percent_a_second() {
        let mut c = AimdRateControl::default();
        let r = c.update(Usage::Normal, 1e6, 0);
        assert_eq!(r, 1e6);
        // One second of normal signals at 30 Hz: multiplicative increase, 1.08 per second,
        // held below 1.5·R̂.
        let mut t = 0;
        for _ in 0..30 {
            t += 33_333_333;
            c.update(Usage::Normal, 1e6, t);
        }
        let grown = c.rate().unwrap();
        assert!((grown / 1e6 - 1.08).abs() < 0.01, "{grown}");
        for _ in 0..300 {
            t += 33_333_333;
            c.update(Usage::Normal, 1e6, t);
        }
        assert!((c.rate().unwrap() - 1.5e6).abs() < 1.0, "capped at 1.5·R̂: {}", c.rate().unwrap());
        let r = c.update(Usage::Overuse, 0.6e6, t + MS);
        assert!((r - 0.85 * 0.6e6).abs() < 1e-6);
        assert_eq!(c.state(), RateState::Decrease);
        c.update(Usage::Normal, 0.6e6, t + 2 * MS);
        assert_eq!(c.state(), RateState::Hold);
        c.update(Usage::Underuse, 0.6e6, t + 3 * MS);
        assert_eq!(c.state(), RateState::Hold);
        // Near the rate of the last decrease the increase is additive: about 1 kbit/s per
        // update (max(1000, α·packet bits)), far below 8 %/s.
        let before = c.rate().unwrap();
        let mut tt = t + 3 * MS;
        for _ in 0..30 {
            tt += 33_333_333;
            c.update(Usage::Normal, 0.6e6, tt);
        }
        let after = c.rate().unwrap();
        assert!(after > before && after - before < 0.08 * before, "{before} -> {after}");
    }

    #[test]
    fn loss_based_rules() {
        let mut l = LossBasedControl::new(300e3, 30e3, 2.5e6);
        assert!((l.on_report(0.0, None) - 315e3).abs() < 1e-6);
        assert!((l.on_report(0.05, None) - 315e3).abs() < 1e-6);
        assert!((l.on_report(0.2, None) - 315e3 * 0.9).abs() < 1e-6);
        assert!((l.on_report(0.0, Some(100e3)) - 100e3).abs() < 1e-6, "never above A_r");
        assert!((l.on_report(1.0, None) - 50e3).abs() < 1e-6);
        for _ in 0..10 {
            l.on_report(1.0, None);
        }
        assert_eq!(l.rate(), 30e3, "kept at the minimum");
    }

    #[test]
    fn rate_window_measures_the_last_half_second() {
        let mut w = RateWindow::default();
        for k in 0..1000u64 {
            w.add(k * MS, 125); // 1 Mbit/s
        }
        let r = w.rate(1000 * MS).unwrap();
        assert!((r - 1e6).abs() / 1e6 < 0.03, "{r}");
        assert_eq!(RateWindow::default().rate(0), None);
        // Nothing for a second: zero.
        assert_eq!(w.rate(2000 * MS), Some(0.0));
    }
}
