//! Tests driving [`TcpSender`] and [`TcpReceiver`] with hand-built segment and ACK streams,
//! and through a small simulated link.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use cellshare_core::time::serialization_time;
use cellshare_core::{Nanos, MS};

use super::*;
use crate::cc::cubic::{Cubic, CubicConfig};
use crate::cc::reno::{Reno, RenoConfig};
use crate::cc::{AckEvent, CongestionControl, IdleRestart, LossEvent, UndoEvent};
use crate::wire::{Ack, Segment, TCP_HEADER_BYTES};

const MSS: u32 = 1448;
const M: u64 = MSS as u64;
/// The window every hand-built ACK advertises (the default initial window, so that
/// duplicate-ACK condition (e) holds from the first ACK on).
const WND: u32 = DEFAULT_RMEM_INITIAL;

/// The configuration for tests of NewReno specifics (RFC 5681/6582): SACK off.
fn newreno() -> TcpConfig {
    TcpConfig {
        sack: false,
        ..Default::default()
    }
}

fn reno_sender(cfg: &TcpConfig) -> TcpSender {
    let cc = Reno::new(&RenoConfig::default(), cfg.mss, cfg.initial_window_bytes());
    sender_no_handshake(cfg, Box::new(cc), 0, 0)
}

/// A sender whose connection exists from the start (`handshake = false`): the tests of
/// loss recovery drive data from the first call. The handshake has its own tests
/// (`handshake` below).
fn sender_no_handshake(
    cfg: &TcpConfig,
    cc: Box<dyn CongestionControl>,
    now: Nanos,
    ts_offset_ms: u32,
) -> TcpSender {
    let cfg = TcpConfig {
        handshake: false,
        ..cfg.clone()
    };
    TcpSender::new(&cfg, cc, now, ts_offset_ms)
}

fn drain(s: &mut TcpSender, now: Nanos) -> Vec<Segment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

fn ack(n: u64) -> Ack {
    Ack {
        ack: n,
        rwnd: WND,
        ts_val: 0,
        ts_ecr: 0,
        ..Default::default()
    }
}

fn seg(i: u64) -> Segment {
    Segment {
        seq: i * M,
        len: MSS,
        ts_val: i as u32,
        ts_ecr: 0,
        retransmit: false,
        syn: false,
    }
}

/// RFC 5681 §4.2's receiver alone: an ACK every second segment as it arrives, an ACK for
/// every out-of-order segment, no quick ACKs (Linux's `quickack`, `burst_acks` and SACK
/// compression have their own tests).
fn rfc5681_receiver() -> TcpConfig {
    TcpConfig {
        quickack: false,
        burst_acks: false,
        comp_sack_nr: 0,
        ..Default::default()
    }
}

/// What a [`MockCc`] saw.
#[derive(Debug, Default)]
struct Log {
    acks: Vec<AckEvent>,
    losses: Vec<LossEvent>,
    timeouts: Vec<u64>,
    /// Number of `on_ack` calls seen when `on_recovery_end` was called.
    recovery_ends: Vec<usize>,
    sent: u64,
    /// What [`MockCc::paused`] answers.
    paused: bool,
    /// Every undo and every restart after idle.
    undos: Vec<UndoEvent>,
    restarts: Vec<IdleRestart>,
    /// Every completed handshake.
    established: Vec<crate::cc::Established>,
}

/// A controller with a fixed window (Reno-style reduction on loss) that records every call.
#[derive(Debug)]
struct MockCc {
    cwnd: u64,
    ssthresh: u64,
    pacing: Option<f64>,
    log: Arc<Mutex<Log>>,
}

impl MockCc {
    fn new(cwnd: u64) -> (Self, Arc<Mutex<Log>>) {
        let log = Arc::new(Mutex::new(Log::default()));
        (
            Self {
                cwnd,
                ssthresh: u64::MAX,
                pacing: None,
                log: log.clone(),
            },
            log,
        )
    }
}

impl CongestionControl for MockCc {
    fn name(&self) -> &'static str {
        "mock"
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        self.log.lock().unwrap().acks.push(*ev);
    }
    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.ssthresh = (ev.bytes_in_flight / 2).max(2 * ev.mss as u64);
        self.cwnd = self.ssthresh;
        self.log.lock().unwrap().losses.push(*ev);
    }
    fn on_timeout(&mut self, _now: Nanos, bytes_in_flight: u64, mss: u32) {
        self.ssthresh = (bytes_in_flight / 2).max(2 * mss as u64);
        self.cwnd = mss as u64;
        self.log.lock().unwrap().timeouts.push(bytes_in_flight);
    }
    fn undo_cwnd(&mut self, ev: &UndoEvent) {
        crate::cc::reno_undo(&mut self.cwnd, &mut self.ssthresh, ev);
        self.log.lock().unwrap().undos.push(*ev);
    }
    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        (self.cwnd, self.ssthresh) = crate::cc::idle_restart(self.cwnd, self.ssthresh, ev);
        self.log.lock().unwrap().restarts.push(*ev);
    }
    fn on_sent(&mut self, _now: Nanos, _bytes: u32, _in_flight: u64) {
        self.log.lock().unwrap().sent += 1;
    }
    fn on_established(&mut self, ev: &crate::cc::Established) {
        self.log.lock().unwrap().established.push(*ev);
    }
    fn on_recovery_end(&mut self, _now: Nanos) {
        let mut l = self.log.lock().unwrap();
        let n = l.acks.len();
        l.recovery_ends.push(n);
    }
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.pacing
    }
    fn paused(&self) -> bool {
        self.log.lock().unwrap().paused
    }
}

// ---------------------------------------------------------------- sending and windows

#[test]
fn initial_window_is_ten_segments_then_stops() {
    let mut s = reno_sender(&TcpConfig::default());
    s.write(u64::MAX);
    let segs = drain(&mut s, 0);
    assert_eq!(segs.len(), 10);
    for (i, g) in segs.iter().enumerate() {
        assert_eq!((g.seq, g.len, g.retransmit), (i as u64 * M, MSS, false));
    }
    assert!(drain(&mut s, 5 * MS).is_empty());
    assert_eq!(s.bytes_in_flight(), 10 * M);
    // RFC 6298 §2.1: 1 s before any RTT sample.
    assert_eq!(s.poll_timeout(), Some(1000 * MS));
}

#[test]
fn window_limits_sending_and_slow_start_opens_it() {
    let mut s = reno_sender(&TcpConfig::default());
    s.write(u64::MAX);
    drain(&mut s, 0);
    // ACK of two segments: cwnd 10 -> 12, flight 8 -> four segments may go.
    s.on_ack(100 * MS, &ack(2 * M));
    let segs = drain(&mut s, 100 * MS);
    assert_eq!(
        segs.iter().map(|g| g.seq / M).collect::<Vec<_>>(),
        vec![10, 11, 12, 13]
    );
    assert_eq!(s.cc().cwnd(), 12 * M);
    s.on_ack(101 * MS, &ack(4 * M));
    assert_eq!(drain(&mut s, 101 * MS).len(), 4);
    assert_eq!(s.bytes_in_flight(), 14 * M);
}

#[test]
fn finite_write_is_sent_exactly_and_acked() {
    let mut s = reno_sender(&TcpConfig::default());
    s.write(3000);
    let lens: Vec<u32> = drain(&mut s, 0).iter().map(|g| g.len).collect();
    assert_eq!(lens, vec![1448, 1448, 104]);
    assert!(!s.all_acked());
    s.on_ack(50 * MS, &ack(3000));
    assert!(s.all_acked());
    assert_eq!(
        s.poll_timeout(),
        None,
        "RFC 6298 §5.2: timer off when all data is acked"
    );
    s.write(100);
    let g = drain(&mut s, 60 * MS);
    assert_eq!((g[0].seq, g[0].len), (3000, 100));
}

#[test]
fn stop_writing_keeps_only_what_was_sent() {
    // Without tail loss probes: the RTO repairs the hole.
    let mut s = reno_sender(&TcpConfig {
        tlp: false,
        ..Default::default()
    });
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.stop_writing();
    s.on_ack(100 * MS, &ack(2 * M));
    assert!(
        drain(&mut s, 100 * MS).is_empty(),
        "nothing beyond what was in flight"
    );
    // A lost segment is still repaired after the application stopped.
    s.on_timeout(1000 * MS);
    assert_eq!(
        drain(&mut s, 1000 * MS)
            .iter()
            .map(|g| g.seq / M)
            .collect::<Vec<_>>(),
        vec![2]
    );
    s.on_ack(1100 * MS, &ack(10 * M));
    assert!(s.all_acked());
}

