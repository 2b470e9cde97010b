//! # cellshare-cell
//!
//! One LTE cell's downlink at the base station (eNodeB): a per-UE RLC transmit queue with a
//! queue-discipline hook ([`rlc::RlcQueue`]), and the MAC scheduler that hands out the
//! cell's PRBs every TTI ([`scheduler`]).
//!
//! Per TTI ([`Cell::run_tti`]): the cell shows the scheduler (a [`scheduler::MacScheduler`])
//! the backlogged UEs and the free PRBs and sends the grants it returns, in order; the
//! built-in schedulers rank the UEs by their metric, the winner takes all the PRBs its queue
//! can fill, the leftover PRBs go to the next UE, and so on (the papers' description of PF;
//! `scheduler.leftover = "padding"` pads the winner's block instead, as ns-3 LENA's PF does).
//! Transmission is RLC-segmented: a packet may span TTIs and is delivered when its last byte
//! has been sent.
//!
//! With the realistic link ([`link`], the default for radio UEs) a block is sent through a
//! HARQ process ([`harq`]), may fail and be retransmitted, reaches the UE
//! `pipeline_delay_tti` TTIs after the decision, and its packets are delivered in order by the
//! UE's RLC ([`rlc_um`]); the cell serves due retransmissions first, in one call
//! ([`Cell::run_tti`] → `retransmit`), then asks the scheduler for the PRBs left.
//!
//! An optional cell-level dropper ([`Cell::set_dropper`]: Sneaker, strict priority) sees
//! every arrival before the UE's queue does, with the cell-wide signals of
//! [`cellshare_aqm::CellSignals`] computed from the queues and the schedulers' view of the
//! channels.

#![warn(missing_docs)]

pub mod harq;
pub mod link;
pub mod nr;
pub mod rlc;
pub mod rlc_um;
pub mod scheduler;

use cellshare_aqm::{Aqm, CellDropper, CellSignals, Dropper, EnqueueVerdict, SignalNeeds};
use cellshare_channel::{lte_tables, Channel, LinkQuality};
use cellshare_core::{stream_rng, Nanos, PacketArena, PacketId, PacketKind, Slot, TrafficClass};

use crate::harq::{Outcome, TransportBlock};
use crate::link::{CellLink, UeLink};
pub use link::{LinkConfig, LinkKind, LinkStats};
pub use rlc::{DropCause, RlcQueue};
pub use scheduler::{Leftover, MacScheduler, Scheduler, SchedulerConfig, SchedulerKind};

use crate::scheduler::{Grant, Sent, TtiView};

/// One UE as the base station sees it.
///
/// Laid out in the order given (`repr(C)`, one cache line first): what the scheduler's pass
/// over the backlogged UEs reads of every UE every TTI (the cached quality's span, the
/// eligibility, the achievable bytes) in the first line; the rest after.
/// The layout changes no value.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct UeState {
    /// The channel's quality, valid for TTIs `quality_from ..= quality_until`.
    quality_from: u64,
    quality_until: u64,
    /// The first TTI from which the UE may be picked for new data: after the last TTI it was
    /// served in, and (realistic link) once a HARQ process is free. One comparison in the
    /// scheduler's pass over the backlogged UEs.
    eligible_from: u64,
    quality: LinkQuality,
    /// Bytes deliverable with every PRB under `quality`: the achievable rate of the metric.
    full: u32,
    /// The last non-zero full-cell bytes per TTI seen by the dropper's signals.
    sig_full: u32,
    /// Position in the backlogged list, if backlogged.
    backlog_slot: Option<u32>,
    /// The last TTI in which the UE was granted PRBs (excluded from further picks then).
    served_tti: u64,
    /// The UE's downlink channel.
    pub channel: Channel,
    /// The realistic link's state (radio UEs under `cell.link = { kind = "realistic" }`).
    link: Option<Box<UeLink>>,
    /// Exponential average (scheduler's α, over TTIs in which the UE had data queued) of
    /// whether it was scheduled; kept only when a dropper asks for it.
    sched_share: f64,
    /// The UE's RLC transmit queue.
    pub queue: RlcQueue,
}

