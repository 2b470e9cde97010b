"""The real-time emulator with real Linux TCP between network namespaces (needs root, TUN and
iproute2; each test runs a few tens of seconds of real time)."""

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

import pytest

import cellshare
from cellshare import bpf, emulate

from conftest import alive, ns_id, pids_in

REPO = Path(__file__).resolve().parent.parent


def _write(tmp_path, text: str) -> Path:
    p = tmp_path / "scenario.toml"
    p.write_text(text)
    return p


def _emulate(run_cli, scenario: Path, out: Path) -> dict:
    """`cellshare emulate SCENARIO --out OUT`, which must succeed; its summary."""
    r = run_cli("emulate", scenario, "--out", out)
    assert r.returncode == 0, r.stderr
    return json.loads((out / "summary.json").read_text())


# Runs a real-time test makes before it gives up on the host.
ATTEMPTS = 3


def _in_real_time(emulate_once):
    """Calls `emulate_once(attempt)`, an emulator run returning its summary, until a run keeps
    real time (its `realtime` record); returns that attempt and its summary. The model's claims
    are tested on runs that kept real time only: a loop that wakes late sends the real flows
    bursts the model never has (measured on this project's VM: the eBPF Figure 7 background
    held 0.46-0.75 of the cell while CUBIC is off in runs with 5-14 % CPU steal, 0.93-0.97 in
    runs with under 1 %). When no run kept real time the test skips if the hypervisor stole
    CPU time in every run (the host's timing, named in the message) and fails otherwise (the
    loop itself fell behind, which is ours to fix)."""
    late = []
    for attempt in range(ATTEMPTS):
        s = emulate_once(attempt)
        rt = s["realtime"]
        if rt["kept"]:
            return attempt, s
        late.append(rt)
    seen = "; ".join(f"TTI lateness p99 {r['tti_late_p99_ms']:.2f} ms (max {r['tti_late_max_ms']:.1f}), "
                     f"CPU steal {r['host_steal_percent']} %" for r in late)
    if all((r["host_steal_percent"] or 0.0) >= emulate.HOST_STEAL_FLOOR_PERCENT for r in late):
        pytest.skip(f"the host's hypervisor kept the emulator from real time in {ATTEMPTS} runs: {seen}")
    pytest.fail(f"the emulator fell behind real time without the host stealing CPU time: {seen}")


ONE_UE = """
name = "one-ue"
[simulation]
duration_s = 8
[cell]
scheduler = { kind = "pf" }
[[ues]]
count = 1
channel = { kind = "fixed", rate_mbps = 20.0 }
[[flows]]
ue = 0
transport = { kind = "tcp", cc = { kind = "cubic" } }
[emulator]
probe_count = 9
"""


def test_fixed_20mbps_ue_carries_cubic_at_90_percent_with_base_rtt_when_idle(emu_ready, tmp_path, run_cli):
    scenario = _write(tmp_path, ONE_UE.replace("probe_count = 9", "probe_count = 9\npcap = true"))
    attempt, s = _in_real_time(lambda a: _emulate(run_cli, scenario, tmp_path / f"out{a}"))
    out = tmp_path / f"out{attempt}"
    f = s["flows"][0]
    # The capture holds the flow: raw-IP pcap records, tens of thousands of them.
    pcap = (out / "emu.pcap").read_bytes()
    assert pcap[:4] == bytes.fromhex("d4c3b2a1") and int.from_bytes(pcap[20:24], "little") == 101
    assert len(pcap) > 10_000 * 56
    steady = f["per_second_mbps"][1:]  # after slow start
    mbps = sum(steady) / len(steady)
    assert mbps >= 0.9 * 20.0, f["per_second_mbps"]
    assert f["sender"]["cc"] == "cubic"
    # Where the run's clock started in the cell's time (after the 200 ms warm-up and the nine
    # probes), and when the sender's SYN left the server (a process spawned once the clock
    # runs: within a second): what `cellshare crosscheck` sets the simulator up with.
    assert s["clock_start_tti"] >= 200 + 9 * 24, s["clock_start_tti"]
    assert 0.0 < f["first_packet_s"] < 1.0, f["first_packet_s"]
    idle = s["idle_rtt_ms"][0]
    base = s["base_rtt_ms"]
    assert base == 24.0
    # The criterion, RTT within 2 ms of the configured base RTT when idle, on the
    # path's base RTT: its minimum (RTTmin, as in the papers) over 9 probes at random phases
    # of the TTI grid, the probe that met the shortest wait for a TTI.
    assert base <= idle["min"] <= base + 2.0, s["idle_rtt_ms"]
    # Every packet also waits for the next TTI and leaves at the end of the TTI that carries
    # it (U[0, 1) + 1 ms, 1.5 ms on average, as in the simulator): the median idle RTT is the
    # modelled one plus what the real system adds, at most 1 ms (the emulator's budget).
    assert abs(idle["median"] - (base + 1.5)) <= 1.0, s["idle_rtt_ms"]
    # Every namespace the run made is gone (others' runs may have theirs meanwhile).
    assert s["namespaces"] and not set(s["namespaces"]) & set(_netns())


