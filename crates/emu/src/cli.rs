//! The `cellshare-emu` command line: the emulator (`run`, `validate`, `cleanup`) and its
//! traffic tool (`traffic recv|send|ping`, run by the emulator inside the namespaces).
//! [`main_with_args`] is the whole program; `src/main.rs` calls it, and so does the Python
//! extension's `emu_main`, which the installed package exposes as its `cellshare-emu`
//! console script (`docs/emulator.md`, "Installed package").

use std::path::PathBuf;
use std::ffi::OsString;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use crate::config::EmuScenario;
use crate::run::{run, RunError};
use crate::{eprint_line, netns, print_line, traffic};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cellshare-emu", about = "Real-time multi-UE LTE/NR cell emulator carrying real Linux traffic between network namespaces.")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario in real time (needs root); results go to --out.
    Run {
        /// Scenario TOML (the simulator's format plus an optional [emulator] table).
        scenario: PathBuf,
        /// Output folder: created, or an existing one holding nothing but a
        /// `.cellshare-output` marker (`cellshare emulate` passes its temporary folder).
        #[arg(long)]
        out: PathBuf,
        /// Override simulation.duration_s (seconds).
        #[arg(long)]
        duration: Option<f64>,
        /// The run belongs to process PID, which started this one (the `cellshare emulate`
        /// front end passes its own pid): when PID ends, even by `kill -9`, the run stops as on
        /// SIGTERM (namespaces and processes removed), then removes --out, whose results
        /// nobody is left to collect, and exits 1.
        #[arg(long, value_name = "PID")]
        parent_pid: Option<i32>,
    },
    /// Check a scenario without running it.
    Validate {
        /// Scenario TOML.
        scenario: PathBuf,
    },
    /// Delete namespaces left behind by emulator runs that were killed, and the processes
    /// still inside them.
    Cleanup {
        /// Only those of the run of emulator process PID, which has ended (it may still be a
        /// zombie: `cellshare emulate` cleans up after its killed emulator before reaping it).
        #[arg(long, value_name = "PID")]
        pid: Option<i32>,
    },
    /// The traffic tool (run inside the namespaces).
    Traffic {
        #[command(subcommand)]
        cmd: TrafficCmd,
    },
}

#[derive(Subcommand)]
enum TrafficCmd {
    /// Accept TCP connections and print per-second goodput.
    Recv {
        /// Port to listen on.
        #[arg(long)]
        port: u16,
    },
    /// Send to a receiver with a chosen congestion control; print per-second throughput and RTT.
    Send {
        /// Receiver ADDR:PORT.
        #[arg(long)]
        to: std::net::SocketAddr,
        /// Congestion control (any name in /proc/sys/net/ipv4/tcp_available_congestion_control).
        #[arg(long, default_value = "cubic")]
        cc: String,
        /// Seconds to run.
        #[arg(long, default_value_t = 10.0)]
        duration: f64,
        /// On period, seconds (with --off).
        #[arg(long, requires = "off")]
        on: Option<f64>,
        /// Off period, seconds (with --on).
        #[arg(long, requires = "on")]
        off: Option<f64>,
        /// Stop after this many bytes.
        #[arg(long)]
        bytes: Option<u64>,
        /// DSCP to mark the packets with (IP TOS = DSCP << 2).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=63))]
        dscp: u8,
    },
    /// Time TCP connection attempts (SYN → RST) to a closed port: the idle RTT.
    Ping {
        /// Target ADDR:PORT (a port nobody listens on).
        #[arg(long)]
        to: std::net::SocketAddr,
        /// Number of probes.
        #[arg(long, default_value_t = 5)]
        count: u32,
        /// Pause between probes, ms.
        #[arg(long, default_value_t = 20)]
        interval_ms: u64,
    },
}

fn load(path: &PathBuf, duration: Option<f64>) -> Result<EmuScenario, String> {
    // A FIFO or a device is refused before it is opened (reading one blocks or never ends).
    use cellshare_sim::input::{open_regular, OpenError};
    let f = open_regular(path, 16 << 20).map_err(|e| match e {
        OpenError::Io(e) => format!("cannot read {}: {e}", path.display()),
        _ => format!("{}: expected a regular file of at most 16 MiB (a scenario TOML)", path.display()),
    })?;
    let text = std::io::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut sc = EmuScenario::from_toml_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(d) = duration {
        if !(d > 0.0 && d <= 86_400.0) {
            return Err(format!("--duration = {d}: expected seconds in (0, 86400]"));
        }
        sc.scenario.simulation.duration_s = d;
    }
    Ok(sc)
}

