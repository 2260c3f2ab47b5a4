"""One group's tie table from the sorted scores of each class: value sorts and a merge by counting, no argsort.

An argsort of all rows (to carry each outcome along with its score) costs
about six times a value sort, so the builders of :mod:`.build`,
:mod:`.buckets` and :mod:`.class_sort` sort each class by value and merge the
two runs here (:func:`merge_sorted_classes`).
"""

from __future__ import annotations

import numpy as np

from ..ties import TieTable

__all__ = ["distinct_ascending", "tie_table_from_classes", "tie_table_from_class_buffers", "merge_sorted_classes"]


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