def test_two_cubic_ues_share_fairly_and_match_the_simulator(emu_ready, tmp_path, run_cli):
    runs = {}

    def once(attempt):
        out = tmp_path / f"cc{attempt}"
        runs[attempt] = run_cli("crosscheck", REPO / "scenarios" / "emu-two-ues-cubic.toml", "--out", out,
                                "--duration", "10")
        return json.loads((out / "emu" / "summary.json").read_text())

    attempt, emu = _in_real_time(once)
    out, r = tmp_path / f"cc{attempt}", runs[attempt]
    cmp = json.loads((out / "crosscheck.json").read_text())
    assert cmp["emu_kept_real_time"] is True
    assert (out / "sim" / "summary.json").exists()
    # The simulator ran as the emulator's run went: each flow from when its sender connected.
    starts = cmp["alignment"][0]["flow_start_s"]
    assert sorted(starts) == ["0", "1"] and all(0.0 < t < 1.0 for t in starts.values()), cmp["alignment"]
    assert emu["jain_index"] >= 0.9, emu["flows"]
    assert cmp["throughput_within_tolerance"], cmp
    assert cmp["rtt_within_tolerance"], cmp
    assert r.returncode == 0, r.stdout + r.stderr


RADIO = """
name = "radio-link"
[simulation]
duration_s = 8
[cell]
scheduler = { kind = "pf" }
link = { kind = "realistic" }
[[ues]]
count = 1
channel = { kind = "radio", distance_m = 100.0, fading = "none" }
[[ues]]
count = 1
channel = { kind = "radio", distance_m = 300.0, speed_kmh = 30.0 }
[[flows]]
ue = 1
transport = { kind = "tcp", cc = { kind = "cubic" } }
[emulator]
probe_count = 9
"""


def test_the_realistic_link_delays_and_repairs_what_real_tcp_sees(emu_ready, tmp_path, run_cli):
    # The emulator builds its cell with the simulator's build_cell and runs Cell::run_tti
    # every TTI, so real Linux TCP meets the same pipeline delay, HARQ and residual losses.
    def once(attempt, link):
        text = RADIO if link == "realistic" else RADIO.replace('kind = "realistic"', 'kind = "ideal"')
        return _emulate(run_cli, _write(tmp_path, text), tmp_path / f"{link}{attempt}")

    _, real = _in_real_time(lambda a: once(a, "realistic"))
    _, ideal = _in_real_time(lambda a: once(a, "ideal"))
    # UE 0 (100 m, no fading, no block errors): the idle RTT grows by the 2-TTI pipeline.
    rtt = lambda s: s["idle_rtt_ms"][0]["median"]
    assert 1.0 <= rtt(real) - rtt(ideal) <= 3.5, (real["idle_rtt_ms"], ideal["idle_rtt_ms"])
    # UE 1 (300 m, 30 km/h fading, 7-TTI-old CQIs): blocks fail and HARQ repairs them while
    # the CUBIC flow runs; the ideal link has no HARQ.
    link = real["ues"][1]["link"]
    assert link["transport_blocks"] > 1000 and link["retransmissions"] > 20, link
    assert "link" not in ideal["ues"][1]
    assert real["flows"][0]["bytes_delivered"] > 0


