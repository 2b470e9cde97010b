"""Driving the real-time emulator (`cellshare-emu`, Rust) from Python: locate or build the
binary, run a scenario, compare it with the simulator (`crosscheck`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

import tomli_w

from ._emu import is_package_entry, package_entry, runnable
from .traces import PREFIX as BUILTIN

REPO = Path(__file__).resolve().parents[2]

#: Crosscheck tolerances (docs/tcp.md): per-flow throughput within 5 %, retransmitted
#: segments per drop within 25 %, retransmission timeouts within 1 per minute (and at least 1),
#: median RTT (the same statistic on both sides, see `sampled_rtt_ms`) within 10 %.
THROUGHPUT_TOLERANCE = 0.05
RETX_PER_DROP_TOLERANCE = 0.25
TIMEOUTS_PER_MINUTE_TOLERANCE = 1.0
RTT_TOLERANCE = 0.10
#: The emulator's traffic tool samples the kernel's smoothed RTT (TCP_INFO) every 10 ms while
#: data is unacknowledged; the simulator is sampled the same way (`simulation.trace_interval_ms`).
RTT_SAMPLE_INTERVAL_MS = 10


class EmulatorError(RuntimeError):
    """The emulator could not be found, built or run; `code` is the exit code to use."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


# CPU steal (% of all CPU time over a run) from which a run that fell behind real time is put
# down to the host's hypervisor rather than to something on this machine.
HOST_STEAL_FLOOR_PERCENT = 0.5


def _installed() -> list[Path]:
    """Binaries named by the user: `$CELLSHARE_EMU_BIN`, then `cellshare-emu` on the PATH
    unless it is this package's own entry point (see `package_entry`)."""
    out = []
    env = os.environ.get("CELLSHARE_EMU_BIN")
    if env:
        out.append(Path(env))
    which = shutil.which("cellshare-emu")
    if which and not is_package_entry(Path(which)):
        out.append(Path(which))
    return out


def _built() -> list[Path]:
    """Where `cargo build --release -p cellshare-emu` puts the binary."""
    tdir = os.environ.get("CARGO_TARGET_DIR")
    return ([Path(tdir) / "release" / "cellshare-emu"] if tdir else []) + [REPO / "target" / "release" / "cellshare-emu"]


def emulator_binary(build: bool = True) -> Path:
    """The `cellshare-emu` to run, in this order: a user's own (`$CELLSHARE_EMU_BIN`, or a
    `cellshare-emu` on the PATH that is not this package's), as it is; in a source checkout
    with cargo, the source tree's, brought up to date first with `cargo build --release -p
    cellshare-emu` (which does nothing when it is current: an old build would run old code
    beside a new simulator, as it did here once); else the installed package's entry point
    (`package_entry`: the emulator built into the extension module, as current as the
    simulator it was installed with)."""
    for c in _installed():
        if runnable(c):
            return c
    source = (REPO / "Cargo.toml").exists() and shutil.which("cargo") is not None
    if build and source:
        p = subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "cellshare-emu"], cwd=REPO)
        if p.returncode != 0:
            raise EmulatorError(f"building cellshare-emu failed (exit {p.returncode})")
    for c in _built():
        if runnable(c):
            return c
    entry = package_entry()
    if entry is not None:
        return entry
    if not build:
        raise EmulatorError("cellshare-emu is not built: run `cargo build --release -p cellshare-emu`")
    if not source:
        raise EmulatorError("cellshare-emu is not installed (no `cellshare-emu` entry point beside this Python) and "
                            "there is no source tree with cargo to build it; reinstall cellshare or set "
                            "CELLSHARE_EMU_BIN to the binary")
    raise EmulatorError("cellshare-emu was built but not found; set CELLSHARE_EMU_BIN")


