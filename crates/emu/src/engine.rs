//! The real-time forwarding loop.
//!
//! Time is the monotonic clock in nanoseconds since the engine started; TTI (slot) `k` spans
//! `[k·slot, (k+1)·slot)` with the cell's scheduling period as `slot`: LTE's 1 ms TTI, or an
//! NR cell's slot of 1/2^μ ms ([`cellshare_core::Slot`]). "TTI" below means the cell's slot.
//! Every wake-up the loop
//! 1. reads every waiting packet from the TUN devices (non-blocking): packets from the server
//!    to a UE enter the downlink wired path — serialization on the shared backhaul (drop-tail
//!    at `backhaul_queue_bytes`) then the fixed remote + backhaul delay — and packets from a UE
//!    enter the uplink path (fixed uplink + backhaul + remote delay);
//! 2. writes the uplink packets whose delay has elapsed to the server's TUN device;
//! 3. at each TTI boundary `k` (and for every boundary it missed, in order): writes the packets
//!    the cell delivered in TTI `k − 1` to their UE's TUN device (a packet is delivered at the
//!    end of the TTI carrying its last byte, as in the simulator), offers the downlink packets
//!    that have reached the base station to their UE's RLC queue ([`Cell::enqueue`], stamped
//!    with their arrival time), and runs the MAC scheduler for TTI `k` ([`Cell::run_tti`]) —
//!    on an NR TDD cell only in the pattern's downlink slots (`D`, `S`), as the simulator does;
//! 4. sleeps in `ppoll` until the next TTI boundary or uplink departure, or a packet arrives.
//!
//! The cell (or the network of cells, with its moving UEs and handovers), the channels and
//! the queue disciplines are the simulator's own types, built from the scenario by
//! [`cellshare_sim::build_ran`]: a handover in the emulator is the simulator's handover. Packet bytes live in a buffer per arena slot,
//! so after warm-up the loop allocates nothing per packet.

use std::collections::{HashMap, VecDeque};
use std::fs::File;

use cellshare_cell::{Delivery, DropCause};
use cellshare_ran::{HandoverLog, Ran};
use cellshare_cell::nr::TddPattern;
use cellshare_core::{Nanos, Packet, PacketArena, PacketId, Slot, TrafficClass, MS, SEC};
use cellshare_sim::metrics::{DelayHistogram, DelayPercentiles, PerSecond};
use serde::Serialize;

use crate::netns::{ue_of, Tun};
use crate::packet::{parse_ipv4, FlowKey};
use crate::pcap::PcapWriter;

/// Largest packet read from a TUN device (its MTU is 1500).
const MAX_PACKET: usize = 2048;
/// Packets read from one device per wake-up before moving to the next (fairness).
const READ_BURST: usize = 256;

/// CLOCK_MONOTONIC in nanoseconds.
#[inline]
pub fn monotonic_ns() -> Nanos {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec for the call.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as Nanos * SEC + ts.tv_nsec as Nanos
}

/// Wired path and cell parameters of the engine.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Server → base station delay (remote + backhaul), ns.
    pub down_delay: Nanos,
    /// UE → server delay (uplink + backhaul + remote), ns.
    pub up_delay: Nanos,
    /// Backhaul rate, bits per second.
    pub backhaul_rate_bps: u64,
    /// Backhaul drop-tail buffer, bytes.
    pub backhaul_queue_bytes: u64,
    /// Length of the scenario (per-second series cover it), ns.
    pub duration: Nanos,
    /// Receiver port → (scenario flow id, name, background) for the scenario's flows.
    pub flow_ports: HashMap<u16, (u32, String, bool)>,
    /// An NR cell's TDD pattern (`cell.nr.tdd_pattern`): the scheduler runs in its downlink
    /// slots only. `None` on LTE and NR FDD.
    pub tdd: Option<TddPattern>,
}

/// What the caller's hook tells the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Keep running.
    Continue,
    /// Stop the loop.
    Stop,
}

