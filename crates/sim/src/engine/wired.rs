//! The packet's path outside the endpoints: the wired links (each server's remote link,
//! the one backhaul), the access behind them (the cell, or the shared drop-tail FIFO),
//! delivery to the UE with its accounting, and the way back from the UE (its modelled
//! uplink, or the fixed uplink delay).

use std::collections::VecDeque;

use cellshare_core::time::{from_millis_f64, serialization_time};
use cellshare_core::{Nanos, Packet, PacketId, PacketKind, TrafficClass, SEC};

use super::drops::DropSite;
use super::{Access, Ev, Simulation, LANE_BACKHAUL};
use crate::uplink::sorpc_band;

/// A store-and-forward link: serialization at `rate_bps`, then `delay`, with a drop-tail
/// buffer of `limit` bytes. FIFO order is implicit in `free_at`, so a packet's arrival time
/// is known when it is sent and one event per packet suffices.
#[derive(Clone, Debug)]
pub(super) struct Link {
    pub(super) rate_bps: u64,
    pub(super) delay: Nanos,
    pub(super) limit: u64,
    pub(super) free_at: Nanos,
}

impl Link {
    pub(super) fn new(rate_mbps: f64, delay_ms: f64, limit: u64) -> Self {
        Self { rate_bps: (rate_mbps * 1e6).round() as u64, delay: from_millis_f64(delay_ms), limit, free_at: 0 }
    }

    /// Sends `size` bytes at `now`; returns the arrival time at the far end, or `None` when
    /// the buffer is full.
    #[inline]
    pub(super) fn send(&mut self, now: Nanos, size: u32) -> Option<Nanos> {
        let start = self.free_at.max(now);
        let backlog = ((start - now) as u128 * self.rate_bps as u128 / 8 / SEC as u128) as u64;
        if backlog + size as u64 > self.limit {
            return None;
        }
        self.free_at = start + serialization_time(size as u64, self.rate_bps);
        Some(self.free_at + self.delay)
    }
}

/// The shared drop-tail FIFO bottleneck (wired / Wi-Fi-like access).
#[derive(Debug)]
pub(super) struct SharedFifo {
    pub(super) rate_bps: u64,
    pub(super) limit: u64,
    pub(super) bytes: u64,
    pub(super) queue: VecDeque<PacketId>,
    pub(super) busy: bool,
}

impl SharedFifo {
    /// An empty FIFO served at `rate_mbps` with a drop-tail buffer of `limit` bytes.
    pub(super) fn new(rate_mbps: f64, limit: u64) -> Self {
        Self { rate_bps: (rate_mbps * 1e6).round() as u64, limit, bytes: 0, queue: VecDeque::new(), busy: false }
    }
}

impl Simulation {
    /// Packet `id` reached the gateway: it takes the backhaul to the access.
    pub(super) fn at_gateway(&mut self, id: PacketId) {
        let size = self.arena.get(id).size;
        match self.backhaul.send(self.now, size) {
            Some(at) => self.push_sorted(LANE_BACKHAUL, at, Ev::AtAccess(id)),
            None => self.drop_packet(id, DropSite::Wired),
        }
    }

    pub(super) fn at_access(&mut self, id: PacketId) {
        let now = self.now;
        match &mut self.access {
            Access::Cell(cell) => {
                self.dropped_scratch.clear();
                cell.enqueue(now, id, &mut self.arena, &mut self.dropped_scratch);
                for i in 0..self.dropped_scratch.len() {
                    let (d, cause) = self.dropped_scratch[i];
                    self.drop_packet(d, DropSite::Bs(cause));
                }
            }
            Access::Fifo(q) => {
                let size = self.arena.get(id).size as u64;
                if q.bytes + size > q.limit {
                    self.drop_packet(id, DropSite::SharedFifo);
                    return;
                }
                self.arena.get_mut(id).enqueued_at = now;
                q.bytes += size;
                q.queue.push_back(id);
                if !q.busy {
                    q.busy = true;
                    self.arena.get_mut(id).served_at = now;
                    let t = now + serialization_time(size, q.rate_bps);
                    self.push(t, Ev::FifoDepart);
                }
            }
        }
    }

    pub(super) fn fifo_depart(&mut self) {
        let Access::Fifo(q) = &mut self.access else { return };
        let Some(id) = q.queue.pop_front() else {
            q.busy = false;
            return;
        };
        q.bytes -= self.arena.get(id).size as u64;
        let next = q.queue.front().copied();
        let rate = q.rate_bps;
        if next.is_none() {
            q.busy = false;
        }
        self.deliver(id);
        if let Some(head) = next {
            // The next packet's serialization (its service) starts now.
            let p = self.arena.get_mut(head);
            p.served_at = self.now;
            let t = self.now + serialization_time(p.size as u64, rate);
            self.push(t, Ev::FifoDepart);
        }
    }

    /// Packet `id` (a server's packet) leaves the server on its flow's remote link.
    pub(super) fn downlink_from_server(&mut self, id: PacketId) {
        let p = *self.arena.get(id);
        let fl = &mut self.flows[p.flow as usize];
        match fl.remote.send(self.now, p.size) {
            Some(at) => self.push(at, Ev::AtGateway(id)),
            None => self.drop_packet(id, DropSite::Wired),
        }
    }

    /// A packet without payload delivered to a UE (an upload's ACK, a handshake segment):
    /// its bytes count as air time of the UE, the cell and the flow, with no delay sample.
    pub(super) fn count_control_air_bytes(&mut self, p: &Packet) {
        let now = self.now;
        let ue = &mut self.ues[p.ue as usize];
        ue.series.add(now, p.size as u64);
        ue.bytes += p.size as u64;
        self.air_bytes.add(now, p.size as u64);
        self.flows[p.flow as usize].air_bytes += p.size as u64;
    }

