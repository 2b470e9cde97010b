"""The command line as a user meets it: run, outputs, validation errors, bench, reproduce."""

import json

import pyarrow.parquet as pq

from conftest import REPO

WALL = ("sim_speed", "wall_s")


def test_default_run_writes_summary_and_tables(run_cli, tmp_path):
    out = tmp_path / "demo"
    p = run_cli("run", "--out", out, "--duration", "5")
    assert p.returncode == 0, p.stderr
    assert "PRB utilization" in p.stdout
    s = json.loads((out / "summary.json").read_text())
    for key in ("sim_speed", "prb_utilization", "delivered_mbps", "queue_delay_ms", "flows"):
        assert key in s
    assert set(s["queue_delay_ms"]) >= {"p50", "p99", "max"}
    assert all("throughput_mbps" in f and "fct_s" in f for f in s["flows"])
    assert 0 < s["prb_utilization"] <= 1
    for t in ("flows", "flow_series", "ue_series", "cell_series", "queue_delay_cdf", "flow_trace", "ue_trace"):
        table = pq.read_table(out / f"{t}.parquet")
        assert table.num_rows > 0, t
    series = pq.read_table(out / "flow_series.parquet").to_pydict()
    assert max(series["second"]) == 4


def test_shipped_two_ue_pf_scenario_splits_the_cell_evenly(run_cli):
    p = run_cli("run", "scenarios/two-ues-pf.toml", "--json")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["scenario"] == "two-ues-pf"
    cell = sum(u["throughput_mbps"] for u in s["ues"])
    assert abs(cell - 20.0) / 20.0 < 0.01
    for u in s["ues"]:
        assert abs(u["throughput_mbps"] / (cell / 2) - 1) <= 0.02


