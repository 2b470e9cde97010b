//! Transports of their own over datagrams: Sprout, Verus and PCC-Vivace.
//!
//! These schemes are not TCP congestion controls in their papers: Sprout and Verus have
//! their own receivers and feedback (a delivery forecast; a per-packet echo), and
//! PCC-Vivace is rate-based with monitor intervals over a UDT-like reliable datagram
//! service. Each is a sans-I/O **endpoint pair**, like the TCP sender and receiver: a sender
//! implementing [`DatagramSender`] and a receiver implementing [`DatagramReceiver`]. The
//! engine (or a unit test) feeds them packets and time and asks what to send and when to
//! wake them; they never read a clock and never allocate per packet once warmed up (their
//! per-packet records live in `VecDeque`s that grow to the window and are then reused).
//!
//! On the hot path the engine dispatches over the enums [`AnySender`] and [`AnyReceiver`]
//! (a `match`, no virtual call); the traits are the contract each scheme implements.
//!
//! What travels: a data packet is a [`Datagram`] (sequence number, payload length, the
//! scheme's two 32-bit header words); a receiver's control packet is a [`Feedback`] (a
//! number, a value, four 64-bit words, two 32-bit words). Both convert losslessly to the
//! engine's fixed-size TCP records ([`Segment`], [`Ack`]), so the network carries every
//! transport in the same `Copy` packet.
//!
//! - [`sprout`]: Winstein, Sivaraman, Balakrishnan, "Stochastic Forecasts Achieve High
//!   Throughput and Low Delay over Cellular Networks", NSDI 2013 \[sprout\];
//! - [`verus`]: Zaki, Pötsch, Chen, Subramanian, Görg, "Adaptive Congestion Control for
//!   Unpredictable Cellular Networks", SIGCOMM 2015 \[verus\];
//! - [`vivace`]: Dong, Meng, Zarchy, Arslan, Gilad, Godfrey, Schapira, "PCC Vivace:
//!   Online-Learning Congestion Control", NSDI 2018 \[pcc-vivace\].

use cellshare_core::Nanos;

use crate::wire::{Ack, Segment, UDP_HEADER_BYTES};

pub mod sprout;
pub mod verus;
pub mod vivace;

/// A data packet of a datagram transport.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Datagram {
    /// Sequence number (Sprout, PCC-Vivace: of the first payload byte; Verus: of the packet).
    pub seq: u64,
    /// Payload bytes (0 for a Sprout heartbeat).
    pub len: u32,
    /// The scheme's header words (Sprout: sender timestamp, throwaway | time-to-next; Verus:
    /// the send time in µs, the slow-start session | the window the packet was sent under;
    /// PCC-Vivace: the packet number, 0).
    pub header: [u32; 2],
    /// Whether it carries bytes sent before (PCC-Vivace's retransmissions).
    pub retransmit: bool,
}

impl Datagram {
    /// The engine's record of this datagram.
    #[inline]
    pub fn to_segment(self) -> Segment {
        Segment {
            seq: self.seq,
            len: self.len,
            ts_val: self.header[0],
            ts_ecr: self.header[1],
            retransmit: self.retransmit,
            syn: false,
        }
    }

    /// The datagram the engine's record carries.
    #[inline]
    pub fn from_segment(s: &Segment) -> Self {
        Self {
            seq: s.seq,
            len: s.len,
            header: [s.ts_val, s.ts_ecr],
            retransmit: s.retransmit,
        }
    }
}

/// A receiver's control packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Feedback {
    /// A number (Sprout: bytes received or written off as lost; Verus: the echoed packet
    /// number; PCC-Vivace: the acknowledged packet number).
    pub number: u64,
    /// A value (Sprout: the forecast's time; PCC-Vivace: bytes delivered in order).
    pub value: u64,
    /// Four words (Sprout: the forecast's eight counts, 16 bits each, in the first two).
    pub words: [u64; 4],
    /// Two small words (Sprout: the timestamp reply; Verus: the echoed header).
    pub small: [u32; 2],
}

impl Feedback {
    /// The engine's record of this feedback (the SACK slots carry the words; `sack_len`
    /// stays 0, so nothing reads them as SACK blocks).
    #[inline]
    pub fn to_ack(self) -> Ack {
        Ack {
            ack: self.number,
            rwnd: 0,
            ts_val: self.small[0],
            ts_ecr: self.small[1],
            sack: [
                (self.value, self.words[0]),
                (self.words[1], self.words[2]),
                (self.words[3], 0),
            ],
            sack_len: 0,
            syn: false,
        }
    }

    /// The feedback the engine's record carries.
    #[inline]
    pub fn from_ack(a: &Ack) -> Self {
        Self {
            number: a.ack,
            value: a.sack[0].0,
            words: [a.sack[0].1, a.sack[1].0, a.sack[1].1, a.sack[2].0],
            small: [a.ts_val, a.ts_ecr],
        }
    }
}

