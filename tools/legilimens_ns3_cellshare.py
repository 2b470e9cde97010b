#!/usr/bin/env python3
"""cellshare's side of the Figure 12 comparison with ns-3 (docs/legilimens-ns3.md), stored
with the numbers the stored table (`tools/data/legilimens-ns3-fig12.md`) does not hold, and
the cellshare-only variants the page's analysis uses. Seconds of CPU time; no ns-3 needed.

    python tools/legilimens_ns3_cellshare.py --out tools/data/legilimens-ns3-fig12-cellshare.json

Writes, for seed 1, 10 s per case, loads 30/60/80 % (the stored comparison's set-up):

- ``cases``: per ``SCHEME|LAYOUT|LOAD`` (``w/o bg|every|…`` for the cell without background),
  the summary of `legilimens_study.fig12_cellshare` (long, background per flow, background
  total, foreground delivered, short FCT p50/p99) and, for Legilimens, its share of time per
  mode (NORMAL / GAP I / II / III / back-off).
- ``variants``: each a change of one setting against those cases:
  ``linux_receiver`` (every flow with cellshare's default receiver, Linux's: quick ACKs, one
  ACK per TTI burst, instead of ns-3's), for the four backgrounds in both layouts;
  ``uplink_12ms`` (``wired.uplink_delay_ms = 12`` instead of 4) and ``handshake`` (the
  foreground's TCP handshake on), for the cell without background.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import platform
import sys
import time
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))

import legilimens_study as S  # noqa: E402

LOADS = (0.3, 0.6, 0.8)
SEED = 1
DURATION = 10.0
COMMAND = "python tools/legilimens_ns3_cellshare.py --out tools/data/legilimens-ns3-fig12-cellshare.json"


def _run(scenario: dict, scheme: str) -> dict:
    """Run one scenario as `legilimens_study.fig12_cellshare` does: its summary (and, for
    Legilimens, the share of time per mode)."""
    from cellshare import api

    r = api.run(scenario)
    out = {"summary": S.summarize(S.cellshare_flows(r), DURATION)}
    if scheme == "Legilimens":
        out["mode_share"] = S.mode_share(r)
    return out


def _linux_receiver(sc: dict) -> dict:
    """Every flow with cellshare's default receiver instead of ns-3's."""
    sc = copy.deepcopy(sc)
    for f in sc["flows"]:
        f["transport"].pop("tcp", None)
    tcp = sc["workload"]["transport"]["tcp"]
    sc["workload"]["transport"]["tcp"] = {k: v for k, v in tcp.items() if k not in S.X.NS3_RECEIVER}
    return sc


def _uplink_12ms(sc: dict) -> dict:
    sc = copy.deepcopy(sc)
    sc["wired"]["uplink_delay_ms"] = 12.0
    return sc


def _handshake(sc: dict) -> dict:
    sc = copy.deepcopy(sc)
    sc["workload"]["transport"]["tcp"]["handshake"] = True
    return sc


VARIANTS = {
    "linux_receiver": (_linux_receiver, [(s, lay) for s in ("CUBIC", "LEDBAT", "Vegas", "Legilimens")
                                         for lay in ("every", "some")]),
    "uplink_12ms": (_uplink_12ms, [("w/o bg", "every")]),
    "handshake": (_handshake, [("w/o bg", "every")]),
}


def measure() -> dict:
    t0 = time.monotonic()
    cases, variants = {}, {name: {} for name in VARIANTS}
    for load in LOADS:
        for lay in S.LAYOUTS:
            for scheme in S.SCHEMES:
                if scheme == "w/o bg" and lay != "every":
                    continue
                sc = S.fig12_scenario(scheme, lay, load, SEED, DURATION)
                key = f"{scheme}|{lay}|{load}"
                cases[key] = _run(sc, scheme)
                for name, (change, which) in VARIANTS.items():
                    if (scheme, lay) in which:
                        variants[name][key] = _run(change(sc), scheme)
    return {"what": "cellshare's side of Figure 12 against ns-3 (tools/legilimens_study.py fig12's scenarios, "
                    "seed 1, 10 s per case) with background totals and Legilimens' time per mode, and "
                    "variants of one setting each",
            "generated_by": COMMAND, "seed": SEED, "duration_s": DURATION, "loads": list(LOADS),
            "cases": cases, "variants": variants,
            "variant_settings": {"linux_receiver": "every flow with cellshare's default receiver (Linux's)",
                                 "uplink_12ms": "wired.uplink_delay_ms = 12 instead of 4",
                                 "handshake": "the foreground's TCP handshake on"},
            "machine": {"wall_s": round(time.monotonic() - t0, 1), "system": f"{platform.system()} {platform.release()}",
                        "python": platform.python_version()}}


def _no_nan(x):
    """NaN (no flow of that kind in the window) as null, so the file is plain JSON."""
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _no_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_no_nan(v) for v in x]
    return x


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, required=True, help="the JSON to write")
    args = p.parse_args(argv)
    if args.out.suffix != ".json":
        print(f"legilimens_ns3_cellshare: --out: {str(args.out)!r} is not a .json path", file=sys.stderr)
        return 2
    d = _no_nan(measure())
    args.out.write_text(json.dumps(d, indent=1, sort_keys=True, allow_nan=False) + "\n")
    print(f"wrote {args.out} ({len(d['cases'])} cases, {sum(len(v) for v in d['variants'].values())} variant runs, "
          f"{d['machine']['wall_s']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
