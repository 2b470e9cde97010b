//! Web page loads: a page is a main object (the HTML) and embedded objects that the browser
//! requests once it has parsed the main object, over `connections` persistent HTTP/1.1
//! connections to one server ([`crate::http`]: one request at a time per connection). The
//! page load time is from the main object's request to the last embedded object's arrival.
//! The thesis \[rsd-thesis\] measures "web loading time" of www.amazon.com beside an upload (§3.4.3, Fig.
//! 3.11(b)).
//!
//! # Model
//!
//! - **Page** (`page`): the NGMN / 3GPP HTTP traffic model (NGMN, "Radio Access Performance
//!   Evaluation Methodology", 2008 \[ngmn\], Annex A; the parameters of ns-3's
//!   `ThreeGppHttpVariables`, which implements it): main object size log-normal with mean
//!   10710 B and standard deviation 25032 B, truncated to [100 B, 2 MB]; number of embedded
//!   objects Pareto with shape 1.1 and scale 2, truncated at 55 (a larger draw counts as
//!   55), minus the scale (0–53, mean 5.64); embedded object size log-normal with mean 7758 B and standard deviation
//!   126168 B, truncated to [50 B, 2 MB]; parsing time exponential with mean 0.13 s;
//!   reading time between pages exponential with mean 30 s. Truncation redraws (as ns-3's
//!   bounded variables). Or `page = { kind = "fixed", ... }`: a main object and `objects`
//!   equal embedded objects (for a page of known size and object count).
//! - **Dependencies**: two levels, as the model has them: all embedded objects wait for the
//!   main object and its parsing; then each idle connection takes the next object in page
//!   order. **A choice**: one server, the browsers' 6 connections per host (RFC 9112 §9.4
//!   leaves the number to the client); no DNS or TLS; each connection's TCP handshake runs
//!   on its request leg at the first request (docs/tcp.md), and connections persist across
//!   pages — a later page starts with the windows the previous one grew.
//! - **Requests**: `request_bytes` (350, the model's request size).
//! - **Outputs** per page: start, load time, objects, bytes; per session: pages loaded,
//!   load time p50 / mean / max.

use cellshare_core::{stream_rng, Nanos, StreamRng, SEC};
use rand::Rng;
use rand_distr::{Distribution, Exp, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::http::{Event, HttpConn};
use crate::{check_range, mean, percentile, App, Datagram, Io, LegName, LegSpec, ParamError};

/// `app.page`: how pages are made (`kind` selects it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PageModel {
    /// The NGMN / 3GPP HTTP model: random main object, embedded object count and sizes.
    Ngmn {},
    /// A fixed page: a main object of `main_bytes` and `objects` embedded objects of
    /// `object_bytes` each.
    Fixed {
        /// Main object, bytes (≥ 1).
        main_bytes: u64,
        /// Embedded objects (0..=10000).
        objects: u32,
        /// Each embedded object, bytes (≥ 1).
        object_bytes: u64,
    },
}

impl Default for PageModel {
    fn default() -> Self {
        PageModel::Ngmn {}
    }
}

/// `flows[i].app = { kind = "web", ... }`: web page loads over the flow's TCP transport.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WebConfig {
    /// Parallel persistent connections (1..=32). Default 6.
    pub connections: u32,
    /// Pages to load one after another (0: until the run ends). Default 1.
    pub pages: u32,
    /// The page model. Default `{ kind = "ngmn" }`.
    pub page: PageModel,
    /// HTTP request size, bytes (1..=65536). Default 350.
    pub request_bytes: u32,
    /// Mean reading time between pages (exponential), s (≥ 0; 0: none). Default 30.
    pub reading_s: f64,
    /// Mean parsing time of the main object (exponential), ms (≥ 0; 0: none). Default 130.
    pub parsing_ms: f64,
}

impl Default for WebConfig {
    fn default() -> Self {
        Self { connections: 6, pages: 1, page: PageModel::default(), request_bytes: 350, reading_s: 30.0, parsing_ms: 130.0 }
    }
}

