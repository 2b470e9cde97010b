#!/usr/bin/env python3
"""The measurements docs/workloads.md quotes about the workload generator itself, on
`scenarios/workload-at-scale.toml` (100 UEs, the Legilimens §V-E mix to UEs 0-89, ten always-on
Legilimens backgrounds on UEs 90-99), written to one JSON artefact the page is rendered from:

- ``calibration``: `cellshare calibrate` (:func:`cellshare.calibrate.calibrate`, the workload
  alone) at 30 / 60 / 80 % target PRB utilization and seeds 1-3, over the papers' 15 minutes
  and over 2 minutes; and the short-run example, 60 % over 10 s, whose standard error
  `cellshare calibrate` warns about;
- ``memory``: the peak resident memory (``wait4``'s ``ru_maxrss``, in a fresh process each) of
  the 15-minute run at 80 % with its ten backgrounds in the Rust example runner
  (``target/release/examples/run_scenario``: the simulator alone), of the same foreground flows
  written out as ``[[flows]]`` entries (the workload's arrivals, each an entry with its
  ``start_s``, ``bytes`` and UE: created when the simulation is built, with whole-run series),
  and of ``cellshare calibrate`` of the 80 % run (Python, its flows' results as dicts).

    cargo build --release -p cellshare-sim --example run_scenario
    python tools/workload_measure.py --out tools/data/workload.json

then ``python -m cellshare.docgen --write``. The simulator is deterministic: the calibration
is the same on every machine; the memory peaks depend on the allocator and the build.
About 40 CPU seconds in all.
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

REPO = Path(__file__).resolve().parents[1]
SCENARIO = "scenarios/workload-at-scale.toml"
RUNNER = "target/release/examples/run_scenario"
LOADS = (0.3, 0.6, 0.8)
SEEDS = (1, 2, 3)
#: Run lengths of the calibration: the papers' 15 minutes, and 2 minutes (the scenario's own).
DURATIONS_S = (900.0, 120.0)
#: The short-run example: this load over this many seconds.
SHORT = (0.6, 10.0)
#: The memory runs: this load over this many seconds, the scenario's seed.
MEMORY = (0.8, 900.0)
COMMAND = "python tools/workload_measure.py --out tools/data/workload.json"


#: Runs its arguments as a child and prints the child's peak RSS and CPU time. It is a fresh,
#: small process, so the child's ``ru_maxrss`` (which counts the memory the child had between
#: its fork and its exec) is not the measuring process's, which has run simulations itself.
_LAUNCH = (
    "import json, os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
    "    os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, ru = os.wait4(pid, 0)\n"
    "print(json.dumps({'code': os.waitstatus_to_exitcode(status), 'maxrss_kib': ru.ru_maxrss,\n"
    "                  'cpu_s': ru.ru_utime + ru.ru_stime}))\n"
)


def _peak(argv: list[str]) -> dict:
    """Runs `argv` in a fresh process: its peak RSS (MiB) and CPU seconds."""
    p = subprocess.run([sys.executable, "-I", "-S", "-c", _LAUNCH, *argv], cwd=REPO, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"the launcher failed: {p.stderr.strip()[-500:]}")
    r = json.loads(p.stdout)
    if r["code"] != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({r['code']}): {p.stderr.strip()[-500:]}")
    return {"peak_mib": round(r["maxrss_kib"] / 1024, 1), "cpu_s": round(r["cpu_s"], 2)}


def calibration(text: str, base: str) -> dict:
    from cellshare.calibrate import calibrate

    keep = ("target", "seed", "achieved", "error_pp", "offered_mbps", "flows", "duration_s", "load_spread",
            "duration_for_10pc_s")
    runs = {}
    for d in DURATIONS_S:
        rows = calibrate(text, base, LOADS, SEEDS, d)
        runs[f"{d:g}"] = [{k: r[k] for k in keep} for r in rows]
    short = calibrate(text, base, [SHORT[0]], None, SHORT[1])[0]
    return {"loads": list(LOADS), "seeds": list(SEEDS), "runs": runs,
            "short": {k: short[k] for k in keep}}


def memory(doc: dict, base: str, tmp: Path) -> dict:
    from cellshare.api import run_text

    load, duration = MEMORY
    doc = json.loads(json.dumps(doc))
    doc["simulation"]["duration_s"] = duration
    doc["workload"]["arrivals"]["load"] = load
    workload_toml = tmp / "workload.toml"
    workload_toml.write_text(tomli_w.dumps(doc))
    # The workload's arrivals, read off a run of the same scenario (not measured).
    r = run_text(workload_toml.read_text(), base)
    fg = [f for f in r.summary["flows"] if f["category"] in ("short", "medium", "long")]
    transport = doc["workload"].get("transport", {"kind": "tcp", "cc": {"kind": "cubic"}})
    flows_doc = {k: v for k, v in doc.items() if k != "workload"}
    flows_doc["flows"] = list(doc.get("flows", [])) + [
        {"name": f["name"], "ues": [f["ue"]], "start_s": f["start_s"], "bytes": f["size_bytes"],
         "transport": transport} for f in fg]
    flows_toml = tmp / "flows.toml"
    flows_toml.write_text(tomli_w.dumps(flows_doc))
    runner = str(REPO / RUNNER)
    calib = [sys.executable, "-c", "import sys; from cellshare.cli import main; sys.argv[0] = 'cellshare'; "
             "sys.exit(main())", "calibrate", str(workload_toml), "--loads", f"{load:g}", "--json"]
    # The scenario's traces (none here) would be read relative to its folder: both copies name none.
    return {"load": load, "duration_s": duration, "seed": doc["simulation"]["seed"],
            "workload_flows": len(fg),
            "background_flows": sum(f["category"] == "background" for f in r.summary["flows"]),
            "runner_workload": _peak([runner, str(workload_toml)]),
            "runner_flows": _peak([runner, str(flows_toml)]),
            "python_calibrate": _peak(calib)}


def measure() -> dict:
    from cellshare import __version__
    from cellshare.bench import _machine

    if not (REPO / RUNNER).exists():
        raise SystemExit(f"error: {RUNNER} not found: build it with "
                         "`cargo build --release -p cellshare-sim --example run_scenario`")
    machine = _machine()
    text = (REPO / SCENARIO).read_text()
    base = str((REPO / SCENARIO).parent)
    out = {"generated_by": COMMAND, "cellshare": __version__, "scenario": SCENARIO,
           "calibration": calibration(text, base)}
    with tempfile.TemporaryDirectory(prefix="cellshare-workload-") as tmp:
        out["memory"] = memory(tomllib.loads(text), base, Path(tmp))
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    out["machine"] = machine
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="the JSON artefact to write")
    a = ap.parse_args(argv)
    d = measure()
    a.out.write_text(json.dumps(d, indent=1) + "\n")
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
