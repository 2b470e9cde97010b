"""The model pages' renderers (cellshare.docpages.models, ``mdl-*``): each reads its committed
artefact, a changed artefact changes the value, a bad argument is a one-line DocgenError, and
the stored PRB-utilization measurement is what tools/prb_utilization.py measures now."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from cellshare import docgen
from cellshare.docpages import models

REPO = Path(__file__).resolve().parents[1]
UDP = "tools/data/ns3-crosscheck-udp.json"


def _root(tmp_path: Path, *rels: str) -> Path:
    root = tmp_path / "src"
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, root / rel)
    return root


def _edit(root: Path, rel: str, fn) -> docgen._Artefacts:
    p = root / rel
    d = json.loads(p.read_text())
    fn(d)
    p.write_text(json.dumps(d))
    return docgen._Artefacts(root)


def _render(a: docgen._Artefacts, spec: str) -> str:
    name, *args = spec.split()
    fn, block = docgen.RENDERERS[name]
    assert not block
    return fn(a, args)


def test_every_renderer_is_registered_and_inline():
    for name, (fn, block) in models.RENDERERS.items():
        assert name.startswith("mdl-") and docgen.RENDERERS[name] == (fn, block) and not block


def test_udp_renderers_read_the_stored_crosscheck(tmp_path):
    a = docgen._Artefacts(REPO)
    assert _render(a, f"mdl-udp-clean {UDP}") == "from 50 to 650 m"
    assert _render(a, f"mdl-udp-control {UDP}").startswith("from 550 m (SINR −1.7 dB")
    assert _render(a, f"mdl-udp-more {UDP}") == "4.3–7.9 %"

    def worse(d):
        for r in d["rows"]:
            if r["label"] == ["600"]:
                r["ns3"]["harq"]["retransmissions"] = 5   # ns-3 retransmits at 600 m
            if r["label"] == ["500"]:
                r["cellshare"]["udp0"] = r["ns3"]["udp0"] * 1.2
            if r["label"] == ["450"]:
                r["cellshare"]["harq"]["block_errors"] = 3  # a lost block without a retransmission
    a = _edit(_root(tmp_path, UDP), UDP, worse)
    assert _render(a, f"mdl-udp-clean {UDP}") == "from 50 to 650 m"   # 600 m is inside the span, not an end
    assert _render(a, f"mdl-udp-control {UDP}").startswith("from 450 m (SINR 1.4 dB")
    assert _render(a, f"mdl-udp-more {UDP}") == "4.3–20.0 %"


def test_udp_clean_span_shrinks_when_an_end_retransmits(tmp_path):
    def edge(d):
        for r in d["rows"]:
            if r["label"] in (["50"], ["650"]):
                r["cellshare"]["harq"]["retransmissions"] = 1
    a = _edit(_root(tmp_path, UDP), UDP, edge)
    assert _render(a, f"mdl-udp-clean {UDP}") == "from 100 to 600 m"


def test_nr_edge_reads_the_comparison(tmp_path):
    rel = models.NR_LENA_COMPARE
    text = _render(docgen._Artefacts(REPO), "mdl-nr-edge")
    assert text.startswith("at 350 m cellshare still carries 8.11 Mbit/s, 0.48 of its rate at 325 m"), text

    def half(d):
        p = next(p for p in d["points"] if p["distance_m"] == 350)
        p["ours"]["throughput_mbps"] = 4.0
    a = _edit(_root(tmp_path, rel), rel, half)
    assert "still carries 4 Mbit/s, 0.24 of its rate" in _render(a, "mdl-nr-edge")

    def no_edge(d):
        for p in d["points"]:
            p["lena"]["throughput_mbps"] = 1.0
    a = _edit(_root(tmp_path / "b", rel), rel, no_edge)
    with pytest.raises(docgen.DocgenError, match="has no distance where 5G-LENA stops carrying"):
        _render(a, "mdl-nr-edge")


def test_start_spread_names_the_traces_over_the_tolerance(tmp_path):
    rel = models.START_SENSITIVITY
    assert _render(docgen._Artefacts(REPO), "mdl-start-spread") == \
        "by more than the 10 % tolerance on the `TMobile-UMTS-driving` and `Verizon-EVDO-driving` traces"

    def att(d):
        c = next(c for c in d["cases"] if c["trace"] == "ATT-LTE-driving.down" and c["cc"] == "cubic")
        c["runs"][3]["rtt_p50_ms"] = c["rtt_p50_ms"]["median"] * 1.5
    a = _edit(_root(tmp_path, rel), rel, att)
    assert "`ATT-LTE-driving`, `TMobile-UMTS-driving` and `Verizon-EVDO-driving` traces" in _render(a, "mdl-start-spread")


def test_prb_reads_a_case_and_refuses_unknown_ones(tmp_path):
    rel = models.PRB_UTILIZATION
    a = docgen._Artefacts(REPO)
    assert _render(a, "mdl-prb real-half unweighted") == "0.582"

    def bump(d):
        next(c for c in d["cases"] if c["id"] == "real-half")["unweighted"] = 0.7
    assert _render(_edit(_root(tmp_path, rel), rel, bump), "mdl-prb real-half unweighted") == "0.700"
    for spec, msg in (("mdl-prb nowhere prb_utilization", "has no case 'nowhere'"),
                      ("mdl-prb real-half speed", "key 'speed' is not one of"),
                      ("mdl-prb real-half", "expected `mdl-prb CASE KEY`")):
        with pytest.raises(docgen.DocgenError, match=msg) as e:
            _render(a, spec)
        assert "\n" not in str(e.value)


def test_stored_prb_measurement_is_current():
    spec = importlib.util.spec_from_file_location("prb_utilization", REPO / "tools" / "prb_utilization.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    stored = json.loads((REPO / models.PRB_UTILIZATION).read_text())
    assert tool.measure()["cases"] == stored["cases"], f"re-run: {stored['generated_by']}"


def test_bench_spread(tmp_path):
    assert _render(docgen._Artefacts(REPO), "mdl-bench-spread single-realistic") == "3.0×"

    def flat(d):
        d["runs"]["single-realistic"]["samples"] = [100.0, 110.0, 105.0]
    a = _edit(_root(tmp_path, docgen.BENCH), docgen.BENCH, flat)
    assert _render(a, "mdl-bench-spread single-realistic") == "1.1×"
    with pytest.raises(docgen.DocgenError, match="has no variant 'nope'"):
        _render(a, "mdl-bench-spread nope")


def test_part_reads_one_key_of_a_result(tmp_path):
    a = docgen._Artefacts(REPO)
    board = json.loads((REPO / docgen.SCOREBOARD).read_text())
    sorpc = next(e for e in board["reproductions"] if e["name"] == "sorpc")
    want = next(c for c in sorpc["claims"] if c["id"] == "youtube-sorpc-better")["ours"]["single queue"]
    assert _render(a, "mdl-part sorpc youtube-sorpc-better single_queue s") == docgen._format(want, "s")

    def change(d):
        e = next(e for e in d["reproductions"] if e["name"] == "sorpc")
        next(c for c in e["claims"] if c["id"] == "youtube-sorpc-better")["ours"]["SORPC"] = 9.5
    a2 = _edit(_root(tmp_path, docgen.SCOREBOARD), docgen.SCOREBOARD, change)
    assert _render(a2, "mdl-part sorpc youtube-sorpc-better SORPC s") == "9.5 s"
    for spec, msg in (("mdl-part sorpc youtube-sorpc-better nobody s", "has no key 'nobody'"),
                      ("mdl-part sorpc youtube-sorpc-better SORPC km", "unit 'km' is not"),
                      ("mdl-part sorpc messenger-sorpc-below-300 SORPC", "not a value per key"),
                      ("mdl-part sorpc", "expected `mdl-part REP ID KEY")):
        with pytest.raises(docgen.DocgenError, match=msg) as e:
            _render(a, spec)
        assert "\n" not in str(e.value)


def test_a_bad_file_argument_is_one_line(tmp_path):
    a = docgen._Artefacts(REPO)
    with pytest.raises(docgen.DocgenError, match="not a tools/ns3_crosscheck.py output"):
        _render(a, f"mdl-udp-more {models.NR_LENA_COMPARE}")
    with pytest.raises(docgen.DocgenError, match="expected `mdl-udp-clean tools/data/FILE.json`"):
        _render(a, "mdl-udp-clean")


def test_pages_render_their_numbers_through_the_markers():
    for rel, markers in {
        "docs/radio-link.md": [f"<!-- generated: mdl-udp-clean {UDP} -->", f"<!-- generated: mdl-udp-more {UDP} -->"],
        "docs/nr.md": ["<!-- generated: mdl-nr-edge -->"],
        "docs/crosscheck.md": ["<!-- generated: mdl-start-spread -->"],
        "docs/outputs.md": ["<!-- generated: mdl-prb real-half unweighted -->"],
        "docs/performance.md": ["<!-- generated: mdl-bench-spread single-realistic -->",
                                "<!-- generated: mdl-network-cost ll_misses -->"],
        "docs/mobility.md": ["<!-- generated: mdl-network-cost instructions -->"],
        "docs/apps.md": ["<!-- generated: mdl-part sorpc youtube-sorpc-better SORPC s -->"],
        "docs/cell.md": ["<!-- generated: ns3-rate tools/data/ns3-crosscheck-background.json other/vegas ns3 bg -->"],
    }.items():
        text = (REPO / rel).read_text()
        for m in markers:
            assert m in text, (rel, m)


def test_network_cost_reads_the_stored_counts(tmp_path):
    rel = models.NETWORK_COST
    a = docgen._Artefacts(REPO)
    stored = json.loads((REPO / rel).read_text())["network_over_single"]
    assert _render(a, "mdl-network-cost ll_misses") == f"{stored['ll_misses']:.1f}×"
    assert stored["ll_misses"] > stored["instructions"] > 1   # what the pages say about the network

    def change(d):
        d["network_over_single"]["instructions"] = 2.04
    assert _render(_edit(_root(tmp_path, rel), rel, change), "mdl-network-cost instructions") == "2.0×"
    with pytest.raises(docgen.DocgenError, match="key 'cycles' is not one of instructions") as e:
        _render(a, "mdl-network-cost cycles")
    assert "\n" not in str(e.value)
