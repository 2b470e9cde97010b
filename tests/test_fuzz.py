"""Property-based fuzzing of cellshare's inputs with Hypothesis: scenario mappings
built by mutating the shipped scenarios, scenario TOML text, Mahimahi trace bytes and damaged
report folders. The properties:

- ``cellshare.api.validate`` and ``cellshare.run`` either succeed or raise
  ``ScenarioInvalid`` — never another exception, never a hang (a watchdog ends the process
  after WATCHDOG_S);
- an error never quotes a trace file's content;
- ``cellshare report`` of a damaged folder either renders or is one ``ReportError`` line.

Runs are kept tiny (``simulation.duration_s`` clamped to at most 0.2 s) and most examples
only validate. Examples are derandomized, so a run is the same everywhere; the file takes
about 65 s on an idle two-core machine (measured), more when the cores are shared.
"""

from __future__ import annotations

import copy
import faulthandler
import io
import json
import math
import shutil
from pathlib import Path

import pytest

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

from hypothesis import HealthCheck, given, settings  # the `test` extra (pyproject.toml)
from hypothesis import strategies as st

import cellshare
from cellshare import ScenarioInvalid
from cellshare.api import validate
from conftest import REPO

#: A hang ends the test process (with every thread's traceback) after this many seconds.
WATCHDOG_S = 60
#: Longest simulated run of an example, seconds.
MAX_RUN_S = 0.2
#: Most UEs of a scenario an example runs (a larger valid one is only validated).
MAX_RUN_UES = 200

SCENARIO_FILES = sorted((REPO / "scenarios").glob("*.toml")) + [REPO / "python" / "cellshare" / "data" / "default.toml"]
SEEDS = [(p.name, tomllib.loads(p.read_text())) for p in SCENARIO_FILES]
TEXTS = [(p.name, p.read_text()) for p in SCENARIO_FILES]

FUZZ = dict(deadline=None, derandomize=True, database=None, print_blob=False,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                   HealthCheck.large_base_example])


class watchdog:
    """Ends the process if the block takes longer than WATCHDOG_S (a hang in the extension
    holds the GIL, so no Python-level timeout could fire)."""

    def __enter__(self):
        faulthandler.dump_traceback_later(WATCHDOG_S, exit=True)

    def __exit__(self, *exc):
        faulthandler.cancel_dump_traceback_later()
        return False


def check_outcome(call, *args, **kw):
    """Runs `call`; it may succeed or raise ScenarioInvalid (three text args, one line)."""
    with watchdog():
        try:
            return call(*args, **kw)
        except ScenarioInvalid as e:
            assert len(e.args) == 3 and all(isinstance(a, str) for a in e.args), e.args
            assert "\n" not in e.args[0], e.args[0]
            return e
        except BaseException as e:  # noqa: BLE001 - a panic (PanicException) is a BaseException
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            raise AssertionError(f"{type(e).__module__}.{type(e).__name__} instead of ScenarioInvalid: {e!r:.500}") from e


# -- scenario mappings ---------------------------------------------------------------------

KEY_WORDS = ["kind", "count", "rate_mbps", "file", "ue", "ues", "duration_s", "seed", "class", "cc", "transport",
             "trace_interval_ms", "bytes", "start_s", "stop_s", "lln", "nodes", "parent", "name", "x" * 200, ""]
SPECIAL = [0, -1, 1, 2 ** 31, 2 ** 32, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63, -(2 ** 63), -(2 ** 63) - 1, 2 ** 64, 10 ** 30,
           0.0, -0.0, 5e-324, 1e-300, 1e300, 1.7e308, -1.7e308, math.inf, -math.inf, math.nan, 86400.0, 86400.001,
           "", "all", "none", "tcp", "cubic", "fixed", "trace", "radio", "fifo", "pf", "\ud800", "caf\udce9",
           "\u202e\x00", "a" * 5000, "builtin:nope", "/dev/zero", "../../../etc/passwd", True, False,
           b"bytes", bytearray(b"x"), {1, 2}, frozenset(), 1 + 2j, object(), Ellipsis, (), (1, 2.0), [], {}]

scalars = st.one_of(
    st.sampled_from(SPECIAL),
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=12),
    st.binary(max_size=6),
    st.sets(st.integers(0, 3), max_size=2),
    st.complex_numbers(max_magnitude=10),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.one_of(st.sampled_from(KEY_WORDS), st.text(max_size=6), st.integers(-2, 2), st.none()),
                    inner, max_size=3)), max_leaves=8)


