//! Queue disciplines written outside this crate: `cell.aqm = { kind = "python", class =
//! "module:Class", params = { ... } }`.
//!
//! The crate knows nothing of Python. A scenario names the discipline's class and its
//! parameters ([`ExternalQdiscConfig`]); whoever runs the simulation attaches an
//! [`ExternalQdisc`] factory to that entry ([`ExternalQdiscConfig::factory`]; the Python
//! bindings' is `crates/py/src/plugins.rs`), which checks the entry before the run and
//! builds the discipline of every queue the entry governs. Without a factory (the Rust API's
//! `Simulation::new`, the emulator), a scenario naming such a discipline is refused before
//! anything is built. docs/extending/python.md is the user's guide.
//!
//! Whatever the external discipline decides, the queue's hard limit ([`QueueLimit`]) holds
//! as it does for every discipline compiled in: an arrival it accepts that does not fit is
//! dropped, and head drop ([`EnqueueVerdict::AcceptDroppingHead`]) frees room against that
//! limit.

use std::fmt;
use std::sync::Arc;

use cellshare_core::{Nanos, Packet};
use serde::{Deserialize, Serialize};

use crate::{DequeueVerdict, EnqueueVerdict, ParamError, QueueConfig, QueueDiscipline, QueueLimit, QueueSite, QueueView};

/// A queue discipline written in Python: a subclass of `cellshare.plugins.QueueDiscipline`
/// (docs/extending/python.md). Runs only from Python (`cellshare run`, `cellshare.run`);
/// the emulator refuses it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExternalQdiscConfig {
    /// The class, `"module:Class"`: a module found in the scenario file's folder first, then
    /// on Python's `sys.path` (dotted names for packages), and a class in it.
    pub class: String,
    /// The class's own parameters (its `PARAMS` declares them and their defaults; keys it
    /// does not declare are refused). Default: none, every parameter at its default.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
    /// Packet limit instead of the byte limit. Default: none (use the byte limit).
    #[serde(default)]
    pub limit_packets: Option<u32>,
    /// The factory that builds the discipline, attached by whoever runs the simulation (not
    /// part of the scenario).
    #[serde(skip)]
    #[schemars(skip)]
    pub factory: QdiscFactory,
}

/// A shared [`ExternalQdisc`], or none. Two are equal when both are absent or both are the
/// same factory.
#[derive(Clone, Default)]
pub struct QdiscFactory(pub Option<Arc<dyn ExternalQdisc>>);

impl PartialEq for QdiscFactory {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl fmt::Debug for QdiscFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(x) => write!(f, "QdiscFactory({x:?})"),
            None => f.write_str("QdiscFactory(none)"),
        }
    }
}

/// A discipline built by an [`ExternalQdisc`]: the hooks of [`QueueDiscipline`] (its `fits`
/// is never asked: the queue's hard limit answers it), sendable with the simulation.
pub trait ExternalDiscipline: Send + fmt::Debug {
    /// As [`QueueDiscipline::on_enqueue`].
    fn on_enqueue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict;
    /// As [`QueueDiscipline::on_dequeue`].
    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict;
}

/// Builds the disciplines a scenario names as [`ExternalQdiscConfig`] (`kind = "python"`).
///
/// The simulator calls [`ExternalQdisc::check`] for every such entry before it builds
/// anything, then [`ExternalQdisc::build`] once per queue (each UE's, each DiffServ class's).
/// Building cannot fail: a discipline whose construction fails is returned anyway and the
/// factory records the error for its caller to stop the run with.
pub trait ExternalQdisc: fmt::Debug + Send + Sync {
    /// Checks one entry (the class can be found and is a queue discipline, the parameters
    /// are its own and in range). On error: (key below the entry's table, e.g. `class` or
    /// `params.target_ms`; the value found; what was expected).
    fn check(&self, cfg: &ExternalQdiscConfig) -> Result<(), (String, String, String)>;
    /// Builds the discipline of the queue at `site`, whose hard limit is `limit`.
    fn build(&self, cfg: &ExternalQdiscConfig, limit: QueueLimit, site: &QueueSite) -> Box<dyn ExternalDiscipline>;
}

/// Whether `s` is a dotted name of identifiers (`a.b_c.d`): what a module path can be.
fn dotted(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|p| {
            let mut c = p.chars();
            c.next().is_some_and(|f| f.is_alphabetic() || f == '_') && c.all(|x| x.is_alphanumeric() || x == '_')
        })
}

impl QueueConfig for ExternalQdiscConfig {
    type Discipline = External;

    /// Checks the form of `class` (whether it imports is the factory's check, which runs the
    /// Python code).
    fn validate(&self) -> Result<(), ParamError> {
        let ok = self.class.split_once(':').is_some_and(|(m, c)| {
            dotted(m) && !c.is_empty() && !c.contains(':') && !c.chars().any(char::is_whitespace)
        });
        if ok {
            Ok(())
        } else {
            Err((
                "class",
                format!("{:?}", self.class),
                "\"module:Class\" (a Python module, dotted for a package, and a class in it)".into(),
            ))
        }
    }

    fn limit_packets(&self) -> Option<u32> {
        self.limit_packets
    }

    /// The factory's discipline. The simulator refuses an entry without a factory before it
    /// builds anything, so the panic is never reached from it.
    fn build(&self, limit: QueueLimit, site: &QueueSite) -> External {
        let Some(f) = &self.factory.0 else {
            panic!(
                "cell.aqm kind \"python\" ({}) is built by an ExternalQdisc factory attached to the entry, and none was",
                self.class
            )
        };
        External { limit, inner: f.build(self, limit, site) }
    }
}

