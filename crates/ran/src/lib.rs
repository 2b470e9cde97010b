//! # cellshare-ran
//!
//! The radio access network above [`Cell`]: one or many cells, where the UEs are and how they
//! move ([`mobility`]), what they measure of every cell, the A3 handover rule and the
//! handover itself ([`handover`]), and the interference the cells cause each other
//! ([`cellshare_channel::interference`]).
//!
//! A [`Ran`] owns its cells. Every cell keeps a slot (RLC queue, channel, link state) for
//! every UE of the scenario, so a packet's UE index means the same UE in every cell; a UE is
//! served by one cell at a time, and only that cell ever queues its packets. A scenario
//! without `[network]` is a `Ran` of one cell whose UEs never move: the same code path, with
//! nothing to do between TTIs ([`Ran::single`]).
//!
//! Per TTI ([`Ran::run_tti`]; an NR cell's slot): when due, the UEs move (every
//! [`POSITION_STEP_MS`] ms) and
//! measure (every `measurement_period_ms`), and handovers whose time to trigger has run out
//! are carried out; then every cell schedules its TTI, and each cell's PRBs on air are written
//! to the interference board the UEs' channels read.

#![warn(missing_docs)]

pub mod config;
pub mod geometry;
pub mod handover;
pub mod mobility;

use std::sync::Arc;

use cellshare_cell::nr::TddPattern;
use cellshare_cell::{Cell, Delivery, DropCause, LinkStats, RlcQueue, TtiReport};
use cellshare_channel::{Channel, LinkBudget, LoadBoard};
use cellshare_core::{Nanos, PacketArena, PacketId, Slot};

pub use config::{Forwarding, HandoverConfig, Layout, MobilityConfig, NetworkConfig, Quantity};
pub use geometry::{CellSite, Propagation};
pub use handover::{HandoverLog, Measurement};
pub use mobility::{PositionTrace, PositionTraceError, Track};

/// Milliseconds between two updates of the UEs' positions (100 ms: 3 m at 110 km/h, a
/// path-loss change of at most 0.15 dB at 300 m with exponent 3.52). A time, not a count of
/// slots: 100 TTIs of an LTE cell, 100·2^μ slots of an NR cell; likewise the handover's
/// interruption, time to trigger and measurement period, given in ms.
pub const POSITION_STEP_MS: u64 = 100;

/// The speed the fast fading's Doppler is drawn for: the UE's speed rounded to the nearest
/// 10 km/h, and 3 km/h (pedestrian) below 5 km/h, standing still included (a phone in a
/// street or a car sees the scatterers move). The fading tables are made per Doppler
/// frequency, so speeds are kept to a few values.
pub fn doppler_speed_kmh(speed_kmh: f64) -> f64 {
    if speed_kmh < 5.0 {
        3.0
    } else {
        (speed_kmh / 10.0).round() * 10.0
    }
}

/// A UE of a network: where it is, what it receives from each cell, and its measurements.
#[derive(Debug)]
pub struct MobileUe {
    /// Its movement.
    pub track: Track,
    /// Its propagation towards every cell (its group's radio configuration).
    pub prop: Propagation,
    /// Thermal noise per PRB of its receiver, mW.
    pub noise_mw: f64,
    /// Position, metres.
    pub pos: [f64; 2],
    /// Speed, km/h.
    pub speed_kmh: f64,
    /// Linear path gain from each cell (antenna gain included).
    pub gains: Vec<f64>,
    /// Measurement and A3 state.
    pub meas: Measurement,
}