#[test]
fn receive_window_limits_outstanding_bytes() {
    let cfg = TcpConfig {
        rwnd: RwndConfig::Fixed { bytes: 5000 },
        ..Default::default()
    };
    let mut s = reno_sender(&cfg);
    s.write(u64::MAX);
    assert_eq!(drain(&mut s, 0).len(), 3, "4·1448 > 5000");
    s.on_ack(
        100 * MS,
        &Ack {
            ack: M,
            rwnd: 5000,
            ts_val: 0,
            ts_ecr: 0,
            ..Default::default()
        },
    );
    assert_eq!(drain(&mut s, 100 * MS).len(), 1);
    assert!(s.snd_max() - s.snd_una() <= 5000);
    // A window below one MSS still lets one partial segment out when nothing is in flight.
    let cfg = TcpConfig {
        rwnd: RwndConfig::Fixed { bytes: 1000 },
        ..Default::default()
    };
    let mut s = reno_sender(&cfg);
    s.write(u64::MAX);
    let segs = drain(&mut s, 0);
    assert_eq!(segs.iter().map(|g| g.len).collect::<Vec<_>>(), vec![1000]);
}

#[test]
fn pacing_spaces_segments() {
    let (mut cc, log) = MockCc::new(10 * M);
    cc.pacing = Some(M as f64 * 1000.0); // one segment per millisecond
    let mut s = sender_no_handshake(&TcpConfig::default(), Box::new(cc), 0, 0);
    s.write(u64::MAX);
    assert_eq!(drain(&mut s, 0).len(), 1);
    assert_eq!(s.poll_timeout(), Some(MS));
    assert!(drain(&mut s, MS - 1).is_empty());
    assert_eq!(drain(&mut s, MS).len(), 1);
    // Late wake-up: the pacer does not accumulate credit for the idle time.
    assert_eq!(drain(&mut s, 10 * MS).len(), 1);
    assert_eq!(s.poll_timeout(), Some(11 * MS));
    assert_eq!(log.lock().unwrap().sent, 3);
}

#[test]
fn a_paused_controller_holds_new_data_even_with_an_empty_pipe() {
    for cfg in [TcpConfig::default(), newreno()] {
        let (cc, log) = MockCc::new(10 * M);
        let mut s = sender_no_handshake(&cfg, Box::new(cc), 0, 0);
        s.write(u64::MAX);
        log.lock().unwrap().paused = true;
        assert!(
            drain(&mut s, 0).is_empty(),
            "not even the one segment an empty pipe allows"
        );
        assert_eq!(s.poll_timeout(), None);
        log.lock().unwrap().paused = false;
        assert_eq!(drain(&mut s, MS).len(), 10);
        s.on_ack(50 * MS, &ack(10 * M));
        log.lock().unwrap().paused = true;
        assert!(drain(&mut s, 50 * MS).is_empty());
        log.lock().unwrap().paused = false;
        assert_eq!(drain(&mut s, 60 * MS).len(), 10);
    }
}

#[test]
fn a_paused_controller_still_gets_its_retransmissions_out() {
    let (cc, log) = MockCc::new(10 * M);
    let mut s = sender_no_handshake(&newreno(), Box::new(cc), 0, 0);
    s.write(u64::MAX);
    drain(&mut s, 0);
    log.lock().unwrap().paused = true;
    for i in 0..3 {
        s.on_ack((50 + i) * MS, &ack(0));
    }
    // Fast retransmit (RFC 6582: at once, whatever the window) is not new data: it goes.
    let segs = drain(&mut s, 53 * MS);
    assert_eq!(
        segs.iter()
            .map(|g| (g.seq, g.retransmit))
            .collect::<Vec<_>>(),
        vec![(0, true)]
    );
}

#[test]
fn spurious_timeout_calls_do_nothing() {
    let mut s = reno_sender(&TcpConfig::default());
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_timeout(999 * MS);
    assert_eq!(s.stats().timeouts, 0);
    assert!(drain(&mut s, 999 * MS).is_empty());
    let mut idle = reno_sender(&TcpConfig::default());
    idle.on_timeout(5000 * MS);
    assert_eq!(idle.poll_timeout(), None);
    assert!(drain(&mut idle, 5000 * MS).is_empty());
}

#[test]
fn timers_fire_on_linuxs_timer_wheel_when_asked() {
    // The first RTO (1 s, 250 jiffies: wheel level 1, 8-jiffy granules) armed at 5 ms
    // (jiffy 1): expires at jiffy 251, fires at 256 = 1024 ms.
    let mut s = reno_sender(&TcpConfig {
        sack: false,
        timer_hz: 250,
        ..Default::default()
    });
    s.write(u64::MAX);
    drain(&mut s, 5 * MS);
    assert_eq!(s.poll_timeout(), Some(1024 * MS));
    s.on_timeout(1006 * MS);
    assert_eq!(s.stats().timeouts, 0, "not before the wheel fires");
    s.on_timeout(1024 * MS);
    assert_eq!(s.stats().timeouts, 1);
    // The delayed ACK (40 ms = 10 jiffies, level 0) armed at 1 ms fires at jiffy 11.
    let mut r = TcpReceiver::new(
        &TcpConfig {
            timer_hz: 250,
            ..rfc5681_receiver()
        },
        0,
        0,
    );
    r.on_segment(MS, &seg(0));
    assert_eq!(r.poll_timeout(), Some(44 * MS));
    // Exact timers by default.
    let mut r = TcpReceiver::new(&rfc5681_receiver(), 0, 0);
    r.on_segment(MS, &seg(0));
    assert_eq!(r.poll_timeout(), Some(41 * MS));
}

// ---------------------------------------------------------------- receiver

#[test]
fn delayed_ack_every_second_segment_and_40ms_timer() {
    let rfc = rfc5681_receiver();
    let mut r = TcpReceiver::new(&rfc, 0, 0);
    r.on_segment(MS, &seg(0));
    assert_eq!(r.poll_ack(MS), None);
    assert_eq!(r.poll_timeout(), Some(41 * MS));
    r.on_timeout(20 * MS);
    assert_eq!(r.poll_ack(20 * MS), None, "early timer call is ignored");
    r.on_segment(2 * MS, &seg(1));
    assert_eq!(r.poll_ack(2 * MS).map(|a| a.ack), Some(2 * M));
    assert_eq!(r.poll_timeout(), None);
    r.on_segment(3 * MS, &seg(2));
    assert_eq!(r.poll_ack(3 * MS), None);
    r.on_timeout(43 * MS);
    assert_eq!(r.poll_ack(43 * MS).map(|a| a.ack), Some(3 * M));
    assert_eq!((r.stats().acks_sent, r.stats().delayed_acks), (2, 1));
    // Without delayed ACKs every segment is acknowledged.
    let cfg = TcpConfig {
        delayed_ack: false,
        ..rfc
    };
    let mut r = TcpReceiver::new(&cfg, 0, 0);
    for i in 0..3 {
        r.on_segment(MS, &seg(i));
        assert_eq!(r.poll_ack(MS).map(|a| a.ack), Some((i + 1) * M));
    }
}

/// Linux's quick-ACK mode (`tcp_incr_quickack`, `tcp_event_data_recv`,
/// `tcp_enter_quickack_mode`): the first data, data after a pause longer than the
/// receiver's RTO, and a duplicate segment are followed by up to 16 immediate ACKs.
#[test]
fn quick_acks_after_the_first_data_a_long_pause_and_a_duplicate_as_linux() {
    // Each segment at its own instant here (one ACK per burst has its own test).
    let cfg = TcpConfig {
        burst_acks: false,
        ..Default::default()
    };
    let mut r = TcpReceiver::new(&cfg, 0, 0);
    // Handshake: SYN at 0, SYN-ACK at 0, the sender's third segment 30 ms later:
    // RTT 30 ms, so the receiver's RTO is 30 + max(60, 200) = 230 ms.
    r.on_segment(
        0,
        &Segment {
            syn: true,
            len: 0,
            ..seg(0)
        },
    );
    assert!(r.poll_ack(0).is_some_and(|a| a.syn));
    r.on_segment(30 * MS, &Segment { len: 0, ..seg(0) });
    let quick = (r.advertised_window() as u64 / (2 * MSS as u64)).min(TCP_MAX_QUICKACKS as u64);
    assert!(quick >= 2, "the default window allows quick ACKs");
    let mut t = 31 * MS;
    let mut i = 0;
    let rx = |r: &mut TcpReceiver, t: Nanos, i: &mut u64| {
        r.on_segment(t, &seg(*i));
        *i += 1;
        r.poll_ack(t).map(|a| a.ack)
    };
    for k in 0..quick {
        assert_eq!(rx(&mut r, t, &mut i), Some((k + 1) * M), "quick ACK {k}");
        t += MS;
    }
    // Quick ACKs used up: every second segment again.
    assert_eq!(rx(&mut r, t, &mut i), None);
    assert!(rx(&mut r, t, &mut i).is_some());
    // A pause shorter than the RTO (229 ms): still delayed.
    t += 229 * MS;
    assert_eq!(rx(&mut r, t, &mut i), None);
    assert!(rx(&mut r, t, &mut i).is_some());
    // A pause longer than the RTO (231 ms): quick ACKs again.
    t += 231 * MS;
    for _ in 0..quick {
        assert_eq!(rx(&mut r, t, &mut i), Some(i * M));
        t += MS;
    }
    assert_eq!(rx(&mut r, t, &mut i), None);
    assert!(rx(&mut r, t, &mut i).is_some());
    // A duplicate segment: answered at once, and the segments after it too.
    r.on_segment(t, &seg(0));
    assert_eq!(r.poll_ack(t).map(|a| a.ack), Some(i * M));
    for _ in 1..quick {
        assert_eq!(rx(&mut r, t, &mut i), Some(i * M));
    }
    assert_eq!(rx(&mut r, t, &mut i), None);

    // Without the handshake the receiver's RTO is the initial 1 s; with `quickack` off,
    // RFC 5681 §4.2 only.
    let mut r = TcpReceiver::new(&cfg, 0, 0);
    let mut i = 0;
    for _ in 0..quick {
        assert!(rx(&mut r, MS, &mut i).is_some());
    }
    assert_eq!(rx(&mut r, MS, &mut i), None);
    let delack = r.poll_timeout().unwrap();
    r.on_timeout(delack);
    assert!(r.poll_ack(delack).is_some());
    assert_eq!(
        rx(&mut r, 999 * MS, &mut i),
        None,
        "a 998 ms pause is below 1 s"
    );
    assert!(rx(&mut r, 999 * MS, &mut i).is_some());
    assert!(
        rx(&mut r, 2000 * MS, &mut i).is_some(),
        "a 1001 ms pause is above it"
    );
    let mut r = TcpReceiver::new(&rfc5681_receiver(), 0, 0);
    let mut i = 0;
    assert_eq!(rx(&mut r, MS, &mut i), None);
    assert!(rx(&mut r, MS, &mut i).is_some());
    r.on_segment(2 * MS, &seg(0));
    assert!(
        r.poll_ack(2 * MS).is_some(),
        "a duplicate is still answered at once"
    );
    assert_eq!(rx(&mut r, 2 * MS, &mut i), None);
}

