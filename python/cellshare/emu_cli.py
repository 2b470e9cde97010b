"""CLI commands of the real-time side: `cellshare bpf load|unload|list`, `cellshare emulate`,
`cellshare crosscheck`. Registered on the main app by `register(app)`."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from . import bpf as bpfmod
from .clihelp import Command
from .console import err_console, fail, out_console
from . import emulate as emu

bpf_app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                      help=f"eBPF TCP congestion controls ({bpfmod.descriptions_text()}): build, load, unload, list.")


def _name_arg(name: str) -> str:
    if name not in bpfmod.CONTROLS:
        raise fail(f"NAME = {name!r}: expected one of {', '.join(bpfmod.CONTROLS)}")
    return name


@bpf_app.command("load", cls=Command)
def bpf_load(name: str = typer.Argument(..., metavar="NAME", help=bpfmod.names_text())) -> None:
    """Compile (clang, against this kernel's BTF) and register a control; it then appears in
    /proc/sys/net/ipv4/tcp_available_congestion_control."""
    _name_arg(name)
    try:
        fresh = bpfmod.load(name)
    except bpfmod.BpfError as e:
        raise fail(str(e), 1)
    out_console.print(f"{name}: {'loaded' if fresh else 'already loaded'}", highlight=False)


@bpf_app.command("unload", cls=Command)
def bpf_unload(name: str = typer.Argument(..., metavar="NAME", help=bpfmod.names_text())) -> None:
    """Unregister a control (sockets using it keep it until they close)."""
    _name_arg(name)
    try:
        was = bpfmod.unload(name)
    except bpfmod.BpfError as e:
        raise fail(str(e), 1)
    out_console.print(f"{name}: {'unloaded' if was else 'was not loaded'}", highlight=False)


@bpf_app.command("list", cls=Command)
def bpf_list(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """The project's controls and whether each is loaded, and what the kernel offers."""
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
    simulator's cell, scheduler, channels and queue disciplines (needs root). Exits 0; 2 for bad
    input; 1 when the run failed, or when the emulator process was killed (its namespaces and
    the processes in them are removed first, and the message names the signal); 130 after
    Ctrl-C (the results of the time run are kept). Killing this command, even with kill -9,
    stops the emulator, which then removes its namespaces, processes and results folder."""
    from .output import OutputError, check_out
    if cleanup:
        try:
            msg = emu.cleanup()
        except emu.EmulatorError as e:
            raise fail(str(e), e.code)
        out_console.print(msg, highlight=False)
        return
    if scenario is None or out is None:
        raise fail("expected SCENARIO and --out (or --cleanup)")
    if not scenario.exists():
        raise fail(f"SCENARIO = {str(scenario)!r}: no such file (expected a scenario TOML)")
    from . import _core
    from .scenario_files import read_scenario_file
    try:
        read_scenario_file(scenario)  # a FIFO, a device, non-UTF-8: refused here
        check_out(out, kind="emulate", force=force)
        summary = emu.emulate(scenario, out, duration, force=force)
    except (OutputError, _core.ScenarioInvalid) as e:
        raise fail(str(e) if isinstance(e, OutputError) else e.args[0])
    except emu.EmulatorError as e:
        raise fail(str(e), e.code)
    _warn_realtime(summary)
    if as_json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        _print_emu(summary)
        out_console.print(f"results written to {out}/", highlight=False)
    _interrupted(summary, out)


def _crosscheck_case(sim_text: str, base: str, label: str, scenario: Path, out: Path,
                     duration: Optional[float], attempts: int, repeat: int = 1,
                     stored: Optional[Path] = None, align: bool = True, offset_step_ms: int = 0,
                     emu_text: Optional[str] = None) -> dict:
    """`repeat` emulator runs of `scenario`, each tried up to `attempts` times while the
    emulator did not keep real time, then the simulator with `sim_text`, once per emulator run
    set up as that run went (`emulate.aligned_simulator_text`: the trace where the emulator's
    cell was at the clock's start, each flow from when its sender connected; `align=False`:
    once, as written). Written to `out/emu`, `out/sim` (`emu2`, `sim2`, ... for the repeats;
    `out` is the crosscheck's own new folder). With `stored` (--reuse), the emulator runs found
    there are copied and compared instead of run again. With `offset_step_ms`, run r (from 0)
    reads every trace r·offset_step_ms later on both sides (the scenario it ran is kept as
    `out/scenario-runR.toml`, its offset in `emu*/crosscheck_run.json`): the runs then sample
    different starts of the trace; `emu_text` is then the scenario with absolute trace paths
    (`emulate.variant_text`), made once by the caller. Each side's figures are its runs'
    mean."""
    import os
    from .api import run_text
    from .output import write_result

    def run_name(kind: str, i: int) -> str:
        return kind if i == 0 else f"{kind}{i + 1}"

    tries, summaries, sim_texts = [], [], []
    interrupted = None
    if offset_step_ms and emu_text is None:
        raise ValueError("an --offset-step case needs the scenario with absolute trace paths")
    for rep in range(repeat):
        name = run_name("emu", rep)
        folder = out / name
        run_scenario, shift = scenario, rep * offset_step_ms
        sim_texts.append(emu.shifted_text(sim_text, shift) if offset_step_ms else sim_text)
        if offset_step_ms:
            run_scenario = out / f"scenario-run{rep + 1}.toml"
            run_scenario.write_text(emu.shifted_text(emu_text, shift))
        if stored is not None and (stored / name / "summary.json").exists():
            # A stored run of the emulator: compare a new simulator build with it.
            summary = json.loads((stored / name / "summary.json").read_text())
            rec = stored / name / "crosscheck_run.json"
            was = json.loads(rec.read_text()).get("trace_offset_ms", 0) if rec.exists() else 0
            if was != shift:
                raise ValueError(f"--reuse: the emulator run in {stored / name} read its traces {was} ms later, "
                                 f"this crosscheck's run {rep + 1} {shift} ms (expected the same --offset-step)")
            shutil.copytree(stored / name, folder)
            rt = summary.get("realtime") or {}
            host = folder / "host_load.json"
            load = json.loads(host.read_text())["load"] if host.exists() else None
            tries.append({"run": rep + 1, "load": load, "kept": rt.get("kept"), "reused": True,
                          "tti_late_p99_ms": rt.get("tti_late_p99_ms"), "host_steal_percent": rt.get("host_steal_percent")})
            summaries.append(summary)
            continue
        for attempt in range(attempts):
            if folder.exists():  # a try that fell behind real time, in the crosscheck's own new folder
                shutil.rmtree(folder)
            load = os.getloadavg()[0]
            summary = emu.run_emulator(run_scenario, folder, duration)
            (folder / "host_load.json").write_text(json.dumps({"load": load}) + "\n")
            if offset_step_ms:
                (folder / "crosscheck_run.json").write_text(json.dumps({"trace_offset_ms": shift}) + "\n")
            rt = summary.get("realtime") or {}
            tries.append({"run": rep + 1, "load": load, "kept": rt.get("kept"), "tti_late_p99_ms": rt.get("tti_late_p99_ms"),
                          "host_steal_percent": rt.get("host_steal_percent")})
            _warn_realtime(summary)
            if summary.get("interrupted") or rt.get("kept") is not False:
                break
        summaries.append(summary)
        if summary.get("interrupted"):
            interrupted = summary
            break
    sims, rtts, alignment = [], [], []
    for i, summary in enumerate(summaries if align or offset_step_ms else summaries[:1]):
        text, info = emu.aligned_simulator_text(sim_texts[i], summary) if align else (sim_texts[i], None)
        result = run_text(text, base, progress=False, label=label)
        was, now = summary.get("duration_s"), result.summary.get("duration_s")
        if stored is not None and (was is None or now is None or abs(float(was) - float(now)) > 1e-6
                                   or summary.get("interrupted")):
            raise ValueError(f"--reuse: the emulator run in {stored / run_name('emu', i)} lasted "
                             f"{was} s, the simulator's {now} s (expected a complete run of the same scenario; run "
                             "without --reuse)")
        write_result(result, out / run_name("sim", i), scenario_text=text)
        sims.append(emu.over_scenario_life(result.summary, info) if info is not None else result.summary)
        rtts.append(emu.sampled_rtt_ms(result.flow_trace()))
        if info is not None:
            alignment.append(dict(info, run=i + 1))
    cmp = emu.compare(emu.average_sim_summaries(sims), emu.average_summaries(summaries), emu.average_rtts(rtts))
    loads = [t["load"] for t in tries if t["load"] is not None]
    return {"label": label, "load": max(loads) if loads else None, "attempts": tries, "compare": cmp,
            "aligned": align, "alignment": alignment, "interrupted": interrupted}


def crosscheck_cmd(
    scenario: Path = typer.Argument(..., metavar="SCENARIO", help="Scenario TOML with TCP flows."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for sim/, emu/, crosscheck.json and crosscheck.md."),
    duration: Optional[float] = typer.Option(None, min=0.001, max=86400, help="Override simulation.duration_s (seconds)."),
    force: bool = typer.Option(False, "--force", help="Replace a previous cellshare output in --out."),
    trace: Optional[List[Path]] = typer.Option(None, "--trace", help="Run once per trace file (Mahimahi), read by every "
                                               "trace channel of the scenario; repeatable."),
    cc: Optional[List[str]] = typer.Option(None, "--cc", help="Run once per congestion control, used by every TCP flow; "
                                           "repeatable (e.g. --cc cubic --cc bbr)."),
    attempts: int = typer.Option(1, min=1, max=10, help="Tries per emulator run at most: a run that did not keep real "
                                 "time is repeated."),
    repeat: int = typer.Option(1, min=1, max=20, help="Emulator runs per case (real TCP varies from run to run): the "
                               "simulator is compared with their mean, and the table shows their range."),
    reuse: bool = typer.Option(False, "--reuse", help="Reuse the emulator runs of the earlier crosscheck in OUT (same "
                               "cases): only the simulator runs again, and OUT is replaced with the new comparison."),
    align: bool = typer.Option(True, "--align/--no-align", help="Set the simulator up as each emulator run went (its "
                               "trace from where the emulator's cell was when the run's clock started, each flow from "
                               "when its sender connected), one simulator run per emulator run; --no-align: one "
                               "simulator run of the scenario as written."),
    offset_step: int = typer.Option(0, "--offset-step", min=0, max=3_600_000, metavar="MS",
                                    help="Emulator run r (from 0) and its simulator run read every trace r·MS ms "
                                    "later, so that --repeat samples several starts of the trace (needs trace "
                                    "channels)."),
) -> None:
    """Run the same scenario in the simulator and the emulator (real Linux TCP) and compare, per
    flow: throughput (within 5 %), retransmitted segments per drop (within 25 %), retransmission
    timeouts (within 1 per minute) and the median of the smoothed RTT sampled every 10 ms on both
    sides (within 10 %). With --trace/--cc, one case per combination in OUT/<trace>-<cc>/.
    Writes crosscheck.json and the table crosscheck.md; exits 1 when a case disagrees more."""
    from .scenario_files import read_scenario_file, with_overrides
    from .output import OutputError, atomic_dir, check_out, read_marker
    from . import _core

    if not scenario.exists():
        raise fail(f"SCENARIO = {str(scenario)!r}: no such file (expected a scenario TOML)")
    for t in trace or []:
        if t.is_dir():
            raise fail(f"--trace {str(t)!r}: a folder (expected a Mahimahi trace file)")
        if not t.is_file():
            raise fail(f"--trace {str(t)!r}: no such file (expected a Mahimahi trace)")
    for c in cc or []:
        if not c.strip():
            raise fail(f"--cc {c!r}: empty (expected a congestion control name, e.g. cubic)")
    base = scenario.resolve().parent
    combos = [(t, c) for t in (trace or [None]) for c in (cc or [None])]
    cases_in = []
    try:
        text = read_scenario_file(scenario)
        for t, c in combos:
            label = "-".join(x for x in ((t.name.removesuffix(".down") if t else None), c) if x) or ""
            vtext = emu.variant_text(text, base, t, c) if (t or c) else text
            sim_text = with_overrides(emu.simulator_text(vtext), None, duration)
            _core.validate(sim_text, str(base))
            # What an --offset-step case's emulator runs shift: the scenario with absolute trace
            # paths (a variant has them already), from the text read once above.
            emu_text = None
            if offset_step:
                emu.shifted_text(sim_text, offset_step)  # a scenario without trace channels: refused here
                emu_text = vtext if (t or c) else emu.variant_text(text, base)
            cases_in.append((t, c, label, vtext, sim_text, emu_text))
        if reuse:
            # The user asked to replace OUT's comparison while keeping its emulator runs.
            marker = read_marker(out) if out.is_dir() else None
            if marker is None or marker.get("kind") != "crosscheck" or \
                    not any((out / lab / "emu" / "summary.json").exists() for _, _, lab, _, _, _ in cases_in):
                raise fail(f"--reuse: no emulator run of an earlier crosscheck in {out} (run the crosscheck without "
                            "--reuse first)")
        else:
            check_out(out, kind="crosscheck", force=force)
    except _core.ScenarioInvalid as e:  # a ValueError too: caught first, for its message alone
        raise fail(f"{scenario}: {e.args[0]}")
    except ValueError as e:
        raise fail(str(e))
    except OutputError as e:
        raise fail(str(e))
    cases = []
    try:
        with atomic_dir(out, kind="crosscheck", force=force or reuse) as tmp:
            for t, c, label, vtext, sim_text, emu_text in cases_in:
                where = tmp / label if label else tmp
                where.mkdir(parents=True, exist_ok=True)
                if label:
                    path = where / "scenario.toml"
                    path.write_text(vtext)
                else:
                    path = scenario
                case = _crosscheck_case(sim_text, str(base), label or str(scenario), path, where, duration, attempts,
                                        repeat, stored=(out / label if label else out) if reuse else None, align=align,
                                        offset_step_ms=offset_step, emu_text=emu_text)
                case.update({"trace": t.name if t else None, "cc": c})
                cases.append(case)
                if case["interrupted"]:
                    break
            if not (trace or cc):
                doc = dict(cases[0]["compare"], load=cases[0]["load"], attempts=cases[0]["attempts"],
                           aligned=cases[0]["aligned"], alignment=cases[0]["alignment"])
            else:
                doc = {"cases": [{k: v for k, v in c.items() if k != "interrupted"} for c in cases],
                       "ok": all(c["compare"]["ok"] for c in cases)}
            (tmp / "crosscheck.json").write_text(json.dumps(doc, indent=2) + "\n")
            (tmp / "crosscheck.md").write_text(emu.markdown_table(cases))
    except _core.ScenarioInvalid as e:
        raise fail(f"{scenario}: {e.args[0]}")
    except OutputError as e:
        raise fail(str(e))
    except emu.EmulatorError as e:
        raise fail(str(e), e.code)
    except ValueError as e:
        raise fail(str(e))
    t = Table(title="simulator vs emulator")
    for col in ("case", "flow", "Mbps sim/emu", "retx/drop sim/emu", "RTOs sim/emu", "RTT p50 sim/emu", "real time"):
        t.add_column(col, justify="left" if col in ("case", "flow") else "right")
    for case in cases:
        cmp = case["compare"]
        for r in cmp["flows"]:
            rpd = "/".join("-" if x is None else f"{x:.2f}" for x in (r["sim_retx_per_drop"], r["emu_retx_per_drop"]))
            rtt = "/".join("-" if x is None else f"{x:.0f}" for x in (r["sim_rtt_p50_ms"], r["emu_rtt_p50_ms"]))
            t.add_row(case["label"] or "-", r["name"], f"{r['sim_mbps']:.2f}/{r['emu_mbps']:.2f}", rpd,
                      f"{emu._count(r['sim_timeouts'])}/{'-' if r['emu_timeouts'] is None else format(r['emu_timeouts'], '.3g')}", rtt,
                      "kept" if cmp["emu_kept_real_time"] else "not kept")
    out_console.print(t)
    ok = all(c["compare"]["ok"] for c in cases)
    out_console.print(f"within tolerances (throughput 5 %, retx per drop 25 %, timeouts 1/min, RTT 10 %): {ok}; "
                      f"written to {out}/crosscheck.json and crosscheck.md", highlight=False)
    stopped = next((c["interrupted"] for c in cases if c["interrupted"]), None)
    if stopped is not None:
        _interrupted(stopped, out)
    if not ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Adds `bpf`, `emulate` and `crosscheck` to the main app."""
    app.add_typer(bpf_app, name="bpf")
    app.command("emulate", cls=Command)(emulate_cmd)
    app.command("crosscheck", cls=Command)(crosscheck_cmd)
