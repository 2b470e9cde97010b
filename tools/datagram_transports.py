"""Validation runs of the datagram transports (Sprout, Verus, PCC-Vivace) for
docs/transports.md: each against CUBIC on the Mahimahi downlink traces shipped in python/cellshare/data/traces
(throughput, self-inflicted delay at the bottleneck), and PCC-Vivace's convergence and
latency on a fixed link.

    python tools/datagram_transports.py [--secs 60] [--traces DIR]

Prints Markdown tables. Every number comes from a seeded simulation (seed 1): re-running
gives the same table.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cellshare import api

SCHEMES = {
    "cubic": {"kind": "tcp", "cc": {"kind": "cubic"}},
    "cubic-codel": {"kind": "tcp", "cc": {"kind": "cubic"}},
    "sprout": {"kind": "sprout"},
    "sprout-fast": {"kind": "sprout", "fast_inference": True},
    "verus": {"kind": "verus"},
    "vivace": {"kind": "vivace"},
}


def on_trace(trace: Path, transport: dict, secs: float, aqm: dict | None = None) -> dict:
    """One UE on `trace` (the default 512 KB RLC queue and wired path), one bulk flow;
    `aqm` at the base station (default tail drop)."""
    sc = {
        "simulation": {"duration_s": secs, "seed": 1},
        "cell": {"aqm": aqm or {"kind": "tail_drop"}},
        "ues": [{"channel": {"kind": "trace", "file": str(trace)}}],
        "flows": [{"name": "bulk", "ue": 0, "transport": transport}],
    }
    return api.run(sc).flows().to_pylist()[0]


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
    a = ap.parse_args()

    if not a.fixed_only:
        print(f"### On the Mahimahi downlink traces ({a.secs:.0f} s each, seed 1)\n")
        print("| trace | scheme | Mbit/s | / CUBIC | sojourn p50 ms | sojourn p99 ms | p99 / CUBIC's |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for trace in sorted(a.traces.glob("*.down")):
            res = {k: on_trace(trace, t, a.secs, {"kind": "codel"} if k.endswith("codel") else None)
                   for k, t in SCHEMES.items()}
            c = res["cubic"]
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


if __name__ == "__main__":
    main()
