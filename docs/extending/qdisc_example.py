"""A queue discipline in Python: background packets are refused at arrival once the queue
holds `background_fill` of its limit (room is kept for foreground traffic), and at
dequeue a head packet that waited longer than `max_sojourn_ms` is dropped, unless it is
one of the last `keep_packets` queued (a sojourn-time dropper, like BoDe or CoDel's
target without CoDel's control law).

Scenario: [cell] aqm = { kind = "python", class = "qdisc_example:SojournCap", params = { max_sojourn_ms = 50.0 } }
"""

from cellshare.plugins import Dequeue, Enqueue, ParamError, QueueDiscipline


class SojournCap(QueueDiscipline):
    # The scenario's `params` keys and their defaults (a value must have the default's type).
    PARAMS = {"max_sojourn_ms": 100.0, "keep_packets": 3, "background_fill": 0.5}

    @classmethod
    def check_params(cls, p):
        if not p.max_sojourn_ms > 0.0:
            raise ParamError("max_sojourn_ms", p.max_sojourn_ms, "a delay in ms > 0")
        if p.keep_packets < 0:
            raise ParamError("keep_packets", p.keep_packets, ">= 0 packets")
        if not 0.0 < p.background_fill <= 1.0:
            raise ParamError("background_fill", p.background_fill, "a fraction of the limit in (0, 1]")

    def __init__(self, ctx, params):
        super().__init__(ctx, params)
        self.max_sojourn = round(params.max_sojourn_ms * 1e6)  # integer nanoseconds
        self.keep = params.keep_packets
        self.fill = params.background_fill
        self.dropped = 0  # this queue's drops at dequeue (kept for whoever inspects it)

    def on_enqueue(self, now, packet, queue):
        # The queue's hard limit is enforced after this hook whatever it returns; this
        # refuses background packets earlier, past a share of that limit.
        if not packet.foreground:
            if queue.limit_bytes is not None and queue.bytes + packet.size > self.fill * queue.limit_bytes:
                return Enqueue.DROP
            if queue.limit_packets is not None and queue.packets + 1 > self.fill * queue.limit_packets:
                return Enqueue.DROP
        return Enqueue.ACCEPT

    def on_dequeue(self, now, packet, queue):
        # `queue.packets` counts this head packet; `packet.enqueued_at` is when it arrived.
        if queue.packets > self.keep and now - packet.enqueued_at > self.max_sojourn:
            self.dropped += 1
            return Dequeue.DROP  # the hook is asked again about the next head
        return Dequeue.TRANSMIT