/// `burst_acks`: segments arriving in the same instant are ACKed once, when the last is in
/// (the receiver's timer at that instant, which the simulator runs after the instant's
/// other deliveries); immediate ACKs stay immediate.
#[test]
fn one_ack_per_burst_of_segments_arriving_together() {
    let cfg = TcpConfig {
        quickack: false,
        ..Default::default()
    };
    let mut r = TcpReceiver::new(&cfg, 0, 0);
    for i in 0..5 {
        r.on_segment(MS, &seg(i));
        assert_eq!(r.poll_ack(MS), None, "segment {i} of the burst");
    }
    assert_eq!(r.poll_timeout(), Some(MS), "an ACK due at the burst's instant");
    r.on_timeout(MS);
    assert_eq!(r.poll_ack(MS).map(|a| a.ack), Some(5 * M));
    assert_eq!(r.poll_timeout(), None);
    assert_eq!((r.stats().acks_sent, r.stats().delayed_acks), (1, 0));
    // A burst of one: the delayed-ACK timer.
    r.on_segment(2 * MS, &seg(5));
    assert_eq!(r.poll_timeout(), Some(42 * MS));
    r.on_timeout(2 * MS);
    assert_eq!(r.poll_ack(2 * MS), None);
    // Out of order within a burst: at once, and the burst's ACK is that one.
    r.on_segment(3 * MS, &seg(6));
    r.on_segment(3 * MS, &seg(8));
    assert_eq!(r.poll_ack(3 * MS).map(|a| a.ack), Some(7 * M));
    assert_eq!(r.poll_timeout(), None, "nothing left to acknowledge");
    // With quick ACKs (the default) the first segments are ACKed one by one.
    let mut r = TcpReceiver::new(&TcpConfig::default(), 0, 0);
    r.on_segment(MS, &seg(0));
    assert_eq!(r.poll_ack(MS).map(|a| a.ack), Some(M));
    r.on_segment(MS, &seg(1));
    assert_eq!(r.poll_ack(MS).map(|a| a.ack), Some(2 * M));
}

#[test]
fn out_of_order_gets_immediate_dupacks_and_hole_fill_is_acked_at_once() {
    let mut r = TcpReceiver::new(&rfc5681_receiver(), 0, 0);
    r.on_segment(MS, &seg(0));
    assert_eq!(r.poll_ack(MS), None);
    r.on_segment(2 * MS, &seg(2));
    let a1 = r.poll_ack(2 * MS).unwrap();
    assert_eq!(a1.ack, M, "out-of-order segment: immediate ACK of rcv_nxt");
    r.on_segment(3 * MS, &seg(3));
    let a2 = r.poll_ack(3 * MS).unwrap();
    assert_eq!(
        (a2.ack, a2.rwnd),
        (a1.ack, a1.rwnd),
        "a duplicate ACK with the same window"
    );
    assert_eq!(r.ooo_ranges(), 1, "[2, 4) coalesced");
    r.on_segment(4 * MS, &seg(1));
    assert_eq!(
        r.poll_ack(4 * MS).map(|a| a.ack),
        Some(4 * M),
        "hole filled: immediate ACK"
    );
    assert_eq!(r.ooo_ranges(), 0);
    r.on_segment(5 * MS, &seg(0));
    assert_eq!(
        r.poll_ack(5 * MS).map(|a| a.ack),
        Some(4 * M),
        "duplicate segment: immediate ACK"
    );
    assert_eq!(r.delivered(), 4 * M);
    let st = r.stats();
    assert_eq!(
        (
            st.out_of_order_segments,
            st.duplicate_segments,
            st.dup_acks_sent
        ),
        (2, 1, 2)
    );
}

#[test]
fn out_of_order_ranges_coalesce() {
    let mut r = TcpReceiver::new(&TcpConfig::default(), 0, 0);
    for i in [2, 6, 4, 3, 5, 9, 8] {
        r.on_segment(MS, &seg(i));
        r.poll_ack(MS);
    }
    assert_eq!(r.ooo_ranges(), 2, "[2, 7) and [8, 10)");
    r.on_segment(MS, &seg(4));
    assert_eq!(r.stats().duplicate_segments, 1);
    r.on_segment(MS, &seg(0));
    r.on_segment(MS, &seg(1));
    assert_eq!(r.delivered(), 7 * M);
    r.on_segment(MS, &seg(7));
    assert_eq!(r.delivered(), 10 * M);
    assert_eq!(r.ooo_ranges(), 0);
}

#[test]
fn timestamps_follow_rfc7323() {
    let mut r = TcpReceiver::new(&TcpConfig::default(), 0, 5000);
    let mk = |i: u64, ts: u32| Segment {
        ts_val: ts,
        ..seg(i)
    };
    r.on_segment(10 * MS, &mk(0, 100));
    r.on_segment(11 * MS + 700_000, &mk(1, 101));
    let a = r.poll_ack(11 * MS + 700_000).unwrap();
    // §4.3 (A): a delayed ACK echoes the earliest unacknowledged segment's TSval; the
    // ACK's TSval is the receiver clock (11 ms + offset).
    assert_eq!((a.ts_ecr, a.ts_val), (100, 5011));
    r.on_segment(12 * MS, &mk(3, 103));
    assert_eq!(
        r.poll_ack(12 * MS).unwrap().ts_ecr,
        100,
        "§4.3 (B): out-of-order segments do not update TS.Recent"
    );
    r.on_segment(13 * MS, &mk(2, 102));
    assert_eq!(
        r.poll_ack(13 * MS).unwrap().ts_ecr,
        102,
        "the hole-filling segment covers Last.ACK.sent"
    );
    // Sender: TSval = own clock + offset, TSecr = newest receiver TSval, never backwards.
    let mut s = sender_no_handshake(
        &TcpConfig::default(),
        Box::new(MockCc::new(20 * M).0),
        0,
        1000,
    );
    s.write(u64::MAX);
    let g = drain(&mut s, 3 * MS + 500_000);
    assert_eq!((g[0].ts_val, g[0].ts_ecr), (1003, 0));
    s.on_ack(
        50 * MS,
        &Ack {
            ack: M,
            rwnd: WND,
            ts_val: 7000,
            ts_ecr: 1003,
            ..Default::default()
        },
    );
    s.on_ack(
        51 * MS,
        &Ack {
            ack: M,
            rwnd: WND,
            ts_val: 6999,
            ts_ecr: 1003,
            ..Default::default()
        },
    );
    let g = drain(&mut s, 52 * MS);
    assert_eq!((g[0].ts_val, g[0].ts_ecr), (1052, 7000));
}

#[test]
fn ack_event_carries_timestamps_rates_and_flight() {
    let (cc, log) = MockCc::new(10 * M);
    let mut s = sender_no_handshake(&TcpConfig::default(), Box::new(cc), 0, 0);
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_ack(
        100 * MS,
        &Ack {
            ack: 10 * M,
            rwnd: WND,
            ts_val: 777,
            ts_ecr: 0,
            ..Default::default()
        },
    );
    let ev = log.lock().unwrap().acks[0];
    assert_eq!(
        (ev.acked_bytes, ev.ack_seq, ev.is_dup),
        (10 * M, 10 * M, false)
    );
    assert_eq!((ev.ts_val, ev.ts_ecr, ev.mss), (777, 0, MSS));
    assert_eq!(
        (ev.prior_in_flight, ev.bytes_in_flight, ev.delivered),
        (10 * M, 0, 10 * M)
    );
    assert_eq!(
        (ev.rtt_sample, ev.srtt, ev.min_rtt),
        (Some(100 * MS), 100 * MS, 100 * MS)
    );
    let rs = ev.rate_sample.unwrap();
    assert_eq!(
        (rs.delivered, rs.interval, rs.prior_delivered),
        (10 * M, 100 * MS, 0)
    );
    assert!((rs.delivery_rate - 10.0 * M as f64 / 0.1).abs() < 1e-6);
    assert!(!ev.in_recovery && !rs.is_app_limited);
}

