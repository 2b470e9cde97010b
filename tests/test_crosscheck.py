"""`cellshare crosscheck`'s comparison (simulator vs real Linux TCP in the emulator), without
the emulator: the statistics it compares, its tolerances, the scenario variants of --trace and
--cc, the averaging of repeated emulator runs and the table (docs/tcp.md)."""

import json
from pathlib import Path

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

import pyarrow as pa
import pytest

import cellshare
import cellshare.traces
from cellshare import emulate

REPO = Path(__file__).resolve().parent.parent
TRACES = cellshare.traces.DIR


def _sim(mbps=10.0, retx=100, drops=100, rto=1, dur=60.0):
    return {"duration_s": dur, "flows": [{"id": 0, "throughput_mbps": mbps, "retransmits": retx, "drops": drops,
                                          "timeouts": rto, "rtt_ms": {"p50": 50.0}}]}


def _emu(mbps=10.0, retx=100, drops=100, rto=1, rtt=100.0, kept=True, dur=60.0):
    return {"duration_s": dur, "realtime": {"kept": kept},
            "flows": [{"name": "f", "ue": 0, "throughput_mbps": mbps, "drops": drops,
                       "sender": {"retrans": retx, "rto": rto, "rtt_ms": rtt}}]}


def test_compare_judges_each_criterion_with_its_tolerance():
    ok = emulate.compare(_sim(), _emu(mbps=10.4, retx=110, drops=100, rto=2, rtt=109.0), {0: 100.0})
    r = ok["flows"][0]
    assert ok["ok"], ok
    assert r["throughput_rel_diff"] == pytest.approx(0.04)
    assert (r["sim_retx_per_drop"], r["emu_retx_per_drop"]) == (1.0, pytest.approx(1.1))
    assert r["timeouts_per_minute_diff"] == pytest.approx(1.0)
    assert r["rtt_rel_diff"] == pytest.approx(0.09)
    assert "sampled every 10 ms" in ok["rtt_statistic"]
    # Each criterion alone can fail the case.
    for emu, key in [(_emu(mbps=10.6), "throughput_within_tolerance"),
                     (_emu(retx=130), "retx_per_drop_within_tolerance"),
                     (_emu(rto=3), "timeouts_within_tolerance"),
                     (_emu(rtt=112.0), "rtt_within_tolerance")]:
        c = emulate.compare(_sim(), emu, {0: 100.0})
        assert not c[key] and not c["ok"], (key, c)
    # Without drops on a side the ratio is undefined and not judged.
    c = emulate.compare(_sim(retx=3, drops=0), _emu(retx=2, drops=0, rtt=100.0), {0: 100.0})
    assert c["flows"][0]["retx_per_drop_rel_diff"] is None and c["retx_per_drop_within_tolerance"]
    # Timeouts: within 1 per minute, and at least 1 for runs shorter than a minute.
    assert emulate.compare(_sim(rto=0, dur=10), _emu(rto=1, rtt=100.0, dur=10), {0: 100.0})["timeouts_within_tolerance"]
    assert not emulate.compare(_sim(rto=0, dur=10), _emu(rto=2, rtt=100.0, dur=10), {0: 100.0})["timeouts_within_tolerance"]
    assert emulate.compare(_sim(rto=0, dur=180), _emu(rto=3, rtt=100.0, dur=180), {0: 100.0})["timeouts_within_tolerance"]
    # The emulator's real-time verdict is carried along.
    assert emulate.compare(_sim(), _emu(kept=False), {0: 100.0})["emu_kept_real_time"] is False


def test_sampled_rtt_is_the_median_of_the_srtt_trace_after_the_first_sample():
    t = pa.table({"flow": [0, 0, 0, 0, 0, 1, 1], "srtt_ms": [0.0, 0.0, 30.0, 10.0, 20.0, 5.0, 7.0]})
    # The emulator's traffic tool takes the element at len/2 of the sorted samples.
    assert emulate.sampled_rtt_ms(t) == {0: 20.0, 1: 7.0}


