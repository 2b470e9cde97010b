//! One emulation: scenario → namespaces → real-time loop with the flows and commands →
//! results folder (`summary.json`, per-flow traffic-tool logs, command logs, optional
//! `emu.pcap`) → clean-up.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use cellshare_core::{time::from_secs_f64, time::from_millis_f64, Nanos, SEC};
use serde_json::{json, Value};

use crate::config::{EmuFlow, EmuScenario};
use crate::engine::{Control, Engine, EngineConfig};
use crate::host::{CpuTimes, RealTime};
use crate::netns::{self, ue_addr, Topology, SERVER_ADDR};
use crate::pcap::PcapWriter;

/// Port the idle-RTT probe connects to (nobody listens: the UE answers with a RST).
pub const PROBE_PORT: u16 = 9;

/// Why a run failed: bad input (exit 2) or a failure while running (exit 1).
#[derive(Debug)]
pub enum RunError {
    /// The scenario or the command line is wrong; the message names key, value, expectation.
    Input(String),
    /// The machine cannot run it (privileges, missing tools) or something broke.
    Runtime(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Input(m) | RunError::Runtime(m) => f.write_str(m),
        }
    }
}

/// Congestion controls the kernel offers.
pub fn available_cc() -> Vec<String> {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .unwrap_or_default()
        .split_whitespace()
        .map(String::from)
        .collect()
}

fn set_realtime() -> bool {
    // SAFETY: plain syscalls on the calling thread. SCHED_RESET_ON_FORK: the processes the
    // loop starts run with normal priority.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1usize, 0usize, 0usize, 0usize);
        let p = libc::sched_param { sched_priority: 20 };
        libc::sched_setscheduler(0, libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK, &p) == 0
    }
}

struct Spawned {
    child: Child,
}

/// Makes the calling process (a child between `fork` and `exec`) receive `sig` when the
/// thread that started it ends — above all when the emulator dies, `kill -9` included —
/// and exits at once if that already happened (the parent died before the call, so the
/// child was re-parented and would never get the signal).
fn die_with_parent(sig: libc::c_int, parent: libc::pid_t) -> std::io::Result<()> {
    // SAFETY: prctl and getppid are async-signal-safe and touch no memory of ours.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, sig as libc::c_ulong, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
    Ok(())
}

/// Starts `ip netns exec NS ARGS...` (which `exec`s ARGS in the namespace, keeping the pid)
/// with its output in `out`. The process dies with the thread that starts it: the traffic
/// tool by SIGKILL (`death_sig`), a user command by SIGTERM so it can tidy up; what a
/// command's shell starts is found later by its namespace ([`netns::kill_processes_in`]).
fn spawn_in(ns: &str, args: &[String], out: &Path, env: &[(String, String)], death_sig: libc::c_int) -> Result<Spawned, RunError> {
    use std::os::unix::process::CommandExt;
    let log = File::create(out).map_err(|e| RunError::Runtime(format!("cannot create {}: {e}", out.display())))?;
    let err = log.try_clone().map_err(|e| RunError::Runtime(e.to_string()))?;
    let mut c = Command::new("ip");
    c.args(["netns", "exec", ns]).args(args).stdin(Stdio::null()).stdout(log).stderr(err);
    for (k, v) in env {
        c.env(k, v);
    }
    // Own process group, so stopping a shell command stops what it started.
    c.process_group(0);
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure only makes async-signal-safe calls.
    unsafe { c.pre_exec(move || die_with_parent(death_sig, parent)) };
    let child = c.spawn().map_err(|e| RunError::Runtime(format!("cannot start `ip netns exec {ns} ...`: {e}")))?;
    Ok(Spawned { child })
}

/// What a started process is, for the end of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sender,
    Other,
}

struct SpawnReq {
    kind: Kind,
    ns: String,
    args: Vec<String>,
    out: PathBuf,
}

