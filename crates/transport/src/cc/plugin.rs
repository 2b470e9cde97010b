//! The data and the factory of controllers written outside this crate (`cc = { kind =
//! "python" }`): [`ExternalConfig`], what a scenario gives, and [`ExternalCc`], what builds
//! them. How such an entry is validated and built is in `external.rs`.

use std::fmt::Debug;

use super::{CcContext, CongestionControl};

/// A controller written in Python: a subclass of `cellshare.plugins.CongestionControl`
/// (docs/extending/python.md). Runs only from Python (`cellshare run`, `cellshare.run`);
/// the emulator (real Linux TCP) refuses it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExternalConfig {
    /// The class, `"module:Class"`: a module found in the scenario file's folder first, then
    /// on Python's `sys.path` (dotted names for packages), and a class in it.
    pub class: String,
    /// The class's own parameters (its `PARAMS` declares them and their defaults; keys it
    /// does not declare are refused). Default: none, every parameter at its default.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
}

/// Builds the controllers a scenario names as [`ExternalConfig`] (`kind = "python"`).
///
/// The simulator calls [`ExternalCc::check`] for every such entry before it builds
/// anything, then [`ExternalCc::build`] once per flow (workload flows as they arrive,
/// during the run). Building cannot fail: a controller whose construction fails is
/// returned anyway and the factory records the error for its caller to stop the run with
/// (the simulator itself has no notion of a failing controller).
pub trait ExternalCc: Debug + Send + Sync {
    /// Checks one entry (the class can be found and is a controller, the parameters are
    /// its own and in range). On error: (key below the `cc` table, e.g. `class` or
    /// `params.beta`; the value found; what was expected).
    fn check(&self, cfg: &ExternalConfig) -> Result<(), (String, String, String)>;
    /// Builds the controller of one flow.
    fn build(&self, cfg: &ExternalConfig, ctx: &CcContext) -> Box<dyn CongestionControl>;
}
