"""LLN scenarios (a top-level ``[lln]`` table): multi-hop low-power networks with TCP Reno
uplinks and DTPA, run by the ``cellshare-lln`` Rust crate."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    import pyarrow as pa

from . import _core


def is_lln(text: str) -> bool:
    """Whether TOML `text` is an LLN scenario (has a top-level ``[lln]`` table). Text that
    is not valid TOML is not (the cellular parser then reports the syntax error). A caller
    that also needs the scenario's table parses once with
    :func:`cellshare.scenario_files.prepare` instead."""
    from .scenario_files import is_lln_table, read_table

    doc = read_table(text)
    return doc is not None and is_lln_table(doc)


@dataclass
class LlnResult:
    """Results of one LLN run: ``summary`` (what summary.json holds) and the node table."""

    raw: dict
    wall_s: float
    summary: dict = field(init=False)

    def __post_init__(self) -> None:
        self.summary = {**self.raw, "wall_s": self.wall_s,
                        "sim_speed": self.raw["duration_s"] / self.wall_s if self.wall_s > 0 else float("inf")}

    def nodes(self) -> pa.Table:
        """One row per sensor node."""
        import pyarrow as pa  # loaded when a table is asked for: the CLI's checks stay light

        return pa.Table.from_pylist(self.raw["nodes"])

    def node(self, node_id: int) -> dict:
        """The results of node `node_id` (1-based)."""
        return self.raw["nodes"][node_id - 1]


def run_lln_text(text: str) -> LlnResult:
    """Runs an LLN scenario given as TOML text."""
    t0 = time.perf_counter()
    raw = json.loads(_core.lln_run(text))
    return LlnResult(raw, time.perf_counter() - t0)


def run_lln(scenario: Mapping[str, Any] | str | Path) -> LlnResult:
    """Runs an LLN scenario given as a mapping or a TOML file path (read and converted as
    :func:`cellshare.run` does; a bad one raises :class:`_core.ScenarioInvalid`)."""
    from .scenario_files import load_scenario, without_line

    text, _ = load_scenario(scenario)
    try:
        return run_lln_text(text)
    except _core.ScenarioInvalid as e:
        if isinstance(scenario, Mapping):
            raise without_line(e) from None
        raise


def write_lln_result(result: LlnResult, folder: Path, scenario_text: str | None = None) -> None:
    """Writes summary.json and nodes.parquet (and the scenario) into `folder`."""
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(result.summary, indent=2, sort_keys=True) + "\n")
    pq.write_table(result.nodes(), folder / "nodes.parquet")
    if scenario_text is not None:
        (folder / "scenario.toml").write_text(scenario_text)
