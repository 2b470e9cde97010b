//! Assembly: a scenario becomes cells, links and flows' surroundings. The engine's event
//! loop (`engine.rs`) runs what is built here; the load estimate (`load.rs`), the uplinks
//! (`uplink.rs`) and the real-time emulator (`cellshare-emu`) build the same cells through
//! the same functions.
//!
//! [`build_ran`] is the entry point: without `[network]` it is one cell
//! ([`build_cell`]) in a [`Ran`] of one member; with it, every cell of the layout with a slot
//! for every UE (its radio channel towards that cell, its RLC queue), the UEs' movements and
//! the interference board.

use std::collections::BTreeMap;
use std::sync::Arc;

use cellshare_aqm::{limit_of, Aqm, Bode, CoDel, Dropper, HeadDrop, Pie, Red, Sneaker, StrictPriority, TailDrop};
use cellshare_cell::{Cell, LinkKind, RlcQueue};
use cellshare_channel::{Channel, FixedChannel, LoadBoard, MahimahiTrace, RadioChannel, TraceChannel};
use cellshare_core::stream_rng;
use cellshare_core::time::from_millis_f64;
use cellshare_ran::{geometry, Measurement, MobileUe, MobilityConfig, PositionTrace, Propagation, Ran, Track};
use rand::Rng;

use crate::scenario::{AqmConfig, ChannelConfig, Scenario, ScenarioError};

/// Parsed trace files by the file string written in the scenario.
pub type TraceSet = BTreeMap<String, Arc<MahimahiTrace>>;

/// Parsed position traces (`ues[i].mobility = { kind = "trace" }`) by the file string written
/// in the scenario.
pub type PositionTraces = BTreeMap<String, Arc<PositionTrace>>;

/// The discipline of one queue (UE `ue`, class `class`) whose byte limit is `bytes`.
/// Random disciplines draw from stream ("aqm", ue·256 + class), with the cell index in bits
/// 40 and up for the cells of a network after the first.
fn aqm_for(cfg: &AqmConfig, bytes: u64, seed: u64, ue: u64, class: u64, cell: u64) -> Aqm {
    let rng = || stream_rng(seed, "aqm", (ue * 256 + class) ^ (cell << 40));
    match cfg {
        AqmConfig::TailDrop { limit_packets } => Aqm::TailDrop(TailDrop { limit: limit_of(*limit_packets, bytes) }),
        AqmConfig::HeadDrop { limit_packets } => Aqm::HeadDrop(HeadDrop { limit: limit_of(*limit_packets, bytes) }),
        AqmConfig::Red(c) => Aqm::Red(Box::new(Red::new(c, limit_of(c.limit_packets, bytes), rng()))),
        AqmConfig::Codel(c) => Aqm::CoDel(Box::new(CoDel::new(c, limit_of(c.limit_packets, bytes)))),
        AqmConfig::Pie(c) => Aqm::Pie(Box::new(Pie::new(c, limit_of(c.limit_packets, bytes), rng()))),
        AqmConfig::Bode(c) => Aqm::Bode(Bode::new(c, limit_of(c.limit_packets, bytes))),
        // Cell-level droppers run in front of tail-drop UE queues.
        AqmConfig::StrictPriority {} | AqmConfig::Sneaker(_) | AqmConfig::Diffserv(_) => Aqm::TailDrop(TailDrop { limit: limit_of(None, bytes) }),
    }
}

/// The RLC queue of UE `ue` under `cfg`.
fn queue_for(cfg: &AqmConfig, bytes: u64, seed: u64, ue: u64, cell: u64) -> RlcQueue {
    match cfg {
        AqmConfig::Diffserv(d) => {
            let mut class_of = vec![(d.classes.len() - 1) as u8; 256];
            for (i, c) in d.classes.iter().enumerate() {
                for &v in &c.dscp {
                    class_of[v as usize] = i as u8;
                }
            }
            let classes = d.classes.iter().enumerate().map(|(i, c)| aqm_for(&c.aqm, c.queue_bytes.unwrap_or(bytes), seed, ue, i as u64, cell)).collect();
            RlcQueue::with_classes(classes, &class_of)
        }
        _ => RlcQueue::new(aqm_for(cfg, bytes, seed, ue, 0, cell)),
    }
}

