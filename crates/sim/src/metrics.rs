//! Metrics accumulated in place while the simulation runs: counters, per-second series and
//! fixed-bucket delay histograms. Nothing here allocates per packet.

pub use cellshare_core::stats::jain_index;
use cellshare_core::{Nanos, SEC, US};
use serde::Serialize;

/// Significant bits per power of two in [`DelayHistogram`] (128 sub-buckets: < 0.8 % error).
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;
/// Largest exponent tracked: 2^34 µs ≈ 4.8 h; longer delays land in the last bucket.
const MAX_EXP: u32 = 34;
const N_BUCKETS: usize = ((MAX_EXP - SUB_BITS + 2) as u64 * SUB) as usize;

/// A log-linear histogram of delays at microsecond resolution (HDR-histogram style): exact
/// below 128 µs, then 128 buckets per power of two, so every quantile is within 0.8 %.
/// The maximum and the mean are exact. The buckets (15 KB) are allocated at the first
/// sample, so a histogram that never records (or one emptied with `std::mem::take`) costs
/// nothing.
#[derive(Clone, Debug, Default)]
pub struct DelayHistogram {
    counts: Vec<u32>,
    n: u64,
    sum_us: u128,
    max_us: u64,
}

/// Percentiles of a delay distribution in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DelayPercentiles {
    /// Samples.
    pub count: u64,
    /// Mean, ms.
    pub mean: f64,
    /// Median, ms.
    pub p50: f64,
    /// 99th percentile, ms.
    pub p99: f64,
    /// Maximum, ms.
    pub max: f64,
}

fn bucket_of(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let exp = 63 - v.leading_zeros(); // >= SUB_BITS
    let shift = exp - SUB_BITS;
    if exp > MAX_EXP {
        return N_BUCKETS - 1;
    }
    ((shift as u64 + 1) * SUB + (v >> shift) - SUB) as usize
}

/// Lowest and highest value (µs) of bucket `i`.
fn bucket_range(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, i);
    }
    let shift = i / SUB - 1;
    let mantissa = i % SUB + SUB;
    let lo = mantissa << shift;
    (lo, lo + (1 << shift) - 1)
}

impl DelayHistogram {
    /// Records one delay.
    #[inline]
    pub fn record(&mut self, d: Nanos) {
        let us = d / US;
        if self.counts.is_empty() {
            self.counts = vec![0; N_BUCKETS];
        }
        self.counts[bucket_of(us)] += 1;
        self.n += 1;
        self.sum_us += us as u128;
        self.max_us = self.max_us.max(us);
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Adds every sample of `other`.
    pub fn merge(&mut self, other: &DelayHistogram) {
        if other.counts.is_empty() {
            return;
        }
        if self.counts.is_empty() {
            self.counts = vec![0; N_BUCKETS];
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.n += other.n;
        self.sum_us += other.sum_us;
        self.max_us = self.max_us.max(other.max_us);
    }

    /// The `q`-quantile (0..=1) in microseconds: the midpoint of the bucket holding the
    /// sample of rank ceil(q·n), never above the exact maximum.
    pub fn quantile_us(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                let (lo, hi) = bucket_range(i);
                return ((lo + hi) as f64 / 2.0).min(self.max_us as f64);
            }
        }
        self.max_us as f64
    }

    /// Mean, p50, p99 and max in milliseconds.
    pub fn percentiles(&self) -> DelayPercentiles {
        if self.n == 0 {
            return DelayPercentiles::default();
        }
        DelayPercentiles {
            count: self.n,
            mean: self.sum_us as f64 / self.n as f64 / 1e3,
            p50: self.quantile_us(0.5) / 1e3,
            p99: self.quantile_us(0.99) / 1e3,
            max: self.max_us as f64 / 1e3,
        }
    }

    /// The cumulative distribution as (delay ms, fraction ≤) points, one per non-empty bucket.
    pub fn cdf_ms(&self) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            if c > 0 {
                seen += c as u64;
                let (_, hi) = bucket_range(i);
                out.push(((hi.min(self.max_us)) as f64 / 1e3, seen as f64 / self.n as f64));
            }
        }
        out
    }
}

