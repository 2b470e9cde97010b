#!/usr/bin/env python3
"""How much one simulator run of a `cellshare crosscheck` case moves with where it starts in
its trace: the crosscheck's scenario (`scenarios/emu-trace.toml` by default) run in the
simulator with every trace read from each offset of `--offsets` (ms), for each trace and
controller, and the spread of the statistics the crosscheck judges (throughput, timeouts,
the median of the smoothed RTT sampled every 10 ms). A case whose spread over a few hundred
milliseconds of start exceeds a tolerance cannot be judged by one run per side (docs/tcp.md).

    python tools/crosscheck_start_sensitivity.py --trace python/cellshare/data/traces/TMobile-UMTS-driving.down \\
        --cc bbr --offsets 0:2000:100 [--json OUT.json]

`--json` writes the runs with the command that made them, the scenario and the offsets
(docs/tcp.md renders `tools/data/crosscheck-start-sensitivity.json` from it:
`python -m cellshare.docgen --write`). The simulator is deterministic: the same command gives
the same file, apart from the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _offsets(text: str) -> list[int]:
    """`a:b:step` (inclusive of b) or a comma-separated list, in ms."""
    try:
        if ":" in text:
            a, b, step = (int(x) for x in text.split(":"))
            if step <= 0 or b < a or a < 0:
                raise ValueError
            return list(range(a, b + 1, step))
        vals = [int(x) for x in text.split(",")]
        if not vals or min(vals) < 0:
            raise ValueError
        return vals
    except ValueError:
        raise argparse.ArgumentTypeError(f"--offsets {text!r}: expected START:STOP:STEP or a list of ms >= 0")


def sweep(scenario: Path, trace: Path | None, cc: str | None, offsets: list[int], duration: float | None = None) -> dict:
    """Per offset, the crosscheck's simulator statistics of flow 0; and their spread."""
    from cellshare import emulate
    from cellshare.api import run_text
    from cellshare.scenario_files import with_overrides

    base = scenario.resolve().parent
    text = emulate.variant_text(scenario.read_text(), base, trace, cc)
    sim_text = with_overrides(emulate.simulator_text(text), None, duration)
    rows = []
    for off in offsets:
        r = run_text(emulate.shifted_text(sim_text, off), str(base))
        f = r.summary["flows"][0]
        rows.append({"offset_ms": off, "throughput_mbps": f["throughput_mbps"], "timeouts": f["timeouts"],
                     "rtt_p50_ms": emulate.sampled_rtt_ms(r.flow_trace()).get(f["id"])})
    rtts = sorted(x["rtt_p50_ms"] for x in rows if x["rtt_p50_ms"] is not None)
    spread = ({"min": rtts[0], "median": statistics.median(rtts), "max": rtts[-1]} if rtts else None)
    return {"trace": trace.name if trace else None, "cc": cc, "runs": rows, "rtt_p50_ms": spread}


def _rel(p: Path) -> str:
    """`p` relative to the repository (as the command would be typed there), else as given."""
    try:
        return str(p.resolve().relative_to(REPO))
    except ValueError:
        return str(p)


def artefact(a: argparse.Namespace, cases: list[dict]) -> dict:
    """The runs of `main` with how they were made: the command (paths relative to the repository),
    the scenario, the offsets and the duration."""
    from cellshare import __version__

    cmd = ["python", "tools/crosscheck_start_sensitivity.py", "--scenario", _rel(a.scenario)]
    cmd += [x for t in a.trace for x in ("--trace", _rel(t))] + [x for c in a.cc for x in ("--cc", c)]
    o = a.offsets
    step = o[1] - o[0] if len(o) > 2 else 0
    even = step > 0 and o == list(range(o[0], o[-1] + 1, step))
    cmd += ["--offsets", f"{o[0]}:{o[-1]}:{step}" if even else ",".join(map(str, o))]
    if a.duration is not None:
        cmd += ["--duration", f"{a.duration:g}"]
    return {"what": "The simulator alone: the crosscheck's scenario with every trace read from each offset (ms), per "
                    "trace and controller; rtt_p50_ms is the median of the smoothed RTT sampled every 10 ms while data "
                    "is in flight (the crosscheck's statistic), with its min / median / max over the offsets.",
            "generated_by": " ".join(cmd + ["--json", "OUT.json"]), "scenario": _rel(a.scenario),
            "offsets_ms": a.offsets, "duration_s": a.duration, "cellshare": __version__, "cases": cases}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", type=Path, default=REPO / "scenarios" / "emu-trace.toml")
    ap.add_argument("--trace", type=Path, action="append", default=[])
    ap.add_argument("--cc", action="append", default=[])
    ap.add_argument("--offsets", type=_offsets, default=_offsets("0:2000:100"))
    ap.add_argument("--duration", type=float, default=None)
    ap.add_argument("--json", type=Path, default=None, help="also write the runs here (a new file)")
    a = ap.parse_args(argv)
    for t in a.trace:
        if not t.is_file():
            ap.error(f"--trace {str(t)!r}: no such file (expected a Mahimahi trace)")
    if a.json is not None and a.json.exists():
        ap.error(f"--json {str(a.json)!r}: exists (expected a new file)")
    out = []
    for t in a.trace or [None]:
        for c in a.cc or [None]:
            s = sweep(a.scenario, t, c, a.offsets, a.duration)
            out.append(s)
            q, tp = s["rtt_p50_ms"], [x["throughput_mbps"] for x in s["runs"]]
            to = [x["timeouts"] for x in s["runs"]]
            print(f"{s['trace'] or '-':28s} {c or '-':6s} RTT p50 over {len(a.offsets)} starts: "
                  + (f"{q['min']:.0f} / {q['median']:.0f} / {q['max']:.0f} ms (min/median/max)" if q else "-")
                  + f"; Mbit/s {min(tp):.2f}-{max(tp):.2f}; timeouts {min(to)}-{max(to)}", flush=True)
    if a.json is not None:
        a.json.write_text(json.dumps(artefact(a, out), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