def test_the_simulator_is_sampled_every_10_ms_like_the_emulator():
    text = (REPO / "scenarios" / "emu-two-ues-cubic.toml").read_text()
    doc = tomllib.loads(emulate.simulator_text(text + "\n[emulator]\nprobe_count = 0\n"))
    assert "emulator" not in doc and doc["simulation"]["trace_interval_ms"] == 10
    r = cellshare.run({**doc, "simulation": {**doc["simulation"], "duration_s": 3.0}})
    rtt = emulate.sampled_rtt_ms(r.flow_trace())
    assert set(rtt) == {0, 1} and all(20.0 < v < 500.0 for v in rtt.values()), rtt


def test_variants_swap_trace_and_controller_and_make_paths_absolute(tmp_path):
    text = (REPO / "scenarios" / "emu-trace.toml").read_text()
    trace = TRACES / "ATT-LTE-driving.down"
    doc = tomllib.loads(emulate.variant_text(text, REPO / "scenarios", trace, "bbr"))
    assert doc["ues"][0]["channel"]["file"] == str(trace.resolve())
    assert doc["flows"][0]["transport"]["cc"]["kind"] == "bbr"
    # Unchanged trace: a shipped one keeps its name (found anywhere), a file is made
    # absolute, so the variant can be written anywhere.
    doc = tomllib.loads(emulate.variant_text(text, REPO / "scenarios", None, None))
    assert doc["ues"][0]["channel"]["file"] == "builtin:TMobile-LTE-driving.down"
    relative = text.replace("builtin:TMobile-LTE-driving.down", "../python/cellshare/data/traces/TMobile-LTE-driving.down")
    doc = tomllib.loads(emulate.variant_text(relative, REPO / "scenarios", None, None))
    assert doc["ues"][0]["channel"]["file"] == str(TRACES.resolve() / "TMobile-LTE-driving.down")
    fixed = (REPO / "scenarios" / "emu-two-ues-cubic.toml").read_text()
    with pytest.raises(ValueError, match="--trace .*no UE with a trace channel"):
        emulate.variant_text(fixed, REPO / "scenarios", trace, None)


def test_repeated_emulator_runs_are_averaged_and_tabled():
    runs = [_emu(mbps=9.0, retx=90, drops=90, rto=1, rtt=90.0), _emu(mbps=11.0, retx=110, drops=100, rto=2, rtt=110.0,
                                                                      kept=False)]
    avg = emulate.average_summaries(runs)
    f = avg["flows"][0]
    assert (f["throughput_mbps"], f["drops"], f["sender"]["retrans"], f["sender"]["rto"], f["sender"]["rtt_ms"]) == (
        10.0, 95.0, 100.0, 1.5, 100.0)
    assert avg["realtime"]["kept"] is False and avg["repeats"] == 2
    assert emulate.average_summaries(runs[:1]) is runs[0]
    cmp = emulate.compare(_sim(), avg, {0: 100.0})
    table = emulate.markdown_table([{"trace": "T.down", "cc": "cubic", "load": 1.5, "compare": cmp}])
    lines = table.splitlines()
    assert lines[0].startswith("| trace | cc | Mbps sim / emu") and len(lines) == 3
    assert "10.00 / 10.00 [9.00–11.00] (0.0%)" in lines[2]
    assert "1 / 1.5 [1–2]" in lines[2] and "not kept (1.5)" in lines[2]


