//! The UE uplink: a per-UE uplink channel served every TTI (every uplink slot of an NR cell:
//! all of them, or the `U` slots of its TDD pattern), one device transmit queue shared
//! by all the UE's sockets (a single drop-tail FIFO like Linux `pfifo_fast` with untagged
//! traffic), or SORPC's dual queue (\[rsd-thesis\] chapter 3).
//!
//! # Model
//!
//! - **Channel**: each UE with `uplink` has its own uplink channel (fixed rate, Mahimahi
//!   trace — e.g. the `.up` files —, or the stochastic radio model), asked for the bytes it
//!   carries with all PRBs in each TTI. There is no uplink scheduler across UEs: **a
//!   choice** (the thesis's experiments put one phone in a cell; contention between UEs'
//!   uplinks would need the eNodeB's uplink grants, which neither chapter describes), so a
//!   backlogged UE gets its whole channel every TTI.
//! - **Service**: a packet entering an idle uplink waits for the next TTI boundary; each TTI
//!   serves the queue head-first up to the TTI's bytes (packets are segmented across TTIs,
//!   like RLC), and a packet leaves at the end of the TTI carrying its last byte. It then
//!   reaches the server after the fixed `wired.uplink_delay_ms + backhaul_delay_ms +
//!   remote_delay_ms` (the same delay the unmodelled ACK path uses; the wired uplink path
//!   is not congested).
//! - **Device queue**: drop-tail with a byte limit (a `txqueuelen` of 1000 packets of 1500
//!   bytes by default). With SORPC each of the two FIFOs has that limit (**a choice**: the
//!   thesis does not say; Linux's `pfifo_fast` counts one limit over its bands, which would
//!   let a bulk upload in FIFO1 starve FIFO0 of room and defeat the scheme).
//! - **SORPC** (§3.3.2): FIFO0 is served before FIFO1. A packet goes to FIFO1 when its
//!   socket's send-buffer occupancy ratio `SOR = Q/sndbuf` (Eq. (3.1)) is at least
//!   `sor_threshold` when it enters the device queue; UDP datagrams and pure ACKs always go
//!   to FIFO0.

use std::collections::VecDeque;

use cellshare_channel::{Channel, NrRadio};
use cellshare_core::{stream_rng, Nanos, PacketArena, PacketId, PacketKind, ScenarioError, Slot};
use serde::{Deserialize, Serialize};

use crate::channel::{validate_channel, ChannelConfig};
use crate::traces::TraceSet;

/// `ues[i].uplink`: the UE's uplink channel and device transmit queue. When absent, the UE
/// sends its ACKs over the fixed-delay path (`wired.uplink_delay_ms`) and cannot upload.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UplinkConfig {
    /// The uplink channel: fixed, trace (e.g. a Mahimahi `.up` file) or radio; the bytes
    /// the UE can send per TTI.
    pub channel: ChannelConfig,
    /// Byte limit of the device transmit queue (of each FIFO with SORPC). Default 1500000
    /// (Linux `txqueuelen` 1000 × 1500-byte packets).
    #[serde(default = "default_txq_bytes")]
    pub queue_bytes: u64,
    /// The device queue discipline. Default `{ kind = "fifo" }` (single queue).
    #[serde(default)]
    pub qdisc: QdiscConfig,
}

fn default_txq_bytes() -> u64 {
    1_500_000
}

/// The UE's transmit-queue discipline (`kind` selects it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QdiscConfig {
    /// One drop-tail FIFO shared by every socket of the UE ("Single Queue").
    #[default]
    Fifo,
    /// SORPC: dual FIFO, FIFO0 served first; TCP data of a socket whose send-buffer
    /// occupancy ratio is at least `sor_threshold` goes to FIFO1, everything else to FIFO0.
    Sorpc {
        /// SOR_th, in (0, 1]. Default 0.5 (the thesis, Table 3.1).
        #[serde(default = "default_sor_th")]
        sor_threshold: f64,
    },
}

fn default_sor_th() -> f64 {
    0.5
}

impl QdiscConfig {
    /// Checks the parameters; `at` is the key path of the table (e.g. `ues[0].uplink.qdisc`).
    pub fn validate(&self, at: &str) -> Result<(), ScenarioError> {
        if let QdiscConfig::Sorpc { sor_threshold } = *self {
            if !(sor_threshold > 0.0 && sor_threshold <= 1.0) {
                return Err(ScenarioError::new(format!("{at}.sor_threshold"), sor_threshold, "a ratio in (0, 1]"));
            }
        }
        Ok(())
    }

