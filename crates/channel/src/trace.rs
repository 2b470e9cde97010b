//! Mahimahi trace channel (the trace format of Mahimahi \[mahimahi\]).
//!
//! A Mahimahi trace lists, one per line, the millisecond at which one 1500-byte packet may
//! leave the bottleneck; a millisecond repeated *n* times offers *n* packets. The trace
//! repeats when it ends, with a period equal to its last timestamp (as `mm-link` does).
//! In cellshare the trace gives a UE's capacity *if it had the whole cell*: a UE scheduled on
//! a fraction of the PRBs gets that fraction of the millisecond's bytes, and opportunities
//! nobody uses are lost, as in Mahimahi.
//!
//! Limits (documented in `docs/limits.md`): the parser reads at most [`MAX_TRACE_BYTES`]
//! bytes, accepts timestamps up to [`MAX_TIMESTAMP_MS`] and at most [`MAX_PER_MS`]
//! opportunities in one millisecond; each is an error naming the line, never a cap. Memory is
//! O(lines): a period short enough, or filled densely enough, is held as one counter per
//! millisecond; any other as the sorted distinct milliseconds with their counts.

use std::io::BufRead;
use std::sync::Arc;

use crate::LinkQuality;

/// Bytes per delivery opportunity in a Mahimahi trace.
pub const MTU_BYTES: u32 = 1500;

/// Largest timestamp accepted, ms (10^9 ms ≈ 11.6 days; the traces shipped with Mahimahi
/// span minutes).
pub const MAX_TIMESTAMP_MS: u64 = 1_000_000_000;

/// Largest trace accepted, bytes (256 MiB; the largest of the Mahimahi cellular traces is
/// 3.4 MB).
pub const MAX_TRACE_BYTES: u64 = 256 << 20;

/// Most delivery opportunities in one millisecond of the period (a millisecond repeated
/// more often would be more than 786 Gbit/s).
pub const MAX_PER_MS: u32 = u16::MAX as u32;

/// A period of at most this many milliseconds is always held densely (8 MiB of counters).
const DENSE_MAX_MS: u64 = 1 << 22;
/// A longer period is held densely when it has at least one distinct timestamp per this
/// many milliseconds (so the dense table stays within a constant factor of the lines).
const DENSE_SPREAD: u64 = 16;

/// Why a trace could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceError {
    /// The text holds no timestamps.
    Empty,
    /// Line `line` (1-based) is not a non-negative integer. What the line holds is not
    /// kept: an error must never echo the content of a file that is not a trace (a
    /// scenario may name any file the emulator, running as root, can read).
    NotANumber {
        /// 1-based line number.
        line: usize,
    },
    /// Line `line` goes back in time (timestamps must not decrease).
    Decreasing {
        /// 1-based line number.
        line: usize,
    },
    /// The last timestamp is 0, so the trace has no period.
    ZeroPeriod,
    /// Line `line` holds a timestamp above [`MAX_TIMESTAMP_MS`] (its value is not kept, as
    /// for [`TraceError::NotANumber`]).
    TooLate {
        /// 1-based line number.
        line: usize,
    },
    /// A millisecond of the period gets more than [`MAX_PER_MS`] opportunities (line `line`
    /// is the one too many).
    TooMany {
        /// 1-based line number.
        line: usize,
    },
    /// The trace is longer than [`MAX_TRACE_BYTES`].
    TooLarge,
    /// Reading failed.
    Io(String),
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceError::Empty => write!(f, "the trace holds no timestamps"),
            TraceError::NotANumber { line } => {
                write!(f, "line {line}: expected a non-negative integer millisecond timestamp (one per line)")
            }
            TraceError::Decreasing { line } => write!(f, "line {line} goes back in time: timestamps must not decrease"),
            TraceError::ZeroPeriod => write!(f, "the last timestamp is 0, so the trace has no period (expected > 0)"),
            TraceError::TooLate { line } => {
                write!(f, "line {line}: expected a timestamp of at most {MAX_TIMESTAMP_MS} ms")
            }
            TraceError::TooMany { line } => write!(
                f,
                "line {line}: expected at most {MAX_PER_MS} delivery opportunities in one millisecond of the \
                 period (the last timestamp's count falls on millisecond 0)"
            ),
            TraceError::TooLarge => write!(f, "the trace is larger than {} MiB (expected at most {MAX_TRACE_BYTES} bytes)", MAX_TRACE_BYTES >> 20),
            TraceError::Io(e) => write!(f, "cannot read the trace: {e}"),
        }
    }
}

