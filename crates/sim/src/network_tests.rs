//! Several cells, moving UEs and handover: the A3 rule at boundaries, ping-pong
//! without hysteresis, X2 forwarding and drops, interference from a loaded neighbour.

use cellshare_channel::Channel;

use crate::assembly::{build_ran, PositionTraces, TraceSet};
use crate::{RunResult, Scenario, Simulation};

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("{e}"))
}

fn run(toml: &str) -> RunResult {
    Simulation::new(&scenario(toml), &TraceSet::new()).unwrap().run()
}

/// Three sites 600 m apart on the x axis, one UE driving past all of them at 72 km/h.
fn drive(handover: &str, flow: &str) -> String {
    format!(
        r#"
[simulation]
duration_s = 75.0
seed = 3
[network]
layout = {{ kind = "positions", sites_m = [[0.0, 0.0], [600.0, 0.0], [1200.0, 0.0]] }}
handover = {{ {handover} }}
[[ues]]
channel = {{ kind = "radio" }}
mobility = {{ kind = "waypoints", points_m = [[-100.0, 40.0], [1300.0, 40.0]], speeds_kmh = [72.0] }}
[[flows]]
ue = 0
{flow}
"#
    )
}

const CUBIC: &str = r#"transport = { kind = "tcp", cc = { kind = "cubic" } }"#;

#[test]
fn a_ue_driving_past_three_cells_is_handed_over_once_per_boundary_by_the_a3_rule() {
    let r = run(&drive("", CUBIC));
    let h = r.handovers.as_ref().expect("a network reports its handovers");
    assert_eq!((h.source.as_slice(), h.target.as_slice()), (&[0, 1][..], &[1, 2][..]), "{h:?}");
    for i in 0..h.len() {
        // A3 with the defaults: the target beat the source by more than the 3 dB hysteresis.
        assert!(h.rsrp_target_dbm[i] - h.rsrp_source_dbm[i] > 3.0, "{h:?}");
        // ... not long after the boundary (x = 300 m, 900 m; 20 m/s from x = -100 at t = 0):
        // the filtered RSRP lags, then the time to trigger.
        let boundary_s = (300.0 + 600.0 * i as f64 + 100.0) / 20.0;
        assert!(h.t_s[i] > boundary_s && h.t_s[i] < boundary_s + 3.0, "handover {i} at {} s, boundary at {boundary_s} s", h.t_s[i]);
    }
    // Real TCP lives through them.
    let f = &r.flows[0];
    assert!(f.throughput_mbps > 5.0, "{}", f.throughput_mbps);
    assert!(f.per_second_mbps[60..70].iter().all(|&m| m > 1.0), "{:?}", f.per_second_mbps);
    // Positions and the serving cell are in the per-UE trace.
    let tr = &r.ues[0].trace;
    assert_eq!(tr.x_m.len(), tr.t_s.len());
    let at = |t: f64| tr.t_s.iter().position(|&s| (s - t).abs() < 1e-9).unwrap();
    // The position of the last update (every 100 ms: 2 m at 20 m/s).
    assert!((tr.x_m[at(10.0)] - 100.0).abs() <= 2.0 + 1e-9 && (tr.y_m[at(10.0)] - 40.0).abs() < 1e-9);
    assert_eq!((tr.cell[at(5.0)], tr.cell[at(40.0)], tr.cell[at(70.0)]), (0, 1, 2));
    assert_eq!(r.cells.as_ref().unwrap().len(), 3);
}

/// RSRP (dBm, without shadowing) of a site `d` metres away for the default radio.
fn rsrp(d: f64) -> f64 {
    47.78 - 10.0 * 600f64.log10() - 29.961 - 35.2 * d.log10()
}

