"""The Sneaker paper's evaluation set-up ([sneaker], Section VI), shared by
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


def ues(count: int, fading: str = "rayleigh", distance_m: float = DISTANCE_M) -> dict:
    """A group of `count` UEs at the set-up's distance."""
    return {"count": count, "channel": {"kind": "radio", "distance_m": distance_m, "layers": 2, "fading": fading}}


def scenario(name: str, aqm: dict, n_ues: int, flows: list, duration: float, seed: int = 1, fading: str = "rayleigh",
             distance_m: float = DISTANCE_M) -> dict:
    """A Sneaker-paper scenario with `n_ues` UEs and the given flows."""
    return {
        "name": name,
        "simulation": {"duration_s": duration, "seed": seed},
        "cell": {**CELL, "aqm": aqm},
        "wired": WIRED,
        "ues": [ues(n_ues, fading, distance_m)],
        "flows": flows,
    }


def radio(ctx) -> dict:
    """The assumed radio set-up (`scenario`'s and `ues`' keywords)."""
    return {"fading": str(ctx.param("fading")), "distance_m": float(ctx.param("distance_m"))}


def sneaker_aqm(ctx) -> dict:
    """Sneaker's `cell.aqm` table with the assumed ε and β."""
    return {"kind": "sneaker", "epsilon": float(ctx.param("epsilon")), "beta": float(ctx.param("beta"))}


def assumptions(*names: str) -> tuple:
    """The Sneaker reproductions' assumptions, by name."""
    from . import Assumption

    table = {
        "epsilon": Assumption(
            "epsilon", 0.1,
            "Sneaker's ε (Eq. (5): the share kept for background flows when the foreground fills the cell) is not "
            "given; 0.1 is the simulator's default", (0.05, 0.2)),
        "beta": Assumption(
            "beta", 0.5,
            "β of the window model behind Eq. (5) is \"0 < β < 1\" (Sec. III); 0.5: Reno, which the evaluation "
            "runs, halves its window", (0.3,)),
        "distance_m": Assumption(
            "distance_m", DISTANCE_M,
            "the paper gives \"a cellular link with 70 Mbps\" (Sec. VI) but no distances: a lone UE at 150 m gets "
            "about 70 Mbps with 2×2 MIMO", (100.0,)),
        "fading": Assumption(
            "fading", "rayleigh",
            "the paper names only log-distance path loss (Sec. VI) and ns-3's LTE module adds fast fading only with "
            "a trace; ours: Rayleigh at 3 km/h, the channel's default", ("none",)),
    }
    return tuple(table[n] for n in names)


def mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0