def node_paths(doc, max_depth=12):
    """Every (path, value) under `doc`, tables and lists included, down to `max_depth` (a
    container met again — one that contains itself — is not entered twice)."""
    seen = set()
    todo = [((), doc)]
    while todo:
        path, node = todo.pop()
        yield path, node
        if isinstance(node, (dict, list)) and id(node) not in seen and len(path) < max_depth:
            seen.add(id(node))
            items = node.items() if isinstance(node, dict) else enumerate(node)
            todo.extend(reversed([(path + (k,), v) for k, v in items]))


def parent_of(doc, path):
    node = doc
    for p in path[:-1]:
        node = node[p]
    return node


@st.composite
def mutated_scenarios(draw, max_ops=4):
    """A shipped scenario with one to `max_ops` mutations: a value replaced by another type or
    an extreme, a key deleted or inserted, a value nested deep, a container made to contain
    itself."""
    name, doc = draw(st.sampled_from(SEEDS))
    doc = copy.deepcopy(doc)
    ops = []
    for _ in range(draw(st.integers(1, max_ops))):
        paths = [p for p, _ in node_paths(doc)]
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(["replace", "replace", "delete", "insert", "nest", "self"]))
        target = parent_of(doc, path) if path else None
        if op == "replace" and path:
            target[path[-1]] = copy.deepcopy(draw(values))
        elif op == "delete" and path:
            del target[path[-1]]
        elif op == "insert":
            node = parent_of(doc, path + (None,))
            if isinstance(node, dict):
                key = draw(st.one_of(st.sampled_from(KEY_WORDS), st.text(max_size=8), st.integers()))
                node[key] = copy.deepcopy(draw(values))
            elif isinstance(node, list):
                node.insert(draw(st.integers(0, len(node))), copy.deepcopy(draw(values)))
        elif op == "nest" and path:
            v = target[path[-1]]
            for _ in range(draw(st.sampled_from([1, 2, 70, 3000]))):
                v = draw(st.sampled_from([[v], {"x": v}]))
            target[path[-1]] = v
        elif op == "self" and path and isinstance(target[path[-1]], (dict, list)):
            inner = target[path[-1]]
            if isinstance(inner, dict):
                inner["loop"] = inner
            else:
                inner.append(inner)
        ops.append((op, path))
    return name, doc, ops


def tiny(doc):
    """`doc` with simulation.duration_s at most MAX_RUN_S (when it is a number)."""
    sim = doc.get("simulation") if isinstance(doc, dict) else None
    if isinstance(sim, dict):
        d = sim.get("duration_s")
        if d is None or (isinstance(d, (int, float)) and not isinstance(d, bool) and not d <= MAX_RUN_S):
            sim["duration_s"] = MAX_RUN_S
    elif isinstance(doc, dict) and "simulation" not in doc:
        doc["simulation"] = {"duration_s": MAX_RUN_S}
    return doc


def n_ues(doc) -> float:
    try:
        return sum(g.get("count", 1) for g in doc.get("ues", []))
    except Exception:  # noqa: BLE001 - a mutated document: count as too many to run
        return math.inf


@settings(max_examples=700, **FUZZ)
@given(mutated_scenarios())
def test_validate_a_mutated_scenario_mapping(case):
    name, doc, ops = case
    check_outcome(validate, doc, base_dir=REPO / "scenarios")


@settings(max_examples=100, **FUZZ)
@given(mutated_scenarios(max_ops=1))
def test_run_a_mutated_scenario_mapping(case):
    """One mutation (so that more of them stay valid), then a run of at most 0.2 s."""
    name, doc, ops = case
    doc = tiny(doc)
    if not isinstance(check_outcome(validate, doc, base_dir=REPO / "scenarios"), ScenarioInvalid) \
            and n_ues(doc) <= MAX_RUN_UES:
        check_outcome(cellshare.run, doc, base_dir=REPO / "scenarios")


@pytest.mark.parametrize("name,doc", SEEDS, ids=[n for n, _ in SEEDS])
def test_every_shipped_scenario_runs_briefly_or_is_refused(name, doc):
    """The fuzzer's seeds as they are: each runs for 0.2 s through the API (as `cellshare
    run` runs it) or is refused with ScenarioInvalid (a trace file not present here)."""
    check_outcome(cellshare.run, tiny(copy.deepcopy(doc)), base_dir=REPO / "scenarios")


