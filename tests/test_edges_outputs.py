"""Output folders at their edges: a sweep killed outright
takes its workers with it and nothing more is written; `--force` replaces only what cellshare
wrote; temporary folders of killed commands are removed by the next command writing beside
them, whatever their target; a read-only place or a mount point is named before anything runs
(docs/outputs.md)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from conftest import REPO, one_line_error as _one_line_error, snapshot as _snapshot

from cellshare.output import MARKER, TMP_PREFIX, OutputError, atomic_dir, check_out

QUICK = ["--duration", "0.3"]
SCENARIO = REPO / "scenarios" / "two-ues-pf.toml"


def _sweep_file(tmp_path: Path, seeds: int, duration_s: float) -> Path:
    f = tmp_path / "sw.toml"
    f.write_text(f'base = "{SCENARIO}"\nseeds = {seeds}\n[parameters]\n"simulation.duration_s" = [{duration_s}]\n'
                 '"simulation.trace_interval_ms" = [0]\n')
    return f


# -- item 2: a killed sweep leaves no worker behind -------------------------------------------

def _marked(tag: str) -> list[int]:
    """Pids of the processes whose environment carries CELLSHARE_EDGE_TEST=`tag`."""
    needle = f"CELLSHARE_EDGE_TEST={tag}".encode()
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if needle in env:
            pids.append(int(d))
    return pids


def _ppid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode()
    except OSError:
        return -1
    return int(text[text.rindex(")") + 2:].split()[1])


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def test_killed_sweep_takes_its_workers_with_it(run_cli, tmp_path):
    """`kill -9` of a sweep left its two workers and the resource tracker running (parent 1):
    they finished their runs into the folder (recreating it after `rm -rf`, so the next sweep
    there was refused) and then waited forever."""
    sweep = _sweep_file(tmp_path, seeds=4, duration_s=3000.0)  # about 8 s a run here
    out = tmp_path / "B"
    tag = uuid.uuid4().hex
    env = {**os.environ, "COLUMNS": "200", "CELLSHARE_EDGE_TEST": tag}
    proc = subprocess.Popen([sys.executable, "-m", "cellshare.cli", "sweep", str(sweep), "--out", str(out),
                             "--workers", "2"], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            workers = [p for p in _marked(tag) if _ppid(p) == proc.pid and b"spawn_main" in _cmdline(p)]
            if len(workers) == 2 and (out / "runs").is_dir():
                break
            time.sleep(0.05)
        else:
            pytest.fail("the sweep started no workers within 60 s")
        time.sleep(2.0)  # the workers are past their imports, simulating
        proc.kill()
        proc.wait()
        deadline = time.time() + 5
        while _marked(tag) and time.time() < deadline:
            time.sleep(0.05)
        left = _marked(tag)
        assert not left, f"processes of the killed sweep still run: {left}"
        before = _snapshot(out)
        time.sleep(1.0)
        assert _snapshot(out) == before  # nothing more is written
        shutil.rmtree(out)
        time.sleep(0.5)
        assert not out.exists()  # no worker recreated it
        p = run_cli("sweep", sweep, "--out", out, "--dry-run")
        assert p.returncode == 0 and p.stdout.count("to run") == 4, (p.stdout, p.stderr)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _marked(tag):  # only this test's processes, whatever happened above
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


ORPHAN = r"""
import os, sys
from cellshare import parallel
parallel._die_with_parent(int(sys.argv[1]))
print("still running")
"""


def test_a_worker_whose_parent_is_already_gone_exits():
    """The parent can die before the worker asks to die with it: the worker checks that its
    parent is still the process that started it."""
    not_my_parent = os.getpid() + 10 ** 6  # no process has this pid
    p = subprocess.run([sys.executable, "-c", ORPHAN, str(not_my_parent)], capture_output=True, text=True, cwd=REPO)
    assert p.returncode == 1 and "still running" not in p.stdout, (p.returncode, p.stdout, p.stderr)
    p = subprocess.run([sys.executable, "-c", ORPHAN, str(os.getpid())], capture_output=True, text=True, cwd=REPO)
    assert p.returncode == 0 and "still running" in p.stdout, (p.returncode, p.stdout, p.stderr)


def test_a_run_folder_is_never_recreated_once_its_sweep_folder_is_gone(tmp_path):
    """A worker outliving its sweep recreated OUT/runs after `rm -rf OUT` (its atomic write made
    the missing parents); the next sweep to OUT then refused the unmarked folder."""
    runs = tmp_path / "B" / "runs"
    with pytest.raises(OutputError, match="gone"):
        with atomic_dir(runs / "0123456789ab", kind="run", owned=True) as tmp:
            (tmp / "summary.json").write_text("{}")
    assert list(tmp_path.iterdir()) == []


# -- item 3: --force replaces only what cellshare wrote ---------------------------------------

def test_force_keeps_files_cellshare_did_not_write(run_cli, tmp_path):
    """`run --out prev --force` deleted the user's notes.txt (and any folder the user put in
    prev) without a word."""
    out = tmp_path / "prev"
    assert run_cli("run", SCENARIO, "--out", out, *QUICK).returncode == 0
    marker = json.loads((out / MARKER).read_text())
    assert "summary.json" in marker["entries"] and MARKER not in marker["entries"]
    (out / "notes.txt").write_text("notes")
    (out / "mine").mkdir()
    (out / "mine" / "data.csv").write_text("1,2\n")
    (out / ".hidden").write_text("mine too")
    before = _snapshot(tmp_path)
    p = run_cli("run", SCENARIO, "--out", out, *QUICK, "--seed", "9", "--force")
    _one_line_error(p, str(out), "'.hidden' (and 2 more)", "cellshare did not write", "move them away")
    assert _snapshot(tmp_path) == before
    for extra in ("notes.txt", "mine", ".hidden"):
        shutil.move(out / extra, tmp_path / extra)
    p = run_cli("run", SCENARIO, "--out", out, *QUICK, "--seed", "9", "--force")
    assert p.returncode == 0, p.stderr
    assert json.loads((out / "summary.json").read_text())["seed"] == 9
    # A report written inside (FOLDER/report) is cellshare's; a file put into it is not.
    assert run_cli("report", out).returncode == 0
    (out / "report" / "my-figure.png").write_text("mine")
    before = _snapshot(tmp_path)
    _one_line_error(run_cli("run", SCENARIO, "--out", out, *QUICK, "--force"), "'report'")
    _one_line_error(run_cli("report", out, "--force"), "'my-figure.png'")
    assert _snapshot(tmp_path) == before
    (out / "report" / "my-figure.png").unlink()
    assert run_cli("run", SCENARIO, "--out", out, *QUICK, "--force").returncode == 0
    assert not (out / "report").exists()


def test_force_refuses_a_file_that_appears_while_the_run_goes(tmp_path):
    """The check before the run is repeated when the results are moved into place, and once more
    on the replaced output after the swap (the swap is undone)."""
    from cellshare.output import _replace

    out = tmp_path / "prev"
    with atomic_dir(out, kind="run") as tmp:
        (tmp / "summary.json").write_text("old")
    with pytest.raises(OutputError, match="'notes.txt'"):
        with atomic_dir(out, kind="run", force=True) as tmp:
            (tmp / "summary.json").write_text("new")
            (out / "notes.txt").write_text("appeared meanwhile")
    assert sorted(os.listdir(tmp_path)) == ["prev"]
    assert (out / "summary.json").read_text() == "old" and (out / "notes.txt").exists()
    # After the last check, just before the swap: the replaced output is looked at again.
    (out / "notes.txt").unlink()
    new = tmp_path / f"{TMP_PREFIX}new"
    new.mkdir()
    (new / "summary.json").write_text("new")
    check_out(out, kind="run", force=True)
    (out / "late.txt").write_text("appeared after the check")
    with pytest.raises(OutputError, match="'late.txt'"):
        _replace(new, out)
    assert (out / "summary.json").read_text() == "old" and (out / "late.txt").exists()
    assert (new / "summary.json").read_text() == "new"


@pytest.mark.parametrize("kind", ["run", "emulate", "crosscheck", "reproduce", "sweep", "report"])
def test_every_kind_keeps_the_users_files_under_force(tmp_path, kind):
    """Every command writes through atomic_dir or check_out (a sweep through check_out and
    replace_in_place): the same refusal for each."""
    from cellshare.output import replace_in_place

    out = tmp_path / "prev"
    with atomic_dir(out, kind=kind) as tmp:
        (tmp / "result.json").write_text("{}")
    (out / "notes.txt").write_text("mine")
    before = _snapshot(tmp_path)
    for k in ("run", kind):
        with pytest.raises(OutputError, match="'notes.txt' that cellshare did not write"):
            check_out(out, kind=k, force=True)
        with pytest.raises(OutputError, match="'notes.txt'"):
            with atomic_dir(out, kind=k, force=True):
                pass
    with pytest.raises(OutputError, match="'notes.txt'"):
        replace_in_place(out, kind="sweep")
    assert _snapshot(tmp_path) == before
    assert json.loads((out / MARKER).read_text())["entries"] == ["result.json"]
    (out / "notes.txt").unlink()
    with atomic_dir(out, kind="run", force=True) as tmp:
        (tmp / "summary.json").write_text("{}")
    assert sorted(os.listdir(out)) == [MARKER, "summary.json"]


def test_markers_of_earlier_versions(tmp_path):
    """A marker without the list of entries (written before it existed): entries with the known
    names of its kind are cellshare's, anything else is the user's; a crosscheck's or a
    reproduction's names are not fixed, so such an old one is never replaced."""
    old = tmp_path / "old"
    old.mkdir()
    (old / MARKER).write_text('{"kind": "run", "cellshare": "0.1.0"}')
    (old / "summary.json").write_text("{}")
    (old / "flows.parquet").write_text("")
    (old / "report").mkdir()
    assert check_out(old, kind="run", force=True)["kind"] == "run"
    (old / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match="'notes.txt' that cellshare did not write .*earlier cellshare"):
        check_out(old, kind="run", force=True)
    cc = tmp_path / "cc"
    cc.mkdir()
    (cc / MARKER).write_text('{"kind": "crosscheck", "cellshare": "0.1.0"}')
    (cc / "crosscheck.json").write_text("{}")
    with pytest.raises(OutputError, match="'crosscheck.json'"):
        check_out(cc, kind="crosscheck", force=True)
    # A folder from before the marker existed: its hidden entries are not cellshare's.
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "summary.json").write_text("{}")
    assert check_out(legacy, kind="run", force=True)["legacy"]
    (legacy / ".notes").write_text("mine")
    with pytest.raises(OutputError, match="'.notes'"):
        check_out(legacy, kind="run", force=True)


