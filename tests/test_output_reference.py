"""The result contract (`_core.result_contract()`, described once in crates/py/src/contract.rs):
the generated output reference is current, the files a run writes and the tables and summary
the Python API returns are exactly what it describes; and the notebook conveniences of the
API (a short repr, `dir(cellshare)`, `help(cellshare.run)`)."""

from __future__ import annotations

import json
import pydoc
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cellshare
from cellshare import _core
from cellshare.api import CONTRACT, TABLE_DEFS, Result, run
from cellshare.docs import output_reference
from cellshare.output import write_result

REPO = Path(__file__).resolve().parents[1]
REGENERATE = "python -m cellshare.docs output-reference -o docs/output-reference.md"

#: A small run with every optional table: an interactive app (requests), the three app kinds
#: with event tables, on one cell.
APPS = """
name = "contract-apps"
[simulation]
duration_s = 6
seed = 2
[[ues]]
count = 3
channel = { kind = "fixed", rate_mbps = 10 }
[[ues]]
channel = { kind = "fixed", rate_mbps = 10 }
uplink = { channel = { kind = "fixed", rate_mbps = 5 } }
[[flows]]
name = "ping"
ue = 3
direction = "uplink"
app = { kind = "ping", interval_ms = 200, request_bytes = 100, response_bytes = 100 }
transport = { kind = "tcp" }
[[flows]]
name = "call"
ue = 0
app = { kind = "video_call", max_kbps = 1500 }
transport = { kind = "udp" }
[[flows]]
name = "video"
ue = 1
app = { kind = "stream", abr = { kind = "bola" }, chunks = 3 }
transport = { kind = "tcp" }
[[flows]]
name = "web"
ue = 2
app = { kind = "web", pages = 0, reading_s = 1 }
transport = { kind = "tcp" }
"""

#: A small network (handovers, positions in the per-UE trace).
NETWORK = """
name = "contract-network"
[simulation]
duration_s = 4
seed = 3
[cell]
bandwidth_mhz = 5
[network]
layout = { kind = "positions", sites_m = [[0.0, 0.0], [300.0, 0.0]] }
[[ues]]
count = 1
channel = { kind = "radio", fading = "none", shadowing_std_db = 0.0 }
mobility = { kind = "waypoints", points_m = [[0.0, 50.0], [300.0, 50.0]], speeds_kmh = [300.0] }
[[flows]]
ue = 0
transport = { kind = "tcp", cc = { kind = "cubic" } }
"""


def test_the_output_reference_page_is_current():
    page = (REPO / "docs" / "output-reference.md").read_text()
    assert page == output_reference(), f"docs/output-reference.md is stale: run `{REGENERATE}`"


