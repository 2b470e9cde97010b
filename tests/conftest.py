import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


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
    d = SHARED / "traces"
    if not d.is_dir():
        pytest.skip(f"the shared traces folder {d} is not present")
    return d
