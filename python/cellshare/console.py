"""The command line's output: the console for results (standard output), the console for
errors and warnings (standard error), the one-line error that ends a command (shared by
every command module, :mod:`cellshare.cli`, :mod:`cellshare.emu_cli`), and the summary
`cellshare run` prints."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

# Piped output is not cut to 80 columns: tables stay readable in logs and CI.
out_console = Console(width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else 160)


def fail(msg: str, code: int = 2) -> typer.Exit:
    """Prints ``error: MSG`` on standard error and returns the exit to raise (exit 2: bad
    input, unless `code` says otherwise)."""
    from rich.markup import escape

    # The message is plain text: a key like flows[x] must not be read as markup.
    err_console.print(f"[bold red]error:[/] {escape(msg)}", highlight=False, soft_wrap=True, markup=True)
    return typer.Exit(code)


#: Most `[[flows]]` entries the run summary lists one by one (all are in summary.json).
LISTED_FLOWS = 40


def _num(v, fmt: str, unit: str = "") -> str:
    """`v` formatted, or ``n/a`` when the summary holds no number (null: nothing measured)."""
    return "n/a" if v is None else format(v, fmt) + unit


def _cell(v, fmt: str) -> str:
    """A table cell: `v` formatted, or ``-`` where nothing applies."""
    return "-" if v is None else format(v, fmt)


def _plural(n: int, word: str, plural: str = "") -> str:
    return f"{n} {word}" if n == 1 else f"{n} {plural or word + 's'}"


def print_run_summary(summary: dict) -> None:
    """What `cellshare run` prints: the `[[flows]]` entries one by one, the flows that come in
    numbers (workload arrivals, apps' legs) by group, what each app kind measured, and the
    cell (Jain's index over the long-lived flows)."""
    from rich.markup import escape
    from rich.table import Table

    title = (f"{summary['scenario'] or 'scenario'}: {summary['duration_s']:g} s simulated "
             f"at {summary['sim_speed']:.0f}x real time")
    flows = summary["flows"]
    entries = [flows[i] for i in summary["entry_flows"]]
    groups = summary["flow_groups"]
    if entries or not groups:
        t = Table(title=title)
        for col in ("flow", "UE", "class", "transport", "Mbps", "FCT s", "delay p50 ms", "delay p99 ms", "drops", "rtx"):
            t.add_column(col, justify="left" if col in ("flow", "class", "transport") else "right")
        for f in entries[:LISTED_FLOWS]:
            q = f["queue_delay_ms"]
            t.add_row(f["name"], str(f["ue"]), f["class"], f["transport"], f"{f['throughput_mbps']:.2f}",
                      _cell(f["fct_s"], ".3f"), f"{q['p50']:.1f}", f"{q['p99']:.1f}",
                      str(f["drops"]), str(f["retransmits"]))
        if len(entries) > LISTED_FLOWS:
            t.caption = escape(f"({LISTED_FLOWS} of {len(entries)} [[flows]] entries listed; all are in summary.json)")
        out_console.print(t)
        title = None
    if groups:
        t = Table(title=title)
        for col in ("group", "flows", "completed", "MB delivered", "Mbps", "FCT p50 s", "FCT p95 s"):
            t.add_column(col, justify="left" if col == "group" else "right")
        for g in groups:
            name = (f"workload {g['name']}" if g["source"] == "workload"
                    else f"{g['name']} legs ({_plural(g['sessions'], 'session')})")
            t.add_row(name, str(g["flows"]), str(g["completed"]) if g["source"] == "workload" else "-",
                      f"{g['bytes_delivered'] / 1e6:.2f}", f"{g['goodput_mbps']:.2f}",
                      _cell(g["fct_p50_s"], ".3f"), _cell(g["fct_p95_s"], ".3f"))
        out_console.print(t)
    for line in app_lines(summary.get("apps") or {}):
        out_console.print(line, highlight=False)
    q = summary["queue_delay_ms"]
    access = f"PRB utilization {_prb_text(summary)}, " if summary["access"] == "lte_cell" else ""
    jain = summary["bulk_jain_index"]
    out_console.print(f"cell: {access}delivered {summary['delivered_mbps']:.2f} Mbps, "
                      f"queue delay p50 {q['p50']:.1f} ms / p99 {q['p99']:.1f} ms / max {q['max']:.1f} ms, "
                      f"Jain over bulk flows {_num(jain, '.3f')}", highlight=False)


def app_lines(apps: dict) -> list[str]:
    """One line per app kind of summary key ``apps``: what its users got."""
    lines = []
    if (w := apps.get("web")) is not None:
        lines.append(f"web: {_plural(w['sessions'], 'session')}, {w['pages_loaded']}/{w['pages_started']} pages loaded "
                     f"({w['pages_unfinished']} unfinished), page load time p50 {_num(w['load_time_p50_s'], '.3f')} / "
                     f"p95 {_num(w['load_time_p95_s'], '.3f')} / mean {_num(w['load_time_mean_s'], '.3f')} s")
    if (c := apps.get("video_call")) is not None:
        lines.append(f"video call: {_plural(c['sessions'], 'call')}, {c['frames_rendered']}/{c['frames_sent']} frames "
                     f"rendered (late {c['frames_late']}, lost {c['frames_lost']}, undecodable {c['frames_undecodable']}), "
                     f"frame delay p50 {_num(c['frame_delay_p50_ms'], '.1f')} / p95 {_num(c['frame_delay_p95_ms'], '.1f')} ms, "
                     f"{_plural(c['freezes'], 'freeze')} ({c['freeze_s']:.2f} s), bitrate {_num(c['bitrate_kbps'], '.0f', ' kbit/s')}")
    if (s := apps.get("stream")) is not None:
        lines.append(f"stream: {_plural(s['sessions'], 'stream')}, QoE {_num(s['qoe'], '.3f')} "
                     f"({_num(s['qoe_per_chunk'], '.3f')} per chunk, {s['chunks_downloaded']} chunks), "
                     f"bitrate {_num(s['bitrate_kbps'], '.0f', ' kbit/s')}, rebuffering {s['rebuffer_s']:.2f} s "
                     f"({_plural(s['rebuffers'], 'stall')}), {_plural(s['switches'], 'switch', 'switches')}, "
                     f"start-up {_num(s['startup_delay_s'], '.2f', ' s')}")
    for kind in sorted(k for k in apps if k not in ("web", "video_call", "stream")):
        r = apps[kind]
        done = "datagrams echoed" if kind == "voip" else "requests completed"
        lines.append(f"{kind}: {_plural(r['sessions'], 'session')}, {r['completed']}/{r['requests']} {done}, "
                     f"RTT p50 {_num(r['rtt_p50_ms'], '.1f')} / p95 {_num(r['rtt_p95_ms'], '.1f')} ms")
    return lines


def _prb_text(summary: dict) -> str:
    """PRB utilization of the offered PRBs, and of all the cell's PRBs when some TTIs offered
    none (trace channels)."""
    text = f"{summary['prb_utilization']:.1%}"
    share = summary.get("prb_used_share_of_all")
    if share is not None and summary.get("prb_offered_share", 1.0) < 1.0:
        text += f" of offered ({share:.1%} of all PRBs; {summary['prb_offered_share']:.1%} offered)"
    return text
