"""Renderers of generated sections that belong to one page each.

Each module here is named after the page whose numbers it renders (``legilimens_ns3`` for
``docs/legilimens-ns3.md``) and defines ``RENDERERS``: name → (renderer, block?), with the
same signature as :data:`cellshare.docgen.RENDERERS` (``fn(artefacts, args) -> str``; a block
renderer's output stands on lines of its own). :mod:`cellshare.docgen` imports every module
of this package (:func:`modules`) and adds their renderers to its own, refusing a name defined
twice, so a page's renderers are one file plus nothing else. A module may use :mod:`cellshare.docgen`'s
helpers (``_Artefacts``, ``_args``, ``DocgenError``): it is imported after they are defined.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Callable


def modules() -> list[tuple[str, dict[str, tuple[Callable, bool]]]]:
    """Each module of this package, by name, with its ``RENDERERS`` (sorted by module name).
    :mod:`cellshare.docgen` adds them to its own and refuses a name defined twice; this package
    does not import docgen, only its modules do (they stand above it)."""
    out = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        out.append((info.name, dict(getattr(mod, "RENDERERS", {}))))
    return out
