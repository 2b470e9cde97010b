"""Writing results to an output folder atomically: everything or nothing."""

from __future__ import annotations

import json
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pyarrow.parquet as pq

from .api import Result


@contextmanager
def atomic_dir(out: str | Path) -> Iterator[Path]:
    """Yields a temporary folder beside `out`; on success it replaces `out`, on error it is
    removed, so a failed run never leaves partial output behind."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if out.exists():
        old = out.with_name(f".{out.name}.old")
        if old.exists():
            shutil.rmtree(old)
        out.rename(old)
        tmp.rename(out)
        shutil.rmtree(old)
    else:
        tmp.rename(out)


def write_result(result: Result, folder: Path, scenario_text: str | None = None) -> None:
    """Writes summary.json and the Parquet tables of `result` into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(result.summary, indent=2, sort_keys=True) + "\n")
    pq.write_table(result.flows(), folder / "flows.parquet")
    pq.write_table(result.flow_series(), folder / "flow_series.parquet")
    pq.write_table(result.ue_series(), folder / "ue_series.parquet")
    pq.write_table(result.cell_series(), folder / "cell_series.parquet")
    pq.write_table(result.queue_delay_cdf(), folder / "queue_delay_cdf.parquet")
    pq.write_table(result.flow_trace(), folder / "flow_trace.parquet")
    pq.write_table(result.mode_changes(), folder / "mode_changes.parquet")
    pq.write_table(result.ue_trace(), folder / "ue_trace.parquet")
    pq.write_table(result.classes(), folder / "classes.parquet")
    if result.raw.get("handovers") is not None:
        pq.write_table(result.handovers(), folder / "handovers.parquet")
    if any("app" in f for f in result.raw["flows"]):
        pq.write_table(result.requests(), folder / "requests.parquet")
    if scenario_text is not None:
        (folder / "scenario.toml").write_text(scenario_text)
