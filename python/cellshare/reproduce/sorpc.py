"""`sorpc`: SORPC's dual transmit queue against a single queue ([rsd-thesis],
chapter 3).

Setup (Table 3.1, §3.2, §3.4): one UE on an LTE cell (downlink a fixed 100 Mbit/s, Table 3.1's
download bandwidth, line 2385), its uplink a fixed rate (the thesis varies it: Fig. 3.2, Fig. 3.10 "different
uplink bandwidth"; Table 3.1's 25 Mbit/s and lower), the device transmit queue a drop-tail
`txqueuelen` of 1000 packets (1,500,000 bytes) — one FIFO ("Single Queue") or SORPC's two
(SOR_th = 0.5) —, CUBIC everywhere, `tcp_wmem` max 2,560,000 bytes, the base RTT about 45
ms (the thesis: "without upload traffic, average RTT is around 50 msec").

- **Fig. 3.10**: a bulk TCP upload (iperf) from t = 0 and, from t = 5 s, an interactive app
  at the UE: a messenger (`ping`, 100-byte messages every second), a game (`game`, 64-byte
  requests answered by 256 bytes every 100 ms) or a VoIP call (`voip`, 160-byte datagrams
  every 20 ms, echoed). Measured: the app's per-request RTT (request written to whole
  response received), median over the run.
- **Fig. 3.11**: a bulk upload (the thesis: to Dropbox) at the Table 3.1 uplink of 25 Mbit/s
  and, from t = 5 s, a download app at the UE (docs/apps.md): a YouTube-like adaptive stream
  (measured: its start-up delay) or web page loads (NGMN pages one after another, 2 s of
  reading between them; measured: the mean page load time), with no upload, a single
  queue, or SORPC.
- **Fig. 3.12**: the bulk upload from t = 0, a bulk TCP download (iperf) started at 10 s;
  measured: the download's throughput over its first 10 s ("experiment duration is 10
  sec").

Claims (the thesis's own numbers, judged by the one rule of ``reproduce/__init__.py``):
the messenger's RTT under SORPC below 300 ms and the single queue's worse at lower uplink
rates, the game's worst single-queue RTT 1.5 s and SORPC's below 418 ms, VoIP lower with
SORPC (§3.4.2), and the download's short-term throughput 3.2 → 19.1 Mbit/s (§3.4.3); the
motivation of §3.2: an upload alone at 20 Mbit/s per `tcp_wmem` max (Fig. 3.1: an RTT increase
above 400 ms at 2,560 KBytes, the best setting below 200), per uplink rate (Fig. 3.2: above 900
ms below 10 Mbit/s, worse as the uplink shrinks), a ping beside an upload at 9 Mbit/s (Fig.
3.3: above 1.8 s); and two uploads under SORPC 10 s apart (Fig. 3.13: Jain's index 0.94 over
60 s, 0.64 over 10 s).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import Assumption, AtLeast, AtMost, ClaimDef, Context, Decreasing, Given, Guard, Order, Point, experiment, jain  # noqa: E402

PAPER = "[rsd-thesis] ch. 3 (Figs. 3.10, 3.11, 3.12)"
WMEM_MAX = 2_560_000
UPLINK_MBPS = (5.0, 10.0, 25.0)
DOWNLOAD_UPLINK_MBPS = 25.0
APP_START = 5.0
DL_START = 10.0
DL_WINDOW = 10.0

_GAME = ("At the worst case, a packet of Single Queue is delayed by 1.5 sec while SORPC achieves the RTT performance lower "
         "than 418 msec.")
_FIG311_YT = ("When there are no background upload traffic, average start delay is around 4.4 sec while Single Queue "
              "shows worse performance of 8 sec in average")
_FIG311_WEB = ("Average web loading time is 3.2 sec without upload traffic; however, the performance of Single Queue is "
               "12 sec in average.")
_FIG311_ORDER = "SORPC achieves better performances than Single Queue by transmitting download ACKs of Youtube and Web"
_FIG311_SORPC = "In average, SORPC achieves 6.3 sec startup delay with Youtube and 6.2 sec web loading time."
CLAIMS = (
    ClaimDef("messenger-sorpc-below-300", "Messenger beside a bulk upload, SORPC: the longest RTT over the 5, 10, 25 "
             "Mbit/s uplinks", "rsd-thesis", "Sec. 3.4.2, Fig. 3.10(a)", 2507,
             "On the other hand, SORPC shows very low RTT performance less than 300 msec regardless of uplink bandwidth.",
             AtMost(300.0, unit=" ms")),
    ClaimDef("messenger-single-worse-at-lower-uplink", "Messenger beside a bulk upload, single queue: median RTT at "
             "uplinks of 5, 10, 25 Mbit/s", "rsd-thesis", "Sec. 3.4.2, Fig. 3.10(a)", 2503,
             "Single Queue shows deteriorated RTT performance with background upload traffic and RTT increase get worse "
             "as uplink bandwidth becomes smaller.", Decreasing(("5 Mbit/s", "10 Mbit/s", "25 Mbit/s"))),
    ClaimDef("game-single-worst", "Game beside a bulk upload, single queue: the longest RTT over the uplinks", "rsd-thesis",
             "Sec. 3.4.2, Fig. 3.10(b)", 2517, _GAME, Point(1500.0, unit=" ms", derivation="1.5 sec = 1500 ms")),
    ClaimDef("game-sorpc-below-418", "Game beside a bulk upload, SORPC: the longest RTT over the uplinks", "rsd-thesis",
             "Sec. 3.4.2, Fig. 3.10(b)", 2517, _GAME, AtMost(418.0, unit=" ms")),
    ClaimDef("voip-sorpc-lower", "VoIP beside a bulk upload: median RTT, single queue (the lowest over the uplinks) vs "
             "SORPC (the highest)", "rsd-thesis", "Sec. 3.4.2, Fig. 3.10(c)", 2519,
             "In the case of m-VoIP, SORPC is also effective to reduce the delay with background upload traffic by "
             "processing UDP packets first while RTT of Single Queue is critical to use m-VoIP as shown in Fig. 3.10(c).",
             Order(("single queue",), ("SORPC",))),
    ClaimDef("youtube-sorpc-better", "YouTube-like stream from 5 s into the upload: start-up delay, single queue above SORPC "
             "and no upload", "rsd-thesis", "Sec. 3.4.3, Fig. 3.11(a)", 2562, _FIG311_ORDER,
             Order(("single queue",), ("SORPC", "no upload"), derivation="better than Single Queue; 4.4 < 6.3 < 8 s "
                   "(lines 2554, 2568)")),
    ClaimDef("youtube-single-vs-alone", "YouTube-like stream: start-up delay, single queue / no upload", "rsd-thesis",
             "Sec. 3.4.3, Fig. 3.11(a)", 2550, _FIG311_YT, Point(8.0 / 4.4, derivation="8 / 4.4")),
    ClaimDef("youtube-sorpc-vs-alone", "YouTube-like stream: start-up delay, SORPC / no upload", "rsd-thesis",
             "Sec. 3.4.3, Fig. 3.11(a)", 2566, _FIG311_SORPC, Point(6.3 / 4.4, derivation="6.3 / 4.4 (line 2554)")),
    ClaimDef("web-sorpc-better", "Web pages from 5 s into the upload: mean page load time, single queue above SORPC and "
             "no upload", "rsd-thesis", "Sec. 3.4.3, Fig. 3.11(b)", 2562, _FIG311_ORDER,
             Order(("single queue",), ("SORPC", "no upload"), derivation="better than Single Queue; 3.2 < 6.2 < 12 s "
                   "(lines 2560, 2570)")),
    ClaimDef("web-single-vs-alone", "Web pages: mean page load time, single queue / no upload", "rsd-thesis",
             "Sec. 3.4.3, Fig. 3.11(b)", 2558, _FIG311_WEB, Point(12.0 / 3.2, derivation="12 / 3.2")),
    ClaimDef("web-sorpc-vs-alone", "Web pages: mean page load time, SORPC / no upload", "rsd-thesis",
             "Sec. 3.4.3, Fig. 3.11(b)", 2566, _FIG311_SORPC, Point(6.2 / 3.2, derivation="6.2 / 3.2 (line 2560)")),
    ClaimDef("download-gain", "Download started 10 s into the upload, its first 10 s: SORPC's throughput / the single "
             "queue's", "rsd-thesis", "Sec. 3.4.3, Fig. 3.12", 2584,
             "Fig. 3.12 shows that average short-term throughput of SORPC increases from 3.2 Mbps to 19.1 Mbps.",
             Point(19.1 / 3.2, derivation="19.1 / 3.2")),
)
_FIG31 = ("As tcp wmem max increases, throughput stays around 20 Mbps; however, RTT increases more than 400 msec when tcp "
          "wmem max is set as 2,560 KBytes.")
_FIG313 = "There is a 10 sec gap between two upload flows."
CLAIMS = CLAIMS + (
    ClaimDef("fig3.1-rtt-increase-at-2560", "One upload alone for 30 s at tcp_wmem max 2,560 KB: its mean RTT − the "
             "path's RTT without an upload (ms)", "rsd-thesis", "Sec. 3.2.1, Fig. 3.1", 2083, _FIG31,
             AtLeast(400.0, unit=" ms", derivation="\"RTT increases more than 400 msec\": the increase over the RTT "
                                                  "without upload traffic, as Fig. 3.2 words it (\"RTT increase\")")),
    ClaimDef("fig3.1-best-wmem", "One upload alone for 30 s per tcp_wmem max: the setting with the best performance "
             "(the largest throughput / mean RTT), KB", "rsd-thesis", "Sec. 3.2.1, Fig. 3.1", 2089,
             "The optimal throughput and delay performance can be achieved when tcp wmem max is smaller than 200 KBytes.",
             AtMost(200.0, unit=" KB", derivation="\"optimal throughput and delay\": the largest power, throughput / "
                                                 "mean RTT, over the sweep of WMEM_SWEEP_KB (KB = 1000 bytes)")),
    ClaimDef("fig3.2-rtt-increase-below-10", "One upload alone for 30 s at tcp_wmem max 2,560 KB, uplinks below 10 "
             "Mbit/s: the smallest mean RTT increase over the path's RTT without an upload (ms)", "rsd-thesis",
             "Sec. 3.2.1, Fig. 3.2", 2112,
             "For instance, RTT increase reaches more than 900 msec when uplink bandwidth is lower than 10 Mbps.",
             AtLeast(900.0, unit=" ms")),
    ClaimDef("fig3.2-worse-at-lower-uplink", "One upload alone at tcp_wmem max 2,560 KB: mean RTT increase per uplink",
             "rsd-thesis", "Sec. 3.2.1, Fig. 3.2", 2108,
             "Fig. 3.2 shows that the upload queueing delay get worsen as uplink bandwidth shrinks.",
             Decreasing(tuple(f"{u:g} Mbit/s" for u in (5.0, 9.0, 15.0, 20.0, 25.0)))),
    ClaimDef("fig3.3-ping-above-1800", "Ping (the messenger, one 100-byte request a second) beside an upload on a 9 "
             "Mbit/s uplink, single queue: its longest RTT (ms)", "rsd-thesis", "Sec. 3.2.2, Fig. 3.3", 2156,
             "RTT of foreground ping application can be reached more than 1.8 sec when background upload throughput is "
             "9 Mbps, which is critical value for delay-sensitive applications.",
             AtLeast(1800.0, unit=" ms", derivation="1.8 sec = 1800 ms")),
    ClaimDef("fig3.13-jain-60", "Two uploads under SORPC, the second 10 s after the first: Jain's index of their "
             "throughputs over the 60 s after the second starts", "rsd-thesis", "Sec. 3.4.4, Fig. 3.13", 2602,
             "Fig. 3.13 shows that fairness is achieved between two flows when the duration is 60 sec and it shows 0.94 "
             "of Jain's fairness index [68].", Point(0.94)),
    ClaimDef("fig3.13-jain-10", "Two uploads under SORPC, the second 10 s after the first: Jain's index of their "
             "throughputs over the 10 s after the second starts", "rsd-thesis", "Sec. 3.4.4, Fig. 3.13", 2606,
             "On the other hand, unfairness between two flows happens when the duration is 10 sec with 0.64 of fairness "
             "index.", Point(0.64)),
)
#: Fig. 3.1's uplink, Mbit/s: the upload throughput the thesis measured at every tcp_wmem max (line 2083).
FIG31_UPLINK_MBPS = 20.0
#: Fig. 3.1's sweep of tcp_wmem max, KB (1000 bytes): the thesis plots values it does not list; a grid about 1.25
#: apart (the claim rule's factor) from 50 KB to Table 3.1's 2,560 KBytes, through the Galaxy S2's 1,220 (line 2100).
WMEM_SWEEP_KB = (50, 64, 80, 100, 125, 160, 200, 250, 320, 400, 500, 640, 800, 1000, 1220, 1600, 2000, 2560)
#: Fig. 3.2's uplinks, Mbit/s (the thesis's axis values are not given): below and above its 10 Mbit/s, through Fig.
#: 3.3's 9 Mbit/s and Table 3.1's 25.
FIG32_UPLINKS = (5.0, 9.0, 15.0, 20.0, 25.0)
#: Fig. 3.3's uplink, Mbit/s ("when background upload throughput is 9 Mbps", line 2156).
FIG33_UPLINK_MBPS = 9.0
#: Fig. 3.13: the second upload's start (line 2598: "a 10 sec gap") and the two durations compared (lines 2602, 2606).
FIG313_GAP = 10.0
FIG313_WINDOWS = (60.0, 10.0)
#: Table 3.1's download bandwidth (line 2385): the UE's fixed downlink rate.
DOWNLINK_MBPS = 100.0
GIVEN = (
    Given("download bandwidth", "100 Mbit/s", "rsd-thesis", "Sec. 3.4, Table 3.1", 2385, "Download Bandwidth: 100 Mbps"),
    Given("upload bandwidth (Fig. 3.11, Fig. 3.12)", "25 Mbit/s", "rsd-thesis", "Sec. 3.4, Table 3.1", 2386,
          "Upload Bandwidth: 25 Mbps"),
    Given("SOR_th", "0.5", "rsd-thesis", "Sec. 3.4, Table 3.1", 2381, "SORth: 0.5"),
    Given("tcp_wmem max", "2,560,000 bytes", "rsd-thesis", "Sec. 3.4, Table 3.1", 2380, "tcp wmem max: 2,560,000 Bytes"),
    Given("uplink (Fig. 3.1)", "20 Mbit/s", "rsd-thesis", "Sec. 3.2.1, Fig. 3.1", 2083,
          "As tcp wmem max increases, throughput stays around 20 Mbps"),
    Given("uplink (Fig. 3.3)", "9 Mbit/s", "rsd-thesis", "Sec. 3.2.2, Fig. 3.3", 2156,
          "RTT of foreground ping application can be reached more than 1.8 sec when background upload throughput is 9 "
          "Mbps"),
    Given("second upload's start (Fig. 3.13)", "10 s after the first", "rsd-thesis", "Sec. 3.4.4, Fig. 3.13", 2598,
          "There is a 10 sec gap between two upload flows."),
)
ASSUMPTIONS = (
    Assumption("fig311_apps", "stream: robustMPC, Pensieve's 300-4300 kbit/s ladder; web: NGMN pages, 2 s reading",
               "the thesis uses YouTube and www.amazon.com from their servers; their players, videos and pages are not "
               "given: the apps of docs/apps.md with their defaults (YouTube's start-up is the first chunk's arrival)"),
    Assumption("txqueue_bytes", 1_500_000,
               "the device transmit queue's size is not given: Linux's default txqueuelen of 1000 packets",
               (1_000_000, 750_000)),
    Assumption("fig31_wmem_sweep_kb", "50 to 2,560 KB, about 1.25 apart",
               "Fig. 3.1 plots tcp_wmem max values it does not list: a grid about 1.25 apart (the claim rule's factor) "
               "through the Galaxy S2's 1,220 KBytes (line 2100) to Table 3.1's 2,560", affects=("fig3.1-best-wmem",)),
    Assumption("fig32_uplinks", "5, 9, 15, 20, 25 Mbit/s",
               "Fig. 3.2 plots uplink values it does not list: two below its 10 Mbps (Fig. 3.3's 9) and three above, "
               "to Table 3.1's 25", affects=("fig3.2-rtt-increase-below-10", "fig3.2-worse-at-lower-uplink")),
    Assumption("uplinks", "5, 10, 25 Mbit/s",
               "Fig. 3.10 runs \"different uplink bandwidth\" without the values; Table 3.1's 25 Mbit/s and two lower "
               "rates"),
)

TCP = {"kind": "tcp", "cc": {"kind": "cubic"}, "tcp": {"wmem_max": WMEM_MAX}}


def upload_scenario(name: str, uplink_mbps: float, wmem_max: int, duration: float, txqueue_bytes: int = 1_500_000) -> dict:
    """Figs. 3.1-3.2: one bulk upload alone (single queue) at `wmem_max` bytes of send buffer."""
    sc = _base(name, "fifo", uplink_mbps, duration, txqueue_bytes)
    sc["flows"][0]["transport"] = {**TCP, "tcp": {"wmem_max": wmem_max}}
    return sc


def two_uploads_scenario(duration: float, txqueue_bytes: int = 1_500_000) -> dict:
    """Fig. 3.13: two bulk uploads under SORPC at Table 3.1's uplink, the second from FIG313_GAP."""
    sc = _base("fig3.13", "sorpc", DOWNLOAD_UPLINK_MBPS, duration, txqueue_bytes)
    sc["flows"] = [{"name": "upload1", "ue": 0, "direction": "uplink", "transport": TCP},
                   {"name": "upload2", "ue": 0, "direction": "uplink", "start_s": FIG313_GAP, "transport": TCP}]
    return sc
