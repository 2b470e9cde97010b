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
