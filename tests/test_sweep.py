"""Sweeps: expansion and ids, validation errors, the 30-run local sweep on two workers,
resume after a partial or killed sweep, the dataset, Ray, memory, and the Python API."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cellshare.sweeps import (SHORT_MAX_BYTES, MEDIUM_MAX_BYTES, WALL_CLOCK_COLUMNS, SweepError, category_of,
                              load_sweep, run_id, validate_runs, with_categories)
from conftest import REPO

#: A small cell: one long and one background TCP flow, two short and one medium finite flow.
BASE = """\
name = "tiny"
[simulation]
duration_s = 3.0
seed = 1
[cell]
bandwidth_mhz = 5
[[ues]]
count = 3
channel = { kind = "radio", distance_m = 300.0, fading = "rayleigh" }
[[flows]]
ue = 0
name = "long"
transport = { kind = "tcp", cc = { kind = "cubic" } }
[[flows]]
ue = 1
name = "bg"
class = "background"
transport = { kind = "tcp", cc = { kind = "cubic" } }
[[flows]]
ue = 2
name = "short1"
bytes = 50000
start_s = 0.5
transport = { kind = "tcp" }
[[flows]]
ue = 2
name = "short2"
bytes = 100000
start_s = 1.5
transport = { kind = "tcp" }
[[flows]]
ue = 0
name = "medium"
bytes = 1000000
start_s = 1.0
transport = { kind = "tcp" }
"""

#: The Legilimens Figure 12 shape: schemes (one of them without the background flow) × loads × seeds.
SWEEP = """\
name = "tiny sweep"
base = "base.toml"
seeds = {seeds}

[axes.scheme]
cubic    = {{ "flows[1].transport.cc.kind" = "cubic" }}
ledbat   = {{ "flows[1].transport.cc.kind" = "ledbat" }}
"w/o bg" = {{ remove = ["flows[1]"] }}

