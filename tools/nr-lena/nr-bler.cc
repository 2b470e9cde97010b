// 5G-LENA's (NR-v4.0) link-to-system error model on its own: for every MCS of the error
// model's table, the block error rate of a first transmission (no HARQ history) versus a SINR
// that is the same on every resource block. The transport block is the one 5G-LENA's AMC and
// scheduler size for the allocation (NrAmc::CalculateTbSize: --rbs resource blocks times
// --symbols OFDM symbols, 11 of 12 subcarriers per RB after NrAmc's reference-signal overhead,
// one layer, less the CRC bits). Built and run by tools/nr_lena.py; prints one JSON object.

#include "ns3/core-module.h"
#include "ns3/nr-amc.h"
#include "ns3/nr-error-model.h"
#include "ns3/nr-spectrum-value-helper.h"
#include "ns3/spectrum-value.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string errorModel = "ns3::NrEesmIrT1";
    uint32_t rbs = 273;
    uint32_t symbols = 12;
    double sinrMin = -10.0;
    double sinrMax = 30.0;
    double sinrStep = 0.25;
    double frequency = 3.5e9;
    uint16_t numerology = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("errorModel", "NR error model TypeId", errorModel);
    cmd.AddValue("rbs", "resource blocks of the allocation", rbs);
    cmd.AddValue("symbols", "OFDM symbols of the allocation", symbols);
    cmd.AddValue("sinrMin", "lowest SINR, dB", sinrMin);
    cmd.AddValue("sinrMax", "highest SINR, dB", sinrMax);
    cmd.AddValue("sinrStep", "SINR step, dB", sinrStep);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(rbs == 0 || symbols == 0 || symbols > 14,
                    "--rbs > 0 and 1 <= --symbols <= 14 expected");
    NS_ABORT_MSG_IF(!(sinrStep > 0) || sinrMax < sinrMin, "--sinrStep > 0 and --sinrMax >= --sinrMin expected");

    auto amc = CreateObject<NrAmc>();
    amc->SetAttribute("ErrorModelType", TypeIdValue(TypeId::LookupByName(errorModel)));
    amc->SetDlMode();
    ObjectFactory factory;
    factory.SetTypeId(errorModel);
    Ptr<NrErrorModel> em = DynamicCast<NrErrorModel>(factory.Create());
    NS_ABORT_MSG_IF(!em, errorModel << " is not an NrErrorModel");

    const double scs = 15e3 * (1 << numerology);
    Ptr<const SpectrumModel> model = NrSpectrumValueHelper::GetSpectrumModel(rbs, frequency, scs);
    std::vector<int> map(rbs);
    for (uint32_t i = 0; i < rbs; ++i)
    {
        map[i] = static_cast<int>(i);
    }

    std::ostringstream o;
    o << "{\"parameters\": {\"error_model\": \"" << errorModel << "\", \"rbs\": " << rbs
      << ", \"symbols\": " << symbols << ", \"layers\": 1, \"numerology\": " << numerology
      << ", \"ref_subcarriers_per_rb\": " << +amc->GetNumRefScPerRb()
      << ", \"harq_history\": \"none (first transmission)\""
      << ", \"sinr_db\": {\"min\": " << sinrMin << ", \"max\": " << sinrMax << ", \"step\": " << sinrStep
      << "}}, \"curves\": [";
    for (uint8_t mcs = 0; mcs <= em->GetMaxMcs(); ++mcs)
    {
        uint32_t tbBytes = amc->CalculateTbSize(mcs, 1, rbs * symbols);
        o << (mcs ? ", " : "") << "{\"mcs\": " << +mcs
          << ", \"spectral_efficiency\": " << em->GetSpectralEfficiencyForMcs(mcs)
          << ", \"tb_bytes\": " << tbBytes << ", \"sinr_db\": [";
        std::ostringstream bl;
        bool first = true;
        for (double s = sinrMin; s <= sinrMax + 1e-9; s += sinrStep)
        {
            SpectrumValue sinr(model);
            sinr = std::pow(10.0, s / 10.0);
            double tbler = em->GetTbDecodificationStats(sinr, map, tbBytes, mcs, {})->m_tbler;
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.6g", tbler);
            o << (first ? "" : ", ") << s;
            bl << (first ? "" : ", ") << buf;
            first = false;
        }
        o << "], \"bler\": [" << bl.str() << "]}";
    }
    o << "]}";
    std::cout << o.str() << std::endl;
    return 0;
}
