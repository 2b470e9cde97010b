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
//!
//! **Epochs.** Once every cell has written a row the network seals it
//! ([`LoadBoard::seal`]): the row gets the epoch of the last sealed row if every cell's load
//! is bit for bit the same, a new epoch otherwise. Saturated cells use all their PRBs TTI after
//! TTI, so most rows repeat the last one; a UE's [`LinkBudget`] keeps the base SINR of the
//! last epoch it computed and answers a row of that epoch without summing its interferers
//! again (the same inputs, so the same bits).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// TTIs of history kept: more than the longest CQI delay + period + pipeline the link
/// configuration allows (1000 + 1000 + 1000 TTIs).
pub const BOARD_TTIS: usize = 4096;

/// The share of its PRBs each cell has on air, per TTI, for the last [`BOARD_TTIS`] TTIs: one
/// row per TTI (every cell's load side by side, so a UE's sum over its interferers reads one
/// row), tagged with its TTI. A row is opened (zeroed and tagged) when the network runs the
/// TTI whose blocks go on air in it; a row tagged with another TTI reads as all cells idle
/// (the network skipped that TTI: nobody had anything to send).
#[derive(Debug)]
pub struct LoadBoard {
    n_cells: usize,
    n_prb: u32,
    tags: Box<[AtomicU64]>,
    /// f32 bits of each cell's load, row-major.
    loads: Box<[AtomicU32]>,
    /// Per row: the epoch of its loads once sealed, [`UNSEALED`] while it may still change.
    epochs: Box<[AtomicU64]>,
    /// The loads of the last sealed row, and its epoch ([`UNSEALED`]: none yet).
    last: Box<[AtomicU32]>,
    last_epoch: AtomicU64,
}

/// The epoch of a row not sealed yet (or written to since).
pub const UNSEALED: u64 = u64::MAX;

impl LoadBoard {
    /// A board for `n_cells` cells of `n_prb` PRBs each, every cell idle.
    pub fn new(n_cells: usize, n_prb: u32) -> Arc<Self> {
        Arc::new(Self {
            n_cells,
            n_prb,
            tags: (0..BOARD_TTIS).map(|_| AtomicU64::new(u64::MAX)).collect(),
            loads: (0..n_cells * BOARD_TTIS).map(|_| AtomicU32::new(0)).collect(),
            epochs: (0..BOARD_TTIS).map(|_| AtomicU64::new(UNSEALED)).collect(),
            last: (0..n_cells).map(|_| AtomicU32::new(0)).collect(),
            last_epoch: AtomicU64::new(UNSEALED),
        })
    }

    /// Number of cells.
    pub fn n_cells(&self) -> usize {
        self.n_cells
    }

    /// Starts TTI `tti`'s row: every cell idle until [`set`](Self::set).
    #[inline]
    pub fn open(&self, tti: u64) {
        let r = tti as usize & (BOARD_TTIS - 1);
        if self.tags[r].load(Ordering::Relaxed) != tti {
            for l in &self.loads[r * self.n_cells..(r + 1) * self.n_cells] {
                l.store(0, Ordering::Relaxed);
            }
            self.tags[r].store(tti, Ordering::Relaxed);
            self.epochs[r].store(UNSEALED, Ordering::Relaxed);
        }
    }

