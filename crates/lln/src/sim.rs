//! The LLN engine: one event heap of (time, insertion order, event) over the radios, the
//! CSMA/CA MACs, the node queues, the wired link and the TCP endpoints.
//!
//! # Radio
//! A node transmits one frame at a time (half duplex). While node `s` transmits, every
//! neighbour of `s` hears energy (its CCA reports busy) and a neighbour that was idle locks
//! onto the frame; a second overlapping frame within range of a receiver, or the receiver
//! starting a transmission of its own, corrupts what it is receiving (no capture). A frame
//! that arrives intact at its addressee is then lost with probability `radio.frame_loss`.
//!
//! # MAC
//! Unslotted CSMA/CA per frame ([`crate::mac::Csma`]); the CCA covers the last 8 symbols
//! before the decision and also reports busy while the node itself sends or owes a
//! link-layer ACK; TX starts one turnaround time after an idle CCA. The addressee of an
//! intact data frame sends a link-layer ACK one turnaround after the frame's end, without
//! CSMA (as CC2420 auto-ACKs), even if its queue then refuses the packet. The sender waits
//! macAckWaitDuration; a missing ACK or a channel-access failure costs one retry, and after
//! macMaxFrameRetries retries the frame is dropped (`mac_drops`). Receivers discard
//! duplicates (same sender, same sequence number) but ACK them.
//!
//! # Network
//! Every node has one FIFO (`queue_packets`) for its own TCP segments, forwarded data going
//! up and TCP ACKs going down; a packet arriving at a full queue is dropped and counted
//! (`overflows_own` / `overflows_forwarded`). Data climbs the parent chain to the border
//! router (node 0), crosses the wired link to the end host; ACKs come back over the wired
//! link and down the tree.
//!
//! # Transport
//! One TCP Reno connection per node to the end host, driven like the cellular engine drives
//! them (`poll_transmit` after every event, `poll_timeout`/`on_timeout` timers, delayed
//! ACKs at the receiver). The application writes one MSS every `1/rate_pps` s (random phase
//! per node) into a send buffer of `send_buffer_segments`. With DTPA on and a TX period
//! TXP > 0, a node that has something its windows allow to send first waits TXP (events
//! meanwhile update TCP but send nothing), then sends all it may.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use cellshare_core::stats::jain_index;
use cellshare_core::time::{from_millis_f64, from_secs_f64, rearm, serialization_time, to_secs_f64};
use cellshare_core::{stream_rng, Nanos, Packet, PacketArena, PacketId, PacketKind, StreamRng, MS, SEC};
use cellshare_transport::cc::reno::{Reno, RenoConfig};
use cellshare_transport::tcp::{TcpReceiver, TcpSender};
use cellshare_transport::wire::{Ack, Segment};
use rand::Rng;

use crate::config::{LlnError, LlnScenario, MacConfig};
use crate::dtpa::{model_throughput, Dtpa};
use crate::mac::{Csma, Timing};
use crate::results::{BorderRouterResult, LlnResult, NodeResult};
use crate::topology::Topology;
use crate::{DATA_OVERHEAD_BYTES, MAC_ACK_BYTES};

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// The application of node i writes one segment.
    AppWrite(u32),
    /// Node i's TCP sender timer.
    SenderWake(u32),
    /// Node i's DTPA TX period is over: it may send its own data.
    Opportunity(u32),
    /// The end host's receiver for node i (delayed-ACK timer).
    ReceiverWake(u32),
    /// Node i's CCA ends (token).
    CcaEnd(u32, u32),
    /// Node i starts transmitting its head frame (token).
    TxStart(u32, u32),
    /// Node i's transmission (data or link ACK) ends.
    TxEnd(u32),
    /// Node i sends the link-layer ACK it owes.
    AckStart(u32),
    /// Node i's wait for a link-layer ACK is over (token).
    AckTimeout(u32, u32),
    /// Node i's pause before a link-layer retransmission is over (token).
    Retry(u32, u32),
    /// A packet reaches the end host over the wired link.
    AtHost(PacketId),
    /// A packet reaches the border router over the wired link.
    AtBr(PacketId),
}