[axes.load]
low  = {{ "flows[0].stop_s" = 1.5 }}
high = {{ "flows[0].stop_s" = 3.0 }}
"""


def write_sweep(folder: Path, seeds: int = 5, extra: str = "", duration_s: float = 3.0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "base.toml").write_text(BASE.replace("duration_s = 3.0", f"duration_s = {duration_s}"))
    p = folder / "sweep.toml"
    p.write_text(SWEEP.format(seeds=seeds) + extra)
    return p


def table_without_wall(path: Path):
    t = pq.read_table(path)
    return t.drop_columns([c for c in WALL_CLOCK_COLUMNS if c in t.column_names])


# -- expansion -------------------------------------------------------------------------------

def test_expansion_is_the_cartesian_product_with_stable_ids(tmp_path):
    spec = load_sweep(write_sweep(tmp_path, seeds=2, extra='[parameters]\n"cell.aqm.kind" = ["tail_drop", "bode"]\n'))
    runs = spec.runs()
    assert spec.param_names == ["scheme", "load", "cell.aqm.kind"]
    assert len(runs) == 3 * 2 * 2 * 2
    assert len({r.run_id for r in runs}) == len(runs)
    combos = {(r.params["scheme"], r.params["load"], r.params["cell.aqm.kind"], r.seed) for r in runs}
    assert len(combos) == 24
    # seeds innermost, the scenario carries them
    assert [r.seed for r in runs[:4]] == [1, 2, 1, 2]
    assert all(r.scenario["simulation"]["seed"] == r.seed for r in runs)
    # the overrides land where the keys say; "w/o bg" has no background flow
    by = {(r.params["scheme"], r.params["load"], r.params["cell.aqm.kind"], r.seed): r.scenario for r in runs}
    sc = by[("ledbat", "low", "bode", 2)]
    assert sc["flows"][1]["transport"]["cc"]["kind"] == "ledbat" and sc["flows"][0]["stop_s"] == 1.5
    assert sc["cell"]["aqm"]["kind"] == "bode"
    wo = by[("w/o bg", "high", "tail_drop", 1)]
    assert [f["name"] for f in wo["flows"]] == ["long", "short1", "short2", "medium"]
    # ids: a hash of the parameter values and seed, the same on every expansion and
    # independent of the base scenario's contents
    again = load_sweep(tmp_path / "sweep.toml").runs()
    assert [r.run_id for r in again] == [r.run_id for r in runs]
    assert runs[0].run_id == run_id({"scheme": "cubic", "load": "low", "cell.aqm.kind": "tail_drop"}, 1)
    (tmp_path / "base.toml").write_text(BASE.replace("duration_s = 3.0", "duration_s = 4.0"))
    assert [r.run_id for r in load_sweep(tmp_path / "sweep.toml").runs()] == [r.run_id for r in runs]


def test_seed_lists_inline_base_and_table_values():
    spec = load_sweep({"base": {"ues": [{"count": 1}], "flows": [{"ue": 0, "transport": {"kind": "tcp"}}]},
                       "seeds": [7, 3],
                       "parameters": {"flows[0].transport.cc": [{"kind": "cubic"}, {"kind": "bbr"}]}})
    runs = spec.runs()
    assert [r.seed for r in runs] == [7, 3, 7, 3]
    assert runs[2].scenario["flows"][0]["transport"]["cc"] == {"kind": "bbr"}
    assert runs[2].params["flows[0].transport.cc"] == '{"kind":"bbr"}'
    # without seeds the base scenario's seed is used and the seed column is empty
    one = load_sweep({"base": {"ues": [{"count": 1}]}, "parameters": {"cell.bandwidth_mhz": [5, 10]}}).runs()
    assert [r.seed for r in one] == [None, None] and "seed" not in one[0].scenario.get("simulation", {})


BAD = {
    "unknown top-level key": ('base = "base.toml"\nseed = 3\n', ["'seed'", "expected one of", "seeds"]),
    "parameter not a list": ('base = "base.toml"\n[parameters]\n"cell.bandwidth_mhz" = 5\n',
                             ['parameters."cell.bandwidth_mhz"', "5", "expected a non-empty list"]),
    "bad dotted key": ('base = "base.toml"\n[parameters]\n"flows[x].ue" = [1]\n',
                       ["'flows[x].ue'", "not a dotted scenario key"]),
    "index out of range": ('base = "base.toml"\n[parameters]\n"flows[9].transport.cc.kind" = ["reno"]\n',
                           ["flows[9].transport.cc.kind", "5 entries in flows", "index 9"]),
    "bad scenario value": ('base = "base.toml"\n[parameters]\n"cell.aqm.kind" = ["tail_drop", "fancy"]\n',
                           ["cell.aqm.kind = 'fancy'", "cell.aqm", "fancy"]),
    "out-of-range scenario value": ('base = "base.toml"\n[parameters]\n"simulation.duration_s" = [1.0, -2.0]\n',
                                    ["simulation.duration_s = -2.0", "simulation.duration_s"]),
    "bad seeds": ('base = "base.toml"\nseeds = 0\n', ["seeds = 0", "expected a count ≥ 1"]),
    "seed as a parameter": ('base = "base.toml"\nseeds = 2\n[parameters]\n"simulation.seed" = [1, 2]\n',
                            ["simulation.seed", "expected seeds only in `seeds`"]),
    "overlapping keys": ('base = "base.toml"\n[parameters]\n"cell.aqm" = [{kind = "bode"}]\n'
                         '"cell.aqm.kind" = ["codel"]\n', ["'cell.aqm.kind' overlaps key 'cell.aqm'"]),
    "mixed types": ('base = "base.toml"\n[parameters]\n"cell.bandwidth_mhz" = [5, "ten"]\n',
                    ["mix types", "expected values of one type"]),
    "reserved axis name": ('base = "base.toml"\n[axes.seed]\na = { "cell.bandwidth_mhz" = 5 }\n',
                           ["'seed'", "column of the dataset already"]),
    "duplicate column name": ('base = "base.toml"\n[axes."cell.bandwidth_mhz"]\nx = { "cell.rlc_queue_bytes" = 1000 }\n'
                              '[parameters]\n"cell.bandwidth_mhz" = [5, 10]\n',
                              ["'cell.bandwidth_mhz' is used by another axis", "expected distinct names"]),
    "missing base file": ('base = "nope.toml"\n', ["base = 'nope.toml'", "cannot read"]),
    "bad remove": ('base = "base.toml"\n[axes.scheme]\nx = { remove = ["flows[7]"] }\n',
                   ["cannot remove 'flows[7]'", "5 entries in flows"]),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_sweeps_are_rejected_naming_key_value_and_expectation(tmp_path, case):
    text, needles = BAD[case]
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(SweepError) as e:
        spec = load_sweep(tmp_path / "bad.toml")
        validate_runs(spec, spec.runs())
    msg = " ".join(str(e.value).split())
    for n in needles:
        assert n in msg, (n, msg)


@pytest.mark.parametrize("case", ["unknown top-level key", "bad scenario value"])
def test_cli_exits_2_and_writes_nothing_for_a_bad_sweep(run_cli, tmp_path, case):
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "bad.toml").write_text(BAD[case][0])
    out = tmp_path / "out"
    p = run_cli("sweep", tmp_path / "bad.toml", "--out", out)
    assert p.returncode == 2, (p.stdout, p.stderr)
    msg = " ".join(p.stderr.split())
    assert "error:" in msg and all(n in msg for n in BAD[case][1]), msg
    assert not out.exists(), "nothing may be written for a bad sweep"


def test_cli_rejects_bad_flags(run_cli, tmp_path):
    p = run_cli("sweep", write_sweep(tmp_path, seeds=1), "--workers", "0", "--out", tmp_path / "o")
    assert p.returncode == 2 and "--workers" in p.stderr and not (tmp_path / "o").exists()


# -- the 30-run sweep, resume and the dataset ---------------------------------------------------

@pytest.fixture(scope="module")
def sweep30(tmp_path_factory):
    """The 30-run sweep (3 schemes × 2 loads × 5 seeds) on two local worker processes."""
    from conftest import cellshare

    d = tmp_path_factory.mktemp("sweep30")
    # 20 simulated seconds (~40 ms a run): long enough that a worker still importing
    # cellshare cannot find every run already taken by the other
    sweep_file = write_sweep(d, seeds=5, duration_s=20.0)
    t0 = time.perf_counter()
    p = cellshare("sweep", sweep_file, "--out", d / "out", "--workers", "2")
    wall = time.perf_counter() - t0
    assert p.returncode == 0, p.stderr
    return d, sweep_file, d / "out", p, wall


def test_thirty_runs_use_both_cores(sweep30):
    _, _, out, p, wall = sweep30
    assert "30 runs: 30 ran" in p.stdout
    infos = [json.loads((d / "run.json").read_text()) for d in (out / "runs").iterdir()]
    assert len(infos) == 30
    pids = {i["worker_pid"] for i in infos}
    assert len(pids) >= 2, f"all 30 runs ran in one process: {pids}"
    # and at the same time: some runs of different workers overlap
    spans = [(i["started_unix_s"], i["simulated_until_unix_s"], i["worker_pid"]) for i in infos]
    overlapping = sum(1 for a in spans for b in spans if a[2] < b[2] and a[0] < b[1] and b[0] < a[1])
    assert overlapping > 0, "the two workers never simulated at the same time"
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["ran"] == 30 and meta["workers"] == 2 and len(meta["worker_pids"]) >= 2
    print(f"30-run sweep on 2 workers: {wall:.1f} s wall (CLI included), {len(pids)} worker processes")


def test_dataset_has_parameters_as_columns(sweep30):
    _, _, out, _, _ = sweep30
    runs = pq.read_table(out / "runs.parquet")
    assert runs.num_rows == 30
    cols = runs.column_names
    assert cols[:4] == ["run_id", "scheme", "load", "seed"]
    for c in ("prb_utilization", "delivered_mbps", "jain_index", "queue_delay_p50_ms", "queue_delay_p99_ms",
              "foreground_mbps", "background_mbps", "wall_s", "sim_speed"):
        assert c in cols, c
    rows = runs.to_pylist()
    assert {(r["scheme"], r["load"]) for r in rows} == {(s, l) for s in ("cubic", "ledbat", "w/o bg")
                                                        for l in ("low", "high")}
    assert sorted({r["seed"] for r in rows}) == [1, 2, 3, 4, 5]
    # the radio channel differs by seed; without background there is no background goodput
    assert len({r["delivered_mbps"] for r in rows if r["scheme"] == "cubic" and r["load"] == "high"}) > 1
    assert all(r["background_mbps"] == 0 for r in rows if r["scheme"] == "w/o bg")
    assert all(r["background_mbps"] > 0 for r in rows if r["scheme"] != "w/o bg")
    # each row matches its run folder's summary
    for r in rows[:3]:
        s = json.loads((out / "runs" / r["run_id"] / "summary.json").read_text())
        assert r["delivered_mbps"] == s["delivered_mbps"] and r["seed"] == s["seed"]
    flows = pq.read_table(out / "flows.parquet")
    assert flows.num_rows == 20 * 5 + 10 * 4
    assert flows.column_names[:4] == ["run_id", "scheme", "load", "seed"]
    f = flows.to_pylist()
    cats = {(x["name"], x["category"]) for x in f}
    assert cats == {("long", "long"), ("bg", "background"), ("short1", "short"), ("short2", "short"),
                    ("medium", "medium")}
    assert {x["size_bytes"] for x in f if x["name"] == "short1"} == {50000}


def test_resume_runs_only_what_is_missing(sweep30, run_cli, tmp_path):
    d, sweep_file, out, _, _ = sweep30
    before_runs = table_without_wall(out / "runs.parquet")
    before_flows = pq.read_table(out / "flows.parquet")
    ids = sorted(p.name for p in (out / "runs").iterdir())
    import shutil

    removed = ids[:3]
    for rid in removed:
        shutil.rmtree(out / "runs" / rid)
    (out / "runs" / f".{ids[5]}.half-written").mkdir()  # a run killed while writing
    kept = {rid: (out / "runs" / rid / "summary.json").stat().st_mtime_ns for rid in ids[3:]}
    p = run_cli("sweep", sweep_file, "--out", out, "--workers", "2")
    assert p.returncode == 0, p.stderr
    assert "30 runs: 3 ran" in p.stdout and "27 already complete" in p.stdout
    assert sorted(x.name for x in (out / "runs").iterdir()) == ids  # stale temp folder gone
    for rid, m in kept.items():
        assert (out / "runs" / rid / "summary.json").stat().st_mtime_ns == m, f"{rid} was redone"
    assert table_without_wall(out / "runs.parquet").equals(before_runs)
    assert pq.read_table(out / "flows.parquet").equals(before_flows)
    # a second invocation runs nothing
    p = run_cli("sweep", sweep_file, "--out", out, "--workers", "2")
    assert "30 runs: 0 ran" in p.stdout
    # a changed base scenario is not silently mixed with old runs
    base = (d / "base.toml").read_text()
    (d / "base.toml").write_text(base.replace("duration_s = 20.0", "duration_s = 2.0"))
    try:
        p = run_cli("sweep", sweep_file, "--out", out)
        assert p.returncode == 2 and "different scenario" in p.stderr and "--force" in p.stderr
    finally:
        (d / "base.toml").write_text(base)


def test_killed_sweep_resumes(run_cli, tmp_path):
    sweep_file = write_sweep(tmp_path, seeds=4, duration_s=40.0)
    out = tmp_path / "out"
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", "cellshare.cli", "sweep", str(sweep_file), "--out", str(out),
                             "--workers", "2"], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            done = [p for p in (out / "runs").glob("[0-9a-f]*")] if (out / "runs").is_dir() else []
            if len(done) >= 2:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the sweep completed no run within 60 s")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its worker processes
        proc.wait()
    assert not (out / "runs.parquet").exists()
    n_done = len(list((out / "runs").glob("[0-9a-f]*")))
    assert 2 <= n_done < 24
    p = run_cli("sweep", sweep_file, "--out", out, "--workers", "2")
    assert p.returncode == 0, p.stderr
    assert f"24 runs: {24 - n_done} ran" in p.stdout, p.stdout
    assert pq.read_table(out / "runs.parquet").num_rows == 24


# -- Ray ------------------------------------------------------------------------------------------

def test_ray_local_gives_the_same_dataset(sweep30, run_cli, tmp_path):
    pytest.importorskip("ray", reason="the 'ray' extra is not installed")
    d, sweep_file, out, _, _ = sweep30
    ray_out = tmp_path / "ray"
    t0 = time.perf_counter()
    p = run_cli("sweep", sweep_file, "--out", ray_out, "--ray", "local")
    wall = time.perf_counter() - t0
    assert p.returncode == 0, p.stderr
    assert "30 runs: 30 ran" in p.stdout and "Ray (local)" in p.stdout
    assert table_without_wall(ray_out / "runs.parquet").equals(table_without_wall(out / "runs.parquet"))
    assert pq.read_table(ray_out / "flows.parquet").equals(pq.read_table(out / "flows.parquet"))
    for rid in [r.name for r in (out / "runs").iterdir()][:5]:
        for t in ("flows", "flow_series", "queue_delay_cdf"):
            assert (ray_out / "runs" / rid / f"{t}.parquet").read_bytes() == \
                (out / "runs" / rid / f"{t}.parquet").read_bytes()
    print(f"30-run sweep through a local Ray instance: {wall:.1f} s wall (Ray start-up included)")


# -- memory ---------------------------------------------------------------------------------------

def test_parent_memory_stays_flat_over_many_runs(run_cli, tmp_path):
    """The sweep process's peak RSS barely grows from 20 to 200 runs: runs return small dicts
    and the dataset is streamed from the run folders. Each run has 205 flows, so holding
    every run's flows table would add tens of MB."""
    base = BASE.replace("duration_s = 3.0", "duration_s = 0.1").replace("count = 3", "count = 200")
    base += '[[flows]]\nues = "all"\nname = "many"\nbytes = 3000\ntransport = { kind = "tcp" }\n'
    peaks = {}
    for n in (20, 200):
        d = tmp_path / str(n)
        d.mkdir()
        (d / "base.toml").write_text(base)
        (d / "sweep.toml").write_text(f'base = "base.toml"\nseeds = {n}\n')
        p = run_cli("sweep", d / "sweep.toml", "--out", d / "out", "--workers", "2")
        assert p.returncode == 0, p.stderr
        meta = json.loads((d / "out" / "sweep.json").read_text())
        peaks[n] = (meta["parent_peak_rss_mb"], meta["worker_peak_rss_mb"])
        assert pq.read_table(d / "out" / "flows.parquet").num_rows == n * 205
    print(f"peak RSS (parent, worker): 20 runs {peaks[20]} MB, 200 runs {peaks[200]} MB")
    assert peaks[200][0] - peaks[20][0] < 12, peaks
    assert peaks[200][1] - peaks[20][1] < 12, peaks


