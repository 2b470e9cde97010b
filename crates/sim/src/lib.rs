//! # cellshare-sim
//!
//! The cellshare simulator: a [`scenario::Scenario`] (TOML, validated) becomes a
//! [`engine::Simulation`], which runs the discrete-event + TTI loop over the cell
//! (`cellshare-cell`), the channels (`cellshare-channel`), the queue disciplines
//! (`cellshare-aqm`) and the transport endpoints (`cellshare-transport`), and yields a
//! [`results::RunResult`]. No I/O happens here: trace files are read by the caller and
//! handed over parsed ([`TraceSet`]).
//!
//! The modules form layers, each importing only from those before it: [`traces`] and
//! [`transport`]; [`channel`]; [`uplink`] and [`apps`]; [`scenario`]; [`limits`];
//! [`validate`]; [`assembly`]; [`load`]; the engine.

#![warn(missing_docs)]

pub mod apps;
pub mod assembly;
pub mod channel;
pub mod engine;
mod event_queue;
pub mod input;
pub mod limits;
pub mod load;
pub mod metrics;
pub mod results;
pub mod scenario;
pub mod schema;
pub mod traces;
pub mod transport;
pub mod uplink;
pub mod validate;

pub use assembly::{build_cell, build_ran};
pub use traces::{PositionTraces, TraceSet};
pub use engine::Simulation;
pub use limits::Limits;
pub use results::{RunResult, TraceDrain};
pub use scenario::{Scenario, ScenarioError};
pub use validate::ValidScenario;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod aqm_tests;

#[cfg(test)]
mod network_tests;

#[cfg(test)]
mod uplink_tests;

#[cfg(test)]
mod workload_tests;

#[cfg(test)]
mod app_tests;

#[cfg(test)]
mod datagram_tests;

#[cfg(test)]
mod qdisc_example_tests;

#[cfg(test)]
mod nr_tests;
