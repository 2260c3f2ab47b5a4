"""Ungrouped data: sort the scores of each class, in parallel, and defer the merge.

For one group the tie table is the merge of two sorted runs, the distinct
scores of the positives and of the negatives. This module produces the two
runs and, for every positive, the number of negatives below it (its place
among the negatives). That is all that average precision, the trapezoid
estimators and A' need: they read the *collapsed* table (one row per run of
negatives, see :meth:`aucpr_stats.ties.TieTable.collapsed`), whose size is
of the order of the distinct positive scores. The full table (one row per
distinct score, 24 bytes a row) is merged only when a statistic reads it.

Parallelism: the reader splits the scores into ``k`` ranges of
values by pivots taken from a sample, and hands over, per range, the scores
of each class. Each range is copied into its place in one buffer per class
and sorted there by its own thread (numpy releases the GIL while sorting),
and its positives are placed among its negatives by a binary search; since
the ranges do not overlap, the buffers come out sorted as a whole.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import attrs
import numpy as np

from ..ties import TieTable
from .class_merge import distinct_ascending, merge_sorted_classes

__all__ = ["SortedClasses", "sort_classes", "pivots_from_sample", "rank_among", "thread_map_items"]


@attrs.frozen(eq=False)
class SortedClasses:
    """The scores of each class of one group, sorted ascending, and their interleaving.

    Attributes
    ----------
    pos, neg : ndarray of float64
        Scores of the positives and of the negatives, ascending.
    neg_below : ndarray of int64, shape (pos.size,)
        For every positive, the number of negatives with a strictly lower
        score (``numpy.searchsorted(neg, pos, side="left")``).
    pos_at, neg_at : ndarray of int64, shape (n_ranges + 1,)
        The ranges of values the sort was split into: range ``i`` holds
        ``pos[pos_at[i]:pos_at[i+1]]`` and ``neg[neg_at[i]:neg_at[i+1]]``.
        Ranges do not overlap and tied scores share a range.
    threads : int
        Threads for work done range by range.
    """

    pos: np.ndarray
    neg: np.ndarray
    neg_below: np.ndarray
    pos_at: np.ndarray
    neg_at: np.ndarray
    threads: int = 1

    #: One group.
    n_segments = 1

    @property
    def n_pos(self) -> int:
        return int(self.pos.size)

    @property
    def n_neg(self) -> int:
        return int(self.neg.size)

    def class_buckets(self) -> tuple[np.ndarray, np.ndarray]:
        """The negatives then the positives, each ascending, in one buffer, and the bucket bounds (3,)."""
        return np.concatenate([self.neg, self.pos]), np.array([0, self.neg.size, self.neg.size + self.pos.size])

    def full_table(self) -> TieTable:
        """The merged one-segment tie table (one row per distinct score)."""
        return merge_sorted_classes(self.pos, self.neg, self.neg_below)

    def ties_across_classes(self) -> bool:
        """True when a positive's score equals a negative's (the first negative at or above it, by ``neg_below``)."""
        above = self.neg_below < self.neg.size
        return bool(np.any(self.neg[self.neg_below[above]] == self.pos[above]))

    def positive_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Counts, true and false positives at the tie rows that hold positives (descending).

        See :meth:`aucpr_stats.ties.TieTable.positive_rows`. For a distinct
        positive value ``v``: TP = positives at or above ``v``, FP = negatives
        at or above ``v`` = ``n_neg - neg_below``; O(distinct positive scores).
        """
        _, counts, below = positive_values(self.pos, self.neg_below)
        count = np.ones(self.pos.size, dtype=np.int64) if counts is None else counts[::-1]
        return count, np.cumsum(count), self.neg.size - below[::-1]

    def collapsed_table(self) -> TieTable:
        """The one-segment tie table with runs of negative-only rows merged (see :func:`collapsed_rows`).

        Built range by range (in parallel), from the highest range down; a
        run of negatives that spans a range boundary is joined afterwards, so
        the rows are those of
        :meth:`aucpr_stats.ties.TieTable.collapsed` applied
        to the full table, whatever the number of ranges.
        """
        def piece(i: int):
            a, b, c, d = self.pos_at[i], self.pos_at[i + 1], self.neg_at[i], self.neg_at[i + 1]
            return collapsed_rows(self.pos[a:b], self.neg[c:d], self.neg_below[a:b] - c)

        pieces = thread_map_items(piece, range(self.pos_at.size - 1), self.threads)[::-1]
        score, pos, neg = (np.concatenate([p[k] for p in pieces]) for k in range(3))
        # a run of negatives that crosses a range boundary came out as two rows:
        # merge them into the lower one, so the table does not depend on the ranges
        boundaries = np.unique(np.cumsum([p[0].size for p in pieces])[:-1])
        split = boundaries[(boundaries > 0) & (boundaries < score.size)]
        split = split[(pos[split - 1] == 0) & (pos[split] == 0)]
        if split.size:
            keep = np.ones(score.size, dtype=bool)
            for b in split:  # top down: a run may cross several ranges holding only negatives
                neg[b] += neg[b - 1]
                keep[b - 1] = False
            score, pos, neg = score[keep], pos[keep], neg[keep]
        return TieTable(score, pos, neg, [0, score.size])


