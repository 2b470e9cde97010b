//! The project's traffic tool: `cellshare-emu traffic recv|send|ping`.
//!
//! - `recv --port P`: accepts TCP connections and discards what they send; prints one JSON
//!   line per second `{"t": s, "bytes": n, "mbps": x}` (receiver goodput).
//! - `send --to ADDR:PORT --cc NAME --duration S [--on S --off S] [--bytes N]`: connects with
//!   congestion control `NAME` set on the socket (`TCP_CONGESTION`, so the kernel's or a
//!   loaded eBPF control), writes as fast as the connection takes (in on periods only), and
//!   prints one JSON line per second with the bytes acknowledged in it, the Mbps, the kernel's
//!   window, segments in flight, the peer's window, the counters so far, and its
//!   smoothed RTT (`TCP_INFO`, sampled every 10 ms while data is unacknowledged: median and
//!   minimum) and the window, and the kernel's pacing rate (median of the same samples),
//!   delivery rate and minimum RTT (`pacing_mbps`, `delivery_mbps`, `kernel_min_rtt_ms`),
//!   and the largest retransmission timer and RTT variance of those samples
//!   (`rto_timer_ms_max`, `rttvar_ms_max`);
//!   a last line `{"summary": ...}` has the totals, with the
//!   kernel's loss-recovery counters (`TCP_INFO`: retransmitted segments, retransmission
//!   timeouts, D-SACKed duplicates, reordering events, data segments sent, and the time the
//!   sender was busy and limited by the receive window or the send buffer) — what
//!   `cellshare crosscheck` compares with the simulator. `TCP_NOTSENT_LOWAT` keeps at most 128 KB
//!   unsent in the socket so an off period stops the flow promptly.
//! - `ping --to ADDR:PORT --count N`: opens N connections to a port nobody listens on and
//!   times each SYN → RST round trip; prints `{"rtt_ms": [...], "min": .., "median": ..}`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

/// `struct tcp_info` of Linux up to `tcpi_total_rto_time` (Linux 6.7; the layout is
/// append-only, and an older kernel fills a shorter prefix, leaving the rest 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpInfo {
    /// Connection state.
    pub state: u8,
    /// Congestion-avoidance state.
    pub ca_state: u8,
    /// Retransmits.
    pub retransmits: u8,
    /// Probes.
    pub probes: u8,
    /// Back-off.
    pub backoff: u8,
    /// Options.
    pub options: u8,
    /// Window scales.
    pub wscale: u8,
    /// Delivery-rate-app-limited and fastopen flags.
    pub flags: u8,
    /// Retransmission timeout, µs.
    pub rto: u32,
    /// Delayed-ACK timeout, µs.
    pub ato: u32,
    /// Send MSS.
    pub snd_mss: u32,
    /// Receive MSS.
    pub rcv_mss: u32,
    /// Unacknowledged segments.
    pub unacked: u32,
    /// SACKed segments.
    pub sacked: u32,
    /// Lost segments.
    pub lost: u32,
    /// Retransmitted segments in flight.
    pub retrans: u32,
    /// FACKs.
    pub fackets: u32,
    /// Time since last data sent, ms.
    pub last_data_sent: u32,
    /// Time since last ACK sent, ms.
    pub last_ack_sent: u32,
    /// Time since last data received, ms.
    pub last_data_recv: u32,
    /// Time since last ACK received, ms.
    pub last_ack_recv: u32,
    /// Path MTU.
    pub pmtu: u32,
    /// Receive slow-start threshold.
    pub rcv_ssthresh: u32,
    /// Smoothed RTT, µs.
    pub rtt: u32,
    /// RTT variance, µs.
    pub rttvar: u32,
    /// Slow-start threshold, segments.
    pub snd_ssthresh: u32,
    /// Congestion window, segments.
    pub snd_cwnd: u32,
    /// Advertised MSS.
    pub advmss: u32,
    /// Reordering.
    pub reordering: u32,
    /// Receiver RTT estimate, µs.
    pub rcv_rtt: u32,
    /// Receive space.
    pub rcv_space: u32,
    /// Total retransmits.
    pub total_retrans: u32,
    /// Pacing rate, bytes/s.
    pub pacing_rate: u64,
    /// Maximum pacing rate, bytes/s.
    pub max_pacing_rate: u64,
    /// Bytes acknowledged.
    pub bytes_acked: u64,
    /// Bytes received.
    pub bytes_received: u64,
    /// Segments sent.
    pub segs_out: u32,
    /// Segments received.
    pub segs_in: u32,
    /// Bytes written and not yet sent.
    pub notsent_bytes: u32,
    /// Minimum RTT, µs.
    pub min_rtt: u32,
    /// Data segments received.
    pub data_segs_in: u32,
    /// Data segments sent (retransmissions included).
    pub data_segs_out: u32,
    /// Delivery rate, bytes/s.
    pub delivery_rate: u64,
    /// Time busy sending, µs.
    pub busy_time: u64,
    /// Time limited by the receive window, µs.
    pub rwnd_limited: u64,
    /// Time limited by the send buffer, µs.
    pub sndbuf_limited: u64,
    /// Segments delivered.
    pub delivered: u32,
    /// Segments delivered with CE marks.
    pub delivered_ce: u32,
    /// Bytes sent (retransmissions included).
    pub bytes_sent: u64,
    /// Bytes retransmitted.
    pub bytes_retrans: u64,
    /// Duplicate segments reported by D-SACK.
    pub dsack_dups: u32,
    /// Reordering events seen.
    pub reord_seen: u32,
    /// Out-of-order segments received.
    pub rcv_ooopack: u32,
    /// Peer's advertised window, bytes.
    pub snd_wnd: u32,
    /// Local advertised window, bytes.
    pub rcv_wnd: u32,
    /// Rehash attempts.
    pub rehash: u32,
    /// Retransmission timeouts (recurring ones included).
    pub total_rto: u16,
    /// Recoveries from retransmission timeouts.
    pub total_rto_recoveries: u16,
    /// Time spent in RTO recoveries, ms.
    pub total_rto_time: u32,
}

