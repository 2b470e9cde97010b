//! The flows' endpoints: each flow is a one-way transport connection (a TCP or datagram
//! sender at one end, its receiver at the other) with a remote link at the server. This
//! module creates flows, starts and stops their applications' writes, lets senders and
//! receivers emit what they may (re-arming their timers), and takes ACKs and data at the
//! far end.

use cellshare_core::time::rearm;
use cellshare_core::{stream_rng, Nanos, Packet, PacketKind, StreamRng, TrafficClass};
use cellshare_transport::tcp::SendBuffer;
use cellshare_transport::wire::{Segment, TCP_SYN_HEADER_BYTES};
use cellshare_workload::Category;
use rand::Rng;

use super::wired::Link;
use super::{Ev, Simulation, LANE_ACK};
use crate::apps::Direction;
use crate::metrics::{DelayHistogram, DelayPercentiles, PerSecond};
use crate::results::{FlowTrace, ModeChanges, UeTrace};
use crate::transport::{header_bytes, Receiver, Sender, TransportConfig};

/// The workload category named `name`, if it is one.
pub(super) fn category_of(name: &str) -> Option<Category> {
    match name {
        "short" => Some(Category::Short),
        "medium" => Some(Category::Medium),
        "long" => Some(Category::Long),
        _ => None,
    }
}

/// What a flow is made from (a `[[flows]]` entry or a workload arrival).
pub(super) struct FlowSpec<'a> {
    pub(super) name: String,
    pub(super) ue: u32,
    pub(super) class: TrafficClass,
    pub(super) category: &'static str,
    pub(super) dscp: u8,
    pub(super) transport: &'a TransportConfig,
    pub(super) start: Nanos,
    pub(super) stop: Nanos,
    pub(super) size: Option<u64>,
    pub(super) on_off: Option<(Nanos, Nanos)>,
    /// Downlink (server → UE) or uplink (UE → server).
    pub(super) dir: Direction,
}

/// Per-flow run-time state.
#[derive(Debug)]
pub(crate) struct FlowRt {
    pub name: String,
    pub ue: u32,
    pub class: TrafficClass,
    /// `"custom"`, `"background"`, or the workload category (`"short"`, `"medium"`, `"long"`).
    pub category: &'static str,
    /// Whether the flow finished and its endpoint state and histograms were freed.
    pub closed: bool,
    /// Queue-delay, RTT, one-way-delay and queue-wait percentiles, kept when the histograms
    /// are freed.
    pub final_delays: Option<(DelayPercentiles, DelayPercentiles, DelayPercentiles, DelayPercentiles)>,
    pub dscp: u8,
    pub label: String,
    pub start: Nanos,
    pub stop: Nanos,
    pub size: Option<u64>,
    pub(super) on_off: Option<(Nanos, Nanos)>,
    pub(super) sender: Sender,
    pub(super) receiver: Receiver,
    pub(super) header: u32,
    pub(super) remote: Link,
    pub(super) sender_timer: Option<Nanos>,
    pub(super) receiver_timer: Option<Nanos>,
    pub(super) delivered_prev: u64,
    pub series: PerSecond,
    pub delay: DelayHistogram,
    /// Wait of each delivered data packet in its queue before its service began
    /// (`Packet::served_at − Packet::enqueued_at`): the sojourn a dequeue-time discipline
    /// (BoDe) bounds, without the transmission that `delay` includes.
    pub wait: DelayHistogram,
    /// The sender's smoothed RTT after every ACK (TCP flows).
    pub rtt: DelayHistogram,
    /// One-way delay of each data packet the receiver did not already hold: from the first
    /// transmission of its payload (a retransmission counts from its first copy) to its
    /// arrival at the receiver.
    pub owd: DelayHistogram,
    /// Random loss of data packets on the remote link (`wired.remote_loss_rate > 0`).
    pub(super) remote_loss: Option<StreamRng>,
    pub fct: Option<Nanos>,
    pub first_send: Option<Nanos>,
    pub drops: u64,
    pub packets_delivered: u64,
    /// Fine-grained samples (see `SimulationConfig::trace_interval_ms`).
    pub trace: FlowTrace,
    /// Controller mode changes as they happened.
    pub mode_changes: ModeChanges,
    pub(super) trace_delivered_prev: u64,
    /// Bytes of this flow's packets delivered over the access link, headers included.
    pub air_bytes: u64,
    /// Where the data goes.
    pub dir: Direction,
    /// Send buffer of a TCP sender at the UE (uplink legs).
    pub(super) sndbuf: Option<SendBuffer>,
    /// Bytes the application still wants to write into `sndbuf` (`u64::MAX`: bulk).
    pub(super) app_left: u64,
    /// For a leg of an app session: (session, leg).
    pub session: Option<(u32, u8)>,
}

