//! Where a UE is at time t, and how fast it goes: static, waypoints at constant speed per
//! leg, random waypoint, or a position trace (t, x, y) with straight lines between samples.
//!
//! Positions are asked for at non-decreasing times (the network's position step); a random
//! waypoint draws its next leg when it gets there, from the UE's own stream.

use std::fmt;
use std::sync::Arc;

use cellshare_core::StreamRng;
use rand::Rng;

use crate::config::MobilityConfig;

/// Largest position trace file, bytes (the limit of the Mahimahi trace parser).
pub const MAX_TRACE_BYTES: u64 = 256 << 20;
/// Latest time in a position trace, seconds (10⁹ ms, the Mahimahi parser's limit).
pub const MAX_TRACE_TIME_S: f64 = 1e6;

/// A parsed position trace: samples (t, x, y), times increasing.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionTrace {
    samples: Vec<(f64, [f64; 2])>,
}

/// Why a position trace could not be parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum PositionTraceError {
    /// No samples.
    Empty,
    /// Line `line` is not three numbers `t x y`. What the line holds is not kept: an error
    /// must never echo the content of a file that is not a position trace (a scenario may
    /// name any file the emulator, running as root, can read).
    Malformed {
        /// 1-based line number.
        line: usize,
    },
    /// Line `line`'s time is not after the previous one.
    NotIncreasing {
        /// 1-based line number.
        line: usize,
    },
    /// Line `line`'s time is negative or beyond [`MAX_TRACE_TIME_S`] (its value is not
    /// kept, as for [`PositionTraceError::Malformed`]).
    TimeOutOfRange {
        /// 1-based line number.
        line: usize,
    },
}

impl fmt::Display for PositionTraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionTraceError::Empty => {
                write!(f, "the trace holds no samples (expected lines `t x y`)")
            }
            PositionTraceError::Malformed { line } => {
                write!(f, "line {line}: expected `t x y`: time in seconds and position in metres, three finite numbers")
            }
            PositionTraceError::NotIncreasing { line } => write!(
                f,
                "line {line} does not move forward in time: times must increase"
            ),
            PositionTraceError::TimeOutOfRange { line } => {
                write!(f, "line {line}: expected a time in [0, {MAX_TRACE_TIME_S}] s")
            }
        }
    }
}

impl std::error::Error for PositionTraceError {}

impl PositionTrace {
    /// Parses `t x y` lines (spaces, tabs or commas between the numbers; blank lines and
    /// `#` comments ignored).
    pub fn parse(text: &str) -> Result<Self, PositionTraceError> {
        let mut samples: Vec<(f64, [f64; 2])> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let malformed = || PositionTraceError::Malformed { line: i + 1 };
            let nums: Vec<f64> = line
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse::<f64>().map_err(|_| malformed()))
                .collect::<Result<_, _>>()?;
            if nums.len() != 3 || nums.iter().any(|v| !v.is_finite()) {
                return Err(malformed());
            }
            let t = nums[0];
            if !(0.0..=MAX_TRACE_TIME_S).contains(&t) {
                return Err(PositionTraceError::TimeOutOfRange { line: i + 1 });
            }
            if samples.last().is_some_and(|&(prev, _)| t <= prev) {
                return Err(PositionTraceError::NotIncreasing { line: i + 1 });
            }
            samples.push((t, [nums[1], nums[2]]));
        }
        if samples.is_empty() {
            return Err(PositionTraceError::Empty);
        }
        Ok(Self { samples })
    }

    /// The samples.
    pub fn samples(&self) -> &[(f64, [f64; 2])] {
        &self.samples
    }
}

/// A straight leg from `from` (left at `t0`) to `to` (reached at `t1`).
#[derive(Clone, Copy, Debug)]
pub struct Leg {
    t0: f64,
    t1: f64,
    from: [f64; 2],
    to: [f64; 2],
}

impl Leg {
    fn at(&self, t: f64) -> [f64; 2] {
        let f = if self.t1 > self.t0 {
            ((t - self.t0) / (self.t1 - self.t0)).clamp(0.0, 1.0)
        } else {
            1.0
        };
        [
            self.from[0] + f * (self.to[0] - self.from[0]),
            self.from[1] + f * (self.to[1] - self.from[1]),
        ]
    }

