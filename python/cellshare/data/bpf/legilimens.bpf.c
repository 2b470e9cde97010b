/* Legilimens [legilimens] as a Linux TCP congestion control in eBPF (struct_ops).
 *
 * The same controller as the simulator's crates/transport/src/cc/legilimens.rs (standard
 * variant, Table I parameters): Algorithm 1 reconstructs the eNodeB's per-TTI schedule of
 * our receiver from the receiver's TCP timestamps — every ACK gives (cumulative ACK, TSval,
 * TSecr), read from tcp_sock.snd_una and tcp_sock.rx_opt.rcv_tsval / rcv_tsecr in the
 * cong_control hook, which the kernel calls once per ACK — and the mode machine of Figure 6
 * (GAP I/II/III probe bursts of M, 2M, 4M bytes each followed by a wait T, exponential random
 * back-off T·U{1..2^k}, NORMAL = Reno AIMD capped at 80 % of the estimated capacity). The
 * simulator's documented choices carry over:
 *   - capacity initialised by the first evaluated slot as max(rate, bytes / 2) (a slot is
 *     one TTI's worth, two with a batching receiver) and that slot's gap judged against
 *     it; capacity a running maximum across gaps, an EWMA (1/5) without; a back-to-back
 *     slot that is not counted still raises (never lowers) the capacity when its rate
 *     exceeds it, by at most 1.5× (a larger slot is several TTIs' bytes at once);
 *   - busy after a gap when the rate is below λ·capacity; after a slot of at most 2 MSS only
 *     if the rate stays below even crediting the delayed-ACK withheld bytes (< 2 MSS, at
 *     most what the closing ACK acknowledges);
 *   - late delivery: a gap closed by a slot of more than 1.5 TTIs' worth is not busy (once
 *     the capacity has been measured, i.e. updated at least once), so a gap's verdict
 *     becomes final when the slot after it closes; the capacity EWMA clips each rate at
 *     1.5·capacity;
 *   - gaps the sender caused are not counted: the open slot is dropped when an ACK leaves
 *     nothing in flight, a gap whose new data was sent ≥ duration − 1 ms after the previous
 *     slot's data (TSecr) is the sender's unless the ACK's queueing delay (RTT sample − min
 *     RTT) shows the data waited through the gap (≥ max(duration − 1, 2) ms), and so is one
 *     after a lone-segment tail (< 2 MSS in flight, held by the receiver's delayed-ACK timer);
 *   - back-off exponent k counts busy verdicts in GAP I, capped at 3, and resets only on
 *     success (NORMAL held for 2·T without busyness), not on passing GAP I: a UE idle for T
 *     is served alone for tens of TTIs under PF, so GAP I rarely sees the competitor;
 *   - NORMAL starts from the initial window (10 segments) with ssthresh kept; loss: Reno
 *     halving in NORMAL; timeout: GAP I once the retransmission is acknowledged.
 * Two choices differ from the simulator's: NORMAL is also paced at 80 % of the estimate
 * (sk_pacing_rate; measured on the emulator's 20 Mbit/s cell, unpaced window-capped NORMAL
 * used only 53–65 % of the idle cell against 89–96 % paced), and in NORMAL a verdict counts
 * only when the flight before the ACK exceeds one BDP (capacity · min_rtt) by two TTIs of
 * capacity (our data is queued at the eNodeB) instead of the simulator's per-segment
 * queueing delay — or, in congestion avoidance after a loss, when the ACK's queueing delay is
 * at least 2 ms (a halved window is below a BDP; the flight test alone would leave the
 * program blind until the window had grown back, as the simulator's half-BDP test did on a
 * lossy fading channel).
 * One difference forced by the kernel changes what is sent: the kernel has no CC timer and
 * always lets one segment out with an empty pipe, so while waiting (GAP wait, back-off) the
 * flow keeps one segment in flight, which also brings the ACKs that check the deadline. The
 * simulated sender pauses instead (CongestionControl::paused): one segment per RTT is nothing
 * for the emulator's few flows, but 100 waiting flows at a 50-70 ms RTT send 17-23 Mbit/s
 * that way (measured in the simulator's legilimens-at-scale before it paused: 24 Mbit/s).
 * Differences forced by the kernel that change no decision: the burst is tracked as
 * a sequence number (burst ends at snd_nxt + size) instead of counting sent bytes; windows are
 * in segments; time is the monotonic clock in µs; arithmetic is fixed point (capacity in
 * bytes per ms << 8); the back-off draws come from bpf_get_prandom_u32(); wait deadlines are
 * checked on every ACK and transmit-start event. */
