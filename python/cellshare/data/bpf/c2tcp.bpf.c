/* C2TCP (Abbasloo, Xu and Chao, IEEE JSAC 2019 [c2tcp]) as a Linux congestion control in eBPF
 * (struct_ops), on top of the kernel's own CUBIC: every hook calls tcp_cubic's (the cubictcp_*
 * kfuncs), whose state (struct bictcp) sits at the start of the private area, and C2TCP's
 * state follows it. The rules of the simulator's crates/transport/src/cc/c2tcp.rs (from the
 * authors' release, github.com/Soheil-ab/c2tcp):
 *   - per RTT sample (pkts_acked): Setpoint = Interval = α·minRTT;
 *     rtt ≤ Setpoint (good): the bad state clears, and snd_cwnd_cnt += Setpoint/rtt (an
 *       extra segment per cwnd of it; integer, as the reference's snd_cwnd_cnt), only in the
 *       Open state and while the window limits the sender;
 *     rtt > Setpoint (bad): the first such sample arms now + Interval; a sample after the
 *       deadline cuts — ssthresh = CUBIC's (cubictcp_recalc_ssthresh), cwnd = 1 (outside the
 *       Open/Disorder states only ssthresh: PRR sets the window) — and the next deadline is
 *       now + Interval/√n for the n-th cut in a row (CoDel's control law);
 *   - the Tuner, every TUNING_PERIOD: α = T/minRTT scaled by the mean RTT sample of the
 *     period: ·(1 − 2(avg − T)/avg) above T, ·(1 + (T − avg)/(2·avg)) below, within [1, 10];
 *   - T = 50 ms, initial α = 1.5, period 500 ms (the JSAC release's run.sh).
 * Kernel controls take no per-socket parameters: these are compiled in. α is kept ×100 (as
 * the reference's target_ratio); times in µs. */
#include "cs_tcp.h"

char _license[] SEC("license") = CS_LICENSE;

extern void cubictcp_init(struct sock *sk) __ksym;
extern u32 cubictcp_recalc_ssthresh(struct sock *sk) __ksym;
extern void cubictcp_cong_avoid(struct sock *sk, u32 ack, u32 acked) __ksym;
extern void cubictcp_state(struct sock *sk, u8 new_state) __ksym;
extern void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern void cubictcp_acked(struct sock *sk, const struct ack_sample *sample) __ksym;
extern u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

#define TARGET_US 50000ull
#define ALPHA_INIT 150u
#define ALPHA_MIN 100u
#define ALPHA_MAX 1000u
#define TUNING_PERIOD_US 500000ull

/* C2TCP's state, after tcp_cubic's struct bictcp in icsk_ca_priv (104 bytes). */
struct c2tcp {
	u32 min_rtt_us;    /* 0 = no sample yet */
	u32 alpha;         /* ×100 */
	u16 count;         /* cuts in the current bad period + 1; 0 = good condition */
	u16 rec_inv_sqrt;  /* 1/√count in Q0.16 (CoDel's Newton step) */
	u32 rtt_n;         /* RTT samples since the last tuning */
	u64 rtt_sum_us;
	u64 next_time_us;  /* the next cut is due after this */
	u64 next_tune_us;  /* 0 = first ACK not seen */
};

#define C2TCP_OFFSET ((sizeof(struct bictcp) + 7) & ~7ul)
_Static_assert(C2TCP_OFFSET + sizeof(struct c2tcp) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "C2TCP's state does not fit behind CUBIC's");

static __always_inline struct c2tcp *c2(const struct sock *sk)
{
	return (struct c2tcp *)((char *)cs_priv(sk) + C2TCP_OFFSET);
}

/* 1/√count by one Newton step per increment of count, in Q0.16 (RFC 8289's control law as
 * Linux's CoDel computes it, codel_Newton_step): x ← x·(3 − count·x²)/2. */
static __always_inline void newton_step(struct c2tcp *c)
{
	u32 invsqrt = (u32)c->rec_inv_sqrt << 16;
	u32 invsqrt2 = ((u64)invsqrt * invsqrt) >> 32;
	u64 val = (3ull << 32) - ((u64)c->count * invsqrt2);

	val >>= 2; /* avoid overflow in the multiply below */
	val = (val * invsqrt) >> (32 - 2 + 1);
	c->rec_inv_sqrt = val >> 16;
}

SEC("struct_ops")
void BPF_PROG(c2tcp_init, struct sock *sk)
{
	struct c2tcp *c = c2(sk);

	cubictcp_init(sk);
	__builtin_memset(c, 0, sizeof(*c));
	c->alpha = ALPHA_INIT;
}