    fn speed_mps(&self) -> f64 {
        let d = ((self.to[0] - self.from[0]).powi(2) + (self.to[1] - self.from[1]).powi(2)).sqrt();
        if self.t1 > self.t0 {
            d / (self.t1 - self.t0)
        } else {
            0.0
        }
    }
}

/// A UE's movement.
#[derive(Clone, Debug)]
pub enum Track {
    /// Standing at one point.
    Fixed([f64; 2]),
    /// Legs one after the other (waypoints, a trace); `period` repeats them.
    Legs {
        /// The legs, in time order, end to end.
        legs: Arc<Vec<Leg>>,
        /// Where the last position query fell (queries go forward in time).
        cursor: usize,
        /// Repeat every this many seconds after the first leg starts (a closed path).
        period: Option<f64>,
    },
    /// Random waypoint: the current leg, then a pause, then a new leg drawn on arrival.
    Random {
        /// The leg being walked.
        leg: Leg,
        /// When the pause after it ends.
        pause_until: f64,
        /// Speed range, km/h.
        speed: [f64; 2],
        /// Pause range, s.
        pause: [f64; 2],
        /// Where points are drawn.
        area: [[f64; 2]; 2],
        /// The UE's stream.
        rng: Box<StreamRng>,
    },
}

/// A point drawn uniformly in `area`.
fn draw_point(rng: &mut StreamRng, area: [[f64; 2]; 2]) -> [f64; 2] {
    let (u, v): (f64, f64) = (rng.gen(), rng.gen());
    [
        area[0][0] + u * (area[1][0] - area[0][0]),
        area[0][1] + v * (area[1][1] - area[0][1]),
    ]
}

fn uniform(rng: &mut StreamRng, [lo, hi]: [f64; 2]) -> f64 {
    let u: f64 = rng.gen();
    lo + u * (hi - lo)
}

impl Track {
    /// The movement `cfg` describes, in `area`, drawing from `rng` (the UE's stream; a trace
    /// is given parsed as `trace`).
    pub fn new(
        cfg: &MobilityConfig,
        area: [[f64; 2]; 2],
        mut rng: StreamRng,
        trace: Option<Arc<PositionTrace>>,
    ) -> Self {
        match cfg {
            MobilityConfig::Static { position_m } => {
                Track::Fixed(position_m.unwrap_or_else(|| draw_point(&mut rng, area)))
            }
            MobilityConfig::Waypoints {
                points_m,
                speeds_kmh,
                start_s,
                repeat,
            } => {
                let mut pts = points_m.clone();
                let mut speeds: Vec<f64> = (0..pts.len() - 1)
                    .map(|i| speeds_kmh[i.min(speeds_kmh.len() - 1)])
                    .collect();
                if *repeat && pts.first() != pts.last() {
                    pts.push(pts[0]);
                    speeds.push(*speeds.last().expect("validated: a leg"));
                }
                let mut t = *start_s;
                let mut legs = Vec::with_capacity(pts.len());
                for (w, v) in pts.windows(2).zip(speeds) {
                    let d = ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt();
                    let t1 = t + d / (v / 3.6);
                    legs.push(Leg {
                        t0: t,
                        t1,
                        from: w[0],
                        to: w[1],
                    });
                    t = t1;
                }
                let period = (*repeat && t > *start_s).then_some(t - start_s);
                Track::Legs {
                    legs: Arc::new(legs),
                    cursor: 0,
                    period,
                }
            }
            MobilityConfig::RandomWaypoint { speed_kmh, pause_s } => {
                let start = draw_point(&mut rng, area);
                let to = draw_point(&mut rng, area);
                let v = uniform(&mut rng, *speed_kmh) / 3.6;
                let d = ((to[0] - start[0]).powi(2) + (to[1] - start[1]).powi(2)).sqrt();
                let leg = Leg {
                    t0: 0.0,
                    t1: d / v,
                    from: start,
                    to,
                };
                let pause_until = leg.t1 + uniform(&mut rng, *pause_s);
                Track::Random {
                    leg,
                    pause_until,
                    speed: *speed_kmh,
                    pause: *pause_s,
                    area,
                    rng: Box::new(rng),
                }
            }
            MobilityConfig::Trace { .. } => {
                let trace = trace.expect("a trace mobility comes with its parsed trace");
                let s = trace.samples();
                if s.len() == 1 {
                    return Track::Fixed(s[0].1);
                }
                let legs = s
                    .windows(2)
                    .map(|w| Leg {
                        t0: w[0].0,
                        t1: w[1].0,
                        from: w[0].1,
                        to: w[1].1,
                    })
                    .collect();
                Track::Legs {
                    legs: Arc::new(legs),
                    cursor: 0,
                    period: None,
                }
            }
        }
    }