VOIP = {"kind": "cbr", "rate_mbps": (160 + 28) * 8 / 0.020 / 1e6, "packet_bytes": 160}
APPS = {
    "messenger": ({"kind": "ping", "interval_ms": 1000, "request_bytes": 100, "response_bytes": 100}, TCP),
    "game": ({"kind": "game", "interval_ms": 100, "request_bytes": 64, "response_bytes": 256}, TCP),
    "voip": ({"kind": "voip", "response_bytes": 160}, VOIP),
}


def _base(name: str, qdisc: str, uplink_mbps: float, duration: float, txqueue_bytes: int = 1_500_000) -> dict:
    q = {"kind": "sorpc", "sor_threshold": 0.5} if qdisc == "sorpc" else {"kind": "fifo"}
    return {
        "name": name,
        "simulation": {"duration_s": duration, "seed": 1, "trace_interval_ms": 100},
        "cell": {"bandwidth_mhz": 20, "scheduler": {"kind": "pf"}},
        "wired": {"remote_delay_ms": 18.0},
        "ues": [{"count": 1, "channel": {"kind": "fixed", "rate_mbps": DOWNLINK_MBPS},
                 "uplink": {"channel": {"kind": "fixed", "rate_mbps": uplink_mbps}, "queue_bytes": txqueue_bytes, "qdisc": q}}],
        "flows": [{"name": "upload", "ue": 0, "direction": "uplink", "transport": TCP}],
    }


