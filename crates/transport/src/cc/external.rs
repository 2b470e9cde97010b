//! Controllers written outside this crate: `cc = { kind = "python", class = "module:Class",
//! params = { ... } }`.
//!
//! The crate knows nothing of Python. A scenario names the controller's class and its
//! parameters ([`ExternalConfig`]); whoever builds the simulation supplies an
//! [`ExternalCc`] factory (the Python bindings' is `crates/py/src/plugins.rs`), which checks
//! the entry before the run and builds one [`CongestionControl`] per flow. Without a
//! factory (the Rust API's `Simulation::new`), a scenario naming such a controller is
//! refused before anything is built. docs/extending/python.md is the user's guide.

pub use super::plugin::ExternalConfig;
use super::plugin::ExternalCc;
use super::registry::CcParams;
use super::{CcContext, CongestionControl};

/// Whether `s` is a dotted name of identifiers (`a.b_c.d`): what a module path can be.
fn dotted(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|p| {
            let mut c = p.chars();
            c.next().is_some_and(|f| f.is_alphabetic() || f == '_')
                && c.all(|x| x.is_alphanumeric() || x == '_')
        })
}

impl CcParams for ExternalConfig {
    /// Checks the form of `class` (whether it imports is the factory's check, which runs
    /// the Python code).
    fn validate(&self) -> Result<(), String> {
        let ok = self.class.split_once(':').is_some_and(|(m, c)| {
            dotted(m) && !c.is_empty() && !c.contains(':') && !c.chars().any(char::is_whitespace)
        });
        if !ok {
            return Err(format!(
                "class must be \"module:Class\" (a Python module, dotted for a package, and a class in it), got {:?}",
                self.class
            ));
        }
        Ok(())
    }

    /// Only the factory builds these ([`CcParams::build_with`]); the simulator refuses a
    /// scenario naming one when it has no factory, so this is never reached from it.
    fn build(&self, _ctx: &CcContext) -> Box<dyn CongestionControl> {
        panic!(
            "cc kind \"python\" ({}) is built by an ExternalCc factory (Simulation::with_plugins), and none was given",
            self.class
        )
    }

    fn build_with(
        &self,
        ctx: &CcContext,
        external: Option<&dyn ExternalCc>,
    ) -> Box<dyn CongestionControl> {
        match external {
            Some(f) => f.build(self, ctx),
            None => self.build(ctx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(class: &str) -> ExternalConfig {
        ExternalConfig {
            class: class.into(),
            params: Default::default(),
        }
    }

    #[test]
    fn class_must_name_a_module_and_a_class() {
        for ok in ["m:C", "pkg.mod:Outer.Inner", "_x:C", "mod:f.<locals>.C"] {
            assert_eq!(cfg(ok).validate(), Ok(()), "{ok}");
        }
        for bad in [
            "", "m", ":C", "m:", "a b:C", "m:C D", "1m:C", "m..x:C", "m:C:D",
        ] {
            let e = cfg(bad).validate().unwrap_err();
            assert!(
                e.starts_with("class must be \"module:Class\""),
                "{bad}: {e}"
            );
            assert!(e.ends_with(&format!("got {bad:?}")), "{bad}: {e}");
        }
    }

    #[derive(Debug)]
    struct Fixed;

    impl ExternalCc for Fixed {
        fn check(&self, _: &ExternalConfig) -> Result<(), (String, String, String)> {
            Ok(())
        }
        fn build(&self, _: &ExternalConfig, ctx: &CcContext) -> Box<dyn CongestionControl> {
            Box::new(crate::cc::reno::Reno::new(
                &Default::default(),
                ctx.mss,
                3 * ctx.initial_window,
            ))
        }
    }

    #[test]
    fn the_factory_builds_the_controller() {
        let c = crate::cc::CcConfig::Python(cfg("m:C"));
        let built = c.build_with(1000, 10_000, 1, 0, Some(&Fixed));
        assert_eq!(built.cwnd(), 30_000);
    }
}