def test_crosscheck_cli_rejects_bad_options_before_running(run_cli, tmp_path):
    scenario = REPO / "scenarios" / "emu-trace.toml"
    r = run_cli("crosscheck", scenario, "--out", tmp_path / "x", "--trace", tmp_path / "missing.down")
    assert r.returncode == 2 and "missing.down" in r.stderr and "no such file" in r.stderr
    r = run_cli("crosscheck", REPO / "scenarios" / "emu-two-ues-cubic.toml", "--out", tmp_path / "y",
                "--trace", TRACES / "ATT-LTE-driving.down")
    assert r.returncode == 2 and "no UE with a trace channel" in r.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_reuse_compares_a_new_simulator_run_with_the_stored_emulator_runs(run_cli, tmp_path):
    scenario = REPO / "scenarios" / "emu-two-ues-cubic.toml"
    out = tmp_path / "xc"
    # Without a stored emulator run --reuse refuses, before writing anything.
    r = run_cli("crosscheck", scenario, "--out", out, "--duration", "2", "--reuse")
    assert r.returncode == 2 and "--reuse: no emulator run" in r.stderr and not out.exists()
    stored = _emu(mbps=3.0, retx=4, drops=4, rto=0, rtt=80.0, dur=2.0)
    stored["flows"] = [dict(stored["flows"][0], name=f"f{i}", ue=i) for i in range(2)]
    (out / "emu").mkdir(parents=True)
    # Not an earlier crosscheck's folder (no output marker): refused too.
    (out / "emu" / "summary.json").write_text(json.dumps(stored))
    r = run_cli("crosscheck", scenario, "--out", out, "--duration", "2", "--reuse")
    assert r.returncode == 2 and "--reuse: no emulator run" in r.stderr
    from cellshare.output import write_marker
    write_marker(out, "crosscheck", ["emu"])  # as a crosscheck that ran the emulator writes it
    (out / "emu" / "host_load.json").write_text(json.dumps({"load": 0.5}))
    r = run_cli("crosscheck", scenario, "--out", out, "--duration", "2", "--reuse")
    assert r.returncode in (0, 1), r.stderr
    doc = json.loads((out / "crosscheck.json").read_text())
    assert doc["attempts"] == [{"run": 1, "load": 0.5, "kept": True, "reused": True, "tti_late_p99_ms": None,
                                "host_steal_percent": None}]
    assert [f["emu_mbps"] for f in doc["flows"]] == [3.0, 3.0] and (out / "sim" / "summary.json").exists()
    assert all(f["sim_mbps"] > 0 for f in doc["flows"])
    # A stored run of another length is another scenario: refused, naming both durations.
    r = run_cli("crosscheck", scenario, "--out", out, "--duration", "3", "--reuse")
    assert r.returncode == 2 and "lasted 2.0 s, the simulator's 3.0 s" in r.stderr, r.stderr


def test_the_source_trees_emulator_is_brought_up_to_date_before_it_runs(tmp_path, monkeypatch):
    """An old `target/release/cellshare-emu` ran old code beside a new simulator (a crosscheck
    compared against a traffic tool without the loss counters): in a source tree with cargo,
    `cargo build` runs first (a no-op when current); a binary the user names is used as it is."""
    import subprocess

    import cellshare.emulate as emulate

    exe = tmp_path / "target" / "release" / "cellshare-emu"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    (tmp_path / "Cargo.toml").write_text("[workspace]\n")
    calls = []
    monkeypatch.setattr(emulate, "REPO", tmp_path)
    monkeypatch.delenv("CELLSHARE_EMU_BIN", raising=False)
    monkeypatch.delenv("CARGO_TARGET_DIR", raising=False)
    monkeypatch.setattr(emulate.shutil, "which", lambda name: "/usr/bin/cargo" if name == "cargo" else None)
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: calls.append(cmd) or subprocess.CompletedProcess(cmd, 0))
    assert emulate.emulator_binary() == exe
    assert calls == [["cargo", "build", "--release", "--quiet", "-p", "cellshare-emu"]]
    # A failed build is an error, not a silent fall-back to the old binary.
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 101))
    with pytest.raises(emulate.EmulatorError, match="building cellshare-emu failed"):
        emulate.emulator_binary()
    # The user's own binary: no build.
    monkeypatch.setenv("CELLSHARE_EMU_BIN", str(exe))
    calls.clear()
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: calls.append(cmd) or subprocess.CompletedProcess(cmd, 0))
    assert emulate.emulator_binary() == exe and calls == []


