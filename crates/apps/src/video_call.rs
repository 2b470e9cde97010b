//! A real-time video call: a video sender whose target bitrate follows Google Congestion
//! Control ([`crate::gcc`]), RTP-like media over UDP, RTCP-like feedback from the receiver.
//! BoDe \[bode\] §VI-A measures Skype and Hangouts calls ("Skype/Hangout can tolerate 100ms delays");
//! this is the rate-adaptive real-time sender they stand for.
//!
//! # Model
//!
//! - **Encoder**: a frame every 1/`fps` s; a frame is `target / fps` bits, a key frame
//!   `key_frame_factor` times that. Key frames: the first frame, one every
//!   `key_frame_interval_s` (0: none periodic), and the next frame after a receiver's key
//!   frame request (PLI). **A choice**: no pacer (draft-ietf-rmcat-gcc-02 §4 paces bursts
//!   of 5 ms); a frame's packets leave together at its capture, so a frame is one packet
//!   group of §5.2.
//! - **Packets**: a frame is cut into ⌈size / `packet_bytes`⌉ packets of equal payload plus
//!   a 12-byte RTP header (IP and UDP headers are added by the network, 28 bytes).
//!   Datagram fields: `seq` the RTP sequence number, `tag` the frame number, `a` the index
//!   in the frame (low 16 bits) and the frame's packet count (high 16 bits), `b` bit 0 the
//!   key-frame flag.
//! - **Receiver**: a frame is complete when all its packets arrived (the network keeps
//!   order, so a frame is known lost when a later frame's packet arrives first). A lost frame
//!   breaks decoding until a complete key frame arrives (later frames are *undecodable*),
//!   and the receiver asks for a key frame at once (PLI, repeated after 300 ms while
//!   undecodable). **A choice**: no NACK retransmissions and no FEC. A rendered frame's
//!   delay is the arrival of its last packet minus its capture (no jitter buffer).
//! - **Congestion control** ([`crate::gcc`]): the receiver runs the delay-based controller
//!   on every packet group (frame) and the received rate R̂; the sender runs the loss-based
//!   controller on each report; the encoder's target is min(A_s, A_r) within [`min_kbps`,
//!   `max_kbps`].
//! - **Feedback**: every `feedback_interval_ms` (default 1 s) and at once when A_r falls
//!   below 97 % of the value last sent (draft-ietf-rmcat-gcc-02 §5.5: REMB "sent ... every
//!   second" or "when the estimate decreases by more than 3 %"), or when a key frame is
//!   needed, the receiver sends a 64-byte RTCP-like datagram: `tag` A_r in bit/s (0 before
//!   the first estimate), `a` the packets expected since the last report, `b` the packets
//!   lost (low 31 bits; RFC 3550 §6.4.1's interval loss) and bit 31 a PLI.
//! - **Outputs** (per frame and summarized): capture time, size, target, key flag, status
//!   (rendered / undecodable / lost), delay; frame delay p50/p95/p99, rendered frames per
//!   second, received bitrate; **freezes**: a frame is frozen when it is not rendered or is
//!   rendered more than `freeze_ms` after its capture (default 400 ms: ITU-T G.114's \[g114\] limit
//!   of one-way delay for interactive use), and a freeze is a run of frozen frames.
//!
//! [`min_kbps`]: VideoCallConfig::min_kbps

use cellshare_core::{Nanos, MS, SEC};
use serde::{Deserialize, Serialize};

use crate::gcc::{AimdRateControl, ArrivalFilter, ArrivalGroups, LossBasedControl, OveruseDetector, RateWindow};
use crate::{check_range, mean, percentile, App, Datagram, Io, LegName, LegSpec, ParamError};

/// RTP header bytes (RFC 3550 §5.1, no CSRC, no extension).
pub const RTP_HEADER_BYTES: u32 = 12;
/// Payload bytes of a feedback datagram (an RTCP compound packet: a receiver report with one
/// report block, 32 bytes, a REMB, 24 bytes, and room for a PLI, 8 bytes).
pub const FEEDBACK_BYTES: u32 = 64;
/// How long the receiver waits before repeating a key frame request, ns.
pub const PLI_REPEAT: Nanos = 300 * MS;

/// The media leg (server → UE for a downlink call) and the feedback leg.
pub const MEDIA: u8 = 0;
/// The feedback leg.
pub const FEEDBACK: u8 = 1;

