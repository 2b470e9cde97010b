//! The worked example of docs/extending/controller.md (`docs/extending/cc_example.rs`,
//! registered as `aimd_example` by the `cc-example` feature) run as a user runs a
//! controller: named in a scenario's `cc = { kind = ... }`, validated, simulated.

use cellshare_sim::{Scenario, Simulation, TraceSet};

const MSS: u64 = 1448;

fn scenario(cc: &str) -> String {
    format!(
        r#"
[simulation]
duration_s = 20
trace_interval_ms = 10
[cell]
rlc_queue_bytes = 60000
[wired]
remote_delay_ms = 20
[[ues]]
channel = {{ kind = "fixed", rate_mbps = 10 }}
[[flows]]
ue = 0
transport = {{ kind = "tcp", cc = {cc} }}
"#
    )
}

#[test]
fn aimd_example_delivers_and_its_window_follows_its_rule() {
    let sc = Scenario::from_toml_str(&scenario(r#"{ kind = "aimd_example" }"#))
        .unwrap_or_else(|e| panic!("{e}"));
    let r = Simulation::new(&sc, &TraceSet::new()).unwrap().run();
    let f = &r.flows[0];
    assert_eq!(f.transport, "tcp-aimd_example");
    // It carries the cell: a = 1, b = ½ with a drop-tail queue keeps the link busy.
    assert!(f.throughput_mbps > 8.0, "{} Mbps", f.throughput_mbps);
    let w = &f.trace.cwnd_bytes;
    // Additive increase: at most one MSS per round trip (> 40 ms), so per 10-ms sample, from
    // the initial window (10 MSS) up to the first loss.
    assert_eq!(w[0], 10 * MSS);
    let first_drop = w
        .windows(2)
        .position(|p| p[1] < p[0])
        .expect("a drop-tail queue overflows");
    for p in w[..=first_drop].windows(2) {
        assert!(p[1] - p[0] <= MSS, "grew {} bytes in 10 ms", p[1] - p[0]);
    }
    let peak = w[first_drop];
    assert!(peak >= 40 * MSS, "climbed to {} segments", peak / MSS);
    // Multiplicative decrease: once recovery ends the window is b·cwnd (PRR shapes the
    // window only during recovery), so some sample soon after sits at half the peak.
    let half = peak / 2;
    let after = &w[first_drop + 1..(first_drop + 100).min(w.len())];
    assert!(
        after.iter().any(|&x| x.abs_diff(half) <= MSS),
        "no sample near {half} after the loss: {after:?}"
    );
}

#[test]
fn aimd_example_parameters_are_checked_like_any_controller() {
    let bad = |cc: &str| {
        Scenario::from_toml_str(&scenario(cc))
            .err()
            .unwrap_or_else(|| panic!("accepted {cc}"))
    };
    let e = bad(r#"{ kind = "aimd_example", decrease = 1.5 }"#);
    assert_eq!(e.path, "flows[0].transport.cc.decrease", "{e}");
    assert_eq!(
        e.to_string(),
        "`flows[0].transport.cc.decrease`: got 1.5, expected in (0, 1)"
    );
    let e = bad(r#"{ kind = "aimd_example", increase = 2 }"#);
    assert_eq!(e.path, "flows[0].transport.cc.increase", "{e}");
    // A different increase is a different slope: a = 4 climbs four times as fast.
    let sc = Scenario::from_toml_str(&scenario(
        r#"{ kind = "aimd_example", increase_segments = 4 }"#,
    ))
    .unwrap();
    let r = Simulation::new(&sc, &TraceSet::new()).unwrap().run();
    let w = &r.flows[0].trace.cwnd_bytes;
    assert!(
        w.windows(2).any(|p| p[1] > p[0] + MSS),
        "a = 4 never grew more than one MSS per sample"
    );
}
