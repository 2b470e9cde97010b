//! The macro behind the registry in `lib.rs`: from one line per discipline it generates the
//! scenario's [`crate::AqmConfig`] (serde and JSON-schema shape: `kind` selects the
//! variant), the per-packet [`crate::Aqm`] and [`crate::Dropper`] enums with their `match`
//! dispatch (static, no trait objects), and [`crate::AqmConfig`]'s name, validation,
//! construction and memory bound.
//!
//! A line reads
//!
//! ```text
//! /// The variant's documentation (the scenario reference shows it).
//! "kind" => ConfigVariant(ConfigType) -> DisciplineVariant(DisciplineType),
//! ```
//!
//! where `ConfigType` implements [`crate::QueueConfig`] (in the `queue` list) or
//! [`crate::DropperConfig`] (in the `cell` list) and `DisciplineType` is its discipline, or
//! a `Box` of it for a large one (the enum stays as small as its largest unboxed member).
//! An optional `#[cfg(...)]` after the documentation compiles the line conditionally; such a
//! line is left out of the kind lists the documentation and messages quote.

/// `"a"`, `"a or b"`, `"a, b or c"`: a list of literals as one string literal.
macro_rules! or_list {
    ($only:literal) => { $only };
    ($a:literal, $b:literal) => { concat!($a, " or ", $b) };
    ($a:literal, $($rest:literal),+) => { concat!($a, ", ", or_list!($($rest),+)) };
}

/// [`or_list!`] of the kinds not under a cfg attribute: `(cfg-or-nothing) "kind"` pairs in.
macro_rules! unconditional_kinds {
    ([$($done:literal)*]) => { or_list!($($done),*) };
    ([$($done:literal)*] () $kind:literal $($rest:tt)*) => { unconditional_kinds!([$($done)* $kind] $($rest)*) };
    ([$($done:literal)*] ($($cfg:tt)+) $kind:literal $($rest:tt)*) => { unconditional_kinds!([$($done)*] $($rest)*) };
}