/// Radio, MAC and queue state of one node (the border router included).
#[derive(Debug)]
struct Node {
    queue: VecDeque<PacketId>,
    cap: usize,
    /// A frame is in CSMA, on air or awaiting its ACK.
    busy: bool,
    csma: Csma,
    retries: u8,
    /// Invalidates stale CCA/TX/ACK-timeout events.
    token: u32,
    /// MAC sequence number of the head frame.
    dsn: u8,
    waiting_ack: bool,
    /// End of the current (or last) own transmission.
    tx_end: Nanos,
    tx_is_ack: bool,
    tx_to: u32,
    tx_seq: u8,
    /// A link-layer ACK is owed to `ack_to` for `ack_seq`.
    ack_pending: bool,
    ack_to: u32,
    ack_seq: u8,
    /// In-range transmitters on air now.
    heard: u16,
    /// When the last in-range transmission ended.
    last_heard_end: Nanos,
    /// The frame the receiver locked onto (sender id) and whether it is still intact.
    rx_from: u32,
    rx_ok: bool,
    /// Last MAC sequence number received from each node (duplicate detection).
    last_seq_from: Vec<u16>,
    rng_csma: StreamRng,
    rng_loss: StreamRng,
    stats: NodeStats,
}

#[derive(Clone, Copy, Debug, Default)]
struct NodeStats {
    overflows_own: u64,
    overflows_forwarded: u64,
    mac_drops: u64,
    tx_attempts: u64,
    collided: u64,
    random_losses: u64,
    cca_failures: u64,
    forwarded: u64,
}

/// TCP endpoints and DTPA state of one sensor node's connection.
#[derive(Debug)]
struct Conn {
    sender: TcpSender,
    receiver: TcpReceiver,
    written: u64,
    app_writes: u64,
    app_blocked: u64,
    sender_timer: Option<Nanos>,
    receiver_timer: Option<Nanos>,
    /// DTPA: when the pending TX period ends.
    opportunity: Option<Nanos>,
    dtpa: Dtpa,
    last_rtt_samples: u64,
    rtt_sum: f64,
    rtt_n: u64,
    /// Time integral of the applied TXP (ns·ns as f64) and the time of its last change.
    txp_area: f64,
    txp_since: Nanos,
    applied_txp: Nanos,
}

/// A wired serialization link (FIFO, unlimited buffer: a PC's UART driver).
#[derive(Clone, Copy, Debug)]
struct Wire {
    rate_bps: u64,
    delay: Nanos,
    free_at: Nanos,
}

impl Wire {
    fn send(&mut self, now: Nanos, bytes: u32) -> Nanos {
        let start = self.free_at.max(now);
        self.free_at = start + serialization_time(bytes as u64, self.rate_bps);
        self.free_at + self.delay
    }
}

/// A running LLN simulation.
#[derive(Debug)]
pub struct LlnSimulation {
    scenario: LlnScenario,
    topo: Topology,
    timing: Timing,
    mac: MacConfig,
    frame_loss: f64,
    /// Pause before a link-layer retransmission.
    retry_delay: Nanos,
    mss: u32,
    send_buffer: u64,
    app_period: Nanos,
    dtpa_on: bool,
    now: Nanos,
    end: Nanos,
    seq: u64,
    heap: BinaryHeap<Reverse<(Nanos, u64, Ev)>>,
    arena: PacketArena,
    nodes: Vec<Node>,
    /// Index i − 1 holds node i's connection.
    conns: Vec<Conn>,
    up: Wire,
    down: Wire,
    events: u64,
}


