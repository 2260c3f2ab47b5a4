"""The tie table: the one data structure every statistic here is computed from.

For each group (a *segment*), the tie table lists the distinct score values in
descending order with the number of positives and negatives at each value
(Radcliffe 2013's triples). Cumulative sums of the counts give the true and
false positives at every threshold that does not split a tie, so every
estimator is a function of the table alone and costs O(distinct scores).

All segments live in flat arrays with an ``offsets`` vector (CSR layout), so
one numpy call serves every group at once: there is no Python loop per group.
The same layout carries bootstrap replicates (one segment per group and
replicate) and cross-validation folds.

Rows whose positive and negative counts are both zero may occur (a bootstrap
replicate that drew no row at a score); they are not thresholds, and every
kernel either tolerates them or calls :meth:`TieTable.compact` first.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["TieTable", "tie_table_from_sorted", "tie_table_from_classes", "tie_table_from_class_buffers",
           "tie_table_from_rows", "merge_sorted_classes"]


def _as_int64(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)


class TieTable:
    """Distinct scores per segment, descending, with positive and negative counts.

    Attributes
    ----------
    score : ndarray of float64, shape (n_rows,)
        Distinct score values, strictly descending within each segment.
    pos, neg : ndarray of int64, shape (n_rows,)
        Number of positives / negatives whose score equals ``score``.
    offsets : ndarray of int64, shape (n_segments + 1,)
        Segment ``k`` occupies rows ``offsets[k]:offsets[k+1]``. Empty
        segments (no rows) are allowed.

    Notes
    -----
    A one-segment table may also be *deferred* (:meth:`deferred`): it holds
    the scores of each class, sorted, and merges them into the arrays above
    only when they are first read. Statistics that depend on the negatives
    only through their counts between consecutive positive rows (average
    precision, the trapezoid estimators, A') read :meth:`collapsed` instead,
    a table with one row per run of negatives, whose size is of the order of
    the number of distinct positive scores. The arrays are never modified in
    place once built.
    """

    def __init__(self, score, pos, neg, offsets) -> None:
        self._set_arrays(np.ascontiguousarray(score, dtype=np.float64), _as_int64(pos), _as_int64(neg),
                         _as_int64(offsets))
        self._source = None
        self._collapsed = None

    def _set_arrays(self, score, pos, neg, offsets) -> None:
        n = score.shape[0]
        if score.ndim != 1 or pos.shape != (n,) or neg.shape != (n,):
            raise ValueError("`score`, `pos` and `neg` must be 1-D arrays of one length")
        if offsets.ndim != 1 or offsets.size < 1 or offsets[0] != 0 or offsets[-1] != n:
            raise ValueError("`offsets` must start at 0 and end at the number of rows")
        self._score, self._pos, self._neg, self._offsets = score, pos, neg, offsets

    @classmethod
    def deferred(cls, source) -> "TieTable":
        """A one-segment table merged from ``source`` only when its arrays are read.

        ``source`` (see :class:`aucpr_stats._class_sort.SortedClasses`) has
        ``n_pos`` and ``n_neg`` (ints), ``full_table()`` and
        ``collapsed_table()`` (both returning eager :class:`TieTable`).
        """
        table = cls.__new__(cls)
        table._score = table._pos = table._neg = table._offsets = None
        table._source = source
        table._collapsed = None
        return table

    def _materialise(self) -> None:
        if self._score is None:
            full = self._source.full_table()
            self._set_arrays(full._score, full._pos, full._neg, full._offsets)
            self._source = None  # the merged arrays replace the sorted classes

    @property
    def is_deferred(self) -> bool:
        """True while the arrays of a deferred table have not been merged yet."""
        return self._score is None

    @property
    def score(self) -> np.ndarray:
        self._materialise()
        return self._score

    @property
    def pos(self) -> np.ndarray:
        self._materialise()
        return self._pos

    @property
    def neg(self) -> np.ndarray:
        self._materialise()
        return self._neg

    @property
    def offsets(self) -> np.ndarray:
        self._materialise()
        return self._offsets

    def positive_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Positive count, true positives and false positives at each row holding positives.

        For a one-segment table, in descending order of score: the rows with
        ``pos > 0``, their count, and the running counts of positives and of
        negatives down to the bottom of each (ties admitted together). A
        deferred table reads them off its sorted classes without merging.
        """
        if self._score is None:
            return self._source.positive_rows()
        if self.n_segments != 1:
            raise ValueError("positive_rows() needs a one-segment table")
        rows = np.flatnonzero(self._pos > 0)  # (a boolean mask scans about twice as fast as int64)
        count = self._pos[rows]
        return count, np.cumsum(count), np.cumsum(self._neg)[rows]

    def collapsed(self) -> "TieTable":
        """The table with every run of negative-only rows merged into one row.

        Within a segment, consecutive rows without positives become one row
        holding their negatives (at the lowest of their scores). The true and
        false positive counts at every row holding positives, and at the last
        row before each, are unchanged; so is every statistic that reads the
        negatives only through those counts. A deferred table builds it from
        the sorted classes without merging them (size of the order of the
        distinct positive scores); an eager table is returned as it is.
        """
        if self._score is not None:
            return self
        if self._collapsed is None:
            self._collapsed = self._source.collapsed_table()
        return self._collapsed

    def __repr__(self) -> str:
        if self.is_deferred:
            return f"TieTable(deferred, n_pos={self._source.n_pos}, n_neg={self._source.n_neg})"
        return f"TieTable(n_segments={self.n_segments}, n_rows={self.n_rows})"

    # ------------------------------------------------------------------ shape
    @property
    def n_segments(self) -> int:
        """Number of segments (groups, or group x replicate)."""
        return 1 if self._score is None else self._offsets.size - 1

    @property
    def n_rows(self) -> int:
        """Total number of tie rows over all segments."""
        return self.score.shape[0]

    @property
    def lengths(self) -> np.ndarray:
        """Number of tie rows in each segment."""
        return np.diff(self.offsets)

    def segment_ids(self) -> np.ndarray:
        """Segment index of every row, shape (n_rows,)."""
        return np.repeat(np.arange(self.n_segments, dtype=np.int64), self.lengths)

    # ------------------------------------------------------- segmented sums
    def segment_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` (one per row) within each segment; 0 for empty segments."""
        values = np.asarray(values)
        dtype = np.result_type(values.dtype, np.int64)
        if self.n_segments == 1:
            return np.array([values.sum(dtype=dtype)])
        out = np.zeros(self.n_segments, dtype=dtype)
        # reduceat over the starts of non-empty segments: one pass, no cumulative
        # sum (and no cancellation error for float values)
        nonempty = self.offsets[:-1] < self.offsets[1:]
        if nonempty.any():
            out[nonempty] = np.add.reduceat(values.astype(dtype, copy=False), self.offsets[:-1][nonempty])
        return out

    def segment_cumsum(self, values: np.ndarray) -> np.ndarray:
        """Inclusive cumulative sum of ``values`` restarting at each segment."""
        values = np.asarray(values)
        total = np.cumsum(values)
        if self.n_segments == 1:
            return total
        before = np.zeros(self.n_segments, dtype=total.dtype)
        starts = self.offsets[:-1]
        nonempty = starts < self.offsets[1:]
        before[nonempty] = total[starts[nonempty]] - values[starts[nonempty]]
        return total - np.repeat(before, self.lengths)

    # computed once per table (the arrays are never modified in place)
    @functools.cached_property
    def n_pos(self) -> np.ndarray:
        """Positives per segment."""
        if self._score is None:
            return np.array([self._source.n_pos], dtype=np.int64)
        return self.segment_sum(self.pos)

    @functools.cached_property
    def n_neg(self) -> np.ndarray:
        """Negatives per segment."""
        if self._score is None:
            return np.array([self._source.n_neg], dtype=np.int64)
        return self.segment_sum(self.neg)

    def tp(self) -> np.ndarray:
        """True positives at the threshold just below each row's score (ties kept together)."""
        return self.segment_cumsum(self.pos)

    def fp(self) -> np.ndarray:
        """False positives at the threshold just below each row's score."""
        return self.segment_cumsum(self.neg)

    # ---------------------------------------------------------- reshaping
    def compact(self) -> "TieTable":
        """Drop rows whose positive and negative counts are both zero."""
        keep = (self.pos + self.neg) > 0
        if keep.all():
            return self
        kept_per_segment = self.segment_sum(keep.astype(np.int64))
        offsets = np.zeros(self.n_segments + 1, dtype=np.int64)
        np.cumsum(kept_per_segment, out=offsets[1:])
        return TieTable(self.score[keep], self.pos[keep], self.neg[keep], offsets)

    def take(self, segments) -> "TieTable":
        """A new table holding only the given segments, in the given order."""
        segments = np.asarray(segments, dtype=np.int64)
        if segments.size and np.all(segments[1:] > segments[:-1]):
            # a subset in order: select rows with a mask (cheaper than index arithmetic)
            chosen = np.zeros(self.n_segments, dtype=bool)
            chosen[segments] = True
            keep = np.repeat(chosen, self.lengths)
            offsets = np.zeros(segments.size + 1, dtype=np.int64)
            np.cumsum(self.lengths[segments], out=offsets[1:])
            return TieTable(self.score[keep], self.pos[keep], self.neg[keep], offsets)
        starts = self.offsets[:-1][segments]
        lengths = self.lengths[segments]
        offsets = np.zeros(segments.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        # row index = segment start + position within the segment
        within = np.arange(offsets[-1], dtype=np.int64) - np.repeat(offsets[:-1], lengths)
        rows = np.repeat(starts, lengths) + within
        return TieTable(self.score[rows], self.pos[rows], self.neg[rows], offsets)

    def with_counts(self, pos: np.ndarray, neg: np.ndarray) -> "TieTable":
        """The same scores and segments with new counts (e.g. a bootstrap draw)."""
        return TieTable(self.score, pos, neg, self.offsets)

    def segment(self, k: int) -> "TieTable":
        """Segment ``k`` alone, as a one-segment table."""
        return self.take([k])


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

    Rows are ordered by one argsort of a single uint64 key, the group index in
    the high bits and the score's order-preserving bit pattern (descending) in
    the rest: one integer sort instead of a two-column sort. With ``b`` bits
    for the group, the lowest ``b`` bits of the score pattern are dropped from
    the key, so two distinct scores of one group that agree in all other bits
    (a relative difference below about ``2**(b-52)``) can come out of order;
    such groups are detected (a score rising within a group) and re-sorted
    exactly. Ungrouped data (``n_groups == 1``) goes to
    :func:`tie_table_from_classes`.

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
        One segment per group (empty for groups without rows).
    """
    score = np.ascontiguousarray(score, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    if n_groups == 1:
        return tie_table_from_class_buffers([score[positive], score[~positive]])
    group = np.asarray(group, dtype=np.int64)
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


def negative_runs_invariant(estimator):
    """Mark an estimator that reads the negatives only through their counts between positive rows.

    Such an estimator gives the same value on :meth:`TieTable.collapsed`
    (checked for every marked estimator in the tests), so the engine hands it
    the collapsed table, which a deferred table builds without merging, and
    the bootstrap resamples the collapsed table
    (:data:`aucpr_stats.intervals.bootstrap.NEGATIVE_RUN_ESTIMATORS`).
    """
    estimator.negative_runs_invariant = True
    return estimator


def positive_rows_only(estimator):
    """Mark an estimator that reads a one-segment table only through :meth:`TieTable.positive_rows`.

    It is also :func:`negative_runs_invariant`. The engine hands it a deferred
    table as it is (the positive rows come straight from the sorted classes),
    and the bootstrap merges each run of negatives into the next positive row
    (:data:`aucpr_stats.intervals.bootstrap.POSITIVE_ROW_ESTIMATORS`).
    """
    estimator.positive_rows_only = True
    return negative_runs_invariant(estimator)
