"""Parameter sweeps: one base scenario expanded over parameter lists, named axes and seeds,
run in parallel (local cores or Ray), resumable, gathered into one Parquet dataset.

A sweep file (TOML)::

    base = "base.toml"                 # a scenario file relative to this file, or a [base] table
    seeds = 3                          # seeds 1, 2, 3 (or a list: seeds = [1, 5, 9])
    workers = 2                        # local worker processes (default: every core)

    [parameters]                       # dotted scenario keys -> lists of values
    "cell.aqm.kind" = ["tail_drop", "bode"]

    [axes.scheme]                      # a named axis: each value is a partial scenario
    cubic    = { "flows[1].transport.cc.kind" = "cubic" }
    ideal    = { "cell.scheduler.kind" = "priority" }
    "w/o bg" = { remove = ["flows[1]"] }

Every combination of the axes (named axes first, then parameters, in file order) and every
seed is one run. A run's id is a hash of its parameter values and seed, so it is stable
across invocations: ``OUT/runs/<id>/`` holds the run's outputs (as ``cellshare run --out``
writes them, plus ``run.json``), written to a temporary folder and renamed into place, so a
folder that exists is complete and a second invocation skips it (resume). The dataset is
``OUT/runs.parquet`` (one row per run: id, parameters, seed, summary scalars) and
``OUT/flows.parquet`` (every run's flows with the run id and parameters), built by streaming
the per-run files, never holding all runs in memory.
"""

from __future__ import annotations

import collections.abc
import copy
import hashlib
import itertools
import json
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

import pyarrow as pa
import pyarrow.parquet as pq
import tomli_w

from . import _core

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]


#: Most runs one sweep may expand to (its runs are listed and checked before any starts;
#: docs/limits.md).
MAX_RUNS = 1_000_000


class RunFailed(RuntimeError):
    """A run raised an error while simulating (the message names the run)."""


class SweepError(ValueError):
    """A bad sweep file or sweep output folder: the message names the key, the value and
    what was expected."""


#: Scalar columns of ``runs.parquet`` taken from each run's summary (besides run_id,
#: parameters and seed), in order.
RUN_SCALARS = (
    "duration_s", "prb_utilization", "prb_used_share_of_all", "delivered_mbps", "jain_index", "queue_delay_p50_ms", "queue_delay_p99_ms",
    "queue_delay_max_ms", "foreground_mbps", "background_mbps", "drops", "flows", "wall_s", "sim_speed",
)
#: Columns that vary with the machine, not the scenario (left out when comparing datasets).
WALL_CLOCK_COLUMNS = ("wall_s", "sim_speed")
#: Names an axis may not take: they are columns of runs.parquet or flows.parquet already.
RESERVED_NAMES = frozenset(("run_id", "seed", "category", "size_bytes", "id", "name", "ue", "class", "transport",
                            "start_s", "bytes_delivered", "throughput_mbps", "fct_s", "completed", "retransmits",
                            "timeouts") + RUN_SCALARS)
#: Category boundaries when a flows table has no ``category`` column: finite flows up to
#: SHORT_MAX_BYTES are short, up to MEDIUM_MAX_BYTES medium, larger or unlimited long.
SHORT_MAX_BYTES = 256 * 1024
MEDIUM_MAX_BYTES = 8 * 1024 * 1024

#: Runs a local sweep worker performs before it is replaced (starting one costs about a
#: second of imports, more than a small run; a worker's memory does not grow from run to run:
#: the README gives the measurements).
TASKS_PER_WORKER = 256

_TOP_KEYS = ("name", "description", "base", "seeds", "workers", "parameters", "axes")
_SEGMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)$")
_INDEX = re.compile(r"\[(\d+)\]")


# -- dotted keys ----------------------------------------------------------------------------

def parse_path(path: str, where: str) -> list[Union[str, int]]:
    """Splits a dotted scenario key (``cell.aqm.kind``, ``flows[1].transport.cc.kind``) into
    table keys (str) and list indices (int)."""
    if not isinstance(path, str) or not path:
        raise SweepError(f"{where}: key {path!r} is not a dotted scenario key "
                         f"(expected e.g. \"cell.aqm.kind\" or \"flows[1].transport.cc.kind\")")
    out: list[Union[str, int]] = []
    for seg in path.split("."):
        m = _SEGMENT.match(seg)
        if not m:
            raise SweepError(f"{where}: key {path!r} is not a dotted scenario key (part {seg!r}; expected "
                             f"names and [index] suffixes, e.g. \"cell.aqm.kind\" or \"flows[1].transport.cc.kind\")")
        out.append(m.group(1))
        out.extend(int(i) for i in _INDEX.findall(m.group(2)))
    return out


def _walk(doc: dict, parts: list, path: str, where: str, create: bool):
    """Returns the container holding the last part of `parts`."""
    node: Any = doc
    for k, part in enumerate(parts[:-1]):
        nxt = parts[k + 1]
        if isinstance(part, int):
            _check_index(node, part, parts[:k], f"{where}: key {path!r}", f", so index {part} does not exist")
            node = node[part]
        else:
            if not isinstance(node, dict):
                raise SweepError(f"{where}: key {path!r}: {_fmt_path(parts[:k])} is not a table")
            if part not in node:
                if not create or isinstance(nxt, int):
                    raise SweepError(f"{where}: key {path!r}: the scenario has no {_fmt_path(parts[:k + 1])}")
                node[part] = {}
            node = node[part]
    return node