#[test]
fn without_hysteresis_and_time_to_trigger_it_ping_pongs_where_a3_says() {
    // A UE walking to and fro across the boundary between two sites (x = 300 m) at 10 km/h,
    // ±20 m: about 2 dB either side.
    let path = |handover: &str| {
        format!(
            r#"
[simulation]
duration_s = 120.0
seed = 1
trace_interval_ms = 0
[network]
layout = {{ kind = "positions", sites_m = [[0.0, 0.0], [600.0, 0.0]] }}
handover = {{ {handover} }}
[[ues]]
channel = {{ kind = "radio" }}
mobility = {{ kind = "waypoints", points_m = [[280.0, 0.0], [320.0, 0.0]], speeds_kmh = [10.0], repeat = true }}
"#
        )
    };
    let r = run(&path("hysteresis_db = 0.0, time_to_trigger_ms = 0.0"));
    let h = r.handovers.unwrap();
    // The rule replayed: measurements every 200 ms of the RSRP at the UE's position, L3
    // filtered with a = 1/2; a handover when the neighbour's filtered RSRP exceeds the
    // serving cell's (Hys = Off = 0), evaluated from the measurement after the last
    // handover's 30 ms interruption, i.e. the next one.
    let speed = 10.0 / 3.6;
    let period = 2.0 * 40.0 / speed;
    let x_at = |t: f64| {
        let p = t % period;
        if p <= period / 2.0 { 280.0 + speed * p } else { 320.0 - speed * (p - period / 2.0) }
    };
    let (mut f0, mut f1) = (f64::NAN, f64::NAN);
    let mut serving = if x_at(0.0) < 300.0 { 0 } else { 1 };
    let mut expected = Vec::new();
    for k in 0..600 {
        let t = k as f64 * 0.2;
        let x = x_at(t);
        let (m0, m1) = (rsrp(x), rsrp(600.0 - x));
        f0 = if f0.is_nan() { m0 } else { 0.5 * f0 + 0.5 * m0 };
        f1 = if f1.is_nan() { m1 } else { 0.5 * f1 + 0.5 * m1 };
        let (mp, mn) = if serving == 0 { (f0, f1) } else { (f1, f0) };
        if mn > mp {
            serving = 1 - serving;
            expected.push((t, serving));
        }
    }
    assert!(expected.len() >= 7, "the walk crosses the boundary often: {expected:?}");
    let got: Vec<(f64, u32)> = h.t_s.iter().zip(&h.target).map(|(&t, &c)| (t, c)).collect();
    assert_eq!(got.len(), expected.len(), "got {got:?}\nexpected {expected:?}");
    for ((t, c), (te, ce)) in got.iter().zip(&expected) {
        assert!((t - te).abs() < 1e-6 && *c == *ce as u32, "got {got:?}\nexpected {expected:?}");
    }
    // With ns-3's hysteresis (3 dB) and time to trigger (256 ms) the same walk stays put.
    let calm = run(&path("")).handovers.unwrap();
    assert!(calm.is_empty(), "{calm:?}");
}

#[test]
fn forwarded_packets_arrive_and_dropped_ones_are_counted() {
    // A UDP flow at 30 Mbit/s keeps the UE's queue full through every handover.
    let cbr = r#"transport = { kind = "cbr", rate_mbps = 30.0 }"#;
    let for_mode = |mode: &str| {
        let sc = scenario(&drive(&format!("forwarding = \"{mode}\""), cbr));
        let mut sim = Simulation::new(&sc, &TraceSet::new()).unwrap();
        sim.advance(sim.end());
        let fl = &sim.flows[0];
        let (sent, delivered, dropped) = (fl.sent_datagrams(), fl.packets_delivered, fl.drops);
        let r = sim.results();
        let h = r.handovers.clone().unwrap();
        // Every packet sent is delivered, dropped, or still in the network.
        assert_eq!(sent, delivered + dropped + sim.packets_in_flight() as u64, "{mode}");
        (r, h, delivered)
    };
    let (x2, hx, delivered_x2) = for_mode("x2");
    assert_eq!(hx.len(), 2);
    let forwarded: u64 = hx.forwarded.iter().sum();
    assert!(forwarded > 100, "a full queue is forwarded: {hx:?}");
    assert_eq!(hx.dropped.iter().sum::<u64>(), 0);
    // What was in HARQ or on air, or partly sent, is lost; what was queued is not.
    let lost: u64 = hx.lost.iter().sum();
    assert!(lost > 0, "{hx:?}");
    assert_eq!(x2.drops.handover, lost);
    let (drop, hd, delivered_drop) = for_mode("drop");
    assert_eq!(hd.len(), 2);
    assert_eq!(hd.forwarded.iter().sum::<u64>(), 0);
    let dropped: u64 = hd.dropped.iter().sum();
    assert!(dropped > 100, "{hd:?}");
    assert_eq!(drop.drops.handover, dropped + hd.lost.iter().sum::<u64>());
    // The forwarded packets were delivered in the X2 run.
    assert!(delivered_x2 > delivered_drop + forwarded / 2, "{delivered_x2} vs {delivered_drop}, {forwarded} forwarded");
}

