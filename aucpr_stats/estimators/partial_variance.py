r"""A DeLong-type standard error of the partial AUROC, from placement values clipped to the window.

The partial area over false positive rates :math:`[a, b]` (specificities
:math:`[1-b, 1-a]`) is, for continuous scores,

.. math:: \theta = \int_a^b \mathrm{ROC}(t)\,dt
          = P(X > Y,\ c_b < Y \le c_a) + \ldots,

a functional of the two class distributions whose influence functions need no
density: differentiating :math:`P(X > Y, Y > c_e)` through the quantile
:math:`c_e = H^{-1}(1 - e)` gives :math:`-(1 - G(c_e))\,h(c_e)` times the
quantile's influence :math:`((1 - e) - 1\{y \le c_e\}) / h(c_e)`, and the
negatives' density :math:`h` cancels. (Zhang et al. 2002 and Dodd & Pepe
2003 build partial-area estimators on the same placement values.) For a
positive scored ``x`` and a negative scored ``y``:

.. math::

    \psi_X(x) = \min\{\max\{H(x) - (1-b), 0\},\ b - a\}, \qquad
    \psi_Y(y) = \phi_b(y) - \phi_a(y),\quad
    \phi_e(y) = \begin{cases} 1 - G(y) & \text{if } 1 - H(y) < e \\
                               \mathrm{ROC}(e) & \text{otherwise,} \end{cases}

with :math:`H` the negatives' cdf and :math:`1 - G(y)` the share of positives
above ``y`` (ties counted one half, the midrank placements of DeLong et al.
1988). As for the full area,

.. math:: \widehat{\mathrm{Var}}(\hat\theta) = \frac{S_X}{P} + \frac{S_Y}{N},

with :math:`S_X, S_Y` the sample variances of the clipped placement values.
Over the whole range :math:`[0, 1]` these are DeLong's placement values and
the variance is DeLong's (tested). The sensitivity focus is the specificity
focus of the mirrored table (classes swapped, scores reversed): over
sensitivities :math:`[e_1, e_2]` the area is the mirrored curve's over
specificities :math:`[e_1, e_2]`. McClish's standardisation divides the
standard error by :math:`2(\max - \min)`.

It is asymptotic: the clipping at the window's bounds is read at the
empirical quantile, and with few negatives inside the window (few positives,
for the sensitivity focus) the variance is poorly estimated; coverage is in
``benchmarks/roc_band_coverage.py``.

References
----------
DeLong, E. R., DeLong, D. M., Clarke-Pearson, D. L. (1988). Biometrics 44, 837-845.
Zhang, D. D., Zhou, X.-H., Freeman, D. H., Freeman, J. L. (2002). A non-parametric
method for the comparison of partial areas under ROC curves and its application to
large health care data sets. Statistics in Medicine 21, 701-715.
Dodd, L. E., Pepe, M. S. (2003). Partial AUC estimation and regression. Biometrics 59, 614-623.
"""

from __future__ import annotations

import numpy as np

from ..ties import TieTable
from .roc import placement_values

__all__ = ["mirrored", "partial_auroc_se"]


def mirrored(ties: TieTable) -> TieTable:
    """The table with the classes swapped and each segment's rows reversed: ROC (FPR, TPR) -> (1 - TPR, 1 - FPR)."""
    order = np.lexsort((-np.arange(ties.n_rows), ties.segment_ids()))
    return TieTable(-ties.score[order], ties.neg[order], ties.pos[order], ties.offsets)


def _roc_at(ties: TieTable, v10: np.ndarray, v01: np.ndarray, e: float) -> np.ndarray:
    """Per segment, the share of positives above the negatives' (1 - e) quantile, from the negatives' rows.

    The negatives are ordered by their FPR position ``u = 1 - v10``; the first
    negative row at or beyond ``e`` gives ``v01`` there (1 - G at the
    quantile, ties one half); ``0`` when every negative is above ``e``.
    """
    u = 1.0 - v10
    beyond = (ties.neg > 0) & (u >= e)
    # the highest-scored negative row at or beyond e: the first such row of the segment
    rows = np.flatnonzero(beyond)
    out = np.zeros(ties.n_segments)
    if rows.size:
        segment = ties.segment_ids()[rows]
        first = np.ones(rows.size, dtype=bool)
        first[1:] = segment[1:] != segment[:-1]
        out[segment[first]] = v01[rows[first]]
    return out


def _specificity_se(ties: TieTable, lo: float, hi: float) -> np.ndarray:
    a, b = 1.0 - hi, 1.0 - lo  # the window in false positive rates
    v10, v01 = placement_values(ties)
    with np.errstate(invalid="ignore"):
        psi_x = np.clip(v10 - (1.0 - b), 0.0, b - a)
        u = 1.0 - v10  # a negative's FPR position (midrank)
        roc_a, roc_b = _roc_at(ties, v10, v01, a), _roc_at(ties, v10, v01, b)
        seg = ties.segment_ids()
        psi_y = np.where(u < b, v01, roc_b[seg]) - np.where(u < a, v01, roc_a[seg])
    n_pos, n_neg = ties.n_pos.astype(np.float64), ties.n_neg.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_x = ties.segment_sum(ties.pos * psi_x) / n_pos
        mean_y = ties.segment_sum(ties.neg * psi_y) / n_neg
        s_x = ties.segment_sum(ties.pos * (psi_x - mean_x[seg]) ** 2) / (n_pos - 1)
        s_y = ties.segment_sum(ties.neg * (psi_y - mean_y[seg]) ** 2) / (n_neg - 1)
        se = np.sqrt(s_x / n_pos + s_y / n_neg)
    return np.where((n_pos > 1) & (n_neg > 1), se, np.nan)


def partial_auroc_se(ties: TieTable, focus: str, lo: float, hi: float, standardized: bool = False) -> np.ndarray:
    """DeLong-type standard error of the partial AUROC of each segment (see the module docstring).

    Parameters
    ----------
    ties : TieTable
        Segments with both classes; NaN where a class has a single case.
    focus : {"specificity", "sensitivity"}
    lo, hi : float
    standardized : bool
        The standard error of McClish's standardised area.

    Returns
    -------
    ndarray of float64, shape (n_segments,)
    """
    table = ties if focus == "specificity" else mirrored(ties)
    se = _specificity_se(table, lo, hi)
    if standardized:
        low, high = (hi - lo) * (2.0 - hi - lo) / 2.0, hi - lo
        se = se / (2.0 * (high - low))
    return se
