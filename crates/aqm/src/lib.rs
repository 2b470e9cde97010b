//! # cellshare-aqm
//!
//! Queue disciplines for the base station's per-UE RLC queues (and any other packet queue in
//! cellshare). A discipline is consulted at the two moments a queue has: when a packet
//! arrives ([`QueueDiscipline::on_enqueue`]) and when the head packet is about to be
//! transmitted ([`QueueDiscipline::on_dequeue`]) — the shape of Mahimahi's packet queues,
//! nothing else. The queue itself (FIFO order, byte and packet counts, arrival stamps)
//! belongs to the caller; disciplines see it through a [`QueueView`].
//!
//! One file per discipline; [`Aqm`] dispatches with a `match` (no trait objects on the
//! per-packet path):
//!
//! | discipline | file | decides at | paper / spec |
//! |---|---|---|---|
//! | tail drop, head drop | [`droptail`] | enqueue | BoDe's baselines |
//! | RED (gentle, byte or packet mode) | [`red`] | enqueue | Floyd & Jacobson 1993 \[red\], gentle \[red-gentle\] |
//! | CoDel | [`codel`] | dequeue | RFC 8289 |
//! | PIE | [`pie`] | enqueue (probability updated every `t_update`) | RFC 8033 |
//! | BoDe | [`bode`] | dequeue | \[bode\] §V-C |
//!
//! Every discipline also enforces a hard byte or packet limit ([`QueueLimit`]) as a
//! backstop: an arrival that does not fit is dropped.
//!
//! Cell-level droppers see every UE's queue at once and act on arrivals before the per-UE
//! discipline does ([`CellDropper`], dispatched by [`Dropper`]): the Sneaker paper's
//! strict-priority baseline ([`strict_priority`]) and Sneaker itself ([`sneaker`]).

#![warn(missing_docs)]

use cellshare_core::{Nanos, Packet};

pub mod bode;
pub mod codel;
pub mod droptail;
pub mod pie;
pub mod red;
pub mod sneaker;
pub mod strict_priority;

pub use bode::{Bode, BodeConfig};
pub use codel::{CoDel, CoDelConfig};
pub use droptail::{HeadDrop, QueueLimit, TailDrop};
pub use pie::{Pie, PieConfig};
pub use red::{Red, RedConfig, RedMode};
pub use sneaker::{RhoSource, Sneaker, SneakerConfig, SneakerRate};
pub use strict_priority::StrictPriority;

/// What a queue looks like to a discipline at the moment of a decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueView {
    /// Bytes queued (before the decision is applied).
    pub bytes: u64,
    /// Packets queued (before the decision is applied).
    pub packets: u32,
    /// Arrival time of the head packet, if any.
    pub head_enqueued_at: Option<Nanos>,
}

/// Decision on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnqueueVerdict {
    /// Append it to the queue.
    Accept,
    /// Drop it.
    Drop,
    /// Drop packets from the head until it fits, then append it (head drop).
    AcceptDroppingHead,
}

/// Decision on the head packet about to be transmitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DequeueVerdict {
    /// Transmit it.
    Transmit,
    /// Drop it (and ask again for the next head).
    Drop,
}

/// The hook set every queue discipline implements.
pub trait QueueDiscipline {
    /// A packet arrives at `now`; the queue is `q` before it is added.
    fn on_enqueue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict;
    /// The head packet `pkt` (enqueued at `pkt.enqueued_at`) is about to be transmitted at
    /// `now`; the queue is `q`, head included.
    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict;
    /// Whether a packet of `size` bytes still fits the hard limit when the queue is `q`
    /// (used by head drop to know how many head packets to discard).
    fn fits(&self, size: u32, q: &QueueView) -> bool;
}

/// A queue discipline chosen by the scenario.
#[derive(Clone, Debug)]
pub enum Aqm {
    /// Drop arrivals that do not fit.
    TailDrop(TailDrop),
    /// Drop from the head to make room for arrivals.
    HeadDrop(HeadDrop),
    /// Random Early Detection.
    Red(Box<Red>),
    /// Controlled Delay (RFC 8289).
    CoDel(Box<CoDel>),
    /// Proportional Integral controller Enhanced (RFC 8033).
    Pie(Box<Pie>),
    /// Bounded Delay.
    Bode(Bode),
}

