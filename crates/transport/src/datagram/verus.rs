//! Verus: Y. Zaki, T. Pötsch, J. Chen, L. Subramanian, C. Görg, "Adaptive Congestion
//! Control for Unpredictable Cellular Networks", SIGCOMM 2015 \[verus\] (cited as *\[Verus §n\]*),
//! with what the paper leaves open taken from the authors' code, `yzaki/verus`
//! (`src/verus_server.cpp`, the sender; `src/verus_client.cpp`, the receiver; constants in
//! `src/verus.hpp`; cited as *code*).
//!
//! Verus learns a **delay profile** — the relation between its window W (packets in
//! flight) and the end-to-end delay D — from the (W, delay) pairs its acknowledgements
//! report, and each **epoch** (ε = 5 ms) moves a delay target D_est and sends what the
//! profile says that target allows \[Verus §3\]:
//!
//! ```text
//! D_max,i   = the largest delay measured in epoch i                      [§3.1]
//! ΔD        = D_max,i − D_max,i−1                                         [§3.1]
//! if D_max,i−1 / D_min > R:  D_est ← max(D_min, D_est − δ2)               [§3.2, Eq. 1]
//! elif ΔD > 0:              D_est ← max(D_min, D_est − δ1)
//! else:                     D_est ← D_est + δ2
//! W_{i+1} = f⁻¹(D_est)   (the delay profile, inverted)                    [§3.3]
//! S_{i+1} = max(0, W_{i+1} + W_i · (2 − n)/(n − 1)),  n = ⌈D / ε⌉          [§3.4, Eq. 2]
//! ```
//!
//! with R = 6, δ1 = 1 ms, δ2 = 2 ms (code `VERUS_R`, `DELTA1`, `DELTA2`). The profile is
//! refitted every second (code `CURVE_TIMER`) from the running averages (EWMA, weight 7/8
//! on the old value) of the delays seen at each W. Loss \[Verus §3.5\]: a packet missing for
//! 150 ms (code `MISSING_PKT_EXPIRY`) is lost; W becomes M·W_loss (M = 0.7, W_loss the window
//! the lost packet was sent under), then grows by 1/W per acknowledgement until packets
//! sent under the new window come back (the loss phase, during which the profile is not
//! updated). Slow start \[Verus §3.6\]: W grows by one per acknowledgement until a loss or a
//! delay above 500 ms (code `SS_EXIT_THRESHOLD`). Verus does not retransmit (it carries
//! UDP datagrams); its receiver echoes every packet (code `verus_client.cpp`).
//!
//! Choices where the paper and the code are silent or differ (each tested):
//! - **The profile fit**: code fits ALGLIB's penalized cubic regression spline
//!   (`spline1dfitpenalized`, M = max W / N basis functions with N from 15 down until
//!   M ≥ 5, ρ = 2). Ours is a P-spline (Eilers & Marx 1996 \[eilers-marx\]) on the same M equidistant cubic
//!   B-spline basis functions with a second-difference penalty λ = 10^(ρ−2)·n/M (n: the
//!   points fitted), our reading of ALGLIB's "ρ = 2: a moderate amount of nonlinearity"
//!   with its automatic scaling; it is extrapolated past the data by the last cubic piece,
//!   as ALGLIB's spline is. Before the first fit, the raw averages are inverted (code).
//! - **Inverting the profile**: f⁻¹(D) is the first W ≥ 2 whose profile delay exceeds D,
//!   minus one (code `calcDelayCurve`), found by a binary search over the profile's running
//!   maximum on a table refreshed with each fit (the same answer as the code's linear scan).
//!   Without a fit and no W ≥ 2 measured yet, the code loops forever; ours restarts slow
//!   start, as the code does when the spline cannot map D.
//! - **Delay** is the round-trip time of each packet (code: the echo's arrival minus the
//!   packet's send time), in ms, taken from the send time the packet's header carries and
//!   its echo returns (code `udp_packet_t`'s seconds and microseconds; ours: microseconds in
//!   a wrapping 32-bit word, exact for delays under 71 minutes). Every echo is processed
//!   from its own contents, as in the code's `receiver_thread`, whether or not its send
//!   record is still kept: a delay sample, the timer re-armed, the loss phase left on the
//!   first echo with w ≤ W, however late it comes after a timeout forgot its packet.
//! - **The header words**: the send time (µs, wrapping) and, in the second, the window w
//!   (20 bits, saturating at 1,048,575 packets, past the profile's 40,000) and the low 12
//!   bits of the slow-start session. An echo from another session is dropped (code: from
//!   an earlier one; no later one can exist, so the 12 bits only confuse a packet still in
//!   flight 4,096 restarts later, each at least a round trip apart).
//! - **Timeouts** (code `TimeoutHandler`): with no echo for min(1000, max(150, 5·delay)) ms
//!   (1000 ms before the first), Verus restarts slow start if nothing was ever echoed,
//!   leaves slow start if in it, and otherwise forgets its packets in flight and enters the
//!   loss phase with D_est = D_min.
//! - The code's escape when D_est is pinned at D_min with fewer than 2 packets in flight
//!   (D_min += 10 ms) and its "send nothing this epoch" when pinned with more are kept.
//! - An application with nothing to send accrues no sending credit.

use std::collections::VecDeque;

use cellshare_core::{Nanos, MS};

use super::{Datagram, DatagramReceiver, DatagramSender, Feedback, SenderStats, TransportTrace};

/// Bytes of Verus's own header in each datagram (code `udp_packet_t`, packed: a 4-byte
/// session id, the 8-byte sequence number, window, seconds and microseconds).
pub const HEADER_BYTES: u32 = 36;
/// Bytes of an echo on the wire: IP/UDP (28) and the echoed header (36).
pub const FEEDBACK_BYTES: u32 = 64;
/// Largest window the profile covers, packets (code `MAX_W_DELAY_CURVE`).
const MAX_W: usize = 40_000;
/// code: D_max before the first epoch (a sentinel).
const UNSET: f64 = -10.0;
/// Windows the profile's table of spline values grows to at most when an epoch's search
/// runs past it (the spline is evaluated beyond it as before).
const TABLE_CAP: usize = 4096;
/// Bits of the window in the second header word (the rest: the session's low bits).
const W_BITS: u32 = 20;
const W_MASK: u32 = (1 << W_BITS) - 1;
const SS_MASK: u32 = u32::MAX >> W_BITS;

