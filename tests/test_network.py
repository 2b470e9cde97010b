"""Several cells, moving UEs and handover from the Python side (docs/mobility.md):
the handovers table and positions in the per-UE trace, bad network keys and position traces
(exit 2 naming the key, nothing written), and the emulator-independent network benchmark
scenario. The model itself is tested in crates/ran and crates/sim/src/network_tests.rs."""

import json

import pyarrow.parquet as pq
import pytest

from cellshare.api import run

DRIVE = """
name = "drive"
[simulation]
duration_s = {duration}
seed = 3
[cell]
bandwidth_mhz = 5
scheduler = {{ kind = "pf" }}
[network]
layout = {{ kind = "positions", sites_m = [[0.0, 0.0], [1000.0, 0.0], [2000.0, 0.0]] }}
{extra}
[[ues]]
count = 1
channel = {{ kind = "radio", fading = "none", shadowing_std_db = 0.0 }}
mobility = {mobility}
[[flows]]
ue = 0
transport = {{ kind = "tcp", cc = {{ kind = "cubic" }} }}
"""

PATH = '{ kind = "waypoints", points_m = [[0.0, 50.0], [2000.0, 50.0]], speeds_kmh = [100.0] }'


def _drive(tmp_path, mobility=PATH, extra="", duration=80.0):
    f = tmp_path / "drive.toml"
    f.write_text(DRIVE.format(duration=duration, mobility=mobility, extra=extra))
    return f


def test_a_drive_writes_its_handovers_and_positions(run_cli, tmp_path):
    f = _drive(tmp_path)
    p = run_cli("run", f, "--out", tmp_path / "out", "--json")
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    ho = pq.read_table(tmp_path / "out" / "handovers.parquet").to_pylist()
    # 2 km at 100 km/h is 72 s: two boundaries (at 500 m and 1500 m), one handover each,
    # after them (hysteresis 3 dB and time to trigger 256 ms at ns-3's defaults).
    assert [(h["source"], h["target"]) for h in ho] == [(0, 1), (1, 2)]
    assert summary["handovers"] == 2
    for h, boundary_s in zip(ho, (18.0, 54.0)):
        assert boundary_s < h["t_s"] < boundary_s + 5.0, h
        assert h["rsrp_target_dbm"] > h["rsrp_source_dbm"] + 3.0, h
    tr = pq.read_table(tmp_path / "out" / "ue_trace.parquet").to_pydict()
    assert {"x_m", "y_m", "cell", "rsrp_dbm"} <= set(tr)
    # Positions follow the path at 100 km/h (27.8 m/s) and stop at its end.
    at = {round(t, 1): x for t, x in zip(tr["t_s"], tr["x_m"])}
    assert abs(at[36.0] - 1000.0) < 30.0 and at[79.0] == pytest.approx(2000.0)
    assert set(tr["cell"]) == {0, 1, 2}
    assert all(y == 50.0 for y in tr["y_m"])


def test_a_single_cell_scenario_has_no_handovers_table(tmp_path):
    r = run({"simulation": {"duration_s": 1.0}, "ues": [{"count": 1}],
             "flows": [{"ue": 0, "transport": {"kind": "tcp"}}]})
    assert r.handovers().num_rows == 0 and "x_m" not in r.ue_trace().column_names


@pytest.mark.parametrize("label, mobility, extra, key", [
    ("negative speed", '{ kind = "waypoints", points_m = [[0.0, 0.0], [10.0, 0.0]], speeds_kmh = [-5.0] }', "",
     "ues[0].mobility.speeds_kmh"),
    ("empty path", '{ kind = "waypoints", points_m = [], speeds_kmh = [5.0] }', "", "ues[0].mobility.points_m"),
    ("outside the area", '{ kind = "static", position_m = [5000.0, 0.0] }', "", "ues[0].mobility.position_m"),
    ("random waypoint speeds", '{ kind = "random_waypoint", speed_kmh = [10.0, 5.0] }', "",
     "ues[0].mobility.speed_kmh"),
    ("hysteresis", PATH, "handover = { hysteresis_db = -1.0 }", "network.handover.hysteresis_db"),
    ("isd", '{ kind = "static" }', "", "network.layout.isd_m"),
])
def test_bad_network_keys_exit_2_naming_the_key_and_write_nothing(run_cli, tmp_path, label, mobility, extra, key):
    f = _drive(tmp_path, mobility, extra)
    if label == "isd":
        f.write_text(f.read_text().replace('layout = { kind = "positions", sites_m = [[0.0, 0.0], [1000.0, 0.0], '
                                           '[2000.0, 0.0]] }', 'layout = { kind = "hexagonal", isd_m = 0.0 }'))
    p = run_cli("run", f, "--out", tmp_path / "out")
    assert p.returncode == 2, (label, p.stdout, p.stderr)
    assert key in p.stderr, (label, p.stderr)
    assert not (tmp_path / "out").exists()


def test_position_traces_are_read_and_bad_ones_named(run_cli, tmp_path):
    (tmp_path / "walk.txt").write_text("# t x y\n0 0 50\n10, 300, 50\n20\t300\t60\n")
    f = _drive(tmp_path, '{ kind = "trace", file = "walk.txt" }', duration=20.0)
    p = run_cli("run", f, "--out", tmp_path / "out")
    assert p.returncode == 0, p.stderr
    tr = pq.read_table(tmp_path / "out" / "ue_trace.parquet").to_pydict()
    at = {round(t, 1): (x, y) for t, x, y in zip(tr["t_s"], tr["x_m"], tr["y_m"])}
    # Positions are updated every 100 ms (30 m/s here: at most 3 m behind).
    assert at[5.0] == pytest.approx((150.0, 50.0), abs=3.01) and at[19.9] == pytest.approx((300.0, 59.9), abs=0.11)
    (tmp_path / "walk.txt").write_text("0 0 50\n10 300 50\n5 100 50\n")
    p = run_cli("run", f, "--out", tmp_path / "bad")
    assert p.returncode == 2 and "line 3" in p.stderr and "mobility" in p.stderr, p.stderr
    assert not (tmp_path / "bad").exists()
    (tmp_path / "walk.txt").write_text("0 0 abc\n")
    p = run_cli("run", f, "--out", tmp_path / "bad")
    assert p.returncode == 2 and "line 1" in p.stderr, p.stderr


def test_the_network_benchmark_scenario_runs(tmp_path):
    from importlib import resources

    text = resources.files("cellshare").joinpath("data/bench-network.toml").read_text()
    text = text.replace("duration_s = 60.0", "duration_s = 0.5")
    from cellshare.api import run_text

    r = run_text(text, str(tmp_path))
    assert len(r.raw["cells"]) == 7 and len(r.raw["ues"]) == 210
    assert r.summary["delivered_mbps"] > 0
