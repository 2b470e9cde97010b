//! Congestion controllers and queue disciplines written in Python (`cc = { kind = "python",
//! class = "module:Class", params = { ... } }`, `cell.aqm = { kind = "python", ... }`): the
//! factory the bindings give the simulator ([`ExternalCc`], and [`ExternalQdisc`] attached
//! to each discipline's entry by [`attach_qdiscs`]), the [`CongestionControl`] that wraps one
//! Python controller and the [`ExternalDiscipline`] that wraps one Python discipline.
//!
//! The Python side (`cellshare/plugins.py`) finds the class, checks its parameters and
//! tells which optional hooks the class overrides; a hook the class leaves at the base
//! class's do-nothing default is never called. The hooks run with the GIL held (a run with
//! Python controllers does not release it). The values the sender reads between hooks
//! (`cwnd`, `ssthresh`, `pacing_rate`, `paused`, `poll_timeout`, `trace`) are read from the
//! object once after each hook and kept: a controller changes its state only inside hooks.
//!
//! A discipline's hooks get the packet and a view of its queue as read-only objects
//! ([`PyPacket`], [`PyQueueView`]) and return a verdict (`cellshare.plugins.Enqueue`,
//! `Dequeue`); a hook the class does not override is not called (tail drop at the queue's
//! hard limit, transmit).
//!
//! A Python exception (in a hook, in a read, or a value of the wrong type) is recorded once,
//! as one line naming the class, the hook and the exception; from then on no plug-in of the
//! run calls Python again (a controller keeps its last values, a discipline is tail drop),
//! and the caller stops the run at its next check ([`Failure::error`]). Ctrl-C inside a hook
//! stops the run with `KeyboardInterrupt`, as between steps.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use cellshare_aqm::{
    AqmConfig, DequeueVerdict, EnqueueVerdict, ExternalDiscipline, ExternalQdisc, ExternalQdiscConfig, QdiscFactory,
    QueueLimit, QueueSite, QueueView,
};
use cellshare_core::{Nanos, Packet, PacketKind, TrafficClass};
use cellshare_transport::cc::{
    AckEvent, CcContext, CcTrace, CongestionControl, Established, ExternalCc, ExternalConfig,
    IdleRestart, LossEvent, RateSample, UndoEvent,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The first error of a run's Python controllers.
#[derive(Debug, Default)]
pub struct Failure {
    failed: AtomicBool,
    first: Mutex<Option<Failed>>,
}

/// How a controller failed.
#[derive(Debug)]
enum Failed {
    /// An exception or a wrong value: one line naming the class and the hook.
    Message(String),
    /// Ctrl-C (`KeyboardInterrupt`) or `SystemExit` raised in a hook: the run stops with it
    /// as with a signal between steps.
    Interrupt(PyErr),
}

impl Failure {
    fn record(&self, f: Failed) {
        let mut m = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if m.is_none() {
            *m = Some(f);
        }
        self.failed.store(true, Ordering::Relaxed);
    }

    fn set(&self, message: String) {
        self.record(Failed::Message(message));
    }

    fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// The error to stop the run with, if a controller failed: `ControllerFailed` with the
    /// one-line message, or the interrupt itself.
    pub fn error(&self) -> Option<PyErr> {
        if !self.failed() {
            return None;
        }
        let mut m = self.first.lock().unwrap_or_else(|e| e.into_inner());
        match m.take()? {
            Failed::Message(msg) => {
                let err = crate::ControllerFailed::new_err((msg.clone(), String::new(), msg.clone()));
                *m = Some(Failed::Message(msg));
                Some(err)
            }
            Failed::Interrupt(e) => {
                // Once: a later check reports it as a stopped run.
                *m = Some(Failed::Message("the run was interrupted in a Python plug-in's hook".into()));
                Some(e)
            }
        }
    }
}

/// What a bad entry is reported as: (key below the `cc` table, value, what was expected).
type EntryError = (String, String, String);

/// What a `kind = "python"` entry names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plugin {
    /// A congestion controller (`cellshare.plugins.CongestionControl`).
    Cc,
    /// A queue discipline (`cellshare.plugins.QueueDiscipline`).
    Qdisc,
}

impl Plugin {
    /// As `cellshare.plugins._resolve` and the messages name it.
    fn name(self) -> &'static str {
        match self {
            Plugin::Cc => "controller",
            Plugin::Qdisc => "queue discipline",
        }
    }
}

