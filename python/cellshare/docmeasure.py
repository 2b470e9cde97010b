"""The measurements the documentation quotes besides the benchmark's (:mod:`cellshare.bench`),
each written to a JSON artefact under ``tools/data`` that :mod:`cellshare.docgen` renders the
page from, with the command that made it and the machine and its load:

- ``apps`` (``tools/data/apps-speed.json``, docs/apps.md "Speed"): ``scenarios/apps-100ues.toml``
  — a video call at 50 UEs and a robustMPC stream at the other 50 — and the same cell with a
  call at every UE, a stream at every UE and bulk TCP at every UE (the baseline), as simulated
  seconds per CPU second of the process around :func:`cellshare.api.run` (best of the repeats:
  the machine is shared, so its wall clock measures the other processes too);
- ``memory`` (``tools/data/memory.json``, docs/limits.md): for each scenario of the table, the
  memory the run is estimated to need before it starts (read off the validator's refusal
  under a 1 MiB limit) and the peak resident memory of ``cellshare run S --out DIR`` in a
  fresh process (``wait4``'s ``ru_maxrss``, as ``/usr/bin/time -v`` reports it). A case whose
  run needs more memory or CPU than :data:`CPU_BUDGET_S` allows is not run: its row keeps the
  peak measured before, and the file says so (``"how"``);
- ``sweep`` (``tools/data/sweep-memory.json``, docs/sweeps-and-reports.md): sweeps of runs of
  0.2 simulated s with 45 flows each on 2 local workers, each sweep in a fresh process: its wall
  and CPU time (the sweep's process and its workers), the parent's peak RSS when the runs are
  done and after writing the dataset, and the workers'; each sweep's dataset written again
  from its run folders alone and ``cellshare report`` of it, each in a fresh process (peak RSS
  and CPU time); and the 300-run sweep again with its workers replaced every 16 runs.

- ``emu-traces`` (``tools/data/emu-crosscheck-traces.json``, docs/tcp.md "Simulator vs Linux"): the
  cross-check of one download over each shipped trace with CUBIC and BBR, four emulator runs
  per case at staggered starts (``--from OUT`` condenses an earlier run's output folder);
- ``emu-multiflow`` (``tools/data/emu-crosscheck-multiflow.json``, docs/emulator.md "Several
  flows against Linux"): ``cellshare crosscheck`` of the scenarios in :data:`MULTIFLOW_CASES`
  (ten CUBIC flows for 15 s and for 45 s; a CUBIC foreground beside LEDBAT or Legilimens
  backgrounds at other UEs), each flow's simulator and Linux statistics and the verdicts. Needs
  root, the emulator and the eBPF controls loaded (``cellshare bpf load ledbat legilimens``);
  Linux TCP is not deterministic, so a new run gives other numbers;
- ``legilimens-in-step`` (``tools/data/legilimens-in-step.json``, docs/legilimens.md "Known
  limits", docs/emulator.md): the simulator's Legilimens backgrounds of
  ``scenarios/emu-mixed-legilimens.toml`` started together or apart, on identical, unequal and
  fading channels (:mod:`cellshare.legilimens_in_step`; deterministic, a few seconds).

``python -m cellshare.docmeasure apps|memory|sweep|emu-multiflow|emu-traces|legilimens-in-step --out tools/data/FILE.json``,
then ``python -m cellshare.docgen --write``.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any, Optional

from .bench import _machine

ROOT = Path(__file__).resolve().parents[2]
PKG = Path(__file__).resolve().parent

#: The apps-speed variants: name → how the flows of scenarios/apps-100ues.toml are replaced
#: (None: the scenario as it is).
_ALL = "all"
APPS_VARIANTS: dict[str, Optional[list]] = {
    "mix": None,
    "call": [{"name": "call", "ues": _ALL, "app": {"kind": "video_call"}, "transport": {"kind": "udp"}}],
    "stream": [{"name": "video", "ues": _ALL, "app": {"kind": "stream", "abr": {"kind": "mpc"}},
                "transport": {"kind": "tcp"}}],
    "bulk": [{"name": "bulk", "ues": _ALL, "transport": {"kind": "tcp"}}],
}
APPS_SCENARIO = "scenarios/apps-100ues.toml"

#: Most CPU seconds one memory case may take unless it names its own (`cpu_budget_s`: the
#: 100,000-UE case needs about 110); a case over its budget, or marked `measure: False` (more
#: memory than the machine can spare), keeps the peak measured before.
CPU_BUDGET_S = 60.0


def _read(rel: str) -> tuple[dict, Path]:
    p = (PKG / rel) if rel.startswith("data/") else (ROOT / rel)
    return tomllib.loads(p.read_text()), p.parent


def _set(doc: dict, path: str, value: Any) -> None:
    parts = path.split(".")
    for k in parts[:-1]:
        doc = doc.setdefault(k, {})
    doc[parts[-1]] = value


def _scenario(case: dict) -> tuple[dict, Path]:
    doc, base = _read(case["scenario"])
    doc = copy.deepcopy(doc)
    for path, value in case.get("set", {}).items():
        _set(doc, path, value)
    return doc, base


# -- apps speed -----------------------------------------------------------------------------

def run_apps(repeat: int = 3) -> dict:
    from . import __version__, api

    doc, base = _read(APPS_SCENARIO)
    machine = _machine()
    samples: dict[str, list] = {k: [] for k in APPS_VARIANTS}
    for _ in range(repeat):
        for k, flows in APPS_VARIANTS.items():
            d = copy.deepcopy(doc)
            if flows is not None:
                d["flows"] = copy.deepcopy(flows)
            c0 = time.process_time()
            r = api.run(d, base_dir=base)
            cpu = time.process_time() - c0
            samples[k].append({"cpu_s": cpu, "duration_s": r.summary["duration_s"]})
    out = {"generated_by": f"python -m cellshare.docmeasure apps --out FILE --repeat {repeat}", "cellshare": __version__,
           "machine": machine, "scenario": APPS_SCENARIO, "repeat": repeat,
           "how": "simulated seconds per CPU second of the process around cellshare.api.run, best of the repeats",
           "variants": {}}
    for k, s in samples.items():
        best = min(x["cpu_s"] for x in s)
        out["variants"][k] = {"flows": APPS_VARIANTS[k], "duration_s": s[0]["duration_s"], "best_cpu_s": best,
                              "speed": s[0]["duration_s"] / best, "cpu_s": [x["cpu_s"] for x in s]}
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    return out


# -- memory: estimated against measured -----------------------------------------------------

def _ues(count: int, channel: dict) -> list:
    return [{"count": count, "channel": channel}]


_RADIO = {"kind": "radio", "distance_range_m": [50.0, 1000.0]}
_FIXED = {"kind": "fixed", "rate_mbps": 20.0}
_TCP = {"kind": "tcp", "cc": {"kind": "cubic"}}
_WEB = {"kind": "web", "connections": 32, "pages": 0,
        "page": {"kind": "fixed", "main_bytes": 100_000, "object_bytes": 10_000, "objects": 10_000}}

#: The rows of the table in docs/limits.md: a label and its cases (a scenario, the keys set in
#: it, `limits` raised where the defaults refuse it, and the peak measured before with
#: `/usr/bin/time -v`, kept when the case is not run: `measure = False` for a case that does
#: not fit the shared machine's memory, or a run over :data:`CPU_BUDGET_S`).
MEMORY_ROWS: list[dict] = [
    {"label": "`data/bench.toml` (100 UEs, 60 s, 100 ms traces)",
     "cases": [{"scenario": "data/bench.toml", "previous_peak_mib": 183}]},
    {"label": "the same, 5 s / 300 s / 1,200 s",
     "cases": [{"scenario": "data/bench.toml", "set": {"simulation.duration_s": d}, "previous_peak_mib": m}
               for d, m in ((5.0, 145), (300.0, 236), (1200.0, 302))]},
    {"label": "`data/bench-network.toml` (7 cells × 30 moving UEs)",
     "cases": [{"scenario": "data/bench-network.toml", "previous_peak_mib": 207}]},
    {"label": "`scenarios/apps-100ues.toml`", "cases": [{"scenario": "scenarios/apps-100ues.toml", "previous_peak_mib": 195}]},
    {"label": "`scenarios/workload-at-scale.toml` (Poisson arrivals: not estimated)",
     "cases": [{"scenario": "scenarios/workload-at-scale.toml", "previous_peak_mib": 147}]},
    {"label": "`scenarios/radio-cell.toml`", "cases": [{"scenario": "scenarios/radio-cell.toml", "previous_peak_mib": 140}]},
    {"label": "1,000 radio UEs, one TCP flow each, 30 s",
     "cases": [{"scenario": "data/bench.toml", "set": {"simulation.duration_s": 30.0, "ues": _ues(1000, _RADIO)},
                "previous_peak_mib": 211}]},
    {"label": "1,000 fixed UEs, five TCP flows each, 30 s",
     "cases": [{"scenario": "data/bench.toml", "set": {"simulation.duration_s": 30.0, "ues": _ues(1000, _FIXED),
                                                       "flows": [{"ues": _ALL, "transport": _TCP}] * 5},
                "previous_peak_mib": 393}]},
    {"label": "100 UEs, web pages of 10,000 objects over 32 connections, 30 s",
     "cases": [{"scenario": "data/bench.toml", "set": {"simulation.duration_s": 30.0,
                                                       "flows": [{"name": "web", "ues": _ALL, "app": _WEB, "transport": _TCP}]},
                "previous_peak_mib": 443}]},
    {"label": "10,000 fixed UEs, one TCP flow each, 5 s",
     "cases": [{"scenario": "data/bench.toml", "set": {"simulation.duration_s": 5.0, "ues": _ues(10_000, _FIXED)},
                "previous_peak_mib": 431}]},
    {"label": "100,000 radio UEs, one TCP flow each, 2 s",
     "cases": [{"scenario": "data/bench.toml", "set": {"simulation.duration_s": 2.0, "ues": _ues(10_000, _RADIO) * 10},
                "limits": {"max_memory_mb": 16384}, "cpu_budget_s": 300.0, "previous_peak_mib": 3535}]},
]


def _estimate_mib(doc: dict, base: Path, limits: dict) -> int:
    """The run's memory estimate, read off the validator's refusal under a 1 MiB limit."""
    from . import _core, api

    try:
        api.validate(doc, base_dir=base, limits={**limits, "max_memory_mb": 1})
    except _core.ScenarioInvalid as e:
        m = re.search(r"estimated ([0-9,]+) MiB", str(e))
        if m:
            return int(m.group(1).replace(",", ""))
        raise
    raise RuntimeError("the validator accepted a run under a 1 MiB memory limit")


_RUN = "import sys; from cellshare.cli import main; sys.argv[0] = 'cellshare'; sys.exit(main())"


def _measure_peak(doc: dict, limits: dict, budget_s: float = CPU_BUDGET_S) -> Optional[dict]:
    """`cellshare run S --out DIR` in a fresh process: its peak RSS (MiB) and CPU seconds;
    None when it needed more than `budget_s` CPU seconds."""
    import tomli_w

    with tempfile.TemporaryDirectory(prefix="cellshare-mem-") as tmp:
        # The scenarios of the table name no files, so the copy may live anywhere.
        f = Path(tmp) / "scenario.toml"
        f.write_text(tomli_w.dumps(doc))
        argv = [sys.executable, "-c", _RUN, "run", str(f), "--out", str(Path(tmp) / "out")]
        for k, v in limits.items():
            argv += [f"--{k.replace('_', '-')}", str(v)]

        def cap() -> None:
            import resource

            resource.setrlimit(resource.RLIMIT_CPU, (int(budget_s), int(budget_s) + 5))

        # stderr to a file: a pipe nobody reads until the run ends could fill and stall it
        with open(Path(tmp) / "stderr", "w+") as log:
            p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log, preexec_fn=cap)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            log.seek(0)
            err = log.read()
        if p.returncode in (-9, -24):  # SIGKILL, SIGXCPU: over the CPU budget
            return None
        if p.returncode != 0:
            raise RuntimeError(f"cellshare run failed ({p.returncode}): {err.strip()[-500:]}")
    return {"peak_mib": ru.ru_maxrss / 1024, "cpu_s": ru.ru_utime + ru.ru_stime}


def run_memory() -> dict:
    from . import __version__

    machine = _machine()
    rows = []
    for row in MEMORY_ROWS:
        cases = []
        for case in row["cases"]:
            doc, base = _scenario(case)
            limits = case.get("limits", {})
            c = {"scenario": case["scenario"], "set": case.get("set", {}), "limits": limits,
                 "estimated_mib": _estimate_mib(doc, base, limits)}
            budget = float(case.get("cpu_budget_s", CPU_BUDGET_S))
            m = None if case.get("measure") is False else _measure_peak(doc, limits, budget)
            if m is not None:
                c.update(peak_mib=round(m["peak_mib"], 1), cpu_s=round(m["cpu_s"], 2),
                         how="measured: ru_maxrss of cellshare run S --out DIR in a fresh process")
            else:
                why = ("it needs more memory than the shared machine can spare" if case.get("measure") is False
                       else f"it needs more than {budget:g} CPU s")
                c.update(peak_mib=case["previous_peak_mib"],
                         how=f"not re-measured ({why}): the peak measured before with "
                             "`/usr/bin/time -v cellshare run S --out DIR`")
            print(f"{row['label']}: {c['estimated_mib']} MiB estimated, {c['peak_mib']:.0f} MiB peak", file=sys.stderr)
            cases.append(c)
        rows.append({"label": row["label"], "cases": cases})
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    return {"generated_by": "python -m cellshare.docmeasure memory --out FILE", "cellshare": __version__,
            "machine": machine, "rows": rows}


# -- sweep memory ---------------------------------------------------------------------------

SWEEP_RUNS = (20, 300, 1000)
SWEEP_WORKERS = 2
#: The sweep rerun with its local workers replaced this often (instead of
#: ``sweeps.TASKS_PER_WORKER``), to measure what recycling costs.
RECYCLE_RUNS = 300
RECYCLE_TASKS = 16

_SWEEP_CHILD = r"""
import json, resource, sys
from cellshare import sweeps
n, workers, tasks, base, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
spec = sweeps.load_sweep({"name": f"memory {n}", "base": json.loads(base), "seeds": n})
running = {}
write_dataset = sweeps.write_dataset
def measured_write(*args, **kw):
    running["peak"] = sweeps._peak_rss_mb()  # the runs are done, the dataset not yet written
    return write_dataset(*args, **kw)