/// Two sites 600 m apart; UE 0 at 200 m from site 0, the others near site 1.
fn pair(neighbour_flows: bool, interference: bool) -> String {
    let flows = if neighbour_flows { "[[flows]]\nues = [1, 2]\ntransport = { kind = \"tcp\", cc = { kind = \"cubic\" } }\n" } else { "" };
    format!(
        r#"
[simulation]
duration_s = 8.0
seed = 2
[network]
layout = {{ kind = "positions", sites_m = [[0.0, 0.0], [600.0, 0.0]] }}
interference = {interference}
[[ues]]
channel = {{ kind = "radio", fading = "none" }}
mobility = {{ kind = "static", position_m = [200.0, 0.0] }}
[[ues]]
count = 2
channel = {{ kind = "radio", fading = "none" }}
mobility = {{ kind = "static", position_m = [550.0, 30.0] }}
[[flows]]
ue = 0
transport = {{ kind = "tcp", cc = {{ kind = "cubic" }} }}
{flows}"#
    )
}

#[test]
fn interference_from_a_loaded_neighbour_lowers_cqi_and_an_idle_one_adds_none() {
    // The mechanism: UE 0's CQI towards its cell with the neighbour idle, then fully loaded.
    let sc = scenario(&pair(false, true));
    let (mut ran, _) = build_ran(&sc, &TraceSet::new(), &PositionTraces::new()).unwrap();
    assert_eq!(ran.serving(0), 0);
    let cqi = |ran: &mut cellshare_ran::Ran, tti: u64| match ran.channel_mut(0) {
        Channel::Radio(r) => r.cqi(tti),
        _ => unreachable!(),
    };
    let idle = cqi(&mut ran, 1000);
    let sc_alone = scenario(&pair(false, false));
    let (mut alone, _) = build_ran(&sc_alone, &TraceSet::new(), &PositionTraces::new()).unwrap();
    assert_eq!(idle, cqi(&mut alone, 1000), "an idle neighbour adds no interference");
    // The neighbour with every PRB on air in TTI 1999 (the interference of TTI 2000).
    let before = cqi(&mut ran, 2000);
    assert_eq!(before, idle);
    ran.board().expect("a network").set(1, 1999, 50);
    let loaded = cqi(&mut ran, 2000);
    assert!(loaded + 3 <= idle, "CQI {idle} with the neighbour idle, {loaded} with it loaded");
    ran.board().unwrap().set(1, 2999, 25);
    let half = cqi(&mut ran, 3000);
    assert!(half > loaded && half < idle, "half the PRBs: CQI {half}");
    // Run both with traffic: UE 0's throughput falls when the neighbour carries traffic,
    // and only then.
    let quiet = run(&pair(false, true));
    let busy = run(&pair(true, true));
    let busy_no_interference = run(&pair(true, false));
    let (q, b, n) = (quiet.flows[0].throughput_mbps, busy.flows[0].throughput_mbps, busy_no_interference.flows[0].throughput_mbps);
    assert!(b < 0.8 * q, "loaded neighbour: {b} vs idle {q}");
    assert!((n - q).abs() < 0.02 * q, "without interference the neighbour's load does not matter: {n} vs {q}");
    let quiet_alone = run(&pair(false, false));
    assert!((quiet_alone.flows[0].throughput_mbps - q).abs() < 1e-9, "an idle neighbour adds none");
}

