//! Game: small frequent messages over TCP, each answered by the server (a ping with a game's
//! defaults; Marble for all). The app is [`crate::ping::RequestResponse`].

use serde::{Deserialize, Serialize};

use crate::ping::RequestResponse;
use crate::{AppContext, AppSpec, LegSpec, MemoryContext, MemoryUse, ParamError, TransportKind};

/// `flows[i].app = { kind = "game", ... }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GameConfig {
    /// Time between requests, ms (0.1 to 3,600,000). Default 100.
    #[serde(default = "default_interval")]
    pub interval_ms: f64,
    /// Request size, payload bytes (≥ 1). Default 64.
    #[serde(default = "default_request")]
    pub request_bytes: u32,
    /// Response size, payload bytes (≥ 1). Default 256.
    #[serde(default = "default_response")]
    pub response_bytes: u32,
}

fn default_interval() -> f64 {
    100.0
}
fn default_request() -> u32 {
    64
}
fn default_response() -> u32 {
    256
}

impl AppSpec for GameConfig {
    type App = RequestResponse;
    const KIND: &'static str = "game";
    const TRANSPORT: TransportKind = TransportKind::Tcp;
    const NEEDS_UPLINK: bool = true;

    fn validate(&self) -> Result<(), ParamError> {
        crate::ping::validate(self.interval_ms, self.request_bytes, self.response_bytes)
    }
    fn legs(&self) -> Vec<LegSpec> {
        crate::ping::legs()
    }
    fn build(&self, ctx: &AppContext) -> RequestResponse {
        RequestResponse::new(Self::KIND, self.interval_ms, self.request_bytes, self.response_bytes, ctx)
    }
    /// A request every `interval_ms` over the active seconds.
    fn memory(&self, ctx: &MemoryContext) -> MemoryUse {
        crate::ping::memory(self.interval_ms, ctx)
    }
}