/// The header's send-time word: `t` in µs, wrapping (code: seconds and microseconds).
#[inline]
fn wire_time(t: Nanos) -> u32 {
    (t / 1000) as u32
}

/// Parameters of Verus (`transport = { kind = "verus", ... }`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct VerusConfig {
    /// Epoch ε, ms. Default 5 (\[Verus §3\]; code `EPOCH`).
    pub epoch_ms: f64,
    /// δ1: decrease of the delay target when the delay grows, ms. Default 1 (code `DELTA1`).
    pub delta1_ms: f64,
    /// δ2: increase of the delay target when it does not (and its decrease when the delay
    /// exceeds R·D_min), ms. Default 2 (code `DELTA2`).
    pub delta2_ms: f64,
    /// R: the largest ratio of delay to minimum delay tolerated. Default 6 (code `VERUS_R`).
    pub ratio: f64,
    /// M: multiplicative decrease of the window on a loss. Default 0.7 (code `VERUS_M_DECREASE`).
    pub multiplicative_decrease: f64,
    /// How often the delay profile is refitted, ms. Default 1000 (code `CURVE_TIMER`).
    pub profile_update_ms: f64,
    /// Slow start ends when a delay exceeds this, ms. Default 500 (code `SS_EXIT_THRESHOLD`).
    pub slow_start_exit_ms: f64,
    /// A missing packet is declared lost after this long, ms. Default 150 (code
    /// `MISSING_PKT_EXPIRY`).
    pub loss_timeout_ms: f64,
    /// Payload bytes per datagram (the 1450-byte datagrams of the code less its 36-byte
    /// header). Default 1414.
    pub packet_bytes: u32,
}

impl Default for VerusConfig {
    fn default() -> Self {
        Self {
            epoch_ms: 5.0,
            delta1_ms: 1.0,
            delta2_ms: 2.0,
            ratio: 6.0,
            multiplicative_decrease: 0.7,
            profile_update_ms: 1000.0,
            slow_start_exit_ms: 500.0,
            loss_timeout_ms: 150.0,
            packet_bytes: 1414,
        }
    }
}

impl VerusConfig {
    /// Checks the parameters; on error returns (key, value, expectation).
    pub fn validate(&self) -> Result<(), (String, String, String)> {
        let err = |k: &str, v: f64, e: &str| Err((k.to_string(), v.to_string(), e.to_string()));
        if !(self.epoch_ms >= 0.1 && self.epoch_ms <= 1000.0) {
            return err("epoch_ms", self.epoch_ms, "an epoch in ms in [0.1, 1000]");
        }
        if !(self.delta1_ms > 0.0 && self.delta1_ms <= 1000.0) {
            return err("delta1_ms", self.delta1_ms, "a step in ms in (0, 1000]");
        }
        if !(self.delta2_ms > 0.0 && self.delta2_ms <= 1000.0) {
            return err("delta2_ms", self.delta2_ms, "a step in ms in (0, 1000]");
        }
        if !(self.ratio > 1.0 && self.ratio <= 1000.0) {
            return err("ratio", self.ratio, "a ratio in (1, 1000]");
        }
        if !(self.multiplicative_decrease > 0.0 && self.multiplicative_decrease < 1.0) {
            return err(
                "multiplicative_decrease",
                self.multiplicative_decrease,
                "a factor in (0, 1)",
            );
        }
        if !(self.profile_update_ms >= 10.0 && self.profile_update_ms <= 60_000.0) {
            return err(
                "profile_update_ms",
                self.profile_update_ms,
                "an interval in ms in [10, 60000]",
            );
        }
        if !(self.slow_start_exit_ms > 0.0 && self.slow_start_exit_ms <= 60_000.0) {
            return err(
                "slow_start_exit_ms",
                self.slow_start_exit_ms,
                "a delay in ms in (0, 60000]",
            );
        }
        if !(self.loss_timeout_ms > 0.0 && self.loss_timeout_ms <= 60_000.0) {
            return err(
                "loss_timeout_ms",
                self.loss_timeout_ms,
                "a time in ms in (0, 60000]",
            );
        }
        if !(1..=65_000).contains(&self.packet_bytes) {
            return Err((
                "packet_bytes".into(),
                self.packet_bytes.to_string(),
                "a payload size in 1..=65000 bytes".into(),
            ));
        }
        Ok(())
    }
}

fn ns(ms: f64) -> Nanos {
    round_to_u64(ms * MS as f64)
}

/// `x.round() as u64` without a libm call (x86-64's baseline has no rounding instruction):
/// below 2^52 the fraction `x − trunc(x)` is exact, so rounding half away from zero is
/// `trunc(x) + (fraction >= 0.5)`; from 2^52 on x is whole; a negative or NaN x gives 0,
/// as the saturating cast of its rounding does.
#[inline]
fn round_to_u64(x: f64) -> u64 {
    if x >= 0.0 && x < 4_503_599_627_370_496.0 {
        let t = x as u64;
        t + (x - t as f64 >= 0.5) as u64
    } else {
        x as u64
    }
}

/// `x.ceil() as i64` without a libm call: below 2^52 in magnitude the truncation `t` is
/// exact and the ceiling is t, or t + 1 when x is above it; from 2^52 on x is whole; NaN
/// gives 0, as the saturating cast does.
#[inline]
fn ceil_to_i64(x: f64) -> i64 {
    if x.abs() < 4_503_599_627_370_496.0 {
        let t = x as i64;
        t + ((t as f64) < x) as i64
    } else {
        x as i64
    }
}

/// `(u.floor().max(0.0) as usize).min(last)`, the B-spline interval of `u`, without a libm
/// call: for u >= 0 truncation is the floor; a negative or NaN u gives 0 either way.
#[inline]
fn interval_of(u: f64, last: usize) -> usize {
    (u as usize).min(last)
}

fn ms_of(t: Nanos) -> f64 {
    t as f64 / MS as f64
}

/// code `ewma(vals, delay, alpha)`: the old value weighs `alpha`; a negative old value
/// (unset) is replaced.
fn ewma(old: f64, new: f64, alpha: f64) -> f64 {
    if old < 0.0 {
        new
    } else {
        old * alpha + (1.0 - alpha) * new
    }
}

// ---------------------------------------------------------------------------------------
// The delay profile.

/// A cubic P-spline fitted to (W, delay) points: M B-spline coefficients on equidistant
/// knots over [a, b].
#[derive(Clone, Debug, Default)]
struct Spline {
    a: f64,
    h: f64,
    intervals: usize,
    coef: Vec<f64>,
}