#[test]
fn one_site_network_is_the_lone_cell() {
    let lone = run(
        r#"
[simulation]
duration_s = 10.0
[[ues]]
count = 1
channel = { kind = "radio", distance_m = 300.0 }
[[flows]]
ue = 0
transport = { kind = "tcp", cc = { kind = "cubic" } }
"#,
    );
    let net = run(
        r#"
[simulation]
duration_s = 10.0
[network]
layout = { kind = "positions", sites_m = [[0.0, 0.0]] }
[[ues]]
count = 1
channel = { kind = "radio" }
mobility = { kind = "static", position_m = [300.0, 0.0] }
[[flows]]
ue = 0
transport = { kind = "tcp", cc = { kind = "cubic" } }
"#,
    );
    let (a, b) = (lone.flows[0].throughput_mbps, net.flows[0].throughput_mbps);
    assert!((a - b).abs() < 0.01 * a, "lone cell {a} vs one-site network {b}");
    assert!((lone.ues[0].mean_snr_db.unwrap() - net.ues[0].mean_snr_db.unwrap()).abs() < 1e-9);
}

#[test]
fn network_keys_are_checked_and_named() {
    let base = |extra: &str, ue: &str| {
        format!(
            "[network]\nlayout = {{ kind = \"hexagonal\", isd_m = 500.0 }}\n{extra}\n[[ues]]\nchannel = {{ kind = \"radio\" }}\n{ue}\n"
        )
    };
    let err = |toml: String| Scenario::from_toml_str(&toml).unwrap_err();
    let e = err(base("", "mobility = { kind = \"static\", position_m = [5000.0, 0.0] }"));
    assert_eq!(e.path, "ues[0].mobility.position_m", "{e}");
    let e = err(base("", "mobility = { kind = \"waypoints\", points_m = [], speeds_kmh = [3.0] }"));
    assert_eq!(e.path, "ues[0].mobility.points_m", "{e}");
    let e = err(base("", "mobility = { kind = \"waypoints\", points_m = [[0.0, 0.0], [10.0, 0.0]], speeds_kmh = [-3.0] }"));
    assert_eq!(e.path, "ues[0].mobility.speeds_kmh[0]", "{e}");
    let e = err(base("", "mobility = { kind = \"random_waypoint\", speed_kmh = [-1.0, 5.0] }"));
    assert_eq!(e.path, "ues[0].mobility.speed_kmh", "{e}");
    let e = err(base("handover = { hysteresis_db = -1.0 }", ""));
    assert_eq!(e.path, "network.handover.hysteresis_db", "{e}");
    let e = err(base("sectors = 2", ""));
    assert_eq!(e.path, "network.sectors", "{e}");
    let e = err("[network]\nlayout = { kind = \"hexagonal\", isd_m = 500.0 }\n[[ues]]\nchannel = { kind = \"radio\", distance_m = 100.0 }\n".into());
    assert_eq!(e.path, "ues[0].channel.distance_m", "{e}");
    let e = err("[network]\nlayout = { kind = \"hexagonal\", isd_m = 500.0 }\n[[ues]]\nchannel = { kind = \"fixed\", rate_mbps = 5.0 }\n".into());
    assert_eq!(e.path, "ues[0].channel.kind", "{e}");
    let e = err("[[ues]]\nchannel = { kind = \"radio\", distance_m = 100.0 }\nmobility = { kind = \"static\" }\n".into());
    assert_eq!(e.path, "ues[0].mobility", "{e}");
    let e = err("[network]\nlayout = { kind = \"positions\", sites_m = [] }\n[[ues]]\nchannel = { kind = \"radio\" }\n".into());
    assert_eq!(e.path, "network.layout.sites_m", "{e}");
}

