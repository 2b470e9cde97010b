//! The error every scenario parser and validator in cellshare reports.

/// A problem with a scenario: where, what was found, what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Key path, e.g. `cell.bandwidth_mhz`, `ues[2].channel.file` or `lln.nodes[3].parent`.
    pub path: String,
    /// What is wrong, naming the value found and the expectation.
    pub message: String,
}

impl ScenarioError {
    /// An error at `path`: found `value`, expected `expected`.
    pub fn new(path: impl Into<String>, value: impl std::fmt::Display, expected: impl std::fmt::Display) -> Self {
        Self { path: path.into(), message: format!("got {value}, expected {expected}") }
    }
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "`{}`: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}