#[test]
fn application_limited_sends_are_flagged() {
    let (cc, log) = MockCc::new(10 * M);
    let mut s = sender_no_handshake(&TcpConfig::default(), Box::new(cc), 0, 0);
    s.write(2 * M);
    assert_eq!(drain(&mut s, 0).len(), 2); // the final poll finds no data: app-limited
    s.write(2 * M);
    assert_eq!(drain(&mut s, MS).len(), 2);
    s.on_ack(100 * MS, &ack(4 * M));
    let ev = log.lock().unwrap().acks[0];
    assert!(ev.rate_sample.unwrap().is_app_limited);
}

// ---------------------------------------------------------------- loss recovery

#[test]
fn three_dupacks_fast_retransmit_exactly_the_lost_segment() {
    let mut s = reno_sender(&newreno());
    s.write(u64::MAX);
    drain(&mut s, 0);
    // Segment 0 lost; segments 1, 2 produce duplicate ACKs. Limited Transmit (RFC 3042)
    // sends one new segment for each of the first two.
    s.on_ack(100 * MS, &ack(0));
    assert_eq!(
        drain(&mut s, 100 * MS)
            .iter()
            .map(|g| g.seq / M)
            .collect::<Vec<_>>(),
        vec![10]
    );
    s.on_ack(101 * MS, &ack(0));
    assert_eq!(
        drain(&mut s, 101 * MS)
            .iter()
            .map(|g| g.seq / M)
            .collect::<Vec<_>>(),
        vec![11]
    );
    assert!(!s.in_recovery());
    s.on_ack(102 * MS, &ack(0));
    let segs = drain(&mut s, 102 * MS);
    assert_eq!(segs.len(), 1);
    assert_eq!(
        (segs[0].seq, segs[0].len, segs[0].retransmit),
        (0, MSS, true)
    );
    assert!(s.in_recovery());
    assert_eq!(s.stats().fast_retransmits, 1);
    // ssthresh = FlightSize/2, Limited-Transmit segments excluded (RFC 5681 §3.2 step 2).
    assert_eq!(s.cc().ssthresh(), 5 * M);
    // cwnd = ssthresh + 3·MSS.
    assert_eq!(s.cwnd(), 8 * M);
}

#[test]
fn limited_transmit_can_be_disabled() {
    let cfg = TcpConfig {
        limited_transmit: false,
        ..newreno()
    };
    let mut s = reno_sender(&cfg);
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(0));
    s.on_ack(100 * MS, &ack(0));
    assert!(drain(&mut s, 100 * MS).is_empty());
}

#[test]
fn newreno_partial_ack_retransmits_next_hole_and_full_ack_exits() {
    let cfg = TcpConfig {
        limited_transmit: false,
        ..newreno()
    };
    let mut s = reno_sender(&cfg);
    s.write(u64::MAX);
    drain(&mut s, 0);
    // Segments 0 and 5 lost: 1–4 and 6–9 yield eight duplicate ACKs.
    let mut sent = Vec::new();
    for i in 0..8 {
        s.on_ack((100 + i) * MS, &ack(0));
        sent.extend(drain(&mut s, (100 + i) * MS));
    }
    let seqs: Vec<u64> = sent.iter().map(|g| g.seq / M).collect();
    // The 3rd dupack retransmits segment 0; inflation to 5 + 8 = 13 MSS then lets
    // segments 10–12 out.
    assert_eq!(seqs, vec![0, 10, 11, 12]);
    assert!(sent[0].retransmit);
    // Partial ACK up to the second hole: retransmit segment 5 at once, deflate:
    // 13 − 5 + 1 = 9 MSS window, 8 in flight → one new segment.
    s.on_ack(200 * MS, &ack(5 * M));
    let segs = drain(&mut s, 200 * MS);
    assert_eq!(
        segs.iter()
            .map(|g| (g.seq / M, g.retransmit))
            .collect::<Vec<_>>(),
        vec![(5, true), (13, false)]
    );
    assert!(s.in_recovery());
    assert_eq!(s.cwnd(), 9 * M);
    // Full ACK (covers recover = 10 segments): recovery ends with cwnd = ssthresh.
    s.on_ack(300 * MS, &ack(12 * M));
    assert!(!s.in_recovery());
    assert_eq!(s.cc().cwnd(), s.cc().ssthresh());
    assert_eq!(s.cc().ssthresh(), 5 * M);
    assert_eq!(s.cwnd(), 5 * M);
    assert_eq!((s.stats().fast_retransmits, s.stats().retransmits), (1, 2));
    assert_eq!(s.stats().timeouts, 0);
}

#[test]
fn full_ack_is_seen_in_recovery_then_recovery_ends() {
    let (cc, log) = MockCc::new(10 * M);
    let cfg = TcpConfig {
        limited_transmit: false,
        ..newreno()
    };
    let mut s = sender_no_handshake(&cfg, Box::new(cc), 0, 0);
    s.write(u64::MAX);
    drain(&mut s, 0);
    for _ in 0..3 {
        s.on_ack(100 * MS, &ack(0));
    }
    drain(&mut s, 100 * MS);
    s.on_ack(200 * MS, &ack(10 * M));
    let l = log.lock().unwrap();
    assert_eq!(l.losses.len(), 1);
    assert_eq!(l.losses[0].bytes_in_flight, 10 * M);
    assert!(
        l.acks[2].is_dup && l.acks[2].in_recovery,
        "the 3rd dupack is processed in recovery"
    );
    assert!(
        l.acks[3].in_recovery,
        "the full ACK still belongs to recovery"
    );
    assert_eq!(
        l.recovery_ends,
        vec![4],
        "on_recovery_end follows on_ack of the full ACK"
    );
    assert_eq!(
        l.acks[3].rtt_sample, None,
        "Karn: segment 0 was retransmitted"
    );
}

#[test]
fn rto_follows_hand_computed_srtt_and_rttvar() {
    // No probe timer in the way of the RTO deadline.
    let mut s = reno_sender(&TcpConfig {
        tlp: false,
        ..Default::default()
    });
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(2 * M));
    // First sample R = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 100 + 4·50 = 300 ms.
    assert_eq!(s.rto(), 300 * MS);
    assert_eq!(
        s.poll_timeout(),
        Some(400 * MS),
        "RFC 6298 §5.3: restarted by the ACK"
    );
    drain(&mut s, 100 * MS);
    // Second sample R' = 250 ms (segment 3, sent at 0):
    // RTTVAR = 3/4·50 + 1/4·|100 − 250| = 75; SRTT = 7/8·100 + 1/8·250 = 118.75;
    // RTO = 118.75 + 4·75 = 418.75 ms.
    s.on_ack(250 * MS, &ack(4 * M));
    assert_eq!(s.srtt(), 118_750_000);
    assert_eq!(s.rto(), 418_750_000);
    let st = s.stats();
    assert_eq!(
        (st.rtt_samples, st.min_rtt, st.latest_rtt),
        (2, 100 * MS, 250 * MS)
    );
}

#[test]
fn rto_has_a_200ms_floor() {
    let mut s = reno_sender(&TcpConfig {
        rto_estimator: RtoEstimator::Rfc6298,
        ..Default::default()
    });
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_ack(10 * MS, &ack(M));
    // RFC 6298: 10 + 4·5 = 30 ms < 200 ms.
    assert_eq!(s.rto(), 200 * MS);
    // Linux: the floor bounds the variation term, RTO = 10 + max(2·10, 200) ms.
    let mut s = reno_sender(&TcpConfig::default());
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_ack(10 * MS, &ack(M));
    assert_eq!(s.rto(), 210 * MS);
}

#[test]
fn rto_backs_off_and_karn_ignores_retransmitted_segments() {
    let mut s = reno_sender(&newreno());
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(M)); // RTO 300 ms, deadline 400 ms
    drain(&mut s, 100 * MS);
    s.on_timeout(399 * MS);
    assert_eq!(s.stats().timeouts, 0);
    s.on_timeout(400 * MS);
    assert_eq!(s.stats().timeouts, 1);
    assert_eq!(s.rto(), 600 * MS);
    assert_eq!(s.cc().cwnd(), M);
    let segs = drain(&mut s, 400 * MS);
    assert_eq!(
        segs.iter()
            .map(|g| (g.seq, g.retransmit))
            .collect::<Vec<_>>(),
        vec![(M, true)]
    );
    assert_eq!(s.poll_timeout(), Some(1000 * MS));
    s.on_timeout(1000 * MS);
    assert_eq!(s.rto(), 1200 * MS);
    assert_eq!(drain(&mut s, 1000 * MS).len(), 1);
    assert_eq!(s.poll_timeout(), Some(2200 * MS));
    // The ACK of the twice-sent segment yields no RTT sample; the back-off stays.
    s.on_ack(1100 * MS, &ack(2 * M));
    assert_eq!(s.stats().rtt_samples, 1);
    assert_eq!(s.srtt(), 100 * MS);
    assert_eq!(s.rto(), 1200 * MS);
}