/// Reads `TCP_INFO` of a socket.
pub fn tcp_info(s: &TcpStream) -> std::io::Result<TcpInfo> {
    let mut info = TcpInfo::default();
    let mut len = std::mem::size_of::<TcpInfo>() as libc::socklen_t;
    // SAFETY: `info` is a plain repr(C) struct of `len` bytes; the kernel writes at most `len`.
    let r = unsafe { libc::getsockopt(s.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_INFO, (&mut info as *mut TcpInfo).cast(), &mut len) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(info)
}

/// BBR's model as Linux reports it (`TCP_CC_INFO` → `struct tcp_bbr_info`,
/// `include/uapi/linux/inet_diag.h`): the bandwidth estimate (bytes/s, `bbr_bw_lo` and
/// `bbr_bw_hi`), the minimum RTT (µs) and the gains (`<< 8`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BbrInfo {
    /// Lower 32 bits of the bandwidth estimate, bytes/s.
    pub bw_lo: u32,
    /// Upper 32 bits of the bandwidth estimate.
    pub bw_hi: u32,
    /// Minimum RTT (BBR's RTprop), µs.
    pub min_rtt: u32,
    /// Pacing gain × 256.
    pub pacing_gain: u32,
    /// cwnd gain × 256.
    pub cwnd_gain: u32,
}

impl BbrInfo {
    /// The bandwidth estimate in bytes/s.
    pub fn bw(&self) -> u64 {
        (self.bw_hi as u64) << 32 | self.bw_lo as u64
    }
}

/// `TCP_CC_INFO` of a socket whose congestion control is BBR; `None` for another control
/// (the kernel reports a different structure or nothing).
pub fn bbr_info(s: &TcpStream) -> Option<BbrInfo> {
    let mut info = BbrInfo::default();
    let mut len = std::mem::size_of::<BbrInfo>() as libc::socklen_t;
    // SAFETY: `info` is a plain repr(C) struct of `len` bytes; the kernel writes at most `len`.
    let r = unsafe { libc::getsockopt(s.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_CC_INFO, (&mut info as *mut BbrInfo).cast(), &mut len) };
    (r == 0 && len as usize == std::mem::size_of::<BbrInfo>()).then_some(info)
}

