//! # cellshare-aqm
//!
//! Queue disciplines for the base station's per-UE RLC queues (and any other packet queue in
//! cellshare). A discipline is consulted at the two moments a queue has: when a packet
//! arrives ([`QueueDiscipline::on_enqueue`]) and when the head packet is about to be
//! transmitted ([`QueueDiscipline::on_dequeue`]) — the shape of Mahimahi's packet queues,
//! nothing else. The queue itself (FIFO order, byte and packet counts, arrival stamps)
//! belongs to the caller; disciplines see it through a [`QueueView`].
//!
//! One file per discipline, holding its parameters (a serde struct: keys, defaults, doc
//! comments the scenario reference is generated from), their validation and the
//! constructor ([`QueueConfig`]), next to the discipline itself. The registry below lists
//! them, one line each; from it a macro generates the scenario's [`AqmConfig`], the
//! per-packet [`Aqm`] enum and its `match` dispatch (no trait objects on the per-packet
//! path), so a new discipline is its file plus one line (`docs/extending/queue-discipline.md`).
//!
//! | discipline | file | decides at | paper / spec |
//! |---|---|---|---|
//! | tail drop | [`tail_drop`] | enqueue | BoDe's baselines |
//! | head drop | [`head_drop`] | enqueue | BoDe's baselines |
//! | RED (gentle, byte or packet mode) | [`red`] | enqueue | Floyd & Jacobson 1993 \[red\], gentle \[red-gentle\] |
//! | CoDel | [`codel`] | dequeue | RFC 8289 |
//! | PIE | [`pie`] | enqueue (probability updated every `t_update`) | RFC 8033 |
//! | BoDe | [`bode`] | dequeue | \[bode\] §V-C |
//! | a Python class | [`external`] | enqueue and dequeue | docs/extending/python.md |
//!
//! Every discipline also enforces a hard byte or packet limit ([`QueueLimit`]) as a
//! backstop: an arrival that does not fit is dropped. DiffServ ([`diffserv`]) splits a UE's
//! queue into classes, each with its own discipline.
//!
//! Cell-level droppers see every UE's queue at once and act on arrivals before the per-UE
//! discipline does ([`CellDropper`], dispatched by [`Dropper`]): the Sneaker paper's
//! strict-priority baseline ([`strict_priority`]) and Sneaker itself ([`sneaker`]), each
//! with its [`DropperConfig`], registered in the registry's `cell` list.

#![warn(missing_docs)]

use cellshare_core::{Nanos, Packet};

#[macro_use]
mod registry;

// The registry: one line per discipline (see `registry.rs` for the line's form). The order
// is the order of the scenario reference and of `kind`'s "expected one of" messages.
registry! {
    queue {
        /// Drop arriving packets that do not fit.
        "tail_drop" => TailDrop(TailDropConfig) -> TailDrop(TailDrop),
        /// Drop the oldest packets to make room for arriving ones.
        "head_drop" => HeadDrop(HeadDropConfig) -> HeadDrop(HeadDrop),
        /// RED (Floyd & Jacobson 1993, gentle variant): random drops at arrival as the average
        /// queue grows between `min_th` and `max_th`.
        "red" => Red(RedConfig) -> Red(Box<Red>),
        /// CoDel (RFC 8289): drops at dequeue once the sojourn stays above `target_ms` for
        /// `interval_ms`, spaced by interval/sqrt(count).
        "codel" => Codel(CoDelConfig) -> CoDel(Box<CoDel>),
        /// PIE (RFC 8033): random drops at arrival with a probability steered every
        /// `t_update_ms` towards `target_ms` of queueing delay (sojourn timestamps).
        "pie" => Pie(PieConfig) -> Pie(Box<Pie>),
        /// BoDe \[bode\]: drop at dequeue every packet whose sojourn
        /// reached `bounded_delay_ms`, unless fewer than 3 packets remain queued behind it.
        "bode" => Bode(BodeConfig) -> Bode(Bode),
        /// A discipline written in Python: a subclass of `cellshare.plugins.QueueDiscipline`
        /// (docs/extending/python.md), its hooks called at every arrival and every dequeue of
        /// the queue. Runs only from Python (`cellshare run`, `cellshare.run`), slower than a
        /// discipline compiled in (docs/extending/python.md, "What it costs").
        "python" => Python(ExternalQdiscConfig) -> External(Box<External>),
        /// The worked example of docs/extending/queue-discipline.md (compiled for its test).
        #[cfg(feature = "docs-example")]
        "max_sojourn" => MaxSojourn(qdisc_example::MaxSojournConfig) -> MaxSojourn(qdisc_example::MaxSojourn),
    }
    cell {
        /// The Sneaker paper's strict-priority baseline: every background data packet arriving
        /// while any foreground packet is queued in the cell is dropped (at arrival only; queued
        /// background packets are served). UE queues are tail drop at `cell.rlc_queue_bytes`.
        "strict_priority" => StrictPriority(StrictPriorityConfig) -> StrictPriority(StrictPriority),
        /// Sneaker \[sneaker\]: background data packets dropped at arrival
        /// with the probability of Eq. (5) (or Eq. (4)), from cell-wide signals and the RTT
        /// each packet carries. UE queues are tail drop at `cell.rlc_queue_bytes`.
        "sneaker" => Sneaker(SneakerConfig) -> Sneaker(Box<Sneaker>),
    }
}

