//! Tests of the generated workload inside the engine: flows on arrival, categories, the
//! load estimate, freeing finished flows, determinism and validation.

use crate::assembly::TraceSet;
use crate::{RunResult, Scenario, Simulation};

fn run(toml: &str) -> RunResult {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&sc, &TraceSet::new()).unwrap().run()
}

fn err(toml: &str) -> String {
    Scenario::from_toml_str(toml).unwrap_err().path
}

/// Ten fixed 20 Mbps UEs, a Legilimens-mix workload at `load` on UEs 0..=8 and a background
/// CUBIC flow on UE 9 when `bg`.
fn scenario(load: f64, secs: u32, bg: bool) -> String {
    scenario_mix(load, secs, bg, "preset = \"legilimens\"")
}

/// As [`scenario`] with the given mix keys.
fn scenario_mix(load: f64, secs: u32, bg: bool, mix: &str) -> String {
    let bg = if bg { "[[flows]]\nue = 9\nclass = \"background\"\ntransport = { kind = \"tcp\" }\n" } else { "" };
    format!(
        r#"
[simulation]
duration_s = {secs}
seed = 3
[[ues]]
count = 10
channel = {{ kind = "fixed", rate_mbps = 20 }}
{bg}
[workload]
ues = [0, 1, 2, 3, 4, 5, 6, 7, 8]
arrivals = {{ kind = "poisson", load = {load}, {mix} }}
"#
    )
}

#[test]
fn workload_flows_arrive_with_categories_and_lifetime_series() {
    let r = run(&scenario(0.5, 60, true));
    let w = r.workload.as_ref().expect("workload summary");
    assert_eq!(w.kind, "poisson");
    // Fixed 20 Mbps UEs: capacity = 20 Mbps × 1448/1500 of payload.
    assert!((w.capacity_mbps - 20.0 * 1448.0 / 1500.0).abs() < 0.01, "{}", w.capacity_mbps);
    assert!((w.offered_mbps - 0.5 * w.capacity_mbps).abs() < 1e-9);
    let generated: u64 = w.flows.iter().sum();
    assert_eq!(r.flows.len() as u64, generated + 1);
    assert_eq!(r.flows[0].category, "background");
    for f in &r.flows[1..] {
        assert!(["short", "medium", "long"].contains(&f.category.as_str()), "{}", f.category);
        assert!(f.ue <= 8, "UE {}", f.ue);
        assert_eq!(f.series_start_s, f.start_s as u64);
        // Series only over the flow's life: a completed flow's ends at its completion.
        if let Some(fct) = f.fct_s {
            assert!(f.per_second_mbps.len() as f64 <= (f.start_s + fct).floor() - f.start_s.floor() + 1.0);
        }
    }
    let short: Vec<_> = r.flows.iter().filter(|f| f.category == "short").collect();
    assert!(short.len() > 20, "{}", short.len());
    assert!(short.iter().filter(|f| f.completed).count() as f64 >= 0.9 * short.len() as f64);
    assert!(short.iter().all(|f| !f.completed || f.bytes_delivered == 64 * 1024));
    // Completed flows keep their delay percentiles after their histograms are freed, and the
    // class aggregates still count every foreground packet.
    let done = short.iter().find(|f| f.completed).unwrap();
    assert!(done.queue_delay_ms.count > 0 && done.rtt_ms.count > 0);
    let fg = r.classes.iter().find(|c| c.class == "foreground").unwrap();
    let per_flow: u64 = r.flows[1..].iter().map(|f| f.queue_delay_ms.count).sum();
    assert!(fg.queue_delay_ms.count >= per_flow && per_flow > 0);
}

#[test]
fn a_custom_flow_is_custom() {
    let toml = r#"
[simulation]
duration_s = 1
[[ues]]
count = 1
[[flows]]
ue = 0
transport = { kind = "tcp" }
"#;
    let r = run(toml);
    assert_eq!(r.flows[0].category, "custom");
    assert_eq!(r.flows[0].series_start_s, 0);
    assert!(r.workload.is_none());
}

