/* TCP-LP (Kuzmanovic & Knightly, INFOCOM 2003 [tcp-lp]) as a Linux congestion control in eBPF
 * (struct_ops); this kernel is built without tcp_lp. The same controller as the simulator's
 * crates/transport/src/cc/tcp_lp.rs (δ = 0.15, inference time-out 3·srtt), with its choices:
 *   - OWD sample = the ACK's TSval minus the send time of the newest segment it acknowledges
 *     (now − that segment's RTT sample, from pkts_acked), relative to the first sample; no
 *     sample without an RTT sample (Karn);
 *   - sowd = EWMA 1/8 (×8 fixed point, in µs); owd_min / owd_max over the connection's
 *     lifetime, the maximum confirmed by a second sample (reserve);
 *   - early congestion indication: sowd > owd_min + max(δ·(owd_max − owd_min), 2 ms), only on
 *     samples of segments sent after the last window reduction (one reaction per window; the
 *     first such sample replaces a higher sowd), and only once the range was measured (after a
 *     loss or timeout, or once δ·range ≥ min_rtt);
 *   - reaction: halve cwnd and start the inference phase; a second indication within it:
 *     cwnd = 1; no growth while it lasts; ssthresh = max(cwnd/2, 2) of the window before;
 *   - delayed-ACK filter: when ≥ 1/4 of the ACKs (EWMA 1/8, learnt while ≥ 2 segments were in
 *     flight) cover two or more segments, single-segment ACKs give no sample;
 *   - otherwise Reno (slow start, +1 segment per window, halving on loss via the kernel's PRR). */
#include "cs_tcp.h"

char _license[] SEC("license") = CS_LICENSE;

#define DELTA_PCT 15u
#define ITT_FACTOR 3ull
#define RESOLUTION_US 2000u
#define OWD_BIAS 0x40000000u  /* samples are biased µs so they stay positive */
#define SHARE_ONE 256u        /* fixed point of the multi-segment ACK share */
#define SHARE_DELAYED 64u     /* 1/4 */

#define F_ORIGIN 1u
#define F_HAVE 2u     /* at least one OWD sample */
#define F_RSV 4u      /* owd_rsv is valid */
#define F_ARMED 8u
#define F_FRESH 16u   /* awaiting the first sample of a segment sent after a cut */

struct lp {
	u64 last_drop_us;  /* last early reduction; 0 = none */
	u64 last_cut_us;   /* last window reduction of any kind; 0 = none */
	u64 origin_sent_us;
	u32 origin_tsval;
	u32 sowd8;         /* smoothed OWD, biased µs × 8 */
	u32 owd_min, owd_max, owd_rsv;  /* biased µs */
	u32 share;         /* EWMA of "ACK covers ≥ 2 segments", × SHARE_ONE */
	s32 rtt_us;        /* RTT sample of the newest acknowledged segment (−1: none) */
	u32 flags;
};

SEC("struct_ops")
void BPF_PROG(lp_init, struct sock *sk)
{
	struct lp *l = cs_priv(sk);

	__builtin_memset(l, 0, sizeof(*l));
	l->rtt_us = -1;
}

SEC("struct_ops")
void BPF_PROG(lp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct lp *l = cs_priv(sk);

	l->rtt_us = sample->rtt_us;
}

static __always_inline void note_cut(struct lp *l, u64 now)
{
	l->last_cut_us = now ? now : 1;
	l->flags |= F_FRESH;
}