impl std::error::Error for TraceError {}

/// Opportunities per millisecond of one period.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Slots {
    /// `v[t]` = packets that may leave in millisecond `t` of the period.
    Dense(Vec<u16>),
    /// The milliseconds with opportunities, ascending, and their counts.
    Sparse { ms: Vec<u64>, n: Vec<u16> },
}

/// A parsed Mahimahi trace: delivery opportunities per millisecond over one period.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MahimahiTrace {
    period: u64,
    slots: Slots,
}

impl MahimahiTrace {
    /// Parses the text of a Mahimahi trace file. Blank lines are ignored.
    pub fn parse(text: &str) -> Result<Self, TraceError> {
        Self::parse_reader(text.as_bytes())
    }

    /// Parses a Mahimahi trace from a reader, line by line: memory grows with the distinct
    /// timestamps, not with their values. Reads at most [`MAX_TRACE_BYTES`].
    pub fn parse_reader<R: BufRead>(reader: R) -> Result<Self, TraceError> {
        let mut r = reader.take(MAX_TRACE_BYTES + 1);
        let mut line = Vec::new();
        let mut read = 0u64;
        let (mut ms, mut n): (Vec<u64>, Vec<u16>) = (Vec::new(), Vec::new());
        let mut last_line = 0;
        for i in 1.. {
            line.clear();
            let got = r.read_until(b'\n', &mut line).map_err(|e| TraceError::Io(e.to_string()))?;
            if got == 0 {
                break;
            }
            read += got as u64;
            if read > MAX_TRACE_BYTES {
                return Err(TraceError::TooLarge);
            }
            let s = line.trim_ascii();
            if s.is_empty() {
                continue;
            }
            let v = std::str::from_utf8(s).ok().and_then(|t| t.parse::<u64>().ok()).ok_or(TraceError::NotANumber { line: i })?;
            if v > MAX_TIMESTAMP_MS {
                return Err(TraceError::TooLate { line: i });
            }
            match ms.last() {
                Some(&last) if v < last => return Err(TraceError::Decreasing { line: i }),
                Some(&last) if v == last => {
                    let c = n.last_mut().expect("same length");
                    *c = c.checked_add(1).ok_or(TraceError::TooMany { line: i })?;
                }
                _ => {
                    ms.push(v);
                    n.push(1);
                }
            }
            last_line = i;
        }
        let period = *ms.last().ok_or(TraceError::Empty)?;
        if period == 0 {
            return Err(TraceError::ZeroPeriod);
        }
        // The stamps at the period itself fall on millisecond 0 of the next period.
        ms.pop();
        let at_period = n.pop().expect("same length");
        if ms.first() == Some(&0) {
            n[0] = n[0].checked_add(at_period).ok_or(TraceError::TooMany { line: last_line })?;
        } else {
            ms.insert(0, 0);
            n.insert(0, at_period);
        }
        let slots = if period <= DENSE_MAX_MS || period <= DENSE_SPREAD * ms.len() as u64 {
            let mut v = vec![0u16; period as usize];
            for (&t, &c) in ms.iter().zip(&n) {
                v[t as usize] = c;
            }
            Slots::Dense(v)
        } else {
            ms.shrink_to_fit();
            n.shrink_to_fit();
            Slots::Sparse { ms, n }
        };
        Ok(Self { period, slots })
    }