sweeps.write_dataset = measured_write
o = sweeps.run_sweep(spec, out, workers=workers, tasks_per_worker=tasks)
cpu = sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                             resource.getrusage(resource.RUSAGE_CHILDREN)))
print(json.dumps({"runs": o.total, "wall_s": o.wall_s, "cpu_s": cpu, "parent_peak_rss_mb": running["peak"],
                  "parent_peak_rss_with_dataset_mb": o.parent_peak_rss_mb,
                  "worker_peak_rss_mb": o.worker_peak_rss_mb}))
"""

#: Writes a finished sweep's dataset again from its run folders (the same sweep as
#: :data:`_SWEEP_CHILD`'s), alone in a fresh process.
_DATASET_CHILD = r"""
import json, sys
from pathlib import Path
from cellshare import sweeps
n, base, out = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
spec = sweeps.load_sweep({"name": f"memory {n}", "base": json.loads(base), "seeds": n})
sweeps.write_dataset(spec, spec.runs(), out)
"""


def _sweep_base() -> dict:
    doc, _ = _read("data/bench.toml")
    doc = copy.deepcopy(doc)
    doc["simulation"]["duration_s"] = 0.2
    doc["ues"][0]["count"] = 45
    return doc


def _fresh(argv: list, what: str, ok_codes: tuple = (0,)) -> dict:
    """Runs `argv` in a fresh process: its stdout, peak RSS (MB, ``wait4``'s ``ru_maxrss``),
    CPU seconds and wall seconds; an exit status outside `ok_codes` raises."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        if code not in ok_codes:
            raise RuntimeError(f"{what} failed ({code}):\n{err.read()[-2000:]}")
        return {"stdout": out.read(), "peak_rss_mb": ru.ru_maxrss / 1024, "cpu_s": ru.ru_utime + ru.ru_stime,
                "wall_s": wall}


def _sweep(n: int, workers: int, tasks: int, out: Path) -> dict:
    r = _fresh([sys.executable, "-c", _SWEEP_CHILD, str(n), str(workers), str(tasks), json.dumps(_sweep_base()),
                str(out)], f"sweep of {n} runs")
    return json.loads(r["stdout"].strip().splitlines()[-1])


def run_sweep_memory(counts: tuple = SWEEP_RUNS, workers: int = SWEEP_WORKERS) -> dict:
    """Each sweep in a fresh process; then, each in a fresh process of its own, its dataset
    written again from the run folders alone and ``cellshare report`` of it; and the
    :data:`RECYCLE_RUNS`-run sweep again with workers replaced every :data:`RECYCLE_TASKS` runs."""
    from . import __version__, sweeps

    machine = _machine()
    rows = []
    with tempfile.TemporaryDirectory(prefix="cellshare-sweepmem-") as tmp:
        for n in counts:
            out = Path(tmp) / f"s{n}"
            r = _sweep(n, workers, sweeps.TASKS_PER_WORKER, out)
            ds = _fresh([sys.executable, "-c", _DATASET_CHILD, str(n), json.dumps(_sweep_base()), str(out)], f"the dataset of {n} runs")
            rep = _fresh([sys.executable, "-c", _RUN, "report", str(out)], f"the report of {n} runs")
            r.update(dataset_alone_peak_rss_mb=round(ds["peak_rss_mb"], 1), dataset_alone_cpu_s=round(ds["cpu_s"], 2),
                     report_peak_rss_mb=round(rep["peak_rss_mb"], 1), report_cpu_s=round(rep["cpu_s"], 2))
            print(f"{n} runs: {r}", file=sys.stderr)
            rows.append(r)
            shutil.rmtree(out)
        rec = _sweep(RECYCLE_RUNS, workers, RECYCLE_TASKS, Path(tmp) / "recycle")
        rec["tasks_per_worker"] = RECYCLE_TASKS
        print(f"{RECYCLE_RUNS} runs, workers replaced every {RECYCLE_TASKS}: {rec}", file=sys.stderr)
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    return {"generated_by": "python -m cellshare.docmeasure sweep --out FILE", "cellshare": __version__,
            "machine": machine, "workers": workers, "base": "data/bench.toml with 45 UEs (one TCP flow each), 0.2 s",
            "run_duration_s": 0.2, "flows_per_run": 45, "tasks_per_worker": sweeps.TASKS_PER_WORKER, "rows": rows,
            "recycled": rec}


#: The multi-flow cross-checks: (scenario, what it checks).
MULTIFLOW_CASES = (
    ("scenarios/emu-bench-10ues.toml", "ten CUBIC flows, 15 s"),
    ("scenarios/emu-crosscheck-10ues.toml", "ten CUBIC flows, 45 s"),
    ("scenarios/emu-mixed-ledbat.toml", "CUBIC beside LEDBAT at 3 other UEs, 45 s"),
    ("scenarios/emu-mixed-legilimens.toml", "CUBIC beside Legilimens at 3 other UEs, 45 s"),
)
_FLOW_KEYS = ("name", "ue", "sim_mbps", "emu_mbps", "throughput_rel_diff", "sim_drops", "emu_drops",
              "sim_retx_per_drop", "emu_retx_per_drop", "retx_per_drop_rel_diff", "sim_timeouts", "emu_timeouts",
              "sim_rtt_p50_ms", "emu_rtt_p50_ms", "rtt_rel_diff")
_VERDICT_KEYS = ("ok", "throughput_within_tolerance", "retx_per_drop_within_tolerance", "timeouts_within_tolerance",
                 "rtt_within_tolerance", "emu_kept_real_time", "throughput_tolerance", "retx_per_drop_tolerance",
                 "timeouts_per_minute_tolerance", "rtt_tolerance", "rtt_statistic")


def run_emu_multiflow() -> dict:
    """``cellshare crosscheck S --out DIR`` of each multi-flow case, each in a fresh process."""
    from . import __version__

    machine = _machine()
    cases = []
    with tempfile.TemporaryDirectory(prefix="cellshare-multiflow-") as tmp:
        for scenario, what in MULTIFLOW_CASES:
            out = Path(tmp) / Path(scenario).stem
            r = _fresh([sys.executable, "-c", _RUN, "crosscheck", str(ROOT / scenario), "--out", str(out)],
                       f"cellshare crosscheck {scenario}", ok_codes=(0, 1))
            d = json.loads((out / "crosscheck.json").read_text())
            case = {"scenario": scenario, "what": what, **{k: d[k] for k in _VERDICT_KEYS},
                    "flows": [{k: f[k] for k in _FLOW_KEYS} for f in d["flows"]], "wall_s": round(r["wall_s"], 1)}
            print(f"{scenario}: within tolerances {case['ok']}", file=sys.stderr)
            cases.append(case)
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    return {"generated_by": "python -m cellshare.docmeasure emu-multiflow --out FILE", "cellshare": __version__,
            "machine": machine, "commands": [f"cellshare crosscheck {s} --out OUT" for s, _ in MULTIFLOW_CASES],
            "cases": cases}


#: The emulator cross-check over the shipped traces (docs/tcp.md), as the page gives it.
TRACE_CASES = ("ATT-LTE-driving.down", "TMobile-LTE-driving.down", "TMobile-UMTS-driving.down",
               "Verizon-EVDO-driving.down")
TRACE_ARGS = ("--repeat", "4", "--offset-step", "250", "--attempts", "2")
TRACE_CCS = ("cubic", "bbr")


def _range(runs: Optional[list], key: str) -> Optional[list]:
    vals = [r[key] for r in runs or [] if r.get(key) is not None]
    return [min(vals), max(vals)] if vals else None


def condense_traces(doc: dict) -> dict:
    """`crosscheck.json` of the trace cross-check, one entry per (trace, cc) with each side's
    mean over the runs, the range of Linux's runs and the relative differences."""
    cases = []
    for c in doc["cases"]:
        (r,) = c["compare"]["flows"]
        runs = r.get("emu_runs")
        cases.append({
            "trace": c["trace"], "cc": c["cc"],
            "mbps": {"sim": r["sim_mbps"], "emu": r["emu_mbps"], "emu_range": _range(runs, "throughput_mbps"),
                     "rel_diff": r["throughput_rel_diff"]},
            "retransmits": {"sim": r["sim_retransmits"], "emu": r["emu_retransmits"], "emu_range": _range(runs, "retrans")},
            "drops": {"sim": r["sim_drops"], "emu": r["emu_drops"], "emu_range": _range(runs, "drops")},
            "timeouts": {"sim": r["sim_timeouts"], "emu": r["emu_timeouts"], "emu_range": _range(runs, "rto")},
            "rtt_p50_ms": {"sim": r["sim_rtt_p50_ms"], "emu": r["emu_rtt_p50_ms"], "emu_range": _range(runs, "rtt_ms"),
                           "rel_diff": r["rtt_rel_diff"]},
            "retx_per_drop": {"sim": r["sim_retx_per_drop"], "emu": r["emu_retx_per_drop"],
                              "rel_diff": r["retx_per_drop_rel_diff"]},
            "real_time": "kept" if c["compare"].get("emu_kept_real_time") else "not kept",
        })
    cmp0 = doc["cases"][0]["compare"]
    return {"what": "The simulator against Linux TCP in the emulator (docs/tcp.md): one UE, one 60 s download over "
                    "each trace, a 512 KB RLC buffer, four emulator runs per case starting 0, 250, 500 and 750 ms into "
                    "the trace, the simulator aligned to each; each side the mean of its four runs, emu_range the "
                    "range of Linux's runs, rel_diff relative to the simulator.",
            "generated_by": "cellshare crosscheck scenarios/emu-trace.toml --out OUT " + " ".join(TRACE_ARGS) + " "
                            + " ".join(f"--trace TRACES/{t}" for t in TRACE_CASES) + " "
                            + " ".join(f"--cc {c}" for c in TRACE_CCS)
                            + "; condensed by python -m cellshare.docmeasure emu-traces",
            "duration_s": 60,
            "tolerances": {"throughput": cmp0["throughput_tolerance"], "rtt": cmp0["rtt_tolerance"],
                           "retx_per_drop": cmp0["retx_per_drop_tolerance"],
                           "timeouts_per_minute": cmp0["timeouts_per_minute_tolerance"]},
            "cases": cases}


def run_emu_traces(source: Optional[Path] = None) -> dict:
    """The trace cross-check run now (about 35 min of real time), or condensed from the output
    folder `source` of an earlier run of the same command."""
    from . import __version__

    machine = _machine()
    with tempfile.TemporaryDirectory(prefix="cellshare-traces-") as tmp:
        out = source
        if out is None:
            out = Path(tmp) / "xc"
            traces = [a for t in TRACE_CASES for a in ("--trace", str(PKG / "data" / "traces" / t))]
            _fresh([sys.executable, "-c", _RUN, "crosscheck", str(ROOT / "scenarios" / "emu-trace.toml"), "--out", str(out),
                    *TRACE_ARGS, *traces, *[a for c in TRACE_CCS for a in ("--cc", c)]],
                   "the trace cross-check", ok_codes=(0, 1))
        doc = json.loads((out / "crosscheck.json").read_text())
        d = condense_traces(doc)
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    # The loads the emulator runs met (each attempt records its one-minute load at its start):
    # what the real-time runs depended on, whether they ran now or earlier (--from).
    loads = [t["load"] for c in doc["cases"] for t in c.get("attempts", []) if t.get("load") is not None]
    if loads:
        machine["load_1min_before"], machine["load_1min_after"] = round(loads[0], 2), round(loads[-1], 2)
        machine["load_1min_runs"] = [round(min(loads), 2), round(max(loads), 2)]
    return {**d, "cellshare": __version__, "machine": machine}


def _legilimens_in_step() -> dict:
    from .legilimens_in_step import measure
    return measure()


def main(argv: Optional[list] = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m cellshare.docmeasure", description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("apps", "memory", "sweep", "emu-multiflow", "emu-traces", "legilimens-in-step"),
                    help="which measurement")
    ap.add_argument("--out", type=Path, required=True, help="the JSON file to write (tools/data/...)")
    ap.add_argument("--repeat", type=int, default=3, help="apps: runs of each variant, best kept (default 3)")
    ap.add_argument("--from", dest="source", type=Path, metavar="OUT",
                    help="emu-traces: condense the output folder of an earlier run of the same crosscheck command")
    a = ap.parse_args(argv)
    if not 1 <= a.repeat <= 20:
        ap.error(f"--repeat {a.repeat}: expected 1 to 20")
    r = {"apps": lambda: run_apps(a.repeat), "memory": run_memory, "sweep": run_sweep_memory,
         "emu-multiflow": run_emu_multiflow, "emu-traces": lambda: run_emu_traces(a.source),
         "legilimens-in-step": _legilimens_in_step}[a.what]()
    a.out.write_text(json.dumps(r, indent=1) + "\n")
    print(f"written to {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
