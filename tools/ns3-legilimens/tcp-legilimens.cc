// Legilimens as an ns-3 congestion control: see tcp-legilimens.h.
//
// Rules and constants are cellshare's `crates/transport/src/cc/legilimens.rs` (each function
// names the Rust item it mirrors; the reasons for every choice the paper leaves open are
// documented there and not repeated here). What ns-3 forces to be different:
//
// 1. No send hook. `TcpCongestionOps` never hears about sent segments, which the GAP bursts
//    count (Rust `on_sent`). The controller connects to its socket's "Tx" trace instead. It
//    finds its socket once, when the first data leaves (`CA_EVENT_TX_START`): the socket
//    whose receive buffer is the one in the controller's `TcpSocketState` (the socket creates
//    the controller before it is registered anywhere, and passes it nothing but the tcb).
// 2. No controller timer and no pause. ns-3 asks a congestion control for a window only;
//    nothing wakes it, and a window smaller than the flight sends nothing, but an empty pipe
//    with a window of one segment sends one. The controller schedules its own event for the
//    end of each wait (Rust `poll_timeout`/`on_timer`), and pauses the sender (Rust
//    `paused`) with a window below one segment beyond the flight: ns-3's silly-window check
//    ("Preventing Silly Window Syndrome") then holds every segment. When the wait ends and
//    the window opens, nothing would call the socket's send path (no ACK is due), so the
//    controller hands the socket an empty `Send`, which schedules `SendPendingData` as an
//    application write does. Cost: ns-3 checks retransmissions against the same window, so a
//    paused ns-3 sender also holds the retransmissions of a lost probe segment that cellshare
//    (whose pause gates new data only) would send; the fast retransmit itself and RTO
//    retransmissions bypass the window in ns-3 and still go out.
// 3. `PktsAcked` receives neither the acknowledged bytes nor the flight before the ACK
//    (`AckEvent::prior_in_flight`): the controller unwraps the cumulative ACK
//    (`m_lastAckedSeq`) itself, and takes prior flight = flight after the ACK
//    (`m_bytesInFlight`, updated before `PktsAcked`) + newly acknowledged bytes (SACKed
//    bytes are not added back; used only by NORMAL's queue gating and cwnd-limited test).
// 4. Queue gating measures the downlink only. cellshare's NORMAL counts a slot only when
//    the newest segment an ACK covers waited at the eNB: RTT sample − min RTT ≥ 2 ms. In
//    cellshare the ACK path is a fixed delay, so that difference is the downlink queueing
//    delay. ns-3 schedules the ACKs on the LTE uplink (scheduling requests, grants), which
//    adds several ms of jitter to every RTT: measured in an idle cell, a lone window-capped
//    NORMAL sender's RTTs spread over 28-48 ms with no downlink queue, the gating let the
//    idle TTIs between its rounds count, and the flow was judged busy ~250 ms into every
//    NORMAL. (ns-3's own RTT samples are worse still: with timestamps they are now − TSecr
//    in whole ms, and a delayed ACK echoes the first of its two segments.) The controller
//    therefore keeps its own send times (from the "Tx" trace) and gates on the same
//    segment's one-way delay: the ACK's TSval (the receiver's clock when it acknowledged the
//    segment) − the segment's send time in whole ms, minus the smallest such delay seen;
//    none for a retransmitted segment (Karn). With a fixed uplink this is exactly cellshare's
//    RTT − min RTT. Without a socket (the unit tests) the controller falls back to ns-3's
//    `m_lastRtt` and `m_minRtt`.
//    The same uplink bears on NORMAL's cap. cellshare caps the window at 0.8 · capacity ·
//    min RTT so that the *rate* stays at 0.8 · capacity ([Th]) whatever the downlink queue:
//    with a fixed ACK path a segment that meets no queue has the min RTT. In ns-3 it does
//    not: the UE sends its ACKs in batches at its uplink grants, so a window-capped flow with
//    no downlink queue saw RTTs of 34-36 ms (3,852 samples) while the min RTT was 28 ms (a
//    grant that happened to be early); the min-RTT window gave a lone flow in the idle cell
//    62 % of it (42.7 of 68.7 Mbit/s). Where cellshare uses the min RTT (the window cap and
//    the half-BDP test of the queue gating) the controller uses the smoothed RTT (gain 1/8,
//    RFC 6298's) of the samples whose segment did not queue on the downlink (one-way delay
//    within 2 ms of its minimum, the gating's own threshold), and the min RTT before the
//    first such sample. A smoothed RTT of all samples would not do: in a busy cell the
//    flow's own queue lengthens it, the cap and the half BDP grow with it, the verdicts stop
//    counting and NORMAL never ends (measured at 100 UEs: 4.6 % of the time in NORMAL, 15x
//    cellshare's).
// 5. Order of ns-3's calls: `EnterRecovery` calls `CongestionStateSet(CA_RECOVERY)` before
//    `GetSsThresh`, so Rust's `on_congestion_event` (NORMAL halves to ssthresh) happens in
//    `GetSsThresh`. After an RTO ns-3 calls `GetSsThresh` and then `CwndEvent(CA_EVENT_LOSS)`,
//    which is Rust's `on_timeout`. During fast recovery in NORMAL, ns-3's PRR
//    (`TcpPrrRecovery`, the default) sets the window, as cellshare's sender runs PRR; in GAP
//    modes and back-off the controller's burst window overrides PRR's, as in Rust, where
//    `cwnd()` is the burst window in every TCP state.
// 6. The TCP timestamp clock: `TcpOptionTS::NowToTsValue()` = `Simulator::Now()
//    .GetMilliSeconds()` (integer division, 1 ms ticks); the receiver stamps an ACK with the
//    time it sends it (RFC 7323), as cellshare's receiver does. Algorithm 1 therefore sees
//    the same 1 ms = 1 TTI slots. docs/legilimens-ns3.md gives what running it shows.
// 7. ns-3 keeps the retransmission timer armed while unsent data waits in the send buffer
//    (`NewAck` cancels it only when the buffer is empty; RFC 6298 §5.2 turns it off once all
//    outstanding data is acknowledged, as Linux and cellshare do), and its expiry with
//    nothing in flight is handled as a loss: window one segment, one segment sent. A bulk
//    sender that pauses for T therefore meets a spurious timeout about MinRto after its
//    flight drained, every wait. When an ACK drains the flight during a wait, the controller
//    raises the socket's `MinRto` (public `SetMinRto`) so that the timer this ACK arms
//    expires MinRto after the wait's end, and restores it when the wait ends; the first
//    ACK of the next burst re-arms the timer with the normal value. A timeout that still
//    finds nothing in flight during a wait changes neither the mode nor ssthresh (counted,
//    `GetIdleTimeouts`).
// 8. Back-off draws come from an ns-3 `UniformRandomVariable` (ns-3's seed and run), not
//    from cellshare's `stream_rng`: the two simulators draw different back-off sequences.

