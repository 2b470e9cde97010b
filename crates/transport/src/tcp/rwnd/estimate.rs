//! What a receiver can estimate about its connection: the RTT (from timestamps), the
//! minimum RTT, and the sender's transmission window (bytes that arrive per RTT).
//!
//! Shared by [`super::Drwa`] and [`super::Rtac`]. Every input is receiver-side: arrival
//! times, the TSecr the sender echoes and the in-order point `rcv_nxt`.

use cellshare_core::Nanos;

use super::rtt_sample;
use crate::wire::Segment;

/// Receiver-side estimates of RTT, minimum RTT and the sender's window.
///
/// - **RTT samples** (the method of Linux `tcp_rcv_rtt_measure_ts` and of the thesis,
///   §2.3.2 "by the TCP timestamp option"): for every full-sized segment whose TSecr
///   differs from the previous one, `sample = receiver clock − TSecr` (1 ms ticks, at
///   least 1 ms). TSecr echoes the TSval of the receiver's own ACK that released the
///   segment, so the sample spans ACK → data: one round trip.
/// - **Smoothed RTT** (Algorithm 1, "on receiving a packet", line 2):
///   `rtt ← (1 − β)·rtt + β·sample`; the first sample initialises it.
/// - **Minimum RTT**: the smallest sample seen ("taking the minimum of R̂TT values over
///   time, as in TCP-Vegas").
/// - **Window** (Algorithm 1, "on copying data to user space"; the application reads at
///   once, so in-order arrival is the copy): in-order bytes are counted, and once at least
///   one smoothed RTT has passed since the last update the count (in MSS-sized packets)
///   becomes a sample: `ŵ ← keep·ŵ + (1 − keep)·pkts`, where `keep` is the weight of the
///   previous estimate (RTAC's α, DRWA's 7/8). **Choice:** the first sample initialises
///   `ŵ` (a zero start would make DRWA throttle slow start to a fraction of the window).
#[derive(Clone, Debug)]
pub struct ReceiverEstimator {
    mss: u32,
    ts_offset_ms: u32,
    beta: f64,
    keep: f64,
    last_tsecr: Option<u32>,
    rtt: Option<Nanos>,
    rtt_min: Option<Nanos>,
    /// Estimated sender window, packets.
    window: Option<f64>,
    /// `rcv_nxt` at the last window update.
    last_rcv_nxt: u64,
    /// Time of the last window update (the first segment starts the first period).
    last_update: Option<Nanos>,
    /// Window updates so far.
    updates: u64,
}

impl ReceiverEstimator {
    /// An estimator for segments of `mss` bytes, the receiver clock offset `ts_offset_ms`,
    /// RTT gain `beta` (weight of a new sample) and window weight `keep` (weight of the
    /// previous estimate).
    pub fn new(mss: u32, ts_offset_ms: u32, beta: f64, keep: f64) -> Self {
        Self {
            mss,
            ts_offset_ms,
            beta,
            keep,
            last_tsecr: None,
            rtt: None,
            rtt_min: None,
            window: None,
            last_rcv_nxt: 0,
            last_update: None,
            updates: 0,
        }
    }

    /// Feeds an arriving segment; returns true when the window estimate was updated (once
    /// per smoothed RTT), i.e. when a policy should recompute its window.
    pub fn on_segment(&mut self, now: Nanos, seg: &Segment, rcv_nxt: u64) -> bool {
        self.measure_rtt(now, seg);
        let Some(last) = self.last_update else {
            self.last_update = Some(now);
            self.last_rcv_nxt = rcv_nxt.saturating_sub(seg.len as u64);
            return false;
        };
        let Some(rtt) = self.rtt else { return false };
        if now.saturating_sub(last) < rtt {
            return false;
        }
        let pkts = rcv_nxt.saturating_sub(self.last_rcv_nxt) as f64 / self.mss as f64;
        self.window = Some(match self.window {
            None => pkts,
            Some(w) => self.keep * w + (1.0 - self.keep) * pkts,
        });
        self.last_rcv_nxt = rcv_nxt;
        self.last_update = Some(now);
        self.updates += 1;
        true
    }

    fn measure_rtt(&mut self, now: Nanos, seg: &Segment) {
        let Some(sample) = rtt_sample(now, seg, self.mss, self.ts_offset_ms, &mut self.last_tsecr)
        else {
            return;
        };
        self.rtt_min = Some(self.rtt_min.map_or(sample, |m| m.min(sample)));
        self.rtt = Some(match self.rtt {
            None => sample,
            Some(r) => ((1.0 - self.beta) * r as f64 + self.beta * sample as f64).round() as Nanos,
        });
    }

    /// Smoothed receiver-side RTT, once measured.
    pub fn rtt(&self) -> Option<Nanos> {
        self.rtt
    }

    /// Smallest RTT sample, once measured.
    pub fn rtt_min(&self) -> Option<Nanos> {
        self.rtt_min
    }

    /// Estimated sender window in packets (MSS units), after the first full RTT.
    pub fn window_packets(&self) -> Option<f64> {
        self.window
    }

    /// Window updates so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::ts_clock;
    use cellshare_core::MS;

    const MSS: u32 = 1448;

    /// `n` full segments per RTT of `rtt_ms`, TSecr echoing the receiver clock one RTT back.
    fn drive(e: &mut ReceiverEstimator, rtt_ms: u64, n: u64, rounds: u64) {
        let mut seq = 0;
        for r in 0..rounds {
            for i in 0..n {
                let now = (r + 1) * rtt_ms * MS + i * rtt_ms * MS / n;
                let seg = Segment {
                    seq,
                    len: MSS,
                    ts_val: 1,
                    ts_ecr: ts_clock(now - rtt_ms * MS, 0),
                    retransmit: false,
                    syn: false,
                };
                seq += MSS as u64;
                e.on_segment(now, &seg, seq);
            }
        }
    }

    #[test]
    fn measures_rtt_min_and_window() {
        let mut e = ReceiverEstimator::new(MSS, 0, 0.125, 0.125);
        drive(&mut e, 40, 50, 6);
        assert_eq!(e.rtt(), Some(40 * MS));
        assert_eq!(e.rtt_min(), Some(40 * MS));
        let w = e.window_packets().unwrap();
        assert!((w - 50.0).abs() < 1.5, "window {w} packets, want about 50");
    }

    #[test]
    fn rtt_is_smoothed_with_beta() {
        let mut e = ReceiverEstimator::new(MSS, 0, 0.125, 0.125);
        let seg = |ecr| Segment {
            seq: 0,
            len: MSS,
            ts_val: 1,
            ts_ecr: ecr,
            retransmit: false,
            syn: false,
        };
        e.on_segment(100 * MS, &seg(60), MSS as u64); // sample 40 ms
        e.on_segment(200 * MS, &seg(120), 2 * MSS as u64); // sample 80 ms
                                                           // 7/8 · 40 + 1/8 · 80 = 45 ms.
        assert_eq!(e.rtt(), Some(45 * MS));
        assert_eq!(e.rtt_min(), Some(40 * MS));
    }
}