def _fmt_path(parts: Sequence[Union[str, int]]) -> str:
    s = ""
    for p in parts:
        s += f"[{p}]" if isinstance(p, int) else (f".{p}" if s else p)
    return s or "(top level)"


def _check_index(node: Any, index: int, before: Sequence[Union[str, int]], prefix: str, suffix: str = "") -> None:
    """Raises unless `node` (the value at `before`) is a list with an entry `index`; the
    message is `prefix`, what the scenario has there, then `suffix`."""
    if not isinstance(node, list) or index >= len(node):
        have = len(node) if isinstance(node, list) else "no"
        raise SweepError(f"{prefix}: the scenario has {have} entries in {_fmt_path(before)}{suffix}")


def set_path(doc: dict, path: str, value: Any, where: str) -> None:
    """Sets dotted key `path` of scenario `doc` to `value` (creating missing tables)."""
    parts = parse_path(path, where)
    node = _walk(doc, parts, path, where, create=True)
    last = parts[-1]
    if isinstance(last, int):
        _check_index(node, last, parts[:-1], f"{where}: key {path!r}")
    elif not isinstance(node, dict):
        raise SweepError(f"{where}: key {path!r}: {_fmt_path(parts[:-1])} is not a table")
    node[last] = copy.deepcopy(value)


def remove_path(doc: dict, path: str, where: str) -> None:
    """Removes dotted key `path` (a table key or a list entry) from scenario `doc`."""
    parts = parse_path(path, where)
    node = _walk(doc, parts, path, where, create=False)
    last = parts[-1]
    if isinstance(last, int):
        _check_index(node, last, parts[:-1], f"{where}: cannot remove {path!r}")
        del node[last]
    else:
        if not isinstance(node, dict) or last not in node:
            raise SweepError(f"{where}: cannot remove {path!r}: the scenario has no {_fmt_path(parts)}")
        del node[last]


# -- the specification ----------------------------------------------------------------------

@dataclass
class Axis:
    """One dimension of a sweep: a column name and, per value, its label (the column's value)
    and the scenario changes it makes."""

    name: str
    labels: list
    sets: list[dict[str, Any]]
    removes: list[list[str]]
    where: str

    def paths(self) -> set[str]:
        """Every dotted key this axis sets or removes."""
        out: set[str] = set()
        for s in self.sets:
            out.update(s)
        for r in self.removes:
            out.update(r)
        return out


@dataclass
class Run:
    """One run of a sweep: its id, parameter values (column -> label) and seed. Its scenario
    is built on demand from the sweep (runs hold no scenario, so a list of thousands of runs
    stays small)."""

    run_id: str
    params: dict[str, Any]
    seed: Optional[int]
    combo: tuple[int, ...]
    spec: "SweepSpec" = field(repr=False, compare=False)

    @property
    def scenario(self) -> dict:
        """The complete scenario of this run (a new dict on every access)."""
        return self.spec.scenario_for(self.combo, self.seed)

    def text(self) -> str:
        """The run's scenario as TOML text (what ``scenario.toml`` holds)."""
        return tomli_w.dumps(self.scenario)


@dataclass
class SweepSpec:
    """A parsed sweep file."""

    base: dict
    base_dir: str
    axes: list[Axis]
    seeds: Optional[list[int]]
    workers: Optional[int] = None
    name: str = ""
    description: str = ""
    source: dict = field(default_factory=dict)

    @property
    def param_names(self) -> list[str]:
        """The parameter columns, in order."""
        return [a.name for a in self.axes]

    def runs(self) -> list[Run]:
        """Every run: the cartesian product of the axes, then the seeds (innermost). Raises
        :class:`SweepError` when a change does not apply to the base scenario."""
        out = []
        seeds: list[Optional[int]] = list(self.seeds) if self.seeds is not None else [None]
        for combo in itertools.product(*(range(len(a.labels)) for a in self.axes)):
            self.scenario_for(combo, None)  # every change applies (checked once per combination)
            params = {axis.name: axis.labels[k] for axis, k in zip(self.axes, combo)}
            for seed in seeds:
                out.append(Run(run_id(params, seed), params, seed, combo, self))
        return out

    def scenario_for(self, combo: Sequence[int], seed: Optional[int]) -> dict:
        """The scenario of the axes' values `combo` (indices) and `seed`: the base with every
        axis's changes applied (sets first, then removals), and the seed."""
        doc = copy.deepcopy(self.base)
        removes: list[tuple[str, str]] = []
        for axis, k in zip(self.axes, combo):
            where = f"{axis.where} value {axis.labels[k]!r}"
            for path, value in axis.sets[k].items():
                set_path(doc, path, value, where)
            removes.extend((p, where) for p in axis.removes[k])
        for path, where in sorted(removes, key=lambda pw: _remove_order(pw[0]), reverse=True):
            remove_path(doc, path, where)
        if seed is not None:
            doc.setdefault("simulation", {})["seed"] = seed
        return doc


def _remove_order(path: str) -> tuple:
    """Removals run deepest and highest index first, so that removing flows[1] and flows[2]
    removes the two entries the user named."""
    parts = parse_path(path, "remove")
    return tuple((1, p) if isinstance(p, int) else (0, p) for p in parts)


