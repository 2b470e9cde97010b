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
from typing import Any, Callable, Mapping, Sequence

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

    def run_many(self, items: Sequence[tuple[str, Mapping[str, Any]]], keep: Callable[[Result], Any] | None = None,
                 workers: int | None = None) -> list[Any]:
        """Runs ``(label, scenario)`` pairs in parallel on the local cores (as
        :meth:`run`, each writing ``runs/<label>/``) and returns, in the order given,
        ``keep(result)`` for each — by default the run's summary dict. `keep` runs in the
        worker and must be a module-level function; keep what it returns small (a few
        numbers or a small table), so that memory stays flat over many runs."""
        from ..parallel import run_parallel

        jobs = [(label, tomli_w.dumps(dict(sc)), str(self.out / "runs" / label), keep) for label, sc in items]
        out: list[Any] = [None] * len(jobs)
        for i, value in run_parallel(_run_job, jobs, workers=workers, progress=self.progress,
                                     description=f"{len(jobs)} runs"):
            out[i] = value
        return out

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


def _run_job(job: tuple[str, str, str, Callable[[Result], Any] | None]) -> Any:
    """One job of :meth:`Context.run_many` (module level, so worker processes can run it)."""
    from ..api import run_text

    label, text, folder, keep = job
    result = run_text(text, ".", label=label)
    write_result(result, Path(folder), scenario_text=text)
    return keep(result) if keep is not None else result.summary


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


def jain(xs) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²); 1 for an empty or all-zero list (as the
    simulator's ``jain_index``)."""
    xs = list(xs)
    s, s2 = sum(xs), sum(x * x for x in xs)
    return 1.0 if not xs or s2 == 0 else s * s / (len(xs) * s2)


def load_all() -> None:
    """Imports every experiment module so they register."""
    from . import (  # noqa: F401
        bode, bode_diffserv, dtpa, legilimens, lpt_fifo_vs_cell, pf_fairness, rtac, sneaker_fairness,
        sneaker_prioritization, sneaker_scaling, sorpc, workloads,
    )
