//! Sprout's sender \[sprout\] \[Sprout §3.5\] (code `SproutConnection`, `sproutbt2`): its
//! queue estimate from the latest forecast, the window the forecast allows within the
//! target delay, the flight sent at once, heartbeats, and the write-off point
//! (`throwaway`) it tells the receiver.

use std::collections::VecDeque;

use cellshare_core::{Nanos, MS, SEC};

use super::model::{forecast_of, model, Belief};
use super::{unpack_counts, SproutConfig, MAX_FORECAST_TICKS};
use crate::datagram::{
    Datagram, DatagramSender, Feedback, RttEstimator, SenderStats, TransportTrace,
};

/// Sprout's sender: sends what the latest forecast says can leave the queue within the
/// target delay (code `SproutConnection`, `sproutbt2`).
#[derive(Debug)]
pub struct SproutSender {
    tick: Nanos,
    target_ticks: usize,
    packet_bytes: u32,
    heartbeat: Nanos,
    reorder: Nanos,
    ticks: usize,
    /// The operative forecast.
    counts: [u32; MAX_FORECAST_TICKS as usize],
    /// When it arrived; None before the first (the prior's forecast is used, code
    /// "something reasonable").
    remote_forecast_time: Option<Nanos>,
    current_tick: usize,
    /// Estimated bytes of ours queued in the network.
    queue_estimate: i64,
    next_seq: u64,
    /// Recently sent packets (seq, time) for the throwaway window.
    sent_log: VecDeque<(u64, Nanos)>,
    next_heartbeat: Nanos,
    /// Bytes the application still offers (`u64::MAX`: bulk).
    app_left: u64,
    /// Bytes left in the flight being sent.
    flight_left: u64,
    /// Whether the current flight is a heartbeat.
    heartbeat_due: bool,
    rtt: RttEstimator,
    stats: SenderStats,
    ts_offset: u32,
}

impl SproutSender {
    /// A sender for `cfg`; `ts_offset_ms` offsets its timestamp clock.
    pub fn new(cfg: &SproutConfig, ts_offset_ms: u32) -> Self {
        let m = model(cfg);
        let ticks = cfg.forecast_ticks as usize;
        let mut counts = [0u32; MAX_FORECAST_TICKS as usize];
        forecast_of(
            &Belief::uniform(m.n),
            &m,
            1.0 - cfg.confidence,
            &mut counts[..ticks],
        );
        Self {
            tick: cfg.tick(),
            target_ticks: cfg.target_ticks(),
            packet_bytes: cfg.packet_bytes,
            heartbeat: (cfg.heartbeat_ms * MS as f64).round() as Nanos,
            reorder: (cfg.reorder_ms * MS as f64).round() as Nanos,
            ticks,
            counts,
            remote_forecast_time: None,
            current_tick: 0,
            queue_estimate: 0,
            next_seq: 0,
            sent_log: VecDeque::new(),
            next_heartbeat: 0,
            app_left: 0,
            flight_left: 0,
            heartbeat_due: false,
            rtt: RttEstimator::default(),
            stats: SenderStats::default(),
            ts_offset: ts_offset_ms,
        }
    }

    /// The operative forecast.
    pub fn forecast(&self) -> &[u32] {
        &self.counts[..self.ticks]
    }

    /// Estimated bytes of ours in the network's queue.
    pub fn queue_estimate(&self) -> u64 {
        self.queue_estimate.max(0) as u64
    }

    /// code `update_queue_estimate`: the forecast deliveries of every tick since the
    /// forecast arrived leave the queue estimate (the tick's own share; see the module docs).
    fn update_queue_estimate(&mut self, now: Nanos) {
        let Some(t0) = self.remote_forecast_time else {
            return;
        };
        let new_tick = (((now - t0) / self.tick) as usize).min(self.ticks - 1);
        while self.current_tick < new_tick {
            let k = self.current_tick;
            let share = self.counts[k] as i64 - if k == 0 { 0 } else { self.counts[k - 1] as i64 };
            self.queue_estimate =
                (self.queue_estimate - self.packet_bytes as i64 * share.max(0)).max(0);
            self.current_tick += 1;
        }
    }

    /// Bytes the forecast lets be delivered within the target delay from now.
    fn forecast_bytes(&self) -> i64 {
        let cdt = (self.current_tick + self.target_ticks).min(self.ticks - 1);
        self.packet_bytes as i64 * (self.counts[cdt] as i64 - self.counts[self.current_tick] as i64)
    }

    /// code `window_size`: what may be sent now.
    pub fn window_size(&mut self, now: Nanos) -> u64 {
        self.update_queue_estimate(now);
        (self.forecast_bytes() - self.queue_estimate).max(0) as u64
    }

