"""Segments and runs of sorted rows: the two index computations every table builder shares.

Rows sorted by group (and, within a group, by score) become a tie table by
cutting them at the groups' boundaries (:func:`segment_offsets`) and merging
each run of equal (group, score) into one tie row (:func:`run_starts`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["segment_offsets", "run_starts"]


def segment_offsets(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Offsets of ``n_groups`` segments from the group index of each row, the rows sorted by group.

    Examples
    --------
    >>> segment_offsets(np.array([0, 0, 2]), 3)
    array([0, 2, 2, 3])
    """
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(group, minlength=n_groups), out=offsets[1:])
    return offsets


def run_starts(group: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Where each run of equal (group, score) begins, as a boolean mask over rows sorted by group then score.

    Examples
    --------
    >>> run_starts(np.array([0, 0, 0, 1]), np.array([2.0, 2.0, 1.0, 1.0]))
    array([ True, False,  True,  True])
    """
    new_run = np.ones(score.size, dtype=bool)
    if score.size:
        np.not_equal(score[1:], score[:-1], out=new_run[1:])
        new_run[1:] |= group[1:] != group[:-1]
    return new_run