def test_sweep_and_report_folders_under_force(run_cli, tmp_path):
    """A sweep's folder lists what a sweep writes; a report written inside it (FOLDER/report) is
    cellshare's too, unless it holds something else; a sweep resumed beside the user's files
    keeps them; a sweep over another output with the user's files is refused."""
    sweep = _sweep_file(tmp_path, seeds=1, duration_s=0.2)
    sw = tmp_path / "sw"
    assert run_cli("sweep", sweep, "--out", sw, "--workers", "1").returncode == 0
    assert set(json.loads((sw / MARKER).read_text())["entries"]) == {
        "sweep.toml", "sweep.json", "runs", "runs.parquet", "flows.parquet"}
    (sw / "notes.txt").write_text("mine")
    p = run_cli("sweep", sweep, "--out", sw, "--workers", "1", "--force")  # resumed: every run redone
    assert p.returncode == 0 and "1 ran" in p.stdout, p.stderr
    assert (sw / "notes.txt").read_text() == "mine"
    before = _snapshot(tmp_path)
    _one_line_error(run_cli("run", SCENARIO, "--out", sw, *QUICK, "--force"), "'notes.txt'")
    assert _snapshot(tmp_path) == before
    (sw / "notes.txt").unlink()
    # What `cellshare report sw` does (check_out, then atomic_dir into sw/report); a real
    # report inside a run folder is below.
    with atomic_dir(sw / "report", kind="report") as tmp:
        (tmp / "index.html").write_text("<html></html>")
    (sw / "report" / "my-figure.png").write_text("mine")
    before = _snapshot(tmp_path)
    _one_line_error(run_cli("run", SCENARIO, "--out", sw, *QUICK, "--force"), "'report'")
    with pytest.raises(OutputError, match="'my-figure.png'"):
        check_out(sw / "report", kind="report", force=True)
    assert _snapshot(tmp_path) == before
    (sw / "report" / "my-figure.png").unlink()
    # The report inside is the sweep's own (cellshare wrote it there): replaced with it.
    p = run_cli("run", SCENARIO, "--out", sw, *QUICK, "--force")
    assert p.returncode == 0, p.stderr
    assert not (sw / "report").exists() and (sw / "summary.json").is_file()
    # A sweep over another output holding the user's file: refused before anything runs.
    (sw / "notes.txt").write_text("mine")
    before = _snapshot(tmp_path)
    _one_line_error(run_cli("sweep", sweep, "--out", sw, "--workers", "1", "--force"), "'notes.txt'")
    assert _snapshot(tmp_path) == before