def test_the_simulator_is_set_up_as_each_emulator_run_went():
    """The emulator's cell runs from the engine's start (warm-up, idle-RTT probes), so at its
    clock's start a trace is `clock_start_tti` ms in, and each sender connects when its process
    is up: the simulator reads the trace from there and starts each flow at its SYN."""
    text = emulate.simulator_text((REPO / "scenarios" / "emu-trace.toml").read_text())
    emu = {"clock_start_tti": 482, "flows": [{"id": 0, "first_packet_s": 0.0192396}]}
    aligned, info = emulate.aligned_simulator_text(text, emu)
    doc = tomllib.loads(aligned)
    assert doc["ues"][0]["channel"]["offset_ms"] == 482 and doc["flows"][0]["start_s"] == 0.01924
    assert info["trace_offset_ms"] == {0: 482} and info["flow_start_s"] == {0: 0.01924} and not info["not_aligned"]
    # The scenario's own offset and start time add to / bound what the emulator recorded.
    own = text.replace('file = "', 'offset_ms = 1000, file = "', 1).replace("ue = 0,", "ue = 0, start_s = 2.0,", 1)
    assert "offset_ms = 1000" in own and "start_s = 2.0" in own
    doc = tomllib.loads(emulate.aligned_simulator_text(own, emu)[0])
    assert doc["ues"][0]["channel"]["offset_ms"] == 1482 and doc["flows"][0]["start_s"] == 2.0
    # A run without the records (an older emulator) is compared as written, and says so.
    same, info = emulate.aligned_simulator_text(text, {"flows": [{"id": 0}]})
    assert tomllib.loads(same) == tomllib.loads(text)
    assert len(info["not_aligned"]) == 2 and "clock_start_tti" in info["not_aligned"][0]
    # A random trace offset is drawn by the simulator: not shifted, and said.
    rnd = text.replace('file = "', 'random_offset = true, file = "', 1)
    doc, info = emulate.aligned_simulator_text(rnd, emu)
    assert "offset_ms" not in tomllib.loads(doc)["ues"][0]["channel"] and "random_offset" in info["not_aligned"][0]
    # The throughput is taken over the scenario's life of the flow, as the emulator's.
    sim = {"duration_s": 10.0, "flows": [{"id": 0, "bytes_delivered": 12_500_000, "throughput_mbps": 1.0}]}
    life = emulate.over_scenario_life(sim, {"scenario_life_s": {0: 10.0}})
    assert life["flows"][0]["throughput_mbps"] == pytest.approx(10.0) and sim["flows"][0]["throughput_mbps"] == 1.0


def test_aligned_simulator_runs_are_averaged_like_the_emulators():
    a, b = _sim(mbps=10.0, retx=100, drops=100, rto=1), _sim(mbps=12.0, retx=101, drops=99, rto=2)
    avg = emulate.average_sim_summaries([a, b])
    f = avg["flows"][0]
    assert (f["throughput_mbps"], f["retransmits"], f["drops"], f["timeouts"]) == (11.0, 100.5, 99.5, 1.5)
    assert [r["throughput_mbps"] for r in f["runs"]] == [10.0, 12.0] and avg["repeats"] == 2
    assert emulate.average_sim_summaries([a]) is a
    assert emulate.average_rtts([{0: 100.0}, {0: 120.0, 1: None}]) == {0: 110.0, 1: None}
    cmp = emulate.compare(avg, _emu(mbps=11.0, retx=100, drops=100, rto=1), {0: 100.0})
    table = emulate.markdown_table([{"trace": "T.down", "cc": "cubic", "load": 1.0, "compare": cmp}])
    assert "| 100.5 / 100 |" in table and "| 99.5 / 100 |" in table and "| 1.5 / 1.0 |" in table


