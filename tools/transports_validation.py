#!/usr/bin/env python3
"""Validation of the Westwood+ and C2TCP controllers against their papers' bottom lines and
reference implementations (docs/transports.md has the numbers this prints).

    python tools/transports_validation.py westwood [--ns3] [--seeds 3] --out out/westwood
    python tools/transports_validation.py c2tcp --out out/c2tcp

``westwood``: goodput of one bulk flow, Westwood+ vs NewReno, over random packet loss — the
set-up of TCP Westwood's wireless experiments as ns-3 ships it (examples/tcp/
tcp-variants-comparison.cc, from Gangadhar et al., "TCP Westwood(+) Protocol Implementation
in ns-3", WNS3 2013): a 10 Mbit/s, 45 ms access link, then a 2 Mbit/s bottleneck with a
packet error rate. Here the losses hit data packets only (before the bottleneck: cellshare's
`wired.remote_loss_rate`, ns-3's ReceiveErrorModel on the access link's far end), the
bottleneck queue holds 100 packets (150 KB), MSS 1448, SACK with PRR, minimum RTO 200 ms,
delayed ACKs every second segment; 100 s per run. With ``--ns3`` the same runs go through
ns-3.44's TcpWestwoodPlus and TcpNewReno (the `ns3` wheel), each in a child process.

``c2tcp``: C2TCP against CUBIC on every downlink trace in ../shared/traces — one UE, a 20 ms
minimum RTT (the C2TCP release's `mm-delay 10`), a 100-packet and a 1000-packet base-station
queue, 120 s — for the release's Target of 50 ms, a Target of 100 ms and the "no target" mode
(2·minRTT): mean RTT against the Target, one-way delay percentiles and throughput.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

LOSS_RATES = (0.0, 0.001, 0.005, 0.01, 0.02, 0.05)
WW_DURATION_S = 100.0
WW_QUEUE_PACKETS = 100
C2_DURATION_S = 120.0
C2_QUEUES = (100, 1000)
C2_CONTROLLERS = {
    "cubic": {"kind": "cubic"},
    "c2tcp T=50": {"kind": "c2tcp"},
    "c2tcp T=100": {"kind": "c2tcp", "target_ms": 100},
    "c2tcp T=2minRTT": {"kind": "c2tcp", "target_ms": 0},
}


def traces_dir() -> Path:
    """The Mahimahi traces shipped with cellshare."""
    from cellshare import traces

    return traces.DIR


# ----------------------------------------------------------------------------- Westwood+

def westwood_scenario(cc: str, loss: float, seed: int) -> dict:
    """The access link as the server's remote link (10 Mbit/s, 45 ms, lossy), the 2 Mbit/s
    bottleneck as a fixed-rate UE with a 100-packet queue; ACKs return over 45 ms."""
    return {
        "simulation": {"duration_s": WW_DURATION_S, "seed": seed, "trace_interval_ms": 0},
        "cell": {"rlc_queue_bytes": WW_QUEUE_PACKETS * 1500},
        "wired": {"remote_rate_mbps": 10.0, "remote_delay_ms": 45.0, "remote_loss_rate": loss,
                  "backhaul_delay_ms": 0.0, "uplink_delay_ms": 0.0},
        "ues": [{"channel": {"kind": "fixed", "rate_mbps": 2.0}}],
        "flows": [{"name": "bulk", "ue": 0, "transport": {"kind": "tcp", "cc": {"kind": cc}}}],
    }


def run_cellshare_westwood(loss: float, seed: int) -> dict:
    import cellshare

    out = {}
    for cc in ("reno", "westwood"):
        r = cellshare.run(westwood_scenario(cc, loss, seed))
        f = r.flow("bulk")
        out[cc] = {"goodput_mbps": f["throughput_mbps"], "retransmits": f["retransmits"], "timeouts": f["timeouts"]}
    return out


def ns3_child(cc: str, loss: float, seed: int) -> dict:
    """One ns-3 run (in a child process: ns-3's state is global)."""
    from ns import ns

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(seed)
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName(cc)))
    ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpPrrRecovery")))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(10))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 22))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 22))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    ns.Config.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(200)))

    nodes = ns.NodeContainer()
    nodes.Create(3)  # server, gateway, UE
    internet = ns.InternetStackHelper()
    internet.Install(nodes)
    access = ns.PointToPointHelper()
    access.SetDeviceAttribute("DataRate", ns.StringValue("10Mbps"))
    access.SetChannelAttribute("Delay", ns.StringValue("45ms"))
    access.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize("10000p")))
    bottleneck = ns.PointToPointHelper()
    bottleneck.SetDeviceAttribute("DataRate", ns.StringValue("2Mbps"))
    bottleneck.SetChannelAttribute("Delay", ns.StringValue("0.01ms"))
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{WW_QUEUE_PACKETS}p")))
    d1 = access.Install(nodes.Get(0), nodes.Get(1))
    d2 = bottleneck.Install(nodes.Get(1), nodes.Get(2))
    # Data packets are lost at random on arrival at the gateway (ACKs travel the other way).
    em = ns.CreateObject[ns.RateErrorModel]()
    em.SetUnit(ns.RateErrorModel.ERROR_UNIT_PACKET)
    em.SetRate(loss)
    uv = ns.CreateObject[ns.UniformRandomVariable]()
    uv.SetStream(50)
    em.SetRandomVariable(uv)
    d1.Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(em))
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(d1)
    addr.SetBase(ns.Ipv4Address("10.1.2.0"), ns.Ipv4Mask("255.255.255.0"))
    ifs = addr.Assign(d2)
    # Queue discs off (after Assign, which installs the default ones): the device queues
    # are the buffers.
    tch = ns.TrafficControlHelper()
    tch.Uninstall(d1)
    tch.Uninstall(d2)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    port = 5000
    dst = ns.InetSocketAddress(ifs.GetAddress(1), port).ConvertTo()
    sender = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
    sender.SetAttribute("MaxBytes", ns.UintegerValue(0))
    sender.SetAttribute("SendSize", ns.UintegerValue(1448))
    app = sender.Install(nodes.Get(0))
    app.Start(ns.Seconds(0.0))
    app.Stop(ns.Seconds(WW_DURATION_S))
    any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
    sapp = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(nodes.Get(2))
    sapp.Start(ns.Seconds(0.0))
    sink = ns.DynamicCast[ns.PacketSink](sapp.Get(0))
    ns.Simulator.Stop(ns.Seconds(WW_DURATION_S))
    ns.Simulator.Run()
    rx = sink.GetTotalRx()
    ns.Simulator.Destroy()
    return {"goodput_mbps": rx * 8 / WW_DURATION_S / 1e6}


