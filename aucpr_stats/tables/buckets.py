"""The grouped builder for few large groups: rows into (group, class) buckets, value sorts, merges, on threads.

:func:`tie_table_by_buckets` is the road :func:`~aucpr_stats.tables.build.tie_table_from_rows`
takes with at least ``Tuning.bucket_min_rows`` (:mod:`.tuning`) rows per
group: :func:`sorted_class_buckets` places every row in its (group, class)
bucket and sorts each bucket by value, and :func:`merge_class_buckets`
merges each group's two classes (:func:`~aucpr_stats.tables.class_merge.merge_sorted_classes`).
:mod:`.class_sort` keeps the sorted buckets and merges them only when read.
"""

from __future__ import annotations

import numpy as np

from ..resample.threads import thread_map, worker_threads
from ..ties import TieTable
from .class_merge import merge_sorted_classes
from .tuning import DEFAULT_TUNING, Tuning

__all__ = ["tie_table_by_buckets", "bucket_order", "sorted_class_buckets", "merge_class_buckets",
           "plus_zero_groups"]

# The grouped builder cuts its rows into ranges of 2**range_bits rows (their scores, 1 MB, stay in cache)
# with 32-bit bucket keys, up to 2**(32 - range_bits) buckets; more buckets take 64-bit keys, one range
# per thread (Tuning).


def bucket_order(bucket: np.ndarray, n_buckets: int, key32_bits: int = DEFAULT_TUNING.key32_bits) -> np.ndarray:
    """Row indices ordered by bucket, stably: ``np.argsort(bucket, kind="stable")``, by one value sort.

    Each row's key is its bucket in the high bits and its row index in the
    low bits, so the keys are distinct and their ascending order is the
    stable order by bucket; a value sort of integers costs a fraction of an
    argsort. When the two fit in 32 bits the keys (and the indices returned)
    are uint32, which sort about twice as fast as uint64. Falls back to the
    stable argsort when they do not fit in 64 bits.
    """
    n = bucket.size
    index_bits = max(int(n - 1).bit_length(), 1)
    bits = index_bits + max(int(n_buckets - 1).bit_length(), 1)
    if bits > 64:  # pragma: no cover - > 2**40 rows
        return np.argsort(bucket, kind="stable")
    dtype = np.uint32 if bits <= key32_bits else np.uint64
    key = bucket.astype(dtype) << dtype(index_bits)
    key |= np.arange(n, dtype=dtype)
    key.sort()
    key &= dtype((1 << index_bits) - 1)
    return key if dtype is np.uint32 else key.view(np.int64)


def tie_table_by_buckets(group: np.ndarray, score: np.ndarray, positive: np.ndarray, n_groups: int,
                         tuning: Tuning = DEFAULT_TUNING) -> TieTable:
    """:func:`~aucpr_stats.tables.build.tie_table_from_rows` for few large groups: buckets, value sorts, merges."""
    plus_zero = plus_zero_groups(group, score, n_groups)
    return merge_class_buckets(*sorted_class_buckets(group, score, positive, n_groups, tuning), plus_zero, tuning)