    /// Length of one period in milliseconds.
    pub fn period_ms(&self) -> u64 {
        self.period
    }

    /// Packets that may leave in millisecond `ms` (the trace repeats).
    #[inline]
    pub fn opportunities_at(&self, ms: u64) -> u32 {
        let t = ms % self.period;
        match &self.slots {
            Slots::Dense(v) => v[t as usize] as u32,
            Slots::Sparse { ms, n } => ms.binary_search(&t).map_or(0, |i| n[i] as u32),
        }
    }

    /// Mean capacity over one period in bits per second.
    pub fn mean_rate_bps(&self) -> f64 {
        let total: u64 = match &self.slots {
            Slots::Dense(v) => v.iter().map(|&n| n as u64).sum(),
            Slots::Sparse { n, .. } => n.iter().map(|&n| n as u64).sum(),
        };
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
    /// μ of the slot (0: LTE's 1 ms TTI).
    shift: u32,
}

impl TraceChannel {
    /// A channel reading `trace` from millisecond `offset_ms` on, on 1 ms TTIs.
    pub fn new(trace: Arc<MahimahiTrace>, offset_ms: u64) -> Self {
        Self { trace, offset_ms, shift: 0 }
    }

    /// A channel reading `trace` from millisecond `offset_ms` on, on the slots of `slot`: a
    /// millisecond's bytes are spread over its 2^μ slots, slot `j` of the millisecond
    /// carrying ⌊(j+1)·B/2^μ⌋ − ⌊j·B/2^μ⌋ of its B bytes (the trace's rate per second is kept
    /// exactly; a packet of 1500 bytes spans slots, segmented as RLC segments it).
    pub fn with_slot(trace: Arc<MahimahiTrace>, offset_ms: u64, slot: cellshare_core::Slot) -> Self {
        Self { trace, offset_ms, shift: slot.shift() }
    }

    /// The trace this channel follows.
    pub fn trace(&self) -> &MahimahiTrace {
        &self.trace
    }

