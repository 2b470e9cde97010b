// cellshare's reference scenario for its NR cell, run in 5G-LENA (ns-3's nr module, NR-v4.0):
// one gNB, one UE at a given distance, a saturated downlink UDP flow. Built and run by
// tools/nr_lena.py; prints one JSON object (the parameters and the measurements) on stdout.
//
// The cell: numerology 1 (30 kHz subcarriers, 0.5 ms slots of 14 symbols), one 100 MHz FR1
// carrier at 3.5 GHz (band n78) with 273 PRBs (TS 38.101-1 Table 5.3.2-1; 5G-LENA derives the
// PRB count from the bandwidth less its `RbOverhead`, set here so that it gives 273), every slot
// flexible (5G-LENA's default pattern "F": one DL control symbol, one UL control symbol, data
// in the rest), one antenna element of 0 dBi at each end, one layer, the 5G-LENA default
// scheduler (TDMA round robin; one UE gets every data symbol and every PRB), HARQ on, CSI
// feedback from the PDSCH's SINR (CQI_PDSCH_SISO, no MIMO feedback).
// Link adaptation: NrAmc "ErrorModel" (the highest MCS whose block error rate, by the error
// model, stays at or below 0.1 for the reported SINR), error model NrEesmIrT1 (EESM, LDPC
// HARQ with incremental redundancy, MCS table 1: up to 64QAM) unless --errorModel says
// otherwise. Propagation: ns-3's LogDistancePropagationLossModel (exponent 3.52, 1 m reference
// distance, reference loss the free-space loss at the carrier: cellshare's radio model; gNB
// and UE at 1.5 m, so the distance is the link's) or, with --pathloss=uma-los, 3GPP TR 38.901
// UMa LoS without shadowing (gNB at 25 m, UE at 1.5 m); no fast fading in either
// (the channel is given only a propagation loss, no spectrum fading model). UE noise figure
// 9 dB, UE transmit power 23 dBm. Traffic: a UDP client on a remote host behind the EPC (100 Gbit/s, no delay) offering
// --rate Mbit/s in 1400-byte datagrams to the UE; RLC UM with an 8 MB transmit buffer.
//
// Measured over [warmup, simTime]: the UDP goodput at the UE; from the UE PHY's
// RxPacketTraceUe, every downlink transport block (first transmissions: rv 0; retransmissions:
// rv > 0), its MCS, its SINR and whether the error model lost it; from the UE's CQI feedback,
// the wideband CQI and the MCS it implies; the UE's average data SINR (DlDataSinr).

#include "ns3/antenna-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/cc-bwp-helper.h"
#include "ns3/nr-amc.h"
#include "ns3/nr-channel-helper.h"
#include "ns3/nr-gnb-phy.h"
#include "ns3/nr-helper.h"
#include "ns3/nr-mac-scheduler.h"
#include "ns3/nr-phy-mac-common.h"
#include "ns3/nr-point-to-point-epc-helper.h"
#include "ns3/nr-spectrum-phy.h"
#include "ns3/nr-ue-phy.h"
#include "ns3/point-to-point-module.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

struct Stats
{
    Time start;
    Time stop;
    uint64_t udpBytes{0};
    uint64_t udpPackets{0};
    // transport blocks
    uint64_t newTbs{0};
    uint64_t retxTbs{0};
    uint64_t newTbsCorrupt{0};
    uint64_t tbsCorrupt{0};
    uint64_t tbsLost{0}; // corrupt at the last redundancy version seen (rv 3)
    uint64_t okBits{0};
    double mcsSum{0};
    double sinrDbSum{0};
    double symSum{0};
    double rbSum{0};
    uint64_t tbBitsNew{0};
    // feedback
    uint64_t cqiReports{0};
    double cqiSum{0};
    double cqiMcsSum{0};
    uint64_t sinrReports{0};
    double sinrReportDbSum{0};

