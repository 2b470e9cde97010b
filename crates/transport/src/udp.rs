//! UDP-like sources: paced datagrams with no feedback.
//!
//! [`CbrSource`] emits fixed-size datagrams at a constant bit rate, optionally for a finite
//! number of bytes. A rate above the UE's capacity makes it a *saturating* source: the
//! base-station queue stays full and the surplus is dropped there, which is how the cell can
//! be tested on its own before TCP is involved.

use cellshare_core::{Nanos, SEC};

use crate::wire::{Segment, UDP_HEADER_BYTES};

/// A constant-bit-rate datagram source.
#[derive(Clone, Debug)]
pub struct CbrSource {
    /// Payload bytes per datagram.
    payload: u32,
    /// Interval between datagrams in nanoseconds, as a rational `SEC * wire_bits / rate`.
    rate_bps: u64,
    /// Sequence number of the next byte.
    next_seq: u64,
    /// Datagrams sent so far.
    sent: u64,
    /// Time of the first datagram.
    start: Nanos,
    /// Bytes still allowed (`u64::MAX` = unlimited).
    remaining: u64,
}

impl CbrSource {
    /// A source sending `payload`-byte datagrams at `rate_bps` bits per second on the wire
    /// (headers included), starting at `start`, for at most `limit_bytes` payload bytes.
    pub fn new(rate_bps: u64, payload: u32, start: Nanos, limit_bytes: u64) -> Self {
        assert!(rate_bps > 0 && payload > 0);
        Self {
            payload,
            rate_bps,
            next_seq: 0,
            sent: 0,
            start,
            remaining: limit_bytes,
        }
    }

    /// Wire size of each datagram.
    pub fn wire_size(&self) -> u32 {
        self.payload + UDP_HEADER_BYTES
    }

    /// When datagram number `k` is due: `start + k·wire_bits/rate` (exact, no drift).
    fn due(&self, k: u64) -> Nanos {
        self.start
            + ((k as u128 * self.wire_size() as u128 * 8 * SEC as u128) / self.rate_bps as u128)
                as Nanos
    }

    /// The next datagram if one is due at `now`.
    #[inline]
    pub fn poll_transmit(&mut self, now: Nanos) -> Option<Segment> {
        if self.remaining == 0 || now < self.due(self.sent) {
            return None;
        }
        let len = (self.payload as u64).min(self.remaining) as u32;
        let seg = Segment {
            seq: self.next_seq,
            len,
            ts_val: 0,
            ts_ecr: 0,
            retransmit: false,
            syn: false,
        };
        self.next_seq += len as u64;
        self.sent += 1;
        if self.remaining != u64::MAX {
            self.remaining -= len as u64;
        }
        Some(seg)
    }

    /// When the next datagram is due, or `None` when the source is exhausted.
    pub fn poll_timeout(&self) -> Option<Nanos> {
        (self.remaining > 0).then(|| self.due(self.sent))
    }

    /// Whether every byte has been sent.
    pub fn finished(&self) -> bool {
        self.remaining == 0
    }

    /// Payload bytes sent so far.
    pub fn bytes_sent(&self) -> u64 {
        self.next_seq
    }
}

/// The receiving end of a datagram flow: counts what arrives.
#[derive(Clone, Debug, Default)]
pub struct DatagramSink {
    /// Payload bytes received.
    pub bytes: u64,
    /// Datagrams received.
    pub datagrams: u64,
}

impl DatagramSink {
    /// Records an arriving datagram.
    #[inline]
    pub fn on_segment(&mut self, seg: &Segment) {
        self.bytes += seg.len as u64;
        self.datagrams += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    #[test]
    fn cbr_paces_exactly() {
        // 1500-byte datagrams (1472 + 28) at 12 Mbps = one per ms.
        let mut s = CbrSource::new(12_000_000, 1472, 5 * MS, u64::MAX);
        assert_eq!(s.poll_transmit(4 * MS), None);
        assert_eq!(s.poll_timeout(), Some(5 * MS));
        let mut n = 0;
        let mut t = 5 * MS;
        while t < 5 * MS + SEC {
            while s.poll_transmit(t).is_some() {
                n += 1;
            }
            t = s.poll_timeout().unwrap();
        }
        assert_eq!(n, 1000);
    }

    #[test]
    fn finite_source_stops() {
        let mut s = CbrSource::new(1_000_000_000, 1000, 0, 2500);
        let lens: Vec<u32> = std::iter::from_fn(|| s.poll_transmit(SEC))
            .map(|g| g.len)
            .collect();
        assert_eq!(lens, vec![1000, 1000, 500]);
        assert!(s.finished());
        assert_eq!(s.poll_timeout(), None);
    }
}
