//! Sprout's receiver \[sprout\] \[Sprout §3.1–3.4\] (code `Receiver`): counts each tick's
//! arrivals, has the belief evolve and observe them (see [`super::model`]), counts the bytes
//! received or written off as lost, and sends the cautious forecast back while the sender
//! is heard from.

use std::collections::VecDeque;
use std::sync::Arc;

use cellshare_core::{Nanos, MS, SEC};

use super::model::{forecast_of, model, Belief, Model};
use super::{pack_counts, SproutConfig, MAX_FORECAST_TICKS};
use crate::datagram::{Datagram, DatagramReceiver, Feedback};

/// A receiver that heard nothing for this long stops sending forecasts.
const IDLE: Nanos = SEC;

/// Sprout's receiver: infers the link rate and forecasts deliveries (code `Receiver`).
#[derive(Debug)]
pub struct SproutReceiver {
    model: Arc<Model>,
    tick: Nanos,
    packet_bytes: f64,
    quantile: f64,
    ticks: usize,
    belief: Belief,
    /// The receiver's tick clock (`_time`); None before the first packet.
    time: Option<Nanos>,
    /// Until when empty ticks are not observed (`_score_time`).
    score_time: Nanos,
    /// Packets counted in the current tick.
    count: f64,
    /// Everything before this sequence number is received or written off.
    throwaway_before: u64,
    /// Packets received at or after `throwaway_before`: (seq, len), in sequence order.
    received: VecDeque<(u64, u32)>,
    received_bytes: u64,
    /// The latest forecast counts.
    counts: [u32; MAX_FORECAST_TICKS as usize],
    /// A forecast not sent yet.
    pending: bool,
    last_heard: Nanos,
    /// The sender timestamp of the latest packet and when it arrived (for its reply).
    saved_ts: Option<(u32, Nanos)>,
    delivered: u64,
}

impl SproutReceiver {
    /// A receiver for `cfg`.
    pub fn new(cfg: &SproutConfig) -> Self {
        let m = model(cfg);
        let belief = Belief::uniform(m.n);
        let ticks = cfg.forecast_ticks as usize;
        let mut counts = [0u32; MAX_FORECAST_TICKS as usize];
        forecast_of(&belief, &m, 1.0 - cfg.confidence, &mut counts[..ticks]);
        Self {
            model: m,
            tick: cfg.tick(),
            packet_bytes: cfg.packet_bytes as f64,
            quantile: 1.0 - cfg.confidence,
            ticks,
            belief,
            time: None,
            score_time: 0,
            count: 0.0,
            throwaway_before: 0,
            received: VecDeque::new(),
            received_bytes: 0,
            counts,
            pending: false,
            last_heard: 0,
            saved_ts: None,
            delivered: 0,
        }
    }

    /// The current forecast: cumulative packets deliverable by the end of each tick ahead.
    pub fn forecast(&self) -> &[u32] {
        &self.counts[..self.ticks]
    }

    /// Mean of the rate's distribution, packets per second.
    pub fn mean_rate_pps(&self) -> f64 {
        self.belief.mean(&self.model)
    }

    /// Bytes received, or written off as lost (code `RecvQueue::packet_count`).
    pub fn received_or_lost(&self) -> u64 {
        self.throwaway_before + self.received_bytes
    }

    /// code `Receiver::advance_to`: every tick that ended before `now` evolves the belief
    /// and, unless the sender said it would be silent, observes the tick's arrivals.
    fn advance_to(&mut self, now: Nanos) {
        let Some(mut time) = self.time else { return };
        let mut ticked = false;
        while time + self.tick < now {
            self.belief.evolve(&self.model);
            if time >= self.score_time || self.count > 0.0 {
                let k = if self.count > 0.0 && self.count < 1.0 {
                    1
                } else {
                    (self.count + 0.5) as usize
                };
                self.belief.observe(&self.model, k);
                self.count = 0.0;
            } else {
                self.belief.trim(&self.model);
            }
            time += self.tick;
            ticked = true;
        }
        self.time = Some(time);
        if ticked {
            let mut counts = self.counts;
            forecast_of(
                &self.belief,
                &self.model,
                self.quantile,
                &mut counts[..self.ticks],
            );
            self.counts = counts;
            self.pending = true;
        }
    }

    fn drop_before_throwaway(&mut self) {
        while let Some(&(s, l)) = self.received.front() {
            if s >= self.throwaway_before {
                break;
            }
            self.received.pop_front();
            self.received_bytes -= l as u64;
        }
    }
}