#[test]
fn seven_sectored_sites_with_random_walkers_run_and_hand_over() {
    let r = run(
        r#"
[simulation]
duration_s = 30.0
seed = 4
[network]
layout = { kind = "hexagonal", isd_m = 400.0, rings = 1 }
sectors = 3
[[ues]]
count = 21
channel = { kind = "radio" }
mobility = { kind = "random_waypoint", speed_kmh = [30.0, 60.0] }
[[flows]]
ues = "all"
transport = { kind = "tcp", cc = { kind = "cubic" } }
"#,
    );
    let cells = r.cells.as_ref().unwrap();
    assert_eq!(cells.len(), 21);
    assert!(cells.iter().filter(|c| c.prb_utilization > 0.0).count() > 5);
    let h = r.handovers.as_ref().unwrap();
    assert!(h.len() > 10, "{}", h.len());
    assert!(r.flows.iter().all(|f| f.bytes_delivered > 0));
}

// ---------------------------------------------------------------------------------------
// NR networks: the same layer on NR cells (slots of 1/2^μ ms, TS 38.214's CQI and TBS), its
// timers in ms.

/// `[cell]` of an NR network: 20 MHz at numerology 1 (51 PRBs, 0.5 ms slots), `cell` in
/// `[cell]`, `extra` in `[cell.nr]`.
fn nr_cell(cell: &str, extra: &str) -> String {
    format!("[cell]\nrat = \"nr\"\nbandwidth_mhz = 20\n{cell}\n[cell.nr]\nnumerology = 1\n{extra}\n")
}

/// [`drive`] with a 640 ms time to trigger, on NR cells of [`nr_cell`] (`Some(extra)`) or LTE.
fn nr_drive(nr: Option<&str>) -> String {
    let lte = drive("time_to_trigger_ms = 640.0", CUBIC);
    match nr {
        None => lte,
        Some(extra) => lte.replace("[network]", &format!("{}[network]", nr_cell("", extra))),
    }
}

#[test]
fn an_nr_ue_driving_past_three_nr_cells_is_handed_over_when_the_lte_one_is() {
    // The position steps, measurement period, time to trigger and interruption are in ms,
    // so the same drive is handed over at the same instants on LTE's 1 ms TTIs and on NR's
    // 0.5 ms slots (had the 640 ms time to trigger been counted in slots, 320 ms early). In
    // a TDD pattern a measurement or expiry falling in an uplink slot waits for the next
    // downlink slot (0.5 ms with DDDSU).
    let lte = run(&nr_drive(None));
    let lte_h = lte.handovers.as_ref().unwrap();
    assert_eq!(lte_h.target, [1, 2]);
    for extra in ["", "tdd_pattern = \"DDDSU\""] {
        let r = run(&nr_drive(Some(extra)));
        let h = r.handovers.as_ref().expect("a network reports its handovers");
        assert_eq!((h.source.as_slice(), h.target.as_slice()), (&[0, 1][..], &[1, 2][..]), "{extra}: {h:?}");
        for i in 0..h.len() {
            assert!(h.rsrp_target_dbm[i] - h.rsrp_source_dbm[i] > 3.0, "{h:?}");
            assert!((h.t_s[i] - lte_h.t_s[i]).abs() <= 1e-3, "{extra}: handover {i} at {} s, LTE's at {} s", h.t_s[i], lte_h.t_s[i]);
        }
        let f = &r.flows[0];
        // The NR carrier (51 PRBs of 360 kHz) carries more than LTE's 10 MHz.
        assert!(f.throughput_mbps > lte.flows[0].throughput_mbps, "{extra}: {} vs LTE {}", f.throughput_mbps, lte.flows[0].throughput_mbps);
        assert!(f.per_second_mbps[60..70].iter().all(|&m| m > 1.0), "{extra}: {:?}", f.per_second_mbps);
        let tr = &r.ues[0].trace;
        let at = |t: f64| tr.t_s.iter().position(|&s| (s - t).abs() < 1e-9).unwrap();
        assert_eq!((tr.cell[at(5.0)], tr.cell[at(40.0)], tr.cell[at(70.0)]), (0, 1, 2));
        // Deterministic: the same scenario, the same bytes.
        if extra.is_empty() {
            let again = run(&nr_drive(Some(extra)));
            assert_eq!(serde_json::to_string(&again).unwrap(), serde_json::to_string(&r).unwrap());
        }
    }
}