/// `--out` must be absent or a folder holding nothing but the marker `cellshare emulate`
/// writes into its temporary folder: the emulator never writes into a folder with other
/// files (stale results would mix with the new).
fn check_out(out: &std::path::Path) -> Result<(), String> {
    match std::fs::symlink_metadata(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("--out {}: {e}", out.display())),
        Ok(m) if !m.is_dir() => Err(format!("--out {} exists and is not a folder", out.display())),
        Ok(_) => {
            let other = std::fs::read_dir(out)
                .map_err(|e| format!("--out {}: {e}", out.display()))?
                .filter_map(|e| e.ok())
                .find(|e| e.file_name() != ".cellshare-output");
            match other {
                Some(e) => Err(format!(
                    "--out {} is not empty (it holds {:?}); expected a new or empty folder",
                    out.display(),
                    e.file_name()
                )),
                None => Ok(()),
            }
        }
    }
}

/// Runs the command line `args` (the program name first, as `std::env::args_os()`) and
/// returns the process's exit code: 0 on success, 2 for bad input (a usage error, an invalid
/// scenario or `--out`), 1 for a failure while running, 130 for a second signal while a run
/// stops. `--help` prints and returns 0. Both the `cellshare-emu` binary and the Python
/// package's `cellshare-emu` entry point (`cellshare._core.emu_main`) call it.
pub fn main_with_args<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let code = match Cli::try_parse_from(args) {
        Ok(cli) => dispatch(cli),
        Err(e) => {
            let _ = e.print();
            e.exit_code().clamp(0, 255) as u8
        }
    };
    // Called from Python the Rust runtime's exit-time flush does not run.
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    code
}

/// The parent-death signal of a run with `--parent-pid`. Not SIGTERM: the kernel sends it
/// each time the *thread* that started this process ends and this process passes to
/// another, so a front end with several threads killed by `kill -9` sends it once per
/// thread, and a second SIGTERM means "exit at once" (leaving the namespaces behind).
const PARENT_DEATH_SIG: libc::c_int = libc::SIGUSR1;

