// Legilimens as an ns-3 congestion control (ns-3.44, the PyPI `ns3` wheel).
//
// The same rules and constants as cellshare's `crates/transport/src/cc/legilimens.rs` (cited
// there as [L] = legilimens-transport.txt, [Th] = the evaluation thesis), so that the paper's
// own simulator can referee cellshare's Figure 7 and Figure 12 results. Every rule below names
// the Rust item it mirrors; every difference that ns-3 forces is documented next to its code
// in tcp-legilimens.cc and listed in docs/legilimens-ns3.md.
//
// Built by tools/legilimens_ns3.py with g++ into a shared library that is loaded into the
// Python process that drives ns-3 (its TypeId "ns3::TcpLegilimens" registers when the
// library loads), so `TcpL4Protocol::SocketType = ns3::TcpLegilimens` selects it.

#ifndef CELLSHARE_TCP_LEGILIMENS_H
#define CELLSHARE_TCP_LEGILIMENS_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/sequence-number.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class Packet;
class TcpHeader;
class TcpSocketBase;

/// [L] Algorithm 1 in bytes: cellshare's `CapacityEstimator` (legilimens.rs), rule for rule.
/// Fed (cumulative ACK `s` in bytes, receiver TSval `t` in ms = TTIs, optional TSecr `ecr`)
/// per ACK; ACKs with the same TSval accumulate into one slot (line 22); a newer TSval closes
/// the slot and evaluates it (lines 6-20) against the estimate.
class LegilimensEstimator
{
  public:
    /// What one evaluation found (cellshare's `SlotSample`).
    struct Sample
    {
        uint32_t duration; ///< TTIs between the closed slot and the new one
        double rate;       ///< bytes per TTI of the closed slot
        bool gap;          ///< duration > 1 (line 8)
        bool busy;         ///< a busy verdict on the gap before the closed slot became final
        bool counted;      ///< the evaluation could change capacity and judge its gap
    };

    LegilimensEstimator(double lambda = 0.5, uint64_t baseSeq = 0);

    /// One ACK; returns the evaluation when a new slot opened (`observe_full`).
    std::optional<Sample> Observe(uint64_t s, uint32_t t, std::optional<uint32_t> ecr, bool count);
    /// The flight left after the ACK just observed (`note_flight`).
    void NoteFlight(uint64_t bytesInFlight, uint64_t mss);
    /// Forgets the open slot, keeps the capacity; returns whether a pending verdict was busy.
    bool Restart();
    /// The receiver ACKs every second segment of `mss` bytes (0: one ACK per segment).
    void SetDelayedAcks(uint64_t mss);

    /// Capacity in bytes per TTI, NaN before the first evaluated slot.
    double GetCapacity() const;
    bool IsBusy() const;

    /// Late delivery (cellshare's `LATE_DELIVERY_TTIS`).
    static constexpr double kLateDeliveryTtis = 1.5;

  private:
    struct Slot
    {
        uint32_t t{0};
        uint64_t n{0};
        std::optional<uint32_t> ecrFirst;
        std::optional<uint32_t> ecrLast;
        bool loneTail{false};
        bool afterGap{false};
        bool pendingBusy{false};
    };

    void UpdateCapacity(double rate);
    bool FinalVerdict(const Slot& slot) const;

    double m_lambda;
    uint64_t m_s0;
    std::optional<Slot> m_cur;
    double m_capacity;
    bool m_measured{false};
    bool m_busy{false};
    uint64_t m_ackQuantumMss{0};
};

/// Legilimens' congestion control ([L] Figure 6) as an ns-3 `TcpCongestionOps`.
class TcpLegilimens : public TcpCongestionOps
{
  public:
    /// [L] Figure 6's modes; the value is cellshare's trace `mode`.
    enum Mode : uint32_t
    {
        NORMAL = 0,
        GAP_I = 1,
        GAP_II = 2,
        GAP_III = 3,
        BACKOFF = 4,
    };

    /// cellshare's `LegilimensVariant`.
    enum Variant : uint8_t
    {
        STANDARD = 0,
        ACTIVE = 1,
        PASSIVE = 2,
    };

    static TypeId GetTypeId();

    TcpLegilimens();
    TcpLegilimens(const TcpLegilimens& sock);
    ~TcpLegilimens() override;

    std::string GetName() const override;
    void Init(Ptr<TcpSocketState> tcb) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
    Ptr<TcpCongestionOps> Fork() override;

    // What the study driver and the tests read.
    Mode GetMode() const;
    /// Capacity estimate in bytes per TTI (NaN before the first estimate).
    double GetCapacity() const;
    /// The estimator's last busy verdict.
    bool IsBusy() const;
    /// Busy verdicts that reached the mode machine (counted gaps judged busy).
    uint64_t GetBusyVerdicts() const;
    /// Counted slot evaluations.
    uint64_t GetCountedSlots() const;
    /// Time spent in `mode` up to now, in seconds.
    double GetSecondsIn(uint32_t mode) const;
    /// Mode changes as (time in ns, new mode), from the first one on.
    const std::vector<std::pair<int64_t, uint32_t>>& GetModeLog() const;
    /// Retransmission timeouts ns-3 raised with nothing in flight during a wait (ignored).
    uint64_t GetIdleTimeouts() const;
    /// Mean and largest RTT − one-way delay of the RTT samples (the ACKs' way back: the UE's
    /// uplink and the core), ms; -1 / 0 before the first.
    double GetReturnDelayMeanMs() const;
    int64_t GetReturnDelayMaxMs() const;
    /// "address:port" of the receiver once the controller found its socket, else "".
    std::string GetPeer() const;

