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

This is the contract between the two halves of the package: the table
factory (:mod:`aucpr_stats.tables`, fed by the reader in
:mod:`aucpr_stats.ingest`) produces a :class:`TieTable`, and every kernel
(estimators, intervals, resampling, curves) takes one; the kernels rely only
on the invariants below.

Invariants
    * within a segment, ``score`` is strictly descending;
    * ``pos`` and ``neg`` are non-negative counts: int64 (rows), or float64
      for weighted counts (sums of case weights, or classes reweighted to a
      stated prevalence), which every estimator reads the same way;
    * ``offsets`` starts at 0, ends at the number of rows and never decreases
      (empty segments are allowed).

Rows whose positive and negative counts are both zero may occur (a bootstrap
replicate that drew no row at a score); they are not thresholds, and every
kernel either tolerates them or calls :meth:`TieTable.compact` first.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["TieTable", "segment_cumsum"]


def _as_int64(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)


def _as_counts(values) -> np.ndarray:
    """Counts as int64, or as float64 when they are weighted (a floating-point array)."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        return np.ascontiguousarray(values, dtype=np.float64)
    return _as_int64(values)


def segment_cumsum(values, offsets: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``values`` restarting at each segment of ``offsets`` (CSR bounds).

    Each segment's sums depend on its own rows only. Integers use one
    running sum over every row minus the total of the earlier segments
    (exact); floating-point values (weighted counts) are summed from each
    segment's first row, so a segment gets the bits it gets alone, whatever
    the other segments hold (a running sum across segments would leave it
    the rounding error of every earlier segment). Floating-point ``values``
    may have leading axes: the sums run along the last one.
    """
    values = np.asarray(values)
    offsets = np.asarray(offsets)
    if offsets.size <= 2:
        return np.cumsum(values, axis=-1)
    if values.dtype.kind in "fc":
        return _restarted_cumsum(values, offsets)
    total = np.cumsum(values)
    starts, lengths = offsets[:-1], np.diff(offsets)
    before = np.zeros(starts.size, dtype=total.dtype)
    nonempty = lengths > 0
    before[nonempty] = total[starts[nonempty]] - values[starts[nonempty]]
    return total - np.repeat(before, lengths)


