"""Legilimens in the cell: the Figure 7 and Figure 13 reproductions end to end, plus the
traces that say why a flow yielded."""

import json

import pyarrow.parquet as pq


def _claims(out):
    return {c["id"]: c for c in json.loads((out / "claims.json").read_text())}


def test_legilimens_onoff_yields_and_recaptures(run_cli, tmp_path):
    out = tmp_path / "onoff"
    run_cli("reproduce", "legilimens-onoff", "--out", out)
    c = _claims(out)
    for key in ("yields", "foreground-unharmed", "recaptures", "uses-spare", "better-than-lpt"):
        assert c[key]["holds"], c[key]
    assert (out / "legilimens-onoff.png").stat().st_size > 0
    # The mode changes behind the yield are in the run's outputs.
    modes = pq.read_table(out / "runs" / "legilimens" / "mode_changes.parquet").to_pydict()
    bg = [m for m, n in zip(modes["mode"], modes["name"]) if n == "background"]
    assert {0, 1, 2, 3, 4} <= set(bg), "NORMAL, GAP I-III and back-off all occur"
    trace = pq.read_table(out / "runs" / "legilimens" / "flow_trace.parquet").to_pydict()
    assert any(e is not None and e > 0 for e in trace["estimate"])


def test_legilimens_keeps_its_queue_nearly_empty(run_cli, tmp_path):
    out = tmp_path / "queues"
    p = run_cli("reproduce", "legilimens-queues", "--out", out)
    assert p.returncode == 0, p.stdout + p.stderr
    c = _claims(out)
    assert all(x["holds"] for x in c.values())
    q = pq.read_table(out / "runs" / "legilimens" / "ue_trace.parquet").to_pydict()
    assert len(q["t_s"]) > 100