def run_id(params: Mapping[str, Any], seed: Optional[int]) -> str:
    """The stable id of a run: a hash of its parameter values and seed."""
    blob = json.dumps({"params": params, "seed": seed}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def _label(value: Any) -> Any:
    """The column value of a parameter value: scalars as they are, tables and lists as
    compact JSON text."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return value


def _check_column(name: str, labels: list, where: str) -> None:
    kinds = {("number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v).__name__)
             for v in labels}
    if len(kinds) > 1:
        raise SweepError(f"{where}: values {labels!r} mix types ({', '.join(sorted(kinds))}); expected values "
                         f"of one type (numbers, strings, booleans or tables), as they form one column")
    if len(set(map(repr, labels))) != len(labels):
        raise SweepError(f"{where}: values {labels!r} repeat; expected distinct values")


def _read_toml(path: Path, unreadable: str, where: str) -> dict:
    """The TOML document at `path`; a SweepError `"<unreadable>: <reason>"` when the file
    cannot be read, `"<where>: not valid TOML: ..."` when it does not parse."""
    from .scenario_files import read_scenario_file

    try:
        text = read_scenario_file(path, "file")  # a FIFO, a device, non-UTF-8: an error, not a hang
    except _core.ScenarioInvalid as e:
        raise SweepError(f"{unreadable}: {e.args[2]}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{where}: not valid TOML: {e}") from None
    except RecursionError:
        raise SweepError(f"{where}: not valid TOML: arrays or tables nested too deeply") from None


def load_sweep(source: Union[str, os.PathLike, Mapping[str, Any]]) -> SweepSpec:
    """Parses a sweep (a TOML file, or a mapping with the same keys) and checks it, naming
    the key, the value and what was expected on error (:class:`SweepError`)."""
    if isinstance(source, Mapping):
        doc, where_dir, origin = dict(source), os.getcwd(), "sweep"
    else:
        p = Path(source)
        doc = _read_toml(p, f"cannot read sweep file {str(p)!r}", str(p))
        where_dir, origin = str(p.resolve().parent), str(p)
    for k in doc:
        if k not in _TOP_KEYS:
            raise SweepError(f"{origin}: unknown key {k!r}; expected one of: {', '.join(_TOP_KEYS)}")

    # base
    if "base" not in doc:
        raise SweepError(f"{origin}: missing key 'base' (a scenario file path relative to the sweep file, "
                         f"or a [base] table)")
    base = doc["base"]
    base_dir = where_dir
    if isinstance(base, str):
        bp = Path(where_dir) / base
        base = _read_toml(bp, f"{origin}: base = {base!r}: cannot read {str(bp)!r}", f"{origin}: base = {base!r}")
        base_dir = str(bp.resolve().parent)
    elif not isinstance(base, Mapping):
        raise SweepError(f"{origin}: base = {base!r}: expected a scenario file path (string) or a table")
    base = copy.deepcopy(dict(base))
    if "lln" in base:
        raise SweepError(f"{origin}: base: an LLN scenario (with an [lln] table); sweeps run cellular "
                         f"scenarios (cell or shared FIFO)")

    # seeds
    seeds: Optional[list[int]] = None
    if "seeds" in doc:
        s = doc["seeds"]
        if isinstance(s, int) and not isinstance(s, bool):
            if not 1 <= s <= MAX_RUNS:
                raise SweepError(f"{origin}: seeds = {s!r}: expected a count ≥ 1 (at most {MAX_RUNS}) or a list of seeds")
            seeds = list(range(1, s + 1))
        elif isinstance(s, list) and s and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in s):
            if len(set(s)) != len(s):
                raise SweepError(f"{origin}: seeds = {s!r}: seeds repeat; expected distinct seeds")
            seeds = list(s)
        else:
            raise SweepError(f"{origin}: seeds = {s!r}: expected a count ≥ 1 or a non-empty list of integers ≥ 0")

    # workers
    workers = doc.get("workers")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise SweepError(f"{origin}: workers = {workers!r}: expected an integer ≥ 1")

    for k in ("name", "description"):
        if k in doc and not isinstance(doc[k], str):
            raise SweepError(f"{origin}: {k} = {doc[k]!r}: expected a string")

    axes: list[Axis] = []
    named = doc.get("axes", {})
    if not isinstance(named, Mapping):
        raise SweepError(f"{origin}: axes = {named!r}: expected a table of named axes ([axes.NAME])")
    for name, values in named.items():
        where = f"axes.{name}"
        if not isinstance(values, Mapping) or not values:
            raise SweepError(f"{origin}: {where} = {values!r}: expected a non-empty table mapping each value's "
                             f"label to its scenario changes, e.g. cubic = {{ \"flows[1].transport.cc.kind\" = "
                             f"\"cubic\" }}")
        labels, sets, removes = [], [], []
        for label, change in values.items():
            w = f"{where}.{json.dumps(label)}"
            if not isinstance(change, Mapping):
                raise SweepError(f"{origin}: {w} = {change!r}: expected a table of dotted scenario keys -> values "
                                 f"(and optionally remove = [keys])")
            s: dict[str, Any] = {}
            r: list[str] = []
            for key, v in change.items():
                if key == "remove":
                    rl = [v] if isinstance(v, str) else v
                    if not isinstance(rl, list) or not all(isinstance(x, str) for x in rl):
                        raise SweepError(f"{origin}: {w}.remove = {v!r}: expected a dotted key or a list of them")
                    for x in rl:
                        parse_path(x, f"{origin}: {w}.remove")
                    r.extend(rl)
                else:
                    parse_path(key, f"{origin}: {w}")
                    s[key] = v
            labels.append(label)
            sets.append(s)
            removes.append(r)
        axes.append(Axis(name, labels, sets, removes, f"{origin}: {where}"))

    params = doc.get("parameters", {})
    if not isinstance(params, Mapping):
        raise SweepError(f"{origin}: parameters = {params!r}: expected a table of dotted scenario keys -> lists")
    for key, values in params.items():
        where = f"parameters.{json.dumps(key)}"
        parse_path(key, f"{origin}: {where}")
        if not isinstance(values, list) or not values:
            raise SweepError(f"{origin}: {where} = {values!r}: expected a non-empty list of values")
        labels = [_label(v) for v in values]
        _check_column(key, labels, f"{origin}: {where}")
        axes.append(Axis(key, labels, [{key: v} for v in values], [[] for _ in values], f"{origin}: {where}"))

    # column names and overlapping keys
    seen: dict[str, str] = {}
    names = [a.name for a in axes]
    for a in axes:
        if names.count(a.name) > 1:
            raise SweepError(f"{a.where}: the column name {a.name!r} is used by another axis or parameter; "
                             f"expected distinct names")
        if a.name in RESERVED_NAMES:
            raise SweepError(f"{a.where}: the name {a.name!r} is a column of the dataset already; "
                             f"expected another name (reserved: {', '.join(sorted(RESERVED_NAMES))})")
        for p in a.paths():
            if seeds is not None and _overlaps(p, "simulation.seed"):
                raise SweepError(f"{a.where}: key {p!r} sets the seed, which the sweep's `seeds` sets; "
                                 f"expected seeds only in `seeds`")
            for q, other in seen.items():
                if other != a.name and _overlaps(p, q):
                    raise SweepError(f"{a.where}: key {p!r} overlaps key {q!r} of {other!r}; expected each "
                                     f"scenario key in one axis only")
        for p in a.paths():
            seen.setdefault(p, a.name)
    total = len(seeds or [None])
    for a in axes:
        total *= len(a.labels)
    if total > MAX_RUNS:
        raise SweepError(f"{origin}: {total} runs ({' × '.join(str(len(a.labels)) for a in axes) or '1'} values × "
                         f"{len(seeds or [None])} seeds); expected at most {MAX_RUNS} runs in one sweep")
    spec = SweepSpec(base=base, base_dir=base_dir, axes=axes, seeds=seeds, workers=workers,
                     name=doc.get("name", ""), description=doc.get("description", ""), source=doc)
    return spec


def _overlaps(a: str, b: str) -> bool:
    pa_, pb = parse_path(a, ""), parse_path(b, "")
    n = min(len(pa_), len(pb))
    return pa_[:n] == pb[:n]


def validate_runs(spec: SweepSpec, runs: Sequence[Run]) -> None:
    """Checks every run's scenario as ``cellshare validate`` would, before anything runs.
    Runs that differ only by seed are checked once (the seed cannot make a scenario
    invalid)."""
    seen: set[tuple[int, ...]] = set()
    for r in runs:
        if r.combo in seen:
            continue
        seen.add(r.combo)
        try:
            _core.validate(r.text(), spec.base_dir)
        except _core.ScenarioInvalid as e:
            # The run's TOML text is generated (the base with the run's values): its line numbers mean nothing.
            from .scenario_files import without_line

            raise SweepError(f"run {r.run_id} ({_describe(r.params, None)}): {without_line(e).args[0]}") from None


def _describe(params: Mapping[str, Any], seed: Optional[int]) -> str:
    """``scheme = 'cubic', load = 'low', seed = 1``."""
    parts = [f"{k} = {v!r}" for k, v in params.items()]
    if seed is not None:
        parts.append(f"seed = {seed}")
    return ", ".join(parts) or "the base scenario"


# -- one run (in a worker) ------------------------------------------------------------------

def _peak_rss_mb() -> float:
    """This process's peak resident set size, MB."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def summary_scalars(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The scalar columns of ``runs.parquet`` from a run's summary. A summary that does not
    hold them as cellshare writes them (a key missing, a value of another type, a count
    beyond a 64-bit integer) raises ``ValueError`` naming the key, e.g. "`drops.wired`: got
    1e+308, expected a whole number of packets"."""
    q = _field(summary, "queue_delay_ms", "")
    classes = {}
    for i, c in enumerate(_list(summary, "classes")):
        classes[_field(c, "class", f"classes[{i}].")] = (c, f"classes[{i}].")
    drops = _field(summary, "drops", "")
    if not isinstance(drops, Mapping):
        raise ValueError(f"`drops`: got {_shown(drops)}, expected a table of packet counts")
    n_drops = sum(_count(v, f"drops.{k}") for k, v in drops.items())
    if n_drops > _I64_MAX:
        raise ValueError(f"`drops`: {n_drops} packets in all, expected at most {_I64_MAX}")

    def num(doc: Any, key: str, where: str = "", null: bool = False) -> Optional[float]:
        return _number(_field(doc, key, where), f"{where}{key}", null)

    def goodput(name: str) -> float:
        c, where = classes.get(name, (None, ""))
        return num(c, "goodput_mbps", where) if c is not None else 0.0

    return {
        "duration_s": num(summary, "duration_s"),
        "prb_utilization": num(summary, "prb_utilization", null=True),
        "prb_used_share_of_all": (num(summary, "prb_used_share_of_all", null=True)
                                  if "prb_used_share_of_all" in summary else None),
        "delivered_mbps": num(summary, "delivered_mbps"),
        "jain_index": num(summary, "jain_index"),
        "queue_delay_p50_ms": num(q, "p50", "queue_delay_ms."),
        "queue_delay_p99_ms": num(q, "p99", "queue_delay_ms."),
        "queue_delay_max_ms": num(q, "max", "queue_delay_ms."),
        "foreground_mbps": goodput("foreground"),
        "background_mbps": goodput("background"),
        "drops": n_drops,
        "flows": len(_list(summary, "flows")),
        "wall_s": num(summary, "wall_s"),
        "sim_speed": num(summary, "sim_speed"),
    }


_I64_MAX = 2 ** 63 - 1


def _shown(v: Any) -> str:
    """A value of a summary as an error shows it: numbers and booleans in full, anything else
    by its type (a file's text is not echoed)."""
    if isinstance(v, (bool, int, float)) and len(repr(v)) <= 40:
        return repr(v)
    if isinstance(v, int):
        return f"an integer of {len(str(v))} digits"
    return "null" if v is None else f"a {type(v).__name__}"


def _field(doc: Any, key: str, where: str) -> Any:
    """`doc[key]`; a ValueError naming `where + key` when `doc` is not a table or has no `key`."""
    if not isinstance(doc, Mapping):
        raise ValueError(f"`{where.rstrip('.') or '(top level)'}`: got {_shown(doc)}, expected a table")
    if key not in doc:
        raise ValueError(f"`{where}{key}`: missing, expected the key as cellshare writes it")
    return doc[key]


def _list(doc: Any, key: str) -> list:
    v = _field(doc, key, "")
    if not isinstance(v, list):
        raise ValueError(f"`{key}`: got {_shown(v)}, expected a list")
    return v


def _number(v: Any, where: str, null: bool = False) -> Optional[float]:
    """`v` as a float (JSON numbers, Infinity and NaN included); a ValueError naming `where`
    for another type, or an integer beyond a float's range."""
    if v is None and null:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"`{where}`: got {_shown(v)}, expected a number")
    try:
        return float(v)
    except OverflowError:
        raise ValueError(f"`{where}`: got {_shown(v)}, expected a number within a float's range") from None


