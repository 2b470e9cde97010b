"""Renderers of the mechanism pages: ``docs/limits.md`` (the memory estimator's refusals, the
running guard's error, what validating costs), ``docs/reproductions.md`` (the tolerance rule's
worked example), ``docs/rtac-sorpc-dtpa.md`` (how long the reproductions take), and the
Legilimens, Sneaker and BoDe pages. Every renderer is named ``mech-*``.

Two kinds of numbers:

- what cellshare's code computes, deterministically and cheaply, is computed when the page is
  rendered: the memory estimate of the scenarios :data:`REFUSED` (``mech-estimate``), read off
  the validator exactly as ``cellshare validate`` states it;
- what a run measured on a machine (resident memory) is read from
  ``tools/data/mech-limits.json``, written by ``python tools/mech_limits.py --out
  tools/data/mech-limits.json`` from the scenarios of this module (:data:`GUARD`,
  :data:`VALIDATED`), and from ``tools/data/memory.json`` and the scoreboard. The artefact
  stores the SHA-256 of each scenario it ran: a scenario changed here without re-running
  the tool is a :class:`DocgenError`, not a stale number.
"""
from __future__ import annotations

import hashlib
import re
import tomllib

from ..docgen import MEMORY, SCOREBOARD, DocgenError, _args, _Artefacts, _format, _rust_const  # noqa: F401

#: The artefact of ``tools/mech_limits.py``.
MECH_LIMITS = "tools/data/mech-limits.json"
MECH_LIMITS_COMMAND = "python tools/mech_limits.py --out tools/data/mech-limits.json"

#: 1,000 UEs loading pages of 10,000 objects over 32 connections, one after another: 64,000 legs.
WEB = """[simulation]
duration_s = 30
[[ues]]
count = 1000
channel = { kind = "fixed", rate_mbps = 10 }
[[flows]]
ues = "all"
transport = { kind = "tcp" }
app = { kind = "web", connections = 32, pages = 0, reading_s = 0, page = { kind = "fixed", main_bytes = 1000, objects = 10000, object_bytes = 1000 } }
"""

#: 10,000 fixed UEs with TCP and 1 ms traces for 4 s: 80 million samples.
TRACES = """[simulation]
duration_s = 4
trace_interval_ms = 1
[[ues]]
count = 10000
channel = { kind = "fixed", rate_mbps = 10 }
[[flows]]
ues = "all"
transport = { kind = "tcp" }
"""

#: 10,000 UEs and 100 `ues = "all"` entries: a file of a few kilobytes asking for a million flows.
FLOWS = """[simulation]
duration_s = 30
[[ues]]
count = 10000
channel = { kind = "fixed", rate_mbps = 10 }
""" + """[[flows]]
ues = "all"
transport = { kind = "tcp" }
""" * 100

#: The scenarios the page says the estimate refuses under the default limit.
REFUSED = {"web": WEB, "traces": TRACES, "flows": FLOWS}

#: The scenarios whose `cellshare validate` peak the page quotes.
VALIDATED = {"web": WEB, "traces": TRACES}

#: A Poisson workload of 10 KB flows at 90 % load for 10 minutes: the estimate does not count
#: a Poisson workload's arrivals, so the run is accepted and the running guard stops it.
GUARD = """[simulation]
duration_s = 600
trace_interval_ms = 0
[[ues]]
count = 100
channel = { kind = "fixed", rate_mbps = 10 }
[workload]
transport = { kind = "tcp" }
arrivals = { kind = "poisson", load = 0.9, mix = [{ category = "short", bytes = 10000, share = 1.0 }] }
"""
#: The memory limit the guard's example runs under, MiB.
GUARD_LIMIT_MB = 400


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _key(table: dict, key: str, name: str) -> str:
    if key not in table:
        raise DocgenError(f"renderer {name!r}: got scenario {key!r}, expected one of {', '.join(table)}")
    return table[key]


def estimate_mib(text: str, root) -> int:
    """The memory the validator estimates for the scenario `text`, MiB (read off its refusal
    under a 1 MiB limit: the figure `cellshare validate` prints)."""
    from .. import _core, api

    try:
        api.validate(tomllib.loads(text), base_dir=root, limits={"max_memory_mb": 1})
    except _core.ScenarioInvalid as e:
        m = re.search(r"estimated ([0-9,]+) MiB", str(e))
        if m:
            return int(m.group(1).replace(",", ""))
        raise DocgenError(f"the validator refused the scenario without an estimate: {e}") from None
    raise DocgenError("the validator accepted a run under a 1 MiB memory limit")


