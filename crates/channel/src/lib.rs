//! # cellshare-channel
//!
//! What the air interface offers each UE, TTI by TTI. A channel model answers one question:
//! *if this UE were scheduled in TTI `t`, how many bytes could it receive?* — as a
//! [`LinkQuality`], from which the MAC scheduler computes the bytes carried by any number of
//! PRBs with [`LinkQuality::bytes_for_prbs`].
//!
//! Models (one file each, one enum [`Channel`] for dispatch without trait objects in the TTI
//! loop):
//! - [`fixed::FixedChannel`]: a constant bit rate;
//! - [`trace::TraceChannel`]: a Mahimahi delivery-opportunity trace, repeating at its end;
//! - [`radio::RadioChannel`]: log-distance path loss, log-normal shadowing and Rayleigh fast
//!   fading → SINR → CQI → MCS → transport block size from the 3GPP TS 36.213 tables
//!   ([`lte_tables`]), with the CQI rule and report timing of a [`LinkAdaptation`]
//!   ([`link_adaptation`]) and the block error model of [`error_model`] (the cell draws the
//!   errors and runs HARQ).
//!
//! Every model is a pure function of (scenario seed, UE, TTI): the answer for a TTI does not
//! depend on which earlier TTIs were queried, so traffic patterns never perturb the channel.

#![warn(missing_docs)]

pub mod builtin;
pub mod error_model;
pub mod fixed;
pub mod interference;
pub mod link_adaptation;
pub mod lte_tables;
pub mod nr_link;
pub mod nr;
pub mod radio;
pub mod trace;

pub use fixed::FixedChannel;
pub use interference::{LinkBudget, LoadBoard};
pub use link_adaptation::{AmcRule, LinkAdaptation};
pub use nr_link::{NrRadio, NrTbsTable};
pub use radio::{RadioChannel, RadioConfig};
pub use trace::{MahimahiTrace, TraceChannel, TraceError};

/// Number of PRBs for an LTE channel bandwidth in MHz (1.4/3/5/10/15/20 → 6/15/25/50/75/100).
/// Returns `None` for a bandwidth LTE does not define.
pub fn prbs_for_bandwidth(mhz: f64) -> Option<u32> {
    const TABLE: [(f64, u32); 6] = [(1.4, 6), (3.0, 15), (5.0, 25), (10.0, 50), (15.0, 75), (20.0, 100)];
    TABLE.iter().find(|(bw, _)| (bw - mhz).abs() < 1e-9).map(|&(_, n)| n)
}

/// The capacity a UE's channel offers in one TTI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkQuality {
    /// Capacity scales linearly with the PRBs granted: `full_bytes` if granted every PRB of
    /// the cell (fixed-rate and trace channels).
    Linear {
        /// Bytes deliverable with all PRBs.
        full_bytes: u32,
    },
    /// Capacity follows the 36.213 transport block size table for modulation and coding
    /// scheme `mcs` and `layers` spatial layers (radio channel). `mcs = None` means CQI 0:
    /// out of range, nothing can be sent.
    Tbs {
        /// I_MCS (0..=28) or `None` when out of range.
        mcs: Option<u8>,
        /// Number of spatial layers (1 or 2).
        layers: u8,
    },
    /// Capacity follows TS 38.214's transport block size for MCS `mcs` of the NR carrier's
    /// MCS table and `layers` layers (an NR cell's radio channel), read from the carrier's
    /// table. `mcs = None` means CQI 0: out of range, nothing can be sent.
    Nr {
        /// The MCS (0..=28 of table 1, 0..=27 of table 2) or `None` when out of range.
        mcs: Option<u8>,
        /// Number of spatial layers (1–4).
        layers: u8,
        /// The carrier's transport block sizes.
        tbs: &'static NrTbsTable,
    },
}

impl LinkQuality {
    /// Bytes deliverable in this TTI with `n_prb` of the cell's `total_prb` PRBs.
    #[inline]
    pub fn bytes_for_prbs(&self, n_prb: u32, total_prb: u32) -> u32 {
        match *self {
            LinkQuality::Linear { full_bytes } => {
                if n_prb >= total_prb {
                    full_bytes
                } else {
                    ((full_bytes as u64 * n_prb as u64) / total_prb as u64) as u32
                }
            }
            LinkQuality::Tbs { mcs: Some(m), layers } => lte_tables::tbs_bits(lte_tables::mcs_to_itbs(m), n_prb, layers) / 8,
            LinkQuality::Tbs { mcs: None, .. } => 0,
            LinkQuality::Nr { mcs: Some(m), layers, tbs } => tbs.bytes(m, n_prb, layers),
            LinkQuality::Nr { mcs: None, .. } => 0,
        }
    }

    /// Bytes deliverable with every PRB of the cell: the "achievable rate" the PF metric uses.
    #[inline]
    pub fn full_bytes(&self, total_prb: u32) -> u32 {
        self.bytes_for_prbs(total_prb, total_prb)
    }
}

/// A UE's channel model. Dispatch is a `match`, not a virtual call, because the scheduler
/// queries it for every backlogged UE every TTI.
#[derive(Clone, Debug)]
pub enum Channel {
    /// Constant bit rate.
    Fixed(FixedChannel),
    /// Mahimahi trace.
    Trace(TraceChannel),
    /// Stochastic LTE radio.
    Radio(Box<RadioChannel>),
}

impl Channel {
    /// The link quality in TTI number `tti` (TTI `k` spans `[k ms, (k+1) ms)`).
    #[inline]
    pub fn quality(&mut self, tti: u64) -> LinkQuality {
        match self {
            Channel::Fixed(c) => c.quality(tti),
            Channel::Trace(c) => c.quality(tti),
            Channel::Radio(c) => c.quality(tti),
        }
    }

    /// The link quality in TTI `tti` and the last TTI (inclusive, ≥ `tti`) up to which it
    /// is known to stay the same, so a caller can reuse it without asking again.
    #[inline]
    pub fn quality_span(&mut self, tti: u64) -> (LinkQuality, u64) {
        match self {
            Channel::Fixed(c) => (c.quality(tti), if c.is_constant() { u64::MAX } else { tti }),
            Channel::Trace(c) => (c.quality(tti), tti),
            Channel::Radio(c) => c.quality_span(tti),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidths_map_to_prbs() {
        assert_eq!(prbs_for_bandwidth(10.0), Some(50));
        assert_eq!(prbs_for_bandwidth(1.4), Some(6));
        assert_eq!(prbs_for_bandwidth(7.0), None);
    }

    #[test]
    fn linear_quality_scales_with_prbs() {
        let q = LinkQuality::Linear { full_bytes: 2500 };
        assert_eq!(q.bytes_for_prbs(50, 50), 2500);
        assert_eq!(q.bytes_for_prbs(25, 50), 1250);
        assert_eq!(q.bytes_for_prbs(1, 50), 50);
        assert_eq!(q.full_bytes(50), 2500);
    }
}
