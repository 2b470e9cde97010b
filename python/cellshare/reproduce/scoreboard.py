"""The fidelity scoreboard: every reproduction's claims in one place.

``cellshare reproduce --all --out DIR`` runs every reproduction into ``DIR/<name>/`` (as
``cellshare reproduce NAME`` does) and writes ``DIR/scoreboard.json`` and
``DIR/scoreboard.md``: per claim the paper, its location and words, the paper's value,
ours, the tolerance, the verdict, and for a miss its measured cause (from
:mod:`cellshare.reproduce.causes`, the one place the causes are kept). With
``--update-docs`` the scoreboard is also copied to the committed one (package data,
:data:`COMMITTED`) of the source tree and the generated blocks of ``README.md`` and ``docs/reproductions.md`` are rewritten
from it; ``--render-docs`` rewrites the blocks alone (after editing the causes). A test
keeps the blocks equal to what the committed scoreboard renders.
"""

from __future__ import annotations

import json
import resource
import time
import traceback
from pathlib import Path
from typing import Any, Optional

from . import (BOUND_TOLERANCE, DEFAULT_LINK, PAPERS, RATIO_TOLERANCE, Experiment, _cell, all_experiments, check_traces, fmt,
               guard_text, run_experiment, target_dict, write_claims)
from .causes import CATEGORIES, CAUSES, CauseError, Resolver

#: The committed scoreboard (full or quick, as generated), shipped as package data: where the
#: docs blocks are rendered from and `reproduce --list` reads the run times.
COMMITTED = Path(__file__).resolve().parents[1] / "data" / "scoreboard.json"
#: The same file, relative to a source tree's root.
COMMITTED_REL = "python/cellshare/data/scoreboard.json"

README_BEGIN = ("<!-- scoreboard:begin — generated from python/cellshare/data/scoreboard.json by `cellshare reproduce --all --full "
                "--update-docs` (or `--render-docs`); do not edit by hand -->")
README_END = "<!-- scoreboard:end -->"
DOCS_BEGIN = ("<!-- scoreboard-full:begin — generated from python/cellshare/data/scoreboard.json by `cellshare reproduce --all --full "
              "--update-docs` (or `--render-docs`); do not edit by hand -->")
DOCS_END = "<!-- scoreboard-full:end -->"


#: The verdict of a claim whose reproduction failed to run.
NOT_RUN = "not run"


class DocsError(RuntimeError):
    """The source tree's README/docs cannot be found or lack the generated-block markers."""


def _cpu() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def run_all(target: Path, *, full: bool = False, sensitivity: bool = True, console=None,
            experiments: Optional[list[Experiment]] = None, force: bool = False,
            traces_dir: Optional[Path] = None) -> dict:
    """Runs every reproduction into ``target/<name>/`` and writes the scoreboard; returns it
    (as in scoreboard.json). A reproduction that raises is recorded as failed (its
    traceback in ``target/<name>.error.txt``, its last line in the scoreboard, its claims
    counted as not run) and the others still run. ``target`` is checked before anything
    runs (:func:`cellshare.output.check_out`: an earlier cellshare output is replaced only
    with ``force``; :class:`cellshare.output.OutputError` otherwise), and so are the traces
    of ``traces_dir`` (``--traces DIR``: :class:`cellshare.reproduce.InputError`)."""
    from ..output import atomic_dir

    exps = experiments if experiments is not None else all_experiments()
    for exp in exps:
        check_traces(exp, traces_dir)
    entries: list[dict] = []
    started = time.monotonic()
    cpu0 = _cpu()
    with atomic_dir(target, kind="reproduce", force=force) as tmp, _Progress(console, len(exps)) as bar:
        for exp in exps:
            bar.start(exp.name)
            t0, c0 = time.monotonic(), _cpu()
            out = tmp / exp.name
            out.mkdir(parents=True)
            try:
                outcome = run_experiment(exp, out, full=full, progress=False, sensitivity=sensitivity,
                                         on_step=lambda step, n=exp.name: bar.step(f"{n}: {step}"), traces_dir=traces_dir)
                write_claims(outcome, out)
                entry = outcome.to_json()
                entry["status"] = "ok"
            except Exception:  # a failed reproduction is reported, the others still run
                tb = traceback.format_exc()
                (tmp / f"{exp.name}.error.txt").write_text(tb)
                entry = failed_entry(exp, full, tb.strip().splitlines()[-1])
            entry["wall_s"] = round(time.monotonic() - t0, 2)
            entry["cpu_s"] = round(_cpu() - c0, 2)
            entries.append(entry)
            bar.done()
        board = make_board(entries, full=full, sensitivity=sensitivity)
        board["wall_s"] = round(time.monotonic() - started, 2)
        board["cpu_s"] = round(_cpu() - cpu0, 2)
        (tmp / "scoreboard.json").write_text(json.dumps(board, indent=1, ensure_ascii=False) + "\n")
        (tmp / "scoreboard.md").write_text(scoreboard_markdown(board, strict=False))
    return board