def test_same_seed_gives_identical_outputs(run_cli, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        p = run_cli("run", "scenarios/radio-cell.toml", "--out", d, "--duration", "4", "--seed", "5")
        assert p.returncode == 0, p.stderr
    sa = json.loads((a / "summary.json").read_text())
    sb = json.loads((b / "summary.json").read_text())
    for k in WALL:
        sa.pop(k), sb.pop(k)
    assert sa == sb
    for t in ("flows", "flow_series", "ue_series", "cell_series", "queue_delay_cdf", "flow_trace", "ue_trace"):
        assert (a / f"{t}.parquet").read_bytes() == (b / f"{t}.parquet").read_bytes(), t
    p = run_cli("run", "scenarios/radio-cell.toml", "--json", "--duration", "4", "--seed", "6")
    other = json.loads(p.stdout)
    assert other["delivered_mbps"] != sa["delivered_mbps"]


BAD = {
    "unknown key": ("[[ues]]\ncount = 1\ncolour = 3\n", "ues[0].colour"),
    "wrong type": ("[simulation]\nduration_s = \"ten\"\n[[ues]]\n", "simulation.duration_s"),
    "out of range": ("[cell]\nbandwidth_mhz = 7\n[[ues]]\n", "cell.bandwidth_mhz"),
    "bad UE index": ("[[ues]]\n[[flows]]\nue = 5\ntransport = { kind = \"cbr\", rate_mbps = 1 }\n", "flows[0].ue"),
    "missing trace": ("[[ues]]\nchannel = { kind = \"trace\", file = \"nowhere.down\" }\n", "ues[0].channel.file"),
    "malformed trace": ("[[ues]]\nchannel = { kind = \"trace\", file = \"bad.down\" }\n", "ues[0].channel.file"),
    "bad radio": ("[[ues]]\nchannel = { kind = \"radio\", distance_m = -5.0 }\n", "ues[0].channel.distance_m"),
    "unknown amc": ("[cell]\nlink = { kind = \"realistic\", amc = \"oracle\" }\n[[ues]]\n", "cell.link"),
    "bler target": ("[cell]\nlink = { kind = \"realistic\", bler_target = 0.6 }\n[[ues]]\n", "cell.link.bler_target"),
    "no harq process": ("[cell]\nlink = { kind = \"realistic\", harq_processes = 0 }\n[[ues]]\n", "cell.link.harq_processes"),
    "negative delay": ("[cell]\nlink = { kind = \"realistic\", pipeline_delay_tti = -1 }\n[[ues]]\n", "cell.link.pipeline_delay_tti"),
    # The NR cell's other bad inputs (numerology/bandwidth pairs, layers above the UE's
    # capability) are crates/sim/src/nr_tests.rs's; one takes the CLI's path here.
    "tdd without downlink": ("[cell]\nrat = \"nr\"\nbandwidth_mhz = 100\n[cell.nr]\ntdd_pattern = \"SUU\"\n[[ues]]\n",
                             "cell.nr.tdd_pattern"),
    "not toml": ("[simulation\n", "line 1"),
}


def test_malformed_scenarios_exit_2_naming_the_key_and_write_nothing(run_cli, tmp_path):
    (tmp_path / "bad.down").write_text("0\n5\nfive\n")
    for label, (text, key) in BAD.items():
        f = tmp_path / "s.toml"
        f.write_text(text)
        out = tmp_path / f"out-{label.replace(' ', '-')}"
        p = run_cli("run", f, "--out", out)
        assert p.returncode == 2, (label, p.stdout, p.stderr)
        assert key in p.stderr, (label, p.stderr)
        assert not out.exists(), label
        assert not any(x.name.startswith(f".{out.name}") for x in tmp_path.iterdir()), label
        v = run_cli("validate", f)
        assert v.returncode == 2 and key in v.stderr, (label, v.stderr)


def test_the_cli_and_its_checks_do_not_load_pyarrow():
    # The API loads pyarrow (about 0.2 s); `cellshare --help`, `validate` and every input check
    # that exits 2 before a run must not pay for it.
    import subprocess
    import sys

    code = ("import sys; from typer.testing import CliRunner; from cellshare.cli import app; "
            "r = CliRunner().invoke(app, ['validate', 'scenarios/two-ues-pf.toml']); "
            "print(r.exit_code, 'pyarrow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.split() == ["0", "False"], out.stdout + out.stderr


def test_bad_flags_and_missing_files(run_cli, tmp_path):
    p = run_cli("run", "--duration", "-3")
    assert p.returncode == 2 and "--duration" in p.stderr
    p = run_cli("run", tmp_path / "absent.toml", "--out", tmp_path / "o")
    assert p.returncode == 2 and "absent.toml" in p.stderr
    assert not (tmp_path / "o").exists()
    p = run_cli("reproduce", "no-such-experiment", "--out", tmp_path / "r")
    assert p.returncode == 2 and "no-such-experiment" in p.stderr


def test_shipped_scenarios_validate(run_cli):
    files = sorted((REPO / "scenarios").glob("*.toml"))
    assert files
    p = run_cli("validate", *files)
    assert p.returncode == 0, p.stderr


def test_bench_json_prints_only_speed_and_memory(run_cli):
    p = run_cli("bench", "--json", "--duration", "1", "--repeat", "1")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    # The realistic link's speed, the ideal link's measured beside it, and memory.
    assert set(d) == {"sim_speed", "ideal_sim_speed", "peak_rss_mb"}
    assert d["sim_speed"] > 0 and d["ideal_sim_speed"] > 0 and d["peak_rss_mb"] > 0


def test_bench_nr_reports_the_cost_per_packet_beside_lte(run_cli):
    p = run_cli("bench", "--nr", "--json", "--duration", "0.5", "--repeat", "1")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    # The NR carrier (273 PRBs) carries several times the LTE cell's packets.
    assert d["nr"]["packets"] > 3 * d["lte"]["packets"] > 0, d
    for k in ("nr", "lte"):
        assert d[k]["wall_us_per_packet"] > 0 and d[k]["cpu_us_per_packet"] > 0, d
    assert d["ratio_wall"] == d["nr"]["wall_us_per_packet"] / d["lte"]["wall_us_per_packet"]


def test_scenario_reference_is_current(run_cli):
    p = run_cli("scenario-reference")
    assert p.returncode == 0, p.stderr
    doc = (REPO / "docs" / "scenario-reference.md").read_text()
    assert p.stdout == doc, "docs/scenario-reference.md is stale: run `cellshare scenario-reference -o docs/scenario-reference.md --force`"
    for key in ("bandwidth_mhz", "rlc_queue_bytes", "time_constant_tti", "path_loss_exponent", "remote_delay_ms"):
        assert key in doc


def test_reproduce_list(run_cli):
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0
    assert "pf-fairness" in p.stdout
