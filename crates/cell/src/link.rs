//! The radio link between the eNB and a UE on a stochastic radio channel: link adaptation,
//! block errors, HARQ and the MAC pipeline (`cell.link`).
//!
//! With the ideal link (`kind = "ideal"`, cellshare before block errors were modelled) a
//! block sent in TTI t always gets through, its packets reach the UE at the end of TTI t, and
//! the scheduler sees a CQI of TTI t itself (ns-3's `PiroEW2010` rule \[piro-ew2010\]).
//!
//! With the realistic link (`kind = "realistic"`, the default), for every UE whose channel is
//! `radio`:
//! - **Link adaptation** ([`cellshare_channel::link_adaptation`]): the CQI follows the
//!   `amc` rule (by default a block error rate target of 0.1, as ns-3's default AMC and real
//!   eNBs), measured every `cqi_period_tti` TTIs and used `cqi_delay_tti` TTIs later.
//! - **MAC pipeline**: a block scheduled in TTI t goes on air in TTI t + `pipeline_delay_tti`
//!   (ns-3's `LteEnbPhy::MacToChannelDelay`, 2) and its packets reach the UE at the end of
//!   that TTI if it is decoded (the DCI and the data share the subframe, as in LTE).
//! - **Block errors** ([`cellshare_channel::error_model`]): the block fails with the error
//!   rate of its MCS and size at the SINR of its TTI on air, drawn from the UE's own random
//!   stream; with `control_errors` the UE may also miss the block's control information
//!   (3GPP R4-081920's PDCCH curve \[r4-081920\]), and then no HARQ feedback is sent and the
//!   block is lost.
//! - **HARQ** ([`crate::harq`]): `harq_processes` stop-and-wait processes per UE; a failed
//!   block is retransmitted `harq_rtt_tti` TTIs after the failed transmission, before any new
//!   data of the TTI, on its PRBs and MCS, with chase combining, at most
//!   `max_retransmissions` times; then it is lost to RLC.
//! - **RLC UM** ([`crate::rlc_um`]): packets reach the UE in order; a packet with a byte in a
//!   lost block is lost (dropped with cause `air`); the packets behind a lost block wait for
//!   t-Reordering (`t_reordering_ms`, ns-3's `LteRlcUm::ReorderingTimer`, 100 ms).
//!
//! In an NR cell the TTI of these keys is the slot (1/2^μ ms): the CQI report period and
//! delay count slots as NR's CSI reporting does (TS 38.214 §5.2.1.4, periodicities in
//! slots), the MAC pipeline and the HARQ round trip count slots as NR's K0/K1 timing does
//! (TS 38.213 §9.2.3, K1 in slots); t-Reordering stays a time in ms (TS 38.322 §7.3).
//!
//! Fixed-rate and trace channels are not affected by the link kind: a fixed channel is a
//! declared delivery process and a Mahimahi trace a measured one (its losses, retransmissions
//! and delays are already in the trace). Their blocks always get through and their packets
//! reach the UE at the end of the TTI that carried them, as with the ideal link.

use std::collections::VecDeque;

use cellshare_channel::error_model::{self, modulation_of};
use cellshare_channel::nr::{self, McsTable};
use cellshare_channel::{AmcRule, LinkAdaptation};
use cellshare_core::{PacketId, Slot, StreamRng};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::harq::{HarqEntity, Outcome, TransportBlock};
use crate::rlc_um::UmReceiver;

/// Which radio link (`cell.link.kind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// Block errors, HARQ, BLER-targeted link adaptation and the MAC pipeline.
    #[default]
    Realistic,
    /// Today's ideal link, as before block errors were modelled: the `PiroEW2010` CQI of the
    /// TTI itself, every block decoded, packets at the UE at the end of the TTI that carried
    /// them. The other keys of `cell.link` are then ignored.
    Ideal,
}

