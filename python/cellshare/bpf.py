"""`cellshare bpf`: build, load, unload and list the project's eBPF TCP congestion controls.

The controls' sources ship inside the package, in `cellshare/data/bpf/` (the repository's
`bpf/` links there), listed in its `controls.txt` (one line each: name, source file,
description; :data:`CONTROLS` reads it), so an installed wheel builds and loads them as a
source checkout does. They are the eBPF twins of simulator controllers that a stock Debian
kernel lacks. Each is a `tcp_congestion_ops` written in eBPF: it is compiled with clang
(`-target bpf`) against a `vmlinux.h` dumped from the running kernel's BTF by bpftool, and
registered with `bpftool struct_ops register`, after which the kernel
lists it in `/proc/sys/net/ipv4/tcp_available_congestion_control` and any socket can select
it (`setsockopt(TCP_CONGESTION)`, `iperf3 -C NAME`, `sysctl net.ipv4.tcp_congestion_control`).
Registration outlives this process; `unload` unregisters it (sockets still using it keep it
until they close).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple


class Control(NamedTuple):
    """One line of `controls.txt`."""

    #: The kernel's name of the control (its struct_ops `.name`), the simulator's `kind`.
    name: str
    #: Its source file in :func:`source_dir`.
    source: str
    #: What it is, for help texts and `cellshare bpf list`.
    description: str


#: The table of the controls this project ships, next to their sources.
TABLE = Path(__file__).resolve().parent / "data" / "bpf" / "controls.txt"


def _read_table(path: Path) -> dict[str, Control]:
    """The controls of `path`: one per line `NAME SOURCE DESCRIPTION` (the description is
    the rest of the line); blank lines and `#` comments are skipped."""
    controls = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3:
            raise ValueError(f"{path}:{n}: expected NAME SOURCE DESCRIPTION, got {line.strip()!r}")
        controls[parts[0]] = Control(parts[0], parts[1], parts[2].strip())
    return controls


#: The controls this project ships: name → :class:`Control`, in the table's order.
CONTROLS: dict[str, Control] = _read_table(TABLE)


def names_text() -> str:
    """The controls' names as a help text lists them: `a, b or c`."""
    names = list(CONTROLS)
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


def descriptions_text() -> str:
    """The controls' descriptions, comma-separated."""
    return ", ".join(c.description for c in CONTROLS.values())

AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
BTF = Path("/sys/kernel/btf/vmlinux")


class BpfError(RuntimeError):
    """A control could not be built, loaded or unloaded; the message says why and what to do."""


def source_dir() -> Path:
    """The folder with the eBPF sources: the package's `data/bpf/`, or `$CELLSHARE_BPF_DIR`
    when set (to build modified sources without reinstalling)."""
    env = os.environ.get("CELLSHARE_BPF_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / "data" / "bpf"


def build_dir() -> Path:
    """Where objects are built, per kernel release (BTF differs between kernels)."""
    base = os.environ.get("CELLSHARE_BPF_BUILD") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "cellshare", "bpf")
    return Path(base) / platform.release()


def available() -> list[str]:
    """Congestion controls the kernel offers now."""
    try:
        return AVAILABLE.read_text().split()
    except OSError:
        return []


def missing_requirements() -> list[str]:
    """What this machine lacks to build and load the controls (empty when all is there)."""
    miss = []
    for tool, pkg in (("clang", "clang"), ("bpftool", "bpftool")):
        if shutil.which(tool) is None:
            miss.append(f"{tool} (Debian package {pkg})")
    if not Path("/usr/include/bpf/bpf_helpers.h").exists():
        miss.append("libbpf headers (Debian package libbpf-dev)")
    if not BTF.exists():
        miss.append(f"kernel BTF ({BTF}; the kernel needs CONFIG_DEBUG_INFO_BTF)")
    if os.geteuid() != 0:
        miss.append("root (loading BPF programs needs CAP_BPF and CAP_NET_ADMIN)")
    return miss


def _check_name(name: str) -> None:
    if name not in CONTROLS:
        raise BpfError(f"unknown control {name!r}: expected one of {', '.join(CONTROLS)}")


def _run(cmd: list[str], what: str) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-25:])
        raise BpfError(f"{what} failed (exit {p.returncode}): {' '.join(cmd)}\n{tail}")
    return p.stdout


