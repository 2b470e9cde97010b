//! Stochastic LTE radio channel.
//!
//! Each UE gets one wideband SINR per TTI,
//!
//! > SINR(t) = S · G_shadow(t) · G_fading(t) / (N + I),
//!
//! turned into a transport block size index by SINR → CQI → MCS → I_TBS
//! ([`crate::lte_tables`]):
//!
//! - **S**, the received power per PRB: P_tx − 10·log10(N_PRB) − PL(d) dBm, the eNB's power
//!   spread evenly over the cell's PRBs;
//! - **PL(d)**, log-distance path loss: PL(d) = FSPL(d₀, f_c) + 10·n·log10(d / d₀), whose
//!   reference loss is the free-space loss 20·log10(4π·d₀·f_c / c) at the reference distance d₀.
//!   Distances below d₀ count as d₀;
//! - **N**, thermal noise per PRB: −174 dBm/Hz + 10·log10(180 kHz) + noise figure;
//! - **I**, an optional constant interference power over the band, spread over the PRBs like S;
//! - **G_shadow**, log-normal shadowing: a Gauss–Markov (AR(1), Gudmundson \[gudmundson\])
//!   process in dB, updated every [`SHADOWING_STEP_MS`] ms, whose correlation falls to 1/e after the
//!   decorrelation time;
//! - **G_fading**, Rayleigh fast fading with a Jakes Doppler spectrum for the UE's speed, read
//!   from precomputed tables (see below).
//!
//! The CQI follows the rule and the report timing of the cell's
//! [`LinkAdaptation`](crate::LinkAdaptation) ([`RadioChannel::set_link_adaptation`]; by
//! default ns-3's `PiroEW2010` rule on a report of the TTI itself, the ideal link): a
//! scheduling decision in TTI t sees the CQI measured in TTI m(t) = ⌊(t − D)/P⌋·P, while a
//! block sent in TTI t' meets the SINR of TTI t' ([`RadioChannel::sinr_at`]); the cell draws
//! the block errors ([`crate::error_model`]) and runs HARQ.
//!
//! Not modelled: frequency-selective fading (all PRBs see the same gain, so the scheduler has
//! no frequency diversity to exploit), rank adaptation (the number of layers is configured;
//! both layers see the wideband SINR) and inter-cell interference dynamics.
//!
//! # Fast fading
//!
//! A Rayleigh process with Doppler frequency f_d = v·f_c / c is generated once per Doppler
//! frequency, as two independent tables A and B of [`FADING_TABLE_LEN`] complex gains, one per
//! millisecond, each a sum of sinusoids (Zheng & Xiao, "Simulation models with correct
//! statistical properties for Rayleigh fading channels", IEEE Trans. Commun. 51(6), 2003,
//! \[zheng-xiao\])
//! normalized to unit mean power over the table. The tables depend on the Doppler frequency
//! only, and are shared (through an [`Arc`]) by every channel with that Doppler frequency. A
//! UE reads them at two offsets of its own, a and b, drawn from its random stream:
//!
//! > h(t) = (A[(a + t) mod L] + B[(b + t) mod L]) / √2,  G_fading(t) = |h(t)|².
//!
//! The sum of two independent unit-power Rayleigh processes with the same Doppler spectrum,
//! scaled by 1/√2, is again one, so each UE sees a Rayleigh process; two UEs see correlated
//! fading only when both of their offsets nearly coincide, which makes fading practically
//! independent across UEs even though they share the tables. A UE's fading repeats every
//! [`FADING_TABLE_LEN`] ms (≈ 32.8 s). At speed 0 the fading is a constant Rayleigh gain drawn
//! per UE.
//!
//! # Purity and randomness
//!
//! [`RadioChannel::quality`] is a pure function of the configuration, the state of the UE's
//! random stream when the channel was built, and the TTI: the shadowing process advances
//! through its steps with draws from a stream of its own, one draw per step however many TTIs
//! are queried, and restarts from its first step if asked about an earlier TTI. Queries with
//! non-decreasing TTIs cost O(1) amortized.
//!
//! At construction the channel draws, in this order and whatever the configuration: the
//! placement within `distance_range_m`, the seed of the shadowing stream, the two fading offsets
//! and the static fading gain. Changing one part of the configuration therefore never changes
//! the draws of another (turning shadowing on leaves the fading unchanged).

use std::f64::consts::PI;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use cellshare_core::StreamRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

use crate::interference::LinkBudget;
use crate::nr_link::{NrRadio, NrTbsTable};
use crate::{lte_tables, LinkAdaptation, LinkQuality};

/// Speed of light in m/s.
const SPEED_OF_LIGHT_M_S: f64 = 299_792_458.0;
/// Thermal noise power spectral density at 290 K, dBm/Hz.
const THERMAL_NOISE_DBM_PER_HZ: f64 = -174.0;
/// Bandwidth of one PRB (12 subcarriers of 15 kHz), Hz.
const PRB_BANDWIDTH_HZ: f64 = 180e3;

/// Period of the shadowing process's updates, in ms (TTIs).
pub const SHADOWING_STEP_MS: u64 = 100;

/// Length of a fast-fading table, in ms (TTIs): 2¹⁵ ≈ 32.8 s. A power of two, so that a table
/// lookup is a mask.
pub const FADING_TABLE_LEN: usize = 1 << 15;
const FADING_INDEX_MASK: u64 = FADING_TABLE_LEN as u64 - 1;
/// Sinusoids per quadrature branch of the sum-of-sinusoids generator.
const FADING_SINUSOIDS: usize = 16;
/// Scenario-independent seed of the fading tables (they depend on the Doppler frequency only).
const FADING_TABLE_SEED: u64 = 0x6c74_652d_6661_6465;

fn default_carrier_mhz() -> f64 {
    751.0
}
fn default_tx_power_dbm() -> f64 {
    47.78
}
fn default_path_loss_exponent() -> f64 {
    3.52
}
fn default_reference_distance_m() -> f64 {
    1.0
}
fn default_noise_figure_db() -> f64 {
    9.0
}
fn default_shadowing_decorrelation_s() -> f64 {
    5.0
}
fn default_speed_kmh() -> f64 {
    3.0
}
fn default_layers() -> u8 {
    1
}

/// Fast-fading model of a radio channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Fading {
    /// Rayleigh fading with a Jakes Doppler spectrum for the UE's speed (`speed_kmh`).
    #[default]
    Rayleigh,
    /// No fast fading: the SINR only follows path loss and shadowing.
    None,
}

/// Parameters of a UE's stochastic radio channel. Give exactly one of `distance_m` and
/// `distance_range_m`; every other key has a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RadioConfig {
    /// Distance from the eNB in metres, the same for every UE of the group. Must be > 0 and at
    /// most 100 km (LTE's largest cell radius). Give exactly one of `distance_m` and
    /// `distance_range_m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance_m: Option<f64>,
    /// Distance range `[min, max]` from the eNB in metres, with 0 ≤ min < max ≤ 100 km: each UE is placed
    /// uniformly at random over the annulus between the two radii (r = √U(min², max²), drawn
    /// from the UE's random stream). Give exactly one of `distance_m` and `distance_range_m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance_range_m: Option<[f64; 2]>,
    /// Downlink carrier frequency in MHz; sets the reference path loss and the Doppler
    /// frequency. Default 751 MHz (the Sneaker set-up's downlink band).
    #[serde(default = "default_carrier_mhz")]
    pub carrier_mhz: f64,
    /// eNB transmit power in dBm (−30 to 80), spread evenly over the cell's PRBs. Default
    /// 47.78 dBm (the Sneaker set-up's eNB).
    #[serde(default = "default_tx_power_dbm")]
    pub tx_power_dbm: f64,
    /// Path loss exponent n of the log-distance model PL(d) = PL(d₀) + 10·n·log10(d/d₀). Must
    /// be > 0. Default 3.52 (the papers' ns-3 set-ups).
    #[serde(default = "default_path_loss_exponent")]
    pub path_loss_exponent: f64,
    /// Reference distance d₀ of the log-distance model in metres; the loss at d₀ is the
    /// free-space loss at the carrier, and UEs closer than d₀ get that loss. Must be > 0.
    /// Default 1 m.
    #[serde(default = "default_reference_distance_m")]
    pub reference_distance_m: f64,
    /// UE receiver noise figure in dB, added to the thermal noise of −174 dBm/Hz. Must be ≥ 0.
    /// Default 9 dB (the ns-3 UE default).
    #[serde(default = "default_noise_figure_db")]
    pub noise_figure_db: f64,
    /// Standard deviation of the log-normal shadowing in dB; 0 turns shadowing off. Must be ≥ 0.
    /// Default 0 (off, as in the papers' ns-3 set-ups; 8 dB is typical of urban macro cells).
    #[serde(default)]
    pub shadowing_std_db: f64,
    /// Decorrelation time of the shadowing in seconds: the correlation between the shadowing at
    /// two instants Δt apart is exp(−Δt / this). It is the decorrelation distance divided by
    /// the UE's speed (e.g. 50 m at 36 km/h is 5 s). The process is updated every 100 ms. Must
    /// be > 0. Default 5 s.
    #[serde(default = "default_shadowing_decorrelation_s")]
    pub shadowing_decorrelation_s: f64,
    /// Fast fading: `"rayleigh"` (Rayleigh with a Jakes Doppler spectrum) or `"none"`. Default
    /// `"rayleigh"`.
    #[serde(default)]
    pub fading: Fading,
    /// UE speed in km/h, which sets the Doppler frequency of the fast fading
    /// (f_d = v · f_c / c: 2.1 Hz at 3 km/h and 751 MHz). Must be in [0, 1000]; 0 gives a constant
    /// fading gain per UE. Default 3 km/h (pedestrian).
    #[serde(default = "default_speed_kmh")]
    pub speed_kmh: f64,
    /// Spatial layers per transport block: 1, or 2 for 2×2 spatial multiplexing on an LTE
    /// cell; 1 to 4 on an NR cell, at most the UE's capability `cell.nr.ue_max_layers` (every
    /// layer sees the wideband SINR; no rank adaptation). Default 1.
    #[serde(default = "default_layers")]
    pub layers: u8,
    /// Constant interference power in dBm received over the whole band (spread evenly over the
    /// PRBs like the signal), e.g. from neighbouring cells; −200 to 80 dBm. Default none (no
    /// interference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference_dbm: Option<f64>,
}

