"""The run summary a researcher reads: per app kind what its users got (page-load times, a
call's frames, a stream's QoE, RTTs), the workload's and the apps' many flows by group, and
Jain's index over the long-lived flows only. One short run (CLI, with --out) serves every
assert; the printer's "n/a" is checked on a summary without two bulk flows."""

import io
import json
import math

import pytest
from rich.console import Console

from cellshare import console as console_mod

SCENARIO = """
name = "summary-apps"
[simulation]
duration_s = 6
seed = 3
trace_interval_ms = 0
[[ues]]
count = 5
channel = { kind = "fixed", rate_mbps = 30 }
[[ues]]
channel = { kind = "fixed", rate_mbps = 30 }
uplink = { channel = { kind = "fixed", rate_mbps = 5 } }
[[ues]]
channel = { kind = "fixed", rate_mbps = 30 }
[[flows]]
name = "bulk"
ues = [0, 1]
transport = { kind = "tcp" }
[[flows]]
name = "call"
ue = 2
app = { kind = "video_call", max_kbps = 1500 }
transport = { kind = "udp" }
[[flows]]
name = "video"
ue = 3
app = { kind = "stream", abr = { kind = "bola" }, chunks = 3 }
transport = { kind = "tcp" }
[[flows]]
name = "web"
ue = 4
app = { kind = "web", pages = 0, reading_s = 0.5 }
transport = { kind = "tcp" }
[[flows]]
name = "ping"
ue = 5
app = { kind = "ping" }
transport = { kind = "tcp" }
[workload]
ues = [6]
transport = { kind = "tcp" }
arrivals = { kind = "poisson", load = 0.7 }
"""


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    from conftest import cellshare

    d = tmp_path_factory.mktemp("summary")
    sc = d / "apps.toml"
    sc.write_text(SCENARIO)
    p = cellshare("run", sc, "--out", d / "out")
    assert p.returncode == 0, p.stderr
    return p.stdout, json.loads((d / "out" / "summary.json").read_text())


def test_printed_summary_shows_what_the_apps_measured(ran):
    out, s = ran
    assert len(s["flows"]) > 40  # the workload's arrivals and the apps' legs
    assert "first 40 of" not in out and " of " + str(len(s["flows"])) not in out
    w = s["apps"]["web"]
    assert w["pages_loaded"] >= 2 and w["load_time_p50_s"] > 0
    assert w["load_time_p95_s"] >= w["load_time_p50_s"]
    assert w["pages_unfinished"] == w["pages_started"] - w["pages_loaded"]
    assert f"page load time p50 {w['load_time_p50_s']:.3f} / p95 {w['load_time_p95_s']:.3f}" in out
    c = s["apps"]["video_call"]
    assert c["frames_rendered"] > 100 and 0 < c["frame_delay_p50_ms"] <= c["frame_delay_p95_ms"]
    assert f"frame delay p50 {c['frame_delay_p50_ms']:.1f} / p95 {c['frame_delay_p95_ms']:.1f} ms" in out
    st = s["apps"]["stream"]
    assert st["chunks_downloaded"] >= 1 and f"stream: 1 stream, QoE {st['qoe']:.3f}" in out
    r = s["apps"]["ping"]
    assert r["completed"] > 0 and f"RTT p50 {r['rtt_p50_ms']:.1f} / p95 {r['rtt_p95_ms']:.1f} ms" in out
    # The bulk flows are listed one by one; the legs and arrivals only by group.
    assert "bulk" in out and "web.c1.request" not in out
    assert "workload short" in out and "web legs (1 session)" in out


def test_summary_json_pools_the_session_summaries(ran):
    _, s = ran
    for key in ("apps", "flow_groups", "entry_flows", "bulk_jain_index", "jain_index"):
        assert key in s, key
    (call,), (stream,), (web,) = s["video_calls"], s["streams"], s["web"]
    c = s["apps"]["video_call"]
    assert (c["sessions"], c["frames_sent"], c["freezes"]) == (1, call["frames_sent"], call["freezes"])
    assert c["frame_delay_p50_ms"] == call["frame_delay_p50_ms"] and c["frame_delay_p95_ms"] == call["frame_delay_p95_ms"]
    assert math.isclose(s["apps"]["stream"]["qoe"], stream["qoe"])
    assert s["apps"]["web"]["load_time_p50_s"] == web["load_time_p50_s"]
    ping = next(f for f in s["flows"] if f["name"] == "ping")
    assert s["apps"]["ping"]["rtt_p95_ms"] == ping["app"]["rtt_p95_ms"]


