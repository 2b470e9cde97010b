"""Generated sections of the documentation (cellshare.docgen): every number a page quotes from
a measurement is rendered from the committed artefact that measured it, and a committed page
that differs from the rendering fails, naming the page and the command that rewrites it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cellshare import docgen
from cellshare.reproduce import fmt

REPO = Path(__file__).resolve().parents[1]
#: The background case docs/crosscheck.md shows.
NS3_SHARES = "tools/data/ns3-crosscheck-background-ideal.json"


def test_committed_pages_are_what_the_artefacts_render():
    stale = docgen.stale(REPO)
    assert not stale, "\n".join(f"{p.relative_to(REPO)} is stale: run `{docgen.COMMAND}`" for p in stale)


def test_pages_use_generated_sections_for_the_numbers_they_quote():
    # The pages that quote the scoreboard's and the benchmark's numbers do it through markers.
    for rel, markers in {
        "README.md": ["<!-- generated: reproduction-count -->", "<!-- generated: bench-speed single-realistic -->",
                      "<!-- generated: sweep-tour scenarios/sweeps/background-schemes.toml out/bg -->"],
        "docs/reproductions.md": ["<!-- generated: reproduction-cost -->"],
        "docs/legilimens.md": ["<!-- generated: claims legilimens-onoff -->",
                               "<!-- generated: value legilimens-onoff yields pct -->",
                               "<!-- generated: legilimens-in-step -->"],
        "docs/performance.md": ["<!-- generated: bench single -->", "<!-- generated: bench network -->",
                                "<!-- generated: bench transports -->", "<!-- generated: bench ues -->"],
        "docs/tcp.md": ["<!-- generated: emu-crosscheck -->", "<!-- generated: emu-within rtt -->"],
        "docs/limits.md": ["<!-- generated: limits -->", "<!-- generated: limits-const SPOOL_MEMORY_BYTES MiB -->",
                           "<!-- generated: memory -->", "<!-- generated: memory-ratio -->"],
        "docs/sweeps-and-reports.md": ["<!-- generated: code-const sweeps.TASKS_PER_WORKER -->",
                                       "<!-- generated: sweep-memory -->"],
        "docs/apps.md": ["<!-- generated: apps-speed -->"],
        "docs/crosscheck.md": [f"<!-- generated: ns3-power {docgen.NS3_POWER} -->",
                               f"<!-- generated: ns3-shares {NS3_SHARES} -->", f"<!-- generated: ns3-walls {NS3_SHARES} -->"],
        "docs/crosscheck-ns3.md": ["<!-- generated: ns3-background tools/data/ns3-crosscheck-background.json -->",
                                   "<!-- generated: ns3-agree tools/data/ns3-crosscheck-background.json 15 -->",
                                   f"<!-- generated: ns3-udp {docgen.NS3_UDP} -->",
                                   f"<!-- generated: ns3-udp-diff {docgen.NS3_UDP} 1 -->",
                                   f"<!-- generated: ns3-harq {docgen.NS3_HARQ} -->",
                                   f"<!-- generated: ns3-harq-diff {docgen.NS3_HARQ} -->",
                                   f"<!-- generated: ns3-speed-udp {docgen.NS3_UDP} -->"],
        "docs/transports.md": ["<!-- generated: c2tcp 1000 -->", "<!-- generated: westwood -->",
                               "<!-- generated: westwood-ns3 -->"],
        "docs/legilimens-ns3.md": ["<!-- generated: fig7-ns3 -->", "<!-- generated: fig7-recapture -->", "<!-- generated: fig12-ns3 -->"],
        "docs/getting-started.md": ["<!-- generated: sweep-tour scenarios/sweeps/background-schemes.toml out/bg -->"],
        "docs/nr.md": ["<!-- generated: nr-lena -->", "<!-- generated: nr-lena-range throughput_ratio -->"],
    }.items():
        text = (REPO / rel).read_text()
        for m in markers:
            assert m in text, (rel, m)


def _tree(tmp_path: Path) -> Path:
    """A minimal source tree: the committed artefacts, the README, the pages and their figures,
    and the Rust source of the limits the limits table quotes."""
    root = tmp_path / "src"
    for rel in ("README.md", docgen.SCOREBOARD, docgen.BENCH, "tools/data/ns3-crosscheck-background.json",
                docgen.NS3_POWER, NS3_SHARES,
                docgen.LIMITS_RS, docgen.EMU_CROSSCHECK, docgen.EMU_MULTIFLOW, docgen.APPS_SPEED, docgen.MEMORY,
                docgen.SWEEP_MEMORY, docgen.LEGILIMENS_IN_STEP, docgen.NR_LENA, docgen.BENCH_NR, docgen.EMU_NR,
                docgen.IN_STEP_LINUX):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, root / rel)
    shutil.copytree(REPO / "tools" / "data", root / "tools" / "data", dirs_exist_ok=True)  # every artefact a page quotes
    shutil.copytree(REPO / "docs", root / "docs")
    shutil.copytree(REPO / "scenarios", root / "scenarios")
    # Sources some renderers quote: the tests a page names, Sprout's model constants.
    shutil.copytree(REPO / "tests", root / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    for rel in ("crates/transport/src/datagram/sprout/model.rs",):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, root / rel)
    return root


def test_check_names_the_stale_page_and_the_command_and_write_repairs_it(tmp_path):
    root = _tree(tmp_path)
    page = root / "docs" / "legilimens.md"
    text = page.read_text()
    marker = "<!-- generated: value legilimens-onoff yields pct -->"
    i = text.index(marker) + len(marker)
    j = text.index("<!-- end generated -->", i)
    page.write_text(text[:i] + "7.6 %" + text[j:])   # a hand-typed number
    cmd = [sys.executable, "-m", "cellshare.docgen", "--root", str(root)]
    p = subprocess.run(cmd + ["--check"], capture_output=True, text=True)
    assert p.returncode == 1
    assert "docs/legilimens.md is stale: run `python -m cellshare.docgen --write`" in p.stderr, p.stderr
    p = subprocess.run(cmd + ["--write"], capture_output=True, text=True)
    assert p.returncode == 0 and "rewrote docs/legilimens.md" in p.stdout, p.stdout + p.stderr
    assert page.read_text() == text
    assert subprocess.run(cmd + ["--check"], capture_output=True, text=True).returncode == 0


def test_a_changed_artefact_changes_the_page(tmp_path):
    root = _tree(tmp_path)
    sb = root / docgen.SCOREBOARD
    board = json.loads(sb.read_text())
    onoff = next(e for e in board["reproductions"] if e["name"] == "legilimens-onoff")
    next(c for c in onoff["claims"] if c["id"] == "yields")["ours"] = 0.0123
    sb.write_text(json.dumps(board))
    stale = [p.relative_to(root).as_posix() for p in docgen.stale(root)]
    assert "docs/legilimens.md" in stale
    docgen.write(root)
    assert "<!-- generated: value legilimens-onoff yields pct -->1.2 %<!-- end generated -->" in \
        (root / "docs" / "legilimens.md").read_text()


def test_renderers_on_a_page():
    a = docgen._Artefacts(REPO)
    board = json.loads((REPO / docgen.SCOREBOARD).read_text())
    n = len(board["reproductions"])
    text = "All <!-- generated: reproduction-count -->?<!-- end generated --> of them.\n"
    assert docgen.render_page(text, a) == f"All <!-- generated: reproduction-count -->{n}<!-- end generated --> of them.\n"
    block = docgen.render_page("<!-- generated: claims pf-fairness -->\n<!-- end generated -->", a)
    assert "| claim | paper | ours | verdict |" in block and block.endswith("\n\n<!-- end generated -->")
    held = sum(c["verdict"] == "holds" for e in board["reproductions"] for c in e["claims"])
    total = sum(len(e["claims"]) for e in board["reproductions"])
    assert docgen.render_page("Held: <!-- generated: claims-held --><!-- end generated -->", a) == \
        f"Held: <!-- generated: claims-held -->{held} / {total}<!-- end generated -->"
    # A range is the lowest and highest of the values named, in one unit.
    abr = sorted(next(c["ours"] for e in board["reproductions"] if e["name"] == "bode-apps"
                      for c in e["claims"] + e["observations"] if c["id"] == i)
                 for i in ("abr-delay-bb", "abr-delay-bola", "abr-delay-mpc"))
    got = docgen.render_page("x <!-- generated: range bode-apps abr-delay-bb abr-delay-bola abr-delay-mpc x -->"
                             "<!-- end generated -->", a)
    assert f"-->{fmt(abr[0])}–{fmt(abr[-1])}×<!--" in got, got
    # Properties of the code come from the code.
    from cellshare import sweeps
    assert f"-->{sweeps.TASKS_PER_WORKER:,}<!--" in docgen.render_page(
        "x <!-- generated: code-const sweeps.TASKS_PER_WORKER --><!-- end generated -->", a)
    assert "-->256 KB<!--" in docgen.render_page(
        "x <!-- generated: code-const sweeps.SHORT_MAX_BYTES KB --><!-- end generated -->", a)
    assert "-->32 MiB<!--" in docgen.render_page(
        "x <!-- generated: limits-const SPOOL_MEMORY_BYTES MiB --><!-- end generated -->", a)
    emu = json.loads((REPO / docgen.EMU_CROSSCHECK).read_text())
    outside = [c for c in emu["cases"] if c["rtt_p50_ms"]["rel_diff"] > emu["tolerances"]["rtt"]]
    n = len(emu["cases"])
    # The cases outside the tolerance are named, e.g. "(not BBR on TMobile-UMTS-driving)".
    named = ", ".join(f"{c['cc'].upper()} on {c['trace'].removesuffix('.down')}" for c in outside)
    counted = f"all {n} cases" if not outside else f"{n - len(outside)} of {n} cases (not {named})"
    assert f"-->{counted}, the largest difference" in docgen.render_page(
        "x <!-- generated: emu-within rtt --><!-- end generated -->", a)
    table = docgen.render_page("<!-- generated: limits -->\n<!-- end generated -->", a)
    assert "| UEs in one `[[ues]]` group | 10,000 | — |" in table and "| UEs in total | 100,000 | `--max-ues` |" in table


@pytest.mark.parametrize("spec, message", [
    ("nonsense", "unknown renderer 'nonsense'"),
    ("value no-such-rep x", "reproduction 'no-such-rep' is not in python/cellshare/data/scoreboard.json"),
    ("value pf-fairness no-such-claim", "reproduction 'pf-fairness' has no claim or observation 'no-such-claim'"),
    ("value pf-fairness", "renderer 'value': expected `value REP ID [pct|x|s|ms]`"),
    ("verdict pf-fairness pf-diversity", "pf-fairness/pf-diversity is an observation: it has no verdict"),
    ("bench nonsense", "renderer 'bench': expected single, network, transports or ues, got 'nonsense'"),
    ("bench-ratio nonsense", "renderer 'bench-ratio': no ratio 'nonsense' in tools/data/bench.json"),
    ("range pf-fairness equal-split", "renderer 'range': expected `range REP ID ID... [pct|x|s|ms]`: two IDs or more"),
    ("code-const sweeps.NO_SUCH", "renderer 'code-const': cellshare.sweeps has no constant 'NO_SUCH'"),
    ("code-const sweeps.SHORT_MAX_BYTES MB", "cellshare.sweeps.SHORT_MAX_BYTES = 262144 is not a whole number of MB"),
    ("limits-const NO_SUCH", "crates/sim/src/limits.rs has no `const NO_SUCH: u64 = N;`"),
    ("figure nonsense", "renderer 'figure': no figure 'nonsense'"),
    ("emu-within nonsense", "renderer 'emu-within': expected throughput, rtt, retx_per_drop or timeouts"),
    ("sweep-tour scenarios/sweeps/no-such.toml out/x", "renderer 'sweep-tour': scenarios/sweeps/no-such.toml: "),
    ("sweep-tour scenarios/sweeps/background-schemes.toml", "renderer 'sweep-tour': expected `sweep-tour SWEEP_FILE OUT`"),
    (f"ns3-rate {docgen.NS3_POWER}#nope 30 ns3 fg", "ns3-crosscheck-cubic-power.json has no run 'nope' (runs: aligned, defaults)"),
    (f"ns3-rate {docgen.NS3_POWER}#aligned 31 ns3 fg", "has no run '31' (runs: 30, 36, 40, 46)"),
    (f"ns3-rate {docgen.NS3_POWER}#aligned 30 ns-3 fg", "side 'ns-3' is not cellshare or ns3"),
    (f"ns3-power-ratio {docgen.NS3_POWER} aligned:ns3 aligned", "'aligned' is not RUN:cellshare or RUN:ns3"),
    (f"ns3-shares {docgen.NS3_POWER}#aligned", "is case 'cubic', not background"),
    ("ns3-walls tools/data/ns3-crosscheck-background.json", "ns-3 side was reused from another run"),
    (f"ns3-udp {docgen.NS3_HARQ}", "ns3-crosscheck-harq.json is case 'harq', not udp"),
    (f"ns3-harq {docgen.NS3_UDP}", "ns3-crosscheck-udp.json is case 'udp', not harq"),
    (f"ns3-udp-diff {docgen.NS3_UDP} lots", "MBIT 'lots' is not a number"),
    (f"ns3-udp-diff {docgen.NS3_UDP} 100", "ns-3 carries more than 100 Mbit/s at no distance"),
    (f"ns3-udp-diff {docgen.NS3_UDP} 1 most", "'most' is not common or others"),
    (f"ns3-link {docgen.NS3_UDP} 600 ns3 block_errors", "has no link count 'block_errors' on the ns3 side"),
    (f"ns3-link {docgen.NS3_UDP} 700 cellshare block_errors pct", "sends no new transport block on the cellshare side"),
    (f"ns3-link {docgen.NS3_UDP} 600 ns3 transport_blocks x", "'x' is not pct"),
    (f"ns3-link-span {docgen.NS3_HARQ} 300 cellshare retransmissions_per_block seed-", "is not a variants file"),
    ("ns3-link-span tools/data/ns3-crosscheck-harq-variants.json 300 cellshare retransmissions_per_block nope",
     "has no run whose name starts with 'nope'"),
    ("westwood-ns3-value 0.01 ns-3 reno", "side 'ns-3' is not cellshare or ns3"),
    ("westwood-ns3-value 0.3 ns3 reno", "no loss rate '0.3'"),
])
def test_a_bad_section_is_one_clear_error_naming_the_page(spec, message):
    block = docgen.RENDERERS.get(spec.split()[0], (None, True))[1]
    text = f"<!-- generated: {spec} -->\n<!-- end generated -->" if block else f"Says <!-- generated: {spec} --><!-- end generated -->"
    with pytest.raises(docgen.DocgenError) as e:
        docgen.render_page(text, docgen._Artefacts(REPO), "docs/x.md")
    assert str(e.value).startswith("docs/x.md: ") and message in str(e.value), str(e.value)


def test_the_ns3_crosscheck_sections_show_the_stored_rates():
    a = docgen._Artefacts(REPO)
    power = json.loads((REPO / docgen.NS3_POWER).read_text())
    aligned, defaults = power["runs"]["aligned"], power["runs"]["defaults"]
    assert (aligned["args"]["link"], aligned["args"]["ns3_amc"]) == ("ideal", "piro")
    assert (defaults["args"]["link"], defaults["args"]["ns3_amc"]) == ("realistic", "mi")
    table = docgen.render_page(f"<!-- generated: ns3-power {docgen.NS3_POWER} -->\n<!-- end generated -->", a)
    for label, run, side in (("cellshare, ideal link", aligned, "cellshare"), ("ns-3, `PiroEW2010` AMC", aligned, "ns3"),
                             ("cellshare, realistic link", defaults, "cellshare"),
                             ("ns-3, default AMC (`MiErrorModel`)", defaults, "ns3")):
        row = f"| {label} | " + " | ".join(docgen._mbit(r[side]["fg0"]) for r in run["rows"]) + " |"
        assert row in table, (row, table)
    ratios = sorted(r["ns3"]["fg0"] / q["ns3"]["fg0"] for r, q in zip(defaults["rows"], aligned["rows"]))
    assert docgen.render_page(f"x <!-- generated: ns3-power-ratio {docgen.NS3_POWER} defaults:ns3 aligned:ns3 -->"
                              "<!-- end generated -->", a) == \
        f"x <!-- generated: ns3-power-ratio {docgen.NS3_POWER} defaults:ns3 aligned:ns3 -->" \
        f"{ratios[0]:.2f}–{ratios[-1]:.2f}×<!-- end generated -->"
    # The shares: the foreground and the mean background flow of each side, as the tool summarises them.
    shares = json.loads((REPO / NS3_SHARES).read_text())
    row = next(r for r in shares["rows"] if r["label"] == ["every", "ledbat"])
    bg = [v for k, v in row["ns3"].items() if k.startswith("bg")]
    assert len(bg) == shares["args"]["ues"]
    assert docgen.render_page(f"x <!-- generated: ns3-rate {NS3_SHARES} every/ledbat ns3 bg --><!-- end generated -->", a) \
        .endswith(f"-->{docgen._mbit(sum(bg) / len(bg))}<!-- end generated -->")
    table = docgen.render_page(f"<!-- generated: ns3-shares {NS3_SHARES} -->\n<!-- end generated -->", a)
    fg = docgen._mbit(row["cellshare"]["fg0"]) + " / " + docgen._mbit(row["ns3"]["fg0"])
    assert re.search(r"\| LEDBAT \|[^\n]*\| " + re.escape(fg) + r" \|", table), table


def test_the_background_crosscheck_table_and_its_summaries_follow_the_stored_runs():
    a = docgen._Artefacts(REPO)
    rel = "tools/data/ns3-crosscheck-background.json"
    d = json.loads((REPO / rel).read_text())
    table = docgen.render_page(f"<!-- generated: ns3-background {rel} -->\n<!-- end generated -->", a)
    assert table.count("\n| same |") + table.count("\n| other |") + table.count("\n| every |") == len(d["rows"])
    row = next(r for r in d["rows"] if r["label"] == ["every", "tcp_lp"])
    c, n = docgen._ns3_rates(row["cellshare"]), docgen._ns3_rates(row["ns3"])
    assert f"| every | tcp_lp | {c['fg']:.2f} / {n['fg']:.2f} |" in table
    assert f"| {c['total'] / n['total']:.2f} |" in table

    def inline(spec):
        out = docgen.render_page(f"x <!-- generated: {spec} --><!-- end generated -->", a)
        return out.split("-->", 1)[1].removesuffix("<!-- end generated -->")

    assert inline(f"ns3-total-diff {rel} every/tcp_lp") == f"{round((c['total'] / n['total'] - 1) * 100):+d} %"
    # Agreement: both shares within the tolerance; a tolerance wide enough takes every row with
    # a background, none of the rows where one side's background carries nothing.
    agree = inline(f"ns3-agree {rel} 15")
    k = sum(docgen._ns3_agrees(r, 0.15) for r in d["rows"])
    assert agree == f"{k} of the {len(d['rows'])} rows" and 0 < k < len(d["rows"])
    assert docgen._ns3_agrees({"cellshare": {"fg0": 10.0, "bg1": 2.0}, "ns3": {"fg0": 11.0, "bg1": 2.2}}, 0.15)
    assert not docgen._ns3_agrees({"cellshare": {"fg0": 10.0, "bg1": 2.0}, "ns3": {"fg0": 12.0, "bg1": 2.0}}, 0.15)
    lo_hi = inline(f"ns3-total-diff {rel} except every/tcp_lp every/vegas")
    assert re.fullmatch(r"[+-]\d+( to [+-]\d+)? %", lo_hi), lo_hi
    # The variants: cellshare's side of one run with one setting changed, after the run reused.
    v = "tools/data/ns3-crosscheck-background-variants.json"
    vt = docgen.render_page(f"<!-- generated: ns3-variants {v} same/ledbat-ns3 fg- -->\n<!-- end generated -->", a)
    runs = json.loads((REPO / v).read_text())["runs"]
    n_same = sum(r["label"] == ["same", "ledbat-ns3"] for k, run in runs.items() if k.startswith("fg-") for r in run["rows"])
    assert vt.count("\n| ") == 2 + n_same, vt   # the header, the reused run, one row per variant
    with pytest.raises(docgen.DocgenError, match="has no variant of run 'same/none'"):
        docgen.render_page(f"<!-- generated: ns3-variants {v} same/none fg- -->\n<!-- end generated -->", a)


def test_the_c2tcp_section_follows_the_stored_runs():
    a = docgen._Artefacts(REPO)
    rows = json.loads((REPO / docgen.C2TCP).read_text())["rows"]
    big = [r for r in rows if r["queue_packets"] == 1000]
    t50 = sorted(r["rtt_mean_ms"] for r in big if r["cc"] == "c2tcp T=50")
    out = docgen.render_page("x <!-- generated: c2tcp-range 1000 50 rtt --><!-- end generated -->", a)
    assert f"-->{t50[0]:.1f}–{t50[-1]:.1f}<!--" in out
    table = docgen.render_page("<!-- generated: c2tcp 1000 -->\n<!-- end generated -->", a)
    for tr in {r["trace"] for r in big}:
        cubic = next(r for r in big if r["trace"] == tr and r["cc"] == "cubic")
        c2 = next(r for r in big if r["trace"] == tr and r["cc"] == "c2tcp T=50")
        assert (f"| {tr} | {cubic['rtt_mean_ms']:.0f} | {c2['rtt_mean_ms']:.1f} "
                f"({c2['goodput_mbps'] / cubic['goodput_mbps']:.2f}) |") in table
    for spec, msg in (("c2tcp-range 1000 75 rtt", "controller '75'"), ("c2tcp-range 1000 50 p99", "'p99' is not"),
                      ("c2tcp-range 1000 50 rtt Nowhere", "no trace 'Nowhere'"), ("c2tcp-range 7 50 rtt", "no run with a 7-packet")):
        with pytest.raises(docgen.DocgenError, match=msg):
            docgen.render_page(f"x <!-- generated: {spec} --><!-- end generated -->", a)


def test_a_sensitivity_value_is_read_from_the_scoreboard_row():
    a = docgen._Artefacts(REPO)
    board = json.loads((REPO / docgen.SCOREBOARD).read_text())
    rows = next(e for e in board["reproductions"] if e["name"] == "dtpa")["sensitivity"]
    r = next(r for r in rows if r["assumption"] == "c" and r["value"] == 1.0 and r["claim"] == "dtpa-goodput-drop-10")
    out = docgen.render_page("x <!-- generated: sens dtpa c=1.0 dtpa-goodput-drop-10 pct --><!-- end generated -->", a)
    assert f"-->{docgen._format(r['ours'], 'pct')}<!--" in out
    for spec, msg in (("sens dtpa c=9.0 dtpa-goodput-drop-10", "no sensitivity row c = 9.0"),
                      ("sens dtpa c=1.0 dtpa-fairer-10", "is a value per key"),
                      ("sens dtpa c=1.0 dtpa-fairer-10[Nope]", "has no value for 'Nope'"),
                      ("sens dtpa c dtpa-fairer-10", "expected `sens REP ASSUMPTION=VALUE")):
        with pytest.raises(docgen.DocgenError, match=re.escape(msg)):
            docgen.render_page(f"x <!-- generated: {spec} --><!-- end generated -->", a)


def test_the_figure_7_comparison_follows_its_artefact():
    a = docgen._Artefacts(REPO)
    d = json.loads((REPO / docgen.FIG7_NS3).read_text())
    m = d["metrics"]
    table = docgen.render_page("<!-- generated: fig7-ns3 -->\n<!-- end generated -->", a)
    c, n = m["cellshare"]["bg_off_mbps"], m["ns-3"]["bg_off_mbps"]
    assert f"| Legilimens while CUBIC off (Mbit/s) | {c:.1f} | {n:.1f} | {round((n / c - 1) * 100):+d} % |" in table

    def inline(spec):
        return docgen.render_page(f"x <!-- generated: {spec} --><!-- end generated -->", a).split("-->", 1)[1] \
            .removesuffix("<!-- end generated -->")

    keys = ["cubic_alone_mbps", "bg_off_mbps"]
    diffs = sorted(abs(round((m["ns-3"][k] / m["cellshare"][k] - 1) * 100)) for k in keys)
    assert inline("fig7-ns3-value diff " + " ".join(keys)) == f"{diffs[0]}–{diffs[-1]} %"
    rec = sorted(d["recapture_many"]["recapture_s"])
    text = inline("fig7-recapture")
    assert f"over {len(rec)} stops" in text and f"max {rec[-1]:.1f} s" in text
    assert f"{sum(x >= 2 - 1e-9 for x in rec) / len(rec) * 100:.0f} % of stops" in text
    with pytest.raises(docgen.DocgenError, match="no metric 'nope'"):
        inline("fig7-ns3-value ns-3 nope")


def test_the_westwood_section_averages_the_seeds_of_the_stored_runs():
    a = docgen._Artefacts(REPO)
    rows = [r for r in json.loads((REPO / docgen.WESTWOOD).read_text())["rows"] if r["loss"] == 0.01]
    reno = sum(r["cellshare"]["reno"]["goodput_mbps"] for r in rows) / len(rows)
    ww = sum(r["cellshare"]["westwood"]["goodput_mbps"] for r in rows) / len(rows)
    table = docgen.render_page("<!-- generated: westwood -->\n<!-- end generated -->", a)
    assert f"| 1 % | {reno:.3f} | {ww:.3f} | {ww / reno:.2f} |" in table
    out = docgen.render_page("x <!-- generated: westwood-value 0.01 ratio --><!-- end generated -->", a)
    assert f"-->{ww / reno:.2f}×<!--" in out
    with pytest.raises(docgen.DocgenError, match="no loss rate '0.3'"):
        docgen.render_page("x <!-- generated: westwood-value 0.3 reno --><!-- end generated -->", a)


def _inline(a, spec: str) -> str:
    out = docgen.render_page(f"x <!-- generated: {spec} --><!-- end generated -->", a)
    return out.split("-->", 1)[1].removesuffix("<!-- end generated -->")


def test_the_single_ue_udp_crosscheck_follows_the_stored_runs():
    a = docgen._Artefacts(REPO)
    d = json.loads((REPO / docgen.NS3_UDP).read_text())
    table = docgen.render_page(f"<!-- generated: ns3-udp {docgen.NS3_UDP} -->\n<!-- end generated -->", a)
    assert table.count(" m | ") == len(d["rows"])
    row = next(r for r in d["rows"] if r["label"] == ["300"])
    c, n = row["cellshare"]["udp0"], row["ns3"]["udp0"]
    assert f"| 300 m | {row['snr_db']:.1f} dB | {c:.2f} | {n:.2f} | {c / n:.2f} | {next(iter(row['ns3']['harq']['mcs']))} |" in table
    # No ratio where ns-3 carries nothing.
    assert re.search(r"\| 700 m \|[^\n]*\| — \|", table), table
    # The differences over the distances where ns-3 carries more than 1 Mbit/s: the span, the
    # most common one and the rest, which together cover every such distance.
    diffs = {r["label"][0]: round((r["cellshare"]["udp0"] / r["ns3"]["udp0"] - 1) * 100)
             for r in d["rows"] if r["ns3"]["udp0"] > 1}
    lo, hi = min(diffs.values()), max(diffs.values())
    assert _inline(a, f"ns3-udp-diff {docgen.NS3_UDP} 1") == (f"{lo:+d} %" if lo == hi else f"{lo:+d} to {hi:+d} %")
    common = _inline(a, f"ns3-udp-diff {docgen.NS3_UDP} 1 common")
    m = re.fullmatch(r"([+-]\d+) % at (\d+) of the (\d+) distances", common)
    assert m and int(m[3]) == len(diffs) and int(m[2]) == list(diffs.values()).count(int(m[1])), common
    assert all(list(diffs.values()).count(x) <= int(m[2]) for x in diffs.values())
    others = _inline(a, f"ns3-udp-diff {docgen.NS3_UDP} 1 others")
    rest = [k for k, x in diffs.items() if x != int(m[1])]
    assert others.endswith(" m") and all(k in others for k in rest) and len(rest) + int(m[2]) == len(diffs), others
    # Link counts: a count, a count per new block, a rate, ns-3's MCS.
    link = next(r for r in d["rows"] if r["label"] == ["600"])["cellshare"]["harq"]
    assert _inline(a, f"ns3-link {docgen.NS3_UDP} 600 cellshare block_errors") == f"{link['block_errors']:,}"
    assert _inline(a, f"ns3-link {docgen.NS3_UDP} 600 cellshare block_errors pct") == \
        f"{link['block_errors'] / link['transport_blocks'] * 100:.1f} %"
    far = next(r for r in d["rows"] if r["label"] == ["700"])["ns3"]["harq"]
    assert _inline(a, f"ns3-link {docgen.NS3_UDP} 700 ns3 transport_blocks") == f"{far['transport_blocks']:,}"
    assert _inline(a, f"ns3-link {docgen.NS3_UDP} 700 ns3 mcs") == ", ".join(far["mcs"])
    speed = _inline(a, f"ns3-speed-udp {docgen.NS3_UDP}")
    assert f"({len(d['rows'])} runs of one UE, {d['args']['duration']:g} simulated s each)" in speed
    assert f"ns-3 took {min(r['ns3_wall_s'] for r in d['rows']):.0f}–{max(r['ns3_wall_s'] for r in d['rows']):.0f} s" in speed


def test_the_udp_differences_follow_a_changed_artefact(tmp_path):
    # A file where every distance above the floor differs alike has no "others" to name.
    rows = [{"label": [str(m)], "snr_db": 1.0, "cellshare": {"udp0": 1.04 * x, "harq": {}},
             "ns3": {"udp0": x, "harq": {"mcs": {"2": 5}}}} for m, x in ((100, 10.0), (200, 5.0), (300, 0.5))]
    (tmp_path / "tools" / "data").mkdir(parents=True)
    (tmp_path / "tools" / "data" / "u.json").write_text(json.dumps({"args": {"case": "udp"}, "rows": rows}))
    a = docgen._Artefacts(tmp_path)
    assert _inline(a, "ns3-udp-diff tools/data/u.json 1") == "+4 %"
    assert _inline(a, "ns3-udp-diff tools/data/u.json 1 common") == "+4 % at 2 of the 2 distances"
    assert _inline(a, "ns3-udp-diff tools/data/u.json 0.1 common") == "+4 % at 3 of the 3 distances"
    with pytest.raises(docgen.DocgenError, match="every distance of tools/data/u.json above 1 Mbit/s differs by"):
        _inline(a, "ns3-udp-diff tools/data/u.json 1 others")
    rows[1]["cellshare"]["udp0"] = 5.0 * 1.08
    (tmp_path / "tools" / "data" / "u.json").write_text(json.dumps({"args": {"case": "udp"}, "rows": rows}))
    a = docgen._Artefacts(tmp_path)
    assert _inline(a, "ns3-udp-diff tools/data/u.json 1") == "+4 to +8 %"
    assert _inline(a, "ns3-udp-diff tools/data/u.json 0.1 others") == "+8 % at 200 m"


def test_ns3s_missed_control_blocks_are_counted_on_its_traces_of_the_stored_run(tmp_path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("ns3_udp_control", REPO / "tools" / "ns3_udp_control.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    # DlTxPhyStats: time cellId IMSI RNTI layer mcs size rv ndi ccId; DlRxPhyStats: time cellId
    # IMSI RNTI txMode layer mcs size rv ndi correct ccId. Two new blocks and a retransmission
    # sent; the UE saw one new block (failed) and the retransmission.
    (tmp_path / "DlTxPhyStats.txt").write_text("% time\n1 1 1 1 0 2 100 0 1 0\n2 1 1 1 0 2 100 0 1 0\n9 1 1 1 0 2 100 1 1 0\n")
    (tmp_path / "DlRxPhyStats.txt").write_text("% time\n1 1 1 1 0 0 2 100 0 1 0 0\n9 1 1 1 0 0 2 100 1 1 1 0\n")
    assert tool.control_counts(tmp_path) == {"new_blocks": 2, "first_transmissions_seen": 1, "missed": 1,
                                             "missed_share": 0.5}
    a = docgen._Artefacts(REPO)
    rows = {r["label"][0]: r for r in json.loads((REPO / docgen.NS3_UDP_CONTROL).read_text())["rows"]}
    r = rows["600"]
    assert r["missed"] == r["new_blocks"] - r["first_transmissions_seen"] > 0
    assert _inline(a, "ns3-control 600") == f"{r['missed'] / r['new_blocks'] * 100:.1f} %"
    assert _inline(a, "ns3-control 600 count") == f"{r['missed']:,} of {r['new_blocks']:,}"
    # The counts are of the stored cross-check's ns-3 run: the same blocks and rate.
    udp = {x["label"][0]: x["ns3"] for x in json.loads((REPO / docgen.NS3_UDP).read_text())["rows"]}
    for label, r in rows.items():
        assert (r["new_blocks"], r["udp0"]) == (udp[label]["harq"]["transport_blocks"], udp[label]["udp0"])
    with pytest.raises(docgen.DocgenError, match="has no run '123'"):
        _inline(a, "ns3-control 123")


def test_the_harq_crosscheck_and_its_variants_follow_the_stored_runs():
    a = docgen._Artefacts(REPO)
    d = json.loads((REPO / docgen.NS3_HARQ).read_text())
    table = docgen.render_page(f"<!-- generated: ns3-harq {docgen.NS3_HARQ} -->\n<!-- end generated -->", a)
    ratios = []
    for r in d["rows"]:
        c, n = r["cellshare"]["harq"]["retransmissions_per_block"], r["ns3"]["harq"]["retransmissions_per_block"]
        ratios.append(round((c / n - 1) * 100))
        assert (f"| {r['label'][0]} m | {r['snr_db']:.1f} dB | {c:.3f} / {n:.3f} | {c / n:.2f} | "
                f"{r['ns3']['harq']['first_tx_bler']:.3f} | {r['cellshare']['udp0']:.2f} / {r['ns3']['udp0']:.2f} |") in table
    lo, hi = min(ratios), max(ratios)
    assert _inline(a, f"ns3-harq-diff {docgen.NS3_HARQ}") == (f"{lo:+d} %" if lo == hi else f"{lo:+d} to {hi:+d} %")
    # The variants re-run cellshare's side only: ns-3's side is the stored run's.
    v = json.loads((REPO / "tools/data/ns3-crosscheck-harq-variants.json").read_text())
    assert v["reused"] == docgen.NS3_HARQ
    by = {r["label"][0]: r for r in d["rows"]}
    for run in v["runs"].values():
        for r in run["rows"]:
            assert r["ns3"] == by[r["label"][0]]["ns3"]
    assert v["runs"]["harq-rtt-7"]["args"]["cellshare_link"]["harq_rtt_tti"] == 7
    seeds = [by["300"]["cellshare"]["harq"]["retransmissions_per_block"]] + [
        r["cellshare"]["harq"]["retransmissions_per_block"] for k, run in v["runs"].items() if k.startswith("seed-")
        for r in run["rows"]]
    assert len(seeds) == 5 and len(set(seeds)) > 1   # the seeds draw other fading
    assert _inline(a, "ns3-link-span tools/data/ns3-crosscheck-harq-variants.json 300 cellshare "
                      "retransmissions_per_block seed-") == f"{min(seeds):.3f}–{max(seeds):.3f}"


def test_the_harq_variants_file_is_what_its_command_measures():
    # cellshare's side is deterministic and cheap: re-running two variants gives the stored rows.
    import importlib.util
    spec = importlib.util.spec_from_file_location("ns3_harq_variants", REPO / "tools" / "ns3_harq_variants.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    stored = json.loads((REPO / "tools/data/ns3-crosscheck-harq-variants.json").read_text())["runs"]
    assert set(stored) == set(tool.VARIANTS)
    for name in ("seed-3", "harq-rtt-7"):
        _, extra, link = tool.VARIANTS[name]
        got = tool.run_variant(extra, link)
        assert [(r["label"], r["cellshare"]) for r in got["rows"]] == \
            [(r["label"], r["cellshare"]) for r in stored[name]["rows"]], name


def test_the_westwood_ns3_section_follows_the_stored_run_of_both_simulators():
    a = docgen._Artefacts(REPO)
    rows = json.loads((REPO / docgen.WESTWOOD_NS3).read_text())["rows"]
    # The cellshare side of the run of both is the cellshare-only file's, run for run.
    alone = json.loads((REPO / docgen.WESTWOOD).read_text())["rows"]
    assert [(r["loss"], r["seed"], r["cellshare"]) for r in rows] == [(r["loss"], r["seed"], r["cellshare"]) for r in alone]
    at = [r for r in rows if r["loss"] == 0.02]
    mean = {(sim, cc): sum(r[sim][cc]["goodput_mbps"] for r in at) / len(at)
            for sim in ("cellshare", "ns3") for cc in ("reno", "westwood")}
    table = docgen.render_page("<!-- generated: westwood-ns3 -->\n<!-- end generated -->", a)
    assert (f"| 2 % | {mean['cellshare', 'reno']:.3f} / {mean['ns3', 'reno']:.3f} | "
            f"{mean['cellshare', 'westwood']:.3f} / {mean['ns3', 'westwood']:.3f} | "
            f"{mean['cellshare', 'westwood'] / mean['cellshare', 'reno']:.2f} / "
            f"{mean['ns3', 'westwood'] / mean['ns3', 'reno']:.2f} |") in table
    assert table.count("\n| ") == 1 + len({r["loss"] for r in rows})   # the header, a row per loss rate
    assert _inline(a, "westwood-ns3-value 0.02 ns3 reno") == f"{mean['ns3', 'reno']:.3f}"
    assert _inline(a, "westwood-ns3-value 0.02 ns3 ratio") == f"{mean['ns3', 'westwood'] / mean['ns3', 'reno']:.2f}×"
    with pytest.raises(docgen.DocgenError, match="'vegas' is not reno, westwood or ratio"):
        _inline(a, "westwood-ns3-value 0.02 ns3 vegas")


def test_a_block_inside_a_list_item_keeps_its_indentation():
    a = docgen._Artefacts(REPO)
    page = "- an item:\n\n  <!-- generated: c2tcp 1000 -->\n  <!-- end generated -->\n"
    out = docgen.render_page(page, a)
    body = out.split("-->", 1)[1].rsplit("<!-- end generated", 1)[0]
    assert all(line.startswith("  |") for line in body.splitlines() if line.strip()), body
    assert out.endswith("\n\n  <!-- end generated -->\n")
    assert docgen.render_page(out, a) == out   # stable
    # An inline value opening an indented continuation line would end the list item.
    with pytest.raises(docgen.DocgenError, match="must not begin a line"):
        docgen.render_page("- an item\n  <!-- generated: c2tcp-range 1000 50 rtt --><!-- end generated -->", a)


def test_an_inline_value_never_begins_a_line_and_a_block_stands_alone():
    # Markdown ends a paragraph at an HTML comment that begins a line: the value would stand
    # alone as a paragraph of its own.
    a = docgen._Artefacts(REPO)
    with pytest.raises(docgen.DocgenError, match="must not begin a line"):
        docgen.render_page("The cell\n<!-- generated: value pf-fairness equal-split --><!-- end generated -->", a)
    with pytest.raises(docgen.DocgenError, match="put its markers on lines of their own"):
        docgen.render_page("See <!-- generated: claims pf-fairness --><!-- end generated -->", a)


def test_the_benchmark_artefact_states_its_machine_and_every_variant():
    b = json.loads((REPO / docgen.BENCH).read_text())
    assert {"cpu", "cores", "load_1min_before", "load_1min_after"} <= set(b["machine"])
    runs = b["runs"]
    assert {"single-realistic", "single-ideal", "network"} <= set(runs)
    assert all(len(r["samples"]) == b["repeat"] for r in runs.values())
    assert runs["network"]["cells"] == 7 and runs["single-realistic"]["ues"] == 100
    assert b["ratios"]["realistic_over_ideal"] == pytest.approx(
        runs["single-realistic"]["sim_speed"] / runs["single-ideal"]["sim_speed"])


def test_the_docmeasure_artefacts_state_their_machine_and_match_what_the_command_measures():
    # A case added to, or removed from, the command without re-measuring fails here.
    from cellshare import docmeasure

    for rel in (docgen.APPS_SPEED, docgen.MEMORY, docgen.SWEEP_MEMORY):
        d = json.loads((REPO / rel).read_text())
        assert {"cpu", "cores", "load_1min_before", "load_1min_after"} <= set(d["machine"]), rel
        assert d["generated_by"].startswith("python -m cellshare.docmeasure "), rel
    apps = json.loads((REPO / docgen.APPS_SPEED).read_text())
    assert set(apps["variants"]) == set(docmeasure.APPS_VARIANTS)
    for v in apps["variants"].values():
        assert len(v["cpu_s"]) == apps["repeat"] and v["best_cpu_s"] == min(v["cpu_s"])
        assert v["speed"] == pytest.approx(v["duration_s"] / v["best_cpu_s"])
    mem = json.loads((REPO / docgen.MEMORY).read_text())
    assert [r["label"] for r in mem["rows"]] == [r["label"] for r in docmeasure.MEMORY_ROWS]
    for row, spec in zip(mem["rows"], docmeasure.MEMORY_ROWS):
        assert [c["set"] for c in row["cases"]] == [json.loads(json.dumps(c.get("set", {}))) for c in spec["cases"]]
        for c, s in zip(row["cases"], spec["cases"]):
            # a peak is either measured by the command or, said so, the one measured before
            assert c["how"].startswith("measured") or c["peak_mib"] == s["previous_peak_mib"], (row["label"], c)
    sweep = json.loads((REPO / docgen.SWEEP_MEMORY).read_text())
    assert [r["runs"] for r in sweep["rows"]] == list(docmeasure.SWEEP_RUNS)
    from cellshare import sweeps

    assert sweep["tasks_per_worker"] == sweeps.TASKS_PER_WORKER
    assert (sweep["recycled"]["runs"], sweep["recycled"]["tasks_per_worker"]) == \
        (docmeasure.RECYCLE_RUNS, docmeasure.RECYCLE_TASKS)
    for r in sweep["rows"]:
        assert {"dataset_alone_peak_rss_mb", "report_peak_rss_mb", "report_cpu_s"} <= set(r), r


def test_the_sweep_memory_section_states_the_measured_dataset_report_and_recycling(tmp_path):
    # The numbers after the sweep table are the artefact's: change one, the page follows.
    root = _tree(tmp_path)
    f = root / docgen.SWEEP_MEMORY
    d = json.loads(f.read_text())
    d["rows"][-1]["report_peak_rss_mb"] = 987.6
    d["recycled"]["worker_peak_rss_mb"] = 1.0
    f.write_text(json.dumps(d))
    block = docgen.render_page("<!-- generated: sweep-memory -->\n<!-- end generated -->", docgen._Artefacts(root))
    assert "MB and takes" in block and " and 988 MB" in block, block
    assert "Their peak RSS was lower (1.0 MB against" in block, block
    del d["recycled"]
    f.write_text(json.dumps(d))
    with pytest.raises(docgen.DocgenError, match="no 'recycled' in tools/data/sweep-memory.json"):
        docgen.render_page("<!-- generated: sweep-memory -->\n<!-- end generated -->", docgen._Artefacts(root))


def test_the_tour_counts_the_runs_of_its_sweep_file(tmp_path):
    from cellshare import sweeps

    rel = "scenarios/sweeps/background-schemes.toml"
    n = len(sweeps.load_sweep(REPO / rel).runs())
    assert f"\n# {n} runs on every core\ncellshare sweep {rel} --out out/bg\n" in (REPO / "README.md").read_text()
    root = _tree(tmp_path)
    f = root / rel
    f.write_text(f.read_text().replace("seeds = 3", "seeds = 2"))
    assert {p.relative_to(root).as_posix() for p in docgen.stale(root)} == {"README.md", "docs/getting-started.md"}
    docgen.write(root)
    assert f"# {n // 3 * 2} runs on every core" in (root / "docs" / "getting-started.md").read_text()


# --- Figures --------------------------------------------------------------------------------

_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+\.(?:png|svg|jpg))\)")


def _pages_with_images() -> list[Path]:
    return [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))


def test_committed_figures_are_drawn_from_the_committed_artefacts():
    # Keyed on the digest of the data each figure is drawn from (in the PNG's metadata), not
    # on the PNG's bytes, which differ between matplotlib versions; nothing is drawn here.
    stale = docgen.stale_figures(REPO)
    assert not stale, "\n".join(f"{p} is stale or missing: run `{docgen.FIGURES_COMMAND}`" for p in stale)


def test_every_image_a_page_shows_exists_and_every_figure_is_shown():
    shown = set()
    for page in _pages_with_images():
        for m in _IMAGE.finditer(page.read_text()):
            target = (page.parent / m.group(1)).resolve()
            assert target.is_file(), f"{page.relative_to(REPO)} shows {m.group(1)}, which does not exist"
            shown.add(target)
    for f in docgen.FIGURES.values():
        assert (REPO / f.path).resolve() in shown, f"{f.path} is drawn but no page shows it"
        assert any(f"<!-- generated: figure {f.name} -->" in p.read_text() for p in _pages_with_images()), f.name


def test_every_figure_says_what_it_shows():
    a = docgen._Artefacts(REPO)
    for f in docgen.FIGURES.values():
        d = f.data(a)
        assert d["title"] and f.caption.endswith("."), f.name
        for p in d["panels"]:
            assert p["ylabel"], (f.name, p["title"])
            if p["kind"] == "lines":
                assert p["xlabel"], (f.name, p["title"])
            assert all(len(vals) == len(p["categories"] if p["kind"] == "bars" else p["x"]) for _, vals in p["series"])


def test_a_changed_artefact_makes_its_figure_stale_and_drawing_repairs_it(tmp_path, capsys):
    root = _tree(tmp_path)
    assert docgen.stale_figures(root) == []
    sb = root / docgen.SCOREBOARD
    board = json.loads(sb.read_text())
    onoff = next(e for e in board["reproductions"] if e["name"] == "legilimens-onoff")
    next(c for c in onoff["observations"] if c["id"] == "ledbat-share-on")["ours"] = 0.25
    sb.write_text(json.dumps(board))
    assert docgen.stale_figures(root) == ["docs/img/legilimens-shares.png"]
    (root / "docs/img/bode-delay.png").unlink()
    assert docgen.main(["--root", str(root), "--check"]) == 1
    assert "docs/img/bode-delay.png is stale or missing: run `python -m cellshare.docgen --figures`" in \
        capsys.readouterr().err
    assert docgen.stale_figures(root) == ["docs/img/legilimens-shares.png", "docs/img/bode-delay.png"]
    shutil.copy(REPO / "docs/img/bode-delay.png", root / "docs/img/bode-delay.png")
    # Drawing stores the new data's digest: the figure is fresh again (one figure drawn).
    assert docgen.draw_figures(root, only_stale=True) == ["docs/img/legilimens-shares.png"]
    assert docgen.stale_figures(root) == []


def test_the_figure_12_tables_are_the_study_tools_stored_output():
    a = docgen._Artefacts(REPO)
    block = docgen.render_page("<!-- generated: fig12-ns3 -->\n<!-- end generated -->", a)
    stored = (REPO / docgen.FIG12_NS3).read_text()
    assert stored.startswith("<!-- written by: python tools/legilimens_study.py fig12")
    assert "<!-- written by" not in block.split("-->", 1)[1] and "\n\n\n" not in block
    rows = [ln for ln in stored.splitlines() if ln.startswith("| Legilimens |")]
    assert rows and all(r in block for r in rows)
def test_tcp_page_renders_its_start_sensitivity_and_kernel_log_from_artefacts():
    text = (REPO / "docs" / "tcp.md").read_text()
    for m in ["<!-- generated: start-sensitivity -->", "<!-- generated: start-sensitivity-starts -->",
              "<!-- generated: rcvbuf-grow -->", "<!-- generated: emu-rtt-range Verizon-EVDO-driving.down bbr -->"]:
        assert m in text, m


def test_the_kernels_logged_receive_buffer_growth_is_what_the_rule_gives():
    d = json.loads((REPO / docgen.KERNEL_RCVBUF).read_text())
    assert d["kernel"] and d["scenario"] and d["source"].startswith("tracepoint tcp:tcp_rcvbuf_grow")
    events = docgen.rcvbuf_events(d)
    grew = [e for e in events if e["grew"]]
    assert len(grew) >= 2 and not events[0]["space"] is None
    for e in events:
        if e["grew"]:
            # The rule from the kernel's inputs, through the kernel's buffer rounding, is the
            # window clamp the kernel logged, to the byte.
            assert e["rule_clamp"] == e["window_clamp"], e
            assert abs(e["rule"] - e["window_clamp"]) * d["scaling_ratio"] < 256 * 2, e
        else:
            # A call that grew nothing asked for no more than the window in force.
            assert e["clamp_before"] is not None and e["rule_clamp"] <= e["clamp_before"], e
    # The check tells rules apart: Linux's rule before 6.16 (2·copied + 16·MSS plus the same
    # slow-start term) misses the logged windows.
    mss = 1448
    for e in grew:
        old = 2 * e["copied"] + 16 * mss
        old += 2 * (2 * e["copied"] * (e["copied"] - e["space"]) // e["space"])
        assert docgen.linux_window_clamp(old, d["scaling_ratio"]) != e["window_clamp"]
    # The simulator's own unit test's case (`growth_is_twice_the_new_space_plus_the_slow_start_term`).
    assert docgen.rcvbuf_grow_rcvwin(20 * mss, 10 * mss) == 2 * 20 * mss + 2 * 2 * 20 * mss
    table = docgen.render_page("<!-- generated: rcvbuf-grow -->\n<!-- end generated -->", docgen._Artefacts(REPO))
    for e in events:
        row = f"| {e['copied']} | {e['space']} | {e['rule']} | {e['rule_clamp']} | "
        assert row in table and (str(e["window_clamp"]) if e["grew"] else "no growth") in table.split(row)[1].split("\n")[0]


def _sensitivity_tool():
    import importlib.util
    spec = importlib.util.spec_from_file_location("sens", REPO / "tools" / "crosscheck_start_sensitivity.py")
    sens = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sens)
    return sens


def test_the_start_sensitivity_table_is_the_stored_runs_and_the_simulator_still_gives_them():
    import statistics
    d = json.loads((REPO / docgen.START_SENSITIVITY).read_text())
    a = docgen._Artefacts(REPO)
    table = docgen.render_page("<!-- generated: start-sensitivity -->\n<!-- end generated -->", a)
    block = table.split("```")[1].strip("\n")
    assert docgen.unwrap_command(block) == d["generated_by"] and "--offsets 0:2000:100" in d["generated_by"]
    assert all(len(line) <= 100 for line in block.splitlines())
    for c in d["cases"]:
        assert [r["offset_ms"] for r in c["runs"]] == d["offsets_ms"]
        rtts = [r["rtt_p50_ms"] for r in c["runs"]]
        q = c["rtt_p50_ms"]
        assert (q["min"], q["median"], q["max"]) == (min(rtts), statistics.median(rtts), max(rtts))
        row = next(line for line in table.splitlines() if line.startswith(f"| {c['trace']} |"))
        assert f"{q['min']:.0f} / {q['median']:.0f} / {q['max']:.0f}" in row
    n = len(d["offsets_ms"])
    assert docgen.render_page("x <!-- generated: start-sensitivity-starts --><!-- end generated -->", a) == (
        f"x <!-- generated: start-sensitivity-starts -->{n} starts from 0 to 2000 ms, 100 ms apart<!-- end generated -->")
    # The simulator is deterministic: two of the stored runs re-run give the stored numbers, so
    # a change to the TCP model that moves them makes the stored file (and the page) stale.
    sens = _sensitivity_tool()
    traces = REPO / "python" / "cellshare" / "data" / "traces"
    for trace, cc, off in [("Verizon-EVDO-driving.down", "cubic", 0), ("TMobile-LTE-driving.down", "bbr", 700)]:
        stored = next(r for c in d["cases"] if c["trace"] == trace and c["cc"] == cc for r in c["runs"]
                      if r["offset_ms"] == off)
        now = sens.sweep(REPO / d["scenario"], traces / trace, cc, [off], d["duration_s"])["runs"][0]
        assert now == stored, (trace, cc, off, now, stored)


def test_the_emulators_rtt_range_is_read_from_the_trace_crosscheck():
    d = json.loads((REPO / docgen.EMU_CROSSCHECK).read_text())
    c = next(c for c in d["cases"] if c["trace"] == "Verizon-EVDO-driving.down" and c["cc"] == "bbr")
    lo, hi = c["rtt_p50_ms"]["emu_range"]
    out = docgen.render_page("x <!-- generated: emu-rtt-range Verizon-EVDO-driving.down bbr --><!-- end generated -->",
                             docgen._Artefacts(REPO))
    assert f"-->{lo:.0f}–{hi:.0f} ms<!--" in out
    with pytest.raises(docgen.DocgenError, match="no case ATT-LTE-driving.down vegas"):
        docgen.render_page("x <!-- generated: emu-rtt-range ATT-LTE-driving.down vegas --><!-- end generated -->",
                           docgen._Artefacts(REPO))


def test_the_start_sensitivity_tool_stores_the_command_that_made_its_runs(tmp_path):
    sens = _sensitivity_tool()
    trace = REPO / "python" / "cellshare" / "data" / "traces" / "ATT-LTE-driving.down"
    out = tmp_path / "s.json"
    assert sens.main(["--trace", str(trace), "--cc", "cubic", "--offsets", "0,300", "--duration", "2",
                      "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["generated_by"] == ("python tools/crosscheck_start_sensitivity.py --scenario scenarios/emu-trace.toml "
                                 "--trace python/cellshare/data/traces/ATT-LTE-driving.down --cc cubic "
                                 "--offsets 0,300 --duration 2 --json OUT.json")
    assert d["offsets_ms"] == [0, 300] and d["duration_s"] == 2.0
    (c,) = d["cases"]
    assert (c["trace"], c["cc"]) == ("ATT-LTE-driving.down", "cubic") and len(c["runs"]) == 2


def test_linux_in_step_backgrounds_yield_only_with_the_shipped_smoothed_rtt_cap():
    """The stored emulator runs behind docs/emulator.md's traced difference: in the first 3 s
    both variants' backgrounds are served in a rotation (few back-to-back milliseconds); as
    shipped they fill their queues, drop and then yield; with the cap on the minimum RTT they
    never drop and keep a quarter each, as the simulator's do."""
    d = json.loads((REPO / docgen.IN_STEP_LINUX).read_text())
    v = {x["variant"]: x for x in d["variants"]}
    for name in ("shipped", "min-rtt-cap"):
        bg = [f for f in v[name]["flows"] if f["class"] == "background"]
        assert len(bg) == 3 and all(f["first_3s"]["back_to_back_pairs"] < 20 for f in bg), name
    fg = {n: next(f for f in v[n]["flows"] if f["class"] != "background") for n in v}
    bg = {n: [f for f in v[n]["flows"] if f["class"] == "background"] for n in v}
    assert fg["shipped"]["throughput_mbps"] > 10 and all(f["drops"] > 0 for f in bg["shipped"])
    assert fg["min-rtt-cap"]["throughput_mbps"] < 6 and all(f["drops"] == 0 for f in bg["min-rtt-cap"])
    block = docgen.render_page("<!-- generated: in-step-linux -->\n<!-- end generated -->", docgen._Artefacts(REPO))
    assert "smoothed RTT" in block and "minimum RTT" in block
    assert f"| {fg['shipped']['throughput_mbps']:.2f} |" in block and f"| {fg['min-rtt-cap']['throughput_mbps']:.2f} |" in block


