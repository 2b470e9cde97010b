"""The `cellshare` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from . import _core
from .clihelp import Command
from .console import err_console, fail, out_console, print_run_summary
from .output import OutputError
from .scenario_files import is_lln_table, load_scenario, prepare, read_table

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

# Help is plain text and arguments have upper-case metavars: see clihelp.py.
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="cellshare: a fast TTI-level LTE cell simulator for sharing a cell between "
                       "foreground and background traffic.")


def _version(value: bool) -> None:
    if value:
        out_console.print(f"cellshare {_core.__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print cellshare's version and exit.")) -> None:
    """cellshare: a fast TTI-level LTE cell simulator for sharing a cell between foreground and
    background traffic."""


def _duration(seconds: float) -> str:
    """12 s, 3.4 min, 1.2 h."""
    if seconds < 90:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _run_lln(where: str, text: str, out: Optional[Path], as_json: bool, force: bool) -> None:
    """`cellshare run` for an LLN scenario: per-node table, summary.json, nodes.parquet."""
    from .lln import run_lln_text, write_lln_result
    from .output import atomic_dir

    try:
        result = run_lln_text(text)
        if out is not None:
            with atomic_dir(out, kind="run", force=force) as tmp:
                write_lln_result(result, tmp, scenario_text=text)
    except _core.ScenarioInvalid as e:
        raise fail(f"{where}: {e.args[0]}")
    except OutputError as e:
        raise fail(str(e))
    s = result.summary
    if as_json:
        sys.stdout.write(json.dumps(s, indent=2, sort_keys=True) + "\n")
        return
    t = Table(title=f"{s['scenario'] or 'LLN scenario'}: {s['duration_s']:g} s simulated at "
                    f"{s['sim_speed']:.0f}x real time, DTPA {'on (c = %g)' % s['c'] if s['dtpa'] else 'off'}")
    for col in ("node", "parent", "hops", "goodput pkt/s", "loss p", "RTT ms", "TXP ms", "Eq.4.3 pkt/s",
                "overflows", "MAC drops", "RTOs"):
        t.add_column(col, justify="right")
    def num(v, fmt: str) -> str:  # a measure with no sample (e.g. Eq. 4.3 without one) is null
        return "-" if v is None else format(v, fmt)

    for n in s["nodes"]:
        t.add_row(str(n["id"]), str(n["parent"]), str(n["hops"]), num(n["goodput_pps"], ".3f"), num(n["loss_rate"], ".3f"),
                  num(n["mean_rtt_ms"], ".0f"), num(n["mean_txp_ms"], ".0f"), num(n["model_pps"], ".2f"),
                  str(n["overflows"]), str(n["mac_drops"]), str(n["timeouts"]))
    out_console.print(t)
    out_console.print(f"total goodput {s['total_goodput_pps']:.2f} pkt/s ({s['total_goodput_kbps']:.1f} kbps), "
                      f"Jain {s['jain_index']:.3f}, border-router overflows {s['border_router']['overflows']}",
                      highlight=False)
    if out is not None:
        out_console.print(f"results written to {out}/", highlight=False)


_FORCE_HELP = "Replace a previous cellshare output in --out (a folder that is not one is never replaced)."


def _limits(max_ues: Optional[int], max_flows: Optional[int], max_memory_mb: Optional[int]) -> dict:
    return {k: v for k, v in (("max_ues", max_ues), ("max_flows", max_flows), ("max_memory_mb", max_memory_mb))
            if v is not None}


_MAX_UES = typer.Option(None, "--max-ues", min=1, help="Most UEs a scenario may have (default 100000; docs/limits.md).")
_MAX_FLOWS = typer.Option(None, "--max-flows", min=1, help="Most flows a scenario may create (default 1000000).")
_MAX_MEM = typer.Option(None, "--max-memory-mb", min=1, help="Most memory a run may take, MiB: refused if estimated above it, stopped before its resident memory would pass it (default 3072; docs/limits.md).")


@app.command("run", cls=Command)
def run_cmd(
    scenario: Optional[Path] = typer.Argument(None, metavar="SCENARIO", help="Scenario TOML file. Default: the embedded default scenario."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for summary.json and the Parquet tables "
                                       "(created; an existing one must be empty or a cellshare output, see --force)."),
    as_json: bool = typer.Option(False, "--json", help="Print summary.json instead of the table."),
    seed: Optional[int] = typer.Option(None, min=0, max=2**63 - 1, help="Override simulation.seed."),
    duration: Optional[float] = typer.Option(None, min=0.001, max=86400, help="Override simulation.duration_s (seconds)."),
    force: bool = typer.Option(False, "--force", help=_FORCE_HELP),
    max_ues: Optional[int] = _MAX_UES,
    max_flows: Optional[int] = _MAX_FLOWS,
    max_memory_mb: Optional[int] = _MAX_MEM,
) -> None:
    """Run a scenario; print its results and optionally save them."""
    # Here, not at the top: the API loads pyarrow (about 0.2 s), which `--help`, `validate`
    # and the input checks do not need.
    from .api import run_text
    from .output import atomic_dir, check_out, write_result

    where = str(scenario) if scenario else "default scenario"
    try:
        if out is not None:
            check_out(out, kind="run", force=force)
        text, base = load_scenario(scenario)
        sc = prepare(text, seed, duration)  # the only parse before the engine's
        if sc.lln:
            return _run_lln(where, sc.text, out, as_json, force)
        result = run_text(sc.text, base, progress=not as_json, label=where,
                          limits=_limits(max_ues, max_flows, max_memory_mb))
        if out is not None:
            with atomic_dir(out, kind="run", force=force) as tmp:
                write_result(result, tmp, scenario_text=sc.text)
    except _core.ScenarioInvalid as e:
        raise fail(f"{where}: {e.args[0]}")
    except tomllib.TOMLDecodeError as e:
        raise fail(f"{where}: not valid TOML: {e}")
    except OutputError as e:
        raise fail(str(e))
    if as_json:
        sys.stdout.write(json.dumps(result.summary, indent=2, sort_keys=True) + "\n")
    else:
        print_run_summary(result.summary)
        if out is not None:
            out_console.print(f"results written to {out}/", highlight=False)


@app.command("validate", cls=Command)
def validate_cmd(
    scenarios: list[Path] = typer.Argument(..., metavar="SCENARIO...", help="Scenario TOML files."),
    max_ues: Optional[int] = _MAX_UES,
    max_flows: Optional[int] = _MAX_FLOWS,
    max_memory_mb: Optional[int] = _MAX_MEM,
) -> None:
    """Check scenarios (keys, types, ranges, trace files, limits) without running them. A
    sweep file (one with a `base` scenario) is checked as `cellshare sweep` checks it: its
    axes, then every run's scenario."""
    bad = 0
    for s in scenarios:
        try:
            text, base = load_scenario(s)
            doc = read_table(text)  # None when not TOML: the engine's parser says why
            if doc is not None and _is_sweep(doc):
                from .sweeps import SweepError, load_sweep, validate_runs

                try:
                    spec = load_sweep(s)
                    runs = list(spec.runs())
                    validate_runs(spec, runs)
                except SweepError as e:
                    raise _core.ScenarioInvalid(str(e)) from None
                out_console.print(f"[green]ok[/] {s} (a sweep of {len(runs)} runs)", highlight=False)
                continue
            if doc is not None and is_lln_table(doc):
                _core.lln_validate(text)
            else:
                _core.validate(text, base, **_limits(max_ues, max_flows, max_memory_mb))
            out_console.print(f"[green]ok[/] {s}", highlight=False)
        except _core.ScenarioInvalid as e:
            from rich.markup import escape

            err_console.print(f"[bold red]error:[/] {escape(str(s))}: {escape(e.args[0])}", highlight=False,
                              soft_wrap=True)
            bad += 1
    if bad:
        raise typer.Exit(2)


