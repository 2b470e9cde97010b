//! Proportional Rate Reduction (RFC 6937 \[prr\] §3, PRR-SSRB, as Linux's
//! `tcp_cwnd_reduction`): how much a SACK sender may send on each ACK of a fast recovery.
//!
//! While `pipe` is above the target window (the controller's `cwnd` after its reduction:
//! ssthresh for loss-based controllers), the sender sends in proportion to what is
//! delivered, `CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out`, so the window comes
//! down to the target over one round trip instead of in a pause; once `pipe` is below it,
//! the slow-start reduction bound lets it grow back by at most one MSS more than was
//! delivered. The quota of the last ACK is what [`TcpSender::cwnd`](super::TcpSender::cwnd)
//! adds to `pipe` during recovery (as Linux sets `snd_cwnd = in_flight + sndcnt`), and each
//! byte sent in recovery (new or retransmitted) takes from it.

/// PRR's state for one recovery episode.
#[derive(Clone, Debug, Default)]
pub(super) struct Prr {
    /// Bytes delivered (cumulatively ACKed or SACKed) since recovery started.
    delivered: u64,
    /// Bytes sent since recovery started.
    out: u64,
    /// RecoverFS: the outstanding bytes when recovery started (at least 1).
    recover_fs: u64,
    /// What the last ACK allowed to send (`sndcnt`) that has not been sent yet.
    quota: u64,
}

impl Prr {
    /// RFC 6937 §3 "on entering recovery": RecoverFS = snd.nxt − snd.una (`outstanding`).
    pub fn start(&mut self, outstanding: u64) {
        self.delivered = 0;
        self.out = 0;
        self.quota = 0;
        self.recover_fs = outstanding.max(1);
    }

    /// RFC 6937 §3 "on every ACK during recovery" (PRR-SSRB): the quota `sndcnt` an ACK that
    /// delivered `delivered` bytes releases, with `pipe` after the ACK and the `target`
    /// window (the controller's `cwnd`: ssthresh for loss-based controllers, which set it
    /// in `on_congestion_event`).
    pub fn on_ack(&mut self, delivered: u64, target: u64, pipe: u64, mss: u32) {
        self.delivered += delivered;
        self.quota = if pipe > target {
            // Proportional part: sndcnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let fs = self.recover_fs as u128;
            let allowed = (self.delivered as u128 * target as u128).div_ceil(fs);
            (allowed.min(u64::MAX as u128) as u64).saturating_sub(self.out)
        } else {
            // Slow-start reduction bound: grow back towards the target, at most one MSS
            // beyond what was delivered.
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + mss as u64;
            (target - pipe).min(limit)
        };
    }

    /// `len` bytes went out during recovery: `prr_out` counts every byte sent.
    #[inline]
    pub fn on_sent(&mut self, len: u64) {
        self.out += len;
        self.quota = self.quota.saturating_sub(len);
    }

    /// What may still be sent on the last ACK's account.
    #[inline]
    pub fn quota(&self) -> u64 {
        self.quota
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    #[test]
    fn proportional_part_sends_the_targets_share_of_what_was_delivered() {
        // RecoverFS 20 segments, target 10 (a halving): one segment out per two delivered.
        let mut p = Prr::default();
        p.start(20_000);
        p.on_ack(1000, 10_000, 19_000, MSS);
        assert_eq!(p.quota(), 500);
        p.on_ack(1000, 10_000, 18_000, MSS);
        assert_eq!(p.quota(), 1000);
        p.on_sent(1000);
        assert_eq!(p.quota(), 0);
        // CEIL(3000 · 10000 / 20000) − 1000 = 500.
        p.on_ack(1000, 10_000, 17_000, MSS);
        assert_eq!(p.quota(), 500);
    }

    #[test]
    fn below_the_target_it_grows_back_by_at_most_one_mss_beyond_the_delivered() {
        let mut p = Prr::default();
        p.start(20_000);
        // pipe 4000 below the target 10000: delivered 3000, nothing sent → 3000 + MSS.
        p.on_ack(3000, 10_000, 4000, MSS);
        assert_eq!(p.quota(), 4000);
        // Close to the target: the gap bounds it.
        p.on_ack(0, 10_000, 9500, MSS);
        assert_eq!(p.quota(), 500);
    }

    #[test]
    fn start_resets_the_episode_and_recover_fs_is_at_least_one() {
        let mut p = Prr::default();
        p.start(10_000);
        p.on_ack(5000, 5000, 8000, MSS);
        p.on_sent(700);
        p.start(0);
        // RecoverFS 1: the proportional part allows delivered · target.
        p.on_ack(1, 3, 10, MSS);
        assert_eq!(p.quota(), 3);
    }
}
