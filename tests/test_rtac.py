"""RTAC, DRWA and SORPC end to end ([rsd-thesis] chapters 2 and 3), on short
runs of the reproductions' own scenarios, plus the interactive apps' per-request table and
validation errors for the new keys."""

import json

import pyarrow.parquet as pq
import tomli_w

import cellshare
from cellshare.reproduce import rtac, sorpc


def _flows(r):
    return {f["name"]: f for f in r.raw["flows"]}


def test_rtac_cuts_lte_and_wifi_bufferbloat_keeping_throughput():
    for net in ("lte", "wifi"):
        auto = _flows(cellshare.run(rtac.scenario("t", net, ["auto"], 12.0)))["auto0"]
        r = _flows(cellshare.run(rtac.scenario("t", net, ["rtac"], 12.0)))["rtac0"]
        # With the thesis's K and Δ the LTE cut is about 2× here (the thesis's 3.1×; causes.py).
        assert auto["rtt_ms"]["mean"] >= 1.8 * r["rtt_ms"]["mean"], (net, auto["rtt_ms"], r["rtt_ms"])
        assert r["throughput_mbps"] >= 0.9 * auto["throughput_mbps"], (net, r["throughput_mbps"], auto["throughput_mbps"])


def _claims(out):
    return {c["id"]: c for c in json.loads((out / "claims.json").read_text())["claims"]}


def test_reproduce_rtac_claims(run_cli, tmp_path):
    out = tmp_path / "rtac"
    p = run_cli("reproduce", "rtac", "--out", out, "--no-sensitivity")
    c = _claims(out)
    for key in ("lte-throughput-rtac", "wifi-throughput-rtac", "ic-rtac-share", "ic-three-rtac-share",
                "ic-three-drwa-lower", "dc-three-drwa-share"):
        assert c[key]["verdict"] == "holds", c[key]
    # Two recorded misses near their edges (causes.py): with the thesis's K and Δ RTAC cuts the
    # Wi-Fi RTT a little less than the thesis's 8.9x, and DRWA starves beside auto-tuning
    # slightly less than the thesis's 2 %.
    assert 5.0 < c["wifi-rtt-cut-rtac"]["ours"] < 15.0, c["wifi-rtt-cut-rtac"]
    assert c["ic-drwa-share"]["ours"] < 0.05, c["ic-drwa-share"]
    # Direct competition in a deep shared buffer: RTAC is far from DRWA's starvation but
    # below the thesis's 96 % (the README explains the fixed point); the command says so.
    assert c["dc-rtac-share"]["ours"] > 10 * c["dc-drwa-share"]["ours"]
    assert c["dc-rtac-share"]["verdict"] == "misses" and p.returncode != 0
    assert (out / "rtac-fig2.7.png").stat().st_size > 0 and (out / "rtac-coexistence.png").stat().st_size > 0


def test_reproduce_sorpc_claims(run_cli, tmp_path):
    out = tmp_path / "sorpc"
    p = run_cli("reproduce", "sorpc", "--out", out, "--no-sensitivity")
    c = _claims(out)
    for key in ("messenger-sorpc-below-300", "messenger-single-worse-at-lower-uplink", "game-sorpc-below-418",
                "voip-sorpc-lower"):
        assert c[key]["verdict"] == "holds", c[key]
    # SORPC multiplies the download's first 10 s; by how much depends on where in the upload's
    # congestion cycle the single queue's download leaves slow start (gain 7.5-21 over start
    # times 9-12 s; causes.py "sorpc/download-gain"), so the test asserts the effect, not the ratio.
    assert c["download-gain"]["ours"] > 2, c["download-gain"]
    # The game's worst single-queue RTT at a 5 Mbit/s uplink is longer than the thesis's 1.5 s
    # (its uplink rates are not given): a miss, exit 1.
    assert c["game-single-worst"]["ours"] > 1500 and p.returncode == 1
    req = pq.read_table(out / "runs" / "game-sorpc-10" / "requests.parquet").to_pydict()
    assert len(req["rtt_ms"]) == 250


def test_sorpc_messenger_rtt_and_requests_table(run_cli, tmp_path):
    meds = {}
    for q in ("fifo", "sorpc"):
        r = cellshare.run(sorpc.app_scenario("messenger", q, 10.0, 15.0))
        app = _flows(r)["messenger"]["app"]
        assert app["completed"] >= 8
        meds[q] = app["rtt_p50_ms"]
        t = r.requests().to_pydict()
        assert len(t["rtt_ms"]) == app["completed"] and set(t["kind"]) == {"ping"}
        # The summary keeps the statistics, not the per-request lists.
        s = next(f for f in r.summary["flows"] if f["name"] == "messenger")["app"]
        assert "rtt_ms" not in s and s["rtt_p95_ms"] >= s["rtt_p50_ms"]
    assert meds["fifo"] >= 3 * meds["sorpc"], meds
    f = tmp_path / "s.toml"
    f.write_text(tomli_w.dumps(sorpc.app_scenario("game", "sorpc", 10.0, 8.0)))
    p = run_cli("run", f, "--out", tmp_path / "o")
    assert p.returncode == 0, p.stderr
    req = pq.read_table(tmp_path / "o" / "requests.parquet").to_pydict()
    assert len(req["rtt_ms"]) > 20 and all(x > 0 for x in req["rtt_ms"])