def positive_values(pos: np.ndarray, neg_below: np.ndarray):
    """Distinct positive scores (ascending), their counts (None when all are 1) and the negatives below each."""
    values, counts, starts = distinct_ascending(pos)
    return values, counts, (neg_below if starts is None else neg_below[starts])


def collapsed_rows(pos: np.ndarray, neg: np.ndarray, neg_below: np.ndarray):
    r"""Rows (descending) of the tie table of two sorted classes, runs of negatives merged.

    With the distinct positive scores :math:`v_1 < \dots < v_d` (counts
    :math:`c_j`), :math:`L_j` negatives below :math:`v_j` and :math:`R_j` at
    or below it, the rows are, from the top: the :math:`n_- - R_d` negatives
    above :math:`v_d` (at the lowest of their scores); then for
    :math:`j = d, \dots, 1`: :math:`v_j` with :math:`c_j` positives and the
    :math:`R_j - L_j` negatives tied with it, followed by the
    :math:`L_j - R_{j-1}` negatives between :math:`v_{j-1}` and :math:`v_j`
    (:math:`R_0 = 0`) at the lowest of their scores. Empty runs are left out,
    so scores stay strictly descending.

    Parameters
    ----------
    pos, neg : ndarray of float64
        Sorted ascending.
    neg_below : ndarray of int64
        ``searchsorted(neg, pos, side="left")``.

    Returns
    -------
    score, pos_count, neg_count : ndarray
        The rows, descending.
    """
    values, counts, below = positive_values(pos, neg_below)
    d = values.size
    at_or_below = below
    if neg.size and d:
        tied = neg[np.minimum(below, neg.size - 1)] == values  # a negative shares the value
        if tied.any():
            at_or_below = below.copy()
            at_or_below[tied] = np.searchsorted(neg, values[tied], side="right")
    # ascending slots: [gap below v_1], v_1, [gap below v_2], ..., v_d, [gap above v_d]
    gap_low = np.zeros(d + 1, dtype=np.int64)  # index of the lowest negative of each gap
    gap_low[1:] = at_or_below
    gap = np.empty(d + 1, dtype=np.int64)
    gap[:d] = below
    gap[d] = neg.size
    gap -= gap_low
    has_gap = gap > 0
    m = d + int(np.count_nonzero(has_gap))
    # ascending place among the kept rows: of v_j, the j positives and the kept
    # gaps 0..j below it; of gap k, the k positives and the kept gaps before it
    kept_gaps = np.cumsum(has_gap)
    at = np.arange(d, dtype=np.int64) + kept_gaps[:d]
    gap_place = np.flatnonzero(has_gap) + kept_gaps[has_gap] - 1
    score = np.empty(m)
    pos_count = np.zeros(m, dtype=np.int64)
    neg_count = np.empty(m, dtype=np.int64)
    score[at] = values
    pos_count[at] = 1 if counts is None else counts
    neg_count[at] = at_or_below - below
    score[gap_place] = neg[gap_low[has_gap]]
    neg_count[gap_place] = gap[has_gap]
    return score[::-1], pos_count[::-1], neg_count[::-1]


def thread_map_items(fn, items, threads: int) -> list:
    """``[fn(x) for x in items]``, on up to ``threads`` threads (numpy releases the GIL in its kernels)."""
    items = list(items)
    if threads > 1 and len(items) > 1:
        with ThreadPoolExecutor(max_workers=min(threads, len(items))) as pool:
            return list(pool.map(fn, items))  # re-raises a worker's exception
    return [fn(x) for x in items]


