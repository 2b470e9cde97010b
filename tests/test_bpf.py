"""The eBPF congestion controls: each builds, passes this kernel's verifier, registers,
carries a real TCP flow between two network namespaces over veth (selected per socket with
iperf3 -C, or the project's traffic tool) and unregisters cleanly."""

import json
import os
import shutil
import subprocess
import time

import pytest

from cellshare import bpf, emulate

NS = [f"csbpftest-{os.getpid()}-a", f"csbpftest-{os.getpid()}-b"]


def _requirements():
    miss = bpf.missing_requirements() + emulate.missing_requirements()
    if miss:
        pytest.skip("cannot load eBPF programs or create namespaces here: missing " + "; ".join(miss))


@pytest.fixture(scope="module")
def veth_pair():
    _requirements()
    for n in NS:
        subprocess.run(["ip", "netns", "del", n], capture_output=True)
    try:
        for cmd in (
            ["ip", "netns", "add", NS[0]], ["ip", "netns", "add", NS[1]],
            ["ip", "link", "add", "csv0", "netns", NS[0], "type", "veth", "peer", "name", "csv1", "netns", NS[1]],
            ["ip", "-n", NS[0], "addr", "add", "10.250.7.1/24", "dev", "csv0"],
            ["ip", "-n", NS[1], "addr", "add", "10.250.7.2/24", "dev", "csv1"],
            ["ip", "-n", NS[0], "link", "set", "csv0", "up"], ["ip", "-n", NS[1], "link", "set", "csv1", "up"],
            ["ip", "-n", NS[0], "link", "set", "lo", "up"], ["ip", "-n", NS[1], "link", "set", "lo", "up"],
        ):
            subprocess.run(cmd, check=True, capture_output=True)
        yield NS
    finally:
        for n in NS:
            subprocess.run(["ip", "netns", "del", n], capture_output=True)