    /// Seals TTI `tti`'s row once every cell has written it (see "Epochs" in the module
    /// documentation). A row not opened is left alone (it reads as every cell idle); writing
    /// to a sealed row unseals it.
    #[inline]
    pub fn seal(&self, tti: u64) {
        let r = tti as usize & (BOARD_TTIS - 1);
        if self.tags[r].load(Ordering::Relaxed) != tti {
            return;
        }
        let row = &self.loads[r * self.n_cells..(r + 1) * self.n_cells];
        let last_epoch = self.last_epoch.load(Ordering::Relaxed);
        let same = last_epoch != UNSEALED
            && row.iter().zip(self.last.iter()).all(|(a, b)| a.load(Ordering::Relaxed) == b.load(Ordering::Relaxed));
        let epoch = if same {
            last_epoch
        } else {
            for (a, b) in row.iter().zip(self.last.iter()) {
                b.store(a.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            // UNSEALED + 1 wraps to epoch 0 for the first sealed row.
            let e = last_epoch.wrapping_add(1);
            self.last_epoch.store(e, Ordering::Relaxed);
            e
        };
        self.epochs[r].store(epoch, Ordering::Relaxed);
    }

    /// Records that cell `cell` has `prbs` PRBs on air in TTI `tti` (opening its row if
    /// needed).
    #[inline]
    pub fn set(&self, cell: usize, tti: u64, prbs: u32) {
        self.open(tti);
        let r = tti as usize & (BOARD_TTIS - 1);
        let load = prbs as f32 / self.n_prb as f32;
        self.loads[r * self.n_cells + cell].store(load.to_bits(), Ordering::Relaxed);
        self.epochs[r].store(UNSEALED, Ordering::Relaxed);
    }

    /// Every cell's load in TTI `tti` (`None`: every cell idle).
    #[inline]
    pub fn row(&self, tti: u64) -> Option<&[AtomicU32]> {
        let r = tti as usize & (BOARD_TTIS - 1);
        (self.tags[r].load(Ordering::Relaxed) == tti).then(|| &self.loads[r * self.n_cells..(r + 1) * self.n_cells])
    }

    /// Every cell's load in TTI `tti` and the row's epoch ([`UNSEALED`] if not sealed);
    /// `None`: every cell idle.
    #[inline]
    pub fn row_and_epoch(&self, tti: u64) -> Option<(&[AtomicU32], u64)> {
        let r = tti as usize & (BOARD_TTIS - 1);
        (self.tags[r].load(Ordering::Relaxed) == tti)
            .then(|| (&self.loads[r * self.n_cells..(r + 1) * self.n_cells], self.epochs[r].load(Ordering::Relaxed)))
    }

    /// The epoch of TTI `tti`'s row ([`UNSEALED`] if not sealed); `None`: every cell idle.
    #[inline]
    pub fn epoch(&self, tti: u64) -> Option<u64> {
        let r = tti as usize & (BOARD_TTIS - 1);
        (self.tags[r].load(Ordering::Relaxed) == tti).then(|| self.epochs[r].load(Ordering::Relaxed))
    }

    /// PRBs cell `cell` has on air in TTI `tti` (0 when nothing was recorded for it).
    pub fn prbs(&self, cell: usize, tti: u64) -> u32 {
        (self.load(cell, tti) * f64::from(self.n_prb)).round() as u32
    }

    /// Fraction of cell `cell`'s PRBs on air in TTI `tti`.
    #[inline]
    pub fn load(&self, cell: usize, tti: u64) -> f64 {
        self.row(tti).map_or(0.0, |row| f64::from(f32::from_bits(row[cell].load(Ordering::Relaxed))))
    }
}

/// A UE's link budget towards its serving cell in a network of cells: the wanted signal
/// and the other cells' interference, per PRB, in mW.
#[derive(Clone, Debug)]
pub struct LinkBudget {
    /// Mean received power per PRB from the serving cell (path loss and antenna gain), mW.
    pub signal_mw: f64,
    /// Thermal noise per PRB, mW.
    pub noise_mw: f64,
    /// Mean received power per PRB from each other cell that interferes, (cell, mW).
    pub interferers_mw: Vec<(u32, f64)>,
    /// Every cell's PRBs on air.
    pub board: Arc<LoadBoard>,
    /// The board epoch of `cached_sinr` ([`UNSEALED`]: nothing cached).
    cached_epoch: u64,
    /// The base SINR computed for a row of epoch `cached_epoch`.
    cached_sinr: f64,
}

impl LinkBudget {
    /// A budget: serving cell's power `signal_mw`, the receiver's `noise_mw` and each
    /// interfering cell's power `interferers_mw`, per PRB, weighted by the loads of `board`.
    pub fn new(signal_mw: f64, noise_mw: f64, interferers_mw: Vec<(u32, f64)>, board: Arc<LoadBoard>) -> Self {
        Self { signal_mw, noise_mw, interferers_mw, board, cached_epoch: UNSEALED, cached_sinr: 0.0 }
    }

    /// Takes `other`'s powers (reusing this budget's allocation) and forgets the cached SINR.
    pub fn assign(&mut self, other: &LinkBudget) {
        self.signal_mw = other.signal_mw;
        self.noise_mw = other.noise_mw;
        self.interferers_mw.clear();
        self.interferers_mw.extend_from_slice(&other.interferers_mw);
        self.board = Arc::clone(&other.board);
        self.cached_epoch = UNSEALED;
    }

    /// Linear SINR without shadowing and fading in TTI `tti`: S / (N + Σ_j I_j·u_j(tti − 1)).
    /// A sealed row of the epoch computed last is answered from the cache.
    #[inline]
    pub fn base_sinr(&mut self, tti: u64) -> f64 {
        match self.board.epoch(tti.wrapping_sub(1)) {
            None => return self.signal_mw / self.noise_mw,
            Some(e) if e != UNSEALED && e == self.cached_epoch => return self.cached_sinr,
            Some(_) => {}
        }
        let (row, epoch) = self.board.row_and_epoch(tti.wrapping_sub(1)).expect("the row is tagged");
        let mut i = self.noise_mw;
        for &(j, p) in &self.interferers_mw {
            i += p * f64::from(f32::from_bits(row[j as usize].load(Ordering::Relaxed)));
        }
        let sinr = self.signal_mw / i;
        if epoch != UNSEALED {
            (self.cached_epoch, self.cached_sinr) = (epoch, sinr);
        }
        sinr
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
        // Opening a row again in the same TTI keeps what was set.
        b.open(10);
        assert_eq!(b.prbs(1, 10), 25);
        // An entry from one ring turn earlier is not mistaken for this TTI's.
        assert_eq!(b.prbs(1, 10 + BOARD_TTIS as u64), 0);
        b.set(1, 10 + BOARD_TTIS as u64, 50);
        assert_eq!(b.prbs(1, 10), 0);
    }

    #[test]
    fn an_idle_neighbour_adds_no_interference_and_a_loaded_one_does() {
        let board = LoadBoard::new(2, 50);
        let mut budget = LinkBudget::new(1e-9, 1e-12, vec![(1, 1e-10)], board.clone());
        let alone = 1e-9 / 1e-12;
        assert_eq!(budget.base_sinr(100), alone);
        board.set(1, 99, 50);
        assert!((budget.base_sinr(100) - 1e-9 / (1e-12 + 1e-10)).abs() < 1e-6);
        // Half the neighbour's PRBs: half its interference, one TTI later.
        board.set(1, 100, 25);
        assert!((budget.base_sinr(101) - 1e-9 / (1e-12 + 0.5e-10)).abs() < 1e-6);
        assert_eq!(budget.base_sinr(102), alone);
    }

    #[test]
    fn sealed_rows_share_an_epoch_only_when_every_load_is_the_same() {
        let board = LoadBoard::new(3, 50);
        let epoch = |t: u64| board.row_and_epoch(t).map(|(_, e)| e);
        board.set(0, 10, 50);
        board.set(2, 10, 25);
        assert_eq!(epoch(10), Some(UNSEALED), "written, not sealed");
        board.seal(10);
        let e10 = epoch(10).unwrap();
        assert_ne!(e10, UNSEALED);
        // The same loads in the next rows: the same epoch, also across a skipped (idle) row.
        board.set(0, 11, 50);
        board.set(2, 11, 25);
        board.seal(11);
        board.set(0, 13, 50);
        board.set(2, 13, 25);
        board.seal(13);
        assert_eq!((epoch(11), epoch(12), epoch(13)), (Some(e10), None, Some(e10)));
        // One cell differs by one PRB: a new epoch; going back to the old loads: another one.
        board.set(0, 14, 49);
        board.set(2, 14, 25);
        board.seal(14);
        let e14 = epoch(14).unwrap();
        assert_ne!(e14, e10);
        board.set(0, 15, 50);
        board.set(2, 15, 25);
        board.seal(15);
        assert!(epoch(15).unwrap() != e14 && epoch(15).unwrap() != e10);
        // Writing to a sealed row unseals it.
        board.set(1, 15, 50);
        assert_eq!(epoch(15), Some(UNSEALED));
        // Sealing a row nobody opened changes nothing.
        board.seal(20);
        assert_eq!(epoch(20), None);
    }

    #[test]
    fn the_cached_base_sinr_is_the_computed_one() {
        let board = LoadBoard::new(3, 50);
        let mut cached = LinkBudget::new(1e-9, 1e-12, vec![(1, 1e-10), (2, 3e-11)], board.clone());
        let fresh = |t: u64| LinkBudget::new(1e-9, 1e-12, vec![(1, 1e-10), (2, 3e-11)], board.clone()).base_sinr(t);
        for t in 0..200u64 {
            // Loads that repeat for a while, change, and sometimes stay unsealed.
            let prbs = [50, 50, (t / 7 % 3) as u32 * 20, 50];
            for c in 0..3 {
                board.set(c, t, prbs[c + (t % 2) as usize]);
            }
            if t % 11 != 0 {
                board.seal(t);
            }
            let want = fresh(t + 1);
            assert_eq!(cached.base_sinr(t + 1).to_bits(), want.to_bits(), "tti {}", t + 1);
        }
    }
}
