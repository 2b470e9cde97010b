//! IEEE 802.15.4 frame timing and the unslotted CSMA/CA back-off (802.15.4-2006 §7.5.1.4).
//!
//! The CSMA/CA state of one frame is a small value ([`Csma`]): before each clear channel
//! assessment (CCA) the node waits a random number of unit back-off periods in
//! `[0, 2^BE − 1]`; a busy CCA increments NB and BE (BE capped at macMaxBE); after
//! macMaxCSMABackoffs busy CCAs the next busy one is a channel-access failure. The engine
//! (`crate::sim`) runs the clock and the radio.

use cellshare_core::Nanos;
use rand::Rng;

use crate::config::MacConfig;

/// Bits per O-QPSK symbol (2.4 GHz PHY: 250 kbps = 62.5 ksymbol/s, 16 µs a symbol).
const BITS_PER_SYMBOL: u64 = 4;
/// aUnitBackoffPeriod, symbols.
pub const UNIT_BACKOFF_SYMBOLS: u64 = 20;
/// CCA duration, symbols (8 symbol periods, §6.9.9).
pub const CCA_SYMBOLS: u64 = 8;
/// aTurnaroundTime (RX↔TX), symbols.
pub const TURNAROUND_SYMBOLS: u64 = 12;
/// macAckWaitDuration for the 2.4 GHz PHY, symbols: aUnitBackoffPeriod + aTurnaroundTime +
/// phySHRDuration + 6·phySymbolsPerOctet = 20 + 12 + 10 + 12.
pub const ACK_WAIT_SYMBOLS: u64 = 54;

/// Durations derived from the radio's bit rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Bit rate, bits per second.
    pub rate_bps: u64,
    /// One symbol.
    pub symbol: Nanos,
    /// aUnitBackoffPeriod.
    pub unit_backoff: Nanos,
    /// CCA duration.
    pub cca: Nanos,
    /// aTurnaroundTime.
    pub turnaround: Nanos,
    /// macAckWaitDuration, counted from the end of the data frame.
    pub ack_wait: Nanos,
}

impl Timing {
    /// Timing of a radio at `rate_bps`.
    pub fn new(rate_bps: u64) -> Self {
        let symbol = (BITS_PER_SYMBOL * 1_000_000_000).div_ceil(rate_bps.max(1));
        Self {
            rate_bps,
            symbol,
            unit_backoff: UNIT_BACKOFF_SYMBOLS * symbol,
            cca: CCA_SYMBOLS * symbol,
            turnaround: TURNAROUND_SYMBOLS * symbol,
            ack_wait: ACK_WAIT_SYMBOLS * symbol,
        }
    }

    /// Air time of a frame whose MAC frame (PSDU) is `psdu_bytes`, PHY header included.
    pub fn airtime(&self, psdu_bytes: u32) -> Nanos {
        cellshare_core::time::serialization_time((psdu_bytes + crate::PHY_HEADER_BYTES) as u64, self.rate_bps)
    }
}

/// CSMA/CA state of the frame being sent: NB (busy CCAs so far) and BE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Csma {
    /// NB: number of busy CCAs for this attempt.
    pub nb: u8,
    /// BE: current back-off exponent.
    pub be: u8,
}

impl Csma {
    /// A fresh attempt: NB = 0, BE = macMinBE.
    pub fn start(cfg: &MacConfig) -> Self {
        Self { nb: 0, be: cfg.min_be }
    }

    /// Draws the random back-off before the next CCA: a whole number of unit back-off
    /// periods in `[0, 2^BE − 1]`.
    pub fn backoff_periods<R: Rng>(&self, rng: &mut R) -> u32 {
        rng.gen_range(0..(1u32 << self.be))
    }

    /// The CCA found the channel busy: NB += 1, BE = min(BE + 1, macMaxBE) (or the fixed
    /// `congestion_be`). Returns false when NB exceeds macMaxCSMABackoffs (channel-access
    /// failure), true when the node backs off again. With macMaxCSMABackoffs = 255 the node
    /// never gives up.
    pub fn on_busy(&mut self, cfg: &MacConfig) -> bool {
        self.nb = self.nb.saturating_add(1);
        self.be = match cfg.congestion_be {
            Some(b) => b,
            None => (self.be + 1).min(cfg.max_be),
        };
        self.nb <= cfg.max_csma_backoffs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::stream_rng;

    #[test]
    fn backoff_stays_within_the_exponent_window() {
        let cfg = MacConfig::default();
        let mut rng = stream_rng(1, "test", 0);
        let mut c = Csma::start(&cfg);
        assert_eq!(c.be, 3);
        let draws: Vec<u32> = (0..2000).map(|_| c.backoff_periods(&mut rng)).collect();
        assert!(draws.iter().all(|&d| d <= 7));
        // every value of the window occurs
        assert!((0..=7).all(|v| draws.contains(&v)));
        assert!(c.on_busy(&cfg));
        assert!(c.on_busy(&cfg));
        assert_eq!(c.be, 5);
        assert!(c.on_busy(&cfg));
        assert_eq!(c.be, 5, "BE is capped at macMaxBE");
        let draws: Vec<u32> = (0..4000).map(|_| c.backoff_periods(&mut rng)).collect();
        assert!(draws.iter().all(|&d| d <= 31));
        assert!(draws.contains(&31));
    }

    #[test]
    fn channel_access_fails_after_max_csma_backoffs_busy_ccas() {
        let cfg = MacConfig { max_csma_backoffs: 4, ..MacConfig::default() };
        let mut c = Csma::start(&cfg);
        for _ in 0..4 {
            assert!(c.on_busy(&cfg));
        }
        assert!(!c.on_busy(&cfg), "the 5th busy CCA is a failure");
        let cfg0 = MacConfig { max_csma_backoffs: 0, min_be: 0, max_be: 0, ..MacConfig::default() };
        let mut c = Csma::start(&cfg0);
        let mut rng = stream_rng(1, "test", 1);
        assert_eq!(c.backoff_periods(&mut rng), 0, "BE = 0 means no back-off");
        assert!(!c.on_busy(&cfg0));
    }

    #[test]
    fn a_fixed_congestion_window_replaces_the_growth() {
        // TinyOS CC2420-like: initial BE 5, then BE 3 after every busy CCA.
        let cfg = MacConfig { min_be: 5, max_be: 5, congestion_be: Some(3), max_csma_backoffs: 255, ..MacConfig::default() };
        let mut rng = stream_rng(2, "test", 0);
        let mut c = Csma::start(&cfg);
        assert!((0..1000).map(|_| c.backoff_periods(&mut rng)).all(|d| d <= 31));
        for _ in 0..1000 {
            assert!(c.on_busy(&cfg), "255 busy CCAs = never give up");
            assert_eq!(c.be, 3);
        }
        assert!((0..1000).map(|_| c.backoff_periods(&mut rng)).all(|d| d <= 7));
    }

    #[test]
    fn timing_of_the_2_4_ghz_phy() {
        let t = Timing::new(250_000);
        assert_eq!(t.symbol, 16_000);
        assert_eq!(t.unit_backoff, 320_000);
        assert_eq!(t.cca, 128_000);
        assert_eq!(t.turnaround, 192_000);
        assert_eq!(t.ack_wait, 864_000);
        // a full 127-byte frame plus the 6-byte PHY header: 133 bytes = 4.256 ms
        assert_eq!(t.airtime(127), 4_256_000);
        // the 5-byte link-layer ACK: 352 µs
        assert_eq!(t.airtime(5), 352_000);
    }
}
