//! What a UE measures of every cell, and when it is handed over.
//!
//! **Measurement** (TS 36.214 § 5.1.1, § 5.1.3; every `measurement_period_ms`, ns-3's
//! `UeMeasurementsFilterPeriod`): RSRP is the power per resource element of the cell's
//! reference signal, P_RE + G(d) + shadowing (dBm) — the mean over the period, so fast
//! fading is averaged out (layer 1 filtering). RSRQ = N·RSRP / RSSI over the N PRBs, with
//! RSSI the total power in the OFDM symbols carrying reference signals: per PRB and cell j,
//! 12 resource elements of which 2 carry port 0's reference signal (TS 36.211 § 6.10.1.2) and
//! the other 10 carry data in the share u_j of PRBs the cell used over the period, plus the
//! noise: RSSI = Σ_j 12·P_RE,j·(2/12 + 10/12·u_j) + N. A lone idle cell gives RSRQ =
//! P_RE / (2·P_RE) = −3 dB, a lone fully loaded one 1/12 = −10.8 dB (the range UEs report,
//! −3 to −19.5 dB, TS 36.133 § 9.1.7).
//!
//! **Layer 3 filtering** (TS 36.331 § 5.5.3.2): F_n = (1 − a)·F_{n−1} + a·M_n in dB, a =
//! 1/2^(k/4), F_1 = M_1.
//!
//! **Event A3** (TS 36.331 § 5.5.4.4, with the cell-individual offsets 0): a neighbour n
//! enters when Mn − Hys > Mp + Off and leaves when Mn + Hys < Mp + Off (Mp: the serving
//! cell). A neighbour that entered and has not left for `time_to_trigger_ms` triggers the
//! handover: to the best such neighbour (ns-3's `A3RsrpHandoverAlgorithm` hands over to the
//! best cell of the report). Entering and leaving are judged at measurements; the time to
//! trigger runs out between them, as ns-3's timer does. While a handover's interruption
//! lasts the UE evaluates nothing.

use serde::Serialize;

use crate::config::{HandoverConfig, Quantity};

/// Share of a PRB's resource elements in a reference-signal symbol that carry antenna port
/// 0's reference signal (2 of 12, TS 36.211 § 6.10.1.2).
const RS_SHARE: f64 = 2.0 / 12.0;

/// A UE's measurements of every cell and its A3 state.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// L3-filtered RSRP per cell, dBm (NaN before the first measurement).
    rsrp: Vec<f64>,
    /// L3-filtered RSRQ per cell, dB.
    rsrq: Vec<f64>,
    /// Filter weight a = 1/2^(k/4).
    a: f64,
    /// Per cell: the TTI its A3 entering condition started to hold (u64::MAX: not entered).
    entered: Vec<u64>,
    /// No evaluation before this TTI (a handover's interruption).
    pub busy_until: u64,
    /// Scratch for one measurement's raw values.
    pub scratch: Vec<f64>,
}

impl Measurement {
    /// Nothing measured yet of `n_cells` cells; L3 filter coefficient `k`.
    pub fn new(n_cells: usize, k: u32) -> Self {
        Self {
            rsrp: vec![f64::NAN; n_cells],
            rsrq: vec![f64::NAN; n_cells],
            a: 0.5f64.powf(k as f64 / 4.0),
            entered: vec![u64::MAX; n_cells],
            busy_until: 0,
            scratch: Vec::with_capacity(n_cells),
        }
    }

    /// Filtered RSRP of cell `c`, dBm.
    pub fn rsrp_dbm(&self, c: usize) -> f64 {
        self.rsrp[c]
    }

    /// Filtered RSRQ of cell `c`, dB.
    pub fn rsrq_db(&self, c: usize) -> f64 {
        self.rsrq[c]
    }

