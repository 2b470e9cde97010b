//! A fixed sojourn limit: the smallest complete queue discipline. A packet that has waited
//! longer than `max_sojourn_ms` when it reaches the head of the queue is dropped instead of
//! sent (Mahimahi-style: the verdict is taken at the two moments a queue has, arrival and
//! departure). Arrivals that do not fit the hard limit are dropped, as in every discipline.
//!
//! A real discipline is this file in `crates/aqm/src/` (declared there with `pub mod`) plus
//! one line in the registry of `crates/aqm/src/lib.rs`:
//!
//! ```text
//! "max_sojourn" => MaxSojourn(max_sojourn::MaxSojournConfig) -> MaxSojourn(max_sojourn::MaxSojourn),
//! ```

use cellshare_core::{time::from_millis_f64, Nanos, Packet};
use serde::{Deserialize, Serialize};

use crate::{check_range, DequeueVerdict, EnqueueVerdict, ParamError, QueueConfig, QueueDiscipline, QueueLimit, QueueSite, QueueView};

/// The parameters: the keys of `cell.aqm = { kind = "max_sojourn", ... }`, their defaults
/// (`Default` below, used for every key left out) and their documentation (the scenario
/// reference is generated from these doc comments).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MaxSojournConfig {
    /// The longest a packet may wait before it is sent, ms (> 0). Default 50.
    pub max_sojourn_ms: f64,
    /// Packet limit instead of the byte limit. Default: none.
    pub limit_packets: Option<u32>,
}

impl Default for MaxSojournConfig {
    fn default() -> Self {
        Self { max_sojourn_ms: 50.0, limit_packets: None }
    }
}

impl QueueConfig for MaxSojournConfig {
    type Discipline = MaxSojourn;

    /// Errors are (key, value, expected); the caller prefixes the key path (`cell.aqm.`).
    fn validate(&self) -> Result<(), ParamError> {
        check_range("max_sojourn_ms", self.max_sojourn_ms, 1e-3, 1e6, "a delay in ms in (0, 1e6]")
    }

    fn limit_packets(&self) -> Option<u32> {
        self.limit_packets
    }

    /// One queue's discipline; `limit` is `limit_packets`, else the queue's byte limit.
    /// `site.rng()` would give a random discipline its own reproducible stream.
    fn build(&self, limit: QueueLimit, _site: &QueueSite) -> MaxSojourn {
        MaxSojourn { max_sojourn: from_millis_f64(self.max_sojourn_ms), limit }
    }
}

/// The discipline: its state is fixed-size (nothing is allocated per packet).
#[derive(Clone, Debug)]
pub struct MaxSojourn {
    max_sojourn: Nanos,
    limit: QueueLimit,
}

impl QueueDiscipline for MaxSojourn {
    /// Arrival: accept what fits the hard limit.
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        self.limit.admit(pkt.size, q)
    }

    /// Departure: drop a head packet that waited too long (the queue then asks about the
    /// next head).
    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, _q: &QueueView) -> DequeueVerdict {
        if now.saturating_sub(pkt.enqueued_at) > self.max_sojourn {
            DequeueVerdict::Drop
        } else {
            DequeueVerdict::Transmit
        }
    }

    fn fits(&self, size: u32, q: &QueueView) -> bool {
        self.limit.fits(size, q)
    }
}
