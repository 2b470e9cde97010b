"""`legilimens-ablation`: what each rule the simulator's Legilimens adds where the paper
is silent does to the Legilimens claims ([legilimens] Sec. V-D Fig. 7, Sec. VI-D Fig. 14).

The controller's `additions` table (crates/transport/src/cc/legilimens.rs) names every such
rule; `as_printed = true` switches them all off: Algorithm 1 and Fig. 6 as printed. This
reproduction runs the set-ups whose claims the scoreboard judges — `legilimens-onoff`'s
Figure 7 pair (claims `yields`, `foreground-unharmed`, `uses-spare`) and
`legilimens-fairness`'s Figure 14 staggered flows (`jain-2`, `jain-3`, `jain-4`), each with
that reproduction's assumed parameters and run length — once per variant:

- `as-printed`: every addition off;
- `default`: every addition on (the reproductions' controller; its values are theirs);
- `without-<addition>`: the default with that one addition off;
- `printed+<addition>`: the as-printed controller with that one addition on.

Each variant's values and verdicts (by the claims' own targets) are observations, not
claims. For every claim that holds with the default but not as printed, the additions it
needs are computed from these runs and recorded as an observation
`needs:<reproduction>:<claim>`, which the scoreboard prints beside that claim's verdict:
the additions whose removal alone makes it miss ("holds only with: a, b"); if no single
removal does, those that alone make the as-printed controller hold it ("holds only with one
of: a, b"); if none does either, the additions together.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import Context, _judge, experiment, jain
from ..api import Result
from .legilimens import (ADDITIONS, BACKOFF, FAIRNESS_CLAIMS, FG_START, FIG7_DISTANCE, LAST_PERIOD, ON, ONOFF,
                         ONOFF_CLAIMS, PAPER, QUEUE, DISTANCE, _onoff_metrics, _onoff_scenario, bytes_between,
                         fairness_scenario, fig14_period)

#: The judged claims measured here: (reproduction, claim id) → its definition.
ONOFF_JUDGED = ("yields", "foreground-unharmed", "uses-spare")
FAIRNESS_JUDGED = ("jain-2", "jain-3", "jain-4")
CLAIM_DEFS = {**{("legilimens-onoff", c.id): c for c in ONOFF_CLAIMS if c.id in ONOFF_JUDGED},
              **{("legilimens-fairness", c.id): c for c in FAIRNESS_CLAIMS if c.id in FAIRNESS_JUDGED}}
#: The prefix of the observations that carry, per claim, the additions it needs.
NEEDS_PREFIX = "needs:"


def variants(single_printed: bool = True) -> dict[str, dict]:
    """Variant label → the Legilimens keys it sets (beyond `kind` and the back-off cap)."""
    out: dict[str, dict] = {"as-printed": {"as_printed": True}, "default": {}}
    out.update({f"without-{a}": {"additions": {a: False}} for a in ADDITIONS})
    if single_printed:
        out.update({f"printed+{a}": {"as_printed": True, "additions": {a: True}} for a in ADDITIONS})
    return out


def needs(holds: dict[str, dict[Any, bool]], claims) -> dict[Any, tuple[str, list[str]]]:
    """Per claim that holds with `default` but not `as-printed` (`holds`: variant label →
    claim → verdict): `(how, additions)`, `how` one of "only" (each listed addition's removal
    alone makes it miss), "one of" (each listed one alone makes the as-printed controller
    hold it) and "together" (neither: the additions in combination, all listed)."""
    out = {}
    for c in claims:
        if not holds["default"][c] or holds["as-printed"][c]:
            continue
        necessary = [a for a in ADDITIONS if not holds[f"without-{a}"][c]]
        if necessary:
            out[c] = ("only", necessary)
            continue
        sufficient = [a for a in ADDITIONS if holds.get(f"printed+{a}", {}).get(c)]
        out[c] = ("one of", sufficient) if sufficient else ("together", list(ADDITIONS))
    return out


def needs_text(how: str, names: list[str]) -> str:
    """The phrase the scoreboard prints beside a verdict."""
    if how == "only":
        return "holds only with: " + ", ".join(names)
    if how == "one of":
        return "holds only with one of: " + ", ".join(names)
    return "holds only with the additions together (none alone is necessary or sufficient)"


def _onoff_keep(result: Result) -> dict:
    """What a worker keeps of an on/off run: the two flows' per-second series and bytes."""
    return {f: {"per_second_mbps": result.flow(f)["per_second_mbps"],
                "bytes_delivered": result.flow(f)["bytes_delivered"],
                "trace": {"t_s": result.flow(f)["trace"]["t_s"], "mbps": result.flow(f)["trace"]["mbps"]}}
            for f in ("background", "foreground") if any(x["name"] == f for x in result.raw["flows"])}


def _fairness_keep(result: Result) -> dict:
    return {f["name"]: {"trace": {"t_s": f["trace"]["t_s"], "mbps": f["trace"]["mbps"]}} for f in result.raw["flows"]}


class _Kept:
    """A kept run read like a :class:`Result` by the reproductions' metric functions."""

    def __init__(self, flows: dict) -> None:
        self.flows = flows

    def flow(self, name: str) -> dict:
        return self.flows[name]


