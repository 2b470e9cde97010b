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

/// A cell's scheduling period: LTE's 1 ms TTI, or an NR slot of 14 symbols at numerology μ,
/// 1 ms / 2^μ (TS 38.211 §4.3.2: 1, 0.5, 0.25 and 0.125 ms for μ = 0..3). Fixed for a run.
///
/// Slot `k` spans `[k·ns, (k+1)·ns)`. Every slot length divides a millisecond into a power
/// of two, so the conversions between instants, slots and milliseconds are shifts and
/// divisions by the constant [`MS`], never by a run-time value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// μ: log2 of the slots per millisecond.
    shift: u32,
}

impl Slot {
    /// LTE's TTI (and NR's slot at μ = 0): 1 ms.
    pub const LTE: Slot = Slot { shift: 0 };

    /// The NR slot at numerology `mu` (0..=3), `None` above 3.
    pub const fn nr(mu: u8) -> Option<Slot> {
        if mu <= 3 {
            Some(Slot { shift: mu as u32 })
        } else {
            None
        }
    }

    /// μ: log2 of the slots per millisecond (0 for LTE).
    #[inline]
    pub const fn shift(self) -> u32 {
        self.shift
    }

    /// The slot's length in nanoseconds.
    #[inline]
    pub const fn ns(self) -> Nanos {
        MS >> self.shift
    }

    /// Slots per millisecond (2^μ).
    #[inline]
    pub const fn per_ms(self) -> u64 {
        1 << self.shift
    }

    /// Slots per second.
    #[inline]
    pub const fn per_second(self) -> u64 {
        1000 << self.shift
    }

    /// The start of slot `k`.
    #[inline]
    pub const fn start(self, k: u64) -> Nanos {
        k * self.ns()
    }

    /// The first slot starting at or after `t` (⌈t / slot⌉; saturates past 2^64/2^μ ns).
    #[inline]
    pub const fn index_ceil(self, t: Nanos) -> u64 {
        t.saturating_mul(1 << self.shift).div_ceil(MS)
    }

    /// The slot holding instant `t` (⌊t / slot⌋).
    #[inline]
    pub const fn index_floor(self, t: Nanos) -> u64 {
        t.saturating_mul(1 << self.shift) / MS
    }

    /// The millisecond holding slot `k`.
    #[inline]
    pub const fn ms_of(self, k: u64) -> u64 {
        k >> self.shift
    }

    /// The first slot of millisecond `ms` (also: the slots in `ms` milliseconds).
    #[inline]
    pub const fn of_ms(self, ms: u64) -> u64 {
        ms << self.shift
    }
}

impl Default for Slot {
    fn default() -> Self {
        Slot::LTE
    }
}

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
    fn slots_divide_the_millisecond() {
        let lens: Vec<Nanos> = (0..4).map(|mu| Slot::nr(mu).unwrap().ns()).collect();
        assert_eq!(lens, [1_000_000, 500_000, 250_000, 125_000]);
        assert_eq!(Slot::nr(4), None);
        assert_eq!(Slot::LTE.ns(), TTI);
        let s = Slot::nr(3).unwrap();
        assert_eq!(s.start(9), 1_125_000);
        assert_eq!((s.index_floor(1_125_000), s.index_ceil(1_125_000)), (9, 9));
        assert_eq!((s.index_floor(1_125_001), s.index_ceil(1_125_001)), (9, 10));
        assert_eq!((s.ms_of(15), s.ms_of(16), s.of_ms(2)), (1, 2, 16));
        assert_eq!(s.per_second(), 8000);
        // The LTE slot converts exactly as the constant TTI did.
        for t in [0, 1, 999_999, 1_000_000, 1_000_001, u64::MAX] {
            assert_eq!(Slot::LTE.index_ceil(t), t.div_ceil(TTI));
            assert_eq!(Slot::LTE.index_floor(t), t / TTI);
        }
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