def _count(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _I64_MAX:
        raise ValueError(f"`{where}`: got {_shown(v)}, expected a whole number of packets (0..={_I64_MAX})")
    return v


def _run_job(job: tuple) -> dict:
    """Runs one sweep run in a worker and writes ``runs/<id>/``; returns a small dict."""
    from .api import run_text
    from .output import atomic_dir, write_result
    from .parallel import parent_gone

    rid, params, seed, text, base_dir, runs_dir = job
    started = time.time()
    try:
        result = run_text(text, base_dir)
    except Exception as e:
        msg = e.args[0] if e.args and isinstance(e.args[0], str) else str(e)
        raise RunFailed(f"run {rid} ({_describe(params, seed)}) failed: {type(e).__name__}: {msg}") from None
    row = summary_scalars(result.summary)
    info = {"run_id": rid, "params": params, "seed": seed, "scalars": row, "worker_pid": os.getpid(),
            "worker_peak_rss_mb": round(_peak_rss_mb(), 1), "started_unix_s": started,
            "simulated_until_unix_s": time.time()}
    # A worker whose sweep is gone writes nothing: the folder is nobody's any more (the
    # kernel kills such a worker on Linux; this covers the moments before that).
    if parent_gone():
        os._exit(1)
    try:
        with atomic_dir(Path(runs_dir) / rid, kind="run", owned=True) as tmp:
            write_result(result, tmp, scenario_text=text)
            (tmp / "run.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
            if parent_gone():
                raise _Orphaned  # the temporary folder is removed, nothing is renamed into place
    except _Orphaned:
        os._exit(1)
    del result
    return info


class _Orphaned(BaseException):
    """Raised in a sweep worker whose sweep process is gone, to drop what it wrote."""


# -- the sweep ------------------------------------------------------------------------------

@dataclass
class SweepOutcome:
    """What :func:`run_sweep` did."""

    out: Path
    total: int
    ran: int
    skipped: int
    wall_s: float
    #: Local worker processes, or the cap on runs in flight on Ray (None: the cluster's CPUs).
    workers: Optional[int]
    worker_pids: list[int]
    parent_peak_rss_mb: float
    worker_peak_rss_mb: float


#: Temporary run folders of cellshare versions before output.py (``.<run id>.<random>``,
#: ``.<run id>.old``): no process owns them any more.
_OLD_RUN_TMP = re.compile(r"^\.[0-9a-f]{12}\.")


def _clean_stale(out: Path) -> None:
    """Removes what killed sweeps left in sweep folder `out`: the temporary folders of runs
    killed mid-write whose process is gone (not those of live runs), and the temporary files
    of a dataset being written (``.runs.parquet.<pid>.tmp``) whose process is gone."""
    from .output import remove_stale_temps

    runs_dir = out / "runs"
    if runs_dir.is_dir():
        remove_stale_temps(runs_dir)
        for p in runs_dir.iterdir():
            if _OLD_RUN_TMP.match(p.name) and p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
    for p in out.glob(".*.parquet.*.tmp"):
        pid = p.name.rsplit(".", 2)[-2]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}") and os.path.isdir("/proc/self"):
            p.unlink(missing_ok=True)


def plan(spec: SweepSpec, out: Path, force: bool,
         runs: Optional[Sequence[Run]] = None) -> tuple[list[Run], list[Run]]:
    """Expands (unless `runs` are given), validates and splits the runs into (to run,
    already complete). Raises :class:`SweepError` for a bad value or a run folder made from
    a different scenario."""
    from .output import check_out

    # `out` must be new, empty, a sweep's folder (resumed) or, with `force`, another
    # cellshare output (replaced); anything else is refused before anything runs.
    check_out(out, kind="sweep", force=force, resume=True)
    if runs is None:
        runs = spec.runs()
    validate_runs(spec, runs)
    todo, done = [], []
    for r in runs:
        folder = out / "runs" / r.run_id
        text = None if force else _complete_run_scenario(folder)
        if text is not None:
            if text != r.text():
                raise SweepError(f"{folder} was made from a different scenario than run {r.run_id} now expands "
                                 f"to (the base scenario changed?); expected the same sweep — use --force to "
                                 f"redo the runs, or another --out")
            done.append(r)
        else:
            todo.append(r)
    return todo, done


def _complete_run_scenario(folder: Path) -> Optional[str]:
    """The ``scenario.toml`` of a complete run in a run folder of the sweep, else None. Complete:
    its ``run.json`` (written last) is a table with the run's scalars and ``scenario.toml``
    reads. A folder damaged since (a truncated or edited file) is not complete, so resuming the
    sweep runs it again: it is the sweep's own folder (``runs/<id>``), replaced whatever it
    holds."""
    try:
        info = json.loads((folder / "run.json").read_text())
        text = (folder / "scenario.toml").read_text()
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return text if isinstance(info, dict) and isinstance(info.get("scalars"), dict) else None


def run_sweep(spec: SweepSpec, out: Union[str, os.PathLike], *, workers: Optional[int] = None,
              ray_address: Optional[str] = None, force: bool = False, progress: bool = False,
              tasks_per_worker: int = TASKS_PER_WORKER) -> SweepOutcome:
    """Runs the sweep into folder `out` (runs missing there, or all with `force`), then
    writes ``runs.parquet``, ``flows.parquet`` and ``sweep.json``. Everything is checked
    before the first run starts. A local worker process is replaced by a fresh one after
    `tasks_per_worker` runs."""
    from .output import SWEEP_ENTRIES, read_marker, replace_in_place, write_marker
    from .parallel import default_workers, run_parallel

    out = Path(out)
    all_runs = spec.runs()
    todo, done = plan(spec, out, force, all_runs)
    runs_dir = out / "runs"
    fresh = not out.exists()
    marker = read_marker(out) if out.is_dir() else None
    if marker is not None and marker["kind"] == "sweep":
        if not isinstance(marker.get("entries"), list):
            # a sweep folder from before the marker (or its list of entries) existed: the list
            # names what a sweep writes, never what else is there
            write_marker(out, "sweep", SWEEP_ENTRIES)
    else:
        # new, empty, or another output replaced (--force)
        replace_in_place(out, kind="sweep", entries=SWEEP_ENTRIES)
        if marker is not None:
            fresh = True
            todo, done = list(all_runs), []
    runs_dir.mkdir(parents=True, exist_ok=True)
    _clean_stale(out)
    (out / "sweep.toml").write_text(tomli_w.dumps(_jsonable(spec.source)))
    # on Ray, no count means as many runs in flight as the cluster has CPUs
    n_workers = workers or spec.workers or (None if ray_address else default_workers())
    jobs = _Jobs(todo, spec.base_dir, str(runs_dir))
    t0 = time.perf_counter()
    pids: set[int] = set()
    worker_rss = 0.0
    try:
        for _, info in run_parallel(_run_job, jobs, workers=n_workers, ray_address=ray_address, progress=progress,
                                    tasks_per_worker=tasks_per_worker, description=f"sweep: {len(jobs)} runs"):
            pids.add(info["worker_pid"])
            worker_rss = max(worker_rss, info["worker_peak_rss_mb"])
    except BaseException:
        # a folder this call created and no run completed in (e.g. Ray unreachable): remove it
        if fresh and not any(p.is_dir() and not p.name.startswith(".") for p in runs_dir.iterdir()):
            shutil.rmtree(out, ignore_errors=True)
        raise
    wall = time.perf_counter() - t0
    write_dataset(spec, all_runs, out)
    outcome = SweepOutcome(out=out, total=len(all_runs), ran=len(todo), skipped=len(done), wall_s=wall,
                           workers=n_workers, worker_pids=sorted(pids), parent_peak_rss_mb=round(_peak_rss_mb(), 1),
                           worker_peak_rss_mb=worker_rss)
    meta = {k: (str(v) if isinstance(v, Path) else v) for k, v in outcome.__dict__.items()}
    meta.update({"parameters": spec.param_names, "seeds": spec.seeds, "ray": ray_address})
    (out / "sweep.json").write_text(json.dumps(meta, indent=2) + "\n")
    return outcome


class _Jobs(collections.abc.Sequence):
    """The jobs of runs to do, built when the pool asks for them (at most a few are in
    flight), so thousands of scenario texts never sit in memory at once."""

    def __init__(self, runs: Sequence[Run], base_dir: str, runs_dir: str) -> None:
        self.runs, self.base_dir, self.runs_dir = runs, base_dir, runs_dir

    def __len__(self) -> int:
        return len(self.runs)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        r = self.runs[i]
        return (r.run_id, r.params, r.seed, r.text(), self.base_dir, self.runs_dir)


def _jsonable(doc: Any) -> Any:
    return json.loads(json.dumps(doc, default=str))


# -- the dataset ----------------------------------------------------------------------------

def flow_sizes(scenario: Mapping[str, Any], rows: Optional[int] = None) -> Optional[list[Optional[int]]]:
    """The size (``bytes``, None for unlimited) of every flow the engine builds from
    `scenario`'s ``[[flows]]``, in flow-id order (a ``ues`` entry gives one flow per UE).
    None when the scenario does not hold its UEs and flows as a valid one does, or (given
    `rows`) they are not `rows` flows: the sizes are counted before any list is built."""
    ues, flows = scenario.get("ues", []), scenario.get("flows", [])
    if not isinstance(ues, list) or not isinstance(flows, list):
        return None
    n_ues = 0
    for g in ues:
        count = g.get("count", 1) if isinstance(g, Mapping) else None
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            return None
        n_ues += count
    counts = []
    for f in flows:
        if not isinstance(f, Mapping):
            return None
        if "ue" in f:
            counts.append(1)
        elif f.get("ues") == "all":
            counts.append(n_ues)
        elif isinstance(f.get("ues", []), list):
            counts.append(len(f.get("ues", [])))
        else:
            return None
    if rows is not None and sum(counts) != rows:
        return None
    out: list[Optional[int]] = []
    for f, n in zip(flows, counts):
        out.extend([f.get("bytes")] * n)
    return out


def category_of(cls: str, size: Optional[int]) -> str:
    """The category of a flow without a ``category`` column: background flows are
    "background"; foreground flows are "short" up to 256 KB, "medium" up to 8 MB, "long"
    when larger or unlimited."""
    if cls == "background":
        return "background"
    if size is None:
        return "long"
    if size <= SHORT_MAX_BYTES:
        return "short"
    if size <= MEDIUM_MAX_BYTES:
        return "medium"
    return "long"


def with_categories(flows: pa.Table, scenario: Optional[Mapping[str, Any]]) -> pa.Table:
    """`flows` with a ``size_bytes`` column (from the scenario, when its flows can be
    matched one to one) and a ``category`` column (kept when present, except that the
    simulator's ``"custom"`` — a flow listed in ``[[flows]]`` — is derived with
    :func:`category_of` like a missing column; a finite flow whose size is unknown counts
    by the bytes it delivered if it completed)."""
    n = flows.num_rows
    sizes: list[Optional[int]] = [None] * n
    known = False
    if scenario is not None and "size_bytes" not in flows.column_names:
        s = flow_sizes(scenario, n)
        if s is not None and all(b is None or (type(b) is int and 0 <= b <= _I64_MAX) for b in s):
            sizes, known = s, True
    if "size_bytes" not in flows.column_names:
        if not known and "completed" in flows.column_names:
            comp = flows.column("completed").to_pylist()
            deliv = flows.column("bytes_delivered").to_pylist()
            sizes = [d if c else None for c, d in zip(comp, deliv)]
        flows = flows.append_column("size_bytes", pa.array(sizes, pa.int64()))
    cls = flows.column("class").to_pylist() if n else []
    sz = flows.column("size_bytes").to_pylist()
    if "category" not in flows.column_names:
        flows = flows.append_column("category", pa.array([category_of(c, s) for c, s in zip(cls, sz)], pa.string()))
    else:
        # The simulator's category is "custom" for flows listed in [[flows]]: those are
        # grouped by size as above, like flows of results without a category column.
        cat = flows.column("category").to_pylist()
        if "custom" in cat:
            fixed = [category_of(c, s) if k == "custom" else k for k, c, s in zip(cat, cls, sz)]
            i = flows.column_names.index("category")
            flows = flows.set_column(i, "category", pa.array(fixed, pa.string()))
    return flows


def _param_type(labels: Sequence[Any]) -> pa.DataType:
    if all(isinstance(v, bool) for v in labels):
        return pa.bool_()
    if all(isinstance(v, int) and not isinstance(v, bool) for v in labels):
        return pa.int64()
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in labels):
        return pa.float64()
    return pa.string()