/// One resolved `kind = "python"` entry: the class and its checked parameters.
#[derive(Debug)]
struct Resolved {
    plugin: Plugin,
    spec: String,
    given: serde_json::Map<String, serde_json::Value>,
    class: Py<PyAny>,
    params: Py<PyAny>,
}

/// The factory of the Python controllers of one simulation.
#[derive(Debug)]
pub struct PyFactory {
    /// The scenario file's folder (searched first for the class's module).
    base_dir: String,
    /// Classes given as objects through the API (`cellshare.run` with a mapping), by the
    /// `module:Class` their entries were written as.
    given: Option<Py<PyDict>>,
    resolved: Mutex<Vec<Resolved>>,
    failure: Arc<Failure>,
}

fn plugins_module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import_bound("cellshare.plugins")
}

impl PyFactory {
    pub fn new(base_dir: &str, given: Option<Py<PyDict>>) -> Self {
        PyFactory { base_dir: base_dir.to_string(), given, resolved: Mutex::new(Vec::new()), failure: Arc::new(Failure::default()) }
    }

    /// The run's failure record.
    pub fn failure(&self) -> Arc<Failure> {
        self.failure.clone()
    }

    /// Whether the scenario names any Python controller (each is checked before the run).
    pub fn used(&self) -> bool {
        !self.resolved.lock().unwrap_or_else(|e| e.into_inner()).is_empty()
    }

