"""Several scores on the same rows: one tie table per score, and every row's tie row in each.

A paired comparison needs both: the tables for the estimates, and the map
from rows to tie rows for DeLong's covariance (placement values of the same
row under each score) and for the paired bootstrap (the same rows resampled
for every score).
"""

from __future__ import annotations

from typing import Sequence

import attrs
import numpy as np

from ..ties import TieTable
from .build import tie_table_from_sorted

__all__ = ["PairedScores", "paired_scores"]


@attrs.frozen(eq=False)
class PairedScores:
    """The complete rows of several scores, as one tie table per score.

    Attributes
    ----------
    tables : tuple of TieTable
        One per score; one segment per group each.
    rows : tuple of ndarray of int64
        Per score, the tie row (global index in that score's table) of every complete row.
    group : ndarray of int64
        The group of every complete row.
    positive : ndarray of bool
        The outcome of every complete row.
    """

    tables: tuple[TieTable, ...]
    rows: tuple[np.ndarray, ...]
    group: np.ndarray
    positive: np.ndarray


def _score_table(group: np.ndarray, score: np.ndarray, positive: np.ndarray, n_groups: int):
    """Tie table of one score and the tie row of every data row (one sort)."""
    # descending score, then a stable (radix for small ints) sort by group
    order = np.argsort(-score)
    if n_groups > 1:
        by_group = group[order]
        if n_groups <= np.iinfo(np.uint16).max:
            by_group = by_group.astype(np.uint16)
        order = order[np.argsort(by_group, kind="stable")]
    g, s = group[order], score[order]
    ties = tie_table_from_sorted(g, s, positive[order], n_groups)
    new_run = np.empty(s.size, dtype=bool)
    if s.size:
        new_run[0] = True
        np.not_equal(s[1:], s[:-1], out=new_run[1:])
        new_run[1:] |= g[1:] != g[:-1]
    row = np.empty(s.size, dtype=np.int64)
    row[order] = np.cumsum(new_run) - 1
    return ties, row


def paired_scores(group: np.ndarray, positive: np.ndarray, scores: Sequence[np.ndarray], n_groups: int) -> PairedScores:
    """Tables and row maps of several scores measured on the same (complete) rows."""
    built = [_score_table(group, np.ascontiguousarray(s, dtype=np.float64), positive, n_groups) for s in scores]
    return PairedScores(tables=tuple(t for t, _ in built), rows=tuple(r for _, r in built), group=group,
                        positive=positive)
