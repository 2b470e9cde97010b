//! Sprout: K. Winstein, A. Sivaraman, H. Balakrishnan, "Stochastic Forecasts Achieve High
//! Throughput and Low Delay over Cellular Networks", NSDI 2013 \[sprout\] (cited as *\[Sprout §n\]*),
//! with what the paper leaves open taken from the authors' code, `keithw/sprout`
//! (`src/sprout/receiver.cc`, `process.cc`, `processforecaster.cc`,
//! `src/network/sproutconn.cc`, `network.cc`, `src/examples/sproutbt2.cc`; cited as *code*).
//!
//! **The receiver infers the link** \[Sprout §3.1–3.2\]: packets arrive as a Poisson
//! process whose rate λ wanders in Brownian motion (σ = 200 packets/s per √s) and, once at 0
//! (an outage), stays there until it escapes at λ_z = 1 per second. λ is discretized into
//! 256 bins between 0 and 1000 packets/s (code: 257 bins, bin 0 being exactly 0, the
//! outage). Every tick (τ = 20 ms) the receiver *evolves* its probability distribution of λ
//! by the Brownian motion and *observes* the number of packets that arrived in the tick,
//! multiplying by the Poisson likelihood (Bayes).
//!
//! **The cautious forecast** \[Sprout §3.3\]: from that distribution the receiver forecasts
//! the cumulative packets delivered over each of the next 8 ticks (160 ms) — not the mean
//! but the 5th percentile, so that the sender's packets leave the queue within the target
//! delay with 95 % probability. The forecast of tick k for a certain rate is precomputed
//! (code: `ProcessForecastInterval`, one table per horizon and rate bin); the receiver's
//! forecast is the 5 % quantile of the mixture over its distribution.
//!
//! **Feedback** \[Sprout §3.4\]: the forecast travels to the sender with the bytes the
//! receiver has received or written off as lost (a packet sent more than 10 ms before one
//! that arrived is written off: code `REORDER_LIMIT`, the sender's `throwaway` field).
//!
//! **The sender** \[Sprout §3.5\]: it estimates its own queue as bytes sent minus bytes
//! received-or-lost at the forecast's arrival, minus the forecast deliveries of the ticks
//! since, and sends what the forecast says can be delivered within the target delay
//! (100 ms = 5 ticks) minus that queue estimate.
//!
//! Choices where the paper and the code are silent or differ (each tested):
//! - **Feedback timing**: the paper piggybacks forecasts on the receiver's own outgoing
//!   packets (a video call sends both ways); a one-way flow's receiver here sends a
//!   forecast-only packet whenever a tick completes, as long as it heard from the sender in
//!   the last second (code: the forecast is attached whenever its time changed, and
//!   `sproutbt2` sends in both directions).
//! - **Queue estimate**: code subtracts the *cumulative* count `counts[k]` at each tick k
//!   since the forecast, which counts tick 0 k+1 times; ours subtracts the tick's own share
//!   `counts[k] − counts[k−1]`, what \[Sprout §3.5\] describes. They differ only when a
//!   forecast is more than one tick old.
//! - **Sending**: as `sproutbt2`: the sender sends its whole window at once, in packets of
//!   at most `packet_bytes` (the last one may be shorter), marks the last packet of the
//!   flight with a time-to-next of 50 ms (`fallback_interval`), and sends a heartbeat (an
//!   empty packet) when it has sent nothing for 50 ms. The receiver does not count a tick
//!   with no arrival as an observation of 0 until the time-to-next has passed
//!   (`_score_time`), and counts a tick whose arrivals are less than a packet as one packet
//!   (code: `0 < count < 1` observes 1; a heartbeat's payload is the 2-byte forecast
//!   header, counted as such here).
//! - **Units**: counts are in packets of `packet_bytes` payload, on both sides (code: 1400
//!   at the receiver, 1440 at the sender, and sequence numbers advancing 50 bytes more
//!   than the payload).
//! - The Brownian-motion kernel is the exact normal CDF difference over each bin (code: a
//!   CDF cached on a grid of 128 points per bin), cut at ±5σ as in the code. Arithmetic
//!   runs over the bins holding probability above 1e-15 only (the rest cannot move a 5 %
//!   quantile); an observation so unlikely that every bin's likelihood underflows is
//!   skipped (code: NaN).
//! - The distribution is normalized after every tick (code: before each forecast; the same
//!   forecast, computed each tick here).
//! - `fast_inference = true` (off by default; ours, not the paper's or the code's): kernel
//!   to ±3σ renormalized, tails of at most 1e-6 probability trimmed each tick, vectorized
//!   forecast sums — 36 % fewer instructions in the 100-UE benchmark, but forecasts up to
//!   38 packets off the exact ones on a saturated LTE trace (a trimmed tail regains its
//!   weight after a surprising observation); measured in the tests and docs/transports.md.
//!
//! # Files
//!
//! - this file: the configuration ([`SproutConfig`]), the wire sizes and the packing of the
//!   forecast into a [`Feedback`](super::Feedback);
//! - `model`: the stochastic model \[Sprout §3.1–3.3\] — the discretized rate process, the
//!   Brownian-motion kernel, the Poisson likelihoods and the forecast tables, shared by every
//!   flow with the same parameters — and the receiver's belief over it (evolve, observe,
//!   forecast);
//! - `kernels`: the vector multiply-adds and dot products the inference runs on (AVX or SSE2
//!   on x86-64, each lane the scalar loop's IEEE operations, so every path gives the same
//!   bits);
//! - `receiver`: [`SproutReceiver`], the tick clock, the bytes received or written off, and the
//!   forecast feedback \[Sprout §3.4\];
//! - `sender`: [`SproutSender`], the queue estimate and the window \[Sprout §3.5\].