    /// The class and parameters of the `plugin` entry naming `spec` with `given`
    /// (`cellshare.plugins._resolve`), or the error as (key, value, expected).
    fn resolve(
        &self,
        py: Python<'_>,
        plugin: Plugin,
        spec: &str,
        given: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<(Py<PyAny>, Py<PyAny>), EntryError> {
        let mut cache = self.resolved.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = cache.iter().find(|r| r.plugin == plugin && r.spec == spec && &r.given == given) {
            return Ok((r.class.clone_ref(py), r.params.clone_ref(py)));
        }
        let params = serde_json::to_string(given).expect("JSON values serialize");
        let out = plugins_module(py).and_then(|m| {
            let classes = self.given.as_ref().map(|g| g.clone_ref(py).into_any()).unwrap_or_else(|| py.None());
            m.getattr("_resolve")?
                .call1((spec, params, &self.base_dir, classes, plugin.name()))?
                .extract::<(Py<PyAny>, Py<PyAny>)>()
        });
        match out {
            Ok((class, params)) => {
                cache.push(Resolved {
                    plugin,
                    spec: spec.to_string(),
                    given: given.clone(),
                    class: class.clone_ref(py),
                    params: params.clone_ref(py),
                });
                Ok((class, params))
            }
            Err(e) => {
                // `PluginInvalid(key, value, expected)`; anything else is kept whole.
                let args = e.value_bound(py).getattr("args").ok();
                if let Some(t) = args.and_then(|a| a.extract::<(String, String, String)>().ok()) {
                    return Err(t);
                }
                Err(("class".into(), format!("{spec:?}"), format!("a class cellshare can load ({})", one_line(&e.to_string()))))
            }
        }
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Records `e`, raised by `hook` of the `plugin` class `spec`, in `failure`: an interrupt as
/// itself, anything else as one line (`cellshare.plugins._hook_error`).
fn record_hook_error(py: Python<'_>, failure: &Failure, plugin: Plugin, spec: &str, hook: &str, e: PyErr) {
    if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) || e.is_instance_of::<pyo3::exceptions::PySystemExit>(py) {
        failure.record(Failed::Interrupt(e));
        return;
    }
    let text = one_line(&e.to_string());
    // `into_value` attaches the traceback, whose innermost frame the message names.
    let value = e.into_value(py);
    let msg = plugins_module(py)
        .and_then(|m| m.getattr("_hook_error")?.call1((spec, hook, value, plugin.name()))?.extract::<String>())
        .unwrap_or_else(|_| format!("python {} {spec}: {hook} raised {text}", plugin.name()));
    failure.set(msg);
}

impl ExternalCc for PyFactory {
    fn check(&self, cfg: &ExternalConfig) -> Result<(), EntryError> {
        Python::with_gil(|py| self.resolve(py, Plugin::Cc, &cfg.class, &cfg.params).map(|_| ()))
    }

    fn build(&self, cfg: &ExternalConfig, ctx: &CcContext) -> Box<dyn CongestionControl> {
        Python::with_gil(|py| {
            let mut cc = PyCc {
                spec: cfg.class.as_str().into(),
                hooks: Default::default(),
                cwnd: ctx.initial_window.max(ctx.mss as u64),
                ssthresh: u64::MAX,
                pacing_rate: None,
                paused: false,
                timer: None,
                trace: CcTrace { mode: 0, estimate: f64::NAN, flag: false },
                failure: self.failure.clone(),
            };
            if self.failure.failed() {
                return Box::new(cc) as Box<dyn CongestionControl>;
            }
            let made = match self.resolve(py, Plugin::Cc, &cfg.class, &cfg.params) {
                Ok((class, params)) => {
                    let pctx = PyCcContext { mss: ctx.mss, initial_window: ctx.initial_window, seed: ctx.seed, index: ctx.index };
                    plugins_module(py).and_then(|m| m.getattr("_instantiate")?.call1((class, pctx, params))?.extract::<Vec<Option<Py<PyAny>>>>())
                }
                Err((k, v, e)) => {
                    cc.fail_with(format!("python controller {}: {k} = {v}: expected {e}", cfg.class));
                    return Box::new(cc);
                }
            };
            match made {
                Ok(hooks) if hooks.len() == HOOKS => {
                    for (slot, h) in cc.hooks.iter_mut().zip(hooks) {
                        *slot = h;
                    }
                    cc.refresh(py);
                }
                Ok(_) => cc.fail_with(format!("python controller {}: cellshare.plugins._instantiate returned a wrong hook list", cfg.class)),
                Err(e) => cc.fail(py, "__init__", e),
            }
            Box::new(cc)
        })
    }
}

/// The hooks, in the order `cellshare.plugins._instantiate` lists them.
#[derive(Clone, Copy)]
enum Hook {
    OnAck,
    OnCongestionEvent,
    OnTimeout,
    OnTimeoutAgain,
    OnSent,
    OnRecoveryEnd,
    UndoCwnd,
    OnIdleRestart,
    OnEstablished,
    OnTimer,
    Cwnd,
    Ssthresh,
    PacingRate,
    Paused,
    PollTimeout,
    Trace,
}

const HOOKS: usize = 16;
const HOOK_NAMES: [&str; HOOKS] = [
    "on_ack",
    "on_congestion_event",
    "on_timeout",
    "on_timeout_again",
    "on_sent",
    "on_recovery_end",
    "undo_cwnd",
    "on_idle_restart",
    "on_established",
    "on_timer",
    "cwnd",
    "ssthresh",
    "pacing_rate",
    "paused",
    "poll_timeout",
    "trace",
];

/// A controller written in Python: the object's bound hooks (`None` for an optional hook
/// the class does not override) and the values last read from it.
struct PyCc {
    spec: Arc<str>,
    hooks: [Option<Py<PyAny>>; HOOKS],
    cwnd: u64,
    ssthresh: u64,
    pacing_rate: Option<f64>,
    paused: bool,
    timer: Option<Nanos>,
    trace: CcTrace,
    failure: Arc<Failure>,
}

impl std::fmt::Debug for PyCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyCc").field("class", &self.spec).field("cwnd", &self.cwnd).field("ssthresh", &self.ssthresh).finish()
    }
}

impl PyCc {
    fn fail_with(&self, message: String) {
        self.failure.set(message);
    }

    /// Records `e`, raised by `hook`, as one line (`cellshare.plugins._hook_error`).
    fn fail(&self, py: Python<'_>, hook: &str, e: PyErr) {
        record_hook_error(py, &self.failure, Plugin::Cc, &self.spec, hook, e);
    }

