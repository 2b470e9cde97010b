//! FESTIVE (Jiang, Sekar, Zhang, "Improving Fairness, Efficiency, and Stability in
//! HTTP-based Adaptive Video Streaming with FESTIVE", CoNEXT 2012 \[festive\], §5):
//!
//! - **bandwidth estimate**: the harmonic mean of the last 20 chunks' throughputs (§5.3);
//!   the target is the highest rate at most p·estimate, p = 0.85 (§5.2);
//! - **gradual switching** (stateful selection, §5.2): upwards one level at a time, and from
//!   level k (counted from 1) only after k chunks at it; downwards one level at a time;
//!   this gives the reference rate b_ref;
//! - **delayed update** (§5.2): between the current rate and b_ref, the one with the lower
//!   score = stability + α·efficiency, α = 12, with stability(b) = 2ⁿ (+1 if b is a switch)
//!   for the n switches of the last 20 s, and efficiency(b) = |b / min(w, b_ref) − 1|,
//!   w = p·estimate.
//!
//! **Not modelled**: FESTIVE's randomized chunk scheduling (§5.1), which desynchronizes
//! several players behind one bottleneck; our player fetches when the buffer has room (a
//! single player per UE queue, as in the BoDe set-up).

use serde::{Deserialize, Serialize};

use super::{harmonic_mean, AbrInput, Decision};

/// `abr = { kind = "festive" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FestiveConfig {
    /// Fraction of the estimate targeted, p. Default 0.85.
    pub p: f64,
    /// Weight of efficiency against stability, α. Default 12.
    pub alpha: f64,
    /// Chunks in the harmonic mean. Default 20.
    pub samples: u32,
    /// Window of the switch count, s. Default 20.
    pub window_s: f64,
}

impl Default for FestiveConfig {
    fn default() -> Self {
        Self { p: 0.85, alpha: 12.0, samples: 20, window_s: 20.0 }
    }
}

/// FESTIVE at run time.
#[derive(Clone, Debug)]
pub struct Festive {
    cfg: FestiveConfig,
    /// Times (s) of the switches made.
    switches: Vec<f64>,
    /// Chunks fetched at the current level.
    at_level: u32,
}

impl Festive {
    /// From `cfg`.
    pub fn new(cfg: &FestiveConfig) -> Self {
        Self { cfg: cfg.clone(), switches: Vec::new(), at_level: 0 }
    }

    /// §5.2.
    pub fn decide(&mut self, s: &AbrInput) -> Decision {
        let cur = s.last_level.unwrap_or(0);
        let n = s.throughputs_kbps.len();
        let k = (self.cfg.samples as usize).min(n);
        let est = harmonic_mean(&s.throughputs_kbps[n - k..]);
        let w = self.cfg.p * est;
        let target = s.level_at_most(w);
        let top = s.ladder_kbps.len() - 1;
        let reference = if target > cur {
            // Level `cur` counted from 1 is cur + 1: that many chunks at it before going up.
            if self.at_level > cur as u32 { (cur + 1).min(top) } else { cur }
        } else if target < cur {
            cur - 1
        } else {
            cur
        };
        let recent = self.switches.iter().filter(|&&t| t > s.now_s - self.cfg.window_s).count() as i32;
        let b_ref = s.ladder_kbps[reference];
        let score = |level: usize| {
            let b = s.ladder_kbps[level];
            let stability = 2f64.powi(recent) + if level != cur { 1.0 } else { 0.0 };
            let efficiency = (b / w.min(b_ref).max(1e-9) - 1.0).abs();
            stability + self.cfg.alpha * efficiency
        };
        let next = if reference != cur && score(reference) < score(cur) { reference } else { cur };
        if next != cur {
            self.switches.push(s.now_s);
            self.at_level = 1;
        } else {
            self.at_level += 1;
        }
        Decision::Fetch(next)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::input;
    use super::*;

    #[test]
    fn climbs_one_level_at_a_time_after_k_chunks_and_drops_one_level() {
        let mut f = Festive::new(&FestiveConfig::default());
        let fast = [10_000.0; 4];
        // At level 0 (k = 1): one chunk there, then up one level.
        f.at_level = 1;
        assert_eq!(f.decide(&input(10.0, Some(0), &fast)), Decision::Fetch(1));
        // At level 1 after one chunk: must wait for two.
        assert_eq!(f.decide(&input(10.0, Some(1), &fast)), Decision::Fetch(1));
        assert_eq!(f.decide(&input(10.0, Some(1), &fast)), Decision::Fetch(2));
        // Bandwidth collapse: down one level, not to the target.
        let slow = [200.0; 20];
        let mut f = Festive::new(&FestiveConfig::default());
        assert_eq!(f.decide(&input(10.0, Some(4), &slow)), Decision::Fetch(3));
    }

    #[test]
    fn delayed_update_takes_a_switch_only_when_its_efficiency_gain_beats_stability() {
        // A switch costs one more in stability (2ⁿ + 1 against 2ⁿ) and gains α·(efficiency of
        // the current rate − of the reference): from 1000 to 1050 kbit/s with an estimate
        // well above both, the gain is 12·|1000/1050 − 1| = 0.57 < 1: FESTIVE stays.
        let ladder = [1000.0, 1050.0, 4000.0];
        let t = [3000.0; 20];
        let mut s = input(10.0, Some(0), &t);
        s.ladder_kbps = &ladder;
        let mut f = Festive::new(&FestiveConfig::default());
        f.at_level = 5;
        assert_eq!(f.decide(&s), Decision::Fetch(0));
        // From 750 to 1200 on the standard ladder the gain is 12·0.375 = 4.5: it switches,
        // however many switches came before (the difference stays 1).
        let t = [1450.0; 20];
        let mut s = input(10.0, Some(1), &t);
        s.now_s = 20.0;
        let mut f = Festive::new(&FestiveConfig::default());
        f.switches = vec![10.0, 12.0, 14.0, 16.0, 18.0];
        f.at_level = 10;
        assert_eq!(f.decide(&s), Decision::Fetch(2));
    }
}