def test_fig12_cells_reads_a_row_and_the_summary_of_a_stored_table():
    a = docgen._Artefacts(REPO)
    rel = "tools/data/legilimens-fig12-cellshare-alone.md"
    row = next(ln for ln in (REPO / rel).read_text().splitlines() if ln.startswith("| LEDBAT | every |"))
    assert docgen.r_fig12_cells(a, [rel, "LEDBAT", "every"]) == ", ".join(c.strip() for c in row.strip("|").split("|")[2:])
    assert docgen.r_fig12_cells(a, [rel, "ratio", "some"]).endswith("of Vegas'")
    with pytest.raises(docgen.DocgenError, match="no row Reno / every"):
        docgen.r_fig12_cells(a, [rel, "Reno", "every"])
    with pytest.raises(docgen.DocgenError, match="not found"):
        docgen.r_fig12_cells(a, ["tools/data/nope.md", "LEDBAT", "every"])


def test_the_padding_table_is_read_from_the_two_stored_comparisons():
    a = docgen._Artefacts(REPO)
    base = docgen._fig12_pairs(a, docgen.FIG12_NS3)
    pad = docgen._fig12_pairs(a, docgen.FIG12_NS3_PADDING)
    # The ns-3 side is the same stored runs in both files; cellshare's differs with the padding.
    key = ("some", "main", "Legilimens", "60%")
    assert base[key][1][1] == pad[key][1][1] and base[key][1][0] != pad[key][1][0]
    block = docgen.r_fig12_padded(a, [])
    row = next(ln for ln in block.splitlines() if ln.startswith("| Legilimens' background at 10 UEs"))
    assert f"{base[key][1][0]:.2f}" in row and f"{pad[key][1][0]:.2f}" in row and f"{base[key][1][1]:.2f}" in row
    assert "| the same, cellshare above ns-3 by |" in block


