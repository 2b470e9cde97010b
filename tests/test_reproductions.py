"""The reproductions' one rule and the fidelity scoreboard: every claim definition quotes its
paper at the place it names and carries the paper's value; the rule judges as documented;
the committed scoreboard (python/cellshare/data/scoreboard.json) is current — its claim definitions, one
cheap reproduction re-run, the README and docs blocks it renders, and a measured cause for
every miss. Fast: nothing here runs more than one short reproduction."""

import json
import math
import os
from dataclasses import asdict
from pathlib import Path

import pytest

from cellshare import reproduce as rp
from cellshare.reproduce import (AtLeast, AtMost, ClaimDef, Context, Decreasing, Experiment, Order, Point, Range,
                                 causes, scoreboard as sb)

REPO = Path(__file__).resolve().parent.parent
#: The papers' plain texts: not distributed with cellshare (the papers are cited by key,
#: docs/references.md). The developers keep them beside the repository; CELLSHARE_PAPERS names
#: another folder. Only the quote check needs them, and it skips without them.
PAPERS_DIR = Path(os.environ.get("CELLSHARE_PAPERS") or REPO.parent / "shared" / "papers")
TARGETS = (Point, Range, AtMost, AtLeast, Order, Decreasing)


def _experiments():
    return rp.all_experiments()


def _committed() -> dict:
    return json.loads((REPO / "python" / "cellshare" / "data" / "scoreboard.json").read_text())


def test_every_experiment_declares_claims_and_is_in_the_scoreboard_order():
    exps = _experiments()
    assert {e.name for e in exps} == set(rp.ORDER)
    for e in exps:
        # The ablation judges no claim of its own: it re-runs other reproductions' claims
        # under each added rule switched off, and reports them as observations.
        assert e.claims or e.name == "legilimens-ablation", f"{e.name} declares no claim"


@pytest.mark.parametrize("exp", _experiments(), ids=lambda e: e.name)
def test_claim_definitions_carry_a_quote_a_location_and_the_papers_value(exp):
    for c in exp.claims:
        where = f"{exp.name}/{c.id}"
        assert c.paper in rp.PAPERS, where
        assert c.location.strip() and c.line > 0 and len(c.quote) >= 20 and c.what.strip(), where
        t = c.target
        assert isinstance(t, TARGETS), where
        if isinstance(t, (Order, Decreasing)):
            names = t.names if isinstance(t, Decreasing) else t.higher + t.lower
            assert all(n.strip() for n in names) and len(names) >= 2, where
            continue
        values = (t.low, t.high) if isinstance(t, Range) else (t.value,)
        assert all(isinstance(v, (int, float)) and math.isfinite(v) for v in values), where
        if isinstance(t, AtMost) and t.value == 0:
            # A zero bound says what it is zero of.
            assert t.derivation, where
        if not t.derivation:
            # No derivation: the value is written in the quote (no bare constants).
            for v in values:
                assert f"{v:g}" in c.quote, f"{where}: {v:g} is not in the quote and no derivation says where it comes from"


@pytest.mark.parametrize("exp", _experiments(), ids=lambda e: e.name)
def test_quotes_are_the_papers_words_at_the_line_given(exp):
    if not PAPERS_DIR.is_dir():
        pytest.skip(f"the papers' plain texts are not in {PAPERS_DIR} (they are not distributed with cellshare; "
                    "set CELLSHARE_PAPERS to a folder holding them to check that every quote sits at its line)")
    texts = {}
    for c in list(exp.claims) + list(exp.given) + list(exp.out_of_reach):
        path = rp.paper_path(c.paper, PAPERS_DIR)
        if path not in texts:
            texts[path] = [rp.quote_key(line) for line in path.read_text().split("\n")]
        keys = texts[path]
        q = rp.quote_key(c.quote)
        here = "".join(keys[c.line - 1:c.line + 39])
        after = "".join(keys[c.line:c.line + 40])
        what = f"{exp.name}/{getattr(c, 'id', None) or getattr(c, 'name', None) or f'out of reach at line {c.line}'}"
        assert q in here, f"{what}: the quote is not at line {c.line} of {path.name}"
        assert q not in after, f"{what}: the quote starts after line {c.line} of {path.name}"


