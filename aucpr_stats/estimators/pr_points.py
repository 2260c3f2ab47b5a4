"""Empirical precision-recall points and Davis-Goadrich interpolation.

Shared by every AUCPR estimator and by the PR curve: the points are the same
for all of them (Boyd, Eng & Page 2013, section 3.1), and the interpolation
between two PR points is the one of their Theorem 1 (Davis & Goadrich 2006),
which is a straight line in ROC space seen in PR space.

Everything works on flat arrays in CSR layout (one ``offsets`` vector), so one
numpy call serves every segment (group, bootstrap replicate, fold) at once.
"""

from __future__ import annotations

import functools
import weakref
from typing import Callable, TypeVar

import numpy as np

from ..ties import TieTable

__all__ = ["pr_points", "pr_point_counts", "dg_interpolate", "dg_area"]

T = TypeVar("T")


def remember_last(fn: Callable[[TieTable], T]) -> Callable[[TieTable], T]:
    """Keep the result for the most recent table only, while that table is alive.

    The engine runs several estimators one after another on the same tie
    table; they share its PR points instead of recomputing them. The slot
    holds a weak reference, so the memory goes with the table. Results are
    pure functions of the (frozen) table, so the memo changes no result; the
    arrays it hands out are read-only.
    """
    slot: list = [None]

    def forget(ref) -> None:
        current = slot[0]
        if current is not None and current[0] is ref:
            slot[0] = None

    @functools.wraps(fn)
    def wrapper(ties: TieTable) -> T:
        current = slot[0]
        if current is not None and current[0]() is ties:
            return current[1]
        result = fn(ties)
        slot[0] = (weakref.ref(ties, forget), result)
        return result

    return wrapper


def _read_only(*arrays: np.ndarray) -> None:
    for array in arrays:
        array.setflags(write=False)


