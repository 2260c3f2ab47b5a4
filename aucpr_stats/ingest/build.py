"""Tie tables from rows in memory: the builders every in-memory input path uses.

Each builder takes numpy arrays (rows, cells with counts, or the sorted scores
of each class) and returns a :class:`~aucpr_stats.ties.TieTable`:

* :func:`tie_table_from_sorted`: rows already sorted by group, then score
  descending (one O(n) pass);
* :func:`tie_table_from_rows`: rows in any order ((group, class) buckets and
  value sorts for few large groups, one packed-key argsort for many small ones);
* :func:`tie_table_from_counts`: rows that carry positive and negative counts
  (cells of a group-by, or the tie rows of finer segments merged into groups);
* :func:`tie_table_from_classes` / :func:`merge_sorted_classes`: one group
  from the scores of each class (value sorts instead of an argsort).
"""

from __future__ import annotations

import numpy as np

from ..resample.threads import thread_map, worker_threads
from ..ties import TieTable

__all__ = ["tie_table_from_sorted", "tie_table_from_rows", "tie_table_from_counts", "tie_table_from_classes",
           "tie_table_from_class_buffers", "merge_sorted_classes", "distinct_ascending", "bucket_order",
           "sorted_class_buckets", "merge_class_buckets", "plus_zero_groups", "BUCKET_MIN_ROWS", "RANGE_BITS",
           "KEY32_BITS"]


def tie_table_from_sorted(group: np.ndarray, score: np.ndarray, positive: np.ndarray,
                          n_groups: int) -> TieTable:
    """Build the tie table from rows already sorted by group, then score descending.

    Parameters
    ----------
    group : ndarray of int, shape (n,)
        Group index of each row, non-decreasing, in ``[0, n_groups)``.
    score : ndarray of float64, shape (n,)
        Scores, descending within each group.
    positive : ndarray of bool, shape (n,)
        Outcome of each row.
    n_groups : int
        Number of groups; groups with no rows become empty segments.

    Returns
    -------
    TieTable
        One segment per group. This is a single O(n) pass: a run starts where
        the group or the score changes, and counts are summed per run.
    """
    n = score.shape[0]
    if n == 0:
        return TieTable(np.empty(0), np.empty(0), np.empty(0), np.zeros(n_groups + 1))
    new_run = np.empty(n, dtype=bool)
    new_run[0] = True
    np.not_equal(score[1:], score[:-1], out=new_run[1:])
    new_run[1:] |= group[1:] != group[:-1]
    starts = np.flatnonzero(new_run)
    pos = np.add.reduceat(positive.astype(np.int64, copy=False), starts)
    size = np.diff(np.append(starts, n))
    run_group = group[starts]
    per_group = np.bincount(run_group, minlength=n_groups)
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(per_group, out=offsets[1:])
    return TieTable(score[starts], pos, size - pos, offsets)


