//! # cellshare-workload
//!
//! Foreground workload generators (no I/O, no clock): a seeded [`Generator`] yields flow
//! arrivals in time order as [`Arrival`]s — (time, UE, bytes, category) — which the
//! simulator turns into flows when they happen.
//!
//! Two arrival processes ([`Arrivals`]):
//! - **`poisson`**: the papers' heavy-tailed mix of short, medium and long flows
//!   (\[legilimens\] §V-E and §VI-B: 64 KB / 1 MB / 32 MB carrying 10 / 30 / 60 % of
//!   the foreground bytes; \[sneaker\] §VI: the same sizes at 10 / 40 / 50 %;
//!   \[legilimens-thesis\] §4.1: 32 KB short flows, 10 / 30 / 60 %). Each size class
//!   is its own Poisson process whose rate makes it carry its share of a total byte rate; the
//!   caller derives that byte rate from a target PRB utilization (see `cellshare-sim`).
//! - **`randomized`**: the thesis's randomized mix (§4.2.4): one short flow every second,
//!   medium flows of uniform size in [0.5, 5] MB with exponential inter-arrival times (mean
//!   4 s, capped at 15 s), long flows of uniform size in [10, 64] MB (mean 70 s, cap 160 s).
//!   By default each class's next flow is requested that long after the previous one of the
//!   class *completes* (a phone app that asks for the next object when the last one is in,
//!   as the thesis's test app did; see [`GapsFrom`]), so the caller reports completions with
//!   [`Generator::complete`].
//!
//! Sizes are binary: 1 KB = 1024 bytes, 1 MB = 1 048 576 bytes (the papers write "64 KB",
//! "1 MB", "32 MB" without saying; binary sizes are what traffic generators such as iperf
//! use).
//!
//! Every draw comes from `stream_rng(seed, "workload", index·8 + class)`: one stream per size
//! class, so the arrivals of one class do not depend on another's parameters.

#![warn(missing_docs)]

use cellshare_core::time::from_secs_f64;
use cellshare_core::{stream_rng, Nanos, StreamRng};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// One kilobyte (binary).
pub const KB: u64 = 1024;
/// One megabyte (binary).
pub const MB: u64 = 1024 * 1024;

/// The size category of a workload flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Short flows (web objects, app messages).
    Short,
    /// Medium flows (video chunks, content-heavy pages).
    Medium,
    /// Long flows (app updates, cloud sync).
    Long,
}

impl Category {
    /// The category's name as written in scenarios and results: `"short"`, `"medium"`,
    /// `"long"`.
    pub fn name(self) -> &'static str {
        match self {
            Category::Short => "short",
            Category::Medium => "medium",
            Category::Long => "long",
        }
    }

    fn index(self) -> u64 {
        match self {
            Category::Short => 0,
            Category::Medium => 1,
            Category::Long => 2,
        }
    }
}

/// The arrival process of a workload (`kind` selects it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Arrivals {
    /// Poisson arrivals of a short/medium/long mix, sized to a target PRB utilization.
    Poisson(PoissonMix),
    /// The Legilimens thesis's randomized workload (§4.2.4); it has its own rates and
    /// ignores the cell's capacity.
    Randomized(RandomizedConfig),
}

impl Default for Arrivals {
    fn default() -> Self {
        Arrivals::Poisson(PoissonMix::default())
    }
}

/// A named mix of flow sizes and byte shares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// \[legilimens\] §V-E/§VI-B: 64 KB / 1 MB / 32 MB carrying 10 / 30 / 60 %.
    #[default]
    Legilimens,
    /// \[sneaker\] §VI: 64 KB / 1 MB / 32 MB carrying 10 / 40 / 50 %.
    Sneaker,
    /// \[legilimens-thesis\] §4.1: 32 KB / 1 MB / 32 MB carrying 10 / 30 / 60 %.
    Thesis,
}