@remember_last
def pr_point_counts(ties: TieTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """True and false positives at every empirical PR point, per segment.

    The integer version of :func:`pr_points`: the start point has
    ``tp = fp = 0``, then one point per tie row with nonzero counts.

    Parameters
    ----------
    ties : TieTable

    Returns
    -------
    tp, fp : ndarray of int64, shape (n_points,)
        Cumulative positives / negatives scored above the threshold.
    offsets : ndarray of int64, shape (n_segments + 1,)
        Segment ``k`` owns points ``offsets[k]:offsets[k+1]``; each segment has
        one point more than it has (nonzero) tie rows.

    The arrays are read-only (they are shared by the estimators that run on
    the same table).
    """
    # zero-count rows (bootstrap draws) are not thresholds: drop them first
    ties = ties.compact()
    n_seg = ties.n_segments
    offsets = ties.offsets + np.arange(n_seg + 1, dtype=np.int64)
    n_points = int(offsets[-1])
    is_start = np.zeros(n_points, dtype=bool)
    is_start[offsets[:-1]] = True
    tp = np.zeros(n_points, dtype=ties.pos.dtype)  # float64 for weighted counts
    fp = np.zeros(n_points, dtype=ties.neg.dtype)
    tp[~is_start] = ties.tp()
    fp[~is_start] = ties.fp()
    _read_only(tp, fp, offsets)
    return tp, fp, offsets


def pr_points(ties: TieTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empirical PR points of every segment of a tie table.

    Boyd, Eng & Page (2013), section 3.1: a start point (recall 0,
    precision 1), then one point per threshold placed between distinct
    scores, from the highest score down, so a threshold never splits tied
    scores. At a threshold admitting ``TP`` positives and ``FP`` negatives,
    recall is ``TP / n_pos`` and precision ``TP / (TP + FP)``. Where the
    highest-scored rows are negatives, points (0, 0) occur. Rows with
    ``pos = neg = 0`` (bootstrap draws) create no point.

    Parameters
    ----------
    ties : TieTable
        Segments without positives get NaN recalls.

    Returns
    -------
    recall, precision : ndarray of float64, shape (n_points,)
        Recall is non-decreasing within a segment.
    offsets : ndarray of int64, shape (n_segments + 1,)
        CSR layout: segment ``k`` owns points ``offsets[k]:offsets[k+1]``.

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, section 3.1.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[0, 1, 1], neg=[1, 1, 0], offsets=[0, 3])
    >>> r, p, off = pr_points(t)
    >>> r.tolist(), p.tolist()
    ([0.0, 0.0, 0.5, 1.0], [1.0, 0.0, 0.3333333333333333, 0.5])
    """
    tp, fp, offsets = pr_point_counts(ties)
    n_pos = np.repeat(_segment_n_pos(tp, offsets), np.diff(offsets))
    admitted = tp + fp
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = tp / n_pos
    # the start point admits nothing: precision 1 by convention
    precision = np.divide(tp, admitted, out=np.ones(tp.size), where=admitted > 0)
    return recall, precision, offsets.copy()


def _segment_n_pos(tp: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Positives per segment: the true positives at its last point (0 if empty)."""
    last = offsets[1:] - 1
    out = np.zeros(offsets.size - 1, dtype=np.int64)
    nonempty = offsets[1:] > offsets[:-1]
    out[nonempty] = tp[last[nonempty]]
    return out


def _fp_scale(r: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``g = r (1 - p) / p``, the false positives in units of n_pos (Eq. 6 without pi).

    ``g = 0`` when ``r = 0`` (whatever ``p``), ``+inf`` when ``p = 0 < r``.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        g = r * (1.0 - p) / p
    g = np.where(r == 0, 0.0, g)
    return np.where((p == 0) & (r > 0), np.inf, g)


def dg_interpolate(r1, p1, r2, p2, r) -> np.ndarray:
    r"""Davis-Goadrich interpolation between two PR points (Theorem 1, Eq. 5).

    .. math:: p' = \frac{r'}{a r' + b}, \qquad r_1 \le r' \le r_2,

    the image in PR space of the straight line between the two points in ROC
    space. It does not depend on the prevalence. Computed as
    ``p' = r' / (r' + g')`` with ``g = r (1-p)/p`` (the false positive rate
    of Eq. 6 divided by ``pi/(1-pi)``) interpolated linearly in ``r'``, which
    equals Eq. (5) and stays finite in the special cases:

    * ``r1 = 0``: the line leaves the ROC origin, so ``p'`` is constant at
      ``p2`` for ``r' > 0`` (``g1 = 0`` whatever ``p1``);
    * ``p = 0`` at an end point with positive recall: ``p' = 0`` on the open
      side of that end;
    * ``r1 = r2``: the end points are returned as they are (``p1`` when
      ``r' = r1``).

    At ``r' = r1`` the result is ``p1`` and at ``r' = r2`` it is ``p2``.

    Parameters
    ----------
    r1, p1, r2, p2 : array_like
        End points, broadcast together, with ``0 <= r1 <= r2`` and
        precisions in ``[0, 1]``.
    r : array_like
        Recalls at which to interpolate, broadcast with the end points.

    Returns
    -------
    ndarray of float64
        Interpolated precisions.

    References
    ----------
    Davis, J., Goadrich, M. (2006). The relationship between precision-recall
    and ROC curves. ICML. Boyd, K., Eng, K. H., Page, C. D. (2013), Theorem 1.

    Examples
    --------
    >>> # g = r (1 - p) / p is 0.5 and 3 at the ends, 1.75 halfway: 0.75 / (0.75 + 1.75)
    >>> round(float(dg_interpolate(0.5, 0.5, 1.0, 0.25, 0.75)), 12)
    0.3
    """
    r1, p1, r2, p2, r = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (r1, p1, r2, p2, r)))
    g1, g2 = _fp_scale(r1, p1), _fp_scale(r2, p2)
    width = r2 - r1
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(width > 0, (r - r1) / width, 0.0)
        # linear in ROC space: g' = (1 - t) g1 + t g2, where 0 * inf counts as 0
        g = np.where(t < 1, (1 - t) * g1, 0.0) + np.where(t > 0, t * g2, 0.0)
        out = r / (r + g)
    out = np.where(np.isinf(g), 0.0, out)
    out = np.where(r == r1, p1, out)
    return np.where((r == r2) & (width > 0), p2, out)


