"""The renderers of docs/transports.md and docs/transport.md (cellshare.docpages.transports)
against their stored artefacts: the page says what the artefact says, a changed artefact
changes the page, and a bad argument is a one-line DocgenError naming it."""
from __future__ import annotations

import copy
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from cellshare import docgen
from cellshare.docpages import transports as trn

REPO = Path(__file__).resolve().parents[1]


def _copy(tmp_path: Path) -> Path:
    """The three artefacts the renderers read, in a tree of their own."""
    for rel in (trn.DATAGRAM, trn.SPROUT_FAST, trn.TCP_LP_FADING):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, tmp_path / rel)
    return tmp_path


def _edit(root: Path, rel: str, fn) -> None:
    d = json.loads((root / rel).read_text())
    fn(d)
    (root / rel).write_text(json.dumps(d))


def _row(d: dict, trace: str, scheme: str) -> dict:
    return next(r for r in d["rows"] if r["trace"] == trace and r["scheme"] == scheme)


def test_the_pages_are_rendered_from_the_artefacts():
    a = docgen._Artefacts(REPO)
    for page in ("docs/transports.md", "docs/transport.md"):
        text = (REPO / page).read_text()
        assert docgen.render_page(text, a, page) == text, f"{page} is stale: run python -m cellshare.docgen --write"
    text = (REPO / "docs" / "transports.md").read_text()
    for marker in ("<!-- generated: trn-traces -->", "<!-- generated: trn-fixed -->", "<!-- generated: trn-sprout-fast -->",
                   "<!-- generated: trn-range sprout mbps/cubic all -->"):
        assert marker in text, marker
    assert "<!-- generated: trn-lp-fading rayleigh -->" in (REPO / "docs" / "transport.md").read_text()


def test_the_table_and_the_prose_follow_a_changed_artefact(tmp_path):
    root = _copy(tmp_path)
    a = docgen._Artefacts(root)
    before = trn.r_traces(a, [])
    assert "| ATT-LTE-driving | sprout |" in before
    assert trn.r_where(a, ["sprout", "p50", "gt", "100", "all"]) == "Verizon EVDO"

    def slower(d):
        _row(d, "ATT-LTE-driving", "sprout")["queue_delay_p50_ms"] = 250.0
        _row(d, "ATT-LTE-driving", "sprout")["throughput_mbps"] = 2.44
    _edit(root, trn.DATAGRAM, slower)
    a = docgen._Artefacts(root)
    after = trn.r_traces(a, [])
    assert after != before
    assert "| ATT-LTE-driving | sprout | 2.44 |" in after and "| 250.0 |" in after
    assert trn.r_where(a, ["sprout", "p50", "gt", "100", "all"]) == "AT&T LTE and Verizon EVDO"
    cubic = _row(json.loads((root / trn.DATAGRAM).read_text()), "ATT-LTE-driving", "cubic")["throughput_mbps"]
    assert trn.r_range(a, ["sprout", "mbps/cubic", "ATT-LTE-driving"]) == f"{2.44 / cubic:.2f}×"


def test_ranges_selections_and_ratios():
    a = docgen._Artefacts(REPO)
    d = json.loads((REPO / trn.DATAGRAM).read_text())
    traces = list(dict.fromkeys(r["trace"] for r in d["rows"]))
    lte = [t for t in traces if "-LTE-" in t]
    assert trn._traces(a, "lte", "t") == lte
    assert trn._traces(a, "all,!Verizon-EVDO-driving", "t") == [t for t in traces if t != "Verizon-EVDO-driving"]
    # CUBIC's p99 over Sprout's on each trace: the range's ends are the lowest and highest.
    cuts = sorted(_row(d, t, "cubic")["queue_delay_p99_ms"] / _row(d, t, "sprout")["queue_delay_p99_ms"] for t in traces)
    lo, hi = (f"{v:.2f}" if v < 1 else f"{v:.1f}" if v < 10 else f"{v:.0f}" for v in (cuts[0], cuts[-1]))
    assert trn.r_range(a, ["sprout", "cubic/p99", "all"]) == f"{lo}–{hi}×"
    n = sum(_row(d, t, "sprout")["queue_delay_p50_ms"] > _row(d, t, "cubic-codel")["queue_delay_p50_ms"] for t in traces)
    want = f"all {n}" if n == len(traces) else f"{n} of {len(traces)}"
    assert trn.r_where(a, ["sprout", "p50/cubic-codel", "gt", "1", "all", "count"]) == want
    assert trn.r_where(a, ["sprout", "p50", "gt", "100", "all", "count"]) == f"1 of {len(traces)}"
    cap = d["capacity"]["Verizon-EVDO-driving"]
    assert trn.r_capacity(a, ["Verizon-EVDO-driving", "pps"]) == f"{cap['packets_per_s']:.0f} packets/s"
    vivace = next(r for r in d["fixed"] if r["scheme"] == "vivace")
    assert trn.r_fixed_value(a, ["vivace", "use"]) == f"{vivace['link_use'] * 100:.0f} %"


def test_the_fast_inference_table_sums_the_benchmark_flows(tmp_path):
    root = _copy(tmp_path)
    d = json.loads((root / trn.SPROUT_FAST).read_text())
    bench = [r for r in d["rows"] if r["sequence"].startswith("bench")]
    ticks = sum(r["ticks"] for r in bench)
    assert f"| 100-UE benchmark, {len(bench)} flows | {ticks:,} |" in trn.r_sprout_fast(docgen._Artefacts(root), [])

    def more(x):
        x["rows"][0]["ticks"] += 1000
    _edit(root, trn.SPROUT_FAST, more)
    assert f"| {ticks + 1000:,} |" in trn.r_sprout_fast(docgen._Artefacts(root), [])


