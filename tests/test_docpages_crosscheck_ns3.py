"""The renderers of docs/crosscheck-ns3.md (cellshare.docpages.crosscheck_ns3): the facts of
ns-3's traced runs are read off the stored runs, a changed run changes the page, and a bad
argument is a one-line error naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cellshare import docgen
from cellshare.docpages import crosscheck_ns3 as x

REPO = Path(__file__).resolve().parents[1]
VEGAS = "tools/data/ns3-crosscheck-background-vegas-trace.json"
UPLINK = "tools/data/ns3-crosscheck-background-vegas-uplink.json"
RECOVERIES = "tools/data/ns3-crosscheck-background-cubic-recoveries-12s.json"
PRR = "tools/data/ns3-crosscheck-background-prr-rfc.json"
PAGE = REPO / "docs/crosscheck-ns3.md"


def render(name: str, *args: str, root: Path = REPO) -> str:
    fn, _ = docgen.RENDERERS[name]
    return fn(docgen._Artefacts(root), list(args))


def copy_with(tmp_path: Path, rel: str, change) -> Path:
    """A root holding a copy of one stored run, changed by `change(data)`."""
    d = json.loads((REPO / rel).read_text())
    change(d)
    (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / rel).write_text(json.dumps(d))
    return tmp_path


def test_every_renderer_is_registered_and_used_on_the_page():
    text = PAGE.read_text()
    for name in x.RENDERERS:
        assert docgen.RENDERERS[name] == x.RENDERERS[name]
        assert f"<!-- generated: {name} " in text, f"{name} is not used on docs/crosscheck-ns3.md"


def test_vegas_ack_delay_is_read_off_the_per_100_ms_delays():
    d = json.loads((REPO / VEGAS).read_text())
    acks = next(v for k, v in d["rows"][0]["ns3"]["tcp"]["delay_ms_per_s"].items() if k.startswith("bg@") and k.endswith(".ack"))
    before = [v for t, v in zip(acks["to_s"], acks["delay_ms"]) if 11 < t <= 22.8]
    assert len(set(before)) == 1  # one value in every 100 ms: "in every interval"
    assert render("xns3-mode", VEGAS, "bg.ack", "11-22.8") == f"{before[0]:.3f} ms in every interval"
    rise = render("xns3-rise", VEGAS, "bg.ack", "11-22.8", "24-40")
    assert 2.5 < float(rise.split()[0]) < 4  # the rise the page names as the cause


def test_a_changed_trace_changes_the_table_and_the_rise(tmp_path):
    def slower(d):
        flows = d["rows"][0]["ns3"]["tcp"]["delay_ms_per_s"]
        name = next(k for k in flows if k.startswith("bg@") and k.endswith(".ack"))
        flows[name]["delay_ms"] = [None if v is None else (v + 1.0 if t > 24 else v)
                                   for t, v in zip(flows[name]["to_s"], flows[name]["delay_ms"])]
    root = copy_with(tmp_path, VEGAS, slower)
    assert render("xns3-rise", VEGAS, "bg.ack", "11-22.8", "24-40", root=root) != render("xns3-rise", VEGAS, "bg.ack", "11-22.8", "24-40")
    table = render("xns3-trace", VEGAS, "8-10", "24-40", root=root)
    assert "| 24–40 | 22 |" in table and "20.112" in table


def test_the_trace_table_summarises_a_window_as_documented():
    assert x._summary([47, 47, 47], 0) == "47"
    assert x._summary([45, 42, 30, 22], 0) == "45 → 22"
    assert x._summary([35.0] * 8 + [32.7, 36.2], 2) == "35.00 (32.7–36.2)"
    assert x._summary([31.3, 31.8, 31.5, 31.3], 2) == "31.3–31.8"
    # ns-3.44's TcpVegas truncates the target window: 22 − ⌊22 · 30.155 / 35⌋ = 22 − 18.
    assert x._diff(22, 30.155, 35.0) == 4 and x._diff(22, 30.155, 32.7) == 2


def test_uplink_errors_are_counted_in_the_window_from_a_truncated_list(tmp_path):
    d = json.loads((REPO / UPLINK).read_text())
    u = d["rows"][0]["ns3"]["uplink"]["UE 1"]
    assert len(u["errors_s"]) < u["errors"]  # the file lists the first 200 only
    late = u["errors"] - sum(1 for t in u["errors_s"] if t < 22.9)
    blocks = sum(u["grants_per_100_ms"][229:400])
    assert render("xns3-ul-errors", UPLINK, "1", "22.9-40") == f"{late} of {blocks} ({late / blocks * 100:.0f} %)"
    assert render("xns3-ul-errors", UPLINK, "1", "10-22.8").startswith("none of ")
    # A window the list does not cover (it ends before 30 s) cannot be counted.
    with pytest.raises(docgen.DocgenError, match="lists UE errors only up to"):
        render("xns3-ul-errors", UPLINK, "1", "30-35")


def test_recoveries_table_rows_come_from_the_traced_entries(tmp_path):
    table = render("xns3-recoveries", RECOVERIES)
    rows = [line for line in table.split("\n")[2:]]
    d = json.loads((REPO / RECOVERIES).read_text())
    recs = d["rows"][0]["ns3"]["tcp"]["server 1"]["recoveries"]
    assert len(rows) == len(recs)
    assert rows[0].startswith(f"| {recs[0]['at_s']:.4f} | {recs[0]['cwnd_before_segments']:.0f} → ")
    assert "4345 again" in rows[1]  # the segment retransmitted in the first recovery, again

    def later(d):
        d["rows"][0]["ns3"]["tcp"]["server 1"]["recoveries"][1]["ssthresh_segments"] = 111.0
    root = copy_with(tmp_path, RECOVERIES, later)
    assert render("xns3-rec", RECOVERIES, "bg", "2", "window", root=root) == "315 → 111 segments"
    assert render("xns3-entry-sends", RECOVERIES, "1", "4") == "3891 and 4343–4345 at 1.98993 s"


def test_rates_of_a_traced_run_are_checked_against_the_table(tmp_path):
    assert render("xns3-same-rates", VEGAS, "tools/data/ns3-crosscheck-background.json").startswith("the same ")

    def other(d):
        d["rows"][0]["ns3"]["bg1"] = 9.0
    root = copy_with(tmp_path, VEGAS, other)
    shutil.copy(REPO / "tools/data/ns3-crosscheck-background.json", root / "tools/data/ns3-crosscheck-background.json")
    assert " against the table's " in render("xns3-same-rates", VEGAS, "tools/data/ns3-crosscheck-background.json", root=root)


@pytest.mark.parametrize("name,args,message", [
    ("xns3-mode", [VEGAS, "bg.cwnd", "10"], "window '10' is not A-B"),
    ("xns3-mode", [VEGAS, "bg.rate", "10-20"], "series 'bg.rate'"),
    ("xns3-cwnd", [VEGAS, "mid", "10"], "sender 'mid' is not fg or bg"),
    ("xns3-cwnd", [PRR, "bg", "0.55"], "stores no window of bg at 0.6 s"),
    ("xns3-fill", [UPLINK, "bg", "fill"], "has no ns-3 'fill' (a run with --phy-stats)"),
    ("xns3-rec", [PRR, "bg", "9", "at"], "recovery '9' is not 1 to"),
    ("xns3-trace", ["tools/data/ns3-crosscheck-background.json", "8-10"], "holds 19 runs"),
    ("xns3-ul-grants", [UPLINK, "7"], "expected `xns3-ul-grants FILE UE A-B`"),
])
def test_bad_arguments_are_one_line_errors(name, args, message):
    with pytest.raises(docgen.DocgenError) as e:
        render(name, *args)
    assert message in str(e.value) and "\n" not in str(e.value)


OURS = "tools/data/ns3-crosscheck-cellshare-traces.json"


def test_cellshare_traces_are_the_runs_the_tool_makes_now(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "t.json"
    subprocess.run([sys.executable, str(REPO / "tools/ns3_cellshare_traces.py"), "--out", str(out), "--only",
                    "other-vegas,same-cubic-prr-rfc-start-5.30"], check=True, cwd=REPO)
    new = json.loads(out.read_text())["runs"]
    stored = json.loads((REPO / OURS).read_text())["runs"]
    for name, run in new.items():
        assert run["rows"][0]["cellshare"] == stored[name]["rows"][0]["cellshare"], name


def test_cellshare_side_renders_its_trace_and_sweep(tmp_path):
    assert render("xns3-ours", f"{OURS}#other-vegas", "bg1", "cwnd", "8-40").endswith(" segments")
    sweep = render("xns3-sweep", OURS, "same-cubic-prr-rfc-start-")
    assert "over the 9 runs" in sweep and "with the start at 5.30 s" in sweep

    def closer(d):
        d["runs"]["same-cubic-prr-rfc-start-5.00"]["rows"][0]["cellshare"].update(fg0=7.6, bg0=26.2)
    root = copy_with(tmp_path, OURS, closer)
    assert "with the start at 5.00 s (+0 % and +0 %)" in render("xns3-sweep", OURS, "same-cubic-prr-rfc-start-", root=root)
    with pytest.raises(docgen.DocgenError, match="has no traced flow 'bg0'"):
        render("xns3-ours", f"{OURS}#other-vegas", "bg0", "cwnd", "10")
    with pytest.raises(docgen.DocgenError, match="has no runs named nothing-"):
        render("xns3-sweep", OURS, "nothing-")


def test_span_over_the_periodic_ack_runs(tmp_path):
    assert render("xns3-span", OURS, "other-vegas-acks-every-", "bg").endswith("Mbit/s over the 20 runs")

    def frozen(d):
        d["runs"]["other-vegas-acks-every-4-seed-1"]["rows"][0]["cellshare"]["bg1"] = 1.0
    root = copy_with(tmp_path, OURS, frozen)
    assert render("xns3-span", OURS, "other-vegas-acks-every-", "bg", root=root).startswith("1.00–")
    with pytest.raises(docgen.DocgenError, match="'total' is not fg or bg"):
        render("xns3-span", OURS, "other-vegas-acks-every-", "total")
