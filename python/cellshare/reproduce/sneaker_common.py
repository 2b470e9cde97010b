"""The Sneaker paper's evaluation set-up (sneaker-background-aqm.txt, Section VI), shared by
the `sneaker-*` reproductions.

Paper: remote servers on 1 Gbps, 10 ms links to the gateway, a 300 Mbps gateway–eNB link,
a 10 MHz (50 PRB) cell at 751 MHz with MIMO, 47.78 dBm, log-distance path loss with
exponent 3.52, 512 KB RLC buffers, PF scheduling, TCP Reno, "a cellular link with 70 Mbps".

Ours: the same numbers where the paper gives them (our radio channel's defaults are the
paper's carrier, power and exponent), 2×2 spatial multiplexing (`layers = 2`), and UEs
150 m from the eNB, where a lone UE gets ~70 Mbps. The paper gives no UE distances, speeds,
Sneaker ε or β: we use pedestrian fading (3 km/h, the channel's default), ε = 0.1 and β = 0.5
(Reno halves its window), the defaults of `cell.aqm = { kind = "sneaker" }`.

The paper's system model queues every flow in its own queue ("per-flow queues Q_1..Q_N")
and ρ of Eq. (6) counts flows: each flow is a scheduling entity. cellshare queues per UE, so
where the paper has several flows "to another user", the reproductions that depend on it
give each flow its own UE at the same distance (same channel statistics), and say so.
"""

from __future__ import annotations

DISTANCE_M = 150.0
CELL = {"bandwidth_mhz": 10, "scheduler": {"kind": "pf"}, "rlc_queue_bytes": 524288}
WIRED = {"remote_rate_mbps": 1000.0, "remote_delay_ms": 10.0, "backhaul_rate_mbps": 300.0}
RENO = {"kind": "tcp", "cc": {"kind": "reno"}}

#: The mechanisms compared in Figure 4, as `cell.aqm` tables.
AQMS = {
    "PFS only": {"kind": "tail_drop"},
    "RED": {"kind": "red"},
    "Strict priority": {"kind": "strict_priority"},
    "Sneaker": {"kind": "sneaker"},
}


def ues(count: int) -> dict:
    """A group of `count` UEs at the set-up's distance."""
    return {"count": count, "channel": {"kind": "radio", "distance_m": DISTANCE_M, "layers": 2}}


def scenario(name: str, aqm: dict, n_ues: int, flows: list, duration: float, seed: int = 1) -> dict:
    """A Sneaker-paper scenario with `n_ues` UEs and the given flows."""
    return {
        "name": name,
        "simulation": {"duration_s": duration, "seed": seed},
        "cell": {**CELL, "aqm": aqm},
        "wired": WIRED,
        "ues": [ues(n_ues)],
        "flows": flows,
    }


def mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0


def jain(xs) -> float:
    xs = list(xs)
    s, s2 = sum(xs), sum(x * x for x in xs)
    return 1.0 if not xs or s2 == 0 else s * s / (len(xs) * s2)
