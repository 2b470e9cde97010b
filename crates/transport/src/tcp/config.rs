//! TCP endpoint configuration ([`TcpConfig`], [`RwndConfig`]).

use cellshare_core::{Nanos, MS};

use crate::tcp::RtoEstimator;

/// Default receive-buffer maximum (bytes): Linux `net.ipv4.tcp_rmem[2]` = 6 MiB.
pub const DEFAULT_RMEM_MAX: u32 = 6_291_456;
/// Default initial receive buffer (bytes): Linux `net.ipv4.tcp_rmem[1]` = 128 KiB (since 4.20).
pub const DEFAULT_RMEM_INITIAL: u32 = 131_072;

/// Configuration shared by a [`crate::tcp::TcpSender`] and its [`crate::tcp::TcpReceiver`].
///
/// Defaults follow Linux and the RFCs cited on each field.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Maximum segment size: payload bytes per full-sized segment. Default 1448 (1500-byte
    /// MTU minus 52 bytes of IP + TCP + timestamp option headers).
    pub mss: u32,
    /// Initial congestion window in segments, used by whoever builds the congestion
    /// controller (see [`TcpConfig::initial_window_bytes`]). Default 10 (RFC 6928).
    pub initial_window: u32,
    /// Lower bound on the retransmission timeout, milliseconds. Default 200 (Linux
    /// `TCP_RTO_MIN`; RFC 6298 suggests 1000). With the Linux estimator it bounds the
    /// variation term, so the RTO is at least SRTT plus this.
    pub min_rto_ms: u64,
    /// How the RTO follows the RTT samples: `"linux"` (default; Linux's `tcp_rtt_estimator`,
    /// RTO = SRTT + max(4·mdev, `min_rto_ms`) with its own sample choice) or `"rfc6298"`
    /// (RFC 6298 §2 with `min_rto_ms` as the floor). See [`crate::tcp::RtoEstimator`].
    pub rto_estimator: RtoEstimator,
    /// Retransmission timeout before the first RTT sample, milliseconds. Default 1000
    /// (RFC 6298 §2.1).
    pub initial_rto_ms: u64,
    /// Upper bound on the (backed-off) retransmission timeout, milliseconds. Default 120000
    /// (Linux `TCP_RTO_MAX`; RFC 6298 §2.5 requires at least 60 s).
    pub max_rto_ms: u64,
    /// Whether the receiver delays ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2). Default true.
    pub delayed_ack: bool,
    /// Delayed-ACK timer, milliseconds. Default 40 (Linux `TCP_DELACK_MIN`; RFC 5681 allows
    /// up to 500).
    pub delayed_ack_timeout_ms: u64,
    /// The receiver ACKs as soon as more than `delayed_ack_segments − 1` full-sized segments
    /// are unacknowledged. Default 2 ("ACK every second full-sized segment", RFC 5681 §4.2).
    pub delayed_ack_segments: u32,
    /// Whether the receiver has Linux's quick-ACK mode (`tcp_incr_quickack`,
    /// `tcp_in_quickack_mode`): every segment is ACKed at once, up to 16 ACKs
    /// (`TCP_MAX_QUICKACKS`, at most the window over two segments), after the first data
    /// segment, after a pause in arriving data longer than the receiver's RTO (the
    /// handshake's RTT + max(2·RTT, `min_rto_ms`)) and after a duplicate segment. Default
    /// true (Linux has no switch); false: delayed ACKs as RFC 5681 §4.2 only.
    pub quickack: bool,
    /// Whether in-order segments that arrive together (in the same instant: one TTI's
    /// delivery) are acknowledged once, after the last of them, instead of every second
    /// segment. Linux's receiver ACKs every second full-sized segment at once only when the
    /// window would not shrink (`__tcp_ack_snd_check`), i.e. once the application has read;
    /// a burst the kernel queues before the application runs is acknowledged when the read
    /// takes it (`tcp_cleanup_rbuf`), and on phones GRO merges such a burst into one
    /// segment. Measured in the emulator (`tcp:tcp_probe`, BBR on the T-Mobile LTE trace):
    /// 35,540 data segments, 6,277 ACKs. Immediate ACKs (hole-filling and duplicate
    /// segments, quick ACKs; out-of-order segments as [`TcpConfig::comp_sack_nr`] says) stay
    /// immediate. Default true; false: every second
    /// segment (RFC 5681 §4.2 with an application that reads each segment at once).
    pub burst_acks: bool,
    /// SACK compression (Linux `net.ipv4.tcp_comp_sack_nr`, since 4.18; `__tcp_ack_snd_check`):
    /// while out-of-order data is queued, the receiver sends the first three duplicate ACKs
    /// for a given cumulative ACK at once (`TCP_FASTRETRANS_THRESH`), then holds further
    /// SACKs back and sends one when `comp_sack_delay_us` has passed (at most 5 % of the
    /// receiver's RTT) or `comp_sack_nr` have been held, or with any other ACK. Default 44
    /// (Linux's); 0 turns it off (an ACK for every out-of-order segment, RFC 5681 §4.2).
    pub comp_sack_nr: u32,
    /// The longest a compressed SACK waits, microseconds (Linux
    /// `net.ipv4.tcp_comp_sack_delay_ns` = 1 ms). The wait is also at most 5 % of the
    /// receiver's RTT, taken here from the handshake (this bound is not applied without the
    /// handshake). Default 1000.
    pub comp_sack_delay_us: u32,
    /// The kernel's timer tick (`CONFIG_HZ`) for the retransmission, loss-probe,
    /// reordering, delayed-ACK and handshake timers: each fires when Linux's timer wheel
    /// would, rounded up to whole jiffies and up to one wheel granule late (4 ms for
    /// timeouts under 252 ms, 32 ms up to 2 s, 256 ms beyond at 250 Hz; see
    /// [`crate::tcp::linux_timer_expiry`]); 250 is Debian's kernels' and the emulator
    /// host's. Default 0: exact timers (`now + timeout`). Measured against the emulator's
    /// real Linux TCP (docs/tcp.md), 250 did not bring the simulator closer
    /// (BBR's timeouts on T-Mobile LTE: 2.8 → 3.5 per minute against Linux's 1.5), so it
    /// is not the default.
    pub timer_hz: u32,
    /// Duplicate ACKs that trigger fast retransmit. Default 3 (RFC 5681 §3.2).
    pub dupack_threshold: u32,
    /// Whether the sender uses Limited Transmit (RFC 3042): one new segment beyond `cwnd`
    /// on each of the first two duplicate ACKs. Default true (as Linux).
    pub limited_transmit: bool,
    /// Selective acknowledgements (RFC 2018) with SACK-based loss recovery (RFC 6675).
    /// Default true (Linux `net.ipv4.tcp_sack = 1`). The receiver then reports up to three
    /// out-of-order blocks per ACK; the sender keeps a scoreboard and repairs every hole of
    /// a window within about one RTT. Both endpoints are built from this configuration, so
    /// it stands for the handshake's SACK-permitted exchange: the sender keeps its
    /// scoreboard from the first segment. With `false` it recovers with NewReno (RFC 6582).
    pub sack: bool,
    /// Proportional Rate Reduction (RFC 6937, PRR-SSRB) paces (re)transmissions during
    /// SACK recovery so that the flight shrinks smoothly to the controller's window.
    /// Default true (as Linux since 3.2). With false, SACK recovery sends whenever
    /// `cwnd − pipe ≥ segment` (RFC 6675 §5 plain rule). Ignored without SACK.
    pub prr: bool,
    /// RACK-TLP loss detection (RFC 8985 §6, Linux `net.ipv4.tcp_recovery = 1`): with SACK in
    /// use, a segment is lost once a segment sent after it has been delivered and it has not
    /// been acknowledged within the newest delivered segment's RTT plus a reordering window
    /// (`min_rtt/4`, 0 while no reordering was seen and at least `dupack_threshold` segments
    /// are SACKed or during recovery; grown on D-SACKs). It replaces RFC 6675's IsLost and
    /// also detects lost retransmissions. Default true; with false, SACK recovery follows
    /// RFC 6675 (NextSeg rules 1–4) as before. Ignored without SACK.
    pub rack: bool,
    /// Tail loss probes (RFC 8985 §7, Linux `net.ipv4.tcp_early_retrans = 3`): when nothing is
    /// SACKed, lost or retransmitted, a probe (a new segment, else the last one again) goes
    /// 2·SRTT after the last transmission or ACK, before the RTO. Default true. Ignored
    /// without SACK.
    pub tlp: bool,
    /// F-RTO (RFC 5682 §3, the SACK-enhanced algorithm, Linux `net.ipv4.tcp_frto = 2`): after
    /// a timeout the sender sends new data instead of retransmitting, and undoes the timeout's
    /// window reduction when data never retransmitted is acknowledged. Default true. Ignored
    /// without SACK.
    pub frto: bool,
    /// D-SACK (RFC 2883, Linux `net.ipv4.tcp_dsack = 1`): the receiver reports a duplicate
    /// segment in the first SACK block. Default true. Ignored without SACK.
    pub dsack: bool,
    /// Undo of window reductions found spurious (Linux's undo machinery): by D-SACKs of every
    /// retransmission (RFC 3708), by the Eifel timestamp check (RFC 3522: the ACK echoes a
    /// timestamp older than the first retransmission), or by F-RTO; the controller's
    /// `undo_cwnd` restores its window. Default true (Linux has no switch). Ignored without
    /// SACK.
    pub undo: bool,
    /// Congestion-window restart after an idle period longer than the RTO (RFC 5681 §4.1 as
    /// Linux `net.ipv4.tcp_slow_start_after_idle = 1`): cwnd halves per RTO of idleness, down
    /// to the restart window `min(initial window, cwnd)`, and ssthresh keeps ¾ of the old
    /// cwnd. Default true. Controllers that own the whole window update (BBR, Legilimens,
    /// as Linux's `cong_control`) are exempt.
    pub slow_start_after_idle: bool,
    /// Three-way handshake before data (RFC 9293 §3.5, as Linux): the sender (the side that
    /// connects, as the emulator's traffic tool does) sends a SYN when the application first
    /// writes; the receiver answers with a SYN-ACK; the sender's third segment (a pure ACK)
    /// and its data follow. The handshake's RTT sample seeds the sender's estimator (SRTT,
    /// RTO, minimum RTT, BBR's RTprop) and the SYN-ACK's timestamp the receiver's first RTT
    /// sample. SYN and SYN-ACK are resent after 1 s, doubling (`TCP_TIMEOUT_INIT`,
    /// `tcp_syn_retries` = 6, `tcp_synack_retries` = 5). Default true; false: the connection
    /// exists from the start and the first data segment goes at once (the behaviour before
    /// the handshake was modelled).
    pub handshake: bool,
    /// Receive-window policy of the receiver. Default: Linux-like auto-tuning.
    pub rwnd: RwndConfig,
    /// Initial send buffer, bytes (Linux `tcp_wmem[1]`). Default 16384. Applies to senders
    /// at a UE (uplink flows and the UE side of interactive apps): the application may have
    /// at most the send buffer's size written and not yet acknowledged.
    pub wmem_initial: u32,
    /// Largest send buffer, bytes (Linux `tcp_wmem[2]`); auto-tuning grows the buffer to
    /// `min(2·cwnd, wmem_max)`. Default 4194304 (the thesis's phones: 2560000).
    pub wmem_max: u32,
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            mss: 1448,
            initial_window: 10,
            min_rto_ms: 200,
            rto_estimator: RtoEstimator::Linux,
            initial_rto_ms: 1000,
            max_rto_ms: 120_000,
            delayed_ack: true,
            delayed_ack_timeout_ms: 40,
            delayed_ack_segments: 2,
            quickack: true,
            burst_acks: true,
            comp_sack_nr: 44,
            comp_sack_delay_us: 1000,
            timer_hz: 0,
            dupack_threshold: 3,
            limited_transmit: true,
            sack: true,
            prr: true,
            rack: true,
            tlp: true,
            frto: true,
            dsack: true,
            undo: true,
            slow_start_after_idle: true,
            handshake: true,
            rwnd: RwndConfig::default(),
            wmem_initial: crate::tcp::DEFAULT_WMEM_INITIAL,
            wmem_max: crate::tcp::DEFAULT_WMEM_MAX,
        }
    }
}

