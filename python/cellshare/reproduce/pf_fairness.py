"""`pf-fairness`: what a proportional-fair scheduler does, checked against RR and MT.

The PF description shared by the Legilimens and Sneaker papers (Section II-A of
legilimens-transport): the scheduler maximizes achievable rate over averaged throughput;
with equal channels and saturated queues it "effectively becomes round-robin"; clients
with poor signal "will eventually get their turn when their signal peaks (fairness)" while
good channels give utilization (multi-user diversity). Max throughput serves only the best
channel and starves the rest.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import Context, experiment  # noqa: E402

PAPER = "Legilimens (legilimens-transport.txt) Sec. II-A; Sneaker Sec. II"


def _saturating(rate_mbps: float) -> dict:
    # UDP-like constant bit rate above the UE's capacity: the queue never drains.
    return {"kind": "cbr", "rate_mbps": rate_mbps}


@experiment("pf-fairness", "PF scheduler: fairness and multi-user diversity", PAPER)
def run(ctx: Context) -> None:
    dur = 60.0 if ctx.full else 20.0
    # 1. Two UEs, equal fixed channels, PF: each gets half the cell.
    equal = ctx.run("equal-fixed-pf", {
        "name": "pf-equal-fixed",
        "simulation": {"duration_s": dur, "seed": 1},
        "cell": {"scheduler": {"kind": "pf"}},
        "ues": [{"count": 2, "channel": {"kind": "fixed", "rate_mbps": 20.0}}],
        "flows": [{"ues": "all", "transport": _saturating(30.0)}],
    })
    cell = sum(u["throughput_mbps"] for u in equal.raw["ues"])
    worst = max(abs(u["throughput_mbps"] / (cell / 2) - 1.0) for u in equal.raw["ues"])
    ctx.claim("equal-split", "2 UEs, equal channels, PF: each UE's share of the cell vs half",
              "\"effectively round-robin\" (equal split)", worst, "|share/half − 1| ≤ 0.02", worst <= 0.02)

    # 2. Fading radio channels, one weak UE among strong ones: PF vs RR vs MT.
    ues = [
        {"count": 3, "channel": {"kind": "radio", "distance_range_m": [150.0, 400.0]}},
        {"count": 1, "channel": {"kind": "radio", "distance_m": 900.0}},
    ]
    results = {}
    for kind in ("pf", "rr", "mt"):
        results[kind] = ctx.run(f"radio-{kind}", {
            "name": f"radio-{kind}",
            "simulation": {"duration_s": dur, "seed": 7},
            "cell": {"scheduler": {"kind": kind}},
            "ues": ues,
            "flows": [{"ues": "all", "transport": _saturating(60.0)}],
        })
    total = {k: sum(u["throughput_mbps"] for u in r.raw["ues"]) for k, r in results.items()}
    weak = {k: r.raw["ues"][3]["throughput_mbps"] for k, r in results.items()}
    gain = total["pf"] / total["rr"]
    ctx.claim("pf-diversity", "Fading channels: PF cell throughput / RR cell throughput",
              "PF > RR (multi-user diversity)", gain, "> 1", gain > 1.0)
    ratio = weak["pf"] / weak["rr"] if weak["rr"] > 0 else 0.0
    ctx.claim("pf-serves-weak", "Fading channels: weak UE's throughput under PF / under RR",
              "weak clients \"eventually get their turn\"", ratio, "≥ 0.8", ratio >= 0.8)
    mt_share = weak["mt"] / weak["rr"] if weak["rr"] > 0 else 0.0
    ctx.claim("mt-starves-weak", "Fading channels: weak UE's throughput under MT / under RR",
              "max throughput starves weak UEs", mt_share, "≤ 0.05", mt_share <= 0.05)

    # Figure: per-UE throughput under each scheduler.
    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.25
    n = len(results["pf"].raw["ues"])
    for i, kind in enumerate(("rr", "pf", "mt")):
        vals = [u["throughput_mbps"] for u in results[kind].raw["ues"]]
        ax.bar([x + (i - 1) * width for x in range(n)], vals, width, label=kind.upper())
    ax.set_xticks(range(n), [f"UE {u}" + (" (weak)" if u == 3 else "") for u in range(n)])
    ax.set_ylabel("throughput (Mbps)")
    ax.set_title("Saturated UEs on fading radio channels")
    ax.legend()
    fig.tight_layout()
    fig.savefig(ctx.out / "pf-fairness.png", dpi=150)
    plt.close(fig)
