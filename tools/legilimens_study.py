#!/usr/bin/env python3
"""Figures 7 and 12 of the Legilimens paper in cellshare and in ns-3.44 (the paper's own
simulator, with `tools/ns3-legilimens`'s controller), side by side, one command each:

    python tools/legilimens_study.py fig7  --out out/legilimens-ns3
    python tools/legilimens_study.py fig12 --out out/legilimens-ns3 [--duration 120 --seed 1]
    python tools/legilimens_study.py fig12 --cellshare-only --ns3-results tools/data/legilimens-ns3-fig12.jsonl --duration 10 --loads 0.6
    python tools/legilimens_study.py fig12 --cellshare-alone --duration 120   # cellshare only, all loads

Both simulators run the same cell (docs/legilimens-ns3.md): 10 MHz, PF, two layers, no fast
fading, cellshare's radio defaults (751 MHz reference loss, 47.78 dBm, exponent 3.52, noise
figure 9 dB) with ns-3's PiroEW2010 AMC (cellshare's SINR -> CQI rule), 512 KB RLC queues,
servers 10 ms behind the gateway, cellshare's TCP defaults (MSS 1448, IW 10, RTO floor 200 ms,
SACK, timestamps) with ns-3's receiver (an ACK every 2nd segment or after 40 ms, no quick
ACKs: `ns3_crosscheck.NS3_RECEIVER`).

- fig7 (`legilimens-onoff`'s set-up): two UEs at 300 m; an always-on Legilimens background
  flow to UE 0 from 0.5 s, an on/off CUBIC foreground to UE 1 (on 30 s, off 30 s from 20 s),
  and CUBIC alone for the reference; 200 s.
- fig12 (`legilimens-at-scale`'s set-up): 100 UEs placed uniformly over the 50-500 m annulus
  (drawn from the seed, the same placements in both); cellshare's seeded §V-E workload (64 KB
  / 1 MB / 32 MB at 10/30/60 % of bytes, CUBIC, Poisson at 30/60/80 % of the cell) to every
  UE, run in cellshare and replayed flow for flow in ns-3 (same arrival time, UE and size);
  backgrounds w/o bg, CUBIC, LEDBAT, Vegas, Legilimens, at every UE (`every`) or at 10 UEs
  drawn from the seed (`some`).

Each ns-3 case runs in a child process of this script under `nice -n 10`, one at a time, and
is appended to `<out>/ns3-<figure>.jsonl` as it finishes; `--resume` skips the cases already
there. `--cellshare-only` re-runs the cellshare side (seconds) and takes the ns-3 side from a
results file this script wrote (`--ns3-results`), so the tables can be refreshed when the
cell or TCP changes without rerunning ns-3 (hours for fig12).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))

import legilimens_ns3 as L  # noqa: E402
import ns3_crosscheck as X  # noqa: E402  (its DlTxPhyStats reader)

# -- shared set-up --------------------------------------------------------------------------

RADIO = {"kind": "radio", "layers": 2, "fading": "none"}  # cellshare's defaults otherwise


def link(harq_errors: bool) -> dict:
    """cellshare's `cell.link` for ns-3's set-up: ns-3 runs its block-error model and HARQ
    (`LteSpectrumPhy::DataErrorModelEnabled`, on by default) with the `PiroEW2010` AMC
    (`legilimens_ns3.Ns3Cell`), so cellshare runs its realistic link with that AMC rule;
    `--ns3-no-harq` turns ns-3's errors off and cellshare's ideal link is the counterpart."""
    return {"kind": "realistic", "amc": "piro_ew2010"} if harq_errors else {"kind": "ideal"}

RLC_BYTES = 524288
MSS = 1448
#: LEDBAT runs ns-3.44's `TcpLedbat` rules on both sides. Its window is capped at the flight
#: before the ACK, RFC 6817's ALLOWED_INCREASE = 0 (see the README's "Cross-check against
#: ns-3"), and it leaves its NewReno slow start only at a loss: `IncreaseWindow` slow-starts
#: while cwnd <= ssthresh with no delay test (`m_doSs = DO_SLOWSTART`, `m_flag =
#: LEDBAT_CAN_SS` from the constructor), where cellshare's LEDBAT leaves it at half the
#: target's queueing delay; an exit fraction of 10^6 (100 000 s) is never reached.
#: `--cellshare-ledbat-delay-exit` gives cellshare's LEDBAT its own exit back.
LEDBAT_NS3 = {"kind": "ledbat", "allowed_increase": 0.0, "slow_start_exit_fraction": 1e6}
LEDBAT_DELAY_EXIT = {"kind": "ledbat", "allowed_increase": 0.0}
#: Background schemes: label -> (cellshare controller, ns-3 TypeId).
SCHEMES = {
    "w/o bg": (None, None),
    "CUBIC": ({"kind": "cubic"}, "ns3::TcpCubic"),
    "LEDBAT": (LEDBAT_NS3, "ns3::TcpLedbat"),
    "Vegas": ({"kind": "vegas"}, "ns3::TcpVegas"),
    "Legilimens": ({"kind": "legilimens"}, "ns3::TcpLegilimens"),
}
LAYOUTS = ("every", "some")
N_UES = 100
SOME_BG = 10
LOADS = (0.3, 0.6, 0.8)

# -- Figure 7 (legilimens-onoff's timing: Figure 2's workload) --------------------------------

FG_START, ON, OFF = 20.0, 30.0, 30.0
SETTLE = 2  # whole seconds left out after each foreground switch
BG_START = 0.5
FIG7_SNDBUF = 3 << 19  # 1.5 MB: a stopped ns-3 BulkSend still sends what its buffer holds


def fig7_duration(periods: int) -> float:
    return FG_START + periods * (ON + OFF)


def on_off_seconds(duration: float) -> tuple[list[int], list[int]]:
    """Whole seconds inside foreground-on and -off periods, at least SETTLE s from a switch
    (`lpt-fifo-vs-cell`'s `_phases`)."""
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


def fig7_scenario(bg: bool, duration: float, seed: int, harq_errors: bool = True) -> dict:
    """cellshare's Figure 7 scenario (with the background or CUBIC alone), ns-3's receiver on
    both flows."""
    flows = []
    if bg:
        flows.append({"name": "background", "ue": 0, "class": "background", "start_s": BG_START,
                      "transport": {"kind": "tcp", "cc": {"kind": "legilimens"}, "tcp": X.NS3_RECEIVER}})
    flows.append({"name": "foreground", "ue": 1, "start_s": FG_START, "on_s": ON, "off_s": OFF,
                  "transport": {"kind": "tcp", "cc": {"kind": "cubic"}, "tcp": X.NS3_RECEIVER}})
    sc = {"name": "fig7", "simulation": {"duration_s": duration, "seed": seed},
          "cell": {"bandwidth_mhz": 10, "scheduler": dict(SCHEDULER), "rlc_queue_bytes": RLC_BYTES,
                   "link": link(harq_errors)},
          "wired": {"remote_delay_ms": 10.0},
          "ues": [{"count": 2, "channel": dict(RADIO, distance_m=300.0)}], "flows": flows}
    return sc


def fig7_cellshare(bg: bool, duration: float, seed: int, harq_errors: bool = True) -> dict:
    """cellshare's side: 100 ms series of both flows, Mbit/s, and Legilimens' modes."""
    from cellshare import api

    sc = fig7_scenario(bg, duration, seed, harq_errors)
    flows = sc["flows"]
    t0 = time.monotonic()
    r = api.run(sc)
    wall = time.monotonic() - t0
    n = int(round(duration * 10))
    out = {"wall_s": wall, "series": {}}
    for f in flows:
        tr = r.flow(f["name"])["trace"]
        s = [0.0] * n
        for t, v in zip(tr["t_s"], tr["mbps"]):
            k = int(round(t * 10)) - 1  # the sample at t covers (t − 0.1, t]
            if 0 <= k < n:
                s[k] = v
        out["series"][f["name"]] = s
    if bg:
        tr = r.flow("background")["trace"]
        out["modes"] = list(zip(tr["t_s"], tr["mode"]))
    return out


def fig7_ns3(bg: bool, duration: float, seed: int, harq_errors: bool = True) -> dict:
    """ns-3's side: the same, one BulkSend connection per on period."""
    cell = L.Ns3Cell(L.CellConfig(distances_m=[300.0, 300.0], seed=seed, sndbuf_bytes=FIG7_SNDBUF,
                                  harq_errors=harq_errors),
                     "ns3::TcpLegilimens" if bg else None)
    idx = {"background": [], "foreground": []}
    if bg:
        idx["background"].append(cell.flow(1, 0, BG_START, duration, 0, 0.1, duration))
    t = FG_START
    while t < duration:
        idx["foreground"].append(cell.flow(0, 1, t, min(t + ON, duration), 0, 0.1, duration))
        t += ON + OFF
    t0 = time.monotonic()
    cell.run(duration)
    wall = time.monotonic() - t0
    n = int(round(duration * 10))
    out = {"wall_s": wall, "series": {}}
    for name, ids in idx.items():
        if not ids:
            continue
        s = [0.0] * n
        for i in ids:
            for k, b in enumerate(list(cell.log.GetBins(i))[:n]):
                s[k] += b * 8 / 0.1 / 1e6
        out["series"][name] = s
    if bg:
        [(_, cc)] = cell.controllers()
        out["modes"] = [(t_ns / 1e9, m) for t_ns, m in cc.GetModeLog()]
        out["seconds_in_mode"] = [cc.GetSecondsIn(m) for m in range(5)]
        out["idle_timeouts"] = int(cc.GetIdleTimeouts())
        out["capacity_mbps"] = cc.GetCapacity() * 8 / 1000
    cell.destroy()
    return out


def fig7_metrics(run: dict, alone: dict, duration: float) -> dict:
    """`legilimens-onoff`'s metrics, from 100 ms series (per-second means over whole seconds)."""
    def per_second(s):
        return [sum(s[10 * k:10 * k + 10]) / 10 for k in range(len(s) // 10)]

    on, off = on_off_seconds(duration)
    bg = per_second(run["series"]["background"])
    fg = per_second(run["series"]["foreground"])
    fg_alone = per_second(alone["series"]["foreground"])
    mean = lambda xs, secs: sum(xs[s] for s in secs) / len(secs)  # noqa: E731
    alone_on = mean(fg_alone, on)
    b_on, f_on, b_off = mean(bg, on), mean(fg, on), mean(bg, off)
    # Recapture: seconds after each stop until the background's 500 ms moving average first
    # reaches 0.7 of CUBIC alone (OFF if never in that off period).
    rec, t = [], FG_START + ON
    s = run["series"]["background"]
    while t + OFF <= duration:
        found = OFF
        for i in range(int(t * 10) + 5, int((t + OFF) * 10)):
            if sum(s[i - 4:i + 1]) / 5 >= 0.7 * alone_on:
                found = (i + 1) / 10 - 0.5 - t
                break
        rec.append(max(found, 0.0))
        t += ON + OFF
    return {"cubic_alone_mbps": alone_on, "bg_on_mbps": b_on, "fg_on_mbps": f_on, "bg_off_mbps": b_off,
            "bg_share_on": b_on / (b_on + f_on) if b_on + f_on else 0.0,
            "fg_ratio_on": f_on / alone_on if alone_on else 0.0,
            "bg_off_ratio": b_off / alone_on if alone_on else 0.0,
            "recapture_mean_s": statistics.fmean(rec) if rec else math.nan,
            "recapture_max_s": max(rec) if rec else math.nan, "recapture_s": rec}


# -- Figure 12 -------------------------------------------------------------------------------

def placements(seed: int) -> list[float]:
    """100 distances uniform over the 50-500 m annulus (uniform in area), from the seed."""
    rng = random.Random(f"legilimens-study-placement-{seed}")
    return [round(math.sqrt(rng.uniform(50.0 ** 2, 500.0 ** 2)), 2) for _ in range(N_UES)]


def bg_ues(layout: str, seed: int) -> list[int]:
    """Every UE, or 10 drawn from the seed (as the README's measured variant)."""
    return list(range(N_UES)) if layout == "every" else sorted(random.Random(seed).sample(range(N_UES), SOME_BG))


def bg_start(k: int) -> float:
    return 0.1 + 0.005 * k


#: cellshare's MAC scheduler in both figures: PF, and (`--cellshare-leftover padding`, a
#: diagnosis) the PRBs a TTI's winner cannot fill padded as ns-3's PfFfMacScheduler does
#: instead of handed to the next UE (`cell.scheduler.leftover`).
SCHEDULER = {"kind": "pf"}


#: cellshare's foreground transport in Figure 12: CUBIC without the handshake, so that a
#: flow's FCT counts from its first data byte as ns-3's does from its first data write (with
#: cellshare's handshake, on by default since 2026-11, a 64 KB flow took 0.099 s from the
#: SYN against 0.071 s from the first data byte). In the replay, each flow starts at its ns-3
#: twin's first write, which is after ns-3's handshake. Every cellshare flow of both figures
#: has ns-3's receiver (`X.NS3_RECEIVER`: an ACK every second segment as each arrives, no
#: quick ACKs), not cellshare's Linux default (one ACK per TTI burst, quick ACKs), which
#: Legilimens' estimator reads differently.
FG_TRANSPORT = {"kind": "tcp", "cc": {"kind": "cubic"}, "tcp": {"handshake": False, **X.NS3_RECEIVER}}


def fig12_scenario(scheme: str, layout: str, load: float, seed: int, duration: float,
                   harq_errors: bool = True) -> dict:
    cc = SCHEMES[scheme][0]
    flows = []
    if cc is not None:
        flows = [{"name": f"bg{ue}", "ue": ue, "class": "background", "start_s": bg_start(k),
                  "transport": {"kind": "tcp", "cc": cc, "tcp": X.NS3_RECEIVER}} for k, ue in enumerate(bg_ues(layout, seed))]
    legilimens = cc is not None and cc["kind"] == "legilimens"
    return {
        "name": f"fig12-{scheme}-{layout}-{load}",
        "simulation": {"duration_s": duration, "seed": seed, "trace_interval_ms": 100 if legilimens else 0},
        "cell": {"bandwidth_mhz": 10, "scheduler": dict(SCHEDULER), "rlc_queue_bytes": RLC_BYTES,
                 "link": link(harq_errors)},
        "wired": {"remote_delay_ms": 10.0},
        "ues": [{"channel": dict(RADIO, distance_m=d)} for d in placements(seed)],
        "flows": flows,
        "workload": {"ues": "all", "transport": FG_TRANSPORT,
                     "arrivals": {"kind": "poisson", "load": load, "preset": "legilimens"}},
    }


def fig12_cellshare_replay(scheme: str, layout: str, load: float, seed: int, duration: float, harq_errors: bool,
                           arrivals: list, setup_each: list) -> dict:
    """cellshare with ns-3's connection set-up: each foreground flow of `arrivals` (the seeded
    workload's list) starts when its ns-3 twin first wrote data, arrival + `setup_each[i]`
    (None: it never wrote in ns-3, so it sends nothing here either). FCTs run from that first
    write and long-flow throughput over the life from arrival, as on the ns-3 side, so the
    remaining difference is the cells' and the RTTs'."""
    from cellshare import api

    if len(setup_each) != sum(1 for a in arrivals if a[0] < duration):
        sys.exit("legilimens_study: the ns-3 result's set-up list does not match the arrivals")
    sc = fig12_scenario(scheme, layout, load, seed, duration, harq_errors)
    del sc["workload"]
    fg = []
    for i, ((start, ue, size, cat), delay) in enumerate(zip([a for a in arrivals if a[0] < duration], setup_each)):
        rec = {"category": cat, "ue": ue, "start_s": start, "size": size, "bytes": 0, "done_s": None,
               "first_s": start if delay is None else start + delay}
        if delay is not None and start + delay < duration:
            rec["name"] = f"fg{i}"
            sc["flows"].append({"name": rec["name"], "ue": ue, "start_s": start + delay, "bytes": size,
                                "transport": FG_TRANSPORT})
        fg.append(rec)
    r = api.run(sc)
    by_name = {f["name"]: f for f in r.summary["flows"]}
    flows = [{"category": "background", "ue": f["ue"], "start_s": f["start_s"], "size": None,
              "bytes": f["bytes_delivered"], "done_s": None, "first_s": f["start_s"]}
             for f in r.summary["flows"] if f["category"] == "background"]
    for rec in fg:
        f = by_name.get(rec.pop("name", None))
        if f is not None:
            rec["bytes"] = f["bytes_delivered"]
            if f["completed"] and f["fct_s"] is not None:
                rec["done_s"] = rec["first_s"] + f["fct_s"]
        flows.append(rec)
    return {"summary": summarize(flows, duration)}


def summarize(flows: list[dict], duration: float) -> dict:
    """Per-scheme numbers from per-flow records {category, start_s, bytes, size, done_s,
    first_s}: mean long-flow throughput over each flow's life (arrival to completion or the
    end), mean background throughput over the run, short-flow FCT p50/p99 (completed flows,
    from the first data byte), totals."""
    def life_mbps(f):
        end = f["done_s"] if f["done_s"] is not None else duration
        return f["bytes"] * 8 / max(end - f["start_s"], 1e-9) / 1e6

    longs = [life_mbps(f) for f in flows if f["category"] == "long"]
    bgs = [f["bytes"] * 8 / (duration - f["start_s"]) / 1e6 for f in flows if f["category"] == "background"]
    shorts = [f for f in flows if f["category"] == "short"]
    fct = sorted(f["done_s"] - f["first_s"] for f in shorts if f["done_s"] is not None)

    def pct(q):
        if not fct:
            return math.nan
        return fct[min(len(fct) - 1, int(math.ceil(q * len(fct))) - 1)]

    fg_bytes = sum(f["bytes"] for f in flows if f["category"] in ("short", "medium", "long"))
    bg_bytes = sum(f["bytes"] for f in flows if f["category"] == "background")
    return {"long_mbps": statistics.fmean(longs) if longs else math.nan, "long_flows": len(longs),
            "bg_mbps": statistics.fmean(bgs) if bgs else math.nan, "bg_flows": len(bgs),
            "short_fct_p50_s": pct(0.5), "short_fct_p99_s": pct(0.99),
            "short_completed": len(fct), "short_flows": len(shorts),
            "fg_mbps": fg_bytes * 8 / duration / 1e6, "bg_total_mbps": bg_bytes * 8 / duration / 1e6}


def long_records(flows: list[dict]) -> list[tuple]:
    """(UE, arrival s, bytes delivered, completion s or None) of each long flow, for diagnosis."""
    return [(f["ue"], f["start_s"], f["bytes"], f["done_s"]) for f in flows if f["category"] == "long"]


def cellshare_flows(r) -> list[dict]:
    """A cellshare run's flows in the records :func:`summarize` reads."""
    flows = []
    for f in r.summary["flows"]:
        done = f["start_s"] + f["fct_s"] if f["completed"] and f["fct_s"] is not None else None
        flows.append({"category": f["category"], "ue": f["ue"], "start_s": f["start_s"], "size": f["size_bytes"],
                      "bytes": f["bytes_delivered"], "done_s": done, "first_s": f["start_s"]})
    return flows


def mode_share(r) -> list[float]:
    """The share of the background Legilimens flows' 100 ms trace samples in each mode."""
    counts = [0] * 5
    for f in r.summary["flows"]:
        if f["category"] == "background":
            for m in r.flow(f["name"])["trace"]["mode"]:
                counts[m] += 1
    return [c / sum(counts) for c in counts]


def fig12_cellshare(scheme: str, layout: str, load: float, seed: int, duration: float,
                    harq_errors: bool = True) -> dict:
    from cellshare import api

    t0 = time.monotonic()
    r = api.run(fig12_scenario(scheme, layout, load, seed, duration, harq_errors))
    wall = time.monotonic() - t0
    flows = cellshare_flows(r)
    out = {"summary": summarize(flows, duration), "wall_s": wall, "longs": long_records(flows),
           "arrivals": [(f["start_s"], f["ue"], f["size"], f["category"]) for f in flows
                        if f["category"] in ("short", "medium", "long")]}
    if SCHEMES[scheme][0] and SCHEMES[scheme][0]["kind"] == "legilimens":
        out["mode_share"] = mode_share(r)
    return out


def fig12_ns3(scheme: str, layout: str, seed: int, duration: float, arrivals: list,
              harq_errors: bool = True, ul_rbs: int = 50, phy_stats: bool = False) -> dict:
    cell = L.Ns3Cell(L.CellConfig(distances_m=placements(seed), seed=seed, harq_errors=harq_errors, ul_rbs=ul_rbs),
                     SCHEMES[scheme][1])
    stats_dir = None
    if phy_stats:
        # ns-3's PhyTxStatsCalculator writes DlTxPhyStats.txt into the working directory.
        stats_dir = tempfile.mkdtemp(prefix="legilimens-study-phy-")
        os.chdir(stats_dir)
        cell.lte.EnableDlTxPhyTraces()
    records = []
    if SCHEMES[scheme][1]:
        for k, ue in enumerate(bg_ues(layout, seed)):
            records.append(({"category": "background", "ue": ue, "start_s": bg_start(k), "size": None},
                            cell.flow(1, ue, bg_start(k), duration)))
    for start, ue, size, cat in arrivals:
        if start < duration:
            records.append(({"category": cat, "ue": ue, "start_s": start, "size": size},
                            cell.flow(0, ue, start, duration, size)))
    t0 = time.monotonic()
    cell.run(duration)
    wall = time.monotonic() - t0
    flows = []
    for rec, i in records:
        done = cell.log.GetDone(i)
        first = cell.log.GetFirstTx(i)
        flows.append({**rec, "bytes": int(cell.log.GetRx(i)), "done_s": done if done >= 0 else None,
                      "first_s": first if first >= 0 else rec["start_s"]})
    # The connection set-up cellshare does not model: first data write − arrival, s.
    setup = sorted(f["first_s"] - f["start_s"] for f in flows if f["category"] != "background")
    out = {"summary": summarize(flows, duration), "wall_s": wall, "longs": long_records(flows),
           # Per foreground flow, in arrival order: first data write − arrival, s (None: no write).
           "setup_each_s": [round(f["first_s"] - f["start_s"], 6) if f["first_s"] != f["start_s"] else None
                            for f in flows if f["category"] != "background"],
           "setup_s": {q: setup[min(len(setup) - 1, int(q * len(setup)))] for q in (0.5, 0.9, 0.99)} if setup else {}}
    if stats_dir:
        out["phy"] = fill_of_blocks(Path(stats_dir) / "DlTxPhyStats.txt", flows, bg_ues(layout, seed) if SCHEMES[scheme][1] else [])
        shutil.rmtree(stats_dir)
    ccs = cell.controllers()
    if ccs:
        secs = [sum(cc.GetSecondsIn(m) for _, cc in ccs) for m in range(5)]
        out["mode_share"] = [s / sum(secs) for s in secs]
        out["idle_timeouts"] = int(sum(cc.GetIdleTimeouts() for _, cc in ccs))
        back = [cc.GetReturnDelayMeanMs() for _, cc in ccs if cc.GetReturnDelayMeanMs() >= 0]
        out["return_delay_ms"] = {"mean": statistics.fmean(back) if back else None,
                                  "max": max(int(cc.GetReturnDelayMaxMs()) for _, cc in ccs)}
    cell.destroy()
    return out


def fill_of_blocks(path: Path, flows: list[dict], bg: list[int]) -> dict:
    """How full ns-3's transport blocks are: application bytes delivered to a group of UEs
    over the bytes of the new transport blocks (`rv` 0, both layers) sent to them, from
    `DlTxPhyStats.txt`. `PfFfMacScheduler` gives every resource-block group of a TTI to the
    best-metric UE with data whatever its queue holds, and the MAC pads what the queue does
    not fill; at full blocks the ratio is about 1448/1506 (TCP/IP, PDCP, RLC and MAC headers)."""
    tb = X.new_block_bytes(path, N_UES)
    app = [0] * N_UES
    for f in flows:
        app[f["ue"]] += f["bytes"]
    bgset = set(bg)
    groups = {"background UEs": [u for u in range(N_UES) if u in bgset],
              "other UEs": [u for u in range(N_UES) if u not in bgset]}
    return {name: {"tb_bytes": sum(tb[u] for u in ues), "app_bytes": sum(app[u] for u in ues),
                   "fill": sum(app[u] for u in ues) / max(1, sum(tb[u] for u in ues))}
            for name, ues in groups.items() if ues}


# -- driver ----------------------------------------------------------------------------------

def run_child(spec: dict) -> dict:
    """One ns-3 case in a child process (niced), its JSON result."""
    cmd = [sys.executable, __file__, "--ns3-case", "-"]  # the spec (with its arrival list) on stdin
    proc = subprocess.run(cmd, input=json.dumps(spec), capture_output=True, text=True,
                          preexec_fn=lambda: os.nice(10))
    if proc.returncode != 0:
        sys.exit(f"legilimens_study: ns-3 case {spec.get('case')} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def child_main(spec: dict) -> None:
    harq = spec.get("harq_errors", True)
    if spec["figure"] == "fig7":
        res = fig7_ns3(spec["bg"], spec["duration"], spec["seed"], harq)
    else:
        res = fig12_ns3(spec["scheme"], spec["layout"], spec["seed"], spec["duration"], spec["arrivals"], harq,
                        phy_stats=spec.get("phy_stats", False))
    print(json.dumps(res))


def load_jsonl(path: Path) -> dict:
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                out[rec["case"]] = rec["result"]
    return out


def ns3_cases(path: Path, args, cases: list[tuple[str, dict]]) -> dict:
    """Runs the ns-3 cases not yet in `path` (with --resume) and returns all results."""
    done = load_jsonl(path) if args.resume or args.cellshare_only else {}
    if args.cellshare_only:
        missing = [c for c, _ in cases if c not in done]
        if missing:
            sys.exit(f"legilimens_study: --ns3-results {path}: no ns-3 result for {', '.join(missing[:5])}"
                     f"{' ...' if len(missing) > 5 else ''}")
        return done
    if not args.resume and path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    for case, spec in cases:
        if case in done:
            continue
        t0 = time.monotonic()
        res = run_child({**spec, "case": case})
        done[case] = res
        with path.open("a") as fh:
            fh.write(json.dumps({"case": case, "result": res}) + "\n")
        print(f"  ns-3 {case}: {time.monotonic() - t0:.0f} s", flush=True)
    return done


def suffix(args) -> str:
    """Case-name suffix of a diagnostic variant."""
    return ("-noharq" if args.ns3_no_harq else "") + ("-phy" if getattr(args, "ns3_phy_stats", False) else "")


def fmt(x, nd=2):
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def diff(a, b):
    """ns-3 relative to cellshare, %."""
    if a is None or b is None or not a or math.isnan(a) or math.isnan(b):
        return "—"
    return f"{(b - a) / a * 100:+.0f} %"


def fig7(args) -> None:
    duration = fig7_duration(args.periods)
    harq = not args.ns3_no_harq
    cs = {"alone": fig7_cellshare(False, duration, args.seed, harq),
          "legilimens": fig7_cellshare(True, duration, args.seed, harq)}
    path = args.ns3_results or args.out / "ns3-fig7.jsonl"
    cases = [(f"fig7-{k}-{duration:g}s-seed{args.seed}{suffix(args)}",
              {"figure": "fig7", "bg": k == "legilimens", "duration": duration, "seed": args.seed,
               "harq_errors": not args.ns3_no_harq})
             for k in ("alone", "legilimens")]
    n3 = ns3_cases(path, args, cases)
    ns = {"alone": n3[cases[0][0]], "legilimens": n3[cases[1][0]]}
    m = {"cellshare": fig7_metrics(cs["legilimens"], cs["alone"], duration),
         "ns-3": fig7_metrics(ns["legilimens"], ns["alone"], duration)}
    rows = [("CUBIC alone, while on (Mbit/s)", "cubic_alone_mbps", 1), ("Legilimens while CUBIC on (Mbit/s)", "bg_on_mbps", 2),
            ("CUBIC beside Legilimens, on (Mbit/s)", "fg_on_mbps", 1), ("Legilimens while CUBIC off (Mbit/s)", "bg_off_mbps", 1),
            ("Legilimens' share while CUBIC on", "bg_share_on", 3), ("CUBIC on / CUBIC alone", "fg_ratio_on", 3),
            ("Legilimens off / CUBIC alone", "bg_off_ratio", 3), ("recapture to 70 %, mean (s)", "recapture_mean_s", 2),
            ("recapture to 70 %, max (s)", "recapture_max_s", 2)]
    lines = [f"Figure 7: {duration:g} s, seed {args.seed}; cellshare {cs['legilimens']['wall_s']:.1f} s, "
             f"ns-3 {ns['legilimens']['wall_s']:.0f} s of wall time for the Legilimens run", "",
             "| | cellshare | ns-3 | ns-3 vs cellshare |", "|---|---|---|---|"]
    for label, key, nd in rows:
        a, b = m["cellshare"][key], m["ns-3"][key]
        lines.append(f"| {label} | {fmt(a, nd)} | {fmt(b, nd)} | {diff(a, b)} |")
    lines.append("| recapture after each stop (s) | " + " | ".join(
        ", ".join(fmt(x, 1) for x in m[side]["recapture_s"]) for side in ("cellshare", "ns-3")) + " | |")
    nb = ns["legilimens"]
    lines += ["", "ns-3 Legilimens: seconds in NORMAL / GAP I / II / III / back-off: "
              + " / ".join(f"{s:.1f}" for s in nb["seconds_in_mode"])
              + f"; capacity estimate {nb['capacity_mbps']:.1f} Mbit/s; idle retransmission timeouts {nb['idle_timeouts']}"]
    emit(args, "fig7", lines, {"cellshare": cs, "ns3": ns, "metrics": m, "duration": duration})


def fig12(args) -> None:
    loads = [float(x) for x in args.loads.split(",")]
    schemes = args.schemes.split(",")
    layouts = args.layouts.split(",")
    for s in schemes:
        if s not in SCHEMES:
            sys.exit(f"legilimens_study: --schemes: {s!r} is not one of {', '.join(SCHEMES)}")
    for lay in layouts:
        if lay not in LAYOUTS:
            sys.exit(f"legilimens_study: --layouts: {lay!r} is not one of {', '.join(LAYOUTS)}")
    for ld in loads:
        if not 0 < ld < 1:
            sys.exit(f"legilimens_study: --loads: {ld} is not a load in (0, 1)")
    combos = [(s, lay) for lay in layouts for s in schemes if not (s == "w/o bg" and lay != layouts[0])]
    cs, cases = {}, []
    t0 = time.monotonic()
    for load in loads:
        arrivals = None
        for s, lay in combos:
            r = fig12_cellshare(s, lay, load, args.seed, args.duration, not args.ns3_no_harq)
            if arrivals is None:
                arrivals = r["arrivals"]
            elif r["arrivals"] != arrivals:
                sys.exit("legilimens_study: the workload's arrivals differ between schemes; the replay needs one list")
            cs[(s, lay, load)] = r
            case = (f"fig12-{s}-{lay if s != 'w/o bg' else 'any'}-load{int(load * 100)}-{args.duration:g}s"
                    f"-seed{args.seed}{suffix(args)}")
            cases.append((case, {"figure": "fig12", "scheme": s, "layout": lay, "seed": args.seed,
                                 "duration": args.duration, "arrivals": arrivals, "load": load,
                                 "harq_errors": not args.ns3_no_harq, "phy_stats": args.ns3_phy_stats}))
    print(f"cellshare: {len(cs)} runs in {time.monotonic() - t0:.1f} s", flush=True)
    if args.cellshare_alone:
        fig12_cellshare_table(args, cs, schemes, layouts, loads)
        return
    path = args.ns3_results or args.out / "ns3-fig12.jsonl"
    n3 = ns3_cases(path, args, cases)
    ns = {(spec["scheme"], spec["layout"], spec["load"]): n3[case] for case, spec in cases}
    lines = [f"Figure 12: 100 UEs, {args.duration:g} s per case, seed {args.seed}; per scheme, cellshare / ns-3 "
             "(ns-3 vs cellshare). Long: mean throughput of the 32 MB foreground flows over their life; "
             "background: mean per background flow; FCT of 64 KB flows from their first data byte.", ""]
    for lay in layouts:
        lines += [f"Background at {'every UE' if lay == 'every' else f'{SOME_BG} UEs'} (`{lay}`):", "",
                  "| scheme | load | long fg (Mbit/s) | background (Mbit/s per flow) | short FCT p50 (s) | short FCT p99 (s) | fg delivered (Mbit/s) |",
                  "|---|---|---|---|---|---|---|"]
        for s in schemes:
            key_lay = lay if s != "w/o bg" else layouts[0]
            rows = [(ld, cs[(s, key_lay, ld)]["summary"], ns[(s, key_lay, ld)]["summary"]) for ld in loads]
            avg = lambda side, k: statistics.fmean([r[side][k] for r in rows]) if all(not math.isnan(r[side][k]) for r in rows) else math.nan  # noqa: E731
            if len(loads) > 1:
                rows.append(("avg", {k: avg(1, k) for k in rows[0][1]}, {k: avg(2, k) for k in rows[0][2]}))
            for ld, a, b in rows:
                ldl = ld if ld == "avg" else f"{ld:.0%}"
                lines.append(f"| {s} | {ldl} | {fmt(a['long_mbps'])} / {fmt(b['long_mbps'])} ({diff(a['long_mbps'], b['long_mbps'])}) | "
                             f"{fmt(a['bg_mbps'])} / {fmt(b['bg_mbps'])} ({diff(a['bg_mbps'], b['bg_mbps'])}) | "
                             f"{fmt(a['short_fct_p50_s'], 3)} / {fmt(b['short_fct_p50_s'], 3)} | "
                             f"{fmt(a['short_fct_p99_s'], 2)} / {fmt(b['short_fct_p99_s'], 2)} | "
                             f"{fmt(a['fg_mbps'], 1)} / {fmt(b['fg_mbps'], 1)} |")
        lines.append("")
        # The paper's three claims, in each simulator.
        for side, data in (("cellshare", cs), ("ns-3", ns)):
            def avg_of(s, k):
                # Over the loads with a value: a 10 s window may hold no long flow (30 %).
                vals = [data[(s, lay if s != "w/o bg" else layouts[0], ld)]["summary"][k] for ld in loads]
                vals = [v for v in vals if not math.isnan(v)]
                return statistics.fmean(vals) if vals else math.nan
            if {"Legilimens", "LEDBAT", "Vegas", "w/o bg"} <= set(schemes):
                leg, led, veg = avg_of("Legilimens", "bg_mbps"), avg_of("LEDBAT", "bg_mbps"), avg_of("Vegas", "bg_mbps")
                gap = 1 - avg_of("Legilimens", "long_mbps") / avg_of("w/o bg", "long_mbps")
                lines.append(f"- {side}: Legilimens' background / LEDBAT's {leg / led:.2f}, / Vegas' {leg / veg:.2f} "
                             f"(paper 2.2); foreground long flows 1 − Legilimens / w/o bg = {gap:.0%} (paper ≤ 12 %)")
        for side, data in (("cellshare", cs), ("ns-3", ns)):
            if "Legilimens" in schemes:
                shares = [data[("Legilimens", lay, ld)].get("mode_share") for ld in loads]
                if all(shares):
                    lines.append(f"- {side} Legilimens, share of time in NORMAL / GAP I / II / III / back-off, per load: "
                                 + "; ".join(" / ".join(f"{x:.2f}" for x in sh) for sh in shares))
        # Diagnoses of the ns-3 runs that recorded them: cellshare replayed with ns-3's
        # connection set-up times, and how full ns-3's transport blocks were.
        diag = []
        for s in schemes:
            for ld in loads:
                key = (s, lay if s != "w/o bg" else layouts[0], ld)
                each, phy = ns[key].get("setup_each_s"), ns[key].get("phy")
                if each is None and not phy:
                    continue
                rep = "—"
                if each is not None:
                    a = fig12_cellshare_replay(s, key[1], ld, args.seed, args.duration, not args.ns3_no_harq,
                                               cs[key]["arrivals"], each)["summary"]
                    b = ns[key]["summary"]
                    rep = f"{fmt(a['fg_mbps'], 1)} / {fmt(b['fg_mbps'], 1)} ({diff(a['fg_mbps'], b['fg_mbps'])})"
                fill = " / ".join(f"{phy[g]['fill']:.2f}" if phy and g in phy else "—" for g in ("background UEs", "other UEs"))
                diag.append(f"| {s} | {ld:.0%} | {rep} | {fill} |")
        if diag:
            lines += ["", "| scheme | load | fg delivered, cellshare replayed with ns-3's set-up / ns-3 (Mbit/s) | "
                      "ns-3 block fill, background UEs / other UEs |", "|---|---|---|---|"] + diag
        lines.append("")
    walls = [r["wall_s"] for r in ns.values()]
    lines.append(f"Wall time: cellshare {sum(r['wall_s'] for r in cs.values()):.0f} s for {len(cs)} runs; "
                 f"ns-3 {sum(walls) / 60:.0f} min for {len(walls)} runs (longest {max(walls) / 60:.0f} min).")
    emit(args, "fig12", lines, {"cellshare": {"|".join(map(str, k)): {kk: vv for kk, vv in v.items() if kk != "arrivals"}
                                              for k, v in cs.items()},
                                "ns3": {"|".join(map(str, k)): v for k, v in ns.items()},
                                "duration": args.duration, "seed": args.seed})


def fig12_cellshare_table(args, cs: dict, schemes: list, layouts: list, loads: list) -> None:
    """cellshare alone (no ns-3): one row per scheme and layout, one column per load, and the
    paper's two Figure 12 claims averaged over the loads."""
    key = lambda s, lay, ld: (s, lay if s != "w/o bg" else layouts[0], ld)  # noqa: E731
    lines = [f"Figure 12 in cellshare alone: 100 UEs, {args.duration:g} s per case, seed {args.seed}. Per load: "
             "long fg (Mbit/s) / background per flow (Mbit/s) / short FCT p50 (s) / fg delivered (Mbit/s).", "",
             "| scheme | layout | " + " | ".join(f"{ld:.0%}" for ld in loads) + " |", "|---|---|" + "---|" * len(loads)]
    for lay in layouts:
        for s in schemes:
            if s == "w/o bg" and lay != layouts[0]:
                continue
            cells = [cs[key(s, lay, ld)]["summary"] for ld in loads]
            lines.append(f"| {s} | {'—' if s == 'w/o bg' else lay} | " + " | ".join(
                f"{fmt(c['long_mbps'])} / {fmt(c['bg_mbps'])} / {fmt(c['short_fct_p50_s'], 3)} / {fmt(c['fg_mbps'], 1)}"
                for c in cells) + " |")
    lines.append("")
    if {"Legilimens", "LEDBAT", "Vegas", "w/o bg"} <= set(schemes):
        for lay in layouts:
            avg = lambda s, k: statistics.fmean(cs[key(s, lay, ld)]["summary"][k] for ld in loads)  # noqa: E731
            lines.append(f"- `{lay}`, averaged over the loads: Legilimens' background / LEDBAT's "
                         f"{avg('Legilimens', 'bg_mbps') / avg('LEDBAT', 'bg_mbps'):.2f}, / Vegas' "
                         f"{avg('Legilimens', 'bg_mbps') / avg('Vegas', 'bg_mbps'):.2f} (paper 2.2); foreground long flows "
                         f"1 − Legilimens / w/o bg = {1 - avg('Legilimens', 'long_mbps') / avg('w/o bg', 'long_mbps'):.0%} (paper ≤ 12 %)")
    emit(args, "fig12-cellshare", lines, {"|".join(map(str, k)): {kk: vv for kk, vv in v.items() if kk != "arrivals"}
                                           for k, v in cs.items()})


def emit(args, name: str, lines: list[str], data: dict) -> None:
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"{name}.md").write_text(text)
        (args.out / f"{name}.json").write_text(json.dumps(data, indent=1, default=str))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("figure", nargs="?", choices=("fig7", "fig12"))
    p.add_argument("--out", type=Path, help="directory for <figure>.md, <figure>.json and the ns-3 results")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--periods", type=int, default=3, help="fig7: on/off periods after the 20 s start (default 3: 200 s)")
    p.add_argument("--duration", type=float, default=120.0, help="fig12: seconds per case (default 120)")
    p.add_argument("--loads", default=",".join(str(x) for x in LOADS), help="fig12: comma-separated loads")
    p.add_argument("--schemes", default=",".join(SCHEMES), help="fig12: comma-separated subset of " + ",".join(SCHEMES))
    p.add_argument("--layouts", default=",".join(LAYOUTS), help="fig12: every, some or both")
    p.add_argument("--resume", action="store_true", help="keep the ns-3 cases already in the results file")
    p.add_argument("--cellshare-only", action="store_true", help="rerun cellshare only; ns-3 numbers from --ns3-results")
    p.add_argument("--ns3-results", type=Path, help="ns-3 results file (.jsonl) to read (and, without --cellshare-only, extend)")
    p.add_argument("--cellshare-alone", action="store_true",
                   help="fig12: cellshare only, no ns-3 (e.g. at the issue's 120 s and all loads, seconds per run)")
    p.add_argument("--cellshare-ledbat-delay-exit", action="store_true",
                   help="fig12: cellshare's LEDBAT leaves slow start at half its target delay (its default), "
                        "not at the first loss as ns-3's TcpLedbat")
    p.add_argument("--cellshare-leftover", metavar="RULE", choices=("next_ue", "padding"),
                   help="diagnosis: cellshare's cell.scheduler.leftover: next_ue (its default) or padding "
                        "(a TTI's winner takes every PRB left and its block is padded, as ns-3's PfFfMacScheduler)")
    p.add_argument("--ns3-no-harq", action="store_true",
                   help="diagnosis: ns-3 without its block-error model (no HARQ retransmissions), as cellshare")
    p.add_argument("--ns3-phy-stats", action="store_true",
                   help="fig12 diagnosis: record ns-3's downlink transport blocks and report how full they are "
                        "(application bytes / new-block bytes) at the background UEs and the others")
    p.add_argument("--ns3-case", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.ns3_case:
        child_main(json.loads(sys.stdin.read() if args.ns3_case == "-" else args.ns3_case))
        return
    if args.figure is None:
        p.error("name a figure: fig7 or fig12")
    if args.cellshare_leftover:
        SCHEDULER["leftover"] = args.cellshare_leftover
    if args.cellshare_ledbat_delay_exit:
        SCHEMES["LEDBAT"] = (LEDBAT_DELAY_EXIT, SCHEMES["LEDBAT"][1])
    if args.cellshare_only and not args.ns3_results:
        p.error("--cellshare-only needs --ns3-results FILE (a results file this tool wrote)")
    if args.cellshare_only and not args.ns3_results.exists():
        p.error(f"--ns3-results: {args.ns3_results} does not exist")
    if args.duration <= 1 or args.periods < 1 or args.seed < 0:
        p.error(f"--duration {args.duration} / --periods {args.periods} / --seed {args.seed}: expected > 1 s, >= 1, >= 0")
    if args.cellshare_alone and (args.figure != "fig12" or args.cellshare_only):
        p.error("--cellshare-alone is for fig12 and replaces --cellshare-only")
    if not args.cellshare_only and not args.cellshare_alone:
        why = L.unavailable()
        if why:
            p.error(f"the ns-3 side cannot run: {why} (use --cellshare-only --ns3-results FILE)")
        if not args.out and not args.ns3_results:
            p.error("--out DIR is needed for the ns-3 results")
    if args.ns3_results is None and args.out is None and not args.cellshare_alone:
        p.error("--out DIR is needed")
    (fig7 if args.figure == "fig7" else fig12)(args)


if __name__ == "__main__":
    main()
