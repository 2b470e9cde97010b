//! Flow directions, and the check of a flow entry's app against the entry.
//!
//! The apps themselves — ping, game, voip, video_call, stream, web — live in the
//! `cellshare-apps` crate, one file each, registered in its `registry` (docs/apps.md,
//! docs/extending/app.md). An app runs as a set of legs, each a one-way flow of the engine
//! (`engine/sessions.rs` carries the app's actions to them and their deliveries back).

use serde::{Deserialize, Serialize};

pub use cellshare_apps::AppConfig;
use cellshare_apps::TransportKind;

use cellshare_core::ScenarioError;
use crate::transport::TransportConfig;

/// Where a flow's data goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Server → UE through the cell (or shared FIFO).
    #[default]
    Downlink,
    /// UE → server through the UE's modelled uplink (`ues[i].uplink` required); the
    /// server's ACKs come back through the cell.
    Uplink,
}

impl Direction {
    /// The opposite direction.
    pub fn reverse(self) -> Self {
        match self {
            Direction::Downlink => Direction::Uplink,
            Direction::Uplink => Direction::Downlink,
        }
    }

    /// `"downlink"` or `"uplink"`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Downlink => "downlink",
            Direction::Uplink => "uplink",
        }
    }
}

/// The simulator's checks of an [`AppConfig`] in its flow entry.
pub trait AppConfigExt {
    /// Checks the parameters, then that the transport and the direction fit; `at` is the
    /// flow's key path.
    fn validate(&self, at: &str, transport: &TransportConfig, dir: Direction) -> Result<(), ScenarioError>;
    /// Flows the app creates per UE (its legs).
    fn flow_count(&self) -> u64;
}

impl AppConfigExt for AppConfig {
    fn validate(&self, at: &str, transport: &TransportConfig, dir: Direction) -> Result<(), ScenarioError> {
        self.check().map_err(|(key, v, e)| ScenarioError::new(format!("{at}.app.{key}"), v, e))?;
        let need = self.transport();
        let fits = match need {
            TransportKind::Tcp => matches!(transport, TransportConfig::Tcp { .. }),
            TransportKind::Udp => matches!(transport, TransportConfig::Udp {}),
            TransportKind::Cbr => matches!(transport, TransportConfig::Cbr { .. }),
        };
        if !fits {
            return Err(ScenarioError::new(
                format!("{at}.transport.kind"),
                format!("{:?}", transport.kind()),
                format!("{} for a {} app", need.expected(), self.kind()),
            ));
        }
        if self.downlink_only() && dir != Direction::Downlink {
            return Err(ScenarioError::new(
                format!("{at}.direction"),
                "\"uplink\"",
                format!("\"downlink\" for a {} app (the server sends the content)", self.kind()),
            ));
        }
        Ok(())
    }

    fn flow_count(&self) -> u64 {
        self.legs().len() as u64
    }
}
