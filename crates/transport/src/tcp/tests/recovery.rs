//! Linux's loss recovery, driven by hand-built segment and ACK sequences: RACK's reordering
//! window and lost-retransmission detection (RFC 8985 §6), tail loss probes (§7), F-RTO
//! (RFC 5682), D-SACK (RFC 2883) and the undo of spurious reductions (RFC 3708, RFC 3522),
//! the restart after idle (RFC 5681 §4.1), Linux's RTO estimator and repeated timeouts.
//!
//! Times are whole milliseconds; every segment of a burst is sent at the same instant, so
//! "sent after" is the transmission order.

use super::*;
use cellshare_core::SEC;

/// A sender on `cfg` with a [`MockCc`] window of `cwnd_segs` segments.
fn sender(cfg: &TcpConfig, cwnd_segs: u64) -> (TcpSender, Arc<Mutex<Log>>) {
    let (cc, log) = MockCc::new(cwnd_segs * M);
    (sender_no_handshake(cfg, Box::new(cc), 0, 0), log)
}

/// `(segment, retransmit)` of what `s` sends at `now`.
fn sent(s: &mut TcpSender, now: Nanos) -> Vec<(u64, bool)> {
    drain(s, now)
        .iter()
        .map(|g| (g.seq / M, g.retransmit))
        .collect()
}

/// Segment numbers of the retransmissions among `segs`.
fn retx(segs: &[(u64, bool)]) -> Vec<u64> {
    segs.iter().filter(|g| g.1).map(|g| g.0).collect()
}

// ---------------------------------------------------------------- RACK

#[test]
fn rack_tolerates_reordering_within_its_window_and_rfc6675_does_not() {
    // Segments 0-19 at t = 0 (RTT 100 ms, so reo_wnd = min_rtt/4 = 25 ms once reordering
    // has been seen). Segment 2 arrives 5 ms after segment 3 (one SACK), later segment 4
    // 5 ms after segments 5-7 (three SACKs).
    let run = |cfg: &TcpConfig, first_reordering: bool| {
        let (mut s, log) = sender(cfg, 20);
        s.write(u64::MAX);
        let mut out = sent(&mut s, 0);
        s.on_ack(100 * MS, &ack(2 * M));
        out.extend(sent(&mut s, 100 * MS));
        if first_reordering {
            s.on_ack(101 * MS, &sack_ack(2, &[(3, 4)]));
            out.extend(sent(&mut s, 101 * MS));
            // Reordering-only: nothing is due before segment 2 arrives.
            assert!(s.poll_timeout().unwrap() > 106 * MS);
            s.on_ack(106 * MS, &ack(4 * M));
        } else {
            s.on_ack(106 * MS, &ack(4 * M));
        }
        out.extend(sent(&mut s, 106 * MS));
        s.on_ack(107 * MS, &sack_ack(4, &[(5, 8)]));
        out.extend(sent(&mut s, 107 * MS));
        s.on_ack(112 * MS, &ack(8 * M));
        out.extend(sent(&mut s, 112 * MS));
        s.on_timeout(140 * MS);
        out.extend(sent(&mut s, 140 * MS));
        let losses = log.lock().unwrap().losses.len();
        (s, retx(&out), losses)
    };
    // RACK: the first late segment arrives inside RACK.rtt + min_rtt/4; it shows the path
    // reorders (Linux `reord_seen`), so three SACKs no longer shortcut the window either.
    let (s, r, losses) = run(&TcpConfig::default(), true);
    assert_eq!((r, losses, s.stats().reorderings), (vec![], 0, 2));
    assert_eq!(s.stats().fast_retransmits, 0);
    // Without the first reordering RACK keeps RFC 8985's DupThresh shortcut (reo_wnd = 0
    // once three segments are SACKed): segment 4 is deemed lost at once.
    let (_, r, losses) = run(&TcpConfig::default(), false);
    assert_eq!((r, losses), (vec![4], 1));
    // RFC 6675 counts SACKed segments only: the three SACKs mark segment 4 lost.
    let (s, r, losses) = run(
        &TcpConfig {
            rack: false,
            ..Default::default()
        },
        true,
    );
    assert_eq!((r, losses, s.stats().fast_retransmits), (vec![4], 1, 1));
}