def test_alignment_gives_each_flow_of_a_ues_entry_its_own_start():
    text = emulate.simulator_text((REPO / "scenarios" / "emu-two-ues-cubic.toml").read_text())
    emu = {"clock_start_tti": 703, "flows": [{"id": 0, "first_packet_s": 0.0078}, {"id": 1, "first_packet_s": 0.0107}]}
    aligned, info = emulate.aligned_simulator_text(text, emu)
    flows = tomllib.loads(aligned)["flows"]
    assert [(f["ue"], f["start_s"]) for f in flows] == [(0, 0.0078), (1, 0.0107)] and "ues" not in flows[0]
    assert info["trace_offset_ms"] == {} and not info["not_aligned"]
    # The expanded flows are the simulator's flows of the original scenario: same names, UEs.
    from cellshare.api import run_text
    before = run_text(text.replace("duration_s = 15.0", "duration_s = 0.2"), str(REPO / "scenarios"))
    after = run_text(aligned.replace("duration_s = 15.0", "duration_s = 0.2"), str(REPO / "scenarios"))
    assert [(f["name"], f["ue"]) for f in before.summary["flows"]] == [(f["name"], f["ue"]) for f in after.summary["flows"]]
    named = text.replace('ues = "all"', 'name = "dl", ues = "all"', 1)
    flows = tomllib.loads(emulate.aligned_simulator_text(named, emu)[0])["flows"]
    assert [f["name"] for f in flows] == ["dl-0", "dl-1"]


def test_offset_step_shifts_every_trace_channel_and_refuses_what_it_cannot_shift(run_cli, tmp_path):
    text = emulate.simulator_text((REPO / "scenarios" / "emu-trace.toml").read_text())
    doc = tomllib.loads(emulate.shifted_text(text.replace('file = "', 'offset_ms = 7, file = "', 1), 250))
    assert doc["ues"][0]["channel"]["offset_ms"] == 257
    with pytest.raises(ValueError, match=r"ues\[0\].channel.random_offset"):
        emulate.shifted_text(text.replace('file = "', 'random_offset = true, file = "', 1), 250)
    # On the command line: a scenario without trace channels exits 2 before running anything.
    r = run_cli("crosscheck", REPO / "scenarios" / "emu-two-ues-cubic.toml", "--out", tmp_path / "x",
                "--offset-step", "250")
    assert r.returncode == 2 and "--offset-step" in r.stderr and "no UE with a trace channel" in r.stderr
    assert not (tmp_path / "x").exists()


def test_start_sensitivity_tool_runs_each_start_of_the_trace(tmp_path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("sens", REPO / "tools" / "crosscheck_start_sensitivity.py")
    sens = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sens)
    trace = TRACES / "TMobile-LTE-driving.down"
    s = sens.sweep(REPO / "scenarios" / "emu-trace.toml", trace, "bbr", [0, 3000], duration=3.0)
    assert [r["offset_ms"] for r in s["runs"]] == [0, 3000] and all(r["throughput_mbps"] > 0 for r in s["runs"])
    q = s["rtt_p50_ms"]
    assert q["min"] <= q["median"] <= q["max"]
    # Different starts of a real trace are different experiments: the runs differ.
    assert s["runs"][0]["throughput_mbps"] != s["runs"][1]["throughput_mbps"]
    assert sens._offsets("0:200:100") == [0, 100, 200] and sens._offsets("5,7") == [5, 7]
    with pytest.raises(Exception, match="START:STOP:STEP"):
        sens._offsets("0:1:0")
    out = tmp_path / "x.json"
    out.write_text("mine")
    with pytest.raises(SystemExit):
        sens.main(["--trace", str(trace), "--offsets", "0", "--json", str(out)])
    assert out.read_text() == "mine"
