"""Legilimens reproductions (legilimens-transport.txt, Sections V-D and VI-D/E):
`legilimens-onoff` (Figure 7), `legilimens-queues` (Figure 13), `legilimens-fairness`
(Figure 14) and `legilimens-sensitivity` (Figure 15).

Cell setup shared by all four (the paper's simulation setup, Section VI-A: a 10 MHz
carrier with closed-loop MIMO and log-distance propagation): 10 MHz, PF scheduler, UEs 300 m
from the base station on the radio channel with two spatial layers and **no fast fading**.
ns-3's LTE module adds fast fading only when a fading trace is loaded and the paper names
only log-distance propagation (PhantomNet, Figure 7's second testbed, likewise "log-distance
path loss"). With Rayleigh fading, deep fades (no service at all for several TTIs) look to
Algorithm 1 exactly like a competitor's TTIs; that case is measured and reported as a limit
(`legilimens-onoff`'s `rayleigh` run), not hidden.

Timing of `legilimens-onoff` follows Figure 2's workload (`lpt-fifo-vs-cell`): the CUBIC
foreground starts at 20 s and is on 30 s, off 30 s. Figure 7's own axis is not given in the
text.
"""

from __future__ import annotations

import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import Context, experiment  # noqa: E402
from ..api import Result  # noqa: E402

PAPER = "Legilimens (legilimens-transport.txt)"
FG_START, ON, OFF = 20.0, 30.0, 30.0
SETTLE = 2  # seconds excluded after each foreground switch when computing shares
CHANNEL = {"kind": "radio", "distance_m": 300.0, "layers": 2, "fading": "none"}
BACKGROUNDS = [
    ("legilimens", {"kind": "legilimens"}, "Legilimens"),
    ("legilimens-active", {"kind": "legilimens", "variant": "active"}, "Legilimens (active)"),
    ("legilimens-passive", {"kind": "legilimens", "variant": "passive"}, "Legilimens (passive)"),
    ("ledbat", {"kind": "ledbat"}, "LEDBAT"),
    ("tcp_lp", {"kind": "tcp_lp"}, "TCP-LP"),
]


def _cell(n_ues: int, channel: dict | None = None) -> dict:
    return {
        "cell": {"bandwidth_mhz": 10, "scheduler": {"kind": "pf"}},
        "ues": [{"count": n_ues, "channel": dict(channel or CHANNEL)}],
    }


def _onoff_scenario(name: str, bg_cc: dict | None, duration: float, seed: int = 1, channel: dict | None = None) -> dict:
    flows = []
    if bg_cc is not None:
        flows.append({"name": "background", "ue": 0, "class": "background", "transport": {"kind": "tcp", "cc": bg_cc}})
    flows.append({"name": "foreground", "ue": 1, "start_s": FG_START, "on_s": ON, "off_s": OFF,
                  "transport": {"kind": "tcp", "cc": {"kind": "cubic"}}})
    return {"name": name, "simulation": {"duration_s": duration, "seed": seed}, **_cell(2, channel), "flows": flows}


def _phases(duration: float) -> tuple[list[int], list[int], list[float]]:
    """Whole seconds inside foreground-on and -off periods (after the first start, at least
    SETTLE s from a switch), and the times at which the foreground stops."""
    on, off, stops = [], [], []
    for s in range(int(duration)):
        if s < FG_START:
            continue
        t = (s - FG_START) % (ON + OFF)
        if SETTLE <= t and t + 1 <= ON:
            on.append(s)
        elif ON + SETTLE <= t and t + 1 <= ON + OFF:
            off.append(s)
    t = FG_START + ON
    while t + OFF <= duration:
        stops.append(t)
        t += ON + OFF
    return on, off, stops


def _mean(series: list[float], seconds: list[int]) -> float:
    return sum(series[s] for s in seconds) / len(seconds) if seconds else 0.0


def _trace(result: Result, name: str) -> tuple[list[float], list[float]]:
    f = result.flow(name)
    return [s["t_s"] for s in f["trace"]], [s["mbps"] for s in f["trace"]]


def _recapture_times(result: Result, stops: list[float], target_mbps: float) -> list[float]:
    """Per foreground stop: seconds until the background's 500 ms moving average (from the
    100 ms trace) first reaches `target_mbps`; OFF if it never does in that off period."""
    t, mbps = _trace(result, "background")
    out = []
    for stop in stops:
        found = OFF
        for i in range(4, len(t)):
            if stop + 0.5 <= t[i] <= stop + OFF and sum(mbps[i - 4:i + 1]) / 5 >= target_mbps:
                found = t[i] - 0.5 - stop
                break
        out.append(max(found, 0.0))
    return out


