//! Transport selection for flows, and the sender/receiver endpoints the engine drives.
//!
//! Endpoints are enums (not trait objects): the engine calls them for every packet.

use serde::{Deserialize, Serialize};

use cellshare_core::Nanos;
use cellshare_transport::udp::{CbrSource, DatagramSink};
use cellshare_transport::wire::{Ack, Segment, UDP_HEADER_BYTES};

/// A flow's transport (`kind` selects it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TransportConfig {
    /// UDP-like constant bit rate, no feedback. A rate above the UE's capacity saturates it.
    Cbr {
        /// Sending rate on the wire (headers included), Mbps (> 0).
        rate_mbps: f64,
        /// Payload bytes per datagram (1..=65507). Default 1472 (1500-byte packets).
        #[serde(default = "default_cbr_payload")]
        packet_bytes: u32,
    },
}

fn default_cbr_payload() -> u32 {
    1500 - UDP_HEADER_BYTES
}

impl TransportConfig {
    /// Checks ranges; on error returns (key below `transport.`, value, expectation).
    pub fn validate(&self) -> Result<(), (String, String, String)> {
        match self {
            TransportConfig::Cbr { rate_mbps, packet_bytes } => {
                if !(*rate_mbps > 0.0 && rate_mbps.is_finite() && *rate_mbps <= 1e6) {
                    return Err(("rate_mbps".into(), rate_mbps.to_string(), "a rate in Mbps in (0, 1e6]".into()));
                }
                if !(1..=65_507).contains(packet_bytes) {
                    return Err(("packet_bytes".into(), packet_bytes.to_string(), "a payload size in 1..=65507 bytes".into()));
                }
            }
        }
        Ok(())
    }

    /// Short label for results (e.g. `"cbr"`, `"tcp-cubic"`).
    pub fn label(&self) -> String {
        match self {
            TransportConfig::Cbr { .. } => "cbr".into(),
        }
    }
}

/// The sending end of a flow.
#[derive(Debug)]
pub enum Sender {
    /// Constant-bit-rate datagrams.
    Cbr(CbrSource),
}

/// The receiving end of a flow.
#[derive(Debug)]
pub enum Receiver {
    /// Datagram counter.
    Sink(DatagramSink),
}

/// Header bytes added to a segment's payload on the wire.
pub fn header_bytes(s: &Sender) -> u32 {
    match s {
        Sender::Cbr(_) => UDP_HEADER_BYTES,
    }
}

impl Sender {
    /// Builds the sender for `cfg` starting at `start` with `limit` payload bytes
    /// (`u64::MAX` = unlimited).
    pub fn new(cfg: &TransportConfig, start: Nanos, limit: u64) -> Self {
        match cfg {
            TransportConfig::Cbr { rate_mbps, packet_bytes } => {
                Sender::Cbr(CbrSource::new((rate_mbps * 1e6).round() as u64, *packet_bytes, start, limit))
            }
        }
    }

    /// Next segment to send now, if any.
    #[inline]
    pub fn poll_transmit(&mut self, now: Nanos) -> Option<Segment> {
        match self {
            Sender::Cbr(s) => s.poll_transmit(now),
        }
    }

    /// Processes an ACK.
    #[inline]
    pub fn on_ack(&mut self, _now: Nanos, _ack: &Ack) {
        match self {
            Sender::Cbr(_) => {}
        }
    }

    /// When the sender next wants to be woken.
    #[inline]
    pub fn poll_timeout(&self) -> Option<Nanos> {
        match self {
            Sender::Cbr(s) => s.poll_timeout(),
        }
    }

    /// Timer expiry.
    #[inline]
    pub fn on_timeout(&mut self, _now: Nanos) {}

    /// Smoothed RTT the sender would carry in packets (Sneaker's end-to-end signal), ns.
    pub fn rtt_hint(&self) -> u64 {
        0
    }

    /// Retransmitted segments and retransmission timeouts so far.
    pub fn loss_stats(&self) -> (u64, u64) {
        (0, 0)
    }
}

impl Receiver {
    /// Builds the receiver matching `cfg`.
    pub fn new(cfg: &TransportConfig, _now: Nanos) -> Self {
        match cfg {
            TransportConfig::Cbr { .. } => Receiver::Sink(DatagramSink::default()),
        }
    }

    /// Processes an arriving segment.
    #[inline]
    pub fn on_segment(&mut self, _now: Nanos, seg: &Segment) {
        match self {
            Receiver::Sink(s) => s.on_segment(seg),
        }
    }

    /// An ACK to send now, if any.
    #[inline]
    pub fn poll_ack(&mut self, _now: Nanos) -> Option<Ack> {
        None
    }

    /// When the receiver next wants to be woken (delayed-ACK timer).
    #[inline]
    pub fn poll_timeout(&self) -> Option<Nanos> {
        None
    }

    /// Timer expiry.
    #[inline]
    pub fn on_timeout(&mut self, _now: Nanos) {}

    /// Payload bytes delivered to the application (in order for TCP).
    #[inline]
    pub fn delivered(&self) -> u64 {
        match self {
            Receiver::Sink(s) => s.bytes,
        }
    }
}
