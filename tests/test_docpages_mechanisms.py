"""The `mech-*` renderers of docs/limits.md, reproductions.md, rtac-sorpc-dtpa.md and bode.md
(`cellshare.docpages.mechanisms`): each follows what it reads (the estimator, the stored runs,
the scoreboard, a trace), and a bad argument or a stale artefact is one clear error."""
from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import pytest

from cellshare import _core, api, docgen
from cellshare.docpages import mechanisms as m

REPO = Path(__file__).resolve().parents[1]


def _inline(a, spec: str) -> str:
    out = docgen.render_page(f"x <!-- generated: {spec} --><!-- end generated -->", a)
    return out.split("-->", 1)[1].removesuffix("<!-- end generated -->")


def _tree(tmp_path: Path, rel: str, d: dict) -> docgen._Artefacts:
    """A copy of the repository's estimator source with one artefact replaced by `d`."""
    (tmp_path / "crates" / "sim" / "src").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / docgen.LIMITS_RS, tmp_path / docgen.LIMITS_RS)
    p = tmp_path / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(d))
    return docgen._Artefacts(tmp_path)


def _stored(rel: str) -> dict:
    return json.loads((REPO / rel).read_text())


@pytest.mark.parametrize("key", sorted(m.REFUSED))
def test_the_refusals_the_page_states_are_what_validate_says(key, tmp_path):
    """The rendered estimate is the one `cellshare validate` refuses the scenario with under
    the default limit."""
    shown = _inline(docgen._Artefacts(REPO), f"mech-estimate {key}")
    assert re.fullmatch(r"[0-9,]+ MiB", shown), shown
    with pytest.raises(_core.ScenarioInvalid) as e:
        f = tmp_path / "s.toml"
        f.write_text(m.REFUSED[key])
        api.validate(str(f))
    assert f"(estimated {shown.replace(',', '')}:" in str(e.value), (shown, str(e.value))
    assert "expected a run estimated to need at most 3072 MiB" in str(e.value)


def test_an_estimate_within_the_limit_is_not_called_a_refusal(monkeypatch):
    small = m.TRACES.replace("count = 10000", "count = 10")
    monkeypatch.setitem(m.REFUSED, "traces", small)
    with pytest.raises(docgen.DocgenError, match="within the default limit of 3,072 MiB: the page says it is refused"):
        _inline(docgen._Artefacts(REPO), "mech-estimate traces")
    with pytest.raises(docgen.DocgenError, match=r"got scenario 'nope', expected one of web, traces, flows$"):
        _inline(docgen._Artefacts(REPO), "mech-estimate nope")
    with pytest.raises(docgen.DocgenError, match=r"expected `mech-estimate web\|traces\|flows`, got no arguments"):
        _inline(docgen._Artefacts(REPO), "mech-estimate")


def test_the_guard_and_validate_numbers_follow_the_stored_runs(tmp_path):
    d = _stored(m.MECH_LIMITS)
    a = docgen._Artefacts(REPO)
    block = docgen.render_page("<!-- generated: mech-guard-error -->\n<!-- end generated -->", a)
    assert d["guard"]["stderr"].strip() in block and "```text" in block
    assert _inline(a, "mech-guard peak") == f"{d['guard']['peak_mib']:,.0f} MiB"
    assert _inline(a, "mech-guard limit") == f"{m.GUARD_LIMIT_MB} MiB"
    assert _inline(a, "mech-validate-peak web") == f"{d['validate']['web']['peak_mib']:,.0f} MiB"
    assert _inline(a, "mech-process-peak") == f"{d['process']['peak_mib']:,.0f} MiB"

    changed = copy.deepcopy(d)
    changed["guard"]["stderr"] = re.sub(r"resident at [0-9.]+ s", "resident at 250.001 s", changed["guard"]["stderr"])
    changed["guard"]["peak_mib"] = 123.4
    changed["validate"]["traces"]["peak_mib"] = 1234.4
    a = _tree(tmp_path, m.MECH_LIMITS, changed)
    assert _inline(a, "mech-guard at") == "250 s"
    assert _inline(a, "mech-guard peak") == "123 MiB"
    assert _inline(a, "mech-validate-peak traces") == "1,234 MiB"
    assert "resident at 250.001 s" in docgen.render_page("<!-- generated: mech-guard-error -->\n<!-- end generated -->", a)

    with pytest.raises(docgen.DocgenError, match="expected peak, limit or at$"):
        _inline(a, "mech-guard height")
    with pytest.raises(docgen.DocgenError, match="got scenario 'flows', expected one of web, traces$"):
        _inline(a, "mech-validate-peak flows")


