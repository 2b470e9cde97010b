"""What the report and its application sections share: reading the files of a cellshare
output folder (each damaged or unexpected file a :class:`ReportError` naming it and what was
expected; numbers bounded to what a figure can draw), drawing (tables of a figure's numbers,
plain-number log axes), and what a module of sections sees of the report (:class:`ReportPage`)."""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any, Optional, Protocol, Sequence

import pyarrow as pa
import pyarrow.parquet as pq


class ReportError(ValueError):
    """A folder or option the report cannot use; the message says what was expected."""


class ReportPage(Protocol):
    """The report being written, as a module of sections (:mod:`cellshare.report_apps`) uses
    it: its data (`d`: the runs, their folders, the scheme and load parameters), its folder
    (`out`), pyplot with the report's style (`plt`), the schemes in order and their colours,
    a run's scheme and load (`_s`, `_l`), and `_section`, which adds a figure with its
    caption and the table of its numbers, and `save`, which saves a figure in the folder as
    PNG and PDF."""

    d: Any
    out: Path
    plt: Any
    schemes: list
    colors: dict

    def _s(self, r: dict) -> Any: ...

    def _l(self, r: dict) -> Any: ...

    def _section(self, title: str, img: Optional[str], caption: str, table: str) -> None: ...

    def save(self, fig: Any, stem: str) -> str: ...


def _damaged(path: Path, e: BaseException) -> ReportError:
    why = "nested too deeply" if isinstance(e, RecursionError) else " ".join(str(e).split())[:200]
    return ReportError(f"{path}: cannot be read ({type(e).__name__}: {why}); expected the file as "
                       f"cellshare wrote it (rerun the command that made the folder)")


def read_output(path: Path, read):
    """`read(path)` of a file in an output folder; a missing or damaged file is a ReportError
    naming it."""
    try:
        return read(path)
    # also JSON, TOML and UTF-8 errors, and JSON or TOML nested deeper than Python's parsers go
    except (OSError, pa.ArrowException, ValueError, RecursionError) as e:
        raise _damaged(path, e) from None


def parquet(path: Path, **kw) -> pa.Table:
    """A table of an output folder (:func:`read_output`)."""
    return read_output(path, lambda p: pq.read_table(p, **kw))


def table_of_text(path: Path, parse) -> dict:
    """A JSON or TOML file of an output folder that must hold a table (dict) (:func:`read_output`)."""
    doc = read_output(path, lambda p: parse(p.read_text()))
    if not isinstance(doc, dict):
        raise ReportError(f"{path}: got a {type(doc).__name__}, expected a table (the file as cellshare wrote it)")
    return doc


def unexpected(path: Path, what: str) -> ReportError:
    """A ReportError: the file at `path` is not as cellshare writes it (`what` says how)."""
    expected = "" if "expected" in what else "; expected the file as cellshare wrote it"
    return ReportError(f"{path}: {what}{expected} (rerun the command that made the folder)")


#: What a column of a runs or flows table must hold: pyarrow type tests by kind.
_KINDS = {
    "text": (pa.types.is_string, pa.types.is_large_string, pa.types.is_null),
    "number": (pa.types.is_integer, pa.types.is_floating, pa.types.is_null),
    "integer": (pa.types.is_integer, pa.types.is_null),
    "boolean": (pa.types.is_boolean, pa.types.is_null),
    "scalar": (pa.types.is_string, pa.types.is_large_string, pa.types.is_integer, pa.types.is_floating,
               pa.types.is_boolean, pa.types.is_null),
}
#: The type a column of each kind is read as.
ARROW = {"text": pa.string(), "number": pa.float64(), "integer": pa.int64(), "boolean": pa.bool_()}


def check_columns(path: Path, schema: pa.Schema, required: dict, optional: Optional[dict] = None) -> None:
    """Every column of `required` (name -> kind) is in `schema`, and it and every column of
    `optional` present holds its kind (a dictionary-encoded column counts as its values);
    else a ReportError naming the file and the column."""
    for name, kind in (*required.items(), *(optional or {}).items()):
        if name not in schema.names:
            if name in required:
                raise unexpected(path, f"no column {name!r}")
            continue
        typ = schema.field(name).type
        if pa.types.is_dictionary(typ):
            typ = typ.value_type
        if not any(test(typ) for test in _KINDS[kind]):
            raise unexpected(path, f"column {name!r} holds {typ}, not {kind} values")


#: Largest magnitude of a number the report draws (ms, s, Mbit/s, kbit/s, a fraction): far
#: beyond any run's (at most 86,400 s simulated, rates of Tbit/s). Matplotlib cannot lay out
#: an axis reaching a float's limit (1.8e308), so a larger number is a damaged file.
MAX_DRAWN = 1e12


def cast(path: Path, table: pa.Table, name: str, typ: pa.DataType, bounded: Optional[bool] = None) -> pa.Table:
    """`table` with column `name` (when present) cast to `typ`: integers to floats as near as
    floats go, an integer too large for 64 bits a ReportError naming the file and column.
    A `bounded` column (by default a float one) may not hold a finite number beyond
    :data:`MAX_DRAWN` (NaN and infinities are missing values)."""
    import numpy as np

    if name not in table.column_names:
        return table
    try:
        col = table.column(name).cast(typ, safe=not pa.types.is_floating(typ))
    except pa.ArrowException as e:
        raise unexpected(path, f"column {name!r}: {' '.join(str(e).split())[:120]}") from None
    if bounded or (bounded is None and pa.types.is_floating(typ)):
        v = np.asarray(col.to_numpy(zero_copy_only=False), dtype=float)
        with np.errstate(invalid="ignore"):
            bad = np.flatnonzero(np.isfinite(v) & (np.abs(v) > MAX_DRAWN))
        if bad.size:
            raise unexpected(path, f"column {name!r} holds {v[bad[0]]:g} (row {bad[0]}), beyond ±{MAX_DRAWN:g}")
    return table.set_column(table.column_names.index(name), name, col)


def bounded(path: Path, key: str, v: Optional[float]) -> Optional[float]:
    """A number of a summary: finite and within :data:`MAX_DRAWN`, else missing (None) for NaN
    and infinities, a ReportError naming the key for a larger finite one."""
    if v is None or not math.isfinite(v):
        return None
    if abs(v) > MAX_DRAWN:
        raise unexpected(path, f"`{key}` is {v:g}, beyond ±{MAX_DRAWN:g}")
    return v


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        if v != v:
            return "–"
        if abs(v) >= 100:
            return f"{v:.1f}"
        if abs(v) >= 1:
            return f"{v:.3g}" if abs(v) < 10 else f"{v:.2f}"
        return f"{v:.3g}"
    return str(v)


def table_html(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    h = "".join(f"<th>{html.escape(str(c))}</th>" for c in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(c() if callable(c) else c))}</td>" for c in row)
                   + "</tr>" for row in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>"


def finite(xs) -> list[float]:
    """The finite numbers of `xs` (None, NaN and infinities left out)."""
    return [float(x) for x in xs if x is not None and math.isfinite(x)]


def mean(xs) -> Optional[float]:
    """The mean of the finite numbers of `xs`; None without one."""
    import numpy as np

    v = finite(xs)
    return float(np.mean(v)) if v else None


def plain_log(axis, locator=None) -> None:
    """Log-axis labels as plain numbers (1, 10, 100), no minor labels."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(locator or LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())