/// Sets `stop` when process `ppid` (the front end) ends, even by `kill -9`: the handler of
/// [`PARENT_DEATH_SIG`] stops the run only once this process's parent is no longer `ppid` —
/// the signal also comes when a thread of a living front end ends (this process then passes
/// to another of its threads, and its parent is still `ppid`), which must not stop the run.
fn on_parent_death(ppid: i32, stop: Arc<AtomicBool>) -> std::io::Result<()> {
    // SAFETY: the handler only calls getppid(2) and stores to an atomic, both async-signal-safe.
    unsafe {
        signal_hook::low_level::register(PARENT_DEATH_SIG, move || {
            if libc::getppid() != ppid {
                stop.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        })?;
        // Installed after the handler: the signal's default action would end the process.
        if libc::prctl(libc::PR_SET_PDEATHSIG, PARENT_DEATH_SIG as libc::c_ulong, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The end of a run whose front end (`--parent-pid`) is gone: the run has stopped and removed
/// its namespaces; its results folder (the front end's temporary folder) goes too, since
/// nobody is left to move it into place. Returns the exit code, 1.
fn abandon(out: &std::path::Path, ppid: i32) -> u8 {
    let gone = match std::fs::remove_dir_all(out) {
        Ok(()) => String::new(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => format!(" (removing --out {} failed: {e})", out.display()),
    };
    eprint_line(&format!(
        "error: the process that started the emulator (pid {ppid}) ended: the run stopped, leaving nothing \
         (--out {} removed){gone}",
        out.display()
    ));
    1
}

fn dispatch(cli: Cli) -> u8 {
    match cli.cmd {
        Cmd::Validate { scenario } => match load(&scenario, None) {
            Ok(sc) => {
                println!("{}: ok ({} UEs, {} flows)", scenario.display(), sc.scenario.n_ues(), sc.flows().len());
                0
            }
            Err(e) => {
                eprint_line(&format!("error: {e}"));
                2
            }
        },
        Cmd::Run { scenario, out, duration, parent_pid } => {
            // Standard output and error are the front end's pipes: written without `println!`,
            // which panics once the front end is gone (`eprint_line`).
            let sc = match load(&scenario, duration).and_then(|sc| check_out(&out).map(|()| sc)) {
                Ok(s) => s,
                Err(e) => {
                    eprint_line(&format!("error: {e}"));
                    return 2;
                }
            };
            let stop = Arc::new(AtomicBool::new(false));
            for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
                // The first signal stops the run cleanly (namespaces removed, summary written);
                // a second one while it stops exits at once (`cellshare emulate`, or else the
                // next run, removes what it left).
                let r = signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone())
                    .and_then(|_| signal_hook::flag::register(sig, stop.clone()));
                if let Err(e) = r {
                    eprint_line(&format!("error: cannot install the signal handler: {e}"));
                    return 1;
                }
            }
            // The run dies with its front end: a parent-death signal (PR_SET_PDEATHSIG) stops it
            // as Ctrl-C does, then the check that the front end had not ended already (the
            // signal would then never come), and after the run the same check, for a front
            // end that died while the run was stopping or had finished.
            let orphaned = || parent_pid.is_some_and(|ppid| nix::unistd::getppid().as_raw() != ppid);
            if let Some(ppid) = parent_pid {
                if let Err(e) = on_parent_death(ppid, stop.clone()) {
                    eprint_line(&format!("error: cannot install the signal handler: {e}"));
                    return 1;
                }
            }
            if orphaned() {
                return abandon(&out, parent_pid.unwrap_or_default());
            }
            let base = scenario.parent().map(|p| p.to_path_buf()).unwrap_or_default();
            let result = run(&sc, &base, &out, stop);
            if orphaned() {
                return abandon(&out, parent_pid.unwrap_or_default());
            }
            match result {
                Ok(summary) => {
                    print_line(&serde_json::to_string(&summary).expect("json"));
                    0
                }
                Err(RunError::Input(e)) => {
                    eprint_line(&format!("error: {e}"));
                    2
                }
                Err(RunError::Runtime(e)) => {
                    eprint_line(&format!("error: {e}"));
                    1
                }
            }
        }
        Cmd::Cleanup { pid } => {
            if let Err(e) = netns::check_privileges() {
                eprintln!("error: {e}");
                return 1;
            }
            let removed = match pid {
                None => netns::cleanup_stale(),
                Some(pid) => match netns::cleanup_run(pid) {
                    Ok(r) => r,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return 1;
                    }
                },
            };
            let names = &removed.namespaces;
            println!(
                "removed {} stale namespace(s){}{} and {} process(es) in them",
                names.len(),
                if names.is_empty() { "" } else { ": " },
                names.join(", "),
                removed.processes
            );
            0
        }
        Cmd::Traffic { cmd } => {
            let r = match cmd {
                TrafficCmd::Recv { port } => traffic::recv(port),
                TrafficCmd::Send { to, cc, duration, on, off, bytes, dscp } => {
                    if !(duration > 0.0 && duration.is_finite()) {
                        Err(format!("--duration = {duration}: expected seconds > 0"))
                    } else if on.is_some_and(|x| x.is_nan() || x <= 0.0) || off.is_some_and(|x| x.is_nan() || x < 0.0) {
                        Err("--on / --off: expected seconds, --on > 0 and --off >= 0".into())
                    } else {
                        traffic::send(&traffic::SendOptions { to, cc, duration_s: duration, on_off: on.zip(off), bytes, dscp })
                    }
                }
                TrafficCmd::Ping { to, count, interval_ms } => traffic::ping(to, count, Duration::from_millis(interval_ms)).map(|v| {
                    let mut s = v.clone();
                    s.sort_by(|a, b| a.total_cmp(b));
                    let med = s.get(s.len() / 2).copied().unwrap_or(f64::NAN);
                    let min = s.first().copied().unwrap_or(f64::NAN);
                    println!("{{\"rtt_ms\": {v:?}, \"min\": {min:.3}, \"median\": {med:.3}}}");
                }),
            };
            match r {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("error: {e}");
                    1
                }
            }
        }
    }
}
