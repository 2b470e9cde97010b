//! Transport selection for flows, and the sender/receiver endpoints the engine drives.
//!
//! Endpoints are enums (not trait objects): the engine calls them for every packet. Besides
//! TCP and CBR, a flow may run a transport of its own over datagrams (Sprout, Verus,
//! PCC-Vivace: `cellshare_transport::datagram`), whose packets travel in the same records.

use serde::{Deserialize, Serialize};

use cellshare_core::Nanos;
use cellshare_transport::cc::{CcTrace, ExternalCc};
use cellshare_transport::datagram::{
    sprout::{SproutConfig, SproutReceiver, SproutSender},
    verus::{VerusConfig, VerusReceiver, VerusSender},
    vivace::{VivaceConfig, VivaceReceiver, VivaceSender},
    AnyReceiver, AnySender, Datagram, DatagramReceiver, DatagramSender, Feedback,
};
use cellshare_transport::tcp::{TcpConfig, TcpReceiver, TcpSender};
use cellshare_transport::udp::{CbrSource, DatagramSink};
use cellshare_transport::wire::{Ack, Segment, TCP_HEADER_BYTES, TCP_SYN_HEADER_BYTES, UDP_HEADER_BYTES};

/// The congestion controllers' registry lives with them (`cellshare_transport::cc`).
pub use cellshare_transport::cc::CcConfig;

/// A flow's transport (`kind` selects it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TransportConfig {
    /// UDP-like constant bit rate, no feedback. A rate above the UE's capacity saturates it.
    Cbr {
        /// Sending rate on the wire (headers included), Mbps (1e-6 to 1e6: at least 1 bit/s).
        rate_mbps: f64,
        /// Payload bytes per datagram (1..=65507). Default 1472 (1500-byte packets).
        #[serde(default = "default_cbr_payload")]
        packet_bytes: u32,
    },
    /// UDP datagrams the flow's application sends itself (a `video_call`, whose rate its own
    /// congestion control sets); only for such apps.
    Udp {},
    /// TCP as Linux runs it (SACK with RACK-TLP, F-RTO, D-SACK and undo, Linux's RTO,
    /// timestamps, delayed ACKs; see docs/tcp.md) with a pluggable congestion controller.
    Tcp {
        /// The congestion controller. Default `{ kind = "cubic" }`.
        #[serde(default)]
        cc: CcConfig,
        /// TCP endpoint parameters (MSS, initial window, timers, receive window).
        #[serde(default)]
        tcp: TcpConfig,
    },
    /// Sprout \[sprout\] (Winstein et al., NSDI 2013): the receiver's Bayesian forecast of the link rate
    /// (a Poisson process whose rate moves in Brownian motion), the sender keeping each
    /// packet's queueing under 100 ms with 95 % probability. Its own receiver and feedback;
    /// no retransmission. docs/transports.md.
    Sprout(SproutConfig),
    /// Verus \[verus\] (Zaki et al., SIGCOMM 2015): 5 ms epochs, a delay profile learned from
    /// (window, delay) pairs, a delay target moved by δ1/δ2 and capped at R·D_min,
    /// multiplicative decrease on loss. Per-packet echoes; no retransmission.
    Verus(VerusConfig),
    /// PCC-Vivace \[pcc-vivace\] (Dong et al., NSDI 2018): rate-based monitor intervals, the latency-aware
    /// utility x^0.9 − 900·x·dRTT/dT − 11.35·x·L, online gradient ascent with a confidence
    /// amplifier and a dynamic change boundary; UDT-like reliability (per-packet
    /// acknowledgements, lost packets resent first).
    Vivace(VivaceConfig),
}

