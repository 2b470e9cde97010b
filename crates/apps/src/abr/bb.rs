//! BBA-0 (Huang, Johari, McKeown, Trunnell, Watson, "A Buffer-Based Approach to Rate
//! Adaptation: Evidence from a Large Video Streaming Service", SIGCOMM 2014 \[bba\], §4,
//! Algorithm 1). The rate map f(B) rises linearly from R_min at the end of the reservoir r
//! to R_max at r + cushion; the next rate is
//!
//! - R_min while B ≤ r, R_max once B ≥ r + cushion;
//! - otherwise, with Rate+ / Rate− the ladder's neighbours of the previous rate: if
//!   f(B) ≥ Rate+, the highest rate below f(B); if f(B) ≤ Rate−, the lowest rate above f(B);
//!   else the previous rate (the hysteresis that keeps BBA-0 from oscillating).
//!
//! The paper's reservoir (90 s) and cushion (126 s) belong to Netflix's 240-s buffer; ours
//! default to 5 s and 10 s, the values of the BB implementation in Pensieve's dash.js
//! (Mao et al., SIGCOMM 2017 \[pensieve\]), which the BoDe paper \[bode\] used (§VI-B, its
//! reference \[38\]).

use serde::{Deserialize, Serialize};

use super::{AbrInput, Decision};

/// `abr = { kind = "bb" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BbConfig {
    /// Reservoir r, s. Default 5.
    pub reservoir_s: f64,
    /// Cushion, s (f reaches R_max at r + cushion). Default 10.
    pub cushion_s: f64,
}

impl Default for BbConfig {
    fn default() -> Self {
        Self { reservoir_s: 5.0, cushion_s: 10.0 }
    }
}

/// BBA-0 at run time.
#[derive(Clone, Debug)]
pub struct Bb {
    r: f64,
    cu: f64,
}

impl Bb {
    /// From `cfg`.
    pub fn new(cfg: &BbConfig) -> Self {
        Self { r: cfg.reservoir_s, cu: cfg.cushion_s }
    }

    /// Algorithm 1.
    pub fn decide(&mut self, s: &AbrInput) -> Decision {
        let l = s.ladder_kbps;
        let top = l.len() - 1;
        let b = s.buffer_s;
        if b <= self.r {
            return Decision::Fetch(0);
        }
        if b >= self.r + self.cu {
            return Decision::Fetch(top);
        }
        let f = l[0] + (l[top] - l[0]) * (b - self.r) / self.cu;
        let prev = s.last_level.unwrap_or(0);
        let plus = l[(prev + 1).min(top)];
        let minus = l[prev.saturating_sub(1)];
        let next = if f >= plus {
            // max{R_i : R_i < f(B)}
            l.iter().rposition(|&r| r < f).unwrap_or(0)
        } else if f <= minus {
            // min{R_i : R_i > f(B)}
            l.iter().position(|&r| r > f).unwrap_or(top)
        } else {
            prev
        };
        Decision::Fetch(next)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::input;
    use super::*;

    #[test]
    fn reservoir_cushion_and_hysteresis() {
        let mut bb = Bb::new(&BbConfig::default());
        assert_eq!(bb.decide(&input(4.0, Some(3), &[5000.0])), Decision::Fetch(0), "in the reservoir: R_min");
        assert_eq!(bb.decide(&input(15.0, Some(0), &[5000.0])), Decision::Fetch(5), "past the cushion: R_max");
        // B = 10 s: f = 300 + 4000·0.5 = 2300 kbit/s. From 750: Rate+ = 1200 ≤ f → the highest
        // rate below 2300 = 1850.
        assert_eq!(bb.decide(&input(10.0, Some(1), &[5000.0])), Decision::Fetch(3));
        // From 2850: Rate− = 1850 < 2300 < Rate+ = 4300: stay.
        assert_eq!(bb.decide(&input(10.0, Some(4), &[5000.0])), Decision::Fetch(4));
        // B = 6 s: f = 700. From 2850: f ≤ Rate− = 1850 → the lowest rate above 700 = 750.
        assert_eq!(bb.decide(&input(6.0, Some(4), &[5000.0])), Decision::Fetch(1));
    }
}
