//! PCC-Vivace: M. Dong, T. Meng, D. Zarchy, E. Arslan, Y. Gilad, B. Godfrey, M. Schapira,
//! "PCC Vivace: Online-Learning Congestion Control", NSDI 2018 \[pcc-vivace\] (cited as *\[Vivace §n\]*),
//! with what the paper leaves open taken from the authors' code, `PCCproject/PCC-Uspace`:
//! the UDT-based implementation of the paper (branch `NSDI-2018`, `pcc-gradient/`) and the
//! later, cleaner Vivace sender (`src/pcc/pcc_vivace_sender.cpp`, `pcc_sender.cpp`,
//! `pcc_utility_manager.cpp`; cited as *code*).
//!
//! Vivace is **rate-based**: time is cut into monitor intervals (MIs), each sent at one rate;
//! when every packet of an MI is acknowledged or lost, the MI's **utility** is
//!
//! ```text
//! u(x) = x^t − b · x · dRTT/dT − c · x · L          t = 0.9, b = 900, c = 11.35   [§2.2, Eq. 2]
//! ```
//!
//! (x the MI's sending rate in Mbit/s, dRTT/dT the slope of the RTT over the MI, L its loss
//! rate), and the sender does **online gradient ascent** on it \[§3\]: it tests r(1+ε) and
//! r(1−ε) (ε = 0.05) in randomized order — two pairs, acting only when both agree — and
//! moves the rate by θ·γ, γ the utility gradient, θ = m(τ)·θ0 with a **confidence
//! amplifier** m growing with the number τ of consecutive steps in the same direction, each
//! step bounded by a **dynamic change boundary** ω·r, ω = ω0 + k·δ growing each time the
//! bound binds; in the starting phase the rate doubles every MI while the utility grows.
//!
//! **Reliability** is its own, as in the paper's implementation (UDT: a per-packet
//! acknowledgement carrying the packet's number, a loss report as soon as a gap shows, lost
//! bytes resent first, at the paced rate, before new data; an expiry timer when nothing
//! comes back), not our TCP sender: Vivace has no congestion window, its MIs need to know
//! which packet of which MI was acknowledged or lost, and its retransmissions are paced at
//! the MI's rate and count in the MI's utility — TCP's window, SACK recovery, PRR and RTO
//! backoff would each change what the utility measures.
//!
//! Choices where the paper and the code are silent or differ (each tested):
//! - Constants: t, b, c, ε from \[§2–3\]; θ0 = 1 Mbit/s per unit of utility gradient
//!   (utility per Mbit/s), m(τ) = ⌊(τ+1)/2⌋^1.2, ω0 = 0.05, δ = 0.05, the smallest rate and
//!   rate change 0.5 Mbit/s (code `pcc_vivace_sender.cpp`).
//! - dRTT/dT is the least-squares slope of the packets' RTTs over their send times (code
//!   `NSDI-2018` `core.cpp`); a slope within ±0.02 counts as 0 (code `kRTTFilter`).
//!   Negative slopes are kept, as in the paper's utility.
//! - x is what the MI sent over its duration (first to last packet, plus one packet's
//!   transmission time at the MI's rate; code `ComputeSimpleMetrics`), in 10⁶ bit/s.
//! - An MI lasts one smoothed RTT (300 ms when the RTT exceeds 1 s), at least 10 and at
//!   most 3000 packets (code `NSDI-2018` `core.cpp`); before the first RTT sample, 100 ms.
//! - Which MIs are "useful" (measured for a decision): one at a time in the starting and
//!   decision phases, the four probes when probing; between them MIs run at the current
//!   rate (code `CreateUsefulInterval`).
//! - The starting rate is 10 packets per 100 ms, rescaled by 100 ms / RTT at the first RTT
//!   sample when that is shorter (code `PccSender`).
//! - A packet is lost when a later packet is acknowledged (UDT's immediate loss report), or
//!   when nothing is acknowledged for k·(SRTT + 4·RTTVAR) + 10 ms, at least 300 ms, k the
//!   number of expiries in a row (UDT's EXP timer).

use std::collections::VecDeque;

use cellshare_core::{Nanos, MS, SEC};
use rand::Rng;

use super::{Datagram, DatagramReceiver, DatagramSender, Feedback, RttEstimator, SenderStats, TransportTrace};

/// Bytes of UDT's data header.
pub const HEADER_BYTES: u32 = 16;
/// Bytes of a per-packet acknowledgement on the wire: IP/UDP (28), UDT's control header
/// (16) and the packet number (4).
pub const FEEDBACK_BYTES: u32 = 48;
/// Probe pairs per probing round (code: two, acting when both agree).
const PAIRS: usize = 2;
/// Packets per MI, at least and at most (code `NSDI-2018`).
const MIN_MI_PACKETS: u32 = 10;
const MAX_MI_PACKETS: u32 = 3000;

