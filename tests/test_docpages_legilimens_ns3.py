"""The renderers of docs/legilimens-ns3.md (cellshare.docpages.legilimens_ns3): each reads the
stored Figure 7 / Figure 12 comparison, a changed artefact changes the page, a bad argument is
one line naming it, and the page's qualitative sentences still hold for the stored runs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cellshare import docgen
from cellshare.docgen import DocgenError
from cellshare.docpages import legilimens_ns3 as M

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "legilimens-ns3.md"
ARTEFACTS = [docgen.FIG12_NS3, M.FIG12_JSONL, M.FIG12_CS, M.FIG12_PADDED, M.FIG7_JSONL]


def render(name: str, *args: str, root: Path = REPO) -> str:
    return M.RENDERERS[name][0](docgen._Artefacts(root), list(args))


def _copy(tmp_path: Path) -> Path:
    for rel in ARTEFACTS:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, tmp_path / rel)
    return tmp_path


def _bg_diffs_from_the_table() -> list[int]:
    """The background column's printed differences, read independently of the module."""
    diffs = []
    for ln in (REPO / docgen.FIG12_NS3).read_text().splitlines():
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] in M.BACKGROUNDS and cells[1].endswith("%") and cells[1] != "avg":
            diffs.append(int(re.search(r"\(([+-]\d+) %\)", cells[3]).group(1)))
    return diffs


def test_the_agreement_count_is_the_tables_background_differences_within_the_tolerance():
    diffs = _bg_diffs_from_the_table()
    assert len(diffs) == 24
    for tol in (5, 15, 30):
        assert render("lns3-agree", str(tol)) == f"{sum(abs(d) <= tol for d in diffs)} of the 24"
    assert render("lns3-outside", "100") == "none"


def test_the_page_uses_the_renderers_and_is_current():
    text = PAGE.read_text()
    used = set(re.findall(r"<!-- generated: (lns3-[\w-]+)", text))
    assert used == set(M.RENDERERS), set(M.RENDERERS) ^ used
    assert docgen.render_page(text, docgen._Artefacts(REPO)) == text


def test_a_changed_table_changes_the_agreement_and_the_cases_outside(tmp_path):
    root = _copy(tmp_path)
    before = render("lns3-agree", "15", root=root)
    md = root / docgen.FIG12_NS3
    rows = md.read_text().split("\n")
    i = next(k for k, ln in enumerate(rows) if ln.startswith("Background at 10 UEs"))
    j = next(k for k in range(i, len(rows)) if rows[k].startswith("| Vegas | 30% |"))
    rows[j] = re.sub(r"4\.92 / 3\.52 \(-28 %\)", "4.92 / 4.52 (-8 %)", rows[j])
    assert rows[j] != (REPO / docgen.FIG12_NS3).read_text().split("\n")[j]
    md.write_text("\n".join(rows))
    n = int(before.split()[0])
    assert render("lns3-agree", "15", root=root) == f"{n + 1} of the 24"
    assert "Vegas at 10 UEs at 60 % (−29 %) and 80 % (−34 %)" in render("lns3-outside", "15", root=root)
    assert render("lns3-cells", "some", "bg", "Vegas", "ns-3", "30", root=root) == "4.52"


def test_a_changed_ns3_run_changes_its_fill_blocks_and_the_refill(tmp_path):
    root = _copy(tmp_path)
    path = root / M.FIG12_JSONL
    lines = path.read_text().splitlines()
    case = "fig12-Vegas-some-load30-10s-seed1-phy"
    k = next(i for i, ln in enumerate(lines) if json.loads(ln)["case"] == case)
    d = json.loads(lines[k])
    d["result"]["phy"]["background UEs"].update(tb_bytes=50_000_000, fill=0.5)
    lines[k] = json.dumps(d)
    path.write_text("\n".join(lines) + "\n")
    assert render("lns3-run", "ns-3", "fill", "Vegas", "some", "30", root=root) == "0.50"
    assert render("lns3-run", "ns-3", "blocks", "Vegas", "some", "30", root=root) == "40.0"
    cubic = next(json.loads(ln) for ln in lines if json.loads(ln)["case"] == case.replace("Vegas", "CUBIC"))
    cubic_fill = cubic["result"]["phy"]["background UEs"]["fill"]
    want = d["result"]["summary"]["bg_mbps"] * cubic_fill / 0.5
    assert render("lns3-refill", "Vegas", "some", root=root).startswith(f"{want:.2f} / ")


def test_the_cellshare_artefact_is_the_cellshare_side_of_the_stored_table():
    # Both are cellshare's runs of the same cases: regenerated together or the page mixes two.
    for lay in ("every", "some"):
        for s in M.BACKGROUNDS:
            assert render("lns3-run", "cellshare", "bg", s, lay) == render("lns3-cells", lay, "bg", s, "cellshare")
    assert render("lns3-run", "cellshare", "fg", "none", "every") == render("lns3-cells", "every", "fg", "none",
                                                                             "cellshare")


def test_the_cellshare_artefact_is_what_its_tool_measures(tmp_path):
    out = tmp_path / "cs.json"
    subprocess.run([sys.executable, str(REPO / "tools" / "legilimens_ns3_cellshare.py"), "--out", str(out)],
                   check=True, capture_output=True)
    new, stored = json.loads(out.read_text()), json.loads((REPO / M.FIG12_CS).read_text())
    assert new["cases"] == stored["cases"] and new["variants"] == stored["variants"]