/// What a datagram transport exposes for the per-flow traces (`flow_trace`): its window,
/// RTT, mode, main estimate, flag and a second quantity, each with a meaning per scheme
/// (docs/transports.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransportTrace {
    /// Window, bytes (Sprout: what the forecast lets be queued; Verus: W; Vivace: rate × min RTT).
    pub window_bytes: u64,
    /// Smoothed RTT, ns (0 before the first sample).
    pub srtt: Nanos,
    /// Mode (scheme-defined).
    pub mode: u8,
    /// Main estimate (Sprout: cautious forecast rate over the target delay, Mbit/s; Verus:
    /// the delay target, ms; Vivace: sending rate, Mbit/s).
    pub estimate: f64,
    /// Flag (Sprout: forecast stale; Verus: loss phase; Vivace: a probe under way).
    pub flag: bool,
    /// A second quantity (Verus: the delay profile's delay at the current window, ms;
    /// Vivace: the utility of the latest monitor interval), or NaN (Sprout's is the
    /// receiver's, [`DatagramReceiver::trace_aux`]).
    pub aux: f64,
}

/// Counters every datagram sender keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Packets sent again (PCC-Vivace's retransmissions).
    pub retransmits: u64,
    /// Timeouts (Verus: its timeout handler; PCC-Vivace: its expiry timer).
    pub timeouts: u64,
    /// Packets the sender declared lost.
    pub losses: u64,
}

/// The sending half of a datagram transport.
pub trait DatagramSender {
    /// The application writes `bytes` more (`u64::MAX`: without end).
    fn write(&mut self, now: Nanos, bytes: u64);
    /// The application stops: what it wrote and was not sent yet is discarded.
    fn stop_writing(&mut self);
    /// The next packet to send now, if any.
    fn poll_transmit(&mut self, now: Nanos) -> Option<Datagram>;
    /// A control packet from the receiver arrived.
    fn on_feedback(&mut self, now: Nanos, fb: &Feedback);
    /// When the sender next wants to be woken (pacing, epochs, ticks, timeouts).
    fn poll_timeout(&self) -> Option<Nanos>;
    /// Wakes the sender at (or after) the time it asked for.
    fn on_timeout(&mut self, now: Nanos);
    /// Whether everything the application wrote is done (sent, and acknowledged where the
    /// scheme is reliable).
    fn finished(&self) -> bool;
    /// Smoothed RTT, ns (0 before the first sample).
    fn srtt(&self) -> Nanos;
    /// Counters.
    fn stats(&self) -> SenderStats;
    /// State for the traces.
    fn trace(&self) -> TransportTrace;
    /// `trace().mode` alone (the engine asks after every event, to log mode changes).
    fn mode(&self) -> u8 {
        self.trace().mode
    }
}

/// The receiving half of a datagram transport.
pub trait DatagramReceiver {
    /// A data packet arrived.
    fn on_datagram(&mut self, now: Nanos, d: &Datagram);
    /// A control packet to send now, if any.
    fn poll_feedback(&mut self, now: Nanos) -> Option<Feedback>;
    /// When the receiver next wants to be woken.
    fn poll_timeout(&self) -> Option<Nanos>;
    /// Wakes the receiver.
    fn on_timeout(&mut self, now: Nanos);
    /// Payload bytes delivered to the application (PCC-Vivace: in order; Sprout and Verus,
    /// which do not retransmit: every byte received).
    fn delivered(&self) -> u64;
    /// A second quantity for the traces (Sprout: the posterior mean link rate, Mbit/s), or
    /// NaN.
    fn trace_aux(&self) -> f64 {
        f64::NAN
    }
}

/// A datagram sender of any scheme (the engine's hot-path dispatch).
#[derive(Debug)]
pub enum AnySender {
    /// Sprout.
    Sprout(Box<sprout::SproutSender>),
    /// Verus.
    Verus(Box<verus::VerusSender>),
    /// PCC-Vivace.
    Vivace(Box<vivace::VivaceSender>),
}

/// A datagram receiver of any scheme.
#[derive(Debug)]
pub enum AnyReceiver {
    /// Sprout's forecasting receiver.
    Sprout(Box<sprout::SproutReceiver>),
    /// Verus's echoing receiver.
    Verus(Box<verus::VerusReceiver>),
    /// PCC-Vivace's acknowledging receiver.
    Vivace(Box<vivace::VivaceReceiver>),
}

macro_rules! each_sender {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            AnySender::Sprout($s) => $e,
            AnySender::Verus($s) => $e,
            AnySender::Vivace($s) => $e,
        }
    };
}

macro_rules! each_receiver {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            AnyReceiver::Sprout($r) => $e,
            AnyReceiver::Verus($r) => $e,
            AnyReceiver::Vivace($r) => $e,
        }
    };
}

