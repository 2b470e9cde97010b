#!/usr/bin/env python3
"""5G-LENA (ns-3's `nr` module, release NR-v4.0) built against the PyPI `ns3` wheel (ns-3.44),
and the reference data cellshare's NR cell is compared against.

5G-LENA is GPL and is not part of cellshare: this tool reads and runs a copy the user fetched.
Get release NR-v4.0 (commit 2c0ed9740e677224bdfff4eab5aea5adcd8f6052, the release that is
compatible with ns-3.44) by one of

    git clone https://gitlab.com/cttc-lena/nr.git && git -C nr checkout 2c0ed974
    git clone https://github.com/QiuYukang/5G-LENA.git && git -C 5G-LENA checkout v4.0

and give the checkout (or a bare git directory, from which the release is exported with `git
archive`) as `--nr-src PATH` or `$CELLSHARE_NR_SRC`; `--nr-rev` names the revision to export
from a git directory (default `v4.0`).

Build (`build`, done by every other command when needed): every model, helper and utility
source the release's `CMakeLists.txt` lists is compiled with g++ (C++20, -O2, the compile
definitions of the wheel's release build) against the wheel's headers (`ns3/include`), one
object per source, and linked into `libns3-nr-cellshare.so` against the wheel's libraries
(`ns3/lib64`). Left out: the MIMO matrix code that needs Eigen (the wheel has no Eigen; the
release's own no-Eigen stand-in `nr-mimo-matrices-no-eigen.cc` is built instead, exactly as
ns-3's CMake does without Eigen, so only MIMO with more than one layer is unavailable), the
ns3-gym scheduler (needs the opengym module) and the Maleki PMI search (needs pybind11 and
pyttb). Everything is cached under `$CELLSHARE_NS3_CACHE` (default `~/.cache/cellshare/`) in
`nr-lena-<hash>/`, keyed by a hash of the sources, the flags and the wheel; objects are kept
one by one, so an interrupted build resumes. The scenario programs of `tools/nr-lena/` are
compiled and linked against that library the same way.

Commands:
- `distance`: the reference scenario, one process per distance (`tools/nr-lena/nr-distance.cc`
  states every parameter): one gNB, one UE, numerology 1, a 100 MHz carrier at 3.5 GHz with 273
  PRBs, saturated downlink UDP (600 Mbit/s offered), one layer, MCS table 1 (64QAM) with the
  NrEesmIrT1 error model (EESM, HARQ with incremental redundancy), error-model AMC at its 10 %
  BLER target, 46 dBm, UE noise figure 9 dB, log-distance path loss with cellshare's exponent
  3.52 from a free-space 1 m reference (`--pathloss uma-los`: 3GPP UMa LoS, no shadowing), no
  fast fading; measured over [0.5 s, 3 s]. Writes `tools/data/nr-lena-distance.json` (or
  `--out`): per distance the UDP goodput, the PHY's decoded throughput, the SINR the UE
  measures, the mean scheduled MCS, the mean CQI, HARQ retransmissions per transport block and
  the first-transmission block error rate. The ten default distances take ~3 min on 2 cores.
- `bler`: 5G-LENA's own BLER curves: for each MCS of table 1, the first-transmission block
  error rate of the error model versus a SINR flat over the allocation, for the transport block
  5G-LENA sizes for 273 PRBs x 12 symbols, and the SINR where each curve crosses 0.1. Writes
  `tools/data/nr-lena-bler.json` (or `--out`).

- `compare` (needs only cellshare and the stored JSON, not 5G-LENA): runs cellshare's NR cell
  with the stored run's parameters (carrier, power, path loss, noise figure, one layer, MCS table
  1, no fading, a saturating CBR source, the realistic link: HARQ and the 10 % BLER target) at
  each stored distance, once with 5G-LENA's 132 data REs per PRB and once with cellshare's
  default PDSCH, and writes `tools/data/nr-lena-compare.json` (or `--out`): ours and theirs
  side by side (throughput over the air, SINR, MCS, HARQ retransmissions and losses per block).

Building and running 5G-LENA needs `g++` with C++20 and the `ns3` wheel (`pip install ns3==3.44.post0`, CPython 3.11 on
x86-64 Linux) and about 2,400 CPU seconds for the first build (179 files; 20 min on 2 cores).
Run it under `nice`:

    nice -n 19 python tools/nr_lena.py --nr-src ~/src/5G-LENA distance
    nice -n 19 python tools/nr_lena.py --nr-src ~/src/5G-LENA bler
    nice -n 19 python tools/nr_lena.py compare
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import hashlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from legilimens_ns3 import wheel_dir  # noqa: E402  (the wheel's root, found as for the Legilimens build)

TOOLS = Path(__file__).resolve().parent
PROGRAMS = TOOLS / "nr-lena"
DATA = TOOLS / "data"
NS3_VERSION = "3.44"
NR_RELEASE = "NR-v4.0"
NR_COMMIT = "2c0ed9740e677224bdfff4eab5aea5adcd8f6052"
#: The wheel's release build (lib64/cmake/ns3/ns3Targets.cmake, INTERFACE_COMPILE_DEFINITIONS,
#: all but its build machine's PROJECT_SOURCE_PATH).
DEFINES = ("__LINUX__", "NS3_BUILD_PROFILE_RELEASE", "HAVE_SQLITE3", "HAVE_LIBXML2", "HAVE_GSL",
           "NS3_LOG_ENABLE", "NS3_ASSERT_ENABLE")
#: The ns-3 modules the release's CMakeLists.txt links nr to, and theirs.
NS3_MODULES = ("core", "network", "internet", "internet-apps", "applications", "mobility", "propagation",
               "antenna", "spectrum", "buildings", "stats", "flow-monitor", "virtual-net-device",
               "point-to-point", "csma", "bridge", "config-store", "traffic-control")
CXXFLAGS = ("-std=c++20", "-O2", "-fPIC", "-w")
#: Sources of the release's CMakeLists.txt that need what the wheel lacks (see the docstring).
LEFT_OUT = {
    "model/nr-mimo-matrices-eigen.cc": "needs Eigen (the wheel is built without it)",
    "model/nr-pm-search-maleki.cc": "needs pybind11 and pyttb",
}


def fail(msg: str) -> NoReturn:
    print(f"nr_lena: {msg}", file=sys.stderr)
    raise SystemExit(2)


def cache_root() -> Path:
    return Path(os.environ.get("CELLSHARE_NS3_CACHE", Path.home() / ".cache" / "cellshare"))


# -- the source ---------------------------------------------------------------------------------

def _git(git_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True)


def source_tree(src: str | None, rev: str) -> tuple[Path, str]:
    """The release's source tree (a checkout, or an export of `rev` from a git directory) and
    its commit (or "unknown" for a plain folder)."""
    if not src:
        fail("no 5G-LENA source given: pass --nr-src PATH or set CELLSHARE_NR_SRC to a checkout "
             f"of {NR_RELEASE} (git clone https://github.com/QiuYukang/5G-LENA.git; tag v4.0)")
    path = Path(src).expanduser().resolve()
    if not path.exists():
        fail(f"--nr-src {path}: no such folder (expected a 5G-LENA {NR_RELEASE} checkout or git directory)")
    if (path / "CMakeLists.txt").is_file() and (path / "model" / "nr-amc.cc").is_file():
        commit = "unknown"
        proc = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True)
        if proc.returncode == 0:
            commit = proc.stdout.strip()
        return path, commit
    git_dir = path / ".git" if (path / ".git").is_dir() else path
    proc = _git(git_dir, "rev-parse", "--verify", f"{rev}^{{commit}}")
    if proc.returncode != 0:
        fail(f"--nr-src {path}: neither a 5G-LENA checkout (no model/nr-amc.cc) nor a git directory "
             f"holding revision {rev!r} (--nr-rev)")
    commit = proc.stdout.decode().strip()
    tree = cache_root() / "nr-lena-src" / commit
    if not (tree / "CMakeLists.txt").is_file():
        tmp = tree.with_name(f"{commit}.{os.getpid()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        archive = _git(git_dir, "archive", "--format=tar", commit)
        if archive.returncode != 0:
            fail(f"git archive {commit} failed: {archive.stderr.decode().strip()}")
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, filter="data")
        shutil.rmtree(tree, ignore_errors=True)
        tmp.replace(tree)
    return tree, commit


def _cmake_list(text: str, name: str) -> list[str]:
    m = re.search(rf"set\(\s*{name}\s+(.*?)\)", text, re.S)
    if m is None:
        fail(f"CMakeLists.txt: no set({name} ...) (is this a 5G-LENA source tree?)")
    items = []
    for line in m.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            items.extend(line.split())
    return items


def module_files(tree: Path) -> tuple[list[str], list[str]]:
    """The library's sources and public headers, as the release's CMakeLists.txt lists them."""
    text = (tree / "CMakeLists.txt").read_text()
    sources, headers = [], []
    for s in _cmake_list(text, "source_files"):
        if s == "${eigen_sources}":
            sources.append("model/nr-mimo-matrices-no-eigen.cc")
        elif not s.startswith("${"):
            sources.append(s)
    headers = [h for h in _cmake_list(text, "header_files") if not h.startswith("${")]
    for f in (*sources, *headers):
        if not (tree / f).is_file():
            fail(f"CMakeLists.txt lists {f}, which is not in {tree}")
    return sources, headers


# -- the build ----------------------------------------------------------------------------------

class Build:
    """The compiled library and programs, in the cache."""

    def __init__(self, src: str | None, rev: str, jobs: int):
        root = wheel_dir()
        if root is None:
            fail("the `ns3` wheel is not importable (expected ns-3.44: pip install ns3==3.44.post0)")
        self.cxx = os.environ.get("CXX", "g++")
        if shutil.which(self.cxx) is None:
            fail(f"no C++ compiler: CXX={self.cxx!r} is not on PATH (expected g++ with C++20)")
        self.wheel = root
        core = sorted((root / "lib64").glob("libns3*-core*.so"))
        if not core or NS3_VERSION not in core[0].name:
            fail(f"the `ns3` wheel at {root} is not ns-{NS3_VERSION} (found {[c.name for c in core]})")
        self.tree, self.commit = source_tree(src, rev)
        self.sources, self.headers = module_files(self.tree)
        self.jobs = jobs
        h = hashlib.sha256()
        h.update(" ".join([self.cxx, *CXXFLAGS, *DEFINES, str(root)]).encode())
        for f in (*self.sources, *self.headers):
            h.update(f.encode())
            h.update((self.tree / f).read_bytes())
        self.key = h.hexdigest()[:16]
        self.dir = cache_root() / f"nr-lena-{self.key}"
        self.include = self.dir / "include"
        self.lib = self.dir / "libns3-nr-cellshare.so"
        missing = [m for m in NS3_MODULES if not (root / "lib64" / f"libns{NS3_VERSION}-{m}.so").is_file()]
        if missing:
            fail(f"the `ns3` wheel at {root} lacks the ns-3 modules nr needs: {', '.join(missing)}")
        self.ns3_libs = [f"ns{NS3_VERSION}-{m}" for m in NS3_MODULES]

    def _flags(self) -> list[str]:
        dirs = sorted({str((self.tree / f).parent) for f in (*self.sources, *self.headers)})
        return [*CXXFLAGS, *(f"-D{d}" for d in DEFINES), f"-I{self.include}",
                f"-I{self.wheel / 'include'}", *(f"-I{d}" for d in dirs)]

    def _link_flags(self) -> list[str]:
        return [f"-L{self.wheel / 'lib64'}", *(f"-l{m}" for m in self.ns3_libs),
                f"-Wl,-rpath,{self.wheel / 'lib64'}"]

    def _headers(self) -> None:
        """ns3/<header> for each public header, and the generated nr-module.h."""
        ns3 = self.include / "ns3"
        ns3.mkdir(parents=True, exist_ok=True)
        for h in self.headers:
            link = ns3 / Path(h).name
            if not link.exists():
                link.symlink_to(self.tree / h)
        # (some nr headers use ns-3's 3GPP channel types without including them)
        module = "".join(f'#include "ns3/{h}"\n' for h in (
            "three-gpp-channel-model.h", "three-gpp-propagation-loss-model.h",
            "three-gpp-spectrum-propagation-loss-model.h", *(Path(h).name for h in self.headers)))
        (ns3 / "nr-module.h").write_text(f"#ifndef NS3_NR_MODULE_H\n#define NS3_NR_MODULE_H\n{module}#endif\n")

    def library(self) -> dict:
        """Builds (or finds) the library; returns what was built and how long it took."""
        info_path = self.dir / "build.json"
        self._headers()
        if self.lib.exists() and info_path.exists():
            return json.loads(info_path.read_text())
        objdir = self.dir / "obj"
        objdir.mkdir(parents=True, exist_ok=True)
        flags = self._flags()
        t0 = time.monotonic()

        def compile_one(src: str) -> tuple[str, float, str | None]:
            obj = objdir / (src.replace("/", "__") + ".o")
            if obj.exists():
                return src, 0.0, None
            tmp = obj.with_suffix(f".{os.getpid()}.tmp")
            s = time.monotonic()
            proc = subprocess.run([self.cxx, *flags, "-c", str(self.tree / src), "-o", str(tmp)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                tmp.unlink(missing_ok=True)
                return src, 0.0, proc.stderr
            tmp.replace(obj)
            return src, time.monotonic() - s, None

        done, compile_s = 0, 0.0
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            for src, secs, err in pool.map(compile_one, self.sources):
                if err is not None:
                    fail(f"compiling 5G-LENA's {src} failed:\n{err[-4000:]}")
                done += 1
                compile_s += secs
                print(f"[{done}/{len(self.sources)}] {src} {secs:.1f} s", file=sys.stderr, flush=True)
        objs = [str(objdir / (s.replace("/", "__") + ".o")) for s in self.sources]
        tmp = self.lib.with_suffix(f".{os.getpid()}.tmp")
        proc = subprocess.run([self.cxx, "-shared", "-o", str(tmp), *objs, *self._link_flags(),
                               "-Wl,--no-undefined"], capture_output=True, text=True)
        if proc.returncode != 0:
            fail(f"linking {self.lib.name} failed:\n{proc.stderr[-4000:]}")
        tmp.replace(self.lib)
        info = {"library": str(self.lib), "sources_compiled": len(self.sources),
                "left_out": LEFT_OUT, "compile_cpu_s": round(compile_s, 1),
                "wall_s": round(time.monotonic() - t0, 1), "jobs": self.jobs,
                "cxx": subprocess.run([self.cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0],
                "cxxflags": [*CXXFLAGS, *(f"-D{d}" for d in DEFINES)]}
        info_path.write_text(json.dumps(info, indent=1))
        return info

    def program(self, name: str) -> Path:
        """Compiles tools/nr-lena/<name>.cc against the library (cached by its hash)."""
        self.library()
        src = PROGRAMS / f"{name}.cc"
        digest = hashlib.sha256(src.read_bytes() + self.key.encode()).hexdigest()[:12]
        exe = self.dir / f"{name}-{digest}"
        if exe.exists():
            return exe
        tmp = exe.with_suffix(f".{os.getpid()}.tmp")
        proc = subprocess.run([self.cxx, *self._flags(), str(src), "-o", str(tmp), str(self.lib),
                               f"-Wl,-rpath,{self.dir}", *self._link_flags()], capture_output=True, text=True)
        if proc.returncode != 0:
            fail(f"compiling {src.name} failed:\n{proc.stderr[-4000:]}")
        tmp.replace(exe)
        return exe

    def provenance(self) -> dict:
        info = json.loads((self.dir / "build.json").read_text())
        return {"simulator": "5G-LENA (ns-3 nr module)", "release": NR_RELEASE, "commit": self.commit,
                "release_commit": NR_COMMIT, "ns3": f"ns-{NS3_VERSION} (PyPI wheel ns3==3.44.post0)",
                "build": {k: info[k] for k in ("sources_compiled", "left_out", "compile_cpu_s", "wall_s", "jobs", "cxx", "cxxflags")}}


# -- the runs -----------------------------------------------------------------------------------

def _run_all(exe: Path, arg_sets: list[list[str]], jobs: int) -> list[dict]:
    def one(args: list[str]) -> dict:
        proc = subprocess.run([str(exe), *args], capture_output=True, text=True)
        if proc.returncode != 0:
            fail(f"{exe.name} {' '.join(args)} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
        if not lines:
            fail(f"{exe.name} {' '.join(args)} printed no result:\n{proc.stdout[-2000:]}")
        return [json.loads(l) for l in lines]

    out = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for rows in pool.map(one, arg_sets):
            for r in rows:
                print(json.dumps(r), file=sys.stderr, flush=True)
            out.extend(rows)
    return out


def _positive(name: str, v: float) -> float:
    if not v > 0:
        fail(f"--{name} {v}: expected a positive number")
    return v


def check_distance(a: argparse.Namespace) -> None:
    _positive("sim-time", a.sim_time)
    if not 0 <= a.warmup < a.sim_time:
        fail(f"--warmup {a.warmup}: expected 0 <= warmup < --sim-time ({a.sim_time})")
    for d in a.distances:
        _positive("distances", d)
    if a.distances != sorted(set(a.distances)):
        fail(f"--distances {a.distances}: expected distinct distances in increasing order")
    _positive("rate", a.rate)


def cmd_distance(b: Build, a: argparse.Namespace) -> dict:
    exe = b.program("nr-distance")
    common = [f"--simTime={a.sim_time}", f"--warmup={a.warmup}", f"--errorModel={a.error_model}",
              f"--txPower={a.tx_power}", f"--rate={a.rate}", f"--seed={a.seed}", f"--pathloss={a.pathloss}"]
    t0 = time.monotonic()
    rows = _run_all(exe, [[f"--distance={d}", *common] for d in a.distances], a.jobs)
    run_s = time.monotonic() - t0
    params = rows[0]["parameters"] if rows else {}
    return {"what": "5G-LENA reference: a saturated UE's downlink throughput, SINR, MCS and HARQ "
                    "retransmissions per transport block versus distance",
            "provenance": {**b.provenance(), "run_wall_s": round(run_s, 1), "run_jobs": a.jobs},
            "parameters": params,
            "notes": [
                "Transport blocks are sized by 5G-LENA's rule (NrAmc::CalculateTbSize): "
                "floor(11 subcarriers x PRBs x data symbols x Qm x R x layers / 8) bytes less the "
                "CRC bits, not TS 38.214 section 5.1.3; every slot is flexible (one DL and one UL "
                "control symbol), so 12 of 14 symbols carry data (mean_data_symbols).",
                "Without fading the AMC's MCS decodes almost always (first_tx_bler near 0) down to "
                "MCS 0; below MCS 0's threshold every transmission fails, incremental redundancy "
                "cannot lower MCS 0's code rate further, and a block is lost after its three "
                "retransmissions (retx_per_tb = 3, throughput 0).",
                "sinr_db is the UE's average downlink data SINR (DlDataSinr), tb_sinr_db the "
                "SINR of first transmissions (RxPacketTraceUe), path_loss_db the log-distance "
                "model's loss at the distance.",
            ],
            "points": [{k: v for k, v in r.items() if k != "parameters"} for r in rows]}


def sinr_at_bler(sinr_db: list[float], bler: list[float], target: float) -> float | None:
    """The lowest SINR (dB) at which the curve is at or below `target`, interpolated linearly in
    log10(BLER) between the samples around it; None if it never gets there."""
    for i, (s, e) in enumerate(zip(sinr_db, bler)):
        if e <= target:
            if i == 0:
                return s
            s0, e0 = sinr_db[i - 1], bler[i - 1]
            if e <= 0 or e0 <= 0:
                return s
            f = (math.log10(e0) - math.log10(target)) / (math.log10(e0) - math.log10(e))
            return round(s0 + f * (s - s0), 3)
    return None


def check_bler(a: argparse.Namespace) -> None:
    if not 1 <= a.rbs <= 275:
        fail(f"--rbs {a.rbs}: expected 1..275 resource blocks")
    if not 1 <= a.symbols <= 14:
        fail(f"--symbols {a.symbols}: expected 1..14 OFDM symbols")
    _positive("sinr-step", a.sinr_step)
    if a.sinr_max < a.sinr_min:
        fail(f"--sinr-max {a.sinr_max}: expected at least --sinr-min ({a.sinr_min})")


def cmd_bler(b: Build, a: argparse.Namespace) -> dict:
    exe = b.program("nr-bler")
    t0 = time.monotonic()
    rows = _run_all(exe, [[f"--errorModel={a.error_model}", f"--rbs={a.rbs}", f"--symbols={a.symbols}",
                           f"--sinrMin={a.sinr_min}", f"--sinrMax={a.sinr_max}", f"--sinrStep={a.sinr_step}"]], 1)
    run_s = time.monotonic() - t0
    return {"what": "5G-LENA's link-to-system error model: first-transmission BLER versus a flat SINR, per MCS",
            "provenance": {**b.provenance(), "run_wall_s": round(run_s, 1)},
            "parameters": rows[0]["parameters"],
            "sinr_db_at_bler_0.1": {str(c["mcs"]): sinr_at_bler(c["sinr_db"], c["bler"], 0.1) for c in rows[0]["curves"]},
            "curves": rows[0]["curves"]}


# -- cellshare against the stored reference ------------------------------------------------------

#: The PDSCH of cellshare's runs: `matched` has 5G-LENA's data resource elements per PRB (its
#: TBS rule counts 11 of 12 subcarriers over 12 data symbols: 132; cellshare's 12 symbols less
#: 12 DM-RS REs give the same 132), `standard` is cellshare's default PDSCH (13 symbols less
#: 12 DM-RS REs: 144 REs per PRB), which shows the TB-sizing difference measured.
PDSCH = {"matched": {"symbols": 12, "dmrs_re_per_prb": 12, "overhead_re_per_prb": 0}, "standard": {}}
#: 5G-LENA's error models by MCS table (NrEesmIrT1/CcT1: table 1, 64QAM).
MCS_TABLES = {"ns3::NrEesmIrT1": "qam64", "ns3::NrEesmCcT1": "qam64", "ns3::NrEesmIrT2": "qam256",
              "ns3::NrEesmCcT2": "qam256"}


def _free_space_db(distance_m: float, carrier_hz: float) -> float:
    return 20 * math.log10(4 * math.pi * distance_m * carrier_hz / 299_792_458.0)


def reference_scenario(params: dict, distance_m: float, pdsch: str, duration_s: float) -> dict:
    """cellshare's scenario for the stored run's `parameters` at `distance_m`: the same carrier,
    power, log-distance path loss, noise figure, layers, MCS table and no fading; a CBR source
    at the reference's offered rate saturates the UE. Fails naming the parameter cellshare's
    cell cannot take."""
    def need(key: str, ok: bool, expected: str) -> None:
        if not ok:
            fail(f"reference parameter {key} = {params.get(key)!r}: expected {expected}")

    need("pathloss", params.get("pathloss") == "LogDistancePropagationLossModel", "LogDistancePropagationLossModel")
    d0 = params["reference_distance_m"]
    need("reference_loss_db", abs(params["reference_loss_db"] - _free_space_db(d0, params["carrier_hz"])) < 0.01,
         "the free-space loss at the reference distance (cellshare's log-distance model)")
    need("fast_fading", params.get("fast_fading") is False, "false")
    need("error_model", params.get("error_model") in MCS_TABLES, f"one of {', '.join(MCS_TABLES)}")
    need("slot_pattern", set(params.get("slot_pattern", "").split("|")) <= {"F", ""}, "every slot flexible (FDD-like)")
    need("antennas", str(params.get("antennas", "")).startswith("1x1 isotropic (0 dBi)"), "1x1 isotropic (0 dBi)")
    return {
        "name": f"nr-lena-compare-{distance_m:g}m-{pdsch}",
        "simulation": {"duration_s": duration_s, "seed": 1, "trace_interval_ms": 0},
        "cell": {"rat": "nr", "bandwidth_mhz": params["bandwidth_hz"] / 1e6, "link": {"kind": "realistic"},
                 "nr": {"numerology": params["numerology"], "mcs_table": MCS_TABLES[params["error_model"]],
                        **PDSCH[pdsch]}},
        "wired": {"remote_delay_ms": 1, "remote_rate_mbps": 100_000, "backhaul_rate_mbps": 100_000},
        "ues": [{"channel": {"kind": "radio", "distance_m": distance_m, "fading": "none",
                             "carrier_mhz": params["carrier_hz"] / 1e6, "tx_power_dbm": params["tx_power_dbm"],
                             "path_loss_exponent": params["path_loss_exponent"], "reference_distance_m": d0,
                             "noise_figure_db": params["ue_noise_figure_db"], "layers": params["layers"]}}],
        "flows": [{"ue": 0, "transport": {"kind": "cbr", "rate_mbps": params["offered_mbps"]}}],
    }


def nearest_mcs(bytes_per_block: float, tb_bytes: list[int]) -> int:
    """The MCS whose 5G-LENA block (bytes, for the same REs per PRB) is nearest `bytes_per_block`."""
    return min(range(len(tb_bytes)), key=lambda m: (abs(tb_bytes[m] - bytes_per_block), m))


def run_ours(params: dict, distance_m: float, pdsch: str, duration_s: float, tb_bytes: list[int]) -> dict:
    """One cellshare run: the UE's throughput over the air (Mbit/s, over whole seconds from 1 s
    on, as 5G-LENA measures after its warm-up), its SINR, HARQ per new block and the MCS of
    its blocks (by their size)."""
    import cellshare

    r = cellshare.run(reference_scenario(params, distance_m, pdsch, duration_s))
    s = r.summary
    ue = s["ues"][0]
    link = ue["link"]
    rows = [x for x in r.ue_series().to_pylist() if x["ue"] == 0 and 1 <= x["second"] < duration_s]
    new = link["transport_blocks"]
    decoded = new - link["residual_losses"]
    per_block = ue["bytes"] / decoded if decoded else 0.0
    return {
        "sinr_db": round(ue["mean_snr_db"], 4),
        "throughput_mbps": round(sum(x["mbps"] for x in rows) / len(rows), 3) if rows else 0.0,
        "mcs": nearest_mcs(per_block, tb_bytes) if decoded else None,
        "bytes_per_block": round(per_block, 1),
        "new_tbs": new,
        "retx_per_tb": round(link["retransmissions"] / new, 5) if new else None,
        "lost_per_tb": round(link["residual_losses"] / new, 5) if new else None,
        "control_errors": link["control_errors"],
    }


def compare(distances: list[float] | None = None, duration_s: float = 3.0) -> dict:
    """cellshare's NR cell at the stored 5G-LENA run's distances (all, or `distances`)."""
    ref = json.loads((DATA / "nr-lena-distance.json").read_text())
    bler = json.loads((DATA / "nr-lena-bler.json").read_text())
    tb_bytes = [c["tb_bytes"] for c in bler["curves"]]
    params = ref["parameters"]
    points = []
    for p in ref["points"]:
        d = p["distance_m"]
        if distances is not None and d not in distances:
            continue
        ours = run_ours(params, d, "matched", duration_s, tb_bytes)
        std = run_ours(params, d, "standard", duration_s, tb_bytes)
        lena = {"sinr_db": p["sinr_db"], "mcs": p["mean_mcs"], "throughput_mbps": p["phy_throughput_mbps"],
                "retx_per_tb": p["retx_per_tb"], "lost_per_tb": round(p["lost_tbs_rv3"] / p["new_tbs"], 5)}
        carried = lena["throughput_mbps"] > 0
        points.append({
            "distance_m": d, "lena": lena, "ours": ours,
            "ours_standard_pdsch": {k: std[k] for k in ("throughput_mbps", "bytes_per_block", "retx_per_tb")},
            "throughput_ratio": round(ours["throughput_mbps"] / lena["throughput_mbps"], 4) if carried else None,
            "standard_over_matched": (round(std["throughput_mbps"] / ours["throughput_mbps"], 4)
                                      if ours["throughput_mbps"] > 0 else None),
        })
    if distances is not None and len(points) != len(distances):
        stored = [p["distance_m"] for p in ref["points"]]
        fail(f"--distances {distances}: expected distances of the stored run ({', '.join(f'{x:g}' for x in stored)})")
    return {
        "what": "cellshare's NR cell against 5G-LENA NR-v4.0: a saturated UE's throughput, SINR, MCS and "
                "HARQ retransmissions per transport block versus distance",
        "reference": "tools/data/nr-lena-distance.json",
        "command": "python tools/nr_lena.py compare" + ("" if duration_s == 3.0 else f" --duration {duration_s:g}"),
        "duration_s": duration_s,
        "pdsch": PDSCH,
        "notes": [
            "throughput_mbps is the UE's throughput over the air (decoded transport blocks) on both sides: "
            "5G-LENA's phy_throughput_mbps, cellshare's mean over whole seconds from 1 s on.",
            "ours.mcs is the MCS whose 5G-LENA block (tools/data/nr-lena-bler.json tb_bytes, the same "
            "132 REs per PRB) is nearest cellshare's mean bytes per decoded block; lena.mcs is 5G-LENA's mean.",
            "ours_standard_pdsch is cellshare's default PDSCH (144 REs per PRB); standard_over_matched "
            "is its throughput over the matched run's.",
        ],
        "points": points,
    }


def cmd_compare(a: argparse.Namespace) -> None:
    for d in a.distances or []:
        _positive("distances", d)
    _positive("duration", a.duration)
    if a.duration < 2:
        fail(f"--duration {a.duration}: expected at least 2 s (throughput is measured over whole seconds from 1 s)")
    result = compare(a.distances, a.duration)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=1) + "\n")
    for p in result["points"]:
        o, t = p["ours"], p["lena"]
        print(f"{p['distance_m']:>5g} m  SINR {o['sinr_db']:6.2f} / {t['sinr_db']:6.2f} dB  MCS {o['mcs']} / {t['mcs']}  "
              f"{o['throughput_mbps']:7.2f} / {t['throughput_mbps']:7.2f} Mbit/s  retx {o['retx_per_tb']} / {t['retx_per_tb']}",
              file=sys.stderr)
    print(f"wrote {a.out}", file=sys.stderr)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--nr-src", default=os.environ.get("CELLSHARE_NR_SRC"),
                   help="5G-LENA NR-v4.0 checkout or git directory (default $CELLSHARE_NR_SRC)")
    p.add_argument("--nr-rev", default="v4.0", help="revision exported from a git directory (default v4.0)")
    p.add_argument("--jobs", type=int, default=2, help="parallel compilations and runs (default 2)")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("build", help="build the library (cached) and print where it is")
    d = sub.add_parser("distance", help="throughput, SINR, MCS, HARQ versus distance")
    d.add_argument("--distances", type=float, nargs="+",
                   default=[50, 100, 150, 200, 250, 275, 300, 325, 350, 400])
    d.add_argument("--sim-time", type=float, default=3.0, help="simulated seconds per distance (default 3)")
    d.add_argument("--warmup", type=float, default=0.5, help="seconds before the measurement window (default 0.5)")
    d.add_argument("--error-model", default="ns3::NrEesmIrT1")
    d.add_argument("--pathloss", choices=("logdistance", "uma-los"), default="logdistance",
                   help="log-distance (exponent 3.52, cellshare's radio model) or 3GPP UMa LoS, no shadowing")
    d.add_argument("--tx-power", type=float, default=46.0, help="gNB transmit power, dBm (default 46)")
    d.add_argument("--rate", type=float, default=600.0, help="offered UDP load, Mbit/s (default 600: above the peak)")
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--out", type=Path, default=DATA / "nr-lena-distance.json")
    bl = sub.add_parser("bler", help="the error model's BLER versus SINR per MCS")
    bl.add_argument("--error-model", default="ns3::NrEesmIrT1")
    bl.add_argument("--rbs", type=int, default=273, help="resource blocks of the allocation (default 273)")
    bl.add_argument("--symbols", type=int, default=12, help="data OFDM symbols (default 12)")
    bl.add_argument("--sinr-min", type=float, default=-10.0)
    bl.add_argument("--sinr-max", type=float, default=30.0)
    bl.add_argument("--sinr-step", type=float, default=0.25)
    bl.add_argument("--out", type=Path, default=DATA / "nr-lena-bler.json")
    c = sub.add_parser("compare", help="cellshare's NR cell against the stored run (no 5G-LENA needed)")
    c.add_argument("--distances", type=float, nargs="+", help="a subset of the stored run's distances (default all)")
    c.add_argument("--duration", type=float, default=3.0, help="simulated seconds per run (default 3, as 5G-LENA's)")
    c.add_argument("--out", type=Path, default=DATA / "nr-lena-compare.json")
    a = p.parse_args()
    if a.cmd == "compare":
        cmd_compare(a)
        return
    if a.jobs < 1:
        fail(f"--jobs {a.jobs}: expected at least 1")
    if a.cmd == "distance":
        check_distance(a)
    elif a.cmd == "bler":
        check_bler(a)
    b = Build(a.nr_src, a.nr_rev, a.jobs)
    info = b.library()
    if a.cmd == "build":
        print(json.dumps(info, indent=1))
        return
    result = cmd_distance(b, a) if a.cmd == "distance" else cmd_bler(b, a)
    args, skip = [], False
    for x in sys.argv[1:]:  # the source's location is this machine's, not part of the command
        if skip or x.startswith("--nr-src"):
            skip = x == "--nr-src" and not skip
            continue
        args.append(x)
    result["provenance"]["command"] = "python tools/nr_lena.py --nr-src NR_V4_0_CHECKOUT " + " ".join(args)
    result["provenance"]["generated"] = datetime.date.today().isoformat()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
