//! The NR cell end to end: slots per numerology, TBS-predicted throughput, TDD, HARQ at a
//! realistic link, determinism and the validation of `[cell.nr]`. Short runs (0.3 s or less).

use cellshare_channel::nr::{self, tbs_bits, McsTable, PdschConfig};
use cellshare_channel::{Channel, LinkQuality};

use crate::assembly::TraceSet;
use crate::{RunResult, Scenario, Simulation};

/// A saturated UE (CBR above the carrier's rate) on a flat radio channel at `distance_m`.
fn saturated(mu: u8, fr: &str, bw: u32, layers: u8, link: &str, distance_m: f64, extra_nr: &str, duration_s: f64) -> String {
    // Above the carrier's peak rate (TS 38.306 § 4.1.2's, with its 14 % overhead).
    let n_prb = [106.0, 273.0, 135.0, 66.0][mu as usize];
    let cbr = (1.2 * layers as f64 * 8.0 * 948.0 / 1024.0 * n_prb * 12.0 * 14.0 * 0.86 * 1000.0 * (1 << mu) as f64 / 1e6).ceil();
    format!(
        r#"
[simulation]
duration_s = {duration_s}
trace_interval_ms = 0
[cell]
rat = "nr"
bandwidth_mhz = {bw}
link = {{ kind = "{link}" }}
[cell.nr]
numerology = {mu}
frequency_range = "{fr}"
{extra_nr}
[wired]
remote_delay_ms = 1
remote_rate_mbps = 100000
backhaul_rate_mbps = 100000
[[ues]]
channel = {{ kind = "radio", distance_m = {distance_m}, fading = "none", layers = {layers}, carrier_mhz = 3500 }}
[[flows]]
ue = 0
transport = {{ kind = "cbr", rate_mbps = {cbr} }}
"#
    )
}

/// What a run of `toml` gives, and what TS 38.214 predicts for its UE 0.
struct Predicted {
    result: RunResult,
    /// `tbs_bits` of the MCS UE 0's channel reports, on the carrier's PRBs with its layers, / 8.
    per_slot: u64,
    n_prb: u32,
    slot_ms: f64,
}

impl Predicted {
    /// Bytes delivered over the air in the run (packets whose last byte arrived).
    fn carried(&self) -> f64 {
        self.result.delivered_mbps * 1e6 / 8.0 * self.result.duration_s
    }
}

fn run_and_predict(toml: &str) -> Predicted {
    let sc = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulation::new(&sc, &TraceSet::new()).unwrap();
    let ran = sim.ran().expect("a cell");
    let cell = &ran.cells()[0];
    let n_prb = cell.n_prb();
    let Channel::Radio(radio) = &cell.ue(0).channel else { panic!("a radio UE") };
    let mut radio = radio.clone();
    let LinkQuality::Nr { mcs: Some(mcs), layers, tbs } = radio.quality(0) else { panic!("an NR quality in range") };
    let per_slot = tbs_bits(tbs.mcs_table(), mcs, n_prb, layers, &PdschConfig::default()) as u64 / 8;
    let slot_ms = sc.cell.slot().ns() as f64 / 1e6;
    Predicted { result: sim.run(), per_slot, n_prb, slot_ms }
}

#[test]
fn a_saturated_ue_gets_the_tbs_of_every_slot_at_every_numerology() {
    // (μ, range, MHz, PRBs, layers, slot): the largest FR1 carrier at μ = 0..2, FR2's 100 MHz
    // at μ = 3.
    for (mu, fr, bw, prbs, layers, slot_ms) in
        [(0, "fr1", 20, 106, 1, 1.0), (1, "fr1", 100, 273, 2, 0.5), (2, "fr1", 100, 135, 4, 0.25), (3, "fr2", 100, 66, 3, 0.125)]
    {
        let p = run_and_predict(&saturated(mu, fr, bw, layers, "ideal", 120.0, "", 0.2));
        let r = &p.result;
        assert_eq!((p.slot_ms, p.n_prb), (slot_ms, prbs), "μ = {mu}");
        assert!(p.per_slot > 0);
        // The cell ran every slot from the first arrival (after 1 ms of wired delay) on: the
        // slots of 0.2 s, of the slot's length, less at most 2 % (the first 1–2 ms).
        let slots_in_run = (0.2 / (slot_ms * 1e-3)).round() as u64;
        assert!(r.ttis <= slots_in_run && r.ttis * 50 >= slots_in_run * 49, "μ = {mu}: {} slots of {slots_in_run}", r.ttis);
        // Every slot carried its whole transport block (RLC segments packets across slots);
        // the packets still in segmentation at the end are the only difference.
        let predicted = (p.per_slot * r.ttis) as f64;
        assert!(
            (p.carried() - predicted).abs() <= 0.01 * predicted,
            "μ = {mu}, {prbs} PRBs, {layers} layers: {} bytes on air, TBS predicts {predicted}",
            p.carried()
        );
    }
}

