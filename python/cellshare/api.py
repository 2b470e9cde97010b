"""Running scenarios from Python: the same runs the CLI does, as objects and tables."""

from __future__ import annotations

import collections.abc
import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional, Union

import pyarrow as pa

from . import _core
# Reading scenarios needs no pyarrow: those helpers live in `scenario_files` (the CLI's checks
# import them alone) and are part of this API.
from .scenario_files import (MAX_SCENARIO_BYTES, ScenarioSource, default_scenario, embedded,  # noqa: F401
                             load_scenario, read_scenario_file, scenario_text, toml_loads, without_line)

if TYPE_CHECKING:
    from .lln import LlnResult

#: Keys of summary.json that depend on the wall clock (excluded from determinism checks).
WALL_CLOCK_KEYS = ("sim_speed", "wall_s")


_SERIES_KEYS = ("per_second_mbps", "trace", "mode_changes")

#: The result contract the extension describes (``_core.result_contract()``): every table with
#: its columns (name, Arrow type, unit, meaning, when present) and every summary key. The
#: schemas, the accessors, :attr:`Result.TABLES`, the files a run writes and
#: docs/output-reference.md are built from it.
CONTRACT: dict = json.loads(_core.result_contract())
#: The contract's tables by name, in order.
TABLE_DEFS: dict[str, dict] = {t["name"]: t for t in CONTRACT["tables"]}


def _schema(columns: list[dict], network: bool = False) -> pa.Schema:
    """The pyarrow schema of contract `columns` (those present only in a network with
    `network`; columns of tables whose types pyarrow infers are never asked for)."""
    return pa.schema([(c["name"], pa.type_for_alias(c["type"])) for c in columns
                      if not c["only"] or (network and c["only"] == "network")])


#: The schema of each table built with one (``flows`` and ``classes`` take the types pyarrow
#: infers from the summary); ``ue_trace`` without a network's place columns.
SCHEMAS: dict[str, pa.Schema] = {name: _schema(t["columns"]) for name, t in TABLE_DEFS.items() if not t["inferred"]}
#: A network's per-UE trace adds where the UE is and which cell serves it.
_UE_PLACE_SCHEMA = _schema(TABLE_DEFS["ue_trace"]["columns"], network=True)
#: Where each `ue_trace` sample was taken, in a network: spooled beside `ue_trace`, row for
#: row, and joined to it as its last four columns (:meth:`Result.ue_trace`).
_UE_PLACE_SPOOL_SCHEMA = _schema(CONTRACT["ue_place"], network=True)
#: Tables the simulator keeps out of the summary (in its spool) and hands over in batches.
SPOOLED_SCHEMAS = {name: SCHEMAS[name] for name, t in TABLE_DEFS.items() if t["source"]["kind"] == "spool"}
#: The per-event tables of the apps of docs/apps.md: table -> (summary key, column of each
#: session's events).
_SESSION_TABLES = {name: (t["source"]["key"], t["source"]["events"]) for name, t in TABLE_DEFS.items()
                   if t["source"]["kind"] == "session"}
_SESSION_KEYS = tuple(key for key, _ in _SESSION_TABLES.values())


def _nested_table(parents: list[dict], key: str, parent_cols: dict[str, str], schema: pa.Schema) -> pa.Table:
    """One row per sample in every parent's ``parent[key]`` (a mapping of equally long
    columns, as the simulator writes its traces): the columns named in `parent_cols`
    (column -> parent field) repeat the parent's value, the rest of `schema` come from the
    sample columns."""
    cols: dict[str, list] = {name: [] for name in schema.names}
    own = [name for name in schema.names if name not in parent_cols]
    for p in parents:
        rec = p[key]
        n = len(rec[own[0]])
        for col, field_name in parent_cols.items():
            cols[col].extend([p[field_name]] * n)
        for col in own:
            cols[col].extend(rec[col])
    return pa.table(cols, schema=schema)


_RTT_KEYS = ("count", "mean", "p50", "p99", "max")


def _distinct_classes(classes: list[dict]) -> list[dict]:
    """The summary's classes: foreground, background, and one per DSCP value — unless every
    flow carries the same DSCP, whose class would repeat the all-flow totals (``dscp0`` in
    almost every scenario). :meth:`Result.class_` still finds it by name."""
    dscp = [c for c in classes if c["class"].startswith("dscp")]
    return [c for c in classes if len(dscp) > 1 or c not in dscp]