def r_estimate(a: _Artefacts, args: list[str]) -> str:
    """``mech-estimate web|traces|flows``: what the estimator says of one of :data:`REFUSED`,
    which must be above the default limit (the page says it is refused) (inline)."""
    key = _args(args, 1, "mech-estimate", f"mech-estimate {'|'.join(REFUSED)}")[0]
    est = estimate_mib(_key(REFUSED, key, "mech-estimate"), a.root)
    limit = _rust_const(a.root, "MAX_MEMORY_MB")
    if est <= limit:
        raise DocgenError(f"renderer 'mech-estimate': scenario {key!r} is estimated at {est:,} MiB, within the "
                          f"default limit of {limit:,} MiB: the page says it is refused")
    return f"{est:,} MiB"


def _measured(a: _Artefacts) -> dict:
    d = a.load(MECH_LIMITS)
    want = {"guard": sha256(GUARD), **{f"validate-{k}": sha256(t) for k, t in VALIDATED.items()}}
    for k, h in want.items():
        if d.get("scenarios", {}).get(k) != h:
            raise DocgenError(f"{MECH_LIMITS} was measured on another scenario {k!r} than "
                              f"cellshare.docpages.mechanisms holds (rerun `{MECH_LIMITS_COMMAND}`)")
    return d


def r_guard_error(a: _Artefacts, args: list[str]) -> str:
    """``mech-guard-error``: the one-line error of the guard's example run (block)."""
    _args(args, 0, "mech-guard-error", "mech-guard-error")
    g = _measured(a)["guard"]
    if g["rc"] != 2 or not g["stderr"].startswith("error:") or len(g["stderr"].strip().splitlines()) != 1:
        raise DocgenError(f"renderer 'mech-guard-error': {MECH_LIMITS}'s guard run exited {g['rc']} with "
                          f"{g['stderr'][:200]!r}, expected exit 2 and one error line")
    return f"```text\n{g['stderr'].strip()}\n```"


def r_guard(a: _Artefacts, args: list[str]) -> str:
    """``mech-guard peak|limit|at``: the guard run's peak resident memory, its limit, or the
    simulated time it was stopped at (inline)."""
    what = _args(args, 1, "mech-guard", "mech-guard peak|limit|at")[0]
    g = _measured(a)["guard"]
    if what == "peak":
        return f"{g['peak_mib']:,.0f} MiB"
    if what == "limit":
        return f"{g['limit_mb']:,} MiB"
    if what == "at":
        m = re.search(r"resident at ([0-9.]+) s of", g["stderr"])
        if not m:
            raise DocgenError(f"renderer 'mech-guard': {MECH_LIMITS}'s guard error names no time: {g['stderr'][:200]!r}")
        return f"{float(m.group(1)):.0f} s"
    raise DocgenError(f"renderer 'mech-guard': got {what!r}, expected peak, limit or at")


def r_validate_peak(a: _Artefacts, args: list[str]) -> str:
    """``mech-validate-peak web|traces``: peak resident memory of `cellshare validate` (inline)."""
    key = _args(args, 1, "mech-validate-peak", f"mech-validate-peak {'|'.join(VALIDATED)}")[0]
    _key(VALIDATED, key, "mech-validate-peak")
    return f"{_measured(a)['validate'][key]['peak_mib']:,.0f} MiB"


def r_process_peak(a: _Artefacts, args: list[str]) -> str:
    """``mech-process-peak``: peak resident memory of a fresh interpreter that imported
    cellshare's command line and pyarrow (inline)."""
    _args(args, 0, "mech-process-peak", "mech-process-peak")
    return f"{_measured(a)['process']['peak_mib']:,.0f} MiB"


def r_memory_case(a: _Artefacts, args: list[str]) -> str:
    """``mech-memory-case estimated|peak LABEL…``: one value of the memory table's row whose
    label starts with LABEL (one case) (inline)."""
    what, *label = _args(args, 2, "mech-memory-case", "mech-memory-case estimated|peak LABEL…")
    if what not in ("estimated", "peak"):
        raise DocgenError(f"renderer 'mech-memory-case': got {what!r}, expected estimated or peak")
    prefix = " ".join(label)
    rows = [r for r in a.load(MEMORY)["rows"] if r["label"].startswith(prefix)]
    if len(rows) != 1 or len(rows[0]["cases"]) != 1:
        raise DocgenError(f"renderer 'mech-memory-case': {len(rows)} rows of {MEMORY} start with {prefix!r}, "
                          "expected one with one case")
    c = rows[0]["cases"][0]
    return f"{c['estimated_mib']:,} MiB" if what == "estimated" else f"{c['peak_mib']:,.0f} MiB"


