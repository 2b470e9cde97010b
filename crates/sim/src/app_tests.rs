//! End-to-end checks of the apps of `cellshare-apps` in the simulator: each alone on a link
//! whose behaviour is known, so each result has an exact expected value; their inputs; determinism.

use std::sync::Arc;

use cellshare_apps::Report;
use cellshare_channel::MahimahiTrace;

use crate::TraceSet;
use crate::results::SessionResult;
use crate::{RunResult, Scenario, Simulation};

fn run_with(toml: &str, traces: &TraceSet) -> RunResult {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&sc, traces).unwrap_or_else(|e| panic!("{e}")).run()
}

fn run(toml: &str) -> RunResult {
    run_with(toml, &TraceSet::new())
}

fn call(r: &SessionResult) -> &cellshare_apps::VideoCallReport {
    match &r.report {
        Report::VideoCall(c) => c,
        _ => panic!("not a call"),
    }
}

fn stream(r: &SessionResult) -> &cellshare_apps::StreamReport {
    match &r.report {
        Report::Stream(c) => c,
        _ => panic!("not a stream"),
    }
}

fn web(r: &SessionResult) -> &cellshare_apps::WebReport {
    match &r.report {
        Report::Web(c) => c,
        _ => panic!("not web"),
    }
}

/// A Mahimahi trace of `mbps_before` for `step_ms`, then `mbps_after` until `len_ms` (one
/// 1500-byte opportunity every 12/rate ms).
fn step_trace(mbps_before: f64, mbps_after: f64, step_ms: u64, len_ms: u64) -> Arc<MahimahiTrace> {
    let mut text = String::new();
    let mut carried = 0.0;
    for ms in 1..=len_ms {
        let rate = if ms <= step_ms { mbps_before } else { mbps_after };
        carried += rate * 1e6 / 8.0 / 1000.0 / 1500.0; // opportunities per ms
        while carried >= 1.0 {
            text.push_str(&format!("{ms}\n"));
            carried -= 1.0;
        }
    }
    Arc::new(MahimahiTrace::parse(&text).unwrap())
}

#[test]
fn a_call_alone_on_a_fixed_link_reaches_its_top_bitrate_at_the_path_delay() {
    let r = run(r#"
[simulation]
duration_s = 90
[[ues]]
channel = { kind = "fixed", rate_mbps = 20 }
[[flows]]
name = "call"
ue = 0
app = { kind = "video_call", max_kbps = 2500 }
transport = { kind = "udp" }
"#);
    let c = call(&r.video_calls[0]);
    assert_eq!(r.video_calls[0].name, "call");
    let n = c.frames.target_kbps.len();
    assert!((c.frames.target_kbps[n - 1] - 2500.0).abs() < 1.0, "target at the end {}", c.frames.target_kbps[n - 1]);
    // The path: 10 ms remote link, the wait for the next TTI and the frame at 20 Mbit/s
    // (a 2500 kbit/s, 30 fps frame is 10.4 kB: 4.2 ms); nothing queues for long.
    assert!(c.frame_delay_p50_ms > 10.0 && c.frame_delay_p50_ms < 20.0, "p50 {}", c.frame_delay_p50_ms);
    assert!(c.frame_delay_p99_ms < 25.0, "p99 {}", c.frame_delay_p99_ms);
    assert_eq!((c.frames_lost, c.freezes), (0, 0));
    assert!((c.fps - 30.0).abs() < 0.1, "{}", c.fps);
    // The legs are flows: media down, feedback up (fixed uplink delay: no modelled uplink).
    let names: Vec<&str> = r.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["call", "call.feedback"]);
    assert_eq!(r.flows[0].transport, "udp");
    assert_eq!(r.flows[1].direction, Some("uplink"));
    assert!(r.flows[1].bytes_delivered > 0);
}

