"""How many worker threads the heavy loops use, and a map over them.

The bootstrap's batches of groups and the grouped tie-table builder's groups
are independent pieces of work whose numpy kernels (sorts, bincounts,
cumulative sums, random draws) release the GIL, so two or more threads keep
every core busy. Every piece is computed exactly as it would be alone and the
results are put back in their own order, so the numbers never depend on the
number of threads.

The number of threads is the environment variable ``AUCPR_STATS_THREADS``
when set (1 turns threading off), otherwise the number of cores
(``os.process_cpu_count()`` where available), at most :data:`MAX_THREADS`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ..exceptions import InputError

__all__ = ["MAX_THREADS", "THREADS_VARIABLE", "thread_map", "worker_threads"]

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
