//! The parsed input files a scenario names, keyed by the file string written in the
//! scenario. This crate does no I/O: the caller reads and parses them (`input.rs` for the
//! simulator, `cellshare-emu` for the emulator) and hands them over.

use std::collections::BTreeMap;
use std::sync::Arc;

use cellshare_channel::MahimahiTrace;
use cellshare_ran::PositionTrace;

/// Parsed trace files by the file string written in the scenario.
pub type TraceSet = BTreeMap<String, Arc<MahimahiTrace>>;

/// Parsed position traces (`ues[i].mobility = { kind = "trace" }`) by the file string written
/// in the scenario.
pub type PositionTraces = BTreeMap<String, Arc<PositionTrace>>;
