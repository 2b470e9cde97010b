"""Reproductions with the generated foreground workloads (issue 6):

- `legilimens-at-scale`: legilimens-transport.txt §VI-B, Figure 12 — 100 UEs, the §V-E mix
  (64 KB / 1 MB / 32 MB at 10 / 30 / 60 % of bytes, CUBIC) at 30 / 60 / 80 % PRB load, with a
  background of CUBIC, BBR, Vegas, LEDBAT, TCP-LP or Legilimens, "ideal priority" and "w/o bg",
  3 seeds.
- `sneaker-at-scale`: sneaker-background-aqm.txt §VI, Figures 7–8 — 100 users, the 10 / 40 /
  50 % mix at 50 % and 20 % load, one continuous background flow: Reno under Sneaker vs TCP-LP
  vs LEDBAT.
- `thesis-randomized`: legilimens-evaluation-thesis.txt §4.2.4, Table II — the randomized
  workload beside a CUBIC or a Legilimens background over the same duration and seed.

Choices where the papers are silent (each also in the README):
- Legilimens §VI-B places "100 devices randomly in a cell" with log-distance propagation,
  a 10 MHz carrier and closed-loop MIMO, and sends "a large number of foreground and
  background flows to each device"; "the 100 devices ... generate a mix of foreground and
  background flows". Ours: 100 UEs uniform over the annulus 50–500 m, 2 spatial layers, no
  fast fading (as in the other Legilimens reproductions, see `legilimens.py`); every UE
  carries foreground and background: the foreground workload's arrivals go to all 100 UEs
  (`[workload] ues = "all"`) and each of the 100 UEs carries one always-on background flow
  (`[[flows]] ues = "all", class = "background"`). A UE's foreground and background packets
  share its one FIFO RLC queue, so a delay-based background sees the delay its own
  device's foreground adds. The paper gives neither the number of background flows per
  device nor which devices carry them; one per device is the smallest "background flows to
  each device". Measured alternative (README): background at
  10 random UEs per seed (`at_scale(ctx, n_bg=10)`); we keep every UE, the paper's wording.
- "Ideal priority" is the paper's "scheduler that strictly prioritizes foreground over
  background traffic but performs PF scheduling within each class". With both classes at
  every UE that takes two parts: the `priority` MAC scheduler (UEs with foreground bytes
  queued are served first, PF among them, then PF among the rest; `RlcQueue::
  foreground_bytes` counts the foreground packets over all of a UE's class queues) and
  per-UE strict-priority class queues, `cell.aqm = { kind = "diffserv" }` with the
  workload's DSCP 0 in the first class and the background's DSCP 1 in the second (tail drop
  each, each bounded by `cell.rlc_queue_bytes`), so that within a UE the foreground leaves
  before the background. A UE picked for its foreground gets the PRBs its whole queue needs,
  so its background may ride along in the same TTI (measured: ideal priority's long
  foreground flows within 3 % of w/o bg). The ideal-priority background runs CUBIC. The
  other schemes use the plain per-UE FIFO (the background's DSCP 1 is then unused).
- The foreground long-flow throughput is each long flow's delivered payload over its life
  (arrival to completion, or to the end of the run), averaged over the long flows; the
  background throughput is the mean over the background flows of their delivered payload
  over the run.
- Sneaker §VI: the cell of `sneaker_common.py` (150 m, 2×2 MIMO, ~70 Mbps, 300 Mbps
  backhaul, Reno); 100 UEs; UE 0 carries the background flow, UEs 1–99 the foreground
  (Reno, as everything in that paper). Foreground throughput is compared per flow: the mean
  throughput of the medium and long flows (the aggregate foreground goodput is the offered
  load whatever the background does, as long as the cell keeps up).
- Thesis §4.2.4: four phones on one 10 MHz macro cell at RSRP −92…−95 dBm. With our radio
  defaults (47.78 dBm over 600 resource elements: 20 dBm per RE; path loss 29.96 dB at 1 m,
  exponent 3.52) an RSRP of −93.5 dBm is 236 m, so the four UEs sit at 240 m (2 layers, no
  fast fading); UEs 0–2 receive the foreground, UE 3 the background.
"""

