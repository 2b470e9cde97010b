//! BOLA-BASIC (Spiteri, Urgaonkar, Sitaraman, "BOLA: Near-Optimal Bitrate Adaptation for
//! Online Videos", INFOCOM 2016 \[bola\], §IV, Algorithm 1). With S_m the size of a chunk at level m,
//! υ_m = ln(S_m / S_1) its utility, Q the buffer in chunks and p the chunk duration, the
//! next chunk is at
//!
//! m* = argmax_m (V·(υ_m + γp) − Q) / S_m,
//!
//! and nothing is fetched while every numerator is negative (Q > V·(υ_M + γp)): the player
//! waits until the buffer has fallen to that level. V = (Q_max − 1)/(υ_M + γp) (§IV-B) makes
//! the buffer stay below Q_max = the player's capacity in chunks; γp = 5 (the paper's
//! evaluation, §VI).

use serde::{Deserialize, Serialize};

use super::{AbrInput, Decision};

/// `abr = { kind = "bola" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BolaConfig {
    /// γp, the weight of rebuffering avoidance. Default 5.
    pub gamma_p: f64,
}

impl Default for BolaConfig {
    fn default() -> Self {
        Self { gamma_p: 5.0 }
    }
}

/// BOLA-BASIC at run time.
#[derive(Clone, Debug)]
pub struct Bola {
    gp: f64,
}

impl Bola {
    /// From `cfg`.
    pub fn new(cfg: &BolaConfig) -> Self {
        Self { gp: cfg.gamma_p }
    }

    /// Algorithm 1.
    pub fn decide(&mut self, s: &AbrInput) -> Decision {
        let sizes: Vec<f64> = (0..s.ladder_kbps.len()).map(|m| s.chunk_kbit(m)).collect();
        let util = |m: usize| (sizes[m] / sizes[0]).ln();
        let top = sizes.len() - 1;
        let q_max = (s.buffer_cap_s / s.chunk_s).max(2.0);
        let v = (q_max - 1.0) / (util(top) + self.gp);
        let q = s.buffer_s / s.chunk_s;
        if v * (util(top) + self.gp) - q < 0.0 {
            return Decision::Wait(v * (util(top) + self.gp) * s.chunk_s);
        }
        let mut best = 0;
        let mut best_val = f64::NEG_INFINITY;
        for (m, &size) in sizes.iter().enumerate() {
            let val = (v * (util(m) + self.gp) - q) / size;
            if val > best_val {
                best_val = val;
                best = m;
            }
        }
        Decision::Fetch(best)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::input;
    use super::*;

    #[test]
    fn the_level_rises_with_the_buffer_and_a_full_buffer_waits() {
        let mut b = Bola::new(&BolaConfig::default());
        let t = [1000.0];
        let levels: Vec<usize> = [0.0, 8.0, 20.0, 32.0, 44.0, 52.0]
            .iter()
            .map(|&buf| match b.decide(&input(buf, Some(0), &t)) {
                Decision::Fetch(m) => m,
                Decision::Wait(_) => usize::MAX,
            })
            .collect();
        assert!(levels.windows(2).all(|w| w[0] <= w[1]), "{levels:?}");
        assert_eq!(levels[0], 0);
        assert_eq!(*levels.last().unwrap(), 5, "{levels:?}");
        // Q_max = 15 chunks: at 58 s (14.5 chunks > Q_max − 1) it waits for 56 s.
        assert_eq!(b.decide(&input(58.0, Some(5), &t)), Decision::Wait(56.0));
    }
}
