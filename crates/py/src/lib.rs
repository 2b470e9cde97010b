#![allow(unexpected_cfgs)] // pyo3 0.22 macros probe a `gil-refs` feature this crate does not declare
//! Python bindings: the `cellshare._core` extension module.
//!
//! This crate is the only place besides the Python package that performs I/O: it reads the
//! trace files a scenario names (relative to the scenario's folder) and hands the parsed
//! traces to the simulator. Simulation runs release the GIL.

use std::path::Path;
use std::sync::Arc;

use cellshare_channel::MahimahiTrace;
use cellshare_sim::{PositionTraces, Scenario, ScenarioError, Simulation, TraceSet};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(_core, ScenarioInvalid, PyValueError, "A scenario (or a file it names) is invalid. args: (message, key path, detail).");

fn to_py(e: ScenarioError) -> PyErr {
    ScenarioInvalid::new_err((e.to_string(), e.path, e.message))
}

fn load_traces(sc: &Scenario, base_dir: &Path) -> Result<TraceSet, ScenarioError> {
    let mut set = TraceSet::new();
    for (key, file) in sc.trace_files() {
        if set.contains_key(&file) {
            continue;
        }
        let path = base_dir.join(&file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| ScenarioError::new(&key, format!("{:?}", path.display().to_string()), format!("a readable Mahimahi trace file ({e})")))?;
        let trace = MahimahiTrace::parse(&text)
            .map_err(|e| ScenarioError::new(&key, format!("{:?}", path.display().to_string()), format!("a valid Mahimahi trace: {e}")))?;
        set.insert(file, Arc::new(trace));
    }
    Ok(set)
}

fn load_positions(sc: &Scenario, base_dir: &Path) -> Result<PositionTraces, ScenarioError> {
    let mut set = PositionTraces::new();
    for (key, file) in sc.position_files() {
        if set.contains_key(&file) {
            continue;
        }
        let path = base_dir.join(&file);
        let shown = format!("{:?}", path.display().to_string());
        let len = std::fs::metadata(&path).map_err(|e| ScenarioError::new(&key, &shown, format!("a readable position trace file ({e})")))?.len();
        if len > cellshare_ran::mobility::MAX_TRACE_BYTES {
            return Err(ScenarioError::new(&key, &shown, format!("a position trace of at most {} bytes (it has {len})", cellshare_ran::mobility::MAX_TRACE_BYTES)));
        }
        let text = std::fs::read_to_string(&path).map_err(|e| ScenarioError::new(&key, &shown, format!("a readable position trace file ({e})")))?;
        let trace = cellshare_ran::PositionTrace::parse(&text).map_err(|e| ScenarioError::new(&key, &shown, format!("a valid position trace: {e}")))?;
        set.insert(file, Arc::new(trace));
    }
    Ok(set)
}

/// Parses and validates a scenario given as TOML text; raises `ScenarioInvalid`.
/// Trace files are resolved against `base_dir` and checked too.
#[pyfunction]
#[pyo3(signature = (text, base_dir = "."))]
fn validate(text: &str, base_dir: &str) -> PyResult<()> {
    let sc = Scenario::from_toml_str(text).map_err(to_py)?;
    let traces = load_traces(&sc, Path::new(base_dir)).map_err(to_py)?;
    let positions = load_positions(&sc, Path::new(base_dir)).map_err(to_py)?;
    Simulation::with_positions(&sc, &traces, &positions).map_err(to_py)?;
    Ok(())
}

/// The scenario JSON Schema, as a JSON string.
#[pyfunction]
fn scenario_schema() -> String {
    cellshare_sim::schema::scenario_schema().to_string()
}

/// A simulation in progress.
#[pyclass(module = "cellshare._core")]
struct Sim {
    inner: Simulation,
}

#[pymethods]
impl Sim {
    /// Builds a simulation from TOML text; trace files resolve against `base_dir`.
    #[new]
    #[pyo3(signature = (text, base_dir = "."))]
    fn new(text: &str, base_dir: &str) -> PyResult<Self> {
        let sc = Scenario::from_toml_str(text).map_err(to_py)?;
        let traces = load_traces(&sc, Path::new(base_dir)).map_err(to_py)?;
        let positions = load_positions(&sc, Path::new(base_dir)).map_err(to_py)?;
        Ok(Self { inner: Simulation::with_positions(&sc, &traces, &positions).map_err(to_py)? })
    }

    /// Advances to simulated time `until_s` seconds (or the end), releasing the GIL.
    fn advance(&mut self, py: Python<'_>, until_s: f64) {
        let until = cellshare_core::time::from_secs_f64(until_s);
        let inner = &mut self.inner;
        py.allow_threads(|| inner.advance(until));
    }

    /// Current simulated time, s.
    #[getter]
    fn now_s(&self) -> f64 {
        cellshare_core::time::to_secs_f64(self.inner.now())
    }

    /// Simulated duration, s.
    #[getter]
    fn end_s(&self) -> f64 {
        cellshare_core::time::to_secs_f64(self.inner.end())
    }

    /// Whether the run reached its end.
    #[getter]
    fn finished(&self) -> bool {
        self.inner.finished()
    }

    /// Results so far as a JSON string.
    fn results_json(&mut self, py: Python<'_>) -> String {
        // `&mut` because the simulation is `Send` but not `Sync` (endpoints are boxed trait
        // objects); exclusive access lets the GIL go while the JSON is built.
        let inner = &mut self.inner;
        py.allow_threads(move || serde_json::to_string(&inner.results()).expect("results serialize"))
    }
}

/// Runs a scenario to the end and returns its results as a JSON string.
#[pyfunction]
#[pyo3(signature = (text, base_dir = "."))]
fn run(py: Python<'_>, text: &str, base_dir: &str) -> PyResult<String> {
    let mut sim = Sim::new(text, base_dir)?;
    let end = sim.inner.end();
    let inner = &mut sim.inner;
    Ok(py.allow_threads(|| {
        inner.advance(end);
        serde_json::to_string(&inner.results()).expect("results serialize")
    }))
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

/// The extension module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioInvalid", m.py().get_type_bound::<ScenarioInvalid>())?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(lln_validate, m)?)?;
    m.add_function(wrap_pyfunction!(lln_run, m)?)?;
    m.add_function(wrap_pyfunction!(lln_scenario_schema, m)?)?;
    m.add_class::<Sim>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