/// `flows[i].app = { kind = "video_call", ... }`: a real-time video call over UDP with
/// Google Congestion Control (`transport = { kind = "udp" }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct VideoCallConfig {
    /// Frames per second, in [1, 120]. Default 30.
    pub fps: f64,
    /// The encoder's first target, kbit/s. Default 300 (WebRTC's default start bitrate).
    pub start_kbps: f64,
    /// The lowest target, kbit/s (> 0). Default 30.
    pub min_kbps: f64,
    /// The highest target, kbit/s (≥ `min_kbps`). Default 2500 (a 720p30 call).
    pub max_kbps: f64,
    /// A key frame every this many seconds (0: only the first frame and on the receiver's
    /// request). Default 0.
    pub key_frame_interval_s: f64,
    /// A key frame's size relative to a frame at the target, in [1, 20]. Default 3.
    pub key_frame_factor: f64,
    /// Most RTP payload bytes per packet, in 100..=9000. Default 1200.
    pub packet_bytes: u32,
    /// Receiver feedback (REMB + receiver report) interval, ms, in [10, 5000]. Default
    /// 1000.
    pub feedback_interval_ms: f64,
    /// Frame delay above which a frame counts as frozen, ms (> 0). Default 400.
    pub freeze_ms: f64,
}

impl Default for VideoCallConfig {
    fn default() -> Self {
        Self {
            fps: 30.0,
            start_kbps: 300.0,
            min_kbps: 30.0,
            max_kbps: 2500.0,
            key_frame_interval_s: 0.0,
            key_frame_factor: 3.0,
            packet_bytes: 1200,
            feedback_interval_ms: 1000.0,
            freeze_ms: 400.0,
        }
    }
}

impl VideoCallConfig {
    /// Checks ranges; errors name the key below `app`.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_range("fps", self.fps, 1.0, 120.0, "frames per second in [1, 120]")?;
        check_range("min_kbps", self.min_kbps, 1.0, 1e6, "a rate in kbit/s in [1, 1e6]")?;
        check_range("max_kbps", self.max_kbps, self.min_kbps, 1e6, &format!("a rate in kbit/s in [min_kbps = {}, 1e6]", self.min_kbps))?;
        check_range("start_kbps", self.start_kbps, self.min_kbps, self.max_kbps, "a rate in kbit/s within [min_kbps, max_kbps]")?;
        check_range("key_frame_interval_s", self.key_frame_interval_s, 0.0, 3600.0, "seconds in [0, 3600] (0: no periodic key frames)")?;
        check_range("key_frame_factor", self.key_frame_factor, 1.0, 20.0, "a factor in [1, 20]")?;
        if !(100..=9000).contains(&self.packet_bytes) {
            return Err(("packet_bytes".into(), self.packet_bytes.to_string(), "payload bytes per packet in 100..=9000".into()));
        }
        check_range("feedback_interval_ms", self.feedback_interval_ms, 10.0, 5000.0, "an interval in ms in [10, 5000]")?;
        check_range("freeze_ms", self.freeze_ms, 1.0, 60_000.0, "a delay in ms in [1, 60000]")?;
        Ok(())
    }

    /// The call's legs: media (UDP, the call's direction) and feedback (UDP, reverse).
    pub fn legs() -> Vec<LegSpec> {
        vec![
            LegSpec { suffix: LegName::Fixed(""), tcp: false, reverse: false, opens: false },
            LegSpec { suffix: LegName::Fixed(".feedback"), tcp: false, reverse: true, opens: true },
        ]
    }
}

/// What became of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameStatus {
    /// Sent, not (yet) complete at the receiver.
    Pending,
    /// Complete and decodable: shown.
    Rendered,
    /// Complete, but a frame it depends on was lost: not shown.
    Undecodable,
    /// One of its packets was lost.
    Lost,
}

