"""Congestion controllers and queue disciplines written in Python (cellshare.plugins,
docs/extending/python.md): the hooks are faithful (a Python Reno is byte-identical to the
Rust Reno on the benchmark, a Python drop-tail to the Rust tail drop), the docs' examples run
from a scenario file and from the API, and every way to get an entry wrong, or a hook to
fail, is one line naming the key or the class and the hook."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import shutil
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import cellshare
from cellshare import _core
from cellshare.api import run_text
from cellshare.output import write_result
from cellshare.plugins import CongestionControl, Dequeue, Enqueue, QueueDiscipline
from conftest import REPO, cellshare as cli, one_line_error

DOC_EXAMPLE = REPO / "docs" / "extending" / "cc_example.py"
BENCH = REPO / "python" / "cellshare" / "data" / "bench.toml"
COST = REPO / "docs" / "extending" / "python_cost.json"
QDISC_EXAMPLE = REPO / "docs" / "extending" / "qdisc_example.py"
QDISC_COST = REPO / "docs" / "extending" / "python_qdisc_cost.json"

SMALL = """
[simulation]
duration_s = {duration}
seed = 3

[cell]
bandwidth_mhz = 5
scheduler = {{ kind = "pf" }}

[[ues]]
count = 2
channel = {{ kind = "radio", distance_range_m = [100.0, 400.0] }}