    /// Packet `id` reaches its UE.
    pub(super) fn deliver(&mut self, id: PacketId) {
        let now = self.now;
        let p = *self.arena.get(id);
        self.arena.free(id);
        if p.kind == PacketKind::Ack {
            // The server's ACK of an upload reached the UE's sender.
            self.count_control_air_bytes(&p);
            self.ack_arrives(&p);
            return;
        }
        if self.flows[p.flow as usize].is_handshake(&p) {
            // The handshake's SYN or third segment: air bytes like an ACK's, no delay sample.
            self.count_control_air_bytes(&p);
            self.data_arrives(&p);
            return;
        }
        let sojourn = now - p.enqueued_at;
        let ue = &mut self.ues[p.ue as usize];
        ue.delay.record(sojourn);
        ue.series.add(now, p.size as u64);
        ue.bytes += p.size as u64;
        self.air_bytes.add(now, p.size as u64);
        self.delay.record(sojourn);
        let f = p.flow;
        let fl = &mut self.flows[f as usize];
        if fl.closed {
            // A late copy (a spurious retransmission) of a finished flow: it counts in the
            // flow's classes, whose histograms hold the flow's samples now.
            let class = if fl.class == TrafficClass::Background { "background" } else { "foreground" };
            let dscp = format!("dscp{}", fl.dscp);
            fl.packets_delivered += 1;
            fl.air_bytes += p.size as u64;
            self.closed_delay.entry(class.to_string()).or_default().record(sojourn);
            self.closed_delay.entry(dscp).or_default().record(sojourn);
            return;
        }
        fl.delay.record(sojourn);
        debug_assert!(p.served_at >= p.enqueued_at, "packet {id} delivered without a start of service");
        fl.wait.record(p.served_at - p.enqueued_at);
        fl.air_bytes += p.size as u64;
        self.data_arrives(&p);
    }

    /// Packet `id` enters its UE's device transmit queue (SORPC band from `udp` and `sor`).
    /// A UE without a modelled uplink (only app sessions send from one: validated) sends it
    /// over the fixed uplink delay, as its ACKs go.
    pub(super) fn enqueue_uplink(&mut self, id: PacketId, udp: bool, sor: f64) {
        let now = self.now;
        let (ue, kind) = {
            let p = self.arena.get(id);
            (p.ue as usize, p.kind)
        };
        let Some(up) = self.uplinks[ue].as_mut() else {
            let ev = if kind == PacketKind::Ack { Ev::AckAtServer(id) } else { Ev::AtServer(id) };
            self.push(now + self.ack_delay, ev);
            return;
        };
        let band = up.sor_threshold.map_or(0, |th| sorpc_band(kind, udp, sor, th));
        if !up.enqueue(&mut self.arena, id, band, now) {
            self.drop_packet(id, DropSite::Device);
            return;
        }
        if !up.active {
            up.active = true;
            // Served from the next TTI (slot) boundary on (the next uplink slot on TDD).
            let slot = self.slot;
            let next = self.uplink_slot_from(slot.index_floor(now) + 1);
            self.push(slot.start(next), Ev::UplinkTti(ue as u32));
        }
    }

    /// The first slot at or after `slot` in which the UEs' uplinks send: `slot` itself, or on
    /// TDD the next uplink slot.
    #[inline]
    fn uplink_slot_from(&self, slot: u64) -> u64 {
        self.tdd.map_or(slot, |p| p.next_uplink(slot))
    }

    /// UE `ue`'s uplink serves one TTI; packets completed in it leave at its end and reach
    /// the server after the fixed uplink + backhaul + remote delay.
    pub(super) fn uplink_tti(&mut self, ue: u32) {
        let now = self.now;
        let up = self.uplinks[ue as usize].as_mut().expect("uplink event for a UE with an uplink");
        self.uplink_done.clear();
        let slot = self.slot;
        up.serve_tti(slot.index_floor(now), now, &mut self.arena, &mut self.uplink_done);
        let more = up.backlogged();
        up.active = more;
        let at = now + slot.ns() + self.ack_delay;
        for i in 0..self.uplink_done.len() {
            let id = self.uplink_done[i];
            let p = self.arena.get(id);
            let ev = if p.kind == PacketKind::Ack { Ev::AckAtServer(id) } else { Ev::AtServer(id) };
            if p.kind == PacketKind::Data && !self.flows[p.flow as usize].is_handshake(p) {
                // An upload's queueing: sojourn in the device queue, transmission included.
                let sojourn = now + slot.ns() - p.enqueued_at;
                let fl = &mut self.flows[p.flow as usize];
                fl.delay.record(sojourn);
                fl.wait.record(p.served_at - p.enqueued_at);
            }
            self.push(at, ev);
        }
        if more {
            let next = self.uplink_slot_from(slot.index_floor(now) + 1);
            self.push(slot.start(next), Ev::UplinkTti(ue));
        }
    }

    /// An ACK (packet `id`) reached the server.
    pub(super) fn ack_at_server(&mut self, id: PacketId) {
        let p = *self.arena.get(id);
        self.arena.free(id);
        self.ack_arrives(&p);
    }

    /// An uplink data packet (`id`) reached the server.
    pub(super) fn at_server(&mut self, id: PacketId) {
        let p = *self.arena.get(id);
        self.arena.free(id);
        self.data_arrives(&p);
    }
}
