"""Example congestion controllers and queue disciplines written in Python
(docs/extending/python.md).

:class:`Reno` is ``crates/transport/src/cc/reno.rs`` line for line: a scenario naming
``cc = { kind = "python", class = "cellshare.plugins_examples:Reno" }`` gives the same
results, byte for byte, as one naming ``cc = { kind = "reno" }`` (tests/test_plugins.py
checks it on the benchmark scenario), which shows that the hooks reach Python as the Rust
sender calls them. Start a new controller from a copy of it.

:class:`DropTail` and :class:`Bode` are ``crates/aqm/src/tail_drop.rs`` and ``bode.rs``:
``cell.aqm = { kind = "python", class = "cellshare.plugins_examples:DropTail" }`` gives the
same results, byte for byte, as ``cell.aqm = { kind = "tail_drop" }`` (tests/test_plugins.py
checks it on the benchmark scenario), and :class:`Bode` the same as ``kind = "bode"``. Start
a discipline that decides at arrival from :class:`DropTail`, one that decides by sojourn
time at the head from :class:`Bode`.
"""

from __future__ import annotations

import math

from .plugins import (UNSET, AckEvent, CongestionControl, Dequeue, Enqueue, IdleRestart, LossEvent, Packet, ParamError,
                      QueueDiscipline, QueueView, UndoEvent, idle_restart, is_cwnd_limited, reno_undo)


class Reno(CongestionControl):
    """Reno/NewReno (RFC 5681 with Appropriate Byte Counting, RFC 3465), as the Rust
    ``reno``: slow start by at most ``abc_limit``·MSS per ACK up to ``ssthresh``; then one
    MSS per window of acknowledged bytes; ``ssthresh = max(flight·beta, 2·MSS)`` on a loss,
    ``cwnd = ssthresh`` (fast retransmit) or 1·MSS (timeout); the window grows only while it
    limits the sender. Trace mode: 0 slow start, 1 congestion avoidance, 2 fast recovery."""

    PARAMS = {"abc_limit": 2, "beta": 0.5, "initial_ssthresh": None}

    @classmethod
    def check_params(cls, p) -> None:
        if p.abc_limit < 1:
            raise ParamError("abc_limit", p.abc_limit, ">= 1 segment")
        if not 0.0 < p.beta < 1.0:
            raise ParamError("beta", p.beta, "in (0, 1)")
        s = p.initial_ssthresh
        if s is not None and (isinstance(s, bool) or not isinstance(s, int) or not 0 < s < 2 ** 64):
            raise ParamError("initial_ssthresh", s, "an integer number of bytes > 0, or left out (unlimited)")

    def __init__(self, ctx, params) -> None:
        super().__init__(ctx, params)
        self.mss = ctx.mss
        self.abc_bytes = params.abc_limit * ctx.mss
        self.beta = params.beta
        self.cwnd_ = max(ctx.initial_window, ctx.mss)
        self.ssthresh_ = UNSET if params.initial_ssthresh is None else params.initial_ssthresh
        self.bytes_acked = 0  # RFC 3465 bytes_acked, for congestion avoidance
        self.in_recovery = False

    def reduced_ssthresh(self, flight: int) -> int:
        return max(int(float(flight) * self.beta), 2 * self.mss)

    def on_ack(self, ev: AckEvent) -> None:
        self.in_recovery = ev.in_recovery
        if ev.in_recovery or ev.acked_bytes == 0:
            return
        slow_start = self.cwnd_ < self.ssthresh_
        if not is_cwnd_limited(self.cwnd_, slow_start, ev):
            return
        if slow_start:
            # RFC 5681 §3.1 eq. 2 with RFC 3465 ABC: cwnd += min(N, L·SMSS).
            inc = min(ev.acked_bytes, self.abc_bytes)
            self.cwnd_ = min(self.cwnd_ + inc, max(self.ssthresh_, self.cwnd_))
        else:
            # RFC 3465 §2.1: once bytes_acked >= cwnd, subtract cwnd and add one SMSS.
            self.bytes_acked += ev.acked_bytes
            if self.bytes_acked >= self.cwnd_:
                self.bytes_acked -= self.cwnd_
                self.cwnd_ += self.mss

    def on_congestion_event(self, ev: LossEvent) -> None:
        self.ssthresh_ = self.reduced_ssthresh(ev.bytes_in_flight)
        self.cwnd_ = self.ssthresh_
        self.bytes_acked = 0
        self.in_recovery = True

    def on_timeout(self, now: int, bytes_in_flight: int, mss: int) -> None:
        self.ssthresh_ = self.reduced_ssthresh(bytes_in_flight)
        self.cwnd_ = mss
        self.bytes_acked = 0
        self.in_recovery = False

    def on_recovery_end(self, now: int) -> None:
        # RFC 6582 §3.2 step 3 (full ACK), option 2: cwnd = ssthresh.
        self.cwnd_ = self.ssthresh_
        self.in_recovery = False

    def undo_cwnd(self, ev: UndoEvent) -> None:
        # Linux `tcp_reno_undo_cwnd`: cwnd = max(cwnd, prior_cwnd); ssthresh restored.
        self.cwnd_, self.ssthresh_ = reno_undo(self.cwnd_, self.ssthresh_, ev)
        self.bytes_acked = 0
        self.in_recovery = False

    def on_idle_restart(self, ev: IdleRestart) -> None:
        # RFC 5681 §4.1, Linux `tcp_cwnd_restart`.
        self.cwnd_, self.ssthresh_ = idle_restart(self.cwnd_, self.ssthresh_, ev)
        self.bytes_acked = 0

    def cwnd(self) -> int:
        return self.cwnd_

    def ssthresh(self) -> int:
        return self.ssthresh_

    def trace(self) -> tuple[int, float, bool]:
        mode = 2 if self.in_recovery else (0 if self.cwnd_ < self.ssthresh_ else 1)
        return (mode, math.nan, False)


