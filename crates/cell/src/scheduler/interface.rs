//! The interface between the cell and its MAC scheduler, after ns-3's
//! `FfMacSchedSapProvider` / `FfMacSchedSapUser` (`ff-mac-sched-sap.h`).
//!
//! | ns-3 primitive | here |
//! |---|---|
//! | `CschedUeConfigReq` (a UE joins) | [`MacScheduler::add_ue`], [`MacScheduler::reset_ue`] |
//! | `SchedDlRlcBufferReq` (queue size, head-of-line delay per logical channel) | [`UeStatus::queued_bytes`], [`UeStatus::class_bytes`], [`UeStatus::hol_delay`] |
//! | `SchedDlCqiInfoReq` (channel quality) | [`UeStatus::full_bytes`], [`UeStatus::bytes_for_prbs`] |
//! | `SchedDlTriggerReq` → `SchedDlConfigInd` (the TTI's allocation) | [`MacScheduler::schedule`] → [`Grant`]s |
//! | RLC's transmission opportunity report | [`MacScheduler::sent`] |
//!
//! HARQ retransmissions are the cell's: before the scheduler is called, due retransmissions
//! take their blocks' PRBs ([`TtiView::prbs`] is what they leave), and a UE given a
//! retransmission, or without a free HARQ process, is not offered for new data in that TTI.

use std::fmt;

use cellshare_channel::LinkQuality;
use cellshare_core::{Nanos, PacketArena};

use super::SchedulerConfig;
use crate::UeState;

/// One grant of a TTI's allocation: `prbs` PRBs for new data to UE `ue` (ns-3: an element of
/// `SchedDlConfigIndParameters::m_buildDataList`, its RNTI and the DCI's resource blocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    /// The UE (its index in the cell).
    pub ue: u32,
    /// PRBs, at least 1.
    pub prbs: u32,
}

/// What a grant carried, reported to the scheduler once it has been sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    /// The TTI.
    pub tti: u64,
    /// The grant's PRBs.
    pub prbs: u32,
    /// Bytes of the transport block on those PRBs.
    pub block_bytes: u32,
    /// Bytes of the UE's queue the block carried (at most `block_bytes`, more than 0; the
    /// rest of the block is padding).
    pub bytes: u64,
}

/// A MAC scheduler: every TTI, which UEs get the PRBs left for new data, how many each, in
/// which order.
///
/// The cell calls [`schedule`](Self::schedule) once in every TTI in which it has work (even
/// when no PRB or no UE is free, so that a scheduler can age its state), then sends the
/// grants in order, reporting each one that carried data to [`sent`](Self::sent). A grant
/// that carries nothing (its queue's discipline dropped everything at dequeue, or its PRBs
/// hold no byte at the UE's quality) leaves its PRBs unused: the cell drops the grants after
/// it and calls `schedule` again in the same TTI for the PRBs still free, with the UEs
/// already granted no longer offered. Grants must name UEs the [`TtiView`] offered, each at
/// most once, with at most [`TtiView::prbs`] PRBs in total.
///
/// A scheduler owns its state and allocates nothing per TTI (the grant list is the cell's,
/// cleared before each call).
pub trait MacScheduler: fmt::Debug + Send {
    /// The scheduler `cfg` describes, for a cell without UEs.
    fn new(cfg: &SchedulerConfig) -> Self
    where
        Self: Sized;

    /// A UE joined the cell's list with index `ue` (indices count from 0 in order).
    fn add_ue(&mut self, _ue: u32) {}

    /// UE `ue` starts with no history (it joined the cell at a handover).
    fn reset_ue(&mut self, _ue: u32) {}

    /// Appends the allocation of TTI [`tti.tti()`](TtiView::tti) to `grants` (empty on
    /// entry).
    fn schedule(&mut self, tti: &mut TtiView<'_>, grants: &mut Vec<Grant>);

    /// The grant to UE `ue` carried `sent`.
    fn sent(&mut self, _ue: u32, _sent: &Sent) {}

    /// The averaged served rate (bytes per TTI) of UE `ue` at the start of TTI `tti`, for
    /// schedulers that keep one.
    fn averaged_rate(&self, _ue: u32, _tti: u64) -> Option<f64> {
        None
    }
}

/// The scheduler's view of one TTI: the PRBs free for new data and the UEs that may have
/// them.
pub struct TtiView<'a> {
    tti: u64,
    now: Nanos,
    prbs: u32,
    n_prb: u32,
    ues: &'a mut [UeState],
    backlogged: &'a [u32],
    arena: &'a PacketArena,
    full_tbs_bytes: &'a [[u32; 29]; 2],
}

