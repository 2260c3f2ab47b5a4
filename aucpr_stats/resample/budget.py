"""How much the resampling methods may hold in memory, checked before they allocate.

Two rules keep the work bounded:

* the replicate estimates of ``conf_int(method="bootstrap")`` are computed
  for batches of groups, each batch holding at most :data:`REPLICATE_BUDGET`
  values (64 MiB of float64) besides the chunk tables of
  :mod:`.counts`, so peak memory does not grow with groups x ``n_boot``
  (:func:`group_batches`); a group's replicates do not depend on the batch
  it falls in (its own random stream, its own rows);
* an array whose size does grow with groups x ``n_boot`` (the replicates a
  paired comparison keeps for every pair, or those :func:`bootstrap_estimates
  <aucpr_stats.resample.bootstrap_estimates>` returns) is estimated first, and
  a request larger than the memory available gets a clear error with the
  estimate (:func:`check_allocation`).
"""

from __future__ import annotations

import os

import numpy as np

from ..exceptions import InputError

__all__ = ["REPLICATE_BUDGET", "available_memory", "address_space_left", "cgroup_memory_left", "check_allocation",
           "group_batches", "read_number"]

#: Replicate values (float64) held at once by a batched bootstrap: 8 Mi values, 64 MiB.
REPLICATE_BUDGET = 8 * 2**20

#: Share of the available memory one array may take before the request is refused.
_SHARE = 0.8


def available_memory() -> int | None:
    """Bytes this process may still allocate: the least of what the machine, its limits and its cgroup allow.

    The physical memory available now (``sysconf``), the address-space limit
    (``RLIMIT_AS``, ``ulimit -v``) less what the process already maps, and the
    cgroup's limit less its usage (cgroup v2 ``memory.max``/``memory.current``,
    or v1 ``memory.limit_in_bytes``/``memory.usage_in_bytes``): a container or a
    batch job's limit is often far below the machine's memory. None when none
    can be read.
    """
    candidates = [value for value in (_physical(), address_space_left(), cgroup_memory_left()) if value is not None]
    return min(candidates) if candidates else None


def _physical() -> int | None:
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - platform without sysconf
        return None


def address_space_left() -> int | None:
    """``RLIMIT_AS`` less the process's virtual size, or None without a limit (or off Linux)."""
    try:
        import resource  # lazy: POSIX only

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):  # pragma: no cover - Windows
        return None
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    mapped = read_number("/proc/self/status", field="VmSize:", scale=1024) or 0
    return max(0, int(soft) - mapped)


#: A cgroup v1 limit at or above this many bytes means no limit (the kernel writes a huge page-aligned number).
_NO_CGROUP_LIMIT = 2**60


def cgroup_memory_left() -> int | None:
    """The cgroup's memory limit less its usage (v2, else v1), or None without a limit."""
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit = read_number(limit_file)
        if limit is None or limit >= _NO_CGROUP_LIMIT:
            continue
        return max(0, limit - (read_number(usage_file) or 0))
    return None


def read_number(path: str, field: str | None = None, scale: int = 1) -> int | None:
    """The integer in a /proc or /sys file (after ``field`` when given, times ``scale``); None if unreadable
    or not a number (cgroup v2 writes ``max`` for no limit)."""
    try:
        with open(path, encoding="ascii") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    if field is not None:
        start = text.find(field)
        if start < 0:
            return None
        text = text[start + len(field):].split("\n", 1)[0].replace("kB", "")
    try:
        return int(text.strip()) * scale
    except ValueError:
        return None


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.1f} GiB" if n_bytes >= 2**28 else f"{n_bytes / 2**20:.0f} MiB"


def check_allocation(n_values: int, what: str, advice: str = "lower `n_boot` or split the groups into calls") -> None:
    """Refuse, before allocating, an array of ``n_values`` float64 that would not fit in memory.

    Raises
    ------
    InputError
        With the estimate, the memory available and what to change.
    """
    n_bytes = 8 * int(n_values)
    available = available_memory()
    if available is not None and n_bytes > _SHARE * available:
        raise InputError(f"{what} needs about {_gib(n_bytes)} of memory for its replicates, more than the "
                         f"{_gib(available)} available; {advice}")


def group_batches(n_groups: int, values_per_group: int, budget: int | None = None) -> list[np.ndarray]:
    """Consecutive batches of group indices, each holding at most ``budget`` replicate values (at least one group).

    ``budget`` defaults to :data:`REPLICATE_BUDGET`, read at call time.
    """
    budget = REPLICATE_BUDGET if budget is None else budget
    size = max(1, int(budget) // max(1, int(values_per_group)))
    return [np.arange(start, min(start + size, n_groups), dtype=np.int64) for start in range(0, n_groups, size)]