def failed_entry(exp: Experiment, full: bool, error: str) -> dict:
    """The scoreboard entry of a reproduction that failed to run: its declared claims, each
    "not run" (so its paper keeps its place and its claims count as not held), and why."""
    claims = [{"id": c.id, "what": c.what, "paper": c.paper, "location": c.location, "line": c.line, "quote": c.quote,
               "target": target_dict(c.target), "ours": None, "verdict": NOT_RUN, "side": "failed to run", "detail": ""}
              for c in exp.claims]
    return {"name": exp.name, "title": exp.title, "paper": exp.paper, "link": DEFAULT_LINK, "full": full,
            "status": "error", "error": error, "claims": claims, "observations": [], "assumptions": [],
            "sensitivity": []}


def failures(board: dict) -> list[str]:
    """One line per reproduction that failed to run: its name and why."""
    return [f"{e['name']} failed to run: {e['error']}" for e in board["reproductions"] if e["status"] != "ok"]


def make_board(entries: list[dict], *, full: bool, sensitivity: bool) -> dict:
    """The scoreboard from the reproductions' claims.json contents."""
    return {
        "generated_by": "cellshare reproduce --all" + (" --full" if full else "") + ("" if sensitivity else " --no-sensitivity"),
        "full": full,
        "rule": {"ratio_tolerance": RATIO_TOLERANCE, "bound_tolerance": BOUND_TOLERANCE},
        "reproductions": entries,
    }


def _main_paper(entry: dict) -> str:
    keys = [c["paper"] for c in entry["claims"]]
    return max(set(keys), key=keys.count) if keys else "?"


def not_explained(rep: str, claim: dict) -> bool:
    """Whether `claim` of `rep` misses without a measured cause: no cause in
    :mod:`cellshare.reproduce.causes`, or one filed "not explained" (a claim whose
    reproduction failed to run is counted as not run, not here)."""
    if claim["verdict"] in ("holds", NOT_RUN):
        return False
    c = CAUSES.get(f"{rep}/{claim['id']}")
    return c is None or c.category == "not explained"


def counts(board: dict) -> dict:
    """Claims held / claims / misses not explained per paper and per reproduction, and
    observations."""
    per_paper: dict[str, dict] = {k: {"held": 0, "claims": 0, "not_explained": 0, "observations": 0} for k in PAPERS}
    per_rep = []
    for e in board["reproductions"]:
        held = sum(c["verdict"] == "holds" for c in e["claims"])
        unexplained = sum(not_explained(e["name"], c) for c in e["claims"])
        per_rep.append({"name": e["name"], "held": held, "claims": len(e["claims"]), "not_explained": unexplained,
                        "observations": len(e["observations"]), "status": e["status"]})
        for c in e["claims"]:
            p = per_paper[c["paper"]]
            p["claims"] += 1
            p["held"] += c["verdict"] == "holds"
            p["not_explained"] += not_explained(e["name"], c)
        if e["claims"]:
            per_paper[_main_paper(e)]["observations"] += len(e["observations"])
    total = {k: sum(r[k] for r in per_rep) for k in ("held", "claims", "not_explained", "observations")}
    return {"per_paper": per_paper, "per_reproduction": per_rep, "total": total}


