//! The scenario keys of a network of cells (`[network]`) and of a UE's movement
//! (`ues[i].mobility`), with their checks. Every error names the key (relative to the table
//! it is given for), the value and what was expected.

use serde::{Deserialize, Serialize};

/// `[network]`: several cells (eNB sites, optionally three sectors each), the UEs' measurement
/// of them and handover between them. Without it the scenario is one cell whose UEs stand
/// still at their `channel.distance_m`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// Where the sites are: `{ kind = "hexagonal", isd_m = 500.0, rings = 1 }` (a site at the
    /// origin and `rings` rings of sites around it, `isd_m` apart: 1 ring = 7 sites, 2 = 19)
    /// or `{ kind = "positions", sites_m = [[0.0, 0.0], [800.0, 0.0]] }` (metres).
    pub layout: Layout,
    /// Cells per site: 1 (an omnidirectional cell) or 3 (sectors with boresights at 0°,
    /// 120° and 240° from the x axis, ns-3's `LteHexGridEnbTopologyHelper`, and the
    /// horizontal antenna pattern of 3GPP TR 36.814 Table A.2.1.1-2: A(φ) = −min(12(φ/70°)²,
    /// 25 dB)). Default 1.
    #[serde(default = "one")]
    pub sectors: u32,
    /// The area UEs live in, `[[x_min, y_min], [x_max, y_max]]` in metres: static UEs
    /// without a position are dropped uniformly over it, random waypoints are drawn in it,
    /// and every given position must lie in it. Default: the sites' bounding box grown by the
    /// inter-site distance (hexagonal) or by 500 m (positions).
    #[serde(default)]
    pub area_m: Option<[[f64; 2]; 2]>,
    /// Whether the other cells' transmissions interfere (wideband, weighted by each cell's
    /// PRB use in the previous TTI; see docs/mobility.md). Default true.
    #[serde(default = "yes")]
    pub interference: bool,
    /// Measurement and handover.
    #[serde(default)]
    pub handover: HandoverConfig,
}

fn one() -> u32 {
    1
}
fn yes() -> bool {
    true
}

/// Where the eNB sites stand (`kind` selects the layout).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Layout {
    /// A hexagonal grid: one site at the origin, then `rings` rings around it.
    Hexagonal {
        /// Inter-site distance, metres (> 0).
        isd_m: f64,
        /// Rings of sites around the centre, 0 to 10 (0: one site, 1: 7 sites, 2: 19).
        /// Default 1.
        #[serde(default = "one")]
        rings: u32,
    },
    /// Sites at the given positions.
    Positions {
        /// Site positions `[x, y]` in metres, 1 to 1000 of them.
        sites_m: Vec<[f64; 2]>,
    },
}

/// Which measurement the A3 event compares.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// Reference signal received power (dBm): ns-3's `A3RsrpHandoverAlgorithm`.
    #[default]
    Rsrp,
    /// Reference signal received quality (dB).
    Rsrq,
}

/// What happens to the packets queued for a UE at its old cell when it is handed over.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Forwarding {
    /// Forwarded over X2 to the target cell's queue for the UE (TS 36.300 § 10.1.2.1).
    #[default]
    X2,
    /// Dropped (counted as drops with cause `handover`).
    Drop,
}

fn default_hysteresis() -> f64 {
    3.0
}
fn default_ttt() -> f64 {
    256.0
}
fn default_period() -> u64 {
    200
}
fn default_filter() -> u32 {
    4
}
fn default_interruption() -> f64 {
    30.0
}

