"""Why each claim that misses misses: the one place the causes are kept, as templates whose
every number is read from the scoreboard's stored results when the scoreboard is rendered.

Keyed ``"<reproduction>/<claim id>"``. A :class:`Cause` is a category (:data:`CATEGORIES`)
and a text in which every number is a **reference** in braces, resolved against the
scoreboard (``python/cellshare/data/scoreboard.json``) each time it is rendered, so a cause
cannot go stale:

- ``{ours:REP/CLAIM}``: a claim's measured value (``{ours:REP/CLAIM[KEY]}``: one entry of a
  value per scheme); ``{paper:REP/CLAIM}``: the paper's value as the claim states it;
  ``{detail:REP/CLAIM}``: the claim's measured detail (per trace, per controller, ...);
- ``{obs:REP/ID}`` (``[KEY]`` as above): an observation's value;
- ``{sens:REP/ASSUMPTION=VALUE/CLAIM}`` (``[KEY]`` as above): the claim in the sensitivity
  run at that value of an assumed parameter, rendered with the value and its verdict
  ("0.876 at `ap_buffer_bytes` = 150000, holds"); ``{default:REP/ASSUMPTION}``: the
  parameter's value in the scoreboard's runs;
- ``{quick:REP/CLAIM}`` (``[KEY]`` as above): the claim's value in the sensitivity's default
  row, which re-runs the reproduction in quick mode with its first seed (shorter runs than a
  full scoreboard's): what a claim measures over the quick runs' durations;
- ``{ns3:FILE#CASE/PATH}``: a number of the stored ns-3 cross-check data
  (``tools/data/FILE`` of the source tree: in a ``.jsonl`` file the row whose ``case`` is
  CASE, in a ``.json`` file the row of ``rows`` whose ``label`` joined by commas is CASE;
  PATH a dotted path into it).

Rendering fails (:class:`CauseError`) when a reference names nothing, and the category is
checked against the references where the rule is mechanical (:func:`check`): "set-up not
given" needs a referenced sensitivity row of the same claim where it holds; "paper's own
evidence differs" a number of the paper's own simulator (``ns3``) or of its own analysis (an
observation whose id starts with ``eq-``: the paper's equation evaluated on our set-up);
every category but "not explained" at least one reference. The literal text carries no
number (tests/test_causes.py states the rule). After the simulator changes, regenerate the
scoreboard (``cellshare reproduce --all --full --update-docs``); a cause whose reference or category
no longer fits fails the tests, and ``cellshare reproduce --render-docs`` re-renders the rest.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

#: The categories of cause, and what each means.
CATEGORIES = {
    "model gap": "the simulator lacks something the paper's network has (named), shown by a measurement",
    "set-up not given": "the paper does not give a parameter the result rests on, and at another plausible value of it "
                        "(a sensitivity row of the scoreboard, referenced) the claim holds",
    "set-up substituted": "the reproduction runs a different set-up than the paper's (named: traces, workload), for "
                          "availability or cost; the measurement shows what the paper's set-up gives",
    "paper's own evidence differs": "the paper's own simulator (ns-3's stored cross-check data, referenced) or its own "
                                    "analysis (its equation evaluated on our set-up, an observation) gives what we "
                                    "measure, not the paper's number",
    "paper's model is idealised": "the paper's number follows from its analytical model, and the protocol it models "
                                  "measurably departs from that model (named)",
    "simulator bug": "a defect in cellshare, reported, not fixed by the reproduction",
    "not explained": "measured, with what was tried, but no run of the scoreboard isolates the cause yet",
    "holds for another reason": "the claim holds, but a measurement shows it is not for the paper's reason",
}

#: A reference in a cause's text: ``{kind:argument}``.
REF = re.compile(r"\{(ours|paper|detail|obs|sens|quick|default|ns3):([^{}]+)\}")
#: Where the ns-3 cross-check data is kept, relative to the source tree.
NS3_DATA = Path("tools") / "data"


class CauseError(ValueError):
    """A cause's reference names nothing in the scoreboard, or its category contradicts its
    references."""


@dataclass(frozen=True)
class Cause:
    category: str
    text: str

    def references(self) -> list[tuple[str, str]]:
        """The (kind, argument) of every reference in the text, in order."""
        return REF.findall(self.text)

    def literal(self) -> str:
        """The text with every reference cut out: what is typed in, not read from a run."""
        return REF.sub("", self.text)


def _num(v: Any) -> str:
    from . import fmt

    return fmt(v)


def _split_key(arg: str) -> tuple[str, Optional[str]]:
    m = re.fullmatch(r"(.*)\[([^\[\]]+)\]", arg)
    return (m.group(1), m.group(2)) if m else (arg, None)


def _pick(value: Any, key: Optional[str], where: str) -> Any:
    if key is None:
        return value
    if not isinstance(value, dict) or key not in value:
        raise CauseError(f"{where}: no entry [{key}] in {value!r}")
    return value[key]


class Resolver:
    """Resolves references against a scoreboard (as in scoreboard.json) and the ns-3 data
    of `data_root` (the source tree; None: ns-3 references fail)."""

    def __init__(self, board: dict, data_root: Optional[Path] = None) -> None:
        self.entries = {e["name"]: e for e in board["reproductions"]}
        self.data_root = data_root
        self._ns3: dict[str, Any] = {}

    def _entry(self, rep: str, where: str) -> dict:
        if rep not in self.entries:
            raise CauseError(f"{where}: no reproduction {rep!r} in the scoreboard")
        return self.entries[rep]

    def _claim(self, arg: str, where: str) -> tuple[dict, Optional[str]]:
        path, key = _split_key(arg)
        rep, _, cid = path.partition("/")
        e = self._entry(rep, where)
        for c in e["claims"]:
            if c["id"] == cid:
                return c, key
        raise CauseError(f"{where}: {rep} has no claim {cid!r}")

    def sens_row(self, arg: str, where: str) -> tuple[dict, Optional[str]]:
        path, key = _split_key(arg)
        rep, _, rest = path.partition("/")
        setting, _, cid = rest.rpartition("/")
        name, eq, value = setting.partition("=")
        if not eq:
            raise CauseError(f"{where}: a sensitivity reference is REP/ASSUMPTION=VALUE/CLAIM, got {arg!r}")
        e = self._entry(rep, where)
        for r in e["sensitivity"]:
            if r["assumption"] == name and str(r["value"]) == value and r["claim"] == cid:
                return r, key
        raise CauseError(f"{where}: {rep} has no sensitivity row {name} = {value} for claim {cid!r}")

    def ns3_value(self, arg: str, where: str) -> Any:
        if self.data_root is None:
            raise CauseError(f"{where}: ns-3 data needs the source tree ({NS3_DATA}/)")
        file, _, rest = arg.partition("#")
        case, _, path = rest.rpartition("/")
        if file not in self._ns3:
            p = self.data_root / NS3_DATA / file
            if not p.is_file():
                raise CauseError(f"{where}: no ns-3 data file {p}")
            text = p.read_text()
            if file.endswith(".jsonl"):
                # ns-3's runs write NaN for quantities without samples.
                rows = [json.loads(line) for line in text.splitlines() if line.strip()]
                self._ns3[file] = {r["case"]: r for r in rows}
            else:
                self._ns3[file] = {",".join(r["label"]): r for r in json.loads(text)["rows"]}
        rows = self._ns3[file]
        if case not in rows:
            raise CauseError(f"{where}: {file} has no case {case!r}")
        v: Any = rows[case]
        for part in path.split("."):
            if not isinstance(v, dict) or part not in v:
                raise CauseError(f"{where}: {file}#{case} has no {path!r}")
            v = v[part]
        if not isinstance(v, (int, float)) or v != v:
            raise CauseError(f"{where}: {file}#{case}/{path} is not a number ({v!r})")
        return v

    def value(self, kind: str, arg: str, where: str) -> str:
        """The text a reference renders to."""
        if kind == "ours":
            c, key = self._claim(arg, where)
            return _num(_pick(c["ours"], key, where))
        if kind == "paper":
            c, key = self._claim(arg, where)
            return c["target"]["paper"]
        if kind == "detail":
            c, _ = self._claim(arg, where)
            if not c["detail"]:
                raise CauseError(f"{where}: claim {arg!r} has no detail")
            return c["detail"]
        if kind == "obs":
            path, key = _split_key(arg)
            rep, _, oid = path.partition("/")
            e = self._entry(rep, where)
            for o in e["observations"]:
                if o["id"] == oid:
                    return _num(_pick(o["ours"], key, where))
            raise CauseError(f"{where}: {rep} has no observation {oid!r}")
        if kind == "sens":
            r, key = self.sens_row(arg, where)
            verdict = r["verdict"] if key is None else ""
            return (f"{_num(_pick(r['ours'], key, where))} at `{r['assumption']}` = {r['value']}"
                    + (f", {verdict}" if verdict else ""))
        if kind == "quick":
            path, key = _split_key(arg)
            rep, _, cid = path.partition("/")
            e = self._entry(rep, where)
            for r in e["sensitivity"]:
                if r["claim"] == cid:
                    return _num(_pick(r["ours_default"], key, where))
            raise CauseError(f"{where}: {rep} has no sensitivity row for claim {cid!r} (its quick-mode default)")
        if kind == "default":
            rep, _, name = arg.partition("/")
            e = self._entry(rep, where)
            for a in e["assumptions"]:
                if a["name"] == name:
                    return f"`{name}` = {a['value']}"
            raise CauseError(f"{where}: {rep} has no assumption {name!r}")
        if kind == "ns3":
            return _num(float(self.ns3_value(arg, where)))
        raise CauseError(f"{where}: unknown reference kind {kind!r}")

    def render(self, key: str, cause: Cause) -> str:
        """The cause's text with every reference replaced by what the scoreboard holds."""
        return REF.sub(lambda m: self.value(m.group(1), m.group(2), key), cause.text)

    def check(self, key: str, cause: Cause) -> None:
        """Raises :class:`CauseError` when the category contradicts the references (where
        the rule is mechanical)."""
        rep, _, cid = key.partition("/")
        refs = cause.references()
        if cause.category not in CATEGORIES:
            raise CauseError(f"{key}: unknown category {cause.category!r} (expected one of {', '.join(CATEGORIES)})")
        if cause.category != "not explained" and not refs:
            raise CauseError(f"{key}: a {cause.category!r} cause references no run")
        if cause.category == "set-up not given":
            held = []
            for kind, arg in refs:
                if kind == "sens":
                    r, _ = self.sens_row(arg, key)
                    if arg.startswith(rep + "/") and r["claim"] == cid and r["verdict"] == "holds":
                        held.append(arg)
            if not held:
                raise CauseError(f"{key}: \"set-up not given\" needs a referenced sensitivity row of this claim "
                                 "where it holds; none does (say \"not explained\", or run the parameter where it holds)")
        if cause.category == "paper's own evidence differs":
            if not any(kind == "ns3" or (kind == "obs" and _split_key(arg)[0].partition("/")[2].startswith("eq-"))
                       for kind, arg in refs):
                raise CauseError(f"{key}: \"paper's own evidence differs\" needs a referenced ns-3 number or the "
                                 "paper's own analysis (an observation eq-...)")


