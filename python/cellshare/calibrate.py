"""`cellshare calibrate`: run a scenario's workload alone at several target loads and report
the PRB utilization each achieves, so the load axis of an experiment can be trusted.

For each target load ρ the scenario's ``[workload]`` (it must have ``arrivals = { kind =
"poisson", ... }``) gets ``load = ρ``, every ``[[flows]]`` entry is removed (the foreground
workload alone), and the run's PRB utilization over its whole duration is the achieved load.
How ρ becomes an arrival rate is described in ``crates/sim/src/load.rs`` (and the scenario
reference, ``[workload]``).
"""

from __future__ import annotations

from typing import Any, Sequence

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

import tomli_w

from . import _core
from .api import run_text


def calibration_scenario(text: str, load: float, seed: int | None = None, duration: float | None = None) -> str:
    """The scenario `text` with its workload alone at target `load` (TOML text)."""
    doc = tomllib.loads(text)
    wl = doc.get("workload")
    if not isinstance(wl, dict):
        raise _core.ScenarioInvalid("workload: got nothing, expected a [workload] table to calibrate", "workload", "")
    arrivals = wl.setdefault("arrivals", {"kind": "poisson"})
    if arrivals.get("kind", "poisson") != "poisson":
        raise _core.ScenarioInvalid(
            f"workload.arrivals.kind: got {arrivals.get('kind')!r}, expected \"poisson\" (only a Poisson mix has a target load)",
            "workload.arrivals.kind", "")
    arrivals["load"] = float(load)
    doc.pop("flows", None)
    sim = doc.setdefault("simulation", {})
    if seed is not None:
        sim["seed"] = seed
    if duration is not None:
        sim["duration_s"] = duration
    sim["trace_interval_ms"] = 0
    return tomli_w.dumps(doc)


def calibrate(text: str, base_dir: str, loads: Sequence[float], seeds: Sequence[int] | None = None,
              duration: float | None = None) -> list[dict[str, Any]]:
    """Runs the workload of scenario `text` alone at each target load (and each seed; default
    the scenario's) and returns one row per (load, seed): target, achieved PRB utilization,
    the estimated capacity, offered and delivered Mbps, flows generated and completed."""
    rows = []
    for load in loads:
        for seed in (seeds or [None]):
            sc = calibration_scenario(text, load, seed, duration)
            r = run_text(sc, base_dir, label=f"load {load:g}")
            w = r.summary["workload"]
            flows = r.summary["flows"]
            rows.append({
                "target": float(load),
                "seed": r.summary["seed"],
                "achieved": r.summary["prb_utilization"],
                "error_pp": 100.0 * (r.summary["prb_utilization"] - load),
                "capacity_mbps": w["capacity_mbps"],
                "offered_mbps": w["offered_mbps"],
                "generated_mbps": w["generated_mbps"],
                "delivered_mbps": r.summary["delivered_mbps"],
                "flows": sum(w["flows"]),
                "completed": sum(1 for f in flows if f["completed"]),
                "duration_s": r.summary["duration_s"],
            })
    return rows