def test_the_tool_refuses_an_output_that_is_not_json(tmp_path):
    r = subprocess.run([sys.executable, str(REPO / "tools" / "legilimens_ns3_cellshare.py"), "--out",
                        str(tmp_path / "x.txt")], capture_output=True, text=True)
    assert r.returncode == 2 and "--out" in r.stderr and "x.txt" in r.stderr and len(r.stderr.splitlines()) == 1


def test_a_variant_changes_one_setting():
    sys.path.insert(0, str(REPO / "tools"))
    import legilimens_ns3_cellshare as T
    import legilimens_study as S

    sc = S.fig12_scenario("Legilimens", "some", 0.6, 1, 10.0)
    linux = T._linux_receiver(sc)
    assert all("tcp" not in f["transport"] for f in linux["flows"])
    assert not set(linux["workload"]["transport"]["tcp"]) & set(S.X.NS3_RECEIVER)
    assert linux["workload"]["transport"]["tcp"]["handshake"] is False
    assert T._uplink_12ms(sc)["wired"]["uplink_delay_ms"] == 12.0 and "uplink_delay_ms" not in sc["wired"]
    assert T._handshake(sc)["workload"]["transport"]["tcp"]["handshake"] is True


def test_spans_and_bounds_of_differences():
    assert M._span([-5.0, -14.0]) == "−5 to −14 %"
    assert M._span([4.0, -6.0]) == "−6 to +4 %"
    assert M._span([22.2, 31.9]) == "+22 to +32 %"
    assert M._span([-0.4, 0.3]) == "0 %"
    diffs = [d for d in _bg_diffs_from_the_table()[:12]]  # every UE
    assert render("lns3-within", "every", "bg", "all") == f"±{max(abs(d) for d in diffs)} %"


def test_the_fig7_stop_reads_the_mode_log(tmp_path):
    path = tmp_path / M.FIG7_JSONL
    path.parent.mkdir(parents=True)
    log = [[0.5, 1], [1.25, 0], [49.0, 1], [49.1, 4], [50.6, 1], [50.85, 2], [51.1, 3], [51.35, 0]]
    path.write_text(json.dumps({"case": "fig7-legilimens", "result": {"modes": log, "idle_timeouts": 2}}) + "\n")
    assert render("lns3-fig7-stop", "50", root=tmp_path) == (
        "GAP I at 49.00 s, back-off 49.10–50.60 s (a 1.50 s wait), GAP I at 50.60 s, GAP II at 50.85 s, "
        "GAP III at 51.10 s, NORMAL at 51.35 s, 1.35 s after CUBIC's stop at 50 s")
    assert render("lns3-fig7-normal", root=tmp_path) == "0.75 s"
    with pytest.raises(DocgenError, match="no NORMAL after 60 s"):
        render("lns3-fig7-stop", "60", root=tmp_path)


@pytest.mark.parametrize("name, args, message", [
    ("lns3-diff", ["everywhere", "bg", "all"], "layout 'everywhere' is not every or some"),
    ("lns3-diff", ["some", "goodput", "all"], "column 'goodput' is not one of"),
    ("lns3-run", ["ns-3", "fill", "BBR", "some"], "scheme 'BBR' is not one of"),
    ("lns3-run", ["ns-3", "fill", "Vegas", "some", "50"], "load 50 is not one of 30, 60, 80"),
    ("lns3-run", ["cellshare:fast", "bg", "Vegas", "some"], "no variant 'fast'"),
    ("lns3-run", ["cellshare", "fill", "Vegas", "some"], "key 'fill' is not one of"),
    ("lns3-run", ["ns-3", "long", "Vegas", "some", "30"], "ns-3 has no long in this run"),
    ("lns3-agree", ["many"], "TOL 'many' is not a number"),
    ("lns3-wall", ["week"], "'week' is not wobg, every or matrix"),
    ("lns3-cells", ["some", "bg", "Vegas"], "expected `lns3-cells LAYOUT COLUMN SCHEMES"),
    ("lns3-alone", ["tools/data/x.md", "LEDBAT", "every", "60", "rtt"], "field 'rtt' is not one of"),
])
def test_a_bad_argument_is_one_line_naming_it(name, args, message):
    with pytest.raises(DocgenError) as e:
        render(name, *args)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_the_pages_qualitative_sentences_hold_for_the_stored_runs():
    d = lambda *a: [M._diff(M._pair(docgen._Artefacts(REPO), *a, "test"))]  # noqa: E731
    # "within ±15 % … at every UE for all four schemes …, and at 10 UEs for CUBIC and LEDBAT"
    assert all(abs(x) <= 15 for s in M.BACKGROUNDS for ld in M.LOADS for x in d("every", "bg", s, ld))
    assert all(abs(x) <= 15 for s in ("CUBIC", "LEDBAT") for ld in M.LOADS for x in d("some", "bg", s, ld))
    # "Filled as CUBIC's … the padding is most of the difference" (Vegas at 10 UEs)
    refill = render("lns3-refill", "Vegas", "some")
    after = [float(x.replace("−", "-")) for x in re.search(r"\((\S+) to (\S+) %\)", refill).groups()]
    assert max(abs(x) for x in after) < min(abs(x) for ld in M.LOADS for x in d("some", "bg", "Vegas", ld)) / 2
    # "the set-up is the whole of those differences" (every UE, beside CUBIC and Vegas)
    assert all(abs(x) <= 10 for s in ("CUBIC", "Vegas") for ld in M.LOADS for x in d("every", "replay", s, ld))
    # "the padding explains part of that remainder": it closes some, not all, of each gap
    for args in (("every", "replay", "Legilimens"), ("some", "bg", "Legilimens")):
        shares = [int(x) for x in render("lns3-closed", *args).rstrip(" %").split(" / ")]
        assert all(0 < x < 100 for x in shares), (args, shares)
