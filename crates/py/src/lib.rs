#![allow(unexpected_cfgs)] // pyo3 0.22 macros probe a `gil-refs` feature this crate does not declare
//! Python bindings: the `cellshare._core` extension module.
//!
//! This crate is the only place besides the Python package that performs I/O: it reads the
//! trace and position trace files a scenario names (relative to the scenario's folder, through
//! `cellshare_sim::input`) and hands the parsed traces to the simulator. Simulation runs release the GIL.

use std::path::Path;
use std::sync::Arc;

use cellshare_sim::input::load_inputs;
use cellshare_sim::limits::{MemoryGuard, GUARD_EVENTS};
use cellshare_sim::{Limits, Scenario, ScenarioError, Simulation};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

mod contract;
mod plugins;
mod spool;

use contract::Ty;
use spool::{ArrowCol, Owners, Spool, SPOOL_ROWS, TABLES};

create_exception!(_core, ScenarioInvalid, PyValueError, "A scenario (or a file it names) is invalid. args: (message, key path, detail).");
create_exception!(
    _core,
    MemoryLimitExceeded,
    ScenarioInvalid,
    "A run was stopped before the process's resident memory passed the memory limit (docs/limits.md); args as ScenarioInvalid's."
);

create_exception!(
    _core,
    ControllerFailed,
    ScenarioInvalid,
    "A Python congestion controller or queue discipline raised an exception (or returned a value of the wrong type) during a run; args: (message, \"\", message), the message naming the class, the hook and the exception."
);

fn to_py(e: ScenarioError) -> PyErr {
    ScenarioInvalid::new_err((e.to_string(), e.path, e.message))
}

fn limits(max_ues: Option<u64>, max_flows: Option<u64>, max_memory_mb: Option<u64>) -> Limits {
    let d = Limits::default();
    Limits {
        max_ues: max_ues.unwrap_or(d.max_ues),
        max_flows: max_flows.unwrap_or(d.max_flows),
        max_memory_mb: max_memory_mb.unwrap_or(d.max_memory_mb),
    }
}

/// Parses and validates a scenario given as TOML text; raises `ScenarioInvalid`.
/// Trace files are resolved against `base_dir` and checked too; the limits (UEs, flows,
/// estimated memory) default to those of `docs/limits.md`. Python congestion controllers and
/// queue disciplines (`kind = "python"`) are loaded and checked: their modules are found in `base_dir` first,
/// then on `sys.path`; `classes` maps `module:Class` to class objects given directly.
#[pyfunction]
#[pyo3(signature = (text, base_dir = ".", max_ues = None, max_flows = None, max_memory_mb = None, classes = None))]
fn validate(
    text: &str,
    base_dir: &str,
    max_ues: Option<u64>,
    max_flows: Option<u64>,
    max_memory_mb: Option<u64>,
    classes: Option<Py<PyDict>>,
) -> PyResult<()> {
    let p = prepare(text, base_dir, &limits(max_ues, max_flows, max_memory_mb), classes)?;
    // Everything `Sim` checks, without building the flows (cheap for large scenarios).
    Simulation::check_inputs(&p.sc, &p.traces, &p.positions).map_err(to_py)?;
    cellshare_sim::validate::check_external(&p.sc, Some(&*p.factory)).map_err(to_py)?;
    Ok(())
}

/// A scenario as `validate()` checks it and `Sim()` runs it: parsed and checked once, its
/// trace and position files read (against `base_dir`), and the Python queue disciplines it
/// names attached through the plug-in factory (which also loads its Python controllers).
struct Prepared {
    sc: cellshare_sim::ValidScenario,
    traces: cellshare_sim::TraceSet,
    positions: cellshare_sim::PositionTraces,
    factory: Arc<plugins::PyFactory>,
}