@pytest.mark.parametrize("exp", _experiments(), ids=lambda e: e.name)
def test_assumptions_say_where_their_value_comes_from(exp):
    ids = {c.id for c in exp.claims}
    names = [a.name for a in exp.assumptions]
    assert len(names) == len(set(names)), exp.name
    for a in exp.assumptions:
        assert len(a.source) > 20, (exp.name, a.name)
        assert a.value not in a.alternatives, (exp.name, a.name)
        assert set(a.affects) <= ids, (exp.name, a.name)


def test_a_failed_guard_makes_a_claim_miss(tmp_path):
    d = ClaimDef("zero", "a share that backs off completely", "sneaker", "Sec. VI", 1, "x" * 20,
                 AtMost(0.0, derivation="completely = 0", scale=1.0))
    exp = Experiment("toy-guard", "toy", "Sneaker [sneaker]", lambda ctx: None, (d,))
    ctx = Context(out=tmp_path, experiment=exp)
    c = ctx.check("zero", 0.0, guards=(rp.Guard("the flow ran", False, "0 bytes"),))
    assert (c.verdict, c.side) == ("misses", "guard") and c.guards == [{"what": "the flow ran", "ok": False,
                                                                         "measured": "0 bytes"}]
    assert "guard failed: the flow ran (0 bytes)" in rp.guard_text(c.guards)
    ctx = Context(out=tmp_path, experiment=exp)
    assert ctx.check("zero", 0.0, guards=(rp.Guard("the flow ran", True, "5 MB"),)).verdict == "holds"
    # A miss stays a miss by the rule's own side.
    ctx = Context(out=tmp_path, experiment=exp)
    assert ctx.check("zero", 0.5, guards=(rp.Guard("the flow ran", False, "0 bytes"),)).side == "above"


def test_the_rule():
    assert rp.RATIO_TOLERANCE == 1.25 and rp.BOUND_TOLERANCE == 0.01
    # Point values: within ×/÷ 1.25, overshooting by far is a miss like undershooting.
    five = Point(5.0)
    assert five.judge(5.9) == (True, "") and five.judge(4.1) == (True, "")
    assert five.judge(8.7) == (False, "above") and five.judge(3.9) == (False, "below")
    # A ratio and its inverse get the same verdict (the tolerance is symmetric in the log).
    for ours in (2.0, 3.9, 4.0, 6.25, 6.3):
        assert Point(5.0).judge(ours)[0] == Point(1 / 5.0).judge(1 / ours)[0]
    # Ranges: inside, no tolerance.
    r = Range(0.6, 0.97)
    assert r.judge(0.6)[0] and r.judge(0.97)[0] and r.judge(0.59) == (False, "below") and r.judge(0.98) == (False, "above")
    # Bounds: 1 % of the bound; of the full scale for a zero bound.
    assert AtMost(300.0).judge(303.0)[0] and not AtMost(300.0).judge(303.1)[0]
    assert AtLeast(0.94).judge(0.9306)[0] and not AtLeast(0.94).judge(0.93)[0]
    assert AtMost(0.0, scale=1.0).judge(0.01)[0] and AtMost(0.0, scale=1.0).judge(0.011) == (False, "above")
    assert AtMost(0.0).judge(0)[0] and not AtMost(0.0).judge(1)[0]
    # Orders: strict.
    o = Order(("Sneaker",), ("*",))
    assert o.judge({"Sneaker": 3, "TCP-LP": 2, "LEDBAT": 1})[0]
    assert o.judge({"Sneaker": 2, "TCP-LP": 2, "LEDBAT": 1}) == (False, "order")
    assert Order(("*",), ("CUBIC", "BBR")).judge({"CUBIC": 1, "BBR": 2, "Vegas": 3, "LEDBAT": 2.5})[0]
    assert not Order(("*",), ("CUBIC", "BBR")).judge({"CUBIC": 1, "BBR": 3, "Vegas": 2})[0]
    d = Decreasing(("a", "b", "c"))
    assert d.judge({"a": 3, "b": 2, "c": 1})[0] and not d.judge({"a": 3, "b": 1, "c": 2})[0]


