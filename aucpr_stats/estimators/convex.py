"""Interpolated convex estimator: the achievable PR curve of Davis & Goadrich (2006).

Boyd, Eng & Page (2013), section 3.1: keep only the empirical ROC points on
the upper convex hull, translate them into PR space, and integrate the
Davis-Goadrich interpolation between them.
"""

from __future__ import annotations

import numpy as np

from .._ties import TieTable
from ._pr_points import pr_point_counts
from ._runs import pairwise_area, runs_of

__all__ = ["interpolated_convex", "upper_hull"]


def upper_hull(x: np.ndarray, y: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Vertices of the upper convex hull of monotone point chains, all segments at once.

    Each segment's points ``offsets[k]:offsets[k+1]`` must be ordered with
    ``x`` and ``y`` non-decreasing and no two points equal (an empirical ROC
    curve in count units: ``x = FP``, ``y = TP``). The first and last point of a
    segment are always kept.

    The chain is pruned in rounds: every interior point on or below the chord
    of its current neighbours is removed, all segments and all such points at
    once. A point on or below a chord between two points of the set is never a
    vertex of the hull, so removing many at once is safe; when no point is
    removed, the chain turns right at every interior point, which for a
    chain monotone in ``x`` means it is the upper hull. The orientation test
    uses exact integer arithmetic. Only the neighbours of removed points are
    tested again, so later rounds are cheap.

    Parameters
    ----------
    x, y : ndarray of int64, shape (n_points,)
    offsets : ndarray of int64, shape (n_segments + 1,)

    Returns
    -------
    ndarray of int64
        Sorted indices of the hull vertices (the segment boundaries follow from
        ``offsets`` by ``searchsorted``).
    """
    n = x.size
    # doubly linked list over the points; -1 marks a segment end
    prev = np.arange(-1, n - 1, dtype=np.int64)
    nxt = np.arange(1, n + 1, dtype=np.int64)
    prev[offsets[:-1]] = -1
    nxt[offsets[1:] - 1] = -1
    alive = np.ones(n, dtype=bool)
    candidates = np.flatnonzero((prev >= 0) & (nxt >= 0))
    while candidates.size:
        j, k = prev[candidates], nxt[candidates]
        # cross((c - j), (k - j)) >= 0: c lies on or below the chord j -> k
        cross = (x[candidates] - x[j]) * (y[k] - y[j]) - (y[candidates] - y[j]) * (x[k] - x[j])
        drop = candidates[cross >= 0]
        if drop.size == 0:
            break
        alive[drop] = False
        # relink: for each maximal run of dropped points, join its alive ends
        # (an alive point's nearest alive neighbours come from cumulative indices)
        left = _nearest_alive_left(prev, alive, drop)
        right = _nearest_alive_right(nxt, alive, drop)
        has_left, has_right = left >= 0, right >= 0
        nxt[left[has_left]] = right[has_left]
        prev[right[has_right]] = left[has_right]
        touched = np.unique(np.concatenate([left, right]))
        touched = touched[touched >= 0]
        candidates = touched[(prev[touched] >= 0) & (nxt[touched] >= 0)]
    return np.flatnonzero(alive)


def _nearest_alive_left(prev: np.ndarray, alive: np.ndarray, drop: np.ndarray) -> np.ndarray:
    """For each dropped point, the nearest alive point before it (or -1).

    Pointer jumping over the dropped points: each step doubles the distance
    covered, so a run of ``L`` dropped points needs ``log2(L)`` steps.
    """
    target = prev[drop]
    while True:
        pending = (target >= 0) & ~alive[np.maximum(target, 0)]
        if not pending.any():
            return target
        target[pending] = prev[target[pending]]


def _nearest_alive_right(nxt: np.ndarray, alive: np.ndarray, drop: np.ndarray) -> np.ndarray:
    """For each dropped point, the nearest alive point after it (or -1)."""
    target = nxt[drop]
    while True:
        pending = (target >= 0) & ~alive[np.maximum(target, 0)]
        if not pending.any():
            return target
        target[pending] = nxt[target[pending]]


def interpolated_convex(ties: TieTable) -> np.ndarray:
    r"""Interpolated AUCPR through the ROC convex hull (the achievable PR curve).

    Boyd, Eng & Page (2013), section 3.1, after Davis & Goadrich (2006). The
    empirical ROC points, from (0, 0) through one point per threshold between
    distinct scores to (1, 1), are reduced to the vertices of their upper
    convex hull; each vertex is translated into PR space with the sample
    prevalence (``recall = TP/n_pos``, ``precision = TP/(TP + FP)``); where a
    recall repeats the largest precision is kept; consecutive points are
    joined by the Davis-Goadrich interpolation (Theorem 1, Eq. 5) and its
    closed-form area is summed, with a rectangle at the first positive recall's
    precision from recall 0. Boyd et al. found this estimator biased upwards.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive and one negative.

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, section 3.1.
    Davis, J., Goadrich, M. (2006). The relationship between precision-recall
    and ROC curves. ICML.

    Examples
    --------
    >>> from aucpr_stats._ties import TieTable
    >>> # ROC points (0,0), (0,1/2), (1/2,1/2), (1,1): the hull drops (1/2,1/2)
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 0, 1], neg=[0, 1, 1], offsets=[0, 3])
    >>> round(float(interpolated_convex(t)[0]), 6)  # 1/2 + 1/6 + (2/9) log 2
    0.820699
    """
    tp, fp, offsets = pr_point_counts(ties)
    hull = upper_hull(fp, tp, offsets)
    hull_offsets = np.searchsorted(hull, offsets).astype(np.int64)
    h_tp, h_fp = tp[hull], fp[hull]
    n_pos = h_tp[hull_offsets[1:] - 1]
    admitted = h_tp + h_fp
    precision = np.divide(h_tp, admitted, out=np.ones(h_tp.size), where=admitted > 0)
    runs = runs_of(h_tp, precision, n_pos, hull_offsets)
    # along the hull, precision falls within a run of equal recall: the first is the largest
    return pairwise_area(runs.recall, runs.p_max, runs.p_max, runs.offsets, "dg")