fn prepare(text: &str, base_dir: &str, lim: &Limits, classes: Option<Py<PyDict>>) -> PyResult<Prepared> {
    let mut sc = Scenario::parse_checked(text, lim).map_err(to_py)?;
    let (traces, positions) = load_inputs(&sc, Path::new(base_dir)).map_err(to_py)?;
    let factory = Arc::new(plugins::PyFactory::new(base_dir, classes));
    sc.attach_to_aqm(|aqm| plugins::attach_qdiscs(aqm, &factory));
    Ok(Prepared { sc, traces, positions, factory })
}

/// The result contract (`crate::contract`) as a JSON string: every table a run's results
/// hold with its columns (name, Arrow type, unit, meaning), and every key of `summary.json`.
#[pyfunction]
fn result_contract() -> String {
    contract::contract_json().to_string()
}

/// The scenario JSON Schema, as a JSON string.
#[pyfunction]
fn scenario_schema() -> String {
    cellshare_sim::schema::scenario_schema().to_string()
}

fn io_err(e: std::io::Error) -> PyErr {
    PyOSError::new_err(format!("cellshare's trace spool (temporary folder {}): {e}", std::env::temp_dir().display()))
}

/// Moves the trace samples held in `sim` to `spool`.
fn drain(sim: &mut Simulation, spool: &mut Spool) -> std::io::Result<()> {
    let d = sim.take_traces();
    for (i, tr, mc) in &d.flows {
        spool.push_flow(*i as usize, tr, mc)?;
    }
    for (i, tr) in &d.ues {
        spool.push_ue(*i as usize, tr)?;
    }
    Ok(())
}

/// Simulated time between checks of how many trace samples the simulation holds.
const DRAIN_STEP_NS: u64 = 10 * cellshare_core::SEC;
/// Simulated time between checks for a pending Python signal (Ctrl-C) while a run advances.
/// The run's results do not depend on the steps it advances by.
const SIGNAL_STEP_NS: u64 = cellshare_core::SEC;

// The memory estimate (`cellshare_sim::limits`) counts the trace samples held between two
// drains and the spool's memory with these.
const _: () = assert!(SPOOL_ROWS as u64 == cellshare_sim::limits::TRACE_DRAIN_ROWS);
const _: () = assert!(DRAIN_STEP_NS == cellshare_sim::limits::TRACE_DRAIN_STEP_S * cellshare_core::SEC);
const _: () = assert!(spool::MEM_MAX as u64 == cellshare_sim::limits::SPOOL_MEMORY_BYTES);

/// The process's resident memory, read from `/proc/self/statm` with one `pread` (about a
/// microsecond; where there is no such file, the peak from `getrusage`).
struct Rss {
    statm: Option<std::fs::File>,
    page: u64,
}

impl Rss {
    fn new() -> Self {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        Rss { statm: std::fs::File::open("/proc/self/statm").ok(), page: if page > 0 { page as u64 } else { 4096 } }
    }

    /// Resident bytes now.
    fn bytes(&self) -> u64 {
        use std::os::unix::fs::FileExt;
        let mut buf = [0u8; 160];
        let pages = self.statm.as_ref().and_then(|f| {
            let n = f.read_at(&mut buf, 0).ok()?;
            std::str::from_utf8(&buf[..n]).ok()?.split_ascii_whitespace().nth(1)?.parse::<u64>().ok()
        });
        match pages {
            Some(p) => p * self.page,
            None => {
                // SAFETY: `ru` is a valid out-pointer for getrusage.
                let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
                unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
                ru.ru_maxrss.max(0) as u64 * 1024
            }
        }
    }
}

/// Why a run stopped early.
enum Stop {
    /// A Python exception (a signal handler's, a spool error).
    Py(PyErr),
    /// The memory guard.
    Memory(ScenarioError),
}

impl From<PyErr> for Stop {
    fn from(e: PyErr) -> Self {
        Stop::Py(e)
    }
}

