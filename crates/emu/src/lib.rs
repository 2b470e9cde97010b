//! # cellshare-emu
//!
//! A real-time emulator of one LTE or NR cell shared by many UEs, carrying real Linux traffic. It
//! creates a server network namespace and one namespace per UE, each with a TUN device
//! (as Mahimahi \[mahimahi\] does), and forwards every IPv4 packet between them through the very same
//! per-UE RLC queues, MAC scheduler, channel models and queue disciplines as the simulator
//! (`cellshare-cell`, `cellshare-channel`, `cellshare-aqm`, built from the same scenario by
//! [`cellshare_sim::build_cell`]) in a loop driven by the monotonic clock that runs the
//! scheduler once per TTI (LTE: 1 ms; NR: once per slot, 1/2^μ ms), with the
//! scenario's wired delays on both directions.
//!
//! - [`config`]: the scenario (the simulator's TOML plus an optional `[emulator]` table).
//! - [`netns`]: namespaces, TUN devices, addresses, clean-up (also of a crashed earlier run).
//! - [`engine`]: the real-time forwarding loop and its metrics.
//! - [`host`]: whether a run kept real time, and the host's CPU steal during it.
//! - [`packet`]: the IPv4/TCP header fields the emulator reads.
//! - [`pcap`]: a minimal pcap writer (raw IPv4 link type).
//! - [`traffic`]: the project's traffic tool (per-flow congestion control, per-second reports).
//! - [`run`]: one emulation from scenario to results folder.

#![warn(missing_docs)]

pub mod cli;
pub mod config;
pub mod engine;
pub mod host;
pub mod netns;
pub mod packet;
pub mod pcap;
pub mod run;
pub mod traffic;

use std::path::PathBuf;
use std::sync::OnceLock;

static SELF_EXE: OnceLock<PathBuf> = OnceLock::new();

/// Names the executable that runs this crate's command line when it is not the current
/// process's executable: the Python package's `cellshare-emu` console script, whose process
/// is a Python interpreter. The emulator starts its traffic tool (`<exe> traffic ...`) and
/// exports `CELLSHARE_EMU` with it. Only the first call counts.
pub fn set_self_exe(path: PathBuf) {
    let _ = SELF_EXE.set(path);
}

/// The executable that runs `cellshare-emu`: the one [`set_self_exe`] named, else the
/// current process's.
pub fn self_exe() -> std::io::Result<PathBuf> {
    match SELF_EXE.get() {
        Some(p) => Ok(p.clone()),
        None => std::env::current_exe(),
    }
}

/// Writes `line` and a newline to standard error, ignoring a failure. `eprintln!` panics when
/// the write fails, and it does fail once the `cellshare emulate` front end that reads the
/// pipe has died (EPIPE: Rust programs ignore SIGPIPE) — exactly when the emulator is
/// stopping and removing its namespaces, which a panic would cut short.
pub(crate) fn eprint_line(line: &str) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(line.as_bytes()).and_then(|()| e.write_all(b"\n"));
}

/// [`eprint_line`] for standard output (the summary a run prints to its front end).
pub(crate) fn print_line(line: &str) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(line.as_bytes()).and_then(|()| o.write_all(b"\n")).and_then(|()| o.flush());
}
