//! Runs an LLN scenario file and prints a per-node table (for profiling and quick looks):
//! `cargo run --release -p cellshare-lln --example run_lln -- scenarios/lln-10-6hop.toml`.

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_lln SCENARIO.toml [dtpa_c]");
    let text = std::fs::read_to_string(&path).expect("readable scenario");
    let mut sc = cellshare_lln::LlnScenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"));
    if let Some(c) = std::env::args().nth(2) {
        sc.lln.dtpa.enabled = true;
        sc.lln.dtpa.c = c.parse().expect("c as a number");
    }
    let t0 = std::time::Instant::now();
    let r = cellshare_lln::LlnSimulation::new(&sc).unwrap_or_else(|e| panic!("{e}")).run();
    let wall = t0.elapsed().as_secs_f64();
    println!("{} dtpa={} total {:.3} pkt/s jain {:.3} events {} wall {:.2}s", r.scenario, r.dtpa, r.total_goodput_pps, r.jain_index, r.events, wall);
    println!("BR: overflows {} fwd {} macdrops {} tx {} coll {}", r.border_router.overflows, r.border_router.forwarded, r.border_router.mac_drops, r.border_router.tx_attempts, r.border_router.collided);
    println!("node hops  gput   p      rtt_ms  txp_ms  model  ovf_own ovf_fwd macdrop  tx   coll  rnd  ccaf  blocked rto fr");
    for n in &r.nodes {
        println!(
            "{:4} {:4} {:6.3} {:6.4} {:7.0} {:7.0} {:6.3} {:7} {:7} {:7} {:6} {:5} {:4} {:5} {:7} {:4} {:4}",
            n.id, n.hops, n.goodput_pps, n.loss_rate, n.mean_rtt_ms, n.mean_txp_ms, n.model_pps, n.overflows_own, n.overflows_forwarded,
            n.mac_drops, n.tx_attempts, n.collided, n.random_losses, n.cca_failures, n.app_blocked, n.timeouts, n.fast_retransmits
        );
    }
}
