"""Congestion controllers and queue disciplines written in Python (docs/extending/python.md).

A controller is a subclass of :class:`CongestionControl` with the hooks of the Rust trait
``CongestionControl`` (``crates/transport/src/cc/mod.rs``), named alike and called at the
same moments by the simulated TCP sender. A scenario names it as
``cc = { kind = "python", class = "module:Class", params = { ... } }``; the module is looked
for in the scenario file's folder first, then on ``sys.path``. Through the API the class
object itself may stand in ``class`` (``cellshare.run(mapping)``).

The events reach a hook as read-only objects with the Rust structs' field names and units:
times in integer nanoseconds, sizes in integer bytes (:class:`AckEvent`, :class:`LossEvent`,
:class:`UndoEvent`, :class:`IdleRestart`, :class:`Established`, :class:`RateSample`; the
constructor gets a :class:`CcContext`).

The contract: a controller changes its state only inside its hooks (and its constructor).
After each hook the simulator reads ``cwnd()``, ``ssthresh()`` and, if the class overrides
them, ``pacing_rate()``, ``paused()``, ``poll_timeout()`` and ``trace()``, and keeps the
values until the next hook. An optional hook the class does not override is not called at
all (its default does nothing), so a controller pays only for the hooks it writes.

A queue discipline is a subclass of :class:`QueueDiscipline` with the hooks of the Rust trait
``QueueDiscipline`` (``crates/aqm/src/lib.rs``): ``on_enqueue`` when a packet arrives at a
base-station queue, ``on_dequeue`` when the queue's head packet is about to be transmitted,
each given the time, the packet (:class:`Packet`) and a read-only view of the queue
(:class:`QueueView`), each returning a verdict (:class:`Enqueue`, :class:`Dequeue`). A
scenario names it as ``cell.aqm = { kind = "python", class = "module:Class", params = { ...
} }`` (or as a DiffServ class's ``aqm``); one object is built per queue (each UE's, each
DiffServ class's) with a :class:`QueueContext`. The queue's hard limit holds whatever a
discipline decides: an arrival it accepts that does not fit is dropped.
"""

from __future__ import annotations

import enum
import importlib
import json
import math
import os
import sys
from typing import Any, ClassVar, Mapping, Optional

from . import _core

#: ``ssthresh`` while unset (Rust ``u64::MAX``): slow start until the first loss.
UNSET = 2 ** 64 - 1

CcContext = _core.CcContext
AckEvent = _core.AckEvent
RateSample = _core.RateSample
LossEvent = _core.LossEvent
UndoEvent = _core.UndoEvent
IdleRestart = _core.IdleRestart
Established = _core.Established
QueueContext = _core.QueueContext
Packet = _core.Packet
QueueView = _core.QueueView
#: Raised when a controller's or a queue discipline's hook raises (or returns a value of the
#: wrong type): the run stops; ``args[0]`` is one line naming the class, the hook and the
#: exception. A :class:`cellshare.ScenarioInvalid`, so ``cellshare run`` exits 2.
ControllerFailed = _core.ControllerFailed

#: The hooks a controller must define; the others have the trait's defaults.
REQUIRED = ("on_ack", "on_congestion_event", "on_timeout", "cwnd", "ssthresh")


class ParamError(ValueError):
    """Raised by :meth:`CongestionControl.check_params` (or
    :meth:`QueueDiscipline.check_params`) for a parameter out of range: the scenario's error
    names ``params.<key>``, the value and what was expected."""

    def __init__(self, key: str, value: Any, expected: str) -> None:
        super().__init__(key, value, expected)
        self.key, self.value, self.expected = key, value, expected

    def __str__(self) -> str:
        return f"params.{self.key} = {self.value!r}: expected {self.expected}"


class PluginInvalid(ValueError):
    """A ``kind = "python"`` entry that cannot be used: args (key below the entry's table,
    value, what was expected), as the simulator reports it."""