def run_ns3_westwood(loss: float, seed: int) -> dict:
    out = {}
    for key, cc in (("reno", "ns3::TcpNewReno"), ("westwood", "ns3::TcpWestwoodPlus")):
        p = subprocess.run([sys.executable, __file__, "ns3-child", cc, str(loss), str(seed)],
                           capture_output=True, text=True, check=True)
        out[key] = json.loads(p.stdout.strip().splitlines()[-1])
    return out


def westwood(args: argparse.Namespace) -> dict:
    rows = []
    for loss in LOSS_RATES:
        for seed in range(1, args.seeds + 1):
            row = {"loss": loss, "seed": seed, "cellshare": run_cellshare_westwood(loss, seed)}
            if args.ns3:
                row["ns3"] = run_ns3_westwood(loss, seed)
            rows.append(row)
            print(json.dumps(row), flush=True)
    table = ["| loss | cellshare NewReno Mbit/s | cellshare Westwood+ | W+/NewReno |"
             + (" ns-3 NewReno | ns-3 Westwood+ | W+/NewReno |" if args.ns3 else ""),
             "|---|---|---|---|" + ("---|---|---|" if args.ns3 else "")]
    for loss in LOSS_RATES:
        rs = [r for r in rows if r["loss"] == loss]

        def mean(sim: str, cc: str) -> float:
            return sum(r[sim][cc]["goodput_mbps"] for r in rs) / len(rs)

        line = f"| {loss:.1%} | {mean('cellshare', 'reno'):.3f} | {mean('cellshare', 'westwood'):.3f} | " \
               f"{mean('cellshare', 'westwood') / mean('cellshare', 'reno'):.2f} |"
        if args.ns3:
            line += f" {mean('ns3', 'reno'):.3f} | {mean('ns3', 'westwood'):.3f} | " \
                    f"{mean('ns3', 'westwood') / mean('ns3', 'reno'):.2f} |"
        table.append(line)
    return {"rows": rows, "table": "\n".join(table)}