/// Raises the calling process to real-time priority (SCHED_FIFO 10, below the emulator's
/// loop at 20) when permitted (root); otherwise leaves it as it is. The idle-RTT probe uses
/// it, so waiting for a CPU after the answer arrives (milliseconds on a loaded machine) does
/// not count as RTT. Senders and receivers do not: many real-time endpoints moving 100 Mbps
/// (the TCP stack runs in their context) trip the kernel's real-time throttling, which
/// stalls the emulator's loop with them (measured: p99 added delay 0.2 ms → 3–5 ms with 10
/// flows). Children do not inherit the policy (SCHED_RESET_ON_FORK).
pub fn realtime_priority() {
    // SAFETY: plain syscall on the calling process.
    unsafe {
        let p = libc::sched_param { sched_priority: 10 };
        libc::sched_setscheduler(0, libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK, &p);
    }
}

/// Gives the calling process the highest time-sharing priority (nice −20) when permitted.
/// Receivers use it: a UE reads what arrives at once, and Linux acknowledges a lone segment
/// when the application reads it; a receiver that waits for a CPU on a loaded machine reads
/// late and its ACKs come late, which Legilimens reads as gaps in the schedule. Not real-time
/// priority: many real-time endpoints moving 100 Mbps trip the kernel's real-time throttling,
/// which stalls the emulator's loop with them.
pub fn prompt_priority() {
    // SAFETY: plain syscall on the calling process.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, -20);
    }
}

/// Sets the congestion control of a socket by name.
pub fn set_congestion(s: &TcpStream, name: &str) -> Result<(), String> {
    // SAFETY: the name buffer is valid for its length.
    let r = unsafe {
        libc::setsockopt(s.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_CONGESTION, name.as_ptr().cast(), name.len() as libc::socklen_t)
    };
    if r < 0 {
        let avail = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").unwrap_or_default();
        return Err(format!(
            "cannot set congestion control {name:?}: {} (available: {}; the project's eBPF controls load with `cellshare bpf load NAME`)",
            std::io::Error::last_os_error(),
            avail.trim()
        ));
    }
    Ok(())
}

fn set_int(s: &TcpStream, level: i32, opt: i32, v: i32) {
    set_int_fd(s.as_raw_fd(), level, opt, v);
}

fn set_int_fd(fd: i32, level: i32, opt: i32, v: i32) {
    // SAFETY: `v` is a valid int for the call.
    unsafe {
        libc::setsockopt(fd, level, opt, (&v as *const i32).cast(), std::mem::size_of::<i32>() as libc::socklen_t);
    }
}

/// Receiver: accept connections on `port` forever, print per-second goodput lines.
pub fn recv(port: u16) -> Result<(), String> {
    prompt_priority();
    let l = TcpListener::bind(("0.0.0.0", port)).map_err(|e| format!("cannot listen on port {port}: {e}"))?;
    let total = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    {
        let total = total.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            let mut last = 0;
            let mut sec = 0u64;
            loop {
                sec += 1;
                let target = start + Duration::from_secs(sec);
                std::thread::sleep(target.saturating_duration_since(Instant::now()));
                let now = total.load(std::sync::atomic::Ordering::Relaxed);
                let b = now - last;
                last = now;
                println!("{{\"t\": {sec}, \"bytes\": {b}, \"mbps\": {:.3}}}", b as f64 * 8.0 / 1e6);
                let _ = std::io::stdout().flush();
            }
        });
    }
    for conn in l.incoming() {
        let Ok(mut c) = conn else { continue };
        let total = total.clone();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 18];
            while let Ok(n) = c.read(&mut buf) {
                if n == 0 {
                    break;
                }
                total.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
            }
        });
    }
    Ok(())
}

/// Sender options.
#[derive(Clone, Debug)]
pub struct SendOptions {
    /// Receiver.
    pub to: SocketAddr,
    /// Congestion control name.
    pub cc: String,
    /// Seconds to run.
    pub duration_s: f64,
    /// On/off periods, seconds (on first).
    pub on_off: Option<(f64, f64)>,
    /// Bytes to send, then stop.
    pub bytes: Option<u64>,
    /// DSCP to mark the packets with (0..=63).
    pub dscp: u8,
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "null".into()
    }
}

