"""`pf-three-way`: with equal channels and saturated queues, PF serves three UEs round robin.

A reproduction is a module in `python/cellshare/reproduce/`: its claims (what the paper says,
where, and the number it implies), the scenarios it runs, and the checks that judge them.
"""

from __future__ import annotations

from cellshare.reproduce import ClaimDef, Context, Point, experiment

CLAIMS = (
    ClaimDef(
        "three-way-split",                      # the claim's id within the reproduction
        "3 UEs, equal fixed channels, saturated, PF: the smallest UE share of the cell",
        "legilimens", "Sec. II-A", 49,          # reference key, section, line in the paper's text
        "So, if all clients have the same signal quality and infinite data to send, scheduling will effectively "
        "become round-robin.",                  # the paper's words, exactly as at that line
        Point(1 / 3, derivation="round robin between three UEs gives each 1/3 of the cell"),
    ),
)


@experiment("pf-three-way", "PF with three equal saturated UEs", "Legilimens [legilimens] Sec. II-A", claims=CLAIMS)
def run(ctx: Context) -> None:
    result = ctx.run("three-equal-pf", {        # a scenario, as a dict (the TOML keys as nested tables)
        "name": "pf-three-way",
        "simulation": {"duration_s": 60.0 if ctx.full else 10.0, "seed": 1},
        "cell": {"scheduler": {"kind": "pf"}},
        "ues": [{"count": 3, "channel": {"kind": "fixed", "rate_mbps": 20.0}}],
        "flows": [{"ues": "all", "transport": {"kind": "cbr", "rate_mbps": 30.0}}],
    })
    rates = [ue["throughput_mbps"] for ue in result.raw["ues"]]
    shares = [r / sum(rates) for r in rates]
    ctx.check("three-way-split", min(shares), detail=", ".join(f"{s:.3f}" for s in shares))