class DropTail(QueueDiscipline):
    """Drop-tail, as the Rust ``tail_drop``: an arriving packet that does not fit the queue's
    hard limit (bytes, or packets with ``limit_packets``) is dropped; the head is always
    transmitted. Both hooks are written out, although they are the base class's defaults, so
    that the identity test exercises both."""

    def on_enqueue(self, now: int, packet: Packet, queue: QueueView) -> Enqueue:
        if queue.limit_packets is not None:
            fits = queue.packets < queue.limit_packets
        else:
            fits = queue.bytes + packet.size <= queue.limit_bytes
        return Enqueue.ACCEPT if fits else Enqueue.DROP

    def on_dequeue(self, now: int, packet: Packet, queue: QueueView) -> Dequeue:
        return Dequeue.TRANSMIT


class Bode(QueueDiscipline):
    """BoDe, the bounded-delay AQM of the BoDe paper (Section V-C), as the Rust ``bode``: at dequeue
    the head is dropped once its sojourn reaches ``bounded_delay_ms``, unless fewer than 3
    packets remain behind it (so the sender still gets three duplicate ACKs). Arrivals are
    tail drop at the hard limit: the class leaves ``on_enqueue`` at its default, which the
    simulator then applies without calling Python."""

    PARAMS = {"bounded_delay_ms": 20.0}
    #: The head is dropped only if at least this many packets remain behind it.
    MIN_PACKETS = 3

    @classmethod
    def check_params(cls, p) -> None:
        if not 1e-3 <= p.bounded_delay_ms <= 1e6:
            raise ParamError("bounded_delay_ms", p.bounded_delay_ms, "a delay in ms in (0, 1e6]")

    def __init__(self, ctx, params) -> None:
        super().__init__(ctx, params)
        # Milliseconds to integer nanoseconds as the Rust side converts them (ms / 1e3 s, then
        # rounded half away from zero).
        self.bound = math.floor(params.bounded_delay_ms / 1e3 * 1e9 + 0.5)

    def on_dequeue(self, now: int, packet: Packet, queue: QueueView) -> Dequeue:
        # `queue.packets` counts the head: the packets behind it are one fewer.
        if queue.packets - 1 < self.MIN_PACKETS or now - packet.enqueued_at < self.bound:
            return Dequeue.TRANSMIT
        return Dequeue.DROP
