#!/usr/bin/env python3
"""ns-3's blocks lost to missed control information in the single-UE UDP cross-check
(docs/crosscheck-ns3.md, "A single saturated UE"): re-runs ns-3's side of
`tools/ns3_crosscheck.py --case udp --duration 12` at the given distances, keeps its PHY
traces, and counts the new transport blocks the eNB sent (`DlTxPhyStats`, redundancy version
0) against those the UE saw (`DlRxPhyStats`, redundancy version 0: a block whose control
information the UE missed is not in it). `tools/ns3_crosscheck.py` keeps only the HARQ counts
of those traces, not this difference. Needs the `ns3` wheel; about 20 s of ns-3 per distance.

    nice -n 19 python tools/ns3_udp_control.py --out tools/data/ns3-crosscheck-udp-control.json

Each row also carries ns-3's UDP rate of the run, which equals the stored cross-check's
(`tools/data/ns3-crosscheck-udp.json`) when the two are the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cellshare.bench import _machine

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "ns3_crosscheck.py"
COMMAND = "nice -n 19 python tools/ns3_udp_control.py --out FILE"
DURATION_S = 12


def _records(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip() and not line.startswith("%")]


def control_counts(folder: Path) -> dict:
    """New blocks sent (DlTxPhyStats: % time cellId IMSI RNTI layer mcs size rv ndi ccId) and
    first transmissions the UE saw (DlRxPhyStats: % time cellId IMSI RNTI txMode layer mcs size
    rv ndi correct ccId), and the share of the new blocks the UE never saw."""
    sent = sum(int(f[7]) == 0 for f in _records(folder / "DlTxPhyStats.txt"))
    seen = sum(int(f[8]) == 0 for f in _records(folder / "DlRxPhyStats.txt"))
    return {"new_blocks": sent, "first_transmissions_seen": seen, "missed": sent - seen,
            "missed_share": (sent - seen) / sent if sent else 0.0}


def run_distance(distance: str) -> dict:
    """ns-3's side of one distance, in a child process in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="ns3-udp-control-") as tmp:
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, str(TOOL), "--case", "udp", "--duration", str(DURATION_S),
                               "--ns3-case", distance], capture_output=True, text=True, cwd=tmp)
        if proc.returncode != 0:
            sys.exit(f"ns3_udp_control: ns-3 run at {distance} m failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        return {"label": [distance], "udp0": out["udp0"], **control_counts(Path(tmp)),
                "ns3_wall_s": round(time.monotonic() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    ap.add_argument("--distances", default="550,600,650", help="UE distances, m (default 550,600,650)")
    args = ap.parse_args()
    labels = args.distances.split(",")
    for d in labels:
        try:
            ok = float(d) > 0
        except ValueError:
            ok = False
        if not ok:
            ap.error(f"--distances: {d!r} is not a positive distance in m")
    machine = _machine()
    rows = []
    for d in labels:
        rows.append(run_distance(d))
        print(json.dumps(rows[-1]), flush=True)
    out = {
        "what": "ns-3's new downlink blocks the UE never saw (missed control information) in the single-UE UDP "
                f"cross-check, {DURATION_S} s runs, counted on its PHY traces",
        "generated_by": COMMAND,
        "ns3": "ns-3.44, the ns3 wheel 3.44.post0 from PyPI",
        "machine": {**machine, "load_1min_after": round(os.getloadavg()[0], 2)},
        "rows": rows,
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