#include "tcp-legilimens.h"

#include "ns3/address.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/object-map.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-rx-buffer.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpLegilimens");
NS_OBJECT_ENSURE_REGISTERED(TcpLegilimens);

// ---------------------------------------------------------------- LegilimensEstimator

LegilimensEstimator::LegilimensEstimator(double lambda, uint64_t baseSeq)
    : m_lambda(lambda),
      m_s0(baseSeq),
      m_capacity(std::numeric_limits<double>::quiet_NaN())
{
}

double
LegilimensEstimator::GetCapacity() const
{
    return m_capacity;
}

bool
LegilimensEstimator::IsBusy() const
{
    return m_busy;
}

void
LegilimensEstimator::SetDelayedAcks(uint64_t mss)
{
    m_ackQuantumMss = mss;
}

void
LegilimensEstimator::NoteFlight(uint64_t bytesInFlight, uint64_t mss)
{
    // Rust `note_flight`: a lone segment left in flight may be held by the receiver's
    // delayed-ACK timer, so a gap after the open slot is the receiver's, not the scheduler's.
    if (m_cur)
    {
        m_cur->loneTail = bytesInFlight > 0 && bytesInFlight < 2 * mss;
    }
}

bool
LegilimensEstimator::Restart()
{
    // Rust `restart`: the open slot is complete, so a verdict waiting for its size is final.
    bool busy = m_cur && FinalVerdict(*m_cur);
    m_cur.reset();
    if (busy)
    {
        m_busy = true;
    }
    return busy;
}

void
LegilimensEstimator::UpdateCapacity(double rate)
{
    // Lines 15 and 19, with the late-delivery clip (Rust `update_capacity`).
    m_capacity = 0.8 * m_capacity + 0.2 * std::min(rate, kLateDeliveryTtis * m_capacity);
    m_measured = true;
}

bool
LegilimensEstimator::FinalVerdict(const Slot& slot) const
{
    // Rust `final_verdict`: busy unless the slot after the gap is a late delivery.
    bool late = slot.afterGap && m_measured &&
                static_cast<double>(slot.n) > kLateDeliveryTtis * m_capacity;
    return slot.pendingBusy && !late;
}

