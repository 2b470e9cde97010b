"""Fingerprints of simulator outputs, to show that a performance change leaves results unchanged.

Runs a fixed set of scenarios through the Python API (the same path as `cellshare run --out`),
writes each run's `summary.json` and Parquet tables to a temporary folder, and records a SHA-256
per file: of `summary.json` without its wall-clock keys (`sim_speed`, `wall_s`), and of every
Parquet table's data (its schema and columns, serialized as Arrow IPC, so that writer metadata
cannot differ where the data does not).

    python tools/perf_identity.py --save before.json        # on the old build
    python tools/perf_identity.py --compare before.json     # on the new build: exit 1 on any change

The set: the 100-UE benchmark on the realistic and on the ideal link, a radio cell with HARQ
(`scenarios/radio-cell.toml`), the Sneaker cell (2x2 MIMO, a cell-level dropper reading the
channels) and the 7-cell network benchmark (interference, mobility, handover).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "python" / "cellshare" / "data"

#: (label, scenario file, simulated seconds, text replacements)
CASES = [
    ("bench-realistic", DATA / "bench.toml", 10.0, []),
    ("bench-ideal", DATA / "bench.toml", 10.0, [('link = { kind = "realistic" }', 'link = { kind = "ideal" }')]),
    ("radio-cell-harq", ROOT / "scenarios" / "radio-cell.toml", 30.0, []),
    ("sneaker-cell", ROOT / "scenarios" / "sneaker-cell.toml", 30.0, []),
    ("network-7x30", DATA / "bench-network.toml", 6.0, []),
]

WALL_CLOCK_KEYS = {"sim_speed", "wall_s"}


def _strip(obj):
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in WALL_CLOCK_KEYS}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _table_digest(path: Path) -> str:
    table = pq.read_table(path)
    table = table.replace_schema_metadata(None)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()


def fingerprint(label: str, scenario: Path, duration: float, replace: list) -> dict:
    from cellshare.cli import _with_overrides
    from cellshare.api import run_text
    from cellshare.output import write_result

    text = scenario.read_text()
    for old, new in replace:
        assert old in text, f"{scenario}: {old!r} not found"
        text = text.replace(old, new)
    text = _with_overrides(text, None, duration)
    result = run_text(text, str(scenario.parent), progress=False, label=label)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "out"
        d.mkdir()
        write_result(result, d, scenario_text=text)
        for f in sorted(d.rglob("*")):
            if f.name == "summary.json":
                s = json.dumps(_strip(json.loads(f.read_text())), sort_keys=True)
                out[f.name] = hashlib.sha256(s.encode()).hexdigest()
            elif f.suffix == ".parquet":
                out[str(f.relative_to(d))] = _table_digest(f)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--save", type=Path, help="write the fingerprints to this JSON file")
    ap.add_argument("--compare", type=Path, help="compare with fingerprints saved earlier; exit 1 on a difference")
    ap.add_argument("--only", action="append", help="run only this case (repeatable)")
    args = ap.parse_args()
    prints = {}
    for label, scenario, duration, replace in CASES:
        if args.only and label not in args.only:
            continue
        prints[label] = fingerprint(label, scenario, duration, replace)
        print(f"{label}: {len(prints[label])} files", file=sys.stderr)
    if args.save:
        args.save.write_text(json.dumps(prints, indent=1, sort_keys=True) + "\n")
    if args.compare:
        old = json.loads(args.compare.read_text())
        bad = 0
        for label, files in prints.items():
            for name, digest in files.items():
                was = old.get(label, {}).get(name)
                if was != digest:
                    bad += 1
                    print(f"DIFFERS {label}/{name}: {was} -> {digest}")
            for name in set(old.get(label, {})) - set(files):
                bad += 1
                print(f"MISSING {label}/{name}")
        print("identical" if not bad else f"{bad} differences")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