impl Spline {
    /// Value at `x` (the first or last cubic piece continued outside [a, b]).
    fn eval(&self, x: f64) -> f64 {
        let u = (x - self.a) / self.h;
        let i = interval_of(u, self.intervals - 1);
        let t = u - i as f64;
        let (t2, t3) = (t * t, t * t * t);
        let omt = 1.0 - t;
        let b = [
            omt * omt * omt / 6.0,
            (3.0 * t3 - 6.0 * t2 + 4.0) / 6.0,
            (-3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0) / 6.0,
            t3 / 6.0,
        ];
        (0..4).map(|k| b[k] * self.coef[i + k]).sum()
    }

    /// Fits `m` cubic B-splines to (xs, ys) with the second-difference penalty `lambda`
    /// (normal equations, banded Cholesky). None if the system is singular.
    fn fit(xs: &[f64], ys: &[f64], m: usize, lambda: f64) -> Option<Self> {
        let (a, b) = (xs[0], *xs.last()?);
        if m < 4 || b <= a {
            return None;
        }
        let intervals = m - 3;
        let h = (b - a) / intervals as f64;
        // Upper band of the symmetric matrix: ata[j][d] = A[j][j + d], d = 0..=3.
        let mut ata = vec![[0.0f64; 4]; m];
        let mut aty = vec![0.0f64; m];
        for (&x, &y) in xs.iter().zip(ys) {
            let u = (x - a) / h;
            let i = interval_of(u, intervals - 1);
            let t = u - i as f64;
            let (t2, t3) = (t * t, t * t * t);
            let omt = 1.0 - t;
            let bs = [
                omt * omt * omt / 6.0,
                (3.0 * t3 - 6.0 * t2 + 4.0) / 6.0,
                (-3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0) / 6.0,
                t3 / 6.0,
            ];
            for p in 0..4 {
                aty[i + p] += bs[p] * y;
                for q in p..4 {
                    ata[i + p][q - p] += bs[p] * bs[q];
                }
            }
        }
        // λ·DᵀD, D the second differences (rows (1, −2, 1)).
        for r in 0..m - 2 {
            let d = [1.0, -2.0, 1.0];
            for p in 0..3 {
                for q in p..3 {
                    ata[r + p][q - p] += lambda * d[p] * d[q];
                }
            }
        }
        // Banded Cholesky A = LLᵀ (L lower, stored as l[j][d] = L[j][j − d]).
        let mut l = vec![[0.0f64; 4]; m];
        for j in 0..m {
            let mut s = ata[j][0];
            for d in 1..4.min(j + 1) {
                s -= l[j][d] * l[j][d];
            }
            if s <= 0.0 || !s.is_finite() {
                return None;
            }
            let ljj = s.sqrt();
            l[j][0] = ljj;
            for d in 1..4 {
                let i = j + d;
                if i >= m {
                    break;
                }
                // L[i][j] = (A[j][i] − Σ_k L[i][k] L[j][k]) / L[j][j], k < j within the band.
                let mut s = ata[j][d];
                for k in (i.saturating_sub(3))..j {
                    s -= l[i][i - k] * l[j][j - k];
                }
                l[i][d] = s / ljj;
            }
        }
        // Solve L z = aty, then Lᵀ c = z.
        let mut z = aty;
        for i in 0..m {
            let mut s = z[i];
            for d in 1..4.min(i + 1) {
                s -= l[i][d] * z[i - d];
            }
            z[i] = s / l[i][0];
        }
        for i in (0..m).rev() {
            let mut s = z[i];
            for d in 1..4 {
                if i + d < m {
                    s -= l[i + d][d] * z[i + d];
                }
            }
            z[i] = s / l[i][0];
        }
        Some(Self {
            a,
            h,
            intervals,
            coef: z,
        })
    }
}

/// The delay profile: the averages per window and, once fitted, the spline with a table of
/// its running maximum for inversion.
#[derive(Clone, Debug, Default)]
struct Profile {
    /// Average delay (ms) at each window, −1 where none (code `wList`).
    w_list: Vec<f64>,
    spline: Option<Spline>,
    /// The spline at W = 0, 1, 2, … (index W) up to the table's end (twice the data, and
    /// as far as `window_for` searched past that, up to [`TABLE_CAP`]).
    table: Vec<f64>,
    /// Running maximum of `table` from W = 2 on (index W).
    run_max: Vec<f64>,
}

impl Profile {
    fn reset(&mut self) {
        self.w_list.iter_mut().for_each(|x| *x = -1.0);
        self.spline = None;
        self.table.clear();
        self.run_max.clear();
    }

    fn record(&mut self, w: usize, delay: f64) {
        let w = w.min(MAX_W - 1);
        if self.w_list.len() <= w {
            self.w_list.resize(w + 1, -1.0);
        }
        self.w_list[w] = ewma(self.w_list[w], delay, 0.875);
    }

    /// code `delayProfile_thread`: refits from the points below `curve_stop` (forgetting
    /// those above). Returns false when there are too few windows (code restarts slow start).
    fn refit(&mut self, curve_stop: usize) -> bool {
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for (i, v) in self.w_list.iter_mut().enumerate().skip(1) {
            if *v >= 0.0 {
                if i < curve_stop {
                    xs.push(i as f64);
                    ys.push(*v);
                } else {
                    *v = -1.0;
                }
            }
        }
        let max_i = xs.last().copied().unwrap_or(1.0);
        let mut n_div = 15.0;
        while max_i / n_div < 5.0 {
            n_div -= 1.0;
            if n_div < 1.0 {
                return false;
            }
        }
        if max_i / n_div > 4.0 {
            let m = (max_i / n_div) as usize;
            let lambda = xs.len() as f64 / m as f64;
            if let Some(s) = Spline::fit(&xs, &ys, m, lambda) {
                // Table out to twice the data (at least 100 windows beyond it).
                let end = ((2.0 * max_i) as usize)
                    .max(max_i as usize + 100)
                    .min(MAX_W - 1);
                self.table.clear();
                self.table.extend((0..=end).map(|w| s.eval(w as f64)));
                self.run_max.clear();
                let mut mx = f64::NEG_INFINITY;
                for (w, &v) in self.table.iter().enumerate() {
                    if w >= 2 {
                        mx = mx.max(v);
                    }
                    self.run_max.push(mx);
                }
                self.spline = Some(s);
            }
        }
        true
    }

