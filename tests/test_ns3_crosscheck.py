"""tools/ns3_crosscheck.py: the cellshare side of the ns-3 cross-check runs here (the ns-3
side needs the `ns3` wheel and minutes per run; its results are stored in `tools/data/` and
shown on docs/crosscheck.md and docs/crosscheck-ns3.md), so the tool cannot rot as scenarios evolve, and its CLI refuses bad input."""

import argparse
import functools
import importlib.util
import json
import subprocess
import sys

import pytest
from conftest import REPO

TOOL = REPO / "tools" / "ns3_crosscheck.py"


@functools.cache
def _tool():
    spec = importlib.util.spec_from_file_location("ns3_crosscheck", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rates(**overrides) -> dict:
    """The tool's cellshare side, summarised ({fg, bg_mean, total} in Mbit/s), for its defaults
    (one UE, 20 s, 46 dBm, UEs at 300 m, 512 KB RLC queues, seed 1) changed by `overrides`."""
    args = dict(layout="same", background="none", ues=1, duration=20.0, distance=300.0, tx_dbm=46.0,
                rlc_bytes=524288, seed=1, align_radio=False, link="realistic", case="background")
    tool = _tool()
    return tool.summarise(tool.run_cellshare(argparse.Namespace(**{**args, **overrides})))


def test_foreground_is_held_to_its_ues_share_when_every_ue_has_a_vegas_background():
    same = _rates(background="vegas", ues=4)
    every = _rates(background="vegas", ues=4, layout="every")
    # In one FIFO Vegas yields: the foreground takes nearly the whole UE (= the whole cell).
    assert same["fg"] > 0.9 * same["total"], same
    # With a Vegas flow at each of the 4 UEs, PF gives UE 0 about a quarter of the TTIs,
    # and the foreground cannot get more than that, although Vegas yields inside UE 0.
    assert every["fg"] < 0.3 * every["total"], every
    assert every["fg"] > 0.2 * every["total"], every
    assert abs(every["total"] - same["total"]) < 0.05 * same["total"], (same, every)


def test_bad_flags_are_refused_with_the_flag_and_value():
    for flags, needle in ((["--duration", "5"], "--duration: 5.0"), (["--layouts", "ring"], "--layouts: 'ring'"),
                          (["--ues", "0"], "--ues: 0"),
                          (["--backgrounds", "reno"], "--backgrounds: 'reno'"),
                          (["--cellshare-ack-every-ms", "0"], "--cellshare-ack-every-ms: 0"),
                          (["--cellshare-fg-cc", '{"beta": 0.5}'], "--cellshare-fg-cc: "),
                          (["--cellshare-fg-cc", "cubic"], "--cellshare-fg-cc: 'cubic' is not JSON"),
                          (["--cellshare-bg-cc", "[1]"], "--cellshare-bg-cc: '[1]' is not a JSON table"),
                          (["--cellshare-ack-from-s", "20"], "--cellshare-ack-from-s: 20.0 needs --cellshare-ack-every-ms"),
                          (["--cellshare-ack-every-ms", "7", "--cellshare-ack-from-s", "41"], "--cellshare-ack-from-s: 41.0"),
                          (["--cellshare-fg-start-s", "10"], "--cellshare-fg-start-s: 10.0"),
                          (["--ns3-hystart-delay-max-ms", "3"], "--ns3-hystart-delay-max-ms: 3"),
                          (["--cellshare-leftover", "pad"], "--cellshare-leftover: invalid choice: 'pad'")):
        proc = subprocess.run([sys.executable, str(TOOL), *flags], capture_output=True, text=True)
        assert proc.returncode != 0, flags
        assert needle in proc.stderr, (flags, proc.stderr)


def test_ledbat_with_ns3s_window_cap_yields_in_one_fifo_and_the_rfcs_does_not_yet():
    # ns-3's TcpLedbat caps cwnd at the flight before each ACK (ALLOWED_INCREASE = 0), so a
    # loss halving is never undone and LEDBAT leaves a shared FIFO to CUBIC within seconds
    # (ns-3: background 3.1 of 33.8 Mbit/s over 10–40 s); with RFC 6817's ALLOWED_INCREASE = 1
    # it walks down slowly against a queue barely above its 100 ms target.
    capped = _rates(background="ledbat-ns3", duration=40.0)
    rfc = _rates(background="ledbat", duration=40.0)
    assert capped["bg_mean"] < 0.15 * capped["total"], capped
    assert rfc["bg_mean"] > 0.3 * rfc["total"], rfc


def test_capped_ledbat_is_driven_out_by_cubics_linux_growth_floor():
    # The capped LEDBAT never regrows, so what it keeps is set by how fast the foreground
    # CUBIC fills the FIFO after HyStart: with Linux's growth floor while W_max is unknown
    # (bictcp_update: cnt <= 20, 5 % a round trip) the queue passes LEDBAT's 100 ms target
    # within 2 s and LEDBAT falls 234 -> 14 segments by 9.6 s (0.27 Mbit/s over 10-40 s);
    # on RFC 9438's curve from K = 0 (no floor) it keeps 234 segments until 11.4 s (2.43).
    floor = _rates(background="ledbat-ns3", duration=40.0)
    curve = _rates(background="ledbat-ns3", duration=40.0,
                   cellshare_fg_cc='{"kind": "cubic", "initial_growth_floor": false}')
    assert curve["bg_mean"] > 4 * floor["bg_mean"], (floor, curve)
    assert floor["bg_mean"] < 0.03 * floor["total"], floor


def test_linux_hystart_ends_the_foregrounds_slow_start_behind_its_own_ues_queue():
    # At every UE the foreground's RTT starts at ~0.48 s (UE 0's queue) and rises by more than
    # Linux's 16 ms cap within a few rounds: HyStart leaves slow start at ~50 segments. ns-3.44's
    # TcpCubic waits for the RTT to exceed delay_min + clamp(delay_min, 4 ms, 1 s), i.e. to
    # double; without HyStart ours slow-starts as ns-3's does and gets its share (1.94 / 2.02).
    linux = _rates(layout="every", background="cubic", ues=10, duration=40.0)
    off = _rates(layout="every", background="cubic", ues=10, duration=40.0,
                 cellshare_fg_cc='{"kind": "cubic", "hystart": false}')
    assert off["fg"] > 2 * linux["fg"], (linux, off)
    assert abs(off["total"] - linux["total"]) < 0.02 * linux["total"], (linux, off)


def _stored_power(run: str) -> dict:
    """ns-3's rate of the lone CUBIC flow at each eNB power (dBm -> Mbit/s) in one run of the
    stored `tools/data/ns3-crosscheck-cubic-power.json` (`--case cubic --duration 20`, 300 m,
    exponent 3): `aligned` is ns-3 with its PiroEW2010 AMC, `defaults` ns-3 at its defaults."""
    data = json.loads((REPO / "tools" / "data" / "ns3-crosscheck-cubic-power.json").read_text())
    return {float(r["label"][0]): r["ns3"]["fg0"] for r in data["runs"][run]["rows"]}


def test_at_ns3s_defaults_the_realistic_link_carries_what_ns3_carries():
    # ns-3.44 at its defaults (MiErrorModel AMC, HARQ, error models) with the same link budget:
    # the lone CUBIC flow's stored rates at 30 and 40 dBm; `--case udp --duration 12`: a saturated
    # UDP receiver (exponent 3.52) got 9.30 at 300 m and 3.40 at 500 m. cellshare's realistic
    # link must stay within 10 % (it carries 4-8 % more: ns-3 schedules 48 of the 50 PRBs).
    ns3 = _stored_power("defaults")
    for tx_dbm in (30.0, 40.0):
        fg = _rates(tx_dbm=tx_dbm)["fg"]
        assert abs(fg - ns3[tx_dbm]) < 0.10 * ns3[tx_dbm], (tx_dbm, fg, ns3[tx_dbm])
    tool = _tool()
    for distance, ns3_mbps in ((300.0, 9.30), (500.0, 3.40)):
        args = argparse.Namespace(case="udp", distance=distance, tx_dbm=46.0, exponent=None, rlc_bytes=524288,
                                  seed=1, duration=12.0, link="realistic")
        udp = tool.run_cellshare(args)["udp0"]
        assert abs(udp - ns3_mbps) < 0.10 * ns3_mbps, (distance, udp)


def test_with_the_radio_aligned_the_cell_carries_what_ns3s_carries():
    # ns-3.44 with the same link budget and its PiroEW2010 AMC (the stored `--align-radio` run):
    # the lone CUBIC flow at 30 dBm (SINR 4.5 dB) and 40 dBm (14.5 dB); cellshare's SINR -> CQI
    # -> TBS chain must stay within 5 % of both.
    ns3 = _stored_power("aligned")
    for tx_dbm in (30.0, 40.0):
        fg = _rates(tx_dbm=tx_dbm, align_radio=True)["fg"]
        assert abs(fg - ns3[tx_dbm]) < 0.05 * ns3[tx_dbm], (tx_dbm, fg, ns3[tx_dbm])


def test_vegas_at_another_ue_takes_half_the_cell_on_either_ack_path():
    # docs/crosscheck-ns3.md ("Vegas at another UE"): with the fixed ACK path Vegas at another UE
    # keeps its UE backlogged and takes half the cell (ns-3: 11.5 of 33.5 Mbit/s). Before the TCP
    # handshake was modelled, ACKs leaving only at uplink opportunities every 8 ms froze it at its
    # slow-start exit window on seed 1; with the handshake no run of P = 4-32 ms, seeds 1-5 froze
    # (measured 2026-11-27), so the test holds what both ACK paths give now: an even split, and the
    # periodic path's ACK timing carrying the same cell total.
    fixed = _rates(background="vegas", ues=2, layout="other", duration=20.0)
    periodic = _rates(background="vegas", ues=2, layout="other", duration=20.0, cellshare_ack_every_ms=8)
    for r in (fixed, periodic):
        assert abs(r["bg_mean"] - r["fg"]) < 0.05 * r["total"], (fixed, periodic)
    assert abs(periodic["total"] - fixed["total"]) < 0.05 * fixed["total"], (fixed, periodic)


def test_vegas_at_another_ue_holds_a_small_window_once_its_ack_delay_rises_as_in_ns3():
    # docs/crosscheck-ns3.md ("Vegas at another UE"): in ns-3 (tools/data/ns3-crosscheck-background-
    # vegas-trace.json) UE 1's ACKs take 15.93 ms until 22.8 s and 19.11 ms from 24 s on, its data
    # does not slow, and TcpVegas, fed the smoothed RTT, falls from 46 to 22 segments and holds
    # there with no queue (11.52 Mbit/s over 10-40 s). The same rise on our side (ACKs at every TTI
    # until 22.9 s, then every 7 ms) gives Vegas with ns-3's smoothed-RTT input 11.57; with the
    # fixed ACK path it keeps half the cell.
    fixed = _rates(background="vegas", ues=2, layout="other", duration=40.0,
                   cellshare_bg_cc='{"kind": "vegas", "rtt": "srtt"}')
    risen = _rates(background="vegas", ues=2, layout="other", duration=40.0, cellshare_ack_every_ms=7,
                   cellshare_ack_from_s=22.9, cellshare_bg_cc='{"kind": "vegas", "rtt": "srtt"}')
    assert abs(fixed["bg_mean"] - fixed["fg"]) < 0.05 * fixed["total"], fixed
    assert abs(risen["bg_mean"] - 11.52) < 0.15 * 11.52, risen
    assert abs(risen["total"] - fixed["total"]) < 0.02 * fixed["total"], (fixed, risen)


def test_bbr_at_every_ue_meets_ns3_once_our_scheduler_pads_as_ns3s_does():
    # docs/crosscheck-ns3.md ("BBR at every UE"): ns-3 (tools/data/ns3-crosscheck-background.json)
    # gives the foreground 2.87 Mbit/s and each BBR background 3.05. ns-3's PfFfMacScheduler gives
    # a TTI's winner every resource-block group, whatever its queue holds, and pads the block;
    # ours gives what the winner cannot fill to the next UE, mostly UE 0, whose foreground keeps
    # its queue full: 3.66 there. With `cell.scheduler.leftover = "padding"` ours gives 2.90 / 3.21.
    ours = _rates(background="bbr", ues=10, layout="every", duration=40.0)
    padded = _rates(background="bbr", ues=10, layout="every", duration=40.0, cellshare_leftover="padding")
    assert ours["fg"] > 1.2 * 2.87, ours
    assert abs(padded["fg"] - 2.87) < 0.15 * 2.87, padded
    assert abs(padded["bg_mean"] - 3.05) < 0.15 * 3.05, padded
    assert padded["total"] < ours["total"], (ours, padded)


def test_rtt_and_delay_summaries_of_ns3s_step_series():
    tool = _tool()
    # A traced value reports changes only: each interval's minimum includes the value held at its start.
    assert tool.interval_min([0.5, 1.2, 2.5], [3, 1, 2], [0, 1, 2, 3]) == [3, 1, 1]
    assert tool.held([0.5, 1.2], [3, 1], [0.4, 1.0, 5]) == [None, 3, 1]
    rtt = tool.rtt_summary([0.5, 1.2, 2.5], [0.030, 0.031, 0.029], [0.5, 1.5], [0.030, 0.028], 0, 3)
    assert rtt["srtt_ms_per_s"] == [30.0, 31.0, 29.0] and rtt["rtt_sample_min_ms_per_s"] == [30.0, 28.0, 28.0]
    assert (rtt["srtt_min_ms"], rtt["srtt_min_at_s"]) == (29.0, 2.5)
    # FlowMonitor's running sums (delay s, packets) at successive pauses -> mean delay per interval.
    d = tool.delays_per_interval([(1, {"a": (0.1, 10)}), (2, {"a": (0.3, 20), "b": (0.0, 0)}), (3, {"a": (0.3, 20), "b": (0.05, 2)})])
    assert d == {"a": {"to_s": [2, 3], "delay_ms": [20.0, None]}, "b": {"to_s": [2, 3], "delay_ms": [None, 25.0]}}


@pytest.mark.skipif(importlib.util.find_spec("ns") is None, reason="the ns3 wheel (ns-3.44) is not installed")
def test_ns3_prr_with_rfc_delivered_counts_a_duplicate_ack_once():
    # `--ns3-prr-rfc-delivered`: ns-3.44's TcpPrrRecovery adds one segment for every duplicate
    # ACK on top of the bytes it SACKed; the copy counts the SACKed bytes only (RFC 6937,
    # Linux's newly_acked_sacked). RecoverFS 10 segments, ssthresh 7: after the entry ACK and
    # one more duplicate ACK, each SACKing one segment, and the fast retransmission, ns-3 lets
    # CEIL(4·7/10) − 1 = 1.8 segments out, the RFC CEIL(2·7/10) − 1 = 0.4.
    from ns import ns  # noqa: F401  (loads ns-3's libraries into cppyy)
    import cppyy
    g = _tool().define_prr_rfc_delivered()
    cppyy.cppdef("""
    namespace cellshare_xc_test {
    inline uint32_t Released(ns3::Ptr<ns3::TcpRecoveryOps> r) {
      auto tcb = ns3::CreateObject<ns3::TcpSocketState>();
      tcb->m_segmentSize = 1000; tcb->m_ssThresh = 7000; tcb->m_bytesInFlight = 10000; tcb->m_cWnd = 10000;
      r->EnterRecovery(tcb, 3, 10000, 1000);
      r->UpdateBytesSent(1000);
      r->DoRecovery(tcb, 1000, true);
      return tcb->m_cWnd.Get() - tcb->m_bytesInFlight.Get();
    }
    inline ns3::Ptr<ns3::TcpRecoveryOps> Ns3Prr() { return ns3::CreateObject<ns3::TcpPrrRecovery>(); }
    inline ns3::Ptr<ns3::TcpRecoveryOps> RfcPrr() { return ns3::CreateObject<cellshare_xc::PrrRfcDelivered>(); }
    }
    """)
    t = cppyy.gbl.cellshare_xc_test
    assert g is not None
    assert t.Released(t.Ns3Prr()) == 1800
    assert t.Released(t.RfcPrr()) == 400


def test_recoveries_name_the_recovery_point_and_what_was_retransmitted():
    # A sender's traced series (times s, values bytes; sequence numbers from ISN 1000, MSS 1000):
    # segments 0-4 sent at 0.1-0.5 s, recovery at 1.0 s with SND.UNA 2 and HighTxMark 5, the
    # fast retransmission of 2 and new segment 5 on the entering ACK, back to open at 1.5 s.
    isn = 1000
    series = {"cwnd": ([0.5, 1.0], [10000, 7000]), "state": ([1.0, 1.5], [3, 0]), "ssthresh": ([1.0], [7000]),
              "una": ([0.9, 1.5], [isn + 2000, isn + 6000]), "high": ([0.95], [isn + 5000]),
              "tx": ([0.1, 0.2, 0.3, 0.4, 0.5, 1.0, 1.0], [isn + 1000 * k for k in (0, 1, 2, 3, 4, 2, 5)]),
              "ack": ([1.0, 1.49], [isn + 2000] * 2), "sack_high": ([1.0, 1.49], [isn + 5000, isn + 6000])}
    (r,) = _tool().recoveries(series, mss=1000)
    assert (r["at_s"], r["state"], r["left_s"], r["left_to"]) == (1.0, "recovery", 1.5, "open")
    assert (r["cwnd_before_segments"], r["ssthresh_segments"]) == (10.0, 7.0)
    assert (r["una_segments"], r["recover_segments"], r["una_at_exit_segments"]) == (2.0, 5.0, 6.0)
    assert r["retransmitted"] == 1 and r["first_retransmissions"] == [{"segment": 2.0, "at_s": 1.0, "first_sent_s": 0.3}]
    assert r["sent_after_entry"] == [[1.0, 2.0], [1.0, 5.0]]
    assert r["acks_before_exit"] == [[1.49, 2.0, 6.0]]
    assert r["per_10_ms_new_retx_sacked"][0] == [1, 1, None]


def test_uplink_stats_read_ns3s_uplink_grants_and_errors_per_ue(tmp_path):
    # UlMacStats (time in s) and UlRxPhyStats (time in ms) as ns-3.44 writes them; IMSIs are 1-based.
    mac = tmp_path / "UlMacStats.txt"
    mac.write_text("% time\tcellId\tIMSI\tframe\tsframe\tRNTI\tmcs\tsize\tccId\n"
                   "0.05\t1\t1\t1\t1\t1\t20\t100\t0\n"
                   "0.06\t1\t2\t1\t2\t2\t20\t50\t0\n"
                   "0.15\t1\t2\t2\t1\t2\t20\t70\t0\n")
    phy = tmp_path / "UlRxPhyStats.txt"
    phy.write_text("% time\tcellId\tIMSI\tRNTI\tlayer\tmcs\tsize\trv\tndi\tcorrect\tccId\n"
                   "55\t1\t2\t2\t0\t20\t50\t0\t1\t1\t0\n"
                   "158\t1\t2\t2\t0\t20\t70\t0\t1\t0\t0\n")
    ul = _tool().uplink_stats(mac, phy, 2, 0.2)
    assert ul["UE 0"]["grants_per_100_ms"] == [1, 0] and ul["UE 0"]["grant_bytes_per_100_ms"] == [100, 0]
    assert ul["UE 1"]["grants_per_100_ms"] == [1, 1] and ul["UE 1"]["errors_s"] == [0.158]


def test_block_fill_reads_ns3s_transport_blocks_per_ue(tmp_path):
    # DlTxPhyStats as ns-3.44 writes it; only new blocks (rv 0) count, IMSIs are 1-based.
    trace = tmp_path / "DlTxPhyStats.txt"
    trace.write_text("% time\tcellId\tIMSI\tRNTI\tlayer\tmcs\tsize\trv\tndi\tccId\n"
                     "1\t1\t1\t1\t0\t28\t1000\t0\t1\t0\n"
                     "1\t1\t1\t1\t1\t28\t1000\t0\t1\t0\n"
                     "2\t1\t2\t2\t0\t20\t500\t0\t1\t0\n"
                     "9\t1\t2\t2\t0\t20\t500\t1\t0\t0\n")
    fill = _tool().block_fill(trace, {"fg0": 1800, "bg1": 250}, [1], 2)
    assert fill["UE 0"]["fill"] == 0.9 and fill["background UEs"]["fill"] == 0.5