/// A range message of TCP's options or of a controller's, as (key below `transport.`, value,
/// expectation), so that the error names the key the value came from. The messages have two
/// forms, each led by nested table names (`rwnd: …`): `field must be E, got V` (TCP's
/// options) and `controller.field = V: expected E` (the controllers'). A message of neither
/// form is kept whole as the expectation of `prefix`, with an empty value.
fn keyed(prefix: &str, msg: &str) -> (String, String, String) {
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut key = prefix.to_string();
    let mut m = msg;
    while let Some((head, rest)) = m.split_once(": ") {
        if !ident(head) {
            break;
        }
        key = format!("{key}.{head}");
        m = rest;
    }
    if let Some((lhs, expected)) = m.split_once(": expected ") {
        if let Some((k, v)) = lhs.split_once(" = ") {
            // The controller's own name leads its key; the path already says `cc`.
            let field = k.split_once('.').map_or(k, |(_, f)| f);
            if field.split('.').all(ident) {
                return (format!("{key}.{field}"), v.to_string(), expected.to_string());
            }
        }
    }
    if let Some((field, rest)) = m.split_once(" must ") {
        if let (true, Some(i)) = (ident(field), rest.rfind(", got ")) {
            let expected = rest[..i].strip_prefix("be ").unwrap_or(&rest[..i]);
            return (format!("{key}.{field}"), rest[i + 6..].to_string(), expected.to_string());
        }
    }
    (key, String::new(), m.to_string())
}

fn default_cbr_payload() -> u32 {
    1500 - UDP_HEADER_BYTES
}

impl TransportConfig {
    /// Checks ranges; on error returns (key below `transport.`, value, expectation).
    pub fn validate(&self) -> Result<(), (String, String, String)> {
        match self {
            TransportConfig::Cbr { rate_mbps, packet_bytes } => {
                // The source counts whole bits per second: at least 1 bit/s (1e-6 Mbps).
                if !(*rate_mbps >= 1e-6 && *rate_mbps <= 1e6) {
                    return Err((
                        "rate_mbps".into(),
                        rate_mbps.to_string(),
                        "a rate in Mbps in [1e-6, 1e6] (at least 1 bit/s)".into(),
                    ));
                }
                if !(1..=65_507).contains(packet_bytes) {
                    return Err(("packet_bytes".into(), packet_bytes.to_string(), "a payload size in 1..=65507 bytes".into()));
                }
            }
            TransportConfig::Tcp { cc, tcp } => {
                cc.validate().map_err(|e| keyed("cc", &e))?;
                tcp.validate().map_err(|e| keyed("tcp", &e))?;
            }
            TransportConfig::Udp {} => {}
            TransportConfig::Sprout(c) => c.validate()?,
            TransportConfig::Verus(c) => c.validate()?,
            TransportConfig::Vivace(c) => c.validate()?,
        }
        Ok(())
    }

    /// The transport's `kind` as written in a scenario.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportConfig::Cbr { .. } => "cbr",
            TransportConfig::Udp {} => "udp",
            TransportConfig::Tcp { .. } => "tcp",
            TransportConfig::Sprout(_) => "sprout",
            TransportConfig::Verus(_) => "verus",
            TransportConfig::Vivace(_) => "vivace",
        }
    }

    /// Payload bytes over wire bytes of a full data packet.
    pub fn payload_share(&self) -> f64 {
        use cellshare_transport::datagram::{sprout, verus, vivace};
        let (p, h) = match self {
            TransportConfig::Tcp { tcp, .. } => (tcp.mss, TCP_HEADER_BYTES),
            TransportConfig::Cbr { packet_bytes, .. } => (*packet_bytes, UDP_HEADER_BYTES),
            // An app's datagrams vary in size; a full 1500-byte packet (as CBR's default) is the reference.
            TransportConfig::Udp {} => (default_cbr_payload(), UDP_HEADER_BYTES),
            TransportConfig::Sprout(c) => (c.packet_bytes, UDP_HEADER_BYTES + sprout::HEADER_BYTES),
            TransportConfig::Verus(c) => (c.packet_bytes, UDP_HEADER_BYTES + verus::HEADER_BYTES),
            TransportConfig::Vivace(c) => (c.packet_bytes, UDP_HEADER_BYTES + vivace::HEADER_BYTES),
        };
        p as f64 / (p + h) as f64
    }

    /// Short label for results (e.g. `"cbr"`, `"tcp-cubic"`).
    pub fn label(&self) -> String {
        match self {
            TransportConfig::Cbr { .. } => "cbr".into(),
            TransportConfig::Udp {} => "udp".into(),
            TransportConfig::Tcp { cc, .. } => format!("tcp-{}", cc.name()),
            other => other.kind().into(),
        }
    }
}