def _flow_with(cc: str) -> dict:
    """A 2-second TCP flow from NS[0] to NS[1] with congestion control `cc`."""
    if shutil.which("iperf3"):
        srv = subprocess.Popen(["ip", "netns", "exec", NS[1], "iperf3", "-s", "-1", "-p", "5201"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(0.3)
            p = subprocess.run(["ip", "netns", "exec", NS[0], "iperf3", "-c", "10.250.7.2", "-p", "5201", "-C", cc,
                                "-t", "2", "-J"], capture_output=True, text=True, timeout=30)
            assert p.returncode == 0, p.stdout + p.stderr
            r = json.loads(p.stdout)
            return {"cc": r["end"]["sender_tcp_congestion"], "bytes": r["end"]["sum_received"]["bytes"]}
        finally:
            srv.wait(timeout=10)
    exe = str(emulate.emulator_binary())
    rcv = subprocess.Popen(["ip", "netns", "exec", NS[1], exe, "traffic", "recv", "--port", "5201"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        p = subprocess.run(["ip", "netns", "exec", NS[0], exe, "traffic", "send", "--to", "10.250.7.2:5201",
                            "--cc", cc, "--duration", "2"], capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, p.stderr
        s = json.loads(p.stdout.strip().splitlines()[-1])["summary"]
        return {"cc": s["cc"], "bytes": s["bytes_acked"]}
    finally:
        rcv.terminate()
        rcv.wait(timeout=10)


@pytest.mark.parametrize("name", list(bpf.CONTROLS))
def test_control_loads_carries_a_flow_and_unloads(veth_pair, name):
    was_loaded = name in bpf.available()
    if was_loaded:
        assert bpf.unload(name)
    try:
        assert bpf.load(name)
        assert name in bpf.available()
        assert not bpf.load(name), "a second load reports 'already loaded'"
        r = _flow_with(name)
        assert r["cc"] == name
        assert r["bytes"] > 1_000_000, r
        assert bpf.unload(name)
        assert name not in bpf.available()
        assert not bpf.unload(name)
    finally:
        if was_loaded and name not in bpf.available():
            bpf.load(name)


def test_bpf_cli_list_and_bad_names(run_cli):
    r = run_cli("bpf", "load", "vegas")
    assert r.returncode == 2 and "legilimens" in r.stderr and "'vegas'" in r.stderr
    r = run_cli("bpf", "list", "--json")
    assert r.returncode == 0, r.stderr
    names = [c["name"] for c in json.loads(r.stdout)["controls"]]
    assert names == ["legilimens", "ledbat", "tcp_lp", "westwood", "c2tcp"]


def test_the_table_is_the_one_list_of_controls(run_cli, tmp_path):
    """`controls.txt` lists the eBPF twins; each is a simulator controller whose source
    registers under the table's name, and the Makefile, the help texts and `bpf list`
    follow the table."""
    import re

    from cellshare import _core

    schema = json.loads(_core.scenario_schema())
    kinds = {v["properties"]["kind"]["enum"][0] for v in schema["definitions"]["CcConfig"]["oneOf"]}
    assert list(bpf.CONTROLS) == ["legilimens", "ledbat", "tcp_lp", "westwood", "c2tcp"]
    for name, c in bpf.CONTROLS.items():
        assert name in kinds, f"{name} is no simulator controller ({sorted(kinds)})"
        text = (bpf.source_dir() / c.source).read_text()
        assert re.findall(r'\.name\s*=\s*"([^"]+)"', text) == [name], c.source
        assert c.description
    if shutil.which("make"):
        p = subprocess.run(["make", "-n", "-B", f"BUILD={tmp_path}"], cwd=bpf.source_dir(), capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stderr
        built = re.findall(r"-c (\S+) -o", p.stdout)
        assert built == [c.source for c in bpf.CONTROLS.values()], p.stdout
    assert bpf.names_text() == "legilimens, ledbat, tcp_lp, westwood or c2tcp"
    r = run_cli("bpf", "load", "--help")
    assert r.returncode == 0 and bpf.names_text() in r.stdout, r.stdout
    r = run_cli("bpf", "--help")
    assert r.returncode == 0 and "LEDBAT (RFC 6817)" in r.stdout and "Westwood+" in r.stdout, r.stdout
    rows = json.loads(run_cli("bpf", "list", "--json").stdout)["controls"]
    assert [r["description"] for r in rows] == [c.description for c in bpf.CONTROLS.values()]


def test_a_malformed_table_line_is_named(tmp_path):
    t = tmp_path / "controls.txt"
    t.write_text("# NAME SOURCE DESCRIPTION\n\nreno reno.bpf.c Reno\ncubic cubic.bpf.c\n")
    with pytest.raises(ValueError, match=r"controls.txt:4: expected NAME SOURCE DESCRIPTION, got 'cubic cubic.bpf.c'"):
        bpf._read_table(t)
    t.write_text("reno   reno.bpf.c   Reno (RFC 5681)  \n")
    assert bpf._read_table(t) == {"reno": bpf.Control("reno", "reno.bpf.c", "Reno (RFC 5681)")}


def test_two_concurrent_loads_of_one_control_both_succeed(veth_pair):
    """Two `cellshare bpf load` of the same control at once would both register it, and the
    kernel refuse the second with "can't register ... Success". Under the load lock the others
    find it loaded. (A race: without the lock four loads at once fail in most runs.)"""
    import sys

    from conftest import REPO

    name = "tcp_lp"
    was_loaded = name in bpf.available()
    if was_loaded:
        assert bpf.unload(name)
    try:
        bpf.build(name)  # compiled beforehand, so both loads reach registration together
        cmd = [sys.executable, "-m", "cellshare.cli", "bpf", "load", name]
        ps = [subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(4)]
        outs = [p.communicate(timeout=120) for p in ps]
        assert [p.returncode for p in ps] == [0] * 4, outs
        said = sorted(o[0].strip() for o in outs)
        assert said == [f"{name}: already loaded"] * 3 + [f"{name}: loaded"], outs
        assert len(bpf._registered_ids(name)) == 1
    finally:
        if name in bpf.available() and not was_loaded:
            bpf.unload(name)


def test_the_object_built_follows_the_sources_not_their_times(tmp_path, monkeypatch):
    """Sources from $CELLSHARE_BPF_DIR, then the shipped ones again (older modification times):
    each build is of its own sources. Judged by times, the second build reused the first's
    object, so the shipped control ran the modified program."""
    if shutil.which("clang") is None or shutil.which("bpftool") is None or bpf.missing_requirements():
        pytest.skip("cannot build eBPF programs here: " + "; ".join(bpf.missing_requirements() or ["clang, bpftool"]))
    monkeypatch.setenv("CELLSHARE_BPF_BUILD", str(tmp_path / "build"))
    monkeypatch.delenv("CELLSHARE_BPF_DIR", raising=False)
    shipped = bpf.build("legilimens")
    variant = tmp_path / "src"
    shutil.copytree(bpf.source_dir(), variant)
    c = variant / "legilimens.bpf.c"
    c.write_text(c.read_text().replace("#define BACKOFF_RESET_WAITS 2ull", "#define BACKOFF_RESET_WAITS 3ull"))
    monkeypatch.setenv("CELLSHARE_BPF_DIR", str(variant))
    other = bpf.build("legilimens")
    monkeypatch.delenv("CELLSHARE_BPF_DIR")
    again = bpf.build("legilimens")
    assert other != shipped and again == shipped
    assert shipped.read_bytes() != other.read_bytes()