# -- TOML text -----------------------------------------------------------------------------

@st.composite
def mutated_texts(draw):
    """A shipped scenario's bytes, mutated: lines deleted, repeated or inserted, bytes
    flipped, the text cut, nesting or huge numbers inserted, invalid UTF-8."""
    name, text = draw(st.sampled_from(TEXTS))
    data = text.encode()
    for _ in range(draw(st.integers(1, 3))):
        lines = data.split(b"\n")
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        op = draw(st.sampled_from(["del", "dup", "insert", "flip", "cut", "nest", "number"]))
        if op == "del":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i] * draw(st.integers(1, 3)))
        elif op == "insert":
            lines.insert(i, draw(st.one_of(st.binary(max_size=40), st.sampled_from([
                b"[[ues]]", b"[simulation]", b"[lln]", b"duration_s = 1e400", b"seed = 99999999999999999999",
                b"x = \"\xed\xa0\x80\"", b"\xff\xfe", b"count = 100000", b"[[flows]]\nue = 0",
                b"file = \"/dev/zero\"", b'channel = { kind = "trace", file = "builtin:../../etc/passwd" }']))))
        elif op == "flip" and data:
            lines = bytearray(data)
            for _ in range(draw(st.integers(1, 4))):
                lines[draw(st.integers(0, len(lines) - 1))] = draw(st.integers(0, 255))
            lines = bytes(lines).split(b"\n")
        elif op == "cut":
            lines = b"\n".join(lines)[:draw(st.integers(0, len(data)))].split(b"\n")
        elif op == "nest":
            k = draw(st.sampled_from([10, 500, 5000]))
            lines.insert(i, b"deep = " + b"[" * k + b"1" + b"]" * k)
        elif op == "number":
            lines.insert(i, draw(st.sampled_from([b"count = ", b"duration_s = ", b"seed = ", b"rate_mbps = "]))
                         + str(draw(st.sampled_from(SPECIAL[:24]))).encode())
        data = b"\n".join(lines)
    return name, data


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@settings(max_examples=300, **FUZZ)
@given(case=mutated_texts())
def test_validate_mutated_toml_text(work, case):
    name, data = case
    path = work / "scenario.toml"
    path.write_bytes(data)
    check_outcome(validate, path)


@pytest.mark.parametrize("text", [
    "[0\n",               # found by test_validate_mutated_toml_text: a table header cut short
    '"a\\nb" = 1\n',     # found by test_validate_a_mutated_scenario_mapping: a key with a newline
])
# Both spanned two lines once: the TOML parser's syntax error passed on as it is, and an
# unknown key quoted with its newline (crates/sim/src/scenario.rs now keeps errors on one line).
def test_a_rust_error_is_one_line(tmp_path, text):
    (tmp_path / "s.toml").write_text(text)
    with pytest.raises(ScenarioInvalid) as e:
        validate(tmp_path / "s.toml")
    assert "\n" not in e.value.args[0], e.value.args[0]


# -- trace files ---------------------------------------------------------------------------

#: The first line of every fuzzed trace: no error may ever quote it.
SECRET = b"root:*:19000:0:99999:7:::"
TRACE_SCENARIO = """\
[simulation]
duration_s = 0.1
[[ues]]
channel = { kind = "trace", file = "t.down" }
[[flows]]
ue = 0
transport = { kind = "cbr", rate_mbps = 1.0 }
"""

trace_lines = st.one_of(
    st.integers(0, 2000).map(lambda v: str(v).encode()),
    st.sampled_from([b"", b" ", b"-1", b"1e3", b"0x10", b"1.5", b"1000000000", b"1000000001", b"18446744073709551616",
                     b"99999999999999999999999999", b"\xff\xfe", b"1\r", b"\t7", b"+3", b"\x00"]),
    st.binary(max_size=12),
)


@st.composite
def trace_bytes(draw):
    kind = draw(st.sampled_from(["increasing", "lines", "bytes", "empty"]))
    if kind == "increasing":
        steps = draw(st.lists(st.integers(0, 50), min_size=1, max_size=60))
        body = b"\n".join(str(sum(steps[:k + 1])).encode() for k in range(len(steps)))
    elif kind == "lines":
        body = b"\n".join(draw(st.lists(trace_lines, max_size=30)))
    elif kind == "bytes":
        body = draw(st.binary(max_size=300))
    else:
        body = b""
    lines = body.split(b"\n")
    # the secret first, or after a valid start (every line before it parses)
    k = draw(st.integers(0, len(lines))) if kind == "increasing" else 0
    return b"\n".join(lines[:k] + [SECRET] + lines[k:]) + draw(st.sampled_from([b"", b"\n", b"\n\n"]))