fn default_bler_target() -> f64 {
    0.1
}
fn default_cqi_period() -> u32 {
    2
}
fn default_cqi_delay() -> u32 {
    5
}
fn default_pipeline_delay() -> u32 {
    2
}
fn default_harq_processes() -> u32 {
    8
}
fn default_harq_rtt() -> u32 {
    8
}
fn default_max_retransmissions() -> u32 {
    3
}
fn default_t_reordering() -> u32 {
    100
}
fn yes() -> bool {
    true
}

/// `[cell.link]`: the eNB–UE radio link of the cell's radio UEs. Every key has a default
/// (ns-3 LENA 3.44's, each named in the key's description); all but `kind` apply to the
/// realistic link only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// `"realistic"` (block errors, HARQ, BLER-targeted link adaptation with delayed CQI
    /// reports, the MAC pipeline, in-order RLC delivery) or `"ideal"` (every block decoded
    /// and delivered at the end of its TTI, the `PiroEW2010` CQI of the TTI itself: cellshare
    /// before block errors were modelled). Default `"realistic"`.
    #[serde(default)]
    pub kind: LinkKind,
    /// AMC rule turning the SINR into the reported CQI: `"bler_target"` (the highest CQI
    /// whose block meets `bler_target`, as ns-3's default `LteAmc` "MiErrorModel" computes it)
    /// or `"piro_ew2010"` (ns-3's `PiroEW2010` SNR-gap rule, the ideal link's). Default
    /// `"bler_target"`.
    #[serde(default)]
    pub amc: AmcRule,
    /// Block error rate the `bler_target` rule aims at, in (0, 0.5]. Default 0.1 (TS 36.213
    /// § 7.2.3; ns-3's `LteAmc`).
    #[serde(default = "default_bler_target")]
    pub bler_target: f64,
    /// TTIs (slots on NR) between two CQI measurements, 1 to 1000. Default 2 (ns-3's UE
    /// reports when more than `LteUePhy::DownlinkCqiPeriodicity` = 1 ms has passed: every 2
    /// TTIs).
    #[serde(default = "default_cqi_period")]
    pub cqi_period_tti: u32,
    /// TTIs (slots on NR) from a CQI measurement to the first scheduling decision that uses
    /// it, 0 to 1000. Default 5 (ns-3: `UL_PUSCH_TTIS_DELAY` = 4 TTIs in the UE's control
    /// queue, one to reach the scheduler).
    #[serde(default = "default_cqi_delay")]
    pub cqi_delay_tti: u32,
    /// TTIs (slots on NR) from the scheduling decision to the block on air, 0 to 1000; the
    /// block's packets reach the UE at the end of that TTI. Default 2 (ns-3's
    /// `LteEnbPhy::MacToChannelDelay`).
    #[serde(default = "default_pipeline_delay")]
    pub pipeline_delay_tti: u32,
    /// HARQ processes per UE, 1 to 16. Default 8 (FDD, TS 36.213 § 7; ns-3's
    /// `HARQ_PROC_NUM`). An NR cell uses `cell.nr.harq_processes` instead.
    #[serde(default = "default_harq_processes")]
    pub harq_processes: u32,
    /// TTIs from a transmission to its retransmission (and to its process being free), 1 to
    /// 1000, more than `pipeline_delay_tti`. Default 8 (FDD HARQ round trip). An NR cell
    /// uses `pipeline_delay_tti` + `cell.nr.k1_slots` + 1 slots instead.
    #[serde(default = "default_harq_rtt")]
    pub harq_rtt_tti: u32,
    /// Retransmissions of a block before it is given up, 0 to 16. Default 3 (ns-3's
    /// `PfFfMacScheduler`: redundancy version 3 is the last).
    #[serde(default = "default_max_retransmissions")]
    pub max_retransmissions: u32,
    /// RLC UM t-Reordering at the UE, ms: how long packets behind a missing block wait before
    /// it is given up (TS 36.322 § 5.1.2.2), 0 to 10000. Default 100 (ns-3's
    /// `LteRlcUm::ReorderingTimer`).
    #[serde(default = "default_t_reordering")]
    pub t_reordering_ms: u32,
    /// Whether the UE can miss a block's downlink control information (PCFICH/PDCCH errors
    /// against SINR, 3GPP R4-081920 \[r4-081920\]; ns-3's `LteSpectrumPhy::CtrlErrorModelEnabled`); a
    /// missed block is lost without HARQ feedback. Matters below −1 dB. Default true.
    #[serde(default = "yes")]
    pub control_errors: bool,
}