#[derive(Debug)]
struct FlowStats {
    key: FlowKey,
    ue: u32,
    scenario: Option<(u32, String)>,
    bytes: u64,
    packets: u64,
    drops: u64,
    series: PerSecond,
    sojourn: DelayHistogram,
    /// Engine time its first packet left the server (was read from the server's device).
    first_seen: Nanos,
}

/// Results of one flow (one 5-tuple from the server to a UE).
#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    /// Scenario flow index, if the flow is one the emulator started.
    pub id: Option<u32>,
    /// Scenario flow name, else `src:port->dst:port`.
    pub name: String,
    /// Receiving UE.
    pub ue: u32,
    /// `src:port->dst:port` (protocol number in front for non-TCP).
    pub five_tuple: String,
    /// Transport payload bytes delivered to the UE (retransmissions included).
    pub bytes_delivered: u64,
    /// Packets delivered.
    pub packets_delivered: u64,
    /// Packets dropped at the base station or on the backhaul.
    pub drops: u64,
    /// Payload delivered per second of the scenario's clock, Mbps.
    pub per_second_mbps: Vec<f64>,
    /// Sojourn of this flow's packets at the base station (arrival at the RLC queue to the
    /// end of the TTI carrying the last byte).
    pub queue_delay_ms: DelayPercentiles,
    /// Scenario time (s) at which the flow's first packet left the server — for a TCP flow
    /// the sender's SYN, so the moment the connection started; `None` for a flow seen before
    /// the scenario's clock started. `cellshare crosscheck` starts the simulator's flow here.
    pub first_packet_s: Option<f64>,
}

/// One UE's results.
#[derive(Clone, Debug, Serialize)]
pub struct UeResult {
    /// UE index.
    pub id: u32,
    /// IP packet bytes delivered.
    pub bytes_delivered: u64,
    /// Per second, Mbps (IP bytes).
    pub per_second_mbps: Vec<f64>,
    /// Sojourn at the base station.
    pub queue_delay_ms: DelayPercentiles,
    /// What the realistic radio link did for this UE (radio channels): new transport blocks,
    /// HARQ retransmissions, block errors, given-up blocks and the packets lost with them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<cellshare_cell::LinkStats>,
}

/// Drop counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Drops {
    /// Rejected by the RLC queue's discipline on arrival.
    pub enqueue: u64,
    /// Dropped by the discipline at dequeue (e.g. sojourn-based AQMs) or by head drop.
    pub dequeue: u64,
    /// Rejected on arrival by a cell-level dropper (Sneaker, strict priority).
    pub admission: u64,
    /// Lost over the air: a block carrying part of the packet was given up by HARQ
    /// (realistic link on a radio channel).
    pub air: u64,
    /// Dropped by the backhaul's drop-tail buffer.
    pub backhaul: u64,
    /// Lost at a handover (a network of cells).
    pub handover: u64,
    /// Packets the emulator could not route (not IPv4, or not to a UE address).
    pub unroutable: u64,
}

