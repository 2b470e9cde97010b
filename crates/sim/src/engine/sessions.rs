//! The engine's side of the apps of `cellshare-apps` (ping, game, voip, video calls,
//! adaptive streams, web page loads): a session's legs are flows of the engine; this module
//! carries the app's actions to them and their deliveries back to the app. The engine calls
//! it at six places: building a `[[flows]]` entry with an app, the flow's start and stop, a
//! packet's arrival at a leg's far end, the session's timer, and the results.
//!
//! - A **TCP leg** is an ordinary flow whose application writes what the app asks
//!   ([`Action::Write`]) until it stops ([`Action::Stop`]); every in-order delivery at its
//!   receiver is reported to the app as the leg's delivered byte count.
//! - A **UDP leg** is a flow whose sender is idle: the app's datagrams ([`Action::Send`])
//!   become packets here (IP + UDP headers added; the datagram's fields ride in the packet's
//!   `seq`, `app_tag`, `ts_val` and `ts_ecr`), and each one that arrives is handed back.
//!   A UDP leg whose transport sends by itself (`cbr`) sends what the app writes.
//! - A leg against the app's direction starts at the UE: through the UE's modelled uplink
//!   when it has one, otherwise over the fixed uplink delay (`engine/wired.rs`, `enqueue_uplink`).
//! - The app's timer is one `Ev::AppTimer` per session, re-armed after every hook
//!   (`rearm`: an earlier request queues a new event; a later one waits for the armed one,
//!   which then finds nothing due).
//!
//! Nothing here allocates per packet: the actions go through one reused [`Io`].

use cellshare_apps::{Action, Datagram, Io, LegCounts, LegSpec, Report, Session};
use cellshare_core::time::rearm;
use cellshare_core::{Nanos, Packet, PacketKind};

use super::{Ev, Simulation};
use crate::apps::Direction;

/// A running session: the app and the flows of its legs.
#[derive(Debug)]
pub(crate) struct SessionRt {
    pub app: Session,
    /// The flow of each leg, in the app's leg order (the first is the `[[flows]]` entry's).
    pub legs: Vec<u32>,
    /// Whether each leg is TCP.
    tcp: Vec<bool>,
    /// In-order bytes last reported per leg.
    delivered: Vec<u64>,
    /// The time of the `AppTimer` event queued, if any.
    timer: Option<Nanos>,
}

impl Simulation {
    /// Makes the session of `app` over the flows `legs` (built from `specs`, the first
    /// being the flow entry's own).
    pub(super) fn add_session(&mut self, app: Session, legs: Vec<u32>, specs: &[LegSpec]) {
        let s = self.sessions.len() as u32;
        for (k, &f) in legs.iter().enumerate() {
            self.flows[f as usize].session = Some((s, k as u8));
        }
        self.sessions.push(SessionRt {
            app,
            tcp: specs.iter().map(|l| l.tcp).collect(),
            delivered: vec![0; legs.len()],
            legs,
            timer: None,
        });
    }

    /// Runs `hook` on session `s`'s app, carries out its actions and re-arms its timer.
    fn with_app(&mut self, s: u32, hook: impl FnOnce(&mut Session, Nanos, &mut Io)) {
        let now = self.now;
        let mut io = std::mem::take(&mut self.app_io);
        io.clear();
        hook(&mut self.sessions[s as usize].app, now, &mut io);
        for i in 0..io.actions().len() {
            match io.actions()[i] {
                Action::Write { leg, bytes } => {
                    let f = self.sessions[s as usize].legs[leg as usize];
                    self.app_write(f, bytes);
                    self.service_sender(f);
                }
                Action::Send { leg, datagram } => {
                    let f = self.sessions[s as usize].legs[leg as usize];
                    self.send_datagram(f, &datagram);
                }
                Action::Stop { leg } => {
                    let f = self.sessions[s as usize].legs[leg as usize];
                    let fl = &mut self.flows[f as usize];
                    fl.app_left = 0;
                    fl.sender.app_stop(now);
                }
            }
        }
        io.clear();
        self.app_io = io;
        let sess = &mut self.sessions[s as usize];
        if let Some(t) = rearm(&mut sess.timer, sess.app.next_timer(), now) {
            self.push(t, Ev::AppTimer(s));
        }
    }

    /// Datagram `d` leaves on UDP leg flow `f` now.
    fn send_datagram(&mut self, f: u32, d: &Datagram) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        let p = Packet {
            flow: f,
            ue: fl.ue,
            size: d.payload + fl.header,
            payload: d.payload,
            kind: PacketKind::Data,
            class: fl.class,
            dscp: fl.dscp,
            seq: d.seq,
            app_tag: d.tag,
            ts_val: d.a,
            ts_ecr: d.b,
            sent_at: now,
            ..Default::default()
        };
        fl.first_send.get_or_insert(now);
        let up = fl.dir == Direction::Uplink;
        let id = self.arena.alloc(p);
        if up {
            self.enqueue_uplink(id, true, 0.0);
        } else {
            self.downlink_from_server(id);
        }
    }

    /// The flow entry of session `s` starts.
    pub(super) fn session_start(&mut self, s: u32) {
        self.with_app(s, |app, now, io| app.start(now, io));
    }

    /// The flow entry of session `s` stops (`stop_s`).
    pub(super) fn session_stop(&mut self, s: u32) {
        self.with_app(s, |app, now, io| app.stop(now, io));
    }

    /// Session `s`'s timer event.
    pub(super) fn session_timer(&mut self, s: u32) {
        let sess = &mut self.sessions[s as usize];
        if sess.timer != Some(self.now) {
            return; // superseded by an earlier one
        }
        sess.timer = None;
        self.with_app(s, |app, now, io| app.on_timer(now, io));
    }

    /// Packet `p` of leg `leg` of session `s` reached the leg's far end (its receiver has
    /// taken it).
    pub(super) fn session_data(&mut self, s: u32, leg: u8, p: &Packet) {
        let sess = &self.sessions[s as usize];
        if sess.tcp[leg as usize] {
            let f = sess.legs[leg as usize];
            let d = self.flows[f as usize].delivered();
            if d <= sess.delivered[leg as usize] {
                return; // out of order: nothing new for the app
            }
            self.sessions[s as usize].delivered[leg as usize] = d;
            self.with_app(s, |app, now, io| app.on_bytes(now, leg, d, io));
        } else {
            let d = Datagram { seq: p.seq, tag: p.app_tag, a: p.ts_val, b: p.ts_ecr, payload: p.payload, sent_at: p.sent_at };
            self.with_app(s, |app, now, io| app.on_datagram(now, leg, &d, io));
        }
    }

    /// Every session's report, with the flow of its first leg, in session order.
    pub(super) fn session_reports(&self) -> Vec<(u32, Report)> {
        let mut counts = Vec::new();
        self.sessions
            .iter()
            .map(|s| {
                counts.clear();
                counts.extend(s.legs.iter().map(|&f| LegCounts { datagrams_sent: self.flows[f as usize].sent_datagrams() }));
                (s.legs[0], s.app.report(self.end, &counts))
            })
            .collect()
    }
}
