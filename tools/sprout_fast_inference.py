#!/usr/bin/env python3
"""Sprout's fast inference against the exact one, tick by tick, stored for docs/transports.md.

    nice -n 19 python tools/sprout_fast_inference.py --out tools/data/sprout-fast-inference.json

Runs the Rust test ``fast_inference_is_within_a_packet_at_the_benchmarks_rates_only``
(``crates/transport/src/datagram/sprout/model.rs``), which feeds the recorded observation
sequences of ``crates/transport/src/datagram/testdata/sprout_observations.txt`` (20 flows of the
100-UE benchmark, ``bench0``..``bench19``, and the packets each Mahimahi downlink trace delivers
per 20 ms tick over its first 60 s) to the exact and the fast inference side by side and prints,
per sequence, ``(name, ticks, ticks whose 8-tick forecast differs, largest difference of a
count in packets, largest relative difference of the target-delay count)``. This tool parses
those lines into JSON. The test asserts its own bounds, so a failing test fails the tool.
"""
from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMAND = "nice -n 19 python tools/sprout_fast_inference.py --out FILE"
TEST = "fast_inference_is_within_a_packet_at_the_benchmarks_rates_only"
CARGO = ["cargo", "test", "-p", "cellshare-transport", "--lib", TEST, "--", "--nocapture"]


def parse(output: str) -> list[dict]:
    """The test's per-sequence lines, ``("name", ticks, differ, worst, rel)``, as rows."""
    rows = []
    for line in output.splitlines():
        line = line.strip()
        if not (line.startswith('("') and line.endswith(")")):
            continue
        name, ticks, differ, worst, rel = ast.literal_eval(line)
        rows.append({"sequence": name, "ticks": ticks, "ticks_differing": differ, "max_count_diff_packets": worst,
                     "max_target_count_rel_diff": rel})
    if not rows:
        raise ValueError(f"no sequence lines in the output of {' '.join(CARGO)}")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="the JSON to write")
    a = ap.parse_args()
    p = subprocess.run(CARGO, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-4000:] + p.stderr[-4000:])
        print(f"error: {' '.join(CARGO)} failed (exit {p.returncode})", file=sys.stderr)
        return 1
    doc = {
        "what": "Sprout's fast inference against the exact inference on recorded observation sequences: per "
                "sequence, the ticks, the ticks at which any of the 8 forecast counts differ, the largest "
                "difference of a count (packets) and the largest relative difference of the target-delay count",
        "generated_by": COMMAND,
        "test": f"crates/transport/src/datagram/sprout/model.rs::{TEST}",
        "data": "crates/transport/src/datagram/testdata/sprout_observations.txt",
        "rows": parse(p.stdout + p.stderr),
    }
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(doc['rows'])} sequences -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
