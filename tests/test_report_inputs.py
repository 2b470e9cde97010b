"""`cellshare report` on damaged and unusual folders: every damaged file is
exit 2 with one line naming the file and what was expected (never a traceback, never the
file's content, nothing written); an empty or filtered table renders as an empty section."""

import io
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from cellshare import report
from cellshare.report import ReportError, write_report
from test_sweep import BASE, SWEEP

SECTIONS = ("overview", "throughput-over-time", "short-flow-completion-times", "flow-throughput", "queue-delay",
            "fairness")

APPS = """\
name = "apps-tiny"
[simulation]
duration_s = 4
seed = 1
[[ues]]
count = 3
channel = { kind = "radio", distance_m = 200.0 }
[[flows]]
name = "call"
ue = 0
app = { kind = "video_call" }
transport = { kind = "udp" }
[[flows]]
name = "video"
ue = 1
app = { kind = "stream", abr = { kind = "mpc" } }
transport = { kind = "tcp" }
[[flows]]
name = "web"
ue = 2
app = { kind = "web", connections = 6, pages = 0, reading_s = 1 }
transport = { kind = "tcp" }
"""


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A tiny sweep (3 schemes × 2 loads, one seed, 2 s each), a single run, and a run with
    video calls, a stream and web pages, made with the command line."""
    from conftest import cellshare

    d = tmp_path_factory.mktemp("report-inputs")
    (d / "base.toml").write_text(BASE.replace("duration_s = 3.0", "duration_s = 2.0"))
    (d / "sweep.toml").write_text(SWEEP.format(seeds=1))
    (d / "apps.toml").write_text(APPS)
    for args in (["sweep", d / "sweep.toml", "--out", d / "sweep", "--workers", "2"],
                 ["run", d / "base.toml", "--out", d / "run"], ["run", d / "apps.toml", "--out", d / "apps"]):
        p = cellshare(*args)
        assert p.returncode == 0, p.stderr
    return {"sweep": d / "sweep", "run": d / "run", "apps": d / "apps"}


@pytest.fixture
def quick_figures(monkeypatch):
    """Figures drawn (every artist, at a low resolution) but not saved as PNG and PDF files:
    what these tests check is the data, not the files (tests/test_report.py saves them)."""
    def save(fig, out, stem):
        fig.savefig(io.BytesIO(), format="png", dpi=20)
        import matplotlib.pyplot as plt

        plt.close(fig)
        return f"{stem}.png"

    monkeypatch.setattr(report, "_save", save)


def damaged_copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("report"))
    return dst


def edit_table(path: Path, fn) -> None:
    pq.write_table(fn(pq.read_table(path)), path)


def fill_floats(value, typ=pa.float64()):
    """A table edit: every float column holds `value` in every row."""
    def fn(t):
        for i, f in enumerate(t.schema):
            if pa.types.is_floating(f.type):
                t = t.set_column(i, f.name, pa.array([value] * t.num_rows, typ))
        return t
    return fn


def edit_json(path: Path, fn) -> None:
    doc = json.loads(path.read_text())
    fn(doc)
    path.write_text(json.dumps(doc))


def each(folder: Path, pattern: str, fn) -> None:
    for p in sorted(folder.glob(pattern)):
        fn(p)


#: (folder, damage, the file named, words of the message)
REFUSED = {
    "runs table without the axis column": (
        "sweep", lambda d: edit_table(d / "runs.parquet", lambda t: t.drop_columns(["scheme"])),
        "runs.parquet", ["no column 'scheme'"]),
    "runs table without a number the report reads": (
        "sweep", lambda d: edit_table(d / "runs.parquet", lambda t: t.drop_columns(["jain_index"])),
        "runs.parquet", ["no column 'jain_index'"]),
    "text where numbers belong": (
        "sweep", lambda d: edit_table(d / "runs.parquet", lambda t: t.set_column(
            t.column_names.index("jain_index"), "jain_index", pa.array(["0.9"] * t.num_rows))),
        "runs.parquet", ["'jain_index'", "string", "number"]),
    "run ids that are not text": (
        "sweep", lambda d: edit_table(d / "runs.parquet", lambda t: t.set_column(0, "run_id", pa.array(range(t.num_rows)))),
        "runs.parquet", ["'run_id'", "int64", "text"]),
    "a null run id": (
        "sweep", lambda d: edit_table(d / "runs.parquet", lambda t: t.set_column(0, "run_id", pa.nulls(t.num_rows, pa.string()))),
        "runs.parquet", ["row 0", "run_id is null"]),
    "a run id that is a path": (
        "sweep", lambda d: edit_table(d / "runs.parquet", lambda t: t.set_column(0, "run_id", pa.array(["../.."] * t.num_rows))),
        "runs.parquet", ["row 0", "not a run id"]),
    "a parameter column of lists": (
        "sweep", lambda d: edit_table(d / "runs.parquet", lambda t: t.set_column(1, "scheme", pa.array([[1]] * t.num_rows))),
        "runs.parquet", ["'scheme'", "scalar"]),
    "1e308 in the runs table": (
        "sweep", lambda d: edit_table(d / "runs.parquet", fill_floats(1e308)),
        "runs.parquet", ["1e+308", "beyond"]),
    "flows table without fct_s": (
        "sweep", lambda d: edit_table(d / "flows.parquet", lambda t: t.drop_columns(["fct_s"])),
        "flows.parquet", ["no column 'fct_s'"]),
    "flows table without class": (
        "sweep", lambda d: edit_table(d / "flows.parquet", lambda t: t.drop_columns(["class"])),
        "flows.parquet", ["no column 'class'"]),
    "sweep.json parameters not a list": (
        "sweep", lambda d: (d / "sweep.json").write_text('{"parameters": 5}'),
        "sweep.json", ["`parameters`", "list of parameter names"]),
    "sweep.json parameters of tables": (
        "sweep", lambda d: (d / "sweep.json").write_text('{"parameters": [{"a": 1}]}'),
        "sweep.json", ["`parameters`"]),
    "a sweep.toml name that is not text": (
        "sweep", lambda d: (d / "sweep.toml").write_text("name = [1]\n"),
        "sweep.toml", ["`name`", "list", "not text"]),
    "a deeply nested sweep.toml": (
        "sweep", lambda d: (d / "sweep.toml").write_text("name = " + "[" * 5000 + "]" * 5000 + "\n"),
        "sweep.toml", ["nested too deeply"]),
    "a truncated runs table": (
        "sweep", lambda d: (d / "runs.parquet").write_bytes((d / "runs.parquet").read_bytes()[:100]),
        "runs.parquet", ["cannot be read"]),
    "a queue-delay CDF of 1e308": (
        "sweep", lambda d: each(d, "runs/*/queue_delay_cdf.parquet", lambda p: edit_table(p, fill_floats(1e308))),
        "queue_delay_cdf.parquet", ["'delay_ms'", "1e+308"]),
    "a flow series without its mbps": (
        "sweep", lambda d: each(d, "runs/*/flow_series.parquet", lambda p: edit_table(p, lambda t: t.drop_columns(["mbps"]))),
        "flow_series.parquet", ["no column 'mbps'"]),
    "a summary.json 100,000 deep": (
        "run", lambda d: (d / "summary.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000),
        "summary.json", ["nested too deeply"]),
    "a summary.json holding 1e308 drops": (
        "run", lambda d: edit_json(d / "summary.json", lambda s: s["drops"].update({k: 1e308 for k in s["drops"]})),
        "summary.json", ["`drops.", "1e+308", "whole number of packets"]),
    "a summary.json holding 1e308": (
        "run", lambda d: edit_json(d / "summary.json", lambda s: s.update(delivered_mbps=1e308)),
        "summary.json", ["`delivered_mbps`", "1e+308"]),
    "a summary.json holding a 400-digit integer": (
        "run", lambda d: edit_json(d / "summary.json", lambda s: s.update(jain_index=10 ** 400)),
        "summary.json", ["`jain_index`", "401 digits", "float's range"]),
    "a summary.json without its queue delay": (
        "run", lambda d: edit_json(d / "summary.json", lambda s: s.update(queue_delay_ms=None)),
        "summary.json", ["`queue_delay_ms`", "expected a table"]),
    "a summary.json whose scenario name is a list": (
        "run", lambda d: edit_json(d / "summary.json", lambda s: s.update(scenario=[1])),
        "summary.json", ["`scenario`", "not text"]),
    "a summary.json of classes that are not tables": (
        "run", lambda d: edit_json(d / "summary.json", lambda s: s.update(classes=[1])),
        "summary.json", ["`classes[0]`"]),
    "a run's flows table without class": (
        "run", lambda d: edit_table(d / "flows.parquet", lambda t: t.drop_columns(["class"])),
        "flows.parquet", ["no column 'class'"]),
    "a stream session whose QoE is text": (
        "apps", lambda d: edit_json(d / "summary.json", lambda s: s["streams"][0].update(qoe="high")),
        "summary.json", ["`streams[0].qoe`", "not a number"]),
    "video frames without names": (
        "apps", lambda d: edit_table(d / "video_frames.parquet", lambda t: t.drop_columns(["name"])),
        "video_frames.parquet", ["no column 'name'"]),
    "video frames of 1e308": (
        "apps", lambda d: edit_table(d / "video_frames.parquet", fill_floats(1e308)),
        "video_frames.parquet", ["1e+308"]),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_damaged_folder_is_one_error_naming_the_file(folders, tmp_path, quick_figures, case):
    """Each was a KeyError, TypeError, OverflowError, RecursionError or AttributeError."""
    kind, damage, name, words = REFUSED[case]
    d = damaged_copy(folders[kind], tmp_path / "copy")
    damage(d)
    with pytest.raises(ReportError) as e:
        write_report(d)
    msg = str(e.value)
    assert "\n" not in msg and name in msg, msg
    assert msg.split(":")[0].endswith(name), msg  # the message starts with the file
    for w in words:
        assert w in msg, (w, msg)
    assert not (d / "report").exists()


#: (folder, change) of folders that render, some sections empty
RENDERED = {
    "a runs table without rows": ("sweep", lambda d: edit_table(d / "runs.parquet", lambda t: t.slice(0, 0))),
    "runs and flows tables without rows": ("sweep", lambda d: [edit_table(d / f, lambda t: t.slice(0, 0))
                                                               for f in ("runs.parquet", "flows.parquet")]),
    "a flows table without rows": ("sweep", lambda d: edit_table(d / "flows.parquet", lambda t: t.slice(0, 0))),
    "a runs table filtered to one scheme": ("sweep", lambda d: edit_table(
        d / "runs.parquet", lambda t: t.filter(pc.equal(t["scheme"], "cubic")))),
    "all-NaN float columns": ("sweep", lambda d: [edit_table(d / f, fill_floats(float("nan")))
                                                  for f in ("runs.parquet", "flows.parquet")]),
    "all-null float columns": ("sweep", lambda d: [edit_table(d / f, fill_floats(None))
                                                   for f in ("runs.parquet", "flows.parquet")]),
    "infinite run scalars": ("sweep", lambda d: edit_table(d / "runs.parquet", fill_floats(float("inf")))),
    "NaN queue-delay CDFs and series": ("sweep", lambda d: [
        each(d, f"runs/*/{f}", lambda p: edit_table(p, fill_floats(float("nan"))))
        for f in ("queue_delay_cdf.parquet", "flow_series.parquet")]),
    "a run without flows": ("run", lambda d: edit_table(d / "flows.parquet", lambda t: pa.table({}))),
    "a run whose flow series is empty": ("run", lambda d: edit_table(d / "flow_series.parquet", lambda t: t.slice(0, 0))),
    "a run whose summary numbers are NaN": ("run", lambda d: edit_json(
        d / "summary.json", lambda s: s.update(jain_index=float("nan"), delivered_mbps=float("inf")))),
    # (was a MemoryError: the sizes of 10^12 flows listed before they were compared)
    "a scenario.toml of more flows than the table": ("run", lambda d: [
        edit_table(d / "flows.parquet", lambda t: t.drop_columns(["size_bytes"])),
        (d / "scenario.toml").write_text("[[ues]]\ncount = 1000000000000\n[[flows]]\nues = \"all\"\n")]),
    "apps tables without rows": ("apps", lambda d: [edit_table(d / f"{n}.parquet", lambda t: t.slice(0, 0))
                                                    for n in ("video_frames", "stream_chunks", "page_loads")]),
    "apps tables of nulls": ("apps", lambda d: [edit_table(d / f"{n}.parquet", lambda t: pa.table(
        {c: pa.nulls(t.num_rows, t.schema.field(c).type) for c in t.column_names}))
        for n in ("video_frames", "stream_chunks", "page_loads")]),
    "a run without stream sessions in its summary": ("apps", lambda d: edit_json(d / "summary.json",
                                                                                 lambda s: s.pop("streams"))),
}


@pytest.mark.parametrize("case", list(RENDERED))
def test_an_empty_or_filtered_table_renders_empty_sections(folders, tmp_path, quick_figures, case):
    """An empty runs table was an IndexError, all-null numbers a TypeError, an empty flow series
    an error about --flows (not given), empty app tables an IndexError."""
    kind, change = RENDERED[case]
    d = damaged_copy(folders[kind], tmp_path / "copy")
    change(d)
    page = write_report(d).read_text()
    for s in SECTIONS:
        assert f'<section id="{s}">' in page, (case, s)


def test_the_command_line_exits_2_with_one_line(folders, tmp_path, run_cli):
    """Through `cellshare report`: exit 2, one `error:` line naming the file, no traceback, no
    report folder; the summary's content never echoed."""
    d = damaged_copy(folders["run"], tmp_path / "deep")
    (d / "summary.json").write_text('{"secret-key-xyz":' * 100_000 + "1" + "}" * 100_000)
    p = run_cli("report", d)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("error:") and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "summary.json" in p.stderr and "secret-key-xyz" not in p.stderr and "Traceback" not in p.stderr
    assert not (d / "report").exists()
    d = damaged_copy(folders["sweep"], tmp_path / "noaxis")
    edit_table(d / "runs.parquet", lambda t: t.drop_columns(["scheme"]))
    p = run_cli("report", d)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "runs.parquet" in p.stderr and "no column 'scheme'" in p.stderr


def test_the_command_line_renders_an_empty_sweep(folders, tmp_path, run_cli):
    d = damaged_copy(folders["sweep"], tmp_path / "empty")
    edit_table(d / "runs.parquet", lambda t: t.slice(0, 0))
    p = run_cli("report", d)
    assert p.returncode == 0, p.stderr
    assert p.stderr == "" and p.stdout.strip().startswith("report written to"), (p.stdout, p.stderr)


def test_flows_named_with_the_option_must_exist(folders, tmp_path, quick_figures):
    """--flows names the user chose are still checked (only the default choice is quiet)."""
    d = damaged_copy(folders["run"], tmp_path / "copy")
    edit_table(d / "flow_series.parquet", lambda t: t.slice(0, 0))
    with pytest.raises(ReportError, match="--flows: no flow called 'long'"):
        write_report(d, flows=["long"])
