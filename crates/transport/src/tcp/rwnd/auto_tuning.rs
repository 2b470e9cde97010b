//! Linux-like receive-buffer auto-tuning (the thesis's "Auto-tuning" receiver, Eq. (2.12)).

use cellshare_core::Nanos;

use super::{rtt_sample, ReceiveWindowPolicy};
use crate::tcp::ts_clock;
use crate::wire::Segment;

/// Linux receive-buffer auto-tuning ("dynamic right-sizing", DRS), as in Linux 6.18
/// (`net/ipv4/tcp_input.c`; the kernel the emulator's TCP runs, `docs/tcp.md`).
///
/// - **Receiver RTT** (`tcp_rcv_rtt_measure_ts`, `tcp_rcv_rtt_update` since 6.16's "always
///   seek for minimal rtt"): for every full-sized segment whose TSecr differs from the
///   previous one, `sample = receiver clock − TSecr` (1 ms ticks); a sample below the
///   estimate replaces it at once, a larger one is smoothed in as
///   `rtt ← 7/8·rtt + 1/8·sample`. Zero samples are ignored (6.16's "remove zero TCP TS
///   samples for autotuning").
/// - **Measurement** (`tcp_rcv_space_adjust`): once per estimated RTT it counts the bytes
///   `copied` that became in-order during that RTT (the application reads at once, so the
///   receive queue `inq` is empty); if more than the previous maximum `space`,
///   `tcp_rcvbuf_grow(copied)`; `space ← copied`.
/// - **Growth** (`tcp_rcvbuf_grow`, 6.18 with "fix too slow tcp_rcvbuf_grow() action"):
///   `rcvwin = 2·new` ("DRS is always one RTT late"), plus `2·rcvwin·(new − old)/old` ("slow
///   start: allow the sender to double its rate"), plus the span of out-of-order data above
///   `rcv_nxt`; capped at `rmem_max`. An out-of-order arrival calls it with `new = old`
///   (`tcp_data_queue_ofo`), so a hole's span is provisioned at once.
///
/// Simplification: Linux sizes the *buffer* (`tcp_space_from_win`) and advertises its
/// payload share (`window_clamp = tcp_win_from_space(rcvbuf)`), which round-trips to
/// `rcvwin`; here the window is `rcvwin` directly. The initial window is `rmem_initial`
/// (Linux's first advertisements grow from a smaller `rcv_ssthresh` within the first RTTs,
/// `tcp_grow_window`, not modelled). The window never shrinks.
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
    /// Highest sequence end received (`ooo_last_skb`'s end while data is out of order).
    high_end: u64,
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
            high_end: 0,
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
        // `rtt_sample` floors at one tick; Linux 6.16+ drops zero samples
        // (`tcp_rcv_rtt_measure_ts`: `if (delta > 0)`), so a same-tick echo is ignored.
        if ts_clock(now, self.ts_offset_ms) == seg.ts_ecr {
            return;
        }
        // `tcp_rcv_rtt_update(tp, sample, 0)`: latch a lower sample, smooth a higher one.
        self.rtt = Some(match self.rtt {
            Some(r) if sample >= r => r - r / 8 + sample / 8,
            _ => sample,
        });
    }

    /// `tcp_rcvbuf_grow(sk, new)`: `space ← new`, and the window grows to what `new` asks.
    fn grow(&mut self, new: u64, rcv_nxt: u64) {
        let old = self.space;
        self.space = new;
        // DRS is always one RTT late.
        let mut rcvwin = 2 * new;
        // Slow start: allow the sender to double its rate.
        rcvwin += 2 * (rcvwin * new.saturating_sub(old) / old.max(1));
        // Out-of-order data: its span above rcv_nxt is provisioned too.
        rcvwin += self.high_end.saturating_sub(rcv_nxt);
        let target = rcvwin.min(self.rmem_max as u64) as u32;
        self.window = self.window.max(target);
    }
}