    /// One measurement: the raw RSRP of every cell (dBm), every cell's PRB use over the
    /// period (0..1) and the receiver's noise per PRB (mW).
    pub fn measure(&mut self, rsrp_dbm: &[f64], loads: &[f64], noise_mw: f64) {
        let mut rssi = noise_mw;
        for (r, u) in rsrp_dbm.iter().zip(loads) {
            rssi += 12.0 * 10f64.powf(r / 10.0) * (RS_SHARE + (1.0 - RS_SHARE) * u.min(1.0));
        }
        for c in 0..rsrp_dbm.len() {
            let rsrq = rsrp_dbm[c] - 10.0 * rssi.log10();
            let a = self.a;
            let f = |old: f64, m: f64| {
                if old.is_nan() {
                    m
                } else {
                    (1.0 - a) * old + a * m
                }
            };
            self.rsrp[c] = f(self.rsrp[c], rsrp_dbm[c]);
            self.rsrq[c] = f(self.rsrq[c], rsrq);
        }
    }

    fn quantity(&self, q: Quantity, c: usize) -> f64 {
        match q {
            Quantity::Rsrp => self.rsrp[c],
            Quantity::Rsrq => self.rsrq[c],
        }
    }

    /// Judges A3's entering and leaving conditions for every neighbour of serving cell `p`
    /// at the measurement of TTI `tti`.
    pub fn evaluate_a3(&mut self, p: usize, tti: u64, cfg: &HandoverConfig) {
        let mp = self.quantity(cfg.quantity, p);
        for n in 0..self.rsrp.len() {
            if n == p {
                self.entered[n] = u64::MAX;
                continue;
            }
            let mn = self.quantity(cfg.quantity, n);
            if mn - cfg.hysteresis_db > mp + cfg.a3_offset_db {
                if self.entered[n] == u64::MAX {
                    self.entered[n] = tti;
                }
            } else if mn + cfg.hysteresis_db < mp + cfg.a3_offset_db {
                self.entered[n] = u64::MAX;
            }
        }
    }

    /// The cell to hand over to at TTI `tti`, if a neighbour has held A3 for the time to
    /// trigger (`ttt` TTIs): the best such one.
    pub fn due(&self, tti: u64, ttt: u64, cfg: &HandoverConfig) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        for (c, &since) in self.entered.iter().enumerate() {
            if since != u64::MAX && since + ttt <= tti {
                let q = self.quantity(cfg.quantity, c);
                if best.is_none_or(|(b, _)| q > b) {
                    best = Some((q, c));
                }
            }
        }
        best.map(|(_, c)| c)
    }

    /// The earliest TTI at which a time to trigger of `ttt` TTIs runs out (u64::MAX: none).
    pub fn next_deadline(&self, ttt: u64) -> u64 {
        self.entered
            .iter()
            .filter(|&&s| s != u64::MAX)
            .map(|&s| s + ttt)
            .min()
            .unwrap_or(u64::MAX)
    }

    /// A handover was made: A3 starts afresh once the interruption ends at `until`.
    pub fn handed_over(&mut self, until: u64) {
        self.entered.iter_mut().for_each(|e| *e = u64::MAX);
        self.busy_until = until;
    }
}

/// One handover.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandoverRecord {
    /// When (the handover command), s.
    pub t_s: f64,
    /// The UE.
    pub ue: u32,
    /// The cell it left.
    pub source: u32,
    /// The cell it joined.
    pub target: u32,
    /// Filtered RSRP of the source cell at the decision, dBm.
    pub rsrp_source_dbm: f64,
    /// Filtered RSRP of the target cell at the decision, dBm.
    pub rsrp_target_dbm: f64,
    /// Packets forwarded to the target (X2).
    pub forwarded: u64,
    /// Packets lost with the old cell: in HARQ or on air, or partly sent.
    pub lost: u64,
    /// Packets of the old cell's queue dropped (`forwarding = "drop"`, or the target's
    /// queue refused them).
    pub dropped: u64,
}

/// Every handover, one column per field of [`HandoverRecord`].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct HandoverLog {
    /// When, s.
    pub t_s: Vec<f64>,
    /// The UE.
    pub ue: Vec<u32>,
    /// The cell it left.
    pub source: Vec<u32>,
    /// The cell it joined.
    pub target: Vec<u32>,
    /// Filtered RSRP of the source at the decision, dBm ("before").
    pub rsrp_source_dbm: Vec<f64>,
    /// Filtered RSRP of the target at the decision, dBm ("after").
    pub rsrp_target_dbm: Vec<f64>,
    /// Packets forwarded to the target.
    pub forwarded: Vec<u64>,
    /// Packets lost with the old cell.
    pub lost: Vec<u64>,
    /// Packets of the old cell's queue dropped.
    pub dropped: Vec<u64>,
}