def _onoff_metrics(result: Result, alone: Result, duration: float) -> dict:
    on, off, stops = _phases(duration)
    bg = result.flow("background")["per_second_mbps"]
    fg = result.flow("foreground")["per_second_mbps"]
    fg_alone_on = _mean(alone.flow("foreground")["per_second_mbps"], on)
    b_on, f_on = _mean(bg, on), _mean(fg, on)
    rec = _recapture_times(result, stops, 0.7 * fg_alone_on)
    return {
        "bg_share_on": b_on / (b_on + f_on) if b_on + f_on > 0 else 0.0,
        "fg_ratio_on": f_on / fg_alone_on if fg_alone_on > 0 else 0.0,
        "bg_off_ratio": _mean(bg, off) / fg_alone_on if fg_alone_on > 0 else 0.0,
        "recapture_mean_s": statistics.fmean(rec) if rec else float("nan"),
        "recapture_max_s": max(rec) if rec else float("nan"),
        "fg_alone_mbps": fg_alone_on,
    }


@experiment("legilimens-onoff", "Legilimens yields to an on/off CUBIC flow and recaptures the cell (Fig. 7)",
            f"{PAPER} Sec. V-D, Fig. 7")
def run_onoff(ctx: Context) -> None:
    duration = FG_START + (6 if ctx.full else 3) * (ON + OFF)
    alone = ctx.run("cubic-alone", _onoff_scenario("cubic-alone", None, duration))
    runs: dict[str, Result] = {}
    metrics: dict[str, dict] = {}
    for key, cc, _ in BACKGROUNDS:
        runs[key] = ctx.run(key, _onoff_scenario(key, cc, duration))
        metrics[key] = _onoff_metrics(runs[key], alone, duration)
    # The limit: the same run on a Rayleigh-fading channel (3 km/h).
    fading = dict(CHANNEL, fading="rayleigh")
    alone_f = ctx.run("cubic-alone-rayleigh", _onoff_scenario("cubic-alone-rayleigh", None, duration, channel=fading))
    runs["legilimens-rayleigh"] = ctx.run("legilimens-rayleigh",
                                          _onoff_scenario("legilimens-rayleigh", {"kind": "legilimens"}, duration, channel=fading))
    metrics["legilimens-rayleigh"] = _onoff_metrics(runs["legilimens-rayleigh"], alone_f, duration)

    m = metrics["legilimens"]
    ctx.claim("yields", "Legilimens' share of the cell's delivered bytes while CUBIC is on",
              "backs off completely (Fig. 7)", m["bg_share_on"], "≤ 0.10", m["bg_share_on"] <= 0.10)
    ctx.claim("foreground-unharmed", "CUBIC's throughput while on, beside Legilimens / CUBIC alone",
              "foreground unaffected (Fig. 7)", m["fg_ratio_on"], "≥ 0.85", m["fg_ratio_on"] >= 0.85)
    ctx.claim("recaptures", "Seconds after CUBIC stops until Legilimens carries ≥ 70 % of the cell "
              f"(mean over off periods; max {m['recapture_max_s']:.2f} s)",
              "efficiently recaptures spare capacity (Fig. 7)", m["recapture_mean_s"], "≤ 2 s",
              m["recapture_mean_s"] <= 2.0)
    ctx.claim("uses-spare", "Legilimens' throughput while CUBIC is off / the cell (CUBIC alone)",
              "uses the spare capacity; NORMAL is capped at 80 % of the estimate ([Th])",
              m["bg_off_ratio"], "≥ 0.70", m["bg_off_ratio"] >= 0.70)
    others = min(metrics["ledbat"]["bg_share_on"], metrics["tcp_lp"]["bg_share_on"])
    ctx.claim("better-than-lpt", "Legilimens' share while CUBIC is on / the smaller of LEDBAT's and TCP-LP's",
              "LEDBAT and TCP-LP do not yield in a PF cell (Fig. 2), Legilimens does (Fig. 7)",
              m["bg_share_on"] / others if others > 0 else float("inf"), "< 0.5",
              others > 0 and m["bg_share_on"] / others < 0.5)
    act, pas = metrics["legilimens-active"], metrics["legilimens-passive"]
    total = {k: runs[k].flow("background")["bytes_delivered"] for k in ("legilimens-active", "legilimens-passive")}
    ctx.claim("active-takes-more", "Active variant's / passive variant's background bytes over the run",
              "active: more background throughput ([Th])",
              total["legilimens-active"] / total["legilimens-passive"] if total["legilimens-passive"] else float("inf"),
              "> 1", total["legilimens-active"] > total["legilimens-passive"])
    ctx.claim("passive-yields-more", "Passive variant's / active variant's share while CUBIC is on",
              "passive: yields whenever anything else is present ([Th])",
              pas["bg_share_on"] / act["bg_share_on"] if act["bg_share_on"] else 0.0, "< 1",
              pas["bg_share_on"] < act["bg_share_on"])

    (ctx.out / "metrics.md").write_text(
        "| background | share while CUBIC on | CUBIC on / alone | bg off / cell | recapture mean (s) | recapture max (s) |\n"
        "|---|---|---|---|---|---|\n"
        + "".join(f"| {k} | {v['bg_share_on']:.3f} | {v['fg_ratio_on']:.3f} | {v['bg_off_ratio']:.3f} | "
                  f"{v['recapture_mean_s']:.2f} | {v['recapture_max_s']:.2f} |\n" for k, v in metrics.items()))

    panels = [(k, label) for k, _, label in BACKGROUNDS] + [("legilimens-rayleigh", "Legilimens, Rayleigh fading")]
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 2.1 * len(panels)), sharex=True)
    for ax, (key, label) in zip(axes, panels):
        r = runs[key]
        for flow, color, lbl in (("foreground", "tab:red", "CUBIC (foreground, on/off)"), ("background", "tab:blue", label)):
            t, mbps = _trace(r, flow)
            ax.plot(t, mbps, color=color, lw=0.8, label=lbl)
        ax.set_ylabel("Mbps")
        ax.set_title(f"{label}: share while CUBIC on {metrics[key]['bg_share_on']:.1%}", fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(ctx.out / "legilimens-onoff.png", dpi=150)
    plt.close(fig)

    # Why the flow yielded: Legilimens' mode and capacity estimate over one on/off cycle.
    r = runs["legilimens"]
    tr = r.flow("background")["trace"]
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(10, 4), sharex=True)
    a1.step([s["t_s"] for s in tr], [s["mode"] for s in tr], where="post", lw=0.8)
    a1.set_yticks([0, 1, 2, 3, 4], ["NORMAL", "GAP I", "GAP II", "GAP III", "back-off"])
    a2.plot([s["t_s"] for s in tr], [s["estimate"] if s["estimate"] is not None else float("nan") for s in tr], lw=0.8)
    a2.set_ylabel("capacity (Mbps)")
    a2.set_xlabel("time (s)")
    a1.set_xlim(FG_START - 5, FG_START + ON + OFF)
    fig.tight_layout()
    fig.savefig(ctx.out / "legilimens-modes.png", dpi=150)
    plt.close(fig)


