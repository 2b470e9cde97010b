"""Renderers of docs/workloads.md (``wkl-*``).

Their artefacts:

- ``tools/data/workload.json`` (``python tools/workload_measure.py --out FILE``): ``cellshare
  calibrate`` of ``scenarios/workload-at-scale.toml`` at three loads and three seeds over 15 and 2
  minutes, the short-run example, and the peak memory of a 15-minute run three ways;
- ``python/cellshare/data/scoreboard.json``: the workload reproductions' sensitivity rows (the
  value at the assumption's default, re-run as the sensitivity runs are, and at each alternative);
- the scenario schema (``cellshare._core.scenario_schema``) for the randomized workload's
  defaults, whose capped gap means the page quotes.
"""
from __future__ import annotations

import json
import math

from ..docgen import DocgenError, _Artefacts, _args, _cell, _format, sens_value
from ..reproduce import fmt

WORKLOAD = "tools/data/workload.json"


def _calibration(a: _Artefacts) -> dict:
    return a.load(WORKLOAD)["calibration"]


def _runs(a: _Artefacts, duration: str, name: str) -> list[dict]:
    runs = _calibration(a)["runs"]
    if duration not in runs:
        raise DocgenError(f"renderer {name!r}: {WORKLOAD} has no calibration over {duration!r} s "
                          f"(durations: {', '.join(runs)})")
    return runs[duration]


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds >= 60 else f"{seconds:g} s"


def _pct1(v: float) -> str:
    return f"{v * 100:.1f}"


def r_calibration(a: _Artefacts, args: list[str]) -> str:
    """``wkl-calibration``: target against achieved PRB utilization per seed, one column group per
    run length, and the spread Poisson arrivals alone give each (block)."""
    c = _calibration(a)
    durations = list(c["runs"])
    seeds = " / ".join(str(s) for s in c["seeds"])
    head = ["target"] + [f"achieved over {_minutes(float(d))}, seeds {seeds}" for d in durations] \
        + [f"expected spread over {_minutes(float(d))}" for d in durations]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for load in c["loads"]:
        cells = [f"{load * 100:g} %"]
        spreads = []
        for d in durations:
            rows = [r for r in c["runs"][d] if r["target"] == load]
            if [r["seed"] for r in rows] != c["seeds"]:
                raise DocgenError(f"renderer 'wkl-calibration': {WORKLOAD} lacks a seed at load {load:g} over {d} s")
            cells.append(" / ".join(_pct1(r["achieved"]) for r in rows) + " %")
            spreads.append(f"±{rows[0]['load_spread'] * 100:.0f} %")
        lines.append("| " + " | ".join(cells + spreads) + " |")
    return "\n".join(lines)


def r_calib_error(a: _Artefacts, args: list[str]) -> str:
    """``wkl-calib-error DURATION``: the largest distance between achieved and target PRB
    utilization over the runs of that length, in points (inline), ``4.3 points``."""
    d = _args(args, 1, "wkl-calib-error", "wkl-calib-error DURATION")[0]
    worst = max(abs(r["error_pp"]) for r in _runs(a, d, "wkl-calib-error"))
    return f"{worst:.1f} points"


def r_calib_above(a: _Artefacts, args: list[str]) -> str:
    """``wkl-calib-above DURATION``: how many of the runs of that length achieve more than their
    target (inline), ``8 of the 9``."""
    d = _args(args, 1, "wkl-calib-above", "wkl-calib-above DURATION")[0]
    rows = _runs(a, d, "wkl-calib-above")
    above = sum(r["error_pp"] > 0 for r in rows)
    return f"all {len(rows)}" if above == len(rows) else f"{above} of the {len(rows)}"


def r_calib_range(a: _Artefacts, args: list[str]) -> str:
    """``wkl-calib-range DURATION``: the lowest and highest achieved − target over the runs of
    that length, in points (inline), ``−12.1 to +1.3 points``."""
    d = _args(args, 1, "wkl-calib-range", "wkl-calib-range DURATION")[0]
    errs = [r["error_pp"] for r in _runs(a, d, "wkl-calib-range")]
    sign = lambda v: f"{v:+.1f}".replace("-", "−")  # noqa: E731
    return f"{sign(min(errs))} to {sign(max(errs))} points"