mod kernels;
mod model;
mod receiver;
mod sender;

pub use receiver::SproutReceiver;
pub use sender::SproutSender;

use cellshare_core::{Nanos, MS};

/// Bytes of Sprout's own header on a data packet: the 8-byte nonce (direction and sequence
/// number), four 16-bit timestamps (code: `Network::Packet`) and the 16-byte OCB tag.
pub const HEADER_BYTES: u32 = 32;
/// Bytes of a forecast packet on the wire: IP/UDP (28), Sprout's header (32), the forecast
/// framing (2) and the serialized forecast (two varints and eight packed counts, ~26).
pub const FEEDBACK_BYTES: u32 = 88;
/// Most forecast ticks a [`Feedback`](super::Feedback) carries (four 64-bit words of 16-bit
/// counts).
pub const MAX_FORECAST_TICKS: u32 = 16;

/// Parameters of Sprout (`transport = { kind = "sprout", ... }`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SproutConfig {
    /// Tick length τ, ms: how often the receiver updates its belief and forecasts. Default
    /// 20 (\[Sprout §3.1\]; code `TICK_LENGTH`).
    pub tick_ms: f64,
    /// Ticks forecast ahead. Default 8 (160 ms; code `NUM_TICKS`).
    pub forecast_ticks: u32,
    /// The delay the sender aims to keep each packet's queueing under, ms: a whole number of
    /// ticks, at most the forecast's horizon. Default 100 (\[Sprout §3.5\]; code
    /// `TARGET_DELAY_TICKS` = 5).
    pub target_delay_ms: f64,
    /// Probability that the forecast deliveries happen: the forecast is the
    /// (1 − confidence) quantile. Default 0.95 (\[Sprout §3.3\]: the 5th percentile).
    pub confidence: f64,
    /// Largest link rate the model considers, packets per second. Default 1000 (code
    /// `MAX_ARRIVAL_RATE`).
    pub max_rate_pps: f64,
    /// Bins of the rate's distribution between 0 and `max_rate_pps`. Default 256
    /// (\[Sprout §3.2\]; code `NUM_BINS`).
    pub bins: u32,
    /// σ of the rate's Brownian motion, packets per second per √second. Default 200
    /// (\[Sprout §3.1\]; code `BROWNIAN_MOTION_RATE`).
    pub brownian_motion_rate: f64,
    /// λ_z: rate at which an outage (λ = 0) ends, per second. Default 1 (\[Sprout §3.1\];
    /// code `OUTAGE_ESCAPE_RATE`).
    pub outage_escape_rate: f64,
    /// Arrivals per tick the forecast tables count before lumping the rest. Default 30 (code
    /// `MAX_ARRIVALS_PER_TICK`).
    pub max_arrivals_per_tick: u32,
    /// Payload bytes per data packet (a forecast count is one such packet). Default 1440
    /// (code: `sproutbt2`'s packets).
    pub packet_bytes: u32,
    /// The sender sends an empty heartbeat after this long without sending, ms, and marks
    /// the last packet of each flight with it as time-to-next. Default 50 (code
    /// `fallback_interval`).
    pub heartbeat_ms: f64,
    /// Packets sent this long before one that arrived are written off as lost, ms. Default
    /// 10 (code `REORDER_LIMIT`).
    pub reorder_ms: f64,
    /// An approximation of ours for speed (kernel to ±3σ renormalized, tails of at most
    /// 1e-6 probability trimmed every tick, vectorized sums): 36 % fewer instructions in the
    /// 100-UE benchmark, forecasts within a packet of the exact ones at its low rates but
    /// up to 38 packets off on a saturated LTE trace (docs/transports.md, measured). Default
    /// false: the receiver's inference as the code computes it (kernel to ±5σ, every bin
    /// above 1e-15 kept).
    pub fast_inference: bool,
}