/// `[network.handover]`: measurement, the A3 event and the handover itself. The defaults are
/// ns-3 LENA's (3.44), each named in its key's description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoverConfig {
    /// Whether UEs are handed over at all (false: each stays with the cell it starts in, the
    /// strongest at time 0). Default true.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// `"rsrp"` or `"rsrq"`: what the A3 event compares. Default `"rsrp"` (ns-3's
    /// `A3RsrpHandoverAlgorithm`).
    #[serde(default)]
    pub quantity: Quantity,
    /// A3 offset (Off, TS 36.331 § 5.5.4.4), dB, −15 to 15. Default 0 (ns-3 sets
    /// `a3Offset = 0`).
    #[serde(default)]
    pub a3_offset_db: f64,
    /// Hysteresis (Hys, TS 36.331 § 5.5.4.4), dB, 0 to 15. Default 3 (ns-3's
    /// `A3RsrpHandoverAlgorithm::Hysteresis`).
    #[serde(default = "default_hysteresis")]
    pub hysteresis_db: f64,
    /// Time to trigger, ms, 0 to 5120: the entering condition must hold this long before the
    /// handover. Default 256 (ns-3's `A3RsrpHandoverAlgorithm::TimeToTrigger`).
    #[serde(default = "default_ttt")]
    pub time_to_trigger_ms: f64,
    /// Measurement period (layer 1 averaging), ms, 1 to 10000. Default 200 (ns-3's
    /// `LteUePhy::UeMeasurementsFilterPeriod`).
    #[serde(default = "default_period")]
    pub measurement_period_ms: u64,
    /// Layer 3 filter coefficient k (TS 36.331 § 5.5.3.2: F_n = (1 − a)·F_{n−1} + a·M_n,
    /// a = 1/2^(k/4)), 0 to 19. Default 4 (ns-3's `LteEnbRrc::RsrpFilterCoefficient`).
    #[serde(default = "default_filter")]
    pub filter_coefficient: u32,
    /// Interruption time, ms, 0 to 1000: from the handover command until the UE can be
    /// scheduled by the target cell. Default 30 (TS 36.133 § 5.1.2.1: T_search + T_IU + 20
    /// ms with a known target, T_search = 0, and T_IU = 10 ms, one PRACH occasion every
    /// 10 ms; ns-3 has no such gap).
    #[serde(default = "default_interruption")]
    pub interruption_ms: f64,
    /// `"x2"` (the old cell's queue for the UE is forwarded to the target) or `"drop"`.
    /// Default `"x2"`.
    #[serde(default)]
    pub forwarding: Forwarding,
}

impl Default for HandoverConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            quantity: Quantity::Rsrp,
            a3_offset_db: 0.0,
            hysteresis_db: default_hysteresis(),
            time_to_trigger_ms: default_ttt(),
            measurement_period_ms: default_period(),
            filter_coefficient: default_filter(),
            interruption_ms: default_interruption(),
            forwarding: Forwarding::X2,
        }
    }
}

/// `ues[i].mobility`: how the UEs of a group move (`kind` selects the model; needs
/// `[network]`). Positions are metres in the network's plane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MobilityConfig {
    /// Standing still at `position_m`, or (without it) at a point drawn uniformly over the
    /// network's area from the UE's own random stream.
    Static {
        /// `[x, y]`, metres, inside the area. Default: drawn.
        #[serde(default)]
        position_m: Option<[f64; 2]>,
    },
    /// Along a path of waypoints at constant speed on each leg, from `start_s` on (standing
    /// at the first point before it, at the last one after it unless `repeat`).
    Waypoints {
        /// The points `[x, y]`, metres, at least 2, inside the area.
        points_m: Vec<[f64; 2]>,
        /// Speed on each leg, km/h > 0: one value for every leg, or one per leg.
        speeds_kmh: Vec<f64>,
        /// When the UE leaves the first point, s (≥ 0). Default 0.
        #[serde(default)]
        start_s: f64,
        /// Go round again from the first point after the last (the path is closed by a leg
        /// back to the first point at the last leg's speed). Default false.
        #[serde(default)]
        repeat: bool,
    },
    /// Random waypoint: from a point drawn in the area, walk at a speed drawn from
    /// `speed_kmh` to the next drawn point, pause for a time drawn from `pause_s`, and so on
    /// (all draws uniform, from the UE's own random stream).
    RandomWaypoint {
        /// `[min, max]` speed, km/h, 0 < min ≤ max.
        speed_kmh: [f64; 2],
        /// `[min, max]` pause at each point, s, 0 ≤ min ≤ max. Default [0, 0].
        #[serde(default)]
        pause_s: [f64; 2],
    },
    /// A position trace file: one sample per line, `t x y` (seconds, metres; spaces, tabs
    /// or commas between them; `#` starts a comment), times increasing; the UE moves in a
    /// straight line between samples and stands at the first and last sample outside them.
    /// Every UE of the group follows it. Limits as for Mahimahi traces: at most 256 MiB, times
    /// up to 10⁶ s.
    Trace {
        /// Path of the trace, relative to the scenario file's folder.
        file: String,
    },
}

