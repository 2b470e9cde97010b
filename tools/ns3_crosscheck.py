#!/usr/bin/env python3
"""Cross-check cellshare's cell against ns-3's LTE module (ns-3.44, the LENA simulator of the
Legilimens and Sneaker papers) at ns-3's own defaults: its mutual-information AMC, block
errors, HARQ and MAC pipeline against cellshare's realistic link (`cell.link`).

Cases (`--case`):
- `background` (the default): how much a long CUBIC foreground flow gets beside a
  low-priority background at the foreground's UE, at another UE, or at every UE of a PF cell
  (the question behind `legilimens-at-scale`).
- `cubic`: a lone CUBIC flow at 300 m for each eNB power of `--powers`.
- `udp`: a single saturated UDP receiver (100 Mbit/s offered, 1400-byte datagrams) at each
  distance of `--distances`, log-distance exponent 3.52.
- `harq`: the same saturated UDP receiver on a Rayleigh-fading channel (`--speed-kmh`) at each
  distance of `--harq-distances`: HARQ retransmissions per new transport block and the error
  rate of first transmissions. ns-3 reads the fading from a trace file (its
  `TraceFadingLossModel`), which this tool writes from the same sum-of-sinusoids Rayleigh
  model (Zheng & Xiao) cellshare's radio channel uses, at the same Doppler frequency, flat
  over the band.

The same cell runs in both simulators: one 10 MHz LTE carrier (50 PRBs), the PF scheduler,
UEs at one distance from the eNB (log-distance path loss, no fast fading unless `harq`), one
spatial layer, UE noise figure 9 dB, a per-UE RLC transmit queue of `--rlc-bytes`, servers
10 ms behind the gateway over 1 Gbit/s links, 1448-byte segments. Both sides have the same
link budget: ns-3's `LogDistancePropagationLossModel` loses 46.68 dB at 1 m (its default
`ReferenceLoss`, the free-space loss at 5.15 GHz), so cellshare's carrier is set to 5150 MHz,
whose free-space loss at 1 m is the same. ns-3 side: `LteHelper` with the EPC,
`PfFfMacScheduler`, RLC UM (`LteRlcUm::MaxTxBufferSize` set to the same queue size; ns-3's
default is 10 KB), everything else at ns-3's defaults (`LteAmc` "MiErrorModel", data and
control error models on, HARQ on); `BulkSendApplication`s for TCP, an `OnOffApplication` for
UDP; the background's controller on its own server node (ns-3's `TcpLedbat`, `TcpVegas`,
`TcpLp`, `TcpCubic`, `TcpBbr`), the foreground `TcpCubic` on another. Background
`ledbat-ns3` is cellshare's LEDBAT with ns-3 `TcpLedbat`'s window cap (ALLOWED_INCREASE = 0)
beside ns-3's `TcpLedbat`.

`--link ideal --ns3-amc piro` (or `--align-radio`) compares cellshare's ideal link with ns-3's
`PiroEW2010` AMC, the same SINR -> CQI rule (the lone CUBIC flow's rates at each power, both
ways, are stored in `tools/data/ns3-crosscheck-cubic-power.json` and shown on docs/crosscheck.md).

Layouts of `background` (the foreground is always one always-on CUBIC flow to UE 0, from 5 s):
- `same`:  1 UE; the background flows to UE 0 as well (one FIFO, Figure 2's left column).
- `other`: 2 UEs; the background flows to UE 1 (Figure 2's right column).
- `every`: `--ues` UEs; one background flow to every UE, as in `legilimens-at-scale`.

Throughputs are means over [10 s, duration] (TCP) or [2 s, duration] (UDP). Needs the `ns3`
wheel from PyPI (ns-3.44 Python bindings through cppyy; CPython 3.11 on x86-64 Linux) next to
cellshare:

    pip install ns3
    nice -n 10 python tools/ns3_crosscheck.py --case udp --out out/ns3-udp

Each ns-3 run is a subprocess of this script (`--ns3-case`, in a temporary folder for ns-3's
trace files), so a failing or slow ns-3 build never takes cellshare's side down with it. ns-3
is much slower: about 2 minutes per 40 s run with 10 UEs on one core of a 2-core VM, against
well under a second for cellshare.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BACKGROUNDS = {
    # name -> (cellshare controller, ns-3 TypeId)
    "none": (None, None),
    "ledbat": ({"kind": "ledbat"}, "ns3::TcpLedbat"),
    # ns-3's TcpLedbat caps cwnd at the flight before the ACK, i.e. RFC 6817's
    # ALLOWED_INCREASE = 0 (cellshare's default is the RFC's 1): the same rule on our side.
    "ledbat-ns3": ({"kind": "ledbat", "allowed_increase": 0.0}, "ns3::TcpLedbat"),
    "vegas": ({"kind": "vegas"}, "ns3::TcpVegas"),
    "tcp_lp": ({"kind": "tcp_lp"}, "ns3::TcpLp"),
    "cubic": ({"kind": "cubic"}, "ns3::TcpCubic"),
    "bbr": ({"kind": "bbr"}, "ns3::TcpBbr"),
}
LAYOUTS = ("same", "other", "every")
CASES = ("background", "cubic", "udp", "harq")
#: cellshare's carrier: the free-space loss at 1 m is then 20·log10(4π·f/c) = 46.68 dB, the
#: default `ReferenceLoss` (46.6777 dB) of ns-3's `LogDistancePropagationLossModel`, which is
#: the free-space loss at 1 m at 5.15 GHz.
ALIGNED_CARRIER_MHZ = 5150.0
FG_START_S = 5.0
MEASURE_FROM_S = 10.0
UDP_MEASURE_FROM_S = 2.0
UDP_OFFERED_MBPS = 100.0
UDP_PAYLOAD = 1400
SPEED_OF_LIGHT = 299_792_458.0
#: The fading trace handed to ns-3's TraceFadingLossModel: 10 s at one sample per ms.
FADING_TRACE_MS = 10_000


def layout_ues(layout: str, ues: int) -> tuple[int, list[int]]:
    """(number of UEs, UEs receiving a background flow) of a layout."""
    if layout == "same":
        return 1, [0]
    if layout == "other":
        return 2, [1]
    if layout == "every":
        return ues, list(range(ues))
    raise SystemExit(f"ns3_crosscheck: --layouts: {layout!r} is not one of {', '.join(LAYOUTS)}")


def exponent_of(args: argparse.Namespace) -> float:
    """The log-distance exponent of a run: `--exponent`, else 3.52 (the papers' and cellshare's
    default) for the single-UE UDP cases and 3.0 for the TCP cases at 300 m."""
    e = getattr(args, "exponent", None)
    if e is not None:
        return e
    return 3.52 if getattr(args, "case", "background") in ("udp", "harq") else 3.0


def snr_db(args: argparse.Namespace) -> float:
    """The mean SNR of a UE at `args.distance` under the shared link budget, dB."""
    path_loss = 46.6777 + 10 * exponent_of(args) * math.log10(max(args.distance, 1.0))
    noise = -174 + 10 * math.log10(180e3) + 9
    return args.tx_dbm - 10 * math.log10(50) - path_loss - noise


def doppler_hz(speed_kmh: float) -> float:
    """Doppler frequency at `speed_kmh` on cellshare's aligned carrier."""
    return speed_kmh / 3.6 * ALIGNED_CARRIER_MHZ * 1e6 / SPEED_OF_LIGHT


