//! The registry of apps: one line per app (in `lib.rs`) declares the app's module and makes
//! its configuration a variant of [`AppConfig`](crate::AppConfig) (selected by `kind`, the variant's name in
//! snake case), its running state a variant of [`Session`](crate::Session) and its measurements a variant of
//! [`Report`](crate::Report). The engine knows apps only through these three enums (it dispatches over them,
//! no trait objects).
//!
//! A line is the variant's doc comment (it is the `kind`'s description in the scenario
//! reference) and `Variant(module::ConfigType),`, where `module` is the app's file
//! (`src/<module>.rs`) and `ConfigType` implements [`AppSpec`](crate::AppSpec); optionally behind a
//! `#[cfg(...)]` and with a `#[path = "..."]` for a file kept elsewhere:
//!
//! ```text
//! /// A messenger-like ping over the flow's TCP transport.
//! Ping(ping::PingConfig),
//! ```

/// Declares the apps' modules, [`AppConfig`](crate::AppConfig), [`Session`](crate::Session)
/// and [`Report`](crate::Report) (invoked once, in `lib.rs`, so that each `module` is the
/// file `src/module.rs`): see the module documentation.
macro_rules! registry {
    ($(
        $(#[doc = $doc:literal])*
        $(#[cfg($cfg:meta)])?
        $(#[path = $path:literal])?
        $variant:ident($module:ident :: $params:ident),
    )*) => {
        $(
            $(#[cfg($cfg)])?
            $(#[path = $path])?
            pub mod $module;
        )*

        /// `flows[i].app`: an application (`kind` selects it): an interactive request/response
        /// app (ping, game, voip) or a video call, an adaptive stream or web page loads.
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        #[non_exhaustive]
        pub enum AppConfig {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? $variant($module::$params), )*
        }

        /// A running app of any kind.
        #[derive(Debug)]
        pub enum Session {
            $( $(#[cfg($cfg)])? #[allow(missing_docs)] $variant(Box<<$module::$params as AppSpec>::App>), )*
        }

        /// What an app measured.
        #[derive(Clone, Debug, serde::Serialize)]
        #[serde(untagged)]
        pub enum Report {
            $( $(#[cfg($cfg)])? #[allow(missing_docs)] $variant(<<$module::$params as AppSpec>::App as App>::Report), )*
        }

        impl AppConfig {
            /// The app's `kind`.
            pub fn kind(&self) -> &'static str {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(_) => <$module::$params as AppSpec>::KIND, )* }
            }
            /// See [`AppSpec::legs`].
            pub fn legs(&self) -> Vec<LegSpec> {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(c) => c.legs(), )* }
            }
            /// See [`AppSpec::validate`].
            pub fn check(&self) -> Result<(), ParamError> {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(c) => c.validate(), )* }
            }
            /// See [`AppSpec::TRANSPORT`].
            pub fn transport(&self) -> TransportKind {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(_) => <$module::$params as AppSpec>::TRANSPORT, )* }
            }
            /// See [`AppSpec::DOWNLINK_ONLY`].
            pub fn downlink_only(&self) -> bool {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(_) => <$module::$params as AppSpec>::DOWNLINK_ONLY, )* }
            }
            /// See [`AppSpec::NEEDS_UPLINK`].
            pub fn needs_uplink(&self) -> bool {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(_) => <$module::$params as AppSpec>::NEEDS_UPLINK, )* }
            }
            /// See [`AppSpec::memory`].
            pub fn memory(&self, ctx: &MemoryContext) -> MemoryUse {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(c) => c.memory(ctx), )* }
            }
            /// The running app (see [`AppSpec::build`]).
            pub fn build(&self, ctx: &AppContext) -> Session {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(c) => Session::$variant(Box::new(c.build(ctx))), )* }
            }
        }

        impl Session {
            /// See [`App::start`].
            pub fn start(&mut self, now: Nanos, io: &mut Io) {
                match self { $( $(#[cfg($cfg)])? Session::$variant(a) => a.start(now, io), )* }
            }
            /// See [`App::stop`].
            pub fn stop(&mut self, now: Nanos, io: &mut Io) {
                match self { $( $(#[cfg($cfg)])? Session::$variant(a) => a.stop(now, io), )* }
            }
            /// See [`App::on_timer`].
            #[inline]
            pub fn on_timer(&mut self, now: Nanos, io: &mut Io) {
                match self { $( $(#[cfg($cfg)])? Session::$variant(a) => a.on_timer(now, io), )* }
            }
            /// See [`App::on_bytes`].
            #[inline]
            pub fn on_bytes(&mut self, now: Nanos, leg: u8, delivered: u64, io: &mut Io) {
                match self { $( $(#[cfg($cfg)])? Session::$variant(a) => a.on_bytes(now, leg, delivered, io), )* }
            }
            /// See [`App::on_datagram`].
            #[inline]
            pub fn on_datagram(&mut self, now: Nanos, leg: u8, d: &Datagram, io: &mut Io) {
                match self { $( $(#[cfg($cfg)])? Session::$variant(a) => a.on_datagram(now, leg, d, io), )* }
            }
            /// See [`App::next_timer`].
            #[inline]
            pub fn next_timer(&self) -> Option<Nanos> {
                match self { $( $(#[cfg($cfg)])? Session::$variant(a) => a.next_timer(), )* }
            }
            /// See [`App::report`].
            pub fn report(&self, end: Nanos, legs: &[LegCounts]) -> Report {
                match self { $( $(#[cfg($cfg)])? Session::$variant(a) => Report::$variant(App::report(&**a, end, legs)), )* }
            }
        }

        impl Report {
            /// See [`AppReport::TABLE`].
            pub fn table(&self) -> &'static str {
                match self { $( $(#[cfg($cfg)])? Report::$variant(r) => $crate::registry::table_of(r), )* }
            }
            /// See [`AppReport::flow_record`].
            pub fn flow_record(&self) -> Option<&RttReport> {
                match self { $( $(#[cfg($cfg)])? Report::$variant(r) => r.flow_record(), )* }
            }
        }
    };
}

pub(crate) fn table_of<R: crate::AppReport>(_: &R) -> &'static str {
    R::TABLE
}
