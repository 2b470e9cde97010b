"""What a plug-in written in Python costs: the 100-UE benchmark
(python/cellshare/data/bench.toml) with a Python plug-in against its Rust twin, in the same
process, alternating, best of `--repeat` runs each:

- `--plugin cc` (the default): the Python Reno (cellshare.plugins_examples:Reno) at every
  UE against the Rust Reno; writes docs/extending/python_cost.json;
- `--plugin qdisc`: the Python DropTail (cellshare.plugins_examples:DropTail) at every UE
  queue against the Rust tail drop; writes docs/extending/python_qdisc_cost.json.

Each also rewrites the sentence of docs/extending/python.md that quotes its numbers
(tests/test_plugins.py checks the page against the JSON).

    python tools/plugin_cost.py                 # 60 simulated seconds, best of 3
    python tools/plugin_cost.py --plugin qdisc --duration 10 --repeat 1
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
PAGE = ROOT / "docs" / "extending" / "python.md"


class Plugin:
    """One kind of plug-in: what the benchmark's text becomes for each side, where the
    numbers go and the page's sentence quoting them."""

    def __init__(self, out: str, what: str, anchor: str, sides: dict, rust: str, python: str, sentence: str) -> None:
        self.out = ROOT / "docs" / "extending" / out
        self.what, self.anchor, self.sides = what, anchor, sides
        self.rust, self.python, self.sentence = rust, python, sentence

    def text(self, base: str, side: str) -> str:
        return base.replace(self.anchor, self.sides[side])

    def pattern(self) -> re.Pattern:
        """The sentence with any numbers and any line breaks."""
        rx = ""
        for part in re.split(r"(\{\w+\}|\s+)", self.sentence):
            if re.fullmatch(r"\{\w+\}", part):
                rx += "[0-9.]+"
            elif part.isspace():
                rx += r"\s+"
            else:
                rx += re.escape(part)
        return re.compile(rx)


PLUGINS = {
    "cc": Plugin(
        "python_cost.json", "every flow's cc replaced", 'cc = { kind = "cubic" }',
        {"rust": 'cc = { kind = "reno" }', "python": 'cc = { kind = "python", class = "cellshare.plugins_examples:Reno" }'},
        "Rust Reno", "Python Reno",
        "{duration} simulated seconds) with the Python Reno at every\n"
        "UE against the Rust Reno, alternating in one process, best of the runs; the numbers are\n"
        "in `docs/extending/python_cost.json`: the Rust Reno runs at {rust}× real time, the Python Reno\n"
        "at {python}× real time, {slowdown}× slower"),
    "qdisc": Plugin(
        "python_qdisc_cost.json", "every UE queue's discipline set", 'link = { kind = "realistic" }',
        {"rust": 'link = { kind = "realistic" }\naqm = { kind = "tail_drop" }',
         "python": 'link = { kind = "realistic" }\naqm = { kind = "python", class = "cellshare.plugins_examples:DropTail" }'},
        "Rust tail drop", "Python DropTail",
        "benchmark, {duration} simulated seconds)\n"
        "with the Python `DropTail` at every UE queue against the Rust tail drop; the numbers are in\n"
        "`docs/extending/python_qdisc_cost.json`: the Rust tail drop runs at {rust}× real time, the\n"
        "Python DropTail at {python}× real time, {slowdown}× slower"),
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
    ap.add_argument("--plugin", choices=sorted(PLUGINS), default="cc", help="what to measure (default cc)")
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds (default 60)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, the best kept (default 3)")
    ap.add_argument("--out", type=Path, help="JSON written (default docs/extending/python_cost.json, or "
                    "python_qdisc_cost.json for --plugin qdisc)")
    a = ap.parse_args()
    plugin = PLUGINS[a.plugin]
    out_path = a.out or plugin.out
    base = BENCH.read_text()
    assert plugin.anchor in base and "duration_s = 60.0" in base
    base = base.replace("duration_s = 60.0", f"duration_s = {a.duration}")
    best = {k: 0.0 for k in plugin.sides}
    for _ in range(max(a.repeat, 1)):
        for k in plugin.sides:
            best[k] = max(best[k], speed(plugin.text(base, k)))
    out = {
        "scenario": f"python/cellshare/data/bench.toml, {plugin.what}",
        "ues": 100,
        "duration_s": a.duration,
        "repeat": a.repeat,
        "cpus": os.cpu_count(),
        "rust_speed": round(best["rust"], 3),
        "python_speed": round(best["python"], 3),
        "slowdown": round(best["rust"] / best["python"], 3),
    }
    out_path.write_text(json.dumps(out, indent=1) + "\n")
    if out_path == plugin.out:
        page = PAGE.read_text()
        new = plugin.sentence.format(duration=f"{out['duration_s']:g}", rust=f"{out['rust_speed']:.1f}",
                                     python=f"{out['python_speed']:.1f}", slowdown=f"{out['slowdown']:.1f}")
        pattern = plugin.pattern()
        assert pattern.search(page), f"{PAGE}: the sentence quoting the {a.plugin} numbers is missing"
        PAGE.write_text(pattern.sub(lambda _: new, page, count=1))
    print(f"{plugin.rust} {out['rust_speed']:.1f}x real time, {plugin.python} {out['python_speed']:.1f}x real time: "
          f"{out['slowdown']:.1f}x slower ({out_path})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
