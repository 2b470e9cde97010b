//! Receive-window policies: what window the receiver advertises.
//!
//! A policy sees only what a real receiver sees: each arriving segment (sequence range and
//! the TSval/TSecr timestamps; **not** [`Segment::retransmit`], which no real receiver can
//! read), its arrival time, and the in-order point `rcv_nxt`. The receiver's own timestamp
//! clock is `ts_clock(now, ts_offset_ms)`, so a policy that wants the receiver-side RTT
//! takes the receiver's `ts_offset_ms` at construction and computes
//! `ts_clock(now) − seg.ts_ecr` (TSecr echoes the receiver's own earlier TSval).
//!
//! The [`crate::tcp::TcpReceiver`] applies two rules on top of any policy: the right edge
//! of the window never moves left (RFC 9293 §3.8.6), and the window only changes when
//! `rcv_nxt` advances, so duplicate ACKs carry identical windows (RFC 5681 §2 condition
//! (e)).

use cellshare_core::{Nanos, MS};

use crate::tcp::{ts_clock, RwndConfig};
use crate::wire::Segment;

/// Chooses the advertised receive window.
pub trait ReceiveWindowPolicy: std::fmt::Debug + Send {
    /// Called for every arriving data segment, after the receiver processed it; `rcv_nxt`
    /// is the next in-order byte expected (= in-order bytes delivered to the application).
    fn on_segment(&mut self, now: Nanos, seg: &Segment, rcv_nxt: u64);
    /// The window (bytes beyond `rcv_nxt`) the policy wants to advertise at `now`.
    fn window(&self, now: Nanos) -> u32;
}

impl RwndConfig {
    /// Builds the policy this configuration describes, for a receiver with maximum segment
    /// size `mss` whose timestamp clock runs `ts_offset_ms` ahead of `now / MS`.
    pub fn build(&self, mss: u32, ts_offset_ms: u32) -> Box<dyn ReceiveWindowPolicy> {
        match *self {
            RwndConfig::AutoTuning { rmem_max, rmem_initial } => {
                Box::new(AutoTuning::new(mss, rmem_initial, rmem_max, ts_offset_ms))
            }
            RwndConfig::Fixed { bytes } => Box::new(FixedWindow::new(bytes)),
        }
    }
}

/// A constant window.
#[derive(Clone, Debug)]
pub struct FixedWindow {
    bytes: u32,
}

impl FixedWindow {
    /// Always advertises `bytes`.
    pub fn new(bytes: u32) -> Self {
        Self { bytes }
    }
}

impl ReceiveWindowPolicy for FixedWindow {
    fn on_segment(&mut self, _now: Nanos, _seg: &Segment, _rcv_nxt: u64) {}

    fn window(&self, _now: Nanos) -> u32 {
        self.bytes
    }
}

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
        Self { mss, rmem_max, ts_offset_ms, window, rtt: None, last_tsecr: None, space, space_seq: 0, space_time: None }
    }

    /// The receiver's smoothed RTT estimate, once it has one.
    pub fn rtt_estimate(&self) -> Option<Nanos> {
        self.rtt
    }

    fn measure_rtt(&mut self, now: Nanos, seg: &Segment) {
        // TSecr 0 means "no echo yet" (the sender has not seen an ACK).
        if seg.ts_ecr == 0 || self.last_tsecr == Some(seg.ts_ecr) {
            return;
        }
        self.last_tsecr = Some(seg.ts_ecr);
        if seg.len < self.mss {
            return;
        }
        let delta = ts_clock(now, self.ts_offset_ms).wrapping_sub(seg.ts_ecr) as i32;
        if delta < 0 {
            return;
        }
        let sample = (delta.max(1) as u64) * MS;
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
                let seg = Segment { seq, len: MSS, ts_val: 7, ts_ecr, retransmit: false };
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
        assert!(w as u64 >= 2 * per_rtt, "window {w} should reach 2x the per-RTT bytes");
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
        assert_eq!(w12, w5, "a constant rate must not keep inflating the window");
    }

    #[test]
    fn fixed_window_is_constant() {
        let mut f = FixedWindow::new(65_535);
        f.on_segment(5, &Segment::default(), 100);
        assert_eq!(f.window(10), 65_535);
    }
}