def write_fading_trace(path: Path, doppler: float, rbs: int = 50, seed: int = 1) -> None:
    """A flat Rayleigh fading trace in ns-3's `TraceFadingLossModel` text format (one row of
    gains in dB per resource block, one column per ms), from the Zheng & Xiao sum of sinusoids
    that cellshare's radio channel uses (16 sinusoids per branch, unit mean power)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    m = 16
    t = np.arange(FADING_TRACE_MS) * 1e-3
    theta = rng.uniform(-np.pi, np.pi)
    n = np.arange(1, m + 1)
    alpha = (2 * np.pi * n - np.pi + theta) / (4 * m)
    w = 2 * np.pi * doppler
    phi, psi = rng.uniform(-np.pi, np.pi, m), rng.uniform(-np.pi, np.pi, m)
    xc = np.cos(w * t[:, None] * np.cos(alpha)[None, :] + phi[None, :]).sum(1)
    xs = np.cos(w * t[:, None] * np.sin(alpha)[None, :] + psi[None, :]).sum(1)
    power = xc**2 + xs**2
    power /= power.mean()
    row = " ".join(f"{v:.4f}" for v in 10 * np.log10(np.maximum(power, 1e-12)))
    path.write_text("\n".join([row] * rbs) + "\n")


def run_ns3(args: argparse.Namespace) -> dict:
    """One ns-3 run; returns {flow name: mean Mbit/s over the measurement window} and, for
    the single-UE UDP cases, the downlink HARQ statistics of ns-3's PHY reception trace."""
    from ns import ns  # the PyPI `ns3` wheel

    udp = args.case in ("udp", "harq")
    n_ues, bg_ues = (1, []) if udp else layout_ues(args.layout, args.ues)
    bg_type = None if udp else BACKGROUNDS[args.background][1]
    ns.RngSeedManager.SetSeed(args.seed)
    ns.Config.SetDefault("ns3::LteEnbRrc::EpsBearerToRlcMapping", ns.StringValue("RlcUmAlways"))
    ns.Config.SetDefault("ns3::LteRlcUm::MaxTxBufferSize", ns.UintegerValue(args.rlc_bytes))
    ns.Config.SetDefault("ns3::LteEnbRrc::SrsPeriodicity", ns.UintegerValue(320))
    ns.Config.SetDefault("ns3::LteEnbPhy::TxPower", ns.DoubleValue(args.tx_dbm))
    if args.ns3_amc == "piro":
        ns.Config.SetDefault("ns3::LteAmc::AmcModel", ns.StringValue("PiroEW2010"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(8 << 20))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(8 << 20))
    if getattr(args, "ns3_hystart_delay_max_ms", None) is not None:
        # Diagnosis: ns-3.44's TcpCubic::HystartUpdate exits when the round's RTT exceeds
        # delay_min + clamp(delay_min, HyStartDelayMin = 4 ms, HyStartDelayMax = 1000 ms)
        # (tcp-cubic.cc, HystartDelayThresh(m_delayMin)); Linux's hystart_update uses
        # clamp(delay_min / 8, 4 ms, 16 ms). With HyStartDelayMax = 16 ms the two agree
        # whenever delay_min >= 128 ms (both 16 ms).
        ns.Config.SetDefault("ns3::TcpCubic::HyStartDelayMax",
                             ns.TimeValue(ns.MilliSeconds(args.ns3_hystart_delay_max_ms)))
    lte = ns.CreateObject[ns.LteHelper]()
    epc = ns.CreateObject[ns.PointToPointEpcHelper]()
    lte.SetEpcHelper(epc)
    lte.SetSchedulerType("ns3::PfFfMacScheduler")
    lte.SetAttribute("PathlossModel", ns.StringValue("ns3::LogDistancePropagationLossModel"))
    lte.SetPathlossModelAttribute("Exponent", ns.DoubleValue(exponent_of(args)))
    if args.case == "harq":
        trace = Path.cwd() / "fading.fad"
        write_fading_trace(trace, doppler_hz(args.speed_kmh), seed=args.seed)
        lte.SetAttribute("FadingModel", ns.StringValue("ns3::TraceFadingLossModel"))
        lte.SetFadingModelAttribute("TraceFilename", ns.StringValue(str(trace)))
        lte.SetFadingModelAttribute("TraceLength", ns.TimeValue(ns.Seconds(FADING_TRACE_MS / 1000)))
        lte.SetFadingModelAttribute("SamplesNum", ns.UintegerValue(FADING_TRACE_MS))
        lte.SetFadingModelAttribute("WindowSize", ns.TimeValue(ns.Seconds(0.5)))
        lte.SetFadingModelAttribute("RbNum", ns.UintegerValue(50))
    lte.SetEnbDeviceAttribute("DlBandwidth", ns.UintegerValue(50))
    lte.SetEnbDeviceAttribute("UlBandwidth", ns.UintegerValue(50))

    # Servers: 0 sends the foreground (or the UDP load), 1 the background.
    pgw = epc.GetPgwNode()
    servers = ns.NodeContainer()
    servers.Create(2)
    internet = ns.InternetStackHelper()
    internet.Install(servers)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue("1Gbps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue("10ms"))
    addresses = ns.Ipv4AddressHelper()
    static = ns.Ipv4StaticRoutingHelper()
    for i in range(2):
        link = p2p.Install(pgw, servers.Get(i))
        addresses.SetBase(ns.Ipv4Address(f"1.0.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        addresses.Assign(link)
        routes = static.GetStaticRouting(servers.Get(i).GetObject[ns.Ipv4]())
        routes.AddNetworkRouteTo(ns.Ipv4Address("7.0.0.0"), ns.Ipv4Mask("255.0.0.0"), 1)

    enbs = ns.NodeContainer()
    enbs.Create(1)
    ues = ns.NodeContainer()
    ues.Create(n_ues)
    mobility = ns.MobilityHelper()
    enb_pos = ns.CreateObject[ns.ListPositionAllocator]()
    enb_pos.Add(ns.Vector(0, 0, 0))
    mobility.SetPositionAllocator(enb_pos)
    mobility.Install(enbs)
    ue_pos = ns.CreateObject[ns.ListPositionAllocator]()
    for i in range(n_ues):
        angle = 2 * math.pi * i / n_ues
        ue_pos.Add(ns.Vector(args.distance * math.cos(angle), args.distance * math.sin(angle), 0))
    mobility.SetPositionAllocator(ue_pos)
    mobility.Install(ues)
    enb_devs = lte.InstallEnbDevice(enbs)
    ue_devs = lte.InstallUeDevice(ues)
    internet.Install(ues)
    ue_ips = epc.AssignUeIpv4Address(ue_devs)
    for i in range(n_ues):
        routes = static.GetStaticRouting(ues.Get(i).GetObject[ns.Ipv4]())
        routes.SetDefaultRoute(epc.GetUeDefaultGatewayAddress(), 1)
    lte.Attach(ue_devs, enb_devs.Get(0))

    def set_cc(node, type_id: str) -> None:
        ns.Config.Set(f"/NodeList/{node.GetId()}/$ns3::TcpL4Protocol/SocketType",
                      ns.TypeIdValue(ns.TypeId.LookupByName(type_id)))

    sinks = {}

    def sink(ue: int, port: int, factory: str, name: str) -> None:
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        app = ns.PacketSinkHelper(factory, any_addr).Install(ues.Get(ue))
        app.Start(ns.Seconds(0.1))
        sinks[name] = ns.DynamicCast[ns.PacketSink](app.Get(0))

    def bulk(server: int, ue: int, port: int, start: float, name: str) -> None:
        dst = ns.InetSocketAddress(ue_ips.GetAddress(ue), port).ConvertTo()
        sender = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
        sender.SetAttribute("MaxBytes", ns.UintegerValue(0))
        app = sender.Install(servers.Get(server))
        app.Start(ns.Seconds(start))
        app.Stop(ns.Seconds(args.duration))
        senders.setdefault(server, []).append(app.Get(0))
        sink(ue, port, "ns3::TcpSocketFactory", name)

    senders = {}

    if udp:
        dst = ns.InetSocketAddress(ue_ips.GetAddress(0), 1000).ConvertTo()
        onoff = ns.OnOffHelper("ns3::UdpSocketFactory", dst)
        onoff.SetConstantRate(ns.DataRate(f"{UDP_OFFERED_MBPS:g}Mbps"), UDP_PAYLOAD)
        app = onoff.Install(servers.Get(0))
        app.Start(ns.Seconds(0.5))
        app.Stop(ns.Seconds(args.duration))
        sink(0, 1000, "ns3::UdpSocketFactory", "udp0")
        lte.EnablePhyTraces()
        measure_from = UDP_MEASURE_FROM_S
    else:
        set_cc(servers.Get(0), "ns3::TcpCubic")
        if bg_type:
            set_cc(servers.Get(1), bg_type)
            for ue in bg_ues:
                bulk(1, ue, 2000, 0.5 + 0.01 * ue, f"bg{ue}")
        bulk(0, 0, 1000, FG_START_S, "fg0")
        measure_from = MEASURE_FROM_S
        if args.phy_stats:
            lte.EnableDlTxPhyTraces()
        if getattr(args, "ul_stats", False):
            lte.EnableUlMacTraces()
            lte.EnableUlRxPhyTraces()

    flowmon = ns.FlowMonitorHelper()
    monitor = flowmon.InstallAll() if not udp else None
    tcp_trace = None
    prr_rfc = not udp and getattr(args, "ns3_prr_rfc_delivered", False)
    if not udp and (getattr(args, "tcp_trace", False) or prr_rfc):
        # Each server's sockets exist once its applications have started: the backgrounds'
        # by 0.5 + 0.01·UE s, the foreground's at FG_START_S. (Pausing the simulator to
        # connect the sinks changes nothing in the run.)
        tcp_trace = TcpTrace(ns, servers) if getattr(args, "tcp_trace", False) else None
        for k, at in ((1, 0.5 + 0.01 * n_ues + 0.001), (0, FG_START_S + 0.001)):
            ns.Simulator.Stop(ns.Seconds(at - ns.Simulator.Now().GetSeconds()))
            ns.Simulator.Run()
            if tcp_trace is not None:
                tcp_trace.connect(k)
            if prr_rfc:
                for app in senders.get(k, []):
                    prr_rfc_delivered(ns, app)
    # Run to the measurement window's start and end; with `--tcp-trace` also pause every
    # 100 ms to read FlowMonitor's running delay sums (one-way delay per 100 ms).
    stops = [measure_from, args.duration]
    if tcp_trace is not None:
        now = ns.Simulator.Now().GetSeconds()
        stops = sorted({*stops, *(k / 10 for k in range(math.floor(now * 10) + 1, int(args.duration * 10) + 1))})
    snapshots = []
    for at in stops:
        if at > ns.Simulator.Now().GetSeconds():
            ns.Simulator.Stop(ns.Seconds(at - ns.Simulator.Now().GetSeconds()))
            ns.Simulator.Run()
        if at == measure_from:
            start = {k: s.GetTotalRx() for k, s in sinks.items()}
        if tcp_trace is not None:
            snapshots.append((at, flow_delay_sums(ns, flowmon, monitor)))
    end = {k: s.GetTotalRx() for k, s in sinks.items()}
    span = args.duration - measure_from
    out = {k: (end[k] - start[k]) * 8 / span / 1e6 for k in sinks}
    if monitor is not None:
        out["delays"] = flow_delays(ns, flowmon, monitor)
    if tcp_trace is not None:
        out["tcp"] = tcp_trace.summary(0.0, args.duration)
        out["tcp"]["delay_ms_per_s"] = delays_per_interval(snapshots)
    if not udp and args.phy_stats:
        out["fill"] = block_fill(Path.cwd() / "DlTxPhyStats.txt", end, bg_ues, n_ues)
    if not udp and getattr(args, "ul_stats", False):
        out["uplink"] = uplink_stats(Path.cwd() / "UlMacStats.txt", Path.cwd() / "UlRxPhyStats.txt", n_ues, args.duration)
    ns.Simulator.Destroy()
    if udp:
        out["harq"] = ns3_harq_stats(Path.cwd())
    return out


_PRR_DEFINED = False


def prr_rfc_delivered(ns, app) -> None:
    """Diagnosis (`--ns3-prr-rfc-delivered`): gives the socket of a started ns-3
    `BulkSendApplication` a copy of ns-3.44's `TcpPrrRecovery` with one change: a duplicate
    ACK counts as delivered only the bytes it newly SACKs (RFC 6937's DeliveredData, Linux's
    `newly_acked_sacked`). ns-3.44's `DoRecovery` adds one segment more for every duplicate
    ACK (`if (isDupAck && m_prrDelivered < m_recoveryFlightSize) deliveredBytes +=
    tcb->m_segmentSize;`) on top of the SACKed bytes `TcpSocketBase::DupAck` passes in, so
    with SACK each such ACK counts twice until `prrDelivered` reaches RecoverFS."""
    define_prr_rfc_delivered().UsePrrRfcDelivered(app)


def define_prr_rfc_delivered():
    """Defines (once) `cellshare_xc::PrrRfcDelivered` (see `prr_rfc_delivered`) in cppyy;
    returns the `cellshare_xc` namespace. Needs the `ns3` wheel loaded."""
    global _PRR_DEFINED
    import cppyy
    if not _PRR_DEFINED:
        cppyy.cppdef("""
        #include <cmath>
        namespace cellshare_xc {
        class PrrRfcDelivered : public ns3::TcpRecoveryOps {
          public:
            std::string GetName() const override { return "PrrRfcDelivered"; }
            void EnterRecovery(ns3::Ptr<ns3::TcpSocketState> tcb, uint32_t, uint32_t, uint32_t deliveredBytes) override {
                m_prrOut = 0; m_prrDelivered = 0; m_recoveryFlightSize = tcb->m_bytesInFlight;
                DoRecovery(tcb, deliveredBytes, true);
            }
            void DoRecovery(ns3::Ptr<ns3::TcpSocketState> tcb, uint32_t deliveredBytes, bool) override {
                // ns-3.44 TcpPrrRecovery::DoRecovery without `deliveredBytes += m_segmentSize` for dupacks.
                if (deliveredBytes == 0) { return; }
                m_prrDelivered += deliveredBytes;
                int sendCount;
                if (tcb->m_bytesInFlight > tcb->m_ssThresh) {
                    sendCount = std::ceil(m_prrDelivered * tcb->m_ssThresh * 1.0 / m_recoveryFlightSize) - m_prrOut;
                } else {
                    int limit = std::max<int>(m_prrDelivered - m_prrOut, deliveredBytes);
                    if (tcb->m_isRetransDataAcked) { limit += tcb->m_segmentSize; }
                    sendCount = std::min(limit, static_cast<int>(tcb->m_ssThresh - tcb->m_bytesInFlight));
                }
                sendCount = std::max(sendCount, static_cast<int>(m_prrOut > 0 ? 0 : tcb->m_segmentSize));
                tcb->m_cWnd = tcb->m_bytesInFlight + sendCount;
                tcb->m_cWndInfl = tcb->m_cWnd;
            }
            void ExitRecovery(ns3::Ptr<ns3::TcpSocketState> tcb) override { tcb->m_cWndInfl = tcb->m_cWnd; }
            void UpdateBytesSent(uint32_t bytesSent) override { m_prrOut += bytesSent; }
            ns3::Ptr<ns3::TcpRecoveryOps> Fork() override { return ns3::CopyObject<PrrRfcDelivered>(this); }
          private:
            uint32_t m_prrDelivered{0};
            uint32_t m_prrOut{0};
            uint32_t m_recoveryFlightSize{0};
        };
        inline void UsePrrRfcDelivered(ns3::Ptr<ns3::Application> app) {
            auto bulk = ns3::DynamicCast<ns3::BulkSendApplication>(app);
            auto socket = ns3::DynamicCast<ns3::TcpSocketBase>(bulk->GetSocket());
            socket->SetRecoveryAlgorithm(ns3::CreateObject<PrrRfcDelivered>());
        }
        }
        """)
        _PRR_DEFINED = True
    return cppyy.gbl.cellshare_xc


def _flow_stats(ns, flowmon, monitor):
    """(name, FlowMonitor stats) of every TCP flow of the run: `fg@UE.data` server → UE,
    `fg@UE.ack` back, `bg@UE.*` likewise."""
    classifier = ns.DynamicCast[ns.Ipv4FlowClassifier](flowmon.GetClassifier())
    for item in monitor.GetFlowStats():
        fid, st = item.first, item.second
        t = classifier.FindFlow(fid)
        port = t.destinationPort if t.destinationPort in (1000, 2000) else t.sourcePort
        if port not in (1000, 2000):
            continue
        ue = str(t.destinationAddress if t.destinationPort == port else t.sourceAddress)
        yield ("fg" if port == 1000 else "bg") + f"@{ue}." + ("data" if t.destinationPort == port else "ack"), st


def flow_delays(ns, flowmon, monitor) -> dict:
    """One-way delay and jitter (mean |difference of consecutive delays|) of every IP flow of
    the run, ms, from ns-3's FlowMonitor: `fg0.data` server → UE 0, `fg0.ack` back, `bgN.*`
    likewise."""
    monitor.CheckForLostPackets()
    out = {}
    for name, st in _flow_stats(ns, flowmon, monitor):
        if st.rxPackets < 2:
            continue
        out[name] = {"delay_ms": st.delaySum.GetSeconds() * 1e3 / st.rxPackets,
                     "jitter_ms": st.jitterSum.GetSeconds() * 1e3 / (st.rxPackets - 1), "packets": int(st.rxPackets)}
    return out


def flow_delay_sums(ns, flowmon, monitor) -> dict:
    """{flow name: (sum of one-way delays in s, packets received)} so far (FlowMonitor's running sums)."""
    return {name: (st.delaySum.GetSeconds(), int(st.rxPackets)) for name, st in _flow_stats(ns, flowmon, monitor)}


def delays_per_interval(snapshots: list) -> dict:
    """From running delay sums at successive times, [(t, {flow: (delay sum s, packets)})],
    the mean one-way delay of each flow's packets received between each pair of times, ms
    ({flow: {"to_s": [t...], "delay_ms": [...]}}; None where none arrived)."""
    out = {}
    for (_, a), (t, b) in zip(snapshots, snapshots[1:]):
        for name, (d1, n1) in b.items():
            d0, n0 = a.get(name, (0.0, 0))
            row = out.setdefault(name, {"to_s": [], "delay_ms": []})
            row["to_s"].append(round(t, 3))
            row["delay_ms"].append(round((d1 - d0) * 1e3 / (n1 - n0), 3) if n1 > n0 else None)
    return out


class TcpTrace:
    """Diagnosis (`--tcp-trace`): ns-3's TCP senders on server 0 (the foreground) and server 1
    (the backgrounds) over the whole run: the congestion window at each whole second, the
    times of entries into fast recovery (`CA_RECOVERY`) and into loss recovery after a timeout
    (`CA_LOSS`), and the RTTs: the smoothed RTT (the one ns-3.44's `TcpSocketBase` hands to
    its controllers' `PktsAcked`, so `TcpVegas`'s BaseRTT is its minimum) and the last RTT
    sample, from the sockets' `CongestionWindow`, `CongState`, `RTT` and `LastRTT` trace
    sources. The sinks are C++ (cppyy) so no Python runs per ACK."""

    _defined = False
    #: Stored series per server, each as (time, value) vectors.
    _NAMES = ("cwnd", "state", "srtt", "rtt", "ssthresh", "una", "high", "tx", "ack", "sack_high")
    _SERIES = 2 * len(_NAMES)

    def __init__(self, ns, servers):
        import cppyy
        if not TcpTrace._defined:
            cppyy.cppdef("""
            #include <vector>
            namespace cellshare_xc {
            // Function-local statics: cppyy's JIT cannot run global static initialisers here.
            inline std::vector<double>& Store(int i) { static std::vector<double> v[40]; return v[i]; }
            inline void Put(int i, double x) {
              Store(i).push_back(ns3::Simulator::Now().GetSeconds()); Store(i + 1).push_back(x); }
            template <int K> void Cwnd(uint32_t, uint32_t n) { Put(20 * K, n); }
            template <int K> void State(ns3::TcpSocketState::TcpCongState_t, ns3::TcpSocketState::TcpCongState_t n) {
              Put(20 * K + 2, n); }
            template <int K> void Srtt(ns3::Time, ns3::Time n) { Put(20 * K + 4, n.GetSeconds()); }
            template <int K> void LastRtt(ns3::Time, ns3::Time n) { Put(20 * K + 6, n.GetSeconds()); }
            template <int K> void Ssthresh(uint32_t, uint32_t n) { Put(20 * K + 8, n); }
            template <int K> void Una(ns3::SequenceNumber32, ns3::SequenceNumber32 n) { Put(20 * K + 10, n.GetValue()); }
            template <int K> void High(ns3::SequenceNumber32, ns3::SequenceNumber32 n) { Put(20 * K + 12, n.GetValue()); }
            template <int K> void Tx(ns3::Ptr<const ns3::Packet> p, const ns3::TcpHeader& h, ns3::Ptr<const ns3::TcpSocketBase>) {
              if (p->GetSize() > 0) { Put(20 * K + 14, h.GetSequenceNumber().GetValue()); } }
            // Each ACK: its number, and the right edge of its highest SACK block (0 without one).
            template <int K> void Rx(ns3::Ptr<const ns3::Packet>, const ns3::TcpHeader& h, ns3::Ptr<const ns3::TcpSocketBase>) {
              if (!(h.GetFlags() & ns3::TcpHeader::ACK)) { return; }
              double high = 0;
              if (h.HasOption(ns3::TcpOption::SACK)) {
                auto sack = ns3::DynamicCast<const ns3::TcpOptionSack>(h.GetOption(ns3::TcpOption::SACK));
                for (const auto& block : sack->GetSackList()) { high = std::max<double>(high, block.second.GetValue()); }
              }
              Put(20 * K + 16, h.GetAckNumber().GetValue()); Put(20 * K + 18, high); }
            template <class F> F Pick(int k, F a, F b) { return k ? b : a; }
            inline ns3::Callback<void, uint32_t, uint32_t> CwndSink(int k) {
              return k ? ns3::MakeCallback(&Cwnd<1>) : ns3::MakeCallback(&Cwnd<0>); }
            inline ns3::Callback<void, ns3::TcpSocketState::TcpCongState_t, ns3::TcpSocketState::TcpCongState_t> StateSink(int k) {
              return k ? ns3::MakeCallback(&State<1>) : ns3::MakeCallback(&State<0>); }
            inline ns3::Callback<void, ns3::Time, ns3::Time> SrttSink(int k) {
              return k ? ns3::MakeCallback(&Srtt<1>) : ns3::MakeCallback(&Srtt<0>); }
            inline ns3::Callback<void, ns3::Time, ns3::Time> LastRttSink(int k) {
              return k ? ns3::MakeCallback(&LastRtt<1>) : ns3::MakeCallback(&LastRtt<0>); }
            inline ns3::Callback<void, uint32_t, uint32_t> SsthreshSink(int k) {
              return k ? ns3::MakeCallback(&Ssthresh<1>) : ns3::MakeCallback(&Ssthresh<0>); }
            inline ns3::Callback<void, ns3::SequenceNumber32, ns3::SequenceNumber32> UnaSink(int k) {
              return k ? ns3::MakeCallback(&Una<1>) : ns3::MakeCallback(&Una<0>); }
            inline ns3::Callback<void, ns3::SequenceNumber32, ns3::SequenceNumber32> HighSink(int k) {
              return k ? ns3::MakeCallback(&High<1>) : ns3::MakeCallback(&High<0>); }
            inline ns3::Callback<void, ns3::Ptr<const ns3::Packet>, const ns3::TcpHeader&, ns3::Ptr<const ns3::TcpSocketBase>> TxSink(int k) {
              return k ? ns3::MakeCallback(&Tx<1>) : ns3::MakeCallback(&Tx<0>); }
            inline ns3::Callback<void, ns3::Ptr<const ns3::Packet>, const ns3::TcpHeader&, ns3::Ptr<const ns3::TcpSocketBase>> RxSink(int k) {
              return k ? ns3::MakeCallback(&Rx<1>) : ns3::MakeCallback(&Rx<0>); }
            }
            """)
            TcpTrace._defined = True
        self.g, self.ns, self.servers = cppyy.gbl.cellshare_xc, ns, servers
        for i in range(2 * self._SERIES):
            self.g.Store(i).clear()

    def connect(self, k: int) -> None:
        """Connects the sinks to the sockets server `k` has now."""
        base = f"/NodeList/{self.servers.Get(k).GetId()}/$ns3::TcpL4Protocol/SocketList/*/"
        for source, sink in (("CongestionWindow", self.g.CwndSink), ("CongState", self.g.StateSink),
                             ("RTT", self.g.SrttSink), ("LastRTT", self.g.LastRttSink),
                             ("SlowStartThreshold", self.g.SsthreshSink), ("HighestRxAck", self.g.UnaSink),
                             ("HighestSequence", self.g.HighSink), ("Tx", self.g.TxSink), ("Rx", self.g.RxSink)):
            self.ns.Config.ConnectWithoutContext(base + source, sink(k))

    def series(self, k: int) -> dict:
        """Server `k`'s stored series: {name: (times, values)} for each of `_NAMES`."""
        return {name: (list(self.g.Store(self._SERIES * k + 2 * j)), list(self.g.Store(self._SERIES * k + 2 * j + 1)))
                for j, name in enumerate(self._NAMES)}

    def summary(self, t0: float, t1: float) -> dict:
        out = {}
        for k, name in ((0, "server 0"), (1, "server 1")):
            s = self.series(k)
            (t, w), (ts, st) = s["cwnd"], s["state"]
            out[name] = {"cwnd_segments_per_s": [None if v is None else int(v // 1448) for v in held(t, w, range(int(t0) + 1, int(t1) + 1))],
                         # every 100 ms from 4 to 10 s: the foreground's start
                         "cwnd_segments_4_to_10_s_per_100_ms": [None if v is None else int(v // 1448)
                                                                for v in held(t, w, [x / 10 for x in range(40, 101)])],
                         "cwnd_segments_per_100_ms": [None if v is None else int(v // 1448)
                                                      for v in held(t, w, [x / 10 for x in range(int(t0 * 10) + 1, int(t1 * 10) + 1)])],
                         "fast_recoveries_s": [round(a, 3) for a, x in zip(ts, st) if int(x) == 3],
                         "timeouts_s": [round(a, 3) for a, x in zip(ts, st) if int(x) == 4]}
            out[name].update(rtt_summary(*s["srtt"], *s["rtt"], t0, t1))
            out[name]["recoveries"] = recoveries(s)
        return out


def per_10_ms(a: float, b, tt: list, seq: list, retx: list, ta: list, sh: list, mss: int) -> list:
    """[new segments sent, retransmissions, advance of the highest SACK edge in segments] in
    each 10 ms from `a` to `b` (at most 40 intervals)."""
    if b is None:
        return []
    retx_times = sorted(x for x, _ in retx)
    out, t = [], a
    while t < b and len(out) < 40:
        u = min(t + 0.01, b)
        sent = sum(1 for x in tt if t <= x < u)
        rx = sum(1 for x in retx_times if t <= x < u)
        edges = [h for x, h in zip(ta, sh) if x < u and h]
        before = [h for x, h in zip(ta, sh) if x < t and h]
        adv = (max(edges) - max(before)) / mss if edges and before else None
        out.append([sent - rx, rx, None if adv is None else round(adv, 1)])
        t = u
    return out


#: ns-3's TcpSocketState::TcpCongState_t names.
CONG_STATES = ("open", "disorder", "cwr", "recovery", "loss")


def recoveries(s: dict, mss: int = 1448, listed: int = 40) -> list:
    """Each entry of one ns-3 sender into fast recovery (`CA_RECOVERY`) or loss recovery
    (`CA_LOSS`), from its traced series (`TcpTrace.series`): when, the window before and the
    threshold after, SND.UNA and the recovery point (HighTxMark at entry, ns-3's `m_recover`),
    in segments from the first byte sent, when and to which state it was left, and the
    segments retransmitted until then with the time each was first sent (whether they belong
    to the window before the entry or were sent during an earlier recovery)."""
    (ts, st), (tw, w), (th, thv) = s["state"], s["cwnd"], s["ssthresh"]
    (tu, u), (thi, hi), (tt, seq) = s["una"], s["high"], s["tx"]
    (ta, ack), (_, sh) = s["ack"], s["sack_high"]
    if not tt:
        return []
    isn = seq[0]

    def rel(x):
        return None if x is None else round((x - isn) / mss, 2)

    first_sent, highest, retx = {}, -1, []  # retransmissions: (time, seq)
    for a, q in zip(tt, seq):
        if q <= highest:
            retx.append((a, q))
        else:
            highest = q
        first_sent.setdefault(q, a)
    out = []
    for i, (a, x) in enumerate(zip(ts, st)):
        if int(x) not in (3, 4):
            continue
        left = next(((b, int(y)) for b, y in zip(ts[i + 1:], st[i + 1:]) if int(y) != int(x)), (None, None))
        inside = [(b, q) for b, q in retx if a <= b and (left[0] is None or b < left[0])]
        cwnd_before = [v for b, v in zip(tw, w) if b < a]
        ssthresh_after = held(th, thv, [a])[0]
        out.append({"at_s": round(a, 4), "state": CONG_STATES[int(x)],
                    "cwnd_before_segments": round(cwnd_before[-1] / mss, 1) if cwnd_before else None,
                    "ssthresh_segments": None if ssthresh_after is None else round(ssthresh_after / mss, 1),
                    "una_segments": rel(held(tu, u, [a])[0]), "recover_segments": rel(held(thi, hi, [a])[0]),
                    "left_s": None if left[0] is None else round(left[0], 4),
                    "left_to": None if left[1] is None else CONG_STATES[left[1]],
                    "una_at_exit_segments": None if left[0] is None else rel(held(tu, u, [left[0]])[0]),
                    "retransmitted": len(inside),
                    # The last ACKs up to the exit (time, SND.UNA they carry, right edge of the
                    # highest SACK block, segments) and what was sent in the 150 ms before it.
                    "acks_before_exit": [] if left[0] is None else [
                        [round(b, 4), rel(q), rel(h) if h else None] for b, q, h in zip(ta, ack, sh)
                        if left[0] - 0.02 <= b <= left[0]][-12:],
                    # Per 10 ms from the entry to the exit: new segments sent, retransmissions,
                    # and how far the highest SACKed segment advanced (about what was delivered).
                    "per_10_ms_new_retx_sacked": per_10_ms(a, left[0], tt, seq, retx, ta, sh, mss),
                    # The first sends from the entry on (time to 10 µs, segment).
                    "sent_after_entry": [[round(b, 5), rel(q)] for b, q in zip(tt, seq) if b >= a][:8],
                    "sent_before_exit": [] if left[0] is None else [
                        [round(b, 4), rel(q)] for b, q in zip(tt, seq) if left[0] - 0.15 <= b <= left[0]][-30:],
                    "first_retransmissions": [{"segment": rel(q), "at_s": round(b, 4), "first_sent_s": round(first_sent[q], 4)}
                                              for b, q in inside[:listed]]})
    return out


def held(t: list, v: list, at) -> list:
    """The value of a step series (times `t`, values `v`) at each time of `at` (None before the first)."""
    out, j = [], 0
    for x in at:
        while j < len(t) and t[j] <= x:
            j += 1
        out.append(v[j - 1] if j else None)
    return out


def interval_min(t: list, v: list, edges: list) -> list:
    """The smallest value a step series (times `t`, values `v`) holds within each interval
    [edges[i], edges[i + 1]): the value held at its start and every value set inside it
    (None while the series has not started)."""
    out, j = [], 0
    for a, b in zip(edges, edges[1:]):
        while j < len(t) and t[j] <= a:
            j += 1
        low = v[j - 1] if j else None
        while j < len(t) and t[j] < b:
            low = v[j] if low is None else min(low, v[j])
            j += 1
        out.append(low)
    return out


def rtt_summary(st: list, sv: list, rt: list, rv: list, t0: float, t1: float) -> dict:
    """RTT figures of one ns-3 sender, ms, from its smoothed-RTT and last-RTT-sample step series
    (times, values in s; a traced value reports changes only, so a value holds until the next):
    the smoothed RTT at each whole second and at every 100 ms, its minimum and the samples'
    minimum within each second and each 100 ms, and the smallest smoothed RTT of the run with
    its time (what ns-3.44's `TcpVegas` takes as BaseRTT, as it is fed the smoothed RTT)."""
    def ms(values: list) -> list:
        return [None if x is None else round(x * 1e3, 2) for x in values]

    seconds = list(range(int(t0), int(t1) + 1))
    tenths = [k / 10 for k in range(int(t0 * 10), int(t1 * 10) + 1)]
    positive = [(b, a) for a, b in zip(st, sv) if b > 0]
    low = min(positive) if positive else (None, None)
    return {"srtt_ms_per_s": ms(held(st, sv, seconds[1:])),
            "srtt_min_ms_per_s": ms(interval_min(st, sv, seconds)),
            "rtt_sample_min_ms_per_s": ms(interval_min(rt, rv, seconds)),
            "srtt_ms_per_100_ms": ms(held(st, sv, tenths[1:])),
            "srtt_min_ms_per_100_ms": ms(interval_min(st, sv, tenths)),
            "rtt_sample_min_ms_per_100_ms": ms(interval_min(rt, rv, tenths)),
            "srtt_min_ms": None if low[0] is None else round(low[0] * 1e3, 3),
            "srtt_min_at_s": None if low[1] is None else round(low[1], 3)}


def uplink_stats(mac: Path, phy: Path, n_ues: int, duration: float) -> dict:
    """Diagnosis (`--ul-stats`): each UE's uplink grants per 100 ms (ns-3's `UlMacStats`: one
    line per scheduled uplink block: % time cellId IMSI frame sframe RNTI mcs size ccId) and the
    blocks the eNB received in error (`UlRxPhyStats`, time in ms, `correct` = 0), by UE (IMSI − 1)."""
    tenths = int(duration * 10)
    grants = [[0] * tenths for _ in range(n_ues)]
    grant_bytes = [[0] * tenths for _ in range(n_ues)]
    for t, imsi, size in stats_columns(mac, "time", "IMSI", "size"):
        k = min(int(float(t) * 10), tenths - 1)
        ue = int(imsi) - 1
        grants[ue][k] += 1
        grant_bytes[ue][k] += int(size)
    errors = [[] for _ in range(n_ues)]
    for t, imsi, ok in stats_columns(phy, "time", "IMSI", "correct"):
        if ok == "0":
            errors[int(imsi) - 1].append(round(float(t) / 1000, 4))  # this file's time is in ms
    return {f"UE {u}": {"grants_per_100_ms": grants[u], "grant_bytes_per_100_ms": grant_bytes[u],
                        "errors_s": errors[u][:200], "errors": len(errors[u])} for u in range(n_ues)}


def new_block_bytes(path: Path, n_ues: int) -> list[int]:
    """Bytes of the new downlink transport blocks (`rv` 0, both layers) ns-3 sent to each UE,
    from its `DlTxPhyStats.txt` (columns named by its header line)."""
    tb = [0] * n_ues
    for imsi, size, rv in stats_columns(path, "IMSI", "size", "rv"):
        if rv == "0":
            tb[int(imsi) - 1] += int(size)  # IMSIs are 1.. in install order
    return tb


def stats_columns(path: Path, *names: str):
    """The named columns (strings) of each non-empty line of one of ns-3's LTE stats files,
    whose first line names the columns after a `%`."""
    with path.open() as fh:
        cols = fh.readline().lstrip("%").split()
        idx = [cols.index(n) for n in names]
        for line in fh:
            f = line.split()
            if f:
                yield tuple(f[i] for i in idx)


def block_fill(path: Path, received: dict, bg_ues: list[int], n_ues: int) -> dict:
    """How full ns-3's downlink transport blocks are, over the whole run: application bytes
    received at UE 0 (the foreground's) and at the background UEs over the bytes of the new
    transport blocks (`rv` 0, both layers) sent to them (DlTxPhyStats). `PfFfMacScheduler`
    gives every resource-block group of a TTI to the best-metric UE with data, whatever its
    queue holds, and the MAC pads what the queue does not fill; at full blocks the ratio is
    about 1448/1506 (TCP/IP, PDCP, RLC and MAC headers)."""
    tb = new_block_bytes(path, n_ues)
    app = [0] * n_ues
    for name, rx in received.items():
        app[0 if name == "fg0" else int(name[2:])] += rx
    out = {}
    for group, members in (("UE 0", [0]), ("background UEs", [u for u in bg_ues if u != 0])):
        if members:
            t, a = sum(tb[u] for u in members), sum(app[u] for u in members)
            out[group] = {"tb_mbit": t * 8 / 1e6, "app_mbit": a * 8 / 1e6, "fill": a / max(t, 1)}
    return out


def ns3_harq_stats(folder: Path) -> dict:
    """The downlink HARQ counts of ns-3's PHY traces in `folder`: new blocks and
    retransmissions as the eNB sent them (DlTxPhyStats: % time cellId IMSI RNTI layer mcs
    size rv ndi ccId), the error rate of first transmissions the UE received (DlRxPhyStats:
    ... txMode layer mcs size rv ndi correct ccId; a block whose control information the UE
    missed is not in it), and the MCSs most used."""
    new = retx = 0
    mcs = {}
    for line in (folder / "DlTxPhyStats.txt").read_text().splitlines():
        if line.startswith("%") or not line.strip():
            continue
        f = line.split()
        if int(f[7]) == 0:
            new += 1
            mcs[f[5]] = mcs.get(f[5], 0) + 1
        else:
            retx += 1
    received = first_errors = 0
    for line in (folder / "DlRxPhyStats.txt").read_text().splitlines():
        if line.startswith("%") or not line.strip():
            continue
        f = line.split()
        if int(f[8]) == 0:
            received += 1
            first_errors += int(f[10]) == 0
    return {"transport_blocks": new, "retransmissions": retx, "retransmissions_per_block": retx / max(new, 1),
            "first_tx_bler": first_errors / max(received, 1), "mcs": dict(sorted(mcs.items(), key=lambda kv: -kv[1])[:3])}


def cellshare_link(args: argparse.Namespace) -> dict:
    """cellshare's `cell.link` for a run (`--align-radio` means the ideal link)."""
    return {"kind": "ideal" if getattr(args, "align_radio", False) else getattr(args, "link", "realistic")}


def channel_of(args: argparse.Namespace) -> dict:
    channel = {"kind": "radio", "distance_m": args.distance, "layers": 1, "fading": "none",
               "tx_power_dbm": args.tx_dbm, "path_loss_exponent": exponent_of(args),
               "carrier_mhz": ALIGNED_CARRIER_MHZ}
    if getattr(args, "case", "background") == "harq":
        channel.update(fading="rayleigh", speed_kmh=args.speed_kmh)
    return channel


# ns-3.44's TcpSocketBase ACKs every second segment (`DelAckCount` 2) as each arrives, with
# no quick-ACK mode, every out-of-order segment at once (no SACK compression), and its
# PacketSink reads at once: the cellshare side uses the same receiver (cellshare's defaults
# are Linux's: quick ACKs, one ACK per burst of segments, SACK compression).
NS3_RECEIVER = {"quickack": False, "burst_acks": False, "comp_sack_nr": 0}


def run_cellshare(args: argparse.Namespace) -> dict:
    """The same cell in cellshare; returns {flow name: mean Mbit/s over the same window} (and,
    for the UDP cases, the link's HARQ counts)."""
    from cellshare import api

    case = getattr(args, "case", "background")
    udp = case in ("udp", "harq")
    flows = []
    if udp:
        n_ues, a = 1, int(UDP_MEASURE_FROM_S)
        flows.append({"name": "udp0", "ue": 0, "start_s": 0.5,
                      "transport": {"kind": "cbr", "rate_mbps": UDP_OFFERED_MBPS, "packet_bytes": UDP_PAYLOAD}})
    else:
        n_ues, bg_ues = layout_ues(args.layout, args.ues)
        a = int(MEASURE_FROM_S)
        if args.background != "none":
            # Diagnosis flag (cellshare's side only): the backgrounds' controller.
            bg_cc = json.loads(getattr(args, "cellshare_bg_cc", None) or "null") or BACKGROUNDS[args.background][0]
            flows += [{"name": f"bg{ue}", "ue": ue, "class": "background", "start_s": 0.5 + 0.01 * ue,
                       "transport": {"kind": "tcp", "cc": bg_cc, "tcp": NS3_RECEIVER}} for ue in bg_ues]
        # Diagnosis flags (cellshare's side only): the foreground's controller and start.
        fg_cc = json.loads(getattr(args, "cellshare_fg_cc", None) or '{"kind": "cubic"}')
        fg_start = getattr(args, "cellshare_fg_start_s", None) or FG_START_S
        flows.append({"name": "fg0", "ue": 0, "start_s": fg_start, "transport": {"kind": "tcp", "cc": fg_cc, "tcp": NS3_RECEIVER}})
    scenario = {
        "name": f"ns3-crosscheck-{case}",
        "simulation": {"duration_s": args.duration, "seed": args.seed},
        # Diagnosis flag (cellshare's side only): `padding` gives each TTI's winner every PRB
        # left and pads its block, as ns-3's PfFfMacScheduler does on this flat channel.
        "cell": {"bandwidth_mhz": 10,
                 "scheduler": {"kind": "pf", "leftover": getattr(args, "cellshare_leftover", None) or "next_ue"},
                 "rlc_queue_bytes": args.rlc_bytes,
                 "link": cellshare_link(args)},
        "wired": {"remote_delay_ms": 10.0},
        "ues": [{"count": n_ues, "channel": channel_of(args)}],
        "flows": flows,
    }
    period = getattr(args, "cellshare_ack_every_ms", None)
    with tempfile.TemporaryDirectory(prefix="ns3-crosscheck-ack-") if period else contextlib.nullcontext() as tmp:
        if period:
            # Diagnosis: ACKs leave each UE only at periodic uplink opportunities (a Mahimahi
            # trace with one opportunity every `period` ms, each UE at its own seeded phase),
            # like ns-3's UE waiting for its uplink grants, instead of cellshare's fixed path.
            trace = Path(tmp) / "ack-opportunities.up"
            from_s = getattr(args, "cellshare_ack_from_s", None)
            if from_s is None:
                trace.write_text(f"{period}\n")
                for group in scenario["ues"]:
                    group["uplink"] = {"channel": {"kind": "trace", "file": str(trace), "random_offset": True}}
            else:
                # Diagnosis: the background UEs' ACKs leave at every TTI (1 ms) until `from_s`
                # and only every `period` ms from then on (phase 0, no random offset), UE 0's
                # over the fixed path: a rise of the background's ACK delay at a given time,
                # as ns-3's UE 1 shows in `other`/`vegas` (docs/crosscheck-ns3.md).
                if n_ues < 2:
                    raise SystemExit("ns3_crosscheck: --cellshare-ack-from-s needs a layout with a UE besides UE 0")
                step_ms = int(round(from_s * 1000))
                end_ms = int(args.duration * 1000) + 2 * period
                trace.write_text("\n".join(map(str, [*range(1, step_ms + 1), *range(step_ms + period, end_ms + 1, period)])) + "\n")
                first = scenario["ues"][0]
                scenario["ues"] = [{**first, "count": 1},
                                   {**first, "count": n_ues - 1, "uplink": {"channel": {"kind": "trace", "file": str(trace)}}}]
        result = api.run(scenario)
    b = int(args.duration)
    out = {f["name"]: sum(result.flow(f["name"])["per_second_mbps"][a:b]) / (b - a) for f in flows}
    if udp:
        link = result.summary["link"]
        blocks = link.get("transport_blocks", 0)
        out["harq"] = {k: link.get(k, 0) for k in ("transport_blocks", "retransmissions", "block_errors", "residual_losses")}
        out["harq"]["retransmissions_per_block"] = link.get("retransmissions", 0) / max(blocks, 1)
    return out


def summarise(rates: dict) -> dict:
    bg = [v for k, v in rates.items() if k.startswith("bg")]
    return {"fg": rates.get("fg0", 0.0), "bg_mean": sum(bg) / len(bg) if bg else 0.0,
            "total": sum(v for k, v in rates.items() if k not in ("harq", "delays", "fill", "tcp", "uplink"))}


def ns3_side(args: argparse.Namespace, label: list[str]) -> dict:
    """Runs one ns-3 case in a child process in a temporary folder; its JSON result."""
    cmd = [sys.executable, str(Path(__file__).resolve()), *sys.argv[1:], "--ns3-case", *label]
    if "--out" in cmd:  # the child writes nothing; relative paths would point into its folder
        i = cmd.index("--out")
        del cmd[i:i + 2]
    with tempfile.TemporaryDirectory(prefix="ns3-crosscheck-") as tmp:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
    if proc.returncode != 0:
        sys.exit(f"ns3_crosscheck: ns-3 run {'/'.join(label)} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def runs(args: argparse.Namespace) -> list[tuple[list[str], argparse.Namespace]]:
    """(label, arguments) of every run of the case."""
    out = []
    if args.case == "background":
        for layout in args.layouts.split(","):
            for bg in args.backgrounds.split(","):
                if bg == "none" and layout != args.layouts.split(",")[0]:
                    continue  # the foreground alone: the same cell whatever the layout
                out.append(([layout, bg], argparse.Namespace(**{**vars(args), "layout": layout, "background": bg})))
    elif args.case == "cubic":
        for p in args.powers.split(","):
            out.append(([p], argparse.Namespace(**{**vars(args), "layout": "same", "background": "none", "tx_dbm": float(p)})))
    else:
        dists = args.distances if args.case == "udp" else args.harq_distances
        for d in dists.split(","):
            out.append(([d], argparse.Namespace(**{**vars(args), "distance": float(d)})))
    return out


def apply_label(args: argparse.Namespace, label: list[str]) -> None:
    """Sets a child's run from its `--ns3-case` label."""
    if args.case == "background":
        args.layout, args.background = label
    elif args.case == "cubic":
        args.layout, args.background, args.tx_dbm = "same", "none", float(label[0])
    else:
        args.distance = float(label[0])


def table(case: str, rows: list[dict]) -> list[str]:
    """The Markdown table of a case."""
    if case == "background":
        lines = ["| layout | background | foreground, cellshare / ns-3 | background per flow | total | wall time |", "|---|---|---|---|---|---|"]
        for r in rows:
            c, n = summarise(r["cellshare"]), summarise(r["ns3"])
            lines.append(f"| {r['label'][0]} | {r['label'][1]} | {c['fg']:.2f} / {n['fg']:.2f} | {c['bg_mean']:.2f} / {n['bg_mean']:.2f} | "
                         f"{c['total']:.1f} / {n['total']:.1f} | {r['cellshare_wall_s']:.1f} s / {r['ns3_wall_s']:.0f} s |")
        fills = [(r["label"], r["ns3"]["fill"]) for r in rows if "fill" in r["ns3"]]
        if fills:
            lines.append("")
            for label, fill in fills:
                lines.append(f"- ns-3 block fill, {'/'.join(label)} (application bytes / new transport-block bytes): " + "; ".join(
                    f"{g} {v['fill']:.2f} ({v['app_mbit']:.0f} of {v['tb_mbit']:.0f} Mbit)" for g, v in fill.items()))
    elif case == "cubic":
        lines = ["| eNB power | SNR | CUBIC, cellshare / ns-3 (Mbit/s) | ratio |", "|---|---|---|---|"]
        for r in rows:
            c, n = r["cellshare"]["fg0"], r["ns3"]["fg0"]
            lines.append(f"| {r['label'][0]} dBm | {r['snr_db']:.1f} dB | {c:.2f} / {n:.2f} | {c / n if n else float('nan'):.2f} |")
    elif case == "udp":
        lines = ["| distance | SNR | UDP, cellshare / ns-3 (Mbit/s) | ratio | ns-3 MCS |", "|---|---|---|---|---|"]
        for r in rows:
            c, n = r["cellshare"]["udp0"], r["ns3"]["udp0"]
            mcs = ",".join(r["ns3"]["harq"]["mcs"]) or "-"
            lines.append(f"| {r['label'][0]} m | {r['snr_db']:.1f} dB | {c:.2f} / {n:.2f} | {c / n if n else float('nan'):.2f} | {mcs} |")
    else:
        lines = ["| distance | mean SNR | retransmissions per block, cellshare / ns-3 | ratio | ns-3 first-transmission BLER | UDP, cellshare / ns-3 (Mbit/s) |",
                 "|---|---|---|---|---|---|"]
        for r in rows:
            c, n = r["cellshare"]["harq"], r["ns3"]["harq"]
            cr, nr = c["retransmissions_per_block"], n["retransmissions_per_block"]
            lines.append(f"| {r['label'][0]} m | {r['snr_db']:.1f} dB | {cr:.3f} / {nr:.3f} | {cr / nr if nr else float('nan'):.2f} | "
                         f"{n['first_tx_bler']:.3f} | {r['cellshare']['udp0']:.2f} / {r['ns3']['udp0']:.2f} |")
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", default="background", help="background, cubic, udp or harq (default background)")
    p.add_argument("--out", type=Path, help="directory for crosscheck.json and crosscheck.md")
    p.add_argument("--ues", type=int, default=10, help="UEs of the `every` layout (default 10)")
    p.add_argument("--duration", type=float, default=40.0, help="seconds simulated per run (default 40, > 10)")
    p.add_argument("--distance", type=float, default=300.0, help="UE distance from the eNB, m (default 300)")
    p.add_argument("--tx-dbm", type=float, default=46.0, help="eNB transmit power, dBm (default 46)")
    p.add_argument("--exponent", type=float, help="log-distance exponent (default 3.52 for udp and harq, else 3)")
    p.add_argument("--rlc-bytes", type=int, default=524288, help="per-UE RLC queue, bytes (default 512 KB)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--link", default="realistic", help="cellshare's cell.link: realistic (default) or ideal")
    p.add_argument("--ns3-amc", default="mi", help="ns-3's LteAmc model: mi (its default, MiErrorModel) or piro (PiroEW2010)")
    p.add_argument("--align-radio", action="store_true", help="the same SINR -> CQI rule on both sides: --link ideal --ns3-amc piro")
    p.add_argument("--layouts", default=",".join(LAYOUTS), help="background: comma-separated subset of same,other,every")
    p.add_argument("--backgrounds", default=",".join(BACKGROUNDS), help="background: comma-separated subset of " + ",".join(BACKGROUNDS))
    p.add_argument("--powers", default="30,36,40,46", help="cubic: eNB powers, dBm (default 30,36,40,46)")
    p.add_argument("--distances", default="50,100,150,200,250,300,350,400,450,500,550,600,650,700",
                   help="udp: UE distances, m (default 50 to 700 every 50)")
    p.add_argument("--harq-distances", default="150,300,450", help="harq: UE distances, m (default 150,300,450)")
    p.add_argument("--speed-kmh", type=float, default=3.0, help="harq: UE speed for the Rayleigh fading, km/h (default 3)")
    p.add_argument("--reuse-ns3", type=Path, metavar="JSON",
                   help="take ns-3's side of each run from this earlier crosscheck.json (same case and labels) instead of running ns-3")
    p.add_argument("--cellshare-ack-every-ms", type=int, metavar="MS",
                   help="background, diagnosis: cellshare's UEs send their ACKs only at uplink opportunities "
                        "every MS ms (each UE at its own seeded phase), as ns-3's UEs wait for grants")
    p.add_argument("--cellshare-ack-from-s", type=float, metavar="S",
                   help="background, diagnosis, with --cellshare-ack-every-ms: only the UEs besides UE 0 send their "
                        "ACKs over an uplink, at every 1 ms TTI until S s and every MS ms from then on (phase 0), "
                        "UE 0 over the fixed path: a rise of the background's ACK delay at S s")
    p.add_argument("--cellshare-fg-cc", metavar="JSON",
                   help='background, diagnosis: cellshare\'s foreground controller as a JSON table '
                        '(default {"kind": "cubic"}), e.g. {"kind": "cubic", "hystart": false}')
    p.add_argument("--cellshare-bg-cc", metavar="JSON",
                   help="background, diagnosis: cellshare's background controller as a JSON table instead of "
                        'the background\'s own, e.g. {"kind": "vegas", "alpha": 1} (ns-3 stays as it was)')
    p.add_argument("--cellshare-fg-start-s", type=float, metavar="S",
                   help=f"background, diagnosis: cellshare's foreground starts at S s (default {FG_START_S:.0f}; "
                        "ns-3's stays at its start): the phase of the background's loss cycle it meets")
    p.add_argument("--cellshare-leftover", metavar="RULE", choices=("next_ue", "padding"),
                   help="diagnosis: cellshare's cell.scheduler.leftover: next_ue (its default: the PRBs a TTI's "
                        "winner cannot fill go to the next UE) or padding (the winner's block takes them all, as "
                        "ns-3's PfFfMacScheduler does on a flat channel)")
    p.add_argument("--ns3-hystart-delay-max-ms", type=int, metavar="MS",
                   help="background, diagnosis: ns-3 TcpCubic's HyStartDelayMax (its default 1000 ms; 16 gives "
                        "Linux's HyStart delay threshold when the minimum RTT is at least 128 ms)")
    p.add_argument("--ns3-prr-rfc-delivered", action="store_true",
                   help="background, diagnosis: ns-3's TCP senders count a duplicate ACK's SACKed bytes as delivered in "
                        "PRR (RFC 6937, Linux), not one segment more as ns-3.44's TcpPrrRecovery does")
    p.add_argument("--tcp-trace", action="store_true",
                   help="background, diagnosis: ns-3's senders' windows and recoveries over the measurement window")
    p.add_argument("--phy-stats", action="store_true",
                   help="background, diagnosis: record ns-3's downlink transport blocks and report how full they are "
                        "(application bytes / new-block bytes) at UE 0 and the background UEs")
    p.add_argument("--ul-stats", action="store_true",
                   help="background, diagnosis: record ns-3's uplink grants and uplink block errors per UE")
    p.add_argument("--ns3-case", nargs="+", metavar="LABEL", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.case not in CASES:
        p.error(f"--case: {args.case!r} is not one of {', '.join(CASES)}")
    if args.link not in ("realistic", "ideal"):
        p.error(f"--link: {args.link!r} is not realistic or ideal")
    if args.ns3_amc not in ("mi", "piro"):
        p.error(f"--ns3-amc: {args.ns3_amc!r} is not mi or piro")
    if args.align_radio:
        args.link, args.ns3_amc = "ideal", "piro"
    if args.cellshare_ack_every_ms is not None and not 1 <= args.cellshare_ack_every_ms <= 1000:
        p.error(f"--cellshare-ack-every-ms: {args.cellshare_ack_every_ms} is not a period of 1 to 1000 ms")
    for flag, text in (("--cellshare-fg-cc", args.cellshare_fg_cc), ("--cellshare-bg-cc", args.cellshare_bg_cc)):
        if text is None:
            continue
        try:
            cc = json.loads(text)
        except ValueError as e:
            p.error(f"{flag}: {text!r} is not JSON ({e})")
        if not isinstance(cc, dict) or not isinstance(cc.get("kind"), str):
            p.error(f"{flag}: {text!r} is not a JSON table with a \"kind\"")
    if args.cellshare_ack_from_s is not None and (args.cellshare_ack_every_ms is None
                                                  or not 0 < args.cellshare_ack_from_s < args.duration):
        p.error(f"--cellshare-ack-from-s: {args.cellshare_ack_from_s} needs --cellshare-ack-every-ms and a time "
                f"inside the run (0 to {args.duration:g} s)")
    if args.cellshare_fg_start_s is not None and not 0 < args.cellshare_fg_start_s < MEASURE_FROM_S:
        p.error(f"--cellshare-fg-start-s: {args.cellshare_fg_start_s} is not between 0 and the {MEASURE_FROM_S:.0f} s warm-up")
    if args.ns3_hystart_delay_max_ms is not None and not 4 <= args.ns3_hystart_delay_max_ms <= 1000:
        p.error(f"--ns3-hystart-delay-max-ms: {args.ns3_hystart_delay_max_ms} is not 4 to 1000 ms")
    if args.duration <= MEASURE_FROM_S:
        p.error(f"--duration: {args.duration} is not above the {MEASURE_FROM_S:.0f} s warm-up")
    for flag, value in (("--ues", args.ues), ("--distance", args.distance), ("--rlc-bytes", args.rlc_bytes), ("--speed-kmh", args.speed_kmh)):
        if value <= 0:
            p.error(f"{flag}: {value} is not a positive number")
    for flag, text in (("--powers", args.powers), ("--distances", args.distances), ("--harq-distances", args.harq_distances)):
        try:
            values = [float(v) for v in text.split(",")]
        except ValueError:
            p.error(f"--{flag.lstrip('-')}: {text!r} is not a comma-separated list of numbers")
        if flag != "--powers" and any(v <= 0 for v in values):
            p.error(f"{flag}: {text!r} holds a distance that is not positive")
    if args.ns3_case:  # child process: one ns-3 run, JSON on stdout's last line
        apply_label(args, args.ns3_case)
        print(json.dumps(run_ns3(args)))
        return
    if args.case == "background":
        for layout in args.layouts.split(","):
            layout_ues(layout, args.ues)
        for bg in args.backgrounds.split(","):
            if bg not in BACKGROUNDS:
                p.error(f"--backgrounds: {bg!r} is not one of {', '.join(BACKGROUNDS)}")
    earlier = {}
    if args.reuse_ns3:
        try:
            earlier = {tuple(r["label"]): r for r in json.loads(args.reuse_ns3.read_text())["rows"]}
        except (OSError, ValueError, KeyError) as e:
            p.error(f"--reuse-ns3: {args.reuse_ns3}: {e}")
    rows = []
    for label, run_args in runs(args):
        t0 = time.monotonic()
        ours = run_cellshare(run_args)
        t1 = time.monotonic()
        if earlier:
            if tuple(label) not in earlier:
                p.error(f"--reuse-ns3: {args.reuse_ns3} has no run {'/'.join(label)}")
            theirs = earlier[tuple(label)]["ns3"]
            t2 = t1 + earlier[tuple(label)]["ns3_wall_s"]
        else:
            theirs = ns3_side(run_args, label)
            t2 = time.monotonic()
        row = {"label": label, "snr_db": snr_db(run_args), "cellshare": ours, "ns3": theirs,
               "cellshare_wall_s": round(t1 - t0, 2), "ns3_wall_s": round(t2 - t1, 1)}
        rows.append(row)
        print("\n".join(line for line in table(args.case, [row])[2:] if line), flush=True)  # the row (and its fill)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        settings = {k: v for k, v in vars(args).items() if k not in ("out", "ns3_case", "layout", "background")}
        (args.out / "crosscheck.json").write_text(json.dumps({"args": settings, "rows": rows}, indent=2, default=str))
        (args.out / "crosscheck.md").write_text("\n".join(table(args.case, rows)) + "\n")


if __name__ == "__main__":
    main()