from __future__ import annotations

import random
import statistics
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import Context, experiment  # noqa: E402
from .sneaker_common import CELL as SNEAKER_CELL, WIRED as SNEAKER_WIRED, RENO, ues as sneaker_ues  # noqa: E402

LEGILIMENS = "Legilimens (legilimens-transport.txt)"
LOADS = (0.3, 0.6, 0.8)
SEEDS = (1, 2, 3)
N_UES = 100
CUBIC = {"kind": "tcp", "cc": {"kind": "cubic"}}
FG_DSCP = 0
BG_DSCP = 1
AT_SCALE_CHANNEL = {"kind": "radio", "distance_range_m": [50.0, 500.0], "layers": 2, "fading": "none"}

#: Background schemes of Figure 12: label -> (background cc or None for no background,
#: MAC scheduler).
SCHEMES: dict[str, tuple[dict | None, str]] = {
    "CUBIC": ({"kind": "cubic"}, "pf"),
    "BBR": ({"kind": "bbr"}, "pf"),
    "Vegas": ({"kind": "vegas"}, "pf"),
    "LEDBAT": ({"kind": "ledbat"}, "pf"),
    "TCP-LP": ({"kind": "tcp_lp"}, "pf"),
    "Legilimens": ({"kind": "legilimens"}, "pf"),
    "Ideal priority": ({"kind": "cubic"}, "priority"),
    "w/o bg": (None, "pf"),
}


def _slug(label: str) -> str:
    return label.lower().replace(" ", "-").replace("/", "").replace("--", "-")


def _grid(ctx: Context, schemes, loads, seeds, scenario, keep) -> dict[tuple[str, float], list[dict]]:
    """Runs `scenario(label, scheme, load, seed)` for every scheme, load and seed (labels
    `<scheme slug>-load<percent>-seed<seed>`, in that order) through `ctx.run_many` and
    returns what `keep` kept, grouped by (scheme, load) in seed order."""
    keys, items = [], []
    for scheme in schemes:
        for load in loads:
            for seed in seeds:
                label = f"{_slug(scheme)}-load{int(load * 100)}-seed{seed}"
                keys.append((scheme, load))
                items.append((label, scenario(label, scheme, load, seed)))
    res: dict[tuple[str, float], list[dict]] = {}
    for key, k in zip(keys, ctx.run_many(items, keep=keep)):
        res.setdefault(key, []).append(k)
    return res


def _mean(xs) -> float:
    xs = list(xs)
    return statistics.fmean(xs) if xs else 0.0