impl Preset {
    /// The preset's size classes.
    pub fn mix(self) -> Vec<SizeClass> {
        let (short, shares) = match self {
            Preset::Legilimens => (64 * KB, [0.10, 0.30, 0.60]),
            Preset::Sneaker => (64 * KB, [0.10, 0.40, 0.50]),
            Preset::Thesis => (32 * KB, [0.10, 0.30, 0.60]),
        };
        vec![
            SizeClass { category: Category::Short, bytes: short, share: shares[0] },
            SizeClass { category: Category::Medium, bytes: MB, share: shares[1] },
            SizeClass { category: Category::Long, bytes: 32 * MB, share: shares[2] },
        ]
    }
}

/// One size class of a Poisson mix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SizeClass {
    /// `"short"`, `"medium"` or `"long"` (each at most once in a mix).
    pub category: Category,
    /// Flow size in payload bytes (≥ 1).
    pub bytes: u64,
    /// Share of the workload's bytes this class carries, in (0, 1]; the shares of a mix sum
    /// to 1.
    pub share: f64,
}

/// `kind = "poisson"`: a short/medium/long mix with Poisson arrivals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PoissonMix {
    /// Target PRB utilization of the cell by this workload alone, in (0, 1]. Default 0.6.
    pub load: f64,
    /// The mix: `"legilimens"` (64 KB / 1 MB / 32 MB at 10 / 30 / 60 % of bytes),
    /// `"sneaker"` (same sizes at 10 / 40 / 50 %) or `"thesis"` (32 KB / 1 MB / 32 MB at
    /// 10 / 30 / 60 %). Default `"legilimens"`.
    pub preset: Preset,
    /// Explicit size classes instead of the preset's. Default: none (use `preset`).
    pub mix: Option<Vec<SizeClass>>,
}

impl Default for PoissonMix {
    fn default() -> Self {
        Self { load: 0.6, preset: Preset::Legilimens, mix: None }
    }
}

impl PoissonMix {
    /// The size classes in use (`mix`, else the preset's).
    pub fn classes(&self) -> Vec<SizeClass> {
        self.mix.clone().unwrap_or_else(|| self.preset.mix())
    }

    /// Mean flow size in bytes: total bytes over total flows, Σshare / Σ(share/bytes).
    pub fn mean_flow_bytes(&self) -> f64 {
        1.0 / self.classes().iter().map(|c| c.share / c.bytes as f64).sum::<f64>()
    }
}

/// What a randomized workload's inter-arrival times count from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GapsFrom {
    /// From the completion of the previous flow of the same class (closed loop: one flow
    /// of each class at a time). The thesis's test app requested flows from the phones, and
    /// its "mixed workload" paced flows "based on the completion of previous flow"; Table II's
    /// byte counts also differ between runs with the same distributions (1185 vs 1256
    /// 32 KB short flows), which an open-loop schedule cannot produce.
    #[default]
    Completion,
    /// From the previous flow's arrival (open loop).
    Arrival,
}

/// `kind = "randomized"`: the thesis's randomized mix. Sizes are drawn with the thesis's
/// formula `size = u·((max − min) + 1) + min` (u uniform in [0, 1)), in bytes, i.e. uniform
/// over the integers min..=max; inter-arrival times are exponential with the given mean,
/// truncated at the cap (the thesis writes `IAT = −mean/ln(1 − u)`, which is not
/// exponential and has no finite mean; we read it as the usual `−mean·ln(1 − u)`, the
/// "exponential inter-arrival" the text describes, then apply the cap, so the realized mean
/// is mean·(1 − e^(−cap/mean)): 3.91 s and 62.9 s with the defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RandomizedConfig {
    /// Size of the short flows, bytes (≥ 1). Default 32768 (the thesis's 32 KB).
    pub short_bytes: u64,
    /// Interval between short flows, s (> 0). Default 1.
    pub short_interval_s: f64,
    /// Medium flow sizes `[min, max]`, bytes. Default [524288, 5242880] (0.5–5 MB).
    pub medium_bytes: [u64; 2],
    /// Mean inter-arrival time of medium flows before the cap, s (> 0). Default 4.
    pub medium_mean_s: f64,
    /// Cap on the inter-arrival time of medium flows, s (> 0). Default 15.
    pub medium_cap_s: f64,
    /// Long flow sizes `[min, max]`, bytes. Default [10485760, 67108864] (10–64 MB).
    pub long_bytes: [u64; 2],
    /// Mean inter-arrival time of long flows before the cap, s (> 0). Default 70.
    pub long_mean_s: f64,
    /// Cap on the inter-arrival time of long flows, s (> 0). Default 160.
    pub long_cap_s: f64,
    /// `"completion"`: each class's next flow arrives its gap after the previous flow of the
    /// class completes; `"arrival"`: after the previous one arrived. Default `"completion"`.
    pub gaps_from: GapsFrom,
}