#[test]
fn rack_times_a_lone_sack_out_with_the_reordering_timer() {
    // Segment 0 lost, only segment 1 SACKed (an application-limited tail of two): fewer
    // than DupThresh SACKs, so RACK waits RACK.rtt + min_rtt/4 and its timer (+2 ms, Linux
    // `TCP_TIMEOUT_MIN_US`) starts recovery, long before the RTO.
    let (mut s, log) = sender(
        &TcpConfig {
            tlp: false,
            ..Default::default()
        },
        10,
    );
    s.write(4 * M);
    sent(&mut s, 0);
    s.on_ack(100 * MS, &ack(2 * M)); // RTT 100 ms
    s.write(2 * M);
    sent(&mut s, 100 * MS); // segments 4, 5
    s.on_ack(200 * MS, &sack_ack(2, &[(3, 4)]));
    assert!(sent(&mut s, 200 * MS).is_empty(), "not yet: one SACK");
    // Segment 2 was sent at 0: due at 0 + RACK.rtt (200 ms) + 25 ms; the timer adds 2 ms.
    assert_eq!(s.poll_timeout(), Some(227 * MS));
    s.on_timeout(227 * MS);
    assert!(s.in_recovery());
    assert_eq!(sent(&mut s, 227 * MS), vec![(2, true)]);
    assert_eq!(
        (log.lock().unwrap().losses.len(), s.stats().timeouts),
        (1, 0)
    );
}

#[test]
fn rack_resends_a_lost_retransmission_without_a_timeout() {
    // Twenty segments (all the application has); 0 and 5 are lost, and so is the first
    // retransmission of 0. The retransmission of 5, sent after it, is SACKed: one RACK.rtt
    // later the retransmission of 0 is deemed lost too (RFC 8985 §6.2). RFC 6675's rule
    // needs new data sent after the retransmission, and there is none: it waits for the RTO.
    let run = |cfg: &TcpConfig| {
        let (mut s, _log) = sender(
            &TcpConfig {
                tlp: false,
                ..cfg.clone()
            },
            20,
        );
        s.write(20 * M);
        let mut out = sent(&mut s, 0);
        s.on_ack(100 * MS, &sack_ack(0, &[(1, 5)]));
        out.extend(sent(&mut s, 100 * MS));
        s.on_ack(101 * MS, &sack_ack(0, &[(6, 20), (1, 5)]));
        out.extend(sent(&mut s, 101 * MS));
        // The retransmission of 5 arrives, that of 0 does not.
        s.on_ack(201 * MS, &sack_ack(0, &[(1, 20)]));
        out.extend(sent(&mut s, 201 * MS));
        let deadline = s.poll_timeout().unwrap();
        if retx(&out).len() < 3 {
            s.on_timeout(deadline);
            out.extend(sent(&mut s, deadline));
        }
        s.on_ack(deadline.max(201 * MS) + 100 * MS, &ack(20 * M));
        assert!(s.all_acked());
        (retx(&out), s.stats().clone())
    };
    let (r, st) = run(&TcpConfig::default());
    assert_eq!(r, vec![0, 5, 0]);
    assert_eq!(
        (st.timeouts, st.lost_retransmits, st.sack_recoveries),
        (0, 1, 1)
    );
    let (r, st) = run(&TcpConfig {
        rack: false,
        ..Default::default()
    });
    assert_eq!(r[..2], [0, 5]);
    assert_eq!((st.timeouts, st.lost_retransmits), (1, 0));
}

// ---------------------------------------------------------------- tail loss probes

