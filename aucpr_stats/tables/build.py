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
  from the scores of each class (value sorts instead of an argsort;
  :mod:`.class_merge`).

Few large groups go through the (group, class) buckets of :mod:`.buckets`.
"""

from __future__ import annotations

import numpy as np

from ..ties import TieTable
from .buckets import tie_table_by_buckets
from .runs import run_starts, segment_offsets
from .class_merge import merge_sorted_classes, tie_table_from_class_buffers, tie_table_from_classes
from .tuning import DEFAULT_TUNING, Tuning

__all__ = ["tie_table_from_sorted", "tie_table_from_rows", "tie_table_from_counts", "tie_table_from_classes",
           "tie_table_from_class_buffers", "merge_sorted_classes"]


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
        return TieTable(np.empty(0), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64),
                        np.zeros(n_groups + 1, dtype=np.int64))
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


def tie_table_from_rows(group: np.ndarray, score: np.ndarray, positive: np.ndarray, n_groups: int,
                        tuning: Tuning = DEFAULT_TUNING) -> TieTable:
    """Build the tie tables of all groups from rows in any order.

    Two exact roads give the same table, bit for bit:

    * few large groups (at least ``tuning.bucket_min_rows`` rows per group on
      average): the rows are put into (group, class) buckets by one value
      sort of packed integer keys (:func:`~aucpr_stats.tables.buckets.bucket_order`), each bucket's
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
    tuning : Tuning
        Where the roads switch (:mod:`.tuning`); every road gives the same table.

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
    if score.size >= tuning.bucket_min_rows * n_groups:
        return tie_table_by_buckets(group, score, positive, n_groups, tuning)
    return _tie_table_by_packed_key(group, score, positive, n_groups)

def _tie_table_by_packed_key(group: np.ndarray, score: np.ndarray, positive: np.ndarray,
                             n_groups: int) -> TieTable:
    """:func:`tie_table_from_rows` for many small groups: one argsort of a packed (group, score) key."""
    row_offsets = segment_offsets(group, n_groups)
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
        return TieTable(np.empty(0), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64),
                        np.zeros(row_offsets.size, dtype=np.int64))
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
    starts = np.flatnonzero(run_starts(group, score))
    offsets = segment_offsets(group[starts], n_groups)
    if starts.size == score.size:
        return TieTable(score, pos, neg, offsets)
    return TieTable(score[starts], np.add.reduceat(pos, starts), np.add.reduceat(neg, starts), offsets)