def app_scenario(app: str, qdisc: str, uplink_mbps: float, duration: float, upload: bool = True,
                 txqueue_bytes: int = 1_500_000) -> dict:
    """Fig. 3.10: bulk upload (unless `upload` is false) plus interactive `app` at the UE."""
    sc = _base(f"fig3.10-{app}-{qdisc}-{uplink_mbps:g}", qdisc, uplink_mbps, duration, txqueue_bytes)
    if not upload:
        sc["flows"] = []
    cfg, transport = APPS[app]
    sc["flows"].append({"name": app, "ue": 0, "direction": "uplink", "start_s": APP_START, "app": cfg, "transport": transport})
    return sc


def download_scenario(qdisc: str, duration: float, txqueue_bytes: int = 1_500_000) -> dict:
    """Fig. 3.12: bulk upload, then a bulk download from DL_START."""
    sc = _base(f"fig3.12-{qdisc}", qdisc, DOWNLOAD_UPLINK_MBPS, duration, txqueue_bytes)
    sc["flows"].append({"name": "download", "ue": 0, "start_s": DL_START, "transport": {"kind": "tcp", "cc": {"kind": "cubic"}}})
    return sc


QOE_APPS = {
    "youtube": {"kind": "stream", "abr": {"kind": "mpc"}},
    "web": {"kind": "web", "pages": 0, "reading_s": 2.0},
}
QOE_SETUPS = {"no upload": "alone", "single queue": "fifo", "SORPC": "sorpc"}