/// Advances `sim` to `until`, moving trace samples to `spool` whenever the simulation holds
/// more than 2^16 of them (checked every 10 simulated seconds), checking for a pending
/// Python signal (Ctrl-C) every simulated second and the process's resident memory against
/// `guard` every simulated second and every `GUARD_EVENTS` events. The run's results do not
/// depend on these steps.
fn advance_guarded(
    sim: &mut Simulation,
    spool: &mut Spool,
    guard: &MemoryGuard,
    rss: &Rss,
    until: u64,
    failure: Option<&plugins::Failure>,
) -> Result<(), Stop> {
    let check = |sim: &Simulation| {
        // A Python controller that raised stops the run (its controllers no longer call
        // Python, so the events up to this check run quickly).
        if let Some(e) = failure.and_then(plugins::Failure::error) {
            return Err(Stop::Py(e));
        }
        let now = cellshare_core::time::to_secs_f64(sim.now());
        let end = cellshare_core::time::to_secs_f64(sim.end());
        guard.check(rss.bytes(), sim.flow_count() as u64, now, end).map_err(Stop::Memory)
    };
    let mut t = sim.now();
    while t < until.min(sim.end()) {
        let drain_at = until.min(t.saturating_add(DRAIN_STEP_NS));
        while t < drain_at {
            t = drain_at.min(t.saturating_add(SIGNAL_STEP_NS));
            while !sim.advance_bounded(t, GUARD_EVENTS) {
                check(sim)?;
            }
            check(sim)?;
            // Ctrl-C (and any other Python signal handler) is honoured between steps: the
            // run stops with the handler's exception.
            Python::with_gil(|py| py.check_signals())?;
        }
        if sim.buffered_trace_rows() >= SPOOL_ROWS {
            drain(sim, spool).map_err(io_err)?;
        }
    }
    Ok(())
}

/// A simulation in progress. Its trace samples move to a spool as it runs (see
/// `spool.rs`); `finish()` ends it and returns a `RunData`. A run whose resident memory
/// would pass the memory limit is stopped (`MemoryLimitExceeded`) and freed.
#[pyclass(module = "cellshare._core")]
struct Sim {
    inner: Option<Simulation>,
    spool: Spool,
    guard: MemoryGuard,
    rss: Rss,
    /// The failure record of the run's Python controllers, if it has any (the run then
    /// holds the GIL, which their every hook needs).
    plugins: Option<Arc<plugins::Failure>>,
}

impl Sim {
    fn sim(&mut self) -> PyResult<&mut Simulation> {
        self.inner.as_mut().ok_or_else(|| PyValueError::new_err("the simulation was finished"))
    }

    /// [`advance_guarded`] to `until`, releasing the GIL; a run stopped by the memory guard
    /// is freed at once (its memory is what the limit is about).
    fn advance_to(&mut self, py: Python<'_>, until: u64) -> PyResult<()> {
        let Sim { inner, spool, guard, rss, plugins } = self;
        let sim = inner.as_mut().ok_or_else(|| PyValueError::new_err("the simulation was finished"))?;
        let out = match plugins {
            Some(f) => advance_guarded(sim, spool, guard, rss, until, Some(f)),
            None => py.allow_threads(|| advance_guarded(sim, spool, guard, rss, until, None)),
        };
        match out {
            Ok(()) => Ok(()),
            Err(Stop::Py(e)) => Err(e),
            Err(Stop::Memory(e)) => {
                self.inner = None;
                self.spool = Spool::new();
                Err(MemoryLimitExceeded::new_err((e.to_string(), e.path, e.message)))
            }
        }
    }
}