impl QueueDiscipline for Aqm {
    #[inline]
    fn on_enqueue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        match self {
            Aqm::TailDrop(d) => d.on_enqueue(now, pkt, q),
            Aqm::HeadDrop(d) => d.on_enqueue(now, pkt, q),
            Aqm::Red(d) => d.on_enqueue(now, pkt, q),
            Aqm::CoDel(d) => d.on_enqueue(now, pkt, q),
            Aqm::Pie(d) => d.on_enqueue(now, pkt, q),
            Aqm::Bode(d) => d.on_enqueue(now, pkt, q),
        }
    }

    #[inline]
    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict {
        match self {
            Aqm::TailDrop(d) => d.on_dequeue(now, pkt, q),
            Aqm::HeadDrop(d) => d.on_dequeue(now, pkt, q),
            Aqm::Red(d) => d.on_dequeue(now, pkt, q),
            Aqm::CoDel(d) => d.on_dequeue(now, pkt, q),
            Aqm::Pie(d) => d.on_dequeue(now, pkt, q),
            Aqm::Bode(d) => d.on_dequeue(now, pkt, q),
        }
    }

    #[inline]
    fn fits(&self, size: u32, q: &QueueView) -> bool {
        match self {
            Aqm::TailDrop(d) => d.fits(size, q),
            Aqm::HeadDrop(d) => d.fits(size, q),
            Aqm::Red(d) => d.fits(size, q),
            Aqm::CoDel(d) => d.fits(size, q),
            Aqm::Pie(d) => d.fits(size, q),
            Aqm::Bode(d) => d.fits(size, q),
        }
    }
}

/// Cell-wide state a cell-level dropper reads when a packet arrives at the base station
/// (the Sneaker paper's "local signalling", Section V-A), gathered by the cell.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CellSignals {
    /// Bytes of foreground packets queued in any UE's queue.
    pub foreground_queued_bytes: u64,
    /// τ_F ≈ Σ over UEs with foreground data queued of Q_m(t) / R_m(t): queued foreground
    /// bytes over the bytes the UE could receive in the current TTI with the whole cell.
    /// Not capped (the approximation can exceed 1).
    pub tau_f: f64,
    /// c_l ≈ R_l(t) of the arriving packet's UE: bytes it could receive in the current TTI
    /// with the whole cell.
    pub ue_bytes_per_tti: f64,
    /// L: background flows active at the base station (the arriving one included).
    pub background_flows: u32,
    /// N of Eq. (6): the scheduling entities PF picks among at this moment, i.e. the UEs
    /// with data queued, the arriving packet's UE included.
    pub competing_ues: u32,
    /// Measured per-TTI probability that the arriving packet's UE is scheduled when it has
    /// data queued (an exponential average kept by the cell), when the cell tracks it.
    pub measured_sched_share: Option<f64>,
}

/// Which cell-wide signals a dropper needs computed (the cell skips the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalNeeds {
    /// Only `foreground_queued_bytes`.
    ForegroundQueued,
    /// Everything in [`CellSignals`] except the measured scheduling share.
    Load,
    /// Everything, including the measured scheduling share.
    LoadAndScheduling,
}

/// The hook a cell-level dropper implements: decide on an arriving packet, before the
/// per-UE queue discipline, seeing the whole cell through [`CellSignals`].
pub trait CellDropper {
    /// A packet arrives at `now`; `signals` describes the cell at that moment.
    fn on_arrival(&mut self, now: Nanos, pkt: &Packet, signals: &CellSignals) -> EnqueueVerdict;
    /// Which signals [`CellDropper::on_arrival`] reads.
    fn needs(&self) -> SignalNeeds;
}

/// A cell-level dropper chosen by the scenario.
#[derive(Clone, Debug)]
pub enum Dropper {
    /// Drop every background arrival while any foreground packet is queued.
    StrictPriority(StrictPriority),
    /// Sneaker's probabilistic background dropping.
    Sneaker(Box<Sneaker>),
}

impl CellDropper for Dropper {
    #[inline]
    fn on_arrival(&mut self, now: Nanos, pkt: &Packet, signals: &CellSignals) -> EnqueueVerdict {
        match self {
            Dropper::StrictPriority(d) => d.on_arrival(now, pkt, signals),
            Dropper::Sneaker(d) => d.on_arrival(now, pkt, signals),
        }
    }

    fn needs(&self) -> SignalNeeds {
        match self {
            Dropper::StrictPriority(d) => d.needs(),
            Dropper::Sneaker(d) => d.needs(),
        }
    }
}

/// Validation failure of a discipline's parameters: (field, value, expected).
pub type ParamError = (&'static str, String, String);

/// Checks that `v` is a finite number in `[lo, hi]`.
pub(crate) fn check_range(field: &'static str, v: f64, lo: f64, hi: f64, expected: &str) -> Result<(), ParamError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err((field, v.to_string(), expected.to_string()))
    }
}

/// The byte or packet limit configured for a queue: packets when given, else bytes.
pub fn limit_of(limit_packets: Option<u32>, bytes: u64) -> QueueLimit {
    match limit_packets {
        Some(n) => QueueLimit::Packets(n),
        None => QueueLimit::Bytes(bytes),
    }
}
