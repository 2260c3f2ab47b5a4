"""Per-positive standard error (the addendum on the standard deviation of AUC-PR).

An estimate that is the mean of one contribution per positive,
:math:`\\hat\\theta = \\frac1n\\sum_j f_j`, has the standard error of a mean,

.. math:: \\widehat{se} = \\frac{s_f}{\\sqrt n}, \\qquad
          s_f^2 = \\frac{1}{n-1}\\sum_j (f_j - \\hat\\theta)^2,

and the interval :math:`\\hat\\theta \\pm \\Phi^{-1}_{1-\\alpha/2}\\,\\widehat{se}`.
The estimators of this form carry their contributions in their registry
record (:mod:`aucpr_stats.estimators.registry`): ``average_precision`` (the
precision at the tie block that admits positive ``j``, Boyd et al. 2013,
Eq. 9) and ``threshold_trapezoid`` (the sum of the trapezoid weights of the
thresholds that admit ``j``, the addendum).

The standard error treats the contributions as independent, which they are
not exactly (each depends on the other rows through the precision); it is
the addendum's approximation, and the interval is not clipped to [0, 1].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..estimators import PR_ESTIMATORS
from ..exceptions import InputError
from ..ties import TieTable
from .closed_form import normal_quantile

__all__ = ["per_positive_se", "per_positive_interval", "per_positive_method"]


def _contributions(estimator: Any):
    """The contributions function of an estimator given by name or record; a clear error without one."""
    record = PR_ESTIMATORS.get(estimator) if isinstance(estimator, str) else estimator
    contributions = getattr(record, "contributions", None)
    if contributions is None:
        served = [name for name, r in PR_ESTIMATORS.items() if r.contributions is not None]
        name = estimator if isinstance(estimator, str) else getattr(estimator, "name", estimator)
        raise InputError(f"method 'per_positive' needs an estimator that is a mean of per-positive contributions: "
                         f"{served}; got estimator {name!r}")
    return contributions


def per_positive_se(ties: TieTable, estimator: Any) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of the per-positive contributions of each segment.

    Parameters
    ----------
    ties : TieTable
    estimator : str or Estimator
        An estimator whose registry record has per-positive contributions
        (``"average_precision"``, ``"threshold_trapezoid"``).

    Returns
    -------
    mean, se : ndarray, shape (n_segments,)
        ``mean`` equals the estimator; ``se = sd / sqrt(n_pos)`` with the
        sample standard deviation (divisor ``n_pos - 1``), so NaN when a
        segment has fewer than two positives.

    Raises
    ------
    InputError
        The estimator is not a mean of per-positive contributions.
    """
    f = _contributions(estimator)(ties)
    n = ties.n_pos.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = ties.segment_sum(ties.pos * f) / n
        # contributions are shared by the positives of a row: weight by the count
        centred = f - np.repeat(mean, ties.lengths)
        ss = ties.segment_sum(ties.pos * centred * centred)
        sd = np.sqrt(np.where(n > 1, ss / (n - 1.0), np.nan))
        return mean, sd / np.sqrt(n)


def per_positive_interval(ties: TieTable, estimator: Any, level: float = 0.95):
    """Per-positive interval ``estimate ± z · sd / sqrt(n_pos)`` per segment: (lower, upper, se).

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable([3.0, 2.0, 1.0, 0.0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 4])
    >>> lower, upper, se = per_positive_interval(t, "average_precision")
    >>> float(se[0])  # contributions 1 and 2/3: sd = (1/3)/sqrt(2), se = sd/sqrt(2)
    0.16666666666666669
    """
    mean, se = per_positive_se(ties, estimator)
    half = normal_quantile(level) * se
    return mean - half, mean + half, se


def per_positive_method(request) -> dict:
    """The ``per_positive`` method of ``conf_int``: every estimator's contributions, every usable group."""
    out = {key: request.blank() for key in ("lower", "upper", "se")}
    if request.usable.size == 0:
        return out
    z = normal_quantile(request.level)
    for j, record in enumerate(request.estimators):
        _, se = per_positive_se(request.ties, record)
        estimate = request.result.estimates[request.usable, j]
        out["se"][request.usable, j] = se
        out["lower"][request.usable, j] = estimate - z * se
        out["upper"][request.usable, j] = estimate + z * se
    return out


def per_positive_note(request, out) -> np.ndarray:
    notes = np.full(out["lower"].shape, None, dtype=object)
    notes[request.result.n_pos < 2] = "fewer than 2 positives: no per-positive standard error"
    return notes
