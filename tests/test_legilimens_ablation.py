"""Legilimens' additions: the `additions` table and `as_printed` in a scenario, the
ablation's bookkeeping on hand-made verdicts, one short ablation run, and the scoreboard's
"holds only with" beside a verdict."""

import json

import pytest

import cellshare
from cellshare import _core
from cellshare.reproduce import Context, REGISTRY, load_all
from cellshare.reproduce.legilimens import ADDITIONS, FG_START
from cellshare.reproduce.legilimens_ablation import CLAIM_DEFS, ablate, needs, needs_text
from cellshare.reproduce.scoreboard import _verdict


def _scenario(cc: dict) -> dict:
    return {"name": "additions", "simulation": {"duration_s": 2, "seed": 1},
            "cell": {"scheduler": {"kind": "pf"}},
            "ues": [{"count": 1, "channel": {"kind": "fixed", "rate_mbps": 20.0}}],
            "flows": [{"name": "bg", "ue": 0, "transport": {"kind": "tcp", "cc": cc}}]}


def test_python_list_of_additions_is_the_controllers():
    schema = json.loads(_core.scenario_schema())
    table = schema["definitions"]["LegilimensAdditions"]["properties"]
    assert sorted(table) == sorted(ADDITIONS) and len(set(ADDITIONS)) == len(ADDITIONS)


def test_unknown_addition_is_a_one_line_error_naming_it():
    with pytest.raises(Exception) as e:
        cellshare.run(_scenario({"kind": "legilimens", "additions": {"queue_gatin": False}}))
    msg = str(e.value)
    assert "queue_gatin" in msg and "\n" not in msg.strip(), msg
    # A known key, and the as-printed preset with one addition back on, run.
    cellshare.run(_scenario({"kind": "legilimens", "as_printed": True, "additions": {"late_delivery": True}}))


def test_needs_names_the_necessary_then_the_sufficient_additions():
    claims = ["a", "b", "c", "d"]
    holds = {"default": dict.fromkeys(claims, True), "as-printed": {"a": False, "b": False, "c": False, "d": True}}
    for x in ADDITIONS:
        holds[f"without-{x}"] = {"a": x != "queue_gating", "b": True, "c": True, "d": True}
        holds[f"printed+{x}"] = {"a": False, "b": x == "late_delivery", "c": False, "d": True}
    got = needs(holds, claims)
    assert got == {"a": ("only", ["queue_gating"]), "b": ("one of", ["late_delivery"]),
                   "c": ("together", list(ADDITIONS))}
    assert needs_text(*got["a"]) == "holds only with: queue_gating"


def test_scoreboard_prints_the_additions_beside_the_verdict():
    claim = {"id": "uses-spare", "verdict": "holds"}
    board = {"reproductions": [{"name": "legilimens-ablation", "observations": [
        {"id": "needs:legilimens-onoff:uses-spare", "ours": "holds only with: sender_gap_restart"}]}]}
    assert _verdict(claim, board, "legilimens-onoff") == "holds (holds only with: sender_gap_restart)"
    assert _verdict(claim, board, "legilimens-fairness") == "holds"
    assert _verdict({"id": "x", "verdict": "misses", "side": "below"}, board, "legilimens-onoff") == "**misses** (below)"


def test_short_ablation_run(tmp_path):
    """Figure 7's pair over one 10 s on / 10 s off cycle, as printed and default."""
    load_all()
    ctx = Context(out=tmp_path, experiment=REGISTRY["legilimens-ablation"], overrides={"on_off_s": 10.0})
    table = {"as-printed": {"as_printed": True}, "default": {}}
    res = ablate(ctx, FG_START + 20.0, 5.0, table, fairness=False)
    onoff = {c for c in CLAIM_DEFS if c[0] == "legilimens-onoff"}
    assert set(res) == set(table) and set(res["default"]) == onoff
    printed, default = res["as-printed"], res["default"]
    # As printed every GAP wait ends in a counted 250-TTI "gap": the idle cell is not recaptured.
    spare = ("legilimens-onoff", "uses-spare")
    assert default[spare][0] > 0.5 > printed[spare][0], (default[spare], printed[spare])
    ids = {o.id for o in ctx.observations}
    assert ids == {"variant:as-printed", "variant:default"}, "no needs without every single-addition variant"
    assert "as-printed" in (tmp_path / "ablation.md").read_text()