def _is_sweep(doc: dict) -> bool:
    """Whether a TOML table is a sweep file (a `base` scenario and axes) rather than a scenario."""
    return "base" in doc and not ({"ues", "flows", "lln"} & set(doc))


@app.command("bench", cls=Command)
def bench_cmd(
    as_json: bool = typer.Option(False, "--json", help='Print only {"sim_speed": ..., "ideal_sim_speed": ..., "peak_rss_mb": ...}.'),
    duration: float = typer.Option(60.0, min=0.1, max=3600, help="Simulated seconds."),
    repeat: int = typer.Option(3, min=1, max=50, help="Runs; the median speed is reported."),
    network: bool = typer.Option(False, "--network",
                                 help="The network benchmark instead: 7 cells x 30 moving UEs with saturated TCP, "
                                      "interference and handover (target: 100x real time)."),
    nr: bool = typer.Option(False, "--nr",
                            help="The NR benchmark beside the LTE one: the same 100 UEs with saturated TCP on a 100 MHz "
                                 "NR carrier at numerology 1; reports the cost per delivered packet of each and NR / LTE "
                                 "(target: at most 1.25)."),
) -> None:
    """Run the fixed 100-UE benchmark on the realistic radio link, side by side with the ideal
    link; report simulated seconds per wall second (median of --repeat runs each) and peak
    memory. With --network, the 7-cell benchmark."""
    from .bench import run_bench, run_network_bench, run_nr_bench

    if nr:
        r = run_nr_bench(duration, repeat)
        if as_json:
            sys.stdout.write(json.dumps(r) + "\n")
        else:
            for name, label in (("nr", "NR 100 MHz, mu = 1"), ("lte", "LTE 10 MHz")):
                x = r[name]
                out_console.print(f"{label}: {x['sim_speed']:.0f}x real time, {x['delivered_mbps']:.1f} Mbps, "
                                  f"{x['packets']:,.0f} packets, {x['wall_us_per_packet']:.2f} us wall and "
                                  f"{x['cpu_us_per_packet']:.2f} us CPU per packet, peak RSS {x['peak_rss_mb']:.0f} MB",
                                  highlight=False)
            out_console.print(f"NR / LTE per packet: [bold]{r['ratio_wall']:.2f}[/] wall, {r['ratio_cpu']:.2f} CPU",
                              highlight=False)
        return
    if network:
        r = run_network_bench(duration, repeat)
        if as_json:
            sys.stdout.write(json.dumps({"sim_speed": r["sim_speed"], "peak_rss_mb": r["peak_rss_mb"]}) + "\n")
        else:
            out_console.print(f"{r['cells']} cells x {r['ues'] // r['cells']} moving UEs, {r['transport']}, {duration:g} "
                              f"simulated s: [bold]{r['sim_speed']:.0f}x[/] real time ({r['wall_s']:.2f} s wall), peak RSS "
                              f"{r['peak_rss_mb']:.0f} MB, {r['events']:,} events, {r['delivered_mbps']:.1f} Mbps, "
                              f"{r['handovers']} handovers (runs: {', '.join(f'{x:.0f}x' for x in r['samples'])})",
                              highlight=False)
        return
    r = run_bench(duration, repeat)
    if as_json:
        sys.stdout.write(json.dumps({"sim_speed": r["sim_speed"], "ideal_sim_speed": r["ideal_sim_speed"],
                                     "peak_rss_mb": r["peak_rss_mb"]}) + "\n")
    else:
        out_console.print(f"100 UEs, 10 MHz PF cell, {r['transport']}, {duration:g} simulated s, realistic link: "
                          f"[bold]{r['sim_speed']:.0f}x[/] real time "
                          f"({r['wall_s']:.2f} s wall), peak RSS {r['peak_rss_mb']:.0f} MB, "
                          f"{r['events']:,} events, cell {r['delivered_mbps']:.1f} Mbps "
                          f"(runs: {', '.join(f'{x:.0f}x' for x in r['samples'])})", highlight=False)
        out_console.print(f"  ideal link, interleaved: {r['ideal_sim_speed']:.0f}x real time, {r['ideal_events']:,} events, "
                          f"cell {r['ideal_delivered_mbps']:.1f} Mbps (runs: {', '.join(f'{x:.0f}x' for x in r['ideal_samples'])}); "
                          f"realistic / ideal speed {r['sim_speed'] / r['ideal_sim_speed']:.2f}", highlight=False)