impl Default for LinkConfig {
    fn default() -> Self {
        Self {
            kind: LinkKind::default(),
            amc: AmcRule::default(),
            bler_target: default_bler_target(),
            cqi_period_tti: default_cqi_period(),
            cqi_delay_tti: default_cqi_delay(),
            pipeline_delay_tti: default_pipeline_delay(),
            harq_processes: default_harq_processes(),
            harq_rtt_tti: default_harq_rtt(),
            max_retransmissions: default_max_retransmissions(),
            t_reordering_ms: default_t_reordering(),
            control_errors: true,
        }
    }
}

impl LinkConfig {
    /// The ideal link.
    pub fn ideal() -> Self {
        Self { kind: LinkKind::Ideal, ..Self::default() }
    }

    /// `"realistic"` or `"ideal"`.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            LinkKind::Realistic => "realistic",
            LinkKind::Ideal => "ideal",
        }
    }

    /// Checks the parameters (of either kind, so that a scenario switching `kind` stays
    /// valid); an error is (key, value, expected).
    pub fn validate(&self) -> Result<(), (&'static str, String, String)> {
        let err = |k: &'static str, v: String, e: &str| Err((k, v, e.to_string()));
        if !(self.bler_target > 0.0 && self.bler_target <= 0.5) {
            return err("bler_target", self.bler_target.to_string(), "a block error rate in (0, 0.5]");
        }
        if !(1..=1000).contains(&self.cqi_period_tti) {
            return err("cqi_period_tti", self.cqi_period_tti.to_string(), "a period in TTIs from 1 to 1000");
        }
        for (k, v) in [("cqi_delay_tti", self.cqi_delay_tti), ("pipeline_delay_tti", self.pipeline_delay_tti)] {
            if v > 1000 {
                return err(k, v.to_string(), "a delay in TTIs from 0 to 1000");
            }
        }
        if !(1..=16).contains(&self.harq_processes) {
            return err("harq_processes", self.harq_processes.to_string(), "1 to 16 HARQ processes");
        }
        if !(1..=1000).contains(&self.harq_rtt_tti) || self.harq_rtt_tti <= self.pipeline_delay_tti {
            return err(
                "harq_rtt_tti",
                self.harq_rtt_tti.to_string(),
                &format!("a round trip in TTIs from 1 to 1000, above pipeline_delay_tti = {}", self.pipeline_delay_tti),
            );
        }
        if self.max_retransmissions > 16 {
            return err("max_retransmissions", self.max_retransmissions.to_string(), "0 to 16 retransmissions");
        }
        if self.t_reordering_ms > 10_000 {
            return err("t_reordering_ms", self.t_reordering_ms.to_string(), "a timer in ms from 0 to 10000");
        }
        Ok(())
    }

    /// The link adaptation of this link in a cell of `n_prb` PRBs.
    pub fn link_adaptation(&self, n_prb: u32) -> LinkAdaptation {
        LinkAdaptation::new(self.amc, self.bler_target, n_prb, self.cqi_period_tti, self.cqi_delay_tti)
    }
}

/// What the realistic link did for one UE (or, summed, for the cell).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LinkStats {
    /// New transport blocks sent.
    pub transport_blocks: u64,
    /// HARQ retransmissions sent.
    pub retransmissions: u64,
    /// Transmissions (first or retransmissions) the UE failed to decode, control
    /// information missed included.
    pub block_errors: u64,
    /// Of these, transmissions whose control information the UE missed.
    pub control_errors: u64,
    /// Transport blocks given up: failed at their last HARQ transmission, or sent without
    /// the UE noticing.
    pub residual_losses: u64,
    /// Packets lost because a block carrying part of them was given up.
    pub packets_lost: u64,
}

