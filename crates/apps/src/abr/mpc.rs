//! robustMPC (Yin, Jindal, Sekar, Sinopoli, "A Control-Theoretic Approach for Dynamic
//! Adaptive Video Streaming over HTTP", SIGCOMM 2015 \[mpc\], §4–§5):
//!
//! - throughput prediction: the harmonic mean Ĉ of the last 5 chunks' throughputs; robust
//!   MPC divides it by 1 + the largest relative error |Ĉ_k − C_k| / C_k of the last 5
//!   predictions (§5, "RobustMPC");
//! - over a horizon of N = 5 chunks, the level sequence that maximizes the QoE of §3 —
//!   Σ q(R_k) − λ·Σ|q(R_{k+1}) − q(R_k)| − μ·Σ rebuffering — with the buffer simulated
//!   chunk by chunk (download time = size / prediction; rebuffering when it exceeds the
//!   buffer; the buffer then gains a chunk duration) is found by exhaustive search (the
//!   FastMPC table of §4.3 approximates exactly this; 6⁵ = 7776 sequences, searched as a
//!   tree); the first level is fetched. The weights are the player's QoE weights (q(R) = R
//!   in Mbit/s, λ = 1, μ = 4.3 by default: the BoDe paper's footnote 7).

use serde::{Deserialize, Serialize};

use super::{harmonic_mean, AbrInput, Decision};
use crate::qoe::QoeWeights;

/// `abr = { kind = "mpc" }` (robustMPC).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MpcConfig {
    /// Horizon N, chunks (1..=8). Default 5.
    pub horizon: u32,
    /// Chunks in the harmonic mean and the error window. Default 5.
    pub samples: u32,
}

impl Default for MpcConfig {
    fn default() -> Self {
        Self { horizon: 5, samples: 5 }
    }
}

/// robustMPC at run time.
#[derive(Clone, Debug)]
pub struct Mpc {
    cfg: MpcConfig,
    w: QoeWeights,
    /// The prediction made before each chunk measured so far, kbit/s.
    predictions: Vec<f64>,
    /// Relative errors of past predictions.
    errors: Vec<f64>,
}

impl Mpc {
    /// From `cfg`, optimizing the QoE weighted by `w`.
    pub fn new(cfg: &MpcConfig, w: QoeWeights) -> Self {
        Self { cfg: cfg.clone(), w, predictions: Vec::new(), errors: Vec::new() }
    }

    /// The robust throughput prediction, kbit/s (records this prediction's error later).
    fn predict(&mut self, s: &AbrInput) -> f64 {
        let t = s.throughputs_kbps;
        // The error of the prediction made before the newest sample.
        if let (Some(&last), Some(&pred)) = (t.last(), self.predictions.last()) {
            if self.errors.len() < self.predictions.len() && last > 0.0 {
                self.errors.push((pred - last).abs() / last);
            }
        }
        let k = (self.cfg.samples as usize).min(t.len());
        let hm = harmonic_mean(&t[t.len() - k..]);
        self.predictions.push(hm);
        let e = self.errors.len();
        let max_err = self.errors[e - (self.cfg.samples as usize).min(e)..].iter().copied().fold(0.0, f64::max);
        hm / (1.0 + max_err)
    }

    /// §4: the best first level over the horizon.
    pub fn decide(&mut self, s: &AbrInput) -> Decision {
        let c = self.predict(s).max(1e-3);
        let n = (self.cfg.horizon).min(s.chunks.saturating_sub(s.next_chunk)).max(1) as usize;
        let last = s.last_level.unwrap_or(0);
        let mut best = (f64::NEG_INFINITY, 0usize);
        for first in 0..s.ladder_kbps.len() {
            let v = self.search(s, c, n, 1, first, last, s.buffer_s);
            if v > best.0 {
                best = (v, first);
            }
        }
        Decision::Fetch(best.1)
    }

