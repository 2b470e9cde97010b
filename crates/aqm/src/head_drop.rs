//! Head drop: an arriving packet that does not fit the hard limit pushes the oldest packets
//! out.

use cellshare_core::{Nanos, Packet};
use serde::{Deserialize, Serialize};

use crate::{DequeueVerdict, EnqueueVerdict, QueueConfig, QueueDiscipline, QueueLimit, QueueSite, QueueView};

/// Head drop's parameters (`cell.aqm = { kind = "head_drop" }`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeadDropConfig {
    /// Packet limit instead of the byte limit. Default: none (use the byte limit).
    #[serde(default)]
    pub limit_packets: Option<u32>,
}

impl QueueConfig for HeadDropConfig {
    type Discipline = HeadDrop;

    fn limit_packets(&self) -> Option<u32> {
        self.limit_packets
    }

    fn build(&self, limit: QueueLimit, _site: &QueueSite) -> HeadDrop {
        HeadDrop { limit }
    }
}

/// Head drop: an arriving packet that does not fit pushes the oldest packets out.
/// A packet larger than the whole limit is dropped itself.
#[derive(Clone, Debug)]
pub struct HeadDrop {
    /// The queue limit.
    pub limit: QueueLimit,
}

impl QueueDiscipline for HeadDrop {
    #[inline]
    fn on_enqueue(&mut self, _now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        if self.limit.fits(pkt.size, q) {
            EnqueueVerdict::Accept
        } else if self.limit.fits(pkt.size, &QueueView::default()) {
            EnqueueVerdict::AcceptDroppingHead
        } else {
            EnqueueVerdict::Drop
        }
    }

    #[inline]
    fn on_dequeue(&mut self, _now: Nanos, _pkt: &Packet, _q: &QueueView) -> DequeueVerdict {
        DequeueVerdict::Transmit
    }

    fn fits(&self, size: u32, q: &QueueView) -> bool {
        self.limit.fits(size, q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(size: u32) -> Packet {
        Packet { size, ..Default::default() }
    }

    #[test]
    fn head_drop_makes_room_unless_oversized() {
        let mut d = HeadDrop { limit: QueueLimit::Bytes(3000) };
        let full = QueueView { bytes: 3000, packets: 2, head_enqueued_at: Some(0) };
        assert_eq!(d.on_enqueue(0, &pkt(1500), &full), EnqueueVerdict::AcceptDroppingHead);
        assert_eq!(d.on_enqueue(0, &pkt(4000), &full), EnqueueVerdict::Drop);
    }
}
