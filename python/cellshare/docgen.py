"""Generated sections of the documentation: numbers on pages come from the artefacts that
measure them.

A page marks a section with ``<!-- generated: RENDERER ARGS -->`` … ``<!-- end generated -->``,
on lines of their own (a block: a table, a paragraph) or inside a sentence (an inline value).
Everything between the markers is what :data:`RENDERERS` produce from the committed
artefacts; nothing in it is typed by hand:

- ``python/cellshare/data/scoreboard.json`` (``cellshare reproduce --all --full --update-docs``): the
  reproductions, their claims and observations, verdicts and run times;
- ``tools/data/bench.json`` (``python -m cellshare.bench --out tools/data/bench.json``): every
  benchmark variant measured in one session, with the machine it ran on;
- ``tools/data/emu-crosscheck-traces.json``: the emulator cross-check's table, with the
  ``cellshare crosscheck`` command that measured it (Linux runs are not deterministic: a new
  run gives other numbers; its ``crosscheck.md`` rows go into the file's ``cases``);
- ``tools/data/ns3-crosscheck-*.json`` (``tools/ns3_crosscheck.py --out DIR``, which needs the
  ``ns3`` wheel): the tool's ``crosscheck.json`` (its ``args`` and ``rows``), with the command
  and the machine added, or several such runs under ``runs``;
- ``tools/data/emu-crosscheck-multiflow.json`` (``python -m cellshare.docmeasure emu-multiflow
  --out FILE``): the multi-flow emulator cross-checks;
- ``tools/data/emu-nr.json`` (``python tools/emu_nr_measure.py --out FILE``, as root): the
  emulator's slot lateness on LTE and NR per numerology, and the NR scenario's cross-check;
- ``tools/data/apps-speed.json``, ``tools/data/memory.json``, ``tools/data/sweep-memory.json``
  (``python -m cellshare.docmeasure apps|memory|sweep --out FILE``): the apps' speed, the
  memory estimated against measured, a sweep's memory, each with its command and machine;
- ``tools/data/legilimens-in-step.json`` (``python -m cellshare.docmeasure legilimens-in-step
  --out FILE``): the simulator's Legilimens backgrounds started in step or apart;
- ``tools/data/nr-lena-compare.json`` (``python tools/nr_lena.py compare``): cellshare's NR
  cell against the stored 5G-LENA run;
- the code itself for the limits and constants pages quote (``limits``, ``limits-const``,
  ``code-const``) and the sweep files whose runs the tour counts (``sweep-tour``).

Renderers that serve one page live in that page's module of :mod:`cellshare.docpages`
(``legilimens_ns3`` for ``docs/legilimens-ns3.md``); docgen adds them to :data:`RENDERERS`.

The scoreboard blocks of ``README.md`` and ``docs/reproductions.md`` keep their own markers
(:mod:`cellshare.reproduce.scoreboard` renders them); :func:`rendered` includes them, so
``python -m cellshare.docgen --write`` rewrites every generated section of every page and
``python -m cellshare.docgen --check`` (and ``tests/test_docgen.py``) fails on a page that
differs from what the artefacts render.

Renderers (``ARGS`` are words after the name):

``value REP ID [pct|x|s|ms]``
    The measured value of claim or observation ``ID`` of reproduction ``REP`` (inline).
``range REP ID ID... [pct|x|s|ms]``
    The lowest and the highest of those claims' or observations' values, ``88–180×``, or of
    one's values per key (inline).
``sens REP ASSUMPTION=VALUE CLAIM[KEY] [pct|x|s|ms]``
    A claim's value (one key of it) in the scoreboard's sensitivity run at that value of an
    assumed parameter (inline). Arguments are split as a shell splits words, so a value with
    spaces is quoted: ``sens dtpa "mac=802.15.4 default" dtpa-fairer-10[Reno]``.
``verdict REP ID``
    ``holds`` or ``misses`` (inline).
``claims REP``
    A table of ``REP``'s claims: what, the paper's value, ours, the verdict (block).
``dict-table REP ID[=Column_label] ...``
    A table of measured values that are given per key (per scheme, per AQM): one row per key,
    one column per ID (block).
``reproductions [REP ...]``
    A table of the reproductions (all, or those named): title, paper, claims held (block).
``links``
    Each reproduction's link model, as the scoreboard read it off its scenarios (block).
``reproduction-count``, ``claims-held``
    The number of reproductions; claims held / claims over all of them (inline).
``reproduction-cost``
    Wall and CPU time of ``cellshare reproduce --all`` as committed, and the costliest
    reproductions (block).
``bench-machine``
    The machine and load ``tools/data/bench.json`` was measured on (inline).
``bench-speed RUN``
    A run's median speed and peak RSS, with the machine (inline).
``bench-ratio NAME``
    A ratio measured within the benchmark session, e.g. ``realistic_over_ideal`` (inline).
``bench WHICH``
    ``single``, ``network``, ``transports`` or ``ues``: that benchmark's table (block).
``ns3-speed FILE``
    ns-3's and cellshare's wall time for the same scenarios, from a cross-check artefact in
    ``tools/data`` (inline).
``ns3-power FILE``
    The lone CUBIC flow's rate at each eNB power in cellshare and in ns-3, one row per simulator
    and radio model of each run the file holds (``tools/data/ns3-crosscheck-cubic-power.json``:
    ``tools/ns3_crosscheck.py --case cubic`` with the ideal link against ns-3's ``PiroEW2010``
    AMC and with the realistic link against ns-3's defaults; block).
``ns3-power-run FILE#RUN``
    One run of that file: per eNB power its SNR, both sides' rates and their ratio (block).
``ns3-power-ratio FILE RUN:SIDE RUN:SIDE``
    The lowest and highest ratio over the powers of one side of one run to another's (inline).
``ns3-shares FILE[#RUN]``
    The background case of ``tools/ns3_crosscheck.py``: foreground and background rates,
    cellshare / ns-3, per background and layout (block).
``ns3-rate FILE[#RUN] LABEL SIDE KEY``
    One rate of a cross-check run, e.g. ``same/ledbat ns3 bg`` (inline).
``ns3-background FILE``
    The background case as ``tools/ns3_crosscheck.py`` prints it: per layout and background,
    foreground, background per flow and cell total, cellshare / ns-3, and the ratio of the
    totals (block).
``ns3-agree FILE PCT``, ``ns3-total-diff FILE LABEL``, ``ns3-total-diff FILE except LABEL...``
    In how many runs both shares are within PCT % of ns-3's; cellshare's cell total against
    ns-3's in one run, or the range over the others (inline).
``ns3-variants FILE LABEL [PREFIX]``
    ``tools/data/ns3-crosscheck-background-variants.json`` (``python
    tools/ns3_background_variants.py --out FILE``): cellshare's side of run LABEL with one
    setting changed at a time (the variants named PREFIX...), against the stored ns-3 runs (block).
``ns3-udp FILE``, ``ns3-udp-diff FILE MBIT [common|others]``, ``ns3-speed-udp FILE``
    The single saturated UDP receiver at each distance, ``tools/data/ns3-crosscheck-udp.json``
    (``tools/ns3_crosscheck.py --case udp``): SNR, both sides' rates, ratio, ns-3's MCS (block);
    the span of the differences where ns-3 carries more than MBIT Mbit/s, the most common one,
    or the others and where (inline); both sides' wall time per run (inline).
``ns3-link FILE[#RUN] LABEL SIDE KEY [pct]``, ``ns3-link-span FILE LABEL SIDE KEY PREFIX``
    One HARQ/link count or rate of a UDP run, a count as a share of the new blocks with
    ``pct``; the span of a rate over a variants file's reused run and its runs named PREFIX...
    (``tools/data/ns3-crosscheck-harq-variants.json``, ``python tools/ns3_harq_variants.py``)
    (inline).
``ns3-control LABEL [count]``
    The share (or count) of ns-3's new blocks its UE never saw (missed control information) at
    one distance, ``tools/data/ns3-crosscheck-udp-control.json`` (``tools/ns3_udp_control.py``),
    checked to be the stored UDP cross-check's run (inline).
``ns3-harq FILE[#RUN]``, ``ns3-harq-diff FILE[#RUN]``
    HARQ retransmissions per new block on a fading channel, ``tools/data/ns3-crosscheck-harq.json``
    (``tools/ns3_crosscheck.py --case harq``): the table (block); the span of cellshare's over
    ns-3's (inline).
``c2tcp QUEUE``, ``c2tcp-range QUEUE CC rtt|ratio|goodput [TRACE...]``
    C2TCP against CUBIC on the shipped traces, from ``tools/data/c2tcp-validation.json``
    (``python tools/transports_validation.py c2tcp``): the table at one base-station queue
    (block); the range of one controller's mean RTT, throughput over CUBIC's or goodput over
    traces (inline).
``fig7-ns3``, ``fig7-ns3-value cellshare|ns-3 KEY [pct|x]``, ``fig7-ns3-value diff KEY...``, ``fig7-recapture``
    Figure 7 in cellshare and in ns-3 with Legilimens, from
    ``tools/data/legilimens-ns3-fig7-metrics.json`` (``python tools/legilimens_study.py fig7
    --cellshare-only``): the table (block); one metric, or the range of ns-3's differences
    (inline); cellshare's recapture over 90 stops (inline).
``westwood``, ``westwood-value LOSS reno|westwood|ratio``
    Westwood+ against NewReno under random loss, cellshare's side, from
    ``tools/data/westwood-validation.json`` (``python tools/transports_validation.py westwood``):
    the table (block); one mean goodput or the ratio at a loss rate (inline).
``westwood-ns3``, ``westwood-ns3-value LOSS cellshare|ns3 reno|westwood|ratio``
    The same with ns-3's TcpWestwoodPlus and TcpNewReno beside, from one run of both,
    ``tools/data/westwood-ns3.json`` (``tools/transports_validation.py westwood --ns3``): the
    table with the run's wall time and machine (block); one side's mean goodput or ratio (inline).
``ns3-walls FILE``
    Both sides' wall time over a cross-check's runs and its ``every`` runs, with the machine and
    the command (inline).
``limits``
    The input limits and their defaults, read off the code: ``MAX_SCENARIO_BYTES``,
    ``sweeps.MAX_RUNS``, the validator's range for a group's ``count`` and the constants of
    ``crates/sim/src/limits.rs`` (block).
``limits-const NAME [MiB]``
    A constant of ``crates/sim/src/limits.rs`` (inline).
``code-const MODULE.NAME [KB|MB]``
    An integer constant of a cellshare module, ``sweeps.TASKS_PER_WORKER`` (inline).
``emu-crosscheck``
    The simulator against Linux TCP in the emulator over four cellular traces, from
    ``tools/data/emu-crosscheck-traces.json`` (block; the file names the ``cellshare crosscheck``
    command that measured it).
``emu-within throughput|rtt|retx_per_drop|timeouts``
    How many of those cases are within the criterion's tolerance, and the largest difference
    (inline).
``emu-multiflow``, ``emu-multiflow-verdict SCENARIO``, ``emu-multiflow-machine``
    The simulator against Linux with several flows at once (ten CUBIC flows; a foreground
    beside low-priority backgrounds), one row per flow, from
    ``tools/data/emu-crosscheck-multiflow.json`` (``python -m cellshare.docmeasure
    emu-multiflow``): the table (block), a case's verdict and what it misses (inline), and the
    machine (inline).
``emu-nr``, ``emu-nr-held``, ``emu-nr-machine``, ``emu-nr-crosscheck``
    The emulator's slot lateness on LTE and on NR at each numerology, from
    ``tools/data/emu-nr.json`` (``python tools/emu_nr_measure.py --out FILE``): the table
    (block), the numerologies that kept real time in every run (inline), the machine and the
    command (inline), and the NR scenario's ``cellshare crosscheck`` per flow (block).
``apps-speed``
    The speed of ``scenarios/apps-100ues.toml`` and of a call, a stream and bulk TCP at every
    UE, per CPU second, from ``tools/data/apps-speed.json`` (block: a paragraph).
``memory``, ``memory-ratio``
    The memory table, estimated against measured peaks, from ``tools/data/memory.json``
    (block); the lowest and highest estimate / peak (inline).
``sweep-memory``
    Wall and CPU time and peak RSS of sweeps of growing size, of writing their dataset alone
    and of their report, and the cost of replacing workers more often, from
    ``tools/data/sweep-memory.json`` (block).
``sweep-tour SWEEP_FILE OUT``
    The tour's sweep and report commands, the comment counting the sweep file's runs as the
    sweep module expands them (block: a fenced code block of its own).
``legilimens-in-step``, ``legilimens-in-step-value CASE KEY``
    Legilimens backgrounds started in step or apart, one row per case, from
    ``tools/data/legilimens-in-step.json`` (block); one case's number, e.g. ``fixed-together
    fg_mbps`` (inline).
``nr-lena [FILE]``, ``nr-lena-range KEY [FILE]``
    cellshare's NR cell against 5G-LENA, one row per distance, from
    ``tools/data/nr-lena-compare.json`` (block); the lowest and highest of a per-distance ratio,
    ``throughput_ratio`` or ``standard_over_matched`` (inline).
``figure NAME``
    The figure ``docs/img/NAME.png`` with its title as the alternative text and its caption
    (block).

Figures (:data:`FIGURES`) are drawn by ``python -m cellshare.docgen --figures`` from the same
artefacts. Each builder reads its numbers off an artefact into a plain record (title, panels,
axis labels with units, values, caption); the figure is drawn from that record alone, and the
SHA-256 of the record is stored in the PNG's ``cellshare-data-sha256`` text chunk. A figure is
stale when the artefacts give a record with another digest: the check does not depend on the
PNG's bytes, which differ between matplotlib versions, and needs no drawing.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Callable, Optional

from .blocks import DocgenError, replace_block  # noqa: F401  (re-exported: the docgen API)
from .reproduce import fmt

ROOT = Path(__file__).resolve().parents[2]
SCOREBOARD = "python/cellshare/data/scoreboard.json"
BENCH = "tools/data/bench.json"
COMMAND = "python -m cellshare.docgen --write"

#: A generated section: the opening marker (renderer and arguments), its content, the end.
SECTION = re.compile(r"(<!-- generated: (?P<spec>[^\n]*?) -->)(?P<body>.*?)(<!-- end generated -->)", re.S)
#: Where a section opens, matched or not (an opening without its end, or not closed on its line).
OPENING = re.compile(r"<!-- generated:")


def _pages(root: Path) -> list[Path]:
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


class _Artefacts:
    """The committed artefacts, each read once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[str, dict] = {}

    def load(self, rel: str) -> dict:
        if rel not in self._cache:
            p = self.root / rel
            try:
                self._cache[rel] = json.loads(p.read_text())
            except FileNotFoundError:
                raise DocgenError(f"{rel} not found (generated by its own command; see cellshare.docgen)") from None
        return self._cache[rel]

    @property
    def board(self) -> dict:
        return self.load(SCOREBOARD)

    @property
    def bench(self) -> dict:
        return self.load(BENCH)

    def reproduction(self, name: str) -> dict:
        for e in self.board["reproductions"]:
            if e["name"] == name:
                return e
        raise DocgenError(f"reproduction {name!r} is not in {SCOREBOARD}")

    def result(self, rep: str, ident: str) -> dict:
        e = self.reproduction(rep)
        for c in e["claims"] + e["observations"]:
            if c["id"] == ident:
                return c
        raise DocgenError(f"reproduction {rep!r} has no claim or observation {ident!r} in {SCOREBOARD}")


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _format(v, how: str) -> str:
    if how == "pct":
        return f"{v * 100:.2g} %" if abs(v) < 0.1 else f"{v * 100:.0f} %"
    if how == "x":
        return f"{fmt(v)}×"
    if how in ("s", "ms"):
        return f"{fmt(v)} {how}"
    return fmt(v)


def _args(args: list[str], n: int, name: str, usage: str) -> list[str]:
    if len(args) < n:
        raise DocgenError(f"renderer {name!r}: expected `{usage}`, got {' '.join(args) or 'no arguments'}")
    return args


def r_value(a: _Artefacts, args: list[str]) -> str:
    rep, ident, *how = _args(args, 2, "value", "value REP ID [pct|x|s|ms]")
    return _format(a.result(rep, ident)["ours"], how[0] if how else "")


def r_range(a: _Artefacts, args: list[str]) -> str:
    rep, *ids = _args(args, 2, "range", "range REP ID ID... [pct|x|s|ms]")
    how = ids.pop() if ids[-1] in ("pct", "x", "s", "ms") else ""
    one = a.result(rep, ids[0])["ours"] if len(ids) == 1 else None
    if isinstance(one, dict):
        vals = sorted(one.values())
    elif len(ids) < 2:
        raise DocgenError("renderer 'range': expected `range REP ID ID... [pct|x|s|ms]`: two IDs or more, or one ID "
                          "with a value per key")
    else:
        vals = sorted(a.result(rep, i)["ours"] for i in ids)
    lo, hi = _format(vals[0], how), _format(vals[-1], how)
    unit = {"x": "×", "pct": " %", "s": " s", "ms": " ms"}.get(how, "")
    return f"{lo.removesuffix(unit)}–{hi}" if unit and lo.endswith(unit) else f"{lo}–{hi}"


def r_sens(a: _Artefacts, args: list[str]) -> str:
    """``sens REP ASSUMPTION=VALUE CLAIM[KEY] [pct|x|s|ms]``: a claim's value in the scoreboard's
    sensitivity run at that value of an assumed parameter (inline)."""
    rep, setting, claim, *how = _args(args, 3, "sens", "sens REP ASSUMPTION=VALUE CLAIM[KEY] [pct|x|s|ms]")
    return _format(sens_value(a, rep, setting, claim, "sens"), how[0] if how else "")


def sens_value(a: _Artefacts, rep: str, setting: str, claim: str, renderer: str, field: str = "ours"):
    """A claim's value (``CLAIM`` or one key, ``CLAIM[KEY]``) in ``rep``'s sensitivity row at
    ``ASSUMPTION=VALUE``: what the run at that value gave (``ours``), or the default re-run
    beside it (``ours_default``)."""
    name, eq, value = setting.partition("=")
    m = re.fullmatch(r"([^\[\]]+)(?:\[([^\]]+)\])?", claim)
    if not eq or not m:
        raise DocgenError(f"renderer {renderer!r}: expected `{renderer} REP ASSUMPTION=VALUE CLAIM[KEY]`, "
                          f"got {rep} {setting} {claim}")
    cid, key = m.group(1), m.group(2)
    for r in a.reproduction(rep).get("sensitivity", []):
        if r["assumption"] == name and str(r["value"]) == value and r["claim"] == cid:
            v = r[field]
            if key is not None:
                if not isinstance(v, dict) or key not in v:
                    raise DocgenError(f"renderer {renderer!r}: {rep} {setting} {cid} has no value for {key!r}")
                return v[key]
            if isinstance(v, dict):
                raise DocgenError(f"renderer {renderer!r}: {rep} {setting} {cid} is a value per key: name one, {cid}[KEY]")
            return v
    raise DocgenError(f"renderer {renderer!r}: {rep} has no sensitivity row {name} = {value} for claim {cid!r} in {SCOREBOARD}")


def r_verdict(a: _Artefacts, args: list[str]) -> str:
    rep, ident = _args(args, 2, "verdict", "verdict REP ID")[:2]
    c = a.result(rep, ident)
    if "verdict" not in c:
        raise DocgenError(f"{rep}/{ident} is an observation: it has no verdict")
    return "holds" if c["verdict"] == "holds" else "misses"