def cause_of(rep: str, claim: dict, board: dict, strict: bool = True) -> Optional[dict]:
    """The recorded cause of `claim` of reproduction `rep`, rendered against `board` (its
    numbers read from the board and the ns-3 data of the source tree, when there is one), as
    a dict, or None. With `strict`, a reference that names nothing raises
    :class:`~cellshare.reproduce.causes.CauseError`; otherwise the cause says it is stale
    (a fresh `reproduce --all` still writes its scoreboard)."""
    key = f"{rep}/{claim['id']}"
    c = CAUSES.get(key)
    if c is None:
        return None
    res = Resolver(board, _data_root())
    try:
        return {"category": c.category, "measurement": res.render(key, c)}
    except CauseError as err:
        if strict:
            raise
        return {"category": c.category, "measurement": f"**stale cause** ({err}): update causes.py"}


def _data_root() -> Optional[Path]:
    try:
        return source_root()
    except DocsError:
        return None


def exit_code(board: dict) -> int:
    """0: every claim holds; 1: a claim misses; 3: a reproduction failed."""
    if any(e["status"] != "ok" for e in board["reproductions"]):
        return 3
    return 0 if all(c["verdict"] == "holds" for e in board["reproductions"] for c in e["claims"]) else 1


def _verdict(c: dict, board: Optional[dict] = None, rep: str = "") -> str:
    """A claim's verdict; for a claim that holds, the additions it needs when an ablation's
    entry in `board` records them (an observation `needs:<rep>:<claim id>`, legilimens-ablation)."""
    if c["verdict"] == NOT_RUN:
        return "**not run**"
    if c["verdict"] != "holds":
        return f"**misses** ({c['side']})" + guard_text(c.get("guards", []))
    needs = [o["ours"] for e in (board or {}).get("reproductions", ()) for o in e.get("observations", ())
             if o["id"] == f"needs:{rep}:{c['id']}"]
    v = f"holds ({needs[0]})" if needs else "holds"
    return v + guard_text(c.get("guards", []))


def _cause_text(rep: str, c: dict, board: dict, strict: bool = True) -> str:
    cause = cause_of(rep, c, board, strict)
    if c["verdict"] == "holds":
        return f"{cause['category']}: {cause['measurement']}" if cause else ""
    if cause is None:
        return "**not explained** (no cause recorded)"
    return f"*{cause['category']}*: {cause['measurement']}"


def _paper_loc(c: dict) -> str:
    return f"{PAPERS[c['paper']][0]} [{c['paper']}], {c['location']}"


def scoreboard_markdown(board: dict, strict: bool = True) -> str:
    """scoreboard.md: counts, then per reproduction every claim with its quote and cause,
    the set-up values the paper gives, the observations, the assumptions and the
    sensitivity table. `strict`: see :func:`cause_of`."""
    n = counts(board)
    lines = ["# Fidelity scoreboard", "",
             f"`{board['generated_by']}`. The rule (docs/reproductions.md): a point value holds within ×/÷ "
             f"{board['rule']['ratio_tolerance']:g}, a range inside it, a bound past it by at most "
             f"{board['rule']['bound_tolerance']:.0%}, an order strictly. Observations are reported, not counted.", ""]
    if "wall_s" in board:
        lines += [f"Wall time {board['wall_s']:.0f} s; CPU time (this process and its workers) {board['cpu_s']:.0f} s.", ""]
    lines += _counts_table(n) + [""]
    for e in board["reproductions"]:
        lines += [f"## `{e['name']}` — {e['title']}", "", f"Paper: {e['paper']}. Link model: {e['link']}."
                  + (f" Wall {e['wall_s']:.1f} s, CPU {e['cpu_s']:.1f} s." if "wall_s" in e else ""), ""]
        if e["status"] != "ok":
            lines += [f"**Failed to run**: {e['error']}", ""]
            continue
        lines += ["| claim | paper (location) | quote | paper value | ours | tolerance | verdict | cause of a miss |",
                  "|---|---|---|---|---|---|---|---|"]
        for c in e["claims"]:
            lines.append(f"| {_cell(c['what'])}{' — ' + _cell(c['detail']) if c['detail'] else ''} | {_paper_loc(c)} | "
                         f"“{_cell(c['quote'])}” | {_cell(c['target']['paper'])} | {_cell(fmt(c['ours']))} | "
                         f"{_cell(c['target']['tolerance'])} | {_verdict(c, board, e['name'])} | {_cell(_cause_text(e['name'], c, board, strict))} |")
        if e["observations"]:
            lines += ["", "Observations (not counted):", "", "| observation | ours | paper |", "|---|---|---|"]
            for o in e["observations"]:
                lines.append(f"| {_cell(o['what'])}{' — ' + _cell(o['detail']) if o['detail'] else ''} | "
                             f"{_cell(fmt(o['ours']))} | {_cell(o['paper']) or '—'} |")
        lines += _assumption_lines(e, full_table=True)
        lines.append("")
    return "\n".join(lines) + "\n"


