/* LEDBAT (RFC 6817 [ledbat]) over TCP as a Linux congestion control in eBPF (struct_ops). This kernel
 * has no LEDBAT module. The same controller as the simulator's
 * crates/transport/src/cc/ledbat.rs with its defaults:
 *   queuing_delay = MIN(last CURRENT_FILTER OWD samples) − MIN(BASE_HISTORY minute buckets)
 *   off_target    = (TARGET − queuing_delay) / TARGET
 *   cwnd         += GAIN · off_target · acked / cwnd        (GAIN = 1, in segments)
 *   cwnd          = min(cwnd, flight + ALLOWED_INCREASE), cwnd ≥ MIN_CWND
 * The OWD is TSval − TSecr of each ACK that acknowledges new data (receiver clock minus the
 * echoed sender clock, ms; the constant clock offset cancels), kept relative to the first
 * sample. NewReno slow start until the queuing delay exceeds TARGET/2, a loss, or ssthresh;
 * it resumes after a timeout. Loss: cwnd = max(cwnd/2, MIN_CWND) (the kernel's PRR brings the
 * window down to it). Fractions of a segment accumulate in snd_cwnd_cnt-like fixed point. */
#include "cs_tcp.h"

char _license[] SEC("license") = CS_LICENSE;

#define TARGET_MS 100
#define BASE_HISTORY 10
#define BASE_INTERVAL_US 60000000ull
#define CURRENT_FILTER 4
#define ALLOWED_INCREASE 1
#define MIN_CWND 2
#define FRAC 1024  /* fixed-point unit of the window accumulator */
#define OWD_BIAS 0x40000000u

struct ledbat {
	u32 base[BASE_HISTORY];   /* per-interval minimum OWD (biased ms); 0 = empty */
	u32 cur[CURRENT_FILTER];  /* last OWD samples (biased ms); 0 = empty */
	u64 rollover_us;          /* start of the newest base bucket */
	s32 acc;                  /* window accumulator in 1/FRAC segments */
	u32 first;                /* TSval − TSecr of the first sample */
	u8 base_i, cur_i, have_first, slow_start;
};

SEC("struct_ops")
void BPF_PROG(ledbat_init, struct sock *sk)
{
	struct ledbat *l = cs_priv(sk);

	__builtin_memset(l, 0, sizeof(*l));
	l->slow_start = 1;
}

static __always_inline u32 min_nonzero4(const u32 *v)
{
	u32 m = 0xffffffffu;

#pragma unroll
	for (int i = 0; i < CURRENT_FILTER; i++)
		if (v[i] && v[i] < m)
			m = v[i];
	return m;
}

SEC("struct_ops")
void BPF_PROG(ledbat_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	struct ledbat *l = cs_priv(sk);
	struct tcp_sock *tp = cs_tcp_sk(sk);
	u64 now = bpf_ktime_get_ns() / 1000;
	u32 raw, owd, base = 0xffffffffu, current, qd, cwnd = tp->snd_cwnd, bi, ci;

	if (!acked)
		return;
	/* Delay sample (RFC 6817 §2.4.2 "on acknowledgement"). */
	raw = tp->rx_opt.rcv_tsval - tp->rx_opt.rcv_tsecr;
	if (!l->have_first) {
		l->first = raw;
		l->have_first = 1;
		l->rollover_us = now;
		l->base[0] = OWD_BIAS;
	}
	owd = OWD_BIAS + (raw - l->first);
	/* Indices stay constants for the verifier: unrolled loops pick the slot. */
	bi = l->base_i;
	if (now - l->rollover_us >= BASE_INTERVAL_US) {
		/* A new minute bucket (idle periods evict at most one bucket). */
		l->rollover_us = now;
		bi = bi + 1 >= BASE_HISTORY ? 0 : bi + 1;
		l->base_i = bi;
#pragma unroll
		for (int i = 0; i < BASE_HISTORY; i++)
			if (i == bi)
				l->base[i] = owd;
	} else {
#pragma unroll
		for (int i = 0; i < BASE_HISTORY; i++)
			if (i == bi && (!l->base[i] || owd < l->base[i]))
				l->base[i] = owd;
	}
	ci = l->cur_i;
#pragma unroll
	for (int i = 0; i < CURRENT_FILTER; i++)
		if (i == ci)
			l->cur[i] = owd;
	l->cur_i = ci + 1 >= CURRENT_FILTER ? 0 : ci + 1;
#pragma unroll
	for (int i = 0; i < BASE_HISTORY; i++)
		if (l->base[i] && l->base[i] < base)
			base = l->base[i];
	current = min_nonzero4(l->cur);
	qd = current > base ? current - base : 0;

	if (l->slow_start) {
		if (qd > TARGET_MS / 2) {
			l->slow_start = 0;
			tp->snd_ssthresh = cwnd;
		} else if (cwnd < tp->snd_ssthresh) {
			if (cs_cwnd_limited(tp))
				tp->snd_cwnd = cs_min(cwnd + acked, tp->snd_ssthresh);
			return;
		} else {
			l->slow_start = 0;
		}
	}
	/* GAIN · off_target · acked / cwnd, in 1/FRAC segments. */
	/* Unsigned arithmetic on the magnitude (BPF has no signed division). */
	qd = cs_min(qd, 10 * TARGET_MS);
	{
		u32 mag = (qd <= TARGET_MS ? TARGET_MS - qd : qd - TARGET_MS) * FRAC / TARGET_MS * acked /
			  cs_max(cwnd, 1);

		l->acc += qd <= TARGET_MS ? (s32)mag : -(s32)mag;
	}
	if (l->acc >= FRAC) {
		u32 inc = (u32)l->acc / FRAC;

		l->acc -= (s32)(inc * FRAC);
		cwnd += inc;
	} else if (l->acc <= -FRAC) {
		u32 dec = (u32)(-l->acc) / FRAC;

		l->acc += (s32)(dec * FRAC);
		cwnd = cwnd > dec ? cwnd - dec : 0;
	}
	cwnd = cs_min(cwnd, cs_in_flight(tp) + acked + ALLOWED_INCREASE);
	tp->snd_cwnd = cs_max(cwnd, MIN_CWND);
}

SEC("struct_ops")
u32 BPF_PROG(ledbat_ssthresh, struct sock *sk)
{
	struct ledbat *l = cs_priv(sk);

	/* A loss ends slow start; the window is halved (RFC 6817 §2.4.2). */
	l->slow_start = 0;
	return cs_max(cs_tcp_sk(sk)->snd_cwnd / 2, MIN_CWND);
}

SEC("struct_ops")
void BPF_PROG(ledbat_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct ledbat *l = cs_priv(sk);

	if (ev == CA_EVENT_LOSS) {
		/* Retransmission timeout: slow start again (ssthresh = max(flight/2, 2)). */
		l->slow_start = 1;
		l->acc = 0;
	}
}

SEC("struct_ops")
u32 BPF_PROG(ledbat_undo_cwnd, struct sock *sk)
{
	return cs_tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops ledbat = {
	.init = (void *)ledbat_init,
	.cong_avoid = (void *)ledbat_cong_avoid,
	.ssthresh = (void *)ledbat_ssthresh,
	.cwnd_event = (void *)ledbat_cwnd_event,
	.undo_cwnd = (void *)ledbat_undo_cwnd,
	.name = "ledbat",
};
