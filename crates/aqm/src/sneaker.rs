//! Sneaker (\[sneaker\]): drop background packets at their arrival at the
//! base station with a probability derived from TCP's steady-state rate, so that each
//! background flow's TCP rate settles at its share of the capacity foreground traffic leaves.
//!
//! **Formulas.** With c_l the background user's capacity (bytes/s), T_l its flow's RTT (s),
//! B the TCP packet size (bytes), L the number of background flows, β TCP's multiplicative
//! decrease, γ = β / (L²B²), τ_F the foreground time share and ρ_l the scheduling
//! probability:
//!
//! - optimal, Eq. (4): `q = 1 − γ(c·T·(1 − τ_F))² / (ρ·(1 + γ(c·T·(1 − τ_F))²))`;
//! - practical, Eq. (5): the same with `max(1 − τ_F, ε)` in place of `1 − τ_F`, which keeps
//!   a background flow alive (rate ≈ ε·c_l/L) when foreground traffic fills the cell;
//! - ρ for PF, Eq. (6): `ρ = 1 − (1 − 1/N)^(RTT/TTI)`; or measured:
//!   `ρ = 1 − (1 − s)^(RTT/TTI)`, s being the measured per-TTI probability that the UE is
//!   scheduled while it has data (the same "scheduled at least once per RTT" reading of ρ).
//!
//! **N in Eq. (6)** is the number of entities PF picks among at the packet's arrival: the
//! UEs with data queued (per-UE queues are our scheduling entities, as the paper's per-flow
//! queues are its), the background's own UE included. Eq. (6) is the chance of being picked
//! at least once in RTT/TTI TTIs when each TTI picks one of N competitors uniformly, so an
//! entity with nothing queued is not one of the N. The paper says only "N"; counting every
//! flow seen within the last `active_window_ms` instead (our first reading) overcounts at
//! scale: in `sneaker-at-scale` (100 users, load 50 %, seed 1) a median of 10 flows were
//! active in the last second, most with nothing queued; ρ (median 0.991) fell below
//! g/(1 + g) (0.997 at the ε share and the median RTT, 44 ms), Eq. (5) clamped to 0 most of
//! the time (mean drop probability 1.5·10⁻⁴, 53 drops in 120 s) and the background kept
//! its PF share. Counting the UEs with data queued gives the same results, within 0.5 %,
//! as ρ measured from the scheduler (`rho = "measured"`), which Eq. (6) approximates.
//!
//! **Clamping.** `1 − τ_F` is first clamped into [0, 1]: the local estimate
//! τ_F ≈ Σ Q_m/R_m counts TTIs of queued foreground work and exceeds 1 whenever a
//! foreground queue holds more than one TTI of data; squaring an unclamped negative
//! `1 − τ_F` would turn an overloaded cell into spare capacity. The result q is then clamped
//! into [0, 1]: since γ(·)²/(1 + γ(·)²) < 1, q can only leave the range downwards, when
//! ρ < γ(·)²/(1 + γ(·)²), i.e. when the scheduler alone already holds TCP below the target
//! rate; no dropping is then the closest achievable probability. A ρ of 0 (a UE never
//! scheduled) is treated the same way.
//!
//! **Signalling** (Section V-A), gathered by the cell into [`CellSignals`]: τ_F ≈ Σ over
//! foreground users of Q_m(t)/R_m(t), c_l ≈ R_l(t) (bytes per TTI with the whole cell, × 1000
//! TTIs/s), L = active background flows; end to end, each packet carries its class and the
//! sender's smoothed RTT (`Packet::rtt_hint`). A packet without an RTT yet (the flow's
//! first round trip) is not dropped. Only background data packets are ever dropped.

use cellshare_core::{Nanos, Packet, PacketKind, Slot, StreamRng, TrafficClass};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::{check_range, CellDropper, CellSignals, CellSite, DropperConfig, EnqueueVerdict, ParamError, SignalNeeds};