/// Parameters of PCC-Vivace (`transport = { kind = "vivace", ... }`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct VivaceConfig {
    /// t: exponent of the rate in the utility (0 < t < 1). Default 0.9 (\[Vivace §2.2\]).
    pub exponent: f64,
    /// b: weight of the RTT gradient. Default 900 (\[Vivace §2.2\]).
    pub latency_coefficient: f64,
    /// c: weight of the loss rate. Default 11.35 (\[Vivace §2.2\]).
    pub loss_coefficient: f64,
    /// ε: probing step, a fraction of the rate. Default 0.05 (\[Vivace §3\]).
    pub probing_step: f64,
    /// θ0: rate change per unit of utility gradient, Mbit/s. Default 1 (code).
    pub rate_change_factor: f64,
    /// Exponent of the confidence amplifier m(τ) = ⌊(τ+1)/2⌋^e. Default 1.2 (code).
    pub amplifier_exponent: f64,
    /// ω0: initial change boundary, a fraction of the rate. Default 0.05 (code).
    pub initial_boundary: f64,
    /// δ: boundary increment each time a step is cut to it. Default 0.05 (code).
    pub boundary_step: f64,
    /// RTT gradients within ±this count as 0. Default 0.02 (code `kRTTFilter`).
    pub rtt_gradient_filter: f64,
    /// Smallest sending rate, Mbit/s. Default 0.5 (code `kMinSendingRate`).
    pub min_rate_mbps: f64,
    /// Smallest rate change, Mbit/s. Default 0.5 (code `kMinRateChange`).
    pub min_rate_change_mbps: f64,
    /// Initial rate, in packets per 100 ms. Default 10 (code: the initial window).
    pub initial_packets: u32,
    /// Payload bytes per packet (UDT's 1500-byte packets less 28 + 16 bytes of headers).
    /// Default 1456.
    pub packet_bytes: u32,
}

impl Default for VivaceConfig {
    fn default() -> Self {
        Self {
            exponent: 0.9,
            latency_coefficient: 900.0,
            loss_coefficient: 11.35,
            probing_step: 0.05,
            rate_change_factor: 1.0,
            amplifier_exponent: 1.2,
            initial_boundary: 0.05,
            boundary_step: 0.05,
            rtt_gradient_filter: 0.02,
            min_rate_mbps: 0.5,
            min_rate_change_mbps: 0.5,
            initial_packets: 10,
            packet_bytes: 1456,
        }
    }
}

impl VivaceConfig {
    /// Checks the parameters; on error returns (key, value, expectation).
    pub fn validate(&self) -> Result<(), (String, String, String)> {
        let err = |k: &str, v: f64, e: &str| Err((k.to_string(), v.to_string(), e.to_string()));
        if !(self.exponent > 0.0 && self.exponent < 1.0) {
            return err("exponent", self.exponent, "t in (0, 1)");
        }
        if !(self.latency_coefficient >= 0.0 && self.latency_coefficient.is_finite()) {
            return err("latency_coefficient", self.latency_coefficient, "b >= 0");
        }
        if !(self.loss_coefficient > 0.0 && self.loss_coefficient.is_finite()) {
            return err("loss_coefficient", self.loss_coefficient, "c > 0");
        }
        if !(self.probing_step > 0.0 && self.probing_step < 0.5) {
            return err("probing_step", self.probing_step, "ε in (0, 0.5)");
        }
        if !(self.rate_change_factor > 0.0 && self.rate_change_factor.is_finite()) {
            return err("rate_change_factor", self.rate_change_factor, "θ0 > 0 (Mbit/s per unit of gradient)");
        }
        if !(self.amplifier_exponent >= 0.0 && self.amplifier_exponent <= 10.0) {
            return err("amplifier_exponent", self.amplifier_exponent, "an exponent in [0, 10]");
        }
        if !(self.initial_boundary > 0.0 && self.initial_boundary <= 1.0) {
            return err("initial_boundary", self.initial_boundary, "ω0 in (0, 1]");
        }
        if !(self.boundary_step >= 0.0 && self.boundary_step <= 1.0) {
            return err("boundary_step", self.boundary_step, "δ in [0, 1]");
        }
        if !(self.rtt_gradient_filter >= 0.0 && self.rtt_gradient_filter.is_finite()) {
            return err("rtt_gradient_filter", self.rtt_gradient_filter, "a gradient >= 0");
        }
        if !(self.min_rate_mbps > 0.0 && self.min_rate_mbps <= 10_000.0) {
            return err("min_rate_mbps", self.min_rate_mbps, "a rate in Mbit/s in (0, 10000]");
        }
        if !(self.min_rate_change_mbps >= 0.0 && self.min_rate_change_mbps <= 10_000.0) {
            return err("min_rate_change_mbps", self.min_rate_change_mbps, "a rate in Mbit/s in [0, 10000]");
        }
        if !(1..=100_000).contains(&self.initial_packets) {
            return Err(("initial_packets".into(), self.initial_packets.to_string(), "a count in 1..=100000".into()));
        }
        if !(1..=65_000).contains(&self.packet_bytes) {
            return Err(("packet_bytes".into(), self.packet_bytes.to_string(), "a payload size in 1..=65000 bytes".into()));
        }
        Ok(())
    }
}

