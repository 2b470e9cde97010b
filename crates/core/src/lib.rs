//! # cellshare-core
//!
//! The vocabulary every other cellshare crate speaks:
//!
//! - [`time`]: simulated time as integer nanoseconds ([`Nanos`]) and the 1 ms TTI;
//! - [`packet`]: the [`Packet`] record that travels through links and queues, and the
//!   [`PacketArena`] slab that owns packets while queues hold [`PacketId`] indices;
//! - [`error`]: [`ScenarioError`], the key-path error of every scenario kind;
//! - [`stats`]: summary statistics (Jain's fairness index);
//! - [`rng`]: independent, seed-derived random streams per component, so that adding a flow
//!   does not shift the random draws of any other component.
//!
//! Nothing here performs I/O or reads the wall clock.

#![warn(missing_docs)]

pub mod error;
pub mod packet;
pub mod rng;
pub mod stats;
pub mod time;

pub use error::ScenarioError;
pub use packet::{Packet, PacketArena, PacketId, PacketKind, TrafficClass};
pub use rng::{stream_rng, StreamRng};
pub use time::{Nanos, Slot, MS, SEC, TTI, US};
