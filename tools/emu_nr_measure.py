"""How well the real-time emulator holds an NR cell's slots, per numerology, beside LTE.

Runs `scenarios/emu-nr.toml` (three saturating CUBIC downloads on fixed 100 Mbps channels,
about 100 Mbit/s in all) in the emulator as LTE (20 MHz, 1 ms TTIs) and as NR at every
numerology μ = 0..3 (1, 0.5, 0.25, 0.125 ms slots; μ = 3 exists in FR2 only, so that variant
is FR2 at 100 MHz), `--repeat` times round-robin (so the machine's drift falls on every
variant alike; a single run can meet a stall of the host), one run at a time, each in a fresh `cellshare-emu` process at normal
priority (the loop raises itself to SCHED_FIFO), recording the host's one-minute load and
`uptime` before and after each run. Then `cellshare crosscheck scenarios/emu-nr.toml` (the
emulator against the simulator at μ = 1). Writes the JSON that docs/emulator.md's
`emu-nr` renderers read:

    python tools/emu_nr_measure.py --out tools/data/emu-nr.json [--duration 10] [--repeat 3]

Needs root. Linux runs are not deterministic: a new run gives other numbers.
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

from cellshare.bench import _machine  # noqa: E402
from cellshare.docmeasure import _FLOW_KEYS, _RUN, _VERDICT_KEYS, _fresh  # noqa: E402

SCENARIO = "scenarios/emu-nr.toml"

#: label → (rat, numerology, frequency range, bandwidth MHz).
VARIANTS = (
    ("LTE", "lte", None, None, 20),
    ("NR μ=0", "nr", 0, "fr1", 40),
    ("NR μ=1", "nr", 1, "fr1", 40),
    ("NR μ=2", "nr", 2, "fr1", 40),
    ("NR μ=3", "nr", 3, "fr2", 100),
)


def variant_doc(base: dict, rat: str, mu, fr, bw) -> dict:
    doc = json.loads(json.dumps(base))
    cell = doc["cell"]
    cell["rat"], cell["bandwidth_mhz"] = rat, bw
    if rat == "lte":
        cell.pop("nr", None)
    else:
        cell["nr"] = {**cell.get("nr", {}), "numerology": mu, "frequency_range": fr}
    return doc


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def run_variant(label: str, doc: dict, tmp: Path, duration: float, rep: int) -> dict:
    scen = tmp / f"{label.replace(' ', '_').replace('=', '')}.toml"
    scen.write_text(tomli_w.dumps(doc))
    out = tmp / f"{scen.stem}-out{rep}"
    exe = ROOT / "target" / "release" / "cellshare-emu"
    load, up = round(os.getloadavg()[0], 2), uptime()
    p = subprocess.run([str(exe), "run", str(scen), "--out", str(out), "--duration", str(duration)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{label}: cellshare-emu run failed ({p.returncode}): {p.stderr[-2000:]}")
    s = json.loads((out / "summary.json").read_text())
    rt = s["realtime"]
    row = {
        "label": label, "run": rep + 1, "rat": doc["cell"]["rat"], "numerology": doc["cell"].get("nr", {}).get("numerology"),
        "bandwidth_mhz": doc["cell"]["bandwidth_mhz"], "slot_ms": s.get("slot_ms", 1.0),
        "load_1min_before": load, "uptime_before": up, "uptime_after": uptime(),
        "duration_s": s["duration_s"], "slots": s["ttis"], "tti_lateness_ms": s["tti_lateness_ms"],
        "budget_ms": rt["budget_ms"], "kept_real_time": rt["kept"], "host_steal_percent": rt["host_steal_percent"],
        "overhead_ms": s["overhead_ms"], "delivered_mbps": s["delivered_mbps"],
        "flow_mbps": [f["throughput_mbps"] for f in s["flows"]],
        "idle_rtt_median_ms": [u["median"] for u in s["idle_rtt_ms"]], "base_rtt_ms": s["base_rtt_ms"],
    }
    lat = s["tti_lateness_ms"]
    print(f"{label}: slot lateness p50 {lat['p50']} p99 {lat['p99']} max {lat['max']} ms (budget "
          f"{rt['budget_ms']}), {s['delivered_mbps']:.1f} Mbps, load {load}", file=sys.stderr)
    return row


def crosscheck(tmp: Path) -> dict:
    out = tmp / "crosscheck"
    load, up = round(os.getloadavg()[0], 2), uptime()
    r = _fresh([sys.executable, "-c", _RUN, "crosscheck", str(ROOT / SCENARIO), "--out", str(out)],
               f"cellshare crosscheck {SCENARIO}", ok_codes=(0, 1))
    d = json.loads((out / "crosscheck.json").read_text())
    return {"command": f"cellshare crosscheck {SCENARIO} --out OUT", "load_1min_before": load, "uptime_before": up,
            "uptime_after": uptime(), **{k: d[k] for k in _VERDICT_KEYS},
            "flows": [{k: f[k] for k in _FLOW_KEYS} for f in d["flows"]], "wall_s": round(r["wall_s"], 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-crosscheck", action="store_true")
    a = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("error: the emulator needs root", file=sys.stderr)
        return 2
    base = tomllib.loads((ROOT / SCENARIO).read_text())
    machine = _machine()
    with tempfile.TemporaryDirectory(prefix="cellshare-emu-nr-") as t:
        tmp = Path(t)
        runs = [run_variant(label, variant_doc(base, rat, mu, fr, bw), tmp, a.duration, rep)
                for rep in range(a.repeat) for label, rat, mu, fr, bw in VARIANTS]
        cc = None if a.no_crosscheck else crosscheck(tmp)
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    doc = {"generated_by": f"python tools/emu_nr_measure.py --out FILE --duration {a.duration:g} --repeat {a.repeat}",
           "scenario": SCENARIO, "machine": machine, "runs": runs, "crosscheck": cc}
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