    bool In() const
    {
        Time now = Simulator::Now();
        return now >= start && now < stop;
    }
};

Stats g_stats;

void
OnUdpRx(Ptr<const Packet> p)
{
    if (g_stats.In())
    {
        g_stats.udpBytes += p->GetSize();
        g_stats.udpPackets++;
    }
}

void
OnRxTb(RxPacketTraceParams params)
{
    if (!g_stats.In())
    {
        return;
    }
    if (params.m_rv == 0)
    {
        g_stats.newTbs++;
        g_stats.tbBitsNew += params.m_tbSize * 8ULL;
        g_stats.mcsSum += params.m_mcs;
        g_stats.sinrDbSum += 10.0 * std::log10(params.m_sinr);
        g_stats.symSum += params.m_numSym;
        g_stats.rbSum += params.m_rbAssignedNum;
        if (params.m_corrupt)
        {
            g_stats.newTbsCorrupt++;
        }
    }
    else
    {
        g_stats.retxTbs++;
    }
    if (params.m_corrupt)
    {
        g_stats.tbsCorrupt++;
        if (params.m_rv == 3)
        {
            g_stats.tbsLost++;
        }
    }
    else
    {
        g_stats.okBits += params.m_tbSize * 8ULL;
    }
}

void
OnCqi(uint16_t, uint8_t cqi, uint8_t mcs, uint8_t)
{
    if (g_stats.In())
    {
        g_stats.cqiReports++;
        g_stats.cqiSum += cqi;
        g_stats.cqiMcsSum += mcs;
    }
}

void
OnDlDataSinr(uint16_t, uint16_t, double sinr, uint16_t)
{
    if (g_stats.In() && sinr > 0)
    {
        g_stats.sinrReports++;
        g_stats.sinrReportDbSum += 10.0 * std::log10(sinr);
    }
}

double
Mean(double sum, uint64_t n)
{
    return n ? sum / static_cast<double>(n) : std::nan("");
}