/// A problem with a key: (key relative to the table checked, value, what was expected).
pub type KeyError = (String, String, String);

fn err<T>(
    key: impl Into<String>,
    value: impl std::fmt::Display,
    expected: impl Into<String>,
) -> Result<T, KeyError> {
    Err((key.into(), value.to_string(), expected.into()))
}

fn finite_point(p: [f64; 2]) -> bool {
    p[0].is_finite() && p[1].is_finite()
}

/// `[x, y]` as text.
pub fn point_text(p: [f64; 2]) -> String {
    format!("[{}, {}]", p[0], p[1])
}

impl NetworkConfig {
    /// Checks the keys; errors name the key under `network.`.
    pub fn validate(&self) -> Result<(), KeyError> {
        match &self.layout {
            Layout::Hexagonal { isd_m, rings } => {
                if !(*isd_m > 0.0 && isd_m.is_finite() && *isd_m <= 1e6) {
                    return err(
                        "layout.isd_m",
                        isd_m,
                        "an inter-site distance in metres in (0, 1000000]",
                    );
                }
                if *rings > 10 {
                    return err("layout.rings", rings, "0 to 10 rings of sites");
                }
            }
            Layout::Positions { sites_m } => {
                if sites_m.is_empty() || sites_m.len() > 1000 {
                    return err(
                        "layout.sites_m",
                        format!("{} sites", sites_m.len()),
                        "1 to 1000 site positions",
                    );
                }
                if let Some((i, p)) = sites_m
                    .iter()
                    .enumerate()
                    .find(|(_, p)| !finite_point(**p) || p[0].abs() > 1e7 || p[1].abs() > 1e7)
                {
                    return err(
                        format!("layout.sites_m[{i}]"),
                        point_text(*p),
                        "finite coordinates in metres within ±10⁷",
                    );
                }
            }
        }
        if self.sectors != 1 && self.sectors != 3 {
            return err("sectors", self.sectors, "1 or 3 cells per site");
        }
        if let Some([lo, hi]) = self.area_m {
            if !(finite_point(lo) && finite_point(hi) && lo[0] < hi[0] && lo[1] < hi[1]) {
                return err(
                    "area_m",
                    format!("[{}, {}]", point_text(lo), point_text(hi)),
                    "[[x_min, y_min], [x_max, y_max]] with min < max",
                );
            }
        }
        let h = &self.handover;
        let k = "handover.";
        if !(h.a3_offset_db.abs() <= 15.0) {
            return err(
                format!("{k}a3_offset_db"),
                h.a3_offset_db,
                "an offset in dB in [-15, 15]",
            );
        }
        if !(0.0..=15.0).contains(&h.hysteresis_db) {
            return err(
                format!("{k}hysteresis_db"),
                h.hysteresis_db,
                "a hysteresis in dB in [0, 15]",
            );
        }
        if !(0.0..=5120.0).contains(&h.time_to_trigger_ms) {
            return err(
                format!("{k}time_to_trigger_ms"),
                h.time_to_trigger_ms,
                "a time in ms in [0, 5120]",
            );
        }
        if !(1..=10_000).contains(&h.measurement_period_ms) {
            return err(
                format!("{k}measurement_period_ms"),
                h.measurement_period_ms,
                "a period in ms in [1, 10000]",
            );
        }
        if h.filter_coefficient > 19 {
            return err(
                format!("{k}filter_coefficient"),
                h.filter_coefficient,
                "a filter coefficient k in 0..=19",
            );
        }
        if !(0.0..=1000.0).contains(&h.interruption_ms) {
            return err(
                format!("{k}interruption_ms"),
                h.interruption_ms,
                "a time in ms in [0, 1000]",
            );
        }
        Ok(())
    }
}