def summarize(result) -> dict[str, Any]:
    """What the workload reproductions keep of a run (in the worker): per-category mean
    flow throughput, flow counts and bytes, background throughput and bytes, PRB use."""
    flows = result.summary["flows"]
    out: dict[str, Any] = {"prb_utilization": result.summary["prb_utilization"]}
    for cat in ("short", "medium", "long", "background"):
        fs = [f for f in flows if f["category"] == cat]
        out[f"{cat}_mbps"] = _mean(f["throughput_mbps"] for f in fs)
        out[f"{cat}_flows"] = len(fs)
        out[f"{cat}_bytes"] = sum(f["bytes_delivered"] for f in fs)
        out[f"{cat}_completed"] = sum(1 for f in fs if f["completed"])
    fct = sorted(f["fct_s"] for f in flows if f["category"] == "short" and f["fct_s"] is not None)
    out["short_fct_p50_s"] = fct[len(fct) // 2] if fct else float("nan")
    out["fg_bytes"] = out["short_bytes"] + out["medium_bytes"] + out["long_bytes"]
    ml = [f["throughput_mbps"] for f in flows if f["category"] in ("medium", "long")]
    out["medium_long_mbps"] = _mean(ml)
    return out


# -- legilimens-at-scale -----------------------------------------------------------------

def at_scale_scenario(name: str, scheme: str, load: float, seed: int, duration: float,
                      bg_ues: str | list[int] = "all") -> dict:
    """Figure 12's set-up for one scheme, load and seed: foreground arrivals to all 100 UEs
    and one always-on background flow at each UE of `bg_ues` (default: every UE)."""
    cc, scheduler = SCHEMES[scheme]
    flows = []
    if cc is not None:
        flows.append({"name": "bg", "ues": bg_ues, "class": "background", "dscp": BG_DSCP,
                      "transport": {"kind": "tcp", "cc": cc}})
    cell: dict[str, Any] = {"bandwidth_mhz": 10, "scheduler": {"kind": scheduler}}
    if scheduler == "priority":
        # Strict priority inside each UE too: foreground packets (DSCP 0) leave before the
        # UE's background packets (DSCP 1).
        cell["aqm"] = {"kind": "diffserv", "classes": [{"dscp": [FG_DSCP]}, {"dscp": [BG_DSCP]}]}
    return {
        "name": name,
        "simulation": {"duration_s": duration, "seed": seed, "trace_interval_ms": 0},
        "cell": cell,
        "ues": [{"count": N_UES, "channel": dict(AT_SCALE_CHANNEL)}],
        "flows": flows,
        "workload": {"ues": "all", "transport": CUBIC, "dscp": FG_DSCP,
                     "arrivals": {"kind": "poisson", "load": load, "preset": "legilimens"}},
    }


@experiment("legilimens-at-scale", "Legilimens at scale: 100 UEs, 30/60/80 % load, background protocols (Fig. 12)",
            f"{LEGILIMENS} Sec. VI-B, Fig. 12")
def run_at_scale(ctx: Context) -> None:
    at_scale(ctx)


def at_scale(ctx: Context, n_bg: int | None = None) -> None:
    """Figure 12 with a background flow at every UE (`n_bg` None, the reproduction) or at
    `n_bg` UEs drawn at random per seed (the variant measured for the README)."""
    duration = 900.0 if ctx.full else 300.0

    def scenario(label: str, scheme: str, load: float, seed: int) -> dict:
        bg_ues = "all" if n_bg is None else sorted(random.Random(seed).sample(range(N_UES), n_bg))
        return at_scale_scenario(label, scheme, load, seed, duration, bg_ues)

    res = _grid(ctx, SCHEMES, LOADS, SEEDS, scenario, summarize)

    def avg(scheme: str, key: str, load: float | None = None) -> float:
        loads = LOADS if load is None else (load,)
        return _mean(_mean(k[key] for k in res[(scheme, ld)]) for ld in loads)

    fg = {s: avg(s, "long_mbps") for s in SCHEMES}
    bg = {s: avg(s, "background_mbps") for s in SCHEMES if SCHEMES[s][0] is not None}
    util = {ld: avg("w/o bg", "prb_utilization", ld) for ld in LOADS}

    for other in ("LEDBAT", "Vegas"):
        ratio = bg["Legilimens"] / bg[other] if bg[other] > 0 else float("inf")
        ctx.claim(f"bg-vs-{other.lower()}", f"Legilimens' background throughput / {other}'s, averaged over loads "
                  f"({bg['Legilimens']:.2f} vs {bg[other]:.2f} Mbps per flow)",
                  "2.2× on average over LPT protocols incl. Vegas (up to 5.8×)", ratio, "≥ 2", ratio >= 2.0)
    gap = 1.0 - fg["Legilimens"] / fg["w/o bg"] if fg["w/o bg"] > 0 else float("nan")
    ctx.claim("fg-near-ideal", f"Foreground long-flow throughput: 1 − Legilimens / w/o bg, averaged over loads "
              f"({fg['Legilimens']:.2f} vs {fg['w/o bg']:.2f} Mbps)",
              "within 12 % (on average) of the ideal schemes", gap, "≤ 0.12", gap <= 0.12)
    worst = sorted((s for s in SCHEMES if s != "w/o bg"), key=lambda s: fg[s])[:2]
    ctx.claim("fair-share-hurts", "The two backgrounds with the lowest foreground long-flow throughput "
              f"({', '.join(f'{s} {fg[s]:.2f}' for s in worst)} Mbps)",
              "CUBIC and BBR suffer from poor foreground throughput", " and ".join(worst), "CUBIC and BBR",
              set(worst) == {"CUBIC", "BBR"})
    ratio = bg["Legilimens"] / bg["Ideal priority"] if bg["Ideal priority"] > 0 else float("inf")
    ctx.claim("bg-vs-ideal-priority", "Legilimens' background throughput / ideal priority's, averaged over loads",
              "1.84×", ratio, "> 1", ratio > 1.0)
    worst_cal = max(abs(util[ld] - ld) for ld in LOADS)
    ctx.claim("load-axis", "Largest distance between achieved and target PRB utilization of the foreground alone (w/o bg), "
              + ", ".join(f"{ld:.0%}→{util[ld]:.1%}" for ld in LOADS),
              "loads of 30/60/80 % PRB utilization", worst_cal, "≤ 0.05", worst_cal <= 0.05)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for ax, key, title, schemes in ((axes[0], "long_mbps", "(a) foreground long flows", list(SCHEMES)),
                                    (axes[1], "background_mbps", "(b) background flows", list(bg))):
        width = 0.8 / len(schemes)
        groups = [*LOADS, None]
        for i, s in enumerate(schemes):
            ys = [avg(s, key, ld) for ld in groups]
            ax.bar([g + i * width for g in range(len(groups))], ys, width, label=s)
        ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))])
        ax.set_xticklabels([f"{ld:.0%}" for ld in LOADS] + ["avg"])
        ax.set_ylabel("throughput per flow (Mbps)")
        ax.set_title(title, fontsize=10)
    axes[0].legend(fontsize=7, ncol=2)
    where = "every UE" if n_bg is None else f"{n_bg} random UEs"
    fig.suptitle(f"Fig. 12 (ours): 100 UEs, foreground at every UE, background at {where}, "
                 f"{len(SEEDS)} seeds × {duration:g} s", fontsize=10)
    fig.tight_layout()
    fig.savefig(ctx.out / "legilimens-at-scale.png", dpi=150)
    plt.close(fig)


