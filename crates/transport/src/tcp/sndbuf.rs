//! The socket send buffer with Linux-like auto-tuning (\[rsd-thesis\] Eq. (3.2)).

/// Default initial send buffer (bytes): Linux `net.ipv4.tcp_wmem[1]` = 16 KiB.
pub const DEFAULT_WMEM_INITIAL: u32 = 16_384;
/// Default largest send buffer (bytes): Linux `net.ipv4.tcp_wmem[2]` = 4 MiB.
pub const DEFAULT_WMEM_MAX: u32 = 4_194_304;

/// A socket send buffer: how many bytes the application may have handed to TCP and not yet
/// seen acknowledged (Linux `sk_wmem_queued` against `sk_sndbuf`).
///
/// Auto-tuning (thesis Eq. (3.2), Linux `tcp_sndbuf_expand`): `sndbuf = min(2·cwnd,
/// tcp_wmem max)`, and the buffer never shrinks ("sendbuffer never decreases and can only be
/// expanded", §3.4.1). It starts at `tcp_wmem[1]`. The occupancy ratio `SOR = Q/sndbuf`
/// (Eq. (3.1)) is what SORPC classifies on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SendBuffer {
    size: u64,
    max: u64,
}

impl SendBuffer {
    /// A buffer of `initial` bytes (capped at `max`) that may grow to `max`.
    pub fn new(initial: u32, max: u32) -> Self {
        Self {
            size: initial.min(max) as u64,
            max: max as u64,
        }
    }

    /// Auto-tuning after the congestion window became `cwnd` bytes.
    #[inline]
    pub fn on_cwnd(&mut self, cwnd: u64) {
        self.size = self.size.max(cwnd.saturating_mul(2).min(self.max));
    }

    /// Current size, bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Bytes the application may still write when `queued` bytes sit in the buffer.
    #[inline]
    pub fn room(&self, queued: u64) -> u64 {
        self.size.saturating_sub(queued)
    }

    /// The send-buffer occupancy ratio `queued / sndbuf` (Eq. (3.1)).
    #[inline]
    pub fn occupancy(&self, queued: u64) -> f64 {
        queued as f64 / self.size.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_to_twice_cwnd_capped_and_never_shrinks() {
        let mut b = SendBuffer::new(DEFAULT_WMEM_INITIAL, 2_560_000);
        assert_eq!(b.size(), 16_384);
        b.on_cwnd(14_480); // 10 segments: 2·cwnd = 28960
        assert_eq!(b.size(), 28_960);
        b.on_cwnd(5_000); // cwnd fell: the buffer stays
        assert_eq!(b.size(), 28_960);
        b.on_cwnd(1_000_000);
        assert_eq!(b.size(), 2_000_000);
        b.on_cwnd(1_500_000); // 2·cwnd beyond tcp_wmem max
        assert_eq!(b.size(), 2_560_000);
        assert_eq!(b.room(2_000_000), 560_000);
        assert_eq!(b.room(3_000_000), 0);
    }

    #[test]
    fn occupancy_ratio() {
        let mut b = SendBuffer::new(16_384, 4_194_304);
        b.on_cwnd(50_000);
        assert_eq!(b.occupancy(50_000), 0.5);
        assert_eq!(b.occupancy(100_000), 1.0);
        assert_eq!(b.occupancy(0), 0.0);
    }
}