def _param_fields(spec: SweepSpec) -> list[pa.Field]:
    fields = [pa.field(a.name, _param_type(a.labels)) for a in spec.axes]
    fields.append(pa.field("seed", pa.int64()))
    return fields


def _cast_param(v: Any, t: pa.DataType) -> Any:
    if t == pa.float64() and v is not None:
        return float(v)
    if t == pa.string() and v is not None and not isinstance(v, str):
        return str(v)
    return v


#: Row groups of flows.parquet: at most this many rows or runs' tables are held at once.
_BATCH_ROWS = 16384
_BATCH_RUNS = 64
#: The type of a flows column that is null in every run, when not a float.
_NULL_TYPES = {"size_bytes": pa.int64(), "category": pa.string()}


def write_dataset(spec: SweepSpec, runs: Sequence[Run], out: Path) -> None:
    """Writes ``runs.parquet`` and ``flows.parquet`` from the run folders, one run at a time
    (in expansion order, so the files do not depend on which run finished first)."""
    runs_dir = out / "runs"
    pfields = _param_fields(spec)
    scalar_types = {"drops": pa.int64(), "flows": pa.int64()}
    run_schema = pa.schema([pa.field("run_id", pa.string()), *pfields,
                            *(pa.field(k, scalar_types.get(k, pa.float64())) for k in RUN_SCALARS)])

    def param_values(r: Run) -> list[Any]:
        vals = [r.params[a.name] for a in spec.axes] + [r.seed]
        return [_cast_param(v, f.type) for v, f in zip(vals, pfields)]

    with _atomic_file(out / "runs.parquet") as tmp:
        writer = pq.ParquetWriter(tmp, run_schema)
        try:
            rows: list[dict] = []
            for r in runs:
                info = json.loads((runs_dir / r.run_id / "run.json").read_text())
                row = {"run_id": r.run_id}
                row.update(zip([f.name for f in pfields], param_values(r)))
                row.update(info["scalars"])
                rows.append(row)
                if len(rows) >= 1024:
                    writer.write_table(pa.Table.from_pylist(rows, schema=run_schema))
                    rows = []
            if rows or not runs:
                writer.write_table(pa.Table.from_pylist(rows, schema=run_schema))
        finally:
            writer.close()

    # flows: one unified schema (a column that is null in one run is typed in another)
    def load(r: Run) -> pa.Table:
        t = pq.read_table(runs_dir / r.run_id / "flows.parquet")
        return with_categories(t, r.scenario)

    flow_schema = pa.schema([])
    for r in runs:  # one schema at a time: thousands of schemas cost megabytes
        sch = pq.read_schema(runs_dir / r.run_id / "flows.parquet")
        for name, typ in (("size_bytes", pa.int64()), ("category", pa.string())):
            if name not in sch.names:
                sch = sch.append(pa.field(name, typ))
        flow_schema = pa.unify_schemas([flow_schema, sch], promote_options="permissive")
    # a column null in every run: the type it has when known (all flows unlimited: size_bytes)
    flow_schema = pa.schema([f if f.type != pa.null() else pa.field(f.name, _NULL_TYPES.get(f.name, pa.float64()))
                             for f in flow_schema])
    full_schema = pa.schema([pa.field("run_id", pa.string()), *pfields, *flow_schema])
    with _atomic_file(out / "flows.parquet") as tmp:
        writer = pq.ParquetWriter(tmp, full_schema)
        try:
            pending: list[pa.Table] = []  # a row group: up to _BATCH_ROWS rows or _BATCH_RUNS runs
            rows_pending = 0
            for r in runs:
                t = load(r)
                n = t.num_rows
                cols: dict[str, pa.Array] = {"run_id": pa.array([r.run_id] * n, pa.string())}
                for f, v in zip(pfields, param_values(r)):
                    cols[f.name] = pa.array([v] * n, f.type)
                for f in flow_schema:
                    cols[f.name] = t.column(f.name).cast(f.type) if f.name in t.column_names else pa.nulls(n, f.type)
                pending.append(pa.table(cols, schema=full_schema))
                rows_pending += n
                if rows_pending >= _BATCH_ROWS or len(pending) >= _BATCH_RUNS:
                    writer.write_table(pa.concat_tables(pending))
                    pending, rows_pending = [], 0
            if pending or not runs:
                writer.write_table(pa.concat_tables(pending) if pending else full_schema.empty_table())
        finally:
            writer.close()