impl UeState {
    /// Refreshes the cached link quality and full-cell bytes when TTI `tti` lies outside
    /// the cached span; `full_tbs_bytes` is the cell's table of full-cell transport-block
    /// bytes by layers − 1 and I_MCS.
    /// The span check runs per backlogged UE per TTI and is forced inline; the reload it
    /// guards is not (measured: an out-of-line check cost ~10 % of the benchmark).
    #[inline(always)]
    fn refresh_quality(&mut self, tti: u64, n_prb: u32, full_tbs_bytes: &[[u32; 29]; 2]) {
        if tti < self.quality_from || tti > self.quality_until {
            self.reload_quality(tti, n_prb, full_tbs_bytes);
        }
    }

    #[inline(never)]
    fn reload_quality(&mut self, tti: u64, n_prb: u32, full_tbs_bytes: &[[u32; 29]; 2]) {
        let (quality, until) = self.channel.quality_span(tti);
        self.quality = quality;
        self.quality_from = tti;
        self.quality_until = until;
        self.full = match quality {
            LinkQuality::Tbs { mcs: Some(m), layers } => full_tbs_bytes[(layers - 1) as usize][m as usize],
            q => q.full_bytes(n_prb),
        };
    }
}

/// A packet that finished transmission over the air in a TTI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The packet.
    pub id: PacketId,
    /// The UE it was sent to.
    pub ue: u32,
}

/// What happened in one TTI.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TtiReport {
    /// PRBs allocated.
    pub prbs_used: u32,
    /// Bytes transmitted over the air.
    pub bytes_sent: u64,
    /// UEs that received at least one PRB.
    pub ues_served: u32,
    /// In a cell of trace UEs only: `prbs_used` weighted by the TTI's
    /// [`Cell::offered_bytes_in`] (PRBs × bytes), so that over a run it compares with
    /// [`Cell::offered_per_second`]'s weighted PRBs; 0 in other cells.
    pub prb_bytes_used: u64,
}

/// The cell: UEs, their queues and the scheduler.
#[derive(Debug)]
pub struct Cell {
    ues: Vec<UeState>,
    n_prb: u32,
    /// The scheduler's configuration (its α also weighs the measured scheduling share).
    sched_cfg: SchedulerConfig,
    /// The MAC scheduler.
    scheduler: Scheduler,
    /// The scheduler's grants of the current call (reused every TTI).
    grants: Vec<Grant>,
    /// Indices of UEs whose queue is non-empty.
    backlogged: Vec<u32>,
    /// Bytes of a transport block over all PRBs, by layers − 1 and I_MCS: the achievable
    /// rate of a radio UE, looked up once per UE per TTI.
    full_tbs_bytes: [[u32; 29]; 2],
    /// The cell-level dropper, if any, and what it needs.
    dropper: Option<(Dropper, SignalNeeds)>,
    /// Per flow id: when a background data packet of it last arrived (dropper only; `None`
    /// for foreground flows and flows not seen yet).
    flow_seen: Vec<Option<Nanos>>,
    /// How long a background flow counts as active (for L) after its last arrival.
    active_window: Nanos,
    /// (TTI, L) of the last background-flow count, reused within a TTI.
    flow_count_cache: Option<(u64, u32)>,
    /// The realistic link's cell-wide state, if any UE has one.
    link: Option<Box<CellLink>>,
    /// Every UE has a `trace` channel (set as UEs are added; see [`Cell::offers_every_tti`]).
    trace_only: bool,
    /// The scheduling period: LTE's 1 ms TTI or an NR slot. Every count of TTIs in the cell
    /// (HARQ round trip, MAC pipeline, CQI timing, the scheduler's time constant) counts
    /// these.
    slot: Slot,
    /// An NR cell's PHY (`None`: LTE).
    nr: Option<nr::NrPhy>,
}

impl Cell {
    /// A cell with `n_prb` PRBs per TTI and the given scheduler.
    pub fn new(n_prb: u32, scheduler: SchedulerConfig) -> Self {
        let mut full_tbs_bytes = [[0; 29]; 2];
        for (l, row) in full_tbs_bytes.iter_mut().enumerate() {
            for (m, b) in row.iter_mut().enumerate() {
                *b = LinkQuality::Tbs { mcs: Some(m as u8), layers: l as u8 + 1 }.full_bytes(n_prb);
            }
        }
        Self {
            ues: Vec::new(),
            n_prb,
            sched_cfg: scheduler,
            scheduler: scheduler.build(),
            grants: Vec::with_capacity(8),
            backlogged: Vec::new(),
            full_tbs_bytes,
            dropper: None,
            flow_seen: Vec::new(),
            active_window: 0,
            flow_count_cache: None,
            link: None,
            trace_only: false,
            slot: Slot::LTE,
            nr: None,
        }
    }

