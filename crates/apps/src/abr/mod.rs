//! Adaptive bitrate (ABR) algorithms, one file each, every one from its paper:
//!
//! - [`bb`]: BBA-0, the buffer-based algorithm of Huang et al., "A Buffer-Based Approach to
//!   Rate Adaptation: Evidence from a Large Video Streaming Service", SIGCOMM 2014 \[bba\];
//! - [`festive`]: FESTIVE, Jiang, Sekar and Zhang, "Improving Fairness, Efficiency, and
//!   Stability in HTTP-based Adaptive Video Streaming with FESTIVE", CoNEXT 2012 \[festive\];
//! - [`bola`]: BOLA-BASIC, Spiteri, Urgaonkar and Sitaraman, "BOLA: Near-Optimal Bitrate
//!   Adaptation for Online Videos", INFOCOM 2016 \[bola\];
//! - [`mpc`]: robustMPC, Yin, Jindal, Sekar and Sinopoli, "A Control-Theoretic Approach for
//!   Dynamic Adaptive Video Streaming over HTTP", SIGCOMM 2015 \[mpc\].
//!
//! The player ([`crate::stream`]) asks before each chunk with what it knows ([`AbrInput`]:
//! the ladder, the buffer, the last chunk's level, the throughput of every chunk so far)
//! and gets a [`Decision`]: fetch the next chunk at a level, or wait until the buffer has
//! fallen to a level. The first chunk, with no throughput measured, is at the lowest level
//! for every algorithm (each paper starts low: BBA-0 at R_min below the reservoir, BOLA at
//! an empty buffer, FESTIVE and MPC with no estimate). The engine dispatches over the
//! [`Abr`] enum.

pub mod bb;
pub mod bola;
pub mod festive;
pub mod mpc;

use serde::{Deserialize, Serialize};

use crate::{check_range, ParamError};

/// What an ABR algorithm sees before a chunk.
#[derive(Clone, Copy, Debug)]
pub struct AbrInput<'a> {
    /// The bitrate ladder, kbit/s, lowest first.
    pub ladder_kbps: &'a [f64],
    /// Chunk duration, s.
    pub chunk_s: f64,
    /// Video buffered, s.
    pub buffer_s: f64,
    /// The player's buffer capacity, s.
    pub buffer_cap_s: f64,
    /// The previous chunk's level.
    pub last_level: Option<usize>,
    /// The measured throughput of every chunk so far (size / (last byte − request)),
    /// kbit/s, oldest first.
    pub throughputs_kbps: &'a [f64],
    /// The index of the chunk to fetch.
    pub next_chunk: u32,
    /// Chunks in the video.
    pub chunks: u32,
    /// Now, s.
    pub now_s: f64,
}

impl AbrInput<'_> {
    /// Size of a chunk at `level`, kbit (constant bitrate: rate × duration).
    pub fn chunk_kbit(&self, level: usize) -> f64 {
        self.ladder_kbps[level] * self.chunk_s
    }

    /// The highest level whose rate is at most `kbps` (the lowest if none is).
    pub fn level_at_most(&self, kbps: f64) -> usize {
        self.ladder_kbps.iter().rposition(|&r| r <= kbps).unwrap_or(0)
    }
}

/// What the algorithm decides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// Fetch the next chunk at this level.
    Fetch(usize),
    /// Fetch nothing until the buffer has fallen to this many seconds.
    Wait(f64),
}

/// `app.abr`: the ABR algorithm (`kind` selects it) and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AbrConfig {
    /// BBA-0 \[bba\] (Huang et al. 2014): the rate follows the buffer.
    Bb(bb::BbConfig),
    /// FESTIVE \[festive\] (Jiang et al. 2012): harmonic-mean bandwidth, gradual switching, delayed
    /// update.
    Festive(festive::FestiveConfig),
    /// BOLA-BASIC \[bola\] (Spiteri et al. 2016): Lyapunov utility maximization on the buffer.
    Bola(bola::BolaConfig),
    /// robustMPC \[mpc\] (Yin et al. 2015): model-predictive QoE maximization over a horizon.
    Mpc(mpc::MpcConfig),
}

impl Default for AbrConfig {
    fn default() -> Self {
        AbrConfig::Mpc(mpc::MpcConfig::default())
    }
}

