//! Assembly: a scenario becomes cells, links and flows' surroundings. The engine's event
//! loop (`engine.rs`) runs what is built here; the load estimate (`load.rs`), the uplinks
//! (`uplink.rs`) and the real-time emulator (`cellshare-emu`) build the same cells through
//! the same functions.
//!
//! [`build_ran`] is the entry point: without `[network]` it is one cell
//! ([`build_cell`]) in a [`Ran`] of one member; with it, every cell of the layout with a slot
//! for every UE (its radio channel towards that cell, its RLC queue), the UEs' movements and
//! the interference board. The queue disciplines, DiffServ classes and cell-level droppers
//! come from `cellshare_aqm::AqmConfig`, the channels from [`ChannelConfig::build`].

use cellshare_aqm::{AqmConfig, CellSite, QueueSet, QueueSite};
use cellshare_cell::{Cell, LinkKind, RlcQueue};
use cellshare_channel::{Channel, LoadBoard, RadioChannel};
use cellshare_core::{stream_rng, ScenarioError};
use cellshare_ran::{geometry, Measurement, MobileUe, MobilityConfig, Propagation, Ran, Track};

use crate::channel::ChannelConfig;
use crate::scenario::Scenario;

pub use crate::traces::{PositionTraces, TraceSet};

/// The RLC queue of UE `ue` in cell `cell` under `cfg`, its byte limit `bytes`: the
/// discipline (or DiffServ classes) `cfg` builds (`cellshare_aqm::AqmConfig::queue`).
fn queue_for(cfg: &AqmConfig, bytes: u64, seed: u64, ue: u64, cell: u64) -> RlcQueue {
    match cfg.queue(bytes, QueueSite { seed, ue, class: 0, cell }) {
        QueueSet::Single(aqm) => RlcQueue::new(aqm),
        QueueSet::Classes { classes, class_of } => RlcQueue::with_classes(classes, &class_of),
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
    let n_prb = sc.cell.n_prb()?;
    let slot = sc.cell.slot();
    let mut cell = Cell::new(n_prb, sc.cell.scheduler);
    cell.set_slot(slot);
    let nr = nr_radio(sc, n_prb);
    if let Some((phy, _)) = &nr {
        cell.set_nr(*phy);
    }
    let nr = nr.map(|(_, r)| r);
    let mut snrs = Vec::new();
    for (gi, g) in sc.ues.iter().enumerate() {
        let at = format!("ues[{gi}].channel");
        for _ in 0..g.count {
            let idx = snrs.len() as u64;
            let mut rng = stream_rng(seed, "ue-channel", idx);
            let channel = g.channel.build(n_prb, slot, nr.as_ref(), traces, &mut rng, &at)?;
            let mean_snr_db = match &channel {
                Channel::Radio(r) => Some(r.mean_snr_db()),
                _ => None,
            };
            cell.add_ue_with_queue(channel, queue_for(&sc.cell.aqm, sc.cell.rlc_queue_bytes, seed, idx, 0));
            snrs.push(mean_snr_db);
        }
    }
    finish_cell(&mut cell, sc, 0);
    Ok((cell, snrs))
}


/// An NR cell's PHY for a carrier of `n_prb` PRBs and what its radio channels follow (CQI
/// thresholds at TS 38.214's 0.1: the ideal link's rule, until the realistic link installs
/// its target's); `None` on LTE.
pub fn nr_radio(sc: &Scenario, n_prb: u32) -> Option<(cellshare_cell::nr::NrPhy, cellshare_channel::NrRadio)> {
    sc.cell.is_nr().then(|| {
        let phy = sc.cell.nr.phy(n_prb);
        (phy, phy.radio(0.1))
    })
}

/// Installs the cell-wide parts named by the scenario on `cell` (index `index` of its
/// network; 0 for a lone cell): the radio link and the cell-level dropper.
fn finish_cell(cell: &mut Cell, sc: &Scenario, index: u64) {
    let seed = sc.simulation.seed;
    // The first cell draws from the scenario's own streams; the others from streams salted
    // with their index.
    let salted = if index == 0 { seed } else { seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15) };
    cell.set_link(&sc.cell.effective_link(), salted);
    if let Some((dropper, active_window)) = sc.cell.aqm.dropper(&CellSite { seed, cell: index, slot: sc.cell.slot() }) {
        cell.set_dropper(dropper, active_window);
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
    let n_prb = sc.cell.n_prb()?;
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
    // Every cell, with a slot per UE: all of one RAT and numerology, those of `[cell]` (an NR
    // network's cells share its carrier, PHY and TDD pattern).
    let nr = nr_radio(sc, n_prb);
    let mut cells = Vec::with_capacity(n_cells);
    for (c, site) in sites.iter().enumerate() {
        let mut cell = Cell::new(n_prb, sc.cell.scheduler);
        cell.set_slot(sc.cell.slot());
        if let Some((phy, _)) = &nr {
            cell.set_nr(*phy);
        }
        for (i, (ue, r)) in ues.iter_mut().zip(&configs).enumerate() {
            let d = ((ue.pos[0] - site.pos[0]).powi(2) + (ue.pos[1] - site.pos[1]).powi(2)).sqrt().max(1e-3);
            let placed = cellshare_channel::RadioConfig { distance_m: Some(d), distance_range_m: None, ..r.clone() };
            let mut rng = stream_rng(seed, "ue-channel", i as u64 + ((c as u64) << 32));
            let mut ch = RadioChannel::new(&placed, n_prb, &mut rng);
            ch.set_slot(sc.cell.slot());
            if let Some((_, radio)) = &nr {
                ch.set_nr(radio);
            }
            // After `set_nr`: an NR PRB's noise is that of its wider bandwidth.
            ue.noise_mw = ch.noise_mw();
            cell.add_ue_with_queue(Channel::Radio(Box::new(ch)), queue_for(&sc.cell.aqm, sc.cell.rlc_queue_bytes, seed, i as u64, c as u64));
        }
        finish_cell(&mut cell, sc, c as u64);
        cells.push(cell);
    }
    let pipeline = if sc.cell.link.kind == LinkKind::Realistic { u64::from(sc.cell.link.pipeline_delay_tti) } else { 0 };
    let board = LoadBoard::new(n_cells, n_prb);
    let mut ran = Ran::network(net, sites, cells, ues, board, pipeline);
    ran.set_tdd(sc.cell.tdd());
    let snrs = (0..ran.n_ues() as u32)
        .map(|u| match ran.channel_mut(u) {
            Channel::Radio(r) => Some(r.mean_snr_db()),
            _ => None,
        })
        .collect();
    Ok((ran, snrs))
}