/// Sender: connect, set the congestion control, send, report per second. A SIGTERM ends the
/// sending early and still prints the summary line (its `mbps` over the time actually sent):
/// the emulator stops its senders with SIGTERM when the scenario's clock has run out, and a
/// sender started late (the spawner starts one process at a time, tens of ms each) would
/// otherwise die before its summary, leaving its flow without TCP statistics.
pub fn send(o: &SendOptions) -> Result<(), String> {
    let term = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGTERM, term.clone())
        .map_err(|e| format!("cannot install the SIGTERM handler: {e}"))?;
    let mut s = None;
    let t_conn = Instant::now();
    while s.is_none() {
        match TcpStream::connect_timeout(&o.to, Duration::from_secs(2)) {
            Ok(c) => s = Some(c),
            // The receiver may still be starting.
            Err(e) if t_conn.elapsed() < Duration::from_secs(5) => {
                let _ = e;
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(format!("cannot connect to {}: {e}", o.to)),
        }
    }
    let mut s = s.expect("connected");
    set_congestion(&s, &o.cc)?;
    if o.dscp > 0 {
        set_int(&s, libc::IPPROTO_IP, libc::IP_TOS, (o.dscp as i32) << 2);
    }
    set_int(&s, libc::IPPROTO_TCP, libc::TCP_NOTSENT_LOWAT, 128 * 1024);
    s.set_nonblocking(true).map_err(|e| e.to_string())?;
    let buf = vec![0x5au8; 64 * 1024];
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(o.duration_s);
    let mut sent: u64 = 0;
    let mut sec = 1u64;
    let mut acked_prev = 0u64;
    let mut rtts: Vec<f64> = Vec::new();
    let mut all_rtts: Vec<f64> = Vec::new();
    // The kernel's pacing rate (Mbit/s) sampled with the RTT: BBR paces at
    // `pacing_gain · BtlBw · 99 %` (`bbr_set_pacing_rate`), so its per-second median shows the
    // bandwidth filter, which TCP_INFO does not report directly.
    let mut pacing: Vec<f64> = Vec::new();
    // With BBR: its bandwidth estimate (Mbit/s) and the gains, same samples (`TCP_CC_INFO`).
    let is_bbr = o.cc == "bbr";
    let mut bbr_bw: Vec<f64> = Vec::new();
    let mut bbr_last = BbrInfo::default();
    let mut probe_rtt_ms = 0u64;
    // The retransmission timer's length (`tcpi_rto`, with any back-off) and the RTT variance
    // (`tcpi_rttvar`), µs: their largest values over the second's samples, to compare where
    // a timeout could fire with the simulator's.
    let (mut rto_max_us, mut rttvar_max_us) = (0u32, 0u32);
    let mut next_sample = start;
    let fd = s.as_raw_fd();
    loop {
        let now = Instant::now();
        if now >= end || term.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        if now >= next_sample {
            next_sample += Duration::from_millis(10);
            if let Ok(i) = tcp_info(&s) {
                if i.rtt > 0 && i.unacked > 0 {
                    rtts.push(i.rtt as f64 / 1000.0);
                    pacing.push(i.pacing_rate as f64 * 8.0 / 1e6);
                    rto_max_us = rto_max_us.max(i.rto);
                    rttvar_max_us = rttvar_max_us.max(i.rttvar);
                }
                if is_bbr {
                    if let Some(b) = bbr_info(&s) {
                        bbr_bw.push(b.bw() as f64 * 8.0 / 1e6);
                        // PROBE_RTT is the only state with both gains 1 (`bbr_update_gains`).
                        if b.pacing_gain == 256 && b.cwnd_gain == 256 {
                            probe_rtt_ms += 10;
                        }
                        bbr_last = b;
                    }
                }
            }
        }
        if now >= start + Duration::from_secs(sec) {
            let i = tcp_info(&s).unwrap_or_default();
            let b = i.bytes_acked.saturating_sub(acked_prev);
            acked_prev = i.bytes_acked;
            let min = rtts.iter().cloned().fold(f64::INFINITY, f64::min);
            let bbr = if is_bbr {
                let line = format!(
                    ", \"bbr_bw_mbps\": {}, \"bbr_min_rtt_ms\": {:.3}, \"bbr_pacing_gain\": {:.3}, \"bbr_cwnd_gain\": {:.3}, \"bbr_probe_rtt_ms\": {probe_rtt_ms}",
                    json_num(median(&mut bbr_bw)),
                    bbr_last.min_rtt as f64 / 1000.0,
                    bbr_last.pacing_gain as f64 / 256.0,
                    bbr_last.cwnd_gain as f64 / 256.0,
                );
                bbr_bw.clear();
                probe_rtt_ms = 0;
                line
            } else {
                String::new()
            };
            println!(
                "{{\"t\": {sec}, \"bytes\": {b}, \"mbps\": {:.3}, \"rtt_ms\": {}, \"rtt_min_ms\": {}, \"cwnd\": {}, \"retrans\": {}, \"unacked\": {}, \"snd_wnd\": {}, \"rto\": {}, \"pacing_mbps\": {}, \"delivery_mbps\": {:.3}, \"kernel_min_rtt_ms\": {:.3}, \"rto_timer_ms_max\": {:.3}, \"rttvar_ms_max\": {:.3}{bbr}}}",
                b as f64 * 8.0 / 1e6,
                json_num(median(&mut rtts.clone())),
                json_num(min),
                i.snd_cwnd,
                i.total_retrans,
                i.unacked,
                i.snd_wnd,
                i.total_rto,
                json_num(median(&mut pacing)),
                i.delivery_rate as f64 * 8.0 / 1e6,
                i.min_rtt as f64 / 1000.0,
                rto_max_us as f64 / 1000.0,
                rttvar_max_us as f64 / 1000.0
            );
            pacing.clear();
            (rto_max_us, rttvar_max_us) = (0, 0);

            let _ = std::io::stdout().flush();
            all_rtts.append(&mut rtts);
            sec += 1;
        }
        let elapsed = now.duration_since(start).as_secs_f64();
        let on = match o.on_off {
            Some((on, off)) => elapsed % (on + off) < on,
            None => true,
        };
        let want = o.bytes.is_none_or(|b| sent < b);
        let wake = next_sample.min(start + Duration::from_secs(sec)).min(end);
        let timeout_ms = wake.saturating_duration_since(Instant::now()).as_millis().max(1) as i32;
        if on && want {
            let n = o.bytes.map_or(buf.len() as u64, |b| (b - sent).min(buf.len() as u64)) as usize;
            match s.write(&buf[..n]) {
                Ok(w) => {
                    sent += w as u64;
                    continue;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    let mut p = libc::pollfd { fd, events: libc::POLLOUT, revents: 0 };
                    // SAFETY: one valid pollfd.
                    unsafe { libc::poll(&mut p, 1, timeout_ms) };
                }
                Err(e) => return Err(format!("send to {}: {e}", o.to)),
            }
        } else {
            std::thread::sleep(Duration::from_millis(timeout_ms as u64));
        }
    }
    let sent_s = start.elapsed().as_secs_f64().min(o.duration_s).max(1e-9);
    let i = tcp_info(&s).unwrap_or_default();
    all_rtts.append(&mut rtts);
    let min = all_rtts.iter().cloned().fold(f64::INFINITY, f64::min);
    let rtt_samples = all_rtts.len();
    println!(
        "{{\"summary\": {{\"cc\": \"{}\", \"bytes_acked\": {}, \"mbps\": {:.3}, \"rtt_ms\": {}, \"rtt_min_ms\": {}, \"rtt_samples\": {}, \"retrans\": {}, \"rto\": {}, \"dsack_dups\": {}, \"reord_seen\": {}, \"data_segs_out\": {}, \"busy_ms\": {}, \"rwnd_limited_ms\": {}, \"sndbuf_limited_ms\": {}}}}}",
        o.cc,
        i.bytes_acked,
        i.bytes_acked as f64 * 8.0 / 1e6 / sent_s,
        json_num(median(&mut all_rtts)),
        json_num(min),
        rtt_samples,
        i.total_retrans,
        i.total_rto,
        i.dsack_dups,
        i.reord_seen,
        i.data_segs_out,
        i.busy_time / 1000,
        i.rwnd_limited / 1000,
        i.sndbuf_limited / 1000
    );
    Ok(())
}

