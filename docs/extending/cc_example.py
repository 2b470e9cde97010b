"""AIMD in Python: additive increase of `increase_segments` per round trip, multiplicative
decrease to `decrease`·cwnd on a loss (Chiu & Jain's rule; Reno is a = 1, b = ½). No slow
start. The TCP sender does the rest (what is in flight, retransmission, SACK recovery).

Scenario: cc = { kind = "python", class = "cc_example:Aimd", params = { decrease = 0.7 } }
"""

from cellshare.plugins import UNSET, CongestionControl, ParamError


class Aimd(CongestionControl):
    # The scenario's `params` keys and their defaults (a value must have the default's type).
    PARAMS = {"increase_segments": 1, "decrease": 0.5}

    @classmethod
    def check_params(cls, p):
        if p.increase_segments < 1:
            raise ParamError("increase_segments", p.increase_segments, ">= 1 segment")
        if not 0.0 < p.decrease < 1.0:
            raise ParamError("decrease", p.decrease, "in (0, 1)")

    def __init__(self, ctx, params):
        super().__init__(ctx, params)
        self.mss = ctx.mss
        self.increase = params.increase_segments * ctx.mss
        self.decrease = params.decrease
        self.window = max(ctx.initial_window, ctx.mss)
        self.threshold = UNSET
        self.acked = 0  # bytes acknowledged since the last increase (RFC 3465 counting)

    def on_ack(self, ev):
        # One step per cwnd of acknowledged bytes: per round trip. Nothing in recovery.
        if ev.in_recovery or ev.acked_bytes == 0:
            return
        self.acked += ev.acked_bytes
        if self.acked >= self.window:
            self.acked -= self.window
            self.window += self.increase

    def on_congestion_event(self, ev):
        # Once per loss episode: the window the sender returns to when recovery ends.
        self.threshold = max(int(self.window * self.decrease), 2 * self.mss)
        self.window = self.threshold
        self.acked = 0

    def on_timeout(self, now, bytes_in_flight, mss):
        # Everything in flight is presumed lost: restart from one segment.
        self.threshold = max(int(bytes_in_flight * self.decrease), 2 * self.mss)
        self.window = mss
        self.acked = 0

    def cwnd(self):
        return self.window

    def ssthresh(self):
        return self.threshold
