"""What NR does to the papers' mechanisms (``cellshare study nr-mechanisms``).

Observations first: the LTE reproductions' set-ups re-run on an NR cell at numerology
μ = 0, 1, 2, beside the LTE cell they were written for.

- **Legilimens' Figure 7 set-up** (`legilimens-onoff`: a CUBIC foreground on/off at one UE,
  a background at another; the CUBIC-background and no-background baselines), with the
  controller as it is (1 ms TSval tick, [legilimens] Algorithm 1) and with its
  `slot_clock_us` option (a receiver whose TSval ticks in microseconds, binned into slots).
- **Slot reconstruction**: Algorithm 1 as printed fed the ACK stream of a known schedule
  (the background served whenever a competitor is not, in runs of given lengths) with
  TSvals on a 1 ms clock (2^μ slots per tick) and on a slot clock: how many competitor runs
  it detects (busy verdicts) and its capacity estimate against the truth. The simulator
  has no per-slot log of the scheduler, so the schedule is given, not recorded.
- **BoDe on a trace-free NR channel**: one CUBIC flow on a Rayleigh-fading radio channel,
  BoDe (bounded delay 20 ms) against TailDrop (1.5 MB), the `bode` reproduction's path.
- **Sneaker's prioritisation** (`sneaker-prioritization`'s set-up: Reno background and
  on/off Reno foreground, PFS only against Sneaker); on NR Eq. (6)'s TTI is the slot.

The carrier is 10 MHz FDD at every μ (52, 24 and 11 PRBs at 15, 30 and 60 kHz, TS 38.101-1
Table 5.3.2-1): the bandwidth the LTE reproductions use, so the cell's rate per second is
about the same while the slots per millisecond (1, 2, 4) differ; FDD so that no TDD pattern
removes downlink slots.

The summary is written to ``OUT/nr-mechanisms.json``; the committed full run
(``python/cellshare/data/study/nr-mechanisms.json``) renders ``docs/nr-mechanisms.md`` and
its figures (``--render-docs``).
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import Study, StudyError, ci95, fmt, render_committed_docs, study

NAME = "nr-mechanisms"
BANDWIDTH_MHZ = 10
#: (key, label, numerology or None for LTE)
CELLS = (("lte", "LTE", None), ("nr0", "NR μ=0", 0), ("nr1", "NR μ=1", 1), ("nr2", "NR μ=2", 2))
#: Legilimens' Fig. 7 set-up: the reproduction's channel (240 m, no fast fading, 2 layers).
FIG7_CHANNEL = {"kind": "radio", "distance_m": 240.0, "layers": 2, "fading": "none"}
BODE_D_MS = 20.0
BODE_QUEUE_BYTES = 1_500_000
#: The competitor patterns of the reconstruction: (competitor's slots, background's slots) per run.
PATTERNS = ((1, 1), (2, 1), (3, 1), (2, 2), (4, 4))
LAMBDA = 0.5


@dataclass(frozen=True)
class Design:
    mode: str
    seeds: tuple[int, ...]
    on_s: float            # Legilimens on/off period
    bode_s: float          # BoDe run length
    sneaker_periods: int   # Sneaker on/off cycles


FULL = Design("full", (1, 2, 3, 4, 5), 30.0, 60.0, 6)
QUICK = Design("quick", (1, 2), 10.0, 20.0, 2)


def slot_us(mu: Optional[int]) -> int:
    return 1000 >> (mu or 0)


def _cell(sc: dict, mu: Optional[int]) -> dict:
    sc["cell"]["bandwidth_mhz"] = BANDWIDTH_MHZ
    if mu is not None:
        sc["cell"]["rat"] = "nr"
        sc["cell"]["nr"] = {"numerology": mu}
    return sc


def legilimens_backgrounds(mu: Optional[int]) -> list[tuple[str, Optional[dict]]]:
    """The Fig. 7 runs of one cell: no background, CUBIC, Legilimens (1 ms tick) and, on NR,
    Legilimens with the slot clock and Legilimens (1 ms tick) without its `queue_gating`
    addition (the rule that keeps a window-capped NORMAL sender from judging its own slots);
    and Legilimens (1 ms tick) on the ideal link (:data:`IDEAL_LINK`)."""
    out = [("none", None), ("cubic", {"kind": "cubic"}), ("legilimens", {"kind": "legilimens"})]
    if mu is not None:
        out.append(("legilimens-slot", {"kind": "legilimens", "slot_clock_us": slot_us(mu)}))
        out.append(("legilimens-noqg", {"kind": "legilimens", "additions": {"queue_gating": False}}))
    out.append(("legilimens-ideal", {"kind": "legilimens"}))
    return out


#: Background keys run on the ideal link (no block errors, no HARQ) instead of the realistic
#: one, beside a CUBIC-alone run on the same link.
IDEAL_LINK = ("legilimens-ideal",)


def _legilimens_runs(design: Design, cells) -> list[dict]:
    from ..api import run
    from ..reproduce.legilimens import FG_START, _onoff_metrics, _onoff_scenario

    duration = FG_START + 2 * 2 * design.on_s
    rows = []
    for key, label, mu in cells:
        for seed in design.seeds:
            def scenario(name: str, cc: Optional[dict], ideal: bool) -> dict:
                sc = _cell(_onoff_scenario(name, cc, duration, seed=seed, channel=FIG7_CHANNEL, on=design.on_s), mu)
                if ideal:
                    sc["cell"]["link"] = {"kind": "ideal"}
                return sc

            alone = {False: run(scenario("alone", None, False))}
            for bg, cc in legilimens_backgrounds(mu):
                if cc is None:
                    continue
                ideal = bg in IDEAL_LINK
                if ideal not in alone:
                    alone[ideal] = run(scenario("alone-ideal", None, True))
                r = run(scenario(bg, cc, ideal))
                m = _onoff_metrics(r, alone[ideal], duration, design.on_s)
                cap_on = cap_off = cap_before = None
                backoffs = None
                if cc["kind"] == "legilimens":
                    cap_on, cap_off = _capacity(r, duration, design.on_s, m["fg_alone_mbps"])
                    cap_before = _capacity_before(r, m["fg_alone_mbps"])
                    backoffs = sum(1 for x in r.flow("background")["mode_changes"]["mode"] if x == 4)
                rows.append({"cell": key, "bg": bg, "seed": seed, "bg_share_on": m["bg_share_on"],
                             "fg_ratio_on": m["fg_ratio_on"], "bg_off_ratio": m["bg_off_ratio"],
                             "fg_alone_mbps": m["fg_alone_mbps"], "recapture_mean_s": m["recapture_mean_s"],
                             "capacity_before": cap_before, "capacity_on": cap_on, "capacity_off": cap_off,
                             "backoffs": backoffs})
    return rows


def _capacity(r, duration: float, on_s: float, cell_mbps: float) -> tuple[Optional[float], Optional[float]]:
    """Legilimens' capacity estimate (its trace's `estimate`, Mbit/s), median over the
    foreground-on and over the foreground-off seconds, each over the cell's rate (the
    foreground's alone)."""
    import statistics

    from ..reproduce.legilimens import _phases

    on, off = _phases(duration, on_s)
    t = r.flow("background")["trace"]
    out = []
    for secs in (set(on), set(off)):
        xs = [e for ts, e in zip(t["t_s"], t["estimate"]) if int(ts) in secs and e is not None and math.isfinite(e)]
        out.append(statistics.median(xs) / cell_mbps if xs and cell_mbps > 0 else None)
    return out[0], out[1]