def test_the_tcp_lp_range_follows_the_artefact(tmp_path):
    root = _copy(tmp_path)

    def low(d):
        next(r for r in d["rows"] if r["fading"] == "rayleigh")["ratio"] = 0.1234
    _edit(root, trn.TCP_LP_FADING, low)
    assert trn.r_lp_fading(docgen._Artefacts(root), ["rayleigh"]).startswith("12–")


@pytest.mark.parametrize("name,args,needle", [
    ("trn-range", ["sprout", "mbps/cubic"], "expected `trn-range SCHEME METRIC TRACES`"),
    ("trn-range", ["sprout", "speed", "all"], "metric 'speed' is not one of"),
    ("trn-range", ["reno", "mbps", "all"], "scheme 'reno' is not in tools/data/transports-validation.json"),
    ("trn-range", ["sprout", "mbps", "Mars-5G"], "trace 'Mars-5G' is not in"),
    ("trn-range", ["cubic", "srtt", "all"], "'cubic' has no traced trace_srtt_ms"),
    ("trn-where", ["sprout", "p50", ">", "100", "all"], "'>' is not one of gt, lt, ge, le"),
    ("trn-where", ["sprout", "p50", "gt", "many", "all"], "VALUE 'many' is not a number"),
    ("trn-capacity", ["Verizon-EVDO-driving", "kbps"], "'kbps' is not mbps, pps or gap"),
    ("trn-fixed-value", ["bbr", "use"], "scheme 'bbr' is not in"),
    ("trn-events", ["quic"], "transport 'quic' is not in the benchmark"),
    ("trn-lp-fading", ["nakagami"], "fading 'nakagami' is not in tools/data/tcp-lp-fading.json"),
])
def test_a_bad_argument_is_a_one_line_error(name, args, needle):
    fn = trn.RENDERERS[name][0]
    with pytest.raises(docgen.DocgenError) as e:
        fn(docgen._Artefacts(REPO), args)
    msg = str(e.value)
    assert needle in msg and "\n" not in msg, msg


def test_a_missing_artefact_names_it(tmp_path):
    with pytest.raises(docgen.DocgenError, match="transports-validation.json not found"):
        trn.r_traces(docgen._Artefacts(tmp_path), [])


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_stored_validation_is_what_the_tool_measures_now(tmp_path):
    """Re-runs one trace and the fixed link (seconds): the stored rows are today's simulator's."""
    tool = _tool("datagram_transports")
    d = json.loads((REPO / trn.DATAGRAM).read_text())
    assert d["generated_by"] == tool.COMMAND
    trace = REPO / "python" / "cellshare" / "data" / "traces" / "Verizon-EVDO-driving.down"
    for scheme in ("cubic", "sprout", "vivace"):
        f = tool.on_trace(trace, copy.deepcopy(tool.SCHEMES[scheme]), d["secs"])
        stored = _row(d, "Verizon-EVDO-driving", scheme)
        assert f["throughput_mbps"] == pytest.approx(stored["throughput_mbps"], rel=1e-12)
        assert f["queue_delay_p99_ms"] == pytest.approx(stored["queue_delay_p99_ms"], rel=1e-12)
    assert tool.trace_capacity(trace, d["secs"]) == pytest.approx(d["capacity"]["Verizon-EVDO-driving"])


def test_the_sprout_tool_parses_the_tests_lines():
    tool = _tool("sprout_fast_inference")
    rows = tool.parse('running 1 test\n("bench0", 499, 10, 1, 0.0)\n("ATT-LTE-driving", 3000, 711, 11, 3.5)\ntest ... ok\n')
    assert [r["sequence"] for r in rows] == ["bench0", "ATT-LTE-driving"]
    assert rows[1]["ticks_differing"] == 711 and rows[1]["max_count_diff_packets"] == 11
    with pytest.raises(ValueError, match="no sequence lines"):
        tool.parse("test result: FAILED\n")


def test_the_kernel_narrowing_follows_the_models_constants(tmp_path):
    assert trn.r_kernel_narrowing(docgen._Artefacts(REPO), []) == "1.3 %"   # ±3σ against ±5σ
    rs = tmp_path / trn.SPROUT_MODEL_RS
    rs.parent.mkdir(parents=True)
    rs.write_text((REPO / trn.SPROUT_MODEL_RS).read_text().replace(
        "const KERNEL_SIGMAS_FAST: f64 = 3.0;", "const KERNEL_SIGMAS_FAST: f64 = 2.0;"))
    assert trn.r_kernel_narrowing(docgen._Artefacts(tmp_path), []) == "12.0 %"
    rs.write_text("// no constants\n")
    with pytest.raises(docgen.DocgenError, match="no `const KERNEL_SIGMAS_FAST: f64`"):
        trn.r_kernel_narrowing(docgen._Artefacts(tmp_path), [])


def test_the_event_ratio_is_the_benchmarks(tmp_path):
    a = docgen._Artefacts(REPO)
    runs = a.bench["runs"]
    assert trn.r_events(a, ["verus"]) == f"{runs['transport-verus']['events'] / runs['single-realistic']['events']:.1f}×"
    b = json.loads((REPO / docgen.BENCH).read_text())
    b["runs"]["transport-verus"]["events"] = b["runs"]["single-realistic"]["events"] * 7
    (tmp_path / docgen.BENCH).parent.mkdir(parents=True)
    (tmp_path / docgen.BENCH).write_text(json.dumps(b))
    assert trn.r_events(docgen._Artefacts(tmp_path), ["verus"]) == "7.0×"