def _toy(tmp_path, fail: bool = False) -> Experiment:
    defs = (ClaimDef("x", "a number", "bode", "Sec. I", 34, "from 2× to 20× considering all tested scenarios",
                     Range(2.0, 20.0)),
            ClaimDef("y", "another", "bode", "Sec. I", 34, "from 2× to 20× considering all tested scenarios",
                     Point(2.0)))

    def func(ctx: Context) -> None:
        if fail:
            raise RuntimeError("boom")
        ctx.check("x", 3.0 * (2 if ctx.param("k") == 2 else 1))
        ctx.check("y", None, detail="could not be measured")
        ctx.observe("z", "a note", 1.5)

    return Experiment("toy-fails" if fail else "toy", "toy", "BoDe", func, defs, (rp.Assumption("k", 1, "a value the paper does not give", (2,)),))


def test_context_judges_declared_claims_only_and_sensitivity_reruns(tmp_path):
    exp = _toy(tmp_path)
    o = rp.run_experiment(exp, tmp_path / "t")
    by = {c.id: c for c in o.claims}
    assert by["x"].verdict == "holds" and by["y"].verdict == "misses" and by["y"].side == "not measured"
    assert [ob.id for ob in o.observations] == ["z"]
    assert [(r["value"], r["claim"], r["ours"], r["ours_default"]) for r in o.sensitivity] == [(2, "x", 6.0, 3.0), (2, "y", None, None)]
    ctx = Context(out=tmp_path, experiment=exp)
    with pytest.raises(KeyError):
        ctx.check("nope", 1.0)
    ctx.check("x", 1.0)
    with pytest.raises(ValueError):
        ctx.check("x", 1.0)
    with pytest.raises(RuntimeError, match="not checked: y"):
        ctx.finish()


def test_run_all_writes_the_scoreboard_and_reports_a_failed_reproduction(tmp_path):
    out = tmp_path / "all"
    board = sb.run_all(out, experiments=[_toy(tmp_path), _toy(tmp_path, fail=True)])
    assert [e["status"] for e in board["reproductions"]] == ["ok", "error"]
    assert "boom" in board["reproductions"][1]["error"] and (out / "toy-fails.error.txt").is_file()
    assert sb.exit_code(board) == 3
    on_disk = json.loads((out / "scoreboard.json").read_text())
    assert on_disk["reproductions"][0]["claims"][0]["verdict"] == "holds"
    md = (out / "scoreboard.md").read_text()
    assert "**not explained** (no cause recorded)" in md and "Failed to run" in md
    assert (out / "toy" / "claims.json").is_file() and (out / "toy" / "claims.md").is_file()
    board["reproductions"] = board["reproductions"][:1]
    assert sb.exit_code(board) == 1


def test_reproduce_flags_are_checked(run_cli, tmp_path):
    p = run_cli("reproduce", "--update-docs", "pf-fairness")
    assert p.returncode == 2 and "--update-docs needs --all" in p.stderr
    p = run_cli("reproduce", "--all", "--update-docs", "--out", tmp_path / "quick")
    assert p.returncode == 2 and "--update-docs needs --full" in p.stderr and not (tmp_path / "quick").exists()
    p = run_cli("reproduce", "pf-fairness", "--all", "--out", tmp_path / "x")
    assert p.returncode == 2 and "not both" in p.stderr and not (tmp_path / "x").exists()
    # --all into an earlier output: refused before anything runs, in one line, the folder kept
    # (it was an uncaught traceback until 2026-11-28).
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / ".cellshare-output").write_text('{"kind": "run", "cellshare": "0.1.0"}')
    (earlier / "keep.txt").write_text("mine")
    p = run_cli("reproduce", "--all", "--out", earlier)
    assert p.returncode == 2 and "holds a previous cellshare run output; use --force" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr and (earlier / "keep.txt").read_text() == "mine"


