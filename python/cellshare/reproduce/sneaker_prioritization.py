"""`sneaker-prioritization`: the Sneaker paper's Figure 4.

Setup ([sneaker], Section VI, "Prioritization"): two remote senders, two
users; a continuous Reno background flow to one, a Reno foreground flow to the other that
is switched on and off every 10 s; PF scheduling; compared: PFS only (no active dropping),
RED, Strict Priority ("drops every packet from background flow if there exists foreground
traffic") and Sneaker (Eq. (5)). The paper: Sneaker and Strict Priority yield to the
foreground and serve the background otherwise, PFS only and RED do not; Strict Priority
"causes timeouts", which Sneaker avoids.

Measured per mechanism: the background's share of delivered bytes while the foreground is on
(whole seconds at least 2 s after a switch), how much of the cell the background has back in
the second second after the foreground stops (relative to its own rate before the
foreground first started), and the background flow's retransmission timeouts. The set-up is
in `sneaker_common.py`.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import AtMost, ClaimDef, Context, Guard, Order, Point, experiment  # noqa: E402
from .sneaker_common import AQMS, RENO, assumptions, mean, radio, scenario, sneaker_aqm  # noqa: E402

PAPER = "Sneaker [sneaker] Sec. VI, Fig. 4"
PERIOD = 10.0  # on/off period of the foreground, s
FG_START = 10.0
SETTLE = 2
RECOVERY = 0.70  # "back to 70 % of the cell" in the observations (not a claim)

_FIG4 = ("Sneaker and Strict Priority work as expected, i.e., yield to foreground traffic, and serve background traffic "
         "if there is no foreground traffic. On the other hand, PFS only and RED do not provide such ability.")
CLAIMS = (
    ClaimDef("yield-order", "Background's share of the delivered bytes while the foreground is on: PFS only, RED vs "
             "Sneaker, Strict priority", "sneaker", "Sec. VI, Fig. 4", 157, _FIG4,
             Order(("PFS only", "RED"), ("Sneaker", "Strict priority"))),
    ClaimDef("strict-priority-blocks", "Strict priority: background's share of the delivered bytes while the foreground "
             "is on", "sneaker", "Sec. VI", 149,
             "Strict Priority drops every packet from background flow if there exists foreground traffic",
             AtMost(0.0, scale=1.0, derivation="\"drops every packet\" = 0 of the delivered bytes")),
    ClaimDef("sneaker-serves-idle", "Sneaker: background throughput while the foreground is off / the background's "
             "rate alone under PFS only (before the foreground first starts)", "sneaker", "Sec. VI, Fig. 4", 157, _FIG4,
             Point(1.0, derivation="serving the background with no foreground: Eq. (5)'s rate "
                                   "(c_l/L)·max{1 − τ_F, ε} with τ_F = 0 and L = 1 is c_l, the whole cell: ratio 1")),
    ClaimDef("strict-causes-timeouts", "Background retransmission timeouts: strict priority vs Sneaker", "sneaker",
             "Sec. VI, Fig. 4", 157,
             "We prefer Sneaker over Strict Priority as Strict Priority completely blocks background traffic until "
             "foreground traffic finishes and causes timeouts and connection disconnects, which is not ideal.",
             Order(("Strict priority",), ("Sneaker",))),
    ClaimDef("sneaker-avoids-timeouts", "Sneaker: background retransmission timeouts", "sneaker", "Sec. I", 28,
             "We show that our practical dropping rate avoids TCP timeouts for background flows",
             AtMost(0.0, derivation="\"avoids TCP timeouts\" = 0 timeouts")),
)


def _flows(duration: float) -> list:
    return [
        {"name": "background", "ue": 0, "class": "background", "transport": RENO},
        {"name": "foreground", "ue": 1, "start_s": FG_START, "on_s": PERIOD, "off_s": PERIOD, "transport": RENO},
    ]


def _on_seconds(duration: float) -> list[int]:
    out = []
    for s in range(int(duration)):
        if s < FG_START:
            continue
        t = (s - FG_START) % (2 * PERIOD)
        if SETTLE <= t and t + 1 <= PERIOD:
            out.append(s)
    return out


def _stops(duration: float) -> list[int]:
    """Whole seconds at which the foreground stops, with two seconds of run after them."""
    out, t = [], FG_START + PERIOD
    while t + 2 <= duration:
        out.append(int(t))
        t += 2 * PERIOD
    return out


@experiment("sneaker-prioritization", "Sneaker and strict priority yield to foreground; PFS only and RED do not", PAPER,
            claims=CLAIMS, assumptions=assumptions("epsilon", "beta", "fading", "distance_m"))
def run(ctx: Context) -> None:
    duration = FG_START + (6 if ctx.full else 2) * 2 * PERIOD
    on, stops = _on_seconds(duration), _stops(duration)
    runs = {name: ctx.run(name.lower().replace(" ", "-"), scenario(
        f"fig4-{name}", sneaker_aqm(ctx) if aqm["kind"] == "sneaker" else aqm, 2, _flows(duration), duration,
        **radio(ctx))) for name, aqm in AQMS.items()}

    # "The cell": what it delivers while both UEs are backlogged under PF alone.
    pf = runs["PFS only"]
    cell = mean(pf.flow("background")["per_second_mbps"][s] + pf.flow("foreground")["per_second_mbps"][s] for s in on)
    share, recovery, to70, timeouts = {}, {}, {}, {}
    for name, r in runs.items():
        bg, fg = r.flow("background")["per_second_mbps"], r.flow("foreground")["per_second_mbps"]
        b = sum(bg[s] for s in on)
        f = sum(fg[s] for s in on)
        share[name] = b / (b + f) if b + f > 0 else 0.0
        # Background rate in the second second after each foreground stop, over the cell.
        recovery[name] = min(bg[s + 1] / cell for s in stops)
        # Seconds until the background first delivers 70 % of the cell after a stop (worst).
        to70[name] = max(next((k - s + 1 for k in range(s, min(s + int(PERIOD), len(bg))) if bg[k] >= RECOVERY * cell),
                              float("inf")) for s in stops)
        timeouts[name] = r.flow("background")["timeouts"]

    off = [s for s in range(int(FG_START), int(duration))
           if s not in on and (s - FG_START) % (2 * PERIOD) >= PERIOD + SETTLE]
    alone = mean(runs["PFS only"].flow("background")["per_second_mbps"][s] for s in range(SETTLE, int(FG_START)))
    bg_off = mean(runs["Sneaker"].flow("background")["per_second_mbps"][s] for s in off)
    ctx.check("yield-order", share)
    # Guards: a zero share or no timeout also follows from a background that never ran.
    strict_off = mean(runs["Strict priority"].flow("background")["per_second_mbps"][s] for s in off)
    fg_on = mean(runs["Strict priority"].flow("foreground")["per_second_mbps"][s] for s in on)
    ctx.check("strict-priority-blocks", share["Strict priority"],
              guards=(Guard("the background runs while the foreground is off, and the foreground runs while on",
                            strict_off > 0 and fg_on > 0, f"{strict_off:.1f} Mbps off, {fg_on:.1f} Mbps on"),))
    ctx.check("sneaker-serves-idle", bg_off / alone if alone > 0 else None,
              detail=f"{bg_off:.1f} of {alone:.1f} Mbps over the off periods, {SETTLE} s after each switch")
    ctx.check("strict-causes-timeouts", {"Strict priority": timeouts["Strict priority"], "Sneaker": timeouts["Sneaker"]})
    ctx.check("sneaker-avoids-timeouts", timeouts["Sneaker"],
              guards=(Guard("the Sneaker-managed background runs while the foreground is off", bg_off > 0,
                            f"{bg_off:.1f} Mbps"),))
    ctx.observe("sneaker-share-on", "Sneaker: background's share of the delivered bytes while the foreground is on",
                share["Sneaker"], "Eq. (5) keeps the background at ε·c_l when τ_F ≥ 1 − ε: a share of about ε "
                f"(= {ctx.param('epsilon')}, ours)")
    ctx.observe("sneaker-recovery-1-2s", f"Sneaker: background rate 1–2 s after the foreground stops / the busy cell's "
                f"rate ({cell:.1f} Mbps under PF alone), worst stop", recovery["Sneaker"])
    ctx.observe("sneaker-to-70", f"Sneaker: seconds until the background first delivers {RECOVERY:.0%} of the busy cell "
                "after a stop (worst stop)", to70["Sneaker"])

    fig, axes = plt.subplots(len(runs), 1, figsize=(8, 2.2 * len(runs)), sharex=True)
    for ax, (name, r) in zip(axes, runs.items()):
        for flow, color in (("foreground", "tab:red"), ("background", "tab:blue")):
            series = r.flow(flow)["per_second_mbps"]
            ax.plot(range(len(series)), series, color=color, label=f"{flow} (Reno)")
        ax.set_title(f"{name}: background share while foreground on {share[name]:.0%}, background RTOs "
                     f"{timeouts[name]}, back to 70 % of the cell in ≤ {to70[name]} s", fontsize=9)
        ax.set_ylabel("Mbps")
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("Fig. 4 (ours). Paper: Sneaker and Strict Priority yield, PFS only and RED do not", fontsize=10)
    fig.tight_layout()
    fig.savefig(ctx.out / "sneaker-prioritization.png", dpi=150)
    plt.close(fig)