# -- item 8: temporary folders of killed commands ---------------------------------------------

KILLED_WRITER = r"""
import os, signal, sys
from cellshare.output import atomic_dir
with atomic_dir(sys.argv[1]) as tmp:
    (tmp / "summary.json").write_text("{}")
    (tmp / "flows.parquet").write_bytes(b"x" * 1000)
    os.kill(os.getpid(), signal.SIGKILL)  # as a kill -9 during the final write
"""


def _live_tmp_name(target: str) -> str:
    """The name a temporary folder of this (live) process would carry, for `target`."""
    from cellshare.output import _tmp_name

    return _tmp_name(target)


def test_temporary_folders_of_killed_commands_are_removed_whatever_their_target(run_cli, tmp_path):
    """A kill -9 during the final write left a hidden .cellshare-tmp-... folder holding the
    whole result; only a later run to the same --out name removed it."""
    p = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(tmp_path / "res")], cwd=REPO)
    assert p.returncode == -9
    dead = [x for x in tmp_path.iterdir() if x.name.startswith(TMP_PREFIX)]
    assert len(dead) == 1 and (dead[0] / "summary.json").exists()
    live = tmp_path / _live_tmp_name("elsewhere")  # a live command's, to another target
    live.mkdir()
    (tmp_path / ".cellshare-tmp-not-ours").mkdir()  # not of the form: the user's, left alone
    (tmp_path / ".res.old").mkdir()
    p = run_cli("run", SCENARIO, "--out", tmp_path / "other", *QUICK)
    assert p.returncode == 0, p.stderr
    assert not dead[0].exists()
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted(
        [".cellshare-tmp-not-ours", ".res.old", live.name, "other"])