def r_calib_spread(a: _Artefacts, args: list[str]) -> str:
    """``wkl-calib-spread DURATION LOAD``: the expected one-sigma spread of the generated load over
    a run of that length at that target (inline), ``±7 %``."""
    d, load = _args(args, 2, "wkl-calib-spread", "wkl-calib-spread DURATION LOAD")[:2]
    try:
        target = float(load)
    except ValueError:
        raise DocgenError(f"renderer 'wkl-calib-spread': load {load!r}: expected a number such as 0.6") from None
    rows = [r for r in _runs(a, d, "wkl-calib-spread") if math.isclose(r["target"], target)]
    if not rows:
        raise DocgenError(f"renderer 'wkl-calib-spread': {WORKLOAD} has no run at load {load} over {d} s")
    return f"±{rows[0]['load_spread'] * 100:.0f} %"


def r_calib_short(a: _Artefacts, args: list[str]) -> str:
    """``wkl-calib-short``: the short-run example, the command and what it reports (inline)."""
    s = _calibration(a)["short"]
    scenario = a.load(WORKLOAD)["scenario"]
    return (f"`cellshare calibrate {scenario} --loads {s['target']:g} --duration {s['duration_s']:g}` "
            f"gives ±{s['load_spread'] * 100:.0f} % and warns that the run needs "
            f"{s['duration_for_10pc_s']:.0f} s or more")


def _memory(a: _Artefacts) -> dict:
    return a.load(WORKLOAD)["memory"]


_MEMORY_RUNS = ("runner_workload", "runner_flows", "python_calibrate")


def r_memory(a: _Artefacts, args: list[str]) -> str:
    """``wkl-memory RUN``: the peak RSS of one of the memory runs (inline), ``36 MiB``:
    ``runner_workload`` (the Rust example runner), ``runner_flows`` (the same flows as
    ``[[flows]]`` entries), ``python_calibrate`` (``cellshare calibrate``)."""
    run = _args(args, 1, "wkl-memory", "wkl-memory " + "|".join(_MEMORY_RUNS))[0]
    m = _memory(a)
    if run not in _MEMORY_RUNS or run not in m:
        raise DocgenError(f"renderer 'wkl-memory': run {run!r}: expected one of {', '.join(_MEMORY_RUNS)}")
    return f"{m[run]['peak_mib']:.0f} MiB"


def r_memory_run(a: _Artefacts, args: list[str]) -> str:
    """``wkl-memory-run``: what the memory runs run (inline)."""
    m = _memory(a)
    mc = a.load(WORKLOAD)["machine"]
    length = f"{m['duration_s'] / 60:g}-minute" if m["duration_s"] >= 60 else f"{m['duration_s']:g} s"
    return (f"a {length} run of `{a.load(WORKLOAD)['scenario']}` at {m['load'] * 100:g} % load "
            f"(seed {m['seed']}: {m['workload_flows']:,} workload flows beside its {m['background_flows']} Legilimens "
            f"backgrounds; measured on {mc['cores']} cores, {mc['cpu']})")


def _randomized_defaults() -> dict:
    from .. import _core

    schema = _core.scenario_schema()
    schema = json.loads(schema) if isinstance(schema, str) else schema

    def walk(node):
        if isinstance(node, dict):
            props = node.get("properties", {})
            if props.get("kind", {}).get("enum") == ["randomized"]:
                return props
            for v in node.values():
                found = walk(v)
                if found is not None:
                    return found
        elif isinstance(node, list):
            for v in node:
                found = walk(v)
                if found is not None:
                    return found
        return None

    props = walk(schema)
    if props is None:
        raise DocgenError("renderer 'wkl-gap-mean': the scenario schema has no randomized arrivals")
    return {k: v.get("default") for k, v in props.items()}


def capped_mean(mean: float, cap: float) -> float:
    """The mean of an exponential gap of mean `mean` truncated at `cap`: mean·(1 − e^(−cap/mean))."""
    return mean * (1.0 - math.exp(-cap / mean))


def r_gap_mean(a: _Artefacts, args: list[str]) -> str:
    """``wkl-gap-mean medium|long``: the mean gap of that class of the randomized workload with
    the defaults, its exponential's mean truncated at its cap (inline), ``3.91 s``."""
    cls = _args(args, 1, "wkl-gap-mean", "wkl-gap-mean medium|long")[0]
    if cls not in ("medium", "long"):
        raise DocgenError(f"renderer 'wkl-gap-mean': class {cls!r}: expected medium or long")
    d = _randomized_defaults()
    return f"{fmt(capped_mean(d[f'{cls}_mean_s'], d[f'{cls}_cap_s']))} s"


def _sens_rows(a: _Artefacts, rep: str, claim: str, name: str) -> list[dict]:
    rows = [r for r in a.reproduction(rep).get("sensitivity", []) if r["claim"] == claim]
    if not rows:
        raise DocgenError(f"renderer {name!r}: {rep} has no sensitivity rows for claim {claim!r}")
    return rows


def _label(text: str) -> str:
    return text.replace("_", " ")


