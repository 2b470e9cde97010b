#!/usr/bin/env python3
"""TCP-LP alone in a fading cell against CUBIC alone, stored for docs/transport.md.

    nice -n 19 python tools/tcp_lp_fading.py --out tools/data/tcp-lp-fading.json [--seeds 5] [--secs 30]

One radio UE alone in a 10 MHz LTE cell (the channel's defaults: 751 MHz, 47.78 dBm, path-loss
exponent 3.52, Rayleigh fading at 3 km/h) at DISTANCE metres, one bulk TCP flow whose
controller is TCP-LP or CUBIC; the same with ``fading = "none"``. Per seed, each controller's
throughput and TCP-LP's over CUBIC's. TCP-LP reads the one-way delay a deep fade adds as early
congestion, so its share of what CUBIC gets falls with fading and varies with the seed (the
fades' timing).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

COMMAND = "nice -n 19 python tools/tcp_lp_fading.py --out FILE"
DISTANCE_M = 500.0


def scenario(cc: str, fading: str, seed: int, secs: float) -> dict:
    return {
        "simulation": {"duration_s": secs, "seed": seed, "trace_interval_ms": 0},
        "cell": {"bandwidth_mhz": 10},
        "ues": [{"channel": {"kind": "radio", "distance_m": DISTANCE_M, "fading": fading}}],
        "flows": [{"name": "bulk", "ue": 0, "transport": {"kind": "tcp", "cc": {"kind": cc}}}],
    }


def main() -> int:
    import cellshare

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="the JSON to write")
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N per case (default 5)")
    ap.add_argument("--secs", type=float, default=30.0, help="simulated seconds per run (default 30)")
    a = ap.parse_args()
    if a.seeds < 1:
        print(f"error: --seeds: {a.seeds} is not a positive count of seeds", file=sys.stderr)
        return 2
    rows = []
    for fading in ("rayleigh", "none"):
        for seed in range(1, a.seeds + 1):
            got = {cc: cellshare.run(scenario(cc, fading, seed, a.secs)).flow("bulk")["throughput_mbps"]
                   for cc in ("tcp_lp", "cubic")}
            rows.append({"fading": fading, "seed": seed, "tcp_lp_mbps": got["tcp_lp"], "cubic_mbps": got["cubic"],
                         "ratio": got["tcp_lp"] / got["cubic"]})
            print(json.dumps(rows[-1]), flush=True)
    doc = {"what": f"TCP-LP alone against CUBIC alone, one radio UE at {DISTANCE_M:g} m in a 10 MHz LTE cell, "
                   f"Rayleigh fading (3 km/h) or none, {a.secs:g} s per run, seeds 1-{a.seeds}",
           "generated_by": COMMAND + (f" --seeds {a.seeds}" if a.seeds != 5 else "") + (f" --secs {a.secs:g}" if a.secs != 30 else ""),
           "distance_m": DISTANCE_M, "secs": a.secs, "rows": rows}
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
