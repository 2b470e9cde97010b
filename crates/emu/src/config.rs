//! Emulator scenarios: the simulator's scenario format ([`cellshare_sim::Scenario`]) plus an
//! optional `[emulator]` table with what only the emulator needs.

use serde::{Deserialize, Serialize};

use cellshare_sim::scenario::{FlowConfig, UeSelector};
use cellshare_sim::transport::TransportConfig;
use cellshare_sim::{Scenario, ScenarioError};

/// The `[emulator]` table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct EmulatorConfig {
    /// Write every forwarded packet to `emu.pcap` (raw IPv4) in the output folder. Default false.
    pub pcap: bool,
    /// Run the scenario's `[[flows]]` as real TCP transfers with the project's traffic tool
    /// (receiver in the UE's namespace, sender in the server's, the flow's congestion control
    /// set on the socket). Default true.
    pub run_flows: bool,
    /// Before the scenario's clock starts, measure every UE's idle RTT with this many TCP
    /// connection attempts from the server (SYN → RST, one round trip each). 0 disables it.
    /// Default 5.
    pub probe_count: u32,
    /// Run the forwarding loop with real-time priority (SCHED_FIFO) when allowed. Default true.
    pub realtime: bool,
    /// Commands to run inside the namespaces.
    pub commands: Vec<CommandConfig>,
}

impl Default for EmulatorConfig {
    fn default() -> Self {
        Self { pcap: false, run_flows: true, probe_count: 5, realtime: true, commands: Vec::new() }
    }
}

/// A user command run inside a namespace, through `sh -c`, with its output in
/// `commands/N.log`. The environment carries `CELLSHARE_SERVER_ADDR`, `CELLSHARE_UE<i>_ADDR`
/// and `CELLSHARE_EMU` (the emulator binary, whose `traffic` subcommand is the traffic tool).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CommandConfig {
    /// `"server"` or `"ue<i>"` (e.g. `"ue0"`).
    pub ns: String,
    /// The shell command.
    pub cmd: String,
    /// When to start it, seconds after the scenario's clock starts. Default 0.
    #[serde(default)]
    pub start_s: f64,
}

/// A scenario the emulator runs.
#[derive(Clone, Debug)]
pub struct EmuScenario {
    /// The cell, UEs, wired delays and flows, as the simulator reads them.
    pub scenario: Scenario,
    /// Emulator-only settings.
    pub emulator: EmulatorConfig,
}

/// A scenario flow as the emulator runs it: one downlink TCP transfer to one UE.
#[derive(Clone, Debug, PartialEq)]
pub struct EmuFlow {
    /// Index among the expanded flows.
    pub id: u32,
    /// Name (the scenario's, else `flow<id>`).
    pub name: String,
    /// Receiving UE.
    pub ue: u32,
    /// Linux congestion control name.
    pub cc: String,
    /// Foreground or background.
    pub background: bool,
    /// Start, seconds.
    pub start_s: f64,
    /// Stop, seconds (the scenario's end if unset).
    pub stop_s: f64,
    /// Bytes to send (unlimited if unset).
    pub bytes: Option<u64>,
    /// On/off periods, seconds.
    pub on_off: Option<(f64, f64)>,
    /// TCP port of the receiver.
    pub port: u16,
    /// DSCP the sender marks its packets with (IP TOS = dscp << 2); multi-class RLC queues
    /// (`cell.aqm = { kind = "diffserv", ... }`) classify on it.
    pub dscp: u8,
}

/// First receiver port; flow `i` uses `FLOW_PORT_BASE + i`.
pub const FLOW_PORT_BASE: u16 = 15000;

