"""The emulator's processes, measured: what starting the traffic tool costs through the
installed package's console script, a run of the shipped two-UE scenario through that script
and through the binary, where the cell's clock stands at the scenario's second 0, and what
killing either process of a `cellshare emulate` run leaves. Writes the JSON that
docs/emulator.md's and docs/tcp.md's ``te-*`` renderers read:

    python tools/emu_process_measure.py --out tools/data/emu-process.json [--repeat 3] [--starts 10]

- ``start_cost``: `cellshare-emu traffic send --help`, timed by the wall clock, `--starts` times
  each through this environment's `cellshare-emu` console script (the package's entry point,
  `cellshare._emu`: a Python interpreter starts first) and through the source tree's binary,
  interleaved.
- ``runs``: `cellshare emulate scenarios/emu-two-ues-cubic.toml` (15 s, two CUBIC downloads on
  fixed 20 Mbps channels) once with `CELLSHARE_EMU_BIN` = the console script (the emulator in
  the extension module, its traffic tool started through the script, as in an installed
  package) and once with the binary; the summary's real-time verdict, per-flow throughput and
  first-packet time, PRB utilization, idle RTTs and the modelled base RTT.
- ``crosscheck``: `cellshare crosscheck scenarios/emu-two-ues-cubic.toml` (the binary): per flow,
  the simulator against Linux by the cross-check's criteria.
- ``trace_starts``: `scenarios/emu-trace.toml` on each builtin downlink trace of the emulator
  cross-check, 2 s with the binary: `clock_start_tti` (how far into its trace the cell is at
  second 0) and the flow's `first_packet_s`.
- ``kills``: `cellshare emulate` of the two-UE scenario (30 s, two idle-RTT probes, a command
  whose shell leaves a child behind) killed with SIGKILL `--repeat` times per side once the
  run holds its flows and the command: the back end (`cellshare-emu`) — seconds until the
  front end exits and its exit code — or the front end — and the seconds until nothing of the
  run is left: no namespace, no process of the run (back end, traffic tools, the command's
  shell and its children), no results or temporary folder. Polled every 5 ms.

Needs root (the emulator's namespaces). One run at a time; Linux runs are not deterministic,
so a new measurement gives other numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from cellshare import __version__  # noqa: E402
from cellshare.bench import _machine  # noqa: E402
from cellshare.docmeasure import _FLOW_KEYS, _VERDICT_KEYS  # noqa: E402
from cellshare.emulate import missing_requirements  # noqa: E402

SCENARIO = "scenarios/emu-two-ues-cubic.toml"
TRACE_SCENARIO = "scenarios/emu-trace.toml"
TRACES = ("ATT-LTE-driving.down", "TMobile-LTE-driving.down", "TMobile-UMTS-driving.down",
          "Verizon-EVDO-driving.down")
BINARY = ROOT / "target" / "release" / "cellshare-emu"
#: The killed runs: the shipped scenario made long enough to be killed, with a command whose
#: shell leaves a child behind (a process the emulator did not start itself).
KILL_EXTRA = """
[emulator]
probe_count = 2
commands = [{ ns = "ue0", cmd = "sleep 300 & sleep 301", start_s = 0.0 }]
"""
POLL_S = 0.005


def script() -> Path:
    """This environment's `cellshare-emu` console script (the package's entry point)."""
    p = Path(sys.executable).parent / "cellshare-emu"
    head = p.read_bytes()[:4096] if p.is_file() else b""
    if not (head.startswith(b"#!") and b"cellshare._emu" in head):
        sys.exit(f"error: {p} is not the package's cellshare-emu console script (pip install -e . first)")
    return p


def time_start(exe: Path) -> float:
    t = time.perf_counter()
    subprocess.run([str(exe), "traffic", "send", "--help"], check=True, capture_output=True)
    return round(time.perf_counter() - t, 4)


def start_cost(n: int) -> dict:
    scr = script()
    out = {"command": "cellshare-emu traffic send --help", "script": [], "binary": []}
    for _ in range(n):
        out["script"].append(time_start(scr))
        out["binary"].append(time_start(BINARY))
    return out


def emulate(scen: Path, out: Path, exe: Path, *extra: str) -> dict:
    env = {**os.environ, "CELLSHARE_EMU_BIN": str(exe)}
    p = subprocess.run([sys.executable, "-m", "cellshare.cli", "emulate", str(scen), "--out", str(out), *extra],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"cellshare emulate {scen} failed ({p.returncode}): {p.stderr[-2000:]}")
    return json.loads((out / "summary.json").read_text())


def run_record(label: str, exe: Path, tmp: Path) -> dict:
    load = round(os.getloadavg()[0], 2)
    s = emulate(ROOT / SCENARIO, tmp / f"run-{label}", exe)
    return {"emulator": label, "load_1min_before": load, "duration_s": s["duration_s"],
            "kept_real_time": s["realtime"]["kept"], "tti_late_p99_ms": s["realtime"]["tti_late_p99_ms"],
            "host_steal_percent": s["realtime"]["host_steal_percent"],
            "flows": [{"name": f["name"], "throughput_mbps": f["throughput_mbps"], "start_s": f["start_s"],
                       "first_packet_s": f["first_packet_s"]} for f in s["flows"]],
            "prb_utilization": s["prb_utilization"], "base_rtt_ms": s["base_rtt_ms"],
            "idle_rtt_median_ms": [u["median"] for u in s["idle_rtt_ms"]], "clock_start_tti": s["clock_start_tti"]}


def crosscheck(tmp: Path) -> dict:
    """`cellshare crosscheck` of the two-UE scenario (the emulator's binary)."""
    out = tmp / "crosscheck"
    load = round(os.getloadavg()[0], 2)
    env = {**os.environ, "CELLSHARE_EMU_BIN": str(BINARY)}
    p = subprocess.run([sys.executable, "-m", "cellshare.cli", "crosscheck", str(ROOT / SCENARIO), "--out", str(out)],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"cellshare crosscheck {SCENARIO} failed ({p.returncode}): {p.stderr[-2000:]}")
    d = json.loads((out / "crosscheck.json").read_text())
    return {"command": f"cellshare crosscheck {SCENARIO} --out OUT", "load_1min_before": load,
            **{k: d[k] for k in _VERDICT_KEYS}, "flows": [{k: f[k] for k in _FLOW_KEYS} for f in d["flows"]]}


def trace_start(trace: str, tmp: Path) -> dict:
    text = (ROOT / TRACE_SCENARIO).read_text().replace("builtin:TMobile-LTE-driving.down", f"builtin:{trace}")
    scen = tmp / f"trace-{trace}.toml"
    scen.write_text(text)
    s = emulate(scen, tmp / f"trace-{trace}", BINARY, "--duration", "2")
    return {"trace": trace, "clock_start_tti": s["clock_start_tti"], "first_packet_s": s["flows"][0]["first_packet_s"],
            "idle_rtt_median_ms": s["idle_rtt_ms"][0]["median"], "kept_real_time": s["realtime"]["kept"]}


def _start_time(pid: int):
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else fields[19]


def _children(pid: int) -> list:
    out = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            out += [int(c) for c in Path(f"/proc/{pid}/task/{t}/children").read_text().split()]
    except OSError:
        pass
    return out


def _descendants(pid: int) -> set:
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        if p in out:
            continue
        out.add(p)
        todo += _children(p)
    return out


def _in_namespaces(names: list) -> set:
    ids = set()
    for n in names:
        try:
            ids.add(os.stat(f"/run/netns/{n}").st_ino)
        except OSError:
            pass
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.stat(f"/proc/{d}/ns/net").st_ino in ids:
                    out.add(int(d))
            except OSError:
                pass
    return out


def _namespaces(emu_pid: int) -> list:
    try:
        return [n for n in os.listdir("/run/netns") if n.startswith(f"csemu-{emu_pid}-")]
    except FileNotFoundError:
        return []


def kill_once(side: str, tmp: Path, rep: int) -> dict:
    """Starts `cellshare emulate`, SIGKILLs one of its processes once the run is going, and
    times what follows."""
    work = tmp / f"kill-{side}-{rep}"
    work.mkdir()
    scen = work / "scenario.toml"
    scen.write_text((ROOT / SCENARIO).read_text().replace("duration_s = 15.0", "duration_s = 30.0") + KILL_EXTRA)
    env = {**os.environ, "CELLSHARE_EMU_BIN": str(BINARY)}
    front = subprocess.Popen([sys.executable, "-m", "cellshare.cli", "emulate", str(scen), "--out", str(work / "out")],
                             cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    deadline = time.time() + 60
    emu_pid, names, procs = None, [], {}
    while time.time() < deadline and front.poll() is None:
        if emu_pid is None:
            # the back end: the front end's child (its traffic tools are `cellshare-emu` too)
            emu_pid = next((c for c in _children(front.pid)
                            if Path(f"/proc/{c}/comm").read_text().strip() == "cellshare-emu"), None)
        if emu_pid is not None:
            names = _namespaces(emu_pid)
            pids = _descendants(emu_pid) | _in_namespaces(names)
            procs = {p: s for p in pids if (s := _start_time(p)) is not None}
            # 3 namespaces; back end, 2 receivers, 2 senders, the shell and its 2 sleeps
            if len(names) == 3 and len(procs) >= 8:
                break
        time.sleep(0.1)
    if not (len(names) == 3 and len(procs) >= 8):
        if front.poll() is None:
            os.killpg(front.pid, signal.SIGKILL)
        raise RuntimeError(f"{side} kill, try {rep + 1}: "
                           f"the run did not get going in 60 s (exit {front.poll()}): {names}, {procs}: {front.communicate()[1][-2000:]}")
    time.sleep(1.0)
    for p in _descendants(emu_pid) | _in_namespaces(names):
        if (s := _start_time(p)) is not None:
            procs[p] = s
    if side == "front end":
        procs[front.pid] = _start_time(front.pid)
    victim = emu_pid if side == "back end" else front.pid
    t0 = time.perf_counter()
    os.kill(victim, signal.SIGKILL)
    exit_s = None
    while True:
        now = time.perf_counter() - t0
        done = front.poll() is not None
        if exit_s is None and done:
            exit_s = round(now, 3)
        left_ns = _namespaces(emu_pid)
        left_procs = [p for p, s in procs.items() if _start_time(p) == s]
        left_dirs = [f for f in os.listdir(work) if f.startswith(".cellshare-tmp-") or f == "out"]
        if not (left_ns or left_procs or left_dirs) and done:
            clean_s = round(now, 3)
            break
        if now > 30:
            raise RuntimeError(f"{side} killed: after 30 s still {left_ns}, {left_procs}, {left_dirs}")
        time.sleep(POLL_S)
    err = front.communicate()[1]
    return {"killed": side, "front_end_exit_s": exit_s if side == "back end" else None,
            "front_end_returncode": front.returncode, "nothing_left_s": clean_s,
            "processes_of_the_run": len(procs), "front_end_error": err.strip().splitlines()[-1:] if err.strip() else []}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--repeat", type=int, default=3, help="kills per side (default 3)")
    ap.add_argument("--starts", type=int, default=10, help="timed starts per way (default 10)")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.starts < 1:
        print(f"error: --repeat and --starts must be at least 1, got {args.repeat} and {args.starts}", file=sys.stderr)
        return 2
    miss = missing_requirements()
    if miss:
        print("error: the emulator cannot run here: missing " + "; ".join(miss), file=sys.stderr)
        return 2
    if not BINARY.is_file():
        print(f"error: {BINARY} not found (cargo build --release -p cellshare-emu)", file=sys.stderr)
        return 2
    machine = _machine()
    with tempfile.TemporaryDirectory(prefix="emu-process-") as t:
        tmp = Path(t)
        doc = {"what": "The emulator's processes: the traffic tool's start through the package's console script "
                       "and the binary, the two-UE scenario through each, the cell's clock at second 0 per trace, "
                       "and what killing either process of `cellshare emulate` leaves (docs/emulator.md, docs/tcp.md)",
               "generated_by": f"python tools/emu_process_measure.py --out FILE --repeat {args.repeat} "
                               f"--starts {args.starts}",
               "cellshare": __version__, "machine": machine, "kernel": os.uname().release,
               "start_cost": start_cost(args.starts),
               "runs": [run_record("package script", script(), tmp), run_record("binary", BINARY, tmp)],
               "crosscheck": crosscheck(tmp),
               "trace_starts": [trace_start(tr, tmp) for tr in TRACES],
               "kills": [kill_once(side, tmp, r) for r in range(args.repeat) for side in ("back end", "front end")]}
    doc["machine"]["load_1min_after"] = round(os.getloadavg()[0], 2)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