impl RadioConfig {
    /// A configuration with the UE `distance_m` metres from the eNB and every other key at its
    /// default.
    pub fn at_distance(distance_m: f64) -> Self {
        Self { distance_m: Some(distance_m), ..Self::defaults() }
    }

    /// A configuration placing UEs uniformly over the annulus between `min_m` and `max_m`
    /// metres from the eNB, every other key at its default.
    pub fn in_range(min_m: f64, max_m: f64) -> Self {
        Self { distance_range_m: Some([min_m, max_m]), ..Self::defaults() }
    }

    /// Every key at its default and no distance (not valid on its own).
    fn defaults() -> Self {
        Self {
            distance_m: None,
            distance_range_m: None,
            carrier_mhz: default_carrier_mhz(),
            tx_power_dbm: default_tx_power_dbm(),
            path_loss_exponent: default_path_loss_exponent(),
            reference_distance_m: default_reference_distance_m(),
            noise_figure_db: default_noise_figure_db(),
            shadowing_std_db: 0.0,
            shadowing_decorrelation_s: default_shadowing_decorrelation_s(),
            fading: Fading::default(),
            speed_kmh: default_speed_kmh(),
            layers: default_layers(),
            interference_dbm: None,
        }
    }

    /// Checks the configuration; the first problem found names its key.
    pub fn validate(&self) -> Result<(), ConfigIssue> {
        const ONE_DISTANCE: &str = "exactly one of `distance_m` and `distance_range_m`";
        match (self.distance_m, self.distance_range_m) {
            (Some(_), Some(_)) => {
                return Err(ConfigIssue::new(
                    "distance_range_m",
                    "both `distance_m` and `distance_range_m`",
                    ONE_DISTANCE,
                ))
            }
            (None, None) => {
                return Err(ConfigIssue::new("distance_m", "neither `distance_m` nor `distance_range_m`", ONE_DISTANCE))
            }
            (Some(d), None) => check(d > 0.0 && d <= MAX_DISTANCE_M, "distance_m", d, "a distance in metres in (0, 100000]")?,
            (None, Some([lo, hi])) => {
                if !(lo >= 0.0 && hi <= MAX_DISTANCE_M && hi > lo) {
                    return Err(ConfigIssue::new(
                        "distance_range_m",
                        format!("[{lo}, {hi}]"),
                        "[min, max] in metres with 0 <= min < max <= 100000",
                    ));
                }
            }
        }
        self.validate_link()
    }

    /// Checks every key but the placement (`distance_m`, `distance_range_m`): a UE of a
    /// network of cells is placed by its mobility instead.
    pub fn validate_link(&self) -> Result<(), ConfigIssue> {
        let c = self;
        check(
            c.carrier_mhz > 0.0 && c.carrier_mhz.is_finite(),
            "carrier_mhz",
            c.carrier_mhz,
            "a frequency in MHz > 0",
        )?;
        let p = c.tx_power_dbm;
        check((-30.0..=80.0).contains(&p), "tx_power_dbm", p, "a power in dBm in [-30, 80]")?;
        let n = c.path_loss_exponent;
        check(n > 0.0 && n.is_finite(), "path_loss_exponent", n, "an exponent > 0")?;
        let d0 = c.reference_distance_m;
        check(d0 > 0.0 && d0.is_finite(), "reference_distance_m", d0, "a distance in metres > 0")?;
        let nf = c.noise_figure_db;
        check(nf >= 0.0 && nf.is_finite(), "noise_figure_db", nf, "a noise figure in dB >= 0")?;
        let std = c.shadowing_std_db;
        check(std >= 0.0 && std.is_finite(), "shadowing_std_db", std, "a standard deviation in dB >= 0")?;
        let tc = c.shadowing_decorrelation_s;
        check(tc > 0.0 && tc.is_finite(), "shadowing_decorrelation_s", tc, "a time in seconds > 0")?;
        check((0.0..=1000.0).contains(&c.speed_kmh), "speed_kmh", c.speed_kmh, "a speed in km/h in [0, 1000]")?;
        // LTE's limit of 2 and an NR UE's capability are checked with the cell (the
        // scenario's validation), which knows the RAT.
        check((1..=4).contains(&c.layers), "layers", c.layers, "1 to 4 (1 or 2 on an LTE cell)")?;
        if let Some(i) = c.interference_dbm {
            check((-200.0..=80.0).contains(&i), "interference_dbm", i, "a power in dBm in [-200, 80]")?;
        }
        Ok(())
    }
}

/// The farthest a UE may be placed from its eNB, m: LTE's largest cell radius (100 km). Bounds
/// like this one and the powers' are physical limits, so that a typo (1e6 dBm, 1e12 m) is an
/// error instead of a run of nonsense.
const MAX_DISTANCE_M: f64 = 100_000.0;

/// `Ok` if `ok`, otherwise an issue with `field` holding `value`.
fn check(ok: bool, field: &'static str, value: impl fmt::Display, expected: &str) -> Result<(), ConfigIssue> {
    if ok {
        Ok(())
    } else {
        Err(ConfigIssue::new(field, value, expected))
    }
}

/// A problem found by [`RadioConfig::validate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigIssue {
    /// The offending key, as spelled in a scenario file (e.g. `"distance_m"`).
    pub field: &'static str,
    /// The value found, rendered as text.
    pub value: String,
    /// What the key should hold.
    pub expected: String,
}

impl ConfigIssue {
    fn new(field: &'static str, value: impl fmt::Display, expected: impl fmt::Display) -> Self {
        Self { field, value: value.to_string(), expected: expected.to_string() }
    }
}

impl fmt::Display for ConfigIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is {}, expected {}", self.field, self.value, self.expected)
    }
}

impl std::error::Error for ConfigIssue {}

/// A UE's stochastic radio channel (see the [module documentation](self)).
///
/// The fields are laid out in the order given (`repr(C)`): what a link-quality reload and a
/// block's SINR read first, together in the first cache lines (the report timing, the
/// network's link budget inline rather than behind a pointer of its own, the fading state,
/// the shadowing cursor, the CQI thresholds), the precomputed blocks next, and what only
/// set-up, measurements and moves read last. With 210 UEs in 7 cells a reload used to touch
/// seven scattered lines of this struct and the budget's separate allocation; the layout
/// changes no value.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct RadioChannel {
    /// TTIs from a CQI measurement to the decisions that use it (D).
    cqi_delay: u64,
    /// TTIs between CQI measurements (P ≥ 1).
    cqi_period: u64,
    /// log2 of `cqi_period` when it is a power of two (ns-3's 2 TTIs, and 1), else `None`:
    /// the per-reload divisions by P become shifts.
    cqi_period_shift: Option<u32>,
    /// The first measurement TTI of `fading_block` (u64::MAX: none).
    fading_block_start: u64,
    /// The first measurement TTI of `cqi_block` (u64::MAX: none).
    cqi_block_start: u64,
    layers: u8,
    /// The CQI computed last in a network of cells (where the block is not used), from which
    /// the next one is walked to.
    last_cqi: u8,
    /// In a network of cells: the CQI of measurement TTI `ahead_tti` (u64::MAX: none),
    /// computed by the last reload (see [`network_span`](Self::network_span)).
    ahead_cqi: u8,
    /// μ of the cell's slot (0 for LTE): the time index of the fading tables and of the
    /// shadowing process is the millisecond, `slot >> ms_shift` (see [`set_slot`](Self::set_slot)).
    ms_shift: u8,
    ahead_tti: u64,
    /// Linear SINR without shadowing and fading: S / (N + I).
    base_sinr: f64,
    /// In a network of cells ([`set_budget`](Self::set_budget)): the link budget towards the
    /// serving cell, whose interference changes TTI by TTI (`base_sinr` is then unused).
    budget: Option<LinkBudget>,
    fading: FadingState,
    shadowing: Option<Shadowing>,
    /// Linear SINR from which each CQI 1..=15 is reported (the link adaptation's rule).
    cqi_thresholds: [f64; 15],
    /// The same shadowing process read by [`RadioChannel::sinr_at`] (blocks on air), a cursor
    /// of its own so that reading ahead of the CQI measurements never replays the process.
    air_shadowing: Option<Shadowing>,
    /// CQIs of the measurement TTIs `cqi_block_start + k·cqi_period`, k < CQI_BLOCK, computed
    /// in one sequential sweep of the fading tables. The scheduler asks every backlogged UE every
    /// TTI; answering from this block turns scattered table reads into streaming ones. The
    /// CQI is a pure function of the TTI, so the block changes speed, never answers.
    cqi_block: [u8; CQI_BLOCK],
    /// In a network of cells: |A + B|² of the fading tables (see [`FadingTables::power_gain`])
    /// at the measurement TTIs `fading_block_start + k·P`, read in one sequential sweep. A
    /// reload reads its fading from here instead of two far-apart table entries: with 210 UEs
    /// over 7 Doppler tables those reads missed the caches and the TLB at almost every reload.
    fading_block: [f32; CQI_BLOCK],
    /// A third cursor over the shadowing process, for the network's RSRP measurements.
    meas_shadowing: Option<Shadowing>,
    distance_m: f64,
    path_loss_db: f64,
    mean_snr_db: f64,
    doppler_hz: f64,
    noise_figure_db: f64,
    /// The configured carrier, Hz (for Doppler changes of a moving UE).
    carrier_hz: f64,
    /// On an NR carrier ([`set_nr`](Self::set_nr)): its TBS table and the MCS of each CQI.
    nr_tbs: Option<&'static NrTbsTable>,
    nr_mcs: [Option<u8>; 16],
    /// Bandwidth of one PRB, Hz: 12 subcarriers of 15 kHz (LTE), of 15·2^μ kHz (NR).
    prb_hz: f64,
}

/// Measurement TTIs per block of precomputed CQIs.
const CQI_BLOCK: usize = 64;

