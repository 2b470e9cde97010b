"""The Mahimahi traces ship with cellshare: package data (with their provenance), compiled into
the extension under the same names, named `builtin:NAME` by scenarios and reproductions,
and resolved from any folder without a path or an environment variable."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

import cellshare
from cellshare import _core, traces
from cellshare import reproduce as rp

from conftest import REPO


def test_the_package_data_and_the_compiled_traces_are_the_same_files():
    assert traces.names() == sorted(_core.builtin_traces())
    assert len(traces.names()) == 9
    for name in traces.names():
        assert traces.path(name).is_file() and traces.path("builtin:" + name) == traces.path(name)
    with pytest.raises(KeyError, match="no shipped trace 'nope.down'"):
        traces.path("builtin:nope.down")


def test_the_readme_names_provenance_and_licence_and_its_table_is_measured():
    text = (traces.DIR / "README.md").read_text()
    for must in ("Winstein", "Sivaraman", "Balakrishnan", "NSDI 2013", "Mahimahi", "GPL", "COPYING"):
        assert must in text, must
    assert (traces.DIR / "COPYING").read_text().startswith("                    GNU GENERAL PUBLIC LICENSE")
    for must in ("Abbasloo", "C2TCP", "JSAC", "4b5b2413543eec935144172330cd96c230294f0f", "MIT", "COPYING.c2tcp"):
        assert must in text, must
    assert (traces.DIR / "COPYING.c2tcp").read_text().startswith("MIT License")
    rows = re.findall(r"^\| `([^`]+)` \| (\w+) \| ([\d.]+) \| ([\d.]+) \| `([0-9a-f]{64})` \|$", text, re.M)
    assert sorted(r[0] for r in rows) == traces.names()
    for name, direction, period, rate, digest in rows:
        s = traces.stats(name)
        assert direction == ("downlink" if name.endswith(".down") else "uplink")
        assert float(period) == pytest.approx(s["period_s"], abs=0.05), name
        assert float(rate) == pytest.approx(s["mean_mbps"], abs=0.005), name
        assert digest == hashlib.sha256(traces.path(name).read_bytes()).hexdigest(), name


def test_a_scenario_names_a_shipped_trace_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sc = {"simulation": {"duration_s": 2.0, "seed": 1},
          "ues": [{"channel": {"kind": "trace", "file": "builtin:TMobile-LTE-driving.down"}}],
          "flows": [{"ue": 0, "transport": {"kind": "cbr", "rate_mbps": 100.0}}]}
    by_name = cellshare.run(sc).summary
    sc["ues"][0]["channel"]["file"] = str(traces.path("TMobile-LTE-driving.down"))
    by_path = cellshare.run(sc).summary
    # The same bytes: the same capacity, byte for byte.
    assert by_name["flows"][0]["bytes_delivered"] == by_path["flows"][0]["bytes_delivered"] > 0


def test_an_unknown_builtin_trace_names_the_key_and_the_shipped_ones(run_cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[ues]]\nchannel = { kind = "trace", file = "builtin:ATT-LTE.down" }\n'
                   '[[flows]]\nue = 0\ntransport = { kind = "cbr", rate_mbps = 1.0 }\n')
    p = run_cli("validate", bad)
    assert p.returncode == 2
    line = " ".join(p.stderr.split())
    assert "`ues[0].channel.file`: got \"builtin:ATT-LTE.down\", expected one of the shipped traces" in line
    assert "builtin:ATT-LTE-driving.down" in line and len(p.stderr.strip().splitlines()) <= 3


def test_reproductions_declare_the_traces_they_read():
    reads = {e.name: e.traces for e in rp.all_experiments() if e.traces}
    assert set(reads) == {"bode", "bode-apps", "bode-diffserv"}
    for name, files in reads.items():
        assert set(files) <= set(traces.names()), name
    ctx = rp.Context(out=Path("."), experiment=rp.REGISTRY["bode-diffserv"])
    assert ctx.trace("ATT-LTE-driving.down") == "builtin:ATT-LTE-driving.down"
    with pytest.raises(KeyError, match="not declared"):
        ctx.trace("Verizon-EVDO-driving.down")


def test_reproduce_traces_dir_needs_the_names_and_ignores_other_files(run_cli, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "ATT-LTE-driving.down").write_bytes(traces.path("ATT-LTE-driving.down").read_bytes())
    (folder / "unrelated.down").write_text("1\n2\n")
    # TMobile-LTE-driving.down is missing: exit 2, one line naming it, nothing written.
    out = tmp_path / "out"
    p = run_cli("reproduce", "bode-diffserv", "--traces", folder, "--out", out)
    assert p.returncode == 2, p.stderr
    line = " ".join(p.stderr.split())
    assert "TMobile-LTE-driving.down" in line and "other files are ignored" in line
    assert not out.exists()
    # A reproduction that reads no trace refuses the flag.
    p = run_cli("reproduce", "pf-fairness", "--traces", folder, "--out", out)
    assert p.returncode == 2 and "reads no traces" in p.stderr
    # With both names there it runs on them (the extra file ignored) and says which it read.
    (folder / "TMobile-LTE-driving.down").write_bytes(traces.path("TMobile-LTE-driving.down").read_bytes())
    p = run_cli("reproduce", "bode-diffserv", "--traces", folder, "--out", out, "--no-sensitivity")
    assert p.returncode in (0, 1), p.stderr
    inputs = json.loads((out / "claims.json").read_text())["inputs"]["traces"]
    assert [i["trace"] for i in inputs] == ["ATT-LTE-driving.down", "TMobile-LTE-driving.down"]
    assert all(i["source"].startswith(str(folder.resolve())) for i in inputs)
    assert inputs[0]["sha256"] == hashlib.sha256(traces.path("ATT-LTE-driving.down").read_bytes()).hexdigest()
    scen = (out / "runs" / "ATT-LTE-driving-bode" / "scenario.toml").read_text()
    assert str(folder.resolve() / "ATT-LTE-driving.down") in scen


def test_nothing_a_user_reads_or_runs_points_beside_the_repository():
    """The developers' `../shared` folder is not shipped: no scenario, package file, page or
    README refers to it."""
    pattern = re.compile(r"\.\./shared|shared/(traces|papers)")
    found = []
    for base in ("docs", "python", "scenarios"):
        for p in (REPO / base).rglob("*"):
            if p.is_file() and p.suffix in (".md", ".py", ".toml", ".json", ".yml", ".txt", ".c", ".h"):
                for i, line in enumerate(p.read_text(errors="replace").splitlines(), 1):
                    if pattern.search(line):
                        found.append(f"{p.relative_to(REPO)}:{i}")
    for i, line in enumerate((REPO / "README.md").read_text().splitlines(), 1):
        if pattern.search(line):
            found.append(f"README.md:{i}")
    assert not found, found