#[test]
fn tail_loss_probe_repairs_a_lost_tail_before_the_rto() {
    // Ten segments, 7-9 lost. After the ACK of 0-6 (RTT 100 ms) the probe timer is
    // 2·SRTT + 2 ms (more than one segment out); the probe resends the last segment (no new
    // data), its SACK lets RACK find 7 and 8 lost: repaired at 2.5 RTTs, no timeout.
    let (mut s, log) = sender(&TcpConfig::default(), 10);
    s.write(10 * M);
    sent(&mut s, 0);
    s.on_ack(100 * MS, &ack(7 * M));
    assert_eq!(s.poll_timeout(), Some(302 * MS));
    s.on_timeout(302 * MS);
    assert_eq!(sent(&mut s, 302 * MS), vec![(9, true)]);
    assert_eq!(s.stats().loss_probes, 1);
    s.on_ack(402 * MS, &sack_ack(7, &[(9, 10)]));
    assert_eq!(sent(&mut s, 402 * MS), vec![(7, true), (8, true)]);
    s.on_ack(502 * MS, &ack(10 * M));
    assert!(s.all_acked());
    assert_eq!((s.stats().timeouts, s.stats().sack_recoveries), (0, 1));
    assert_eq!(
        log.lock().unwrap().losses.len(),
        1,
        "one reduction, by the recovery RACK started"
    );
    // Without probes the RTO (SRTT + 200 ms after the last ACK) resends the tail.
    let (mut s, _) = sender(
        &TcpConfig {
            tlp: false,
            ..Default::default()
        },
        10,
    );
    s.write(10 * M);
    sent(&mut s, 0);
    s.on_ack(100 * MS, &ack(7 * M));
    assert_eq!(s.poll_timeout(), Some(400 * MS));
    s.on_timeout(400 * MS);
    assert_eq!(s.stats().timeouts, 1);
}

#[test]
fn tail_loss_probe_sends_new_data_first_and_reduces_once_it_repaired_a_loss() {
    // A probe with new data available sends it, whatever cwnd says (RFC 8985 §7.3).
    let (mut s, _) = sender(&TcpConfig::default(), 10);
    s.write(u64::MAX);
    sent(&mut s, 0);
    s.on_ack(100 * MS, &ack(2 * M));
    assert_eq!(sent(&mut s, 100 * MS), vec![(10, false), (11, false)]);
    // The probe timer restarted with the new data: 2·SRTT + 2 ms after it.
    assert_eq!(s.poll_timeout(), Some(302 * MS));
    s.on_timeout(302 * MS);
    assert_eq!(sent(&mut s, 302 * MS), vec![(12, false)]);
    assert!(sent(&mut s, 302 * MS).is_empty(), "one probe");
    // A lone lost last segment: the probe (PTO = 2·SRTT + the delayed-ACK allowance,
    // capped by the RTO) resends it and the ACK beyond it shows it repaired a loss: the
    // controller reduces once (§7.4.2).
    let (mut s, log) = sender(&TcpConfig::default(), 10);
    s.write(10 * M);
    sent(&mut s, 0);
    s.on_ack(100 * MS, &ack(9 * M));
    assert_eq!(
        s.poll_timeout(),
        Some(400 * MS),
        "min(2·100 + 200, RTO 300) ms"
    );
    s.on_timeout(400 * MS);
    assert_eq!(sent(&mut s, 400 * MS), vec![(9, true)]);
    assert_eq!(s.stats().timeouts, 0, "the probe, not the RTO");
    s.on_ack(500 * MS, &ack(10 * M));
    assert!(
        log.lock().unwrap().losses.is_empty(),
        "not yet: the ACK only reaches the probe"
    );
    s.write(2 * M);
    sent(&mut s, 500 * MS);
    s.on_ack(600 * MS, &ack(12 * M));
    assert_eq!(log.lock().unwrap().losses.len(), 1);
    assert_eq!(s.stats().loss_probe_recoveries, 1);
}

#[test]
fn a_dsacked_probe_is_no_loss() {
    // The probe's D-SACK says the original arrived too: no reduction (RFC 8985 §7.4.1).
    let (mut s, log) = sender(&TcpConfig::default(), 10);
    s.write(10 * M);
    sent(&mut s, 0);
    s.on_ack(100 * MS, &ack(9 * M));
    s.on_timeout(400 * MS);
    sent(&mut s, 400 * MS);
    s.on_ack(450 * MS, &ack(10 * M)); // the original, late
    let mut d = ack(10 * M);
    d.push_sack(9 * M, 10 * M); // the probe, duplicated
    s.on_ack(500 * MS, &d);
    s.write(2 * M);
    sent(&mut s, 500 * MS);
    s.on_ack(600 * MS, &ack(12 * M));
    assert!(log.lock().unwrap().losses.is_empty());
    assert_eq!(
        (s.stats().dsacks_received, s.stats().loss_probe_recoveries),
        (1, 0)
    );
}

