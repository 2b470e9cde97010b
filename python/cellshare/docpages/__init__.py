"""Renderers of generated sections that belong to one page each.

Each module here is named after the page whose numbers it renders (``legilimens_ns3`` for
``docs/legilimens-ns3.md``) and defines ``RENDERERS``: name → (renderer, block?), with the
same signature as :data:`cellshare.docgen.RENDERERS` (``fn(artefacts, args) -> str``; a block
renderer's output stands on lines of its own). :mod:`cellshare.docgen` imports every module
of this package and adds its renderers to its own, refusing a name two modules define, so a
page's renderers are one file plus nothing else. A module may use :mod:`cellshare.docgen`'s
helpers (``_Artefacts``, ``_args``, ``DocgenError``): it is imported after they are defined.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Callable


def collect() -> dict[str, tuple[Callable, bool]]:
    """Every renderer of every module of this package, by name; a name defined twice is an error."""
    from ..docgen import DocgenError

    out: dict[str, tuple[Callable, bool]] = {}
    where: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        for name, entry in getattr(mod, "RENDERERS", {}).items():
            if name in out:
                raise DocgenError(f"renderer {name!r} is defined by both cellshare.docpages.{where[name]} "
                                  f"and cellshare.docpages.{info.name}")
            out[name] = entry
            where[name] = info.name
    return out