/// Builds the scenario's cell: one UE per entry of every `[[ues]]` group with its channel
/// (fixed, trace, radio; UE `i` draws from the stream `("ue-channel", i)` of the scenario seed),
/// its RLC queue (discipline, or DiffServ classes), the radio link (`cell.link`: the
/// realistic link's block errors, HARQ and pipeline for radio UEs) and the cell-level dropper
/// if any. Returns the cell and each UE's mean SNR in dB (radio UEs).
/// Shared by the simulator and the real-time emulator (`cellshare-emu`), so both run the same
/// cell for the same scenario. `traces` holds the parsed trace files keyed as written.
pub fn build_cell(sc: &Scenario, traces: &TraceSet) -> Result<(Cell, Vec<Option<f64>>), ScenarioError> {
    let seed = sc.simulation.seed;
    let n_prb = cellshare_channel::prbs_for_bandwidth(sc.cell.bandwidth_mhz)
        .ok_or_else(|| ScenarioError::new("cell.bandwidth_mhz", sc.cell.bandwidth_mhz, "one of 1.4, 3, 5, 10, 15, 20 (MHz)"))?;
    let mut cell = Cell::new(n_prb, sc.cell.scheduler);
    let mut snrs = Vec::new();
    for (gi, g) in sc.ues.iter().enumerate() {
        for _ in 0..g.count {
            let idx = snrs.len() as u64;
            let mut rng = stream_rng(seed, "ue-channel", idx);
            let mut mean_snr_db = None;
            let channel = match &g.channel {
                ChannelConfig::Fixed { rate_mbps } => Channel::Fixed(FixedChannel::new((rate_mbps * 1e6).round() as u64)),
                ChannelConfig::Trace { file, offset_ms, random_offset } => {
                    let trace = traces.get(file).cloned().ok_or_else(|| {
                        ScenarioError::new(format!("ues[{gi}].channel.file"), format!("{file:?}"), "a trace file that was loaded")
                    })?;
                    let off = if *random_offset { rng.gen_range(0..trace.period_ms()) } else { *offset_ms };
                    Channel::Trace(TraceChannel::new(trace, off))
                }
                ChannelConfig::Radio(r) => {
                    let ch = RadioChannel::new(r, n_prb, &mut rng);
                    mean_snr_db = Some(ch.mean_snr_db());
                    Channel::Radio(Box::new(ch))
                }
            };
            cell.add_ue_with_queue(channel, queue_for(&sc.cell.aqm, sc.cell.rlc_queue_bytes, seed, idx, 0));
            snrs.push(mean_snr_db);
        }
    }
    finish_cell(&mut cell, sc, 0);
    Ok((cell, snrs))
}


/// Installs the cell-wide parts named by the scenario on `cell` (index `index` of its
/// network; 0 for a lone cell): the radio link and the cell-level dropper.
fn finish_cell(cell: &mut Cell, sc: &Scenario, index: u64) {
    let seed = sc.simulation.seed;
    // The first cell draws from the scenario's own streams; the others from streams salted
    // with their index.
    let salted = if index == 0 { seed } else { seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15) };
    cell.set_link(&sc.cell.link, salted);
    match &sc.cell.aqm {
        AqmConfig::StrictPriority {} => cell.set_dropper(Dropper::StrictPriority(StrictPriority), 0),
        AqmConfig::Sneaker(c) => {
            let d = Dropper::Sneaker(Box::new(Sneaker::new(c, stream_rng(seed, "sneaker", index))));
            cell.set_dropper(d, from_millis_f64(c.active_window_ms));
        }
        _ => {}
    }
}