def test_a_guard_run_that_was_not_stopped_or_another_scenario_is_an_error(tmp_path):
    d = _stored(m.MECH_LIMITS)
    ok = copy.deepcopy(d)
    ok["guard"]["rc"] = 0
    a = _tree(tmp_path / "a", m.MECH_LIMITS, ok)
    with pytest.raises(docgen.DocgenError, match="guard run exited 0 with .* expected exit 2 and one error line$"):
        docgen.render_page("<!-- generated: mech-guard-error -->\n<!-- end generated -->", a)
    other = copy.deepcopy(d)
    other["scenarios"]["validate-web"] = m.sha256(m.WEB + "# changed\n")
    a = _tree(tmp_path / "b", m.MECH_LIMITS, other)
    with pytest.raises(docgen.DocgenError, match=r"another scenario 'validate-web' .* \(rerun `python tools/mech_limits.py"):
        _inline(a, "mech-validate-peak web")


def test_a_memory_case_is_read_off_its_row(tmp_path):
    d = _stored(docgen.MEMORY)
    last = d["rows"][-1]
    a = docgen._Artefacts(REPO)
    assert _inline(a, "mech-memory-case peak 100,000 radio UEs") == f"{last['cases'][0]['peak_mib']:,.0f} MiB"
    assert _inline(a, "mech-memory-case estimated 100,000 radio UEs") == f"{last['cases'][0]['estimated_mib']:,} MiB"
    changed = copy.deepcopy(d)
    changed["rows"][-1]["cases"][0]["peak_mib"] = 4321.0
    a = _tree(tmp_path, docgen.MEMORY, changed)
    assert _inline(a, "mech-memory-case peak 100,000 radio UEs") == "4,321 MiB"
    with pytest.raises(docgen.DocgenError, match="2 rows of tools/data/memory.json start with '1,000'"):
        _inline(a, "mech-memory-case peak 1,000")
    with pytest.raises(docgen.DocgenError, match="1 rows .* start with 'the same', expected one with one case"):
        _inline(a, "mech-memory-case peak the same")


def _board_with(tmp_path: Path, rep: str, ident: str, **fields) -> docgen._Artefacts:
    board = _stored(docgen.SCOREBOARD)
    for e in board["reproductions"]:
        if e["name"] == rep:
            for c in e["claims"]:
                if c["id"] == ident:
                    c.update(fields)
            if "full" in fields:
                e["full"] = fields["full"]
    return _tree(tmp_path, docgen.SCOREBOARD, board)


def test_the_tolerance_example_mirrors_sneakers_gain(tmp_path):
    a = docgen._Artefacts(REPO)
    c = a.result("sneaker-scaling", "gain-L8")
    assert c["target"]["value"] == 5.0 and c["verdict"] == "misses"
    assert _inline(a, "mech-mirror sneaker-scaling gain-L8") == docgen._format(25 / c["ours"], "x")
    a = _board_with(tmp_path / "a", "sneaker-scaling", "gain-L8", ours=10.0)
    assert _inline(a, "mech-mirror sneaker-scaling gain-L8") == "2.5×"
    a = _board_with(tmp_path / "b", "sneaker-scaling", "gain-L8", ours=5.5, verdict="holds")
    with pytest.raises(docgen.DocgenError, match="holds against 5: the page's example is of a miss"):
        _inline(a, "mech-mirror sneaker-scaling gain-L8")
    with pytest.raises(docgen.DocgenError, match="against a order target"):
        _inline(docgen._Artefacts(REPO), "mech-mirror sneaker-prioritization yield-order")


def test_the_wall_time_is_the_scoreboards_full_run(tmp_path):
    a = docgen._Artefacts(REPO)
    assert _inline(a, "mech-wall dtpa") == f"{a.reproduction('dtpa')['wall_s']:.0f} s"
    board = _stored(docgen.SCOREBOARD)
    for e in board["reproductions"]:
        if e["name"] == "dtpa":
            e["full"], e["wall_s"] = False, 3.0
    a = _tree(tmp_path, docgen.SCOREBOARD, board)
    with pytest.raises(docgen.DocgenError, match="holds a quick run of dtpa"):
        _inline(a, "mech-wall dtpa")
    with pytest.raises(docgen.DocgenError, match="reproduction 'nope' is not in"):
        _inline(a, "mech-wall nope")


