"""Renderers of docs/transports.md: the validation of Sprout, Verus and PCC-Vivace on the
Mahimahi downlink traces and on a fixed link (``tools/data/transports-validation.json``, from
``tools/datagram_transports.py --out``), and Sprout's fast inference against the exact one
(``tools/data/sprout-fast-inference.json``, from ``tools/sprout_fast_inference.py``).

Trace selections (``TRACES``) are comma-separated: a trace's name (``ATT-LTE-driving``),
``all``, ``lte`` (the traces named ``*-LTE-*``), ``3g`` (the others), or ``!NAME`` to leave a
trace out (``all,!Verizon-EVDO-driving``). Metrics (``METRIC``) of a scheme on a trace:
``mbps``, ``p50``, ``p99`` (sojourn at the base station, ms), ``srtt`` (the median of its
100 ms trace's smoothed RTT, ms), ``rate-p5``/``rate-p50`` (5th percentile / median of its
traced ``estimate``), ``aux-p5``/``aux-p95`` (of its traced ``aux``), ``capacity`` (the trace's
delivery opportunities over the run, Mbit/s of 1500-byte packets); ``M/BASE`` is the scheme's
``M`` over scheme ``BASE``'s and ``BASE/M`` the other way round (a ratio, printed with ``×``).
"""
from __future__ import annotations

import math
import re

from ..docgen import DocgenError, _args, _Artefacts

#: The datagram transports' validation runs (``tools/datagram_transports.py --out FILE``).
DATAGRAM = "tools/data/transports-validation.json"
#: Sprout's fast inference against the exact one (``tools/sprout_fast_inference.py --out FILE``).
SPROUT_FAST = "tools/data/sprout-fast-inference.json"
#: TCP-LP alone against CUBIC alone in a fading cell (``tools/tcp_lp_fading.py --out FILE``).
TCP_LP_FADING = "tools/data/tcp-lp-fading.json"

_PLAIN = {"mbps": "throughput_mbps", "p50": "queue_delay_p50_ms", "p99": "queue_delay_p99_ms"}
_TRACED = {"srtt": ("trace_srtt_ms", "p50"), "rate-p5": ("trace_estimate", "p5"),
           "rate-p50": ("trace_estimate", "p50"), "aux-p5": ("trace_aux", "p5"), "aux-p95": ("trace_aux", "p95")}
_METRICS = (*_PLAIN, *_TRACED, "capacity")
#: Comparisons by name: a marker's arguments cannot hold ``>`` (it ends the HTML comment's match).
_OPS = {"gt": lambda x, y: x > y, "lt": lambda x, y: x < y, "ge": lambda x, y: x >= y, "le": lambda x, y: x <= y}


def _rows(a: _Artefacts) -> dict:
    """(trace, scheme) → row of the stored validation run."""
    return {(r["trace"], r["scheme"]): r for r in a.load(DATAGRAM)["rows"]}


def _traces(a: _Artefacts, spec: str, name: str) -> list[str]:
    """The traces a selection names, in the file's order."""
    known = list(dict.fromkeys(r["trace"] for r in a.load(DATAGRAM)["rows"]))
    groups = {"all": known, "lte": [t for t in known if "-LTE-" in t], "3g": [t for t in known if "-LTE-" not in t]}
    chosen: list[str] = []
    for tok in spec.split(","):
        drop = tok.startswith("!")
        tok = tok[1:] if drop else tok
        if tok in groups:
            sel = groups[tok]
        elif tok in known:
            sel = [tok]
        else:
            raise DocgenError(f"renderer {name!r}: trace {tok!r} is not in {DATAGRAM} "
                              f"(traces: {', '.join(known)}; or all, lte, 3g)")
        chosen = [t for t in chosen if t not in sel] if drop else chosen + [t for t in sel if t not in chosen]
    if not chosen:
        raise DocgenError(f"renderer {name!r}: the selection {spec!r} names no trace")
    return chosen


