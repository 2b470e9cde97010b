"""Head to head: the three families of background-traffic mechanisms on one cell, one
workload and one set of metrics (``cellshare study head-to-head``).

Every seed paper compares its own mechanism with a few baselines on its own set-up. This
study puts them side by side: no management (CUBIC, BBR backgrounds), the end host
(Legilimens, LEDBAT, TCP-LP, Vegas), the network (Sneaker, BoDe with DiffServ classes, strict
priority, ideal priority), the receiver (RTAC, DRWA on the background flows) and two
combinations (Legilimens and RTAC behind BoDe), on the Legilimens §V-E workload.

The design is data (:data:`MECHANISMS`, :data:`VARIANTS`, :data:`FULL`, :data:`QUICK`);
:func:`design_lines` states it for ``--list`` and the page. Each run's metrics are written
to ``OUT/runs/<id>.json`` as it completes (write then rename), so a killed study resumes
where it stopped; ``OUT/head-to-head.json`` holds the aggregates (means and 95 % intervals
over seeds), ``OUT/report/index.html`` the report.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from . import Interval, Study, StudyError, ci95, fmt, render_committed_docs, study

NAME = "head-to-head"
N_UES = 100
FG_DSCP, BG_DSCP = 0, 1
CUBIC = {"kind": "cubic"}
#: The cell: 10 MHz, 2 spatial layers, UEs uniform over the annulus 50-500 m (the
#: legilimens-at-scale layout) with Rayleigh fading on the realistic link (the default link).
CHANNEL = {"kind": "radio", "distance_range_m": [50.0, 500.0], "layers": 2, "fading": "rayleigh"}
#: The mobile variant: three sites 500 m apart on a line, every UE on a random waypoint walk
#: at 3-60 km/h (pauses 0-5 s) over the sites' area, handed over by A3 (docs/mobility.md).
SITES_M = [[0.0, 0.0], [500.0, 0.0], [1000.0, 0.0]]
MOBILITY = {"kind": "random_waypoint", "speed_kmh": [3.0, 60.0], "pause_s": [0.0, 5.0]}
#: RTAC's link capacity for Eq. (2.11)'s BDP: the cell's capacity (the workload generator's
#: estimate for this cell is 58-61 Mbit/s).
RTAC_CAPACITY_MBPS = 60.0
#: BoDe's bounded delay in each DiffServ class (Table I of the BoDe paper: 20 ms for bulk TCP).
BODE_DELAY_MS = 20.0
#: The foreground size classes of the §V-E mix (64 KB / 1 MB / 32 MB).
SIZES = ("short", "medium", "long")
#: Flows arriving in the last 10 % of a run are left out of the FCT statistics (they could
#: not complete whatever the mechanism).
FCT_TAIL = 0.1


@dataclass(frozen=True)
class Mechanism:
    """One way of carrying the background: its sender, receiver window, queue discipline and
    MAC scheduler. `bg_cc` None is the reference without background."""

    label: str
    family: str
    bg_cc: Optional[dict]
    rwnd: Optional[dict] = None
    aqm: Optional[dict] = None
    scheduler: str = "pf"
    what: str = ""


def _bode() -> dict:
    bode = {"kind": "bode", "bounded_delay_ms": BODE_DELAY_MS}
    return {"kind": "diffserv", "classes": [{"dscp": [FG_DSCP], "aqm": bode}, {"dscp": [BG_DSCP], "aqm": bode}]}


_RTAC = {"kind": "rtac", "capacity_mbps": RTAC_CAPACITY_MBPS}
_DRWA = {"kind": "drwa", "lambda": 3.0}
REFERENCE = "w/o bg"
MECHANISMS: tuple[Mechanism, ...] = (
    Mechanism(REFERENCE, "reference", None, what="no background flows: the reference every harm is measured against"),
    Mechanism("CUBIC", "no management", CUBIC, what="CUBIC background, per-UE FIFO"),
    Mechanism("BBR", "no management", {"kind": "bbr"}, what="BBR background, per-UE FIFO"),
    Mechanism("Legilimens", "end host", {"kind": "legilimens"}, what="Legilimens with its default rule set (Algorithm 1 plus the rules cc.additions lists; docs/legilimens.md)"),
    Mechanism("Legilimens as printed", "end host", {"kind": "legilimens", "as_printed": True},
              what="Algorithm 1 as the paper prints it: every rule cc.additions lists switched off"),
    Mechanism("LEDBAT", "end host", {"kind": "ledbat"}, what="LEDBAT (RFC 6817, 100 ms target)"),
    Mechanism("TCP-LP", "end host", {"kind": "tcp_lp"}, what="TCP-LP"),
    Mechanism("Vegas", "end host", {"kind": "vegas"}, what="TCP Vegas"),
    Mechanism("Sneaker", "in network", CUBIC, aqm={"kind": "sneaker", "rate": "practical", "beta": 0.7},
              what="Sneaker practical (Eq. 5) at the base station, β = 0.7 for the CUBIC background"),
    Mechanism("BoDe+DiffServ", "in network", CUBIC, aqm=_bode(),
              what=f"per-UE DiffServ classes (foreground first), BoDe at {BODE_DELAY_MS:g} ms in each"),
    Mechanism("Strict priority", "in network", CUBIC, aqm={"kind": "strict_priority"},
              what="Sneaker's strict-priority dropper: background dropped while foreground is queued"),
    Mechanism("Ideal priority", "in network", CUBIC, scheduler="priority",
              aqm={"kind": "diffserv", "classes": [{"dscp": [FG_DSCP]}, {"dscp": [BG_DSCP]}]},
              what="priority MAC scheduler (foreground UEs first, PF within) and per-UE strict priority"),
    Mechanism("RTAC", "receiver", CUBIC, rwnd=_RTAC,
              what=f"RTAC receive window on the background (capacity {RTAC_CAPACITY_MBPS:g} Mbit/s)"),
    Mechanism("DRWA", "receiver", CUBIC, rwnd=_DRWA, what="DRWA receive window on the background (λ = 3)"),
    Mechanism("Legilimens+BoDe", "combination", {"kind": "legilimens"}, aqm=_bode(),
              what="Legilimens background behind BoDe with DiffServ classes"),
    Mechanism("RTAC+BoDe", "combination", CUBIC, rwnd=_RTAC, aqm=_bode(),
              what="RTAC-windowed CUBIC background behind BoDe with DiffServ classes"),
)
BY_LABEL = {m.label: m for m in MECHANISMS}
FAMILIES = ("no management", "end host", "in network", "receiver", "combination")


@dataclass(frozen=True)
class Variant:
    """A layout: which UEs carry a background flow (`bg_fraction` of them drawn per seed, or
    every UE at 1.0), whether the UEs move through several cells, and its loads (None: the
    design's)."""

    key: str
    title: str
    bg_fraction: float
    mobile: bool = False
    loads: Optional[tuple[float, ...]] = None


VARIANTS: tuple[Variant, ...] = (
    Variant("fraction", "background at 20 % of the UEs", 0.2),
    Variant("every", "background at every UE", 1.0),
    Variant("mobile", "mobile: 3 cells, random waypoint 3-60 km/h, background at 20 % of the UEs", 0.2, True, (0.6,)),
)


@dataclass(frozen=True)
class Design:
    """What a study runs: every mechanism in every variant at every load and seed."""

    mode: str
    mechanisms: tuple[str, ...]
    variants: tuple[str, ...]
    loads: tuple[float, ...]
    seeds: tuple[int, ...]
    duration_s: float
    n_ues: int = N_UES

    def jobs(self) -> list[dict]:
        """One job per run; the run without background is shared by the static variants (it
        does not depend on where a background would be)."""
        out, seen = [], set()
        for vk in self.variants:
            v = _variant(vk)
            for load in (v.loads or self.loads):
                for mech in (REFERENCE, *[m for m in self.mechanisms if m != REFERENCE]):
                    for seed in self.seeds:
                        src = "mobile" if v.mobile else "static"
                        rid = (f"{src}-nobg-load{round(load * 100)}-seed{seed}" if mech == REFERENCE else
                               f"{vk}-{_slug(mech)}-load{round(load * 100)}-seed{seed}")
                        if rid in seen:
                            continue
                        seen.add(rid)
                        out.append({"id": rid, "variant": vk, "mechanism": mech, "load": load, "seed": seed,
                                    "duration_s": self.duration_s, "n_ues": self.n_ues})
        return out


FULL = Design("full", tuple(m.label for m in MECHANISMS), tuple(v.key for v in VARIANTS), (0.3, 0.6, 0.8),
              (1, 2, 3, 4, 5), 120.0)
QUICK = Design("quick", FULL.mechanisms, FULL.variants, FULL.loads, (1, 2, 3), 30.0)


def _variant(key: str) -> Variant:
    for v in VARIANTS:
        if v.key == key:
            return v
    raise StudyError(f"variant {key!r}: expected one of {', '.join(v.key for v in VARIANTS)}")


def _slug(label: str) -> str:
    return label.lower().replace(" ", "-").replace("+", "-").replace("/", "")


def bg_ues(n_ues: int, fraction: float, seed: int) -> list[int] | str:
    """The UEs carrying a background flow: every UE at fraction 1, else ``round(fraction ·
    n_ues)`` UEs drawn with the seed (the same for every mechanism)."""
    if fraction >= 1.0:
        return "all"
    return sorted(random.Random(seed).sample(range(n_ues), max(1, round(fraction * n_ues))))


def scenario(job: dict) -> dict:
    """The scenario of one job."""
    mech, v = BY_LABEL[job["mechanism"]], _variant(job["variant"])
    n = int(job["n_ues"])
    flows = []
    if mech.bg_cc is not None:
        transport: dict[str, Any] = {"kind": "tcp", "cc": dict(mech.bg_cc)}
        if mech.rwnd is not None:
            transport["tcp"] = {"rwnd": dict(mech.rwnd)}
        flows.append({"name": "bg", "ues": bg_ues(n, v.bg_fraction, int(job["seed"])), "class": "background",
                      "dscp": BG_DSCP, "transport": transport})
    cell: dict[str, Any] = {"bandwidth_mhz": 10, "scheduler": {"kind": mech.scheduler}}
    if mech.aqm is not None:
        cell["aqm"] = json.loads(json.dumps(mech.aqm))
    ue: dict[str, Any] = {"count": n, "channel": dict(CHANNEL)}
    sc: dict[str, Any] = {
        "name": job["id"],
        "simulation": {"duration_s": float(job["duration_s"]), "seed": int(job["seed"]), "trace_interval_ms": 0},
        "cell": cell,
        "ues": [ue],
        "flows": flows,
        "workload": {"ues": "all", "transport": {"kind": "tcp", "cc": dict(CUBIC)}, "dscp": FG_DSCP,
                     "arrivals": {"kind": "poisson", "load": float(job["load"]), "preset": "legilimens"}},
    }
    if v.mobile:
        del ue["channel"]["distance_range_m"]
        ue["mobility"] = dict(MOBILITY)
        sc["network"] = {"layout": {"kind": "positions", "sites_m": SITES_M}}
    return sc


def _pct(xs: list[float], q: float) -> Optional[float]:
    """The `q` percentile (linear interpolation, numpy's default) of `xs`; None when empty."""
    import numpy as np

    return float(np.percentile(xs, q)) if xs else None


def metrics(summary: dict, duration: float) -> dict:
    """A run's metrics (from `Result.summary`)."""
    flows = summary["flows"]
    cutoff = duration * (1 - FCT_TAIL)
    out: dict[str, Any] = {"prb_utilization": summary["prb_utilization"]}
    for size in SIZES:
        fs = [f for f in flows if f["category"] == size and f["start_s"] <= cutoff]
        # An incomplete flow counts at its age at the end of the run (a lower bound).
        fct = [f["fct_s"] if f["completed"] and f["fct_s"] is not None else duration - f["start_s"] for f in fs]
        out[f"fct_p50_{size}_s"] = _pct(fct, 50)
        out[f"fct_p95_{size}_s"] = _pct(fct, 95)
        out[f"completed_{size}"] = (sum(1 for f in fs if f["completed"]) / len(fs)) if fs else None
    longs = [f["throughput_mbps"] for f in flows if f["category"] == "long"]
    out["fg_long_mbps"] = sum(longs) / len(longs) if longs else None
    classes = {c["class"]: c for c in summary["classes"]}
    fg, bg = classes.get("foreground"), classes.get("background")
    out["fg_goodput_mbps"] = fg["goodput_mbps"] if fg else 0.0
    out["bg_goodput_mbps"] = bg["goodput_mbps"] if bg else 0.0
    out["fg_qdelay_p99_ms"] = fg["queue_delay_ms"]["p99"] if fg and fg["queue_delay_ms"]["count"] else None
    bgt = [f["throughput_mbps"] for f in flows if f["category"] == "background"]
    s1, s2 = sum(bgt), sum(x * x for x in bgt)
    out["bg_jain"] = (s1 * s1 / (len(bgt) * s2)) if bgt and s2 > 0 else None
    out["fg_timeouts"] = sum(f["timeouts"] for f in flows if f["category"] in SIZES)
    out["bg_timeouts"] = sum(f["timeouts"] for f in flows if f["category"] == "background")
    out["handovers"] = summary.get("handovers")
    return out


def run_job(job: dict) -> dict:
    """Runs one job (in a worker) and returns its metrics with the job."""
    from ..api import run

    t0, c0 = time.perf_counter(), time.process_time()
    res = run(scenario(job))
    m = metrics(res.summary, float(job["duration_s"]))
    return {"job": job, "metrics": m, "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}


#: The metrics reported per mechanism, with their units and which direction is better.
METRICS: tuple[tuple[str, str, str], ...] = (
    *[(f"fct_{p}_{s}_s", f"{s} FCT {p}", "s") for s in SIZES for p in ("p50", "p95")],
    ("fg_long_mbps", "foreground long-flow throughput", "Mbit/s per flow"),
    ("fg_goodput_mbps", "foreground goodput", "Mbit/s"),
    ("bg_goodput_mbps", "background goodput", "Mbit/s"),
    ("fg_qdelay_p99_ms", "foreground p99 queueing delay", "ms"),
    ("bg_jain", "Jain's index among background flows", ""),
    ("fg_timeouts", "foreground timeouts", "per run"),
    ("bg_timeouts", "background timeouts", "per run"),
    ("prb_utilization", "PRB utilization", ""),
    *[(f"completed_{s}", f"{s} flows completed", "share") for s in SIZES],
    *[(f"fct_{p}_{s}_ratio", f"{s} FCT {p} / w/o bg", "") for s in SIZES for p in ("p50", "p95")],
    ("harm", "harm to the foreground", "%"),
)
_RATIOS = [f"fct_{p}_{s}" for s in SIZES for p in ("p50", "p95")]


def harm(m: dict, ref: dict) -> dict:
    """The background's cost to the foreground, paired with the same seed's run without
    background: each FCT percentile's ratio, and `harm` = the geometric mean of the six
    ratios − 1, in % (geometric: a halving and a doubling cancel, and one class's large ratio
    does not swamp the others). A size class without flows in the run (a short run may have
    no long flow) is left out of both."""
    out: dict[str, Optional[float]] = {}
    rs = []
    for k in _RATIOS:
        a, b = m.get(f"{k}_s"), ref.get(f"{k}_s")
        r = a / b if a is not None and b else None
        out[f"{k}_ratio"] = r
        if r is not None:
            rs.append(r)
    out["harm"] = (math.exp(sum(math.log(r) for r in rs) / len(rs)) - 1.0) * 100.0 \
        if rs and all(r > 0 for r in rs) else None
    return out


def _ref_id(job: dict) -> str:
    src = "mobile" if _variant(job["variant"]).mobile else "static"
    return f"{src}-nobg-load{round(job['load'] * 100)}-seed{job['seed']}"


def _round(v: Optional[float]) -> Optional[float]:
    return None if v is None else float(f"{v:.5g}")


def aggregate(design: Design, results: dict[str, dict]) -> dict:
    """The aggregates: per variant, load and mechanism, each metric's mean and 95 % interval
    over seeds (the harm paired per seed with the run without background)."""
    cells = []
    for vk in design.variants:
        v = _variant(vk)
        for load in (v.loads or design.loads):
            for mech in (REFERENCE, *[m for m in design.mechanisms if m != REFERENCE]):
                per_seed: dict[str, list] = {}
                for seed in design.seeds:
                    job = {"variant": vk, "mechanism": mech, "load": load, "seed": seed}
                    rid = _ref_id(job) if mech == REFERENCE else f"{vk}-{_slug(mech)}-load{round(load * 100)}-seed{seed}"
                    m = dict(results[rid]["metrics"])
                    m.update(harm(m, results[_ref_id(job)]["metrics"]))
                    for k, _, _ in METRICS:
                        per_seed.setdefault(k, []).append(m.get(k))
                stats = {}
                for k, _, _ in METRICS:
                    iv = ci95(per_seed[k])
                    stats[k] = {"mean": _round(iv.mean), "ci": _round(iv.half), "n": iv.n}
                cells.append({"variant": vk, "load": load, "mechanism": mech, "family": BY_LABEL[mech].family,
                              "metrics": stats})
    doc = {"study": NAME, "mode": design.mode, "design": _design_doc(design), "cells": cells}
    doc["conclusions"] = conclusions(doc)
    doc["identical"] = identical(doc)
    return doc


def identical(doc: dict) -> list[list[str]]:
    """Pairs of mechanisms whose every number is the same in every setting (one of them
    never acted, e.g. a receive window that never fell below the sender's window)."""
    by: dict[str, list] = {}
    for c in doc["cells"]:
        by.setdefault(c["mechanism"], []).append(c["metrics"])
    names = list(by)
    return [[a, b] for i, a in enumerate(names) for b in names[i + 1:] if by[a] == by[b]]


#: Choices the papers leave open, stated on the page and in the report.
CHOICES: tuple[str, ...] = (
    "Background placement: one always-on background download at 20 % of the UEs (drawn per seed, the same UEs for "
    "every mechanism), and, as a second layout, at every UE (the Legilimens paper's \"background flows to each "
    "device\"). A UE's foreground and background share its RLC queue unless a mechanism splits it.",
    "In-network mechanisms act on a CUBIC background (the default sender a CDN runs). Sneaker's window model then "
    "takes β = 0.7, CUBIC's decrease (the Sneaker paper's Reno has 0.5).",
    f"BoDe with DiffServ: two classes per UE queue, the foreground (DSCP {FG_DSCP}) served before the background "
    f"(DSCP {BG_DSCP}), BoDe at {BODE_DELAY_MS:g} ms in each (the BoDe paper's D for bulk TCP).",
    "Ideal priority is the Legilimens paper's: the priority MAC scheduler (UEs with foreground queued first, PF "
    "within each group) and per-UE strict priority between the classes.",
    f"RTAC and DRWA run at the background flows' receivers; RTAC's Eq. (2.11) takes the cell's capacity, "
    f"{RTAC_CAPACITY_MBPS:g} Mbit/s (a receiver does not know its share of a loaded cell).",
    "FCT statistics leave out flows arriving in the last 10 % of a run; a flow still running at the end counts at "
    "its age then (a lower bound), so a mechanism that starves long flows shows it in their FCT and in the share "
    "completed.",
    "The harm to the foreground is paired: the same seed gives the same foreground arrivals with and without "
    "background, and the harm is computed per seed before the interval is taken over seeds.",
)


def _design_doc(design: Design) -> dict:
    return {
        "choices": list(CHOICES),
        "reference": REFERENCE,
        "families": list(FAMILIES),
        "sizes": list(SIZES),
        **asdict(design),
        "variants_detail": [asdict(_variant(k)) for k in design.variants],
        "mechanisms_detail": [asdict(BY_LABEL[k]) for k in design.mechanisms],
        "cell": "10 MHz LTE cell, PF scheduler (priority for ideal priority), realistic link (BLER-targeted AMC, "
                "HARQ), Rayleigh fading, 2 layers, UEs uniform over 50-500 m, 512 KB RLC queue per UE",
        "workload": "Legilimens Sec. V-E: Poisson arrivals to every UE, 64 KB / 1 MB / 32 MB flows at 10 / 30 / 60 % "
                    "of bytes, CUBIC, at the given share of the cell's PRBs",
        "runs": len(design.jobs()),
    }


def interval(stat: dict) -> Interval:
    return Interval(stat["mean"], stat["ci"], stat["n"])


def conclusions(doc: dict) -> list[dict]:
    """Statements the intervals support, per variant and load: which mechanisms harm the
    foreground least (those whose interval separates from every other's are named alone;
    mechanisms whose intervals overlap the best one's are named together), which of those
    carries the most background, and whether an unmanaged CUBIC background's harm is
    separated from zero. A statement is made only where intervals separate."""
    out = []
    by: dict[tuple, list[dict]] = {}
    for c in doc["cells"]:
        if c["mechanism"] != REFERENCE:
            by.setdefault((c["variant"], c["load"]), []).append(c)
    for (vk, load), cs in by.items():
        known = [c for c in cs if c["metrics"]["harm"]["mean"] is not None and c["metrics"]["harm"]["ci"] is not None]
        if len(known) < 2:
            continue
        best = min(known, key=lambda c: c["metrics"]["harm"]["mean"])
        bi = interval(best["metrics"]["harm"])
        tied = [c for c in known if not bi.separated_below(interval(c["metrics"]["harm"]))]
        worse = [c for c in known if c not in tied]
        lines = []
        least: list[str] = []
        most_bg: Optional[str] = None
        if worse:
            least = [c["mechanism"] for c in tied]
            names = ", ".join(f"{c['mechanism']} ({_iv(c, 'harm')} %)" for c in sorted(
                tied, key=lambda c: c["metrics"]["harm"]["mean"]))
            lines.append(f"Least harm to the foreground: {names}. The harm intervals of "
                         f"{', '.join(c['mechanism'] for c in worse)} lie above that of {best['mechanism']}"
                         + ("; those named here overlap it and are not told apart." if len(tied) > 1 else "."))
            if len(tied) > 1:
                top = max(tied, key=lambda c: c["metrics"]["bg_goodput_mbps"]["mean"] or 0.0)
                ti = interval(top["metrics"]["bg_goodput_mbps"])
                rest = [c for c in tied if c is not top]
                if all(interval(c["metrics"]["bg_goodput_mbps"]).separated_below(ti) for c in rest):
                    most_bg = top["mechanism"]
                    lines.append(f"Among those, {top['mechanism']} carries the most background "
                                 f"({_iv(top, 'bg_goodput_mbps')} Mbit/s, its interval above the others').")
                else:
                    close = [c["mechanism"] for c in rest
                             if not interval(c["metrics"]["bg_goodput_mbps"]).separated_below(ti)]
                    lines.append(f"Among those, the background goodput of {top['mechanism']} "
                                 f"({_iv(top, 'bg_goodput_mbps')} Mbit/s) is not separated from that of "
                                 f"{', '.join(close)}.")
        else:
            lines.append("No mechanism's harm interval separates from the best one's: the mechanisms cannot be "
                         "ranked by harm at this load.")
        dominated = []
        for a in known:
            for b in known:
                if b is not a and interval(b["metrics"]["harm"]).separated_below(interval(a["metrics"]["harm"])) \
                        and interval(a["metrics"]["bg_goodput_mbps"]).separated_below(
                            interval(b["metrics"]["bg_goodput_mbps"])):
                    dominated.append(f"{a['mechanism']} by {b['mechanism']}")
                    break
        if dominated:
            lines.append("Dominated (another mechanism harms the foreground less and carries more background, both "
                         "intervals separate): " + "; ".join(dominated) + ".")
        cubic = next((c for c in known if c["mechanism"] == "CUBIC"), None)
        if cubic is not None:
            ci = interval(cubic["metrics"]["harm"])
            if ci.low is not None and ci.low > 0:
                lines.append(f"An unmanaged CUBIC background costs the foreground {_iv(cubic, 'harm')} % "
                             "(the interval excludes zero).")
        out.append({"variant": vk, "load": load, "lines": lines, "least_harm": least, "most_background_of_least_harm": most_bg})
    return out


def _iv(c: dict, key: str) -> str:
    s = c["metrics"][key]
    return fmt(s["mean"], s["ci"])


def design_lines(quick: bool) -> list[str]:
    """The design in words (``--list`` and the page)."""
    d = QUICK if quick else FULL
    mechs = "; ".join(f"{fam}: " + ", ".join(m.label for m in MECHANISMS if m.family == fam) for fam in FAMILIES)
    return [
        f"mode: {d.mode} — {len(d.seeds)} seeds ({', '.join(map(str, d.seeds))}), {d.duration_s:g} simulated s per "
        f"run, {len(d.jobs())} runs",
        f"cell: {N_UES} UEs, 10 MHz, 2 layers, realistic link with Rayleigh fading, UEs uniform over 50-500 m",
        "workload: Legilimens Sec. V-E mix (64 KB / 1 MB / 32 MB at 10 / 30 / 60 % of bytes, CUBIC) at every UE, "
        f"loads {', '.join(f'{l:.0%}' for l in d.loads)} of the PRBs",
        "layouts: " + "; ".join(f"{v.title}" + (f" (load {', '.join(f'{l:.0%}' for l in v.loads)})" if v.loads else "")
                                for v in VARIANTS),
        f"mechanisms: {mechs}; reference: {REFERENCE}",
        "metrics: FCT p50/p95 per size class, foreground long-flow throughput and goodput, background goodput, "
        "foreground p99 queueing delay, Jain among background flows, timeouts, harm = geometric mean of the FCT-percentile "
        "ratios to the same seed without background − 1",
        "intervals: t-based 95 % over seeds; a conclusion is stated only where intervals separate",
    ]


# -- running --------------------------------------------------------------------------------

STATE = "study.json"


def _prepare_out(out: Path, design: Design, force: bool) -> None:
    """`out` must be absent, empty, or a folder of this study with the same design (resumed);
    `force` replaces a study folder of another design."""
    want = json.loads(json.dumps({"study": NAME, "design": asdict(design)}))
    if out.exists() and not out.is_dir():
        raise StudyError(f"--out {str(out)!r}: is a file; expected a folder to create (or this study's folder)")
    if out.is_dir() and any(out.iterdir()):
        state = out / STATE
        try:
            have = json.loads(state.read_text())
        except (OSError, ValueError):
            raise StudyError(f"--out {str(out)!r}: holds files that are not a study's (no readable {STATE}); "
                             "expected an empty folder or a previous head-to-head output") from None
        if have.get("study") != NAME:
            raise StudyError(f"--out {str(out)!r}: a folder of study {have.get('study')!r}; expected {NAME!r}")
        if have.get("design") != want["design"]:
            if not force:
                raise StudyError(f"--out {str(out)!r}: a {have.get('design', {}).get('mode')} study of another design "
                                 f"(this one is {design.mode}); use --force to replace its runs")
            for p in (out / "runs").glob("*.json"):
                p.unlink()
    (out / "runs").mkdir(parents=True, exist_ok=True)
    _atomic_write(out / STATE, json.dumps(want, indent=1, sort_keys=True) + "\n")


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def _done(out: Path, jobs: Sequence[dict]) -> dict[str, dict]:
    """The completed runs in `out/runs` (a file that cannot be read, or of another job, is
    run again)."""
    done = {}
    for job in jobs:
        p = out / "runs" / f"{job['id']}.json"
        try:
            doc = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and doc.get("job") == job and isinstance(doc.get("metrics"), dict):
            done[job["id"]] = doc
    return done


def run_study(out: os.PathLike | str, *, quick: bool = False, design: Optional[Design] = None,
              workers: Optional[int] = None, ray_address: Optional[str] = None, progress: bool = False,
              force: bool = False, report: bool = True) -> dict:
    """Runs (or resumes) the study into `out` (the :data:`QUICK` or :data:`FULL` design, or
    `design`) and returns the aggregate document (also written as ``out/head-to-head.json``;
    the report as ``out/report/index.html``)."""
    from ..parallel import run_parallel

    design = design or (QUICK if quick else FULL)
    out = Path(out)
    _prepare_out(out, design, force)
    jobs = design.jobs()
    results = _done(out, jobs)
    todo = [j for j in jobs if j["id"] not in results]
    t0 = time.perf_counter()
    for _, r in run_parallel(run_job, todo, workers=workers, ray_address=ray_address, progress=progress,
                             description=f"{NAME} ({design.mode})"):
        _atomic_write(out / "runs" / f"{r['job']['id']}.json", json.dumps(r, sort_keys=True) + "\n")
        results[r["job"]["id"]] = r
    doc = aggregate(design, results)
    doc["runs"] = {"total": len(jobs), "ran": len(todo), "resumed": len(jobs) - len(todo),
                   "wall_s": round(time.perf_counter() - t0, 1),
                   "run_wall_s": round(sum(r["wall_s"] for r in results.values()), 1),
                   "run_cpu_s": round(sum(r.get("cpu_s", r["wall_s"]) for r in results.values()), 1),
                   "workers": workers or (None if ray_address else _workers()), "ray": ray_address}
    _atomic_write(out / f"{NAME}.json", dump(doc))
    if report:
        from .report import write_report

        write_report(doc, out / "report")
    return doc


def dump(doc: dict) -> str:
    """The aggregate document as JSON text: indented, one line per cell (a diff shows which
    cells moved)."""
    head = {k: v for k, v in doc.items() if k != "cells"}
    text = json.dumps(head, indent=1, sort_keys=True)
    cells = ",\n".join("  " + json.dumps(c, sort_keys=True) for c in doc["cells"])
    return text[:-2] + ',\n "cells": [\n' + cells + "\n ]\n}\n"


def _workers() -> int:
    from ..parallel import default_workers

    return default_workers()


#: The committed output the docs page is generated from.
def committed_output() -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "study" / f"{NAME}.json"


def docs_page_path() -> Path:
    return Path(__file__).resolve().parents[3] / "docs" / "head-to-head.md"


def render_docs() -> list[Path]:
    """Regenerates ``docs/head-to-head.md`` of this source tree and its figures
    (``docs/img/head-to-head-load*.png``) from the committed output; returns the files
    written."""
    from .report import docs_figures, docs_page

    return render_committed_docs(committed_output(), docs_page_path(), docs_page, docs_figures)


study(Study(NAME, "Head to head: end-host, in-network and receiver background mechanisms on one cell",
            design_lines, run_study, render_docs))