FIG7 = """
name = "legilimens-fig7"
[simulation]
duration_s = 40
[cell]
scheduler = { kind = "pf" }
[[ues]]
count = 2
channel = { kind = "fixed", rate_mbps = 20.0 }
[[flows]]
name = "fg"
ue = 0
transport = { kind = "tcp", cc = { kind = "cubic" } }
on_s = 10.0
off_s = 10.0
[[flows]]
name = "bg"
ue = 1
class = "background"
transport = { kind = "tcp", cc = { kind = "legilimens" } }
[emulator]
probe_count = 0
"""


def test_legilimens_ebpf_background_yields_to_on_off_cubic_as_in_figure_7(emu_ready, tmp_path, run_cli):
    miss = bpf.missing_requirements()
    if miss:
        pytest.skip("cannot load eBPF programs here: missing " + "; ".join(miss))
    scenario = _write(tmp_path, FIG7)
    loaded_here = bpf.load("legilimens")
    try:
        _, s = _in_real_time(lambda a: _emulate(run_cli, scenario, tmp_path / f"out{a}"))
    finally:
        if loaded_here:
            bpf.unload("legilimens")
    bg = {f["name"]: f for f in s["flows"]}["bg"]["per_second_mbps"]
    cap = 20.0
    # Seconds well inside each period (2 s allowed for the transitions).
    on = [bg[i] for i in list(range(2, 10)) + list(range(22, 30))]
    off = [bg[i] for i in list(range(12, 20)) + list(range(32, 40))]
    assert sum(on) / len(on) <= 0.2 * cap, bg
    assert sum(off) / len(off) >= 0.6 * cap, bg


def test_bode_bounds_sojourn_in_the_emulator(emu_ready, tmp_path, run_cli):
    text = ONE_UE.replace("[cell]\n", "[cell]\naqm = { kind = \"bode\", bounded_delay_ms = 30.0 }\n")
    p = _write(tmp_path, text)
    v = subprocess.run([str(emu_ready), "validate", str(p)], capture_output=True, text=True)
    if v.returncode != 0 and "bode" in v.stderr:
        pytest.skip("BoDe is not in crates/aqm on this branch (it arrives with the aqm branch): " + v.stderr.strip())
    _, s = _in_real_time(lambda a: _emulate(run_cli, p, tmp_path / f"out{a}"))
    # BoDe bounds the sojourn of served packets; transmission (up to a TTI here) and the wait
    # for the TTI come on top, as in the simulator.
    q = s["queue_delay_ms"]
    assert q["p99"] <= 30.0 + 3.0 and q["max"] <= 30.0 + 5.0, q
    assert s["flows"][0]["throughput_mbps"] >= 0.8 * 20.0
    assert s["drops"]["dequeue"] > 0, "BoDe dropped at dequeue"
    sim = cellshare.run(tomllib.loads(emulate.simulator_text(text))).summary["queue_delay_ms"]
    assert abs(q["p99"] - sim["p99"]) <= 2.0 and abs(q["p50"] - sim["p50"]) <= 2.0, (q, sim)


# A real-time process above the TTI loop's SCHED_FIFO 20, pinned to one CPU: busy for the first
# 30 ms of every 150 ms of the monotonic clock, so that the hogs of all CPUs are busy together
# and the loop cannot move to a free one (the kernel's real-time throttling leaves 5 % of
# each second to the rest either way).
HOG = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
end = time.monotonic() + float(sys.argv[2])
while (now := time.monotonic()) < end:
    phase = now % 0.150
    if phase >= 0.030:
        time.sleep(0.150 - phase)
