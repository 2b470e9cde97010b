"""Renderers of the model pages' numbers (``mdl-*``): docs/radio-link.md, nr.md, crosscheck.md,
apps.md, outputs.md, performance.md and mobility.md.

Each reads a committed artefact (or the constant it is judged against) and prints one value
inside a sentence:

- ``mdl-udp-clean FILE`` / ``mdl-udp-control FILE`` / ``mdl-udp-more FILE``: the saturated UDP
  receiver against ns-3 over distance (``tools/ns3_crosscheck.py --case udp``): the distances
  where neither simulator retransmits a block, the distances where cellshare gives up blocks
  whose control information was missed, and how much more cellshare carries where neither
  loses a block.
- ``mdl-nr-edge``: cellshare's NR cell at the first distance where 5G-LENA carries nothing
  (``tools/data/nr-lena-compare.json``).
- ``mdl-start-spread``: the traces on which one start's RTT statistic lies further from the
  median over the starts than the emulator cross-check's RTT tolerance
  (``tools/data/crosscheck-start-sensitivity.json``, ``cellshare.emulate.RTT_TOLERANCE``).
- ``mdl-prb CASE KEY``: a figure of ``tools/data/prb-utilization.json``
  (``tools/prb_utilization.py``).
- ``mdl-bench-spread VARIANT``: the largest over the smallest speed of one benchmark variant's
  runs in ``tools/data/bench.json`` (one binary, one session).
- ``mdl-network-cost KEY``: the network benchmark's instructions, data accesses or last-level
  cache misses per simulated second over the single cell's (``tools/network_cost.py``).
- ``mdl-part REP ID KEY [pct|x|s|ms]``: one entry of a scoreboard result whose value is a
  table (``sorpc youtube-sorpc-better SORPC s``).
"""
from __future__ import annotations

from ..docgen import BENCH, DocgenError, _Artefacts, _args, _format, _ns3_run

NR_LENA_COMPARE = "tools/data/nr-lena-compare.json"
START_SENSITIVITY = "tools/data/crosscheck-start-sensitivity.json"
PRB_UTILIZATION = "tools/data/prb-utilization.json"
NETWORK_COST = "tools/data/network-cost.json"


def _span(vals: list[float]) -> str:
    lo, hi = min(vals), max(vals)
    return f"{lo:g}" if lo == hi else f"{lo:g} to {hi:g}"


def _udp_rows(a: _Artefacts, args: list[str], name: str) -> tuple[str, list[dict]]:
    spec = _args(args, 1, name, f"{name} tools/data/FILE.json")[0]
    spec, d = _ns3_run(a, spec, name)
    rows = [r for r in d["rows"] if len(r["label"]) == 1 and "udp0" in r["cellshare"] and "harq" in r["cellshare"]]
    if not rows:
        raise DocgenError(f"renderer {name!r}: {spec} has no UDP runs over distance (rows with udp0 and harq)")
    return spec, rows


def _carried(r: dict) -> bool:
    return r["cellshare"]["harq"]["transport_blocks"] > 0 and r["ns3"]["harq"]["transport_blocks"] > 0


def _no_retx(r: dict) -> bool:
    return r["cellshare"]["harq"]["retransmissions"] == 0 and r["ns3"]["harq"]["retransmissions"] == 0


def r_udp_clean(a: _Artefacts, args: list[str]) -> str:
    """``from 50 to 650 m``: the distances at which both sides carried data and neither
    retransmitted a block (no data block failed to decode)."""
    spec, rows = _udp_rows(a, args, "mdl-udp-clean")
    ds = [float(r["label"][0]) for r in rows if _carried(r) and _no_retx(r)]
    if not ds:
        raise DocgenError(f"renderer 'mdl-udp-clean': in {spec} every distance has retransmissions or carries nothing")
    return f"from {_span(ds)} m" if len(set(ds)) > 1 else f"at {ds[0]:g} m"