// ---------------------------------------------------------------- spurious timeouts

/// Ten segments at t = 0, an ACK of two at 100 ms (SRTT 100 ms: RTO 300 ms), then silence:
/// the RTO fires at 400 ms and the head is resent. Returns the sender and what went out.
fn after_a_timeout(cfg: &TcpConfig, ts_offset: u32) -> (TcpSender, Arc<Mutex<Log>>) {
    let (cc, log) = MockCc::new(10 * M);
    let mut s = sender_no_handshake(
        &TcpConfig {
            tlp: false,
            ..cfg.clone()
        },
        Box::new(cc),
        0,
        ts_offset,
    );
    s.write(u64::MAX);
    sent(&mut s, 0);
    s.on_ack(100 * MS, &ack(2 * M));
    assert_eq!(sent(&mut s, 100 * MS), vec![(10, false), (11, false)]);
    assert_eq!(s.poll_timeout(), Some(400 * MS));
    s.on_timeout(400 * MS);
    assert_eq!(sent(&mut s, 400 * MS), vec![(2, true)]);
    assert_eq!((s.stats().timeouts, s.cc().cwnd()), (1, M));
    (s, log)
}

#[test]
fn frto_undoes_a_spurious_timeout() {
    // The ACKs were only delayed: the first one after the timeout acknowledges segment 3,
    // never retransmitted (RFC 5682 §3.1 step 3.b, Linux `FLAG_ORIG_SACK_ACKED`). No
    // timestamps here (TSecr 0), so only F-RTO can tell.
    let (mut s, log) = after_a_timeout(&TcpConfig::default(), 0);
    s.on_ack(450 * MS, &ack(4 * M));
    assert_eq!((s.stats().spurious_timeouts, s.stats().undos), (1, 1));
    let undo = log.lock().unwrap().undos[0];
    assert_eq!(undo.prior_cwnd, 10 * M);
    assert_eq!(s.cc().cwnd(), 10 * M, "the window before the timeout");
    // Nothing is resent: segments 4-11 are in flight again, new data follows.
    assert_eq!(sent(&mut s, 450 * MS), vec![(12, false), (13, false)]);
    // Without F-RTO and undo every unacknowledged segment is resent (RFC 6675 §5.1).
    let (mut s, _) = after_a_timeout(
        &TcpConfig {
            frto: false,
            undo: false,
            ..Default::default()
        },
        0,
    );
    s.on_ack(450 * MS, &ack(4 * M));
    assert_eq!(sent(&mut s, 450 * MS), vec![(4, true)]);
    assert_eq!((s.stats().undos, s.cc().cwnd()), (0, M));
}

#[test]
fn frto_sends_new_data_then_finds_the_loss_real() {
    // The head was lost: the first ACK after the timeout acknowledges just its
    // retransmission (step 2.b: send new data), the next one is a duplicate ACK SACKing
    // that new data (step 3.a: the loss is real, recover conventionally).
    let (mut s, _log) = after_a_timeout(&TcpConfig::default(), 0);
    s.on_ack(500 * MS, &ack(3 * M));
    assert_eq!(s.stats().undos, 0);
    assert_eq!(
        sent(&mut s, 500 * MS),
        vec![(12, false)],
        "new data, not segment 3"
    );
    s.on_ack(600 * MS, &sack_ack(3, &[(12, 13)]));
    let out = sent(&mut s, 600 * MS);
    assert_eq!(
        out.first(),
        Some(&(3, true)),
        "conventional recovery: {out:?}"
    );
    assert_eq!((s.stats().undos, s.stats().spurious_timeouts), (0, 0));
}

#[test]
fn eifel_timestamps_undo_a_spurious_timeout() {
    // RFC 3522: the ACK echoes the timestamp of an original transmission (TSval 1000 at
    // t = 0), older than the retransmission's (1400): undone on that ACK, even without F-RTO.
    let (mut s, _) = after_a_timeout(
        &TcpConfig {
            frto: false,
            ..Default::default()
        },
        1000,
    );
    let mut a = ack(3 * M);
    a.ts_ecr = 1000;
    s.on_ack(450 * MS, &a);
    assert_eq!(
        (s.stats().undos, s.stats().spurious_timeouts, s.cc().cwnd()),
        (1, 0, 10 * M)
    );
    // The same ACK echoing the retransmission's timestamp is no evidence.
    let (mut s, _) = after_a_timeout(
        &TcpConfig {
            frto: false,
            ..Default::default()
        },
        1000,
    );
    let mut a = ack(3 * M);
    a.ts_ecr = 1400;
    s.on_ack(600 * MS, &a);
    assert_eq!((s.stats().undos, s.cc().cwnd()), (0, M));
}

