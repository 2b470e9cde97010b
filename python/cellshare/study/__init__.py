"""Studies: designed comparisons that are not a paper's reproduction (``cellshare study``).

A study is a module of this package that registers itself with :func:`study`; every module
of the package is imported by :func:`load_all`, so adding one is adding a file. A study
states its design as data (shown by ``cellshare study --list`` and on its page), runs its
scenarios through :func:`cellshare.parallel.run_parallel` (local cores or Ray), resumes in
its output folder, and reports every number with a 95 % confidence interval
(:func:`ci95`).

The t quantile of the intervals comes from mpmath's regularized incomplete beta function
(:func:`t_quantile`): scipy is not among cellshare's dependencies (a 35 MB wheel for one
function), mpmath is pure Python and already installed wherever sympy or matplotlib's
tool chain is.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence


class StudyError(ValueError):
    """Bad input to a study (a flag, a folder, a design): one line naming it (exit 2)."""


@dataclass(frozen=True)
class Study:
    """A registered study: its name (the CLI's argument), title, the lines stating its
    design (for ``--list``), and its entry points."""

    name: str
    title: str
    design_lines: Callable[[bool], list[str]]
    run: Callable[..., dict]
    render_docs: Optional[Callable[[], list]] = None


_REGISTRY: dict[str, Study] = {}


def study(s: Study) -> Study:
    """Registers `s` (a module of this package calls it at import)."""
    if s.name in _REGISTRY and _REGISTRY[s.name] is not s:
        raise ValueError(f"study {s.name!r} registered twice")
    _REGISTRY[s.name] = s
    return s


def render_committed_docs(src: Path, dst: Path, page: Callable[[dict], str],
                          figures: Callable[[dict, Path], list]) -> list:
    """A study's ``--render-docs``: its page ``dst`` (``page(doc)``) and its figures in
    ``dst``'s ``img/`` (``figures(doc, folder)``, returning the files it wrote) from the
    committed output ``src``; returns the files written (the page only when it changed)."""
    import json

    if not dst.parent.is_dir():
        raise StudyError(f"{dst.parent}: not a folder; --render-docs works in a source tree (a clone)")
    try:
        doc = json.loads(src.read_text())
    except (OSError, ValueError) as e:
        raise StudyError(f"{src}: cannot be read ({e}); expected the committed study output") from None
    changed = list(figures(doc, dst.parent / "img"))
    text = page(doc)
    if not (dst.is_file() and dst.read_text() == text):
        dst.write_text(text)
        changed.append(dst)
    return changed


def load_all() -> None:
    """Imports every module of this package (each registers its study)."""
    for m in pkgutil.iter_modules(__path__):
        if not m.name.startswith("_"):
            importlib.import_module(f"{__name__}.{m.name}")


def all_studies() -> list[Study]:
    load_all()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get(name: str) -> Study:
    load_all()
    if name not in _REGISTRY:
        raise StudyError(f"study {name!r}: no such study; expected one of {', '.join(sorted(_REGISTRY))} "
                         "(cellshare study --list)")
    return _REGISTRY[name]


def t_quantile(p: float, df: int) -> float:
    """The `p` quantile (0.5 < p < 1) of Student's t distribution with `df` degrees of
    freedom: the root of ``1 − ½·I_{df/(df+t²)}(df/2, ½) = p`` (I the regularized incomplete
    beta function, mpmath's ``betainc``)."""
    import mpmath

    if not 0.5 < p < 1 or df < 1:
        raise ValueError(f"t_quantile: p={p!r}, df={df!r}; expected 0.5 < p < 1 and df >= 1")

    def tail(t):
        return mpmath.betainc(df / 2, 0.5, 0, df / (df + t * t), regularized=True) / 2 - (1 - p)

    # Start from the normal quantile (slightly below the t quantile), then Anderson-Björck
    # bracketing between it and a point far beyond.
    z = float(mpmath.sqrt(2) * mpmath.erfinv(2 * p - 1))
    hi = z
    while tail(hi) > 0:
        hi *= 2
    return float(mpmath.findroot(tail, (z * 0.999, hi), solver="anderson"))


@dataclass(frozen=True)
class Interval:
    """A mean over seeds and the half-width of its t-based 95 % confidence interval (None
    with fewer than two finite values)."""

    mean: Optional[float]
    half: Optional[float]
    n: int

    @property
    def low(self) -> Optional[float]:
        return None if self.mean is None or self.half is None else self.mean - self.half

    @property
    def high(self) -> Optional[float]:
        return None if self.mean is None or self.half is None else self.mean + self.half

    def separated_below(self, other: "Interval") -> bool:
        """Whether this whole interval lies below `other`'s (both known)."""
        return self.high is not None and other.low is not None and self.high < other.low


_T_CACHE: dict[int, float] = {}


def ci95(xs: Sequence[Optional[float]]) -> Interval:
    """Mean and t-based 95 % confidence half-width ``t_{0.975, n−1} · s / √n`` (s the sample
    standard deviation) of the finite values of `xs`."""
    import numpy as np

    v = np.array([float(x) for x in xs if x is not None and math.isfinite(x)], dtype=float)
    n = int(v.size)
    if n == 0:
        return Interval(None, None, 0)
    m = float(v.mean())
    if n < 2:
        return Interval(m, None, n)
    if n - 1 not in _T_CACHE:
        _T_CACHE[n - 1] = t_quantile(0.975, n - 1)
    return Interval(m, _T_CACHE[n - 1] * float(v.std(ddof=1)) / math.sqrt(n), n)


def fmt(mean: Optional[float], half: Optional[float]) -> str:
    """`mean ± half` with the digits the interval supports."""
    if mean is None:
        return "–"
    if half is None:
        return f"{mean:.3g}"

    digits = 0 if half == 0 else max(0, 1 - int(math.floor(math.log10(abs(half)))))
    digits = min(digits, 4)
    return f"{mean:.{digits}f} ± {half:.{digits}f}"
