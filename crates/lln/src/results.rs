//! What an LLN run produces (serialized as `summary.json` by the Python layer).

use serde::Serialize;

/// Results of one LLN run.
#[derive(Clone, Debug, Serialize)]
pub struct LlnResult {
    /// Scenario name.
    pub scenario: String,
    /// Seed used.
    pub seed: u64,
    /// Simulated seconds.
    pub duration_s: f64,
    /// Whether DTPA was on.
    pub dtpa: bool,
    /// DTPA's target rate c, segments/s (as configured, also when DTPA is off).
    pub c: f64,
    /// TCP payload bytes per segment.
    pub mss: u32,
    /// Segments per second each node's application offers.
    pub offered_pps: f64,
    /// Sum of the nodes' goodputs, segments/s.
    pub total_goodput_pps: f64,
    /// Sum of the nodes' goodputs, kbps of payload.
    pub total_goodput_kbps: f64,
    /// Jain's fairness index over the nodes' goodputs.
    pub jain_index: f64,
    /// The border router's radio side.
    pub border_router: BorderRouterResult,
    /// Per-node results, node 1 first.
    pub nodes: Vec<NodeResult>,
    /// Discrete events processed.
    pub events: u64,
    /// Most packets alive at once.
    pub peak_packets: usize,
}

/// The border router's counters.
#[derive(Clone, Debug, Serialize)]
pub struct BorderRouterResult {
    /// TCP ACKs dropped at its full transmit queue.
    pub overflows: u64,
    /// TCP ACKs it queued for the tree.
    pub forwarded: u64,
    /// Frames dropped after the last link-layer retry.
    pub mac_drops: u64,
    /// Data-frame transmissions (first attempts and retries).
    pub tx_attempts: u64,
    /// Its transmissions (frames and link ACKs) that did not arrive intact at their addressee.
    pub collided: u64,
}

/// One sensor node's results.
#[derive(Clone, Debug, Serialize)]
pub struct NodeResult {
    /// Node id (1-based; 0 is the border router).
    pub id: u32,
    /// Routing parent.
    pub parent: u32,
    /// Hops to the border router.
    pub hops: u32,
    /// Nodes whose traffic it forwards.
    pub descendants: u32,
    /// Payload bytes the end host received in order.
    pub bytes_delivered: u64,
    /// Goodput, segments (MSS) per second.
    pub goodput_pps: f64,
    /// Goodput, kbps of payload.
    pub goodput_kbps: f64,
    /// Application writes (one segment each).
    pub app_writes: u64,
    /// Writes discarded because the send buffer was full.
    pub app_blocked: u64,
    /// TCP segments sent (retransmissions included): DTPA's TotalTx counter.
    pub segments_sent: u64,
    /// TCP retransmissions.
    pub retransmits: u64,
    /// Retransmission timeouts (DTPA's RTO counter).
    pub timeouts: u64,
    /// Fast retransmits (DTPA's FR counter).
    pub fast_retransmits: u64,
    /// DTPA's loss rate p = (timeouts + fast retransmits) / segments sent.
    pub loss_rate: f64,
    /// Mean of the TCP RTT samples, ms.
    pub mean_rtt_ms: f64,
    /// DTPA's smoothed RTT at the end, ms.
    pub srtt_ms: f64,
    /// RTT samples taken (Karn's rule).
    pub rtt_samples: u64,
    /// TX period at the end, ms (0 without DTPA).
    pub txp_ms: f64,
    /// Time-averaged TX period applied over the run, ms (0 without DTPA).
    pub mean_txp_ms: f64,
    /// Eq. (4.3) with the measured p, mean RTT and mean TXP, segments/s (Eq. (4.1) without DTPA).
    pub model_pps: f64,
    /// Packets dropped at its full transmit queue (own + forwarded).
    pub overflows: u64,
    /// Own TCP segments dropped at its full queue.
    pub overflows_own: u64,
    /// Forwarded packets (data up, ACKs down) dropped at its full queue.
    pub overflows_forwarded: u64,
    /// Packets of other nodes it queued for forwarding.
    pub forwarded: u64,
    /// Frames dropped after the last link-layer retry.
    pub mac_drops: u64,
    /// Data-frame transmissions (first attempts and retries).
    pub tx_attempts: u64,
    /// Its transmissions (frames and link ACKs) that did not arrive intact at their addressee.
    pub collided: u64,
    /// Its transmissions that arrived intact but were lost to the random frame loss.
    pub random_losses: u64,
    /// Channel-access failures (too many busy CCAs).
    pub cca_failures: u64,
}