    /// Makes the cell an NR cell with PHY `phy` (call before [`set_link`](Self::set_link)):
    /// its realistic link judges blocks with the NR error model and its link adaptation
    /// follows TS 38.214's CQI rule at the link's BLER target. The UEs' radio channels are
    /// put on the carrier when built ([`cellshare_channel::RadioChannel::set_nr`]).
    pub fn set_nr(&mut self, phy: nr::NrPhy) {
        self.nr = Some(phy);
    }

    /// The NR PHY, on an NR cell.
    pub fn nr(&self) -> Option<&nr::NrPhy> {
        self.nr.as_ref()
    }

    /// Sets the scheduling period (LTE's 1 ms TTI by default; an NR cell's slot). Call it
    /// before the cell runs; the UEs' channels are built for the same slot.
    pub fn set_slot(&mut self, slot: Slot) {
        self.slot = slot;
    }

    /// The scheduling period.
    pub fn slot(&self) -> Slot {
        self.slot
    }

    /// Sets the radio link of every UE added so far whose channel is `radio` (call it after
    /// adding the UEs): the realistic link installs the link adaptation on the channel and
    /// gives the UE HARQ processes and an RLC UM receiver, drawing block errors from the
    /// stream ("harq", UE index) of `seed`; the ideal link leaves everything as it is.
    pub fn set_link(&mut self, cfg: &LinkConfig, seed: u64) {
        if cfg.kind == LinkKind::Ideal {
            return;
        }
        let r = cfg;
        let la = match &self.nr {
            None => r.link_adaptation(self.n_prb),
            // NR: the UE reports TS 38.214 § 5.2.2.1's CQI at the BLER target (the only AMC
            // rule of an NR cell), on the slots' report timing.
            Some(phy) => cellshare_channel::LinkAdaptation {
                cqi_thresholds: phy.radio(r.bler_target).cqi_thresholds,
                cqi_period_tti: r.cqi_period_tti,
                cqi_delay_tti: r.cqi_delay_tti,
            },
        };
        let nr_table = self.nr.map(|p| p.tbs.mcs_table());
        let mut any = false;
        for (i, u) in self.ues.iter_mut().enumerate() {
            if let Channel::Radio(ch) = &mut u.channel {
                ch.set_link_adaptation(&la);
                u.link = Some(Box::new(UeLink::new(r, self.slot, nr_table, stream_rng(seed, "harq", i as u64))));
                (u.quality_from, u.quality_until) = (1, 0);
                any = true;
            }
        }
        if any {
            self.link = Some(Box::new(CellLink::new(r.clone())));
        }
    }

    /// What the realistic link did for UE `ue` so far (`None` without it).
    pub fn link_stats(&self, ue: u32) -> Option<LinkStats> {
        self.ues[ue as usize].link.as_ref().map(|l| l.stats)
    }

    /// Installs a cell-level dropper that decides on every arrival before the UE's queue;
    /// background flows count as active (for L) for `active_window` after their last data
    /// packet arrived.
    pub fn set_dropper(&mut self, dropper: Dropper, active_window: Nanos) {
        let needs = dropper.needs();
        self.dropper = Some((dropper, needs));
        self.active_window = active_window;
    }

    /// The cell-level dropper, if any.
    pub fn dropper(&self) -> Option<&Dropper> {
        self.dropper.as_ref().map(|(d, _)| d)
    }

    /// Adds a UE with a single-class queue governed by `aqm`; returns its index.
    pub fn add_ue(&mut self, channel: Channel, aqm: Aqm) -> u32 {
        self.add_ue_with_queue(channel, RlcQueue::new(aqm))
    }

    /// Adds a UE with the given (e.g. DiffServ) queue; returns its index.
    pub fn add_ue_with_queue(&mut self, channel: Channel, queue: RlcQueue) -> u32 {
        self.ues.push(UeState {
            queue,
            channel,
            backlog_slot: None,
            quality: LinkQuality::Linear { full_bytes: 0 },
            quality_from: 1,
            quality_until: 0,
            full: 0,
            served_tti: u64::MAX,
            sched_share: 1.0,
            sig_full: 0,
            link: None,
            eligible_from: 0,
        });
        self.trace_only = self.ues.iter().all(|u| matches!(u.channel, Channel::Trace(_)));
        let ue = (self.ues.len() - 1) as u32;
        self.scheduler.add_ue(ue);
        ue
    }

    /// Number of UEs.
    pub fn n_ues(&self) -> usize {
        self.ues.len()
    }

