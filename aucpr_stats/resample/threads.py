"""How many worker threads the heavy loops use, and a map over them.

The bootstrap's batches of groups and the grouped tie-table builder's groups
are independent pieces of work whose numpy kernels (sorts, bincounts,
cumulative sums, random draws) release the GIL, so two or more threads keep
every core busy. Every piece is computed exactly as it would be alone and the
results are put back in their own order, so the numbers never depend on the
number of threads.
:func:`drain` runs several sequential producers (each one advanced by one
thread at a time, so a producer drawing from its own random streams draws
the same numbers whatever the threads) and consumes their items on the
same threads.

The number of threads is the environment variable ``AUCPR_STATS_THREADS``
when set (1 turns threading off), otherwise the number of cores
(``os.process_cpu_count()`` where available), at most :data:`MAX_THREADS`.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ..exceptions import InputError

__all__ = ["MAX_THREADS", "THREADS_VARIABLE", "drain", "thread_map", "worker_threads"]

#: Upper bound of the default number of threads.
MAX_THREADS = 8

#: The environment variable that sets the number of threads.
THREADS_VARIABLE = "AUCPR_STATS_THREADS"

T = TypeVar("T")
R = TypeVar("R")


def worker_threads(threads: int | None = None) -> int:
    """The number of worker threads: ``threads`` if given, else ``AUCPR_STATS_THREADS``, else the cores (<= 8).

    Raises
    ------
    InputError
        When ``threads`` or the environment variable is not a whole number >= 1.
    """
    source = "threads"
    if threads is None:
        value = os.environ.get(THREADS_VARIABLE, "").strip()
        if not value:
            cores = getattr(os, "process_cpu_count", os.cpu_count)() or 1
            return max(1, min(int(cores), MAX_THREADS))
        source, threads = f"the environment variable {THREADS_VARIABLE}", value
    try:
        number = int(threads)
    except (TypeError, ValueError):
        number = 0
    if number < 1 or str(number) != str(threads).strip():
        raise InputError(f"{source} must be a whole number >= 1 (1: no threads), got {threads!r}")
    return number


def thread_map(fn: Callable[[T], R], items: Iterable[T], threads: int | None = None) -> list[R]:
    """``[fn(x) for x in items]`` on up to ``threads`` threads (default :func:`worker_threads`), in order."""
    items = list(items)
    threads = min(worker_threads(threads), len(items))
    if threads < 2:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(fn, items))


def drain(producers: Iterable[Iterator[T]], consume: Callable[[T], None], threads: int | None = None) -> None:
    """``consume(item)`` for every item of every producer, on up to ``threads`` threads.

    A producer is advanced by one thread at a time (a thread takes it, makes
    one item, and puts it back), so its items are made in order whatever the
    number of threads; items are consumed in any order. A thread consumes a
    waiting item before it makes a new one, so about one item per thread
    waits at a time (bounded memory). With one thread: the producers in turn,
    each item consumed as soon as it is made. An exception in a producer or
    in ``consume`` stops every thread and is raised here.
    """
    producers = list(producers)
    threads = worker_threads(threads)
    if threads < 2:
        for producer in producers:
            for item in producer:
                consume(item)
        return
    idle: deque = deque(producers)  # producers no thread is advancing
    waiting: deque = deque()  # items made, not consumed yet
    state = {"busy": 0, "error": None}
    changed = threading.Condition()

    def work() -> None:
        while True:
            with changed:
                while state["error"] is None and not waiting and not idle and state["busy"]:
                    changed.wait()
                if state["error"] is not None or not (waiting or idle or state["busy"]):
                    changed.notify_all()
                    return
                producer = None if waiting else idle.popleft()
                if producer is None:
                    item = waiting.popleft()
                else:
                    state["busy"] += 1
            try:
                if producer is None:
                    consume(item)
                    continue
                item = next(producer, drain)  # `drain` itself marks the end of a producer
            except BaseException as error:  # noqa: BLE001 - re-raised on the calling thread
                with changed:
                    state["error"] = state["error"] or error
                    changed.notify_all()
                return
            with changed:
                state["busy"] -= 1
                if item is not drain:
                    waiting.append(item)
                    idle.appendleft(producer)  # the same producer first: its items stay close together
                changed.notify_all()

    workers = [threading.Thread(target=work, daemon=True) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if state["error"] is not None:
        raise state["error"]