impl DatagramReceiver for SproutReceiver {
    fn on_datagram(&mut self, now: Nanos, d: &Datagram) {
        if self.time.is_none() {
            self.time = Some(now);
            self.score_time = now;
        }
        self.advance_to(now);
        let time = self.time.expect("set above");
        // A heartbeat carries only the 2-byte forecast header (code counts its length).
        let bytes = if d.len == 0 { 2.0 } else { d.len as f64 };
        self.count += bytes / self.packet_bytes;
        let throwaway = (d.header[1] >> 16) as u64;
        let time_to_next = (d.header[1] & 0xffff) as u64 * MS;
        self.throwaway_before = self.throwaway_before.max(d.seq.saturating_sub(throwaway));
        if d.seq >= self.throwaway_before && d.len > 0 {
            // In sequence order (arrivals are, but for a reordering network).
            let pos = self
                .received
                .iter()
                .rposition(|&(s, _)| s <= d.seq)
                .map_or(0, |p| p + 1);
            if pos == self.received.len() {
                self.received.push_back((d.seq, d.len));
            } else {
                self.received.insert(pos, (d.seq, d.len));
            }
            self.received_bytes += d.len as u64;
        }
        self.drop_before_throwaway();
        self.score_time = self.score_time.max(time + time_to_next);
        self.delivered += d.len as u64;
        self.saved_ts = Some((d.header[0], now));
        self.last_heard = now;
    }

    fn poll_feedback(&mut self, now: Nanos) -> Option<Feedback> {
        if !self.pending {
            return None;
        }
        self.pending = false;
        // code Connection::new_packet: the timestamp reply, corrected by the time held.
        let reply = match self.saved_ts {
            Some((ts, at)) if now - at < SEC => ts.wrapping_add(((now - at) / MS) as u32),
            _ => u32::MAX,
        };
        self.saved_ts = None;
        Some(Feedback {
            number: self.received_or_lost(),
            value: self.time.unwrap_or(0),
            words: pack_counts(&self.counts[..self.ticks]),
            small: [reply, self.ticks as u32],
        })
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        let time = self.time?;
        let next = time + self.tick + 1;
        (next <= self.last_heard + IDLE).then_some(next)
    }

    fn on_timeout(&mut self, now: Nanos) {
        self.advance_to(now);
    }

    fn delivered(&self) -> u64 {
        self.delivered
    }

    fn trace_aux(&self) -> f64 {
        self.mean_rate_pps() * self.packet_bytes * 8.0 / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> SproutConfig {
        SproutConfig::default()
    }

    /// Feeds a receiver packets at `pps` for `secs` seconds in ticks of 20 ms.
    fn run_at(r: &mut SproutReceiver, pps: f64, start: Nanos, secs: f64) -> Nanos {
        let gap = (SEC as f64 / pps) as Nanos;
        let mut t = start;
        let mut seq = 0u64;
        while t < start + (secs * SEC as f64) as Nanos {
            r.on_datagram(
                t,
                &Datagram {
                    seq,
                    len: 1440,
                    header: [0, 50],
                    retransmit: false,
                },
            );
            seq += 1440;
            t += gap;
            while r.poll_feedback(t).is_some() {}
        }
        t
    }

    #[test]
    fn receiver_learns_a_steady_rate_and_forecasts_cautiously() {
        let mut r = SproutReceiver::new(&cfg());
        run_at(&mut r, 500.0, 0, 3.0);
        let mean = r.mean_rate_pps();
        assert!((mean - 500.0).abs() < 60.0, "posterior mean {mean}");
        let f = r.forecast().to_vec();
        assert!(f.windows(2).all(|w| w[1] >= w[0]), "cumulative: {f:?}");
        // Cautious: below the mean deliveries (10 per tick), but not by much for 5 ticks.
        assert!(f[4] < 50 && f[4] > 25, "{f:?}");
    }

    #[test]
    fn an_outage_drives_the_forecast_to_zero() {
        let mut r = SproutReceiver::new(&cfg());
        let t = run_at(&mut r, 500.0, 0, 2.0);
        // Nothing arrives for 200 ms after the sender's time-to-next (50 ms) passed.
        r.on_timeout(t + 250 * MS);
        assert!(r.poll_feedback(t + 250 * MS).is_some());
        assert_eq!(r.forecast()[4], 0, "{:?}", r.forecast());
        // Ticks inside the time-to-next are not observed as empty.
        let mut r2 = SproutReceiver::new(&cfg());
        let t2 = run_at(&mut r2, 500.0, 0, 2.0);
        let before = r2.mean_rate_pps();
        r2.on_timeout(t2 + 30 * MS);
        assert!(r2.mean_rate_pps() > 0.8 * before);
    }

    #[test]
    fn receiver_counts_bytes_received_or_written_off() {
        let mut r = SproutReceiver::new(&cfg());
        let d = |seq: u64, throwaway: u32| Datagram {
            seq,
            len: 1440,
            header: [0, throwaway << 16],
            retransmit: false,
        };
        // Packet 1 (seq 1440) is lost. Packet 2 was sent within the reorder window of
        // packet 0: nothing is written off yet.
        r.on_datagram(0, &d(0, 0));
        r.on_datagram(MS, &d(2880, 2880));
        assert_eq!(r.received_or_lost(), 2 * 1440);
        // Packet 3 says packets sent before seq 1440 are older than the window: packet 0's
        // bytes now count as "before the throwaway point"; packet 1 is still pending.
        r.on_datagram(2 * MS, &d(4320, 2880));
        assert_eq!(r.received_or_lost(), 1440 + 2 * 1440);
        // Packet 4 writes off packet 1 too.
        r.on_datagram(3 * MS, &d(5760, 2880));
        assert_eq!(r.received_or_lost(), 2880 + 3 * 1440);
        assert_eq!(r.delivered(), 4 * 1440);
    }
}
