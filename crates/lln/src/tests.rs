//! Scenario-level tests of the LLN engine.

use crate::config::{LlnScenario, NodeConfig};
use crate::sim::{jain_index, LlnSimulation};
use crate::topology::Topology;

/// A chain of `n` nodes with explicit links (everyone hears everyone when `full`).
fn chain(n: u32, full: bool) -> String {
    let mut links = Vec::new();
    for a in 0..=n {
        for b in (a + 1)..=n {
            if full || b == a + 1 {
                links.push(format!("[{a}, {b}]"));
            }
        }
    }
    let mut s = format!(
        "name = \"chain\"\n[simulation]\nduration_s = 60\nseed = 3\n[lln]\n[lln.topology]\nlinks = [{}]\n",
        links.join(", ")
    );
    for i in 1..=n {
        s += &format!("[[lln.nodes]]\nparent = {}\n", i - 1);
    }
    s
}

#[test]
fn queue_overflows_are_counted_per_node_and_add_up() {
    // A tiny queue at every node and a fast application: the node next to the border
    // router must drop forwarded packets, and every offered packet is accounted for.
    let mut text = chain(4, true);
    text = text.replace("[lln]\n", "[lln]\nqueue_packets = 2\n[lln.app]\nrate_pps = 20\nsend_buffer_segments = 16\n");
    let sc = LlnScenario::from_toml_str(&text).unwrap();
    let r = LlnSimulation::new(&sc).unwrap().run();
    let n1 = &r.nodes[0];
    assert!(n1.overflows_forwarded > 0, "node 1 forwards for 3 nodes through a 2-packet queue: {n1:?}");
    for n in &r.nodes {
        assert_eq!(n.overflows, n.overflows_own + n.overflows_forwarded);
        // own drops come only from own segments, forwarded ones only with descendants
        if n.descendants == 0 {
            assert_eq!(n.overflows_forwarded, 0, "{n:?}");
        }
        assert!(n.overflows_own <= n.segments_sent);
    }
    // The leaf's queue only holds its own segments and ACKs for nobody else.
    assert_eq!(r.nodes[3].forwarded, 0);
}

#[test]
fn queue_never_exceeds_its_limit_and_no_overflow_without_load() {
    let text = chain(3, false).replace("[lln]\n", "[lln]\n[lln.app]\nrate_pps = 0.5\n");
    let sc = LlnScenario::from_toml_str(&text).unwrap();
    let r = LlnSimulation::new(&sc).unwrap().run();
    for n in &r.nodes {
        assert_eq!(n.overflows, 0, "{n:?}");
        // light load: everything offered arrives
        assert!(n.goodput_pps > 0.45 && n.goodput_pps <= 0.5 + 1e-9, "{n:?}");
    }
    assert!(r.jain_index > 0.99);
    assert!(r.peak_packets < 100);
}

#[test]
fn runs_are_deterministic_and_seed_dependent() {
    let sc = LlnScenario::from_toml_str(&chain(5, true)).unwrap();
    let a = serde_json::to_string(&LlnSimulation::new(&sc).unwrap().run()).unwrap();
    let b = serde_json::to_string(&LlnSimulation::new(&sc).unwrap().run()).unwrap();
    assert_eq!(a, b);
    let mut sc2 = sc.clone();
    sc2.simulation.seed = 4;
    let c = serde_json::to_string(&LlnSimulation::new(&sc2).unwrap().run()).unwrap();
    assert_ne!(a, c);
    // cutting the run into pieces does not change it
    let mut sim = LlnSimulation::new(&sc).unwrap();
    for k in 1..=7 {
        sim.advance(k * 9 * cellshare_core::SEC);
    }
    sim.advance(sim.end());
    assert_eq!(serde_json::to_string(&sim.results()).unwrap(), a);
}

#[test]
fn hidden_terminals_collide_and_link_retries_recover() {
    // Only neighbours in the chain hear each other: nodes 1 and 3 are hidden from each
    // other at node 2. Frames collide, yet link-layer retries deliver nearly everything.
    let text = chain(4, false).replace("[lln]\n", "[lln]\n[lln.radio]\nframe_loss = 0.0\n");
    let sc = LlnScenario::from_toml_str(&text).unwrap();
    let r = LlnSimulation::new(&sc).unwrap().run();
    let collided: u64 = r.nodes.iter().map(|n| n.collided).sum();
    assert!(collided > 0);
    assert_eq!(r.nodes.iter().map(|n| n.random_losses).sum::<u64>(), 0);
    assert!(r.total_goodput_pps > 0.9 * 4.0 * 2.0, "{}", r.total_goodput_pps);
}

