//! The result contract: every table a run's results hold, every column of each (name, Arrow
//! type, unit, meaning) and every key of `summary.json`, described once.
//!
//! The spool ([`crate::spool`]) lays out its tables from these columns; Python
//! (`cellshare.api`) builds its pyarrow schemas, `Result.TABLES`, `Result.tables()` and the
//! files `cellshare run --out` writes from [`contract_json`] (`_core.result_contract()`), and
//! `cellshare.docs.output_reference()` renders `docs/output-reference.md` from it.

use serde_json::{json, Value};

/// The Arrow type of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// uint8.
    U8,
    /// uint16.
    U16,
    /// uint32.
    U32,
    /// uint64.
    U64,
    /// int64.
    I64,
    /// float64; a value that is not finite is a null.
    F64,
    /// bool.
    Bool,
    /// UTF-8 string.
    Utf8,
}

impl Ty {
    /// The type's name in Arrow (`pyarrow.type_for_alias` reads it).
    pub const fn arrow(self) -> &'static str {
        match self {
            Ty::U8 => "uint8",
            Ty::U16 => "uint16",
            Ty::U32 => "uint32",
            Ty::U64 => "uint64",
            Ty::I64 => "int64",
            Ty::F64 => "float64",
            Ty::Bool => "bool",
            Ty::Utf8 => "string",
        }
    }

    /// Bytes per value of a fixed-width type (a bool takes one byte in the spool); 0 for a
    /// string.
    pub const fn width(self) -> usize {
        match self {
            Ty::U8 | Ty::Bool => 1,
            Ty::U16 => 2,
            Ty::U32 => 4,
            Ty::U64 | Ty::I64 | Ty::F64 => 8,
            Ty::Utf8 => 0,
        }
    }
}

/// One column of a table.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// Its name.
    pub name: &'static str,
    /// Its Arrow type.
    pub ty: Ty,
    /// Its unit (empty: none).
    pub unit: &'static str,
    /// What it holds.
    pub meaning: &'static str,
    /// When the table has it (empty: always).
    pub only: &'static str,
}

const fn col(name: &'static str, ty: Ty, unit: &'static str, meaning: &'static str) -> Column {
    Column { name, ty, unit, meaning, only: "" }
}

const fn col_only(name: &'static str, ty: Ty, unit: &'static str, meaning: &'static str, only: &'static str) -> Column {
    Column { name, ty, unit, meaning, only }
}

/// When `cellshare run --out` writes a table's file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// Every run.
    Always,
    /// A run with `[network]` (its handovers).
    Network,
    /// A run with an interactive app (ping, game, voip) on some flow.
    Apps,
    /// A run with sessions of the app kind that owns the table.
    Sessions,
}

impl Written {
    const fn name(self) -> &'static str {
        match self {
            Written::Always => "always",
            Written::Network => "network",
            Written::Apps => "apps",
            Written::Sessions => "sessions",
        }
    }
}

/// Where a table's rows come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The run's spool, in batches (`RunData.batch`).
    Spool,
    /// One row per entry of the summary list `key`, nested objects flattened into columns;
    /// its Arrow types are those pyarrow infers from the values.
    Summary(&'static str),
    /// The cell's per-second series.
    CellSeries,
    /// The sojourn CDF's points.
    Cdf,
    /// The interactive apps' per-request lists.
    Requests,
    /// The per-event lists `events` of the app sessions listed under summary key `key`.
    Session { key: &'static str, events: &'static str },
    /// The network's handover log.
    Handovers,
}

impl Source {
    fn json(self) -> Value {
        match self {
            Source::Spool => json!({"kind": "spool"}),
            Source::Summary(key) => json!({"kind": "summary", "key": key}),
            Source::CellSeries => json!({"kind": "cell_series"}),
            Source::Cdf => json!({"kind": "cdf"}),
            Source::Requests => json!({"kind": "requests"}),
            Source::Session { key, events } => json!({"kind": "session", "key": key, "events": events}),
            Source::Handovers => json!({"kind": "handovers"}),
        }
    }
}