def r_udp_control(a: _Artefacts, args: list[str]) -> str:
    """``from 550 m (SINR −1.7 dB and below)``: where cellshare's blocks were lost without a
    retransmission, i.e. to missed control information."""
    spec, rows = _udp_rows(a, args, "mdl-udp-control")
    hit = [r for r in rows if _carried(r) and r["cellshare"]["harq"]["block_errors"] > 0
           and r["cellshare"]["harq"]["retransmissions"] == 0]
    if not hit:
        raise DocgenError(f"renderer 'mdl-udp-control': {spec} has no distance whose blocks were lost to control errors")
    first = min(hit, key=lambda r: float(r["label"][0]))
    return f"from {float(first['label'][0]):g} m (SINR {first['snr_db']:.1f} dB and below)".replace("-", "−")


def r_udp_more(a: _Artefacts, args: list[str]) -> str:
    """``4.3–7.9 %``: cellshare's UDP rate over ns-3's, less one, at the distances where
    neither side lost or retransmitted a block."""
    spec, rows = _udp_rows(a, args, "mdl-udp-more")
    clean = [r for r in rows if _carried(r) and _no_retx(r) and r["cellshare"]["harq"]["block_errors"] == 0
             and r["ns3"]["udp0"] > 0]
    if not clean:
        raise DocgenError(f"renderer 'mdl-udp-more': {spec} has no distance where neither side lost a block")
    more = sorted(r["cellshare"]["udp0"] / r["ns3"]["udp0"] - 1 for r in clean)
    lo, hi = more[0] * 100, more[-1] * 100
    return f"{lo:.1f} %" if f"{lo:.1f}" == f"{hi:.1f}" else f"{lo:.1f}–{hi:.1f} %"


def r_nr_edge(a: _Artefacts, args: list[str]) -> str:
    """At the first distance where 5G-LENA carries nothing but cellshare does: cellshare's rate
    as a share of its rate one distance nearer, and its retransmissions and losses per block."""
    pts = sorted(a.load(NR_LENA_COMPARE)["points"], key=lambda p: p["distance_m"])
    for prev, p in zip(pts, pts[1:]):
        if p["lena"]["throughput_mbps"] == 0 and prev["lena"]["throughput_mbps"] > 0:
            ours, before = p["ours"], prev["ours"]
            if not ours["throughput_mbps"]:
                return f"at {p['distance_m']} m cellshare carries nothing either"
            share = ours["throughput_mbps"] / before["throughput_mbps"]
            return (f"at {p['distance_m']} m cellshare still carries {ours['throughput_mbps']:.3g} Mbit/s, "
                    f"{share:.2f} of its rate at {prev['distance_m']} m, with {ours['retx_per_tb']:.3g} "
                    f"retransmissions and {ours['lost_per_tb']:.2g} losses per block")
    raise DocgenError(f"renderer 'mdl-nr-edge': {NR_LENA_COMPARE} has no distance where 5G-LENA stops carrying")


def r_start_spread(a: _Artefacts, args: list[str]) -> str:
    """The traces on which some start's RTT statistic lies more than the cross-check's RTT
    tolerance from the median over the starts (either controller), named as stored."""
    from ..emulate import RTT_TOLERANCE

    d = a.load(START_SENSITIVITY)
    over: list[str] = []
    for c in d["cases"]:
        med = c["rtt_p50_ms"]["median"]
        vals = [r["rtt_p50_ms"] for r in c["runs"] if r["rtt_p50_ms"] is not None]
        if med and any(abs(v / med - 1) > RTT_TOLERANCE for v in vals) and c["trace"] not in over:
            over.append(c["trace"])
    names = [f"`{t.removesuffix('.down')}`" for t in over]
    if not names:
        return f"by less than the {RTT_TOLERANCE:.0%} tolerance on every stored trace".replace("%", " %")
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"by more than the {RTT_TOLERANCE * 100:.0f} % tolerance on the {listed} trace{'s' if len(names) > 1 else ''}"


