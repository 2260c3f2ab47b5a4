"""Per-positive standard error (the addendum on the standard deviation of AUC-PR).

An estimate that is the mean of one contribution per positive,
:math:`\\hat\\theta = \\frac1n\\sum_j f_j`, has the standard error of a mean,

.. math:: \\widehat{se} = \\frac{s_f}{\\sqrt n}, \\qquad
          s_f^2 = \\frac{1}{n-1}\\sum_j (f_j - \\hat\\theta)^2,

and the interval :math:`\\hat\\theta \\pm \\Phi^{-1}_{1-\\alpha/2}\\,\\widehat{se}`.
Two estimators have this form:

* ``average_precision``: ``f_j`` is the precision at the tie block that admits
  positive ``j`` (Boyd et al. 2013, Eq. 9);
* ``threshold_trapezoid``: ``f_j`` is the sum of the trapezoid weights of the
  thresholds that admit ``j`` (the addendum), see
  :func:`aucpr_stats.estimators.threshold_trapezoid.threshold_trapezoid_contributions`.

The standard error treats the contributions as independent, which they are
not exactly (each depends on the other rows through the precision); it is
the addendum's approximation, and the interval is not clipped to [0, 1].
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._ties import TieTable
from ..estimators.threshold_trapezoid import threshold_trapezoid_contributions
from ..exceptions import InputError
from .closed_form import normal_quantile

__all__ = ["PER_POSITIVE_ESTIMATORS", "average_precision_contributions", "per_positive_se",
           "per_positive_interval"]


def average_precision_contributions(ties: TieTable) -> np.ndarray:
    """Contribution of a positive in each tie row to average precision: the precision ``TP / (TP + FP)`` there."""
    tp = ties.tp()
    admitted = tp + ties.fp()
    return np.divide(tp, admitted, out=np.zeros(ties.n_rows), where=admitted > 0)


#: Estimators that are a mean of per-positive contributions, with the
#: function giving the contribution of a positive in each tie row.
PER_POSITIVE_ESTIMATORS: dict[str, Callable[[TieTable], np.ndarray]] = {
    "average_precision": average_precision_contributions,
    "threshold_trapezoid": threshold_trapezoid_contributions,
}


def _contributions(ties: TieTable, estimator: str) -> np.ndarray:
    try:
        return PER_POSITIVE_ESTIMATORS[estimator](ties)
    except KeyError:
        raise InputError(
            f"method 'per_positive' needs an estimator that is a mean of per-positive contributions: "
            f"{list(PER_POSITIVE_ESTIMATORS)}; got estimator {estimator!r}"
        ) from None


def per_positive_se(ties: TieTable, estimator: str) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of the per-positive contributions of each segment.

    Parameters
    ----------
    ties : TieTable
    estimator : {"average_precision", "threshold_trapezoid"}

    Returns
    -------
    mean, se : ndarray, shape (n_segments,)
        ``mean`` equals the estimator; ``se = sd / sqrt(n_pos)`` with the
        sample standard deviation (divisor ``n_pos - 1``), so NaN when a
        segment has fewer than two positives.

    Raises
    ------
    InputError
        ``estimator`` is not one of the two mean-of-contributions estimators.
    """
    f = _contributions(ties, estimator)
    n = ties.n_pos.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = ties.segment_sum(ties.pos * f) / n
        # contributions are shared by the positives of a row: weight by the count
        centred = f - np.repeat(mean, ties.lengths)
        ss = ties.segment_sum(ties.pos * centred * centred)
        sd = np.sqrt(np.where(n > 1, ss / (n - 1.0), np.nan))
        return mean, sd / np.sqrt(n)


def per_positive_interval(ties: TieTable, estimator: str, level: float = 0.95):
    """Per-positive interval ``estimate ± z · sd / sqrt(n_pos)`` per segment: (lower, upper, se).

    Examples
    --------
    >>> from aucpr_stats._ties import TieTable
    >>> t = TieTable([3.0, 2.0, 1.0, 0.0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 4])
    >>> lower, upper, se = per_positive_interval(t, "average_precision")
    >>> float(se[0])  # contributions 1 and 2/3: sd = (1/3)/sqrt(2), se = sd/sqrt(2)
    0.16666666666666669
    """
    mean, se = per_positive_se(ties, estimator)
    half = normal_quantile(level) * se
    return mean - half, mean + half, se