def test_the_docs_module_renders_the_page(tmp_path):
    out = tmp_path / "ref.md"
    p = subprocess.run([sys.executable, "-m", "cellshare.docs", "output-reference", "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert out.read_text() == output_reference()
    p = subprocess.run([sys.executable, "-m", "cellshare.docs", "no-such-page"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2 and "output-reference" in p.stderr


def test_the_page_lists_every_table_column_and_summary_key():
    page = output_reference()
    for t in CONTRACT["tables"]:
        assert f"### `{t['name']}`" in page
        section = page.split(f"### `{t['name']}`", 1)[1].split("\n### ", 1)[0]
        for c in t["columns"]:
            assert re.search(rf"^\| `{re.escape(c['name'])}` \| {c['type']} \|", section, re.M), (t["name"], c["name"])
    for k in CONTRACT["summary"]:
        assert f"| `{k['name']}` |" in page


def _contract_schema(name: str, present: set[str]) -> list[tuple[str, str]]:
    """(column, type) of table `name` as the contract gives it, for a run whose optional
    columns are `present`."""
    return [(c["name"], c["type"]) for c in TABLE_DEFS[name]["columns"] if not c["only"] or c["name"] in present]


def _arrow(t: str) -> pa.DataType:
    return pa.type_for_alias(t)


def _check_folder(folder: Path, result: Result) -> set[str]:
    """Every Parquet file in `folder` is a table of the contract written when it says, with its
    columns, in order, of its types; returns the tables written."""
    written = {p.stem for p in folder.glob("*.parquet")}
    assert written == set(result.tables()), (sorted(written), result.tables())
    for name in written:
        schema = pq.read_schema(folder / f"{name}.parquet")
        got = [(f.name, f.type) for f in schema]
        want = _contract_schema(name, set(schema.names))
        assert [n for n, _ in got] == [n for n, _ in want], name
        for (n, ty), (_, want_ty) in zip(got, want):
            # Summary tables take pyarrow's inferred types: null for a column null in every row.
            if TABLE_DEFS[name]["inferred"] and ty == pa.null():
                continue
            assert ty == _arrow(want_ty), (name, n, ty, want_ty)
        assert result.table(name).schema.remove_metadata() == schema.remove_metadata(), name
    return written


def _run(text: str) -> Result:
    import tomllib

    return run(tomllib.loads(text))


def _default() -> Result:
    """The embedded default scenario, 3 simulated seconds of it."""
    import tomllib

    sc = tomllib.loads(cellshare.default_scenario())
    sc["simulation"]["duration_s"] = 3.0
    return run(sc)


def test_an_apps_run_writes_the_tables_and_columns_of_the_contract(tmp_path):
    r = _run(APPS)
    write_result(r, tmp_path)
    written = _check_folder(tmp_path, r)
    assert {"requests", "video_frames", "stream_chunks", "page_loads"} <= written and "handovers" not in written
    # flows has the interactive app's columns (the first flow is the ping's).
    assert "app_rtt_p95_ms" in pq.read_schema(tmp_path / "flows.parquet").names
    summary = json.loads((tmp_path / "summary.json").read_text())
    present = {k["name"] for k in CONTRACT["summary"] if k["presence"] in ("always", "nullable", "sessions")}
    assert set(summary) == present == set(r.summary)
    assert list(r.summary) == [k["name"] for k in CONTRACT["summary"] if k["name"] in present]


def test_a_network_run_writes_the_tables_and_columns_of_the_contract(tmp_path):
    r = _run(NETWORK)
    write_result(r, tmp_path)
    written = _check_folder(tmp_path, r)
    assert "handovers" in written and not {"requests", "video_frames"} & written
    net = [c["name"] for c in TABLE_DEFS["ue_trace"]["columns"] if c["only"] == "network"]
    assert pq.read_schema(tmp_path / "ue_trace.parquet").names[-len(net):] == net
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert {"cells", "handovers"} <= set(summary) and "video_calls" not in summary


def test_a_plain_run_has_only_the_tables_written_always(tmp_path):
    r = _default()
    write_result(r, tmp_path)
    written = _check_folder(tmp_path, r)
    assert written == {name for name, t in TABLE_DEFS.items() if t["written"] == "always"}
    assert "cells" not in r.summary and "handovers" not in r.summary


def test_the_tables_and_accessors_are_the_contracts():
    assert Result.TABLES == tuple(t["name"] for t in json.loads(_core.result_contract())["tables"])
    for name, t in TABLE_DEFS.items():
        doc = getattr(Result, name).__doc__
        assert t["rows"].removeprefix("one ") in doc and all(f"``{c['name']}``" in doc for c in t["columns"]), name
    with pytest.raises(ValueError, match="expected one of flows, classes"):
        Result.table(object.__new__(Result), "nope")


def test_repr_is_short_and_says_what_the_run_is():
    r = _default()
    text = repr(r)
    assert len(text) < 600, len(text)
    s = r.summary
    assert s["scenario"] in text and f"{len(s['flows'])} flows" in text and f"{len(s['ues'])} UEs" in text
    assert "Mbit/s" in text and "tables: flows, classes" in text
    # The whole CDF is still there, just not in the repr.
    assert len(repr(r.raw)) > 10 * len(text)


def test_dir_lists_the_public_api_without_importing_it():
    names = set(dir(cellshare))
    assert {"run", "validate", "Result", "sweep", "SweepResult", "ScenarioInvalid", "MemoryLimitExceeded",
            "LlnResult", "load_scenario", "default_scenario"} <= names
    assert all(getattr(cellshare, n) is not None for n in cellshare.__all__)
    code = "import sys, cellshare; dir(cellshare); print('pyarrow' in sys.modules, 'cellshare.api' in sys.modules)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.split() == ["False", "False"], p.stdout + p.stderr


def test_help_of_run_shows_the_scenario_mapping_and_its_example_runs():
    text = pydoc.render_doc(cellshare.run, renderer=pydoc.plaintext)
    assert "scenario-reference" in text and "nested dicts" in text
    doc = cellshare.run.__doc__
    m = re.search(r"result = cellshare\.run\((\{.*?\})\)\n", doc, re.S)
    assert m, doc
    scenario = eval(textwrap.dedent(m.group(1)), {})  # the example as the reader would paste it
    scenario["simulation"]["duration_s"] = 2.0
    r = cellshare.run(scenario)
    assert r.summary["scenario"] == "two-ues-pf" and len(r.summary["ues"]) == 2
    # Two saturated 20 Mbit/s UEs share the cell: each gets about half.
    ue_mbps = [u["throughput_mbps"] for u in r.summary["ues"]]
    assert abs(ue_mbps[0] - ue_mbps[1]) < 0.1 * max(ue_mbps)


@pytest.mark.parametrize("base", ["mapping", "file"])
def test_a_sweep_run_error_names_the_key_not_a_line_of_generated_toml(tmp_path, base):
    """A sweep's runs are TOML text generated from the base and the run's values: an error in
    one cites the key path, never "(line N)" of that text."""
    scenario = {"ues": [{"channel": {"kind": "fixed", "rate_mbps": "x"}}], "flows": []}
    if base == "file":
        import tomli_w

        (tmp_path / "base.toml").write_text("# a comment\n\n" + tomli_w.dumps(scenario))
        scenario = str(tmp_path / "base.toml")
    spec = {"base": scenario, "axes": {"bw": {"values": {"ten": {"cell.bandwidth_mhz": 10}}}}}
    from cellshare.sweeps import SweepError

    with pytest.raises(SweepError) as e:
        cellshare.sweep(spec, out=tmp_path / "out")
    msg = str(e.value)
    assert "`ues[0].channel.rate_mbps`" in msg and '"x"' in msg, msg
    assert not re.search(r"line \d", msg), msg
