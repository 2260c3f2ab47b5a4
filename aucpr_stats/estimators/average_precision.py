"""Average precision, Boyd, Eng & Page (2013) Eq. (9)."""

from __future__ import annotations

import numpy as np

from .._ties import TieTable, positive_rows_only

__all__ = ["average_precision"]


@positive_rows_only
def average_precision(ties: TieTable) -> np.ndarray:
    r"""Average precision of each segment of a tie table.

    .. math:: \hat\theta_A = \frac{1}{n}\sum_{i=1}^{n} \widehat{Prec}(Y_i)

    Boyd, Eng & Page (2013), Eq. (9): the mean over the ``n`` positives of the
    precision at the threshold that admits that positive. Tied scores form one
    block that is admitted at once, so all positives of a block share the
    precision ``TP / (TP + FP)`` counted at the bottom of the block. This is
    the definition of ``sklearn.metrics.average_precision_score``.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive (others give NaN).

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, Eq. (9).

    Examples
    --------
    >>> from aucpr_stats._ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 0, 1], neg=[0, 1, 0], offsets=[0, 3])
    >>> float(average_precision(t)[0])  # (1/1 + 2/3) / 2
    0.8333333333333333
    """
    # Only rows holding positives contribute; every positive of a row shares
    # the precision TP / (TP + FP) counted down to the bottom of its tie block.
    if ties.n_segments == 1:
        weight, tp, fp = ties.positive_rows()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.array([np.sum(weight * (tp / (tp + fp))) / weight.sum()])
    # many segments: TP is the running sum of the positive counts of those
    # rows, FP the running sum of the negatives of all rows, read at those rows
    pos, neg = ties.pos, ties.neg
    rows = np.flatnonzero(pos > 0)
    weight = pos[rows]
    tp = np.cumsum(weight)
    fp = np.cumsum(neg)[rows]
    # the running sums cross segments: subtract the counts of earlier segments
    n_pos, n_neg = ties.segment_sum(pos), ties.segment_sum(neg)
    segment = np.searchsorted(ties.offsets, rows, side="right") - 1
    tp -= (np.cumsum(n_pos) - n_pos)[segment]
    fp -= (np.cumsum(n_neg) - n_neg)[segment]
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.bincount(segment, weights=weight * (tp / (tp + fp)), minlength=ties.n_segments)
        return total / n_pos
