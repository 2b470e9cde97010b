//! A UE's channel as the scenario describes it (`ues[i].channel`, `ues[i].uplink.channel`):
//! its configuration, validation and construction.

use cellshare_channel::{Channel, FixedChannel, NrRadio, RadioChannel, RadioConfig, TraceChannel};
use cellshare_core::{ScenarioError, Slot, StreamRng};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::traces::TraceSet;

/// A UE's downlink channel (`kind` selects the model).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ChannelConfig {
    /// Constant bit rate when the UE has the whole cell.
    Fixed {
        /// Rate with all PRBs, Mbps (> 0).
        rate_mbps: f64,
    },
    /// A Mahimahi trace: the UE's capacity when it has the whole cell; repeats at its end.
    Trace {
        /// A trace shipped with cellshare, `"builtin:NAME"` (`builtin:ATT-LTE-driving.down`,
        /// `builtin:TMobile-LTE-driving.down`, `builtin:TMobile-UMTS-driving.down`,
        /// `builtin:Verizon-EVDO-driving.down`, `builtin:NYC-LTE-times-square.down`,
        /// `builtin:NYC-LTE-subway.down` and the `.up` traces of ATT, T-Mobile UMTS and
        /// Verizon; docs/traces.md), or the path of a Mahimahi trace file, relative to the
        /// scenario file's folder.
        file: String,
        /// Start this many ms into the trace. Default 0.
        #[serde(default)]
        offset_ms: u64,
        /// Give each UE of the group its own random start offset (from the seed) instead of
        /// `offset_ms`. Default false.
        #[serde(default)]
        random_offset: bool,
    },
    /// Stochastic LTE radio: path loss, shadowing, fading → CQI → MCS → TBS.
    Radio(RadioConfig),
}

impl ChannelConfig {
    /// The model's name, as written in `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            ChannelConfig::Fixed { .. } => "fixed",
            ChannelConfig::Trace { .. } => "trace",
            ChannelConfig::Radio(_) => "radio",
        }
    }
}

impl Default for ChannelConfig {
    fn default() -> Self {
        ChannelConfig::Fixed { rate_mbps: 20.0 }
    }
}

impl ChannelConfig {
    /// The channel of one UE in a cell of `n_prb` PRBs scheduling every `slot`: a trace from
    /// `traces` (its random offset, when asked for, and a radio channel's draws come from
    /// `rng`); on an NR carrier a radio channel follows `nr`. `at` is the channel's key path,
    /// for the error of a trace that was not loaded.
    pub fn build(
        &self,
        n_prb: u32,
        slot: Slot,
        nr: Option<&NrRadio>,
        traces: &TraceSet,
        rng: &mut StreamRng,
        at: &str,
    ) -> Result<Channel, ScenarioError> {
        Ok(match self {
            ChannelConfig::Fixed { rate_mbps } => Channel::Fixed(FixedChannel::with_slot((rate_mbps * 1e6).round() as u64, slot)),
            ChannelConfig::Trace { file, offset_ms, random_offset } => {
                let trace = traces
                    .get(file)
                    .cloned()
                    .ok_or_else(|| ScenarioError::new(format!("{at}.file"), format!("{file:?}"), "a trace file that was loaded"))?;
                let off = if *random_offset { rng.gen_range(0..trace.period_ms()) } else { *offset_ms };
                Channel::Trace(TraceChannel::with_slot(trace, off, slot))
            }
            ChannelConfig::Radio(r) => {
                let mut c = RadioChannel::new(r, n_prb, rng);
                c.set_slot(slot);
                if let Some(nr) = nr {
                    c.set_nr(nr);
                }
                Channel::Radio(Box::new(c))
            }
        })
    }
}

/// Checks a channel's parameters; `at` is its key path (e.g. `ues[0].channel`).
pub fn validate_channel(at: &str, channel: &ChannelConfig) -> Result<(), ScenarioError> {
    match channel {
        ChannelConfig::Fixed { rate_mbps } => {
            if !(*rate_mbps > 0.0 && rate_mbps.is_finite() && *rate_mbps <= 100_000.0) {
                return Err(ScenarioError::new(format!("{at}.rate_mbps"), rate_mbps, "a rate in Mbps in (0, 100000]"));
            }
        }
        ChannelConfig::Trace { file, .. } => {
            if file.trim().is_empty() {
                return Err(ScenarioError::new(format!("{at}.file"), "an empty path", "the path of a Mahimahi trace file"));
            }
        }
        ChannelConfig::Radio(r) => {
            r.validate().map_err(|e| ScenarioError::new(format!("{at}.{}", e.field), e.value, e.expected))?;
        }
    }
    Ok(())
}
