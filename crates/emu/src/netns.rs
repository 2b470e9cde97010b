//! Network namespaces, TUN devices and addresses, with iproute2 (`ip`) doing the
//! configuration and `setns(2)` placing each TUN device in its namespace.
//!
//! Layout of a run with process id `P`: namespace `csemu-P-srv` (the server) and
//! `csemu-P-ue<i>` per UE, each with one TUN device `cstun` (no packet information header,
//! IPv4). The server's address is [`SERVER_ADDR`], UE `i`'s is [`ue_addr`]`(i)`; every
//! namespace routes the other side's addresses through its TUN device, whose other end is
//! the emulator process. Addresses exist only inside these namespaces; nothing is added to
//! the namespace the emulator is started from.
//!
//! Clean-up: [`Topology`] deletes its namespaces on drop (normal exit, error, Ctrl-C), after
//! killing any process still inside them. A run killed outright (`kill -9`) leaves
//! namespaces named after a dead process id. Whoever started it removes them at once:
//! `cellshare emulate` waits for its emulator's end without reaping it, and while the dead
//! process is a zombie (its pid cannot be reused) runs `cellshare-emu cleanup --pid P`
//! ([`cleanup_run`]). Anything else — a `cellshare-emu run` started by hand — is reclaimed by
//! [`cleanup_stale`] (called at every start, and by `cellshare-emu cleanup`). Both kill the
//! processes still inside those namespaces, found by the namespace's inode in
//! `/proc/*/ns/net` (a process started by a command's shell has no name we know), and then
//! delete them. A namespace deleted while processes remain in it lives on unnamed, where
//! nothing can find it again, so the processes go first. TUN devices disappear with their
//! namespace and with the emulator's file descriptors. Only namespaces whose owner is gone
//! are touched: the pid in the name must not be a running `cellshare-emu`, and
//! [`cleanup_stale`] also leaves a dead one's alone while it is a zombie (its parent, the
//! front end, is about to clean them up and say so).
//!
//! Why named namespaces (`ip netns add`, bind-mounted under `/run/netns`) rather than ones
//! tied to the process's life (`unshare`d and never mounted, gone with their last process):
//! users run their own programs in a running emulation by name (`ip netns exec
//! csemu-P-ue0 ...`, docs/emulator.md), and an unnamed namespace would not die with the
//! emulator anyway — any process left inside (a command's shell's child) keeps it alive,
//! and then nothing can find it. So the names stay, and a supervisor removes them.

use std::fs::File;
use std::net::Ipv4Addr;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;

use nix::sched::{setns, CloneFlags};

/// Prefix of every namespace the emulator creates.
pub const NS_PREFIX: &str = "csemu-";
/// Name of the TUN device inside each namespace.
pub const TUN_NAME: &str = "cstun";
/// The server's address.
pub const SERVER_ADDR: Ipv4Addr = Ipv4Addr::new(10, 200, 0, 1);

/// UE `i`'s address: 10.201.(i / 250).(i % 250 + 1).
pub fn ue_addr(i: u32) -> Ipv4Addr {
    Ipv4Addr::new(10, 201, (i / 250) as u8, (i % 250 + 1) as u8)
}

/// The UE index of an address, if it is a UE address of [`ue_addr`] below `n`.
#[inline]
pub fn ue_of(addr: [u8; 4], n: u32) -> Option<u32> {
    if addr[0] != 10 || addr[1] != 201 || addr[3] == 0 || addr[3] > 250 {
        return None;
    }
    let i = addr[2] as u32 * 250 + addr[3] as u32 - 1;
    (i < n).then_some(i)
}

/// Runs `ip ARGS`, returning stderr on failure.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().map_err(|e| format!("cannot run `ip` (iproute2): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("`ip {}` failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// Names of the existing network namespaces.
pub fn list_netns() -> Vec<String> {
    match std::fs::read_dir("/run/netns") {
        Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect(),
        Err(_) => Vec::new(),
    }
}

/// What became of the `cellshare-emu` whose pid names a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// A running `cellshare-emu`: the namespaces are in use.
    Running,
    /// A `cellshare-emu` that ended and whose parent has not reaped it yet: dead, and its pid
    /// cannot be reused until it is reaped.
    Zombie,
    /// No such process, or the pid now runs another program.
    Gone,
}