/// Builds the scenario's radio access network: one cell ([`build_cell`]) without
/// `[network]`, or every cell of the network with the UEs' movements. UE `i`'s channel
/// towards cell `c` draws from the stream ("ue-channel", i + c·2³²) (cell 0's is a lone
/// cell's), its movement from ("mobility", i). Returns the network and each UE's mean SNR in
/// dB towards its first serving cell (radio UEs). `positions` holds the parsed position
/// traces keyed as written.
pub fn build_ran(sc: &Scenario, traces: &TraceSet, positions: &PositionTraces) -> Result<(Ran, Vec<Option<f64>>), ScenarioError> {
    let Some(net) = &sc.network else {
        let (cell, snrs) = build_cell(sc, traces)?;
        return Ok((Ran::single(cell), snrs));
    };
    let seed = sc.simulation.seed;
    let n_prb = cellshare_channel::prbs_for_bandwidth(sc.cell.bandwidth_mhz)
        .ok_or_else(|| ScenarioError::new("cell.bandwidth_mhz", sc.cell.bandwidth_mhz, "one of 1.4, 3, 5, 10, 15, 20 (MHz)"))?;
    let sites = geometry::cells(net);
    let area = geometry::area(net);
    let n_cells = sites.len();
    // The UEs: movement, propagation, position at time 0.
    let mut ues: Vec<MobileUe> = Vec::new();
    let mut configs = Vec::new();
    for (gi, g) in sc.ues.iter().enumerate() {
        let ChannelConfig::Radio(r) = &g.channel else {
            return Err(ScenarioError::new(format!("ues[{gi}].channel.kind"), format!("{:?}", g.channel.kind()), "\"radio\" (a network's UEs are radio UEs)"));
        };
        let mobility = g.mobility.clone().unwrap_or(MobilityConfig::Static { position_m: None });
        let trace = match &mobility {
            MobilityConfig::Trace { file } => Some(positions.get(file).cloned().ok_or_else(|| {
                ScenarioError::new(format!("ues[{gi}].mobility.file"), format!("{file:?}"), "a position trace file that was loaded")
            })?),
            _ => None,
        };
        if let Some(t) = &trace {
            let outside = t.samples().iter().position(|&(_, p)| !(p[0] >= area[0][0] && p[0] <= area[1][0] && p[1] >= area[0][1] && p[1] <= area[1][1]));
            if let Some(i) = outside {
                let (ts, p) = t.samples()[i];
                return Err(ScenarioError::new(
                    format!("ues[{gi}].mobility.file"),
                    format!("the position {} at {ts} s", cellshare_ran::config::point_text(p)),
                    format!("positions inside the network's area [{}, {}]", cellshare_ran::config::point_text(area[0]), cellshare_ran::config::point_text(area[1])),
                ));
            }
        }
        for _ in 0..g.count {
            let idx = ues.len() as u64;
            let mut track = Track::new(&mobility, area, stream_rng(seed, "mobility", idx), trace.clone());
            let (pos, _) = track.at(0.0);
            let track = Track::new(&mobility, area, stream_rng(seed, "mobility", idx), trace.clone());
            let prop = Propagation::new(r, n_prb);
            ues.push(MobileUe {
                track,
                prop,
                noise_mw: 0.0,
                pos,
                speed_kmh: 0.0,
                gains: Vec::new(),
                meas: Measurement::new(n_cells, net.handover.filter_coefficient),
            });
            configs.push(r.clone());
        }
    }
    // Every cell, with a slot per UE.
    let mut cells = Vec::with_capacity(n_cells);
    for (c, site) in sites.iter().enumerate() {
        let mut cell = Cell::new(n_prb, sc.cell.scheduler);
        for (i, (ue, r)) in ues.iter_mut().zip(&configs).enumerate() {
            let d = ((ue.pos[0] - site.pos[0]).powi(2) + (ue.pos[1] - site.pos[1]).powi(2)).sqrt().max(1e-3);
            let placed = cellshare_channel::RadioConfig { distance_m: Some(d), distance_range_m: None, ..r.clone() };
            let mut rng = stream_rng(seed, "ue-channel", i as u64 + ((c as u64) << 32));
            let ch = RadioChannel::new(&placed, n_prb, &mut rng);
            ue.noise_mw = ch.noise_mw();
            cell.add_ue_with_queue(Channel::Radio(Box::new(ch)), queue_for(&sc.cell.aqm, sc.cell.rlc_queue_bytes, seed, i as u64, c as u64));
        }
        finish_cell(&mut cell, sc, c as u64);
        cells.push(cell);
    }
    let pipeline = if sc.cell.link.kind == LinkKind::Realistic { u64::from(sc.cell.link.pipeline_delay_tti) } else { 0 };
    let board = LoadBoard::new(n_cells, n_prb);
    let mut ran = Ran::network(net, sites, cells, ues, board, pipeline);
    let snrs = (0..ran.n_ues() as u32)
        .map(|u| match ran.channel_mut(u) {
            Channel::Radio(r) => Some(r.mean_snr_db()),
            _ => None,
        })
        .collect();
    Ok((ran, snrs))
}
