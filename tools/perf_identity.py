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
import shutil
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
    text = scenario.read_text()
    for old, new in replace:
        assert old in text, f"{scenario}: {old!r} not found"
        text = text.replace(old, new)
    return fingerprint_text(label, text, scenario.parent, duration)


def fingerprint_text(label: str, text: str, base: Path, duration: float) -> dict:
    """[`fingerprint`] of a scenario given as text (trace files relative to `base`)."""
    from cellshare.scenario_files import with_overrides
    from cellshare.api import run_text
    from cellshare.output import _tmp_name, remove_stale_temps, write_result

    text = with_overrides(text, None, duration)
    result = run_text(text, str(base), progress=False, label=label)
    out = {}
    # The outputs go to a temporary folder named as `cellshare run`'s (its process in the
    # name), so that the folder of a killed run is removed by the next one.
    target = Path(tempfile.gettempdir()) / "cellshare-fingerprint"
    remove_stale_temps(target)
    d = target.parent / _tmp_name(target.name)
    d.mkdir()
    try:
        write_result(result, d, scenario_text=text)
        for f in sorted(d.rglob("*")):
            if f.name == "summary.json":
                s = json.dumps(_strip(json.loads(f.read_text())), sort_keys=True)
                out[f.name] = hashlib.sha256(s.encode()).hexdigest()
            elif f.suffix == ".parquet":
                out[str(f.relative_to(d))] = _table_digest(f)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return out


def add_save_compare(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--save", type=Path, help="write the fingerprints to this JSON file (replaced if it exists)")
    ap.add_argument("--compare", type=Path, help="compare with fingerprints saved earlier; exit 1 on a difference")


def read_compare(args: argparse.Namespace):
    """Checks `--save` and reads `--compare` before any run (a bad path is an error naming it,
    exit 2, not a traceback after minutes of runs); returns the saved fingerprints or None."""
    if args.save is not None and (args.save.is_dir() or not args.save.parent.is_dir()):
        print(f"error: --save {str(args.save)!r}: expected a file name in an existing folder", file=sys.stderr)
        sys.exit(2)
    if args.compare is None:
        return None
    try:
        if not args.compare.is_file():
            raise OSError("not a regular file")
        return json.loads(args.compare.read_text())
    except (OSError, ValueError) as e:
        print(f"error: --compare {str(args.compare)!r}: expected fingerprints saved with --save ({e})",
              file=sys.stderr)
        sys.exit(2)


def save_and_compare(prints: dict, args: argparse.Namespace, old, *, new_cases_ok: bool = False) -> int:
    """Writes `--save` (through a temporary file: a killed run leaves the old file whole) and
    compares with `--compare`'s fingerprints; 1 on a difference. A case the saved set lacks is
    a difference, or only a note with `new_cases_ok`."""
    import typer
    from cellshare.cli import _write_file

    if args.save:
        try:
            _write_file(args.save, json.dumps(prints, indent=1, sort_keys=True) + "\n", "--save", force=True)
        except typer.Exit as e:
            return e.exit_code
    if old is None:
        return 0
    bad = 0
    for label, files in prints.items():
        if new_cases_ok and label not in old:
            print(f"NEW CASE {label}")
            continue
        for name, digest in files.items():
            was = old.get(label, {}).get(name)
            if was != digest:
                bad += 1
                print(f"DIFFERS {label}/{name}: {was} -> {digest}")
        for name in set(old.get(label, {})) - set(files):
            bad += 1
            print(f"MISSING {label}/{name}")
    print("identical" if not bad else f"{bad} differences", f"({len(prints)} cases)")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_save_compare(ap)
    ap.add_argument("--only", action="append", help="run only this case (repeatable)")
    args = ap.parse_args()
    old = read_compare(args)
    prints = {}
    for label, scenario, duration, replace in CASES:
        if args.only and label not in args.only:
            continue
        prints[label] = fingerprint(label, scenario, duration, replace)
        print(f"{label}: {len(prints[label])} files", file=sys.stderr)
    return save_and_compare(prints, args, old)


if __name__ == "__main__":
    sys.exit(main())