impl FlowRt {
    pub fn delivered(&self) -> u64 {
        self.receiver.delivered()
    }
    pub fn loss_stats(&self) -> (u64, u64) {
        self.sender.loss_stats()
    }
    pub fn sent_datagrams(&self) -> u64 {
        self.sender.cbr_datagrams()
    }
    /// Whether data-direction packet `p` is the TCP handshake's SYN or third segment (a pure
    /// ACK of the sender): no payload, so no delivery, delay or application event.
    #[inline]
    pub fn is_handshake(&self, p: &Packet) -> bool {
        p.syn || (p.payload == 0 && matches!(self.receiver, Receiver::Tcp(_)))
    }
}

/// Per-UE statistics.
#[derive(Debug)]
pub(crate) struct UeRt {
    pub series: PerSecond,
    /// Base-station queue samples (see `SimulationConfig::trace_interval_ms`).
    pub trace: UeTrace,
    pub delay: DelayHistogram,
    pub bytes: u64,
    pub mean_snr_db: Option<f64>,
}

impl Simulation {
    /// Creates a flow (its id is the next index; the caller schedules its start): a bulk,
    /// finite or on/off flow, one leg of an app, or a workload arrival.
    pub(super) fn add_flow(&mut self, f: FlowSpec<'_>, series: PerSecond) -> u32 {
        let id = self.flows.len() as u32;
        let seed = self.scenario.simulation.seed;
        let w = &self.scenario.wired;
        let mut clock = stream_rng(seed, "flow-clock", id as u64);
        let sender = Sender::with_external(f.transport, f.start, clock.gen(), seed, id as u64, self.external.as_deref());
        let receiver = Receiver::new(f.transport, f.start, clock.gen());
        let sndbuf = match (f.transport, f.dir) {
            (TransportConfig::Tcp { tcp, .. }, Direction::Uplink) => Some(SendBuffer::new(tcp.wmem_initial, tcp.wmem_max)),
            _ => None,
        };
        self.flows.push(FlowRt {
            name: f.name,
            ue: f.ue,
            class: f.class,
            category: f.category,
            closed: false,
            final_delays: None,
            dscp: f.dscp,
            label: f.transport.label(),
            start: f.start,
            stop: f.stop,
            size: f.size,
            on_off: f.on_off,
            header: header_bytes(&sender),
            receiver,
            sender,
            remote: Link::new(w.remote_rate_mbps, w.remote_delay_ms, w.remote_queue_bytes),
            sender_timer: None,
            receiver_timer: None,
            delivered_prev: 0,
            series,
            delay: DelayHistogram::default(),
            wait: DelayHistogram::default(),
            rtt: DelayHistogram::default(),
            owd: DelayHistogram::default(),
            remote_loss: (w.remote_loss_rate > 0.0).then(|| stream_rng(seed, "remote-loss", id as u64)),
            fct: None,
            first_send: None,
            drops: 0,
            packets_delivered: 0,
            trace: FlowTrace::default(),
            mode_changes: ModeChanges::default(),
            trace_delivered_prev: 0,
            air_bytes: 0,
            dir: f.dir,
            sndbuf,
            app_left: 0,
            session: None,
        });
        id
    }