    /// Calls `hook` (if the class overrides it) with `args`, then reads the state back.
    #[inline]
    fn call<A>(&mut self, hook: Hook, args: impl FnOnce(Python<'_>) -> PyResult<A>)
    where
        A: IntoPy<Py<PyTuple>>,
    {
        if self.failure.failed() || self.hooks[hook as usize].is_none() {
            return;
        }
        Python::with_gil(|py| {
            let f = self.hooks[hook as usize].as_ref().expect("checked");
            match args(py).and_then(|a| f.call1(py, a)) {
                Ok(_) => self.refresh(py),
                Err(e) => self.fail(py, HOOK_NAMES[hook as usize], e),
            }
        })
    }

    /// Reads `hook()` and converts it with `conv`; `None` after recording the error.
    fn read<T>(&self, py: Python<'_>, hook: Hook, expected: &str, conv: impl Fn(&Bound<'_, PyAny>) -> Option<T>) -> Option<T> {
        let f = self.hooks[hook as usize].as_ref()?;
        let name = HOOK_NAMES[hook as usize];
        match f.call0(py) {
            Ok(v) => {
                let v = v.into_bound(py);
                let out = conv(&v);
                if out.is_none() {
                    let shown = v.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
                    let shown: String = shown.chars().take(60).collect();
                    self.fail_with(format!("python controller {}: {name}() returned {shown}, expected {expected}", self.spec));
                }
                out
            }
            Err(e) => {
                self.fail(py, name, e);
                None
            }
        }
    }

    /// Reads the state the sender uses between hooks.
    fn refresh(&mut self, py: Python<'_>) {
        let int = |v: &Bound<'_, PyAny>| if v.is_instance_of::<pyo3::types::PyBool>() { None } else { v.extract::<u64>().ok() };
        let Some(c) = self.read(py, Hook::Cwnd, "an integer number of bytes >= 1", |v| int(v).filter(|&c| c >= 1)) else { return };
        self.cwnd = c;
        let Some(s) = self.read(py, Hook::Ssthresh, "an integer number of bytes >= 1 (2**64 - 1: unset)", |v| int(v).filter(|&s| s >= 1))
        else {
            return;
        };
        self.ssthresh = s;
        if self.hooks[Hook::PacingRate as usize].is_some() {
            let rate = |v: &Bound<'_, PyAny>| -> Option<Option<f64>> {
                if v.is_none() {
                    return Some(None);
                }
                let r = if v.is_instance_of::<pyo3::types::PyBool>() { None } else { v.extract::<f64>().ok() };
                r.filter(|r| r.is_finite() && *r > 0.0).map(Some)
            };
            let Some(p) = self.read(py, Hook::PacingRate, "None or a rate in bytes per second > 0", rate) else { return };
            self.pacing_rate = p;
        }
        if self.hooks[Hook::Paused as usize].is_some() {
            let b = |v: &Bound<'_, PyAny>| v.downcast::<pyo3::types::PyBool>().ok().map(|b| b.is_true());
            let Some(p) = self.read(py, Hook::Paused, "True or False", b) else { return };
            self.paused = p;
        }
        if self.hooks[Hook::PollTimeout as usize].is_some() {
            let t = |v: &Bound<'_, PyAny>| if v.is_none() { Some(None) } else { int(v).map(Some) };
            let Some(t) = self.read(py, Hook::PollTimeout, "None or a time in integer nanoseconds", t) else { return };
            self.timer = t;
        }
        if self.hooks[Hook::Trace as usize].is_some() {
            let tr = |v: &Bound<'_, PyAny>| {
                let (mode, estimate, flag) = v.extract::<(u8, f64, bool)>().ok()?;
                Some(CcTrace { mode, estimate, flag })
            };
            let Some(t) = self.read(py, Hook::Trace, "a (mode 0..=255, estimate float, flag bool) tuple", tr) else { return };
            self.trace = t;
        }
    }
}

impl CongestionControl for PyCc {
    fn name(&self) -> &'static str {
        "python"
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.call(Hook::OnAck, |py| Ok((Py::new(py, PyAckEvent::from(ev))?,)));
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        let e = PyLossEvent { now: ev.now, bytes_in_flight: ev.bytes_in_flight, mss: ev.mss };
        self.call(Hook::OnCongestionEvent, |py| Ok((Py::new(py, e)?,)));
    }

    fn on_timeout(&mut self, now: Nanos, bytes_in_flight: u64, mss: u32) {
        self.call(Hook::OnTimeout, |_| Ok((now, bytes_in_flight, mss)));
    }

    fn on_timeout_again(&mut self, now: Nanos, mss: u32) {
        self.call(Hook::OnTimeoutAgain, |_| Ok((now, mss)));
    }

    fn on_sent(&mut self, now: Nanos, bytes: u32, bytes_in_flight: u64) {
        self.call(Hook::OnSent, |_| Ok((now, bytes, bytes_in_flight)));
    }

    fn on_recovery_end(&mut self, now: Nanos) {
        self.call(Hook::OnRecoveryEnd, |_| Ok((now,)));
    }

    fn undo_cwnd(&mut self, ev: &UndoEvent) {
        let e = PyUndoEvent { now: ev.now, prior_cwnd: ev.prior_cwnd, prior_ssthresh: ev.prior_ssthresh, mss: ev.mss };
        self.call(Hook::UndoCwnd, |py| Ok((Py::new(py, e)?,)));
    }

    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        let e = PyIdleRestart { now: ev.now, idle: ev.idle, rto: ev.rto, initial_window: ev.initial_window, mss: ev.mss };
        self.call(Hook::OnIdleRestart, |py| Ok((Py::new(py, e)?,)));
    }

    fn on_established(&mut self, ev: &Established) {
        let e = PyEstablished { now: ev.now, srtt: ev.srtt, min_rtt: ev.min_rtt, mss: ev.mss };
        self.call(Hook::OnEstablished, |py| Ok((Py::new(py, e)?,)));
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.pacing_rate
    }

    fn paused(&self) -> bool {
        self.paused
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        self.timer
    }

    fn on_timer(&mut self, now: Nanos) {
        self.call(Hook::OnTimer, |_| Ok((now,)));
    }

    fn trace(&self) -> CcTrace {
        self.trace
    }
}