impl LlnSimulation {
    /// Builds the network of `scenario` (validating it and its topology).
    pub fn new(scenario: &LlnScenario) -> Result<Self, LlnError> {
        scenario.validate()?;
        let sc = scenario.clone();
        let l = &sc.lln;
        let topo = Topology::build(l)?;
        let seed = sc.simulation.seed;
        let n = topo.n;
        let end = from_secs_f64(sc.simulation.duration_s);
        let mut timing = Timing::new((l.radio.rate_kbps * 1e3).round() as u64);
        if let Some(w) = l.mac.ack_wait_ms {
            timing.ack_wait = from_millis_f64(w);
        }
        let tcp = l.tcp.tcp_config();
        tcp.validate().map_err(|e| LlnError::new("lln.tcp", "these settings", e))?;
        let nodes = (0..n)
            .map(|i| {
                let cap = if i == 0 { l.border_router.queue_packets } else { l.queue_packets } as usize;
                Node {
                    queue: VecDeque::with_capacity(cap),
                    cap,
                    busy: false,
                    csma: Csma::start(&l.mac),
                    retries: 0,
                    token: 0,
                    dsn: 0,
                    waiting_ack: false,
                    tx_end: 0,
                    tx_is_ack: false,
                    tx_to: NONE,
                    tx_seq: 0,
                    ack_pending: false,
                    ack_to: NONE,
                    ack_seq: 0,
                    heard: 0,
                    last_heard_end: 0,
                    rx_from: NONE,
                    rx_ok: false,
                    last_seq_from: vec![u16::MAX; n],
                    rng_csma: stream_rng(seed, "lln-csma", i as u64),
                    rng_loss: stream_rng(seed, "lln-frame-loss", i as u64),
                    stats: NodeStats::default(),
                }
            })
            .collect();
        let d = &l.dtpa;
        let conns = (1..n)
            .map(|i| {
                let mut clock = stream_rng(seed, "lln-tcp-clock", i as u64);
                let cc = Box::new(Reno::new(&RenoConfig::default(), tcp.mss, tcp.initial_window_bytes()));
                Conn {
                    sender: TcpSender::new(&tcp, cc, 0, clock.gen()),
                    receiver: TcpReceiver::new(&tcp, 0, clock.gen()),
                    written: 0,
                    app_writes: 0,
                    app_blocked: 0,
                    sender_timer: None,
                    receiver_timer: None,
                    opportunity: None,
                    dtpa: Dtpa::new(d.a, d.c, d.beta),
                    last_rtt_samples: 0,
                    rtt_sum: 0.0,
                    rtt_n: 0,
                    txp_area: 0.0,
                    txp_since: 0,
                    applied_txp: 0,
                }
            })
            .collect();
        let b = &l.border_router;
        let wire = Wire { rate_bps: (b.wired_rate_kbps * 1e3).round() as u64, delay: from_millis_f64(b.wired_delay_ms), free_at: 0 };
        let app_period = from_secs_f64(1.0 / l.app.rate_pps).max(1);
        let mut sim = Self {
            topo,
            timing,
            mac: l.mac.clone(),
            frame_loss: l.radio.frame_loss,
            retry_delay: from_millis_f64(l.mac.retry_delay_ms),
            mss: tcp.mss,
            send_buffer: l.app.send_buffer_segments as u64 * tcp.mss as u64,
            app_period,
            dtpa_on: d.enabled,
            now: 0,
            end,
            seq: 0,
            heap: BinaryHeap::with_capacity(4 * n + 64),
            arena: PacketArena::with_capacity(64 * n),
            nodes,
            conns,
            up: wire,
            down: wire,
            events: 0,
            scenario: sc,
        };
        for i in 1..n as u32 {
            let phase = stream_rng(seed, "lln-app", i as u64).gen_range(0..app_period);
            sim.push(phase, Ev::AppWrite(i));
        }
        Ok(sim)
    }

    /// The routing tree and neighbourhood graph in use.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// Current simulated time.
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// End of the run.
    pub fn end(&self) -> Nanos {
        self.end
    }

