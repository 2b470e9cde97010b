"""Measures the resident memory docs/limits.md quotes, into tools/data/mech-limits.json:

- ``guard``: `cellshare run s.toml --out o --max-memory-mb 400` of
  :data:`cellshare.docpages.mechanisms.GUARD` (a Poisson workload the estimate does not count):
  its exit code, its one-line error (the running guard stopping it) and its peak RSS;
- ``validate``: `cellshare validate --max-memory-mb 100000 s.toml` of each scenario of
  :data:`cellshare.docpages.mechanisms.VALIDATED`: its peak RSS;
- ``process``: a fresh interpreter that imported cellshare's command line, pyarrow and
  pyarrow.parquet: its peak RSS (what the estimator's `PROCESS_BYTES` stands for).

Each in a fresh process (``wait4``'s ``ru_maxrss``, as ``/usr/bin/time -v`` reports it); about
two CPU seconds in all. Usage: ``python tools/mech_limits.py --out tools/data/mech-limits.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from cellshare import __version__
from cellshare.bench import _machine
from cellshare.docpages import mechanisms as m

_CLI = "import sys; from cellshare.cli import main; sys.argv[0] = 'cellshare'; sys.exit(main())"
_IMPORTS = "import cellshare.cli, pyarrow, pyarrow.parquet"


def _run(argv: list[str], cwd: Path) -> dict:
    with open(cwd / "stderr", "w+") as log:
        p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=log,
                             env={**os.environ, "COLUMNS": "400"})
        _, status, ru = os.wait4(p.pid, 0)
        log.seek(0)
        err = log.read()
    return {"rc": os.waitstatus_to_exitcode(status), "stderr": err, "peak_mib": round(ru.ru_maxrss / 1024, 1)}


def _cellshare(text: str, *args: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="cellshare-mech-") as tmp:
        (Path(tmp) / "s.toml").write_text(text)
        return _run([sys.executable, "-c", _CLI, *args], Path(tmp))


def measure() -> dict:
    machine = _machine()
    guard = _cellshare(m.GUARD, "run", "s.toml", "--out", "o", "--max-memory-mb", str(m.GUARD_LIMIT_MB))
    guard["limit_mb"] = m.GUARD_LIMIT_MB
    validate = {}
    for k, text in m.VALIDATED.items():
        r = _cellshare(text, "validate", "--max-memory-mb", "100000", "s.toml")
        if r["rc"] != 0:
            raise SystemExit(f"error: validating scenario {k!r} failed ({r['rc']}): {r['stderr'].strip()[-300:]}")
        validate[k] = {"peak_mib": r["peak_mib"]}
    with tempfile.TemporaryDirectory(prefix="cellshare-mech-") as tmp:
        process = _run([sys.executable, "-c", _IMPORTS], Path(tmp))
    if process["rc"] != 0:
        raise SystemExit(f"error: importing cellshare failed: {process['stderr'].strip()[-300:]}")
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    return {"generated_by": m.MECH_LIMITS_COMMAND.replace(m.MECH_LIMITS, "FILE"), "cellshare": __version__,
            "machine": machine,
            "scenarios": {"guard": m.sha256(m.GUARD), **{f"validate-{k}": m.sha256(t) for k, t in m.VALIDATED.items()}},
            "guard": guard, "validate": validate, "process": {"imports": _IMPORTS, "peak_mib": process["peak_mib"]}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the JSON file to write")
    a = ap.parse_args(argv)
    d = measure()
    Path(a.out).write_text(json.dumps(d, indent=1, ensure_ascii=False) + "\n")
    peaks = ", ".join(f"{k} {v['peak_mib']} MiB" for k, v in d["validate"].items())
    print(f"wrote {a.out}: guard peak {d['guard']['peak_mib']} MiB, validate {peaks}, "
          f"process {d['process']['peak_mib']} MiB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
