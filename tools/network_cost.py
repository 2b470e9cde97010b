"""Instructions and last-level cache misses per simulated second: the network benchmark against
the single-cell benchmark (docs/performance.md, docs/mobility.md), into a JSON file.

    cargo build --release -p cellshare-sim --example run_scenario
    nice -n 19 python tools/network_cost.py --out tools/data/network-cost.json

Each benchmark scenario (`python/cellshare/data/bench.toml`, `bench-network.toml`, realistic
link, as `cellshare bench` edits them) runs under cachegrind with a simulated last-level cache
(the command docs/performance.md gives: `--cache-sim=yes --LL=2097152,16,64`) at two
durations; the difference between the two runs, over the difference in simulated seconds, is
the cost of a simulated second without the one-time set-up (parsing, tables, the fading
tables). Counts are of instructions and simulated cache misses, not of time: they do not
depend on the machine's load, and the same binary on the same scenario gives the same counts
up to valgrind's own noise.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BINARY = ROOT / "target/release/examples/run_scenario"
LL = "2097152,16,64"
BENCHES = {"single": "data/bench.toml", "network": "data/bench-network.toml"}


def _cachegrind(binary: Path, text: str) -> dict:
    """Totals of one whole `run_scenario` process: instructions (Ir), data reads and writes
    (Dr, Dw) and last-level misses (ILmr + DLmr + DLmw)."""
    with tempfile.TemporaryDirectory() as tmp:
        toml, out = os.path.join(tmp, "s.toml"), os.path.join(tmp, "cachegrind.out")
        Path(toml).write_text(text)
        proc = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--LL={LL}",
                               f"--cachegrind-out-file={out}", str(binary), toml],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"cachegrind failed:\n{proc.stderr[-2000:]}")
        body = Path(out).read_text()
    events = re.search(r"^events: (.+)$", body, re.M).group(1).split()
    totals = [int(x) for x in re.search(r"^summary: (.+)$", body, re.M).group(1).split()]
    t = dict(zip(events, totals))
    return {"instructions": t["Ir"], "data_accesses": t["Dr"] + t["Dw"],
            "ll_misses": t["ILmr"] + t["DLmr"] + t["DLmw"]}


def measure(short_s: float, long_s: float, binary: Path = BINARY) -> dict:
    import cellshare
    from cellshare.bench import _scenario_text

    if not binary.exists():
        raise SystemExit(f"{binary}: not built (cargo build --release -p cellshare-sim --example run_scenario)")
    out: dict = {}
    for name, scenario in BENCHES.items():
        a = _cachegrind(binary, _scenario_text(short_s, scenario))
        b = _cachegrind(binary, _scenario_text(long_s, scenario))
        out[name] = {"runs": {str(short_s): a, str(long_s): b},
                     "per_simulated_second": {k: (b[k] - a[k]) / (long_s - short_s) for k in a}}
    per = {k: out["network"]["per_simulated_second"][k] / out["single"]["per_simulated_second"][k]
           for k in out["single"]["per_simulated_second"]}
    return {"what": "instructions, data accesses and last-level cache misses (cachegrind, simulated LL "
                    f"{LL}) per simulated second, from two runs of each benchmark (difference over the "
                    "difference in simulated seconds); network_over_single divides the network's by the "
                    "single cell's",
            "generated_by": f"nice -n 19 python tools/network_cost.py --out tools/data/network-cost.json "
                            f"--short {short_s:g} --long {long_s:g}",
            "cellshare": cellshare.__version__, "binary": "target/release/examples/run_scenario",
            "benchmarks": out, "network_over_single": per}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    p.add_argument("--short", type=float, default=2.0, help="simulated seconds of the shorter run (default 2)")
    p.add_argument("--long", type=float, default=8.0, help="simulated seconds of the longer run (default 8)")
    a = p.parse_args(argv)
    if not 0 < a.short < a.long:
        print(f"--short {a.short:g} / --long {a.long:g}: expected 0 < short < long", file=sys.stderr)
        return 2
    a.out.write_text(json.dumps(measure(a.short, a.long), indent=1) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
