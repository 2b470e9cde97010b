//! The three-way handshake (RFC 9293 §3.5) as Linux's active and passive opens do it,
//! driven by hand-built packet sequences: what goes first, the SYN's retransmission and the
//! window after it (`tcp_init_transfer`), the RTT sample it seeds (`tcp_ack_update_rtt`),
//! BBR's RTprop (`bbr_init`) and the receiver's SYN-ACK.

use super::*;
use crate::cc::bbr::{Bbr, BbrConfig};
use crate::wire::TCP_SYN_HEADER_BYTES;
use cellshare_core::SEC;

/// A sender with the handshake on (the default) and a [`MockCc`] of `cwnd_segs` segments.
fn hs_sender(cwnd_segs: u64) -> (TcpSender, Arc<Mutex<Log>>) {
    let (cc, log) = MockCc::new(cwnd_segs * M);
    (
        TcpSender::new(&TcpConfig::default(), Box::new(cc), 0, 1000),
        log,
    )
}

fn reno_hs_sender() -> TcpSender {
    let cfg = TcpConfig::default();
    let cc = Reno::new(&RenoConfig::default(), cfg.mss, cfg.initial_window_bytes());
    TcpSender::new(&cfg, Box::new(cc), 0, 1000)
}

/// The receiver's SYN-ACK to `syn` at `now`.
fn syn_ack(r: &mut TcpReceiver, now: Nanos, syn: &Segment) -> Ack {
    r.on_segment(now, syn);
    let a = r.poll_ack(now).expect("a SYN-ACK");
    assert!(a.syn);
    assert_eq!(r.poll_ack(now), None);
    a
}

#[test]
fn syn_first_then_the_third_segment_and_data_after_the_syn_ack() {
    assert!(TcpConfig::default().handshake, "on by default, as Linux");
    assert_eq!(TCP_SYN_HEADER_BYTES, 60);
    let (mut s, log) = hs_sender(10);
    let mut r = TcpReceiver::new(&TcpConfig::default(), 0, 500);
    // Nothing before the application writes; then the SYN alone.
    assert_eq!(s.poll_transmit(0), None);
    s.write(u64::MAX);
    let out = drain(&mut s, 0);
    assert_eq!(out.len(), 1);
    let syn = out[0];
    assert!(syn.syn && syn.len == 0 && !syn.retransmit);
    assert!(!s.established());
    assert_eq!(s.poll_timeout(), Some(SEC), "TCP_TIMEOUT_INIT");
    // The SYN-ACK echoes the SYN's timestamp and offers an unscaled window.
    let sa = syn_ack(&mut r, 12 * MS, &syn);
    assert_eq!(sa.ts_ecr, syn.ts_val);
    assert_eq!(sa.rwnd, u16::MAX as u32);
    // It reaches the sender 30 ms after the SYN left: the handshake's sample.
    s.on_ack(30 * MS, &sa);
    assert!(s.established());
    assert_eq!(s.handshake_rtt(), Some(30 * MS));
    assert_eq!(s.srtt(), 30 * MS);
    assert_eq!(s.stats().min_rtt, 30 * MS);
    assert_eq!(s.stats().rtt_samples, 1);
    // Linux's estimator after one sample: RTO = SRTT + max(2·R, 200 ms).
    assert_eq!(s.rto(), 230 * MS);
    let ev = log.lock().unwrap().established.clone();
    assert_eq!(ev.len(), 1);
    assert_eq!(
        (ev[0].now, ev[0].srtt, ev[0].min_rtt),
        (30 * MS, 30 * MS, 30 * MS)
    );
    // The third segment (a pure ACK) first, then the initial window, all echoing the
    // SYN-ACK's timestamp.
    let out = drain(&mut s, 30 * MS);
    assert_eq!(out.len(), 11);
    assert!(!out[0].syn && out[0].len == 0);
    assert!(out[1..].iter().all(|g| g.len == MSS && !g.syn));
    assert!(out.iter().all(|g| g.ts_ecr == sa.ts_val));
    // The receiver takes the third segment silently and ACKs data as usual.
    r.on_segment(42 * MS, &out[0]);
    assert_eq!(r.poll_ack(42 * MS), None);
    assert_eq!(r.stats().segments_received, 0);
    r.on_segment(42 * MS, &out[1]);
    r.on_segment(42 * MS, &out[2]);
    let a = r.poll_ack(42 * MS).unwrap();
    assert_eq!(a.ack, 2 * M);
    assert!(!a.syn);
    // An ACK of data is processed as before: a second sample.
    s.on_ack(60 * MS, &a);
    assert_eq!(s.snd_una(), 2 * M);
    assert_eq!(s.stats().rtt_samples, 2);
}