/// The network part of a [`Ran`] (absent for a single static cell).
#[derive(Debug)]
struct Network {
    sites: Vec<CellSite>,
    board: Arc<LoadBoard>,
    interference: bool,
    ho: HandoverConfig,
    n_prb: u32,
    /// TTIs from a scheduling decision to its blocks on air.
    pipeline: u64,
    ues: Vec<MobileUe>,
    any_moving: bool,
    next_position: u64,
    next_measurement: u64,
    /// The earliest time-to-trigger expiry (u64::MAX: none).
    next_deadline: u64,
    interruption_tti: u64,
    ttt_tti: u64,
    period_tti: u64,
    /// [`POSITION_STEP_MS`] in the cells' slots.
    position_step: u64,
    /// PRBs used per cell since the last measurement (RSRQ's RSSI), and since when.
    meas_prbs: Vec<u64>,
    meas_from: u64,
    log: HandoverLog,
    forwarded: Vec<PacketId>,
    /// An NR TDD pattern shared by every cell (`None`: FDD, or LTE): the cells transmit
    /// downlink only in its `D` and `S` slots.
    tdd: Option<TddPattern>,
}

/// One or many cells and the UEs moving between them.
#[derive(Debug)]
pub struct Ran {
    cells: Vec<Cell>,
    /// The serving cell of each UE.
    serving: Vec<u32>,
    net: Option<Box<Network>>,
    /// PRBs used per cell over the run.
    prbs_used: Vec<u64>,
}

impl Ran {
    /// One cell, UEs standing still: the scenario without `[network]`.
    pub fn single(cell: Cell) -> Self {
        let n = cell.n_ues();
        Self {
            cells: vec![cell],
            serving: vec![0; n],
            net: None,
            prbs_used: vec![0],
        }
    }

    /// A network of `cells` (each with a slot for every UE, whose radio channels are built
    /// towards that cell) at `sites`, with the UEs' movements `ues`. `pipeline` is the TTIs
    /// from a decision to its blocks on air (the realistic link's `pipeline_delay_tti`, 0 for
    /// the ideal link); `board` is the interference board the channels read. Each UE starts
    /// in the cell it receives strongest at time 0.
    ///
    /// # Panics
    /// If the counts disagree or a UE's channel is not a radio channel.
    pub fn network(
        cfg: &NetworkConfig,
        sites: Vec<CellSite>,
        cells: Vec<Cell>,
        ues: Vec<MobileUe>,
        board: Arc<LoadBoard>,
        pipeline: u64,
    ) -> Self {
        assert_eq!(sites.len(), cells.len(), "one site entry per cell");
        assert!(
            cells.iter().all(|c| c.n_ues() == ues.len()),
            "every cell has a slot per UE"
        );
        let n_prb = cells[0].n_prb();
        let slot = cells[0].slot();
        assert!(cells.iter().all(|c| c.slot() == slot), "the cells of a network share their slot");
        let n_cells = cells.len();
        let ho = cfg.handover.clone();
        let per_ms = slot.per_ms() as f64;
        let mut net = Network {
            sites,
            board,
            interference: cfg.interference,
            n_prb,
            pipeline,
            any_moving: ues.iter().any(|u| u.track.moves()),
            ues,
            next_position: slot.of_ms(POSITION_STEP_MS),
            position_step: slot.of_ms(POSITION_STEP_MS),
            next_measurement: 0,
            next_deadline: u64::MAX,
            interruption_tti: (ho.interruption_ms * per_ms).round() as u64,
            ttt_tti: (ho.time_to_trigger_ms * per_ms).round() as u64,
            period_tti: slot.of_ms(ho.measurement_period_ms),
            meas_prbs: vec![0; n_cells],
            meas_from: 0,
            log: HandoverLog::default(),
            forwarded: Vec::new(),
            tdd: None,
            ho,
        };
        let mut ran = Self {
            serving: vec![0; net.ues.len()],
            cells,
            net: None,
            prbs_used: vec![0; n_cells],
        };
        for u in 0..net.ues.len() {
            let ue = &mut net.ues[u];
            let (pos, v) = ue.track.at(0.0);
            ue.pos = pos;
            ue.speed_kmh = v * 3.6;
            ue.gains = net.sites.iter().map(|s| ue.prop.gain(s, pos)).collect();
            // The strongest cell at time 0, with its shadowing.
            let mut best = (f64::NEG_INFINITY, 0usize);
            for c in 0..n_cells {
                let sh = radio(&mut ran.cells[c], u as u32).shadowing_db_at(0);
                let rsrp = ue.prop.tx_re_dbm + 10.0 * ue.gains[c].log10() + sh;
                if rsrp > best.0 {
                    best = (rsrp, c);
                }
            }
            ran.serving[u] = best.1 as u32;
            for c in 0..n_cells {
                let ch = radio(&mut ran.cells[c], u as u32);
                ch.set_speed_kmh(doppler_speed_kmh(ue.speed_kmh));
            }
        }
        ran.net = Some(Box::new(net));
        for u in 0..ran.serving.len() {
            ran.update_budget(u);
        }
        ran
    }