/// Bytes per one-second bin, over the whole run ([`PerSecond::new`]) or from a start
/// second on, growing only as far as samples arrive ([`PerSecond::from_second`]: a short
/// flow's series costs its lifetime, not the run's).
#[derive(Clone, Debug, Default)]
pub struct PerSecond {
    first: u64,
    limit: u64,
    bins: Vec<u64>,
}

impl PerSecond {
    /// Bins covering `duration` (the last bin may be partial).
    pub fn new(duration: Nanos) -> Self {
        let n = duration.div_ceil(SEC).max(1);
        Self { first: 0, limit: n, bins: vec![0; n as usize] }
    }

    /// Bins from the second holding `start` up to the last sample, within `duration`.
    pub fn from_second(start: Nanos, duration: Nanos) -> Self {
        Self { first: start / SEC, limit: duration.div_ceil(SEC).max(1), bins: Vec::new() }
    }

    /// The second of the first bin.
    pub fn first_second(&self) -> u64 {
        self.first
    }

    /// Adds `v` at time `t` (ignored outside the bins' range).
    #[inline]
    pub fn add(&mut self, t: Nanos, v: u64) {
        let s = t / SEC;
        if s < self.first || s >= self.limit {
            return;
        }
        let i = (s - self.first) as usize;
        if i >= self.bins.len() {
            self.bins.resize(i + 1, 0);
        }
        self.bins[i] += v;
    }

    /// The bins.
    pub fn bins(&self) -> &[u64] {
        &self.bins
    }

    /// Bins converted from bytes to Mbps, each divided by the bin's length within `duration`.
    pub fn mbps(&self, duration: Nanos) -> Vec<f64> {
        self.bins
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                let i = i as u64 + self.first;
                let len = (duration - (i * SEC).min(duration)).min(SEC);
                if len == 0 {
                    0.0
                } else {
                    b as f64 * 8.0 / (len as f64 / SEC as f64) / 1e6
                }
            })
            .collect()
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    #[test]
    fn buckets_are_contiguous_and_cover_values() {
        let mut prev_hi = None;
        for i in 0..N_BUCKETS - 1 {
            let (lo, hi) = bucket_range(i);
            assert!(lo <= hi);
            if let Some(p) = prev_hi {
                assert_eq!(lo, p + 1, "bucket {i}");
            }
            prev_hi = Some(hi);
            assert_eq!(bucket_of(lo), i);
            assert_eq!(bucket_of(hi), i);
        }
    }

    #[test]
    fn quantiles_within_a_percent() {
        let mut h = DelayHistogram::default();
        for ms in 1..=1000u64 {
            h.record(ms * MS);
        }
        let p = h.percentiles();
        assert_eq!(p.count, 1000);
        assert!((p.p50 - 500.0).abs() / 500.0 < 0.01, "{}", p.p50);
        assert!((p.p99 - 990.0).abs() / 990.0 < 0.01, "{}", p.p99);
        assert_eq!(p.max, 1000.0);
        assert!((p.mean - 500.5).abs() < 1e-9);
        let cdf = h.cdf_ms();
        assert!((cdf.last().unwrap().1 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn per_second_mbps_handles_partial_bins() {
        let mut s = PerSecond::new(1500 * MS);
        s.add(0, 125_000);
        s.add(1200 * MS, 62_500);
        assert_eq!(s.mbps(1500 * MS), vec![1.0, 1.0]);
    }

    #[test]
    fn per_second_from_a_start_grows_with_samples() {
        let mut s = PerSecond::from_second(3200 * MS, 10 * SEC);
        assert!(s.bins().is_empty());
        s.add(3500 * MS, 125_000);
        s.add(5100 * MS, 250_000);
        s.add(1000 * MS, 1); // before the start: ignored
        s.add(12 * SEC, 1); // past the run: ignored
        assert_eq!(s.first_second(), 3);
        assert_eq!(s.mbps(10 * SEC), vec![1.0, 0.0, 2.0]);
    }

    #[test]
    fn empty_histograms_cost_nothing_and_merge() {
        let mut a = DelayHistogram::default();
        assert!(a.counts.is_empty());
        let mut b = DelayHistogram::default();
        b.record(3 * MS);
        a.merge(&DelayHistogram::default());
        assert!(a.counts.is_empty());
        a.merge(&b);
        assert_eq!(a.percentiles().count, 1);
        assert_eq!(a.percentiles().max, 3.0);
    }
}
