//! Inter-cell interference: what the other cells transmit, TTI by TTI.
//!
//! With several cells ([`RadioChannel::set_budget`](crate::RadioChannel::set_budget)) a UE's
//! wideband SINR in TTI t is
//!
//! > SINR(t) = S · G_shadow(t) · G_fading(t) / (N + Σ_j I_j · u_j(t − 1)),
//!
//! where I_j is the mean power per PRB the UE receives from cell j (path loss and antenna
//! gain; no fast fading or shadowing on the interfering links) and u_j the fraction of cell
//! j's PRBs on air. Two choices, documented where they are made:
//!
//! - **Wideband, load-weighted.** A neighbour that uses k of its N PRBs in a TTI adds k/N of
//!   its full-band power to the UE's wideband interference: the PRB-averaged interference a
//!   wideband SINR stands for when the neighbour's PRBs fall anywhere in the band. An idle
//!   neighbour adds nothing (reference signals are not counted as interference on data).
//! - **One TTI behind.** The load of TTI t − 1 stands for that of TTI t: every cell decides
//!   TTI t at the same instant, so the loads of TTI t are not all known when any one cell
//!   measures or judges a block of TTI t; those of TTI t − 1 are, whatever order the cells
//!   are run in. With the realistic link the PRBs on air in TTI t − 1 are those decided in
//!   TTI t − 1 − `pipeline_delay_tti`.
//!
//! The board is shared (an [`Arc`]) by every channel of the network and written by the
//! network after each cell's TTI; relaxed atomics make it `Sync` at the cost of plain loads
//! and stores.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// TTIs of history kept per cell: more than the longest CQI delay + period + pipeline the
/// link configuration allows (1000 + 1000 + 1000 TTIs).
pub const BOARD_TTIS: usize = 4096;

/// The PRBs each cell has on air, per TTI, for the last [`BOARD_TTIS`] TTIs.
#[derive(Debug)]
pub struct LoadBoard {
    n_cells: usize,
    n_prb: u32,
    /// Entry (cell, TTI mod BOARD_TTIS): TTI << 16 | PRBs; an entry for another TTI means
    /// the cell sent nothing in the TTI asked about (idle TTIs are skipped, never written).
    slots: Box<[AtomicU64]>,
}

impl LoadBoard {
    /// A board for `n_cells` cells of `n_prb` PRBs each, every cell idle.
    pub fn new(n_cells: usize, n_prb: u32) -> Arc<Self> {
        let slots = (0..n_cells * BOARD_TTIS).map(|_| AtomicU64::new(u64::MAX)).collect();
        Arc::new(Self { n_cells, n_prb, slots })
    }

    /// Number of cells.
    pub fn n_cells(&self) -> usize {
        self.n_cells
    }

    /// Records that cell `cell` has `prbs` PRBs on air in TTI `tti`.
    #[inline]
    pub fn set(&self, cell: usize, tti: u64, prbs: u32) {
        let i = cell * BOARD_TTIS + (tti as usize & (BOARD_TTIS - 1));
        self.slots[i].store((tti << 16) | u64::from(prbs.min(0xffff)), Ordering::Relaxed);
    }

    /// PRBs cell `cell` has on air in TTI `tti` (0 when nothing was recorded for it).
    #[inline]
    pub fn prbs(&self, cell: usize, tti: u64) -> u32 {
        let v = self.slots[cell * BOARD_TTIS + (tti as usize & (BOARD_TTIS - 1))].load(Ordering::Relaxed);
        if v >> 16 == tti && v != u64::MAX {
            (v & 0xffff) as u32
        } else {
            0
        }
    }

    /// Fraction of cell `cell`'s PRBs on air in TTI `tti`.
    #[inline]
    pub fn load(&self, cell: usize, tti: u64) -> f64 {
        f64::from(self.prbs(cell, tti)) / f64::from(self.n_prb)
    }
}

/// A UE's link budget towards its serving cell in a network of cells: the wanted signal
/// and each other cell's interference, per PRB, in mW.
#[derive(Clone, Debug)]
pub struct LinkBudget {
    /// Mean received power per PRB from the serving cell (path loss and antenna gain), mW.
    pub signal_mw: f64,
    /// Thermal noise per PRB, mW.
    pub noise_mw: f64,
    /// Mean received power per PRB from each cell of the network (the serving cell's entry
    /// is 0), mW.
    pub interferers_mw: Vec<f64>,
    /// Every cell's PRBs on air.
    pub board: Arc<LoadBoard>,
}

impl LinkBudget {
    /// Linear SINR without shadowing and fading in TTI `tti`: S / (N + Σ_j I_j·u_j(tti − 1)).
    #[inline]
    pub fn base_sinr(&self, tti: u64) -> f64 {
        let prev = tti.wrapping_sub(1);
        let mut i = 0.0;
        for (j, &p) in self.interferers_mw.iter().enumerate() {
            if p > 0.0 {
                i += p * self.board.load(j, prev);
            }
        }
        self.signal_mw / (self.noise_mw + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_answers_per_tti_and_forgets_what_it_never_saw() {
        let b = LoadBoard::new(3, 50);
        assert_eq!(b.prbs(1, 10), 0);
        b.set(1, 10, 25);
        assert_eq!((b.prbs(1, 10), b.load(1, 10)), (25, 0.5));
        assert_eq!(b.prbs(1, 11), 0, "an idle TTI reads as idle");
        assert_eq!(b.prbs(0, 10), 0);
        // An entry from one ring turn earlier is not mistaken for this TTI's.
        assert_eq!(b.prbs(1, 10 + BOARD_TTIS as u64), 0);
        b.set(1, 10 + BOARD_TTIS as u64, 50);
        assert_eq!(b.prbs(1, 10), 0);
    }

    #[test]
    fn an_idle_neighbour_adds_no_interference_and_a_loaded_one_does() {
        let board = LoadBoard::new(2, 50);
        let budget = LinkBudget { signal_mw: 1e-9, noise_mw: 1e-12, interferers_mw: vec![0.0, 1e-10], board: board.clone() };
        let alone = 1e-9 / 1e-12;
        assert_eq!(budget.base_sinr(100), alone);
        board.set(1, 99, 50);
        assert!((budget.base_sinr(100) - 1e-9 / (1e-12 + 1e-10)).abs() < 1e-6);
        // Half the neighbour's PRBs: half its interference, one TTI later.
        board.set(1, 100, 25);
        assert!((budget.base_sinr(101) - 1e-9 / (1e-12 + 0.5e-10)).abs() < 1e-6);
        assert_eq!(budget.base_sinr(102), alone);
    }
}
