//! The results of a run ([`RunResult`]), built from the engine's state when the caller asks
//! ([`Simulation::results`]).

use std::collections::BTreeMap;

use cellshare_cell::LinkStats;
use cellshare_core::time::to_secs_f64;
use cellshare_core::TrafficClass;

use super::flows::FlowRt;
use super::Simulation;
use crate::metrics::jain_index;
use crate::transport::Sender;
use crate::results::{
    AppsSummary, CellResult, CellSeries, ClassResult, FlowGroup, FlowResult, LinkResult, RttSummary, RunResult, SessionResult,
    StreamSummary, UeResult, VideoCallSummary, WebSummary, WorkloadResult,
};
use cellshare_apps::{percentile, Report};

pub(super) fn collect(sim: &Simulation) -> RunResult {
    let end = sim.end;
    let dur = to_secs_f64(end);
    let lte = sim.scenario.shared_fifo.is_none();
    let total_prbs: u64 = sim.prbs.bins().iter().sum();
    let n_cells = sim.ran().map_or(1, |r| r.n_cells());
    // PRBs a cell offers per second: n_prb in every TTI (slot) of the second that carries
    // downlink (every one but on TDD).
    let slots_per_s = sim.slot.per_second() as f64 * sim.scenario.cell.downlink_share();
    let prb_per_sec = sim.n_prb as f64 * slots_per_s * n_cells as f64;
    let offered = Offered::of(sim);
    let mut flows: Vec<FlowResult> = sim
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let delivered = f.delivered();
            let life_end = match f.fct {
                Some(fct) => f.start + fct,
                None => f.stop.min(end),
            };
            let life = to_secs_f64(life_end.saturating_sub(f.start));
            let (retransmits, timeouts) = f.loss_stats();
            let (queue_delay_ms, rtt_ms, one_way_delay_ms, queue_wait_ms) = f
                .final_delays
                .unwrap_or_else(|| (f.delay.percentiles(), f.rtt.percentiles(), f.owd.percentiles(), f.wait.percentiles()));
            FlowResult {
                id: i as u32,
                name: f.name.clone(),
                ue: f.ue,
                class: f.class,
                category: f.category.to_string(),
                transport: f.label.clone(),
                start_s: to_secs_f64(f.start),
                size_bytes: f.size,
                bytes_delivered: delivered,
                throughput_mbps: if life > 0.0 { delivered as f64 * 8.0 / life / 1e6 } else { 0.0 },
                fct_s: f.fct.map(to_secs_f64),
                completed: f.size.is_some() && f.fct.is_some(),
                drops: f.drops,
                retransmits,
                timeouts,
                queue_delay_ms,
                queue_wait_ms,
                rtt_ms,
                one_way_delay_ms,
                per_second_mbps: f.series.mbps(end),
                series_start_s: f.series.first_second(),
                trace: f.trace.clone(),
                mode_changes: f.mode_changes.clone(),
                direction: (f.dir == crate::apps::Direction::Uplink).then_some("uplink"),
                app: None,
            }
        })
        .collect();
    // Each app's report: on its first flow (request/response apps) or in its list.
    let (mut video_calls, mut streams, mut web, mut app_tables) = (Vec::new(), Vec::new(), Vec::new(), BTreeMap::new());
    let mut pooled = Pooled::default();
    let mut session_kinds = Vec::new();
    for (flow, report) in sim.session_reports() {
        session_kinds.push(pooled.add(&report));
        if let Some(r) = report.flow_record() {
            flows[flow as usize].app = Some(r.clone());
            continue;
        }
        let main = &sim.flows[flow as usize];
        let table = report.table();
        let r = SessionResult { flow, name: main.name.clone(), ue: main.ue, report };
        match table {
            "video_calls" => video_calls.push(r),
            "streams" => streams.push(r),
            "web" => web.push(r),
            other => app_tables.entry(other).or_insert_with(Vec::new).push(r),
        }
    }
    let tputs: Vec<f64> = flows.iter().map(|f| f.throughput_mbps).collect();
    let (entry_flows, flow_groups, bulk) = group_flows(sim, &flows, &session_kinds, dur);
    let class = |name: String, member: &dyn Fn(&FlowRt) -> bool| {
        let mut delay = sim.closed_delay.get(&name).cloned().unwrap_or_default();
        let (mut n, mut air, mut good, mut drops) = (0u32, 0u64, 0u64, 0u64);
        for f in sim.flows.iter().filter(|f| member(f)) {
            delay.merge(&f.delay);
            n += 1;
            air += f.air_bytes;
            good += f.delivered();
            drops += f.drops;
        }
        let queue_delay_ms = delay.percentiles();
        let delivered_mbps = air as f64 * 8.0 / dur / 1e6;
        let power = if queue_delay_ms.p99 > 0.0 { delivered_mbps / queue_delay_ms.p99 } else { 0.0 };
        ClassResult { class: name, flows: n, delivered_mbps, goodput_mbps: good as f64 * 8.0 / dur / 1e6, drops, queue_delay_ms, power }
    };
    let mut classes = vec![
        class("foreground".into(), &|f| f.class == TrafficClass::Foreground),
        class("background".into(), &|f| f.class == TrafficClass::Background),
    ];
    let mut dscps: Vec<u8> = sim.flows.iter().map(|f| f.dscp).collect();
    dscps.sort_unstable();
    dscps.dedup();
    for d in dscps {
        classes.push(class(format!("dscp{d}"), &|f| f.dscp == d));
    }
    RunResult {
        video_calls,
        streams,
        web,
        app_tables,
        scenario: sim.scenario.name.clone(),
        seed: sim.scenario.simulation.seed,
        duration_s: dur,
        access: if lte { "lte_cell".into() } else { "shared_fifo".into() },
        prb_utilization: if lte {
            offered.utilization(total_prbs, prb_per_sec * dur, sim.prb_bytes.bins().iter().sum())
        } else {
            0.0
        },
        prb_used_share_of_all: if lte { total_prbs as f64 / (prb_per_sec * dur) } else { 0.0 },
        prb_offered_share: if lte { offered.share(slots_per_s * dur * n_cells as f64) } else { 0.0 },
        delivered_mbps: sim.air_bytes.bins().iter().sum::<u64>() as f64 * 8.0 / dur / 1e6,
        queue_delay_ms: sim.delay.percentiles(),
        drops: sim.drops,
        link: {
            let per_ue: Vec<LinkStats> = sim.ran().map_or(Vec::new(), |c| (0..c.n_ues() as u32).filter_map(|u| c.link_stats(u)).collect());
            let stats = (!per_ue.is_empty()).then(|| {
                let mut sum = LinkStats::default();
                per_ue.iter().for_each(|s| sum.add(s));
                sum
            });
            LinkResult {
                kind: if lte { sim.scenario.cell.link.kind_name() } else { "none" },
                retransmissions_per_block: stats.filter(|s| s.transport_blocks > 0).map(|s| s.retransmissions as f64 / s.transport_blocks as f64),
                stats,
            }
        },
        jain_index: jain_index(&tputs),
        bulk_jain_index: (bulk.len() >= 2).then(|| jain_index(&bulk)),
        apps: pooled.summary(),
        entry_flows,
        flow_groups,
        events: sim.events,
        ttis: sim.ttis_run,
        peak_packets: sim.peak_packets(),
        flows,
        ues: sim
            .ues
            .iter()
            .enumerate()
            .map(|(i, u)| UeResult {
                id: i as u32,
                bytes: u.bytes,
                throughput_mbps: u.bytes as f64 * 8.0 / dur / 1e6,
                mean_snr_db: u.mean_snr_db,
                queue_delay_ms: u.delay.percentiles(),
                per_second_mbps: u.series.mbps(end),
                trace: u.trace.clone(),
                link: sim.ran().and_then(|c| c.link_stats(i as u32)),
            })
            .collect(),
        classes,
        workload: sim.workload.as_ref().map(|w| WorkloadResult {
            kind: sim.scenario.workload.as_ref().map_or("", |c| c.arrivals.kind()).to_string(),
            target_load: w.target_load,
            capacity_mbps: w.capacity_bytes_per_s * 8.0 / 1e6,
            offered_mbps: w.offered_bytes_per_s * 8.0 / 1e6,
            generated_mbps: w.bytes.iter().sum::<u64>() as f64 * 8.0 / dur / 1e6,
            flows: w.flows,
            bytes: w.bytes,
        }),
        series: CellSeries {
            prb_utilization: if lte {
                sim.prbs
                    .bins()
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| {
                        let len = (dur - i as f64).min(1.0);
                        let weighted = sim.prb_bytes.bins().get(i).copied().unwrap_or(0);
                        offered.utilization_in(i, b, prb_per_sec * len.max(0.0), weighted)
                    })
                    .collect()
            } else {
                vec![]
            },
            prb_used_share_of_all: if lte {
                sim.prbs
                    .bins()
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| {
                        let len = (dur - i as f64).min(1.0);
                        if len > 0.0 { b as f64 / (prb_per_sec * len) } else { 0.0 }
                    })
                    .collect()
            } else {
                vec![]
            },
            delivered_mbps: sim.air_bytes.mbps(end),
            queue_delay_cdf: sim.delay.cdf_ms(),
            one_way_delay_cdf: sim.owd.cdf_ms(),
        },
        cells: sim.ran().filter(|r| r.is_network()).map(|r| {
            r.sites()
                .iter()
                .zip(r.prbs_used())
                .enumerate()
                .map(|(i, (s, &p))| CellResult {
                    id: i as u32,
                    site: s.site,
                    x_m: s.pos[0],
                    y_m: s.pos[1],
                    azimuth_deg: s.azimuth.map(f64::to_degrees),
                    // A network's UEs are radio UEs: every cell offers every PRB.
                    prb_utilization: p as f64 / (sim.n_prb as f64 * slots_per_s * dur),
                    prb_used_share_of_all: p as f64 / (sim.n_prb as f64 * slots_per_s * dur),
                })
                .collect()
        }),
        handovers: sim.ran().and_then(|r| r.handovers().cloned()),
    }
}