def _one(a: _Artefacts, trace: str, scheme: str, metric: str, name: str) -> float:
    if metric == "capacity":
        return a.load(DATAGRAM)["capacity"][trace]["mbps"]
    row = _rows(a).get((trace, scheme))
    if row is None:
        schemes = ", ".join(dict.fromkeys(s for _, s in _rows(a)))
        raise DocgenError(f"renderer {name!r}: scheme {scheme!r} is not in {DATAGRAM} (schemes: {schemes})")
    if metric in _PLAIN:
        return row[_PLAIN[metric]]
    col, q = _TRACED[metric]
    if not row.get(col):
        raise DocgenError(f"renderer {name!r}: {scheme!r} has no traced {col} in {DATAGRAM} (TCP flows have none)")
    return row[col][q]


def _value(a: _Artefacts, trace: str, scheme: str, metric: str, name: str) -> tuple[float, bool]:
    """A metric's value on one trace and whether it is a ratio."""
    if "/" in metric:
        left, right = metric.split("/", 1)
        if left in _METRICS:
            return _one(a, trace, scheme, left, name) / _one(a, trace, right, left, name), True
        if right in _METRICS:
            return _one(a, trace, left, right, name) / _one(a, trace, scheme, right, name), True
    elif metric in _METRICS:
        return _one(a, trace, scheme, metric, name), False
    raise DocgenError(f"renderer {name!r}: metric {metric!r} is not one of {', '.join(_METRICS)}, "
                      "METRIC/SCHEME or SCHEME/METRIC")


def _num(v: float, metric: str) -> str:
    """As the page prints it: ratios and delays with two decimals below 1, one below 10 and
    none above; rates with two decimals; utilities as integers."""
    if metric.startswith(("mbps", "capacity", "rate-")) and "/" not in metric:
        return f"{v:.2f}"
    text = f"{v:.2f}" if abs(v) < 1 else f"{v:.1f}" if abs(v) < 10 else f"{v:.0f}"
    return text.replace("-", "−")


