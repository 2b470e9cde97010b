#!/usr/bin/env python3
"""The cellshare side of docs/crosscheck-ns3.md's diagnoses of the background case, re-run
against the stored ns-3 runs: each variant is `tools/ns3_crosscheck.py --reuse-ns3
tools/data/ns3-crosscheck-background.json` with one cellshare setting changed (the
foreground's CUBIC rules, the scheduler's leftover rule), so ns-3's side is the one of the
committed table and only cellshare runs (a second or so per variant).

    python tools/ns3_background_variants.py --out tools/data/ns3-crosscheck-background-variants.json

writes one file whose ``runs`` map each variant's name to the tool's ``crosscheck.json``
(``args`` and ``rows``), with the command and the machine; ``cellshare.docgen``'s
``ns3-rate FILE#RUN ...`` renders its numbers on the page.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REUSED = "tools/data/ns3-crosscheck-background.json"
COMMAND = "python tools/ns3_background_variants.py --out FILE"


def _fg(**cc) -> list[str]:
    return ["--layouts", "same", "--backgrounds", "ledbat-ns3", "--cellshare-fg-cc", json.dumps({"kind": "cubic", **cc})]


#: name → (what it changes, the extra arguments of tools/ns3_crosscheck.py).
VARIANTS: dict[str, tuple[str, list[str]]] = {
    "fg-no-floor": ("same/ledbat-ns3, the foreground's CUBIC without the initial growth floor",
                    _fg(initial_growth_floor=False)),
    "fg-rfc9406": ("same/ledbat-ns3, the foreground's CUBIC with HyStart++ (5 CSS rounds)", _fg(hystart_rules="rfc9406")),
    "fg-rfc9406-css0-no-floor": ("same/ledbat-ns3, HyStart++ with 0 CSS rounds, no floor",
                                 _fg(hystart_rules="rfc9406", css_rounds=0, initial_growth_floor=False)),
    "fg-srtt": ("same/ledbat-ns3, the foreground's CUBIC looking ahead by SRTT", _fg(lookahead="srtt")),
    "fg-rfcs": ("same/ledbat-ns3, the RFCs throughout: HyStart++ 5 CSS rounds, no floor, SRTT",
                _fg(hystart_rules="rfc9406", initial_growth_floor=False, lookahead="srtt")),
    "fg-rfcs-floor": ("same/ledbat-ns3, the RFCs throughout but with the floor on",
                      _fg(hystart_rules="rfc9406", initial_growth_floor=True, lookahead="srtt")),
    "fg-rfcs-linux-hystart": ("same/ledbat-ns3, the RFCs throughout but with Linux's HyStart",
                              _fg(hystart_rules="linux", initial_growth_floor=False, lookahead="srtt")),
    "fg-no-hystart": ("same/ledbat-ns3, the foreground's CUBIC without HyStart", _fg(hystart=False)),
    "every-cubic-fg-no-hystart": ("every/cubic, the foreground's CUBIC without HyStart",
                                  ["--layouts", "every", "--backgrounds", "cubic", "--cellshare-fg-cc",
                                   json.dumps({"kind": "cubic", "hystart": False})]),
    **{f"other-vegas-ack{p}-{rtt}": (f"other/vegas, the Vegas UE's ACKs every {p} ms from 22.9 s, Vegas `rtt = \"{rtt}\"`",
                                     ["--layouts", "other", "--backgrounds", "vegas", "--cellshare-ack-every-ms", str(p),
                                      "--cellshare-ack-from-s", "22.9", "--cellshare-bg-cc",
                                      json.dumps({"kind": "vegas", "rtt": rtt})])
       for p in (4, 7, 10) for rtt in ("sample", "srtt")},
    "other-vegas-srtt": ("other/vegas, Vegas `rtt = \"srtt\"` on the fixed ACK path",
                         ["--layouts", "other", "--backgrounds", "vegas", "--cellshare-bg-cc",
                          json.dumps({"kind": "vegas", "rtt": "srtt"})]),
    "padding": ("every run, cellshare's scheduler padding as ns-3's (`cell.scheduler.leftover = \"padding\"`)",
                ["--cellshare-leftover", "padding"]),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    ap.add_argument("--only", help="comma-separated variants (default: all)")
    a = ap.parse_args(argv)
    names = a.only.split(",") if a.only else list(VARIANTS)
    for n in names:
        if n not in VARIANTS:
            print(f"error: --only: {n!r} is not a variant (expected one of {', '.join(VARIANTS)})", file=sys.stderr)
            return 2
    sys.path.insert(0, str(ROOT / "python"))
    from cellshare.bench import _machine

    machine = _machine()
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            what, extra = VARIANTS[n]
            out = Path(tmp) / n
            cmd = [sys.executable, str(ROOT / "tools" / "ns3_crosscheck.py"), "--duration", "40",
                   "--reuse-ns3", str(ROOT / REUSED), "--out", str(out), *extra]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            run = json.loads((out / "crosscheck.json").read_text())
            run["args"]["reuse_ns3"] = REUSED
            runs[n] = {"what": what, **run}
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    doc = {"what": "docs/crosscheck-ns3.md's diagnoses of the background case: cellshare's side with one setting "
                   f"changed, ns-3's side (rates and wall times) reused from {REUSED}",
           "generated_by": COMMAND, "reused": REUSED, "machine": machine, "runs": runs}
    a.out.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