impl Default for SproutConfig {
    fn default() -> Self {
        Self {
            tick_ms: 20.0,
            forecast_ticks: 8,
            target_delay_ms: 100.0,
            confidence: 0.95,
            max_rate_pps: 1000.0,
            bins: 256,
            brownian_motion_rate: 200.0,
            outage_escape_rate: 1.0,
            max_arrivals_per_tick: 30,
            packet_bytes: 1440,
            heartbeat_ms: 50.0,
            reorder_ms: 10.0,
            fast_inference: false,
        }
    }
}

impl SproutConfig {
    /// Checks the parameters; on error returns (key, value, expectation).
    pub fn validate(&self) -> Result<(), (String, String, String)> {
        let err = |k: &str, v: String, e: &str| Err((k.to_string(), v, e.to_string()));
        if !(self.tick_ms >= 1.0 && self.tick_ms <= 1000.0) {
            return err(
                "tick_ms",
                self.tick_ms.to_string(),
                "a tick in ms in [1, 1000]",
            );
        }
        if !(1..=MAX_FORECAST_TICKS).contains(&self.forecast_ticks) {
            return err(
                "forecast_ticks",
                self.forecast_ticks.to_string(),
                "a number of ticks in 1..=16",
            );
        }
        let ticks = self.target_delay_ms / self.tick_ms;
        if !(self.target_delay_ms.is_finite()
            && ticks >= 1.0 - 1e-9
            && (ticks - ticks.round()).abs() < 1e-6
            && ticks.round() <= self.forecast_ticks as f64)
        {
            return err(
                "target_delay_ms",
                self.target_delay_ms.to_string(),
                "a whole number of ticks (tick_ms), at least one and at most forecast_ticks",
            );
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return err(
                "confidence",
                self.confidence.to_string(),
                "a probability in (0, 1)",
            );
        }
        if !(self.max_rate_pps > 0.0 && self.max_rate_pps <= 1e6) {
            return err(
                "max_rate_pps",
                self.max_rate_pps.to_string(),
                "a rate in packets/s in (0, 1e6]",
            );
        }
        if !(8..=1024).contains(&self.bins) {
            return err(
                "bins",
                self.bins.to_string(),
                "a number of bins in 8..=1024",
            );
        }
        if !(self.brownian_motion_rate > 0.0 && self.brownian_motion_rate.is_finite()) {
            return err(
                "brownian_motion_rate",
                self.brownian_motion_rate.to_string(),
                "a σ in packets/s per √s > 0",
            );
        }
        if !(self.outage_escape_rate >= 0.0 && self.outage_escape_rate.is_finite()) {
            return err(
                "outage_escape_rate",
                self.outage_escape_rate.to_string(),
                "a rate per second >= 0",
            );
        }
        if !(1..=200).contains(&self.max_arrivals_per_tick) {
            return err(
                "max_arrivals_per_tick",
                self.max_arrivals_per_tick.to_string(),
                "a count in 1..=200",
            );
        }
        if !(1..=65_000).contains(&self.packet_bytes) {
            return err(
                "packet_bytes",
                self.packet_bytes.to_string(),
                "a payload size in 1..=65000 bytes",
            );
        }
        if !(self.heartbeat_ms >= 1.0 && self.heartbeat_ms <= 10_000.0) {
            return err(
                "heartbeat_ms",
                self.heartbeat_ms.to_string(),
                "an interval in ms in [1, 10000]",
            );
        }
        if !(self.reorder_ms >= 0.0 && self.reorder_ms <= 10_000.0) {
            return err(
                "reorder_ms",
                self.reorder_ms.to_string(),
                "a time in ms in [0, 10000]",
            );
        }
        Ok(())
    }