/// [`pair`] on NR cells of [`nr_cell`] on the ideal link.
fn nr_pair(neighbour_flows: bool, interference: bool, extra: &str) -> String {
    pair(neighbour_flows, interference).replace("[network]", &format!("{}[network]", nr_cell("link = { kind = \"ideal\" }", extra)))
}

#[test]
fn a_loaded_nr_neighbour_lowers_the_sinr_and_an_idle_one_adds_none() {
    let sc = scenario(&nr_pair(false, true, ""));
    let (mut ran, _) = build_ran(&sc, &TraceSet::new(), &PositionTraces::new()).unwrap();
    assert_eq!(ran.slot().per_ms(), 2);
    let cqi = |ran: &mut cellshare_ran::Ran, tti: u64| match ran.channel_mut(0) {
        Channel::Radio(r) => r.cqi(tti),
        _ => unreachable!(),
    };
    let idle = cqi(&mut ran, 2000);
    let (mut alone, _) = build_ran(&scenario(&nr_pair(false, false, "")), &TraceSet::new(), &PositionTraces::new()).unwrap();
    assert_eq!(idle, cqi(&mut alone, 2000), "an idle neighbour adds no interference");
    ran.board().expect("a network").set(1, 3999, 51);
    let loaded = cqi(&mut ran, 4000);
    assert!(loaded + 3 <= idle, "NR CQI {idle} with the neighbour idle, {loaded} with it loaded");
    for extra in ["", "tdd_pattern = \"DDDSU\""] {
        let quiet = run(&nr_pair(false, true, extra));
        let busy = run(&nr_pair(true, true, extra));
        let deaf = run(&nr_pair(true, false, extra));
        let (q, b, n) = (quiet.flows[0].throughput_mbps, busy.flows[0].throughput_mbps, deaf.flows[0].throughput_mbps);
        assert!(b < 0.8 * q, "{extra}: loaded neighbour {b} vs idle {q}");
        assert!((n - q).abs() < 0.02 * q, "{extra}: without interference {n} vs {q}");
    }
}

#[test]
fn in_a_tdd_network_the_uplink_slots_hold_the_last_downlink_load() {
    // Without the hold the first downlink slot after each U would read its neighbours idle.
    let sc = scenario(&nr_pair(true, true, "tdd_pattern = \"DDDSU\""));
    let mut sim = Simulation::new(&sc, &TraceSet::new()).unwrap();
    sim.advance(2_000_000_000);
    let ran = sim.ran().unwrap();
    let board = ran.board().unwrap();
    let tdd = sc.cell.tdd().unwrap();
    let now = sim.now() / 500_000;
    let mut held = 0;
    for s in now - 1000..now - 10 {
        if !tdd.is_downlink(s) {
            assert_eq!(board.prbs(1, s), board.prbs(1, s - 1), "slot {s}");
            held += u32::from(board.prbs(1, s) > 0);
        }
    }
    assert!(held > 100, "the loaded neighbour's uplink slots: {held} held");
}

