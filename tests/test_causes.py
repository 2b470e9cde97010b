"""The causes of misses are rendered from the scoreboard's runs: every reference names a
stored result, every category agrees with its references where the rule is mechanical, and
no number is typed into a cause's text. Fast: reads the committed scoreboard, runs nothing."""

import json
import re
from pathlib import Path

import pytest

from cellshare.reproduce import causes, scoreboard as sb
from cellshare.reproduce.causes import Cause, CauseError, Resolver

REPO = Path(__file__).resolve().parent.parent

#: The rule for a cause's literal text (its text with the references cut out): it contains no
#: digit, except in
#: - where a paper says something: "line 175", "lines 1229 and 1396", "Sec. 2.4", "§3.4",
#:   "Fig. 7", "Figs. 7-8", "Figure 7", "Eq. (2.14)", "Table 3.1", "Algorithm 1";
#: - a parameter name or option in backticks that is an identifier (`max_backoff_exp`);
#: - the id of a claim or observation of the cause's reproduction ("as jain-2"), a file path
#:   ("tools/legilimens_ns3.py");
#: - the proper names of :data:`NAMES`.
#: Every measured or parameter value is a reference, so it is read from the runs each time the
#: scoreboard is rendered.
NAMES = ("ns-3", "C2TCP", "IEEE 802.15.4")
ALLOWED = [
    r"\blines? \d+(?:(?:,| and|-|–) ?\d+)*",
    r"\bSec(?:tion|s)?\. ?[\dIVX]+(?:[.-][\dA-Z]+)*", r"§\d+(?:\.\d+)*",
    r"\bFig(?:ure|s)?\.? ?\d+(?:\.\d+)*(?:\([a-z]\))?(?:[-–]\d+(?:\.\d+)*)?",
    r"\bEqs?\. ?\(\d+(?:\.\d+)*\)", r"\bTable \d+(?:\.\d+)*", r"\bAlgorithm \d+",
    r"`[A-Za-z_][A-Za-z0-9_]*`", r"[\w./-]+\.(?:py|md|json|jsonl)\b",
]


def _board() -> dict:
    return json.loads((REPO / sb.COMMITTED_REL).read_text())


def _literal_digits(key: str, cause: Cause, board: dict) -> str:
    rep = key.split("/")[0]
    text = cause.literal()
    entry = next(e for e in board["reproductions"] if e["name"] == rep)
    ids = sorted({c["id"] for c in entry["claims"]} | {o["id"] for o in entry["observations"]}, key=len, reverse=True)
    for name in NAMES:
        text = text.replace(name, "")
    for pattern in ALLOWED:
        text = re.sub(pattern, "", text)
    for i in ids:
        text = re.sub(rf"(?<![\w-]){re.escape(i)}(?![\w-])", "", text)
    return "".join(re.findall(r"\S*\d\S*", text))


def test_every_cause_renders_from_the_committed_scoreboard_and_its_category_fits():
    board = _board()
    res = Resolver(board, REPO)
    for key, cause in causes.CAUSES.items():
        text = res.render(key, cause)
        assert not causes.REF.search(text), key
        res.check(key, cause)


def test_no_number_is_typed_into_a_cause():
    board = _board()
    bad = {key: d for key, c in causes.CAUSES.items() if (d := _literal_digits(key, c, board))}
    assert not bad, f"numbers typed into causes (make them references to the scoreboard's runs): {bad}"


def _toy_board() -> dict:
    claim = {"id": "c", "ours": 2.0, "verdict": "misses", "detail": "2 of 3 Mbps", "target": {"paper": "5"}}
    return {"reproductions": [{
        "name": "toy", "claims": [claim, {"id": "d", "ours": {"A": 1.0, "B": 2.5}, "verdict": "holds", "detail": "",
                                           "target": {"paper": "A > B"}}],
        "observations": [{"id": "o", "ours": 0.25}, {"id": "eq-model", "ours": 4.0}],
        "assumptions": [{"name": "k", "value": 1, "alternatives": [2, 3]}],
        "sensitivity": [{"assumption": "k", "value": 2, "claim": "c", "ours": 4.5, "verdict": "holds"},
                        {"assumption": "k", "value": 3, "claim": "c", "ours": 9.0, "verdict": "misses"}]}]}


def test_references_render_what_the_board_holds():
    res = Resolver(_toy_board())
    text = res.render("toy/c", Cause("set-up not given", "{ours:toy/c} at {default:toy/k}; {sens:toy/k=2/c}; "
                                     "{obs:toy/o}; {ours:toy/d[B]}; {detail:toy/c}; paper {paper:toy/c}"))
    assert text == "2 at `k` = 1; 4.5 at `k` = 2, holds; 0.25; 2.5; 2 of 3 Mbps; paper 5"


@pytest.mark.parametrize("ref", ["{ours:toy/nope}", "{ours:other/c}", "{sens:toy/k=4/c}", "{sens:toy/k/c}",
                                 "{obs:toy/nope}", "{ours:toy/d[C]}", "{default:toy/nope}", "{detail:toy/d}",
                                 "{ns3:missing.json#a/b}"])
def test_a_reference_that_names_nothing_fails(ref):
    with pytest.raises(CauseError):
        Resolver(_toy_board(), REPO).render("toy/c", Cause("not explained", f"measured {ref}"))


def test_categories_are_checked_against_their_references():
    res = Resolver(_toy_board())
    # "set-up not given" needs a sensitivity row of this claim where it holds.
    res.check("toy/c", Cause("set-up not given", "{sens:toy/k=2/c}"))
    with pytest.raises(CauseError, match="where it holds"):
        res.check("toy/c", Cause("set-up not given", "{sens:toy/k=3/c}"))
    # "paper's own evidence differs" needs ns-3's number or the paper's own analysis.
    res.check("toy/c", Cause("paper's own evidence differs", "{obs:toy/eq-model}"))
    with pytest.raises(CauseError, match="ns-3"):
        res.check("toy/c", Cause("paper's own evidence differs", "{obs:toy/o}"))
    # Every category but "not explained" references a run.
    res.check("toy/c", Cause("not explained", "tried a thing"))
    with pytest.raises(CauseError, match="references no run"):
        res.check("toy/c", Cause("model gap", "the simulator lacks a thing"))
    with pytest.raises(CauseError, match="unknown category"):
        res.check("toy/c", Cause("bad luck", "{obs:toy/o}"))


def test_the_digit_rule_catches_typed_numbers():
    board = _toy_board()
    ok = Cause("not explained", "line 175, Sec. 2.4, Fig. 7, Eq. (2.14), `max_backoff_exp`, ns-3: {ours:toy/c}")
    assert _literal_digits("toy/c", ok, board) == ""
    assert _literal_digits("toy/c", Cause("not explained", "0.98 as shipped"), board) == "0.98"
    assert _literal_digits("toy/c", Cause("not explained", "with 6 other users"), board) == "6"


def test_counts_give_not_explained_per_paper():
    board = _board()
    n = sb.counts(board)
    for key, p in n["per_paper"].items():
        assert p["not_explained"] <= p["claims"] - p["held"], key
    expected = sum(1 for e in board["reproductions"] for c in e["claims"] if c["verdict"] != "holds"
                   and (causes.CAUSES.get(f"{e['name']}/{c['id']}") is None
                        or causes.CAUSES[f"{e['name']}/{c['id']}"].category == "not explained"))
    assert n["total"]["not_explained"] == expected
    block = sb.readme_block(board)
    assert "misses not explained" in block and f"| {n['total']['not_explained']} |" in block