    /// Frees the state of finished flow `f` (every byte delivered and acknowledged): its
    /// endpoints, and its delay histograms after keeping their percentiles and merging them
    /// into its classes'. Packets of the flow still in the network are delivered and counted
    /// as before; nothing more is sent.
    pub(super) fn close_flow(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        fl.sender.close();
        fl.receiver.close();
        fl.closed = true;
        fl.sender_timer = None;
        fl.receiver_timer = None;
        fl.final_delays = Some((fl.delay.percentiles(), fl.rtt.percentiles(), fl.owd.percentiles(), fl.wait.percentiles()));
        let delay = std::mem::take(&mut fl.delay);
        fl.wait = DelayHistogram::default();
        fl.rtt = DelayHistogram::default();
        fl.owd = DelayHistogram::default();
        let class = if fl.class == TrafficClass::Background { "background" } else { "foreground" };
        let dscp = format!("dscp{}", fl.dscp);
        self.closed_delay.entry(class.to_string()).or_default().merge(&delay);
        self.closed_delay.entry(dscp).or_default().merge(&delay);
    }

    /// Flow `f` starts (or an on/off flow turns on): its application writes, or its app
    /// session starts.
    pub(super) fn flow_on(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if now >= fl.stop {
            return;
        }
        if let Some((s, _)) = fl.session {
            self.session_start(s);
            return;
        }
        if fl.sndbuf.is_some() {
            fl.app_left = fl.size.unwrap_or(u64::MAX);
            self.fill_sndbuf(f);
        } else {
            fl.sender.app_start(now, fl.size.unwrap_or(u64::MAX));
        }
        let fl = &mut self.flows[f as usize];
        if let Some((on, off)) = fl.on_off {
            let off_at = now + on;
            let stop = fl.stop.min(self.end);
            if off_at < stop {
                self.push(off_at, Ev::FlowOff(f));
                if off_at + off < stop {
                    self.push(off_at + off, Ev::FlowOn(f));
                }
            }
        }
        self.service_sender(f);
    }

    /// Flow `f` stops (or an on/off flow turns off): its application writes nothing more, or
    /// its app session stops.
    pub(super) fn flow_off(&mut self, f: u32) {
        if let Some((s, _)) = self.flows[f as usize].session {
            self.session_stop(s);
            return;
        }
        let fl = &mut self.flows[f as usize];
        fl.app_left = 0;
        fl.sender.app_stop(self.now);
    }

    /// Flow `f`'s sender timer is due: a timeout, then whatever the sender may send.
    pub(super) fn sender_wake(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.sender_timer != Some(self.now) {
            return; // superseded
        }
        fl.sender_timer = None;
        if fl.sender.poll_timeout().is_some_and(|t| t <= self.now) {
            fl.sender.on_timeout(self.now);
            self.note_cc_mode(f);
        }
        self.service_sender(f);
    }

    /// Flow `f`'s receiver timer is due (a delayed ACK, a datagram scheme's feedback).
    pub(super) fn receiver_wake(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.receiver_timer != Some(self.now) {
            return;
        }
        fl.receiver_timer = None;
        if fl.receiver.poll_timeout().is_some_and(|t| t <= self.now) {
            fl.receiver.on_timeout(self.now);
        }
        self.service_receiver(f);
    }

