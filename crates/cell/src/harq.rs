//! A UE's downlink HARQ entity: stop-and-wait processes holding the transport blocks that
//! await a retransmission (TS 36.321 § 5.3.2; FDD timing of TS 36.213 § 7).
//!
//! Each process carries one transport block at a time. A block sent in TTI t keeps its
//! process until t + RTT (the HARQ round trip, 8 TTIs in FDD: feedback 4 TTIs after the
//! block, a retransmission 4 TTIs after the feedback): an acknowledged block frees the
//! process then; a negatively acknowledged one is retransmitted then, on the same number of
//! PRBs with the same MCS (non-adaptive retransmission), and keeps the process. After
//! `max_retransmissions` retransmissions a block that still fails is given up, and the RLC
//! above (unacknowledged mode) never sees its data.
//!
//! The receiver combines the copies it holds (chase combining): what it has gathered is the
//! sum of the mutual information per coded bit of each copy, judged by
//! [`cellshare_channel::error_model::tb_bler`] with the number of copies.

/// A transport block in a HARQ process, waiting for its next (re)transmission.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransportBlock {
    /// The UE's sequence number of the block (its RLC PDU).
    pub seq: u64,
    /// I_MCS of every transmission of the block.
    pub mcs: u8,
    /// Spatial layers.
    pub layers: u8,
    /// PRBs of every transmission.
    pub n_prb: u32,
    /// Transport block size, bits.
    pub tbs_bits: u32,
    /// Transmissions so far.
    pub transmissions: u32,
    /// Σ over the transmissions so far of each copy's quality: its MIB on LTE (chase
    /// combining), its linear SINR on NR (whose error model takes the copies' mean SINR and
    /// their number: incremental redundancy).
    pub mib_sum: f64,
}

/// One stop-and-wait process.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Process {
    /// TTI from which the process can take a new block (its last block's feedback is in).
    free_at: u64,
    /// The block awaiting a retransmission, if the last transmission failed.
    pending: Option<TransportBlock>,
}

/// A UE's HARQ processes.
#[derive(Clone, Debug)]
pub struct HarqEntity {
    processes: Vec<Process>,
    /// TTIs from a transmission to its retransmission (and to the process being free).
    rtt: u64,
    /// Retransmissions allowed per block.
    max_retransmissions: u32,
    /// The earliest TTI at which some process is free for a new block (`u64::MAX`: none
    /// until a retransmission succeeds or is given up).
    next_free: u64,
}

/// What became of one transmission of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Decoded: the block reaches the UE's RLC.
    Decoded,
    /// Failed; the block will be retransmitted at the returned TTI from the same process.
    Retransmit {
        /// TTI of the retransmission.
        due: u64,
    },
    /// Failed for good (its last try, or no feedback at all): lost to the RLC.
    Lost,
}

impl HarqEntity {
    /// `processes` processes, a HARQ round trip of `rtt` TTIs, at most `max_retransmissions`
    /// retransmissions per block.
    ///
    /// # Panics
    /// If `processes` or `rtt` is 0.
    pub fn new(processes: u32, rtt: u32, max_retransmissions: u32) -> Self {
        assert!(processes > 0 && rtt > 0, "HARQ needs at least one process and a round trip of one TTI");
        Self { processes: vec![Process::default(); processes as usize], rtt: rtt as u64, max_retransmissions, next_free: 0 }
    }

    /// Whether some process is free for a new block in TTI `tti`.
    #[inline]
    pub fn has_free(&self, tti: u64) -> bool {
        self.next_free <= tti
    }

    /// The first TTI in which some process is free for a new block (`u64::MAX`: none until
    /// a pending retransmission is resolved).
    #[inline]
    pub fn next_free(&self) -> u64 {
        self.next_free
    }

    /// A process free for a new block in TTI `tti`, if any (the lowest-numbered).
    #[inline]
    pub fn free_process(&self, tti: u64) -> Option<usize> {
        if !self.has_free(tti) {
            return None;
        }
        self.processes.iter().position(|p| p.pending.is_none() && p.free_at <= tti)
    }