_ONOFF = "legilimens-onoff"
_FAIR = "legilimens-fairness"
_SENS = "legilimens-sensitivity"
_SCALE = "legilimens-at-scale"
_RAND = "thesis-randomized"
_FIG12 = "legilimens-ns3-fig12.jsonl#fig12-"
_XCHECK = "ns3-crosscheck-background.json#every,"


def _fairness(cid: str) -> Cause:
    return Cause(
        "not explained",
        f"a lottery of back-offs between flows of one UE: the index moves from seed to seed (the scoreboard runs one), "
        f"and the back-off cap, not in the paper, moves it further ({{sens:{_FAIR}/max_backoff_exp=10/{cid}}}, against "
        f"{{ours:{_FAIR}/{cid}}} at {{default:{_FAIR}/max_backoff_exp}}); no parameter tried brings it to the paper's "
        "index, and why the paper's flows converge within its periods is not measured")


def _bound(trace: str) -> Cause:
    return Cause(
        "not explained",
        "the packets over the bound are the paper's own exception: every packet served with three or more behind it "
        "waited less than BoundedDelay (the queue's unit test asserts it), so those above it were served by the third "
        "rule, the last three packets of a queue that the trace's gaps left stale (line 175: \"occasionally, sojourn "
        "time of these packets could be larger than BoundedDelay\"); here they are more than the claim's percentile "
        "leaves out, and why the paper's runs saw them only occasionally is not measured. Within the bound and one "
        f"TTI: {{obs:bode/within-bound-{trace}}} of BoDe's packets; {{detail:bode/bound-{trace}}}")


