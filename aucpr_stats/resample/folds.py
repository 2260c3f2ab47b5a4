"""Stratified random folds on tie-table counts (for cross-validation intervals).

The units (rows of one class) of each segment are put in a uniformly random
order and dealt to the ``k`` folds in turn, starting at a random fold; so
fold sizes differ by at most one within each class, and the counts a fold
receives from the tie rows follow the multivariate hypergeometric
distribution, as when the rows themselves are dealt. Each segment draws
from its own stream (:mod:`.streams`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ties import TieTable
from .streams import Streams

__all__ = ["stratified_folds"]


def _deal(ties: TieTable, counts: np.ndarray, k: int, uniforms: np.ndarray, first_fold: np.ndarray) -> np.ndarray:
    """Counts of one class per (segment, fold, row), in the layout of ``ties.take(repeat(S, k))``.

    ``uniforms`` orders the units of each segment at random; ``first_fold``
    is the fold dealt the first unit of each segment.
    """
    n_seg = ties.n_segments
    totals = ties.segment_sum(counts)
    unit_row = np.repeat(np.arange(ties.n_rows, dtype=np.int64), counts)
    seg = np.repeat(np.arange(n_seg, dtype=np.int64), totals)
    unit_row = unit_row[np.lexsort((uniforms, seg))]  # a random order within each segment
    first = np.zeros(n_seg, dtype=np.int64)
    np.cumsum(totals[:-1], out=first[1:])
    rank = np.arange(unit_row.size, dtype=np.int64) - first[seg]
    fold = (rank + first_fold[seg]) % k
    starts = ties.offsets[:-1][seg]
    out = starts * k + fold * ties.lengths[seg] + (unit_row - starts)
    return np.bincount(out, minlength=ties.n_rows * k)


def stratified_folds(ties: TieTable, k: int, seed: Any = None, *, streams: Streams | None = None) -> TieTable:
    """Split every segment into ``k`` stratified random folds.

    Parameters
    ----------
    ties : TieTable
    k : int
        Number of folds.
    seed : None, int, numpy Generator or SeedSequence
        Root of the segments' streams (keyed by segment index) when
        ``streams`` is not given.
    streams : Streams, optional
        One stream per segment.

    Returns
    -------
    TieTable
        Segment ``s * k + f`` is fold ``f`` of segment ``s`` (the scores of
        ``s`` with the counts dealt to that fold; rows may have zero counts).
        The positives of a segment are dealt evenly over the folds, and so are
        the negatives, so every fold keeps the prevalence up to rounding.
    """
    if streams is None:
        streams = Streams.for_segments(seed, ties.n_segments, "cross_validation")
    n_pos, n_neg = ties.n_pos, ties.n_neg
    u_pos, u_neg = np.empty(int(n_pos.sum())), np.empty(int(n_neg.sum()))
    start_pos, start_neg = np.zeros(ties.n_segments, dtype=np.int64), np.zeros(ties.n_segments, dtype=np.int64)
    at_pos = at_neg = 0
    for s in range(ties.n_segments):  # each segment's draws from its own stream
        rng = streams[s]
        u_pos[at_pos: at_pos + n_pos[s]] = rng.random(int(n_pos[s]))
        u_neg[at_neg: at_neg + n_neg[s]] = rng.random(int(n_neg[s]))
        start_pos[s], start_neg[s] = rng.integers(0, k, size=2)
        at_pos += int(n_pos[s])
        at_neg += int(n_neg[s])
    table = ties.take(np.repeat(np.arange(ties.n_segments), k))
    return table.with_counts(_deal(ties, ties.pos, k, u_pos, start_pos), _deal(ties, ties.neg, k, u_neg, start_neg))