pub mod bode;
pub mod codel;
mod config;
pub mod diffserv;
pub mod external;
pub mod head_drop;
mod limit;
pub mod pie;
pub mod red;
pub mod sneaker;
pub mod strict_priority;
pub mod tail_drop;

#[cfg(feature = "docs-example")]
#[path = "../../../docs/extending/qdisc_example.rs"]
pub mod qdisc_example;

pub use bode::{Bode, BodeConfig};
pub use codel::{CoDel, CoDelConfig};
pub use config::{CellSite, DropperConfig, QueueConfig, QueueSet, QueueSite};
pub use diffserv::{DiffServClass, DiffServConfig};
pub use external::{External, ExternalDiscipline, ExternalQdisc, ExternalQdiscConfig, QdiscFactory};
pub use head_drop::{HeadDrop, HeadDropConfig};
pub use limit::{limit_of, QueueLimit};
pub use pie::{Pie, PieConfig};
pub use red::{Red, RedConfig, RedMode};
pub use sneaker::{RhoSource, Sneaker, SneakerConfig, SneakerRate};
pub use strict_priority::{StrictPriority, StrictPriorityConfig};
pub use tail_drop::{TailDrop, TailDropConfig};

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

impl Default for AqmConfig {
    fn default() -> Self {
        AqmConfig::TailDrop(TailDropConfig { limit_packets: None })
    }
}

impl AqmConfig {
    /// Checks the parameters; `at` is the key path of the table (e.g. `cell.aqm`). Errors
    /// name the full key, the value and what was expected.
    pub fn validate(&self, at: &str) -> Result<(), cellshare_core::ScenarioError> {
        self.check(at, false)
    }