#[test]
fn without_the_handshake_data_goes_at_once() {
    let cfg = TcpConfig {
        handshake: false,
        ..Default::default()
    };
    let (cc, log) = MockCc::new(10 * M);
    let mut s = TcpSender::new(&cfg, Box::new(cc), 0, 0);
    s.write(u64::MAX);
    let out = drain(&mut s, 0);
    assert_eq!(out.len(), 10);
    assert!(out.iter().all(|g| !g.syn && g.len == MSS && g.ts_ecr == 0));
    assert_eq!(s.srtt(), 0);
    assert!(log.lock().unwrap().established.is_empty());
}

#[test]
fn a_lost_syn_is_resent_after_1_s_then_2_s_and_cwnd_follows_tcp_init_transfer() {
    // Two SYNs lost: resent at 1 s and 3 s (the timer doubles); the SYN-ACK answers the
    // third. `tcp_init_transfer`: more than one SYN retransmission → cwnd = 1 segment; the
    // first SYN timeout's `tcp_enter_loss` set ssthresh from the initial window (Reno: half).
    let mut s = reno_hs_sender();
    let mut r = TcpReceiver::new(&TcpConfig::default(), 0, 500);
    s.write(u64::MAX);
    let syn0 = drain(&mut s, 0)[0];
    s.on_timeout(SEC - 1);
    assert!(drain(&mut s, SEC - 1).is_empty(), "not before 1 s");
    s.on_timeout(SEC);
    let syn1 = drain(&mut s, SEC);
    assert_eq!(syn1.len(), 1);
    assert!(syn1[0].syn && syn1[0].retransmit);
    assert_eq!(s.poll_timeout(), Some(3 * SEC), "doubled: 2 s");
    s.on_timeout(3 * SEC);
    let syn2 = drain(&mut s, 3 * SEC)[0];
    assert!(syn2.syn && syn2.retransmit);
    assert_eq!((s.stats().retransmits, s.stats().timeouts), (2, 2));
    assert_eq!(s.syn_retransmits(), 2);
    let _ = syn0;
    let sa = syn_ack(&mut r, 3 * SEC + 10 * MS, &syn2);
    s.on_ack(3 * SEC + 25 * MS, &sa);
    assert!(s.established());
    // Karn: no sample from the SYN's send time; the echo of the third SYN's timestamp gives
    // 25 ms (1 ms ticks).
    assert_eq!(s.handshake_rtt(), Some(25 * MS));
    assert_eq!(s.cwnd(), M);
    assert_eq!(s.cc().ssthresh(), 5 * M);
    let out = drain(&mut s, 3 * SEC + 25 * MS);
    assert_eq!(out.len(), 2, "the third segment and one data segment");
}

#[test]
fn one_lost_syn_keeps_the_initial_window_and_a_delayed_one_is_undone() {
    // One retransmission: cwnd is the initial window again, ssthresh stays reduced.
    let mut s = reno_hs_sender();
    let mut r = TcpReceiver::new(&TcpConfig::default(), 0, 500);
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_timeout(SEC);
    let syn1 = drain(&mut s, SEC)[0];
    let sa = syn_ack(&mut r, SEC + 10 * MS, &syn1);
    s.on_ack(SEC + 20 * MS, &sa);
    assert_eq!(s.cwnd(), 10 * M);
    assert_eq!(s.cc().ssthresh(), 5 * M);
    assert_eq!(drain(&mut s, SEC + 20 * MS).len(), 11);

    // The first SYN was only delayed: the SYN-ACK echoes its timestamp, older than the
    // retransmission (Eifel, `tcp_try_undo_loss`): no reduction at all.
    let mut s = reno_hs_sender();
    let mut r = TcpReceiver::new(&TcpConfig::default(), 0, 500);
    s.write(u64::MAX);
    let syn0 = drain(&mut s, 0)[0];
    s.on_timeout(SEC);
    drain(&mut s, SEC);
    let sa = syn_ack(&mut r, SEC + 5 * MS, &syn0);
    s.on_ack(SEC + 20 * MS, &sa);
    assert_eq!(s.cwnd(), 10 * M);
    assert_eq!(s.cc().ssthresh(), u64::MAX);
    assert_eq!(s.handshake_rtt(), Some((SEC + 20 * MS) / MS * MS));
}

