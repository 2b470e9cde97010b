"""Validation runs of the datagram transports (Sprout, Verus, PCC-Vivace) for
docs/transports.md: each against CUBIC on the Mahimahi downlink traces shipped in python/cellshare/data/traces
(throughput, self-inflicted delay at the bottleneck), and PCC-Vivace's convergence and
latency on a fixed link.

    python tools/datagram_transports.py [--secs 60] [--traces DIR] [--out FILE]

Prints Markdown tables; with ``--out`` it also stores every number as JSON (the page renders
its tables and prose from ``tools/data/transports-validation.json``, written by
``nice -n 19 python tools/datagram_transports.py --out tools/data/transports-validation.json``).
Every number comes from a seeded simulation (seed 1): re-running gives the same numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from cellshare import api
from cellshare.bench import _machine

SCHEMES = {
    "cubic": {"kind": "tcp", "cc": {"kind": "cubic"}},
    "cubic-codel": {"kind": "tcp", "cc": {"kind": "cubic"}},
    "sprout": {"kind": "sprout"},
    "sprout-fast": {"kind": "sprout", "fast_inference": True},
    "verus": {"kind": "verus"},
    "vivace": {"kind": "vivace"},
}


#: The command that re-creates the stored artefact (`FILE` is its path).
COMMAND = "nice -n 19 python tools/datagram_transports.py --out FILE"
#: Bytes of one Mahimahi delivery opportunity (the trace format: one MTU-sized packet per line).
MAHIMAHI_PACKET_BYTES = 1500


def trace_capacity(trace: Path, secs: float) -> dict:
    """A Mahimahi trace's delivery opportunities (one line each, a millisecond timestamp,
    repeating with the last line's period) over its first `secs` seconds: per second, in Mbit/s
    of 1500-byte packets, and the longest time without one (an outage), in seconds."""
    ts = [int(x) for x in trace.read_text().split()]
    period = ts[-1]
    end_ms = secs * 1000.0
    times = [k * period + t for k in range(int(end_ms // period) + 1) for t in ts if k * period + t < end_ms]
    pps = len(times) / secs
    gaps = [b - a for a, b in zip([0] + times, times + [end_ms])]
    return {"packets_per_s": pps, "mbps": pps * MAHIMAHI_PACKET_BYTES * 8 / 1e6, "longest_gap_s": max(gaps) / 1000.0}


def _quantile(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[round(q * 100) - 1]


def on_trace(trace: Path, transport: dict, secs: float, aqm: dict | None = None) -> dict:
    """One UE on `trace` (the default 512 KB RLC queue and wired path), one bulk flow;
    `aqm` at the base station (default tail drop). The flow's summary row; for a datagram
    transport also its 100 ms trace's smoothed RTT, `estimate` and `aux` (5th/50th/95th
    percentiles over the run)."""
    sc = {
        "simulation": {"duration_s": secs, "seed": 1},
        "cell": {"aqm": aqm or {"kind": "tail_drop"}},
        "ues": [{"channel": {"kind": "trace", "file": str(trace)}}],
        "flows": [{"name": "bulk", "ue": 0, "transport": transport}],
    }
    r = api.run(sc)
    f = r.flows().to_pylist()[0]
    if transport["kind"] != "tcp":
        tr = r.table("flow_trace").to_pylist()
        for col in ("srtt_ms", "estimate", "aux"):
            xs = [x[col] for x in tr if x[col] is not None]
            f[f"trace_{col}"] = {f"p{q}": _quantile(xs, q / 100) for q in (5, 50, 95)} if len(xs) > 1 else None
    return f


def fixed_link_pair(transport: dict, rate: float, secs: float, second_at: float) -> dict:
    """Two flows of `transport` to one UE (one queue), the second starting at `second_at`,
    on a fixed link: convergence and latency."""
    sc = {
        "simulation": {"duration_s": secs, "seed": 1},
        "ues": [{"channel": {"kind": "fixed", "rate_mbps": rate}}],
        "flows": [
            {"name": "a", "ue": 0, "transport": transport},
            {"name": "b", "ue": 0, "transport": transport, "start_s": second_at},
        ],
    }
    return api.run(sc)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--secs", type=float, default=60.0)
    ap.add_argument("--traces", type=Path, default=Path(__file__).resolve().parents[1] / "python" / "cellshare" / "data" / "traces")
    ap.add_argument("--fixed-only", action="store_true")
    ap.add_argument("--out", type=Path, help="also store every number as JSON here")
    a = ap.parse_args()
    t0 = time.monotonic()
    machine = _machine()
    stored: dict = {"rows": [], "capacity": {}, "fixed": []}

    if not a.fixed_only:
        print(f"### On the Mahimahi downlink traces ({a.secs:.0f} s each, seed 1)\n")
        print("| trace | scheme | Mbit/s | / CUBIC | sojourn p50 ms | sojourn p99 ms | p99 / CUBIC's |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for trace in sorted(a.traces.glob("*.down")):
            res = {k: on_trace(trace, t, a.secs, {"kind": "codel"} if k.endswith("codel") else None)
                   for k, t in SCHEMES.items()}
            c = res["cubic"]
            stored["capacity"][trace.stem] = trace_capacity(trace, a.secs)
            for k, f in res.items():
                stored["rows"].append({"trace": trace.stem, "scheme": k, "throughput_mbps": f["throughput_mbps"],
                                       "queue_delay_p50_ms": f["queue_delay_p50_ms"],
                                       "queue_delay_p99_ms": f["queue_delay_p99_ms"],
                                       **{key: f[key] for key in ("trace_srtt_ms", "trace_estimate", "trace_aux") if key in f}})
            for k, f in res.items():
                q = f["queue_delay_p99_ms"]
                print(f"| {trace.stem} | {k} | {f['throughput_mbps']:.2f} | {f['throughput_mbps'] / c['throughput_mbps']:.2f} "
                      f"| {f['queue_delay_p50_ms']:.1f} | {q:.1f} | {q / c['queue_delay_p99_ms']:.3f} |", flush=True)

    print("\n### PCC-Vivace on a fixed 20 Mbit/s link, a second flow at 20 s (60 s, seed 1)\n")
    print("| scheme | link use | sojourn p50 ms | sojourn p99 ms | Jain (40-60 s) | a, b Mbit/s (40-60 s) |")
    print("|---|---:|---:|---:|---:|---|")
    for k in ("vivace", "cubic"):  # noqa: B007
        r = fixed_link_pair(SCHEMES[k], 20.0, 60.0, 20.0)
        fl = r.flows().to_pylist()
        series = r.table("flow_series").to_pylist()
        late = [sum(x["mbps"] for x in series if x["flow"] == i and 40 <= x["second"] < 60) / 20.0 for i in range(len(fl))]
        jain = sum(late) ** 2 / (len(late) * sum(x * x for x in late))
        use = sum(f["throughput_mbps"] * (60.0 - f["start_s"]) for f in fl) / 60.0 / 20.0
        p50 = max(f["queue_delay_p50_ms"] for f in fl)
        p99 = max(f["queue_delay_p99_ms"] for f in fl)
        print(f"| {k} | {use:.2f} | {p50:.1f} | {p99:.1f} | {jain:.3f} | {late[0]:.2f}, {late[1]:.2f} |", flush=True)
        stored["fixed"].append({"scheme": k, "link_use": use, "queue_delay_p50_ms": p50, "queue_delay_p99_ms": p99,
                                "jain_40_60": jain, "late_mbps": late})

    if a.out:
        doc = {
            "what": "Sprout, Verus and PCC-Vivace beside CUBIC (tail drop and CoDel) alone on one UE behind each "
                    f"shipped Mahimahi downlink trace, {a.secs:g} s, seed 1, the default wired path and 512 KB RLC "
                    "queue; and two flows of PCC-Vivace or CUBIC on a fixed 20 Mbit/s link, the second from 20 s, 60 s",
            "generated_by": COMMAND,
            "secs": a.secs, "seed": 1,
            "fixed_link": {"rate_mbps": 20.0, "secs": 60.0, "second_at_s": 20.0, "fair_from_s": 40.0},
            "wall_s": round(time.monotonic() - t0, 1),
            "machine": {**machine, "load_1min_after": round(os.getloadavg()[0], 2)},
            **stored,
        }
        a.out.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