std::optional<LegilimensEstimator::Sample>
LegilimensEstimator::Observe(uint64_t s, uint32_t t, std::optional<uint32_t> ecr, bool count)
{
    // Rust `observe_full`, line for line.
    uint64_t bytes = s > m_s0 ? s - m_s0 : 0;
    m_s0 = std::max(m_s0, s); // line 24, never backwards
    Slot fresh;
    fresh.t = t;
    fresh.n = bytes;
    fresh.ecrFirst = ecr;
    fresh.ecrLast = ecr;
    if (!m_cur)
    {
        m_cur = fresh; // first ACK (or first after a restart): no evaluation
        return std::nullopt;
    }
    Slot prev = *m_cur;
    if (static_cast<int32_t>(t - prev.t) <= 0)
    {
        // Line 22: same (or older, reordered) TSval: accumulate into slot[i].
        m_cur->n += bytes;
        if (ecr)
        {
            m_cur->ecrLast = ecr;
        }
        return std::nullopt;
    }
    uint32_t duration = t - prev.t;                                          // line 6
    double rate = static_cast<double>(prev.n) / static_cast<double>(duration); // line 7
    bool gap = duration > 1;                                                  // line 8
    bool resolved = FinalVerdict(prev);
    fresh.afterGap = gap;
    bool senderGap = false;
    if (gap && prev.ecrLast && ecr)
    {
        auto d = static_cast<int32_t>(*ecr - *prev.ecrLast);
        senderGap = d >= 0 && static_cast<uint32_t>(d) >= duration - 1;
    }
    senderGap = senderGap || (gap && prev.loneTail);
    uint64_t credit = 0;
    if (m_ackQuantumMss > 0 && prev.n <= 2 * m_ackQuantumMss)
    {
        credit = std::min(bytes, 2 * m_ackQuantumMss - 1);
    }
    m_busy = resolved;
    if (!count || senderGap)
    {
        if (!gap && !std::isnan(m_capacity) && rate > m_capacity)
        {
            UpdateCapacity(rate); // uncounted slots raise, never lower
        }
        m_cur = fresh;
        return Sample{duration, rate, gap, resolved, false};
    }
    if (std::isnan(m_capacity))
    {
        // Initial capacity: the larger of the rate and half the slot (Rust "Initial capacity").
        m_capacity = std::max(rate, static_cast<double>(prev.n) / 2.0);
    }
    if (gap)
    {
        // Lines 9-16, the verdict waiting for the next slot's size (late delivery).
        fresh.pendingBusy = static_cast<double>(prev.n + credit) / static_cast<double>(duration) <
                            m_lambda * m_capacity;
        if (rate > m_capacity)
        {
            UpdateCapacity(rate);
        }
    }
    else
    {
        UpdateCapacity(rate); // lines 18-19
    }
    m_cur = fresh;
    return Sample{duration, rate, gap, resolved, true};
}

// ---------------------------------------------------------------------- TcpLegilimens

/// cellshare's `QUEUE_DELAY_MIN_MS`.
static constexpr int64_t kQueueDelayMinMs = 2;
/// cellshare's `BACKOFF_RESET_WAITS`.
static constexpr int64_t kBackoffResetWaits = 2;