impl EmuScenario {
    /// Parses and validates a scenario. Errors name the key path, the value and what was expected.
    pub fn from_toml_str(text: &str) -> Result<Self, ScenarioError> {
        let mut doc: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| ScenarioError { path: String::new(), message: format!("not valid TOML: {}", e.message()) })?;
        let (emulator, scenario) = match doc.remove("emulator") {
            // Without an `[emulator]` table the text goes to the simulator's parser as written,
            // so its errors carry the right line numbers.
            None => (EmulatorConfig::default(), Scenario::from_toml_str(text)?),
            Some(v) => {
                let emulator = emulator_config(v)?;
                (emulator, Scenario::from_toml_str(&toml::to_string(&doc).expect("a parsed table serializes"))?)
            }
        };
        let s = EmuScenario { scenario, emulator };
        s.validate()?;
        Ok(s)
    }

    /// Checks what only the emulator requires.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let n = self.scenario.n_ues();
        if n > 250 * 250 {
            return Err(ScenarioError::new("ues", n, "at most 62500 UEs in the emulator"));
        }
        for (i, c) in self.emulator.commands.iter().enumerate() {
            parse_ns(&c.ns, n).map_err(|e| ScenarioError::new(format!("emulator.commands[{i}].ns"), format!("{:?}", c.ns), e))?;
            if c.cmd.trim().is_empty() {
                return Err(ScenarioError::new(format!("emulator.commands[{i}].cmd"), "an empty command", "a shell command"));
            }
            if !(c.start_s >= 0.0 && c.start_s.is_finite()) {
                return Err(ScenarioError::new(format!("emulator.commands[{i}].start_s"), c.start_s, "a time in seconds >= 0"));
            }
        }
        // An NR cell runs at every numerology (μ = 0..3, the simulator's range): the loop
        // wakes once per slot, and measured with three real CUBIC flows on the project's
        // loaded 2-core VM it started 99 % of its slots within a slot of their boundary at
        // every μ, 0.125 ms slots included (`tools/emu_nr_measure.py`, tools/data/emu-nr.json,
        // docs/emulator.md "An NR cell"). A run that falls behind says so (`realtime`).
        // The modelled uplink, uploads and interactive apps are simulator-only: the emulator's
        // UEs send over their real namespaces' return path.
        if let Some(i) = self.scenario.ues.iter().position(|g| g.uplink.is_some()) {
            return Err(ScenarioError::new(format!("ues[{i}].uplink"), "an uplink table", "no `uplink` in the emulator (simulator-only)"));
        }
        // Generated workloads create flows as the simulated run goes; the emulator runs the
        // scenario's `[[flows]]` as real transfers only.
        if self.scenario.workload.is_some() {
            return Err(ScenarioError::new(
                "workload",
                "a [workload] table",
                "no `workload` in the emulator (simulator-only; list the flows as [[flows]])",
            ));
        }
        // A Python queue discipline is simulator-only (it needs the Python bindings' factory).
        cellshare_sim::validate::check_external_qdiscs(&self.scenario.cell.aqm, "cell.aqm")?;
        for (i, f) in self.scenario.flows.iter().enumerate() {
            if f.direction != cellshare_sim::apps::Direction::Downlink || f.app.is_some() {
                let key = if f.app.is_some() { "app" } else { "direction" };
                return Err(ScenarioError::new(
                    format!("flows[{i}].{key}"),
                    if f.app.is_some() { "an app" } else { "\"uplink\"" },
                    "downlink bulk flows in the emulator (uploads and apps are simulator-only)",
                ));
            }
        }
        if self.emulator.run_flows {
            for (i, f) in self.scenario.flows.iter().enumerate() {
                if f.dscp > 63 {
                    return Err(ScenarioError::new(
                        format!("flows[{i}].dscp"),
                        f.dscp,
                        "a DSCP in 0..=63 in the emulator (real packets carry it in 6 bits of the IP header)",
                    ));
                }
                if !matches!(f.transport, TransportConfig::Tcp { .. }) {
                    return Err(ScenarioError::new(
                        format!("flows[{i}].transport.kind"),
                        f.transport.kind(),
                        "tcp (the emulator runs TCP flows; run a UDP tool or another transport's own programs through \
                         [emulator].commands)",
                    ));
                }
                if let TransportConfig::Tcp { cc: cellshare_sim::transport::CcConfig::Python(p), .. } = &f.transport {
                    return Err(ScenarioError::new(
                        format!("flows[{i}].transport.cc.kind"),
                        format!("\"python\" ({})", p.class),
                        "a congestion control the kernel runs (Linux's or the project's eBPF ones): the emulator's flows \
                         are real Linux TCP, which cannot call a Python controller (it runs in the simulator only)",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The scenario's flows expanded per UE (a flow with `ues = [..]` or `"all"` becomes one
    /// flow per UE), in scenario order.
    pub fn flows(&self) -> Vec<EmuFlow> {
        let sc = &self.scenario;
        let end = sc.simulation.duration_s;
        let mut out = Vec::new();
        for f in &sc.flows {
            for ue in flow_ues(f, sc.n_ues()) {
                let id = out.len() as u32;
                let TransportConfig::Tcp { cc, .. } = &f.transport else { continue };
                out.push(EmuFlow {
                    id,
                    name: f.name.clone().map(|n| if flow_ues(f, sc.n_ues()).len() > 1 { format!("{n}-ue{ue}") } else { n }).unwrap_or(format!("flow{id}")),
                    ue,
                    // The simulator names its controls as Linux and the eBPF programs do.
                    cc: cc.name().to_string(),
                    background: f.class == cellshare_core::TrafficClass::Background,
                    start_s: f.start_s,
                    stop_s: f.stop_s.unwrap_or(end).min(end),
                    bytes: f.bytes,
                    on_off: match (f.on_s, f.off_s) {
                        (Some(a), Some(b)) => Some((a, b)),
                        _ => None,
                    },
                    port: FLOW_PORT_BASE + id as u16,
                    dscp: f.dscp,
                });
            }
        }
        out
    }
}

fn flow_ues(f: &FlowConfig, n: u32) -> Vec<u32> {
    match (&f.ue, &f.ues) {
        (Some(u), _) => vec![*u],
        (None, Some(UeSelector::List(l))) => l.clone(),
        (None, Some(UeSelector::All(_))) => (0..n).collect(),
        (None, None) => Vec::new(),
    }
}

/// A namespace selector of a command: `None` for the server, `Some(i)` for UE `i`.
pub fn parse_ns(s: &str, n_ues: u32) -> Result<Option<u32>, String> {
    if s == "server" {
        return Ok(None);
    }
    match s.strip_prefix("ue").and_then(|r| r.parse::<u32>().ok()) {
        Some(i) if i < n_ues => Ok(Some(i)),
        _ => Err(format!("\"server\" or \"ue<i>\" with i below {n_ues}")),
    }
}

fn emulator_config(v: toml::Value) -> Result<EmulatorConfig, ScenarioError> {
    let text = toml::to_string(&v).map_err(|e| ScenarioError::new("emulator", e, "a table"))?;
    let de = toml::Deserializer::new(&text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let msg = e.into_inner().message().to_string();
        ScenarioError { path: if path == "." { "emulator".into() } else { format!("emulator.{path}") }, message: msg }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "[simulation]\nduration_s = 5\n[[ues]]\ncount = 2\nchannel = { kind = \"fixed\", rate_mbps = 20.0 }\n[[flows]]\nues = \"all\"\ntransport = { kind = \"tcp\", cc = { kind = \"cubic\" } }\n";

    #[test]
    fn parses_without_emulator_table() {
        let s = EmuScenario::from_toml_str(BASE).unwrap();
        assert_eq!(s.emulator, EmulatorConfig::default());
        let f = s.flows();
        assert_eq!(f.len(), 2);
        assert_eq!((f[1].ue, f[1].cc.as_str(), f[1].port, f[1].stop_s), (1, "cubic", FLOW_PORT_BASE + 1, 5.0));
    }

    #[test]
    fn parses_emulator_table_and_reports_bad_keys() {
        let s = EmuScenario::from_toml_str(&format!(
            "{BASE}[emulator]\npcap = true\ncommands = [{{ ns = \"ue1\", cmd = \"true\", start_s = 1.0 }}]\n"
        ))
        .unwrap();
        assert!(s.emulator.pcap);
        assert_eq!(s.emulator.commands[0].ns, "ue1");
        let e = EmuScenario::from_toml_str(&format!("{BASE}[emulator]\npcapp = true\n")).unwrap_err();
        assert!(e.to_string().contains("pcapp"), "{e}");
        let e = EmuScenario::from_toml_str(&format!("{BASE}[emulator]\ncommands = [{{ ns = \"ue7\", cmd = \"x\" }}]\n")).unwrap_err();
        assert_eq!(e.path, "emulator.commands[0].ns");
        let e = EmuScenario::from_toml_str(&BASE.replace("count = 2", "count = 0")).unwrap_err();
        assert_eq!(e.path, "ues[0].count");
    }

    #[test]
    fn rejects_a_generated_workload() {
        let e = EmuScenario::from_toml_str(&format!("{BASE}[workload]\narrivals = {{ kind = \"poisson\", load = 0.3 }}\n")).unwrap_err();
        assert!(e.to_string().contains("workload"), "{e}");
    }

    #[test]
    fn accepts_an_nr_cell_at_every_numerology() {
        // FR1 carries μ = 0..2, FR2 μ = 2..3 (40 and 100 MHz are carriers of those spacings).
        for (mu, fr, bw) in [(0, "fr1", 40), (1, "fr1", 40), (2, "fr1", 40), (3, "fr2", 100)] {
            let text = format!("[cell]\nrat = \"nr\"\nbandwidth_mhz = {bw}\n[cell.nr]\nnumerology = {mu}\nfrequency_range = \"{fr}\"\n{BASE}");
            let s = EmuScenario::from_toml_str(&text).unwrap_or_else(|e| panic!("μ = {mu}: {e}"));
            assert_eq!(s.scenario.cell.slot().ns(), cellshare_core::MS >> mu);
        }
        // The simulator's own checks still apply: μ = 4 does not exist, μ = 3 is FR2 only.
        let e = EmuScenario::from_toml_str(&format!("[cell]\nrat = \"nr\"\nbandwidth_mhz = 100\n[cell.nr]\nnumerology = 4\n{BASE}")).unwrap_err();
        assert_eq!(e.path, "cell.nr.numerology", "{e}");
        let e = EmuScenario::from_toml_str(&format!("[cell]\nrat = \"nr\"\nbandwidth_mhz = 100\n[cell.nr]\nnumerology = 3\n{BASE}")).unwrap_err();
        assert_eq!(e.path, "cell.nr.numerology", "{e}");
    }

    #[test]
    fn the_shipped_nr_scenario_parses() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/emu-nr.toml")).unwrap();
        let s = EmuScenario::from_toml_str(&text).unwrap();
        assert!(s.scenario.cell.is_nr());
        assert_eq!(s.scenario.cell.slot().ns(), cellshare_core::MS / 2);
        assert_eq!(s.flows().len(), 3);
    }

    #[test]
    fn rejects_cbr_flows() {
        let text = BASE.replace("{ kind = \"tcp\", cc = { kind = \"cubic\" } }", "{ kind = \"cbr\", rate_mbps = 5.0 }");
        let e = EmuScenario::from_toml_str(&text).unwrap_err();
        assert_eq!(e.path, "flows[0].transport.kind");
    }

    #[test]
    fn rejects_python_controllers() {
        let text = BASE.replace("cc = { kind = \"cubic\" }", "cc = { kind = \"python\", class = \"mycc:Aimd\" }");
        let e = EmuScenario::from_toml_str(&text).unwrap_err();
        assert_eq!(e.path, "flows[0].transport.cc.kind");
        assert!(e.message.contains("\"python\" (mycc:Aimd)") && e.message.contains("real Linux TCP"), "{e}");
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}