    /// SORPC's threshold, or `None` for the single FIFO.
    pub fn sor_threshold(&self) -> Option<f64> {
        match *self {
            QdiscConfig::Fifo => None,
            QdiscConfig::Sorpc { sor_threshold } => Some(sor_threshold),
        }
    }

    /// The FIFOs of the device queue, each with the uplink's `queue_bytes` limit.
    pub fn fifos(&self) -> u64 {
        match self {
            QdiscConfig::Fifo => 1,
            QdiscConfig::Sorpc { .. } => 2,
        }
    }
}

impl UplinkConfig {
    /// Checks the channel, the queue limit and the discipline; `at` is the key path.
    pub fn validate(&self, at: &str) -> Result<(), ScenarioError> {
        validate_channel(&format!("{at}.channel"), &self.channel)?;
        if self.queue_bytes < 1500 {
            return Err(ScenarioError::new(format!("{at}.queue_bytes"), self.queue_bytes, "at least 1500 bytes (one packet)"));
        }
        self.qdisc.validate(&format!("{at}.qdisc"))
    }
}

/// SORPC's classification (§3.3.2): the FIFO (0 or 1) a packet enters. Pure ACKs and UDP
/// go to FIFO0; TCP data goes to FIFO1 exactly when `sor ≥ threshold`.
#[inline]
pub fn sorpc_band(kind: PacketKind, udp: bool, sor: f64, threshold: f64) -> usize {
    if kind == PacketKind::Ack || udp {
        0
    } else if sor >= threshold {
        1
    } else {
        0
    }
}

/// A UE's uplink at run time.
#[derive(Debug)]
pub(crate) struct UeUplink {
    channel: Channel,
    n_prb: u32,
    limit: u64,
    /// SORPC's threshold, or `None` for the single FIFO.
    pub sor_threshold: Option<f64>,
    bands: [VecDeque<PacketId>; 2],
    bytes: [u64; 2],
    /// Bytes of the head packet (of the band being served) already sent.
    head_sent: u32,
    /// Band whose head is partly sent (segmentation is not interrupted by FIFO0 arrivals:
    /// the RLC segment in progress completes first).
    head_band: Option<usize>,
    /// A TTI service event is pending.
    pub active: bool,
    /// Packets dropped at the full device queue.
    pub drops: u64,
}

impl UeUplink {
    /// Builds UE `idx`'s uplink; its channel draws from stream `("ue-uplink-channel", idx)`.
    /// `slot` is the cell's scheduling period, which the uplink shares; on an NR carrier a
    /// radio uplink channel follows `nr` (the downlink's tables: the uplink is not an NR
    /// PUSCH model, see docs/nr.md).
    pub fn new(
        cfg: &UplinkConfig,
        n_prb: u32,
        slot: Slot,
        nr: Option<&NrRadio>,
        traces: &TraceSet,
        seed: u64,
        idx: u64,
        at: &str,
    ) -> Result<Self, ScenarioError> {
        let mut rng = stream_rng(seed, "ue-uplink-channel", idx);
        let channel = cfg.channel.build(n_prb, slot, nr, traces, &mut rng, &format!("{at}.channel"))?;
        Ok(Self {
            channel,
            n_prb,
            limit: cfg.queue_bytes,
            sor_threshold: cfg.qdisc.sor_threshold(),
            bands: [VecDeque::with_capacity(1024), VecDeque::new()],
            bytes: [0, 0],
            head_sent: 0,
            head_band: None,
            active: false,
            drops: 0,
        })
    }

    /// Enqueues packet `id` in `band`; false (and nothing queued) when that FIFO is full.
    pub fn enqueue(&mut self, arena: &mut PacketArena, id: PacketId, band: usize, now: Nanos) -> bool {
        let band = if self.sor_threshold.is_some() { band } else { 0 };
        let size = arena.get(id).size as u64;
        if self.bytes[band] + size > self.limit {
            self.drops += 1;
            return false;
        }
        arena.get_mut(id).enqueued_at = now;
        self.bytes[band] += size;
        self.bands[band].push_back(id);
        true
    }

    /// Whether anything is queued.
    pub fn backlogged(&self) -> bool {
        !self.bands[0].is_empty() || !self.bands[1].is_empty()
    }