/// Which drop probability Sneaker uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SneakerRate {
    /// Eq. (5): `max(1 − τ_F, ε)`, background kept alive.
    #[default]
    Practical,
    /// Eq. (4): `1 − τ_F`, background stopped when foreground fills the cell.
    Optimal,
}

/// Where ρ, the scheduling probability, comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RhoSource {
    /// Eq. (6) for PF: `1 − (1 − 1/N)^(RTT/TTI)`, N the UEs with data queued (the
    /// arriving packet's UE included).
    #[default]
    PfFormula,
    /// Measured by the scheduler: `1 − (1 − s)^(RTT/TTI)` with s the UE's per-TTI scheduling
    /// frequency while backlogged (exponential average over the scheduler's time constant).
    Measured,
}

/// Sneaker's parameters (`cell.aqm = { kind = "sneaker", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SneakerConfig {
    /// `"practical"` (Eq. 5) or `"optimal"` (Eq. 4). Default `"practical"`.
    pub rate: SneakerRate,
    /// ε, the time share kept for background flows when foreground fills the cell
    /// (0 < ε < 1). Default 0.1 (the paper gives no value).
    pub epsilon: f64,
    /// β, TCP's multiplicative decrease in the paper's window model (0 < β < 1). Default
    /// 0.5 (Reno halves its window).
    pub beta: f64,
    /// B, the typical TCP packet size, bytes. Default 1500.
    pub packet_bytes: u32,
    /// `"pf_formula"` (Eq. 6, N = the UEs with data queued) or `"measured"` (the UE's
    /// scheduling frequency while backlogged). Default `"pf_formula"`.
    pub rho: RhoSource,
    /// A background flow counts as active (for L) while its packets arrived at the base
    /// station within this window, ms (> 0). Default 1000.
    pub active_window_ms: f64,
}

impl Default for SneakerConfig {
    fn default() -> Self {
        Self { rate: SneakerRate::Practical, epsilon: 0.1, beta: 0.5, packet_bytes: 1500, rho: RhoSource::PfFormula, active_window_ms: 1000.0 }
    }
}

impl DropperConfig for SneakerConfig {
    type Dropper = Sneaker;

    /// Checks ranges.
    fn validate(&self) -> Result<(), ParamError> {
        check_range("epsilon", self.epsilon, 1e-9, 1.0 - 1e-9, "a share in (0, 1)")?;
        check_range("beta", self.beta, 1e-9, 1.0 - 1e-9, "a decrease factor in (0, 1)")?;
        if self.packet_bytes == 0 {
            return Err(("packet_bytes", "0".into(), "a packet size in bytes >= 1".into()));
        }
        check_range("active_window_ms", self.active_window_ms, 1e-3, 1e9, "a window in ms > 0")
    }

    /// Sneaker on the cell's stream ("sneaker", cell index).
    fn build(&self, site: &CellSite) -> Sneaker {
        Sneaker::new(self, site.rng("sneaker")).on_slot(site.slot)
    }

    fn active_window(&self) -> Nanos {
        cellshare_core::time::from_millis_f64(self.active_window_ms)
    }
}

/// Eq. (4)/(5)'s common form: `1 − g/(ρ(1 + g))` with `g = γ(c·T·share)²`,
/// `γ = β/(L²B²)`, clamped into [0, 1] (see the module documentation).
///
/// `c` in bytes/s, `rtt` in s, `share` the background time share (`1 − τ_F` or
/// `max(1 − τ_F, ε)`, already within [0, 1]), `l` background flows, `b` bytes.
pub fn drop_probability(c: f64, rtt: f64, share: f64, l: u32, b: f64, beta: f64, rho: f64) -> f64 {
    let l = l.max(1) as f64;
    let gamma = beta / (l * l * b * b);
    let x = c * rtt * share;
    let g = gamma * x * x;
    if rho <= 0.0 {
        return 0.0;
    }
    let q = 1.0 - g / (rho * (1.0 + g));
    if q.is_nan() {
        0.0
    } else {
        q.clamp(0.0, 1.0)
    }
}

