"""The Hanley & McNeil (1982) standard error of the ROC AUC (the tutorial on its 95% interval)."""

from __future__ import annotations

import numpy as np

__all__ = ["hanley_mcneil_se"]


def hanley_mcneil_se(auc, n_pos, n_neg) -> np.ndarray:
    r"""Hanley & McNeil (1982) standard error of the ROC AUC.

    .. math::

        SE(A) = \sqrt{\frac{A(1-A) + (n_P - 1)(Q_1 - A^2) + (n_N - 1)(Q_2 - A^2)}{n_P n_N}},
        \qquad Q_1 = \frac{A}{2 - A}, \quad Q_2 = \frac{2A^2}{1 + A}.

    ``Q1`` (two positives both outscore one negative) and ``Q2`` (one positive
    outscores two negatives) come from Hanley & McNeil's exponential model,
    not from the data, so this SE depends on the data only through A and the
    class sizes. The interval is ``A ± z SE``, not truncated to [0, 1].

    Parameters
    ----------
    auc, n_pos, n_neg : array_like
        Estimates and class sizes (broadcast together).

    Returns
    -------
    ndarray of float64

    References
    ----------
    Hanley, J. A., McNeil, B. J. (1982). The meaning and use of the area under
    a receiver operating characteristic (ROC) curve. Radiology 143, 29-36,
    Table 2 and Eq. (2).
    """
    a = np.asarray(auc, dtype=np.float64)
    m = np.asarray(n_pos, dtype=np.float64)
    n = np.asarray(n_neg, dtype=np.float64)
    q1 = a / (2.0 - a)
    q2 = 2.0 * a * a / (1.0 + a)
    a2 = a * a
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (a * (1.0 - a) + (m - 1.0) * (q1 - a2) + (n - 1.0) * (q2 - a2)) / (m * n)
    # Q1 - A^2 and Q2 - A^2 are >= 0 on [0, 1]; clip the rounding at A = 0 or 1
    return np.sqrt(np.maximum(var, 0.0))