class Params:
    """A plug-in's parameters, read-only: ``params.beta``; ``params.as_dict()``."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, key: str) -> Any:
        try:
            return self._values[key]
        except KeyError:
            raise AttributeError(f"no parameter {key!r} (declared: {', '.join(self._values) or 'none'})") from None

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("a plug-in's parameters are read-only")

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def as_dict(self) -> dict:
        return dict(self._values)

    def __repr__(self) -> str:
        return "Params(" + ", ".join(f"{k}={v!r}" for k, v in self._values.items()) + ")"


class CongestionControl:
    """Base class of a congestion controller written in Python.

    A subclass defines the required hooks (``on_ack``, ``on_congestion_event``,
    ``on_timeout``, ``cwnd``, ``ssthresh``) and overrides any optional one; the defaults
    below are the Rust trait's. ``PARAMS`` declares the parameters a scenario may set (name
    to default; a value must have its default's type, an int standing for a float, and a
    ``None`` default accepting anything) and :meth:`check_params` checks their ranges.
    """

    #: Parameters and their defaults (a scenario's ``params`` table sets some of them).
    PARAMS: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, ctx: CcContext, params: Params) -> None:
        #: The flow's MSS, initial window (bytes), the scenario's seed and the flow's index.
        self.ctx = ctx
        #: The parameters, defaults filled in.
        self.params = params

    @classmethod
    def check_params(cls, params: Params) -> None:
        """Checks the parameters' ranges, once per scenario entry before the run; raise
        :class:`ParamError` naming the first bad one. The default accepts all."""

    # -- required ----------------------------------------------------------------------

    def on_ack(self, ev: AckEvent) -> None:
        """Every arriving ACK, new or duplicate, after the sender updated its state. Do not
        grow the window while ``ev.in_recovery``."""
        raise NotImplementedError

    def on_congestion_event(self, ev: LossEvent) -> None:
        """Fast retransmit starts a recovery episode: set ``ssthresh`` and the ``cwnd``
        recovery ends at."""
        raise NotImplementedError

    def on_timeout(self, now: int, bytes_in_flight: int, mss: int) -> None:
        """A retransmission timeout (standard response: ``ssthresh = max(flight/2, 2·MSS)``,
        ``cwnd = 1·MSS``)."""
        raise NotImplementedError

    def cwnd(self) -> int:
        """Congestion window, integer bytes (>= 1)."""
        raise NotImplementedError

    def ssthresh(self) -> int:
        """Slow-start threshold, integer bytes (:data:`UNSET` when unset)."""
        raise NotImplementedError

    # -- optional: the Rust trait's defaults -------------------------------------------

    def on_timeout_again(self, now: int, mss: int) -> None:
        """A timeout that starts no new loss episode (the RTO backed off, or it interrupts
        fast recovery). Default: :meth:`on_timeout` with ``2·ssthresh`` as the flight."""
        self.on_timeout(now, min(self.ssthresh() * 2, UNSET), mss)

    def on_sent(self, now: int, bytes: int, bytes_in_flight: int) -> None:
        """Every segment sent (new or retransmitted), with the bytes in flight after it."""

    def on_recovery_end(self, now: int) -> None:
        """Fast recovery ended (right after ``on_ack`` for the ACK that ended it)."""

    def undo_cwnd(self, ev: UndoEvent) -> None:
        """A reduction was found spurious (Linux ``undo_cwnd``); :func:`reno_undo` is Linux's
        answer. Default: keep the current window."""

    def on_idle_restart(self, ev: IdleRestart) -> None:
        """About to send after an idle period longer than the RTO; :func:`idle_restart` is
        Linux's answer. Default: nothing."""

    def on_established(self, ev: Established) -> None:
        """The handshake completed before any data was sent."""

    def pacing_rate(self) -> Optional[float]:
        """Pacing rate in bytes per second, or None to send as fast as the window allows."""
        return None

    def paused(self) -> bool:
        """Whether the controller withholds new data (it must end the pause itself, from an
        ACK or its timer)."""
        return False

    def poll_timeout(self) -> Optional[int]:
        """The time (integer ns) at which :meth:`on_timer` should be called, if any."""
        return None

    def on_timer(self, now: int) -> None:
        """Wakes the controller at (or after) the time it asked for."""

    def trace(self) -> tuple[int, float, bool]:
        """(mode 0..=255, estimate, flag) for the ``flow_trace`` and ``mode_changes``
        tables."""
        return (0, math.nan, False)