#[pymethods]
impl Sim {
    /// Builds a simulation from TOML text; trace files and the modules of Python congestion
    /// controllers resolve against `base_dir` (the modules then on `sys.path`); `classes`
    /// maps `module:Class` to class objects given directly (queue disciplines' modules and
    /// classes alike). A run with Python controllers or queue disciplines holds the GIL; one
    /// whose plug-in raises stops with `ControllerFailed`.
    #[new]
    #[pyo3(signature = (text, base_dir = ".", max_ues = None, max_flows = None, max_memory_mb = None, classes = None))]
    fn new(
        text: &str,
        base_dir: &str,
        max_ues: Option<u64>,
        max_flows: Option<u64>,
        max_memory_mb: Option<u64>,
        classes: Option<Py<PyDict>>,
    ) -> PyResult<Self> {
        let rss = Rss::new();
        let rss_before = rss.bytes();
        let lim = limits(max_ues, max_flows, max_memory_mb);
        // Parsed and checked once: `from_valid` takes the checked scenario as it is.
        let Prepared { sc, traces, positions, factory } = prepare(text, base_dir, &lim, classes)?;
        let guard = MemoryGuard::new(&sc, &lim, rss_before);
        let inner = Simulation::from_valid(sc, &traces, &positions, Some(factory.clone())).map_err(to_py)?;
        let failure = factory.failure();
        if let Some(e) = failure.error() {
            // A controller's `__init__` raised while the flows were built.
            return Err(e);
        }
        let plugins = factory.used().then_some(failure);
        Ok(Self { inner: Some(inner), spool: Spool::new(), guard, rss, plugins })
    }

    /// Advances to simulated time `until_s` seconds (or the end), releasing the GIL; trace
    /// samples move to the spool whenever the simulation holds more than 2^16 of them. A
    /// pending Python signal (Ctrl-C) is checked every simulated second and stops the run
    /// with the handler's exception; the process's resident memory is checked every
    /// simulated second and every 65,536 events, and a run that would pass the memory limit
    /// with what ending it adds is stopped with `MemoryLimitExceeded` (the simulation is
    /// freed).
    fn advance(&mut self, py: Python<'_>, until_s: f64) -> PyResult<()> {
        let until = cellshare_core::time::from_secs_f64(until_s);
        self.advance_to(py, until)
    }

    /// Current simulated time, s.
    #[getter]
    fn now_s(&mut self) -> PyResult<f64> {
        Ok(cellshare_core::time::to_secs_f64(self.sim()?.now()))
    }

    /// Simulated duration, s.
    #[getter]
    fn end_s(&mut self) -> PyResult<f64> {
        Ok(cellshare_core::time::to_secs_f64(self.sim()?.end()))
    }

    /// Whether the run reached its end.
    #[getter]
    fn finished(&mut self) -> PyResult<bool> {
        Ok(self.sim()?.finished())
    }

    /// Results so far as a JSON string, everything in it (as before the spool existed):
    /// trace samples already moved to the spool are not in it, so this is for runs short
    /// enough never to have moved any (fewer than 2^16 samples), e.g. to compare with
    /// `finish()`.
    fn results_json(&mut self, py: Python<'_>) -> PyResult<String> {
        let inner = self.sim()?;
        Ok(py.allow_threads(move || serde_json::to_string(&inner.results()).expect("results serialize")))
    }

    /// Runs to the end (if it is not there, as `advance` does), frees the simulation and
    /// returns its results as a `RunData`: the summary as JSON and the bulky tables in the
    /// spool.
    fn finish(&mut self, py: Python<'_>) -> PyResult<RunData> {
        self.advance_to(py, u64::MAX)?;
        let mut sim = self.inner.take().ok_or_else(|| PyValueError::new_err("the simulation was finished"))?;
        let spool = std::mem::take(&mut self.spool);
        py.allow_threads(move || RunData::build(&mut sim, spool)).map_err(io_err)
    }
}

/// A finished run's results: the summary (JSON; the per-second series and traces taken
/// out) and the tables `flow_trace`, `mode_changes`, `ue_trace`, `flow_series` and
/// `ue_series`, read in batches of Arrow buffers.
#[pyclass(module = "cellshare._core")]
struct RunData {
    summary: String,
    owners: Owners,
    spool: Spool,
}

