"""Output folders: `--out` never deletes or overwrites what the user did not ask
to replace; every path error is one line, exit 2, nothing written; killed runs' temporary
folders are removed by the next run to the same place. The same rules for run, emulate,
crosscheck, reproduce, sweep and report (docs/outputs.md)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, one_line_error as _one_line_error, snapshot as _snapshot

from cellshare.output import MARKER, TMP_PREFIX, OutputError, atomic_dir, check_out, read_marker

QUICK = ["--duration", "0.3"]


def test_run_refuses_a_folder_that_is_not_a_cellshare_output(run_cli, tmp_path):
    """`run --out` replaced an existing non-empty folder (the user's files gone, exit 0) and
    deleted a sibling `.NAME.old` without a word."""
    user = tmp_path / "mine"
    user.mkdir()
    (user / "thesis.tex").write_text("years of work")
    (tmp_path / ".mine.old").mkdir()
    (tmp_path / ".mine.old" / "keep").write_text("keep")
    before = _snapshot(tmp_path)
    for extra in ([], ["--force"]):
        p = run_cli("run", "--out", user, *QUICK, *extra)
        _one_line_error(p, str(user), "not a cellshare output")
        assert _snapshot(tmp_path) == before


def test_run_in_a_checkout_cannot_wipe_the_shipped_scenarios(run_cli, tmp_path):
    shutil.copytree(REPO / "scenarios", tmp_path / "scenarios")
    before = _snapshot(tmp_path)
    p = run_cli("run", "--out", "scenarios", *QUICK, "--force", cwd=tmp_path)
    _one_line_error(p, "scenarios")
    assert _snapshot(tmp_path) == before


def test_previous_output_is_replaced_only_with_force_and_siblings_stay(run_cli, tmp_path):
    out = tmp_path / "res"
    assert run_cli("run", "--out", out, *QUICK).returncode == 0
    assert read_marker(out)["kind"] == "run"
    (tmp_path / ".res.old").mkdir()
    (tmp_path / "res-notes.txt").write_text("mine")
    first = (out / "summary.json").read_text()
    p = run_cli("run", "--out", out, *QUICK, "--seed", "9")
    _one_line_error(p, "previous cellshare run output", "--force")
    assert (out / "summary.json").read_text() == first
    p = run_cli("run", "--out", out, *QUICK, "--seed", "9", "--force")
    assert p.returncode == 0, p.stderr
    assert json.loads((out / "summary.json").read_text())["seed"] == 9
    assert (tmp_path / ".res.old").is_dir() and (tmp_path / "res-notes.txt").read_text() == "mine"
    assert sorted(x.name for x in tmp_path.iterdir()) == [".res.old", "res", "res-notes.txt"]


@pytest.mark.parametrize("case", ["file", "dot", "dotdot", "under-file", "proc", "long-name", "symlink"])
def test_path_errors_are_one_line_exit_2_and_leave_nothing(run_cli, tmp_path, case):
    """`--out` naming a file renamed it and exited 1 with a traceback; `.`/`..` left a full
    hidden temporary folder in the working directory; a path under a file, /proc/... or an
    over-long name gave raw tracebacks."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "afile").write_text("data")
    os.symlink(work / "afile", work / "alink")
    out = {"file": "afile", "dot": ".", "dotdot": "..", "under-file": "afile/sub/out", "proc": "/proc/self/out",
           "long-name": "x" * 300, "symlink": "alink"}[case]
    before = _snapshot(tmp_path)
    p = run_cli("run", "--out", out, *QUICK, cwd=work)
    _one_line_error(p, "--out")
    assert _snapshot(tmp_path) == before, case


def test_missing_parents_are_created_and_removed_again_on_failure(run_cli, tmp_path):
    out = tmp_path / "a" / "b" / "c"
    bad = tmp_path / "bad.toml"
    bad.write_text("[simulation]\nduration_s = -1\n[[ues]]\n")
    p = run_cli("run", bad, "--out", out)
    assert p.returncode == 2
    assert list(tmp_path.iterdir()) == [bad]
    p = run_cli("run", "--out", out, *QUICK)
    assert p.returncode == 0 and (out / "summary.json").is_file()


KILLED_WRITER = r"""
import os, signal, sys
from cellshare.output import atomic_dir
with atomic_dir(sys.argv[1]) as tmp:
    (tmp / "half-written.parquet").write_bytes(b"x" * 1000)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_temporary_folder_of_a_killed_run_is_removed_by_the_next_run_there(run_cli, tmp_path):
    """A run killed while writing left a hidden temporary folder that later runs never
    removed."""
    out = tmp_path / "res"
    p = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(out)], cwd=REPO)
    assert p.returncode == -9
    left = [x for x in tmp_path.iterdir() if x.name.startswith(TMP_PREFIX)]
    assert len(left) == 1 and (left[0] / "half-written.parquet").exists()
    # A run to another place beside it removes it too (whatever the target, once its
    # process is gone; tests/test_edges_outputs.py).
    assert run_cli("run", "--out", tmp_path / "res2", *QUICK).returncode == 0
    assert not left[0].exists()
    # The next run to the same place removes it, but not the temporary folder of a live run
    # there (this process's, below), and that live run then finds `res` taken.
    with pytest.raises(OutputError, match="previous cellshare run output"):
        with atomic_dir(out) as live:
            assert not left[0].exists()
            p = run_cli("run", "--out", out, *QUICK)
            assert p.returncode == 0, p.stderr
            assert live.exists()
    assert not live.exists()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["res", "res2"]
    assert (out / "summary.json").is_file() and not (out / "half-written.parquet").exists()


def test_check_out_rules():
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        assert check_out(d / "new", kind="run") is None
        (d / "empty").mkdir()
        assert check_out(d / "empty", kind="run") is None
        (d / "sw").mkdir()
        (d / "sw" / MARKER).write_text(json.dumps({"kind": "sweep"}))
        (d / "sw" / "runs").mkdir()
        assert check_out(d / "sw", kind="sweep", resume=True)["kind"] == "sweep"
        with pytest.raises(OutputError, match="--force"):
            check_out(d / "sw", kind="run")
        assert check_out(d / "sw", kind="run", force=True)["kind"] == "sweep"
        # A sweep folder written before markers existed is still a sweep's.
        (d / "old").mkdir()
        (d / "old" / "sweep.toml").write_text("")
        (d / "old" / "runs").mkdir()
        assert read_marker(d / "old") == {"kind": "sweep", "legacy": True}
        (d / "old" / "notes.txt").write_text("")
        assert read_marker(d / "old") is None
        with pytest.raises(OutputError, match="not a cellshare output"):
            check_out(d / "old", kind="sweep", force=True, resume=True)


def _foreign(tmp_path) -> Path:
    f = tmp_path / "foreign"
    f.mkdir()
    (f / "data.csv").write_text("1,2,3\n")
    return f


def test_every_command_refuses_a_foreign_folder(run_cli, tmp_path):
    foreign = _foreign(tmp_path)
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'base = "{REPO / "scenarios" / "two-ues-pf.toml"}"\nseeds = 1\n')
    before = _snapshot(tmp_path)
    for args in (["reproduce", "pf-fairness", "--out", foreign],
                 ["sweep", sweep, "--out", foreign], ["sweep", sweep, "--out", foreign, "--dry-run"],
                 ["emulate", REPO / "scenarios" / "emu-two-ues-cubic.toml", "--out", foreign],
                 ["crosscheck", REPO / "scenarios" / "emu-two-ues-cubic.toml", "--out", foreign]):
        p = run_cli(*args)
        _one_line_error(p, str(foreign))
    assert _snapshot(tmp_path) == before


def test_sweep_resumes_in_its_folder_and_replaces_another_output_only_with_force(run_cli, tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'base = "{REPO / "scenarios" / "two-ues-pf.toml"}"\nseeds = 2\n'
                     '[parameters]\n"simulation.duration_s" = [0.2]\n')
    out = tmp_path / "sw"
    p = run_cli("sweep", sweep, "--out", out, "--workers", "1")
    assert p.returncode == 0, p.stderr
    assert read_marker(out)["kind"] == "sweep"
    p = run_cli("sweep", sweep, "--out", out, "--workers", "1")
    assert p.returncode == 0 and "2 already complete" in p.stdout, p.stdout
    run = tmp_path / "run"
    assert run_cli("run", "--out", run, *QUICK).returncode == 0
    p = run_cli("sweep", sweep, "--out", run, "--workers", "1")
    _one_line_error(p, str(run), "--force")
    p = run_cli("sweep", sweep, "--out", run, "--workers", "1", "--force")
    assert p.returncode == 0, p.stderr
    assert read_marker(run)["kind"] == "sweep" and not (run / "summary.json").exists()


def test_report_replaces_its_previous_report_only_with_force(run_cli, tmp_path):
    out = tmp_path / "res"
    assert run_cli("run", "scenarios/two-ues-pf.toml", "--out", out, *QUICK).returncode == 0
    assert run_cli("report", out).returncode == 0
    assert read_marker(out / "report")["kind"] == "report"
    p = run_cli("report", out)
    _one_line_error(p, "report", "--force")
    assert run_cli("report", out, "--force").returncode == 0
    foreign = _foreign(tmp_path)
    _one_line_error(run_cli("report", out, "--out", foreign), str(foreign))
