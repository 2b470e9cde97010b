//! End-to-end checks of the base-station queue disciplines in the simulator: BoDe's bound,
//! the delay-based AQMs against tail drop under TCP, DiffServ classes, strict priority and
//! Sneaker, and their scenario validation.

use crate::assembly::TraceSet;
use crate::{RunResult, Scenario, Simulation};

fn run(toml: &str) -> RunResult {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&sc, &TraceSet::new()).unwrap().run()
}

/// One UE on a fixed link, one flow, the given `cell.aqm`.
fn single(aqm: &str, rate_mbps: f64, transport: &str, duration: f64) -> RunResult {
    run(&format!(
        "[simulation]\nduration_s = {duration}\n[cell]\naqm = {aqm}\n[[ues]]\nchannel = {{ kind = \"fixed\", rate_mbps = {rate_mbps} }}\n[[flows]]\nue = 0\ntransport = {transport}\n"
    ))
}

const CUBIC: &str = "{ kind = \"tcp\", cc = { kind = \"cubic\" } }";

#[test]
fn bode_bounds_the_sojourn_of_an_overloading_udp_flow() {
    // 15 Mbps of CBR into a 10 Mbps UE: tail drop keeps the 512 KB queue full (~420 ms);
    // BoDe (20 ms) serves only packets younger than 20 ms, plus at most the TTIs their
    // transmission spans (1500 B at 1250 B per TTI: 2 TTIs).
    let cbr = "{ kind = \"cbr\", rate_mbps = 15 }";
    let tail = single("{ kind = \"tail_drop\" }", 10.0, cbr, 10.0);
    let bode = single("{ kind = \"bode\", bounded_delay_ms = 20 }", 10.0, cbr, 10.0);
    assert!(tail.queue_delay_ms.p50 > 300.0, "{:?}", tail.queue_delay_ms);
    assert!(bode.queue_delay_ms.max <= 22.0 + 0.2, "{:?}", bode.queue_delay_ms);
    // What BoDe bounds, the wait before service: the queue never runs down to 3 packets,
    // so every served packet waited less than D, and the transmission comes on top. The
    // maximum is exact; tail drop's wait is its standing queue.
    let (wait, delay) = (bode.flows[0].queue_wait_ms, bode.flows[0].queue_delay_ms);
    assert_eq!(wait.count, delay.count);
    assert!(wait.max < 20.0 && wait.p99 <= 20.0 * 1.008, "{wait:?}");
    assert!(wait.p50 > 10.0, "the overload keeps the queue near the bound: {wait:?}");
    assert!(delay.mean - wait.mean >= 1.0, "at least the TTI that carries the last byte: {wait:?} {delay:?}");
    assert!(tail.flows[0].queue_wait_ms.p50 > 300.0, "{:?}", tail.flows[0].queue_wait_ms);
    assert!(bode.drops.bs_dequeue > 0 && bode.drops.bs_enqueue == 0);
    // The link stays busy: BoDe drops only what could not be served in time.
    assert!((bode.ues[0].throughput_mbps - 10.0).abs() < 0.2, "{}", bode.ues[0].throughput_mbps);
}

#[test]
fn delay_based_aqms_cut_the_standing_queue_of_a_tcp_flow() {
    let tail = single("{ kind = \"tail_drop\" }", 20.0, CUBIC, 20.0);
    assert!(tail.queue_delay_ms.p50 > 100.0, "tail drop {:?}", tail.queue_delay_ms);
    for aqm in ["{ kind = \"codel\" }", "{ kind = \"pie\" }", "{ kind = \"bode\" }", "{ kind = \"red\", min_th = 20, max_th = 60 }"] {
        let r = single(aqm, 20.0, CUBIC, 20.0);
        assert!(r.queue_delay_ms.p50 < 0.3 * tail.queue_delay_ms.p50, "{aqm}: {:?}", r.queue_delay_ms);
        assert!(r.flows[0].throughput_mbps > 0.7 * tail.flows[0].throughput_mbps, "{aqm}: {}", r.flows[0].throughput_mbps);
        assert!(r.drops.bs_enqueue + r.drops.bs_dequeue > 0, "{aqm}");
    }
}

#[test]
fn random_disciplines_are_deterministic() {
    for aqm in ["{ kind = \"red\" }", "{ kind = \"pie\", derandomize = false }"] {
        let a = serde_json::to_string(&single(aqm, 20.0, CUBIC, 5.0)).unwrap();
        let b = serde_json::to_string(&single(aqm, 20.0, CUBIC, 5.0)).unwrap();
        assert_eq!(a, b, "{aqm}");
    }
}