impl WebConfig {
    /// Checks ranges; errors name the key below `app`.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(1..=32).contains(&self.connections) {
            return Err(("connections".into(), self.connections.to_string(), "a connection count in 1..=32".into()));
        }
        if !(1..=65_536).contains(&self.request_bytes) {
            return Err(("request_bytes".into(), self.request_bytes.to_string(), "bytes in 1..=65536".into()));
        }
        check_range("reading_s", self.reading_s, 0.0, 86_400.0, "seconds in [0, 86400]")?;
        check_range("parsing_ms", self.parsing_ms, 0.0, 60_000.0, "milliseconds in [0, 60000]")?;
        if let PageModel::Fixed { main_bytes, objects, object_bytes } = self.page {
            let max = 1u64 << 32;
            if !(1..=max).contains(&main_bytes) {
                return Err(("page.main_bytes".into(), main_bytes.to_string(), format!("bytes in 1..={max}")));
            }
            if objects > 10_000 {
                return Err(("page.objects".into(), objects.to_string(), "an object count in 0..=10000".into()));
            }
            if !(1..=max).contains(&object_bytes) {
                return Err(("page.object_bytes".into(), object_bytes.to_string(), format!("bytes in 1..={max}")));
            }
        }
        Ok(())
    }

    /// The legs: per connection k, its download (TCP, the app's direction) and its
    /// requests (TCP, reverse): `<name>`, `<name>.request`, `<name>.c1`, `<name>.c1.request`…
    pub fn legs(&self) -> Vec<LegSpec> {
        let mut v = Vec::new();
        for k in 0..self.connections {
            let (down, up) = if k == 0 {
                (LegName::Fixed(""), LegName::Fixed(".request"))
            } else {
                (LegName::Connection(k, false), LegName::Connection(k, true))
            };
            v.push(LegSpec { suffix: down, tcp: true, reverse: false, opens: false });
            v.push(LegSpec { suffix: up, tcp: true, reverse: true, opens: true });
        }
        v
    }
}

/// Log-normal (mean, standard deviation of the variable) → (μ, σ) of the normal.
fn lognormal_params(mean: f64, sd: f64) -> (f64, f64) {
    let s2 = (1.0 + (sd / mean).powi(2)).ln();
    (mean.ln() - s2 / 2.0, s2.sqrt())
}

/// A draw of a log-normal (mean, sd) within [lo, hi] (redrawn until it is; ns-3's bounded
/// log-normal).
fn bounded_lognormal(rng: &mut StreamRng, mean: f64, sd: f64, lo: f64, hi: f64) -> u64 {
    let (mu, sigma) = lognormal_params(mean, sd);
    for _ in 0..10_000 {
        let z: f64 = StandardNormal.sample(rng);
        let x = (mu + sigma * z).exp();
        if x >= lo && x <= hi {
            return x.round() as u64;
        }
    }
    mean.round() as u64
}

/// NGMN's embedded object count: Pareto(shape α = 1.1, scale k = 2) truncated at m = 55,
/// minus k, rounded. "Truncated" caps the draw at m: the model's stated mean, 5.64, is that
/// of min(X, 55) − 2 (redrawing above m instead gives 4.4).
fn ngmn_object_count(rng: &mut StreamRng) -> u32 {
    const SHAPE: f64 = 1.1;
    const SCALE: f64 = 2.0;
    const MAX: f64 = 55.0;
    let u: f64 = 1.0 - rng.gen::<f64>(); // (0, 1]
    let x = (SCALE / u.powf(1.0 / SHAPE)).min(MAX);
    (x - SCALE).round() as u32
}

#[derive(Clone, Debug)]
struct PageRec {
    start: Nanos,
    done: Option<Nanos>,
    objects: u32,
    bytes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Idle,
    Main,
    Parsing(Nanos),
    Embedded,
    Reading(Nanos),
}

/// Id of the main object in [`HttpConn`] requests.
const MAIN: u64 = u64::MAX;

/// Running page loads (browser and server).
#[derive(Debug)]
pub struct Web {
    cfg: WebConfig,
    rng: StreamRng,
    conns: Vec<HttpConn>,
    phase: Phase,
    stopped: bool,
    /// Embedded objects of the current page (sizes) and the next to request.
    objects: Vec<u64>,
    next_object: usize,
    outstanding: usize,
    pages: Vec<PageRec>,
}

impl Web {
    /// Page loads with `cfg` (validated), drawing from stream ("app-web", `index`) of `seed`.
    pub fn new(cfg: &WebConfig, seed: u64, index: u64) -> Self {
        Self {
            conns: (0..cfg.connections as u8).map(|k| HttpConn::new(2 * k, 2 * k + 1)).collect(),
            cfg: cfg.clone(),
            rng: stream_rng(seed, "app-web", index),
            phase: Phase::Idle,
            stopped: false,
            objects: Vec::new(),
            next_object: 0,
            outstanding: 0,
            pages: Vec::new(),
        }
    }