/// What process `pid` is, as the owner of namespaces named after it.
pub fn owner(pid: i32) -> Owner {
    let is_emu = std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim_end() == "cellshare-emu");
    if !is_emu {
        return Owner::Gone;
    }
    // /proc/PID/stat: "PID (COMM) STATE ..."; COMM may hold spaces and parentheses.
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rfind(')').and_then(|i| s[i + 1..].split_whitespace().next().map(String::from)));
    match state.as_deref() {
        None => Owner::Gone,
        Some("Z") | Some("X") => Owner::Zombie,
        Some(_) => Owner::Running,
    }
}

/// (device, inode) identifying the network namespace at `path` (a `/run/netns` entry or a
/// `/proc/PID/ns/net` link).
fn ns_id(path: &str) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The processes whose network namespace is `ns` (device, inode), this one excepted.
pub fn pids_in(ns: (u64, u64)) -> Vec<i32> {
    let me = std::process::id() as i32;
    let Ok(rd) = std::fs::read_dir("/proc") else { return Vec::new() };
    rd.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != me && ns_id(&format!("/proc/{pid}/ns/net")) == Some(ns))
        .collect()
}

/// Kills (SIGKILL) every process inside namespace `name` and waits up to 2 s for them to be
/// gone; returns how many were killed.
pub fn kill_processes_in(name: &str) -> usize {
    let Some(ns) = ns_id(&format!("/run/netns/{name}")) else { return 0 };
    let mut killed = std::collections::BTreeSet::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        let pids = pids_in(ns);
        if pids.is_empty() || std::time::Instant::now() > deadline {
            break;
        }
        for pid in pids {
            // SAFETY: a plain kill(2) of a process inside one of the emulator's namespaces.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed.insert(pid);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    killed.len()
}

/// What [`cleanup_stale`] removed.
#[derive(Debug, Default)]
pub struct Cleanup {
    /// Namespaces deleted.
    pub namespaces: Vec<String>,
    /// Processes killed inside them.
    pub processes: usize,
}

/// The pid in an emulator namespace's name (`csemu-PID-...`).
fn owner_pid(name: &str) -> Option<i32> {
    name.strip_prefix(NS_PREFIX)?.split('-').next()?.parse::<i32>().ok()
}

/// Kills the processes inside namespace `name`, then deletes it; adds what it did to `out`.
fn remove(name: String, out: &mut Cleanup) {
    out.processes += kill_processes_in(&name);
    if ip(&["netns", "del", &name]).is_ok() {
        out.namespaces.push(name);
    }
}

/// Deletes the namespaces of emulator runs whose process no longer runs (a crash, a
/// `kill -9`), killing the processes still inside them first. Those of a dead emulator not
/// yet reaped (a zombie) are left to its parent ([`cleanup_run`]).
pub fn cleanup_stale() -> Cleanup {
    let mut out = Cleanup::default();
    for name in list_netns() {
        if owner_pid(&name).is_some_and(|pid| owner(pid) == Owner::Gone) {
            remove(name, &mut out);
        }
    }
    out
}

/// Deletes the namespaces of the run of emulator process `pid`, which must have ended (gone,
/// or a zombie its caller has not reaped yet), killing the processes still inside them
/// first. The error says when `pid` is a running `cellshare-emu`.
pub fn cleanup_run(pid: i32) -> Result<Cleanup, String> {
    if owner(pid) == Owner::Running {
        return Err(format!("pid {pid} is a running cellshare-emu: its namespaces are in use"));
    }
    let mut out = Cleanup::default();
    for name in list_netns() {
        if owner_pid(&name) == Some(pid) {
            remove(name, &mut out);
        }
    }
    Ok(out)
}

/// Whether this process may create namespaces (root or CAP_NET_ADMIN + CAP_SYS_ADMIN); the
/// error says what is missing.
pub fn check_privileges() -> Result<(), String> {
    if nix::unistd::geteuid().is_root() {
        Ok(())
    } else {
        Err("the emulator needs root (it creates network namespaces and TUN devices): run it with sudo or as root".into())
    }
}

/// An open TUN device (non-blocking, IPv4 packets without a header).
#[derive(Debug)]
pub struct Tun {
    fd: OwnedFd,
}

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

impl Tun {
    /// Creates TUN device `name` in the current namespace of the calling thread.
    fn create(name: &str) -> Result<Tun, String> {
        let raw = unsafe { libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if raw < 0 {
            return Err(format!("cannot open /dev/net/tun: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: `raw` is a file descriptor we just opened and own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short, _pad: [0; 22] };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        // SAFETY: TUNSETIFF reads a struct ifreq; `req` has its layout and lives across the call.
        if unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req) } < 0 {
            return Err(format!("TUNSETIFF {name}: {}", std::io::Error::last_os_error()));
        }
        Ok(Tun { fd })
    }

    /// The raw descriptor (for polling).
    pub fn raw(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    /// Reads one packet; `Ok(None)` when none is waiting.
    #[inline]
    pub fn read(&self, buf: &mut [u8]) -> std::io::Result<Option<usize>> {
        // SAFETY: `buf` is valid for `buf.len()` bytes.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::WouldBlock {
            Ok(None)
        } else {
            Err(e)
        }
    }

    /// Writes one packet (injected as received on the device in its namespace).
    #[inline]
    pub fn write(&self, pkt: &[u8]) -> std::io::Result<()> {
        // SAFETY: `pkt` is valid for `pkt.len()` bytes.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), pkt.as_ptr().cast(), pkt.len()) };
        if n < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(())
        }
    }
}

/// The namespaces and TUN devices of one run; deleted on drop.
#[derive(Debug)]
pub struct Topology {
    /// The server namespace's name.
    pub server_ns: String,
    /// The UE namespaces' names, by UE index.
    pub ue_ns: Vec<String>,
    /// The server's TUN device.
    pub server_tun: Tun,
    /// The UEs' TUN devices.
    pub ue_tuns: Vec<Tun>,
}

fn in_netns<T>(name: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    let home = File::open("/proc/self/ns/net").map_err(|e| format!("cannot open /proc/self/ns/net: {e}"))?;
    let target = File::open(format!("/run/netns/{name}")).map_err(|e| format!("cannot open namespace {name}: {e}"))?;
    setns(target.as_fd(), CloneFlags::CLONE_NEWNET).map_err(|e| format!("setns({name}): {e}"))?;
    let r = f();
    setns(home.as_fd(), CloneFlags::CLONE_NEWNET).map_err(|e| format!("setns back to the original namespace: {e}"))?;
    r
}

fn setup_ns(name: &str, addr: Ipv4Addr, route: &str) -> Result<Tun, String> {
    ip(&["netns", "add", name])?;
    let tun = in_netns(name, || Tun::create(TUN_NAME))?;
    let a = format!("{addr}/32");
    ip(&["-n", name, "link", "set", "lo", "up"])?;
    ip(&["-n", name, "link", "set", TUN_NAME, "txqueuelen", "10000", "up"])?;
    ip(&["-n", name, "addr", "add", &a, "dev", TUN_NAME])?;
    ip(&["-n", name, "route", "add", route, "dev", TUN_NAME, "src", &addr.to_string()])?;
    Ok(tun)
}

impl Topology {
    /// Creates the server namespace and `n_ues` UE namespaces with their TUN devices,
    /// addresses and routes. On error everything created so far is removed.
    pub fn create(n_ues: u32) -> Result<Topology, String> {
        let pid = std::process::id();
        let server_ns = format!("{NS_PREFIX}{pid}-srv");
        let mut made = vec![server_ns.clone()];
        let result = (|| {
            let server_tun = setup_ns(&server_ns, SERVER_ADDR, "10.201.0.0/16")?;
            let mut ue_ns = Vec::new();
            let mut ue_tuns = Vec::new();
            for i in 0..n_ues {
                let name = format!("{NS_PREFIX}{pid}-ue{i}");
                made.push(name.clone());
                ue_tuns.push(setup_ns(&name, ue_addr(i), "10.200.0.0/16")?);
                ue_ns.push(name);
            }
            Ok(Topology { server_ns: server_ns.clone(), ue_ns, server_tun, ue_tuns })
        })();
        if result.is_err() {
            for n in &made {
                kill_processes_in(n);
                let _ = ip(&["netns", "del", n]);
            }
        }
        result
    }

    /// All namespace names, server first.
    pub fn names(&self) -> Vec<String> {
        std::iter::once(self.server_ns.clone()).chain(self.ue_ns.iter().cloned()).collect()
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        for n in self.names() {
            // Whatever the run's commands left running (a shell's children) goes with it.
            kill_processes_in(&n);
            if let Err(e) = ip(&["netns", "del", &n]) {
                crate::eprint_line(&format!("cellshare-emu: cleaning up: {e}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ue_addresses_round_trip() {
        for i in [0, 1, 249, 250, 251, 1000, 62_499] {
            assert_eq!(ue_of(ue_addr(i).octets(), 62_500), Some(i));
        }
        assert_eq!(ue_of(ue_addr(5).octets(), 5), None);
        assert_eq!(ue_of(SERVER_ADDR.octets(), 10), None);
        assert_eq!(ue_of([10, 201, 0, 0], 10), None);
    }
}
