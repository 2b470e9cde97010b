use super::*;
use cellshare_aqm::{QueueLimit, TailDrop};
use cellshare_channel::FixedChannel;
use cellshare_core::{Packet, TrafficClass, MS};

fn tail(limit: u64) -> Aqm {
    Aqm::TailDrop(TailDrop { limit: QueueLimit::Bytes(limit) })
}

fn fixed(mbps: u64) -> Channel {
    Channel::Fixed(FixedChannel::new(mbps * 1_000_000))
}

fn fill(cell: &mut Cell, arena: &mut PacketArena, ue: u32, n: usize, class: TrafficClass) {
    for _ in 0..n {
        arrive(cell, arena, 0, Packet { ue, size: 1500, class, ..Default::default() });
    }
}

/// Packet `pkt` arrives at the cell at `now` (freed if dropped).
fn arrive(cell: &mut Cell, arena: &mut PacketArena, now: Nanos, pkt: Packet) {
    let mut dropped = Vec::new();
    let id = arena.alloc(pkt);
    cell.enqueue(now, id, arena, &mut dropped);
    for (id, _) in dropped {
        arena.free(id);
    }
}

/// Runs `ttis` TTIs and returns bytes delivered per UE.
fn run(cell: &mut Cell, arena: &mut PacketArena, ttis: u64, refill: bool) -> Vec<u64> {
    let mut per_ue = vec![0u64; cell.n_ues()];
    let mut delivered = Vec::new();
    let mut dropped = Vec::new();
    for t in 0..ttis {
        delivered.clear();
        cell.run_tti(t, t * MS, arena, &mut delivered, &mut dropped);
        for d in &delivered {
            per_ue[d.ue as usize] += arena.get(d.id).size as u64;
            let class = arena.get(d.id).class;
            arena.free(d.id);
            if refill {
                fill(cell, arena, d.ue, 1, class);
            }
        }
    }
    per_ue
}

#[test]
fn pf_splits_equal_channels_evenly() {
    let mut cell = Cell::new(50, SchedulerConfig::default());
    let mut arena = PacketArena::with_capacity(1024);
    for _ in 0..2 {
        cell.add_ue(fixed(20), tail(512 * 1024));
    }
    fill(&mut cell, &mut arena, 0, 300, TrafficClass::Foreground);
    fill(&mut cell, &mut arena, 1, 300, TrafficClass::Foreground);
    let got = run(&mut cell, &mut arena, 10_000, true);
    let total: u64 = got.iter().sum();
    // 20 Mbps for 10 s = 25 MB in total, split evenly.
    assert!((total as f64 - 25e6).abs() / 25e6 < 0.01, "total {total}");
    for g in got {
        assert!((g as f64 / total as f64 - 0.5).abs() < 0.01);
    }
}

#[test]
fn winner_takes_what_it_can_fill_and_leftover_goes_on() {
    let mut cell = Cell::new(50, SchedulerConfig::default());
    let mut arena = PacketArena::with_capacity(16);
    cell.add_ue(fixed(20), tail(512 * 1024)); // 2500 B per TTI, 50 B per PRB
    cell.add_ue(fixed(20), tail(512 * 1024));
    fill(&mut cell, &mut arena, 0, 1, TrafficClass::Foreground); // 1500 B -> 30 PRBs
    fill(&mut cell, &mut arena, 1, 2, TrafficClass::Foreground);
    let mut delivered = Vec::new();
    let mut dropped = Vec::new();
    let r = cell.run_tti(0, 0, &mut arena, &mut delivered, &mut dropped);
    assert_eq!(r.prbs_used, 50);
    assert_eq!(r.ues_served, 2);
    assert_eq!(r.bytes_sent, 2500);
    assert_eq!(delivered.len(), 1, "UE 0's packet completes, UE 1's head is partly sent");
    assert_eq!(delivered[0].ue, 0);
    assert_eq!(cell.ue(1).queue.pending_bytes(), 3000 - 1000);
}