    /// The best QoE of sequences starting with `level` at depth `depth` of `n`, from buffer
    /// `buf` after a chunk at `prev`.
    #[allow(clippy::too_many_arguments)]
    fn search(&self, s: &AbrInput, c: f64, n: usize, depth: usize, level: usize, prev: usize, buf: f64) -> f64 {
        let dl = s.chunk_kbit(level) / c;
        let rebuf = (dl - buf).max(0.0);
        let buf = (buf - dl).max(0.0) + s.chunk_s;
        let q = s.ladder_kbps[level] / 1000.0;
        let q_prev = s.ladder_kbps[prev] / 1000.0;
        let here = q - self.w.smooth * (q - q_prev).abs() - self.w.rebuffer * rebuf;
        if depth == n {
            return here;
        }
        let mut best = f64::NEG_INFINITY;
        for next in 0..s.ladder_kbps.len() {
            best = best.max(self.search(s, c, n, depth + 1, next, level, buf));
        }
        here + best
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::input;
    use super::*;

    fn mpc() -> Mpc {
        Mpc::new(&MpcConfig::default(), QoeWeights::default())
    }

    /// The QoE of one level sequence, simulated the way §4 describes (an independent
    /// re-statement of the objective, to check the tree search against).
    fn qoe_of(seq: &[usize], s: &AbrInput, c: f64, w: QoeWeights) -> f64 {
        let (mut buf, mut prev, mut total) = (s.buffer_s, s.last_level.unwrap(), 0.0);
        for &l in seq {
            let dl = s.ladder_kbps[l] * s.chunk_s / c;
            let rebuf = (dl - buf).max(0.0);
            buf = (buf - dl).max(0.0) + s.chunk_s;
            total += s.ladder_kbps[l] / 1000.0 - w.smooth * (s.ladder_kbps[l] - s.ladder_kbps[prev]).abs() / 1000.0 - w.rebuffer * rebuf;
            prev = l;
        }
        total
    }

    #[test]
    fn the_first_level_of_the_best_of_all_6_to_the_5_sequences() {
        for (buf, tput) in [(20.0, 2000.0), (1.0, 2000.0), (8.0, 900.0), (40.0, 6000.0), (3.0, 400.0)] {
            let t = [tput; 5];
            let s = input(buf, Some(3), &t);
            let mut best = (f64::NEG_INFINITY, 0);
            for code in 0..6usize.pow(5) {
                let seq: Vec<usize> = (0..5).map(|i| code / 6usize.pow(4 - i) % 6).collect();
                let v = qoe_of(&seq, &s, tput, QoeWeights::default());
                if v > best.0 + 1e-12 {
                    best = (v, seq[0]);
                }
            }
            assert_eq!(mpc().decide(&s), Decision::Fetch(best.1), "buffer {buf} s, {tput} kbit/s");
        }
        // A low buffer picks lower than a full one at the same throughput.
        let t = [2000.0; 5];
        let lvl = |buf: f64| match mpc().decide(&input(buf, Some(3), &t)) {
            Decision::Fetch(l) => l,
            Decision::Wait(_) => unreachable!(),
        };
        assert!(lvl(0.5) < lvl(20.0), "{} vs {}", lvl(0.5), lvl(20.0));
    }

    #[test]
    fn robustness_lowers_the_prediction_after_errors() {
        let mut m = mpc();
        let mut t = vec![4000.0; 5];
        let s = input(10.0, Some(3), &t);
        assert!((m.predict(&s) - 4000.0).abs() < 1e-9);
        // The next chunk came at 1000: a 300 % error; the prediction is divided by 4.
        t.push(1000.0);
        let s = input(10.0, Some(3), &t);
        let hm = harmonic_mean(&t[t.len() - 5..]);
        assert!((m.predict(&s) - hm / 4.0).abs() < 1e-9, "{}", m.predict(&input(10.0, Some(3), &t)));
    }
}