/// Everything the engine measured.
#[derive(Clone, Debug, Serialize)]
pub struct EngineResults {
    /// Scenario seconds covered.
    pub duration_s: f64,
    /// TTIs (NR: downlink slots) run in the scenario's time.
    pub ttis: u64,
    /// The cell's scheduling period, ms: 1 on LTE, 1/2^μ on NR.
    pub slot_ms: f64,
    /// PRBs used over PRBs offered in those TTIs, the simulator's rule
    /// (`cellshare_cell::Cell::offers_every_tti`: every PRB of every TTI on radio and fixed
    /// channels; on trace channels the TTIs with an opportunity, PRBs weighted by the bytes
    /// they carry there); 0 when none was offered.
    pub prb_utilization: f64,
    /// PRBs used over all the cells' PRBs in those TTIs, offered or not.
    pub prb_used_share_of_all: f64,
    /// PRBs used over PRBs offered per second (`None`: a second that offered none).
    pub prb_utilization_per_second: Vec<Option<f64>>,
    /// IP bytes delivered to the UEs, Mbps over the run.
    pub delivered_mbps: f64,
    /// Sojourn at the base station, all packets.
    pub queue_delay_ms: DelayPercentiles,
    /// Delay the emulator added beyond the model: time a packet was written to its TUN
    /// device minus the time the model says it leaves (end of its TTI downlink, end of the
    /// wired delay uplink), from the scenario clock's start on.
    pub overhead_ms: DelayPercentiles,
    /// How late TTIs (NR: slots) started against their boundary.
    pub tti_lateness_ms: DelayPercentiles,
    /// Drops by cause.
    pub drops: Drops,
    /// Per flow.
    pub flows: Vec<FlowResult>,
    /// Per UE.
    pub ues: Vec<UeResult>,
    /// Every handover (a scenario with `[network]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handovers: Option<HandoverLog>,
    /// The millisecond of the cell's time at the scenario clock's start (`None` before it
    /// started): on LTE the TTI the cell ran then. The cell's time counts from the engine's
    /// start, not the clock's: the warm-up and the idle-RTT probes run first, so the channels
    /// (a trace's millisecond, a fading process's time) are this many milliseconds in when the
    /// scenario's second 0 begins. `cellshare crosscheck` offsets the simulator's trace
    /// channels by it (trace offsets are milliseconds on LTE and NR alike).
    pub clock_start_tti: Option<u64>,
    /// The cell's slot at the scenario clock's start (`None` before it started): the slot
    /// boundary nearest the start, about `clock_start_tti` · 2^μ on NR, `clock_start_tti` on
    /// LTE (`summary.json` shows it for NR cells).
    pub clock_start_slot: Option<u64>,
}

/// The real-time engine.
pub struct Engine<'a> {
    cfg: EngineConfig,
    cell: Ran,
    n_prb: u32,
    /// The cell's scheduling period (LTE's TTI or the NR slot).
    slot: Slot,
    arena: PacketArena,
    bufs: Vec<Vec<u8>>,
    server: &'a Tun,
    ues: &'a [Tun],
    down: VecDeque<(Nanos, PacketId)>,
    up: VecDeque<(Nanos, Vec<u8>)>,
    spare: Vec<Vec<u8>>,
    pending: Vec<Delivery>,
    pending_end: Nanos,
    delivered: Vec<Delivery>,
    dropped: Vec<(PacketId, DropCause)>,
    next_tti: u64,
    /// CLOCK_MONOTONIC time (ns) of engine time 0; see [`Engine::new`].
    origin: Nanos,
    backhaul_free_at: Nanos,
    flow_index: HashMap<FlowKey, u32>,
    flows: Vec<FlowStats>,
    ue_bytes: Vec<u64>,
    ue_series: Vec<PerSecond>,
    ue_sojourn: Vec<DelayHistogram>,
    sojourn: DelayHistogram,
    overhead: DelayHistogram,
    lateness: DelayHistogram,
    prb_series: PerSecond,
    prbs_used: u64,
    /// Every cell offers its PRBs in every TTI (no cell of trace channels only).
    offers_every_tti: bool,
    /// A cell of trace UEs: PRBs offered and used weighted by their TTI's capacity
    /// (`Cell::offered_bytes_in`, `TtiReport::prb_bytes_used`), in the run and per second.
    prb_bytes_offered: u64,
    prb_bytes_used: u64,
    offered_series: PerSecond,
    used_series: PerSecond,
    ttis: u64,
    drops: Drops,
    t0: Option<Nanos>,
    pcap: Option<PcapWriter<File>>,
}

