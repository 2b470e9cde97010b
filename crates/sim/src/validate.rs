//! Reading a scenario: parsing its TOML ([`Scenario::from_toml_str`]) and checking it
//! ([`Scenario::validate`]): ranges and cross-field rules, each error naming the full key
//! path, the offending value and what was expected, and the [`Limits`] on what a scenario
//! may ask for.
//!
//! A run parses and checks its scenario once: [`Scenario::parse_checked`] (or
//! [`Scenario::checked`]) gives a [`ValidScenario`], which
//! [`crate::Simulation::from_valid`] and [`crate::Simulation::check_inputs`] take as it is.

use cellshare_core::ScenarioError;
use cellshare_ran::{geometry, NetworkConfig};

use crate::apps::{AppConfigExt, Direction};
use crate::channel::{validate_channel, ChannelConfig};
use crate::limits::Limits;
use crate::scenario::{Scenario, UeGroup, UeSelector};
use crate::transport::TransportConfig;

/// The shortest on or off period of an on/off flow, s: one TTI.
const MIN_ON_OFF_S: f64 = 0.001;

/// A transport's range error at `path`: `got V, expected E`, or the message `E` alone when it
/// carries no separate value.
fn transport_error(path: String, value: String, expected: String) -> ScenarioError {
    if value.is_empty() {
        ScenarioError { path, message: expected }
    } else {
        ScenarioError::new(path, value, expected)
    }
}

/// `s` with control characters (a newline in a quoted key) escaped, so an error stays on one
/// line.
fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The key inside a `{ kind = "…", … }` table that a deserialization error is about.
///
/// serde's internally tagged enums (transports, controllers, AQMs, channels, apps, mobility)
/// buffer their whole table before choosing the variant, so `serde_path_to_error`'s path
/// stops at that table (`flows[0].transport`) whatever key inside it was wrong. Given the
/// scenario text, that path and serde's message, this returns the full path of the one key
/// the message is about: the key an `unknown field` message names, or the one scalar value
/// an `invalid type` / `invalid value` / `unknown variant` message quotes (serde quotes it as
/// `string "yes"`, ``integer `3` ``, ``floating point `0.7` ``, ``boolean `true` ``). `None`
/// when the path does not lead to a table, the message quotes nothing, or more than one key
/// matches: the table's path is then the best there is and is kept.
pub fn refine_error_path(text: &str, path: &str, message: &str) -> Option<String> {
    let root: toml::Value = toml::from_str::<toml::Table>(text).ok().map(toml::Value::Table)?;
    let mut v = &root;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, indices) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            v = v.as_table()?.get(name)?;
        }
        for idx in indices.split(|c| c == '[' || c == ']').filter(|s| !s.is_empty()) {
            v = v.as_array()?.get(idx.parse::<usize>().ok()?)?;
        }
    }
    if !v.is_table() {
        return None;
    }
    let quoted = |prefix: &str| -> Option<String> {
        let rest = &message[message.find(prefix)? + prefix.len()..];
        Some(rest.split(", expected").next().unwrap_or(rest).trim().to_string())
    };
    let mut found = Vec::new();
    if let Some(field) = quoted("unknown field ").map(|f| f.trim_matches('`').to_string()) {
        collect(v, "", &mut |key_path, key, _| {
            if key == field {
                found.push(key_path.to_string());
            }
        });
    } else if let Some(unexpected) = quoted("invalid type: ").or_else(|| quoted("invalid value: ")) {
        collect(v, "", &mut |key_path, _, value| {
            if unexpected_form(value).as_deref() == Some(unexpected.as_str()) {
                found.push(key_path.to_string());
            }
        });
    } else if let Some(variant) = quoted("unknown variant ").map(|f| f.trim_matches('`').to_string()) {
        collect(v, "", &mut |key_path, _, value| {
            if value.as_str() == Some(variant.as_str()) {
                found.push(key_path.to_string());
            }
        });
    }
    match found.as_slice() {
        [one] => Some(if path.is_empty() { one.clone() } else { format!("{path}.{one}") }),
        _ => None,
    }
}