def r_traces(a: _Artefacts, args: list[str]) -> str:
    """``trn-traces``: per trace and scheme, throughput (and over CUBIC's) and the sojourn's
    median and 99th percentile (and the p99 over CUBIC's) (block)."""
    by = _rows(a)
    lines = ["| trace | scheme | Mbit/s | / CUBIC | sojourn p50 ms | sojourn p99 ms | p99 / CUBIC's |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for (trace, scheme), r in by.items():
        c = by[(trace, "cubic")]
        lines.append(f"| {trace} | {scheme} | {r['throughput_mbps']:.2f} | {r['throughput_mbps'] / c['throughput_mbps']:.2f} "
                     f"| {r['queue_delay_p50_ms']:.1f} | {r['queue_delay_p99_ms']:.1f} "
                     f"| {r['queue_delay_p99_ms'] / c['queue_delay_p99_ms']:.3f} |")
    d = a.load(DATAGRAM)
    lines += ["", f"All {len(by) + 2 * len(d['fixed'])} runs took {d['wall_s']:.0f} s of wall time "
              f"({d['machine']['cores']} cores, {d['machine']['cpu']}; `{d['generated_by'].replace('FILE', DATAGRAM)}`)."]
    return "\n".join(lines)


def r_fixed(a: _Artefacts, args: list[str]) -> str:
    """``trn-fixed``: the fixed-link pair per scheme: link use, sojourn p50/p99, Jain's index and
    the two flows' rates over the last seconds (block)."""
    d = a.load(DATAGRAM)
    f = d["fixed_link"]
    span = f"{f['fair_from_s']:g}–{f['secs']:g} s"
    lines = [f"| scheme | link use | sojourn p50 ms | sojourn p99 ms | Jain ({span}) | a, b Mbit/s ({span}) |",
             "|---|---:|---:|---:|---:|---|"]
    for r in d["fixed"]:
        lines.append(f"| {r['scheme']} | {r['link_use']:.2f} | {r['queue_delay_p50_ms']:.1f} | {r['queue_delay_p99_ms']:.1f} "
                     f"| {r['jain_40_60']:.3f} | {r['late_mbps'][0]:.2f}, {r['late_mbps'][1]:.2f} |")
    return "\n".join(lines)


def r_fixed_value(a: _Artefacts, args: list[str]) -> str:
    """``trn-fixed-value SCHEME use|p50|p99|jain``: one number of the fixed-link pair (inline):
    the link use in per cent, a sojourn percentile in ms, Jain's index."""
    scheme, key = _args(args, 2, "trn-fixed-value", "trn-fixed-value SCHEME use|p50|p99|jain")[:2]
    rows = {r["scheme"]: r for r in a.load(DATAGRAM)["fixed"]}
    if scheme not in rows:
        raise DocgenError(f"renderer 'trn-fixed-value': scheme {scheme!r} is not in {DATAGRAM}'s fixed-link runs "
                          f"({', '.join(rows)})")
    r = rows[scheme]
    if key == "use":
        return f"{r['link_use'] * 100:.0f} %"
    if key in ("p50", "p99"):
        return f"{r[f'queue_delay_{key}_ms']:.1f} ms"
    if key == "jain":
        return f"{r['jain_40_60']:.3f}"
    raise DocgenError(f"renderer 'trn-fixed-value': {key!r} is not use, p50, p99 or jain")


def r_range(a: _Artefacts, args: list[str]) -> str:
    """``trn-range SCHEME METRIC TRACES``: the lowest and highest of a metric over the traces
    (``0.82–0.98×``; one value when they round alike) (inline)."""
    scheme, metric, spec = _args(args, 3, "trn-range", "trn-range SCHEME METRIC TRACES")[:3]
    vals = sorted(_value(a, t, scheme, metric, "trn-range") for t in _traces(a, spec, "trn-range"))
    ratio = vals[0][1]
    lo, hi = _num(vals[0][0], metric), _num(vals[-1][0], metric)
    return (lo if lo == hi else f"{lo}–{hi}") + ("×" if ratio else "")


def _pretty(trace: str) -> str:
    """A trace's name as prose: ``TMobile-LTE-driving`` → ``T-Mobile LTE``."""
    words = trace.removesuffix("-driving").split("-")
    words[0] = {"ATT": "AT&T", "TMobile": "T-Mobile"}.get(words[0], words[0])
    return " ".join(words).replace("times square", "Times Square")


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def r_where(a: _Artefacts, args: list[str]) -> str:
    """``trn-where SCHEME METRIC gt|lt|ge|le VALUE TRACES [count]``: the traces (as prose, ``AT&T
    LTE and T-Mobile LTE``; ``no trace`` when none) on which a metric compares so with VALUE, or with
    ``count`` how many of them, ``3 of 6`` or ``all 6`` (inline)."""
    scheme, metric, op, value, spec, *rest = _args(args, 5, "trn-where", "trn-where SCHEME METRIC gt|lt|ge|le VALUE TRACES [count]")
    if op not in _OPS:
        raise DocgenError(f"renderer 'trn-where': {op!r} is not one of {', '.join(_OPS)}")
    try:
        bound = float(value)
    except ValueError:
        raise DocgenError(f"renderer 'trn-where': VALUE {value!r} is not a number") from None
    traces = _traces(a, spec, "trn-where")
    hit = [t for t in traces if _OPS[op](_value(a, t, scheme, metric, "trn-where")[0], bound)]
    if rest and rest[0] == "count":
        return f"all {len(traces)}" if len(hit) == len(traces) else f"{len(hit)} of {len(traces)}"
    if rest:
        raise DocgenError(f"renderer 'trn-where': {rest[0]!r} is not count")
    return _and([_pretty(t) for t in hit]) if hit else "no trace"


def r_capacity(a: _Artefacts, args: list[str]) -> str:
    """``trn-capacity TRACE mbps|pps|gap``: a trace's delivery opportunities over the run, in
    Mbit/s of 1500-byte packets or packets per second, or its longest time without one, in
    seconds (inline)."""
    trace, unit = _args(args, 2, "trn-capacity", "trn-capacity TRACE mbps|pps|gap")[:2]
    cap = a.load(DATAGRAM)["capacity"]
    if trace not in cap:
        raise DocgenError(f"renderer 'trn-capacity': trace {trace!r} is not in {DATAGRAM} ({', '.join(cap)})")
    if unit == "mbps":
        return f"{cap[trace]['mbps']:.2f} Mbit/s"
    if unit == "pps":
        return f"{cap[trace]['packets_per_s']:.0f} packets/s"
    if unit == "gap":
        return f"{cap[trace]['longest_gap_s']:.1f} s"
    raise DocgenError(f"renderer 'trn-capacity': {unit!r} is not mbps, pps or gap")


def r_maxdiff(a: _Artefacts, args: list[str]) -> str:
    """``trn-maxdiff SCHEME BASE``: the largest relative difference of throughput, median or
    p99 sojourn between two schemes over the traces, ``1.4 % (T-Mobile LTE)``, or ``none`` (inline)."""
    scheme, base = _args(args, 2, "trn-maxdiff", "trn-maxdiff SCHEME BASE")[:2]
    worst, where = 0.0, ""
    for t in _traces(a, "all", "trn-maxdiff"):
        for m in _PLAIN:
            x, y = _one(a, t, scheme, m, "trn-maxdiff"), _one(a, t, base, m, "trn-maxdiff")
            d = abs(x / y - 1) if y else 0.0
            if d > worst:
                worst, where = d, t
    return "none" if worst == 0 else f"{worst * 100:.1f} % ({_pretty(where)})"


def _sprout_rows(a: _Artefacts) -> list[dict]:
    return a.load(SPROUT_FAST)["rows"]


def r_sprout_fast(a: _Artefacts, args: list[str]) -> str:
    """``trn-sprout-fast``: per recorded sequence (the benchmark's flows summed into one row),
    the ticks, those at which any forecast count differs and the largest difference (block)."""
    rows = _sprout_rows(a)
    bench = [r for r in rows if r["sequence"].startswith("bench")]
    lines = ["| sequences | ticks | ticks with any of the 8 counts different | largest difference of a count, packets |",
             "|---|---:|---:|---:|"]

    def line(label: str, ticks: int, differ: int, worst: int) -> str:
        share = differ / ticks * 100
        return f"| {label} | {ticks:,} | {differ:,} ({share:.{1 if share < 10 else 0}f} %) | {worst} |"

    if bench:
        lines.append(line(f"100-UE benchmark, {len(bench)} flows", sum(r["ticks"] for r in bench),
                          sum(r["ticks_differing"] for r in bench), max(r["max_count_diff_packets"] for r in bench)))
    for r in rows:
        if not r["sequence"].startswith("bench"):
            lines.append(line(r["sequence"], r["ticks"], r["ticks_differing"], r["max_count_diff_packets"]))
    lines += ["", f"`{a.load(SPROUT_FAST)['generated_by'].replace('FILE', SPROUT_FAST)}` re-creates it (seconds)."]
    return "\n".join(lines)


def r_lp_fading(a: _Artefacts, args: list[str]) -> str:
    """``trn-lp-fading rayleigh|none [where]``: the lowest and highest of TCP-LP's throughput over
    CUBIC's over the seeds, in per cent (``53–65 %``); with ``where``, the set-up and the
    command (inline)."""
    fading, *rest = _args(args, 1, "trn-lp-fading", "trn-lp-fading rayleigh|none [where]")
    d = a.load(TCP_LP_FADING)
    if rest and rest[0] == "where":
        seeds = sorted({r["seed"] for r in d["rows"]})
        return (f"one UE at {d['distance_m']:g} m in a 10 MHz cell, {d['secs']:g} s, seeds {seeds[0]}–{seeds[-1]}: "
                f"`{d['generated_by'].replace('FILE', TCP_LP_FADING)}`")
    if rest:
        raise DocgenError(f"renderer 'trn-lp-fading': {rest[0]!r} is not where")
    vals = sorted(r["ratio"] for r in d["rows"] if r["fading"] == fading)
    if not vals:
        kinds = ", ".join(dict.fromkeys(r["fading"] for r in d["rows"]))
        raise DocgenError(f"renderer 'trn-lp-fading': fading {fading!r} is not in {TCP_LP_FADING} ({kinds})")
    lo, hi = f"{vals[0] * 100:.0f}", f"{vals[-1] * 100:.0f}"
    return f"{lo} %" if lo == hi else f"{lo}–{hi} %"


def r_events(a: _Artefacts, args: list[str]) -> str:
    """``trn-events TRANSPORT``: the events of the committed benchmark's 100-UE cell with every
    flow on TRANSPORT (``sprout``, ``verus``, ...) over CUBIC's, ``2.8×`` (inline)."""
    t = _args(args, 1, "trn-events", "trn-events TRANSPORT")[0]
    runs = a.bench["runs"]
    if f"transport-{t}" not in runs:
        known = ", ".join(k.removeprefix("transport-") for k in runs if k.startswith("transport-"))
        raise DocgenError(f"renderer 'trn-events': transport {t!r} is not in the benchmark ({known})")
    return f"{runs[f'transport-{t}']['events'] / runs['single-realistic']['events']:.1f}×"


#: Sprout's model, whose kernel constants the fast inference's description quotes.
SPROUT_MODEL_RS = "crates/transport/src/datagram/sprout/model.rs"


def _f64_const(a: _Artefacts, name: str) -> float:
    """A ``const NAME: f64`` of Sprout's model source in the rendered tree."""
    try:
        text = (a.root / SPROUT_MODEL_RS).read_text()
    except FileNotFoundError:
        raise DocgenError(f"renderer 'trn-kernel-narrowing': {SPROUT_MODEL_RS} not found") from None
    m = re.search(rf"const {name}: f64 = ([0-9.eE+-]+);", text)
    if not m:
        raise DocgenError(f"renderer 'trn-kernel-narrowing': no `const {name}: f64` in {SPROUT_MODEL_RS}")
    return float(m.group(1))


def _truncated_sd(k: float) -> float:
    """The standard deviation of a unit normal truncated to ±k."""
    phi = math.exp(-k * k / 2) / math.sqrt(2 * math.pi)
    return math.sqrt(1 - 2 * k * phi / math.erf(k / math.sqrt(2)))


def r_kernel_narrowing(a: _Artefacts, args: list[str]) -> str:
    """``trn-kernel-narrowing``: how much narrower the fast inference's Brownian kernel is than
    the exact one's, as normals truncated at ±KERNEL_SIGMAS_FAST and ±KERNEL_SIGMAS_EXACT σ
    (the constants of the model's source), ``1.3 %`` (inline)."""
    fast, exact = _f64_const(a, "KERNEL_SIGMAS_FAST"), _f64_const(a, "KERNEL_SIGMAS_EXACT")
    return f"{(1 - _truncated_sd(fast) / _truncated_sd(exact)) * 100:.1f} %"


RENDERERS = {
    "trn-events": (r_events, False),
    "trn-kernel-narrowing": (r_kernel_narrowing, False),
    "trn-lp-fading": (r_lp_fading, False),
    "trn-traces": (r_traces, True),
    "trn-fixed": (r_fixed, True),
    "trn-fixed-value": (r_fixed_value, False),
    "trn-range": (r_range, False),
    "trn-where": (r_where, False),
    "trn-capacity": (r_capacity, False),
    "trn-maxdiff": (r_maxdiff, False),
    "trn-sprout-fast": (r_sprout_fast, True),
}
