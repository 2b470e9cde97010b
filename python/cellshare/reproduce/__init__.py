"""The reproduction framework: named experiments from the papers, each producing measured
claims next to the paper's numbers.

An experiment is a function ``run(ctx) -> None`` registered with :func:`experiment`. It runs
scenarios through ``ctx.run`` (each run's outputs land in ``OUT/runs/<label>/``), draws
figures into ``ctx.out``, and records claims with ``ctx.claim``. ``cellshare reproduce NAME``
then writes ``claims.json`` (a list of {id, description, paper, ours, target, holds}) and
``claims.md`` (paper vs ours), and exits non-zero when a claim does not hold. Every
``ours`` value is computed from the runs; nothing is typed in.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ..api import Result, run as run_scenario
from ..output import write_result

import tomli_w


@dataclass
class Claim:
    """One checked statement of a reproduction."""

    id: str
    description: str
    paper: str
    ours: Any
    target: str
    holds: bool


@dataclass
class Experiment:
    """A registered reproduction."""

    name: str
    title: str
    paper: str
    func: Callable[["Context"], None]


REGISTRY: dict[str, Experiment] = {}


def experiment(name: str, title: str, paper: str) -> Callable[[Callable[["Context"], None]], Callable[["Context"], None]]:
    """Registers a reproduction under `name`."""

    def deco(func: Callable[["Context"], None]) -> Callable[["Context"], None]:
        REGISTRY[name] = Experiment(name, title, paper, func)
        return func

    return deco


@dataclass
class Context:
    """What an experiment gets: where to write, how to run, where to put claims."""

    out: Path
    full: bool = False
    progress: bool = False
    claims: list[Claim] = field(default_factory=list)

    def run(self, label: str, scenario: Mapping[str, Any]) -> Result:
        """Runs `scenario` (a mapping as in a TOML file) and writes its outputs under
        ``runs/<label>/``."""
        text = tomli_w.dumps(dict(scenario))
        result = run_scenario(scenario, progress=self.progress, label=label)
        write_result(result, self.out / "runs" / label, scenario_text=text)
        return result

    def run_lln(self, label: str, scenario: Mapping[str, Any]):
        """Runs an LLN `scenario` (a mapping with an ``lln`` table) and writes its outputs
        under ``runs/<label>/``."""
        from ..lln import run_lln_text, write_lln_result

        text = tomli_w.dumps(dict(scenario))
        result = run_lln_text(text)
        write_lln_result(result, self.out / "runs" / label, scenario_text=text)
        return result

    def claim(self, id: str, description: str, paper: str, ours: Any, target: str, holds: bool) -> None:
        """Records a claim; `ours` must be measured from the runs."""
        self.claims.append(Claim(id, description, paper, ours, target, bool(holds)))


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def write_claims(exp: Experiment, ctx: Context) -> None:
    """Writes claims.json and claims.md."""
    (ctx.out / "claims.json").write_text(json.dumps([asdict(c) for c in ctx.claims], indent=2) + "\n")
    lines = [f"# {exp.title}", "", f"Paper: {exp.paper}", "", "| claim | paper | ours | target | holds |", "|---|---|---|---|---|"]
    for c in ctx.claims:
        lines.append(f"| {c.description} | {c.paper} | {_fmt(c.ours)} | {c.target} | {'yes' if c.holds else '**no**'} |")
    (ctx.out / "claims.md").write_text("\n".join(lines) + "\n")


def load_all() -> None:
    """Imports every experiment module so they register."""
    from . import (  # noqa: F401
        bode, bode_diffserv, dtpa, legilimens, lpt_fifo_vs_cell, pf_fairness, sneaker_fairness,
        sneaker_prioritization, sneaker_scaling,
    )