    /// The block process `process` holds for retransmission.
    pub fn pending(&self, process: usize) -> Option<&TransportBlock> {
        self.processes[process].pending.as_ref()
    }

    /// Records a transmission of `tb` (its `transmissions` and `mib_sum` already counting
    /// this one) from `process` in TTI `tti`: `decoded` if the UE decoded it, `feedback` if
    /// the UE knew a block was sent (it read the control information; otherwise it sends no
    /// feedback and the eNB gives the block up).
    pub fn transmitted(&mut self, process: usize, tti: u64, tb: TransportBlock, decoded: bool, feedback: bool) -> Outcome {
        let due = tti + self.rtt;
        let p = &mut self.processes[process];
        p.free_at = due;
        p.pending = None;
        let outcome = if decoded {
            Outcome::Decoded
        } else if feedback && tb.transmissions <= self.max_retransmissions {
            p.pending = Some(tb);
            Outcome::Retransmit { due }
        } else {
            Outcome::Lost
        };
        self.next_free = self.processes.iter().filter(|p| p.pending.is_none()).map(|p| p.free_at).min().unwrap_or(u64::MAX);
        outcome
    }

    /// Whether every process is idle (no block awaiting retransmission).
    pub fn idle(&self) -> bool {
        self.processes.iter().all(|p| p.pending.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tb(seq: u64, transmissions: u32) -> TransportBlock {
        TransportBlock { seq, mcs: 10, layers: 1, n_prb: 50, tbs_bits: 10_000, transmissions, mib_sum: 0.5 }
    }

    #[test]
    fn eight_processes_carry_one_block_per_tti() {
        let mut h = HarqEntity::new(8, 8, 3);
        // Every TTI finds a free process when every block is decoded.
        for t in 0..100u64 {
            let p = h.free_process(t).expect("a free process");
            assert_eq!(h.transmitted(p, t, tb(t, 1), true, true), Outcome::Decoded);
        }
        // With four processes, a UE gets at most four blocks per round trip.
        let mut h = HarqEntity::new(4, 8, 3);
        let sent = (0..80u64).filter(|&t| h.free_process(t).map(|p| h.transmitted(p, t, tb(t, 1), true, true)).is_some()).count();
        assert_eq!(sent, 40);
    }

    #[test]
    fn failed_blocks_are_retransmitted_one_round_trip_later_up_to_the_limit() {
        let mut h = HarqEntity::new(8, 8, 3);
        let p = h.free_process(0).unwrap();
        assert_eq!(h.transmitted(p, 0, tb(0, 1), false, true), Outcome::Retransmit { due: 8 });
        assert_eq!(h.pending(p).unwrap().seq, 0);
        // The process is held: the next free one is another.
        assert_ne!(h.free_process(1), Some(p));
        assert!(!h.idle());
        assert_eq!(h.transmitted(p, 8, tb(0, 2), false, true), Outcome::Retransmit { due: 16 });
        assert_eq!(h.transmitted(p, 16, tb(0, 3), false, true), Outcome::Retransmit { due: 24 });
        // The fourth transmission is the third retransmission, the last.
        assert_eq!(h.transmitted(p, 24, tb(0, 4), false, true), Outcome::Lost);
        assert!(h.idle());
        assert_ne!(h.free_process(31), Some(p), "busy until its last feedback");
        assert_eq!(h.free_process(32), Some(p));
        // No feedback (the control information was missed): lost at once.
        let q = h.free_process(40).unwrap();
        assert_eq!(h.transmitted(q, 40, tb(1, 1), false, false), Outcome::Lost);
        // No retransmission allowed.
        let mut none = HarqEntity::new(8, 8, 0);
        assert_eq!(none.transmitted(0, 0, tb(0, 1), false, true), Outcome::Lost);
    }
}
