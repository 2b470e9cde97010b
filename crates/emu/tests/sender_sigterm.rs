//! `cellshare-emu traffic send` stopped by SIGTERM (as the emulator stops its senders when the
//! scenario's clock has run out) still prints its summary line, with its rate over the time it
//! actually sent.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_cellshare-emu");

#[test]
fn a_sender_stopped_by_sigterm_prints_its_summary() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut recv = Command::new(EXE)
        .args(["traffic", "recv", "--port", &port.to_string()])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut send = Command::new(EXE)
        .args(["traffic", "send", "--to", &format!("127.0.0.1:{port}"), "--cc", "reno", "--duration", "60"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = BufReader::new(send.stdout.take().unwrap()).lines();
    let mut lines = lines.map(|l| l.unwrap());
    // The first per-second line: the sender is connected and sending.
    let first = lines.next().expect("a per-second line");
    assert!(first.contains("\"t\": 1"), "{first}");
    let sent_for = Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(send.id() as i32, libc::SIGTERM) };
    let rest: Vec<String> = lines.collect();
    let status = send.wait().unwrap();
    let waited = sent_for.elapsed();
    let _ = recv.kill();
    let _ = recv.wait();
    assert!(status.success(), "{status:?}");
    assert!(waited < Duration::from_secs(5), "the sender took {waited:?} to stop");
    let last = rest.last().expect("a summary line");
    let v: serde_json::Value = serde_json::from_str(last).unwrap();
    let s = &v["summary"];
    let acked = s["bytes_acked"].as_u64().unwrap();
    assert!(acked > 0, "{last}");
    // The rate is over the ~1 s it sent, not the 60 s asked for: bytes·8/rate is that time.
    let secs = acked as f64 * 8.0 / 1e6 / s["mbps"].as_f64().unwrap();
    assert!((0.9..5.0).contains(&secs), "rate over {secs} s: {last}");
}
