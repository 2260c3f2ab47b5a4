"""What the weighted and the cluster bootstrap share: where each unit's row lands in its group's table.

:func:`target_rows` maps the rows of finer tables (a group's (score, weight)
cells, its clusters) to the rows of the group's tie table; the checks refuse
designs whose counts or streams do not match their group table.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InputError
from ..ties import TieTable
from .streams import Streams

__all__ = ["target_rows", "local_rows", "check_counts_match", "check_stream_count", "CHUNK_ELEMENTS", "N_STRATA",
           "STRATA", "MAX_REDRAWS"]

#: Memory budget of one chunk, in array elements (as for :func:`~aucpr_stats.resample.counts.replicate_chunks`).
CHUNK_ELEMENTS = 1 << 20

#: Cluster strata: positives only, negatives only, both classes.
N_STRATA = 3

#: How :class:`ClusterUnits` may stratify the clusters.
STRATA = ("none", "composition")

#: Redraws of a replicate missing a class (``strata="none"``) before it is left as drawn.
MAX_REDRAWS = 100


def target_rows(group_ties: TieTable, row_group, row_score) -> np.ndarray:
    """The row of ``group_ties`` holding each given (group, score), as a global row index.

    One vectorised search: every score gets its rank among the distinct
    scores of the table, and (group, descending rank) becomes one integer key
    that increases along the rows of ``group_ties``; each given row's key is
    then found by :func:`numpy.searchsorted`.

    Parameters
    ----------
    group_ties : TieTable
        One segment per group, scores strictly descending within each.
    row_group : ndarray of int, shape (n,)
        Group (segment of ``group_ties``) of each row.
    row_score : ndarray of float, shape (n,)

    Returns
    -------
    ndarray of int64, shape (n,)

    Raises
    ------
    InputError
        When a score is not in its group's table (the count tables do not
        come from the same rows).
    """
    row_group = np.asarray(row_group, dtype=np.int64)
    row_score = np.asarray(row_score, dtype=np.float64)
    distinct = np.unique(group_ties.score)
    k = max(distinct.size, 1)
    key = group_ties.segment_ids() * k + (k - 1 - np.searchsorted(distinct, group_ties.score))
    rank = np.minimum(np.searchsorted(distinct, row_score), k - 1)
    row_key = row_group * k + (k - 1 - rank)
    target = np.minimum(np.searchsorted(key, row_key), max(key.size - 1, 0))
    found = (key.size > 0) & (distinct.size > 0)
    if found:
        found_rows = (key[target] == row_key) & (distinct[rank] == row_score)
    else:
        found_rows = np.zeros(row_key.size, dtype=bool)
    if not found_rows.all():
        missing = int((~found_rows).sum())
        raise InputError(f"{missing:,} row(s) of the finer table have a score that is not in their group's "
                         "tie table: the tables do not come from the same rows")
    return target


def local_rows(offsets: np.ndarray, lengths: np.ndarray, segment: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Global rows of the given segments, concatenated, and the new offsets."""
    new_offsets = np.zeros(segment.size + 1, dtype=np.int64)
    np.cumsum(lengths[segment], out=new_offsets[1:])
    within = np.arange(new_offsets[-1], dtype=np.int64) - np.repeat(new_offsets[:-1], lengths[segment])
    return np.repeat(offsets[:-1][segment], lengths[segment]) + within, new_offsets


def check_counts_match(group_ties: TieTable, target: np.ndarray, pos, neg, what: str) -> None:
    """The finer table's counts, added up per group row, must be the group table's."""
    n = group_ties.n_rows
    for name, fine, coarse in (("positive", pos, group_ties.pos), ("negative", neg, group_ties.neg)):
        summed = np.bincount(target, weights=fine, minlength=n)
        if not np.allclose(summed, coarse, rtol=1e-9, atol=1e-9):
            bad = int((~np.isclose(summed, coarse, rtol=1e-9, atol=1e-9)).sum())
            raise InputError(f"the {name} counts of `{what}` do not add up to those of `group_ties` at "
                             f"{bad:,} row(s): the tables do not come from the same rows")


def check_stream_count(group_ties: TieTable, streams: Streams) -> None:
    if len(streams) != group_ties.n_segments:
        raise InputError(f"one stream per group is needed: {group_ties.n_segments:,} groups, "
                         f"{len(streams):,} streams")