TypeId
TcpLegilimens::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpLegilimens")
            .SetParent<TcpCongestionOps>()
            .SetGroupName("Internet")
            .AddConstructor<TcpLegilimens>()
            .AddAttribute("Lambda",
                          "Busy threshold λ ([L] Table I)",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&TcpLegilimens::m_lambdaCfg),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("BurstBytes",
                          "Probe burst M in bytes; GAP I/II/III send M, 2M, 4M ([L] Table I)",
                          UintegerValue(51200),
                          MakeUintegerAccessor(&TcpLegilimens::m_burstBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("WaitTime",
                          "Wait T after each GAP burst and back-off unit ([L] Table I)",
                          TimeValue(MilliSeconds(250)),
                          MakeTimeAccessor(&TcpLegilimens::m_waitCfg),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("CapacityCap",
                          "Fraction of the estimated capacity NORMAL may use ([Th])",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&TcpLegilimens::m_capacityCap),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Variant",
                          "0 standard, 1 active (waits halved), 2 passive (λ = 1, busy -> back-off)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TcpLegilimens::m_variant),
                          MakeUintegerChecker<uint8_t>(0, 2))
            .AddAttribute("MaxBackoffExp",
                          "Cap on the back-off exponent k (wait T·U{1..2^k})",
                          UintegerValue(3),
                          MakeUintegerAccessor(&TcpLegilimens::m_maxBackoffExp),
                          MakeUintegerChecker<uint32_t>(1, 30))
            .AddTraceSource("Mode",
                            "Legilimens mode: 0 NORMAL, 1-3 GAP I-III, 4 back-off",
                            MakeTraceSourceAccessor(&TcpLegilimens::m_mode),
                            "ns3::TracedValueCallback::Uint32");
    return tid;
}

std::vector<TcpLegilimens*>&
TcpLegilimens::Instances()
{
    static std::vector<TcpLegilimens*> instances;
    return instances;
}

TcpLegilimens::TcpLegilimens()
    : TcpCongestionOps()
{
    m_rng = CreateObject<UniformRandomVariable>();
    Instances().push_back(this);
}

TcpLegilimens::TcpLegilimens(const TcpLegilimens& sock)
    : TcpCongestionOps(sock),
      m_lambdaCfg(sock.m_lambdaCfg),
      m_burstBytes(sock.m_burstBytes),
      m_waitCfg(sock.m_waitCfg),
      m_capacityCap(sock.m_capacityCap),
      m_variant(sock.m_variant),
      m_maxBackoffExp(sock.m_maxBackoffExp)
{
    m_rng = CreateObject<UniformRandomVariable>();
    Instances().push_back(this);
}

TcpLegilimens::~TcpLegilimens()
{
    m_timer.Cancel();
    auto& v = Instances();
    v.erase(std::remove(v.begin(), v.end(), this), v.end());
}

std::string
TcpLegilimens::GetName() const
{
    return "TcpLegilimens";
}

Ptr<TcpCongestionOps>
TcpLegilimens::Fork()
{
    return CopyObject<TcpLegilimens>(this);
}

void
TcpLegilimens::Init(Ptr<TcpSocketState> tcb)
{
    // Rust `Legilimens::new`: the variant's λ and T, start in GAP I with a burst of M whose
    // wait starts with its first segment.
    m_tcb = tcb;
    switch (m_variant)
    {
    case ACTIVE:
        m_lambda = m_lambdaCfg;
        m_wait = std::max(m_waitCfg / 2, NanoSeconds(1));
        break;
    case PASSIVE:
        m_lambda = 1.0;
        m_wait = m_waitCfg;
        break;
    default:
        m_lambda = m_lambdaCfg;
        m_wait = m_waitCfg;
    }
    m_mss = std::max<uint32_t>(tcb->m_segmentSize, 1);
    m_initialWindow = std::max<uint64_t>(uint64_t{tcb->m_initialCWnd} * m_mss, m_mss);
    m_cwnd = m_initialWindow;
    m_burstLeft = m_burstBytes;
    m_modeSince = Simulator::Now();
    m_modeLog.clear();
    m_modeLog.emplace_back(Simulator::Now().GetNanoSeconds(), m_mode.Get());
}

TcpLegilimens::Mode
TcpLegilimens::GetMode() const
{
    return static_cast<Mode>(m_mode.Get());
}

double
TcpLegilimens::GetCapacity() const
{
    return m_est ? m_est->GetCapacity() : std::numeric_limits<double>::quiet_NaN();
}

bool
TcpLegilimens::IsBusy() const
{
    return m_est && m_est->IsBusy();
}

uint64_t
TcpLegilimens::GetBusyVerdicts() const
{
    return m_busyVerdicts;
}

uint64_t
TcpLegilimens::GetCountedSlots() const
{
    return m_countedSlots;
}

double
TcpLegilimens::GetSecondsIn(uint32_t mode) const
{
    if (mode > BACKOFF)
    {
        return 0.0;
    }
    Time t = m_timeIn[mode];
    if (mode == m_mode.Get())
    {
        t += Simulator::Now() - m_modeSince;
    }
    return t.GetSeconds();
}

const std::vector<std::pair<int64_t, uint32_t>>&
TcpLegilimens::GetModeLog() const
{
    return m_modeLog;
}

std::string
TcpLegilimens::GetPeer() const
{
    return m_peer;
}

void
TcpLegilimens::SetMode(Mode mode, Time now)
{
    m_timeIn[m_mode.Get()] += now - m_modeSince;
    m_modeSince = now;
    NS_LOG_DEBUG(this << " mode " << m_mode.Get() << " -> " << mode << " flight " << m_flight
                      << " capacity " << GetCapacity() << " k " << m_backoffExp);
    if (mode != m_mode.Get())
    {
        m_modeLog.emplace_back(now.GetNanoSeconds(), mode);
    }
    m_mode = mode;
}

uint64_t
TcpLegilimens::CwndCap() const
{
    // Rust `cwnd_cap`: capacity_cap · capacity · min_rtt/TTI, at least 2 MSS.
    double c = GetCapacity();
    if (std::isnan(c) || !m_minRtt.IsStrictlyPositive())
    {
        return UINT64_MAX;
    }
    double bytes = m_capacityCap * c * (m_minRtt.GetSeconds() * 1000.0);
    return std::max<uint64_t>(static_cast<uint64_t>(bytes), 2 * m_mss);
}

bool
TcpLegilimens::Paused() const
{
    return m_mode.Get() != NORMAL && !m_burstHold && m_burstLeft < m_mss && m_deadline.has_value();
}

void
TcpLegilimens::SetDeadline(std::optional<Time> at)
{
    m_deadline = at;
    m_timer.Cancel();
    if (at)
    {
        Time delay = *at - Simulator::Now();
        m_timer = Simulator::Schedule(delay.IsStrictlyPositive() ? delay : Time(0),
                                      &TcpLegilimens::OnDeadline,
                                      this);
    }
}

void
TcpLegilimens::Enter(Mode mode, Time now)
{
    // Rust `enter`.
    SetMode(mode, now);
    m_burstHold = false;
    switch (mode)
    {
    case GAP_I:
    case GAP_II:
    case GAP_III: {
        uint64_t k = mode == GAP_I ? 1 : (mode == GAP_II ? 2 : 4);
        m_burstLeft = k * m_burstBytes;
        SetDeadline(now + m_wait);
        break;
    }
    case BACKOFF: {
        uint32_t k = std::min(m_backoffExp + 1, m_maxBackoffExp);
        m_backoffExp = k;
        // U{1..2^k} multiples of T.
        auto slots = static_cast<int64_t>(m_rng->GetInteger(1, 1u << k));
        m_burstLeft = 0;
        SetDeadline(now + m_wait * slots);
        break;
    }
    case NORMAL:
        // "Like after a timeout": restart from IW and slow-start, capped.
        m_burstLeft = 0;
        SetDeadline(std::nullopt);
        m_normalSince = now;
        m_cwnd = std::min(m_initialWindow, CwndCap());
        m_caAcked = 0;
        break;
    }
}

void
TcpLegilimens::OnBusy(Time now)
{
    // Rust `on_busy` ([L] Fig. 6).
    switch (m_mode.Get())
    {
    case BACKOFF:
        break;
    case GAP_I:
        Enter(BACKOFF, now);
        break;
    default:
        Enter(m_variant == PASSIVE ? BACKOFF : GAP_I, now);
    }
}

void
TcpLegilimens::Expire(Time now)
{
    // Rust `expire`: a wait ended without busyness.
    switch (m_mode.Get())
    {
    case GAP_I:
        Enter(GAP_II, now);
        break;
    case GAP_II:
        Enter(GAP_III, now);
        break;
    case GAP_III:
        Enter(NORMAL, now);
        break;
    case BACKOFF:
        Enter(GAP_I, now);
        break;
    default:
        SetDeadline(std::nullopt);
    }
}

void
TcpLegilimens::OnDeadline()
{
    Time now = Simulator::Now();
    if (m_deadline && *m_deadline <= now)
    {
        Expire(now);
        ReleaseTimer();
        ApplyCwnd();
        Kick();
    }
}

bool
TcpLegilimens::QueueBacked(uint64_t priorInFlight) const
{
    // Rust `queue_backed`: NORMAL evaluates a slot only with our data queued (>= 2 ms of
    // queueing on the newest segment) and at least half a BDP in flight.
    if (m_mode.Get() != NORMAL)
    {
        return true;
    }
    bool ramped = true;
    double c = GetCapacity();
    if (!std::isnan(c) && m_minRtt.IsStrictlyPositive())
    {
        ramped = static_cast<double>(priorInFlight) >= 0.5 * c * (m_minRtt.GetSeconds() * 1000.0);
    }
    return ramped && m_qdelayMs >= kQueueDelayMinMs;
}

void
TcpLegilimens::ApplyCwnd()
{
    // Rust `cwnd()`, with the pause (difference 2): NORMAL's window in the states where ns-3
    // leaves the window to the controller; the burst window otherwise.
    if (!m_tcb)
    {
        return;
    }
    uint64_t w;
    if (m_mode.Get() == NORMAL)
    {
        auto st = m_tcb->m_congState.Get();
        if (st != TcpSocketState::CA_OPEN && st != TcpSocketState::CA_LOSS)
        {
            return; // fast recovery / CWR: ns-3's PRR owns the window (difference 5)
        }
        w = m_cwnd;
    }
    else if (m_burstHold)
    {
        w = m_mss;
    }
    else
    {
        // flight + what is left of the burst; below one segment beyond the flight when
        // paused, which ns-3's silly-window check turns into "send nothing".
        w = std::max<uint64_t>(m_flight + m_burstLeft, 1);
    }
    w = std::min<uint64_t>(w, std::numeric_limits<uint32_t>::max());
    m_tcb->m_cWnd = static_cast<uint32_t>(w);
    m_tcb->m_cWndInfl = static_cast<uint32_t>(w);
}

void
TcpLegilimens::Kick()
{
    // Difference 2: a zero-byte write schedules the socket's SendPendingData.
    if (m_socket && m_tcb && m_tcb->m_cWnd.Get() > m_flight)
    {
        m_socket->Send(Create<Packet>(0), 0);
    }
}

void
TcpLegilimens::FindSocket()
{
    // Difference 1: the socket whose receive buffer is our tcb's.
    if (m_socketSearched || !m_tcb)
    {
        return;
    }
    m_socketSearched = true;
    for (auto n = NodeList::Begin(); n != NodeList::End(); ++n)
    {
        Ptr<TcpL4Protocol> tcp = (*n)->GetObject<TcpL4Protocol>();
        if (!tcp)
        {
            continue;
        }
        ObjectMapValue sockets;
        tcp->GetAttribute("SocketList", sockets);
        for (auto it = sockets.Begin(); it != sockets.End(); ++it)
        {
            Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(it->second);
            if (s && s->GetRxBuffer() == m_tcb->m_rxBuffer)
            {
                m_socket = PeekPointer(s);
                s->TraceConnectWithoutContext("Tx", MakeCallback(&TcpLegilimens::OnTx, this));
                Address peer;
                if (s->GetPeerName(peer) == 0 && InetSocketAddress::IsMatchingType(peer))
                {
                    InetSocketAddress a = InetSocketAddress::ConvertFrom(peer);
                    std::ostringstream os;
                    os << a.GetIpv4() << ":" << a.GetPort();
                    m_peer = os.str();
                }
                return;
            }
        }
    }
}

void
TcpLegilimens::OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s)
{
    // Rust `on_sent`, from the socket's "Tx" trace (difference 1).
    uint32_t bytes = p->GetSize();
    if (bytes == 0)
    {
        return; // SYN, FIN, pure ACK
    }
    if (!m_haveAck)
    {
        // The first data byte: the base of the cumulative ACK count.
        m_haveAck = true;
        m_lastAckSeq = h.GetSequenceNumber();
    }
    m_flight = s->GetTxBuffer()->BytesInFlight();
    // Difference 4: send times of segments, for the newest-segment RTT.
    auto rel = static_cast<int32_t>(h.GetSequenceNumber() - m_lastAckSeq);
    uint64_t seq64 = rel >= 0 ? m_ackSeq64 + static_cast<uint64_t>(rel) : m_ackSeq64;
    uint64_t end = seq64 + bytes;
    NS_LOG_INFO(this << " tx " << seq64 << " +" << bytes);
    if (end > m_highTx64)
    {
        m_sent.push_back(SentSegment{end, Simulator::Now(), false});
        m_highTx64 = end;
    }
    else
    {
        for (auto& seg : m_sent)
        {
            if (seg.end > seq64 && seg.end - seq64 <= bytes)
            {
                seg.retx = true;
            }
        }
    }
    uint32_t mode = m_mode.Get();
    if (!m_burstHold && (mode == GAP_I || mode == GAP_II || mode == GAP_III))
    {
        m_burstLeft = m_burstLeft > bytes ? m_burstLeft - bytes : 0;
        if (!m_deadline)
        {
            SetDeadline(Simulator::Now() + m_wait); // the first burst's wait starts now
        }
    }
    ApplyCwnd();
}

