"""Rough edges a new user hits, each pinned: help text keeps its bracketed words,
the report's axes say what they show, calibrate warns about short runs, reproduce --list
gives run times, summary.json has no fake zeros or duplicate classes."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import REPO
from test_sweep import write_sweep

AT_SCALE = REPO / "scenarios" / "workload-at-scale.toml"


# -- help text ---------------------------------------------------------------------------------

@pytest.mark.parametrize("cmd, words", [
    ("calibrate", ["[workload]", "[[flows]]"]),
    ("sweep", ["[parameters], [axes.NAME], seeds", "'cellshare[ray]'"]),
    ("run", ["SCENARIO"]),
    ("reproduce", ["NAME"]),
])
def test_help_keeps_bracketed_words_and_plain_metavars(run_cli, cmd, words):
    p = run_cli(cmd, "--help")
    assert p.returncode == 0, p.stderr
    text = " ".join(p.stdout.split())  # the help is wrapped to the terminal
    for w in words:
        assert w in text, (w, p.stdout)
    assert "<bool>" not in p.stdout
    usage = next(line for line in p.stdout.splitlines() if line.startswith("Usage:"))
    assert "{" not in usage and "}" not in usage, usage


def test_top_level_help_lists_commands(run_cli):
    p = run_cli("--help")
    assert p.returncode == 0 and "calibrate" in p.stdout and "<bool>" not in p.stdout


# -- report axes -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory):
    import cellshare

    d = tmp_path_factory.mktemp("usability")
    return cellshare.sweep(write_sweep(d, seeds=1, duration_s=2.0), out=d / "out", workers=1).out


def _figures(folder, monkeypatch, tmp_path):
    """Writes the report of `folder`, keeping each figure open for inspection."""
    import cellshare.report as report

    figs = {}
    real_save = report._save

    def keep(fig, out, stem):
        fig.canvas.draw()
        figs[stem] = fig
        fig.savefig(out / f"{stem}.png")
        return f"{stem}.png"

    monkeypatch.setattr(report, "_save", keep)
    report.write_report(folder, out=tmp_path / "report")
    monkeypatch.setattr(report, "_save", real_save)
    return figs


def _overlaps(fig, axis) -> bool:
    from cellshare.report import _tick_labels_overlap

    return _tick_labels_overlap(fig, axis)


def test_queue_delay_cdf_ticks_do_not_overlap_and_the_axis_ends_with_the_data(small_sweep, monkeypatch, tmp_path):
    # A straggler far out: 99.95 % of the packets within 1 s, the last ones at 50 s, and
    # delays from 0.05 ms — six decades, which 1-2-5 labels would run together.
    copy = tmp_path / "copy"
    shutil.copytree(small_sweep, copy, ignore=shutil.ignore_patterns("report"))
    for cdf in (copy / "runs").glob("*/queue_delay_cdf.parquet"):
        x = np.geomspace(0.05, 1000.0, 60)
        y = np.linspace(0.01, 0.9995, 60)
        pq.write_table(pa.table({"delay_ms": np.append(x, 50_000.0), "fraction": np.append(y, 1.0)}), cdf)
    figs = _figures(copy, monkeypatch, tmp_path)
    fig = figs["queue_delay_cdf"]
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.lines]
    assert axes
    for ax in axes:
        assert ax.get_xscale() == "log"
        lo, hi = ax.get_xlim()
        assert hi <= 1.1 * 1000.0 * 1.01, hi          # not out to the 50 s straggler
        assert lo >= 0.05 / 1.2, lo
        labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
        assert len(labels) >= 2, labels
        assert not _overlaps(fig, ax.xaxis), labels
    page = (tmp_path / "report" / "index.html").read_text()
    assert "mean max ms" in page   # the straggler's delay stays in the table


def test_queue_delay_cdf_of_a_real_sweep_has_readable_ticks(small_sweep, monkeypatch, tmp_path):
    fig = _figures(small_sweep, monkeypatch, tmp_path)["queue_delay_cdf"]
    for ax in (a for a in fig.axes if a.get_visible() and a.lines):
        assert not _overlaps(fig, ax.xaxis)
        cdfs = [pq.read_table(p).to_pydict() for p in (small_sweep / "runs").glob("*/queue_delay_cdf.parquet")]
        assert ax.get_xlim()[1] <= 1.1 * max(max(c["delay_ms"]) for c in cdfs) * 1.01


def test_report_says_the_load_axis_is_nominal_and_shows_the_achieved_load(small_sweep, tmp_path):
    from cellshare.report import write_report

    page = write_report(small_sweep, out=tmp_path / "r").read_text()
    assert "the load the cell carried is the PRB utilization in the overview" in page
    overview = re.search(r'<section id="overview">(.*?)</section>', page, re.S)
    assert overview and "PRB utilization" in overview.group(1)


def test_short_flow_fct_axis_starts_at_zero(small_sweep, monkeypatch, tmp_path):
    fig = _figures(small_sweep, monkeypatch, tmp_path)["fct_short"]
    for ax in fig.axes:
        if ax.patches:
            assert ax.get_yscale() == "linear"
            assert ax.get_ylim()[0] == 0.0
    assert "linear scale from 0" in (tmp_path / "report" / "index.html").read_text()


# -- calibrate ---------------------------------------------------------------------------------

def test_calibrate_warns_when_the_duration_is_too_short(run_cli):
    p = run_cli("calibrate", AT_SCALE, "--loads", "0.6", "--duration", "10", "--json")
    assert p.returncode == 0, p.stderr
    row = json.loads(p.stdout)[0]
    assert row["load_spread"] > 0.5
    assert "warning: 10 s is short for this workload" in " ".join(p.stderr.split())
    # the spread falls as 1/sqrt(duration); 2 minutes are not enough for ±10 % here (32 MB
    # flows carry 60 % of the bytes), the papers' 15 minutes are
    assert row["load_spread"] * (10 / row["duration_for_10pc_s"]) ** 0.5 == pytest.approx(0.10)
    assert 120 < row["duration_for_10pc_s"] < 900


def test_load_spread_matches_poisson_arithmetic():
    from cellshare.calibrate import PRESETS, duration_for_spread, load_spread

    arr = {"kind": "poisson", "preset": "legilimens"}
    r = 2.7e6                                                  # bytes/s
    m = sum(s * w for s, w in PRESETS["legilimens"])
    assert load_spread(arr, r, 900) == pytest.approx((m / (r * 900)) ** 0.5)
    assert load_spread(arr, r, duration_for_spread(arr, r)) == pytest.approx(0.10)
    # an explicit mix of one size: the spread is 1/sqrt(expected flow count)
    mix = {"kind": "poisson", "mix": [{"category": "short", "bytes": 1000, "share": 1.0}]}
    assert load_spread(mix, 1000.0, 100.0) == pytest.approx(0.1)


# -- reproduce --list --------------------------------------------------------------------------

def test_reproduce_list_shows_the_committed_run_times(run_cli):
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    board = json.loads((REPO / "python" / "cellshare" / "data" / "scoreboard.json").read_text())
    from cellshare.cli import _duration

    for e in board["reproductions"]:
        line = next(l for l in p.stdout.splitlines() if f" {e['name']} " in f" {l} ")
        assert _duration(e["wall_s"]) in line, (e["name"], line)
    assert "python/cellshare/data/scoreboard.json" in " ".join(p.stdout.split())


# -- summary.json ------------------------------------------------------------------------------

def test_cbr_rtt_is_null_and_a_single_dscp_is_not_a_class():
    import cellshare

    sc = {"simulation": {"duration_s": 1.0, "seed": 1}, "cell": {"bandwidth_mhz": 5},
          "ues": [{"count": 2, "channel": {"kind": "fixed", "rate_mbps": 10.0}}],
          "flows": [{"ue": 0, "name": "udp", "transport": {"kind": "cbr", "rate_mbps": 2.0}},
                    {"ue": 1, "name": "tcp", "transport": {"kind": "tcp"}}]}
    r = cellshare.run(sc)
    flows = {f["name"]: f for f in r.summary["flows"]}
    assert flows["udp"]["rtt_ms"] is None
    assert flows["tcp"]["rtt_ms"]["count"] > 0
    t = {row["name"]: row for row in r.flows().to_pylist()}
    assert t["udp"]["rtt_samples"] == 0 and t["udp"]["rtt_p50_ms"] is None
    assert t["tcp"]["rtt_p50_ms"] > 0
    assert [c["class"] for c in r.summary["classes"]] == ["foreground", "background"]
    assert r.class_("dscp0")["flows"] == 2
    # several DSCP values in use: each is a class
    sc["flows"][0]["dscp"] = 10
    names = [c["class"] for c in cellshare.run(sc).summary["classes"]]
    assert names == ["foreground", "background", "dscp0", "dscp10"]


# -- the scenario reference says which form a key takes ------------------------------------------

def test_reference_writes_string_choices_as_strings(run_cli, tmp_path):
    ref = (REPO / "docs" / "scenario-reference.md").read_text()
    row = next(l for l in ref.splitlines() if l.startswith("| `fading` |"))
    assert '| string: "rayleigh" or "none" |' in row, row
    assert "table: kind = \"pf\"" not in ref          # scheduler.kind is a string inside its table
    base = '[cell]\nbandwidth_mhz = 5\n[[ues]]\nchannel = {{ kind = "radio", distance_m = 100.0, fading = {} }}\n' \
           '[[flows]]\nue = 0\ntransport = {{ kind = "tcp" }}\n'
    ok, table = tmp_path / "ok.toml", tmp_path / "table.toml"
    ok.write_text(base.format('"none"'))
    table.write_text(base.format('{ kind = "none" }'))
    assert run_cli("validate", ok).returncode == 0
    p = run_cli("validate", table)
    assert p.returncode == 2 and "expected `rayleigh` or `none`" in p.stderr, p.stderr


# -- small traps -------------------------------------------------------------------------------

def test_version_and_validate_recognises_a_sweep(run_cli, tmp_path):
    import cellshare

    p = run_cli("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"cellshare {cellshare.__version__}"
    p = run_cli("validate", REPO / "scenarios" / "sweeps" / "background-schemes.toml")
    assert p.returncode == 0, p.stderr
    assert "a sweep of 63 runs" in p.stdout
    bad = tmp_path / "sweep.toml"
    bad.write_text(f'base = "{REPO / "scenarios" / "two-ues-pf.toml"}"\n[axes.x]\npath = "cell.bandwidth_mhz"\n'
                   'values = [10, 7]\n')
    p = run_cli("validate", bad)
    assert p.returncode == 2
    assert "bandwidth_mhz" in p.stderr and "unknown field `base`" not in p.stderr


def test_the_public_api_is_listed_by_dir_and_validate_is_exported():
    import cellshare

    public = {n for n in dir(cellshare) if not n.startswith("_")}
    assert {"run", "validate", "sweep", "Result", "SweepResult", "ScenarioInvalid", "load_scenario"} <= public
    cellshare.validate(REPO / "scenarios" / "two-ues-pf.toml")
    with pytest.raises(cellshare.ScenarioInvalid, match="bandwidth_mhz"):
        cellshare.validate({"cell": {"bandwidth_mhz": 7}, "ues": [{}], "flows": []})