#[derive(Default)]
struct SpawnState {
    children: Vec<(Kind, Spawned)>,
    error: Option<String>,
    /// Set when the run ends: a process started after it is stopped at once.
    stopping: bool,
}

/// Starts processes from a helper thread: `fork`/`exec` of `ip netns exec` takes milliseconds,
/// and the TTI loop must not wait for it (starting ten senders at once stalled it by tens of
/// milliseconds).
struct Spawner {
    tx: Option<std::sync::mpsc::Sender<SpawnReq>>,
    state: Arc<std::sync::Mutex<SpawnState>>,
    worker: Option<std::thread::JoinHandle<()>>,
}

impl Spawner {
    fn new(env: Vec<(String, String)>) -> Spawner {
        let (tx, rx) = std::sync::mpsc::channel::<SpawnReq>();
        let state = Arc::new(std::sync::Mutex::new(SpawnState::default()));
        let st = state.clone();
        let worker = std::thread::spawn(move || {
            for r in rx {
                if st.lock().expect("spawner state").stopping {
                    continue;
                }
                let sig = if r.kind == Kind::Other { libc::SIGTERM } else { libc::SIGKILL };
                let res = spawn_in(&r.ns, &r.args, &r.out, &env, sig);
                let mut s = st.lock().expect("spawner state");
                match res {
                    Ok(c) if s.stopping => stop_all(&mut vec![c]),
                    Ok(c) => s.children.push((r.kind, c)),
                    Err(e) => s.error = Some(e.to_string()),
                }
            }
        });
        Spawner { tx: Some(tx), state, worker: Some(worker) }
    }

    fn request(&self, kind: Kind, ns: &str, args: Vec<String>, out: PathBuf) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(SpawnReq { kind, ns: ns.to_string(), args, out });
        }
    }

    fn error(&self) -> Option<String> {
        self.state.lock().expect("spawner state").error.clone()
    }

    /// Whether `n` senders were started and all have exited.
    fn senders_done(&self, n: usize) -> bool {
        let mut s = self.state.lock().expect("spawner state");
        let senders: Vec<&mut Spawned> = s.children.iter_mut().filter(|(k, _)| *k == Kind::Sender).map(|(_, c)| c).collect();
        senders.len() == n && senders.into_iter().all(|c| matches!(c.child.try_wait(), Ok(Some(_))))
    }

    /// Stops every process it started (SIGTERM to each process group, SIGKILL after 2 s),
    /// then ends its thread. The processes go first: they die with the thread that started
    /// them, and a user command gets its SIGTERM from here, not a parent-death signal.
    fn stop_all(&mut self) {
        let mut all: Vec<Spawned> = {
            let mut s = self.state.lock().expect("spawner state");
            s.stopping = true;
            s.children.drain(..).map(|(_, c)| c).collect()
        };
        stop_all(&mut all);
        self.tx = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

impl Drop for Spawner {
    fn drop(&mut self) {
        self.stop_all();
    }
}

fn stop_all(children: &mut Vec<Spawned>) {
    for s in children.iter() {
        // SAFETY: signalling the process group we created.
        unsafe { libc::kill(-(s.child.id() as i32), libc::SIGTERM) };
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    for s in children.iter_mut() {
        loop {
            match s.child.try_wait() {
                Ok(Some(_)) => break,
                _ if std::time::Instant::now() > deadline => {
                    // SAFETY: as above.
                    unsafe { libc::kill(-(s.child.id() as i32), libc::SIGKILL) };
                    let _ = s.child.wait();
                    break;
                }
                _ => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        }
    }
    children.clear();
}

fn last_json_line(path: &Path, key: &str) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().rev().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find_map(|v| v.get(key).cloned())
}

fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("t").is_some())
        .collect()
}