BAD = {
    "rtac without capacity": ('[[ues]]\n[[flows]]\nue = 0\ntransport = { kind = "tcp", tcp = { rwnd = { kind = "rtac" } } }\n',
                              "flows[0].transport.tcp", "capacity_mbps"),
    "rtac theta": ('[[ues]]\n[[flows]]\nue = 0\ntransport = { kind = "tcp", tcp = { rwnd = { kind = "rtac", k = 3e-7, theta = 1.0 } } }\n',
                   "flows[0].transport.tcp", "theta"),
    "drwa lambda": ('[[ues]]\n[[flows]]\nue = 0\ntransport = { kind = "tcp", tcp = { rwnd = { kind = "drwa", lambda = -1.0 } } }\n',
                    "flows[0].transport.tcp", "lambda"),
    "upload without uplink": ('[[ues]]\n[[flows]]\nue = 0\ndirection = "uplink"\ntransport = { kind = "tcp" }\n',
                              "flows[0].direction", "uplink"),
    "bad direction": ('[[ues]]\n[[flows]]\nue = 0\ndirection = "sideways"\ntransport = { kind = "tcp" }\n',
                      "flows[0].direction", "sideways"),
    "sor threshold": ('[[ues]]\nuplink = { channel = { kind = "fixed", rate_mbps = 5 }, qdisc = { kind = "sorpc", sor_threshold = 0 } }\n',
                      "ues[0].uplink.qdisc.sor_threshold", "(0, 1]"),
    "uplink queue": ('[[ues]]\nuplink = { channel = { kind = "fixed", rate_mbps = 5 }, queue_bytes = 10 }\n',
                     "ues[0].uplink.queue_bytes", "1500"),
    "uplink channel": ('[[ues]]\nuplink = { channel = { kind = "fixed", rate_mbps = -5 } }\n',
                       "ues[0].uplink.channel.rate_mbps", "-5"),
    "missing uplink trace": ('[[ues]]\nuplink = { channel = { kind = "trace", file = "nowhere.up" } }\n',
                             "ues[0].uplink.channel.file", "nowhere.up"),
    "ping over cbr": ('[[ues]]\nuplink = { channel = { kind = "fixed", rate_mbps = 5 } }\n[[flows]]\nue = 0\n'
                      'app = { kind = "ping" }\ntransport = { kind = "cbr", rate_mbps = 1 }\n', "flows[0].transport.kind", "tcp"),
    "app interval": ('[[ues]]\nuplink = { channel = { kind = "fixed", rate_mbps = 5 } }\n[[flows]]\nue = 0\n'
                     'app = { kind = "game", interval_ms = 0 }\ntransport = { kind = "tcp" }\n', "flows[0].app.interval_ms", "0"),
    "app with bytes": ('[[ues]]\nuplink = { channel = { kind = "fixed", rate_mbps = 5 } }\n[[flows]]\nue = 0\nbytes = 10\n'
                       'app = { kind = "ping" }\ntransport = { kind = "tcp" }\n', "flows[0].app", "bytes"),
}


def test_bad_new_keys_exit_2_naming_the_key(run_cli, tmp_path):
    for label, (text, key, detail) in BAD.items():
        f = tmp_path / "s.toml"
        f.write_text(text)
        out = tmp_path / "out"
        p = run_cli("run", f, "--out", out)
        assert p.returncode == 2, (label, p.stdout, p.stderr)
        assert key in p.stderr and detail in p.stderr, (label, p.stderr)
        assert not out.exists(), label


def test_upload_over_a_mahimahi_uplink_trace(traces_dir):
    up = traces_dir / "ATT-LTE-driving.up"
    sc = sorpc.app_scenario("messenger", "sorpc", 10.0, 10.0)
    sc["ues"][0]["uplink"]["channel"] = {"kind": "trace", "file": str(up)}
    r = cellshare.run(sc)
    f = _flows(r)
    # The trace's opportunities carry the upload; the messenger still gets answers.
    lines = [int(x) for x in up.read_text().split()]
    trace_mbps = sum(1 for t in lines if t < 10_000) * 1500 * 8 / 10 / 1e6  # the run's 10 s
    assert 0.3 * trace_mbps < f["upload"]["throughput_mbps"] < 1.05 * trace_mbps, (f["upload"]["throughput_mbps"], trace_mbps)
    assert f["messenger"]["app"]["completed"] >= 4