/// One table of a run's results (`Result.table(name)`, `<name>.parquet`).
#[derive(Debug)]
pub struct Table {
    /// Its name: the `Result` method and the Parquet file's stem.
    pub name: &'static str,
    /// What one row is.
    pub rows: &'static str,
    /// More on what it holds (may be empty).
    pub meaning: &'static str,
    /// When its file is written.
    pub written: Written,
    /// Where its rows come from.
    pub source: Source,
    /// Its columns, in order.
    pub columns: &'static [Column],
}

// Columns several tables share: each is described once.
const FLOW: Column = col("flow", Ty::U32, "", "the flow's index (`id` in `flows`)");
const FLOW_NAME: Column = col("name", Ty::Utf8, "", "the flow's name");
const UE: Column = col("ue", Ty::U32, "", "the UE's index");
const SESSION_UE: Column = col("ue", Ty::U32, "", "the UE the app runs on");
const UE_T_S: Column = col("t_s", Ty::F64, "s", "sample time");
const X_M: Column = col_only("x_m", Ty::F64, "m", "the UE's position at its last 100 ms mobility update", "network");
const Y_M: Column = col_only("y_m", Ty::F64, "m", "the UE's position at its last 100 ms mobility update", "network");
const CELL: Column = col_only("cell", Ty::U32, "", "the serving cell", "network");
const RSRP: Column = col_only("rsrp_dbm", Ty::F64, "dBm", "the serving cell's L3-filtered RSRP", "network");
const SECOND: Column = col("second", Ty::I64, "s", "the second of simulated time the row covers, from 0");
const QD_SAMPLES: Column = col("queue_delay_samples", Ty::I64, "", "packets behind the queue-delay figures");
const QD_MEAN: Column = col("queue_delay_mean_ms", Ty::F64, "ms", "mean base-station sojourn of the packets");
const QD_P50: Column = col("queue_delay_p50_ms", Ty::F64, "ms", "median base-station sojourn");
const QD_P99: Column = col("queue_delay_p99_ms", Ty::F64, "ms", "99th-percentile base-station sojourn");
const QD_MAX: Column = col("queue_delay_max_ms", Ty::F64, "ms", "largest base-station sojourn");

/// `flow_trace`'s columns (the spool holds those after `flow` and `name`).
pub static FLOW_TRACE_COLUMNS: [Column; 10] = [
    FLOW,
    FLOW_NAME,
    col("t_s", Ty::F64, "s", "sample time"),
    col("mbps", Ty::F64, "Mbit/s", "payload delivered in order to the receiver over the interval ending at `t_s`"),
    col("cwnd_bytes", Ty::U64, "bytes", "congestion window (0 for a flow that is not TCP)"),
    col("srtt_ms", Ty::F64, "ms", "smoothed RTT (0 before the first sample and for a flow that is not TCP)"),
    col("mode", Ty::U8, "", "the controller's mode (controller-defined; 0 when it has none)"),
    col("estimate", Ty::F64, "", "the controller's estimate (Legilimens: capacity, Mbit/s); null when it has none"),
    col("flag", Ty::Bool, "", "the controller's flag (Legilimens: cell busy)"),
    col(
        "aux",
        Ty::F64,
        "",
        "a second quantity of the transport (Sprout: posterior mean link rate, Mbit/s; Verus: the delay profile's delay at \
         the current window, ms; PCC-Vivace: the latest monitor interval's utility); null for the others",
    ),
];

/// `mode_changes`' columns (the spool holds those after `flow` and `name`).
pub static MODE_CHANGES_COLUMNS: [Column; 4] = [
    FLOW,
    FLOW_NAME,
    col("t_s", Ty::F64, "s", "when the mode changed"),
    col("mode", Ty::U8, "", "the new mode (Legilimens: 0 NORMAL, 1-3 GAP I-III, 4 back-off)"),
];