impl RadioChannel {
    /// Builds the channel of a UE in a cell of `n_prb` PRBs, drawing its placement, shadowing
    /// stream and fading offsets from the UE's own random stream `rng`.
    ///
    /// # Panics
    /// If `cfg` does not pass [`RadioConfig::validate`] or `n_prb` is 0.
    pub fn new(cfg: &RadioConfig, n_prb: u32, rng: &mut StreamRng) -> Self {
        if let Err(issue) = cfg.validate() {
            panic!("invalid radio configuration: {issue}");
        }
        assert!(n_prb > 0, "a cell needs at least one PRB");

        // Draws, always all of them and in this order (see the module documentation).
        let u_place: f64 = rng.gen();
        let shadowing_seed: [u8; 16] = rng.gen();
        let (offset_a, offset_b): (u64, u64) = (rng.gen(), rng.gen());
        let u_static: f64 = rng.gen();

        let distance_m = match (cfg.distance_m, cfg.distance_range_m) {
            (Some(d), _) => d,
            (None, Some([lo, hi])) => (lo * lo + u_place * (hi * hi - lo * lo)).sqrt(),
            (None, None) => unreachable!("validated"),
        };

        let carrier_hz = cfg.carrier_mhz * 1e6;
        let d0 = cfg.reference_distance_m;
        let reference_loss_db = 20.0 * (4.0 * PI * d0 * carrier_hz / SPEED_OF_LIGHT_M_S).log10();
        let path_loss_db = reference_loss_db + 10.0 * cfg.path_loss_exponent * (distance_m.max(d0) / d0).log10();
        let prb_share_db = 10.0 * f64::from(n_prb).log10();
        let signal_dbm = cfg.tx_power_dbm - prb_share_db - path_loss_db;
        let noise_dbm = THERMAL_NOISE_DBM_PER_HZ + 10.0 * PRB_BANDWIDTH_HZ.log10() + cfg.noise_figure_db;
        let interference_mw = cfg.interference_dbm.map_or(0.0, |i| db_to_linear(i - prb_share_db));
        let base_sinr = db_to_linear(signal_dbm) / (db_to_linear(noise_dbm) + interference_mw);

        let shadowing = (cfg.shadowing_std_db > 0.0).then(|| {
            Shadowing::new(cfg.shadowing_std_db, cfg.shadowing_decorrelation_s, StreamRng::from_seed(shadowing_seed))
        });

        let doppler_hz = cfg.speed_kmh / 3.6 * carrier_hz / SPEED_OF_LIGHT_M_S;
        let fading = match cfg.fading {
            Fading::None => FadingState::None,
            // The power of a Rayleigh gain is exponentially distributed with mean 1.
            Fading::Rayleigh if doppler_hz == 0.0 => FadingState::Static(-(1.0 - u_static).ln()),
            Fading::Rayleigh => FadingState::Table { tables: fading_tables(doppler_hz), offset_a, offset_b },
        };

        Self {
            distance_m,
            path_loss_db,
            mean_snr_db: signal_dbm - noise_dbm,
            base_sinr,
            doppler_hz,
            layers: cfg.layers,
            noise_figure_db: cfg.noise_figure_db,
            air_shadowing: shadowing.clone(),
            meas_shadowing: shadowing.clone(),
            shadowing,
            fading,
            cqi_thresholds: lte_tables::CQI_SINR_THRESHOLD_LINEAR,
            cqi_period: 1,
            cqi_period_shift: Some(0),
            cqi_delay: 0,
            cqi_block: [0; CQI_BLOCK],
            cqi_block_start: u64::MAX,
            fading_block: [0.0; CQI_BLOCK],
            fading_block_start: u64::MAX,
            last_cqi: 0,
            ahead_cqi: 0,
            ms_shift: 0,
            ahead_tti: u64::MAX,
            budget: None,
            carrier_hz,
            nr_tbs: None,
            nr_mcs: [None; 16],
            prb_hz: PRB_BANDWIDTH_HZ,
        }
    }

    /// Puts the channel in a network of cells: from now on its SINR follows `budget` (the
    /// serving cell's signal and the other cells' load-weighted interference, see
    /// [`crate::interference`]) instead of the fixed distance and `interference_dbm` of its
    /// configuration. Call again whenever the UE has moved. The fading and shadowing are
    /// the channel's own as before.
    pub fn set_budget(&mut self, budget: LinkBudget) {
        match &mut self.budget {
            Some(b) => b.assign(&budget),
            None => self.budget = Some(budget),
        }
        self.mean_snr_db = 10.0 * (self.budget.as_ref().expect("set").signal_mw / self.budget.as_ref().expect("set").noise_mw).log10();
        // The fading block stays: the fading does not depend on the budget.
        self.cqi_block_start = u64::MAX;
        self.ahead_tti = u64::MAX;
    }

    /// Thermal noise per PRB of this channel's receiver, mW.
    pub fn noise_mw(&self) -> f64 {
        db_to_linear(THERMAL_NOISE_DBM_PER_HZ + 10.0 * self.prb_hz.log10()) * db_to_linear(self.noise_figure_db())
    }

    fn noise_figure_db(&self) -> f64 {
        self.noise_figure_db
    }

    /// Sets the UE's speed, which drives the fast fading's Doppler frequency (a moving UE's
    /// speed changes; the fading continues from the same table offsets in the tables of the
    /// new Doppler frequency). A channel without fast fading ignores it; speed 0 keeps the
    /// current gain's table position frozen at a static draw.
    pub fn set_speed_kmh(&mut self, speed_kmh: f64) {
        let doppler_hz = speed_kmh.max(0.0) / 3.6 * self.carrier_hz / SPEED_OF_LIGHT_M_S;
        if doppler_hz.to_bits() == self.doppler_hz.to_bits() {
            return;
        }
        self.doppler_hz = doppler_hz;
        if let FadingState::Table { tables, .. } = &mut self.fading {
            if doppler_hz > 0.0 {
                *tables = fading_tables(doppler_hz);
            }
        }
        self.cqi_block_start = u64::MAX;
        self.fading_block_start = u64::MAX;
        self.ahead_tti = u64::MAX;
    }

    /// Counts the channel's time in the slots of `slot` (an NR cell's 1/2^μ ms; LTE's 1 ms
    /// TTI is the default). The fast fading and the shadowing are processes in time, not in
    /// slots: a slot reads the fading table's and the shadowing process's millisecond that
    /// holds it, so the Doppler spectrum and the decorrelation distance are those of the
    /// configuration at every numerology (the fading is held over the 2^μ slots of a
    /// millisecond: at 3 km/h on 3.5 GHz the coherence time, ≈ 0.423/f_d, is 43 ms). The
    /// CQI report's period and delay ([`set_link_adaptation`](Self::set_link_adaptation))
    /// count slots, as TS 38.214 §5.2.1.4's CSI report periodicities do.
    pub fn set_slot(&mut self, slot: cellshare_core::Slot) {
        self.ms_shift = slot.shift() as u8;
        self.cqi_block_start = u64::MAX;
        self.fading_block_start = u64::MAX;
        self.ahead_tti = u64::MAX;
    }

    /// Puts the channel on an NR carrier: the CQI follows `nr`'s rule (TS 38.214 § 5.2.2.1,
    /// until the cell's link adaptation replaces the thresholds), and the quality is the
    /// [`LinkQuality::Nr`] of the MCS scheduled for the CQI. Call [`set_slot`](Self::set_slot)
    /// for the carrier's numerology too.
    ///
    /// A PRB of the carrier spans `nr.prb_hz` (12 subcarriers of 15·2^μ kHz): the noise per
    /// PRB grows by prb_hz / 180 kHz over LTE's while the signal per PRB stays P_tx / N_PRB,
    /// so the SINR per PRB falls by that factor (the carrier's power is spread over a wider
    /// band). Call once, on a channel built for the carrier's PRB count.
    pub fn set_nr(&mut self, nr: &NrRadio) {
        let wider = nr.prb_hz / self.prb_hz;
        self.prb_hz = nr.prb_hz;
        // The interference, spread over the PRBs like S, is unchanged per PRB; only the
        // thermal part N grows to N·w: 1/SINR' = (N·w + I)/S = 1/SINR + (w − 1)·N/S.
        let snr = db_to_linear(self.mean_snr_db);
        self.base_sinr = 1.0 / (1.0 / self.base_sinr + (wider - 1.0) / snr);
        self.mean_snr_db -= 10.0 * wider.log10();
        self.cqi_thresholds = nr.cqi_thresholds;
        self.nr_tbs = Some(nr.tbs);
        self.nr_mcs = nr.cqi_to_mcs;
        self.cqi_block_start = u64::MAX;
        self.ahead_tti = u64::MAX;
    }

    /// Shadowing in dB in TTI (slot) `tti` (0 without shadowing), read through a cursor of its
    /// own (the network's measurements).
    pub fn shadowing_db_at(&mut self, tti: u64) -> f64 {
        let ms = tti >> self.ms_shift;
        self.meas_shadowing.as_mut().map_or(0.0, |s| {
            s.gain_at(ms);
            s.value_db
        })
    }

    /// Distance from the eNB in metres (drawn at construction for `distance_range_m`).
    pub fn distance_m(&self) -> f64 {
        self.distance_m
    }

    /// Path loss in dB at the UE's distance.
    pub fn path_loss_db(&self) -> f64 {
        self.path_loss_db
    }

    /// Signal-to-noise ratio in dB from path loss alone: without shadowing, fading or
    /// interference.
    pub fn mean_snr_db(&self) -> f64 {
        self.mean_snr_db
    }

    /// Doppler frequency of the fast fading in Hz.
    pub fn doppler_hz(&self) -> f64 {
        self.doppler_hz
    }

    /// Wideband SINR in dB in TTI `tti`, with shadowing, fading and interference.
    pub fn sinr_db(&mut self, tti: u64) -> f64 {
        10.0 * self.sinr_linear(tti).log10()
    }