bool
TcpLegilimens::Waiting() const
{
    return m_mode.Get() != NORMAL && !m_burstHold && m_deadline.has_value();
}

void
TcpLegilimens::HoldTimer(Time now)
{
    // Difference 7: the ACK that drained the flight during a wait is about to arm the
    // retransmission timer; make it expire only MinRto after the wait.
    if (m_socket && m_flight == 0 && Waiting())
    {
        if (!m_minRtoRaised)
        {
            m_baseMinRto = m_socket->GetMinRto();
        }
        m_minRtoRaised = true;
        m_socket->SetMinRto(*m_deadline - now + m_baseMinRto);
    }
}

void
TcpLegilimens::ReleaseTimer()
{
    if (m_socket && m_minRtoRaised)
    {
        m_socket->SetMinRto(m_baseMinRto);
        m_minRtoRaised = false;
    }
}

double
TcpLegilimens::GetReturnDelayMeanMs() const
{
    return m_returnCount ? static_cast<double>(m_returnSumMs) / m_returnCount : -1.0;
}

int64_t
TcpLegilimens::GetReturnDelayMaxMs() const
{
    return m_returnMaxMs;
}

uint64_t
TcpLegilimens::GetIdleTimeouts() const
{
    return m_idleTimeouts;
}

uint32_t
TcpLegilimens::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    if (bytesInFlight == 0 && Waiting())
    {
        // Difference 7: ns-3's timer expired with nothing in flight; not a loss.
        return static_cast<uint32_t>(std::min<uint64_t>(m_ssthresh, std::numeric_limits<uint32_t>::max()));
    }
    // Rust `on_congestion_event` / `on_timeout`: ssthresh = max(flight/2, 2 MSS); in NORMAL
    // a fast retransmit halves the window (difference 5: called after CA_RECOVERY is set).
    m_mss = std::max<uint32_t>(tcb->m_segmentSize, 1);
    m_ssthresh = std::max<uint64_t>(bytesInFlight / 2, 2 * m_mss);
    if (m_mode.Get() == NORMAL)
    {
        m_cwnd = m_ssthresh;
        m_caAcked = 0;
    }
    return static_cast<uint32_t>(std::min<uint64_t>(m_ssthresh, std::numeric_limits<uint32_t>::max()));
}

