"""Cell-level behaviour through the Python API: traces, PF fairness reproduction."""

import json

import cellshare
from cellshare import _core


def test_trace_driven_ue_delivers_trace_capacity(traces_dir):
    # A saturated UE on a real trace delivers within 1% of the trace's capacity.
    for name in ("TMobile-LTE-driving.down", "ATT-LTE-driving.down", "Verizon-EVDO-driving.down"):
        path = traces_dir / name
        stamps = [int(x) for x in path.read_text().split()]
        period = stamps[-1]
        per_ms = [0] * period
        for s in stamps:
            per_ms[s % period] += 1
        dur_s = 60
        start_ms = 5000  # the 512 KB queue fills long before this
        offered = sum(per_ms[t % period] for t in range(start_ms, dur_s * 1000)) * 1500
        r = cellshare.run({
            "simulation": {"duration_s": float(dur_s)},
            "ues": [{"channel": {"kind": "trace", "file": str(path)}}],
            "flows": [{"ue": 0, "transport": {"kind": "cbr", "rate_mbps": 60.0}}],
        })
        got = sum(r.raw["ues"][0]["per_second_mbps"][start_ms // 1000:]) * 1e6 / 8
        assert abs(got - offered) / offered < 0.01, (name, got, offered)


def test_pf_fairness_reproduction(run_cli, tmp_path):
    out = tmp_path / "pf"
    p = run_cli("reproduce", "pf-fairness", "--out", out)
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads((out / "claims.json").read_text())
    assert doc["name"] == "pf-fairness" and doc["link"] == "realistic + capacity"
    claims = {c["id"]: c for c in doc["claims"]}
    assert set(claims) == {"equal-split"} and claims["equal-split"]["verdict"] == "holds"
    c = claims["equal-split"]
    assert {"paper", "location", "line", "quote", "target", "ours", "verdict"} <= set(c)
    assert abs(c["ours"] - 0.5) < 0.01
    obs = {o["id"]: o["ours"] for o in doc["observations"]}
    # Multi-user diversity on fast fading, less of it on slow fading; PF serves the weak UE, MT starves it.
    assert obs["pf-diversity"] > 1.1 and obs["diversity-at-3kmh"] < obs["pf-diversity"]
    assert obs["pf-serves-weak"] >= 0.8 and obs["mt-starves-weak"] <= 0.05
    assert (out / "claims.md").read_text().startswith("# ")
    assert (out / "pf-fairness.png").stat().st_size > 10_000
    assert (out / "runs" / "radio-pf-30kmh" / "summary.json").exists()


def test_python_api_tables_and_progress_free_run():
    r = cellshare.run({
        "simulation": {"duration_s": 2.0},
        "ues": [{"count": 2, "channel": {"kind": "fixed", "rate_mbps": 10.0}}],
        "flows": [{"ues": "all", "transport": {"kind": "cbr", "rate_mbps": 2.0}}],
    })
    flows = r.flows().to_pylist()
    assert len(flows) == 2 and abs(flows[0]["throughput_mbps"] - 2.0 * 1472 / 1500) < 0.05
    assert r.flow_series().num_rows == 4
    assert r.summary["sim_speed"] > 0


def test_scenario_invalid_carries_key_path():
    try:
        _core.validate("[cell]\nbandwidth_mhz = 2\n[[ues]]\n")
    except cellshare.ScenarioInvalid as e:
        assert e.args[1] == "cell.bandwidth_mhz"
        assert "expected" in e.args[2]
    else:
        raise AssertionError("accepted a 2 MHz cell")


def test_lpt_fifo_vs_cell_reproduction(run_cli, tmp_path):
    out = tmp_path / "lpt"
    p = run_cli("reproduce", "lpt-fifo-vs-cell", "--out", out, "--no-sensitivity")
    doc = json.loads((out / "claims.json").read_text())
    claims = {c["id"]: c for c in doc["claims"]}
    obs = {o["id"]: o["ours"] for o in doc["observations"]}
    # LEDBAT uses the idle cell, against the paper's Fig. 2a (the thesis says it competes): a miss, exit 1.
    assert claims["ledbat-cell-idle"]["verdict"] == "misses" and p.returncode == 1, p.stdout + p.stderr
    assert claims["tcp_lp-cell-competes"]["verdict"] == "holds"
    for cc in ("ledbat", "tcp_lp"):
        # Both yield behind the shared FIFO and not in the PF cell. "Clearly yielding" (the paper
        # gives no number) is read as less than half of the fair share (0.5 of two flows): LEDBAT's
        # share depends on which flow the FIFO's first overflow drops (0.163 with
        # `handshake = false`, 0.213 with the handshake, whose round trip moves that overflow;
        # measured 2026-11-27), so a bound at the measured value would test the phase, not the yield.
        assert obs[f"{cc}-fifo-share-on"] <= 0.25 and obs[f"{cc}-cell-share-on"] >= 2 * obs[f"{cc}-fifo-share-on"]
    assert (out / "lpt-fifo-vs-cell.png").stat().st_size > 10_000
