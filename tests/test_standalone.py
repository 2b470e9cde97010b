"""A clone of the repository stands alone: the committed `HEAD`, cloned into an empty folder
with nothing beside it (no `../shared`, no environment variable pointing anywhere), validates
every shipped scenario, runs a trace-driven reproduction in quick mode and builds its docs.

The clone's Python package (its sources and package data: traces, scoreboard, eBPF sources,
scenarios) runs with the extension module this checkout built, copied in: compiling the
workspace a second time would add minutes and test nothing more, since the extension holds
no path. What is tested is that nothing the clone runs reaches outside it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cellshare import _core

from conftest import REPO


def _git(*args, cwd):
    return subprocess.run(["git", *map(str, args)], cwd=cwd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs git and a git checkout")
    root = tmp_path_factory.mktemp("alone")
    dest = root / "cellshare"
    r = _git("clone", "--quiet", "--no-hardlinks", REPO, dest, cwd=root)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in root.iterdir()) == ["cellshare"]
    ext = Path(_core.__file__)
    shutil.copy2(ext, dest / "python" / "cellshare" / ext.name)
    return dest


def _env(clone: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CELLSHARE_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONPATH"] = str(clone / "python")
    env["COLUMNS"] = "200"
    return env


def _cellshare(clone: Path, *args, timeout=600):
    return subprocess.run([sys.executable, "-m", "cellshare.cli", *map(str, args)], cwd=clone, env=_env(clone),
                          capture_output=True, text=True, timeout=timeout)


def test_the_clone_runs_its_own_package(clone):
    r = subprocess.run([sys.executable, "-c", "import cellshare, cellshare.traces as t; "
                        "print(cellshare.__file__); print(t.DIR)"], cwd=clone, env=_env(clone),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    pkg, traces = map(Path, r.stdout.split())
    assert pkg.is_relative_to(clone) and traces.is_relative_to(clone)


def test_every_shipped_scenario_validates_in_the_clone(clone):
    files = sorted((clone / "scenarios").glob("*.toml"))
    assert len(files) >= 15
    r = _cellshare(clone, "validate", *files)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("ok ") == len(files)


def test_a_trace_driven_reproduction_runs_in_the_clone(clone, tmp_path):
    out = tmp_path / "bode-diffserv"
    r = _cellshare(clone, "reproduce", "bode-diffserv", "--out", out)
    # 0: every claim holds, 1: a claim misses; never 2 (missing data) or 3 (failed to run).
    assert r.returncode in (0, 1), r.stdout[-2000:] + r.stderr[-2000:]
    claims = json.loads((out / "claims.json").read_text())
    assert claims["claims"] and all(c["ours"] is not None for c in claims["claims"])
    assert [i["source"] for i in claims["inputs"]["traces"]] == ["builtin", "builtin"]


def test_the_docs_build_in_the_clone(clone, tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", clone / "mkdocs.yml",
                        "-d", tmp_path / "site"], cwd=clone, env=_env(clone), capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").is_file()