    /// Installs the cell's link adaptation: its CQI thresholds and report timing.
    pub fn set_link_adaptation(&mut self, la: &LinkAdaptation) {
        assert!(la.cqi_period_tti >= 1, "the CQI period is at least one TTI");
        self.cqi_thresholds = la.cqi_thresholds;
        self.cqi_period = la.cqi_period_tti as u64;
        self.cqi_period_shift = la.cqi_period_tti.is_power_of_two().then(|| la.cqi_period_tti.trailing_zeros());
        self.cqi_delay = la.cqi_delay_tti as u64;
        self.cqi_block_start = u64::MAX;
        self.fading_block_start = u64::MAX;
        self.ahead_tti = u64::MAX;
    }

    /// Wideband CQI (0..=15) the UE measures in TTI `tti`.
    #[inline]
    pub fn cqi(&mut self, tti: u64) -> u8 {
        let sinr = self.sinr_linear(tti);
        lte_tables::count_reached(&self.cqi_thresholds, sinr)
    }

    /// The TTI whose CQI measurement a scheduling decision in TTI `tti` uses:
    /// ⌊(tti − D)/P⌋·P (TTI 0's before the first report arrives).
    #[inline]
    pub fn report_tti(&self, tti: u64) -> u64 {
        let t = tti.saturating_sub(self.cqi_delay);
        self.periods(t) * self.cqi_period
    }

    /// Link quality a scheduling decision in TTI `tti` sees: the MCS of the CQI measured in
    /// [`report_tti`](Self::report_tti)`(tti)` (`None` at CQI 0) and the layers.
    #[inline]
    pub fn quality(&mut self, tti: u64) -> LinkQuality {
        self.quality_span(tti).0
    }

    /// [`quality`](Self::quality) in TTI `tti` and the last TTI (inclusive) up to which it is
    /// known to stay the same.
    #[inline]
    pub fn quality_span(&mut self, tti: u64) -> (LinkQuality, u64) {
        let m = self.report_tti(tti);
        let (cqi, until_m) = if self.budget.is_some() { self.network_span(m, tti) } else { self.measured_span(m) };
        // Decisions t' use report m(t') ≤ until_m while t' − D < (⌊until_m/P⌋ + 1)·P.
        let until = (self.periods(until_m) + 1) * self.cqi_period + self.cqi_delay - 1;
        let q = match self.nr_tbs {
            None => LinkQuality::Tbs { mcs: lte_tables::cqi_to_mcs_table(cqi), layers: self.layers },
            Some(tbs) => LinkQuality::Nr { mcs: self.nr_mcs[cqi as usize], layers: self.layers, tbs },
        };
        (q, until.max(tti))
    }

    /// ⌊x / P⌋, a shift when P is a power of two.
    #[inline(always)]
    fn periods(&self, x: u64) -> u64 {
        match self.cqi_period_shift {
            Some(k) => x >> k,
            None => x / self.cqi_period,
        }
    }

    /// The CQI measured in TTI `tti` (a measurement TTI, a multiple of the report period P)
    /// and the last measurement TTI (inclusive) of the current CQI block up to which every
    /// measurement gives the same CQI. Only measurement TTIs are computed and compared: the
    /// CQIs of the TTIs between two reports are never used.
    #[inline]
    fn measured_span(&mut self, tti: u64) -> (u8, u64) {
        let d = tti.wrapping_sub(self.cqi_block_start);
        let k = self.periods(d);
        let k = if k * self.cqi_period == d { k } else { u64::MAX };
        let i = if tti >= self.cqi_block_start && k < CQI_BLOCK as u64 {
            k as usize
        } else {
            self.fill_cqi_block(tti);
            0
        };
        let cqi = self.cqi_block[i];
        let run = self.cqi_block[i + 1..].iter().take_while(|&&c| c == cqi).count();
        (cqi, tti + run as u64 * self.cqi_period)
    }

    /// In a network of cells: the CQI measured in TTI `m` (a measurement TTI) for a decision
    /// in TTI `decision`, and the last measurement TTI up to which every measurement gives the
    /// same CQI, as far as it is known at the decision.
    ///
    /// A measurement in TTI r reads the loads of TTI r − 1, which are final once the network
    /// has run TTI r − 1: for a decision in TTI `decision`, the measurements r ≤ `decision`
    /// (the network runs TTI `decision` − 1 before it, and writes the rows of later TTIs only).
    /// Their CQIs are computed here in order while they equal the CQI of `m`; the first one
    /// that differs is kept for the reload that will ask for it (the span ends just before
    /// it), so each measurement's SINR is still computed once, and a report whose CQI repeats
    /// costs no reload of its own. What is computed is exactly what the reload of that report
    /// would compute: the same shadowing, fading and budget (a new budget, speed or link
    /// adaptation forgets the kept CQI), and the loads of a final row. The walk stays within
    /// the shadowing step and the fading block of `m`, so that no cursor has to go back.
    /// (Computing whole blocks ahead was measured slower: more SINRs computed than used.)
    #[inline]
    fn network_span(&mut self, m: u64, decision: u64) -> (u8, u64) {
        let first = if self.ahead_tti == m { self.ahead_cqi } else { self.network_cqi(m) };
        self.ahead_tti = u64::MAX;
        let p = self.cqi_period;
        // The last measurement TTI the walk may reach: a final row, the same shadowing step,
        // the fading block that holds `m` (filled by `network_cqi` or by the walk that
        // computed the kept CQI).
        let mut limit = decision.min((m / SHADOWING_STEP_MS + 1) * SHADOWING_STEP_MS - 1);
        let table = matches!(self.fading, FadingState::Table { .. });
        if table {
            limit = limit.min(self.fading_block_start + (CQI_BLOCK as u64 - 1) * p);
        }
        if m + p > limit {
            return (first, m);
        }
        // What `network_cqi` computes for each r, with what stays the same hoisted: the
        // shadowing of the step, the fading block's position.
        let shadowing = self.shadowing.as_mut().map_or(1.0, |s| s.gain_at(m));
        let mut k = if table { self.periods(m - self.fading_block_start) as usize } else { 0 };
        let mut r = m;
        while r + p <= limit {
            r += p;
            k += 1;
            let base = self.base_sinr_at(r);
            let fading = if table { 0.5 * f64::from(self.fading_block[k]) } else { self.fading.gain(r) };
            let sinr = base * shadowing * fading;
            let cqi = if sinr.is_nan() {
                lte_tables::count_reached(&self.cqi_thresholds, sinr)
            } else {
                lte_tables::cqi_near(&self.cqi_thresholds, sinr, self.last_cqi)
            };
            self.last_cqi = cqi;
            if cqi != first {
                (self.ahead_tti, self.ahead_cqi) = (r, cqi);
                return (first, r - p);
            }
        }
        (first, r)
    }

    /// The CQI of measurement TTI `tti` in a network, walked from the last one computed (the
    /// same CQI as comparing against all 15 thresholds, since they ascend; a NaN SINR, which a
    /// budget cannot produce, would stay at the last CQI, so it takes the full count).
    #[inline]
    fn network_cqi(&mut self, tti: u64) -> u8 {
        let sinr = self.network_sinr(tti);
        let cqi = if sinr.is_nan() {
            lte_tables::count_reached(&self.cqi_thresholds, sinr)
        } else {
            lte_tables::cqi_near(&self.cqi_thresholds, sinr, self.last_cqi)
        };
        self.last_cqi = cqi;
        cqi
    }

    /// [`sinr_linear`](Self::sinr_linear) of measurement TTI `tti` in a network, the table
    /// fading read from the fading block (the same value: the block keeps the f32 sum of
    /// squares that [`FadingTables::power_gain`] scales).
    #[inline]
    fn network_sinr(&mut self, tti: u64) -> f64 {
        let ms = tti >> self.ms_shift;
        let shadowing = self.shadowing.as_mut().map_or(1.0, |s| s.gain_at(ms));
        let base = self.base_sinr_at(tti);
        let fading = match &self.fading {
            FadingState::Table { .. } => self.block_fading(tti),
            other => other.gain(ms),
        };
        base * shadowing * fading
    }

    /// Table fading gain of measurement TTI `tti` from the fading block, refilled from `tti`
    /// when `tti` is not one of its entries.
    #[inline]
    fn block_fading(&mut self, tti: u64) -> f64 {
        let d = tti.wrapping_sub(self.fading_block_start);
        let k = self.periods(d);
        let i = if tti >= self.fading_block_start && k * self.cqi_period == d && k < CQI_BLOCK as u64 {
            k as usize
        } else {
            self.fill_fading_block(tti);
            0
        };
        0.5 * f64::from(self.fading_block[i])
    }

    #[inline(never)]
    fn fill_fading_block(&mut self, tti: u64) {
        let FadingState::Table { tables, offset_a, offset_b } = &self.fading else {
            unreachable!("called for table fading")
        };
        let p = self.cqi_period;
        let sh = self.ms_shift;
        for (k, g) in self.fading_block.iter_mut().enumerate() {
            let t = (tti + k as u64 * p) >> sh;
            *g = tables.sum_of_squares(offset_a.wrapping_add(t), offset_b.wrapping_add(t));
        }
        self.fading_block_start = tti;
    }

    /// Computes the CQIs of the [`CQI_BLOCK`] measurement TTIs `tti + k·P` in one sequential
    /// sweep of the fading tables. Consecutive measurements' SINRs are close: each walks from
    /// the previous CQI instead of comparing against all 15 thresholds (the same CQI, since the
    /// thresholds ascend).
    #[inline(never)]
    fn fill_cqi_block(&mut self, tti: u64) {
        let p = self.cqi_period;
        let thresholds = self.cqi_thresholds;
        let sh = self.ms_shift;
        let mut cqi = self.cqi(tti);
        self.cqi_block[0] = cqi;
        match (&self.shadowing, &self.fading) {
            // The common case, without the per-TTI dispatch: no shadowing, table fading.
            (None, FadingState::Table { tables, offset_a, offset_b }) => {
                for k in 1..CQI_BLOCK {
                    let t = (tti + k as u64 * p) >> sh;
                    let g = tables.power_gain(offset_a.wrapping_add(t), offset_b.wrapping_add(t));
                    cqi = lte_tables::cqi_near(&thresholds, self.base_sinr * g, cqi);
                    self.cqi_block[k] = cqi;
                }
            }
            _ => {
                for k in 1..CQI_BLOCK {
                    cqi = lte_tables::cqi_near(&thresholds, self.sinr_linear(tti + k as u64 * p), cqi);
                    self.cqi_block[k] = cqi;
                }
            }
        }
        self.cqi_block_start = tti;
    }

