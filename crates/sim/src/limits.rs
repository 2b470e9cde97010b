//! What one scenario may ask for, checked before anything is allocated.
//!
//! A scenario of a few kilobytes can name millions of flows (`ues = "all"` in many
//! `[[flows]]` entries over many UEs): without a check, building it takes gigabytes before
//! the first TTI and aborts where memory is limited. [`Limits`] bounds the UE count, the
//! flow count and the memory the run is estimated to need; each is an error naming the key,
//! the value and the limit (`cellshare run --max-ues/--max-flows/--max-memory-mb` raise
//! them). The numbers and the estimate are documented in `docs/limits.md`.
//!
//! The estimate ([`estimate`]) counts everything that grows with the scenario; whatever it
//! says, [`MemoryGuard`] stops a run while it goes before the process's resident memory,
//! with what ending the run adds, passes the memory limit (the caller reads the resident
//! memory: this crate does no I/O).

use cellshare_apps::MemoryContext;

use cellshare_core::ScenarioError;

use crate::apps::AppConfigExt;
use crate::scenario::{FlowConfig, Scenario, UeSelector};
use crate::transport::TransportConfig;

/// Default largest number of UEs in a scenario.
pub const MAX_UES: u64 = 100_000;
/// Default largest number of flows in a scenario (`[[flows]]` entries expanded over their
/// UEs; an app counts once per leg).
pub const MAX_FLOWS: u64 = 1_000_000;
/// Default most memory of a run, MiB: a scenario estimated above it is refused before
/// anything is built, and a run whose resident memory would pass it is stopped
/// ([`MemoryGuard`]).
pub const MAX_MEMORY_MB: u64 = 3072;

/// The process before the run: the interpreter with pyarrow, the command line and the
/// extension loaded (measured 65 MiB for `cellshare run` before the scenario is built).
pub const PROCESS_BYTES: u64 = 72 << 20;
/// Fixed part of a run's memory, bytes (the fading tables of the radio channel, the arena,
/// the event heap; measured: 3 MB for 100 UEs with one flow each).
const BASE_BYTES: u64 = 16 << 20;
/// A delay histogram once it has recorded (`metrics::DelayHistogram`: (34 − 7 + 2) × 128
/// buckets of 4 bytes, allocated zeroed at the first sample). A flow has three (queue delay,
/// RTT, one-way delay), a UE one; the pages a run's delays fall in become resident, and all
/// of them when the allocator hands back memory a closed flow freed.
const HIST_BYTES: u64 = 14_848;
/// Per UE, bytes: channel state, RLC queue, counters, and its delay histogram.
const UE_BYTES: u64 = (4 << 10) + HIST_BYTES;
/// Per flow, bytes: endpoints, remote link (≈ 5.8 KB once built, measured with `validate`)
/// and the three delay histograms.
const FLOW_BYTES: u64 = (6 << 10) + 3 * HIST_BYTES;
/// What a flow that has finished keeps (a workload arrival): its entry, endpoints freed.
const CLOSED_FLOW_BYTES: u64 = 2 << 10;
/// Per flow, bytes, when the run ends: its summary in the results, in their JSON, as a
/// Python dict and in `flows.parquet` (measured: 7.2 KB a flow for 64,000 web legs).
const FLOW_RESULT_BYTES: u64 = 7 << 10;
/// Per UE, bytes, when the run ends (as [`FLOW_RESULT_BYTES`]; a UE's summary is smaller).
const UE_RESULT_BYTES: u64 = 2 << 10;
/// Per flow or UE and simulated second while the run goes: the per-second bin.
const SERIES_RUN_BYTES_PER_S: u64 = 8;
/// Per flow or UE and simulated second when the run ends: the Mbit/s copy in the results
/// and its copy handed to the spool.
const SERIES_RESULT_BYTES_PER_S: u64 = 16;
/// A packet alive in the arena with its queue entry and its event.
const PACKET_BYTES: u64 = std::mem::size_of::<cellshare_core::Packet>() as u64 + 16;
/// Bytes per packet for a queue limited in bytes (full-size data packets; smaller packets
/// take more slots, which the running guard catches).
const MTU: u64 = 1500;
/// A trace sample of a flow (`FlowTrace`: 6 × 8 + 2 bytes) and of a UE (`UeTrace`: 8 + 8 +
/// 4; in a network 28 more for where it was taken).
const FLOW_ROW_BYTES: u64 = 50;
const UE_ROW_BYTES: u64 = 20;
const UE_PLACE_ROW_BYTES: u64 = 28;
/// The same rows as the spool stores them (the same columns packed; per row).
const SPOOL_FLOW_ROW_BYTES: u64 = 50;
const SPOOL_UE_ROW_BYTES: u64 = 20;
/// A spool chunk's index entry (16 bytes, with its vector's slack).
const SPOOL_CHUNK_BYTES: u64 = 32;
/// One per-event record of an app (a request's RTT, a frame, a chunk, a page) while the run
/// goes, and when it ends (its copy in the results, their JSON and the Python lists:
/// `requests`, `video_frames`, `stream_chunks` and `page_loads` go through JSON).
const RECORD_RUN_BYTES: u64 = 64;
const RECORD_RESULT_BYTES: u64 = 320;
/// Writing the results: the Parquet writer and pyarrow's modules, plus, per row of the
/// largest batch of a spooled table, its Arrow columns (the flow's name included) and the
/// writer's encoding, which pyarrow's allocator keeps. Measured with the 100-UE benchmark:
/// writing adds 58 MiB after 5 simulated seconds, 95 MiB after 60 (60,000 rows a table) and
/// 175 MiB after 1,200 (1.2 million rows, batches of 2^20).
const WRITE_BYTES: u64 = 88 << 20;
const WRITE_ROW_BYTES: u64 = 160;
/// Rows of a spooled table read back as one Arrow batch (`api.py`).
const WRITE_BATCH_ROWS: u64 = 1 << 20;