#[test]
fn go_back_n_after_timeout() {
    let mut s = reno_sender(&newreno());
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_timeout(1000 * MS);
    assert_eq!(s.cc().ssthresh(), 5 * M);
    let segs = drain(&mut s, 1000 * MS);
    assert_eq!(
        segs.iter()
            .map(|g| (g.seq / M, g.retransmit))
            .collect::<Vec<_>>(),
        vec![(0, true)]
    );
    s.on_ack(1100 * MS, &ack(M));
    // Slow start from 1 MSS: two segments, resent from snd_nxt = 1, not new data.
    let segs = drain(&mut s, 1100 * MS);
    assert_eq!(
        segs.iter()
            .map(|g| (g.seq / M, g.retransmit))
            .collect::<Vec<_>>(),
        vec![(1, true), (2, true)]
    );
    s.on_ack(1200 * MS, &ack(3 * M));
    let seqs: Vec<u64> = drain(&mut s, 1200 * MS).iter().map(|g| g.seq / M).collect();
    assert_eq!(seqs, vec![3, 4, 5, 6]);
    // The originals were only delayed: a jump over the go-back-N point resumes new data.
    s.on_ack(1300 * MS, &ack(10 * M));
    let segs = drain(&mut s, 1300 * MS);
    assert!(!segs.is_empty());
    assert_eq!((segs[0].seq, segs[0].retransmit), (10 * M, false));
}

#[test]
fn retransmissions_remember_when_their_bytes_were_first_sent() {
    let mut s = reno_sender(&newreno());
    s.write(u64::MAX);
    drain(&mut s, 5 * MS);
    assert_eq!(s.first_sent_of(0), Some(5 * MS));
    // Two timeouts resend segment 0; its first transmission stays at 5 ms.
    s.on_timeout(1005 * MS);
    assert_eq!(drain(&mut s, 1005 * MS)[0].seq, 0);
    s.on_timeout(3005 * MS);
    assert_eq!(drain(&mut s, 3005 * MS)[0].seq, 0);
    assert_eq!(s.stats().timeouts, 2);
    assert_eq!(s.first_sent_of(0), Some(5 * MS));
    assert_eq!(
        s.first_sent_of(M + 7),
        Some(5 * MS),
        "any byte of an outstanding segment"
    );
    s.on_ack(3105 * MS, &ack(M));
    assert_eq!(s.first_sent_of(0), None, "acknowledged bytes are forgotten");
}

#[test]
fn dupacks_after_timeout_do_not_start_fast_recovery() {
    let mut s = reno_sender(&newreno());
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_timeout(1000 * MS);
    drain(&mut s, 1000 * MS);
    s.on_ack(1100 * MS, &ack(M));
    drain(&mut s, 1100 * MS);
    for i in 0..4 {
        s.on_ack((1101 + i) * MS, &ack(M));
    }
    // RFC 6582 §4: the ACK does not cover `recover` (10 segments): no fast retransmit.
    assert_eq!(s.stats().fast_retransmits, 0);
    assert!(!s.in_recovery());
}

// ---------------------------------------------------------------- receive window

/// The largest window an auto-tuning receiver (rmem_max 300000) advertises to a sender
/// delivering 100 segments per 50 ms RTT, and its first ACK's window, under
/// `tcp_adv_win_scale` = `adv_win_scale`.
fn auto_tuning_windows(adv_win_scale: i8) -> (u32, u32) {
    let cfg = TcpConfig {
        rwnd: RwndConfig::AutoTuning {
            rmem_max: 300_000,
            rmem_initial: 65_536,
            adv_win_scale,
        },
        burst_acks: false,
        ..Default::default()
    };
    let mut r = TcpReceiver::new(&cfg, 0, 42);
    let (rtt, per_rtt) = (50 * MS, 100u64);
    let mut seq = 0;
    let mut last_edge = 0;
    let mut max_wnd = 0;
    let mut first_wnd = None;
    for round in 1..8u64 {
        for i in 0..per_rtt {
            let now = round * rtt + i * rtt / per_rtt;
            let ts_ecr = ts_clock(now - rtt, 42);
            r.on_segment(
                now,
                &Segment {
                    seq,
                    len: MSS,
                    ts_val: 9,
                    ts_ecr,
                    retransmit: false,
                    syn: false,
                },
            );
            seq += M;
            if let Some(a) = r.poll_ack(now) {
                let edge = a.ack + a.rwnd as u64;
                assert!(edge >= last_edge, "the right edge never moves left");
                last_edge = edge;
                max_wnd = max_wnd.max(a.rwnd);
                first_wnd.get_or_insert(a.rwnd);
            }
        }
    }
    (max_wnd, first_wnd.unwrap())
}

#[test]
fn auto_tuning_grows_the_window_up_to_rmem_max() {
    // 144800 bytes per RTT: 2·144800 + 16·MSS > rmem_max, so the window is capped.
    assert_eq!(auto_tuning_windows(0), (300_000, 65_536));
    let fixed = TcpConfig {
        rwnd: RwndConfig::Fixed { bytes: 20_000 },
        ..Default::default()
    };
    let mut r = TcpReceiver::new(&fixed, 0, 0);
    r.on_segment(MS, &seg(0));
    r.on_segment(MS, &seg(1));
    assert_eq!(r.poll_ack(MS).unwrap().rwnd, 20_000);
}

#[test]
fn auto_tuning_advertises_the_buffer_share_of_tcp_adv_win_scale() {
    // Linux's tcp_win_from_space: 2 (before 3.4) keeps 3/4 of the buffer, 1 (3.4-6.5) 1/2,
    // -1 also 1/2 (space >> 1), -2 1/4; both the cap and the initial window are scaled.
    assert_eq!(auto_tuning_windows(2), (225_000, 49_152));
    assert_eq!(auto_tuning_windows(1), (150_000, 32_768));
    assert_eq!(auto_tuning_windows(-1), (150_000, 32_768));
    assert_eq!(auto_tuning_windows(-2).0, 75_000);
    assert_eq!(crate::tcp::win_from_space(1000, 3), 875);
    let bad = TcpConfig {
        rwnd: RwndConfig::AutoTuning {
            rmem_max: 300_000,
            rmem_initial: 65_536,
            adv_win_scale: 32,
        },
        ..Default::default()
    };
    let e = bad.validate().unwrap_err();
    assert!(e.contains("adv_win_scale") && e.contains("[-31, 31]") && e.contains("32"), "{e}");
}

/// A policy that offers less and less: the receiver must still not shrink the window.
#[derive(Debug)]
struct Shrinking(u32);

impl ReceiveWindowPolicy for Shrinking {
    fn on_segment(&mut self, _now: Nanos, _seg: &Segment, _rcv_nxt: u64) {
        self.0 /= 4;
    }
    fn window(&self, _now: Nanos) -> u32 {
        self.0
    }
}

#[test]
fn receiver_never_shrinks_the_right_edge_and_freezes_it_on_dupacks() {
    let cfg = TcpConfig {
        delayed_ack: false,
        ..Default::default()
    };
    let mut r = TcpReceiver::with_policy(&cfg, Box::new(Shrinking(1 << 20)), 0, 0);
    assert_eq!(r.advertised_window(), 1 << 20);
    r.on_segment(MS, &seg(0));
    let a = r.poll_ack(MS).unwrap();
    assert_eq!(a.ack + a.rwnd as u64, 1 << 20);
    r.on_segment(MS, &seg(1));
    let b = r.poll_ack(MS).unwrap();
    assert_eq!(b.ack + b.rwnd as u64, 1 << 20);
    r.on_segment(MS, &seg(5));
    let c = r.poll_ack(MS).unwrap();
    assert_eq!((c.ack, c.rwnd), (b.ack, b.rwnd));
}

// ---------------------------------------------------------------- configuration