class _atomic_file:
    """A temporary path beside `path`, renamed onto it on success and removed on error."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")

    def __enter__(self) -> Path:
        return self.tmp

    def __exit__(self, typ, exc, tb) -> None:
        if typ is None:
            os.replace(self.tmp, self.path)
        elif self.tmp.exists():
            self.tmp.unlink()


# -- from Python ----------------------------------------------------------------------------

class SweepResult:
    """A finished sweep's dataset: ``runs`` (one row per run) and ``flows`` (every run's
    flows), as pyarrow tables or DataFrames."""

    def __init__(self, out: Union[str, os.PathLike], outcome: Optional[SweepOutcome] = None) -> None:
        self.out = Path(out)
        #: What the run did (None when opened from a folder).
        self.outcome = outcome

    def table(self, name: str = "runs") -> pa.Table:
        """``"runs"`` or ``"flows"`` as a pyarrow table."""
        if name not in ("runs", "flows"):
            raise ValueError(f"table {name!r}: expected 'runs' or 'flows'")
        return pq.read_table(self.out / f"{name}.parquet")

    def to_pandas(self, name: str = "runs"):
        """``"runs"`` or ``"flows"`` as a pandas DataFrame."""
        from .frames import to_pandas

        return to_pandas(self.table(name))

    def to_polars(self, name: str = "runs"):
        """``"runs"`` or ``"flows"`` as a polars DataFrame."""
        from .frames import to_polars

        return to_polars(self.table(name))

    def run_dir(self, run_id: str) -> Path:
        """The folder of one run (summary.json, Parquet tables, scenario.toml, run.json)."""
        return self.out / "runs" / run_id


def sweep(spec: Union[str, os.PathLike, Mapping[str, Any]], out: Union[str, os.PathLike], *,
          workers: Optional[int] = None, ray: Optional[str] = None, force: bool = False,
          progress: bool = False) -> SweepResult:
    """Runs a sweep (a sweep TOML file, or a mapping with the same keys: ``base``,
    ``parameters``, ``axes``, ``seeds``, ``workers``) into folder `out`, resuming runs already
    there, and returns its :class:`SweepResult` — e.g. ``sweep(...).to_pandas("runs")``.
    `ray` is a Ray address (``"local"`` starts a local instance)."""
    spec_ = load_sweep(spec)
    outcome = run_sweep(spec_, out, workers=workers, ray_address=ray, force=force, progress=progress)
    return SweepResult(out, outcome)

