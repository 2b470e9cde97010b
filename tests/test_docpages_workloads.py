"""docs/workloads.md's renderers (cellshare.docpages.workloads): the calibration table, the
memory peaks and the sensitivity table follow their artefacts, and a bad argument is one
DocgenError naming what was expected."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cellshare import docgen
from cellshare.docpages import workloads as wkl

REPO = Path(__file__).resolve().parents[1]
PAGE = "docs/workloads.md"


def _copy(tmp_path: Path, *rels: str) -> docgen._Artefacts:
    for rel in rels:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, tmp_path / rel)
    return docgen._Artefacts(tmp_path)


def _render(a: docgen._Artefacts, spec: str) -> str:
    name, *args = spec.split()
    return docgen.RENDERERS[name][0](a, args)


def test_the_page_renders_its_numbers_through_the_wkl_renderers():
    text = (REPO / PAGE).read_text()
    for marker in ("<!-- generated: wkl-calibration -->", "<!-- generated: wkl-calib-short -->",
                   "<!-- generated: wkl-memory runner_workload -->", "<!-- generated: wkl-gap-mean medium -->",
                   "<!-- generated: wkl-sens-table legilimens-at-scale fair-share-hurts"):
        assert marker in text, marker
    assert PAGE not in [p.relative_to(REPO).as_posix() for p in docgen.stale(REPO)]


def test_the_calibration_table_follows_the_stored_runs(tmp_path):
    a = _copy(tmp_path, wkl.WORKLOAD)
    d = json.loads((tmp_path / wkl.WORKLOAD).read_text())
    table = _render(a, "wkl-calibration")
    row60 = next(line for line in table.splitlines() if line.startswith("| 60 % |"))
    fifteen = [r for r in d["calibration"]["runs"]["900"] if r["target"] == 0.6]
    assert " / ".join(f"{r['achieved'] * 100:.1f}" for r in fifteen) + " %" in row60
    worst = max(abs(r["error_pp"]) for r in d["calibration"]["runs"]["900"])
    assert _render(a, "wkl-calib-error 900") == f"{worst:.1f} points"

    # A changed run changes the table, the largest error and the count above the target.
    run = d["calibration"]["runs"]["900"][3]
    run.update(achieved=0.4321, error_pp=(0.4321 - run["target"]) * 100)
    (tmp_path / wkl.WORKLOAD).write_text(json.dumps(d))
    a = docgen._Artefacts(tmp_path)
    assert "43.2" in next(line for line in _render(a, "wkl-calibration").splitlines() if line.startswith("| 60 % |"))
    assert _render(a, "wkl-calib-error 900") == "16.8 points"
    above = sum(r["error_pp"] > 0 for r in d["calibration"]["runs"]["900"])
    assert _render(a, "wkl-calib-above 900") == f"{above} of the 9"


def test_the_short_run_example_and_the_spread_follow_the_artefact(tmp_path):
    a = _copy(tmp_path, wkl.WORKLOAD)
    d = json.loads((tmp_path / wkl.WORKLOAD).read_text())
    s = d["calibration"]["short"]
    text = _render(a, "wkl-calib-short")
    assert f"--duration {s['duration_s']:g}`" in text
    assert f"±{s['load_spread'] * 100:.0f} %" in text and f"{s['duration_for_10pc_s']:.0f} s or more" in text
    d["calibration"]["short"]["duration_for_10pc_s"] = 1234.4
    (tmp_path / wkl.WORKLOAD).write_text(json.dumps(d))
    assert "1234 s or more" in _render(docgen._Artefacts(tmp_path), "wkl-calib-short")
    assert _render(a, "wkl-calib-spread 900 0.6").startswith("±")


def test_the_stored_spread_is_what_calibrate_computes():
    # The artefact's spread and run length for ±10 % are calibrate's formula on the stored rate.
    from cellshare.calibrate import duration_for_spread, load_spread

    d = json.loads((REPO / wkl.WORKLOAD).read_text())
    arrivals = {"kind": "poisson", "preset": "legilimens"}
    for r in d["calibration"]["runs"]["900"] + [d["calibration"]["short"]]:
        rate = r["offered_mbps"] * 1e6 / 8
        assert math.isclose(r["load_spread"], load_spread(arrivals, rate, r["duration_s"]), rel_tol=1e-9)
        assert math.isclose(r["duration_for_10pc_s"], duration_for_spread(arrivals, rate), rel_tol=1e-9)


def test_the_memory_peaks_follow_the_artefact(tmp_path):
    a = _copy(tmp_path, wkl.WORKLOAD)
    d = json.loads((tmp_path / wkl.WORKLOAD).read_text())
    assert _render(a, "wkl-memory runner_flows") == f"{d['memory']['runner_flows']['peak_mib']:.0f} MiB"
    assert f"{d['memory']['workload_flows']:,} workload flows" in _render(a, "wkl-memory-run")
    d["memory"]["runner_workload"]["peak_mib"] = 77.4
    (tmp_path / wkl.WORKLOAD).write_text(json.dumps(d))
    assert _render(docgen._Artefacts(tmp_path), "wkl-memory runner_workload") == "77 MiB"


def test_the_gap_means_are_the_capped_exponentials_of_the_schema_defaults():
    assert _render(docgen._Artefacts(REPO), "wkl-gap-mean medium") == "3.91 s"
    assert _render(docgen._Artefacts(REPO), "wkl-gap-mean long") == "62.9 s"
    assert math.isclose(wkl.capped_mean(4.0, 15.0), 4.0 * (1 - math.exp(-15.0 / 4.0)))
    # A cap far above the mean leaves the mean; a cap far below it gives about the cap.
    assert math.isclose(wkl.capped_mean(2.0, 1e6), 2.0)
    assert math.isclose(wkl.capped_mean(1e6, 1.0), 1.0, rel_tol=1e-5)


def test_the_sensitivity_table_and_defaults_follow_the_scoreboard(tmp_path):
    a = _copy(tmp_path, docgen.SCOREBOARD)
    spec = "wkl-sens-table legilimens-at-scale fair-share-hurts=Beside fg-within-12-of-wobg=Shortfall"
    table = _render(a, spec)
    assert "`background_ues` = 10" in table and "| Shortfall |" in table and "| **Beside:** |" in table
    board = json.loads((tmp_path / docgen.SCOREBOARD).read_text())
    rep = next(e for e in board["reproductions"] if e["name"] == "legilimens-at-scale")
    row = next(r for r in rep["sensitivity"] if r["assumption"] == "max_backoff_exp" and r["claim"] == "fair-share-hurts")
    row["ours"]["Legilimens"] = 12.345
    row["ours_default"]["Legilimens"] = 0.0456
    (tmp_path / docgen.SCOREBOARD).write_text(json.dumps(board))
    a = docgen._Artefacts(tmp_path)
    line = next(x for x in _render(a, spec).splitlines() if x.startswith("| Legilimens |"))
    assert "| 12.3 |" in line
    assert _render(a, "wkl-sens-default legilimens-at-scale max_backoff_exp=10 fair-share-hurts[Legilimens]") == "0.0456"


def test_detail_and_shortfall_read_the_scoreboard():
    a = docgen._Artefacts(REPO)
    c = a.result("thesis-randomized", "fg-ratio")
    assert _render(a, "wkl-detail thesis-randomized fg-ratio") == c["detail"]
    x = a.result("legilimens-at-scale", "fg-ideal-priority")["ours"]
    y = a.result("legilimens-at-scale", "fg-wo-bg")["ours"]
    assert _render(a, "wkl-shortfall legilimens-at-scale fg-ideal-priority fg-wo-bg") == f"{(1 - x / y) * 100:.0f} %"


@pytest.mark.parametrize("spec, message", [
    ("wkl-calib-error", "expected `wkl-calib-error DURATION`"),
    ("wkl-calib-error 60", "has no calibration over '60' s"),
    ("wkl-calib-spread 900 lots", "load 'lots': expected a number"),
    ("wkl-calib-spread 900 0.5", "has no run at load 0.5 over 900 s"),
    ("wkl-memory peak", "run 'peak': expected one of runner_workload, runner_flows, python_calibrate"),
    ("wkl-gap-mean short", "class 'short': expected medium or long"),
    ("wkl-sens-table legilimens-at-scale nope", "has no sensitivity rows for claim 'nope'"),
    ("wkl-sens-default legilimens-at-scale max_backoff_exp fair-share-hurts", "expected `wkl-sens-default REP ASSUMPTION=VALUE CLAIM[KEY]`"),
    ("wkl-sens-default legilimens-at-scale max_backoff_exp=10 fair-share-hurts", "is a value per key"),
    ("wkl-detail legilimens-at-scale fg-cubic", "has no detail"),
    ("wkl-shortfall legilimens-at-scale fair-share-hurts fg-wo-bg", "must be single nonzero values"),
])
def test_a_bad_argument_is_one_docgen_error(spec, message):
    text = f"x <!-- generated: {spec} --><!-- end generated -->"
    if spec.startswith("wkl-sens-table"):
        text = f"<!-- generated: {spec} -->\n<!-- end generated -->"
    with pytest.raises(docgen.DocgenError) as e:
        docgen.render_page(text, docgen._Artefacts(REPO), PAGE)
    assert message in str(e.value) and str(e.value).startswith(f"{PAGE}: ") and "\n" not in str(e.value)


def test_the_tool_refuses_a_missing_out():
    p = subprocess.run([sys.executable, str(REPO / "tools" / "workload_measure.py")], capture_output=True, text=True)
    assert p.returncode == 2 and "--out" in p.stderr
