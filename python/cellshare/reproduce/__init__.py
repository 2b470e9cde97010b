"""The reproduction framework: named experiments from the papers, each judged by one rule
against the papers' own numbers.

**The rule** (also in ``docs/reproductions.md``). Every counted row is a :class:`Claim`: a
paper result quoted with its location (the paper by its bibliography key, docs/references.md;
its section/figure/table; and the line of the paper's plain text the quote starts on, which
the developers' optional test checks against the texts) and the paper's own value, which is
one of

- a **point value** (:class:`Point`): ours holds when it lies within a factor of
  :data:`RATIO_TOLERANCE` (1.25) of it, on either side — ``paper/1.25 ≤ ours ≤ paper·1.25``.
  Symmetric in the logarithm, so a ratio and its inverse get the same verdict, and
  overshooting the paper by far (8.7× for its 5×) is a miss like undershooting it;
- a **range** the paper reports (:class:`Range`, "from 2× to 20×"): ours holds inside it;
- a **bound** the paper states (:class:`AtMost`, :class:`AtLeast`: "less than 300 msec",
  "within 12 %", "at least about 2×"): ours holds on the paper's side of it, or past it by
  at most :data:`BOUND_TOLERANCE` (1 %) of the bound — of the quantity's full scale when the
  bound is zero ("backs off completely": 1 % of the cell);
- an **order** the paper states between schemes (:class:`Order`: "Sneaker achieves the best
  throughput", "TCP-LP achieves better throughput than LEDBAT"; :class:`Decreasing`:
  "throughput decreases as hop count increases"): ours holds when our values are in that
  order (strictly; no tolerance).

A paper statement that gives no number and no comparison ("yields", "efficiently") is not
a claim unless its words fix a number ("backs off completely" = 0, "effectively
round-robin" between two UEs = 1/2, "similar" = a ratio of 1); such a derivation is written
next to the value. Everything else we report is an :class:`Observation`: measured, shown,
never counted. A paper value that is not written in its quote carries its derivation, and
``tests/test_reproductions.py`` checks every claim definition against the paper text.

An experiment is a function ``run(ctx)`` registered with :func:`experiment` together with
its claim definitions and its :class:`Assumption` list (every parameter it sets that the
paper does not give, with where the value came from and one or two other plausible
values). It runs scenarios through ``ctx.run``/``ctx.run_many``, reads the assumed
parameters through ``ctx.param``, and records every declared claim with ``ctx.check(id,
ours)`` and anything else with ``ctx.observe``. ``cellshare reproduce NAME`` writes
``claims.json`` and ``claims.md``; ``cellshare reproduce --all`` adds the scoreboard
(:mod:`cellshare.reproduce.scoreboard`). Every ``ours`` value is computed from the runs;
nothing is typed in. The set-up values the paper gives are declared too (:class:`Given`,
each with its line), and a claim that could hold for the wrong reason carries guards
(:class:`Guard`: ``ctx.check(id, ours, guards=...)``; a failed guard makes it a miss).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import tomli_w

from ..api import Result, run as run_scenario
from .. import references as _refs
from ..output import write_result
from ..traces import PREFIX as BUILTIN_PREFIX, names as builtin_traces, path as builtin_trace_path

#: Point values: ours holds within this factor of the paper's value, either side. The
#: Legilimens paper measures one comparison (its background throughput over the LPT
#: protocols') on three testbeds and reports 2×, 2.2× and 2.8× ([legilimens]
#: lines 221, 263, 216): a paper's own results for one quantity move by about this factor
#: between set-ups it calls equivalent, so a reproduction on a fourth set-up cannot be held
#: closer. See docs/reproductions.md.
RATIO_TOLERANCE = 1.25

#: Bounds: how far past a stated bound ours may lie, as a fraction of the bound (or of the
#: quantity's full scale when the bound is 0). A bound is the paper's own limit, so it gets
#: only measurement resolution: our delay percentiles come from a log-linear histogram
#: with 0.8 % bins; 1 % covers that and nothing more.
BOUND_TOLERANCE = 0.01

#: The five papers, by the bibliography key claims use (docs/references.md, one source:
#: ``cellshare/data/references.toml``): a short name, and the file name of the paper's plain
#: text (for the developers' optional quote check).
SEED_PAPERS = ("legilimens", "legilimens-thesis", "sneaker", "bode", "rsd-thesis")
PAPERS: dict[str, tuple[str, str]] = {k: (_refs.get(k).short, _refs.get(k).text or "") for k in SEED_PAPERS}


class InputError(ValueError):
    """A reproduction's input is wrong or missing (``--traces DIR`` without a trace it reads):
    exit 2, one line."""


#: The link model of a reproduction that ran nothing (a failed one): the link models are read
#: off the scenarios it runs (:func:`link_of`), not declared.
DEFAULT_LINK = "not run"


def link_of(scenario: Mapping[str, Any]) -> str:
    """The link model a scenario runs on: the radio link's kind (``cell.link.kind``, realistic
    by default) when a UE group is on a `radio` channel, "capacity" when every UE's channel is
    a fixed rate or a trace (the capacity is given, no link model), "lln" for an LLN run."""
    if "lln" in scenario:
        return "lln"
    groups = scenario.get("ues") or []
    if any((g.get("channel") or {}).get("kind") == "radio" for g in groups):
        return str(((scenario.get("cell") or {}).get("link") or {}).get("kind", "realistic"))
    return "capacity"


def links_text(links: set[str]) -> str:
    """The link models of an experiment's runs, in a fixed order ("realistic + capacity")."""
    order = ["realistic", "ideal", "capacity", "lln"]
    return " + ".join(sorted(links, key=lambda k: (order.index(k) if k in order else len(order), k))) or DEFAULT_LINK