#[test]
fn config_defaults_serde_and_validation() {
    use schemars::_serde_json as json;
    let c = TcpConfig::default();
    assert_eq!(
        (
            c.mss,
            c.initial_window,
            c.min_rto_ms,
            c.initial_rto_ms,
            c.max_rto_ms
        ),
        (1448, 10, 200, 1000, 120_000)
    );
    assert_eq!(
        (
            c.delayed_ack,
            c.delayed_ack_timeout_ms,
            c.delayed_ack_segments
        ),
        (true, 40, 2)
    );
    assert_eq!((c.sack, c.prr), (true, true), "Linux: tcp_sack = 1, PRR");
    let parsed: TcpConfig = json::from_str(r#"{"sack": false}"#).unwrap();
    assert_eq!((parsed.sack, parsed.prr), (false, true));
    assert_eq!(
        c.rwnd,
        RwndConfig::AutoTuning {
            rmem_max: 6_291_456,
            rmem_initial: 131_072,
            adv_win_scale: 0
        }
    );
    assert!(c.validate().is_ok());
    let parsed: TcpConfig =
        json::from_str(r#"{"mss": 1000, "rwnd": {"kind": "fixed", "bytes": 65535}}"#).unwrap();
    assert_eq!(parsed.mss, 1000);
    assert_eq!(parsed.initial_window, 10);
    assert_eq!(parsed.rwnd, RwndConfig::Fixed { bytes: 65_535 });
    let parsed: TcpConfig =
        json::from_str(r#"{"rwnd": {"kind": "auto_tuning", "rmem_max": 1000000}}"#).unwrap();
    assert_eq!(
        parsed.rwnd,
        RwndConfig::AutoTuning {
            rmem_max: 1_000_000,
            rmem_initial: 131_072,
            adv_win_scale: 0
        }
    );
    assert!(json::from_str::<TcpConfig>(r#"{"msss": 1}"#).is_err());
    assert!(
        json::from_str::<TcpConfig>(r#"{"rwnd": {"kind": "fixed", "bytes": 1, "x": 2}}"#).is_err()
    );
    let back: TcpConfig = json::from_str(&json::to_string(&c).unwrap()).unwrap();
    assert_eq!(back, c);
    let e = TcpConfig {
        min_rto_ms: 500,
        initial_rto_ms: 300,
        ..Default::default()
    }
    .validate()
    .unwrap_err();
    assert!(e.contains("initial_rto_ms"), "{e}");
    let e = TcpConfig {
        rwnd: RwndConfig::Fixed { bytes: 0 },
        ..Default::default()
    }
    .validate()
    .unwrap_err();
    assert!(e.contains("rwnd") && e.contains("bytes"), "{e}");
    let e = TcpConfig {
        mss: 0,
        ..Default::default()
    }
    .validate()
    .unwrap_err();
    assert!(e.contains("mss"), "{e}");
    let schema = json::to_string(&schemars::schema_for!(TcpConfig)).unwrap();
    assert!(schema.contains("auto_tuning") && schema.contains("delayed_ack_timeout_ms"));
}

// ---------------------------------------------------------------- loopback harness

/// A drop-tail bottleneck: FIFO of `capacity` packets served at `rate_bps`, followed by a
/// fixed propagation delay.
struct Link {
    rate_bps: u64,
    delay: Nanos,
    capacity: usize,
    busy_until: Nanos,
    /// Departure times of the packets still in the queue (or being served).
    queue: VecDeque<Nanos>,
}

impl Link {
    fn new(rate_bps: u64, delay: Nanos, capacity: usize) -> Self {
        Self {
            rate_bps,
            delay,
            capacity,
            busy_until: 0,
            queue: VecDeque::new(),
        }
    }

    /// Arrival time at the far end, or `None` if the queue is full.
    fn send(&mut self, now: Nanos, wire_bytes: u32) -> Option<Nanos> {
        while self.queue.front().is_some_and(|&d| d <= now) {
            self.queue.pop_front();
        }
        if self.queue.len() >= self.capacity {
            return None;
        }
        let departure =
            self.busy_until.max(now) + serialization_time(wire_bytes as u64, self.rate_bps);
        self.busy_until = departure;
        self.queue.push_back(departure);
        Some(departure + self.delay)
    }
}

struct Outcome {
    sender: TcpSender,
    receiver: TcpReceiver,
    finish: Nanos,
    link_drops: u64,
    /// Every retransmission: (time, sequence number).
    retx: Vec<(Nanos, u64)>,
    /// Recovery episodes: (start, end) as seen after each ACK.
    recoveries: Vec<(Nanos, Nanos)>,
}

/// Transfers `size` bytes over `link` (data direction) and a fixed-delay ACK path; `drop`
/// decides which transmissions are lost before the link.
fn transfer(
    cc: Box<dyn CongestionControl>,
    size: u64,
    link: Link,
    drop: impl FnMut(&Segment) -> bool,
) -> Outcome {
    transfer_cfg(&TcpConfig::default(), cc, size, link, drop)
}

/// [`transfer`] with both endpoints built from `cfg`.
fn transfer_cfg(
    cfg: &TcpConfig,
    cc: Box<dyn CongestionControl>,
    size: u64,
    mut link: Link,
    mut drop: impl FnMut(&Segment) -> bool,
) -> Outcome {
    let mut sender = sender_no_handshake(cfg, cc, 0, 1_000);
    let mut receiver = TcpReceiver::new(cfg, 0, 77_000);
    let ack_delay = link.delay;
    sender.write(size);
    let mut to_rx: VecDeque<(Nanos, Segment)> = VecDeque::new();
    let mut to_tx: VecDeque<(Nanos, Ack)> = VecDeque::new();
    let mut now = 0;
    let mut link_drops = 0;
    let mut retx = Vec::new();
    let mut recoveries: Vec<(Nanos, Nanos)> = Vec::new();
    let mut recovery_start = None;
    for _ in 0..10_000_000 {
        while let Some(seg) = sender.poll_transmit(now) {
            if seg.retransmit {
                retx.push((now, seg.seq));
            }
            if drop(&seg) {
                continue;
            }
            match link.send(now, seg.len + TCP_HEADER_BYTES) {
                Some(at) => to_rx.push_back((at, seg)),
                None => link_drops += 1,
            }
        }
        if sender.all_acked() {
            return Outcome {
                sender,
                receiver,
                finish: now,
                link_drops,
                retx,
                recoveries,
            };
        }
        let next = [
            to_rx.front().map(|x| x.0),
            to_tx.front().map(|x| x.0),
            sender.poll_timeout(),
            receiver.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
        .expect("a stalled connection");
        assert!(next >= now, "time went backwards");
        now = next;
        while to_rx.front().is_some_and(|x| x.0 <= now) {
            let (_, seg) = to_rx.pop_front().unwrap();
            receiver.on_segment(now, &seg);
            if let Some(a) = receiver.poll_ack(now) {
                to_tx.push_back((now + ack_delay, a));
            }
        }
        if receiver.poll_timeout().is_some_and(|t| t <= now) {
            receiver.on_timeout(now);
            if let Some(a) = receiver.poll_ack(now) {
                to_tx.push_back((now + ack_delay, a));
            }
        }
        while to_tx.front().is_some_and(|x| x.0 <= now) {
            let (_, a) = to_tx.pop_front().unwrap();
            sender.on_ack(now, &a);
            match (recovery_start, sender.in_recovery()) {
                (None, true) => recovery_start = Some(now),
                (Some(t), false) => {
                    recoveries.push((t, now));
                    recovery_start = None;
                }
                _ => {}
            }
        }
        if sender.poll_timeout().is_some_and(|t| t <= now) {
            sender.on_timeout(now);
        }
    }
    panic!("transfer did not finish");
}

fn reno_cc() -> Box<dyn CongestionControl> {
    Box::new(Reno::new(&RenoConfig::default(), MSS, 10 * M))
}

const MB: u64 = 1_000_000;

#[test]
fn loopback_transfers_one_megabyte_exactly() {
    // 20 Mbit/s, 20 ms each way, a queue deep enough for slow start's overshoot.
    let out = transfer(reno_cc(), MB, Link::new(20_000_000, 20 * MS, 1000), |_| {
        false
    });
    assert_eq!(out.receiver.delivered(), MB);
    assert!(out.sender.all_acked());
    let st = out.sender.stats();
    assert_eq!((st.retransmits, st.timeouts, out.link_drops), (0, 0, 0));
    assert_eq!(st.bytes_sent, MB);
    assert_eq!(out.receiver.stats().bytes_received, MB);
    // Serialization alone takes 8·(1e6 + 691·52)/20e6 ≈ 0.414 s; plus a few RTTs of slow start.
    assert!(
        out.finish > 414 * MS && out.finish < 1200 * MS,
        "finish {} ms",
        out.finish / MS
    );
    assert!(
        st.min_rtt >= 40 * MS && st.min_rtt < 45 * MS,
        "min_rtt {}",
        st.min_rtt
    );
}

#[test]
fn loopback_single_loss_recovers_by_fast_retransmit() {
    let mut dropped = false;
    let out = transfer(reno_cc(), MB, Link::new(20_000_000, 20 * MS, 1000), |g| {
        let hit = g.seq == 200 * M && !g.retransmit && !dropped;
        dropped |= hit;
        hit
    });
    assert!(dropped);
    assert_eq!(out.receiver.delivered(), MB);
    let st = out.sender.stats();
    assert_eq!(
        (st.fast_retransmits, st.timeouts, st.retransmits),
        (1, 0, 1)
    );
    assert_eq!(out.receiver.stats().duplicate_segments, 0);
}

#[test]
fn loopback_survives_drop_tail_overflow() {
    for cc in [
        reno_cc(),
        Box::new(Cubic::new(&CubicConfig::default(), MSS, 10 * M)) as Box<dyn CongestionControl>,
    ] {
        let name = cc.name();
        let out = transfer(cc, 2 * MB, Link::new(10_000_000, 10 * MS, 20), |_| false);
        assert_eq!(out.receiver.delivered(), 2 * MB, "{name}");
        assert!(out.link_drops > 0, "{name}: the small queue must overflow");
        assert!(out.sender.stats().fast_retransmits > 0, "{name}");
    }
}

#[test]
fn loopback_recovers_from_a_lost_retransmission_by_timeout() {
    // Segment 50 and its first retransmission are lost: NewReno needs the RTO.
    let mut drops = 0;
    let out = transfer_cfg(
        &newreno(),
        reno_cc(),
        MB / 2,
        Link::new(20_000_000, 20 * MS, 1000),
        |g| {
            let hit = g.seq == 50 * M && drops < 2;
            drops += hit as u32;
            hit
        },
    );
    assert_eq!(out.receiver.delivered(), MB / 2);
    let st = out.sender.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 1));
}

#[test]
fn loopback_sack_detects_a_lost_retransmission_without_timeout() {
    // As above with SACK: new data sent after the first retransmission of segment 50 is
    // SACKed, so that retransmission is known lost and resent at once, without the RTO.
    let mut drops = 0;
    let out = transfer(
        reno_cc(),
        MB / 2,
        Link::new(20_000_000, 20 * MS, 1000),
        |g| {
            let hit = g.seq == 50 * M && drops < 2;
            drops += hit as u32;
            hit
        },
    );
    assert_eq!(out.receiver.delivered(), MB / 2);
    let st = out.sender.stats();
    assert_eq!(
        (st.fast_retransmits, st.timeouts, st.lost_retransmits),
        (1, 0, 1)
    );
    assert_eq!(
        out.retx.iter().map(|r| r.1 / M).collect::<Vec<_>>(),
        vec![50, 50]
    );
    assert_eq!(out.receiver.stats().duplicate_segments, 0);
}

// ---------------------------------------------------------------- SACK

/// An ACK of `cum` segments carrying SACK blocks given in segment numbers.
fn sack_ack(cum: u64, blocks: &[(u64, u64)]) -> Ack {
    let mut a = ack(cum * M);
    for &(s, e) in blocks {
        assert!(a.push_sack(s * M, e * M));
    }
    a
}

/// Sequence numbers in segments.
fn seqs(segs: &[Segment]) -> Vec<u64> {
    segs.iter().map(|g| g.seq / M).collect()
}

/// SACK blocks in segments.
fn blocks(a: &Ack) -> Vec<(u64, u64)> {
    a.sack_blocks()
        .iter()
        .map(|&(s, e)| (s / M, e / M))
        .collect()
}

#[test]
fn ack_sack_option_is_fixed_size() {
    let mut a = Ack::default();
    assert_eq!((a.sack_blocks().len(), a.sack_option_bytes()), (0, 0));
    for (i, bytes) in [(0u64, 12), (1, 20), (2, 28)] {
        assert!(a.push_sack(i * 10, i * 10 + 5));
        assert_eq!(a.sack_option_bytes(), bytes);
    }
    assert!(
        !a.push_sack(100, 200),
        "three blocks fill the options next to timestamps"
    );
    assert_eq!(a.sack_blocks(), &[(0, 5), (10, 15), (20, 25)]);
    assert_eq!(
        TCP_HEADER_BYTES + a.sack_option_bytes(),
        80,
        "20 IP + 20 TCP + 40 option bytes"
    );
}

#[test]
fn receiver_reports_sack_blocks_most_recent_first() {
    fn rx(r: &mut TcpReceiver, i: u64) -> Option<Ack> {
        r.on_segment(MS, &seg(i));
        r.poll_ack(MS)
    }
    let mut r = TcpReceiver::new(
        &TcpConfig {
            dsack: false,
            ..rfc5681_receiver()
        },
        0,
        0,
    );
    assert_eq!(rx(&mut r, 0), None, "in order: delayed, nothing to SACK");
    let a = rx(&mut r, 2).unwrap();
    assert_eq!((a.ack, blocks(&a)), (M, vec![(2, 3)]));
    assert_eq!(blocks(&rx(&mut r, 4).unwrap()), vec![(4, 5), (2, 3)]);
    assert_eq!(
        blocks(&rx(&mut r, 6).unwrap()),
        vec![(6, 7), (4, 5), (2, 3)]
    );
    // At most three blocks: the least recently reported one drops out.
    assert_eq!(
        blocks(&rx(&mut r, 8).unwrap()),
        vec![(8, 9), (6, 7), (4, 5)]
    );
    // A segment joining two blocks: the coalesced block comes first, the blocks it absorbed
    // go, and the free slot is refilled from the buffered ranges.
    assert_eq!(
        blocks(&rx(&mut r, 7).unwrap()),
        vec![(6, 9), (4, 5), (2, 3)]
    );
    assert_eq!(blocks(&rx(&mut r, 3).unwrap()), vec![(2, 5), (6, 9)]);
    // A duplicate of buffered data moves its block to the front (no D-SACK).
    assert_eq!(blocks(&rx(&mut r, 8).unwrap()), vec![(6, 9), (2, 5)]);
    assert_eq!(
        blocks(&rx(&mut r, 10).unwrap()),
        vec![(10, 11), (6, 9), (2, 5)]
    );
    // Hole-filling segments: blocks below the cumulative ACK are no longer reported.
    let a = rx(&mut r, 1).unwrap();
    assert_eq!((a.ack, blocks(&a)), (5 * M, vec![(10, 11), (6, 9)]));
    let a = rx(&mut r, 5).unwrap();
    assert_eq!((a.ack, blocks(&a)), (9 * M, vec![(10, 11)]));
    let a = rx(&mut r, 9).unwrap();
    assert_eq!((a.ack, a.sack_len, a.sack_option_bytes()), (11 * M, 0, 0));
    assert_eq!(r.stats().duplicate_segments, 1);
    // Without SACK the same arrival carries no block.
    let mut r = TcpReceiver::new(&newreno(), 0, 0);
    rx(&mut r, 0);
    let a = rx(&mut r, 2).unwrap();
    assert_eq!((a.ack, a.sack_len), (M, 0));
}

#[test]
fn sacked_bytes_count_as_delivered_and_leave_the_pipe() {
    let (cc, log) = MockCc::new(10 * M);
    let mut s = sender_no_handshake(&TcpConfig::default(), Box::new(cc), 0, 0);
    s.write(u64::MAX);
    drain(&mut s, 0);
    assert!(s.sack_active(), "SACK-permitted, as in the handshake");
    // Segment 0 is delayed; segment 1 is SACKed at 100 ms.
    s.on_ack(100 * MS, &sack_ack(0, &[(1, 2)]));
    let ev = log.lock().unwrap().acks[0];
    assert_eq!((ev.acked_bytes, ev.is_dup, ev.delivered), (0, true, M));
    assert_eq!(
        (ev.prior_in_flight, ev.bytes_in_flight),
        (10 * M, 9 * M),
        "pipe excludes SACKed bytes"
    );
    let rs = ev.rate_sample.unwrap();
    assert_eq!((rs.delivered, rs.interval), (M, 100 * MS));
    assert_eq!(
        ev.rtt_sample,
        Some(100 * MS),
        "a SACKed, never retransmitted segment is an RTT sample"
    );
    // Limited Transmit through pipe (RFC 6675 §5 step 1): one new segment.
    assert_eq!(seqs(&drain(&mut s, 100 * MS)), vec![10]);
    // Segment 0 arrives (reordering): the cumulative ACK of ten segments delivers nine new
    // ones; the SACKed one is not counted twice.
    s.on_ack(110 * MS, &ack(10 * M));
    let ev = log.lock().unwrap().acks[1];
    assert_eq!(
        (ev.acked_bytes, ev.delivered, ev.bytes_in_flight),
        (10 * M, 10 * M, M)
    );
    assert_eq!(s.delivered(), 10 * M);
    assert_eq!(s.stats().bytes_sacked, M);
    assert_eq!((s.stats().fast_retransmits, s.stats().retransmits), (0, 0));
}

#[test]
fn sack_recovery_starts_when_three_segments_are_sacked_above_the_hole() {
    // One ACK (the two before it were lost) SACKs three segments: IsLost(snd_una) holds
    // although this is the first duplicate ACK (RFC 6675 §5).
    let (cc, log) = MockCc::new(10 * M);
    let mut s = sender_no_handshake(&TcpConfig::default(), Box::new(cc), 0, 0);
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_ack(100 * MS, &sack_ack(0, &[(1, 4)]));
    assert!(s.in_recovery());
    assert_eq!(
        (
            s.stats().fast_retransmits,
            s.stats().sack_recoveries,
            s.stats().dup_acks
        ),
        (1, 1, 1)
    );
    assert_eq!(
        log.lock().unwrap().losses[0].bytes_in_flight,
        10 * M,
        "pipe before the ACK"
    );
    // PRR: cwnd = ssthresh = 5 segments, pipe = 10 − 3 SACKed − 1 lost: only the hole goes.
    let segs = drain(&mut s, 100 * MS);
    assert_eq!(
        segs.iter()
            .map(|g| (g.seq / M, g.retransmit))
            .collect::<Vec<_>>(),
        vec![(0, true)]
    );
    // Two SACKed segments are not enough (DupThresh = 3).
    let mut s = sender_no_handshake(&TcpConfig::default(), Box::new(MockCc::new(10 * M).0), 0, 0);
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_ack(100 * MS, &sack_ack(0, &[(1, 3)]));
    assert!(!s.in_recovery());
    assert_eq!(
        seqs(&drain(&mut s, 100 * MS)),
        vec![10, 11],
        "Limited Transmit: pipe fell by two"
    );
}

#[test]
fn prr_spreads_sending_over_recovery_and_plain_rule_waits_for_half_a_window() {
    // 20 segments out, segment 0 lost; SACKs for 1..19 arrive one by one.
    let run = |prr: bool| {
        let (cc, _log) = MockCc::new(20 * M);
        let cfg = TcpConfig {
            prr,
            ..Default::default()
        };
        let mut s = sender_no_handshake(&cfg, Box::new(cc), 0, 0);
        s.write(u64::MAX);
        drain(&mut s, 0);
        let mut per_ack = Vec::new();
        for i in 1..20 {
            s.on_ack((100 + i) * MS, &sack_ack(0, &[(1, i + 1)]));
            per_ack.push(seqs(&drain(&mut s, (100 + i) * MS)));
        }
        (s, per_ack)
    };
    let e: Vec<u64> = Vec::new();
    // Limited Transmit sends 20 and 21; the third SACK starts recovery with ssthresh =
    // 20/2 (pipe before that ACK), RecoverFS = 22 segments. PRR (RFC 6937): about one
    // segment per 22/10 delivered, then (pipe ≤ ssthresh) one per ACK.
    let (s, per_ack) = run(true);
    let want = [
        vec![20],
        vec![21],
        vec![0],
        e.clone(),
        e.clone(),
        e.clone(),
        vec![22],
        e.clone(),
        vec![23],
        e.clone(),
        vec![24],
        e.clone(),
        vec![25],
        e.clone(),
        e.clone(),
        e.clone(),
        vec![26],
        vec![27],
        vec![28],
    ];
    assert_eq!(per_ack, want);
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh()), (10 * M, 10 * M));
    assert_eq!(
        s.cwnd(),
        s.bytes_in_flight(),
        "PRR's window is pipe + the unused quota"
    );
    // RFC 6675's plain rule: silence until pipe has fallen below cwnd (half a window of
    // ACKs), then one segment per ACK.
    let (_, per_ack) = run(false);
    let mut want = vec![vec![20], vec![21], vec![0]];
    want.extend(std::iter::repeat_n(e.clone(), 9));
    want.extend((22..=28).map(|i| vec![i]));
    assert_eq!(per_ack, want);
}

#[test]
fn after_a_timeout_sacked_segments_are_not_resent() {
    // Ten segments: only 2 and 5 arrive (two duplicate ACKs, no fast retransmit), then the
    // RTO. Afterwards every transmission arrives and is acknowledged at once.
    let run = |cfg: &TcpConfig| {
        let cfg = TcpConfig {
            delayed_ack: false,
            ..cfg.clone()
        };
        let mut s = reno_sender(&cfg);
        let mut r = TcpReceiver::new(&cfg, 0, 0);
        s.write(10 * M);
        for g in drain(&mut s, 0) {
            if g.seq == 2 * M || g.seq == 5 * M {
                r.on_segment(10 * MS, &g);
                s.on_ack(20 * MS, &r.poll_ack(10 * MS).unwrap());
            }
        }
        assert!(!s.in_recovery());
        s.on_timeout(1000 * MS);
        assert_eq!(s.stats().timeouts, 1);
        let mut resent = Vec::new();
        let mut now = 1000 * MS;
        while !s.all_acked() {
            let segs = drain(&mut s, now);
            assert!(!segs.is_empty(), "stalled");
            now += 50 * MS;
            for g in segs {
                assert!(g.retransmit);
                resent.push(g.seq / M);
                r.on_segment(now, &g);
                s.on_ack(now, &r.poll_ack(now).unwrap());
            }
        }
        (resent, r.stats().duplicate_segments)
    };
    // RFC 6675 §5.1: everything unSACKed is lost and resent in order, SACKed data never.
    let (resent, dups) = run(&TcpConfig::default());
    assert_eq!((resent, dups), (vec![0, 1, 3, 4, 6, 7, 8, 9], 0));
    // Go-back-N resends the flights [1, 2] and [3, 4, 5, 6] whole.
    let (resent, dups) = run(&newreno());
    assert_eq!((resent, dups), ((0..10).collect(), 2));
}

#[test]
fn sack_repairs_three_holes_within_one_rtt_newreno_needs_three() {
    // Segments 100, 105 and 110 are lost once, in one window (20 Mbit/s, 40 ms RTT).
    let drops = [100 * M, 105 * M, 110 * M];
    let run = |cfg: &TcpConfig| {
        let mut done = Vec::new();
        transfer_cfg(
            cfg,
            reno_cc(),
            MB,
            Link::new(20_000_000, 20 * MS, 1000),
            |g| {
                let hit = drops.contains(&g.seq) && !done.contains(&g.seq);
                if hit {
                    done.push(g.seq);
                }
                hit
            },
        )
    };
    for cfg in [
        TcpConfig::default(),
        TcpConfig {
            prr: false,
            ..Default::default()
        },
    ] {
        let out = run(&cfg);
        let st = out.sender.stats();
        let rtt = st.min_rtt;
        assert_eq!(out.receiver.delivered(), MB);
        assert_eq!(
            (st.fast_retransmits, st.sack_recoveries, st.timeouts),
            (1, 1, 0),
            "prr {}",
            cfg.prr
        );
        let retx: Vec<u64> = out.retx.iter().map(|r| r.1).collect();
        assert_eq!(retx, drops, "exactly the three holes, once each");
        assert_eq!(
            out.receiver.stats().duplicate_segments,
            0,
            "no SACKed data resent"
        );
        let (first, last) = (out.retx[0].0, out.retx[2].0);
        let (start, end) = out.recoveries[0];
        assert_eq!(start, first, "the first hole goes at recovery entry");
        assert!(
            last - first < rtt,
            "prr {}: all holes within one RTT: {} ms",
            cfg.prr,
            (last - first) / MS
        );
        assert!(
            end - start < 2 * rtt,
            "prr {}: recovery took {} ms",
            cfg.prr,
            (end - start) / MS
        );
    }
    // NewReno learns of one hole per partial ACK: one RTT per hole.
    let out = run(&newreno());
    let st = out.sender.stats();
    let rtt = st.min_rtt;
    assert_eq!(
        (st.fast_retransmits, st.sack_recoveries, st.timeouts),
        (1, 0, 0)
    );
    assert_eq!(out.retx.iter().map(|r| r.1).collect::<Vec<_>>(), drops);
    assert!(out.retx[2].0 - out.retx[0].0 >= 2 * rtt);
    let (start, end) = out.recoveries[0];
    assert!(
        end - start >= 3 * rtt,
        "NewReno recovery took {} ms",
        (end - start) / MS
    );
}

#[test]
fn loopback_sack_recovers_slow_start_overflow_without_timeout_and_much_faster() {
    // Slow start overshoots a 40-packet queue (50 Mbit/s, 40 ms RTT): dozens of losses
    // in one window.
    for cubic in [false, true] {
        let cc = || -> Box<dyn CongestionControl> {
            if cubic {
                Box::new(Cubic::new(
                    &CubicConfig {
                        hystart: false,
                        ..Default::default()
                    },
                    MSS,
                    10 * M,
                ))
            } else {
                reno_cc()
            }
        };
        let link = || Link::new(50_000_000, 20 * MS, 40);
        let name = if cubic { "cubic" } else { "reno" };
        let slow = transfer_cfg(&newreno(), cc(), MB, link(), |_| false);
        assert_eq!(slow.receiver.delivered(), MB, "{name}");
        for cfg in [
            TcpConfig::default(),
            TcpConfig {
                prr: false,
                ..Default::default()
            },
        ] {
            let out = transfer_cfg(&cfg, cc(), MB, link(), |_| false);
            let st = out.sender.stats();
            let tag = format!("{name}, prr {}", cfg.prr);
            assert_eq!(out.receiver.delivered(), MB, "{tag}");
            assert!(out.link_drops >= 20, "{tag}: {} drops", out.link_drops);
            assert!(st.sack_recoveries >= 1, "{tag}");
            assert_eq!(st.timeouts, 0, "{tag}");
            assert!(
                st.retransmits <= out.link_drops + 2,
                "{tag}: {} retransmits, {} drops",
                st.retransmits,
                out.link_drops
            );
            // The repair itself: NewReno learns of one hole per partial ACK, SACK of all of
            // them at once. Measured with Linux 6.18's receive-window auto-tuning: Reno 80
            // against 590 ms of recovery (finish 457 against 1185 ms), CUBIC 80 against
            // 321 ms (finish 432 against 731 ms: the transfer's other round trips are
            // common to both).
            let in_recovery = |o: &Outcome| o.recoveries.iter().map(|(a, b)| b - a).sum::<Nanos>();
            assert!(
                in_recovery(&slow) >= 2 * in_recovery(&out) && slow.finish > out.finish,
                "{tag}: SACK {} ms in recovery, done at {} ms; NewReno {} ms, done at {} ms",
                in_recovery(&out) / MS,
                out.finish / MS,
                in_recovery(&slow) / MS,
                slow.finish / MS
            );
        }
    }
}

mod handshake;
mod recovery;
