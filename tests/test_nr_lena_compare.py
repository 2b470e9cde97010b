"""cellshare's NR cell against 5G-LENA NR-v4.0 (`python tools/nr_lena.py compare`): the
comparison is re-run here (twenty short runs, a few seconds) against the stored 5G-LENA run
(tools/data/nr-lena-distance.json) and must equal the stored artefact
(tools/data/nr-lena-compare.json, which docs/nr.md renders).

The tolerances, from the issue and the brief:
- throughput within ±15 % at every distance where 5G-LENA carries traffic;
- SINR within 0.5 dB;
- HARQ retransmissions per block within 0.1 of 5G-LENA's: both sides adapt the MCS to a 10 %
  first-transmission BLER target on a channel without fading, so each side's rate is anywhere
  from 0 (the SINR well above the chosen MCS's threshold) to about 0.1 (just above it); a
  difference beyond the width of that range would be a different HARQ regime, not a threshold
  landing a little differently.

The cell edge (the "cliff"): beyond MCS 0's threshold (5G-LENA: 350 m and 400 m) 5G-LENA keeps
sending MCS 0 and loses every block after its three retransmissions, because its
incremental-redundancy model averages the transmissions' effective SINR and keeps MCS 0's code
rate, so no retransmission helps. cellshare's retransmissions of MCS 0 (a rate-1/5 LDPC code
repeated, TS 38.212) add their energy: at 350 m a block decodes on its second transmission; at
400 m the UE reports CQI 0 and gets nothing. The throughput tolerance is therefore not applied
where 5G-LENA carries nothing; the behaviour there is asserted as it is.
"""

import importlib.util
import json
import subprocess
import sys

import pytest
from conftest import REPO

TOOL = REPO / "tools" / "nr_lena.py"
STORED = REPO / "tools" / "data" / "nr-lena-compare.json"


def _tool():
    spec = importlib.util.spec_from_file_location("nr_lena", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fresh():
    return _tool().compare()


def test_the_stored_comparison_is_what_the_tool_measures(fresh):
    # Simulated time and draws are deterministic: the same scenario gives the same numbers.
    assert json.loads(STORED.read_text()) == json.loads(json.dumps(fresh))


def test_every_stored_distance_is_compared(fresh):
    ref = json.loads((REPO / "tools" / "data" / "nr-lena-distance.json").read_text())
    assert [p["distance_m"] for p in fresh["points"]] == [p["distance_m"] for p in ref["points"]]


def test_throughput_within_15_percent_where_5g_lena_carries_traffic(fresh):
    carried = [p for p in fresh["points"] if p["lena"]["throughput_mbps"] > 0]
    assert len(carried) >= 8
    for p in carried:
        assert 0.85 <= p["throughput_ratio"] <= 1.15, p


def test_sinr_within_half_a_db(fresh):
    for p in fresh["points"]:
        assert abs(p["ours"]["sinr_db"] - p["lena"]["sinr_db"]) <= 0.5, p


def test_harq_retransmissions_per_block_agree(fresh):
    for p in fresh["points"]:
        if p["lena"]["throughput_mbps"] > 0:
            assert p["ours"]["retx_per_tb"] is not None
            assert abs(p["ours"]["retx_per_tb"] - p["lena"]["retx_per_tb"]) <= 0.1, p
            # and the MCS is 5G-LENA's, give or take one (the same thresholds, CQI-quantized)
            assert abs(p["ours"]["mcs"] - p["lena"]["mcs"]) <= 1, p


def test_the_cell_edge_is_the_documented_difference(fresh):
    edge = [p for p in fresh["points"] if p["lena"]["throughput_mbps"] == 0]
    assert edge, "the stored run reaches the cliff"
    for p in edge:
        # 5G-LENA: every block sent four times and lost.
        assert p["lena"]["retx_per_tb"] == 3 and p["lena"]["lost_per_tb"] == 1, p
        o = p["ours"]
        # cellshare: nothing scheduled (CQI 0), or MCS 0 blocks that need a retransmission.
        assert o["throughput_mbps"] == 0 or (o["mcs"] == 0 and o["retx_per_tb"] >= 0.5), p
    # The first distance past 5G-LENA's cliff still carries traffic here, at about half of
    # MCS 0's rate (every block sent twice).
    first = edge[0]
    mcs0 = max(p["ours"]["throughput_mbps"] for p in fresh["points"] if p["ours"]["mcs"] == 0)
    assert 0.4 * mcs0 <= first["ours"]["throughput_mbps"] <= 0.6 * mcs0, first


def test_the_tb_sizing_difference_is_the_resource_elements(fresh):
    # cellshare's default PDSCH has 144 data REs per PRB, 5G-LENA's TBS rule 11 x 12 = 132: the
    # throughput ratio is 144/132 = 1.091 up to the TBS procedure's quantization.
    for p in fresh["points"]:
        if p["standard_over_matched"] is not None:
            assert abs(p["standard_over_matched"] - 144 / 132) <= 0.015, p


@pytest.mark.parametrize("args, key", [
    (["--distances", "123"], "--distances"),
    (["--duration", "1"], "--duration"),
    (["--distances", "-5"], "--distances"),
])
def test_bad_input_is_one_line_naming_the_option(args, key, tmp_path):
    proc = subprocess.run([sys.executable, str(TOOL), "compare", *args, "--out", str(tmp_path / "x.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"nr_lena: {key} "), proc.stderr
    assert not (tmp_path / "x.json").exists()