/// Trace samples the simulation holds before the Python extension moves them to its spool
/// (`crates/py`: `SPOOL_ROWS`; checked there against this).
pub const TRACE_DRAIN_ROWS: u64 = 1 << 16;
/// Simulated seconds between the extension's checks of the samples held
/// (`crates/py`: `DRAIN_STEP_NS`; checked there against this).
pub const TRACE_DRAIN_STEP_S: u64 = 10;
/// Bytes the spool keeps in memory before it moves to a temporary file (`crates/py`:
/// `spool::MEM_MAX`; checked there against this).
pub const SPOOL_MEMORY_BYTES: u64 = 32 << 20;
/// Simulated events between two checks of the process's resident memory while a run goes.
pub const GUARD_EVENTS: u64 = 1 << 16;
/// What the resident memory may grow by between two checks of the guard, beyond one trace
/// sample of every flow and UE.
const GUARD_STEP_BYTES: u64 = 16 << 20;

/// The bounds a scenario is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most UEs.
    pub max_ues: u64,
    /// Most flows.
    pub max_flows: u64,
    /// Most memory, MiB: estimated before the run, resident while it goes.
    pub max_memory_mb: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_ues: MAX_UES, max_flows: MAX_FLOWS, max_memory_mb: MAX_MEMORY_MB }
    }
}

/// The number of UEs of `sc` (as u64: the sum of the groups' counts cannot overflow).
pub fn ue_count(sc: &Scenario) -> u64 {
    sc.ues.iter().map(|g| g.count as u64).sum()
}

/// The UEs entry `f` names, out of `n_ues`.
fn entry_targets(f: &FlowConfig, n_ues: u64) -> u64 {
    match (&f.ue, &f.ues) {
        (Some(_), _) => 1,
        (None, Some(UeSelector::List(l))) => l.len() as u64,
        (None, Some(UeSelector::All(_))) => n_ues,
        (None, None) => 0,
    }
}

/// The flows entry `f` creates over `n_ues` UEs: one per UE it names, times an app's legs
/// (two for the request/response apps, a video call and a stream; two per connection for
/// web page loads).
fn entry_flows(f: &FlowConfig, n_ues: u64) -> u64 {
    entry_targets(f, n_ues) * f.app.as_ref().map_or(1, |a| a.flow_count())
}

/// The number of flows `sc` creates at the start: every `[[flows]]` entry over its UEs, an
/// app entry twice. Workload arrivals are not counted (they come and go during the run).
pub fn flow_count(sc: &Scenario) -> u64 {
    let n_ues = ue_count(sc);
    sc.flows.iter().map(|f| entry_flows(f, n_ues)).sum()
}

/// `x` if it is a finite positive number (up to 10^12), else 0: the estimate runs before the
/// flows' values are range-checked, and an invalid one is left to that check's message.
fn pos(x: f64) -> f64 {
    MemoryContext::positive(x)
}

/// `n` events at `per_s` a second over `secs` seconds, plus one (as a count).
fn events(per_s: f64, secs: f64) -> u64 {
    (pos(per_s) * pos(secs)).ceil() as u64 + 1
}

