"""What a congestion controller written in Python costs: the 100-UE benchmark
(python/cellshare/data/bench.toml) with the Python Reno (cellshare.plugins_examples:Reno) at
every UE against the Rust Reno, in the same process, alternating, best of `--repeat` runs
each. Writes the speeds (× real time) to docs/extending/python_cost.json and the sentence of
docs/extending/python.md that quotes them (tests/test_plugins.py checks the page against the
JSON).

    python tools/plugin_cost.py                 # 60 simulated seconds, best of 3
    python tools/plugin_cost.py --duration 10 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "python" / "cellshare" / "data" / "bench.toml"
OUT = ROOT / "docs" / "extending" / "python_cost.json"
PAGE = ROOT / "docs" / "extending" / "python.md"
#: The page's sentence with the numbers (rewritten from the measurement).
SENTENCE = re.compile(r"[0-9.]+ simulated seconds\) with the Python Reno at every\s+UE against the Rust Reno, alternating in one process, best of the runs; the numbers are\s+in `docs/extending/python_cost.json`: the Rust Reno runs at [0-9.]+× real time, the Python Reno\s+at [0-9.]+× real time, [0-9.]+× slower")

CC = {
    "rust": '{ kind = "reno" }',
    "python": '{ kind = "python", class = "cellshare.plugins_examples:Reno" }',
}


def speed(text: str) -> float:
    """Simulated seconds per wall-clock second of one run (building included)."""
    from cellshare.api import run_text

    t0 = time.perf_counter()
    r = run_text(text, str(BENCH.parent))
    wall = time.perf_counter() - t0
    return r.summary["duration_s"] / wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds (default 60)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, the best kept (default 3)")
    ap.add_argument("--out", type=Path, default=OUT, help=f"JSON written (default {OUT.relative_to(ROOT)})")
    a = ap.parse_args()
    base = BENCH.read_text()
    assert 'cc = { kind = "cubic" }' in base and "duration_s = 60.0" in base
    base = base.replace("duration_s = 60.0", f"duration_s = {a.duration}")
    best = {k: 0.0 for k in CC}
    for _ in range(max(a.repeat, 1)):
        for k, cc in CC.items():
            best[k] = max(best[k], speed(base.replace('cc = { kind = "cubic" }', f"cc = {cc}")))
    out = {
        "scenario": "python/cellshare/data/bench.toml, every flow's cc replaced",
        "ues": 100,
        "duration_s": a.duration,
        "repeat": a.repeat,
        "cpus": os.cpu_count(),
        "rust_speed": round(best["rust"], 3),
        "python_speed": round(best["python"], 3),
        "slowdown": round(best["rust"] / best["python"], 3),
    }
    a.out.write_text(json.dumps(out, indent=1) + "\n")
    if a.out == OUT:
        page = PAGE.read_text()
        new = (f"{out['duration_s']:g} simulated seconds) with the Python Reno at every\n"
               "UE against the Rust Reno, alternating in one process, best of the runs; the numbers are\n"
               f"in `docs/extending/python_cost.json`: the Rust Reno runs at {out['rust_speed']:.1f}× real time, the Python Reno\n"
               f"at {out['python_speed']:.1f}× real time, {out['slowdown']:.1f}× slower")
        assert SENTENCE.search(page), f"{PAGE}: the sentence quoting the numbers is missing"
        PAGE.write_text(SENTENCE.sub(new, page, count=1))
    print(f"Rust Reno {out['rust_speed']:.1f}x real time, Python Reno {out['python_speed']:.1f}x real time: "
          f"{out['slowdown']:.1f}x slower ({a.out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
