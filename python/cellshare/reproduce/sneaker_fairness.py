"""`sneaker-fairness`: the Sneaker paper's Figure 6.

Setup (sneaker-background-aqm.txt, Section VI, "Fairness"): (i) five background flows and no
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

from . import Context, experiment  # noqa: E402
from .sneaker_common import RENO, jain, mean, scenario  # noqa: E402

PAPER = "Sneaker (sneaker-background-aqm.txt) Sec. VI, Fig. 6"
JOIN = 20.0
N = 5
JAIN_MIN = 0.95


def _periods() -> list[tuple[int, range]]:
    """(flows present, seconds measured) per period."""
    return [(k, range(int(k * JOIN) - 10, int(k * JOIN))) for k in range(1, N + 1)]


@experiment("sneaker-fairness", "Sneaker: background flows share spare capacity fairly; foreground flows share fairly", PAPER)
def run(ctx: Context) -> None:
    duration = N * JOIN
    bg_only = [{"name": f"bg{k}", "ue": k, "class": "background", "start_s": k * JOIN, "transport": RENO} for k in range(N)]
    a = ctx.run("a-background", scenario("fig6a", {"kind": "sneaker"}, N, bg_only, duration))
    fg_mix = [{"name": "bg", "ue": 0, "class": "background", "transport": RENO}]
    fg_mix += [{"name": f"fg{k}", "ue": 1 + k, "start_s": k * JOIN, "transport": RENO} for k in range(N)]
    b = ctx.run("b-foreground", scenario("fig6b", {"kind": "sneaker"}, N + 1, fg_mix, duration))

    def period_jain(r, names) -> list[float]:
        out = []
        for k, secs in _periods():
            present = names[:k]
            out.append(jain(mean(r.flow(n)["per_second_mbps"][s] for s in secs) for n in present))
        return out

    ja = period_jain(a, [f"bg{k}" for k in range(N)])
    jb = period_jain(b, [f"fg{k}" for k in range(N)])
    ctx.claim("background-fair", "(a) five background flows joining every 20 s: worst per-period Jain index",
              "converge to the fair share (Fig. 6a)", min(ja), f"≥ {JAIN_MIN}", min(ja) >= JAIN_MIN)
    ctx.claim("foreground-fair", "(b) five foreground flows beside one background flow: worst per-period Jain index "
              "among the foreground flows", "fairly shared (Fig. 6b)", min(jb[1:]), f"≥ {JAIN_MIN}", min(jb[1:]) >= JAIN_MIN)
    bg_share = []
    for k, secs in _periods():
        bgr = mean(b.flow("bg")["per_second_mbps"][s] for s in secs)
        tot = bgr + sum(mean(b.flow(f"fg{i}")["per_second_mbps"][s] for s in secs) for i in range(k))
        bg_share.append(bgr / tot if tot > 0 else 0.0)
    ctx.claim("background-share", "(b) background share of the cell, worst period (ε = 0.1 of its own capacity)",
              "(no number in the paper)", max(bg_share), "(reported)", True)

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