#[test]
fn tdd_dddsu_carries_four_fifths_of_the_fdd_downlink() {
    // The same carrier with DDDSU: D and S slots carry the downlink, U none: 4 of 5 slots.
    let fdd = run_and_predict(&saturated(1, "fr1", 40, 1, "ideal", 500.0, "", 0.1));
    let tdd = run_and_predict(&saturated(1, "fr1", 40, 1, "ideal", 500.0, "tdd_pattern = \"DDDSU\"", 0.1));
    assert_eq!(fdd.per_slot, tdd.per_slot, "the same block per downlink slot");
    let ratio = tdd.carried() / fdd.carried();
    assert!((ratio - 0.8).abs() < 0.01, "TDD/FDD = {ratio}");
    // The cell ran only in downlink slots.
    let slots = tdd.result.ttis as f64 / fdd.result.ttis as f64;
    assert!((slots - 0.8).abs() < 0.01, "{} of {}", tdd.result.ttis, fdd.result.ttis);
    // Utilization is over the downlink slots: a saturated cell uses all of them.
    assert!(tdd.result.prb_utilization > 0.95, "{}", tdd.result.prb_utilization);
}

#[test]
fn harq_retransmits_near_a_threshold_and_first_transmissions_meet_the_target() {
    // A flat channel whose SINR sits 0.02 dB above CQI 7's threshold at the 10 % target
    // (16QAM, R = 378/1024, which MCS table 1 holds as MCS 11): every first transmission is
    // sent at that MCS and fails with probability just under 0.1; HARQ repairs it.
    let probe = saturated(1, "fr1", 20, 1, "realistic", 400.0, "", 0.3);
    let sc = Scenario::from_toml_str(&probe).unwrap();
    let sim = Simulation::new(&sc, &TraceSet::new()).unwrap();
    let cell = &sim.ran().unwrap().cells()[0];
    let th_db = 10.0 * cell.nr().unwrap().radio(0.1).cqi_thresholds[6].log10();
    let Channel::Radio(radio) = &cell.ue(0).channel else { unreachable!() };
    let sinr_db = radio.clone().sinr_db(0);
    let power = 47.78 + th_db + 0.02 - sinr_db;
    let toml = probe.replace("carrier_mhz = 3500", &format!("carrier_mhz = 3500, tx_power_dbm = {power}"));
    let sim = Simulation::new(&Scenario::from_toml_str(&toml).unwrap(), &TraceSet::new()).unwrap();
    let Channel::Radio(radio) = &sim.ran().unwrap().cells()[0].ue(0).channel else { unreachable!() };
    let mut radio = radio.clone();
    let LinkQuality::Nr { mcs: Some(mcs), tbs, .. } = radio.quality(0) else { panic!("in range") };
    assert_eq!(mcs, 11, "CQI 7's MCS");
    let sinr = 10f64.powf(radio.sinr_db(0) / 10.0);
    let n_prb = tbs.n_prb();
    let model = nr::tb_bler(McsTable::Qam64, mcs, tbs_bits(McsTable::Qam64, mcs, n_prb, 1, &PdschConfig::default()), sinr, 1);
    // Link adaptation sends at the highest CQI meeting the target: the block's own BLER at
    // this SINR is at most the target and not far below it (the CQI's threshold is judged on
    // its nominal code rate, the block on its TBS's).
    assert!((0.05..=0.1).contains(&model), "the model's BLER {model}");
    let s = sim.run().link.stats.expect("a realistic link");
    assert!(s.transport_blocks > 500, "{s:?}");
    assert!(s.retransmissions > 0, "{s:?}");
    // Errors of retransmissions are rare (two incremental-redundancy copies at this SINR are
    // far above the threshold), so block errors over new blocks is the first-transmission
    // BLER. Its binomial standard deviation at the model's BLER (≤ 0.1) over ≥ 500 blocks is
    // ≤ 1.35 %: the measured rate lies within 3σ (4 %) of the model's, and so within the
    // target's tolerance.
    let bler = s.block_errors as f64 / s.transport_blocks as f64;
    assert!((bler - model).abs() <= 0.04, "first-transmission BLER {bler}, model {model} ({s:?})");
    assert_eq!(s.residual_losses, 0, "{s:?}");
}