/// What a run of a scenario is estimated to need, bytes, in two parts: while it goes, and
/// what ending it adds (see [`estimate`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// While the run goes: the process, the UEs and flows, queues at their limits, app
    /// sessions and their records, per-second bins, the trace samples held between two
    /// moves to the spool, the spool's memory and index.
    pub run: u64,
    /// What ending the run adds on top: the results (every flow's and UE's summary and
    /// per-second series, the apps' records), their JSON and Python objects, and writing
    /// them (the Parquet writer and one batch of rows).
    pub results: u64,
    /// Flows created at the start (the results part counts these; a flow created during
    /// the run adds [`MemoryEstimate::per_extra_flow`]).
    pub flows: u64,
    /// What ending the run adds per flow beyond [`MemoryEstimate::flows`] (workload
    /// arrivals), bytes.
    pub per_extra_flow: u64,
    /// Bytes the resident memory may grow by between two checks of the running guard (one
    /// trace sample of every flow and UE, and a margin).
    pub step: u64,
}

impl MemoryEstimate {
    /// The estimated peak, bytes.
    pub fn total(&self) -> u64 {
        self.run.saturating_add(self.results)
    }
}

/// Estimated memory of running `sc` with `cellshare run --out` (docs/limits.md): everything
/// that grows with the scenario — per UE and flow, the queues at their limits, the app
/// sessions and their per-event records (requests, frames, chunks, pages; web objects),
/// the workload's arrivals (randomized ones; a Poisson workload's rate needs the cell's
/// capacity, and its arrivals are left to the running guard), the per-second series, the
/// trace samples held between two moves to the spool (every `TRACE_DRAIN_STEP_S` simulated
/// seconds once there are `TRACE_DRAIN_ROWS` of them), the spool, and what ending the run
/// and writing its results add. An upper bound in the large: every flow active for the
/// whole run, every queue full, every histogram's pages resident.
pub fn estimate(sc: &Scenario) -> MemoryEstimate {
    let (ues, flows) = (ue_count(sc), flow_count(sc));
    let dur = pos(sc.simulation.duration_s).min(1e9);
    let secs = dur.ceil() as u64 + 1;
    let w = &sc.wired;
    let add = |a: &mut u64, b: u64| *a = a.saturating_add(b);
    let mul = |a: u64, b: u64| a.saturating_mul(b);

    // Queues at their limits: the UEs' base-station queues (or the shared FIFO), which only
    // the backhaul fills (at most its rate over the run), the backhaul's, the UEs' device
    // queues, and the remote links of constant-rate flows sending faster than them.
    let dl_limit = match &sc.shared_fifo {
        Some(f) => f.queue_bytes.div_ceil(MTU),
        None => mul(ues, sc.cell.aqm.packets_at_limit(sc.cell.rlc_queue_bytes, MTU)),
    };
    let backhaul_pkts = (pos(w.backhaul_rate_mbps) * 1e6 / (8 * MTU) as f64 * dur).ceil() as u64;
    let mut packets = dl_limit.min(backhaul_pkts).saturating_add(w.backhaul_queue_bytes.div_ceil(MTU));
    for g in &sc.ues {
        if let Some(u) = &g.uplink {
            add(&mut packets, mul(g.count as u64, u.qdisc.fifos() * u.queue_bytes.div_ceil(MTU)));
        }
    }

    // App sessions and records, per entry (times the UEs it names), as each app estimates
    // one session (`AppSpec::memory`).
    let (mut session_bytes, mut records, mut reserved) = (0u64, 0u64, 0u64);
    let rtt_min_s = ((2.0 * (pos(w.remote_delay_ms) + pos(w.backhaul_delay_ms))) / 1e3).max(1e-3);
    for f in &sc.flows {
        let Some(app) = &f.app else { continue };
        let n = entry_targets(f, ues);
        let start = pos(f.start_s);
        let active = (f.stop_s.map_or(dur, |s| pos(s).min(dur)) - start).max(0.0);
        // What the flow's constant-rate transport sends (a VoIP app's voice datagrams).
        let datagrams_per_s = match &f.transport {
            TransportConfig::Cbr { rate_mbps, packet_bytes } => pos(*rate_mbps) * 1e6 / ((*packet_bytes as f64 + 28.0) * 8.0),
            _ => 0.0,
        };
        let m = app.memory(&MemoryContext { active_s: active, rtt_min_s, datagrams_per_s });
        add(&mut session_bytes, mul(n, m.state));
        add(&mut reserved, mul(n, m.reserved));
        add(&mut records, mul(n, m.records));
    }

    // Workload arrivals (randomized: its own rates; at most three flows at once per class).
    let mut arrivals = 0u64;
    if let Some(wl) = &sc.workload {
        if let cellshare_workload::Arrivals::Randomized(r) = &wl.arrivals {
            let capped = |mean: f64, cap: f64| pos(mean) * (1.0 - (-pos(cap) / pos(mean).max(1e-12)).exp());
            let inv = |x: f64| if x > 0.0 { 1.0 / x } else { 0.0 };
            let per_s = inv(pos(r.short_interval_s)) + inv(capped(r.medium_mean_s, r.medium_cap_s)) + inv(capped(r.long_mean_s, r.long_cap_s));
            let start = pos(wl.start_s);
            let stop = wl.stop_s.map_or(dur, |s| pos(s).min(dur));
            arrivals = events(per_s, (stop - start).max(0.0));
        }
    }

    // Trace samples: every flow and (in a cell) every UE, every interval.
    let interval_ms = sc.simulation.trace_interval_ms;
    let samples = if interval_ms == 0 { 0 } else { (dur * 1e3 / interval_ms as f64) as u64 };
    let window = if interval_ms == 0 { 0 } else { TRACE_DRAIN_STEP_S * 1000 / interval_ms };
    let traced_ues = if sc.shared_fifo.is_some() { 0 } else { ues };
    let ue_row = UE_ROW_BYTES + if sc.network.is_some() { UE_PLACE_ROW_BYTES } else { 0 };
    let traced_flows = flows.saturating_add(arrivals);
    let (flow_rows, ue_rows) = (mul(traced_flows, samples), mul(traced_ues, samples));
    let rows = flow_rows.saturating_add(ue_rows);
    // Held at most: what accumulates over one drain step on top of fewer than the drain
    // threshold, and never more than the run makes.
    let held = rows.min(TRACE_DRAIN_ROWS + mul(traced_flows.saturating_add(traced_ues), window));
    // Flow and UE rows in their proportions.
    let held_bytes = if rows == 0 {
        0
    } else {
        let per_row = mul(flow_rows, FLOW_ROW_BYTES).saturating_add(mul(ue_rows, ue_row)) as f64 / rows as f64;
        (held as f64 * per_row).ceil() as u64
    };
    let owners = flows.saturating_add(arrivals).saturating_add(ues);
    let spooled = mul(flow_rows, SPOOL_FLOW_ROW_BYTES)
        .saturating_add(mul(ue_rows, SPOOL_UE_ROW_BYTES + ue_row - UE_ROW_BYTES))
        .saturating_add(mul(mul(owners, secs), 16));
    let drains = (rows / TRACE_DRAIN_ROWS).min(secs / TRACE_DRAIN_STEP_S + 1) + 2;
    let spool = spooled.min(SPOOL_MEMORY_BYTES).saturating_add(mul(mul(owners, drains), SPOOL_CHUNK_BYTES));

    let mut run = PROCESS_BYTES + BASE_BYTES;
    add(&mut run, mul(ues, UE_BYTES));
    add(&mut run, mul(flows, FLOW_BYTES));
    add(&mut run, mul(arrivals, CLOSED_FLOW_BYTES).saturating_add(mul(sc.workload.is_some() as u64 * 3, FLOW_BYTES)));
    add(&mut run, mul(packets, PACKET_BYTES));
    add(&mut run, session_bytes);
    add(&mut run, mul(records, RECORD_RUN_BYTES).saturating_add(reserved));
    add(&mut run, mul(mul(owners, secs), SERIES_RUN_BYTES_PER_S));
    add(&mut run, held_bytes);
    add(&mut run, spool);

    let per_extra_flow = FLOW_RESULT_BYTES + secs.saturating_mul(SERIES_RESULT_BYTES_PER_S);
    let mut results = WRITE_BYTES;
    add(&mut results, mul(flows.saturating_add(arrivals), per_extra_flow));
    add(&mut results, mul(ues, UE_RESULT_BYTES + secs.saturating_mul(SERIES_RESULT_BYTES_PER_S)));
    add(&mut results, mul(records, RECORD_RESULT_BYTES));
    add(&mut results, mul(flow_rows.max(ue_rows).min(WRITE_BATCH_ROWS), WRITE_ROW_BYTES));

    let step = GUARD_STEP_BYTES.saturating_add(mul(traced_flows.saturating_add(traced_ues), FLOW_ROW_BYTES));
    MemoryEstimate { run, results, flows: flows.saturating_add(arrivals), per_extra_flow, step }
}