def _flow_summary(f: dict) -> dict:
    """A flow's summary entry: everything but its series; an app keeps its RTT statistics
    (the per-request lists go to the ``requests`` table)."""
    out = {k: v for k, v in f.items() if k not in _SERIES_KEYS}
    # A flow without RTT samples (a CBR/UDP flow) has no RTT: null, not zeros.
    if isinstance(out.get("rtt_ms"), dict) and not out["rtt_ms"].get("count"):
        out["rtt_ms"] = None
    if "app" in out:
        out["app"] = {k: v for k, v in out["app"].items() if k not in ("t_s", "rtt_ms")}
    return out


#: Rows per batch when a spooled table is read or written: pyarrow's default row-group size,
#: so a table written batch by batch is byte for byte what ``pq.write_table`` writes.
BATCH_ROWS = 1024 * 1024


def _arrow_batch(schema: pa.Schema, n: int, cols: list) -> pa.RecordBatch:
    """A record batch from the Arrow buffers the extension returns (no copy)."""
    arrays = []
    for f, c in zip(schema, cols):
        if c[0] == "utf8":
            arrays.append(pa.Array.from_buffers(f.type, n, [None, pa.py_buffer(c[1]), pa.py_buffer(c[2])]))
        else:
            _, valid, nulls, data = c
            arrays.append(pa.Array.from_buffers(f.type, n, [None if valid is None else pa.py_buffer(valid),
                                                            pa.py_buffer(data)], null_count=nulls))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


class _SpooledSeries(collections.abc.Sequence):
    """A flow's or UE's ``per_second_mbps``, read from the run's spool when first used
    (indexing, slicing, len, iteration work as on the list it replaces; pickles as a list)."""

    def __init__(self, data, table: str, owner: int) -> None:
        self._data, self._table, self._owner, self._list = data, table, owner, None

    def _values(self) -> list:
        if self._list is None:
            self._list = self._data.column(self._table, self._owner, "mbps")
        return self._list

    def __getitem__(self, i):
        return self._values()[i]

    def __len__(self) -> int:
        return len(self._values())

    def __eq__(self, other) -> bool:
        return list(self) == (list(other) if isinstance(other, collections.abc.Sequence) else other)

    def __repr__(self) -> str:
        return repr(self._values())

    def __reduce__(self):
        return (list, (self._values(),))


class _SpooledColumns(collections.abc.Mapping):
    """A flow's ``trace`` or ``mode_changes`` (or a UE's ``trace``): column name -> list,
    each read from the run's spool when asked for (pickles as a dict of lists)."""

    def __init__(self, data, table: str, owner: int, columns: tuple) -> None:
        self._data, self._table, self._owner, self._columns = data, table, owner, columns

    def __getitem__(self, col: str) -> list:
        if col not in self._columns:
            raise KeyError(col)
        return self._data.column(self._table, self._owner, col)

    def __iter__(self):
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)

    def __repr__(self) -> str:
        return f"<{self._table} of {self._owner}: {', '.join(self._columns)}>"

    def __reduce__(self):
        return (dict, ({k: self[k] for k in self._columns},))


def _summary_of(result: "Result") -> dict:
    """`result`'s summary: the contract's summary keys in order, each as the simulator gave it
    or as :data:`_DERIVED` computes it."""
    r = result.raw
    out: dict = {}
    for k in CONTRACT["summary"]:
        name, presence = k["name"], k["presence"]
        if presence == "network" and r.get("cells") is None:
            continue
        if presence == "sessions" and not r.get(name):
            continue
        if k["derived"]:
            out[name] = _DERIVED[name](result)
        elif presence == "always":
            out[name] = r[name]
        else:
            out[name] = r.get(name)
    return out


def _session_summaries(key: str):
    events = next(ev for k, ev in _SESSION_TABLES.values() if k == key)
    return lambda res: [{k: v for k, v in s.items() if k != events} for s in res.raw[key]]


#: The summary keys the Python layer computes (the contract marks them ``derived``).
_DERIVED = {
    "sim_speed": lambda res: res.raw["duration_s"] / res.wall_s if res.wall_s > 0 else float("inf"),
    "wall_s": lambda res: res.wall_s,
    "flows": lambda res: [_flow_summary(f) for f in res.raw["flows"]],
    "ues": lambda res: [{k: v for k, v in u.items() if k not in _SERIES_KEYS} for u in res.raw["ues"]],
    "classes": lambda res: _distinct_classes(res.raw["classes"]),
    "handovers": lambda res: len(res.raw["handovers"]["t_s"]),
    **{key: _session_summaries(key) for key in _SESSION_KEYS},
}