impl ReceiveWindowPolicy for AutoTuning {
    fn on_segment(&mut self, now: Nanos, seg: &Segment, rcv_nxt: u64) {
        self.measure_rtt(now, seg);
        self.high_end = self.high_end.max(seg.seq + seg.len as u64);
        if self.high_end > rcv_nxt && seg.seq > rcv_nxt {
            // tcp_data_queue_ofo → tcp_rcvbuf_grow(sk, rcvq_space.space).
            self.grow(self.space, rcv_nxt);
        }
        let Some(start) = self.space_time else {
            self.space_time = Some(now);
            return;
        };
        // tcp_rcv_space_adjust: `if (time < rtt_us >> 3 || rtt_us == 0) return;`
        let Some(rtt) = self.rtt else { return };
        if now.saturating_sub(start) < rtt {
            return;
        }
        let copied = rcv_nxt.saturating_sub(self.space_seq);
        if copied > self.space {
            self.grow(copied, rcv_nxt);
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
                    syn: false,
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

    fn seg_at(seq: u64, now_ms: u64, echo_ms: u64) -> (Nanos, Segment) {
        let now = now_ms * MS;
        let seg = Segment {
            seq,
            len: MSS,
            ts_val: 7,
            ts_ecr: ts_clock(echo_ms * MS, 0),
            retransmit: false,
            syn: false,
        };
        (now, seg)
    }

    /// Linux ≥ 6.16 `tcp_rcv_rtt_update`: a lower sample replaces the estimate at once, a
    /// higher one moves it by 1/8, a same-tick echo (zero sample) is ignored.
    #[test]
    fn receiver_rtt_latches_lower_samples_and_smooths_higher_ones() {
        let mut p = AutoTuning::new(MSS, 131_072, 6_291_456, 0);
        let mut seq = 0;
        let mut feed = |p: &mut AutoTuning, now_ms: u64, rtt_ms: u64| {
            let (now, seg) = seg_at(seq, now_ms, now_ms - rtt_ms);
            seq += MSS as u64;
            p.on_segment(now, &seg, seq);
        };
        feed(&mut p, 2000, 800);
        assert_eq!(p.rtt_estimate(), Some(800 * MS));
        feed(&mut p, 2010, 1600);
        assert_eq!(p.rtt_estimate(), Some(900 * MS), "7/8 · 800 + 1/8 · 1600");
        feed(&mut p, 2020, 100);
        assert_eq!(p.rtt_estimate(), Some(100 * MS), "a lower sample is taken as it is");
        feed(&mut p, 2030, 0);
        assert_eq!(p.rtt_estimate(), Some(100 * MS), "a zero sample is no sample");
    }

    /// Linux 6.18 `tcp_rcvbuf_grow`: `rcvwin = 2·new + 2·(2·new)·(new − old)/old`, no
    /// extra segments (before 6.16: `2·copied + 16·MSS` plus the slow-start term).
    #[test]
    fn growth_is_twice_the_new_space_plus_the_slow_start_term() {
        let mut p = AutoTuning::new(MSS, 16 * 1024, 6_291_456, 0);
        // space starts at min(16 KB, 10 MSS) = 14480. The RTT is 100 ms (each TSecr echoes
        // the receiver clock 100 ms earlier). Nine segments 10 ms apart from 100 ms, then one
        // at 200 ms, which closes the first measurement with 10 segments (14480 bytes)
        // copied: not more than space, no growth.
        let mut seq = 0;
        let mut feed = |p: &mut AutoTuning, now_ms: u64| {
            let (now, seg) = seg_at(seq, now_ms, now_ms - 100);
            seq += MSS as u64;
            p.on_segment(now, &seg, seq);
        };
        for k in 0..=8u64 {
            feed(&mut p, 100 + 10 * k);
        }
        feed(&mut p, 200);
        assert_eq!(p.window(0), 16 * 1024);
        // The next 100 ms at twice the rate: 20 segments (28960 bytes) copied.
        for k in 1..=20u64 {
            feed(&mut p, 200 + 5 * k);
        }
        let (new, old) = (20 * MSS as u64, 10 * MSS as u64);
        let rcvwin = 2 * new + 2 * (2 * new * (new - old) / old);
        assert_eq!(p.window(0) as u64, rcvwin);
    }

    /// `tcp_data_queue_ofo` → `tcp_rcvbuf_grow(space)`: the span of out-of-order data above
    /// `rcv_nxt` is added to twice the space at once.
    #[test]
    fn out_of_order_span_is_provisioned() {
        let mut p = AutoTuning::new(MSS, 16 * 1024, 6_291_456, 0);
        // Segment 0 is lost; segments 1..=40 arrive out of order (rcv_nxt stays 0).
        for k in 1..=40u64 {
            let (now, seg) = seg_at(k * MSS as u64, 100 + k, k);
            p.on_segment(now, &seg, 0);
        }
        let span = 41 * MSS as u64;
        assert_eq!(p.window(0) as u64, 2 * 10 * MSS as u64 + span);
    }
}
