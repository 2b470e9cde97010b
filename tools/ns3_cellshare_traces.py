#!/usr/bin/env python3
"""cellshare's side of docs/crosscheck-ns3.md's traced diagnoses, with its windows: each run is
`tools/ns3_crosscheck.py --reuse-ns3 FILE` with one cellshare setting (ns-3's side is the
stored run's), and cellshare's senders' congestion window and smoothed RTT every 100 ms
(`simulation.trace_interval_ms`, cellshare's default 100) kept beside the rates.

    python tools/ns3_cellshare_traces.py --out tools/data/ns3-crosscheck-cellshare-traces.json

writes ``runs``: name → the tool's own ``{args, rows}`` (a row's ``cellshare`` side holds the
flows' rates and, but for the sweeps (of the start, of periods and seeds), under ``tcp`` each flow's
``cwnd_segments_per_100_ms`` and ``srtt_ms_per_100_ms``, index i the sample at (i + 1)/10 s),
with the command and the machine.
Only cellshare runs (a second or so per run); ``cellshare.docpages.crosscheck_ns3`` renders it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMAND = "python tools/ns3_cellshare_traces.py --out FILE"
BACKGROUND = "tools/data/ns3-crosscheck-background.json"
PRR_RFC = "tools/data/ns3-crosscheck-background-prr-rfc.json"
HYSTART_4MS = "tools/data/ns3-crosscheck-background-hystart-4ms.json"
MSS = 1448


def _vegas_ack(period: int) -> dict:
    return {"cellshare_ack_every_ms": period, "cellshare_ack_from_s": 22.9,
            "cellshare_bg_cc": json.dumps({"kind": "vegas", "rtt": "srtt"})}


#: name → (what, the stored ns-3 run reused, label, cellshare settings of tools/ns3_crosscheck.py).
RUNS: dict[str, tuple[str, str, str, dict]] = {
    "other-vegas": ("other/vegas as the table has it", BACKGROUND, "other/vegas", {}),
    **{f"other-vegas-ack{p}-srtt": (f"other/vegas, the Vegas UE's ACKs every {p} ms from 22.9 s, Vegas `rtt = \"srtt\"`",
                                    BACKGROUND, "other/vegas", _vegas_ack(p)) for p in (7, 10)},
    "same-cubic-prr-rfc": ("same/cubic against ns-3 with RFC 6937's PRR count", PRR_RFC, "same/cubic", {}),
    **{f"same-cubic-prr-rfc-start-{s:.2f}": (f"same/cubic against ns-3 with RFC 6937's PRR count, our foreground from {s:.2f} s",
                                             PRR_RFC, "same/cubic", {"cellshare_fg_start_s": s})
       for s in [4.9 + 0.05 * k for k in range(9)]},
    **{f"other-vegas-acks-every-{p}-seed-{s}": (f"other/vegas, every UE's ACKs at uplink opportunities every {p} ms "
                                               f"(a seeded phase per UE), seed {s}", BACKGROUND, "other/vegas",
                                               {"cellshare_ack_every_ms": p, "seed": s})
       for p in (4, 8, 16, 32) for s in range(1, 6)},
    **{f"same-cubic-hystart-4ms-start-{s:.2f}": (f"same/cubic against ns-3 with HyStartDelayMax 4 ms, our foreground from {s:.2f} s",
                                                 HYSTART_4MS, "same/cubic", {"cellshare_fg_start_s": s})
       for s in [4 + 0.25 * k for k in range(17)]},
}


def traces(result, names: list[str], duration: float) -> dict:
    """Each flow's window (segments) and smoothed RTT (ms) at every 100 ms, from its flow trace."""
    t = result.flow_trace().to_pylist()
    n = int(round(duration * 10))
    out = {}
    for name in names:
        cwnd, srtt = [None] * n, [None] * n
        for row in t:
            if row["name"] != name:
                continue
            k = int(round(row["t_s"] * 10)) - 1
            if 0 <= k < n:
                cwnd[k] = row["cwnd_bytes"] // MSS
                srtt[k] = round(row["srtt_ms"], 2) if row["srtt_ms"] > 0 else None
        out[name] = {"cwnd_segments_per_100_ms": cwnd, "srtt_ms_per_100_ms": srtt}
    return out


def run(xc, name: str) -> dict:
    from cellshare import api

    what, reused, label, settings = RUNS[name]
    stored = json.loads((ROOT / reused).read_text())
    row = next((r for r in stored["rows"] if "/".join(r["label"]) == label), None)
    if row is None:
        raise SystemExit(f"error: {reused} has no run {label!r}")
    args = {**stored["args"], "reuse_ns3": reused, "layouts": label.split("/")[0], "backgrounds": label.split("/")[1],
            "tcp_trace": False, "phy_stats": False, "ul_stats": False, **settings}
    ns = argparse.Namespace(**args, layout=label.split("/")[0], background=label.split("/")[1])
    captured = []
    original = api.run

    def keep(scenario, *a, **k):
        captured.append(original(scenario, *a, **k))
        return captured[-1]

    api.run = keep
    try:
        t0 = time.monotonic()
        ours = xc.run_cellshare(ns)
        wall = time.monotonic() - t0
    finally:
        api.run = original
    if "-start-" not in name and "-seed-" not in name:  # the sweeps keep their rates only
        ours["tcp"] = traces(captured[0], [k for k in ours if k[:2] in ("fg", "bg")], ns.duration)
    theirs = {k: v for k, v in row["ns3"].items() if k[:2] in ("fg", "bg")}
    return {"what": what, "args": {k: v for k, v in args.items()},
            "rows": [{"label": label.split("/"), "snr_db": xc.snr_db(ns), "cellshare": ours, "ns3": theirs,
                      "cellshare_wall_s": round(wall, 2), "ns3_wall_s": row["ns3_wall_s"]}]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    ap.add_argument("--only", help="comma-separated runs (default: all)")
    a = ap.parse_args(argv)
    names = a.only.split(",") if a.only else list(RUNS)
    for n in names:
        if n not in RUNS:
            print(f"error: --only: {n!r} is not a run (expected one of {', '.join(RUNS)})", file=sys.stderr)
            return 2
    sys.path.insert(0, str(ROOT / "python"))
    sys.path.insert(0, str(ROOT / "tools"))
    import ns3_crosscheck as xc
    from cellshare.bench import _machine

    machine = _machine()
    runs = {n: run(xc, n) for n in names}
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    doc = {"what": "docs/crosscheck-ns3.md's diagnoses: cellshare's side with its senders' windows and smoothed RTTs "
                   "every 100 ms, ns-3's rates reused from the stored runs",
           "generated_by": COMMAND, "machine": machine, "runs": runs}
    a.out.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