# -- sneaker-at-scale ----------------------------------------------------------------------

SNEAKER_SCHEMES = {
    "Sneaker": ({"kind": "sneaker"}, RENO),
    "TCP-LP": ({"kind": "tail_drop"}, {"kind": "tcp", "cc": {"kind": "tcp_lp"}}),
    "LEDBAT": ({"kind": "tail_drop"}, {"kind": "tcp", "cc": {"kind": "ledbat"}}),
}
SNEAKER_LOADS = (0.5, 0.2)


def sneaker_scenario(name: str, scheme: str, load: float, seed: int, duration: float) -> dict:
    """Figures 7–8's set-up for one scheme and load."""
    aqm, bg = SNEAKER_SCHEMES[scheme]
    return {
        "name": name,
        "simulation": {"duration_s": duration, "seed": seed},
        "cell": {**SNEAKER_CELL, "aqm": aqm},
        "wired": SNEAKER_WIRED,
        "ues": [sneaker_ues(N_UES)],
        "flows": [{"name": "background", "ue": 0, "class": "background", "transport": bg}],
        "workload": {"ues": list(range(1, N_UES)), "transport": RENO,
                     "arrivals": {"kind": "poisson", "load": load, "preset": "sneaker"}},
    }


def _series(result) -> dict[str, list[float]]:
    """Per-second foreground (all workload flows) and background goodput, Mbps."""
    n = int(result.summary["duration_s"] + 0.999)
    fg, bg = [0.0] * n, [0.0] * n
    for f in result.raw["flows"]:
        target = bg if f["category"] == "background" else fg
        for i, v in enumerate(f["per_second_mbps"]):
            s = f["series_start_s"] + i
            if s < n:
                target[s] += v
    return {"fg": fg, "bg": bg}