impl<'a> Engine<'a> {
    /// An engine forwarding between `server` and `ues` through `cell`.
    ///
    /// TTI boundaries fall half-way between two ticks of CLOCK_MONOTONIC's milliseconds, the
    /// clock Linux takes its TCP timestamps from (`tcp_clock_ms`, 1 ms TSval). Deliveries are
    /// written a few µs after a boundary, so the packets of one TTI are acknowledged with one
    /// TSval and consecutive TTIs with consecutive TSvals — the receiver's TSval ticks once
    /// per TTI, as in the simulator and as Legilimens assumes. With an arbitrary phase a
    /// boundary close to a millisecond tick makes TTIs share or skip a TSval at random.
    ///
    /// On an NR cell a millisecond holds 2^μ slots, so the TSval cannot tick per slot. The
    /// emulator keeps the simulator's rule instead: the simulated receiver's TSval is the
    /// millisecond a delivery happens in (`ts_clock(now) = now / 1 ms`), and a slot's packets
    /// are delivered at the slot's end, so slot `k`'s TSval is ⌊(k+1)·slot / 1 ms⌋ — at μ = 1
    /// the slots ending at `j` ms and `j + 0.5` ms share TSval `j`. Engine time 0 is therefore
    /// put half a slot after a millisecond tick (less a whole millisecond, which only shifts
    /// every TSval by one): every slot boundary then lies half a slot from the nearest tick,
    /// the 2^μ deliveries of a millisecond of cell time carry one TSval as in the simulator,
    /// with half a slot of margin either way (a write up to half a slot late, or a timestamp
    /// the kernel took up to half a slot before the write, keeps its TSval). On LTE (slot =
    /// 1 ms) this is the phase above, half-way between two ticks. Checked on real ACKs by
    /// `tests/test_emu_nr.py` (the capture's TSvals against the slots' write times).
    pub fn new(cfg: EngineConfig, cell: Ran, server: &'a Tun, ues: &'a [Tun], pcap: Option<PcapWriter<File>>) -> Self {
        let n = cell.n_ues();
        let n_prb = cell.n_prb();
        let slot = cell.slot();
        let d = cfg.duration;
        let offers_every_tti = cell.cells().iter().all(|c| c.offers_every_tti());
        Engine {
            cfg,
            cell,
            n_prb,
            slot,
            arena: PacketArena::with_capacity(4096),
            bufs: Vec::new(),
            server,
            ues,
            down: VecDeque::with_capacity(4096),
            up: VecDeque::with_capacity(4096),
            spare: Vec::new(),
            pending: Vec::with_capacity(256),
            pending_end: 0,
            delivered: Vec::with_capacity(256),
            dropped: Vec::with_capacity(64),
            next_tti: 0,
            origin: {
                let m = monotonic_ns();
                (m / MS) * MS - MS + slot.ns() / 2
            },
            backhaul_free_at: 0,
            flow_index: HashMap::new(),
            flows: Vec::new(),
            ue_bytes: vec![0; n],
            ue_series: (0..n).map(|_| PerSecond::new(d)).collect(),
            ue_sojourn: vec![DelayHistogram::default(); n],
            sojourn: DelayHistogram::default(),
            overhead: DelayHistogram::default(),
            lateness: DelayHistogram::default(),
            prb_series: PerSecond::new(d),
            prbs_used: 0,
            offers_every_tti,
            prb_bytes_offered: 0,
            prb_bytes_used: 0,
            offered_series: PerSecond::new(d),
            used_series: PerSecond::new(d),
            ttis: 0,
            drops: Drops::default(),
            t0: None,
            pcap,
        }
    }

    /// Engine time: nanoseconds of CLOCK_MONOTONIC since the engine's origin.
    #[inline]
    pub fn now(&self) -> Nanos {
        monotonic_ns() - self.origin
    }

    /// Starts the scenario's clock now: metrics count from here on.
    pub fn start_clock(&mut self) -> Nanos {
        let t = self.now();
        self.t0 = Some(t);
        t
    }