/// Eq. (4), the optimal drop probability, for a foreground time share `tau_f`.
pub fn optimal_drop_probability(c: f64, rtt: f64, tau_f: f64, l: u32, b: f64, beta: f64, rho: f64) -> f64 {
    drop_probability(c, rtt, (1.0 - tau_f).clamp(0.0, 1.0), l, b, beta, rho)
}

/// Eq. (5), the practical drop probability, for a foreground time share `tau_f`.
#[allow(clippy::too_many_arguments)]
pub fn practical_drop_probability(c: f64, rtt: f64, tau_f: f64, epsilon: f64, l: u32, b: f64, beta: f64, rho: f64) -> f64 {
    drop_probability(c, rtt, (1.0 - tau_f).clamp(0.0, 1.0).max(epsilon), l, b, beta, rho)
}

/// Eq. (6): PF's probability of scheduling an entity at least once in an RTT, `n` entities
/// competing (one picked per TTI, uniformly).
pub fn pf_scheduling_probability(n: u32, rtt: f64, tti: f64) -> f64 {
    if n <= 1 {
        return 1.0;
    }
    1.0 - (1.0 - 1.0 / n as f64).powf(rtt / tti)
}

/// Sneaker's dropper.
#[derive(Clone, Debug)]
pub struct Sneaker {
    cfg: SneakerConfig,
    rng: StreamRng,
    /// The TTI of Eq. (6) and of c_l, s: the cell's scheduling period (see [`Sneaker::on_slot`]).
    tti_s: f64,
}

impl Sneaker {
    /// Sneaker from its configuration and its random stream, in a cell of 1 ms TTIs.
    pub fn new(cfg: &SneakerConfig, rng: StreamRng) -> Self {
        Self { cfg: cfg.clone(), rng, tti_s: Slot::LTE.ns() as f64 / 1e9 }
    }

    /// Sneaker in a cell whose scheduling period is `slot`. The TTI of Eq. (6),
    /// ρ = 1 − (1 − 1/N)^(RTT/TTI), is the scheduler's decision period: the paper's
    /// Section II-A, "time is divided into Transmission Time Intervals (TTIs) [...]. The
    /// scheduler determines which packets should be transmitted from the base station at a
    /// given TTI", and Eq. (6) counts the RTT/TTI draws in which PF picks one of N
    /// competitors. On NR the scheduler decides once per slot, so the TTI is the slot
    /// (1/2^μ ms), not the millisecond; c_l = R_l(t)/TTI likewise divides the bytes of one
    /// slot by the slot.
    pub fn on_slot(mut self, slot: Slot) -> Self {
        self.tti_s = slot.ns() as f64 / 1e9;
        self
    }

    /// The configuration.
    pub fn config(&self) -> &SneakerConfig {
        &self.cfg
    }

    /// The drop probability of a background packet whose flow's RTT is `rtt`, given the
    /// cell's `signals`.
    pub fn probability(&self, rtt: Nanos, s: &CellSignals) -> f64 {
        let t = rtt as f64 / 1e9;
        let tti = self.tti_s;
        let c = s.ue_bytes_per_tti / tti;
        let rho = match (self.cfg.rho, s.measured_sched_share) {
            (RhoSource::Measured, Some(share)) => 1.0 - (1.0 - share.clamp(0.0, 1.0)).powf(t / tti),
            _ => pf_scheduling_probability(s.competing_ues, t, tti),
        };
        let (b, beta) = (self.cfg.packet_bytes as f64, self.cfg.beta);
        match self.cfg.rate {
            SneakerRate::Practical => practical_drop_probability(c, t, s.tau_f, self.cfg.epsilon, s.background_flows, b, beta, rho),
            SneakerRate::Optimal => optimal_drop_probability(c, t, s.tau_f, s.background_flows, b, beta, rho),
        }
    }
}

