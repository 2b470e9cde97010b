"""`sorpc`: SORPC's dual transmit queue against a single queue (rtac-sorpc-dtpa-thesis.txt,
chapter 3).

Setup (Table 3.1, §3.2, §3.4): one UE on an LTE cell (downlink a fixed 55 Mbit/s, as in
chapter 2), its uplink a fixed rate (the thesis varies it: Fig. 3.2, Fig. 3.10 "different
uplink bandwidth"; Table 3.1's 25 Mbit/s and lower), the device transmit queue a drop-tail
`txqueuelen` of 1000 packets (1,500,000 bytes) — one FIFO ("Single Queue") or SORPC's two
(SOR_th = 0.5) —, CUBIC everywhere, `tcp_wmem` max 2,560,000 bytes, the base RTT about 45
ms (the thesis: "without upload traffic, average RTT is around 50 msec").

- **Fig. 3.10**: a bulk TCP upload (iperf) from t = 0 and, from t = 5 s, an interactive app
  at the UE: a messenger (`ping`, 100-byte messages every second), a game (`game`, 64-byte
  requests answered by 256 bytes every 100 ms) or a VoIP call (`voip`, 160-byte datagrams
  every 20 ms, echoed). Measured: the app's per-request RTT (request written to whole
  response received), median over the run.
- **Fig. 3.12**: the bulk upload from t = 0, a bulk TCP download (iperf) started at 10 s;
  measured: the download's throughput over its first 10 s ("experiment duration is 10
  sec").

Claims: with SORPC each app's median RTT is at least 3x lower than with the single queue;
the download gets at least 3x the short-term throughput (the thesis: 3.2 → 19.1 Mbit/s).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import Context, experiment  # noqa: E402

PAPER = "rtac-sorpc-dtpa-thesis.txt ch. 3 (Figs. 3.10, 3.12)"
WMEM_MAX = 2_560_000
RTT_GAIN_MIN = 3.0
TPUT_GAIN_MIN = 3.0
UPLINK_MBPS = (5.0, 10.0, 25.0)
DOWNLOAD_UPLINK_MBPS = 25.0
APP_START = 5.0
DL_START = 10.0
DL_WINDOW = 10.0

TCP = {"kind": "tcp", "cc": {"kind": "cubic"}, "tcp": {"wmem_max": WMEM_MAX}}
VOIP = {"kind": "cbr", "rate_mbps": (160 + 28) * 8 / 0.020 / 1e6, "packet_bytes": 160}
APPS = {
    "messenger": ({"kind": "ping", "interval_ms": 1000, "request_bytes": 100, "response_bytes": 100}, TCP),
    "game": ({"kind": "game", "interval_ms": 100, "request_bytes": 64, "response_bytes": 256}, TCP),
    "voip": ({"kind": "voip", "response_bytes": 160}, VOIP),
}


def _base(name: str, qdisc: str, uplink_mbps: float, duration: float) -> dict:
    q = {"kind": "sorpc", "sor_threshold": 0.5} if qdisc == "sorpc" else {"kind": "fifo"}
    return {
        "name": name,
        "simulation": {"duration_s": duration, "seed": 1, "trace_interval_ms": 100},
        "cell": {"bandwidth_mhz": 20, "scheduler": {"kind": "pf"}},
        "wired": {"remote_delay_ms": 18.0},
        "ues": [{"count": 1, "channel": {"kind": "fixed", "rate_mbps": 55.0},
                 "uplink": {"channel": {"kind": "fixed", "rate_mbps": uplink_mbps}, "queue_bytes": 1_500_000, "qdisc": q}}],
        "flows": [{"name": "upload", "ue": 0, "direction": "uplink", "transport": TCP}],
    }


def app_scenario(app: str, qdisc: str, uplink_mbps: float, duration: float, upload: bool = True) -> dict:
    """Fig. 3.10: bulk upload (unless `upload` is false) plus interactive `app` at the UE."""
    sc = _base(f"fig3.10-{app}-{qdisc}-{uplink_mbps:g}", qdisc, uplink_mbps, duration)
    if not upload:
        sc["flows"] = []
    cfg, transport = APPS[app]
    sc["flows"].append({"name": app, "ue": 0, "direction": "uplink", "start_s": APP_START, "app": cfg, "transport": transport})
    return sc


def download_scenario(qdisc: str, duration: float) -> dict:
    """Fig. 3.12: bulk upload, then a bulk download from DL_START."""
    sc = _base(f"fig3.12-{qdisc}", qdisc, DOWNLOAD_UPLINK_MBPS, duration)
    sc["flows"].append({"name": "download", "ue": 0, "start_s": DL_START, "transport": {"kind": "tcp", "cc": {"kind": "cubic"}}})
    return sc


def _keep(r) -> dict:
    out = {}
    for f in r.raw["flows"]:
        out[f["name"]] = {"mbps": f["throughput_mbps"], "per_second": f["per_second_mbps"], "app": f.get("app"),
                          "timeouts": f["timeouts"]}
    return out


@experiment("sorpc", "SORPC's dual transmit queue shields interactive apps and download ACKs from a bulk upload", PAPER)
def run(ctx: Context) -> None:
    duration = 30.0
    items = []
    for app in APPS:
        items.append((f"{app}-alone", app_scenario(app, "fifo", UPLINK_MBPS[1], duration, upload=False)))
        for up in UPLINK_MBPS:
            for q in ("fifo", "sorpc"):
                items.append((f"{app}-{q}-{up:g}", app_scenario(app, q, up, duration)))
    for q in ("fifo", "sorpc"):
        items.append((f"download-{q}", download_scenario(q, DL_START + DL_WINDOW)))
    res = dict(zip([label for label, _ in items], ctx.run_many(items, keep=_keep)))

    med = {}
    for app in APPS:
        alone = res[f"{app}-alone"][app]["app"]["rtt_p50_ms"]
        for up in UPLINK_MBPS:
            single = res[f"{app}-fifo-{up:g}"][app]["app"]
            sorpc = res[f"{app}-sorpc-{up:g}"][app]["app"]
            med[(app, up)] = (single["rtt_p50_ms"], sorpc["rtt_p50_ms"])
            gain = single["rtt_p50_ms"] / sorpc["rtt_p50_ms"] if sorpc["rtt_p50_ms"] else float("inf")
            ctx.claim(f"{app}-{up:g}-rtt", f"{app}, uplink {up:g} Mbps, bulk upload: median RTT single queue / SORPC "
                      f"({single['rtt_p50_ms']:.0f} / {sorpc['rtt_p50_ms']:.0f} ms; alone {alone:.0f} ms; "
                      f"completed {single['completed']}/{single['requests']} vs {sorpc['completed']}/{sorpc['requests']})",
                      "SORPC well below single queue (Fig. 3.10)", gain, f"≥ {RTT_GAIN_MIN}", gain >= RTT_GAIN_MIN)

    def short_term(q: str) -> float:
        s = res[f"download-{q}"]["download"]["per_second"]
        window = s[int(DL_START):int(DL_START + DL_WINDOW)]
        return sum(window) / len(window)

    single_dl, sorpc_dl = short_term("fifo"), short_term("sorpc")
    gain = sorpc_dl / single_dl if single_dl > 0 else float("inf")
    ctx.claim("download-short-term", f"download started during the upload, first {DL_WINDOW:g} s: SORPC / single queue "
              f"({sorpc_dl:.1f} / {single_dl:.1f} Mbps)", "5.97x (19.1 / 3.2 Mbps, Fig. 3.12)", gain,
              f"≥ {TPUT_GAIN_MIN}", gain >= TPUT_GAIN_MIN)

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