#include "cs_tcp.h"

char _license[] SEC("license") = CS_LICENSE;

/* Table I: λ = 1/2 (as LAMBDA_NUM/LAMBDA_DEN), M = 50 KB, T = 250 ms; [Th]: 80 % cap. */
#define LAMBDA_NUM 1
#define LAMBDA_DEN 2
#define BURST_BYTES 51200u
#define WAIT_US 250000ull
#define CAP_PCT 80ull
#define MAX_BACKOFF_EXP 3            /* the simulator's default max_backoff_exp */
#define BACKOFF_RESET_WAITS 2ull      /* NORMAL held this many T resets k (simulator's constant) */
#define INIT_CWND 10u
#define CAP_SHIFT 8
#define QUEUE_MARGIN_TTIS 2ull
#define QUEUE_DELAY_MIN_MS 2u         /* the simulator's QUEUE_DELAY_MIN_MS */

enum { NORMAL = 0, GAP1 = 1, GAP2 = 2, GAP3 = 3, BACKOFF = 4 };

#define F_CUR 1u       /* an open slot exists */
#define F_LONE 2u      /* the open slot ended with a lone segment in flight */
#define F_HOLD 8u      /* after a timeout: wait for the retransmission's ACK */
#define F_MEAS 16u     /* the capacity has been measured (updated), not only initialised */
#define F_RECOV 32u    /* NORMAL window already cut for the current recovery */
#define F_AGAP 64u     /* the open slot followed a gap */
#define F_PEND 128u    /* the gap before the open slot was judged busy, pending its size */
#define F_SLOT (F_CUR | F_LONE | F_AGAP | F_PEND)  /* the open slot's state */

struct legi {
	u64 cap;          /* capacity, bytes per ms << CAP_SHIFT; 0 = unknown */
	u64 deadline_us;  /* end of the GAP wait or back-off; 0 = none */
	u64 normal_since_us; /* when NORMAL was entered */
	u32 s0;           /* cumulative ACK of the previous ACK */
	u32 cur_t;        /* open slot: TSval */
	u32 cur_n;        /* open slot: bytes */
	u32 cur_ecr;      /* open slot: TSecr of its last ACK */
	u32 burst_end;    /* sequence number where the current GAP burst ends */
	u32 flags;
	u32 mode;
	u32 backoff_exp;
	u32 ca_state;
	u32 qdelay_ms;    /* queueing delay of the last RTT-sampled ACK, ms (rtt − min RTT) */
};

static __always_inline u64 now_us(void)
{
	return bpf_ktime_get_ns() / 1000;
}

static __always_inline u32 burst_size(u32 mode)
{
	return mode == GAP1 ? BURST_BYTES : mode == GAP2 ? 2 * BURST_BYTES : mode == GAP3 ? 4 * BURST_BYTES : 0;
}

/* NORMAL window cap in segments: 0.8 · capacity · srtt (at least 2 segments). */
static __always_inline u32 cwnd_cap(const struct legi *l, const struct tcp_sock *tp)
{
	u32 srtt = cs_srtt_us(tp), mss = cs_max(tp->mss_cache, 1);
	u64 bytes;

	if (!l->cap || !srtt)
		return 0xffffffffu;
	bytes = (l->cap * CAP_PCT / 100) * srtt / 1000 >> CAP_SHIFT;
	return cs_max((u32)(bytes / mss), 2);
}

static __always_inline void enter(struct legi *l, struct tcp_sock *tp, u32 mode, u64 now)
{
	l->mode = mode;
	l->flags &= ~F_HOLD;
	if (mode == GAP1 || mode == GAP2 || mode == GAP3) {
		l->burst_end = tp->snd_nxt + burst_size(mode);
		l->deadline_us = now + WAIT_US;
	} else if (mode == BACKOFF) {
		u32 k = l->backoff_exp + 1, slots;

		if (k > MAX_BACKOFF_EXP)
			k = MAX_BACKOFF_EXP;
		l->backoff_exp = k;
		slots = 1 + bpf_get_prandom_u32() % (1u << k);
		l->burst_end = tp->snd_nxt;
		l->deadline_us = now + WAIT_US * slots;
	} else {
		/* "Like after a timeout": restart from the initial window and slow-start. */
		l->burst_end = tp->snd_nxt;
		l->deadline_us = 0;
		l->normal_since_us = now;
		tp->snd_cwnd = cs_min(INIT_CWND, cwnd_cap(l, tp));
		tp->snd_cwnd_cnt = 0;
	}
}