# --------------------------------------------------------------------------------------
# The paper's value and the rule that judges ours against it.

def _num(v: float) -> str:
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.3g}"
    return f"{v:.3g}"


@dataclass(frozen=True)
class Point:
    """The paper reports one value. `derivation` says how it follows from the quote when it
    is not written there (e.g. ``"223 / 71"``)."""

    value: float
    derivation: str = ""
    unit: str = ""
    kind: str = "point"

    def paper(self) -> str:
        return f"{_num(self.value)}{self.unit}"

    def tolerance(self) -> str:
        return f"×/÷ {RATIO_TOLERANCE:g} ({_num(self.value / RATIO_TOLERANCE)}–{_num(self.value * RATIO_TOLERANCE)})"

    def judge(self, ours: float) -> tuple[bool, str]:
        lo, hi = self.value / RATIO_TOLERANCE, self.value * RATIO_TOLERANCE
        if ours < lo:
            return False, "below"
        if ours > hi:
            return False, "above"
        return True, ""


@dataclass(frozen=True)
class Range:
    """The paper reports a range of values; ours must lie inside it."""

    low: float
    high: float
    derivation: str = ""
    unit: str = ""
    kind: str = "range"

    def paper(self) -> str:
        return f"{_num(self.low)}–{_num(self.high)}{self.unit}"

    def tolerance(self) -> str:
        return "inside the range"

    def judge(self, ours: float) -> tuple[bool, str]:
        if ours < self.low:
            return False, "below"
        if ours > self.high:
            return False, "above"
        return True, ""


@dataclass(frozen=True)
class AtMost:
    """The paper states an upper bound. `scale` is the quantity's full scale, needed when
    the bound is 0 (a share of the cell: 1)."""

    value: float
    derivation: str = ""
    unit: str = ""
    scale: Optional[float] = None
    kind: str = "at_most"

    def limit(self) -> float:
        return self.value + BOUND_TOLERANCE * (abs(self.value) if self.value != 0 else (self.scale or 0.0))

    def paper(self) -> str:
        return f"≤ {_num(self.value)}{self.unit}"

    def tolerance(self) -> str:
        return f"+{BOUND_TOLERANCE:.0%} (≤ {_num(self.limit())}{self.unit})"

    def judge(self, ours: float) -> tuple[bool, str]:
        return (True, "") if ours <= self.limit() else (False, "above")


@dataclass(frozen=True)
class AtLeast:
    """The paper states a lower bound."""

    value: float
    derivation: str = ""
    unit: str = ""
    kind: str = "at_least"

    def limit(self) -> float:
        return self.value - BOUND_TOLERANCE * abs(self.value)

    def paper(self) -> str:
        return f"≥ {_num(self.value)}{self.unit}"

    def tolerance(self) -> str:
        return f"−{BOUND_TOLERANCE:.0%} (≥ {_num(self.limit())}{self.unit})"

    def judge(self, ours: float) -> tuple[bool, str]:
        return (True, "") if ours >= self.limit() else (False, "below")