/// Estimated peak memory of running `sc`, bytes ([`estimate`]'s total).
pub fn estimated_bytes(sc: &Scenario) -> u64 {
    estimate(sc).total()
}

impl Limits {
    /// Checks `sc` against the limits; the error names the key, the value and the limit.
    pub fn check(&self, sc: &Scenario) -> Result<(), ScenarioError> {
        let ues = ue_count(sc);
        // UE indices are u32 whatever the limit says.
        if ues > self.max_ues.min(u32::MAX as u64) {
            return Err(ScenarioError::new(
                "ues",
                format!("{ues} UEs in {} groups", sc.ues.len()),
                format!("at most {} UEs in total (raise it with --max-ues)", self.max_ues.min(u32::MAX as u64)),
            ));
        }
        let flows = flow_count(sc);
        if flows > self.max_flows {
            let (i, n) = sc.flows.iter().map(|f| entry_flows(f, ues)).enumerate().max_by_key(|&(_, n)| n).unwrap_or((0, 0));
            return Err(ScenarioError::new(
                "flows",
                format!("{flows} flows ({} entries; the largest, flows[{i}], makes {n})", sc.flows.len()),
                format!("at most {} flows in total (raise it with --max-flows)", self.max_flows),
            ));
        }
        let est = estimate(sc);
        if est.total() > self.max_memory_mb.saturating_mul(1 << 20) {
            return Err(ScenarioError::new(
                "",
                format!(
                    "{ues} UEs and {flows} flows over {} s (estimated {} MiB: {} while it runs, {} more to end it and write its results)",
                    sc.simulation.duration_s,
                    est.total() >> 20,
                    est.run >> 20,
                    est.results >> 20
                ),
                format!(
                    "a run estimated to need at most {} MiB (raise it with --max-memory-mb; see docs/limits.md)",
                    self.max_memory_mb
                ),
            ));
        }
        Ok(())
    }
}

