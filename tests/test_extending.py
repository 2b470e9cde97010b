"""The worked examples of docs/extending/ that Python runs (the Rust ones are compiled and run
by `cargo test`): each example file is the one the page includes."""

from __future__ import annotations

import importlib.util
import json

from conftest import REPO

from cellshare import reproduce
from cellshare.reproduce import run_experiment, write_claims


def test_the_reproduction_example_registers_runs_and_judges_its_claim(tmp_path):
    page = (REPO / "docs" / "extending" / "reproduction.md").read_text()
    assert '--8<-- "docs/extending/reproduction_example.py"' in page
    spec = importlib.util.spec_from_file_location("pf_three_way", REPO / "docs" / "extending" / "reproduction_example.py")
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
        exp = reproduce.REGISTRY["pf-three-way"]
        assert exp in reproduce.all_experiments() and reproduce.all_experiments()[-1] is exp
        outcome = run_experiment(exp, tmp_path, sensitivity=False)
        write_claims(outcome, tmp_path)
    finally:
        reproduce.REGISTRY.pop("pf-three-way", None)
    claims = {c["id"]: c for c in json.loads((tmp_path / "claims.json").read_text())["claims"]}
    c = claims["three-way-split"]
    assert c["verdict"] == "holds", c
    assert abs(c["ours"] - 1 / 3) < 0.01


def test_every_module_of_the_reproduce_package_is_loaded():
    """A reproduction is found from its module alone: every module of the package is
    imported, so every name in the paper order is registered."""
    import pkgutil
    import sys

    reproduce.load_all()
    for m in pkgutil.iter_modules(reproduce.__path__):
        assert f"cellshare.reproduce.{m.name}" in sys.modules, m.name
    names = {e.name for e in reproduce.all_experiments()}
    assert set(reproduce.ORDER) <= names