#[test]
fn dtpa_makes_nodes_wait_and_plain_reno_does_not() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/lln-10-6hop.toml")).unwrap();
    let mut sc = LlnScenario::from_toml_str(&text).unwrap();
    sc.simulation.duration_s = 200.0;
    let reno = LlnSimulation::new(&sc).unwrap().run();
    assert!(reno.nodes.iter().all(|n| n.mean_txp_ms == 0.0 && n.txp_ms == 0.0));
    sc.lln.dtpa.enabled = true;
    sc.lln.dtpa.c = 1.0;
    let dtpa = LlnSimulation::new(&sc).unwrap().run();
    assert!(dtpa.nodes.iter().any(|n| n.mean_txp_ms > 100.0));
    assert!(dtpa.jain_index > reno.jain_index, "{} vs {}", dtpa.jain_index, reno.jain_index);
    // The node next to the border router overflows most under plain Reno.
    let most = reno.nodes.iter().max_by_key(|n| n.overflows).unwrap();
    assert_eq!(most.id, 1);
}

#[test]
fn rpl_like_parents_follow_hop_count_then_distance() {
    let mut text = String::from("[lln]\n[lln.topology]\nrange_m = 12.0\nborder_router_position = [0.0, 0.0]\n");
    for x in [10.0, 20.0, 21.0, 30.0] {
        text += &format!("[[lln.nodes]]\nposition = [{x}, 0.0]\n");
    }
    let sc = LlnScenario::from_toml_str(&text).unwrap();
    let t = Topology::build(&sc.lln).unwrap();
    // node 4 (x = 30) hears nodes 2 and 3, both 2 hops out: the closer one (node 3) wins
    assert_eq!(t.parent, vec![0, 0, 1, 1, 3]);
    assert_eq!(t.hops, vec![0, 1, 2, 2, 3]);
    assert_eq!(t.next_down(0, 4), Some(1));
    assert_eq!(t.next_down(1, 4), Some(3));
    assert_eq!(t.next_down(3, 4), Some(4));
    assert_eq!(t.next_down(2, 4), None);
    assert_eq!(t.descendants(), vec![4, 3, 0, 1, 0]);
}

#[test]
fn bad_scenarios_name_the_key() {
    let cases: &[(&str, &str)] = &[
        ("[lln]\n[lln.topology]\nrange_m = 10.0\nborder_router_position = [0.0, 0.0]\n[[lln.nodes]]\nposition = [50.0, 0.0]\n", "lln.nodes[0].parent"),
        ("[lln]\n[lln.topology]\nlinks = [[0, 1]]\n[[lln.nodes]]\nparent = 1\n", "lln.nodes[0].parent"),
        ("[lln]\n[lln.topology]\nlinks = [[0, 1], [1, 2], [0, 2]]\n[[lln.nodes]]\nparent = 2\n[[lln.nodes]]\nparent = 1\n", "lln.nodes[0].parent"),
        ("[lln]\n[lln.topology]\nlinks = [[0, 7]]\n[[lln.nodes]]\n", "lln.topology.links[0]"),
        ("[lln]\n[lln.topology]\nrange_m = 10.0\n[[lln.nodes]]\n", "lln.topology.border_router_position"),
        ("[lln]\n[lln.topology]\n[[lln.nodes]]\n", "lln.topology.range_m"),
        ("[lln]\n[lln.tcp]\nmss = 100\n[lln.topology]\nlinks = [[0, 1]]\n[[lln.nodes]]\n", "lln.tcp.mss"),
        ("[lln]\n[lln.mac]\nmax_be = 2\n[lln.topology]\nlinks = [[0, 1]]\n[[lln.nodes]]\n", "lln.mac.max_be"),
        ("[lln]\n[lln.dtpa]\nc = 0\n[lln.topology]\nlinks = [[0, 1]]\n[[lln.nodes]]\n", "lln.dtpa.c"),
        ("[lln]\ncolour = 1\n[lln.topology]\nlinks = [[0, 1]]\n[[lln.nodes]]\n", "lln"),
        ("[lln]\n[lln.radio]\nframe_loss = 1.0\n[lln.topology]\nlinks = [[0, 1]]\n[[lln.nodes]]\n", "lln.radio.frame_loss"),
    ];
    for (text, key) in cases {
        let err = LlnScenario::from_toml_str(text).and_then(|sc| LlnSimulation::new(&sc).map(|_| ())).unwrap_err();
        assert!(err.path.starts_with(key), "{text}: {err}");
        assert!(!err.message.is_empty());
    }
}

#[test]
fn jain_index_bounds() {
    assert_eq!(jain_index(&[1.0, 1.0, 1.0]), 1.0);
    assert!((jain_index(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
    assert_eq!(jain_index(&[]), 1.0);
    let _ = NodeConfig { position: None, parent: None };
}