def _abr(abr: str) -> Cause:
    return Cause(
        "not explained",
        "BoDe's drops in the traces' service gaps lower the chunk bitrate, so the QoE ratio falls below the claim: "
        f"{{detail:bode-apps/abr-qoe-{abr}}}; {{sens:bode-apps/fig1_step_s=30.0/abr-qoe-{abr}}}; no run isolates it")


CAUSES: dict[str, Cause] = {
    # -- Legilimens ------------------------------------------------------------------------
    "lpt-fifo-vs-cell/ledbat-cell-idle": Cause(
        "not explained",
        "LEDBAT competes in our cell ({obs:lpt-fifo-vs-cell/ledbat-cell-share-on} of the cell while CUBIC is on) and alone "
        "fills the idle cell ({detail:lpt-fifo-vs-cell/ledbat-cell-idle}; {sens:lpt-fifo-vs-cell/distance_m=150.0/"
        "ledbat-cell-idle}). The thesis describes the same experiment the other way round (Sec. 2.4, line 260: "
        "\"LEDBAT ends up competing with the foreground flow\"), and the paper blames delay profiles that vary across "
        "cells (line 64); no run of the scoreboard varies the base delay"),
    f"{_ONOFF}/yields": Cause(
        "not explained",
        "Legilimens keeps {ours:legilimens-onoff/yields} of the cell while CUBIC is on at "
        "{default:legilimens-onoff/max_backoff_exp} (the back-off cap, not in the paper); "
        "{sens:legilimens-onoff/max_backoff_exp=10/yields}, {sens:legilimens-onoff/rlc_queue_bytes=65536/yields}: "
        "no value tried backs off completely. Its bytes while CUBIC is on go in NORMAL after GAP probes that passed, in "
        "GAP probes, and as probe tails delivered during back-off (the run's mode trace); which of the rules added to "
        "Algorithm 1 keeps NORMAL on beside CUBIC is not isolated"),
    f"{_ONOFF}/yields-rayleigh": Cause(
        "not explained",
        "as yields, with Rayleigh fading: {ours:legilimens-onoff/yields-rayleigh} at "
        "{default:legilimens-onoff/max_backoff_exp}; {sens:legilimens-onoff/max_backoff_exp=10/yields-rayleigh}, "
        "{sens:legilimens-onoff/rlc_queue_bytes=65536/yields-rayleigh}: no value tried backs off completely"),
    f"{_ONOFF}/uses-spare-rayleigh": Cause(
        "not explained",
        "the channel of Fig. 7's real-network run is not given: with Rayleigh fading "
        "{ours:legilimens-onoff/uses-spare-rayleigh}, {sens:legilimens-onoff/distance_m=300.0/uses-spare-rayleigh}; "
        "without fast fading it holds ({ours:legilimens-onoff/uses-spare}, claim uses-spare). Deep fades, which HARQ "
        "turns into gaps followed by delayed delivery, look to Algorithm 1 like a competitor's TTIs "
        "(docs/legilimens.md, Known limits); no channel tried with fading lets it use the spare capacity"),
    f"{_FAIR}/jain-3": _fairness("jain-3"),
    f"{_FAIR}/jain-8": Cause(
        "not explained",
        "as jain-3: {ours:legilimens-fairness/jain-8} with the flows started "
        "{default:legilimens-fairness/stagger_s} s apart, {sens:legilimens-fairness/stagger_s=20.0/jain-8}, "
        "{sens:legilimens-fairness/max_backoff_exp=10/jain-8}; no parameter tried brings it to the paper's index"),
    f"{_FAIR}/jain-24": Cause(
        "not explained",
        "as jain-3: {ours:legilimens-fairness/jain-24}; {sens:legilimens-fairness/stagger_s=20.0/jain-24}, "
        "{sens:legilimens-fairness/max_backoff_exp=10/jain-24}; no parameter tried brings it to the paper's index"),
    f"{_SENS}/lambda-1-starves-background": Cause(
        "not explained",
        "the largest λ gives the default λ's background ({ours:legilimens-sensitivity/lambda-1-starves-background} of it; "
        "{sens:legilimens-sensitivity/max_backoff_exp=10/lambda-1-starves-background}, "
        "{sens:legilimens-sensitivity/on_off_s=20.0/lambda-1-starves-background}): a lone flow sees no gap, so λ is "
        "never consulted, and after a competitor's gap PF's alternation puts the slot rate near half the capacity, busy "
        "at both values. What starves the paper's background at the largest λ is not measured"),
    f"{_SENS}/wait-background-better-at-300": Cause(
        "set-up not given",
        "the back-off cap (`max_backoff_exp`, not in the paper): at {default:legilimens-sensitivity/max_backoff_exp} the "
        "background at the two waits, over the default's, is {ours:legilimens-sensitivity/wait-background-better-at-300}; "
        "{sens:legilimens-sensitivity/max_backoff_exp=10/wait-background-better-at-300} (the paper's order)"),
    "legilimens-mobile/no-disruption-at-hand-offs": Cause(
        "not explained",
        "Legilimens' longest stall is {obs:legilimens-mobile/stall-after-hand-offs} s on average after a hand-off and "
        "{obs:legilimens-mobile/stall-away-from-hand-offs} s in windows away from any, while the CUBIC background, which "
        "never backs off, stalls {obs:legilimens-mobile/cubic-stall-after-hand-offs} s after one: its back-offs, set by "
        "the other users' load (not in the paper, \"a large volume of regular traffic\"), make the stalls more than the "
        "hand-offs do; {sens:legilimens-mobile/others_per_cell=6/no-disruption-at-hand-offs}, "
        "{sens:legilimens-mobile/site_spacing_m=450.0/no-disruption-at-hand-offs}: no value tried holds"),
    f"{_SCALE}/fg-within-12-of-wobg": Cause(
        "paper's own evidence differs",
        "it misses in the paper's own simulator too: in ns-3's LTE module (docs/legilimens-ns3.md, the stored runs of "
        "tools/legilimens_ns3.py) Legilimens at every UE leaves the long foreground flow "
        f"{{ns3:{_FIG12}Legilimens-every-load60-10s-seed1/result.summary.long_mbps}} Mbit/s at the middle load and "
        f"{{ns3:{_FIG12}Legilimens-every-load80-10s-seed1-phy/result.summary.long_mbps}} at the highest, against "
        f"{{ns3:{_FIG12}w/o bg-any-load60-10s-seed1/result.summary.long_mbps}} without a background. Ours: "
        "{detail:legilimens-at-scale/fg-within-12-of-wobg}; {sens:legilimens-at-scale/background_ues=10/"
        "fg-within-12-of-wobg}, {sens:legilimens-at-scale/max_backoff_exp=10/fg-within-12-of-wobg}, "
        "{sens:legilimens-at-scale/rlc_queue_bytes=65536/fg-within-12-of-wobg}, "
        "{sens:legilimens-at-scale/distance_range_m=[50.0, 300.0]/fg-within-12-of-wobg}"),
    f"{_SCALE}/fg-within-12-of-ideal": Cause(
        "paper's own evidence differs",
        "as fg-within-12-of-wobg: ns-3's Legilimens at every UE leaves the long foreground flow "
        f"{{ns3:{_FIG12}Legilimens-every-load60-10s-seed1/result.summary.long_mbps}} Mbit/s at the middle load; ours "
        "{detail:legilimens-at-scale/fg-within-12-of-ideal}; {sens:legilimens-at-scale/background_ues=10/"
        "fg-within-12-of-ideal}, {sens:legilimens-at-scale/max_backoff_exp=10/fg-within-12-of-ideal}"),
    f"{_SCALE}/bg-vs-lpt-average": Cause(
        "paper's own evidence differs",
        "with a background flow at every UE, every UE stays backlogged and PF gives each its share of the TTIs whatever "
        "the background's controller. ns-3's LTE module, the paper's simulator, does the same (docs/crosscheck-ns3.md, ten "
        f"UEs with a background each): LEDBAT {{ns3:{_XCHECK}ledbat/ns3.bg1}}, Vegas {{ns3:{_XCHECK}vegas/ns3.bg1}}, "
        f"CUBIC {{ns3:{_XCHECK}cubic/ns3.bg1}} Mbit/s for the background flow of one UE, ours {{ns3:{_XCHECK}ledbat/cellshare.bg1}}; "
        "and Legilimens in ns-3 at every UE of the paper's set-up (docs/legilimens-ns3.md) gives its background "
        f"{{ns3:{_FIG12}Legilimens-every-load60-10s-seed1/result.summary.bg_mbps}} Mbit/s per flow against LEDBAT's "
        f"{{ns3:{_FIG12}LEDBAT-every-load60-10s-seed1/result.summary.bg_mbps}} and Vegas' "
        f"{{ns3:{_FIG12}Vegas-every-load60-10s-seed1/result.summary.bg_mbps}}. Ours: "
        "{detail:legilimens-at-scale/bg-vs-lpt-average}; {sens:legilimens-at-scale/background_ues=10/bg-vs-lpt-average}"),
    f"{_SCALE}/bg-vs-lpt-max": Cause(
        "paper's own evidence differs",
        "as bg-vs-lpt-average: in ns-3 Legilimens' background at every UE gets "
        f"{{ns3:{_FIG12}Legilimens-every-load60-10s-seed1/result.summary.bg_mbps}} Mbit/s per flow, LEDBAT's "
        f"{{ns3:{_FIG12}LEDBAT-every-load60-10s-seed1/result.summary.bg_mbps}}; ours "
        "{ours:legilimens-at-scale/bg-vs-lpt-max}; {sens:legilimens-at-scale/background_ues=10/bg-vs-lpt-max}"),
    f"{_SCALE}/bg-vs-ideal-priority": Cause(
        "paper's own evidence differs",
        "the guard fails: Legilimens takes the foreground's capacity rather than recapturing spare capacity faster (its "
        "long foreground flows get {obs:legilimens-at-scale/fg-legilimens} Mbit/s against "
        "{obs:legilimens-at-scale/fg-ideal-priority} beside ideal priority and {obs:legilimens-at-scale/fg-wo-bg} "
        "without a background), and so it does in the paper's own simulator: in ns-3's LTE module Legilimens at every "
        f"UE leaves the long foreground flow {{ns3:{_FIG12}Legilimens-every-load60-10s-seed1/result.summary.long_mbps}} "
        f"Mbit/s at the middle load, against {{ns3:{_FIG12}w/o bg-any-load60-10s-seed1/result.summary.long_mbps}} "
        "without a background"),
    f"{_SCALE}/fg-vs-lpt-within-10": Cause(
        "paper's own evidence differs",
        "the guard fails: every foreground collapses (beside Legilimens the long foreground flows get "
        "{obs:legilimens-at-scale/fg-legilimens} Mbit/s, beside LEDBAT {obs:legilimens-at-scale/fg-ledbat}, beside "
        "Vegas {obs:legilimens-at-scale/fg-vegas}, against {obs:legilimens-at-scale/fg-wo-bg} without a background), "
        "as in the paper's own simulator: ns-3's LTE module with a background at every UE leaves the long foreground "
        f"flow {{ns3:{_FIG12}Legilimens-every-load60-10s-seed1/result.summary.long_mbps}} Mbit/s beside Legilimens and "
        f"{{ns3:{_FIG12}LEDBAT-every-load60-10s-seed1/result.summary.long_mbps}} beside LEDBAT at the middle load, "
        f"against {{ns3:{_FIG12}w/o bg-any-load60-10s-seed1/result.summary.long_mbps}} without a background"),
    f"{_SCALE}/fair-share-hurts": Cause(
        "paper's own evidence differs",
        "the order is the paper's (CUBIC, BBR and VERUS lowest) but the guard fails: the foreground "
        "collapses beside the low-priority senders too ({obs:legilimens-at-scale/fg-legilimens} Mbit/s beside "
        "Legilimens, {obs:legilimens-at-scale/fg-ledbat} beside LEDBAT, against {obs:legilimens-at-scale/fg-wo-bg} "
        "without a background), as in ns-3's LTE module with a background at every UE "
        f"({{ns3:{_FIG12}Legilimens-every-load60-10s-seed1/result.summary.long_mbps}} beside Legilimens, "
        f"{{ns3:{_FIG12}Vegas-every-load60-10s-seed1/result.summary.long_mbps}} beside Vegas at the middle load)"),
    f"{_RAND}/bg-ratio": Cause(
        "not explained",
        "the CUBIC background fills every PRB the foreground leaves while Legilimens yields, so in our cell it can only "
        "move fewer bytes ({detail:thesis-randomized/bg-ratio}); {sens:thesis-randomized/fading=rayleigh/bg-ratio}, "
        "{sens:thesis-randomized/max_backoff_exp=10/bg-ratio}, {sens:thesis-randomized/distance_m=150.0/bg-ratio}. "
        "The thesis's real cell let Legilimens move more than CUBIC; what made its CUBIC background move less is not "
        "measured"),
    f"{_RAND}/total-ratio": Cause(
        "not explained",
        "as bg-ratio: {detail:thesis-randomized/total-ratio}; {sens:thesis-randomized/fading=rayleigh/total-ratio}, "
        "{sens:thesis-randomized/max_backoff_exp=10/total-ratio}"),
    # -- Sneaker ---------------------------------------------------------------------------
    "sneaker-prioritization/sneaker-serves-idle": Cause(
        "set-up not given",
        "Sneaker's ε, not given by the paper: {ours:sneaker-prioritization/sneaker-serves-idle} at "
        "{default:sneaker-prioritization/epsilon}, {sens:sneaker-prioritization/epsilon=0.2/sneaker-serves-idle}, "
        "{sens:sneaker-prioritization/epsilon=0.05/sneaker-serves-idle}, "
        "{sens:sneaker-prioritization/beta=0.3/sneaker-serves-idle}. After each stop Reno climbs from the ε window one "
        "packet per RTT ({obs:sneaker-prioritization/sneaker-to-70} s until it first delivers most of the busy cell's "
        "rate, observation)"),
    "sneaker-scaling/gain-L8": Cause(
        "paper's own evidence differs",
        "the paper's own analysis predicts ours: its practical rate gives the background flows ε of the cell together "
        "whatever L, so the foreground keeps the rest while PFS only gives it one part in L plus one, a gain of "
        "{obs:sneaker-scaling/eq-practical-rate-gain[L = 8]} at our ε (observation eq-practical-rate-gain). Measured "
        "{ours:sneaker-scaling/gain-L8}; {sens:sneaker-scaling/epsilon=0.2/gain-L8}, "
        "{sens:sneaker-scaling/epsilon=0.05/gain-L8}, {sens:sneaker-scaling/fading=none/gain-L8}"),
    "sneaker-scaling/sneaker-degrades": Cause(
        "paper's own evidence differs",
        "the paper's practical rate gives the foreground the same share whatever L (its gain over PFS only grows with "
        "L: {obs:sneaker-scaling/eq-practical-rate-gain}); measured {ours:sneaker-scaling/sneaker-degrades} Mbit/s (more "
        "background flows, each with a smaller window, take slightly less); the same rise at "
        "{sens:sneaker-scaling/epsilon=0.2/sneaker-degrades} and {sens:sneaker-scaling/fading=none/sneaker-degrades}"),
    "sneaker-fairness/background-fair-share": Cause(
        "set-up not given",
        "the worst flow-period is a lottery of where each Reno flow's losses fall, and it moves with parameters the "
        "paper does not give: {ours:sneaker-fairness/background-fair-share} at {default:sneaker-fairness/beta}, "
        "{sens:sneaker-fairness/beta=0.3/background-fair-share}, {sens:sneaker-fairness/fading=none/background-fair-share}, "
        "{sens:sneaker-fairness/distance_m=100.0/background-fair-share}; Jain's index per period: "
        "{detail:sneaker-fairness/background-fair-share}"),
    "sneaker-at-scale/bg-most-at-20": Cause(
        "paper's model is idealised",
        "each medium foreground flow queues more than a TTI at its UE for a fraction of a second, τ_F exceeds one and "
        "Sneaker drops at the ε rate; Reno then climbs back one packet per RTT, slower than medium flows arrive "
        "(docs/workloads.md), so Sneaker leaves the cell partly idle (PRB utilization {obs:sneaker-at-scale/prb-20[Sneaker]} "
        "against LEDBAT's {obs:sneaker-at-scale/prb-20[LEDBAT]}, observation): {ours:sneaker-at-scale/bg-most-at-20} "
        "Mbit/s; {sens:sneaker-at-scale/epsilon=0.2/bg-most-at-20}. LEDBAT alone in its UE's queue never yields"),
    # -- BoDe ------------------------------------------------------------------------------
    "bode/power-westwood": Cause(
        "not explained",
        "BoDe's throughput cost under Westwood+ ({ours:bode/throughput-cost-westwood} of TailDrop's rate, claim "
        "throughput-cost-westwood) lowers its power to {ours:bode/power-westwood}; "
        "{sens:bode/aqm_queue_bytes=524288/power-westwood}, {sens:bode/uplink_delay_ms=4.0/power-westwood}; why "
        "Westwood+ loses more rate than the other controllers under BoDe is not isolated"),
    "bode/throughput-worst-TMobile-LTE-driving": Cause(
        "not explained",
        "each service gap of this trace longer than the bound leaves the whole queue stale and BoDe drops all but the "
        "last three packets: {detail:bode/throughput-worst-TMobile-LTE-driving}; "
        "{sens:bode/aqm_queue_bytes=524288/throughput-worst-TMobile-LTE-driving}; no run isolates the cost"),
    "bode/codel-like-taildrop-bbr": Cause(
        "not explained",
        "CoDel's tail delay under BBR lies below TailDrop's on every trace ({detail:bode/codel-like-taildrop-bbr}), so the "
        "average is not carried by one trace; {sens:bode/aqm_queue_bytes=524288/codel-like-taildrop-bbr}, "
        "{sens:bode/uplink_delay_ms=4.0/codel-like-taildrop-bbr}; no run isolates why the paper's BBR left CoDel "
        "nothing to cut"),
    "bode/pie-like-taildrop-bbr": Cause(
        "not explained",
        "PIE's tail delay under BBR lies below TailDrop's on every trace ({detail:bode/pie-like-taildrop-bbr}); "
        "{sens:bode/aqm_queue_bytes=524288/pie-like-taildrop-bbr}, {sens:bode/uplink_delay_ms=4.0/pie-like-taildrop-bbr}; "
        "no run isolates why the paper's BBR left PIE nothing to cut"),
    "bode/codel-like-taildrop-sprout": Cause(
        "not explained",
        "the average is carried by one trace: per trace {detail:bode/codel-like-taildrop-sprout}, the AT&T drive far "
        "from the others, where TailDrop's tail delay under Sprout is long and CoDel's is not; "
        "{sens:bode/uplink_delay_ms=4.0/codel-like-taildrop-sprout}; no run isolates what Sprout does on that trace"),
    "bode/delay-cut-cubic": Cause(
        "not explained",
        "the cut holds over each trace's first minute ({quick:bode/delay-cut-cubic} in the quick runs) and misses over "
        "the paper's five minutes per trace ({ours:bode/delay-cut-cubic}); the same fall for Westwood+ "
        "({quick:bode/delay-cut-westwood} to {ours:bode/delay-cut-westwood}) while BBR keeps "
        "{ours:bode/delay-cut-bbr}; which stretch of the traces lifts CoDel's and PIE's tails towards BoDe's is not "
        "isolated"),
    "bode/power-cubic": Cause(
        "not explained",
        "the power ratio against the best other scheme ({detail:bode/power-cubic}) holds over each trace's first "
        "minute ({quick:bode/power-cubic} in the quick runs) and misses over the paper's five minutes "
        "({ours:bode/power-cubic}), with the delay cut it rests on ({ours:bode/delay-cut-cubic}, claim delay-cut-cubic); "
        "no run isolates the stretch of the traces that moves it"),
    "bode/delay-cut-westwood": Cause(
        "not explained",
        "holds over each trace's first minute ({quick:bode/delay-cut-westwood} in the quick runs), misses over the "
        "paper's five minutes ({ours:bode/delay-cut-westwood}), as for CUBIC ({ours:bode/delay-cut-cubic}); not isolated"),
    "bode/throughput-worst-NYC-LTE-subway": Cause(
        "not explained",
        "the worst controller on this trace is PCC-Vivace (per controller: {detail:bode/throughput-worst-NYC-LTE-subway}); "
        "over the trace's first minute the worst ratio was {quick:bode/throughput-worst-NYC-LTE-subway} (quick runs), "
        "over the paper's five minutes {ours:bode/throughput-worst-NYC-LTE-subway}; the subway trace's later outages "
        "cost Vivace's rate probing under BoDe's drops more, not isolated by a run"),
    "bode/bound-ATT-LTE-driving": _bound("ATT-LTE-driving"),
    "bode/bound-TMobile-LTE-driving": _bound("TMobile-LTE-driving"),
    "bode/bound-NYC-LTE-subway": _bound("NYC-LTE-subway"),
    "bode-apps/call-throughput-cost": Cause(
        "not explained",
        "GCC's loss-based controller reacts to BoDe's drops in the traces' service gaps: "
        "{detail:bode-apps/call-throughput-cost}; {sens:bode-apps/call_max_kbps=2500.0/call-throughput-cost}; no run "
        "isolates the paper's factor"),
    "bode-apps/call-delay-vs-codel": Cause(
        "not explained",
        "over the calls' paper length the call's tail delay under CoDel is {ours:bode-apps/call-delay-vs-codel} times "
        "BoDe's ({detail:bode-apps/call-delay-vs-codel}); over the quick runs' shorter calls "
        "it was {quick:bode-apps/call-delay-vs-codel}: CoDel's tail shrinks as the call runs longer while BoDe's does "
        "not; what in the longer trace does it is not isolated"),
    "bode-apps/stream-delay-vs-codel": Cause(
        "not explained",
        "CoDel keeps one TCP stream's sojourn close to BoDe's: {detail:bode-apps/stream-delay-vs-codel}; "
        "{sens:bode-apps/stream_abr=bb/stream-delay-vs-codel}; the paper's CoDel values for YouTube and Amazon are not "
        "given"),
    "bode-apps/stream-throughput-cost": Cause(
        "not explained",
        "BoDe's drops in the traces' service gaps cost the stream rate against CoDel: "
        "{ours:bode-apps/stream-throughput-cost}; {sens:bode-apps/stream_abr=bb/stream-throughput-cost}; no run "
        "isolates it"),
    "bode-apps/abr-qoe-bb": _abr("bb"),
    "bode-apps/abr-qoe-festive": _abr("festive"),
    "bode-apps/abr-qoe-bola": _abr("bola"),
    "bode-apps/abr-qoe-mpc": _abr("mpc"),
    # -- RTAC / SORPC / DTPA ----------------------------------------------------------------
    "rtac/fig2.5-client2-doubles": Cause(
        "set-up not given",
        "the LTE per-UE queue is not given: at {default:rtac/lte_queue_bytes} the second client's mean ping RTT goes "
        "{detail:rtac/fig2.5-client2-doubles} in the windows from two seconds after each start (chosen before any run), "
        "its queue still growing beside the third client's download; a smaller queue bounds it "
        "({sens:rtac/lte_queue_bytes=1048576/fig2.5-client2-doubles}), and so does the phones' kernel's window share "
        "({sens:rtac/adv_win_scale=2/fig2.5-client2-doubles}, below). Over the last four seconds of each phase the "
        "ratio is {obs:rtac/fig2.5-client2-settled}, a window tried after the first runs and so reported, not judged"),
    "rtac/lte-best-rmem": Cause(
        "set-up not given",
        "the throughput reaches the link's rate once the window covers the path's bandwidth-delay product, and the RTT "
        "grows after it: {detail:rtac/lte-best-rmem}. Eq. (2.12) caps the window at tcp_rmem max itself, as run here "
        "({default:rtac/adv_win_scale}); the phones' kernel (Table 2.1) advertises three quarters of a buffer, "
        "which moves the knee to larger settings: {sens:rtac/adv_win_scale=2/lte-best-rmem}. Which of the two the "
        "thesis's figure shows, its equation or its phones' kernel, the thesis does not say"),
    "rtac/wifi-best-rmem": Cause(
        "not explained",
        "the best setting is the sweep's smallest: the Wi-Fi path's bandwidth-delay product is below it, so every setting "
        "fills the link and a larger one only adds delay: {detail:rtac/wifi-best-rmem}. The phones' kernel's window "
        "share does not move it ({sens:rtac/adv_win_scale=2/wifi-best-rmem}), nor does the AP's buffer "
        "({sens:rtac/ap_buffer_bytes=150000/wifi-best-rmem}) or the path's delay "
        "({sens:rtac/wifi_remote_delay_ms=2.0/wifi-best-rmem}); what puts the thesis's Wi-Fi knee at {paper:rtac/wifi-best-rmem} is not "
        "isolated"),
    "rtac/lte-rtt-cut-rtac": Cause(
        "not explained",
        "with the thesis's K and Δ for LTE (set-up values, lines 1229 and 1396) RTAC's mean RTT is "
        "{obs:rtac/lte-rtac-rtt} ms against auto-tuning's {obs:rtac/lte-auto-rtt}, a longer RTT than the thesis's "
        "(Fig. 2.7): the cut falls below the thesis's. The LTE per-UE queue, not given, moves auto-tuning's side "
        "({sens:rtac/lte_queue_bytes=1048576/lte-rtt-cut-rtac}), and so does the phones' kernel's window share, which "
        "shortens auto-tuning's queue ({sens:rtac/adv_win_scale=2/lte-rtt-cut-rtac}); no value tried holds, and why the thesis's K keeps "
        "RTAC's queue shorter on its network than on ours is not measured"),
    "rtac/wifi-rtt-cut-rtac": Cause(
        "set-up not given",
        "the Wi-Fi path's base RTT, not given: with the thesis's K and Δ for Wi-Fi RTAC's mean RTT is "
        "{obs:rtac/wifi-rtac-rtt} ms against auto-tuning's {obs:rtac/wifi-auto-rtt} at "
        "{default:rtac/wifi_remote_delay_ms}; {sens:rtac/wifi_remote_delay_ms=2.0/wifi-rtt-cut-rtac}; the AP's buffer, "
        "not given either, moves it too ({sens:rtac/ap_buffer_bytes=300000/wifi-rtt-cut-rtac})"),
    "rtac/wifi-rtt-cut-drwa": Cause(
        "set-up not given",
        "the Wi-Fi path's base RTT, not given: DRWA's window holds about λ base RTTs of data, so its RTT "
        "({obs:rtac/wifi-drwa-rtt} ms at {default:rtac/wifi_remote_delay_ms}) grows with the path: "
        "{sens:rtac/wifi_remote_delay_ms=2.0/wifi-rtt-cut-drwa}"),
    "rtac/dc-rtac-share": Cause(
        "not explained",
        "the AP's buffer, not given, moves it ({ours:rtac/dc-rtac-share} at {default:rtac/ap_buffer_bytes}, "
        "{sens:rtac/ap_buffer_bytes=300000/dc-rtac-share}, {sens:rtac/ap_buffer_bytes=150000/dc-rtac-share}): "
        "RTAC's fixed point of Eq. (2.14) holds a window of its own while auto-tuning holds the rest of the buffer "
        "(docs/rtac-sorpc-dtpa.md); no buffer tried gives RTAC the thesis's share"),
    "rtac/dc-drwa-share": Cause(
        "not explained",
        "as dc-rtac-share: {ours:rtac/dc-drwa-share} at {default:rtac/ap_buffer_bytes}, "
        "{sens:rtac/ap_buffer_bytes=150000/dc-drwa-share}, {sens:rtac/wifi_remote_delay_ms=2.0/dc-drwa-share}: DRWA "
        "starves harder than in the thesis at every buffer and path tried"),
    "rtac/ic-drwa-share": Cause(
        "not explained",
        "the wired bottleneck of indirect competition is not given, and DRWA's starvation rests on it: "
        "{ours:rtac/ic-drwa-share} at {default:rtac/ic_bottleneck} ({detail:rtac/ic-drwa-share}), "
        "{sens:rtac/ic_bottleneck=60 Mbit/s, 1 MB/ic-drwa-share}, {sens:rtac/ic_bottleneck=30 Mbit/s, 250 KB/ic-drwa-share}: "
        "the thesis's starvation lies between no starvation and ours, and no bottleneck tried gives it"),
    "rtac/dc-three-rtac-share": Cause(
        "not explained",
        "the AP's buffer, as dc-rtac-share: {ours:rtac/dc-three-rtac-share} at {default:rtac/ap_buffer_bytes}, "
        "{sens:rtac/ap_buffer_bytes=150000/dc-three-rtac-share}; no buffer tried gives the thesis's share"),
    "sorpc/fig3.2-rtt-increase-below-10": Cause(
        "not explained",
        "the device's transmit queue bounds the upload's queueing delay: per uplink "
        "{detail:sorpc/fig3.2-rtt-increase-below-10}, above the paper's bound at the slowest uplink, below it at the "
        "other uplink under the paper's limit; smaller queues lower it "
        "({sens:sorpc/txqueue_bytes=1000000/fig3.2-rtt-increase-below-10}); how much the thesis's phone holds below "
        "its transmit queue is not given and no run isolates it"),
    "sorpc/fig3.3-ping-above-1800": Cause(
        "not explained",
        "the ping waits behind the upload in the one transmit queue, which drains in little more than its size over the "
        "uplink rate: {detail:sorpc/fig3.3-ping-above-1800}, longest {ours:sorpc/fig3.3-ping-above-1800} ms; smaller "
        "queues lower it ({sens:sorpc/txqueue_bytes=1000000/fig3.3-ping-above-1800}); how much the thesis's phone holds "
        "below its transmit queue is not given and no run isolates it"),
    "sorpc/download-gain": Cause(
        "set-up not given",
        "the device transmit queue's size, not given: the single queue's download waits behind the upload for its ACKs "
        "and leaves slow start early ({detail:sorpc/download-gain} at {default:sorpc/txqueue_bytes}); "
        "{sens:sorpc/txqueue_bytes=1000000/download-gain}, {sens:sorpc/txqueue_bytes=750000/download-gain}. Where the "
        "download starts within the upload's congestion "
        "cycle, also not given, moves it too (docs/rtac-sorpc-dtpa.md)"),
    "sorpc/game-single-worst": Cause(
        "set-up not given",
        "the device transmit queue's size and the uplink rates of Fig. 3.10, neither given: the single queue's longest "
        "game RTT per uplink is {detail:sorpc/game-single-worst} at {default:sorpc/txqueue_bytes}; "
        "{sens:sorpc/txqueue_bytes=1000000/game-single-worst}, {sens:sorpc/txqueue_bytes=750000/game-single-worst}"),
    "sorpc/web-single-vs-alone": Cause(
        "set-up not given",
        "the device transmit queue's size, not given: every page's connections open with a handshake whose uplink "
        "segments wait behind the upload in the single queue, so the page load time grows with the queue: "
        "{ours:sorpc/web-single-vs-alone} at {default:sorpc/txqueue_bytes}, "
        "{sens:sorpc/txqueue_bytes=1000000/web-single-vs-alone}, {sens:sorpc/txqueue_bytes=750000/web-single-vs-alone}"),
    "sorpc/youtube-single-vs-alone": Cause(
        "model gap",
        "the server: the thesis blames the variation on \"the bottleneck at the server\" (Sec. 3.4.3, line 2570); ours "
        "has no server delay, so the stream starts in {ours:sorpc/youtube-sorpc-better[no upload]} s without the upload "
        "and the single queue's added wait (its requests, ACKs and handshakes behind the upload in the device queue) is "
        "a larger multiple of it: {ours:sorpc/youtube-single-vs-alone}; "
        "{sens:sorpc/txqueue_bytes=750000/youtube-single-vs-alone}"),
    "sorpc/youtube-sorpc-vs-alone": Cause(
        "not explained",
        "SORPC puts the requests and pure ACKs in its first queue, where they wait as without the upload, so the "
        "start-up is the same ({ours:sorpc/youtube-sorpc-better[SORPC]} s against {ours:sorpc/youtube-sorpc-better[no "
        "upload]}); the thesis's SORPC still adds to the start-up, and where its phone delayed the download's packets "
        "below the qdisc is not measured"),
    "sorpc/web-sorpc-vs-alone": Cause(
        "not explained",
        "as youtube-sorpc-vs-alone: the mean page load time is {ours:sorpc/web-sorpc-better[SORPC]} s with SORPC "
        "against {ours:sorpc/web-sorpc-better[no upload]} s without the upload; the thesis's difference is not "
        "reproduced and its cause is not measured"),
    "dtpa/reno-6hop-vs-1hop": Cause(
        "not explained",
        "the motes' link layer is not given: {ours:dtpa/reno-6hop-vs-1hop} ({detail:dtpa/reno-6hop-vs-1hop}); "
        "{sens:dtpa/frame_loss=0.0/reno-6hop-vs-1hop}, {sens:dtpa/frame_loss=0.05/reno-6hop-vs-1hop}, "
        "{sens:dtpa/mac=802.15.4 default/reno-6hop-vs-1hop}: none of these gives the thesis's ratio"),
    "dtpa/dtpa-goodput-drop-10": Cause(
        "set-up not given",
        "DTPA's c, not given (\"future work\", line 3026): {ours:dtpa/dtpa-goodput-drop-10} at {default:dtpa/c}, "
        "{sens:dtpa/c=1.5/dtpa-goodput-drop-10}, {sens:dtpa/c=1.0/dtpa-goodput-drop-10}, "
        "{sens:dtpa/c=4.0/dtpa-goodput-drop-10}"),
    "dtpa/eq-4-3-vs-measured": Cause(
        "paper's model is idealised",
        "Eq. (4.3) is a Mathis-style equilibrium that ignores the idle time of retransmission timeouts, and most loss "
        "events of the window-limited nodes are timeouts (a minimum RTO of a second against RTTs of about as much), "
        "so the formula overestimates: {ours:dtpa/eq-4-3-vs-measured} ({detail:dtpa/eq-4-3-vs-measured}); "
        "{sens:dtpa/c=1.0/eq-4-3-vs-measured}, {sens:dtpa/c=4.0/eq-4-3-vs-measured}, "
        "{sens:dtpa/frame_loss=0.0/eq-4-3-vs-measured}"),
}