    fn tick(&self) -> Nanos {
        (self.tick_ms * MS as f64).round() as Nanos
    }

    fn target_ticks(&self) -> usize {
        (self.target_delay_ms / self.tick_ms).round() as usize
    }
}

fn pack_counts(counts: &[u32]) -> [u64; 4] {
    let mut w = [0u64; 4];
    for (i, &c) in counts.iter().enumerate().take(MAX_FORECAST_TICKS as usize) {
        w[i / 4] |= (c.min(u16::MAX as u32) as u64) << (16 * (i % 4));
    }
    w
}

fn unpack_counts(w: &[u64; 4], n: usize, out: &mut [u32]) {
    for (i, o) in out.iter_mut().enumerate().take(n) {
        *o = ((w[i / 4] >> (16 * (i % 4))) & 0xffff) as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> SproutConfig {
        SproutConfig::default()
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = cfg();
        assert!(c.validate().is_ok());
        assert_eq!(
            (c.tick_ms, c.forecast_ticks, c.target_ticks(), c.bins),
            (20.0, 8, 5, 256)
        );
        assert_eq!(
            (
                c.brownian_motion_rate,
                c.outage_escape_rate,
                c.max_rate_pps,
                c.confidence
            ),
            (200.0, 1.0, 1000.0, 0.95)
        );
    }

    #[test]
    fn validation_names_the_key() {
        for (c, key) in [
            (
                SproutConfig {
                    target_delay_ms: 90.0,
                    ..cfg()
                },
                "target_delay_ms",
            ),
            (
                SproutConfig {
                    target_delay_ms: 200.0,
                    ..cfg()
                },
                "target_delay_ms",
            ),
            (
                SproutConfig {
                    confidence: 1.0,
                    ..cfg()
                },
                "confidence",
            ),
            (SproutConfig { bins: 2, ..cfg() }, "bins"),
            (
                SproutConfig {
                    forecast_ticks: 17,
                    ..cfg()
                },
                "forecast_ticks",
            ),
            (
                SproutConfig {
                    tick_ms: f64::NAN,
                    ..cfg()
                },
                "tick_ms",
            ),
        ] {
            assert_eq!(c.validate().unwrap_err().0, key);
        }
    }
}