    /// An ACK (packet `p`) reaches its flow's sender: at the server for a downlink flow, at
    /// the UE for an uplink one.
    pub(super) fn ack_arrives(&mut self, p: &Packet) {
        let f = p.flow;
        let ack = cellshare_transport::wire::Ack {
            ack: p.seq,
            rwnd: p.rwnd,
            ts_val: p.ts_val,
            ts_ecr: p.ts_ecr,
            sack: p.sack,
            sack_len: p.sack_len,
            syn: p.syn,
        };
        let fl = &mut self.flows[f as usize];
        fl.sender.on_ack(self.now, &ack);
        let srtt = fl.sender.rtt_hint();
        if srtt > 0 {
            fl.rtt.record(srtt);
        }
        self.fill_sndbuf(f);
        self.note_cc_mode(f);
        self.service_sender(f);
        let fl = &self.flows[f as usize];
        if fl.fct.is_some() && !fl.closed && fl.sender.all_acked() {
            self.close_flow(f);
        }
    }

    /// A sender at the UE: the application writes what its send buffer has room for
    /// (after auto-tuning the buffer to the current cwnd).
    #[inline]
    pub(super) fn fill_sndbuf(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        let (Some(sb), Sender::Tcp(t)) = (fl.sndbuf.as_mut(), &mut fl.sender) else { return };
        sb.on_cwnd(t.cwnd());
        let queued = t.written() - t.snd_una();
        let w = sb.room(queued).min(fl.app_left);
        if w > 0 {
            t.write(w);
            if fl.app_left != u64::MAX {
                fl.app_left -= w;
            }
        }
    }

    /// The application of flow `f` writes `bytes` more (through the send buffer at a UE).
    pub(super) fn app_write(&mut self, f: u32, bytes: u64) {
        let fl = &mut self.flows[f as usize];
        if fl.sndbuf.is_some() {
            fl.app_left = fl.app_left.saturating_add(bytes);
            self.fill_sndbuf(f);
        } else {
            fl.sender.app_start(self.now, bytes);
        }
    }

    /// Lets the sender of flow `f` emit everything it may, then re-arms its timer.
    pub(super) fn service_sender(&mut self, f: u32) {
        let now = self.now;
        let remote_loss_rate = self.scenario.wired.remote_loss_rate;
        loop {
            let fl = &mut self.flows[f as usize];
            let Some(seg) = fl.sender.poll_transmit(now) else { break };
            // A retransmission carries the time its bytes were first sent (one-way delay).
            let first_sent = if seg.retransmit { fl.sender.first_sent_of(seg.seq).unwrap_or(now) } else { now };
            // A SYN carries the handshake's options (60 bytes, `TCP_SYN_HEADER_BYTES`).
            let header = if seg.syn { TCP_SYN_HEADER_BYTES } else { fl.header };
            let p = Packet {
                flow: f,
                ue: fl.ue,
                size: seg.len + header,
                payload: seg.len,
                kind: PacketKind::Data,
                class: fl.class,
                dscp: fl.dscp,
                retransmit: seg.retransmit,
                syn: seg.syn,
                seq: seg.seq,
                ts_val: seg.ts_val,
                ts_ecr: seg.ts_ecr,
                rtt_hint: fl.sender.rtt_hint(),
                sent_at: first_sent,
                ..Default::default()
            };
            fl.first_send.get_or_insert(now);
            if fl.dir == Direction::Uplink {
                // SORPC's SOR of this socket as the packet enters the device queue.
                let sor = match (&fl.sndbuf, &fl.sender) {
                    (Some(sb), Sender::Tcp(t)) => sb.occupancy(t.written() - t.snd_una()),
                    _ => 0.0,
                };
                let udp = matches!(fl.sender, Sender::Cbr { .. } | Sender::Datagram(_));
                let id = self.arena.alloc(p);
                self.enqueue_uplink(id, udp, sor);
                continue;
            }
            match fl.remote.send(now, p.size) {
                Some(_) if fl.remote_loss.as_mut().is_some_and(|r| r.gen::<f64>() < remote_loss_rate) => {
                    // Lost on the way (after taking its place on the link), never allocated.
                    fl.drops += 1;
                    self.drops.random_loss += 1;
                }
                Some(at) => {
                    let id = self.arena.alloc(p);
                    self.seq += 1;
                    self.heap.push(at, self.seq, Ev::AtGateway(id));
                }
                None => {
                    fl.drops += 1;
                    self.drops.wired += 1; // never allocated: counted here, not via drop_packet
                }
            }
        }
        let fl = &mut self.flows[f as usize];
        if let Some(t) = rearm(&mut fl.sender_timer, fl.sender.poll_timeout(), now) {
            self.push(t, Ev::SenderWake(f));
        }
    }

