"""LLN scenarios: the shipped thesis presets, the CLI on LLN files, errors, and the `dtpa`
reproduction end to end."""

import json

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib

import pyarrow.parquet as pq

from conftest import REPO


def test_presets_are_the_reproduction_topologies():
    from cellshare.reproduce.dtpa import scenario

    for n in (10, 30):
        shipped = tomllib.loads((REPO / "scenarios" / f"lln-{n}-6hop.toml").read_text())
        assert shipped == tomllib.loads(__import__("tomli_w").dumps(scenario(n))), n


def test_run_lln_preset_writes_summary_and_nodes(run_cli, tmp_path):
    out = tmp_path / "lln"
    p = run_cli("run", "scenarios/lln-10-6hop.toml", "--duration", "60", "--out", out)
    assert p.returncode == 0, p.stderr
    assert "Jain" in p.stdout and "goodput" in p.stdout
    s = json.loads((out / "summary.json").read_text())
    assert len(s["nodes"]) == 10 and s["dtpa"] is False
    assert 0 < s["jain_index"] <= 1
    t = pq.read_table(out / "nodes.parquet").to_pydict()
    assert t["hops"] == [1, 2, 3, 4, 5, 6, 2, 3, 4, 5]
    p2 = run_cli("run", "scenarios/lln-10-6hop.toml", "--duration", "60", "--json")
    s2 = json.loads(p2.stdout)
    for k in ("wall_s", "sim_speed"):
        s.pop(k), s2.pop(k)
    assert s == s2, "same seed, same results"


def test_bad_lln_scenarios_exit_2_naming_the_key(run_cli, tmp_path):
    cases = {
        "[lln]\n[lln.topology]\nlinks = [[0, 1]]\n[[lln.nodes]]\nparent = 3\n": "lln.nodes[0].parent",
        "[lln]\n[lln.mac]\nmin_be = 9\n[lln.topology]\nlinks = [[0, 1]]\n[[lln.nodes]]\n": "lln.mac.min_be",
        "[lln]\nqueue = 3\n[lln.topology]\nlinks = [[0, 1]]\n[[lln.nodes]]\n": "queue",
    }
    for text, key in cases.items():
        f = tmp_path / "bad.toml"
        f.write_text(text)
        p = run_cli("run", f, "--out", tmp_path / "o")
        assert p.returncode == 2 and key in p.stderr, (text, p.stderr)
        assert not (tmp_path / "o").exists()
        v = run_cli("validate", f)
        assert v.returncode == 2 and key in v.stderr, (text, v.stderr)


def test_reproduce_dtpa(run_cli, tmp_path):
    out = tmp_path / "dtpa"
    p = run_cli("reproduce", "dtpa", "--out", out, "--no-sensitivity")
    claims = {c["id"]: c for c in json.loads((out / "claims.json").read_text())["claims"]}
    for f in ("reno-by-hop.png", "dtpa-vs-reno.png", "analysis-vs-measurement.png", "dtpa-c-sweep.png", "claims.md"):
        assert (out / f).exists(), f
    # The orders hold: Reno's goodput falls with the hop count, node 1 overflows most, DTPA
    # is fairer and waits longest near the border router. The thesis's numbers (20 %, 23 %,
    # Eq. (4.3) "almost similar") miss, with measured causes (docs/reproductions.md).
    for cid in ("reno-falls-with-hops", "reno-node1-overflows-most", "dtpa-fairer-10", "dtpa-txp-near-10",
                "dtpa-fairer-30", "dtpa-txp-near-30"):
        assert claims[cid]["verdict"] == "holds", claims[cid]
    assert claims["eq-4-3-vs-measured"]["ours"] > 1.25  # RTOs' idle time, which Eq. (4.3) ignores
    missed = [c for c in claims.values() if c["verdict"] != "holds"]
    assert p.returncode == (1 if missed else 0), p.stdout + p.stderr
