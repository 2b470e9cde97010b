"""Traces why Legilimens yields far less on an NR cell at μ = 0 than on LTE, into
tools/data/legilimens-nr-mu0-trace.json.

`cellshare study nr-mechanisms` re-runs Legilimens' Figure 7 set-up (a CUBIC foreground at
one UE, on/off; the Legilimens background at another, 240 m, no fast fading, 10 MHz FDD) on
LTE and on NR μ = 0, where a slot is 1 ms like LTE's TTI and the TSval tick. This tool runs
the set-up shortened to one on and one off period (seed 1) on both cells, and variants that
each change one thing: the link (ideal: no block errors, no HARQ, no MAC pipeline), the
background's segment size (its `tcp.mss` only; the foreground keeps 1448 bytes), the UEs'
distance (a lower MCS, so another transport block size), the busy
threshold λ, and the receiver's ACK rule (every second segment instead of one ACK per TTI
burst).

For each run it records the IP bytes a full slot carries (the foreground's goodput alone with
its headers) in the background's packets, the background's share while the foreground is on and its entries
into back-off (as the study computes them), and the per-tick fact Algorithm 1 judges: from
the background's 1 ms flow trace while it is alone (before the foreground starts), the bytes
its receiver got in order per millisecond tick (what its one ACK per burst reports under that
tick's TSval) (a histogram; and the largest tick from the start to the foreground's), its capacity
estimate (bytes per tick), and
the *alternation ratio*: half the most common tick's bytes over λ·capacity. Under PF two
backlogged UEs alternate slot by slot (1:1), so a tick of n bytes followed by a one-tick gap
rates n/2; Algorithm 1 judges that gap busy only when n/2 < λ·capacity (a strict test), i.e.
a ratio below 1.

Each run takes well under a second; ``python tools/legilimens_nr_mu0_trace.py --out
tools/data/legilimens-nr-mu0-trace.json``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

from cellshare.api import run
from cellshare.reproduce.legilimens import FG_START, _onoff_metrics, _onoff_scenario
from cellshare.study.nr_mechanisms import BANDWIDTH_MHZ, FIG7_CHANNEL, _cell

OUT = Path(__file__).resolve().parent / "data" / "legilimens-nr-mu0-trace.json"
ON_S = 20.0
DURATION_S = FG_START + 2 * ON_S
SEED = 1
#: The TCP default segment size (`tcp.mss`), the foreground's in every run.
DEFAULT_MSS = 1448
#: IP + TCP + timestamp option headers per segment (a 1500-byte packet carries 1448 bytes).
HEADER_BYTES = 52
LAMBDA = 0.5
#: The window of the per-tick view: the background alone in NORMAL, before the foreground.
ALONE_S = (5.0, FG_START)

#: (key, cell's numerology or None for LTE, ideal link, background's tcp table, cc keys, the
#: UEs' distance in m (None: the set-up's), what changes against the baseline of its cell and link)
VARIANTS = (
    ("lte", None, False, None, None, None, "LTE, realistic link (the study's set-up)"),
    ("lte-ideal", None, True, None, None, None, "LTE, ideal link"),
    ("nr0", 0, False, None, None, None, "NR μ=0, realistic link (the study's set-up)"),
    ("nr0-ideal", 0, True, None, None, None, "NR μ=0, ideal link"),
    ("nr0-mss1400", 0, False, {"mss": 1400}, None, None, "NR μ=0, realistic link, background's MSS 1400 bytes"),
    ("nr0-ideal-mss1400", 0, True, {"mss": 1400}, None, None, "NR μ=0, ideal link, background's MSS 1400 bytes"),
    ("nr0-ideal-mss1200", 0, True, {"mss": 1200}, None, None, "NR μ=0, ideal link, background's MSS 1200 bytes"),
    ("nr0-ideal-mss1000", 0, True, {"mss": 1000}, None, None, "NR μ=0, ideal link, background's MSS 1000 bytes"),
    ("nr0-ideal-350m", 0, True, None, None, 350.0, "NR μ=0, ideal link, both UEs at 350 m (a lower MCS)"),
    ("lte-mss1300", None, False, {"mss": 1300}, None, None, "LTE, realistic link, background's MSS 1300 bytes"),
    ("lte-ideal-mss1300", None, True, {"mss": 1300}, None, None, "LTE, ideal link, background's MSS 1300 bytes"),
    ("nr0-ideal-lambda051", 0, True, None, {"lambda": 0.51}, None, "NR μ=0, ideal link, λ = 0.51"),
    ("nr0-ideal-ack2", 0, True, {"burst_acks": False}, None, None,
     "NR μ=0, ideal link, background's receiver ACKs every second segment (burst_acks off)"),
)


def scenario(name: str, mu, ideal: bool, tcp: dict | None, cc_extra: dict | None, distance_m: float | None = None,
             background: bool = True) -> dict:
    cc = {"kind": "legilimens", **(cc_extra or {})} if background else None
    channel = FIG7_CHANNEL if distance_m is None else {**FIG7_CHANNEL, "distance_m": distance_m}
    sc = _cell(_onoff_scenario(name, cc, DURATION_S, seed=SEED, channel=channel, on=ON_S), mu)
    if ideal:
        sc["cell"]["link"] = {"kind": "ideal"}
    if background and tcp:
        sc["flows"][0]["transport"]["tcp"] = dict(tcp)
    sc["simulation"]["trace_interval_ms"] = 1
    return sc


def per_tick(r, lam: float) -> dict:
    """The background's bytes per 1 ms tick while alone, its capacity estimate (bytes per
    tick, the median of its trace) and the alternation ratio (see the module docs)."""
    t = r.flow("background")["trace"]
    lo, hi = ALONE_S
    ticks = [round(m * 125.0) for ts, m in zip(t["t_s"], t["mbps"]) if lo <= ts < hi and m > 0]
    est = [e * 125.0 for ts, e in zip(t["t_s"], t["estimate"]) if lo <= ts < hi and e == e]
    before = [round(m * 125.0) for ts, m in zip(t["t_s"], t["mbps"]) if ts < FG_START and m > 0]
    hist = Counter(ticks)
    modal, n_modal = hist.most_common(1)[0]
    cap = statistics.median(est)
    return {"tick_bytes_hist": [[b, c] for b, c in sorted(hist.items(), key=lambda x: (-x[1], x[0]))[:6]],
            "ticks": len(ticks), "modal_tick_bytes": modal, "max_tick_bytes_before_fg": max(before),
            "modal_fraction": round(n_modal / len(ticks), 4),
            "capacity_bytes_per_tick": round(cap, 1),
            "alternation_ratio": round((modal / 2) / (lam * cap), 4)}


def measure() -> dict:
    alone: dict = {}
    rows = []
    for key, mu, ideal, tcp, cc_extra, dist, what in VARIANTS:
        if (mu, ideal, dist) not in alone:
            alone[(mu, ideal, dist)] = run(scenario("alone", mu, ideal, None, None, dist, background=False))
        r = run(scenario(key, mu, ideal, tcp, cc_extra, dist))
        m = _onoff_metrics(r, alone[(mu, ideal, dist)], DURATION_S, ON_S)
        mss = (tcp or {}).get("mss", DEFAULT_MSS)
        # IP bytes a full slot carries: the foreground's goodput alone (1448-byte segments) with
        # their headers; in the background's packets (its MSS plus the same headers).
        slot_ip_bytes = m["fg_alone_mbps"] * 125.0 * (DEFAULT_MSS + HEADER_BYTES) / DEFAULT_MSS
        modes = r.flow("background")["mode_changes"]
        lam = (cc_extra or {}).get("lambda", LAMBDA)
        rows.append({"key": key, "cell": "lte" if mu is None else f"nr{mu}", "link": "ideal" if ideal else "realistic",
                     "what": what, "bg_tcp": tcp, "cc": cc_extra, "lambda": lam,
                     "bg_mss": mss, "distance_m": dist if dist is not None else FIG7_CHANNEL["distance_m"],
                     "slot_ip_bytes": round(slot_ip_bytes, 1),
                     "bg_packets_per_slot": round(slot_ip_bytes / (mss + HEADER_BYTES), 4),
                     "bg_share_on": round(m["bg_share_on"], 4), "bg_off_ratio": round(m["bg_off_ratio"], 4),
                     "backoffs": sum(1 for x in modes["mode"] if x == 4),
                     "backoff_times_s": [round(t, 3) for t, x in zip(modes["t_s"], modes["mode"]) if x == 4][:20],
                     "fg_alone_mbps": round(m["fg_alone_mbps"], 4), **per_tick(r, lam)})
    return {"generated_by": "python tools/legilimens_nr_mu0_trace.py --out tools/data/legilimens-nr-mu0-trace.json",
            "setup": {"duration_s": DURATION_S, "on_s": ON_S, "fg_start_s": FG_START, "seed": SEED, "lambda": LAMBDA,
                      "channel": FIG7_CHANNEL, "bandwidth_mhz": BANDWIDTH_MHZ, "alone_window_s": list(ALONE_S),
                      "trace_interval_ms": 1},
            "variants": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT, help=f"JSON to write (default {OUT})")
    a = ap.parse_args(argv)
    if not a.out.parent.is_dir():
        print(f"error: --out {a.out}: its folder does not exist; expected a path in an existing folder", file=sys.stderr)
        return 2
    doc = measure()
    a.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    for v in doc["variants"]:
        print(f"{v['key']:22s} packets/slot {v['bg_packets_per_slot']:6.3f} share {v['bg_share_on']:.3f} "
              f"back-offs {v['backoffs']:3d} modal tick {v['modal_tick_bytes']:6d} B ({v['modal_fraction']:.2f}) "
              f"capacity {v['capacity_bytes_per_tick']:8.1f} B ratio {v['alternation_ratio']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
