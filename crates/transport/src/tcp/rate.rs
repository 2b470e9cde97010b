//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation \[delivery-rate\], as Linux's
//! `net/ipv4/tcp_rate.c`).
//!
//! At every transmission the sender snapshots the connection's delivery state into the
//! segment ([`PacketRateState`]); when ACKs deliver segments, the most recently *sent* of
//! them yields a sample `delivered / max(send_elapsed, ack_elapsed)`.
//!
//! With SACK, a segment counts as delivered when it is first SACKed or, if it never was,
//! when the cumulative ACK covers it (draft §3.3, Linux `tcp_rate_skb_delivered`): the
//! sender feeds each newly SACKed and each newly cumulatively acknowledged, not previously
//! SACKed segment to [`RateEstimator::on_segment_delivered`] and their bytes to
//! [`RateEstimator::on_sack_delivery`], so a SACKed segment is counted exactly once.
//!
//! Without SACK, a duplicate ACK is taken as evidence that one segment left the network
//! (Linux's `tcp_add_reno_sack`), so `delivered` is credited one MSS per duplicate ACK and
//! the credit is consumed when the cumulative ACK later covers those bytes
//! (`tcp_remove_reno_sacks`).

use cellshare_core::{Nanos, SEC};

use crate::cc::RateSample;

/// Delivery state copied into a segment when it is (re)transmitted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PacketRateState {
    /// `C.first_sent_time` at send time.
    pub first_sent_time: Nanos,
    /// `C.delivered_time` at send time.
    pub delivered_time: Nanos,
    /// `C.delivered` at send time.
    pub delivered: u64,
    /// Whether the connection was application-limited at send time.
    pub is_app_limited: bool,
}

/// Per-ACK accumulator of the sample (the draft's `rs`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SampleBuilder {
    /// The chosen (most recently sent) delivered segment's state, if any.
    chosen: Option<PacketRateState>,
    /// Send time of the chosen segment.
    sent_at: Nanos,
    /// End sequence of the chosen segment (tie-break between equal send times).
    end_seq: u64,
}

impl SampleBuilder {
    /// `C.delivered` when the most recently sent delivered segment was sent (the sample's
    /// `prior_delivered`, Linux `rs->prior_delivered`), if a segment was delivered.
    pub fn prior_delivered(&self) -> Option<u64> {
        self.chosen.map(|p| p.delivered)
    }
}

/// Connection-level delivery state (the draft's `C.*`).
#[derive(Clone, Debug, Default)]
pub(crate) struct RateEstimator {
    /// Bytes delivered so far (cumulative ACKs plus SACKed bytes, or duplicate-ACK credit
    /// without SACK).
    delivered: u64,
    /// When `delivered` last grew.
    delivered_time: Nanos,
    /// Send time of the most recently delivered segment (start of the send phase).
    first_sent_time: Nanos,
    /// `C.app_limited`: 0, or the `delivered` value beyond which samples are no longer
    /// application-limited.
    app_limited: u64,
    /// Bytes credited by duplicate ACKs and not yet covered by a cumulative ACK.
    dup_credit: u64,
}

impl RateEstimator {
    /// Starts at `now` with nothing delivered.
    pub fn new(now: Nanos) -> Self {
        Self {
            delivered_time: now,
            first_sent_time: now,
            ..Self::default()
        }
    }