impl RunData {
    fn build(sim: &mut Simulation, mut spool: Spool) -> std::io::Result<RunData> {
        let end = sim.end();
        sim.advance(end);
        drain(sim, &mut spool)?;
        let mut r = sim.results();
        let owners = Owners {
            names: r.flows.iter().map(|f| f.name.clone()).collect(),
            classes: r.flows.iter().map(|f| if f.class == cellshare_core::TrafficClass::Background { "background" } else { "foreground" }).collect(),
            categories: r.flows.iter().map(|f| f.category.clone()).collect(),
            n_ues: r.ues.len(),
        };
        for f in r.flows.iter_mut() {
            spool.push_series(3, f.id as usize, f.series_start_s, &std::mem::take(&mut f.per_second_mbps))?;
        }
        for u in r.ues.iter_mut() {
            spool.push_series(4, u.id as usize, 0, &std::mem::take(&mut u.per_second_mbps))?;
        }
        let summary = serde_json::to_string(&r).expect("results serialize");
        Ok(RunData { summary, owners, spool })
    }

    fn table(name: &str) -> PyResult<usize> {
        spool::table_id(name).ok_or_else(|| PyKeyError::new_err(format!("no spooled table {name:?}")))
    }
}

#[pymethods]
impl RunData {
    /// The results as JSON: what `Sim.results_json` gave, with every flow's and UE's
    /// `per_second_mbps` and `trace` (and flows' `mode_changes`) left empty.
    fn summary_json(&self) -> &str {
        &self.summary
    }

    /// Names of the spooled tables.
    #[staticmethod]
    fn tables() -> Vec<&'static str> {
        TABLES.iter().map(|t| t.name).collect()
    }

    /// Rows of table `name`.
    fn rows(&self, name: &str) -> PyResult<u64> {
        Ok(self.spool.total_rows(Self::table(name)?))
    }

    /// Bytes spooled, and whether they went to a temporary file.
    fn spool_info(&self) -> (u64, bool) {
        (self.spool.bytes(), self.spool.on_disk())
    }

    /// Rows `[start, start + max_rows)` of table `name` (owner-major) in Arrow layout:
    /// `(rows, columns)`, each column `("fixed", validity or None, null count, data)` or
    /// `("utf8", offsets, data)`, in the table's column order. Each column is built in Rust
    /// and copied into Python bytes before the next one is built, so a batch costs its size
    /// once, not twice.
    fn batch(&self, py: Python<'_>, name: &str, start: u64, max_rows: u64) -> PyResult<(u64, PyObject)> {
        let t = Self::table(name)?;
        let parts = self.spool.plan(t, &self.owners, start, max_rows.max(1));
        let out = PyList::empty_bound(py);
        for c in 0..TABLES[t].prefix.len() + TABLES[t].cols.len() {
            let col = py.allow_threads(|| self.spool.column(t, &self.owners, &parts, c)).map_err(io_err)?;
            match col {
                ArrowCol::Fixed(valid, nulls, data) => {
                    let v = valid.map(|b| PyBytes::new_bound(py, &b).into_any().unbind()).unwrap_or_else(|| py.None());
                    out.append(("fixed", v, nulls, PyBytes::new_bound(py, &data)))?;
                }
                ArrowCol::Utf8(offs, data) => out.append(("utf8", PyBytes::new_bound(py, &offs), PyBytes::new_bound(py, &data)))?,
            }
        }
        Ok((parts.iter().map(|p| p.2).sum(), out.into_any().unbind()))
    }

    /// One flow's or UE's column `column` of table `name` as a list (floats, with None where
    /// the value is not finite, as JSON had it; ints; bools).
    fn column(&self, py: Python<'_>, name: &str, owner: usize, column: &str) -> PyResult<PyObject> {
        let t = Self::table(name)?;
        let Some((ty, b)) = self.spool.owner_column(t, owner, column).map_err(io_err)? else {
            return Err(PyKeyError::new_err(format!("table {name:?} has no column {column:?}")));
        };
        // Spooled columns are fixed-width (the spool's tests check it against the contract).
        let it = b.chunks_exact(ty.width().max(1));
        Ok(match ty {
            Ty::F64 => {
                let v: Vec<Option<f64>> = it.map(|c| Some(f64::from_le_bytes(c.try_into().expect("8"))).filter(|x| x.is_finite())).collect();
                v.into_py(py)
            }
            Ty::Bool => it.map(|c| c[0] != 0).collect::<Vec<bool>>().into_py(py),
            Ty::U8 => it.map(|c| c[0] as u64).collect::<Vec<u64>>().into_py(py),
            Ty::U16 => it.map(|c| u16::from_le_bytes(c.try_into().expect("2")) as u64).collect::<Vec<u64>>().into_py(py),
            Ty::U32 => it.map(|c| u32::from_le_bytes(c.try_into().expect("4")) as u64).collect::<Vec<u64>>().into_py(py),
            Ty::U64 => it.map(|c| u64::from_le_bytes(c.try_into().expect("8"))).collect::<Vec<u64>>().into_py(py),
            Ty::I64 => it.map(|c| i64::from_le_bytes(c.try_into().expect("8"))).collect::<Vec<i64>>().into_py(py),
            Ty::Utf8 => return Err(PyKeyError::new_err(format!("table {name:?}: column {column:?} is not spooled"))),
        })
    }
}

