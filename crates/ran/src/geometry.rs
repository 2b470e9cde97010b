//! Where the cells are and what a UE at a point receives from each: site layouts, sectors
//! and their antenna pattern, the network's area, and the log-distance path gain of a UE's
//! radio configuration.

use std::f64::consts::PI;

use cellshare_channel::RadioConfig;

use crate::config::{Layout, NetworkConfig};

/// Speed of light, m/s.
const C: f64 = 299_792_458.0;

/// One cell of the network: its site's position and, for a sector, its boresight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellSite {
    /// Index of the site the cell belongs to.
    pub site: u32,
    /// Position, metres.
    pub pos: [f64; 2],
    /// Boresight azimuth in radians from the x axis (`None`: omnidirectional).
    pub azimuth: Option<f64>,
}

/// 3GPP TR 36.814 Table A.2.1.1-2: horizontal pattern A(φ) = −min(12(φ/φ_3dB)², A_m) with
/// φ_3dB = 70° and A_m = 25 dB (boresight gain is not added: a sector's peak equals an
/// omnidirectional cell's).
pub const SECTOR_BEAMWIDTH_DEG: f64 = 70.0;
/// Front-to-back ratio A_m of the sector pattern, dB.
pub const SECTOR_FRONT_TO_BACK_DB: f64 = 25.0;

/// Antenna gain in dB towards a UE at `ue` from a cell at `site` with boresight `azimuth`.
pub fn antenna_gain_db(site: [f64; 2], azimuth: Option<f64>, ue: [f64; 2]) -> f64 {
    let Some(az) = azimuth else { return 0.0 };
    let bearing = (ue[1] - site[1]).atan2(ue[0] - site[0]);
    let mut phi = (bearing - az).to_degrees();
    phi = (phi + 180.0).rem_euclid(360.0) - 180.0;
    -(12.0 * (phi / SECTOR_BEAMWIDTH_DEG).powi(2)).min(SECTOR_FRONT_TO_BACK_DB)
}

/// Site positions of `layout`, the centre first, then ring by ring counter-clockwise.
pub fn sites(layout: &Layout) -> Vec<[f64; 2]> {
    match layout {
        Layout::Positions { sites_m } => sites_m.clone(),
        Layout::Hexagonal { isd_m, rings } => {
            let n = *rings as i64;
            let mut out: Vec<(i64, f64, [f64; 2])> = Vec::new();
            for q in -n..=n {
                for r in -n..=n {
                    let ring = q.abs().max(r.abs()).max((q + r).abs());
                    if ring > n {
                        continue;
                    }
                    let x = isd_m * (q as f64 + r as f64 / 2.0);
                    let y = isd_m * (r as f64 * 3f64.sqrt() / 2.0);
                    let angle = if ring == 0 {
                        0.0
                    } else {
                        y.atan2(x).rem_euclid(2.0 * PI)
                    };
                    out.push((ring, angle, [x, y]));
                }
            }
            out.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            out.into_iter().map(|(_, _, p)| p).collect()
        }
    }
}

/// Every cell of the network: per site, one cell or three sectors (boresights 0°, 120°,
/// 240°).
pub fn cells(cfg: &NetworkConfig) -> Vec<CellSite> {
    let mut out = Vec::new();
    for (s, pos) in sites(&cfg.layout).into_iter().enumerate() {
        if cfg.sectors == 3 {
            for k in 0..3 {
                out.push(CellSite {
                    site: s as u32,
                    pos,
                    azimuth: Some(k as f64 * 2.0 * PI / 3.0),
                });
            }
        } else {
            out.push(CellSite {
                site: s as u32,
                pos,
                azimuth: None,
            });
        }
    }
    out
}

/// The network's area: the configured one, or the sites' bounding box grown by the
/// inter-site distance (hexagonal) or 500 m (positions).
pub fn area(cfg: &NetworkConfig) -> [[f64; 2]; 2] {
    if let Some(a) = cfg.area_m {
        return a;
    }
    let margin = match cfg.layout {
        Layout::Hexagonal { isd_m, .. } => isd_m,
        Layout::Positions { .. } => 500.0,
    };
    let s = sites(&cfg.layout);
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in &s {
        for k in 0..2 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    [
        [lo[0] - margin, lo[1] - margin],
        [hi[0] + margin, hi[1] + margin],
    ]
}

/// A UE group's propagation towards every cell, from its radio configuration: log-distance
/// path loss with the free-space loss at the reference distance (as
/// [`cellshare_channel::RadioChannel`]), the eNB power spread over the PRBs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Propagation {
    /// 10^(−PL(d₀)/10).
    reference_gain: f64,
    exponent: f64,
    d0: f64,
    /// Transmit power per PRB, mW.
    pub tx_prb_mw: f64,
    /// Transmit power per resource element, dBm (RSRP's reference).
    pub tx_re_dbm: f64,
}