#[test]
fn round_robin_alternates() {
    let cfg = SchedulerConfig { kind: SchedulerKind::RoundRobin, ..Default::default() };
    let mut cell = Cell::new(50, cfg);
    let mut arena = PacketArena::with_capacity(1024);
    for _ in 0..3 {
        cell.add_ue(fixed(12), tail(512 * 1024)); // exactly one packet per TTI
    }
    for ue in 0..3 {
        fill(&mut cell, &mut arena, ue, 10, TrafficClass::Foreground);
    }
    let mut order = Vec::new();
    let mut delivered = Vec::new();
    let mut dropped = Vec::new();
    for t in 0..6 {
        delivered.clear();
        cell.run_tti(t, t * MS, &mut arena, &mut delivered, &mut dropped);
        order.extend(delivered.iter().map(|d| d.ue));
    }
    assert_eq!(order, vec![0, 1, 2, 0, 1, 2]);
}

#[test]
fn max_throughput_starves_the_weak_ue() {
    let cfg = SchedulerConfig { kind: SchedulerKind::MaxThroughput, ..Default::default() };
    let mut cell = Cell::new(50, cfg);
    let mut arena = PacketArena::with_capacity(1024);
    cell.add_ue(fixed(30), tail(512 * 1024));
    cell.add_ue(fixed(10), tail(512 * 1024));
    fill(&mut cell, &mut arena, 0, 300, TrafficClass::Foreground);
    fill(&mut cell, &mut arena, 1, 300, TrafficClass::Foreground);
    let got = run(&mut cell, &mut arena, 2000, true);
    assert_eq!(got[1], 0);
    assert!(got[0] > 0);
}

#[test]
fn priority_serves_foreground_first() {
    let cfg = SchedulerConfig { kind: SchedulerKind::Priority, ..Default::default() };
    let mut cell = Cell::new(50, cfg);
    let mut arena = PacketArena::with_capacity(1024);
    cell.add_ue(fixed(20), tail(512 * 1024));
    cell.add_ue(fixed(40), tail(512 * 1024));
    fill(&mut cell, &mut arena, 0, 300, TrafficClass::Foreground);
    fill(&mut cell, &mut arena, 1, 300, TrafficClass::Background);
    let got = run(&mut cell, &mut arena, 1000, true);
    assert_eq!(got[1], 0, "background UE waits while foreground is backlogged");
    // PF alone would give the better background UE most of the cell.
    let mut pf = Cell::new(50, SchedulerConfig::default());
    pf.add_ue(fixed(20), tail(512 * 1024));
    pf.add_ue(fixed(40), tail(512 * 1024));
    fill(&mut pf, &mut arena, 0, 300, TrafficClass::Foreground);
    fill(&mut pf, &mut arena, 1, 300, TrafficClass::Background);
    let got = run(&mut pf, &mut arena, 1000, true);
    assert!(got[1] > got[0]);
}

#[test]
fn bet_equalizes_throughput() {
    let cfg = SchedulerConfig { kind: SchedulerKind::BlindEqualThroughput, ..Default::default() };
    let mut cell = Cell::new(50, cfg);
    let mut arena = PacketArena::with_capacity(1024);
    cell.add_ue(fixed(30), tail(512 * 1024));
    cell.add_ue(fixed(10), tail(512 * 1024));
    fill(&mut cell, &mut arena, 0, 300, TrafficClass::Foreground);
    fill(&mut cell, &mut arena, 1, 300, TrafficClass::Foreground);
    let got = run(&mut cell, &mut arena, 5000, true);
    let ratio = got[0] as f64 / got[1] as f64;
    assert!((ratio - 1.0).abs() < 0.05, "BET ratio {ratio}");
}