    /// Linear SINR of a block on air in TTI `tti` (with shadowing, fading and interference):
    /// what the error model judges. Reads the channel through a cursor of its own, so calls
    /// may run ahead of the CQI measurements at no cost.
    #[inline]
    pub fn sinr_at(&mut self, tti: u64) -> f64 {
        let ms = tti >> self.ms_shift;
        let shadowing = self.air_shadowing.as_mut().map_or(1.0, |s| s.gain_at(ms));
        self.base_sinr_at(tti) * shadowing * self.fading.gain(ms)
    }

    /// Spatial layers per transport block.
    pub fn layers(&self) -> u8 {
        self.layers
    }

    /// Linear SINR in TTI `tti`.
    #[inline]
    fn sinr_linear(&mut self, tti: u64) -> f64 {
        let ms = tti >> self.ms_shift;
        let shadowing = self.shadowing.as_mut().map_or(1.0, |s| s.gain_at(ms));
        self.base_sinr_at(tti) * shadowing * self.fading.gain(ms)
    }

    /// Linear SINR without shadowing and fading in TTI `tti`.
    #[inline]
    fn base_sinr_at(&mut self, tti: u64) -> f64 {
        match &mut self.budget {
            None => self.base_sinr,
            Some(b) => b.base_sinr(tti),
        }
    }
}

/// Power ratio of `db` decibels.
#[inline]
fn db_to_linear(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// Log-normal shadowing: an AR(1) process in dB, one value per [`SHADOWING_STEP_MS`] step,
/// s₀ = σ·z₀ and s_{k+1} = ρ·s_k + σ·√(1 − ρ²)·z_{k+1}, with the z drawn in step order from a
/// stream of its own.
#[derive(Clone, Debug)]
#[repr(C)]
struct Shadowing {
    // What a read in the same step touches first (`repr(C)`: in this order).
    step: u64,
    /// Power ratio of `value_db`.
    gain: f64,
    value_db: f64,
    /// Correlation between consecutive steps, exp(−step / decorrelation time).
    rho: f64,
    /// Standard deviation of the innovation, σ·√(1 − ρ²).
    innovation_db: f64,
    std_db: f64,
    /// The stream after the draw of step `step`.
    rng: StreamRng,
    /// The stream as it was before step 0's draw, to replay from the start.
    start: StreamRng,
}

impl Shadowing {
    fn new(std_db: f64, decorrelation_s: f64, rng: StreamRng) -> Self {
        let rho = (-(SHADOWING_STEP_MS as f64 / 1000.0) / decorrelation_s).exp();
        let mut s = Self {
            std_db,
            rho,
            innovation_db: std_db * (1.0 - rho * rho).sqrt(),
            start: rng.clone(),
            rng,
            step: 0,
            value_db: 0.0,
            gain: 1.0,
        };
        s.restart();
        s
    }

    /// Back to step 0.
    fn restart(&mut self) {
        self.rng = self.start.clone();
        let z: f64 = self.rng.sample(StandardNormal);
        self.step = 0;
        self.value_db = self.std_db * z;
        self.gain = db_to_linear(self.value_db);
    }

    /// Shadowing power gain in millisecond `ms` (the TTI of an LTE cell).
    #[inline]
    fn gain_at(&mut self, ms: u64) -> f64 {
        let step = ms / SHADOWING_STEP_MS;
        if step != self.step {
            self.advance_to(step);
        }
        self.gain
    }

    #[cold]
    fn advance_to(&mut self, step: u64) {
        if step < self.step {
            self.restart();
        }
        while self.step < step {
            let z: f64 = self.rng.sample(StandardNormal);
            self.value_db = self.rho * self.value_db + self.innovation_db * z;
            self.step += 1;
        }
        self.gain = db_to_linear(self.value_db);
    }
}

/// A channel's fast fading.
#[derive(Clone, Debug)]
enum FadingState {
    /// No fast fading.
    None,
    /// A constant power gain (Rayleigh at speed 0).
    Static(f64),
    /// Rayleigh fading read from shared tables at the UE's offsets.
    Table { tables: Arc<FadingTables>, offset_a: u64, offset_b: u64 },
}

impl FadingState {
    /// Fast-fading power gain in millisecond `ms` (the TTI of an LTE cell).
    #[inline]
    fn gain(&self, ms: u64) -> f64 {
        match self {
            FadingState::None => 1.0,
            FadingState::Static(g) => *g,
            FadingState::Table { tables, offset_a, offset_b } => {
                tables.power_gain(offset_a.wrapping_add(ms), offset_b.wrapping_add(ms))
            }
        }
    }
}

/// One complex gain per ms: [in-phase, quadrature].
type FadingTable = [[f32; 2]; FADING_TABLE_LEN];

/// Two independent unit-power Rayleigh processes for one Doppler frequency.
struct FadingTables {
    doppler_hz: f64,
    a: Box<FadingTable>,
    b: Box<FadingTable>,
}

impl fmt::Debug for FadingTables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FadingTables").field("doppler_hz", &self.doppler_hz).field("len", &FADING_TABLE_LEN).finish()
    }
}

impl FadingTables {
    /// The tables of Doppler frequency `doppler_hz`, from a stream that depends on it alone.
    fn generate(doppler_hz: f64) -> Self {
        let mut rng = cellshare_core::stream_rng(FADING_TABLE_SEED, "fading-table", doppler_hz.to_bits());
        let a = sum_of_sinusoids(doppler_hz, &mut rng);
        let b = sum_of_sinusoids(doppler_hz, &mut rng);
        Self { doppler_hz, a, b }
    }

    /// Power gain |(A[ia] + B[ib]) / √2|², indices taken modulo the table length.
    #[inline]
    fn power_gain(&self, ia: u64, ib: u64) -> f64 {
        0.5 * f64::from(self.sum_of_squares(ia, ib))
    }

    /// |A[ia] + B[ib]|² in f32, which [`power_gain`](Self::power_gain) scales by ½.
    #[inline]
    fn sum_of_squares(&self, ia: u64, ib: u64) -> f32 {
        let [ar, ai] = self.a[(ia & FADING_INDEX_MASK) as usize];
        let [br, bi] = self.b[(ib & FADING_INDEX_MASK) as usize];
        let (re, im) = (ar + br, ai + bi);
        re * re + im * im
    }
}

/// One Rayleigh process sampled every ms for [`FADING_TABLE_LEN`] ms, by the Zheng–Xiao sum of
/// sinusoids, X(t) = X_c(t) + j·X_s(t) with
/// X_c(t) = Σₙ cos(ω_d·t·cos αₙ + φₙ), X_s(t) = Σₙ cos(ω_d·t·sin αₙ + ψₙ),
/// αₙ = (2πn − π + θ) / 4M, n = 1..M, and θ, φₙ, ψₙ uniform on [−π, π); scaled to unit mean
/// power over the table. Each sinusoid is a phasor rotated by a fixed step per sample.
fn sum_of_sinusoids(doppler_hz: f64, rng: &mut StreamRng) -> Box<FadingTable> {
    let m = FADING_SINUSOIDS;
    let omega_per_ms = 2.0 * PI * doppler_hz * 1e-3;
    let theta = rng.gen_range(-PI..PI);
    // Per branch (in-phase, quadrature) and sinusoid: the phasor (re, im) and its rotation per
    // sample (c, s), as arrays of their own so the rotations vectorize. The sum over the
    // sinusoids keeps its order (n = 1..M), so the table does not depend on how it is computed.
    let mut re = [[0.0f64; FADING_SINUSOIDS]; 2];
    let mut im = [[0.0f64; FADING_SINUSOIDS]; 2];
    let mut c = [[0.0f64; FADING_SINUSOIDS]; 2];
    let mut s = [[0.0f64; FADING_SINUSOIDS]; 2];
    for branch in 0..2 {
        for n in 1..=m {
            let alpha = (2.0 * PI * n as f64 - PI + theta) / (4 * m) as f64;
            let freq = omega_per_ms * if branch == 0 { alpha.cos() } else { alpha.sin() };
            let phase = rng.gen_range(-PI..PI);
            (re[branch][n - 1], im[branch][n - 1]) = (phase.cos(), phase.sin());
            (c[branch][n - 1], s[branch][n - 1]) = (freq.cos(), freq.sin());
        }
    }
    let mut samples = vec![[0.0f64; 2]; FADING_TABLE_LEN];
    for sample in samples.iter_mut() {
        for branch in 0..2 {
            let (re, im, c, s) = (&mut re[branch], &mut im[branch], &c[branch], &s[branch]);
            let mut sum = 0.0;
            for &x in re.iter() {
                sum += x;
            }
            sample[branch] = sum;
            for n in 0..FADING_SINUSOIDS {
                (re[n], im[n]) = (re[n] * c[n] - im[n] * s[n], re[n] * s[n] + im[n] * c[n]);
            }
        }
    }
    let mean_power = samples.iter().map(|[x, y]| x * x + y * y).sum::<f64>() / FADING_TABLE_LEN as f64;
    let scale = 1.0 / mean_power.sqrt();
    let table: Vec<[f32; 2]> = samples.iter().map(|[x, y]| [(x * scale) as f32, (y * scale) as f32]).collect();
    table.into_boxed_slice().try_into().expect("the table has FADING_TABLE_LEN entries")
}

/// Doppler frequencies whose fading tables stay cached when no channel uses them (each pair of
/// tables takes 512 KiB).
const FADING_CACHE_CAPACITY: usize = 24;

