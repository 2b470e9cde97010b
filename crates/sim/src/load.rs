//! Load as PRB utilization: how many bytes per second a workload must offer to keep a
//! fraction ρ of the cell's PRBs busy.
//!
//! The scheduler gives the TTI's winner every PRB its queue can fill, so a byte sent to UE
//! u occupies about 1/C_u of a cell-TTI, where C_u is the bytes UE u receives in a TTI with
//! every PRB. C_u is measured from the UE's own channel model (built from the scenario and
//! its seed exactly as the run builds it, on a separate copy): its mean over the first
//! [`ESTIMATE_SECONDS`] of TTIs in which the UE can be served at all (CQI 0 TTIs carry
//! nothing and use no PRBs). A workload that sends to UEs drawn uniformly from a set costs
//! mean_u(1/C_u) cell-TTIs per air byte, so the air-byte rate that fills a fraction ρ of
//! the PRBs is ρ / mean_u(1/C_u) per TTI: ρ times the harmonic mean of the C_u. The payload
//! rate removes the per-packet headers (MSS / (MSS + 52) for TCP).
//!
//! C_u follows the CQI rule of the cell's link (`cell.link`): with the realistic link, the
//! BLER-target rule's MCS. What this leaves out, and `cellshare calibrate` measures: TCP and
//! (realistic link) HARQ retransmissions (more PRBs),
//! the partly filled last PRB of each TTI a UE is served, and the scheduler's multi-user
//! diversity under load (PF serves UEs near their fading peaks: fewer PRBs per byte).

use crate::assembly::{build_ran, PositionTraces, TraceSet};
use crate::scenario::{Scenario, ScenarioError};
use crate::transport::TransportConfig;

/// Seconds of TTIs sampled per UE for its mean full-cell rate (fewer if the run is shorter).
pub const ESTIMATE_SECONDS: u64 = 20;

/// Each UE's mean full-cell rate, bytes per TTI, over the TTIs in which it can be served
/// (0 when it never can), for the scenario's cell and seed.
/// In a network of cells each UE's rate is towards the cell it starts in, standing where it
/// starts, with the other cells idle.
pub fn full_cell_bytes_per_tti(sc: &Scenario, traces: &TraceSet, positions: &PositionTraces) -> Result<Vec<f64>, ScenarioError> {
    let (mut ran, _) = build_ran(sc, traces, positions)?;
    let n_prb = ran.n_prb();
    let per_s = ran.slot().per_second();
    let ttis = (sc.simulation.duration_s * per_s as f64).ceil().min((ESTIMATE_SECONDS * per_s) as f64).max(1.0) as u64;
    let mut out = Vec::with_capacity(ran.n_ues());
    for u in 0..ran.n_ues() as u32 {
        let ch = ran.channel_mut(u);
        let (mut sum, mut n) = (0u64, 0u64);
        for t in 0..ttis {
            let b = ch.quality(t).full_bytes(n_prb) as u64;
            if b > 0 {
                sum += b;
                n += 1;
            }
        }
        out.push(if n > 0 { sum as f64 / n as f64 } else { 0.0 });
    }
    Ok(out)
}

/// Payload bytes per second that would keep every PRB busy (ρ = 1) for flows over
/// `transport` to UEs drawn uniformly from `ues` (see the module docs). UEs that can never
/// be served are left out of the mean (they receive nothing and use no PRBs).
pub fn capacity_bytes_per_s(
    sc: &Scenario,
    traces: &TraceSet,
    positions: &PositionTraces,
    ues: &[u32],
    transport: &TransportConfig,
) -> Result<f64, ScenarioError> {
    let c = full_cell_bytes_per_tti(sc, traces, positions)?;
    let costs: Vec<f64> = ues.iter().map(|&u| c[u as usize]).filter(|&b| b > 0.0).map(|b| 1.0 / b).collect();
    if costs.is_empty() {
        return Err(ScenarioError::new("workload.ues", "UEs out of range of the cell", "at least one UE the cell can serve"));
    }
    let mean_cost = costs.iter().sum::<f64>() / costs.len() as f64;
    let air_per_s = sc.cell.slot().per_second() as f64 * sc.cell.downlink_share() / mean_cost;
    // A workload's transport is tcp or cbr (validated); `payload_share` covers every kind.
    Ok(air_per_s * transport.payload_share())
}
