//! End-to-end checks of the modelled uplink, uploads, SORPC and interactive apps.

use crate::assembly::TraceSet;
use crate::{RunResult, Scenario, Simulation};

fn run(toml: &str) -> RunResult {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&sc, &TraceSet::new()).unwrap().run()
}

fn upload_with(qdisc: &str, app: &str) -> String {
    format!(
        r#"
[simulation]
duration_s = 12
[wired]
remote_delay_ms = 18
[[ues]]
channel = {{ kind = "fixed", rate_mbps = 50 }}
uplink = {{ channel = {{ kind = "fixed", rate_mbps = 5 }}, qdisc = {{ kind = "{qdisc}" }} }}
[[flows]]
name = "upload"
ue = 0
direction = "uplink"
transport = {{ kind = "tcp", tcp = {{ wmem_max = 2560000 }} }}
{app}
"#
    )
}

const PING: &str = r#"
[[flows]]
name = "ping"
ue = 0
direction = "uplink"
start_s = 2
app = { kind = "ping", interval_ms = 200, request_bytes = 100, response_bytes = 100 }
transport = { kind = "tcp" }
"#;

#[test]
fn upload_fills_the_uplink_and_bloats_the_device_queue() {
    let r = run(&upload_with("fifo", ""));
    let up = &r.flows[0];
    assert_eq!(up.direction, Some("uplink"));
    assert!(up.throughput_mbps > 4.0 && up.throughput_mbps < 5.0, "{}", up.throughput_mbps);
    // The send buffer lets the upload pile up far more than a BDP in the device queue.
    assert!(up.queue_delay_ms.p50 > 300.0, "device-queue sojourn {:?}", up.queue_delay_ms);
    // The wait before service leaves out the TTIs that carry the packet: a 1500-byte packet
    // at 625 bytes per TTI spans 3 TTIs, or 4 when it starts late in one.
    assert_eq!(up.queue_wait_ms.count, up.queue_delay_ms.count);
    let carried = up.queue_delay_ms.mean - up.queue_wait_ms.mean;
    assert!((3.0..=4.0).contains(&carried), "{:?} vs {:?}", up.queue_wait_ms, up.queue_delay_ms);
}

#[test]
fn sorpc_shields_the_ping_from_the_upload() {
    let single = run(&upload_with("fifo", PING));
    let sorpc = run(&upload_with("sorpc", PING));
    let a = single.flows.iter().find(|f| f.name == "ping").unwrap().app.as_ref().unwrap();
    let b = sorpc.flows.iter().find(|f| f.name == "ping").unwrap().app.as_ref().unwrap();
    assert_eq!(a.kind, "ping");
    assert!(b.completed >= 45, "{} of {}", b.completed, b.requests);
    assert!(a.rtt_p50_ms > 5.0 * b.rtt_p50_ms, "single {} ms vs SORPC {} ms", a.rtt_p50_ms, b.rtt_p50_ms);
    // Without queueing a request takes about one base RTT (2·18 + 4 ms, plus TTIs).
    assert!(b.rtt_p50_ms < 80.0, "{}", b.rtt_p50_ms);
    // The response leg is reported as its own flow.
    assert!(sorpc.flows.iter().any(|f| f.name == "ping.response" && f.direction.is_none()));
}

#[test]
fn voip_echoes_every_datagram() {
    let r = run(
        r#"
[simulation]
duration_s = 5
[[ues]]
uplink = { channel = { kind = "fixed", rate_mbps = 10 } }
[[flows]]
name = "call"
ue = 0
direction = "uplink"
app = { kind = "voip" }
transport = { kind = "cbr", rate_mbps = 0.0752, packet_bytes = 160 }
"#,
    );
    let a = r.flows[0].app.as_ref().unwrap();
    assert!(a.requests >= 245, "{}", a.requests);
    assert!(a.completed + 3 >= a.requests, "{} of {}", a.completed, a.requests);
    assert!(a.rtt_p95_ms < 40.0 && a.rtt_p50_ms > 20.0, "{} {}", a.rtt_p50_ms, a.rtt_p95_ms);
}

#[test]
fn downlink_acks_use_the_modelled_uplink() {
    // A saturated single uplink FIFO delays a download's ACKs: its RTT grows by the
    // device-queue sojourn, unlike with SORPC.
    let dl = r#"
[[flows]]
name = "download"
ue = 0
start_s = 4
transport = { kind = "tcp" }
"#;
    let single = run(&upload_with("fifo", dl));
    let sorpc = run(&upload_with("sorpc", dl));
    let rtt = |r: &RunResult| r.flows.iter().find(|f| f.name == "download").unwrap().rtt_ms.p50;
    assert!(rtt(&single) > 300.0 && rtt(&sorpc) < 200.0, "{} vs {}", rtt(&single), rtt(&sorpc));
}

#[test]
fn uploads_need_an_uplink() {
    let e = Scenario::from_toml_str(
        r#"
[[ues]]
[[flows]]
ue = 0
direction = "uplink"
transport = { kind = "tcp" }
"#,
    )
    .unwrap_err();
    assert_eq!(e.path, "flows[0].direction");
    let e = Scenario::from_toml_str(
        r#"
[[ues]]
uplink = { channel = { kind = "fixed", rate_mbps = 5 }, qdisc = { kind = "sorpc", sor_threshold = 1.5 } }
"#,
    )
    .unwrap_err();
    assert_eq!(e.path, "ues[0].uplink.qdisc.sor_threshold");
}
