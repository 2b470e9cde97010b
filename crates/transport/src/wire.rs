//! What endpoints exchange. The simulator wraps these in [`cellshare_core::Packet`]s.

/// Bytes of IP + TCP headers including the timestamp option (20 + 20 + 12).
pub const TCP_HEADER_BYTES: u32 = 52;
/// Bytes of IP + TCP headers of a SYN or SYN-ACK as Linux sends them (20 + 20 + 20): the
/// options are MSS (4), SACK-permitted with the timestamp (12: `tcp_syn_options` /
/// `tcp_synack_options` in net/ipv4/tcp_output.c put SACK_PERM in the timestamp's two NOPs)
/// and window scale with a NOP (4).
pub const TCP_SYN_HEADER_BYTES: u32 = 60;
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
    /// The connection's SYN (RFC 9293 §3.5; `len` is 0): the handshake's first segment.
    /// A segment with `len == 0` and no SYN is a pure ACK of the sender (the handshake's
    /// third segment).
    pub syn: bool,
}

impl Segment {
    /// Sequence number one past the last payload byte.
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

/// Most SACK blocks one ACK carries: with the timestamp option (10 bytes + 2 NOPs), three
/// 8-byte blocks fill the 40 bytes of TCP options (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// A pure TCP acknowledgement.
///
/// `Copy` and fixed-size: the SACK option is an inline array, so building, copying and
/// carrying an ACK never allocates. `Ack::default()` has no SACK blocks.
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
    /// SACK option blocks (RFC 2018 §3), `[start, end)` in sequence bytes; only the first
    /// `sack_len` entries are meaningful (the rest are `(0, 0)`). The first block contains
    /// the segment that triggered the ACK (RFC 2018 §4). Use [`Ack::sack_blocks`].
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    /// Number of valid entries in `sack` (0 = no SACK option).
    pub sack_len: u8,
    /// The handshake's SYN-ACK (RFC 9293 §3.5): the receiver's answer to a SYN.
    pub syn: bool,
}

impl Ack {
    /// The SACK blocks this ACK carries, most recent first (a count above
    /// [`MAX_SACK_BLOCKS`] is clamped).
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..(self.sack_len as usize).min(MAX_SACK_BLOCKS)]
    }

    /// Appends a SACK block; returns false (and changes nothing) when all
    /// [`MAX_SACK_BLOCKS`] slots are taken.
    pub fn push_sack(&mut self, start: u64, end: u64) -> bool {
        let n = self.sack_len as usize;
        if n >= MAX_SACK_BLOCKS {
            return false;
        }
        self.sack[n] = (start, end);
        self.sack_len += 1;
        true
    }

    /// Bytes the SACK option adds to the TCP header: kind + length + 8 per block, padded
    /// to a 4-byte multiple with NOPs (12, 20 or 28 bytes; 0 without blocks). The ACK's
    /// wire size is [`TCP_HEADER_BYTES`] plus this.
    pub fn sack_option_bytes(&self) -> u32 {
        match self.sack_blocks().len() {
            0 => 0,
            n => (2 + 8 * n as u32).div_ceil(4) * 4,
        }
    }
}
