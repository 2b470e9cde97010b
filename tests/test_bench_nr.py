"""The NR benchmark artefact (`python -m cellshare.bench --nr --out tools/data/bench-nr.json`): NR's
cost per delivered packet stays within the issue's bound of LTE's, memory stays flat in simulated
time, and the pages show what the artefact holds (docgen --check covers the rendering)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cellshare import bench, docgen

REPO = Path(__file__).resolve().parents[1]


def _artefact() -> dict:
    return json.loads((REPO / docgen.BENCH_NR).read_text())


def test_nr_cost_per_packet_is_within_the_bound_of_lte():
    b = _artefact()
    assert b["bound"] == bench.NR_COST_BOUND == 1.25
    for key in ("ratio_cpu", "ratio_wall", "ratio_instructions"):
        assert 0 < b[key] <= b["bound"], (key, b[key])
    # The ratios are those of the stored costs, and the medians those of the stored samples.
    assert abs(b["ratio_cpu"] - b["nr"]["cpu_us_per_packet"] / b["lte"]["cpu_us_per_packet"]) < 1e-12
    assert abs(b["ratio_wall"] - b["nr"]["wall_us_per_packet"] / b["lte"]["wall_us_per_packet"]) < 1e-12
    assert abs(b["ratio_instructions"] - b["nr"]["instructions_per_packet"] / b["lte"]["instructions_per_packet"]) < 1e-12
    for rat in ("nr", "lte"):
        r = b[rat]
        assert len(r["cpu_samples"]) == len(r["wall_samples"]) == b["repeat"]
        assert r["cpu_us_per_packet"] == bench._median(r["cpu_samples"])
        assert r["wall_us_per_packet"] == bench._median(r["wall_samples"])
        assert abs(r["instructions_per_packet"] * r["packets"] - r["instructions"]) < 1
    # NR carries several times LTE's packets in the same simulated time.
    assert b["nr"]["packets"] > 3 * b["lte"]["packets"]


def test_nr_memory_stays_flat_in_simulated_time():
    b = _artefact()
    short, long_ = (f"{d:g}" for d in bench.RSS_DURATIONS)
    assert float(long_) >= 4 * float(short)
    assert set(b["nr"]["peak_rss_mb"]) == set(b["lte"]["peak_rss_mb"]) == {short, long_}
    for cell in ("nr", "lte"):
        rss = b[cell]["peak_rss_mb"]
        # Four times the simulated time, once the queues have filled: peak RSS grows by under 10 %.
        assert rss[long_] < 1.1 * rss[short], (cell, rss)
        # ... and the packets in flight, which the RLC queues' limits bound, have stopped growing.
        pk = b[cell]["peak_packets"]
        assert pk[long_] < 1.1 * pk[short], (cell, pk)


def test_the_artefact_states_its_machine_and_command():
    b = _artefact()
    assert b["generated_by"].startswith("python -m cellshare.bench --nr --out")
    assert {"cpu", "cores", "load_1min_before", "load_1min_after"} <= set(b["machine"])


def test_the_pages_show_the_nr_benchmark_through_markers():
    for rel in ("docs/nr.md", "docs/performance.md"):
        assert "<!-- generated: bench-nr -->" in (REPO / rel).read_text(), rel
    text = docgen.r_bench_nr(docgen._Artefacts(REPO), [])
    b = _artefact()
    assert f"**{b['ratio_cpu']:.2f}**" in text and f"{b['nr']['instructions_per_packet']:,.0f}" in text


def test_nr_artefact_without_its_binary_is_one_clear_error(tmp_path):
    p = subprocess.run([sys.executable, "-m", "cellshare.bench", "--nr", "--out", str(tmp_path / "x.json"),
                        "--binary", str(tmp_path / "absent")], capture_output=True, text=True, cwd=REPO)
    assert p.returncode == 2
    assert "--binary" in p.stderr and "absent" in p.stderr and "run_scenario" in p.stderr
    assert not (tmp_path / "x.json").exists()