    /// PRBs per TTI.
    pub fn n_prb(&self) -> u32 {
        self.n_prb
    }

    /// Whether every TTI offers the cell's PRBs: some UE has a `radio` or `fixed` channel (or
    /// the cell has no UE). Only `trace` channels have TTIs without a delivery opportunity.
    ///
    /// What "offered" means (the denominator of `prb_utilization`, `docs/outputs.md`, issue
    /// 29): a TTI offers the cell's PRBs when at least one UE of the cell could be served in
    /// it, whether or not it has data queued. A radio or fixed channel can always be served (a
    /// radio UE at CQI 0 is its channel's loss, not a TTI without resources), so such a cell
    /// offers every PRB of every TTI and its utilization is PRBs used over all PRBs, as
    /// before. In a cell of trace UEs only, a TTI offers its PRBs when at least one trace has
    /// an opportunity in that millisecond (the union over the UEs, not the sum: a PRB goes to
    /// one UE per TTI), and the TTI's PRBs are weighted by what they carry there: the bytes
    /// the UE with the most opportunities could receive with every PRB
    /// ([`offered_bytes_in`](Self::offered_bytes_in)). So the utilization is the share of
    /// the offered delivery opportunities used: 1.0 for a saturated UE, ≈ 0.5 for a UE
    /// sending at half its trace's capacity (unweighted, a TTI with nine opportunities and one
    /// packet queued would count as much as a TTI with one opportunity filled: half the
    /// capacity of 20 s of the T-Mobile trace showed 0.58, weighted 0.503). Counting only the TTIs in which a UE with
    /// data could be served would show 1.0 for any sender that keeps up with its trace.
    pub fn offers_every_tti(&self) -> bool {
        !self.trace_only
    }