def test_page_renderer_modules_are_collected_and_a_name_defined_twice_is_refused(tmp_path, monkeypatch):
    import importlib
    from cellshare import docpages

    (tmp_path / "page_one.py").write_text(
        "def r_one(a, args):\n    return 'one ' + ' '.join(args)\n\nRENDERERS = {'page-one-value': (r_one, False)}\n")
    monkeypatch.setattr(docpages, "__path__", [str(tmp_path)])
    monkeypatch.setattr(docgen, "RENDERERS", dict(docgen.RENDERERS))
    found = docgen.page_renderers()
    assert set(found) == {"page-one-value"}
    docgen.RENDERERS["page-one-value"] = found["page-one-value"]
    assert docgen.render_page("It is <!-- generated: page-one-value a b -->?<!-- end generated -->.", None) == \
        "It is <!-- generated: page-one-value a b -->one a b<!-- end generated -->."
    with pytest.raises(docgen.DocgenError, match="'page-one-value' is defined both in cellshare.docgen and in "
                                                 "cellshare.docpages.page_one"):
        docgen.page_renderers()
    del docgen.RENDERERS["page-one-value"]
    (tmp_path / "page_two.py").write_text("RENDERERS = {'page-one-value': (None, False)}\n")
    importlib.invalidate_caches()
    with pytest.raises(docgen.DocgenError, match="'page-one-value' is defined by both cellshare.docpages.page_one "
                                                 "and cellshare.docpages.page_two"):
        docgen.page_renderers()


def test_a_marker_docgen_cannot_read_is_an_error_not_skipped():
    a = docgen._Artefacts(REPO)
    # An argument with '>' is part of the spec (it used to end it, and the section was skipped).
    assert "?" not in docgen.render_page("It <!-- generated: value pf-fairness pf-diversity x -->?<!-- end generated -->.", a)
    with pytest.raises(docgen.DocgenError, match=r"page: line 2: `<!-- generated: value pf-fairness pf-diversity x -->` is not a generated section"):
        docgen.render_page("Intro.\nIt <!-- generated: value pf-fairness pf-diversity x -->1.3×, never closed.\n", a)
    with pytest.raises(docgen.DocgenError, match="unknown renderer 'no-such'"):
        docgen.render_page("It <!-- generated: no-such a>b -->?<!-- end generated -->.", a)
