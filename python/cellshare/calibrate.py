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


KB, MB = 1024, 1024 * 1024
#: The presets' size classes, (bytes, share of the bytes), as `Preset::mix` in
#: crates/workload/src/lib.rs defines them (Legilimens §V-E, Sneaker §VI, thesis §4.1).
PRESETS = {
    "legilimens": ((64 * KB, 0.10), (MB, 0.30), (32 * MB, 0.60)),
    "sneaker": ((64 * KB, 0.10), (MB, 0.40), (32 * MB, 0.50)),
    "thesis": ((32 * KB, 0.10), (MB, 0.30), (32 * MB, 0.60)),
}
#: `cellshare calibrate` warns when the generated load's expected spread (one standard
#: deviation, relative to the target) exceeds this: the run is then too short for its
#: achieved load to say anything about the estimate.
SPREAD_WARN = 0.10


def _size_classes(arrivals: dict) -> list[tuple[float, float]]:
    mix = arrivals.get("mix")
    if mix:
        return [(float(c["bytes"]), float(c["share"])) for c in mix]
    preset = arrivals.get("preset", "legilimens")
    if isinstance(preset, dict):
        preset = preset.get("kind", "legilimens")
    return list(PRESETS[preset])


def load_spread(arrivals: dict, offered_bytes_per_s: float, duration_s: float) -> float:
    """Relative standard deviation of the bytes a Poisson mix generates in `duration_s`.

    Each size class k (s_k bytes, a share w_k of the bytes) is a Poisson process of rate
    λ_k = w_k·R/s_k for an offered rate R, so the bytes generated over T have mean R·T and
    variance Σ λ_k·T·s_k² = R·T·Σ w_k·s_k; the ratio is √(Σ w_k·s_k / (R·T)). Dominated by
    the largest flows: `scenarios/workload-at-scale.toml` at 60 % load (41 Mbit/s offered, the
    Legilimens mix with 60 % of the bytes in 32 MB flows) gives 0.63 over 10 s, 0.18 over 2
    minutes and 0.07 over the papers' 15 (docs/workloads.md shows the achieved loads over
    seeds, from `tools/data/workload.json`)."""
    if offered_bytes_per_s <= 0 or duration_s <= 0:
        return float("inf")
    m = sum(w * s for s, w in _size_classes(arrivals)) / sum(w for _, w in _size_classes(arrivals))
    return (m / (offered_bytes_per_s * duration_s)) ** 0.5


def duration_for_spread(arrivals: dict, offered_bytes_per_s: float, spread: float = SPREAD_WARN) -> float:
    """The run length whose :func:`load_spread` is `spread`."""
    m = sum(w * s for s, w in _size_classes(arrivals)) / sum(w for _, w in _size_classes(arrivals))
    return m / (offered_bytes_per_s * spread ** 2)


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
    the estimated capacity, offered and delivered Mbps, flows generated and completed, and
    the spread Poisson arrivals alone give the load over this duration (`load_spread`)."""
    rows = []
    for load in loads:
        for seed in (seeds or [None]):
            sc = calibration_scenario(text, load, seed, duration)
            r = run_text(sc, base_dir, label=f"load {load:g}")
            w = r.summary["workload"]
            arrivals = tomllib.loads(sc)["workload"]["arrivals"]
            offered = w["offered_mbps"] * 1e6 / 8
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
                # Expected one-sigma spread of the generated load (relative), and the
                # duration that brings it to SPREAD_WARN (see load_spread).
                "load_spread": load_spread(arrivals, offered, r.summary["duration_s"]),
                "duration_for_10pc_s": duration_for_spread(arrivals, offered) if offered > 0 else None,
            })
    return rows
