"""`cellshare bench`: the fixed 100-UE benchmark.

100 UEs at random distances (50–1000 m) in a 10 MHz PF cell on the stochastic radio channel,
one saturating downlink flow per UE. The run happens in a fresh child process that loads only
the extension module, so the peak RSS reported is the simulator's (plus a bare interpreter,
about 10 MB), not the plotting stack's.
"""

from __future__ import annotations

import json
import subprocess
import sys

_CHILD = r"""
import json, resource, sys, time
from importlib import resources
from cellshare import _core
text = resources.files("cellshare").joinpath("data/bench.toml").read_text()
duration = float(sys.argv[1])
text = text.replace("duration_s = 60.0", f"duration_s = {duration!r}")
t0 = time.perf_counter()
sim = _core.Sim(text, ".")
sim.advance(sim.end_s)
wall = time.perf_counter() - t0
r = json.loads(sim.results_json())
print(json.dumps({
    "sim_speed": r["duration_s"] / wall,
    "wall_s": wall,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    "events": r["events"],
    "delivered_mbps": r["delivered_mbps"],
    "transport": r["flows"][0]["transport"],
}))
"""


def run_bench(duration: float = 60.0) -> dict:
    """Runs the benchmark for `duration` simulated seconds in a child process."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, repr(duration)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark failed:\n{proc.stderr}")
    return json.loads(proc.stdout)