    /// code `calcDelayCurve`: the window for delay target `d`, or None when the profile
    /// cannot map it.
    fn window_for(&mut self, mut d: f64, delta2: f64) -> Option<f64> {
        match &self.spline {
            Some(s) => {
                let idx = self.run_max.partition_point(|&v| v <= d);
                if idx < self.run_max.len() {
                    return Some((idx.max(2) - 1) as f64);
                }
                // Past the table: the code keeps scanning the spline. The values scanned
                // join the table (up to TABLE_CAP windows), so a later epoch finds them by
                // the search above: no value in the table exceeds d, so the first window
                // past it whose value does is also the first whose running maximum does.
                let mut mx = self.run_max.last().copied().unwrap_or(f64::NEG_INFINITY);
                let from = self.run_max.len().max(2);
                for w in from..MAX_W {
                    let v = s.eval(w as f64);
                    if w == self.table.len() && w < TABLE_CAP {
                        mx = mx.max(v);
                        self.table.push(v);
                        self.run_max.push(mx);
                    }
                    if v > d {
                        return Some((w - 1) as f64);
                    }
                }
                None
            }
            None => {
                if !self.w_list.iter().skip(2).any(|&v| v >= 0.0) {
                    return None;
                }
                loop {
                    if let Some(w) = self
                        .w_list
                        .iter()
                        .enumerate()
                        .skip(2)
                        .find(|(_, &v)| v > d)
                        .map(|(w, _)| w)
                    {
                        return Some((w - 1) as f64);
                    }
                    d -= delta2;
                }
            }
        }
    }