    /// Bytes the cell's trace UE with the most opportunities in TTI `tti` could receive there
    /// with every PRB (0: no opportunity; radio and fixed UEs are not counted). Reads the
    /// trace channels only.
    pub fn offered_bytes_in(&self, tti: u64) -> u64 {
        self.ues
            .iter()
            .map(|u| match &u.channel {
                Channel::Trace(c) => match c.quality(tti) {
                    LinkQuality::Linear { full_bytes } => full_bytes as u64,
                    q => q.full_bytes(self.n_prb) as u64,
                },
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// Whether the cell's PRBs are offered in TTI `tti` (see [`offers_every_tti`]).
    ///
    /// [`offers_every_tti`]: Self::offers_every_tti
    pub fn offers_in(&self, tti: u64) -> bool {
        !self.trace_only || self.offered_bytes_in(tti) > 0
    }

    /// Per second of TTIs (slots) `0 .. n_ttis` (element `s` covers slots `n·s .. n·(s+1)`,
    /// n the slots per second, the last one possibly less): the TTIs that offered the cell's PRBs, and the offered PRBs
    /// weighted as [`TtiReport::prb_bytes_used`] weights the used ones (PRBs × the TTI's
    /// [`offered_bytes_in`](Self::offered_bytes_in); 0 in a cell that offers every TTI, whose
    /// PRBs are not weighted). Not on the scheduler's path: one pass over the run's TTIs.
    pub fn offered_per_second(&self, n_ttis: u64) -> Vec<(u64, u64)> {
        let n = self.slot.per_second();
        (0..n_ttis.div_ceil(n))
            .map(|s| {
                let (from, to) = (s * n, ((s + 1) * n).min(n_ttis));
                if !self.trace_only {
                    return (to - from, 0);
                }
                (from..to).map(|t| self.offered_bytes_in(t)).filter(|&b| b > 0).fold((0, 0), |(n, w), b| (n + 1, w + b * self.n_prb as u64))
            })
            .collect()
    }

    /// The UE with index `ue`.
    pub fn ue(&self, ue: u32) -> &UeState {
        &self.ues[ue as usize]
    }

    /// Mutable access to UE `ue` (e.g. to inspect or reconfigure its queue).
    pub fn ue_mut(&mut self, ue: u32) -> &mut UeState {
        &mut self.ues[ue as usize]
    }

    /// Whether the cell has work in the coming TTIs: a UE with queued data, or (realistic
    /// link) a retransmission, a block on its way or a reordering timer pending.
    #[inline]
    pub fn has_backlog(&self) -> bool {
        !self.backlogged.is_empty() || self.link.as_ref().is_some_and(|l| l.busy())
    }

    /// The MAC scheduler.
    pub fn scheduler(&self) -> &Scheduler {
        &self.scheduler
    }

    /// Averaged served rate (bytes per TTI) of UE `ue` at the start of TTI `tti`, if the
    /// scheduler keeps one (PF, BET, priority).
    pub fn averaged_rate(&self, ue: u32, tti: u64) -> Option<f64> {
        self.scheduler.averaged_rate(ue, tti)
    }

    /// Offers packet `id` (already in `arena`, destined to UE `pkt.ue`) to the UE's queue at
    /// `now`. Dropped packets (the arrival or, with head drop, older ones) are appended to
    /// `dropped` and remain in the arena for the caller to account for and free.
    pub fn enqueue(&mut self, now: Nanos, id: PacketId, arena: &mut PacketArena, dropped: &mut Vec<(PacketId, DropCause)>) {
        let ue = arena.get(id).ue;
        if self.dropper.is_some() && self.admit(now, id, arena) == EnqueueVerdict::Drop {
            dropped.push((id, DropCause::Admission));
            return;
        }
        let accepted = self.ues[ue as usize].queue.enqueue(now, id, arena, dropped);
        if accepted {
            self.mark_backlogged(ue);
        } else {
            self.unmark_if_empty(ue);
        }
    }

    /// UE `ue` leaves the cell at the start of TTI `tti` (a handover): its RLC queue is
    /// emptied — packets not yet sent go to `forwarded` (for the target cell, or for the
    /// caller to drop), a partly sent head to `dropped` with cause `Handover` — and with the
    /// realistic link its RLC UM receiver is re-established (packets whose blocks were all
    /// decoded go to `delivered`, those with a block in HARQ or on air are lost: HARQ in
    /// flight does not survive a handover) and its HARQ processes start afresh. The UE is not
    /// scheduled here again until [`attach`](Self::attach).
    pub fn detach(
        &mut self,
        ue: u32,
        tti: u64,
        arena: &PacketArena,
        delivered: &mut Vec<Delivery>,
        dropped: &mut Vec<(PacketId, DropCause)>,
        forwarded: &mut Vec<PacketId>,
    ) {
        let u = &mut self.ues[ue as usize];
        u.queue.drain(arena, |id| forwarded.push(id), |id| dropped.push((id, DropCause::Handover)));
        if let Some(link) = u.link.as_deref_mut() {
            let cl = self.link.as_deref_mut().expect("a realistic UE has a realistic cell");
            link.rx.reestablish(
                tti.saturating_sub(1),
                |id| delivered.push(Delivery { id, ue }),
                |id| dropped.push((id, DropCause::Handover)),
            );
            link.reset(&cl.cfg);
            cl.forget(ue);
        }
        u.eligible_from = u64::MAX;
        self.unmark_if_empty(ue);
    }

    /// UE `ue` joins the cell (a handover's target): it may be scheduled from TTI
    /// `from_tti` on (after the interruption), with a fresh averaged rate (the scheduler has
    /// no history of it) and its link quality read anew.
    pub fn attach(&mut self, ue: u32, from_tti: u64) {
        self.scheduler.reset_ue(ue);
        let u = &mut self.ues[ue as usize];
        u.eligible_from = from_tti;
        u.served_tti = u64::MAX;
        (u.quality_from, u.quality_until) = (1, 0);
    }

    /// Forces UE `ue`'s cached link quality to be read anew (its channel changed).
    pub fn invalidate_quality(&mut self, ue: u32) {
        let u = &mut self.ues[ue as usize];
        (u.quality_from, u.quality_until) = (1, 0);
    }

    /// Runs the cell-level dropper on packet `id` arriving at `now`.
    fn admit(&mut self, now: Nanos, id: PacketId, arena: &PacketArena) -> EnqueueVerdict {
        let p = *arena.get(id);
        if p.kind != PacketKind::Data {
            return EnqueueVerdict::Accept;
        }
        if p.class != TrafficClass::Background {
            return EnqueueVerdict::Accept;
        }
        let f = p.flow as usize;
        if f >= self.flow_seen.len() {
            self.flow_seen.resize(f + 1, None);
        }
        if !self.background_active(self.flow_seen[f], now) {
            self.flow_count_cache = None; // a background flow (re)joins the active set
        }
        self.flow_seen[f] = Some(now);
        let needs = self.dropper.as_ref().map(|(_, n)| *n).expect("dropper present");
        let signals = self.signals(now, p.ue, needs);
        let (d, _) = self.dropper.as_mut().expect("dropper present");
        d.on_arrival(now, &p, &signals)
    }

    /// Bytes UE `ue` could receive in TTI `tti` with the whole cell (the cached quality,
    /// refreshed when expired). A TTI without transmission opportunity (0 bytes) reports
    /// the last non-zero value instead, so capacity ratios stay finite.
    fn full_bytes_at(&mut self, ue: u32, tti: u64) -> u32 {
        let (n_prb, table) = (self.n_prb, &self.full_tbs_bytes);
        let u = &mut self.ues[ue as usize];
        u.refresh_quality(tti, n_prb, table);
        if u.full > 0 {
            u.sig_full = u.full;
        }
        u.sig_full
    }

    /// Whether a background flow last seen at `seen` (an entry of `flow_seen`) still counts
    /// as active (for L) at `now`.
    fn background_active(&self, seen: Option<Nanos>, now: Nanos) -> bool {
        matches!(seen, Some(t) if t + self.active_window > now)
    }

    /// The Sneaker paper's local signalling (Section V-A) for a packet to UE `ue` arriving
    /// at `now`, served from TTI (slot) ⌈now/slot⌉ on.
    pub fn signals(&mut self, now: Nanos, ue: u32, needs: SignalNeeds) -> CellSignals {
        let tti = self.slot.index_ceil(now);
        let mut s = CellSignals::default();
        for i in 0..self.backlogged.len() {
            let m = self.backlogged[i];
            let fg = self.ues[m as usize].queue.foreground_bytes();
            s.foreground_queued_bytes += fg;
            if fg > 0 && needs != SignalNeeds::ForegroundQueued {
                let r = self.full_bytes_at(m, tti);
                s.tau_f += if r > 0 { fg as f64 / r as f64 } else { f64::INFINITY };
            }
        }
        if needs == SignalNeeds::ForegroundQueued {
            return s;
        }
        s.ue_bytes_per_tti = self.full_bytes_at(ue, tti) as f64;
        let l = match self.flow_count_cache {
            Some((t, l)) if t == tti => l,
            _ => {
                let l = self.flow_seen.iter().filter(|&&seen| self.background_active(seen, now)).count() as u32;
                self.flow_count_cache = Some((tti, l));
                l
            }
        };
        s.background_flows = l.max(1);
        // PF's competitors right now: the UEs with data queued, the arriving packet's UE
        // counted whether or not its queue is empty (the packet is about to join it).
        s.competing_ues = self.backlogged.len() as u32 + u32::from(self.ues[ue as usize].backlog_slot.is_none());
        if needs == SignalNeeds::LoadAndScheduling {
            s.measured_sched_share = Some(self.ues[ue as usize].sched_share);
        }
        s
    }

    fn mark_backlogged(&mut self, ue: u32) {
        let u = &mut self.ues[ue as usize];
        if u.backlog_slot.is_none() && !u.queue.is_empty() {
            u.backlog_slot = Some(self.backlogged.len() as u32);
            self.backlogged.push(ue);
        }
    }

    fn unmark_if_empty(&mut self, ue: u32) {
        let u = &mut self.ues[ue as usize];
        if let (Some(slot), true) = (u.backlog_slot, u.queue.is_empty()) {
            u.backlog_slot = None;
            let last = self.backlogged.pop().expect("backlogged list holds the UE");
            if last != ue {
                self.backlogged[slot as usize] = last;
                self.ues[last as usize].backlog_slot = Some(slot);
            }
        }
    }

    /// Runs the MAC scheduler for TTI number `tti` (starting at `now = tti·TTI`): due HARQ
    /// retransmissions first, then new data. Packets that reach their UE at the end of the
    /// TTI are appended to `delivered` (with the ideal link, those whose last byte is sent;
    /// with the realistic link, those the UE's RLC delivers in order from blocks decoded in
    /// this TTI); packets dropped by a dequeue-time discipline, or lost over the air, to
    /// `dropped`.
    pub fn run_tti(
        &mut self,
        tti: u64,
        now: Nanos,
        arena: &mut PacketArena,
        delivered: &mut Vec<Delivery>,
        dropped: &mut Vec<(PacketId, DropCause)>,
    ) -> TtiReport {
        let mut report = TtiReport::default();
        if !self.has_backlog() {
            return report;
        }
        let alpha = self.sched_cfg.alpha();
        let n_prb = self.n_prb;
        let track_sched = matches!(self.dropper, Some((_, SignalNeeds::LoadAndScheduling)));
        if track_sched {
            for &ue in &self.backlogged {
                self.ues[ue as usize].sched_share *= 1.0 - alpha;
            }
        }
        let mut prbs_left = n_prb;
        if self.link.is_some() {
            let used = self.retransmit(tti, track_sched);
            report.prbs_used += used;
            prbs_left -= used;
        }
        // The scheduler's allocation, sent grant by grant; a grant that carries nothing
        // leaves its PRBs free and the scheduler is asked again for them.
        loop {
            self.grants.clear();
            let mut view = TtiView::new(tti, now, prbs_left, n_prb, &mut self.ues, &self.backlogged, arena, &self.full_tbs_bytes);
            self.scheduler.schedule(&mut view, &mut self.grants);
            let mut unused = false;
            for i in 0..self.grants.len() {
                let Grant { ue, prbs: n } = self.grants[i];
                let u = &mut self.ues[ue as usize];
                assert!(
                    n >= 1 && n <= prbs_left && u.backlog_slot.is_some() && u.full > 0 && u.eligible_from <= tti,
                    "the {:?} scheduler granted {n} PRBs to UE {ue} in TTI {tti}: not a UE it was offered, or more than the {prbs_left} PRBs free",
                    self.sched_cfg.kind
                );
                u.served_tti = tti;
                u.eligible_from = tti + 1;
                if track_sched {
                    u.sched_share += alpha;
                }
                let grant = u.quality.bytes_for_prbs(n, n_prb);
                let sent = if grant == 0 {
                    0
                } else {
                    match u.link.as_deref_mut() {
                        None => u.queue.transmit(now, grant as u64, ue, arena, delivered, dropped),
                        Some(link) => {
                            let cl = self.link.as_deref_mut().expect("a realistic UE has a realistic cell");
                            let sent = send_block(tti, now, ue, n, grant, &u.quality, &mut u.queue, &mut u.channel, link, cl, arena, dropped);
                            u.eligible_from = u.eligible_from.max(link.harq.next_free());
                            sent
                        }
                    }
                };
                if sent == 0 {
                    // Nothing to carry, or everything left was dropped at dequeue: the PRBs
                    // were not used.
                    self.unmark_if_empty(ue);
                    unused = true;
                    break;
                }
                self.scheduler.sent(ue, &Sent { tti, prbs: n, block_bytes: grant, bytes: sent });
                report.prbs_used += n;
                report.bytes_sent += sent;
                report.ues_served += 1;
                prbs_left -= n;
                self.unmark_if_empty(ue);
            }
            if !unused {
                break;
            }
        }
        if self.link.is_some() {
            self.receive(tti, delivered, dropped);
        }
        if self.trace_only && report.prbs_used > 0 {
            report.prb_bytes_used = report.prbs_used as u64 * self.offered_bytes_in(tti);
        }
        report
    }

    /// The realistic link's retransmissions due in TTI `tti`, in the order they fell due,
    /// each on its block's PRBs if they are still free (otherwise it waits for the next TTI)
    /// and at most one block per UE per TTI. Returns the PRBs used.
    fn retransmit(&mut self, tti: u64, track_sched: bool) -> u32 {
        let alpha = self.sched_cfg.alpha();
        let n_prb = self.n_prb;
        let cl = self.link.as_deref_mut().expect("called with a realistic link");
        let pipeline = cl.cfg.pipeline_delay_tti as u64;
        let control_errors = cl.cfg.control_errors;
        let mut used = 0;
        cl.deferred.clear();
        while let Some(&(due, ue, process)) = cl.retx.front() {
            if due > tti {
                break;
            }
            cl.retx.pop_front();
            let u = &mut self.ues[ue as usize];
            let link = u.link.as_deref_mut().expect("a retransmission of a realistic UE");
            let mut tb = *link.harq.pending(process as usize).expect("the process holds the block");
            if u.served_tti == tti || tb.n_prb > n_prb - used {
                cl.deferred.push((due, ue, process));
                continue;
            }
            let air = tti + pipeline;
            let sinr = air_sinr(&mut u.channel, air);
            tb.transmissions += 1;
            tb.mib_sum += link.copy_quality(tb.mcs, sinr);
            link.stats.retransmissions += 1;
            u.served_tti = tti;
            if track_sched {
                u.sched_share += alpha;
            }
            used += tb.n_prb;
            match link.transmit(process as usize, tti, air, sinr, tb, control_errors, &mut cl.lost) {
                Outcome::Retransmit { due } => cl.retx.push_back((due, ue, process)),
                Outcome::Decoded | Outcome::Lost => cl.arrivals.push_back((air, ue)),
            }
            u.eligible_from = (tti + 1).max(link.harq.next_free());
        }
        for d in cl.deferred.drain(..).rev() {
            cl.retx.push_front(d);
        }
        used
    }

    /// The UEs' RLC receivers at the end of TTI `tti`: blocks on air in this TTI are in, and
    /// reordering timers due now expire; in-order packets go to `delivered`, packets lost
    /// over the air to `dropped`.
    fn receive(&mut self, tti: u64, delivered: &mut Vec<Delivery>, dropped: &mut Vec<(PacketId, DropCause)>) {
        let cl = self.link.as_deref_mut().expect("called with a realistic link");
        loop {
            let next = match (cl.arrivals.front(), cl.timers.front()) {
                (Some(&(a, ue)), _) if a <= tti => {
                    cl.arrivals.pop_front();
                    ue
                }
                (_, Some(&(e, ue))) if e <= tti => {
                    cl.timers.pop_front();
                    ue
                }
                _ => break,
            };
            let link = self.ues[next as usize].link.as_deref_mut().expect("a realistic UE");
            if let Some(expiry) = link.rx.release(tti, |id| delivered.push(Delivery { id, ue: next })) {
                if expiry > tti {
                    cl.timers.push_back((expiry, next));
                }
            }
        }
        dropped.extend(cl.lost.drain(..).map(|id| (id, DropCause::Air)));
    }
}

/// Linear SINR of a radio channel in TTI `tti` (only radio UEs have a realistic link).
#[inline]
fn air_sinr(channel: &mut Channel, tti: u64) -> f64 {
    match channel {
        Channel::Radio(r) => r.sinr_at(tti),
        _ => unreachable!("only radio UEs have a realistic link"),
    }
}

/// Sends a new block of `grant` bytes on `n` PRBs to realistic UE `ue` in TTI `tti` through
/// a free HARQ process: fills it from the queue (each finished packet handed to the UE's RLC
/// receiver), draws its fate at the SINR of its TTI on air and files what follows
/// (retransmission, arrival). Returns the bytes sent (0: the queue's discipline dropped
/// everything, no block).
#[allow(clippy::too_many_arguments)]
fn send_block(
    tti: u64,
    now: Nanos,
    ue: u32,
    n: u32,
    grant: u32,
    quality: &LinkQuality,
    queue: &mut RlcQueue,
    channel: &mut Channel,
    link: &mut UeLink,
    cl: &mut CellLink,
    arena: &mut PacketArena,
    dropped: &mut Vec<(PacketId, DropCause)>,
) -> u64 {
    let seq = link.next_seq;
    let (rx, lost, stats) = (&mut link.rx, &mut cl.lost, &mut link.stats);
    let sent = queue.transmit_tagged(
        now,
        grant as u64,
        seq,
        arena,
        |id, first| {
            if !rx.packet_complete(id, first, seq) {
                lost.push(id);
                stats.packets_lost += 1;
            }
        },
        dropped,
    );
    if sent == 0 {
        return 0;
    }
    let (mcs, layers, tbs_bits) = match *quality {
        LinkQuality::Tbs { mcs: Some(mcs), layers } => (mcs, layers, lte_tables::tbs_bits(lte_tables::mcs_to_itbs(mcs), n, layers)),
        LinkQuality::Nr { mcs: Some(mcs), layers, tbs } => (mcs, layers, tbs.bits(mcs, n, layers)),
        _ => unreachable!("a realistic UE with a grant has an MCS"),
    };
    link.next_seq += 1;
    link.rx.sent(seq);
    link.stats.transport_blocks += 1;
    let air = tti + cl.cfg.pipeline_delay_tti as u64;
    let sinr = air_sinr(channel, air);
    let process = link.harq.free_process(tti).expect("pick() chose a UE with a free HARQ process");
    let tb = TransportBlock { seq, mcs, layers, n_prb: n, tbs_bits, transmissions: 1, mib_sum: link.copy_quality(mcs, sinr) };
    match link.transmit(process, tti, air, sinr, tb, cl.cfg.control_errors, &mut cl.lost) {
        Outcome::Retransmit { due } => cl.retx.push_back((due, ue, process as u8)),
        Outcome::Decoded | Outcome::Lost => cl.arrivals.push_back((air, ue)),
    }
    sent
}

#[cfg(test)]
mod tests;