/// Calls `f(path, key, value)` for every key of `v`'s tables, depth first (array items as
/// `key[i]`).
fn collect(v: &toml::Value, prefix: &str, f: &mut dyn FnMut(&str, &str, &toml::Value)) {
    match v {
        toml::Value::Table(t) => {
            for (k, item) in t {
                let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                f(&p, k, item);
                collect(item, &p, f);
            }
        }
        toml::Value::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                collect(item, &format!("{prefix}[{i}]"), f);
            }
        }
        _ => {}
    }
}

/// How serde's `Unexpected` prints a scalar (`serde::de::Unexpected`'s `Display`).
fn unexpected_form(v: &toml::Value) -> Option<String> {
    use serde::de::Unexpected;
    Some(match v {
        toml::Value::String(s) => Unexpected::Str(s).to_string(),
        toml::Value::Integer(i) => Unexpected::Signed(*i).to_string(),
        toml::Value::Float(x) => Unexpected::Float(*x).to_string(),
        toml::Value::Boolean(b) => Unexpected::Bool(*b).to_string(),
        _ => return None,
    })
}

/// A scenario that passed [`Scenario::validate_with_limits`], with the limits it was checked
/// against: what building a run ([`crate::Simulation::from_valid`]) and checking its inputs
/// ([`crate::Simulation::check_inputs`]) take without checking it again. Only
/// [`Scenario::checked`] and [`Scenario::parse_checked`] make one.
#[derive(Clone, Debug)]
pub struct ValidScenario {
    scenario: Scenario,
    limits: Limits,
}

impl ValidScenario {
    /// The scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The limits it was checked against.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The scenario, given back.
    pub fn into_scenario(self) -> Scenario {
        self.scenario
    }

    /// The cell's queue-discipline configuration, for attaching what is not part of the
    /// scenario's text: the run-time factory of Python queue disciplines
    /// (`kind = "python"`, which validation does not read). Nothing else may change
    /// through it: the scenario stays the one that was checked.
    pub fn attach_to_aqm(&mut self, attach: impl FnOnce(&mut cellshare_aqm::AqmConfig)) {
        attach(&mut self.scenario.cell.aqm)
    }
}

impl std::ops::Deref for ValidScenario {
    type Target = Scenario;
    fn deref(&self) -> &Scenario {
        &self.scenario
    }
}

impl Scenario {
    /// Parses TOML text. Syntax, type and unknown-key errors name the key path.
    pub fn from_toml_str(text: &str) -> Result<Self, ScenarioError> {
        Self::from_toml_str_with_limits(text, &Limits::default())
    }

    /// [`Scenario::from_toml_str`] checked against `limits` instead of the defaults.
    pub fn from_toml_str_with_limits(text: &str, limits: &Limits) -> Result<Self, ScenarioError> {
        Self::parse_checked(text, limits).map(ValidScenario::into_scenario)
    }

    /// Parses TOML text and checks the scenario against `limits`, once: the errors of
    /// [`Scenario::from_toml_str_with_limits`].
    pub fn parse_checked(text: &str, limits: &Limits) -> Result<ValidScenario, ScenarioError> {
        Self::parse(text)?.checked(limits)
    }

    /// The scenario, checked against `limits` ([`Scenario::validate_with_limits`]).
    pub fn checked(self, limits: &Limits) -> Result<ValidScenario, ScenarioError> {
        self.validate_with_limits(limits)?;
        Ok(ValidScenario { scenario: self, limits: *limits })
    }