    /// code `calcDelayCurveInv`: the profile's delay at window `w`.
    fn delay_at(&self, w: f64) -> f64 {
        match &self.spline {
            Some(s) => {
                let i = w as usize;
                if i < self.table.len() && w == i as f64 {
                    self.table[i]
                } else {
                    s.eval(w)
                }
            }
            None => self.w_list.get(w as usize).copied().unwrap_or(-1.0),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The sender.

/// What happened to a packet sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    InFlight,
    /// Echoed, or forgotten (expired, or cleared by a timeout or by leaving slow start).
    Done,
    /// Seen missing (a later packet was echoed) at this time.
    Missing(Nanos),
}

#[derive(Clone, Copy, Debug)]
struct Sent {
    w: u32,
    at: Nanos,
    fate: Fate,
}

impl Sent {
    /// Marks the packet done, keeping `missing` (the count of `Missing` records) right.
    fn set_done(&mut self, missing: &mut usize) {
        if matches!(self.fate, Fate::Missing(_)) {
            *missing -= 1;
        }
        self.fate = Fate::Done;
    }
}

/// Verus's sender (code `verus_server.cpp`).
#[derive(Debug)]
pub struct VerusSender {
    epoch: Nanos,
    delta1: f64,
    delta2: f64,
    ratio: f64,
    m_decrease: f64,
    profile_every: Nanos,
    ss_exit: f64,
    loss_timeout: Nanos,
    packet_bytes: u32,
    // code globals
    d_est: f64,
    d_min: f64,
    d_max_last: f64,
    d_t_bar: f64,
    w_bar: f64,
    w_crt: i64,
    slow_start: bool,
    exit_slow_start: bool,
    loss_phase: bool,
    have_profile_points: bool,
    curve_stop: usize,
    /// Largest delay echoed in this epoch (ms), and whether any.
    epoch_max: f64,
    epoch_any: bool,
    /// The latest delay (ms).
    delay: f64,
    profile: Profile,
    /// Packets sent, by sequence number − `base` (sequence numbers start at 1 per session).
    sent: VecDeque<Sent>,
    /// How many of `sent` are `Missing` (so an epoch with none skips the scan for expired
    /// ones, and a scan stops after the last).
    missing: usize,
    base: u64,
    /// Highest sequence number sent, and the last in-order one echoed (code `seqLast`).
    pkt_seq: u64,
    seq_last: u64,
    ss_id: u32,
    /// Packets allowed now (code `tempS`).
    credit: u64,
    last_ack: Nanos,
    timeout_at: Nanos,
    next_epoch: Nanos,
    next_fit: Option<Nanos>,
    app_left: u64,
    started: bool,
    stats: SenderStats,
}

impl VerusSender {
    /// A sender for `cfg`.
    pub fn new(cfg: &VerusConfig) -> Self {
        Self {
            epoch: ns(cfg.epoch_ms),
            delta1: cfg.delta1_ms,
            delta2: cfg.delta2_ms,
            ratio: cfg.ratio,
            m_decrease: cfg.multiplicative_decrease,
            profile_every: ns(cfg.profile_update_ms),
            ss_exit: cfg.slow_start_exit_ms,
            loss_timeout: ns(cfg.loss_timeout_ms),
            packet_bytes: cfg.packet_bytes,
            d_est: 0.0,
            d_min: 1000.0,
            d_max_last: UNSET,
            d_t_bar: 0.0,
            w_bar: 1.0,
            w_crt: 0,
            slow_start: true,
            exit_slow_start: false,
            loss_phase: false,
            have_profile_points: false,
            curve_stop: MAX_W,
            epoch_max: 0.0,
            epoch_any: false,
            delay: 0.0,
            profile: Profile::default(),
            sent: VecDeque::new(),
            missing: 0,
            base: 1,
            pkt_seq: 0,
            seq_last: 0,
            ss_id: 0,
            credit: 0,
            last_ack: 0,
            timeout_at: 0,
            next_epoch: 0,
            next_fit: None,
            app_left: 0,
            started: false,
            stats: SenderStats::default(),
        }
    }

    /// The window W, packets.
    pub fn window(&self) -> f64 {
        self.w_bar
    }

    /// The delay target D_est, ms.
    pub fn delay_target_ms(&self) -> f64 {
        self.d_est
    }

    /// Whether Verus is in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.slow_start
    }

    /// The profile's delay at window `w`, ms (−1 where unknown).
    pub fn profile_delay_ms(&self, w: f64) -> f64 {
        self.profile.delay_at(w)
    }

    fn rearm_timeout(&mut self, now: Nanos) {
        self.timeout_at = now + ns((5.0 * self.delay).clamp(150.0, 1000.0));
    }

    fn record(&self, seq: u64) -> Option<usize> {
        let i = seq.checked_sub(self.base)? as usize;
        (i < self.sent.len()).then_some(i)
    }

    /// Forgets every packet in flight (code: `sendingList.clear()`, `missingsequence_queue.clear()`).
    fn forget_in_flight(&mut self) {
        for s in self.sent.iter_mut() {
            s.fate = Fate::Done;
        }
        self.missing = 0;
    }

    /// Drops finished records from the front (their send times are no longer needed once
    /// older than the longest timeout).
    fn prune(&mut self, now: Nanos) {
        while let Some(s) = self.sent.front() {
            if s.fate == Fate::Done && s.at + 2 * 1000 * MS < now || self.sent.len() > 4 * MAX_W {
                if matches!(s.fate, Fate::Missing(_)) {
                    self.missing -= 1;
                }
                self.sent.pop_front();
                self.base += 1;
            } else {
                break;
            }
        }
    }

    /// code `restartSlowStart`.
    fn restart_slow_start(&mut self, now: Nanos) {
        self.d_est = 0.0;
        self.seq_last = 0;
        self.w_bar = 1.0;
        self.d_t_bar = 0.0;
        self.w_crt = 0;
        self.d_min = 1000.0;
        self.pkt_seq = 0;
        self.d_max_last = UNSET;
        self.slow_start = true;
        self.loss_phase = false;
        self.exit_slow_start = false;
        self.have_profile_points = false;
        self.curve_stop = MAX_W;
        self.profile.reset();
        self.ss_id += 1;
        self.sent.clear();
        self.missing = 0;
        self.base = 1;
        self.epoch_any = false;
        self.next_fit = None;
        self.credit = 1;
        self.timeout_at = now + 1000 * MS;
    }

    /// code `updateUponReceivingPacket`.
    fn update_on_echo(&mut self, delay: f64, w: u32) {
        if self.w_crt > 0 {
            self.w_crt -= 1;
        }
        self.epoch_max = if self.epoch_any {
            self.epoch_max.max(delay)
        } else {
            delay
        };
        self.epoch_any = true;
        self.d_t_bar = ewma(self.d_t_bar, delay, 0.875);
        self.d_min = self.d_min.min(delay);
        if !self.loss_phase {
            self.profile.record(w as usize, delay);
            self.have_profile_points = true;
        } else {
            self.w_bar += 1.0 / self.w_bar;
            if self.profile.spline.is_some() {
                self.d_est = self.d_est.min(self.profile.delay_at(self.w_bar));
            }
        }
    }

    /// code `removeExpiredPacketsFromSeqQueue`.
    fn expire_missing(&mut self, now: Nanos) {
        debug_assert_eq!(
            self.missing,
            self.sent
                .iter()
                .filter(|s| matches!(s.fate, Fate::Missing(_)))
                .count()
        );
        let mut first = true;
        let mut i = 0;
        // Only Missing records can expire, and each one passed expires (or the scan stops):
        // so the scan ends when none is left, at once when there is none.
        while i < self.sent.len() && self.missing > 0 {
            let Fate::Missing(since) = self.sent[i].fate else {
                i += 1;
                continue;
            };
            if since + self.loss_timeout > now {
                // code: missing packets are queued in sequence order and expire in it.
                break;
            }
            let w = self.sent[i].w as f64;
            self.sent[i].set_done(&mut self.missing);
            self.stats.losses += 1;
            if first {
                first = false;
                if !self.loss_phase {
                    self.loss_phase = true;
                    self.w_bar = (self.w_bar.min(self.m_decrease * w)).max(1.0);
                    self.d_est = if self.slow_start {
                        self.profile
                            .w_list
                            .get(self.w_bar as usize)
                            .copied()
                            .unwrap_or(-1.0)
                    } else {
                        self.profile.delay_at(self.w_bar)
                    };
                }
                if self.slow_start && self.w_bar as i64 > 20 {
                    self.curve_stop = (w as usize).max(100);
                    self.slow_start = false;
                    self.w_crt = 0;
                    self.seq_last = self.pkt_seq;
                    self.forget_in_flight();
                    self.next_fit.get_or_insert(now);
                    return;
                }
            }
            if self.w_crt > 0 {
                self.w_crt -= 1;
            }
            i += 1;
        }
    }

    /// code `calcSi`.
    fn packets_this_epoch(&self) -> u64 {
        let n = ceil_to_i64(self.d_t_bar / ms_of(self.epoch));
        let s = if n > 1 {
            self.w_bar + self.w_crt as f64 * (2 - n) as f64 / (n - 1) as f64
        } else {
            self.w_bar - self.w_crt as f64
        };
        s.max(0.0) as u64
    }

    /// One epoch (code: the main loop of `verus_server.cpp`).
    fn run_epoch(&mut self, now: Nanos) {
        self.expire_missing(now);
        if self.slow_start {
            return;
        }
        let mut stop = false;
        let d_max = if self.epoch_any {
            self.epoch_any = false;
            self.epoch_max
        } else {
            self.d_max_last.max(ms_of(now - self.last_ack))
        };
        if self.d_max_last == UNSET {
            self.d_max_last = d_max;
        }
        let delta = d_max - self.d_max_last;
        if self.d_max_last / self.d_min > self.ratio {
            if !self.exit_slow_start {
                self.d_est = self.d_min.max(self.d_est - self.delta2);
                if self.d_est == self.d_min && self.w_crt < 2 {
                    self.d_min += 10.0;
                } else if self.d_est == self.d_min {
                    stop = true;
                }
            }
        } else if delta > 0.0001 {
            self.d_est = self.d_min.max(self.d_est - self.delta1);
        } else {
            self.d_est += self.delta2;
        }
        let Some(w) = self.profile.window_for(self.d_est, self.delta2) else {
            self.restart_slow_start(now);
            return;
        };
        self.w_bar = w.max(1.0);
        let s = self.packets_this_epoch();
        self.d_max_last = ewma(self.d_max_last, d_max, 0.2);
        if !stop && self.app_left > 0 {
            self.credit += s;
        }
    }

    /// code `TimeoutHandler`.
    fn on_expiry(&mut self, now: Nanos) {
        self.stats.timeouts += 1;
        if self.seq_last == 0 {
            self.restart_slow_start(now);
            return;
        }
        if self.slow_start {
            self.slow_start = false;
            self.next_fit.get_or_insert(now);
        } else {
            self.loss_phase = true;
            self.w_crt = 0;
            self.d_est = self.d_min;
            self.seq_last = self.pkt_seq;
            self.forget_in_flight();
        }
        self.rearm_timeout(now);
    }

    fn active(&self) -> bool {
        self.started && (self.app_left > 0 || self.w_crt > 0)
    }
}

impl DatagramSender for VerusSender {
    fn write(&mut self, now: Nanos, bytes: u64) {
        self.app_left = self.app_left.saturating_add(bytes);
        if !self.started && bytes > 0 {
            // code main(): the first packet of slow start, and the initial timeout.
            self.started = true;
            self.credit = 1;
            self.timeout_at = now + 1000 * MS;
            self.next_epoch = now + self.epoch;
            self.last_ack = now;
        }
    }