    /// Sends the receiver's pending ACK, if any, and re-arms its timer.
    pub(super) fn service_receiver(&mut self, f: u32) {
        let now = self.now;
        loop {
            let fl = &mut self.flows[f as usize];
            let Some(ack) = fl.receiver.poll_ack(now) else { break };
            // With SACK blocks the TCP options grow by 2 + 8 bytes per block (+2 padding); a
            // datagram transport's control packet has its scheme's size.
            let p = Packet {
                flow: f,
                ue: fl.ue,
                size: fl.receiver.ack_size(&ack),
                sack: ack.sack,
                sack_len: ack.sack_len,
                syn: ack.syn,
                kind: PacketKind::Ack,
                class: fl.class,
                seq: ack.ack,
                rwnd: ack.rwnd,
                ts_val: ack.ts_val,
                ts_ecr: ack.ts_ecr,
                sent_at: now,
                ..Default::default()
            };
            let (dir, ue) = (fl.dir, fl.ue);
            let id = self.arena.alloc(p);
            if dir == Direction::Uplink {
                // The server's ACK of an upload goes back down through the cell.
                self.downlink_from_server(id);
            } else if self.uplinks[ue as usize].is_some() {
                self.enqueue_uplink(id, false, 0.0);
            } else {
                self.seq += 1;
                self.heap.push_sorted(LANE_ACK, now + self.ack_delay, self.seq, Ev::AckAtServer(id));
            }
        }
        let fl = &mut self.flows[f as usize];
        if let Some(t) = rearm(&mut fl.receiver_timer, fl.receiver.poll_timeout(), now) {
            self.push(t, Ev::ReceiverWake(f));
        }
    }

    /// Data packet `p` reaches its flow's receiver (the UE for downlink, the server for
    /// uplink); an app learns what arrived on its leg.
    pub(super) fn data_arrives(&mut self, p: &Packet) {
        let now = self.now;
        let f = p.flow;
        let fl = &mut self.flows[f as usize];
        let seg =
            Segment { seq: p.seq, len: p.payload, ts_val: p.ts_val, ts_ecr: p.ts_ecr, retransmit: p.retransmit, syn: p.syn };
        if fl.is_handshake(p) {
            // The handshake's SYN or third segment: the receiver answers; no data, so no
            // delivery, delay or application event.
            fl.receiver.on_segment(now, &seg);
            self.service_receiver(f);
            return;
        }
        fl.packets_delivered += 1;
        let duplicates = fl.receiver.duplicate_segments();
        fl.receiver.on_segment(now, &seg);
        if fl.receiver.duplicate_segments() == duplicates {
            // A packet the receiver did not hold yet: its one-way delay from the first copy.
            let owd = now.saturating_sub(p.sent_at);
            fl.owd.record(owd);
            self.owd.record(owd);
        }
        let fl = &mut self.flows[f as usize];
        let d = fl.receiver.delivered();
        if d > fl.delivered_prev {
            fl.series.add(now, d - fl.delivered_prev);
            fl.delivered_prev = d;
        }
        let mut completed = None;
        if let (Some(size), None) = (fl.size, fl.fct) {
            if d >= size {
                fl.fct = Some(now - fl.start);
                completed = category_of(fl.category);
            }
        }
        self.service_receiver(f);
        if let Some((s, leg)) = self.flows[f as usize].session {
            self.session_data(s, leg, p);
        }
        if let (Some(c), Some(wl)) = (completed, self.workload.as_mut()) {
            wl.generator.complete(c, now);
            self.schedule_arrival();
        }
    }
}