@app.command("reproduce", cls=Command)
def reproduce_cmd(
    name: Optional[str] = typer.Argument(None, metavar="NAME", help="Experiment name (see --list)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="Output folder. Default: results/NAME (with --all: results/reproductions)."),
    list_: bool = typer.Option(False, "--list", help="List the experiments."),
    all_: bool = typer.Option(False, "--all", help="Run every reproduction and write scoreboard.json and scoreboard.md."),
    full: bool = typer.Option(False, "--full", help="The paper's full durations (slower)."),
    sensitivity: bool = typer.Option(True, "--sensitivity/--no-sensitivity",
                                     help="Also run the claims at other values of the parameters the paper does not "
                                          "give (quick mode, one seed)."),
    update_docs: bool = typer.Option(False, "--update-docs",
                                     help="With --all: also write docs/scoreboard.json and regenerate the scoreboard "
                                          "blocks of README.md and docs/reproductions.md of this source tree."),
    render_docs: bool = typer.Option(False, "--render-docs",
                                     help="Regenerate the scoreboard blocks of README.md and docs/reproductions.md from "
                                          "the committed docs/scoreboard.json and the causes file; run nothing."),
    traces: Optional[Path] = typer.Option(None, "--traces", metavar="DIR",
                                          help="Read the reproduction's Mahimahi traces from DIR instead of the ones shipped "
                                               "with cellshare: files of the same names (--list shows them) must be there; "
                                               "other files are ignored."),
    force: bool = typer.Option(False, "--force", help=_FORCE_HELP),
) -> None:
    """Reproduce the papers' experiments: runs, figures, claims.json and claims.md (judged by
    one rule against the papers' own numbers; docs/reproductions.md). Exit codes: 0 every
    claim holds; 1 a claim misses; 2 bad input or missing data (a flag, --out, a trace
    --traces lacks); 3 a reproduction failed to run (the reason on one line)."""
    from . import reproduce as rp
    from .output import atomic_dir
    from .reproduce import scoreboard as sb

    rp.load_all()
    if render_docs:
        if name or all_ or list_:
            raise fail("--render-docs runs nothing: give it alone")
        try:
            changed = sb.render_docs(sb.source_root())
        except sb.DocsError as e:
            raise fail(str(e))
        out_console.print("regenerated: " + (", ".join(str(p) for p in changed) or "nothing changed"), highlight=False)
        return
    if update_docs and not all_:
        raise fail("--update-docs needs --all (the committed scoreboard is the whole set)")
    if update_docs and not full:
        raise fail("--update-docs needs --full (the committed scoreboard runs the papers' durations and seeds)")
    if list_ or (name is None and not all_):
        times = sb.committed_wall_times()
        full_board = sb.committed_is_full()
        t = Table(title="reproductions")
        t.add_column("name")
        t.add_column("what")
        t.add_column("paper")
        t.add_column("claims", justify="right")
        t.add_column("traces")
        t.add_column("time", justify="right")
        for e in rp.all_experiments():
            w = times.get(e.name)
            t.add_row(e.name, e.title, e.paper, str(len(e.claims)), ", ".join(e.traces) or "—",
                      "?" if w is None else _duration(w))
        t.caption = ("traces: the Mahimahi traces it reads (shipped with cellshare; --traces DIR reads files of these "
                     "names from DIR). time: wall clock of the run with its sensitivity re-runs, as measured for "
                     "the committed scoreboard (python/cellshare/data/scoreboard.json, "
                     + ("full mode: the papers' durations" if full_board else "quick mode; --full takes longer")
                     + ", on a 2-core machine)" if times else "time: unknown (the committed scoreboard is missing from this installation)")
        out_console.print(t)
        return
    if traces is not None and not traces.is_dir():
        raise fail(f"--traces {str(traces)!r}: not a folder (expected a folder of Mahimahi traces)")
    if all_:
        if name is not None:
            raise fail(f"give either a name ({name!r}) or --all, not both")
        root = None
        if update_docs:
            try:
                root = sb.source_root()
            except sb.DocsError as e:
                raise fail(str(e))
        target = out or Path("results") / "reproductions"
        try:
            board = sb.run_all(target, full=full, sensitivity=sensitivity, console=err_console, force=force,
                               traces_dir=traces)
        except (OutputError, rp.InputError) as e:
            raise fail(str(e))
        sb.print_summary(board, out_console)
        out_console.print(f"written to {target}/ (scoreboard.md, scoreboard.json)", highlight=False)
        for line in sb.failures(board):
            fail(f"{line} (traceback in {target}/{line.split()[0]}.error.txt)", 3)
        if root is not None:
            changed = sb.update_docs(board, root)
            out_console.print("regenerated: " + (", ".join(str(p) for p in changed) or "nothing changed"),
                              highlight=False)
        raise typer.Exit(sb.exit_code(board))
    exp = rp.REGISTRY.get(name)
    if exp is None:
        raise fail(f"unknown experiment {name!r}; expected one of: {', '.join(rp.REGISTRY)}")
    target = out or Path("results") / name
    if traces is not None and not exp.traces:
        raise fail(f"--traces: {name} reads no traces (the reproductions that do: "
                    f"{', '.join(e.name for e in rp.all_experiments() if e.traces)})")
    try:
        rp.check_traces(exp, traces)
        with atomic_dir(target, kind="reproduce", force=force) as tmp:
            outcome = rp.run_experiment(exp, tmp, full=full, progress=True, sensitivity=sensitivity, traces_dir=traces)
            rp.write_claims(outcome, tmp)
    except (OutputError, rp.InputError) as e:
        raise fail(str(e))
    except (KeyboardInterrupt, OSError):
        raise  # Ctrl-C (exit 130) and a failing disk (main's one line) as for every command
    except Exception as e:  # noqa: BLE001 - a reproduction that breaks is exit 3 with its reason, not a traceback
        raise fail(f"{name} failed to run: {type(e).__name__}: {e}", 3)
    t = Table(title=exp.title)
    for col in ("claim", "paper", "ours", "tolerance", "verdict"):
        t.add_column(col)
    for c in outcome.claims:
        t.add_row(c.what, f"{c.target['paper']} ({rp.PAPERS[c.paper][0]}, {c.location})", rp.fmt(c.ours),
                  c.target["tolerance"], "[green]holds[/]" if c.holds else f"[bold red]misses[/] ({c.side})")
    out_console.print(t)
    held = sum(c.holds for c in outcome.claims)
    out_console.print(f"claims held: {held} / {len(outcome.claims)}; observations: {len(outcome.observations)}; "
                      f"written to {target}/", highlight=False)
    if held < len(outcome.claims):
        raise typer.Exit(1)


@app.command("study", cls=Command)
def study_cmd(
    name: Optional[str] = typer.Argument(None, metavar="NAME", help="Study name (see --list)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Output folder. Default: results/study-NAME[-quick]."),
    list_: bool = typer.Option(False, "--list", help="List the studies with their designs."),
    quick: bool = typer.Option(False, "--quick", help="Fewer seeds and shorter runs (labelled quick everywhere)."),
    workers: Optional[int] = typer.Option(None, min=1, max=4096,
                                          help="Parallel runs. Default: every core (with --ray: the cluster's CPUs)."),
    ray: Optional[str] = typer.Option(None, "--ray", metavar="ADDRESS",
                                      help="Run on a Ray cluster: an address (auto, ray://host:10001) or 'local'. "
                                           "Needs 'cellshare[ray]'."),
    force: bool = typer.Option(False, "--force", help="Replace the runs of a study of another design (quick/full) in "
                                                      "--out; without it a study resumes in its folder."),
    render_docs: bool = typer.Option(False, "--render-docs",
                                     help="Regenerate the study's docs page of this source tree from its committed "
                                          "output; run nothing."),
) -> None:
    """Designed comparisons beyond the papers: runs (resumable), aggregates with 95 %
    confidence intervals, an HTML report. Exit codes: 0 done; 2 bad input (a flag, --out);
    3 a run failed (the runs completed so far are kept: run again to resume)."""
    from .parallel import RayUnavailable
    from .study import StudyError, all_studies, get

    try:
        if list_ or name is None:
            if render_docs or quick or out is not None:
                raise StudyError("--list (or no NAME) runs nothing: give a NAME to run a study")
            for s in all_studies():
                out_console.print(f"[bold]{s.name}[/]: {s.title}", highlight=False)
                for line in s.design_lines(False):
                    out_console.print(f"  {line}", highlight=False)
                out_console.print(f"  --quick: {s.design_lines(True)[0]}", highlight=False)
            return
        s = get(name)
        if render_docs:
            if quick or out is not None or ray is not None or workers is not None:
                raise StudyError("--render-docs runs nothing: give it with NAME alone")
            if s.render_docs is None:
                raise StudyError(f"study {name!r} has no docs page")
            changed = s.render_docs()
            out_console.print("regenerated: " + (", ".join(str(p) for p in changed) or "nothing changed"),
                              highlight=False)
            return
        target = out or Path("results") / f"study-{name}{'-quick' if quick else ''}"
        doc = s.run(target, quick=quick, workers=workers, ray_address=ray, progress=True, force=force)
    except (StudyError, RayUnavailable, OutputError) as e:
        raise fail(str(e))
    except (KeyboardInterrupt, OSError):
        raise
    except Exception as e:  # noqa: BLE001 - a run that breaks is exit 3 with its reason; completed runs are kept
        raise fail(f"{name} failed: {type(e).__name__}: {e} (the runs completed so far are kept in {target}/runs; "
                   "run again to resume)", 3)
    r = doc["runs"]
    out_console.print(f"{name} ({doc['mode']}): {r['total']} runs, {r['ran']} ran in {r['wall_s']:.1f} s, "
                      f"{r['resumed']} already complete; written to {target}/ ({name}.json, report/index.html)",
                      highlight=False)


@app.command("sweep", cls=Command)
def sweep_cmd(
    sweep_file: Path = typer.Argument(..., metavar="SWEEP_FILE", help="Sweep TOML file: a base scenario, [parameters], [axes.NAME], seeds."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Output folder. Default: results/<sweep file name>."),
    workers: Optional[int] = typer.Option(None, min=1, max=4096,
                                          help="Parallel runs. Default: the sweep's `workers`, else every core "
                                               "(with --ray: the cluster's CPUs)."),
    ray: Optional[str] = typer.Option(None, "--ray", metavar="ADDRESS",
                                      help="Run on a Ray cluster: an address (auto, ray://host:10001) or 'local' "
                                           "to start a local Ray instance. Needs 'cellshare[ray]'."),
    force: bool = typer.Option(False, "--force", help="Redo every run, even those already complete in --out (and "
                                                      "replace a cellshare output there that is not a sweep)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Check the sweep and list its runs; run nothing."),
) -> None:
    """Run a scenario over parameter lists and seeds, in parallel; resume where a previous
    invocation stopped; gather runs.parquet and flows.parquet."""
    from .parallel import RayUnavailable
    from .sweeps import RunFailed, SweepError, load_sweep, plan, run_sweep

    target = out or Path("results") / sweep_file.stem
    try:
        spec = load_sweep(sweep_file)
        if dry_run:
            todo, done = plan(spec, target, force)
            t = Table(title=f"{sweep_file}: {len(todo) + len(done)} runs ({len(done)} complete in {target})")
            t.add_column("run id")
            for name in spec.param_names:
                t.add_column(name)
            t.add_column("seed")
            t.add_column("state")
            pending = {r.run_id for r in todo}
            for r in spec.runs():
                t.add_row(r.run_id, *(str(r.params[n]) for n in spec.param_names), str(r.seed),
                          "to run" if r.run_id in pending else "complete")
            out_console.print(t)
            return
        outcome = run_sweep(spec, target, workers=workers, ray_address=ray, force=force, progress=True)
    except (SweepError, RayUnavailable, OutputError) as e:
        raise fail(str(e))
    except RunFailed as e:
        raise fail(f"{e} (the runs completed so far are kept; run the sweep again to resume)", 1)
    where = f"Ray ({ray})" if ray else f"{outcome.workers} local worker{'s' if outcome.workers != 1 else ''}"
    out_console.print(f"{outcome.total} runs: {outcome.ran} ran in {outcome.wall_s:.1f} s on {where}, "
                      f"{outcome.skipped} already complete", highlight=False)
    out_console.print(f"dataset: {target / 'runs.parquet'} (one row per run), {target / 'flows.parquet'} "
                      f"(every run's flows)", highlight=False)


@app.command("report", cls=Command)
def report_cmd(
    folder: Path = typer.Argument(..., metavar="FOLDER", help="A sweep output folder (runs.parquet) or a single run folder "
                                            "(summary.json)."),
    scheme: Optional[str] = typer.Option(None, "--scheme", help="Parameter whose values are the schemes. "
                                         "Default: an axis called 'scheme', else the first parameter."),
    load: Optional[str] = typer.Option(None, "--load", help="Parameter whose values are the loads. Default: an "
                                       "axis called 'load', else the second parameter (none if only one)."),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="The scheme drawn as the yardstick (dashed). "
                                           "Default: 'w/o bg' when it is a scheme, else none."),
    flows: Optional[str] = typer.Option(None, "--flows", help="Comma-separated flow names for the per-second "
                                        "throughput figure. Default: up to 4 long and background flows."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Report folder. Default: FOLDER/report."),
    force: bool = typer.Option(False, "--force", help="Replace a previous report (or other cellshare output) in --out."),
) -> None:
    """Write an HTML report with PNG figures (throughput over time, short-flow FCT, flow
    throughput by category, queue-delay CDFs, Jain's index) for a sweep or a run."""
    from .report import ReportError, write_report

    try:
        index = write_report(folder, out=out, scheme=scheme, load=load, baseline=baseline,
                             flows=[f.strip() for f in flows.split(",") if f.strip()] if flows is not None else None,
                             force=force)
    except (ReportError, OutputError) as e:
        raise fail(str(e))
    out_console.print(f"report written to {index}", highlight=False)


@app.command("calibrate", cls=Command)
def calibrate_cmd(
    scenario: Path = typer.Argument(..., metavar="SCENARIO", help="Scenario TOML file with a [workload] of Poisson arrivals."),
    loads: str = typer.Option("0.3,0.6,0.8", "--loads", help="Target PRB utilizations, comma-separated, each in (0, 1]."),
    seeds: Optional[str] = typer.Option(None, "--seeds", help="Seeds, comma-separated. Default: the scenario's."),
    duration: Optional[float] = typer.Option(None, min=0.001, max=86400, help="Override simulation.duration_s (seconds)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Also write the rows as JSON to this file (a new "
                                       "file; an existing one only with --force)."),
    as_json: bool = typer.Option(False, "--json", help="Print the rows as JSON instead of the table."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --out file."),
) -> None:
    """Run the scenario's workload alone (no [[flows]]) at each target load and report the
    PRB utilization it achieves."""
    from .calibrate import calibrate

    def parse(text: str, flag: str, conv, ok, expected: str) -> list:
        try:
            vals = [conv(x) for x in text.split(",")]  # an empty entry ("0.3,,0.6") is an error
        except ValueError:
            vals = []
        if not vals or not all(ok(v) for v in vals):
            raise fail(f"{flag}: got {text!r}, expected {expected}")
        return vals

    load_list = parse(loads, "--loads", float, lambda v: 0 < v <= 1, "comma-separated loads in (0, 1], e.g. 0.3,0.6,0.8")
    # A scenario's seed is a TOML integer: at most 2^63 - 1.
    seed_list = None if seeds is None else parse(seeds, "--seeds", int, lambda v: 0 <= v < 2**63,
                                                  "comma-separated seeds in 0..=9223372036854775807, e.g. 1,2,3")
    if out is not None:
        _check_file_out(out, force)
    try:
        text, base = load_scenario(scenario)
        rows = calibrate(text, base, load_list, seed_list, duration)
    except _core.ScenarioInvalid as e:
        raise fail(f"{scenario}: {e.args[0]}")
    except tomllib.TOMLDecodeError as e:
        raise fail(f"{scenario}: not valid TOML: {e}")
    if out is not None:
        _write_file(out, json.dumps(rows, indent=2) + "\n", force=force)
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        _warn_short_calibration(rows)
        return
    t = Table(title=f"{scenario}: workload alone, target vs achieved PRB utilization")
    for col in ("target", "seed", "achieved", "error pp", "capacity Mbps", "offered Mbps", "delivered Mbps", "flows", "completed"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(f"{r['target']:.0%}", str(r["seed"]), f"{r['achieved']:.1%}", f"{r['error_pp']:+.1f}",
                  f"{r['capacity_mbps']:.2f}", f"{r['offered_mbps']:.2f}", f"{r['delivered_mbps']:.2f}",
                  str(r["flows"]), str(r["completed"]))
    out_console.print(t)
    _warn_short_calibration(rows)


def _warn_short_calibration(rows: list[dict]) -> None:
    """A warning on standard error when the runs are too short for their achieved load to
    mean much: Poisson arrivals alone spread the generated load by more than SPREAD_WARN."""
    from .calibrate import SPREAD_WARN

    worst = max(rows, key=lambda r: r["load_spread"], default=None)
    if worst is None or not worst["load_spread"] > SPREAD_WARN:
        return
    need = max((r["duration_for_10pc_s"] or 0.0) for r in rows)
    err_console.print(
        f"warning: {worst['duration_s']:g} s is short for this workload: Poisson arrivals alone spread the "
        f"generated load by ±{worst['load_spread']:.0%} of the target (one standard deviation, at load "
        f"{worst['target']:g}); use --duration {need:.0f} or more for ±{SPREAD_WARN:.0%}, or several --seeds.",
        highlight=False, markup=False, soft_wrap=True)


@app.command("traces", cls=Command)
def traces_cmd(
    json_: bool = typer.Option(False, "--json", help="Print the list as JSON."),
) -> None:
    """List the Mahimahi traces shipped with cellshare: a scenario names one as
    `file = "builtin:NAME"` (provenance and licence: docs/traces.md)."""
    from . import traces

    rows = [{**traces.stats(n), "scenario_file": traces.PREFIX + n, "path": str(traces.path(n))} for n in traces.names()]
    if json_:
        out_console.print_json(data=rows)
        return
    t = Table(title="shipped traces (Winstein et al., NSDI 2013, via Mahimahi; docs/traces.md)")
    for col in ("scenario file", "period", "mean rate"):
        t.add_column(col, justify="left" if col == "scenario file" else "right")
    for r in rows:
        t.add_row(r["scenario_file"], f"{r['period_s']:.0f} s", f"{r['mean_mbps']:.2f} Mbit/s")
    t.caption = f"files: {traces.DIR}"
    out_console.print(t)


@app.command("scenario-reference", cls=Command)
def scenario_reference_cmd(
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the markdown here instead of stdout (a new "
                                       "file; an existing one only with --force)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --out file."),
) -> None:
    """Print the scenario reference (every key, its unit and default), generated from the schema."""
    from .docs import scenario_reference

    md = scenario_reference()
    if out is None:
        sys.stdout.write(md)
    else:
        _write_file(out, md, force=force)


def _check_file_out(path: Path, force: bool, option: str = "--out") -> None:
    """A single-file output's path: not a folder, and not an existing file unless `force`
    (exit 2 naming it). Checked before any work, so a refused path costs nothing."""
    if path.is_dir():
        raise fail(f"{option} {str(path)!r} is a folder; expected a file name")
    if path.exists() and not path.is_file():
        raise fail(f"{option} {str(path)!r} is not a regular file (a device, a FIFO or a socket); expected a file name")
    if not force and (path.exists() or path.is_symlink()):
        raise fail(f"{option} {str(path)!r} exists; pass --force to replace it, or choose a new file name")


def _write_file(path: Path, text: str, option: str = "--out", *, force: bool = False) -> None:
    """Writes a single output file (`--out FILE` of calibrate, scenario-reference; `option`
    names the flag in errors) through a temporary file beside it; a path that cannot take it,
    or an existing file without `force`, is an error naming it (exit 2)."""
    import os
    import tempfile

    _check_file_out(path, force, option)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:200]}.", dir=path.parent if str(path.parent) else ".")
    except (OSError, ValueError) as e:
        raise fail(f"{option} {str(path)!r}: {getattr(e, 'strerror', None) or e}")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        raise fail(f"{option} {str(path)!r}: {e.strerror or e}")


from .emu_cli import register as _register_emu  # noqa: E402  (needs the app above)

_register_emu(app)


def main() -> None:
    """Entry point of the `cellshare` console script. A failure of the system while writing
    (a full disk, a file system gone read-only) ends the command with one line naming the
    file, exit 1, instead of a traceback; the outputs are written through temporary folders
    and files, so nothing partial is left."""
    try:
        app()
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        sys.exit(fail(f"{where}{e.strerror or e}", 1).exit_code)


if __name__ == "__main__":
    main()