def test_flow_groups_cover_every_flow_not_listed(ran):
    _, s = ran
    flows, groups = s["flows"], s["flow_groups"]
    assert [flows[i]["name"] for i in s["entry_flows"]] == ["bulk-0", "bulk-1"]
    assert sum(g["flows"] for g in groups) + len(s["entry_flows"]) == len(flows)
    work = [f for f in flows if f["category"] in ("short", "medium", "long")]
    for g in groups:
        if g["source"] == "workload":
            members = [f for f in work if f["category"] == g["name"]]
            assert g["flows"] == len(members) and g["bytes_delivered"] == sum(f["bytes_delivered"] for f in members)
            fcts = sorted(f["fct_s"] for f in members if f["completed"])
            assert g["completed"] == len(fcts)
            if fcts:  # nearest rank
                assert g["fct_p50_s"] == fcts[math.ceil(0.5 * len(fcts)) - 1]
                assert g["fct_p95_s"] == fcts[math.ceil(0.95 * len(fcts)) - 1]
    assert {g["name"]: g["sessions"] for g in groups if g["source"] == "app"} == {
        "ping": 1, "stream": 1, "video_call": 1, "web": 1}


def test_jain_covers_the_bulk_flows(ran):
    out, s = ran
    x = [s["flows"][i]["throughput_mbps"] for i in s["entry_flows"]]
    jain = sum(x) ** 2 / (len(x) * sum(v * v for v in x))
    assert math.isclose(s["bulk_jain_index"], jain, rel_tol=1e-12)
    assert f"Jain over bulk flows {jain:.3f}" in out
    # The index over every flow is another number: the apps' legs and the arrivals weigh in.
    assert not math.isclose(s["jain_index"], s["bulk_jain_index"], abs_tol=1e-3)


def test_fewer_than_two_bulk_flows_give_n_a(monkeypatch):
    from cellshare.api import run_text

    # One bulk flow beside an app and a CBR source: the app's legs and a source sending at its
    # set rate are no competitors, so no index.
    text = (SCENARIO.split("[[flows]]\nname = \"video\"")[0].replace("ues = [0, 1]", "ue = 0")
            .replace("duration_s = 6", "duration_s = 1")
            + '[[flows]]\nname = "voice"\nue = 1\ntransport = { kind = "cbr", rate_mbps = 0.064 }\n')
    r = run_text(text, ".", progress=False)
    assert r.summary["bulk_jain_index"] is None and 0 < r.summary["jain_index"] < 1
    buf = io.StringIO()
    monkeypatch.setattr(console_mod, "out_console", Console(file=buf, width=200))
    console_mod.print_run_summary(r.summary)
    printed = buf.getvalue()
    assert "Jain over bulk flows n/a" in printed and "video call: 1 call" in printed


def test_saturating_cbr_sources_compete():
    """A `cbr` source the network holds below its rate is a bulk flow (the shape of
    scenarios/two-ues-pf.toml); the one it carries whole stays out."""
    from cellshare.api import run_text

    r = run_text("""
[simulation]
duration_s = 1
trace_interval_ms = 0
[[ues]]
count = 3
channel = { kind = "fixed", rate_mbps = 20 }
[[flows]]
ues = [0, 1]
transport = { kind = "cbr", rate_mbps = 30 }
[[flows]]
name = "voice"
ue = 2
transport = { kind = "cbr", rate_mbps = 0.064, packet_bytes = 160 }
""", ".", progress=False)
    s = r.summary
    x = [f["throughput_mbps"] for f in s["flows"][:2]]
    assert s["entry_flows"] == [0, 1, 2]
    assert math.isclose(s["bulk_jain_index"], sum(x) ** 2 / (2 * sum(v * v for v in x)), rel_tol=1e-12)