def test_committed_scoreboard_has_every_reproduction_and_current_claim_definitions():
    board = _committed()
    assert [e["name"] for e in board["reproductions"]] == list(rp.ORDER)
    assert board["rule"] == {"ratio_tolerance": rp.RATIO_TOLERANCE, "bound_tolerance": rp.BOUND_TOLERANCE}
    stale = "the committed scoreboard (python/cellshare/data/scoreboard.json) is stale: run `cellshare reproduce --all --full --update-docs`"
    for e, exp in zip(board["reproductions"], _experiments()):
        assert e["status"] == "ok", e["name"]
        assert [c["id"] for c in e["claims"]] == [c.id for c in exp.claims], (e["name"], stale)
        for c, d in zip(e["claims"], exp.claims):
            target = json.loads(json.dumps(rp.target_dict(d.target)))
            assert (c["quote"], c["line"], c["target"]) == (d.quote, d.line, target), (e["name"], c["id"], stale)
        assert [a["name"] for a in e["assumptions"]] == [a.name for a in exp.assumptions], (e["name"], stale)
        assert e.get("out_of_reach", []) == [json.loads(json.dumps(asdict(x))) for x in exp.out_of_reach], (e["name"], stale)


def test_committed_scoreboard_matches_a_fresh_run_of_pf_fairness(tmp_path):
    """Results are deterministic: a reproduction re-run, in the committed board's mode (full or
    quick), gives the committed numbers (the cheapest one, a few seconds; a simulator change that
    moves them needs a new scoreboard)."""
    exp = rp.REGISTRY["pf-fairness"]
    board = _committed()
    o = rp.run_experiment(exp, tmp_path / "pf", full=board["full"], sensitivity=False)
    committed = next(e for e in board["reproductions"] if e["name"] == "pf-fairness")
    fresh = o.to_json()
    stale = "the committed scoreboard (python/cellshare/data/scoreboard.json) is stale: run `cellshare reproduce --all --full --update-docs`"
    assert [(c["id"], c["ours"], c["verdict"]) for c in fresh["claims"]] == \
        [(c["id"], c["ours"], c["verdict"]) for c in committed["claims"]], stale
    assert [(x["id"], x["ours"]) for x in fresh["observations"]] == \
        [(x["id"], x["ours"]) for x in committed["observations"]], stale


def test_readme_and_docs_show_the_committed_scoreboard():
    for path, text in sb.rendered(REPO).items():
        assert path.read_text() == text, f"{path} is stale: run `cellshare reproduce --render-docs`"


def test_results_out_of_reach_are_listed_with_their_reason_on_the_scoreboard_page():
    text = (REPO / "docs" / "reproductions.md").read_text()
    listed = [(e.name, x) for e in _experiments() for x in e.out_of_reach]
    assert listed, "no reproduction lists a result no claim covers"
    for name, x in listed:
        assert f"“{x.quote}”" in text and x.reason in text, (name, x.line)
        assert len(x.reason) > 40, (name, x.line)