impl FrameStatus {
    fn name(self) -> &'static str {
        match self {
            FrameStatus::Pending => "pending",
            FrameStatus::Rendered => "rendered",
            FrameStatus::Undecodable => "undecodable",
            FrameStatus::Lost => "lost",
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct FrameRec {
    capture: Nanos,
    bytes: u32,
    target_bps: f64,
    key: bool,
    packets: u16,
    done: Option<Nanos>,
    status: FrameStatus,
}

/// A running video call (both ends).
#[derive(Debug)]
pub struct VideoCall {
    cfg: VideoCallConfig,
    frame_interval: f64,
    started: Option<Nanos>,
    stopped: Option<Nanos>,
    frames: Vec<FrameRec>,
    // Sender.
    loss: LossBasedControl,
    a_r: Option<f64>,
    next_frame: Option<Nanos>,
    seq: u64,
    key_pending: bool,
    last_key: Nanos,
    key_requests: u64,
    // Receiver.
    groups: ArrivalGroups,
    filter: ArrivalFilter,
    detector: OveruseDetector,
    aimd: AimdRateControl,
    window: RateWindow,
    highest_seq: Option<u64>,
    report_base: u64,
    received_since: u64,
    received_bytes: u64,
    cur_frame: Option<u64>,
    cur_got: u16,
    decodable: bool,
    need_key: bool,
    pli_at: Option<Nanos>,
    next_feedback: Option<Nanos>,
    last_sent_rate: Option<f64>,
    feedback_seq: u64,
}

impl VideoCall {
    /// A call with `cfg` (validated).
    pub fn new(cfg: &VideoCallConfig) -> Self {
        Self {
            frame_interval: SEC as f64 / cfg.fps,
            loss: LossBasedControl::new(cfg.start_kbps * 1e3, cfg.min_kbps * 1e3, cfg.max_kbps * 1e3),
            cfg: cfg.clone(),
            started: None,
            stopped: None,
            frames: Vec::new(),
            a_r: None,
            next_frame: None,
            seq: 0,
            key_pending: true,
            last_key: 0,
            key_requests: 0,
            groups: ArrivalGroups::default(),
            filter: ArrivalFilter::default(),
            detector: OveruseDetector::default(),
            aimd: AimdRateControl::default(),
            window: RateWindow::default(),
            highest_seq: None,
            report_base: 0,
            received_since: 0,
            received_bytes: 0,
            cur_frame: None,
            cur_got: 0,
            decodable: false,
            need_key: false,
            pli_at: None,
            next_feedback: None,
            last_sent_rate: None,
            feedback_seq: 0,
        }
    }

    /// The encoder's current target, bit/s.
    pub fn target_bps(&self) -> f64 {
        self.loss.rate()
    }

    /// The receiver's delay-based estimate A_r, bit/s.
    pub fn receiver_estimate(&self) -> Option<f64> {
        self.aimd.rate()
    }

    fn frame_time(&self, k: u64) -> Nanos {
        self.started.unwrap_or(0) + (k as f64 * self.frame_interval).round() as Nanos
    }

    fn send_frame(&mut self, now: Nanos, io: &mut Io) {
        let k = self.frames.len() as u64;
        let target = self.loss.rate();
        let periodic = self.cfg.key_frame_interval_s > 0.0 && now.saturating_sub(self.last_key) as f64 >= self.cfg.key_frame_interval_s * SEC as f64;
        let key = self.key_pending || periodic;
        let bits = target / self.cfg.fps * if key { self.cfg.key_frame_factor } else { 1.0 };
        let bytes = ((bits / 8.0).round() as u32).max(1);
        let n = bytes.div_ceil(self.cfg.packet_bytes).min(u16::MAX as u32);
        let per = bytes / n;
        let extra = bytes - per * n;
        for i in 0..n {
            let payload = per + u32::from(i < extra) + RTP_HEADER_BYTES;
            io.send(MEDIA, Datagram { seq: self.seq, tag: k, a: i | (n << 16), b: u32::from(key), payload, sent_at: now });
            self.seq += 1;
        }
        if key {
            self.key_pending = false;
            self.last_key = now;
        }
        self.frames.push(FrameRec { capture: now, bytes, target_bps: target, key, packets: n as u16, done: None, status: FrameStatus::Pending });
        self.next_frame = Some(self.frame_time(k + 1));
    }

    fn send_feedback(&mut self, now: Nanos, io: &mut Io) {
        let expected = self.highest_seq.map_or(0, |h| h + 1 - self.report_base.min(h + 1));
        let lost = expected.saturating_sub(self.received_since);
        if let Some(h) = self.highest_seq {
            self.report_base = h + 1;
        }
        self.received_since = 0;
        let pli = self.need_key && self.pli_at.is_none_or(|t| now >= t + PLI_REPEAT);
        if pli {
            self.pli_at = Some(now);
        }
        let rate = self.aimd.rate();
        self.last_sent_rate = rate;
        let b = (lost.min(u32::MAX as u64 >> 1) as u32) | (u32::from(pli) << 31);
        let d = Datagram {
            seq: self.feedback_seq,
            tag: rate.map_or(0, |r| r.round().max(1.0) as u64),
            a: expected.min(u32::MAX as u64) as u32,
            b,
            payload: FEEDBACK_BYTES,
            sent_at: now,
        };
        self.feedback_seq += 1;
        io.send(FEEDBACK, d);
    }

    /// Marks frame `k` lost (a packet of it never arrived).
    fn lose(&mut self, k: u64) {
        if let Some(f) = self.frames.get_mut(k as usize) {
            if f.status == FrameStatus::Pending {
                f.status = FrameStatus::Lost;
            }
        }
        self.decodable = false;
        self.need_key = true;
    }

    fn on_media(&mut self, now: Nanos, d: &Datagram, io: &mut Io) {
        let frame = d.tag;
        let n = (d.a >> 16) as u16;
        let key = d.b & 1 == 1;
        self.received_since += 1;
        self.received_bytes += d.payload as u64;
        self.highest_seq = Some(self.highest_seq.map_or(d.seq, |h| h.max(d.seq)));
        self.window.add(now, d.payload as u64);
        let losses_before = self.need_key;
        if self.cur_frame != Some(frame) {
            let first_missing = match self.cur_frame {
                Some(c) => {
                    if self.cur_got < self.frames.get(c as usize).map_or(0, |f| f.packets) {
                        self.lose(c);
                    }
                    c + 1
                }
                None => 0,
            };
            for k in first_missing..frame {
                self.lose(k);
            }
            self.cur_frame = Some(frame);
            self.cur_got = 0;
        }
        self.cur_got += 1;
        if self.cur_got == n {
            if key {
                self.decodable = true;
                self.need_key = false;
                self.pli_at = None;
            }
            let decodable = self.decodable;
            if let Some(f) = self.frames.get_mut(frame as usize) {
                f.done = Some(now);
                f.status = if decodable { FrameStatus::Rendered } else { FrameStatus::Undecodable };
            }
        }
        // §5: the delay-based controller, once per packet group.
        let mut urgent = !losses_before && self.need_key;
        if let Some(g) = self.groups.on_packet(d.sent_at, now) {
            let m = self.filter.update(g.d_ms, g.send_delta_ms);
            let usage = self.detector.detect(m, self.filter.groups(), g.arrival);
            if let Some(r) = self.window.rate(now) {
                let a = self.aimd.update(usage, r, now);
                if self.last_sent_rate.is_none_or(|l| a < 0.97 * l) {
                    urgent = true;
                }
            }
        }
        if urgent && self.stopped.is_none() {
            self.send_feedback(now, io);
        }
    }

    fn on_feedback(&mut self, d: &Datagram) {
        let lost = (d.b & (u32::MAX >> 1)) as f64;
        let p = if d.a > 0 { (lost / d.a as f64).min(1.0) } else { 0.0 };
        if d.tag > 0 {
            self.a_r = Some(d.tag as f64);
        }
        self.loss.on_report(p, self.a_r);
        if d.b >> 31 == 1 {
            self.key_pending = true;
            self.key_requests += 1;
        }
    }

    /// What the call measured over a run ending at `end`.
    pub fn report(&self, end: Nanos) -> VideoCallReport {
        let start = self.started.unwrap_or(end);
        let stop = self.stopped.unwrap_or(end).min(end);
        let active = (stop.saturating_sub(start)) as f64 / SEC as f64;
        let freeze_ns = (self.cfg.freeze_ms * MS as f64) as Nanos;
        let mut cols = FrameColumns::default();
        let mut delays = Vec::new();
        let (mut rendered, mut lost, mut undecodable, mut late) = (0u64, 0u64, 0u64, 0u64);
        let (mut freezes, mut frozen_frames, mut in_freeze) = (0u64, 0u64, false);
        for f in &self.frames {
            // A frame still in flight at the end (captured within freeze_ms of it) is left
            // out of the counts; an older one that never completed was lost.
            let status = match f.status {
                FrameStatus::Pending if f.capture + freeze_ns <= end => FrameStatus::Lost,
                s => s,
            };
            let delay = match (status, f.done) {
                (FrameStatus::Rendered, Some(t)) => (t - f.capture) as f64 / MS as f64,
                _ => f64::NAN,
            };
            cols.t_s.push(f.capture as f64 / SEC as f64);
            cols.bytes.push(f.bytes);
            cols.target_kbps.push(f.target_bps / 1e3);
            cols.key.push(f.key);
            cols.packets.push(f.packets);
            cols.status.push(status.name());
            cols.delay_ms.push(delay);
            match status {
                FrameStatus::Pending => continue,
                FrameStatus::Rendered => {
                    rendered += 1;
                    delays.push(delay);
                    if delay > self.cfg.freeze_ms {
                        late += 1;
                    }
                }
                FrameStatus::Lost => lost += 1,
                FrameStatus::Undecodable => undecodable += 1,
            }
            let frozen = status != FrameStatus::Rendered || delay > self.cfg.freeze_ms;
            if frozen {
                frozen_frames += 1;
                if !in_freeze {
                    freezes += 1;
                }
            }
            in_freeze = frozen;
        }
        let mut sorted = delays.clone();
        sorted.sort_by(f64::total_cmp);
        let per_s = |x: f64| if active > 0.0 { x / active } else { f64::NAN };
        VideoCallReport {
            frames_sent: self.frames.len() as u64,
            frames_rendered: rendered,
            frames_late: late,
            frames_lost: lost,
            frames_undecodable: undecodable,
            fps: per_s(rendered as f64),
            bitrate_kbps: per_s(self.received_bytes as f64 * 8.0 / 1e3),
            target_kbps_mean: mean(&self.frames.iter().map(|f| f.target_bps / 1e3).collect::<Vec<_>>()),
            frame_delay_p50_ms: percentile(&sorted, 0.50),
            frame_delay_p95_ms: percentile(&sorted, 0.95),
            frame_delay_p99_ms: percentile(&sorted, 0.99),
            frame_delay_mean_ms: mean(&sorted),
            frame_delay_max_ms: sorted.last().copied().unwrap_or(f64::NAN),
            freezes,
            freeze_s: frozen_frames as f64 / self.cfg.fps,
            key_frames: self.frames.iter().filter(|f| f.key).count() as u64,
            key_requests: self.key_requests,
            frames: cols,
        }
    }
}

impl App for VideoCall {
    fn start(&mut self, now: Nanos, io: &mut Io) {
        self.started = Some(now);
        self.last_key = now;
        self.next_feedback = Some(now + (self.cfg.feedback_interval_ms * MS as f64) as Nanos);
        self.send_frame(now, io);
    }

    fn stop(&mut self, now: Nanos, _io: &mut Io) {
        self.stopped = Some(now);
        self.next_frame = None;
        self.next_feedback = None;
    }

    fn on_timer(&mut self, now: Nanos, io: &mut Io) {
        while self.next_frame.is_some_and(|t| t <= now) {
            self.send_frame(now, io);
        }
        if self.next_feedback.is_some_and(|t| t <= now) {
            self.send_feedback(now, io);
            self.next_feedback = Some(now + (self.cfg.feedback_interval_ms * MS as f64) as Nanos);
        }
    }

    fn on_bytes(&mut self, _now: Nanos, _leg: u8, _delivered: u64, _io: &mut Io) {}

    fn on_datagram(&mut self, now: Nanos, leg: u8, d: &Datagram, io: &mut Io) {
        match leg {
            MEDIA => self.on_media(now, d, io),
            _ => self.on_feedback(d),
        }
    }

    fn next_timer(&self) -> Option<Nanos> {
        match (self.next_frame, self.next_feedback) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    type Report = VideoCallReport;
    fn report(&self, end: Nanos, _legs: &[crate::LegCounts]) -> VideoCallReport {
        VideoCall::report(self, end)
    }
}

/// A call's frames, one column per field (the `video_frames` table).
#[derive(Clone, Debug, Default, Serialize)]
pub struct FrameColumns {
    /// Capture (send) time, s.
    pub t_s: Vec<f64>,
    /// Encoded size, bytes (RTP payload).
    pub bytes: Vec<u32>,
    /// The encoder's target when the frame was captured, kbit/s.
    pub target_kbps: Vec<f64>,
    /// Key frame.
    pub key: Vec<bool>,
    /// Packets.
    pub packets: Vec<u16>,
    /// `"rendered"`, `"undecodable"`, `"lost"` or `"pending"` (in flight at the end).
    pub status: Vec<&'static str>,
    /// Capture to the arrival of the last packet, ms (rendered frames; NaN otherwise).
    pub delay_ms: Vec<f64>,
}

/// What a call measured.
#[derive(Clone, Debug, Serialize)]
pub struct VideoCallReport {
    /// Frames captured and sent.
    pub frames_sent: u64,
    /// Frames shown.
    pub frames_rendered: u64,
    /// Frames shown more than `freeze_ms` after their capture.
    pub frames_late: u64,
    /// Frames with a lost packet.
    pub frames_lost: u64,
    /// Frames complete but not decodable (after a loss, before the next key frame).
    pub frames_undecodable: u64,
    /// Frames shown per second of the call.
    pub fps: f64,
    /// Media received (RTP packets), kbit/s over the call.
    pub bitrate_kbps: f64,
    /// Mean of the encoder's target over the frames, kbit/s.
    pub target_kbps_mean: f64,
    /// Median delay of the shown frames, ms.
    pub frame_delay_p50_ms: f64,
    /// 95th percentile, ms.
    pub frame_delay_p95_ms: f64,
    /// 99th percentile, ms.
    pub frame_delay_p99_ms: f64,
    /// Mean, ms.
    pub frame_delay_mean_ms: f64,
    /// Largest, ms.
    pub frame_delay_max_ms: f64,
    /// Runs of frozen frames (not shown, or shown later than `freeze_ms`).
    pub freezes: u64,
    /// Frozen frames × frame interval, s.
    pub freeze_s: f64,
    /// Key frames sent.
    pub key_frames: u64,
    /// Key frame requests (PLI) the sender received.
    pub key_requests: u64,
    /// Every frame.
    pub frames: FrameColumns,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Action;

    /// A fixed-rate, fixed-delay pipe for the media (FIFO, serialization at `rate_bps`)
    /// and a fixed delay for the feedback: the call alone.
    fn run(rate_bps: f64, owd: Nanos, secs: u64, cfg: VideoCallConfig) -> VideoCallReport {
        let mut call = VideoCall::new(&cfg);
        let mut io = Io::default();
        let mut link_free: Nanos = 0;
        // (arrival time, leg, datagram), kept sorted by a simple insertion.
        let mut inflight: Vec<(Nanos, u8, Datagram)> = Vec::new();
        let end = secs * SEC;
        call.start(0, &mut io);
        let mut now = 0;
        loop {
            for a in io.actions() {
                if let Action::Send { leg, datagram } = *a {
                    let at = if leg == MEDIA {
                        let start = link_free.max(now);
                        link_free = start + ((datagram.payload + 28) as f64 * 8.0 / rate_bps * 1e9) as Nanos;
                        link_free + owd
                    } else {
                        now + owd
                    };
                    let pos = inflight.partition_point(|x| x.0 <= at);
                    inflight.insert(pos, (at, leg, datagram));
                }
            }
            io.clear();
            let next_arrival = inflight.first().map(|x| x.0);
            let next = match (next_arrival, call.next_timer()) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => a.or(b).unwrap(),
            };
            if next >= end {
                break;
            }
            now = next;
            if next_arrival == Some(now) {
                let (_, leg, d) = inflight.remove(0);
                call.on_datagram(now, leg, &d, &mut io);
            } else {
                call.on_timer(now, &mut io);
            }
        }
        call.report(end)
    }

    #[test]
    fn alone_on_a_fast_link_the_call_reaches_its_top_bitrate_at_the_path_delay() {
        let cfg = VideoCallConfig { max_kbps: 1500.0, ..Default::default() };
        let r = run(10e6, 20 * MS, 120, cfg);
        let last = *r.frames.target_kbps.last().unwrap();
        assert!((last - 1500.0).abs() < 1.0, "target at the end {last}");
        // Delay: 20 ms plus serialization of a frame (~6.3 kB at 10 Mbit/s: ~5 ms).
        assert!(r.frame_delay_p50_ms >= 20.0 && r.frame_delay_p50_ms < 27.0, "{}", r.frame_delay_p50_ms);
        assert!(r.frame_delay_p99_ms < 30.0, "{}", r.frame_delay_p99_ms);
        assert_eq!(r.frames_lost, 0);
        assert!((r.fps - 30.0).abs() < 0.1, "{}", r.fps);
        assert_eq!(r.freezes, 0);
    }

    #[test]
    fn on_a_slow_link_gcc_settles_below_capacity_without_a_standing_queue() {
        // 1 Mbit/s link, a call that could send 2.5 Mbit/s: the delay-based controller
        // holds the rate near the link's and the delay near the path's.
        let r = run(1e6, 20 * MS, 120, VideoCallConfig::default());
        let n = r.frames.t_s.len();
        let tail: Vec<f64> = r.frames.target_kbps[n / 2..].to_vec();
        let avg = mean(&tail);
        assert!(avg > 600.0 && avg < 1000.0, "mean target over the last minute {avg}");
        let delays: Vec<f64> = r.frames.delay_ms[n / 2..].iter().copied().filter(|d| d.is_finite()).collect();
        let mut s = delays.clone();
        s.sort_by(f64::total_cmp);
        assert!(percentile(&s, 0.5) < 80.0, "median frame delay {}", percentile(&s, 0.5));
    }

    #[test]
    fn a_lost_packet_freezes_decoding_until_a_requested_key_frame() {
        let mut call = VideoCall::new(&VideoCallConfig::default());
        let mut io = Io::default();
        call.start(0, &mut io);
        let deliver = |call: &mut VideoCall, io: &mut Io, skip: &dyn Fn(&Datagram) -> bool, at: Nanos| {
            let sent: Vec<_> = io.actions().to_vec();
            io.clear();
            for a in sent {
                if let Action::Send { leg: MEDIA, datagram } = a {
                    if !skip(&datagram) {
                        call.on_datagram(at, MEDIA, &datagram, io);
                    }
                }
            }
        };
        deliver(&mut call, &mut io, &|_| false, 10 * MS);
        // Frames 1..=3, frame 2's first packet lost.
        for k in 1..=3u64 {
            call.on_timer(call.next_timer().unwrap().min(k * 34 * MS), &mut io);
            while call.next_frame.is_some_and(|t| t <= k * 34 * MS) {
                call.on_timer(k * 34 * MS, &mut io);
            }
            deliver(&mut call, &mut io, &|d| d.tag == 2 && d.a & 0xffff == 0, k * 34 * MS + 10 * MS);
        }
        let fb: Vec<_> = io.actions().iter().filter_map(|a| match a { Action::Send { leg: FEEDBACK, datagram } => Some(*datagram), _ => None }).collect();
        assert!(fb.iter().any(|d| d.b >> 31 == 1), "a PLI went out at once: {fb:?}");
        let statuses: Vec<_> = call.frames.iter().map(|f| f.status).collect();
        assert_eq!(statuses, vec![FrameStatus::Rendered, FrameStatus::Rendered, FrameStatus::Lost, FrameStatus::Undecodable]);
        // The PLI reaches the sender: the next frame is a key frame and decoding resumes.
        for d in &fb {
            call.on_feedback(d);
        }
        io.clear();
        call.on_timer(call.next_frame.unwrap(), &mut io);
        assert!(call.frames.last().unwrap().key);
        deliver(&mut call, &mut io, &|_| false, 200 * MS);
        assert_eq!(call.frames.last().unwrap().status, FrameStatus::Rendered);
        let r = call.report(10 * SEC);
        assert_eq!((r.frames_lost, r.frames_undecodable, r.freezes), (1, 1, 1));
    }
}

impl crate::AppSpec for VideoCallConfig {
    type App = VideoCall;
    const KIND: &'static str = "video_call";
    const TRANSPORT: crate::TransportKind = crate::TransportKind::Udp;

    fn validate(&self) -> Result<(), ParamError> {
        VideoCallConfig::validate(self)
    }
    fn legs(&self) -> Vec<LegSpec> {
        VideoCallConfig::legs()
    }
    fn build(&self, _ctx: &crate::AppContext) -> VideoCall {
        VideoCall::new(self)
    }
    /// A record per frame, `fps` a second over the active seconds.
    fn memory(&self, ctx: &crate::MemoryContext) -> crate::MemoryUse {
        crate::MemoryUse::session(ctx.events(self.fps))
    }
}

impl crate::AppReport for VideoCallReport {
    const TABLE: &'static str = "video_calls";
}