/// The utility of an MI that sent at `x` Mbit/s with RTT gradient `gradient` and loss rate
/// `loss` (\[Vivace §2.2\]); `filter`: gradients within ±it count as 0.
pub fn utility(cfg: &VivaceConfig, x: f64, gradient: f64, loss: f64) -> f64 {
    let g = if gradient.abs() < cfg.rtt_gradient_filter { 0.0 } else { gradient };
    x.powf(cfg.exponent) - cfg.latency_coefficient * x * g - cfg.loss_coefficient * x * loss
}

/// Vivace's phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Doubling the rate each MI while the utility grows.
    Starting = 0,
    /// Testing r(1 ± ε).
    Probing = 1,
    /// Moving the rate in the direction the probes chose.
    DecisionMade = 2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Increase,
    Decrease,
}

/// A rate and the utility measured at it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct UtilityInfo {
    rate: f64,
    utility: f64,
}

/// One monitor interval.
#[derive(Clone, Debug)]
struct Mi {
    rate: f64,
    useful: bool,
    t_first: Nanos,
    t_last: Nanos,
    duration: Nanos,
    packets: u32,
    bytes_sent: u64,
    bytes_lost: u64,
    pending: u32,
    closed: bool,
    /// Least-squares sums of (send time, RTT) in seconds.
    n: f64,
    sx: f64,
    sy: f64,
    sxx: f64,
    sxy: f64,
}