void
TcpLegilimens::CongestionStateSet(Ptr<TcpSocketState> tcb,
                                  const TcpSocketState::TcpCongState_t newState)
{
    m_tcb = tcb;
}

void
TcpLegilimens::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
    m_tcb = tcb;
    if (event == TcpSocketState::CA_EVENT_TX_START)
    {
        FindSocket();
        if (m_mode.Get() != NORMAL)
        {
            ApplyCwnd();
        }
    }
    else if (event == TcpSocketState::CA_EVENT_LOSS)
    {
        NS_LOG_DEBUG(this << " retransmission timeout, flight " << m_flight);
        if (m_flight == 0 && Waiting())
        {
            ++m_idleTimeouts; // difference 7: nothing was in flight; keep the wait
            return;
        }
        // Rust `on_timeout` (ssthresh was set by GetSsThresh just before): one segment, GAP I
        // whose burst and wait start once the retransmission is acknowledged.
        Time now = Simulator::Now();
        m_cwnd = m_mss;
        m_flight = 0;
        SetMode(GAP_I, now);
        m_burstLeft = m_burstBytes;
        m_burstHold = true;
        SetDeadline(std::nullopt);
        if (m_est)
        {
            m_est->Restart();
        }
    }
}

void
TcpLegilimens::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    // The window itself grows in PktsAcked (Rust `on_ack`); ns-3 calls this in CA_OPEN and
    // CA_LOSS only, after PktsAcked, where the controller's window applies.
    m_tcb = tcb;
    ApplyCwnd();
}