impl TcpConfig {
    /// Initial congestion window in bytes: `initial_window · mss`.
    pub fn initial_window_bytes(&self) -> u64 {
        self.initial_window as u64 * self.mss as u64
    }

    /// Minimum RTO as [`Nanos`].
    pub fn min_rto(&self) -> Nanos {
        self.min_rto_ms.saturating_mul(MS)
    }

    /// Initial RTO as [`Nanos`].
    pub fn initial_rto(&self) -> Nanos {
        self.initial_rto_ms.saturating_mul(MS)
    }

    /// Maximum RTO as [`Nanos`].
    pub fn max_rto(&self) -> Nanos {
        self.max_rto_ms.saturating_mul(MS)
    }

    /// Delayed-ACK timeout as [`Nanos`].
    pub fn delayed_ack_timeout(&self) -> Nanos {
        self.delayed_ack_timeout_ms.saturating_mul(MS)
    }

    /// Checks every field, naming the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        if ![0, 100, 250, 300, 1000].contains(&self.timer_hz) {
            return Err(format!(
                "timer_hz must be 0 (exact timers) or a Linux CONFIG_HZ (100, 250, 300 or 1000), got {}",
                self.timer_hz
            ));
        }
        if self.mss == 0 || self.mss > 65_495 {
            return Err(format!("mss must be in 1..=65495 bytes, got {}", self.mss));
        }
        if self.initial_window == 0 {
            return Err("initial_window must be >= 1 segment, got 0".into());
        }
        if self.min_rto_ms == 0 {
            return Err("min_rto_ms must be > 0, got 0".into());
        }
        if self.max_rto_ms < self.min_rto_ms {
            return Err(format!(
                "max_rto_ms must be >= min_rto_ms ({}), got {}",
                self.min_rto_ms, self.max_rto_ms
            ));
        }
        if self.initial_rto_ms < self.min_rto_ms || self.initial_rto_ms > self.max_rto_ms {
            return Err(format!(
                "initial_rto_ms must be within [min_rto_ms, max_rto_ms] = [{}, {}], got {}",
                self.min_rto_ms, self.max_rto_ms, self.initial_rto_ms
            ));
        }
        if self.delayed_ack && self.delayed_ack_timeout_ms == 0 {
            return Err("delayed_ack_timeout_ms must be > 0 when delayed_ack is on, got 0".into());
        }
        if self.delayed_ack_segments == 0 {
            return Err("delayed_ack_segments must be >= 1, got 0".into());
        }
        if self.comp_sack_delay_us > 1_000_000 {
            return Err(format!("comp_sack_delay_us must be at most 1000000 (1 s), got {}", self.comp_sack_delay_us));
        }
        if self.comp_sack_nr > 255 {
            return Err(format!("comp_sack_nr must be at most 255 (Linux's limit), got {}", self.comp_sack_nr));
        }
        if self.dupack_threshold == 0 {
            return Err("dupack_threshold must be >= 1, got 0".into());
        }
        if self.wmem_initial < self.mss || self.wmem_max < self.wmem_initial {
            return Err(format!(
                "wmem_initial must be >= mss ({}) and wmem_max >= wmem_initial, got wmem_initial = {}, wmem_max = {}",
                self.mss, self.wmem_initial, self.wmem_max
            ));
        }
        self.rwnd.validate().map_err(|e| format!("rwnd: {e}"))
    }
}