static __always_inline void on_busy(struct legi *l, struct tcp_sock *tp, u64 now)
{
	if (l->mode == BACKOFF)
		return;
	enter(l, tp, l->mode == GAP1 ? BACKOFF : GAP1, now);
}

static __always_inline void expire(struct legi *l, struct tcp_sock *tp, u64 now)
{
	switch (l->mode) {
	case GAP1:
		enter(l, tp, GAP2, now);
		break;
	case GAP2:
		enter(l, tp, GAP3, now);
		break;
	case GAP3:
		enter(l, tp, NORMAL, now);
		break;
	case BACKOFF:
		enter(l, tp, GAP1, now);
		break;
	default:
		l->deadline_us = 0;
	}
}

/* The window outside NORMAL: what is in flight plus the rest of the burst (at least 1). */
static __always_inline void set_probe_cwnd(struct legi *l, struct tcp_sock *tp)
{
	u32 mss = cs_max(tp->mss_cache, 1), left = 0;

	if (l->mode == NORMAL)
		return;
	if (!(l->flags & F_HOLD) && cs_diff(l->burst_end, tp->snd_nxt) > 0)
		left = (l->burst_end - tp->snd_nxt + mss - 1) / mss;
	tp->snd_cwnd = cs_max(cs_in_flight(tp) + left, 1);
}

static __always_inline void set_pacing(struct legi *l, struct sock *sk)
{
	if (l->mode == NORMAL && l->cap)
		sk->sk_pacing_rate = (l->cap * CAP_PCT / 100) * 1000 >> CAP_SHIFT;
	else
		sk->sk_pacing_rate = ~0UL;
}

/* The final verdict on the gap before the complete open slot of n bytes: busy unless the
 * slot is a late delivery — it followed a gap and carries more than 1.5 TTIs' worth at the
 * measured capacity (n·2 > 3·cap), the gap's bytes delivered late rather than a
 * competitor's TTIs (the simulator's LATE_DELIVERY_TTIS). The initial capacity is a lower
 * bound (half the first slot), against which every full TTI would look late. */
static __always_inline bool final_verdict(const struct legi *l, u32 n)
{
	bool late = (l->flags & F_AGAP) && (l->flags & F_MEAS) && ((u64)n << CAP_SHIFT) * 2 > 3 * l->cap;

	return (l->flags & F_PEND) && !late;
}

/* Lines 15 and 19: cap ← 4/5·cap + 1/5·rate, the rate clipped at 1.5·cap (an outlier:
 * late delivery, or the cumulative ACK jumping over a repaired loss). */
static __always_inline void update_cap(struct legi *l, u64 rate)
{
	u64 top = l->cap * 3 / 2;

	l->cap = (4 * l->cap + (rate < top ? rate : top)) / 5;
	l->flags |= F_MEAS;
}

/* Algorithm 1 for one ACK (s: cumulative ACK, t: TSval, ecr: TSecr). Returns 1 when a
 * verdict became final that the cell was busy: a gap's verdict waits for the size of the
 * slot that ends it (late delivery), so it is returned when that slot closes, or by the
 * caller when the flight drains. */