class Enqueue(enum.IntEnum):
    """What :meth:`QueueDiscipline.on_enqueue` decides (Rust ``EnqueueVerdict``)."""

    #: Append the packet to the queue (dropped all the same if it does not fit the hard limit).
    ACCEPT = 0
    #: Drop it.
    DROP = 1
    #: Drop packets from the head until it fits the hard limit, then append it (head drop).
    ACCEPT_DROPPING_HEAD = 2


class Dequeue(enum.IntEnum):
    """What :meth:`QueueDiscipline.on_dequeue` decides (Rust ``DequeueVerdict``)."""

    #: Transmit the head packet.
    TRANSMIT = 0
    #: Drop it (the hook is then asked about the next head).
    DROP = 1


class QueueDiscipline:
    """Base class of a queue discipline written in Python.

    One object governs one base-station queue (a UE's, or a DiffServ class of it). A
    subclass overrides :meth:`on_enqueue`, :meth:`on_dequeue` or both; a hook it leaves at
    the default below is not called at all (the simulator applies the default itself), so a
    discipline that decides at dequeue only pays nothing at arrivals. ``PARAMS`` and
    :meth:`check_params` work as for :class:`CongestionControl`.

    Times are integer nanoseconds of simulated time, sizes integer bytes. The queue's hard
    limit (``cell.rlc_queue_bytes``, a DiffServ class's ``queue_bytes``, or the entry's
    ``limit_packets``) is enforced whatever a hook returns: an accepted arrival that does not
    fit is dropped, as in every discipline compiled in.
    """

    #: Parameters and their defaults (a scenario's ``params`` table sets some of them).
    PARAMS: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, ctx: QueueContext, params: Params) -> None:
        #: The queue: the scenario's seed, ``ue``, ``diffserv_class``, ``cell``, and its hard
        #: limit (``limit_bytes`` or ``limit_packets``, the other None).
        self.ctx = ctx
        #: The parameters, defaults filled in.
        self.params = params

    @classmethod
    def check_params(cls, params: Params) -> None:
        """Checks the parameters' ranges, once per scenario entry before the run; raise
        :class:`ParamError` naming the first bad one. The default accepts all."""

    def on_enqueue(self, now: int, packet: Packet, queue: QueueView) -> Enqueue:
        """A packet arrives at `now`; `queue` is the queue before it is added. Default: tail
        drop at the hard limit (``queue.fits(packet.size)``)."""
        return Enqueue.ACCEPT if queue.fits(packet.size) else Enqueue.DROP

    def on_dequeue(self, now: int, packet: Packet, queue: QueueView) -> Dequeue:
        """The head packet is about to be transmitted at `now` (``packet.enqueued_at`` is when
        it arrived); `queue` includes it. On :data:`Dequeue.DROP` the hook is asked again
        about the next head. Default: transmit."""
        return Dequeue.TRANSMIT


# -- Linux's helpers, as in crates/transport/src/cc/mod.rs -----------------------------------

def reno_undo(cwnd: int, ssthresh: int, ev: UndoEvent) -> tuple[int, int]:
    """Linux ``tcp_reno_undo_cwnd`` with the stack's threshold step: ``(max(cwnd,
    prior_cwnd), max(ssthresh, prior_ssthresh))``."""
    return max(cwnd, ev.prior_cwnd), max(ssthresh, ev.prior_ssthresh)


def idle_restart(cwnd: int, ssthresh: int, ev: IdleRestart) -> tuple[int, int]:
    """Linux ``tcp_cwnd_restart``: the new ``(cwnd, ssthresh)`` after an idle period (cwnd
    halved once per RTO of idleness, not below ``min(IW, cwnd)``; ssthresh keeps ¾·cwnd)."""
    ssthresh = max(ssthresh, (cwnd >> 1) + (cwnd >> 2))
    restart = min(ev.initial_window, cwnd)
    w, idle, rto = cwnd, ev.idle, max(ev.rto, 1)
    while True:
        idle -= rto
        if idle <= 0 or w <= restart:
            break
        w >>= 1
    return max(w, restart), ssthresh