    /// Parses TOML text, unchecked.
    fn parse(text: &str) -> Result<Self, ScenarioError> {
        let de = toml::Deserializer::new(text);
        let sc: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { escape_controls(&path) };
            let inner = e.into_inner();
            // One line: the TOML parser's messages can span lines (a syntax error and what
            // it expected), and a key it quotes may hold a newline.
            let mut message = inner.message().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
            let path = refine_error_path(text, &path, &message).unwrap_or(path);
            if let Some(span) = inner.span() {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                message = format!("{message} (line {line})");
            }
            ScenarioError { path, message }
        })?;
        Ok(sc)
    }

    /// Checks every range and cross-field rule, and the default [`Limits`].
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.validate_with_limits(&Limits::default())
    }

    /// Checks every range and cross-field rule, and `limits` (before anything that grows
    /// with the number of UEs or flows).
    pub fn validate_with_limits(&self, limits: &Limits) -> Result<(), ScenarioError> {
        let s = &self.simulation;
        if !(s.duration_s > 0.0 && s.duration_s <= 86_400.0) {
            return Err(ScenarioError::new("simulation.duration_s", s.duration_s, "a duration in seconds in (0, 86400]"));
        }
        if s.trace_interval_ms > 60_000 {
            return Err(ScenarioError::new(
                "simulation.trace_interval_ms",
                s.trace_interval_ms,
                "an interval in milliseconds in [1, 60000], or 0 for no traces",
            ));
        }
        let c = &self.cell;
        if c.is_nr() {
            c.nr.validate().map_err(|(k, v, e)| ScenarioError::new(format!("cell.nr.{k}"), v, e))?;
            if c.link.amc != cellshare_channel::AmcRule::BlerTarget {
                return Err(ScenarioError::new(
                    "cell.link.amc",
                    "\"piro_ew2010\" on an NR cell",
                    "\"bler_target\": an NR UE reports TS 38.214's CQI, the highest meeting cell.link.bler_target",
                ));
            }
        }
        c.n_prb()?;
        if !(c.scheduler.time_constant_tti >= 1.0 && c.scheduler.time_constant_tti.is_finite()) {
            return Err(ScenarioError::new("cell.scheduler.time_constant_tti", c.scheduler.time_constant_tti, "a number of TTIs >= 1"));
        }
        if c.rlc_queue_bytes < 1500 {
            return Err(ScenarioError::new("cell.rlc_queue_bytes", c.rlc_queue_bytes, "at least 1500 bytes (one packet)"));
        }
        c.aqm.validate("cell.aqm")?;
        c.link.validate().map_err(|(k, v, e)| ScenarioError::new(format!("cell.link.{k}"), v, e))?;
        let w = &self.wired;
        for (key, v) in [("wired.remote_rate_mbps", w.remote_rate_mbps), ("wired.backhaul_rate_mbps", w.backhaul_rate_mbps)] {
            // 1 kbit/s to 1 Tbit/s: below, one packet takes hours to serialize.
            if !(v >= 1e-3 && v <= 1e6) {
                return Err(ScenarioError::new(key, v, "a rate in Mbps in [0.001, 1000000]"));
            }
        }
        for (key, v) in [
            ("wired.remote_delay_ms", w.remote_delay_ms),
            ("wired.backhaul_delay_ms", w.backhaul_delay_ms),
            ("wired.uplink_delay_ms", w.uplink_delay_ms),
        ] {
            if !(v >= 0.0 && v <= 10_000.0) {
                return Err(ScenarioError::new(key, v, "a delay in ms in [0, 10000]"));
            }
        }
        if !(w.remote_loss_rate >= 0.0 && w.remote_loss_rate < 1.0) {
            return Err(ScenarioError::new("wired.remote_loss_rate", w.remote_loss_rate, "a probability in [0, 1)"));
        }
        for (key, v) in [("wired.remote_queue_bytes", w.remote_queue_bytes), ("wired.backhaul_queue_bytes", w.backhaul_queue_bytes)] {
            if v < 1500 {
                return Err(ScenarioError::new(key, v, "at least 1500 bytes"));
            }
        }
        if let Some(f) = &self.shared_fifo {
            if !(f.rate_mbps > 0.0 && f.rate_mbps.is_finite()) {
                return Err(ScenarioError::new("shared_fifo.rate_mbps", f.rate_mbps, "a rate in Mbps > 0"));
            }
            if f.queue_bytes < 1500 {
                return Err(ScenarioError::new("shared_fifo.queue_bytes", f.queue_bytes, "at least 1500 bytes"));
            }
        }
        if self.ues.is_empty() {
            return Err(ScenarioError::new("ues", "an empty list", "at least one [[ues]] group"));
        }
        if let Some(net) = &self.network {
            net.validate().map_err(|(k, v, e)| ScenarioError::new(format!("network.{k}"), v, e))?;
            if self.shared_fifo.is_some() {
                return Err(ScenarioError::new("network", "a network with [shared_fifo]", "either [network] or [shared_fifo], not both"));
            }
        }
        for (i, g) in self.ues.iter().enumerate() {
            if g.count == 0 || g.count > 10_000 {
                return Err(ScenarioError::new(format!("ues[{i}].count"), g.count, "a UE count in 1..=10000"));
            }
            if let Some(net) = &self.network {
                validate_network_ue(i, g, net)?;
                check_layers(&format!("ues[{i}].channel"), &g.channel, c)?;
                if let Some(u) = &g.uplink {
                    u.validate(&format!("ues[{i}].uplink"))?;
                    check_layers(&format!("ues[{i}].uplink.channel"), &u.channel, c)?;
                }
                continue;
            }
            if let Some(m) = &g.mobility {
                return Err(ScenarioError::new(
                    format!("ues[{i}].mobility"),
                    format!("{{ kind = {:?} }} without [network]", m.kind()),
                    "a [network] table (UEs move among its cells; one cell is a network of one site)",
                ));
            }
            validate_channel(&format!("ues[{i}].channel"), &g.channel)?;
            check_layers(&format!("ues[{i}].channel"), &g.channel, c)?;
            if let Some(u) = &g.uplink {
                u.validate(&format!("ues[{i}].uplink"))?;
                check_layers(&format!("ues[{i}].uplink.channel"), &u.channel, c)?;
            }
        }
        limits.check(self)?;
        let n_ues = self.n_ues();
        // Each group's end (exclusive) in the UE numbering.
        let ends: Vec<u64> = self
            .ues
            .iter()
            .scan(0u64, |first, g| {
                *first += g.count as u64;
                Some(*first)
            })
            .collect();
        for (i, f) in self.flows.iter().enumerate() {
            let p = |k: &str| format!("flows[{i}].{k}");
            match (&f.ue, &f.ues) {
                (Some(_), Some(_)) => return Err(ScenarioError::new(p("ues"), "both `ue` and `ues`", "exactly one of `ue` and `ues`")),
                (None, None) => return Err(ScenarioError::new(p("ue"), "neither `ue` nor `ues`", "exactly one of `ue` and `ues`")),
                (Some(u), None) if *u >= n_ues => {
                    return Err(ScenarioError::new(p("ue"), u, format!("a UE index below {n_ues} (the scenario has {n_ues} UEs)")))
                }
                (None, Some(UeSelector::List(l))) => {
                    if l.is_empty() {
                        return Err(ScenarioError::new(p("ues"), "[]", "a non-empty list of UE indices or \"all\""));
                    }
                    if let Some(u) = l.iter().find(|&&u| u >= n_ues) {
                        return Err(ScenarioError::new(p("ues"), u, format!("UE indices below {n_ues}")));
                    }
                }
                _ => {}
            }
            if !(f.start_s >= 0.0 && f.start_s.is_finite()) {
                return Err(ScenarioError::new(p("start_s"), f.start_s, "a start time in seconds >= 0"));
            }
            if let Some(stop) = f.stop_s {
                if !(stop > f.start_s) {
                    return Err(ScenarioError::new(p("stop_s"), stop, format!("a stop time after start_s = {}", f.start_s)));
                }
            }
            if f.bytes == Some(0) {
                return Err(ScenarioError::new(p("bytes"), 0, "a flow size in bytes >= 1 (omit it for a bulk flow)"));
            }
            match (f.on_s, f.off_s) {
                (Some(on), Some(off)) => {
                    // At least a TTI (1 ms): shorter periods mean nothing to the cell, and
                    // periods that round to 0 ns would never let simulated time advance.
                    if !(on >= MIN_ON_OFF_S && on.is_finite()) {
                        return Err(ScenarioError::new(p("on_s"), on, "an on period in seconds >= 0.001 (one TTI)"));
                    }
                    if !(off >= MIN_ON_OFF_S && off.is_finite()) {
                        return Err(ScenarioError::new(p("off_s"), off, "an off period in seconds >= 0.001 (one TTI)"));
                    }
                    if f.bytes.is_some() {
                        return Err(ScenarioError::new(p("bytes"), "a size on an on/off flow", "either `bytes` or `on_s`/`off_s`, not both"));
                    }
                }
                (None, None) => {}
                (Some(_), None) => return Err(ScenarioError::new(p("off_s"), "nothing", "`off_s` together with `on_s`")),
                (None, Some(_)) => return Err(ScenarioError::new(p("on_s"), "nothing", "`on_s` together with `off_s`")),
            }
            f.transport.validate().map_err(|(k, v, e)| transport_error(p(&format!("transport.{k}")), v, e))?;
            if let Some(app) = &f.app {
                app.validate(&format!("flows[{i}]"), &f.transport, f.direction)?;
                if f.bytes.is_some() || f.on_s.is_some() {
                    return Err(ScenarioError::new(p("app"), app.kind(), "an app without `bytes`, `on_s` or `off_s`"));
                }
            } else if matches!(f.transport, TransportConfig::Udp {}) {
                return Err(ScenarioError::new(
                    p("transport.kind"),
                    "\"udp\"",
                    "an app that sends its own datagrams (app = { kind = \"video_call\" }), or \"cbr\" / \"tcp\"",
                ));
            }
            // An uplink leg (the flow itself, or a request/response app's response leg) needs
            // the UE's modelled uplink.
            let needs_uplink = f.direction == Direction::Uplink || f.app.as_ref().is_some_and(|a| a.needs_uplink());
            if needs_uplink {
                // The first UE without an uplink: per group for "all" (O(groups)), per UE of
                // a list through the groups' running totals (O(len · log groups)).
                let lacks = |u: u32| {
                    let g = ends.partition_point(|&end| end <= u as u64);
                    self.ues.get(g).is_none_or(|g| g.uplink.is_none())
                };
                let missing = match (&f.ue, &f.ues) {
                    (Some(u), _) => lacks(*u).then_some(*u),
                    (None, Some(UeSelector::List(l))) => l.iter().copied().find(|&u| lacks(u)),
                    _ => self.ues.iter().zip(&ends).find(|(g, _)| g.uplink.is_none()).map(|(g, &end)| (end - g.count as u64) as u32),
                };
                if let Some(u) = missing {
                    let what = if f.direction == Direction::Uplink { "direction" } else { "app" };
                    return Err(ScenarioError::new(
                        p(what),
                        format!("UE {u} without an uplink"),
                        "an `uplink` table in the UE's [[ues]] group (uploads and interactive apps need the modelled uplink)",
                    ));
                }
            }
        }
        if let Some(w) = &self.workload {
            if let UeSelector::List(l) = &w.ues {
                if l.is_empty() {
                    return Err(ScenarioError::new("workload.ues", "[]", "a non-empty list of UE indices or \"all\""));
                }
                if let Some(u) = l.iter().find(|&&u| u >= n_ues) {
                    return Err(ScenarioError::new("workload.ues", u, format!("UE indices below {n_ues}")));
                }
            }
            w.arrivals.validate().map_err(|(k, v, e)| ScenarioError::new(format!("workload.arrivals.{k}"), v, e))?;
            w.transport.validate().map_err(|(k, v, e)| transport_error(format!("workload.transport.{k}"), v, e))?;
            if matches!(w.transport, TransportConfig::Udp {}) {
                return Err(ScenarioError::new("workload.transport.kind", "\"udp\"", "\"tcp\" or \"cbr\" (workload flows have no app to send datagrams)"));
            }
            if !(w.start_s >= 0.0 && w.start_s.is_finite()) {
                return Err(ScenarioError::new("workload.start_s", w.start_s, "a start time in seconds >= 0"));
            }
            if let Some(stop) = w.stop_s {
                if stop.partial_cmp(&w.start_s) != Some(std::cmp::Ordering::Greater) {
                    return Err(ScenarioError::new("workload.stop_s", stop, format!("a stop time after start_s = {}", w.start_s)));
                }
            }
            if self.shared_fifo.is_some() {
                if let cellshare_workload::Arrivals::Poisson(_) = w.arrivals {
                    return Err(ScenarioError::new(
                        "workload.arrivals.kind",
                        "\"poisson\" behind a shared FIFO",
                        "an LTE cell (the load is a PRB utilization), or kind = \"randomized\"",
                    ));
                }
            }
        }
        Ok(())
    }

}