# -- the Python API -------------------------------------------------------------------------------

def test_python_api_sweep_and_dataframes(tmp_path):
    import cellshare

    pd = pytest.importorskip("pandas")
    spec = {"base": str(tmp_path / "base.toml"), "seeds": 2,
            "parameters": {"flows[1].transport.cc.kind": ["cubic", "ledbat"]}}
    (tmp_path / "base.toml").write_text(BASE)
    res = cellshare.sweep(spec, out=tmp_path / "out", workers=1)
    df = res.to_pandas("runs")
    assert isinstance(df, pd.DataFrame) and len(df) == 4
    assert list(df.columns[:3]) == ["run_id", "flows[1].transport.cc.kind", "seed"]
    flows = res.to_pandas("flows")
    assert len(flows) == 20 and set(flows["category"]) == {"long", "background", "short", "medium"}
    assert res.outcome.ran == 4
    again = cellshare.sweep(spec, out=tmp_path / "out", workers=1)
    assert (again.outcome.ran, again.outcome.skipped) == (0, 4)
    rid = df["run_id"][0]
    before = (res.run_dir(rid) / "summary.json").stat().st_mtime_ns
    forced = cellshare.sweep(spec, out=tmp_path / "out", workers=1, force=True)
    assert (forced.outcome.ran, forced.outcome.skipped) == (4, 0)
    assert (res.run_dir(rid) / "summary.json").stat().st_mtime_ns != before
    assert forced.to_pandas("runs").drop(columns=list(WALL_CLOCK_COLUMNS)).equals(
        df.drop(columns=list(WALL_CLOCK_COLUMNS)))
    r = cellshare.run(str(tmp_path / "base.toml"))
    fl = r.to_pandas("flows")
    assert list(fl["name"]) == ["long", "bg", "short1", "short2", "medium"]
    assert len(r.to_pandas("flow_series")) == 5 * 3
    with pytest.raises(ValueError, match="expected one of"):
        r.table("nope")
    pl = pytest.importorskip("polars")
    assert isinstance(res.to_polars("runs"), pl.DataFrame)


