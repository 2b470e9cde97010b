//! The registry of apps: one line per app makes its configuration a variant of
//! [`AppConfig`] (selected by `kind`, the variant's name in snake case), its running state a
//! variant of [`Session`] and its measurements a variant of [`Report`]. The engine knows
//! apps only through these three enums (it dispatches over them, no trait objects).
//!
//! A line is the variant's doc comment (it is the `kind`'s description in the scenario
//! reference) and `Variant(ConfigType),` where `ConfigType` implements [`AppSpec`].

use cellshare_core::Nanos;
use serde::{Deserialize, Serialize};

use crate::{App, AppContext, AppReport, AppSpec, Datagram, Io, LegCounts, LegSpec, ParamError, RttReport, TransportKind};

/// Declares the apps: see the module documentation.
macro_rules! registry {
    ($( $(#[doc = $doc:literal])* $(#[cfg($cfg:meta)])? $variant:ident($config:ty), )*) => {
        /// `flows[i].app`: an application (`kind` selects it): an interactive request/response
        /// app (ping, game, voip) or a video call, an adaptive stream or web page loads.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        #[non_exhaustive]
        pub enum AppConfig {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? $variant($config), )*
        }

        /// A running app of any kind.
        #[derive(Debug)]
        pub enum Session {
            $( $(#[cfg($cfg)])? #[allow(missing_docs)] $variant(Box<<$config as AppSpec>::App>), )*
        }

        /// What an app measured.
        #[derive(Clone, Debug, Serialize)]
        #[serde(untagged)]
        pub enum Report {
            $( $(#[cfg($cfg)])? #[allow(missing_docs)] $variant(<<$config as AppSpec>::App as App>::Report), )*
        }

        impl AppConfig {
            /// The app's `kind`.
            pub fn kind(&self) -> &'static str {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(_) => <$config as AppSpec>::KIND, )* }
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
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(_) => <$config as AppSpec>::TRANSPORT, )* }
            }
            /// See [`AppSpec::DOWNLINK_ONLY`].
            pub fn downlink_only(&self) -> bool {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(_) => <$config as AppSpec>::DOWNLINK_ONLY, )* }
            }
            /// See [`AppSpec::NEEDS_UPLINK`].
            pub fn needs_uplink(&self) -> bool {
                match self { $( $(#[cfg($cfg)])? AppConfig::$variant(_) => <$config as AppSpec>::NEEDS_UPLINK, )* }
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
                match self { $( $(#[cfg($cfg)])? Report::$variant(r) => table_of(r), )* }
            }
            /// See [`AppReport::flow_record`].
            pub fn flow_record(&self) -> Option<&RttReport> {
                match self { $( $(#[cfg($cfg)])? Report::$variant(r) => r.flow_record(), )* }
            }
        }
    };
}

fn table_of<R: AppReport>(_: &R) -> &'static str {
    R::TABLE
}

registry! {
    /// A messenger-like ping over the flow's TCP transport.
    Ping(crate::ping::PingConfig),
    /// A game-like flow of small frequent messages over the flow's TCP transport.
    Game(crate::game::GameConfig),
    /// VoIP-like: the flow's `cbr` (UDP) transport carries the voice datagrams, each echoed.
    Voip(crate::voip::VoipConfig),
    /// A real-time video call over UDP (`transport = { kind = "udp" }`) whose rate follows
    /// Google Congestion Control; legs `<name>` (media) and `<name>.feedback`. Per-frame
    /// results: the `video_frames` table. See docs/apps.md.
    VideoCall(crate::video_call::VideoCallConfig),
    /// Adaptive video streaming over the flow's TCP transport with an ABR algorithm (BB,
    /// FESTIVE, BOLA, robustMPC); legs `<name>` (chunks) and `<name>.request`. Per-chunk
    /// results: the `stream_chunks` table. Downlink only.
    Stream(crate::stream::StreamConfig),
    /// Web page loads over `connections` persistent TCP connections; legs `<name>`,
    /// `<name>.request`, `<name>.c1`, `<name>.c1.request`, …. Per-page results: the
    /// `page_loads` table. Downlink only.
    Web(crate::web::WebConfig),
    /// A heartbeat: a small request every `interval_ms`, answered by the server; the worked
    /// example of docs/extending/app.md (built with the `example-app` feature only).
    #[cfg(feature = "example-app")]
    Heartbeat(crate::heartbeat::HeartbeatConfig),
}
