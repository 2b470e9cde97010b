"""`sneaker-fairness`: the Sneaker paper's Figure 6.

Setup ([sneaker], Section VI, "Fairness"): (i) five background flows and no
foreground, (ii) five foreground flows beside one background flow; in both, a new flow
joins every 20 s; Sneaker, PF, Reno. The paper: background flows "quickly converge to their
fair-share throughput as new flows are added" (a), and the rate "is fairly shared by
foreground flows" (b).

Each flow has its own UE at the same distance (the paper's per-flow queues, see
`sneaker_common.py`). Jain's index is computed per 20 s period over the flows present, on
the period's last 10 s (after convergence).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import ClaimDef, Context, Point, experiment, jain  # noqa: E402
from .sneaker_common import RENO, assumptions, mean, radio, scenario, sneaker_aqm  # noqa: E402

PAPER = "Sneaker [sneaker] Sec. VI, Fig. 6"
JOIN = 20.0
N = 5
_FAIR = Point(1.0, derivation="a fair share: each of the k flows present gets 1/k of their total (ratio 1)")
CLAIMS = (
    ClaimDef("background-fair-share", "(a) five background flows joining every 20 s: the flow farthest from its fair "
             "share, its throughput / the fair share (worst period)", "sneaker", "Sec. VI, Fig. 6(a)", 169,
             "We see that the background flows quickly converge to their fair-share throughput as new flows are added.",
             _FAIR),
    ClaimDef("foreground-fair-share", "(b) five foreground flows beside one background flow: the foreground flow "
             "farthest from its fair share of the foreground's total, its throughput / that share (worst period)",
             "sneaker", "Sec. VI, Fig. 6(b)", 169,
             "Figure 6(b) shows that rate is fairly shared by foreground flows in the second scenario using Sneaker.",
             _FAIR),
)


def _periods() -> list[tuple[int, range]]:
    """(flows present, seconds measured) per period."""
    return [(k, range(int(k * JOIN) - 10, int(k * JOIN))) for k in range(1, N + 1)]


@experiment("sneaker-fairness", "Sneaker: background flows share spare capacity fairly; foreground flows share fairly", PAPER,
            claims=CLAIMS, assumptions=assumptions("epsilon", "beta", "fading", "distance_m"))
def run(ctx: Context) -> None:
    duration = N * JOIN
    bg_only = [{"name": f"bg{k}", "ue": k, "class": "background", "start_s": k * JOIN, "transport": RENO} for k in range(N)]
    a = ctx.run("a-background", scenario("fig6a", sneaker_aqm(ctx), N, bg_only, duration, **radio(ctx)))
    fg_mix = [{"name": "bg", "ue": 0, "class": "background", "transport": RENO}]
    fg_mix += [{"name": f"fg{k}", "ue": 1 + k, "start_s": k * JOIN, "transport": RENO} for k in range(N)]
    b = ctx.run("b-foreground", scenario("fig6b", sneaker_aqm(ctx), N + 1, fg_mix, duration, **radio(ctx)))

    def period_jain(r, names) -> list[float]:
        out = []
        for k, secs in _periods():
            present = names[:k]
            out.append(jain(mean(r.flow(n)["per_second_mbps"][s] for s in secs) for n in present))
        return out

    def worst_share(r, names, first: int) -> float:
        """Over the periods from `first` flows on: the per-flow throughput / fair share
        farthest from 1 (in ratio terms)."""
        worst = 1.0
        for k, secs in _periods()[first - 1:]:
            rates = [mean(r.flow(n)["per_second_mbps"][s] for s in secs) for n in names[:k]]
            fair = sum(rates) / k
            for x in rates:
                v = x / fair if fair > 0 else 0.0
                if v == 0.0 or max(v, 1 / v) > max(worst, 1 / worst):
                    worst = v
        return worst

    bgs, fgs = [f"bg{k}" for k in range(N)], [f"fg{k}" for k in range(N)]
    ja, jb = period_jain(a, bgs), period_jain(b, fgs)
    ctx.check("background-fair-share", worst_share(a, bgs, 2), detail="Jain per period " + ", ".join(f"{j:.3f}" for j in ja))
    ctx.check("foreground-fair-share", worst_share(b, fgs, 2), detail="Jain per period " + ", ".join(f"{j:.3f}" for j in jb))
    bg_share = []
    for k, secs in _periods():
        bgr = mean(b.flow("bg")["per_second_mbps"][s] for s in secs)
        tot = bgr + sum(mean(b.flow(f"fg{i}")["per_second_mbps"][s] for s in secs) for i in range(k))
        bg_share.append(bgr / tot if tot > 0 else 0.0)
    ctx.observe("background-share", "(b) the background's share of the cell, largest over the periods", max(bg_share),
                f"(no number in the paper; Eq. (5) keeps it near ε = {ctx.param('epsilon')}, ours)")

    fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for ax, r, names, title, jj in ((axes[0], a, [f"bg{k}" for k in range(N)], "(a) 5 background flows", ja),
                                    (axes[1], b, ["bg"] + [f"fg{k}" for k in range(N)], "(b) 5 foreground flows + 1 background", jb)):
        for n in names:
            s = r.flow(n)["per_second_mbps"]
            ax.plot(range(len(s)), s, label=n, linestyle="--" if n == "bg" else "-")
        ax.set_title(f"{title}; Jain per period: " + ", ".join(f"{j:.2f}" for j in jj), fontsize=9)
        ax.set_ylabel("Mbps")
        ax.legend(fontsize=7, ncol=6, loc="upper right")
    axes[1].set_xlabel("time (s)")
    fig.suptitle("Fig. 6 (ours). Paper: fair shares in both cases", fontsize=10)
    fig.tight_layout()
    fig.savefig(ctx.out / "sneaker-fairness.png", dpi=150)
    plt.close(fig)