#[test]
fn averaged_rate_decays_without_service() {
    let mut cell = Cell::new(50, SchedulerConfig::default());
    let mut arena = PacketArena::with_capacity(16);
    cell.add_ue(fixed(20), tail(512 * 1024));
    fill(&mut cell, &mut arena, 0, 2, TrafficClass::Foreground);
    let mut delivered = Vec::new();
    let mut dropped = Vec::new();
    cell.run_tti(0, 0, &mut arena, &mut delivered, &mut dropped);
    // R = 0.99 * R0 + 0.01 * 2500 with the initial floor R0 = 1e-3
    let expected = 0.99 * 1e-3 + 25.0;
    let a1 = cell.averaged_rate(0, 1);
    assert!((a1 - expected).abs() < 1e-9, "got {a1}");
    let a101 = cell.averaged_rate(0, 101);
    assert!((a101 - expected * 0.99f64.powi(100)).abs() < 1e-9);
}

#[test]
fn tail_drop_at_byte_limit_and_backlog_tracking() {
    let mut cell = Cell::new(50, SchedulerConfig::default());
    let mut arena = PacketArena::with_capacity(16);
    cell.add_ue(fixed(20), tail(3000));
    let mut dropped = Vec::new();
    for _ in 0..3 {
        let id = arena.alloc(Packet { ue: 0, size: 1500, ..Default::default() });
        cell.enqueue(0, id, &mut arena, &mut dropped);
    }
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0].1, DropCause::Enqueue);
    assert!(cell.has_backlog());
    let mut delivered = Vec::new();
    cell.run_tti(0, 0, &mut arena, &mut delivered, &mut dropped);
    cell.run_tti(1, MS, &mut arena, &mut delivered, &mut dropped);
    assert_eq!(delivered.len(), 2);
    assert!(!cell.has_backlog());
}

#[test]
fn sneaker_signals_count_queued_ues_and_recent_background_flows() {
    use cellshare_aqm::{Sneaker, SneakerConfig};
    use cellshare_core::stream_rng;
    let mut cell = Cell::new(50, SchedulerConfig::default());
    let mut arena = PacketArena::with_capacity(64);
    for _ in 0..4 {
        cell.add_ue(fixed(20), tail(512 * 1024));
    }
    let sneaker = Sneaker::new(&SneakerConfig::default(), stream_rng(1, "sneaker", 0));
    cell.set_dropper(Dropper::Sneaker(Box::new(sneaker)), 1000 * MS);
    // A background packet of `flow` to `ue`; no RTT yet, so Sneaker accepts it and the cell
    // still records the flow.
    let bg = |ue, flow| Packet { ue, flow, size: 1500, class: TrafficClass::Background, ..Default::default() };
    // UE 0: background flow 7; UE 1: foreground; UE 2: a foreground packet served at once;
    // UE 3: background flow 8.
    arrive(&mut cell, &mut arena, 0, bg(0, 7));
    fill(&mut cell, &mut arena, 1, 1, TrafficClass::Foreground);
    fill(&mut cell, &mut arena, 2, 1, TrafficClass::Foreground);
    arrive(&mut cell, &mut arena, 0, bg(3, 8));
    // Serve everything, then queue again at UEs 0 and 1 only.
    run(&mut cell, &mut arena, 4, false);
    assert!(!cell.has_backlog());
    arrive(&mut cell, &mut arena, 5 * MS, bg(0, 7));
    fill(&mut cell, &mut arena, 1, 1, TrafficClass::Foreground);
    // N counts the UEs with data queued, plus the arriving packet's own UE if it has none;
    // UE 2, served 5 ms ago but with nothing queued, is not one of them.
    let at = |cell: &mut Cell, now, ue| cell.signals(now, ue, SignalNeeds::Load);
    assert_eq!(at(&mut cell, 5 * MS, 0).competing_ues, 2);
    assert_eq!(at(&mut cell, 5 * MS, 3).competing_ues, 3);
    // L counts the background flows seen within the window: flows 7 and 8, then only 7.
    assert_eq!(at(&mut cell, 5 * MS, 0).background_flows, 2);
    arrive(&mut cell, &mut arena, 1200 * MS, bg(0, 7));
    assert_eq!(at(&mut cell, 1200 * MS, 0).background_flows, 1);
}
