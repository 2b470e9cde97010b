"""Legilimens backgrounds that start in step: the measurement behind docs/legilimens.md
("Known limits") and docs/emulator.md ("Several flows against Linux").

The layout is `scenarios/emu-mixed-legilimens.toml` (a CUBIC foreground at UE 0 from 30 ms,
a Legilimens background at each of UEs 1-3, a 10 MHz proportional-fair cell), run for
:data:`DURATION_S` simulated seconds in each case of :data:`CASES`: the backgrounds started
in the same millisecond or a few apart, on the scenario's identical fixed 20 Mbit/s channels,
on fixed channels of different rates, with the receiver's quick-ACK mode off, and on radio
channels at one distance without and with Rayleigh fading. For each case it records the
foreground's and the backgrounds' throughput, the largest capacity estimate any background
reached (the controller's trace ``estimate``, Mbit/s), the longest run of consecutive
milliseconds in which a background's receiver got data (the trace's ``mbps`` sampled every
millisecond: on a fixed channel, consecutive TTIs served) and whether any background ever
backed off (mode 4 in its ``mode_changes``).

The simulator is deterministic, so the artefact is what the code gives now
(``tests/test_legilimens_sync.py`` checks that):
``python -m cellshare.docmeasure legilimens-in-step --out tools/data/legilimens-in-step.json``.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = "scenarios/emu-mixed-legilimens.toml"
COMMAND = "python -m cellshare.docmeasure legilimens-in-step --out tools/data/legilimens-in-step.json"
DURATION_S = 20.0
#: Trace sampling: one TTI, so that consecutive samples with data are consecutive TTIs.
TRACE_MS = 1
#: When the foreground starts and the first background starts (the emulator run's layout).
FG_START_S = 0.03
BG_START_S = 0.041

_FIXED = {"kind": "fixed", "rate_mbps": 20.0}
_RADIO = {"kind": "radio", "distance_m": 600.0, "fading": "none"}
_RAYLEIGH = {"kind": "radio", "distance_m": 600.0, "fading": "rayleigh"}

#: id → what, the channel of each of UEs 0-3, the backgrounds' spacing (ms) and the TCP
#: endpoint keys set (None: the defaults).
CASES: list[dict[str, Any]] = [
    {"id": "fixed-together", "what": "identical fixed 20 Mbit/s channels, started together",
     "channels": [_FIXED] * 4, "apart_ms": 0, "tcp": None},
    {"id": "fixed-1ms", "what": "identical fixed channels, started 1 ms apart",
     "channels": [_FIXED] * 4, "apart_ms": 1, "tcp": None},
    {"id": "fixed-4ms", "what": "identical fixed channels, started 4 ms apart",
     "channels": [_FIXED] * 4, "apart_ms": 4, "tcp": None},
    {"id": "fixed-5ms", "what": "identical fixed channels, started 5 ms apart",
     "channels": [_FIXED] * 4, "apart_ms": 5, "tcp": None},
    {"id": "fixed-unequal", "what": "fixed channels of 16, 20 and 24 Mbit/s (no equal PF metrics), started together",
     "channels": [_FIXED] + [{"kind": "fixed", "rate_mbps": r} for r in (16.0, 20.0, 24.0)], "apart_ms": 0,
     "tcp": None},
    {"id": "fixed-no-quickack", "what": "identical fixed channels, started together, receivers without quick ACKs",
     "channels": [_FIXED] * 4, "apart_ms": 0, "tcp": {"quickack": False}},
    {"id": "radio-together", "what": "radio channels at 600 m without fading, started together",
     "channels": [_RADIO] * 4, "apart_ms": 0, "tcp": None},
    {"id": "radio-5ms", "what": "radio channels at 600 m without fading, started 5 ms apart",
     "channels": [_RADIO] * 4, "apart_ms": 5, "tcp": None},
    {"id": "rayleigh-together", "what": "radio channels at 600 m with Rayleigh fading, started together",
     "channels": [_RAYLEIGH] * 4, "apart_ms": 0, "tcp": None},
    {"id": "rayleigh-5ms", "what": "radio channels at 600 m with Rayleigh fading, started 5 ms apart",
     "channels": [_RAYLEIGH] * 4, "apart_ms": 5, "tcp": None},
]


def scenario(case: dict) -> dict:
    """The scenario of one case: `scenarios/emu-mixed-legilimens.toml` with the case's
    channels, start times and receiver, for :data:`DURATION_S` seconds."""
    sc = tomllib.loads((ROOT / SCENARIO).read_text())
    sc["simulation"]["duration_s"] = DURATION_S
    sc["simulation"]["trace_interval_ms"] = TRACE_MS
    sc["ues"] = [{"count": 1, "channel": dict(ch)} for ch in case["channels"]]
    transport = {"kind": "tcp", "cc": {"kind": "legilimens"}}
    if case["tcp"]:
        transport["tcp"] = dict(case["tcp"])
    sc["flows"] = [{"name": "fg", "ues": [0], "start_s": FG_START_S,
                    "transport": {"kind": "tcp", "cc": {"kind": "cubic"}}}]
    for u in (1, 2, 3):
        start = round(BG_START_S + (u - 1) * case["apart_ms"] / 1000.0, 6)
        sc["flows"].append({"name": f"bg{u}", "ues": [u], "class": "background", "start_s": start,
                            "transport": dict(transport)})
    return sc


def _longest_run(mbps: list) -> int:
    """The longest run of consecutive samples with data delivered."""
    best = run = 0
    for x in mbps:
        run = run + 1 if x else 0
        best = max(best, run)
    return best


def measure_case(case: dict) -> dict:
    """One case's foreground and background throughput (Mbit/s), the largest capacity
    estimate a background reached (Mbit/s), the longest run of milliseconds with data at a
    background, and whether any background backed off."""
    import cellshare

    res = cellshare.run(scenario(case))
    flows = {f["name"]: f for f in res.summary["flows"]}
    bgs = [f"bg{u}" for u in (1, 2, 3)]
    estimates, backed_off, longest = [], False, 0
    for name in bgs:
        fl = res.flow(name)
        estimates += [e for e in fl["trace"]["estimate"] if e is not None and not math.isnan(e)]
        longest = max(longest, _longest_run(fl["trace"]["mbps"]))
        backed_off |= any(m == 4 for m in fl["mode_changes"]["mode"])
    return {
        "id": case["id"],
        "what": case["what"],
        "fg_mbps": round(flows["fg"]["throughput_mbps"], 3),
        "bg_mbps": round(sum(flows[b]["throughput_mbps"] for b in bgs), 3),
        "bg_estimate_max_mbps": round(max(estimates), 3) if estimates else None,
        "bg_longest_run_ms": longest,
        "bg_backed_off": backed_off,
    }


def measure() -> dict:
    """Every case of :data:`CASES`, with the command and the scenario."""
    return {"generated_by": COMMAND, "scenario": SCENARIO, "duration_s": DURATION_S,
            "fg_start_s": FG_START_S, "bg_start_s": BG_START_S,
            "cases": [measure_case(c) for c in CASES]}