_PRB_KEYS = ("prb_utilization", "prb_used_share_of_all", "prb_offered_share", "unweighted")


def r_prb(a: _Artefacts, args: list[str]) -> str:
    """``mdl-prb CASE KEY``: one figure of a stored case, three decimals (two when it is a
    round share)."""
    ident, key = _args(args, 2, "mdl-prb", "mdl-prb CASE KEY")[:2]
    if key not in _PRB_KEYS:
        raise DocgenError(f"renderer 'mdl-prb': key {key!r} is not one of {', '.join(_PRB_KEYS)}")
    cases = a.load(PRB_UTILIZATION)["cases"]
    for c in cases:
        if c["id"] == ident:
            v = c[key]
            if v is None:
                raise DocgenError(f"renderer 'mdl-prb': {PRB_UTILIZATION} case {ident!r} has no {key}")
            return f"{v:.3f}"
    raise DocgenError(f"renderer 'mdl-prb': {PRB_UTILIZATION} has no case {ident!r} "
                      f"(cases: {', '.join(c['id'] for c in cases)})")


def r_bench_spread(a: _Artefacts, args: list[str]) -> str:
    """``mdl-bench-spread VARIANT``: the fastest over the slowest run of one variant, ``3.0×``."""
    variant = _args(args, 1, "mdl-bench-spread", "mdl-bench-spread VARIANT")[0]
    runs = a.bench["runs"]
    if variant not in runs:
        raise DocgenError(f"renderer 'mdl-bench-spread': {BENCH} has no variant {variant!r} (variants: {', '.join(runs)})")
    s = runs[variant]["samples"]
    if len(s) < 2 or min(s) <= 0:
        raise DocgenError(f"renderer 'mdl-bench-spread': {BENCH} variant {variant!r} has fewer than two timed runs")
    return f"{max(s) / min(s):.1f}×"


def r_network_cost(a: _Artefacts, args: list[str]) -> str:
    """``mdl-network-cost instructions|data_accesses|ll_misses``: ``4.4×``."""
    key = _args(args, 1, "mdl-network-cost", "mdl-network-cost instructions|data_accesses|ll_misses")[0]
    ratios = a.load(NETWORK_COST)["network_over_single"]
    if key not in ratios:
        raise DocgenError(f"renderer 'mdl-network-cost': key {key!r} is not one of {', '.join(ratios)}")
    return f"{ratios[key]:.1f}×"


def r_part(a: _Artefacts, args: list[str]) -> str:
    """``mdl-part REP ID KEY [pct|x|s|ms]``: the entry KEY of a result whose value has one per key;
    a KEY with spaces is written with underscores (``single_queue``)."""
    rep, ident, key, *how = _args(args, 3, "mdl-part", "mdl-part REP ID KEY [pct|x|s|ms]")
    if how and how[0] not in ("pct", "x", "s", "ms"):
        raise DocgenError(f"renderer 'mdl-part': unit {how[0]!r} is not pct, x, s or ms")
    ours = a.result(rep, ident)["ours"]
    if not isinstance(ours, dict):
        raise DocgenError(f"renderer 'mdl-part': {rep}/{ident} is {ours!r}, not a value per key")
    k = key.replace("_", " ")
    if k not in ours:
        raise DocgenError(f"renderer 'mdl-part': {rep}/{ident} has no key {k!r} (keys: {', '.join(ours)})")
    return _format(ours[k], how[0] if how else "")


RENDERERS = {
    "mdl-udp-clean": (r_udp_clean, False),
    "mdl-udp-control": (r_udp_control, False),
    "mdl-udp-more": (r_udp_more, False),
    "mdl-nr-edge": (r_nr_edge, False),
    "mdl-start-spread": (r_start_spread, False),
    "mdl-prb": (r_prb, False),
    "mdl-bench-spread": (r_bench_spread, False),
    "mdl-network-cost": (r_network_cost, False),
    "mdl-part": (r_part, False),
}