def r_claims(a: _Artefacts, args: list[str]) -> str:
    rep = _args(args, 1, "claims", "claims REP")[0]
    e = a.reproduction(rep)
    held = sum(c["verdict"] == "holds" for c in e["claims"])
    lines = [f"`{rep}`: {held} of {len(e['claims'])} claims hold ([the scoreboard](reproductions.md#{rep}) has the "
             "paper's words and the cause of every miss).", "",
             "| claim | paper | ours | verdict |", "|---|---|---|---|"]
    for c in e["claims"]:
        verdict = "holds" if c["verdict"] == "holds" else f"**misses** ({c.get('side', '')})"
        lines.append(f"| {_cell(c['what'])} | {_cell(c['target']['paper'])} | {_cell(fmt(c['ours']))} | {verdict} |")
    return "\n".join(lines)


def r_dict_table(a: _Artefacts, args: list[str]) -> str:
    rep, *cols = _args(args, 2, "dict-table", "dict-table REP ID[=Column_label] ...")
    values, labels = [], []
    for col in cols:
        ident, _, label = col.partition("=")
        v = a.result(rep, ident)["ours"]
        if not isinstance(v, dict):
            raise DocgenError(f"renderer 'dict-table': {rep}/{ident} is not a value per key")
        values.append(v)
        labels.append(label.replace("_", " ") if label else ident)
    keys = list(values[0])
    lines = ["| " + " | ".join([""] + labels) + " |", "|---" * (len(labels) + 1) + "|"]
    for k in keys:
        lines.append("| " + " | ".join([_cell(k)] + [_cell(fmt(v.get(k))) for v in values]) + " |")
    return "\n".join(lines)


def r_reproductions(a: _Artefacts, args: list[str]) -> str:
    entries = [a.reproduction(n) for n in args] if args else a.board["reproductions"]
    lines = ["| reproduction | what it reproduces | paper | claims held |", "|---|---|---|---|"]
    for e in entries:
        held = sum(c["verdict"] == "holds" for c in e["claims"])
        lines.append(f"| [`{e['name']}`](reproductions.md#{e['name']}) | {_cell(e['title'])} | {_cell(e['paper'])} | "
                     f"{held} / {len(e['claims'])} |")
    return "\n".join(lines)


def r_links(a: _Artefacts, args: list[str]) -> str:
    lines = ["| reproduction | link model |", "|---|---|"]
    lines += [f"| [`{e['name']}`](reproductions.md#{e['name']}) | {e['link']} |" for e in a.board["reproductions"]]
    return "\n".join(lines)


def r_reproduction_count(a: _Artefacts, args: list[str]) -> str:
    return str(len(a.board["reproductions"]))


def r_claims_held(a: _Artefacts, args: list[str]) -> str:
    cs = [c for e in a.board["reproductions"] for c in e["claims"]]
    return f"{sum(c['verdict'] == 'holds' for c in cs)} / {len(cs)}"


def r_reproduction_cost(a: _Artefacts, args: list[str]) -> str:
    b = a.board
    reps = sorted(b["reproductions"], key=lambda e: -e.get("cpu_s", 0))
    lines = [f"`{b['generated_by']}`{' --full' if b.get('full') else ''} as committed took {b['wall_s']:.0f} s of wall "
             f"time and {b['cpu_s']:.0f} s of CPU time (the process and its workers; the scoreboard does not record the "
             "machine, so read them as relative costs). The costliest reproductions:", "",
             "| reproduction | wall (s) | CPU (s) | share of the CPU time |", "|---|---|---|---|"]
    for e in reps[:5]:
        lines.append(f"| `{e['name']}` | {e['wall_s']:.0f} | {e['cpu_s']:.0f} | {e['cpu_s'] / b['cpu_s']:.0%} |")
    return "\n".join(lines)


def r_bench_machine(a: _Artefacts, args: list[str]) -> str:
    m, b = a.bench["machine"], a.bench
    return (f"{m['cpu']}, {m['cores']} cores, {m['system']}, Python {m['python']}, one-minute load "
            f"{m['load_1min_before']:g} before and {m['load_1min_after']:g} after; {b['repeat']} runs of "
            f"{b['duration_s']:g} simulated s per variant, round-robin (`{b['generated_by']}`)")


def r_bench_speed(a: _Artefacts, args: list[str]) -> str:
    run = _args(args, 1, "bench-speed", "bench-speed RUN")[0]
    runs = a.bench["runs"]
    if run not in runs:
        raise DocgenError(f"renderer 'bench-speed': no run {run!r} in {BENCH} (runs: {', '.join(runs)})")
    r, m = runs[run], a.bench["machine"]
    return (f"{r['sim_speed']:.0f}× real time per CPU second ({r['wall_sim_speed']:.0f}× by the wall clock; medians), "
            f"{r['peak_rss_mb']:.0f} MB peak RSS, on {m['cores']} cores ({m['cpu']}) at a one-minute load of "
            f"{m['load_1min_before']:g}")


def r_bench_ratio(a: _Artefacts, args: list[str]) -> str:
    key = _args(args, 1, "bench-ratio", "bench-ratio NAME")[0]
    ratios = a.bench["ratios"]
    if key not in ratios:
        raise DocgenError(f"renderer 'bench-ratio': no ratio {key!r} in {BENCH} (ratios: {', '.join(ratios)})")
    return f"{ratios[key]:.2f}"


def _speed(run: dict) -> str:
    """Simulated seconds per CPU second, median (range of the runs) | by the wall clock."""
    return (f"{run['sim_speed']:.0f}× ({min(run['samples']):.0f}–{max(run['samples']):.0f}×) | "
            f"{run['wall_sim_speed']:.0f}×")


_SPEED = "speed per CPU second, median (runs) | wall clock"


_TRANSPORT_NAMES = {"westwood": "Westwood+ (TCP)", "c2tcp": "C2TCP (TCP)", "sprout": "Sprout",
                    "sprout-fast": "Sprout, `fast_inference`", "verus": "Verus", "vivace": "PCC-Vivace"}


def r_bench(a: _Artefacts, args: list[str]) -> str:
    which = _args(args, 1, "bench", "bench single|network|transports|ues")[0]
    b = a.bench
    runs, ratios = b["runs"], b["ratios"]
    if which == "single":
        lines = [f"| link | {_SPEED} | events | cell throughput | peak RSS |", "|---|---|---|---|---|---|"]
        for k, name in (("single-realistic", "realistic"), ("single-ideal", "ideal")):
            r = runs[k]
            lines.append(f"| {name} | {_speed(r)} | {r['events']:,} | {r['delivered_mbps']:.1f} Mbit/s | "
                         f"{r['peak_rss_mb']:.0f} MB |")
        lines += ["", f"Realistic / ideal speed in the same session: **{ratios['realistic_over_ideal']:.2f}**."]
    elif which == "network":
        r = runs["network"]
        lines = [f"| benchmark | {_SPEED} | events | handovers | peak RSS |", "|---|---|---|---|---|---|",
                 f"| {r['cells']} cells × {r['ues'] // r['cells']} moving UEs | {_speed(r)} | {r['events']:,} | "
                 f"{r['handovers']} | {r['peak_rss_mb']:.0f} MB |",
                 "", f"Network / single-cell speed in the same session: **{ratios['network_over_single']:.2f}**."]
    elif which == "transports":
        lines = [f"| transport (all 100 UEs) | {_SPEED} | speed / CUBIC's |", "|---|---|---|---|",
                 f"| CUBIC (TCP) | {_speed(runs['single-realistic'])} | 1 |"]
        for k, r in runs.items():
            if k.startswith("transport-"):
                t = k.removeprefix("transport-")
                lines.append(f"| {_TRANSPORT_NAMES.get(t, t)} | {_speed(r)} | {ratios[t + '_over_cubic']:.2f} |")
    elif which == "ues":
        counts = sorted([(runs["single-realistic"]["ues"], "single-realistic")] +
                        [(r["ues"], k) for k, r in runs.items() if k.startswith("ues-")])
        lines = [f"| UEs | {_SPEED} | events | CPU time per simulated second / at 100 UEs |", "|---|---|---|---|---|"]
        for n, k in counts:
            rel = 1.0 if n == 100 else ratios[f"ues_{n}_time"]
            lines.append(f"| {n} | {_speed(runs[k])} | {runs[k]['events']:,} | {rel:.2f} |")
    else:
        raise DocgenError(f"renderer 'bench': expected single, network, transports or ues, got {which!r}")
    return "\n".join(lines)