    /// Declares the TDD pattern every cell of the network follows (an NR network with
    /// `cell.nr.tdd_pattern`; the caller runs [`run_tti`](Self::run_tti) in its downlink
    /// slots only). Two things follow from it:
    ///
    /// - **Interference across uplink slots.** A UE's SINR in slot t reads the loads on air
    ///   in slot t − 1 (`cellshare_channel::interference`, "one TTI behind"). After an uplink
    ///   slot, slot t − 1 carried no downlink, and an unwritten row reads as every cell idle:
    ///   the first downlink slot after every `U` would see no interference at all. The
    ///   network's cells are synchronised (one pattern from slot 0), so the neighbours
    ///   transmit downlink in slot t whenever the serving cell does; the proxy for their load
    ///   is their load in the last downlink slot, so the board holds each downlink slot's row
    ///   over the non-downlink slots that follow it.
    /// - **RSRQ's load.** A UE measures the carrier RSSI of RSRQ on downlink symbols, and in
    ///   an uplink slot no cell transmits downlink: the load a measurement averages is over
    ///   the downlink slots of the measurement period, not over all its slots (a choice; over
    ///   all slots would dilute every cell's load by the pattern's downlink share alike).
    ///
    /// A single cell ([`Ran::single`]) ignores it (it has no board).
    pub fn set_tdd(&mut self, tdd: Option<TddPattern>) {
        if let Some(n) = self.net.as_deref_mut() {
            n.tdd = tdd;
        }
    }

    /// The cells.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Number of cells.
    pub fn n_cells(&self) -> usize {
        self.cells.len()
    }

    /// PRBs per cell per TTI.
    pub fn n_prb(&self) -> u32 {
        self.cells[0].n_prb()
    }

    /// Number of UEs.
    pub fn n_ues(&self) -> usize {
        self.serving.len()
    }

    /// The cell serving UE `ue`.
    #[inline]
    pub fn serving(&self, ue: u32) -> u32 {
        self.serving[ue as usize]
    }

    /// UE `ue`'s RLC queue at its serving cell.
    pub fn queue(&self, ue: u32) -> &RlcQueue {
        &self.cells[self.serving[ue as usize] as usize].ue(ue).queue
    }

    /// UE `ue`'s channel towards its serving cell.
    pub fn channel_mut(&mut self, ue: u32) -> &mut Channel {
        let c = self.serving[ue as usize] as usize;
        &mut self.cells[c].ue_mut(ue).channel
    }

    /// What the realistic link did for UE `ue` so far, summed over the cells that served it
    /// (`None` without a realistic link).
    pub fn link_stats(&self, ue: u32) -> Option<LinkStats> {
        let mut any = None;
        for c in &self.cells {
            if let Some(s) = c.link_stats(ue) {
                any.get_or_insert_with(LinkStats::default).add(&s);
            }
        }
        any
    }

    /// PRBs each cell used over the run so far.
    pub fn prbs_used(&self) -> &[u64] {
        &self.prbs_used
    }

    /// The cells' sites (empty without a network).
    pub fn sites(&self) -> &[CellSite] {
        self.net.as_ref().map_or(&[], |n| &n.sites)
    }