def _capacity_before(r, cell_mbps: float) -> Optional[float]:
    """Legilimens' capacity estimate before the foreground first starts: the median of its
    trace from 5 s to the start, over the cell's rate."""
    import statistics

    from ..reproduce.legilimens import FG_START

    t = r.flow("background")["trace"]
    xs = [e for ts, e in zip(t["t_s"], t["estimate"]) if 5.0 <= ts < FG_START and e is not None and math.isfinite(e)]
    return statistics.median(xs) / cell_mbps if xs and cell_mbps > 0 else None


def reconstruct(pattern: tuple[int, int], slots_per_tick: int, warmup_slots: int = 64,
                n_slots: int = 4096) -> dict:
    """Algorithm 1 as printed ([legilimens] lines 1-24: slots of equal TSval, gap = duration
    > 1, busy = rate < λ·capacity, capacity the first rate then a 1/5-weighted EWMA, raised
    only after a gap) on the ACK stream of a known schedule: the background alone for
    `warmup_slots`, then a competitor taking `pattern[0]` slots and the background
    `pattern[1]`, repeatedly. Each served slot carries 1 unit; one ACK per slot, TSval the
    tick of the slot (`slot_index // slots_per_tick`). Returns the competitor runs, the busy
    verdicts after the warm-up, the fraction of competitor runs followed by a busy verdict
    and the final capacity against the truth (`slots_per_tick` units per tick)."""
    comp, bgs = pattern
    served = [True] * warmup_slots
    runs = 0
    while len(served) < warmup_slots + n_slots:
        served += [False] * comp + [True] * bgs
        runs += 1
    ticks: dict[int, int] = {}
    for i, s in enumerate(served):
        if s:
            ticks[i // slots_per_tick] = ticks.get(i // slots_per_tick, 0) + 1
    warm_tick = warmup_slots // slots_per_tick
    cap = math.nan
    busy_after, gaps_after = 0, 0
    order = sorted(ticks)
    for prev, t in zip(order, order[1:]):
        duration = t - prev
        rate = ticks[prev] / duration
        if math.isnan(cap):
            cap = rate
        if duration > 1:
            if t > warm_tick:
                gaps_after += 1
                busy_after += rate < LAMBDA * cap
            if rate > cap:
                cap = 0.8 * cap + 0.2 * rate
        else:
            cap = 0.8 * cap + 0.2 * rate
    return {"pattern": f"{comp}:{bgs}", "slots_per_tick": slots_per_tick, "competitor_runs": runs,
            "gaps": gaps_after, "busy": busy_after, "detected": busy_after / runs,
            "capacity_ratio": cap / slots_per_tick}


def reconstruction_rows() -> list[dict]:
    rows = []
    for key, label, mu in CELLS:
        if mu is None:
            continue
        k = 1 << mu
        for p in PATTERNS:
            rows.append({"cell": key, "clock": "1 ms", **reconstruct(p, k)})
            rows.append({"cell": key, "clock": "slot", **reconstruct(p, 1)})
    return rows


def _bode_runs(design: Design, cells) -> list[dict]:
    from ..api import run

    rows = []
    for key, label, mu in cells:
        for seed in design.seeds:
            for aqm_key, aqm in (("taildrop", {"kind": "tail_drop"}),
                                 ("bode", {"kind": "bode", "bounded_delay_ms": BODE_D_MS})):
                sc = {"name": f"bode-{key}-{aqm_key}", "simulation": {"duration_s": design.bode_s, "seed": seed},
                      "cell": {"rlc_queue_bytes": BODE_QUEUE_BYTES, "aqm": aqm},
                      "wired": {"remote_delay_ms": 4.0, "uplink_delay_ms": 1.0},
                      "ues": [{"count": 1, "channel": {"kind": "radio", "distance_m": 150.0, "layers": 2,
                                                       "fading": "rayleigh"}}],
                      "flows": [{"name": "bulk", "ue": 0, "transport": {"kind": "tcp", "cc": {"kind": "cubic"}}}]}
                r = run(_cell(sc, mu))
                f = r.summary["flows"][0]
                rows.append({"cell": key, "aqm": aqm_key, "seed": seed, "p99_sojourn_ms": f["queue_delay_ms"]["p99"],
                             "max_sojourn_ms": f["queue_delay_ms"]["max"], "mbps": f["throughput_mbps"]})
    return rows


def _sneaker_runs(design: Design, cells) -> list[dict]:
    from ..api import run
    from ..reproduce import sneaker_prioritization as sp
    from ..reproduce.sneaker_common import mean, scenario

    duration = sp.FG_START + design.sneaker_periods * 2 * sp.PERIOD
    on = sp._on_seconds(duration)
    alone_s = [s for s in range(2, int(sp.FG_START))]
    rows = []
    for key, label, mu in cells:
        for seed in design.seeds:
            for aqm_key, aqm in (("pfs", {"kind": "tail_drop"}), ("sneaker", {"kind": "sneaker"})):
                sc = scenario(f"sneaker-{key}-{aqm_key}", aqm, 2, sp._flows(duration), duration, seed=seed)
                r = run(_cell(sc, mu))
                bg, fg = r.flow("background")["per_second_mbps"], r.flow("foreground")["per_second_mbps"]
                b, f = mean(bg[s] for s in on), mean(fg[s] for s in on)
                rows.append({"cell": key, "aqm": aqm_key, "seed": seed, "bg_share_on": b / (b + f) if b + f else 0.0,
                             "bg_alone_mbps": mean(bg[s] for s in alone_s), "fg_on_mbps": f,
                             "bg_timeouts": r.summary["flows"][0]["timeouts"]})
    return rows


def _agg(rows: list[dict], keys: tuple[str, ...], metrics: tuple[str, ...]) -> list[dict]:
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    out = []
    for g, rs in groups.items():
        cell = dict(zip(keys, g))
        for m in metrics:
            iv = ci95([r[m] for r in rs])
            cell[m] = [None if iv.mean is None else round(iv.mean, 4), None if iv.half is None else round(iv.half, 4)]
        cell["n"] = len(rs)
        out.append(cell)
    return out


def design_lines(quick: bool) -> list[str]:
    d = QUICK if quick else FULL
    return [f"{d.mode}: {len(d.seeds)} seeds; LTE and NR μ=0,1,2 at {BANDWIDTH_MHZ} MHz FDD; Legilimens Fig. 7 "
            f"on/off {d.on_s:g} s (1 ms tick and slot clock), BoDe vs TailDrop {d.bode_s:g} s, Sneaker vs PFS "
            f"{d.sneaker_periods} on/off cycles; Algorithm 1's slot reconstruction on {len(PATTERNS)} schedules"]


def run_study(out: os.PathLike | str, *, quick: bool = False, design: Optional[Design] = None,
              cells=CELLS, parts: tuple[str, ...] = ("legilimens", "reconstruction", "bode", "sneaker"),
              workers=None, ray_address=None, progress: bool = False, force: bool = False) -> dict:
    """Runs the study (in this process; every run is a few seconds) and writes
    ``out/nr-mechanisms.json``; returns the document."""
    if ray_address is not None:
        raise StudyError("--ray: nr-mechanisms runs in one process (its runs take seconds); leave --ray out")
    design = design or (QUICK if quick else FULL)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0, c0 = time.perf_counter(), _cpu()
    doc: dict = {"study": NAME, "mode": design.mode, "seeds": list(design.seeds), "on_s": design.on_s,
                 "bode_s": design.bode_s, "sneaker_periods": design.sneaker_periods,
                 "bandwidth_mhz": BANDWIDTH_MHZ, "cells": [[k, lab, mu] for k, lab, mu in cells]}
    n = 0
    if "legilimens" in parts:
        rows = _legilimens_runs(design, cells)
        n += len(rows) + 2 * len(cells) * len(design.seeds)
        doc["legilimens"] = _agg(rows, ("cell", "bg"), ("bg_share_on", "fg_ratio_on", "bg_off_ratio", "fg_alone_mbps",
                                                        "recapture_mean_s", "capacity_before", "capacity_on", "capacity_off",
                                                        "backoffs"))
    if "reconstruction" in parts:
        doc["reconstruction"] = reconstruction_rows()
    if "bode" in parts:
        rows = _bode_runs(design, cells)
        n += len(rows)
        doc["bode"] = _agg(rows, ("cell", "aqm"), ("p99_sojourn_ms", "max_sojourn_ms", "mbps"))
    if "sneaker" in parts:
        rows = _sneaker_runs(design, cells)
        n += len(rows)
        doc["sneaker"] = _agg(rows, ("cell", "aqm"), ("bg_share_on", "bg_alone_mbps", "fg_on_mbps", "bg_timeouts"))
    doc["runs"] = {"total": n, "ran": n, "resumed": 0, "wall_s": round(time.perf_counter() - t0, 1),
                   "cpu_s": round(_cpu() - c0, 1)}
    (out / f"{NAME}.json").write_text(dump(doc))
    _write_report(doc, out / "report")
    return doc


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the runs)."""
    import resource

    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _write_report(doc: dict, folder: Path) -> None:
    """``report/index.html``: the page rendered from this run's output, with its figures."""
    import html

    folder.mkdir(parents=True, exist_ok=True)
    if not all(p in doc for p in ("legilimens", "reconstruction", "bode", "sneaker")):
        # A partial run (the tests' `parts`): its numbers without the page.
        (folder / "index.html").write_text(f"<!doctype html><meta charset='utf-8'><title>{NAME}</title>\n"
                                           f"<pre>{html.escape(dump(doc))}</pre>\n")
        return
    (folder / "img").mkdir(exist_ok=True)
    docs_figures(doc, folder / "img")
    text = docs_page(doc)
    try:
        import markdown

        body = markdown.markdown(text, extensions=["tables"])
    except ImportError:
        body = f"<pre>{html.escape(text)}</pre>"
    (folder / "index.html").write_text(f"<!doctype html><meta charset='utf-8'><title>{NAME}</title>\n{body}\n")


