"""Interleaved timing of the 100-UE benchmark (`python/cellshare/data/bench.toml`) with each datagram
transport in place of CUBIC: `python tools/bench_transports.py [SIM_SECONDS] [REPEATS]`."""
import sys, time
from importlib import resources
from cellshare import _core
base = resources.files("cellshare").joinpath("data/bench.toml").read_text()
dur = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
base = base.replace("duration_s = 60.0", f"duration_s = {dur!r}")
kinds = {"cubic": 'transport = { kind = "tcp", cc = { kind = "cubic" } }',
         "sprout": 'transport = { kind = "sprout" }', "sprout-fast": 'transport = { kind = "sprout", fast_inference = true }',
         "verus": 'transport = { kind = "verus" }',
         "vivace": 'transport = { kind = "vivace" }'}
res = {k: [] for k in kinds}
for rep in range(int(sys.argv[2]) if len(sys.argv) > 2 else 2):
    for k, line in kinds.items():
        text = base.replace('transport = { kind = "tcp", cc = { kind = "cubic" } }', line)
        t0 = time.perf_counter(); sim = _core.Sim(text, "."); sim.advance(sim.end_s); w = time.perf_counter() - t0
        res[k].append(dur / w)
        print(k, f"{dur / w:.0f}x", flush=True)
for k, v in res.items():
    print(k, "median", f"{sorted(v)[len(v)//2]:.0f}x", "runs", " ".join(f"{x:.0f}" for x in v))