#[test]
fn diffserv_serves_classes_in_strict_priority_with_their_own_discipline() {
    // 10 Mbps UE: class 0 (BoDe 50 ms) gets 4 Mbps of CBR, class 1 (BoDe 100 ms) 4 Mbps,
    // class 2 (tail drop) a 20 Mbps CBR overload.
    let r = run(r#"
[simulation]
duration_s = 10
[cell]
aqm = { kind = "diffserv", classes = [
  { dscp = [10], aqm = { kind = "bode", bounded_delay_ms = 50 } },
  { dscp = [20], aqm = { kind = "bode", bounded_delay_ms = 100 } },
  { aqm = { kind = "tail_drop" } },
] }
[[ues]]
channel = { kind = "fixed", rate_mbps = 10 }
[[flows]]
ue = 0
dscp = 10
transport = { kind = "cbr", rate_mbps = 4 }
[[flows]]
ue = 0
dscp = 20
transport = { kind = "cbr", rate_mbps = 4 }
[[flows]]
ue = 0
dscp = 30
transport = { kind = "cbr", rate_mbps = 20 }
"#);
    let class = |n: &str| r.classes.iter().find(|c| c.class == n).unwrap_or_else(|| panic!("{n}"));
    let (c1, c2, c3) = (class("dscp10"), class("dscp20"), class("dscp30"));
    assert!((c1.delivered_mbps - 4.0).abs() < 0.1 && c1.drops == 0, "{c1:?}");
    assert!((c2.delivered_mbps - 4.0).abs() < 0.1 && c2.drops == 0, "{c2:?}");
    assert!(c1.queue_delay_ms.p99 < 5.0 && c2.queue_delay_ms.p99 < 5.0);
    assert!((c3.delivered_mbps - 2.0).abs() < 0.2, "{c3:?}");
    assert!(c3.queue_delay_ms.p50 > 500.0 && c3.drops > 0, "{c3:?}");
    assert!(c1.power > c3.power);
}

/// Two UEs on 20 Mbps fixed links: a Reno background flow to UE 1 and a Reno foreground
/// flow to UE 0 that is on in [5, 15) s.
fn yield_scenario(aqm: &str) -> RunResult {
    run(&format!(
        r#"
[simulation]
duration_s = 25
[cell]
aqm = {aqm}
[[ues]]
count = 2
channel = {{ kind = "fixed", rate_mbps = 20 }}
[[flows]]
name = "bg"
ue = 1
class = "background"
transport = {{ kind = "tcp", cc = {{ kind = "reno" }} }}
[[flows]]
name = "fg"
ue = 0
start_s = 5
stop_s = 15
transport = {{ kind = "tcp", cc = {{ kind = "reno" }} }}
"#
    ))
}

fn bg_share(r: &RunResult, secs: std::ops::Range<usize>) -> f64 {
    let bg: f64 = secs.clone().map(|s| r.flows[0].per_second_mbps[s]).sum();
    let fg: f64 = secs.map(|s| r.flows[1].per_second_mbps[s]).sum();
    bg / (bg + fg)
}

#[test]
fn pf_alone_shares_strict_priority_and_sneaker_yield() {
    let pf = yield_scenario("{ kind = \"tail_drop\" }");
    let strict = yield_scenario("{ kind = \"strict_priority\" }");
    let sneaker = yield_scenario("{ kind = \"sneaker\" }");
    assert!(bg_share(&pf, 7..15) > 0.4, "PF only: {}", bg_share(&pf, 7..15));
    assert!(bg_share(&strict, 7..15) < 0.05, "strict: {}", bg_share(&strict, 7..15));
    assert!(bg_share(&sneaker, 7..15) < 0.2, "sneaker: {}", bg_share(&sneaker, 7..15));
    assert!(sneaker.drops.bs_admission > 0 && strict.drops.bs_admission > 0);
    // Once the foreground stops, Sneaker's background takes the cell back.
    let after: f64 = (18..25).map(|s| sneaker.flows[0].per_second_mbps[s]).sum::<f64>() / 7.0;
    assert!(after > 0.8 * 20.0 * 1448.0 / 1500.0, "{after}");
}

#[test]
fn aqm_parameters_are_validated_with_their_key() {
    let base = "[[ues]]\n[cell]\naqm = ";
    let cases: &[(&str, &str)] = &[
        ("{ kind = \"bode\", bounded_delay_ms = 0 }", "cell.aqm.bounded_delay_ms"),
        ("{ kind = \"codel\", interval_ms = -1 }", "cell.aqm.interval_ms"),
        ("{ kind = \"pie\", alpha = -0.1 }", "cell.aqm.alpha"),
        ("{ kind = \"red\", min_th = 10, max_th = 5 }", "cell.aqm.max_th"),
        ("{ kind = \"red\", limit_packets = 0 }", "cell.aqm.limit_packets"),
        ("{ kind = \"sneaker\", epsilon = 1.5 }", "cell.aqm.epsilon"),
        ("{ kind = \"sneaker\", rho = \"guess\" }", "cell.aqm"),
        ("{ kind = \"bode\", target_ms = 5 }", "cell.aqm"),
        ("{ kind = \"diffserv\", classes = [] }", "cell.aqm.classes"),
        ("{ kind = \"diffserv\", classes = [{ dscp = [1] }, { dscp = [1] }] }", "cell.aqm.classes[1].dscp"),
        ("{ kind = \"diffserv\", classes = [{ aqm = { kind = \"sneaker\" } }] }", "cell.aqm.classes[0].aqm.kind"),
        ("{ kind = \"diffserv\", classes = [{ aqm = { kind = \"bode\", bounded_delay_ms = -5 } }] }", "cell.aqm.classes[0].aqm.bounded_delay_ms"),
        ("{ kind = \"diffserv\", classes = [{ queue_bytes = 10 }] }", "cell.aqm.classes[0].queue_bytes"),
    ];
    for (aqm, key) in cases {
        let toml = format!("{base}{aqm}\n");
        let e = Scenario::from_toml_str(&toml).err().unwrap_or_else(|| panic!("accepted: {aqm}"));
        assert!(e.path.starts_with(key), "{aqm}: path {:?} message {}", e.path, e.message);
        assert!(!e.message.is_empty());
    }
}