    /// code `SendQueue::add`: how far back (in sequence bytes) the packets sent within the
    /// reorder window reach, capped at 65535.
    fn throwaway(&mut self, seq: u64, now: Nanos) -> u32 {
        self.sent_log.push_back((seq, now));
        while self.sent_log.len() > 1
            && self
                .sent_log
                .front()
                .is_some_and(|&(_, t)| t + self.reorder < now)
        {
            self.sent_log.pop_front();
        }
        (seq - self.sent_log.front().map_or(seq, |&(s, _)| s)).min(65_535) as u32
    }
}

impl DatagramSender for SproutSender {
    fn write(&mut self, _now: Nanos, bytes: u64) {
        self.app_left = self.app_left.saturating_add(bytes);
    }

    fn stop_writing(&mut self) {
        self.app_left = 0;
        self.flight_left = 0;
        self.heartbeat_due = false;
    }

    fn poll_transmit(&mut self, now: Nanos) -> Option<Datagram> {
        if self.app_left == 0 {
            return None;
        }
        if self.flight_left == 0 && !self.heartbeat_due {
            let w = self.window_size(now).min(self.app_left);
            if w > 0 {
                self.flight_left = w;
            } else if now >= self.next_heartbeat {
                self.heartbeat_due = true;
            } else {
                return None;
            }
        }
        let len = if self.heartbeat_due {
            0
        } else {
            self.flight_left.min(self.packet_bytes as u64) as u32
        };
        self.heartbeat_due = false;
        self.flight_left -= len as u64;
        let last = self.flight_left == 0;
        let seq = self.next_seq;
        let throwaway = self.throwaway(seq, now);
        let time_to_next = if last {
            (self.heartbeat / MS).min(65_535) as u32
        } else {
            0
        };
        self.next_seq += len as u64;
        if self.app_left != u64::MAX {
            self.app_left -= len as u64;
        }
        self.queue_estimate += len as i64;
        if last {
            // sproutbt2: the next transmission is due a heartbeat interval after a flight.
            self.next_heartbeat = self.next_heartbeat.max(now + self.heartbeat);
        }
        let ts = ((now / MS) as u32).wrapping_add(self.ts_offset);
        Some(Datagram {
            seq,
            len,
            header: [ts, (throwaway << 16) | time_to_next],
            retransmit: false,
        })
    }

    fn on_feedback(&mut self, now: Nanos, fb: &Feedback) {
        let n = (fb.small[1] as usize).min(self.ticks);
        unpack_counts(&fb.words, n, &mut self.counts);
        self.remote_forecast_time = Some(now);
        self.queue_estimate = (self.next_seq as i64 - fb.number as i64).max(0);
        self.current_tick = 0;
        self.update_queue_estimate(now);
        if fb.small[0] != u32::MAX {
            let ts_now = ((now / MS) as u32).wrapping_add(self.ts_offset);
            let r = ts_now.wrapping_sub(fb.small[0]) as u64;
            if r < 50_000 {
                self.rtt.sample(r * MS);
            }
        }
    }

    fn poll_timeout(&self) -> Option<Nanos> {
        if self.app_left == 0 {
            return None;
        }
        let tick = match self.remote_forecast_time {
            Some(t0) if self.current_tick + 1 < self.ticks => {
                Some(t0 + (self.current_tick as u64 + 1) * self.tick)
            }
            _ => None,
        };
        Some(tick.map_or(self.next_heartbeat, |t| t.min(self.next_heartbeat)))
    }

    fn on_timeout(&mut self, now: Nanos) {
        self.update_queue_estimate(now);
    }

    fn finished(&self) -> bool {
        self.app_left == 0
    }

    #[inline]
    fn mode(&self) -> u8 {
        match self.remote_forecast_time {
            None => 0,
            Some(_) if self.current_tick + 1 >= self.ticks => 2,
            Some(_) => 1,
        }
    }

    fn srtt(&self) -> Nanos {
        self.rtt.srtt_ns()
    }

    fn stats(&self) -> SenderStats {
        self.stats
    }

