//! The worked example of `docs/extending/queue-discipline.md`: `docs/extending/qdisc_example.rs`
//! is compiled into `cellshare-aqm` (its `docs-example` feature, which this crate's tests
//! enable) and registered with one line, then run through a scenario as a user writes it.

use crate::assembly::TraceSet;
use crate::{RunResult, Scenario, Simulation};

/// One UE on a 10 Mbps fixed link, overloaded by 15 Mbps of CBR, under `cell.aqm = aqm`.
fn overloaded(aqm: &str) -> RunResult {
    let toml = format!(
        "[simulation]\nduration_s = 5\n[cell]\naqm = {aqm}\n[[ues]]\nchannel = {{ kind = \"fixed\", rate_mbps = 10 }}\n[[flows]]\nue = 0\ntransport = {{ kind = \"cbr\", rate_mbps = 15 }}\n"
    );
    let sc = Scenario::from_toml_str(&toml).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&sc, &TraceSet::new()).unwrap().run()
}

#[test]
fn the_example_bounds_the_sojourn_and_keeps_the_link_busy() {
    // Tail drop keeps the 512 KB queue full (~420 ms); the example serves only packets that
    // waited at most 30 ms, plus the TTIs their transmission spans (1500 B at 1250 B per
    // TTI: 2 TTIs).
    let tail = overloaded("{ kind = \"tail_drop\" }");
    let ex = overloaded("{ kind = \"max_sojourn\", max_sojourn_ms = 30 }");
    assert!(tail.queue_delay_ms.max > 300.0, "{:?}", tail.queue_delay_ms);
    assert!(ex.queue_delay_ms.max <= 32.0 + 0.2, "{:?}", ex.queue_delay_ms);
    assert!(ex.queue_delay_ms.p50 > 20.0, "the queue stays near its bound: {:?}", ex.queue_delay_ms);
    assert!(ex.drops.bs_dequeue > 0 && ex.drops.bs_enqueue == 0, "{:?}", ex.drops);
    // Packets are delivered: the link stays busy.
    assert!((ex.ues[0].throughput_mbps - 10.0).abs() < 0.2, "{}", ex.ues[0].throughput_mbps);
}

#[test]
fn the_example_holds_its_packet_limit() {
    // 5 packets of 1500 B at 10 Mbps: at most 6 ms queued, plus 2 TTIs; the rest of the
    // overload is dropped at arrival.
    let ex = overloaded("{ kind = \"max_sojourn\", max_sojourn_ms = 1000, limit_packets = 5 }");
    assert!(ex.queue_delay_ms.max <= 8.0 + 0.2, "{:?}", ex.queue_delay_ms);
    assert!(ex.drops.bs_enqueue > 0 && ex.drops.bs_dequeue == 0, "{:?}", ex.drops);
    assert!((ex.ues[0].throughput_mbps - 10.0).abs() < 0.2, "{}", ex.ues[0].throughput_mbps);
}

#[test]
fn the_example_is_validated_and_runs_in_a_diffserv_class() {
    let bad = "[cell]\naqm = { kind = \"max_sojourn\", max_sojourn_ms = 0 }\n[[ues]]\n";
    let e = Scenario::from_toml_str(bad).unwrap_err();
    assert_eq!(e.path, "cell.aqm.max_sojourn_ms");
    assert!(e.message.contains("a delay in ms in (0, 1e6]"), "{e}");
    let e = Scenario::from_toml_str("[cell]\naqm = { kind = \"max_sojourn\", limit_packets = 0 }\n[[ues]]\n").unwrap_err();
    assert_eq!(e.path, "cell.aqm.limit_packets");
    let e = Scenario::from_toml_str("[cell]\naqm = { kind = \"max_sojourn\", max_sojourn = 5 }\n[[ues]]\n").unwrap_err();
    assert!(e.to_string().contains("unknown field `max_sojourn`"), "{e}");
    let ds = overloaded("{ kind = \"diffserv\", classes = [{ aqm = { kind = \"max_sojourn\", max_sojourn_ms = 30 } }] }");
    assert!(ds.queue_delay_ms.max <= 32.0 + 0.2, "{:?}", ds.queue_delay_ms);
    assert!(ds.drops.bs_dequeue > 0, "{:?}", ds.drops);
}
