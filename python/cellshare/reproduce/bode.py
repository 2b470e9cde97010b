"""`bode`: the BoDe paper's Figures 7-8, AQMs under different TCP controllers on cellular
traces.

Setup ([bode], Section VI): one UE behind a Mahimahi cellular trace, one
bulk TCP flow (iperf3), minimum RTT 10 ms (MEC-like), each trace run for 5 minutes; schemes
with Table I's parameters, D = 20 ms: TailDrop and HeadDrop FIFOs of 1.5 MB, CoDel
(target = D/2, interval = 5 × RTT), PIE (reference delay = D, α = 0.125, β = 1.25), BoDe
(BoundedDelay = D). Results are normalized to TailDrop per trace and averaged over the traces,
in the direction each figure plots: Fig. 7's delay panel shows the "99th %tile queuing delay
improvements ... normalized to FIFO-TailDrop performance and averaged over all traces" (line
211), an improvement being TailDrop's p99 over the scheme's, so the delay claims average
TailDrop p99 / scheme p99; the delivery rate (Fig. 7, right) and the power (Fig. 8) average
scheme / TailDrop. The other delay direction is an observation beside each claim.
The paper: BoDe has the lowest 99th-percentile queueing delay for every controller, at a
throughput cost of 3-40 %, and "at least about 2× higher power" than the best other scheme;
"more than 170×" lower p99 than the baseline FIFOs (the largest over the controllers, guarded
by BoDe's rate there); CoDel and PIE "roughly similar to TailDrop" under BBR and Sprout (a
ratio of 1, guarded by TailDrop's queue having built up).

Ours: the paper's kind of traces, four 4G downlinks shipped with cellshare (:data:`TRACES`:
the Boston LTE traces of Sprout [3] and the NYC LTE traces of C2TCP [1], Times Square and the
subway, the two the paper names; `--traces DIR` runs files of the same names from another
folder),
the end-to-end schemes cellshare has of the paper's list (:data:`CONTROLLERS`: CUBIC, BBR,
C2TCP, Westwood+, and Sprout and PCC-Vivace as transports of their own, docs/transports.md)
plus two classic ones marked as ours (Reno, Vegas: observations only), the same AQM schemes
and parameters; 60 s per run (`--full`: the paper's 300 s). The 10 ms minimum RTT: 4 ms each
way on the wired path, 1 ms uplink, plus the TTI. Queueing delay is
cellshare's sojourn (arrival at the base station to the end of the TTI that carried the
packet's last byte), every packet of the flow. BoDe's bound is judged on what it bounds: each
delivered packet's wait before its service began (`queue_wait_ms`: arrival to the moment BoDe
let it through and its first byte went into a transport block).

Figure 9 (Sec. VI-C-1, line 203): C2TCP on the AT&T LTE downlink trace under each AQM; the
CDF of each packet's end-to-end delay including its retransmissions (cellshare's one-way
delay, from the first transmission of a packet's bytes to their first arrival at the
receiver) and the ratio of retransmitted packets (retransmissions / distinct data packets
delivered). C2TCP runs with its release's parameters (Target 50 ms, α 1.5; the paper gives
none for its runs; the Target is an assumption with a sensitivity row).
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import Assumption, AtLeast, AtMost, ClaimDef, Context, Guard, Order, Point, Range, experiment  # noqa: E402

PAPER = "BoDe [bode] Sec. VI-C, Table I, Figs. 7-9"
D_MS = 20.0
MIN_RTT_MS = 10.0
QUEUE_BYTES = 1_500_000


@dataclass(frozen=True)
class Controller:
    """An end-to-end scheme the experiment runs: its flow's `transport` table, its label in the
    figures, and whether the paper runs it (its claims are checked on those; the others are
    observations, marked as ours)."""

    transport: dict
    label: str
    in_paper: bool


def _tcp(cc: str) -> dict:
    return {"kind": "tcp", "cc": {"kind": cc}}


#: Every end-to-end scheme, in the figures' order. Sec. VI-C (line 187) runs "BBR [13],
#: PCC-Vivace [4], C2TCP [1], Sprout [3], Cubic [7], and Westwood [18]"; Reno and Vegas are
#: ours. A scheme is added here and nowhere else.
CONTROLLERS: dict[str, Controller] = {
    "cubic": Controller(_tcp("cubic"), "CUBIC", True),
    "bbr": Controller(_tcp("bbr"), "BBR", True),
    "c2tcp": Controller(_tcp("c2tcp"), "C2TCP", True),
    "westwood": Controller(_tcp("westwood"), "Westwood+", True),
    "sprout": Controller({"kind": "sprout"}, "Sprout", True),
    "vivace": Controller({"kind": "vivace"}, "PCC-Vivace", True),
    "reno": Controller(_tcp("reno"), "Reno (ours)", False),
    "vegas": Controller(_tcp("vegas"), "Vegas (ours)", False),
}
CCS = tuple(CONTROLLERS)
#: The schemes the paper also ran: its claims are checked on these.
PAPER_CCS = tuple(n for n, c in CONTROLLERS.items() if c.in_paper)
#: The downlink traces it runs on (shipped with cellshare, `cellshare.traces`; per-trace
#: claims name them). `--traces DIR` reads files of these names from DIR instead.
#: Sec. I (line 34): "4G cellular traces gathered in NYC and Boston by prior work [1], [3]"; Fig. 4c
#: and 5c name "Times-square-downlink [1]" and "NYC-subway-downlink [1]".
TRACES = ("ATT-LTE-driving", "TMobile-LTE-driving", "NYC-LTE-times-square", "NYC-LTE-subway")
TRACE_FILES = tuple(f"{t}.down" for t in TRACES)
SCHEMES = {
    "TailDrop": {"kind": "tail_drop"},
    "HeadDrop": {"kind": "head_drop"},
    "CoDel": {"kind": "codel", "target_ms": D_MS / 2, "interval_ms": 5 * MIN_RTT_MS},
    "PIE": {"kind": "pie", "target_ms": D_MS, "alpha": 0.125, "beta": 1.25},
    "BoDe": {"kind": "bode", "bounded_delay_ms": D_MS},
}


def one_ue(name: str, trace: str, cc: str, aqm: dict, duration: float, queue_bytes: int = QUEUE_BYTES,
           uplink_delay_ms: float = 1.0, transport: dict | None = None) -> dict:
    """One UE on `trace` (a scenario's trace `file` value), one bulk flow of the scheme `cc` (a key of :data:`CONTROLLERS`; its
    transport table, or `transport` when given), the MEC-like 10 ms path (two wired legs, the
    uplink and one TTI)."""
    return {
        "name": name,
        "simulation": {"duration_s": duration, "seed": 1},
        "cell": {"rlc_queue_bytes": queue_bytes, "aqm": aqm},
        "wired": {"remote_delay_ms": (MIN_RTT_MS - 1.0 - uplink_delay_ms) / 2, "uplink_delay_ms": uplink_delay_ms},
        "ues": [{"channel": {"kind": "trace", "file": trace}}],
        "flows": [{"name": "bulk", "ue": 0, "transport": transport or CONTROLLERS[cc].transport}],
    }


_DELAY = ("compared to CoDel and PIE, it can reduce the 99th percentile queuing delay from 2× to 20× considering all "
          "tested scenarios")
_POWER = ("Even in the worst case, considering both delay and throughput, BoDe achieves at least about 2× higher power "
          "compared to the best performing AQM approach.")
_BOUND = ("These steps will guarantee that no packet that has been served by BoDe in the queue experiences queuing delay "
          "more than BoundedDelay.")
_FIG9 = ("So, keeping queuing delay very small (by actively and wisely dropping packets in the network (Fig. 9 right "
         "graph)) benefits the delay responses of all packets including the retransmitted ones (Fig. 9 left graph).")
#: Fig. 9's trace and scheme (line 203: "we use AT&T-LTE downlink trace [3], Iperf3 as the application, and C2TCP").
FIG9_TRACE = "ATT-LTE-driving"
FIG9_CC = "c2tcp"
_BASELINE = ("Results show that compared to the baseline schemes, BoDe can achieve more than $170 \\times$ lower 99th "
             "percentile queuing delay")
_SIMILAR = ("For instance, considering the delay, in the cases of BBR and Sprout, CoDel and PIE perform roughly similar "
            "to TailDrop scheme.")
#: The controllers under which the paper finds CoDel and PIE roughly similar to TailDrop (line 187).
SIMILAR_CCS = ("bbr", "sprout")
_WORST = "In the worst case, BoDe compromises throughput 40% compared to the best throughout (achieved using TailDrop queue)."
CLAIMS = tuple(
    [c for cc in PAPER_CCS for c in (
        ClaimDef(f"delay-cut-{cc}", f"{CONTROLLERS[cc].label}: BoDe's p99 delay improvement over the better of CoDel's and "
                 "PIE's (improvement: TailDrop p99 / scheme p99, averaged over the traces, as Fig. 7 plots)", "bode", "Sec. I (Figs. 7-8)", 34, _DELAY,
                 Range(2.0, 20.0, derivation="\"from 2× to 20×\"")),
        ClaimDef(f"power-{cc}", f"{CONTROLLERS[cc].label}: BoDe's normalized power / the best other scheme's", "bode",
                 "Sec. VI-C, Fig. 8", 187, _POWER, AtLeast(2.0, derivation="\"at least about 2×\"")),
        ClaimDef(f"throughput-cost-{cc}", f"{CONTROLLERS[cc].label}: BoDe's delivery rate / TailDrop's, averaged over the traces",
                 "bode", "Sec. VI-C, Fig. 7", 187, "This throughput compensation ranges from 3% to 40%.",
                 Range(0.60, 0.97, derivation="3% to 40% lower: 1 − 0.40 to 1 − 0.03")))]
    + [c for t in TRACES for c in (
        ClaimDef(f"bound-{t}", f"{t}: BoDe's p99 wait before service (arrival to the start of service), worst of the "
                 "controllers", "bode", "Sec. V-C", 119, _BOUND,
                 AtMost(D_MS, unit=" ms",
                        derivation=f"BoundedDelay D = {D_MS:g} ms (Sec. VI, line 145) bounds the sojourn before service, "
                                   "not the transmission after it (\"BoDe only controls sojourn time of packets. "
                                   "Therefore, the overall queuing delay can be larger than BoundedDelay\", line 175): "
                                   "judged on each delivered packet's wait from arrival to the start of its service "
                                   "(queue_wait_ms), against D itself. The last 3 queued packets BoDe always serves "
                                   "(rule 3, the exception of line 119) are included: \"since BoDe always transmits "
                                   "the last 3 queued packets, occasionally, sojourn time of these packets could be "
                                   "larger than BoundedDelay\" (line 175) says they exceed D only occasionally, within "
                                   "the 1 % a p99 leaves out; without them the bound would hold by construction")),
        ClaimDef(f"throughput-worst-{t}", f"{t}: BoDe's delivery rate / TailDrop's, the lowest over the paper's controllers", "bode",
                 "Sec. I", 34, _WORST, AtLeast(0.60, derivation="compromises at most 40%: 1 − 0.40")))]
    + [
        ClaimDef("fig9-overall-delay-p50", f"Fig. 9, C2TCP on {FIG9_TRACE}: median end-to-end delay including "
                 "retransmissions, per AQM scheme (ms)", "bode", "Sec. VI-C-1, Fig. 9 (left)", 203, _FIG9,
                 Order(("*",), ("BoDe",), derivation="\"benefits the delay responses of all packets including the "
                       "retransmitted ones\": BoDe's CDF lies left of every other scheme's, so its median is the lowest")),
        ClaimDef("fig9-overall-delay-p99", f"Fig. 9, C2TCP on {FIG9_TRACE}: 99th-percentile end-to-end delay "
                 "including retransmissions, per AQM scheme (ms)", "bode", "Sec. VI-C-1, Fig. 9 (left)", 203, _FIG9,
                 Order(("*",), ("BoDe",), derivation="as fig9-overall-delay-p50, at the 99th percentile")),
        ClaimDef("fig9-retransmitted-ratio", f"Fig. 9, C2TCP on {FIG9_TRACE}: retransmitted packets / distinct data "
                 "packets delivered, per AQM scheme", "bode", "Sec. VI-C-1, Fig. 9 (right)", 203, _FIG9,
                 Order(("BoDe",), ("TailDrop", "HeadDrop"),
                       derivation="\"by actively and wisely dropping packets in the network (Fig. 9 right graph)\": "
                                  "BoDe retransmits more than the 1.5 MB FIFOs, which drop only when full")),
    ]
    + [
        ClaimDef("baseline-cut-max", "BoDe's p99 delay improvement over the better of the baseline FIFOs (TailDrop, "
                 "HeadDrop), the largest over the paper's controllers (improvement: TailDrop p99 / scheme p99, averaged "
                 "over the traces, as Fig. 7 plots)", "bode", "Sec. I (Figs. 7-8)", 34, _BASELINE,
                 AtLeast(170.0, derivation="\"more than 170×\" \"considering all tested scenarios\": the largest "
                                           "over the scenarios, here the controllers of Fig. 7")),
    ]
    + [ClaimDef(f"{s.lower()}-like-taildrop-{cc}", f"{CONTROLLERS[cc].label}: {s}'s p99 delay improvement over TailDrop "
                "(TailDrop p99 / scheme p99, averaged over the traces, as Fig. 7 plots)", "bode", "Sec. VI-C, Fig. 7", 187,
                _SIMILAR, Point(1.0, derivation="\"roughly similar\": a ratio of 1"))
       for cc in SIMILAR_CCS for s in ("CoDel", "PIE")])
ASSUMPTIONS = (
    Assumption("aqm_queue_bytes", QUEUE_BYTES,
               "Table I gives 1.5 MB for the Tail/HeadDrop FIFOs only; the same byte limit under CoDel, PIE and BoDe",
               (524288,)),
    Assumption("uplink_delay_ms", 1.0,
               "the minimum RTT is 10 ms (Sec. VI); how it splits between the wired legs and the uplink is not given: "
               "4 + 4 ms wired, 1 ms uplink, 1 TTI", (4.0,)),
    Assumption("controllers", ", ".join(c.label for c in CONTROLLERS.values()),
               "the paper runs BBR, PCC-Vivace, C2TCP, Sprout, Cubic and Westwood; cellshare runs those it has (the "
               "claims) and Reno and Vegas as observations"),
    Assumption("c2tcp_target_ms", 50.0,
               "the paper gives no C2TCP parameters; the Target (and initial α 1.5, Tuner period 500 ms) of the authors' "
               "JSAC release (run.sh), the defaults of cc = { kind = \"c2tcp\" }", (30.0, 100.0),
               affects=("delay-cut-c2tcp", "power-c2tcp", "throughput-cost-c2tcp", "fig9-overall-delay-p50",
                        "fig9-overall-delay-p99", "fig9-retransmitted-ratio")),
)


@experiment("bode", "BoDe vs TailDrop, HeadDrop, CoDel and PIE under CUBIC, BBR, C2TCP, Westwood+ (and Reno, Vegas) "
            "on cellular traces; Fig. 9: delay including retransmissions under C2TCP", PAPER,
            claims=CLAIMS, assumptions=ASSUMPTIONS, traces=TRACE_FILES)
def run(ctx: Context) -> None:
    duration = 300.0 if ctx.full else 60.0
    queue, uplink = int(ctx.param("aqm_queue_bytes")), float(ctx.param("uplink_delay_ms"))
    transports = {cc: c.transport for cc, c in CONTROLLERS.items()}
    transports["c2tcp"] = {"kind": "tcp", "cc": {"kind": "c2tcp", "target_ms": float(ctx.param("c2tcp_target_ms"))}}
    res: dict = {}
    fig9: dict = {}
    for tname in TRACES:
        trace = ctx.trace(f"{tname}.down")
        for cc in CCS:
            for scheme, aqm in SCHEMES.items():
                q = QUEUE_BYTES if scheme in ("TailDrop", "HeadDrop") else queue
                r = ctx.run(f"{tname}-{cc}-{scheme.lower()}", one_ue(f"{tname}-{cc}-{scheme}", trace, cc, aqm, duration,
                                                                     q, uplink, transports[cc]))
                f = r.flow("bulk")
                rate = r.raw["ues"][0]["throughput_mbps"]
                p99 = f["queue_delay_ms"]["p99"]
                wait_p99 = f["queue_wait_ms"]["p99"]
                # One flow on one UE: the run's CDF is the flow's. Fraction within D + 1 TTI.
                within = max((fr for ms, fr in r.raw["series"]["queue_delay_cdf"] if ms <= D_MS + 1.0), default=0.0)
                owd = f["one_way_delay_ms"]
                res[(tname, cc, scheme)] = {"rate": rate, "p99": p99, "wait_p99": wait_p99,
                                            "power": rate / p99 if p99 > 0 else 0.0, "within": within,
                                            "owd_p50": owd["p50"], "owd_p99": owd["p99"], "owd_mean": owd["mean"],
                                            "retx_ratio": f["retransmits"] / owd["count"] if owd["count"] else 0.0}
                if (tname, cc) == (FIG9_TRACE, FIG9_CC):
                    # One flow on one UE: the run's one-way-delay CDF is the flow's.
                    fig9[scheme] = r.raw["series"]["one_way_delay_cdf"]
    tnames = list(TRACES)

    def norm(cc: str, scheme: str, key: str) -> float:
        """Average over traces of the scheme's value over TailDrop's."""
        vals = [res[(t, cc, scheme)][key] / res[(t, cc, "TailDrop")][key] for t in tnames if res[(t, cc, "TailDrop")][key] > 0]
        return sum(vals) / len(vals)

    def improvement(cc: str, scheme: str) -> float:
        """Fig. 7's delay improvement: the average over traces of TailDrop's p99 / the scheme's."""
        vals = [res[(t, cc, "TailDrop")]["p99"] / res[(t, cc, scheme)]["p99"] for t in tnames if res[(t, cc, scheme)]["p99"] > 0]
        return sum(vals) / len(vals)

    cut = {cc: improvement(cc, "BoDe") / max(improvement(cc, "CoDel"), improvement(cc, "PIE")) for cc in CCS}
    cut_other = {cc: min(norm(cc, "CoDel", "p99"), norm(cc, "PIE", "p99")) / norm(cc, "BoDe", "p99") for cc in CCS}
    power = {cc: {s: norm(cc, s, "power") for s in SCHEMES} for cc in CCS}
    best = {cc: max((s for s in SCHEMES if s != "BoDe"), key=lambda s: power[cc][s]) for cc in CCS}
    gain = {cc: power[cc]["BoDe"] / power[cc][best[cc]] for cc in CCS}
    tput = {cc: norm(cc, "BoDe", "rate") for cc in CCS}
    for cc in CCS:
        if cc in PAPER_CCS:
            ctx.check(f"delay-cut-{cc}", cut[cc])
            ctx.observe(f"delay-cut-{cc}-other-direction", f"{CONTROLLERS[cc].label}: the lower of CoDel's and PIE's "
                        "average (scheme p99 / TailDrop p99) over BoDe's", cut_other[cc],
                        "(the averaging direction Fig. 7 does not plot)")
            ctx.check(f"power-{cc}", gain[cc], detail=f"best other: {best[cc]}")
            ctx.check(f"throughput-cost-{cc}", tput[cc])
        else:
            ctx.observe(f"delay-cut-{cc}", f"{CONTROLLERS[cc].label}: BoDe's p99 delay improvement over the better of CoDel's "
                        "and PIE's", cut[cc],
                        "(the paper does not run this controller)")
            ctx.observe(f"power-{cc}", f"{CONTROLLERS[cc].label}: BoDe's normalized power / the best other scheme's ({best[cc]})",
                        gain[cc], "(the paper does not run this controller)")
            ctx.observe(f"throughput-cost-{cc}", f"{CONTROLLERS[cc].label}: BoDe's delivery rate / TailDrop's, averaged over the "
                        "traces", tput[cc], "(the paper does not run this controller)")
    # "More than 170x" lower p99 than the baseline FIFOs (line 34), on the controller where the cut is largest;
    # guarded: BoDe's flow must carry at least the paper's worst-case share of TailDrop's rate there (line 34, 40 %
    # less), so that a starved flow cannot make the cut.
    base_cut = {cc: improvement(cc, "BoDe") / max(improvement(cc, "TailDrop"), improvement(cc, "HeadDrop"))
                for cc in PAPER_CCS}
    top = max(base_cut, key=lambda cc: base_cut[cc])
    ctx.check("baseline-cut-max", base_cut[top],
              detail=f"largest under {CONTROLLERS[top].label}; per controller: "
                     + ", ".join(f"{cc} {v:.3g}" for cc, v in base_cut.items()),
              guards=[Guard("BoDe's flow ran: delivery rate ≥ 0.6 × TailDrop's (the paper's worst case, line 34)",
                            tput[top] >= 0.6, f"{CONTROLLERS[top].label} {tput[top]:.2f}")])
    # CoDel and PIE roughly as TailDrop under BBR and Sprout (line 187); guarded: TailDrop's queue built up (its p99
    # above BoDe's bound), or every scheme would be "similar" for want of a queue to manage.
    for cc in SIMILAR_CCS:
        td_p99 = sum(res[(t, cc, "TailDrop")]["p99"] for t in tnames) / len(tnames)
        for s in ("CoDel", "PIE"):
            ctx.check(f"{s.lower()}-like-taildrop-{cc}", improvement(cc, s),
                      detail="per trace: " + ", ".join(f"{t} {res[(t, cc, 'TailDrop')]['p99'] / res[(t, cc, s)]['p99']:.2f}"
                                                      for t in tnames if res[(t, cc, s)]["p99"] > 0),
                      guards=[Guard(f"TailDrop's queue built up: its p99 above D = {D_MS:g} ms, averaged over the traces",
                                    td_p99 > D_MS, f"{td_p99:.0f} ms")])
    for t in TRACES:
        if t not in tnames:
            ctx.check(f"bound-{t}", None, detail="trace not found")
            ctx.check(f"throughput-worst-{t}", None, detail="trace not found")
            continue
        worst = max(CCS, key=lambda cc: res[(t, cc, "BoDe")]["wait_p99"])
        ctx.check(f"bound-{t}", res[(t, worst, "BoDe")]["wait_p99"],
                  detail="p99 wait ms per controller: "
                         + ", ".join(f"{cc} {res[(t, cc, 'BoDe')]['wait_p99']:.1f}" for cc in CCS)
                         + "; p99 to the end of the carrying TTI: "
                         + ", ".join(f"{cc} {res[(t, cc, 'BoDe')]['p99']:.1f}" for cc in CCS))
        ratio = {cc: res[(t, cc, "BoDe")]["rate"] / res[(t, cc, "TailDrop")]["rate"] for cc in PAPER_CCS
                 if res[(t, cc, "TailDrop")]["rate"] > 0}
        ctx.check(f"throughput-worst-{t}", min(ratio.values()) if ratio else None,
                  detail=", ".join(f"{cc} {v:.2f}" for cc, v in ratio.items()))
        ctx.observe(f"within-bound-{t}", f"{t}: fraction of BoDe's packets with sojourn ≤ D + 1 TTI, worst controller",
                    min(res[(t, cc, "BoDe")]["within"] for cc in CCS), "(the paper reports CDFs, Fig. 4c)")

    # Fig. 9: C2TCP on the AT&T LTE downlink trace, delay including retransmissions.
    if FIG9_TRACE in tnames and FIG9_CC in CCS:
        f9 = {s: res[(FIG9_TRACE, FIG9_CC, s)] for s in SCHEMES}
        for key, cid in (("owd_p50", "fig9-overall-delay-p50"), ("owd_p99", "fig9-overall-delay-p99"),
                         ("retx_ratio", "fig9-retransmitted-ratio")):
            ctx.check(cid, {s: v[key] for s, v in f9.items()},
                      detail=", ".join(f"{s} {v[key]:.3g}" for s, v in f9.items()))
        ctx.observe("fig9-overall-delay-mean", f"Fig. 9, C2TCP on {FIG9_TRACE}: mean end-to-end delay including "
                    "retransmissions, ms, per AQM scheme", {s: v["owd_mean"] for s, v in f9.items()},
                    "(the paper shows the CDF)")
        ctx.observe("fig9-throughput", f"Fig. 9, C2TCP on {FIG9_TRACE}: delivery rate, Mbit/s, per AQM scheme",
                    {s: v["rate"] for s, v in f9.items()}, "(not shown in Fig. 9)")
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [2, 1]})
        for s in SCHEMES:
            cdf = fig9.get(s) or []
            a1.plot([ms for ms, _ in cdf], [fr for _, fr in cdf], label=s)
        a1.set_xscale("log")
        # The last few packets (up to ~10 s) wait out RTO back-offs through the trace's outages.
        beyond = max(1.0 - max((fr for ms, fr in (fig9.get(s) or []) if ms <= 1000.0), default=0.0) for s in SCHEMES)
        a1.set_xlim(4, 1000)
        a1.set_xlabel(f"end-to-end delay including retransmissions (ms; beyond 1 s: ≤ {100 * beyond:.2g} %)")
        a1.set_ylabel("CDF")
        a1.legend(fontsize=8)
        a1.grid(alpha=0.3)
        a2.bar(list(SCHEMES), [100 * f9[s]["retx_ratio"] for s in SCHEMES], color=[f"C{i}" for i in range(len(SCHEMES))])
        a2.set_ylabel("retransmitted packets (%)")
        a2.tick_params(axis="x", labelsize=8)
        fig.suptitle(f"Fig. 9 (ours): C2TCP (Target {ctx.param('c2tcp_target_ms'):g} ms) on {FIG9_TRACE}, {duration:g} s per "
                     "scheme. Paper: BoDe's delay CDF left of the others', more retransmissions", fontsize=9)
        fig.tight_layout()
        fig.savefig(ctx.out / "bode-fig9.png", dpi=150)
        plt.close(fig)
    else:
        for cid in ("fig9-overall-delay-p50", "fig9-overall-delay-p99", "fig9-retransmitted-ratio"):
            ctx.check(cid, None, detail=f"trace {FIG9_TRACE} not found")

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.2))
    width = 0.8 / len(SCHEMES)
    panels = (("p99", "99th %ile delay improvement\n(TailDrop p99 / scheme p99)", lambda cc, s: 1.0 / norm(cc, s, "p99")),
              ("rate", "delivery rate / TailDrop's", lambda cc, s: norm(cc, s, "rate")),
              ("power", "power / TailDrop's", lambda cc, s: norm(cc, s, "power")))
    for ax, (_, label, fn) in zip(axes, panels):
        for i, s in enumerate(SCHEMES):
            ax.bar([x + (i - len(SCHEMES) / 2 + 0.5) * width for x in range(len(CCS))], [fn(cc, s) for cc in CCS], width, label=s)
        ax.set_xticks(range(len(CCS)), [CONTROLLERS[c].label for c in CCS], fontsize=8, rotation=20)
        ax.set_title(label, fontsize=9)
        if label.startswith("99th") or label.startswith("power"):
            ax.set_yscale("log")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Figs. 7-8 (ours): normalized to TailDrop, averaged over {len(tnames)} traces. "
                 "Paper: BoDe 2-20× lower p99 than CoDel/PIE, ≥ ~2× their power", fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.out / "bode.png", dpi=150)
    plt.close(fig)