    /// Bytes offered in TTI (slot) `tti` with every PRB.
    #[inline]
    pub fn quality(&self, tti: u64) -> LinkQuality {
        let sh = self.shift;
        let ms_bytes = self.trace.opportunities_at((tti >> sh) + self.offset_ms) * MTU_BYTES;
        if sh == 0 {
            return LinkQuality::Linear { full_bytes: ms_bytes };
        }
        let j = tti & ((1 << sh) - 1);
        let b = ms_bytes as u64;
        LinkQuality::Linear { full_bytes: ((((j + 1) * b) >> sh) - ((j * b) >> sh)) as u32 }
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
    fn nr_slots_split_each_millisecond() {
        // ms 0 offers 5 packets (7500 bytes), ms 1 none, ms 2 one (1500 bytes).
        let t = Arc::new(MahimahiTrace::parse("0\n0\n2\n3\n3\n3\n").unwrap());
        let c = TraceChannel::with_slot(t, 0, cellshare_core::Slot::nr(2).unwrap());
        let bytes: Vec<u32> = (0..12)
            .map(|k| match c.quality(k) {
                LinkQuality::Linear { full_bytes } => full_bytes,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(bytes, [1875, 1875, 1875, 1875, 0, 0, 0, 0, 375, 375, 375, 375]);
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
        assert!(matches!(MahimahiTrace::parse("1\n\u{ff}\n"), Err(TraceError::NotANumber { line: 2, .. })));
        assert!(matches!(MahimahiTrace::parse_reader(&b"1\n\xff\xfe\n"[..]), Err(TraceError::NotANumber { line: 2, .. })));
    }

    // A scenario may name any file as a trace (`/etc/shadow`, say), and the emulator runs as
    // root: errors name the line and what was expected, never what the line holds.
    #[test]
    fn errors_never_echo_the_file() {
        for text in ["root:*:19000:0:99999:7:::\n", "1\n2\nroot:*:19000:0:99999:7:::\n", "5\n123456789012345\n"] {
            let e = MahimahiTrace::parse(text).unwrap_err();
            let shown = format!("{e} {e:?}");
            assert!(!shown.contains("root") && !shown.contains("19000") && !shown.contains("123456789012345"), "{shown}");
            assert!(shown.contains("line ") && shown.contains("expected"), "{shown}");
        }
        assert_eq!(MahimahiTrace::parse("root:*:19000:0:99999:7:::\n"), Err(TraceError::NotANumber { line: 1 }));
    }

    // A timestamp of 10^12 would have a parser that sizes its table by the last timestamp
    // allocate 2 TB and abort, and u64::MAX overflow the capacity: both are errors naming the line.
    #[test]
    fn huge_timestamps_are_errors() {
        assert_eq!(MahimahiTrace::parse("1\n1000000000000\n"), Err(TraceError::TooLate { line: 2 }));
        let max = u64::MAX.to_string();
        assert_eq!(MahimahiTrace::parse(&max), Err(TraceError::TooLate { line: 1 }));
        assert!(matches!(MahimahiTrace::parse("184467440737095516160\n"), Err(TraceError::NotANumber { line: 1, .. })));
        // The largest accepted timestamp parses into a small sparse table.
        let t = MahimahiTrace::parse(&format!("0\n5\n{MAX_TIMESTAMP_MS}\n")).unwrap();
        assert_eq!(t.period_ms(), MAX_TIMESTAMP_MS);
        assert!(matches!(t.slots, Slots::Sparse { .. }));
        assert_eq!(t.opportunities_at(0), 2);
        assert_eq!(t.opportunities_at(5), 1);
        assert_eq!(t.opportunities_at(6), 0);
        assert_eq!(t.opportunities_at(MAX_TIMESTAMP_MS + 5), 1);
    }

    // A millisecond repeated more than 65,535 times was silently capped at 65,535.
    #[test]
    fn too_many_opportunities_in_a_millisecond_is_an_error() {
        let ok = "7\n".repeat(MAX_PER_MS as usize);
        assert_eq!(MahimahiTrace::parse(&ok).unwrap().opportunities_at(0), MAX_PER_MS);
        let over = "7\n".repeat(MAX_PER_MS as usize + 1);
        assert_eq!(MahimahiTrace::parse(&over), Err(TraceError::TooMany { line: MAX_PER_MS as usize + 1 }));
        // Millisecond 0 and the period's last stamp share slot 0.
        let wrap = format!("{}{}", "0\n".repeat(40_000), "9\n".repeat(30_000));
        assert_eq!(MahimahiTrace::parse(&wrap), Err(TraceError::TooMany { line: 70_000 }));
    }

    #[test]
    fn oversized_input_is_an_error() {
        let r = std::io::Read::take(std::io::repeat(b'\n'), MAX_TRACE_BYTES + 10);
        assert_eq!(MahimahiTrace::parse_reader(std::io::BufReader::new(r)), Err(TraceError::TooLarge));
    }

    // Sparse and dense tables answer the same for the same trace.
    #[test]
    fn sparse_and_dense_agree() {
        let text = "0\n3\n3\n700\n5000001\n";
        let t = MahimahiTrace::parse(text).unwrap();
        assert!(matches!(t.slots, Slots::Sparse { .. }));
        let Slots::Sparse { ms, n } = &t.slots else { unreachable!() };
        let mut dense = vec![0u16; t.period as usize];
        for (&m, &c) in ms.iter().zip(n) {
            dense[m as usize] = c;
        }
        let d = MahimahiTrace { period: t.period, slots: Slots::Dense(dense) };
        for ms in (0..12_000_000).step_by(997).chain([0, 3, 700, 5_000_001, 5_000_004]) {
            assert_eq!(t.opportunities_at(ms), d.opportunities_at(ms), "ms {ms}");
        }
        assert_eq!(t.mean_rate_bps(), d.mean_rate_bps());
        assert_eq!(t.opportunities_at(0), 2);
    }
}