/// The window a receive buffer of `space` bytes advertises under Linux's `tcp_adv_win_scale`
/// = `scale` (`tcp_win_from_space`, Linux 2.6–6.5): `space − space/2^scale` for a positive
/// scale, `space/2^−scale` otherwise (0: the whole buffer).
pub fn win_from_space(space: u32, scale: i8) -> u32 {
    let s = u32::from(scale.unsigned_abs().min(31));
    if scale > 0 {
        space - (space >> s)
    } else {
        space >> s
    }
}

fn is_zero_i8(v: &i8) -> bool {
    *v == 0
}

fn default_rmem_max() -> u32 {
    DEFAULT_RMEM_MAX
}

fn default_rmem_initial() -> u32 {
    DEFAULT_RMEM_INITIAL
}

/// How the receiver chooses the window it advertises.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RwndConfig {
    /// Linux receive-buffer auto-tuning (dynamic right-sizing, `tcp_rcv_space_adjust`): the
    /// window starts at `rmem_initial` and grows towards about twice the bytes received per
    /// receiver-estimated RTT, never beyond `rmem_max`. See [`crate::tcp::AutoTuning`].
    AutoTuning {
        /// Largest receive buffer in bytes. Default 6291456 (Linux `tcp_rmem[2]`).
        #[serde(default = "default_rmem_max")]
        rmem_max: u32,
        /// Initial receive buffer in bytes. Default 131072 (Linux `tcp_rmem[1]`).
        #[serde(default = "default_rmem_initial")]
        rmem_initial: u32,
        /// The share of a buffer advertised as window, as Linux's `tcp_adv_win_scale` sysctl
        /// (`tcp_win_from_space` up to Linux 6.5): the buffer less buffer/2^s for s > 0 (1:
        /// one half, Linux 3.4–6.5's default; 2: three quarters, the default before 3.4),
        /// buffer/2^−s for s < 0, the whole buffer for 0. It scales `rmem_max` and
        /// `rmem_initial` into the largest and the initial window. In [−31, 31]. Default 0:
        /// the whole buffer (Linux 6.6 and later measure the share from the packets' memory
        /// overhead instead, which is not modelled).
        #[serde(default, skip_serializing_if = "is_zero_i8")]
        adv_win_scale: i8,
    },
    /// A constant advertised window (e.g. a socket with `SO_RCVBUF` set).
    Fixed {
        /// Window in bytes.
        bytes: u32,
    },
    /// DRWA \[drwa\] (Jiang et al. 2012; \[rsd-thesis\] Eq. (2.13)): once per receiver-estimated RTT,
    /// `rwnd = λ · R̂TTm / R̂TT · ŵ`, ŵ the bytes received per RTT (averaged 7/8 old,
    /// 1/8 new). See [`crate::tcp::Drwa`].
    Drwa {
        /// Largest window in bytes. Default 6291456 (Linux `tcp_rmem[2]`; the thesis uses
        /// 2560000).
        #[serde(default = "default_rmem_max")]
        rmem_max: u32,
        /// Window before the first estimate, bytes. Default 131072.
        #[serde(default = "default_rmem_initial")]
        rmem_initial: u32,
        /// The multiplier λ (> 0). Default 3 (the thesis and DRWA's paper).
        #[serde(default = "default_lambda")]
        lambda: f64,
    },
    /// RTAC (\[rsd-thesis\] Algorithm 1): receiver-estimated RTT (gain β),
    /// minimum RTT plus Δ, window ŵ (weight α on the old value), queue estimate
    /// `Q̂ = ŵ(1 − R̂TTm/R̂TT)`, emulated price `K(Q̂ + 1)`, `rwnd` by Eq. (2.14). K is `k`
    /// when given, else Eq. (2.11) from `theta` and the BDP `capacity_mbps · R̂TTm`.
    /// See [`crate::tcp::Rtac`].
    Rtac {
        /// Largest window in bytes. Default 6291456 (the thesis uses 2560000).
        #[serde(default = "default_rmem_max")]
        rmem_max: u32,
        /// Window before the first estimate, bytes. Default 131072.
        #[serde(default = "default_rmem_initial")]
        rmem_initial: u32,
        /// Weight of the previous window estimate in `ŵ ← α·ŵ + (1 − α)·pkts`
        /// (Algorithm 1 line 3, as written), in [0, 1). Default 0.125 (Table 2.1).
        #[serde(default = "default_eighth")]
        alpha: f64,
        /// Weight of a new RTT sample in `R̂TT ← (1 − β)·R̂TT + β·sample`, in (0, 1].
        /// Default 0.125 (Table 2.1).
        #[serde(default = "default_eighth")]
        beta: f64,
        /// Slope K of the emulated price, per packet³ (> 0). Default: from `theta` and
        /// `capacity_mbps` by Eq. (2.11). The thesis uses 3e-7 (LTE) and 15e-5 (Wi-Fi).
        #[serde(default)]
        k: Option<f64>,
        /// Operating point θ = RTT*/RTTm of Eq. (2.11) (> 1). Default 1.38 (Table 2.1).
        #[serde(default = "default_theta")]
        theta: f64,
        /// Wireless link capacity, Mbps, for the BDP of Eq. (2.11). Required unless `k` is
        /// given.
        #[serde(default)]
        capacity_mbps: Option<f64>,
        /// RTTm compensation Δ, ms (≥ 0): `R̂TT*m = R̂TTm + Δ` (§2.4.1; the thesis measured
        /// 18 ms for its LTE network and 8 ms for its Wi-Fi). Default 0.
        #[serde(default)]
        delta_ms: f64,
    },
}

