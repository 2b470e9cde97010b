//! Receive-window policies: what window the receiver advertises.
//!
//! A policy sees only what a real receiver sees: each arriving segment (sequence range and
//! the TSval/TSecr timestamps; **not** [`Segment::retransmit`], which no real receiver can
//! read), its arrival time, and the in-order point `rcv_nxt`. The receiver's own timestamp
//! clock is `ts_clock(now, ts_offset_ms)`, so a policy that wants the receiver-side RTT
//! takes the receiver's `ts_offset_ms` at construction and computes
//! `ts_clock(now) − seg.ts_ecr` (TSecr echoes the receiver's own earlier TSval).
//!
//! The [`crate::tcp::TcpReceiver`] applies two rules on top of any policy: the right edge
//! of the window never moves left (RFC 9293 §3.8.6), and the window only changes when
//! `rcv_nxt` advances, so duplicate ACKs carry identical windows (RFC 5681 §2 condition
//! (e)).

mod auto_tuning;
mod drwa;
mod estimate;
mod rtac;

pub use auto_tuning::AutoTuning;
pub use drwa::{drwa_window, Drwa};
pub use estimate::ReceiverEstimator;
pub use rtac::{k_from_theta, rtac_window, Rtac, RtacParams, RENO_A};

use cellshare_core::{Nanos, MS};

use crate::tcp::{config::win_from_space, ts_clock, RwndConfig};
use crate::wire::Segment;

/// One receiver-side RTT sample from the timestamp option, as Linux's
/// `tcp_rcv_rtt_measure_ts`: the receiver's clock now minus the echoed TSecr, taken once per
/// new TSecr (`last_tsecr` remembers the last one used) and only from full-sized segments
/// (a short segment may have waited in the sender for more data). TSecr 0 means "no echo
/// yet". At least 1 ms (the timestamp clock's resolution).
pub(crate) fn rtt_sample(
    now: Nanos,
    seg: &Segment,
    mss: u32,
    ts_offset_ms: u32,
    last_tsecr: &mut Option<u32>,
) -> Option<Nanos> {
    if seg.ts_ecr == 0 || *last_tsecr == Some(seg.ts_ecr) {
        return None;
    }
    *last_tsecr = Some(seg.ts_ecr);
    if seg.len < mss {
        return None;
    }
    let delta = ts_clock(now, ts_offset_ms).wrapping_sub(seg.ts_ecr) as i32;
    if delta < 0 {
        return None;
    }
    Some((delta.max(1) as u64) * MS)
}

/// Chooses the advertised receive window.
pub trait ReceiveWindowPolicy: std::fmt::Debug + Send {
    /// Called for every arriving data segment, after the receiver processed it; `rcv_nxt`
    /// is the next in-order byte expected (= in-order bytes delivered to the application).
    fn on_segment(&mut self, now: Nanos, seg: &Segment, rcv_nxt: u64);
    /// The window (bytes beyond `rcv_nxt`) the policy wants to advertise at `now`.
    fn window(&self, now: Nanos) -> u32;
}

impl RwndConfig {
    /// Builds the policy this configuration describes, for a receiver with maximum segment
    /// size `mss` whose timestamp clock runs `ts_offset_ms` ahead of `now / MS`.
    pub fn build(&self, mss: u32, ts_offset_ms: u32) -> Box<dyn ReceiveWindowPolicy> {
        match *self {
            RwndConfig::AutoTuning {
                rmem_max,
                rmem_initial,
                adv_win_scale,
            } => Box::new(AutoTuning::new(
                mss,
                win_from_space(rmem_initial, adv_win_scale),
                win_from_space(rmem_max, adv_win_scale),
                ts_offset_ms,
            )),
            RwndConfig::Fixed { bytes } => Box::new(FixedWindow::new(bytes)),
            RwndConfig::Drwa {
                rmem_max,
                rmem_initial,
                lambda,
            } => Box::new(Drwa::new(mss, rmem_initial, rmem_max, lambda, ts_offset_ms)),
            RwndConfig::Rtac {
                rmem_max,
                rmem_initial,
                alpha,
                beta,
                k,
                theta,
                capacity_mbps,
                delta_ms,
            } => {
                let p = RtacParams {
                    alpha,
                    beta,
                    k,
                    theta,
                    capacity_bps: (capacity_mbps.unwrap_or(0.0) * 1e6).round() as u64,
                    delta: cellshare_core::time::from_millis_f64(delta_ms),
                    rmem_max,
                };
                Box::new(Rtac::new(mss, rmem_initial, p, ts_offset_ms))
            }
        }
    }
}

/// A constant window.
#[derive(Clone, Debug)]
pub struct FixedWindow {
    bytes: u32,
}

impl FixedWindow {
    /// Always advertises `bytes`.
    pub fn new(bytes: u32) -> Self {
        Self { bytes }
    }
}

impl ReceiveWindowPolicy for FixedWindow {
    fn on_segment(&mut self, _now: Nanos, _seg: &Segment, _rcv_nxt: u64) {}

    fn window(&self, _now: Nanos) -> u32 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_window_is_constant() {
        let mut f = FixedWindow::new(65_535);
        f.on_segment(5, &Segment::default(), 100);
        assert_eq!(f.window(10), 65_535);
    }
}
