//! Stochastic LTE radio channel. Filled in by the radio model work.

use crate::LinkQuality;

/// Radio channel parameters.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RadioConfig {
    /// Distance from the base station in metres.
    pub distance_m: f64,
}

/// A UE's radio channel.
#[derive(Clone, Debug)]
pub struct RadioChannel {}

impl RadioChannel {
    /// Link quality in TTI `tti`.
    pub fn quality(&mut self, tti: u64) -> LinkQuality {
        let _ = tti;
        LinkQuality::Tbs { itbs: None, layers: 1 }
    }
}

/// A problem with a radio configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigIssue {
    /// Key name.
    pub field: &'static str,
    /// Value found.
    pub value: String,
    /// What was expected.
    pub expected: String,
}

impl RadioConfig {
    /// Checks ranges.
    pub fn validate(&self) -> Result<(), ConfigIssue> {
        Ok(())
    }
}

impl RadioChannel {
    /// Builds the channel.
    pub fn new(cfg: &RadioConfig, n_prb: u32, rng: &mut cellshare_core::StreamRng) -> Self {
        let _ = (cfg, n_prb, rng);
        Self {}
    }
    /// Mean SNR.
    pub fn mean_snr_db(&self) -> f64 {
        0.0
    }
}
