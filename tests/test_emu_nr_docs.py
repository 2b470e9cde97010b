"""The renderers of the emulator's NR measurement (tools/data/emu-nr.json): what they read and
what they say when a numerology did not keep real time (no root needed)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cellshare import docgen

REPO = Path(__file__).resolve().parent.parent


def _run(label, mu, p99, budget, kept, rep=1):
    return {"label": label, "run": rep, "rat": "nr" if mu is not None else "lte", "numerology": mu, "bandwidth_mhz": 40,
            "slot_ms": budget, "load_1min_before": 2.5, "duration_s": 10.0, "slots": 20000,
            "tti_lateness_ms": {"count": 20000, "mean": 0.03, "p50": 0.02, "p99": p99, "max": 4.0},
            "budget_ms": budget, "kept_real_time": kept, "host_steal_percent": 0.1, "delivered_mbps": 99.0,
            "flow_mbps": [33.0, 33.0, 33.0], "idle_rtt_median_ms": [25.0], "base_rtt_ms": 24.0}


@pytest.fixture
def artefacts(tmp_path):
    (tmp_path / "tools" / "data").mkdir(parents=True)
    doc = {"generated_by": "python tools/emu_nr_measure.py --out FILE --duration 10 --repeat 2",
           "scenario": "scenarios/emu-nr.toml",
           "machine": {"cpu": "X", "cores": 2, "system": "Linux 6", "python": "3.11", "load_1min_before": 2.0},
           "runs": [_run("LTE", None, 0.1, 1.0, True), _run("NR μ=1", 1, 0.1, 0.5, True),
                    _run("NR μ=3", 3, 0.2, 0.125, False), _run("LTE", None, 0.1, 1.0, True, 2),
                    _run("NR μ=1", 1, 0.3, 0.5, True, 2), _run("NR μ=3", 3, 0.1, 0.125, True, 2)],
           "crosscheck": None}
    (tmp_path / docgen.EMU_NR).write_text(json.dumps(doc))
    return docgen._Artefacts(tmp_path)


def test_the_held_numerologies_and_the_missed_ones_are_named(artefacts):
    assert docgen.r_emu_nr_held(artefacts, []) == "μ = 1 in every run; μ = 3 in 1 of 2 runs"


def test_the_table_spans_the_runs_of_each_cell(artefacts):
    table = docgen.r_emu_nr(artefacts, []).splitlines()
    assert len(table) == 2 + 3  # header, rule, LTE, μ = 1, μ = 3 in the file's order
    assert table[3].startswith("| NR μ=1 | 0.5 | 2 of 2 (p99 ≤ 0.5 ms) |") and "| 0.100–0.300 |" in table[3]
    assert table[4].startswith("| NR μ=3 | 0.125 | 1 of 2 (p99 ≤ 0.125 ms) |")
    # The idle RTT's median over the base: 25.0 − 24.0.
    assert "| 1.00 |" in table[2]


def test_a_file_without_a_crosscheck_is_an_error_naming_it(artefacts):
    with pytest.raises(docgen.DocgenError, match="no crosscheck"):
        docgen.r_emu_nr_crosscheck(artefacts, [])


def test_the_committed_measurement_renders_and_names_its_command():
    a = docgen._Artefacts(REPO)
    d = json.loads((REPO / docgen.EMU_NR).read_text())
    assert {r["label"] for r in d["runs"]} == {"LTE", "NR μ=0", "NR μ=1", "NR μ=2", "NR μ=3"}
    assert "tools/emu_nr_measure.py" in docgen.r_emu_nr_machine(a, [])
    assert docgen.r_emu_nr_crosscheck(a, []).count("\n| flow") == 3