impl AnySender {
    /// Short name (`"sprout"`, `"verus"`, `"vivace"`).
    pub fn name(&self) -> &'static str {
        match self {
            AnySender::Sprout(_) => "sprout",
            AnySender::Verus(_) => "verus",
            AnySender::Vivace(_) => "vivace",
        }
    }

    /// Header bytes on each data packet: IP/UDP and the scheme's own header.
    pub fn header_bytes(&self) -> u32 {
        UDP_HEADER_BYTES
            + match self {
                AnySender::Sprout(_) => sprout::HEADER_BYTES,
                AnySender::Verus(_) => verus::HEADER_BYTES,
                AnySender::Vivace(_) => vivace::HEADER_BYTES,
            }
    }
}

impl AnyReceiver {
    /// Bytes of one control packet on the wire.
    pub fn feedback_bytes(&self) -> u32 {
        match self {
            AnyReceiver::Sprout(_) => sprout::FEEDBACK_BYTES,
            AnyReceiver::Verus(_) => verus::FEEDBACK_BYTES,
            AnyReceiver::Vivace(_) => vivace::FEEDBACK_BYTES,
        }
    }
}

impl DatagramSender for AnySender {
    #[inline]
    fn write(&mut self, now: Nanos, bytes: u64) {
        each_sender!(self, s => s.write(now, bytes))
    }
    #[inline]
    fn stop_writing(&mut self) {
        each_sender!(self, s => s.stop_writing())
    }
    #[inline]
    fn poll_transmit(&mut self, now: Nanos) -> Option<Datagram> {
        each_sender!(self, s => s.poll_transmit(now))
    }
    #[inline]
    fn on_feedback(&mut self, now: Nanos, fb: &Feedback) {
        each_sender!(self, s => s.on_feedback(now, fb))
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Nanos> {
        each_sender!(self, s => s.poll_timeout())
    }
    #[inline]
    fn on_timeout(&mut self, now: Nanos) {
        each_sender!(self, s => s.on_timeout(now))
    }
    #[inline]
    fn finished(&self) -> bool {
        each_sender!(self, s => s.finished())
    }
    #[inline]
    fn srtt(&self) -> Nanos {
        each_sender!(self, s => s.srtt())
    }
    fn stats(&self) -> SenderStats {
        each_sender!(self, s => s.stats())
    }
    fn trace(&self) -> TransportTrace {
        each_sender!(self, s => s.trace())
    }
    #[inline]
    fn mode(&self) -> u8 {
        each_sender!(self, s => DatagramSender::mode(&**s))
    }
}

impl DatagramReceiver for AnyReceiver {
    #[inline]
    fn on_datagram(&mut self, now: Nanos, d: &Datagram) {
        each_receiver!(self, r => r.on_datagram(now, d))
    }
    #[inline]
    fn poll_feedback(&mut self, now: Nanos) -> Option<Feedback> {
        each_receiver!(self, r => r.poll_feedback(now))
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Nanos> {
        each_receiver!(self, r => r.poll_timeout())
    }
    #[inline]
    fn on_timeout(&mut self, now: Nanos) {
        each_receiver!(self, r => r.on_timeout(now))
    }
    #[inline]
    fn delivered(&self) -> u64 {
        each_receiver!(self, r => r.delivered())
    }
    fn trace_aux(&self) -> f64 {
        each_receiver!(self, r => r.trace_aux())
    }
}

/// An RFC 6298-style smoothed RTT (α = 1/8, β = 1/4), shared by the senders that keep one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RttEstimator {
    /// Smoothed RTT, ns (0 before the first sample).
    pub srtt: f64,
    /// RTT variation, ns.
    pub rttvar: f64,
    /// Smallest sample, ns (0 before the first).
    pub min: Nanos,
    /// Latest sample, ns.
    pub latest: Nanos,
}

impl RttEstimator {
    /// Takes one sample.
    #[inline]
    pub fn sample(&mut self, rtt: Nanos) {
        let r = rtt as f64;
        if self.srtt == 0.0 {
            self.srtt = r;
            self.rttvar = r / 2.0;
        } else {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        }
        if self.min == 0 || rtt < self.min {
            self.min = rtt;
        }
        self.latest = rtt;
    }

    /// The smoothed RTT in ns.
    #[inline]
    pub fn srtt_ns(&self) -> Nanos {
        self.srtt as Nanos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let d = Datagram {
            seq: 1 << 40,
            len: 1440,
            header: [7, u32::MAX],
            retransmit: true,
        };
        assert_eq!(Datagram::from_segment(&d.to_segment()), d);
        let f = Feedback {
            number: 3,
            value: u64::MAX,
            words: [1, 2, 3, 4],
            small: [5, 6],
        };
        let a = f.to_ack();
        assert_eq!(
            a.sack_len, 0,
            "feedback words are never read as SACK blocks"
        );
        assert_eq!(Feedback::from_ack(&a), f);
    }

    #[test]
    fn rtt_estimator_follows_rfc6298() {
        let mut r = RttEstimator::default();
        r.sample(100);
        assert_eq!((r.srtt, r.rttvar, r.min), (100.0, 50.0, 100));
        r.sample(200);
        assert_eq!(r.srtt, 112.5);
        assert_eq!(r.rttvar, 0.75 * 50.0 + 0.25 * 100.0);
        assert_eq!(r.min, 100);
    }
}
