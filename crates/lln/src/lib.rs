//! # cellshare-lln
//!
//! Multi-hop low-power and lossy networks (LLNs): sensor nodes in a static tree towards a
//! border router send TCP uplinks to an end host behind it, and DTPA (dynamic TX period
//! adjustment, \[rsd-thesis\] chapter 4) makes nodes near the root yield.
//!
//! - [`config`]: the LLN scenario (TOML, serde + schemars), a scenario kind of its own
//!   marked by the top-level `[lln]` table;
//! - [`topology`]: neighbourhood graph (positions and range, or explicit links) and the
//!   routing tree (given parents, or an RPL-like hop-count choice);
//! - [`mac`]: IEEE 802.15.4 timing and the unslotted CSMA/CA back-off;
//! - [`dtpa`]: Eq. (4.6) and Algorithm 2;
//! - [`sim`]: the event-driven engine (radio with collisions, MAC with link-layer ACKs
//!   and retries, per-node FIFOs, wired link, TCP Reno endpoints from
//!   `cellshare-transport`);
//! - [`results`]: per-node goodput, loss, RTT, overflows, Jain's index.
//!
//! Like the other library crates it does no I/O and reads no clock; time is integer
//! nanoseconds and every random draw comes from a stream of the scenario seed (kinds
//! `lln-csma`, `lln-frame-loss`, `lln-app`, `lln-tcp-clock`, indexed by node).
//!
//! # Frame budget (assumed header sizes)
//! A 127-byte 802.15.4 frame (aMaxPHYPacketSize) carries, for a TCP segment:
//! - MAC header and FCS, 11 bytes: frame control 2, sequence number 1, destination PAN 2,
//!   short destination and source addresses 2 + 2 (PAN ID compression), FCS 2;
//! - 6LoWPAN IPHC (RFC 6282), 20 bytes: IPHC 2, inline next header 1 (TCP is not
//!   compressed), inline hop limit 1 (it is decremented per hop), the end host's full
//!   16-byte address (outside the LLN's prefix); the node's own address is elided (derived
//!   from its MAC address and the context);
//! - TCP header with the timestamp option, 32 bytes (the project's TCP always sends
//!   timestamps).
//!
//! That leaves 64 payload bytes: the default MSS. A pure TCP ACK is a 63-byte frame, a
//! link-layer ACK 5 bytes; the PHY adds 6 bytes (preamble, SFD, length) to each. On the
//! wired link the border router sends the decompressed IPv6 packet (40-byte header).

#![warn(missing_docs)]

pub mod config;
pub mod dtpa;
pub mod mac;
pub mod results;
pub mod sim;
pub mod topology;

#[cfg(test)]
mod tests;

pub use config::{LlnError, LlnScenario};
pub use results::LlnResult;
pub use sim::LlnSimulation;

/// aMaxPHYPacketSize: the largest MAC frame (PSDU), bytes.
pub const MAX_FRAME_BYTES: u32 = 127;
/// PHY synchronisation header and length field: preamble 4, SFD 1, PHR 1.
pub const PHY_HEADER_BYTES: u32 = 6;
/// MAC header and FCS of a data frame with short addresses and PAN ID compression.
pub const MAC_HEADER_BYTES: u32 = 11;
/// 6LoWPAN IPHC header assumed for uplink and downlink TCP packets.
pub const LOWPAN_HEADER_BYTES: u32 = 20;
/// TCP header with the timestamp option.
pub const TCP_HEADER_BYTES: u32 = 32;
/// Everything in a TCP frame but the payload: 63 bytes.
pub const DATA_OVERHEAD_BYTES: u32 = MAC_HEADER_BYTES + LOWPAN_HEADER_BYTES + TCP_HEADER_BYTES;
/// A link-layer ACK frame: frame control 2, sequence number 1, FCS 2.
pub const MAC_ACK_BYTES: u32 = 5;
/// Uncompressed IPv6 header, as sent on the wired link.
pub const IPV6_HEADER_BYTES: u32 = 40;

/// Bytes on the wired link of a packet that is a `psdu`-byte frame in the LLN.
pub fn wired_bytes(psdu: u32) -> u32 {
    psdu - MAC_HEADER_BYTES - LOWPAN_HEADER_BYTES + IPV6_HEADER_BYTES
}

/// JSON Schema of [`LlnScenario`].
pub fn scenario_schema() -> serde_json::Value {
    let schema = schemars::schema_for!(LlnScenario);
    serde_json::to_value(schema).expect("schema serializes")
}