/// What a Python controller is built for (Rust `CcContext`).
#[pyclass(frozen, get_all, module = "cellshare._core", name = "CcContext")]
#[derive(Clone)]
pub struct PyCcContext {
    /// Maximum segment size in bytes.
    mss: u32,
    /// Initial congestion window in bytes.
    initial_window: u64,
    /// The scenario's seed.
    seed: u64,
    /// The flow's index.
    index: u64,
}

/// A delivery-rate sample (Rust `RateSample`).
#[pyclass(frozen, get_all, module = "cellshare._core", name = "RateSample")]
#[derive(Clone)]
pub struct PyRateSample {
    delivery_rate: f64,
    delivered: u64,
    interval: u64,
    prior_delivered: u64,
    is_app_limited: bool,
}

impl From<&RateSample> for PyRateSample {
    fn from(r: &RateSample) -> Self {
        PyRateSample {
            delivery_rate: r.delivery_rate,
            delivered: r.delivered,
            interval: r.interval,
            prior_delivered: r.prior_delivered,
            is_app_limited: r.is_app_limited,
        }
    }
}

/// One arriving ACK (Rust `AckEvent`: the same fields, times in integer nanoseconds,
/// sizes in bytes).
#[pyclass(frozen, get_all, module = "cellshare._core", name = "AckEvent")]
#[derive(Clone)]
pub struct PyAckEvent {
    now: u64,
    acked_bytes: u64,
    ack_seq: u64,
    snd_nxt: u64,
    is_dup: bool,
    rtt_sample: Option<u64>,
    srtt: u64,
    min_rtt: u64,
    ts_val: u32,
    ts_ecr: u32,
    bytes_in_flight: u64,
    prior_in_flight: u64,
    delivered: u64,
    rate_sample: Option<PyRateSample>,
    in_recovery: bool,
    app_limited: bool,
    mss: u32,
}

impl From<&AckEvent> for PyAckEvent {
    fn from(e: &AckEvent) -> Self {
        PyAckEvent {
            now: e.now,
            acked_bytes: e.acked_bytes,
            ack_seq: e.ack_seq,
            snd_nxt: e.snd_nxt,
            is_dup: e.is_dup,
            rtt_sample: e.rtt_sample,
            srtt: e.srtt,
            min_rtt: e.min_rtt,
            ts_val: e.ts_val,
            ts_ecr: e.ts_ecr,
            bytes_in_flight: e.bytes_in_flight,
            prior_in_flight: e.prior_in_flight,
            delivered: e.delivered,
            rate_sample: e.rate_sample.as_ref().map(PyRateSample::from),
            in_recovery: e.in_recovery,
            app_limited: e.app_limited,
            mss: e.mss,
        }
    }
}

/// Fast retransmit starting a recovery episode (Rust `LossEvent`).
#[pyclass(frozen, get_all, module = "cellshare._core", name = "LossEvent")]
#[derive(Clone)]
pub struct PyLossEvent {
    now: u64,
    bytes_in_flight: u64,
    mss: u32,
}

/// The handshake completed (Rust `Established`).
#[pyclass(frozen, get_all, module = "cellshare._core", name = "Established")]
#[derive(Clone)]
pub struct PyEstablished {
    now: u64,
    srtt: u64,
    min_rtt: u64,
    mss: u32,
}

/// A reduction found spurious (Rust `UndoEvent`).
#[pyclass(frozen, get_all, module = "cellshare._core", name = "UndoEvent")]
#[derive(Clone)]
pub struct PyUndoEvent {
    now: u64,
    prior_cwnd: u64,
    prior_ssthresh: u64,
    mss: u32,
}

