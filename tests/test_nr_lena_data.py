"""5G-LENA's reference data for cellshare's NR cell (tools/data/nr-lena-*.json, made by
tools/nr_lena.py from 5G-LENA NR-v4.0 built against the `ns3` wheel): well-formed, with its
provenance, and physically sensible: throughput falls with distance to about nothing, the
MCS with it, and the error model's BLER falls with SINR and needs more SINR at higher MCS.
Running 5G-LENA takes a build of ~180 files and minutes of simulation, so only the stored
data and the tool's refusal of a missing source are checked here."""

import json
import subprocess
import sys

import pytest
from conftest import REPO

DATA = REPO / "tools" / "data"
TOOL = REPO / "tools" / "nr_lena.py"
RELEASE_COMMIT = "2c0ed9740e677224bdfff4eab5aea5adcd8f6052"


@pytest.fixture(scope="module")
def distance():
    return json.loads((DATA / "nr-lena-distance.json").read_text())


def _check_provenance(prov):
    assert prov["release"] == "NR-v4.0" and prov["commit"] == prov["release_commit"] == RELEASE_COMMIT
    assert prov["ns3"].startswith("ns-3.44")
    assert prov["command"].startswith("python tools/nr_lena.py ")
    assert prov["build"]["sources_compiled"] > 150 and prov["build"]["wall_s"] > 0
    assert prov["run_wall_s"] > 0


def test_distance_data_has_its_provenance_and_the_reference_cell(distance):
    _check_provenance(distance["provenance"])
    p = distance["parameters"]
    assert (p["numerology"], p["bandwidth_hz"], p["prbs"], p["layers"]) == (1, 100e6, 273, 1)
    assert p["error_model"] == "ns3::NrEesmIrT1" and p["fast_fading"] is False
    assert p["window_s"][0] < p["window_s"][1] == p["sim_time_s"]


def test_throughput_falls_with_distance_to_about_nothing(distance):
    pts = distance["points"]
    assert len(pts) >= 8
    d = [x["distance_m"] for x in pts]
    assert d == sorted(d) and len(set(d)) == len(d)
    tput = [x["throughput_mbps"] for x in pts]
    # Saturated and without fading: never more than a little noise above the nearer point.
    for near, far in zip(tput, tput[1:]):
        assert far <= near * 1.02 + 1.0, tput
    assert tput[0] > 100 and tput[-1] < 0.05 * tput[0], tput
    mcs = [x["mean_mcs"] for x in pts if x["new_tbs"] > 0]
    assert mcs[0] > 20 and mcs == sorted(mcs, reverse=True), mcs
    for x in pts:
        assert x["retx_per_tb"] is None or 0 <= x["retx_per_tb"] <= 4, x
        # the UDP goodput never exceeds what the PHY decoded
        assert x["throughput_mbps"] <= x["phy_throughput_mbps"] * 1.01 + 0.1, x


def test_bler_curves_fall_with_sinr_and_rise_with_mcs():
    path = DATA / "nr-lena-bler.json"
    if not path.exists():
        pytest.skip("tools/data/nr-lena-bler.json not generated")
    data = json.loads(path.read_text())
    _check_provenance(data["provenance"])
    curves = data["curves"]
    assert [c["mcs"] for c in curves] == list(range(29))  # MCS table 1: 0..28
    for c in curves:
        assert len(c["sinr_db"]) == len(c["bler"]) > 10
        assert all(b2 <= b1 + 1e-9 for b1, b2 in zip(c["bler"], c["bler"][1:])), c["mcs"]
        assert c["bler"][0] > 0.9 and c["bler"][-1] < 0.01, c["mcs"]
    at = [data["sinr_db_at_bler_0.1"][str(m)] for m in range(29)]
    assert all(b > a for a, b in zip(at, at[1:])), at


def test_tool_refuses_a_missing_source_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, str(TOOL), "--nr-src", str(tmp_path / "absent"), "build"],
                          capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nr_lena: "), proc.stderr