def dump(doc: dict) -> str:
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- the page

def committed_output() -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "study" / f"{NAME}.json"


def docs_page_path() -> Path:
    return Path(__file__).resolve().parents[3] / "docs" / f"{NAME}.md"


def cell(doc: dict, part: str, **match) -> dict:
    for c in doc[part]:
        if all(c.get(k) == v for k, v in match.items()):
            return c
    raise KeyError(f"{part}: no cell {match}")


def _v(c: dict, m: str, scale: float = 1.0) -> str:
    mean, half = c[m]
    if mean is None:
        return "–"
    if half is None or half <= 1e-3 * abs(mean) or half < 5e-5:
        # No spread over the seeds (a deterministic channel): three significant digits.
        return f"{mean * scale:.3g}" + ("" if half is None else " ± 0")
    return fmt(mean * scale, half * scale)


LABEL = {k: lab for k, lab, _ in CELLS}


def docs_page(doc: dict) -> str:
    keys = [c[0] for c in doc["cells"]]
    nr = [k for k in keys if k != "lte"]
    L = [f"# What NR does to the mechanisms", "",
         "<!-- generated by `cellshare study nr-mechanisms --render-docs` from "
         "python/cellshare/data/study/nr-mechanisms.json; do not edit by hand -->", "",
         "The LTE reproductions' set-ups re-run on the [NR cell](nr.md) at numerology μ = 0, 1, 2: "
         "observations, not the papers' claims. Each number is the mean over "
         f"{len(doc['seeds'])} seeds with its 95 % confidence interval ({doc['mode']} design: "
         "`cellshare study nr-mechanisms`, `--quick` for a short run). "
         f"Every cell is {doc['bandwidth_mhz']} MHz FDD: the LTE reproductions' bandwidth, so the rate per second "
         "is about the same while a millisecond holds 1, 2 or 4 slots (52, 24 and 11 PRBs at 15, 30 and 60 kHz, "
         "TS 38.101-1 Table 5.3.2-1); FDD so that no TDD pattern removes downlink slots.", ""]
    # Legilimens
    L += ["## Legilimens' Figure 7 set-up", "",
          f"A CUBIC foreground at one UE, on {doc['on_s']:g} s and off {doc['on_s']:g} s from 20 s; a background at "
          "another UE (240 m, no fast fading, as `legilimens-onoff`). *Share* is the background's share of the "
          "delivered bytes while the foreground is on (0 = yields completely, 0.5 = an equal share); *fg* the "
          "foreground's throughput while on over its throughput alone; *idle use* the background's throughput "
          "while the foreground is off over the foreground's alone; *capacity* Legilimens' final capacity estimate "
          "(the median of its trace while the foreground is on, and while it is off) over the foreground's rate "
          "alone; *back-offs* the entries into back-off over the run.", "",
          "| cell | background | share while on | fg / alone | idle use | capacity / cell, fg on | "
          "capacity / cell, fg off | back-offs |",
          "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    names = {"cubic": "CUBIC", "legilimens": "Legilimens (1 ms TSval tick)",
             "legilimens-slot": "Legilimens, `slot_clock_us`",
             "legilimens-noqg": "Legilimens (1 ms tick), `queue_gating` off",
             "legilimens-ideal": "Legilimens (1 ms tick), ideal link"}
    for k in keys:
        for bg in ("cubic", "legilimens", "legilimens-slot", "legilimens-noqg", "legilimens-ideal"):
            try:
                c = cell(doc, "legilimens", cell=k, bg=bg)
            except KeyError:
                continue
            L.append(f"| {LABEL[k]} | {names[bg]} | {_v(c, 'bg_share_on')} | {_v(c, 'fg_ratio_on')} | "
                     f"{_v(c, 'bg_off_ratio')} | {_v(c, 'capacity_on')} | {_v(c, 'capacity_off')} | {_v(c, 'backoffs')} |")
    lte = cell(doc, "legilimens", cell="lte", bg="legilimens")
    tick = [cell(doc, "legilimens", cell=k, bg="legilimens") for k in nr]
    slot = [cell(doc, "legilimens", cell=k, bg="legilimens-slot") for k in nr]
    shares = [c["bg_share_on"][0] for c in tick]
    rising = all(a < b for a, b in zip(shares, shares[1:]))
    same0 = "nr0" in nr and cell(doc, "legilimens", cell="nr0", bg="legilimens") == {
        **cell(doc, "legilimens", cell="nr0", bg="legilimens-slot"), "bg": "legilimens"}
    L += ["", "![Background share while the foreground is on](img/nr-mech-legilimens.png)", "",
          f"Observed: on LTE Legilimens takes {_v(lte, 'bg_share_on')} of the cell while CUBIC is on; with its "
          "1 ms TSval tick on NR it takes " + ", ".join(f"{_v(c, 'bg_share_on')} at {LABEL[k]}" for k, c in zip(nr, tick))
          + ("; the more slots a tick holds, the less it yields" if rising else "")
          + " (CUBIC as the background takes 0.5). With the slot clock it takes "
          + ", ".join(f"{_v(c, 'bg_share_on')} at {LABEL[k]}" for k, c in zip(nr, slot)) + ". "
          + ("At μ = 0 the slot is the tick and both clocks give the same runs, so what separates NR μ=0 from "
             "LTE is the cell, not the clock (traced below)." if same0 else "")
          + _link_sentence(doc, keys), ""]
    if same0:
        L += _mu0_trace_lines(load_mu0_trace(), doc)
    # Where the capacity estimate stays low, NORMAL's cap (80 % of it) binds.
    for k, c in zip(nr, tick):
        cap, share, idle = c["capacity_off"][0], c["bg_share_on"][0], c["bg_off_ratio"][0]
        q = cell(doc, "legilimens", cell=k, bg="legilimens-noqg")
        if cap is not None and cap < 0.75 and abs(idle - 0.8 * cap) < 0.05:
            L += [f"At {LABEL[k]} the 1 ms-tick controller's capacity estimate stays at {_v(c, 'capacity_off')} of "
                  f"the cell even while the foreground is off, and it takes {_v(c, 'bg_off_ratio')} of the idle cell: "
                  f"NORMAL's cap, 80 % of the estimate, binds, with or without the foreground. With the "
                  f"`queue_gating` addition off (the rule that lets NORMAL's slots count only when its data "
                  f"queued at the base station) the estimate reaches "
                  f"{_v(q, 'capacity_off')} of the cell (foreground off) and the share while the foreground is on "
                  f"falls to {_v(q, 'bg_share_on')}, but the idle cell's use to {_v(q, 'bg_off_ratio')}: the "
                  "window-capped sender then judges its own slots, the case the addition exists for. Before the "
                  f"foreground first starts the estimate is {_v(c, 'capacity_before')} of the cell: it falls when "
                  "the foreground arrives, as in the replay's 1:1 at this numerology (the background's ticks each "
                  "carry one slot, back to back: no verdict, and the EWMA follows the share down), and it is not "
                  "raised when the foreground leaves: the cap keeps the sender from queueing, so its slots are not "
                  "counted (`queue_gating`), and an uncounted slot raises the estimate only when it carries at most "
                  "`LATE_DELIVERY_TTIS` (1.5) times it (`uncounted_raise`), while a tick now carries twice.", ""]
    # Reconstruction
    L += ["## Algorithm 1's slot reconstruction", "",
          "Algorithm 1 as printed fed the ACKs of a known schedule: the background alone, then a competitor "
          "taking *c* slots and the background *b* slots in turn (pattern *c:b*; under PF two backlogged UEs "
          "alternate, 1:1). One ACK per slot, its TSval the receiver's 1 ms tick (2^μ slots) or the slot itself. "
          "*Detected* is the busy verdicts per competitor run; *capacity* the final estimate over the "
          "background's true capacity per tick. The simulator keeps no per-slot log of its scheduler, so the "
          "schedules are given here, not recorded.", "",
          "| cell | pattern | detected, 1 ms tick | detected, slot clock | capacity, 1 ms tick | capacity, slot clock |",
          "| --- | --- | --- | --- | --- | --- |"]
    rec = doc["reconstruction"]
    for k in nr:
        for p in PATTERNS:
            pat = f"{p[0]}:{p[1]}"
            a = next(r for r in rec if r["cell"] == k and r["pattern"] == pat and r["clock"] == "1 ms")
            b = next(r for r in rec if r["cell"] == k and r["pattern"] == pat and r["clock"] == "slot")
            L.append(f"| {LABEL[k]} | {pat} | {a['detected']:.2f} | {b['detected']:.2f} | "
                     f"{a['capacity_ratio']:.2f} | {b['capacity_ratio']:.2f} |")
    L += ["", "![Competitor runs detected](img/nr-mech-reconstruction.png)", "",
          _reconstruction_sentence(rec), "",
          "## The variant: a slot clock", "",
          "The smallest change that makes the background yield on NR: Algorithm 1's TTI becomes the slot, read "
          "from the receiver's timestamps at microsecond resolution (`cc = { kind = \"legilimens\", "
          "slot_clock_us = 500 }` at μ = 1; 1000 / 2^μ in general; off by default, so LTE runs are unchanged; "
          "the Figure 7 set-up with it is `scenarios/nr-legilimens-slot-clock.toml`). "
          "Dividing the gaps of a 1 ms tick by the slots it holds does not help: a competitor whose runs are "
          "shorter than a tick leaves no gap to divide (the replay above). "
          "**What it needs from the receiver**: TCP timestamps that tick in microseconds. Linux 6.7 and later "
          "send them on routes with the `tcp_usec_ts` feature, set on the host that sends the TSvals (here the "
          "phone), not negotiated with the peer ([Linux usec TS](references.md#linux-usec-ts)); "
          "[RFC 7323](references.md#rfc7323) leaves the clock's rate to the host and the option does not carry "
          "it, so the sender must be told the clock and the slot (the option's value). The simulator's TCP receiver stamps 1 ms TSvals; the controller reads the receiver's "
          "microsecond clock as the ACK's arrival time (the return path has a constant delay in these "
          "scenarios; Algorithm 1 uses differences only), a model of the real receiver, not a measurement of one.",
          ""]
    # BoDe
    L += ["## BoDe on a trace-free NR channel", "",
          f"One CUBIC flow at 150 m on a Rayleigh-fading radio channel (no trace), the `bode` reproduction's "
          f"10 ms path, {doc['bode_s']:g} s runs; BoDe with a bounded delay of {BODE_D_MS:g} ms against a "
          f"{BODE_QUEUE_BYTES // 1000} KB TailDrop FIFO. Sojourn: arrival at the base station to the end of the "
          "slot that carried the packet's last byte.", "",
          "| cell | queue | p99 sojourn (ms) | max sojourn (ms) | throughput (Mbit/s) |", "| --- | --- | --- | --- | --- |"]
    for k in keys:
        for a, lab in (("taildrop", "TailDrop"), ("bode", "BoDe")):
            c = cell(doc, "bode", cell=k, aqm=a)
            L.append(f"| {LABEL[k]} | {lab} | {_v(c, 'p99_sojourn_ms')} | {_v(c, 'max_sojourn_ms')} | {_v(c, 'mbps')} |")
    bp = [cell(doc, "bode", cell=k, aqm="bode") for k in keys]
    ratio = [cell(doc, "bode", cell=k, aqm="bode")["mbps"][0] / cell(doc, "bode", cell=k, aqm="taildrop")["mbps"][0]
             for k in keys]
    L += ["", "![BoDe against TailDrop](img/nr-mech-bode-sneaker.png)", "",
          f"Observed: BoDe's 99th-percentile sojourn is {min(c['p99_sojourn_ms'][0] for c in bp):.1f} to "
          f"{max(c['p99_sojourn_ms'][0] for c in bp):.1f} ms over the cells against its bound of {BODE_D_MS:g} ms, "
          f"at {min(ratio):.3f} to {max(ratio):.3f} of TailDrop's throughput; its largest sojourn, "
          f"{min(c['max_sojourn_ms'][0] for c in bp):.0f} to {max(c['max_sojourn_ms'][0] for c in bp):.0f} ms "
          "(means over seeds), is well above the bound on every cell, LTE included: the bound holds for the "
          "99th percentile here, not for every packet, and NR's shorter slots do not change that. Which packets "
          "exceed it is not traced in this study.", ""]
    # Sneaker
    L += ["## Sneaker's prioritisation", "",
          "`sneaker-prioritization`'s set-up: a Reno background at one UE, a Reno foreground on/off 10 s at another, "
          "PF scheduling alone (PFS only) or Sneaker. On NR the TTI of Eq. (6), ρ = 1 − (1 − 1/N)^(RTT/TTI), is "
          "the slot: an RTT holds 2^μ times as many of them, so ρ is larger for the same N.", "",
          "| cell | scheme | background share while fg on | background alone (Mbit/s) | fg while on (Mbit/s) | "
          "bg timeouts |", "| --- | --- | --- | --- | --- | --- |"]
    for k in keys:
        for a, lab in (("pfs", "PFS only"), ("sneaker", "Sneaker")):
            c = cell(doc, "sneaker", cell=k, aqm=a)
            L.append(f"| {LABEL[k]} | {lab} | {_v(c, 'bg_share_on')} | {_v(c, 'bg_alone_mbps')} | "
                     f"{_v(c, 'fg_on_mbps')} | {_v(c, 'bg_timeouts')} |")
    sl = cell(doc, "sneaker", cell="lte", aqm="sneaker")
    sn = [cell(doc, "sneaker", cell=k, aqm="sneaker")["bg_share_on"][0] for k in nr]
    L += ["", f"Observed: Sneaker's background share while the foreground is on is {_v(sl, 'bg_share_on')} on LTE "
          f"and {min(sn):.3f} to {max(sn):.3f} on NR μ = 0..2.", "",
          "## Which claims transfer", "",
          "None is judged here: the set-ups are the reproductions', the cells are not the papers'. Legilimens' "
          "yielding rests on Algorithm 1 seeing the scheduler's TTIs in the receiver's timestamps: on NR at μ ≥ 1 a "
          "1 ms timestamp does not resolve them. Of the runs above only the slot clock both yields to the "
          "foreground and takes the idle cell again (the 1 ms tick with `queue_gating` off yields but leaves most "
          "of the idle cell unused). "
          "Sneaker and BoDe act in the base station's queue, whose time is the slot; their measured behaviour here "
          
          + ("is within a few hundredths of the LTE cell's (Sneaker's background share while the foreground is on, "
             "BoDe's 99th-percentile sojourn within 3.5 ms of its bound)." if _queue_like_lte(doc, nr) else
             "differs from the LTE cell's (the tables above)."), "",
          f"Runs: {doc['runs']['total']} simulations, {doc['runs']['cpu_s']:g} s of CPU.", ""]
    return "\n".join(L)


