"""A scenario on its way to an engine is parsed once in Python (`scenario_files.prepare`:
overrides and the choice of engine from one table) and then by the engine; the command
line's `--seed` and `--duration` and their errors are as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

from cellshare import _core
from cellshare.scenario_files import prepare, with_overrides

REPO = Path(__file__).resolve().parents[1]
CELL = (REPO / "scenarios" / "two-ues-pf.toml").read_text()
LLN = (REPO / "scenarios" / "lln-10-6hop.toml").read_text()


@pytest.fixture
def parses(monkeypatch):
    """The texts Python's TOML parser is given while the test runs."""
    seen: list[str] = []
    real = tomllib.loads

    def counted(text, *a, **k):
        seen.append(text)
        return real(text, *a, **k)

    monkeypatch.setattr(tomllib, "loads", counted)
    return seen


@pytest.mark.parametrize("seed, duration", [(None, None), (7, None), (None, 0.25), (7, 0.25)])
def test_prepare_parses_once_and_chooses_the_engine(parses, seed, duration):
    for text, lln in ((CELL, False), (LLN, True)):
        parses.clear()
        sc = prepare(text, seed, duration)
        assert len(parses) == 1 and sc.lln is lln
        doc = tomllib.loads(sc.text)
        assert doc["simulation"].get("seed") == (seed if seed is not None else tomllib.loads(text)["simulation"].get("seed"))
        if duration is not None:
            assert doc["simulation"]["duration_s"] == duration
        if seed is None and duration is None:
            assert sc.text is text  # handed on as written: the engine's errors name its lines


def test_the_run_command_parses_the_scenario_once_before_the_engine(parses, tmp_path):
    from typer.testing import CliRunner

    from cellshare.cli import app

    path = tmp_path / "s.toml"
    path.write_text(CELL)
    r = CliRunner().invoke(app, ["run", str(path), "--seed", "3", "--duration", "0.2", "--json"])
    assert r.exit_code == 0, r.output
    assert parses == [CELL]
    assert json.loads(r.stdout)["duration_s"] == 0.2


def test_text_that_is_not_toml_goes_to_the_engine_unless_it_must_be_overridden():
    bad = "[simulation\nseed = 1\n"
    sc = prepare(bad)
    assert sc == type(sc)(bad, False)
    with pytest.raises(_core.ScenarioInvalid) as e:
        _core.validate(sc.text)
    assert "line 1" in e.value.args[0]
    with pytest.raises(tomllib.TOMLDecodeError):
        prepare(bad, seed=1)
    with pytest.raises(_core.ScenarioInvalid) as e:
        with_overrides('simulation = "x"\n', None, 1.0)
    assert e.value.args == ("`simulation`: got 'x', expected a table", "simulation", "expected a table")
    assert with_overrides(bad) is bad