#[test]
fn a_call_behind_a_capacity_drop_backs_off_and_bode_bounds_its_delay() {
    // BoDe Fig. 1's set-up: 6 Mbit/s, then 0.6 Mbit/s.
    let mut traces = TraceSet::new();
    traces.insert("step".into(), step_trace(6.0, 0.6, 60_000, 120_000));
    let sc = |aqm: &str| {
        format!(
            r#"
[simulation]
duration_s = 90
[cell]
aqm = {aqm}
[[ues]]
channel = {{ kind = "trace", file = "step" }}
[[flows]]
name = "call"
ue = 0
app = {{ kind = "video_call", max_kbps = 8000 }}
transport = {{ kind = "udp" }}
"#
        )
    };
    let fifo = run_with(&sc(r#"{ kind = "tail_drop" }"#), &traces);
    let bode = run_with(&sc(r#"{ kind = "bode", bounded_delay_ms = 100 }"#), &traces);
    let delays_after = |r: &RunResult| -> Vec<f64> {
        let c = call(&r.video_calls[0]);
        c.frames.t_s.iter().zip(&c.frames.delay_ms).filter(|(t, d)| **t >= 60.0 && d.is_finite()).map(|(_, d)| *d).collect()
    };
    let rate_before = |r: &RunResult| -> f64 {
        let c = call(&r.video_calls[0]);
        let v: Vec<f64> = c.frames.t_s.iter().zip(&c.frames.target_kbps).filter(|(t, _)| **t >= 50.0 && **t < 60.0).map(|(_, k)| *k).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    // Before the drop the call uses most of the 6 Mbit/s.
    assert!(rate_before(&fifo) > 4000.0, "{}", rate_before(&fifo));
    let f_max = delays_after(&fifo).iter().copied().fold(0.0, f64::max);
    let b_max = delays_after(&bode).iter().copied().fold(0.0, f64::max);
    // Behind the FIFO, what was in flight at the drop queues for seconds (the paper: "up
    // to 4 seconds"); BoDe drops what waited past 100 ms.
    assert!(f_max > 1000.0, "FIFO max frame delay after the drop {f_max}");
    assert!(b_max < 400.0, "BoDe max frame delay after the drop {b_max}");
    // The call itself backs off: at the end it sends below the new capacity.
    let c = call(&fifo.video_calls[0]);
    assert!(*c.frames.target_kbps.last().unwrap() < 600.0);
}

#[test]
fn a_stream_on_a_link_with_a_bitrate_step_switches_rungs_as_bb_does() {
    // 8 Mbit/s for 100 s, then 1 Mbit/s: BB stays at the top while its 60 s buffer drains
    // through the cushion, then walks down to the rungs the link sustains.
    let mut traces = TraceSet::new();
    traces.insert("step".into(), step_trace(8.0, 1.0, 100_000, 400_000));
    let r = run_with(
        r#"
[simulation]
duration_s = 250
[[ues]]
channel = { kind = "trace", file = "step" }
[[flows]]
name = "video"
ue = 0
app = { kind = "stream", abr = { kind = "bb" } }
transport = { kind = "tcp" }
"#,
        &traces,
    );
    let s = stream(&r.streams[0]);
    assert_eq!(s.abr, "bb");
    let levels: Vec<(f64, u8, f64)> = s.chunks.request_t_s.iter().zip(&s.chunks.level).zip(&s.chunks.buffer_s).map(|((t, l), b)| (*t, *l, *b)).collect();
    let before: Vec<u8> = levels.iter().filter(|x| x.0 > 40.0 && x.0 < 100.0).map(|x| x.1).collect();
    assert!(before.iter().all(|&l| l == 5), "top rung before the step: {before:?}");
    let after: Vec<u8> = levels.iter().filter(|x| x.0 > 100.0).map(|x| x.1).collect();
    assert_eq!(after[0], 5, "BB does not react to throughput: {after:?}");
    assert!(after.iter().any(|&l| l <= 1), "down to the rungs 1 Mbit/s sustains: {after:?}");
    // Each choice follows the buffer: below the reservoir (5 s) the lowest rung.
    for w in levels.windows(2) {
        if w[0].2 <= 5.0 {
            assert_eq!(w[1].1, 0, "{levels:?}");
        }
    }
    assert!(s.startup_delay_s < 0.5, "{}", s.startup_delay_s);
    // The two legs: chunks down, requests up.
    assert_eq!(r.flows.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["video", "video.request"]);
}

#[test]
fn page_load_time_grows_with_rtt_as_the_model_says() {
    // A fixed page: 30 kB main object, 30 objects of 20 kB, over 6 connections. The model:
    // one RTT for the main object, then ⌈30 / 6⌉ = 5 request rounds, each at least an RTT,
    // plus slow start and the bytes at the cell's rate.
    let plt = |remote_ms: f64| {
        let r = run(&format!(
            r#"
[simulation]
duration_s = 30
[wired]
remote_delay_ms = {remote_ms}
uplink_delay_ms = 4
[[ues]]
channel = {{ kind = "fixed", rate_mbps = 50 }}
[[flows]]
name = "web"
ue = 0
app = {{ kind = "web", parsing_ms = 0, page = {{ kind = "fixed", main_bytes = 30000, objects = 30, object_bytes = 20000 }} }}
transport = {{ kind = "tcp" }}
"#
        ));
        let w = web(&r.web[0]);
        assert_eq!(w.pages_loaded, 1);
        assert_eq!(r.flows.len(), 12, "six connections, two legs each");
        w.load_time_p50_s
    };
    let mut prev = 0.0;
    for remote in [5.0, 20.0, 50.0, 100.0] {
        // RTT: 2 × remote + the 4 ms uplink + the TTI.
        let rtt = (2.0 * remote + 4.0 + 1.0) / 1000.0;
        let t = plt(remote);
        assert!(t >= 6.0 * rtt, "remote {remote} ms: {t} s < 6 RTTs ({})", 6.0 * rtt);
        assert!(t < 6.0 * rtt + 4.0 * rtt + 0.1, "remote {remote} ms: {t} s");
        assert!(t > prev);
        prev = t;
    }
}

#[test]
fn apps_with_a_modelled_uplink_send_through_it_and_results_are_deterministic() {
    let toml = r#"
[simulation]
duration_s = 20
seed = 3
[[ues]]
count = 3
channel = { kind = "radio", distance_range_m = [100.0, 400.0] }
uplink = { channel = { kind = "fixed", rate_mbps = 5 } }
[[flows]]
name = "call"
ue = 0
app = { kind = "video_call" }
transport = { kind = "udp" }
[[flows]]
name = "video"
ue = 1
app = { kind = "stream", abr = { kind = "festive" } }
transport = { kind = "tcp" }
[[flows]]
name = "web"
ue = 2
app = { kind = "web", pages = 0, reading_s = 2 }
transport = { kind = "tcp" }
"#;
    let a = run(toml);
    let b = run(toml);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    assert!(call(&a.video_calls[0]).frames_rendered > 500);
    assert!(stream(&a.streams[0]).chunks_downloaded >= 4);
    assert!(web(&a.web[0]).pages_loaded >= 3, "{:?}", web(&a.web[0]).pages);
    // The feedback and request legs went through the UEs' device queues (queue delay
    // recorded for their packets there).
    for name in ["call.feedback", "video.request", "web.request"] {
        let f = a.flows.iter().find(|f| f.name == name).unwrap();
        assert_eq!(f.direction, Some("uplink"));
        assert!(f.queue_delay_ms.count > 0, "{name}");
    }
}

#[test]
fn app_inputs_are_checked_with_the_key_named() {
    let base = |flow: &str| format!("[[ues]]\nchannel = {{ kind = \"fixed\", rate_mbps = 10 }}\n[[flows]]\nue = 0\n{flow}\n");
    let err = |flow: &str| Scenario::from_toml_str(&base(flow)).unwrap_err();
    let e = err("transport = { kind = \"udp\" }");
    assert_eq!(e.path, "flows[0].transport.kind", "{e}");
    let e = err("app = { kind = \"video_call\" }\ntransport = { kind = \"tcp\" }");
    assert_eq!(e.path, "flows[0].transport.kind", "{e}");
    assert!(e.to_string().contains("\"udp\""), "{e}");
    let e = err("app = { kind = \"stream\" }\ntransport = { kind = \"udp\" }");
    assert_eq!(e.path, "flows[0].transport.kind", "{e}");
    let e = err("app = { kind = \"video_call\", max_kbps = 10, min_kbps = 50 }\ntransport = { kind = \"udp\" }");
    assert_eq!(e.path, "flows[0].app.max_kbps", "{e}");
    let e = err("app = { kind = \"stream\", ladder_kbps = [300, 200] }\ntransport = { kind = \"tcp\" }");
    assert_eq!(e.path, "flows[0].app.ladder_kbps[1]", "{e}");
    let e = err("app = { kind = \"stream\", abr = { kind = \"mpc\", horizon = 12 } }\ntransport = { kind = \"tcp\" }");
    assert_eq!(e.path, "flows[0].app.abr.horizon", "{e}");
    let e = err("app = { kind = \"web\", connections = 0 }\ntransport = { kind = \"tcp\" }");
    assert_eq!(e.path, "flows[0].app.connections", "{e}");
    let e = err("app = { kind = \"web\", page = { kind = \"fixed\", main_bytes = 0, objects = 1, object_bytes = 1 } }\ntransport = { kind = \"tcp\" }");
    assert_eq!(e.path, "flows[0].app.page.main_bytes", "{e}");
    // Unknown keys name themselves.
    let e = err("app = { kind = \"stream\", abr = { kind = \"bb\", reservoir = 5 } }\ntransport = { kind = \"tcp\" }");
    assert!(e.to_string().contains("reservoir"), "{e}");
    let e = err("app = { kind = \"video_call\", fps = 30, bitrate = 1 }\ntransport = { kind = \"udp\" }");
    assert!(e.to_string().contains("bitrate"), "{e}");
    // Streams and web pages come from the server.
    let up = "[[ues]]\nchannel = { kind = \"fixed\", rate_mbps = 10 }\nuplink = { channel = { kind = \"fixed\", rate_mbps = 5 } }\n[[flows]]\nue = 0\ndirection = \"uplink\"\napp = { kind = \"web\" }\ntransport = { kind = \"tcp\" }\n";
    assert_eq!(Scenario::from_toml_str(up).unwrap_err().path, "flows[0].direction");
    // A workload cannot use udp.
    let wl = "[[ues]]\nchannel = { kind = \"fixed\", rate_mbps = 10 }\n[workload]\ntransport = { kind = \"udp\" }\n";
    assert_eq!(Scenario::from_toml_str(wl).unwrap_err().path, "workload.transport.kind");
}

/// The worked example of docs/extending/app.md (`docs/extending/app_example.rs`, compiled
/// into `cellshare-apps` and registered by its `example-app` feature, which these tests turn
/// on) runs through a scenario like any app: closed-loop heartbeats over the same path as an
/// open-loop ping.
#[test]
fn the_worked_example_app_runs_from_a_scenario() {
    let r = run(r#"
[simulation]
duration_s = 10
[[ues]]
count = 2
channel = { kind = "fixed", rate_mbps = 20 }
uplink = { channel = { kind = "fixed", rate_mbps = 5 } }
[[flows]]
name = "hb"
ue = 0
direction = "uplink"
app = { kind = "heartbeat", interval_ms = 200 }
transport = { kind = "tcp" }
[[flows]]
name = "ping"
ue = 1
direction = "uplink"
app = { kind = "ping", interval_ms = 200 }
transport = { kind = "tcp" }
"#);
    let hb = r.flows.iter().find(|f| f.name == "hb").and_then(|f| f.app.as_ref()).expect("the heartbeat's record");
    let ping = r.flows.iter().find(|f| f.name == "ping").and_then(|f| f.app.as_ref()).expect("the ping's record");
    assert_eq!(hb.kind, "heartbeat");
    assert!(r.flows.iter().any(|f| f.name == "hb.answer" && f.direction.is_none()), "the answer leg goes down");
    // The same path: the same RTT as the ping's, within a TTI or two.
    assert!((hb.rtt_p50_ms - ping.rtt_p50_ms).abs() < 3.0, "heartbeat {} ms vs ping {} ms", hb.rtt_p50_ms, ping.rtt_p50_ms);
    // Closed loop: one heartbeat per interval + RTT (the ping sends one per interval), each answered.
    let period_s = 0.2 + hb.rtt_p50_ms / 1e3;
    let expected = (10.0 / period_s) as u64;
    assert!(hb.requests.abs_diff(expected) <= 2, "{} heartbeats, expected about {expected}", hb.requests);
    assert!(hb.requests < ping.requests, "{} vs {}", hb.requests, ping.requests);
    assert!(hb.completed + 1 >= hb.requests, "{} of {} answered", hb.completed, hb.requests);
    // A bad parameter names its key.
    let bad = "[[ues]]\nuplink = { channel = { kind = \"fixed\", rate_mbps = 5 } }\n[[flows]]\nue = 0\napp = { kind = \"heartbeat\", bytes = 0 }\ntransport = { kind = \"tcp\" }\n";
    let e = Scenario::from_toml_str(bad).and_then(|s| s.validate().map(|_| s)).expect_err("bytes = 0");
    assert_eq!(e.path, "flows[0].app.bytes", "{e}");
}