def r_ns3_speed(a: _Artefacts, args: list[str]) -> str:
    rel = _args(args, 1, "ns3-speed", "ns3-speed tools/data/FILE.json")[0]
    d = a.load(rel)
    rows = [r for r in d["rows"] if r.get("ns3_wall_s") and r.get("cellshare_wall_s")]
    if not rows:
        raise DocgenError(f"{rel} has no rows with both ns3_wall_s and cellshare_wall_s")
    dur, ues = d["args"]["duration"], d["args"]["ues"]
    ns3 = sorted(r["ns3_wall_s"] for r in rows)
    ours = sorted(r["cellshare_wall_s"] for r in rows)
    ratio = sorted(r["ns3_wall_s"] / r["cellshare_wall_s"] for r in rows)
    med = ratio[len(ratio) // 2]
    text = (f"In `{rel}` ({len(rows)} scenarios of {ues} UEs, {dur:g} simulated s each, `tools/ns3_crosscheck.py`), "
            f"ns-3 took {ns3[0]:.0f}–{ns3[-1]:.0f} s of wall time per scenario ({dur / ns3[-1]:.2f}–{dur / ns3[0]:.2f}× "
            f"real time) and cellshare {ours[0]:.2f}–{ours[-1]:.2f} s (timed to 10 ms): ns-3 / cellshare wall time "
            f"{ratio[0]:.0f}–{ratio[-1]:.0f}×, median {med:.0f}×")
    if d["args"].get("reuse_ns3"):
        text += (" (the file's cellshare side was re-run with `--reuse-ns3`, which carries ns-3's times over from the "
                 "run it reuses: the two sides were timed in different sessions, so read the ratio as an order of "
                 "magnitude)")
    return text


#: The cross-check artefacts of docs/crosscheck.md's section on the ideal link.
NS3_POWER = "tools/data/ns3-crosscheck-cubic-power.json"
#: Keys of a cross-check side that are not a flow's rate.
_NS3_NOT_RATES = ("harq", "delays", "fill", "tcp", "uplink")


def _mbit(v: float) -> str:
    """A rate in Mbit/s as the cross-check tables print it: 3 significant digits, at most 2 decimals."""
    return f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"


def _ns3_rates(side: dict) -> dict:
    """A side of a cross-check row summarised as `tools/ns3_crosscheck.py` does: the foreground
    (`fg`), the mean background flow (`bg`, 0 without one) and the cell total (`total`), Mbit/s,
    besides each flow's own rate (`fg0`, `bg1`...)."""
    rates = {k: v for k, v in side.items() if k not in _NS3_NOT_RATES}
    bg = [v for k, v in rates.items() if k.startswith("bg")]
    return {**rates, "fg": rates.get("fg0", 0.0), "bg": sum(bg) / len(bg) if bg else 0.0, "total": sum(rates.values())}


def _ns3_run(a: _Artefacts, spec: str, name: str) -> tuple[str, dict]:
    """`FILE` (the tool's own {args, rows}) or `FILE#RUN` (one of a file's `runs`): (spec, run)."""
    rel, _, run = spec.partition("#")
    d = a.load(rel)
    if run:
        if run not in d.get("runs", {}):
            raise DocgenError(f"renderer {name!r}: {rel} has no run {run!r} (runs: {', '.join(d.get('runs', {})) or 'none'})")
        d = d["runs"][run]
    if "rows" not in d or "args" not in d:
        raise DocgenError(f"renderer {name!r}: {spec} is not a tools/ns3_crosscheck.py output (args and rows)")
    return spec, d


def _ns3_row(d: dict, spec: str, label: str, name: str) -> dict:
    for r in d["rows"]:
        if "/".join(r["label"]) == label:
            return r
    raise DocgenError(f"renderer {name!r}: {spec} has no run {label!r} (runs: {', '.join('/'.join(r['label']) for r in d['rows'])})")


def _ns3_side_label(args: dict, side: str) -> str:
    if side == "cellshare":
        return f"cellshare, {args['link']} link"
    return "ns-3, `PiroEW2010` AMC" if args["ns3_amc"] == "piro" else "ns-3, default AMC (`MiErrorModel`)"


def r_ns3_power(a: _Artefacts, args: list[str]) -> str:
    """The lone CUBIC flow's rate at each eNB power, one row per simulator and radio model."""
    rel = _args(args, 1, "ns3-power", f"ns3-power {NS3_POWER}")[0]
    d = a.load(rel)
    runs = list(d.get("runs", {}).values())
    if not runs:
        raise DocgenError(f"renderer 'ns3-power': {rel} has no runs")
    labels = [r["label"][0] for r in runs[0]["rows"]]
    head = "| eNB power (SINR) | " + " | ".join(f"{p} dBm ({r['snr_db']:.1f} dB)" for p, r in zip(labels, runs[0]["rows"])) + " |"
    lines = [head, "|---" * (len(labels) + 1) + "|"]
    for run in runs:
        if [r["label"][0] for r in run["rows"]] != labels:
            raise DocgenError(f"renderer 'ns3-power': the runs of {rel} are not at the same powers")
        for side in ("cellshare", "ns3"):
            lines.append(f"| {_ns3_side_label(run['args'], side)} | "
                         + " | ".join(_mbit(r[side]["fg0"]) for r in run["rows"]) + " |")
    return "\n".join(lines)


def r_ns3_power_run(a: _Artefacts, args: list[str]) -> str:
    """``ns3-power-run FILE#RUN``: one run of the lone CUBIC flow, a row per eNB power: its SNR,
    both sides' rates and their ratio (block)."""
    spec, d = _ns3_run(a, _args(args, 1, "ns3-power-run", f"ns3-power-run {NS3_POWER}#RUN")[0], "ns3-power-run")
    if d["args"].get("case") != "cubic":
        raise DocgenError(f"renderer 'ns3-power-run': {spec} is case {d['args'].get('case')!r}, not cubic")
    lines = ["| eNB power | SNR | cellshare | ns-3 | ratio |", "|---|---|---|---|---|"]
    for r in d["rows"]:
        c, n = r["cellshare"]["fg0"], r["ns3"]["fg0"]
        lines.append(f"| {r['label'][0]} dBm | {r['snr_db']:.1f} dB | {c:.2f} | {n:.2f} | {c / n:.2f} |")
    return "\n".join(lines)


def r_ns3_power_ratio(a: _Artefacts, args: list[str]) -> str:
    """The lowest and highest ratio over the powers of one side of a run to another's (inline):
    ``ns3-power-ratio FILE RUN:SIDE RUN:SIDE``."""
    rel, num, den = _args(args, 3, "ns3-power-ratio", f"ns3-power-ratio {NS3_POWER} RUN:SIDE RUN:SIDE")[:3]
    series = []
    for part in (num, den):
        run, _, side = part.partition(":")
        if side not in ("cellshare", "ns3"):
            raise DocgenError(f"renderer 'ns3-power-ratio': {part!r} is not RUN:cellshare or RUN:ns3")
        series.append([r[side]["fg0"] for r in _ns3_run(a, f"{rel}#{run}", "ns3-power-ratio")[1]["rows"]])
    ratios = sorted(x / y for x, y in zip(*series))
    lo, hi = f"{ratios[0]:.2f}", f"{ratios[-1]:.2f}"
    return f"{lo}×" if lo == hi else f"{lo}–{hi}×"


def r_ns3_shares(a: _Artefacts, args: list[str]) -> str:
    """The background case's shares, cellshare / ns-3, one row per background, one column pair
    per layout (block)."""
    spec, d = _ns3_run(a, _args(args, 1, "ns3-shares", "ns3-shares tools/data/FILE.json")[0], "ns3-shares")
    if d["args"].get("case") != "background":
        raise DocgenError(f"renderer 'ns3-shares': {spec} is case {d['args'].get('case')!r}, not background")
    layouts = [x for x in ("same", "other", "every") if any(r["label"][0] == x for r in d["rows"])]
    backgrounds = list(dict.fromkeys(r["label"][1] for r in d["rows"]))
    by = {tuple(r["label"]): r for r in d["rows"]}
    names = {"none": "none", "ledbat": "LEDBAT", "ledbat-ns3": "LEDBAT, ns-3's cap",
             "vegas": "Vegas", "tcp_lp": "TCP-LP", "cubic": "CUBIC", "bbr": "BBR"}
    head = ["background"]
    for x in layouts:
        head += [f"`{x}`: foreground", f"`{x}`: background" + (" per flow" if x == "every" else "")]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for bg in backgrounds:
        cells = [names.get(bg, f"`{bg}`")]
        for x in layouts:
            r = by.get((x, bg))  # the foreground alone runs once, in the first layout
            if r is None:
                cells += ["—", "—"]
                continue
            c, n = _ns3_rates(r["cellshare"]), _ns3_rates(r["ns3"])
            cells.append(f"{_mbit(c['fg'])} / {_mbit(n['fg'])}")
            cells.append("—" if bg == "none" else f"{_mbit(c['bg'])} / {_mbit(n['bg'])}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def r_ns3_rate(a: _Artefacts, args: list[str]) -> str:
    """One rate of a cross-check run, Mbit/s (inline): ``ns3-rate FILE[#RUN] LABEL SIDE KEY`` with
    LABEL as the tool prints it (``same/ledbat``, ``30``), SIDE ``cellshare`` or ``ns3`` and KEY
    ``fg``, ``bg`` (the mean background flow), ``total`` or a flow (``bg0``)."""
    spec, label, side, key = _args(args, 4, "ns3-rate", "ns3-rate tools/data/FILE.json[#RUN] LABEL SIDE KEY")[:4]
    spec, d = _ns3_run(a, spec, "ns3-rate")
    if side not in ("cellshare", "ns3"):
        raise DocgenError(f"renderer 'ns3-rate': side {side!r} is not cellshare or ns3")
    rates = _ns3_rates(_ns3_row(d, spec, label, "ns3-rate")[side])
    if key not in rates:
        raise DocgenError(f"renderer 'ns3-rate': {spec} run {label} has no {key!r} on the {side} side (keys: {', '.join(rates)})")
    return _mbit(rates[key])


def r_ns3_walls(a: _Artefacts, args: list[str]) -> str:
    """The wall time of a cross-check's runs on both sides, timed in one session, and of its
    `every` runs, with the machine (inline)."""
    spec, d = _ns3_run(a, _args(args, 1, "ns3-walls", "ns3-walls tools/data/FILE.json")[0], "ns3-walls")
    if d["args"].get("reuse_ns3"):
        raise DocgenError(f"renderer 'ns3-walls': {spec}'s ns-3 side was reused from another run: its times are "
                          "not of one session")
    rows = d["rows"]
    ours, theirs = sum(r["cellshare_wall_s"] for r in rows), sum(r["ns3_wall_s"] for r in rows)
    every = [r for r in rows if r["label"][0] == "every"]
    text = (f"the {len(rows)} runs take {ours:.1f} s of wall time in cellshare and {theirs / 60:.0f} min in ns-3")
    if every:
        dur = d["args"]["duration"]
        c = sorted(r["cellshare_wall_s"] for r in every)
        n = sorted(r["ns3_wall_s"] for r in every)
        x = sorted(r["ns3_wall_s"] / r["cellshare_wall_s"] for r in every)
        text += (f"; the {d['args']['ues']}-UE runs take {c[0]:.2f}–{c[-1]:.2f} s against {n[0]:.0f}–{n[-1]:.0f} s "
                 f"(ns-3 at {dur / n[-1]:.1f}–{dur / n[0]:.1f}× real time), {x[0]:.0f}–{x[-1]:.0f}× faster")
    if "machine" in d and "generated_by" in d:
        text += f" ({_machine(d, spec.partition('#')[0])})"
    return text



def _ns3_background(a: _Artefacts, spec: str, name: str) -> tuple[str, dict]:
    spec, d = _ns3_run(a, spec, name)
    if d["args"].get("case") != "background":
        raise DocgenError(f"renderer {name!r}: {spec} is case {d['args'].get('case')!r}, not background")
    return spec, d


def r_ns3_background(a: _Artefacts, args: list[str]) -> str:
    """The background case as `tools/ns3_crosscheck.py` prints it, one row per run, with the
    ratio of the cell totals instead of the wall times (block)."""
    spec, d = _ns3_background(a, _args(args, 1, "ns3-background", "ns3-background tools/data/FILE.json")[0],
                              "ns3-background")
    lines = ["| layout | background | foreground, cellshare / ns-3 | background per flow | cell total | ratio of totals |",
             "|---|---|---|---|---|---|"]
    for r in d["rows"]:
        c, n = _ns3_rates(r["cellshare"]), _ns3_rates(r["ns3"])
        lines.append(f"| {r['label'][0]} | {r['label'][1]} | {c['fg']:.2f} / {n['fg']:.2f} | {c['bg']:.2f} / {n['bg']:.2f} | "
                     f"{c['total']:.1f} / {n['total']:.1f} | {c['total'] / n['total']:.2f} |")
    return "\n".join(lines)


def _ns3_agrees(r: dict, tolerance: float) -> bool:
    """Both shares (the foreground's and the mean background flow's) within `tolerance` of
    ns-3's, relative; two zero rates agree."""
    c, n = _ns3_rates(r["cellshare"]), _ns3_rates(r["ns3"])
    return all((x == y == 0) or (y > 0 and abs(x / y - 1) <= tolerance) for x, y in ((c["fg"], n["fg"]), (c["bg"], n["bg"])))


def r_ns3_agree(a: _Artefacts, args: list[str]) -> str:
    """``ns3-agree FILE PCT``: in how many of a background cross-check's runs both shares are
    within PCT % of ns-3's, "9 of the 19 rows" (inline)."""
    rel, pct = _args(args, 2, "ns3-agree", "ns3-agree tools/data/FILE.json PCT")[:2]
    try:
        tol = float(pct) / 100
    except ValueError:
        raise DocgenError(f"renderer 'ns3-agree': PCT {pct!r} is not a number") from None
    _, d = _ns3_background(a, rel, "ns3-agree")
    return f"{sum(_ns3_agrees(r, tol) for r in d['rows'])} of the {len(d['rows'])} rows"


def r_ns3_total_diff(a: _Artefacts, args: list[str]) -> str:
    """``ns3-total-diff FILE LABEL``: cellshare's cell total over ns-3's for one run, ``+27 %``;
    ``ns3-total-diff FILE except LABEL...``: the lowest and highest over the other runs,
    ``+5 to +6 %`` (inline)."""
    rel, *rest = _args(args, 2, "ns3-total-diff", "ns3-total-diff tools/data/FILE.json LABEL | except LABEL...")
    spec, d = _ns3_background(a, rel, "ns3-total-diff")

    def diff(r: dict) -> float:
        return (_ns3_rates(r["cellshare"])["total"] / _ns3_rates(r["ns3"])["total"] - 1) * 100

    if rest[0] == "except":
        for label in rest[1:]:
            _ns3_row(d, spec, label, "ns3-total-diff")
        ds = sorted(round(diff(r)) for r in d["rows"] if "/".join(r["label"]) not in rest[1:])
        if not ds:
            raise DocgenError(f"renderer 'ns3-total-diff': no run of {spec} is left")
        return f"{ds[0]:+d} %" if ds[0] == ds[-1] else f"{ds[0]:+d} to {ds[-1]:+d} %"
    return f"{round(diff(_ns3_row(d, spec, rest[0], 'ns3-total-diff'))):+d} %"


def r_ns3_variants(a: _Artefacts, args: list[str]) -> str:
    """``ns3-variants FILE LABEL [PREFIX]``: a file of `tools/ns3_background_variants.py`:
    cellshare's rates in run LABEL with each variant's setting (the variants whose names start
    with PREFIX), after the run it reuses (block)."""
    rel, label, *prefix = _args(args, 2, "ns3-variants", "ns3-variants tools/data/FILE.json LABEL [PREFIX]")
    d = a.load(rel)
    if "reused" not in d or "runs" not in d:
        raise DocgenError(f"renderer 'ns3-variants': {rel} is not a tools/ns3_background_variants.py output")
    _, base = _ns3_background(a, d["reused"], "ns3-variants")
    lines = ["| cellshare | background / foreground, Mbit/s |", "|---|---|"]
    rows = [("as the table above", _ns3_row(base, d["reused"], label, "ns3-variants"))]
    for name, run in d["runs"].items():
        if name.startswith(prefix[0] if prefix else ""):
            rows += [(run["what"].partition(", ")[2] or run["what"], r) for r in run["rows"] if "/".join(r["label"]) == label]
    if len(rows) == 1:
        raise DocgenError(f"renderer 'ns3-variants': {rel} has no variant of run {label!r}")
    for what, r in rows:
        c = _ns3_rates(r["cellshare"])
        lines.append(f"| {_cell(what)} | {_mbit(c['bg'])} / {_mbit(c['fg'])} |")
    return "\n".join(lines)


#: The single saturated UDP receiver of `tools/ns3_crosscheck.py --case udp` (one UE at each
#: distance, no fading) and `--case harq` (Rayleigh fading at three distances).
NS3_UDP = "tools/data/ns3-crosscheck-udp.json"
NS3_HARQ = "tools/data/ns3-crosscheck-harq.json"


def _ns3_case(a: _Artefacts, spec: str, case: str, name: str) -> tuple[str, dict]:
    spec, d = _ns3_run(a, spec, name)
    if d["args"].get("case") != case:
        raise DocgenError(f"renderer {name!r}: {spec} is case {d['args'].get('case')!r}, not {case}")
    return spec, d


def _pct_span(diffs: list[int]) -> str:
    """Rounded percentage differences as a span: ``+4 %`` or ``+4 to +8 %``."""
    lo, hi = min(diffs), max(diffs)
    return f"{lo:+d} %" if lo == hi else f"{lo:+d} to {hi:+d} %"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def r_ns3_udp(a: _Artefacts, args: list[str]) -> str:
    """``ns3-udp FILE``: the saturated UDP receiver at each distance: SNR, both sides' mean
    received rate, their ratio and the MCS ns-3 used most for new blocks (block)."""
    spec, d = _ns3_case(a, _args(args, 1, "ns3-udp", f"ns3-udp {NS3_UDP}")[0], "udp", "ns3-udp")
    lines = ["| distance | SNR | cellshare | ns-3 | ratio | ns-3's MCS |", "|---|---|---|---|---|---|"]
    for r in d["rows"]:
        c, n = r["cellshare"]["udp0"], r["ns3"]["udp0"]
        mcs = ", ".join(r["ns3"]["harq"]["mcs"]) or "—"
        lines.append(f"| {r['label'][0]} m | {r['snr_db']:.1f} dB | {c:.2f} | {n:.2f} | "
                     f"{f'{c / n:.2f}' if n > 0 else '—'} | {mcs} |")
    return "\n".join(lines)


def r_ns3_udp_diff(a: _Artefacts, args: list[str]) -> str:
    """``ns3-udp-diff FILE MBIT [common|others]``: over the distances where ns-3 carries more
    than MBIT Mbit/s, cellshare's rate over ns-3's, rounded per cent: the span (``+4 to +8 %``),
    the most common difference and how often (``+4 % at 10 of the 12 distances``), or the
    others and where (``+7 to +8 % at 150 and 350 m``) (inline)."""
    rel, mbit, *mode = _args(args, 2, "ns3-udp-diff", "ns3-udp-diff tools/data/FILE.json MBIT [common|others]")
    spec, d = _ns3_case(a, rel, "udp", "ns3-udp-diff")
    try:
        floor = float(mbit)
    except ValueError:
        raise DocgenError(f"renderer 'ns3-udp-diff': MBIT {mbit!r} is not a number") from None
    diffs = [(r["label"][0], round((r["cellshare"]["udp0"] / r["ns3"]["udp0"] - 1) * 100))
             for r in d["rows"] if r["ns3"]["udp0"] > floor]
    if not diffs:
        raise DocgenError(f"renderer 'ns3-udp-diff': ns-3 carries more than {mbit} Mbit/s at no distance of {spec}")
    if not mode:
        return _pct_span([x for _, x in diffs])
    values = [x for _, x in diffs]
    common = max(dict.fromkeys(values), key=values.count)  # the first of the most frequent
    if mode[0] == "common":
        return f"{common:+d} % at {values.count(common)} of the {len(values)} distances"
    if mode[0] == "others":
        rest = [(label, x) for label, x in diffs if x != common]
        if not rest:
            raise DocgenError(f"renderer 'ns3-udp-diff': every distance of {spec} above {mbit} Mbit/s differs by {common:+d} %")
        return f"{_pct_span([x for _, x in rest])} at {_and([label for label, _ in rest])} m"
    raise DocgenError(f"renderer 'ns3-udp-diff': {mode[0]!r} is not common or others")


def r_ns3_link(a: _Artefacts, args: list[str]) -> str:
    """``ns3-link FILE LABEL SIDE KEY [pct]``: one of a UDP run's link counts (inline): a count
    (``transport_blocks``, ``retransmissions``; cellshare's ``block_errors``, ``residual_losses``),
    or with ``pct`` the count per new transport block as a percentage; a rate
    (``retransmissions_per_block``; ns-3's ``first_tx_bler``), three decimals or with ``pct`` a
    percentage; ns-3's ``mcs``, the MCSs it used most for new blocks."""
    spec, label, side, key, *how = _args(args, 4, "ns3-link", "ns3-link tools/data/FILE.json LABEL SIDE KEY [pct]")
    spec, d = _ns3_run(a, spec, "ns3-link")
    if side not in ("cellshare", "ns3"):
        raise DocgenError(f"renderer 'ns3-link': side {side!r} is not cellshare or ns3")
    link = _ns3_row(d, spec, label, "ns3-link")[side].get("harq")
    if link is None or key not in link:
        raise DocgenError(f"renderer 'ns3-link': {spec} run {label} has no link count {key!r} on the {side} side "
                          f"(keys: {', '.join(link or {}) or 'none'})")
    v = link[key]
    if key == "mcs":
        return ", ".join(v) or "none"
    pct = bool(how) and how[0] == "pct"
    if how and not pct:
        raise DocgenError(f"renderer 'ns3-link': {how[0]!r} is not pct")
    if isinstance(v, int) and pct:
        if not link.get("transport_blocks"):
            raise DocgenError(f"renderer 'ns3-link': {spec} run {label} sends no new transport block on the {side} side")
        v = v / link["transport_blocks"]
    elif isinstance(v, int):
        return f"{v:,}"
    return f"{v * 100:.1f} %" if pct else f"{v:.3f}"


def r_ns3_harq(a: _Artefacts, args: list[str]) -> str:
    """``ns3-harq FILE``: HARQ retransmissions per new transport block on a fading channel at
    each distance, both sides, their ratio, ns-3's first-transmission error rate and both sides'
    UDP rates (block)."""
    spec, d = _ns3_case(a, _args(args, 1, "ns3-harq", f"ns3-harq {NS3_HARQ}")[0], "harq", "ns3-harq")
    lines = ["| distance | mean SNR | retransmissions per new block, cellshare / ns-3 | ratio | "
             "ns-3 first-transmission error rate | UDP Mbit/s, cellshare / ns-3 |", "|---|---|---|---|---|---|"]
    for r in d["rows"]:
        c, n = r["cellshare"]["harq"]["retransmissions_per_block"], r["ns3"]["harq"]["retransmissions_per_block"]
        lines.append(f"| {r['label'][0]} m | {r['snr_db']:.1f} dB | {c:.3f} / {n:.3f} | {f'{c / n:.2f}' if n > 0 else '—'} | "
                     f"{r['ns3']['harq']['first_tx_bler']:.3f} | {r['cellshare']['udp0']:.2f} / {r['ns3']['udp0']:.2f} |")
    return "\n".join(lines)


def r_ns3_harq_diff(a: _Artefacts, args: list[str]) -> str:
    """``ns3-harq-diff FILE``: the span of cellshare's retransmissions per new block over
    ns-3's across the distances, rounded per cent, ``+10 to +17 %`` (inline)."""
    spec, d = _ns3_case(a, _args(args, 1, "ns3-harq-diff", f"ns3-harq-diff {NS3_HARQ}")[0], "harq", "ns3-harq-diff")
    pairs = [(r["cellshare"]["harq"]["retransmissions_per_block"], r["ns3"]["harq"]["retransmissions_per_block"])
             for r in d["rows"]]
    if any(n <= 0 for _, n in pairs):
        raise DocgenError(f"renderer 'ns3-harq-diff': ns-3 retransmits nothing in a run of {spec}")
    return _pct_span([round((c / n - 1) * 100) for c, n in pairs])


def r_ns3_link_span(a: _Artefacts, args: list[str]) -> str:
    """``ns3-link-span FILE LABEL SIDE KEY PREFIX``: the lowest and highest of one link rate
    (``retransmissions_per_block``, three decimals) at run LABEL over the run a variants file
    reuses and its variants whose names start with PREFIX, ``0.229–0.243`` (inline)."""
    rel, label, side, key, prefix = _args(args, 5, "ns3-link-span", "ns3-link-span tools/data/FILE.json LABEL SIDE KEY PREFIX")[:5]
    d = a.load(rel)
    if "reused" not in d or "runs" not in d:
        raise DocgenError(f"renderer 'ns3-link-span': {rel} is not a variants file (reused and runs)")
    if side not in ("cellshare", "ns3"):
        raise DocgenError(f"renderer 'ns3-link-span': side {side!r} is not cellshare or ns3")
    sources = [(d["reused"], _ns3_run(a, d["reused"], "ns3-link-span")[1])]
    sources += [(f"{rel}#{name}", run) for name, run in d["runs"].items() if name.startswith(prefix)]
    if len(sources) == 1:
        raise DocgenError(f"renderer 'ns3-link-span': {rel} has no run whose name starts with {prefix!r}")
    values = []
    for spec, run in sources:
        link = _ns3_row(run, spec, label, "ns3-link-span")[side].get("harq", {})
        if not isinstance(link.get(key), float):
            raise DocgenError(f"renderer 'ns3-link-span': {spec} run {label} has no link rate {key!r} on the {side} side")
        values.append(link[key])
    lo, hi = f"{min(values):.3f}", f"{max(values):.3f}"
    return lo if lo == hi else f"{lo}–{hi}"

#: ns-3's blocks lost to missed control information in the UDP case (``tools/ns3_udp_control.py``).
NS3_UDP_CONTROL = "tools/data/ns3-crosscheck-udp-control.json"


def r_ns3_control(a: _Artefacts, args: list[str]) -> str:
    """``ns3-control LABEL [count]``: the share of ns-3's new blocks its UE never saw at one
    distance, ``1.9 %``, or the count, ``219 of 11,467`` (inline)."""
    label, *how = _args(args, 1, "ns3-control", "ns3-control LABEL [count]")
    d = a.load(NS3_UDP_CONTROL)
    _, udp = _ns3_case(a, NS3_UDP, "udp", "ns3-control")
    r = _ns3_row(d, NS3_UDP_CONTROL, label, "ns3-control")
    stored = _ns3_row(udp, NS3_UDP, label, "ns3-control")["ns3"]
    if (r["new_blocks"], _mbit(r["udp0"])) != (stored["harq"]["transport_blocks"], _mbit(stored["udp0"])):
        raise DocgenError(f"renderer 'ns3-control': {NS3_UDP_CONTROL} run {label} is not the ns-3 run of {NS3_UDP} "
                          f"({r['new_blocks']} blocks, {_mbit(r['udp0'])} Mbit/s against "
                          f"{stored['harq']['transport_blocks']}, {_mbit(stored['udp0'])})")
    if how and how[0] == "count":
        return f"{r['missed']:,} of {r['new_blocks']:,}"
    if how:
        raise DocgenError(f"renderer 'ns3-control': {how[0]!r} is not count")
    return f"{r['missed_share'] * 100:.1f} %"

def r_ns3_speed_udp(a: _Artefacts, args: list[str]) -> str:
    """``ns3-speed-udp FILE``: the wall time of a single-UE cross-check's runs on both sides,
    timed in one session (inline)."""
    spec, d = _ns3_run(a, _args(args, 1, "ns3-speed-udp", f"ns3-speed-udp {NS3_UDP}")[0], "ns3-speed-udp")
    if d["args"].get("case") not in ("udp", "harq"):
        raise DocgenError(f"renderer 'ns3-speed-udp': {spec} is case {d['args'].get('case')!r}, not udp or harq")
    if d["args"].get("reuse_ns3"):
        raise DocgenError(f"renderer 'ns3-speed-udp': {spec}'s ns-3 side was reused from another run")
    rows, dur = d["rows"], d["args"]["duration"]
    ns3 = sorted(r["ns3_wall_s"] for r in rows)
    ours = sorted(r["cellshare_wall_s"] for r in rows)
    ratio = sorted(r["ns3_wall_s"] / max(r["cellshare_wall_s"], 0.01) for r in rows)
    return (f"in `{spec}` ({len(rows)} runs of one UE, {dur:g} simulated s each) ns-3 took {ns3[0]:.0f}–{ns3[-1]:.0f} s "
            f"of wall time per run and cellshare {ours[0]:.2f}–{ours[-1]:.2f} s (timed to 10 ms): ns-3 / cellshare wall "
            f"time {ratio[0]:.0f}–{ratio[-1]:.0f}×, median {ratio[len(ratio) // 2]:.0f}× ({_ns3_machine(d, spec)})")


def _ns3_machine(d: dict, rel: str) -> str:
    """The machine of a stored ns-3 run and its command, with the one-minute loads it recorded."""
    m = d["machine"]
    loads = [f"{m[k]:g} {k.removeprefix('load_1min_').replace('_', ' ')}" for k in
             ("load_1min_at_start", "load_1min_before", "load_1min_after") if k in m]
    return (f"{m['cores']} cores, {m['cpu']}" + (f", one-minute load {' and '.join(loads)}" if loads else "")
            + f"; `{d['generated_by'].replace('FILE', rel)}`")


#: C2TCP against CUBIC on the shipped traces (``tools/transports_validation.py c2tcp``).
C2TCP = "tools/data/c2tcp-validation.json"
_C2TCP_CCS = {"50": "c2tcp T=50", "100": "c2tcp T=100", "2minrtt": "c2tcp T=2minRTT", "cubic": "cubic"}


def _c2tcp(a: _Artefacts, queue: str, name: str) -> dict:
    """(trace, controller) → row at one base-station queue, with ``ratio`` (goodput over CUBIC's)."""
    rows = [r for r in a.load(C2TCP)["rows"] if str(r["queue_packets"]) == queue]
    if not rows:
        raise DocgenError(f"renderer {name!r}: {C2TCP} has no run with a {queue}-packet queue")
    cubic = {r["trace"]: r["goodput_mbps"] for r in rows if r["cc"] == "cubic"}
    return {(r["trace"], r["cc"]): {**r, "ratio": r["goodput_mbps"] / cubic[r["trace"]]} for r in rows}


def r_c2tcp(a: _Artefacts, args: list[str]) -> str:
    """``c2tcp QUEUE``: per trace, CUBIC's mean RTT and each C2TCP Target's mean RTT (its
    throughput as a fraction of CUBIC's) at a QUEUE-packet base-station queue (block)."""
    queue = _args(args, 1, "c2tcp", "c2tcp QUEUE")[0]
    by = _c2tcp(a, queue, "c2tcp")
    lines = ["| trace | CUBIC RTT | C2TCP T=50: RTT (throughput) | T=100 | T=2·minRTT |", "|---|---|---|---|---|"]
    for trace in dict.fromkeys(k[0] for k in by):
        cells = [trace, f"{by[(trace, 'cubic')]['rtt_mean_ms']:.0f}"]
        cells += [f"{by[(trace, cc)]['rtt_mean_ms']:.1f} ({by[(trace, cc)]['ratio']:.2f})"
                  for cc in ("c2tcp T=50", "c2tcp T=100", "c2tcp T=2minRTT")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def r_c2tcp_range(a: _Artefacts, args: list[str]) -> str:
    """``c2tcp-range QUEUE CC rtt|ratio|goodput [TRACE...]``: the lowest and highest mean RTT
    (ms), throughput over CUBIC's (``0.66–1.00``) or goodput (Mbit/s) of controller CC
    (``50``, ``100``, ``2minrtt``, ``cubic``) over the traces named, or all (inline)."""
    queue, cc, key, *traces = _args(args, 3, "c2tcp-range", "c2tcp-range QUEUE CC rtt|ratio|goodput [TRACE...]")
    if cc not in _C2TCP_CCS:
        raise DocgenError(f"renderer 'c2tcp-range': controller {cc!r} is not one of {', '.join(_C2TCP_CCS)}")
    field = {"rtt": "rtt_mean_ms", "ratio": "ratio", "goodput": "goodput_mbps"}.get(key)
    if field is None:
        raise DocgenError(f"renderer 'c2tcp-range': {key!r} is not rtt, ratio or goodput")
    by = _c2tcp(a, queue, "c2tcp-range")
    known = list(dict.fromkeys(k[0] for k in by))
    for tr in traces:
        if tr not in known:
            raise DocgenError(f"renderer 'c2tcp-range': no trace {tr!r} in {C2TCP} (traces: {', '.join(known)})")
    vals = sorted(by[(tr, _C2TCP_CCS[cc])][field] for tr in (traces or known))
    f = {"rtt": "{:.0f}" if cc == "cubic" else "{:.1f}", "ratio": "{:.2f}", "goodput": "{:.2f}"}[key]
    lo, hi = f.format(vals[0]), f.format(vals[-1])
    return lo if lo == hi else f"{lo}–{hi}"


#: Figure 7 in cellshare and in ns-3 with TcpLegilimens (``tools/legilimens_study.py fig7``).
FIG7_NS3 = "tools/data/legilimens-ns3-fig7-metrics.json"
#: (label, metric, decimals) of the Figure 7 table, as tools/legilimens_study.py prints it.
_FIG7_ROWS = [("CUBIC alone, while on (Mbit/s)", "cubic_alone_mbps", 1), ("Legilimens while CUBIC on (Mbit/s)", "bg_on_mbps", 2),
              ("CUBIC beside Legilimens, on (Mbit/s)", "fg_on_mbps", 1), ("Legilimens while CUBIC off (Mbit/s)", "bg_off_mbps", 1),
              ("Legilimens' share while CUBIC on", "bg_share_on", 3), ("CUBIC on / CUBIC alone", "fg_ratio_on", 3),
              ("Legilimens off / CUBIC alone", "bg_off_ratio", 3), ("recapture to 70 %, mean (s)", "recapture_mean_s", 2),
              ("recapture to 70 %, max (s)", "recapture_max_s", 2)]


def _fig7_diff(a: float, b: float) -> float:
    return (b / a - 1) * 100


def r_fig7_ns3(a: _Artefacts, args: list[str]) -> str:
    """The Figure 7 comparison: each metric in cellshare and ns-3 and ns-3's difference, then
    ns-3 Legilimens' time per mode and capacity estimate (block)."""
    d = a.load(FIG7_NS3)
    m = d["metrics"]
    lines = ["| | cellshare | ns-3 | ns-3 vs cellshare |", "|---|---|---|---|"]
    for label, key, nd in _FIG7_ROWS:
        x, y = m["cellshare"][key], m["ns-3"][key]
        lines.append(f"| {label} | {x:.{nd}f} | {y:.{nd}f} | {round(_fig7_diff(x, y)):+d} % |".replace("+0 %", "0 %"))
    lines.append("| recapture after each stop (s) | " + " | ".join(
        ", ".join(f"{v:.1f}" for v in m[side]["recapture_s"]) for side in ("cellshare", "ns-3")) + " | |")
    n, w = d["ns3_legilimens"], d["wall_s"]
    lines += ["", "ns-3 Legilimens: seconds in NORMAL / GAP I / II / III / back-off "
              + " / ".join(f"{s:.1f}" for s in n["seconds_in_mode"]) + f" of {d['duration_s']:g}; capacity estimate "
              f"{n['capacity_mbps']:.1f} Mbit/s; idle retransmission timeouts {n['idle_timeouts']}. Wall time: ns-3 "
              f"{w['ns3_alone']:.0f} s (alone) and {w['ns3_legilimens']:.0f} s (with Legilimens), cellshare "
              f"{w['cellshare']:.1f} s (cellshare re-run on {d['machine']['cores']} cores, {d['machine']['cpu']}, "
              f"`{d['generated_by'].split(' --out')[0]}`)."]
    return "\n".join(lines)


#: Figure 12 in cellshare and in ns-3, as ``tools/legilimens_study.py fig12 --cellshare-only
#: --ns3-results tools/data/legilimens-ns3-fig12.jsonl --loads 0.3,0.6,0.8 --duration 10
#: --ns3-phy-stats --out DIR`` writes it (``DIR/fig12.md``, its first line the command).
FIG12_NS3 = "tools/data/legilimens-ns3-fig12.md"


def r_fig12_ns3(a: _Artefacts, args: list[str]) -> str:
    """``fig12-ns3 [FILE]``: the Figure 12 tables of cellshare beside ns-3 (or, with FILE, e.g.
    ``tools/data/legilimens-fig12-cellshare-alone.md``, of cellshare alone over 120 s), as the
    study tool wrote them (block)."""
    rel = args[0] if args else FIG12_NS3
    p = a.root / rel
    if not p.is_file():
        raise DocgenError(f"{rel} not found (written by tools/legilimens_study.py fig12; its first line is the command)")
    lines = [ln for ln in p.read_text().splitlines() if not ln.startswith("<!--")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


#: The Figure 12 comparison re-run with cellshare's PF padding as ns-3's
#: (``--cellshare-leftover padding``; first line: the command).
FIG12_NS3_PADDING = "tools/data/legilimens-ns3-fig12-padding.md"


def _fig12_table(a: _Artefacts, rel: str) -> dict:
    """A stored Figure 12 comparison (``fig12-ns3``'s file, e.g. ``FIG12_NS3`` or
    ``FIG12_NS3_PADDING``) as {(layout, table, scheme, load %): [(cellshare, ns-3) strings and
    the printed difference or None, per column, or None]}: layout ``every`` or ``some``, table
    ``main`` (the seven-column table) or ``replay`` (fg delivered with ns-3's set-up replayed),
    a cell None where it is "—"; "w/o bg" rows under both layouts."""
    key = "fig12:" + rel
    if key in a._cache:
        return a._cache[key]
    p = a.root / rel
    if not p.is_file():
        raise DocgenError(f"{rel} not found (written by tools/legilimens_study.py fig12; its first line is the command)")
    out: dict = {}
    layout = None
    for ln in p.read_text().splitlines():
        if ln.startswith("Background at every UE"):
            layout = "every"
        elif ln.startswith("Background at 10 UEs"):
            layout = "some"
        if layout is None or not ln.startswith("| ") or ln.startswith("| scheme"):
            continue
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        table = "main" if len(cells) == 7 else "replay" if len(cells) == 4 else None
        m = re.fullmatch(r"(\d+)%", cells[1])
        if table is None or m is None:
            continue
        pairs = []
        for c in cells[2:]:
            mm = re.match(r"([\d.]+) / ([\d.]+)(?: \(([+-]\d+) %\))?", c)
            pairs.append((mm.group(1), mm.group(2), mm.group(3)) if mm else None)
        out[(layout, table, cells[0], int(m.group(1)))] = pairs
    if not out:
        raise DocgenError(f"{rel}: no Figure 12 tables found")
    a._cache[key] = out
    return out


def _fig12_pairs(a: _Artefacts, rel: str) -> dict:
    """:func:`_fig12_table` as numbers: {(layout, table, scheme, "30%"): [(cellshare, ns-3) or
    None per column]}."""
    return {(lay, tab, scheme, f"{load}%"): [(float(c[0]), float(c[1])) if c else None for c in row]
            for (lay, tab, scheme, load), row in _fig12_table(a, rel).items()}


def r_fig12_padded(a: _Artefacts, args: list[str]) -> str:
    """``fig12-padded``: the cases where the padding matters, cellshare / cellshare with ns-3's
    padding / ns-3, at 30 / 60 / 80 %, from the two stored comparisons (block)."""
    base, pad = _fig12_pairs(a, FIG12_NS3), _fig12_pairs(a, FIG12_NS3_PADDING)
    loads = ("30%", "60%", "80%")

    def side(d: dict, key: tuple, col: int, i: int, loads=loads) -> list:
        vals = []
        for ld in loads:
            row = d.get(key + (ld,))
            if row is None or row[col] is None:
                raise DocgenError(f"renderer 'fig12-padded': no {key} {ld} column {col}")
            vals.append(row[col][i])
        return vals

    def cell(vals: list, nd: int) -> str:
        return " / ".join(f"{v:.{nd}f}" for v in vals)

    rows = [("Legilimens' background at 10 UEs (Mbit/s per flow)", ("some", "main", "Legilimens"), 1, 2, loads),
            ("fg delivered beside Legilimens at every UE, set-up replayed (Mbit/s)", ("every", "replay", "Legilimens"), 0, 1,
             loads),
            ("Vegas' background at 10 UEs (Mbit/s per flow)", ("some", "main", "Vegas"), 1, 2, loads),
            ("Vegas' background at every UE", ("every", "main", "Vegas"), 1, 2, loads),
            ("the long foreground alone (\"w/o bg\", 60 / 80 %)", ("every", "main", "w/o bg"), 0, 2, loads[1:])]
    lines = ["| case | cellshare | padded | ns-3 |", "|---|---|---|---|"]
    for label, key, col, nd, lds in rows:
        cs, padded, ns3 = side(base, key, col, 0, lds), side(pad, key, col, 0, lds), side(base, key, col, 1, lds)
        lines.append(f"| {label} | {cell(cs, nd)} | {cell(padded, nd)} | {cell(ns3, nd)} |")
        if key[2] == "Legilimens" and key[0] == "some":
            above = lambda xs: " / ".join(f"{round((x / n - 1) * 100)}" for x, n in zip(xs, ns3)) + " %"  # noqa: E731
            lines.append(f"| the same, cellshare above ns-3 by | {above(cs)} | {above(padded)} | |")
    return "\n".join(lines)


def r_fig12_cells(a: _Artefacts, args: list[str]) -> str:
    """``fig12-cells FILE SCHEME LAYOUT``: one row of a stored Figure 12 table (``fig12-ns3``'s
    files), its per-load cells joined by commas; ``fig12-cells FILE ratio LAYOUT``: Legilimens'
    background over LEDBAT's and Vegas' averaged over the loads, from the file's summary line
    (inline)."""
    rel, what, layout = _args(args, 3, "fig12-cells", "fig12-cells FILE SCHEME|ratio LAYOUT")[:3]
    p = a.root / rel
    if not p.is_file():
        raise DocgenError(f"renderer 'fig12-cells': {rel} not found")
    lines = p.read_text().splitlines()
    if what == "ratio":
        for ln in lines:
            m = re.match(rf"- `{re.escape(layout)}`, averaged over the loads: Legilimens' background / LEDBAT's "
                         r"([\d.]+), / Vegas' ([\d.]+)", ln)
            if m:
                return f"{m.group(1)} of LEDBAT's and {m.group(2)} of Vegas'"
        raise DocgenError(f"renderer 'fig12-cells': {rel} has no summary line for layout {layout!r}")
    for ln in lines:
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if len(cells) > 2 and cells[0] == what and cells[1] == layout:
            return ", ".join(cells[2:])
    raise DocgenError(f"renderer 'fig12-cells': {rel} has no row {what} / {layout}")


def r_fig7_recapture(a: _Artefacts, args: list[str]) -> str:
    """``fig7-recapture``: cellshare's recapture over many stops (30 periods × seeds 1–3 of the
    Figure 7 set-up, ns-3's receiver): percentiles, mean, maximum and the share of stops that
    take 2 s or more (inline)."""
    d = a.load(FIG7_NS3)
    if "recapture_many" not in d:
        raise DocgenError(f"renderer 'fig7-recapture': {FIG7_NS3} has no recapture_many")
    r = sorted(d["recapture_many"]["recapture_s"])
    n = len(r)
    slow = sum(x >= 2 - 1e-9 for x in r) / n
    return (f"the recapture over {n} stops ({d['recapture_many']['what']}) is {r[n // 10]:.1f} / {r[n // 2]:.1f} / "
            f"{r[9 * n // 10]:.1f} s at p10 / p50 / p90, mean {sum(r) / n:.2f} s, max {r[-1]:.1f} s, and "
            f"{slow * 100:.0f} % of stops take ≥ 2 s")


def r_fig7_ns3_value(a: _Artefacts, args: list[str]) -> str:
    """``fig7-ns3-value cellshare|ns-3 KEY [pct|x]``: one Figure 7 metric; ``fig7-ns3-value diff
    KEY...``: the lowest and highest size of ns-3's difference over the metrics named,
    ``7–14 %`` (inline)."""
    side, *keys = _args(args, 2, "fig7-ns3-value", "fig7-ns3-value cellshare|ns-3|diff KEY...")
    if side == "ns3-legilimens":   # ns-3 Legilimens' own state: capacity_mbps, idle_timeouts
        n = a.load(FIG7_NS3)["ns3_legilimens"]
        if keys[0] not in n or not isinstance(n[keys[0]], (int, float)):
            raise DocgenError(f"renderer 'fig7-ns3-value': no number {keys[0]!r} of ns-3 Legilimens in {FIG7_NS3}")
        return _format(n[keys[0]], keys[1] if len(keys) > 1 else "")
    m = a.load(FIG7_NS3)["metrics"]
    for k in keys[: None if side == "diff" else 1]:
        if k not in m["cellshare"]:
            raise DocgenError(f"renderer 'fig7-ns3-value': no metric {k!r} in {FIG7_NS3} "
                              f"(metrics: {', '.join(m['cellshare'])})")
    if side == "diff":
        ds = sorted(abs(round(_fig7_diff(m["cellshare"][k], m["ns-3"][k]))) for k in keys)
        return f"{ds[0]} %" if ds[0] == ds[-1] else f"{ds[0]}–{ds[-1]} %"
    if side not in m:
        raise DocgenError(f"renderer 'fig7-ns3-value': side {side!r} is not cellshare, ns-3 or diff")
    how = keys[1] if len(keys) > 1 else ""
    v = m[side][keys[0]]
    return f"{v * 100:.1f} %" if how == "pct" and v < 0.1 else _format(v, how)


#: Westwood+ against NewReno under random loss (``tools/transports_validation.py westwood``).
WESTWOOD = "tools/data/westwood-validation.json"


def _westwood(a: _Artefacts) -> dict:
    """loss → {reno, westwood: {goodput_mbps, timeouts: [per seed]}}, means over the seeds."""
    out: dict = {}
    for r in a.load(WESTWOOD)["rows"]:
        for cc, v in r["cellshare"].items():
            e = out.setdefault(r["loss"], {}).setdefault(cc, {"goodput": [], "timeouts": []})
            e["goodput"].append(v["goodput_mbps"])
            e["timeouts"].append(v["timeouts"])
    return out


def _loss(x: float) -> str:
    return "0" if x == 0 else f"{x * 100:g} %"


def r_westwood(a: _Artefacts, args: list[str]) -> str:
    """Goodput of NewReno and Westwood+ per loss rate (means over the seeds), their ratio and
    the timeouts per run (block)."""
    by = _westwood(a)
    lines = ["| loss | NewReno (Mbit/s) | Westwood+ (Mbit/s) | Westwood+ / NewReno | timeouts per 100 s run, NewReno / Westwood+ |",
             "|---|---|---|---|---|"]
    for loss, v in by.items():
        r, w = (sum(v[k]["goodput"]) / len(v[k]["goodput"]) for k in ("reno", "westwood"))
        to = " / ".join("–".join(dict.fromkeys(str(x) for x in sorted(v[k]["timeouts"]))) for k in ("reno", "westwood"))
        lines.append(f"| {_loss(loss)} | {r:.3f} | {w:.3f} | {w / r:.2f} | {to} |")
    return "\n".join(lines)


def r_westwood_value(a: _Artefacts, args: list[str]) -> str:
    """``westwood-value LOSS reno|westwood|ratio``: the mean goodput (Mbit/s) of a controller at
    a loss rate (``0.01``), or Westwood+ over NewReno (inline)."""
    loss, what = _args(args, 2, "westwood-value", "westwood-value LOSS reno|westwood|ratio")[:2]
    by = _westwood(a)
    try:
        v = by[float(loss)]
    except (ValueError, KeyError):
        raise DocgenError(f"renderer 'westwood-value': no loss rate {loss!r} in {WESTWOOD} "
                          f"(rates: {', '.join(f'{x:g}' for x in by)})") from None
    mean = {k: sum(v[k]["goodput"]) / len(v[k]["goodput"]) for k in ("reno", "westwood")}
    if what == "ratio":
        return f"{mean['westwood'] / mean['reno']:.2f}×"
    if what not in mean:
        raise DocgenError(f"renderer 'westwood-value': {what!r} is not reno, westwood or ratio")
    return f"{mean[what]:.2f}"

#: Westwood+ against NewReno under random loss with ns-3's side too
#: (``tools/transports_validation.py westwood --ns3``).
WESTWOOD_NS3 = "tools/data/westwood-ns3.json"


def _westwood_means(a: _Artefacts, rel: str, name: str) -> dict:
    """loss → simulator → controller → mean goodput over the seeds, Mbit/s, of a file of
    `tools/transports_validation.py westwood` rows."""
    sums: dict = {}
    for r in a.load(rel)["rows"]:
        for sim in ("cellshare", "ns3"):
            if sim not in r:
                raise DocgenError(f"renderer {name!r}: a row of {rel} (loss {r['loss']:g}, seed {r['seed']}) has no {sim} side")
            for cc, v in r[sim].items():
                sums.setdefault(r["loss"], {}).setdefault(sim, {}).setdefault(cc, []).append(v["goodput_mbps"])
    return {loss: {sim: {cc: sum(v) / len(v) for cc, v in ccs.items()} for sim, ccs in sims.items()}
            for loss, sims in sums.items()}


def r_westwood_ns3(a: _Artefacts, args: list[str]) -> str:
    """Goodput of NewReno and Westwood+ per loss rate in cellshare and ns-3, means over the
    seeds of one run of both, and Westwood+ over NewReno on each side (block)."""
    by = _westwood_means(a, WESTWOOD_NS3, "westwood-ns3")
    lines = ["| loss | NewReno, cellshare / ns-3 (Mbit/s) | Westwood+, cellshare / ns-3 (Mbit/s) | "
             "Westwood+ / NewReno, cellshare / ns-3 |", "|---|---|---|---|"]
    for loss, v in by.items():
        c, n = v["cellshare"], v["ns3"]
        lines.append(f"| {_loss(loss)} | {c['reno']:.3f} / {n['reno']:.3f} | {c['westwood']:.3f} / {n['westwood']:.3f} | "
                     f"{c['westwood'] / c['reno']:.2f} / {n['westwood'] / n['reno']:.2f} |")
    d = a.load(WESTWOOD_NS3)
    seeds = sorted({r["seed"] for r in d["rows"]})
    lines += ["", f"Means over seeds {seeds[0]}–{seeds[-1]}; the whole command ({len(d['rows']) * 2} runs on each side, "
              f"ns-3's in child processes) took {d['wall_s'] / 60:.0f} min of wall time "
              f"({_ns3_machine(d, WESTWOOD_NS3)})."]
    return "\n".join(lines)


def r_westwood_ns3_value(a: _Artefacts, args: list[str]) -> str:
    """``westwood-ns3-value LOSS cellshare|ns3 reno|westwood|ratio``: one side's mean goodput
    (Mbit/s) of a controller at a loss rate, or Westwood+ over NewReno, in the run of both
    simulators (inline)."""
    loss, sim, what = _args(args, 3, "westwood-ns3-value", "westwood-ns3-value LOSS cellshare|ns3 reno|westwood|ratio")[:3]
    by = _westwood_means(a, WESTWOOD_NS3, "westwood-ns3-value")
    try:
        v = by[float(loss)]
    except (ValueError, KeyError):
        raise DocgenError(f"renderer 'westwood-ns3-value': no loss rate {loss!r} in {WESTWOOD_NS3} "
                          f"(rates: {', '.join(f'{x:g}' for x in by)})") from None
    if sim not in v:
        raise DocgenError(f"renderer 'westwood-ns3-value': side {sim!r} is not cellshare or ns3")
    mean = v[sim]
    if what == "ratio":
        return f"{mean['westwood'] / mean['reno']:.2f}×"
    if what not in mean:
        raise DocgenError(f"renderer 'westwood-ns3-value': {what!r} is not reno, westwood or ratio")
    return f"{mean[what]:.3f}"


#: The Rust source of the run's limits, whose constants the limits table quotes.
LIMITS_RS = "crates/sim/src/limits.rs"


def _rust_const(root: Path, name: str) -> int:
    """A `u64` constant of the limits source, `N` or `N << S`."""
    text = (root / LIMITS_RS).read_text()
    m = re.search(rf"^\s*(?:pub )?const {name}: u64 = ([0-9_]+)(?: << ([0-9]+))?;", text, re.M)
    if not m:
        raise DocgenError(f"{LIMITS_RS} has no `const {name}: u64 = N;` (or `N << S`)")
    return int(m.group(1).replace("_", "")) << int(m.group(2) or 0)


def r_limits_const(a: _Artefacts, args: list[str]) -> str:
    name, *how = _args(args, 1, "limits-const", "limits-const NAME [MiB]")
    v = _rust_const(a.root, name)
    return f"{v >> 20} MiB" if how == ["MiB"] else f"{v:,}"


def _group_limit() -> int:
    """The most UEs one `[[ues]]` group may have, as the validator states it."""
    from . import _core, api

    try:
        api.validate({"ues": [{"count": 0}], "flows": []})
    except _core.ScenarioInvalid as e:
        m = re.search(r"1\.\.=(\d+)", str(e))
        if m:
            return int(m.group(1))
        raise DocgenError(f"the validator's error for ues[0].count = 0 names no range 1..=N: {e}") from None
    raise DocgenError("the validator accepted ues[0].count = 0")


def _mib(n: int) -> str:
    return f"{n >> 20} MiB" if n % (1 << 20) == 0 else f"{n:,} bytes"


def r_limits(a: _Artefacts, args: list[str]) -> str:
    from . import scenario_files, sweeps

    root = a.root
    rows = [("scenario or sweep file size", _mib(scenario_files.MAX_SCENARIO_BYTES), "—",
             "`python/cellshare/scenario_files.py` (`MAX_SCENARIO_BYTES`)"),
            ("UEs in one `[[ues]]` group", f"{_group_limit():,}", "—", "`Scenario::validate`"),
            ("UEs in total", f"{_rust_const(root, 'MAX_UES'):,}", "`--max-ues`", f"`{LIMITS_RS}` (`MAX_UES`)"),
            ("flows in total", f"{_rust_const(root, 'MAX_FLOWS'):,}", "`--max-flows`", f"`{LIMITS_RS}` (`MAX_FLOWS`)"),
            ("memory of the run: estimated before it, resident while it goes", f"{_rust_const(root, 'MAX_MEMORY_MB')} MiB",
             "`--max-memory-mb`", f"`{LIMITS_RS}` (`MAX_MEMORY_MB`)"),
            ("runs of one sweep (values of every axis × seeds)", f"{sweeps.MAX_RUNS:,}", "—",
             "`python/cellshare/sweeps.py` (`MAX_RUNS`)")]
    return "\n".join(["| limit | default | override | where |", "|---|---|---|---|"] +
                     [f"| {' | '.join(r)} |" for r in rows])



def r_code_const(a: _Artefacts, args: list[str]) -> str:
    """A constant of a cellshare module, `sweeps.TASKS_PER_WORKER`, optionally in KB or MB."""
    import importlib

    ref, *how = _args(args, 1, "code-const", "code-const MODULE.NAME [KB|MB]")
    mod, _, name = ref.rpartition(".")
    try:
        v = getattr(importlib.import_module(f"cellshare.{mod}"), name)
    except (ImportError, AttributeError, ValueError):
        raise DocgenError(f"renderer 'code-const': cellshare.{mod} has no constant {name!r}") from None
    if not isinstance(v, int) or isinstance(v, bool):
        raise DocgenError(f"renderer 'code-const': cellshare.{ref} is {v!r}, expected an integer")
    scale = {"KB": 1 << 10, "MB": 1 << 20}.get(how[0] if how else "", 1)
    if v % scale:
        raise DocgenError(f"renderer 'code-const': cellshare.{ref} = {v} is not a whole number of {how[0]}")
    return f"{v // scale:,}" + (f" {how[0]}" if how else "")



#: The artefacts of :mod:`cellshare.docmeasure`: the apps' speed, the memory table, a sweep's memory.
APPS_SPEED = "tools/data/apps-speed.json"
MEMORY = "tools/data/memory.json"
SWEEP_MEMORY = "tools/data/sweep-memory.json"


def _machine(d: dict, rel: str) -> str:
    m = d["machine"]
    return (f"{m['cores']} cores, {m['cpu']}, one-minute load {m['load_1min_before']:g} before and "
            f"{m['load_1min_after']:g} after; `{d['generated_by'].replace('FILE', rel)}`")


def r_apps_speed(a: _Artefacts, args: list[str]) -> str:
    _args(args, 0, "apps-speed", "apps-speed")
    d = a.load(APPS_SPEED)
    v = d["variants"]
    for k in ("mix", "call", "stream", "bulk"):
        if k not in v:
            raise DocgenError(f"renderer 'apps-speed': no variant {k!r} in {APPS_SPEED}")
    mix = v["mix"]
    return (f"Measured as CPU time of the process around `cellshare.api.run` (best of {d['repeat']}; the machine was "
            f"shared, so wall time was not used; {_machine(d, APPS_SPEED)}): {mix['duration_s']:g} simulated seconds "
            f"in {mix['best_cpu_s']:.2f} s, **{mix['speed']:.0f}× real time**; a call at every UE "
            f"{v['call']['speed']:.0f}×, a stream at every UE {v['stream']['speed']:.0f}×, bulk TCP at every UE "
            f"(the baseline) {v['bulk']['speed']:.0f}×.")


def _measured(c: dict) -> bool:
    return c["how"].startswith("measured")


def _peak(c: dict) -> str:
    return f"{c['peak_mib']:,.0f}"


def r_memory(a: _Artefacts, args: list[str]) -> str:
    _args(args, 0, "memory", "memory")
    d = a.load(MEMORY)
    lines = ["| scenario | estimated | measured peak |", "|---|---:|---:|"]
    kept = []
    for row in d["rows"]:
        cs = row["cases"]
        kept += [c["how"] for c in cs if not _measured(c)]
        lines.append(f"| {_cell(row['label'])} | {' / '.join(format(c['estimated_mib'], ',') for c in cs)} MiB | "
                     f"{' / '.join(_peak(c) for c in cs)} MiB{'' if all(_measured(c) for c in cs) else '*'} |")
    lines += ["", f"Estimates from the validator; peaks are those of `cellshare run S --out DIR` in a fresh "
                  f"process ({_machine(d, MEMORY)})."]
    if kept:
        lines[-1] += f" \\* {kept[0][0].upper()}{kept[0][1:]}."
    return "\n".join(lines)


def r_memory_ratio(a: _Artefacts, args: list[str]) -> str:
    """The lowest and highest estimate / measured peak of the memory table (inline)."""
    _args(args, 0, "memory-ratio", "memory-ratio")
    rs = sorted(c["estimated_mib"] / c["peak_mib"] for row in a.load(MEMORY)["rows"] for c in row["cases"])
    return f"{rs[0]:.1f}–{rs[-1]:.1f}"


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def r_sweep_memory(a: _Artefacts, args: list[str]) -> str:
    _args(args, 0, "sweep-memory", "sweep-memory")
    d = a.load(SWEEP_MEMORY)
    rows = d["rows"]
    for k in ("recycled", "tasks_per_worker"):
        if k not in d:
            raise DocgenError(f"renderer 'sweep-memory': no {k!r} in {SWEEP_MEMORY} (rerun "
                              f"`{d['generated_by'].replace('FILE', SWEEP_MEMORY)}`)")
    lines = ["| runs | wall | CPU (all processes) | parent peak RSS, runs done | parent peak RSS with the dataset | "
             "worker peak RSS |", "|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['runs']:,} | {r['wall_s']:.1f} s | {r['cpu_s']:.1f} s | {r['parent_peak_rss_mb']:.1f} MB | "
                     f"{r['parent_peak_rss_with_dataset_mb']:.1f} MB | {r['worker_peak_rss_mb']:.1f} MB |")
    lines += ["", f"Runs of {d['run_duration_s']:g} s simulated with {d['flows_per_run']} flows each, {d['workers']} "
                  f"workers, each sweep in a fresh process ({_machine(d, SWEEP_MEMORY)}); the peak RSS does not "
                  f"depend on the machine's speed or load, the wall time does."]
    runs = _join([f"{r['runs']:,}" for r in rows])
    step = sorted(r["dataset_alone_peak_rss_mb"] - r["parent_peak_rss_mb"] for r in rows)
    lines += ["", f"Writing the dataset of {runs} runs again from their run folders, alone in a fresh process, "
                  f"peaks at {_join([format(r['dataset_alone_peak_rss_mb'], '.0f') for r in rows])} MB: the "
                  f"{step[0]:.0f}–{step[-1]:.0f} MB above the parent's peak when the runs are done are pyarrow's "
                  f"Parquet reader and its allocator. "
                  f"`cellshare report` of those sweeps, each in a fresh process, peaks at "
                  f"{_join([format(r['report_peak_rss_mb'], '.0f') for r in rows])} MB and takes "
                  f"{_join([format(r['report_cpu_s'], '.1f') for r in rows])} s of CPU time."]
    rec = d["recycled"]
    same = [r for r in rows if r["runs"] == rec["runs"]]
    if not same:
        raise DocgenError(f"renderer 'sweep-memory': {SWEEP_MEMORY} recycled workers in a sweep of {rec['runs']} runs, "
                          f"but has no row of {rec['runs']} runs to compare it with")
    base = same[0]
    extra = -(-rec["runs"] // rec["tasks_per_worker"]) - d["workers"]  # worker processes started beyond the first
    lines += ["", f"Replacing the workers every {rec['tasks_per_worker']} runs instead of {d['tasks_per_worker']} "
                  f"made the {rec['runs']:,}-run sweep take {rec['cpu_s'] / base['cpu_s']:.1f}× the CPU time "
                  f"({rec['cpu_s']:.1f} s against {base['cpu_s']:.1f} s; wall {rec['wall_s']:.1f} s against "
                  f"{base['wall_s']:.1f} s): about {(rec['cpu_s'] - base['cpu_s']) / extra:.1f} s for each of the "
                  f"{extra} fresh workers, which spend it importing. Their peak RSS was "
                  f"{'no lower' if rec['worker_peak_rss_mb'] >= base['worker_peak_rss_mb'] else 'lower'} "
                  f"({rec['worker_peak_rss_mb']:.1f} MB against {base['worker_peak_rss_mb']:.1f} MB)."]
    return "\n".join(lines)


def r_sweep_tour(a: _Artefacts, args: list[str]) -> str:
    """The tour's sweep and report commands, the comment counting the sweep's runs (block: a
    code block, since a marker inside one would show)."""
    from . import sweeps

    rel, out = _args(args, 2, "sweep-tour", "sweep-tour SWEEP_FILE OUT")
    try:
        n = len(sweeps.load_sweep(a.root / rel).runs())
    except (OSError, sweeps.SweepError) as e:
        raise DocgenError(f"renderer 'sweep-tour': {rel}: {e}") from None
    return (f"```sh\n# {n} runs on every core\ncellshare sweep {rel} --out {out}\n\n"
            f"# {out}/report/index.html + PNG/PDF figures\ncellshare report {out}\n```")


#: The simulator against Linux in the emulator, over the four cellular traces (docs/tcp.md).
EMU_CROSSCHECK = "tools/data/emu-crosscheck-traces.json"


def _count(x) -> str:
    return "-" if x is None else str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def _pair(v: Optional[dict], sim: Callable, emu: Callable, rng: Optional[Callable] = None, diff: str = "") -> str:
    if v is None:
        return "- / - (-)"
    out = f"{'-' if v.get('sim') is None else sim(v['sim'])} / {'-' if v.get('emu') is None else emu(v['emu'])}"
    if rng and v.get("emu_range"):
        out += f" [{rng(v['emu_range'][0])}–{rng(v['emu_range'][1])}]"
    if diff:
        out += f" ({format(v['rel_diff'], diff)})" if v.get("rel_diff") is not None else " (-)"
    return out


def r_emu_crosscheck(a: _Artefacts, args: list[str]) -> str:
    d = a.load(EMU_CROSSCHECK)
    f2, f0, d0 = (lambda x: f"{x:.2f}"), (lambda x: f"{x:.0f}"), (lambda x: f"{x:.0f}")
    lines = ["| trace | cc | Mbps sim / emu (diff) | retx sim / emu | drops sim / emu | retx per drop sim / emu (diff) "
             "| timeouts sim / emu | RTT p50 ms sim / emu (diff) | real time |", "|---|---|---|---|---|---|---|---|---|"]
    for c in d["cases"]:
        lines.append(" | ".join([
            f"| {c['trace']}", c["cc"], _pair(c["mbps"], f2, f2, f2, ".1%"), _pair(c["retransmits"], _count, f0, d0),
            _pair(c["drops"], _count, f0, d0), _pair(c["retx_per_drop"], f2, f2, None, ".0%"),
            _pair(c["timeouts"], _count, lambda x: f"{x:.1f}", d0), _pair(c["rtt_p50_ms"], f0, f0, f0, ".1%"),
            c["real_time"]]) + " |")
    return "\n".join(lines)


def r_emu_within(a: _Artefacts, args: list[str]) -> str:
    """How many cases of the emulator cross-check a criterion passes, and the largest difference."""
    key = _args(args, 1, "emu-within", "emu-within throughput|rtt|retx_per_drop|timeouts")[0]
    d = a.load(EMU_CROSSCHECK)
    tol, cases = d["tolerances"], d["cases"]
    if key == "timeouts":
        slack = max(1.0, tol["timeouts_per_minute"] * d["duration_s"] / 60)
        judged = [(c, abs(c["timeouts"]["emu"] - c["timeouts"]["sim"]) <= slack) for c in cases]
        worst = ""
    else:
        field = {"throughput": "mbps", "rtt": "rtt_p50_ms", "retx_per_drop": "retx_per_drop"}.get(key)
        if field is None:
            raise DocgenError(f"renderer 'emu-within': expected throughput, rtt, retx_per_drop or timeouts, got {key!r}")
        diffs = [(c, (c[field] or {}).get("rel_diff")) for c in cases]
        judged = [(c, x <= tol[key]) for c, x in diffs if x is not None]
        worst = f", the largest difference {max(x for _, x in diffs if x is not None):.1%}".replace("%", " %")
    n, ok = len(judged), sum(j for _, j in judged)
    what = "cases with drops on both sides" if key == "retx_per_drop" else "cases"
    names = {"cubic": "CUBIC", "bbr": "BBR"}
    outside = ", ".join(f"{names.get(c['cc'], c['cc'])} on {c['trace'].removesuffix('.down')}" for c, j in judged if not j)
    return (f"all {n} {what}" if ok == n else f"{ok} of {n} {what} (not {outside})") + worst


EMU_MULTIFLOW = "tools/data/emu-crosscheck-multiflow.json"


def _multiflow_case(d: dict, scenario: str) -> dict:
    for c in d["cases"]:
        if c["scenario"] == scenario:
            return c
    raise DocgenError(f"{EMU_MULTIFLOW}: no case of scenario {scenario!r}; it has "
                      + ", ".join(c["scenario"] for c in d["cases"]))


def _outside(c: dict) -> list[str]:
    """What a multi-flow case's flows miss: '<criterion>: flow, flow' per missed tolerance."""
    out = []
    for label, key, tol in (("throughput", "throughput_rel_diff", "throughput_tolerance"),
                            ("RTT", "rtt_rel_diff", "rtt_tolerance"),
                            ("retransmissions per drop", "retx_per_drop_rel_diff", "retx_per_drop_tolerance")):
        bad = [f"{f['name']} ({f[key]:.0%})".replace("%", " %") for f in c["flows"]
               if f[key] is not None and f[key] > c[tol]]
        if bad:
            out.append(f"{label} {', '.join(bad)}")
    if not c["timeouts_within_tolerance"]:
        out.append("timeouts")
    return out


def r_emu_multiflow(a: _Artefacts, args: list[str]) -> str:
    """The multi-flow cross-checks: one row per flow of each case."""
    d = a.load(EMU_MULTIFLOW)
    lines = ["| case | flow | Mbps sim / emu (diff) | drops sim / emu | retx per drop sim / emu | timeouts sim / emu "
             "| RTT p50 ms sim / emu (diff) |", "|---|---|---|---|---|---|---|"]
    for c in d["cases"]:
        for i, f in enumerate(c["flows"]):
            case = f"`{c['scenario'].removeprefix('scenarios/')}` ({c['what']})" if i == 0 else ""
            pct = lambda x: "-" if x is None else f"{x:.1%}".replace("%", " %")  # noqa: E731
            rpd = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
            lines.append(f"| {case} | {f['name']} | {f['sim_mbps']:.2f} / {f['emu_mbps']:.2f} ({pct(f['throughput_rel_diff'])}) "
                         f"| {_count(f['sim_drops'])} / {_count(f['emu_drops'])} "
                         f"| {rpd(f['sim_retx_per_drop'])} / {rpd(f['emu_retx_per_drop'])} "
                         f"| {_count(f['sim_timeouts'])} / {_count(f['emu_timeouts'])} "
                         f"| {f['sim_rtt_p50_ms']:.0f} / {f['emu_rtt_p50_ms']:.0f} ({pct(f['rtt_rel_diff'])}) |")
    return "\n".join(lines)


def r_emu_multiflow_verdict(a: _Artefacts, args: list[str]) -> str:
    """A multi-flow case's verdict (inline): within every tolerance, or what it misses."""
    scenario = _args(args, 1, "emu-multiflow-verdict", "emu-multiflow-verdict SCENARIO")[0]
    c = _multiflow_case(a.load(EMU_MULTIFLOW), scenario)
    miss = _outside(c)
    return "within every tolerance" if not miss and c["ok"] else "outside the tolerance in " + "; ".join(miss or ["its verdict"])


def r_emu_multiflow_machine(a: _Artefacts, args: list[str]) -> str:
    """Where the multi-flow cross-checks ran (inline)."""
    m = a.load(EMU_MULTIFLOW)["machine"]
    return (f"{m['cores']} cores ({m['cpu']}), {m['system']}, one-minute load {m['load_1min_before']:g} before and "
            f"{m['load_1min_after']:g} after")


LEGILIMENS_IN_STEP = "tools/data/legilimens-in-step.json"


def _in_step_case(d: dict, ident: str) -> dict:
    for c in d["cases"]:
        if c["id"] == ident:
            return c
    raise DocgenError(f"{LEGILIMENS_IN_STEP}: no case {ident!r}; it has " + ", ".join(c["id"] for c in d["cases"]))


def r_legilimens_in_step(a: _Artefacts, args: list[str]) -> str:
    """In-step Legilimens backgrounds: one row per case (block)."""
    d = a.load(LEGILIMENS_IN_STEP)
    lines = ["| backgrounds | foreground Mbit/s | backgrounds Mbit/s (sum) | longest run of ms with data at a "
             "background | largest background capacity estimate, Mbit/s | a background backed off |",
             "|---|---|---|---|---|---|"]
    for c in d["cases"]:
        est = "-" if c["bg_estimate_max_mbps"] is None else f"{c['bg_estimate_max_mbps']:.1f}"
        lines.append(f"| {c['what']} | {c['fg_mbps']:.1f} | {c['bg_mbps']:.1f} | {c['bg_longest_run_ms']} | {est} | "
                     f"{'yes' if c['bg_backed_off'] else 'no'} |")
    return "\n".join(lines)


def r_legilimens_in_step_value(a: _Artefacts, args: list[str]) -> str:
    """One case's number (inline): Mbit/s with one decimal, a count of milliseconds as it is."""
    ident, key = _args(args, 2, "legilimens-in-step-value", "legilimens-in-step-value CASE KEY")[:2]
    c = _in_step_case(a.load(LEGILIMENS_IN_STEP), ident)
    if key not in c or not isinstance(c[key], (int, float)) or isinstance(c[key], bool):
        raise DocgenError(f"{LEGILIMENS_IN_STEP}: case {ident!r} has no number {key!r}")
    return str(c[key]) if isinstance(c[key], int) else f"{c[key]:.1f}"


#: In-step Legilimens backgrounds in the emulator, eBPF cap as shipped and on the min RTT
#: (``python tools/legilimens_in_step_linux.py --out FILE``).
IN_STEP_LINUX = "tools/data/legilimens-in-step-linux.json"
_IN_STEP_LINUX_LABELS = {"shipped": "as shipped: 0.8 · capacity · smoothed RTT",
                         "min-rtt-cap": "0.8 · capacity · minimum RTT (the simulator's)"}


def _in_step_linux_variant(d: dict, name: str) -> dict:
    for v in d["variants"]:
        if v["variant"] == name:
            return v
    raise DocgenError(f"{IN_STEP_LINUX}: no variant {name!r} (expected one of "
                      f"{', '.join(v['variant'] for v in d['variants'])})")


def r_in_step_linux(a: _Artefacts, args: list[str]) -> str:
    """``in-step-linux``: Linux's Legilimens backgrounds started together in the emulator, per
    variant of the eBPF NORMAL window cap: the foreground's rate, the backgrounds' rates, drops
    and queue sojourn, and the milliseconds served back to back in their first 3 s and over the
    run (block)."""
    d = a.load(IN_STEP_LINUX)
    lines = ["| eBPF NORMAL window cap | foreground Mbit/s | backgrounds Mbit/s | background drops | background "
             "sojourn p99, ms | back-to-back ms pairs per background, first 3 s | the same, whole run | longest run "
             "of ms with data, whole run |", "|---|---|---|---|---|---|---|---|"]
    for v in d["variants"]:
        fg = [f for f in v["flows"] if f["class"] != "background"]
        bg = [f for f in v["flows"] if f["class"] == "background"]
        if len(fg) != 1 or not bg:
            raise DocgenError(f"{IN_STEP_LINUX}: variant {v['variant']!r} needs one foreground and backgrounds")
        rates = ", ".join(f"{f['throughput_mbps']:.2f}" for f in bg)
        drops = ", ".join(str(f["drops"]) for f in bg)
        sojourn = ", ".join(f"{f['sojourn_p99_ms']:.0f}" for f in bg)
        early = ", ".join(str(f["first_3s"]["back_to_back_pairs"]) for f in bg)
        whole = ", ".join(str(f["run"]["back_to_back_pairs"]) for f in bg)
        longest = ", ".join(str(f["run"]["longest_run_ms"]) for f in bg)
        lines.append(f"| {_IN_STEP_LINUX_LABELS.get(v['variant'], v['variant'])} | {fg[0]['throughput_mbps']:.2f} | "
                     f"{rates} | {drops} | {sojourn} | {early} | {whole} | {longest} |")
    return "\n".join(lines) + (f"\n\n{d['duration_s']:g} s per run, kernel {d['kernel']}, "
                               f"`{d['generated_by'].replace(' --out FILE', '')}`.")


#: The emulator's slot lateness per numerology and its NR cross-check (`tools/emu_nr_measure.py`).
EMU_NR = "tools/data/emu-nr.json"


def _emu_nr_variants(d: dict) -> dict[str, list[dict]]:
    """The runs of each variant (LTE, NR μ = 0..3), in the file's order."""
    out: dict[str, list[dict]] = {}
    for r in d["runs"]:
        out.setdefault(r["label"], []).append(r)
    return out


def _span(xs: list[float], fmt: str) -> str:
    lo, hi = min(xs), max(xs)
    return format(lo, fmt) if format(lo, fmt) == format(hi, fmt) else f"{format(lo, fmt)}–{format(hi, fmt)}"


def r_emu_nr(a: _Artefacts, args: list[str]) -> str:
    """Slot lateness of the emulator's loop per cell (LTE; NR per numerology), over the runs
    of ``tools/data/emu-nr.json`` (block)."""
    d = a.load(EMU_NR)
    lines = ["| cell | slot ms | runs within budget | lateness p50 ms | lateness p99 ms | latest ms | delivered Mbps "
             "| idle RTT median − base ms | host steal % | load (1 min) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for label, runs in _emu_nr_variants(d).items():
        lat = [r["tti_lateness_ms"] for r in runs]
        kept = sum(r["kept_real_time"] for r in runs)
        extra = [m - r["base_rtt_ms"] for r in runs for m in r["idle_rtt_median_ms"]]
        steal = [r["host_steal_percent"] for r in runs if r["host_steal_percent"] is not None]
        lines.append(" | ".join([
            f"| {label}", f"{runs[0]['slot_ms']:g}", f"{kept} of {len(runs)} (p99 ≤ {runs[0]['budget_ms']:g} ms)",
            _span([x["p50"] for x in lat], ".3f"), _span([x["p99"] for x in lat], ".3f"),
            _span([x["max"] for x in lat], ".1f"), _span([r["delivered_mbps"] for r in runs], ".1f"),
            _span(extra, ".2f"), _span(steal, ".1f") if steal else "-",
            _span([r["load_1min_before"] for r in runs], ".1f")]) + " |")
    return "\n".join(lines)


def r_emu_nr_held(a: _Artefacts, args: list[str]) -> str:
    """Which numerologies kept real time in every run of ``tools/data/emu-nr.json``, and which
    missed in some (inline)."""
    d = a.load(EMU_NR)
    held, missed = [], []
    for runs in _emu_nr_variants(d).values():
        mu = runs[0]["numerology"]
        if mu is None:
            continue
        kept = sum(r["kept_real_time"] for r in runs)
        (held if kept == len(runs) else missed).append((mu, kept, len(runs)))
    text = ""
    if held:
        mus = [str(m) for m, _, _ in held]
        text = f"μ = {', '.join(mus[:-1]) + ' and ' + mus[-1] if len(mus) > 1 else mus[0]} in every run"
    if missed:
        text += ("; " if text else "") + "; ".join(f"μ = {m} in {k} of {n} runs" for m, k, n in missed)
    return text


def r_emu_nr_machine(a: _Artefacts, args: list[str]) -> str:
    """Where and how ``tools/data/emu-nr.json`` was measured (inline)."""
    d = a.load(EMU_NR)
    m, runs = d["machine"], d["runs"]
    loads = [r["load_1min_before"] for r in runs]
    per = {}
    for r in runs:
        per[r["label"]] = per.get(r["label"], 0) + 1
    return (f"{m['cores']} cores ({m['cpu']}), {m['system']}, one-minute load {min(loads):g}–{max(loads):g} before the "
            f"runs; {max(per.values())} runs of {runs[0]['duration_s']:.0f} s per cell, round-robin "
            f"(`{d['generated_by'].replace('FILE', EMU_NR)}`)")


def crosscheck_rows(c: dict, rtt_decimals: int) -> list[str]:
    """A stored ``cellshare crosscheck`` (its JSON ``flows``) as a table, one row per flow:
    throughput, drops, retransmissions per drop, timeouts and median RTT, simulator / emulator."""
    pct = lambda x: "-" if x is None else f"{x:.1%}".replace("%", " %")  # noqa: E731
    rpd = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
    lines = ["| flow | Mbps sim / emu (diff) | drops sim / emu | retx per drop sim / emu | timeouts sim / emu "
             "| RTT p50 ms sim / emu (diff) |", "|---|---|---|---|---|---|"]
    for f in c["flows"]:
        lines.append(" | ".join([
            f"| {f['name']}", f"{f['sim_mbps']:.2f} / {f['emu_mbps']:.2f} ({pct(f['throughput_rel_diff'])})",
            f"{f['sim_drops']} / {f['emu_drops']}", f"{rpd(f['sim_retx_per_drop'])} / {rpd(f['emu_retx_per_drop'])}",
            f"{f['sim_timeouts']} / {f['emu_timeouts']}",
            f"{f['sim_rtt_p50_ms']:.{rtt_decimals}f} / {f['emu_rtt_p50_ms']:.{rtt_decimals}f} "
            f"({pct(f['rtt_rel_diff'])})"]) + " |")
    return lines


def r_emu_nr_crosscheck(a: _Artefacts, args: list[str]) -> str:
    """The NR scenario's ``cellshare crosscheck``, one row per flow, from ``tools/data/emu-nr.json``
    (block)."""
    d = a.load(EMU_NR)
    c = d.get("crosscheck")
    if not c:
        raise DocgenError(f"renderer 'emu-nr-crosscheck': {EMU_NR} holds no crosscheck (measured with --no-crosscheck)")
    lines = crosscheck_rows(c, rtt_decimals=1)
    verdict = "within every tolerance" if c["ok"] else "outside a tolerance"
    lines.append("")
    lines.append(f"`{c['command']}` (one-minute load {c['load_1min_before']:g}): {verdict} (throughput "
                 f"{c['throughput_tolerance']:.0%}, RTT {c['rtt_tolerance']:.0%}, retransmissions per drop "
                 f"{c['retx_per_drop_tolerance']:.0%}; the emulator kept real time: "
                 f"{'yes' if c['emu_kept_real_time'] else 'no'}).".replace("%", " %"))
    return "\n".join(lines)


# --- Figures ------------------------------------------------------------------------------
#
# A figure is drawn from the numbers one of its builders reads off the committed artefacts
# (the data: its title, panels, labels, values, caption). The data's digest is stored in the
# PNG's metadata; a committed figure whose digest differs from what the artefacts give is
# stale, whatever matplotlib version drew it.

IMG = "docs/img"
FIGURES_COMMAND = "python -m cellshare.docgen --figures"
#: The PNG text chunk that holds the digest of the figure's data.
DIGEST_KEY = "cellshare-data-sha256"


def _ours(a: _Artefacts, rep: str, ident: str):
    return a.result(rep, ident)["ours"]


def _dict(a: _Artefacts, rep: str, ident: str) -> dict:
    v = _ours(a, rep, ident)
    if not isinstance(v, dict):
        raise DocgenError(f"figure data: {rep}/{ident} in {SCOREBOARD} is not a value per key")
    return v


def _bars(title: str, categories: list[str], series: list[tuple[str, list]], ylabel: str, *, fmt_: str = "{:.2g}",
          log: bool = False, horizontal: bool = False, stacked: bool = False, ref: Optional[tuple[float, str]] = None) -> dict:
    return {"kind": "bars", "title": title, "categories": categories,
            "series": [[label, [None if v is None else float(v) for v in vals]] for label, vals in series],
            "ylabel": ylabel, "fmt": fmt_, "log": log, "horizontal": horizontal, "stacked": stacked,
            "ref": list(ref) if ref else None}


def _lines(title: str, x: list, series: list[tuple[str, list]], xlabel: str, ylabel: str, *, logx: bool = False,
           fmt_: str = "{:.2g}") -> dict:
    return {"kind": "lines", "title": title, "x": [float(v) for v in x],
            "series": [[label, [float(v) for v in vals]] for label, vals in series],
            "xlabel": xlabel, "ylabel": ylabel, "logx": logx, "fmt": fmt_}


def f_legilimens_onoff(a: _Artefacts) -> dict:
    rep = "legilimens-onoff"
    keys = [("legilimens-active", "Legilimens active"), ("legilimens-passive", "Legilimens passive"),
            ("ledbat", "LEDBAT"), ("tcp_lp", "TCP-LP")]
    names = [n for _, n in keys]
    on = [100 * _ours(a, rep, f"{k}-share-on") for k, _ in keys]
    off = [100 * _ours(a, rep, f"{k}-off") for k, _ in keys]
    return {"title": "One PF cell, 2 UEs: a background flow beside an on/off CUBIC foreground at the other UE",
            "panels": [_bars("While CUBIC is on", names, [("background", on)], "background's share of\nthe delivered bytes (%)",
                             fmt_="{:.0f}", ref=(50, "an equal split")),
                       _bars("While CUBIC is off", names, [("background", off)],
                             "background's throughput /\nthe cell's (%)", fmt_="{:.0f}")]}


def f_legilimens_queues(a: _Artefacts) -> dict:
    rep = "legilimens-queues"
    ccs = [("cubic", "CUBIC"), ("ledbat", "LEDBAT"), ("vegas", "Vegas")]
    kb = {name: _dict(a, rep, f"{cc}-higher-queue")[name] for cc, name in ccs}
    kb["Legilimens"] = _dict(a, rep, "cubic-higher-queue")["Legilimens"]
    empty = {name: 100 * _ours(a, rep, f"{cc}-nearly-empty") for cc, name in ccs + [("legilimens", "Legilimens")]}
    names = list(kb)
    return {"title": "The background UE's base-station queue after a foreground UE joins the cell (Fig. 13)",
            "panels": [_bars("Mean queue", names, [("mean queue", [kb[n] for n in names])], "mean queue (KB, log scale)",
                             fmt_="{:.0f}", log=True),
                       _bars("Queue nearly empty", names, [("≤ 15 KB", [empty[n] for n in names])],
                             "100 ms samples with the\nqueue ≤ 15 KB (%)", fmt_="{:.0f}")]}


def f_sneaker_scaling(a: _Artefacts) -> dict:
    rep = "sneaker-scaling"
    pfs, snk = _dict(a, rep, "pfs-degrades"), _dict(a, rep, "sneaker-degrades")
    ls = [int(k.split("=")[1]) for k in pfs]
    shared = _dict(a, rep, "shared-queue-gains")
    per_flow = [_ours(a, rep, f"gain-L{n}") for n in ls]
    return {"title": "One foreground flow beside L background flows in one PF cell (Fig. 5)",
            "panels": [_lines("Foreground throughput", ls, [("PFS only", list(pfs.values())), ("Sneaker", list(snk.values()))],
                              "background flows L", "foreground throughput (Mbit/s)", logx=True, fmt_="{:.0f}"),
                       _lines("Sneaker's gain", ls, [("per-flow queues (the paper's model)", per_flow),
                                                     ("one shared background UE queue", list(shared.values()))],
                              "background flows L", "Sneaker's / PFS only's\nforeground throughput (×)", logx=True,
                              fmt_="{:.1f}")]}


def f_sneaker_at_scale(a: _Artefacts) -> dict:
    rep = "sneaker-at-scale"
    fg50, bg50, bg20 = (_dict(a, rep, i) for i in ("fg-best-at-50", "bg-yields-at-50", "bg-most-at-20"))
    names = list(bg50)
    return {"title": "100 UEs: the short/medium/long foreground mix with Reno, the background on one UE (Figs. 7–8)",
            "panels": [_bars("Foreground at 50 % load", names, [("foreground", [fg50[n] for n in names])],
                             "medium and long flows' mean\nthroughput per flow (Mbit/s)", fmt_="{:.1f}"),
                       _bars("Background", names, [("50 % load", [bg50[n] for n in names]),
                                                   ("20 % load", [bg20[n] for n in names])],
                             "background throughput (Mbit/s)", fmt_="{:.0f}")]}


def f_legilimens_at_scale(a: _Artefacts) -> dict:
    rep = "legilimens-at-scale"
    schemes = [("cubic", "CUBIC"), ("bbr", "BBR"), ("vegas", "Vegas"), ("ledbat", "LEDBAT"), ("tcp-lp", "TCP-LP"),
               ("verus", "Verus"), ("legilimens", "Legilimens"), ("ideal-priority", "ideal priority")]
    names = [n for _, n in schemes]
    return {"title": "100 UEs, a foreground mix and a background flow at every UE: throughput per flow by background "
                     "(Fig. 12; means over the 30, 60 and 80 % loads)", "width": 10.0,
            "panels": [_bars("Per flow", names, [("foreground long flows", [_ours(a, rep, f"fg-{k}") for k, _ in schemes]),
                                                 ("background flows", [_ours(a, rep, f"bg-{k}") for k, _ in schemes])],
                             "throughput per flow (Mbit/s, log scale)", fmt_="{:.2g}", log=True,
                             ref=(_ours(a, rep, "fg-wo-bg"), "foreground without a background"))]}


_BODE_CCS = [("cubic", "CUBIC"), ("bbr", "BBR"), ("c2tcp", "C2TCP"), ("westwood", "Westwood+"), ("sprout", "Sprout"),
             ("vivace", "PCC-Vivace"), ("reno", "Reno"), ("vegas", "Vegas")]


def f_bode_delay(a: _Artefacts) -> dict:
    rep = "bode"
    p50, mean, p99 = (_dict(a, rep, f"fig9-overall-delay-{q}") for q in ("p50", "mean", "p99"))
    rate = _dict(a, rep, "fig9-throughput")
    aqms = list(p99)
    return {"title": "C2TCP on the ATT-LTE-driving trace, one flow: end-to-end delay including retransmissions (Fig. 9)",
            "panels": [_bars("Delay per queue discipline", aqms,
                             [("median", [p50[q] for q in aqms]), ("mean", [mean[q] for q in aqms]),
                              ("99th percentile", [p99[q] for q in aqms])], "delay (ms)", fmt_="{:.0f}"),
                       _bars("Delivery rate", aqms, [("rate", [rate[q] for q in aqms])], "delivery rate (Mbit/s)",
                             fmt_="{:.2f}")]}


def f_bode_controllers(a: _Artefacts) -> dict:
    rep = "bode"
    names = [n for _, n in _BODE_CCS]
    cut = [_ours(a, rep, f"delay-cut-{k}") for k, _ in _BODE_CCS]
    cost = [100 * _ours(a, rep, f"throughput-cost-{k}") for k, _ in _BODE_CCS]
    return {"title": "BoDe per congestion controller, averaged over the four LTE traces (Figs. 7–8; Reno and Vegas are ours)",
            "panels": [_bars("p99 delay: BoDe against CoDel and PIE", names, [("delay cut", cut)],
                             "better of CoDel's and PIE's p99\ndelay / BoDe's (×)", fmt_="{:.1f}", ref=(1, "no gain")),
                       _bars("Delivery rate", names, [("rate", cost)], "BoDe's delivery rate /\nTailDrop's (%)",
                             fmt_="{:.0f}")]}


def f_apps_calls(a: _Artefacts) -> dict:
    rep = "bode-apps"
    e = a.reproduction(rep)
    ids = [c["id"] for c in e["observations"] if c["id"].startswith("call-frame-p99-")]
    if not ids:
        raise DocgenError(f"figure data: {rep} has no call-frame-p99-* observations in {SCOREBOARD}")
    aqms = [i.removeprefix("call-frame-p99-") for i in ids]
    return {"title": "A video call over the 4G traces: 99th-percentile frame delay per queue discipline (mean over the traces)",
            "panels": [_bars("Frame delay", aqms, [("p99", [_ours(a, rep, i) for i in ids])],
                             "p99 frame delay (ms, log scale)", fmt_="{:.0f}", log=True)]}


def f_rtac(a: _Artefacts) -> dict:
    rep = "rtac"
    schemes = [("auto", "auto-tuning"), ("drwa", "DRWA"), ("rtac", "RTAC")]
    links = [("lte", "LTE"), ("wifi", "Wi-Fi")]
    ic3 = _dict(a, rep, "ic-three-drwa-lower")
    share = {"RTAC": [_ours(a, rep, "dc-rtac-share"), _ours(a, rep, "ic-rtac-share"), _ours(a, rep, "dc-three-rtac-share"),
                      ic3["RTAC"] / ic3["Auto-tuning"]],
             "DRWA": [_ours(a, rep, "dc-drwa-share"), _ours(a, rep, "ic-drwa-share"), _ours(a, rep, "dc-three-drwa-share"),
                      ic3["DRWA"] / ic3["Auto-tuning"]]}
    return {"title": "Receive-window control: RTAC and DRWA against Linux's auto-tuning (thesis ch. 2)",
            "panels": [_bars("One flow: mean RTT", [n for _, n in links],
                             [(name, [_ours(a, rep, f"{l}-{s}-rtt") for l, _ in links]) for s, name in schemes],
                             "mean RTT (ms)", fmt_="{:.0f}"),
                       _bars("Competing with auto-tuning", ["direct, 2 receivers", "indirect, 2 receivers",
                                                            "direct, 3 receivers", "indirect, 3 receivers"],
                             [(k, [100 * x for x in v]) for k, v in share.items()],
                             "throughput / auto-tuning's (%)", fmt_="{:.0f}", ref=(100, "equal"))]}


_MEDIANS = re.compile(r"(\d+) Mbit/s: ([\d.]+) / ([\d.]+)")


def f_sorpc(a: _Artefacts) -> dict:
    rep = "sorpc"
    text = _ours(a, rep, "messenger-medians")
    rows = _MEDIANS.findall(str(text))
    if not rows:
        raise DocgenError(f"figure data: {rep}/messenger-medians is {text!r}; expected `5 Mbit/s: SINGLE / SORPC, ...`")
    yt, web = _dict(a, rep, "youtube-sorpc-better"), _dict(a, rep, "web-sorpc-better")
    cases = list(yt)
    return {"title": "A bulk upload beside interactive apps on one phone: one transmit queue or SORPC's two (thesis ch. 3)",
            "panels": [_bars("Messenger beside the upload", [f"uplink\n{u} Mbit/s" for u, _, _ in rows],
                             [("single queue", [float(s) for _, s, _ in rows]), ("SORPC", [float(d) for _, _, d in rows])],
                             "median RTT (ms)", fmt_="{:.0f}"),
                       _bars("Apps starting 5 s into the upload", ["YouTube-like\nstart-up delay", "web page\nload time"],
                             [(c, [yt[c], web[c]]) for c in cases], "time (s)", fmt_="{:.2f}")]}


def f_dtpa(a: _Artefacts) -> dict:
    rep = "dtpa"
    hops = _dict(a, rep, "reno-falls-with-hops")
    j10, j30 = _dict(a, rep, "dtpa-fairer-10"), _dict(a, rep, "dtpa-fairer-30")
    return {"title": "A multi-hop low-power network (CSMA/CA, a static tree), one TCP uplink per node (thesis ch. 4)",
            "panels": [_bars("Reno, 10 nodes", list(hops), [("goodput", list(hops.values()))],
                             "mean goodput per node (segments/s)", fmt_="{:.2f}"),
                       _bars("Fairness over the nodes", ["10 nodes", "30 nodes"],
                             [(s, [j10[s], j30[s]]) for s in j10], "Jain's index of the nodes' goodput", fmt_="{:.2f}")]}


def f_reproductions(a: _Artefacts) -> dict:
    reps = a.board["reproductions"]
    names = [e["name"] for e in reps][::-1]
    held = [sum(c["verdict"] == "holds" for c in e["claims"]) for e in reps][::-1]
    missed = [len(e["claims"]) - h for e, h in zip(reps[::-1], held)]
    return {"title": "Each reproduction's claims: held and missed under the one tolerance rule",
            "panels": [_bars("", names, [("holds", held), ("misses", missed)], "claims", fmt_="{:.0f}",
                             horizontal=True, stacked=True)]}


def f_performance(a: _Artefacts) -> dict:
    b = a.bench
    runs = b["runs"]
    counts = sorted([(runs["single-realistic"]["ues"], "single-realistic")] +
                    [(r["ues"], k) for k, r in runs.items() if k.startswith("ues-")])
    tr = [("single-realistic", "CUBIC")] + [(k, _TRANSPORT_NAMES.get(k.removeprefix("transport-"), k).replace(" (TCP)", ""))
                                              for k in runs if k.startswith("transport-")]
    m = b["machine"]
    return {"title": f"One realistic LTE cell, {b['duration_s']:g} simulated s, median of {b['repeat']} runs "
                     f"({m['cpu']}, {m['cores']} cores)",
            "panels": [_lines("Speed by the number of UEs (CUBIC)", [n for n, _ in counts],
                              [("per CPU second", [runs[k]["sim_speed"] for _, k in counts]),
                               ("by the wall clock", [runs[k]["wall_sim_speed"] for _, k in counts])],
                              "UEs in the cell", "simulated s per s\n(× real time)", logx=True, fmt_="{:.0f}"),
                       _bars("Speed by transport (100 UEs)", [n.replace(", `fast_inference`", " fast") for _, n in tr],
                             [("per CPU second", [runs[k]["sim_speed"] for k, _ in tr])],
                             "simulated s per CPU s\n(× real time)", fmt_="{:.0f}")]}


class Figure:
    """A figure on a page: its file name, the builder of its data, and its caption."""

    def __init__(self, name: str, build: Callable[[_Artefacts], dict], caption: str, source: str = SCOREBOARD) -> None:
        self.name, self.build, self.caption, self.source = name, build, caption, source

    @property
    def path(self) -> str:
        return f"{IMG}/{self.name}.png"

    def data(self, a: _Artefacts) -> dict:
        return {"figure": self.name, "caption": self.caption, "source": self.source, **self.build(a)}


def digest(data: dict) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


FIGURES: dict[str, Figure] = {f.name: f for f in [
    Figure("legilimens-shares", f_legilimens_onoff,
           "`legilimens-onoff` (Figure 7): how much of the cell each background controller takes while CUBIC is on, "
           "and how much of it it uses while CUBIC is off."),
    Figure("legilimens-queues", f_legilimens_queues,
           "`legilimens-queues` (Figure 13): the background UE's queue at the base station once another UE's flow "
           "joins; Legilimens leaves it nearly empty, delay-based Vegas nearly so, CUBIC and LEDBAT fill it."),
    Figure("sneaker-scaling", f_sneaker_scaling,
           "`sneaker-scaling` (Figure 5): the foreground's throughput as background flows are added, with PF alone "
           "and with Sneaker, and Sneaker's gain with per-flow queues (the paper's model) and with one shared queue."),
    Figure("sneaker-at-scale", f_sneaker_at_scale,
           "`sneaker-at-scale` (Figures 7–8): foreground and background throughput with Sneaker, TCP-LP or LEDBAT "
           "carrying the background (means over the runs)."),
    Figure("legilimens-at-scale", f_legilimens_at_scale,
           "`legilimens-at-scale` (Figure 12): with a background flow at every UE, per-UE PF gives each UE about a "
           "hundredth of the cell whatever the background's controller; only ideal priority lets the foreground "
           "near its throughput without a background (dashed)."),
    Figure("bode-delay", f_bode_delay,
           "`bode` (Figure 9): delay and delivery rate of a C2TCP flow under each queue discipline."),
    Figure("bode-controllers", f_bode_controllers,
           "`bode` (Figures 7–8): BoDe's p99 delay cut over the better of CoDel and PIE, and its delivery rate "
           "against tail drop, for each congestion controller (1× on the left axis: no gain)."),
    Figure("apps-call-frames", f_apps_calls,
           "`bode-apps`: a video call's frame delay under each queue discipline of the base station."),
    Figure("rtac", f_rtac,
           "`rtac`: the RTT of one download under each receive-window scheme, and each scheme's throughput against "
           "an auto-tuning flow in direct (shared buffer) and indirect (wired bottleneck) competition."),
    Figure("sorpc", f_sorpc,
           "`sorpc`: a messenger's RTT and a stream's and a web page's start-up beside a bulk upload, with one "
           "transmit queue or SORPC's two."),
    Figure("dtpa", f_dtpa,
           "`dtpa`: Reno's goodput falls with the hop count; DTPA raises Jain's index over the nodes (c = 2)."),
    Figure("reproductions", f_reproductions,
           "Every reproduction's claims, held and missed ([the scoreboard](#the-scoreboard) gives each claim and the "
           "cause of every miss)."),
    Figure("performance", f_performance,
           "The benchmark session of `tools/data/bench.json`: speed by the number of UEs and by transport "
           "(tables below).", source=BENCH),
]}


def stale_figures(root: Path = ROOT) -> list[str]:
    """The figures (paths under the root) missing or drawn from other data than the artefacts give."""
    from PIL import Image

    a, bad = _Artefacts(root), []
    for f in FIGURES.values():
        p = root / f.path
        if not p.exists():
            bad.append(f.path)
            continue
        with Image.open(p) as im:
            if im.text.get(DIGEST_KEY) != digest(f.data(a)):
                bad.append(f.path)
    return bad


def _draw(data: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = data["panels"]
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"]
    # Sized for the content column at 1280 px (about 750 px wide): a 10-inch figure shows at
    # ~0.58 of its 130 dpi, so 12-13 pt text reads at 12-13 px, beside the page's 16 px.
    with plt.rc_context({"font.size": 13, "axes.titlesize": 13.5, "axes.labelsize": 13, "legend.fontsize": 12,
                         "xtick.labelsize": 12, "ytick.labelsize": 12, "axes.spines.top": False,
                         "axes.spines.right": False}):
        tall = any(p["kind"] == "bars" and p["horizontal"] for p in panels)
        height = 0.28 * len(panels[0]["categories"]) + 1.5 if tall else 4.8
        width = data.get("width") or (5.0 * len(panels) if len(panels) > 1 else 7.5)
        fig, axes = plt.subplots(1, len(panels), figsize=(width, height),
                                 squeeze=False)
        for ax, p in zip(axes[0], panels):
            if p["kind"] == "bars":
                _draw_bars(ax, p, colors)
            else:
                for i, ((label, ys), c) in enumerate(zip(p["series"], colors)):
                    ax.plot(p["x"], ys, marker="o", color=c, label=label)
                    # The first series' values above its points, the next below: two series
                    # that meet at a point (CPU and wall clock on an idle machine) stay legible.
                    above = i % 2 == 0
                    for x, y in zip(p["x"], ys):
                        ax.annotate(p["fmt"].format(y), (x, y), textcoords="offset points", xytext=(0, 6 if above else -8),
                                    ha="center", va="bottom" if above else "top", fontsize=11, color=c)
                if p["logx"]:
                    ax.set_xscale("log")
                ax.set_xticks(p["x"], [f"{x:g}" for x in p["x"]])
                ax.minorticks_off()
                ax.set_xlabel(p["xlabel"])
                ax.set_ylabel(p["ylabel"])
                ax.set_ylim(bottom=0, top=max(max(ys) for _, ys in p["series"]) * 1.18)
                ax.legend(frameon=False)
                ax.grid(axis="y", alpha=0.3)
            if p["title"]:
                ax.set_title(p["title"])
        lines = -(-len(data["title"]) // int(fig.get_figwidth() * 9))
        fig.suptitle(textwrap.fill(data["title"], -(-len(data["title"]) // lines) + 6), fontsize=14)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=130, metadata={DIGEST_KEY: digest(data), "Title": data["title"],
                                             "Source": f"{data['source']} ({FIGURES_COMMAND})"})
        plt.close(fig)


def _draw_bars(ax, p: dict, colors: list[str]) -> None:
    cats, series = p["categories"], p["series"]
    n = len(series)
    width = 0.8 if p["stacked"] or n == 1 else 0.8 / n
    pos = list(range(len(cats)))
    base = [0.0] * len(cats)
    bar = ax.barh if p["horizontal"] else ax.bar
    for i, ((label, vals), c) in enumerate(zip(series, colors)):
        vals = [0.0 if v is None else v for v in vals]
        offs = [x if p["stacked"] or n == 1 else x - 0.4 + width * (i + 0.5) for x in pos]
        kw = {"left": base} if p["horizontal"] else {"bottom": base}
        bars = bar(offs, vals, width, color=c, label=label, **(kw if p["stacked"] else {}))
        labels = [p["fmt"].format(v) if v or not p["stacked"] else "" for v in vals]
        ax.bar_label(bars, labels=labels, label_type="center" if p["stacked"] else "edge", padding=0 if p["stacked"] else 2,
                     fontsize=11, color="white" if p["stacked"] else "black")
        if p["stacked"]:
            base = [b + v for b, v in zip(base, vals)]
    if p["horizontal"]:
        ax.set_yticks(pos, cats)
        ax.set_xlabel(p["ylabel"])
        ax.grid(axis="x", alpha=0.3)
    else:
        # Names that would touch their neighbours are slanted: a panel holds about 50
        # characters of tick labels side by side.
        if max(len(line) for c in cats for line in c.split("\n")) > 0.75 * 50 / len(cats):
            ax.set_xticks(pos, cats, rotation=30, ha="right", rotation_mode="anchor")
        else:
            ax.set_xticks(pos, cats)
        ax.set_ylabel(p["ylabel"])
        ax.grid(axis="y", alpha=0.3)
        if p["log"]:
            ax.set_yscale("log")
            # A decade and a half above the tallest bar holds the legend, one entry a line.
            ax.set_ylim(top=max(v for _, vs in series for v in vs if v) * (3 if n == 1 and not p["ref"] else 40))
        else:
            # Room above the bars for their labels and, with several series, a legend in one row.
            ax.set_ylim(top=max(v for _, vs in series for v in vs if v is not None) * (1.15 if n == 1 and not p["ref"] else 1.32))
    if p["ref"]:
        (ax.axvline if p["horizontal"] else ax.axhline)(p["ref"][0], color="gray", ls="--", lw=1, label=p["ref"][1])
    if p["horizontal"]:
        ax.legend(frameon=False, loc="lower right")
    elif p["log"] and (n > 1 or p["ref"]):
        ax.legend(frameon=False, loc="upper left", handlelength=1.5)
    elif n > 1 or p["ref"]:
        ax.legend(frameon=False, loc="upper center", ncol=n + bool(p["ref"]), columnspacing=1.2, handlelength=1.5)


def draw_figures(root: Path = ROOT, only_stale: bool = False) -> list[str]:
    """Draws every figure (or only the stale ones) into docs/img; returns the paths drawn."""
    todo = set(stale_figures(root)) if only_stale else None
    a, drawn = _Artefacts(root), []
    for f in FIGURES.values():
        if todo is None or f.path in todo:
            _draw(f.data(a), root / f.path)
            drawn.append(f.path)
    return drawn


def r_figure(a: _Artefacts, args: list[str]) -> str:
    name = _args(args, 1, "figure", "figure NAME")[0]
    if name not in FIGURES:
        raise DocgenError(f"renderer 'figure': no figure {name!r} (figures: {', '.join(FIGURES)})")
    f = FIGURES[name]
    title = f.build(a)["title"].replace("[", "(").replace("]", ")")
    return f"![{title}](img/{name}.png)\n\n*{f.caption} Drawn from `{f.source}` by `{FIGURES_COMMAND}`.*"


NR_LENA = "tools/data/nr-lena-compare.json"


def _nr_lena(a: _Artefacts, args: list[str], name: str) -> list[dict]:
    rel = args[0] if args else NR_LENA
    pts = a.load(rel).get("points") or []
    if not pts:
        raise DocgenError(f"renderer {name!r}: {rel} has no points (python tools/nr_lena.py compare)")
    return pts


def _retx(v) -> str:
    return "—" if v is None else f"{v:.3f}".rstrip("0").rstrip(".") if v else "0"


def r_nr_lena(a: _Artefacts, args: list[str]) -> str:
    """cellshare's NR cell against 5G-LENA, one row per distance: ``nr-lena [FILE]``."""
    lines = ["| distance | SINR, cellshare / 5G-LENA | MCS | throughput, Mbit/s | ratio | HARQ retx per block | "
             "cellshare's default PDSCH |", "|---|---|---|---|---|---|---|"]
    for p in _nr_lena(a, args, "nr-lena"):
        o, t, std = p["ours"], p["lena"], p["ours_standard_pdsch"]
        mcs = f"{'—' if o['mcs'] is None else o['mcs']} / {fmt(t['mcs'])}"
        ratio = "—" if p["throughput_ratio"] is None else f"{p['throughput_ratio']:.3f}"
        lines.append(f"| {p['distance_m']:g} m | {o['sinr_db']:.2f} / {t['sinr_db']:.2f} dB | {mcs} | "
                     f"{_mbit(o['throughput_mbps'])} / {_mbit(t['throughput_mbps'])} | {ratio} | "
                     f"{_retx(o['retx_per_tb'])} / {_retx(t['retx_per_tb'])} | {_mbit(std['throughput_mbps'])} |")
    return "\n".join(lines)


def r_nr_lena_range(a: _Artefacts, args: list[str]) -> str:
    """The lowest and highest of a per-point ratio of the comparison (inline):
    ``nr-lena-range KEY [FILE]``, KEY `throughput_ratio` or `standard_over_matched`, over the
    points where it is defined, as a ×-range."""
    key, *rest = _args(args, 1, "nr-lena-range", "nr-lena-range KEY [FILE]")
    vals = [p[key] for p in _nr_lena(a, rest, "nr-lena-range") if p.get(key) is not None]
    if not vals:
        raise DocgenError(f"renderer 'nr-lena-range': no point has {key!r}")
    lo, hi = min(vals), max(vals)
    return f"{lo:.3f}×" if f"{lo:.3f}" == f"{hi:.3f}" else f"{lo:.3f}–{hi:.3f}×"
START_SENSITIVITY = "tools/data/crosscheck-start-sensitivity.json"


def _sens_case(d: dict, trace: str, cc: str) -> dict:
    for c in d["cases"]:
        if c["trace"] == trace and c["cc"] == cc:
            return c
    raise DocgenError(f"{START_SENSITIVITY} has no case {trace} {cc} (cases: "
                      + ", ".join(f"{c['trace']} {c['cc']}" for c in d["cases"]) + ")")


def _wrap_command(cmd: str, width: int = 96) -> str:
    """A shell command over lines of at most about `width` characters, broken before an option
    (``--name value`` stays together) with a backslash, continuation lines indented by two."""
    parts = re.split(r" (?=--)", cmd)
    lines, line = [], parts[0]
    for part in parts[1:]:
        if len(line) + 1 + len(part) + 2 > width:
            lines.append(line + " \\")
            line = "  " + part
        else:
            line += " " + part
    return "\n".join(lines + [line])


def unwrap_command(text: str) -> str:
    """The one-line command of :func:`_wrap_command`'s lines."""
    return re.sub(r" \\\n  ", " ", text)


def r_start_sensitivity(a: _Artefacts, args: list[str]) -> str:
    """``start-sensitivity``: the command of `tools/crosscheck_start_sensitivity.py` that made the
    stored runs, then per trace, for each controller, the min / median / max over the starts of
    the crosscheck's RTT statistic (ms)."""
    d = a.load(START_SENSITIVITY)
    ccs = list(dict.fromkeys(c["cc"] for c in d["cases"]))
    traces = list(dict.fromkeys(c["trace"] for c in d["cases"]))
    names = {"cubic": "CUBIC", "bbr": "BBR"}
    lines = ["```", _wrap_command(d["generated_by"]), "```", "",
             "| trace | " + " | ".join(f"{names.get(c, c)} min / median / max, ms" for c in ccs) + " |",
             "|---|" + "---|" * len(ccs)]
    for t in traces:
        cells = []
        for cc in ccs:
            q = _sens_case(d, t, cc)["rtt_p50_ms"]
            cells.append("-" if q is None else f"{q['min']:.0f} / {q['median']:.0f} / {q['max']:.0f}")
        lines.append(f"| {_cell(t)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def r_start_sensitivity_starts(a: _Artefacts, args: list[str]) -> str:
    """``start-sensitivity-starts``: how many starts the stored runs have and how they are spaced
    (inline), e.g. ``21 starts from 0 to 2000 ms, 100 ms apart``."""
    o = a.load(START_SENSITIVITY)["offsets_ms"]
    steps = {b - x for x, b in zip(o, o[1:])}
    if len(o) > 1 and len(steps) == 1:
        return f"{len(o)} starts from {o[0]} to {o[-1]} ms, {steps.pop()} ms apart"
    return f"{len(o)} starts (" + ", ".join(map(str, o)) + " ms)"


def r_emu_rtt_range(a: _Artefacts, args: list[str]) -> str:
    """``emu-rtt-range TRACE CC``: the range of Linux's RTT statistic over the emulator runs of
    one case of the trace cross-check (inline), ``847–1456 ms``."""
    trace, cc = _args(args, 2, "emu-rtt-range", "emu-rtt-range TRACE CC")[:2]
    d = a.load(EMU_CROSSCHECK)
    for c in d["cases"]:
        if c["trace"] == trace and c["cc"] == cc:
            r = c["rtt_p50_ms"].get("emu_range")
            if not r:
                raise DocgenError(f"renderer 'emu-rtt-range': {EMU_CROSSCHECK} has no range of Linux's runs for {trace} {cc}")
            return f"{r[0]:.0f}–{r[1]:.0f} ms"
    raise DocgenError(f"renderer 'emu-rtt-range': {EMU_CROSSCHECK} has no case {trace} {cc}")


KERNEL_RCVBUF = "tools/data/kernel-rcvbuf-grow.json"


def rcvbuf_grow_rcvwin(new: int, old: int, ooo_span: int = 0) -> int:
    """Linux 6.18 `tcp_rcvbuf_grow`'s window, in integers as the kernel and the simulator's
    `AutoTuning::grow` compute it: ``rcvwin = 2·new``, plus ``2·(rcvwin·(new − old)/old)``, plus
    the out-of-order span (before the `rmem_max` cap)."""
    rcvwin = 2 * new
    rcvwin += 2 * (rcvwin * max(new - old, 0) // max(old, 1))
    return rcvwin + ooo_span


def linux_window_clamp(rcvwin: int, scaling_ratio: int) -> int:
    """The window clamp Linux sets for a window `rcvwin`: `tcp_win_from_space` of the buffer
    `tcp_space_from_win` sizes for it (`(win << 8) / ratio`, then `(space · ratio) >> 8`)."""
    return ((rcvwin << 8) // scaling_ratio * scaling_ratio) >> 8


def rcvbuf_events(d: dict) -> list[dict]:
    """The logged `tcp_rcvbuf_grow` calls, each with its space (a call not copied with one has the
    previous call's copied: the kernel sets space = copied), the rule's window, that window as the
    kernel rounds it, and the window clamp in force before the call."""
    out, space, clamp = [], None, None
    for e in d["events"]:
        old = e["space"] if e["space"] is not None else space
        if old is None:
            raise DocgenError(f"{KERNEL_RCVBUF}: the first event needs its space")
        rcvwin = rcvbuf_grow_rcvwin(e["copied"], old)
        out.append({**e, "space": old, "rule": rcvwin, "rule_clamp": linux_window_clamp(rcvwin, d["scaling_ratio"]),
                    "clamp_before": clamp})
        space = e["copied"]
        if e["grew"]:
            clamp = e["window_clamp"]
    return out


def r_rcvbuf_grow(a: _Artefacts, args: list[str]) -> str:
    """``rcvbuf-grow``: the kernel's logged `tcp_rcvbuf_grow` calls and, from the same inputs, the
    simulator's rule (`rcvwin`) and that window as the kernel's buffer rounding gives it."""
    d = a.load(KERNEL_RCVBUF)
    lines = ["| time, s | copied | previous space | rule: `rcvwin` | rule, the kernel's rounding | kernel's window clamp |",
             "|---|---|---|---|---|---|"]
    for e in rcvbuf_events(d):
        t = "-" if e["t_s"] is None else fmt(e["t_s"])
        kernel = str(e["window_clamp"]) if e["grew"] else f"no growth (stays {e['clamp_before']})"
        lines.append(f"| {t} | {e['copied']} | {e['space']} | {e['rule']} | {e['rule_clamp']} | {kernel} |")
    return "\n".join(lines)


def r_rcvbuf_value(a: _Artefacts, args: list[str]) -> str:
    """``rcvbuf-value KEY``: a number of the kernel's log (inline): ``scaling_ratio``,
    ``tcp_rmem_1``, ``first_window_bytes``, ``inq_max_bytes``, ``kernel``."""
    key = _args(args, 1, "rcvbuf-value", "rcvbuf-value KEY")[0]
    d = a.load(KERNEL_RCVBUF)
    if key not in d or isinstance(d[key], (list, dict)):
        raise DocgenError(f"renderer 'rcvbuf-value': {KERNEL_RCVBUF} has no value {key!r}")
    return str(d[key])


#: name → (renderer, block?). A block renderer's output stands on lines of its own.
RENDERERS: dict[str, tuple[Callable[[_Artefacts, list[str]], str], bool]] = {
    "value": (r_value, False), "range": (r_range, False), "verdict": (r_verdict, False), "claims": (r_claims, True),
    "sens": (r_sens, False),
    "reproductions": (r_reproductions, True), "links": (r_links, True), "dict-table": (r_dict_table, True), "reproduction-count": (r_reproduction_count, False),
    "claims-held": (r_claims_held, False), "reproduction-cost": (r_reproduction_cost, True),
    "bench-machine": (r_bench_machine, False), "bench-speed": (r_bench_speed, False),
    "bench-ratio": (r_bench_ratio, False), "bench": (r_bench, True), "ns3-speed": (r_ns3_speed, False),
    "ns3-power": (r_ns3_power, True), "ns3-power-run": (r_ns3_power_run, True), "ns3-power-ratio": (r_ns3_power_ratio, False),
    "ns3-shares": (r_ns3_shares, True), "ns3-rate": (r_ns3_rate, False), "ns3-walls": (r_ns3_walls, False),
    "ns3-background": (r_ns3_background, True), "ns3-agree": (r_ns3_agree, False),
    "ns3-total-diff": (r_ns3_total_diff, False), "ns3-variants": (r_ns3_variants, True),
    "ns3-udp": (r_ns3_udp, True), "ns3-udp-diff": (r_ns3_udp_diff, False), "ns3-link": (r_ns3_link, False),
    "ns3-harq": (r_ns3_harq, True), "ns3-harq-diff": (r_ns3_harq_diff, False), "ns3-speed-udp": (r_ns3_speed_udp, False),
    "ns3-link-span": (r_ns3_link_span, False), "ns3-control": (r_ns3_control, False),
    "c2tcp": (r_c2tcp, True), "c2tcp-range": (r_c2tcp_range, False),
    "westwood": (r_westwood, True), "westwood-value": (r_westwood_value, False),
    "westwood-ns3": (r_westwood_ns3, True), "westwood-ns3-value": (r_westwood_ns3_value, False),
    "fig7-ns3": (r_fig7_ns3, True), "fig7-ns3-value": (r_fig7_ns3_value, False), "fig7-recapture": (r_fig7_recapture, False),
    "fig12-ns3": (r_fig12_ns3, True), "fig12-cells": (r_fig12_cells, False),
    "fig12-padded": (r_fig12_padded, True),
    "in-step-linux": (r_in_step_linux, True),
    "figure": (r_figure, True), "limits": (r_limits, True),
    "limits-const": (r_limits_const, False), "code-const": (r_code_const, False),
    "emu-crosscheck": (r_emu_crosscheck, True), "emu-within": (r_emu_within, False),
    "emu-multiflow": (r_emu_multiflow, True), "emu-multiflow-verdict": (r_emu_multiflow_verdict, False),
    "emu-multiflow-machine": (r_emu_multiflow_machine, False),
    "emu-nr": (r_emu_nr, True), "emu-nr-held": (r_emu_nr_held, False), "emu-nr-machine": (r_emu_nr_machine, False),
    "emu-nr-crosscheck": (r_emu_nr_crosscheck, True),
    "apps-speed": (r_apps_speed, True), "memory": (r_memory, True), "memory-ratio": (r_memory_ratio, False),
    "sweep-memory": (r_sweep_memory, True), "sweep-tour": (r_sweep_tour, True),
    "legilimens-in-step": (r_legilimens_in_step, True), "legilimens-in-step-value": (r_legilimens_in_step_value, False),
    "nr-lena": (r_nr_lena, True), "nr-lena-range": (r_nr_lena_range, False),
    "start-sensitivity": (r_start_sensitivity, True), "start-sensitivity-starts": (r_start_sensitivity_starts, False),
    "emu-rtt-range": (r_emu_rtt_range, False),
    "rcvbuf-grow": (r_rcvbuf_grow, True), "rcvbuf-value": (r_rcvbuf_value, False),
}


BENCH_NR = "tools/data/bench-nr.json"


def r_bench_nr(a: _Artefacts, args: list[str]) -> str:
    """The NR benchmark artefact (``python -m cellshare.bench --nr``): NR and LTE cost per delivered
    packet side by side, their ratios against the bound, the peak RSS (and the peak packets in
    flight) at two simulated durations and the machine (block)."""
    b = a.load(BENCH_NR)
    m = b["machine"]
    durations = list(b["nr"]["peak_rss_mb"])
    lines = ["| cell | delivered | packets | wall µs / packet | CPU µs / packet | instructions / packet | "
             + " | ".join(f"peak RSS running, {d} s" for d in durations) + " |",
             "|---" * (6 + len(durations)) + "|"]
    for key, name in (("nr", "NR, 100 MHz, μ = 1 (273 PRBs)"), ("lte", "LTE, 10 MHz (50 PRBs)")):
        r = b[key]
        lines.append(f"| {name} | {r['delivered_mbps']:.0f} Mbit/s | {r['packets']:,.0f} | "
                     f"{r['wall_us_per_packet']:.2f} | {r['cpu_us_per_packet']:.2f} | "
                     f"{r['instructions_per_packet']:,.0f} | "
                     + " | ".join(f"{r['peak_rss_mb'][d]:.0f} MB" + (f" ({r['peak_packets'][d]:,} packets)" if r.get("peak_packets")
                                  else "") for d in durations) + " |")
    lines += ["", f"NR / LTE cost per packet: **{b['ratio_cpu']:.2f}** in CPU time, **{b['ratio_wall']:.2f}** by "
              f"the wall clock (medians of {b['repeat']} interleaved runs of {b['duration_s']:g} simulated s each), "
              f"**{b['ratio_instructions']:.2f}** in instructions (callgrind, one whole `run_scenario` process each); "
              f"the bound is {b['bound']:g}. Measured on {m['cpu']}, {m['cores']} cores, {m['system']}, Python "
              f"{m['python']}, one-minute load {m['load_1min_before']:g} before and {m['load_1min_after']:g} after "
              f"(`{b['generated_by']}`): the machine is shared, so the absolute times move with its load, and the "
              "ratios, measured side by side in one session, are what count."]
    return "\n".join(lines)


RENDERERS["bench-nr"] = (r_bench_nr, True)


def page_renderers() -> dict[str, tuple[Callable[[_Artefacts, list[str]], str], bool]]:
    """The renderers of :mod:`cellshare.docpages` (one module per page), by name; a name two
    modules define, or one this module defines too, is an error."""
    from . import docpages

    out: dict = {}
    where: dict[str, str] = {}
    for module, renderers in docpages.modules():
        for name, entry in renderers.items():
            if name in out:
                raise DocgenError(f"renderer {name!r} is defined by both cellshare.docpages.{where[name]} "
                                  f"and cellshare.docpages.{module}")
            if name in RENDERERS:
                raise DocgenError(f"renderer {name!r} is defined both in cellshare.docgen and in "
                                  f"cellshare.docpages.{module}")
            out[name], where[name] = entry, module
    return out


def _add_page_renderers() -> None:
    """Adds the renderers of :mod:`cellshare.docpages` to :data:`RENDERERS`."""
    RENDERERS.update(page_renderers())


_add_page_renderers()


def render_page(text: str, artefacts: _Artefacts, where: str = "page") -> str:
    """`text` with every generated section re-rendered."""
    def sub(m: re.Match) -> str:
        try:
            # Words as a shell splits them: an argument with spaces is quoted ("mac=802.15.4 default").
            name, *args = shlex.split(m.group("spec"))
        except ValueError as e:
            raise DocgenError(f"{where}: `{m.group(1)}`: {e}") from None
        if name not in RENDERERS:
            raise DocgenError(f"{where}: unknown renderer {name!r} in `{m.group(1)}` (known: {', '.join(RENDERERS)})")
        fn, block = RENDERERS[name]
        # What precedes the marker on its line: nothing, or only the indentation of a list
        # item's continuation (a block inside a list item is indented as the item's text).
        indent = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        at_line_start = not indent.strip(" ")
        if block and not at_line_start:
            raise DocgenError(f"{where}: `{m.group(1)}` renders a block: put its markers on lines of their own")
        if not block and at_line_start:
            raise DocgenError(f"{where}: `{m.group(1)}` renders a value inside a sentence: it must not begin a line "
                              "(Markdown would end the paragraph at an HTML comment that begins one)")
        try:
            body = fn(artefacts, args)
        except DocgenError as e:
            raise DocgenError(f"{where}: {e}") from None
        if block:
            body = "\n".join(indent + line if line else line for line in body.split("\n"))
            return f"{m.group(1)}\n\n{body}\n\n{indent}{m.group(4)}"
        return m.group(1) + body + m.group(4)
    starts = {m.start() for m in SECTION.finditer(text)}
    for m in OPENING.finditer(text):
        if m.start() not in starts:
            line = text.count("\n", 0, m.start()) + 1
            end = text.find("-->", m.start())
            eol = text.find("\n", m.start())
            shown = text[m.start():end + 3] if end >= 0 and (eol < 0 or end < eol) else text[m.start():eol if eol >= 0 else None][:60]
            raise DocgenError(f"{where}: line {line}: `{shown}` is not a "
                              "generated section: expected `<!-- generated: RENDERER ARGS -->` on one line, then "
                              "`<!-- end generated -->`")
    return SECTION.sub(sub, text)


def rendered(root: Path = ROOT) -> dict[Path, str]:
    """Every page that has a generated section, as the committed artefacts render it."""
    from .reproduce import scoreboard as sb

    artefacts = _Artefacts(root)
    out = {p: p.read_text() for p in _pages(root)}
    for p, text in sb.rendered(root).items():
        out[p] = text
    result = {}
    for p, text in out.items():
        new = render_page(text, artefacts, str(p.relative_to(root)))
        if new != p.read_text() or SECTION.search(text):
            result[p] = new
    return result


def stale(root: Path = ROOT) -> list[Path]:
    """The pages whose generated sections differ from what the artefacts render."""
    return [p for p, text in rendered(root).items() if p.read_text() != text]


def write(root: Path = ROOT) -> list[Path]:
    """Rewrites every generated section; returns the pages changed."""
    changed = []
    for p, text in rendered(root).items():
        if p.read_text() != text:
            p.write_text(text)
            changed.append(p)
    return changed


def main(argv: Optional[list[str]] = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m cellshare.docgen", description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="rewrite every generated section from the artefacts")
    g.add_argument("--figures", action="store_true", help="draw every figure of docs/img from the artefacts")
    g.add_argument("--check", action="store_true",
                   help="exit 1 naming each page whose generated sections are stale and each stale figure")
    ap.add_argument("--root", type=Path, default=ROOT, help="the source tree (default: the one this module is in)")
    a = ap.parse_args(argv)
    try:
        if a.write:
            for p in write(a.root):
                print(f"rewrote {p.relative_to(a.root)}")
            return 0
        if a.figures:
            for p in draw_figures(a.root):
                print(f"drew {p}")
            return 0
        bad = stale(a.root)
        figs = stale_figures(a.root)
    except DocgenError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for p in bad:
        print(f"{p.relative_to(a.root)} is stale: run `{COMMAND}`", file=sys.stderr)
    for p in figs:
        print(f"{p} is stale or missing: run `{FIGURES_COMMAND}`", file=sys.stderr)
    return 1 if bad or figs else 0


if __name__ == "__main__":
    raise SystemExit(main())