def summarize_with_series(result) -> dict[str, Any]:
    """`summarize` plus the per-second foreground and background series (a few hundred
    numbers)."""
    return {**summarize(result), **_series(result)}


@experiment("sneaker-at-scale", "Sneaker at scale: 100 users, 50 % and 20 % load, one background flow (Figs. 7-8)",
            "Sneaker (sneaker-background-aqm.txt) Sec. VI, Figs. 7-8")
def run_sneaker_at_scale(ctx: Context) -> None:
    duration = 120.0
    seeds = SEEDS
    res = _grid(ctx, SNEAKER_SCHEMES, SNEAKER_LOADS, seeds,
                lambda label, scheme, load, seed: sneaker_scenario(label, scheme, load, seed, duration),
                summarize_with_series)

    def avg(scheme: str, load: float, key: str) -> float:
        return _mean(k[key] for k in res[(scheme, load)])

    fg50 = {s: avg(s, 0.5, "medium_long_mbps") for s in SNEAKER_SCHEMES}
    best = max(fg50, key=fg50.get)
    ctx.claim("fg-best-at-50", "Best foreground throughput at 50 % load (mean of medium and long flows: "
              + ", ".join(f"{s} {v:.2f}" for s, v in fg50.items()) + " Mbps)",
              "Sneaker achieves the best throughput (Fig. 7)", best, "Sneaker", best == "Sneaker")
    bg20 = {s: avg(s, 0.2, "background_mbps") for s in SNEAKER_SCHEMES}
    best = max(bg20, key=bg20.get)
    ctx.claim("bg-most-at-20", "Most background throughput at 20 % load ("
              + ", ".join(f"{s} {v:.2f}" for s, v in bg20.items()) + " Mbps)",
              "Sneaker efficiently utilizes the spare capacity (Fig. 8)", best, "Sneaker", best == "Sneaker")
    bg50 = {s: avg(s, 0.5, "background_mbps") for s in SNEAKER_SCHEMES}
    ctx.claim("bg-yields-at-50", "Background throughput at 50 % load, Sneaker / the lower of TCP-LP's and LEDBAT's ("
              + ", ".join(f"{s} {v:.2f}" for s, v in bg50.items()) + " Mbps)",
              "LEDBAT and TCP-LP do not yield; Sneaker modulates its throughput (Fig. 7)",
              bg50["Sneaker"] / min(bg50["TCP-LP"], bg50["LEDBAT"]) if min(bg50["TCP-LP"], bg50["LEDBAT"]) > 0 else float("inf"),
              "< 1", bg50["Sneaker"] < min(bg50["TCP-LP"], bg50["LEDBAT"]))

    fig, axes = plt.subplots(2, len(SNEAKER_SCHEMES), figsize=(12, 5.5), sharex=True)
    for row, load in enumerate(SNEAKER_LOADS):
        for col, scheme in enumerate(SNEAKER_SCHEMES):
            ax = axes[row][col]
            k = res[(scheme, load)][0]
            ax.plot(k["fg"], color="tab:red", label="foreground")
            ax.plot(k["bg"], color="tab:blue", label="background")
            ax.set_title(f"{scheme}, {load:.0%} load", fontsize=9)
            ax.set_ylabel("Mbps")
    axes[0][0].legend(fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    fig.suptitle("Figs. 7-8 (ours): 100 users, one background flow", fontsize=10)
    fig.tight_layout()
    fig.savefig(ctx.out / "sneaker-at-scale.png", dpi=150)
    plt.close(fig)


# -- thesis-randomized ---------------------------------------------------------------------

THESIS_CHANNEL = {"kind": "radio", "distance_m": 240.0, "layers": 2, "fading": "none"}


def thesis_scenario(name: str, bg_cc: dict, seed: int, duration: float) -> dict:
    """§4.2.4's set-up with the given background controller."""
    return {
        "name": name,
        "simulation": {"duration_s": duration, "seed": seed},
        "cell": {"bandwidth_mhz": 10, "scheduler": {"kind": "pf"}},
        "ues": [{"count": 4, "channel": dict(THESIS_CHANNEL)}],
        "flows": [{"name": "background", "ue": 3, "class": "background", "transport": {"kind": "tcp", "cc": bg_cc}}],
        "workload": {"ues": [0, 1, 2], "transport": CUBIC, "arrivals": {"kind": "randomized"}},
    }


@experiment("thesis-randomized", "Randomized workload: Legilimens vs CUBIC background (thesis Table II)",
            "Legilimens thesis (legilimens-evaluation-thesis.txt) Sec. 4.2.4, Table II")
def run_thesis(ctx: Context) -> None:
    duration = 900.0 if ctx.full else 300.0
    items = [(key, thesis_scenario(key, cc, 1, duration)) for key, cc in
             (("cubic", {"kind": "cubic"}), ("legilimens", {"kind": "legilimens"}))]
    kept = dict(zip(("cubic", "legilimens"), ctx.run_many(items, keep=summarize_with_series)))
    gb = 1e9
    c, lg = kept["cubic"], kept["legilimens"]
    ctx.claim("fg-more", f"Foreground bytes, Legilimens vs CUBIC background ({lg['fg_bytes'] / gb:.3f} vs "
              f"{c['fg_bytes'] / gb:.3f} GB; short/medium/long {lg['short_bytes'] / 1e6:.1f}/{lg['medium_bytes'] / 1e6:.1f}/"
              f"{lg['long_bytes'] / 1e6:.1f} vs {c['short_bytes'] / 1e6:.1f}/{c['medium_bytes'] / 1e6:.1f}/"
              f"{c['long_bytes'] / 1e6:.1f} MB)",
              "1.175 vs 1.031 GB (ratio 1.14)", lg["fg_bytes"] / c["fg_bytes"] if c["fg_bytes"] else float("inf"),
              "> 1", lg["fg_bytes"] > c["fg_bytes"])
    tot_l = lg["fg_bytes"] + lg["background_bytes"]
    tot_c = c["fg_bytes"] + c["background_bytes"]
    ctx.claim("total-not-lower", f"Total bytes, Legilimens vs CUBIC ({tot_l / gb:.3f} vs {tot_c / gb:.3f} GB; background "
              f"{lg['background_bytes'] / gb:.3f} vs {c['background_bytes'] / gb:.3f} GB)",
              "3.421 vs 3.110 GB (background 2.246 vs 2.079 GB)", tot_l / tot_c if tot_c else float("inf"), "≥ 1",
              tot_l >= tot_c)

    fig, axes = plt.subplots(2, 1, figsize=(9, 5), sharex=True)
    for ax, key, name in zip(axes, ("cubic", "legilimens"), ("CUBIC", "Legilimens")):
        ax.plot(kept[key]["fg"], color="tab:red", label="foreground (all workload flows)")
        ax.plot(kept[key]["bg"], color="tab:blue", label=f"background ({name})")
        ax.set_ylabel("Mbps")
        ax.set_title(f"Background {name}", fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("Thesis Figs. 18-19 (ours): randomized workload", fontsize=10)
    fig.tight_layout()
    fig.savefig(ctx.out / "thesis-randomized.png", dpi=150)
    plt.close(fig)