std::string
Num(double v)
{
    if (!std::isfinite(v))
    {
        return "null";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

} // namespace

int
main(int argc, char* argv[])
{
    double distance = 100.0;
    double simTime = 1.2;
    double warmup = 0.4;
    std::string errorModel = "ns3::NrEesmIrT1";
    std::string pathloss = "logdistance";
    double txPower = 46.0;
    double noiseFigure = 9.0;
    double rateMbps = 600.0;
    double frequency = 3.5e9;
    double bandwidth = 100e6;
    uint16_t numerology = 1;
    double rbOverhead = 0.0165;
    double exponent = 3.52;
    uint32_t seed = 1;
    uint32_t pktSize = 1400;
    uint32_t rlcBuffer = 8 << 20;
    double gnbHeight = -1.0; // by the path-loss model: see below
    double ueHeight = 1.5;

    CommandLine cmd(__FILE__);
    cmd.AddValue("distance", "gNB-UE horizontal distance, m", distance);
    cmd.AddValue("simTime", "simulated time, s", simTime);
    cmd.AddValue("warmup", "start of the measurement window, s", warmup);
    cmd.AddValue("errorModel", "NR error model TypeId", errorModel);
    cmd.AddValue("pathloss", "logdistance or uma-los", pathloss);
    cmd.AddValue("txPower", "gNB transmit power, dBm", txPower);
    cmd.AddValue("noiseFigure", "UE noise figure, dB", noiseFigure);
    cmd.AddValue("rate", "offered UDP load, Mbit/s", rateMbps);
    cmd.AddValue("frequency", "carrier, Hz", frequency);
    cmd.AddValue("bandwidth", "channel bandwidth, Hz", bandwidth);
    cmd.AddValue("numerology", "numerology mu", numerology);
    cmd.AddValue("rbOverhead", "5G-LENA RbOverhead (guard band share)", rbOverhead);
    cmd.AddValue("exponent", "log-distance path-loss exponent", exponent);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.AddValue("pktSize", "UDP payload, bytes", pktSize);
    cmd.AddValue("gnbHeight", "gNB antenna height, m (default: the UE's for logdistance, 25 for uma-los)", gnbHeight);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(pathloss != "logdistance" && pathloss != "uma-los",
                    "--pathloss=" << pathloss << ": expected logdistance or uma-los");
    if (gnbHeight < 0)
    {
        // Log-distance: the gNB at the UE's height, so that the distance is the link's length
        // (cellshare's radio has no heights). UMa: TR 38.901's 25 m base station.
        gnbHeight = pathloss == "logdistance" ? ueHeight : 25.0;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    Config::SetDefault("ns3::NrRlcUm::MaxTxBufferSize", UintegerValue(rlcBuffer));
    Config::SetDefault("ns3::NrAmc::ErrorModelType", TypeIdValue(TypeId::LookupByName(errorModel)));
    Config::SetDefault("ns3::NrAmc::AmcModel", EnumValue(NrAmc::ErrorModel));

    NodeContainer gnbs;
    NodeContainer ues;
    gnbs.Create(1);
    ues.Create(1);
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    auto gnbPos = CreateObject<ListPositionAllocator>();
    gnbPos->Add(Vector(0.0, 0.0, gnbHeight));
    mobility.SetPositionAllocator(gnbPos);
    mobility.Install(gnbs);
    auto uePos = CreateObject<ListPositionAllocator>();
    uePos->Add(Vector(distance, 0.0, ueHeight));
    mobility.SetPositionAllocator(uePos);
    mobility.Install(ues);

    auto epc = CreateObject<NrPointToPointEpcHelper>();
    auto nr = CreateObject<NrHelper>();
    auto channel = CreateObject<NrChannelHelper>();
    nr->SetEpcHelper(epc);
    nr->SetAttribute("EnableMimoFeedback", BooleanValue(false));
    nr->SetAttribute("CsiFeedbackFlags", UintegerValue(CQI_PDSCH_SISO));
    epc->SetAttribute("S1uLinkDelay", TimeValue(MilliSeconds(0)));

    double referenceLoss = 20.0 * std::log10(4.0 * M_PI * 1.0 * frequency / 299792458.0);
    if (pathloss == "logdistance")
    {
        channel->ConfigureFactories("UMa", "LOS", "ThreeGpp");
        channel->ConfigurePropagationFactory(LogDistancePropagationLossModel::GetTypeId());
        channel->SetPathlossAttribute("Exponent", DoubleValue(exponent));
        channel->SetPathlossAttribute("ReferenceDistance", DoubleValue(1.0));
        channel->SetPathlossAttribute("ReferenceLoss", DoubleValue(referenceLoss));
    }
    else
    {
        channel->ConfigureFactories("UMa", "LOS", "ThreeGpp");
        channel->SetPathlossAttribute("ShadowingEnabled", BooleanValue(false));
    }

    CcBwpCreator ccBwpCreator;
    CcBwpCreator::SimpleOperationBandConf bandConf(frequency, bandwidth, 1);
    OperationBandInfo band = ccBwpCreator.CreateOperationBandContiguousCc(bandConf);
    channel->AssignChannelsToBands({band}, NrChannelHelper::INIT_PROPAGATION);
    BandwidthPartInfoPtrVector bwps = CcBwpCreator::GetAllBwps({band});

    nr->SetUeAntennaAttribute("NumRows", UintegerValue(1));
    nr->SetUeAntennaAttribute("NumColumns", UintegerValue(1));
    nr->SetUeAntennaAttribute("AntennaElement", PointerValue(CreateObject<IsotropicAntennaModel>()));
    nr->SetGnbAntennaAttribute("NumRows", UintegerValue(1));
    nr->SetGnbAntennaAttribute("NumColumns", UintegerValue(1));
    nr->SetGnbAntennaAttribute("AntennaElement", PointerValue(CreateObject<IsotropicAntennaModel>()));
    nr->SetGnbPhyAttribute("Numerology", UintegerValue(numerology));
    nr->SetGnbPhyAttribute("TxPower", DoubleValue(txPower));
    nr->SetGnbPhyAttribute("RbOverhead", DoubleValue(rbOverhead));
    nr->SetUePhyAttribute("NoiseFigure", DoubleValue(noiseFigure));
    nr->SetUePhyAttribute("TxPower", DoubleValue(23.0));
    nr->SetSchedulerAttribute("FixedMcsDl", BooleanValue(false));
    nr->SetSchedulerAttribute("FixedMcsUl", BooleanValue(false));
    nr->SetDlErrorModel(errorModel);
    nr->SetUlErrorModel(errorModel);
    nr->SetGnbDlAmcAttribute("AmcModel", EnumValue(NrAmc::ErrorModel));
    nr->SetGnbUlAmcAttribute("AmcModel", EnumValue(NrAmc::ErrorModel));

    NetDeviceContainer gnbDevs = nr->InstallGnbDevice(gnbs, bwps);
    NetDeviceContainer ueDevs = nr->InstallUeDevice(ues, bwps);
    int64_t stream = 1;
    stream += nr->AssignStreams(gnbDevs, stream);
    stream += nr->AssignStreams(ueDevs, stream);

    auto [remoteHost, remoteAddr] = epc->SetupRemoteHost("100Gb/s", 2500, Seconds(0));
    InternetStackHelper internet;
    internet.Install(ues);
    Ipv4InterfaceContainer ueIp = epc->AssignUeIpv4Address(ueDevs);
    nr->AttachToClosestGnb(ueDevs, gnbDevs);

    const uint16_t port = 1234;
    UdpServerHelper server(port);
    ApplicationContainer serverApps = server.Install(ues);
    UdpClientHelper client(ueIp.GetAddress(0), port);
    client.SetAttribute("MaxPackets", UintegerValue(0));
    client.SetAttribute("PacketSize", UintegerValue(pktSize));
    client.SetAttribute("Interval", TimeValue(Seconds(pktSize * 8.0 / (rateMbps * 1e6))));
    ApplicationContainer clientApps = client.Install(remoteHost);
    serverApps.Start(MilliSeconds(100));
    clientApps.Start(MilliSeconds(100));
    serverApps.Stop(Seconds(simTime));
    clientApps.Stop(Seconds(simTime));

    g_stats.start = Seconds(warmup);
    g_stats.stop = Seconds(simTime);
    serverApps.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&OnUdpRx));
    Ptr<NrUePhy> uePhy = NrHelper::GetUePhy(ueDevs.Get(0), 0);
    Ptr<NrGnbPhy> gnbPhy = NrHelper::GetGnbPhy(gnbDevs.Get(0), 0);
    uePhy->GetSpectrumPhy()->TraceConnectWithoutContext("RxPacketTraceUe", MakeCallback(&OnRxTb));
    uePhy->TraceConnectWithoutContext("CqiFeedbackTrace", MakeCallback(&OnCqi));
    uePhy->TraceConnectWithoutContext("DlDataSinr", MakeCallback(&OnDlDataSinr));

    Simulator::Stop(Seconds(simTime));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    const double window = simTime - warmup;
    const Stats& s = g_stats;
    double pathLossDb = pathloss == "logdistance"
                            ? referenceLoss + 10.0 * exponent *
                                                  std::log10(std::max(1.0,
                                                                      std::hypot(distance, gnbHeight - ueHeight)))
                            : std::nan("");
    std::ostringstream o;
    o << "{\"distance_m\": " << Num(distance)
      << ", \"throughput_mbps\": " << Num(s.udpBytes * 8.0 / window / 1e6)
      << ", \"phy_throughput_mbps\": " << Num(s.okBits / window / 1e6)
      << ", \"sinr_db\": " << Num(Mean(s.sinrReportDbSum, s.sinrReports))
      << ", \"tb_sinr_db\": " << Num(Mean(s.sinrDbSum, s.newTbs))
      << ", \"mean_mcs\": " << Num(Mean(s.mcsSum, s.newTbs))
      << ", \"mean_cqi\": " << Num(Mean(s.cqiSum, s.cqiReports))
      << ", \"mean_cqi_mcs\": " << Num(Mean(s.cqiMcsSum, s.cqiReports))
      << ", \"new_tbs\": " << s.newTbs << ", \"retx_tbs\": " << s.retxTbs
      << ", \"retx_per_tb\": " << Num(Mean(static_cast<double>(s.retxTbs), s.newTbs))
      << ", \"first_tx_bler\": " << Num(Mean(static_cast<double>(s.newTbsCorrupt), s.newTbs))
      << ", \"corrupt_tbs\": " << s.tbsCorrupt << ", \"lost_tbs_rv3\": " << s.tbsLost
      << ", \"mean_tb_bits\": " << Num(Mean(static_cast<double>(s.tbBitsNew), s.newTbs))
      << ", \"mean_data_symbols\": " << Num(Mean(s.symSum, s.newTbs))
      << ", \"mean_rbs\": " << Num(Mean(s.rbSum, s.newTbs))
      << ", \"udp_packets\": " << s.udpPackets
      << ", \"path_loss_db\": " << Num(pathLossDb)
      << ", \"wall_s\": " << Num(wall)
      << ", \"parameters\": {\"numerology\": " << numerology
      << ", \"carrier_hz\": " << Num(frequency) << ", \"bandwidth_hz\": " << Num(bandwidth)
      << ", \"prbs\": " << gnbPhy->GetRbNum() << ", \"rb_overhead\": " << Num(rbOverhead)
      << ", \"slot_pattern\": \"" << gnbPhy->GetPattern() << "\""
      << ", \"symbols_per_slot\": " << gnbPhy->GetSymbolsPerSlot()
      << ", \"layers\": 1, \"antennas\": \"1x1 isotropic (0 dBi) at gNB and UE\""
      << ", \"error_model\": \"" << errorModel << "\""
      << ", \"amc\": \"NrAmc ErrorModel, BLER target 0.1\""
      << ", \"csi_feedback\": \"CQI_PDSCH_SISO: wideband CQI from the PDSCH SINR\""
      << ", \"scheduler\": \"" << NrHelper::GetScheduler(gnbDevs.Get(0), 0)->GetInstanceTypeId().GetName() << "\""
      << ", \"pathloss\": \""
      << (pathloss == "logdistance" ? "LogDistancePropagationLossModel" : "ThreeGppUmaPropagationLossModel LoS, no shadowing")
      << "\", \"path_loss_exponent\": " << Num(pathloss == "logdistance" ? exponent : std::nan(""))
      << ", \"reference_distance_m\": 1, \"reference_loss_db\": " << Num(referenceLoss)
      << ", \"fast_fading\": false, \"gnb_height_m\": " << Num(gnbHeight)
      << ", \"ue_height_m\": " << Num(ueHeight) << ", \"tx_power_dbm\": " << Num(txPower)
      << ", \"ue_noise_figure_db\": " << Num(noiseFigure) << ", \"ue_tx_power_dbm\": 23"
      << ", \"offered_mbps\": " << Num(rateMbps) << ", \"udp_payload_bytes\": " << pktSize
      << ", \"rlc\": \"UM\", \"rlc_buffer_bytes\": " << rlcBuffer
      << ", \"sim_time_s\": " << Num(simTime) << ", \"window_s\": [" << Num(warmup) << ", "
      << Num(simTime) << "], \"run\": " << seed << "}}";
    std::cout << o.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