/// Runs scenario `sc` (trace paths relative to `base`), writing results to `out` (created).
/// `stop` ends the run early (Ctrl-C). Returns the summary written to `out/summary.json`.
pub fn run(sc: &EmuScenario, base: &Path, out: &Path, stop: Arc<AtomicBool>) -> Result<Value, RunError> {
    netns::check_privileges().map_err(RunError::Runtime)?;
    for tool in ["ip"] {
        if Command::new(tool).arg("-V").output().is_err() {
            return Err(RunError::Runtime(format!("`{tool}` is not installed (Debian package iproute2)")));
        }
    }
    if !Path::new("/dev/net/tun").exists() {
        return Err(RunError::Runtime("/dev/net/tun is missing: the kernel needs TUN support (CONFIG_TUN)".into()));
    }
    let removed = netns::cleanup_stale();
    if !removed.namespaces.is_empty() {
        crate::eprint_line(&format!(
            "cellshare-emu: removed {} namespace(s) left by an earlier run that was killed ({}), and {} process(es) in them",
            removed.namespaces.len(),
            removed.namespaces.join(", "),
            removed.processes
        ));
    }
    let s = &sc.scenario;
    let flows: Vec<EmuFlow> = if sc.emulator.run_flows { sc.flows() } else { Vec::new() };
    let avail = available_cc();
    for f in &flows {
        if !avail.contains(&f.cc) {
            let hint = if is_bpf_control(&f.cc) {
                format!("; load it first with `cellshare bpf load {}`", f.cc)
            } else {
                String::new()
            };
            return Err(RunError::Input(format!(
                "flow {:?}: congestion control {:?} is not available in this kernel (available: {}){hint}",
                f.name,
                f.cc,
                avail.join(" ")
            )));
        }
    }
    let (traces, positions) = cellshare_sim::input::load_inputs(&sc.scenario, base).map_err(|e| RunError::Input(e.to_string()))?;
    let (cell, _) = cellshare_sim::build_ran(s, &traces, &positions).map_err(|e| RunError::Input(e.to_string()))?;
    let exe = crate::self_exe().map_err(|e| RunError::Runtime(format!("cannot locate the emulator binary: {e}")))?;
    let exe_s = exe.to_string_lossy().into_owned();
    std::fs::create_dir_all(out.join("flows")).map_err(|e| RunError::Runtime(format!("cannot create {}: {e}", out.display())))?;
    std::fs::create_dir_all(out.join("commands")).map_err(|e| RunError::Runtime(e.to_string()))?;

    let n_ues = s.n_ues();
    let topo = Topology::create(n_ues).map_err(RunError::Runtime)?;
    let w = &s.wired;
    let duration = from_secs_f64(s.simulation.duration_s);
    let cfg = EngineConfig {
        down_delay: from_millis_f64(w.remote_delay_ms + w.backhaul_delay_ms),
        up_delay: from_millis_f64(w.uplink_delay_ms + w.backhaul_delay_ms + w.remote_delay_ms),
        backhaul_rate_bps: (w.backhaul_rate_mbps * 1e6) as u64,
        backhaul_queue_bytes: w.backhaul_queue_bytes,
        duration,
        flow_ports: flows.iter().map(|f| (f.port, (f.id, f.name.clone(), f.background))).collect(),
        tdd: s.cell.tdd(),
    };
    let pcap = if sc.emulator.pcap {
        let f = File::create(out.join("emu.pcap")).map_err(|e| RunError::Runtime(format!("cannot create emu.pcap: {e}")))?;
        Some(PcapWriter::new(f).map_err(|e| RunError::Runtime(e.to_string()))?)
    } else {
        None
    };
    let mut env: Vec<(String, String)> = vec![
        ("CELLSHARE_SERVER_ADDR".into(), SERVER_ADDR.to_string()),
        ("CELLSHARE_EMU".into(), exe_s.clone()),
        ("CELLSHARE_UE_COUNT".into(), n_ues.to_string()),
    ];
    for i in 0..n_ues {
        env.push((format!("CELLSHARE_UE{i}_ADDR"), ue_addr(i).to_string()));
    }

    let mut children: Vec<Spawned> = Vec::new();
    let result = (|| -> Result<Value, RunError> {
        // Receivers first: they are listening by the time the clock starts.
        for f in &flows {
            let args = vec![exe_s.clone(), "traffic".into(), "recv".into(), "--port".into(), f.port.to_string()];
            children.push(spawn_in(&topo.ue_ns[f.ue as usize], &args, &out.join(format!("flows/{}.recv.jsonl", f.name)), &env, libc::SIGKILL)?);
        }
        let realtime = sc.emulator.realtime && set_realtime();
        let mut engine = Engine::new(cfg, cell, &topo.server_tun, &topo.ue_tuns, pcap);
        let mut probe_next = 0u32;
        let mut probe: Option<Spawned> = None;
        let probing = sc.emulator.probe_count > 0;
        let mut err: Option<RunError> = None;
        let warmup: Nanos = 200 * cellshare_core::MS;
        // First phase: let the receivers start, then probe each UE's idle RTT in turn.
        engine
            .run(|now, _| {
                if stop.load(Ordering::Relaxed) {
                    return Control::Stop;
                }
                if now < warmup {
                    return Control::Continue;
                }
                if let Some(p) = probe.as_mut() {
                    match p.child.try_wait() {
                        Ok(None) => return Control::Continue,
                        _ => probe = None,
                    }
                }
                if !probing || probe_next >= n_ues {
                    return Control::Stop;
                }
                let args = vec![
                    exe_s.clone(),
                    "traffic".into(),
                    "ping".into(),
                    "--to".into(),
                    format!("{}:{PROBE_PORT}", ue_addr(probe_next)),
                    "--count".into(),
                    sc.emulator.probe_count.to_string(),
                ];
                match spawn_in(&topo.server_ns, &args, &out.join(format!("flows/probe-ue{probe_next}.json")), &env, libc::SIGKILL) {
                    Ok(p) => probe = Some(p),
                    Err(e) => {
                        err = Some(e);
                        return Control::Stop;
                    }
                }
                probe_next += 1;
                Control::Continue
            })
            .map_err(|e| RunError::Runtime(format!("forwarding loop: {e}")))?;
        if let Some(e) = err.take() {
            return Err(e);
        }
        // Second phase: the scenario's clock. Processes start from the spawner's thread.
        let mut spawner = Spawner::new(env.clone());
        let interrupted_in_warmup = stop.load(Ordering::Relaxed);
        let mut err: Option<RunError> = None;
        let cpu_at_start = CpuTimes::read();
        if !interrupted_in_warmup {
            engine.start_clock();
            let mut started_flows = vec![false; flows.len()];
            let mut started_cmds = vec![false; sc.emulator.commands.len()];
            let n_senders = flows.iter().filter(|f| f.start_s < s.simulation.duration_s).count();
            engine
                .run(|_, t| {
                    if stop.load(Ordering::Relaxed) {
                        return Control::Stop;
                    }
                    if let Some(e) = spawner.error() {
                        err = Some(RunError::Runtime(e));
                        return Control::Stop;
                    }
                    let t = t.unwrap_or(0);
                    for (i, f) in flows.iter().enumerate() {
                        if !started_flows[i] && t >= from_secs_f64(f.start_s) {
                            started_flows[i] = true;
                            let mut args = vec![
                                exe_s.clone(),
                                "traffic".into(),
                                "send".into(),
                                "--to".into(),
                                format!("{}:{}", ue_addr(f.ue), f.port),
                                "--cc".into(),
                                f.cc.clone(),
                                "--duration".into(),
                                format!("{}", (f.stop_s - f.start_s).max(0.001)),
                            ];
                            if let Some((on, off)) = f.on_off {
                                args.extend(["--on".into(), on.to_string(), "--off".into(), off.to_string()]);
                            }
                            if let Some(b) = f.bytes {
                                args.extend(["--bytes".into(), b.to_string()]);
                            }
                            if f.dscp > 0 {
                                args.extend(["--dscp".into(), f.dscp.to_string()]);
                            }
                            spawner.request(Kind::Sender, &topo.server_ns, args, out.join(format!("flows/{}.send.jsonl", f.name)));
                        }
                    }
                    for (i, c) in sc.emulator.commands.iter().enumerate() {
                        if !started_cmds[i] && t >= from_secs_f64(c.start_s) {
                            started_cmds[i] = true;
                            let ns = match crate::config::parse_ns(&c.ns, n_ues) {
                                Ok(None) => topo.server_ns.clone(),
                                Ok(Some(u)) => topo.ue_ns[u as usize].clone(),
                                Err(e) => {
                                    err = Some(RunError::Input(e));
                                    return Control::Stop;
                                }
                            };
                            let args = vec!["sh".into(), "-c".into(), c.cmd.clone()];
                            spawner.request(Kind::Other, &ns, args, out.join(format!("commands/{i}.log")));
                        }
                    }
                    // At the end, let the senders print their summaries (they stop on their own).
                    if t >= duration && (t >= duration + SEC / 2 || spawner.senders_done(n_senders)) {
                        return Control::Stop;
                    }
                    Control::Continue
                })
                .map_err(|e| RunError::Runtime(format!("forwarding loop: {e}")))?;
        }
        let ran = engine.ran();
        let steal = cpu_at_start.zip(CpuTimes::read()).and_then(|(a, b)| b.steal_percent_since(&a));
        spawner.stop_all();
        if let Some(e) = err {
            return Err(e);
        }
        engine.flush_pcap().map_err(|e| RunError::Runtime(format!("writing emu.pcap: {e}")))?;
        stop_all(&mut children);
        let res = engine.results(ran);
        let timing = RealTime::judge(&res.tti_lateness_ms, steal, res.slot_ms);
        let interrupted = stop.load(Ordering::Relaxed) && ran < duration;
        let mut summary = summarize(sc, &flows, out, res, realtime, timing, interrupted, ran);
        // The namespaces this run made (all removed when it ends), so a check of what a run
        // left behind can look at its own.
        summary["namespaces"] = json!(topo.names());
        Ok(summary)
    })();
    stop_all(&mut children);
    drop(topo);
    let summary = result?;
    let text = serde_json::to_string_pretty(&summary).expect("json");
    std::fs::write(out.join("summary.json"), text).map_err(|e| RunError::Runtime(format!("writing summary.json: {e}")))?;
    Ok(summary)
}