def test_trace_gaps_are_counted_over_the_trace(tmp_path):
    # Opportunities at 1, 2, 50, 51 (twice), 100 ms: two gaps over 20 ms (48 and 49 ms) in 0.1 s.
    t = tmp_path / "t.down"
    t.write_text("1\n2\n50\n51\n51\n100\n")
    assert m.trace_gaps(t, 20) == (20.0, 0.97)
    assert m.trace_gaps(t, 48) == (10.0, 0.49)
    # The shipped trace the BoDe page quotes, as the renderer formats it.
    from cellshare import traces

    rate, share = m.trace_gaps(traces.path("TMobile-LTE-driving.down"), 20)
    a = docgen._Artefacts(REPO)
    assert rate > 1 and _inline(a, "mech-trace-gaps TMobile-LTE-driving.down 20 rate") == f"{rate:.1f}"
    assert _inline(a, "mech-trace-gaps TMobile-LTE-driving.down 20 share") == docgen._format(share, "pct")
    with pytest.raises(docgen.DocgenError, match="no shipped trace 'x.down': expected one of"):
        _inline(a, "mech-trace-gaps x.down 20 rate")
    with pytest.raises(docgen.DocgenError, match="MS is '2.5', expected a whole number of milliseconds$"):
        _inline(a, "mech-trace-gaps TMobile-LTE-driving.down 2.5 rate")
    with pytest.raises(docgen.DocgenError, match="got 'mean', expected rate or share$"):
        _inline(a, "mech-trace-gaps TMobile-LTE-driving.down 20 mean")


def test_the_tool_measures_what_the_artefact_stores(tmp_path):
    """`tools/mech_limits.py` (two CPU seconds) writes the artefact the renderers read: the
    guard stops the run with one line, validating stays near the interpreter's size."""
    import subprocess
    import sys

    out = tmp_path / "mech-limits.json"
    subprocess.run([sys.executable, str(REPO / "tools" / "mech_limits.py"), "--out", str(out)], check=True,
                   capture_output=True, text=True, timeout=300)
    d = json.loads(out.read_text())
    assert d["scenarios"] == _stored(m.MECH_LIMITS)["scenarios"]
    g = d["guard"]
    assert g["rc"] == 2 and g["stderr"].startswith("error: s.toml: got ") and "the run was stopped" in g["stderr"]
    assert g["peak_mib"] < m.GUARD_LIMIT_MB
    assert all(v["peak_mib"] < 200 for v in d["validate"].values()), d["validate"]
    a = _tree(tmp_path / "root", m.MECH_LIMITS, d)
    assert _inline(a, "mech-guard limit") == "400 MiB"


def test_a_sensitivity_value_whose_assumed_value_has_spaces(tmp_path):
    # docgen's `sens`, its ASSUMPTION=VALUE argument quoted as a shell would.
    a = docgen._Artefacts(REPO)
    row = next(r for r in a.reproduction("dtpa")["sensitivity"]
               if r["assumption"] == "mac" and r["claim"] == "dtpa-fairer-30")
    value = row["value"]
    spec = f'sens dtpa "mac={value}" dtpa-fairer-30[Reno]'
    assert " " in str(row["value"]) and _inline(a, spec) == docgen._format(row["ours"]["Reno"], "")
    board = _stored(docgen.SCOREBOARD)
    for e in board["reproductions"]:
        for r in e.get("sensitivity", []):
            if e["name"] == "dtpa" and r["assumption"] == "mac" and r["claim"] == "dtpa-fairer-30":
                r["ours"]["Reno"] = 0.5
    assert _inline(_tree(tmp_path, docgen.SCOREBOARD, board), spec) == "0.5"
    with pytest.raises(docgen.DocgenError, match="has no sensitivity row mac = 802.15.4 other for claim 'dtpa-fairer-30'"):
        _inline(a, 'sens dtpa "mac=802.15.4 other" dtpa-fairer-30[Reno]')
    with pytest.raises(docgen.DocgenError, match="is a value per key: name one"):
        _inline(a, f'sens dtpa "mac={value}" dtpa-fairer-30')
    with pytest.raises(docgen.DocgenError, match="No closing quotation"):
        _inline(a, 'sens dtpa "mac=802.15.4 default dtpa-fairer-30')
