r"""The flexible calibration curve on a grid of predicted risks, with a pointwise and a simultaneous band.

The curve is the restricted cubic spline logistic fit of
:mod:`aucpr_stats.estimators.calibration_curve`: at a predicted risk
:math:`p` with design row :math:`d(p) = (1, x, s_1(x), \dots)`,
:math:`x = \mathrm{logit}\,p`, the calibrated logit is :math:`d(p)^\top\hat\beta`
with variance :math:`d(p)^\top \hat V d(p)`, :math:`\hat V` the inverse
information (independent rows).

* **Pointwise**: :math:`d^\top\hat\beta \pm z_{1-\alpha/2}\,se(p)`, mapped
  through the inverse logit: covers the curve at each ``p`` separately.
* **Simultaneous** (Scheffé 1953; Working & Hotelling 1929): the critical
  value :math:`\sqrt{\chi^2_{k, 1-\alpha}}` with ``k`` the number of spline
  coefficients covers the whole curve at once, over every ``p``, whenever
  the Wald ellipsoid of :math:`\hat\beta` covers :math:`\beta`. It is
  conservative (the curve is a ``k``-dimensional family, and the band holds
  for all of it), never anti-conservative for the spline's own curve; it
  does not cover the misfit of a spline that is too stiff.

With ``weights=``, ``cluster=`` or a stated prevalence the inverse
information is not the estimator's variance: the bands are NaN there, with
a note (the curve is drawn; at a stated prevalence it is the fit with the
controls reweighted to the population).
"""

from __future__ import annotations

import attrs
import numpy as np

from ..distributions import chi2_quantile, expit, logit, normal_quantile
from ..estimators.calibration_curve import calibration_curve, spline_basis
from ..ties import TieTable

__all__ = ["CurveBand", "curve_band"]


@attrs.frozen(eq=False)
class CurveBand:
    """Per group (rows) and grid point (columns): the predicted risk, the calibrated risk and its bands."""

    risk: np.ndarray
    calibrated: np.ndarray
    pointwise: tuple[np.ndarray, np.ndarray]
    simultaneous: tuple[np.ndarray, np.ndarray]
    critical: tuple[float, float]


def curve_band(ties: TieTable, knots: int, n_points: int, level: float, prevalence: float | None,
               bands: bool = True, weighted: bool = False) -> CurveBand:
    """The curve of every segment on ``n_points`` risks from its smallest to its largest prediction in (0, 1)."""
    fit, knot_rows, _ = calibration_curve(ties, knots, weighted, prevalence)
    p = ties.score
    inside = (p > 0.0) & (p < 1.0) & ((ties.pos + ties.neg) > 0)
    ids = ties.segment_ids()
    low = np.full(ties.n_segments, np.nan)
    high = np.full(ties.n_segments, np.nan)
    if inside.any():
        low_all, high_all = np.full(ties.n_segments, np.inf), np.full(ties.n_segments, -np.inf)
        np.minimum.at(low_all, ids[inside], p[inside])
        np.maximum.at(high_all, ids[inside], p[inside])
        ok = np.isfinite(low_all)
        low[ok], high[ok] = low_all[ok], high_all[ok]
    step = np.linspace(0.0, 1.0, n_points)
    risk = low[:, None] + (high - low)[:, None] * step[None, :]
    x = logit(np.clip(risk, 1e-300, 1.0 - 1e-16))
    n_seg = ties.n_segments
    flat_x = x.ravel()
    flat_knots = np.repeat(np.where(np.isfinite(knot_rows), knot_rows, 0.0), n_points, axis=0)
    with np.errstate(all="ignore"):
        design = np.column_stack([np.ones(flat_x.size), flat_x, spline_basis(flat_x, flat_knots)])
        design = design.reshape(n_seg, n_points, -1)
        eta = np.einsum("sgk,sk->sg", design, fit.coef)
        covariance = fit.covariance()
        se = np.sqrt(np.maximum(np.einsum("sgk,skj,sgj->sg", design, covariance, design), 0.0))
    z = float(normal_quantile(0.5 + level / 2.0))
    c = float(np.sqrt(chi2_quantile(level, design.shape[2])))
    nan = np.full(eta.shape, np.nan)

    def band(width: float) -> tuple[np.ndarray, np.ndarray]:
        if not bands:
            return nan, nan
        return expit(eta - width * se), expit(eta + width * se)

    return CurveBand(risk, expit(eta), band(z), band(c), (z, c))