/// The sending end of a flow.
#[derive(Debug)]
pub enum Sender {
    /// Constant-bit-rate datagrams.
    Cbr {
        /// The current source (replaced at each application start).
        src: CbrSource,
        /// Wire rate, bits per second.
        rate_bps: u64,
        /// Payload per datagram.
        payload: u32,
    },
    /// A TCP connection.
    Tcp(Box<TcpSender>),
    /// A datagram transport's sender (Sprout, Verus, PCC-Vivace).
    Datagram(AnySender),
    /// A finished connection whose state was freed: only its counters remain.
    Closed {
        /// Retransmitted segments.
        retransmits: u64,
        /// Retransmission timeouts.
        timeouts: u64,
    },
}

/// The receiving end of a flow.
#[derive(Debug)]
pub enum Receiver {
    /// Datagram counter.
    Sink(DatagramSink),
    /// A TCP receiver.
    Tcp(Box<TcpReceiver>),
    /// A datagram transport's receiver.
    Datagram(AnyReceiver),
    /// A finished receiver whose state was freed.
    Closed {
        /// Payload bytes it delivered.
        delivered: u64,
    },
}

/// Header bytes added to a segment's payload on the wire.
pub fn header_bytes(s: &Sender) -> u32 {
    match s {
        Sender::Cbr { .. } => UDP_HEADER_BYTES,
        Sender::Datagram(d) => d.header_bytes(),
        Sender::Tcp(_) | Sender::Closed { .. } => TCP_HEADER_BYTES,
    }
}

impl Sender {
    /// Builds the sender for `cfg`, created at `now`; it sends nothing until
    /// [`Sender::app_start`]. `ts_offset_ms` offsets its timestamp clock; `seed` and `index`
    /// (the scenario's seed, the flow's index) seed its controller's random draws.
    pub fn new(cfg: &TransportConfig, now: Nanos, ts_offset_ms: u32, seed: u64, index: u64) -> Self {
        Self::with_external(cfg, now, ts_offset_ms, seed, index, None)
    }

    /// [`Sender::new`] with the factory of the controllers written outside the transport
    /// crate (`cc = { kind = "python" }`), if the simulation has one.
    pub fn with_external(
        cfg: &TransportConfig,
        now: Nanos,
        ts_offset_ms: u32,
        seed: u64,
        index: u64,
        external: Option<&dyn ExternalCc>,
    ) -> Self {
        match cfg {
            TransportConfig::Cbr { rate_mbps, packet_bytes } => {
                let rate_bps = (rate_mbps * 1e6).round() as u64;
                Sender::Cbr { src: CbrSource::new(rate_bps, *packet_bytes, now, 0), rate_bps, payload: *packet_bytes }
            }
            // The app hands its datagrams to the engine itself: an idle datagram source
            // (nothing to send; the rate and size are never used).
            TransportConfig::Udp {} => Sender::Cbr { src: CbrSource::new(1, 1, now, 0), rate_bps: 1, payload: 1 },
            TransportConfig::Tcp { cc, tcp } => {
                let controller = cc.build_with(tcp.mss, tcp.initial_window_bytes(), seed, index, external);
                Sender::Tcp(Box::new(TcpSender::new(tcp, controller, now, ts_offset_ms)))
            }
            TransportConfig::Sprout(c) => Sender::Datagram(AnySender::Sprout(Box::new(SproutSender::new(c, ts_offset_ms)))),
            TransportConfig::Verus(c) => Sender::Datagram(AnySender::Verus(Box::new(VerusSender::new(c)))),
            TransportConfig::Vivace(c) => Sender::Datagram(AnySender::Vivace(Box::new(VivaceSender::new(c, seed, index)))),
        }
    }