impl Propagation {
    /// The propagation of `cfg` in a cell of `n_prb` PRBs.
    pub fn new(cfg: &RadioConfig, n_prb: u32) -> Self {
        let d0 = cfg.reference_distance_m;
        let ref_loss_db = 20.0 * (4.0 * PI * d0 * cfg.carrier_mhz * 1e6 / C).log10();
        Self {
            reference_gain: 10f64.powf(-ref_loss_db / 10.0),
            exponent: cfg.path_loss_exponent,
            d0,
            tx_prb_mw: 10f64.powf((cfg.tx_power_dbm - 10.0 * f64::from(n_prb).log10()) / 10.0),
            tx_re_dbm: cfg.tx_power_dbm - 10.0 * f64::from(12 * n_prb).log10(),
        }
    }

    /// Linear path gain (antenna gain included) from `cell` to a UE at `ue`.
    pub fn gain(&self, cell: &CellSite, ue: [f64; 2]) -> f64 {
        let d = ((ue[0] - cell.pos[0]).powi(2) + (ue[1] - cell.pos[1]).powi(2))
            .sqrt()
            .max(self.d0);
        let g = self.reference_gain * (d / self.d0).powf(-self.exponent);
        match cell.azimuth {
            None => g,
            Some(_) => g * 10f64.powf(antenna_gain_db(cell.pos, cell.azimuth, ue) / 10.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hexagonal_rings_have_the_right_sites_at_the_right_distance() {
        let one = sites(&Layout::Hexagonal {
            isd_m: 500.0,
            rings: 1,
        });
        assert_eq!(one.len(), 7);
        assert_eq!(one[0], [0.0, 0.0]);
        for p in &one[1..] {
            assert!(((p[0].powi(2) + p[1].powi(2)).sqrt() - 500.0).abs() < 1e-9);
        }
        assert_eq!(
            sites(&Layout::Hexagonal {
                isd_m: 500.0,
                rings: 2
            })
            .len(),
            19
        );
        assert_eq!(
            sites(&Layout::Hexagonal {
                isd_m: 500.0,
                rings: 0
            })
            .len(),
            1
        );
        // Nearest neighbours are all one inter-site distance apart.
        let two = sites(&Layout::Hexagonal {
            isd_m: 300.0,
            rings: 2,
        });
        for (i, a) in two.iter().enumerate() {
            let nearest = two
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, b)| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt())
                .fold(f64::INFINITY, f64::min);
            assert!((nearest - 300.0).abs() < 1e-6);
        }
    }

    #[test]
    fn sector_pattern_follows_36_814() {
        let az = Some(0.0);
        assert_eq!(antenna_gain_db([0.0, 0.0], az, [100.0, 0.0]), 0.0);
        // At 35° off boresight (half the 3 dB beamwidth): −3 dB.
        let p = [
            100.0 * 35f64.to_radians().cos(),
            100.0 * 35f64.to_radians().sin(),
        ];
        assert!((antenna_gain_db([0.0, 0.0], az, p) + 3.0).abs() < 1e-9);
        // Behind: the front-to-back ratio.
        assert_eq!(antenna_gain_db([0.0, 0.0], az, [-100.0, 0.0]), -25.0);
        assert_eq!(antenna_gain_db([0.0, 0.0], None, [-100.0, 0.0]), 0.0);
    }

    #[test]
    fn path_gain_is_the_radio_channels_link_budget() {
        let cfg = RadioConfig::at_distance(100.0);
        let p = Propagation::new(&cfg, 50);
        let cell = CellSite {
            site: 0,
            pos: [0.0, 0.0],
            azimuth: None,
        };
        // 100 m at 751 MHz, exponent 3.52: 29.961 + 70.4 = 100.361 dB.
        let pl = -10.0 * p.gain(&cell, [60.0, 80.0]).log10();
        assert!((pl - 100.361).abs() < 1e-3, "{pl}");
        // RSRP reference: 47.78 dBm over 600 resource elements.
        assert!((p.tx_re_dbm - (47.78 - 27.7815)).abs() < 1e-3);
    }
}