def _counts_table(n: dict, refs: str = "") -> list[str]:
    """Claims held per paper; each paper named with its bibliography key, linked to the
    references page at `refs` (e.g. ``docs/references.md``) when given."""
    lines = ["| paper | claims held / claims | misses not explained | observations |", "|---|---|---|---|"]
    for key, p in n["per_paper"].items():
        if p["claims"] or p["observations"]:
            cite = f"[{key}]({refs}#{key})" if refs else f"[{key}]"
            lines.append(f"| {PAPERS[key][0]} {cite} | {p['held']} / {p['claims']} | {p['not_explained']} | "
                         f"{p['observations']} |")
    t = n["total"]
    lines.append(f"| **all** | **{t['held']} / {t['claims']}** | {t['not_explained']} | {t['observations']} |")
    return lines


def _given_lines(e: dict) -> list[str]:
    """The set-up values the paper gives, each with where it says so."""
    if not e.get("given"):
        return []
    lines = ["", "Set-up values the paper gives (used as given):", "", "| parameter | value | where | paper's words |",
             "|---|---|---|---|"]
    for g in e["given"]:
        lines.append(f"| `{g['name']}` | {_cell(g['value'])} | {PAPERS[g['paper']][0]}, {_cell(g['location'])}, line "
                     f"{g['line']} | “{_cell(g['quote'])}” |")
    return lines


def _out_of_reach_lines(e: dict) -> list[str]:
    """The paper's results no claim or observation covers, each with why."""
    if not e.get("out_of_reach"):
        return []
    lines = ["", "Results of the paper no claim or observation covers, and why:", "",
             "| paper, location | paper's words | why no claim covers it |", "|---|---|---|"]
    for x in e["out_of_reach"]:
        lines.append(f"| {PAPERS[x['paper']][0]} [{x['paper']}], {_cell(x['location'])}, line {x['line']} | "
                     f"“{_cell(x['quote'])}” | {_cell(x['reason'])} |")
    return lines


def _assumption_lines(e: dict, full_table: bool) -> list[str]:
    lines = _given_lines(e) + _out_of_reach_lines(e)
    if not e["assumptions"]:
        return lines
    lines += ["", "Parameters the paper does not give:", "", "| parameter | ours | where it comes from | also run at | "
             "verdicts that change there (ours at the default → at that value) |", "|---|---|---|---|---|"]
    for a in e["assumptions"]:
        flips = []
        for alt in a["alternatives"]:
            rows = [r for r in e["sensitivity"] if r["assumption"] == a["name"] and r["value"] == alt]
            changed = [f"{r['claim']} {r['verdict_default']}→{r['verdict']} ({fmt(r['ours_default'])} → {fmt(r['ours'])})"
                       for r in rows if r["verdict"] != r["verdict_default"]]
            if rows:
                flips.append(f"at {alt}: " + ("; ".join(changed) if changed else "none"))
        lines.append(f"| `{a['name']}` | {_cell(a['value'])} | {_cell(a['source'])} | "
                     f"{', '.join(_cell(x) for x in a['alternatives']) or '—'} | {_cell(' / '.join(flips)) or '—'} |")
    if full_table and e["sensitivity"]:
        lines += ["", f"Sensitivity (observations; {e.get('sensitivity_seeds', '')}):", "",
                  "| parameter | value | claim | paper | ours at the default | ours at this value |", "|---|---|---|---|---|---|"]
        for r in e["sensitivity"]:
            lines.append(f"| `{r['assumption']}` | {_cell(r['value'])} | {r['claim']} | {_cell(r['paper'])} | "
                         f"{_cell(fmt(r['ours_default']))} ({r['verdict_default']}) | {_cell(fmt(r['ours']))} ({r['verdict']}) |")
    return lines