#[test]
fn dsack_undoes_a_spurious_fast_recovery_after_it_ended() {
    // Segment 0 is overtaken by 1-3: three SACKs start recovery and 0 is resent; then the
    // original arrives (the cumulative ACK ends recovery) and later the D-SACK of the
    // retransmission shows it was not needed: every retransmission of the episode was
    // D-SACKed, so the reduction is undone (RFC 3708, Linux `tcp_try_undo_dsack`).
    let run = |cfg: &TcpConfig| {
        let (mut s, log) = sender(
            &TcpConfig {
                tlp: false,
                ..cfg.clone()
            },
            20,
        );
        s.write(20 * M);
        sent(&mut s, 0);
        s.on_ack(100 * MS, &sack_ack(0, &[(1, 4)]));
        assert_eq!(retx(&sent(&mut s, 100 * MS)), vec![0]);
        assert_eq!(s.cc().cwnd(), 10 * M);
        s.on_ack(105 * MS, &sack_ack(0, &[(1, 20)]));
        s.on_ack(106 * MS, &ack(20 * M));
        assert!(!s.in_recovery());
        let mut d = ack(20 * M);
        d.push_sack(0, M);
        s.on_ack(200 * MS, &d);
        let undos = log.lock().unwrap().undos.len();
        (s, undos)
    };
    let (s, undos) = run(&TcpConfig::default());
    assert_eq!(
        (undos, s.stats().dsacks_received, s.cc().cwnd()),
        (1, 1, 20 * M)
    );
    let (s, undos) = run(&TcpConfig {
        undo: false,
        ..Default::default()
    });
    assert_eq!((undos, s.cc().cwnd()), (0, 10 * M));
}

#[test]
fn receiver_reports_duplicates_in_a_dsack_block_once() {
    fn rx(r: &mut TcpReceiver, i: u64) -> Option<Ack> {
        r.on_segment(MS, &seg(i));
        r.poll_ack(MS)
    }
    let mut r = TcpReceiver::new(&TcpConfig::default(), 0, 0);
    rx(&mut r, 0);
    assert_eq!(rx(&mut r, 1).unwrap().ack, 2 * M);
    // Below the cumulative ACK: the duplicate alone (RFC 2883 §4.1.1).
    let a = rx(&mut r, 1).unwrap();
    assert_eq!((a.ack, blocks(&a)), (2 * M, vec![(1, 2)]));
    // Above it: the duplicate, then the block holding it (§4.1.2), then the others.
    rx(&mut r, 4);
    rx(&mut r, 6);
    let a = rx(&mut r, 4).unwrap();
    assert_eq!((a.ack, blocks(&a)), (2 * M, vec![(4, 5), (4, 5), (6, 7)]));
    // Reported once.
    assert_eq!(
        blocks(&rx(&mut r, 8).unwrap()),
        vec![(8, 9), (4, 5), (6, 7)]
    );
    assert_eq!(r.stats().dsacks_sent, 2);
    // Off: no D-SACK block.
    let mut r = TcpReceiver::new(
        &TcpConfig {
            dsack: false,
            ..Default::default()
        },
        0,
        0,
    );
    rx(&mut r, 0);
    rx(&mut r, 1);
    let a = rx(&mut r, 1).unwrap();
    assert_eq!((a.sack_len, r.stats().dsacks_sent), (0, 0));
}