[[flows]]
ues = "all"
transport = {{ kind = "tcp", cc = {cc} }}
"""


def small(cc: str, duration: float = 2.0) -> str:
    return SMALL.format(cc=cc, duration=duration)


def doc_module():
    spec = importlib.util.spec_from_file_location("cc_example", DOC_EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _outputs(result, label_from: str, label_to: str) -> dict:
    """Every output file of `result` as cellshare run writes it: summary.json without its
    wall-clock keys, each table's rows; `label_from` (the flows' transport label) read as
    `label_to`."""
    out = {}
    d = Path(tempfile.mkdtemp(prefix="cellshare-plugins-"))
    try:
        write_result(result, d, scenario_text="")
        for f in sorted(d.rglob("*")):
            if f.name == "summary.json":
                s = json.loads(f.read_text().replace(f'"{label_from}"', f'"{label_to}"'))
                for k in cellshare.api.WALL_CLOCK_KEYS:
                    s.pop(k, None)
                out[f.name] = json.dumps(s, sort_keys=True)
            elif f.suffix == ".parquet":
                t = pq.read_table(f).replace_schema_metadata(None).to_pylist()
                out[str(f.relative_to(d))] = json.dumps(t, default=str).replace(f'"{label_from}"', f'"{label_to}"')
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return out


def test_python_reno_is_byte_identical_to_the_rust_reno_on_the_benchmark():
    # The benchmark scenario (100 UEs, saturating TCP), every flow on Reno, 10 s: the Python
    # port of reno.rs must give the same summary and the same rows in every table (the flows'
    # transport label aside: `tcp-python` names what ran).
    text = BENCH.read_text().replace("duration_s = 60.0", "duration_s = 10.0")
    rust = text.replace('cc = { kind = "cubic" }', 'cc = { kind = "reno" }')
    py = text.replace('cc = { kind = "cubic" }', 'cc = { kind = "python", class = "cellshare.plugins_examples:Reno" }')
    assert rust != text and py != text
    a = _outputs(run_text(rust, str(BENCH.parent)), "tcp-reno", "tcp-reno")
    b = _outputs(run_text(py, str(BENCH.parent)), "tcp-python", "tcp-reno")
    assert sorted(a) == sorted(b)
    s = json.loads(a["summary.json"])
    assert s["flows"][0]["transport"] == "tcp-reno" and len(s["flows"]) == 100
    assert sum(f["retransmits"] for f in s["flows"]) > 0, "the comparison covers loss recovery"
    for name in a:
        assert a[name] == b[name], f"{name} differs between the Rust and the Python Reno"


def test_python_reno_parameters_follow_the_rust_ones():
    rust = cellshare.run(_toml_map(small('{ kind = "reno", beta = 0.7, abc_limit = 1 }')))
    py = cellshare.run(_toml_map(small('{ kind = "python", class = "cellshare.plugins_examples:Reno", '
                                       'params = { beta = 0.7, abc_limit = 1 } }')))
    assert [f["bytes_delivered"] for f in rust.raw["flows"]] == [f["bytes_delivered"] for f in py.raw["flows"]]


def _toml_map(text: str) -> dict:
    import tomllib

    return tomllib.loads(text)


def test_the_docs_example_runs_from_a_scenario_file_and_from_the_api(tmp_path):
    # The scenario form: the module beside the scenario file.
    shutil.copy(DOC_EXAMPLE, tmp_path / "cc_example.py")
    scenario = tmp_path / "aimd.toml"
    scenario.write_text(small('{ kind = "python", class = "cc_example:Aimd", params = { decrease = 0.7 } }', 4.0))
    r = cellshare.run(scenario)
    flows = r.raw["flows"]
    assert [f["transport"] for f in flows] == ["tcp-python", "tcp-python"]
    assert all(f["bytes_delivered"] > 100_000 for f in flows), flows
    assert r.summary["prb_utilization"] > 0.5
    # The API form: the class object itself; the same run.
    mod = doc_module()
    m = _toml_map(small('{ kind = "python", class = "x:y", params = { decrease = 0.7 } }', 4.0))
    m["flows"][0]["transport"]["cc"]["class"] = mod.Aimd
    r2 = cellshare.run(m)
    assert [f["bytes_delivered"] for f in r2.raw["flows"]] == [f["bytes_delivered"] for f in flows]
    # AIMD, not Reno: its window never slow-starts, so it climbs by one MSS per round trip.
    reno = cellshare.run(_toml_map(small('{ kind = "reno" }', 4.0)))
    assert [f["bytes_delivered"] for f in reno.raw["flows"]] != [f["bytes_delivered"] for f in flows]


class Recorder(CongestionControl):
    """Records every hook call with its arguments (the hooks and the event objects as the
    simulator hands them over)."""

    calls: list = []

    def __init__(self, ctx, params):
        super().__init__(ctx, params)
        self.w = ctx.initial_window
        self.calls.append(("init", ctx.mss, ctx.initial_window, ctx.index))

    def on_ack(self, ev):
        self.calls.append(("on_ack", ev))
        if not ev.in_recovery and ev.acked_bytes:
            self.w += ev.mss

    def on_congestion_event(self, ev):
        self.calls.append(("on_congestion_event", ev))
        self.w = max(self.w // 2, 2 * ev.mss)

    def on_timeout(self, now, bytes_in_flight, mss):
        self.calls.append(("on_timeout", now))
        self.w = mss

    def on_sent(self, now, bytes, bytes_in_flight):
        self.calls.append(("on_sent", now, bytes, bytes_in_flight))

    def on_established(self, ev):
        self.calls.append(("on_established", ev))

    def cwnd(self):
        return self.w

    def ssthresh(self):
        return 2 ** 64 - 1


def test_hooks_receive_read_only_events_with_the_rust_fields():
    Recorder.calls = []
    m = _toml_map(small('{ kind = "python", class = "x:y" }', 1.0))
    m["ues"][0]["count"] = 1
    m["flows"][0]["transport"]["cc"]["class"] = Recorder
    cellshare.run(m)
    calls = Recorder.calls
    assert calls[0] == ("init", 1448, 14480, 0)
    acks = [c[1] for c in calls if c[0] == "on_ack"]
    sent = [c for c in calls if c[0] == "on_sent"]
    assert len(acks) > 100 and len(sent) > 100
    ev = acks[-1]
    assert isinstance(ev, cellshare.plugins.AckEvent) and type(ev.now) is int and ev.mss == 1448
    assert ev.srtt > 0 and ev.min_rtt > 0 and ev.delivered > 0 and isinstance(ev.in_recovery, bool)
    assert any(a.rate_sample is not None and a.rate_sample.delivery_rate > 0 for a in acks)
    assert all(b.now >= a.now for a, b in zip(acks, acks[1:])), "ACKs arrive in time order"
    with pytest.raises(AttributeError):
        ev.now = 0
    est = [c[1] for c in calls if c[0] == "on_established"]
    assert len(est) == 1 and est[0].srtt > 0 and est[0].now < acks[0].now
    assert sent[0][2] == 1448 and sent[0][3] == 1448


# -- errors -------------------------------------------------------------------------------------

def invalid(text: str, base=None, **kw) -> _core.ScenarioInvalid:
    with pytest.raises(_core.ScenarioInvalid) as e:
        run_text(text, str(base or REPO), **kw)
    msg = e.value.args[0]
    assert "\n" not in msg, msg
    return e.value


@pytest.mark.parametrize("cc, key, words", [
    ('{ kind = "python" }', "flows[0].transport", ["class"]),
    ('{ kind = "python", class = "nocolon" }', "flows[0].transport.cc.class", ['"module:Class"', "nocolon"]),
    ('{ kind = "python", class = 3 }', "flows[0].transport.cc.class", ["expected a string"]),
    ('{ kind = "python", class = "no_such_module_x:C" }', "flows[0].transport.cc.class",
     ["a module 'no_such_module_x' in the scenario's folder"]),
    ('{ kind = "python", class = "cellshare.plugins_examples:Nope" }', "flows[0].transport.cc.class",
     ["a class 'Nope' in module cellshare.plugins_examples"]),
    ('{ kind = "python", class = "cellshare.plugins:Params" }', "flows[0].transport.cc.class",
     ["a subclass of cellshare.plugins.CongestionControl"]),
    ('{ kind = "python", class = "cellshare.plugins:CongestionControl" }', "flows[0].transport.cc.class",
     ["defining on_ack, on_congestion_event, on_timeout, cwnd, ssthresh"]),
    ('{ kind = "python", class = "cellshare.plugins_examples:Reno", params = { betta = 0.7 } }',
     "flows[0].transport.cc.params.betta", ["Reno's parameters (abc_limit, beta, initial_ssthresh)"]),
    ('{ kind = "python", class = "cellshare.plugins_examples:Reno", params = { beta = "x" } }',
     "flows[0].transport.cc.params.beta", ['got "x", expected a number']),
    ('{ kind = "python", class = "cellshare.plugins_examples:Reno", params = { beta = 1.5 } }',
     "flows[0].transport.cc.params.beta", ["got 1.5, expected in (0, 1)"]),
    ('{ kind = "python", class = "cellshare.plugins_examples:Reno", params = { abc_limit = true } }',
     "flows[0].transport.cc.params.abc_limit", ["got true, expected an integer"]),
    ('{ kind = "python", class = "cellshare.plugins_examples:Reno", parms = {} }', "flows[0].transport.cc.parms",
     ["unknown field `parms`, expected `class` or `params`"]),
])
def test_bad_entries_are_one_line_naming_the_key(cc, key, words):
    e = invalid(small(cc))
    assert e.args[1] == key, e.args
    for w in words:
        assert w in e.args[0], (w, e.args[0])


def test_a_module_that_fails_to_import_is_named_with_its_error(tmp_path):
    (tmp_path / "broken.py").write_text("import math\nx = 1 / 0\n")
    e = invalid(small('{ kind = "python", class = "broken:C" }'), tmp_path)
    assert e.args[1] == "flows[0].transport.cc.class"
    assert "importing broken raised ZeroDivisionError: division by zero" in e.args[0]
    assert "broken.py:2" in e.args[0]
    # `validate` checks the same, without running.
    with pytest.raises(_core.ScenarioInvalid, match="ZeroDivisionError"):
        _core.validate(small('{ kind = "python", class = "broken:C" }'), str(tmp_path))


def test_a_workload_names_its_controller_key(tmp_path):
    text = small('{ kind = "reno" }') + ('[workload]\narrivals = { kind = "poisson", load = 0.3 }\n'
                                          'transport = { kind = "tcp", cc = { kind = "python", class = "nope:C" } }\n')
    assert invalid(text).args[1] == "workload.transport.cc.class"


FAILING = '''
from cellshare.plugins import CongestionControl, Dequeue, Enqueue, QueueDiscipline


class Failing(CongestionControl):
    PARAMS = {"fail_in": "on_ack", "after_ns": 0}

    def __init__(self, ctx, params):
        super().__init__(ctx, params)
        if params.fail_in == "__init__":
            raise RuntimeError("no window today")
        self.w = ctx.initial_window

    def on_ack(self, ev):
        if self.params.fail_in == "on_ack" and ev.now >= self.params.after_ns:
            {}[ev.ack_seq]
        if self.params.fail_in == "interrupt" and ev.now >= self.params.after_ns:
            raise KeyboardInterrupt
        self.w += ev.acked_bytes

    def on_congestion_event(self, ev):
        self.w //= 2

    def on_timeout(self, now, bytes_in_flight, mss):
        self.w = mss

    def cwnd(self):
        if self.params.fail_in == "cwnd" and self.w > 100_000:
            return -1
        return self.w

    def ssthresh(self):
        return 2 ** 64 - 1
'''


@pytest.mark.parametrize("fail_in, words", [
    ("on_ack", ["python controller failing:Failing: on_ack raised KeyError:", "failing.py:16"]),
    ("__init__", ["python controller failing:Failing: __init__ raised RuntimeError: no window today"]),
    ("cwnd", ["python controller failing:Failing: cwnd() returned -1, expected an integer number of bytes >= 1"]),
])
def test_a_failing_hook_stops_the_run_with_one_line(tmp_path, fail_in, words):
    (tmp_path / "failing.py").write_text(FAILING)
    cc = f'{{ kind = "python", class = "failing:Failing", params = {{ fail_in = "{fail_in}", after_ns = 500000000 }} }}'
    scenario = tmp_path / "s.toml"
    scenario.write_text(small(cc, 30.0))
    with pytest.raises(_core.ControllerFailed) as e:
        cellshare.run(scenario)
    msg = e.value.args[0]
    assert "\n" not in msg and isinstance(e.value, _core.ScenarioInvalid), msg
    for w in words:
        assert w in msg, (w, msg)
    # The CLI: exit 2, one line.
    p = cli("run", scenario, "--json")
    one_line_error(p, *words)


def test_the_cost_page_shows_the_measured_numbers():
    # tools/plugin_cost.py measures the benchmark with the Python Reno at every UE against the
    # Rust Reno and writes docs/extending/python_cost.json; the page quotes it.
    cost = json.loads(COST.read_text())
    page = (REPO / "docs" / "extending" / "python.md").read_text()
    for k in ("rust_speed", "python_speed", "slowdown", "duration_s", "ues"):
        assert k in cost, k
    assert cost["python_speed"] > 0 and math.isclose(cost["slowdown"], cost["rust_speed"] / cost["python_speed"],
                                                     rel_tol=1e-3)
    assert f"{cost['python_speed']:.1f}× real time" in page
    assert f"{cost['rust_speed']:.1f}× real time" in page
    assert f"{cost['slowdown']:.1f}× slower" in page
    assert f"{cost['duration_s']:g} simulated seconds" in page
    assert re.search(r'--8<-- "docs/extending/cc_example.py"', page)


def test_ctrl_c_in_a_hook_interrupts_the_run(tmp_path):
    # Ctrl-C lands in a hook (Python code runs there): the run stops with KeyboardInterrupt,
    # as between steps, not with a controller error.
    (tmp_path / "failing.py").write_text(FAILING)
    scenario = tmp_path / "s.toml"
    scenario.write_text(small('{ kind = "python", class = "failing:Failing", params = { fail_in = "interrupt" } }', 30.0))
    with pytest.raises(KeyboardInterrupt):
        cellshare.run(scenario)


def test_cellshare_validate_loads_and_checks_the_class(tmp_path):
    shutil.copy(DOC_EXAMPLE, tmp_path / "cc_example.py")
    scenario = tmp_path / "s.toml"
    scenario.write_text(small('{ kind = "python", class = "cc_example:Aimd", params = { decrease = 1.5 } }'))
    one_line_error(cli("validate", scenario), "`flows[0].transport.cc.params.decrease`: got 1.5, expected in (0, 1)")
    scenario.write_text(small('{ kind = "python", class = "cc_example:Aimd", params = { decrease = 0.7 } }'))
    p = cli("validate", scenario)
    assert p.returncode == 0, p.stderr


# -- queue disciplines ------------------------------------------------------------------------

def with_aqm(aqm: str, duration: float = 2.0, cc: str = '{ kind = "cubic" }') -> str:
    """The small scenario with `cell.aqm = aqm`."""
    return small(cc, duration).replace('scheduler = { kind = "pf" }', f'scheduler = {{ kind = "pf" }}\naqm = {aqm}')


def drops(result) -> tuple[int, int]:
    """(drops at arrival, drops at dequeue) at the base station's queues."""
    d = result.raw["drops"]
    return d["bs_enqueue"], d["bs_dequeue"]