/// A restart after idle (Rust `IdleRestart`).
#[pyclass(frozen, get_all, module = "cellshare._core", name = "IdleRestart")]
#[derive(Clone)]
pub struct PyIdleRestart {
    now: u64,
    idle: u64,
    rto: u64,
    initial_window: u64,
    mss: u32,
}

macro_rules! event_repr {
    ($($t:ident { $($f:ident),* }),*) => {$(
        #[pymethods]
        impl $t {
            fn __repr__(&self) -> String {
                let mut s = format!("{}(", stringify!($t).trim_start_matches("Py"));
                $( s.push_str(&format!("{}={:?}, ", stringify!($f), self.$f)); )*
                s.truncate(s.len() - 2);
                s + ")"
            }
        }
    )*};
}

event_repr!(
    PyCcContext { mss, initial_window, seed, index },
    PyRateSample { delivery_rate, delivered, interval, prior_delivered, is_app_limited },
    PyLossEvent { now, bytes_in_flight, mss },
    PyEstablished { now, srtt, min_rtt, mss },
    PyUndoEvent { now, prior_cwnd, prior_ssthresh, mss },
    PyIdleRestart { now, idle, rto, initial_window, mss }
);

#[pymethods]
impl PyAckEvent {
    fn __repr__(&self) -> String {
        format!(
            "AckEvent(now={}, acked_bytes={}, ack_seq={}, is_dup={}, rtt_sample={:?}, srtt={}, bytes_in_flight={}, in_recovery={}, mss={})",
            self.now, self.acked_bytes, self.ack_seq, self.is_dup, self.rtt_sample, self.srtt, self.bytes_in_flight, self.in_recovery, self.mss
        )
    }
}

// -- queue disciplines -----------------------------------------------------------------------

/// Attaches `factory` to every Python queue discipline of `aqm` (a DiffServ queue's classes
/// too): the simulator builds each queue's discipline with it.
pub fn attach_qdiscs(aqm: &mut AqmConfig, factory: &Arc<PyFactory>) {
    match aqm {
        AqmConfig::Python(p) => p.factory = QdiscFactory(Some(factory.clone() as Arc<dyn ExternalQdisc>)),
        AqmConfig::Diffserv(d) => {
            for c in &mut d.classes {
                attach_qdiscs(&mut c.aqm, factory);
            }
        }
        _ => {}
    }
}

impl ExternalQdisc for PyFactory {
    fn check(&self, cfg: &ExternalQdiscConfig) -> Result<(), EntryError> {
        Python::with_gil(|py| self.resolve(py, Plugin::Qdisc, &cfg.class, &cfg.params).map(|_| ()))
    }

    fn build(&self, cfg: &ExternalQdiscConfig, limit: QueueLimit, site: &QueueSite) -> Box<dyn ExternalDiscipline> {
        Python::with_gil(|py| {
            let mut q = PyQdisc { spec: cfg.class.as_str().into(), on_enqueue: None, on_dequeue: None, limit, failure: self.failure.clone() };
            if self.failure.failed() {
                return Box::new(q) as Box<dyn ExternalDiscipline>;
            }
            let made = match self.resolve(py, Plugin::Qdisc, &cfg.class, &cfg.params) {
                Ok((class, params)) => {
                    let (limit_bytes, limit_packets) = match limit {
                        QueueLimit::Bytes(b) => (Some(b), None),
                        QueueLimit::Packets(p) => (None, Some(p)),
                    };
                    let ctx = PyQueueContext { seed: site.seed, ue: site.ue, diffserv_class: site.class, cell: site.cell, limit_bytes, limit_packets };
                    plugins_module(py).and_then(|m| {
                        m.getattr("_instantiate_qdisc")?.call1((class, ctx, params))?.extract::<(Option<Py<PyAny>>, Option<Py<PyAny>>)>()
                    })
                }
                Err((k, v, e)) => {
                    q.failure.set(format!("python queue discipline {}: {k} = {v}: expected {e}", cfg.class));
                    return Box::new(q);
                }
            };
            match made {
                Ok((enq, deq)) => (q.on_enqueue, q.on_dequeue) = (enq, deq),
                Err(e) => record_hook_error(py, &q.failure, Plugin::Qdisc, &q.spec, "__init__", e),
            }
            Box::new(q)
        })
    }
}

