//! Linux-like receive-buffer auto-tuning (the thesis's "Auto-tuning" receiver, Eq. (2.12)).

use cellshare_core::Nanos;

use super::{rtt_sample, ReceiveWindowPolicy};
use crate::wire::Segment;

/// Linux receive-buffer auto-tuning ("dynamic right-sizing", DRS).
///
/// Models `tcp_rcv_rtt_measure_ts` and `tcp_rcv_space_adjust` (`net/ipv4/tcp_input.c`):
///
/// - the receiver estimates the RTT from timestamps: for every full-sized segment whose
///   TSecr differs from the previous one, `sample = receiver clock − TSecr` (1 ms ticks, at
///   least 1 ms), smoothed as `rtt ← 7/8·rtt + 1/8·sample`;
/// - once per estimated RTT it counts the bytes `copied` that became in-order during that
///   RTT; if more than the previous maximum `space`, the window grows to
///   `rcvwin = 2·copied + 16·MSS`, plus `2·rcvwin·(copied − space)/space` to follow a sender
///   still in slow start, capped at `rmem_max`; `space ← copied`.
///
/// Simplification: Linux sizes the *buffer* this way and advertises only the payload share
/// of it (`tcp_win_from_space`); here the whole buffer is window. The window never shrinks.
#[derive(Clone, Debug)]
pub struct AutoTuning {
    mss: u32,
    rmem_max: u32,
    ts_offset_ms: u32,
    window: u32,
    /// Smoothed receiver-side RTT (`rcv_rtt_est`), once measured.
    rtt: Option<Nanos>,
    /// TSecr of the last segment used for an RTT sample (`rcv_rtt_last_tsecr`).
    last_tsecr: Option<u32>,
    /// Largest per-RTT in-order byte count seen (`rcvq_space.space`).
    space: u64,
    /// `rcv_nxt` at the start of the current measurement (`rcvq_space.seq`).
    space_seq: u64,
    /// Start of the current measurement (`rcvq_space.time`), set by the first segment.
    space_time: Option<Nanos>,
}

impl AutoTuning {
    /// Starts at `rmem_initial` bytes (capped at `rmem_max`).
    pub fn new(mss: u32, rmem_initial: u32, rmem_max: u32, ts_offset_ms: u32) -> Self {
        let window = rmem_initial.min(rmem_max);
        // tcp_init_buffer_space: space = min(rcv_wnd, TCP_INIT_CWND · advmss).
        let space = (window as u64).min(10 * mss as u64).max(1);
        Self {
            mss,
            rmem_max,
            ts_offset_ms,
            window,
            rtt: None,
            last_tsecr: None,
            space,
            space_seq: 0,
            space_time: None,
        }
    }

    /// The receiver's smoothed RTT estimate, once it has one.
    pub fn rtt_estimate(&self) -> Option<Nanos> {
        self.rtt
    }

    fn measure_rtt(&mut self, now: Nanos, seg: &Segment) {
        let Some(sample) = rtt_sample(now, seg, self.mss, self.ts_offset_ms, &mut self.last_tsecr)
        else {
            return;
        };
        self.rtt = Some(match self.rtt {
            None => sample,
            Some(r) => r - r / 8 + sample / 8,
        });
    }
}

impl ReceiveWindowPolicy for AutoTuning {
    fn on_segment(&mut self, now: Nanos, seg: &Segment, rcv_nxt: u64) {
        self.measure_rtt(now, seg);
        let Some(start) = self.space_time else {
            self.space_time = Some(now);
            return;
        };
        let Some(rtt) = self.rtt else { return };
        if now.saturating_sub(start) < rtt {
            return;
        }
        let copied = rcv_nxt.saturating_sub(self.space_seq);
        if copied > self.space {
            let mut rcvwin = 2 * copied + 16 * self.mss as u64;
            let grow = rcvwin * (copied - self.space) / self.space;
            rcvwin += 2 * grow;
            let target = rcvwin.min(self.rmem_max as u64) as u32;
            self.window = self.window.max(target);
            self.space = copied;
        }
        self.space_seq = rcv_nxt;
        self.space_time = Some(now);
    }

    fn window(&self, _now: Nanos) -> u32 {
        self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::ts_clock;
    use cellshare_core::MS;

    const MSS: u32 = 1448;

    /// Feeds `n` full segments per RTT for `rounds` RTTs; TSecr echoes the receiver clock of
    /// one RTT earlier. Returns the final window.
    fn drive(p: &mut AutoTuning, rtt_ms: u64, per_rtt: impl Fn(u64) -> u64, rounds: u64) -> u32 {
        let mut seq = 0;
        for r in 0..rounds {
            let n = per_rtt(r);
            for i in 0..n {
                let now = (r + 1) * rtt_ms * MS + i * rtt_ms * MS / n;
                let ts_ecr = ts_clock(now - rtt_ms * MS, 0);
                let seg = Segment {
                    seq,
                    len: MSS,
                    ts_val: 7,
                    ts_ecr,
                    retransmit: false,
                };
                seq += MSS as u64;
                p.on_segment(now, &seg, seq);
            }
        }
        p.window(0)
    }

    #[test]
    fn estimates_rtt_from_tsecr() {
        let mut p = AutoTuning::new(MSS, 131_072, 6_291_456, 0);
        drive(&mut p, 50, |_| 10, 3);
        assert_eq!(p.rtt_estimate(), Some(50 * MS));
    }

    #[test]
    fn grows_with_throughput_and_respects_rmem_max() {
        let mut p = AutoTuning::new(MSS, 131_072, 6_291_456, 0);
        // 200 segments per 50 ms RTT (~46 Mbit/s): 289600 bytes per RTT.
        let w = drive(&mut p, 50, |_| 200, 6);
        let per_rtt = 200 * MSS as u64;
        assert!(
            w as u64 >= 2 * per_rtt,
            "window {w} should reach 2x the per-RTT bytes"
        );
        let mut capped = AutoTuning::new(MSS, 131_072, 400_000, 0);
        let w = drive(&mut capped, 50, |_| 200, 6);
        assert_eq!(w, 400_000);
    }

    #[test]
    fn steady_rate_stops_growing() {
        let mut a = AutoTuning::new(MSS, 16 * 1024, 6_291_456, 0);
        let mut b = AutoTuning::new(MSS, 16 * 1024, 6_291_456, 0);
        // Constant 40 segments per RTT: once `space` has caught up, copied <= space.
        let w5 = drive(&mut a, 20, |_| 40, 5);
        let w12 = drive(&mut b, 20, |_| 40, 12);
        assert!(w5 as u64 >= 2 * 40 * MSS as u64, "window {w5}");
        assert_eq!(
            w12, w5,
            "a constant rate must not keep inflating the window"
        );
    }
}