#[test]
fn receiver_compresses_sacks_after_three_duplicate_acks_as_linux() {
    // Linux `__tcp_ack_snd_check` (net.ipv4.tcp_comp_sack_nr = 44, tcp_comp_sack_delay_ns
    // = 1 ms): with a hole, the first three duplicate ACKs of a cumulative ACK go at once,
    // later SACKs wait for the 1 ms timer and leave as one ACK with the newest blocks.
    // (Quick-ACK mode, which sends every ACK at once, is off here: it has its own tests.)
    let base = TcpConfig { quickack: false, ..Default::default() };
    let mut r = TcpReceiver::new(&base, 0, 0);
    let t = 10 * MS;
    r.on_segment(t, &seg(0));
    r.poll_ack(t);
    let mut acks = Vec::new();
    for i in 2..10 {
        r.on_segment(t, &seg(i));
        acks.extend(r.poll_ack(t));
    }
    assert_eq!(acks.len(), 3, "three duplicate ACKs at once, five SACKs held");
    assert_eq!(r.poll_timeout(), Some(t + MS));
    r.on_timeout(t + MS);
    let a = r.poll_ack(t + MS).expect("the compression timer sends the held SACKs");
    assert_eq!((a.ack, blocks(&a)), (M, vec![(2, 10)]));
    assert_eq!(r.poll_timeout(), None);
    // A hole-filling segment is acknowledged at once and starts a new count: its first three
    // duplicate ACKs go at once again.
    r.on_segment(t + 2 * MS, &seg(1));
    assert_eq!(r.poll_ack(t + 2 * MS).unwrap().ack, 10 * M);
    let mut n = 0;
    for i in 11..16 {
        r.on_segment(t + 3 * MS, &seg(i));
        n += r.poll_ack(t + 3 * MS).is_some() as u32;
    }
    assert_eq!(n, 3);
    // Any ACK carries the held SACKs and stops the timer (`tcp_event_ack_sent`): here the
    // duplicate of old data, which is acknowledged at once.
    r.on_segment(t + 3 * MS, &seg(0));
    assert_eq!(blocks(&r.poll_ack(t + 3 * MS).unwrap())[1], (11, 16));
    assert_eq!(r.poll_timeout().filter(|&d| d <= t + 4 * MS), None);

    // comp_sack_nr held SACKs send the next at once; 0 turns compression off.
    let cfg = TcpConfig { comp_sack_nr: 2, ..base.clone() };
    let mut r = TcpReceiver::new(&cfg, 0, 0);
    r.on_segment(t, &seg(0));
    r.poll_ack(t);
    let sent: Vec<bool> = (2..9).map(|i| {
        r.on_segment(t, &seg(i));
        r.poll_ack(t).is_some()
    }).collect();
    assert_eq!(sent, [true, true, true, false, false, true, false]);
    let mut r = TcpReceiver::new(&TcpConfig { comp_sack_nr: 0, ..base }, 0, 0);
    r.on_segment(t, &seg(0));
    r.poll_ack(t);
    assert!((2..12).all(|i| {
        r.on_segment(t, &seg(i));
        r.poll_ack(t).is_some()
    }));
}

// ---------------------------------------------------------------- timeouts

#[test]
fn a_repeated_timeout_keeps_the_threshold_of_the_first() {
    // Linux `tcp_enter_loss`: only a timeout that starts a loss episode lowers ssthresh; a
    // backed-off one before any progress sets the loss window only.
    let cfg = TcpConfig {
        tlp: false,
        frto: false,
        ..Default::default()
    };
    let mut s = reno_sender(&cfg);
    s.write(u64::MAX);
    drain(&mut s, 0);
    s.on_ack(100 * MS, &ack(2 * M));
    drain(&mut s, 100 * MS);
    // Twelve segments in flight (slow start grew the window by two).
    s.on_timeout(400 * MS);
    assert_eq!(
        (s.stats().timeouts, s.cc().ssthresh(), s.cc().cwnd()),
        (1, 6 * M, M)
    );
    drain(&mut s, 400 * MS);
    s.on_timeout(1000 * MS);
    assert_eq!(
        (s.stats().timeouts, s.cc().ssthresh(), s.cc().cwnd()),
        (2, 6 * M, M)
    );
    assert_eq!(s.rto(), 1200 * MS, "backed off twice from 300 ms");
}

