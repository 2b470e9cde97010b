//! Runs a scenario file (no trace files) and prints the summary line; used for profiling:
//! `cargo run --release -p cellshare-sim --example run_scenario -- python/cellshare/data/bench.toml`.

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_scenario SCENARIO.toml");
    let text = std::fs::read_to_string(&path).expect("readable scenario");
    let sc = cellshare_sim::Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let t0 = std::time::Instant::now();
    let r = cellshare_sim::Simulation::new(&sc, &Default::default()).unwrap().run();
    let wall = t0.elapsed().as_secs_f64();
    println!("{:.1}x real time, {} events, {:.2} Mbps, PRB {:.3}", r.duration_s / wall, r.events, r.delivered_mbps, r.prb_utilization);
}