/// `ue_trace`'s columns: the queue samples (spooled as `ue_trace`), then, in a network, where
/// each was taken (spooled as `ue_place`, [`UE_PLACE_COLUMNS`]).
pub static UE_TRACE_COLUMNS: [Column; 8] = [
    UE,
    UE_T_S,
    col("queue_bytes", Ty::U64, "bytes", "bytes queued for the UE at the base station"),
    col("queue_packets", Ty::U32, "packets", "packets queued for the UE at the base station"),
    X_M,
    Y_M,
    CELL,
    RSRP,
];

/// Where each `ue_trace` sample was taken, in a network (spooled row for row with `ue_trace`
/// and joined to it as its last four columns).
pub static UE_PLACE_COLUMNS: [Column; 6] = [UE, UE_T_S, X_M, Y_M, CELL, RSRP];

/// `flow_series`' columns (the spool holds `second` and `mbps`).
pub static FLOW_SERIES_COLUMNS: [Column; 6] = [
    FLOW,
    FLOW_NAME,
    col("class", Ty::Utf8, "", "the flow's traffic class: `foreground` or `background`"),
    col("category", Ty::Utf8, "", "the flow's category: `short`, `medium`, `long` (workload), `background` or `custom`"),
    SECOND,
    col("mbps", Ty::F64, "Mbit/s", "payload delivered in order over the second"),
];

/// `ue_series`' columns (the spool holds `second` and `mbps`).
pub static UE_SERIES_COLUMNS: [Column; 3] =
    [col("ue", Ty::I64, "", "the UE's index"), SECOND, col("mbps", Ty::F64, "Mbit/s", "bytes the UE received over the air in the second (headers included)")];

