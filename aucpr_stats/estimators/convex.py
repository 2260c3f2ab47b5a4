"""Interpolated convex estimator: the achievable PR curve of Davis & Goadrich (2006).

Boyd, Eng & Page (2013), section 3.1: keep only the empirical ROC points on
the upper convex hull, translate them into PR space, and integrate the
Davis-Goadrich interpolation between them.
"""

from __future__ import annotations

import numpy as np

from ..ties import TieTable
from .pr_points import pr_point_counts
from .recall_runs import pairwise_area, runs_of

__all__ = ["interpolated_convex", "upper_hull"]


def upper_hull(x: np.ndarray, y: np.ndarray, offsets: np.ndarray, max_rounds: int = 64) -> np.ndarray:
    """Vertices of the upper convex hull of monotone point chains, all segments at once.

    Each segment's points ``offsets[k]:offsets[k+1]`` must be ordered with
    ``x`` and ``y`` non-decreasing and no two points equal (an empirical ROC
    curve in count units: ``x = FP``, ``y = TP``). The first and last point of a
    segment are always kept.

    The chain is pruned in rounds: every interior point on or below the chord
    of its current neighbours is removed, all segments and all such points at
    once, and the chain is compacted. A point on or below a chord between two
    points of the set is never a vertex of the hull, so removing many at once
    is safe; when no point is removed, the chain turns right at every interior
    point, which for a chain monotone in ``x`` means it is the upper hull. The
    orientation test uses exact integer arithmetic. Each round is a few array
    operations on the surviving points; empirical ROC curves need a handful
    to a few dozen rounds. A long run of points just under a hull edge would be
    peeled one point per round, so after 64 rounds the segments still
    changing are finished by Andrew's monotone chain (one sequential pass over
    each such segment's surviving points); ``max_rounds`` sets when (the same
    hull either way).

    Parameters
    ----------
    x, y : ndarray of int64, shape (n_points,)
    offsets : ndarray of int64, shape (n_segments + 1,)
        Every segment holds at least one point.
    max_rounds : int
        Peeling rounds before the segments still changing are finished sequentially.

    Returns
    -------
    ndarray of int64
        Sorted indices of the hull vertices (the segment boundaries follow from
        ``offsets`` by ``searchsorted``).
    """
    index = np.arange(x.size, dtype=np.int64)
    is_first = np.zeros(x.size, dtype=bool)
    is_first[offsets[:-1]] = True
    is_end = is_first.copy()
    is_end[offsets[1:] - 1] = True
    for _ in range(max_rounds):
        if index.size <= 2:
            return index
        # neighbours are adjacent in the compacted chain; segment ends are never
        # removed, so an interior point's neighbours are in its own segment.
        # cross((c - j), (k - j)) >= 0: c lies on or below the chord j -> k
        drop = _below_chord(x, y) & ~is_end[1:-1]
        if not drop.any():
            return index
        keep = np.ones(index.size, dtype=bool)
        keep[1:-1] = ~drop
        index, x, y, is_end, is_first = index[keep], x[keep], y[keep], is_end[keep], is_first[keep]
    # a long run just under a hull edge is peeled one point per round; finish the
    # segments still changing with Andrew's monotone chain, one pass each
    return _finish_with_monotone_chain(index, x, y, is_end, is_first)



def _below_chord(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """For each interior point of a compacted chain: on or below the chord of its neighbours."""
    dx_c, dy_c = x[1:-1] - x[:-2], y[1:-1] - y[:-2]
    dx_k, dy_k = x[2:] - x[:-2], y[2:] - y[:-2]
    return dx_c * dy_k - dy_c * dx_k >= 0


def _finish_with_monotone_chain(index, x, y, is_end, is_first) -> np.ndarray:
    """Andrew's monotone chain on the segments of a pruned chain that are not yet hulls."""
    bounds = np.append(np.flatnonzero(is_first), index.size)
    changing = np.zeros(index.size, dtype=bool)
    changing[1:-1] = _below_chord(x, y) & ~is_end[1:-1]
    keep = np.ones(index.size, dtype=bool)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if not changing[lo:hi].any():
            continue
        hull: list[int] = []
        for i in range(lo, hi):
            while len(hull) >= 2:
                j, c = hull[-2], hull[-1]
                cross = (int(x[c]) - int(x[j])) * (int(y[i]) - int(y[j])) \
                    - (int(y[c]) - int(y[j])) * (int(x[i]) - int(x[j]))
                if cross >= 0:  # c is on or below the chord j -> i
                    hull.pop()
                else:
                    break
            hull.append(i)
        keep[lo:hi] = False
        keep[hull] = True
    return index[keep]


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
    >>> from aucpr_stats.ties import TieTable
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