def _per_reproduction_table(board: dict, n: dict) -> list[str]:
    lines = ["| reproduction | link model | claims held / claims | not explained | observations | claims that miss |",
             "|---|---|---|---|---|---|"]
    for e, r in zip(board["reproductions"], n["per_reproduction"]):
        miss = ", ".join(f"`{c['id']}`" for c in e["claims"] if c["verdict"] not in ("holds", NOT_RUN))
        if e["status"] != "ok":
            miss = f"{len(e['claims'])} not run"
        status = "" if e["status"] == "ok" else f" (failed: {_cell(e['error'])})"
        lines.append(f"| `{e['name']}`{status} | {e['link']} | {r['held']} / {r['claims']} | {r['not_explained']} | "
                     f"{r['observations']} | {miss or '—'} |")
    return lines


def readme_block(board: dict) -> str:
    """The README's generated block: claims held per paper (the per-reproduction table and
    every claim are on docs/reproductions.md, see :func:`docs_block`)."""
    n = counts(board)
    lines = [README_BEGIN, "",
             f"Judged by one rule against the papers' own numbers ([docs/reproductions.md](docs/reproductions.md): "
             f"point values within ×/÷ {board['rule']['ratio_tolerance']:g}, ranges, bounds within "
             f"{board['rule']['bound_tolerance']:.0%}, orders), from `{board['generated_by']}`:", ""]
    lines += _counts_table(n, "docs/references.md")
    lines += ["", README_END]
    return "\n".join(lines)


def docs_block(board: dict) -> str:
    """docs/reproductions.md's generated block: counts per paper and per reproduction, then
    every claim with its paper value, ours, the verdict and the cause of a miss; the
    parameters the papers do not give."""
    n = counts(board)
    lines = [DOCS_BEGIN, "", f"From `{board['generated_by']}`.", ""] + _counts_table(n, "references.md") + [""]
    lines += _per_reproduction_table(board, n) + [""]
    for e in board["reproductions"]:
        lines += [f"### `{e['name']}`", "", f"{e['title']}. Paper: {e['paper']}. Link model: {e['link']}.", ""]
        if e["status"] != "ok":
            lines += [f"**Failed to run**: {_cell(e['error'])}", ""]
            continue
        lines += ["| claim | paper, location | paper's words | paper | ours | verdict | cause of a miss |",
                  "|---|---|---|---|---|---|---|"]
        for c in e["claims"]:
            lines.append(f"| {_cell(c['what'])} | {_paper_loc(c)} | “{_cell(c['quote'])}” | {_cell(c['target']['paper'])} | "
                         f"{_cell(fmt(c['ours']))} | {_verdict(c, board, e['name'])} | {_cell(_cause_text(e['name'], c, board))} |")
        lines += _assumption_lines(e, full_table=False)
        lines.append("")
    lines.append(DOCS_END)
    return "\n".join(lines)


def source_root() -> Path:
    """The source tree this package runs from (an editable install of a clone)."""
    root = Path(__file__).resolve().parents[3]
    if not (root / "README.md").is_file() or not (root / "docs").is_dir():
        raise DocsError(f"not running from a source tree: no README.md and docs/ in {root} "
                        "(install the clone with `pip install -e .`)")
    return root


def committed_wall_times() -> dict[str, float]:
    """Each reproduction's wall-clock time as the committed scoreboard (package data, so an
    installed package has it too) measured it: what `cellshare reproduce --list` shows."""
    try:
        board = json.loads(COMMITTED.read_text())
    except (OSError, ValueError):
        return {}
    return {e["name"]: float(e["wall_s"]) for e in board.get("reproductions", []) if e.get("wall_s") is not None}


def committed_is_full() -> bool:
    """Whether the committed scoreboard ran in full mode (the papers' durations and seeds)."""
    try:
        return bool(json.loads(COMMITTED.read_text()).get("full"))
    except (OSError, ValueError):
        return False