def test_a_sweep_whose_flows_are_all_unlimited_types_their_sizes_for_the_report(tmp_path):
    """Every flow unlimited: size_bytes is null in every run, and still an integer column the
    report reads (it refuses a float one)."""
    import cellshare
    from cellshare import report

    base = BASE.replace("duration_s = 3.0", "duration_s = 0.1")
    base = base[:base.index("[[flows]]\nue = 2")]  # the long and the background flow only
    (tmp_path / "base.toml").write_text(base)
    res = cellshare.sweep({"base": str(tmp_path / "base.toml"), "seeds": 2}, out=tmp_path / "out", workers=1)
    flows = pq.read_table(tmp_path / "out" / "flows.parquet")
    assert flows.schema.field("size_bytes").type == pa.int64() and flows.column("size_bytes").null_count == 4
    assert res.outcome.ran == 2
    report._load_sweep(tmp_path / "out")  # raises on a column of the wrong type


# -- categories -----------------------------------------------------------------------------------

def test_categories_are_kept_or_derived():
    import pyarrow as pa

    assert category_of("background", 10) == "background"
    assert category_of("foreground", SHORT_MAX_BYTES) == "short"
    assert category_of("foreground", SHORT_MAX_BYTES + 1) == "medium"
    assert category_of("foreground", MEDIUM_MAX_BYTES) == "medium"
    assert category_of("foreground", MEDIUM_MAX_BYTES + 1) == "long"
    assert category_of("foreground", None) == "long"
    t = pa.table({"class": ["foreground", "foreground"], "completed": [True, False], "bytes_delivered": [10, 5]})
    derived = with_categories(t, None)
    assert derived.column("category").to_pylist() == ["short", "long"]
    own = with_categories(t.append_column("category", pa.array(["long", "medium"])), None)
    assert own.column("category").to_pylist() == ["long", "medium"], "the simulator's categories are kept"
    custom = with_categories(t.append_column("category", pa.array(["custom", "background"])), None)
    assert custom.column("category").to_pylist() == ["short", "background"], "[[flows]] entries grouped by size"
    with pytest.raises(SweepError):
        load_sweep({"base": {}, "parameters": {"a..b": [1]}})


