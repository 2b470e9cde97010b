"""The applications of docs/apps.md from Python: the per-event tables, the summary, the run
folder, the report's sections, and a bad app key failing with exit 2 and the key named."""

import json

import pyarrow.parquet as pq

from cellshare.api import run
from cellshare.report import write_report

SCENARIO = """
[simulation]
duration_s = 30
seed = 2
[[ues]]
count = 3
channel = { kind = "fixed", rate_mbps = 10 }
[[flows]]
name = "call"
ue = 0
app = { kind = "video_call", max_kbps = 1500 }
transport = { kind = "udp" }
[[flows]]
name = "video"
ue = 1
app = { kind = "stream", abr = { kind = "bola" }, chunks = 10 }
transport = { kind = "tcp" }
[[flows]]
name = "web"
ue = 2
app = { kind = "web", pages = 0, reading_s = 3 }
transport = { kind = "tcp" }
"""


def test_app_tables_and_summaries():
    r = run(_mapping())
    frames = r.table("video_frames").to_pydict()
    n = len(frames["t_s"])
    assert n == r.session("call")["frames_sent"] > 800  # 30 fps for ~30 s
    assert set(frames["name"]) == {"call"} and set(frames["ue"]) == {0}
    rendered = [d for d, s in zip(frames["delay_ms"], frames["status"]) if s == "rendered"]
    assert len(rendered) == r.session("call")["frames_rendered"]
    assert all(d is not None and d > 0 for d in rendered)
    # Frames not rendered carry no delay (null, not NaN).
    assert all(d is None for d, s in zip(frames["delay_ms"], frames["status"]) if s != "rendered")
    chunks = r.table("stream_chunks").to_pydict()
    s = r.session("video")
    assert s["abr"] == "bola" and s["chunks_downloaded"] == 10 and s["completed"]
    assert chunks["index"][:10] == list(range(10))
    assert "chunks" not in s and "frames" not in r.session("call")  # the columns live in the tables
    pages = r.table("page_loads").to_pydict()
    w = r.session("web")
    assert len(pages["page"]) == w["pages_started"] >= 3
    assert sum(x is not None for x in pages["load_time_s"]) == w["pages_loaded"]
    # The legs are flows.
    names = [f["name"] for f in r.summary["flows"]]
    assert names[:4] == ["call", "call.feedback", "video", "video.request"]
    assert "web.c5.request" in names


def _mapping():
    import tomllib

    return tomllib.loads(SCENARIO)


def test_run_folder_and_report_have_the_apps(run_cli, tmp_path):
    sc = tmp_path / "apps.toml"
    sc.write_text(SCENARIO)
    out = tmp_path / "out"
    p = run_cli("run", sc, "--out", out)
    assert p.returncode == 0, p.stderr
    for t in ("video_frames", "stream_chunks", "page_loads"):
        assert pq.read_table(out / f"{t}.parquet").num_rows > 0, t
    summary = json.loads((out / "summary.json").read_text())
    assert [s["name"] for s in summary["video_calls"]] == ["call"]
    assert summary["streams"][0]["qoe"] > 0
    index = write_report(out)
    page = index.read_text()
    for section in ("Video calls", "Adaptive streams", "Web page loads"):
        assert section in page, section
    for png in ("video_calls.png", "streams.png", "page_loads.png"):
        assert (index.parent / png).stat().st_size > 1000, png


def test_a_run_without_apps_writes_no_app_tables(run_cli, tmp_path):
    sc = tmp_path / "bulk.toml"
    sc.write_text('[simulation]\nduration_s = 1\n[[ues]]\nchannel = { kind = "fixed", rate_mbps = 5 }\n'
                  '[[flows]]\nue = 0\ntransport = { kind = "tcp" }\n')
    out = tmp_path / "out"
    assert run_cli("run", sc, "--out", out).returncode == 0
    assert not any((out / f"{t}.parquet").exists() for t in ("video_frames", "stream_chunks", "page_loads"))
    assert "video_calls" not in json.loads((out / "summary.json").read_text())


def test_a_bad_app_key_exits_2_naming_it(run_cli, tmp_path):
    sc = tmp_path / "bad.toml"
    sc.write_text(SCENARIO.replace("chunks = 10", "chunks = 10, chunk_s = 0"))
    p = run_cli("run", sc, "--out", tmp_path / "out")
    assert p.returncode == 2
    assert "flows[1].app.chunk_s" in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()
