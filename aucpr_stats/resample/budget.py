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

__all__ = ["REPLICATE_BUDGET", "available_memory", "check_allocation", "group_batches"]

#: Replicate values (float64) held at once by a batched bootstrap: 8 Mi values, 64 MiB.
REPLICATE_BUDGET = 8 * 2**20

#: Share of the available memory one array may take before the request is refused.
_SHARE = 0.8


def available_memory() -> int | None:
    """Bytes of physical memory available now (Linux and most Unixes), or None when it cannot be read."""
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - platform without sysconf
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
