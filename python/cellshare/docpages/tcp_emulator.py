"""Renderers of docs/tcp.md and docs/emulator.md (``te-*``).

They read ``tools/data/emu-process.json`` (``python tools/emu_process_measure.py --out FILE``,
as root: the traffic tool's start cost through the package's console script and the binary, the
shipped two-UE scenario through each and its ``cellshare crosscheck``, where the cell's clock
stands at the scenario's second 0 on each trace, and what killing either process of
``cellshare emulate`` leaves), ``tools/data/emu-nr.json`` (the slots of the NR runs), the
cross-check's tolerance constants in :mod:`cellshare.emulate`, and the test files whose
thresholds the pages quote (a test named on a page must exist).
"""
from __future__ import annotations

import importlib
import re

from ..docgen import START_SENSITIVITY, DocgenError, _Artefacts, _args, crosscheck_rows

EMU_PROCESS = "tools/data/emu-process.json"
EMU_NR = "tools/data/emu-nr.json"
EMU_BODE = "tools/data/emu-bode-crosscheck.json"

#: `te-run`/`te-first-packet`'s names of the two ways the emulator ran → the artefact's labels.
EMULATORS = {"script": "package script", "binary": "binary"}
#: `te-kill`'s names → (the process killed, the time rendered).
KILLS = {"back-exit": ("back end", "front_end_exit_s"), "back-clean": ("back end", "nothing_left_s"),
         "front-clean": ("front end", "nothing_left_s")}


def _num(x: float) -> str:
    """Two significant digits, no exponent: 0.0017, 0.16, 36, 480."""
    if x == 0:
        return "0"
    s = f"{x:.2g}"
    if "e" in s:
        s = f"{float(s):f}".rstrip("0").rstrip(".")
    if float(s) >= 100:
        s = f"{x:.0f}"
    return s


def _count_word(n: int, noun: str) -> str:
    """``one kill``, ``three kills``, ``12 kills``."""
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    return f"{words[n] if n < len(words) else n} {noun}{'' if n == 1 else 's'}"


def _span(xs: list, unit: str) -> str:
    """`lo–hi unit`, or one value when they are equal as printed."""
    lo, hi = _num(min(xs)), _num(max(xs))
    return f"{lo} {unit}" if lo == hi else f"{lo}–{hi} {unit}"


def r_const(a: _Artefacts, args: list[str]) -> str:
    """``te-const MODULE.NAME [pct]``: a number constant of a cellshare module (a float too,
    which ``code-const`` refuses), as a percentage with ``pct`` (0.05 → ``5 %``)."""
    ref, *how = _args(args, 1, "te-const", "te-const MODULE.NAME [pct]")
    if how not in ([], ["pct"]):
        raise DocgenError(f"renderer 'te-const': expected `te-const MODULE.NAME [pct]`, got {' '.join(args)}")
    mod, _, name = ref.rpartition(".")
    try:
        v = getattr(importlib.import_module(f"cellshare.{mod}"), name)
    except (ImportError, AttributeError, ValueError):
        raise DocgenError(f"renderer 'te-const': cellshare.{mod} has no constant {name!r}") from None
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise DocgenError(f"renderer 'te-const': cellshare.{ref} is {v!r}, expected a number")
    return f"{round(v * 100, 6):g} %" if how else f"{v:g}"


def r_test(a: _Artefacts, args: list[str]) -> str:
    """``te-test FILE NAME``: the name of a test function of ``tests/FILE``, as code; an error
    when the file has no such test (a page names the test that asserts what it says)."""
    file, name = _args(args, 2, "te-test", "te-test FILE NAME")[:2]
    path = a.root / "tests" / file
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise DocgenError(f"renderer 'te-test': tests/{file} not found") from None
    if not re.search(rf"^def {re.escape(name)}\(", text, re.M):
        raise DocgenError(f"renderer 'te-test': tests/{file} has no test {name!r}")
    return f"`{name}`"


def _process(a: _Artefacts) -> dict:
    return a.load(EMU_PROCESS)


def _run(a: _Artefacts, which: str, name: str) -> dict:
    if which not in EMULATORS:
        raise DocgenError(f"renderer {name!r}: expected script or binary, got {which!r}")
    for r in _process(a)["runs"]:
        if r["emulator"] == EMULATORS[which]:
            return r
    raise DocgenError(f"{EMU_PROCESS} has no run through the {EMULATORS[which]}")


def r_machine(a: _Artefacts, args: list[str]) -> str:
    """``te-machine``: where and how ``tools/data/emu-process.json`` was measured (inline)."""
    d = _process(a)
    m = d["machine"]
    return (f"{m['cores']} cores ({m['cpu']}), {m['system']}, one-minute load {m['load_1min_before']:g} before and "
            f"{m['load_1min_after']:g} after; `{d['generated_by'].replace('FILE', EMU_PROCESS)}`")


