#!/usr/bin/env python3
"""Cross-check cellshare's cell against ns-3's LTE module (the simulator of the Legilimens
and Sneaker papers) on the question behind `legilimens-at-scale`: how much does a long
CUBIC foreground flow get beside a low-priority background, when that background runs at
the foreground's UE, at another UE, or at every UE of a PF cell?

The same cell runs in both simulators: one 10 MHz LTE carrier (50 PRBs), the PF scheduler,
UEs at one distance from the eNB (log-distance path loss, exponent 3, no fast fading, one
spatial layer), a per-UE RLC transmit queue of `--rlc-bytes`, servers 10 ms behind the
gateway over 1 Gbit/s links, 1448-byte segments. ns-3 side: `LteHelper` with the EPC,
`PfFfMacScheduler`, RLC UM (`LteRlcUm::MaxTxBufferSize` set to the same queue size; ns-3's
default is 10 KB), `BulkSendApplication`s, the background's controller set on its own server
node (ns-3's `TcpLedbat`, `TcpVegas`, `TcpLp`, `TcpCubic`, `TcpBbr`); the foreground is
`TcpCubic` on another server. Background `ledbat-ns3` is cellshare's LEDBAT with ns-3
`TcpLedbat`'s window cap (ALLOWED_INCREASE = 0) beside ns-3's `TcpLedbat`. By default the
radio models are not aligned: cellshare's reference loss is the free-space loss at its
751 MHz carrier (29.96 dB at 1 m, ns-3's 46.68) and ns-3 picks the MCS with its default
mutual-information AMC. At `--tx-dbm 46` both cells then run near their peak rate (ns-3 ~34,
cellshare ~35 Mbit/s), which is what the shares need; at 30 dBm ns-3 gives ~7 and cellshare
~26 Mbit/s. `--align-radio` gives both the same link budget and SINR -> CQI rule (cellshare's
carrier at 5150 MHz, whose free-space loss at 1 m is ns-3's 46.68 dB; ns-3's AMC set to
PiroEW2010, cellshare's rule): the foreground alone then gets 3.46 / 3.35 Mbit/s (cellshare /
ns-3) at 30 dBm, 9.33 / 9.16 at 36, 14.49 / 14.13 at 40 and 22.13 / 21.32 at 46.

Layouts (the foreground is always one always-on CUBIC flow to UE 0, from 5 s):
- `same`:  1 UE; the background flows to UE 0 as well (one FIFO, Figure 2's left column).
- `other`: 2 UEs; the background flows to UE 1 (Figure 2's right column).
- `every`: `--ues` UEs; one background flow to every UE, as in `legilimens-at-scale`.

Throughputs are means over [10 s, duration]. Needs the `ns3` wheel from PyPI (ns-3.44
Python bindings through cppyy; CPython 3.11 on x86-64 Linux) next to cellshare:

    pip install ns3
    python tools/ns3_crosscheck.py --out out/ns3-crosscheck

Each ns-3 run is a subprocess of this script (`--ns3-case`), so a failing or slow ns-3
build never takes cellshare's side down with it. ns-3 is much slower: about 2 minutes per
40 s run with 10 UEs on one core of a 2-core VM, against well under a second for cellshare.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
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
#: With `--align-radio`, cellshare's carrier: the free-space loss at 1 m is then
#: 20·log10(4π·f/c) = 46.68 dB, the default `ReferenceLoss` (46.6777 dB) of ns-3's
#: `LogDistancePropagationLossModel`, which is the free-space loss at 1 m at 5.15 GHz.
ALIGNED_CARRIER_MHZ = 5150.0
FG_START_S = 5.0
MEASURE_FROM_S = 10.0


def layout_ues(layout: str, ues: int) -> tuple[int, list[int]]:
    """(number of UEs, UEs receiving a background flow) of a layout."""
    if layout == "same":
        return 1, [0]
    if layout == "other":
        return 2, [1]
    if layout == "every":
        return ues, list(range(ues))
    raise SystemExit(f"ns3_crosscheck: --layouts: {layout!r} is not one of {', '.join(LAYOUTS)}")


def run_ns3(args: argparse.Namespace) -> dict:
    """One ns-3 run; returns {flow name: mean Mbit/s over [MEASURE_FROM_S, duration]}."""
    from ns import ns  # the PyPI `ns3` wheel

    n_ues, bg_ues = layout_ues(args.layout, args.ues)
    bg_type = BACKGROUNDS[args.background][1]
    ns.RngSeedManager.SetSeed(args.seed)
    ns.Config.SetDefault("ns3::LteEnbRrc::EpsBearerToRlcMapping", ns.StringValue("RlcUmAlways"))
    ns.Config.SetDefault("ns3::LteRlcUm::MaxTxBufferSize", ns.UintegerValue(args.rlc_bytes))
    ns.Config.SetDefault("ns3::LteEnbRrc::SrsPeriodicity", ns.UintegerValue(320))
    ns.Config.SetDefault("ns3::LteEnbPhy::TxPower", ns.DoubleValue(args.tx_dbm))
    if args.align_radio:
        # cellshare's SINR -> CQI rule is ns-3's PiroEW2010 AMC model.
        ns.Config.SetDefault("ns3::LteAmc::AmcModel", ns.StringValue("PiroEW2010"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(8 << 20))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(8 << 20))
    lte = ns.CreateObject[ns.LteHelper]()
    epc = ns.CreateObject[ns.PointToPointEpcHelper]()
    lte.SetEpcHelper(epc)
    lte.SetSchedulerType("ns3::PfFfMacScheduler")
    lte.SetAttribute("PathlossModel", ns.StringValue("ns3::LogDistancePropagationLossModel"))
    lte.SetPathlossModelAttribute("Exponent", ns.DoubleValue(3.0))
    lte.SetEnbDeviceAttribute("DlBandwidth", ns.UintegerValue(50))
    lte.SetEnbDeviceAttribute("UlBandwidth", ns.UintegerValue(50))

    # Servers: 0 sends the foreground, 1 the background, each with its own controller.
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

    set_cc(servers.Get(0), "ns3::TcpCubic")
    if bg_type:
        set_cc(servers.Get(1), bg_type)

    sinks = {}

    def bulk(server: int, ue: int, port: int, start: float, name: str) -> None:
        dst = ns.InetSocketAddress(ue_ips.GetAddress(ue), port).ConvertTo()
        sender = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
        sender.SetAttribute("MaxBytes", ns.UintegerValue(0))
        app = sender.Install(servers.Get(server))
        app.Start(ns.Seconds(start))
        app.Stop(ns.Seconds(args.duration))
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(ues.Get(ue))
        sink.Start(ns.Seconds(0.1))
        sinks[name] = ns.DynamicCast[ns.PacketSink](sink.Get(0))

    if bg_type:
        for ue in bg_ues:
            bulk(1, ue, 2000, 0.5 + 0.01 * ue, f"bg{ue}")
    bulk(0, 0, 1000, FG_START_S, "fg0")

    ns.Simulator.Stop(ns.Seconds(MEASURE_FROM_S))
    ns.Simulator.Run()
    start = {k: s.GetTotalRx() for k, s in sinks.items()}
    ns.Simulator.Stop(ns.Seconds(args.duration - MEASURE_FROM_S))
    ns.Simulator.Run()
    end = {k: s.GetTotalRx() for k, s in sinks.items()}
    ns.Simulator.Destroy()
    span = args.duration - MEASURE_FROM_S
    return {k: (end[k] - start[k]) * 8 / span / 1e6 for k in sinks}


def run_cellshare(args: argparse.Namespace) -> dict:
    """The same cell in cellshare; returns {flow name: mean Mbit/s over the same window}."""
    from cellshare import api

    n_ues, bg_ues = layout_ues(args.layout, args.ues)
    channel = {"kind": "radio", "distance_m": args.distance, "layers": 1, "fading": "none",
               "tx_power_dbm": args.tx_dbm, "path_loss_exponent": 3.0}
    if args.align_radio:
        channel["carrier_mhz"] = ALIGNED_CARRIER_MHZ
    flows = []
    if args.background != "none":
        flows += [{"name": f"bg{ue}", "ue": ue, "class": "background", "start_s": 0.5 + 0.01 * ue,
                   "transport": {"kind": "tcp", "cc": BACKGROUNDS[args.background][0]}} for ue in bg_ues]
    flows.append({"name": "fg0", "ue": 0, "start_s": FG_START_S, "transport": {"kind": "tcp", "cc": {"kind": "cubic"}}})
    scenario = {
        "name": f"ns3-crosscheck-{args.layout}-{args.background}",
        "simulation": {"duration_s": args.duration, "seed": args.seed},
        "cell": {"bandwidth_mhz": 10, "scheduler": {"kind": "pf"}, "rlc_queue_bytes": args.rlc_bytes},
        "wired": {"remote_delay_ms": 10.0},
        "ues": [{"count": n_ues, "channel": channel}],
        "flows": flows,
    }
    result = api.run(scenario)
    a, b = int(MEASURE_FROM_S), int(args.duration)
    return {f["name"]: sum(result.flow(f["name"])["per_second_mbps"][a:b]) / (b - a) for f in flows}


def summarise(rates: dict) -> dict:
    bg = [v for k, v in rates.items() if k.startswith("bg")]
    return {"fg": rates.get("fg0", 0.0), "bg_mean": sum(bg) / len(bg) if bg else 0.0, "total": sum(rates.values())}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, help="directory for crosscheck.json and crosscheck.md")
    p.add_argument("--ues", type=int, default=10, help="UEs of the `every` layout (default 10)")
    p.add_argument("--duration", type=float, default=40.0, help="seconds simulated per run (default 40, > 10)")
    p.add_argument("--distance", type=float, default=300.0, help="UE distance from the eNB, m (default 300)")
    p.add_argument("--tx-dbm", type=float, default=46.0, help="eNB transmit power, dBm (default 46)")
    p.add_argument("--rlc-bytes", type=int, default=524288, help="per-UE RLC queue, bytes (default 512 KB)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--align-radio", action="store_true",
                   help="same reference path loss (46.68 dB at 1 m) and SINR -> CQI rule (PiroEW2010) in both")
    p.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated subset of same,other,every")
    p.add_argument("--backgrounds", default=",".join(BACKGROUNDS), help="comma-separated subset of " + ",".join(BACKGROUNDS))
    p.add_argument("--ns3-case", nargs=2, metavar=("LAYOUT", "BACKGROUND"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.duration <= MEASURE_FROM_S:
        p.error(f"--duration: {args.duration} is not above the {MEASURE_FROM_S:.0f} s warm-up")
    for flag, value in (("--ues", args.ues), ("--distance", args.distance), ("--rlc-bytes", args.rlc_bytes)):
        if value <= 0:
            p.error(f"{flag}: {value} is not a positive number")
    if args.ns3_case:  # child process: one ns-3 run, JSON on stdout's last line
        args.layout, args.background = args.ns3_case
        print(json.dumps(run_ns3(args)))
        return
    layouts = args.layouts.split(",")
    backgrounds = args.backgrounds.split(",")
    for layout in layouts:
        layout_ues(layout, args.ues)
    for bg in backgrounds:
        if bg not in BACKGROUNDS:
            p.error(f"--backgrounds: {bg!r} is not one of {', '.join(BACKGROUNDS)}")
    rows = []
    for layout in layouts:
        for bg in backgrounds:
            if bg == "none" and layout != layouts[0]:
                continue  # the foreground alone: the same cell whatever the layout
            args.layout, args.background = layout, bg
            t0 = time.monotonic()
            ours_flows = run_cellshare(args)
            ours = summarise(ours_flows)
            t1 = time.monotonic()
            # The child gets this run's own flags (it ignores --out, --layouts, --backgrounds).
            cmd = [sys.executable, __file__, *sys.argv[1:], "--ns3-case", layout, bg]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            t2 = time.monotonic()
            if proc.returncode != 0:
                sys.exit(f"ns3_crosscheck: ns-3 run {layout}/{bg} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
            theirs_flows = json.loads(proc.stdout.strip().splitlines()[-1])
            theirs = summarise(theirs_flows)
            row = {"layout": layout, "background": bg, "cellshare": ours, "ns3": theirs,
                   "cellshare_flows": ours_flows, "ns3_flows": theirs_flows,
                   "cellshare_wall_s": round(t1 - t0, 2), "ns3_wall_s": round(t2 - t1, 1)}
            rows.append(row)
            print(f"{layout:5s} {bg:6s}  foreground {ours['fg']:6.2f} vs ns-3 {theirs['fg']:6.2f}   "
                  f"background/flow {ours['bg_mean']:6.2f} vs {theirs['bg_mean']:6.2f}   "
                  f"total {ours['total']:5.1f} vs {theirs['total']:5.1f} Mbit/s   "
                  f"({row['cellshare_wall_s']:.1f} s vs {row['ns3_wall_s']:.0f} s)", flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "crosscheck.json").write_text(json.dumps({"args": {k: v for k, v in vars(args).items() if k not in ("out", "ns3_case", "layout", "background")}, "rows": rows}, indent=2, default=str))
        lines = ["| layout | background | foreground, cellshare / ns-3 | background per flow | total | wall time |", "|---|---|---|---|---|---|"]
        for r in rows:
            c, n = r["cellshare"], r["ns3"]
            lines.append(f"| {r['layout']} | {r['background']} | {c['fg']:.2f} / {n['fg']:.2f} | {c['bg_mean']:.2f} / {n['bg_mean']:.2f} | "
                         f"{c['total']:.1f} / {n['total']:.1f} | {r['cellshare_wall_s']:.1f} s / {r['ns3_wall_s']:.0f} s |")
        (args.out / "crosscheck.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
