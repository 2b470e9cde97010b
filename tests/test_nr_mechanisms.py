"""`cellshare study nr-mechanisms`: Legilimens on NR with a 1 ms TSval tick and with its
`slot_clock_us` option, Algorithm 1's slot reconstruction, and the page being current."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import cellshare
from cellshare.cli import app
from cellshare.study import get
from cellshare.study import nr_mechanisms as n

REPO = Path(__file__).resolve().parents[1]
NR1 = tuple(c for c in n.CELLS if c[0] == "nr1")
#: One seed, 10 s on/off: four runs (CUBIC alone, Legilimens with each clock, queue gating off).
TINY = n.Design("tiny", (1,), 10.0, 10.0, 1)


def test_slot_clock_yields_on_nr_mu1_where_the_1ms_tick_does_not(tmp_path):
    doc = n.run_study(tmp_path, design=TINY, cells=NR1, parts=("legilimens",))
    tick = n.cell(doc, "legilimens", cell="nr1", bg="legilimens")
    slot = n.cell(doc, "legilimens", cell="nr1", bg="legilimens-slot")
    cubic = n.cell(doc, "legilimens", cell="nr1", bg="cubic")
    # CUBIC as the background takes half; the 1 ms tick takes most of that half, the slot
    # clock yields (the LTE reproduction's Legilimens takes under a tenth).
    assert cubic["bg_share_on"][0] == pytest.approx(0.5, abs=0.02)
    assert tick["bg_share_on"][0] > 0.3
    assert slot["bg_share_on"][0] < 0.12
    assert slot["fg_ratio_on"][0] > 0.85
    # ... and, the foreground gone, the slot clock takes the idle cell again; the 1 ms tick
    # stays under its low estimate's 80 % cap.
    assert slot["bg_off_ratio"][0] > 0.9
    assert tick["bg_off_ratio"][0] < 0.6
    assert (tmp_path / "nr-mechanisms.json").is_file() and (tmp_path / "report" / "index.html").is_file()


@pytest.mark.parametrize("pattern,spt,detected,capacity", [
    ((3, 1), 4, 0.0, 0.25),   # μ=2, 1 ms tick: every tick holds one of our slots, no gap
    ((3, 1), 1, 1.0, 1.0),    # slot clock: every competitor run is a gap, judged busy
    ((2, 2), 2, 0.0, 1.0),    # μ=1, tick-aligned runs: gap of 1 tick, rate = λ·capacity, not busy
    ((4, 4), 2, 1.0, 1.0),    # runs of two ticks: seen
    ((1, 1), 1, 0.0, 1.0),    # alternate slots: rate = λ·capacity exactly, the strict test says no
])
def test_reconstruction_on_a_given_schedule(pattern, spt, detected, capacity):
    r = n.reconstruct(pattern, spt)
    assert r["detected"] == pytest.approx(detected, abs=0.01)
    assert r["capacity_ratio"] == pytest.approx(capacity, abs=0.01)


def test_a_slot_clock_that_does_not_divide_a_millisecond_is_refused():
    sc = {"simulation": {"duration_s": 1.0}, "ues": [{"count": 1, "channel": {"kind": "fixed", "rate_mbps": 10.0}}],
          "flows": [{"ue": 0, "transport": {"kind": "tcp", "cc": {"kind": "legilimens", "slot_clock_us": 300}}}]}
    with pytest.raises(cellshare.ScenarioInvalid, match=r"slot_clock_us.*got 300, expected 0 \(off\) or a slot that divides 1000 µs"):
        cellshare.validate(sc)


def test_page_and_figures_are_generated_from_the_committed_output():
    doc = json.loads(n.committed_output().read_text())
    assert doc["mode"] == "full" and len(doc["seeds"]) == 5
    assert (REPO / "docs" / "nr-mechanisms.md").read_text() == n.docs_page(doc)
    for name in ("nr-mech-legilimens", "nr-mech-reconstruction", "nr-mech-bode-sneaker"):
        assert (REPO / "docs" / "img" / f"{name}.png").is_file()
    assert get("nr-mechanisms").render_docs is n.render_docs
    assert "nr-mechanisms.md" in (REPO / "mkdocs.yml").read_text()


def test_cli_lists_the_study_and_refuses_ray():
    r = CliRunner().invoke(app, ["study", "--list"])
    assert r.exit_code == 0 and "nr-mechanisms" in r.output
    r = CliRunner().invoke(app, ["study", "nr-mechanisms", "--quick", "--ray", "local", "--out", "/nonexistent/x"])
    assert r.exit_code == 2 and "--ray" in r.output
