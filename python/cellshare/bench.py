"""`cellshare bench`: the fixed 100-UE benchmark.

100 UEs at random distances (50–1000 m) in a 10 MHz PF cell on the stochastic radio channel,
one saturating downlink flow per UE. The run happens in a fresh child process that loads only
the extension module, so the peak RSS reported is the simulator's (plus a bare interpreter,
about 14 MB), not the plotting stack's.
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

text = resources.files("cellshare").joinpath("data/bench.toml").read_text()
duration = float(sys.argv[1])
text = text.replace("duration_s = 60.0", f"duration_s = {duration!r}")
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
}))
"""


def _once(duration: float) -> dict:
    proc = subprocess.run([sys.executable, "-c", _CHILD, repr(duration)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


def run_bench(duration: float = 60.0, repeat: int = 3) -> dict:
    """Runs the benchmark `repeat` times, each for `duration` simulated seconds in a fresh
    child process, and reports the median speed (the runs are identical, so the spread is
    the machine's noise) with every sample, and the largest peak RSS."""
    runs = [_once(duration) for _ in range(repeat)]
    speeds = sorted(r["sim_speed"] for r in runs)
    median = speeds[len(speeds) // 2] if len(speeds) % 2 else (speeds[len(speeds) // 2 - 1] + speeds[len(speeds) // 2]) / 2
    out = dict(runs[0])
    out.update(sim_speed=median, samples=[r["sim_speed"] for r in runs], peak_rss_mb=max(r["peak_rss_mb"] for r in runs),
               wall_s=sorted(r["wall_s"] for r in runs)[len(runs) // 2])
    return out
