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
for old, new in json.loads(sys.argv[4]) if len(sys.argv) > 4 else []:
    if old not in text:
        sys.exit(f"benchmark variant: {old!r} is not in {sys.argv[3]}")
    text = text.replace(old, new)
t0, c0 = time.perf_counter(), time.process_time()
sim = _core.Sim(text, ".")
sim.advance(sim.end_s)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
running_rss = peak_rss_mb()
r = json.loads(sim.finish().summary_json())
print(json.dumps({
    "sim_speed": r["duration_s"] / wall,
    "wall_s": wall,
    "sim_speed_cpu": r["duration_s"] / cpu,
    "peak_rss_mb": peak_rss_mb(),
    "running_peak_rss_mb": running_rss,
    "peak_packets": r.get("peak_packets"),
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


def _once(duration: float, link: str = "realistic", scenario: str = BENCH, edits: tuple = ()) -> dict:
    proc = subprocess.run([sys.executable, "-c", _CHILD, repr(duration), link, scenario, json.dumps(list(edits))],
                          capture_output=True, text=True, check=False)
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


#: The NR variant of the single-cell benchmark (`cellshare bench --nr`): the same 100 UEs and
#: saturated TCP on a 100 MHz NR carrier at numerology 1 (273 PRBs, 0.5 ms slots).
NR_EDITS = (("bandwidth_mhz = 10", 'rat = "nr"\nbandwidth_mhz = 100'), ("[[ues]]", "[cell.nr]\nnumerology = 1\n\n[[ues]]"))
#: Bytes of one of the benchmark's TCP segments on the air (MSS 1448 + 52 bytes of headers).
SEGMENT_BYTES = 1500


def _per_packet(r: dict) -> dict:
    """Wall and CPU microseconds per delivered segment of a run (its bytes over the air / 1500)."""
    packets = r["delivered_mbps"] * 1e6 / 8 * (r["wall_s"] * r["sim_speed"]) / SEGMENT_BYTES
    cpu_s = r["wall_s"] * r["sim_speed"] / r["sim_speed_cpu"]
    return {"packets": packets, "wall_us_per_packet": r["wall_s"] / packets * 1e6, "cpu_us_per_packet": cpu_s / packets * 1e6}


def run_nr_bench(duration: float = 10.0, repeat: int = 3) -> dict:
    """The NR benchmark (:data:`NR_EDITS`) and the LTE benchmark, `repeat` times each,
    interleaved in one session: NR carries tens of times more packets per second, so the
    measure is the cost per delivered packet (wall and CPU time; the medians), and its ratio
    NR / LTE."""
    nr, lte = [], []
    for _ in range(repeat):
        nr.append(_once(duration, "realistic", BENCH, NR_EDITS))
        lte.append(_once(duration, "realistic", BENCH))
    out = {}
    for name, runs in (("nr", nr), ("lte", lte)):
        costs = [_per_packet(r) for r in runs]
        out[name] = {"sim_speed": _median([r["sim_speed"] for r in runs]), "delivered_mbps": runs[0]["delivered_mbps"],
                     "events": runs[0]["events"], "packets": costs[0]["packets"],
                     "wall_us_per_packet": _median([c["wall_us_per_packet"] for c in costs]),
                     "cpu_us_per_packet": _median([c["cpu_us_per_packet"] for c in costs]),
                     "peak_rss_mb": max(r["peak_rss_mb"] for r in runs)}
    out["ratio_wall"] = out["nr"]["wall_us_per_packet"] / out["lte"]["wall_us_per_packet"]
    out["ratio_cpu"] = out["nr"]["cpu_us_per_packet"] / out["lte"]["cpu_us_per_packet"]
    return out


#: Simulated durations of the NR artefact's memory runs: the peak RSS of a run 4x as long. The
#: packets in flight grow while the saturating CUBIC flows' windows fill the RLC queues (the
#: packet arena holds what they hold, bounded by `cell.rlc_queue_bytes` per UE: on the LTE
#: benchmark 7,419 packets at 10 s, 27,320 at 40 s, 32,863 at 160 s, the queues' limit being
#: about 35,000), so the runs start once the queues have filled: memory flat in simulated
#: time means flat from there.
RSS_DURATIONS = (160.0, 640.0)
#: The memory runs keep no 100 ms traces (`cellshare run` spools them to disk as the run goes;
#: kept in the process they would grow with the simulated time by design): what is left is the
#: simulator's state and its per-second results.
RSS_EDITS = (("[simulation]\n", "[simulation]\ntrace_interval_ms = 0\n"),)
#: Where the NR artefact's instruction counts come from: the `run_scenario` example, built with
#: `cargo build --release -p cellshare-sim --example run_scenario`.
RUN_SCENARIO = "target/release/examples/run_scenario"
#: What the stored NR / LTE ratios must stay within (the issue's bound; a test reads the artefact).
NR_COST_BOUND = 1.25


def _scenario_text(duration: float, scenario: str = BENCH, edits: tuple = ()) -> str:
    """The benchmark's scenario text as the child process edits it (realistic link)."""
    from importlib import resources

    text = resources.files("cellshare").joinpath(scenario).read_text()
    text = text.replace("duration_s = 60.0", f"duration_s = {duration!r}")
    for old, new in edits:
        if old not in text:
            raise ValueError(f"benchmark variant: {old!r} is not in {scenario}")
        text = text.replace(old, new)
    return text


def _callgrind(binary: str, text: str) -> int:
    """Instructions (callgrind's Ir) of one whole `run_scenario` process on the scenario `text`:
    parsing, table building, the run and the summary."""
    import os
    import re
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        toml, out = os.path.join(tmp, "bench.toml"), os.path.join(tmp, "callgrind.out")
        with open(toml, "w") as f:
            f.write(text)
        proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, toml],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"callgrind failed:\n{proc.stderr[-2000:]}")
        with open(out) as f:
            m = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
        if not m:
            raise RuntimeError(f"no instruction total in {out}")
        return int(m.group(1))


def run_nr_artefact(duration: float = 10.0, repeat: int = 5, binary: str = RUN_SCENARIO) -> dict:
    """The NR benchmark artefact (`python -m cellshare.bench --nr --out FILE`): the NR and the LTE
    benchmark interleaved `repeat` times in one session (cost per delivered packet, wall and CPU,
    medians, and NR / LTE), callgrind's instructions per delivered packet of one run of each
    (deterministic: the same scenario executes the same instructions), and the peak RSS of
    each at the simulated durations :data:`RSS_DURATIONS` without traces (:data:`RSS_EDITS`;
    memory flat in simulated time). The
    machine is shared: absolute times move with its load, the ratios measured side by side in
    one session are what count."""
    from . import __version__

    machine = _machine()
    nr, lte = [], []
    for _ in range(repeat):
        nr.append(_once(duration, "realistic", BENCH, NR_EDITS))
        lte.append(_once(duration, "realistic", BENCH))
    out: dict = {"generated_by": f"python -m cellshare.bench --nr --out FILE --duration {duration:g} --repeat {repeat}",
                 "cellshare": __version__, "machine": machine, "duration_s": duration, "repeat": repeat,
                 "bound": NR_COST_BOUND}
    for name, runs, edits in (("nr", nr, NR_EDITS), ("lte", lte, ())):
        costs = [_per_packet(r) for r in runs]
        instructions = _callgrind(binary, _scenario_text(duration, BENCH, edits))
        mem = {f"{d:g}": _once(d, "realistic", BENCH, tuple(edits) + RSS_EDITS) for d in RSS_DURATIONS}
        # The simulation's peak while it runs: the results it then builds (per-second series of
        # every flow and UE, the summary's JSON) grow with the simulated time by design.
        rss = {d: m["running_peak_rss_mb"] for d, m in mem.items()}
        out[name] = {"delivered_mbps": runs[0]["delivered_mbps"], "events": runs[0]["events"],
                     "packets": costs[0]["packets"],
                     "wall_us_per_packet": _median([c["wall_us_per_packet"] for c in costs]),
                     "cpu_us_per_packet": _median([c["cpu_us_per_packet"] for c in costs]),
                     "wall_samples": [c["wall_us_per_packet"] for c in costs],
                     "cpu_samples": [c["cpu_us_per_packet"] for c in costs],
                     "instructions": instructions, "instructions_per_packet": instructions / costs[0]["packets"],
                     "peak_rss_mb": rss, "peak_packets": {d: m["peak_packets"] for d, m in mem.items()}}
    out["ratio_wall"] = out["nr"]["wall_us_per_packet"] / out["lte"]["wall_us_per_packet"]
    out["ratio_cpu"] = out["nr"]["cpu_us_per_packet"] / out["lte"]["cpu_us_per_packet"]
    out["ratio_instructions"] = out["nr"]["instructions_per_packet"] / out["lte"]["instructions_per_packet"]
    machine["load_1min_after"] = round(__import__("os").getloadavg()[0], 2)
    return out


#: The transport line of bench.toml, and what replaces it for each transport of the
#: transports benchmark (CUBIC is the reference the others are divided by).
_CUBIC = 'transport = { kind = "tcp", cc = { kind = "cubic" } }'
TRANSPORTS = {"cubic": _CUBIC, "westwood": 'transport = { kind = "tcp", cc = { kind = "westwood" } }',
              "c2tcp": 'transport = { kind = "tcp", cc = { kind = "c2tcp" } }', "sprout": 'transport = { kind = "sprout" }',
              "sprout-fast": 'transport = { kind = "sprout", fast_inference = true }',
              "verus": 'transport = { kind = "verus" }', "vivace": 'transport = { kind = "vivace" }'}
#: UE counts of the scale benchmark (bench.toml with `count` changed).
UE_COUNTS = (25, 50, 100, 200)


def _machine() -> dict:
    """What the artefact's absolute numbers depend on: CPU model, cores, load before the run."""
    import os
    import platform

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), model)
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {"cpu": model, "cores": os.cpu_count(), "system": f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "load_1min_before": round(load[0], 2)}