def rank_among(haystack: np.ndarray, needles: np.ndarray, block: int = 4096) -> np.ndarray:
    """``numpy.searchsorted(haystack, needles, side="left")`` for sorted ``needles``, by blocks.

    Consecutive blocks of needles are searched in the slice of the haystack
    that their first and last needle bound, which keeps each binary search
    within a cache-sized window (about 1.5 to 2 times faster than one call
    when both arrays have millions of elements).
    """
    n = needles.size
    if n <= 4 * block or haystack.size <= 4 * block:
        return np.searchsorted(haystack, needles, side="left")
    out = np.empty(n, dtype=np.int64)
    edges = np.arange(0, n + block, block)
    edges[-1] = n
    bounds = np.searchsorted(haystack, needles[edges[:-1]], side="left")
    bounds = np.append(bounds, haystack.size)
    for i in range(edges.size - 1):
        a, b, lo, hi = edges[i], edges[i + 1], bounds[i], bounds[i + 1]
        out[a:b] = np.searchsorted(haystack[lo:hi], needles[a:b], side="left")
        out[a:b] += lo
    return out


#: Cost of a positive relative to a negative in a range's work: both are copied and
#: sorted, and each positive is also placed among the negatives by a binary search.
POSITIVE_COST = 4.0


def pivots_from_sample(score: np.ndarray, positive: np.ndarray, k: int) -> np.ndarray:
    """At most ``k - 1`` distinct pivots splitting a sample into ``k`` ranges of similar work.

    Each sampled positive weighs :data:`POSITIVE_COST`, each negative 1;
    non-finite scores are ignored.
    """
    finite = np.isfinite(score)
    score, positive = score[finite], np.asarray(positive, dtype=bool)[finite]
    if k < 2 or score.size < 2 * k:
        return np.empty(0)
    order = np.argsort(score, kind="stable")
    work = np.cumsum(np.where(positive[order], POSITIVE_COST, 1.0))
    cut = np.searchsorted(work, work[-1] * np.arange(1, k) / k)
    return np.unique(score[order][np.minimum(cut, score.size - 1)])


def _fill(buffer: np.ndarray, chunks: list[np.ndarray]) -> None:
    """Copy ``chunks`` one after another into ``buffer``, emptying the list as it goes.

    A chunk that views another library's memory (a polars column) is released
    as soon as it is copied, so the two copies of the scores never coexist in
    full.
    """
    at = 0
    chunks.reverse()
    while chunks:
        chunk = chunks.pop()
        buffer[at: at + chunk.size] = chunk
        at += chunk.size
        del chunk


def sort_classes(pos_parts: Sequence[list[np.ndarray]], neg_parts: Sequence[list[np.ndarray]],
                 threads: int = 1) -> SortedClasses:
    """Sort the scores of each class, given in non-overlapping ranges of values, ascending.

    Parameters
    ----------
    pos_parts, neg_parts : sequence (one per range, ascending ranges) of lists of arrays
        The positive / negative scores falling in each range, as chunks in
        any order. Every score of range ``i`` is below every score of range
        ``i + 1``, and tied scores share a range. The lists are emptied as
        their chunks are copied (each chunk is released once copied).
    threads : int
        Worker threads; range ``i`` is handled by one thread (copy into the
        class buffer, in-place sort, and the binary search of its positives
        among its negatives).

    Returns
    -------
    SortedClasses
    """
    pos_sizes = [sum(c.size for c in part) for part in pos_parts]
    neg_sizes = [sum(c.size for c in part) for part in neg_parts]
    pos = np.empty(sum(pos_sizes))
    neg = np.empty(sum(neg_sizes))
    neg_below = np.empty(pos.size, dtype=np.int64)
    pos_at = np.concatenate(([0], np.cumsum(pos_sizes))).astype(np.int64)
    neg_at = np.concatenate(([0], np.cumsum(neg_sizes))).astype(np.int64)

    def work(i: int) -> None:
        p = pos[pos_at[i]: pos_at[i + 1]]
        n = neg[neg_at[i]: neg_at[i + 1]]
        _fill(p, pos_parts[i])
        _fill(n, neg_parts[i])
        p.sort()
        n.sort()
        # negatives of lower ranges are all below this range's positives
        neg_below[pos_at[i]: pos_at[i + 1]] = rank_among(n, p) + neg_at[i]

    thread_map_items(work, range(len(pos_parts)), threads)
    return SortedClasses(pos, neg, neg_below, pos_at, neg_at, threads)