def test_shipped_sweep_expands_and_validates():
    spec = load_sweep(REPO / "scenarios" / "sweeps" / "background-schemes.toml")
    runs = spec.runs()
    validate_runs(spec, runs)
    assert spec.param_names == ["scheme", "load"] and len(runs) == 7 * 3 * 3
    wo = next(r for r in runs if r.params["scheme"] == "w/o bg")
    assert all(f.get("class") != "background" for f in wo.scenario["flows"])
    ideal = next(r for r in runs if r.params["scheme"] == "ideal priority").scenario
    assert ideal["cell"]["scheduler"]["kind"] == "priority" and ideal["flows"][0]["class"] == "background"


def test_shipped_sweep_load_axis_changes_the_load():
    """The load axis sets the foreground workload's load, so the cell without a background
    carries clearly more at 80 % than at 30 % (a saturating foreground flow would make the
    axis change nothing)."""
    import cellshare

    spec = load_sweep(REPO / "scenarios" / "sweeps" / "background-schemes.toml")
    util = {}
    for r in spec.runs():
        if r.params["scheme"] == "w/o bg" and r.seed == 1:
            sc = r.scenario
            sc["simulation"]["duration_s"] = 60.0
            util[r.params["load"]] = cellshare.run(sc).summary["prb_utilization"]
    assert set(util) == {"30%", "60%", "80%"}
    assert util["30%"] < 0.5 and util["80%"] > 0.7 and util["30%"] < util["60%"] < util["80%"], util