def content_quoted(msg: str, data: bytes) -> list[str]:
    """Lines of the trace `data` (not plain numbers, which errors name as values) that `msg`
    quotes."""
    lines = [ln.strip() for ln in data.decode("utf-8", "replace").splitlines()]
    return [ln for ln in lines if len(ln) >= 6 and not ln.lstrip("+-").isdigit() and ln in msg]


@settings(max_examples=200, **FUZZ)
@given(data=trace_bytes())
def test_a_fuzzed_trace_is_refused_without_quoting_it(work, data):
    (work / "t.down").write_bytes(data)
    (work / "trace.toml").write_text(TRACE_SCENARIO)
    out = check_outcome(validate, work / "trace.toml")
    assert isinstance(out, ScenarioInvalid), "a trace whose first line is text was accepted"
    assert content_quoted(out.args[0], data) == [], out.args[0]
    assert SECRET.decode() not in out.args[0], out.args[0]


@settings(max_examples=60, **FUZZ)
@given(data=trace_bytes())
def test_a_fuzzed_trace_without_the_secret_validates_or_is_refused(work, data):
    """The same traces without the text line: a valid one is accepted, and a run of it works."""
    data = b"\n".join(ln for ln in data.split(b"\n") if ln != SECRET)
    (work / "t.down").write_bytes(data)
    (work / "trace.toml").write_text(TRACE_SCENARIO)
    out = check_outcome(validate, work / "trace.toml")
    if isinstance(out, ScenarioInvalid):
        assert content_quoted(out.args[0], data) == [], out.args[0]
    else:
        check_outcome(cellshare.run, work / "trace.toml")


def test_a_trace_line_is_never_quoted(tmp_path):
    """Found by test_a_fuzzed_trace_is_refused_without_quoting_it: the Rust trace parser quoted
    a line that is not a number (crates/channel/src/trace.rs, fixed there)."""
    (tmp_path / "t.down").write_bytes(SECRET + b"\n1\n2\n")
    (tmp_path / "s.toml").write_text(TRACE_SCENARIO)
    with pytest.raises(ScenarioInvalid) as e:
        validate(tmp_path / "s.toml")
    assert SECRET.decode() not in e.value.args[0], e.value.args[0]


# -- report folders ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def report_folders(tmp_path_factory):
    """A two-run sweep and a single run (1 s each), made with the command line."""
    from conftest import cellshare as cli
    from test_sweep import BASE

    d = tmp_path_factory.mktemp("fuzz-report")
    (d / "base.toml").write_text(BASE.replace("duration_s = 3.0", "duration_s = 1.0"))
    (d / "sweep.toml").write_text('base = "base.toml"\nseeds = 1\n[axes.scheme]\ncubic = { "flows[1].transport.cc.kind" '
                                  '= "cubic" }\n"w/o bg" = { remove = ["flows[1]"] }\n')
    for args in (["sweep", d / "sweep.toml", "--out", d / "sweep", "--workers", "2"],
                 ["run", d / "base.toml", "--out", d / "run"]):
        p = cli(*args)
        assert p.returncode == 0, p.stderr
    return {"sweep": d / "sweep", "run": d / "run"}


JSON_VALUES = st.one_of(
    st.sampled_from([None, True, 0, -1, 1e308, -1e308, 10 ** 30, 10 ** 400, 1.5, "", "x", [], {}, [1], {"a": 1},
                     math.nan, math.inf]),
    st.integers(), st.floats(), st.text(max_size=8))
ARROW_KINDS = ["drop", "rename", "strings", "ints", "floats", "nulls", "lists", "bools", "slice", "filter", "shuffle",
               "huge", "nan"]