def _excess_log_ratio(rho: np.ndarray) -> np.ndarray:
    """``k(rho) = (rho - 1 - log rho) / (rho - 1)^2``, stable near ``rho = 1``.

    ``k(1) = 1/2``; near 1 the Taylor series in ``v = rho - 1``
    ``sum_j (-1)^j v^j / (j + 2)`` avoids the cancellation.
    """
    v = rho - 1.0
    near = np.abs(v) < 1e-3
    series = 0.5 + v * (-1 / 3 + v * (1 / 4 + v * (-1 / 5 + v * (1 / 6 + v * (-1 / 7)))))
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = (v - np.log(rho)) / (v * v)
    return np.where(near, series, direct)


def dg_area(r1, p1, r2, p2) -> np.ndarray:
    r"""Area under the Davis-Goadrich interpolation between two PR points.

    The corrected closed form below Theorem 1 of Boyd et al. (2013):

    .. math:: \int_{r_1}^{r_2} \frac{r'}{a r' + b}\,dr'
              = \frac{a r_2 - b\log(a r_2 + b) - a r_1 + b\log(a r_1 + b)}{a^2}.

    That expression cancels catastrophically when ``a`` is small and is 0/0
    when ``a = 0`` (a straight segment through the origin). Writing
    ``D = a r + b = r / p`` and ``rho = D1 / D2 = r1 p2 / (r2 p1)``, it equals

    .. math:: (r_2 - r_1)\, p_2 \left[1 - \frac{r_1}{r_2}
              \left(\frac{p_2}{p_1} - 1\right) k(\rho)\right],
              \qquad k(\rho) = \frac{\rho - 1 - \log\rho}{(\rho - 1)^2},

    with ``k(1) = 1/2`` (the case ``a = 0``), evaluated by a series near 1.
    Special cases, none dividing by zero or taking the log of zero:

    * ``r1 = 0``: a rectangle of height ``p2`` (the line leaves the ROC
      origin, see :func:`dg_interpolate`);
    * equal precisions: ``(r2 - r1) p`` (then ``k`` is multiplied by 0);
    * ``p1 = 0 < r1`` or ``p2 = 0``: area 0;
    * ``r1 = r2``: area 0.

    Parameters
    ----------
    r1, p1, r2, p2 : array_like
        End points, broadcast together, ``0 <= r1 <= r2``.

    Returns
    -------
    ndarray of float64

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, Theorem 1 and
    the (corrected) integral below it.

    Examples
    --------
    >>> float(dg_area(0.5, 0.5, 1.0, 0.5))  # equal precisions: a rectangle
    0.25
    >>> float(dg_area(0.0, 0.0, 0.5, 0.8))  # from recall 0: a rectangle at p2
    0.4
    """
    r1, p1, r2, p2 = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (r1, p1, r2, p2)))
    width = r2 - r1
    regular = (r1 > 0) & (p1 > 0) & (p2 > 0) & (width > 0)
    safe_p1 = np.where(regular, p1, 1.0)
    safe_r2 = np.where(regular, r2, 1.0)
    rho = np.where(regular, (r1 * p2) / (safe_r2 * safe_p1), 1.0)
    shape = 1.0 - (r1 / safe_r2) * (p2 / safe_p1 - 1.0) * _excess_log_ratio(rho)
    area = np.where(regular, width * p2 * shape, 0.0)
    # from the ROC origin: constant precision p2
    return np.where((r1 == 0) & (width > 0), width * p2, area)
