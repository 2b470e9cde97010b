/* TCP Westwood+ (Mascolo et al., Performance Evaluation 2004 [westwood]) as a Linux
 * congestion control in eBPF (struct_ops); this kernel is built without tcp_westwood. The
 * rules of Linux's net/ipv4/tcp_westwood.c and of the simulator's crates/transport/src/cc/westwood.rs:
 *   - bytes acknowledged per ACK (westwood_acked_count): snd_una's advance; a duplicate ACK
 *     counts one MSS, subtracted again from the next ACK that covers more than one MSS;
 *   - one bandwidth sample bk/Δ per window of max(RTT, 50 ms), RTT the newest sample
 *     (westwood_update_window), filtered by two cascaded 7/8 EWMAs (westwood_filter);
 *   - RTTmin the smallest RTT sample, restarted after a timeout (CA_EVENT_LOSS);
 *   - loss: ssthresh = max(BWE·RTTmin / MSS, 2) (the simulator's and ns-3's choice: at the
 *     loss, so PRR steers the flight towards it; Linux halves here), and when recovery
 *     completes cwnd = ssthresh = BWE·RTTmin again (CA_EVENT_COMPLETE_CWR, as Linux);
 *     timeout: the same ssthresh, cwnd = 1 (the kernel's loss window);
 *   - growth and undo: the kernel's Reno (tcp_reno_cong_avoid, tcp_reno_undo_cwnd kfuncs).
 * Estimates are integers: bytes per second and microseconds (Linux: bytes per jiffy). */
#include "cs_tcp.h"

char _license[] SEC("license") = CS_LICENSE;

extern void tcp_reno_cong_avoid(struct sock *sk, u32 ack, u32 acked) __ksym;
extern u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

#define RTT_MIN_WINDOW_US 50000ull  /* TCP_WESTWOOD_RTT_MIN = HZ/20 */
#define USEC 1000000ull

struct westwood {
	u64 win_start_us;  /* start of the sampling window (rtt_win_sx); 0 = no ACK yet */
	u64 bw_ns_est;     /* first filter stage, bytes per second */
	u64 bw_est;        /* BWE, bytes per second */
	u32 bk;            /* bytes acknowledged in the window */
	u32 accounted;     /* bytes credited to duplicate ACKs */
	u32 snd_una;       /* snd_una when the previous ACK was processed */
	u32 rtt_us;        /* newest RTT sample; 0 = none */
	u32 rtt_min_us;    /* RTTmin; 0 = take the next sample */
	u32 pad;
};

SEC("struct_ops")
void BPF_PROG(ww_init, struct sock *sk)
{
	struct westwood *w = cs_priv(sk);

	__builtin_memset(w, 0, sizeof(*w));
	w->snd_una = cs_tcp_sk(sk)->snd_una;
}

/* max(BWE·RTTmin / MSS, 2) segments (tcp_westwood_bw_rttmin). */
static __always_inline u32 bw_rttmin(const struct sock *sk)
{
	const struct westwood *w = cs_priv(sk);
	u32 mss = cs_tcp_sk(sk)->mss_cache;
	u64 bytes = w->bw_est * w->rtt_min_us / USEC;
	u64 segs = mss ? bytes / mss : 0;

	return segs > 2 ? (segs > 0xffffffffull ? 0xffffffffu : (u32)segs) : 2;
}

SEC("struct_ops")
void BPF_PROG(ww_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct westwood *w = cs_priv(sk);

	if (sample->rtt_us > 0)
		w->rtt_us = sample->rtt_us;
}

SEC("struct_ops")
void BPF_PROG(ww_in_ack_event, struct sock *sk, u32 flags)
{
	struct westwood *w = cs_priv(sk);
	struct tcp_sock *tp = cs_tcp_sk(sk);
	u64 now = bpf_ktime_get_ns() / 1000, delta, win;
	u32 mss = tp->mss_cache, cumul;

	/* westwood_update_window */
	if (!w->win_start_us) {
		w->win_start_us = now;
		w->snd_una = tp->snd_una;
	}
	delta = now - w->win_start_us;
	win = w->rtt_us > RTT_MIN_WINDOW_US ? w->rtt_us : RTT_MIN_WINDOW_US;
	if (w->rtt_us && delta > win) {
		u64 b = (u64)w->bk * USEC / delta;

		/* westwood_filter: the first sample fills both stages */
		if (!w->bw_ns_est && !w->bw_est) {
			w->bw_ns_est = b;
			w->bw_est = b;
		} else {
			w->bw_ns_est = (7 * w->bw_ns_est + b) >> 3;
			w->bw_est = (7 * w->bw_est + w->bw_ns_est) >> 3;
		}
		w->bk = 0;
		w->win_start_us = now;
	}
	/* westwood_acked_count */
	cumul = tp->snd_una - w->snd_una;
	if (!cumul) {
		w->accounted += mss;
		cumul = mss;
	}
	if (cumul > mss) {
		if (w->accounted >= cumul) {
			w->accounted -= cumul;
			cumul = 0;
		} else {
			cumul -= w->accounted;
			w->accounted = 0;
		}
	}
	w->snd_una = tp->snd_una;
	w->bk += cumul;
	/* update_rtt_min */
	if (w->rtt_us && (!w->rtt_min_us || w->rtt_us < w->rtt_min_us))
		w->rtt_min_us = w->rtt_us;
}

SEC("struct_ops")
void BPF_PROG(ww_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
u32 BPF_PROG(ww_ssthresh, struct sock *sk)
{
	return bw_rttmin(sk);
}

SEC("struct_ops")
void BPF_PROG(ww_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = cs_tcp_sk(sk);
	struct westwood *w = cs_priv(sk);

	if (ev == CA_EVENT_COMPLETE_CWR) {
		tp->snd_cwnd = bw_rttmin(sk);
		tp->snd_ssthresh = tp->snd_cwnd;
	} else if (ev == CA_EVENT_LOSS) {
		tp->snd_ssthresh = bw_rttmin(sk);
		w->rtt_min_us = 0; /* restart from the next sample */
	}
}

SEC("struct_ops")
u32 BPF_PROG(ww_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops westwood = {
	.init = (void *)ww_init,
	.ssthresh = (void *)ww_ssthresh,
	.cong_avoid = (void *)ww_cong_avoid,
	.undo_cwnd = (void *)ww_undo_cwnd,
	.cwnd_event = (void *)ww_cwnd_event,
	.in_ack_event = (void *)ww_in_ack_event,
	.pkts_acked = (void *)ww_pkts_acked,
	.name = "westwood",
};