/// A radio channel's `layers` (at `at`) against the cell: 1 or 2 on LTE, at most the UE's
/// capability `cell.nr.ue_max_layers` on NR.
fn check_layers(at: &str, channel: &ChannelConfig, cell: &crate::scenario::CellConfig) -> Result<(), ScenarioError> {
    let ChannelConfig::Radio(r) = channel else { return Ok(()) };
    let (max, expected) = if cell.is_nr() {
        (cell.nr.ue_max_layers, format!("1 to {} (the UE's capability, cell.nr.ue_max_layers)", cell.nr.ue_max_layers))
    } else {
        (2, "1 or 2 on an LTE cell".to_string())
    };
    if r.layers > max {
        return Err(ScenarioError::new(format!("{at}.layers"), r.layers, expected));
    }
    Ok(())
}

/// Checks UE group `i` of a network: a radio channel without a distance (the mobility places
/// the UE) or a fixed interference, and a mobility inside the network's area.
fn validate_network_ue(i: usize, g: &UeGroup, net: &NetworkConfig) -> Result<(), ScenarioError> {
    let ChannelConfig::Radio(r) = &g.channel else {
        return Err(ScenarioError::new(
            format!("ues[{i}].channel.kind"),
            format!("{:?}", g.channel.kind()),
            "\"radio\": a network's UEs receive every cell over radio channels",
        ));
    };
    for (key, given) in [("distance_m", r.distance_m.is_some()), ("distance_range_m", r.distance_range_m.is_some())] {
        if given {
            return Err(ScenarioError::new(
                format!("ues[{i}].channel.{key}"),
                "a distance in a network",
                format!("no `{key}`: a network's UEs are placed by `ues[{i}].mobility` (default: static, drawn over the area)"),
            ));
        }
    }
    if r.interference_dbm.is_some() {
        return Err(ScenarioError::new(
            format!("ues[{i}].channel.interference_dbm"),
            "a fixed interference in a network",
            "no `interference_dbm`: the network's cells interfere (network.interference)",
        ));
    }
    r.validate_link().map_err(|e| ScenarioError::new(format!("ues[{i}].channel.{}", e.field), e.value, e.expected))?;
    if let Some(m) = &g.mobility {
        m.validate(geometry::area(net)).map_err(|(k, v, e)| ScenarioError::new(format!("ues[{i}].mobility.{k}"), v, e))?;
    }
    Ok(())
}

