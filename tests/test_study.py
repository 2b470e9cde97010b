"""`cellshare study`: the head-to-head study's aggregation and intervals, resuming after a kill,
the command's flags, and the docs page generated from the committed output. A tiny design (two
mechanisms and the reference, one load, two seeds, 10 UEs, 6 s runs) keeps it cheap."""

import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cellshare.cli import app
from cellshare.study import ci95, get, t_quantile
from cellshare.study import head_to_head as h
from cellshare.study.report import docs_page, report_html

REPO = Path(__file__).resolve().parent.parent
TINY = h.Design("test", ("CUBIC", "Legilimens"), ("fraction",), (0.6,), (1, 2), 6.0, n_ues=10)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("h2h") / "out"
    doc = h.run_study(out, design=TINY, workers=1, report=False)
    return out, doc


def _cell(doc, mech):
    return next(c for c in doc["cells"] if c["mechanism"] == mech)


def test_t_quantile_and_interval_match_a_hand_computation():
    # Printed tables: t_{0.975, 1} = 12.706, t_{0.975, 4} = 2.776.
    assert t_quantile(0.975, 1) == pytest.approx(12.706, abs=5e-4)
    assert t_quantile(0.975, 4) == pytest.approx(2.776, abs=5e-4)
    iv = ci95([1.0, 2.0, 3.0, 4.0, 5.0, None, float("nan")])
    # s = sqrt(2.5) = 1.5811; half = 2.7764 * 1.5811 / sqrt(5) = 1.9632
    assert (iv.mean, iv.n) == (3.0, 5)
    assert iv.half == pytest.approx(1.9632, abs=1e-4)
    assert ci95([7.0]).half is None and ci95([]).mean is None


def test_aggregates_are_the_seeds_mean_and_interval(tiny):
    out, doc = tiny
    assert doc["runs"]["total"] == len(TINY.jobs()) == 6  # the reference + 2 mechanisms, 2 seeds
    runs = {p.stem: json.loads(p.read_text()) for p in (out / "runs").glob("*.json")}
    a, b = (runs[f"fraction-cubic-load60-seed{s}"]["metrics"]["bg_goodput_mbps"] for s in (1, 2))
    st = _cell(doc, "CUBIC")["metrics"]["bg_goodput_mbps"]
    assert a > 0 and b > 0
    assert st["mean"] == pytest.approx((a + b) / 2, rel=1e-4)
    # two seeds: half = t_{0.975,1} * s / sqrt(2), s = |a - b| / sqrt(2)
    assert st["ci"] == pytest.approx(12.7062 * abs(a - b) / 2, rel=1e-3)
    # harm is paired per seed with the same seed's run without background
    ref = {s: runs[f"static-nobg-load60-seed{s}"]["metrics"] for s in (1, 2)}
    harms = []
    for s in (1, 2):
        m = runs[f"fraction-cubic-load60-seed{s}"]["metrics"]
        rs = [m[f"fct_{p}_{z}_s"] / ref[s][f"fct_{p}_{z}_s"] for z in h.SIZES for p in ("p50", "p95")
              if ref[s][f"fct_{p}_{z}_s"] is not None]
        assert len(rs) >= 4  # short and medium flows at least
        harms.append((math.exp(sum(map(math.log, rs)) / len(rs)) - 1) * 100)
    assert _cell(doc, "CUBIC")["metrics"]["harm"]["mean"] == pytest.approx(sum(harms) / 2, rel=1e-3)
    assert _cell(doc, h.REFERENCE)["metrics"]["bg_goodput_mbps"]["mean"] == 0.0
    # the written document is the returned one
    assert json.loads((out / "head-to-head.json").read_text())["cells"] == doc["cells"]


def test_the_report_and_page_state_mode_design_and_intervals(tiny, tmp_path):
    _, doc = tiny
    page = report_html(doc, tmp_path)
    assert (tmp_path / "pareto-load60.png").is_file()
    assert "Legilimens" in page and "±" in page and "Conclusions" in page
    md = docs_page(doc)
    assert md.startswith("# Which mechanism should you deploy?") and "| CUBIC |" in md


_KILLER = """
import os, signal, sys
from cellshare.study import head_to_head as h
from tests.test_study import TINY
real, n = h.run_job, [0]
def run_job(job):
    n[0] += 1
    if n[0] == 4:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(job)
h.run_job = run_job
h.run_study(sys.argv[1], design=TINY, workers=1, report=False)
"""


def test_a_killed_study_resumes_where_it_stopped(tiny, tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "python"), str(REPO),
                                                        os.environ.get("PYTHONPATH", "")])}
    p = subprocess.run([sys.executable, "-c", _KILLER, str(out)], cwd=REPO, env=env, capture_output=True, text=True)
    assert p.returncode == -signal.SIGKILL, p.stderr
    before = {q.name: q.stat().st_mtime_ns for q in (out / "runs").glob("*.json")}
    assert len(before) == 3
    doc = h.run_study(out, design=TINY, workers=1, report=False)
    assert (doc["runs"]["ran"], doc["runs"]["resumed"]) == (3, 3)
    assert all((out / "runs" / k).stat().st_mtime_ns == v for k, v in before.items())
    assert doc["cells"] == tiny[1]["cells"]  # byte-identical to the uninterrupted study
    # a different design in the same folder is refused without --force
    with pytest.raises(h.StudyError, match="another design"):
        h.run_study(out, design=h.QUICK, workers=1, report=False)


@pytest.mark.parametrize("args", [
    ["study", "no-such-study"],
    ["study", "head-to-head", "--workers", "0"],
    ["study", "--list", "--quick"],
    ["study", "head-to-head", "--render-docs", "--quick"],
    ["study", "head-to-head", "--bogus"],
])
def test_bad_flags_exit_2(args):
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 2, r.output


def test_an_out_that_is_not_a_study_folder_exits_2(tmp_path):
    (tmp_path / "mine.txt").write_text("x")
    r = CliRunner().invoke(app, ["study", "head-to-head", "--quick", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "not a study's" in r.output


def test_list_states_the_design():
    r = CliRunner().invoke(app, ["study", "--list"])
    assert r.exit_code == 0
    for word in ("head-to-head", "Legilimens", "Sneaker", "RTAC", "80%", "--quick", "seeds"):
        assert word in r.output


def test_docs_page_is_generated_from_the_committed_output():
    doc = json.loads(h.committed_output().read_text())
    assert (REPO / "docs" / "head-to-head.md").read_text() == docs_page(doc)
    assert get("head-to-head").name == "head-to-head"