impl MobilityConfig {
    /// The model's name, as written in `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            MobilityConfig::Static { .. } => "static",
            MobilityConfig::Waypoints { .. } => "waypoints",
            MobilityConfig::RandomWaypoint { .. } => "random_waypoint",
            MobilityConfig::Trace { .. } => "trace",
        }
    }

    /// Checks the keys against the network's `area`; errors name the key under `mobility.`.
    pub fn validate(&self, area: [[f64; 2]; 2]) -> Result<(), KeyError> {
        let inside = |p: [f64; 2]| {
            finite_point(p)
                && p[0] >= area[0][0]
                && p[0] <= area[1][0]
                && p[1] >= area[0][1]
                && p[1] <= area[1][1]
        };
        let area_text = format!(
            "a point inside the network's area [{}, {}]",
            point_text(area[0]),
            point_text(area[1])
        );
        match self {
            MobilityConfig::Static { position_m } => {
                if let Some(p) = position_m {
                    if !inside(*p) {
                        return err("position_m", point_text(*p), area_text);
                    }
                }
            }
            MobilityConfig::Waypoints {
                points_m,
                speeds_kmh,
                start_s,
                ..
            } => {
                if points_m.len() < 2 {
                    return err(
                        "points_m",
                        format!("{} points", points_m.len()),
                        "a path of at least 2 points",
                    );
                }
                if let Some((i, p)) = points_m.iter().enumerate().find(|(_, p)| !inside(**p)) {
                    return err(format!("points_m[{i}]"), point_text(*p), area_text);
                }
                let legs = points_m.len() - 1;
                if speeds_kmh.len() != 1 && speeds_kmh.len() != legs {
                    return err(
                        "speeds_kmh",
                        format!("{} speeds", speeds_kmh.len()),
                        format!("one speed, or one per leg ({legs})"),
                    );
                }
                if let Some((i, v)) = speeds_kmh
                    .iter()
                    .enumerate()
                    .find(|(_, v)| !(**v > 0.0 && v.is_finite() && **v <= 1000.0))
                {
                    return err(
                        format!("speeds_kmh[{i}]"),
                        v,
                        "a speed in km/h in (0, 1000]",
                    );
                }
                if !(*start_s >= 0.0 && start_s.is_finite()) {
                    return err("start_s", start_s, "a time in seconds >= 0");
                }
            }
            MobilityConfig::RandomWaypoint {
                speed_kmh: [lo, hi],
                pause_s: [plo, phi],
            } => {
                if !(*lo > 0.0 && lo <= hi && hi.is_finite() && *hi <= 1000.0) {
                    return err(
                        "speed_kmh",
                        format!("[{lo}, {hi}]"),
                        "[min, max] in km/h with 0 < min <= max <= 1000",
                    );
                }
                if !(*plo >= 0.0 && plo <= phi && phi.is_finite()) {
                    return err(
                        "pause_s",
                        format!("[{plo}, {phi}]"),
                        "[min, max] in seconds with 0 <= min <= max",
                    );
                }
            }
            MobilityConfig::Trace { file } => {
                if file.trim().is_empty() {
                    return err("file", "an empty path", "the path of a position trace file");
                }
            }
        }
        Ok(())
    }
}
