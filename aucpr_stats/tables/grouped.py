"""Grouped rows: the scores of each class of every group sorted, the merge deferred until a statistic reads it.

:func:`deferred_tie_table` is :func:`~aucpr_stats.tables.build.tie_table_from_rows`
for few large groups, deferred: the classes of every group are sorted into
(group, class) buckets (:func:`~aucpr_stats.tables.buckets.sorted_class_buckets`)
and kept as a :class:`GroupedClasses`, whose collapsed table (what average
precision, the trapezoids and A' read) is read off the sorted classes group
by group without merging them.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..resample.threads import worker_threads
from ..ties import TieTable
from .buckets import merge_class_buckets, plus_zero_groups, sorted_class_buckets
from .build import tie_table_from_rows
from .class_sort import thread_map_items
from .tuning import DEFAULT_TUNING, Tuning

__all__ = ["GroupedClasses", "deferred_tie_table"]


@attrs.frozen(eq=False)
class GroupedClasses:
    """The scores of each class of every group, sorted ascending, in one buffer.

    The source of a deferred grouped :class:`~aucpr_stats.ties.TieTable`: the
    collapsed table (:meth:`collapsed_table`) is read off the sorted classes
    group by group without merging them; the merged table
    (:meth:`full_table`, what the eager builder
    :func:`~aucpr_stats.tables.build.tie_table_from_rows` returns) is built
    only when a statistic reads it.

    Attributes
    ----------
    values : ndarray of float64
        Bucket ``2k`` (the negatives of group ``k``) is
        ``values[bounds[2k]:bounds[2k + 1]]``, bucket ``2k + 1`` (its
        positives) follows; each ascending.
    bounds : ndarray of int64, shape (2 * n_segments + 1,)
    neg_below : ndarray of int64, shape (n_positives,)
        For every positive (group by group), the negatives of its group
        below it (see :func:`~aucpr_stats.tables.buckets.sorted_class_buckets`).
    plus_zero : ndarray of bool, shape (n_segments,)
        Groups holding a score 0.0 (not -0.0): their zero scores read 0.0,
        those of the other groups -0.0 (as the eager builder does).
    threads : int
        Threads for the group-by-group searches.
    """

    values: np.ndarray
    bounds: np.ndarray
    neg_below: np.ndarray
    plus_zero: np.ndarray
    threads: int = 1

    @property
    def n_segments(self) -> int:
        return int(self.plus_zero.size)

    @property
    def n_pos(self) -> np.ndarray:
        return np.diff(self.bounds)[1::2]

    @property
    def n_neg(self) -> np.ndarray:
        return np.diff(self.bounds)[0::2]

    def class_buckets(self) -> tuple[np.ndarray, np.ndarray]:
        """``values`` and ``bounds``: every group's negatives then positives, each ascending."""
        return self.values, self.bounds

    def full_table(self) -> TieTable:
        """The merged tie table, one segment per group (:func:`~aucpr_stats.tables.buckets.merge_class_buckets`)."""
        return merge_class_buckets(self.values, self.bounds, self.neg_below, self.plus_zero)

    def ties_across_classes(self) -> bool:
        """True when a positive's score equals a negative's of its group (the first one at or above it)."""
        n_pos, n_neg = self.n_pos, self.n_neg
        group = np.repeat(np.arange(self.n_segments, dtype=np.int64), n_pos)
        # the positives of group k are values[bounds[2k + 1]:bounds[2k + 2]], in the order of neg_below
        first_pos = np.cumsum(n_pos) - n_pos
        positive_at = self.bounds[1::2][group] + np.arange(group.size, dtype=np.int64) - first_pos[group]
        above = self.neg_below < n_neg[group]
        negative_at = self.bounds[0:-1:2][group[above]] + self.neg_below[above]
        return bool(np.any(self.values[negative_at] == self.values[positive_at[above]]))

    def positive_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """See :meth:`aucpr_stats.ties.TieTable.positive_rows` (one group only)."""
        return self.collapsed_table().positive_rows()  # the same counts as the merged table's (integers)

    def take(self, segments) -> "GroupedClasses":
        """The groups ``segments`` (in that order) alone, still sorted by class."""
        segments = np.asarray(segments, dtype=np.int64)
        buckets = np.stack((2 * segments, 2 * segments + 1), axis=1).ravel()
        sizes = np.diff(self.bounds)[buckets]
        bounds = np.zeros(buckets.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=bounds[1:])
        rows = np.repeat(self.bounds[buckets] - bounds[:-1], sizes) + np.arange(bounds[-1])
        n_pos = self.n_pos
        pos_at = np.cumsum(n_pos) - n_pos
        positives = np.repeat(pos_at[segments] - (np.cumsum(n_pos[segments]) - n_pos[segments]), n_pos[segments])
        positives += np.arange(positives.size)
        return GroupedClasses(self.values[rows], bounds, self.neg_below[positives], self.plus_zero[segments],
                              self.threads)

    def collapsed_table(self) -> TieTable:
        r"""The tie table with runs of negative-only rows merged, every group at once.

        Each group's rows are those of :func:`collapsed_rows` (the distinct
        positive values :math:`v_j`, the negatives tied with each, and one
        row per non-empty gap of negatives between them, at the lowest of
        their scores), so the table equals
        :meth:`~aucpr_stats.ties.TieTable.collapsed` of :meth:`full_table`.
        Each positive's place among its group's negatives comes from the
        sort (``neg_below``). With several threads,
        runs of groups with about equal rows are collapsed on their own
        threads and put one after another.
        """
        if self.threads < 2 or self.n_segments < 2:
            return self._collapsed_groups()
        rows = np.diff(self.bounds)
        group_rows = np.cumsum(rows[0::2] + rows[1::2])
        cut = np.unique(np.searchsorted(group_rows, group_rows[-1] * np.arange(1, self.threads) / self.threads))
        edges = np.concatenate(([0], cut[(cut > 0) & (cut < self.n_segments)], [self.n_segments]))
        parts = thread_map_items(lambda i: self._groups(edges[i], edges[i + 1])._collapsed_groups(), range(edges.size - 1),
                     self.threads)
        offsets = np.concatenate([[0]] + [p.offsets[1:] for p in parts])
        offsets[1:] += np.repeat(np.cumsum([0] + [p.n_rows for p in parts[:-1]]), [p.n_segments for p in parts])
        return TieTable(*(np.concatenate([getattr(p, name) for p in parts]) for name in ("score", "pos", "neg")),
                        offsets)

    def _groups(self, a: int, b: int) -> "GroupedClasses":
        """Groups ``a:b`` alone (views, one thread)."""
        bounds = self.bounds[2 * a: 2 * b + 1]
        pos_at = np.cumsum(self.n_pos[:b])
        first = pos_at[a - 1] if a else 0
        return GroupedClasses(self.values[bounds[0]: bounds[-1]], bounds - bounds[0],
                              self.neg_below[first: pos_at[-1] if b else 0], self.plus_zero[a:b], 1)

    def _collapsed_groups(self) -> TieTable:
        """:meth:`collapsed_table` on the calling thread."""
        n_groups, values, bounds = self.n_segments, self.values, self.bounds
        n_pos, n_neg = self.n_pos, self.n_neg
        groups = np.arange(n_groups)
        # the positives of every group, one after another (ascending within each)
        pos_before = np.cumsum(n_pos) - n_pos
        pos = values[np.repeat(bounds[1::2] - pos_before, n_pos) + np.arange(int(n_pos.sum()))]
        v_group = np.repeat(groups, n_pos)
        new_value = pos[1:] != pos[:-1]
        new_value[pos_before[(n_pos > 0) & (pos_before > 0)] - 1] = True  # a group's first positive starts a value
        if new_value.all():  # every positive value occurs once in its group (continuous scores)
            v, count, below = pos, None, self.neg_below
        else:
            starts = np.flatnonzero(np.concatenate(([True], new_value)))
            v, count, v_group = pos[starts], np.diff(np.append(starts, pos.size)), v_group[starts]
            below = self.neg_below[starts]
        del pos, new_value
        d = np.bincount(v_group, minlength=n_groups)  # distinct positive values per group
        v_at = np.zeros(n_groups + 1, dtype=np.int64)
        np.cumsum(d, out=v_at[1:])
        at_or_below = self._at_or_below(v, v_at, v_group, below)
        # gaps of negatives: group k has d_k + 1 (below its lowest value, between values,
        # above its highest), gap q = v_at[k] + k + j holding the negatives at places
        # [R_j, L_{j+1}) of the group's sorted negatives (R_0 = 0, L_{d+1} = n_neg)
        below_gap = np.arange(v.size) + v_group  # the gap just below each value
        gap_low = np.zeros(v.size + n_groups, dtype=np.int64)
        gap = np.empty(v.size + n_groups, dtype=np.int64)
        gap[below_gap] = below
        gap[v_at[1:] + groups] = n_neg  # the gap above the highest value
        gap_low[below_gap + 1] = at_or_below
        gap -= gap_low
        kept = np.flatnonzero(gap)  # gaps holding negatives become rows
        kept_gaps = np.cumsum(gap > 0)  # kept gaps up to and including each gap
        # ascending place among all rows (groups one after another): a value has the values
        # before it and the kept gaps below it; a gap, the values before it and the kept gaps
        # before it. Group k's rows start after v_at[k] values and the kept gaps of earlier groups
        kept_group = np.repeat(groups, d + 1)[kept]
        first_gap = v_at[:-1] + groups
        offsets = np.append(v_at[:-1] + kept_gaps[first_gap] - (gap[first_gap] > 0), v.size + kept.size)
        # descending within each group: ascending place p of group k goes to offsets[k] + offsets[k+1] - 1 - p
        flip = offsets[:-1] + offsets[1:] - 1
        value_row = flip[v_group] - np.arange(v.size) - kept_gaps[below_gap]
        gap_row = flip[kept_group] - (kept - kept_group) - kept_gaps[kept] + 1
        n_rows = int(offsets[-1])
        score = np.empty(n_rows)
        pos_count = np.zeros(n_rows, dtype=np.int64)
        neg_count = np.zeros(n_rows, dtype=np.int64)
        score[value_row] = v
        pos_count[value_row] = 1 if count is None else count
        if at_or_below is not below:
            neg_count[value_row] = at_or_below - below  # the negatives tied with each value
        score[gap_row] = values[bounds[2 * kept_group] + gap_low[kept]]  # the lowest negative of each gap
        neg_count[gap_row] = gap[kept]
        zero = score == 0.0
        if zero.any():  # the sign the merged table gives a zero score
            row_group = np.repeat(groups, np.diff(offsets))
            score[zero] = np.where(self.plus_zero[row_group[zero]], 0.0, -0.0)
        return TieTable(score, pos_count, neg_count, offsets)

    def _at_or_below(self, v: np.ndarray, v_at: np.ndarray, v_group: np.ndarray, below: np.ndarray
                     ) -> np.ndarray:
        """Negatives of its own group at or below each distinct positive value (``below`` plus the tied ones).

        ``below`` itself when no value is shared with a negative; otherwise one
        binary search per group holding such a value.
        """
        values, bounds, n_neg = self.values, self.bounds, self.n_neg
        # a value that a negative of its group shares: the first negative not below it equals it
        group_neg = n_neg[v_group]
        first_not_below = bounds[2 * v_group] + np.minimum(below, group_neg - 1)
        tied = values[np.clip(first_not_below, 0, values.size - 1)] == v
        tied &= below < group_neg
        if not tied.any():
            return below
        at_or_below = below.copy()
        for k in np.unique(v_group[tied]):
            rows = v_at[k] + np.flatnonzero(tied[v_at[k]: v_at[k + 1]])
            at_or_below[rows] = np.searchsorted(values[bounds[2 * k]: bounds[2 * k + 1]], v[rows], side="right")
        return at_or_below


