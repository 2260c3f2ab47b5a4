"""Where the table factory switches roads: thresholds that change speed, never the table.

Every road of the factory gives the same :class:`~aucpr_stats.ties.TieTable`,
bit for bit; these thresholds only choose the fastest one for the data's
shape and the machine. They are a parameter of the builders (and of a
:class:`~aucpr_stats.request.Request`), so tests reach every road on small
data by passing a :class:`Tuning` instead of patching module constants.
"""

from __future__ import annotations

import attrs

__all__ = ["Tuning", "DEFAULT_TUNING"]


def _positive(instance, attribute, value) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"`{attribute.name}` must be an integer >= 0; got {value!r}")


@attrs.frozen
class Tuning:
    """The thresholds of the table factory's roads.

    Attributes
    ----------
    bucket_min_rows : int
        Rows per group (on average) from which rows go through (group, class)
        buckets and value sorts instead of one packed-key argsort (256).
    bucket_parallel_min_rows : int
        Rows from which the grouped builder sorts and merges on several
        threads (2**18).
    range_bits : int
        The grouped builder cuts its rows into ranges of ``2**range_bits``
        rows, whose scores stay in cache (17).
    key32_bits : int
        Bucket keys of at most this many bits are sorted as uint32 (32; a
        smaller value reaches the uint64 road on small data).
    class_sort_parallel_min_rows : int
        Rows from which the classes of one group are sorted in several
        ranges of values, one thread each (2**20); also the rows from which
        a deferred grouped table collapses its groups on several threads.
    value_ranges : int or None
        How many ranges of values one group's scores are cut into when they
        are sorted in parallel: None for one per polars thread (at most 16).
    """

    bucket_min_rows: int = attrs.field(default=256, validator=_positive)
    bucket_parallel_min_rows: int = attrs.field(default=1 << 18, validator=_positive)
    range_bits: int = attrs.field(default=17, validator=_positive)
    key32_bits: int = attrs.field(default=32, validator=_positive)
    class_sort_parallel_min_rows: int = attrs.field(default=1 << 20, validator=_positive)
    value_ranges: int | None = None


#: The thresholds every call uses unless told otherwise.
DEFAULT_TUNING = Tuning()