def test_python_drop_tail_is_byte_identical_to_the_rust_tail_drop_on_the_benchmark():
    # The benchmark scenario (100 UEs, saturating TCP), 10 s, every UE queue under the Python
    # drop-tail against `kind = "tail_drop"` at a queue limit the flows overrun: the same
    # summary and the same rows in every table.
    text = BENCH.read_text().replace("duration_s = 60.0", "duration_s = 10.0")
    anchor = 'link = { kind = "realistic" }'
    assert anchor in text
    limit = "\nrlc_queue_bytes = 60000\n"
    rust = text.replace(anchor, anchor + limit + 'aqm = { kind = "tail_drop" }')
    py = text.replace(anchor, anchor + limit + 'aqm = { kind = "python", class = "cellshare.plugins_examples:DropTail" }')
    ra, rb = run_text(rust, str(BENCH.parent)), run_text(py, str(BENCH.parent))
    assert drops(ra)[0] > 0, "the comparison covers drops at the limit"
    a = _outputs(ra, '"kind": "tail_drop"', '"kind": "tail_drop"')
    b = _outputs(rb, '"kind": "tail_drop"', '"kind": "tail_drop"')
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name] == b[name], f"{name} differs between the Rust tail drop and the Python DropTail"


@pytest.mark.parametrize("aqm, rust", [
    ('{ kind = "python", class = "cellshare.plugins_examples:Bode", params = { bounded_delay_ms = 30.0 } }',
     '{ kind = "bode", bounded_delay_ms = 30.0 }'),
    ('{ kind = "python", class = "x:HeadDrop", limit_packets = 40 }', '{ kind = "head_drop", limit_packets = 40 }'),
])
def test_python_disciplines_deciding_at_dequeue_and_by_head_drop_follow_the_rust_ones(aqm, rust):
    # BoDe drops at dequeue (the hook asked again about each next head), head drop pushes the
    # oldest packets out (`ACCEPT_DROPPING_HEAD` against the packet limit).
    r = cellshare.run(_toml_map(with_aqm(rust, 3.0)))
    m = _toml_map(with_aqm(aqm, 3.0))
    if m["cell"]["aqm"]["class"] == "x:HeadDrop":
        m["cell"]["aqm"]["class"] = HeadDrop
    p = cellshare.run(m)
    assert sum(drops(r)) > 0
    assert drops(p) == drops(r)
    assert [f["bytes_delivered"] for f in p.raw["flows"]] == [f["bytes_delivered"] for f in r.raw["flows"]]


