"""Running scenarios from Python: the same runs the CLI does, as objects and tables."""

from __future__ import annotations

import collections.abc
import json
import os
import stat
import sys
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Union

import pyarrow as pa
import tomli_w

from . import _core

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

ScenarioSource = Union[str, os.PathLike, Mapping[str, Any]]

#: Keys of summary.json that depend on the wall clock (excluded from determinism checks).
WALL_CLOCK_KEYS = ("sim_speed", "wall_s")


def default_scenario() -> str:
    """The embedded default scenario (TOML text): the main job of `cellshare run`."""
    return resources.files("cellshare").joinpath("data/default.toml").read_text()


def embedded(name: str) -> str:
    """An embedded scenario by file name (e.g. ``"bench.toml"``)."""
    return resources.files("cellshare").joinpath("data", name).read_text()


def load_scenario(source: ScenarioSource | None) -> tuple[str, str]:
    """Returns (TOML text, base folder for relative trace paths) for a path, a mapping
    (converted to TOML) or ``None`` (the embedded default scenario)."""
    if source is None:
        return default_scenario(), os.getcwd()
    if isinstance(source, Mapping):
        return tomli_w.dumps(dict(source)), os.getcwd()
    path = Path(source)
    return read_scenario_file(path), str(path.resolve().parent)


#: Largest scenario (or sweep) file read, bytes: scenarios are a few kilobytes; a larger
#: file is refused before it is read (docs/limits.md).
MAX_SCENARIO_BYTES = 16 << 20


def _file_kind(mode: int) -> str:
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def read_scenario_file(path: Path, what: str = "scenario file") -> str:
    """The text of a scenario (or sweep) file. A FIFO, a device or a folder is refused
    before it is opened (reading one blocks or never ends), so is a file over
    :data:`MAX_SCENARIO_BYTES`; text that is not UTF-8 is an error naming the byte offset.
    Raises :class:`_core.ScenarioInvalid`."""
    def bad(msg: str) -> Exception:
        return _core.ScenarioInvalid(f"cannot read {what} {str(path)!r}: {msg}", "", msg)

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise bad(f"{_file_kind(st.st_mode)} (expected a regular file)")
        if st.st_size > MAX_SCENARIO_BYTES:
            raise bad(f"{st.st_size} bytes (expected at most {MAX_SCENARIO_BYTES} bytes)")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise bad(f"{_file_kind(os.fstat(f.fileno()).st_mode)} (expected a regular file)")
            data = f.read(MAX_SCENARIO_BYTES + 1)
    except _core.ScenarioInvalid:
        raise
    except OSError as e:
        raise bad(e.strerror or str(e)) from None
    except ValueError as e:  # e.g. a path with a NUL byte
        raise bad(str(e)) from None
    if len(data) > MAX_SCENARIO_BYTES:
        raise bad(f"more than {MAX_SCENARIO_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise bad(f"not UTF-8 text (byte {e.start}, line {line}: {data[e.start:e.start + 1]!r}); "
                  "expected a UTF-8 TOML file") from None


def toml_loads(text: str) -> dict:
    """``tomllib.loads`` that reports nesting too deep for Python's parser (thousands of
    nested arrays or tables) as :class:`_core.ScenarioInvalid` instead of a RecursionError."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise _core.ScenarioInvalid("not valid TOML: arrays or tables nested too deeply", "",
                                    "nested too deeply") from None


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


def _flow_summary(f: dict) -> dict:
    """A flow's summary entry: everything but its series; an app keeps its RTT statistics
    (the per-request lists go to the ``requests`` table)."""
    out = {k: v for k, v in f.items() if k not in _SERIES_KEYS}
    if "app" in out:
        out["app"] = {k: v for k, v in out["app"].items() if k not in ("t_s", "rtt_ms")}
    return out


_REQUESTS_SCHEMA = pa.schema([
    ("flow", pa.uint32()), ("name", pa.string()), ("kind", pa.string()), ("t_s", pa.float64()), ("rtt_ms", pa.float64()),
])
_FLOW_SERIES_SCHEMA = pa.schema([("flow", pa.uint32()), ("name", pa.string()), ("class", pa.string()),
                                 ("category", pa.string()), ("second", pa.int64()), ("mbps", pa.float64())])
_UE_SERIES_SCHEMA = pa.schema([("ue", pa.int64()), ("second", pa.int64()), ("mbps", pa.float64())])

#: Tables the simulator keeps out of the summary (in its spool) and hands over in batches.
SPOOLED_SCHEMAS = {"flow_trace": _FLOW_TRACE_SCHEMA, "mode_changes": _MODE_SCHEMA, "ue_trace": _UE_TRACE_SCHEMA,
                   "flow_series": _FLOW_SERIES_SCHEMA, "ue_series": _UE_SERIES_SCHEMA}

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
            "classes": r["classes"],
            "workload": r.get("workload"),
        }

    # -- tables -----------------------------------------------------------------------
    def flows(self) -> pa.Table:
        """One row per flow."""
        rows = []
        for f in self.summary["flows"]:
            row = {k: v for k, v in f.items() if k not in ("queue_delay_ms", "rtt_ms", "app")}
            if "app" in f:
                for k, v in f["app"].items():
                    row[f"app_{k}"] = v
            for k, v in f["queue_delay_ms"].items():
                row[f"queue_delay_{k}_ms" if k != "count" else "queue_delay_samples"] = v
            for k, v in f.get("rtt_ms", {}).items():
                row[f"rtt_{k}_ms" if k != "count" else "rtt_samples"] = v
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
        """Per-second cell series: second, delivered_mbps, prb_utilization (LTE only)."""
        s = self.raw["series"]
        n = len(s["delivered_mbps"])
        prb = s["prb_utilization"] or [None] * n
        return pa.table({"second": list(range(n)), "delivered_mbps": s["delivered_mbps"], "prb_utilization": prb})

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
        ue, t_s, queue_bytes, queue_packets."""
        if self.data is not None:
            return self._spooled("ue_trace")
        return _nested_table(self.raw["ues"], "trace", {"ue": "id"}, _UE_TRACE_SCHEMA)

    #: Tables :meth:`table` knows, each the method of the same name.
    TABLES = ("flows", "classes", "flow_series", "ue_series", "cell_series", "queue_delay_cdf", "flow_trace",
              "mode_changes", "ue_trace", "requests")

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

    def flow(self, name: str) -> dict:
        """The summary of the flow called `name`."""
        for f in self.raw["flows"]:
            if f["name"] == name:
                return f
        raise KeyError(name)


def _interactive() -> bool:
    return sys.stderr.isatty() and os.environ.get("CI") is None


def run(scenario: ScenarioSource | None = None, *, base_dir: str | None = None, progress: bool = False,
        label: str = "simulating", limits: Optional[Mapping[str, int]] = None) -> Result:
    """Runs a scenario (a TOML path, a mapping, or ``None`` for the embedded default) and
    returns its :class:`Result`. With ``progress=True`` a progress bar appears on an
    interactive terminal once the run has taken more than a second. `limits` raises the
    scenario limits (``max_ues``, ``max_flows``, ``max_memory_mb``; docs/limits.md)."""
    text, found_dir = load_scenario(scenario)
    return run_text(text, base_dir or found_dir, progress=progress, label=label, limits=limits)


def run_text(text: str, base_dir: str, *, progress: bool = False, label: str = "simulating",
             limits: Optional[Mapping[str, int]] = None) -> Result:
    """Runs a scenario given as TOML text; relative trace paths resolve against `base_dir`."""
    sim = _core.Sim(text, base_dir, **dict(limits or {}))
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
