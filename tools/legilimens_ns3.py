"""Legilimens inside ns-3.44 (the PyPI `ns3` wheel): build the C++ controller, load it into
this Python process, and build the LTE cell both studies of `tools/legilimens_study.py` run.

The controller (`tools/ns3-legilimens/tcp-legilimens.{h,cc}`, `ns3::TcpLegilimens`, a
`TcpCongestionOps`) and a per-flow counter (`flow-log.{h,cc}`, `ns3::LegilimensFlowLog`) are
compiled with g++ into one shared library against the wheel's headers (`ns3/include`) and
libraries (`ns3/lib64`), with the compile definitions of the wheel's release build. Why a
g++-built library rather than cppyy's JIT: the library is optimised like the rest of ns-3
(it runs on every ACK of every background flow), its static initialisers register the TypeId
exactly as ns-3's own modules do (the JIT reports "Failed to materialize symbols" for static
initialisers in this wheel, even for ns-3's own headers), and the compiler's diagnostics come
before any simulation starts. The library is loaded with `RTLD_GLOBAL` after `from ns import
ns` (which loads the ns-3 libraries the library links to), and its headers are given to cppyy
so that Python can call the controller and read the counters.

The build is cached under `$CELLSHARE_NS3_CACHE` (default `~/.cache/cellshare/ns3-legilimens`)
by a hash of the sources, the flags and the wheel's location; it takes ~5 s. Needs `g++` with
C++20 and the `ns3` wheel (CPython 3.11 on x86-64 Linux): `pip install ns3`.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import math
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

SRC = Path(__file__).resolve().parent / "ns3-legilimens"
SOURCES = ("tcp-legilimens.cc", "flow-log.cc")
HEADERS = ("tcp-legilimens.h", "flow-log.h")
#: The wheel's release build (lib64/cmake/ns3/ns3Targets.cmake, INTERFACE_COMPILE_DEFINITIONS).
DEFINES = ("NS3_BUILD_PROFILE_RELEASE", "NS3_LOG_ENABLE", "NS3_ASSERT_ENABLE")
LIBS = ("core", "network", "internet", "applications")
CXXFLAGS = ("-std=c++20", "-O2", "-fPIC", "-shared", "-Wall")


def wheel_dir() -> Path | None:
    """The `ns3` wheel's root (site-packages/ns3, holding include/ and lib64/), or None."""
    spec = importlib.util.find_spec("ns3")
    if spec is None:
        return None
    for loc in spec.submodule_search_locations or []:
        root = Path(loc).resolve()
        if (root / "include" / "ns3").is_dir() and (root / "lib64").is_dir():
            return root
    return None


def unavailable() -> str | None:
    """Why the ns-3 side cannot run here (None if it can)."""
    if wheel_dir() is None:
        return "the `ns3` wheel (ns-3.44 Python bindings, `pip install ns3`) is not importable"
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        return "no C++ compiler (g++) to build the ns-3 Legilimens library"
    return None


def build(force: bool = False) -> Path:
    """Compiles the controller and the flow log into a shared library (cached); returns it."""
    root = wheel_dir()
    if root is None:
        raise RuntimeError(unavailable())
    cxx = os.environ.get("CXX", "g++")
    cmd_tail = [*CXXFLAGS, *(f"-D{d}" for d in DEFINES), f"-I{root / 'include'}",
                *(str(SRC / s) for s in SOURCES), f"-L{root / 'lib64'}",
                *(f"-lns3.44-{lib}" for lib in LIBS), f"-Wl,-rpath,{root / 'lib64'}"]
    h = hashlib.sha256(" ".join([cxx, *cmd_tail]).encode())
    for name in (*SOURCES, *HEADERS):
        h.update((SRC / name).read_bytes())
    cache = Path(os.environ.get("CELLSHARE_NS3_CACHE", Path.home() / ".cache" / "cellshare" / "ns3-legilimens"))
    lib = cache / f"libcellshare-legilimens-{h.hexdigest()[:16]}.so"
    if lib.exists() and not force:
        return lib
    cache.mkdir(parents=True, exist_ok=True)
    tmp = lib.with_suffix(f".{os.getpid()}.tmp")
    proc = subprocess.run([cxx, *cmd_tail, "-o", str(tmp)], capture_output=True, text=True)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise RuntimeError(f"building the ns-3 Legilimens library failed:\n{proc.stderr[-4000:]}")
    tmp.replace(lib)
    return lib


_LOADED = None


def load():
    """Imports ns-3, loads the library and its headers; returns (ns, cppyy.gbl.ns3)."""
    global _LOADED
    if _LOADED is None:
        from ns import ns  # the PyPI `ns3` wheel: loads ns-3's libraries into this process
        import cppyy

        lib = build()
        ctypes.CDLL(str(lib), mode=ctypes.RTLD_GLOBAL)
        cppyy.add_include_path(str(SRC))
        for header in HEADERS:
            cppyy.include(header)
        _LOADED = (ns, cppyy.gbl.ns3)
    return _LOADED


# -- the cell -------------------------------------------------------------------------------

