"""The threshold trapezoid: the addendum's AUCPR as a mean of per-positive contributions."""

from __future__ import annotations

import numpy as np

from ..ties import TieTable
from .tie_blocks import DEFAULT_TIES, crossing_precision

__all__ = ["threshold_trapezoid", "threshold_trapezoid_contributions"]


def threshold_trapezoid_contributions(ties: TieTable, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    r"""Contribution ``f_j`` of a positive in each tie row (one value per row).

    The addendum on the standard deviation of AUC-PR writes the trapezoid area
    under the PR points of all thresholds as :math:`\sum_t w_t\,recall_t` with

    .. math:: w_t = \tfrac12\,(prec_{t-1} - prec_{t+1}),

    the half-widths, in precision, of the two trapezoids next to threshold
    ``t`` (the curve is read with precision on the horizontal axis). The
    borders are :math:`prec_0 = prec_1` (a horizontal segment from recall 0 at
    the first threshold's precision) and precision 0 after the last threshold
    (a vertical drop at recall 1). Since :math:`recall_t` is the mean over the
    ``n`` positives of "threshold ``t`` admits ``j``", the area is the mean of

    .. math:: f_j = \sum_{t \text{ admits } j} w_t .

    Thresholds run from the highest score down, one per tie row, so positive
    ``j`` in row ``k`` is admitted by thresholds ``k, k+1, ..., T`` and the sum
    telescopes to :math:`f_j = (prec_{k-1} + prec_k)/2`: the mean of the
    precision at ``j``'s own threshold and at the threshold just above it
    (:math:`prec_0 = prec_1` for the first row). Rows with no counts repeat the
    previous point and change nothing; leading empty rows take the first
    real precision.

    With ``tie_blocks="interpolate"`` (the default), a positive in a row that
    also holds negatives gets the mean precision along the row's
    Davis-Goadrich crossing (:mod:`aucpr_stats.estimators.tie_blocks`) instead
    of the mean of its two end points: the straight line in PR space becomes
    the path a random order of the tied rows follows on average.

    Parameters
    ----------
    ties : TieTable
    tie_blocks : {"interpolate", "published"}

    Returns
    -------
    ndarray of float64, shape (n_rows,)
        ``f`` for a positive of each row (rows without positives get the value
        a positive there would have, unused).
    """
    tp = ties.tp()
    admitted = tp + ties.fp()
    precision = np.divide(tp, admitted, out=np.zeros(ties.n_rows), where=admitted > 0)
    # the point just above row k: row k-1 of the same segment if anything was
    # admitted by then; otherwise (first row, or only empty rows above) the
    # border prec_0 = prec_k
    before = np.empty(ties.n_rows)
    before[1:] = precision[:-1]
    admitted_before = np.zeros(ties.n_rows, dtype=admitted.dtype)
    admitted_before[1:] = admitted[:-1]
    starts = ties.offsets[:-1][ties.lengths > 0]
    admitted_before[starts] = 0
    before = np.where(admitted_before > 0, before, precision)
    out = 0.5 * (precision + before)
    if tie_blocks == "interpolate":
        pos, neg = ties.pos, ties.neg
        mixed = np.flatnonzero((pos > 0) & (neg > 0))
        out[mixed] = crossing_precision(tp[mixed] - pos[mixed], admitted[mixed] - tp[mixed] - neg[mixed],
                                        pos[mixed], neg[mixed])
    return out


def threshold_trapezoid(ties: TieTable, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    r"""AUCPR by the trapezoid rule over the PR points of all thresholds (the addendum).

    .. math:: \hat\theta_{TT} = \sum_{t=1}^{T} w_t\,recall_t
              = \frac1n \sum_{j=1}^{n} f_j,
              \qquad w_t = \tfrac12 (prec_{t-1} - prec_{t+1}),

    with one threshold per tie row (from the highest score down, so ties are
    never split), the border cases :math:`prec_0 = prec_1` (the curve starts
    with a horizontal segment from recall 0 at the first threshold's
    precision) and precision 0 past the last threshold (a vertical drop at
    recall 1). Equivalently, the ordinary trapezoid rule
    :math:`\sum_t (r_t - r_{t-1})(p_t + p_{t-1})/2` through the points
    :math:`(0, p_1), (r_1, p_1), \dots, (1, p_T)`. Unlike the lower and upper
    trapezoids of Boyd et al. (2013), every threshold is a point, including
    those that admit only negatives.

    Because the estimate is a mean of per-positive contributions ``f_j``
    (:func:`threshold_trapezoid_contributions`), its standard error is that
    of a mean, ``sd(f) / sqrt(n)``: the ``per_positive`` interval.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive (others give NaN).
    tie_blocks : {"interpolate", "published"}
        See :func:`threshold_trapezoid_contributions`.

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    Addendum on the standard deviation of AUC-PR (seed document 003 of this
    project). Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the
    precision-recall curve: point estimates and confidence intervals. ECML PKDD.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 0, 1], neg=[0, 1, 0], offsets=[0, 3])
    >>> float(threshold_trapezoid(t)[0])  # f = 1 and (1/2 + 2/3) / 2
    0.7916666666666666
    """
    contribution = threshold_trapezoid_contributions(ties, tie_blocks)
    rows = np.flatnonzero(ties.pos > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ties.segment_sum_at(rows, ties.pos[rows] * contribution[rows]) / ties.n_pos