def _percentile_columns(row: dict, prefix: str, stats: Optional[dict], *, null_count: bool = False) -> None:
    """Flattens delay percentiles `stats` (count, mean, p50, p99, max) into `row` as
    ``<prefix>_samples`` and ``<prefix>_<stat>_ms``; with `null_count` missing stats are
    null with a count of 0 (a flow without RTT samples)."""
    keys = _RTT_KEYS if null_count else (stats or {}).keys()
    for k in keys:
        v = (stats or {}).get(k, 0 if k == "count" else None)
        row[f"{prefix}_{k}_ms" if k != "count" else f"{prefix}_samples"] = v


def _flows_table(res: "Result") -> pa.Table:
    rows = []
    for f in res.summary["flows"]:
        row = {k: v for k, v in f.items() if k not in ("queue_delay_ms", "queue_wait_ms", "rtt_ms", "one_way_delay_ms", "app")}
        if "app" in f:
            for k, v in f["app"].items():
                row[f"app_{k}"] = v
        _percentile_columns(row, "queue_delay", f["queue_delay_ms"])
        _percentile_columns(row, "queue_wait", f["queue_wait_ms"])
        _percentile_columns(row, "rtt", f.get("rtt_ms"), null_count=True)
        _percentile_columns(row, "one_way_delay", f.get("one_way_delay_ms", {}))
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=None) if rows else pa.table({})


def _classes_table(res: "Result") -> pa.Table:
    rows = []
    for c in res.summary["classes"]:
        row = {k: v for k, v in c.items() if k != "queue_delay_ms"}
        _percentile_columns(row, "queue_delay", c["queue_delay_ms"])
        rows.append(row)
    return pa.Table.from_pylist(rows)


#: The rows of the summary-sourced tables, built from the summary lists.
_SUMMARY_TABLES = {"flows": _flows_table, "classes": _classes_table}
#: Where the raw (unspooled) results keep the spooled tables: table -> (owner list, key).
_RAW_SPOOLED = {"flow_trace": ("flows", "trace"), "mode_changes": ("flows", "mode_changes"), "ue_trace": ("ues", "trace"),
                "flow_series": ("flows", "per_second_mbps"), "ue_series": ("ues", "per_second_mbps")}


def _raw_spooled(res: "Result", name: str) -> pa.Table:
    """Spooled table `name` from results that were never spooled (`raw` holds every list)."""
    owners, key = _RAW_SPOOLED[name]
    parents = res.raw[owners]
    if name in ("flow_series", "ue_series"):
        schema = SCHEMAS[name]
        cols: dict[str, list] = {n: [] for n in schema.names}
        for p in parents:
            first = p.get("series_start_s", 0) if name == "flow_series" else 0
            n = len(p[key])
            for c in schema.names[:-2]:  # the owner's columns, then second and mbps
                cols[c].extend([p["id" if c in ("flow", "ue") else c]] * n)
            cols["second"].extend(range(first, first + n))
            cols["mbps"].extend(p[key])
        return pa.table(cols, schema=schema)
    schema = SCHEMAS[name]
    if name == "ue_trace" and parents and "x_m" in parents[0]["trace"]:
        schema = _UE_PLACE_SCHEMA
    owner_cols = {"flow": "id", "name": "name"} if owners == "flows" else {"ue": "id"}
    return _nested_table(parents, key, owner_cols, schema)


def _table_doc(name: str) -> str:
    """The docstring of accessor `name`, from the contract."""
    t = TABLE_DEFS[name]
    rows = t["rows"].removeprefix("one ")
    lines = [f"Table ``{name}``, one row {rows}." + (f" {t['meaning']}" if t["meaning"] else ""), "", "Columns:", ""]
    for c in t["columns"]:
        unit = f", {c['unit']}" if c["unit"] else ""
        only = f" (only when {c['only']})" if c["only"] else ""
        lines.append(f"- ``{c['name']}`` ({c['type']}{unit}): {c['meaning']}{only}")
    lines += ["", "See docs/output-reference.md."]
    return "\n".join(lines)