/// A queue discipline written in Python: the object's bound hooks (`None` for a hook the
/// class does not override) and the queue's hard limit (what the class's defaults apply).
struct PyQdisc {
    spec: Arc<str>,
    on_enqueue: Option<Py<PyAny>>,
    on_dequeue: Option<Py<PyAny>>,
    limit: QueueLimit,
    failure: Arc<Failure>,
}

impl std::fmt::Debug for PyQdisc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyQdisc").field("class", &self.spec).field("limit", &self.limit).finish()
    }
}

/// A discipline's hook: its name, the verdicts it may return (`0..codes`, described by
/// `expected`) and whether the packet is queued (its `enqueued_at` known).
struct QdiscHook {
    name: &'static str,
    expected: &'static str,
    codes: u8,
    queued: bool,
}

const ON_ENQUEUE: QdiscHook = QdiscHook {
    name: "on_enqueue",
    expected: "Enqueue.ACCEPT, Enqueue.DROP or Enqueue.ACCEPT_DROPPING_HEAD",
    codes: 3,
    queued: false,
};
const ON_DEQUEUE: QdiscHook = QdiscHook { name: "on_dequeue", expected: "Dequeue.TRANSMIT or Dequeue.DROP", codes: 2, queued: true };

impl PyQdisc {
    /// Calls `f`, the bound `hook`, with (now, packet, queue) and reads its verdict:
    /// `Some(code)` when it returned an integer in `0..hook.codes` (not a bool), else `None`
    /// after recording the error.
    fn call(&self, py: Python<'_>, f: &Py<PyAny>, hook: &QdiscHook, now: Nanos, pkt: &Packet, q: &QueueView) -> Option<u8> {
        let (name, expected, codes) = (hook.name, hook.expected, hook.codes);
        let args = (|| -> PyResult<_> {
            Ok((now, Py::new(py, PyPacket::new(pkt, hook.queued))?, Py::new(py, PyQueueView::new(now, q, self.limit))?))
        })();
        match args.and_then(|a| f.call1(py, a)) {
            Ok(v) => {
                let v = v.into_bound(py);
                let code = if v.is_instance_of::<pyo3::types::PyBool>() { None } else { v.extract::<u8>().ok().filter(|&c| c < codes) };
                if code.is_none() {
                    let shown = v.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
                    let shown: String = shown.chars().take(60).collect();
                    self.failure.set(format!("python queue discipline {}: {name}() returned {shown}, expected {expected}", self.spec));
                }
                code
            }
            Err(e) => {
                record_hook_error(py, &self.failure, Plugin::Qdisc, &self.spec, name, e);
                None
            }
        }
    }
}

impl ExternalDiscipline for PyQdisc {
    fn on_enqueue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
        let Some(hook) = self.on_enqueue.as_ref().filter(|_| !self.failure.failed()) else { return self.limit.admit(pkt.size, q) };
        match Python::with_gil(|py| self.call(py, hook, &ON_ENQUEUE, now, pkt, q)) {
            Some(0) => EnqueueVerdict::Accept,
            Some(1) => EnqueueVerdict::Drop,
            Some(_) => EnqueueVerdict::AcceptDroppingHead,
            None => self.limit.admit(pkt.size, q),
        }
    }

    fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict {
        let Some(hook) = self.on_dequeue.as_ref().filter(|_| !self.failure.failed()) else { return DequeueVerdict::Transmit };
        match Python::with_gil(|py| self.call(py, hook, &ON_DEQUEUE, now, pkt, q)) {
            Some(1) => DequeueVerdict::Drop,
            _ => DequeueVerdict::Transmit,
        }
    }
}

/// Where a Python queue discipline runs (Rust `QueueSite` and the queue's hard limit).
#[pyclass(frozen, get_all, module = "cellshare._core", name = "QueueContext")]
#[derive(Clone)]
pub struct PyQueueContext {
    /// The scenario's seed.
    seed: u64,
    /// The UE whose queue it is.
    ue: u64,
    /// The DiffServ class (0 for a single-class queue).
    diffserv_class: u64,
    /// The cell's index in its network (0 for a lone cell).
    cell: u64,
    /// The byte limit, when the limit is in bytes.
    limit_bytes: Option<u64>,
    /// The packet limit, when the limit is in packets (`limit_packets`).
    limit_packets: Option<u32>,
}