impl CellDropper for Sneaker {
    fn on_arrival(&mut self, _now: Nanos, pkt: &Packet, signals: &CellSignals) -> EnqueueVerdict {
        if pkt.class != TrafficClass::Background || pkt.kind != PacketKind::Data || pkt.rtt_hint == 0 {
            return EnqueueVerdict::Accept;
        }
        let p = self.probability(pkt.rtt_hint, signals);
        if p > 0.0 && self.rng.gen::<f64>() < p {
            EnqueueVerdict::Drop
        } else {
            EnqueueVerdict::Accept
        }
    }

    fn needs(&self) -> SignalNeeds {
        match self.cfg.rho {
            RhoSource::PfFormula => SignalNeeds::Load,
            RhoSource::Measured => SignalNeeds::LoadAndScheduling,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::{stream_rng, MS};

    const C: f64 = 1.25e6; // 10 Mbps in bytes/s
    const T: f64 = 0.1;
    const B: f64 = 1500.0;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn equation_4_and_5_by_hand() {
        // c·T·(1 − τ_F)/B = 41.667 packets; γ(c·T·(1 − τ_F))² = 0.5 · 41.667² = 868.06;
        // ρ = 1: q = 1 − 868.06/869.06 = 1/869.06 = 0.00115067.
        assert!(close(optimal_drop_probability(C, T, 0.5, 1, B, 0.5, 1.0), 0.001_150_674_423));
        assert!(close(practical_drop_probability(C, T, 0.5, 0.1, 1, B, 0.5, 1.0), 0.001_150_674_423));
        // Two background flows: γ is 4× smaller, g = 217.01, q = 1/218.01 = 0.00458686.
        assert!(close(optimal_drop_probability(C, T, 0.5, 2, B, 0.5, 1.0), 0.004_586_863_732));
        // τ_F = 0.95: optimal uses 0.05 (4.1667 packets, g = 8.6806, q = 1/9.6806 = 0.1033);
        // practical uses ε = 0.1 (8.333 packets, g = 34.722, q = 1/35.722 = 0.02799).
        assert!(close(optimal_drop_probability(C, T, 0.95, 1, B, 0.5, 1.0), 0.103_299_856_528));
        assert!(close(practical_drop_probability(C, T, 0.95, 0.1, 1, B, 0.5, 1.0), 0.027_993_779_160));
    }

    #[test]
    fn tau_f_to_one_stops_optimal_but_keeps_practical_alive() {
        for tau_f in [1.0, 1.3, 25.0] {
            assert_eq!(optimal_drop_probability(C, T, tau_f, 1, B, 0.5, 1.0), 1.0, "τ_F = {tau_f}");
            assert!(close(practical_drop_probability(C, T, tau_f, 0.1, 1, B, 0.5, 1.0), 0.027_993_779_160), "τ_F = {tau_f}");
        }
    }

    #[test]
    fn rho_below_one_and_clamping() {
        // c·T = 1500 bytes = B, share 1: g = 0.5; ρ = 0.8: q = 1 − 0.5/(0.8·1.5) = 0.583333.
        assert!(close(optimal_drop_probability(150_000.0, 0.01, 0.0, 1, B, 0.5, 0.8), 1.0 - 0.5 / 1.2));
        // ρ = 0.5 with g = 868.06: 1 − 1.9977 < 0 → clamped to 0.
        assert_eq!(optimal_drop_probability(C, T, 0.5, 1, B, 0.5, 0.5), 0.0);
        assert_eq!(optimal_drop_probability(C, T, 0.5, 1, B, 0.5, 0.0), 0.0);
        // Eq. (6): N = 2, RTT = 3 TTIs: 1 − 0.5³ = 0.875; N = 10, 20 TTIs: 1 − 0.9²⁰.
        assert!(close(pf_scheduling_probability(2, 0.003, 0.001), 0.875));
        assert!(close(pf_scheduling_probability(10, 0.02, 0.001), 1.0 - 0.9f64.powi(20)));
        assert_eq!(pf_scheduling_probability(1, 0.02, 0.001), 1.0);
    }

    #[test]
    fn dropper_uses_the_packet_rtt_and_cell_signals() {
        let mut s = Sneaker::new(&SneakerConfig::default(), stream_rng(1, "sneaker", 0));
        // 1250 bytes per TTI = 1.25e6 bytes/s; τ_F = 0.95, one background flow, 2 UEs with
        // data queued.
        let sig = CellSignals { tau_f: 0.95, ue_bytes_per_tti: 1250.0, background_flows: 1, competing_ues: 2, ..Default::default() };
        let p = s.probability(100 * MS, &sig);
        let rho = pf_scheduling_probability(2, 0.1, 0.001);
        assert!(close(p, practical_drop_probability(C, T, 0.95, 0.1, 1, B, 0.5, rho)));
        let bg = Packet { class: TrafficClass::Background, rtt_hint: 100 * MS, ..Default::default() };
        let n = 100_000;
        let drops = (0..n).filter(|_| s.on_arrival(0, &bg, &sig) == EnqueueVerdict::Drop).count();
        assert!((drops as f64 / n as f64 - p).abs() < 0.003, "{drops}");
        // Foreground, ACKs and packets without an RTT yet are never dropped.
        let fg = Packet { class: TrafficClass::Foreground, rtt_hint: 100 * MS, ..Default::default() };
        let no_rtt = Packet { class: TrafficClass::Background, ..Default::default() };
        let busy = CellSignals { tau_f: 5.0, ..sig };
        let mut opt = Sneaker::new(&SneakerConfig { rate: SneakerRate::Optimal, ..Default::default() }, stream_rng(1, "sneaker", 0));
        for _ in 0..100 {
            assert_eq!(opt.on_arrival(0, &fg, &busy), EnqueueVerdict::Accept);
            assert_eq!(opt.on_arrival(0, &no_rtt, &busy), EnqueueVerdict::Accept);
            assert_eq!(opt.on_arrival(0, &bg, &busy), EnqueueVerdict::Drop);
        }
        // Measured ρ: share 0.5 per TTI over 100 TTIs ≈ 1.
        let measured = Sneaker::new(&SneakerConfig { rho: RhoSource::Measured, ..Default::default() }, stream_rng(1, "sneaker", 0));
        let sig_m = CellSignals { measured_sched_share: Some(0.01), ..sig };
        let rho_m = 1.0 - 0.99f64.powf(100.0);
        assert!(close(measured.probability(100 * MS, &sig_m), practical_drop_probability(C, T, 0.95, 0.1, 1, B, 0.5, rho_m)));
    }

    #[test]
    fn on_nr_the_tti_is_the_slot() {
        // μ = 2: slots of 0.25 ms. 312.5 bytes per slot is the same 1.25e6 bytes/s as 1250 per
        // ms; a 10 ms RTT holds 40 slots, so N = 4 gives ρ = 1 − 0.75⁴⁰, not 1 − 0.75¹⁰.
        let s = Sneaker::new(&SneakerConfig::default(), stream_rng(1, "sneaker", 0)).on_slot(Slot::nr(2).unwrap());
        let sig = CellSignals { tau_f: 0.5, ue_bytes_per_tti: 312.5, background_flows: 1, competing_ues: 4, ..Default::default() };
        let rho = 1.0 - 0.75f64.powi(40);
        assert!(close(s.probability(10 * MS, &sig), practical_drop_probability(1.25e6, 0.01, 0.5, 0.1, 1, B, 0.5, rho)));
        let lte = Sneaker::new(&SneakerConfig::default(), stream_rng(1, "sneaker", 0));
        let sig_lte = CellSignals { ue_bytes_per_tti: 1250.0, ..sig };
        let rho_lte = 1.0 - 0.75f64.powi(10);
        assert!(close(lte.probability(10 * MS, &sig_lte), practical_drop_probability(1.25e6, 0.01, 0.5, 0.1, 1, B, 0.5, rho_lte)));
    }
}