def r_sens_table(a: _Artefacts, args: list[str]) -> str:
    """``wkl-sens-table REP CLAIM[=Label] ...``: the claims' values at the assumptions' defaults
    and in each sensitivity run, one column per run (block). A claim with a value per key gives
    a heading row with its label, then a row per key; columns are the sensitivity rows of the
    first claim."""
    rep, *claims = _args(args, 2, "wkl-sens-table", "wkl-sens-table REP CLAIM[=Label] ...")
    specs = [(c.partition("=")[0], _label(c.partition("=")[2]) or c.partition("=")[0]) for c in claims]
    first = _sens_rows(a, rep, specs[0][0], "wkl-sens-table")
    columns = [(r["assumption"], r["value"]) for r in first]
    e = a.reproduction(rep)
    head = ["", "default"] + [f"`{n}` = {json.dumps(v) if isinstance(v, list) else v}" for n, v in columns]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for cid, label in specs:
        rows = {(r["assumption"], json.dumps(r["value"])): r for r in _sens_rows(a, rep, cid, "wkl-sens-table")}
        picked = []
        for n, v in columns:
            if (n, json.dumps(v)) not in rows:
                raise DocgenError(f"renderer 'wkl-sens-table': {rep} has no sensitivity row {n} = {v} for {cid!r}")
            picked.append(rows[(n, json.dumps(v))])
        default = picked[0]["ours_default"]
        if isinstance(default, dict):
            lines.append("| " + " | ".join([f"**{_cell(label)}:**"] + [""] * (len(head) - 1)) + " |")
            for key in default:
                lines.append("| " + " | ".join([_cell(key), fmt(default[key])]
                                               + [fmt(r["ours"].get(key)) for r in picked]) + " |")
        else:
            lines.append("| " + " | ".join([_cell(label), fmt(default)] + [fmt(r["ours"]) for r in picked]) + " |")
    lines += ["", f"Each column is one set of runs: {_cell(e.get('sensitivity_seeds', ''))}."]
    return "\n".join(lines)


def r_sens_default(a: _Artefacts, args: list[str]) -> str:
    """``wkl-sens-default REP ASSUMPTION=VALUE CLAIM[KEY] [pct|x|s|ms]``: a claim's value at the
    assumption's default, as the sensitivity run beside that value re-ran it (inline)."""
    rep, setting, claim, *how = _args(args, 3, "wkl-sens-default",
                                      "wkl-sens-default REP ASSUMPTION=VALUE CLAIM[KEY] [pct|x|s|ms]")
    return _format(sens_value(a, rep, setting, claim, "wkl-sens-default", field="ours_default"), how[0] if how else "")


def r_detail(a: _Artefacts, args: list[str]) -> str:
    """``wkl-detail REP ID``: what the scoreboard says beside a claim's value (inline), e.g. the
    two byte counts behind a ratio, ``1.055 vs 0.990 GB``."""
    rep, ident = _args(args, 2, "wkl-detail", "wkl-detail REP ID")[:2]
    c = a.result(rep, ident)
    if not c.get("detail"):
        raise DocgenError(f"renderer 'wkl-detail': {rep}/{ident} has no detail")
    return c["detail"]


def r_shortfall(a: _Artefacts, args: list[str]) -> str:
    """``wkl-shortfall REP A B``: 1 − A / B for two claims or observations of a reproduction, as a
    percentage (inline), ``4 %``."""
    rep, x, y = _args(args, 3, "wkl-shortfall", "wkl-shortfall REP ID ID")[:3]
    vx, vy = a.result(rep, x)["ours"], a.result(rep, y)["ours"]
    if not all(isinstance(v, (int, float)) for v in (vx, vy)) or not vy:
        raise DocgenError(f"renderer 'wkl-shortfall': {rep}/{x} and {rep}/{y} must be single nonzero values")
    return f"{(1 - vx / vy) * 100:.0f} %"


RENDERERS = {
    "wkl-calibration": (r_calibration, True),
    "wkl-calib-error": (r_calib_error, False),
    "wkl-calib-above": (r_calib_above, False),
    "wkl-calib-range": (r_calib_range, False),
    "wkl-calib-spread": (r_calib_spread, False),
    "wkl-calib-short": (r_calib_short, False),
    "wkl-memory": (r_memory, False),
    "wkl-memory-run": (r_memory_run, False),
    "wkl-gap-mean": (r_gap_mean, False),
    "wkl-sens-table": (r_sens_table, True),
    "wkl-sens-default": (r_sens_default, False),
    "wkl-detail": (r_detail, False),
    "wkl-shortfall": (r_shortfall, False),
}
