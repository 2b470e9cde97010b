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


@pytest.fixture
def run_cli():
    return cellshare


@pytest.fixture
def traces_dir():
    """The folder of the shipped traces."""
    return TRACES