impl LinkStats {
    /// Adds `other` to these counts.
    pub fn add(&mut self, other: &LinkStats) {
        self.transport_blocks += other.transport_blocks;
        self.retransmissions += other.retransmissions;
        self.block_errors += other.block_errors;
        self.control_errors += other.control_errors;
        self.residual_losses += other.residual_losses;
        self.packets_lost += other.packets_lost;
    }
}

/// The realistic link's state for one radio UE.
#[derive(Clone, Debug)]
pub(crate) struct UeLink {
    /// On an NR cell, the MCS table whose error model judges the blocks.
    nr: Option<McsTable>,
    pub harq: HarqEntity,
    pub rx: UmReceiver,
    rng: StreamRng,
    /// Sequence number of the next new block.
    pub next_seq: u64,
    pub stats: LinkStats,
}

impl UeLink {
    /// The link of a UE in a cell scheduling every `slot`: t-Reordering is a time (TS 36.322
    /// / 38.322 give it in ms), so it counts `t_reordering_ms` ms of slots.
    /// `nr` is an NR cell's MCS table (`None`: LTE).
    pub fn new(cfg: &LinkConfig, slot: Slot, nr: Option<McsTable>, rng: StreamRng) -> Self {
        Self {
            nr,
            harq: HarqEntity::new(cfg.harq_processes, cfg.harq_rtt_tti, cfg.max_retransmissions),
            rx: UmReceiver::new(slot.of_ms(cfg.t_reordering_ms as u64)),
            rng,
            next_seq: 0,
            stats: LinkStats::default(),
        }
    }

    /// A fresh HARQ entity and RLC receiver (a handover re-establishes both); the counts go on.
    pub fn reset(&mut self, cfg: &LinkConfig) {
        self.harq = HarqEntity::new(cfg.harq_processes, cfg.harq_rtt_tti, cfg.max_retransmissions);
        self.next_seq = 0;
    }

    /// Sends `tb` (its counts including this transmission; `mib` is this copy's) from HARQ
    /// process `process` in decision TTI `tti`, on air at `air` with linear SINR `sinr`:
    /// draws the control and data errors, and updates HARQ, the receiver and the counts.
    /// Packets lost with the block are appended to `lost`.
    #[allow(clippy::too_many_arguments)]
    pub fn transmit(
        &mut self,
        process: usize,
        tti: u64,
        air: u64,
        sinr: f64,
        tb: TransportBlock,
        control_errors: bool,
        lost: &mut Vec<PacketId>,
    ) -> Outcome {
        // Two draws per transmission, whatever the rates, so the stream's use does not
        // depend on them.
        let (u_control, u_data): (f64, f64) = (self.rng.gen(), self.rng.gen());
        let noticed = !(control_errors && u_control < error_model::pdcch_bler(sinr));
        let bler = match self.nr {
            None => error_model::tb_bler(tb.mcs, tb.tbs_bits, tb.mib_sum / tb.transmissions as f64, tb.transmissions),
            Some(t) => nr::tb_bler(t, tb.mcs, tb.tbs_bits, tb.mib_sum / tb.transmissions as f64, tb.transmissions),
        };
        let decoded = noticed && u_data >= bler;
        if !decoded {
            self.stats.block_errors += 1;
            self.stats.control_errors += u64::from(!noticed);
        }
        let outcome = self.harq.transmitted(process, tti, tb, decoded, noticed);
        match outcome {
            Outcome::Decoded => self.rx.received(tb.seq, air),
            Outcome::Retransmit { .. } => {}
            Outcome::Lost => {
                self.stats.residual_losses += 1;
                let before = lost.len();
                self.rx.lost(tb.seq, lost);
                self.stats.packets_lost += (lost.len() - before) as u64;
            }
        }
        outcome
    }
}