def build(name: str) -> Path:
    """Compiles control `name` (unless an object of the same sources, by their digest, is built);
    returns the object."""
    _check_name(name)
    for tool in ("clang", "bpftool"):
        if shutil.which(tool) is None:
            raise BpfError(f"{tool} is not installed: apt-get install clang llvm libbpf-dev bpftool")
    src = source_dir()
    c = src / CONTROLS[name].source
    if not c.exists():
        raise BpfError(f"eBPF source {c} not found (CELLSHARE_BPF_DIR={os.environ.get('CELLSHARE_BPF_DIR')!r}: "
                       "unset it to use the sources shipped with cellshare)" if os.environ.get("CELLSHARE_BPF_DIR")
                       else f"eBPF source {c} not found: this installation of cellshare is incomplete (reinstall it)")
    out = build_dir()
    out.mkdir(parents=True, exist_ok=True)
    vmlinux = out / "vmlinux.h"
    if not vmlinux.exists():
        text = _run(["bpftool", "btf", "dump", "file", str(BTF), "format", "c"], "dumping the kernel's BTF")
        tmp = vmlinux.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(vmlinux)
    # The object is named by a digest of what it is compiled from, not judged by modification
    # times: sources from another folder ($CELLSHARE_BPF_DIR) or a reinstall with older times
    # would otherwise load the last object built, whatever its sources.
    deps = [c, src / "cs_tcp.h", vmlinux]
    digest = hashlib.sha256(b"".join(d.read_bytes() for d in deps)).hexdigest()[:16]
    obj = out / f"{name}-{digest}.bpf.o"
    if not obj.exists():
        tmp = obj.with_suffix(".tmp")
        _run(["clang", "-O2", "-g", "-Wall", "-target", "bpf", "-D__TARGET_ARCH_x86",
              f"-I{out}", f"-I{src}", "-c", str(c), "-o", str(tmp)], f"compiling {name}")
        tmp.replace(obj)
    return obj


#: The lock `load` and `unload` hold: two `cellshare bpf load` of one control at once both
#: saw it missing and both registered it; the kernel refused the second with "can't
#: register ... Success". Under the lock the second finds it loaded.
LOCK = Path("/run/lock/cellshare-bpf.lock")


@contextlib.contextmanager
def _locked():
    """Holds the lock of :data:`LOCK` (machine-wide: every user and checkout loads into the
    same kernel); where /run/lock is not writable, one in the build folder."""
    import fcntl

    for path in (LOCK, build_dir() / ".lock"):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            f = open(path, "a")
            break
        except OSError:
            continue
    else:  # pragma: no cover - neither place is writable: nothing to lock with
        yield
        return
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def load(name: str) -> bool:
    """Builds and registers control `name`; returns False if it was already loaded."""
    _check_name(name)
    if name in available():
        return False
    miss = missing_requirements()
    if miss:
        raise BpfError("cannot load eBPF programs here; missing: " + "; ".join(miss))
    with _locked():
        if name in available():  # loaded by another process meanwhile
            return False
        obj = build(name)
        _run(["bpftool", "struct_ops", "register", str(obj)], f"registering {name} (the verifier's log follows)")
        if name not in available():
            raise BpfError(f"{name} was registered but is not in {AVAILABLE}")
        return True


def unload(name: str) -> bool:
    """Unregisters control `name`; returns False if it was not loaded."""
    _check_name(name)
    with _locked():
        return _unload(name)


def _unload(name: str) -> bool:
    if name not in available():
        return False
    ids = _registered_ids(name)
    if not ids:
        raise BpfError(f"{name} is listed in {AVAILABLE} but no struct_ops map in use carries that name "
                       "(was it registered by another tool?)")
    for map_id in ids:
        _run(["bpftool", "struct_ops", "unregister", "id", str(map_id)], f"unregistering {name} (map id {map_id})")
    if name in available():
        raise BpfError(f"{name} is still listed in {AVAILABLE} after unregistering")
    return True


def _registered_ids(name: str) -> list[int]:
    """Ids of the struct_ops maps named `name` that are registered (state INUSE). An
    unregistered map lingers (state TOBEFREE) while sockets still use its control, and a new
    registration of the same name then coexists with it, so unregistering goes by id."""
    text = _run(["bpftool", "-j", "struct_ops", "dump", "name", name], f"listing the struct_ops maps named {name}")
    entries = json.loads(text or "[]")
    ids = []
    # The dump alternates each map's information and its struct_ops value.
    for info, value in zip(entries[0::2], entries[1::2]):
        state = next(iter(value.values()), {}).get("common", {}).get("state", "")
        if state.endswith("INUSE"):
            ids.append(int(info["bpf_map_info"]["id"]))
    return ids


def status() -> list[dict]:
    """One row per shipped control: name, description, loaded, source."""
    avail = set(available())
    return [{"name": c.name, "description": c.description, "loaded": c.name in avail,
             "source": str(source_dir() / c.source)} for c in CONTROLS.values()]
