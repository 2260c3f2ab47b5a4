"""Average precision, Boyd, Eng & Page (2013) Eq. (9)."""

from __future__ import annotations

import numpy as np

from .._ties import TieTable

__all__ = ["average_precision"]


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
    pos, neg = ties.pos, ties.neg
    # Only rows holding positives contribute; every positive of a row shares
    # the precision TP / (TP + FP) counted down to the bottom of its tie block.
    # Work on those rows alone: TP is the running sum of their counts, and FP
    # the negatives in all rows up to each of them (the negatives between
    # consecutive positive rows, summed by reduceat), so no full-length
    # cumulative sum is materialised.
    rows = np.flatnonzero(pos > 0)  # (a boolean mask scans about twice as fast as int64)
    weight = pos[rows]
    tp = np.cumsum(weight)
    if rows.size:
        between = np.add.reduceat(neg, rows)  # neg[rows[k]:rows[k+1]]
        fp = neg[: rows[0]].sum() + (np.cumsum(between) - between) + neg[rows]
    else:
        fp = np.zeros(0, dtype=np.int64)
    if ties.n_segments == 1:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.array([np.sum(weight * (tp / (tp + fp))) / weight.sum()])
    # the running sums cross segments: subtract the counts of earlier segments
    n_pos, n_neg = ties.segment_sum(pos), ties.segment_sum(neg)
    segment = np.searchsorted(ties.offsets, rows, side="right") - 1
    tp -= (np.cumsum(n_pos) - n_pos)[segment]
    fp -= (np.cumsum(n_neg) - n_neg)[segment]
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.bincount(segment, weights=weight * (tp / (tp + fp)), minlength=ties.n_segments)
        return total / n_pos