def test_a_resumed_sweep_removes_only_dead_runs_temporary_folders(run_cli, tmp_path):
    sweep = _sweep_file(tmp_path, seeds=1, duration_s=0.2)
    sw = tmp_path / "sw"
    assert run_cli("sweep", sweep, "--out", sw, "--workers", "1").returncode == 0
    runs = sw / "runs"
    p = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(runs / "0123456789ab")], cwd=REPO)
    assert p.returncode == -9
    dead = [x for x in runs.iterdir() if x.name.startswith(TMP_PREFIX)]
    live = runs / _live_tmp_name("ba9876543210")
    live.mkdir()
    (sw / ".runs.parquet.999999999.tmp").write_text("")  # a killed sweep's dataset file (no such pid)
    assert run_cli("sweep", sweep, "--out", sw, "--workers", "1").returncode == 0
    assert len(dead) == 1 and not dead[0].exists()
    assert live.is_dir() and not (sw / ".runs.parquet.999999999.tmp").exists()


# -- item 9: read-only places and mount points ------------------------------------------------

@pytest.fixture
def mounts(tmp_path):
    """Mounts tmpfs at tmp_path/NAME (options as given); unmounted afterwards."""
    made = []

    def mount(name: str, options: str) -> Path:
        where = tmp_path / name
        where.mkdir()
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"{options},size=16m", "tmpfs", str(where)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            pytest.skip(f"cannot mount here: {p.stderr.strip()}")
        made.append(where)
        return where

    yield mount
    for where in reversed(made):
        subprocess.run(["umount", str(where)], check=False)


def test_read_only_places_and_mount_points_are_named_before_running(run_cli, tmp_path, mounts):
    """`--out` on a read-only mount ran the scenario, then said "cannot rename the results into
    place: Device or resource busy"."""
    ro = mounts("ro", "ro")
    rw = mounts("rw", "rw")
    (tmp_path / "sub").mkdir()
    cases = [(ro, [str(ro), "read-only file system"]),
             (ro / "sub", [str(ro / "sub"), f"{ro} is on a read-only file system"]),
             (rw, [str(rw), "mount point"])]
    bad = tmp_path / "sub" / "bad.toml"
    bad.write_text("[simulation]\nduration_s = -1\n")
    for out, words in cases:
        before = _snapshot(tmp_path)
        _one_line_error(run_cli("run", SCENARIO, "--out", out, *QUICK), *words)
        # named before the scenario is even read
        _one_line_error(run_cli("run", bad, "--out", out), *words)
        assert _snapshot(tmp_path) == before
    _one_line_error(run_cli("sweep", _sweep_file(tmp_path / "sub", 1, 0.2), "--out", ro / "sw"),
                    "read-only file system")
    # A folder inside a writable mount point is fine, and a sweep (which writes into its folder
    # in place) may write into the mount point itself.
    assert run_cli("run", SCENARIO, "--out", rw / "res", *QUICK).returncode == 0
    shutil.rmtree(rw / "res")
    p = run_cli("sweep", _sweep_file(tmp_path / "sub", 1, 0.2), "--out", rw, "--workers", "1")
    assert p.returncode == 0, p.stderr
    _one_line_error(run_cli("run", SCENARIO, "--out", rw, *QUICK, "--force"), "mount point")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores mode bits (the read-only mount covers root)")
def test_a_folder_without_write_permission_is_named(run_cli, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        _one_line_error(run_cli("run", SCENARIO, "--out", locked / "res", *QUICK), "not writable")
    finally:
        locked.chmod(0o755)