/// What the run's cells offered ([`cellshare_cell::Cell::offers_every_tti`]): every PRB of
/// every TTI (radio and fixed channels; every network, whose UEs are radio UEs), or, in a cell
/// of trace UEs, the TTIs with an opportunity, their PRBs weighted by the bytes they carry.
struct Offered {
    /// Every TTI of every cell offered its PRBs, unweighted.
    every: bool,
    /// Per second of the run: (offered cell-TTIs, offered PRBs × bytes); empty when `every`.
    per_second: Vec<(u64, u64)>,
}

impl Offered {
    fn of(sim: &Simulation) -> Self {
        let every = Self { every: true, per_second: Vec::new() };
        let Some(ran) = sim.ran() else { return every };
        if ran.cells().iter().all(|c| c.offers_every_tti()) {
            return every;
        }
        // Only a lone cell can hold trace UEs (a network's UEs are radio UEs).
        let n_ttis = sim.slot.index_ceil(sim.end);
        Self { every: false, per_second: ran.cells()[0].offered_per_second(n_ttis) }
    }

    /// PRBs used over PRBs offered. `used` PRBs of `all` (the run's PRBs) when every TTI
    /// offered, computed exactly as before trace channels were accounted for (radio and
    /// fixed outputs unchanged to the byte); else `used_weighted` (PRBs × bytes,
    /// [`cellshare_cell::TtiReport::prb_bytes_used`]) over the offered weighted PRBs. 0 when
    /// nothing was offered.
    fn utilization(&self, used: u64, all: f64, used_weighted: u64) -> f64 {
        if self.every {
            return used as f64 / all;
        }
        let offered: u64 = self.per_second.iter().map(|&(_, w)| w).sum();
        if offered > 0 { used_weighted as f64 / offered as f64 } else { 0.0 }
    }