SEC("struct_ops")
void BPF_PROG(lp_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	struct lp *l = cs_priv(sk);
	struct tcp_sock *tp = cs_tcp_sk(sk);
	u64 now = bpf_ktime_get_ns() / 1000, sent, itt;
	u32 in_flight = cs_in_flight(tp), min_rtt = cs_min_rtt_us(tp), thr, range;
	bool multi = acked >= 2, current = false, within, early;
	s32 rtt = l->rtt_us;

	l->rtt_us = -1;
	if (!acked)
		return;
	if (in_flight + acked >= 2) {
		u32 x = multi ? SHARE_ONE : 0;

		l->share = x >= l->share ? l->share + (x - l->share) / 8 : l->share - (l->share - x) / 8;
	}
	if ((multi || l->share < SHARE_DELAYED) && rtt >= 0 && (u64)rtt < now) {
		u32 owd;

		sent = now - (u64)rtt;
		if (!(l->flags & F_ORIGIN)) {
			l->origin_tsval = tp->rx_opt.rcv_tsval;
			l->origin_sent_us = sent;
			l->flags |= F_ORIGIN;
		}
		/* receiver ms since origin − sender µs since origin, in biased µs */
		owd = OWD_BIAS + (tp->rx_opt.rcv_tsval - l->origin_tsval) * 1000 - (u32)(sent - l->origin_sent_us);
		current = !l->last_cut_us || sent >= l->last_cut_us;
		if (!(l->flags & F_HAVE)) {
			l->owd_min = l->owd_max = owd;
			l->sowd8 = owd * 8;
			l->flags |= F_HAVE;
		} else {
			bool fresh = current && (l->flags & F_FRESH);

			if (owd < l->owd_min)
				l->owd_min = owd;
			if (owd > l->owd_max) {
				if (!(l->flags & F_RSV) || owd > l->owd_rsv) {
					l->owd_max = (l->flags & F_RSV) ? l->owd_rsv : owd;
					l->owd_rsv = owd;
					l->flags |= F_RSV;
				} else {
					l->owd_max = owd;
				}
			}
			if (fresh && owd * 8 < l->sowd8)
				l->sowd8 = owd * 8;
			else
				l->sowd8 = l->sowd8 - l->sowd8 / 8 + owd;
		}
		if (current)
			l->flags &= ~F_FRESH;
	}
	itt = ITT_FACTOR * cs_srtt_us(tp);
	within = l->last_drop_us && now - l->last_drop_us < itt;
	range = l->owd_max - l->owd_min;
	if (!(l->flags & F_ARMED) && min_rtt && min_rtt != ~0U && range * DELTA_PCT / 100 >= min_rtt)
		l->flags |= F_ARMED;
	thr = l->owd_min + cs_max(range * DELTA_PCT / 100, RESOLUTION_US);
	early = (l->flags & F_ARMED) && current && l->owd_max > l->owd_min && l->sowd8 / 8 > thr;
	if (early) {
		u32 prior = tp->snd_cwnd;

		tp->snd_cwnd = within ? 1 : cs_max(prior / 2, 1);
		tp->snd_ssthresh = cs_max(prior / 2, 2);
		tp->snd_cwnd_cnt = 0;
		l->last_drop_us = now ? now : 1;
		note_cut(l, now);
		return;
	}
	if (within || !cs_cwnd_limited(tp))
		return;
	cs_reno_grow(tp, acked);
}

SEC("struct_ops")
u32 BPF_PROG(lp_ssthresh, struct sock *sk)
{
	struct lp *l = cs_priv(sk);

	/* Loss: Reno halving; the range is now measured (the queue reached the buffer). */
	l->flags |= F_ARMED;
	note_cut(l, bpf_ktime_get_ns() / 1000);
	return cs_max(cs_in_flight(cs_tcp_sk(sk)) / 2, 2);
}

SEC("struct_ops")
u32 BPF_PROG(lp_undo_cwnd, struct sock *sk)
{
	return cs_tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops tcp_lp = {
	.init = (void *)lp_init,
	.cong_avoid = (void *)lp_cong_avoid,
	.pkts_acked = (void *)lp_pkts_acked,
	.ssthresh = (void *)lp_ssthresh,
	.undo_cwnd = (void *)lp_undo_cwnd,
	.name = "tcp_lp",
};