impl HandoverLog {
    /// Appends one handover.
    pub fn push(&mut self, r: HandoverRecord) {
        self.t_s.push(r.t_s);
        self.ue.push(r.ue);
        self.source.push(r.source);
        self.target.push(r.target);
        self.rsrp_source_dbm.push(r.rsrp_source_dbm);
        self.rsrp_target_dbm.push(r.rsrp_target_dbm);
        self.forwarded.push(r.forwarded);
        self.lost.push(r.lost);
        self.dropped.push(r.dropped);
    }

    /// Number of handovers.
    pub fn len(&self) -> usize {
        self.t_s.len()
    }

    /// Whether there were none.
    pub fn is_empty(&self) -> bool {
        self.t_s.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l3_filter_follows_36_331() {
        let mut m = Measurement::new(1, 4);
        m.measure(&[-100.0], &[0.0], 1e-15);
        assert_eq!(m.rsrp_dbm(0), -100.0);
        m.measure(&[-90.0], &[0.0], 1e-15);
        assert!((m.rsrp_dbm(0) + 95.0).abs() < 1e-12, "a = 1/2 for k = 4");
        let mut k0 = Measurement::new(1, 0);
        k0.measure(&[-100.0], &[0.0], 1e-15);
        k0.measure(&[-90.0], &[0.0], 1e-15);
        assert_eq!(k0.rsrp_dbm(0), -90.0, "k = 0: no filtering");
    }

    #[test]
    fn rsrq_spans_idle_to_loaded() {
        let mut idle = Measurement::new(1, 0);
        idle.measure(&[-80.0], &[0.0], 1e-15);
        assert!(
            (idle.rsrq_db(0) + 10.0 * 2f64.log10()).abs() < 1e-6,
            "{}",
            idle.rsrq_db(0)
        );
        let mut full = Measurement::new(1, 0);
        full.measure(&[-80.0], &[1.0], 1e-15);
        assert!(
            (full.rsrq_db(0) + 10.0 * 12f64.log10()).abs() < 1e-6,
            "{}",
            full.rsrq_db(0)
        );
        // A loaded neighbour lowers the serving cell's RSRQ.
        let mut two = Measurement::new(2, 0);
        two.measure(&[-80.0, -85.0], &[1.0, 1.0], 1e-15);
        assert!(two.rsrq_db(0) < full.rsrq_db(0));
    }

    #[test]
    fn a3_enters_leaves_and_waits_for_the_time_to_trigger() {
        let cfg = HandoverConfig::default();
        let mut m = Measurement::new(2, 0);
        // Neighbour 2 dB better: inside the hysteresis, nothing.
        m.measure(&[-100.0, -98.0], &[0.0, 0.0], 1e-15);
        m.evaluate_a3(0, 0, &cfg);
        assert_eq!(m.next_deadline(256), u64::MAX);
        // 4 dB better: entered at 200, due at 456, not before.
        m.measure(&[-100.0, -96.0], &[0.0, 0.0], 1e-15);
        m.evaluate_a3(0, 200, &cfg);
        assert_eq!(m.next_deadline(256), 456);
        assert_eq!(m.due(455, 256, &cfg), None);
        // Still inside the hysteresis band at 400: the timer runs on.
        m.measure(&[-100.0, -98.0], &[0.0, 0.0], 1e-15);
        m.evaluate_a3(0, 400, &cfg);
        assert_eq!(m.due(456, 256, &cfg), Some(1));
        // Leaving (the neighbour 4 dB worse) stops it.
        m.measure(&[-100.0, -104.0], &[0.0, 0.0], 1e-15);
        m.evaluate_a3(0, 600, &cfg);
        assert_eq!(m.next_deadline(256), u64::MAX);
    }
}