#[test]
fn the_rto_counts_from_the_head_segments_latest_transmission() {
    // Linux restarts the timer when it resends the head (`tcp_xmit_retransmit_queue`) and on
    // a SACK of data sent before that (`FLAG_SET_XMIT_TIMER`): behind a deep queue the
    // resent head has not arrived yet while older data is still being SACKed.
    let run = |rto_estimator: RtoEstimator| {
        let (mut s, _) = sender(
            &TcpConfig {
                tlp: false,
                rto_estimator,
                ..Default::default()
            },
            20,
        );
        s.write(20 * M);
        sent(&mut s, 0);
        s.on_ack(100 * MS, &ack(M));
        let first = s.poll_timeout().unwrap();
        s.on_ack(250 * MS, &sack_ack(1, &[(2, 5)]));
        assert_eq!(retx(&sent(&mut s, 250 * MS)), vec![1]);
        let after_resend = s.poll_timeout().unwrap();
        s.on_ack(300 * MS, &sack_ack(1, &[(2, 8)]));
        (first, after_resend, s.poll_timeout().unwrap(), s.rto())
    };
    let (first, resent, sacked, rto) = run(RtoEstimator::Linux);
    assert_eq!(first, 400 * MS);
    assert_eq!(sacked, 300 * MS + rto);
    assert!(
        resent > first,
        "restarted by the head's retransmission at 250 ms: {resent}"
    );
    // RFC 6298 restarts the timer only when new data is acknowledged.
    let (first, resent, sacked, _) = run(RtoEstimator::Rfc6298);
    assert_eq!((first, resent, sacked), (400 * MS, 400 * MS, 400 * MS));
}

// ---------------------------------------------------------------- restart after idle

#[test]
fn congestion_window_restarts_after_idle() {
    // 40 segments of window sent at t = 0 and acknowledged at 100 ms (RTO 300 ms), then
    // more data after `idle`: the idle time counts from the last segment sent (Linux
    // `lsndtime`). Linux halves once per RTO of it down to the restart window min(IW, cwnd)
    // = 10 segments (RFC 5681 §4.1), and keeps ¾ of the old window as ssthresh.
    let run = |cfg: &TcpConfig, idle: Nanos| {
        let (mut s, log) = sender(cfg, 40);
        s.write(40 * M);
        sent(&mut s, 0);
        s.on_ack(100 * MS, &ack(40 * M));
        assert!(s.all_acked());
        s.write(u64::MAX);
        let burst = sent(&mut s, 100 * MS + idle).len();
        let restarts = log.lock().unwrap().restarts.len();
        (burst, restarts, s.cc().ssthresh())
    };
    // (The mock's ssthresh is unset; Linux's max(ssthresh, ¾·cwnd) keeps it unset.)
    assert_eq!(run(&TcpConfig::default(), SEC), (10, 1, u64::MAX));
    // Shorter than the RTO (250 ms since the last segment): no restart; switched off: none.
    assert_eq!(run(&TcpConfig::default(), 150 * MS).0, 40);
    assert_eq!(
        run(
            &TcpConfig {
                slow_start_after_idle: false,
                ..Default::default()
            },
            SEC
        )
        .0,
        40
    );
    // 550 ms since the last segment: one halving (40 → 20), the second RTO is not complete.
    assert_eq!(run(&TcpConfig::default(), 450 * MS).0, 20);
}

// ---------------------------------------------------------------- the loopback link

#[test]
fn loopback_sack_recovery_with_linux_defaults_resends_each_drop_once() {
    // A 20-packet drop-tail queue at 10 Mbit/s overflows again and again: every drop is
    // resent exactly once, none needlessly (no D-SACK), and no timeout.
    for cc in [
        reno_cc(),
        Box::new(Cubic::new(&CubicConfig::default(), MSS, 10 * M)) as Box<dyn CongestionControl>,
    ] {
        let name = cc.name();
        let out = transfer(cc, 4 * MB, Link::new(10_000_000, 10 * MS, 20), |_| false);
        let st = out.sender.stats();
        assert_eq!(out.receiver.delivered(), 4 * MB, "{name}");
        assert!(out.link_drops > 5, "{name}: {} drops", out.link_drops);
        assert_eq!(st.retransmits, out.link_drops, "{name}: {st:?}");
        assert_eq!(
            (
                st.timeouts,
                st.dsacks_received,
                out.receiver.stats().duplicate_segments
            ),
            (0, 0, 0),
            "{name}"
        );
    }
}