@experiment("legilimens-queues", "Legilimens keeps its base-station queue nearly empty (Fig. 13)", f"{PAPER} Sec. VI-C, Fig. 13")
def run_queues(ctx: Context) -> None:
    join, duration = 5.0, 30.0 if ctx.full else 20.0
    ccs = [("cubic", "CUBIC"), ("ledbat", "LEDBAT"), ("vegas", "Vegas"), ("legilimens", "Legilimens")]
    empty_bytes = 15_000  # ~10 packets: "nearly empty"
    frac_empty, mean_kb, traces = {}, {}, {}
    for cc, _ in ccs:
        sc = {"name": f"queues-{cc}", "simulation": {"duration_s": duration, "seed": 1}, **_cell(2),
              "flows": [{"name": "background", "ue": 0, "class": "background", "transport": {"kind": "tcp", "cc": {"kind": cc}}},
                        {"name": "foreground", "ue": 1, "start_s": join, "transport": {"kind": "tcp", "cc": {"kind": "cubic"}}}]}
        r = ctx.run(cc, sc)
        q = [s for s in r.raw["ues"][0]["trace"]]
        traces[cc] = ([s["t_s"] for s in q], [s["queue_bytes"] / 1000 for s in q])
        after = [s["queue_bytes"] for s in q if s["t_s"] >= join + 1.0]
        frac_empty[cc] = sum(b <= empty_bytes for b in after) / len(after)
        mean_kb[cc] = sum(after) / len(after) / 1000
    leg = frac_empty["legilimens"]
    ctx.claim("nearly-empty", "Fraction of 100 ms samples after the foreground joins with Legilimens' queue ≤ 15 KB",
              "nearly empty queues for long periods (Fig. 13)", leg, "≥ 0.8", leg >= 0.8)
    for cc, name in ccs[:-1]:
        ctx.claim(f"{cc}-queues", f"Same fraction for {name}",
                  "higher queue lengths (Fig. 13)", frac_empty[cc], f"< Legilimens' ({leg:.2f})", frac_empty[cc] < leg)
    (ctx.out / "metrics.md").write_text(
        "| background | fraction ≤ 15 KB | mean queue (KB) |\n|---|---|---|\n"
        + "".join(f"| {cc} | {frac_empty[cc]:.3f} | {mean_kb[cc]:.1f} |\n" for cc, _ in ccs))
    fig, axes = plt.subplots(len(ccs), 1, figsize=(8, 1.8 * len(ccs)), sharex=True)
    for ax, (cc, name) in zip(axes, ccs):
        t, kb = traces[cc]
        ax.plot(t, kb, lw=0.8)
        ax.axvline(join, color="k", ls="--", lw=0.8)
        ax.set_ylabel("KB")
        ax.set_title(f"{name}: background UE's base-station queue", fontsize=9)
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(ctx.out / "legilimens-queues.png", dpi=150)
    plt.close(fig)


