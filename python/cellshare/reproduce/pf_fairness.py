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

from . import ClaimDef, Context, Point, experiment  # noqa: E402

PAPER = "Legilimens [legilimens] Sec. II-A; Sneaker Sec. II"


def _saturating(rate_mbps: float) -> dict:
    # UDP-like constant bit rate above the UE's capacity: the queue never drains.
    return {"kind": "cbr", "rate_mbps": rate_mbps}


CLAIMS = (
    ClaimDef("equal-split", "2 UEs, equal fixed channels, saturated, PF: the smaller UE share of the cell",
             "legilimens", "Sec. II-A", 49,
             "So, if all clients have the same signal quality and infinite data to send, scheduling will effectively "
             "become round-robin.",
             Point(0.5, derivation="round-robin between two UEs gives each 1/2 of the cell")),
)


@experiment("pf-fairness", "PF scheduler: fairness and multi-user diversity", PAPER, claims=CLAIMS)
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
    shares = [u["throughput_mbps"] / cell for u in equal.raw["ues"]]
    ctx.check("equal-split", min(shares), detail=f"shares {', '.join(f'{s:.3f}' for s in shares)}")

    # 2. Fading radio channels, three mid-range UEs (their CQI moves with the fading; nearer
    #    UEs sit at CQI 15 where peaks cannot be exploited) and one weak UE: PF vs RR vs MT,
    #    at vehicular speed (30 km/h: coherence ~20 ms, well inside PF's 100-TTI window) and
    #    at pedestrian speed (3 km/h: coherence ~200 ms, longer than the window, so PF's
    #    average follows the fading and little diversity gain is left). The papers give no
    #    number for any of this: observations.
    def ues(speed: float) -> list:
        return [
            {"count": 3, "channel": {"kind": "radio", "distance_range_m": [450.0, 750.0], "speed_kmh": speed}},
            {"count": 1, "channel": {"kind": "radio", "distance_m": 1000.0, "speed_kmh": speed}},
        ]

    results = {}
    for speed in (30.0, 3.0):
        for kind in ("pf", "rr", "mt"):
            results[(speed, kind)] = ctx.run(f"radio-{kind}-{speed:g}kmh", {
                "name": f"radio-{kind}-{speed:g}kmh",
                "simulation": {"duration_s": dur, "seed": 7},
                "cell": {"scheduler": {"kind": kind}},
                "ues": ues(speed),
                "flows": [{"ues": "all", "transport": _saturating(60.0)}],
            })
    total = {k: sum(u["throughput_mbps"] for u in r.raw["ues"]) for k, r in results.items()}
    weak = {k: r.raw["ues"][3]["throughput_mbps"] for k, r in results.items()}
    gain = total[(30.0, "pf")] / total[(30.0, "rr")]
    ctx.observe("pf-diversity", "Fading at 30 km/h: PF cell throughput / RR cell throughput", gain,
                "\"clients with good signal quality achieve high throughput (i.e., utilization)\" (Sec. II-A; no number)")
    slow_gain = total[(3.0, "pf")] / total[(3.0, "rr")]
    ctx.observe("diversity-at-3kmh", "Fading at 3 km/h: PF cell throughput / RR cell throughput", slow_gain,
                "(not in the papers: fading slower than PF's 100-TTI window leaves less to exploit)")
    ratio = weak[(30.0, "pf")] / weak[(30.0, "rr")] if weak[(30.0, "rr")] > 0 else 0.0
    ctx.observe("pf-serves-weak", "Fading at 30 km/h: weak UE's throughput under PF / under RR", ratio,
                "\"even clients with poor signal quality will eventually get their turn\" (Sec. II-A; no number)")
    mt_share = weak[(30.0, "mt")] / weak[(30.0, "rr")] if weak[(30.0, "rr")] > 0 else 0.0
    ctx.observe("mt-starves-weak", "Fading at 30 km/h: weak UE's throughput under MT / under RR", mt_share,
                "(not in the papers; Sneaker Sec. II only names MT)")

    # Figure: per-UE throughput under each scheduler.
    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.25
    n = len(results[(30.0, "pf")].raw["ues"])
    for i, kind in enumerate(("rr", "pf", "mt")):
        vals = [u["throughput_mbps"] for u in results[(30.0, kind)].raw["ues"]]
        ax.bar([x + (i - 1) * width for x in range(n)], vals, width, label=kind.upper())
    ax.set_xticks(range(n), [f"UE {u}" + (" (weak)" if u == 3 else "") for u in range(n)])
    ax.set_ylabel("throughput (Mbps)")
    ax.set_title("Saturated UEs on fading radio channels (30 km/h)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(ctx.out / "pf-fairness.png", dpi=150)
    plt.close(fig)