def damage_table(path: Path, op: str, col_pick: int, draw_rows) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        t = pq.read_table(path)
    except (OSError, pa.ArrowException):  # damaged by an earlier step already
        return
    if t.num_columns == 0:
        return
    name = t.column_names[col_pick % t.num_columns]
    i, n = t.column_names.index(name), t.num_rows
    col = {
        "strings": lambda: pa.array(["x"] * n), "ints": lambda: pa.array([2 ** 62] * n, pa.int64()),
        "floats": lambda: pa.array([0.5] * n), "nulls": lambda: pa.nulls(n), "lists": lambda: pa.array([[1]] * n),
        "bools": lambda: pa.array([True] * n), "huge": lambda: pa.array([1.7e308] * n),
        "nan": lambda: pa.array([math.nan] * n),
    }.get(op)
    if col is not None:
        t = t.set_column(i, name, col())
    elif op == "drop":
        t = t.drop_columns([name])
    elif op == "rename":
        t = t.rename_columns([c if c != name else c + "_x" for c in t.column_names])
    elif op == "slice":
        t = t.slice(0, draw_rows(n))
    elif op == "filter":
        t = t.take([k for k in range(n) if (k * 7 + col_pick) % 3])
    elif op == "shuffle":
        t = t.take(list(reversed(range(n))))
    pq.write_table(t, path)


@st.composite
def report_damage(draw):
    kind = draw(st.sampled_from(["sweep", "run"]))
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        target = draw(st.sampled_from({
            "sweep": ["runs.parquet", "flows.parquet", "runs/*/flow_series.parquet", "runs/*/queue_delay_cdf.parquet",
                      "sweep.json", "sweep.toml"],
            "run": ["summary.json", "flows.parquet", "flow_series.parquet", "queue_delay_cdf.parquet",
                    "scenario.toml"]}[kind]))
        if target.endswith(".parquet"):
            ops.append((target, draw(st.sampled_from(ARROW_KINDS + ["truncate", "flip"])), draw(st.integers(0, 10 ** 6)),
                        draw(st.integers(0, 10))))
        else:
            ops.append((target, draw(st.sampled_from(["value", "value", "truncate", "deep", "bytes"])),
                        draw(st.integers(0, 10 ** 6)), draw(JSON_VALUES)))
    return kind, ops


def apply_damage(folder: Path, ops) -> None:
    for target, op, a, b in ops:
        for path in sorted(folder.glob(target)):
            if op == "truncate":
                data = path.read_bytes()
                path.write_bytes(data[:a % (len(data) + 1)])
            elif op == "flip":  # bytes overwritten anywhere (pyarrow refuses or reads other values)
                data = bytearray(path.read_bytes())
                for k in range(b + 1):
                    if data:
                        data[(a * (k + 1) * 7919) % len(data)] = (a >> k) & 0xFF
                path.write_bytes(bytes(data))
            elif path.suffix == ".parquet":
                damage_table(path, op, a, lambda n: min(n, b))
            elif op == "deep":
                path.write_text('{"a":' * 100_000 + "1" + "}" * 100_000 if path.suffix == ".json"
                                else "x = " + "[" * 100_000 + "]" * 100_000)
            elif op == "bytes":
                path.write_bytes(bytes((a >> k) & 0xFF for k in range(0, 64, 8)))
            elif path.suffix == ".json":
                try:
                    doc = json.loads(path.read_text())
                except (ValueError, RecursionError):  # damaged by an earlier step already
                    continue
                paths = [p for p, _ in node_paths(doc) if p]
                if paths:
                    p = paths[a % len(paths)]
                    parent_of(doc, p)[p[-1]] = b
                path.write_text(json.dumps(doc))
            else:  # a TOML file: a value appended as text
                with open(path, "a") as f:
                    f.write(f"\nname = {json.dumps(b)}\n")


@settings(max_examples=90, **FUZZ)
@given(case=report_damage())
def test_report_of_a_damaged_folder_renders_or_is_one_error(report_folders, work, quick_figures, case):
    from cellshare.output import OutputError
    from cellshare.report import ReportError, write_report

    kind, ops = case
    d = work / "report-case"
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(report_folders[kind], d, ignore=shutil.ignore_patterns("report"))
    apply_damage(d, ops)
    with watchdog():
        try:
            write_report(d)
        except (ReportError, OutputError) as e:
            msg = str(e)
            assert "\n" not in msg and len(msg) < 1000, msg
            assert not (d / "report").exists()


@pytest.fixture(scope="module")
def quick_figures():
    """Figures drawn at a low resolution and not saved (the data is what is fuzzed)."""
    from cellshare import report

    def save(fig, out, stem):
        fig.savefig(io.BytesIO(), format="png", dpi=20)
        import matplotlib.pyplot as plt

        plt.close(fig)
        return f"{stem}.png"

    mp = pytest.MonkeyPatch()
    mp.setattr(report, "_save", save)
    yield
    mp.undo()