impl Mi {
    fn gradient(&self) -> f64 {
        if self.n < 2.0 {
            return 0.0;
        }
        let den = self.n * self.sxx - self.sx * self.sx;
        if den <= 0.0 {
            0.0
        } else {
            (self.n * self.sxy - self.sx * self.sy) / den
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PktState {
    InFlight,
    Acked,
    Lost,
}

#[derive(Clone, Copy, Debug)]
struct Pkt {
    seq: u64,
    len: u32,
    sent_at: Nanos,
    mi: u64,
    state: PktState,
}

/// PCC-Vivace's sender.
#[derive(Debug)]
pub struct VivaceSender {
    cfg: VivaceConfig,
    rng: cellshare_core::rng::StreamRng,
    mode: Mode,
    /// The central sending rate, bit/s.
    rate: f64,
    direction: Direction,
    rounds: u32,
    latest: UtilityInfo,
    allowance: u32,
    /// Probe directions of this round's useful MIs (pairs: random, then the opposite).
    probe_dirs: [Direction; 2 * PAIRS],
    useful_created: usize,
    /// Utilities of this round's useful MIs, in order.
    results: [UtilityInfo; 2 * PAIRS],
    results_n: usize,
    mis: VecDeque<Mi>,
    mi_base: u64,
    pkts: VecDeque<Pkt>,
    pn_base: u64,
    next_pn: u64,
    /// Lowest packet number that may still be in flight.
    scan: u64,
    retransmit: VecDeque<(u64, u32)>,
    next_seq: u64,
    written: u64,
    /// Bytes the receiver has in order.
    cum_acked: u64,
    next_send: Nanos,
    rtt: RttEstimator,
    rtt_seen: bool,
    last_ack: Nanos,
    expiries: u32,
    last_utility: f64,
    stats: SenderStats,
}

impl VivaceSender {
    /// A sender for `cfg`; `seed` and `index` (the scenario's seed, the flow's index) seed
    /// the randomized order of the probes.
    pub fn new(cfg: &VivaceConfig, seed: u64, index: u64) -> Self {
        let rate = cfg.initial_packets as f64 * (cfg.packet_bytes + HEADER_BYTES + 28) as f64 * 8.0 / 0.1;
        Self {
            cfg: cfg.clone(),
            rng: cellshare_core::stream_rng(seed, "vivace", index),
            mode: Mode::Starting,
            rate,
            direction: Direction::Increase,
            rounds: 1,
            latest: UtilityInfo::default(),
            allowance: 0,
            probe_dirs: [Direction::Increase; 2 * PAIRS],
            useful_created: 0,
            results: [UtilityInfo::default(); 2 * PAIRS],
            results_n: 0,
            mis: VecDeque::new(),
            mi_base: 0,
            pkts: VecDeque::new(),
            pn_base: 0,
            next_pn: 0,
            scan: 0,
            retransmit: VecDeque::new(),
            next_seq: 0,
            written: 0,
            cum_acked: 0,
            next_send: 0,
            rtt: RttEstimator::default(),
            rtt_seen: false,
            last_ack: 0,
            expiries: 0,
            last_utility: f64::NAN,
            stats: SenderStats::default(),
        }
    }

    /// The central sending rate, bit/s.
    pub fn rate_bps(&self) -> f64 {
        self.rate
    }

    /// The phase.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    fn min_rate(&self) -> f64 {
        self.cfg.min_rate_mbps * 1e6
    }

    fn wire(&self, len: u32) -> f64 {
        (len + HEADER_BYTES + 28) as f64
    }

    /// How many useful MIs the phase measures at once (code `CreateUsefulInterval`).
    fn useful_wanted(&self) -> usize {
        if self.mode == Mode::Probing {
            2 * PAIRS
        } else {
            1
        }
    }

    /// Opens a new MI at `now` (code `OnPacketSent` → `CreateNewInterval`).
    fn open_mi(&mut self, now: Nanos) {
        let useful = self.rtt_seen && self.useful_created < self.useful_wanted();
        let rate = if useful && self.mode == Mode::Probing {
            let k = self.useful_created;
            // code MaybeSetSendingRate: the first of each pair random, the second opposite.
            let d = if k % 2 == 0 {
                if self.rng.gen::<bool>() {
                    Direction::Increase
                } else {
                    Direction::Decrease
                }
            } else if self.probe_dirs[k - 1] == Direction::Increase {
                Direction::Decrease
            } else {
                Direction::Increase
            };
            self.probe_dirs[k] = d;
            match d {
                Direction::Increase => self.rate * (1.0 + self.cfg.probing_step),
                Direction::Decrease => self.rate * (1.0 - self.cfg.probing_step),
            }
        } else {
            self.rate
        };
        if useful {
            self.useful_created += 1;
        }
        let srtt = self.rtt.srtt_ns();
        let duration = if srtt == 0 {
            100 * MS
        } else if srtt > SEC {
            300 * MS
        } else {
            srtt
        };
        self.mis.push_back(Mi {
            rate,
            useful,
            t_first: now,
            t_last: now,
            duration,
            packets: 0,
            bytes_sent: 0,
            bytes_lost: 0,
            pending: 0,
            closed: false,
            n: 0.0,
            sx: 0.0,
            sy: 0.0,
            sxx: 0.0,
            sxy: 0.0,
        });
    }

    /// The MI the next packet belongs to.
    fn current_mi(&mut self, now: Nanos) -> u64 {
        let need_new = match self.mis.back() {
            None => true,
            Some(m) => {
                m.closed
                    || m.packets >= MAX_MI_PACKETS
                    || (m.packets >= MIN_MI_PACKETS && now >= m.t_first + m.duration)
            }
        };
        if need_new {
            if let Some(m) = self.mis.back_mut() {
                m.closed = true;
            }
            self.open_mi(now);
        }
        self.mi_base + self.mis.len() as u64 - 1
    }

    fn mi_mut(&mut self, id: u64) -> Option<&mut Mi> {
        if id < self.mi_base {
            return None;
        }
        self.mis.get_mut((id - self.mi_base) as usize)
    }

    fn mark_lost(&mut self, pn: u64) {
        let i = (pn - self.pn_base) as usize;
        let p = self.pkts[i];
        if p.state != PktState::InFlight {
            return;
        }
        self.pkts[i].state = PktState::Lost;
        self.stats.losses += 1;
        let wire = (p.len + HEADER_BYTES + 28) as u64;
        if let Some(m) = self.mi_mut(p.mi) {
            m.bytes_lost += wire;
            m.pending -= 1;
        }
        if p.len > 0 && p.seq + p.len as u64 > self.cum_acked {
            self.retransmit.push_back((p.seq, p.len));
        }
    }

    /// Utilities of MIs whose packets are all resolved; acts once this round's useful MIs
    /// are all measured (code `PccMonitorIntervalQueue::OnCongestionEvent`).
    fn harvest(&mut self, now: Nanos) {
        while let Some(m) = self.mis.front() {
            if !(m.closed && m.pending == 0) {
                break;
            }
            let m = self.mis.pop_front().expect("front");
            self.mi_base += 1;
            if !m.useful || m.bytes_sent == 0 {
                continue;
            }
            let dur = (m.t_last - m.t_first) as f64 / SEC as f64 + self.wire(self.cfg.packet_bytes) * 8.0 / m.rate;
            let x = m.bytes_sent as f64 * 8.0 / dur / 1e6;
            let loss = m.bytes_lost as f64 / m.bytes_sent as f64;
            let u = utility(&self.cfg, x, m.gradient(), loss);
            self.last_utility = u;
            if self.results_n < self.results.len() {
                self.results[self.results_n] = UtilityInfo { rate: m.rate, utility: u };
                self.results_n += 1;
            }
            if self.results_n == self.useful_created && self.useful_created == self.useful_wanted() {
                let n = self.results_n;
                let infos = self.results;
                self.results_n = 0;
                self.useful_created = 0;
                self.on_utility_available(&infos[..n]);
                let _ = now;
            }
        }
    }

    /// code `PccVivaceSender::OnUtilityAvailable`.
    fn on_utility_available(&mut self, info: &[UtilityInfo]) {
        match self.mode {
            Mode::Starting => {
                if info[0].utility > self.latest.utility {
                    self.rate *= 2.0;
                    self.latest = info[0];
                    self.rounds += 1;
                } else {
                    // code PccSender::EnterProbing from STARTING: back to the rate before
                    // (never under the smallest rate, which the starting rate may be).
                    self.rate = (self.rate * 0.5).max(self.min_rate());
                    self.mode = Mode::Probing;
                    self.rounds = 1;
                }
            }
            Mode::Probing => {
                if let Some(d) = self.decision(info) {
                    self.direction = d;
                    self.set_latest_from_probes(info);
                    self.enter_decision_made(info);
                } else {
                    self.rounds += 1;
                }
                if (self.rounds > 1 || self.mode == Mode::DecisionMade) && self.rate <= self.min_rate() {
                    self.rate = self.min_rate();
                    self.allowance = 0;
                    self.rounds = 1;
                    self.mode = Mode::Starting;
                }
            }
            Mode::DecisionMade => {
                let u = info[0];
                let better = u.utility > self.latest.utility;
                let higher = u.rate > self.latest.rate;
                let keeps = match self.direction {
                    Direction::Increase => better == higher && u.rate != self.latest.rate,
                    Direction::Decrease => better != higher && u.rate != self.latest.rate,
                };
                if keeps {
                    self.enter_decision_made(info);
                    self.latest = u;
                } else {
                    // code EnterProbing(utility_info): undo the last step, probe again.
                    self.rounds = 1;
                    let change = self.rate_change(info);
                    self.rate = match self.direction {
                        Direction::Increase => self.rate - change,
                        Direction::Decrease => self.rate + change,
                    };
                    if self.rate < self.min_rate() {
                        self.rate = self.min_rate();
                        self.allowance = 0;
                    }
                    self.mode = Mode::Probing;
                }
            }
        }
    }

    /// Whether a pair found the higher rate better.
    fn pair_increase(info: &[UtilityInfo], i: usize) -> bool {
        let (a, b) = (info[2 * i], info[2 * i + 1]);
        if a.utility > b.utility {
            a.rate > b.rate
        } else {
            a.rate < b.rate
        }
    }

    /// code `CanMakeDecision` / `SetRateChangeDirection`: a direction when every pair agrees.
    fn decision(&self, info: &[UtilityInfo]) -> Option<Direction> {
        let inc = (0..PAIRS).filter(|&i| Self::pair_increase(info, i)).count();
        if inc == PAIRS {
            Some(Direction::Increase)
        } else if inc == 0 {
            Some(Direction::Decrease)
        } else {
            None
        }
    }

    fn set_latest_from_probes(&mut self, info: &[UtilityInfo]) {
        for i in 0..PAIRS {
            let (a, b) = (info[2 * i], info[2 * i + 1]);
            self.latest = if a.utility > b.utility { a } else { b };
        }
    }

    /// code `EnterDecisionMade`.
    fn enter_decision_made(&mut self, info: &[UtilityInfo]) {
        if self.mode == Mode::Probing {
            self.rate *= match self.direction {
                Direction::Increase => 1.0 + self.cfg.probing_step,
                Direction::Decrease => 1.0 - self.cfg.probing_step,
            };
        }
        self.rounds = if self.mode == Mode::Probing { 1 } else { self.rounds + 1 };
        let change = self.rate_change(info);
        self.rate = match self.direction {
            Direction::Increase => self.rate + change,
            Direction::Decrease => self.rate - change,
        };
        if self.rate < self.min_rate() {
            self.rate = self.min_rate();
            self.mode = Mode::Probing;
            self.rounds = 1;
            self.allowance = 0;
        } else {
            self.mode = Mode::DecisionMade;
        }
    }

    /// code `ComputeRateChange`: θ·γ in bit/s, amplified by m(τ), bounded by ω·r.
    fn rate_change(&mut self, info: &[UtilityInfo]) -> f64 {
        let (d_rate, d_util) = if self.mode == Mode::Probing {
            let d_rate = (info[0].rate - info[1].rate).abs();
            let mut d_util = 0.0;
            for i in 0..PAIRS {
                let inc = Self::pair_increase(info, i);
                if inc != (self.direction == Direction::Increase) {
                    continue;
                }
                d_util += (info[2 * i].utility - info[2 * i + 1].utility).abs();
            }
            (d_rate, d_util / PAIRS as f64)
        } else {
            ((info[0].rate - self.latest.rate).abs(), (info[0].utility - self.latest.utility).abs())
        };
        if d_rate <= 0.0 {
            return self.cfg.min_rate_change_mbps * 1e6;
        }
        let gradient = d_util / (d_rate / 1e6);
        let mut change = gradient * self.cfg.rate_change_factor * 1e6;
        if self.mode == Mode::DecisionMade {
            let m = ((self.rounds + 1) / 2) as f64;
            change *= m.powf(self.cfg.amplifier_exponent);
        } else {
            self.allowance = 0;
        }
        let bound = self.rate * (self.cfg.initial_boundary + self.cfg.boundary_step * self.allowance as f64);
        if change > bound {
            change = bound;
            self.allowance += 1;
        } else if self.allowance > 0 {
            self.allowance -= 1;
        }
        change.max(self.cfg.min_rate_change_mbps * 1e6)
    }

    fn expiry_at(&self) -> Nanos {
        let k = self.expiries.max(1) as f64;
        let base = if self.rtt.srtt > 0.0 { self.rtt.srtt + 4.0 * self.rtt.rttvar } else { 1e9 };
        self.last_ack + ((k * base) as Nanos + 10 * MS).max(300 * MS)
    }

    fn in_flight(&self) -> bool {
        self.scan < self.next_pn
    }

    fn has_data(&self) -> bool {
        !self.retransmit.is_empty() || self.next_seq < self.written
    }
}

impl DatagramSender for VivaceSender {
    fn write(&mut self, now: Nanos, bytes: u64) {
        if self.written == self.next_seq && self.retransmit.is_empty() {
            self.next_send = self.next_send.max(now);
        }
        self.written = self.written.saturating_add(bytes);
    }

    fn stop_writing(&mut self) {
        // Data written and not sent is discarded; what was sent is still delivered.
        self.written = self.next_seq;
    }

    fn poll_transmit(&mut self, now: Nanos) -> Option<Datagram> {
        if now < self.next_send || !self.has_data() {
            return None;
        }
        // Lost bytes first (UDT's loss list), skipping what the receiver has since had.
        let (seq, len, retransmit) = loop {
            match self.retransmit.pop_front() {
                Some((s, l)) if s + l as u64 <= self.cum_acked => continue,
                Some((s, l)) => break (s, l, true),
                None => {
                    let l = (self.written - self.next_seq).min(self.cfg.packet_bytes as u64) as u32;
                    let s = self.next_seq;
                    self.next_seq += l as u64;
                    break (s, l, false);
                }
            }
        };
        if retransmit {
            self.stats.retransmits += 1;
        }
        let mi = self.current_mi(now);
        let rate = {
            let m = self.mi_mut(mi).expect("current MI");
            m.packets += 1;
            m.bytes_sent += (len + HEADER_BYTES + 28) as u64;
            m.pending += 1;
            m.t_last = now;
            m.rate
        };
        if self.pkts.is_empty() {
            self.last_ack = self.last_ack.max(now);
        }
        let pn = self.next_pn;
        self.next_pn += 1;
        self.pkts.push_back(Pkt { seq, len, sent_at: now, mi, state: PktState::InFlight });
        self.next_send = self.next_send.max(now.saturating_sub(MS)) + (self.wire(len) * 8.0 / rate * SEC as f64) as Nanos;
        Some(Datagram { seq, len, header: [pn as u32, 0], retransmit })
    }

    fn on_feedback(&mut self, now: Nanos, fb: &Feedback) {
        // The 32-bit packet number on the wire, placed next to the ones in flight.
        let low = fb.number as u32 as u64;
        let pn = (self.scan & !0xffff_ffff) | low;
        self.cum_acked = self.cum_acked.max(fb.value);
        if pn < self.pn_base || pn >= self.next_pn {
            return;
        }
        let i = (pn - self.pn_base) as usize;
        let p = self.pkts[i];
        self.last_ack = now;
        self.expiries = 0;
        let rtt = now - p.sent_at;
        self.rtt.sample(rtt);
        if !self.rtt_seen {
            self.rtt_seen = true;
            // code: the starting rate assumed a 100 ms RTT.
            if rtt < 100 * MS && self.mode == Mode::Starting {
                self.rate *= (100 * MS) as f64 / rtt.max(1) as f64;
            }
        }
        if p.state == PktState::InFlight {
            self.pkts[i].state = PktState::Acked;
            if let Some(m) = self.mi_mut(p.mi) {
                m.pending -= 1;
                let x = (p.sent_at - m.t_first) as f64 / SEC as f64;
                let y = rtt as f64 / SEC as f64;
                m.n += 1.0;
                m.sx += x;
                m.sy += y;
                m.sxx += x * x;
                m.sxy += x * y;
            }
        }
        // A gap: every packet sent before this one and still unacknowledged is lost.
        while self.scan < pn {
            self.mark_lost(self.scan);
            self.scan += 1;
        }
        if self.scan == pn {
            self.scan += 1;
        }
        while let Some(p) = self.pkts.front() {
            if p.state == PktState::InFlight || self.pn_base >= self.scan {
                break;
            }
            self.pkts.pop_front();
            self.pn_base += 1;
        }
        self.harvest(now);
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        let send = self.has_data().then_some(self.next_send);
        let exp = self.in_flight().then(|| self.expiry_at());
        match (send, exp) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_timeout(&mut self, now: Nanos) {
        if self.in_flight() && now >= self.expiry_at() {
            // UDT's EXP timer: everything unacknowledged is lost.
            self.stats.timeouts += 1;
            self.expiries += 1;
            while self.scan < self.next_pn {
                self.mark_lost(self.scan);
                self.scan += 1;
            }
            while self.pkts.front().is_some_and(|p| p.state != PktState::InFlight) {
                self.pkts.pop_front();
                self.pn_base += 1;
            }
            if let Some(m) = self.mis.back_mut() {
                m.closed = true;
            }
            self.last_ack = now;
            self.harvest(now);
        }
    }

    fn finished(&self) -> bool {
        self.written != u64::MAX && self.cum_acked >= self.written
    }

    fn srtt(&self) -> Nanos {
        self.rtt.srtt_ns()
    }

    #[inline]
    fn mode(&self) -> u8 {
        self.mode as u8
    }

    fn stats(&self) -> SenderStats {
        self.stats
    }

    fn trace(&self) -> TransportTrace {
        TransportTrace {
            window_bytes: (self.rate / 8.0 * self.rtt.min as f64 / SEC as f64) as u64,
            srtt: self.rtt.srtt_ns(),
            mode: self.mode as u8,
            estimate: self.rate / 1e6,
            flag: self.mode == Mode::Probing,
            aux: self.last_utility,
        }
    }
}

/// PCC-Vivace's receiver: acknowledges every packet at once with its number and the bytes
/// it holds in order (UDT's per-packet acknowledgement in the PCC build).
#[derive(Debug, Default)]
pub struct VivaceReceiver {
    /// Next byte expected in order.
    cum: u64,
    /// Byte ranges received beyond `cum`, sorted and disjoint.
    ooo: VecDeque<(u64, u64)>,
    acks: VecDeque<Feedback>,
}

impl VivaceReceiver {
    /// A receiver.
    pub fn new() -> Self {
        Self::default()
    }

    fn insert(&mut self, start: u64, end: u64) {
        if end <= self.cum {
            return;
        }
        let start = start.max(self.cum);
        if start == self.cum {
            self.cum = end;
            while let Some(&(s, e)) = self.ooo.front() {
                if s > self.cum {
                    break;
                }
                self.cum = self.cum.max(e);
                self.ooo.pop_front();
            }
            return;
        }
        // Merge into the out-of-order ranges.
        let pos = self.ooo.partition_point(|&(s, _)| s < start);
        self.ooo.insert(pos, (start, end));
        let mut i = pos.saturating_sub(1);
        while i + 1 < self.ooo.len() {
            let (s0, e0) = self.ooo[i];
            let (s1, e1) = self.ooo[i + 1];
            if s1 <= e0 {
                self.ooo[i] = (s0, e0.max(e1));
                self.ooo.remove(i + 1);
            } else if i >= pos {
                break;
            } else {
                i += 1;
            }
        }
    }
}

impl DatagramReceiver for VivaceReceiver {
    fn on_datagram(&mut self, _now: Nanos, d: &Datagram) {
        self.insert(d.seq, d.seq + d.len as u64);
        self.acks.push_back(Feedback { number: d.header[0] as u64, value: self.cum, ..Default::default() });
    }

    fn poll_feedback(&mut self, _now: Nanos) -> Option<Feedback> {
        self.acks.pop_front()
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        None
    }

    fn on_timeout(&mut self, _now: Nanos) {}

    fn delivered(&self) -> u64 {
        self.cum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_papers() {
        let c = VivaceConfig::default();
        assert!(c.validate().is_ok());
        assert_eq!((c.exponent, c.latency_coefficient, c.loss_coefficient, c.probing_step), (0.9, 900.0, 11.35, 0.05));
        assert_eq!(VivaceConfig { exponent: 1.0, ..c.clone() }.validate().unwrap_err().0, "exponent");
        assert_eq!(VivaceConfig { packet_bytes: 0, ..c }.validate().unwrap_err().0, "packet_bytes");
    }

    #[test]
    fn utility_follows_the_papers_formula() {
        let c = VivaceConfig::default();
        // 10 Mbit/s, no gradient, no loss: 10^0.9.
        assert!((utility(&c, 10.0, 0.0, 0.0) - 10f64.powf(0.9)).abs() < 1e-12);
        // 5 % loss costs c·x·L = 11.35 · 10 · 0.05.
        assert!((utility(&c, 10.0, 0.0, 0.05) - (10f64.powf(0.9) - 5.675)).abs() < 1e-12);
        // A gradient of 0.01 is noise (filter 0.02); 0.05 costs b·x·g = 450.
        assert_eq!(utility(&c, 10.0, 0.01, 0.0), utility(&c, 10.0, 0.0, 0.0));
        assert!((utility(&c, 10.0, 0.05, 0.0) - (10f64.powf(0.9) - 450.0)).abs() < 1e-9);
    }

    #[test]
    fn receiver_tracks_in_order_bytes() {
        let mut r = VivaceReceiver::new();
        let d = |seq: u64, pn: u32| Datagram { seq, len: 100, header: [pn, 0], retransmit: false };
        r.on_datagram(0, &d(0, 0));
        r.on_datagram(0, &d(200, 2));
        r.on_datagram(0, &d(400, 3));
        assert_eq!(r.delivered(), 100);
        let a: Vec<_> = std::iter::from_fn(|| r.poll_feedback(0)).map(|f| (f.number, f.value)).collect();
        assert_eq!(a, vec![(0, 100), (2, 100), (3, 100)]);
        r.on_datagram(0, &d(100, 4)); // a retransmission fills the first gap
        assert_eq!(r.delivered(), 300);
        r.on_datagram(0, &d(100, 5)); // a duplicate changes nothing
        assert_eq!(r.delivered(), 300);
        r.on_datagram(0, &d(300, 6));
        assert_eq!(r.delivered(), 500);
    }

    /// A fixed link of `mbps` with `delay` each way and a drop-tail buffer of `buffer`
    /// packets, stepped every 100 µs. Returns the sender, receiver, the rate samples (Mbit/s,
    /// each 100 ms) and the queueing delays.
    fn run_link(mbps: f64, delay: Nanos, buffer: usize, secs: u64, seed: u64) -> (VivaceSender, VivaceReceiver, Vec<f64>, Vec<Nanos>) {
        let c = VivaceConfig::default();
        let mut s = VivaceSender::new(&c, seed, 0);
        let mut r = VivaceReceiver::new();
        s.write(0, u64::MAX);
        let mut queue: VecDeque<(Datagram, Nanos)> = VecDeque::new();
        let mut arrivals: VecDeque<(Datagram, Nanos)> = VecDeque::new();
        let mut acks: VecDeque<(Feedback, Nanos)> = VecDeque::new();
        let mut link_free = 0;
        let mut rates = Vec::new();
        let mut sojourn = Vec::new();
        let step = MS / 10;
        let mut t = 0;
        while t < secs * SEC {
            if s.poll_timeout().is_some_and(|w| w <= t) {
                s.on_timeout(t);
            }
            while let Some(d) = s.poll_transmit(t) {
                if queue.len() < buffer {
                    queue.push_back((d, t));
                }
            }
            while let Some(&(d, at)) = queue.front() {
                let start = link_free.max(at);
                if start > t {
                    break;
                }
                queue.pop_front();
                link_free = start + ((d.len + 44) as f64 * 8.0 / (mbps * 1e6) * SEC as f64) as Nanos;
                sojourn.push(link_free - at);
                arrivals.push_back((d, link_free + delay));
            }
            while arrivals.front().is_some_and(|&(_, at)| at <= t) {
                let (d, _) = arrivals.pop_front().unwrap();
                r.on_datagram(t, &d);
                while let Some(fb) = r.poll_feedback(t) {
                    acks.push_back((fb, t + delay));
                }
            }
            while acks.front().is_some_and(|&(_, at)| at <= t) {
                let (fb, _) = acks.pop_front().unwrap();
                s.on_feedback(t, &fb);
            }
            if t % (100 * MS) == 0 {
                rates.push(s.rate_bps() / 1e6);
            }
            t += step;
        }
        (s, r, rates, sojourn)
    }

    #[test]
    fn vivace_converges_near_capacity_with_little_queueing() {
        let (s, r, rates, sojourn) = run_link(20.0, 15 * MS, 1000, 20, 1);
        let tail = &rates[100..];
        let mean = tail.iter().sum::<f64>() / tail.len() as f64;
        assert!(mean > 0.8 * 20.0 && mean < 1.15 * 20.0, "mean rate {mean} Mbit/s of 20");
        let goodput = r.delivered() as f64 * 8.0 / 20.0 / 1e6;
        assert!(goodput > 0.75 * 20.0, "goodput {goodput}");
        let late: Vec<Nanos> = sojourn[sojourn.len() / 2..].to_vec();
        let mean_q = late.iter().sum::<Nanos>() as f64 / late.len() as f64 / MS as f64;
        assert!(mean_q < 30.0, "mean queueing {mean_q} ms");
        assert!(s.mode() != Mode::Starting);
    }

    #[test]
    fn losses_are_retransmitted_and_everything_arrives() {
        // A 10-packet buffer: the starting phase overflows it.
        let c = VivaceConfig::default();
        let (s, r, _, _) = run_link(10.0, 10 * MS, 10, 5, 2);
        assert!(s.stats().losses > 0 && s.stats().retransmits > 0);
        // In-order delivery kept up with what was sent, minus what is in flight.
        assert!(r.delivered() + 2_000_000 > s.next_seq, "{} of {}", r.delivered(), s.next_seq);
        let mut f = VivaceSender::new(&c, 1, 0);
        f.write(0, 3000);
        assert!(!f.finished());
    }

    #[test]
    fn probe_order_is_seeded() {
        let a = run_link(20.0, 15 * MS, 1000, 3, 7).2;
        let b = run_link(20.0, 15 * MS, 1000, 3, 7).2;
        assert_eq!(a, b);
    }
}
