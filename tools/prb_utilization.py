"""Measure what `prb_utilization` shows on trace channels (docs/outputs.md) into a JSON file.

    python tools/prb_utilization.py --out tools/data/prb-utilization.json

Each case is one simulator run (seconds in all, deterministic: same cellshare, same file) of
a `cbr` source on a trace channel, at a set share of the trace's capacity. Per case it
stores the summary's `prb_utilization` (PRBs used over PRBs offered, each PRB weighted by the
bytes it carries in its millisecond), `prb_used_share_of_all`, `prb_offered_share` and their
ratio `unweighted` (used over offered with every offered millisecond alike: what the figure
would be without the weighting). The cases are those of `tests/test_prb_utilization.py`
plus `scenarios/trace-ue.toml` as shipped.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL = "TMobile-LTE-driving.down"
SPARSE_PERIOD_MS = 10


def _scenario(trace: Path, rate_mbps: float, duration_s: float) -> dict:
    return {"name": "prb", "simulation": {"duration_s": duration_s, "seed": 3}, "cell": {},
            "ues": [{"channel": {"kind": "trace", "file": str(trace)}}],
            "flows": [{"ue": 0, "transport": {"kind": "cbr", "rate_mbps": rate_mbps}}]}


def _capacity_mbps(trace: Path, duration_s: float) -> float:
    """The trace's capacity over the run's first `duration_s` (IP bytes, 1500 B per opportunity),
    the trace repeating with its last timestamp as period, as the channel reads it."""
    stamps = [int(x) for x in trace.read_text().split()]
    period, end = stamps[-1], int(duration_s * 1000)
    n = sum(len(range(t, end, period)) for t in stamps)
    return n * 1500 * 8 / duration_s / 1e6


def _figures(summary: dict) -> dict:
    used, offered = summary["prb_used_share_of_all"], summary["prb_offered_share"]
    return {"prb_utilization": summary["prb_utilization"], "prb_used_share_of_all": used,
            "prb_offered_share": offered, "unweighted": used / offered if offered else None}


def measure() -> dict:
    import cellshare
    from cellshare import api

    real = ROOT / "python/cellshare/data/traces" / REAL
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        sparse = Path(tmp) / "sparse.down"
        sparse.write_text(f"{SPARSE_PERIOD_MS}\n")
        runs = [("sparse-saturated", f"one opportunity every {SPARSE_PERIOD_MS} ms, saturated", sparse, None, 5.0),
                ("sparse-half", f"one opportunity every {SPARSE_PERIOD_MS} ms, half its capacity", sparse, 0.5, 5.0),
                ("real-saturated", f"{REAL}, 20 s, saturated", real, None, 20.0),
                ("real-half", f"{REAL}, 20 s, half its capacity", real, 0.5, 20.0),
                ("real-quarter", f"{REAL}, 20 s, a quarter of its capacity", real, 0.25, 20.0)]
        for ident, what, trace, share, dur in runs:
            rate = 100.0 if share is None else _capacity_mbps(trace, dur) * share
            s = cellshare.run(_scenario(trace, rate, dur)).summary
            cases.append({"id": ident, "what": what, "share_of_capacity": share, "rate_mbps": rate,
                          "duration_s": dur, **_figures(s)})
    s = api.run(str(ROOT / "scenarios/trace-ue.toml")).summary
    cases.append({"id": "trace-ue", "what": "scenarios/trace-ue.toml as shipped", "share_of_capacity": None,
                  "rate_mbps": 100.0, "duration_s": s.get("duration_s"), **_figures(s)})
    return {"what": "prb_utilization and its neighbours on trace channels: a cbr source at a share of the trace's "
                    "capacity (saturated: 100 Mbit/s); unweighted = prb_used_share_of_all / prb_offered_share",
            "generated_by": "python tools/prb_utilization.py --out tools/data/prb-utilization.json",
            "cellshare": cellshare.__version__, "cases": cases}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    a = p.parse_args(argv)
    a.out.write_text(json.dumps(measure(), indent=1) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