def distinct_ascending(values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Distinct values of a sorted array, their counts and the index of each one's first element.

    Counts and first indices are None when every value occurs once (the
    common case of continuous scores, found in one comparison pass).
    """
    if values.size < 2:
        return values, None, None
    new_run = values[1:] != values[:-1]
    if new_run.all():
        return values, None, None
    starts = np.flatnonzero(np.concatenate(([True], new_run)))
    return values[starts], np.diff(np.append(starts, values.size)), starts


def _sorted(values: np.ndarray, in_place: bool) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    if in_place and values.flags.writeable and values.flags.c_contiguous and values.ndim == 1:
        values.sort()
        return values
    return np.sort(values)


def tie_table_from_classes(pos_scores: np.ndarray, neg_scores: np.ndarray, *,
                           overwrite_input: bool = False) -> TieTable:
    """Build the one-segment tie table from the scores of each class, in any order.

    The fast path for ungrouped data. An argsort of all rows (to carry each
    outcome along with its score) costs about six times a value sort, so each
    class is value-sorted instead (``np.sort``) and reduced to distinct values
    with counts. The two sorted runs are then merged by counting, for every
    distinct positive value, the negative values below it (a binary search
    among the negatives): that count plus the value's own rank is its place in
    the merged table.

    Parameters
    ----------
    pos_scores, neg_scores : ndarray of float64
        Scores of the positives and of the negatives; finite, any order.
    overwrite_input : bool
        Sort writable float64 inputs in place instead of sorting a copy (saves
        a copy when the caller has no further use for them).

    Returns
    -------
    TieTable
        One segment: the distinct scores of both classes, descending, with
        their positive and negative counts.
    """
    def own(values):  # a buffer the builder may sort in place
        values = np.asarray(values, dtype=np.float64)
        return values if overwrite_input else values.copy()

    return tie_table_from_class_buffers([own(pos_scores), own(neg_scores)])


def tie_table_from_class_buffers(buffers: list[np.ndarray]) -> TieTable:
    """:func:`tie_table_from_classes` from a list ``[positive scores, negative scores]`` it may consume.

    The arrays are sorted in place when writable, and the list is emptied so
    that the sorted values are freed as soon as they are placed in the table
    (a lower peak memory when the caller keeps no other reference).
    """
    neg_sorted = _sorted(buffers.pop(), True)
    pos_sorted = _sorted(buffers.pop(), True)
    return merge_sorted_classes(pos_sorted, neg_sorted)


def merge_sorted_classes(pos_sorted: np.ndarray, neg_sorted: np.ndarray,
                         neg_below: np.ndarray | None = None) -> TieTable:
    """The one-segment tie table of two ascending score arrays, one per class.

    Parameters
    ----------
    pos_sorted, neg_sorted : ndarray of float64
        Scores of the positives and of the negatives, each sorted ascending.
    neg_below : ndarray of int, optional
        For every element of ``pos_sorted``, the number of negatives below it
        (``searchsorted(neg_sorted, pos_sorted, side="left")``), when the
        caller has it already.

    Returns
    -------
    TieTable
        The distinct scores of both classes, descending, with their counts.
        Each class is reduced to distinct values with counts, and the two
        runs are merged by counting, for every distinct positive value, the
        distinct negative values below it: that count plus the value's own
        rank is its place in the merged table.
    """
    pos_values, pos_counts, pos_starts = distinct_ascending(pos_sorted)
    neg_values, neg_counts, _ = distinct_ascending(neg_sorted)
    n_a, n_b = pos_values.size, neg_values.size
    if neg_below is not None and neg_counts is None:
        # every negative value is distinct: elements below = distinct values below
        below = np.asarray(neg_below if pos_starts is None else neg_below[pos_starts], dtype=np.int64)
    else:
        below = np.searchsorted(neg_values, pos_values, side="left")  # negative values < each positive value
    if n_b:
        shared = neg_values[np.minimum(below, n_b - 1)] == pos_values  # value present in both classes
    else:
        shared = np.zeros(n_a, dtype=bool)
    n_shared = int(np.count_nonzero(shared))
    m = n_a + n_b - n_shared
    # ascending place of each positive value in the union of values: the
    # positive values below it, plus the negative values below it, minus the
    # values counted twice (shared values below it)
    place = np.arange(n_a, dtype=np.int64) + below
    if n_shared:
        place -= np.cumsum(shared) - shared
    at = (m - 1) - place  # descending place
    if pos_counts is None and neg_counts is None and not n_shared:
        # every value occurs once (continuous scores): counts are 0/1 flags
        is_pos = np.zeros(m, dtype=bool)
        is_pos[at] = True
        score = np.empty(m)
        score[at] = pos_values
        score[~is_pos] = neg_values[::-1]
        del pos_values, neg_values
        pos = is_pos.astype(np.int64)
        return TieTable(score, pos, 1 - pos, np.array([0, m]))
    # the negative values occupy every place not taken by a positive-only value
    neg_slot = np.ones(m, dtype=bool)
    neg_slot[at[~shared]] = False
    score = np.empty(m)
    score[neg_slot] = neg_values[::-1]
    score[at] = pos_values
    pos = np.zeros(m, dtype=np.int64)
    pos[at] = 1 if pos_counts is None else pos_counts
    neg = np.zeros(m, dtype=np.int64)
    neg[neg_slot] = 1 if neg_counts is None else neg_counts[::-1]
    return TieTable(score, pos, neg, np.array([0, m]))


def _descending_key(score: np.ndarray) -> np.ndarray:
    """uint64 keys whose ascending order is the descending order of the (finite) scores."""
    bits = score.view(np.uint64)
    # IEEE 754 bit patterns: a negative float sorts (as an unsigned integer)
    # above every positive one and further up the more negative it is, which is
    # the descending order already; a positive float needs its magnitude bits
    # inverted. key = bits XOR (0x7FF...F if positive else 0).
    key = bits >> np.uint64(63)
    key -= np.uint64(1)  # all ones for positives, 0 for negatives (wraps)
    key &= np.uint64(0x7FFF_FFFF_FFFF_FFFF)
    key ^= bits
    return key


def tie_table_from_rows(group: np.ndarray, score: np.ndarray, positive: np.ndarray, n_groups: int) -> TieTable:
    """Build the tie tables of all groups from rows in any order.

    Two exact roads give the same table, bit for bit:

    * few large groups (at least :data:`BUCKET_MIN_ROWS` rows per group on
      average): the rows are put into (group, class) buckets by one value
      sort of packed integer keys (:func:`bucket_order`), each bucket's
      scores are value-sorted and the two classes of each group are merged as
      for one group (:func:`merge_sorted_classes`). Value sorts cost about a
      sixth of an argsort; the per-group work is a few numpy calls.
    * many small groups: one argsort of a single uint64 key, the group index
      in the high bits and the score's order-preserving bit pattern
      (descending) in the rest. With ``b`` bits for the group, the lowest
      ``b`` bits of the score pattern are dropped from the key, so two
      distinct scores of one group that agree in all other bits can come out
      of order; such groups are detected (a score rising within a group) and
      re-sorted exactly.

    Ungrouped data (``n_groups == 1``) goes to :func:`tie_table_from_classes`.

    Parameters
    ----------
    group : ndarray of int, shape (n,)
        Group index of each row in ``[0, n_groups)``.
    score : ndarray of float64, shape (n,)
        Finite scores.
    positive : ndarray of bool, shape (n,)
    n_groups : int

    Returns
    -------
    TieTable
        One segment per group (empty for groups without rows). Where a tie
        holds both 0.0 and -0.0, its score is 0.0.
    """
    score = np.ascontiguousarray(score, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    if n_groups == 1:
        return tie_table_from_class_buffers([score[positive], score[~positive]])
    group = np.asarray(group, dtype=np.int64)
    if score.size >= BUCKET_MIN_ROWS * n_groups:
        return _tie_table_by_buckets(group, score, positive, n_groups)
    return _tie_table_by_packed_key(group, score, positive, n_groups)


#: Rows from which the grouped builder sorts and merges groups on several threads.
PARALLEL_MIN_ROWS = 1 << 18

#: Rows per group (on average) from which :func:`tie_table_from_rows` sorts buckets instead of one argsort.
BUCKET_MIN_ROWS = 256

#: The grouped builder cuts its rows into ranges of ``2**RANGE_BITS`` rows (their scores, 1 MB, stay in
#: cache) with 32-bit bucket keys, up to 2**(32 - RANGE_BITS) buckets; more buckets take 64-bit keys,
#: one range per thread.
RANGE_BITS = 17

#: Bucket keys of at most this many bits are sorted as uint32 (32; the tests lower it to reach the uint64 road).
KEY32_BITS = 32


def bucket_order(bucket: np.ndarray, n_buckets: int) -> np.ndarray:
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
    dtype = np.uint32 if bits <= KEY32_BITS else np.uint64
    key = bucket.astype(dtype) << dtype(index_bits)
    key |= np.arange(n, dtype=dtype)
    key.sort()
    key &= dtype((1 << index_bits) - 1)
    return key if dtype is np.uint32 else key.view(np.int64)


def _tie_table_by_buckets(group: np.ndarray, score: np.ndarray, positive: np.ndarray, n_groups: int) -> TieTable:
    """:func:`tie_table_from_rows` for few large groups: (group, class) buckets, value sorts, merges."""
    plus_zero = plus_zero_groups(group, score, n_groups)
    return merge_class_buckets(*sorted_class_buckets(group, score, positive, n_groups), plus_zero)


def _builder_threads(n_rows: int) -> int:
    return min(worker_threads(), max(1, n_rows // PARALLEL_MIN_ROWS))


def _group_ranges(group_rows: np.ndarray, threads: int) -> list[np.ndarray]:
    """The groups with rows, as consecutive runs of about equal rows, one per thread."""
    filled = np.flatnonzero(group_rows)
    cut = np.searchsorted(np.cumsum(group_rows[filled]), np.arange(1, threads) * (group_rows.sum() / threads))
    return np.split(filled, cut)


def sorted_class_buckets(group: np.ndarray, score: np.ndarray, positive: np.ndarray,
                         n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    threads = _builder_threads(score.size)
    n_ranges = threads
    bucket_bits = max(int(2 * n_groups - 1).bit_length(), 1)
    if bucket_bits + RANGE_BITS <= KEY32_BITS:
        # ranges of 2**RANGE_BITS rows: (bucket, row) keys of 32 bits sort twice as fast as
        # 64-bit ones, and a range's scores stay in cache while they are gathered by bucket
        n_ranges = max(1, -(-score.size // (1 << RANGE_BITS)))
    rows = np.linspace(0, score.size, n_ranges + 1).astype(np.int64)

    def bucketed(i: int) -> tuple[np.ndarray, np.ndarray]:
        """Scores of rows ``rows[i]:rows[i + 1]`` by bucket (2k: negatives of group k, 2k + 1: positives)."""
        a, b = rows[i], rows[i + 1]
        index_bits = max(int(b - a - 1).bit_length(), 1)
        if index_bits + bucket_bits > KEY32_BITS:
            bucket = group[a:b] * 2
            bucket += positive[a:b]
            ends = np.cumsum(np.bincount(bucket, minlength=2 * n_groups))
            return score[a:b][bucket_order(bucket, 2 * n_groups)], np.concatenate(([0], ends))
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
                        plus_zero: np.ndarray) -> TieTable:
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
    threads = _builder_threads(values.size)

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


def _tie_table_by_packed_key(group: np.ndarray, score: np.ndarray, positive: np.ndarray,
                             n_groups: int) -> TieTable:
    """:func:`tie_table_from_rows` for many small groups: one argsort of a packed (group, score) key."""
    row_offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(group, minlength=n_groups), out=row_offsets[1:])
    group_bits = max(int(n_groups - 1).bit_length(), 1)
    key = _descending_key(score)
    key >>= np.uint64(group_bits)
    key |= group.astype(np.uint64) << np.uint64(64 - group_bits)
    order = np.argsort(key)
    del key
    ordered_score = score[order]
    # a score that rises within a group: the truncated key tied two distinct scores
    rising = ordered_score[1:] > ordered_score[:-1]
    rising[row_offsets[1:-1][(row_offsets[1:-1] > 0) & (row_offsets[1:-1] < score.size)] - 1] = False
    if rising.any():
        bad_groups = np.unique(np.searchsorted(row_offsets, np.flatnonzero(rising), side="right") - 1)
        lengths = row_offsets[bad_groups + 1] - row_offsets[bad_groups]
        rows = np.repeat(row_offsets[bad_groups] - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        exact = np.lexsort((-ordered_score[rows], np.repeat(bad_groups, lengths)))
        order[rows] = order[rows][exact]
        ordered_score = score[order]
    return _tie_table_from_grouped_rows(ordered_score, positive[order], row_offsets)


def _tie_table_from_grouped_rows(score: np.ndarray, positive: np.ndarray, row_offsets: np.ndarray) -> TieTable:
    """Tie table of rows sorted by group then score descending; group ``k`` is rows ``row_offsets[k]:[k+1]``."""
    n = score.size
    if n == 0:
        return TieTable(np.empty(0), np.empty(0), np.empty(0), np.zeros(row_offsets.size, dtype=np.int64))
    new_run = np.empty(n, dtype=bool)
    new_run[0] = True
    np.not_equal(score[1:], score[:-1], out=new_run[1:])
    new_run[row_offsets[:-1][row_offsets[:-1] < n]] = True  # a group's first row starts a run
    if new_run.all():  # no ties: every row is its own run
        pos = positive.astype(np.int64)
        return TieTable(score, pos, 1 - pos, row_offsets)
    starts = np.flatnonzero(new_run)
    # positives per run from a running count (reduceat is slow on many short runs)
    running = np.cumsum(positive, dtype=np.int64)
    last = np.append(starts[1:], n) - 1
    pos = running[last] - running[starts] + positive[starts]
    size = last + 1 - starts
    # runs of group k: those starting in rows [row_offsets[k], row_offsets[k+1])
    offsets = np.searchsorted(starts, row_offsets)
    return TieTable(score[starts], pos, size - pos, offsets)


def _counts(values) -> np.ndarray:
    values = np.asarray(values)
    return values.astype(np.float64 if values.dtype.kind == "f" else np.int64, copy=False)


def tie_table_from_counts(group: np.ndarray, score: np.ndarray, pos: np.ndarray, neg: np.ndarray,
                          n_groups: int) -> TieTable:
    """Tie tables of rows that carry counts (cells of a group-by, tie rows of finer segments), in any order.

    Rows of one group with equal scores are summed into one tie row.

    Parameters
    ----------
    group : ndarray of int, shape (n,)
        Group index of each row in ``[0, n_groups)``.
    score : ndarray of float64, shape (n,)
    pos, neg : ndarray of int, shape (n,)
        Positives and negatives the row stands for.
    n_groups : int

    Returns
    -------
    TieTable
        One segment per group (empty for groups without rows).
    """
    group = np.asarray(group, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    order = np.lexsort((-score, group))
    group, score = group[order], score[order]
    pos, neg = _counts(pos)[order], _counts(neg)[order]  # int64, or float64 when weighted
    n = score.size
    new_run = np.ones(n, dtype=bool)
    if n:
        np.not_equal(score[1:], score[:-1], out=new_run[1:])
        new_run[1:] |= group[1:] != group[:-1]
    starts = np.flatnonzero(new_run)
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(group[starts], minlength=n_groups), out=offsets[1:])
    if starts.size == n:
        return TieTable(score, pos, neg, offsets)
    return TieTable(score[starts], np.add.reduceat(pos, starts), np.add.reduceat(neg, starts), offsets)