    /// The interference board the UEs' channels read (a network only).
    pub fn board(&self) -> Option<&Arc<LoadBoard>> {
        self.net.as_ref().map(|n| &n.board)
    }

    /// Whether the scenario has a `[network]`.
    pub fn is_network(&self) -> bool {
        self.net.is_some()
    }

    /// The handovers so far (`None` without a network).
    pub fn handovers(&self) -> Option<&HandoverLog> {
        self.net.as_ref().map(|n| &n.log)
    }

    /// UE `ue`'s position (metres), speed (km/h) and the filtered RSRP of its serving cell
    /// (dBm; NaN before the first measurement), in a network.
    pub fn whereabouts(&self, ue: u32) -> Option<([f64; 2], f64, f64)> {
        let n = self.net.as_ref()?;
        let u = &n.ues[ue as usize];
        Some((
            u.pos,
            u.speed_kmh,
            u.meas.rsrp_dbm(self.serving[ue as usize] as usize),
        ))
    }

    /// Whether some cell has work in the coming TTIs.
    #[inline]
    pub fn has_backlog(&self) -> bool {
        self.cells.iter().any(|c| c.has_backlog())
    }

    /// The next TTI at which the UEs move, measure or may be handed over even if no cell has
    /// work (`u64::MAX`: never; a single static cell).
    #[inline]
    pub fn next_tick(&self) -> u64 {
        match &self.net {
            None => u64::MAX,
            Some(n) => {
                let pos = if n.any_moving {
                    n.next_position
                } else {
                    u64::MAX
                };
                pos.min(n.next_measurement).min(n.next_deadline)
            }
        }
    }

    /// Offers packet `id` (destined to UE `pkt.ue`) to the UE's serving cell at `now`.
    #[inline]
    pub fn enqueue(
        &mut self,
        now: Nanos,
        id: PacketId,
        arena: &mut PacketArena,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let c = self.serving[arena.get(id).ue as usize] as usize;
        self.cells[c].enqueue(now, id, arena, dropped);
    }

