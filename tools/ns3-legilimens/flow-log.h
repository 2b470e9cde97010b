// Per-flow counters for the ns-3 side of tools/legilimens_study.py, kept in C++ so that no
// Python runs per packet: bytes received, the first byte the sending application wrote, the
// completion time, optional per-bin byte series, and where in the millisecond the UE's
// packets arrive (the phase of delivery against the 1 ms TCP timestamp clock).

#ifndef CELLSHARE_FLOW_LOG_H
#define CELLSHARE_FLOW_LOG_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class LegilimensFlowLog : public Object
{
  public:
    static TypeId GetTypeId();

    /// Watches a flow: `sink` is the receiving `PacketSink`, `sender` the sending
    /// `BulkSendApplication` (its "Tx" trace gives the first write), `bytes` its size (0 for
    /// always-on), `binSeconds` > 0 keeps received bytes per bin up to `horizonSeconds`.
    /// Returns the flow's index.
    uint32_t Add(Ptr<Application> sink,
                 Ptr<Application> sender,
                 uint64_t bytes,
                 double binSeconds,
                 double horizonSeconds);

    uint32_t GetFlows() const;
    uint64_t GetRx(uint32_t i) const;
    /// Seconds of the sender's first write (after the handshake), -1 before it.
    double GetFirstTx(uint32_t i) const;
    /// Seconds at which the last byte arrived, -1 until the flow is complete.
    double GetDone(uint32_t i) const;
    std::vector<uint64_t> GetBins(uint32_t i) const;
    /// Received packets by arrival time modulo 1 ms, in 100 µs bins (10 bins).
    std::vector<uint64_t> GetPhaseHistogram() const;

  private:
    struct Flow
    {
        uint64_t size{0};
        uint64_t rx{0};
        Time firstTx{-1};
        Time done{-1};
        Time bin{0};
        std::vector<uint64_t> bins;
    };

    static void OnRx(LegilimensFlowLog* log, uint32_t i, Ptr<const Packet> p, const Address& from);
    static void OnTx(LegilimensFlowLog* log, uint32_t i, Ptr<const Packet> p);

    std::vector<Flow> m_flows;
    std::vector<uint64_t> m_phase = std::vector<uint64_t>(10, 0);
};

} // namespace ns3

#endif