    fn exp_ns(&mut self, mean_s: f64) -> Nanos {
        if mean_s <= 0.0 {
            return 0;
        }
        let e = Exp::new(1.0 / mean_s).expect("positive rate");
        (e.sample(&mut self.rng) * SEC as f64).round() as Nanos
    }

    fn begin_page(&mut self, now: Nanos, io: &mut Io) {
        let (main, objects): (u64, Vec<u64>) = match self.cfg.page {
            PageModel::Ngmn {} => {
                let main = bounded_lognormal(&mut self.rng, 10_710.0, 25_032.0, 100.0, 2e6);
                let n = ngmn_object_count(&mut self.rng);
                let objs = (0..n).map(|_| bounded_lognormal(&mut self.rng, 7_758.0, 126_168.0, 50.0, 2e6)).collect();
                (main, objs)
            }
            PageModel::Fixed { main_bytes, objects, object_bytes } => (main_bytes, vec![object_bytes; objects as usize]),
        };
        self.pages.push(PageRec { start: now, done: None, objects: 1 + objects.len() as u32, bytes: main + objects.iter().sum::<u64>() });
        self.objects = objects;
        self.next_object = 0;
        self.outstanding = 0;
        self.phase = Phase::Main;
        self.conns[0].request(now, MAIN, self.cfg.request_bytes as u64, main, io);
    }

    fn dispatch(&mut self, now: Nanos, io: &mut Io) {
        for c in self.conns.iter_mut() {
            if self.next_object >= self.objects.len() {
                break;
            }
            if !c.busy() {
                let size = self.objects[self.next_object];
                c.request(now, self.next_object as u64, self.cfg.request_bytes as u64, size, io);
                self.next_object += 1;
                self.outstanding += 1;
            }
        }
    }

    fn page_done(&mut self, now: Nanos) {
        if let Some(p) = self.pages.last_mut() {
            p.done = Some(now);
        }
        let more = self.cfg.pages == 0 || (self.pages.len() as u32) < self.cfg.pages;
        self.phase = if more && !self.stopped {
            let wait = self.exp_ns(self.cfg.reading_s);
            Phase::Reading(now + wait)
        } else {
            Phase::Idle
        };
    }

    fn embedded_phase(&mut self, now: Nanos, io: &mut Io) {
        if self.objects.is_empty() {
            self.page_done(now);
        } else {
            self.phase = Phase::Embedded;
            self.dispatch(now, io);
        }
    }

    /// What the page loads measured over a run ending at `end`.
    pub fn report(&self, _end: Nanos) -> WebReport {
        let mut cols = PageColumns::default();
        let mut plts = Vec::new();
        for (i, p) in self.pages.iter().enumerate() {
            let plt = p.done.map_or(f64::NAN, |d| (d - p.start) as f64 / SEC as f64);
            if plt.is_finite() {
                plts.push(plt);
            }
            cols.page.push(i as u32);
            cols.start_t_s.push(p.start as f64 / SEC as f64);
            cols.load_time_s.push(plt);
            cols.objects.push(p.objects);
            cols.bytes.push(p.bytes);
        }
        let mut sorted = plts.clone();
        sorted.sort_by(f64::total_cmp);
        WebReport {
            pages_started: self.pages.len() as u32,
            pages_loaded: plts.len() as u32,
            load_time_p50_s: percentile(&sorted, 0.5),
            load_time_mean_s: mean(&sorted),
            load_time_max_s: sorted.last().copied().unwrap_or(f64::NAN),
            pages: cols,
        }
    }
}

impl App for Web {
    fn start(&mut self, now: Nanos, io: &mut Io) {
        self.begin_page(now, io);
    }

    fn stop(&mut self, _now: Nanos, _io: &mut Io) {
        self.stopped = true;
        if let Phase::Reading(_) = self.phase {
            self.phase = Phase::Idle;
        }
    }

    fn on_timer(&mut self, now: Nanos, io: &mut Io) {
        match self.phase {
            Phase::Parsing(t) if t <= now => self.embedded_phase(now, io),
            Phase::Reading(t) if t <= now => self.begin_page(now, io),
            _ => {}
        }
    }