#[test]
fn an_nr_network_takes_its_rat_and_numerology_from_cell_alone() {
    // One `[cell]` builds every cell: a network cannot mix RATs or numerologies, and a key
    // that would try is refused by name.
    for (key, line) in [("rat", "rat = \"lte\""), ("numerology", "numerology = 2")] {
        let toml = nr_pair(false, true, "").replace("interference = true", &format!("interference = true\n{line}"));
        let e = Scenario::from_toml_str(&toml).unwrap_err();
        assert!(e.path.starts_with("network") && e.to_string().contains(key), "{key}: {e}");
    }
}

#[test]
fn a_one_site_nr_network_is_the_lone_nr_cell() {
    // The network builds its NR cells as the lone cell is built (PHY, TBS, CQI tables, the
    // wider PRB's noise, the realistic link's thresholds): the same UE gets the same bytes.
    let body = |cell_extra: &str, channel: &str, mobility: &str| {
        format!(
            "[simulation]\nduration_s = 3.0\n{}{cell_extra}\n[[ues]]\ncount = 4\nchannel = {{ kind = \"radio\", carrier_mhz = 3500{channel} }}\n{mobility}\n[[flows]]\nues = \"all\"\n{CUBIC}\n",
            nr_cell("link = { kind = \"realistic\" }", "tdd_pattern = \"DDDSU\"")
        )
    };
    let lone = run(&body("", ", distance_m = 300.0", ""));
    let net = run(&body(
        "[network]\nlayout = { kind = \"positions\", sites_m = [[0.0, 0.0]] }",
        "",
        "mobility = { kind = \"static\", position_m = [300.0, 0.0] }",
    ));
    assert!(lone.delivered_mbps > 1.0);
    assert_eq!(lone.delivered_mbps, net.delivered_mbps);
    assert!((lone.ues[0].mean_snr_db.unwrap() - net.ues[0].mean_snr_db.unwrap()).abs() < 1e-9);
}

#[test]
fn an_nr_handover_forwards_the_queue_over_xn_or_drops_it() {
    // Xn forwarding is the X2 forwarding of the LTE network (`forwarding = "x2"`): a UDP flow
    // above the NR carrier's rate keeps the queue full through both handovers.
    let cbr = r#"transport = { kind = "cbr", rate_mbps = 80.0 }"#;
    let for_mode = |mode: &str| {
        let toml = drive(&format!("forwarding = \"{mode}\""), cbr).replace("[network]", &format!("{}[network]", nr_cell("", "tdd_pattern = \"DDDSU\"")));
        let mut sim = Simulation::new(&scenario(&toml), &TraceSet::new()).unwrap();
        sim.advance(sim.end());
        let fl = &sim.flows[0];
        let (sent, delivered, dropped) = (fl.sent_datagrams(), fl.packets_delivered, fl.drops);
        assert_eq!(sent, delivered + dropped + sim.packets_in_flight() as u64, "{mode}");
        let r = sim.results();
        (r.handovers.clone().unwrap(), r.drops.handover, delivered)
    };
    let (hx, lost_x2, delivered_x2) = for_mode("x2");
    assert_eq!(hx.target, [1, 2]);
    let forwarded: u64 = hx.forwarded.iter().sum();
    assert!(forwarded > 100, "a full queue is forwarded: {hx:?}");
    assert_eq!(hx.dropped.iter().sum::<u64>(), 0);
    assert_eq!(lost_x2, hx.lost.iter().sum::<u64>());
    let (hd, lost_drop, delivered_drop) = for_mode("drop");
    assert_eq!(hd.target, [1, 2]);
    let dropped: u64 = hd.dropped.iter().sum();
    assert!(dropped > 100, "{hd:?}");
    assert_eq!(lost_drop, dropped + hd.lost.iter().sum::<u64>());
    // Above the carrier's rate the air carries the same either way (the surplus is dropped at
    // the queue instead), and every packet is accounted for (above).
    assert!(delivered_x2 > 0 && delivered_drop > 0);
}
