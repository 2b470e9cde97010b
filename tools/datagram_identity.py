"""Fingerprints of the datagram transports' outputs (Sprout, Verus, PCC-Vivace), to show that a
speed change leaves their results unchanged (the same hashing as `tools/perf_identity.py`).

    python tools/datagram_identity.py --save before.json        # on the old build
    python tools/datagram_identity.py --compare before.json     # on the new build: exit 1 on any change

For each transport (and Sprout with `fast_inference`): a 30-UE variant of the 100-UE benchmark
(30 simulated s) and one UE on the T-Mobile LTE downlink trace (60 s; `--traces DIR`, default
`../shared/traces`, skipped with a note when missing).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf_identity import DATA, ROOT, fingerprint  # noqa: E402

CUBIC = 'transport = { kind = "tcp", cc = { kind = "cubic" } }'
TRANSPORTS = {
    "sprout": 'transport = { kind = "sprout" }',
    "sprout-fast": 'transport = { kind = "sprout", fast_inference = true }',
    "verus": 'transport = { kind = "verus" }',
    "vivace": 'transport = { kind = "vivace" }',
}

TRACE_SCENARIO = """name = "trace-{kind}"
[simulation]
duration_s = 60.0
seed = 1
[[ues]]
channel = {{ kind = "trace", file = "{trace}" }}
[[flows]]
name = "bulk"
ue = 0
{transport}
"""


def cases(traces: Path):
    out = []
    for kind, line in TRANSPORTS.items():
        out.append((f"bench30-{kind}", DATA / "bench.toml", 30.0,
                    [(CUBIC, line), ("count = 100", "count = 30")]))
    trace = traces / "TMobile-LTE-driving.down"
    if trace.exists():
        for kind, line in TRANSPORTS.items():
            out.append((f"tmobile-{kind}", (kind, trace, line), 60.0, []))
    else:
        print(f"note: {trace} missing, trace cases skipped", file=sys.stderr)
    return out


def run_case(label, scenario, duration, replace, tmp: Path) -> dict:
    if isinstance(scenario, tuple):
        kind, trace, line = scenario
        p = tmp / f"{label}.toml"
        p.write_text(TRACE_SCENARIO.format(kind=kind, trace=trace, transport=line))
        scenario = p
    return fingerprint(label, scenario, duration, replace)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--save", type=Path)
    ap.add_argument("--compare", type=Path)
    ap.add_argument("--only", action="append", help="run only cases whose label contains this (repeatable)")
    ap.add_argument("--traces", type=Path, default=ROOT.parent / "shared" / "traces")
    args = ap.parse_args()
    prints = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, scenario, duration, replace in cases(args.traces):
            if args.only and not any(o in label for o in args.only):
                continue
            prints[label] = run_case(label, scenario, duration, replace, Path(tmp))
            print(f"{label}: {len(prints[label])} files", file=sys.stderr)
    if args.save:
        args.save.write_text(json.dumps(prints, indent=1, sort_keys=True) + "\n")
    if args.compare:
        old = json.loads(args.compare.read_text())
        bad = 0
        for label, files in prints.items():
            if label not in old:
                print(f"NEW CASE {label}")
                continue
            for name, digest in files.items():
                was = old[label].get(name)
                if was != digest:
                    bad += 1
                    print(f"DIFFERS {label}/{name}: {was} -> {digest}")
            for name in set(old[label]) - set(files):
                bad += 1
                print(f"MISSING {label}/{name}")
        print("identical" if not bad else f"{bad} differences", f"({len(prints)} cases)")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