    fn trace(&self) -> TransportTrace {
        let fb = self.forecast_bytes().max(0);
        let target_s = (self.target_ticks as u64 * self.tick) as f64 / SEC as f64;
        let mode = self.mode();
        TransportTrace {
            window_bytes: fb as u64,
            srtt: self.rtt.srtt_ns(),
            mode,
            estimate: fb as f64 * 8.0 / target_s / 1e6,
            flag: mode == 2,
            aux: f64::NAN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{pack_counts, SproutReceiver};
    use super::*;
    use crate::datagram::DatagramReceiver;

    fn cfg() -> SproutConfig {
        SproutConfig::default()
    }

    #[test]
    fn sender_sends_the_forecast_minus_its_queue() {
        let c = cfg();
        let mut s = SproutSender::new(&c, 0);
        s.write(0, u64::MAX);
        // Forecast: 10 packets per tick, cumulative.
        let counts: Vec<u32> = (1..=8).map(|k| 10 * k).collect();
        let fb = Feedback {
            number: 0,
            value: 0,
            words: pack_counts(&counts),
            small: [u32::MAX, 8],
        };
        s.on_feedback(0, &fb);
        // Target 5 ticks: counts[5] − counts[0] = 50 packets.
        let mut sent = 0u64;
        let mut n = 0;
        while let Some(d) = s.poll_transmit(0) {
            sent += d.len as u64;
            n += 1;
            let last = d.header[1] & 0xffff;
            assert_eq!(last, if sent == 50 * 1440 { 50 } else { 0 });
        }
        assert_eq!((sent, n), (50 * 1440, 50));
        // One tick later the first tick's 10 packets have left the queue estimate and the
        // window's far end moved a tick: 10 more packets.
        assert_eq!(s.poll_timeout(), Some(20 * MS));
        s.on_timeout(20 * MS);
        assert_eq!(s.window_size(20 * MS), 10 * 1440);
        // A forecast saying 30 packets were received or lost: the queue is 20 packets.
        let fb = Feedback {
            number: 30 * 1440,
            ..fb
        };
        s.on_feedback(25 * MS, &fb);
        assert_eq!(s.queue_estimate(), 20 * 1440);
        assert_eq!(s.window_size(25 * MS), 30 * 1440);
    }

    #[test]
    fn sender_sends_heartbeats_when_the_forecast_is_zero() {
        let mut s = SproutSender::new(&cfg(), 0);
        s.write(0, u64::MAX);
        let fb = Feedback {
            number: 0,
            value: 0,
            words: [0; 4],
            small: [u32::MAX, 8],
        };
        s.on_feedback(0, &fb);
        let d = s.poll_transmit(0).expect("a heartbeat is due at once");
        assert_eq!((d.len, d.header[1] & 0xffff), (0, 50));
        assert_eq!(s.poll_transmit(MS), None);
        assert_eq!(s.poll_timeout(), Some(20 * MS));
        assert!(s.poll_transmit(50 * MS).is_some());
    }

    #[test]
    fn sender_and_receiver_converge_on_a_fixed_link() {
        // A 500 pkt/s bottleneck with 20 ms of delay each way, driven by hand in 1 ms steps:
        // the sender keeps the link mostly busy and its packets' queueing delay bounded.
        let c = cfg();
        let mut s = SproutSender::new(&c, 0);
        let mut r = SproutReceiver::new(&c);
        s.write(0, u64::MAX);
        let service = SEC / 500;
        let delay = 20 * MS;
        let mut link: VecDeque<(Datagram, Nanos)> = VecDeque::new();
        let mut arrivals: VecDeque<(Datagram, Nanos)> = VecDeque::new();
        let mut fbq: VecDeque<(Feedback, Nanos)> = VecDeque::new();
        let mut link_free = 0;
        let (mut delivered, mut sojourns) = (0u64, Vec::new());
        let end = 20 * SEC;
        let mut t = 0;
        while t < end {
            while let Some(d) = s.poll_transmit(t) {
                link.push_back((d, t + delay));
            }
            while let Some(&(d, at)) = link.front() {
                let start = link_free.max(at);
                if at > t || start > t {
                    break;
                }
                link.pop_front();
                link_free = start + if d.len == 0 { 0 } else { service };
                if t > 5 * SEC && d.len > 0 {
                    sojourns.push(link_free - at);
                    delivered += d.len as u64;
                }
                arrivals.push_back((d, link_free + delay));
            }
            while arrivals.front().is_some_and(|&(_, at)| at <= t) {
                let (d, _) = arrivals.pop_front().unwrap();
                r.on_datagram(t, &d);
            }
            if r.poll_timeout().is_some_and(|w| w <= t) {
                r.on_timeout(t);
            }
            while let Some(fb) = r.poll_feedback(t) {
                fbq.push_back((fb, t + delay));
            }
            while fbq.front().is_some_and(|&(_, at)| at <= t) {
                let (fb, _) = fbq.pop_front().unwrap();
                s.on_feedback(t, &fb);
            }
            if s.poll_timeout().is_some_and(|w| w <= t) {
                s.on_timeout(t);
            }
            t += MS;
        }
        let rate = delivered as f64 / 15.0 / 1440.0;
        sojourns.sort_unstable();
        let p95 = sojourns[sojourns.len() * 95 / 100];
        assert!(rate > 0.6 * 500.0, "throughput {rate} pkt/s of 500");
        assert!(p95 < 150 * MS, "95th percentile queueing {p95} ns");
        assert!(
            s.srtt() > 40 * MS && s.srtt() < 300 * MS,
            "srtt {}",
            s.srtt()
        );
    }
}