void
TcpLegilimens::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt)
{
    // Rust `on_ack`.
    m_tcb = tcb;
    Time now = Simulator::Now();
    if (m_deadline && *m_deadline <= now)
    {
        Expire(now);
    }
    m_mss = std::max<uint32_t>(tcb->m_segmentSize, 1);

    // Difference 3: unwrap the cumulative ACK; newly acknowledged bytes.
    SequenceNumber32 ack = tcb->m_lastAckedSeq;
    if (!m_haveAck)
    {
        m_haveAck = true;
        m_lastAckSeq = ack - static_cast<uint32_t>(uint64_t{segmentsAcked} * m_mss);
    }
    uint64_t acked = 0;
    if (ack > m_lastAckSeq)
    {
        acked = static_cast<uint32_t>(ack - m_lastAckSeq);
        m_lastAckSeq = ack;
    }
    m_ackSeq64 += acked;
    uint64_t inFlight = tcb->m_bytesInFlight.Get();
    uint64_t priorInFlight = inFlight + acked;
    m_flight = inFlight;
    // Difference 4: the newest covered segment's RTT and one-way delay (Karn), from our
    // own send times.
    std::optional<Time> rttSample;
    std::optional<int64_t> owdMs;
    if (m_socket)
    {
        std::optional<SentSegment> newest;
        while (!m_sent.empty() && m_sent.front().end <= m_ackSeq64)
        {
            newest = m_sent.front();
            m_sent.pop_front();
        }
        if (newest && !newest->retx)
        {
            rttSample = now - newest->sent;
            auto sentMs = static_cast<uint32_t>(newest->sent.GetMilliSeconds());
            owdMs = static_cast<int32_t>(tcb->m_rcvTimestampValue - sentMs);
            if (!m_minOwdMs || *owdMs < *m_minOwdMs)
            {
                m_minOwdMs = owdMs;
            }
            // The return path (uplink, core): RTT − one-way delay, whole ms.
            int64_t back = rttSample->GetMilliSeconds() - *owdMs;
            m_returnSumMs += back;
            ++m_returnCount;
            m_returnMaxMs = std::max(m_returnMaxMs, back);
            if (m_ownMinRtt.IsZero() || *rttSample < m_ownMinRtt)
            {
                m_ownMinRtt = *rttSample;
            }
            // Difference 4: the smoothed RTT of unqueued segments stands for the min RTT.
            if (*owdMs - *m_minOwdMs < kQueueDelayMinMs)
            {
                m_srtt = m_srtt.IsZero() ? *rttSample : (m_srtt * 7 + *rttSample) / 8;
            }
        }
        m_minRtt = m_srtt.IsZero() ? m_ownMinRtt : m_srtt;
    }
    else
    {
        m_minRtt = tcb->m_minRtt == Time::Max() ? Time(0) : tcb->m_minRtt;
        if (acked > 0 && tcb->m_lastRtt.Get().IsStrictlyPositive())
        {
            rttSample = tcb->m_lastRtt.Get();
        }
    }

    if (m_burstHold && acked > 0)
    {
        // The retransmission's ACK after a timeout: the GAP I burst and its wait start now.
        m_burstHold = false;
        SetDeadline(now + m_wait);
    }
    if (owdMs)
    {
        m_qdelayMs = *owdMs - *m_minOwdMs; // difference 4: downlink only
    }
    else if (rttSample)
    {
        // Rust: (rtt − min_rtt) / MS, floored.
        Time q = *rttSample > m_minRtt ? *rttSample - m_minRtt : Time(0);
        m_qdelayMs = q.GetMilliSeconds();
    }
    NS_LOG_INFO(this << " ack " << m_ackSeq64 << " +" << acked << " tsval "
                      << tcb->m_rcvTimestampValue << " tsecr " << tcb->m_rcvTimestampEchoReply
                      << " flight " << inFlight << " rtt "
                      << (rttSample ? rttSample->GetMilliSeconds() : -1) << " owd " << (owdMs ? *owdMs : -1)
                      << " minrtt "
                      << m_minRtt.GetMilliSeconds());
    bool count = QueueBacked(priorInFlight);
    if (!m_est)
    {
        // The receiver acknowledges every second segment (ns-3's DelAckCount = 2).
        m_est.emplace(m_lambda, m_ackSeq64 - acked);
        m_est->SetDelayedAcks(m_mss);
    }
    auto sample = m_est->Observe(m_ackSeq64,
                                 tcb->m_rcvTimestampValue,
                                 tcb->m_rcvTimestampEchoReply,
                                 count);
    if (sample && sample->counted)
    {
        ++m_countedSlots;
    }
    if (sample && sample->gap)
    {
        NS_LOG_LOGIC(this << " gap: tsval " << tcb->m_rcvTimestampValue << " tsecr "
                          << tcb->m_rcvTimestampEchoReply << " duration " << sample->duration
                          << " rate " << sample->rate << " counted " << sample->counted
                          << " capacity " << m_est->GetCapacity() << " qdelay " << m_qdelayMs
                          << " prior " << priorInFlight << " mode " << m_mode.Get());
    }
    m_est->NoteFlight(inFlight, m_mss);
    bool busy = sample && sample->busy;
    if (inFlight == 0)
    {
        // The sender left the link idle: the next gap is not the scheduler's.
        busy = m_est->Restart() || busy;
    }
    if (busy)
    {
        NS_LOG_DEBUG(this << " busy: tsval " << tcb->m_rcvTimestampValue << " capacity "
                          << m_est->GetCapacity());
        ++m_busyVerdicts;
        OnBusy(now);
        ApplyCwnd();
        HoldTimer(now);
        return;
    }
    if (m_mode.Get() == NORMAL && now >= m_normalSince + m_wait * kBackoffResetWaits)
    {
        m_backoffExp = 0; // NORMAL held without busyness: reset k
    }
    if (m_mode.Get() == NORMAL)
    {
        bool slowStart = m_cwnd < m_ssthresh;
        bool inRecovery = tcb->m_congState.Get() == TcpSocketState::CA_RECOVERY;
        // Rust `is_cwnd_limited` (Linux tcp_is_cwnd_limited).
        bool limited = slowStart ? m_cwnd < 2 * priorInFlight : priorInFlight + m_mss > m_cwnd;
        if (acked > 0 && !inRecovery && limited)
        {
            // Rust `reno_cong_avoid`.
            uint64_t left = acked;
            bool done = false;
            if (m_cwnd < m_ssthresh)
            {
                uint64_t used = std::min(left, m_ssthresh - m_cwnd);
                m_cwnd += used;
                left -= used;
                done = left == 0;
            }
            if (!done)
            {
                m_caAcked += left;
                if (m_caAcked >= m_cwnd)
                {
                    uint64_t segs = m_caAcked / m_cwnd;
                    m_caAcked -= segs * m_cwnd;
                    m_cwnd += segs * m_mss;
                }
            }
        }
        m_cwnd = std::min(m_cwnd, CwndCap());
    }
    else
    {
        ApplyCwnd();
        HoldTimer(now);
    }
}

Ptr<TcpSocketState>
LegilimensTestTcb(uint32_t segmentSize, uint32_t initialCwnd)
{
    Ptr<TcpSocketState> tcb = CreateObject<TcpSocketState>();
    tcb->m_segmentSize = segmentSize;
    tcb->m_initialCWnd = initialCwnd;
    tcb->m_cWnd = initialCwnd * segmentSize;
    return tcb;
}

void
LegilimensFeedAck(Ptr<TcpLegilimens> cc,
                  Ptr<TcpSocketState> tcb,
                  uint32_t ack,
                  uint32_t tsval,
                  uint32_t tsecr,
                  uint32_t bytesInFlight,
                  uint32_t segmentsAcked)
{
    tcb->m_lastAckedSeq = SequenceNumber32(ack);
    tcb->m_rcvTimestampValue = tsval;
    tcb->m_rcvTimestampEchoReply = tsecr;
    tcb->m_bytesInFlight = bytesInFlight;
    cc->PktsAcked(tcb, segmentsAcked, tcb->m_srtt.Get());
    if (tcb->m_congState.Get() == TcpSocketState::CA_OPEN)
    {
        cc->IncreaseWindow(tcb, segmentsAcked);
    }
}

} // namespace ns3