const FLOWS_COLUMNS: &[Column] = &[
    col("id", Ty::I64, "", "the flow's index, in the order of the scenario's flows"),
    col("name", Ty::Utf8, "", "the flow's name"),
    col("ue", Ty::I64, "", "the receiving UE"),
    col("class", Ty::Utf8, "", "traffic class: `foreground` or `background`"),
    col("category", Ty::Utf8, "", "`short`, `medium`, `long` (workload flows), `background` or `custom` (`[[flows]]` entries)"),
    col("transport", Ty::Utf8, "", "the transport, e.g. `tcp-cubic`"),
    col("start_s", Ty::F64, "s", "start time"),
    col("size_bytes", Ty::I64, "bytes", "payload size of a finite flow; null for bulk and on/off flows"),
    col("bytes_delivered", Ty::I64, "bytes", "payload delivered to the receiving application"),
    col("throughput_mbps", Ty::F64, "Mbit/s", "goodput over the flow's own lifetime (start to completion, stop or end of run)"),
    col("fct_s", Ty::F64, "s", "flow completion time (from the SYN with the handshake on); null unless a finite flow completed"),
    col("completed", Ty::Bool, "", "whether a finite flow completed"),
    col("drops", Ty::I64, "packets", "the flow's packets dropped anywhere"),
    col("retransmits", Ty::I64, "segments", "retransmitted segments"),
    col("timeouts", Ty::I64, "", "retransmission timeouts"),
    col("series_start_s", Ty::I64, "s", "the first second of the flow's rows in `flow_series`"),
    col_only("direction", Ty::Utf8, "", "`uplink` for an upload or an app leg whose data goes up", "the first flow is uplink"),
    col_only("app_kind", Ty::Utf8, "", "the interactive app: `ping`, `game` or `voip`", "the first flow is an interactive app's"),
    col_only("app_requests", Ty::I64, "", "requests issued (VoIP: datagrams sent)", "the first flow is an interactive app's"),
    col_only("app_completed", Ty::I64, "", "requests completed", "the first flow is an interactive app's"),
    col_only("app_rtt_p50_ms", Ty::F64, "ms", "median request RTT", "the first flow is an interactive app's"),
    col_only("app_rtt_p95_ms", Ty::F64, "ms", "95th-percentile request RTT", "the first flow is an interactive app's"),
    col_only("app_rtt_mean_ms", Ty::F64, "ms", "mean request RTT", "the first flow is an interactive app's"),
    col_only("app_rtt_max_ms", Ty::F64, "ms", "largest request RTT", "the first flow is an interactive app's"),
    QD_SAMPLES,
    QD_MEAN,
    QD_P50,
    QD_P99,
    QD_MAX,
    col(
        "queue_wait_samples",
        Ty::I64,
        "",
        "delivered data packets behind the queue-wait figures: the wait in the base-station queue before service began, \
         arrival to the moment the queue discipline let the packet through and its first byte went into a transport block \
         (a shared FIFO: its serialization began; uplink data: in the UE's device queue); the sojourn a dequeue-time \
         discipline bounds (BoDe's BoundedDelay), without the transmission the queue-delay figures include",
    ),
    col("queue_wait_mean_ms", Ty::F64, "ms", "mean wait before service"),
    col("queue_wait_p50_ms", Ty::F64, "ms", "median wait before service"),
    col("queue_wait_p99_ms", Ty::F64, "ms", "99th-percentile wait before service"),
    col("queue_wait_max_ms", Ty::F64, "ms", "longest wait before service"),
    col("rtt_samples", Ty::I64, "", "RTT samples (the sender's smoothed RTT after every ACK); 0 for a flow that is not TCP"),
    col("rtt_mean_ms", Ty::F64, "ms", "mean smoothed RTT; null without samples"),
    col("rtt_p50_ms", Ty::F64, "ms", "median smoothed RTT; null without samples"),
    col("rtt_p99_ms", Ty::F64, "ms", "99th-percentile smoothed RTT; null without samples"),
    col("rtt_max_ms", Ty::F64, "ms", "largest smoothed RTT; null without samples"),
    col("one_way_delay_samples", Ty::I64, "", "data packets behind the one-way-delay figures"),
    col("one_way_delay_mean_ms", Ty::F64, "ms", "mean one-way delay, first transmission of the payload to arrival"),
    col("one_way_delay_p50_ms", Ty::F64, "ms", "median one-way delay"),
    col("one_way_delay_p99_ms", Ty::F64, "ms", "99th-percentile one-way delay"),
    col("one_way_delay_max_ms", Ty::F64, "ms", "largest one-way delay"),
];

const CLASSES_COLUMNS: &[Column] = &[
    col("class", Ty::Utf8, "", "`foreground`, `background`, or `dscp<N>` for the flows carrying DSCP value N"),
    col("flows", Ty::I64, "", "flows in the class"),
    col("delivered_mbps", Ty::F64, "Mbit/s", "bytes of the class's packets delivered over the access link (headers included), over the run"),
    col("goodput_mbps", Ty::F64, "Mbit/s", "payload delivered in order to the receiving applications, over the run"),
    col("drops", Ty::I64, "packets", "the class's packets dropped"),
    col("power", Ty::F64, "", "BoDe's power: goodput over mean queue delay"),
    QD_SAMPLES,
    QD_MEAN,
    QD_P50,
    QD_P99,
    QD_MAX,
];