/// The shared fading tables of Doppler frequency `doppler_hz`, built on first use. The tables of
/// the [`FADING_CACHE_CAPACITY`] most recently requested Doppler frequencies stay cached, so
/// that building channels one after another (a sweep of short runs) does not rebuild them.
fn fading_tables(doppler_hz: f64) -> Arc<FadingTables> {
    static CACHE: OnceLock<Mutex<Vec<Arc<FadingTables>>>> = OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let tables = match cache.iter().position(|t| t.doppler_hz.to_bits() == doppler_hz.to_bits()) {
        Some(i) => cache.remove(i),
        None => Arc::new(FadingTables::generate(doppler_hz)),
    };
    if cache.len() == FADING_CACHE_CAPACITY {
        cache.remove(0);
    }
    cache.push(Arc::clone(&tables));
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(i: u64) -> StreamRng {
        cellshare_core::stream_rng(42, "radio-test", i)
    }

    fn channel(cfg: &RadioConfig, i: u64) -> RadioChannel {
        RadioChannel::new(cfg, 50, &mut rng(i))
    }

    fn still(distance_m: f64) -> RadioConfig {
        RadioConfig { fading: Fading::None, ..RadioConfig::at_distance(distance_m) }
    }

    #[test]
    fn what_a_reload_reads_is_in_the_first_cache_lines() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<RadioChannel>(), 64);
        // The report timing, the budget (inline), the fading state and the shadowing cursor's
        // step and gain: the first three lines. Where `Option` puts its payload is not
        // specified, so the shadowing gain's place is measured on a channel that has one.
        let ch = channel(&RadioConfig { shadowing_std_db: 4.0, ..still(300.0) }, 1);
        let sh = ch.shadowing.as_ref().expect("shadowing on");
        let gain_end = (&sh.gain as *const f64 as usize) - (&ch as *const RadioChannel as usize) + size_of::<f64>();
        assert!(offset_of!(Shadowing, step) < offset_of!(Shadowing, gain));
        for end in [
            offset_of!(RadioChannel, last_cqi) + 1,
            offset_of!(RadioChannel, budget) + size_of::<Option<LinkBudget>>(),
            offset_of!(RadioChannel, fading) + size_of::<FadingState>(),
            gain_end,
        ] {
            assert!(end <= 192, "a field a reload reads ends at byte {end}");
        }
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let c = RadioConfig::at_distance(250.0);
        assert_eq!(c.validate(), Ok(()));
        assert_eq!((c.carrier_mhz, c.tx_power_dbm, c.path_loss_exponent), (751.0, 47.78, 3.52));
        assert_eq!((c.reference_distance_m, c.noise_figure_db), (1.0, 9.0));
        assert_eq!((c.shadowing_std_db, c.shadowing_decorrelation_s), (0.0, 5.0));
        assert_eq!((c.fading, c.speed_kmh, c.layers, c.interference_dbm), (Fading::Rayleigh, 3.0, 1, None));
    }

    #[test]
    fn schema_documents_every_key() {
        let schema = schemars::schema_for!(RadioConfig);
        let object = schema.schema.object.as_ref().expect("an object schema");
        let mut keys: Vec<&str> = object.properties.keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut expected = vec![
            "distance_m",
            "distance_range_m",
            "carrier_mhz",
            "tx_power_dbm",
            "path_loss_exponent",
            "reference_distance_m",
            "noise_figure_db",
            "shadowing_std_db",
            "shadowing_decorrelation_s",
            "fading",
            "speed_kmh",
            "layers",
            "interference_dbm",
        ];
        expected.sort_unstable();
        assert_eq!(keys, expected);
        assert!(object.required.is_empty(), "every key has a default: {:?}", object.required);
        for (key, prop) in &object.properties {
            let described = match prop {
                schemars::schema::Schema::Object(o) => {
                    o.metadata.as_ref().and_then(|m| m.description.as_ref()).is_some()
                }
                schemars::schema::Schema::Bool(_) => false,
            };
            assert!(described, "`{key}` has no description");
        }
    }

    #[test]
    fn snr_follows_the_link_budget() {
        // 100 m at 751 MHz: FSPL(1 m) = 29.961 dB, PL = 29.961 + 35.2 · 2 = 100.361 dB; signal per
        // PRB = 47.78 − 10·log10(50) − 100.361 = −69.571 dBm; noise per PRB = −174 + 52.553 + 9
        // = −112.447 dBm; SNR = 42.877 dB.
        let ch = channel(&still(100.0), 0);
        assert!((ch.path_loss_db() - 100.361).abs() < 1e-3, "{}", ch.path_loss_db());
        assert!((ch.mean_snr_db() - 42.877).abs() < 1e-3, "{}", ch.mean_snr_db());
        // Ten times farther: 35.2 dB more loss.
        assert!((channel(&still(1000.0), 0).mean_snr_db() - (42.877 - 35.2)).abs() < 1e-3);
        // Inside the reference distance the loss is the reference loss.
        assert!((channel(&still(0.5), 0).path_loss_db() - 29.961).abs() < 1e-3);
        // Without fading or shadowing the SINR is the mean SNR, every TTI.
        let mut ch = ch;
        assert!((ch.sinr_db(12_345) - ch.mean_snr_db()).abs() < 1e-9);
    }

    #[test]
    fn interference_equal_to_noise_costs_3_db() {
        let n_prb = 50.0f64;
        let noise_per_prb_dbm = -174.0 + 10.0 * 180e3f64.log10() + 9.0;
        let cfg = RadioConfig { interference_dbm: Some(noise_per_prb_dbm + 10.0 * n_prb.log10()), ..still(800.0) };
        let mut ch = channel(&cfg, 0);
        assert!((ch.mean_snr_db() - ch.sinr_db(0) - 10.0 * 2f64.log10()).abs() < 1e-9);
    }

    #[test]
    fn near_ues_get_high_cqi_and_far_ues_low_cqi() {
        let mut near = channel(&still(100.0), 0);
        let mut far = channel(&still(1500.0), 0);
        assert_eq!(near.cqi(0), 15);
        assert!(far.cqi(0) <= 3, "far CQI {}", far.cqi(0));
        assert_eq!(near.quality(0), LinkQuality::Tbs { mcs: Some(28), layers: 1 });
        // With the default Rayleigh fading, the median CQI over 10 s tells them apart too.
        let median_cqi = |d: f64| {
            let mut ch = channel(&RadioConfig::at_distance(d), 3);
            let mut c: Vec<u8> = (0..10_000).map(|t| ch.cqi(t)).collect();
            c.sort_unstable();
            c[c.len() / 2]
        };
        assert!(median_cqi(100.0) >= 14);
        assert!(median_cqi(1500.0) <= 3);
        // Out of range: nothing can be sent.
        let mut lost = channel(&still(20_000.0), 0);
        assert_eq!(lost.quality(0), LinkQuality::Tbs { mcs: None, layers: 1 });
    }

    #[test]
    fn two_layers_are_reported() {
        let mut ch = channel(&RadioConfig { layers: 2, ..still(300.0) }, 0);
        assert!(matches!(ch.quality(7), LinkQuality::Tbs { mcs: Some(_), layers: 2 }));
    }

    #[test]
    fn fading_tables_have_unit_mean_power_and_rayleigh_statistics() {
        for speed in [3.0, 60.0] {
            let ch = channel(&RadioConfig { speed_kmh: speed, ..RadioConfig::at_distance(100.0) }, 0);
            let FadingState::Table { tables, .. } = &ch.fading else { panic!("expected a fading table") };
            for table in [&tables.a, &tables.b] {
                let mean = table.iter().map(|[x, y]| f64::from(x * x + y * y)).sum::<f64>() / FADING_TABLE_LEN as f64;
                assert!((mean - 1.0).abs() < 1e-4, "table mean power {mean} at {speed} km/h");
            }
            // A UE's gain over one period: mean ≈ 1, and P(gain < 0.1) ≈ 1 − e^−0.1 ≈ 0.095
            // (exponentially distributed power).
            let gains: Vec<f64> = (0..FADING_TABLE_LEN as u64).map(|t| ch.fading.gain(t)).collect();
            let mean = gains.iter().sum::<f64>() / gains.len() as f64;
            let deep = gains.iter().filter(|&&g| g < 0.1).count() as f64 / gains.len() as f64;
            let tolerance = if speed < 10.0 { 0.2 } else { 0.05 };
            assert!((mean - 1.0).abs() < tolerance, "UE mean power {mean} at {speed} km/h");
            assert!((deep - 0.095).abs() < 0.5 * tolerance, "P(gain < 0.1) = {deep} at {speed} km/h");
        }
        // Averaged over many UEs the mean power is 1 even at pedestrian speed.
        let cfg = RadioConfig::at_distance(100.0);
        let mut sum = 0.0;
        for ue in 0..200 {
            let ch = channel(&cfg, ue);
            sum += (0..1000).map(|t| ch.fading.gain(t * 7)).sum::<f64>() / 1000.0;
        }
        assert!((sum / 200.0 - 1.0).abs() < 0.05, "mean over UEs {}", sum / 200.0);
    }

    /// Correlation coefficient of the fading power gain at `lag_ms`, over one table period.
    fn gain_autocorrelation(ch: &RadioChannel, lag_ms: u64) -> f64 {
        let n = FADING_TABLE_LEN as u64;
        let g: Vec<f64> = (0..n + lag_ms).map(|t| ch.fading.gain(t)).collect();
        let mean = g[..n as usize].iter().sum::<f64>() / n as f64;
        let var = g[..n as usize].iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        let cov = (0..n as usize).map(|i| (g[i] - mean) * (g[i + lag_ms as usize] - mean)).sum::<f64>() / n as f64;
        cov / var
    }

    #[test]
    fn fading_decorrelates_faster_at_higher_speed() {
        let at = |speed: f64| channel(&RadioConfig { speed_kmh: speed, ..RadioConfig::at_distance(100.0) }, 1);
        let (walk, drive) = (at(3.0), at(60.0));
        assert!((walk.doppler_hz() - 2.088).abs() < 1e-3, "{}", walk.doppler_hz());
        // Jakes: the power gain correlates as J0²(2π·f_d·τ): 0.97 at 3 km/h and ≈ 0 at 60 km/h
        // for τ = 20 ms.
        let (slow, fast) = (gain_autocorrelation(&walk, 20), gain_autocorrelation(&drive, 20));
        assert!(slow > 0.85, "3 km/h: {slow}");
        assert!(fast < 0.3, "60 km/h: {fast}");
        assert!(gain_autocorrelation(&drive, 1) > fast);
    }

    #[test]
    fn ues_with_the_same_doppler_share_tables_but_not_fading() {
        let cfg = RadioConfig::at_distance(100.0);
        let (a, b) = (channel(&cfg, 1), channel(&cfg, 2));
        let (FadingState::Table { tables: ta, .. }, FadingState::Table { tables: tb, .. }) = (&a.fading, &b.fading)
        else {
            panic!("expected fading tables")
        };
        assert!(Arc::ptr_eq(ta, tb));
        // The tables depend on the Doppler frequency alone, cached or not.
        let fresh = FadingTables::generate(a.doppler_hz());
        assert!(fresh.a[..] == ta.a[..] && fresh.b[..] == ta.b[..]);
        // Their power gains are practically uncorrelated.
        let n = 20_000u64;
        let (ga, gb): (Vec<f64>, Vec<f64>) = (0..n).map(|t| (a.fading.gain(t), b.fading.gain(t))).unzip();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (ma, mb) = (mean(&ga), mean(&gb));
        let cov = ga.iter().zip(&gb).map(|(x, y)| (x - ma) * (y - mb)).sum::<f64>() / n as f64;
        let sd = |v: &[f64], m: f64| (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!((cov / (sd(&ga, ma) * sd(&gb, mb))).abs() < 0.2);
    }

    #[test]
    fn static_ue_has_constant_fading_of_its_own() {
        let cfg = RadioConfig { speed_kmh: 0.0, ..RadioConfig::at_distance(400.0) };
        let mut a = channel(&cfg, 1);
        let mut b = channel(&cfg, 2);
        let first = a.sinr_db(0);
        assert!((0..5000).all(|t| a.sinr_db(t) == first));
        assert_ne!(first, b.sinr_db(0));
    }

    #[test]
    fn answers_do_not_depend_on_which_ttis_were_queried() {
        let cfg =
            RadioConfig { shadowing_std_db: 8.0, shadowing_decorrelation_s: 1.0, ..RadioConfig::at_distance(700.0) };
        let mut every = channel(&cfg, 9);
        let mut sparse = channel(&cfg, 9);
        let all: Vec<(LinkQuality, f64)> = (0..20_000).map(|t| (every.quality(t), every.sinr_db(t))).collect();
        for t in (0..20_000).step_by(7) {
            assert_eq!((sparse.quality(t), sparse.sinr_db(t)), all[t as usize], "TTI {t}");
        }
        // Even going back in time gives the same answers.
        for t in [19_999, 3, 15_000, 0] {
            assert_eq!((sparse.quality(t), sparse.sinr_db(t)), all[t as usize], "TTI {t}");
        }
        // A long silence, then an answer as if every TTI had been queried.
        let mut late = channel(&cfg, 9);
        assert_eq!(late.sinr_db(19_950), all[19_950].1);
    }

    #[test]
    fn same_stream_same_channel() {
        let cfg = RadioConfig { shadowing_std_db: 6.0, ..RadioConfig::in_range(50.0, 1200.0) };
        let run = |i: u64| {
            let mut ch = channel(&cfg, i);
            (ch.distance_m(), (0..3000).map(|t| ch.sinr_db(t)).collect::<Vec<f64>>())
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
    }

    #[test]
    fn turning_shadowing_on_keeps_placement_and_fading() {
        let plain = RadioConfig::in_range(50.0, 1200.0);
        let shadowed = RadioConfig { shadowing_std_db: 6.0, ..plain.clone() };
        let (mut a, mut b) = (channel(&plain, 4), channel(&shadowed, 4));
        assert_eq!(a.distance_m(), b.distance_m());
        // Within one shadowing step the two differ by a constant offset in dB.
        let offset = b.sinr_db(0) - a.sinr_db(0);
        for t in 1..SHADOWING_STEP_MS {
            assert!((b.sinr_db(t) - a.sinr_db(t) - offset).abs() < 1e-9);
        }
    }

    #[test]
    fn shadowing_has_the_configured_spread_and_memory() {
        let cfg = RadioConfig {
            shadowing_std_db: 8.0,
            shadowing_decorrelation_s: 1.0,
            fading: Fading::None,
            ..RadioConfig::at_distance(500.0)
        };
        let mut ch = channel(&cfg, 11);
        let snr = ch.mean_snr_db();
        let s: Vec<f64> = (0..40_000u64).map(|k| ch.sinr_db(k * SHADOWING_STEP_MS) - snr).collect();
        let n = s.len() as f64;
        let mean = s.iter().sum::<f64>() / n;
        let var = s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        let lag1 = s.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum::<f64>() / (n - 1.0) / var;
        assert!((var.sqrt() - 8.0).abs() < 0.5, "std {}", var.sqrt());
        assert!(mean.abs() < 1.0, "mean {mean}");
        assert!((lag1 - (-0.1f64).exp()).abs() < 0.02, "lag-1 correlation {lag1}");
    }

    #[test]
    fn range_placement_is_uniform_over_the_annulus() {
        let cfg = RadioConfig { fading: Fading::None, ..RadioConfig::in_range(100.0, 1000.0) };
        let d: Vec<f64> = (0..4000).map(|i| channel(&cfg, i).distance_m()).collect();
        assert!(d.iter().all(|&x| (100.0..=1000.0).contains(&x)));
        // Uniform over the area: E[r²] = (min² + max²) / 2.
        let mean_sq = d.iter().map(|x| x * x).sum::<f64>() / d.len() as f64;
        assert!((mean_sq / 505_000.0 - 1.0).abs() < 0.03, "E[r²] = {mean_sq}");
        assert_eq!(channel(&RadioConfig::at_distance(321.0), 0).distance_m(), 321.0);
    }

    #[test]
    fn validate_names_the_offending_key() {
        let ok = RadioConfig::at_distance(100.0);
        let cases: Vec<(RadioConfig, &str)> = vec![
            (RadioConfig { distance_range_m: Some([1.0, 2.0]), ..ok.clone() }, "distance_range_m"),
            (RadioConfig { distance_m: None, ..ok.clone() }, "distance_m"),
            (RadioConfig::at_distance(0.0), "distance_m"),
            (RadioConfig::at_distance(-5.0), "distance_m"),
            (RadioConfig::at_distance(f64::NAN), "distance_m"),
            (RadioConfig::in_range(500.0, 500.0), "distance_range_m"),
            (RadioConfig::in_range(800.0, 200.0), "distance_range_m"),
            (RadioConfig::in_range(-1.0, 200.0), "distance_range_m"),
            (RadioConfig { carrier_mhz: 0.0, ..ok.clone() }, "carrier_mhz"),
            (RadioConfig { tx_power_dbm: f64::INFINITY, ..ok.clone() }, "tx_power_dbm"),
            (RadioConfig { path_loss_exponent: 0.0, ..ok.clone() }, "path_loss_exponent"),
            (RadioConfig { reference_distance_m: -1.0, ..ok.clone() }, "reference_distance_m"),
            (RadioConfig { noise_figure_db: -3.0, ..ok.clone() }, "noise_figure_db"),
            (RadioConfig { shadowing_std_db: -1.0, ..ok.clone() }, "shadowing_std_db"),
            (RadioConfig { shadowing_decorrelation_s: 0.0, ..ok.clone() }, "shadowing_decorrelation_s"),
            (RadioConfig { speed_kmh: -3.0, ..ok.clone() }, "speed_kmh"),
            (RadioConfig { layers: 0, ..ok.clone() }, "layers"),
            (RadioConfig { layers: 5, ..ok.clone() }, "layers"),
            (RadioConfig { interference_dbm: Some(f64::NAN), ..ok.clone() }, "interference_dbm"),
        ];
        assert_eq!(ok.validate(), Ok(()));
        assert_eq!(RadioConfig::in_range(0.0, 10.0).validate(), Ok(()));
        for (cfg, field) in cases {
            let issue = cfg.validate().expect_err(field);
            assert_eq!(issue.field, field, "{issue}");
            assert!(!issue.expected.is_empty() && !issue.value.is_empty());
        }
        let issue = RadioConfig::at_distance(-5.0).validate().unwrap_err();
        assert_eq!(issue.to_string(), "`distance_m` is -5, expected a distance in metres in (0, 100000]");
    }

    #[test]
    #[should_panic(expected = "invalid radio configuration")]
    fn new_rejects_an_invalid_configuration() {
        channel(&RadioConfig::at_distance(-1.0), 0);
    }

    /// Cost of `quality()`; run with
    /// `cargo test -p cellshare-channel --release -- --ignored --nocapture quality_cost`.
    #[test]
    #[ignore = "timing measurement, prints only"]
    fn quality_cost() {
        let base = RadioConfig::in_range(50.0, 1500.0);
        let variants = [
            ("Rayleigh + shadowing", RadioConfig { shadowing_std_db: 8.0, ..base.clone() }),
            ("Rayleigh (default)", base.clone()),
            ("shadowing only", RadioConfig { shadowing_std_db: 8.0, fading: Fading::None, ..base.clone() }),
            ("path loss only", RadioConfig { fading: Fading::None, ..base.clone() }),
        ];
        for (name, cfg) in variants {
            let start = std::time::Instant::now();
            let mut ues: Vec<RadioChannel> = (0..100).map(|i| channel(&cfg, 1000 + i)).collect();
            let built = start.elapsed();
            // Best of 100 batches of 1000 TTIs (one simulated second each), so that other
            // processes on the machine inflate the figure as little as possible.
            let (mut best, mut sum) = (f64::INFINITY, 0u64);
            for batch in 0..100u64 {
                let start = std::time::Instant::now();
                for t in batch * 1000..(batch + 1) * 1000 {
                    for ue in ues.iter_mut() {
                        if let LinkQuality::Tbs { mcs: Some(i), .. } = ue.quality(t) {
                            sum += u64::from(i);
                        }
                    }
                }
                best = best.min(start.elapsed().as_nanos() as f64 / (1000 * ues.len()) as f64);
            }
            println!("{name:>22}: 100 UEs built in {built:?}, quality() {best:.1} ns per call (checksum {sum})");
        }
    }
}

#[cfg(test)]
mod block_tests {
    use super::*;

    #[test]
    fn cqi_block_answers_exactly_like_direct_computation() {
        let cfg = RadioConfig { shadowing_std_db: 6.0, ..RadioConfig::in_range(100.0, 1200.0) };
        for ue in 0..8 {
            let mut direct = RadioChannel::new(&cfg, 50, &mut cellshare_core::stream_rng(3, "block", ue));
            let mut cached = direct.clone();
            // Irregular, sometimes backwards, query pattern.
            for tti in (0..3000u64).step_by(7).chain([5, 64, 63, 2999, 0]) {
                let want = LinkQuality::Tbs { mcs: lte_tables::cqi_to_mcs(direct.cqi(tti)), layers: 1 };
                assert_eq!(cached.quality(tti), want, "ue {ue} tti {tti}");
                let (q, until) = cached.quality_span(tti);
                assert_eq!(q, want);
                for later in tti..=until.min(tti + 70) {
                    assert_eq!(direct.cqi(later), direct.cqi(tti), "span of ue {ue} from {tti} to {until}");
                }
            }
        }
    }
}

#[cfg(test)]
mod fading_table_tests {
    use super::*;

    /// The generator as first written: one phasor at a time, rotated right after it is
    /// summed. The vectorizable layout must give the same table, bit for bit.
    fn reference(doppler_hz: f64, rng: &mut StreamRng) -> Vec<[f32; 2]> {
        let m = FADING_SINUSOIDS;
        let omega_per_ms = 2.0 * PI * doppler_hz * 1e-3;
        let theta = rng.gen_range(-PI..PI);
        let mut phasors: Vec<([f64; 2], [f64; 2])> = Vec::new();
        for branch in 0..2 {
            for n in 1..=m {
                let alpha = (2.0 * PI * n as f64 - PI + theta) / (4 * m) as f64;
                let freq = omega_per_ms * if branch == 0 { alpha.cos() } else { alpha.sin() };
                let phase = rng.gen_range(-PI..PI);
                phasors.push(([phase.cos(), phase.sin()], [freq.cos(), freq.sin()]));
            }
        }
        let mut samples = vec![[0.0f64; 2]; FADING_TABLE_LEN];
        for sample in samples.iter_mut() {
            for (branch, chunk) in phasors.chunks_exact_mut(m).enumerate() {
                let mut sum = 0.0;
                for ([re, im], [c, s]) in chunk.iter_mut() {
                    sum += *re;
                    (*re, *im) = (*re * *c - *im * *s, *re * *s + *im * *c);
                }
                sample[branch] = sum;
            }
        }
        let mean_power = samples.iter().map(|[x, y]| x * x + y * y).sum::<f64>() / FADING_TABLE_LEN as f64;
        let scale = 1.0 / mean_power.sqrt();
        samples.iter().map(|[x, y]| [(x * scale) as f32, (y * scale) as f32]).collect()
    }

    #[test]
    fn the_table_is_the_phasor_by_phasor_one_bit_for_bit() {
        for doppler_hz in [2.0861, 69.5] {
            let table = sum_of_sinusoids(doppler_hz, &mut cellshare_core::stream_rng(1, "fading-test", 0));
            let want = reference(doppler_hz, &mut cellshare_core::stream_rng(1, "fading-test", 0));
            let bits = |t: &[[f32; 2]]| t.iter().map(|[a, b]| (a.to_bits(), b.to_bits())).collect::<Vec<_>>();
            assert!(bits(&table[..]) == bits(&want), "Doppler {doppler_hz} Hz: the tables differ");
        }
    }
}

#[cfg(test)]
mod network_block_tests {
    use super::*;
    use crate::{AmcRule, LinkAdaptation, LinkBudget, LoadBoard};

    /// A network channel answers every decision with the CQI of its report computed from the
    /// final loads, and its spans hold, whatever the loads do and however it is queried.
    #[test]
    fn network_spans_answer_like_direct_computation_from_final_loads() {
        let cfg = RadioConfig { shadowing_std_db: 4.0, shadowing_decorrelation_s: 0.3, ..RadioConfig::in_range(100.0, 900.0) };
        for (period, delay, pipeline) in [(2u32, 5u32, 2u64), (1, 0, 0), (5, 3, 2)] {
            let la = LinkAdaptation::new(AmcRule::BlerTarget, 0.1, 50, period, delay);
            let board = LoadBoard::new(3, 50);
            let mut chans: Vec<RadioChannel> = (0..4)
                .map(|ue| {
                    let mut ch = RadioChannel::new(&cfg, 50, &mut cellshare_core::stream_rng(9, "net-block", ue));
                    ch.set_link_adaptation(&la);
                    ch.set_budget(LinkBudget::new(2e-10, 1e-12, vec![(1, 1e-11 * (ue + 1) as f64), (2, 4e-12)], board.clone()));
                    ch
                })
                .collect();
            let mut direct = chans.clone();
            let mut x: u64 = 0x2545_f491_4f6c_dd1d;
            let mut answers = Vec::new();
            for t in 0..3000u64 {
                board.open(t + pipeline);
                // Cells saturated most of the time, sometimes partly loaded or idle.
                for c in 0..3 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let prbs = if x % 10 < 7 { 50 } else { (x >> 8) as u32 % 51 };
                    if prbs > 0 {
                        board.set(c, t + pipeline, prbs);
                    }
                }
                for (ue, ch) in chans.iter_mut().enumerate() {
                    // Irregular queries: not every TTI, sometimes one TTI behind.
                    if (t + ue as u64) % 3 != 0 {
                        let q = t.saturating_sub((x >> 20) % 2);
                        answers.push((ue, q, ch.quality_span(q)));
                    }
                }
                board.seal(t + pipeline);
            }
            for (ue, t, (q, until)) in answers {
                let m = |t: u64| t.saturating_sub(delay as u64) / period as u64 * period as u64;
                let want = LinkQuality::Tbs { mcs: lte_tables::cqi_to_mcs(direct[ue].cqi(m(t))), layers: 1 };
                assert_eq!(q, want, "P {period} D {delay} ue {ue} t {t}");
                for later in t..=until {
                    assert_eq!(direct[ue].cqi(m(later)), direct[ue].cqi(m(t)), "span from {t} to {until} at {later}");
                }
            }
        }
    }
}