def is_cwnd_limited(cwnd: int, in_slow_start: bool, ev: AckEvent) -> bool:
    """Linux ``tcp_is_cwnd_limited``: in slow start ``cwnd < 2·prior_in_flight``, else the
    flight filled ``cwnd`` to within one segment."""
    if in_slow_start:
        return cwnd < 2 * ev.prior_in_flight
    return ev.prior_in_flight + ev.mss > cwnd


# -- used by the simulator (crates/py/src/plugins.rs) ----------------------------------------

def _quoted(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _where(exc: BaseException) -> str:
    """`` (file:line)`` of the innermost frame of `exc`'s traceback, if any."""
    tb = exc.__traceback__
    if tb is None:
        return ""
    while tb.tb_next is not None:
        tb = tb.tb_next
    return f" ({tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})"


def _exc_text(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _import(module: str, base_dir: str):
    """Imports `module`, from the scenario's folder first, then ``sys.path``."""
    first = os.path.abspath(base_dir)
    sys.path.insert(0, first)
    try:
        return importlib.import_module(module)
    finally:
        try:
            sys.path.remove(first)
        except ValueError:
            pass


def _check_type(key: str, value: Any, default: Any) -> Any:
    """`value` for a parameter whose default is `default`, or :class:`PluginInvalid`."""
    def bad(expected: str) -> PluginInvalid:
        return PluginInvalid(f"params.{key}", json.dumps(value) if _jsonable(value) else repr(value), expected)

    if default is None:
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad("a number")
        return float(value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise bad("text")
        return value
    if isinstance(default, (list, tuple)):
        if not isinstance(value, list):
            raise bad("a list")
        return value
    if isinstance(default, Mapping):
        if not isinstance(value, Mapping):
            raise bad("a table")
        return value
    return value


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False


def _resolve(spec: str, params_json: str, base_dir: str, given: Optional[Mapping[str, Any]],
             what: str = "controller") -> tuple[type, Params]:
    """The class named `spec` (``module:Class``) and its checked parameters, or
    :class:`PluginInvalid` naming the key; `what` is ``"controller"`` (a
    :class:`CongestionControl`) or ``"queue discipline"`` (a :class:`QueueDiscipline`)."""
    base = QueueDiscipline if what == "queue discipline" else CongestionControl
    module, _, qual = spec.partition(":")
    if given is not None and spec in given:
        cls = given[spec]
    else:
        try:
            mod = _import(module, base_dir)
        except ModuleNotFoundError as e:
            if e.name is not None and module.startswith(e.name) and (e.name == module or module[len(e.name)] == "."):
                raise PluginInvalid("class", _quoted(spec), f"a module {module!r} in the scenario's folder "
                                    f"({os.path.abspath(base_dir)}) or on sys.path") from None
            raise PluginInvalid("class", _quoted(spec), f"a module that imports (importing {module} raised "
                                f"{_exc_text(e)}{_where(e)})") from None
        except Exception as e:  # noqa: BLE001 - any error in the module's code is the user's to see
            raise PluginInvalid("class", _quoted(spec), f"a module that imports (importing {module} raised "
                                f"{_exc_text(e)}{_where(e)})") from None
        cls = mod
        for part in qual.split("."):
            cls = getattr(cls, part, None)
            if cls is None:
                raise PluginInvalid("class", _quoted(spec), f"a class {qual!r} in module {module} "
                                    f"({getattr(mod, '__file__', None) or module})")
    if not (isinstance(cls, type) and issubclass(cls, base)):
        found = f"class {cls.__name__}" if isinstance(cls, type) else type(cls).__name__
        raise PluginInvalid("class", _quoted(spec), f"a subclass of cellshare.plugins.{base.__name__} (found a {found})")
    required = REQUIRED if base is CongestionControl else ()
    missing = [h for h in required if getattr(cls, h) is getattr(base, h)]
    if missing:
        raise PluginInvalid("class", _quoted(spec), f"a controller defining {', '.join(missing)} (the required hooks: "
                            f"{', '.join(REQUIRED)})")
    declared = cls.PARAMS
    if not isinstance(declared, Mapping):
        raise PluginInvalid("class", _quoted(spec), f"a class whose PARAMS is a mapping of parameter names to defaults "
                            f"(found {type(declared).__name__})")
    given_params = json.loads(params_json)
    values = dict(declared)
    for k, v in given_params.items():
        if k not in declared:
            known = ", ".join(declared) if declared else f"none: {cls.__name__}.PARAMS declares no parameters"
            raise PluginInvalid(f"params.{k}", json.dumps(v), f"one of {cls.__name__}'s parameters ({known})")
        values[k] = _check_type(k, v, declared[k])
    params = Params(values)
    try:
        cls.check_params(params)
    except ParamError as e:
        shown = json.dumps(e.value) if _jsonable(e.value) else repr(e.value)
        raise PluginInvalid(f"params.{e.key}", shown, e.expected) from None
    except Exception as e:  # noqa: BLE001 - a check that breaks is reported as the entry's error
        raise PluginInvalid("params", json.dumps(given_params), f"parameters {cls.__name__}.check_params accepts "
                            f"(it raised {_exc_text(e)}{_where(e)})") from None
    return cls, params


#: The hooks in the order crates/py/src/plugins.rs reads them.
_HOOKS = ("on_ack", "on_congestion_event", "on_timeout", "on_timeout_again", "on_sent", "on_recovery_end", "undo_cwnd",
          "on_idle_restart", "on_established", "on_timer", "cwnd", "ssthresh", "pacing_rate", "paused", "poll_timeout",
          "trace")
#: Always called (the required ones, and on_timeout_again, whose default calls on_timeout).
_ALWAYS = frozenset(REQUIRED + ("on_timeout_again",))


def _instantiate(cls: type, ctx: CcContext, params: Params) -> list:
    """A controller of one flow and its bound hooks (None for an optional hook the class
    leaves at its default)."""
    obj = cls(ctx, params)
    out = []
    for name in _HOOKS:
        if name in _ALWAYS or getattr(cls, name) is not getattr(CongestionControl, name):
            out.append(getattr(obj, name))
        else:
            out.append(None)
    return out


def _instantiate_qdisc(cls: type, ctx: QueueContext, params: Params) -> tuple:
    """The discipline of one queue: its bound ``on_enqueue`` and ``on_dequeue`` (None for a
    hook the class leaves at its default)."""
    obj = cls(ctx, params)
    return tuple(getattr(obj, name) if getattr(cls, name) is not getattr(QueueDiscipline, name) else None
                 for name in ("on_enqueue", "on_dequeue"))


def _hook_error(spec: str, hook: str, exc: BaseException, what: str = "controller") -> str:
    """The one line a run stops with when `hook` of the `what` (controller, queue
    discipline) `spec` raised `exc`."""
    return f"python {what} {spec}: {hook} raised {_exc_text(exc)}{_where(exc)}"


def _classes_of(scenario: Any) -> tuple[Any, dict]:
    """`scenario` (a mapping) with every ``class`` of a ``kind = "python"`` controller or queue
    discipline given as a class object replaced by its ``module:Class`` name, and those classes by name. Tables
    and lists holding none are kept as they are (a malformed scenario is left for the
    scenario's own checks to report)."""
    found: dict[str, type] = {}
    on_path: set[int] = set()

    def walk(v: Any, depth: int) -> Any:
        if not isinstance(v, (Mapping, list, tuple)) or id(v) in on_path or depth > 64:
            return v
        on_path.add(id(v))
        try:
            if isinstance(v, Mapping):
                out = {k: walk(x, depth + 1) for k, x in v.items()}
                cls = out.get("class")
                if out.get("kind") == "python" and isinstance(cls, type):
                    name = f"{cls.__module__}:{cls.__qualname__}"
                    if found.setdefault(name, cls) is not cls:
                        raise _core.ScenarioInvalid(f"two different plug-in classes are named {name}: give them "
                                                    "distinct names", "", "")
                    out["class"] = name
                changed = any(out[k] is not x for k, x in v.items())
            else:
                out = [walk(x, depth + 1) for x in v]
                changed = any(a is not b for a, b in zip(out, v))
            return out if changed else v
        finally:
            on_path.discard(id(v))

    return walk(scenario, 0), found
