//! What one scenario may ask for, checked before anything is allocated.
//!
//! A scenario of a few kilobytes can name millions of flows (`ues = "all"` in many
//! `[[flows]]` entries over many UEs): without a check, building it takes gigabytes before
//! the first TTI and aborts where memory is limited. [`Limits`] bounds the UE count, the
//! flow count and the memory the run is estimated to need; each is an error naming the key,
//! the value and the limit (`cellshare run --max-ues/--max-flows/--max-memory-mb` raise
//! them). The numbers and the estimate are documented in `docs/limits.md`.

use crate::scenario::{FlowConfig, Scenario, ScenarioError, UeSelector};

/// Default largest number of UEs in a scenario.
pub const MAX_UES: u64 = 100_000;
/// Default largest number of flows in a scenario (`[[flows]]` entries expanded over their
/// UEs; an app counts once per leg).
pub const MAX_FLOWS: u64 = 1_000_000;
/// Default largest estimated memory of a run, MiB (the estimate runs about 1.2–1.5 times
/// the measured peak, so a run at the limit stays under 3 GB).
pub const MAX_MEMORY_MB: u64 = 3072;

/// Fixed part of a run's memory, bytes (the fading tables of the radio channel, the
/// arena, the event heap; measured: 3 MB for 100 UEs with one flow each, 14 MB
/// interpreter aside).
const BASE_BYTES: u64 = 16 << 20;
/// Per UE, bytes: channel state, RLC queue, counters, histogram, and the UE's entry in the
/// results handed to Python. Measured with `cellshare run --out` of 0.05 s: 100,000 radio
/// UEs with one flow each peaked at 1.70 GB, 10,000 at 0.28 GB, 1,000 UEs with 100 flows
/// each at 1.33 GB (65 MB of each the interpreter with pyarrow).
const UE_BYTES: u64 = 4 << 10;
/// Per flow, bytes: endpoints, remote link, two delay histograms (≈ 5.8 KB once built, from
/// `validate`), and the flow's summary in Python and in summary.json (≈ 7 KB more).
const FLOW_BYTES: u64 = 16 << 10;
/// Per flow or UE and simulated second, bytes: the per-second bin (8 B), its Mbit/s copy
/// in the results (8 B) and the copy handed to Python (8 B).
const SERIES_BYTES_PER_S: u64 = 24;

/// The bounds a scenario is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most UEs.
    pub max_ues: u64,
    /// Most flows.
    pub max_flows: u64,
    /// Most estimated memory, MiB.
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

/// The flows entry `f` creates over `n_ues` UEs: one per UE it names, times an app's legs
/// (two for the request/response apps, a video call and a stream; two per connection for
/// web page loads).
fn entry_flows(f: &FlowConfig, n_ues: u64) -> u64 {
    let targets = match (&f.ue, &f.ues) {
        (Some(_), _) => 1,
        (None, Some(UeSelector::List(l))) => l.len() as u64,
        (None, Some(UeSelector::All(_))) => n_ues,
        (None, None) => 0,
    };
    targets * f.app.as_ref().map_or(1, |a| a.flow_count())
}

/// The number of flows `sc` creates at the start: every `[[flows]]` entry over its UEs, an
/// app entry twice. Workload arrivals are not counted (they come and go during the run).
pub fn flow_count(sc: &Scenario) -> u64 {
    let n_ues = ue_count(sc);
    sc.flows.iter().map(|f| entry_flows(f, n_ues)).sum()
}

/// Estimated peak memory of running `sc`, bytes: a fixed part, a cost per UE and per flow,
/// and the per-second series of every flow and UE over the run. Trace samples are not
/// counted: the Python layer moves them out of the simulation as the run goes.
pub fn estimated_bytes(sc: &Scenario) -> u64 {
    let (ues, flows) = (ue_count(sc), flow_count(sc));
    let secs = sc.simulation.duration_s.clamp(0.0, 1e9).ceil() as u64 + 1;
    BASE_BYTES
        .saturating_add(ues.saturating_mul(UE_BYTES))
        .saturating_add(flows.saturating_mul(FLOW_BYTES))
        .saturating_add((ues.saturating_add(flows)).saturating_mul(secs).saturating_mul(SERIES_BYTES_PER_S))
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
        let est = estimated_bytes(sc);
        if est > self.max_memory_mb.saturating_mul(1 << 20) {
            return Err(ScenarioError::new(
                "",
                format!(
                    "{ues} UEs and {flows} flows over {} s (estimated {} MiB)",
                    sc.simulation.duration_s,
                    est >> 20
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

    // Issue 22: 10,000 UEs with 100 `ues = "all"` entries (a 5 KB file) took 5.7 GB to
    // validate. The estimate refuses it before anything is built.
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
        assert!(e > BASE_BYTES && e < 64 << 20, "{e}");
        let long: Scenario = toml::from_str(&scenario(1, 100, 1, 86_400.0)).unwrap();
        // 200 series × 86 401 s × 24 B ≈ 415 MB: accepted by the default limit.
        assert!(Limits::default().check(&long).is_ok());
        let wide: Scenario = toml::from_str(&scenario(10, 10_000, 1, 86_400.0)).unwrap();
        assert!(Limits::default().check(&wide).is_err());
    }
}