#: cellshare's radio defaults (crates/channel/src/radio.rs): 751 MHz carrier, 47.78 dBm,
#: path-loss exponent 3.52 from 1 m, noise figure 9 dB.
CARRIER_MHZ = 751.0
TX_DBM = 47.78
EXPONENT = 3.52
NOISE_FIGURE_DB = 9.0


def free_space_loss_db(carrier_mhz: float, d0_m: float = 1.0) -> float:
    """cellshare's reference loss: the free-space loss 20·log10(4π·d0·f/c) at d0."""
    return 20.0 * math.log10(4.0 * math.pi * d0_m * carrier_mhz * 1e6 / 299_792_458.0)


@dataclass
class CellConfig:
    """One 10 MHz PF cell, the same in both simulators (see docs/legilimens-ns3.md)."""
    distances_m: list[float]
    layers: int = 2
    rlc_bytes: int = 524288
    seed: int = 1
    tx_dbm: float = TX_DBM
    exponent: float = EXPONENT
    reference_loss_db: float = field(default_factory=lambda: free_space_loss_db(CARRIER_MHZ))
    harq_errors: bool = True
    #: Uplink resource blocks (50 = the 10 MHz uplink; more only to test what the uplink,
    #: which carries the ACKs in ns-3 and is a fixed delay in cellshare, changes).
    ul_rbs: int = 50
    #: Every TCP socket's send buffer (ns-3 keeps unacknowledged data in it too). A stopped
    #: `BulkSendApplication` closes its socket, which still sends what the buffer holds, so
    #: an on/off source wants a buffer little above its largest window (cellshare discards
    #: unsent data when a source turns off).
    sndbuf_bytes: int = 8 << 20