def run_artefact(duration: float = 20.0, repeat: int = 3) -> dict:
    """Every benchmark variant in one session, each repeated `repeat` times round-robin so that
    the machine's drift falls on all of them alike: the single cell on the realistic and the
    ideal link, the network, each transport in place of CUBIC, and the single cell at
    :data:`UE_COUNTS` UEs. Speeds are simulated seconds per CPU second of the run's process
    (the median and every sample; the wall-clock median beside them), and the ratios compare
    within the session (realistic / ideal, network / single cell, transport / CUBIC, time per
    simulated second against 100 UEs), with the machine they ran on. Written by ``python -m cellshare.bench --out``."""
    from . import __version__

    variants: dict[str, tuple] = {"single-realistic": ("realistic", BENCH, ()), "single-ideal": ("ideal", BENCH, ()),
                                  "network": ("realistic", BENCH_NETWORK, ())}
    for k, line in TRANSPORTS.items():
        if k != "cubic":
            variants[f"transport-{k}"] = ("realistic", BENCH, ((_CUBIC, line),))
    for n in UE_COUNTS:
        if n != 100:
            variants[f"ues-{n}"] = ("realistic", BENCH, (("count = 100", f"count = {n}"),))
    machine = _machine()
    samples: dict[str, list] = {k: [] for k in variants}
    for _ in range(repeat):
        for k, (link, scenario, edits) in variants.items():
            samples[k].append(_once(duration, link, scenario, edits))
    # Simulated seconds per CPU second of the child: on a loaded machine the wall clock
    # measures the other processes as much as the simulator; its CPU time much less so.
    med = {k: _median([r["sim_speed_cpu"] for r in v]) for k, v in samples.items()}
    wall = {k: _median([r["sim_speed"] for r in v]) for k, v in samples.items()}
    first = {k: v[0] for k, v in samples.items()}
    out = {"generated_by": f"python -m cellshare.bench --out FILE --duration {duration:g} --repeat {repeat}",
           "cellshare": __version__, "machine": machine, "duration_s": duration, "repeat": repeat, "runs": {}}
    for k in variants:
        out["runs"][k] = {"sim_speed": med[k], "samples": [r["sim_speed_cpu"] for r in samples[k]],
                          "wall_sim_speed": wall[k],
                          "peak_rss_mb": max(r["peak_rss_mb"] for r in samples[k]), "events": first[k]["events"],
                          "delivered_mbps": first[k]["delivered_mbps"], "ues": first[k]["ues"], "cells": first[k]["cells"],
                          "handovers": first[k]["handovers"], "transport": first[k]["transport"]}
    single = med["single-realistic"]
    out["ratios"] = {"realistic_over_ideal": single / med["single-ideal"], "network_over_single": med["network"] / single}
    out["ratios"].update({f"{k.removeprefix('transport-')}_over_cubic": med[k] / single for k in variants
                          if k.startswith("transport-")})
    # CPU time per simulated second relative to the 100-UE cell (the cell's capacity is fixed,
    # so the traffic, and most of the work, does not grow with the UEs).
    out["ratios"].update({f"ues_{n}_time": single / med[f"ues-{n}"] for n in UE_COUNTS if n != 100})
    machine["load_1min_after"] = round(__import__("os").getloadavg()[0], 2)
    return out