# ----------------------------------------------------------------------------- C2TCP

def c2tcp_scenario(trace: Path, cc: dict, queue_packets: int) -> dict:
    """One UE on `trace`, one bulk flow; minimum RTT 20 ms (8 + 8 ms wired, 2 ms uplink, the
    TTI and the trace's first opportunity)."""
    return {
        "simulation": {"duration_s": C2_DURATION_S, "seed": 1, "trace_interval_ms": 0},
        "cell": {"rlc_queue_bytes": queue_packets * 1500},
        "wired": {"remote_delay_ms": 8.0, "uplink_delay_ms": 2.0},
        "ues": [{"channel": {"kind": "trace", "file": str(trace)}}],
        "flows": [{"name": "bulk", "ue": 0, "transport": {"kind": "tcp", "cc": cc}}],
    }


def c2tcp(args: argparse.Namespace) -> dict:
    import cellshare

    rows = []
    for trace in sorted(traces_dir().glob("*.down")):
        for q in C2_QUEUES:
            for name, cc in C2_CONTROLLERS.items():
                r = cellshare.run(c2tcp_scenario(trace, cc, q))
                f = r.flow("bulk")
                row = {"trace": trace.stem, "queue_packets": q, "cc": name, "goodput_mbps": f["throughput_mbps"],
                       "rtt_mean_ms": f["rtt_ms"]["mean"],
                       "owd_p50_ms": f["one_way_delay_ms"]["p50"], "owd_p99_ms": f["one_way_delay_ms"]["p99"],
                       "retransmits": f["retransmits"], "timeouts": f["timeouts"]}
                rows.append(row)
                print(json.dumps(row), flush=True)
    table = ["| trace | queue | controller | goodput Mbit/s (× CUBIC's) | mean RTT ms | one-way delay p50 / p99 ms |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        base = next(x for x in rows if x["trace"] == r["trace"] and x["queue_packets"] == r["queue_packets"]
                    and x["cc"] == "cubic")
        table.append(f"| {r['trace']} | {r['queue_packets']} | {r['cc']} | {r['goodput_mbps']:.2f} "
                     f"({r['goodput_mbps'] / base['goodput_mbps']:.2f}) | {r['rtt_mean_ms']:.1f} | "
                     f"{r['owd_p50_ms']:.1f} / {r['owd_p99_ms']:.1f} |")
    return {"rows": rows, "table": "\n".join(table)}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "ns3-child":
        print(json.dumps(ns3_child(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]))))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("westwood", "c2tcp"))
    ap.add_argument("--out", type=Path, required=True, help="folder for results.json and table.md")
    ap.add_argument("--ns3", action="store_true", help="westwood: also run ns-3's TcpWestwoodPlus and TcpNewReno")
    ap.add_argument("--seeds", type=int, default=3, help="westwood: seeds per loss rate (default 3)")
    args = ap.parse_args()
    res = westwood(args) if args.what == "westwood" else c2tcp(args)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(res["rows"], indent=1) + "\n")
    (args.out / "table.md").write_text(res["table"] + "\n")
    print(res["table"])


if __name__ == "__main__":
    main()
