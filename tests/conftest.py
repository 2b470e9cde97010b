import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
#: The Mahimahi traces shipped with cellshare (package data; `cellshare.traces`).
TRACES = REPO / "python" / "cellshare" / "data" / "traces"


def cellshare(*args, cwd=None, check=False):
    """Runs the `cellshare` command (as a user would) and returns the CompletedProcess."""
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "cellshare.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or REPO, env=env, check=check)


#: Test files that run alone, after the others (`test.sh` runs the rest on several workers with
#: pytest-xdist): the real-time emulator and eBPF runs (a busy core distorts what they measure),
#: tests with wall-clock limits (Ctrl-C, killed sweeps) and tests that read the whole machine's
#: state (namespaces, every process, resident memory).
SERIAL_FILES = {
    "test_emulator.py", "test_emu_lifetime.py", "test_bpf.py", "test_crosscheck.py", "test_robustness.py",
    "test_edges_outputs.py", "test_memory_guard.py", "test_ns3_crosscheck.py", "test_ns3_legilimens.py",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SERIAL_FILES:
            item.add_marker(pytest.mark.serial)


@pytest.fixture(scope="module")
def emu_ready():
    """The emulator's binary; the test skips, naming what is missing, where it cannot run."""
    from cellshare import emulate

    miss = emulate.missing_requirements()
    if miss:
        pytest.skip("the emulator cannot run here: missing " + "; ".join(miss))
    return emulate.emulator_binary()


@pytest.fixture
def run_cli():
    return cellshare


@pytest.fixture
def traces_dir():
    """The folder of the shipped traces."""
    return TRACES


def snapshot(folder: Path) -> dict:
    """Every path under `folder` with its content (files) or None (folders)."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for d in dirs:
            out[os.path.relpath(os.path.join(root, d), folder)] = None
        for f in files:
            p = os.path.join(root, f)
            out[os.path.relpath(p, folder)] = Path(p).read_bytes()
    return out


def one_line_error(p, *words):
    """`p` (a finished command) exited 2 with one `error:` line holding every one of `words`."""
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    err = p.stderr.strip()
    assert err.startswith("error:") and "Traceback" not in err, err
    assert len(err.splitlines()) == 1, err
    for w in words:
        assert w in err, (w, err)


def proc_start(pid: int):
    """Start time of process `pid` (None when it is gone or a zombie, dead but not yet
    reaped): with the pid it names one process across pid reuse."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return None if fields[0] in ("Z", "X") else fields[19]


def ns_id(path: str):
    """(device, inode) of a namespace file (`/run/netns/NAME`, `/proc/PID/ns/net`), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def pids_in(ids: set) -> dict:
    """pid -> start time of every process whose network namespace is one of `ids`."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit() and ns_id(f"/proc/{d}/ns/net") in ids:
            out[int(d)] = proc_start(int(d))
    return out


def alive(procs: dict) -> list:
    """The processes of `procs` (pid -> start time) still running (same pid and start)."""
    return [p for p, st in procs.items() if st is not None and proc_start(p) == st]
