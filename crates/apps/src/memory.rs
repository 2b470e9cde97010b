//! What an app adds to the memory estimate the simulator makes before a run (its
//! `limits::estimate`, docs/limits.md): each app says, through [`crate::AppSpec::memory`],
//! what one of its sessions holds, so a new app's estimate lives in its own file.
//!
//! The estimate runs before the flow entries' values are range-checked: an app's terms take
//! its parameters as they are, through [`MemoryContext::positive`], and leave an invalid
//! value to the check's message.

/// An app session's state and its legs' bookkeeping, bytes: what [`crate::AppSpec::memory`]
/// counts by default.
pub const SESSION_BYTES: u64 = 4 << 10;

/// The bytes a request/response app reserves per request up front (its pending request and
/// its RTT record), for at most 2^20 requests.
pub const REQUEST_BYTES: u64 = 24;

/// What the estimate knows of the flow entry an app runs on.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemoryContext {
    /// Seconds the entry is active: its start to its stop or the end of the run (≥ 0).
    pub active_s: f64,
    /// The path's smallest round-trip time, s: twice the wired delays, at least 1 ms.
    pub rtt_min_s: f64,
    /// Datagrams a second the entry's constant-rate transport sends (`cbr`; 0 for the others).
    pub datagrams_per_s: f64,
}

impl MemoryContext {
    /// `x` if it is a finite positive number (up to 10^12), else 0.
    pub fn positive(x: f64) -> f64 {
        if x.is_finite() && x > 0.0 {
            x.min(1e12)
        } else {
            0.0
        }
    }

    /// Events at `per_s` a second over the active seconds, plus one (as a count).
    pub fn events(&self, per_s: f64) -> u64 {
        (Self::positive(per_s) * Self::positive(self.active_s)).ceil() as u64 + 1
    }
}

/// What one session of an app holds, for the estimate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryUse {
    /// Bytes of the running session: its state, its legs' bookkeeping, and what it keeps
    /// for the whole run (a web session's object sizes).
    pub state: u64,
    /// Per-event records over the run (requests, frames, chunks, pages): each costs the
    /// estimate's per-record bytes while the run goes and when its results are written.
    pub records: u64,
    /// Bytes allocated up front for the records (a request/response app's buffers).
    pub reserved: u64,
}

impl MemoryUse {
    /// A session that keeps no per-event records.
    pub const SESSION: MemoryUse = MemoryUse { state: SESSION_BYTES, records: 0, reserved: 0 };

    /// A request/response app's `requests` over the run: each a record, with its buffers
    /// reserved up front; its state is counted with its legs' flows.
    pub fn requests(requests: u64) -> MemoryUse {
        MemoryUse { state: 0, records: requests, reserved: requests.min(1 << 20) * REQUEST_BYTES }
    }

    /// A session keeping `records` per-event records.
    pub fn session(records: u64) -> MemoryUse {
        MemoryUse { records, ..Self::SESSION }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AppConfig, PingConfig, StreamConfig};

    #[test]
    fn events_count_the_active_seconds_and_ignore_invalid_values() {
        let ctx = MemoryContext { active_s: 10.0, rtt_min_s: 0.04, datagrams_per_s: 0.0 };
        assert_eq!(ctx.events(2.5), 26);
        assert_eq!(ctx.events(f64::NAN), 1);
        assert_eq!(ctx.events(-3.0), 1);
        assert_eq!(MemoryContext { active_s: f64::INFINITY, ..ctx }.events(1.0), 1);
    }

    #[test]
    fn each_app_estimates_its_own_session() {
        let ctx = MemoryContext { active_s: 100.0, rtt_min_s: 0.04, datagrams_per_s: 50.0 };
        // A ping every 100 ms: 1,001 requests, reserved up front, no session state.
        let ping = AppConfig::Ping(PingConfig { interval_ms: 100.0, request_bytes: 100, response_bytes: 100 });
        assert_eq!(ping.memory(&ctx), MemoryUse { state: 0, records: 1001, reserved: 1001 * REQUEST_BYTES });
        // An interval below the checks' 0.1 ms counts as 0.1 ms; the reservation is capped.
        let fast = AppConfig::Ping(PingConfig { interval_ms: 0.0, request_bytes: 100, response_bytes: 100 });
        let long = MemoryContext { active_s: 1000.0, ..ctx };
        assert_eq!(fast.memory(&long), MemoryUse { state: 0, records: 10_000_001, reserved: (1 << 20) * REQUEST_BYTES });
        // A stream: its session and a record per chunk, whatever the duration.
        let stream = StreamConfig { chunks: 48, ..StreamConfig::default() };
        assert_eq!(AppConfig::Stream(stream).memory(&ctx), MemoryUse::session(48));
    }
}