class HeadDrop(QueueDiscipline):
    """Rust `head_drop`: an arrival that does not fit pushes the oldest packets out."""

    def on_enqueue(self, now, packet, queue):
        if queue.fits(packet.size):
            return Enqueue.ACCEPT
        return Enqueue.ACCEPT_DROPPING_HEAD


class QueueRecorder(QueueDiscipline):
    """Records what each hook is given."""

    calls: list = []

    def __init__(self, ctx, params):
        super().__init__(ctx, params)
        self.calls.append(("init", ctx))

    def on_enqueue(self, now, packet, queue):
        self.calls.append(("enq", now, packet, queue))
        return Enqueue.ACCEPT

    def on_dequeue(self, now, packet, queue):
        self.calls.append(("deq", now, packet, queue))
        return Dequeue.TRANSMIT


def test_queue_hooks_receive_read_only_packets_and_queue_views():
    QueueRecorder.calls = []
    m = _toml_map(with_aqm('{ kind = "python", class = "x:y" }', 1.0))
    m["cell"]["aqm"]["class"] = QueueRecorder
    m["cell"]["rlc_queue_bytes"] = 20_000
    r = cellshare.run(m)
    calls = QueueRecorder.calls
    inits = [c[1] for c in calls if c[0] == "init"]
    assert [(c.ue, c.diffserv_class, c.cell, c.seed, c.limit_bytes, c.limit_packets) for c in inits] == \
        [(0, 0, 0, 3, 20_000, None), (1, 0, 0, 3, 20_000, None)]
    enq = [c for c in calls if c[0] == "enq"]
    deq = [c for c in calls if c[0] == "deq"]
    assert len(enq) > 100 and len(deq) > 100
    _, now, pkt, q = enq[-1]
    assert isinstance(pkt, cellshare.plugins.Packet) and isinstance(q, cellshare.plugins.QueueView)
    assert pkt.enqueued_at is None and pkt.size > pkt.payload > 0 and pkt.foreground and not pkt.is_ack
    assert pkt.flow in (0, 1) and pkt.ue == pkt.flow and type(now) is int
    assert all(c[3].fits(c[2].size) == (c[3].bytes + c[2].size <= 20_000) for c in enq)
    for _, now, pkt, q in deq:
        assert pkt.enqueued_at is not None and pkt.enqueued_at <= now
        assert q.packets >= 1 and q.head_sojourn == now - q.head_enqueued_at
    assert any(c[3].bytes + c[2].size > 20_000 for c in enq), "some arrivals overran the limit"
    # The hard limit held although the class accepted everything: the overrunning arrivals
    # were dropped.
    assert drops(r)[0] == sum(1 for c in enq if not c[3].fits(c[2].size))
    with pytest.raises(AttributeError):
        pkt.size = 0
    assert "enqueued_at=" in repr(pkt) and "head_sojourn=" in repr(q)


