"""cellshare — share a cellular cell between foreground and background traffic.

A fast, deterministic TTI-level LTE cell simulator (Rust) with a thin Python layer::

    import cellshare
    result = cellshare.run("scenarios/two-ues-pf.toml")
    print(result.summary["delivered_mbps"])
    result.flows().to_pylist()          # one dict per flow (pyarrow table)

The Python API is imported lazily, so ``from cellshare import _core`` stays light.
"""

from ._core import ScenarioInvalid, __version__

__all__ = ["Result", "ScenarioInvalid", "__version__", "default_scenario", "load_scenario", "run"]


def __getattr__(name: str):
    if name in ("Result", "default_scenario", "load_scenario", "run"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'cellshare' has no attribute {name!r}")