/// Every table, in the order `Result.TABLES` lists them.
pub static TABLES: &[Table] = &[
    Table {
        name: "flows",
        rows: "one per flow",
        meaning: "The flow's summary entry, its queue-delay, queue-wait, RTT and one-way-delay figures as columns.",
        written: Written::Always,
        source: Source::Summary("flows"),
        columns: FLOWS_COLUMNS,
    },
    Table {
        name: "classes",
        rows: "one per traffic class",
        meaning: "Foreground, background, then one class per DSCP value when the flows use more than one.",
        written: Written::Always,
        source: Source::Summary("classes"),
        columns: CLASSES_COLUMNS,
    },
    Table {
        name: "flow_series",
        rows: "one per flow and second",
        meaning: "Per-second goodput of every flow. A workload flow has rows only over its lifetime (from its arrival's second).",
        written: Written::Always,
        source: Source::Spool,
        columns: &FLOW_SERIES_COLUMNS,
    },
    Table {
        name: "ue_series",
        rows: "one per UE and second",
        meaning: "Per-second throughput of every UE.",
        written: Written::Always,
        source: Source::Spool,
        columns: &UE_SERIES_COLUMNS,
    },
    Table {
        name: "cell_series",
        rows: "one per second",
        meaning: "Per-second figures of the cell (of all cells, in a network).",
        written: Written::Always,
        source: Source::CellSeries,
        columns: &[
            SECOND,
            col("delivered_mbps", Ty::F64, "Mbit/s", "bytes delivered over the access link in the second (headers included)"),
            col("prb_utilization", Ty::F64, "", "PRBs used over PRBs offered; null in a second that offered none, and behind a shared FIFO"),
            col("prb_used_share_of_all", Ty::F64, "", "PRBs used over all the cell's PRBs; null behind a shared FIFO"),
        ],
    },
    Table {
        name: "queue_delay_cdf",
        rows: "one per point of the CDF",
        meaning: "CDF of every packet's base-station sojourn.",
        written: Written::Always,
        source: Source::Cdf,
        columns: &[
            col("delay_ms", Ty::F64, "ms", "sojourn at the base station"),
            col("fraction", Ty::F64, "", "share of the packets whose sojourn was at most `delay_ms`"),
        ],
    },
    Table {
        name: "flow_trace",
        rows: "one per flow and sample",
        meaning: "Every flow sampled every `simulation.trace_interval_ms` (0 turns traces off).",
        written: Written::Always,
        source: Source::Spool,
        columns: &FLOW_TRACE_COLUMNS,
    },
    Table {
        name: "mode_changes",
        rows: "one per change of a controller's mode",
        meaning: "Every change of a congestion controller's mode, as it happened.",
        written: Written::Always,
        source: Source::Spool,
        columns: &MODE_CHANGES_COLUMNS,
    },
    Table {
        name: "ue_trace",
        rows: "one per UE and sample",
        meaning: "Every UE's base-station queue sampled every `simulation.trace_interval_ms` (none behind a shared FIFO).",
        written: Written::Always,
        source: Source::Spool,
        columns: &UE_TRACE_COLUMNS,
    },
    Table {
        name: "requests",
        rows: "one per completed request of an interactive app (ping, game, voip)",
        meaning: "",
        written: Written::Apps,
        source: Source::Requests,
        columns: &[
            FLOW,
            FLOW_NAME,
            col("kind", Ty::Utf8, "", "the app: `ping`, `game` or `voip`"),
            col("t_s", Ty::F64, "s", "completion time"),
            col("rtt_ms", Ty::F64, "ms", "request written to whole response received"),
        ],
    },
    Table {
        name: "video_frames",
        rows: "one per frame of a video call",
        meaning: "See docs/apps.md.",
        written: Written::Sessions,
        source: Source::Session { key: "video_calls", events: "frames" },
        columns: &[
            FLOW,
            FLOW_NAME,
            SESSION_UE,
            col("t_s", Ty::F64, "s", "capture time"),
            col("bytes", Ty::U32, "bytes", "the encoded frame's size"),
            col("target_kbps", Ty::F64, "kbit/s", "the encoder's target rate"),
            col("key", Ty::Bool, "", "whether it is a key frame"),
            col("packets", Ty::U16, "packets", "packets the frame was sent in"),
            col("status", Ty::Utf8, "", "`rendered`, `undecodable`, `lost` or `pending`"),
            col("delay_ms", Ty::F64, "ms", "capture to the last packet's arrival; null unless rendered"),
        ],
    },
    Table {
        name: "stream_chunks",
        rows: "one per chunk an adaptive stream requested",
        meaning: "See docs/apps.md.",
        written: Written::Sessions,
        source: Source::Session { key: "streams", events: "chunks" },
        columns: &[
            FLOW,
            FLOW_NAME,
            SESSION_UE,
            col("index", Ty::U32, "", "the chunk's index in the stream"),
            col("level", Ty::U8, "", "the bitrate level chosen (0: lowest)"),
            col("bitrate_kbps", Ty::F64, "kbit/s", "that level's bitrate"),
            col("bytes", Ty::U64, "bytes", "the chunk's size"),
            col("request_t_s", Ty::F64, "s", "when it was requested"),
            col("done_t_s", Ty::F64, "s", "when it arrived whole"),
            col("throughput_kbps", Ty::F64, "kbit/s", "its size over its download time"),
            col("buffer_s", Ty::F64, "s", "the playback buffer after it arrived"),
            col("rebuffer_s", Ty::F64, "s", "the stall while it was awaited"),
        ],
    },
    Table {
        name: "page_loads",
        rows: "one per web page load",
        meaning: "See docs/apps.md.",
        written: Written::Sessions,
        source: Source::Session { key: "web", events: "pages" },
        columns: &[
            FLOW,
            FLOW_NAME,
            SESSION_UE,
            col("page", Ty::U32, "", "the page's index in the session"),
            col("start_t_s", Ty::F64, "s", "when the load started"),
            col("load_time_s", Ty::F64, "s", "start to the last object's arrival; null when not loaded by the end"),
            col("objects", Ty::U32, "", "objects on the page"),
            col("bytes", Ty::U64, "bytes", "the page's size"),
        ],
    },
    Table {
        name: "handovers",
        rows: "one per handover of a network (empty without `[network]`)",
        meaning: "",
        written: Written::Network,
        source: Source::Handovers,
        columns: &[
            col("t_s", Ty::F64, "s", "when the handover was executed"),
            col("ue", Ty::U32, "", "the UE handed over"),
            col("source", Ty::U32, "", "the cell it left"),
            col("target", Ty::U32, "", "the cell it joined"),
            col("rsrp_source_dbm", Ty::F64, "dBm", "the source cell's L3-filtered RSRP at the decision"),
            col("rsrp_target_dbm", Ty::F64, "dBm", "the target cell's L3-filtered RSRP at the decision"),
            col("forwarded", Ty::U64, "packets", "packets forwarded from the source to the target"),
            col("lost", Ty::U64, "packets", "packets lost in the handover (in HARQ, on air, partly sent)"),
            col("dropped", Ty::U64, "packets", "packets dropped at the handover"),
        ],
    },
];