impl UeLink {
    /// What one copy of a block of MCS `mcs` received at linear SINR `sinr` adds to its
    /// [`TransportBlock::mib_sum`]: on LTE its mutual information per bit (chase combining
    /// sums them); on NR its SINR, the copies' mean SINR being what the NR error model
    /// ([`cellshare_channel::nr::tb_bler`], incremental redundancy over `transmissions`
    /// copies) judges.
    #[inline]
    pub fn copy_quality(&self, mcs: u8, sinr: f64) -> f64 {
        match self.nr {
            None => error_model::mib(sinr, modulation_of(mcs)),
            Some(_) => sinr,
        }
    }
}

/// The cell-wide side of the realistic link: its parameters and the work due in later TTIs.
#[derive(Clone, Debug)]
pub(crate) struct CellLink {
    pub cfg: LinkConfig,
    /// Retransmissions due, (TTI, UE, HARQ process), in TTI order.
    pub retx: VecDeque<(u64, u32, u8)>,
    /// UEs whose receiver must run at a TTI (a block on air then), in TTI order.
    pub arrivals: VecDeque<(u64, u32)>,
    /// t-Reordering expiries, (TTI, UE), in TTI order.
    pub timers: VecDeque<(u64, u32)>,
    /// Retransmissions that found no room this TTI (scratch).
    pub deferred: Vec<(u64, u32, u8)>,
    /// Packets lost over the air this TTI (scratch).
    pub lost: Vec<PacketId>,
}

impl CellLink {
    pub fn new(cfg: LinkConfig) -> Self {
        Self {
            cfg,
            retx: VecDeque::new(),
            arrivals: VecDeque::new(),
            timers: VecDeque::new(),
            deferred: Vec::new(),
            lost: Vec::new(),
        }
    }

    /// Forgets everything due for UE `ue` (it left the cell).
    pub fn forget(&mut self, ue: u32) {
        self.retx.retain(|&(_, u, _)| u != ue);
        self.arrivals.retain(|&(_, u)| u != ue);
        self.timers.retain(|&(_, u)| u != ue);
    }

    /// Whether anything is due in a later TTI.
    #[inline]
    pub fn busy(&self) -> bool {
        !(self.retx.is_empty() && self.arrivals.is_empty() && self.timers.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_ns3s_and_validation_names_the_key() {
        let d = LinkConfig::default();
        assert_eq!(d.kind, LinkKind::Realistic);
        assert_eq!(d.validate(), Ok(()));
        assert_eq!((d.amc, d.bler_target, d.cqi_period_tti, d.cqi_delay_tti), (AmcRule::BlerTarget, 0.1, 2, 5));
        assert_eq!((d.pipeline_delay_tti, d.harq_processes, d.harq_rtt_tti, d.max_retransmissions), (2, 8, 8, 3));
        assert_eq!((d.t_reordering_ms, d.control_errors), (100, true));
        let bad = [
            (LinkConfig { bler_target: 0.0, ..d.clone() }, "bler_target"),
            (LinkConfig { bler_target: 0.6, ..d.clone() }, "bler_target"),
            (LinkConfig { bler_target: f64::NAN, ..d.clone() }, "bler_target"),
            (LinkConfig { harq_processes: 0, ..d.clone() }, "harq_processes"),
            (LinkConfig { cqi_period_tti: 0, ..d.clone() }, "cqi_period_tti"),
            (LinkConfig { harq_rtt_tti: 2, ..d.clone() }, "harq_rtt_tti"),
            (LinkConfig { pipeline_delay_tti: 5000, ..d.clone() }, "pipeline_delay_tti"),
            (LinkConfig { max_retransmissions: 17, ..d.clone() }, "max_retransmissions"),
        ];
        for (cfg, key) in bad {
            assert_eq!(cfg.validate().unwrap_err().0, key);
        }
        assert_eq!(LinkConfig { bler_target: 0.5, max_retransmissions: 0, ..d }.validate(), Ok(()));
        assert_eq!(LinkConfig::ideal().kind_name(), "ideal");
    }
}