    /// Whether the run has reached its end.
    pub fn finished(&self) -> bool {
        self.now >= self.end
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> LlnResult {
        self.advance(self.end);
        self.results()
    }

    /// Processes every event before `until` (capped at the end of the run). The outcome
    /// does not depend on how a run is cut into `advance` calls.
    pub fn advance(&mut self, until: Nanos) {
        let until = until.min(self.end);
        while let Some(&Reverse((t, _, ev))) = self.heap.peek() {
            if t >= until {
                break;
            }
            self.heap.pop();
            self.now = t;
            self.events += 1;
            self.handle(ev);
        }
        self.now = self.now.max(until);
    }

    #[inline]
    fn push(&mut self, t: Nanos, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, ev)));
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::AppWrite(i) => self.app_write(i),
            Ev::SenderWake(i) => {
                let c = &mut self.conns[i as usize - 1];
                if c.sender_timer != Some(self.now) {
                    return;
                }
                c.sender_timer = None;
                if c.sender.poll_timeout().is_some_and(|t| t <= self.now) {
                    c.sender.on_timeout(self.now);
                }
                self.sender_event(i);
            }
            Ev::Opportunity(i) => {
                self.conns[i as usize - 1].opportunity = None;
                self.service_sender(i);
            }
            Ev::ReceiverWake(i) => {
                let c = &mut self.conns[i as usize - 1];
                if c.receiver_timer != Some(self.now) {
                    return;
                }
                c.receiver_timer = None;
                if c.receiver.poll_timeout().is_some_and(|t| t <= self.now) {
                    c.receiver.on_timeout(self.now);
                }
                self.service_receiver(i);
            }
            Ev::CcaEnd(i, tok) => self.cca_end(i, tok),
            Ev::TxStart(i, tok) => {
                let nd = &self.nodes[i as usize];
                if nd.token != tok {
                    return;
                }
                if nd.tx_end > self.now || nd.ack_pending {
                    // It owes or sends a link ACK: behave as after a busy CCA.
                    self.channel_busy(i);
                } else {
                    self.start_data_tx(i);
                }
            }
            Ev::TxEnd(i) => self.tx_end(i),
            Ev::AckStart(i) => {
                let nd = &mut self.nodes[i as usize];
                nd.ack_pending = false;
                if nd.tx_end <= self.now {
                    let (to, seq) = (nd.ack_to, nd.ack_seq);
                    self.start_tx(i, true, to, seq, MAC_ACK_BYTES);
                }
            }
            Ev::AckTimeout(i, tok) => {
                let nd = &mut self.nodes[i as usize];
                if nd.token != tok || !nd.waiting_ack {
                    return;
                }
                nd.waiting_ack = false;
                self.attempt_failed(i);
            }
            Ev::Retry(i, tok) => {
                if self.nodes[i as usize].token == tok {
                    self.start_csma(i);
                }
            }
            Ev::AtHost(id) => self.at_host(id),
            Ev::AtBr(id) => self.route(0, id),
        }
    }

    // ---------------------------------------------------------------- MAC and radio

    /// Starts sending the head of node i's queue if it is idle.
    fn start_next(&mut self, i: u32) {
        let nd = &mut self.nodes[i as usize];
        if nd.busy || nd.queue.is_empty() {
            return;
        }
        nd.busy = true;
        nd.retries = 0;
        nd.dsn = nd.dsn.wrapping_add(1);
        self.start_csma(i);
    }

    fn start_csma(&mut self, i: u32) {
        self.nodes[i as usize].csma = Csma::start(&self.mac);
        self.backoff(i);
    }

    fn backoff(&mut self, i: u32) {
        let nd = &mut self.nodes[i as usize];
        let k = nd.csma.backoff_periods(&mut nd.rng_csma) as u64;
        nd.token = nd.token.wrapping_add(1);
        let tok = nd.token;
        let t = self.now + k * self.timing.unit_backoff + self.timing.cca;
        self.push(t, Ev::CcaEnd(i, tok));
    }

    fn cca_end(&mut self, i: u32, tok: u32) {
        let now = self.now;
        let cca = self.timing.cca;
        let nd = &mut self.nodes[i as usize];
        if nd.token != tok {
            return;
        }
        let busy = nd.heard > 0 || nd.last_heard_end + cca > now || nd.tx_end > now || nd.ack_pending;
        if busy {
            self.channel_busy(i);
        } else {
            nd.token = nd.token.wrapping_add(1);
            let tok = nd.token;
            self.push(now + self.timing.turnaround, Ev::TxStart(i, tok));
        }
    }

    fn channel_busy(&mut self, i: u32) {
        let nd = &mut self.nodes[i as usize];
        if nd.csma.on_busy(&self.mac) {
            self.backoff(i);
        } else {
            nd.stats.cca_failures += 1;
            self.attempt_failed(i);
        }
    }

    /// A transmission attempt failed (no ACK, or channel-access failure): retry or drop.
    fn attempt_failed(&mut self, i: u32) {
        let max = self.mac.max_frame_retries;
        let nd = &mut self.nodes[i as usize];
        nd.retries += 1;
        if nd.retries > max {
            nd.stats.mac_drops += 1;
            let id = nd.queue.pop_front().expect("a frame was being sent");
            nd.busy = false;
            self.arena.free(id);
            self.start_next(i);
        } else if self.retry_delay > 0 {
            nd.token = nd.token.wrapping_add(1);
            let tok = nd.token;
            self.push(self.now + self.retry_delay, Ev::Retry(i, tok));
        } else {
            self.start_csma(i);
        }
    }

    fn start_data_tx(&mut self, i: u32) {
        let nd = &self.nodes[i as usize];
        let id = *nd.queue.front().expect("a frame was being sent");
        let p = *self.arena.get(id);
        let to = match p.kind {
            PacketKind::Data => self.topo.parent[i as usize],
            PacketKind::Ack => self.topo.next_down(i, p.flow).expect("ACKs are only queued on the path to their node"),
        };
        let seq = nd.dsn;
        self.nodes[i as usize].stats.tx_attempts += 1;
        self.start_tx(i, false, to, seq, p.size);
    }

    /// Node i puts a frame of `psdu` bytes for `to` on the air.
    fn start_tx(&mut self, i: u32, is_ack: bool, to: u32, seq: u8, psdu: u32) {
        let now = self.now;
        let end = now + self.timing.airtime(psdu);
        let nd = &mut self.nodes[i as usize];
        nd.tx_end = end;
        nd.tx_is_ack = is_ack;
        nd.tx_to = to;
        nd.tx_seq = seq;
        if nd.rx_from != NONE {
            nd.rx_ok = false; // half duplex: what it was receiving is lost
        }
        for k in 0..self.topo.neighbours[i as usize].len() {
            let j = self.topo.neighbours[i as usize][k] as usize;
            let n = &mut self.nodes[j];
            n.heard += 1;
            if n.rx_from != NONE {
                n.rx_ok = false;
            } else if n.heard == 1 && n.tx_end <= now {
                n.rx_from = i;
                n.rx_ok = true;
            }
        }
        self.push(end, Ev::TxEnd(i));
    }

    fn tx_end(&mut self, i: u32) {
        let now = self.now;
        let (is_ack, to, seq) = {
            let nd = &self.nodes[i as usize];
            (nd.tx_is_ack, nd.tx_to, nd.tx_seq)
        };
        let mut intact = false;
        for k in 0..self.topo.neighbours[i as usize].len() {
            let j = self.topo.neighbours[i as usize][k];
            let n = &mut self.nodes[j as usize];
            n.heard -= 1;
            n.last_heard_end = now;
            if n.rx_from == i {
                n.rx_from = NONE;
                if j == to {
                    intact = n.rx_ok;
                }
            }
        }
        let received = intact && {
            let r = &mut self.nodes[to as usize];
            let lost = self.frame_loss > 0.0 && r.rng_loss.gen::<f64>() < self.frame_loss;
            if lost {
                self.nodes[i as usize].stats.random_losses += 1;
            }
            !lost
        };
        if !intact {
            self.nodes[i as usize].stats.collided += 1;
        }
        if is_ack {
            let s = &mut self.nodes[to as usize];
            if received && s.waiting_ack && s.dsn == seq {
                s.waiting_ack = false;
                s.token = s.token.wrapping_add(1);
                s.busy = false;
                let id = s.queue.pop_front().expect("the acknowledged frame");
                self.arena.free(id);
                self.start_next(to);
            }
            return;
        }
        // A data frame: await the link-layer ACK.
        let nd = &mut self.nodes[i as usize];
        nd.waiting_ack = true;
        nd.token = nd.token.wrapping_add(1);
        let tok = nd.token;
        let head = *nd.queue.front().expect("the frame on air");
        self.push(now + self.timing.ack_wait, Ev::AckTimeout(i, tok));
        if !received {
            return;
        }
        let r = &mut self.nodes[to as usize];
        r.ack_pending = true;
        r.ack_to = i;
        r.ack_seq = seq;
        let duplicate = r.last_seq_from[i as usize] == seq as u16;
        r.last_seq_from[i as usize] = seq as u16;
        self.push(now + self.timing.turnaround, Ev::AckStart(to));
        if !duplicate {
            let copy = *self.arena.get(head);
            let id = self.arena.alloc(copy);
            self.route(to, id);
        }
    }

    // ---------------------------------------------------------------- network layer

    /// Packet `id` is at node `at` (received over the radio, or from the wired link at the
    /// border router): deliver, forward or hand to the wired link.
    fn route(&mut self, at: u32, id: PacketId) {
        let p = *self.arena.get(id);
        match p.kind {
            PacketKind::Data if at == 0 => {
                let t = self.up.send(self.now, crate::wired_bytes(p.size));
                self.push(t, Ev::AtHost(id));
            }
            PacketKind::Data => self.enqueue(at, id, false),
            PacketKind::Ack if at == p.flow => {
                self.arena.free(id);
                let ack = Ack { ack: p.seq, rwnd: p.rwnd, ts_val: p.ts_val, ts_ecr: p.ts_ecr, sack: p.sack, sack_len: p.sack_len, syn: p.syn };
                self.on_tcp_ack(at, &ack);
            }
            PacketKind::Ack => self.enqueue(at, id, false),
        }
    }

    fn enqueue(&mut self, at: u32, id: PacketId, own: bool) {
        let nd = &mut self.nodes[at as usize];
        if nd.queue.len() >= nd.cap {
            if own {
                nd.stats.overflows_own += 1;
            } else {
                nd.stats.overflows_forwarded += 1;
            }
            self.arena.free(id);
            return;
        }
        if !own {
            nd.stats.forwarded += 1;
        }
        nd.queue.push_back(id);
        self.start_next(at);
    }

    // ---------------------------------------------------------------- transport

    fn app_write(&mut self, i: u32) {
        let next = self.now + self.app_period;
        if next < self.end {
            self.push(next, Ev::AppWrite(i));
        }
        let (mss, buf) = (self.mss as u64, self.send_buffer);
        let c = &mut self.conns[i as usize - 1];
        c.app_writes += 1;
        if c.written - c.sender.snd_una() + mss > buf {
            c.app_blocked += 1;
            return;
        }
        c.written += mss;
        c.sender.write(mss);
        self.sender_event(i);
    }

    /// Something happened to node i's sender (ACK, timer, new data): send now, or with
    /// DTPA after the TX period.
    fn sender_event(&mut self, i: u32) {
        let now = self.now;
        let c = &mut self.conns[i as usize - 1];
        let txp = if self.dtpa_on { c.dtpa.txp() } else { 0 };
        if txp == 0 {
            if c.opportunity.is_none() {
                self.service_sender(i);
            }
            return;
        }
        let open = c.opportunity.is_none() && c.sender.can_transmit(now);
        if open {
            c.opportunity = Some(now + txp);
        }
        let wake = rearm(&mut c.sender_timer, c.sender.poll_timeout(), now);
        if open {
            self.push(now + txp, Ev::Opportunity(i));
        }
        if let Some(t) = wake {
            self.push(t, Ev::SenderWake(i));
        }
    }

    /// Node i's sender emits everything it may into the node's queue; re-arms its timer.
    fn service_sender(&mut self, i: u32) {
        let now = self.now;
        loop {
            let c = &mut self.conns[i as usize - 1];
            let Some(seg) = c.sender.poll_transmit(now) else { break };
            let p = Packet {
                flow: i,
                ue: i,
                size: seg.len + DATA_OVERHEAD_BYTES,
                payload: seg.len,
                kind: PacketKind::Data,
                retransmit: seg.retransmit,
                syn: seg.syn,
                seq: seg.seq,
                ts_val: seg.ts_val,
                ts_ecr: seg.ts_ecr,
                sent_at: now,
                ..Default::default()
            };
            let id = self.arena.alloc(p);
            self.enqueue(i, id, true);
        }
        let c = &mut self.conns[i as usize - 1];
        if let Some(t) = rearm(&mut c.sender_timer, c.sender.poll_timeout(), now) {
            self.push(t, Ev::SenderWake(i));
        }
    }

    fn on_tcp_ack(&mut self, i: u32, ack: &Ack) {
        let now = self.now;
        let dtpa_on = self.dtpa_on;
        let c = &mut self.conns[i as usize - 1];
        c.sender.on_ack(now, ack);
        let st = c.sender.stats();
        if st.rtt_samples > c.last_rtt_samples {
            c.last_rtt_samples = st.rtt_samples;
            c.rtt_sum += to_secs_f64(st.latest_rtt);
            c.rtt_n += 1;
            c.dtpa.on_rtt_sample(st.latest_rtt, st.timeouts, st.fast_retransmits, st.segments_sent);
            let applied = if dtpa_on { c.dtpa.txp() } else { 0 };
            c.txp_area += c.applied_txp as f64 * (now - c.txp_since) as f64;
            c.txp_since = now;
            c.applied_txp = applied;
        }
        self.sender_event(i);
    }

    fn at_host(&mut self, id: PacketId) {
        let p = *self.arena.get(id);
        self.arena.free(id);
        let seg = Segment { seq: p.seq, len: p.payload, ts_val: p.ts_val, ts_ecr: p.ts_ecr, retransmit: p.retransmit, syn: p.syn };
        self.conns[p.flow as usize - 1].receiver.on_segment(self.now, &seg);
        self.service_receiver(p.flow);
    }

    fn service_receiver(&mut self, i: u32) {
        let now = self.now;
        loop {
            let c = &mut self.conns[i as usize - 1];
            let Some(ack) = c.receiver.poll_ack(now) else { break };
            let sack_bytes = if ack.sack_len > 0 { 4 + 8 * ack.sack_len as u32 } else { 0 };
            let p = Packet {
                flow: i,
                ue: i,
                size: DATA_OVERHEAD_BYTES + sack_bytes,
                kind: PacketKind::Ack,
                seq: ack.ack,
                rwnd: ack.rwnd,
                ts_val: ack.ts_val,
                ts_ecr: ack.ts_ecr,
                sack: ack.sack,
                sack_len: ack.sack_len,
                syn: ack.syn,
                sent_at: now,
                ..Default::default()
            };
            let t = self.down.send(now, crate::wired_bytes(p.size));
            let id = self.arena.alloc(p);
            self.push(t, Ev::AtBr(id));
        }
        let c = &mut self.conns[i as usize - 1];
        if let Some(t) = rearm(&mut c.receiver_timer, c.receiver.poll_timeout(), now) {
            self.push(t, Ev::ReceiverWake(i));
        }
    }

    // ---------------------------------------------------------------- results

    /// Results of the run so far.
    pub fn results(&self) -> LlnResult {
        let dur = to_secs_f64(self.now.max(1));
        let l = &self.scenario.lln;
        let desc = self.topo.descendants();
        let mss = self.mss as f64;
        let nodes: Vec<NodeResult> = (1..self.topo.n)
            .map(|i| {
                let c = &self.conns[i - 1];
                let nd = &self.nodes[i];
                let st = c.sender.stats();
                let delivered = c.receiver.delivered();
                let goodput_pps = delivered as f64 / mss / dur;
                let p = if st.segments_sent == 0 { 0.0 } else { (st.timeouts + st.fast_retransmits) as f64 / st.segments_sent as f64 };
                let mean_rtt = if c.rtt_n == 0 { 0.0 } else { c.rtt_sum / c.rtt_n as f64 };
                let area = c.txp_area + c.applied_txp as f64 * (self.now - c.txp_since) as f64;
                let mean_txp = area / self.now.max(1) as f64 / SEC as f64;
                NodeResult {
                    id: i as u32,
                    parent: self.topo.parent[i],
                    hops: self.topo.hops[i],
                    descendants: desc[i],
                    bytes_delivered: delivered,
                    goodput_pps,
                    goodput_kbps: delivered as f64 * 8.0 / 1e3 / dur,
                    app_writes: c.app_writes,
                    app_blocked: c.app_blocked,
                    segments_sent: st.segments_sent,
                    retransmits: st.retransmits,
                    timeouts: st.timeouts,
                    fast_retransmits: st.fast_retransmits,
                    loss_rate: p,
                    mean_rtt_ms: mean_rtt * 1e3,
                    srtt_ms: c.dtpa.srtt_s().unwrap_or(0.0) * 1e3,
                    rtt_samples: c.rtt_n,
                    txp_ms: if self.dtpa_on { c.dtpa.txp() as f64 / MS as f64 } else { 0.0 },
                    mean_txp_ms: mean_txp * 1e3,
                    model_pps: model_throughput(l.dtpa.a, p, mean_rtt, mean_txp),
                    overflows: nd.stats.overflows_own + nd.stats.overflows_forwarded,
                    overflows_own: nd.stats.overflows_own,
                    overflows_forwarded: nd.stats.overflows_forwarded,
                    forwarded: nd.stats.forwarded,
                    mac_drops: nd.stats.mac_drops,
                    tx_attempts: nd.stats.tx_attempts,
                    collided: nd.stats.collided,
                    random_losses: nd.stats.random_losses,
                    cca_failures: nd.stats.cca_failures,
                }
            })
            .collect();
        let br = &self.nodes[0].stats;
        let tputs: Vec<f64> = nodes.iter().map(|n| n.goodput_pps).collect();
        let total: f64 = tputs.iter().sum();
        LlnResult {
            scenario: self.scenario.name.clone(),
            seed: self.scenario.simulation.seed,
            duration_s: dur,
            dtpa: self.dtpa_on,
            c: l.dtpa.c,
            mss: self.mss,
            offered_pps: l.app.rate_pps,
            total_goodput_pps: total,
            total_goodput_kbps: nodes.iter().map(|n| n.goodput_kbps).sum(),
            jain_index: jain_index(&tputs),
            border_router: BorderRouterResult {
                overflows: br.overflows_own + br.overflows_forwarded,
                forwarded: br.forwarded,
                mac_drops: br.mac_drops,
                tx_attempts: br.tx_attempts,
                collided: br.collided,
            },
            nodes,
            events: self.events,
            peak_packets: self.arena.peak(),
        }
    }
}

