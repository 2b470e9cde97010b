// See flow-log.h.

#include "flow-log.h"

#include "ns3/callback.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LegilimensFlowLog);

TypeId
LegilimensFlowLog::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LegilimensFlowLog")
                            .SetParent<Object>()
                            .SetGroupName("Applications")
                            .AddConstructor<LegilimensFlowLog>();
    return tid;
}

uint32_t
LegilimensFlowLog::Add(Ptr<Application> sink,
                       Ptr<Application> sender,
                       uint64_t bytes,
                       double binSeconds,
                       double horizonSeconds)
{
    auto i = static_cast<uint32_t>(m_flows.size());
    Flow f;
    f.size = bytes;
    if (binSeconds > 0)
    {
        f.bin = Seconds(binSeconds);
        f.bins.assign(static_cast<size_t>(horizonSeconds / binSeconds) + 1, 0);
    }
    m_flows.push_back(f);
    sink->TraceConnectWithoutContext("Rx", MakeBoundCallback(&LegilimensFlowLog::OnRx, this, i));
    sender->TraceConnectWithoutContext("Tx", MakeBoundCallback(&LegilimensFlowLog::OnTx, this, i));
    return i;
}

void
LegilimensFlowLog::OnRx(LegilimensFlowLog* log, uint32_t i, Ptr<const Packet> p, const Address&)
{
    Flow& f = log->m_flows[i];
    Time now = Simulator::Now();
    f.rx += p->GetSize();
    if (f.size > 0 && f.done.IsNegative() && f.rx >= f.size)
    {
        f.done = now;
    }
    if (!f.bins.empty())
    {
        auto b = static_cast<size_t>(now.GetNanoSeconds() / f.bin.GetNanoSeconds());
        if (b < f.bins.size())
        {
            f.bins[b] += p->GetSize();
        }
    }
    log->m_phase[static_cast<size_t>((now.GetNanoSeconds() % 1000000) / 100000)]++;
}

void
LegilimensFlowLog::OnTx(LegilimensFlowLog* log, uint32_t i, Ptr<const Packet>)
{
    Flow& f = log->m_flows[i];
    if (f.firstTx.IsNegative())
    {
        f.firstTx = Simulator::Now();
    }
}

uint32_t
LegilimensFlowLog::GetFlows() const
{
    return static_cast<uint32_t>(m_flows.size());
}

uint64_t
LegilimensFlowLog::GetRx(uint32_t i) const
{
    return m_flows.at(i).rx;
}

double
LegilimensFlowLog::GetFirstTx(uint32_t i) const
{
    return m_flows.at(i).firstTx.GetSeconds();
}

double
LegilimensFlowLog::GetDone(uint32_t i) const
{
    return m_flows.at(i).done.GetSeconds();
}

std::vector<uint64_t>
LegilimensFlowLog::GetBins(uint32_t i) const
{
    return m_flows.at(i).bins;
}

std::vector<uint64_t>
LegilimensFlowLog::GetPhaseHistogram() const
{
    return m_phase;
}

} // namespace ns3
