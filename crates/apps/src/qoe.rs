//! QoE as the MPC paper defines it (Yin et al., SIGCOMM 2015 \[mpc\], §3, Eq. (5)): for chunks
//! 1..K at bitrates R_k,
//!
//! QoE = Σ_k q(R_k) − λ·Σ_k |q(R_{k+1}) − q(R_k)| − μ·Σ_k T_k − μ_s·T_s,
//!
//! with T_k the rebuffering while chunk k downloads and T_s the start-up delay. We use the
//! linear utility q(R) = R in Mbit/s, λ = 1 and μ = 4.3 — the BoDe paper's \[bode\] rebuffering
//! penalty (§VI-B, footnote 7; Pensieve's QoE_lin, whose dash.js BoDe used) — and μ_s = μ
//! (the MPC paper weighs start-up like rebuffering).

use serde::Serialize;

/// λ, μ, μ_s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QoeWeights {
    /// μ: per second of rebuffering (q units, Mbit/s).
    pub rebuffer: f64,
    /// λ: per Mbit/s of change between consecutive chunks.
    pub smooth: f64,
    /// μ_s: per second of start-up delay.
    pub startup: f64,
}

impl Default for QoeWeights {
    fn default() -> Self {
        Self { rebuffer: 4.3, smooth: 1.0, startup: 4.3 }
    }
}

/// A session's QoE and its parts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Qoe {
    /// The total, Eq. (5).
    pub qoe: f64,
    /// The total over the chunks downloaded.
    pub qoe_per_chunk: f64,
    /// Σ q(R_k).
    pub bitrate_utility: f64,
    /// λ·Σ |Δq|.
    pub smoothness_penalty: f64,
    /// μ·Σ T_k.
    pub rebuffer_penalty: f64,
    /// μ_s·T_s.
    pub startup_penalty: f64,
}

impl QoeWeights {
    /// The QoE of chunks at `kbps` (in order) with `rebuffer_s` of rebuffering in all and a
    /// start-up delay of `startup_s` (0 if playback never started).
    pub fn qoe(&self, kbps: &[f64], rebuffer_s: f64, startup_s: f64) -> Qoe {
        let util: f64 = kbps.iter().map(|r| r / 1000.0).sum();
        let smooth: f64 = kbps.windows(2).map(|w| (w[1] - w[0]).abs() / 1000.0).sum::<f64>() * self.smooth;
        let rebuf = self.rebuffer * rebuffer_s;
        let startup = self.startup * startup_s;
        let qoe = util - smooth - rebuf - startup;
        Qoe {
            qoe,
            qoe_per_chunk: if kbps.is_empty() { f64::NAN } else { qoe / kbps.len() as f64 },
            bitrate_utility: util,
            smoothness_penalty: smooth,
            rebuffer_penalty: rebuf,
            startup_penalty: startup,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq5() {
        let q = QoeWeights::default().qoe(&[300.0, 1200.0, 750.0], 2.0, 1.0);
        assert!((q.bitrate_utility - 2.25).abs() < 1e-12);
        assert!((q.smoothness_penalty - 1.35).abs() < 1e-12);
        assert!((q.qoe - (2.25 - 1.35 - 8.6 - 4.3)).abs() < 1e-12);
        assert!((q.qoe_per_chunk - q.qoe / 3.0).abs() < 1e-12);
    }
}
