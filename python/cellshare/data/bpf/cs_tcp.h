/* Shared helpers of cellshare's eBPF TCP congestion controls (struct_ops tcp_congestion_ops).
 * Built against vmlinux.h of the running kernel (`bpftool btf dump file /sys/kernel/btf/vmlinux
 * format c`); field accesses carry CO-RE relocations, resolved by libbpf at load time. */
#ifndef CS_TCP_H
#define CS_TCP_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define CS_LICENSE "Dual MIT/GPL"

/* The struct_ops arguments are `struct sock *`; the kernel promotes them to tcp_sock. */
static __always_inline struct tcp_sock *cs_tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct inet_connection_sock *cs_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

/* The congestion control's private area (icsk_ca_priv, 104 bytes). */
static __always_inline void *cs_priv(const struct sock *sk)
{
	return (void *)cs_csk(sk)->icsk_ca_priv;
}

/* Segments in flight, as tcp_packets_in_flight(). */
static __always_inline u32 cs_in_flight(const struct tcp_sock *tp)
{
	u32 left = tp->packets_out - (tp->sacked_out + tp->lost_out);

	if (left > tp->packets_out)
		left = 0;
	return left + tp->retrans_out;
}

/* The windowed minimum RTT in microseconds (tcp_min_rtt()); ~0U before the first sample. */
static __always_inline u32 cs_min_rtt_us(const struct tcp_sock *tp)
{
	return tp->rtt_min.s[0].v;
}

/* Smoothed RTT in microseconds (srtt_us holds it << 3). */
static __always_inline u32 cs_srtt_us(const struct tcp_sock *tp)
{
	return tp->srtt_us >> 3;
}

static __always_inline u32 cs_max(u32 a, u32 b) { return a > b ? a : b; }
static __always_inline u32 cs_min(u32 a, u32 b) { return a < b ? a : b; }

/* Wrapping sequence / timestamp comparison: a − b as a signed 32-bit difference. */
static __always_inline s32 cs_diff(u32 a, u32 b) { return (s32)(a - b); }

/* Whether the flow used its window (tcp_is_cwnd_limited): growth only when it did. */
static __always_inline bool cs_cwnd_limited(const struct tcp_sock *tp)
{
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return tp->is_cwnd_limited;
}

/* Reno growth in segments: slow start below ssthresh, then +1 segment per window
 * (RFC 5681, Linux tcp_slow_start + tcp_cong_avoid_ai). */
static __always_inline void cs_reno_grow(struct tcp_sock *tp, u32 acked)
{
	u32 cwnd = tp->snd_cwnd;

	if (cwnd < tp->snd_ssthresh) {
		u32 ss = cwnd + acked;

		if (ss > tp->snd_ssthresh)
			ss = tp->snd_ssthresh;
		acked -= ss - cwnd;
		cwnd = ss;
		if (!acked) {
			tp->snd_cwnd = cwnd;
			return;
		}
	}
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= cwnd) {
		u32 inc = tp->snd_cwnd_cnt / (cwnd ? cwnd : 1);

		tp->snd_cwnd_cnt -= inc * cwnd;
		cwnd += inc;
	}
	tp->snd_cwnd = cwnd;
}

#endif