impl Default for RandomizedConfig {
    fn default() -> Self {
        Self {
            short_bytes: 32 * KB,
            short_interval_s: 1.0,
            medium_bytes: [MB / 2, 5 * MB],
            medium_mean_s: 4.0,
            medium_cap_s: 15.0,
            long_bytes: [10 * MB, 64 * MB],
            long_mean_s: 70.0,
            long_cap_s: 160.0,
            gaps_from: GapsFrom::Completion,
        }
    }
}

/// A parameter error: (key relative to the arrivals table, value, what was expected).
pub type ParamError = (String, String, String);

fn err(key: impl Into<String>, value: impl std::fmt::Display, expected: impl Into<String>) -> ParamError {
    (key.into(), value.to_string(), expected.into())
}

impl Arrivals {
    /// The process's name, as written in `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Arrivals::Poisson(_) => "poisson",
            Arrivals::Randomized(_) => "randomized",
        }
    }

    /// Checks the parameters; errors name the key relative to the arrivals table.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            Arrivals::Poisson(p) => {
                if !(p.load > 0.0 && p.load <= 1.0) {
                    return Err(err("load", p.load, "a PRB utilization in (0, 1]"));
                }
                if let Some(mix) = &p.mix {
                    if mix.is_empty() {
                        return Err(err("mix", "[]", "1 to 3 size classes (or omit `mix` to use `preset`)"));
                    }
                    let mut seen = [false; 3];
                    for (i, c) in mix.iter().enumerate() {
                        if std::mem::replace(&mut seen[c.category.index() as usize], true) {
                            return Err(err(format!("mix[{i}].category"), format!("{:?}", c.category.name()), "each category at most once"));
                        }
                        if c.bytes == 0 {
                            return Err(err(format!("mix[{i}].bytes"), 0, "a flow size in bytes >= 1"));
                        }
                        if !(c.share > 0.0 && c.share <= 1.0) {
                            return Err(err(format!("mix[{i}].share"), c.share, "a byte share in (0, 1]"));
                        }
                    }
                    let total: f64 = mix.iter().map(|c| c.share).sum();
                    if (total - 1.0).abs() > 1e-6 {
                        return Err(err("mix", format!("shares summing to {total}"), "shares summing to 1"));
                    }
                }
            }
            Arrivals::Randomized(r) => {
                if r.short_bytes == 0 {
                    return Err(err("short_bytes", 0, "a flow size in bytes >= 1"));
                }
                for (key, v) in [
                    ("short_interval_s", r.short_interval_s),
                    ("medium_mean_s", r.medium_mean_s),
                    ("medium_cap_s", r.medium_cap_s),
                    ("long_mean_s", r.long_mean_s),
                    ("long_cap_s", r.long_cap_s),
                ] {
                    if !(v > 0.0 && v <= 86_400.0) {
                        return Err(err(key, v, "a time in seconds in (0, 86400]"));
                    }
                }
                for (key, [lo, hi]) in [("medium_bytes", r.medium_bytes), ("long_bytes", r.long_bytes)] {
                    if lo == 0 || lo > hi {
                        return Err(err(key, format!("[{lo}, {hi}]"), "[min, max] bytes with 1 <= min <= max"));
                    }
                }
            }
        }
        Ok(())
    }
}

/// One flow arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// When the flow starts, ns.
    pub at: Nanos,
    /// Receiving UE.
    pub ue: u32,
    /// Payload bytes.
    pub bytes: u64,
    /// Size category.
    pub category: Category,
}