def test_every_miss_has_a_measured_cause_and_every_cause_a_claim():
    board = _committed()
    verdicts = {f"{e['name']}/{c['id']}": c["verdict"] for e in board["reproductions"] for c in e["claims"]}
    for key, cause in causes.CAUSES.items():
        assert key in verdicts, f"causes.py names {key}, which is not a claim"
        assert cause.category in causes.CATEGORIES, key
        assert len(cause.text) > 30, key
        if cause.category == "holds for another reason":
            assert verdicts[key] == "holds", f"{key} misses now: give it a cause of a miss"
        else:
            assert verdicts[key] == "misses", f"{key} holds now: remove its cause from causes.py"
    missing = [k for k, v in verdicts.items() if v == "misses" and k not in causes.CAUSES]
    assert not missing, f"misses without a measured cause in causes.py: {missing}"


def test_the_link_model_is_read_off_the_scenarios_run():
    radio = {"kind": "radio", "distance_m": 100.0}
    assert rp.link_of({"ues": [{"channel": radio}]}) == "realistic"
    assert rp.link_of({"cell": {"link": {"kind": "ideal"}}, "ues": [{"channel": radio}]}) == "ideal"
    assert rp.link_of({"ues": [{"channel": {"kind": "fixed", "rate_mbps": 5.0}}, {}]}) == "capacity"
    assert rp.link_of({"lln": {}}) == "lln"
    assert rp.links_text({"capacity", "realistic"}) == "realistic + capacity"
    assert rp.links_text(set()) == rp.DEFAULT_LINK


# -- honest exits and a scoreboard that keeps every paper -------------------------------------

def _fake(name: str, fail: bool) -> Experiment:
    """A registered-like experiment that checks one Sneaker claim without running anything,
    or raises."""
    claim = ClaimDef("c", "a quantity", "sneaker", "Sec. VI", 1, "a quote long enough to be a quote", Point(2.0))

    def func(ctx):
        if fail:
            raise RuntimeError("the channel exploded")
        ctx.check("c", 2.1)

    return Experiment(name, f"{name} title", "Sneaker [sneaker]", func, (claim,))


def test_a_failed_reproduction_keeps_its_paper_and_claims_on_the_scoreboard(tmp_path):
    board = sb.run_all(tmp_path / "all", sensitivity=False, experiments=[_fake("ok", False), _fake("broken", True)])
    assert sb.exit_code(board) == 3
    broken = board["reproductions"][1]
    assert broken["status"] == "error" and broken["error"] == "RuntimeError: the channel exploded"
    assert [c["verdict"] for c in broken["claims"]] == [sb.NOT_RUN]
    n = sb.counts(board)
    assert n["per_paper"]["sneaker"] == {"held": 1, "claims": 2, "not_explained": 0, "observations": 0}
    md = (tmp_path / "all" / "scoreboard.md").read_text()
    assert "**Failed to run**: RuntimeError: the channel exploded" in md and "| **1 / 2** |" in md
    assert sb.failures(board) == ["broken failed to run: RuntimeError: the channel exploded"]
    assert "RuntimeError" in (tmp_path / "all" / "broken.error.txt").read_text()
    block = sb.docs_block(board)
    assert "`broken` (failed: RuntimeError: the channel exploded)" in block and "1 not run" in block


def test_reproduce_exit_codes_say_what_happened(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from cellshare.cli import app

    rp.load_all()
    monkeypatch.setitem(rp.REGISTRY, "fake-ok", _fake("fake-ok", False))
    monkeypatch.setitem(rp.REGISTRY, "fake-broken", _fake("fake-broken", True))
    runner = CliRunner()
    r = runner.invoke(app, ["reproduce", "fake-ok", "--out", str(tmp_path / "ok")])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["reproduce", "fake-broken", "--out", str(tmp_path / "broken")])
    assert r.exit_code == 3, r.output
    assert "fake-broken failed to run: RuntimeError: the channel exploded" in " ".join(r.output.split())
    assert "Traceback" not in r.output and not (tmp_path / "broken").exists()
    r = runner.invoke(app, ["reproduce", "no-such", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2
    r = runner.invoke(app, ["reproduce", "bode", "--traces", str(tmp_path / "absent"), "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "not a folder" in r.output