/// When a summary key is present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Always.
    Always,
    /// Always; null when it does not apply.
    Nullable,
    /// In a run with `[network]`.
    Network,
    /// In a run with sessions of that app kind.
    Sessions,
}

impl Presence {
    const fn name(self) -> &'static str {
        match self {
            Presence::Always => "always",
            Presence::Nullable => "nullable",
            Presence::Network => "network",
            Presence::Sessions => "sessions",
        }
    }
}

/// One key of `summary.json` (`Result.summary`).
#[derive(Debug)]
pub struct SummaryKey {
    /// The key.
    pub name: &'static str,
    /// Its JSON type.
    pub ty: &'static str,
    /// Its unit (empty: none).
    pub unit: &'static str,
    /// What it holds.
    pub meaning: &'static str,
    /// When it is there.
    pub presence: Presence,
    /// Whether the Python layer computes it (the rest are the simulator's, as they are).
    pub derived: bool,
}

const fn key(name: &'static str, ty: &'static str, unit: &'static str, meaning: &'static str) -> SummaryKey {
    SummaryKey { name, ty, unit, meaning, presence: Presence::Always, derived: false }
}

const DELAY: &str = "object: count, mean, p50, p99, max";

/// The keys of `summary.json`, in the order `Result.summary` holds them.
pub static SUMMARY: &[SummaryKey] = &[
    key("scenario", "string", "", "the scenario's name"),
    key("seed", "integer", "", "the seed the run used"),
    key("duration_s", "float", "s", "simulated time"),
    key("access", "string", "", "`lte_cell` or `shared_fifo`"),
    SummaryKey { derived: true, ..key("sim_speed", "float", "", "simulated seconds per wall-clock second (depends on the machine)") },
    SummaryKey { derived: true, ..key("wall_s", "float", "s", "wall-clock time of the run (depends on the machine)") },
    key("prb_utilization", "float", "", "PRBs used over PRBs offered across the run (0 behind a shared FIFO or when nothing was offered)"),
    key("prb_used_share_of_all", "float", "", "PRBs used over all the cell's PRBs of the run, offered or not"),
    key("prb_offered_share", "float", "", "share of the run's TTIs that offered the cell's PRBs"),
    key("delivered_mbps", "float", "Mbit/s", "bytes delivered over the access link (headers included), over the run"),
    key("queue_delay_ms", DELAY, "ms", "base-station sojourn of all packets"),
    key("drops", "object", "packets", "drops by cause"),
    SummaryKey { presence: Presence::Nullable, ..key("link", "object", "", "the radio link (`kind`) and, for the realistic link, what it did over the radio UEs") },
    key("jain_index", "float", "", "Jain's fairness index over the throughputs of every flow, workload arrivals and apps' legs included (1 with no flow)"),
    SummaryKey {
        presence: Presence::Nullable,
        ..key(
            "bulk_jain_index",
            "float",
            "",
            "Jain's fairness index over the throughputs of the long-lived flows: the `[[flows]]` entries without a `size` or an on/off \
             pattern that are not an app's legs, either direction, save a `cbr` source the network carried whole (goodput at least \
             90 % of its set rate's payload: limited by its own rate, not by the network); the throughput fairness among competing bulk flows \
             the papers report; null with fewer than two such flows",
        )
    },
    key("events", "integer", "", "discrete events processed"),
    key("ttis", "integer", "", "TTIs (slots on an NR cell) in which the scheduler ran"),
    key("peak_packets", "integer", "packets", "most packets alive at once"),
    SummaryKey {
        derived: true,
        ..key("flows", "array of objects", "", "one entry per flow (the columns of `flows`; `rtt_ms` null for a flow without RTT samples)")
    },
    key(
        "entry_flows",
        "array of integers",
        "",
        "ids of the flows of the `[[flows]]` entries that are not an app's legs (bulk, sized and on/off flows): the flows the run \
         summary lists one by one",
    ),
    key(
        "flow_groups",
        "array of objects",
        "",
        "the flows that come in numbers, by group: the workload's arrivals per size class (`source` `workload`, `name` short, \
         medium or long), then the apps' legs per app kind (`source` `app`, `name` the kind); each with flows, sessions, completed, \
         bytes_delivered, goodput_mbps (over the run) and, for the workload, fct_p50_s and fct_p95_s over the completed flows \
         (nearest rank; null without one)",
    ),
    SummaryKey { derived: true, ..key("ues", "array of objects", "", "one entry per UE: id, bytes, throughput_mbps, mean_snr_db, queue_delay_ms, link") },
    SummaryKey {
        derived: true,
        ..key("classes", "array of objects", "", "one entry per traffic class (the rows of `classes`; a single DSCP class is left out)")
    },
    SummaryKey { presence: Presence::Nullable, ..key("workload", "object", "", "the generated workload (with `[workload]`; null without)") },
    SummaryKey {
        presence: Presence::Sessions,
        derived: true,
        ..key("video_calls", "array of objects", "", "the video calls' summaries (their frames are `video_frames`)")
    },
    SummaryKey { presence: Presence::Sessions, derived: true, ..key("streams", "array of objects", "", "the adaptive streams' summaries (their chunks are `stream_chunks`)") },
    SummaryKey { presence: Presence::Sessions, derived: true, ..key("web", "array of objects", "", "the web sessions' summaries (their pages are `page_loads`)") },
    SummaryKey {
        presence: Presence::Sessions,
        ..key(
            "apps",
            "object",
            "",
            "what the apps measured, per app kind present, pooled over the kind's sessions (percentiles nearest-rank over the pooled \
             pages, frames or requests): `web` sessions, pages_started, pages_loaded, pages_unfinished (not loaded by the end), \
             load_time_p50_s, load_time_p95_s, load_time_mean_s; `video_call` sessions, frames_sent, frames_rendered, frames_late, \
             frames_lost, frames_undecodable, frame_delay_p50_ms, frame_delay_p95_ms, freezes and freeze_s (summed), bitrate_kbps \
             (mean over the calls); `stream` sessions, chunks_downloaded, qoe and qoe_per_chunk (the MPC paper's Eq. 5, mean over \
             the streams), bitrate_kbps and startup_delay_s (means), rebuffer_s, rebuffers and switches (summed); `ping`, `game`, \
             `voip` sessions, requests, completed, rtt_p50_ms, rtt_p95_ms",
        )
    },
    SummaryKey { presence: Presence::Network, ..key("cells", "array of objects", "", "the network's cells: id, site, x_m, y_m, azimuth_deg, prb_utilization, prb_used_share_of_all") },
    SummaryKey { presence: Presence::Network, derived: true, ..key("handovers", "integer", "", "handovers executed (the rows of `handovers`)") },
];