#[derive(Clone, Copy, Debug)]
enum Size {
    Fixed(u64),
    /// Uniform over the integers lo..=hi.
    Uniform(u64, u64),
}

#[derive(Clone, Copy, Debug)]
enum Gap {
    /// Constant, ns.
    Fixed(Nanos),
    /// Exponential with this mean (s), truncated at `cap` (s; infinite for Poisson).
    Exp { mean_s: f64, cap_s: f64 },
}

/// `Stream::next` of a class waiting for its previous flow to complete.
const BLOCKED: Nanos = Nanos::MAX;

#[derive(Debug)]
struct Stream {
    category: Category,
    /// Next arrival, or [`BLOCKED`].
    next: Nanos,
    /// Whether gaps count from completions.
    closed_loop: bool,
    size: Size,
    gap: Gap,
    rng: StreamRng,
}

impl Stream {
    fn draw_gap(&mut self) -> Nanos {
        match self.gap {
            Gap::Fixed(g) => g,
            Gap::Exp { mean_s, cap_s } => {
                let u: f64 = self.rng.gen(); // [0, 1)
                let x = -mean_s * (1.0 - u).ln();
                // At least 1 ns so that time always advances.
                from_secs_f64(x.min(cap_s)).max(1)
            }
        }
    }
}

/// A seeded workload: an iterator over arrivals in time order (ties: short, then medium,
/// then long) in `[start, end)`.
#[derive(Debug)]
pub struct Generator {
    streams: Vec<Stream>,
    ues: Vec<u32>,
    end: Nanos,
}

impl Generator {
    /// A generator of `arrivals` to UEs drawn uniformly from `ues` (non-empty), between
    /// `start` and `end`. `bytes_per_s` is the Poisson mix's total payload rate (ignored by
    /// the randomized workload); `index` numbers the workload within the scenario (its
    /// streams are `stream_rng(seed, "workload", index·8 + class)`).
    pub fn new(arrivals: &Arrivals, bytes_per_s: f64, ues: Vec<u32>, seed: u64, index: u64, start: Nanos, end: Nanos) -> Self {
        assert!(!ues.is_empty(), "a workload needs at least one UE");
        let rng = |c: Category| stream_rng(seed, "workload", index * 8 + c.index());
        let mut streams = Vec::new();
        match arrivals {
            Arrivals::Poisson(p) => {
                for c in p.classes() {
                    let flows_per_s = c.share * bytes_per_s / c.bytes as f64;
                    if flows_per_s > 0.0 && flows_per_s.is_finite() {
                        streams.push(Stream {
                            category: c.category,
                            next: start,
                            size: Size::Fixed(c.bytes),
                            gap: Gap::Exp { mean_s: 1.0 / flows_per_s, cap_s: f64::INFINITY },
                            closed_loop: false,
                            rng: rng(c.category),
                        });
                    }
                }
            }
            Arrivals::Randomized(r) => {
                let closed_loop = r.gaps_from == GapsFrom::Completion;
                streams.push(Stream {
                    category: Category::Short,
                    next: start,
                    size: Size::Fixed(r.short_bytes),
                    gap: Gap::Fixed(from_secs_f64(r.short_interval_s).max(1)),
                    closed_loop,
                    rng: rng(Category::Short),
                });
                streams.push(Stream {
                    category: Category::Medium,
                    next: start,
                    size: Size::Uniform(r.medium_bytes[0], r.medium_bytes[1]),
                    gap: Gap::Exp { mean_s: r.medium_mean_s, cap_s: r.medium_cap_s },
                    closed_loop,
                    rng: rng(Category::Medium),
                });
                streams.push(Stream {
                    category: Category::Long,
                    next: start,
                    size: Size::Uniform(r.long_bytes[0], r.long_bytes[1]),
                    gap: Gap::Exp { mean_s: r.long_mean_s, cap_s: r.long_cap_s },
                    closed_loop,
                    rng: rng(Category::Long),
                });
            }
        }
        streams.sort_by_key(|s| s.category);
        // Random processes start one gap after `start` (a Poisson process observed from an
        // arbitrary instant); the periodic short flows of the randomized workload start at
        // `start`.
        for s in streams.iter_mut() {
            if let Gap::Exp { .. } = s.gap {
                s.next = start + s.draw_gap();
            }
        }
        Self { streams, ues, end }
    }