def deferred_tie_table(group: np.ndarray, score: np.ndarray, positive: np.ndarray, n_groups: int,
                       tuning: Tuning = DEFAULT_TUNING) -> TieTable:
    """:func:`~aucpr_stats.tables.build.tie_table_from_rows`, deferred where that builder sorts class buckets.

    With at least ``tuning.bucket_min_rows`` rows per
    group on average (and more than one group), the classes of every group
    are sorted (:func:`~aucpr_stats.tables.buckets.sorted_class_buckets`) and
    the table is deferred over them (:class:`GroupedClasses`): statistics
    that read only the collapsed table never merge the classes. Otherwise the
    eager table. Either way, the arrays read are those of the eager builder.
    """
    score = np.ascontiguousarray(score, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    if n_groups == 1 or score.size < tuning.bucket_min_rows * n_groups:
        return tie_table_from_rows(group, score, positive, n_groups, tuning)
    group = np.asarray(group, dtype=np.int64)
    plus_zero = plus_zero_groups(group, score, n_groups)
    values, bounds, neg_below = sorted_class_buckets(group, score, positive, n_groups, tuning)
    threads = min(worker_threads(), max(1, score.size // max(tuning.class_sort_parallel_min_rows, 1)))
    return TieTable.deferred(GroupedClasses(values, bounds, neg_below, plus_zero, threads))
