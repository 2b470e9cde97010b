"""cellshare — share a cellular cell between foreground and background traffic.

A fast, deterministic TTI-level LTE cell simulator (Rust) with a thin Python layer::

    import cellshare
    result = cellshare.run("scenarios/two-ues-pf.toml")
    print(result.summary["delivered_mbps"])
    result.flows().to_pylist()          # one dict per flow (pyarrow table)
    result.to_pandas("flows")           # or to_polars: a DataFrame
    cellshare.sweep("sweep.toml", out="out/sweep").to_pandas("runs")

The Python API is imported lazily, so ``from cellshare import _core`` stays light.
"""

from ._core import MemoryLimitExceeded, ScenarioInvalid, __version__

__all__ = ["LlnResult", "MemoryLimitExceeded", "Result", "ScenarioInvalid", "SweepResult", "__version__", "default_scenario",
           "load_scenario", "run", "sweep", "validate"]


def __getattr__(name: str):
    if name in ("Result", "default_scenario", "load_scenario", "run", "validate"):
        from . import api

        return getattr(api, name)
    if name == "LlnResult":
        from . import lln

        return lln.LlnResult
    if name in ("sweep", "SweepResult"):
        from . import sweeps

        return getattr(sweeps, name)
    raise AttributeError(f"module 'cellshare' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API too (it loads lazily), so that tab completion and ``dir()`` offer it."""
    return sorted(set(globals()) | set(__all__))
