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

_FLOW_TRACE_SCHEMA = pa.schema([
    ("flow", pa.uint32()), ("name", pa.string()), ("t_s", pa.float64()), ("mbps", pa.float64()),
    ("cwnd_bytes", pa.uint64()), ("srtt_ms", pa.float64()), ("mode", pa.uint8()),
    ("estimate", pa.float64()), ("flag", pa.bool_()), ("aux", pa.float64()),
])
_MODE_SCHEMA = pa.schema([("flow", pa.uint32()), ("name", pa.string()), ("t_s", pa.float64()), ("mode", pa.uint8())])
_UE_TRACE_SCHEMA = pa.schema([
    ("ue", pa.uint32()), ("t_s", pa.float64()), ("queue_bytes", pa.uint64()), ("queue_packets", pa.uint32()),
])
#: A network's per-UE trace adds where the UE is and which cell serves it.
_UE_PLACE_SCHEMA = pa.schema(list(_UE_TRACE_SCHEMA) + [
    ("x_m", pa.float64()), ("y_m", pa.float64()), ("cell", pa.uint32()), ("rsrp_dbm", pa.float64()),
])
_HANDOVER_SCHEMA = pa.schema([
    ("t_s", pa.float64()), ("ue", pa.uint32()), ("source", pa.uint32()), ("target", pa.uint32()),
    ("rsrp_source_dbm", pa.float64()), ("rsrp_target_dbm", pa.float64()), ("forwarded", pa.uint64()),
    ("lost", pa.uint64()), ("dropped", pa.uint64()),
])


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


_REQUESTS_SCHEMA = pa.schema([
    ("flow", pa.uint32()), ("name", pa.string()), ("kind", pa.string()), ("t_s", pa.float64()), ("rtt_ms", pa.float64()),
])
#: The per-event tables of the apps of docs/apps.md: (summary key, column mapping in each
#: session, schema of the table after the flow / name / ue columns).
_SESSION_TABLES = {
    "video_frames": ("video_calls", "frames", pa.schema([
        ("t_s", pa.float64()), ("bytes", pa.uint32()), ("target_kbps", pa.float64()), ("key", pa.bool_()),
        ("packets", pa.uint16()), ("status", pa.string()), ("delay_ms", pa.float64())])),
    "stream_chunks": ("streams", "chunks", pa.schema([
        ("index", pa.uint32()), ("level", pa.uint8()), ("bitrate_kbps", pa.float64()), ("bytes", pa.uint64()),
        ("request_t_s", pa.float64()), ("done_t_s", pa.float64()), ("throughput_kbps", pa.float64()),
        ("buffer_s", pa.float64()), ("rebuffer_s", pa.float64())])),
    "page_loads": ("web", "pages", pa.schema([
        ("page", pa.uint32()), ("start_t_s", pa.float64()), ("load_time_s", pa.float64()), ("objects", pa.uint32()),
        ("bytes", pa.uint64())])),
}
_SESSION_KEYS = tuple(v[0] for v in _SESSION_TABLES.values())

_FLOW_SERIES_SCHEMA = pa.schema([("flow", pa.uint32()), ("name", pa.string()), ("class", pa.string()),
                                 ("category", pa.string()), ("second", pa.int64()), ("mbps", pa.float64())])
_UE_SERIES_SCHEMA = pa.schema([("ue", pa.int64()), ("second", pa.int64()), ("mbps", pa.float64())])

#: Tables the simulator keeps out of the summary (in its spool) and hands over in batches.
SPOOLED_SCHEMAS = {"flow_trace": _FLOW_TRACE_SCHEMA, "mode_changes": _MODE_SCHEMA, "ue_trace": _UE_TRACE_SCHEMA,
                   "flow_series": _FLOW_SERIES_SCHEMA, "ue_series": _UE_SERIES_SCHEMA}
#: Where each `ue_trace` sample was taken, in a network: spooled beside `ue_trace`, row for
#: row, and joined to it as its last four columns (:meth:`Result.ue_trace`).
_UE_PLACE_SPOOL_SCHEMA = pa.schema([("ue", pa.uint32()), ("t_s", pa.float64()), ("x_m", pa.float64()),
                                    ("y_m", pa.float64()), ("cell", pa.uint32()), ("rsrp_dbm", pa.float64())])

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


