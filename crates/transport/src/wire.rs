//! What endpoints exchange. The simulator wraps these in [`cellshare_core::Packet`]s.

/// Bytes of IP + TCP headers including the timestamp option (20 + 20 + 12).
pub const TCP_HEADER_BYTES: u32 = 52;
/// Bytes of IP + UDP headers.
pub const UDP_HEADER_BYTES: u32 = 28;

/// A TCP data segment (or a UDP datagram, with `ts_ecr = 0`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// Sequence number of the first payload byte.
    pub seq: u64,
    /// Payload length in bytes.
    pub len: u32,
    /// Sender's timestamp clock (1 ms ticks) when sent (RFC 7323 TSval).
    pub ts_val: u32,
    /// Echo of the most recent receiver TSval the sender has seen (TSecr).
    pub ts_ecr: u32,
    /// Whether this segment retransmits bytes sent before.
    pub retransmit: bool,
}

impl Segment {
    /// Sequence number one past the last payload byte.
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

/// A pure TCP acknowledgement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ack {
    /// Cumulative acknowledgement: next byte the receiver expects.
    pub ack: u64,
    /// Advertised receive window in bytes (window scaling is implicit: full precision).
    pub rwnd: u32,
    /// Receiver's timestamp clock (1 ms ticks) when the ACK was sent (TSval).
    pub ts_val: u32,
    /// Echo of the sender TSval of the segment this ACK answers (TSecr, RFC 7323 rules).
    pub ts_ecr: u32,
}
