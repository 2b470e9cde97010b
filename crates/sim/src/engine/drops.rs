//! Drop accounting: where a packet was dropped, counted per flow and per cause
//! ([`crate::results::DropCounts`]).

use cellshare_cell::DropCause;
use cellshare_core::PacketId;

use super::Simulation;

/// Where a packet was dropped.
#[derive(Clone, Copy, Debug)]
pub(super) enum DropSite {
    /// At a base-station RLC queue.
    Bs(DropCause),
    /// At a full wired-link buffer.
    Wired,
    /// At the full shared FIFO.
    SharedFifo,
    /// At a UE's full device transmit queue.
    Device,
}

impl Simulation {
    /// Counts a drop of a packet of `flow` at `site`.
    fn count_drop(&mut self, flow: u32, site: DropSite) {
        self.flows[flow as usize].drops += 1;
        match site {
            DropSite::Bs(DropCause::Enqueue) => self.drops.bs_enqueue += 1,
            DropSite::Bs(DropCause::Dequeue) => self.drops.bs_dequeue += 1,
            DropSite::Bs(DropCause::Admission) => self.drops.bs_admission += 1,
            DropSite::Bs(DropCause::Air) => self.drops.air += 1,
            DropSite::Bs(DropCause::Handover) => self.drops.handover += 1,
            DropSite::Wired => self.drops.wired += 1,
            DropSite::SharedFifo => self.drops.shared_fifo += 1,
            DropSite::Device => self.drops.device += 1,
        }
    }

    /// Drops packet `id` at `site`: counts it and frees it.
    pub(super) fn drop_packet(&mut self, id: PacketId, site: DropSite) {
        self.count_drop(self.arena.get(id).flow, site);
        self.arena.free(id);
    }
}