    /// Payload bytes per second the workload offers on average (the Poisson mix's
    /// `bytes_per_s`; for the randomized workload from its size and gap distributions, with
    /// the caps).
    pub fn mean_bytes_per_s(arrivals: &Arrivals, bytes_per_s: f64) -> f64 {
        match arrivals {
            Arrivals::Poisson(_) => bytes_per_s,
            Arrivals::Randomized(r) => {
                let capped = |mean: f64, cap: f64| mean * (1.0 - (-cap / mean).exp());
                let mid = |[lo, hi]: [u64; 2]| (lo + hi) as f64 / 2.0;
                r.short_bytes as f64 / r.short_interval_s
                    + mid(r.medium_bytes) / capped(r.medium_mean_s, r.medium_cap_s)
                    + mid(r.long_bytes) / capped(r.long_mean_s, r.long_cap_s)
            }
        }
    }

    /// The end of the arrival window.
    pub fn end(&self) -> Nanos {
        self.end
    }

    /// The time of the next arrival, if any before the end (classes waiting for a
    /// completion have none yet).
    pub fn peek_time(&self) -> Option<Nanos> {
        self.streams.iter().map(|s| s.next).min().filter(|&t| t < self.end)
    }

    /// Reports that a flow of `category` completed at `now`: a closed-loop class schedules
    /// its next arrival one gap later (nothing happens for open-loop classes).
    pub fn complete(&mut self, category: Category, now: Nanos) {
        if let Some(s) = self.streams.iter_mut().find(|s| s.category == category && s.closed_loop && s.next == BLOCKED) {
            s.next = now.saturating_add(s.draw_gap());
        }
    }
}

impl Iterator for Generator {
    type Item = Arrival;