#[test]
fn connect_fails_after_tcp_syn_retries() {
    let (mut s, _) = hs_sender(10);
    s.write(u64::MAX);
    drain(&mut s, 0);
    let mut t = 0;
    for i in 0..TCP_SYN_RETRIES {
        t += SEC << i;
        assert_eq!(s.poll_timeout(), Some(t));
        s.on_timeout(t);
        assert_eq!(drain(&mut s, t).len(), 1);
    }
    // 1 + 2 + … + 32 s of retransmissions, then 64 s more without an answer: 127 s.
    t += SEC << TCP_SYN_RETRIES;
    assert_eq!(t, 127 * SEC);
    s.on_timeout(t);
    assert!(s.connect_failed());
    assert_eq!(s.poll_timeout(), None);
    assert!(drain(&mut s, t).is_empty());
}

#[test]
fn the_receiver_resends_its_syn_ack_until_the_sender_answers() {
    let (mut s, _) = hs_sender(10);
    let mut r = TcpReceiver::new(&TcpConfig::default(), 0, 500);
    s.write(u64::MAX);
    let syn = drain(&mut s, 0)[0];
    let sa = syn_ack(&mut r, 10 * MS, &syn);
    // The SYN-ACK is lost: the receiver resends it after 1 s, then 2 s later.
    assert_eq!(r.poll_timeout(), Some(SEC + 10 * MS));
    r.on_timeout(SEC + 10 * MS);
    let sa1 = r.poll_ack(SEC + 10 * MS).unwrap();
    assert!(sa1.syn && sa1.ts_ecr == syn.ts_val);
    assert_eq!(r.poll_timeout(), Some(3 * SEC + 10 * MS));
    // The sender's own retransmitted SYN crosses: answered at once (`inet_rtx_syn_ack`).
    s.on_timeout(SEC);
    let syn1 = drain(&mut s, SEC)[0];
    r.on_segment(SEC + 20 * MS, &syn1);
    let sa2 = r.poll_ack(SEC + 20 * MS).unwrap();
    assert!(sa2.syn && sa2.ts_ecr == syn1.ts_val);
    // The sender connects on the retransmitted SYN-ACK; a later copy only asks for an ACK.
    s.on_ack(SEC + 30 * MS, &sa1);
    assert!(s.established());
    let out = drain(&mut s, SEC + 30 * MS);
    assert_eq!(out.len(), 11);
    s.on_ack(SEC + 40 * MS, &sa2);
    let again = drain(&mut s, SEC + 40 * MS);
    assert_eq!(again.len(), 1);
    assert!(again[0].len == 0 && !again[0].syn);
    // Data completes the receiver's handshake (its third segment was lost): no more SYN-ACKs.
    r.on_segment(SEC + 45 * MS, &out[1]);
    assert_eq!(
        r.poll_timeout(),
        None,
        "no SYN-ACK timer left (and the first data is quick-ACKed, no delayed-ACK timer)"
    );
    assert!(!r.poll_ack(SEC + 45 * MS).unwrap().syn);
    let _ = sa;
    // A stale SYN now changes nothing: no SYN-ACK, no timer.
    r.on_segment(SEC + 50 * MS, &syn);
    assert_eq!(r.poll_ack(SEC + 50 * MS), None);
    assert_eq!(r.poll_timeout(), None);
}

#[test]
fn bbr_rtprop_is_the_handshake_rtt_before_any_data() {
    // `bbr_init` takes `tcp_min_rtt`, which the SYN / SYN-ACK exchange set.
    let mut b = Bbr::new(&BbrConfig::default(), MSS, 10 * M);
    assert_eq!(b.min_rtt(), Nanos::MAX);
    b.on_established(&crate::cc::Established {
        now: 26 * MS,
        srtt: 26 * MS,
        min_rtt: 26 * MS,
        mss: MSS,
    });
    assert_eq!(b.min_rtt(), 26 * MS);
    // Pacing from the handshake's SRTT: startup gain · cwnd / SRTT.
    let want = BbrConfig::default().startup_gain * (10 * M) as f64 / 0.026;
    assert!((b.pacing_rate().unwrap() - want).abs() < 1.0);
    // Through a sender: the controller's init runs with the handshake's sample.
    let cfg = TcpConfig::default();
    let cc = Bbr::new(&BbrConfig::default(), MSS, cfg.initial_window_bytes());
    let mut s = TcpSender::new(&cfg, Box::new(cc), 0, 1000);
    let mut r = TcpReceiver::new(&cfg, 0, 500);
    s.write(u64::MAX);
    let syn = drain(&mut s, 0)[0];
    let sa = syn_ack(&mut r, 13 * MS, &syn);
    s.on_ack(26 * MS, &sa);
    assert_eq!(s.stats().min_rtt, 26 * MS);
    assert!((s.cc().pacing_rate().unwrap() - want).abs() < 1.0);
}