/// Parses and validates an LLN scenario (TOML text with an `[lln]` table), building its
/// topology; raises `ScenarioInvalid`.
#[pyfunction]
fn lln_validate(text: &str) -> PyResult<()> {
    let sc = cellshare_lln::LlnScenario::from_toml_str(text).map_err(to_py)?;
    cellshare_lln::LlnSimulation::new(&sc).map_err(to_py)?;
    Ok(())
}

/// Runs an LLN scenario to the end (releasing the GIL) and returns its results as JSON.
#[pyfunction]
fn lln_run(py: Python<'_>, text: &str) -> PyResult<String> {
    let sc = cellshare_lln::LlnScenario::from_toml_str(text).map_err(to_py)?;
    let sim = cellshare_lln::LlnSimulation::new(&sc).map_err(to_py)?;
    Ok(py.allow_threads(move || serde_json::to_string(&sim.run()).expect("results serialize")))
}

/// The LLN scenario JSON Schema, as a JSON string.
#[pyfunction]
fn lln_scenario_schema() -> String {
    cellshare_lln::scenario_schema().to_string()
}

/// The `cellshare-emu` command line (`cellshare_emu::cli`), run in this process: `argv`
/// holds the program name first, `exe` the executable the emulator starts for its traffic
/// tool (the package's `cellshare-emu` console script, since this process is a Python
/// interpreter). Releases the GIL; returns the exit code. The installed package's
/// `cellshare-emu` console script (`cellshare._emu`) calls it, so `pip install` installs the
/// emulator with the simulator, from one build (`docs/emulator.md`).
#[cfg(target_os = "linux")]
#[pyfunction]
fn emu_main(py: Python<'_>, argv: Vec<std::ffi::OsString>, exe: std::path::PathBuf) -> u8 {
    cellshare_emu::set_self_exe(exe);
    py.allow_threads(move || cellshare_emu::cli::main_with_args(argv))
}

/// The extension module.
/// The names of the Mahimahi traces compiled into cellshare (a scenario names one as
/// `file = "builtin:NAME"`; the files are `cellshare/data/traces/NAME`).
#[pyfunction]
fn builtin_traces() -> Vec<&'static str> {
    cellshare_channel::builtin::names().collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioInvalid", m.py().get_type_bound::<ScenarioInvalid>())?;
    m.add("MemoryLimitExceeded", m.py().get_type_bound::<MemoryLimitExceeded>())?;
    m.add("ControllerFailed", m.py().get_type_bound::<ControllerFailed>())?;
    plugins::register(m)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(result_contract, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_traces, m)?)?;
    m.add_function(wrap_pyfunction!(lln_validate, m)?)?;
    m.add_function(wrap_pyfunction!(lln_run, m)?)?;
    m.add_function(wrap_pyfunction!(lln_scenario_schema, m)?)?;
    #[cfg(target_os = "linux")]
    m.add_function(wrap_pyfunction!(emu_main, m)?)?;
    m.add_class::<Sim>()?;
    m.add_class::<RunData>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