#[test]
fn achieved_utilization_follows_the_target_on_fixed_channels() {
    // Smaller long flows than the presets' (4 MB instead of 32 MB), so that 600 s hold
    // enough of them for the utilization to settle.
    let mix = r#"mix = [{ category = "short", bytes = 65536, share = 0.1 }, { category = "medium", bytes = 1048576, share = 0.3 },
        { category = "long", bytes = 4194304, share = 0.6 }]"#;
    for load in [0.3, 0.6, 0.8] {
        let r = run(&scenario_mix(load, 600, false, mix));
        assert!((r.prb_utilization - load).abs() < 0.08, "target {load}: {}", r.prb_utilization);
    }
}

#[test]
fn workload_runs_are_deterministic() {
    let a = serde_json::to_string(&run(&scenario(0.6, 30, true))).unwrap();
    let b = serde_json::to_string(&run(&scenario(0.6, 30, true))).unwrap();
    assert_eq!(a, b);
    let other = scenario(0.6, 30, true).replace("seed = 3", "seed = 4");
    assert_ne!(a, serde_json::to_string(&run(&other)).unwrap());
}

#[test]
fn randomized_workload_runs() {
    let toml = r#"
[simulation]
duration_s = 30
[[ues]]
count = 3
channel = { kind = "fixed", rate_mbps = 30 }
[workload]
arrivals = { kind = "randomized" }
"#;
    let r = run(toml);
    let w = r.workload.as_ref().unwrap();
    assert_eq!(w.kind, "randomized");
    assert!(w.target_load.is_none());
    // Closed loop (the default): each short flow starts 1 s after the previous one completed.
    let short: Vec<_> = r.flows.iter().filter(|f| f.category == "short").collect();
    assert_eq!(w.flows[0], short.len() as u64);
    assert!((25..30).contains(&short.len()), "{}", short.len());
    for p in short.windows(2) {
        let gap = p[1].start_s - (p[0].start_s + p[0].fct_s.unwrap());
        assert!((gap - 1.0).abs() < 1e-6, "{gap}");
    }
    // Open loop: exactly one per second.
    let open = run(&toml.replace("kind = \"randomized\"", "kind = \"randomized\", gaps_from = \"arrival\""));
    assert_eq!(open.workload.unwrap().flows[0], 30);
}

#[test]
fn workload_validation_names_keys() {
    let base = "[[ues]]\ncount = 4\n";
    assert_eq!(err(&format!("{base}[workload]\nues = [7]\n")), "workload.ues");
    assert_eq!(err(&format!("{base}[workload]\nues = []\n")), "workload.ues");
    assert_eq!(err(&format!("{base}[workload]\narrivals = {{ kind = \"poisson\", load = 0 }}\n")), "workload.arrivals.load");
    assert_eq!(
        err(&format!("{base}[workload]\narrivals = {{ kind = \"poisson\", mix = [{{ category = \"short\", bytes = 10, share = 0.5 }}] }}\n")),
        "workload.arrivals.mix"
    );
    assert_eq!(err(&format!("{base}[workload]\narrivals = {{ kind = \"randomized\", long_cap_s = -1 }}\n")), "workload.arrivals.long_cap_s");
    assert_eq!(err(&format!("{base}[workload]\nstart_s = 5\nstop_s = 2\n")), "workload.stop_s");
    assert!(err(&format!("{base}[workload]\nbogus = 1\n")).starts_with("workload"));
    assert!(err(&format!("{base}[workload]\narrivals = {{ kind = \"poisson\", lod = 0.5 }}\n")).starts_with("workload.arrivals"));
    assert_eq!(
        err(&format!("{base}[shared_fifo]\nrate_mbps = 10\n[workload]\narrivals = {{ kind = \"poisson\" }}\n")),
        "workload.arrivals.kind"
    );
}