    /// Runs TTI `tti` (starting at `now`): moves, measurements and handovers due, then every
    /// cell's scheduler. Packets reaching their UE at the end of the TTI go to `delivered`,
    /// packets dropped (dequeue disciplines, lost over the air or at a handover) to `dropped`.
    pub fn run_tti(
        &mut self,
        tti: u64,
        now: Nanos,
        arena: &mut PacketArena,
        delivered: &mut Vec<Delivery>,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> TtiReport {
        if self.net.is_none() {
            let r = self.cells[0].run_tti(tti, now, arena, delivered, dropped);
            self.prbs_used[0] += r.prbs_used as u64;
            return r;
        }
        if tti >= self.next_tick() {
            self.tick(tti, now, arena, delivered, dropped);
        }
        let mut report = TtiReport::default();
        {
            let net = self.net.as_deref().expect("a network");
            net.board.open(tti + net.pipeline);
        }
        for c in 0..self.cells.len() {
            let r = self.cells[c].run_tti(tti, now, arena, delivered, dropped);
            let net = self.net.as_deref_mut().expect("a network");
            if r.prbs_used > 0 {
                net.board.set(c, tti + net.pipeline, r.prbs_used);
                net.meas_prbs[c] += r.prbs_used as u64;
                self.prbs_used[c] += r.prbs_used as u64;
            }
            report.prbs_used += r.prbs_used;
            report.bytes_sent += r.bytes_sent;
            report.ues_served += r.ues_served;
        }
        // Every cell has written the row of the blocks decided in this TTI.
        let net = self.net.as_deref().expect("a network");
        net.board.seal(tti + net.pipeline);
        if let Some(p) = net.tdd {
            // Hold this row over the slots without downlink that follow (`set_tdd`).
            let mut next = tti + 1;
            while !p.is_downlink(next) {
                net.board.open(next + net.pipeline);
                for c in 0..self.cells.len() {
                    let prbs = net.board.prbs(c, tti + net.pipeline);
                    if prbs > 0 {
                        net.board.set(c, next + net.pipeline, prbs);
                    }
                }
                net.board.seal(next + net.pipeline);
                next += 1;
            }
        }
        report
    }

    /// Moves, measures and hands over what is due at TTI `tti`.
    fn tick(
        &mut self,
        tti: u64,
        now: Nanos,
        arena: &mut PacketArena,
        delivered: &mut Vec<Delivery>,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let net = self.net.as_deref_mut().expect("a network");
        if net.any_moving && tti >= net.next_position {
            net.next_position = (tti / net.position_step + 1) * net.position_step;
            let t_s = now as f64 / 1e9;
            for u in 0..net.ues.len() {
                let ue = &mut net.ues[u];
                if !ue.track.moves() {
                    continue;
                }
                let (pos, v) = ue.track.at(t_s);
                let speed = v * 3.6;
                let doppler_changed = doppler_speed_kmh(speed) != doppler_speed_kmh(ue.speed_kmh);
                ue.pos = pos;
                ue.speed_kmh = speed;
                for (g, s) in ue.gains.iter_mut().zip(&net.sites) {
                    *g = ue.prop.gain(s, pos);
                }
                let c = self.serving[u] as usize;
                if doppler_changed {
                    radio(&mut self.cells[c], u as u32).set_speed_kmh(doppler_speed_kmh(speed));
                }
                set_budget(&mut self.cells[c], net, u, c);
            }
        }
        let net = self.net.as_deref_mut().expect("a network");
        if tti >= net.next_measurement {
            // On the grid of measurement periods from slot 0 (where the measurement ran late,
            // in the first downlink slot after an uplink one, the next one is not shifted).
            net.next_measurement = (tti / net.period_tti + 1) * net.period_tti;
            let span = match net.tdd {
                None => tti - net.meas_from,
                Some(p) => (net.meas_from..tti).filter(|&s| p.is_downlink(s)).count() as u64,
            }
            .max(1);
            let loads: Vec<f64> = net
                .meas_prbs
                .iter()
                .map(|&p| p as f64 / (span as f64 * f64::from(net.n_prb)))
                .collect();
            net.meas_prbs.iter_mut().for_each(|p| *p = 0);
            net.meas_from = tti;
            for u in 0..net.ues.len() {
                let ue = &mut net.ues[u];
                let mut rsrp = std::mem::take(&mut ue.meas.scratch);
                rsrp.clear();
                for c in 0..self.cells.len() {
                    let sh = radio(&mut self.cells[c], u as u32).shadowing_db_at(tti);
                    rsrp.push(ue.prop.tx_re_dbm + 10.0 * ue.gains[c].log10() + sh);
                }
                ue.meas.measure(&rsrp, &loads, ue.noise_mw);
                ue.meas.scratch = rsrp;
                if net.ho.enabled && self.cells.len() > 1 && tti >= ue.meas.busy_until {
                    ue.meas.evaluate_a3(self.serving[u] as usize, tti, &net.ho);
                }
            }
            net.next_deadline = 0;
        }
        if tti >= net.next_deadline {
            let mut next = u64::MAX;
            for u in 0..self.serving.len() {
                let net = self.net.as_deref().expect("a network");
                if let Some(target) = net.ues[u].meas.due(tti, net.ttt_tti, &net.ho) {
                    self.hand_over(u as u32, target, tti, now, arena, delivered, dropped);
                }
                let net = self.net.as_deref().expect("a network");
                next = next.min(net.ues[u].meas.next_deadline(net.ttt_tti));
            }
            self.net.as_deref_mut().expect("a network").next_deadline = next;
        }
    }

    /// Hands UE `ue` over to cell `target` at the start of TTI `tti`.
    #[allow(clippy::too_many_arguments)]
    fn hand_over(
        &mut self,
        ue: u32,
        target: usize,
        tti: u64,
        now: Nanos,
        arena: &mut PacketArena,
        delivered: &mut Vec<Delivery>,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) {
        let u = ue as usize;
        let source = self.serving[u] as usize;
        let lost_before = dropped.len();
        let mut forwarded =
            std::mem::take(&mut self.net.as_deref_mut().expect("a network").forwarded);
        forwarded.clear();
        self.cells[source].detach(ue, tti, arena, delivered, dropped, &mut forwarded);
        let lost = (dropped.len() - lost_before) as u64;
        self.serving[u] = target as u32;
        let net = self.net.as_deref_mut().expect("a network");
        let speed = doppler_speed_kmh(net.ues[u].speed_kmh);
        radio(&mut self.cells[target], ue).set_speed_kmh(speed);
        set_budget(&mut self.cells[target], net, u, target);
        self.cells[target].attach(ue, tti + net.interruption_tti);
        let mut kept = 0u64;
        match net.ho.forwarding {
            Forwarding::X2 => {
                for &id in &forwarded {
                    let stamp = arena.get(id).enqueued_at;
                    let before = dropped.len();
                    self.cells[target].enqueue(now, id, arena, dropped);
                    if !dropped[before..].iter().any(|&(d, _)| d == id) {
                        // It has waited since it reached the old cell.
                        arena.get_mut(id).enqueued_at = stamp;
                        kept += 1;
                    }
                }
            }
            Forwarding::Drop => {
                dropped.extend(forwarded.iter().map(|&id| (id, DropCause::Handover)))
            }
        }
        let net = self.net.as_deref_mut().expect("a network");
        let m = &mut net.ues[u].meas;
        net.log.push(handover::HandoverRecord {
            t_s: now as f64 / 1e9,
            ue,
            source: source as u32,
            target: target as u32,
            rsrp_source_dbm: m.rsrp_dbm(source),
            rsrp_target_dbm: m.rsrp_dbm(target),
            forwarded: kept,
            lost,
            dropped: forwarded.len() as u64 - kept,
        });
        m.handed_over(tti + net.interruption_tti);
        net.forwarded = forwarded;
    }

    /// Sets UE `u`'s link budget towards its serving cell from its current gains.
    fn update_budget(&mut self, u: usize) {
        let c = self.serving[u] as usize;
        let net = self.net.as_deref().expect("a network");
        set_budget(&mut self.cells[c], net, u, c);
    }

    /// Seconds of simulated time in `tti` TTIs (slots) of the cells (for callers reporting
    /// handovers).
    pub fn tti_s(&self, tti: u64) -> f64 {
        self.slot().start(tti) as f64 / 1e9
    }

    /// The cells' scheduling period.
    pub fn slot(&self) -> Slot {
        self.cells[0].slot()
    }
}

/// UE `u`'s radio channel in `cell`.
fn radio(cell: &mut Cell, ue: u32) -> &mut cellshare_channel::RadioChannel {
    match &mut cell.ue_mut(ue).channel {
        Channel::Radio(r) => r,
        _ => panic!("a network's UEs are on radio channels"),
    }
}

/// Installs UE `u`'s budget towards cell `c` (its serving cell) in that cell's channel.
fn set_budget(cell: &mut Cell, net: &Network, u: usize, c: usize) {
    let ue = &net.ues[u];
    let signal_mw = ue.prop.tx_prb_mw * ue.gains[c];
    // Every other cell whose power reaches a thousandth of the noise (an interferer 30 dB
    // below the noise floor moves the SINR by under 0.005 dB).
    let interferers_mw = if net.interference {
        ue.gains
            .iter()
            .enumerate()
            .filter(|&(j, &g)| j != c && ue.prop.tx_prb_mw * g >= 1e-3 * ue.noise_mw)
            .map(|(j, &g)| (j as u32, ue.prop.tx_prb_mw * g))
            .collect()
    } else {
        Vec::new()
    };
    radio(cell, u as u32).set_budget(LinkBudget::new(signal_mw, ue.noise_mw, interferers_mw, net.board.clone()));
    // The cell's cached link quality was read through the old budget.
    cell.invalidate_quality(u as u32);
}