@dataclass(frozen=True)
class Order:
    """The paper states an order: every name in `higher` has a larger value than every name
    in `lower` (``"*"`` stands for every other name measured). Ours is a mapping name →
    value."""

    higher: tuple[str, ...]
    lower: tuple[str, ...]
    derivation: str = ""
    kind: str = "order"

    def paper(self) -> str:
        def side(names: tuple[str, ...]) -> str:
            return "the others" if names == ("*",) else ", ".join(names)
        return f"{side(self.higher)} > {side(self.lower)}"

    def tolerance(self) -> str:
        return "strict order"

    def judge(self, ours: Mapping[str, float]) -> tuple[bool, str]:
        named = set(self.higher) | set(self.lower)
        rest = [k for k in ours if k not in named]
        hi = rest if self.higher == ("*",) else list(self.higher)
        lo = rest if self.lower == ("*",) else list(self.lower)
        missing = [k for k in hi + lo if k not in ours]
        if missing or not hi or not lo:
            raise KeyError(f"order needs values for {missing or (hi if not hi else lo)}")
        ok = min(ours[k] for k in hi) > max(ours[k] for k in lo)
        return (True, "") if ok else (False, "order")


@dataclass(frozen=True)
class Decreasing:
    """The paper states that a quantity falls along a sequence (of hop counts, numbers of
    flows, link rates): ours holds when each named value is larger than the next. Ours is a
    mapping name → value."""

    names: tuple[str, ...]
    derivation: str = ""
    kind: str = "decreasing"

    def paper(self) -> str:
        return " > ".join(self.names)

    def tolerance(self) -> str:
        return "strict order"

    def judge(self, ours: Mapping[str, float]) -> tuple[bool, str]:
        vals = [ours[n] for n in self.names]
        ok = all(a > b for a, b in zip(vals, vals[1:]))
        return (True, "") if ok else (False, "order")


Target = Union[Point, Range, AtMost, AtLeast, Order, Decreasing]


def target_dict(t: Target) -> dict:
    d = asdict(t)
    d["paper"] = t.paper()
    d["tolerance"] = t.tolerance()
    return d


@dataclass(frozen=True)
class ClaimDef:
    """A paper result a reproduction checks: what we measure, where the paper says it, the
    paper's words and its value."""

    id: str
    what: str
    paper: str
    location: str
    line: int
    quote: str
    target: Target


@dataclass(frozen=True)
class Assumption:
    """A parameter a reproduction sets that its paper does not give (or, said so in
    `source`, one it sets differently): the value used, where it came from, and one or two
    other plausible values the claims are also run at (an observation table)."""

    name: str
    value: Any
    source: str
    alternatives: tuple = ()
    affects: tuple[str, ...] = ()   # claim ids it bears on (empty: every claim)


@dataclass(frozen=True)
class Given:
    """A set-up value the paper gives for the experiment, used as given: its name, the value,
    and where the paper says it (location and the line of its plain text the words start
    on, with the words)."""

    name: str
    value: Any
    paper: str
    location: str
    line: int
    quote: str


@dataclass(frozen=True)
class OutOfReach:
    """A quantitative result of the paper that no claim or observation covers: where the
    paper says it (location and the line of its plain text the words start on, with the
    words) and why (a real network's busy-hour load, a testbed the paper does not describe,
    the simulator output the result would need, or a set-up that would take a reproduction
    of its own)."""

    paper: str
    location: str
    line: int
    quote: str
    reason: str


@dataclass(frozen=True)
class Guard:
    """A condition a claim's measurement must meet to count, so that it cannot hold for the
    wrong reason (the flows must have run, the foreground must not collapse): `what` it
    requires, whether it is `ok`, and the `measured` values that decide it."""

    what: str
    ok: bool
    measured: str = ""


@dataclass
class Claim:
    """A checked claim: its definition's fields, ours, and the verdict."""

    id: str
    what: str
    paper: str
    location: str
    line: int
    quote: str
    target: dict
    ours: Any
    verdict: str            # "holds" or "misses"
    side: str               # for a miss: "above", "below", "order", "not measured", "guard"
    detail: str = ""
    #: The claim's guards (:class:`Guard`, as dicts): a failed one makes the claim a miss.
    guards: list = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return self.verdict == "holds"