/// Generates the registry; see the module documentation.
macro_rules! registry {
    (
        queue {
            $( $(#[doc = $qdoc:literal])* $(#[cfg($qcfg:meta)])? $qkind:literal => $QVar:ident($QCfg:ty) -> $AVar:ident($ATy:ty), )*
        }
        cell {
            $( $(#[doc = $cdoc:literal])* $(#[cfg($ccfg:meta)])? $ckind:literal => $CVar:ident($CCfg:ty) -> $DVar:ident($DTy:ty), )*
        }
    ) => {
        /// The per-queue disciplines' kinds as one string literal, `"tail_drop, …, pie or
        /// bode"` (the lines under a cfg attribute left out).
        macro_rules! per_queue_kinds {
            () => { unconditional_kinds!([] $( ($($qcfg)?) $qkind )*) };
        }

        /// A queue discipline (`kind` selects it). Every discipline also enforces a hard limit:
        /// `cell.rlc_queue_bytes` (or, inside a DiffServ class, the class's `queue_bytes`), or
        /// `limit_packets` packets when given.
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
        #[serde(tag = "kind", deny_unknown_fields)]
        pub enum AqmConfig {
            $( $(#[doc = $qdoc])* $(#[cfg($qcfg)])? #[serde(rename = $qkind)] $QVar($QCfg), )*
            $( $(#[doc = $cdoc])* $(#[cfg($ccfg)])? #[serde(rename = $ckind)] $CVar($CCfg), )*
            /// DiffServ: each UE's queue split into classes served in strict priority, each with its
            /// own discipline.
            #[serde(rename = "diffserv")]
            Diffserv($crate::DiffServConfig),
        }

        impl AqmConfig {
            /// The discipline's name, as written in `kind`.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( $(#[cfg($qcfg)])? AqmConfig::$QVar(_) => $qkind, )*
                    $( $(#[cfg($ccfg)])? AqmConfig::$CVar(_) => $ckind, )*
                    AqmConfig::Diffserv(_) => "diffserv",
                }
            }

            /// Checks the parameters; `at` is the key path of the table (e.g. `cell.aqm`),
            /// `per_queue` restricts it to the disciplines a single queue can run (a
            /// DiffServ class's).
            pub(crate) fn check(&self, at: &str, per_queue: bool) -> Result<(), cellshare_core::ScenarioError> {
                use cellshare_core::ScenarioError;
                let wrap = |(k, v, e): $crate::ParamError| ScenarioError::new(format!("{at}.{k}"), v, e);
                let limit = match self {
                    $( $(#[cfg($qcfg)])? AqmConfig::$QVar(c) => {
                        $crate::QueueConfig::validate(c).map_err(wrap)?;
                        $crate::QueueConfig::limit_packets(c)
                    } )*
                    _ if per_queue => {
                        return Err(ScenarioError::new(
                            format!("{at}.kind"),
                            format!("{:?}", self.kind()),
                            concat!("a per-queue discipline inside a DiffServ class: ", per_queue_kinds!()),
                        ));
                    }
                    $( $(#[cfg($ccfg)])? AqmConfig::$CVar(c) => {
                        $crate::DropperConfig::validate(c).map_err(wrap)?;
                        None
                    } )*
                    AqmConfig::Diffserv(d) => {
                        d.validate(at)?;
                        None
                    }
                };
                if limit == Some(0) {
                    return Err(ScenarioError::new(format!("{at}.limit_packets"), 0, "at least 1 packet"));
                }
                Ok(())
            }

            /// The discipline of the queue at `site` whose byte limit is `bytes` (its hard
            /// limit: `limit_packets` when given, else `bytes`). Under a cell-level dropper
            /// or DiffServ (whose classes [`AqmConfig::queue`] builds), tail drop at `bytes`.
            pub fn build(&self, bytes: u64, site: &$crate::QueueSite) -> Aqm {
                match self {
                    $( $(#[cfg($qcfg)])? AqmConfig::$QVar(c) => {
                        let limit = $crate::limit_of($crate::QueueConfig::limit_packets(c), bytes);
                        Aqm::$AVar(<$ATy>::from($crate::QueueConfig::build(c, limit, site)))
                    } )*
                    _ => Aqm::TailDrop($crate::TailDrop { limit: $crate::QueueLimit::Bytes(bytes) }),
                }
            }

            /// The cell-level dropper of the cell at `site` and its active window
            /// ([`crate::DropperConfig::active_window`]), if the configuration names one.
            pub fn dropper(&self, site: &$crate::CellSite) -> Option<(Dropper, cellshare_core::Nanos)> {
                match self {
                    $( $(#[cfg($ccfg)])? AqmConfig::$CVar(c) => Some((
                        Dropper::$DVar(<$DTy>::from($crate::DropperConfig::build(c, site))),
                        $crate::DropperConfig::active_window(c),
                    )), )*
                    _ => None,
                }
            }

            /// Packets a UE's queue holds at its limit when its byte limit is `bytes`,
            /// counting `packet_bytes` bytes a packet (a DiffServ queue's classes together).
            pub fn packets_at_limit(&self, bytes: u64, packet_bytes: u64) -> u64 {
                match self {
                    $( $(#[cfg($qcfg)])? AqmConfig::$QVar(c) => $crate::QueueConfig::packets_at_limit(c, bytes, packet_bytes), )*
                    AqmConfig::Diffserv(d) => d.packets_at_limit(bytes, packet_bytes),
                    _ => bytes.div_ceil(packet_bytes),
                }
            }
        }

        /// A queue discipline chosen by the scenario, one variant per registered discipline.
        #[derive(Debug)]
        pub enum Aqm {
            $( $(#[doc = $qdoc])* $(#[cfg($qcfg)])? $AVar($ATy), )*
        }

        impl QueueDiscipline for Aqm {
            #[inline]
            fn on_enqueue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> EnqueueVerdict {
                match self {
                    $( $(#[cfg($qcfg)])? Aqm::$AVar(d) => d.on_enqueue(now, pkt, q), )*
                }
            }

            #[inline]
            fn on_dequeue(&mut self, now: Nanos, pkt: &Packet, q: &QueueView) -> DequeueVerdict {
                match self {
                    $( $(#[cfg($qcfg)])? Aqm::$AVar(d) => d.on_dequeue(now, pkt, q), )*
                }
            }

            #[inline]
            fn fits(&self, size: u32, q: &QueueView) -> bool {
                match self {
                    $( $(#[cfg($qcfg)])? Aqm::$AVar(d) => d.fits(size, q), )*
                }
            }
        }

        /// A cell-level dropper chosen by the scenario, one variant per registered dropper.
        #[derive(Clone, Debug)]
        pub enum Dropper {
            $( $(#[doc = $cdoc])* $(#[cfg($ccfg)])? $DVar($DTy), )*
        }

        impl CellDropper for Dropper {
            #[inline]
            fn on_arrival(&mut self, now: Nanos, pkt: &Packet, signals: &CellSignals) -> EnqueueVerdict {
                match self {
                    $( $(#[cfg($ccfg)])? Dropper::$DVar(d) => d.on_arrival(now, pkt, signals), )*
                }
            }

            fn needs(&self) -> SignalNeeds {
                match self {
                    $( $(#[cfg($ccfg)])? Dropper::$DVar(d) => d.needs(), )*
                }
            }
        }
    };
}
