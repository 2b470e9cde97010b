"""`cellshare report`: the HTML page and its figures for a sweep and for a single run."""

import html
import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cellshare.report import ReportError, write_report
from test_sweep import BASE, write_sweep

SECTIONS = ("overview", "throughput-over-time", "short-flow-completion-times", "flow-throughput", "queue-delay",
            "fairness")
FIGURES = ("throughput", "fct_short", "throughput_categories", "queue_delay_cdf", "jain")


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """3 schemes (one without background) × 2 loads × 2 seeds, run in this process."""
    import cellshare

    d = tmp_path_factory.mktemp("report")
    res = cellshare.sweep(write_sweep(d, seeds=2), out=d / "out", workers=1)
    return res.out


def cell_text(page: str, section: str) -> str:
    m = re.search(rf'<section id="{section}">(.*?)</section>', page, re.S)
    assert m, f"no section {section}"
    return m.group(1)


def rows(section_html: str) -> list[list[str]]:
    return [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", r)]
            for r in re.findall(r"<tr>(.*?)</tr>", section_html, re.S) if "<td>" in r]


def test_report_of_a_sweep_has_every_figure_and_its_numbers(swept, run_cli):
    p = run_cli("report", swept)
    assert p.returncode == 0, p.stderr
    rep = swept / "report"
    page = (rep / "index.html").read_text()
    for s in SECTIONS:
        assert f'<section id="{s}">' in page, s
    for f in FIGURES:
        png = (rep / f"{f}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000, f
        assert (rep / f"{f}.pdf").read_bytes()[:4] == b"%PDF", f
        assert f'src="{f}.png"' in page
    assert "scheme: <code>scheme</code> (cubic, ledbat, w/o bg)" in page
    assert "load: <code>load</code> (low, high)" in page
    assert "Dashed black: w/o bg (the baseline)" in page
    # the FCT table holds the percentiles of the short flows in flows.parquet
    flows = pq.read_table(swept / "flows.parquet").to_pylist()
    fct_rows = {(r[0], r[1]): r for r in rows(cell_text(page, "short-flow-completion-times"))}
    assert set(fct_rows) == {(s, l) for s in ("cubic", "ledbat", "w/o bg") for l in ("low", "high")}
    for (s, l), r in fct_rows.items():
        short = [f for f in flows if f["scheme"] == s and f["load"] == l and f["category"] == "short"]
        done = [f["fct_s"] * 1000 for f in short if f["completed"]]
        assert r[2] == f"{len(done)}/{len(short)}" and len(short) == 4
        assert float(r[3]) == pytest.approx(np.percentile(done, 50), rel=2e-3)
        assert float(r[5]) == pytest.approx(np.percentile(done, 99.9), rel=2e-3)
        assert (r[6] == "1") if s == "w/o bg" else (float(r[6]) > 0)
    # background throughput exists for the schemes with a background flow only
    tput = rows(cell_text(page, "flow-throughput"))
    assert {r[1] for r in tput if r[0] == "background"} == {"cubic", "ledbat"}
    assert {r[0] for r in tput} == {"medium", "long", "background"}
    jain = rows(cell_text(page, "fairness"))
    runs = pq.read_table(swept / "runs.parquet").to_pylist()
    for r in jain:
        xs = [x["jain_index"] for x in runs if x["scheme"] == r[0] and x["load"] == r[1]]
        assert float(r[3]) == pytest.approx(np.mean(xs), rel=2e-3)


def test_report_options_and_bad_options(swept, run_cli, tmp_path):
    out = tmp_path / "swapped"
    index = write_report(swept, out=out, scheme="load", load="scheme", baseline="low", flows=["medium", "long"])
    page = index.read_text()
    assert "scheme: <code>load</code> (low, high)" in page and "Dashed black: low (the baseline)" in page
    assert "Per-second goodput of medium, long" in page
    for opts, needles in (({"scheme": "nope"}, ["--scheme 'nope'", "expected one of: scheme, load"]),
                          ({"baseline": "nope"}, ["--baseline 'nope'", "cubic, ledbat, w/o bg"]),
                          ({"flows": ["long", "ghost"]}, ["no flow called 'ghost'"]),
                          ({"scheme": "load", "load": "load"}, ["both 'load'"])):
        target = tmp_path / "bad"
        with pytest.raises(ReportError) as e:
            write_report(swept, out=target, **opts)
        msg = " ".join(str(e.value).split())
        assert all(n in msg for n in needles), (opts, msg)
        assert not target.exists(), opts
    # through the command line: exit 2, nothing written
    p = run_cli("report", swept, "--out", tmp_path / "bad", "--flows", "long,ghost")
    assert p.returncode == 2 and "no flow called 'ghost'" in p.stderr and not (tmp_path / "bad").exists()
    p = run_cli("report", tmp_path / "nothing-here")
    assert p.returncode == 2 and "neither a sweep output folder" in p.stderr


def test_report_of_a_single_run(run_cli, tmp_path):
    (tmp_path / "base.toml").write_text(BASE)
    p = run_cli("run", tmp_path / "base.toml", "--out", tmp_path / "run")
    assert p.returncode == 0, p.stderr
    index = write_report(tmp_path / "run")
    page = index.read_text()
    for s in SECTIONS:
        assert f'<section id="{s}">' in page, s
    fct = rows(cell_text(page, "short-flow-completion-times"))
    assert len(fct) == 1 and fct[0][2] == "2/2"
    assert {r[0] for r in rows(cell_text(page, "flow-throughput"))} == {"medium", "long", "background"}


def test_report_groups_by_the_category_column_when_present(swept, tmp_path):
    """A flows table with its own `category` (the workload generator writes one) is grouped
    by it: here the medium flows are relabelled short."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(swept, copy, ignore=shutil.ignore_patterns("report"))
    t = pq.read_table(copy / "flows.parquet")
    cats = ["short" if n == "medium" else c for n, c in zip(t.column("name").to_pylist(),
                                                               t.column("category").to_pylist())]
    t = t.set_column(t.column_names.index("category"), "category", pa.array(cats))
    pq.write_table(t, copy / "flows.parquet")
    page = write_report(copy).read_text()
    fct = rows(cell_text(page, "short-flow-completion-times"))
    assert all(r[2].endswith("/6") for r in fct), fct
    assert "medium" not in {r[0] for r in rows(cell_text(page, "flow-throughput"))}
    with pytest.raises(ReportError):
        write_report(copy, scheme="seed")
