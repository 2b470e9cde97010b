"""Running many independent simulations at once: on the local cores (a process pool) or on a
Ray cluster. Sweeps and reproductions both go through :func:`run_parallel`.

Memory stays flat over thousands of runs: at most ``2 × workers`` runs are in flight (the
rest are not even submitted yet), a local worker process is replaced after
``tasks_per_worker`` runs (so nothing a run leaves behind accumulates), and results are
handed to the caller as they complete, so the caller can write them out and drop them.
Workers are started with ``spawn``: no state of the parent (an open Ray session, a loaded
simulator) is inherited. Local workers die with the process that started them (killed with
``kill -9`` too): they would otherwise finish their runs, write into an output folder nobody
owns any more, and wait for work forever.
"""

from __future__ import annotations

import importlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Callable, Iterator, Optional, Sequence

#: Runs a local worker process performs before it is replaced by a fresh one.
TASKS_PER_WORKER = 16


class RayUnavailable(RuntimeError):
    """A Ray address was given but the ``ray`` package is not installed, or Ray cannot be
    started or reached at that address."""


def default_workers() -> int:
    """The number of local worker processes: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def run_parallel(
    fn: Callable[[Any], Any],
    items: Sequence[Any],
    *,
    workers: Optional[int] = None,
    ray_address: Optional[str] = None,
    progress: bool = False,
    description: str = "runs",
    tasks_per_worker: int = TASKS_PER_WORKER,
) -> Iterator[tuple[int, Any]]:
    """Calls ``fn(item)`` for every item and yields ``(index, result)`` as runs complete (in
    completion order, not item order).

    `fn` must be a module-level function and items and results picklable. ``workers=1``
    without Ray runs in this process, one item after the other (no pickling; handy for
    debugging). With `ray_address` (``"auto"``, ``"ray://host:10001"``, or ``"local"`` to
    start a local Ray instance) the runs are Ray tasks and `workers` caps how many are in
    flight (default: the cluster's CPU count). An exception raised by a run is raised here,
    after the runs in flight are cancelled.
    """
    n = len(items)
    bar = _Bar(progress, description, n)
    try:
        if ray_address:
            yield from _run_ray(fn, items, workers, ray_address, bar)
        elif (workers or default_workers()) <= 1 or n <= 1:
            for i, item in enumerate(items):
                r = fn(item)
                bar.advance()
                yield i, r
        else:
            yield from _run_pool(fn, items, workers or default_workers(), tasks_per_worker, bar)
    finally:
        bar.close()


#: How long a new local worker waits for the others to be ready before taking work, s.
READY_TIMEOUT_S = 10.0


#: In a local worker: the pid of the process that started it (None in any other process).
_PARENT_PID: Optional[int] = None
_PR_SET_PDEATHSIG = 1


def parent_gone() -> bool:
    """Whether this is a local worker whose parent is gone (then it must not write anything:
    the output is nobody's any more). False in any other process."""
    return _PARENT_PID is not None and os.getppid() != _PARENT_PID


def _die_with_parent(parent_pid: int) -> None:
    """Makes this worker end when `parent_pid`, the process that started it, ends."""
    global _PARENT_PID
    _PARENT_PID = parent_pid
    # The kernel kills this process when its parent dies, even while a run holds the GIL in the
    # simulator. (The signal follows the parent's thread that started this worker; the pool
    # starts workers from threads that live as long as the pool.)
    try:
        import ctypes

        arg = ctypes.c_ulong  # prctl is variadic and reads unsigned longs
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, arg(signal.SIGKILL), arg(0), arg(0), arg(0))
    except (OSError, AttributeError):  # not Linux: the watch below only
        pass
    # The parent may have died before the line above took effect: then nothing will signal.
    if os.getppid() != parent_pid:
        os._exit(1)
    # And a watch of the pipe the parent holds open while it lives (what multiprocessing gives
    # a spawned child), for systems without the signal.
    try:
        sentinel = multiprocessing.parent_process().sentinel  # type: ignore[union-attr]
    except (AttributeError, ValueError):  # not a spawned child
        return

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="cellshare-parent-watch", daemon=True).start()


def _worker_ready(module: str, ready, workers: int, timeout_s: float, parent_pid: Optional[int] = None) -> None:
    """Initializer of a local worker: ties its life to `parent_pid` (the pool's process),
    imports the run function's module, then waits (at most `timeout_s`) until every
    first-generation worker has done the same, so that a worker still importing does not find
    every run already taken by the first one ready (short runs would otherwise all go to one
    process). Replacement workers find the count reached."""
    if parent_pid is not None:
        _die_with_parent(parent_pid)
    importlib.import_module(module)
    with ready.get_lock():
        ready.value += 1
    deadline = time.monotonic() + timeout_s
    while ready.value < workers and time.monotonic() < deadline:
        time.sleep(0.005)


def _run_pool(fn, items, workers: int, tasks_per_worker: int, bar: "_Bar") -> Iterator[tuple[int, Any]]:
    ctx = multiprocessing.get_context("spawn")
    n = min(workers, len(items))
    kwargs: dict[str, Any] = {"max_workers": n, "mp_context": ctx, "initializer": _worker_ready,
                              "initargs": (fn.__module__, ctx.Value("i", 0), n, READY_TIMEOUT_S, os.getpid())}
    if sys.version_info >= (3, 11):
        kwargs["max_tasks_per_child"] = max(1, tasks_per_worker)
    pending: dict[Future, int] = {}
    it = iter(enumerate(items))
    with ProcessPoolExecutor(**kwargs) as pool:
        try:
            _fill(pool, fn, it, pending, 2 * workers)
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = pending.pop(fut)
                    r = fut.result()
                    bar.advance()
                    yield i, r
                _fill(pool, fn, it, pending, 2 * workers)
        finally:
            for fut in pending:
                fut.cancel()


def _fill(pool, fn, it: Iterator[tuple[int, Any]], pending: dict, limit: int) -> None:
    while len(pending) < limit:
        try:
            i, item = next(it)
        except StopIteration:
            return
        pending[pool.submit(fn, item)] = i


def _run_ray(fn, items, workers: Optional[int], address: str, bar: "_Bar") -> Iterator[tuple[int, Any]]:
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RayUnavailable(f"--ray {address}: needs the 'ray' package: pip install 'cellshare[ray]'") from e
    started = False
    if not ray.is_initialized():
        # "local" always starts a new local instance, even when RAY_ADDRESS names a cluster.
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
        except (ConnectionError, ValueError, RuntimeError) as e:
            raise RayUnavailable(f"--ray {address}: cannot start or reach Ray: {e}") from e
        started = True
    try:
        limit = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote = ray.remote(num_cpus=1)(fn)
        pending: dict[Any, int] = {}
        it = iter(enumerate(items))

        def fill() -> None:
            while len(pending) < 2 * limit:
                try:
                    i, item = next(it)
                except StopIteration:
                    return
                pending[remote.remote(item)] = i

        fill()
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    i = pending.pop(ref)
                    r = ray.get(ref)
                    bar.advance()
                    yield i, r
                fill()
        finally:
            for ref in pending:
                ray.cancel(ref)
    finally:
        if started:
            ray.shutdown()


class _Bar:
    """A rich progress bar when asked for and the terminal is interactive; otherwise nothing."""

    def __init__(self, on: bool, description: str, total: int) -> None:
        self.progress = None
        if on and sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeRemainingColumn(), transient=False)
            self.progress.start()
            self.task = self.progress.add_task(description, total=total)

    def advance(self) -> None:
        if self.progress is not None:
            self.progress.advance(self.task)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None