def test_the_qdisc_docs_example_runs_from_a_scenario_file_and_from_the_api(tmp_path):
    shutil.copy(QDISC_EXAMPLE, tmp_path / "qdisc_example.py")
    aqm = '{ kind = "python", class = "qdisc_example:SojournCap", params = { max_sojourn_ms = 40.0 } }'
    scenario = tmp_path / "cap.toml"
    scenario.write_text(with_aqm(aqm, 3.0))
    r = cellshare.run(scenario)
    assert drops(r)[1] > 0, "the sojourn cap dropped at dequeue"
    assert all(f["bytes_delivered"] > 100_000 for f in r.raw["flows"])
    spec = importlib.util.spec_from_file_location("qdisc_example", QDISC_EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    m = _toml_map(with_aqm(aqm, 3.0))
    m["cell"]["aqm"]["class"] = mod.SojournCap
    r2 = cellshare.run(m)
    assert drops(r2) == drops(r)
    assert [f["bytes_delivered"] for f in r2.raw["flows"]] == [f["bytes_delivered"] for f in r.raw["flows"]]


@pytest.mark.parametrize("aqm, key, words", [
    ('{ kind = "python", class = "nocolon" }', "cell.aqm.class", ['"module:Class"', "nocolon"]),
    ('{ kind = "python", class = "no_such_module_x:C" }', "cell.aqm.class",
     ["a module 'no_such_module_x' in the scenario's folder"]),
    ('{ kind = "python", class = "cellshare.plugins_examples:Reno" }', "cell.aqm.class",
     ["a subclass of cellshare.plugins.QueueDiscipline (found a class Reno)"]),
    ('{ kind = "python", class = "cellshare.plugins_examples:Bode", params = { bounded_delay_ms = -1.0 } }',
     "cell.aqm.params.bounded_delay_ms", ["got -1.0, expected a delay in ms in (0, 1e6]"]),
    ('{ kind = "python", class = "cellshare.plugins_examples:Bode", params = { bound = 1 } }',
     "cell.aqm.params.bound", ["Bode's parameters (bounded_delay_ms)"]),
    ('{ kind = "python", class = "cellshare.plugins_examples:DropTail", limit_packets = 0 }',
     "cell.aqm.limit_packets", ["got 0, expected at least 1 packet"]),
    ('{ kind = "diffserv", classes = [{ dscp = [46] }, { aqm = { kind = "python", class = "nope_x:C" } }] }',
     "cell.aqm.classes[1].aqm.class", ["a module 'nope_x'"]),
])
def test_bad_queue_discipline_entries_are_one_line_naming_the_key(aqm, key, words):
    e = invalid(with_aqm(aqm))
    assert e.args[1] == key, e.args
    for w in words:
        assert w in e.args[0], (w, e.args[0])


FAILING_QDISC = """
from cellshare.plugins import Dequeue, Enqueue, QueueDiscipline


class Failing(QueueDiscipline):
    PARAMS = {"fail_in": "on_dequeue"}

    def on_enqueue(self, now, packet, queue):
        if self.params.fail_in == "verdict":
            return True
        if self.params.fail_in == "interrupt":
            raise KeyboardInterrupt
        return Enqueue.ACCEPT

    def on_dequeue(self, now, packet, queue):
        if self.params.fail_in == "on_dequeue" and now > 300_000_000:
            return now - queue.missing
        return Dequeue.TRANSMIT
"""


@pytest.mark.parametrize("fail_in, words", [
    ("on_dequeue", ["python queue discipline failing_q:Failing: on_dequeue raised AttributeError:", "failing_q.py:17"]),
    ("verdict", ["python queue discipline failing_q:Failing: on_enqueue() returned True, expected Enqueue.ACCEPT, "
                 "Enqueue.DROP or Enqueue.ACCEPT_DROPPING_HEAD"]),
])
def test_a_failing_queue_hook_stops_the_run_with_one_line(tmp_path, fail_in, words):
    (tmp_path / "failing_q.py").write_text(FAILING_QDISC)
    scenario = tmp_path / "s.toml"
    scenario.write_text(with_aqm(f'{{ kind = "python", class = "failing_q:Failing", params = {{ fail_in = "{fail_in}" }} }}',
                                 30.0))
    with pytest.raises(_core.ControllerFailed) as e:
        cellshare.run(scenario)
    msg = e.value.args[0]
    assert "\n" not in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    one_line_error(cli("run", scenario, "--json"), *words)


def test_ctrl_c_in_a_queue_hook_interrupts_the_run(tmp_path):
    (tmp_path / "failing_q.py").write_text(FAILING_QDISC)
    scenario = tmp_path / "s.toml"
    scenario.write_text(with_aqm('{ kind = "python", class = "failing_q:Failing", params = { fail_in = "interrupt" } }', 30.0))
    with pytest.raises(KeyboardInterrupt):
        cellshare.run(scenario)


def test_the_cost_page_shows_the_measured_queue_discipline_numbers():
    # tools/plugin_cost.py --plugin qdisc measures the benchmark with the Python DropTail at
    # every UE queue against the Rust tail drop; the page quotes the JSON.
    cost = json.loads(QDISC_COST.read_text())
    page = (REPO / "docs" / "extending" / "python.md").read_text()
    assert cost["python_speed"] > 0 and math.isclose(cost["slowdown"], cost["rust_speed"] / cost["python_speed"],
                                                     rel_tol=1e-3)
    words = " ".join(page.split())
    assert (f"`docs/extending/python_qdisc_cost.json`: the Rust tail drop runs at {cost['rust_speed']:.1f}× real time, "
            f"the Python DropTail at {cost['python_speed']:.1f}× real time, {cost['slowdown']:.1f}× slower") in words
    assert f"benchmark, {cost['duration_s']:g} simulated seconds)" in words
    assert re.search(r'--8<-- "docs/extending/qdisc_example.py"', page)