    /// The application starts (or resumes) sending `limit` more payload bytes
    /// (`u64::MAX` = without end).
    pub fn app_start(&mut self, now: Nanos, limit: u64) {
        match self {
            Sender::Cbr { src, rate_bps, payload } => *src = CbrSource::new(*rate_bps, *payload, now, limit),
            Sender::Tcp(t) => t.write(limit),
            Sender::Datagram(d) => d.write(now, limit),
            Sender::Closed { .. } => {}
        }
    }

    /// This direction of a TCP connection was opened by the other direction's handshake (an
    /// app's server-side leg: the client's leg connects, as the emulator's traffic tool).
    pub fn established_by_peer(&mut self) {
        if let Sender::Tcp(t) = self {
            t.established_by_peer();
        }
    }

    /// The application stops sending: data not yet handed to the network is discarded
    /// (TCP still delivers, and retransmits, what it has sent).
    pub fn app_stop(&mut self, now: Nanos) {
        match self {
            Sender::Cbr { src, rate_bps, payload } => *src = CbrSource::new(*rate_bps, *payload, now, 0),
            Sender::Tcp(t) => t.stop_writing(),
            Sender::Datagram(d) => d.stop_writing(),
            Sender::Closed { .. } => {}
        }
    }

    /// Next segment to send now, if any.
    #[inline]
    pub fn poll_transmit(&mut self, now: Nanos) -> Option<Segment> {
        match self {
            Sender::Cbr { src, .. } => src.poll_transmit(now),
            Sender::Tcp(t) => t.poll_transmit(now),
            Sender::Datagram(d) => d.poll_transmit(now).map(Datagram::to_segment),
            Sender::Closed { .. } => None,
        }
    }

    /// When the bytes at `seq` (outstanding) were first sent: TCP keeps it per segment; CBR
    /// never resends, and the datagram transports keep no such record (PCC-Vivace's resent
    /// datagram counts from its resending).
    pub fn first_sent_of(&self, seq: u64) -> Option<Nanos> {
        match self {
            Sender::Tcp(t) => t.first_sent_of(seq),
            Sender::Cbr { .. } | Sender::Datagram(_) | Sender::Closed { .. } => None,
        }
    }

    /// Processes an ACK.
    #[inline]
    pub fn on_ack(&mut self, now: Nanos, ack: &Ack) {
        match self {
            Sender::Cbr { .. } | Sender::Closed { .. } => {}
            Sender::Tcp(t) => t.on_ack(now, ack),
            Sender::Datagram(d) => d.on_feedback(now, &Feedback::from_ack(ack)),
        }
    }

    /// When the sender next wants to be woken.
    #[inline]
    pub fn poll_timeout(&self) -> Option<Nanos> {
        match self {
            Sender::Cbr { src, .. } => src.poll_timeout(),
            Sender::Tcp(t) => t.poll_timeout(),
            Sender::Datagram(d) => d.poll_timeout(),
            Sender::Closed { .. } => None,
        }
    }

    /// Timer expiry.
    #[inline]
    pub fn on_timeout(&mut self, now: Nanos) {
        match self {
            Sender::Cbr { .. } | Sender::Closed { .. } => {}
            Sender::Tcp(t) => t.on_timeout(now),
            Sender::Datagram(d) => d.on_timeout(now),
        }
    }

    /// Smoothed RTT the sender would carry in packets (Sneaker's end-to-end signal), ns.
    #[inline]
    pub fn rtt_hint(&self) -> u64 {
        match self {
            Sender::Cbr { .. } | Sender::Closed { .. } => 0,
            Sender::Tcp(t) => t.srtt(),
            Sender::Datagram(d) => d.srtt(),
        }
    }

    /// The congestion controller's trace point (mode, estimate, flag), if a TCP sender, or
    /// a datagram transport's.
    #[inline]
    pub fn cc_trace(&self) -> Option<CcTrace> {
        match self {
            Sender::Cbr { .. } | Sender::Closed { .. } => None,
            Sender::Tcp(t) => Some(t.cc().trace()),
            Sender::Datagram(d) => {
                let tr = d.trace();
                Some(CcTrace { mode: tr.mode, estimate: tr.estimate, flag: tr.flag })
            }
        }
    }

