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

from . import Context, experiment  # noqa: E402

PAPER = "rtac-sorpc-dtpa thesis, chapter 4 (§4.4, Figs. 4.4, 4.6–4.9)"
APP_RATE = 2.0

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


def scenario(nodes: int, *, c: float | None = None, seed: int = 1, duration: float = 600.0) -> dict:
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
            "radio": {"rate_kbps": 250, "frame_loss": 0.02},
            "mac": {"min_be": 5, "max_be": 5, "congestion_be": 3, "max_csma_backoffs": 255, "ack_wait_ms": 8.0,
                    "max_frame_retries": 5, "retry_delay_ms": 103.0},
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


@experiment("dtpa", "Multi-hop LLN: TCP Reno starves far nodes, DTPA restores fairness", PAPER)
def run(ctx: Context) -> None:
    seeds = [1, 2, 3, 4, 5] if ctx.full else [1, 2, 3]
    duration = 1800.0 if ctx.full else 600.0
    sweep = [0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    res: dict = {}
    for nodes in (10, 30):
        res[(nodes, "reno")] = [ctx.run_lln(f"{nodes}-reno-s{s}", scenario(nodes, seed=s, duration=duration))
                                for s in seeds]
        res[(nodes, "dtpa")] = [ctx.run_lln(f"{nodes}-dtpa-s{s}", scenario(nodes, c=APP_RATE, seed=s, duration=duration))
                                for s in seeds]
        for c in sweep:
            res[(nodes, c)] = [ctx.run_lln(f"{nodes}-dtpa-c{c:g}-s{seeds[0]}",
                                           scenario(nodes, c=c, seed=seeds[0], duration=duration))]

    # --- plain Reno, 10 nodes: throughput by hop count, overflows (Figs. 4.6, 4.7) --------
    reno10 = res[(10, "reno")]
    hops10 = _hops(PARENTS_10)
    g = _per_node(reno10, "goodput_pps")
    by_hop = {h: _mean(g[i] for i in range(10) if hops10[i] == h) for h in sorted(set(hops10))}
    ratio = by_hop[6] / by_hop[1]
    ctx.claim("reno-6hop-vs-1hop", "Reno, 10 nodes: goodput of the 6-hop node / the 1-hop node",
              "≈ 0.20 (Fig. 4.6)", ratio, "≤ 0.5", ratio <= 0.5)
    rho = _spearman([float(h) for h in hops10], g)
    ctx.claim("reno-falls-with-hops", "Reno, 10 nodes: Spearman correlation of node goodput with hop count",
              "throughput decreases with hop count (Fig. 4.6)", rho, "≤ −0.8", rho <= -0.8)
    most = [max(r.raw["nodes"], key=lambda n: n["overflows"])["id"] for r in reno10]
    ovf1 = _mean(r.raw["nodes"][0]["overflows"] for r in reno10)
    ovf_next = max(_mean(r.raw["nodes"][i]["overflows"] for r in reno10) for i in range(1, 10))
    ctx.claim("reno-overflows-at-node-1",
              f"Reno, 10 nodes: runs in which node 1 overflows most (node 1: {ovf1:.0f} per {duration:g} s, "
              f"next highest node: {ovf_next:.0f})",
              "node 1, almost 2000 overflows (Fig. 4.7)", f"{most.count(1)}/{len(most)}", "all runs",
              most.count(1) == len(most))

    # --- DTPA vs Reno (Figs. 4.8, 4.9) ----------------------------------------------------
    for nodes, paper_drop in ((10, "23 % (Fig. 4.8)"), (30, "not given (Fig. 4.9)")):
        reno, dtpa = res[(nodes, "reno")], res[(nodes, "dtpa")]
        j_r, j_d = _mean(r.raw["jain_index"] for r in reno), _mean(r.raw["jain_index"] for r in dtpa)
        ctx.claim(f"dtpa-jain-{nodes}", f"{nodes} nodes: Jain's index over nodes, Reno → DTPA (c = {APP_RATE:g})",
                  "fairness improves (Figs. 4.8(a), 4.9)", f"{j_r:.3f} → {j_d:.3f}", "rises by ≥ 0.05",
                  j_d - j_r >= 0.05)
        t_r = _mean(r.raw["total_goodput_pps"] for r in reno)
        t_d = _mean(r.raw["total_goodput_pps"] for r in dtpa)
        drop = 1.0 - t_d / t_r
        ctx.claim(f"dtpa-goodput-drop-{nodes}",
                  f"{nodes} nodes: total goodput drop with DTPA ({t_r:.2f} → {t_d:.2f} segments/s)",
                  paper_drop, drop, "≤ 0.25", drop <= 0.25)
        txp = _per_node(dtpa, "mean_txp_ms")
        hops = _hops(PARENTS_10 if nodes == 10 else PARENTS_30)
        near = _mean(txp[i] for i in range(nodes) if hops[i] <= 2)
        far = _mean(txp[i] for i in range(nodes) if hops[i] >= 5)
        ctx.claim(f"dtpa-txp-{nodes}", f"{nodes} nodes: mean TXP of nodes ≤ 2 hops / nodes ≥ 5 hops",
                  "nodes near the LBR wait longer (Fig. 4.9(b))", near / far if far > 0 else float("inf"), "> 1",
                  near > far)

    # --- analysis vs measurement (Fig. 4.4) ----------------------------------------------
    # Eq. (4.3) holds for window-limited flows: nodes whose application was blocked by a
    # full send buffer in at least 5 % of its writes (the others get what they offer).
    pairs = []
    for key in ((10, "reno"), (10, "dtpa"), (30, "reno"), (30, "dtpa")):
        for r in res[key]:
            for n in r.raw["nodes"]:
                if n["app_blocked"] >= 0.05 * n["app_writes"] and math.isfinite(n["model_pps"]) and n["goodput_pps"] > 0:
                    pairs.append((key, n["model_pps"], n["goodput_pps"]))
    errs = sorted(abs(m / x - 1.0) for _, m, x in pairs)
    med = errs[len(errs) // 2] if errs else float("inf")
    ctx.claim("eq-4-3-vs-measured",
              f"Eq. (4.3) with measured p, RTT, TXP vs simulated goodput: median |model/measured − 1| "
              f"over {len(pairs)} window-limited nodes",
              "almost similar (Fig. 4.4)", med, "≤ 0.5", med <= 0.5)

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