    fn on_bytes(&mut self, now: Nanos, leg: u8, delivered: u64, io: &mut Io) {
        let k = (leg / 2) as usize;
        let Some(c) = self.conns.get_mut(k) else { return };
        let Event::Done(p) = c.on_bytes(leg, delivered, io) else { return };
        if p.id == MAIN {
            let parse = self.exp_ns(self.cfg.parsing_ms / 1000.0);
            if parse == 0 {
                self.embedded_phase(now, io);
            } else {
                self.phase = Phase::Parsing(now + parse);
            }
            return;
        }
        self.outstanding -= 1;
        self.dispatch(now, io);
        if self.outstanding == 0 && self.next_object >= self.objects.len() {
            self.page_done(now);
        }
    }

    fn on_datagram(&mut self, _now: Nanos, _leg: u8, _d: &Datagram, _io: &mut Io) {}

    fn next_timer(&self) -> Option<Nanos> {
        match self.phase {
            Phase::Parsing(t) | Phase::Reading(t) => Some(t),
            _ => None,
        }
    }

    type Report = WebReport;
    fn report(&self, end: Nanos, _legs: &[crate::LegCounts]) -> WebReport {
        Web::report(self, end)
    }
}

/// Page loads, one column per field (the `page_loads` table).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PageColumns {
    /// Page index.
    pub page: Vec<u32>,
    /// When the main object was requested, s.
    pub start_t_s: Vec<f64>,
    /// Page load time, s (NaN: not loaded by the end of the run).
    pub load_time_s: Vec<f64>,
    /// Objects, the main one included.
    pub objects: Vec<u32>,
    /// Bytes of all objects.
    pub bytes: Vec<u64>,
}

/// What the page loads measured.
#[derive(Clone, Debug, Serialize)]
pub struct WebReport {
    /// Pages whose load started.
    pub pages_started: u32,
    /// Pages loaded.
    pub pages_loaded: u32,
    /// Median page load time, s.
    pub load_time_p50_s: f64,
    /// Mean page load time, s.
    pub load_time_mean_s: f64,
    /// Longest page load time, s.
    pub load_time_max_s: f64,
    /// Every page.
    pub pages: PageColumns,
}