def _replace_block(text: str, begin: str, end: str, block: str, path: Path) -> str:
    from ..blocks import DocgenError, replace_block

    try:
        return replace_block(text, begin, end, block, str(path))
    except DocgenError as e:
        raise DocsError(str(e)) from None


def rendered(root: Path) -> dict[Path, str]:
    """README.md and docs/reproductions.md as the committed scoreboard renders them."""
    sj = root / COMMITTED_REL
    if not sj.is_file():
        raise DocsError(f"{sj} not found: run `cellshare reproduce --all --full --update-docs` first")
    board = json.loads(sj.read_text())
    out = {}
    for name, begin, end, block in (("README.md", README_BEGIN, README_END, readme_block(board)),
                                    ("docs/reproductions.md", DOCS_BEGIN, DOCS_END, docs_block(board))):
        p = root / name
        if not p.is_file():
            raise DocsError(f"{p} not found")
        out[p] = _replace_block(p.read_text(), begin, end, block, p)
    return out


def render_docs(root: Path) -> list[Path]:
    """Rewrites the generated blocks from the committed scoreboard; returns the files changed."""
    changed = []
    for p, text in rendered(root).items():
        if p.read_text() != text:
            p.write_text(text)
            changed.append(p)
    return changed


def update_docs(board: dict, root: Path) -> list[Path]:
    """Writes `board` to the committed scoreboard of `root` and regenerates the blocks."""
    sj = root / COMMITTED_REL
    text = json.dumps(board, indent=1, ensure_ascii=False) + "\n"
    changed = []
    if not sj.is_file() or sj.read_text() != text:
        sj.write_text(text)
        changed.append(sj)
    return changed + render_docs(root)


def print_summary(board: dict, console) -> None:
    """A terminal table: per reproduction claims held, observations, time."""
    from rich.markup import escape
    from rich.table import Table

    n = counts(board)
    t = Table(title=f"scoreboard ({board['generated_by']})")
    for col in ("reproduction", "claims held", "not explained", "observations", "wall s", "CPU s"):
        t.add_column(col, justify="left" if col == "reproduction" else "right")
    for e, r in zip(board["reproductions"], n["per_reproduction"]):
        held = f"{r['held']} / {r['claims']}" if e["status"] == "ok" else "[bold red]failed[/]"
        t.add_row(e["name"], held, str(r["not_explained"]), str(r["observations"]), f"{e.get('wall_s', 0):.1f}",
                  f"{e.get('cpu_s', 0):.1f}")
    tot = n["total"]
    t.add_row("[bold]all[/]", f"[bold]{tot['held']} / {tot['claims']}[/]", str(tot["not_explained"]),
              str(tot["observations"]), f"{board.get('wall_s', 0):.0f}",
              f"{sum(e.get('cpu_s', 0) for e in board['reproductions']):.0f}")
    console.print(t)
    p = Table(title="per paper")
    for col in ("paper", "claims held / claims", "not explained"):
        p.add_column(col, justify="left" if col == "paper" else "right")
    for key, row in n["per_paper"].items():
        if row["claims"]:
            p.add_row(escape(f"{PAPERS[key][0]} [{key}]"), f"{row['held']} / {row['claims']}", str(row["not_explained"]))
    console.print(p)


class _Progress:
    """A rich progress bar over the reproductions (on an interactive stderr), with the step
    being run as its description."""

    def __init__(self, console, total: int) -> None:
        self.console, self.total, self.progress, self.task = console, total, None, None

    def __enter__(self) -> "_Progress":
        import sys

        if self.console is not None and sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), console=self.console, transient=False)
            self.progress.start()
            self.task = self.progress.add_task("reproductions", total=self.total)
        return self

    def start(self, name: str) -> None:
        self.step(name)
        if self.progress is None and self.console is not None:
            self.console.print(f"reproduce: {name}", highlight=False)

    def step(self, text: str) -> None:
        if self.progress is not None:
            self.progress.update(self.task, description=text)

    def done(self) -> None:
        if self.progress is not None:
            self.progress.advance(self.task)

    def __exit__(self, *exc: Any) -> None:
        if self.progress is not None:
            self.progress.stop()


def categories_doc() -> str:
    """The cause categories, for the docs."""
    return "\n".join(f"- **{k}**: {v}" for k, v in CATEGORIES.items())