def r_mirror(a: _Artefacts, args: list[str]) -> str:
    """``mech-mirror REP ID``: the value as far below the paper's point value as the claim's
    is above it, or as far above as it is below (paper² / ours), as ``N×``: the value the
    point tolerance, symmetric in the logarithm, judges as it judges ours. An error when
    the claim is no point value or holds (the page's example is of a miss) (inline)."""
    rep, ident = _args(args, 2, "mech-mirror", "mech-mirror REP ID")[:2]
    c = a.result(rep, ident)
    t, ours = c.get("target", {}), c["ours"]
    if t.get("kind") != "point" or not isinstance(ours, (int, float)) or ours <= 0 or t["value"] <= 0:
        raise DocgenError(f"renderer 'mech-mirror': {rep}/{ident} is {ours!r} against a {t.get('kind')} target, "
                          "expected a positive value against a positive point value")
    if c.get("verdict") != "misses":
        raise DocgenError(f"renderer 'mech-mirror': {rep}/{ident} = {ours:.3g} holds against {t['value']:g}: "
                          "the page's example is of a miss")
    return _format(t["value"] ** 2 / ours, "x")


def r_wall(a: _Artefacts, args: list[str]) -> str:
    """``mech-wall REP``: the wall time of a reproduction's full run behind the scoreboard
    (inline); an error when the scoreboard holds a quick run of it."""
    rep = _args(args, 1, "mech-wall", "mech-wall REP")[0]
    e = a.reproduction(rep)
    if not e.get("full"):
        raise DocgenError(f"renderer 'mech-wall': {SCOREBOARD} holds a quick run of {rep}, the page quotes the full one")
    if "wall_s" not in e:
        raise DocgenError(f"renderer 'mech-wall': {rep} has no wall_s in {SCOREBOARD}")
    return f"{e['wall_s']:.0f} s"



def trace_gaps(path, over_ms: int) -> tuple[float, float]:
    """The gaps between a Mahimahi trace's distinct delivery opportunities that are longer
    than `over_ms`: (how many per second of the trace, the share of its period they span)."""
    ts = sorted({int(line) for line in path.read_text().split() if line})
    if len(ts) < 2 or ts[-1] <= 0:
        raise DocgenError(f"{path.name}: expected a Mahimahi trace of two timestamps or more")
    gaps = [b - a for a, b in zip(ts, ts[1:]) if b - a > over_ms]
    return len(gaps) / (ts[-1] / 1000), sum(gaps) / ts[-1]


def r_trace_gaps(a: _Artefacts, args: list[str]) -> str:
    """``mech-trace-gaps TRACE MS rate|share``: of the shipped trace TRACE (``NAME.down``, as
    :func:`cellshare.traces.path` finds it), the gaps between opportunities longer than MS ms,
    per second of the trace (``6.8``) or as the share of its time (``40 %``) (inline)."""
    from .. import traces

    name, ms, what = _args(args, 3, "mech-trace-gaps", "mech-trace-gaps TRACE MS rate|share")[:3]
    if not ms.isdigit():
        raise DocgenError(f"renderer 'mech-trace-gaps': MS is {ms!r}, expected a whole number of milliseconds")
    if what not in ("rate", "share"):
        raise DocgenError(f"renderer 'mech-trace-gaps': got {what!r}, expected rate or share")
    try:
        path = traces.path(name)
    except KeyError as e:
        raise DocgenError(f"renderer 'mech-trace-gaps': {e.args[0]}") from None
    rate, share = trace_gaps(path, int(ms))
    return f"{rate:.1f}" if what == "rate" else _format(share, "pct")



RENDERERS = {
    "mech-estimate": (r_estimate, False),
    "mech-guard-error": (r_guard_error, True),
    "mech-guard": (r_guard, False),
    "mech-validate-peak": (r_validate_peak, False),
    "mech-process-peak": (r_process_peak, False),
    "mech-memory-case": (r_memory_case, False),
    "mech-mirror": (r_mirror, False),
    "mech-wall": (r_wall, False),
    "mech-trace-gaps": (r_trace_gaps, False),
}