    /// Whether the UE ever moves.
    pub fn moves(&self) -> bool {
        !matches!(self, Track::Fixed(_))
    }

    /// Position (metres) and speed (m/s) at time `t` seconds (non-decreasing across calls).
    pub fn at(&mut self, t: f64) -> ([f64; 2], f64) {
        match self {
            Track::Fixed(p) => (*p, 0.0),
            Track::Legs {
                legs,
                cursor,
                period,
            } => {
                let first = legs[0];
                let last = legs[legs.len() - 1];
                let mut t = t;
                if let Some(p) = period {
                    if t >= first.t0 {
                        t = first.t0 + (t - first.t0) % *p;
                        if t < legs[*cursor].t0 {
                            *cursor = 0;
                        }
                    }
                }
                if t < first.t0 {
                    return (first.from, 0.0);
                }
                if t >= last.t1 {
                    *cursor = legs.len() - 1;
                    return (last.to, 0.0);
                }
                while legs[*cursor].t1 <= t {
                    *cursor += 1;
                }
                let leg = legs[*cursor];
                (leg.at(t), leg.speed_mps())
            }
            Track::Random {
                leg,
                pause_until,
                speed,
                pause,
                area,
                rng,
            } => {
                while t >= *pause_until {
                    let from = leg.to;
                    let to = draw_point(rng, *area);
                    let v = uniform(rng, *speed) / 3.6;
                    let d = ((to[0] - from[0]).powi(2) + (to[1] - from[1]).powi(2)).sqrt();
                    *leg = Leg {
                        t0: *pause_until,
                        t1: *pause_until + d / v,
                        from,
                        to,
                    };
                    *pause_until = leg.t1 + uniform(rng, *pause);
                }
                if t < leg.t1 {
                    (leg.at(t), leg.speed_mps())
                } else {
                    (leg.to, 0.0)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AREA: [[f64; 2]; 2] = [[-1000.0, -1000.0], [1000.0, 1000.0]];

    fn rng() -> StreamRng {
        cellshare_core::stream_rng(1, "mobility-test", 0)
    }

    #[test]
    fn waypoints_move_at_each_legs_speed() {
        let cfg = MobilityConfig::Waypoints {
            points_m: vec![[0.0, 0.0], [360.0, 0.0], [360.0, 720.0]],
            speeds_kmh: vec![36.0, 72.0],
            start_s: 10.0,
            repeat: false,
        };
        let mut t = Track::new(&cfg, AREA, rng(), None);
        assert_eq!(t.at(0.0), ([0.0, 0.0], 0.0));
        let (p, v) = t.at(28.0);
        assert!(
            (p[0] - 180.0).abs() < 1e-9 && (v - 10.0).abs() < 1e-9,
            "{p:?} {v}"
        );
        let (p, v) = t.at(46.0 + 18.0);
        assert!(
            (p[1] - 360.0).abs() < 1e-9 && (v - 20.0).abs() < 1e-9,
            "{p:?} {v}"
        );
        assert_eq!(t.at(1000.0), ([360.0, 720.0], 0.0));
    }

    #[test]
    fn a_repeating_path_comes_back() {
        let cfg = MobilityConfig::Waypoints {
            points_m: vec![[0.0, 0.0], [100.0, 0.0]],
            speeds_kmh: vec![36.0],
            start_s: 0.0,
            repeat: true,
        };
        let mut t = Track::new(&cfg, AREA, rng(), None);
        let xs: Vec<f64> = (0..41).map(|k| t.at(k as f64).0[0]).collect();
        assert!(
            (xs[10] - 100.0).abs() < 1e-9
                && xs[20].abs() < 1e-9
                && (xs[30] - 100.0).abs() < 1e-9
                && xs[40].abs() < 1e-9,
            "{xs:?}"
        );
    }

    #[test]
    fn random_waypoint_stays_in_the_area_at_its_speeds() {
        let area = [[0.0, 0.0], [500.0, 300.0]];
        let cfg = MobilityConfig::RandomWaypoint {
            speed_kmh: [10.0, 20.0],
            pause_s: [0.0, 5.0],
        };
        let mut t = Track::new(&cfg, area, rng(), None);
        let mut moving = 0;
        for k in 0..20_000 {
            let (p, v) = t.at(k as f64 * 0.1);
            assert!(p[0] >= 0.0 && p[0] <= 500.0 && p[1] >= 0.0 && p[1] <= 300.0);
            assert!(
                v == 0.0 || (10.0 / 3.6 - 1e-9..=20.0 / 3.6 + 1e-9).contains(&v),
                "{v}"
            );
            moving += usize::from(v > 0.0);
        }
        assert!(moving > 10_000, "mostly moving: {moving}");
        // The same stream gives the same walk.
        let mut a = Track::new(&cfg, area, rng(), None);
        let mut b = Track::new(&cfg, area, rng(), None);
        assert!((0..500).all(|k| a.at(k as f64).0 == b.at(k as f64).0));
    }

    #[test]
    fn position_traces_parse_interpolate_and_name_the_bad_line() {
        let tr =
            PositionTrace::parse("# t x y\n0 0 0\n10, 100, 0\n\n20\t100\t50 # stop\n").unwrap();
        let cfg = MobilityConfig::Trace { file: "x".into() };
        let mut t = Track::new(&cfg, AREA, rng(), Some(Arc::new(tr)));
        let (p, v) = t.at(5.0);
        assert!((p[0] - 50.0).abs() < 1e-9 && (v - 10.0).abs() < 1e-9);
        assert_eq!(t.at(30.0).0, [100.0, 50.0]);
        assert_eq!(PositionTrace::parse(""), Err(PositionTraceError::Empty));
        assert!(matches!(
            PositionTrace::parse("0 0 0\n1 2\n"),
            Err(PositionTraceError::Malformed { line: 2, .. })
        ));
        assert!(matches!(
            PositionTrace::parse("0 0 x\n"),
            Err(PositionTraceError::Malformed { line: 1, .. })
        ));
        assert!(matches!(
            PositionTrace::parse("0 0 inf\n"),
            Err(PositionTraceError::Malformed { line: 1, .. })
        ));
        assert_eq!(
            PositionTrace::parse("1 0 0\n1 5 5\n"),
            Err(PositionTraceError::NotIncreasing { line: 2 })
        );
        assert!(matches!(
            PositionTrace::parse("2e6 0 0\n"),
            Err(PositionTraceError::TimeOutOfRange { line: 1, .. })
        ));
        assert!(matches!(
            PositionTrace::parse("-1 0 0\n"),
            Err(PositionTraceError::TimeOutOfRange { line: 1, .. })
        ));
        assert!(
            PositionTrace::parse("0 0 0\n1 5 5\n")
                .unwrap()
                .samples()
                .len()
                == 2
        );
    }

    // A parse error never echoes what the file holds (a scenario may name `/etc/shadow` as a
    // position trace, and the emulator runs as root).
    #[test]
    fn position_trace_errors_never_echo_the_file() {
        for text in ["root:*:19000:0:99999:7:::\n", "0 0 0\nroot:*:19000:0:99999:7:::\n", "0 1 2\n7777777 0 0\n"] {
            let e = PositionTrace::parse(text).unwrap_err();
            let shown = format!("{e} {e:?}");
            assert!(!shown.contains("root") && !shown.contains("19000") && !shown.contains("7777777"), "{shown}");
            assert!(shown.contains("line ") && shown.contains("expected"), "{shown}");
        }
    }
}