def _builder_threads(n_rows: int, tuning: Tuning) -> int:
    return min(worker_threads(), max(1, n_rows // max(tuning.bucket_parallel_min_rows, 1)))


def _group_ranges(group_rows: np.ndarray, threads: int) -> list[np.ndarray]:
    """The groups with rows, as consecutive runs of about equal rows, one per thread."""
    filled = np.flatnonzero(group_rows)
    cut = np.searchsorted(np.cumsum(group_rows[filled]), np.arange(1, threads) * (group_rows.sum() / threads))
    return np.split(filled, cut)


def sorted_class_buckets(group: np.ndarray, score: np.ndarray, positive: np.ndarray, n_groups: int,
                         tuning: Tuning = DEFAULT_TUNING) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scores of every (group, class) bucket, each sorted ascending, in one buffer.

    Bucket ``2k`` holds the negatives of group ``k`` and bucket ``2k + 1`` its
    positives. The rows are put into buckets by one value sort of packed
    integer keys (:func:`bucket_order`) per range of rows, the ranges on the
    threads; each range's scores of each bucket are then copied into place
    and each bucket is value-sorted there (groups split among the threads).

    Returns
    -------
    values : ndarray of float64, shape (n,)
        Bucket ``j`` is ``values[bounds[j]:bounds[j + 1]]``, ascending.
    bounds : ndarray of int64, shape (2 * n_groups + 1,)
    neg_below : ndarray of int64, shape (n_positives,)
        For every positive (group by group, ascending within each), the
        number of negatives of its group with a lower score.
    """
    threads = _builder_threads(score.size, tuning)
    key32_bits, range_bits = tuning.key32_bits, tuning.range_bits
    n_ranges = threads
    bucket_bits = max(int(2 * n_groups - 1).bit_length(), 1)
    if bucket_bits + range_bits <= key32_bits:
        # ranges of 2**range_bits rows: (bucket, row) keys of 32 bits sort twice as fast as
        # 64-bit ones, and a range's scores stay in cache while they are gathered by bucket
        n_ranges = max(1, -(-score.size // (1 << range_bits)))
    rows = np.linspace(0, score.size, n_ranges + 1).astype(np.int64)

    def bucketed(i: int) -> tuple[np.ndarray, np.ndarray]:
        """Scores of rows ``rows[i]:rows[i + 1]`` by bucket (2k: negatives of group k, 2k + 1: positives)."""
        a, b = rows[i], rows[i + 1]
        index_bits = max(int(b - a - 1).bit_length(), 1)
        if index_bits + bucket_bits > key32_bits:
            bucket = group[a:b] * 2
            bucket += positive[a:b]
            ends = np.cumsum(np.bincount(bucket, minlength=2 * n_groups))
            return score[a:b][bucket_order(bucket, 2 * n_groups, key32_bits)], np.concatenate(([0], ends))
        # bucket_order with 32-bit keys built in place; the bucket bounds read off the sorted keys
        key = group[a:b].astype(np.uint32)
        key <<= np.uint32(1)
        key |= positive[a:b]
        key <<= np.uint32(index_bits)
        key |= np.arange(b - a, dtype=np.uint32)
        key.sort()
        bounds = np.append(np.searchsorted(key, np.arange(2 * n_groups, dtype=np.uint32) << np.uint32(index_bits)),
                           b - a)
        key &= np.uint32((1 << index_bits) - 1)
        return score[a:b][key], bounds

    pieces = thread_map(bucketed, range(n_ranges), threads)  # ranges of rows on the threads
    piece_sizes = np.diff(np.stack([b for _, b in pieces]), axis=1)  # rows of bucket j in range i: [i, j]
    sizes = piece_sizes.sum(axis=0)
    bounds = np.zeros(2 * n_groups + 1, dtype=np.int64)
    np.cumsum(sizes, out=bounds[1:])
    if len(pieces) == 1:
        values = pieces[0][0]  # already in bucket order
    else:
        values = np.empty(score.size)
        # range i's rows of bucket j go after those of the earlier ranges
        starts = bounds[:-1] + np.cumsum(piece_sizes, axis=0) - piece_sizes

        def place(i: int) -> None:
            scores, piece_bounds = pieces[i]
            to = np.repeat(starts[i] - piece_bounds[:-1], piece_sizes[i])
            to += np.arange(scores.size)
            values[to] = scores

        thread_map(place, range(n_ranges), threads)
        pieces.clear()  # the bucketed scores of each range are freed here

    pos_at = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(sizes[1::2], out=pos_at[1:])
    neg_below = np.empty(pos_at[-1], dtype=np.int64)

    def sort_groups(groups: np.ndarray) -> None:  # each bucket alone: the same values on any thread
        for k in groups:
            values[bounds[2 * k]: bounds[2 * k + 1]].sort()
            values[bounds[2 * k + 1]: bounds[2 * k + 2]].sort()
            # while the group is in cache: each positive's place among its negatives
            neg_below[pos_at[k]: pos_at[k + 1]] = np.searchsorted(values[bounds[2 * k]: bounds[2 * k + 1]],
                                                                  values[bounds[2 * k + 1]: bounds[2 * k + 2]])

    thread_map(sort_groups, _group_ranges(sizes[0::2] + sizes[1::2], threads), threads)
    return values, bounds, neg_below


def merge_class_buckets(values: np.ndarray, bounds: np.ndarray, neg_below: np.ndarray,
                        plus_zero: np.ndarray, tuning: Tuning = DEFAULT_TUNING) -> TieTable:
    """The tie table of every group from its sorted class buckets (see :func:`sorted_class_buckets`).

    Each group's two classes are merged as for one group
    (:func:`merge_sorted_classes`, with each positive's ``neg_below``), groups
    split among threads. A score of
    zero reads 0.0 in the groups flagged in ``plus_zero``
    (:func:`plus_zero_groups`: a tie of 0.0 and -0.0 reads 0.0, as the
    descending order of bit patterns puts 0.0 first), -0.0 in the others.
    """
    n_groups = (bounds.size - 1) // 2
    sizes = np.diff(bounds)
    threads = _builder_threads(values.size, tuning)

    pos_at = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(sizes[1::2], out=pos_at[1:])

    def merged(groups: np.ndarray) -> list[TieTable]:  # each group alone: the same table on any thread
        return [merge_sorted_classes(values[bounds[2 * k + 1]: bounds[2 * k + 2]],
                                     values[bounds[2 * k]: bounds[2 * k + 1]], neg_below[pos_at[k]: pos_at[k + 1]])
                for k in groups]

    group_rows = sizes[0::2] + sizes[1::2]
    parts = [t for piece in thread_map(merged, _group_ranges(group_rows, threads), threads) for t in piece]
    lengths = np.zeros(n_groups, dtype=np.int64)
    lengths[group_rows > 0] = [p.n_rows for p in parts]
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    out_score = np.concatenate([p.score for p in parts]) if parts else np.empty(0)
    zero = out_score == 0.0
    if zero.any():
        row_group = np.repeat(np.arange(n_groups), lengths)
        out_score[zero] = np.where(plus_zero[row_group[zero]], 0.0, -0.0)
    pos_counts = np.concatenate([p.pos for p in parts]) if parts else np.empty(0, dtype=np.int64)
    neg_counts = np.concatenate([p.neg for p in parts]) if parts else np.empty(0, dtype=np.int64)
    return TieTable(out_score, pos_counts, neg_counts, offsets)


def plus_zero_groups(group: np.ndarray, score: np.ndarray, n_groups: int) -> np.ndarray:
    """One flag per group: whether it holds a score 0.0 (not -0.0).

    Read from the rows, before any sort: numpy's vectorised sorts may swap
    the bit patterns of 0.0 and -0.0 (they compare equal).
    """
    plus = np.zeros(n_groups, dtype=bool)
    zero = score == 0.0
    if zero.any():
        plus[group[zero & ~np.signbit(score)]] = True
    return plus