    /// The utilization of second `i` (`None` when it offered nothing); `used`, `all` and
    /// `used_weighted` are that second's.
    fn utilization_in(&self, i: usize, used: u64, all: f64, used_weighted: u64) -> Option<f64> {
        if self.every {
            return Some(if all > 0.0 { used as f64 / all } else { 0.0 });
        }
        let offered = self.per_second.get(i).map_or(0, |&(_, w)| w);
        (offered > 0).then(|| used_weighted as f64 / offered as f64)
    }

    /// Offered TTIs over the run's TTIs, `all_ttis` (summed over the cells).
    fn share(&self, all_ttis: f64) -> f64 {
        if self.every {
            return 1.0;
        }
        self.per_second.iter().map(|&(n, _)| n).sum::<u64>() as f64 / all_ttis
    }
}

/// The flows of the `[[flows]]` entries that are not apps' legs (ids), the groups of the
/// rest (the workload's arrivals per size class, then apps' legs per app kind), and the
/// throughputs of the long-lived flows: the entries without a size or an on/off pattern,
/// but a `cbr` source the network carried whole.
/// `kinds` is each session's app kind.
fn group_flows(sim: &Simulation, flows: &[FlowResult], kinds: &[&'static str], dur: f64) -> (Vec<u32>, Vec<FlowGroup>, Vec<f64>) {
    let group = |source: &'static str, name: &'static str| FlowGroup {
        source,
        name,
        flows: 0,
        sessions: 0,
        completed: 0,
        bytes_delivered: 0,
        goodput_mbps: 0.0,
        fct_p50_s: None,
        fct_p95_s: None,
    };
    let mut workload = [group("workload", "short"), group("workload", "medium"), group("workload", "long")];
    let mut fcts: [Vec<f64>; 3] = Default::default();
    let mut apps: BTreeMap<&'static str, FlowGroup> = BTreeMap::new();
    let (mut entries, mut bulk) = (Vec::new(), Vec::new());
    for (rt, f) in sim.flows.iter().zip(flows) {
        let g = if let Some((s, leg)) = rt.session {
            let kind = kinds[s as usize];
            let g = apps.entry(kind).or_insert_with(|| group("app", kind));
            g.sessions += (leg == 0) as u32;
            g
        } else if let Some(k) = ["short", "medium", "long"].iter().position(|&c| c == rt.category) {
            if let (true, Some(fct)) = (f.completed, f.fct_s) {
                fcts[k].push(fct);
            }
            &mut workload[k]
        } else {
            entries.push(f.id);
            if rt.size.is_none() && rt.on_off.is_none() && !carried_whole(rt, f) {
                bulk.push(f.throughput_mbps);
            }
            continue;
        };
        g.flows += 1;
        g.completed += f.completed as u32;
        g.bytes_delivered += f.bytes_delivered;
    }
    for (g, fct) in workload.iter_mut().zip(fcts.iter_mut()) {
        fct.sort_by(f64::total_cmp);
        (g.fct_p50_s, g.fct_p95_s) = match fct.is_empty() {
            true => (None, None),
            false => (Some(percentile(fct, 0.5)), Some(percentile(fct, 0.95))),
        };
    }
    let mut groups: Vec<FlowGroup> = workload.into_iter().filter(|g| g.flows > 0).chain(apps.into_values()).collect();
    for g in &mut groups {
        g.goodput_mbps = if dur > 0.0 { g.bytes_delivered as f64 * 8.0 / dur / 1e6 } else { 0.0 };
    }
    (entries, groups, bulk)
}

/// Share of its set rate a `cbr` source must get for the network to have carried it whole.
const CARRIED_WHOLE: f64 = 0.9;

/// Whether `rt` is a `cbr` source the network carried whole (goodput `f.throughput_mbps` at
/// least [`CARRIED_WHOLE`] of its set rate's payload): limited by its own rate, not by what
/// the network gives it, so no competitor for the bulk flows' Jain index. A source held
/// below its rate (a saturating one) competes like any bulk flow.
fn carried_whole(rt: &FlowRt, f: &FlowResult) -> bool {
    match rt.sender {
        Sender::Cbr { rate_bps, payload, .. } => {
            let payload_bps = rate_bps as f64 * payload as f64 / (payload + rt.header) as f64;
            f.throughput_mbps * 1e6 >= CARRIED_WHOLE * payload_bps
        }
        _ => false,
    }
}

/// The apps' events pooled per app kind, for [`AppsSummary`].
#[derive(Default)]
struct Pooled {
    web: Option<(WebSummary, Vec<f64>)>,
    call: Option<(VideoCallSummary, Vec<f64>, Vec<f64>)>,
    stream: Option<(StreamSummary, [Vec<f64>; 4])>,
    rtt: BTreeMap<&'static str, (RttSummary, Vec<f64>)>,
}

impl Pooled {
    /// Adds one session's report; returns its app kind.
    fn add(&mut self, report: &Report) -> &'static str {
        match report {
            Report::Web(r) => {
                let (s, plts) = self.web.get_or_insert_with(Default::default);
                s.sessions += 1;
                s.pages_started += r.pages_started as u64;
                s.pages_loaded += r.pages_loaded as u64;
                plts.extend(r.pages.load_time_s.iter().copied().filter(|t| t.is_finite()));
                "web"
            }
            Report::VideoCall(r) => {
                let (s, delays, rates) = self.call.get_or_insert_with(Default::default);
                s.sessions += 1;
                s.frames_sent += r.frames_sent;
                s.frames_rendered += r.frames_rendered;
                s.frames_late += r.frames_late;
                s.frames_lost += r.frames_lost;
                s.frames_undecodable += r.frames_undecodable;
                s.freezes += r.freezes;
                s.freeze_s += r.freeze_s;
                // The rendered frames' delays (the others' are NaN), as the call's own.
                delays.extend(r.frames.delay_ms.iter().copied().filter(|d| d.is_finite()));
                rates.push(r.bitrate_kbps);
                "video_call"
            }
            Report::Stream(r) => {
                let (s, [qoe, per_chunk, rate, startup]) = self.stream.get_or_insert_with(Default::default);
                s.sessions += 1;
                s.chunks_downloaded += r.chunks_downloaded as u64;
                s.rebuffer_s += r.rebuffer_s;
                s.rebuffers += r.rebuffers as u64;
                s.switches += r.switches as u64;
                qoe.push(r.qoe.qoe);
                per_chunk.push(r.qoe.qoe_per_chunk);
                rate.push(r.bitrate_kbps);
                startup.push(r.startup_delay_s);
                "stream"
            }
            other => match other.flow_record() {
                Some(r) => {
                    let (s, rtts) = self.rtt.entry(r.kind).or_default();
                    s.sessions += 1;
                    s.requests += r.requests;
                    s.completed += r.completed;
                    rtts.extend_from_slice(&r.rtt_ms);
                    r.kind
                }
                None => other.table(),
            },
        }
    }

    fn summary(self) -> AppsSummary {
        fn sorted(mut xs: Vec<f64>) -> Vec<f64> {
            xs.sort_by(f64::total_cmp);
            xs
        }
        AppsSummary {
            web: self.web.map(|(mut s, plts)| {
                let plts = sorted(plts);
                s.pages_unfinished = s.pages_started - s.pages_loaded;
                s.load_time_p50_s = percentile(&plts, 0.5);
                s.load_time_p95_s = percentile(&plts, 0.95);
                s.load_time_mean_s = mean_finite(&plts);
                s
            }),
            video_call: self.call.map(|(mut s, delays, rates)| {
                let delays = sorted(delays);
                s.frame_delay_p50_ms = percentile(&delays, 0.5);
                s.frame_delay_p95_ms = percentile(&delays, 0.95);
                s.bitrate_kbps = mean_finite(&rates);
                s
            }),
            stream: self.stream.map(|(mut s, [qoe, per_chunk, rate, startup])| {
                s.qoe = mean_finite(&qoe);
                s.qoe_per_chunk = mean_finite(&per_chunk);
                s.bitrate_kbps = mean_finite(&rate);
                s.startup_delay_s = mean_finite(&startup);
                s
            }),
            rtt: self
                .rtt
                .into_iter()
                .map(|(kind, (mut s, rtts))| {
                    let rtts = sorted(rtts);
                    s.rtt_p50_ms = percentile(&rtts, 0.5);
                    s.rtt_p95_ms = percentile(&rtts, 0.95);
                    (kind, s)
                })
                .collect(),
        }
    }
}

/// The mean of the finite values of `xs` (NaN without one).
fn mean_finite(xs: &[f64]) -> f64 {
    let (n, sum) = xs.iter().filter(|x| x.is_finite()).fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    if n > 0 { sum / n as f64 } else { f64::NAN }
}