/// The packet a queue discipline decides on (Rust `Packet`, the fields a discipline reads).
#[pyclass(frozen, get_all, module = "cellshare._core", name = "Packet")]
#[derive(Clone)]
pub struct PyPacket {
    flow: u32,
    ue: u32,
    size: u32,
    payload: u32,
    is_ack: bool,
    foreground: bool,
    dscp: u8,
    retransmit: bool,
    sent_at: u64,
    enqueued_at: Option<u64>,
}

impl PyPacket {
    fn new(p: &Packet, at_dequeue: bool) -> Self {
        PyPacket {
            flow: p.flow,
            ue: p.ue,
            size: p.size,
            payload: p.payload,
            is_ack: p.kind == PacketKind::Ack,
            foreground: p.class == TrafficClass::Foreground,
            dscp: p.dscp,
            retransmit: p.retransmit,
            sent_at: p.sent_at,
            enqueued_at: at_dequeue.then_some(p.enqueued_at),
        }
    }
}

/// A queue as its discipline sees it at a decision (Rust `QueueView` and the hard limit).
#[pyclass(frozen, get_all, module = "cellshare._core", name = "QueueView")]
#[derive(Clone)]
pub struct PyQueueView {
    bytes: u64,
    packets: u32,
    head_enqueued_at: Option<u64>,
    head_sojourn: Option<u64>,
    limit_bytes: Option<u64>,
    limit_packets: Option<u32>,
}

impl PyQueueView {
    fn new(now: Nanos, q: &QueueView, limit: QueueLimit) -> Self {
        let (limit_bytes, limit_packets) = match limit {
            QueueLimit::Bytes(b) => (Some(b), None),
            QueueLimit::Packets(p) => (None, Some(p)),
        };
        PyQueueView {
            bytes: q.bytes,
            packets: q.packets,
            head_enqueued_at: q.head_enqueued_at,
            head_sojourn: q.head_enqueued_at.map(|t| now.saturating_sub(t)),
            limit_bytes,
            limit_packets,
        }
    }

    fn limit(&self) -> QueueLimit {
        match (self.limit_bytes, self.limit_packets) {
            (Some(b), _) => QueueLimit::Bytes(b),
            (None, p) => QueueLimit::Packets(p.unwrap_or(0)),
        }
    }
}

#[pymethods]
impl PyQueueView {
    /// Whether a packet of `size` bytes fits the queue's hard limit (Rust `QueueLimit::fits`).
    fn fits(&self, size: u32) -> bool {
        let q = QueueView { bytes: self.bytes, packets: self.packets, head_enqueued_at: self.head_enqueued_at };
        self.limit().fits(size, &q)
    }

    fn __repr__(&self) -> String {
        format!(
            "QueueView(bytes={}, packets={}, head_enqueued_at={}, head_sojourn={}, limit_bytes={}, limit_packets={})",
            self.bytes,
            self.packets,
            py_opt(self.head_enqueued_at),
            py_opt(self.head_sojourn),
            py_opt(self.limit_bytes),
            py_opt(self.limit_packets)
        )
    }
}

/// An optional value as Python shows it.
fn py_opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "None".into(), |v| v.to_string())
}

/// A bool as Python shows it.
fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

#[pymethods]
impl PyQueueContext {
    fn __repr__(&self) -> String {
        format!(
            "QueueContext(seed={}, ue={}, diffserv_class={}, cell={}, limit_bytes={}, limit_packets={})",
            self.seed,
            self.ue,
            self.diffserv_class,
            self.cell,
            py_opt(self.limit_bytes),
            py_opt(self.limit_packets)
        )
    }
}

#[pymethods]
impl PyPacket {
    fn __repr__(&self) -> String {
        format!(
            "Packet(flow={}, ue={}, size={}, payload={}, is_ack={}, foreground={}, dscp={}, retransmit={}, sent_at={}, enqueued_at={})",
            self.flow,
            self.ue,
            self.size,
            self.payload,
            py_bool(self.is_ack),
            py_bool(self.foreground),
            self.dscp,
            py_bool(self.retransmit),
            self.sent_at,
            py_opt(self.enqueued_at)
        )
    }
}

/// Adds the event classes to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCcContext>()?;
    m.add_class::<PyRateSample>()?;
    m.add_class::<PyAckEvent>()?;
    m.add_class::<PyLossEvent>()?;
    m.add_class::<PyEstablished>()?;
    m.add_class::<PyUndoEvent>()?;
    m.add_class::<PyIdleRestart>()?;
    m.add_class::<PyQueueContext>()?;
    m.add_class::<PyPacket>()?;
    m.add_class::<PyQueueView>()?;
    Ok(())
}