def missing_requirements() -> list[str]:
    """What this machine lacks to run the emulator (empty when all is there)."""
    miss = []
    if os.geteuid() != 0:
        miss.append("root (the emulator creates network namespaces and TUN devices)")
    if shutil.which("ip") is None:
        miss.append("iproute2 (`ip`)")
    if not Path("/dev/net/tun").exists():
        miss.append("/dev/net/tun (kernel TUN support)")
    return miss


#: Exit code of `cellshare emulate` (and the code of its EmulatorError) when the emulator
#: process was killed by a signal (its namespaces are removed first, and the message says so).
KILLED_EXIT = 1


def _run_namespaces(pid: int) -> list[str]:
    """The namespaces of the emulator run of process `pid` (`csemu-<pid>-...`)."""
    try:
        return sorted(n for n in os.listdir("/run/netns") if n.startswith(f"csemu-{pid}-"))
    except OSError:
        return []


def _read_to_end(p: subprocess.Popen) -> tuple[str, str]:
    """Reads `p`'s standard output and error to their ends (standard error from a helper
    thread, so neither pipe can fill up and stall the emulator) and closes them."""
    import threading

    err: list[str] = []
    t = threading.Thread(target=lambda: err.append(p.stderr.read()), daemon=True)
    t.start()
    out = p.stdout.read()
    t.join()
    p.stdout.close()
    p.stderr.close()
    return out, err[0] if err else ""


def _exit_status_unreaped(p: subprocess.Popen) -> Optional[int]:
    """Waits for `p` to end without reaping it (`waitid(WNOWAIT)`) and returns its exit code as
    Popen gives it (-N: killed by signal N); None when it cannot be read that way (then the
    caller reaps it as usual). While `p` is a zombie its pid names it and nothing else."""
    try:
        info = os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    except (ChildProcessError, AttributeError, OSError):
        return None
    if info is None:
        return None
    return -info.si_status if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED) else info.si_status