#[test]
fn the_same_nr_scenario_twice_gives_the_same_bytes() {
    let toml = saturated(2, "fr1", 50, 2, "realistic", 800.0, "tdd_pattern = \"DDSU\"\nmcs_table = \"qam256\"", 0.1);
    let run = || serde_json::to_string(&Simulation::new(&Scenario::from_toml_str(&toml).unwrap(), &TraceSet::new()).unwrap().run()).unwrap();
    assert_eq!(run(), run());
}

#[test]
fn bad_nr_input_names_the_key() {
    let base = |cell: &str, ch: &str| format!("[cell]\nrat = \"nr\"\n{cell}\n[[ues]]\nchannel = {{ kind = \"radio\", distance_m = 100.0{ch} }}\n");
    for (toml, key) in [
        (base("bandwidth_mhz = 33\n[cell.nr]\nnumerology = 1", ""), "cell.bandwidth_mhz"),
        (base("bandwidth_mhz = 100\n[cell.nr]\nnumerology = 0", ""), "cell.bandwidth_mhz"),
        (base("bandwidth_mhz = 100\n[cell.nr]\nnumerology = 3", ""), "cell.nr.numerology"),
        (base("bandwidth_mhz = 100\n[cell.nr]\nue_max_layers = 2", ", layers = 3"), "ues[0].channel.layers"),
        (base("bandwidth_mhz = 100\n[cell.nr]\ntdd_pattern = \"SSUU\"", ""), "cell.nr.tdd_pattern"),
        (base("bandwidth_mhz = 100\n[cell.nr]\ntdd_pattern = \"DDDD\"", ""), "cell.nr.tdd_pattern"),
        (base("bandwidth_mhz = 100\n[cell.nr]\ntdd_pattern = \"DDXU\"", ""), "cell.nr.tdd_pattern"),
        (base("bandwidth_mhz = 100\n[cell.nr]\nharq_processes = 17", ""), "cell.nr.harq_processes"),
        // LTE keeps its own limits.
        ("[[ues]]\nchannel = { kind = \"radio\", distance_m = 100.0, layers = 3 }\n".to_string(), "ues[0].channel.layers"),
        ("[cell]\nbandwidth_mhz = 100\n[[ues]]\nchannel = { kind = \"fixed\", rate_mbps = 1 }\n".to_string(), "cell.bandwidth_mhz"),
    ] {
        let e = Scenario::from_toml_str(&toml).err().unwrap_or_else(|| panic!("accepted: {toml}"));
        assert_eq!(e.path, key, "{toml}\n{e}");
    }
    let e = Scenario::from_toml_str(&base("bandwidth_mhz = 33\n[cell.nr]\nnumerology = 1", "")).unwrap_err().to_string();
    assert!(e.contains("100") && e.contains("30 kHz"), "{e}");
}

#[test]
fn a_fixed_channel_carries_rate_times_slot_on_nr() {
    // 40 Mbit/s in 0.25 ms slots: 1250 bytes per slot, 40 Mbit/s delivered.
    let toml = r#"
[simulation]
duration_s = 0.3
trace_interval_ms = 0
[cell]
rat = "nr"
bandwidth_mhz = 50
[cell.nr]
numerology = 2
[wired]
remote_delay_ms = 1
[[ues]]
channel = { kind = "fixed", rate_mbps = 40 }
[[flows]]
ue = 0
transport = { kind = "cbr", rate_mbps = 80 }
"#;
    let sc = Scenario::from_toml_str(toml).unwrap();
    let r = Simulation::new(&sc, &TraceSet::new()).unwrap().run();
    let carried = r.delivered_mbps * 1e6 / 8.0 * r.duration_s;
    // Within the packet in segmentation at the end and the one delivered in the last slot.
    assert!((carried - (1250 * r.ttis) as f64).abs() <= 3000.0, "{carried} bytes in {} slots", r.ttis);
}