static __always_inline int observe(struct legi *l, u32 s, u32 t, u32 ecr, bool count, u32 mss)
{
	u32 bytes = cs_diff(s, l->s0) > 0 ? s - l->s0 : 0;
	u32 pn, pt, pecr, dur;
	bool lone, gap, sender_gap, resolved;
	u64 rate;

	if (cs_diff(s, l->s0) > 0)
		l->s0 = s;
	if (!(l->flags & F_CUR)) {
		l->flags = (l->flags & ~F_SLOT) | F_CUR;
		l->cur_t = t;
		l->cur_n = bytes;
		l->cur_ecr = ecr;
		return 0;
	}
	if (cs_diff(t, l->cur_t) <= 0) {
		/* Line 22: same (or older) TSval: accumulate into the open slot. */
		l->cur_n += bytes;
		l->cur_ecr = ecr;
		return 0;
	}
	pn = l->cur_n;
	pt = l->cur_t;
	pecr = l->cur_ecr;
	lone = l->flags & F_LONE;
	resolved = final_verdict(l, pn);
	l->cur_t = t;
	l->cur_n = bytes;
	l->cur_ecr = ecr;
	dur = t - pt;
	gap = dur > 1;
	l->flags &= ~(F_LONE | F_PEND | F_AGAP);
	if (gap)
		l->flags |= F_AGAP;
	/* ... unless the data waited through the gap: queueing delay ≥ max(dur − 1, 2) ms (an
	 * ACK-clocked or paced sender's send times repeat its delivery gaps). */
	sender_gap = gap && (lone || (cs_diff(ecr, pecr) >= 0 && (u32)(ecr - pecr) >= dur - 1 &&
				      l->qdelay_ms < cs_max(dur - 1, QUEUE_DELAY_MIN_MS)));
	rate = ((u64)pn << CAP_SHIFT) / dur;
	if (!count || sender_gap) {
		/* Not evidence of busyness, but back-to-back bytes are a TTI's worth we did get:
		 * a rate above the estimate raises it (never lowers it), up to 1.5·cap: a larger
		 * slot is several TTIs' bytes at once, which would ratchet a raise-only EWMA. */
		if (!gap && l->cap && rate > l->cap && rate * 2 <= l->cap * 3)
			update_cap(l, rate);
		return resolved;
	}
	if (!l->cap) {
		u64 half = ((u64)pn << CAP_SHIFT) / 2;

		l->cap = rate > half ? rate : half;
		if (!l->cap)
			l->cap = 1;
	}
	if (gap) {
		u32 credit = pn <= 2 * mss ? cs_min(bytes, 2 * mss - 1) : 0;

		/* busy ⇔ (n + credit)/dur < λ·cap, final once the new slot's size is known */
		if (((u64)(pn + credit) << CAP_SHIFT) * LAMBDA_DEN < l->cap * LAMBDA_NUM * dur)
			l->flags |= F_PEND;
		if (rate > l->cap)
			update_cap(l, rate);
	} else {
		update_cap(l, rate);
	}
	return resolved;
}

SEC("struct_ops")
void BPF_PROG(legilimens_init, struct sock *sk)
{
	struct legi *l = cs_priv(sk);
	struct tcp_sock *tp = cs_tcp_sk(sk);

	__builtin_memset(l, 0, sizeof(*l));
	l->mode = GAP1;
	l->s0 = tp->snd_una;
	/* The first burst's wait T starts with its first segment (TX_START below). */
	l->burst_end = tp->snd_nxt + BURST_BYTES;
	sk->sk_pacing_status = SK_PACING_NEEDED;
	sk->sk_pacing_rate = ~0UL;
	set_probe_cwnd(l, tp);
}