def _remove_run_namespaces(exe: Path, pid: int) -> tuple[list[str], list[str]]:
    """Removes the namespaces of ended emulator process `pid` and the processes in them
    (`cellshare-emu cleanup --pid`): what `kill -9` of the emulator leaves. Returns the
    namespaces it had and those still there after."""
    had = _run_namespaces(pid)
    if had:
        try:
            subprocess.run([str(exe), "cleanup", "--pid", str(pid)], capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            pass  # what is left is named in the caller's message
    return had, _run_namespaces(pid)


def _notes_and_error(err: str) -> tuple[list[str], str]:
    """Splits the emulator's standard error into its notes (lines `cellshare-emu: ...`, e.g. the
    clean-up of an earlier killed run's namespaces) and its error (the `error: ...` lines, else
    the rest), so a run's error is its own cause and never another run's clean-up."""
    notes, errors, other = [], [], []
    for line in err.splitlines():
        if line.startswith("cellshare-emu: "):
            notes.append(line.removeprefix("cellshare-emu: "))
        elif line.startswith("error: "):
            errors.append(line.removeprefix("error: "))
        elif line.strip():
            other.append(line.strip())
    return notes, "; ".join(errors or other[:1])


def run_emulator(scenario: Path, folder: Path, duration: Optional[float] = None, exe: Optional[Path] = None) -> dict:
    """Runs `cellshare-emu run SCENARIO --out FOLDER` (`folder` new or empty; `exe` the
    emulator, else `emulator_binary()`) and returns summary.json as a dict. The emulator runs
    in a session of its own, so a terminal's Ctrl-C reaches this process only, which forwards
    SIGINT/SIGTERM/SIGHUP to it once: the emulator stops cleanly (namespaces and processes
    removed, a summary covering the time actually run, ``"interrupted": true``).

    Neither process outlives the other with anything of the run: if this process
    dies, even by `kill -9`, the emulator gets its parent-death signal (`--parent-pid`), stops,
    and removes its namespaces, its processes and FOLDER. If the emulator is killed, this process
    removes the namespaces and processes it left while the dead emulator is still its unreaped
    child (so its pid cannot have been reused), and raises EmulatorError("the emulator ... was
    killed by SIGKILL; its namespaces and the processes in them were removed",
    code=KILLED_EXIT). The emulator's notes (e.g. the clean-up of an earlier killed run) are
    printed to standard error as `note: ...` lines, apart from the error."""
    import signal
    import threading

    miss = missing_requirements()
    if miss:
        raise EmulatorError("the emulator cannot run here; missing: " + "; ".join(miss))
    exe = exe or emulator_binary()
    cmd = [str(exe), "run", str(scenario), "--out", str(folder), "--parent-pid", str(os.getpid())]
    if duration is not None:
        cmd += ["--duration", str(duration)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    # Set before `p` is reaped: a signal after that must not be sent to its pid (reusable then).
    reaped: list[bool] = []
    forwarded: list[int] = []
    old = {}
    if threading.current_thread() is threading.main_thread():
        def forward(sig, _frame):
            # os.kill, not p.send_signal: that polls, which would reap `p` before its clean-up.
            if not forwarded and not reaped:
                try:
                    os.kill(p.pid, sig)
                except ProcessLookupError:
                    pass
            forwarded.append(sig)

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            old[sig] = signal.signal(sig, forward)
    try:
        _, err = _read_to_end(p)
        code = _exit_status_unreaped(p)
        if code is None:  # not readable unreaped: clean up after reaping (a pid reuse is unlikely)
            reaped.append(True)
            code = p.wait()
        had, left = _remove_run_namespaces(exe, p.pid) if code != 0 else ([], [])
        reaped.append(True)
        p.wait()
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
    code = p.returncode
    notes, error = _notes_and_error(err)
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    what = f"the emulator (cellshare-emu, pid {p.pid})"
    if left:
        after = (f"; its namespaces {', '.join(left)} could not be removed (run `cellshare emulate --cleanup`)")
    elif had:
        after = "; its namespaces and the processes in them were removed"
    else:
        after = ""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        raise EmulatorError(f"{what} was killed by {name}" + (after or "; it had made no namespace yet"),
                            code=KILLED_EXIT)
    if code != 0:
        raise EmulatorError((error or f"cellshare-emu exited with {code}") + after, code=code)
    return json.loads((folder / "summary.json").read_text())


def emulate(scenario: Path, out: Path, duration: Optional[float] = None, *, force: bool = False) -> dict:
    """Runs `scenario` in the emulator, writing `out/` (by the output-folder rules of
    :mod:`cellshare.output`: `out` new, empty, or a cellshare output replaced with `force`);
    returns summary.json as a dict."""
    from .output import atomic_dir

    miss = missing_requirements()
    if miss:
        raise EmulatorError("the emulator cannot run here; missing: " + "; ".join(miss))
    # Found (or built: minutes) before the temporary folder exists, so that a front end killed
    # meanwhile leaves no folder; from the emulator's start on, it removes the folder if this
    # process dies (`run_emulator`).
    exe = emulator_binary()
    with atomic_dir(out, kind="emulate", force=force) as tmp:
        summary = run_emulator(scenario, tmp, duration, exe=exe)
    return summary


def cleanup() -> str:
    """`cellshare-emu cleanup`: removes the namespaces of killed emulator runs and the
    processes still inside them; returns what it says."""
    if os.geteuid() != 0:
        raise EmulatorError("cleaning up the emulator's namespaces needs root")
    p = subprocess.run([str(emulator_binary()), "cleanup"], capture_output=True, text=True)
    if p.returncode != 0:
        raise EmulatorError(p.stderr.strip().removeprefix("error: ") or f"cellshare-emu exited with {p.returncode}")
    return p.stdout.strip()


def simulator_text(scenario_text: str) -> str:
    """The scenario without its `[emulator]` table, for the simulator, with the flows' smoothed
    RTT sampled every 10 ms (`RTT_SAMPLE_INTERVAL_MS`) as the emulator's traffic tool does."""
    from .scenario_files import toml_loads

    doc = toml_loads(scenario_text)
    doc.pop("emulator", None)
    doc.setdefault("simulation", {})["trace_interval_ms"] = RTT_SAMPLE_INTERVAL_MS
    return tomli_w.dumps(doc)


def _trace_channels(doc: dict):
    """`(UE index, key, channel table, downlink?)` for each trace channel of a parsed
    scenario: every UE's downlink `channel` and its uplink's `uplink.channel`."""
    for i, ue in enumerate(doc.get("ues", [])):
        for key, ch, down in ((f"ues[{i}].channel", ue.get("channel"), True),
                              (f"ues[{i}].uplink.channel", (ue.get("uplink") or {}).get("channel"), False)):
            if isinstance(ch, dict) and ch.get("kind") == "trace":
                yield i, key, ch, down


def variant_text(scenario_text: str, base: Path, trace: Optional[Path] = None, cc: Optional[str] = None) -> str:
    """The scenario with every trace channel reading `trace` and every TCP flow using
    congestion control `cc` (either may be None: unchanged), trace paths made absolute
    (relative ones are relative to `base`, the scenario's folder; a shipped trace,
    ``builtin:NAME``, stays as it is), so the variant can be written anywhere. Raises ValueError naming what is missing."""
    doc = tomllib.loads(scenario_text)
    n_trace = n_tcp = 0
    for _, _, ch, down in _trace_channels(doc):
        if "file" in ch:
            if trace is not None and down:
                ch["file"] = str(Path(trace).resolve())
                n_trace += 1
            elif not str(ch["file"]).startswith(BUILTIN):  # a shipped trace is found by name anywhere
                ch["file"] = str((base / ch["file"]).resolve())
    for f in doc.get("flows", []):
        t = f.get("transport") or {}
        if cc is not None and t.get("kind") == "tcp":
            t.setdefault("cc", {})["kind"] = cc
            n_tcp += 1
    if trace is not None and n_trace == 0:
        raise ValueError(f"--trace {trace}: the scenario has no UE with a trace channel (ues[i].channel.kind = \"trace\")")
    if cc is not None and n_tcp == 0:
        raise ValueError(f"--cc {cc}: the scenario has no TCP flow (flows[i].transport.kind = \"tcp\")")
    return tomli_w.dumps(doc)


def shifted_text(scenario_text: str, ms: int) -> str:
    """The scenario with every trace channel (downlink and uplink) reading its trace `ms`
    milliseconds later (`offset_ms` + ms). Raises ValueError when there is no trace channel or
    one draws its offset at random (`random_offset`), naming it."""
    from .scenario_files import toml_loads

    doc = toml_loads(scenario_text)
    n = 0
    for _, where, ch, _ in _trace_channels(doc):
        if ch.get("random_offset"):
            raise ValueError(f"--offset-step: {where}.random_offset = true (expected a trace read from a "
                             "given offset_ms)")
        ch["offset_ms"] = int(ch.get("offset_ms", 0)) + int(ms)
        n += 1
    if n == 0:
        raise ValueError("--offset-step: the scenario has no UE with a trace channel (ues[i].channel.kind = \"trace\")")
    return tomli_w.dumps(doc)


def aligned_simulator_text(sim_text: str, emu_summary: dict) -> tuple[str, dict]:
    """The simulator's scenario (`simulator_text`) set up as one emulator run went: its trace
    channels read the trace from where the emulator's cell was when that run's clock started,
    and each flow starts when the emulator's sender connected. Returns the text and what was
    aligned (`clock_start_tti`, `trace_offset_ms` per UE, `flow_start_s` per flow id, and
    `not_aligned`: what could not be).

    Why: the emulator's cell runs from the engine's start, through its 200 ms warm-up and the
    idle-RTT probes, so at the scenario's second 0 a trace channel is `clock_start_tti`
    milliseconds in (summary.json's `clock_start_tti`), where the simulator's is at its first
    millisecond; and the traffic tool connects a few milliseconds after its flow's start time
    (a process is spawned; `flows[i].first_packet_s`, when its SYN left the server). Both are
    set-up differences, not model ones: a trace's first seconds decide where the handshake and
    the first RTT samples fall (T-Mobile LTE delivers nothing from 8 to 131 ms), and BBR takes
    its RTprop from the handshake (docs/tcp.md). A run that did not record them (an emulator
    before they were recorded) is compared as it is and `not_aligned` says so. Radio channels'
    fading and the random draws (block errors) are not shifted: the two sides draw from their
    own generators anyway."""
    from .scenario_files import toml_loads

    doc = toml_loads(sim_text)
    info: dict = {"clock_start_tti": emu_summary.get("clock_start_tti"), "trace_offset_ms": {}, "flow_start_s": {},
                  "not_aligned": []}
    k0 = info["clock_start_tti"]
    if k0 is None:
        info["not_aligned"].append("the emulator run recorded no clock_start_tti (trace channels start at 0)")
    for i, where, ch, down in _trace_channels(doc):
        if not down or k0 is None:
            continue
        if ch.get("random_offset"):
            info["not_aligned"].append(f"{where}.random_offset = true (its trace is not shifted)")
        else:
            ch["offset_ms"] = int(ch.get("offset_ms", 0)) + int(k0)
            info["trace_offset_ms"][i] = ch["offset_ms"]
    for i, ue in enumerate(doc.get("ues", [])):
        if (ue.get("channel") or {}).get("kind") == "radio":
            info["not_aligned"].append(f"ues[{i}].channel is radio: its fading is not shifted")
    started = {f.get("id"): f.get("first_packet_s") for f in emu_summary.get("flows", [])}
    if any(f.get("app") for f in doc.get("flows", [])):
        info["not_aligned"].append("the scenario has app flows: flow start times are not moved")
        return tomli_w.dumps(doc), info
    # One entry per flow (a `ues = "all"` or list entry is one flow per UE, named as the
    # simulator names them), so that entry i is flow id i and can start on its own.
    n_ues = sum(int(u.get("count", 1)) for u in doc.get("ues", []))
    flows = []
    for f in doc.get("flows", []):
        sel = f.get("ues")
        if "ue" in f or sel is None:
            flows.append(f)
            continue
        targets = list(range(n_ues)) if sel == "all" else list(sel)
        for k, u in enumerate(targets):
            g = {key: v for key, v in f.items() if key != "ues"}
            g["ue"] = u
            if f.get("name") and len(targets) > 1:
                g["name"] = f"{f['name']}-{k}"
            flows.append(g)
    if "flows" in doc:
        doc["flows"] = flows
    dur = float(doc.get("simulation", {}).get("duration_s", 0.0))
    for i, f in enumerate(flows):
        t = started.get(i)
        if t is None:
            info["not_aligned"].append(f"flows[{i}]: the emulator run recorded no first_packet_s (starts at start_s)")
            continue
        # Microseconds: the simulator's clock is integer, the emulator's record is ns.
        start = round(max(float(t), float(f.get("start_s", 0.0))), 6)
        stop = f.get("stop_s")
        if stop is not None and not start < float(stop):
            info["not_aligned"].append(f"flows[{i}]: connected at {start} s, not before its stop_s = {stop}")
            continue
        end = min(float(stop), dur) if stop is not None else dur
        info.setdefault("scenario_life_s", {})[i] = end - float(f.get("start_s", 0.0))
        f["start_s"] = start
        info["flow_start_s"][i] = start
    return tomli_w.dumps(doc), info


def over_scenario_life(sim_summary: dict, info: dict) -> dict:
    """`sim_summary` with the throughput of each flow `aligned_simulator_text` started later
    taken over the flow's life as the scenario gives it, as the emulator's summary does (bytes
    delivered over stop − the scenario's start_s): the simulator's own figure divides by the
    time from its (moved) start."""
    out = json.loads(json.dumps(sim_summary))
    for f in out.get("flows", []):
        life = (info.get("scenario_life_s") or {}).get(f.get("id"))
        if life is None or f.get("fct_s") is not None:
            continue
        if life > 0:
            f["throughput_mbps"] = f["bytes_delivered"] * 8.0 / life / 1e6
    return out


def average_sim_summaries(runs: list) -> dict:
    """One simulator summary whose flows carry the mean of `runs` (the simulator aligned to
    each of several emulator runs: `aligned_simulator_text`) for what `compare` reads, and per
    flow `runs`, each run's values; the first run's otherwise."""
    if len(runs) == 1:
        return runs[0]
    out = json.loads(json.dumps(runs[0]))
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    for i, f in enumerate(out["flows"]):
        per = [r["flows"][i] for r in runs]
        f["runs"] = [{k: p[k] for k in ("throughput_mbps", "retransmits", "drops", "timeouts")} for p in per]
        for k in ("throughput_mbps", "retransmits", "drops", "timeouts"):
            f[k] = mean([p[k] for p in per])
    out["prb_utilization"] = mean([r.get("prb_utilization") or 0.0 for r in runs])
    out["repeats"] = len(runs)
    return out


def average_rtts(per_run: list) -> dict:
    """The mean over runs of each flow's `sampled_rtt_ms` (the emulator's side is averaged the
    same way: the mean of each run's median)."""
    ids = set().union(*[set(r) for r in per_run]) if per_run else set()
    out = {}
    for fid in ids:
        vals = [r[fid] for r in per_run if r.get(fid) is not None]
        out[fid] = sum(vals) / len(vals) if vals else None
    return out


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-9)


def _upper_median(xs: list) -> Optional[float]:
    """The traffic tool's median: the element at index len/2 of the sorted samples."""
    if not xs:
        return None
    xs = sorted(xs)
    return xs[len(xs) // 2]


def sampled_rtt_ms(flow_trace) -> dict:
    """Per flow id, the median of the sender's smoothed RTT sampled every
    `simulation.trace_interval_ms` (ms), leaving out samples before the first RTT
    measurement: the statistic the emulator reports (TCP_INFO every 10 ms)."""
    cols = flow_trace.to_pydict()
    per: dict = {}
    for fid, srtt in zip(cols["flow"], cols["srtt_ms"]):
        if srtt and srtt > 0:
            per.setdefault(fid, []).append(srtt)
    return {fid: _upper_median(v) for fid, v in per.items()}


def average_summaries(runs: list) -> dict:
    """One emulator summary whose flows carry the mean of `runs` (repeated emulator runs of
    one scenario: real TCP is not deterministic) for what `compare` reads — throughput,
    drops, retransmissions, timeouts, median RTT — and, per flow, `runs`: those values of
    each run. The rest (real-time record, utilization) is the first run's, with `realtime`
    kept only if every run kept it."""
    if len(runs) == 1:
        return runs[0]
    out = json.loads(json.dumps(runs[0]))
    mean = lambda xs: sum(xs) / len(xs) if xs and all(x is not None for x in xs) else None  # noqa: E731
    for i, f in enumerate(out["flows"]):
        per = [r["flows"][i] for r in runs]
        snd = [p.get("sender") or {} for p in per]
        f["runs"] = [{"throughput_mbps": p["throughput_mbps"], "drops": p["drops"], "retrans": s.get("retrans"),
                      "rto": s.get("rto"), "rtt_ms": s.get("rtt_ms")} for p, s in zip(per, snd)]
        f["throughput_mbps"] = mean([p["throughput_mbps"] for p in per])
        f["drops"] = mean([p["drops"] for p in per])
        f["sender"] = dict(f.get("sender") or {}, retrans=mean([s.get("retrans") for s in snd]),
                           rto=mean([s.get("rto") for s in snd]), rtt_ms=mean([s.get("rtt_ms") for s in snd]))
    out["realtime"] = dict(out.get("realtime") or {},
                           kept=all((r.get("realtime") or {}).get("kept") is not False for r in runs))
    out["repeats"] = len(runs)
    return out


def _ratio(retx: float, drops: float) -> Optional[float]:
    return retx / drops if drops > 0 else None


def compare(sim: dict, emu: dict, sim_rtt: Optional[dict] = None) -> dict:
    """Per-flow throughput, retransmitted segments per drop, retransmission timeouts and median
    RTT of the simulator's and the emulator's summaries (`sim_rtt`: `sampled_rtt_ms` of the
    simulator's run; without it the simulator's per-ACK median is used). The emulator's RTT is
    the median of TCP_INFO samples every 10 ms; the simulator is the reference of the relative
    differences."""
    minutes = max(float(sim.get("duration_s") or emu.get("duration_s") or 60.0), 1e-9) / 60.0
    timeout_slack = max(1.0, TIMEOUTS_PER_MINUTE_TOLERANCE * minutes)
    rows = []
    for sf, ef in zip(sim["flows"], emu["flows"]):
        snd = ef.get("sender") or {}
        if sim_rtt is not None:
            s_rtt = sim_rtt.get(sf["id"])
        else:
            s_rtt = (sf.get("rtt_ms") or {}).get("p50")
        e_rtt = snd.get("rtt_ms")
        s_retx, e_retx = sf["retransmits"], snd.get("retrans")
        s_drops, e_drops = sf["drops"], ef["drops"]
        s_rto, e_rto = sf["timeouts"], snd.get("rto")
        s_rpd = _ratio(s_retx, s_drops)
        e_rpd = None if e_retx is None else _ratio(e_retx, e_drops)
        rows.append({
            "name": ef["name"],
            "ue": ef["ue"],
            "emu_runs": ef.get("runs"),
            "sim_mbps": sf["throughput_mbps"],
            "emu_mbps": ef["throughput_mbps"],
            "throughput_rel_diff": _rel(ef["throughput_mbps"], sf["throughput_mbps"]),
            "sim_retransmits": s_retx,
            "emu_retransmits": e_retx,
            "sim_drops": s_drops,
            "emu_drops": e_drops,
            "sim_retx_per_drop": s_rpd,
            "emu_retx_per_drop": e_rpd,
            # Undefined when a side dropped nothing (then not judged).
            "retx_per_drop_rel_diff": None if s_rpd is None or e_rpd is None else _rel(e_rpd, s_rpd),
            "sim_timeouts": s_rto,
            "emu_timeouts": e_rto,
            "timeouts_per_minute_diff": None if e_rto is None else abs(e_rto - s_rto) / minutes,
            "timeouts_within": None if e_rto is None else abs(e_rto - s_rto) <= timeout_slack,
            "sim_rtt_p50_ms": s_rtt,
            "emu_rtt_p50_ms": e_rtt,
            "rtt_rel_diff": None if s_rtt is None or e_rtt is None else _rel(e_rtt, s_rtt),
        })
    tput_ok = bool(rows) and all(r["throughput_rel_diff"] <= THROUGHPUT_TOLERANCE for r in rows)
    rtt_ok = bool(rows) and all(r["rtt_rel_diff"] is not None and r["rtt_rel_diff"] <= RTT_TOLERANCE for r in rows)
    rpd_ok = all(r["retx_per_drop_rel_diff"] is None or r["retx_per_drop_rel_diff"] <= RETX_PER_DROP_TOLERANCE
                 for r in rows)
    rto_ok = bool(rows) and all(r["timeouts_within"] is True for r in rows)
    same = len(sim["flows"]) == len(emu["flows"])
    rt = emu.get("realtime") or {}
    return {
        "flows": rows,
        "throughput_tolerance": THROUGHPUT_TOLERANCE,
        "retx_per_drop_tolerance": RETX_PER_DROP_TOLERANCE,
        "timeouts_per_minute_tolerance": TIMEOUTS_PER_MINUTE_TOLERANCE,
        "rtt_tolerance": RTT_TOLERANCE,
        "rtt_statistic": (f"median of the smoothed RTT sampled every {RTT_SAMPLE_INTERVAL_MS} ms" if sim_rtt is not None
                          else "simulator: median of the smoothed RTT per ACK; emulator: TCP_INFO every 10 ms"),
        "throughput_within_tolerance": tput_ok,
        "retx_per_drop_within_tolerance": rpd_ok,
        "timeouts_within_tolerance": rto_ok,
        "rtt_within_tolerance": rtt_ok,
        "same_flow_count": same,
        "ok": tput_ok and rtt_ok and rpd_ok and rto_ok and same,
        # Whether the emulator kept real time (its `realtime` record): when it did not, a
        # disagreement may be the host's, not the model's.
        "emu_kept_real_time": rt.get("kept"),
        "emu_tti_late_p99_ms": rt.get("tti_late_p99_ms"),
        "emu_host_steal_percent": rt.get("host_steal_percent"),
        "sim_prb_utilization": sim.get("prb_utilization"),
        "emu_prb_utilization": emu.get("prb_utilization"),
    }


def _fmt(x, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def _count(x) -> str:
    """A count, or the mean of counts over runs (one decimal when not whole)."""
    return "-" if x is None else str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def _spread(runs: Optional[list], key: str, spec: str) -> str:
    vals = [r[key] for r in runs or [] if r.get(key) is not None]
    if len(vals) < 2:
        return ""
    return f" [{format(min(vals), spec)}–{format(max(vals), spec)}]"


def markdown_table(cases: list) -> str:
    """The crosscheck of each case (`{"label", "trace", "cc", "load", "attempts", "compare"}`),
    one row per flow, as a Markdown table (sim / emu, with the differences; with repeated
    emulator runs the emulator's figure is their mean and [min–max] follows)."""
    head = ("| trace | cc | Mbps sim / emu (diff) | retx sim / emu | drops sim / emu | retx per drop sim / emu (diff) "
            "| timeouts sim / emu | RTT p50 ms sim / emu (diff) | real time (load) |\n"
            "|---|---|---|---|---|---|---|---|---|\n")
    out = [head]
    for c in cases:
        cmp = c["compare"]
        for r in cmp["flows"]:
            kept = cmp.get("emu_kept_real_time")
            load = c.get("load")
            runs = r.get("emu_runs")
            out.append(
                f"| {c.get('trace') or '-'} | {c.get('cc') or '-'} "
                f"| {r['sim_mbps']:.2f} / {r['emu_mbps']:.2f}{_spread(runs, 'throughput_mbps', '.2f')} "
                f"({r['throughput_rel_diff']:.1%}) "
                f"| {_count(r['sim_retransmits'])} / {_fmt(r['emu_retransmits'], '.0f')}{_spread(runs, 'retrans', 'd')} "
                f"| {_count(r['sim_drops'])} / {_fmt(r['emu_drops'], '.0f')}{_spread(runs, 'drops', 'd')} "
                f"| {_fmt(r['sim_retx_per_drop'], '.2f')} / {_fmt(r['emu_retx_per_drop'], '.2f')} "
                f"({_fmt(r['retx_per_drop_rel_diff'], '.0%')}) "
                f"| {_count(r['sim_timeouts'])} / {_fmt(r['emu_timeouts'], '.1f')}{_spread(runs, 'rto', 'd')} "
                f"| {_fmt(r['sim_rtt_p50_ms'], '.0f')} / {_fmt(r['emu_rtt_p50_ms'], '.0f')}{_spread(runs, 'rtt_ms', '.0f')} "
                f"({_fmt(r['rtt_rel_diff'], '.1%')}) "
                f"| {'kept' if kept else 'not kept' if kept is False else '-'} "
                f"({_fmt(load, '.1f')}) |\n")
    return "".join(out)
