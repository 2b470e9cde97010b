"""`lpt-fifo-vs-cell`: Legilimens' Figure 2, the motivating result.

Setup (legilimens-transport Sec. II-B): two clients; a persistent background flow (LEDBAT,
then TCP-LP) to one, an on/off CUBIC foreground flow to the other that "joins every 60
seconds, transmits for 30 seconds and sleeps for 30 seconds". Once behind a Wi-Fi-like
shared FIFO, once in a PF-scheduled LTE cell with per-UE queues. The paper: on the shared
FIFO both low-priority protocols yield to CUBIC; in the cell they do not behave the same
way (LEDBAT does not exploit the cell properly, TCP-LP takes capacity from the
foreground), because per-UE queues hide the foreground's queueing from the background
flow's delay signal.

Choices (the paper gives no link parameters for its testbeds): a 20 Mbps FIFO with a
512 KB buffer (deep enough for CUBIC to push queueing delay past LEDBAT's 100 ms target);
a 10 MHz cell with both UEs 300 m from the base station on the default radio channel.
Shares are computed over whole seconds at least 2 s away from a foreground switch.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import Context, experiment  # noqa: E402

PAPER = "Legilimens (legilimens-transport.txt) Sec. II-B, Fig. 2"
FG_START, ON, OFF = 20.0, 30.0, 30.0
SETTLE = 2  # seconds excluded after each foreground switch
FIFO_MBPS = 20.0


def _scenario(access: str, bg_cc: str, duration: float) -> dict:
    flows = [
        {"name": "background", "ue": 0, "class": "background",
         "transport": {"kind": "tcp", "cc": {"kind": bg_cc}}},
        {"name": "foreground", "ue": 1, "start_s": FG_START, "on_s": ON, "off_s": OFF,
         "transport": {"kind": "tcp", "cc": {"kind": "cubic"}}},
    ]
    sc: dict = {"name": f"{bg_cc}-{access}", "simulation": {"duration_s": duration, "seed": 1}, "flows": flows}
    if access == "fifo":
        sc["shared_fifo"] = {"rate_mbps": FIFO_MBPS, "queue_bytes": 524288}
        sc["ues"] = [{"count": 2}]
    else:
        sc["cell"] = {"bandwidth_mhz": 10, "scheduler": {"kind": "pf"}}
        sc["ues"] = [{"count": 2, "channel": {"kind": "radio", "distance_m": 300.0}}]
    return sc


def _phases(duration: float) -> tuple[list[int], list[int]]:
    """Whole seconds inside foreground-on and foreground-off periods (after the first
    foreground start), at least SETTLE s from a switch."""
    on, off = [], []
    for s in range(int(duration)):
        if s < FG_START:
            continue
        t = (s - FG_START) % (ON + OFF)
        if SETTLE <= t and t + 1 <= ON:
            on.append(s)
        elif ON + SETTLE <= t and t + 1 <= ON + OFF:
            off.append(s)
    return on, off


def _shares(result, seconds: list[int]) -> tuple[float, float]:
    """(background share of delivered bytes, background Mbps) over `seconds`."""
    bg = result.flow("background")["per_second_mbps"]
    fg = result.flow("foreground")["per_second_mbps"]
    b = sum(bg[s] for s in seconds)
    f = sum(fg[s] for s in seconds)
    return (b / (b + f) if b + f > 0 else 0.0), b / len(seconds)


@experiment("lpt-fifo-vs-cell", "LEDBAT and TCP-LP yield on a shared FIFO, not in a PF cell", PAPER)
def run(ctx: Context) -> None:
    duration = FG_START + (4 if ctx.full else 3) * (ON + OFF)
    on, off = _phases(duration)
    runs = {}
    for cc in ("ledbat", "tcp_lp"):
        for access in ("fifo", "cell"):
            runs[(cc, access)] = ctx.run(f"{cc}-{access}", _scenario(access, cc, duration))

    for cc, name in (("ledbat", "LEDBAT"), ("tcp_lp", "TCP-LP")):
        fifo_on, _ = _shares(runs[(cc, "fifo")], on)
        _, fifo_off_mbps = _shares(runs[(cc, "fifo")], off)
        cell_on, _ = _shares(runs[(cc, "cell")], on)
        ctx.claim(f"{cc}-fifo-yields", f"Shared FIFO: {name} share of delivered bytes while CUBIC is on",
                  "yields (Fig. 2, left)", fifo_on, "≤ 0.20", fifo_on <= 0.20)
        util = fifo_off_mbps / FIFO_MBPS
        ctx.claim(f"{cc}-fifo-fills", f"Shared FIFO: {name} throughput / link rate while CUBIC is off",
                  "uses the spare capacity (Fig. 2, left)", util, "≥ 0.80", util >= 0.80)
        ratio = cell_on / fifo_on if fifo_on > 0 else float("inf")
        ctx.claim(f"{cc}-cell-does-not-yield", f"PF cell: {name} share while CUBIC is on / its share on the FIFO",
                  "does not yield the same way (Fig. 2, right)", ratio, "≥ 2 (and cell share > 0.20)",
                  ratio >= 2.0 and cell_on > 0.20)

    fig, axes = plt.subplots(2, 2, figsize=(10, 6), sharex=True)
    for row, (cc, name) in enumerate((("ledbat", "LEDBAT"), ("tcp_lp", "TCP-LP"))):
        for col, (access, label) in enumerate((("fifo", f"shared FIFO ({FIFO_MBPS:g} Mbps)"), ("cell", "PF cell (10 MHz)"))):
            ax = axes[row][col]
            r = runs[(cc, access)]
            for flow, color in (("foreground", "tab:red"), ("background", "tab:blue")):
                series = r.flow(flow)["per_second_mbps"]
                lbl = "CUBIC (foreground, on/off)" if flow == "foreground" else f"{name} (background)"
                ax.plot(range(len(series)), series, color=color, label=lbl)
            ax.set_title(f"{name} — {label}", fontsize=10)
            ax.set_ylabel("Mbps")
            ax.legend(fontsize=8, loc="upper right")
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(ctx.out / "lpt-fifo-vs-cell.png", dpi=150)
    plt.close(fig)