static __always_inline void tune(struct c2tcp *c)
{
	u64 base, alpha, avg;

	if (!c->min_rtt_us) {
		c->rtt_sum_us = 0;
		c->rtt_n = 0;
		return;
	}
	base = TARGET_US * 100 / c->min_rtt_us;
	alpha = base;
	if (c->rtt_n) {
		avg = c->rtt_sum_us / c->rtt_n;
		if (avg > TARGET_US)  /* α·(1 − 2(avg − T)/avg) = α·(2T − avg)/avg */
			alpha = avg >= 2 * TARGET_US ? 0 : base * (2 * TARGET_US - avg) / avg;
		else if (avg < TARGET_US && avg)  /* α·(1 + (T − avg)/(2·avg)) = α·(avg + T)/(2·avg) */
			alpha = base * (avg + TARGET_US) / (2 * avg);
	}
	if (alpha < ALPHA_MIN)
		alpha = ALPHA_MIN;
	if (alpha > ALPHA_MAX)
		alpha = ALPHA_MAX;
	c->alpha = alpha;
	c->rtt_sum_us = 0;
	c->rtt_n = 0;
}

SEC("struct_ops")
void BPF_PROG(c2tcp_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct c2tcp *c = c2(sk);
	struct tcp_sock *tp = cs_tcp_sk(sk);
	u64 now = bpf_ktime_get_ns() / 1000, setpoint, rtt;

	cubictcp_acked(sk, sample);
	if (!c->next_tune_us)
		c->next_tune_us = now + TUNING_PERIOD_US;
	if (now >= c->next_tune_us) {
		tune(c);
		c->next_tune_us = now + TUNING_PERIOD_US;
	}
	if (sample->rtt_us <= 0)
		return;
	rtt = sample->rtt_us;
	if (!c->min_rtt_us || rtt < c->min_rtt_us)
		c->min_rtt_us = rtt;
	c->rtt_sum_us += rtt;
	c->rtt_n++;
	setpoint = (u64)c->min_rtt_us * c->alpha / 100;
	if (rtt <= setpoint) {
		/* good condition */
		c->count = 0;
		if (cs_csk(sk)->icsk_ca_state == TCP_CA_Open && cs_cwnd_limited(tp)) {
			u32 cwnd = tp->snd_cwnd;

			tp->snd_cwnd_cnt += setpoint / rtt;
			if (cwnd && tp->snd_cwnd_cnt >= cwnd) {
				u32 delta = tp->snd_cwnd_cnt / cwnd;

				tp->snd_cwnd_cnt -= delta * cwnd;
				tp->snd_cwnd = cwnd + delta;
			}
		}
	} else if (!c->count) {
		/* first bad sample: one Interval to go */
		c->count = 1;
		c->rec_inv_sqrt = 0xffff;
		newton_step(c);
		c->next_time_us = now + setpoint;
	} else if (now > c->next_time_us) {
		/* bad for a whole Interval: cut; next deadline Interval/√count away */
		c->next_time_us = now + ((setpoint * ((u64)c->rec_inv_sqrt << 16)) >> 32);
		if (c->count < 0xffff)
			c->count++;
		newton_step(c);
		tp->snd_ssthresh = cubictcp_recalc_ssthresh(sk);
		if (cs_csk(sk)->icsk_ca_state <= TCP_CA_Disorder) {
			tp->snd_cwnd = 1;
			tp->snd_cwnd_cnt = 0;
		}
	}
}

SEC("struct_ops")
void BPF_PROG(c2tcp_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	cubictcp_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
u32 BPF_PROG(c2tcp_ssthresh, struct sock *sk)
{
	return cubictcp_recalc_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(c2tcp_state, struct sock *sk, u8 new_state)
{
	cubictcp_state(sk, new_state);
}

SEC("struct_ops")
void BPF_PROG(c2tcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	cubictcp_cwnd_event(sk, ev);
}

SEC("struct_ops")
u32 BPF_PROG(c2tcp_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops c2tcp = {
	.init = (void *)c2tcp_init,
	.ssthresh = (void *)c2tcp_ssthresh,
	.cong_avoid = (void *)c2tcp_cong_avoid,
	.set_state = (void *)c2tcp_state,
	.undo_cwnd = (void *)c2tcp_undo_cwnd,
	.cwnd_event = (void *)c2tcp_cwnd_event,
	.pkts_acked = (void *)c2tcp_acked,
	.name = "c2tcp",
};