    fn next(&mut self) -> Option<Arrival> {
        let (i, at) = self.streams.iter().enumerate().map(|(i, s)| (i, s.next)).min_by_key(|&(i, t)| (t, i))?;
        if at >= self.end {
            return None;
        }
        let n_ues = self.ues.len();
        let s = &mut self.streams[i];
        let ue = self.ues[s.rng.gen_range(0..n_ues)];
        let bytes = match s.size {
            Size::Fixed(b) => b,
            Size::Uniform(lo, hi) => {
                // The thesis's u·((max − min) + 1) + min, floored: uniform over lo..=hi.
                let u: f64 = s.rng.gen();
                (lo + (u * ((hi - lo) as f64 + 1.0)) as u64).min(hi)
            }
        };
        let category = s.category;
        s.next = if s.closed_loop { BLOCKED } else { at + s.draw_gap() };
        Some(Arrival { at, ue, bytes, category })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::time::to_secs_f64;
    use cellshare_core::SEC;

    fn shares(arrivals: &Arrivals, rate: f64, secs: u64, seed: u64) -> ([f64; 3], usize) {
        let g = Generator::new(arrivals, rate, (0..100).collect(), seed, 0, 0, secs * SEC);
        let mut bytes = [0f64; 3];
        let mut n = 0;
        let mut last = 0;
        for a in g {
            assert!(a.at >= last, "time order");
            last = a.at;
            bytes[a.category.index() as usize] += a.bytes as f64;
            n += 1;
        }
        let total: f64 = bytes.iter().sum();
        (bytes.map(|b| b / total), n)
    }

    #[test]
    fn byte_shares_match_every_preset_over_a_long_run() {
        for preset in [Preset::Legilimens, Preset::Sneaker, Preset::Thesis] {
            let arrivals = Arrivals::Poisson(PoissonMix { load: 0.6, preset, mix: None });
            // 2 MB/s for 20 simulated days: ~1000 long flows per day.
            let (got, n) = shares(&arrivals, 2e6, 20 * 86_400, 7);
            let want: Vec<f64> = preset.mix().iter().map(|c| c.share).collect();
            for k in 0..3 {
                assert!((got[k] - want[k]).abs() <= 0.02, "{preset:?} class {k}: {} vs {}", got[k], want[k]);
            }
            assert!(n > 100_000, "{n}");
        }
    }

    #[test]
    fn total_rate_matches_the_requested_rate() {
        let arrivals = Arrivals::Poisson(PoissonMix::default());
        let secs = 10 * 86_400u64;
        let g = Generator::new(&arrivals, 1.5e6, vec![0, 1, 2], 3, 0, 0, secs * SEC);
        let total: u64 = g.map(|a| a.bytes).sum();
        let rate = total as f64 / secs as f64;
        assert!((rate / 1.5e6 - 1.0).abs() < 0.03, "{rate}");
    }

    #[test]
    fn ues_are_drawn_uniformly_from_the_set() {
        let arrivals = Arrivals::Poisson(PoissonMix::default());
        let ues = vec![3, 5, 9, 11];
        let mut counts = std::collections::BTreeMap::new();
        for a in Generator::new(&arrivals, 2e6, ues.clone(), 1, 0, 0, 2000 * SEC) {
            *counts.entry(a.ue).or_insert(0u32) += 1;
        }
        assert_eq!(counts.keys().copied().collect::<Vec<_>>(), ues);
        let n: u32 = counts.values().sum();
        for c in counts.values() {
            assert!((*c as f64 / n as f64 - 0.25).abs() < 0.02, "{counts:?}");
        }
    }

    #[test]
    fn randomized_sizes_gaps_and_caps_follow_the_thesis() {
        let r = RandomizedConfig { gaps_from: GapsFrom::Arrival, ..Default::default() };
        let arrivals = Arrivals::Randomized(r.clone());
        let mut last = [None::<Nanos>; 3];
        let mut gaps: [Vec<f64>; 3] = Default::default();
        let mut sizes: [Vec<u64>; 3] = Default::default();
        for a in Generator::new(&arrivals, 0.0, vec![0, 1, 2], 11, 0, 0, 400_000 * SEC) {
            let k = a.category.index() as usize;
            if let Some(prev) = last[k] {
                gaps[k].push(to_secs_f64(a.at - prev));
            }
            last[k] = Some(a.at);
            sizes[k].push(a.bytes);
        }
        // Short: 32 KB every second exactly, starting at 0.
        assert!(sizes[0].iter().all(|&b| b == 32 * KB));
        assert!(gaps[0].iter().all(|&g| (g - 1.0).abs() < 1e-9));
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        for (k, [lo, hi], m, cap) in [(1, r.medium_bytes, 4.0f64, 15.0f64), (2, r.long_bytes, 70.0, 160.0)] {
            assert!(sizes[k].iter().all(|&b| (lo..=hi).contains(&b)), "sizes of class {k} in range");
            let smean = sizes[k].iter().map(|&b| b as f64).sum::<f64>() / sizes[k].len() as f64;
            assert!((smean / ((lo + hi) as f64 / 2.0) - 1.0).abs() < 0.02, "size mean of class {k}: {smean}");
            let max = gaps[k].iter().cloned().fold(0.0, f64::max);
            assert!(max <= cap + 1e-9 && max > 0.95 * cap, "cap of class {k}: max gap {max}");
            let want = m * (1.0 - (-cap / m).exp());
            assert!((mean(&gaps[k]) / want - 1.0).abs() < 0.02, "gap mean of class {k}: {} vs {want}", mean(&gaps[k]));
            // The cap is hit about as often as the exponential tail says.
            let at_cap = gaps[k].iter().filter(|&&g| g >= cap - 1e-9).count() as f64 / gaps[k].len() as f64;
            assert!((at_cap - (-cap / m).exp()).abs() < 0.01, "share at the cap of class {k}: {at_cap}");
        }
        let offered = Generator::mean_bytes_per_s(&arrivals, 0.0);
        let total: f64 = sizes.iter().flatten().map(|&b| b as f64).sum::<f64>() / 400_000.0;
        assert!((total / offered - 1.0).abs() < 0.02, "{total} vs {offered}");
    }

    #[test]
    fn closed_loop_classes_wait_for_completions() {
        let arrivals = Arrivals::Randomized(RandomizedConfig::default());
        let mut g = Generator::new(&arrivals, 0.0, vec![0], 1, 0, 0, 1000 * SEC);
        let first = g.next().unwrap();
        assert_eq!((first.at, first.category), (0, Category::Short));
        // Medium and long are still open (their first gaps), short waits for its completion.
        let t_medium = g.peek_time().unwrap();
        assert!(t_medium > 0 && t_medium <= 15 * SEC);
        let m = g.next().unwrap();
        assert_eq!(m.category, Category::Medium);
        g.complete(Category::Short, 300 * cellshare_core::MS);
        let s = g.next().unwrap();
        assert_eq!((s.at, s.category), (1300 * cellshare_core::MS, Category::Short));
        // Completing a class that is not waiting (long has not arrived yet) changes nothing.
        let long_next = |g: &Generator| g.streams.iter().find(|x| x.category == Category::Long).unwrap().next;
        let before = long_next(&g);
        g.complete(Category::Long, 0);
        assert_eq!(long_next(&g), before);
        assert!(g.streams.iter().find(|x| x.category == Category::Short).unwrap().next == BLOCKED);
        // With medium and short blocked, only long remains.
        assert_eq!(g.next().unwrap().category, Category::Long);
        assert_eq!(g.peek_time(), None);
        assert_eq!(g.next(), None);
    }

    #[test]
    fn same_seed_same_arrivals_other_seed_other_arrivals() {
        let arrivals = Arrivals::Poisson(PoissonMix::default());
        let run = |seed| Generator::new(&arrivals, 1e6, (0..10).collect(), seed, 0, 0, 600 * SEC).collect::<Vec<_>>();
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
    }

    #[test]
    fn a_class_stream_does_not_depend_on_the_others() {
        let base = PoissonMix::default();
        let mut other = base.clone();
        let mut mix = base.preset.mix();
        mix[0].share = 0.2;
        mix[2].share = 0.5;
        other.mix = Some(mix);
        let medium = |p: &PoissonMix| {
            Generator::new(&Arrivals::Poisson(p.clone()), 1e6, vec![0, 1], 9, 0, 0, 3600 * SEC)
                .filter(|a| a.category == Category::Medium)
                .collect::<Vec<_>>()
        };
        assert_eq!(medium(&base), medium(&other));
    }

    #[test]
    fn validation_names_the_key() {
        let bad = Arrivals::Poisson(PoissonMix { load: 1.5, ..Default::default() });
        assert_eq!(bad.validate().unwrap_err().0, "load");
        let mut mix = Preset::Legilimens.mix();
        mix[1].share = 0.5;
        let bad = Arrivals::Poisson(PoissonMix { mix: Some(mix.clone()), ..Default::default() });
        assert_eq!(bad.validate().unwrap_err().0, "mix");
        mix[1].share = 0.3;
        mix[2].category = Category::Short;
        let bad = Arrivals::Poisson(PoissonMix { mix: Some(mix), ..Default::default() });
        assert_eq!(bad.validate().unwrap_err().0, "mix[2].category");
        let bad = Arrivals::Randomized(RandomizedConfig { long_bytes: [5, 4], ..Default::default() });
        assert_eq!(bad.validate().unwrap_err().0, "long_bytes");
        let bad = Arrivals::Randomized(RandomizedConfig { medium_cap_s: 0.0, ..Default::default() });
        assert_eq!(bad.validate().unwrap_err().0, "medium_cap_s");
        assert!(Arrivals::default().validate().is_ok());
    }

    #[test]
    fn mean_flow_size_of_the_legilimens_mix() {
        // 1 / (0.1/64 KB + 0.3/1 MB + 0.6/32 MB) ≈ 538 KB.
        let m = PoissonMix::default().mean_flow_bytes();
        assert!((m - 1.0 / (0.1 / 65536.0 + 0.3 / 1048576.0 + 0.6 / 33554432.0)).abs() < 1e-6);
    }
}
