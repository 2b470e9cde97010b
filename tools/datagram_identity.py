"""Fingerprints of the datagram transports' outputs (Sprout, Verus, PCC-Vivace), to show that a
speed change leaves their results unchanged (the same hashing as `tools/perf_identity.py`).

    python tools/datagram_identity.py --save before.json        # on the old build
    python tools/datagram_identity.py --compare before.json     # on the new build: exit 1 on any change

For each transport (and Sprout with `fast_inference`): a 30-UE variant of the 100-UE benchmark
(30 simulated s) and one UE on the T-Mobile LTE downlink trace (60 s; `--traces DIR`, default
the traces shipped in `python/cellshare/data/traces`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf_identity import (DATA, ROOT, add_save_compare, fingerprint, fingerprint_text,  # noqa: E402
                           read_compare, save_and_compare)

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
    """(label, run) pairs; each run returns the case's fingerprints."""
    out = []
    for kind, line in TRANSPORTS.items():
        out.append((f"bench30-{kind}", lambda line=line, label=f"bench30-{kind}": fingerprint(
            label, DATA / "bench.toml", 30.0, [(CUBIC, line), ("count = 100", "count = 30")])))
    trace = traces / "TMobile-LTE-driving.down"
    if trace.exists():
        for kind, line in TRANSPORTS.items():
            text = TRACE_SCENARIO.format(kind=kind, trace=trace.resolve(), transport=line)
            out.append((f"tmobile-{kind}", lambda text=text, label=f"tmobile-{kind}": fingerprint_text(
                label, text, trace.parent, 60.0)))
    else:
        print(f"note: {trace} missing, trace cases skipped", file=sys.stderr)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_save_compare(ap)
    ap.add_argument("--only", action="append", help="run only cases whose label contains this (repeatable)")
    ap.add_argument("--traces", type=Path, default=ROOT / "python" / "cellshare" / "data" / "traces")
    args = ap.parse_args()
    old = read_compare(args)
    prints = {}
    for label, run in cases(args.traces):
        if args.only and not any(o in label for o in args.only):
            continue
        prints[label] = run()
        print(f"{label}: {len(prints[label])} files", file=sys.stderr)
    return save_and_compare(prints, args, old, new_cases_ok=True)


if __name__ == "__main__":
    sys.exit(main())