    /// The disciplines of the queue of UE `site.ue` (`site.class` ignored) whose byte limit
    /// is `bytes`: one, or a DiffServ queue's classes (class `i` at `site` with class `i`).
    pub fn queue(&self, bytes: u64, site: QueueSite) -> QueueSet {
        match self {
            AqmConfig::Diffserv(d) => QueueSet::Classes { classes: d.build(bytes, site), class_of: d.class_of() },
            _ => QueueSet::Single(self.build(bytes, &QueueSite { class: 0, ..site })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> QueueSite {
        QueueSite { seed: 1, ue: 3, class: 0, cell: 0 }
    }

    #[test]
    fn the_registry_names_builds_and_bounds_every_kind() {
        let per_queue = [
            AqmConfig::TailDrop(TailDropConfig::default()),
            AqmConfig::HeadDrop(HeadDropConfig { limit_packets: Some(7) }),
            AqmConfig::Red(RedConfig::default()),
            AqmConfig::Codel(CoDelConfig::default()),
            AqmConfig::Pie(PieConfig::default()),
            AqmConfig::Bode(BodeConfig::default()),
        ];
        let kinds: Vec<_> = per_queue.iter().map(AqmConfig::kind).collect();
        assert_eq!(kinds, ["tail_drop", "head_drop", "red", "codel", "pie", "bode"]);
        for cfg in &per_queue {
            let aqm = cfg.build(3000, &site());
            let variant = match aqm {
                Aqm::TailDrop(_) => "tail_drop",
                Aqm::HeadDrop(_) => "head_drop",
                Aqm::Red(_) => "red",
                Aqm::CoDel(_) => "codel",
                Aqm::Pie(_) => "pie",
                Aqm::Bode(_) => "bode",
                #[allow(unreachable_patterns)]
                _ => "another",
            };
            assert_eq!(variant, cfg.kind());
            assert!(cfg.dropper(&CellSite { seed: 1, cell: 0, slot: cellshare_core::Slot::LTE }).is_none(), "{}", cfg.kind());
            cfg.validate("cell.aqm").unwrap();
        }
        // The hard limit: `limit_packets` when given, else the byte limit.
        let view = QueueView { bytes: 1500, packets: 7, head_enqueued_at: Some(0) };
        assert!(!per_queue[1].build(1 << 20, &site()).fits(1500, &view));
        assert!(per_queue[0].build(3000, &site()).fits(1500, &view));
        assert!(!per_queue[0].build(2999, &site()).fits(1500, &view));
        assert_eq!(per_queue[1].packets_at_limit(1 << 20, 1500), 7);
        assert_eq!(per_queue[0].packets_at_limit(3001, 1500), 3);

        // Cell-level droppers: tail-drop UE queues at the byte limit, and the dropper.
        let strict = AqmConfig::StrictPriority(StrictPriorityConfig {});
        let sneaker = AqmConfig::Sneaker(SneakerConfig::default());
        assert_eq!((strict.kind(), sneaker.kind()), ("strict_priority", "sneaker"));
        let cell = CellSite { seed: 1, cell: 2, slot: cellshare_core::Slot::LTE };
        assert!(matches!(strict.dropper(&cell), Some((Dropper::StrictPriority(_), 0))));
        assert!(matches!(sneaker.dropper(&cell), Some((Dropper::Sneaker(_), w)) if w == 1_000_000_000));
        for cfg in [&strict, &sneaker] {
            assert!(matches!(cfg.build(3000, &site()), Aqm::TailDrop(TailDrop { limit: QueueLimit::Bytes(3000) })));
            assert_eq!(cfg.packets_at_limit(3000, 1500), 2);
        }
    }

    #[test]
    fn diffserv_builds_its_classes_with_their_own_limits_and_streams() {
        let cfg = AqmConfig::Diffserv(DiffServConfig {
            classes: vec![
                DiffServClass { dscp: vec![10, 12], queue_bytes: Some(15_000), aqm: AqmConfig::Bode(BodeConfig::default()) },
                DiffServClass { dscp: vec![], queue_bytes: None, aqm: AqmConfig::TailDrop(TailDropConfig { limit_packets: Some(4) }) },
            ],
        });
        assert_eq!(cfg.kind(), "diffserv");
        let QueueSet::Classes { classes, class_of } = cfg.queue(30_000, site()) else { panic!("a DiffServ queue has classes") };
        assert!(matches!(classes[..], [Aqm::Bode(Bode { limit: QueueLimit::Bytes(15_000), .. }), Aqm::TailDrop(TailDrop { limit: QueueLimit::Packets(4) })]));
        assert_eq!(class_of.len(), 256);
        assert_eq!((class_of[10], class_of[12], class_of[11], class_of[0]), (0, 0, 1, 1));
        assert_eq!(cfg.packets_at_limit(30_000, 1500), 10 + 4);
        // A single queue draws from its UE's class-0 stream whatever class the site names.
        let red = AqmConfig::Red(RedConfig::default());
        let QueueSet::Single(Aqm::Red(a)) = red.queue(30_000, QueueSite { class: 5, ..site() }) else { panic!() };
        let Aqm::Red(b) = red.build(30_000, &site()) else { panic!() };
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }

    #[test]
    fn validation_names_the_key_the_value_and_what_was_expected() {
        let e = AqmConfig::Red(RedConfig { min_th: 0.0, ..Default::default() }).validate("cell.aqm").unwrap_err();
        assert_eq!(e.path, "cell.aqm.min_th");
        let e = AqmConfig::TailDrop(TailDropConfig { limit_packets: Some(0) }).validate("cell.aqm").unwrap_err();
        assert_eq!((e.path.as_str(), e.message.as_str()), ("cell.aqm.limit_packets", "got 0, expected at least 1 packet"));
        let e = AqmConfig::Sneaker(SneakerConfig { epsilon: 1.0, ..Default::default() }).validate("cell.aqm").unwrap_err();
        assert_eq!(e.path, "cell.aqm.epsilon");
        let class = |aqm| DiffServConfig { classes: vec![DiffServClass { dscp: vec![], queue_bytes: None, aqm }] };
        let e = AqmConfig::Diffserv(class(AqmConfig::Sneaker(SneakerConfig::default()))).validate("cell.aqm").unwrap_err();
        assert_eq!(e.path, "cell.aqm.classes[0].aqm.kind");
        assert_eq!(e.message, "got \"sneaker\", expected a per-queue discipline inside a DiffServ class: tail_drop, head_drop, red, codel, pie, bode or python");
        let e = AqmConfig::Diffserv(class(AqmConfig::Codel(CoDelConfig { target_ms: -1.0, ..Default::default() }))).validate("cell.aqm").unwrap_err();
        assert_eq!(e.path, "cell.aqm.classes[0].aqm.target_ms");
        let e = AqmConfig::Diffserv(DiffServConfig { classes: vec![] }).validate("cell.aqm").unwrap_err();
        assert_eq!(e.path, "cell.aqm.classes");
    }

    #[test]
    fn a_class_discipline_is_documented_with_the_registered_kinds() {
        use schemars::schema::Schema;
        let root = schemars::schema_for!(DiffServClass);
        let Some(Schema::Object(aqm)) = root.schema.object.as_ref().and_then(|o| o.properties.get("aqm")) else { panic!("no `aqm`") };
        let meta = aqm.metadata.as_ref().expect("described");
        assert_eq!(meta.description.as_deref(), Some("The class's discipline (tail_drop, head_drop, red, codel, pie, bode or python). Default: tail drop."));
        assert!(meta.default.is_some(), "the default is shown");
        assert!(root.definitions.contains_key("AqmConfig"));
    }
}