impl fmt::Debug for TtiView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TtiView").field("tti", &self.tti).field("prbs", &self.prbs).field("backlogged", &self.backlogged).finish()
    }
}

impl<'a> TtiView<'a> {
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn new(
        tti: u64,
        now: Nanos,
        prbs: u32,
        n_prb: u32,
        ues: &'a mut [UeState],
        backlogged: &'a [u32],
        arena: &'a PacketArena,
        full_tbs_bytes: &'a [[u32; 29]; 2],
    ) -> Self {
        Self { tti, now, prbs, n_prb, ues, backlogged, arena, full_tbs_bytes }
    }

    /// The TTI's number.
    #[inline]
    pub fn tti(&self) -> u64 {
        self.tti
    }

    /// The TTI's start.
    #[inline]
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// PRBs free for new data in this TTI (the cell's PRBs less those of retransmissions and
    /// of grants already sent).
    #[inline]
    pub fn prbs(&self) -> u32 {
        self.prbs
    }

    /// The cell's PRBs per TTI.
    #[inline]
    pub fn n_prb(&self) -> u32 {
        self.n_prb
    }

    /// UEs in the cell (indices `0 .. n_ues`, whether offered this TTI or not).
    #[inline]
    pub fn n_ues(&self) -> usize {
        self.ues.len()
    }

    /// Calls `f` with every UE that may be granted PRBs now: data queued, a channel that
    /// carries bytes in this TTI, not served yet in it and (realistic link) a HARQ process
    /// free. The order is unspecified (not by UE index). Reads each UE's link quality for this
    /// TTI when its cached value has expired.
    #[inline(always)]
    pub fn for_each_ue(&mut self, mut f: impl FnMut(UeStatus<'_>)) {
        let (tti, n_prb, table) = (self.tti, self.n_prb, self.full_tbs_bytes);
        for &ue in self.backlogged {
            let u = &mut self.ues[ue as usize];
            u.refresh_quality(tti, n_prb, table);
            if u.full == 0 || u.eligible_from > tti {
                continue;
            }
            f(UeStatus { ue, state: u, arena: self.arena, now: self.now, n_prb });
        }
    }

    /// UE `ue`'s status (as [`for_each_ue`](Self::for_each_ue) showed it; the link quality
    /// is the cached one).
    #[inline]
    pub fn ue(&self, ue: u32) -> UeStatus<'_> {
        UeStatus { ue, state: &self.ues[ue as usize], arena: self.arena, now: self.now, n_prb: self.n_prb }
    }

    /// The allocation of a ranking scheduler: the UE with the highest `metric` (ties: the
    /// lower UE index) gets the fewest PRBs that carry its queue (all PRBs left with
    /// `padding`), the next one the PRBs left, and so on until the PRBs or the UEs run out.
    /// The metric must be a total order over the TTI's UEs (no NaN).
    #[inline]
    pub fn allocate_ranked<M: PartialOrd + Copy>(&mut self, grants: &mut Vec<Grant>, padding: bool, mut metric: impl FnMut(UeStatus<'_>) -> M) {
        let mut left = self.prbs;
        // The ranking does not change within the TTI, so the UEs granted so far are exactly
        // those ranked at or before the last pick.
        let mut last: Option<(M, u32)> = None;
        while left > 0 {
            let best = match last {
                None => self.best(|_, _| true, &mut metric),
                Some((lk, lu)) => self.best(|k, ue| k < lk || (k == lk && ue > lu), &mut metric),
            };
            let Some((key, ue)) = best else { break };
            let n = if padding {
                left
            } else {
                let u = self.ue(ue);
                u.prbs_for_bytes(u.queued_bytes(), left)
            };
            grants.push(Grant { ue, prbs: n });
            left -= n;
            last = Some((key, ue));
        }
    }

    /// The highest-ranked UE (metric, then lower index) among those `admit` lets through.
    #[inline(always)]
    fn best<M: PartialOrd + Copy>(&mut self, admit: impl Fn(M, u32) -> bool, metric: &mut impl FnMut(UeStatus<'_>) -> M) -> Option<(M, u32)> {
        let mut best: Option<(M, u32)> = None;
        self.for_each_ue(|u| {
            let (key, ue) = (metric(u), u.ue);
            if admit(key, ue) && best.is_none_or(|(bk, bu)| key > bk || (key == bk && ue < bu)) {
                best = Some((key, ue));
            }
        });
        best
    }
}

/// What the scheduler sees of one UE in a TTI: its buffer status and its link quality.
#[derive(Clone, Copy)]
pub struct UeStatus<'a> {
    ue: u32,
    state: &'a UeState,
    arena: &'a PacketArena,
    now: Nanos,
    n_prb: u32,
}

impl fmt::Debug for UeStatus<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UeStatus").field("ue", &self.ue).field("queued_bytes", &self.queued_bytes()).field("full_bytes", &self.full_bytes()).finish()
    }
}