/// An external discipline behind the queue's hard limit.
#[derive(Debug)]
pub struct External {
    /// The queue limit (the backstop every discipline enforces).
    pub limit: QueueLimit,
    inner: Box<dyn ExternalDiscipline>,
}

impl External {
    /// `inner` behind the hard limit `limit`.
    pub fn new(limit: QueueLimit, inner: Box<dyn ExternalDiscipline>) -> Self {
        External { limit, inner }
    }
}

impl QueueDiscipline for External {
    fn on_enqueue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        match self.inner.on_enqueue(now, pkt, q) {
            EnqueueVerdict::Accept if !self.limit.fits(pkt.size, q) => EnqueueVerdict::Drop,
            v => v,
        }
    }

    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict {
        self.inner.on_dequeue(now, pkt, q)
    }

    #[inline]
    fn fits(&self, size: u32, q: &QueueView) -> bool {
        self.limit.fits(size, q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AqmConfig, TailDrop};

    fn cfg(class: &str) -> ExternalQdiscConfig {
        ExternalQdiscConfig { class: class.into(), params: Default::default(), limit_packets: None, factory: QdiscFactory::default() }
    }

    #[test]
    fn class_must_name_a_module_and_a_class() {
        for ok in ["m:C", "pkg.mod:Outer.Inner", "_x:C", "mod:f.<locals>.C"] {
            assert_eq!(cfg(ok).validate(), Ok(()), "{ok}");
        }
        for bad in ["", "m", ":C", "m:", "a b:C", "m:C D", "1m:C", "m..x:C", "m:C:D"] {
            let (k, v, e) = cfg(bad).validate().unwrap_err();
            assert_eq!((k, v), ("class", format!("{bad:?}")), "{bad}");
            assert!(e.starts_with("\"module:Class\""), "{bad}: {e}");
        }
        let e = AqmConfig::Python(cfg("nocolon")).validate("cell.aqm").unwrap_err();
        assert_eq!(e.path, "cell.aqm.class");
    }

    /// Accepts everything at enqueue and drops every other head at dequeue.
    #[derive(Debug, Default)]
    struct Greedy {
        dequeues: u32,
    }

    impl ExternalDiscipline for Greedy {
        fn on_enqueue(&mut self, _: Nanos, _: &Packet, _: &QueueView) -> EnqueueVerdict {
            EnqueueVerdict::Accept
        }
        fn on_dequeue(&mut self, _: Nanos, _: &Packet, _: &QueueView) -> DequeueVerdict {
            self.dequeues += 1;
            if self.dequeues.is_multiple_of(2) {
                DequeueVerdict::Drop
            } else {
                DequeueVerdict::Transmit
            }
        }
    }

    #[derive(Debug)]
    struct Factory;

    impl ExternalQdisc for Factory {
        fn check(&self, _: &ExternalQdiscConfig) -> Result<(), (String, String, String)> {
            Ok(())
        }
        fn build(&self, _: &ExternalQdiscConfig, _: QueueLimit, _: &QueueSite) -> Box<dyn ExternalDiscipline> {
            Box::new(Greedy::default())
        }
    }

    #[test]
    fn the_factory_builds_it_behind_the_hard_limit() {
        let mut c = cfg("m:C");
        c.factory = QdiscFactory(Some(Arc::new(Factory)));
        let site = QueueSite { seed: 1, ue: 0, class: 0, cell: 0 };
        let mut aqm = AqmConfig::Python(c.clone()).build(3000, &site);
        let mut tail = TailDrop { limit: QueueLimit::Bytes(3000) };
        let pkt = Packet { size: 1500, ..Default::default() };
        for bytes in [0, 1500, 1501, 3000] {
            let q = QueueView { bytes, packets: 2, head_enqueued_at: Some(0) };
            assert_eq!(aqm.on_enqueue(0, &pkt, &q), tail.on_enqueue(0, &pkt, &q), "{bytes} bytes queued");
            assert_eq!(aqm.fits(1500, &q), tail.fits(1500, &q));
        }
        let q = QueueView { bytes: 1500, packets: 1, head_enqueued_at: Some(0) };
        assert_eq!(aqm.on_dequeue(0, &pkt, &q), DequeueVerdict::Transmit);
        assert_eq!(aqm.on_dequeue(0, &pkt, &q), DequeueVerdict::Drop);
        // A packet limit replaces the byte limit, as for every discipline.
        c.limit_packets = Some(2);
        let aqm = AqmConfig::Python(c.clone()).build(1 << 20, &site);
        assert!(!aqm.fits(1, &QueueView { bytes: 2, packets: 2, head_enqueued_at: Some(0) }));
        // The factory is not part of the scenario: equal entries with one factory.
        assert_eq!(c.factory, c.clone().factory);
        assert_ne!(c.factory, QdiscFactory::default());
        let json = serde_json::to_string(&AqmConfig::Python(c)).unwrap();
        assert_eq!(json, r#"{"kind":"python","class":"m:C","params":{},"limit_packets":2}"#);
    }

    #[test]
    #[should_panic(expected = "ExternalQdisc factory")]
    fn building_without_a_factory_is_a_bug_of_the_caller() {
        AqmConfig::Python(cfg("m:C")).build(3000, &QueueSite { seed: 1, ue: 0, class: 0, cell: 0 });
    }
}