    /// Total delivered bytes.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Whether the connection is currently marked application-limited.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// Snapshot for a segment sent at `now` (draft §3.2 "Transmitting a data packet").
    /// `nothing_outstanding`: no data was unacknowledged before this transmission.
    pub fn on_send(&mut self, now: Nanos, nothing_outstanding: bool) -> PacketRateState {
        if nothing_outstanding {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        PacketRateState {
            first_sent_time: self.first_sent_time,
            delivered_time: self.delivered_time,
            delivered: self.delivered,
            is_app_limited: self.app_limited != 0,
        }
    }

    /// Marks the connection application-limited (draft §3.4; Linux
    /// `tcp_rate_check_app_limited`), with `in_flight` bytes outstanding.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// A duplicate ACK: credit up to one `mss` of delivery, bounded by the outstanding bytes
    /// not yet credited.
    pub fn on_dupack(&mut self, now: Nanos, mss: u32, outstanding: u64) {
        let credit = (mss as u64).min(outstanding.saturating_sub(self.dup_credit));
        if credit > 0 {
            self.dup_credit += credit;
            self.delivered += credit;
            self.delivered_time = now;
        }
    }

    /// A cumulative ACK covered `acked` new bytes: the first MSS filled the hole, the rest
    /// first consumes duplicate-ACK credit (Linux `tcp_remove_reno_sacks`).
    pub fn on_cumulative_ack(&mut self, now: Nanos, acked: u64, mss: u32) {
        if acked == 0 {
            return;
        }
        let hole = acked.min(mss as u64);
        let rest = acked - hole;
        let consumed = rest.min(self.dup_credit);
        self.dup_credit -= consumed;
        self.delivered += hole + (rest - consumed);
        self.delivered_time = now;
    }

    /// An ACK on a SACK connection delivered `cum_bytes` newly cumulatively acknowledged
    /// bytes that had not been SACKed, and `sacked_bytes` newly SACKed bytes. Duplicate-ACK
    /// credit left from before SACK was in use is consumed first (those bytes were counted).
    pub fn on_sack_delivery(&mut self, now: Nanos, cum_bytes: u64, sacked_bytes: u64) {
        let consumed = cum_bytes.min(self.dup_credit);
        self.dup_credit -= consumed;
        let d = cum_bytes - consumed + sacked_bytes;
        if d > 0 {
            self.delivered += d;
            self.delivered_time = now;
        }
    }

    /// Forgets duplicate-ACK credit (on a retransmission timeout, like Linux's
    /// `tcp_reset_reno_sack`).
    pub fn reset_dup_credit(&mut self) {
        self.dup_credit = 0;
    }

    /// A segment sent at `sent_at`, ending at `end_seq`, with snapshot `p`, was delivered by
    /// the current ACK (draft §3.3 `UpdateRateSample`). Call after
    /// [`RateEstimator::on_cumulative_ack`].
    pub fn on_segment_delivered(
        &mut self,
        rs: &mut SampleBuilder,
        p: PacketRateState,
        sent_at: Nanos,
        end_seq: u64,
    ) {
        let newer = match rs.chosen {
            None => true,
            Some(_) => sent_at > rs.sent_at || (sent_at == rs.sent_at && end_seq > rs.end_seq),
        };
        if newer {
            rs.chosen = Some(p);
            rs.sent_at = sent_at;
            rs.end_seq = end_seq;
            self.first_sent_time = sent_at;
        }
    }

    /// Finishes the sample for this ACK (draft §3.3 `GenerateRateSample`): `None` when no
    /// segment was delivered or the interval is shorter than `min_rtt` (Linux discards
    /// those as implausible).
    pub fn generate(
        &mut self,
        rs: &SampleBuilder,
        now: Nanos,
        min_rtt: Nanos,
    ) -> Option<RateSample> {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let p = rs.chosen?;
        let send_elapsed = rs.sent_at.saturating_sub(p.first_sent_time);
        let ack_elapsed = now.saturating_sub(p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        let delivered = self.delivered - p.delivered;
        if interval == 0 || interval < min_rtt || delivered == 0 {
            return None;
        }
        Some(RateSample {
            delivery_rate: delivered as f64 * SEC as f64 / interval as f64,
            delivered,
            interval,
            prior_delivered: p.delivered,
            is_app_limited: p.is_app_limited,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_core::MS;

    #[test]
    fn one_flight_yields_bytes_per_rtt() {
        let mut r = RateEstimator::new(0);
        // Ten 1000-byte segments sent at t = 0, all acked at t = 100 ms.
        let snaps: Vec<_> = (0..10)
            .map(|i| (r.on_send(0, i == 0), (i + 1) * 1000))
            .collect();
        r.on_cumulative_ack(100 * MS, 10_000, 1000);
        let mut rs = SampleBuilder::default();
        for (p, end) in snaps {
            r.on_segment_delivered(&mut rs, p, 0, end);
        }
        let s = r.generate(&rs, 100 * MS, 100 * MS).unwrap();
        assert_eq!(s.delivered, 10_000);
        assert_eq!(s.interval, 100 * MS);
        assert!((s.delivery_rate - 100_000.0).abs() < 1e-6);
        assert!(!s.is_app_limited);
    }

    #[test]
    fn short_interval_is_discarded_and_app_limited_clears() {
        let mut r = RateEstimator::new(0);
        r.mark_app_limited(0);
        let p = r.on_send(0, true);
        assert!(p.is_app_limited);
        r.on_cumulative_ack(5 * MS, 1000, 1000);
        let mut rs = SampleBuilder::default();
        r.on_segment_delivered(&mut rs, p, 0, 1000);
        assert_eq!(r.generate(&rs, 5 * MS, 10 * MS), None);
        assert!(
            !r.is_app_limited(),
            "delivery beyond the marker ends the app-limited phase"
        );
    }

    #[test]
    fn dupack_credit_is_consumed_by_the_cumulative_ack() {
        let mut r = RateEstimator::new(0);
        r.on_dupack(MS, 1000, 5000);
        r.on_dupack(MS, 1000, 5000);
        assert_eq!(r.delivered(), 2000);
        // The hole plus the two segments the dupacks reported plus two more.
        r.on_cumulative_ack(2 * MS, 5000, 1000);
        assert_eq!(r.delivered(), 5000);
    }

    #[test]
    fn sacked_segments_count_once_and_drive_the_sample() {
        let mut r = RateEstimator::new(0);
        // Four 1000-byte segments sent at 0..3 ms; #0 lost, #1..#3 SACKed at 50..52 ms.
        let snaps: Vec<_> = (0..4u64).map(|i| r.on_send(i * MS, i == 0)).collect();
        let mut last = None;
        for i in 1..4u64 {
            let mut rs = SampleBuilder::default();
            r.on_sack_delivery((49 + i) * MS, 0, 1000);
            r.on_segment_delivered(&mut rs, snaps[i as usize], i * MS, (i + 1) * 1000);
            last = r.generate(&rs, (49 + i) * MS, 10 * MS);
        }
        assert_eq!(r.delivered(), 3000);
        let s = last.unwrap();
        // Segment 3 was sent when nothing had been delivered; 3000 bytes over 52 − 0 ms.
        assert_eq!(
            (s.delivered, s.prior_delivered, s.interval),
            (3000, 0, 52 * MS)
        );
        // The retransmission of #0 is cumulatively acked with #1..#3: only #0 is new.
        let p = r.on_send(60 * MS, false);
        let mut rs = SampleBuilder::default();
        r.on_sack_delivery(110 * MS, 1000, 0);
        r.on_segment_delivered(&mut rs, p, 60 * MS, 1000);
        assert_eq!(r.delivered(), 4000);
        let s = r.generate(&rs, 110 * MS, 10 * MS).unwrap();
        assert_eq!((s.delivered, s.prior_delivered), (1000, 3000));
    }
}
