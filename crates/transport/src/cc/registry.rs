//! The controllers a scenario can name: [`CcConfig`], one variant per controller.
//!
//! Each controller's file owns its parameters struct (its scenario keys, their defaults and
//! doc comments, which become the scenario reference) and implements [`CcParams`] on it:
//! the validation and the constructor. The registry in `cc/mod.rs` lists them, one entry
//! each:
//!
//! ```text
//! /// Reno/NewReno AIMD (RFC 5681, RFC 6582).
//! "reno" => Reno(reno::RenoConfig),
//! ```
//!
//! — the `kind` a scenario writes (`cc = { kind = "reno", beta = 0.7 }`), the variant, and the
//! module (the file `cc/reno.rs`) with its parameters type; the doc comment describes the
//! controller in the scenario reference. From these lines the macro declares the module and
//! derives the serde/JSON-schema shape (internally tagged by `kind`, unknown keys refused),
//! [`CcConfig::name`], [`CcConfig::validate`] and [`CcConfig::build`].
//! docs/extending/controller.md walks through adding one.

use super::plugin::ExternalCc;
use super::{CcContext, CongestionControl};

/// A controller's parameters, as a scenario gives them: what the registry needs from each
/// controller besides the serde/schemars derives and `Default` (the defaults of its RFC or
/// paper, used for every key the scenario leaves out).
pub trait CcParams {
    /// Checks the parameters. The error is one line naming the key, the value and what was
    /// expected: `key must be EXPECTED, got VALUE` (or `name.key = VALUE: expected
    /// EXPECTED`); a nested table's key is prefixed by its name (`cubic.beta must be ...`).
    fn validate(&self) -> Result<(), String>;
    /// Builds the controller.
    fn build(&self, ctx: &CcContext) -> Box<dyn CongestionControl>;
    /// Builds the controller, through `external` for a controller written outside the crate
    /// ([`super::external::ExternalConfig`]); the controllers compiled in ignore it.
    fn build_with(
        &self,
        ctx: &CcContext,
        _external: Option<&dyn ExternalCc>,
    ) -> Box<dyn CongestionControl> {
        self.build(ctx)
    }
}

/// Declares the controllers' modules and [`CcConfig`] (invoked once, in `cc/mod.rs`, so that
/// each `module` is the file `cc/module.rs`). An entry is `/// description` then
/// `"kind" => Variant(module::Params),`, optionally behind a `#[cfg(...)]` and with a
/// `#[path = "..."]` for a module kept elsewhere.
macro_rules! registry {
    ($(
        $(#[doc = $doc:literal])*
        $(#[cfg($cfg:meta)])?
        $(#[path = $path:literal])?
        $name:literal => $variant:ident($module:ident :: $params:ident),
    )*) => {
        $(
            $(#[cfg($cfg)])?
            $(#[path = $path])?
            pub mod $module;
        )*

        /// A congestion controller and its parameters (`kind` selects it; every other key is the
        /// controller's own, with the defaults of its RFC or paper).
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
        #[serde(tag = "kind", deny_unknown_fields)]
        pub enum CcConfig {
            $(
                $(#[doc = $doc])*
                $(#[cfg($cfg)])?
                #[serde(rename = $name)]
                $variant($module::$params),
            )*
        }

        impl CcConfig {
            /// Every controller's `kind`, in the registry's order.
            pub const NAMES: &'static [&'static str] = &[$($(#[cfg($cfg)])? $name),*];

            /// Short name, e.g. `"cubic"`: the `kind` a scenario writes.
            pub fn name(&self) -> &'static str {
                match self {
                    $($(#[cfg($cfg)])? CcConfig::$variant(_) => $name,)*
                }
            }

            /// Checks the controller's parameters (see [`CcParams::validate`]).
            pub fn validate(&self) -> Result<(), String> {
                match self {
                    $($(#[cfg($cfg)])? CcConfig::$variant(c) => $crate::cc::CcParams::validate(c),)*
                }
            }

            /// Builds the controller for segments of `mss` bytes and an initial window of
            /// `iw` bytes. Controllers that draw random numbers use
            /// `stream_rng(seed, …, index)`: the scenario's seed and the flow's index.
            pub fn build(
                &self,
                mss: u32,
                iw: u64,
                seed: u64,
                index: u64,
            ) -> Box<dyn $crate::cc::CongestionControl> {
                self.build_with(mss, iw, seed, index, None)
            }

            /// [`CcConfig::build`] with the factory of the controllers written outside the
            /// crate (`kind = "python"`, [`ExternalCc`](crate::cc::ExternalCc)), if the
            /// caller has one.
            pub fn build_with(
                &self,
                mss: u32,
                iw: u64,
                seed: u64,
                index: u64,
                external: Option<&dyn $crate::cc::ExternalCc>,
            ) -> Box<dyn $crate::cc::CongestionControl> {
                let ctx = $crate::cc::CcContext { mss, initial_window: iw, seed, index };
                match self {
                    $($(#[cfg($cfg)])? CcConfig::$variant(c) => $crate::cc::CcParams::build_with(c, &ctx, external),)*
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::cc::CcConfig;
    use schemars::_serde_json as json;

    #[test]
    fn every_kind_parses_validates_and_builds_itself() {
        // `python` needs its `class` and a factory (cc/external.rs tests it).
        for &name in CcConfig::NAMES.iter().filter(|&&n| n != "python") {
            let c: CcConfig = json::from_str(&format!(r#"{{"kind":"{name}"}}"#)).unwrap();
            assert_eq!(c.name(), name);
            assert_eq!(c.validate(), Ok(()), "{name}: the defaults are valid");
            let built = c.build(1448, 10 * 1448, 1, 0);
            assert_eq!(built.name(), name);
            assert!(built.cwnd() >= 1448, "{name}: cwnd {}", built.cwnd());
        }
    }
}
