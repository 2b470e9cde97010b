//! When a Linux TCP timer fires: the kernel's timer wheel (`kernel/time/timer.c`).
//!
//! Linux arms TCP's retransmission, loss-probe, reordering and delayed-ACK timers as
//! `timer_list`s in jiffies (`inet_csk_reset_xmit_timer(sk, what, when, …)`: `expires =
//! jiffies + when`, with `when` from `usecs_to_jiffies`, which rounds up). The timer wheel
//! never fires a timer early but, to keep its buckets few, fires it late by up to its
//! level's granularity (`calc_wheel_index`/`calc_index`): with `delta = expires − clk`,
//! level `n` holds the timers with `LVL_START(n) ≤ delta < LVL_START(n+1)`, where
//! `LVL_START(n) = 63 << 3(n−1)` (`LVL_START(0) = 0`), and fires them at the next multiple
//! of `8^n` jiffies strictly after `expires` (`bucket_expiry = ((expires >> 3n) + 1) << 3n`).
//! At `CONFIG_HZ = 250` (Debian's kernels, and the emulator's host) a jiffy is 4 ms: a
//! timer set less than 252 ms ahead fires one tick late at most, one set 252 ms to 2.016 s
//! ahead up to 32 ms late, one set 2.016 s to 16.1 s ahead up to 256 ms late. This matters
//! when a cellular link pauses for about an RTO: whether the timer fires before the first
//! ACK after the pause decides whether a timeout happens at all.
//!
//! Jiffy boundaries fall on multiples of a jiffy of simulated time (the phase of a real
//! host's tick is arbitrary). `hz = 0` gives exact timers (`now + timeout`).

use cellshare_core::{Nanos, SEC};

/// Wheel levels (`LVL_DEPTH` at `HZ > 100`).
const LVL_DEPTH: u32 = 9;

/// The time at which a Linux timer armed at `now` for `timeout` fires, on a kernel with
/// `CONFIG_HZ = hz` (0: exactly at `now + timeout`).
pub fn linux_timer_expiry(now: Nanos, timeout: Nanos, hz: u32) -> Nanos {
    if hz == 0 {
        return now.saturating_add(timeout);
    }
    let jiffy = SEC / hz as u64;
    let clk = now / jiffy;
    // `usecs_to_jiffies`/`msecs_to_jiffies` round up.
    let delta = timeout.div_ceil(jiffy);
    let expires = clk.saturating_add(delta);
    // `calc_wheel_index`: the level whose range holds `delta`.
    let mut lvl = 0;
    while lvl + 1 < LVL_DEPTH && delta >= 63u64 << (3 * lvl) {
        lvl += 1;
    }
    let shift = 3 * lvl;
    (((expires >> shift) + 1) << shift).saturating_mul(jiffy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    #[test]
    fn expiry_follows_the_wheel_levels_at_hz_250() {
        // Exact timers when hz = 0.
        assert_eq!(linux_timer_expiry(5 * MS, 300 * MS, 0), 305 * MS);
        // Level 0 (under 63 jiffies = 252 ms): one tick after `expires`. Armed at 5 ms
        // (jiffy 1) for 40 ms (10 jiffies): expires at jiffy 11, fires at jiffy 12.
        assert_eq!(linux_timer_expiry(5 * MS, 40 * MS, 250), 48 * MS);
        // A timeout that is not a whole number of jiffies rounds up: 41 ms is 11 jiffies.
        assert_eq!(linux_timer_expiry(5 * MS, 41 * MS, 250), 52 * MS);
        // Level 1 (63 to 503 jiffies): the next multiple of 8 jiffies (32 ms). Armed at
        // 1000 ms (jiffy 250) for 300 ms (75 jiffies): expires 325, fires at 328 = 1312 ms.
        assert_eq!(linux_timer_expiry(1000 * MS, 300 * MS, 250), 1312 * MS);
        // Expiring on a multiple of 8 still goes one granule later (never early).
        assert_eq!(linux_timer_expiry(1000 * MS, 312 * MS, 250), 1344 * MS);
        // Level 2 (504 to 4031 jiffies): multiples of 64 jiffies (256 ms). 1 s at 0:
        // 250 jiffies is level 1 (fires at 256 = 1024 ms); 3 s is level 2 (750 → 768).
        assert_eq!(linux_timer_expiry(0, SEC, 250), 1024 * MS);
        assert_eq!(linux_timer_expiry(0, 3 * SEC, 250), 3072 * MS);
        // Never early, at most one granule late, over many arming times and timeouts.
        for now in (0..40 * MS).step_by(1_300_000) {
            for timeout in [MS, 39 * MS, 251 * MS, 253 * MS, 700 * MS, 2100 * MS] {
                let at = linux_timer_expiry(now, timeout, 250);
                assert!(at >= now + timeout);
                let jiffies = timeout.div_ceil(4 * MS);
                let late = if jiffies < 63 {
                    8 * MS
                } else if jiffies < 504 {
                    36 * MS
                } else {
                    260 * MS
                };
                assert!(at - (now + timeout) <= late, "{now} {timeout} {at}");
            }
        }
    }
}
