"""Running scenarios from Python: the same runs the CLI does, as objects and tables."""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Union

import pyarrow as pa
import tomli_w

from . import _core

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
    try:
        text = path.read_text()
    except OSError as e:
        raise _core.ScenarioInvalid(f"cannot read scenario file {str(path)!r}: {e.strerror}", "", str(e)) from None
    return text, str(path.resolve().parent)


_SERIES_KEYS = ("per_second_mbps", "trace", "mode_changes")

_FLOW_TRACE_SCHEMA = pa.schema([
    ("flow", pa.uint32()), ("name", pa.string()), ("t_s", pa.float64()), ("mbps", pa.float64()),
    ("cwnd_bytes", pa.uint64()), ("srtt_ms", pa.float64()), ("mode", pa.uint8()),
    ("estimate", pa.float64()), ("flag", pa.bool_()),
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


@dataclass
class Result:
    """Results of one run: the summary (what summary.json holds) and tables."""

    raw: dict
    wall_s: float
    summary: dict = field(init=False)

    def __post_init__(self) -> None:
        r = self.raw
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
        if r.get("cells") is not None:
            self.summary["cells"] = r["cells"]
            self.summary["handovers"] = len(r["handovers"]["t_s"])

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

    def flow_series(self) -> pa.Table:
        """Per-second goodput of every flow: columns flow, name, class, category, second,
        mbps. A workload flow has rows only over its lifetime (from its arrival's second)."""
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
        return _nested_table(self.raw["flows"], "trace", {"flow": "id", "name": "name"}, _FLOW_TRACE_SCHEMA)

    def mode_changes(self) -> pa.Table:
        """Every change of a controller's mode: flow, name, t_s, mode (Legilimens: 0
        NORMAL, 1-3 GAP I-III, 4 back-off)."""
        return _nested_table(self.raw["flows"], "mode_changes", {"flow": "id", "name": "name"}, _MODE_SCHEMA)

    def ue_trace(self) -> pa.Table:
        """Base-station queue of every UE sampled every ``simulation.trace_interval_ms``:
        ue, t_s, queue_bytes, queue_packets; in a network also x_m, y_m (position at the
        last 100 ms update), cell (serving) and rsrp_dbm (its L3-filtered RSRP)."""
        placed = bool(self.raw["ues"]) and "x_m" in self.raw["ues"][0]["trace"]
        return _nested_table(self.raw["ues"], "trace", {"ue": "id"}, _UE_PLACE_SCHEMA if placed else _UE_TRACE_SCHEMA)

    def handovers(self) -> pa.Table:
        """Every handover of a network (empty without one): t_s, ue, source and target cell,
        rsrp_source_dbm and rsrp_target_dbm (L3-filtered, at the decision), packets
        forwarded to the target, lost (in HARQ, on air, partly sent) and dropped."""
        h = self.raw.get("handovers") or {name: [] for name in _HANDOVER_SCHEMA.names}
        return pa.table({name: h[name] for name in _HANDOVER_SCHEMA.names}, schema=_HANDOVER_SCHEMA)

    #: Tables :meth:`table` knows, each the method of the same name.
    TABLES = ("flows", "classes", "flow_series", "ue_series", "cell_series", "queue_delay_cdf", "flow_trace",
              "mode_changes", "ue_trace", "requests", "handovers")

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
        label: str = "simulating") -> Result:
    """Runs a scenario (a TOML path, a mapping, or ``None`` for the embedded default) and
    returns its :class:`Result`. With ``progress=True`` a progress bar appears on an
    interactive terminal once the run has taken more than a second."""
    text, found_dir = load_scenario(scenario)
    return run_text(text, base_dir or found_dir, progress=progress, label=label)


def run_text(text: str, base_dir: str, *, progress: bool = False, label: str = "simulating") -> Result:
    """Runs a scenario given as TOML text; relative trace paths resolve against `base_dir`."""
    sim = _core.Sim(text, base_dir)
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
    return Result(json.loads(sim.results_json()), wall)