def r_start_cost(a: _Artefacts, args: list[str]) -> str:
    """``te-start-cost script|binary``: the range of the traffic tool's timed starts one way, ms."""
    which = _args(args, 1, "te-start-cost", "te-start-cost script|binary")[0]
    if which not in EMULATORS:
        raise DocgenError(f"renderer 'te-start-cost': expected script or binary, got {which!r}")
    times = _process(a)["start_cost"][which]
    return _span([t * 1000 for t in times], "ms")


def r_first_packet(a: _Artefacts, args: list[str]) -> str:
    """``te-first-packet script|binary|traces``: how long after its start time a flow's first
    packet left the server, ms: over the two-UE run's flows through the script or the binary,
    or over the trace runs (the binary)."""
    which = _args(args, 1, "te-first-packet", "te-first-packet script|binary|traces")[0]
    if which not in (*EMULATORS, "traces"):
        raise DocgenError(f"renderer 'te-first-packet': expected script, binary or traces, got {which!r}")
    if which == "traces":
        xs = [t["first_packet_s"] for t in _process(a)["trace_starts"]]
    else:
        xs = [f["first_packet_s"] - f["start_s"] for f in _run(a, which, "te-first-packet")["flows"]]
    return _span([x * 1000 for x in xs], "ms")


def r_run(a: _Artefacts, args: list[str]) -> str:
    """``te-run script|binary``: the two-UE run one way, as a clause: its length, whether it
    kept real time, the flows' rates, PRB utilization, idle RTTs against the modelled base."""
    r = _run(a, _args(args, 1, "te-run", "te-run script|binary")[0], "te-run")
    rates = [f"{f['throughput_mbps']:.2f}" for f in r["flows"]]
    n = _count_word(len(rates), "CUBIC flow")
    flows = f"{n} at {rates[0]} Mbps each" if len(set(rates)) == 1 else f"{n} at {' and '.join(rates)} Mbps"
    kept = "in real time" if r["kept_real_time"] else "behind real time"
    idle = "/".join(f"{x:.1f}" for x in r["idle_rtt_median_ms"])
    return (f"ran its {r['duration_s']:g} s {kept}, {flows}, PRB utilization {r['prb_utilization'] * 100:.1f} %, "
            f"idle RTT medians {idle} ms against the modelled {r['base_rtt_ms']:g} ms")


def r_idle_rtt(a: _Artefacts, args: list[str]) -> str:
    """``te-idle-rtt [rto]``: the idle RTT's median per UE over the two-UE runs of
    ``tools/data/emu-process.json`` (the handshake's RTT on that cell), ms; with ``rto`` the
    receiver's RTO Linux derives from it, ``RTT + max(2·RTT, 200 ms)`` (inline)."""
    how = args[0] if args else ""
    if args not in ([], ["rto"]):
        raise DocgenError(f"renderer 'te-idle-rtt': expected `te-idle-rtt [rto]`, got {' '.join(args)}")
    xs = [x for r in _process(a)["runs"] for x in r["idle_rtt_median_ms"]]
    if how == "rto":
        lo, hi = (f"{x + max(2 * x, 200.0):.0f}" for x in (min(xs), max(xs)))
        return f"{lo} ms" if lo == hi else f"{lo}–{hi} ms"
    lo, hi = f"{min(xs):.1f}", f"{max(xs):.1f}"
    return f"{lo} ms" if lo == hi else f"{lo}–{hi} ms"


def r_kill(a: _Artefacts, args: list[str]) -> str:
    """``te-kill back-exit|back-clean|front-clean``: seconds from the SIGKILL to the front end's
    exit (the back end killed) or to nothing of the run being left, over the kills (inline)."""
    which = _args(args, 1, "te-kill", "te-kill back-exit|back-clean|front-clean")[0]
    if which not in KILLS:
        raise DocgenError(f"renderer 'te-kill': expected one of {', '.join(KILLS)}, got {which!r}")
    side, key = KILLS[which]
    xs = [k[key] for k in _process(a)["kills"] if k["killed"] == side]
    if not xs:
        raise DocgenError(f"{EMU_PROCESS} has no kill of the {side}")
    lo, hi = f"{min(xs):.2f}", f"{max(xs):.2f}"
    return f"{lo if lo == hi else f'{lo}–{hi}'} s after the kill ({_count_word(len(xs), 'kill')})"


def r_clock_start(a: _Artefacts, args: list[str]) -> str:
    """``te-clock-start``: per trace, how far into it the cell was at the scenario's second 0
    (``clock_start_tti``, ms), as a list (inline)."""
    ts = _process(a)["trace_starts"]
    return ", ".join(f"{t['clock_start_tti']} ms on {t['trace'].removesuffix('.down')}" for t in ts)