def qoe_scenario(app: str, setup: str, duration: float, txqueue_bytes: int = 1_500_000) -> dict:
    """Fig. 3.11: the bulk upload (not for `setup` "alone") and download app `app` from APP_START."""
    sc = _base(f"fig3.11-{app}-{setup}", "fifo" if setup == "alone" else setup, DOWNLOAD_UPLINK_MBPS, duration, txqueue_bytes)
    if setup == "alone":
        sc["flows"] = []
    sc["flows"].append({"name": app, "ue": 0, "start_s": APP_START, "app": QOE_APPS[app],
                        "transport": {"kind": "tcp", "cc": {"kind": "cubic"}}})
    return sc


def _keep_qoe(r) -> dict:
    if r.summary.get("streams"):
        s = r.summary["streams"][0]
        return {"value": s["startup_delay_s"], "n": 1}
    w = r.summary["web"][0]
    return {"value": w["load_time_mean_s"], "n": w["pages_loaded"]}


def _keep(r) -> dict:
    out = {}
    for f in r.raw["flows"]:
        out[f["name"]] = {"mbps": f["throughput_mbps"], "per_second": f["per_second_mbps"], "app": f.get("app"),
                          "timeouts": f["timeouts"], "rtt_ms": (f.get("rtt_ms") or {}).get("mean")}
    return out