    /// The mode of [`Self::cc_trace`] alone (asked after every event that can change it).
    #[inline]
    pub fn cc_mode(&self) -> Option<u8> {
        match self {
            Sender::Cbr { .. } | Sender::Closed { .. } => None,
            Sender::Tcp(t) => Some(t.cc().trace().mode),
            Sender::Datagram(d) => Some(d.mode()),
        }
    }

    /// Congestion window (bytes) and smoothed RTT (ns), if a TCP sender; a datagram
    /// transport's window (docs/transports.md says what it is per scheme).
    pub fn window(&self) -> Option<(u64, Nanos)> {
        match self {
            Sender::Cbr { .. } | Sender::Closed { .. } => None,
            Sender::Tcp(t) => Some((t.cwnd(), t.srtt())),
            Sender::Datagram(d) => {
                let tr = d.trace();
                Some((tr.window_bytes, tr.srtt))
            }
        }
    }

    /// A datagram transport's second traced quantity (NaN for the others).
    pub fn trace_aux(&self) -> f64 {
        match self {
            Sender::Datagram(d) => d.trace().aux,
            _ => f64::NAN,
        }
    }

    /// Payload bytes handed to the network so far (first transmissions, CBR) — for a CBR
    /// sender, divided by the payload size, the datagrams sent.
    pub fn cbr_datagrams(&self) -> u64 {
        match self {
            Sender::Cbr { src, payload, .. } => src.bytes_sent() / (*payload).max(1) as u64,
            Sender::Tcp(_) | Sender::Datagram(_) | Sender::Closed { .. } => 0,
        }
    }

    /// Retransmitted segments and retransmission timeouts so far.
    pub fn loss_stats(&self) -> (u64, u64) {
        match self {
            Sender::Cbr { .. } => (0, 0),
            Sender::Tcp(t) => (t.stats().retransmits, t.stats().timeouts),
            Sender::Datagram(d) => (d.stats().retransmits, d.stats().timeouts),
            Sender::Closed { retransmits, timeouts } => (*retransmits, *timeouts),
        }
    }

    /// Whether a TCP sender has had every byte its application wrote acknowledged (a
    /// finished finite flow: nothing more will be sent); a datagram sender, whether it is done
    /// (PCC-Vivace: everything acknowledged; Sprout, Verus: everything sent).
    pub fn all_acked(&self) -> bool {
        match self {
            Sender::Tcp(t) => t.all_acked(),
            Sender::Datagram(d) => d.finished(),
            Sender::Cbr { .. } | Sender::Closed { .. } => false,
        }
    }

    /// Frees the connection's state, keeping its counters.
    pub fn close(&mut self) {
        let (retransmits, timeouts) = self.loss_stats();
        *self = Sender::Closed { retransmits, timeouts };
    }
}

impl Receiver {
    /// Builds the receiver matching `cfg`, created at `now`.
    pub fn new(cfg: &TransportConfig, now: Nanos, ts_offset_ms: u32) -> Self {
        match cfg {
            TransportConfig::Cbr { .. } | TransportConfig::Udp {} => Receiver::Sink(DatagramSink::default()),
            TransportConfig::Tcp { tcp, .. } => Receiver::Tcp(Box::new(TcpReceiver::new(tcp, now, ts_offset_ms))),
            TransportConfig::Sprout(c) => Receiver::Datagram(AnyReceiver::Sprout(Box::new(SproutReceiver::new(c)))),
            TransportConfig::Verus(_) => Receiver::Datagram(AnyReceiver::Verus(Box::new(VerusReceiver::new()))),
            TransportConfig::Vivace(_) => Receiver::Datagram(AnyReceiver::Vivace(Box::new(VivaceReceiver::new()))),
        }
    }

    /// Bytes on the wire of an acknowledgement (TCP: headers and SACK option) or of a
    /// datagram transport's control packet.
    #[inline]
    pub fn ack_size(&self, ack: &Ack) -> u32 {
        match self {
            Receiver::Datagram(d) => d.feedback_bytes(),
            // A SYN-ACK carries the handshake's options (60 bytes, `tcp_synack_options`).
            _ if ack.syn => TCP_SYN_HEADER_BYTES,
            _ => TCP_HEADER_BYTES + if ack.sack_len > 0 { 4 + 8 * ack.sack_len as u32 } else { 0 },
        }
    }