def r_crosscheck(a: _Artefacts, args: list[str]) -> str:
    """``te-crosscheck``: the two-UE scenario's ``cellshare crosscheck``, one row per flow, and
    its verdict (block)."""
    c = _process(a)["crosscheck"]
    lines = crosscheck_rows(c, rtt_decimals=0)
    verdict = "within every tolerance" if c["ok"] else "outside a tolerance"
    lines += ["", f"`{c['command']}` (one-minute load {c['load_1min_before']:g}): {verdict}; the emulator kept "
                  f"real time: {'yes' if c['emu_kept_real_time'] else 'no'}."]
    return "\n".join(lines)


def r_bode(a: _Artefacts, args: list[str]) -> str:
    """``te-bode``: BoDe against tail drop in the simulator and the emulator, a row per queue,
    then each side's BoDe throughput over its tail-drop throughput and the command (block)."""
    d = a.load(EMU_BODE)
    runs = {r["aqm"]: r for r in d["runs"]}
    if set(runs) != {"tail_drop", "bode"} or any(len(r["flows"]) != 1 for r in runs.values()):
        raise DocgenError(f"{EMU_BODE}: expected one flow in each of a tail_drop and a bode run, got "
                          + ", ".join(f"{k} ({len(r['flows'])} flows)" for k, r in runs.items()))
    rpd = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
    lines = ["| queue | Mbps sim / emu | drops sim / emu | retx per drop sim / emu | timeouts sim / emu "
             "| RTT p50 ms sim / emu |", "|---|---|---|---|---|---|"]
    for key in ("tail_drop", "bode"):
        r = runs[key]
        f = r["flows"][0]
        label = "tail drop" if key == "tail_drop" else f"BoDe, `bounded_delay_ms = {r['cell_aqm']['bounded_delay_ms']:g}`"
        lines.append(f"| {label} | {f['sim_mbps']:.2f} / {f['emu_mbps']:.2f} | {f['sim_drops']} / {f['emu_drops']} "
                     f"| {rpd(f['sim_retx_per_drop'])} / {rpd(f['emu_retx_per_drop'])} "
                     f"| {f['sim_timeouts']} / {f['emu_timeouts']} | {f['sim_rtt_p50_ms']:.0f} / {f['emu_rtt_p50_ms']:.0f} |")
    tail, bode = runs["tail_drop"]["flows"][0], runs["bode"]["flows"][0]
    m = d["machine"]
    lines += ["", f"BoDe's throughput over tail drop's: the simulator's {bode['sim_mbps'] / tail['sim_mbps']:.2f}, "
                  f"Linux's {bode['emu_mbps'] / tail['emu_mbps']:.2f}. {d['duration_s']:g} s per run, "
                  f"{m['cores']} cores ({m['cpu']}), {m['system']}, one-minute load {m['load_1min_before']:g} before; "
                  f"`{d['generated_by'].replace('FILE', EMU_BODE)}`."]
    return "\n".join(lines)


def r_nr_wait(a: _Artefacts, args: list[str]) -> str:
    """``te-nr-wait``: the model's mean wait for the next slot plus one slot on air, 1.5 slots,
    for each NR slot length of ``tools/data/emu-nr.json`` (inline)."""
    slots = []
    for r in a.load(EMU_NR)["runs"]:
        if r["rat"] == "nr" and r["slot_ms"] not in slots:
            slots.append(r["slot_ms"])
    if not slots:
        raise DocgenError(f"{EMU_NR} has no NR run")
    return ", ".join(f"{1.5 * s:g}" for s in sorted(slots, reverse=True)) + " ms"



def r_start_range(a: _Artefacts, args: list[str]) -> str:
    """``te-start-range TRACE CC``: the lowest and highest median RTT the simulator gives one
    case over the start offsets of ``tools/data/crosscheck-start-sensitivity.json``, ``357–1179 ms``
    (inline)."""
    trace, cc = _args(args, 2, "te-start-range", "te-start-range TRACE CC")[:2]
    for c in a.load(START_SENSITIVITY)["cases"]:
        if c["trace"] == trace and c["cc"] == cc:
            r = c["rtt_p50_ms"]
            return f"{r['min']:.0f}–{r['max']:.0f} ms"
    raise DocgenError(f"renderer 'te-start-range': {START_SENSITIVITY} has no case {trace} / {cc}")


RENDERERS = {
    "te-start-range": (r_start_range, False),
    "te-const": (r_const, False),
    "te-test": (r_test, False),
    "te-machine": (r_machine, False),
    "te-start-cost": (r_start_cost, False),
    "te-first-packet": (r_first_packet, False),
    "te-run": (r_run, False),
    "te-kill": (r_kill, False),
    "te-idle-rtt": (r_idle_rtt, False),
    "te-clock-start": (r_clock_start, False),
    "te-crosscheck": (r_crosscheck, True),
    "te-nr-wait": (r_nr_wait, False),
    "te-bode": (r_bode, True),
}
