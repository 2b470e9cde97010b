"""`cellshare bench`: the fixed 100-UE benchmark.

100 UEs at random distances (50–1000 m) in a 10 MHz PF cell on the stochastic radio channel,
one saturating downlink flow per UE, on the realistic radio link (`cell.link`); every run is
paired with one on the ideal link, interleaved, so that the realistic link's cost is measured
side by side on the same machine state. Each run happens in a fresh child process that loads
only the extension module, so the peak RSS reported is the simulator's (plus a bare
interpreter, about 14 MB), not the plotting stack's.
"""

from __future__ import annotations

import json
import subprocess
import sys

_CHILD = r"""
import json, resource, sys, time
from importlib import resources
from cellshare import _core

def peak_rss_mb():
    # VmHWM belongs to this address space; ru_maxrss would also count the parent's peak,
    # since Linux carries it across fork and execve.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

text = resources.files("cellshare").joinpath(sys.argv[3]).read_text()
duration = float(sys.argv[1])
text = text.replace("duration_s = 60.0", f"duration_s = {duration!r}")
text = text.replace('link = { kind = "realistic" }', f'link = {{ kind = "{sys.argv[2]}" }}')
t0 = time.perf_counter()
sim = _core.Sim(text, ".")
sim.advance(sim.end_s)
wall = time.perf_counter() - t0
r = json.loads(sim.finish().summary_json())
print(json.dumps({
    "sim_speed": r["duration_s"] / wall,
    "wall_s": wall,
    "peak_rss_mb": peak_rss_mb(),
    "events": r["events"],
    "delivered_mbps": r["delivered_mbps"],
    "transport": r["flows"][0]["transport"],
    "handovers": len(r["handovers"]["t_s"]) if r.get("handovers") else 0,
    "ues": len(r["ues"]),
    "cells": len(r["cells"]) if r.get("cells") else 1,
}))
"""


#: The single-cell benchmark and the network benchmark (`cellshare bench --network`: 7 cells
#: x 30 moving UEs, saturated TCP, interference and handover; target >= 100x real time).
BENCH = "data/bench.toml"
BENCH_NETWORK = "data/bench-network.toml"


def _once(duration: float, link: str = "realistic", scenario: str = BENCH) -> dict:
    proc = subprocess.run([sys.executable, "-c", _CHILD, repr(duration), link, scenario], capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


def _median(xs: list) -> float:
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def run_bench(duration: float = 60.0, repeat: int = 3) -> dict:
    """Runs the benchmark `repeat` times on the realistic link and `repeat` times on the ideal
    link, interleaved, each for `duration` simulated seconds in a fresh child process, and
    reports the realistic link's median speed (the runs are identical, so the spread is the
    machine's noise) with every sample, the ideal link's median, and the largest peak RSS."""
    runs, ideal = [], []
    for _ in range(repeat):
        runs.append(_once(duration, "realistic"))
        ideal.append(_once(duration, "ideal"))
    out = dict(runs[0])
    out.update(sim_speed=_median([r["sim_speed"] for r in runs]), samples=[r["sim_speed"] for r in runs],
               peak_rss_mb=max(r["peak_rss_mb"] for r in runs + ideal), wall_s=_median([r["wall_s"] for r in runs]),
               ideal_sim_speed=_median([r["sim_speed"] for r in ideal]), ideal_samples=[r["sim_speed"] for r in ideal],
               ideal_delivered_mbps=ideal[0]["delivered_mbps"], ideal_events=ideal[0]["events"])
    return out


def run_network_bench(duration: float = 60.0, repeat: int = 3) -> dict:
    """Runs the network benchmark (7 cells x 30 moving UEs, realistic link) `repeat` times and
    reports the median speed, every sample, the handovers and the largest peak RSS."""
    runs = [_once(duration, "realistic", BENCH_NETWORK) for _ in range(repeat)]
    out = dict(runs[0])
    out.update(sim_speed=_median([r["sim_speed"] for r in runs]), samples=[r["sim_speed"] for r in runs],
               peak_rss_mb=max(r["peak_rss_mb"] for r in runs), wall_s=_median([r["wall_s"] for r in runs]))
    return out
