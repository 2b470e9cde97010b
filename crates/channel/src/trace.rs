//! Mahimahi trace channel.
//!
//! A Mahimahi trace lists, one per line, the millisecond at which one 1500-byte packet may
//! leave the bottleneck; a millisecond repeated *n* times offers *n* packets. The trace
//! repeats when it ends, with a period equal to its last timestamp (as `mm-link` does).
//! In cellshare the trace gives a UE's capacity *if it had the whole cell*: a UE scheduled on
//! a fraction of the PRBs gets that fraction of the millisecond's bytes, and opportunities
//! nobody uses are lost, as in Mahimahi.

use std::sync::Arc;

use crate::LinkQuality;

/// Bytes per delivery opportunity in a Mahimahi trace.
pub const MTU_BYTES: u32 = 1500;

/// Why a trace could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceError {
    /// The text holds no timestamps.
    Empty,
    /// Line `line` (1-based) is not a non-negative integer: its content is `text`.
    NotANumber {
        /// 1-based line number.
        line: usize,
        /// The offending text.
        text: String,
    },
    /// Line `line` goes back in time (timestamps must not decrease).
    Decreasing {
        /// 1-based line number.
        line: usize,
    },
    /// The last timestamp is 0, so the trace has no period.
    ZeroPeriod,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceError::Empty => write!(f, "the trace holds no timestamps"),
            TraceError::NotANumber { line, text } => {
                write!(f, "line {line} is {text:?}, expected a non-negative integer millisecond timestamp")
            }
            TraceError::Decreasing { line } => write!(f, "line {line} goes back in time: timestamps must not decrease"),
            TraceError::ZeroPeriod => write!(f, "the last timestamp is 0, so the trace has no period (expected > 0)"),
        }
    }
}

impl std::error::Error for TraceError {}

/// A parsed Mahimahi trace: delivery opportunities per millisecond over one period.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MahimahiTrace {
    /// `opportunities[t]` = packets that may leave in millisecond `t` of the period.
    opportunities: Vec<u16>,
}

impl MahimahiTrace {
    /// Parses the text of a Mahimahi trace file. Blank lines are ignored.
    pub fn parse(text: &str) -> Result<Self, TraceError> {
        let mut stamps: Vec<u64> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let s = raw.trim();
            if s.is_empty() {
                continue;
            }
            let v: u64 = s.parse().map_err(|_| TraceError::NotANumber { line: i + 1, text: s.chars().take(40).collect() })?;
            if let Some(&last) = stamps.last() {
                if v < last {
                    return Err(TraceError::Decreasing { line: i + 1 });
                }
            }
            stamps.push(v);
        }
        let period = *stamps.last().ok_or(TraceError::Empty)?;
        if period == 0 {
            return Err(TraceError::ZeroPeriod);
        }
        let mut opportunities = vec![0u16; period as usize];
        for v in stamps {
            let slot = &mut opportunities[(v % period) as usize];
            *slot = slot.saturating_add(1);
        }
        Ok(Self { opportunities })
    }

    /// Length of one period in milliseconds.
    pub fn period_ms(&self) -> u64 {
        self.opportunities.len() as u64
    }

    /// Packets that may leave in millisecond `ms` (the trace repeats).
    #[inline]
    pub fn opportunities_at(&self, ms: u64) -> u32 {
        self.opportunities[(ms % self.period_ms()) as usize] as u32
    }

    /// Mean capacity over one period in bits per second.
    pub fn mean_rate_bps(&self) -> f64 {
        let total: u64 = self.opportunities.iter().map(|&n| n as u64).sum();
        total as f64 * MTU_BYTES as f64 * 8.0 / (self.period_ms() as f64 / 1000.0)
    }

    /// Bytes offered in milliseconds `[from_ms, to_ms)`.
    pub fn bytes_between(&self, from_ms: u64, to_ms: u64) -> u64 {
        (from_ms..to_ms).map(|t| self.opportunities_at(t) as u64 * MTU_BYTES as u64).sum()
    }
}

/// A UE channel that follows a Mahimahi trace, optionally starting at an offset into it.
#[derive(Clone, Debug)]
pub struct TraceChannel {
    trace: Arc<MahimahiTrace>,
    offset_ms: u64,
}

impl TraceChannel {
    /// A channel reading `trace` from millisecond `offset_ms` on.
    pub fn new(trace: Arc<MahimahiTrace>, offset_ms: u64) -> Self {
        Self { trace, offset_ms }
    }

    /// The trace this channel follows.
    pub fn trace(&self) -> &MahimahiTrace {
        &self.trace
    }

    /// Bytes offered in TTI `tti` with every PRB.
    #[inline]
    pub fn quality(&self, tti: u64) -> LinkQuality {
        LinkQuality::Linear { full_bytes: self.trace.opportunities_at(tti + self.offset_ms) * MTU_BYTES }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_repeats() {
        let t = MahimahiTrace::parse("0\n0\n2\n3\n3\n3\n").unwrap();
        assert_eq!(t.period_ms(), 3);
        // ms 0: two at 0 plus the three at 3 (= 0 of the next period)
        assert_eq!(t.opportunities_at(0), 5);
        assert_eq!(t.opportunities_at(1), 0);
        assert_eq!(t.opportunities_at(2), 1);
        assert_eq!(t.opportunities_at(3), 5);
        let c = TraceChannel::new(Arc::new(t), 2);
        assert_eq!(c.quality(0), LinkQuality::Linear { full_bytes: 1500 });
    }

    #[test]
    fn one_packet_per_ms_is_12_mbps() {
        let t = MahimahiTrace::parse("1\n").unwrap();
        assert_eq!(t.period_ms(), 1);
        assert!((t.mean_rate_bps() - 12e6).abs() < 1.0);
    }

    #[test]
    fn rejects_bad_traces() {
        assert_eq!(MahimahiTrace::parse(""), Err(TraceError::Empty));
        assert_eq!(MahimahiTrace::parse("0\n"), Err(TraceError::ZeroPeriod));
        assert!(matches!(MahimahiTrace::parse("1\nx\n"), Err(TraceError::NotANumber { line: 2, .. })));
        assert_eq!(MahimahiTrace::parse("5\n3\n"), Err(TraceError::Decreasing { line: 2 }));
    }
}