def _reconstruction_sentence(rec: list[dict]) -> str:
    """The replay's observation, from its rows."""
    def row(k, pat, clock):
        return next(r for r in rec if r["cell"] == k and r["pattern"] == pat and r["clock"] == clock)

    a, b = row("nr2", "3:1", "1 ms"), row("nr2", "3:1", "slot")
    missed_tick = sorted({f"{r['pattern']} at {LABEL[r['cell']]}" for r in rec
                          if r["clock"] == "1 ms" and r["cell"] != "nr0" and r["detected"] < 0.01
                          and row(r["cell"], r["pattern"], "slot")["detected"] > 0.99})
    equal = sorted({r["pattern"] for r in rec if r["clock"] == "slot" and r["detected"] < 0.01})
    return (f"Observed: with the 1 ms tick a competitor whose runs are shorter than a tick leaves every tick with "
            f"some of the background's data, so Algorithm 1 sees back-to-back slots, no gap and no busy verdict: "
            f"3:1 at NR μ=2 is detected in {a['busy']} of {a['competitor_runs']} competitor runs on the tick and "
            f"{b['busy']} on the slot clock, and the tick's capacity estimate falls to {a['capacity_ratio']:.2f} of "
            f"the truth (a back-to-back slot updates the EWMA). Missed on the tick, seen on the slot clock: "
            f"{', '.join(missed_tick)}. The slot clock misses only {', '.join(equal)}: after a gap as long as the "
            "slot before it the rate is exactly λ·capacity and the test is strict (`rate < λ·capacity`), as on LTE "
            "with a competitor in alternate TTIs.")