    fn stop_writing(&mut self) {
        self.app_left = 0;
        self.credit = 0;
    }

    fn poll_transmit(&mut self, now: Nanos) -> Option<Datagram> {
        if self.credit == 0 || self.app_left == 0 {
            return None;
        }
        self.credit -= 1;
        let len = (self.packet_bytes as u64).min(self.app_left) as u32;
        if self.app_left != u64::MAX {
            self.app_left -= len as u64;
        }
        self.pkt_seq += 1;
        let w = self.w_bar.max(0.0) as u32;
        if self.pkt_seq == 1 {
            self.sent.clear();
            self.missing = 0;
            self.base = 1;
        }
        self.sent.push_back(Sent {
            w,
            at: now,
            fate: Fate::InFlight,
        });
        self.w_crt += 1;
        self.prune(now);
        // code `udp_packet_t`: the window, the session and the send time travel with the
        // packet and come back in its echo.
        let word = ((self.ss_id & SS_MASK) << W_BITS) | w.min(W_MASK);
        Some(Datagram {
            seq: self.pkt_seq,
            len,
            header: [wire_time(now), word],
            retransmit: false,
        })
    }

    fn on_feedback(&mut self, now: Nanos, fb: &Feedback) {
        // code `receiver_thread` (verus_server.cpp): the echo alone gives the delay, the
        // window and the session; the send record is only bookkeeping (missing, done), so an
        // echo whose record was forgotten and pruned still counts.
        let (seq, sent_us, word) = (fb.number, fb.small[0], fb.small[1]);
        let (w, ss) = (word & W_MASK, word >> W_BITS);
        if ss != self.ss_id & SS_MASK {
            return; // an echo from an earlier slow-start session (code: pdu->ss_id < ssId)
        }
        let delay = wire_time(now).wrapping_sub(sent_us) as f64 / 1000.0;
        self.delay = delay;
        if self.slow_start && delay > self.ss_exit {
            self.w_bar = self.m_decrease * w as f64;
            self.d_est = self.profile.delay_at(self.w_bar);
            self.loss_phase = true;
            self.slow_start = false;
            self.exit_slow_start = true;
            self.next_fit.get_or_insert(now);
        }
        self.rearm_timeout(now);
        if self.loss_phase && (w as f64) <= self.w_bar {
            self.epoch_any = false;
            self.loss_phase = false;
            self.exit_slow_start = false;
        }
        if seq == self.seq_last + 1 {
            self.update_on_echo(delay, w);
        } else if seq < self.seq_last {
            // code: only `seq < seqLast` looks in the missing queue; an echo of seqLast
            // itself falls to the branch below and updates the delay.
            if let Some(i) = self.record(seq) {
                if matches!(self.sent[i].fate, Fate::Missing(_)) {
                    self.sent[i].set_done(&mut self.missing);
                    self.update_on_echo(delay, w);
                }
            }
        } else {
            for m in self.seq_last + 1..seq {
                if let Some(i) = self.record(m) {
                    if self.sent[i].fate == Fate::InFlight {
                        self.sent[i].fate = Fate::Missing(now);
                        self.missing += 1;
                    }
                }
            }
            self.update_on_echo(delay, w);
        }
        if seq > self.seq_last {
            self.seq_last = seq;
            self.last_ack = now;
        }
        if let Some(i) = self.record(seq) {
            self.sent[i].set_done(&mut self.missing);
        }
        if self.slow_start {
            self.w_bar += 1.0;
            if self.app_left > 0 {
                self.credit += (self.w_bar - self.w_crt as f64).max(0.0) as u64;
            }
        }
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        if !self.active() {
            return None;
        }
        let mut t = self.next_epoch.min(self.timeout_at);
        if let Some(f) = self.next_fit {
            t = t.min(f);
        }
        Some(t)
    }

    fn on_timeout(&mut self, now: Nanos) {
        if let Some(f) = self.next_fit {
            if f <= now && !self.slow_start {
                if !self.profile.refit(self.curve_stop) {
                    self.restart_slow_start(now);
                } else {
                    self.curve_stop = MAX_W;
                    self.next_fit = Some(now + self.profile_every);
                }
            }
        }
        if self.timeout_at <= now {
            self.on_expiry(now);
        }
        while self.next_epoch <= now {
            self.next_epoch += self.epoch;
            self.run_epoch(now);
        }
    }

    fn finished(&self) -> bool {
        self.app_left == 0
    }

    fn srtt(&self) -> Nanos {
        ns(self.d_t_bar)
    }

    #[inline]
    fn mode(&self) -> u8 {
        if self.slow_start {
            0
        } else if self.loss_phase {
            2
        } else {
            1
        }
    }

    fn stats(&self) -> SenderStats {
        self.stats
    }

    fn trace(&self) -> TransportTrace {
        TransportTrace {
            window_bytes: (self.w_bar.max(0.0) * self.packet_bytes as f64) as u64,
            srtt: ns(self.d_t_bar),
            mode: self.mode(),
            estimate: self.d_est,
            flag: self.loss_phase,
            aux: if self.have_profile_points {
                self.profile.delay_at(self.w_bar)
            } else {
                f64::NAN
            },
        }
    }
}

// ---------------------------------------------------------------------------------------
// The receiver.

/// Verus's receiver: echoes every packet at once (code `verus_client.cpp`).
#[derive(Debug, Default)]
pub struct VerusReceiver {
    echoes: VecDeque<Feedback>,
    delivered: u64,
}

impl VerusReceiver {
    /// A receiver.
    pub fn new() -> Self {
        Self::default()
    }
}

impl DatagramReceiver for VerusReceiver {
    fn on_datagram(&mut self, _now: Nanos, d: &Datagram) {
        self.delivered += d.len as u64;
        self.echoes.push_back(Feedback {
            number: d.seq,
            small: d.header,
            ..Default::default()
        });
    }