fn column_json(c: &Column) -> Value {
    json!({"name": c.name, "type": c.ty.arrow(), "unit": c.unit, "meaning": c.meaning, "only": c.only})
}

/// The whole contract as JSON: `{"tables": [...], "summary": [...]}`.
pub fn contract_json() -> Value {
    let tables: Vec<Value> = TABLES
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "rows": t.rows,
                "meaning": t.meaning,
                "written": t.written.name(),
                "source": t.source.json(),
                "inferred": matches!(t.source, Source::Summary(_)),
                "columns": t.columns.iter().map(column_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let summary: Vec<Value> = SUMMARY
        .iter()
        .map(|k| json!({"name": k.name, "type": k.ty, "unit": k.unit, "meaning": k.meaning, "presence": k.presence.name(), "derived": k.derived}))
        .collect();
    json!({"tables": tables, "summary": summary, "ue_place": UE_PLACE_COLUMNS.iter().map(column_json).collect::<Vec<_>>()})
}

/// The table called `name` (the spool's tests check its columns against the contract).
#[cfg(test)]
pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique() {
        let t: HashSet<_> = TABLES.iter().map(|t| t.name).collect();
        assert_eq!(t.len(), TABLES.len());
        for tb in TABLES {
            let c: HashSet<_> = tb.columns.iter().map(|c| c.name).collect();
            assert_eq!(c.len(), tb.columns.len(), "{}", tb.name);
            assert!(tb.columns.iter().all(|c| !c.meaning.is_empty()), "{}", tb.name);
        }
        let k: HashSet<_> = SUMMARY.iter().map(|k| k.name).collect();
        assert_eq!(k.len(), SUMMARY.len());
    }

    #[test]
    fn place_columns_are_ue_traces_network_columns() {
        let net: Vec<_> = UE_TRACE_COLUMNS.iter().filter(|c| c.only == "network").map(|c| c.name).collect();
        assert_eq!(net, UE_PLACE_COLUMNS[2..].iter().map(|c| c.name).collect::<Vec<_>>());
        assert_eq!(UE_PLACE_COLUMNS[..2].iter().map(|c| c.name).collect::<Vec<_>>(), ["ue", "t_s"]);
    }
}
