//! What a discipline's configuration provides: the [`QueueConfig`] of a per-queue
//! discipline and the [`DropperConfig`] of a cell-level dropper, each implemented next to
//! its discipline, and where a queue or a cell sits ([`QueueSite`], [`CellSite`]: the
//! random streams they draw from).

use cellshare_core::{stream_rng, Nanos, StreamRng};

use crate::{Aqm, CellDropper, ParamError, QueueDiscipline, QueueLimit};

/// One base-station queue: UE `ue`'s DiffServ class `class` (0 without DiffServ) in cell
/// `cell` (0 for a lone cell) of a run with seed `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueSite {
    /// The scenario's seed.
    pub seed: u64,
    /// The UE's index.
    pub ue: u64,
    /// The DiffServ class (0 for a single-class queue).
    pub class: u64,
    /// The cell's index in its network (0 for a lone cell).
    pub cell: u64,
}

impl QueueSite {
    /// The queue's random stream, ("aqm", ue·256 + class), with the cell index in bits 40
    /// and up for the cells of a network after the first.
    pub fn rng(&self) -> StreamRng {
        stream_rng(self.seed, "aqm", (self.ue * 256 + self.class) ^ (self.cell << 40))
    }
}

/// One cell: index `cell` of its network (0 for a lone cell) in a run with seed `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellSite {
    /// The scenario's seed.
    pub seed: u64,
    /// The cell's index in its network (0 for a lone cell).
    pub cell: u64,
    /// The cell's scheduling period: LTE's TTI or an NR slot.
    pub slot: cellshare_core::Slot,
}

impl CellSite {
    /// The cell's stream `stream` (a dropper names its own).
    pub fn rng(&self, stream: &str) -> StreamRng {
        stream_rng(self.seed, stream, self.cell)
    }
}

/// The configuration of a per-queue discipline: what `cell.aqm = { kind = "…", … }` (or a
/// DiffServ class's `aqm`) holds. Implemented next to the discipline; registered with one
/// line in the crate's registry (`lib.rs`).
pub trait QueueConfig {
    /// The discipline this configuration builds.
    type Discipline: QueueDiscipline;

    /// Checks the parameters: `Err((key, value, expected))`, the key relative to the
    /// discipline's table. Default: nothing to check.
    fn validate(&self) -> Result<(), ParamError> {
        Ok(())
    }

    /// The packet limit the configuration gives instead of the queue's byte limit, if any
    /// (0 is refused for every discipline).
    fn limit_packets(&self) -> Option<u32>;

    /// The discipline of the queue at `site`, whose hard limit is `limit`.
    fn build(&self, limit: QueueLimit, site: &QueueSite) -> Self::Discipline;

    /// Packets the queue holds at its limit when its byte limit is `bytes`, counting
    /// `packet_bytes` bytes a packet: the memory estimate's bound. Default: `limit_packets`,
    /// else the byte limit in packets.
    fn packets_at_limit(&self, bytes: u64, packet_bytes: u64) -> u64 {
        self.limit_packets().map_or(bytes.div_ceil(packet_bytes), u64::from)
    }
}

/// The configuration of a cell-level dropper. Its UEs' queues are tail drop at their byte
/// limit.
pub trait DropperConfig {
    /// The dropper this configuration builds.
    type Dropper: CellDropper;

    /// Checks the parameters, as [`QueueConfig::validate`]. Default: nothing to check.
    fn validate(&self) -> Result<(), ParamError> {
        Ok(())
    }

    /// The dropper of the cell at `site`.
    fn build(&self, site: &CellSite) -> Self::Dropper;

    /// How long a background flow counts as active (for the cell's count of background
    /// flows) after its last data packet arrived. Default 0 (the dropper does not count).
    fn active_window(&self) -> Nanos {
        0
    }
}

/// The disciplines of one UE's queue, built from an [`crate::AqmConfig`] (the queue itself
/// belongs to the caller).
#[derive(Debug)]
pub enum QueueSet {
    /// A single-class queue.
    Single(Aqm),
    /// DiffServ classes in priority order, and `class_of[dscp]` the class of a packet
    /// carrying `dscp`.
    Classes {
        /// Each class's discipline, the first served first.
        classes: Vec<Aqm>,
        /// The class of each DSCP value (256 entries).
        class_of: Vec<u8>,
    },
}
