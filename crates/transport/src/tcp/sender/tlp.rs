//! Tail loss probes (RFC 8985 §7), as Linux's `tcp_schedule_loss_probe`,
//! `tcp_send_loss_probe` and `tcp_process_tlp_ack`.
//!
//! RACK needs a delivery *after* a lost segment; when the tail of a flight is lost no ACK
//! comes and only the RTO would repair it. Instead, while nothing is SACKed, lost or
//! retransmitted (Linux's `TCP_CA_Open`), the sender arms a probe timeout
//!
//! `PTO = 2·SRTT + (one segment outstanding ? min RTO (delayed ACK) : 2 ms)`, at most the
//! time left to the RTO (1 s before the first RTT sample),
//!
//! re-armed after every transmission of new data and every ACK that acknowledges data
//! (§7.2). When it fires, one probe goes out whatever cwnd says: a new segment if the
//! application and the receive window allow, else the highest segment again (§7.3); the RTO
//! restarts. At most one probe is outstanding (`tlp_high_seq`, §7.4): once the cumulative
//! ACK passes the sequence sent when the probe went, a probe that retransmitted data and
//! was not D-SACKed repaired a loss, and the controller reduces its window as after a
//! fast recovery (§7.4.2, Linux: CWR). The probe's ACK (a SACK, or a D-SACK) lets RACK
//! find any other loss of the tail.

use cellshare_core::{Nanos, MS, SEC};

use crate::cc::LossEvent;

use super::TcpSender;

/// Linux `TCP_TIMEOUT_MIN_US`: added to 2·SRTT when more than one segment is outstanding.
const PTO_SLACK: Nanos = 2 * MS;
/// RFC 8985 §7.2: PTO before the first RTT sample (Linux `TCP_TIMEOUT_INIT`).
const PTO_NO_RTT: Nanos = SEC;

/// Probe state (RFC 8985 §7.1).
#[derive(Clone, Debug, Default)]
pub(super) struct Tlp {
    /// When the probe timer fires.
    pub deadline: Option<Nanos>,
    /// The timer fired: the next `poll_transmit` sends the probe.
    pub pending: bool,
    /// TLP.end_seq (Linux `tlp_high_seq`): `snd_max` when the outstanding probe was sent.
    pub high_seq: Option<u64>,
    /// The outstanding probe retransmitted data (Linux `tlp_retrans`).
    pub retrans: bool,
    /// When the timer was last armed.
    pub armed_at: Option<Nanos>,
}

impl TcpSender {
    /// Whether a probe may be scheduled: SACK on, data outstanding, and nothing SACKed,
    /// lost or retransmitted (Linux: `TCP_CA_Open`; `Disorder`, `Recovery` and `Loss` have
    /// other means).
    pub(super) fn tlp_allowed(&self) -> bool {
        self.tlp_enabled
            && self.sack_enabled
            && self.snd_una < self.snd_max
            && !self.in_recovery
            && !self.in_loss
            && self.board.sacked_bytes == 0
            && self.board.lost_bytes == 0
            && self.board.retx_bytes == 0
            && !self.segments.front().is_some_and(|s| s.retransmitted)
    }

    /// RFC 8985 §7.2 (Linux `tcp_schedule_loss_probe`). `rto_restarted`: the RTO was just
    /// restarted (an ACK of new data), so the full RTO bounds the PTO; otherwise the time
    /// left to the RTO deadline does.
    pub(super) fn schedule_tlp(&mut self, now: Nanos, rto_restarted: bool) {
        if !self.tlp_allowed() {
            self.tlp.deadline = None;
            return;
        }
        let srtt = self.rtt.srtt();
        let mut pto = if self.rtt.samples() == 0 {
            PTO_NO_RTT
        } else if self.segments.len() == 1 {
            // A lone segment may wait for the peer's delayed-ACK timer.
            2 * srtt + self.min_rto
        } else {
            2 * srtt + PTO_SLACK
        };
        let rto_left = if rto_restarted {
            Some(self.rtt.rto())
        } else {
            self.rto_deadline.map(|d| d.saturating_sub(now))
        };
        if let Some(left) = rto_left.filter(|&l| l > 0) {
            pto = pto.min(left);
        }
        // Both timers go through the wheel; the probe still never comes after a pending RTO
        // (Linux has one timer, set to the probe's time). With exact timers the bound above
        // already ensures it.
        let at = self.timer_at(now, pto);
        self.tlp.deadline = Some(
            self.rto_deadline
                .filter(|&rto| rto > now)
                .map_or(at, |rto| at.min(rto)),
        );
        self.tlp.armed_at = Some(now);
    }

    /// The probe timer fired (Linux `tcp_send_loss_probe`, first half): the probe goes at
    /// the next [`TcpSender::poll_transmit`], unless one is still outstanding (§7.3: at most
    /// one per tail), in which case the RTO stays in charge.
    pub(super) fn on_tlp_timeout(&mut self, _now: Nanos) {
        self.tlp.deadline = None;
        if self.snd_una == self.snd_max || self.tlp.high_seq.is_some() {
            return;
        }
        self.tlp.pending = true;
    }

    /// The probe was sent (`retransmitted`: it resent the highest segment): remember
    /// TLP.end_seq, restart the RTO (§7.3).
    pub(super) fn tlp_sent(&mut self, now: Nanos, retransmitted: bool) {
        self.tlp.pending = false;
        self.tlp.high_seq = Some(self.snd_max);
        self.tlp.retrans = retransmitted;
        self.stats.loss_probes += 1;
        self.restart_rto(now);
    }

    /// RFC 8985 §7.4 (Linux `tcp_process_tlp_ack`): did the outstanding probe repair a loss?
    /// `dsack_tlp`: this ACK D-SACKs the probe (original and probe both arrived);
    /// `progress`: the ACK acknowledged data, SACKed data or changed the window (a pure
    /// duplicate ACK otherwise).
    pub(super) fn process_tlp_ack(
        &mut self,
        now: Nanos,
        ack: u64,
        dsack_tlp: bool,
        progress: bool,
        prior_pipe: u64,
    ) {
        let Some(end) = self.tlp.high_seq else { return };
        if ack < end {
            return;
        }
        if !self.tlp.retrans || dsack_tlp {
            // A probe of new data, or the original arrived too: no loss.
            self.tlp.high_seq = None;
        } else if ack > end {
            // The probe's retransmission filled the hole: a loss, repaired; reduce the window
            // once (Linux enters CWR and ends it at once: cwnd = ssthresh).
            self.tlp.high_seq = None;
            self.cc.on_congestion_event(&LossEvent {
                now,
                bytes_in_flight: prior_pipe,
                mss: self.mss,
            });
            self.cc.on_recovery_end(now);
            self.undo.marker = None;
            self.stats.loss_probe_recoveries += 1;
        } else if !progress {
            // A pure duplicate ACK: both the original and the probe arrived.
            self.tlp.high_seq = None;
        }
    }
}
