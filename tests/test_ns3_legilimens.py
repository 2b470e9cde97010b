"""Legilimens inside ns-3 (tools/ns3-legilimens, loaded by tools/legilimens_ns3.py): the four
Figure 5 cases against the ns-3 controller, and, in ns-3's own LTE cell, a lone flow that
probes, reaches NORMAL and fills the idle cell to the 0.8 cap while sending nothing during its
waits. Skipped where the `ns3` wheel (or g++) is missing; ~30 s with the library cached (the
first build adds ~5 s, importing ns-3 ~10 s)."""

import importlib.util
import math
import sys

import pytest

from conftest import REPO

_spec = importlib.util.spec_from_file_location("legilimens_ns3", REPO / "tools" / "legilimens_ns3.py")
L = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("legilimens_ns3", L)  # its dataclasses look their module up
_spec.loader.exec_module(L)

_why = L.unavailable()
needs_ns3 = pytest.mark.skipif(_why is not None, reason=f"ns-3 Legilimens cannot run here: {_why}")

MSS = 1448
C = 10 * MSS  # one TTI's worth at full capacity: 10 segments


@pytest.fixture(scope="module")
def ns3():
    if _why is not None:
        pytest.skip(_why)
    ns, ns3 = L.load()
    yield ns, ns3
    ns.Simulator.Destroy()


