//! Simulated time: integer nanoseconds since the start of the run.
//!
//! Every timestamp in the simulator is a [`Nanos`]. TTI boundaries are exact multiples of
//! [`TTI`]. Conversions from user-facing floating-point seconds happen once, when a scenario
//! is loaded, with [`from_secs_f64`] (round to nearest nanosecond).

/// A point in, or a span of, simulated time in nanoseconds.
pub type Nanos = u64;

/// One microsecond.
pub const US: Nanos = 1_000;
/// One millisecond.
pub const MS: Nanos = 1_000_000;
/// One second.
pub const SEC: Nanos = 1_000_000_000;
/// The LTE transmission time interval: 1 ms.
pub const TTI: Nanos = MS;

/// Converts seconds to nanoseconds, rounding to the nearest nanosecond; negative inputs map to 0.
pub fn from_secs_f64(s: f64) -> Nanos {
    if s <= 0.0 {
        0
    } else {
        (s * SEC as f64).round() as Nanos
    }
}

/// Converts milliseconds to nanoseconds, rounding to the nearest nanosecond.
pub fn from_millis_f64(ms: f64) -> Nanos {
    from_secs_f64(ms / 1e3)
}

/// Converts nanoseconds to seconds.
pub fn to_secs_f64(t: Nanos) -> f64 {
    t as f64 / SEC as f64
}

/// Converts nanoseconds to milliseconds.
pub fn to_millis_f64(t: Nanos) -> f64 {
    t as f64 / MS as f64
}

/// Time needed to serialize `bytes` on a link of `rate_bps` bits per second, rounded up to
/// the next nanosecond. A rate of 0 means "infinitely fast".
pub fn serialization_time(bytes: u64, rate_bps: u64) -> Nanos {
    if rate_bps == 0 {
        return 0;
    }
    let bits = bytes as u128 * 8 * SEC as u128;
    bits.div_ceil(rate_bps as u128) as Nanos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip() {
        assert_eq!(from_secs_f64(1.5), 1_500_000_000);
        assert_eq!(from_millis_f64(0.25), 250_000);
        assert_eq!(from_secs_f64(-3.0), 0);
        assert!((to_secs_f64(2 * SEC) - 2.0).abs() < 1e-12);
        assert!((to_millis_f64(3 * MS) - 3.0).abs() < 1e-12);
    }

    #[test]
    fn serialization_rounds_up() {
        // 1500 bytes at 1 Gbps = 12 us exactly.
        assert_eq!(serialization_time(1500, 1_000_000_000), 12_000);
        // 1 byte at 3 bps = 8/3 s -> rounded up.
        assert_eq!(serialization_time(1, 3), 2_666_666_667);
        assert_eq!(serialization_time(1500, 0), 0);
    }
}

/// Timer bookkeeping shared by every event-driven endpoint: `armed` is the time of the
/// wake-up event already queued, `want` the time the endpoint asks for now. Returns the time
/// of a new event to queue, if the endpoint wants to be woken earlier than what is armed. A
/// later request needs no new event: the armed one fires, finds nothing due, and re-arms.
#[inline]
pub fn rearm(armed: &mut Option<Nanos>, want: Option<Nanos>, now: Nanos) -> Option<Nanos> {
    let t = want?.max(now);
    if armed.is_none_or(|a| t < a) {
        *armed = Some(t);
        Some(t)
    } else {
        None
    }
}