def _jain(xs: list[float]) -> float:
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else 0.0


@experiment("legilimens-fairness", "Legilimens flows to one UE share fairly (Fig. 14)", f"{PAPER} Sec. VI-D, Fig. 14")
def run_fairness(ctx: Context) -> None:
    def scenario(n: int, gap: float, tail: float) -> tuple[dict, float]:
        duration = gap * (n - 1) + tail
        flows = [{"name": f"leg{i}", "ue": 0, "class": "background", "start_s": gap * i,
                  "transport": {"kind": "tcp", "cc": {"kind": "legilimens"}}} for i in range(n)]
        return {"name": f"fairness-{n}", "simulation": {"duration_s": duration, "seed": 1}, **_cell(1), "flows": flows}, duration

    def bytes_between(r: Result, name: str, a: float, b: float) -> float:
        t, mbps = _trace(r, name)
        return sum(m for ti, m in zip(t, mbps) if a < ti <= b)

    # Figure 14: 4 flows started 20 s apart; Jain's index in each period with 2, 3, 4 flows.
    sc, duration = scenario(4, 20.0, 20.0)
    r4 = ctx.run("staggered-4", sc)
    paper = {2: 0.999, 3: 0.993, 4: 0.996}
    for n in (2, 3, 4):
        a, b = 20.0 * (n - 1) + 5.0, 20.0 * n if n < 4 else duration
        j = _jain([bytes_between(r4, f"leg{i}", a, b) for i in range(n)])
        ctx.claim(f"jain-{n}", f"Jain's index over {n} concurrent flows ({a:.0f}-{b:.0f} s)", f"{paper[n]}", j, "≥ 0.99", j >= 0.99)
    # Larger populations: 8 and 24 flows started 2 s apart, measured over 40 s with all active.
    for n in (8, 24):
        sc, duration = scenario(n, 2.0, 45.0)
        r = ctx.run(f"staggered-{n}", sc)
        a = 2.0 * (n - 1) + 5.0
        j = _jain([bytes_between(r, f"leg{i}", a, duration) for i in range(n)])
        ctx.claim(f"jain-{n}", f"Jain's index over {n} concurrent flows ({a:.0f}-{duration:.0f} s)",
                  "converge to fair shares (Sec. VI-D)", j, "≥ 0.99", j >= 0.99)
    fig, ax = plt.subplots(figsize=(8, 3))
    for i in range(4):
        t, mbps = _trace(r4, f"leg{i}")
        w = 10  # 1 s moving average of the 100 ms trace
        ax.plot(t[w - 1:], [sum(mbps[k - w + 1:k + 1]) / w for k in range(w - 1, len(mbps))], lw=0.8, label=f"flow {i + 1}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("Mbps (1 s average)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(ctx.out / "legilimens-fairness.png", dpi=150)
    plt.close(fig)


@experiment("legilimens-sensitivity", "Sensitivity to λ, M and T (Fig. 15)", f"{PAPER} Sec. VI-E, Fig. 15")
def run_sensitivity(ctx: Context) -> None:
    """The paper sweeps on its large-scale workload (Sec. VI-B, the `legilimens-at-scale`
    reproduction of the workloads issue); here each parameter is swept on the on/off setup of
    `legilimens-onoff`, others at their defaults, and both throughputs are normalised to the
    default parameters' run as in Figure 15."""
    duration = FG_START + (4 if ctx.full else 2) * (ON + OFF)
    on, off, _ = _phases(duration)
    sweeps = {
        "lambda": [0.0, 0.25, 0.5, 0.75, 1.0],
        "burst_bytes": [25 * 1024, 50 * 1024, 100 * 1024],
        "wait_ms": [200, 250, 300],
    }
    defaults = {"lambda": 0.5, "burst_bytes": 51200, "wait_ms": 250}
    cache: dict[tuple, tuple[float, float]] = {}

    def measure(param: str, value) -> tuple[float, float]:
        cfg = dict(defaults, **{param: value})
        key = tuple(sorted(cfg.items()))
        if key not in cache:
            label = "default" if cfg == defaults else f"{param}-{value}"
            r = ctx.run(label, _onoff_scenario(label, {"kind": "legilimens", **cfg}, duration))
            fg = _mean(r.flow("foreground")["per_second_mbps"], on)
            bg = (sum(r.flow("background")["per_second_mbps"][s] for s in on + off)) / len(on + off)
            cache[key] = (fg, bg)
        return cache[key]

    base_fg, base_bg = measure("lambda", 0.5)
    results: dict[str, list[tuple[float, float, float]]] = {}
    for param, values in sweeps.items():
        results[param] = [(v, measure(param, v)[0] / base_fg, measure(param, v)[1] / base_bg) for v in values]
    lam = {v: (f, b) for v, f, b in results["lambda"]}
    ctx.claim("lambda-0-hurts-foreground", "Foreground throughput at λ = 0, normalised to λ = 0.5",
              "λ = 0 behaves like a fair-share protocol; foreground suffers", lam[0.0][0], "< 0.95", lam[0.0][0] < 0.95)
    ctx.claim("lambda-1-starves-background", "Background throughput at λ = 1, normalised to λ = 0.5",
              "λ = 1: background flows starve", lam[1.0][1], "< 0.8", lam[1.0][1] < 0.8)
    stable = [abs(f - 1.0) for v, f, _ in results["lambda"] if 0.25 <= v <= 0.75]
    ctx.claim("lambda-stable-range", "Largest foreground change for λ in [0.25, 0.75]",
              "wide stable range 0.25-0.75", max(stable), "≤ 0.10", max(stable) <= 0.10)
    for param, name, paper in (("burst_bytes", "M in 25-100 KB", "variations within 20 %"),
                               ("wait_ms", "T in 200-300 ms", "stable between 200 and 300 ms")):
        dev = max(abs(f - 1.0) for _, f, _ in results[param])
        ctx.claim(f"{param}-stable", f"Largest foreground change for {name}", paper, dev, "≤ 0.20", dev <= 0.20)
    lines = ["| parameter | value | foreground (norm.) | background (norm.) |", "|---|---|---|---|"]
    for param, rows in results.items():
        lines += [f"| {param} | {v} | {f:.3f} | {b:.3f} |" for v, f, b in rows]
    (ctx.out / "metrics.md").write_text("\n".join(lines) + "\n")
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.2))
    for ax, (param, label) in zip(axes, (("lambda", "busy threshold λ"), ("burst_bytes", "probe size M (KB)"), ("wait_ms", "probe interval T (ms)"))):
        rows = results[param]
        xs = [v / 1024 if param == "burst_bytes" else v for v, _, _ in rows]
        ax.plot(xs, [f for _, f, _ in rows], "o-", label="foreground")
        ax.plot(xs, [b for _, _, b in rows], "s-", label="background")
        ax.axhline(1.0, color="k", lw=0.5)
        ax.set_xlabel(label)
        ax.set_ylabel("normalised throughput")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(ctx.out / "legilimens-sensitivity.png", dpi=150)
    plt.close(fig)