#[cfg(test)]
mod network_move_tests {
    use super::*;
    use crate::{AmcRule, LinkAdaptation, LinkBudget, LoadBoard};

    /// A moving UE gets a new budget every 100 TTIs (and a new speed now and then): every
    /// answer is still the CQI computed directly with the budget and speed of the moment.
    #[test]
    fn new_budgets_and_speeds_are_followed_at_once() {
        let cfg = RadioConfig { speed_kmh: 30.0, ..RadioConfig::in_range(100.0, 900.0) };
        let la = LinkAdaptation::new(AmcRule::BlerTarget, 0.1, 50, 2, 5);
        let board = LoadBoard::new(2, 50);
        let mut ch = RadioChannel::new(&cfg, 50, &mut cellshare_core::stream_rng(4, "net-move", 0));
        ch.set_link_adaptation(&la);
        let budget = |t: u64| LinkBudget::new(1e-10 * (1.0 + (t / 100) as f64 * 0.3), 1e-12, vec![(1, 2e-11)], board.clone());
        ch.set_budget(budget(0));
        let mut direct = ch.clone();
        for t in 0..2000u64 {
            board.open(t + 2);
            board.set(1, t + 2, if t % 9 == 0 { 20 } else { 50 });
            if t % 100 == 0 {
                ch.set_budget(budget(t));
                direct.set_budget(budget(t));
            }
            if t % 700 == 350 {
                let v = 10.0 + (t / 700) as f64 * 40.0;
                ch.set_speed_kmh(v);
                direct.set_speed_kmh(v);
            }
            let m = t.saturating_sub(5) / 2 * 2;
            let want = LinkQuality::Tbs { mcs: lte_tables::cqi_to_mcs(direct.cqi(m)), layers: 1 };
            assert_eq!(ch.quality(t), want, "t {t}");
            board.seal(t + 2);
        }
    }
}