/// The running half of the memory limit: a run is stopped before the process's resident
/// memory, with what ending the run and writing its results will add, passes the limit —
/// whatever the estimate said. The caller reads the resident memory (the simulator does no
/// I/O) every [`GUARD_EVENTS`] events and every simulated second, and calls
/// [`MemoryGuard::check`]. Checking changes nothing in the run.
#[derive(Clone, Copy, Debug)]
pub struct MemoryGuard {
    limit: u64,
    estimate: MemoryEstimate,
    /// Resident bytes of the process before the run that are not the run's: above
    /// [`PROCESS_BYTES`] (a notebook holding data frames runs a scenario within the limit
    /// too).
    before: u64,
}

impl MemoryGuard {
    /// The guard of a run of `sc` under `limits`, in a process whose resident memory before
    /// building it was `rss_before` bytes.
    pub fn new(sc: &Scenario, limits: &Limits, rss_before: u64) -> Self {
        MemoryGuard {
            limit: limits.max_memory_mb.saturating_mul(1 << 20),
            estimate: estimate(sc),
            before: rss_before.saturating_sub(PROCESS_BYTES),
        }
    }

    /// What ending the run will add with `flows` flows created so far, bytes.
    pub fn results_bytes(&self, flows: u64) -> u64 {
        let e = &self.estimate;
        e.results.saturating_add(flows.saturating_sub(e.flows).saturating_mul(e.per_extra_flow))
    }

