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

REPO = Path(__file__).resolve().parents[2]

#: Crosscheck tolerances (issue 8): per-flow throughput within 15 %, median RTT within 20 %.
THROUGHPUT_TOLERANCE = 0.15
RTT_TOLERANCE = 0.20


class EmulatorError(RuntimeError):
    """The emulator could not be found, built or run; `code` is the exit code to use."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


# CPU steal (% of all CPU time over a run) from which a run that fell behind real time is put
# down to the host's hypervisor rather than to something on this machine.
HOST_STEAL_FLOOR_PERCENT = 0.5


def _candidates() -> list[Path]:
    out = []
    env = os.environ.get("CELLSHARE_EMU_BIN")
    if env:
        out.append(Path(env))
    which = shutil.which("cellshare-emu")
    if which:
        out.append(Path(which))
    tdir = os.environ.get("CARGO_TARGET_DIR")
    if tdir:
        out.append(Path(tdir) / "release" / "cellshare-emu")
    out.append(REPO / "target" / "release" / "cellshare-emu")
    return out


def emulator_binary(build: bool = True) -> Path:
    """The `cellshare-emu` binary: `$CELLSHARE_EMU_BIN`, the PATH, the cargo target folder;
    built with `cargo build --release -p cellshare-emu` from the source tree if none exists."""
    for c in _candidates():
        if c.is_file() and os.access(c, os.X_OK):
            return c
    if not build:
        raise EmulatorError("cellshare-emu is not built: run `cargo build --release -p cellshare-emu`")
    if not (REPO / "Cargo.toml").exists() or shutil.which("cargo") is None:
        raise EmulatorError("cellshare-emu is not built and there is no source tree with cargo to build it; "
                            "set CELLSHARE_EMU_BIN to the binary")
    p = subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "cellshare-emu"], cwd=REPO)
    if p.returncode != 0:
        raise EmulatorError(f"building cellshare-emu failed (exit {p.returncode})")
    for c in _candidates():
        if c.is_file():
            return c
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


def run_emulator(scenario: Path, folder: Path, duration: Optional[float] = None) -> dict:
    """Runs `cellshare-emu run SCENARIO --out FOLDER` (`folder` new or empty) and returns
    summary.json as a dict. The emulator runs in a session of its own, so a terminal's Ctrl-C
    reaches this process only, which forwards SIGINT/SIGTERM/SIGHUP to it once: the
    emulator stops cleanly (namespaces and processes removed, a summary covering the time
    actually run, ``"interrupted": true``). It also stops if this process dies (its
    parent-death signal)."""
    import signal
    import threading

    miss = missing_requirements()
    if miss:
        raise EmulatorError("the emulator cannot run here; missing: " + "; ".join(miss))
    exe = emulator_binary()
    cmd = [str(exe), "run", str(scenario), "--out", str(folder), "--parent-pid", str(os.getpid())]
    if duration is not None:
        cmd += ["--duration", str(duration)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    forwarded: list[int] = []
    old = {}
    if threading.current_thread() is threading.main_thread():
        def forward(sig, _frame):
            if not forwarded and p.poll() is None:
                p.send_signal(sig)
            forwarded.append(sig)

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            old[sig] = signal.signal(sig, forward)
    try:
        _, err = p.communicate()
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
    if p.returncode != 0:
        raise EmulatorError(err.strip().removeprefix("error: ") or f"cellshare-emu exited with {p.returncode}",
                            code=p.returncode)
    # The emulator's notes (e.g. what it reclaimed from a killed run) reach the user.
    for line in err.splitlines():
        if line.startswith("cellshare-emu:"):
            print(line, file=sys.stderr)
    return json.loads((folder / "summary.json").read_text())


def emulate(scenario: Path, out: Path, duration: Optional[float] = None, *, force: bool = False) -> dict:
    """Runs `scenario` in the emulator, writing `out/` (by the output-folder rules of
    :mod:`cellshare.output`: `out` new, empty, or a cellshare output replaced with `force`);
    returns summary.json as a dict."""
    from .output import atomic_dir

    with atomic_dir(out, kind="emulate", force=force) as tmp:
        summary = run_emulator(scenario, tmp, duration)
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
    """The scenario without its `[emulator]` table, for the simulator."""
    from .api import toml_loads

    doc = toml_loads(scenario_text)
    doc.pop("emulator", None)
    return tomli_w.dumps(doc)


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-9)


def compare(sim: dict, emu: dict) -> dict:
    """Per-flow throughput and median RTT of the simulator's and the emulator's summaries.
    The simulator is the reference of the relative differences."""
    rows = []
    for sf, ef in zip(sim["flows"], emu["flows"]):
        sim_rtt = (sf.get("rtt_ms") or {}).get("p50")
        emu_rtt = (ef.get("sender") or {}).get("rtt_ms")
        rows.append({
            "name": ef["name"],
            "ue": ef["ue"],
            "sim_mbps": sf["throughput_mbps"],
            "emu_mbps": ef["throughput_mbps"],
            "throughput_rel_diff": _rel(ef["throughput_mbps"], sf["throughput_mbps"]),
            "sim_rtt_p50_ms": sim_rtt,
            "emu_rtt_p50_ms": emu_rtt,
            "rtt_rel_diff": None if sim_rtt is None or emu_rtt is None else _rel(emu_rtt, sim_rtt),
        })
    tput_ok = bool(rows) and all(r["throughput_rel_diff"] <= THROUGHPUT_TOLERANCE for r in rows)
    rtt_ok = bool(rows) and all(r["rtt_rel_diff"] is not None and r["rtt_rel_diff"] <= RTT_TOLERANCE for r in rows)
    return {
        "flows": rows,
        "throughput_tolerance": THROUGHPUT_TOLERANCE,
        "rtt_tolerance": RTT_TOLERANCE,
        "throughput_within_tolerance": tput_ok,
        "rtt_within_tolerance": rtt_ok,
        "same_flow_count": len(sim["flows"]) == len(emu["flows"]),
        "ok": tput_ok and rtt_ok and len(sim["flows"]) == len(emu["flows"]),
        # Whether the emulator kept real time (its `realtime` record): when it did not, a
        # disagreement may be the host's, not the model's.
        "emu_kept_real_time": (emu.get("realtime") or {}).get("kept"),
        "sim_prb_utilization": sim.get("prb_utilization"),
        "emu_prb_utilization": emu.get("prb_utilization"),
    }
