#!/usr/bin/env python3
"""The cellshare side of docs/crosscheck-ns3.md's HARQ section re-run with one thing changed,
against the stored ns-3 runs: each variant is `tools/ns3_crosscheck.py --case harq --duration
40 --reuse-ns3 tools/data/ns3-crosscheck-harq.json` with another seed (`seed-N`, the run at
300 m) or cellshare's `cell.link.harq_rtt_tti` set to ns-3's 7 TTIs (`harq-rtt-7`, every
distance), so ns-3's side is the one of the committed table and only cellshare runs (a second
or so per variant).

    python tools/ns3_harq_variants.py --out tools/data/ns3-crosscheck-harq-variants.json

writes one file whose ``runs`` map each variant's name to the tool's ``crosscheck.json``
(``args`` and ``rows``), with the command and the machine; ``cellshare.docgen``'s
``ns3-harq FILE#RUN`` and ``ns3-link-span`` render its numbers on the page.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

from cellshare.bench import _machine

ROOT = Path(__file__).resolve().parents[1]
REUSED = "tools/data/ns3-crosscheck-harq.json"
COMMAND = "python tools/ns3_harq_variants.py --out FILE"
SEEDS = (2, 3, 4, 5)

#: name → (what it changes, the extra arguments of tools/ns3_crosscheck.py, cellshare's
#: `cell.link` or None for the tool's own).
VARIANTS: dict[str, tuple[str, list[str], dict | None]] = {
    "harq-rtt-7": ("every distance, cellshare's HARQ round trip 7 TTIs (ns-3's) instead of 8 "
                   "(`cell.link.harq_rtt_tti = 7`)", [], {"kind": "realistic", "harq_rtt_tti": 7}),
    **{f"seed-{s}": (f"300 m, cellshare's seed {s} (ns-3's side stays the seed-1 run)",
                     ["--seed", str(s), "--harq-distances", "300"], None) for s in SEEDS},
}


def _tool():
    """A fresh copy of tools/ns3_crosscheck.py as a module (a variant may replace its link)."""
    spec = importlib.util.spec_from_file_location("ns3_crosscheck", ROOT / "tools" / "ns3_crosscheck.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_variant(extra: list[str], link: dict | None) -> dict:
    """One variant: the tool's `main` with the reused ns-3 side; its crosscheck.json."""
    mod = _tool()
    if link is not None:
        mod.cellshare_link = lambda args: dict(link)
    with tempfile.TemporaryDirectory(prefix="ns3-harq-variant-") as tmp:
        argv = sys.argv
        sys.argv = ["ns3_crosscheck.py", "--case", "harq", "--duration", "40",
                    "--reuse-ns3", str(ROOT / REUSED), "--out", tmp, *extra]
        try:
            mod.main()
        finally:
            sys.argv = argv
        d = json.loads((Path(tmp) / "crosscheck.json").read_text())
    d["args"]["reuse_ns3"] = REUSED  # relative, as the command gives it
    if link is not None:
        d["args"]["cellshare_link"] = link
    return d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    args = ap.parse_args()
    machine = _machine()
    runs = {}
    for name, (what, extra, link) in VARIANTS.items():
        runs[name] = {"what": what, **run_variant(extra, link)}
    out = {
        "what": "The cellshare side of the HARQ cross-check re-run with one thing changed; ns-3's side is "
                f"carried over from {REUSED}",
        "generated_by": COMMAND,
        "reused": REUSED,
        "machine": {**machine, "load_1min_after": round(os.getloadavg()[0], 2)},
        "runs": runs,
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