def main(argv: list | None = None) -> int:
    import argparse
    from pathlib import Path

    ap = argparse.ArgumentParser(prog="python -m cellshare.bench",
                                 description="Run every benchmark variant in one session and write the JSON artefact "
                                             "the performance page is generated from (tools/data/bench.json).")
    ap.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    ap.add_argument("--nr", action="store_true",
                    help="the NR benchmark artefact instead (tools/data/bench-nr.json): NR and LTE cost per delivered "
                         "packet side by side, callgrind instructions per packet, peak RSS at 10 and 40 simulated s")
    ap.add_argument("--binary", default=RUN_SCENARIO,
                    help=f"with --nr: the run_scenario example callgrind counts (default {RUN_SCENARIO})")
    ap.add_argument("--duration", type=float, default=None, help="simulated seconds per run (default 20; 10 with --nr)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each variant, round-robin (default 3)")
    a = ap.parse_args(argv)
    if a.duration is None:
        a.duration = 10.0 if a.nr else 20.0
    if not 0.1 <= a.duration <= 3600:
        ap.error(f"--duration {a.duration:g}: expected 0.1 to 3600 simulated seconds")
    if not 1 <= a.repeat <= 50:
        ap.error(f"--repeat {a.repeat}: expected 1 to 50")
    if a.nr:
        import shutil

        if shutil.which("valgrind") is None:
            ap.error("--nr: valgrind not found (expected on PATH; it counts the instructions per packet)")
        if not Path(a.binary).is_file():
            ap.error(f"--binary {a.binary}: not a file (expected the run_scenario example: "
                     "cargo build --release -p cellshare-sim --example run_scenario)")
        r = run_nr_artefact(a.duration, a.repeat, a.binary)
    else:
        r = run_artefact(a.duration, a.repeat)
    a.out.write_text(json.dumps(r, indent=1) + "\n")
    print(f"written to {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
