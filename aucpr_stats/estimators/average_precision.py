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
    tp = ties.tp()
    admitted = tp + ties.fp()
    # rows with no positive contribute nothing; guard 0/0 on empty leading rows
    precision = np.divide(tp, admitted, out=np.zeros(ties.n_rows), where=admitted > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ties.segment_sum(ties.pos * precision) / ties.n_pos