@dataclass
class Result:
    """Results of one run: the summary (what summary.json holds) and tables."""

    raw: dict
    wall_s: float
    #: The extension's ``RunData`` holding the bulky tables (None: they are in `raw`).
    data: Any = field(default=None, repr=False)
    summary: dict = field(init=False)

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
        self.summary = {
            "scenario": r["scenario"],
            "seed": r["seed"],
            "duration_s": r["duration_s"],
            "access": r["access"],
            "sim_speed": r["duration_s"] / self.wall_s if self.wall_s > 0 else float("inf"),
            "wall_s": self.wall_s,
            "prb_utilization": r["prb_utilization"],
            "prb_used_share_of_all": r["prb_used_share_of_all"],
            "prb_offered_share": r["prb_offered_share"],
            "delivered_mbps": r["delivered_mbps"],
            "queue_delay_ms": r["queue_delay_ms"],
            "drops": r["drops"],
            "link": r.get("link"),
            "jain_index": r["jain_index"],
            "events": r["events"],
            "ttis": r["ttis"],
            "peak_packets": r["peak_packets"],
            "flows": [_flow_summary(f) for f in r["flows"]],
            "ues": [{k: v for k, v in u.items() if k not in _SERIES_KEYS} for u in r["ues"]],
            "classes": _distinct_classes(r["classes"]),
            "workload": r.get("workload"),
        }
        # The apps' sessions: their summaries (the per-event columns go to their tables).
        events = {key: col for key, col, _ in _SESSION_TABLES.values()}
        for key in _SESSION_KEYS:
            if r.get(key):
                self.summary[key] = [{k: v for k, v in s.items() if k != events[key]} for s in r[key]]
        if r.get("cells") is not None:
            self.summary["cells"] = r["cells"]
            self.summary["handovers"] = len(r["handovers"]["t_s"])

    # -- tables -----------------------------------------------------------------------
    def flows(self) -> pa.Table:
        """One row per flow."""
        rows = []
        for f in self.summary["flows"]:
            row = {k: v for k, v in f.items() if k not in ("queue_delay_ms", "rtt_ms", "one_way_delay_ms", "app")}
            if "app" in f:
                for k, v in f["app"].items():
                    row[f"app_{k}"] = v
            for k, v in f["queue_delay_ms"].items():
                row[f"queue_delay_{k}_ms" if k != "count" else "queue_delay_samples"] = v
            rtt = f.get("rtt_ms")
            for k in _RTT_KEYS:
                row[f"rtt_{k}_ms" if k != "count" else "rtt_samples"] = (rtt or {}).get(k, 0 if k == "count" else None)
            for k, v in f.get("one_way_delay_ms", {}).items():
                row[f"one_way_delay_{k}_ms" if k != "count" else "one_way_delay_samples"] = v
            rows.append(row)
        return pa.Table.from_pylist(rows, schema=None) if rows else pa.table({})

    def classes(self) -> pa.Table:
        """One row per traffic class (foreground, background, then each DSCP value in use):
        flows, delivery rate, goodput, drops, queue-delay percentiles and BoDe's power."""
        rows = []
        for c in self.summary["classes"]:
            row = {k: v for k, v in c.items() if k != "queue_delay_ms"}
            for k, v in c["queue_delay_ms"].items():
                row[f"queue_delay_{k}_ms" if k != "count" else "queue_delay_samples"] = v
            rows.append(row)
        return pa.Table.from_pylist(rows)

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
            q = _arrow_batch(_UE_TRACE_SCHEMA, *self.data.batch("ue_trace", start, max_rows))
            p = _arrow_batch(_UE_PLACE_SPOOL_SCHEMA, *self.data.batch("ue_place", start, max_rows))
            if q.num_rows != p.num_rows or q.column(0) != p.column(0):
                raise RuntimeError("ue_place and ue_trace rows differ")
            batch = pa.RecordBatch.from_arrays(list(q.columns) + list(p.columns[2:]), schema=_UE_PLACE_SCHEMA)
            start += batch.num_rows
            del q, p
            yield batch
            del batch

    def _spooled(self, name: str) -> pa.Table:
        return pa.Table.from_batches(list(self.iter_batches(name)), schema=SPOOLED_SCHEMAS[name])

    def flow_series(self) -> pa.Table:
        """Per-second goodput of every flow: columns flow, name, class, category, second,
        mbps. A workload flow has rows only over its lifetime (from its arrival's second)."""
        if self.data is not None:
            return self._spooled("flow_series")
        cols: dict[str, list] = {"flow": [], "name": [], "class": [], "category": [], "second": [], "mbps": []}
        for f in self.raw["flows"]:
            first = f.get("series_start_s", 0)
            for s, v in enumerate(f["per_second_mbps"]):
                cols["flow"].append(f["id"])
                cols["name"].append(f["name"])
                cols["class"].append(f["class"])
                cols["category"].append(f["category"])
                cols["second"].append(first + s)
                cols["mbps"].append(v)
        schema = pa.schema([("flow", pa.uint32()), ("name", pa.string()), ("class", pa.string()),
                            ("category", pa.string()), ("second", pa.int64()), ("mbps", pa.float64())])
        return pa.table(cols, schema=schema)

    def ue_series(self) -> pa.Table:
        """Per-second received Mbps of every UE: columns ue, second, mbps."""
        if self.data is not None:
            return self._spooled("ue_series")
        cols: dict[str, list] = {"ue": [], "second": [], "mbps": []}
        for u in self.raw["ues"]:
            for s, v in enumerate(u["per_second_mbps"]):
                cols["ue"].append(u["id"])
                cols["second"].append(s)
                cols["mbps"].append(v)
        return pa.table(cols)

    def cell_series(self) -> pa.Table:
        """Per-second cell series: second, delivered_mbps, prb_utilization (PRBs used over PRBs
        offered; null in a second that offered none) and prb_used_share_of_all (PRBs used over all
        the cell's PRBs); the PRB columns are null behind a shared FIFO."""
        s = self.raw["series"]
        n = len(s["delivered_mbps"])
        prb = s["prb_utilization"] or [None] * n
        share = s.get("prb_used_share_of_all") or [None] * n
        return pa.table({"second": list(range(n)), "delivered_mbps": s["delivered_mbps"],
                         "prb_utilization": pa.array(prb, pa.float64()),
                         "prb_used_share_of_all": pa.array(share, pa.float64())})

    def queue_delay_cdf(self) -> pa.Table:
        """CDF of all packets' base-station sojourn: delay_ms, fraction."""
        pts = self.raw["series"]["queue_delay_cdf"]
        return pa.table({"delay_ms": [p[0] for p in pts], "fraction": [p[1] for p in pts]})

    def flow_trace(self) -> pa.Table:
        """Fine-grained samples of every flow (every ``simulation.trace_interval_ms``):
        flow, name, t_s, mbps (delivered over the interval), cwnd_bytes, srtt_ms, and the
        controller's mode, estimate (Legilimens: capacity, Mbit/s) and flag (Legilimens:
        busy)."""
        if self.data is not None:
            return self._spooled("flow_trace")
        return _nested_table(self.raw["flows"], "trace", {"flow": "id", "name": "name"}, _FLOW_TRACE_SCHEMA)

    def mode_changes(self) -> pa.Table:
        """Every change of a controller's mode: flow, name, t_s, mode (Legilimens: 0
        NORMAL, 1-3 GAP I-III, 4 back-off)."""
        if self.data is not None:
            return self._spooled("mode_changes")
        return _nested_table(self.raw["flows"], "mode_changes", {"flow": "id", "name": "name"}, _MODE_SCHEMA)

    def ue_trace(self) -> pa.Table:
        """Base-station queue of every UE sampled every ``simulation.trace_interval_ms``:
        ue, t_s, queue_bytes, queue_packets; in a network also x_m, y_m (position at the
        last 100 ms update), cell (serving) and rsrp_dbm (its L3-filtered RSRP)."""
        if self.data is not None:
            return pa.Table.from_batches(list(self.iter_batches("ue_trace")), schema=self._ue_trace_schema())
        placed = bool(self.raw["ues"]) and "x_m" in self.raw["ues"][0]["trace"]
        return _nested_table(self.raw["ues"], "trace", {"ue": "id"}, _UE_PLACE_SCHEMA if placed else _UE_TRACE_SCHEMA)

    def _ue_trace_schema(self) -> pa.Schema:
        """`ue_trace`'s schema: with the place columns in a network (spooled as `ue_place`)."""
        return _UE_PLACE_SCHEMA if self.data is not None and self.data.rows("ue_place") > 0 else _UE_TRACE_SCHEMA

    def handovers(self) -> pa.Table:
        """Every handover of a network (empty without one): t_s, ue, source and target cell,
        rsrp_source_dbm and rsrp_target_dbm (L3-filtered, at the decision), packets
        forwarded to the target, lost (in HARQ, on air, partly sent) and dropped."""
        h = self.raw.get("handovers") or {name: [] for name in _HANDOVER_SCHEMA.names}
        return pa.table({name: h[name] for name in _HANDOVER_SCHEMA.names}, schema=_HANDOVER_SCHEMA)

    #: Tables :meth:`table` knows, each the method of the same name.
    TABLES = ("flows", "classes", "flow_series", "ue_series", "cell_series", "queue_delay_cdf", "flow_trace",
              "mode_changes", "ue_trace", "requests", "video_frames", "stream_chunks", "page_loads", "handovers")

    def table(self, name: str) -> pa.Table:
        """The table called `name` (one of :attr:`TABLES`) as a pyarrow table."""
        if name not in self.TABLES:
            raise ValueError(f"table {name!r}: expected one of {', '.join(self.TABLES)}")
        return getattr(self, name)()

    def to_pandas(self, name: str = "flows"):
        """The table called `name` (see :attr:`TABLES`) as a pandas DataFrame (needs pandas)."""
        from .frames import to_pandas

        return to_pandas(self.table(name))

    def to_polars(self, name: str = "flows"):
        """The table called `name` (see :attr:`TABLES`) as a polars DataFrame (needs polars)."""
        from .frames import to_polars

        return to_polars(self.table(name))
    def requests(self) -> pa.Table:
        """Every completed request of the interactive apps (ping, game, voip): flow, name,
        kind, t_s (completion time), rtt_ms (request written to whole response received)."""
        cols: dict[str, list] = {name: [] for name in _REQUESTS_SCHEMA.names}
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
        return pa.table(cols, schema=_REQUESTS_SCHEMA)

    def _session_table(self, name: str) -> pa.Table:
        key, col, own = _SESSION_TABLES[name]
        schema = pa.schema([("flow", pa.uint32()), ("name", pa.string()), ("ue", pa.uint32()), *own])
        return _nested_table(self.raw.get(key) or [], col, {"flow": "flow", "name": "name", "ue": "ue"}, schema)

    def video_frames(self) -> pa.Table:
        """Every frame of the video calls (docs/apps.md): flow, name, ue, t_s (capture),
        bytes, target_kbps, key, packets, status (rendered / undecodable / lost / pending),
        delay_ms (capture to the last packet's arrival; null unless rendered)."""
        return self._session_table("video_frames")

    def stream_chunks(self) -> pa.Table:
        """Every chunk the adaptive streams requested: flow, name, ue, index, level,
        bitrate_kbps, bytes, request_t_s, done_t_s, throughput_kbps, buffer_s (after the
        chunk arrived), rebuffer_s (stall while it was awaited)."""
        return self._session_table("stream_chunks")

    def page_loads(self) -> pa.Table:
        """Every web page load: flow, name, ue, page, start_t_s, load_time_s (null: not
        loaded by the end), objects, bytes."""
        return self._session_table("page_loads")

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


