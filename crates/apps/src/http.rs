//! An HTTP/1.1 persistent connection without pipelining, over two TCP legs: the request leg
//! (client → server) and the response leg (server → client). One request is outstanding at
//! a time (RFC 9112 §9.3 allows pipelining; browsers do not use it, and dash.js fetches
//! one segment at a time). A request is `request_bytes` of headers; the server answers as
//! soon as the whole request has arrived, writing the object's bytes on the response leg;
//! the object is complete at the client when its last byte is delivered in order. Response
//! headers are not modelled (a few hundred bytes beside the objects).

use cellshare_core::Nanos;

use crate::Io;

/// A request in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    /// The caller's identifier of the object.
    pub id: u64,
    /// When the request was written.
    pub requested_at: Nanos,
    /// Request bytes written through this one (cumulative on the request leg).
    pub request_end: u64,
    /// Object bytes.
    pub response_bytes: u64,
    /// Response bytes written through this one (cumulative on the response leg), once the
    /// server has answered.
    pub response_end: Option<u64>,
}

/// A connection: its two legs and what is outstanding.
#[derive(Clone, Debug)]
pub struct HttpConn {
    /// The response leg (the app's direction).
    pub down: u8,
    /// The request leg.
    pub up: u8,
    requested: u64,
    responded: u64,
    pending: Option<Pending>,
}

/// What a delivery on one of the connection's legs completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Nothing yet.
    None,
    /// The object of request `Pending` is complete at the client.
    Done(Pending),
}

impl HttpConn {
    /// A connection on legs `down` (responses) and `up` (requests).
    pub fn new(down: u8, up: u8) -> Self {
        Self { down, up, requested: 0, responded: 0, pending: None }
    }

    /// Whether a request is outstanding.
    pub fn busy(&self) -> bool {
        self.pending.is_some()
    }

    /// Writes a request for object `id` of `response_bytes` (> 0) bytes.
    pub fn request(&mut self, now: Nanos, id: u64, request_bytes: u64, response_bytes: u64, io: &mut Io) {
        debug_assert!(self.pending.is_none(), "one outstanding request per connection");
        self.requested += request_bytes;
        self.pending = Some(Pending { id, requested_at: now, request_end: self.requested, response_bytes, response_end: None });
        io.write(self.up, request_bytes);
    }

    /// In-order bytes delivered on `leg` (one of this connection's) total `delivered`.
    pub fn on_bytes(&mut self, leg: u8, delivered: u64, io: &mut Io) -> Event {
        let Some(p) = self.pending.as_mut() else { return Event::None };
        if leg == self.up {
            if p.response_end.is_none() && delivered >= p.request_end {
                self.responded += p.response_bytes;
                p.response_end = Some(self.responded);
                io.write(self.down, p.response_bytes);
            }
            Event::None
        } else if leg == self.down && p.response_end.is_some_and(|e| delivered >= e) {
            let done = *p;
            self.pending = None;
            Event::Done(done)
        } else {
            Event::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Action;

    #[test]
    fn request_then_response_then_done() {
        let mut c = HttpConn::new(0, 1);
        let mut io = Io::default();
        c.request(5, 7, 350, 10_000, &mut io);
        assert_eq!(io.actions(), &[Action::Write { leg: 1, bytes: 350 }]);
        io.clear();
        assert_eq!(c.on_bytes(1, 200, &mut io), Event::None);
        assert!(io.actions().is_empty(), "half a request is not answered");
        assert_eq!(c.on_bytes(1, 350, &mut io), Event::None);
        assert_eq!(io.actions(), &[Action::Write { leg: 0, bytes: 10_000 }]);
        io.clear();
        assert_eq!(c.on_bytes(0, 9_999, &mut io), Event::None);
        let Event::Done(p) = c.on_bytes(0, 10_000, &mut io) else { panic!() };
        assert_eq!((p.id, p.requested_at), (7, 5));
        assert!(!c.busy());
        // The second object counts from the first's end on both legs.
        c.request(9, 8, 350, 500, &mut io);
        io.clear();
        c.on_bytes(1, 700, &mut io);
        assert_eq!(io.actions(), &[Action::Write { leg: 0, bytes: 500 }]);
        assert_eq!(c.on_bytes(0, 10_499, &mut io), Event::None);
        assert!(matches!(c.on_bytes(0, 10_500, &mut io), Event::Done(p) if p.id == 8));
    }
}