/// Checks the controllers of `sc` written outside the transport crate (`cc = { kind =
/// "python" }`) with `external`, the factory that will build them, and its queue disciplines
/// written outside the aqm crate (`cell.aqm = { kind = "python" }`, also as a DiffServ
/// class's) with the factory attached to each entry; without a factory, the first such
/// controller or discipline is an error (the Rust API runs only what is compiled in).
pub fn check_external(sc: &Scenario, external: Option<&dyn cellshare_transport::cc::ExternalCc>) -> Result<(), ScenarioError> {
    let flows = sc.flows.iter().enumerate().map(|(i, f)| (format!("flows[{i}].transport.cc"), &f.transport));
    let workload = sc.workload.iter().map(|w| ("workload.transport.cc".to_string(), &w.transport));
    for (key, t) in flows.chain(workload) {
        let TransportConfig::Tcp { cc: cellshare_transport::cc::CcConfig::Python(p), .. } = t else { continue };
        let Some(ext) = external else {
            return Err(ScenarioError::new(
                format!("{key}.kind"),
                "\"python\"",
                "a controller compiled into cellshare: a Python controller runs only when the simulation is run from \
                 Python (`cellshare run`, `cellshare.run`)",
            ));
        };
        ext.check(p).map_err(|(k, v, e)| ScenarioError::new(format!("{key}.{k}"), v, e))?;
    }
    check_external_qdiscs(&sc.cell.aqm, "cell.aqm")
}