@dataclass(repr=False)
class Result:
    """Results of one run: the summary (what summary.json holds) and tables.

    ``Result.TABLES`` names every table (each also a method of the same name returning a
    pyarrow table); :meth:`tables` those this run has (what ``cellshare run --out`` writes).
    Every table and column is described in docs/output-reference.md."""

    raw: dict
    wall_s: float
    #: The extension's ``RunData`` holding the bulky tables (None: they are in `raw`).
    data: Any = field(default=None, repr=False)
    summary: dict = field(init=False)

    #: Every table :meth:`table` knows, each also the method of the same name.
    TABLES = tuple(TABLE_DEFS)

    def __post_init__(self) -> None:
        r = self.raw
        if self.data is not None:
            # The bulky per-flow and per-UE lists stay in the spool until used.
            own = {t: tuple(n for n in s.names if n not in ("flow", "name", "ue")) for t, s in SPOOLED_SCHEMAS.items()}
            for i, f in enumerate(r["flows"]):
                f["per_second_mbps"] = _SpooledSeries(self.data, "flow_series", i)
                f["trace"] = _SpooledColumns(self.data, "flow_trace", i, own["flow_trace"])
                f["mode_changes"] = _SpooledColumns(self.data, "mode_changes", i, own["mode_changes"])
            for i, u in enumerate(r["ues"]):
                u["per_second_mbps"] = _SpooledSeries(self.data, "ue_series", i)
                u["trace"] = _SpooledColumns(self.data, "ue_trace", i, own["ue_trace"])
        self.summary = _summary_of(self)

    def __repr__(self) -> str:
        s = self.summary
        qd = s.get("queue_delay_ms") or {}

        def num(v: Any, fmt: str) -> str:
            return format(v, fmt) if isinstance(v, (int, float)) else "n/a"

        return (f"<cellshare.Result {s['scenario']!r}: {num(s['duration_s'], 'g')} s simulated, seed {s['seed']}, "
                f"{len(s['flows'])} flows, {len(s['ues'])} UEs; delivered {num(s['delivered_mbps'], '.2f')} Mbit/s, "
                f"queue delay p50 {num(qd.get('p50'), '.2f')} ms p99 {num(qd.get('p99'), '.2f')} ms, "
                f"Jain {num(s['jain_index'], '.3f')}; tables: {', '.join(self.tables())}>")

    def _repr_pretty_(self, p, cycle: bool) -> None:
        """IPython shows the short repr too (not the dataclass's fields)."""
        p.text(repr(self))

    # -- tables -----------------------------------------------------------------------
    def tables(self) -> tuple[str, ...]:
        """The tables this run has, in the order of :attr:`TABLES`: those ``cellshare run
        --out`` writes (``handovers`` with ``[network]``, ``requests`` with an interactive
        app, an app's event table with its sessions, the rest always)."""
        r = self.raw
        has = {
            "always": lambda t: True,
            "network": lambda t: r.get("handovers") is not None,
            "apps": lambda t: any("app" in f for f in r["flows"]),
            "sessions": lambda t: bool(r.get(t["source"]["key"])),
        }
        return tuple(name for name, t in TABLE_DEFS.items() if has[t["written"]](t))

    def table(self, name: str) -> pa.Table:
        """The table called `name` (one of :attr:`TABLES`) as a pyarrow table."""
        t = TABLE_DEFS.get(name) if isinstance(name, str) else None
        if t is None:
            raise ValueError(f"table {name!r}: expected one of {', '.join(self.TABLES)}")
        kind = t["source"]["kind"]
        if kind == "summary":
            return _SUMMARY_TABLES[name](self)
        if kind == "spool":
            return self._spooled(name)
        return getattr(self, f"_{kind}_table")(name)

    def class_(self, name: str) -> dict:
        """The summary of traffic class `name` (``"foreground"``, ``"background"``,
        ``"dscp0"``, ...)."""
        for c in self.raw["classes"]:
            if c["class"] == name:
                return c
        raise KeyError(name)

    def iter_batches(self, name: str, max_rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
        """Table `name` as record batches of at most `max_rows` rows, read from the spool one
        at a time for the bulky tables (``SPOOLED_SCHEMAS``), so a long run's traces can be
        written or scanned without holding them all. Yields nothing for an empty table."""
        if name == "ue_trace" and self.data is not None and self.data.rows("ue_place") > 0:
            yield from self._placed_ue_trace_batches(max_rows)
            return
        if self.data is not None and name in SPOOLED_SCHEMAS:
            schema, start, total = SPOOLED_SCHEMAS[name], 0, self.data.rows(name)
            while start < total:
                # No local keeps the batch's buffers while the caller holds the batch: the
                # previous batch is gone before the next is built.
                batch = _arrow_batch(schema, *self.data.batch(name, start, max_rows))
                start += batch.num_rows
                yield batch
                del batch
            return
        yield from self.table(name).to_batches(max_chunksize=max_rows)

    def _placed_ue_trace_batches(self, max_rows: int) -> Iterator[pa.RecordBatch]:
        """A network's `ue_trace` batches: the queue samples with where each was taken (the
        `ue_place` spool table, written row for row with `ue_trace`)."""
        total = self.data.rows("ue_trace")
        if self.data.rows("ue_place") != total:
            raise RuntimeError(f"ue_place has {self.data.rows('ue_place')} rows, ue_trace {total}")
        start = 0
        while start < total:
            q = _arrow_batch(SPOOLED_SCHEMAS["ue_trace"], *self.data.batch("ue_trace", start, max_rows))
            p = _arrow_batch(_UE_PLACE_SPOOL_SCHEMA, *self.data.batch("ue_place", start, max_rows))
            if q.num_rows != p.num_rows or q.column(0) != p.column(0):
                raise RuntimeError("ue_place and ue_trace rows differ")
            batch = pa.RecordBatch.from_arrays(list(q.columns) + list(p.columns[2:]), schema=_UE_PLACE_SCHEMA)
            start += batch.num_rows
            del q, p
            yield batch
            del batch

    def schema(self, name: str) -> pa.Schema:
        """The schema of table `name` in this run (``ue_trace`` has the place columns in a
        network; ``flows`` and ``classes`` have the types pyarrow infers from the summary)."""
        if name == "ue_trace":
            return self._ue_trace_schema()
        if name in SCHEMAS:
            return SCHEMAS[name]
        return self.table(name).schema

    def _spooled(self, name: str) -> pa.Table:
        if self.data is None:
            return _raw_spooled(self, name)
        return pa.Table.from_batches(list(self.iter_batches(name)), schema=self.schema(name))

    def _ue_trace_schema(self) -> pa.Schema:
        """`ue_trace`'s schema: with the place columns in a network (spooled as `ue_place`)."""
        if self.data is None:
            ues = self.raw["ues"]
            return _UE_PLACE_SCHEMA if ues and "x_m" in ues[0]["trace"] else SCHEMAS["ue_trace"]
        return _UE_PLACE_SCHEMA if self.data.rows("ue_place") > 0 else SCHEMAS["ue_trace"]

    def _cell_series_table(self, name: str) -> pa.Table:
        s = self.raw["series"]
        n = len(s["delivered_mbps"])
        return pa.table({"second": list(range(n)), "delivered_mbps": s["delivered_mbps"],
                         "prb_utilization": s["prb_utilization"] or [None] * n,
                         "prb_used_share_of_all": s.get("prb_used_share_of_all") or [None] * n}, schema=SCHEMAS[name])

    def _cdf_table(self, name: str) -> pa.Table:
        pts = self.raw["series"]["queue_delay_cdf"]
        return pa.table({"delay_ms": [p[0] for p in pts], "fraction": [p[1] for p in pts]}, schema=SCHEMAS[name])

    def _handovers_table(self, name: str) -> pa.Table:
        schema = SCHEMAS[name]
        h = self.raw.get("handovers") or {c: [] for c in schema.names}
        return pa.table({c: h[c] for c in schema.names}, schema=schema)

    def _requests_table(self, name: str) -> pa.Table:
        schema = SCHEMAS[name]
        cols: dict[str, list] = {c: [] for c in schema.names}
        for f in self.raw["flows"]:
            app = f.get("app")
            if not app:
                continue
            n = len(app["rtt_ms"])
            cols["flow"].extend([f["id"]] * n)
            cols["name"].extend([f["name"]] * n)
            cols["kind"].extend([app["kind"]] * n)
            cols["t_s"].extend(app["t_s"])
            cols["rtt_ms"].extend(app["rtt_ms"])
        return pa.table(cols, schema=schema)

    def _session_table(self, name: str) -> pa.Table:
        key, events = _SESSION_TABLES[name]
        return _nested_table(self.raw.get(key) or [], events, {"flow": "flow", "name": "name", "ue": "ue"},
                             SCHEMAS[name])

    def to_pandas(self, name: str = "flows"):
        """The table called `name` (see :attr:`TABLES`) as a pandas DataFrame (needs pandas)."""
        from .frames import to_pandas

        return to_pandas(self.table(name))

    def to_polars(self, name: str = "flows"):
        """The table called `name` (see :attr:`TABLES`) as a polars DataFrame (needs polars)."""
        from .frames import to_polars

        return to_polars(self.table(name))

    def session(self, name: str) -> dict:
        """The summary of the app session (video call, stream, web) whose flow is `name`."""
        for key in _SESSION_KEYS:
            for s in self.summary.get(key, []):
                if s["name"] == name:
                    return s
        raise KeyError(name)

    def flow(self, name: str) -> dict:
        """The summary of the flow called `name`."""
        for f in self.raw["flows"]:
            if f["name"] == name:
                return f
        raise KeyError(name)


def _accessor(name: str):
    def get(self: Result) -> pa.Table:
        return self.table(name)

    get.__name__ = name
    get.__qualname__ = f"Result.{name}"
    get.__doc__ = _table_doc(name)
    return get


# One method per table of the contract (`result.flow_trace()` is `result.table("flow_trace")`).
for _name in TABLE_DEFS:
    setattr(Result, _name, _accessor(_name))
del _name


def _interactive() -> bool:
    return sys.stderr.isatty() and os.environ.get("CI") is None


def run(scenario: ScenarioSource | None = None, *, base_dir: str | os.PathLike | None = None, progress: bool = False,
        label: str = "simulating", limits: Optional[Mapping[str, int]] = None) -> Union[Result, "LlnResult"]:
    """Runs a scenario and returns its :class:`Result` — or, for an LLN scenario (one with an
    ``lln`` table, as ``cellshare run`` runs it), a :class:`cellshare.lln.LlnResult`.

    `scenario` is a TOML file's path, a mapping, or ``None`` for the embedded default. A
    mapping holds the TOML keys as nested dicts and lists: a ``[table]`` is a dict, an
    ``[[array]]`` a list of dicts, an inline table ``{ kind = "pf" }`` a dict too. Every key
    and its default is in the scenario reference (docs/scenario-reference.md; ``cellshare
    scenario-reference`` prints it). For example, two UEs on 20 Mbit/s channels under
    proportional fair scheduling, each saturated by a constant-bit-rate source::

        result = cellshare.run({
            "name": "two-ues-pf",
            "simulation": {"duration_s": 20.0, "seed": 1},
            "cell": {"bandwidth_mhz": 10, "scheduler": {"kind": "pf"}},
            "ues": [{"count": 2, "channel": {"kind": "fixed", "rate_mbps": 20.0}}],
            "flows": [{"ues": "all", "transport": {"kind": "cbr", "rate_mbps": 30.0}}],
        })
        result.summary["delivered_mbps"]; result.flows()

    A key set to ``None`` is left out, so it takes its default (the ``null`` defaults of the
    reference can be copied in). Any bad scenario, whatever its Python types, raises
    :class:`cellshare.ScenarioInvalid` naming the key path (``flows[0].transport.kind``),
    the value and what was expected.

    Relative trace paths resolve against `base_dir` (default: the scenario file's folder,
    or the current folder for a mapping). With ``progress=True`` a progress bar appears on
    an interactive terminal once the run has taken more than a second. `limits` raises the
    scenario limits (``max_ues``, ``max_flows``, ``max_memory_mb``; docs/limits.md); bad
    `limits` raise ``ValueError`` naming the limit. The result's tables and summary keys are
    described in docs/output-reference.md. In a mapping, a Python congestion controller's
    ``class`` may be the class itself (docs/extending/python.md)."""
    lim = check_limits(limits)
    scenario, classes = _controller_classes(scenario)
    text, base = _load(scenario, base_dir)
    from .lln import is_lln, run_lln_text

    with _mapping_errors(scenario):
        if is_lln(text):  # the dispatch of `cellshare run`
            return run_lln_text(text)
        return run_text(text, base, progress=progress, label=label, limits=lim, classes=classes)


def validate(scenario: ScenarioSource | None = None, *, base_dir: str | os.PathLike | None = None,
             limits: Optional[Mapping[str, int]] = None) -> None:
    """Checks a scenario as ``cellshare validate`` does (keys, types, ranges, trace files,
    limits) without running it; raises :class:`cellshare.ScenarioInvalid` as :func:`run`
    does."""
    lim = check_limits(limits)
    scenario, classes = _controller_classes(scenario)
    text, base = _load(scenario, base_dir)
    from .lln import is_lln

    with _mapping_errors(scenario):
        if is_lln(text):
            _core.lln_validate(text)
        else:
            _core.validate(text, base, classes=classes or None, **lim)


#: The limits `run` and `validate` take (docs/limits.md), all integers ≥ 1.
LIMIT_KEYS = ("max_ues", "max_flows", "max_memory_mb")
_U64_MAX = 2 ** 64 - 1


def check_limits(limits: Optional[Mapping[str, Any]]) -> dict[str, int]:
    """`limits` as keyword arguments of the extension; a ``ValueError`` naming the limit for
    an unknown one or a value that is not an integer ≥ 1 (None: the default)."""
    import numbers

    if limits is None:
        return {}
    if not isinstance(limits, Mapping):
        raise ValueError(f"limits: got {type(limits).__name__} {limits!r:.60}, expected a mapping of "
                         f"{', '.join(LIMIT_KEYS)} to integers >= 1")
    out = {}
    for k, v in limits.items():
        if k not in LIMIT_KEYS:
            raise ValueError(f"limits: unknown limit {k!r:.60}; expected one of: {', '.join(LIMIT_KEYS)}")
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 1 <= int(v) <= _U64_MAX:
            raise ValueError(f"limits.{k}: got {v!r:.60}, expected an integer in 1..={_U64_MAX} (docs/limits.md)")
        out[k] = int(v)
    return out


def _controller_classes(scenario: Any) -> tuple[Any, dict]:
    """A mapping with its Python controllers' classes given as objects named instead
    (:func:`cellshare.plugins._classes_of`), and those classes by name."""
    if not isinstance(scenario, Mapping):
        return scenario, {}
    from .plugins import _classes_of

    return _classes_of(scenario)


def _load(scenario: Any, base_dir: Any) -> tuple[str, str]:
    """(TOML text, base folder) of a scenario argument (:func:`load_scenario`)."""
    text, found_dir = load_scenario(scenario)
    return text, os.fspath(base_dir) if base_dir is not None else found_dir


class _mapping_errors:
    """Re-raises a ScenarioInvalid about a scenario given as a mapping without the "(line N)"
    of the TOML text it became (the user never saw that text)."""

    def __init__(self, scenario: Any) -> None:
        self.mapping = isinstance(scenario, Mapping)

    def __enter__(self) -> None:
        return None

    def __exit__(self, typ, exc, tb) -> bool:
        if self.mapping and isinstance(exc, _core.ScenarioInvalid):
            new = without_line(exc)
            if new is not exc:
                raise new from None
        return False


def run_text(text: str, base_dir: str, *, progress: bool = False, label: str = "simulating",
             limits: Optional[Mapping[str, int]] = None, classes: Optional[Mapping[str, type]] = None) -> Result:
    """Runs a scenario given as TOML text; relative trace paths and the modules of Python
    congestion controllers resolve against `base_dir` (the modules then on ``sys.path``);
    `classes` maps a controller's ``module:Class`` to the class object itself."""
    sim = _core.Sim(text, base_dir, classes=dict(classes) if classes else None, **check_limits(limits))
    t0 = time.perf_counter()
    end = sim.end_s
    if not (progress and _interactive()):
        sim.advance(end)
    else:
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        step = max(end / 200.0, 0.01)
        bar = None
        try:
            while not sim.finished:
                sim.advance(min(sim.now_s + step, end))
                if bar is None and time.perf_counter() - t0 > 1.0:
                    bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                   TextColumn("{task.completed:.1f}/{task.total:.1f} sim-s"), TimeRemainingColumn(),
                                   transient=True)
                    bar.start()
                    task = bar.add_task(label, total=end)
                if bar is not None:
                    bar.update(task, completed=sim.now_s)
        finally:
            if bar is not None:
                bar.stop()
    wall = time.perf_counter() - t0
    data = sim.finish()
    return Result(json.loads(data.summary_json()), wall, data)
