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

from . import Assumption, AtMost, ClaimDef, Context, Order, experiment  # noqa: E402

PAPER = "Legilimens [legilimens] Sec. II-B, Fig. 2"
FG_START, ON, OFF = 20.0, 30.0, 30.0
SETTLE = 2  # seconds excluded after each foreground switch
FIFO_MBPS = 20.0


def _scenario(access: str, bg_cc: str | None, duration: float, queue_bytes: int = 524288,
              distance_m: float = 300.0) -> dict:
    flows = []
    if bg_cc is not None:
        flows.append({"name": "background", "ue": 0, "class": "background",
                      "transport": {"kind": "tcp", "cc": {"kind": bg_cc}}})
    flows.append({"name": "foreground", "ue": 1, "start_s": FG_START, "on_s": ON, "off_s": OFF,
                  "transport": {"kind": "tcp", "cc": {"kind": "cubic"}}})
    sc: dict = {"name": f"{bg_cc or 'cubic-alone'}-{access}", "simulation": {"duration_s": duration, "seed": 1}, "flows": flows}
    if access == "fifo":
        sc["shared_fifo"] = {"rate_mbps": FIFO_MBPS, "queue_bytes": queue_bytes}
        sc["ues"] = [{"count": 2}]
    else:
        sc["cell"] = {"bandwidth_mhz": 10, "scheduler": {"kind": "pf"}}
        sc["ues"] = [{"count": 2, "channel": {"kind": "radio", "distance_m": distance_m}}]
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


CLAIMS = (
    ClaimDef("ledbat-cell-idle", "PF cell: LEDBAT's throughput while CUBIC is off / the idle cell's rate (CUBIC alone)",
             "legilimens", "Sec. II-B, Fig. 2a", 62,
             "it performs poorly in cellular (i.e., the background flow does not use any spare capacity when foreground "
             "flow is absent)",
             AtMost(0.0, scale=1.0, derivation="\"does not use any spare capacity\" = 0 of the idle cell")),
    ClaimDef("tcp_lp-cell-competes", "TCP-LP's share of the delivered bytes while CUBIC is on: PF cell vs shared FIFO",
             "legilimens", "Sec. II-B, Fig. 2b", 62,
             "While TCP-LP also performs well in Wi-Fi, it competes with and removes significant capacity from the "
             "foreground flow in the cellular network",
             Order(("cell",), ("FIFO",))),
)


ASSUMPTIONS = (
    Assumption("fifo_queue_bytes", 524288,
               "not given (\"a simple Wi-Fi testbed\"); deep enough for CUBIC to push the queueing delay past LEDBAT's "
               "100 ms target at 20 Mbps", (131072,), ("tcp_lp-cell-competes",)),
    Assumption("distance_m", 300.0,
               "not given for Fig. 2; the Legilimens reproductions' distance (the thesis puts its real-network phones "
               "\"approximately 150 meters\" away, line 354)", (150.0,)),
)


@experiment("lpt-fifo-vs-cell", "LEDBAT and TCP-LP yield on a shared FIFO, not in a PF cell", PAPER, claims=CLAIMS,
            assumptions=ASSUMPTIONS)
def run(ctx: Context) -> None:
    duration = FG_START + (4 if ctx.full else 3) * (ON + OFF)
    on, off = _phases(duration)
    setup = {"queue_bytes": ctx.param("fifo_queue_bytes"), "distance_m": ctx.param("distance_m")}
    runs = {}
    for cc in ("ledbat", "tcp_lp"):
        for access in ("fifo", "cell"):
            runs[(cc, access)] = ctx.run(f"{cc}-{access}", _scenario(access, cc, duration, **setup))
    # The idle cell's rate for one UE: the on/off CUBIC flow alone, while on.
    alone = ctx.run("cubic-alone-cell", _scenario("cell", None, duration, **setup))
    cell_mbps = sum(alone.flow("foreground")["per_second_mbps"][s] for s in on) / len(on)

    thesis = ("thesis Sec. 2.4, line 260 (its Fig. 1(b)): \"TCP-LP calculates a very low decision threshold, thereby "
              "sending very less traffic ... whereas LEDBAT ends up competing with the foreground flow\"")
    for cc, name in (("ledbat", "LEDBAT"), ("tcp_lp", "TCP-LP")):
        fifo_on, _ = _shares(runs[(cc, "fifo")], on)
        _, fifo_off_mbps = _shares(runs[(cc, "fifo")], off)
        cell_on, _ = _shares(runs[(cc, "cell")], on)
        _, cell_off_mbps = _shares(runs[(cc, "cell")], off)
        ctx.observe(f"{cc}-fifo-share-on", f"Shared FIFO: {name}'s share of the delivered bytes while CUBIC is on", fifo_on,
                    "\"clearly yielding to foreground flow\" (Sec. II-B, Fig. 2, left; no number)")
        ctx.observe(f"{cc}-fifo-fills", f"Shared FIFO: {name}'s throughput while CUBIC is off / the link rate",
                    fifo_off_mbps / FIFO_MBPS, "(Fig. 2, left; no number)")
        ctx.observe(f"{cc}-cell-share-on", f"PF cell: {name}'s share of the delivered bytes while CUBIC is on", cell_on,
                    thesis)
        if cc == "ledbat":
            ctx.check("ledbat-cell-idle", cell_off_mbps / cell_mbps if cell_mbps > 0 else None,
                      detail=f"{cell_off_mbps:.1f} of {cell_mbps:.1f} Mbps")
        else:
            ctx.check("tcp_lp-cell-competes", {"cell": cell_on, "FIFO": fifo_on})
            ctx.observe("tcp_lp-cell-idle", "PF cell: TCP-LP's throughput while CUBIC is off / the idle cell's rate",
                        cell_off_mbps / cell_mbps if cell_mbps > 0 else 0.0, thesis)

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
