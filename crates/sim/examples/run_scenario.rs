//! Runs a scenario file and prints the summary line; used for profiling:
//! `cargo run --release -p cellshare-sim --example run_scenario -- python/cellshare/data/bench.toml`.
//! Trace files named by the scenario are read relative to the scenario's folder; `--flows`
//! adds a line per flow.

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_scenario SCENARIO.toml [--flows]");
    let text = std::fs::read_to_string(&path).expect("readable scenario");
    let sc = cellshare_sim::Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let base = std::path::Path::new(&path)
        .parent()
        .unwrap_or(std::path::Path::new("."));
    let traces = cellshare_sim::input::load_traces(&sc, base).unwrap_or_else(|e| panic!("{e}"));
    let t0 = std::time::Instant::now();
    let r = cellshare_sim::Simulation::new(&sc, &traces).unwrap().run();
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "{:.1}x real time, {} events, {:.2} Mbps, PRB {:.3}",
        r.duration_s / wall,
        r.events,
        r.delivered_mbps,
        r.prb_utilization
    );
    if std::env::args().any(|a| a == "--flows") {
        // Per flow: what the emulator cross-check compares (the smoothed RTT's median over
        // the trace's samples, when `trace_interval_ms` is set).
        for f in &r.flows {
            let mut srtt: Vec<f64> = f
                .trace
                .srtt_ms
                .iter()
                .copied()
                .filter(|x| *x > 0.0)
                .collect();
            srtt.sort_by(f64::total_cmp);
            let med = srtt.get(srtt.len() / 2).copied().unwrap_or(f64::NAN);
            println!(
                "flow {} {}: {:.2} Mbps, retx {}, drops {}, timeouts {}, RTT samples {}, srtt p50 {:.0} ms",
                f.id, f.transport, f.throughput_mbps, f.retransmits, f.drops, f.timeouts, f.rtt_ms.count, med
            );
        }
    }
}