impl UeStatus<'_> {
    /// The UE's index in the cell.
    #[inline]
    pub fn ue(&self) -> u32 {
        self.ue
    }

    /// Bytes queued and not yet sent, over all classes (ns-3: `m_rlcTransmissionQueueSize`).
    #[inline]
    pub fn queued_bytes(&self) -> u64 {
        self.state.queue.pending_bytes()
    }

    /// Bytes of foreground packets queued.
    #[inline]
    pub fn foreground_bytes(&self) -> u64 {
        self.state.queue.foreground_bytes()
    }

    /// Number of DiffServ classes of the UE's queue (1 for a plain queue).
    #[inline]
    pub fn classes(&self) -> usize {
        self.state.queue.n_classes()
    }

    /// Bytes queued in class `class` (0 is served first), a partly sent head counted whole.
    #[inline]
    pub fn class_bytes(&self, class: usize) -> u64 {
        self.state.queue.class_occupancy(class).0
    }

    /// How long the oldest queued packet has waited at the TTI's start (ns-3:
    /// `m_rlcTransmissionQueueHolDelay`), over all classes.
    #[inline]
    pub fn hol_delay(&self) -> Nanos {
        self.state.queue.head_enqueued_at(self.arena).map_or(0, |t| self.now.saturating_sub(t))
    }

    /// The link quality this TTI.
    #[inline]
    pub fn quality(&self) -> LinkQuality {
        self.state.quality
    }

    /// Bytes the UE can receive in this TTI with every PRB of the cell (the achievable rate
    /// r_i(t) of the ranking metrics; more than 0 for every UE offered).
    #[inline]
    pub fn full_bytes(&self) -> u32 {
        self.state.full
    }

    /// Bytes the UE can receive on `prbs` PRBs in this TTI.
    #[inline]
    pub fn bytes_for_prbs(&self, prbs: u32) -> u32 {
        self.state.quality.bytes_for_prbs(prbs, self.n_prb)
    }

    /// The fewest PRBs that carry `bytes` in this TTI: at least 1, at most `max_prbs` (all
    /// of them when even those do not).
    #[inline]
    pub fn prbs_for_bytes(&self, bytes: u64, max_prbs: u32) -> u32 {
        prbs_needed(&self.state.quality, bytes, max_prbs, self.n_prb)
    }
}

/// The fewest PRBs (at most `prbs_left`) that carry `pending` bytes.
#[inline(always)]
fn prbs_needed(q: &LinkQuality, pending: u64, prbs_left: u32, n_prb: u32) -> u32 {
    if q.bytes_for_prbs(prbs_left, n_prb) as u64 <= pending {
        return prbs_left;
    }
    match *q {
        LinkQuality::Linear { full_bytes } => {
            // smallest n with floor(full·n/N) >= pending
            let n = (pending * n_prb as u64).div_ceil(full_bytes as u64) as u32;
            let mut n = n.clamp(1, prbs_left);
            while n < prbs_left && (q.bytes_for_prbs(n, n_prb) as u64) < pending {
                n += 1;
            }
            n
        }
        LinkQuality::Tbs { .. } | LinkQuality::Nr { .. } => {
            // binary search: TBS is non-decreasing in the PRB count
            let (mut lo, mut hi) = (1u32, prbs_left);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if (q.bytes_for_prbs(mid, n_prb) as u64) >= pending {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        }
    }
}