fn default_lambda() -> f64 {
    3.0
}

fn default_eighth() -> f64 {
    0.125
}

fn default_theta() -> f64 {
    1.38
}

impl Default for RwndConfig {
    fn default() -> Self {
        RwndConfig::AutoTuning {
            rmem_max: DEFAULT_RMEM_MAX,
            rmem_initial: DEFAULT_RMEM_INITIAL,
            adv_win_scale: 0,
        }
    }
}

impl RwndConfig {
    /// The window the receiver announces at connection set-up (what the SYN-ACK would
    /// carry); the sender uses it until the first ACK arrives.
    pub fn initial_window(&self) -> u32 {
        match *self {
            RwndConfig::AutoTuning {
                rmem_max,
                rmem_initial,
                adv_win_scale,
            } => win_from_space(rmem_initial.min(rmem_max), adv_win_scale),
            RwndConfig::Fixed { bytes } => bytes,
            RwndConfig::Drwa {
                rmem_max,
                rmem_initial,
                ..
            }
            | RwndConfig::Rtac {
                rmem_max,
                rmem_initial,
                ..
            } => rmem_initial.min(rmem_max),
        }
    }

    /// Checks the variant's fields, naming the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            RwndConfig::AutoTuning {
                rmem_max,
                rmem_initial,
                adv_win_scale,
            } => {
                check_rmem(rmem_max, rmem_initial)?;
                if !(-31..=31).contains(&adv_win_scale) {
                    return Err(format!("adv_win_scale must be an integer in [-31, 31], got {adv_win_scale}"));
                }
                Ok(())
            }
            RwndConfig::Fixed { bytes } => {
                if bytes == 0 {
                    return Err("bytes must be > 0, got 0".into());
                }
                Ok(())
            }
            RwndConfig::Drwa {
                rmem_max,
                rmem_initial,
                lambda,
            } => {
                check_rmem(rmem_max, rmem_initial)?;
                if !(lambda > 0.0 && lambda.is_finite()) {
                    return Err(format!("lambda must be a number > 0, got {lambda}"));
                }
                Ok(())
            }
            RwndConfig::Rtac {
                rmem_max,
                rmem_initial,
                alpha,
                beta,
                k,
                theta,
                capacity_mbps,
                delta_ms,
            } => {
                check_rmem(rmem_max, rmem_initial)?;
                if !(0.0..1.0).contains(&alpha) {
                    return Err(format!("alpha must be in [0, 1), got {alpha}"));
                }
                if !(beta > 0.0 && beta <= 1.0) {
                    return Err(format!("beta must be in (0, 1], got {beta}"));
                }
                if let Some(k) = k {
                    if !(k > 0.0 && k.is_finite()) {
                        return Err(format!("k must be a number > 0, got {k}"));
                    }
                }
                if !(theta > 1.0 && theta.is_finite()) {
                    return Err(format!("theta must be a number > 1, got {theta}"));
                }
                match capacity_mbps {
                    Some(c) if !(c > 0.0 && c.is_finite()) => {
                        return Err(format!("capacity_mbps must be a rate in Mbps > 0, got {c}"))
                    }
                    None if k.is_none() => {
                        return Err("capacity_mbps must be given (a rate in Mbps > 0) unless k is given, got nothing".into())
                    }
                    _ => {}
                }
                if !(0.0..=10_000.0).contains(&delta_ms) {
                    return Err(format!("delta_ms must be in [0, 10000] ms, got {delta_ms}"));
                }
                Ok(())
            }
        }
    }
}

fn check_rmem(rmem_max: u32, rmem_initial: u32) -> Result<(), String> {
    if rmem_initial == 0 {
        return Err("rmem_initial must be > 0 bytes, got 0".into());
    }
    if rmem_max < rmem_initial {
        return Err(format!(
            "rmem_max must be >= rmem_initial ({rmem_initial}), got {rmem_max}"
        ));
    }
    Ok(())
}