/// Checks the queue disciplines of `aqm` (at key `at`) written outside the aqm crate
/// (`kind = "python"`) with the factory attached to each; without one, the first such
/// discipline is an error (the Rust API and the emulator run only the disciplines compiled
/// in).
pub fn check_external_qdiscs(aqm: &cellshare_aqm::AqmConfig, at: &str) -> Result<(), ScenarioError> {
    use cellshare_aqm::AqmConfig;
    match aqm {
        AqmConfig::Python(p) => {
            let Some(ext) = &p.factory.0 else {
                return Err(ScenarioError::new(
                    format!("{at}.kind"),
                    "\"python\"",
                    "a queue discipline compiled into cellshare: a Python queue discipline runs only when the \
                     simulation is run from Python (`cellshare run`, `cellshare.run`)",
                ));
            };
            ext.check(p).map_err(|(k, v, e)| ScenarioError::new(format!("{at}.{k}"), v, e))
        }
        AqmConfig::Diffserv(d) => {
            for (i, c) in d.classes.iter().enumerate() {
                check_external_qdiscs(&c.aqm, &format!("{at}.classes[{i}].aqm"))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod external_qdisc_tests {
    use super::check_external_qdiscs;
    use crate::scenario::Scenario;

    #[test]
    fn a_python_queue_discipline_without_a_factory_is_refused_naming_its_key() {
        let base = "[simulation]\nduration_s = 1.0\n[[ues]]\ncount = 1\nchannel = { kind = \"fixed\", rate_mbps = 10.0 }\n";
        let sc = Scenario::from_toml_str(&format!("{base}[cell]\naqm = {{ kind = \"python\", class = \"m:C\" }}\n")).unwrap();
        let e = check_external_qdiscs(&sc.cell.aqm, "cell.aqm").unwrap_err();
        assert_eq!(e.path, "cell.aqm.kind");
        assert!(e.message.starts_with("got \"python\", expected a queue discipline compiled into cellshare"), "{e}");
        assert!(e.message.contains("runs only when the simulation is run from Python"), "{e}");
        let sc = Scenario::from_toml_str(&format!(
            "{base}[cell]\naqm = {{ kind = \"diffserv\", classes = [{{ dscp = [10] }}, {{ aqm = {{ kind = \"python\", class = \"m:C\" }} }}] }}\n"
        ))
        .unwrap();
        assert_eq!(check_external_qdiscs(&sc.cell.aqm, "cell.aqm").unwrap_err().path, "cell.aqm.classes[1].aqm.kind");
        let e = crate::validate::check_external(&sc, None).unwrap_err();
        assert_eq!(e.path, "cell.aqm.classes[1].aqm.kind");
    }
}
