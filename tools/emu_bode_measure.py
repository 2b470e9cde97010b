"""BoDe's throughput cost in the simulator and in real Linux: `cellshare crosscheck` of
`scenarios/emu-trace.toml` (one UE on the T-Mobile LTE trace, one CUBIC download) with the
cell's queue as shipped (`tail_drop`) and with `cell.aqm = { kind = "bode", bounded_delay_ms =
20 }`, each run once for `--duration` seconds. Writes the JSON docs/tcp.md's ``te-bode``
renderer reads:

    python tools/emu_bode_measure.py --out tools/data/emu-bode-crosscheck.json [--duration 45]

Needs root (the emulator). Linux runs are not deterministic: a new run gives other numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import tomli_w

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from cellshare import __version__  # noqa: E402
from cellshare.bench import _machine  # noqa: E402
from cellshare.docmeasure import _FLOW_KEYS, _VERDICT_KEYS  # noqa: E402
from cellshare.emulate import missing_requirements  # noqa: E402

SCENARIO = "scenarios/emu-trace.toml"
BINARY = ROOT / "target" / "release" / "cellshare-emu"
#: label → the cell's queue discipline (`cell.aqm`; `None`: the scenario's own, tail drop).
VARIANTS = (("tail_drop", None), ("bode", {"kind": "bode", "bounded_delay_ms": 20}))


def crosscheck(label: str, aqm, duration: float, tmp: Path) -> dict:
    doc = tomllib.loads((ROOT / SCENARIO).read_text())
    if aqm is not None:
        doc["cell"]["aqm"] = aqm
    scen = tmp / f"{label}.toml"
    scen.write_text(tomli_w.dumps(doc))
    out = tmp / f"{label}-out"
    load = round(os.getloadavg()[0], 2)
    env = {**os.environ, "CELLSHARE_EMU_BIN": str(BINARY)}
    p = subprocess.run([sys.executable, "-m", "cellshare.cli", "crosscheck", str(scen), "--out", str(out),
                        "--duration", str(duration)], cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"cellshare crosscheck ({label}) failed ({p.returncode}): {p.stderr[-2000:]}")
    d = json.loads((out / "crosscheck.json").read_text())
    return {"aqm": label, "cell_aqm": aqm, "load_1min_before": load, **{k: d[k] for k in _VERDICT_KEYS},
            "flows": [{k: f[k] for k in _FLOW_KEYS} for f in d["flows"]]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--duration", type=float, default=45.0, help="seconds per run (default 45)")
    args = ap.parse_args(argv)
    if not 1.0 <= args.duration <= 600.0:
        print(f"error: --duration must be 1 to 600 seconds, got {args.duration}", file=sys.stderr)
        return 2
    miss = missing_requirements()
    if miss:
        print("error: the emulator cannot run here: missing " + "; ".join(miss), file=sys.stderr)
        return 2
    if not BINARY.is_file():
        print(f"error: {BINARY} not found (cargo build --release -p cellshare-emu)", file=sys.stderr)
        return 2
    machine = _machine()
    with tempfile.TemporaryDirectory(prefix="emu-bode-") as t:
        runs = [crosscheck(label, aqm, args.duration, Path(t)) for label, aqm in VARIANTS]
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    doc = {"what": "BoDe (20 ms) against tail drop on the T-Mobile LTE trace, one CUBIC download, in the simulator "
                   "and in the emulator (docs/tcp.md)",
           "generated_by": f"python tools/emu_bode_measure.py --out FILE --duration {args.duration:g}",
           "scenario": SCENARIO, "duration_s": args.duration, "cellshare": __version__, "machine": machine,
           "kernel": os.uname().release, "runs": runs}
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