    /// Every live TcpLegilimens (the driver reads them before Simulator::Destroy).
    static std::vector<TcpLegilimens*>& Instances();

  private:
    /// The sender's `paused()` (legilimens.rs): a GAP wait once its burst is out, or a
    /// back-off.
    bool Paused() const;
    /// In a GAP wait or a back-off (not holding for a retransmission's ACK).
    bool Waiting() const;
    void HoldTimer(Time now);
    void ReleaseTimer();
    void Enter(Mode mode, Time now);
    void OnBusy(Time now);
    void Expire(Time now);
    bool QueueBacked(uint64_t priorInFlight) const;
    uint64_t CwndCap() const;
    void SetDeadline(std::optional<Time> at);
    void OnDeadline();
    void SetMode(Mode mode, Time now);
    void ApplyCwnd();
    void Kick();
    void FindSocket();
    void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s);

    // Table I and [Th] (attributes, cellshare's `LegilimensConfig`).
    double m_lambdaCfg{0.5};
    uint32_t m_burstBytes{51200};
    Time m_waitCfg{MilliSeconds(250)};
    double m_capacityCap{0.8};
    uint8_t m_variant{STANDARD};
    uint32_t m_maxBackoffExp{3};

    // Effective λ and T of the variant.
    double m_lambda{0.5};
    Time m_wait{MilliSeconds(250)};

    std::optional<LegilimensEstimator> m_est;
    TracedValue<uint32_t> m_mode{GAP_I};
    uint64_t m_cwnd{0};
    uint64_t m_ssthresh{UINT64_MAX};
    uint64_t m_caAcked{0};
    uint64_t m_flight{0};
    uint64_t m_burstLeft{0};
    bool m_burstHold{false};
    std::optional<Time> m_deadline;
    EventId m_timer;
    uint32_t m_backoffExp{0};
    /// The RTT the window cap and the half-BDP test use (cellshare's min RTT; see
    /// tcp-legilimens.cc, difference 4).
    Time m_minRtt{0};
    Time m_normalSince{0};
    int64_t m_qdelayMs{0};
    uint64_t m_mss{1448};
    uint64_t m_initialWindow{0};
    Ptr<UniformRandomVariable> m_rng;

    // ns-3 plumbing (see tcp-legilimens.cc, "What ns-3 forces").
    Ptr<TcpSocketState> m_tcb;
    TcpSocketBase* m_socket{nullptr};
    bool m_socketSearched{false};
    bool m_haveAck{false};
    SequenceNumber32 m_lastAckSeq{0};
    uint64_t m_ackSeq64{0};
    std::string m_peer;
    struct SentSegment
    {
        uint64_t end;
        Time sent;
        bool retx;
    };
    std::deque<SentSegment> m_sent;
    uint64_t m_highTx64{0};
    /// Smallest newest-segment RTT sample.
    Time m_ownMinRtt{0};
    /// Smoothed RTT of the samples whose segment did not queue on the downlink; stands for
    /// cellshare's min RTT.
    Time m_srtt{0};
    std::optional<int64_t> m_minOwdMs;
    Time m_baseMinRto{MilliSeconds(200)};
    bool m_minRtoRaised{false};

    // Statistics.
    uint64_t m_busyVerdicts{0};
    uint64_t m_countedSlots{0};
    uint64_t m_idleTimeouts{0};
    int64_t m_returnSumMs{0};
    uint64_t m_returnCount{0};
    int64_t m_returnMaxMs{0};
    Time m_modeSince{0};
    Time m_timeIn[5]{};
    std::vector<std::pair<int64_t, uint32_t>> m_modeLog;
};

/// A `TcpSocketState` as a connected socket's: segment size and initial window (segments).
Ptr<TcpSocketState> LegilimensTestTcb(uint32_t segmentSize, uint32_t initialCwnd);

/// What `TcpSocketBase::ReceivedAck` sets in the tcb before it calls `PktsAcked` (cumulative
/// ACK, the ACK's TSval and TSecr, the flight after the ACK), then `PktsAcked` and, in
/// CA_OPEN, `IncreaseWindow`: an ACK stream for tests of the controller without a network.
void LegilimensFeedAck(Ptr<TcpLegilimens> cc,
                       Ptr<TcpSocketState> tcb,
                       uint32_t ack,
                       uint32_t tsval,
                       uint32_t tsecr,
                       uint32_t bytesInFlight,
                       uint32_t segmentsAcked);

} // namespace ns3

#endif