#[cfg(test)]
mod report_tests {
    use super::*;
    use crate::{AmcRule, LinkAdaptation};

    #[test]
    fn decisions_use_the_delayed_periodic_report_and_blocks_meet_their_own_sinr() {
        let cfg = RadioConfig { shadowing_std_db: 6.0, shadowing_decorrelation_s: 0.5, ..RadioConfig::in_range(100.0, 900.0) };
        for (period, delay) in [(2u32, 5u32), (1, 0), (5, 3), (1, 7)] {
            let la = LinkAdaptation::new(AmcRule::BlerTarget, 0.1, 50, period, delay);
            for ue in 0..4 {
                let mut ch = RadioChannel::new(&cfg, 50, &mut cellshare_core::stream_rng(5, "report", ue));
                ch.set_link_adaptation(&la);
                let mut direct = ch.clone();
                for t in (0..4000u64).step_by(3).chain([17, 2, 3999, 0]) {
                    let m = (t.saturating_sub(delay as u64) / period as u64) * period as u64;
                    let want = LinkQuality::Tbs { mcs: lte_tables::cqi_to_mcs(direct.cqi(m)), layers: 1 };
                    let (q, until) = ch.quality_span(t);
                    assert_eq!(q, want, "P {period} D {delay} ue {ue} t {t}");
                    for later in t..=until.min(t + 80) {
                        let m2 = (later.saturating_sub(delay as u64) / period as u64) * period as u64;
                        assert_eq!(direct.cqi(m2), direct.cqi(m), "span from {t} to {until} at {later}");
                    }
                    // The block on air meets the SINR of its own TTI, whatever was read before.
                    assert!((10.0 * ch.sinr_at(t + 2).log10() - direct.sinr_db(t + 2)).abs() < 1e-9);
                }
            }
        }
    }
}