impl AbrConfig {
    /// `"bb"`, `"festive"`, `"bola"` or `"mpc"`.
    pub fn name(&self) -> &'static str {
        match self {
            AbrConfig::Bb(_) => "bb",
            AbrConfig::Festive(_) => "festive",
            AbrConfig::Bola(_) => "bola",
            AbrConfig::Mpc(_) => "mpc",
        }
    }

    /// Checks the parameters (keys below `abr`).
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            AbrConfig::Bb(c) => {
                check_range("reservoir_s", c.reservoir_s, 0.0, 3600.0, "seconds in [0, 3600]")?;
                check_range("cushion_s", c.cushion_s, 0.1, 3600.0, "seconds in [0.1, 3600]")
            }
            AbrConfig::Festive(c) => {
                check_range("p", c.p, 0.01, 1.0, "a fraction in (0, 1]")?;
                check_range("alpha", c.alpha, 0.0, 1e6, "a weight >= 0")?;
                if c.samples == 0 || c.samples > 1000 {
                    return Err(("samples".into(), c.samples.to_string(), "a number of chunks in 1..=1000".into()));
                }
                check_range("window_s", c.window_s, 0.0, 3600.0, "seconds in [0, 3600]")
            }
            AbrConfig::Bola(c) => check_range("gamma_p", c.gamma_p, 0.0, 100.0, "γp in [0, 100]"),
            AbrConfig::Mpc(c) => {
                if !(1..=8).contains(&c.horizon) {
                    return Err(("horizon".into(), c.horizon.to_string(), "a number of chunks in 1..=8".into()));
                }
                if c.samples == 0 || c.samples > 100 {
                    return Err(("samples".into(), c.samples.to_string(), "a number of chunks in 1..=100".into()));
                }
                Ok(())
            }
        }
    }

    /// The algorithm's run-time state; `qoe` weighs MPC's objective.
    pub fn build(&self, qoe: crate::qoe::QoeWeights) -> Abr {
        match self {
            AbrConfig::Bb(c) => Abr::Bb(bb::Bb::new(c)),
            AbrConfig::Festive(c) => Abr::Festive(festive::Festive::new(c)),
            AbrConfig::Bola(c) => Abr::Bola(bola::Bola::new(c)),
            AbrConfig::Mpc(c) => Abr::Mpc(mpc::Mpc::new(c, qoe)),
        }
    }
}

/// An ABR algorithm at run time.
#[derive(Clone, Debug)]
pub enum Abr {
    /// BBA-0.
    Bb(bb::Bb),
    /// FESTIVE.
    Festive(festive::Festive),
    /// BOLA-BASIC.
    Bola(bola::Bola),
    /// robustMPC.
    Mpc(mpc::Mpc),
}

impl Abr {
    /// The decision for the next chunk.
    pub fn decide(&mut self, s: &AbrInput) -> Decision {
        if s.throughputs_kbps.is_empty() && s.last_level.is_none() {
            return Decision::Fetch(0);
        }
        match self {
            Abr::Bb(a) => a.decide(s),
            Abr::Festive(a) => a.decide(s),
            Abr::Bola(a) => a.decide(s),
            Abr::Mpc(a) => a.decide(s),
        }
    }
}

/// Harmonic mean of `xs` (0 when empty or any is 0).
pub fn harmonic_mean(xs: &[f64]) -> f64 {
    if xs.is_empty() || xs.iter().any(|&x| x <= 0.0) {
        return 0.0;
    }
    xs.len() as f64 / xs.iter().map(|x| 1.0 / x).sum::<f64>()
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::AbrInput;

    pub const LADDER: [f64; 6] = [300.0, 750.0, 1200.0, 1850.0, 2850.0, 4300.0];

    pub fn input<'a>(buffer_s: f64, last: Option<usize>, tputs: &'a [f64]) -> AbrInput<'a> {
        AbrInput {
            ladder_kbps: &LADDER,
            chunk_s: 4.0,
            buffer_s,
            buffer_cap_s: 60.0,
            last_level: last,
            throughputs_kbps: tputs,
            next_chunk: tputs.len() as u32,
            chunks: 48,
            now_s: tputs.len() as f64 * 4.0,
        }
    }
}