def _interactive() -> bool:
    return sys.stderr.isatty() and os.environ.get("CI") is None


def run(scenario: ScenarioSource | None = None, *, base_dir: str | os.PathLike | None = None, progress: bool = False,
        label: str = "simulating", limits: Optional[Mapping[str, int]] = None) -> Union[Result, "LlnResult"]:
    """Runs a scenario (a TOML path, a mapping, or ``None`` for the embedded default) and
    returns its :class:`Result` — or, for an LLN scenario (one with an ``[lln]`` table, as
    ``cellshare run`` runs it), a :class:`cellshare.lln.LlnResult`. With ``progress=True`` a
    progress bar appears on an interactive terminal once the run has taken more than a
    second. `limits` raises the scenario limits (``max_ues``, ``max_flows``,
    ``max_memory_mb``; docs/limits.md).

    A mapping is written as TOML: a key set to ``None`` is left out, so it takes its default
    (the ``null`` defaults of ``cellshare scenario-reference`` can be copied in). Any bad
    scenario, whatever its Python types, raises :class:`cellshare.ScenarioInvalid` naming
    the key path, the value and what was expected; bad `limits` raise ``ValueError`` naming
    the limit."""
    lim = check_limits(limits)
    text, base = _load(scenario, base_dir)
    from .lln import is_lln, run_lln_text

    with _mapping_errors(scenario):
        if is_lln(text):  # the dispatch of `cellshare run`
            return run_lln_text(text)
        return run_text(text, base, progress=progress, label=label, limits=lim)


def validate(scenario: ScenarioSource | None = None, *, base_dir: str | os.PathLike | None = None,
             limits: Optional[Mapping[str, int]] = None) -> None:
    """Checks a scenario as ``cellshare validate`` does (keys, types, ranges, trace files,
    limits) without running it; raises :class:`cellshare.ScenarioInvalid` as :func:`run`
    does."""
    lim = check_limits(limits)
    text, base = _load(scenario, base_dir)
    from .lln import is_lln

    with _mapping_errors(scenario):
        if is_lln(text):
            _core.lln_validate(text)
        else:
            _core.validate(text, base, **lim)


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
             limits: Optional[Mapping[str, int]] = None) -> Result:
    """Runs a scenario given as TOML text; relative trace paths resolve against `base_dir`."""
    sim = _core.Sim(text, base_dir, **check_limits(limits))
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