SEC("struct_ops")
void BPF_PROG(legilimens_cong_control, struct sock *sk, u32 ack, int flag, const struct rate_sample *rs)
{
	struct legi *l = cs_priv(sk);
	struct tcp_sock *tp = cs_tcp_sk(sk);
	u64 now = now_us();
	u32 mss = cs_max(tp->mss_cache, 1);
	u32 in_flight = cs_in_flight(tp);
	u32 acked = tp->snd_una - l->s0;
	bool count = true;

	if (l->deadline_us && l->deadline_us <= now)
		expire(l, tp, now);
	if ((l->flags & F_HOLD) && cs_diff(tp->snd_una, l->s0) > 0) {
		/* The retransmission's ACK after a timeout: the GAP I burst and its wait start now. */
		l->flags &= ~F_HOLD;
		l->burst_end = tp->snd_nxt + BURST_BYTES;
		l->deadline_us = now + WAIT_US;
	}
	if (rs->rtt_us >= 0) {
		u32 min_rtt = cs_min_rtt_us(tp);

		if (min_rtt && min_rtt != ~0U)
			l->qdelay_ms = (u32)rs->rtt_us > min_rtt ? ((u32)rs->rtt_us - min_rtt) / 1000 : 0;
	}
	if (l->mode == NORMAL && l->cap) {
		u32 min_rtt = cs_min_rtt_us(tp);

		/* Queued at the eNodeB: a BDP plus two TTIs in flight, or, in congestion avoidance
		 * after a loss (a halved window, below a BDP but not ramping), a queueing delay of
		 * at least 2 ms (the simulator's queue gating). */
		if (min_rtt && min_rtt != ~0U)
			count = ((u64)rs->prior_in_flight * mss << CAP_SHIFT) * 1000 >=
				l->cap * (min_rtt + QUEUE_MARGIN_TTIS * 1000) ||
				(tp->snd_cwnd >= tp->snd_ssthresh && l->qdelay_ms >= QUEUE_DELAY_MIN_MS);
	}
	if (tp->rx_opt.saw_tstamp || tp->rx_opt.rcv_tsval) {
		int busy = observe(l, tp->snd_una, tp->rx_opt.rcv_tsval, tp->rx_opt.rcv_tsecr, count, mss);

		if (l->flags & F_CUR) {
			if (in_flight == 1)
				l->flags |= F_LONE;
			else
				l->flags &= ~F_LONE;
		}
		if (in_flight == 0) {
			/* The sender left the link idle: restart; the open slot is complete, so a
			 * verdict pending its size is final. */
			if (final_verdict(l, l->cur_n))
				busy = 1;
			l->flags &= ~F_SLOT;
		}
		if (busy) {
			on_busy(l, tp, now);
			goto out;
		}
	}
	if (l->mode == NORMAL && now >= l->normal_since_us + BACKOFF_RESET_WAITS * WAIT_US)
		l->backoff_exp = 0;  /* success, as in 802.11's contention window */
	if (l->mode == NORMAL) {
		if (l->ca_state >= TCP_CA_Recovery) {
			/* Reno halving, once per recovery episode. */
			if (!(l->flags & F_RECOV)) {
				tp->snd_cwnd = cs_max(tp->snd_ssthresh, 2);
				l->flags |= F_RECOV;
			}
		} else {
			l->flags &= ~F_RECOV;
			if (acked && cs_cwnd_limited(tp))
				cs_reno_grow(tp, (acked + mss - 1) / mss);
		}
		tp->snd_cwnd = cs_max(cs_min(tp->snd_cwnd, cwnd_cap(l, tp)), 1);
	}
out:
	set_probe_cwnd(l, tp);
	set_pacing(l, sk);
}

SEC("struct_ops")
u32 BPF_PROG(legilimens_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = cs_tcp_sk(sk);

	return cs_max(cs_in_flight(tp) / 2, 2);
}

SEC("struct_ops")
void BPF_PROG(legilimens_set_state, struct sock *sk, u8 new_state)
{
	struct legi *l = cs_priv(sk);

	l->ca_state = new_state;
}

SEC("struct_ops")
void BPF_PROG(legilimens_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct legi *l = cs_priv(sk);
	struct tcp_sock *tp = cs_tcp_sk(sk);
	u64 now = now_us();

	if (ev == CA_EVENT_TX_START) {
		if (l->deadline_us && l->deadline_us <= now)
			expire(l, tp, now);
		/* The flow's first burst: its wait starts with its first segment. */
		if (!l->deadline_us && l->mode != NORMAL && !(l->flags & F_HOLD))
			l->deadline_us = now + WAIT_US;
		set_probe_cwnd(l, tp);
		set_pacing(l, sk);
	} else if (ev == CA_EVENT_LOSS) {
		/* Retransmission timeout: 1 segment, GAP I once the retransmission is ACKed. */
		l->mode = GAP1;
		l->flags = (l->flags | F_HOLD) & ~F_SLOT;
		l->deadline_us = 0;
		tp->snd_cwnd = 1;
		set_pacing(l, sk);
	}
}

SEC("struct_ops")
u32 BPF_PROG(legilimens_undo_cwnd, struct sock *sk)
{
	return cs_tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops legilimens = {
	.init = (void *)legilimens_init,
	.cong_control = (void *)legilimens_cong_control,
	.ssthresh = (void *)legilimens_ssthresh,
	.set_state = (void *)legilimens_set_state,
	.cwnd_event = (void *)legilimens_cwnd_event,
	.undo_cwnd = (void *)legilimens_undo_cwnd,
	.name = "legilimens",
};