    /// Runs the loop, calling `hook(engine time, scenario time if started)` about every
    /// 10 ms, until it returns [`Control::Stop`].
    pub fn run(&mut self, mut hook: impl FnMut(Nanos, Option<Nanos>) -> Control) -> std::io::Result<()> {
        let mut fds: Vec<libc::pollfd> = std::iter::once(self.server.raw())
            .chain(self.ues.iter().map(|t| t.raw()))
            .map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: libc::POLLIN })
            .collect();
        let mut next_hook = 0;
        self.next_tti = self.slot.index_floor(self.now()) + 1;
        loop {
            let now = self.now();
            if now >= next_hook {
                next_hook = now + 10 * MS;
                if hook(now, self.t0.map(|t| now.saturating_sub(t))) == Control::Stop {
                    return Ok(());
                }
            }
            self.read_all(&fds)?;
            self.flush_uplink()?;
            let now = self.now();
            while self.slot.start(self.next_tti) <= now {
                let k = self.next_tti;
                self.tti(k, now)?;
                self.next_tti += 1;
            }
            self.flush_uplink()?;
            // Sleep until the next boundary, uplink departure or hook, or a packet.
            let mut wake = self.slot.start(self.next_tti).min(next_hook);
            if let Some(&(due, _)) = self.up.front() {
                wake = wake.min(due);
            }
            let now = self.now();
            if wake > now {
                let dt = wake - now;
                let ts = libc::timespec { tv_sec: (dt / SEC) as libc::time_t, tv_nsec: (dt % SEC) as libc::c_long };
                for f in fds.iter_mut() {
                    f.revents = 0;
                }
                // SAFETY: `fds` is a valid array of pollfd for its length; `ts` outlives the call.
                let r = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &ts, std::ptr::null()) };
                if r < 0 {
                    let e = std::io::Error::last_os_error();
                    if e.kind() != std::io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Reads what is waiting: the server's device always, a UE's device when the last poll
    /// marked it readable (so an idle UE costs no system call).
    fn read_all(&mut self, fds: &[libc::pollfd]) -> std::io::Result<()> {
        // Server → UEs.
        for _ in 0..READ_BURST {
            let id = self.arena.alloc(Packet::default());
            if self.bufs.len() <= id as usize {
                self.bufs.resize_with(id as usize + 1, || Vec::with_capacity(MAX_PACKET));
            }
            let buf = &mut self.bufs[id as usize];
            buf.resize(MAX_PACKET, 0);
            match self.server.read(buf)? {
                None => {
                    self.arena.free(id);
                    break;
                }
                Some(n) => {
                    buf.truncate(n);
                    let now = self.now();
                    self.downlink_arrival(now, id);
                }
            }
        }
        // UEs → server.
        for u in 0..self.ues.len() {
            if fds[u + 1].revents & libc::POLLIN == 0 {
                continue;
            }
            for _ in 0..READ_BURST {
                let mut buf = self.spare.pop().unwrap_or_else(|| Vec::with_capacity(MAX_PACKET));
                buf.resize(MAX_PACKET, 0);
                match self.ues[u].read(&mut buf)? {
                    None => {
                        self.spare.push(buf);
                        break;
                    }
                    Some(n) => {
                        buf.truncate(n);
                        let due = self.now() + self.cfg.up_delay;
                        self.up.push_back((due, buf));
                    }
                }
            }
        }
        Ok(())
    }

    fn flow_of(&mut self, key: FlowKey, ue: u32) -> u32 {
        if let Some(&f) = self.flow_index.get(&key) {
            return f;
        }
        let f = self.flows.len() as u32;
        let scenario = if key.proto == 6 { self.cfg.flow_ports.get(&key.dport).map(|(id, name, _)| (*id, name.clone())) } else { None };
        self.flows.push(FlowStats {
            key,
            ue,
            scenario,
            bytes: 0,
            packets: 0,
            drops: 0,
            series: PerSecond::new(self.cfg.duration),
            sojourn: DelayHistogram::default(),
            first_seen: self.now(),
        });
        self.flow_index.insert(key, f);
        f
    }

    fn downlink_arrival(&mut self, now: Nanos, id: PacketId) {
        let n_ues = self.ues.len() as u32;
        let buf = &self.bufs[id as usize];
        let info = parse_ipv4(buf);
        let Some((info, ue)) = info.and_then(|i| ue_of(i.key.dst, n_ues).map(|u| (i, u))) else {
            self.drops.unroutable += 1;
            self.arena.free(id);
            return;
        };
        let size = buf.len() as u32;
        let flow = self.flow_of(info.key, ue);
        let background = match self.cfg.flow_ports.get(&info.key.dport) {
            Some((_, _, bg)) if info.key.proto == 6 => *bg,
            // Other traffic: DSCP CS1 (lower effort) marks background. Multi-class queues
            // classify on the packet's DSCP either way.
            _ => info.dscp == 8,
        };
        // Backhaul: serialization at its rate behind what is already queued, drop-tail.
        let rate = self.cfg.backhaul_rate_bps.max(1);
        let backlog_bytes = (self.backhaul_free_at.saturating_sub(now) as u128 * rate as u128 / (8 * SEC as u128)) as u64;
        if backlog_bytes + size as u64 > self.cfg.backhaul_queue_bytes {
            self.drops.backhaul += 1;
            self.flows[flow as usize].drops += 1;
            self.arena.free(id);
            return;
        }
        let depart = self.backhaul_free_at.max(now) + (size as u64 * 8 * SEC).div_ceil(rate);
        self.backhaul_free_at = depart;
        *self.arena.get_mut(id) = Packet {
            flow,
            ue,
            size,
            payload: info.payload,
            class: if background { TrafficClass::Background } else { TrafficClass::Foreground },
            dscp: info.dscp,
            sent_at: now,
            ..Packet::default()
        };
        self.down.push_back((depart + self.cfg.down_delay, id));
    }

    fn flush_uplink(&mut self) -> std::io::Result<()> {
        while let Some(&(due, _)) = self.up.front() {
            let now = self.now();
            if due > now {
                break;
            }
            let (_, buf) = self.up.pop_front().expect("front exists");
            self.write_out(None, &buf, now)?;
            if self.t0.is_some() {
                self.overhead.record(now - due);
            }
            self.spare.push(buf);
        }
        Ok(())
    }

    fn write_out(&mut self, ue: Option<u32>, pkt: &[u8], now: Nanos) -> std::io::Result<()> {
        let tun = match ue {
            Some(u) => &self.ues[u as usize],
            None => self.server,
        };
        if let Err(e) = tun.write(pkt) {
            // A full or closing device drops the packet, as a link would; anything else is fatal.
            if !matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::ENOBUFS) | Some(libc::EIO) | Some(libc::EINVAL)) {
                return Err(e);
            }
        }
        if let Some(p) = self.pcap.as_mut() {
            p.packet(now, pkt)?;
        }
        Ok(())
    }

    fn tti(&mut self, k: u64, now: Nanos) -> std::io::Result<()> {
        let boundary = self.slot.start(k);
        if self.t0.is_some_and(|t0| boundary >= t0) {
            self.lateness.record(now.saturating_sub(boundary));
        }
        let in_run = |t0: Option<Nanos>, t: Nanos| t0.is_some_and(|t0| t >= t0);
        // 1. Deliveries of TTI k − 1, at its end.
        let pending = std::mem::take(&mut self.pending);
        let end = self.pending_end;
        for d in &pending {
            let p = *self.arena.get(d.id);
            let sojourn = end.saturating_sub(p.enqueued_at);
            let w = self.now();
            let buf = std::mem::take(&mut self.bufs[d.id as usize]);
            self.write_out(Some(d.ue), &buf, w)?;
            self.bufs[d.id as usize] = buf;
            if self.t0.is_some() {
                self.overhead.record(w.saturating_sub(end));
            }
            if in_run(self.t0, end) {
                let t = end - self.t0.expect("in run");
                let f = &mut self.flows[p.flow as usize];
                f.bytes += p.payload as u64;
                f.packets += 1;
                f.series.add(t, p.payload as u64);
                f.sojourn.record(sojourn);
                self.sojourn.record(sojourn);
                self.ue_bytes[d.ue as usize] += p.size as u64;
                self.ue_series[d.ue as usize].add(t, p.size as u64);
                self.ue_sojourn[d.ue as usize].record(sojourn);
            }
            self.arena.free(d.id);
        }
        self.pending = pending;
        self.pending.clear();
        // 2. Arrivals at the base station up to the boundary.
        while let Some(&(due, id)) = self.down.front() {
            if due > boundary {
                break;
            }
            self.down.pop_front();
            self.cell.enqueue(due, id, &mut self.arena, &mut self.dropped);
            self.account_drops();
        }
        // 3. The MAC scheduler for TTI k: on an NR TDD cell in the pattern's downlink slots
        // only (the simulator's engine skips the uplink slots the same way).
        if self.cfg.tdd.is_some_and(|p| !p.is_downlink(k)) {
            return Ok(());
        }
        let mut delivered = std::mem::take(&mut self.delivered);
        delivered.clear();
        let report = self.cell.run_tti(k, boundary, &mut self.arena, &mut delivered, &mut self.dropped);
        self.account_drops();
        std::mem::swap(&mut self.pending, &mut delivered);
        self.delivered = delivered;
        self.pending_end = boundary + self.slot.ns();
        if in_run(self.t0, boundary) {
            self.ttis += 1;
            self.prbs_used += report.prbs_used as u64;
            self.prb_series.add(boundary - self.t0.expect("in run"), report.prbs_used as u64);
            if !self.offers_every_tti {
                // Only a lone cell can hold trace UEs (a network's UEs are radio UEs).
                let offered = self.cell.cells()[0].offered_bytes_in(k) * self.n_prb as u64;
                let at = boundary - self.t0.expect("in run");
                self.prb_bytes_offered += offered;
                self.prb_bytes_used += report.prb_bytes_used;
                self.offered_series.add(at, offered);
                self.used_series.add(at, report.prb_bytes_used);
            }
        }
        Ok(())
    }

    fn account_drops(&mut self) {
        for (id, cause) in self.dropped.drain(..) {
            let p = self.arena.get(id);
            match cause {
                DropCause::Enqueue => self.drops.enqueue += 1,
                DropCause::Dequeue => self.drops.dequeue += 1,
                DropCause::Admission => self.drops.admission += 1,
                DropCause::Air => self.drops.air += 1,
                DropCause::Handover => self.drops.handover += 1,
            }
            self.flows[p.flow as usize].drops += 1;
            self.arena.free(id);
        }
    }

    /// Flushes the capture, if any.
    pub fn flush_pcap(&mut self) -> std::io::Result<()> {
        match self.pcap.as_mut() {
            Some(p) => p.flush(),
            None => Ok(()),
        }
    }

    /// Scenario time run so far (0 before the clock started), capped at the scenario's
    /// duration.
    pub fn ran(&self) -> Nanos {
        self.t0.map_or(0, |t0| self.now().saturating_sub(t0)).min(self.cfg.duration)
    }

    /// The measurements over the first `ran` ns of the scenario's clock (the whole duration
    /// for a complete run, less for an interrupted one): rates are averaged over `ran`, and
    /// per-second series end with the second it ends in.
    pub fn results(&self, ran: Nanos) -> EngineResults {
        let d = ran.min(self.cfg.duration);
        let secs = d as f64 / SEC as f64;
        let n_secs = d.div_ceil(SEC) as usize;
        let series = |p: &PerSecond| {
            let mut v = p.mbps(d);
            v.truncate(n_secs);
            v
        };
        let fmt = |a: [u8; 4], p: u16| format!("{}.{}.{}.{}:{p}", a[0], a[1], a[2], a[3]);
        let flows = self
            .flows
            .iter()
            .map(|f| {
                let tuple = format!("{}->{}", fmt(f.key.src, f.key.sport), fmt(f.key.dst, f.key.dport));
                FlowResult {
                    id: f.scenario.as_ref().map(|s| s.0),
                    name: f.scenario.as_ref().map(|s| s.1.clone()).unwrap_or_else(|| tuple.clone()),
                    ue: f.ue,
                    five_tuple: if f.key.proto == 6 { tuple } else { format!("proto {} {tuple}", f.key.proto) },
                    bytes_delivered: f.bytes,
                    packets_delivered: f.packets,
                    drops: f.drops,
                    per_second_mbps: series(&f.series),
                    queue_delay_ms: f.sojourn.percentiles(),
                    first_packet_s: self
                        .t0
                        .filter(|&t0| f.first_seen >= t0)
                        .map(|t0| (f.first_seen - t0) as f64 / SEC as f64),
                }
            })
            .collect();
        let ues = (0..self.ue_bytes.len())
            .map(|u| UeResult {
                id: u as u32,
                bytes_delivered: self.ue_bytes[u],
                per_second_mbps: series(&self.ue_series[u]),
                queue_delay_ms: self.ue_sojourn[u].percentiles(),
                link: self.cell.link_stats(u as u32),
            })
            .collect();
        let cells = self.cell.n_cells() as f64;
        // Downlink slots per second (1000 TTIs on LTE) times the PRBs of every cell.
        let dl_share = self.cfg.tdd.map_or(1.0, |p| p.downlink_share());
        let per_sec_ttis = self.slot.per_second() as f64 * dl_share * self.n_prb as f64 * cells;
        EngineResults {
            duration_s: secs,
            ttis: self.ttis,
            slot_ms: self.slot.ns() as f64 / MS as f64,
            prb_utilization: if self.offers_every_tti {
                if self.ttis > 0 { self.prbs_used as f64 / (self.ttis as f64 * self.n_prb as f64 * cells) } else { 0.0 }
            } else if self.prb_bytes_offered > 0 {
                self.prb_bytes_used as f64 / self.prb_bytes_offered as f64
            } else {
                0.0
            },
            prb_used_share_of_all: if self.ttis > 0 { self.prbs_used as f64 / (self.ttis as f64 * self.n_prb as f64 * cells) } else { 0.0 },
            prb_utilization_per_second: self
                .prb_series
                .bins()
                .iter()
                .enumerate()
                .take(n_secs)
                .map(|(i, &b)| {
                    if self.offers_every_tti {
                        Some(b as f64 / per_sec_ttis)
                    } else {
                        let o = self.offered_series.bins().get(i).copied().unwrap_or(0);
                        let u = self.used_series.bins().get(i).copied().unwrap_or(0);
                        (o > 0).then(|| u as f64 / o as f64)
                    }
                })
                .collect(),
            delivered_mbps: self.ue_bytes.iter().sum::<u64>() as f64 * 8.0 / secs.max(1e-9) / 1e6,
            queue_delay_ms: self.sojourn.percentiles(),
            overhead_ms: self.overhead.percentiles(),
            tti_lateness_ms: self.lateness.percentiles(),
            drops: self.drops.clone(),
            flows,
            ues,
            handovers: self.cell.handovers().cloned(),
            // TTI k spans [k ms, (k+1) ms) of engine time: the boundary nearest the clock's
            // start (half a millisecond off at most).
            clock_start_tti: self.t0.map(|t0| (t0 + MS / 2) / MS),
            clock_start_slot: self.t0.map(|t0| self.slot.index_floor(t0 + self.slot.ns() / 2)),
        }
    }
}