    fn poll_feedback(&mut self, _now: Nanos) -> Option<Feedback> {
        self.echoes.pop_front()
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        None
    }

    fn on_timeout(&mut self, _now: Nanos) {}

    fn delivered(&self) -> u64 {
        self.delivered
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::SEC;

    #[test]
    fn rounding_helpers_match_std() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -1.5,
            0.49999999999999994,
            1.0 - f64::EPSILON / 4.0,
            4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            9.3e18,
            1.9e19,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
        ];
        let mut x = 1e-7f64;
        while x < 1e17 {
            let (up, down) = (
                f64::from_bits(x.to_bits() + 1),
                f64::from_bits((x + 0.5).to_bits() - 1),
            );
            xs.extend([x, -x, x + 0.5, up, down]);
            x *= 1.37;
        }
        for &x in &xs {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x}");
            assert_eq!(ceil_to_i64(x), x.ceil() as i64, "{x}");
            assert_eq!(
                interval_of(x, 1000),
                (x.floor().max(0.0) as usize).min(1000),
                "{x}"
            );
        }
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = VerusConfig::default();
        assert!(c.validate().is_ok());
        assert_eq!(
            (
                c.epoch_ms,
                c.delta1_ms,
                c.delta2_ms,
                c.ratio,
                c.multiplicative_decrease
            ),
            (5.0, 1.0, 2.0, 6.0, 0.7)
        );
        let bad = VerusConfig {
            multiplicative_decrease: 1.0,
            ..c.clone()
        };
        assert_eq!(bad.validate().unwrap_err().0, "multiplicative_decrease");
        let bad = VerusConfig { epoch_ms: 0.0, ..c };
        assert_eq!(bad.validate().unwrap_err().0, "epoch_ms");
    }

    #[test]
    fn spline_fits_a_smooth_profile_and_inverts() {
        // Delay grows linearly with the window beyond the BDP (50 packets at 20 ms).
        let mut p = Profile::default();
        for w in 1..=300usize {
            let d = if w <= 50 {
                20.0
            } else {
                20.0 + (w - 50) as f64 * 0.4
            };
            p.record(w, d);
        }
        assert!(p.refit(MAX_W));
        let s = p.spline.as_ref().unwrap();
        for w in [60.0, 150.0, 280.0] {
            let want = 20.0 + (w - 50.0) * 0.4;
            assert!(
                (s.eval(w) - want).abs() < 1.5,
                "w {w}: {} vs {want}",
                s.eval(w)
            );
        }
        // f⁻¹(60 ms): the first window whose delay exceeds 60 ms is ~151; minus one.
        let w = p.window_for(60.0, 2.0).unwrap();
        assert!((w - 150.0).abs() <= 3.0, "{w}");
        // Beyond the data the last cubic piece continues (linear here).
        let w = p.window_for(200.0, 2.0).unwrap();
        assert!((w - 500.0).abs() <= 10.0, "{w}");
    }

    #[test]
    fn raw_profile_inversion_lowers_the_target_until_it_maps() {
        let mut p = Profile::default();
        p.record(5, 30.0);
        p.record(10, 40.0);
        // Nothing exceeds 100 ms: the code lowers the target by δ2 until something does.
        // (the first window whose average exceeds the lowered target: 10, minus one).
        assert_eq!(p.window_for(100.0, 2.0), Some(9.0));
        assert_eq!(p.window_for(35.0, 2.0), Some(9.0));
        assert_eq!(p.window_for(25.0, 2.0), Some(4.0));
        let mut empty = Profile::default();
        assert_eq!(empty.window_for(10.0, 2.0), None);
    }

    /// Drives a sender and receiver over a bottleneck of `pps` packets/s with a 10 ms
    /// one-way delay and a `buffer`-packet drop-tail queue, in 1 ms steps; returns (delivered
    /// packets after `warm` s, the queueing delays seen, the sender).
    fn run_link(pps: f64, buffer: usize, secs: u64, warm: u64) -> (u64, Vec<Nanos>, VerusSender) {
        let c = VerusConfig::default();
        let mut s = VerusSender::new(&c);
        let mut r = VerusReceiver::new();
        s.write(0, u64::MAX);
        let service = (SEC as f64 / pps) as Nanos;
        let delay = 10 * MS;
        let mut queue: VecDeque<(Datagram, Nanos)> = VecDeque::new();
        let mut arrivals: VecDeque<(Datagram, Nanos)> = VecDeque::new();
        let mut echoes: VecDeque<(Feedback, Nanos)> = VecDeque::new();
        let mut link_free = 0;
        let (mut delivered, mut sojourn) = (0u64, Vec::new());
        let mut t = 0;
        while t < secs * SEC {
            if s.poll_timeout().is_some_and(|w| w <= t) {
                s.on_timeout(t);
            }
            while let Some(d) = s.poll_transmit(t) {
                if queue.len() < buffer {
                    queue.push_back((d, t + delay));
                }
            }
            while let Some(&(d, at)) = queue.front() {
                let start = link_free.max(at);
                if at > t || start > t {
                    break;
                }
                queue.pop_front();
                link_free = start + service;
                if t > warm * SEC {
                    delivered += 1;
                    sojourn.push(link_free - at);
                }
                arrivals.push_back((d, link_free + delay));
            }
            while arrivals.front().is_some_and(|&(_, at)| at <= t) {
                let (d, _) = arrivals.pop_front().unwrap();
                r.on_datagram(t, &d);
                while let Some(fb) = r.poll_feedback(t) {
                    echoes.push_back((fb, t + 2 * delay - 0));
                }
            }
            while echoes.front().is_some_and(|&(_, at)| at <= t) {
                let (fb, _) = echoes.pop_front().unwrap();
                s.on_feedback(t, &fb);
            }
            t += MS / 4;
        }
        (delivered, sojourn, s)
    }

    #[test]
    fn verus_fills_a_fixed_link_with_a_small_queue() {
        let (delivered, mut sojourn, s) = run_link(1000.0, 2000, 30, 10);
        let rate = delivered as f64 / 20.0;
        assert!(!s.in_slow_start());
        assert!(rate > 0.7 * 1000.0, "throughput {rate} of 1000 pkt/s");
        sojourn.sort_unstable();
        let p50 = ms_of(sojourn[sojourn.len() / 2]);
        // D_est climbs by δ2 while the delay does not grow and falls once the delay passes
        // R·D_min: on a fixed link the RTT settles near R times the minimum (41 ms here), a
        // standing queue of about (R − 1)·D_min, far below the 2 s of a buffer filler.
        let d_min = s.d_min;
        assert!((40.0..45.0).contains(&d_min), "D_min {d_min}");
        assert!(
            p50 > d_min && p50 < (6.0 - 1.0) * d_min,
            "median queueing {p50} ms"
        );
        assert!(
            s.delay_target_ms() < 6.5 * d_min,
            "D_est {}",
            s.delay_target_ms()
        );
    }

    /// Past slow start with a profile (delay 20 + W/2 ms at W = 1..60), W = 10: 30 packets
    /// sent at 0, the first 5 echoed at 50 ms, the rest held back; the timeout (no echo for
    /// 250 ms) forgets the 25 in flight and enters the loss phase; 3 s later their records
    /// are pruned. Returns the sender, the receiver, the held packets and the time.
    fn timed_out_with_held_echoes() -> (VerusSender, VerusReceiver, Vec<Datagram>, Nanos) {
        let mut s = VerusSender::new(&VerusConfig::default());
        let mut r = VerusReceiver::new();
        s.write(0, u64::MAX);
        s.slow_start = false;
        for w in 1..=60 {
            s.profile.record(w, 20.0 + w as f64 / 2.0);
        }
        assert!(s.profile.refit(MAX_W));
        s.w_bar = 10.0;
        s.credit = 30;
        let sent: Vec<Datagram> = std::iter::from_fn(|| s.poll_transmit(0)).collect();
        assert_eq!(sent.len(), 30);
        for d in &sent[..5] {
            r.on_datagram(50 * MS, d);
            let fb = r.poll_feedback(50 * MS).unwrap();
            s.on_feedback(50 * MS, &fb);
        }
        assert!(!s.loss_phase);
        assert_eq!(s.timeout_at, 50 * MS + 250 * MS, "re-armed at 5 · 50 ms");
        let t = s.timeout_at;
        s.on_timeout(t);
        assert!(s.loss_phase && s.stats().timeouts == 1);
        assert_eq!(s.seq_last, 30, "the timeout forgot every packet in flight");
        let t = t + 3 * SEC;
        s.prune(t);
        (s, r, sent[5..].to_vec(), t)
    }

    #[test]
    fn a_late_echo_after_a_timeout_ends_the_loss_phase_and_rearms_the_timer() {
        let (mut s, mut r, held, t) = timed_out_with_held_echoes();
        assert!(s.loss_phase);
        // An echo sent before the timeout, more than 2 s ago, whose send record is gone, with
        // w ≤ W (code `receiver_thread`: leaves the loss phase whatever its sequence number).
        let sent = 0;
        let &d = held
            .iter()
            .find(|d| d.seq < s.seq_last && (d.header[1] & W_MASK) as f64 <= s.w_bar)
            .expect("a held packet with w ≤ W sent before the timeout");
        assert!(s.record(d.seq).is_none(), "its send record was pruned");
        let stale_timer = s.timeout_at;
        r.on_datagram(t, &d);
        let fb = r.poll_feedback(t).unwrap();
        s.on_feedback(t, &fb);
        assert!(!s.loss_phase, "the echo ends the loss phase");
        // Re-armed at min(1000, max(150, 5 · delay)) ms: the delay is over 2 s, so 1 s.
        assert_eq!(s.timeout_at, t + 1000 * MS);
        assert_ne!(s.timeout_at, stale_timer);
        assert!(
            (s.delay - ms_of(t - sent)).abs() <= 0.002,
            "delay {} vs {}",
            s.delay,
            ms_of(t - sent)
        );
    }

    #[test]
    fn a_late_echo_of_the_last_packet_yields_a_delay_sample() {
        let (mut s, mut r, held, t) = timed_out_with_held_echoes();
        // The last packet sent before the forgetting timeout is seqLast: its echo, seconds
        // later, updates the delay (code: `seq == seqLast` falls to the branch that calls
        // `updateUponReceivingPacket`).
        let sent = 0;
        let &d = held
            .iter()
            .find(|d| d.seq == s.seq_last)
            .expect("the packet seqLast");
        assert!(s.record(d.seq).is_none(), "its send record was pruned");
        let (d_t_bar, d_min) = (s.d_t_bar, s.d_min);
        s.epoch_any = false;
        r.on_datagram(t, &d);
        let fb = r.poll_feedback(t).unwrap();
        s.on_feedback(t, &fb);
        let delay = ms_of(t - sent);
        assert!(delay > 2000.0);
        assert!(
            (s.delay - delay).abs() <= 0.002,
            "delay {} vs {delay}",
            s.delay
        );
        assert!(
            s.epoch_any && (s.epoch_max - s.delay).abs() < 1e-9,
            "the epoch's D_max takes the sample"
        );
        assert_eq!(
            s.d_t_bar,
            ewma(d_t_bar, s.delay, 0.875),
            "the smoothed delay takes the sample"
        );
        assert_eq!(s.d_min, d_min.min(s.delay));
    }

    #[test]
    fn the_header_carries_send_time_window_and_session() {
        let mut s = VerusSender::new(&VerusConfig::default());
        s.write(0, u64::MAX);
        s.ss_id = SS_MASK + 3; // wraps to 2 in the header
        s.w_bar = 2.0e6; // saturates
        let d = s.poll_transmit(5 * SEC + 1_234_567).unwrap();
        assert_eq!(d.header[0], 5_001_234);
        assert_eq!(d.header[1] & W_MASK, W_MASK);
        assert_eq!(d.header[1] >> W_BITS, 2);
        let mut r = VerusReceiver::new();
        r.on_datagram(0, &d);
        assert_eq!(
            r.poll_feedback(0).unwrap().small,
            d.header,
            "the echo returns the header"
        );
        // Wrapping: a packet sent just before the µs counter wraps.
        let sent = (u32::MAX as Nanos) * 1000;
        assert_eq!(
            wire_time(sent + 250 * MS).wrapping_sub(wire_time(sent)),
            250_000
        );
    }

    #[test]
    fn a_loss_cuts_the_window_multiplicatively() {
        // A 60-packet buffer: slow start overflows it, the first loss halves… by M = 0.7.
        let (_, _, s) = run_link(1000.0, 60, 3, 1);
        assert!(s.stats().losses > 0);
        assert!(!s.in_slow_start());
    }
}
