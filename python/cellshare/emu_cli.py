"""CLI commands of the real-time side: `cellshare bpf load|unload|list`, `cellshare emulate`,
`cellshare crosscheck`. Registered on the main app by `register(app)`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from . import bpf as bpfmod
from .clihelp import Command
from . import emulate as emu

bpf_app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                      help="eBPF TCP congestion controls (Legilimens, LEDBAT, TCP-LP): build, load, unload, list.")


def _fail(msg: str, code: int = 2) -> typer.Exit:
    from .cli import _fail as fail  # plain text: a key like flows[0] is not markup
    return fail(msg, code)


def _name_arg(name: str) -> str:
    if name not in bpfmod.CONTROLS:
        raise _fail(f"NAME = {name!r}: expected one of {', '.join(bpfmod.CONTROLS)}")
    return name


@bpf_app.command("load", cls=Command)
def bpf_load(name: str = typer.Argument(..., metavar="NAME", help="legilimens, ledbat or tcp_lp")) -> None:
    """Compile (clang, against this kernel's BTF) and register a control; it then appears in
    /proc/sys/net/ipv4/tcp_available_congestion_control."""
    from .cli import out_console
    _name_arg(name)
    try:
        fresh = bpfmod.load(name)
    except bpfmod.BpfError as e:
        raise _fail(str(e), 1)
    out_console.print(f"{name}: {'loaded' if fresh else 'already loaded'}", highlight=False)


@bpf_app.command("unload", cls=Command)
def bpf_unload(name: str = typer.Argument(..., metavar="NAME", help="legilimens, ledbat or tcp_lp")) -> None:
    """Unregister a control (sockets using it keep it until they close)."""
    from .cli import out_console
    _name_arg(name)
    try:
        was = bpfmod.unload(name)
    except bpfmod.BpfError as e:
        raise _fail(str(e), 1)
    out_console.print(f"{name}: {'unloaded' if was else 'was not loaded'}", highlight=False)


@bpf_app.command("list", cls=Command)
def bpf_list(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """The project's controls and whether each is loaded, and what the kernel offers."""
    from .cli import out_console
    rows = bpfmod.status()
    if as_json:
        sys.stdout.write(json.dumps({"controls": rows, "available": bpfmod.available()}, indent=2) + "\n")
        return
    t = Table(title="eBPF congestion controls")
    for c in ("name", "loaded", "source"):
        t.add_column(c)
    for r in rows:
        t.add_row(r["name"], "yes" if r["loaded"] else "no", r["source"])
    out_console.print(t)
    out_console.print("kernel offers: " + " ".join(bpfmod.available()), highlight=False)


def _print_emu(summary: dict) -> None:
    from .cli import out_console
    t = Table(title=f"{summary['scenario'] or 'scenario'}: {summary['duration_s']:g} s emulated in real time")
    for c in ("flow", "UE", "class", "cc", "Mbps", "RTT p50 ms", "sojourn p50 ms", "sojourn p99 ms", "drops"):
        t.add_column(c, justify="left" if c in ("flow", "class", "cc") else "right")
    for f in summary["flows"]:
        q = f["queue_delay_ms"] or {}
        rtt = (f.get("sender") or {}).get("rtt_ms")
        t.add_row(f["name"], str(f["ue"]), f["class"], f["cc"], f"{f['throughput_mbps']:.2f}",
                  "-" if rtt is None else f"{rtt:.1f}", f"{q.get('p50', 0):.1f}", f"{q.get('p99', 0):.1f}", str(f["drops"]))
    for f in summary.get("other_flows", [])[:20]:
        q = f["queue_delay_ms"]
        mbps = f["bytes_delivered"] * 8 / max(summary["duration_s"], 1e-9) / 1e6
        t.add_row(f["five_tuple"], str(f["ue"]), "-", "-", f"{mbps:.2f}", "-", f"{q['p50']:.1f}", f"{q['p99']:.1f}",
                  str(f["drops"]))
    out_console.print(t)
    o = summary["overhead_ms"]
    idle = ", ".join(f"UE{r['ue']} {r['median']:.1f}" for r in summary["idle_rtt_ms"])
    out_console.print(f"cell: PRB utilization {summary['prb_utilization']:.1%}, delivered {summary['delivered_mbps']:.2f} Mbps; "
                      f"idle RTT ms (median) {idle or '-'} vs modelled base {summary['base_rtt_ms']:g}; "
                      f"emulator overhead p50 {o['p50']:.3f} / p99 {o['p99']:.3f} / max {o['max']:.3f} ms", highlight=False)


def _warn_realtime(summary: dict) -> None:
    """A warning on standard error when the run fell behind real time (the `realtime` record of
    `summary.json`): its results then differ from the model's for the host's reasons."""
    from .cli import err_console
    rt = summary.get("realtime")
    if not rt or rt["kept"]:
        return
    steal = rt["host_steal_percent"]
    if steal is None:
        why = ""
    elif steal >= emu.HOST_STEAL_FLOOR_PERCENT:
        why = (f"; the host's CPU steal was {steal:.1f} % over the run (the hypervisor gave this "
               "machine's CPUs to other work)")
    else:
        why = f"; the host's CPU steal was {steal:.1f} % over the run, so the CPU went to something on this machine"
    err_console.print(f"[bold yellow]warning:[/] the emulator fell behind real time: TTI lateness p99 "
                      f"{rt['tti_late_p99_ms']:.2f} ms (budget {rt['budget_ms']:g} ms), the latest "
                      f"{rt['tti_late_max_ms']:.1f} ms{why}. The flows met bursts the model does not have, "
                      f"so results may differ from it.",
                      highlight=False, soft_wrap=True, markup=True)


def _interrupted(summary: dict, out: Path) -> None:
    """After a run stopped by Ctrl-C/SIGTERM: say so and exit 130 (the results of the time
    run are kept)."""
    from .cli import err_console
    if not summary.get("interrupted"):
        return
    err_console.print(f"[bold yellow]interrupted:[/] the emulator stopped after {summary['duration_s']:.1f} of "
                      f"{summary.get('planned_duration_s', summary['duration_s']):g} s; the results of that time are in "
                      f"{out}/", highlight=False, soft_wrap=True, markup=True)
    raise typer.Exit(130)


def emulate_cmd(
    scenario: Optional[Path] = typer.Argument(None, metavar="SCENARIO", help="Scenario TOML (the simulator's format plus an optional "
                                              "[emulator] table)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Results folder: summary.json, flows/, commands/, "
                                       "emu.pcap (created; an existing one must be empty or a cellshare output, "
                                       "see --force)."),
    duration: Optional[float] = typer.Option(None, min=0.001, max=86400, help="Override simulation.duration_s (seconds)."),
    as_json: bool = typer.Option(False, "--json", help="Print summary.json instead of the table."),
    force: bool = typer.Option(False, "--force", help="Replace a previous cellshare output in --out."),
    cleanup: bool = typer.Option(False, "--cleanup", help="Remove what killed emulator runs left (namespaces and the "
                                 "processes in them) and exit."),
) -> None:
    """Run a scenario in real time: real Linux TCP flows between network namespaces through the
    simulator's cell, scheduler, channels and queue disciplines (needs root)."""
    from .output import OutputError, check_out
    if cleanup:
        try:
            msg = emu.cleanup()
        except emu.EmulatorError as e:
            raise _fail(str(e), e.code)
        from .cli import out_console
        out_console.print(msg, highlight=False)
        return
    if scenario is None or out is None:
        raise _fail("expected SCENARIO and --out (or --cleanup)")
    if not scenario.exists():
        raise _fail(f"SCENARIO = {str(scenario)!r}: no such file (expected a scenario TOML)")
    from . import _core
    from .api import read_scenario_file
    try:
        read_scenario_file(scenario)  # a FIFO, a device, non-UTF-8: refused here
        check_out(out, kind="emulate", force=force)
        summary = emu.emulate(scenario, out, duration, force=force)
    except (OutputError, _core.ScenarioInvalid) as e:
        raise _fail(str(e) if isinstance(e, OutputError) else e.args[0])
    except emu.EmulatorError as e:
        raise _fail(str(e), e.code)
    _warn_realtime(summary)
    if as_json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        _print_emu(summary)
        from .cli import out_console
        out_console.print(f"results written to {out}/", highlight=False)
    _interrupted(summary, out)


def crosscheck_cmd(
    scenario: Path = typer.Argument(..., metavar="SCENARIO", help="Scenario TOML with TCP flows."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for sim/, emu/ and crosscheck.json."),
    duration: Optional[float] = typer.Option(None, min=0.001, max=86400, help="Override simulation.duration_s (seconds)."),
    force: bool = typer.Option(False, "--force", help="Replace a previous cellshare output in --out."),
) -> None:
    """Run the same scenario in the simulator and the emulator and compare per-flow throughput
    (within 15 %) and median RTT (within 20 %); exits 1 when they disagree more."""
    from .api import read_scenario_file, run_text
    from .cli import _with_overrides, out_console
    from .output import OutputError, atomic_dir, check_out, write_result
    from . import _core

    if not scenario.exists():
        raise _fail(f"SCENARIO = {str(scenario)!r}: no such file (expected a scenario TOML)")
    try:
        check_out(out, kind="crosscheck", force=force)
        text = read_scenario_file(scenario)
        sim_text = _with_overrides(emu.simulator_text(text), None, duration)
        result = run_text(sim_text, str(scenario.resolve().parent), progress=False, label=str(scenario))
        with atomic_dir(out, kind="crosscheck", force=force) as tmp:
            write_result(result, tmp / "sim", scenario_text=sim_text)
            emu_summary = emu.run_emulator(scenario, tmp / "emu", duration)
            cmp = emu.compare(result.summary, emu_summary)
            (tmp / "crosscheck.json").write_text(json.dumps(cmp, indent=2) + "\n")
    except _core.ScenarioInvalid as e:
        raise _fail(f"{scenario}: {e.args[0]}")
    except OutputError as e:
        raise _fail(str(e))
    except emu.EmulatorError as e:
        raise _fail(str(e), e.code)
    _warn_realtime(emu_summary)
    t = Table(title="simulator vs emulator")
    for c in ("flow", "sim Mbps", "emu Mbps", "diff", "sim RTT p50", "emu RTT p50", "diff"):
        t.add_column(c, justify="left" if c == "flow" else "right")
    for r in cmp["flows"]:
        t.add_row(r["name"], f"{r['sim_mbps']:.2f}", f"{r['emu_mbps']:.2f}", f"{r['throughput_rel_diff']:.1%}",
                  "-" if r["sim_rtt_p50_ms"] is None else f"{r['sim_rtt_p50_ms']:.1f}",
                  "-" if r["emu_rtt_p50_ms"] is None else f"{r['emu_rtt_p50_ms']:.1f}",
                  "-" if r["rtt_rel_diff"] is None else f"{r['rtt_rel_diff']:.1%}")
    out_console.print(t)
    out_console.print(f"throughput within 15 %: {cmp['throughput_within_tolerance']}, median RTT within 20 %: "
                      f"{cmp['rtt_within_tolerance']}; written to {out}/crosscheck.json", highlight=False)
    _interrupted(emu_summary, out)
    if not cmp["ok"]:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Adds `bpf`, `emulate` and `crosscheck` to the main app."""
    app.add_typer(bpf_app, name="bpf")
    app.command("emulate", cls=Command)(emulate_cmd)
    app.command("crosscheck", cls=Command)(crosscheck_cmd)