def mu0_trace_path() -> Path:
    """The stored trace of NR μ=0 against LTE (``tools/legilimens_nr_mu0_trace.py``) in the
    source tree this module belongs to."""
    return Path(__file__).resolve().parents[3] / "tools" / "data" / "legilimens-nr-mu0-trace.json"


def load_mu0_trace(path: Optional[Path] = None) -> Optional[dict]:
    """The stored trace, or None outside a source tree (an installed package has no tools/)."""
    p = path or mu0_trace_path()
    if not p.is_file():
        return None
    try:
        return json.loads(p.read_text())
    except ValueError as e:
        raise StudyError(f"{p}: not JSON ({e}); expected the output of tools/legilimens_nr_mu0_trace.py") from None


def _mu0_trace_lines(trace: Optional[dict], doc: Optional[dict] = None) -> list[str]:
    """Why NR μ=0 yields less than LTE, from the stored trace (``tools/legilimens_nr_mu0_trace.py``):
    per run, the packets a full slot carries, the bytes a tick carries against the capacity
    estimate, and the back-offs; the variants change one thing each. With the study's output
    `doc`, also its capacity estimates before the foreground starts beside the trace's largest
    tick over the mean one."""
    head = "**Why NR μ=0 yields less than LTE.** "
    if trace is None:
        return [head + "`python tools/legilimens_nr_mu0_trace.py` (in a source tree) traces it: the bytes a tick "
                "carries against the capacity estimate, on both cells and in variants that change one thing.", ""]
    try:
        v = {r["key"]: r for r in trace["variants"]}
        lte, nr0 = v["lte"], v["nr0"]
        mss_nr, mss_lte, far = v["nr0-mss1400"], v["lte-mss1300"], v["nr0-ideal-350m"]
        on_s, lo, fg_start = trace["setup"]["on_s"], trace["setup"]["alone_window_s"][0], trace["setup"]["fg_start_s"]
        rows = [(r["what"], r["bg_packets_per_slot"], r["modal_tick_bytes"], r["bg_mss"], r["modal_fraction"],
                 r["max_tick_bytes_before_fg"], r["capacity_bytes_per_tick"], r["alternation_ratio"],
                 r["backoffs"], r["bg_share_on"]) for r in trace["variants"]]
    except (KeyError, IndexError, TypeError) as e:
        raise StudyError(f"{mu0_trace_path()}: missing {e}; expected the output of "
                         "tools/legilimens_nr_mu0_trace.py") from None

    def times(n: int) -> str:
        return {0: "never", 1: "once", 2: "twice"}.get(n, f"{n} times")

    def half(r: dict) -> str:
        x = r["alternation_ratio"]
        return "equals λ·capacity" if x == 1.0 else f"is {x:.3g} times λ·capacity"

    L = [head + "It is whether a slot carries a whole number of the background's packets. "
         "`python tools/legilimens_nr_mu0_trace.py` re-runs the set-up (seed 1, one on and one off period of "
         f"{on_s:g} s) on both cells and in variants that each change one thing. *Packets per slot* is the IP "
         "bytes a full slot carries (the foreground's rate alone, with headers) in the background's packets. "
         "The *ticks* are the bytes the background's receiver gets in order per millisecond (what its one ACK per "
         f"burst reports under that tick's TSval) while it is alone, from {lo:g} s to the foreground's start; "
         "the capacity estimate is the median of its trace then. Under PF two backlogged UEs alternate slot by "
         "slot, so a tick of *n* bytes followed by a one-slot gap rates *n*/2, which Algorithm 1 judges busy only "
         "if it is below λ·capacity (λ = 0.5, a strict test); *ratio* is half the most common tick over "
         "λ·capacity (below 1: busy). In NORMAL the capped sender's slots do not count (`queue_gating`) and can "
         "only raise the estimate (`uncounted_raise`), so it settles at the largest tick.", "",
         "| run | packets per slot | most common tick, bytes (packets, share of ticks) | largest tick, bytes | "
         "capacity estimate, bytes | ratio | back-offs | share while on |",
         "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for what, pps, modal, mss, frac, top, cap, ratio, backoffs, share in rows:
        L.append(f"| {what} | {pps:.3f} | {modal} ({modal / mss:.3g}, {frac:.0%}) | {top} | {cap:.0f} | "
                 f"{ratio:.3g} | {backoffs} | {share:.3g} |")
    whole = [r for r in trace["variants"] if r["alternation_ratio"] >= 1.0]
    at_arrival = bool(whole) and all(r["backoffs"] == 1 and fg_start <= r["backoff_times_s"][0] < fg_start + 1
                                     for r in whole)
    lam, ack2 = v.get("nr0-ideal-lambda051"), v.get("nr0-ideal-ack2")
    packet = round(nr0["slot_ip_bytes"] / nr0["bg_packets_per_slot"])
    L += ["", f"NR μ=0's slot at this distance carries {nr0['bg_packets_per_slot']:.3f} packets of {packet} bytes: its "
          f"ticks carry {nr0['modal_tick_bytes'] // nr0['bg_mss']} segments, the largest tick, and the estimate is "
          f"that tick, so half of it {half(nr0)}"
          + (" and the strict test lets it pass" if nr0["alternation_ratio"] >= 1.0 else ", busy")
          + "; the background backs off "
          f"{times(nr0['backoffs'])}"
          + (" (in every run with a ratio of 1 the one back-off comes within a second of the foreground's first "
             "start, when the foreground takes a run of slots)" if at_arrival else "")
          + f". LTE's TTI carries {lte['bg_packets_per_slot']:.3f}: the largest tick is the same "
          f"{lte['max_tick_bytes_before_fg']} bytes, but most ticks carry "
          f"{lte['modal_tick_bytes'] // lte['bg_mss']} segments, half a tick {half(lte)}"
          + (", busy" if lte["alternation_ratio"] < 1.0 else "") + f", and it backs off {times(lte['backoffs'])}. "
          "Each variant that makes the packet count fractional brings NR μ=0 to LTE's back-offs with NR's HARQ "
          f"timing, uplink and MCS tables unchanged ({mss_nr['bg_mss']}-byte segments: "
          f"{times(mss_nr['backoffs'])}; {far['distance_m']:g} m, a lower MCS: {times(far['backoffs'])}), and "
          f"{mss_lte['bg_mss']}-byte segments, {mss_lte['bg_packets_per_slot']:.3f} packets per TTI, take LTE's "
          f"away ({times(mss_lte['backoffs'])})."
          + (f" On NR μ=0, λ = {lam['lambda']:g} does the same ({times(lam['backoffs'])}), and so does a receiver that "
             f"acknowledges every second segment instead of each burst, whose ticks then differ "
             f"({times(ack2['backoffs'])})."
             if lam and ack2 else "")
          + " A property of Algorithm 1's one-competitor case, not a fault of "
          "the NR cell: PF's alternation puts the rate exactly at λ·capacity when every tick carries the same "
          "whole number of segments, and the strict test then decides against busy."
          + (_capacity_sentence(doc, lte, nr0) if doc is not None else ""), ""]
    return L


def _capacity_sentence(doc: dict, lte: dict, nr0: dict) -> str:
    """The study's capacity estimate before the foreground (over the cell's rate) beside the
    trace's largest tick over the mean one (the foreground's rate alone, bytes per ms)."""
    try:
        before = {k: cell(doc, "legilimens", cell=k, bg="legilimens") for k in ("lte", "nr0")}
    except KeyError:
        return ""
    ratio = {k: r["max_tick_bytes_before_fg"] / (r["fg_alone_mbps"] * 125.0) for k, r in (("lte", lte), ("nr0", nr0))}
    return (" The same ticks give the capacity columns above: before the foreground starts the estimate over the "
            f"cell's rate is {_v(before['lte'], 'capacity_before')} on LTE and "
            f"{_v(before['nr0'], 'capacity_before')} on NR μ=0, and the largest tick over the mean one is "
            f"{ratio['lte']:.4f} and {ratio['nr0']:.4f} in the trace: on LTE the estimate sits at a "
            f"{lte['max_tick_bytes_before_fg'] // lte['bg_mss']}-segment tick the TTI delivers only now and then, "
            "which also lifts NORMAL's cap (80 % of the estimate) and with it the idle cell's use.")


def _link_sentence(doc: dict, keys: list[str]) -> str:
    """What the ideal link (no block errors, no HARQ) changes, per cell."""
    parts = []
    for k in keys:
        real = cell(doc, "legilimens", cell=k, bg="legilimens")
        ideal = cell(doc, "legilimens", cell=k, bg="legilimens-ideal")
        parts.append(f"{_v(ideal, 'bg_share_on')} at {LABEL[k]} (realistic link: {_v(real, 'bg_share_on')})")
    return (" On the ideal link (no block errors, no HARQ) the 1 ms-tick controller takes " + "; ".join(parts)
            + ": the link accounts for part of the difference at μ = 0, the tick at μ ≥ 1.")


def _queue_like_lte(doc: dict, nr: list[str]) -> bool:
    lte = cell(doc, "sneaker", cell="lte", aqm="sneaker")["bg_share_on"][0]
    sneaker = all(abs(cell(doc, "sneaker", cell=k, aqm="sneaker")["bg_share_on"][0] - lte) < 0.03 for k in nr)
    bode = all(cell(doc, "bode", cell=k, aqm="bode")["p99_sojourn_ms"][0] <= BODE_D_MS + 3.5 for k in ["lte", *nr])
    return sneaker and bode


def docs_figures(doc: dict, img: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [c[0] for c in doc["cells"]]
    written = []
    # Legilimens share
    fig, ax = plt.subplots(figsize=(7, 3.6))
    bgs = (("cubic", "CUBIC"), ("legilimens", "Legilimens, 1 ms TSval tick"), ("legilimens-slot", "Legilimens, slot clock"),
           ("legilimens-noqg", "Legilimens, 1 ms tick, queue_gating off"))
    w = 0.2
    for j, (bg, lab) in enumerate(bgs):
        xs, ys, es = [], [], []
        for i, k in enumerate(keys):
            try:
                c = cell(doc, "legilimens", cell=k, bg=bg)
            except KeyError:
                continue
            xs.append(i + (j - 1.5) * w)
            ys.append(c["bg_share_on"][0])
            es.append(c["bg_share_on"][1] or 0.0)
        ax.bar(xs, ys, w, yerr=es, label=lab, capsize=3)
    ax.set_xticks(range(len(keys)), [LABEL[k] for k in keys])
    ax.set_ylabel("background share while CUBIC is on")
    ax.set_title(f"Legilimens Fig. 7 set-up, {doc['bandwidth_mhz']} MHz, numerology μ")
    ax.legend(fontsize=8)
    fig.tight_layout()
    written.append(_save(fig, img / "nr-mech-legilimens.png"))
    # Reconstruction
    fig, ax = plt.subplots(figsize=(7, 3.6))
    rec = doc["reconstruction"]
    pats = [f"{c}:{b}" for c, b in PATTERNS]
    nr = [k for k in keys if k != "lte"]
    w = 0.8 / (2 * len(nr))
    j = 0
    for k in nr:
        for clock, hatch in (("1 ms", ""), ("slot", "//")):
            ys = [next(r["detected"] for r in rec if r["cell"] == k and r["pattern"] == p and r["clock"] == clock)
                  for p in pats]
            ax.bar([i - 0.4 + (j + 0.5) * w for i in range(len(pats))], ys, w, hatch=hatch,
                   color=f"C{nr.index(k)}", edgecolor="black", linewidth=0.3, label=f"{LABEL[k]}, {clock} clock")
            j += 1
    ax.set_xticks(range(len(pats)), pats)
    ax.set_xlabel("schedule: competitor's slots : background's slots, repeated")
    ax.set_ylim(0, 1.35)
    ax.set_ylabel("busy verdicts per competitor run")
    ax.set_title("Algorithm 1 as printed on a given schedule (slots)")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    written.append(_save(fig, img / "nr-mech-reconstruction.png"))
    # BoDe + Sneaker
    fig, axs = plt.subplots(1, 3, figsize=(10, 3.4))
    x = range(len(keys))
    for a, lab in (("taildrop", "TailDrop"), ("bode", "BoDe")):
        cs = [cell(doc, "bode", cell=k, aqm=a) for k in keys]
        axs[0].plot(x, [c["p99_sojourn_ms"][0] for c in cs], "o-", label=lab)
        axs[1].plot(x, [c["mbps"][0] for c in cs], "o-", label=lab)
    axs[0].axhline(BODE_D_MS, color="grey", ls=":", label="BoDe bound")
    axs[0].set_ylim(0, None)
    axs[0].set_ylabel("p99 sojourn (ms)")
    axs[1].set_ylabel("throughput (Mbit/s)")
    axs[0].set_title("BoDe, CUBIC, Rayleigh")
    axs[1].set_title("BoDe, CUBIC, Rayleigh")
    for a, lab in (("pfs", "PFS only"), ("sneaker", "Sneaker")):
        cs = [cell(doc, "sneaker", cell=k, aqm=a) for k in keys]
        axs[2].plot(x, [c["bg_share_on"][0] for c in cs], "o-", label=lab)
    axs[2].set_ylabel("background share while fg on")
    axs[2].set_title("Sneaker prioritisation")
    for ax in axs:
        ax.set_xticks(list(x), [LABEL[k] for k in keys], fontsize=8)
        ax.legend(fontsize=7)
    fig.tight_layout()
    written.append(_save(fig, img / "nr-mech-bode-sneaker.png"))
    return [p for p in written if p is not None]


def _save(fig, path: Path) -> Optional[Path]:
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    data = buf.getvalue()
    if path.is_file() and path.read_bytes() == data:
        return None
    path.write_bytes(data)
    return path


def render_docs() -> list[Path]:
    return render_committed_docs(committed_output(), docs_page_path(), docs_page, docs_figures)


study(Study(NAME, "What NR does to the mechanisms: Legilimens, BoDe and Sneaker at numerology 0-2",
            design_lines, run_study, render_docs))