@dataclass
class Observation:
    """A measured row that is reported, not counted: no paper number to compare with, or a
    check of our own set-up."""

    id: str
    what: str
    ours: Any
    paper: str = ""         # the paper's words or context, when there are any
    detail: str = ""


@dataclass
class Experiment:
    """A registered reproduction."""

    name: str
    title: str
    paper: str
    func: Callable[["Context"], None]
    claims: tuple[ClaimDef, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    #: The set-up values the paper gives, used as given (:class:`Given`).
    given: tuple[Given, ...] = ()
    sensitivity_note: str = ""   # how a sensitivity re-run is cut down beyond one seed
    #: The Mahimahi traces it reads, by file name: shipped with cellshare (``builtin:NAME``,
    #: :mod:`cellshare.traces`), or read from the folder ``--traces DIR`` names.
    traces: tuple[str, ...] = ()
    #: The paper's quantitative results near this experiment that no claim or observation
    #: covers, each with the reason (:class:`OutOfReach`).
    out_of_reach: tuple[OutOfReach, ...] = ()

    def claim_def(self, id: str) -> ClaimDef:
        for c in self.claims:
            if c.id == id:
                return c
        raise KeyError(f"{self.name}: no claim {id!r} declared")


REGISTRY: dict[str, Experiment] = {}


def experiment(name: str, title: str, paper: str, claims: Sequence[ClaimDef] = (),
               assumptions: Sequence[Assumption] = (), sensitivity_note: str = "", traces: Sequence[str] = (),
               given: Sequence[Given] = (), out_of_reach: Sequence[OutOfReach] = ()
               ) -> Callable[[Callable[["Context"], None]], Callable[["Context"], None]]:
    """Registers a reproduction under `name` with its claim definitions, assumptions, the
    traces it reads (file names of shipped traces) and the paper's results no claim covers."""

    def deco(func: Callable[["Context"], None]) -> Callable[["Context"], None]:
        ids = [c.id for c in claims]
        if len(ids) != len(set(ids)):
            raise ValueError(f"{name}: duplicate claim ids")
        unknown = [t for t in traces if t not in builtin_traces()]
        if unknown:
            raise ValueError(f"{name}: traces not shipped with cellshare: {', '.join(unknown)}")
        REGISTRY[name] = Experiment(name, title, paper, func, tuple(claims), tuple(assumptions), tuple(given),
                                    sensitivity_note, tuple(traces), tuple(out_of_reach))
        return func

    return deco


def _judge(target: Target, ours: Any) -> tuple[str, str]:
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        return "misses", "not measured"
    ok, side = target.judge(ours)
    return ("holds" if ok else "misses"), side


@dataclass
class Context:
    """What an experiment gets: where to write, how to run, its parameters, where to put
    claims and observations."""

    out: Path
    full: bool = False
    progress: bool = False
    experiment: Optional[Experiment] = None
    overrides: dict = field(default_factory=dict)
    single_seed: bool = False
    claims: list[Claim] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    multi_seed: bool = False
    links: set[str] = field(default_factory=set)
    #: ``--traces DIR``: read the experiment's traces from this folder instead of the shipped ones.
    traces_dir: Optional[Path] = None

    # -- inputs ------------------------------------------------------------------------
    def trace(self, name: str) -> str:
        """The `file` value of a scenario's trace channel for the declared trace `name`:
        ``builtin:NAME``, or the file of that name in ``--traces DIR``."""
        if self.experiment is not None and name not in self.experiment.traces:
            raise KeyError(f"{self.experiment.name}: trace {name!r} not declared (declared: "
                           f"{', '.join(self.experiment.traces) or 'none'})")
        if self.traces_dir is None:
            return BUILTIN_PREFIX + name
        return str((self.traces_dir / name).resolve())

    # -- parameters --------------------------------------------------------------------
    def param(self, name: str) -> Any:
        """The value of the assumed parameter `name` (the experiment's :class:`Assumption`,
        unless a sensitivity run overrides it)."""
        if name in self.overrides:
            return self.overrides[name]
        if self.experiment is not None:
            for a in self.experiment.assumptions:
                if a.name == name:
                    return a.value
        raise KeyError(f"no assumption {name!r} declared")

    def seeds(self, seeds: Sequence[int]) -> list[int]:
        """The seeds to run: all of them, or the first in a sensitivity run."""
        seeds = list(seeds)
        if len(seeds) > 1:
            self.multi_seed = True
        return seeds[:1] if self.single_seed else seeds

    def subset(self, values: Sequence[Any], sensitivity: Sequence[Any]) -> list[Any]:
        """`values`, or the smaller `sensitivity` set in a sensitivity run (which the
        default's re-run then uses too: the experiment counts as multi-seed)."""
        self.multi_seed = True
        return list(sensitivity) if self.single_seed else list(values)

    # -- running -----------------------------------------------------------------------
    def run(self, label: str, scenario: Mapping[str, Any]) -> Result:
        """Runs `scenario` (a mapping as in a TOML file) and writes its outputs under
        ``runs/<label>/``."""
        text = tomli_w.dumps(dict(scenario))
        self.links.add(link_of(scenario))
        result = run_scenario(scenario, progress=self.progress, label=label)
        write_result(result, self.out / "runs" / label, scenario_text=text)
        return result

    def run_many(self, items: Sequence[tuple[str, Mapping[str, Any]]], keep: Callable[[Result], Any] | None = None,
                 workers: int | None = None) -> list[Any]:
        """Runs ``(label, scenario)`` pairs in parallel on the local cores (as
        :meth:`run`, each writing ``runs/<label>/``) and returns, in the order given,
        ``keep(result)`` for each — by default the run's summary dict. `keep` runs in the
        worker and must be a module-level function; keep what it returns small (a few
        numbers or a small table), so that memory stays flat over many runs."""
        from ..parallel import run_parallel

        jobs = [(label, tomli_w.dumps(dict(sc)), str(self.out / "runs" / label), keep) for label, sc in items]
        self.links.update(link_of(sc) for _, sc in items)
        out: list[Any] = [None] * len(jobs)
        for i, value in run_parallel(_run_job, jobs, workers=workers, progress=self.progress,
                                     description=f"{len(jobs)} runs"):
            out[i] = value
        return out

    def run_lln(self, label: str, scenario: Mapping[str, Any]):
        """Runs an LLN `scenario` (a mapping with an ``lln`` table) and writes its outputs
        under ``runs/<label>/``."""
        from ..lln import run_lln_text, write_lln_result

        text = tomli_w.dumps(dict(scenario))
        self.links.add("lln")
        result = run_lln_text(text)
        write_lln_result(result, self.out / "runs" / label, scenario_text=text)
        return result

    # -- results -----------------------------------------------------------------------
    def check(self, id: str, ours: Any, detail: str = "", guards: Sequence[Guard] = ()) -> Claim:
        """Judges the declared claim `id` with our measured value (None: could not be
        measured, a miss) by the one rule. A claim that holds by the rule but fails one of
        its `guards` is a miss (side "guard"): it would hold for the wrong reason."""
        if self.experiment is None:
            raise RuntimeError("check() needs the experiment's claim definitions")
        d = self.experiment.claim_def(id)
        if any(c.id == id for c in self.claims):
            raise ValueError(f"{self.experiment.name}: claim {id!r} checked twice")
        verdict, side = _judge(d.target, ours)
        failed = [g for g in guards if not g.ok]
        if verdict == "holds" and failed:
            verdict, side = "misses", "guard"
        c = Claim(d.id, d.what, d.paper, d.location, d.line, d.quote, target_dict(d.target), ours, verdict, side, detail,
                  [asdict(g) for g in guards])
        self.claims.append(c)
        return c

    def observe(self, id: str, what: str, ours: Any, paper: str = "", detail: str = "") -> None:
        """Records a measured row that is not counted."""
        if any(o.id == id for o in self.observations):
            raise ValueError(f"observation {id!r} recorded twice")
        self.observations.append(Observation(id, what, ours, paper, detail))

    def finish(self) -> None:
        """Checks that every declared claim was checked, and puts them in declaration order."""
        if self.experiment is None:
            return
        order = [c.id for c in self.experiment.claims]
        done = {c.id for c in self.claims}
        missing = [cid for cid in order if cid not in done]
        if missing:
            raise RuntimeError(f"{self.experiment.name}: declared claims not checked: {', '.join(missing)}")
        self.claims.sort(key=lambda c: order.index(c.id))


def _run_job(job: tuple[str, str, str, Callable[[Result], Any] | None]) -> Any:
    """One job of :meth:`Context.run_many` (module level, so worker processes can run it)."""
    from ..api import run_text

    label, text, folder, keep = job
    result = run_text(text, ".", label=label)
    write_result(result, Path(folder), scenario_text=text)
    return keep(result) if keep is not None else result.summary


# --------------------------------------------------------------------------------------
# Running one experiment (claims, then the assumptions' sensitivity) and writing it out.

@dataclass
class Outcome:
    """What one reproduction produced."""

    experiment: Experiment
    full: bool
    claims: list[Claim]
    observations: list[Observation]
    sensitivity: list[dict]
    sensitivity_seeds: str = ""
    #: The link models its runs used (:func:`links_text`).
    link: str = DEFAULT_LINK
    #: The traces it read (:func:`trace_inputs`).
    inputs: list = field(default_factory=list)

    def to_json(self) -> dict:
        e = self.experiment
        return {
            "name": e.name, "title": e.title, "paper": e.paper, "link": self.link, "full": self.full,
            "rule": {"ratio_tolerance": RATIO_TOLERANCE, "bound_tolerance": BOUND_TOLERANCE},
            "claims": [_jsonable(asdict(c)) for c in self.claims],
            "observations": [_jsonable(asdict(o)) for o in self.observations],
            "assumptions": [_jsonable(asdict(a)) for a in e.assumptions],
            "given": [_jsonable(asdict(g)) for g in e.given],
            "out_of_reach": [_jsonable(asdict(x)) for x in e.out_of_reach],
            "sensitivity": _jsonable(self.sensitivity),
            "sensitivity_seeds": self.sensitivity_seeds,
            "inputs": {"traces": self.inputs},
        }


def _jsonable(v: Any) -> Any:
    if isinstance(v, float):
        return None if math.isnan(v) or math.isinf(v) else v
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


def check_traces(exp: Experiment, traces_dir: Optional[Path]) -> None:
    """Raises :class:`InputError` unless every trace `exp` reads is a regular file in
    `traces_dir` (``--traces DIR``; None: the shipped traces, always there). Other files in
    the folder are ignored."""
    if traces_dir is None or not exp.traces:
        return
    if not traces_dir.is_dir():
        raise InputError(f"--traces {str(traces_dir)!r}: not a folder (expected a folder holding "
                         f"{', '.join(exp.traces)})")
    missing = [t for t in exp.traces if not (traces_dir / t).is_file()]
    if missing:
        raise InputError(f"--traces {str(traces_dir)!r}: {exp.name} reads {', '.join(missing)}, not found there as "
                         f"regular files (it reads {', '.join(exp.traces)}; other files are ignored)")


def trace_inputs(exp: Experiment, traces_dir: Optional[Path]) -> list[dict]:
    """The traces `exp` read, each with where it came from and its SHA-256 (claims.json's
    ``inputs``)."""
    rows = []
    for t in exp.traces:
        path = builtin_trace_path(t) if traces_dir is None else (traces_dir / t).resolve()
        rows.append({"trace": t, "source": "builtin" if traces_dir is None else str(path),
                     "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
    return rows


def run_experiment(exp: Experiment, out: Path, *, full: bool = False, progress: bool = False,
                   sensitivity: bool = True, on_step: Callable[[str], None] | None = None,
                   traces_dir: Optional[Path] = None) -> Outcome:
    """Runs `exp` into `out` (claims, observations), then — with `sensitivity` — once per
    alternative value of each assumption, in quick mode with one seed, into
    ``out/sensitivity/<name>=<value>/``, and collects the claims' values there. Its traces
    are the shipped ones, or those of `traces_dir` (checked first: :class:`InputError`)."""
    check_traces(exp, traces_dir)
    ctx = Context(out=out, full=full, progress=progress, experiment=exp, traces_dir=traces_dir)
    exp.func(ctx)
    ctx.finish()
    if on_step:
        on_step("claims")
    table: list[dict] = []
    seeds_note = ""
    if sensitivity and any(a.alternatives for a in exp.assumptions):
        base = ctx
        if ctx.multi_seed or full:
            # The alternatives run quick with one seed: compare them with the default run
            # the same way.
            base = Context(out=out / "sensitivity" / "default", progress=False, experiment=exp, single_seed=True,
                           traces_dir=traces_dir)
            exp.func(base)
            base.finish()
            if on_step:
                on_step("sensitivity: default, one seed")
            seeds_note = ("quick mode, first seed only" + (f"; {exp.sensitivity_note}" if exp.sensitivity_note else "")
                          + " (the default row re-run the same way)")
        else:
            seeds_note = "quick mode, the reproduction's own seed"
        for a in exp.assumptions:
            for alt in a.alternatives:
                sub = Context(out=out / "sensitivity" / f"{a.name}={_slug(alt)}", progress=False, experiment=exp,
                              overrides={a.name: alt}, single_seed=True, traces_dir=traces_dir)
                exp.func(sub)
                sub.finish()
                if on_step:
                    on_step(f"sensitivity: {a.name} = {alt}")
                ids = a.affects or tuple(c.id for c in exp.claims)
                for cid in ids:
                    b = next(c for c in base.claims if c.id == cid)
                    s = next(c for c in sub.claims if c.id == cid)
                    table.append({"assumption": a.name, "default": a.value, "value": alt, "claim": cid,
                                  "paper": b.target["paper"], "ours_default": b.ours, "verdict_default": b.verdict,
                                  "ours": s.ours, "verdict": s.verdict})
    return Outcome(exp, full, ctx.claims, ctx.observations, table, seeds_note, links_text(ctx.links),
                   trace_inputs(exp, traces_dir))


def _slug(v: Any) -> str:
    return str(v).replace("/", "_").replace(" ", "")


def fmt(v: Any) -> str:
    """A measured value as text."""
    if v is None:
        return "—"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "—"
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
    if isinstance(v, Mapping):
        return ", ".join(f"{k} {fmt(x)}" for k, x in sorted(v.items(), key=lambda kv: -kv[1] if isinstance(kv[1], (int, float)) else 0))
    return str(v)


def guard_text(guards: Sequence[Mapping[str, Any]]) -> str:
    """A claim's guards as text for its verdict cell: each failed one, or that all passed."""
    if not guards:
        return ""
    failed = [g for g in guards if not g["ok"]]
    if failed:
        return "; guard failed: " + "; ".join(f"{g['what']} ({g['measured']})" for g in failed)
    return "; guards met: " + "; ".join(f"{g['what']} ({g['measured']})" for g in guards)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def claims_markdown(o: Outcome) -> str:
    """claims.md: the claims, the observations, the assumptions and their sensitivity."""
    e = o.experiment
    held = sum(c.holds for c in o.claims)
    lines = [f"# {e.title}", "", f"Paper: {e.paper}. Link model: {o.link}. "
             f"{'Full' if o.full else 'Quick'} runs. Claims held: **{held} / {len(o.claims)}**; "
             f"observations: {len(o.observations)}.", "",
             f"The rule: a point value holds within ×/÷ {RATIO_TOLERANCE:g}, a range inside it, a bound past it by at "
             f"most {BOUND_TOLERANCE:.0%}, an order strictly (see docs/reproductions.md).", "",
             "## Claims", "", "| claim | paper (location) | quote | paper value | ours | tolerance | verdict |",
             "|---|---|---|---|---|---|---|"]
    for c in o.claims:
        v = "holds" if c.holds else f"**misses** ({c.side})"
        v += guard_text(c.guards)
        lines.append(f"| {_cell(c.what)}{' — ' + _cell(c.detail) if c.detail else ''} | "
                     f"{PAPERS[c.paper][0]}, {_cell(c.location)}, line {c.line} | “{_cell(c.quote)}” | "
                     f"{_cell(c.target['paper'])} | {_cell(fmt(c.ours))} | {_cell(c.target['tolerance'])} | {v} |")
    if o.observations:
        lines += ["", "## Observations (not counted)", "", "| observation | ours | paper |", "|---|---|---|"]
        for ob in o.observations:
            lines.append(f"| {_cell(ob.what)}{' — ' + _cell(ob.detail) if ob.detail else ''} | {_cell(fmt(ob.ours))} | "
                         f"{_cell(ob.paper) or '—'} |")
    if e.given:
        lines += ["", "## Set-up values the paper gives (used as given)", "", "| parameter | value | where | paper's words |",
                  "|---|---|---|---|"]
        for g in e.given:
            lines.append(f"| `{g.name}` | {_cell(g.value)} | {PAPERS[g.paper][0]}, {_cell(g.location)}, line {g.line} | "
                         f"“{_cell(g.quote)}” |")
    if e.out_of_reach:
        lines += ["", "## Results of the paper no claim or observation covers, and why", "",
                  "| paper (location) | paper's words | why no claim covers it |", "|---|---|---|"]
        for x in e.out_of_reach:
            lines.append(f"| {PAPERS[x.paper][0]}, {_cell(x.location)}, line {x.line} | “{_cell(x.quote)}” | "
                         f"{_cell(x.reason)} |")
    if e.assumptions:
        lines += ["", "## Parameters the paper does not give", "", "| parameter | ours | where it comes from | also run at |",
                  "|---|---|---|---|"]
        for a in e.assumptions:
            lines.append(f"| `{a.name}` | {_cell(a.value)} | {_cell(a.source)} | "
                         f"{', '.join(_cell(x) for x in a.alternatives) or '—'} |")
    if o.sensitivity:
        lines += ["", f"## Sensitivity to those parameters (observations; {o.sensitivity_seeds})", "",
                  "| parameter | value | claim | paper | ours at the default | ours at this value |",
                  "|---|---|---|---|---|---|"]
        for r in o.sensitivity:
            lines.append(f"| `{r['assumption']}` | {_cell(r['value'])} (default {_cell(r['default'])}) | {r['claim']} | "
                         f"{_cell(r['paper'])} | {_cell(fmt(r['ours_default']))} ({r['verdict_default']}) | "
                         f"{_cell(fmt(r['ours']))} ({r['verdict']}) |")
    return "\n".join(lines) + "\n"


def write_claims(o: Outcome, out: Path) -> None:
    """Writes claims.json and claims.md into `out`."""
    (out / "claims.json").write_text(json.dumps(o.to_json(), indent=2, ensure_ascii=False) + "\n")
    (out / "claims.md").write_text(claims_markdown(o))


_LATEX = {r"\times": "×", r"\lambda": "λ", r"\epsilon": "ϵ", r"\tau": "τ", r"\rho": "ρ", r"\beta": "β"}


def quote_key(text: str) -> str:
    """`text` reduced to what a quote must share with the paper: LaTeX symbols as
    characters, markup, spacing, punctuation and line-break hyphens dropped, case folded.
    ``quote_key(quote)`` must occur in ``quote_key`` of the paper's lines from the quote's
    line on (tests/test_reproductions.py)."""
    for k, v in _LATEX.items():
        text = text.replace(k, v)
    return "".join(ch for ch in text.lower() if ch.isalnum() or ch in "%.×λϵτρβ")


def paper_path(key: str, papers_dir: Path) -> Path:
    """The plain-text file of paper `key` in `papers_dir`."""
    return papers_dir / PAPERS[key][1]


def jain(xs) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²); 1 for an empty or all-zero list (as the
    simulator's ``jain_index``)."""
    xs = list(xs)
    s, s2 = sum(xs), sum(x * x for x in xs)
    return 1.0 if not xs or s2 == 0 else s * s / (len(xs) * s2)


#: The order in which `--all` runs them and the scoreboard lists them.
ORDER = ("pf-fairness", "lpt-fifo-vs-cell", "legilimens-onoff", "legilimens-queues", "legilimens-fairness",
         "legilimens-sensitivity", "legilimens-mobile", "legilimens-at-scale", "thesis-randomized", "legilimens-ablation",
         "sneaker-prioritization",
         "sneaker-scaling", "sneaker-fairness", "sneaker-at-scale", "bode", "bode-diffserv", "bode-apps", "rtac", "sorpc", "dtpa")


def load_all() -> None:
    """Imports every module of this package so that the reproductions in them register: a
    new reproduction is its module file (docs/extending/reproduction.md)."""
    import importlib
    import pkgutil

    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")


def all_experiments() -> list[Experiment]:
    """Every registered reproduction, in :data:`ORDER` (then any others by name)."""
    load_all()
    known = [REGISTRY[n] for n in ORDER if n in REGISTRY]
    return known + sorted((e for n, e in REGISTRY.items() if n not in ORDER), key=lambda e: e.name)