    /// Whether a run at simulated second `now_s` of `end_s`, with `flows` flows so far, may
    /// go on with `rss` resident bytes; the error is the one-line message of the limit.
    pub fn check(&self, rss: u64, flows: u64, now_s: f64, end_s: f64) -> Result<(), ScenarioError> {
        let used = rss.saturating_sub(self.before);
        let ahead = self.results_bytes(flows);
        if used.saturating_add(ahead).saturating_add(self.estimate.step) <= self.limit {
            return Ok(());
        }
        Err(ScenarioError::new(
            "",
            format!(
                "{} MiB resident at {now_s:.3} s of {end_s} s simulated and {} MiB more to end the run and write its results \
                 (estimated {} MiB before it started; the run was stopped)",
                used >> 20,
                ahead.saturating_add(self.estimate.step) >> 20,
                self.estimate.total() >> 20
            ),
            format!("a run within {} MiB (raise it with --max-memory-mb; see docs/limits.md)", self.limit >> 20),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(groups: usize, per_group: u32, entries: usize, duration_s: f64) -> String {
        let mut t = format!("[simulation]\nduration_s = {duration_s}\n");
        for _ in 0..groups {
            t += &format!("[[ues]]\ncount = {per_group}\nchannel = {{ kind = \"fixed\", rate_mbps = 10 }}\n");
        }
        for _ in 0..entries {
            t += "[[flows]]\nues = \"all\"\ntransport = { kind = \"tcp\" }\n";
        }
        t
    }

    // 10,000 UEs with 100 `ues = "all"` entries (a 5 KB file) expand to a million flows, 5.7 GB
    // to validate: the estimate refuses it before anything is built.
    #[test]
    fn million_flows_from_a_small_file_is_refused_by_the_memory_estimate() {
        let text = scenario(1, 10_000, 100, 10.0);
        assert!(text.len() < 6_000);
        let e = Scenario::from_toml_str(&text).unwrap_err();
        assert_eq!(e.path, "");
        assert!(e.message.contains("10000 UEs and 1000000 flows") && e.message.contains("--max-memory-mb"), "{e}");
        // With the memory limit raised it is the flow limit's turn only above a million.
        let big = Limits { max_memory_mb: u64::MAX, ..Limits::default() };
        let sc: Scenario = toml::from_str(&scenario(1, 10_000, 101, 10.0)).unwrap();
        let e = big.check(&sc).unwrap_err();
        assert_eq!(e.path, "flows");
        assert!(e.message.contains("1010000 flows") && e.message.contains("at most 1000000"), "{e}");
    }

    #[test]
    fn too_many_ues_names_the_total() {
        let sc: Scenario = toml::from_str(&scenario(11, 10_000, 0, 1.0)).unwrap();
        let e = Limits::default().check(&sc).unwrap_err();
        assert_eq!(e.path, "ues");
        assert!(e.message.contains("110000 UEs in 11 groups") && e.message.contains("at most 100000"), "{e}");
        assert!(Limits { max_ues: 200_000, ..Limits::default() }.check(&sc).is_ok());
    }

    #[test]
    fn estimate_grows_with_duration_and_counts() {
        let small: Scenario = toml::from_str(&scenario(1, 100, 1, 60.0)).unwrap();
        assert_eq!((ue_count(&small), flow_count(&small)), (100, 100));
        let e = estimated_bytes(&small);
        // The process, the fixed state and the Parquet writer (176 MiB), and some 30 MiB of
        // run and results (as the 100-UE benchmark: 206 MiB).
        assert!(e > PROCESS_BYTES + BASE_BYTES + WRITE_BYTES && e < 240 << 20, "{}", e >> 20);
        let long: Scenario = toml::from_str(&scenario(1, 100, 1, 86_400.0)).unwrap();
        // 200 series × 86 401 s × 24 B ≈ 415 MB: accepted by the default limit.
        assert!(Limits::default().check(&long).is_ok());
        let wide: Scenario = toml::from_str(&scenario(10, 10_000, 1, 86_400.0)).unwrap();
        assert!(Limits::default().check(&wide).is_err());
    }

    fn parse(text: &str) -> Scenario {
        toml::from_str(text).unwrap()
    }

    /// The issue's web scenario: `ues` UEs, each loading pages of `objects` objects over
    /// `connections` connections one after another without reading time.
    fn web(ues: u32, connections: u32, objects: u32, duration_s: f64) -> String {
        web_pages(ues, connections, objects, duration_s, 0)
    }

    fn web_pages(ues: u32, connections: u32, objects: u32, duration_s: f64, pages: u32) -> String {
        format!(
            "[simulation]\nduration_s = {duration_s}\n[[ues]]\ncount = {ues}\nchannel = {{ kind = \"fixed\", rate_mbps = 10 }}\n\
             [[flows]]\nues = \"all\"\ntransport = {{ kind = \"tcp\" }}\napp = {{ kind = \"web\", connections = {connections}, pages = {pages}, \
             reading_s = 0, page = {{ kind = \"fixed\", main_bytes = 1000, objects = {objects}, object_bytes = 1000 }} }}\n"
        )
    }

    // Two scenarios whose memory is easy to under-count: 1,000 UEs loading pages of 10,000
    // objects over 32 connections for 30 s grow past 3.1 GB (the three delay histograms of
    // each of the 64,000 legs, 45 KB, the traces held and the results all count); 10,000 UEs
    // with 1 ms traces for 4 s pass 3 GB (80 million trace samples held until the run ends).
    // The estimate refuses both.
    #[test]
    fn the_issue_41_scenarios_are_refused_by_the_estimate() {
        let w = parse(&web(1000, 32, 10_000, 30.0));
        let t = parse("[simulation]\nduration_s = 4\ntrace_interval_ms = 1\n[[ues]]\ncount = 10000\nchannel = { kind = \"fixed\", rate_mbps = 10 }\n[[flows]]\nues = \"all\"\ntransport = { kind = \"tcp\" }\n");
        for (sc, what) in [(&w, "1000 UEs and 64000 flows over 30 s"), (&t, "10000 UEs and 10000 flows over 4 s")] {
            let e = Limits::default().check(sc).unwrap_err();
            assert_eq!(e.path, "");
            assert!(e.message.contains(what) && e.message.contains("estimated") && e.message.contains("--max-memory-mb"), "{e}");
            assert!(estimated_bytes(sc) > MAX_MEMORY_MB << 20);
        }
        // Measured peaks of `cellshare run --out` (2.9 GB for the web scenario with no traces;
        // 3.2 GB for the traces) are below the estimates, which are upper bounds in the large.
        assert!(estimated_bytes(&w) > 3_200_000_000 && estimated_bytes(&t) > 3_200_000_000);
    }

    // Each term the issue named grows the estimate by what it holds.
    #[test]
    fn the_estimate_counts_traces_app_state_queues_and_series() {
        let base = |extra: &str, dur: f64| {
            parse(&format!(
                "[simulation]\nduration_s = {dur}\n{extra}\n[[ues]]\ncount = 100\nchannel = {{ kind = \"fixed\", rate_mbps = 10 }}\n[[flows]]\nues = \"all\"\ntransport = {{ kind = \"tcp\" }}\n"
            ))
        };
        let est = |sc: &Scenario| estimate(sc);
        // Traces: 200 series at 1 ms for 4 s are 800,000 samples, all held (fewer than a drain
        // step's); at 100 ms, 8,000.
        let (fine, coarse, none) = (base("trace_interval_ms = 1", 4.0), base("trace_interval_ms = 100", 4.0), base("trace_interval_ms = 0", 4.0));
        let held = |sc: &Scenario| est(sc).run - est(&none).run;
        assert!(held(&fine) >= 400_000 * (FLOW_ROW_BYTES + UE_ROW_BYTES), "{}", held(&fine));
        assert!(held(&coarse) < held(&fine) / 50);
        // Beyond a drain step, what is held stops growing with the duration (the spool takes
        // the rest), and the spool's memory is capped.
        let (long, longer) = (base("trace_interval_ms = 1", 100.0), base("trace_interval_ms = 1", 1000.0));
        let (l, ll) = (est(&long), est(&longer));
        let series = 200 * 900 * SERIES_RUN_BYTES_PER_S;
        assert!(ll.run - l.run < series + 200 * 10 * 100 * SPOOL_CHUNK_BYTES, "{} {}", l.run, ll.run);
        // Per-second series: 8 bytes per flow and UE and second while running, 16 more at the end.
        let (s10, s1010) = (est(&base("trace_interval_ms = 0", 10.0)), est(&base("trace_interval_ms = 0", 1010.0)));
        assert!(s1010.results - s10.results >= 200 * 1000 * SERIES_RESULT_BYTES_PER_S);
        // Web objects: 1,000 sessions holding 10,000 object sizes each (80 MB), records of the
        // pages loaded, sessions; and 32 connections are 64 legs of flows.
        let (many, few) = (parse(&web(1000, 32, 10_000, 30.0)), parse(&web(1000, 32, 0, 30.0)));
        let one_page = |objects| est(&parse(&web_pages(1000, 32, objects, 30.0, 1))).run;
        assert_eq!(one_page(10_000) - one_page(0), 1000 * 10_000 * 8);
        assert_eq!(flow_count(&many), 64_000);
        assert!(est(&many).run >= 64_000 * FLOW_BYTES && est(&many).results >= 64_000 * FLOW_RESULT_BYTES);
        // Without reading time a page of 0 objects takes at least a round trip (20 ms here):
        // up to 1,501 pages each over 30 s, their records counted.
        assert!(est(&few).results - est(&parse(&web(1, 32, 0, 30.0))).results >= 999 * 1500 * RECORD_RESULT_BYTES);
        // Queues at their limits: a 10 MB RLC queue at each of 100 UEs holds up to 700,000
        // packets, which a 1 Gbit/s backhaul fills in 8.4 s: over 4 s half of it.
        let q = |bytes: u64, dur: f64| {
            parse(&format!(
                "[simulation]\nduration_s = {dur}\ntrace_interval_ms = 0\n[cell]\nrlc_queue_bytes = {bytes}\n[[ues]]\ncount = 100\nchannel = {{ kind = \"fixed\", rate_mbps = 10 }}\n[[flows]]\nues = \"all\"\ntransport = {{ kind = \"tcp\" }}\n"
            ))
        };
        let small_q = est(&q(1500, 60.0)).run;
        assert!(est(&q(10 << 20, 60.0)).run - small_q >= 100 * 6990 * PACKET_BYTES);
        let backhaul_4s = 1e9 * 4.0 / 12_000.0;
        let grown = (est(&q(10 << 20, 4.0)).run - est(&q(1500, 4.0)).run) as f64 / PACKET_BYTES as f64;
        assert!(grown > backhaul_4s * 0.99 && grown < backhaul_4s * 1.01, "{grown}");
        // Requests of a ping every 0.1 ms for an hour: 36 million records.
        let ping = parse("[simulation]\nduration_s = 3600\ntrace_interval_ms = 0\n[[ues]]\ncount = 1\nchannel = { kind = \"fixed\", rate_mbps = 10 }\nuplink = { channel = { kind = \"fixed\", rate_mbps = 10 } }\n[[flows]]\nue = 0\ntransport = { kind = \"tcp\" }\napp = { kind = \"ping\", interval_ms = 0.1 }\n");
        assert!(est(&ping).results >= 36_000_000 * RECORD_RESULT_BYTES);
    }

    // The running guard: the resident memory with what ending the run adds must stay under
    // the limit, and the process's memory from before the run is not the run's.
    #[test]
    fn the_guard_stops_a_run_before_the_limit() {
        let sc = parse(&scenario(1, 100, 1, 60.0));
        let lim = Limits { max_memory_mb: 1024, ..Limits::default() };
        let g = MemoryGuard::new(&sc, &lim, 60 << 20);
        let e = estimate(&sc);
        let room = (1024u64 << 20) - e.results - e.step;
        assert!(g.check(room, 100, 1.0, 60.0).is_ok());
        let err = g.check(room + 1, 100, 12.5, 60.0).unwrap_err();
        assert_eq!(err.path, "");
        assert!(err.message.contains("at 12.500 s of 60 s simulated") && err.message.contains("a run within 1024 MiB"), "{err}");
        assert!(err.message.contains("--max-memory-mb") && !err.message.contains('\n'), "{err}");
        // Flows created while the run goes (workload arrivals) need room at its end too.
        assert!(g.check(room, 1100, 1.0, 60.0).is_err());
        assert_eq!(g.results_bytes(1100) - g.results_bytes(100), 1000 * (FLOW_RESULT_BYTES + 61 * SERIES_RESULT_BYTES_PER_S));
        // A process that held 2 GB before the run (a notebook) runs it within the limit.
        let busy = MemoryGuard::new(&sc, &lim, PROCESS_BYTES + (2 << 30));
        assert!(busy.check(room + (2 << 30), 100, 1.0, 60.0).is_ok());
        assert!(busy.check(room + (2 << 30) + 1, 100, 1.0, 60.0).is_err());
    }

    // The guard's steps change nothing: a run advanced a few events at a time ends exactly as
    // one advanced to its end at once.
    #[test]
    fn advancing_in_bounded_steps_gives_the_same_run() {
        let text = "[simulation]\nduration_s = 3\ntrace_interval_ms = 50\n[[ues]]\ncount = 4\nchannel = { kind = \"radio\", distance_range_m = [50, 800] }\n\
                    [[flows]]\nues = \"all\"\ntransport = { kind = \"tcp\" }\n[[flows]]\nue = 1\ntransport = { kind = \"cbr\", rate_mbps = 3 }\n";
        let sc = Scenario::from_toml_str(text).unwrap();
        let whole = crate::Simulation::new(&sc, &Default::default()).unwrap().run();
        let mut sim = crate::Simulation::new(&sc, &Default::default()).unwrap();
        let mut steps = 0;
        while !sim.advance_bounded(sim.end(), 997) {
            steps += 1;
        }
        assert!(steps > 10, "{steps}");
        assert_eq!(serde_json::to_string(&sim.results()).unwrap(), serde_json::to_string(&whole).unwrap());
    }

    // `validate` checks what building the simulation checks, without building the flows.
    #[test]
    fn checking_inputs_finds_what_building_finds() {
        use crate::{PositionTraces, Simulation, TraceSet};
        let ok = Scenario::parse_checked(&web(20, 4, 10, 5.0), &Limits::default()).unwrap();
        assert!(Simulation::check_inputs(&ok, &TraceSet::new(), &PositionTraces::new()).is_ok());
        for text in [
            "[[ues]]\ncount = 2\nchannel = { kind = \"trace\", file = \"missing.down\" }\n",
            "[[ues]]\ncount = 2\nchannel = { kind = \"fixed\", rate_mbps = 5 }\nuplink = { channel = { kind = \"trace\", file = \"up\" } }\n",
            "[[ues]]\ncount = 2\nchannel = { kind = \"radio\", distance_m = 100000 }\n[workload]\n",
        ] {
            let sc = Scenario::parse_checked(text, &Limits::default()).unwrap();
            let a = Simulation::check_inputs(&sc, &TraceSet::new(), &PositionTraces::new()).unwrap_err();
            let b = Simulation::with_inputs(&sc, &TraceSet::new(), &PositionTraces::new(), &Limits::default()).unwrap_err();
            let c = Simulation::from_valid(sc, &TraceSet::new(), &PositionTraces::new(), None).unwrap_err();
            assert_eq!(a, b);
            assert_eq!(a, c);
        }
    }
}