@experiment("sorpc", "SORPC's dual transmit queue shields interactive apps and download ACKs from a bulk upload", PAPER,
            claims=CLAIMS, assumptions=ASSUMPTIONS, given=GIVEN)
def run(ctx: Context) -> None:
    duration = 30.0
    txq = int(ctx.param("txqueue_bytes"))
    items = []
    for app in APPS:
        items.append((f"{app}-alone", app_scenario(app, "fifo", UPLINK_MBPS[1], duration, upload=False, txqueue_bytes=txq)))
        for up in UPLINK_MBPS:
            for q in ("fifo", "sorpc"):
                items.append((f"{app}-{q}-{up:g}", app_scenario(app, q, up, duration, txqueue_bytes=txq)))
    for q in ("fifo", "sorpc"):
        items.append((f"download-{q}", download_scenario(q, DL_START + DL_WINDOW, txq)))
    for kb in WMEM_SWEEP_KB:
        items.append((f"fig3.1-{kb}", upload_scenario(f"fig3.1-{kb}", FIG31_UPLINK_MBPS, kb * 1000, duration, txq)))
    for up in FIG32_UPLINKS:
        items.append((f"fig3.2-{up:g}", upload_scenario(f"fig3.2-{up:g}", up, WMEM_MAX, duration, txq)))
    items.append((f"messenger-fifo-{FIG33_UPLINK_MBPS:g}", app_scenario("messenger", "fifo", FIG33_UPLINK_MBPS, duration,
                                                                      txqueue_bytes=txq)))
    items.append(("fig3.13", two_uploads_scenario(FIG313_GAP + max(FIG313_WINDOWS), txq)))
    res = dict(zip([label for label, _ in items], ctx.run_many(items, keep=_keep)))
    qoe_items = [(f"fig3.11-{app}-{setup}", qoe_scenario(app, setup, duration, txq)) for app in QOE_APPS
                 for setup in QOE_SETUPS.values()]
    qoe = dict(zip([label for label, _ in qoe_items], ctx.run_many(qoe_items, keep=_keep_qoe)))

    def stat(app: str, q: str, up: float, key: str) -> float:
        return res[f"{app}-{q}-{up:g}"][app]["app"][key]

    med = {(app, up): (stat(app, "fifo", up, "rtt_p50_ms"), stat(app, "sorpc", up, "rtt_p50_ms"))
           for app in APPS for up in UPLINK_MBPS}
    def answered(app: str, q: str) -> Guard:
        """A bound on the longest RTT also holds when the app's requests are never answered:
        every run's requests must be answered (all but the one in flight at the end)."""
        runs = [res[f"{app}-{q}-{up:g}"][app]["app"] for up in UPLINK_MBPS]
        return Guard(f"the {app}'s requests are answered", all(a["completed"] >= a["requests"] - 1 > 0 for a in runs),
                     ", ".join(f"{a['completed']} of {a['requests']}" for a in runs))

    ctx.check("messenger-sorpc-below-300", max(stat("messenger", "sorpc", up, "rtt_max_ms") for up in UPLINK_MBPS),
              guards=(answered("messenger", "sorpc"),),
              detail="longest RTT ms per uplink: " + ", ".join(f"{up:g}: {stat('messenger', 'sorpc', up, 'rtt_max_ms'):.0f}"
                                                             for up in UPLINK_MBPS))
    ctx.check("messenger-single-worse-at-lower-uplink", {f"{up:g} Mbit/s": med[("messenger", up)][0] for up in UPLINK_MBPS},
              detail="median RTT, ms")
    ctx.check("game-single-worst", max(stat("game", "fifo", up, "rtt_max_ms") for up in UPLINK_MBPS),
              detail="longest RTT ms per uplink: " + ", ".join(f"{up:g}: {stat('game', 'fifo', up, 'rtt_max_ms'):.0f}"
                                                             for up in UPLINK_MBPS))
    ctx.check("game-sorpc-below-418", max(stat("game", "sorpc", up, "rtt_max_ms") for up in UPLINK_MBPS),
              guards=(answered("game", "sorpc"),))
    ctx.check("voip-sorpc-lower", {"single queue": min(med[("voip", up)][0] for up in UPLINK_MBPS),
                                   "SORPC": max(med[("voip", up)][1] for up in UPLINK_MBPS)}, detail="median RTT, ms")
    for app in APPS:
        alone = res[f"{app}-alone"][app]["app"]["rtt_p50_ms"]
        ctx.observe(f"{app}-medians", f"{app} beside a bulk upload: median RTT single queue / SORPC, ms, per uplink "
                    f"(alone: {alone:.0f} ms)", ", ".join(f"{up:g} Mbit/s: {med[(app, up)][0]:.0f} / {med[(app, up)][1]:.0f}"
                                                          for up in UPLINK_MBPS))
    alone = res["messenger-alone"]["messenger"]["app"]["rtt_mean_ms"]
    ctx.observe("messenger-alone", "Messenger without an upload: mean RTT, ms (a check of our set-up's base RTT)", alone,
                "\"Without upload traffic, average RTT is around 50 msec.\" (Sec. 3.4.2, line 2502)")

    def short_term(q: str) -> float:
        s = res[f"download-{q}"]["download"]["per_second"]
        window = s[int(DL_START):int(DL_START + DL_WINDOW)]
        return sum(window) / len(window)

    single_dl, sorpc_dl = short_term("fifo"), short_term("sorpc")
    ctx.check("download-gain", sorpc_dl / single_dl if single_dl > 0 else None,
              detail=f"{sorpc_dl:.1f} / {single_dl:.1f} Mbps")
    ctx.observe("download-rates", "Download's first 10 s, Mbit/s: single queue → SORPC (the thesis: 3.2 → 19.1 on its "
                "network)", f"{single_dl:.1f} → {sorpc_dl:.1f}")

    # Figs. 3.1-3.3: the RTT increase is over the path's RTT without an upload (the messenger alone).
    base = res["messenger-alone"]["messenger"]["app"]["rtt_mean_ms"]
    sweep = {kb: res[f"fig3.1-{kb}"]["upload"] for kb in WMEM_SWEEP_KB}
    top = sweep[WMEM_SWEEP_KB[-1]]
    ctx.check("fig3.1-rtt-increase-at-2560", top["rtt_ms"] - base,
              detail=f"{top['rtt_ms']:.0f} − {base:.0f} ms at {top['mbps']:.1f} Mbps",
              guards=(Guard("the upload ran near the thesis's 20 Mbps (≥ 0.9 × the uplink)",
                            top["mbps"] >= 0.9 * FIG31_UPLINK_MBPS, f"{top['mbps']:.1f} Mbps"),))
    power = {kb: f["mbps"] / f["rtt_ms"] for kb, f in sweep.items() if f["rtt_ms"]}
    best = max(power, key=lambda kb: power[kb])
    most = max(f["mbps"] for f in sweep.values())
    ctx.check("fig3.1-best-wmem", float(best),
              detail="Mbps / mean RTT ms per KB: " + ", ".join(f"{kb}: {f['mbps']:.1f}/{f['rtt_ms']:.0f}"
                                                               for kb, f in sweep.items()),
              guards=(Guard("the best setting does not underutilize: its throughput ≥ 0.9 × the sweep's largest",
                            sweep[best]["mbps"] >= 0.9 * most, f"{sweep[best]['mbps']:.1f} vs {most:.1f} Mbps"),))
    rise = {up: res[f"fig3.2-{up:g}"]["upload"]["rtt_ms"] - base for up in FIG32_UPLINKS}
    ctx.check("fig3.2-rtt-increase-below-10", min(v for up, v in rise.items() if up < 10.0),
              detail="ms per uplink: " + ", ".join(f"{up:g}: {v:.0f}" for up, v in rise.items()))
    ctx.check("fig3.2-worse-at-lower-uplink", {f"{up:g} Mbit/s": v for up, v in rise.items()}, detail="ms")
    ping = res[f"messenger-fifo-{FIG33_UPLINK_MBPS:g}"]
    pa = ping["messenger"]["app"]
    ctx.check("fig3.3-ping-above-1800", pa["rtt_max_ms"],
              detail=f"median {pa['rtt_p50_ms']:.0f} ms; upload {ping['upload']['mbps']:.1f} Mbps",
              guards=(Guard("the ping's requests are answered", pa["completed"] >= pa["requests"] - 1 > 0,
                            f"{pa['completed']} of {pa['requests']}"),))
    two = res["fig3.13"]
    for window in FIG313_WINDOWS:
        rates = [sum(two[f]["per_second"][int(FIG313_GAP):int(FIG313_GAP + window)]) / window
                 for f in ("upload1", "upload2")]
        ctx.check(f"fig3.13-jain-{window:g}", jain(rates),
                  detail=f"{rates[0]:.1f} and {rates[1]:.1f} Mbps over {FIG313_GAP:g}-{FIG313_GAP + window:g} s",
                  guards=(Guard("both uploads ran in the window", min(rates) > 0, f"{min(rates):.2f} Mbps"),))

    # Fig. 3.11: start-up delay and page load time.
    q311 = {(app, name): qoe[f"fig3.11-{app}-{setup}"]["value"] for app in QOE_APPS for name, setup in QOE_SETUPS.items()}
    for app in QOE_APPS:
        ctx.check(f"{app}-sorpc-better", {name: q311[(app, name)] for name in QOE_SETUPS},
                  detail=", ".join(f"{name} {q311[(app, name)]:.2f} s" for name in QOE_SETUPS))
        alone = q311[(app, "no upload")]
        ctx.check(f"{app}-single-vs-alone", q311[(app, "single queue")] / alone if alone > 0 else None)
        ctx.check(f"{app}-sorpc-vs-alone", q311[(app, "SORPC")] / alone if alone > 0 else None)
    ctx.observe("web-pages", "Fig. 3.11(b): pages loaded in 25 s (no upload / single queue / SORPC)",
                " / ".join(str(qoe[f"fig3.11-web-{s}"]["n"]) for s in QOE_SETUPS.values()))
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for ax, app, label, paper in ((axes[0], "youtube", "start-up delay (s)", (4.4, 8.0, 6.3)),
                                  (axes[1], "web", "mean page load time (s)", (3.2, 12.0, 6.2))):
        xs = range(len(QOE_SETUPS))
        ax.bar([x - 0.2 for x in xs], [q311[(app, n)] for n in QOE_SETUPS], 0.4, label="ours")
        ax.bar([x + 0.2 for x in xs], paper, 0.4, label="thesis", color="lightgrey")
        ax.set_xticks(list(xs), list(QOE_SETUPS))
        ax.set_ylabel(label)
        ax.legend(fontsize=7)
    fig.suptitle("Fig. 3.11 (ours): download apps beside a 25 Mbit/s upload", fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.out / "sorpc-fig3.11.png", dpi=150)
    plt.close(fig)

    # Fig. 3.10: RTT CDFs per app at the middle uplink rate; medians across rates.
    fig, axes = plt.subplots(2, len(APPS), figsize=(11, 6))
    for col, app in enumerate(APPS):
        ax = axes[0][col]
        for label, color in ((f"{app}-alone", "tab:green"), (f"{app}-fifo-{UPLINK_MBPS[1]:g}", "tab:red"),
                             (f"{app}-sorpc-{UPLINK_MBPS[1]:g}", "tab:blue")):
            a = res[label][app]["app"]
            xs = sorted(a["rtt_ms"]) if "rtt_ms" in a else []
            if xs:
                ax.plot(xs, [(i + 1) / len(xs) for i in range(len(xs))], color=color,
                        label=label.replace(f"{app}-", "").replace("fifo", "single queue"))
        ax.set_xscale("log")
        ax.set_xlabel("RTT (ms)")
        ax.set_title(f"{app}: RTT CDF, uplink {UPLINK_MBPS[1]:g} Mbps", fontsize=9)
        ax.legend(fontsize=7)
        ax = axes[1][col]
        ax.plot(UPLINK_MBPS, [med[(app, u)][0] for u in UPLINK_MBPS], "o-", color="tab:red", label="single queue")
        ax.plot(UPLINK_MBPS, [med[(app, u)][1] for u in UPLINK_MBPS], "o-", color="tab:blue", label="SORPC")
        ax.set_yscale("log")
        ax.set_xlabel("uplink (Mbps)")
        ax.set_ylabel("median RTT (ms)")
        ax.legend(fontsize=7)
    fig.suptitle("Fig. 3.10 (ours): interactive apps with a background upload", fontsize=10)
    fig.tight_layout()
    fig.savefig(ctx.out / "sorpc-fig3.10.png", dpi=150)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 3.5))
    for q, color, name in (("fifo", "tab:red", "single queue"), ("sorpc", "tab:blue", "SORPC")):
        s = res[f"download-{q}"]["download"]["per_second"]
        ax.plot(range(len(s)), s, color=color, label=f"download, {name}")
        u = res[f"download-{q}"]["upload"]["per_second"]
        ax.plot(range(len(u)), u, color=color, ls=":", label=f"upload, {name}")
    ax.axvline(DL_START, color="gray", lw=0.5)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("Mbps")
    ax.legend(fontsize=7)
    ax.set_title(f"Fig. 3.12 (ours): download from {DL_START:g} s during an upload: "
                 f"{single_dl:.1f} vs {sorpc_dl:.1f} Mbps", fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.out / "sorpc-fig3.12.png", dpi=150)
    plt.close(fig)
