"""`dtpa`: TCP unfairness in a multi-hop LLN and DTPA's fix (thesis chapter 4, Figures
4.4 and 4.6–4.9).

Setup (rtac-sorpc-dtpa thesis §4.4.1): TelosB motes (CC2420 radio, TinyOS BLIP), a FIFO
transmit queue of 15 packets per node, 2 packets/s of TCP uplink per node towards a TCP end
host behind the border router; a 6-hop chain-like tree of 10 nodes (Fig. 4.5/4.7) and a
30-node tree of at most 6 hops (Fig. 4.3(a), 4.9). The thesis reports: with TCP Reno the
6-hop node gets about 20 % of the 1-hop node's throughput, node 1 (next to the border
router) overflows most (almost 2000 times); DTPA raises fairness while the total goodput
drops by 23 % (10 nodes).

Choices (the thesis gives no more detail): the motes' MAC follows TinyOS's CC2420 CSMA and
BLIP's link retries (see the `[lln.mac]` comments of the presets); all nodes share one
office, so every node hears every other and the tree is fixed by static parents (the thesis
forms its topologies over the same motes); 64-byte segments fill one 127-byte frame;
2 % random frame loss. DTPA's c is not given by the thesis ("future work"); the claims use
c = the application rate (2 segments/s: Eq. (4.5) then asks every node for exactly what it
offers) and a sweep over c shows the trade-off. Every number is a mean over seeds.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import Assumption, ClaimDef, Context, Decreasing, Order, OutOfReach, Point, experiment  # noqa: E402

PAPER = "rtac-sorpc-dtpa thesis, chapter 4 (§4.4, Figs. 4.4, 4.6–4.9)"
APP_RATE = 2.0

_FIG48 = ("Fig. 4.8(a) shows that DTPA shows better performance in terms of fairness while overall goodput decreases by "
          "23 %.")
_FIG49 = "DTPA shows better performance in terms of fairness by setting TXP of nodes close to the LBR as a high value."
CLAIMS = (
    ClaimDef("reno-6hop-vs-1hop", "Reno, 10 nodes: goodput of the 6-hop node / the 1-hop node", "rsd-thesis",
             "Sec. 4.4.3, Fig. 4.6", 3133,
             "throughput of a node in 6 hop from the LBR only achieves only 20 % of a node in 1 hop from the LBR.",
             Point(0.20, derivation="20 % = 0.20")),
    ClaimDef("reno-falls-with-hops", "Reno, 10 nodes: mean goodput of the nodes at 1, 2, …, 6 hops", "rsd-thesis",
             "Sec. 4.4.3, Fig. 4.6", 3129, "Throughput significantly decreases as hop count increases.",
             Decreasing(tuple(f"{h} hop{'s' if h > 1 else ''}" for h in range(1, 7)))),
    ClaimDef("reno-node1-overflows-most", "Reno, 10 nodes: buffer overflows per node (mean over seeds), node 1 vs the "
             "others", "rsd-thesis", "Sec. 4.4.3, Fig. 4.7", 3141,
             "buffer overflow at node 1 almost reaches 2000 times while other nodes only shows smaller buffer overflow.",
             Order(("node 1",), ("*",))),
    ClaimDef("dtpa-fairer-10", "10 nodes: Jain's index over the nodes' goodput, DTPA vs Reno", "rsd-thesis",
             "Sec. 4.4.4, Fig. 4.8(a)", 3160, _FIG48, Order(("DTPA",), ("Reno",))),
    ClaimDef("dtpa-goodput-drop-10", "10 nodes: total goodput drop with DTPA (1 − DTPA / Reno)", "rsd-thesis",
             "Sec. 4.4.4, Fig. 4.8(a)", 3160, _FIG48, Point(0.23, derivation="23 % = 0.23")),
    ClaimDef("dtpa-txp-near-10", "10 nodes: DTPA's mean TX period, nodes ≤ 2 hops vs nodes ≥ 5 hops", "rsd-thesis",
             "Sec. 4.4.4, Fig. 4.9(b)", 3164,
             "nodes close to the LBR shows higher TXP than nodes far away from the LBR as shown in Fig. 4.9(b).",
             Order(("≤ 2 hops",), ("≥ 5 hops",))),
    ClaimDef("dtpa-fairer-30", "30 nodes: Jain's index over the nodes' goodput, DTPA vs Reno", "rsd-thesis",
             "Sec. 4.4.4, Fig. 4.9", 3179, _FIG49, Order(("DTPA",), ("Reno",))),
    ClaimDef("dtpa-txp-near-30", "30 nodes: DTPA's mean TX period, nodes ≤ 2 hops vs nodes ≥ 5 hops", "rsd-thesis",
             "Sec. 4.4.4, Fig. 4.9", 3179, _FIG49, Order(("≤ 2 hops",), ("≥ 5 hops",))),
    ClaimDef("eq-4-3-vs-measured", "Eq. (4.3) with measured p, RTT, TXP / simulated goodput, median over the "
             "window-limited nodes", "rsd-thesis", "Sec. 4.4.2, Fig. 4.4", 3112,
             "Real measurement results show that throughput analysis of DTPA is almost similar to experimental results.",
             Point(1.0, derivation="\"almost similar\" = a ratio of 1")),
)
ASSUMPTIONS = (
    Assumption("c", APP_RATE,
               "DTPA's c is not given (\"Proper setting of c is important issue and we remain is as a future work\", "
               "line 3026): the application rate, 2 segments/s, so Eq. (4.5) asks every node for what it offers",
               (1.0, 1.5, 4.0), ("dtpa-fairer-10", "dtpa-goodput-drop-10", "dtpa-txp-near-10", "dtpa-fairer-30",
                            "dtpa-txp-near-30", "eq-4-3-vs-measured")),
    Assumption("frame_loss", 0.02, "the motes' random frame loss is not given (an office, Sec. 4.4.1)", (0.0, 0.05)),
    Assumption("mac", "TinyOS CC2420 CSMA + BLIP retries",
               "the thesis runs TinyOS's BLIP stack (Sec. 4.4.1) without its MAC parameters: TinyOS 2.1's CC2420 "
               "back-offs and BLIP's 5 link retries, 103 ms apart", ("802.15.4 default",)),
)

#: Parents of nodes 1..10: a 6-hop chain 1-2-3-4-5-6 with side nodes 7..10 under nodes 1..4.
PARENTS_10 = [0, 1, 2, 3, 4, 5, 1, 2, 3, 4]
#: Parents of nodes 1..30: 3 nodes at hop 1, 6 at hops 2, 3 and 4, 5 at hop 5, 4 at hop 6.
PARENTS_30 = [0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
              22, 23, 24, 25]


def _hops(parents: list[int]) -> list[int]:
    hops: list[int] = []
    for p in parents:
        hops.append(1 if p == 0 else hops[p - 1] + 1)
    return hops


def _positions(parents: list[int]) -> list[list[float]]:
    if parents == PARENTS_10:
        return [[3.0 * k, 6.0] for k in range(1, 7)] + [[3.0 * k + 1.5, 9.0] for k in range(1, 5)]
    out, count = [], {}
    for h in _hops(parents):
        k = count.get(h, 0)
        count[h] = k + 1
        out.append([4.0 * h, 1.0 + 2.0 * k])
    return out


def scenario(nodes: int, *, c: float | None = None, seed: int = 1, duration: float = 600.0, frame_loss: float = 0.02,
             mac: str = "TinyOS CC2420 CSMA + BLIP retries") -> dict:
    """The thesis topology with `nodes` (10 or 30) nodes as a scenario mapping; DTPA on
    with target rate `c` when given. ``scenario(10)`` and ``scenario(30)`` are the shipped
    presets ``scenarios/lln-10-6hop.toml`` and ``scenarios/lln-30-6hop.toml``."""
    parents = {10: PARENTS_10, 30: PARENTS_30}[nodes]
    name = f"lln-{nodes}-6hop"
    desc = ("Thesis Fig. 4.5/4.7: a 6-hop chain-like tree of 10 nodes, TCP Reno uplinks at 2 packets/s"
            if nodes == 10 else
            "Thesis Fig. 4.3(a)/4.9 style: 30 nodes in a tree of at most 6 hops, TCP Reno uplinks at 2 packets/s")
    return {
        "name": name,
        "description": desc,
        "simulation": {"duration_s": duration, "seed": seed},
        "lln": {
            "queue_packets": 15,
            "radio": {"rate_kbps": 250, "frame_loss": frame_loss},
            "mac": ({"min_be": 5, "max_be": 5, "congestion_be": 3, "max_csma_backoffs": 255, "ack_wait_ms": 8.0,
                     "max_frame_retries": 5, "retry_delay_ms": 103.0} if mac.startswith("TinyOS") else {}),
            "topology": {"range_m": 30.0, "border_router_position": [0.0, 6.0]},
            "app": {"rate_pps": APP_RATE},
            "dtpa": {"enabled": c is not None, "c": 0.5 if c is None else c},
            "nodes": [{"position": pos, "parent": p} for pos, p in zip(_positions(parents), parents)],
        },
    }


def _mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def _spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r

    rx, ry = ranks(xs), ranks(ys)
    mx, my = _mean(rx), _mean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    sy = math.sqrt(sum((b - my) ** 2 for b in ry))
    return cov / (sx * sy) if sx > 0 and sy > 0 else 0.0


def _per_node(runs, key: str) -> list[float]:
    """Mean over the runs (seeds) of `key` for every node."""
    n = len(runs[0].raw["nodes"])
    return [_mean(r.raw["nodes"][i][key] for r in runs) for i in range(n)]


#: The chapter's results no claim addresses, and why.
OUT_OF_REACH = (
    OutOfReach("rsd-thesis", "Sec. 4.4.4, Fig. 4.9", 3181,
               "Interestingly, TCP-Vegas [12] suffers from TCP unfairness similar to TCP-Reno due to inaccurate "
               "end-to-end queue length estimation in LLNs.",
               "needs a simulator output: the LLN model's TCP is Reno only (crates/lln/src/sim.rs builds every node's "
               "controller as Reno); the claim needs an `lln` key choosing the nodes' congestion controller (Vegas), "
               "then Jain's index of Vegas beside Reno's on the 30-node tree"),
)


@experiment("dtpa", "Multi-hop LLN: TCP Reno starves far nodes, DTPA restores fairness", PAPER, claims=CLAIMS,
            assumptions=ASSUMPTIONS, out_of_reach=OUT_OF_REACH)
def run(ctx: Context) -> None:
    seeds = ctx.seeds([1, 2, 3, 4, 5] if ctx.full else [1, 2, 3])
    duration = 1800.0 if ctx.full else 600.0
    c_used = float(ctx.param("c"))
    setup = {"frame_loss": float(ctx.param("frame_loss")), "mac": str(ctx.param("mac"))}
    sweep = [0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    res: dict = {}
    for nodes in (10, 30):
        res[(nodes, "reno")] = [ctx.run_lln(f"{nodes}-reno-s{s}", scenario(nodes, seed=s, duration=duration, **setup))
                                for s in seeds]
        res[(nodes, "dtpa")] = [ctx.run_lln(f"{nodes}-dtpa-s{s}", scenario(nodes, c=c_used, seed=s, duration=duration,
                                                                         **setup)) for s in seeds]
        for c in sweep:
            res[(nodes, c)] = [ctx.run_lln(f"{nodes}-dtpa-c{c:g}-s{seeds[0]}",
                                           scenario(nodes, c=c, seed=seeds[0], duration=duration, **setup))]

    # --- plain Reno, 10 nodes: throughput by hop count, overflows (Figs. 4.6, 4.7) --------
    reno10 = res[(10, "reno")]
    hops10 = _hops(PARENTS_10)
    g = _per_node(reno10, "goodput_pps")
    by_hop = {h: _mean(g[i] for i in range(10) if hops10[i] == h) for h in sorted(set(hops10))}
    ctx.check("reno-6hop-vs-1hop", by_hop[6] / by_hop[1] if by_hop[1] > 0 else None,
              detail=f"{by_hop[6]:.2f} / {by_hop[1]:.2f} segments/s")
    ctx.check("reno-falls-with-hops", {f"{h} hop{'s' if h > 1 else ''}": v for h, v in by_hop.items()},
              detail="segments/s")
    ctx.observe("reno-spearman", "Reno, 10 nodes: Spearman correlation of node goodput with hop count",
                _spearman([float(h) for h in hops10], g))
    ovf = _per_node(reno10, "overflows")
    ctx.check("reno-node1-overflows-most", {("node 1" if i == 0 else f"node {i + 1}"): v for i, v in enumerate(ovf)})
    ctx.observe("reno-node1-overflows", f"Reno, 10 nodes: node 1's buffer overflows per {duration:g} s run", ovf[0],
                "\"almost reaches 2000 times\" (Fig. 4.7), over a duration the thesis does not give")

    # --- DTPA vs Reno (Figs. 4.8, 4.9) ----------------------------------------------------
    for nodes in (10, 30):
        reno, dtpa = res[(nodes, "reno")], res[(nodes, "dtpa")]
        j_r, j_d = _mean(r.raw["jain_index"] for r in reno), _mean(r.raw["jain_index"] for r in dtpa)
        ctx.check(f"dtpa-fairer-{nodes}", {"Reno": j_r, "DTPA": j_d}, detail=f"c = {c_used:g}")
        t_r = _mean(r.raw["total_goodput_pps"] for r in reno)
        t_d = _mean(r.raw["total_goodput_pps"] for r in dtpa)
        drop = 1.0 - t_d / t_r
        if nodes == 10:
            ctx.check("dtpa-goodput-drop-10", drop, detail=f"{t_r:.2f} → {t_d:.2f} segments/s")
        else:
            ctx.observe("dtpa-goodput-drop-30", f"30 nodes: total goodput drop with DTPA ({t_r:.2f} → {t_d:.2f} "
                        "segments/s)", drop, "(not given for 30 nodes, Fig. 4.9)")
        txp = _per_node(dtpa, "mean_txp_ms")
        hops = _hops(PARENTS_10 if nodes == 10 else PARENTS_30)
        near = _mean(txp[i] for i in range(nodes) if hops[i] <= 2)
        far = _mean(txp[i] for i in range(nodes) if hops[i] >= 5)
        ctx.check(f"dtpa-txp-near-{nodes}", {"≤ 2 hops": near, "≥ 5 hops": far}, detail="mean TXP, ms")

    # --- analysis vs measurement (Fig. 4.4) ----------------------------------------------
    # Eq. (4.3) holds for window-limited flows: nodes whose application was blocked by a
    # full send buffer in at least 5 % of its writes (the others get what they offer).
    pairs = []
    for key in ((10, "reno"), (10, "dtpa"), (30, "reno"), (30, "dtpa")):
        for r in res[key]:
            for n in r.raw["nodes"]:
                if (n["app_blocked"] >= 0.05 * n["app_writes"] and n["model_pps"] is not None and math.isfinite(n["model_pps"])
                        and n["goodput_pps"] > 0):
                    pairs.append((key, n["model_pps"], n["goodput_pps"]))
    ratios = sorted(m / x for _, m, x in pairs)
    ctx.check("eq-4-3-vs-measured", ratios[len(ratios) // 2] if ratios else None,
              detail=f"{len(pairs)} window-limited nodes")

    _figures(ctx, res, sweep, pairs)


def _figures(ctx: Context, res: dict, sweep: list[float], pairs: list) -> None:
    # Fig. 4.6/4.7: Reno per node by hop count (10 nodes).
    reno10 = res[(10, "reno")]
    hops10 = _hops(PARENTS_10)
    order = sorted(range(10), key=lambda i: (hops10[i], i))
    labels = [f"{i + 1}\n({hops10[i]})" for i in order]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    for ax, key, ylabel in ((axes[0][0], "goodput_pps", "goodput (segments/s)"),
                            (axes[0][1], "mean_rtt_ms", "mean RTT (ms)"),
                            (axes[1][0], "loss_rate", "loss rate p (RTO + FR) / tx"),
                            (axes[1][1], "overflows", "buffer overflows")):
        v = _per_node(reno10, key)
        ax.bar(range(10), [v[i] for i in order], color=[plt.cm.viridis(hops10[i] / 7) for i in order])
        ax.set_xticks(range(10), labels, fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_xlabel("node (hops)")
    fig.suptitle("TCP Reno, 6-hop tree of 10 nodes (cf. thesis Figs. 4.6, 4.7)")
    fig.tight_layout()
    fig.savefig(ctx.out / "reno-by-hop.png", dpi=150)
    plt.close(fig)

    # Fig. 4.8/4.9: DTPA vs Reno per node, and TXP.
    fig, axes = plt.subplots(2, 2, figsize=(13, 7))
    for row, nodes in enumerate((10, 30)):
        hops = _hops(PARENTS_10 if nodes == 10 else PARENTS_30)
        order = sorted(range(nodes), key=lambda i: (hops[i], i))
        gr, gd = _per_node(res[(nodes, "reno")], "goodput_pps"), _per_node(res[(nodes, "dtpa")], "goodput_pps")
        txp = _per_node(res[(nodes, "dtpa")], "mean_txp_ms")
        x = range(nodes)
        ax = axes[row][0]
        ax.bar([k - 0.2 for k in x], [gr[i] for i in order], width=0.4, label="TCP Reno")
        ax.bar([k + 0.2 for k in x], [gd[i] for i in order], width=0.4, label=f"DTPA (c = {APP_RATE:g})")
        ax.set_xticks(list(x), [f"{i + 1}" for i in order], fontsize=7)
        ax.set_ylabel("goodput (segments/s)")
        ax.set_xlabel("node (sorted by hop count)")
        ax.set_title(f"{nodes} nodes: goodput per node", fontsize=10)
        ax.legend(fontsize=8)
        ax = axes[row][1]
        ax.bar(list(x), [txp[i] / 1e3 for i in order], color=[plt.cm.viridis(hops[i] / 7) for i in order])
        ax.set_xticks(list(x), [f"{i + 1}\n({hops[i]})" for i in order], fontsize=6)
        ax.set_ylabel("mean TXP (s)")
        ax.set_xlabel("node (hops)")
        ax.set_title(f"{nodes} nodes: DTPA's TX period", fontsize=10)
    fig.suptitle("DTPA vs TCP Reno (cf. thesis Figs. 4.8, 4.9)")
    fig.tight_layout()
    fig.savefig(ctx.out / "dtpa-vs-reno.png", dpi=150)
    plt.close(fig)

    # Fig. 4.4: analysis vs measurement.
    fig, ax = plt.subplots(figsize=(5.5, 5))
    markers = {(10, "reno"): ("o", "10 nodes, Reno"), (10, "dtpa"): ("s", "10 nodes, DTPA"),
               (30, "reno"): ("^", "30 nodes, Reno"), (30, "dtpa"): ("D", "30 nodes, DTPA")}
    for key, (m, lbl) in markers.items():
        pts = [(a, b) for k, a, b in pairs if k == key]
        if pts:
            ax.scatter([b for _, b in pts], [a for a, _ in pts], marker=m, label=lbl, alpha=0.7, s=18)
    hi = max([max(a, b) for _, a, b in pairs] + [1.0])
    ax.plot([0, hi], [0, hi], color="grey", lw=1)
    ax.set_xlabel("simulated goodput (segments/s)")
    ax.set_ylabel("Eq. (4.3) with measured p, RTT, TXP (segments/s)")
    ax.set_title("Throughput analysis vs measurement (cf. Fig. 4.4)", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(ctx.out / "analysis-vs-measurement.png", dpi=150)
    plt.close(fig)

    # The c trade-off.
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for nodes in (10, 30):
        reno = res[(nodes, "reno")][0].raw
        axes[0].plot(sweep, [res[(nodes, c)][0].raw["jain_index"] for c in sweep], marker="o", label=f"{nodes} nodes")
        axes[0].axhline(reno["jain_index"], ls="--", lw=1, color="C0" if nodes == 10 else "C1")
        axes[1].plot(sweep, [res[(nodes, c)][0].raw["total_goodput_pps"] / reno["total_goodput_pps"] for c in sweep],
                     marker="o", label=f"{nodes} nodes")
    axes[0].set_ylabel("Jain's index (dashed: Reno)")
    axes[1].set_ylabel("total goodput / Reno's")
    for ax in axes:
        ax.set_xlabel("DTPA's c (segments/s)")
        ax.set_xscale("log")
        ax.legend(fontsize=8)
    fig.suptitle("DTPA: fairness vs efficiency over c (first seed)")
    fig.tight_layout()
    fig.savefig(ctx.out / "dtpa-c-sweep.png", dpi=150)
    plt.close(fig)