def _restarted_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The running sum of ``values`` started afresh at each segment: the bits of ``np.cumsum`` of each segment alone.

    Segments of one length are summed together along the rows of a (segment,
    row) view: one numpy call per distinct length, not one per segment.
    """
    out = np.empty(values.shape, dtype=values.dtype)
    starts, lengths = offsets[:-1], np.diff(offsets)
    order = np.argsort(lengths, kind="stable")
    sorted_lengths = lengths[order]
    cuts = np.flatnonzero(sorted_lengths[1:] != sorted_lengths[:-1]) + 1
    for begin, end in zip(np.r_[0, cuts], np.r_[cuts, order.size]):
        length = int(sorted_lengths[begin])
        if length == 0:
            continue
        rows = starts[order[begin:end], None] + np.arange(length)
        out[..., rows] = np.cumsum(values[..., rows], axis=-1)  # leading axes: one sum per row of them
    return out


def _crossings(running: np.ndarray, own: np.ndarray, total: np.ndarray, grid: int) -> np.ndarray:
    """Rows where ``floor`` or ``ceil`` of ``running * grid / total`` changes from the row above (``total > 0``).

    For weighted (float) counts the second is ``ceil(floor(running) * grid / total)``: the number of
    ``m`` with ``floor(total m / grid) + 1 <= running``, the step curve's ranks; for counts it is the same.
    """
    before = running - own
    if running.dtype.kind == "f":  # weighted counts: the step curve's ranks are floor(W m / grid) + 1
        with np.errstate(invalid="ignore", divide="ignore"):
            floor_now, floor_then = np.floor(running * grid / total), np.floor(before * grid / total)
            rank_now = np.ceil(np.floor(running) * grid / total)
            rank_then = np.ceil(np.floor(before) * grid / total)
        return (total > 0) & ((floor_now > floor_then) | (rank_now > rank_then))
    safe = np.maximum(total, 1)
    now, then = running * grid, before * grid
    return (total > 0) & ((now // safe > then // safe) | ((now + safe - 1) // safe > (then + safe - 1) // safe))


class TieTable:
    """Distinct scores per segment, descending, with positive and negative counts.

    Attributes
    ----------
    score : ndarray of float64, shape (n_rows,)
        Distinct score values, strictly descending within each segment.
    pos, neg : ndarray of int64 (or float64 when weighted), shape (n_rows,)
        Number (or total weight) of positives / negatives whose score equals ``score``.
    offsets : ndarray of int64, shape (n_segments + 1,)
        Segment ``k`` occupies rows ``offsets[k]:offsets[k+1]``. Empty
        segments (no rows) are allowed.

    Notes
    -----
    A table may also be *deferred* (:meth:`deferred`): it holds the scores
    of each class of each segment, sorted, and merges them into the arrays
    above only when they are first read. Statistics that depend on the negatives
    only through their counts between consecutive positive rows (average
    precision, the trapezoid estimators, A') read :meth:`collapsed` instead,
    a table with one row per run of negatives, whose size is of the order of
    the number of distinct positive scores. The arrays are never modified in
    place once built.
    """

    def __init__(self, score, pos, neg, offsets) -> None:
        self._set_arrays(np.ascontiguousarray(score, dtype=np.float64), _as_counts(pos), _as_counts(neg),
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
        """A table merged from ``source`` only when its arrays are read.

        ``source`` (:class:`aucpr_stats.tables.SortedClasses` for
        one group, :class:`~aucpr_stats.tables.GroupedClasses` for
        several) has ``n_segments``, ``n_pos`` and ``n_neg`` (an int, or one
        per segment), ``full_table()`` and ``collapsed_table()`` (both
        returning eager :class:`TieTable`), ``positive_rows()``, and
        optionally ``take(segments)`` (another source).
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
    def source(self):
        """The source of a deferred table whose arrays have not been merged yet, else None."""
        return self._source if self._score is None else None

    def class_buckets(self) -> tuple[np.ndarray, np.ndarray] | None:
        """While deferred on sorted classes: (scores, bounds), bucket ``2k`` the negatives of segment ``k`` and
        ``2k + 1`` its positives, each ascending (statistics of counts read them without a merge); else None."""
        source = self.source
        return source.class_buckets() if source is not None and hasattr(source, "class_buckets") else None

    @property
    def stored_sums(self) -> bool:
        """True for a table of an engine's partial sums (:mod:`aucpr_stats.tables.sums`, read by :mod:`aucpr_stats.ingest.sums`): no rows, only statistics."""
        return self._score is None and hasattr(self._source, "stored")

    def stored(self, key) -> np.ndarray | None:
        """A statistic stored per segment by the table's source (engine sums), or None: then compute it from the rows.

        ``key`` is an estimator record, or ``"a_prime"``, ``"delong_s10"``,
        ``"delong_s01"``; the kernels of those statistics ask first.
        """
        return self._source.stored(key) if self.stored_sums else None

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
        if self.n_segments != 1:
            raise ValueError("positive_rows() needs a one-segment table")
        if self._score is None:
            return self._source.positive_rows()
        rows = np.flatnonzero(self._pos > 0)  # (a boolean mask scans about twice as fast as int64)
        count = self._pos[rows]
        return count, np.cumsum(count), np.cumsum(self._neg)[rows]

    def collapsed(self) -> "TieTable":
        """The table with every run of negative-only rows merged into one row.

        Within a segment, consecutive rows without positives become one row
        holding their negatives (at the lowest of their scores). The true and
        false positive counts at every row holding positives, and at the last
        row before each, are unchanged; so is every statistic that reads the
        negatives only through those counts (the ``"negative_runs"``
        estimators of :mod:`aucpr_stats.estimators.registry`). Since the
        negative counts of merged rows add up, multinomial resampling of the
        collapsed table has the distribution of the collapsed counts of a
        resampled original table. A deferred table builds it from its sorted
        classes without merging them (size of the order of the distinct
        positive scores). The scores of the dropped rows are lost.
        """
        if self._collapsed is None:
            if self._score is None:
                self._collapsed = self._source.collapsed_table()
            elif self.n_rows == 0:
                self._collapsed = self
            else:
                has_pos = self._pos > 0
                next_has_pos = np.zeros(self.n_rows, dtype=bool)
                next_has_pos[:-1] = has_pos[1:]
                self._collapsed = self._merge_into_next(has_pos | self._segment_last_rows() | next_has_pos)
        return self._collapsed

    def merged_negative_runs(self) -> "TieTable":
        """Every run of negative-only rows merged into the next row holding positives.

        Within each segment, a row without positives is merged into the first
        following row that has positives (its negatives join that tie block);
        rows after the last positive are merged into the segment's last row.
        The precision at every row holding positives is unchanged, so the
        ``"positive_rows"`` estimators (average precision) give the same
        value, and multinomial resampling commutes with the merge as for
        :meth:`collapsed`. On continuous scores the table shrinks from
        ``n + m`` rows to about ``n``.
        """
        table = self.collapsed()  # a deferred table: without merging its classes (same result)
        if table.n_rows == 0:
            return table
        return table._merge_into_next((table.pos > 0) | table._segment_last_rows())

    def thinned(self, grid: int) -> "TieTable":
        """The rows where recall or the false positive rate crosses a multiple of ``1/grid``, and the row above each.

        A row *crosses* when its class's running count, times ``grid`` and
        divided by the class total, changes its floor or its ceiling (exact
        integer arithmetic for counts): it is the first row reaching the
        ``floor(n m / grid) + 1``-th or the ``ceil(n m / grid)``-th case of
        the class, for some ``m`` in ``0..grid``. Those rows, the row just
        above each (its running counts are those of the point before), and
        the last row of every segment are kept; every other row is merged
        into the next kept row (:meth:`collapsed` does the same for runs of
        negatives). The kept rows' running counts, and so their points of
        the PR and ROC curves, are those of the full table, and a kept
        crossing row keeps its own counts: the step and interpolated curves
        (:mod:`aucpr_stats.curves.points`) at recalls and false positive
        rates ``m / grid`` equal those of the full table. At most
        ``8 grid + 1`` rows per segment remain. Thinning twice changes nothing.
        """
        if self.n_rows == 0:
            return self
        lengths = self.lengths
        n_pos, n_neg = np.repeat(self.n_pos, lengths), np.repeat(self.n_neg, lengths)
        crossing = (_crossings(self.tp(), self.pos, n_pos, grid) | _crossings(self.fp(), self.neg, n_neg, grid))
        keep = crossing.copy()
        keep[:-1] |= crossing[1:]  # the row above a crossing (a segment's first row: the last of the one before)
        keep |= self._segment_last_rows()
        return self._merge_into_next(keep)

    def _segment_last_rows(self) -> np.ndarray:
        last = np.zeros(self.n_rows, dtype=bool)
        nonempty = self.lengths > 0
        last[self.offsets[1:][nonempty] - 1] = True
        return last

    def _merge_into_next(self, keep: np.ndarray) -> "TieTable":
        """Add the counts of every dropped row to the first kept row at or after it (same segment).

        The last row of every non-empty segment must be kept.
        """
        n_rows = self.n_rows
        index = np.where(keep, np.arange(n_rows), n_rows)
        target = np.minimum.accumulate(index[::-1])[::-1]
        new_index = np.cumsum(keep) - 1
        n_kept = int(keep.sum())
        pos = np.bincount(new_index[target], weights=self.pos, minlength=n_kept).astype(self.pos.dtype)
        neg = np.bincount(new_index[target], weights=self.neg, minlength=n_kept).astype(self.neg.dtype)
        offsets = np.zeros(self.n_segments + 1, dtype=np.int64)
        np.cumsum(self.segment_sum(keep.astype(np.int64)), out=offsets[1:])
        return TieTable(self.score[keep], pos, neg, offsets)

    def __repr__(self) -> str:
        if self.stored_sums:
            return f"TieTable(engine sums, n_segments={self.n_segments})"
        if self.is_deferred:
            if self.n_segments == 1:
                return f"TieTable(deferred, n_pos={int(self.n_pos[0])}, n_neg={int(self.n_neg[0])})"
            return f"TieTable(deferred, n_segments={self.n_segments})"
        return f"TieTable(n_segments={self.n_segments}, n_rows={self.n_rows})"

    # ------------------------------------------------------------------ shape
    @property
    def n_segments(self) -> int:
        """Number of segments (groups, or group x replicate)."""
        return self._source.n_segments if self._score is None else self._offsets.size - 1

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
        if self.n_segments == 1 and values.dtype.kind not in "fc":
            return np.array([values.sum(dtype=dtype)])
        out = np.zeros(self.n_segments, dtype=dtype)
        # reduceat over the starts of non-empty segments: one pass, no cumulative
        # sum (and no cancellation error for float values); for one segment too, as
        # np.sum groups the additions otherwise: a segment gets the same bits alone
        # or among others
        nonempty = self.offsets[:-1] < self.offsets[1:]
        if nonempty.any():
            out[nonempty] = np.add.reduceat(values.astype(dtype, copy=False), self.offsets[:-1][nonempty])
        return out

    def segment_sum_at(self, rows: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` (one per entry of ``rows``, sorted row indices) within each segment.

        Only the given rows enter the sums, so a segment's sum has the same
        bits whatever other rows (of its own, such as negative-only rows, or of
        other segments) the table holds. Segments without such rows get 0.
        """
        values = np.asarray(values, dtype=np.float64)
        if self.n_segments == 1:  # reduceat, as below: np.sum groups the additions otherwise
            return np.add.reduceat(values, [0]) if values.size else np.zeros(1)
        at = self.rows_at_offsets(rows)  # segment k's entries: at[k]:at[k + 1]
        holds = at[:-1] < at[1:]
        out = np.zeros(self.n_segments)
        if holds.any():
            out[holds] = np.add.reduceat(values, at[:-1][holds])
        return out

    def rows_at_offsets(self, rows: np.ndarray) -> np.ndarray:
        """Where each segment's entries start in ``rows`` (sorted row indices), and their end: shape (n_segments + 1,).

        The entries of segment ``k`` are ``rows[at[k]:at[k + 1]]`` (one search
        per segment boundary, not one per row).
        """
        return np.searchsorted(rows, self.offsets, side="left")

    def segment_cumsum(self, values: np.ndarray) -> np.ndarray:
        """Inclusive cumulative sum of ``values`` restarting at each segment (:func:`segment_cumsum`)."""
        return segment_cumsum(values, self.offsets)

    # computed once per table (the arrays are never modified in place)
    @functools.cached_property
    def n_pos(self) -> np.ndarray:
        """Positives per segment."""
        if self._score is None:
            return np.atleast_1d(np.asarray(self._source.n_pos, dtype=np.int64))
        return self.segment_sum(self.pos)

    @functools.cached_property
    def n_neg(self) -> np.ndarray:
        """Negatives per segment."""
        if self._score is None:
            return np.atleast_1d(np.asarray(self._source.n_neg, dtype=np.int64))
        return self.segment_sum(self.neg)

    def ties_across_classes(self) -> bool:
        """True when some row holds both a positive and a negative (a score tied across the classes).

        When none does, every resample of the rows holds none either (a
        resampled row keeps a class only if the original row had it), so the
        tie-aware estimators give the published convention's values. A
        deferred table asks its sorted classes (a search per positive), or
        reads its collapsed table, which keeps every row holding positives.
        """
        if self._score is None:
            check = getattr(self._source, "ties_across_classes", None)
            return bool(check()) if check is not None else self.collapsed().ties_across_classes()
        return bool(np.any((self._pos > 0) & (self._neg > 0)))

    def has_both_classes(self) -> np.ndarray:
        """Boolean mask of the segments with at least one positive and one negative."""
        return (self.n_pos > 0) & (self.n_neg > 0)

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
        """A new table holding only the given segments, in the given order (deferred if this one is and can)."""
        segments = np.asarray(segments, dtype=np.int64)
        if self._score is not None or not hasattr(self._source, "take"):
            return self._take_rows(segments)
        return TieTable.deferred(self._source.take(segments))

    def _take_rows(self, segments: np.ndarray) -> "TieTable":
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