def onoff_duration(ctx: Context) -> float:
    """`legilimens-onoff`'s run length (quick: 3 on/off cycles, full: 6)."""
    return FG_START + (6 if ctx.full else 3) * 2 * float(ONOFF.value)


@experiment("legilimens-ablation", "Legilimens as printed, and what each added rule does (Fig. 7, Fig. 14)",
            f"{PAPER} Sec. V-D Fig. 7, Sec. VI-D Fig. 14",
            # The reproductions' assumptions, without their alternatives: they re-run those reproductions.
            assumptions=tuple(replace(a, alternatives=(), affects=()) for a in (BACKOFF, FIG7_DISTANCE, ONOFF, QUEUE, LAST_PERIOD)))
def run_ablation(ctx: Context) -> None:
    ablate(ctx, onoff_duration(ctx), float(ctx.param("last_period_s")), variants())


def ablate(ctx: Context, duration: float, last_period: float, table: dict[str, dict], fairness: bool = True) -> dict:
    """Runs the Figure 7 pair (`duration` s) and, with `fairness`, the Figure 14 staggered
    flows (`last_period` s with all four) for every variant of `table`; records the
    observations (the needs only when `table` has the as-printed, default and every
    single-addition-off variant) and the report; returns `{variant: {claim: (value, verdict)}}`."""
    backoff = int(ctx.param("max_backoff_exp"))
    q = int(ctx.param("rlc_queue_bytes"))
    on_s = float(ctx.param("on_off_s"))
    fig7 = {"kind": "radio", "distance_m": float(ctx.param("distance_m")), "layers": 2, "fading": "none"}
    fig14 = {"kind": "radio", "distance_m": float(DISTANCE.value), "layers": 2, "fading": "none"}

    def cc(keys: dict) -> dict:
        return {"kind": "legilimens", "max_backoff_exp": backoff, **keys}

    onoff_items = [("cubic-alone", _onoff_scenario("cubic-alone", None, duration, channel=fig7, on=on_s,
                                                   rlc_queue_bytes=q))]
    onoff_items += [(f"onoff-{v}", _onoff_scenario(f"onoff-{v}", cc(k), duration, channel=fig7, on=on_s,
                                                   rlc_queue_bytes=q)) for v, k in table.items()]
    fair_items = [(f"fairness-{v}", fairness_scenario(4, 20.0, last_period, cc(k), fig14)[0]) for v, k in table.items()]
    kept_onoff = ctx.run_many(onoff_items, keep=_onoff_keep)
    kept_fair = ctx.run_many(fair_items, keep=_fairness_keep) if fairness else [None] * len(table)
    alone = _Kept(kept_onoff[0])
    fair_duration = 60.0 + last_period

    results: dict[str, dict] = {}
    for (v, _), on_run, fair_run in zip(table.items(), kept_onoff[1:], kept_fair):
        m = _onoff_metrics(_Kept(on_run), alone, duration, on_s)
        values = {("legilimens-onoff", "yields"): m["bg_share_on"],
                  ("legilimens-onoff", "foreground-unharmed"): m["fg_ratio_on"],
                  ("legilimens-onoff", "uses-spare"): m["bg_off_ratio"]}
        if fair_run is not None:
            r = _Kept(fair_run)
            for n in (2, 3, 4):
                a, b = fig14_period(n, fair_duration)
                values[("legilimens-fairness", f"jain-{n}")] = jain([bytes_between(r, f"leg{i}", a, b)
                                                                     for i in range(n)])
        results[v] = {c: (x, _judge(CLAIM_DEFS[c].target, x)[0]) for c, x in values.items()}

    claims = [c for c in CLAIM_DEFS if c in next(iter(results.values()))]
    for v, row in results.items():
        ctx.observe(f"variant:{v}", f"{v}: the claims' values (verdicts)",
                    ", ".join(f"{cid} {row[(rep, cid)][0]:.3g} ({row[(rep, cid)][1]})" for rep, cid in claims))
    holds = {v: {c: verdict == "holds" for c, (_, verdict) in row.items()} for v, row in results.items()}
    if {"as-printed", "default", *(f"without-{a}" for a in ADDITIONS)} <= set(holds):
        for (rep, cid), (how, names) in needs(holds, claims).items():
            ctx.observe(f"{NEEDS_PREFIX}{rep}:{cid}", f"{rep} `{cid}` holds with the default, misses as printed; "
                        "the additions it needs", needs_text(how, names))

    head = "| variant | " + " | ".join(f"{rep.removeprefix('legilimens-')} `{cid}`" for rep, cid in claims) + " |"
    lines = [head, "|---" * (len(claims) + 1) + "|"]
    for v, row in results.items():
        lines.append(f"| {v} | " + " | ".join(f"{row[c][0]:.3f} ({row[c][1]})" for c in claims) + " |")
    (ctx.out / "ablation.md").write_text(
        "Values and verdicts of the judged Legilimens claims per variant (targets as in legilimens-onoff and "
        "legilimens-fairness).\n\n" + "\n".join(lines) + "\n")
    return results