    /// A datagram receiver's traced quantity (Sprout: the posterior mean link rate, Mbit/s),
    /// NaN for the others.
    pub fn trace_aux(&self) -> f64 {
        match self {
            Receiver::Datagram(d) => d.trace_aux(),
            _ => f64::NAN,
        }
    }

    /// Processes an arriving segment.
    #[inline]
    pub fn on_segment(&mut self, now: Nanos, seg: &Segment) {
        match self {
            Receiver::Sink(s) => s.on_segment(seg),
            Receiver::Tcp(t) => t.on_segment(now, seg),
            Receiver::Datagram(d) => d.on_datagram(now, &Datagram::from_segment(seg)),
            Receiver::Closed { .. } => {}
        }
    }

    /// Segments received whose bytes the receiver already held (TCP; 0 otherwise).
    #[inline]
    pub fn duplicate_segments(&self) -> u64 {
        match self {
            Receiver::Tcp(t) => t.stats().duplicate_segments,
            Receiver::Sink(_) | Receiver::Datagram(_) | Receiver::Closed { .. } => 0,
        }
    }

    /// An ACK to send now, if any.
    #[inline]
    pub fn poll_ack(&mut self, now: Nanos) -> Option<Ack> {
        match self {
            Receiver::Sink(_) | Receiver::Closed { .. } => None,
            Receiver::Tcp(t) => t.poll_ack(now),
            Receiver::Datagram(d) => d.poll_feedback(now).map(Feedback::to_ack),
        }
    }

    /// When the receiver next wants to be woken (delayed-ACK timer).
    #[inline]
    pub fn poll_timeout(&self) -> Option<Nanos> {
        match self {
            Receiver::Sink(_) | Receiver::Closed { .. } => None,
            Receiver::Tcp(t) => t.poll_timeout(),
            Receiver::Datagram(d) => d.poll_timeout(),
        }
    }

    /// Timer expiry.
    #[inline]
    pub fn on_timeout(&mut self, now: Nanos) {
        match self {
            Receiver::Sink(_) | Receiver::Closed { .. } => {}
            Receiver::Tcp(t) => t.on_timeout(now),
            Receiver::Datagram(d) => d.on_timeout(now),
        }
    }

    /// Payload bytes delivered to the application (in order for TCP).
    #[inline]
    pub fn delivered(&self) -> u64 {
        match self {
            Receiver::Sink(s) => s.bytes,
            Receiver::Tcp(t) => t.delivered(),
            Receiver::Datagram(d) => d.delivered(),
            Receiver::Closed { delivered } => *delivered,
        }
    }

    /// Frees the receiver's state, keeping the bytes it delivered.
    pub fn close(&mut self) {
        *self = Receiver::Closed { delivered: self.delivered() };
    }
}

#[cfg(test)]
mod external_tests {
    use crate::validate::check_external;
    use crate::Scenario;

    #[test]
    fn without_a_factory_a_python_controller_is_refused_by_key() {
        let text = "[simulation]\nduration_s = 1\n[[ues]]\ncount = 1\nchannel = { kind = \"fixed\", rate_mbps = 10.0 }\n\
                    [[flows]]\nue = 0\ntransport = { kind = \"tcp\", cc = { kind = \"python\", class = \"m:C\" } }\n";
        let sc = Scenario::from_toml_str(text).unwrap();
        let e = check_external(&sc, None).unwrap_err();
        assert_eq!(e.path, "flows[0].transport.cc.kind");
        assert!(e.message.contains("runs only when the simulation is run from Python"), "{e}");
        let e = crate::Simulation::new(&sc, &Default::default()).unwrap_err();
        assert_eq!(e.path, "flows[0].transport.cc.kind");
        // The compiled-in controllers need no factory.
        let sc = Scenario::from_toml_str(&text.replace("kind = \"python\", class = \"m:C\"", "kind = \"reno\"")).unwrap();
        assert_eq!(check_external(&sc, None), Ok(()));
    }
}
