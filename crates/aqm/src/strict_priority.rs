//! The Sneaker paper's "Strict Priority" baseline (\[sneaker\] Section VI):
//! "drops every packet from background flow if there exists foreground traffic".
//!
//! Precisely: a cell-level dropper that acts **at arrival only**, in the same place as
//! Sneaker (before the per-UE queue, the paper's layer above PDCP): a background data packet
//! arriving at the base station is dropped if at that moment any foreground packet is
//! queued in any UE's queue of the cell. Background packets already queued are not flushed
//! and are served by the MAC scheduler as usual; foreground packets and ACKs are never
//! touched. The per-UE queue's own discipline (tail drop) still applies to what is admitted.

use cellshare_core::{Nanos, Packet, PacketKind, TrafficClass};
use serde::{Deserialize, Serialize};

use crate::{CellDropper, CellSignals, CellSite, DropperConfig, EnqueueVerdict, SignalNeeds};

/// Strict priority's parameters: none (`cell.aqm = { kind = "strict_priority" }`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StrictPriorityConfig {}

impl DropperConfig for StrictPriorityConfig {
    type Dropper = StrictPriority;

    fn build(&self, _site: &CellSite) -> StrictPriority {
        StrictPriority
    }
}

/// Strict-priority dropping of background arrivals.
#[derive(Clone, Copy, Debug, Default)]
pub struct StrictPriority;

impl CellDropper for StrictPriority {
    #[inline]
    fn on_arrival(&mut self, _now: Nanos, pkt: &Packet, signals: &CellSignals) -> EnqueueVerdict {
        if pkt.class == TrafficClass::Background && pkt.kind == PacketKind::Data && signals.foreground_queued_bytes > 0 {
            EnqueueVerdict::Drop
        } else {
            EnqueueVerdict::Accept
        }
    }

    fn needs(&self) -> SignalNeeds {
        SignalNeeds::ForegroundQueued
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_background_only_while_foreground_is_queued() {
        let mut d = StrictPriority;
        let bg = Packet { class: TrafficClass::Background, ..Default::default() };
        let fg = Packet { class: TrafficClass::Foreground, ..Default::default() };
        let busy = CellSignals { foreground_queued_bytes: 1500, ..Default::default() };
        let idle = CellSignals::default();
        assert_eq!(d.on_arrival(0, &bg, &busy), EnqueueVerdict::Drop);
        assert_eq!(d.on_arrival(0, &bg, &idle), EnqueueVerdict::Accept);
        assert_eq!(d.on_arrival(0, &fg, &busy), EnqueueVerdict::Accept);
    }
}