/// How long a page of `objects` equal embedded objects of `object_bytes` and a main object
/// of `main_bytes` takes over `connections` connections on a path of round-trip time `rtt`
/// and rate `rate_bps` when every window is open (no slow start): the model's lower bound,
/// one RTT per request round plus the bytes at the rate. Used by tests and documentation.
pub fn ideal_load_time(rtt: Nanos, rate_bps: f64, main_bytes: u64, objects: u32, object_bytes: u64, connections: u32, parsing: Nanos) -> Nanos {
    let rounds = 1 + objects.div_ceil(connections.max(1)) as u64;
    let bytes = main_bytes + objects as u64 * object_bytes;
    rounds * rtt + (bytes as f64 * 8.0 / rate_bps * SEC as f64) as Nanos + parsing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Action;
    use cellshare_core::MS;

    /// Page loads over ideal pipes: every write arrives `owd` later (requests) or `owd` +
    /// bytes at `rate_bps` later, per connection (no slow start).
    fn run(cfg: WebConfig, owd: Nanos, rate_bps: f64, secs: u64, seed: u64) -> WebReport {
        let mut w = Web::new(&cfg, seed, 0);
        let mut io = Io::default();
        w.start(0, &mut io);
        let n = 2 * cfg.connections as usize;
        let mut sent = vec![0u64; n];
        let mut free = vec![0 as Nanos; n];
        let mut pending: Vec<(Nanos, u8, u64)> = Vec::new();
        let mut now = 0;
        let end = secs * SEC;
        loop {
            for a in io.actions().to_vec() {
                if let Action::Write { leg, bytes } = a {
                    let l = leg as usize;
                    sent[l] += bytes;
                    let start = free[l].max(now);
                    free[l] = start + (bytes as f64 * 8.0 / rate_bps * 1e9) as Nanos;
                    pending.push((free[l] + owd, leg, sent[l]));
                }
            }
            io.clear();
            pending.sort_by_key(|p| p.0);
            let t_ev = pending.first().map(|p| p.0);
            let next = match (t_ev, w.next_timer()) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => match a.or(b) {
                    Some(t) => t,
                    None => break,
                },
            };
            if next >= end {
                break;
            }
            now = next;
            if t_ev == Some(now) {
                let (_, leg, d) = pending.remove(0);
                w.on_bytes(now, leg, d, &mut io);
            } else {
                w.on_timer(now, &mut io);
            }
        }
        w.report(end)
    }

    #[test]
    fn load_time_grows_with_rtt_as_the_model_says() {
        // A fixed page: 20 KB main, 24 objects of 10 KB, 6 connections, no parsing time.
        let page = PageModel::Fixed { main_bytes: 20_000, objects: 24, object_bytes: 10_000 };
        let cfg = WebConfig { page, parsing_ms: 0.0, ..Default::default() };
        let mut prev = 0.0;
        for rtt_ms in [20u64, 50, 100, 200] {
            let r = run(cfg.clone(), rtt_ms * MS / 2, 100e6, 60, 1);
            let plt = r.load_time_p50_s;
            // 1 + 24/6 = 5 request rounds, each an RTT, plus serialization per connection.
            let expect = 5.0 * rtt_ms as f64 / 1000.0;
            assert!(plt >= expect && plt < expect + 0.01, "RTT {rtt_ms} ms: {plt} s, model {expect} s");
            assert!(plt > prev);
            prev = plt;
        }
    }

    #[test]
    fn ngmn_pages_have_the_model_s_sizes() {
        let mut rng = stream_rng(7, "t", 0);
        let n = 20_000;
        let counts: Vec<u32> = (0..n).map(|_| ngmn_object_count(&mut rng)).collect();
        let mean_count = counts.iter().map(|&c| c as f64).sum::<f64>() / n as f64;
        assert!(counts.iter().all(|&c| c <= 53));
        // NGMN: mean 5.64 (the truncated Pareto's).
        assert!((mean_count - 5.64).abs() < 0.4, "{mean_count}");
        let mains: Vec<f64> = (0..n).map(|_| bounded_lognormal(&mut rng, 10_710.0, 25_032.0, 100.0, 2e6) as f64).collect();
        let m = mains.iter().sum::<f64>() / n as f64;
        assert!(mains.iter().all(|&x| (100.0..=2e6).contains(&x)));
        // Truncation at 2 MB barely moves the mean of 10710 B.
        assert!((m / 10_710.0 - 1.0).abs() < 0.1, "{m}");
        let (mu, sigma) = lognormal_params(10_710.0, 25_032.0);
        assert!((mu - 8.35).abs() < 0.01 && (sigma - 1.37).abs() < 0.01, "{mu} {sigma}");
    }

    #[test]
    fn several_pages_with_reading_time_and_the_same_seed_gives_the_same_pages() {
        let cfg = WebConfig { pages: 5, reading_s: 2.0, ..Default::default() };
        let a = run(cfg.clone(), 10 * MS, 20e6, 120, 3);
        let b = run(cfg, 10 * MS, 20e6, 120, 3);
        assert_eq!(a.pages_loaded, 5);
        assert_eq!(a.pages.bytes, b.pages.bytes);
        assert_eq!(a.pages.load_time_s, b.pages.load_time_s);
        assert!(a.pages.start_t_s.windows(2).all(|w| w[1] > w[0]));
    }
}

impl crate::AppSpec for WebConfig {
    type App = Web;
    const KIND: &'static str = "web";
    const TRANSPORT: crate::TransportKind = crate::TransportKind::Tcp;
    const DOWNLINK_ONLY: bool = true;

    fn validate(&self) -> Result<(), ParamError> {
        WebConfig::validate(self)
    }
    fn legs(&self) -> Vec<LegSpec> {
        WebConfig::legs(self)
    }
    fn build(&self, ctx: &crate::AppContext) -> Web {
        Web::new(self, ctx.seed, ctx.index)
    }
    /// The page's object sizes, held for the session (the model's mean count of objects, of
    /// which at most 53 are held), and a record per page: as many as fit in the active
    /// seconds when each takes its rounds of requests over the connections at the path's
    /// smallest RTT, the reading time and the parsing time (at most `pages`, 0 for no
    /// bound).
    fn memory(&self, ctx: &crate::MemoryContext) -> crate::MemoryUse {
        use crate::MemoryContext as M;
        let (objects, held) = match self.page {
            PageModel::Fixed { objects, .. } => (objects as f64, objects as u64),
            PageModel::Ngmn {} => (5.64, 53),
        };
        let rounds = 1.0 + (objects / self.connections.max(1) as f64).ceil();
        let page_s = rounds * ctx.rtt_min_s + M::positive(self.reading_s) + M::positive(self.parsing_ms) / 1e3;
        let pages = (ctx.active_s / page_s).ceil() as u64 + 1;
        let records = if self.pages == 0 { pages } else { pages.min(self.pages as u64) };
        crate::MemoryUse { state: crate::memory::SESSION_BYTES + held * 8, ..crate::MemoryUse::session(records) }
    }
}

impl crate::AppReport for WebReport {
    const TABLE: &'static str = "web";
}