def acks(served, rx="per_segment"):
    """(cumulative ACK, TSval) per ACK for a known schedule: `served[i]` bytes delivered in TTI
    i. per_segment: one ACK per segment with its TTI; batched: TTI pairs (2j, 2j+1) processed
    together and stamped 2j+1 (the paper's Figure 5(c)); as legilimens.rs's test harness."""
    out, seq = [], 0
    for i, b in enumerate(served):
        t = i | 1 if rx == "batched" else i
        for _ in range(b // MSS):
            seq += MSS
            out.append((seq, t))
    return out


def every(n, period):
    return [C if i % period == 0 else 0 for i in range(n)]


def controller(ns3, **attrs):
    ns, g = ns3
    cc = ns.CreateObject[g.TcpLegilimens]()
    for k, v in attrs.items():
        cc.SetAttribute(k, ns.DoubleValue(v))
    tcb = g.LegilimensTestTcb(MSS, 10)
    cc.Init(tcb)
    return cc, tcb


def feed(ns3, cc, tcb, stream):
    """Feeds ACKs (all data sent together: one TSecr; a deep flight, so no drained pipe);
    returns the busy verdicts and counted slots this stream added."""
    g = ns3[1]
    busy0, slots0 = cc.GetBusyVerdicts(), cc.GetCountedSlots()
    for seq, t in stream:
        g.LegilimensFeedAck(cc, tcb, seq, t, 0, 100 * C, 1)
    return cc.GetBusyVerdicts() - busy0, cc.GetCountedSlots() - slots0


@needs_ns3
def test_fig5a_one_sender_without_batching_is_never_busy(ns3):
    cc, tcb = controller(ns3)
    busy, slots = feed(ns3, cc, tcb, acks([C] * 100))
    assert (busy, slots) == (0, 99)
    assert cc.GetCapacity() == pytest.approx(C)
    assert cc.GetMode() == 1  # still probing in GAP I: nothing said busy


@needs_ns3
def test_fig5b_two_senders_without_batching_is_busy(ns3):
    cc, tcb = controller(ns3)
    stream = acks([C] * 20 + every(80, 4))
    alone, shared = stream[:200], stream[200:]
    assert feed(ns3, cc, tcb, alone)[0] == 0
    busy, slots = feed(ns3, cc, tcb, shared)
    # 20 shared slots of C bytes four TTIs apart: rate C/4 < λ·C; each gap's verdict is final
    # one slot later, so all but the first two report busy.
    assert slots == 20 and busy >= 18, (busy, slots)
    assert cc.GetCapacity() == pytest.approx(C)  # gaps never lower the capacity
    assert cc.GetMode() == 4  # busy in GAP I: back-off
    # Strict 1:1 alternation (rate C/2 = λ·C) is not busy at λ = 0.5, and is at λ = 1.
    alt = acks([C] * 20 + every(40, 2))
    assert feed(ns3, *controller(ns3), alt)[0] == 0
    one = controller(ns3, Lambda=1.0)
    assert feed(ns3, *one, alt)[0] >= 18


@needs_ns3
def test_fig5c_one_sender_with_batching_is_not_busy(ns3):
    cc, tcb = controller(ns3)
    busy, slots = feed(ns3, cc, tcb, acks([C] * 100, rx="batched"))
    # Slots of 2C every other TTI: a gap of 2, but rate 2C/2 = C: not busy, capacity C.
    assert (busy, slots) == (0, 49)
    assert cc.GetCapacity() == pytest.approx(C)


@needs_ns3
def test_fig5d_two_senders_with_batching_is_busy(ns3):
    cc, tcb = controller(ns3)
    stream = acks([C] * 20 + every(80, 4), rx="batched")
    alone, shared = stream[:200], stream[200:]
    assert feed(ns3, cc, tcb, alone)[0] == 0
    busy, slots = feed(ns3, cc, tcb, shared)
    assert slots == 20 and busy >= 18, (busy, slots)


@needs_ns3
def test_alone_in_an_idle_ns3_cell_it_probes_reaches_normal_and_fills_the_cap(ns3):
    # One UE 300 m from the eNB (cellshare's radio defaults, two layers, PiroEW2010 AMC):
    # GAP I, II, III each wait T = 250 ms, then NORMAL sends at about 0.8 of the capacity
    # estimate; during the waits the sender is paused (nothing arrives).
    cell = L.Ns3Cell(L.CellConfig(distances_m=[300.0]), "ns3::TcpLegilimens")
    flow = cell.flow(1, 0, 0.5, 4.0, 0, 0.01, 4.0)
    cell.run(4.0)
    [(ue, cc)] = cell.controllers()
    modes = [(t / 1e9, m) for t, m in cc.GetModeLog()]
    bins = [b * 8 / 0.01 / 1e6 for b in cell.log.GetBins(flow)]
    capacity = cc.GetCapacity() * 8 / 1000  # bytes per TTI -> Mbit/s
    normal_mbps = sum(bins[200:400]) / 200
    idle_rtos = cc.GetIdleTimeouts()
    phase = list(cell.log.GetPhaseHistogram())
    cell.destroy()
    assert ue == 0
    assert [m for _, m in modes] == [1, 2, 3, 0], modes
    assert all(abs(b - a - 0.25) < 1e-6 for (a, _), (b, _) in zip(modes[1:], modes[2:])), modes
    assert math.isfinite(capacity) and 55 < capacity < 80, capacity
    assert 0.70 * capacity <= normal_mbps <= 0.85 * capacity, (normal_mbps, capacity)
    # GAP I's burst (35 segments) is out and acknowledged within ~70 ms of its first segment;
    # then nothing arrives until GAP II begins (ns-3 would have sent one segment at its
    # retransmission timeout; see tcp-legilimens.cc, difference 7).
    gap_i_start, gap_ii_start = modes[0][0], modes[1][0]
    wait = bins[int(gap_i_start * 100) + 10:int(gap_ii_start * 100)]
    assert sum(wait) == 0, wait
    assert idle_rtos == 0
    # The TCP timestamp clock: every delivery of a TTI falls in one millisecond (all in one
    # 100 µs phase bin), so a TSval names one TTI.
    assert max(phase) == sum(phase) > 0, phase


# -- tools/legilimens_study.py: its cellshare side and CLI run everywhere ---------------------

STUDY = REPO / "tools" / "legilimens_study.py"


def _study():
    spec = importlib.util.spec_from_file_location("legilimens_study", STUDY)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("legilimens_study", module)
    spec.loader.exec_module(module)
    return module


def test_fig12_replays_one_arrival_list_whatever_the_background():
    # ns-3 replays the arrivals of cellshare's seeded workload, so they must not depend on
    # the background scheme or layout (only on seed, load and the UEs' channels).
    S = _study()
    lists = [S.fig12_cellshare(s, lay, 0.6, 1, 4.0)["arrivals"]
             for s, lay in (("w/o bg", "every"), ("Legilimens", "every"), ("CUBIC", "some"))]
    assert lists[0] and lists[0] == lists[1] == lists[2]
    assert {cat for *_, cat in lists[0]} <= {"short", "medium", "long"}
    # The placements are the annulus's and the same in both simulators' set-ups.
    d = S.placements(1)
    assert len(d) == 100 and 50 <= min(d) and max(d) <= 500 and d == S.placements(1) != S.placements(2)
    assert S.bg_ues("every", 1) == list(range(100)) and len(S.bg_ues("some", 1)) == 10
    # LEDBAT runs ns-3's TcpLedbat rules in cellshare too: no window growth past the flight,
    # slow start until a loss.
    cc = S.fig12_scenario("LEDBAT", "some", 0.6, 1, 4.0)["flows"][0]["transport"]["cc"]
    assert cc["allowed_increase"] == 0 and cc["slow_start_exit_fraction"] >= 1e6


def test_every_cellshare_flow_of_the_study_has_ns3s_receiver():
    # ns-3's receiver ACKs every second segment as it arrives, without quick ACKs; cellshare's
    # default (Linux's: one ACK per TTI burst) would change what Legilimens' estimator reads.
    S = _study()
    ns3 = {"quickack": False, "burst_acks": False, "comp_sack_nr": 0}
    sc12 = S.fig12_scenario("Legilimens", "some", 0.6, 1, 4.0)
    transports = [f["transport"] for f in sc12["flows"]] + [sc12["workload"]["transport"]]
    for bg in (True, False):
        transports += [f["transport"] for f in S.fig7_scenario(bg, 20.0, 1)["flows"]]
    assert len(transports) == 11 + 3
    for t in transports:
        assert {k: t["tcp"][k] for k in ns3} == ns3, t
    # The foreground starts without the handshake (its FCT from the first data byte).
    assert sc12["workload"]["transport"]["tcp"]["handshake"] is False


def test_fig12_with_ns3s_padding_lowers_legilimens_background_at_10_ues():
    # docs/legilimens-ns3.md: with cellshare's scheduler padding as ns-3's PfFfMacScheduler
    # (`--cellshare-leftover padding`) Legilimens' background at 10 UEs, 80 % load, falls from
    # 1.67 to 1.45 Mbit/s per flow (ns-3 1.26): a Legilimens UE's turns are often part padding.
    S = _study()
    try:
        default = S.fig12_cellshare("Legilimens", "some", 0.8, 1, 10.0)["summary"]["bg_mbps"]
        S.SCHEDULER["leftover"] = "padding"
        assert S.fig12_scenario("Legilimens", "some", 0.8, 1, 10.0)["cell"]["scheduler"] == {"kind": "pf", "leftover": "padding"}
        padded = S.fig12_cellshare("Legilimens", "some", 0.8, 1, 10.0)["summary"]["bg_mbps"]
    finally:
        S.SCHEDULER.pop("leftover", None)
    assert padded < 0.92 * default, (default, padded)


def test_fig12_replay_with_ns3s_set_up_times_starts_each_flow_at_its_first_write():
    S = _study()
    run = S.fig12_cellshare("Vegas", "some", 0.6, 1, 4.0)
    n = sum(1 for a in run["arrivals"] if a[0] < 4.0)
    # No set-up: the replay of the arrival list is the workload's own run, flow for flow.
    assert S.fig12_cellshare_replay("Vegas", "some", 0.6, 1, 4.0, True, run["arrivals"], [0.0] * n)["summary"] == run["summary"]
    # A flow that never wrote in ns-3 sends nothing; later starts deliver less.
    none = S.fig12_cellshare_replay("Vegas", "some", 0.6, 1, 4.0, True, run["arrivals"], [None] * n)["summary"]
    late = S.fig12_cellshare_replay("Vegas", "some", 0.6, 1, 4.0, True, run["arrivals"], [0.5] * n)["summary"]
    assert none["fg_mbps"] == 0 and none["short_completed"] == 0
    assert 0 < late["fg_mbps"] < run["summary"]["fg_mbps"]
    with pytest.raises(SystemExit, match="set-up list"):
        S.fig12_cellshare_replay("Vegas", "some", 0.6, 1, 4.0, True, run["arrivals"], [0.0] * (n - 1))
    # ns-3 runs its error model and HARQ with the PiroEW2010 AMC: cellshare its realistic link
    # with that rule; without ns-3's errors, the ideal link.
    assert S.fig12_scenario("CUBIC", "some", 0.6, 1, 4.0)["cell"]["link"] == {"kind": "realistic", "amc": "piro_ew2010"}
    assert S.fig12_scenario("CUBIC", "some", 0.6, 1, 4.0, harq_errors=False)["cell"]["link"] == {"kind": "ideal"}


def test_fill_of_blocks_is_application_bytes_over_new_block_bytes_per_group(tmp_path):
    S = _study()
    trace = tmp_path / "DlTxPhyStats.txt"
    rows = [(1, 1, 0, 3000, 0), (1, 1, 1, 3000, 0), (2, 2, 0, 1000, 0), (10, 2, 0, 1000, 1)]  # t, IMSI, layer, size, rv
    trace.write_text("% time\tcellId\tIMSI\tRNTI\tlayer\tmcs\tsize\trv\tndi\tccId\n"
                     + "".join(f"{t}\t1\t{i}\t{i}\t{la}\t28\t{sz}\t{rv}\t1\t0\n" for t, i, la, sz, rv in rows))
    flows = [{"ue": 0, "bytes": 4000}, {"ue": 0, "bytes": 800}, {"ue": 1, "bytes": 900}]
    fill = S.fill_of_blocks(trace, flows, [0])
    assert fill["background UEs"] == {"tb_bytes": 6000, "app_bytes": 4800, "fill": 0.8}
    assert fill["other UEs"]["tb_bytes"] == 1000 and fill["other UEs"]["fill"] == 0.9


def test_summary_measures_long_flows_over_their_life_and_fct_from_the_first_byte():
    S = _study()
    flows = [{"category": "long", "start_s": 10.0, "bytes": 10_000_000, "done_s": 20.0, "first_s": 10.04},
             {"category": "long", "start_s": 50.0, "bytes": 1_250_000, "done_s": None, "first_s": 50.04},
             {"category": "background", "start_s": 0.0, "bytes": 7_500_000, "done_s": None, "first_s": 0.0},
             {"category": "short", "start_s": 1.0, "bytes": 65536, "done_s": 1.2, "first_s": 1.05},
             {"category": "short", "start_s": 2.0, "bytes": 100, "done_s": None, "first_s": 2.05}]
    s = S.summarize(flows, 60.0)
    assert s["long_mbps"] == pytest.approx((8.0 + 1.0) / 2)  # 8 Mbit/s over 10 s; 1 Mbit/s to the end
    assert s["bg_mbps"] == pytest.approx(1.0)
    assert s["short_fct_p50_s"] == pytest.approx(0.15) and (s["short_completed"], s["short_flows"]) == (1, 2)


def test_study_cli_refuses_bad_input_with_the_flag_and_value():
    import subprocess
    for flags, needle in ((["fig12", "--schemes", "Reno", "--cellshare-only", "--ns3-results", str(STUDY)],
                           "--schemes: 'Reno'"),
                          (["fig12", "--cellshare-only"], "--cellshare-only needs --ns3-results"),
                          (["fig7", "--cellshare-only", "--ns3-results", "/nonexistent.jsonl"],
                           "--ns3-results: /nonexistent.jsonl does not exist"),
                          (["fig12", "--duration", "0.5", "--out", "/tmp/x"], "--duration 0.5"),
                          (["fig12", "--cellshare-leftover", "pad"], "--cellshare-leftover: invalid choice: 'pad'")):
        proc = subprocess.run([sys.executable, str(STUDY), *flags], capture_output=True, text=True)
        assert proc.returncode != 0, flags
        assert needle in proc.stderr, (flags, proc.stderr)


def test_fig7_recapture_is_reported_per_stop():
    # Two periods; the background returns at 10 Mbit/s 1.0 s after the first stop and 2.5 s
    # after the second: its 500 ms average reaches 0.7 of CUBIC alone 4 bins later, and the
    # recapture is that moment minus the 0.5 s window (0.9 and 2.4 s).
    S = _study()
    d = S.fig7_duration(2)
    n = int(d * 10)
    on, _ = S.on_off_seconds(d)
    alone = [0.0] * n
    for s in on:
        alone[10 * s:10 * s + 10] = [10.0] * 10
    bg = [0.0] * n
    for stop, delay in ((S.FG_START + S.ON, 1.0), (S.FG_START + 2 * S.ON + S.OFF, 2.5)):
        k = int((stop + delay) * 10)
        bg[k:int((stop + S.OFF) * 10)] = [10.0] * (int((stop + S.OFF) * 10) - k)
    m = S.fig7_metrics({"series": {"background": bg, "foreground": alone}},
                       {"series": {"foreground": alone}}, d)
    assert m["recapture_s"] == pytest.approx([0.9, 2.4])
    assert m["recapture_mean_s"] == pytest.approx(1.65) and m["recapture_max_s"] == pytest.approx(2.4)
    assert m["cubic_alone_mbps"] == pytest.approx(10.0)


def test_fig12_cellshare_alone_prints_one_row_per_scheme_and_the_claims(tmp_path):
    import subprocess
    proc = subprocess.run([sys.executable, str(STUDY), "fig12", "--cellshare-alone", "--duration", "3",
                           "--loads", "0.3,0.6", "--layouts", "some", "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    table = (tmp_path / "fig12-cellshare.md").read_text()
    rows = [line for line in table.splitlines() if line.startswith("| ") and "/" in line]
    assert [r.split("|")[1].strip() for r in rows] == ["w/o bg", "CUBIC", "LEDBAT", "Vegas", "Legilimens"]
    assert all(len(r.split("|")) == 6 for r in rows)  # scheme, layout, two loads
    assert "Legilimens' background / LEDBAT's" in table
    assert not (tmp_path / "ns3-fig12.jsonl").exists()  # no ns-3 case ran
