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
fn padding_gives_the_winner_every_prb_and_counts_the_whole_block() {
    let cfg = SchedulerConfig { leftover: Leftover::Padding, ..Default::default() };
    let mut cell = Cell::new(50, cfg);
    let mut arena = PacketArena::with_capacity(16);
    cell.add_ue(fixed(20), tail(512 * 1024)); // 2500 B per TTI, 50 B per PRB
    cell.add_ue(fixed(20), tail(512 * 1024));
    fill(&mut cell, &mut arena, 0, 1, TrafficClass::Foreground); // 1500 B: 30 PRBs would do
    fill(&mut cell, &mut arena, 1, 2, TrafficClass::Foreground);
    let mut delivered = Vec::new();
    let mut dropped = Vec::new();
    let r = cell.run_tti(0, 0, &mut arena, &mut delivered, &mut dropped);
    assert_eq!((r.prbs_used, r.ues_served, r.bytes_sent), (50, 1, 1500), "UE 0's block is padded, UE 1 waits");
    assert_eq!(cell.ue(1).queue.pending_bytes(), 3000);

    // Bytes per UE over 10,000 TTIs when UE 0 keeps one packet queued beside a saturated UE 1.
    let one_packet_beside_saturated = |cfg: SchedulerConfig| {
        let mut cell = Cell::new(50, cfg);
        let mut arena = PacketArena::with_capacity(1024);
        cell.add_ue(fixed(20), tail(512 * 1024));
        cell.add_ue(fixed(20), tail(512 * 1024));
        fill(&mut cell, &mut arena, 0, 1, TrafficClass::Foreground);
        fill(&mut cell, &mut arena, 1, 300, TrafficClass::Foreground);
        run(&mut cell, &mut arena, 10_000, true)
    };
    // With padding PF charges both a whole block per TTI served, so each wins half the TTIs
    // and UE 0's halves are 40 % padding.
    let got = one_packet_beside_saturated(cfg);
    assert!((got[0] as f64 / (0.5 * 1500.0 * 10_000.0) - 1.0).abs() < 0.02, "UE 0 {}", got[0]);
    assert!((got[1] as f64 / (0.5 * 2500.0 * 10_000.0) - 1.0).abs() < 0.02, "UE 1 {}", got[1]);

    // The default hands the 20 PRBs UE 0 cannot fill to UE 1: the cell is never idle.
    let got = one_packet_beside_saturated(SchedulerConfig::default());
    let total: u64 = got.iter().sum();
    assert!((total as f64 / (2500.0 * 10_000.0) - 1.0).abs() < 0.01, "total {total}");
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
    let a1 = cell.averaged_rate(0, 1).expect("PF keeps an averaged rate");
    assert!((a1 - expected).abs() < 1e-9, "got {a1}");
    let a101 = cell.averaged_rate(0, 101).expect("PF keeps an averaged rate");
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

// ---- the realistic link ----

use cellshare_channel::{radio::Fading, RadioChannel, RadioConfig};

fn radio(cfg: &RadioConfig, ue: u64) -> Channel {
    Channel::Radio(Box::new(RadioChannel::new(cfg, 50, &mut cellshare_core::stream_rng(9, "cell-test", ue))))
}

/// A cell of one radio UE per config under `link`, each queue kept full of numbered packets
/// (`seq` = the packet's number) for `ttis` TTIs. Returns, per UE, the numbers in the order
/// delivered with the TTI of each delivery, the packets dropped over the air and the cell.
fn saturate(cfgs: &[RadioConfig], link: &LinkConfig, ttis: u64) -> (Vec<Vec<(u64, u64)>>, u64, Cell) {
    let mut cell = Cell::new(50, SchedulerConfig::default());
    let mut arena = PacketArena::with_capacity(4096);
    for (i, c) in cfgs.iter().enumerate() {
        cell.add_ue(radio(c, i as u64), tail(4 << 20));
    }
    cell.set_link(link, 5);
    let mut next = vec![0u64; cfgs.len()];
    let mut got = vec![Vec::new(); cfgs.len()];
    let (mut delivered, mut dropped) = (Vec::new(), Vec::new());
    let mut air = 0;
    for t in 0..ttis {
        for ue in 0..cfgs.len() as u32 {
            while cell.ue(ue).queue.bytes() < 200_000 {
                let seq = next[ue as usize];
                next[ue as usize] += 1;
                arrive(&mut cell, &mut arena, t * MS, Packet { ue, size: 1500, seq, ..Default::default() });
            }
        }
        delivered.clear();
        dropped.clear();
        cell.run_tti(t, t * MS, &mut arena, &mut delivered, &mut dropped);
        for d in &delivered {
            got[d.ue as usize].push((arena.get(d.id).seq, t));
            arena.free(d.id);
        }
        for &(id, cause) in &dropped {
            assert_eq!(cause, DropCause::Air);
            air += 1;
            arena.free(id);
        }
    }
    (got, air, cell)
}

fn realistic() -> LinkConfig {
    LinkConfig::default()
}

#[test]
fn realistic_link_delivers_after_the_pipeline_delay() {
    // 100 m without fading: a steady SINR far above the top MCS's, no block errors.
    let still = RadioConfig { fading: Fading::None, ..RadioConfig::at_distance(100.0) };
    let (ideal, _, _) = saturate(std::slice::from_ref(&still), &LinkConfig::ideal(), 20);
    let (real, air, cell) = saturate(std::slice::from_ref(&still), &realistic(), 20);
    assert_eq!(air, 0);
    let s = cell.link_stats(0).unwrap();
    assert_eq!((s.block_errors, s.retransmissions), (0, 0));
    // The ideal link delivers in the TTI that carries a packet, the realistic one two TTIs
    // later (the block goes on air after the pipeline delay).
    let first_ideal = ideal[0][0].1;
    let first_real = real[0][0].1;
    assert_eq!(first_real, first_ideal + 2);
    assert!(real[0].windows(2).all(|w| w[1].0 == w[0].0 + 1), "in order, none lost");
}

#[test]
fn harq_repairs_fading_errors_and_keeps_packets_in_order() {
    // 300 m with Rayleigh fading at 30 km/h: the 5-TTI-old CQI is often too optimistic.
    let cfg = RadioConfig { speed_kmh: 30.0, ..RadioConfig::at_distance(300.0) };
    let (got, air, cell) = saturate(std::slice::from_ref(&cfg), &realistic(), 4000);
    let s = cell.link_stats(0).unwrap();
    assert!(s.transport_blocks > 3000, "{s:?}");
    assert!(s.retransmissions > 100, "{s:?}");
    assert!(s.block_errors >= s.retransmissions && s.block_errors < s.transport_blocks + s.retransmissions);
    // In order: numbers only grow (gaps are packets lost with a given-up block).
    let seqs: Vec<u64> = got[0].iter().map(|&(q, _)| q).collect();
    assert!(seqs.windows(2).all(|w| w[1] > w[0]), "out of order delivery");
    let gaps: u64 = seqs.windows(2).map(|w| w[1] - w[0] - 1).sum();
    assert_eq!(gaps + seqs[0], air, "every missing packet was dropped over the air");
    assert_eq!(s.packets_lost, air);
    // The same scenario again: the same draws.
    let (again, air2, cell2) = saturate(std::slice::from_ref(&cfg), &realistic(), 4000);
    assert_eq!((again, air2), (got, air));
    assert_eq!(cell2.link_stats(0), cell.link_stats(0));
}

#[test]
fn without_retransmissions_every_block_error_is_a_residual_loss() {
    let cfg = RadioConfig { speed_kmh: 30.0, ..RadioConfig::at_distance(300.0) };
    let link = LinkConfig { max_retransmissions: 0, t_reordering_ms: 20, ..realistic() };
    let (got, air, cell) = saturate(std::slice::from_ref(&cfg), &link, 3000);
    let s = cell.link_stats(0).unwrap();
    assert_eq!(s.retransmissions, 0);
    assert_eq!(s.residual_losses, s.block_errors);
    assert!(s.residual_losses > 50 && air > 50, "{s:?}");
    assert!(got[0].windows(2).all(|w| w[1].0 > w[0].0));
}

#[test]
fn retransmissions_go_first_and_take_prbs() {
    // Two UEs: a retransmission due in a TTI is sent before PF picks new data, on the
    // block's PRBs; the other UE then gets what is left.
    let cfg = RadioConfig { speed_kmh: 30.0, ..RadioConfig::at_distance(250.0) };
    let (_, _, cell) = saturate(&[cfg.clone(), cfg], &realistic(), 3000);
    let (a, b) = (cell.link_stats(0).unwrap(), cell.link_stats(1).unwrap());
    assert!(a.retransmissions > 20 && b.retransmissions > 20, "{a:?} {b:?}");
    // Every block error with retries left was retransmitted or is still pending.
    for s in [a, b] {
        let retried = s.block_errors - s.residual_losses;
        assert!(s.retransmissions <= retried && retried - s.retransmissions <= 8, "{s:?}");
    }
}

#[test]
fn fixed_channels_ignore_the_link() {
    // The same fixed-rate cell under both links: identical deliveries, TTI by TTI.
    let run = |link: &LinkConfig| {
        let mut cell = Cell::new(50, SchedulerConfig::default());
        let mut arena = PacketArena::with_capacity(1024);
        cell.add_ue(fixed(20), tail(512 * 1024));
        cell.add_ue(fixed(35), tail(512 * 1024));
        cell.set_link(link, 1);
        fill(&mut cell, &mut arena, 0, 300, TrafficClass::Foreground);
        fill(&mut cell, &mut arena, 1, 300, TrafficClass::Foreground);
        run(&mut cell, &mut arena, 3000, true)
    };
    assert_eq!(run(&LinkConfig::ideal()), run(&realistic()));
}

fn trace_channel(text: &str, offset_ms: u64) -> Channel {
    let t = cellshare_channel::MahimahiTrace::parse(text).unwrap();
    Channel::Trace(cellshare_channel::TraceChannel::new(std::sync::Arc::new(t), offset_ms))
}

#[test]
fn offered_ttis_are_the_union_of_the_trace_ues_opportunities() {
    // Trace A: one opportunity in ms 0 of every 4; trace B: three in ms 2 of every 4.
    let mut cell = Cell::new(50, SchedulerConfig::default());
    cell.add_ue(trace_channel("4\n", 0), tail(1 << 20));
    assert!(!cell.offers_every_tti());
    assert_eq!((0..8).filter(|&t| cell.offers_in(t)).collect::<Vec<_>>(), vec![0, 4]);
    cell.add_ue(trace_channel("4\n4\n4\n", 2), tail(1 << 20));
    assert_eq!((0..8).filter(|&t| cell.offers_in(t)).collect::<Vec<_>>(), vec![0, 2, 4, 6]);
    assert_eq!((cell.offered_bytes_in(0), cell.offered_bytes_in(1), cell.offered_bytes_in(2)), (1500, 0, 4500));
    // 2500 TTIs: half of them offered, 500 in each full second, 250 in the last half second;
    // weighted by the bytes each carries with every PRB.
    let w = 50 * (1500 + 4500) / 2;
    assert_eq!(cell.offered_per_second(2500), vec![(500, 500 * w), (500, 500 * w), (250, 250 * w)]);
    // A UE on a fixed (or radio) channel can be served in every TTI: all are offered, unweighted.
    cell.add_ue(fixed(12), tail(1 << 20));
    assert!(cell.offers_every_tti());
    assert!(cell.offers_in(1));
    assert_eq!(cell.offered_per_second(2500), vec![(1000, 0), (1000, 0), (500, 0)]);
}

#[test]
fn used_prbs_of_a_trace_cell_are_weighted_by_the_ttis_capacity() {
    // 3 opportunities (4500 B) in every TTI; one 1500-byte packet takes 17 of 50 PRBs.
    let mut cell = Cell::new(50, SchedulerConfig::default());
    let mut arena = PacketArena::with_capacity(16);
    cell.add_ue(trace_channel("1\n1\n1\n", 0), tail(1 << 20));
    fill(&mut cell, &mut arena, 0, 1, TrafficClass::Foreground);
    let r = cell.run_tti(0, 0, &mut arena, &mut Vec::new(), &mut Vec::new());
    assert_eq!((r.prbs_used, r.prb_bytes_used), (17, 17 * 4500));
    // A fixed channel's cell reports no weighted PRBs.
    let mut cell = Cell::new(50, SchedulerConfig::default());
    cell.add_ue(fixed(20), tail(1 << 20));
    fill(&mut cell, &mut arena, 0, 1, TrafficClass::Foreground);
    let r = cell.run_tti(0, 0, &mut arena, &mut Vec::new(), &mut Vec::new());
    assert_eq!((r.prbs_used, r.prb_bytes_used), (30, 0));
}

#[test]
fn the_schedulers_per_ue_fields_share_one_cache_line() {
    use std::mem::{align_of, offset_of, size_of};
    assert_eq!(align_of::<UeState>(), 64);
    for end in [
        offset_of!(UeState, quality_from) + 8,
        offset_of!(UeState, quality_until) + 8,
        offset_of!(UeState, eligible_from) + 8,
        offset_of!(UeState, quality) + size_of::<LinkQuality>(),
        offset_of!(UeState, full) + 4,
        offset_of!(UeState, served_tti) + 8,
    ] {
        assert!(end <= 64, "a field the scheduler's pass reads ends at byte {end}");
    }
}

#[test]
fn schedulers_without_an_average_report_none() {
    for kind in [SchedulerKind::RoundRobin, SchedulerKind::MaxThroughput] {
        let mut cell = Cell::new(50, SchedulerConfig { kind, ..Default::default() });
        cell.add_ue(fixed(20), tail(512 * 1024));
        assert_eq!(cell.averaged_rate(0, 1), None, "{kind:?}");
    }
    for kind in [SchedulerKind::ProportionalFair, SchedulerKind::BlindEqualThroughput, SchedulerKind::Priority] {
        let mut cell = Cell::new(50, SchedulerConfig { kind, ..Default::default() });
        cell.add_ue(fixed(20), tail(512 * 1024));
        assert_eq!(cell.averaged_rate(0, 0), Some(1e-3), "{kind:?}");
    }
}

/// The worked example of docs/extending/scheduler.md (`scheduler_example.rs`, registered
/// for tests as `"oldest_first"`), chosen the way a scenario chooses a scheduler.
#[test]
fn the_worked_example_serves_the_oldest_head_of_line_packet_first() {
    let cfg: SchedulerConfig = serde_json::from_str(r#"{"kind": "oldest_first"}"#).expect("a registered kind");
    assert_eq!(cfg.kind, SchedulerKind::OldestFirst);
    let mut cell = Cell::new(50, cfg);
    let mut arena = PacketArena::with_capacity(16);
    cell.add_ue(fixed(40), tail(512 * 1024)); // 5000 B per TTI: PF and MT would serve it first
    cell.add_ue(fixed(20), tail(512 * 1024)); // 2500 B per TTI, 50 B per PRB
    cell.add_ue(fixed(20), tail(512 * 1024));
    let pkt = |ue| Packet { ue, size: 1500, class: TrafficClass::Foreground, ..Default::default() };
    arrive(&mut cell, &mut arena, 3 * MS, pkt(0));
    arrive(&mut cell, &mut arena, MS, pkt(1));
    arrive(&mut cell, &mut arena, 2 * MS, pkt(2));
    let (mut delivered, mut dropped) = (Vec::new(), Vec::new());
    // TTI 3: UE 1 (waiting 2 ms) takes the 30 PRBs its packet needs, UE 2 (1 ms) the other
    // 20 (1000 of its 1500 bytes), UE 0 (0 ms) nothing.
    let r = cell.run_tti(3, 3 * MS, &mut arena, &mut delivered, &mut dropped);
    assert_eq!((r.prbs_used, r.ues_served, r.bytes_sent), (50, 2, 2500));
    assert_eq!(delivered.iter().map(|d| d.ue).collect::<Vec<_>>(), [1]);
    assert_eq!((cell.ue(0).queue.pending_bytes(), cell.ue(2).queue.pending_bytes()), (1500, 500));
    // TTI 4: UE 2's partly sent packet is still the oldest (10 PRBs), then UE 0 (15 PRBs).
    delivered.clear();
    let r = cell.run_tti(4, 4 * MS, &mut arena, &mut delivered, &mut dropped);
    assert_eq!((r.prbs_used, r.ues_served, r.bytes_sent), (25, 2, 2000));
    assert_eq!(delivered.iter().map(|d| d.ue).collect::<Vec<_>>(), [2, 0]);
    assert!(!cell.has_backlog());
}

#[test]
fn an_unknown_scheduler_kind_is_an_error_naming_the_registered_ones() {
    let err = serde_json::from_str::<SchedulerConfig>(r#"{"kind": "edf"}"#).unwrap_err().to_string();
    assert!(err.contains("unknown variant `edf`") && err.contains("`pf`, `rr`, `mt`, `bet`, `priority`"), "{err}");
}