    /// Serves TTI `tti`, which starts at `now`: appends to `done` every packet whose last byte
    /// it carries, and stamps `served_at` on each packet whose first byte it sends.
    pub fn serve_tti(&mut self, tti: u64, now: Nanos, arena: &mut PacketArena, done: &mut Vec<PacketId>) {
        let mut budget = self.channel.quality(tti).full_bytes(self.n_prb) as u64;
        while budget > 0 {
            let band = match self.head_band {
                Some(b) => b,
                None if !self.bands[0].is_empty() => 0,
                None if !self.bands[1].is_empty() => 1,
                None => break,
            };
            let id = *self.bands[band].front().expect("head band is backlogged");
            if self.head_sent == 0 {
                arena.get_mut(id).served_at = now;
            }
            let size = arena.get(id).size;
            let left = (size - self.head_sent) as u64;
            if left > budget {
                self.head_sent += budget as u32;
                self.head_band = Some(band);
                break;
            }
            budget -= left;
            self.bands[band].pop_front();
            self.bytes[band] -= size as u64;
            self.head_sent = 0;
            self.head_band = None;
            done.push(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    #[test]
    fn sorpc_classification_at_the_threshold_edges() {
        let th = 0.5;
        // TCP data: FIFO1 exactly from the threshold up.
        assert_eq!(sorpc_band(PacketKind::Data, false, 0.5, th), 1);
        assert_eq!(sorpc_band(PacketKind::Data, false, 0.499_999, th), 0);
        assert_eq!(sorpc_band(PacketKind::Data, false, 1.0, th), 1);
        assert_eq!(sorpc_band(PacketKind::Data, false, 0.0, th), 0);
        // Pure ACKs and UDP always FIFO0, whatever the ratio.
        assert_eq!(sorpc_band(PacketKind::Ack, false, 1.0, th), 0);
        assert_eq!(sorpc_band(PacketKind::Data, true, 1.0, th), 0);
        // Threshold 1: only a full send buffer is "bulk".
        assert_eq!(sorpc_band(PacketKind::Data, false, 0.99, 1.0), 0);
        assert_eq!(sorpc_band(PacketKind::Data, false, 1.0, 1.0), 1);
    }

    fn uplink(qdisc: QdiscConfig, rate_mbps: f64) -> UeUplink {
        let cfg = UplinkConfig { channel: ChannelConfig::Fixed { rate_mbps }, queue_bytes: 4500, qdisc };
        UeUplink::new(&cfg, 50, Slot::LTE, None, &TraceSet::new(), 1, 0, "ues[0].uplink").unwrap()
    }

    #[test]
    fn fifo0_first_and_segmentation() {
        // 1.2 Mbit/s = 150 bytes per TTI.
        let mut u = uplink(QdiscConfig::Sorpc { sor_threshold: 0.5 }, 1.2);
        let mut arena = PacketArena::with_capacity(8);
        let bulk = arena.alloc(cellshare_core::Packet { size: 200, ..Default::default() });
        let ping = arena.alloc(cellshare_core::Packet { size: 100, ..Default::default() });
        assert!(u.enqueue(&mut arena, bulk, 1, 0));
        assert!(u.enqueue(&mut arena, ping, 0, 0));
        let mut done = Vec::new();
        u.serve_tti(0, 0, &mut arena, &mut done);
        // FIFO0's ping first (100 bytes), then 50 bytes of the bulk packet.
        assert_eq!(done, vec![ping]);
        u.serve_tti(1, MS, &mut arena, &mut done);
        assert_eq!(done, vec![ping, bulk]);
        assert!(!u.backlogged());
    }

    #[test]
    fn single_fifo_ignores_bands_and_drops_when_full() {
        let mut u = uplink(QdiscConfig::Fifo, 1.2);
        let mut arena = PacketArena::with_capacity(8);
        let ids: Vec<_> = (0..4).map(|_| arena.alloc(cellshare_core::Packet { size: 1500, ..Default::default() })).collect();
        assert!(u.enqueue(&mut arena, ids[0], 1, 0));
        assert!(u.enqueue(&mut arena, ids[1], 0, 0));
        assert!(u.enqueue(&mut arena, ids[2], 1, 0));
        assert!(!u.enqueue(&mut arena, ids[3], 0, 0), "4500-byte limit");
        assert_eq!(u.drops, 1);
        let mut done = Vec::new();
        for t in 0..11 {
            u.serve_tti(t, t * MS, &mut arena, &mut done);
        }
        assert_eq!(done, vec![ids[0]], "FIFO order, 150 bytes per TTI");
        // The next packet's first byte went in TTI 10: its service started then.
        assert_eq!(arena.get(ids[1]).served_at, 10 * MS);
        assert_eq!(arena.get(ids[2]).served_at, 0, "not served yet");
    }
}