"""


def test_a_run_kept_from_real_time_says_so(emu_ready, tmp_path, run_cli):
    # Every CPU is taken from the loop for 30 ms in 150: a fifth of the TTIs start late.
    scenario = _write(tmp_path, ONE_UE.replace("duration_s = 8", "duration_s = 3").replace("probe_count = 9",
                                                                                       "probe_count = 0"))
    hogs = [subprocess.Popen([sys.executable, "-c", HOG, str(cpu), "6"]) for cpu in sorted(os.sched_getaffinity(0))]
    try:
        r = run_cli("emulate", scenario, "--out", tmp_path / "out")
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert r.returncode == 0, r.stderr
    rt = json.loads((tmp_path / "out" / "summary.json").read_text())["realtime"]
    assert rt["kept"] is False and rt["budget_ms"] == 1.0, rt
    assert rt["tti_late_p99_ms"] > 10.0 and rt["tti_late_max_ms"] >= rt["tti_late_p99_ms"], rt
    assert rt["host_steal_percent"] is None or 0.0 <= rt["host_steal_percent"] <= 100.0, rt
    assert "fell behind real time" in r.stderr and "budget 1 ms" in r.stderr, r.stderr
    # A run on time says nothing.
    r = run_cli("emulate", scenario, "--out", tmp_path / "quiet")
    rt = json.loads((tmp_path / "quiet" / "summary.json").read_text())["realtime"]
    assert ("fell behind real time" in r.stderr) == (not rt["kept"]), (rt, r.stderr)


def test_emulator_input_errors_and_privileges(emu_ready, tmp_path, run_cli):
    bad = _write(tmp_path, ONE_UE.replace("probe_count = 9", "probe_cnt = 9"))
    r = run_cli("emulate", bad, "--out", tmp_path / "o1")
    assert r.returncode == 2 and "probe_cnt" in r.stderr
    r = subprocess.run([str(emu_ready), "run", str(_write(tmp_path, ONE_UE.replace("count = 1", "count = 0"))),
                        "--out", str(tmp_path / "o2")], capture_output=True, text=True)
    assert r.returncode == 2 and "ues[0].count" in r.stderr
    vegas = _write(tmp_path, ONE_UE.replace('"cubic"', '"vegas"'))
    r = run_cli("emulate", vegas, "--out", tmp_path / "o3")
    assert r.returncode == 2 and "vegas" in r.stderr and "not available" in r.stderr
    r = run_cli("emulate", tmp_path / "missing.toml", "--out", tmp_path / "o4")
    assert r.returncode == 2 and "no such file" in r.stderr
    # Without root the emulator says so and exits non-zero (scenario in a folder "nobody" can read).
    pub = Path(tempfile.mkdtemp(prefix="csemu-test-"))
    try:
        pub.chmod(0o755)
        (pub / "s.toml").write_text(ONE_UE)
        (pub / "s.toml").chmod(0o644)
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(emu_ready), "run",
                            str(pub / "s.toml"), "--out", str(pub / "out")], capture_output=True, text=True)
        assert r.returncode == 1 and "needs root" in r.stderr, r.stderr
    finally:
        shutil.rmtree(pub, ignore_errors=True)


def test_stale_namespaces_of_a_crashed_run_are_removed(emu_ready):
    # A namespace named after a process id that does not exist, as a killed run leaves it.
    name = "csemu-4000000-srv"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        r = subprocess.run([str(emu_ready), "cleanup"], capture_output=True, text=True)
        assert r.returncode == 0 and name in r.stdout
        assert name not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


def test_ctrl_c_stops_the_run_and_removes_its_namespaces(emu_ready, tmp_path):
    p = subprocess.Popen([str(emu_ready), "run", str(_write(tmp_path, ONE_UE.replace("duration_s = 8", "duration_s = 30"))),
                          "--out", str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    mine = f"csemu-{p.pid}-"
    deadline = time.time() + 10
    while time.time() < deadline and not any(n.startswith(mine) for n in _netns()):
        time.sleep(0.1)
    assert any(n.startswith(mine) for n in _netns()), "the run made its namespaces"
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=20)
    assert p.returncode == 0, err
    assert json.loads(out)["interrupted"] is True
    assert not [n for n in _netns() if n.startswith(mine)]


def _netns():
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()


# A run whose command leaves a shell's child behind (`sleep` in the background): a process
# the emulator did not start itself, found only by its namespace.
LEFTOVER = ONE_UE.replace("duration_s = 8", "duration_s = 30").replace(
    "probe_count = 9", 'probe_count = 2\ncommands = [{ ns = "ue0", cmd = "sleep 300 & sleep 301", start_s = 0.0 }]')


def _start_and_kill_9(emu, tmp_path, tag: str):
    """Starts an emulation, SIGKILLs `cellshare-emu` at a random moment once its namespaces
    hold the flow and the command, and returns what the killed run had made: its namespace
    names, their ids, and the processes inside them."""
    import random

    p = subprocess.Popen([str(emu), "run", str(_write(tmp_path, LEFTOVER)), "--out", str(tmp_path / tag)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    mine = f"csemu-{p.pid}-"
    deadline = time.time() + 20
    procs, names, ids = {}, [], set()
    while time.time() < deadline:
        names = [n for n in _netns() if n.startswith(mine)]
        ids = {i for i in (ns_id(f"/run/netns/{n}") for n in names) if i}
        procs = pids_in(ids)
        # receiver, sender, the command's shell and its two sleeps
        if len(names) == 2 and len(procs) >= 5:
            break
        time.sleep(0.1)
    assert len(names) == 2 and len(procs) >= 5, (names, procs)
    time.sleep(random.uniform(0.0, 3.0))
    procs = pids_in(ids)
    p.kill()
    p.wait()
    return names, ids, procs


def test_kill_9_then_a_new_run_or_cleanup_leaves_nothing_of_the_killed_run(emu_ready, tmp_path, run_cli):
    """`kill -9` of the emulator must not leave its namespaces, their /run/netns mounts or
    nice -20 receivers that never exit: the traffic tool dies with the emulator (its
    parent-death signal), and the next run, or `cellshare emulate --cleanup`, kills what is
    left in the namespaces and removes them; nothing the killed run did not make is touched."""
    before = set(_netns())
    names, ids, procs = _start_and_kill_9(emu_ready, tmp_path, "k1")
    # The emulator's own children (receiver, sender) die with it at once.
    time.sleep(0.5)
    survivors = alive(procs)
    assert survivors and len(survivors) < len(procs), (procs, survivors)
    assert {Path(f"/proc/{p}/comm").read_text().strip() for p in survivors} == {"sleep"}, survivors
    # A new run reclaims the killed one's namespaces and the processes in them.
    r = run_cli("emulate", _write(tmp_path, ONE_UE.replace("duration_s = 8", "duration_s = 1")), "--out",
                tmp_path / "next")
    assert r.returncode == 0, r.stderr
    # The killed run's namespaces and processes are gone: this run removed them (and says so
    # on standard error), or another engineer's run that started meanwhile did, the same way.
    assert not set(names) & set(_netns())
    assert not [n for n in names if os.path.exists(f"/run/netns/{n}")]
    assert not alive(procs), alive(procs)
    assert not pids_in(ids)
    # Nothing else: every namespace there before is there still, unless its owner ended.
    gone = {n for n in before - set(_netns()) if os.path.exists(f"/proc/{n.split('-')[1]}")} if before else set()
    assert not {n for n in gone if not n.startswith("csemu-")}, gone

    # The same with `cellshare emulate --cleanup` instead of a new run.
    names, ids, procs = _start_and_kill_9(emu_ready, tmp_path, "k2")
    r = run_cli("emulate", "--cleanup")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("removed ")
    assert not set(names) & set(_netns())
    assert not alive(procs) and not pids_in(ids)
    for n in before - set(_netns()):
        assert n.startswith("csemu-") and not os.path.exists(f"/proc/{n.split('-')[1]}"), n


def test_sigint_to_the_front_end_stops_the_emulator_cleanly_and_averages_over_the_time_run(emu_ready, tmp_path):
    """SIGINT to `cellshare emulate` alone stops the emulator cleanly (a SIGKILL would leave
    leftovers and exit 130 without a message), and an interrupted run reports the time it ran
    and averages over that (over the planned duration, padded with zeros, a ~9.6 Mbit/s flow
    would read 3.99 Mbit/s)."""
    from conftest import cellshare as _cli_cmd  # noqa: F401  (same interpreter and environment)

    out = tmp_path / "out"
    scenario = _write(tmp_path, ONE_UE.replace("duration_s = 8", "duration_s = 30"))
    p = subprocess.Popen([sys.executable, "-m", "cellshare.cli", "emulate", str(scenario), "--out", str(out)],
                         cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    emu_pid = None
    while time.time() < deadline and emu_pid is None:
        kids = Path(f"/proc/{p.pid}/task/{p.pid}/children").read_text().split()
        emu_pid = next((int(k) for k in kids if Path(f"/proc/{k}/comm").read_text().strip() == "cellshare-emu"), None)
        time.sleep(0.1)
    assert emu_pid is not None
    mine = f"csemu-{emu_pid}-"
    while time.time() < deadline and not [n for n in _netns() if n.startswith(mine)]:
        time.sleep(0.1)
    names = [n for n in _netns() if n.startswith(mine)]
    ids = {ns_id(f"/run/netns/{n}") for n in names}
    time.sleep(6)
    procs = pids_in(ids)
    os.kill(p.pid, signal.SIGINT)  # the front end only, as `kill -INT` does
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert "interrupted" in err and str(out) in err, err
    s = json.loads((out / "summary.json").read_text())
    assert s["interrupted"] is True
    assert 4.0 < s["duration_s"] < 20.0 and s["planned_duration_s"] == 30.0, s["duration_s"]
    f = s["flows"][0]
    assert len(f["per_second_mbps"]) == math.ceil(s["duration_s"]), f["per_second_mbps"]
    # Averaged over the time run: close to the 20 Mbit/s the UE carries (slow start aside).
    assert f["throughput_mbps"] >= 0.75 * 20.0, (f["throughput_mbps"], f["per_second_mbps"])
    assert not set(names) & set(_netns())
    assert not alive(procs) and not pids_in(ids)


DRIVE = """
name = "emu-drive"
[simulation]
duration_s = 14
[cell]
scheduler = { kind = "pf" }
[network]
layout = { kind = "positions", sites_m = [[0.0, 0.0], [600.0, 0.0]] }
[[ues]]
count = 1
channel = { kind = "radio", fading = "none" }
mobility = { kind = "waypoints", points_m = [[0.0, 30.0], [600.0, 30.0]], speeds_kmh = [216.0] }
[[flows]]
ue = 0
transport = { kind = "tcp", cc = { kind = "cubic" } }
[emulator]
probe_count = 0
"""


def test_real_tcp_lives_through_a_handover(emu_ready, tmp_path, run_cli):
    # The emulator builds the simulator's network (build_ran) and runs Ran::run_tti every TTI:
    # the UE crosses the boundary at 300 m after 5 s (216 km/h = 60 m/s) and is handed over
    # once, with the A3 rule's time to trigger; real Linux CUBIC keeps delivering after it.
    _, s = _in_real_time(lambda a: _emulate(run_cli, _write(tmp_path, DRIVE), tmp_path / f"drive{a}"))
    ho = s["handovers"]
    assert [(src, dst) for src, dst in zip(ho["source"], ho["target"])] == [(0, 1)], ho
    t = ho["t_s"][0]
    assert 5.0 < t < 8.0, ho
    per_s = s["flows"][0]["per_second_mbps"]
    before, after = per_s[1:int(t)], per_s[int(t) + 2:]
    assert after and all(x > 0 for x in after), per_s
    assert sum(after) / len(after) > 0.5 * sum(before) / len(before), per_s