/// The wait (µs, within one 1 ms TTI) before each of `count` probes: `count` phases spread
/// evenly over the TTI from `start_us`.
fn probe_phases_us(start_us: u64, count: u32) -> impl Iterator<Item = u64> {
    let n = count.max(1) as u64;
    (0..count as u64).map(move |i| (start_us + i * 1000 / n) % 1000)
}

/// Idle RTT probe: `count` SYN → RST round trips to `to` (a port with no listener).
pub fn ping(to: SocketAddr, count: u32, interval: Duration) -> Result<Vec<f64>, String> {
    realtime_priority();
    let mut out = Vec::new();
    // Probes leave at phases spread evenly over the emulator's 1 ms TTI grid, from a random
    // start: a fixed interval would lock every probe to the same phase (each starts right
    // after the previous answer, which arrives at a TTI boundary plus the uplink delay) and
    // measure one TTI alignment every time. Evenly spread rather than drawn independently, so
    // that one probe meets the grid within 1/count ms of its best case: with 9 independent
    // draws the best probe still waited > 0.3 ms for its TTI 4 % of the time (0.7^9), which on
    // top of the end hosts' own ~0.3-0.9 ms put a run's minimum past base + 2 ms (CI, once).
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    for phase_us in probe_phases_us(seed % 1000, count) {
        std::thread::sleep(Duration::from_micros(phase_us));
        let t = Instant::now();
        match TcpStream::connect_timeout(&to, Duration::from_secs(3)) {
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => out.push(t.elapsed().as_secs_f64() * 1000.0),
            Ok(_) => out.push(t.elapsed().as_secs_f64() * 1000.0),
            Err(e) => return Err(format!("probe to {to}: {e}")),
        }
        std::thread::sleep(interval);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_info_and_congestion_on_loopback() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let a = l.local_addr().unwrap();
        let c = TcpStream::connect(a).unwrap();
        let (_srv, _) = l.accept().unwrap();
        set_congestion(&c, "reno").unwrap();
        let e = set_congestion(&c, "no-such-cc").unwrap_err();
        assert!(e.contains("no-such-cc") && e.contains("available"), "{e}");
        let i = tcp_info(&c).unwrap();
        assert_eq!(i.state, 1); // TCP_ESTABLISHED
        assert!(i.snd_mss > 0);
        // The layout reaches the RTO counters (Linux ≥ 6.7): nothing sent, nothing timed out.
        assert_eq!((i.total_rto, i.total_retrans, i.data_segs_out), (0, 0, 0));
        assert_eq!(std::mem::size_of::<TcpInfo>(), 248);
    }

    #[test]
    fn bbr_info_only_for_bbr() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (_srv, _) = l.accept().unwrap();
        set_congestion(&c, "reno").unwrap();
        assert_eq!(bbr_info(&c), None, "Reno reports no tcp_bbr_info");
        if set_congestion(&c, "bbr").is_err() {
            eprintln!("bbr is not available in this kernel: the BBR half is skipped");
            return;
        }
        let b = bbr_info(&c).expect("BBR reports tcp_bbr_info");
        // No data has been sent, yet the handshake measured the path: SRTT and the minimum
        // RTT are set (a loopback round trip, well under a second; without a sample Linux
        // reports `tcp_min_rtt` as ~0U, 4294967295 µs, and SRTT as 0), and BBR's RTprop is
        // that minimum: `bbr_init` took `tcp_min_rtt` (docs/tcp.md). Comparing RTprop with
        // `tcpi_min_rtt` alone also held with no sample at all (both ~0U).
        let i = tcp_info(&c).unwrap();
        assert_eq!(i.data_segs_out, 0);
        assert!(i.rtt > 0 && i.min_rtt > 0 && i.min_rtt < 1_000_000, "handshake sample: {i:?}");
        assert!(i.min_rtt <= i.rtt * 2, "the minimum is the handshake's sample: {i:?}");
        assert_eq!(b.min_rtt, i.min_rtt, "{b:?}");
    }

    #[test]
    fn probe_phases_cover_the_tti_evenly() {
        for (start, count) in [(0, 9), (999, 9), (437, 5), (12, 1)] {
            let mut p: Vec<u64> = probe_phases_us(start, count).collect();
            assert_eq!(p.len(), count as usize);
            p.sort_unstable();
            p.dedup();
            assert_eq!(p.len(), count as usize, "distinct phases: {p:?}");
            assert!(p.iter().all(|&x| x < 1000));
            // Around the circle, no gap wider than 1000/count (+1 µs of rounding): whatever
            // the phase of the TTI grid, one probe is within 1/count ms of its boundary.
            let gaps = p.windows(2).map(|w| w[1] - w[0]).chain(std::iter::once(p[0] + 1000 - p[p.len() - 1]));
            assert!(gaps.clone().all(|g| g <= 1000 / count as u64 + 1), "{start} {count}: {p:?}");
        }
    }

    #[test]
    fn ping_times_refused_connections() {
        // Find a free port, then probe it with nobody listening.
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let r = ping(format!("127.0.0.1:{port}").parse().unwrap(), 3, Duration::from_millis(1)).unwrap();
        assert_eq!(r.len(), 3);
        assert!(r.iter().all(|&x| x >= 0.0 && x < 1000.0));
    }
}