fn summarize(
    sc: &EmuScenario,
    flows: &[EmuFlow],
    out: &Path,
    res: crate::engine::EngineResults,
    realtime: bool,
    timing: RealTime,
    interrupted: bool,
    ran: Nanos,
) -> Value {
    let s = &sc.scenario;
    let ran_s = ran as f64 / SEC as f64;
    let w = &s.wired;
    let base_rtt = 2.0 * (w.remote_delay_ms + w.backhaul_delay_ms) + w.uplink_delay_ms;
    let mut idle = Vec::new();
    for u in 0..s.n_ues() {
        if let Some(v) = std::fs::read_to_string(out.join(format!("flows/probe-ue{u}.json")))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(t.trim()).ok())
        {
            idle.push(json!({"ue": u, "rtt_ms": v["rtt_ms"], "min": v["min"], "median": v["median"]}));
        }
    }
    let by_id: HashMap<u32, &crate::engine::FlowResult> = res.flows.iter().filter_map(|f| f.id.map(|i| (i, f))).collect();
    let flow_rows: Vec<Value> = flows
        .iter()
        .map(|f| {
            // A flow's life within the time actually run (an interrupted run ends early).
            let life = (f.stop_s.min(ran_s) - f.start_s).max(1e-9);
            let r = by_id.get(&f.id);
            let sender = last_json_line(&out.join(format!("flows/{}.send.jsonl", f.name)), "summary");
            let series = json_lines(&out.join(format!("flows/{}.send.jsonl", f.name)));
            json!({
                "id": f.id,
                "name": f.name,
                "ue": f.ue,
                "class": if f.background { "background" } else { "foreground" },
                "cc": f.cc,
                "start_s": f.start_s,
                "stop_s": f.stop_s,
                "bytes_delivered": r.map_or(0, |r| r.bytes_delivered),
                "throughput_mbps": r.map_or(0.0, |r| r.bytes_delivered as f64 * 8.0 / life / 1e6),
                "per_second_mbps": r.map(|r| r.per_second_mbps.clone()).unwrap_or_default(),
                "queue_delay_ms": r.map(|r| serde_json::to_value(r.queue_delay_ms).expect("json")),
                "drops": r.map_or(0, |r| r.drops),
                "first_packet_s": r.and_then(|r| r.first_packet_s),
                "sender": sender,
                "sender_per_second": series,
            })
        })
        .collect();
    // Traffic the emulator did not start (user commands, a client pointed through it) that
    // carried payload; the idle-RTT probes' connection attempts carry none.
    let others: Vec<&crate::engine::FlowResult> =
        res.flows.iter().filter(|f| f.id.is_none() && (f.bytes_delivered > 0 || f.drops > 0)).collect();
    let jain = {
        let xs: Vec<f64> = flow_rows.iter().map(|f| f["throughput_mbps"].as_f64().unwrap_or(0.0)).collect();
        cellshare_sim::metrics::jain_index(&xs)
    };
    let mut summary = json!({
        "scenario": s.name,
        "mode": "emulator",
        "interrupted": interrupted,
        "duration_s": ran_s,
        "planned_duration_s": s.simulation.duration_s,
        "n_ues": s.n_ues(),
        "realtime_priority": realtime,
        "base_rtt_ms": base_rtt,
        "idle_rtt_ms": idle,
        "prb_utilization": res.prb_utilization,
        "prb_used_share_of_all": res.prb_used_share_of_all,
        "delivered_mbps": res.delivered_mbps,
        "queue_delay_ms": res.queue_delay_ms,
        "overhead_ms": res.overhead_ms,
        "tti_lateness_ms": res.tti_lateness_ms,
        "realtime": timing,
        "drops": res.drops,
        "jain_index": jain,
        "flows": flow_rows,
        "other_flows": others,
        "ues": res.ues,
        "prb_utilization_per_second": res.prb_utilization_per_second,
        "ttis": res.ttis,
        "clock_start_tti": res.clock_start_tti,
        "handovers": res.handovers,
    });
    // An NR cell: its slot and numerology (the loop's period), and the slot it ran at the
    // clock's start. An LTE run's summary keeps its keys.
    if s.cell.is_nr() {
        summary["slot_ms"] = json!(res.slot_ms);
        summary["numerology"] = json!(s.cell.nr.numerology);
        summary["clock_start_slot"] = json!(res.clock_start_slot);
    }
    summary
}

/// The table of the project's eBPF congestion controls (`NAME SOURCE DESCRIPTION` per line),
/// shipped with their sources and read by `cellshare bpf`.
const BPF_CONTROLS: &str = include_str!("../../../python/cellshare/data/bpf/controls.txt");

/// Whether `cc` is one of the project's eBPF controls (`cellshare bpf load` offers it).
fn is_bpf_control(cc: &str) -> bool {
    BPF_CONTROLS
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .any(|l| l.split_whitespace().next() == Some(cc))
}

#[cfg(test)]
mod bpf_control_tests {
    use super::is_bpf_control;

    #[test]
    fn the_bpf_table_names_the_shipped_controls_only() {
        for cc in ["legilimens", "ledbat", "tcp_lp", "westwood", "c2tcp"] {
            assert!(is_bpf_control(cc), "{cc}");
        }
        // The kernel's own controls, the table's comment lines and its other columns are not.
        for cc in ["cubic", "reno", "bbr", "#", "NAME", "ledbat.bpf.c", "LEDBAT"] {
            assert!(!is_bpf_control(cc), "{cc}");
        }
    }
}
