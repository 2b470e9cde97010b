"""`sneaker-prioritization`: the Sneaker paper's Figure 4.

Setup (sneaker-background-aqm.txt, Section VI, "Prioritization"): two remote senders, two
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

from . import Context, experiment  # noqa: E402
from .sneaker_common import AQMS, RENO, mean, scenario  # noqa: E402

PAPER = "Sneaker (sneaker-background-aqm.txt) Sec. VI, Fig. 4"
PERIOD = 10.0  # on/off period of the foreground, s
FG_START = 10.0
SETTLE = 2
SHARE_MAX = 0.15
RECOVERY_MIN = 0.70


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


@experiment("sneaker-prioritization", "Sneaker and strict priority yield to foreground; PFS only and RED do not", PAPER)
def run(ctx: Context) -> None:
    duration = FG_START + (6 if ctx.full else 2) * 2 * PERIOD
    on, stops = _on_seconds(duration), _stops(duration)
    runs = {name: ctx.run(name.lower().replace(" ", "-"), scenario(f"fig4-{name}", aqm, 2, _flows(duration), duration))
            for name, aqm in AQMS.items()}

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
        to70[name] = max(next((k - s + 1 for k in range(s, min(s + int(PERIOD), len(bg))) if bg[k] >= RECOVERY_MIN * cell),
                              float("inf")) for s in stops)
        timeouts[name] = r.flow("background")["timeouts"]

    for name in ("Sneaker", "Strict priority"):
        ctx.claim(f"{name.lower().replace(' ', '-')}-yields", f"{name}: background share of delivered bytes while foreground is on",
                  "yields (Fig. 4)", share[name], f"≤ {SHARE_MAX}", share[name] <= SHARE_MAX)
    for name in ("PFS only", "RED"):
        ctx.claim(f"{name.lower().replace(' ', '-')}-does-not-yield", f"{name}: background share while foreground is on",
                  "does not yield (Fig. 4)", share[name], f"> {SHARE_MAX}", share[name] > SHARE_MAX)
    ctx.claim("sneaker-recovers", f"Sneaker: background rate 1–2 s after the foreground stops / the busy cell's rate "
              f"({cell:.1f} Mbps under PF alone), worst stop; seconds to reach {RECOVERY_MIN:.0%}: {to70['Sneaker']}",
              "recaptures spare capacity (Fig. 4)", recovery["Sneaker"], f"≥ {RECOVERY_MIN}",
              recovery["Sneaker"] >= RECOVERY_MIN)
    ctx.claim("sneaker-fewer-timeouts", "Sneaker: background retransmission timeouts (fewer than strict priority's)",
              "strict priority \"causes timeouts\"", timeouts["Sneaker"],
              f"< {timeouts['Strict priority']} (strict priority)", timeouts["Sneaker"] < timeouts["Strict priority"])

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