class Ns3Cell:
    """ns-3's LTE module with the EPC: one eNB, UEs at the given distances, two servers
    (0: foreground, CUBIC; 1: background, the controller named) 10 ms behind the gateway over
    1 Gbit/s links; flows are `BulkSendApplication` → `PacketSink`, watched by a
    `LegilimensFlowLog`."""

    def __init__(self, cfg: CellConfig, background_cc: str | None):
        ns, ns3 = load()
        self.ns, self.ns3, self.cfg = ns, ns3, cfg
        n_ues = len(cfg.distances_m)
        ns.RngSeedManager.SetSeed(cfg.seed)
        cd = ns.Config.SetDefault
        cd("ns3::LteEnbRrc::EpsBearerToRlcMapping", ns.StringValue("RlcUmAlways"))
        cd("ns3::LteRlcUm::MaxTxBufferSize", ns.UintegerValue(cfg.rlc_bytes))
        cd("ns3::LteEnbRrc::SrsPeriodicity", ns.UintegerValue(320 if n_ues > 20 else 40))
        cd("ns3::LteEnbPhy::TxPower", ns.DoubleValue(cfg.tx_dbm))
        cd("ns3::LteUePhy::NoiseFigure", ns.DoubleValue(NOISE_FIGURE_DB))
        # cellshare's SINR -> CQI rule is ns-3's PiroEW2010 AMC (crates/channel/src/lte_tables.rs).
        cd("ns3::LteAmc::AmcModel", ns.StringValue("PiroEW2010"))
        # Two layers: transmission mode 4 (closed-loop spatial multiplexing, [L] §VI-A's
        # "closed-loop MIMO"), no MIMO gain (TxMode4Gain 0 dB), as cellshare's `layers = 2`.
        cd("ns3::LteEnbRrc::DefaultTransmissionMode", ns.UintegerValue(3 if cfg.layers == 2 else 0))
        if not cfg.harq_errors:
            cd("ns3::LteSpectrumPhy::DataErrorModelEnabled", ns.BooleanValue(False))
        # cellshare's TCP (crates/transport/src/tcp/config.rs): MSS 1448, IW 10, RTO floor 200
        # ms, delayed ACKs every 2nd segment or 40 ms, SACK, timestamps; 6 MB receive buffer
        # (Linux rmem_max, cellshare's auto-tuning ceiling). (cellshare's receiver also has
        # Linux's quick ACKs and one ACK per burst of segments, `quickack`/`burst_acks`,
        # which ns-3's TcpSocketBase has not.)
        cd("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
        cd("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(10))
        cd("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.MilliSeconds(40)))
        cd("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
        cd("ns3::TcpSocket::SndBufSize", ns.UintegerValue(cfg.sndbuf_bytes))
        cd("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(6291456))
        cd("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(200)))
        lte = ns.CreateObject[ns.LteHelper]()
        epc = ns.CreateObject[ns.PointToPointEpcHelper]()
        lte.SetEpcHelper(epc)
        lte.SetSchedulerType("ns3::PfFfMacScheduler")
        lte.SetAttribute("PathlossModel", ns.StringValue("ns3::LogDistancePropagationLossModel"))
        lte.SetPathlossModelAttribute("Exponent", ns.DoubleValue(cfg.exponent))
        lte.SetPathlossModelAttribute("ReferenceDistance", ns.DoubleValue(1.0))
        lte.SetPathlossModelAttribute("ReferenceLoss", ns.DoubleValue(cfg.reference_loss_db))
        lte.SetEnbDeviceAttribute("DlBandwidth", ns.UintegerValue(50))
        lte.SetEnbDeviceAttribute("UlBandwidth", ns.UintegerValue(cfg.ul_rbs))
        self.lte, self.epc = lte, epc

        pgw = epc.GetPgwNode()
        self.servers = ns.NodeContainer()
        self.servers.Create(2)
        internet = ns.InternetStackHelper()
        internet.Install(self.servers)
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue("1Gbps"))
        p2p.SetChannelAttribute("Delay", ns.StringValue("10ms"))
        addresses = ns.Ipv4AddressHelper()
        static = ns.Ipv4StaticRoutingHelper()
        for i in range(2):
            link = p2p.Install(pgw, self.servers.Get(i))
            addresses.SetBase(ns.Ipv4Address(f"1.0.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
            addresses.Assign(link)
            routes = static.GetStaticRouting(self.servers.Get(i).GetObject[ns.Ipv4]())
            routes.AddNetworkRouteTo(ns.Ipv4Address("7.0.0.0"), ns.Ipv4Mask("255.0.0.0"), 1)

        enbs = ns.NodeContainer()
        enbs.Create(1)
        self.ues = ns.NodeContainer()
        self.ues.Create(n_ues)
        mobility = ns.MobilityHelper()
        enb_pos = ns.CreateObject[ns.ListPositionAllocator]()
        enb_pos.Add(ns.Vector(0, 0, 0))
        mobility.SetPositionAllocator(enb_pos)
        mobility.Install(enbs)
        ue_pos = ns.CreateObject[ns.ListPositionAllocator]()
        for i, d in enumerate(cfg.distances_m):
            angle = 2 * math.pi * i / n_ues
            ue_pos.Add(ns.Vector(d * math.cos(angle), d * math.sin(angle), 0))
        mobility.SetPositionAllocator(ue_pos)
        mobility.Install(self.ues)
        enb_devs = lte.InstallEnbDevice(enbs)
        ue_devs = lte.InstallUeDevice(self.ues)
        internet.Install(self.ues)
        self.ue_ips = epc.AssignUeIpv4Address(ue_devs)
        for i in range(n_ues):
            routes = static.GetStaticRouting(self.ues.Get(i).GetObject[ns.Ipv4]())
            routes.SetDefaultRoute(epc.GetUeDefaultGatewayAddress(), 1)
        lte.Attach(ue_devs, enb_devs.Get(0))

        def set_cc(node, type_id: str) -> None:
            ns.Config.Set(f"/NodeList/{node.GetId()}/$ns3::TcpL4Protocol/SocketType",
                          ns.TypeIdValue(ns.TypeId.LookupByName(type_id)))

        set_cc(self.servers.Get(0), "ns3::TcpCubic")
        if background_cc:
            set_cc(self.servers.Get(1), background_cc)
        self.log = ns.CreateObject[ns3.LegilimensFlowLog]()
        self.ip_to_ue = {self.ue_ips.GetAddress(i).__str__(): i for i in range(n_ues)}
        self._port = 10000

    def flow(self, server: int, ue: int, start_s: float, stop_s: float, size_bytes: int = 0,
             bin_s: float = 0.0, horizon_s: float = 0.0) -> int:
        """A TCP flow from server 0 (foreground) or 1 (background) to `ue`, started at
        `start_s` and stopped at `stop_s`, of `size_bytes` (0: until stopped); returns its
        index in the flow log."""
        ns = self.ns
        self._port += 1
        dst = ns.InetSocketAddress(self.ue_ips.GetAddress(ue), self._port).ConvertTo()
        sender = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
        sender.SetAttribute("MaxBytes", ns.UintegerValue(size_bytes))
        sender.SetAttribute("SendSize", ns.UintegerValue(1448))
        app = sender.Install(self.servers.Get(server)).Get(0)
        app.SetStartTime(ns.Seconds(start_s))
        app.SetStopTime(ns.Seconds(stop_s))
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), self._port).ConvertTo()
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(self.ues.Get(ue)).Get(0)
        sink.SetStartTime(ns.Seconds(max(0.0, start_s - 0.05)))
        return self.log.Add(sink, app, size_bytes, bin_s, horizon_s)

    def run(self, until_s: float) -> None:
        self.ns.Simulator.Stop(self.ns.Seconds(until_s - self.ns.Simulator.Now().GetSeconds()))
        self.ns.Simulator.Run()

    def controllers(self) -> list:
        """The live Legilimens controllers, as (UE index, controller)."""
        out = []
        instances = self.ns3.TcpLegilimens.Instances()
        for k in range(instances.size()):  # (cppyy crashes iterating an empty vector)
            cc = instances[k]
            peer = str(cc.GetPeer())
            if peer:
                out.append((self.ip_to_ue.get(peer.split(":")[0], -1), cc))
        return out

    def destroy(self) -> None:
        self.ns.Simulator.Destroy()
