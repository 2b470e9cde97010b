"""tools/legilimens_nr_mu0_trace.py and its stored output: why Legilimens yields less on NR μ=0
than on LTE (a slot of a whole number of the background's packets puts PF's 1:1 alternation
exactly at λ·capacity, which Algorithm 1's strict test does not judge busy), and the page
text docs/nr-mechanisms.md renders from it."""
from __future__ import annotations

import copy
import re
import importlib.util
import json
from pathlib import Path

import pytest

from cellshare.study import StudyError
from cellshare.study import nr_mechanisms as n

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO / "tools" / "legilimens_nr_mu0_trace.py"
DATA = REPO / "tools" / "data" / "legilimens-nr-mu0-trace.json"


def _tool():
    spec = importlib.util.spec_from_file_location("legilimens_nr_mu0_trace", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def stored() -> dict:
    return json.loads(DATA.read_text())


def _v(doc: dict) -> dict:
    return {r["key"]: r for r in doc["variants"]}


def test_stored_trace_names_its_command_and_every_variant(stored):
    assert stored["generated_by"].startswith("python tools/legilimens_nr_mu0_trace.py")
    assert [r["key"] for r in stored["variants"]] == [k[0] for k in _tool().VARIANTS]
    assert n.mu0_trace_path() == DATA


def test_nr_mu0_sits_on_the_threshold_and_lte_below_it(stored):
    v = _v(stored)
    for k in ("nr0", "nr0-ideal"):
        # Every tick the largest one, the estimate that tick: half of it is λ·capacity exactly.
        assert v[k]["modal_tick_bytes"] == v[k]["max_tick_bytes_before_fg"]
        assert v[k]["alternation_ratio"] == 1.0 and v[k]["backoffs"] <= 2
    for k in ("lte", "lte-ideal"):
        assert v[k]["modal_tick_bytes"] < v[k]["max_tick_bytes_before_fg"]
        assert v[k]["alternation_ratio"] < 0.9 and v[k]["backoffs"] >= 10
    assert v["nr0"]["bg_share_on"] > 2 * v["lte"]["bg_share_on"]


def test_the_variants_that_remove_the_cause_bring_nr_mu0_to_lte(stored):
    v = _v(stored)
    lte = v["lte"]
    for k in ("nr0-mss1400", "nr0-ideal-mss1400", "nr0-ideal-350m", "nr0-ideal-lambda051", "nr0-ideal-ack2"):
        assert v[k]["alternation_ratio"] < 1.0, k
        assert abs(v[k]["backoffs"] - lte["backoffs"]) <= 0.2 * lte["backoffs"], k
        assert abs(v[k]["bg_share_on"] - lte["bg_share_on"]) < 0.02, k
    # The other way round: whole packets per TTI take LTE's back-offs away.
    for k in ("lte-mss1300", "lte-ideal-mss1300"):
        assert v[k]["alternation_ratio"] == 1.0 and v[k]["backoffs"] <= 2, k


def test_a_whole_packet_count_per_slot_decides(stored):
    """The rule across every run: within a few hundredths of a whole number of packets per
    slot, the ratio is 1 and the background hardly backs off; otherwise it backs off like LTE."""
    for r in stored["variants"]:
        if r["lambda"] != 0.5 or (r["bg_tcp"] or {}).get("burst_acks") is False:
            continue  # the variants that change the test or the ACKs, not the slot
        pps = r["bg_packets_per_slot"]
        whole = abs(pps - round(pps)) < 0.04
        assert whole == (r["alternation_ratio"] >= 1.0), r["key"]
        assert whole == (r["backoffs"] <= 2), r["key"]


def test_a_rerun_gives_the_stored_rows(stored):
    tool = _tool()
    keys = {"nr0-ideal", "nr0-ideal-mss1400", "lte-ideal"}
    tool.VARIANTS = tuple(x for x in tool.VARIANTS if x[0] in keys)
    fresh = _v(tool.measure())
    for k in keys:
        assert fresh[k] == _v(stored)[k], k


def test_tool_refuses_an_out_path_without_a_folder(capsys):
    assert _tool().main(["--out", "/nonexistent/folder/x.json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --out /nonexistent/folder/x.json") and "\n" not in err


def test_page_text_is_read_from_the_trace(stored):
    text = "\n".join(n._mu0_trace_lines(stored))
    v = _v(stored)
    assert f"{v['lte']['bg_packets_per_slot']:.3f}" in text and f"{v['nr0']['bg_packets_per_slot']:.3f}" in text
    assert "equals λ·capacity" in text and "backs off once" in text
    changed = copy.deepcopy(stored)
    _v(changed)["nr0-mss1400"]["backoffs"] = 7
    _v(changed)["nr0"]["alternation_ratio"] = 0.93
    text2 = "\n".join(n._mu0_trace_lines(changed))
    assert "(1400-byte segments: 7 times;" in text2 and "half of it is 0.93 times λ·capacity" in text2
    assert "the strict test lets it pass" in text and "the strict test lets it pass" not in text2
    # The committed page carries the trace's lines, with the study's capacity estimates.
    page = (REPO / "docs" / "nr-mechanisms.md").read_text()
    doc = json.loads(n.committed_output().read_text())
    with_doc = n._mu0_trace_lines(stored, doc)
    assert all(line in page for line in with_doc if line)
    assert "The same ticks give the capacity columns" in "\n".join(with_doc)
    # The estimate over the cell's rate is the largest tick over the mean one (the study's
    # 5-seed value against the trace's seed-1 ratio).
    for k in ("lte", "nr0"):
        r = v[k]
        before = n.cell(doc, "legilimens", cell=k, bg="legilimens")["capacity_before"][0]
        assert abs(before - r["max_tick_bytes_before_fg"] / (r["fg_alone_mbps"] * 125.0)) < 0.01, k
    assert "this study does not trace it further" not in page


def test_missing_trace_keys_give_a_one_line_error(stored):
    broken = copy.deepcopy(stored)
    broken["variants"] = [r for r in broken["variants"] if r["key"] != "nr0-ideal-350m"]
    with pytest.raises(StudyError) as e:
        n._mu0_trace_lines(broken)
    assert "legilimens-nr-mu0-trace.json: missing" in str(e.value) and "\n" not in str(e.value)
    # Outside a source tree (no tools/): the command, no numbers.
    lines = n._mu0_trace_lines(None)
    assert "tools/legilimens_nr_mu0_trace.py" in lines[0]
    assert not re.search(r"\d", lines[0].replace("μ=0", "").replace("mu0", ""))
    assert n.load_mu0_trace(Path("/nonexistent/trace.json")) is None
