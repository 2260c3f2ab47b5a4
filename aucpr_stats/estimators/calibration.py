r"""Calibration of predicted probabilities: pure functions of a tie table, vectorised over segments.

For a score that is a predicted probability the tie table holds, at each
distinct probability :math:`p_r`, the (weighted) events :math:`e_r` and
non-events :math:`f_r`; with :math:`c_r = e_r + f_r`, :math:`E = \sum_r c_r p_r`
(expected events), :math:`O = \sum_r e_r` and :math:`W = \sum_r c_r`:

* **observed/expected** :math:`O/E` (Debray et al. 2017);
* **calibration-in-the-large** (CITL): :math:`\alpha` of
  :math:`\mathrm{logit}\,P(Y=1) = \alpha + \mathrm{logit}\,p` (the logit as
  offset), 0 when calibrated in the large;
* **the calibration slope** :math:`\beta` and the joint **intercept** of the
  logistic recalibration :math:`\mathrm{logit}\,P(Y=1) = a + \beta\,\mathrm{logit}\,p`
  (Cox 1958), 1 and 0 when calibrated (rms' ``val.prob`` "Slope", "Intercept");
* **Brier score** :math:`\sum_r e_r(1-p_r)^2 + f_r p_r^2` over :math:`W`, and the
  **scaled Brier** :math:`1 - B/(\bar y(1-\bar y))` (Steyerberg 2019);
* **Spiegelhalter's** (1986) :math:`z = \sum (y-p)(1-2p) / \sqrt{\sum (1-2p)^2 p(1-p)}`;
* the **integrated calibration index** (ICI) and :math:`E_{50}, E_{90}, E_{max}`
  (Austin & Steyerberg 2019): the mean, median, 90th percentile and maximum
  of :math:`|\hat c(p) - p|` over the rows, :math:`\hat c` a flexible
  calibration curve. Here :math:`\hat c` is a logistic regression on a
  restricted cubic spline of :math:`\mathrm{logit}\,p` (Harrell's knots at
  quantiles; :mod:`.calibration_curve`), fitted by maximum likelihood on the
  tie table: exact, weighted, and vectorised over groups; Austin & Steyerberg
  found it and loess give similar ICIs.

Probabilities of exactly 0 or 1 have an infinite logit: they enter O/E,
Brier and Spiegelhalter's z, and are left out of the logit-scale fits
(CITL, intercept, slope, the curve and its E statistics), which the result
notes. **At a stated prevalence** :math:`\pi` (a case-control sample, whose
sample prevalence is fixed by design) every statistic is read on the table
whose non-events are reweighted so that events make up :math:`\pi` of the
weight (:mod:`.prevalence`): the population's sums, and the logistic fits
solved with the population's estimating equations (inverse-probability
weighting of the controls). Shifting the sample's intercepts by
:math:`\mathrm{logit}\,\pi - \mathrm{logit}\,\pi_s` instead (Prentice &
Pyke 1979) is exact only when the logistic model holds: the offset-only
model behind CITL does not when the slope is not 1, and the shifted CITL of
an overfitted model was 0.23 for a true 0 with 20,000 cases
(benchmarks/calibration_coverage_results.md).
"""

from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from ..distributions import logit, normal_cdf
from ..ties import TieTable
from .logistic_fit import LogisticFit, fit_logistic, separated
from .prevalence import at_prevalence

__all__ = ["brier", "scaled_brier", "oe_ratio", "citl", "recalibration", "calibration_slope",
           "calibration_intercept", "spiegelhalter_z", "spiegelhalter_p", "population", "logit_rows",
           "CONSTANT", "SEPARATED", "cached", "citl_fit", "constant_prediction", "with_prevalence"]

#: Why the slope is undefined.
CONSTANT = "constant prediction: no calibration slope (every usable prediction is the same)"
SEPARATED = ("events and non-events separated by the prediction: the calibration slope has no finite "
             "maximum-likelihood estimate")

def cached(ties: TieTable, key: str, compute: Callable):
    """One fit per table and key, shared by the statistics read off it (intercept and slope; the curve's four).

    Kept in the table's own ``__dict__`` (beside its cached counts), so it
    lives as long as the table and a table of one thread is never seen by another.
    """
    store = vars(ties).setdefault("calibration_fits", {})
    if key not in store:
        store[key] = compute()
    return store[key]


def population(ties: TieTable, prevalence: float | None) -> TieTable:
    """The table itself, or at a stated prevalence its non-events reweighted to the population (:mod:`.prevalence`)."""
    return ties if prevalence is None else at_prevalence(ties, prevalence)


def _key(name: str, prevalence: float | None) -> str:
    return name if prevalence is None else f"{name}@{prevalence!r}"


# ------------------------------------------------------------------ sums over the table
def oe_ratio(ties: TieTable, prevalence: float | None = None) -> np.ndarray:
    """Observed over expected events, :math:`O/E = \\sum e_r / \\sum c_r p_r`."""
    t = population(ties, prevalence)
    expected = t.segment_sum((t.pos + t.neg) * t.score)
    return t.n_pos / expected


def brier(ties: TieTable, prevalence: float | None = None) -> np.ndarray:
    """The Brier score: the mean squared difference between outcome and predicted probability."""
    t = population(ties, prevalence)
    p = t.score
    loss = t.segment_sum(t.pos * (1.0 - p) ** 2 + t.neg * p ** 2)
    return loss / (t.n_pos + t.n_neg)


def scaled_brier(ties: TieTable, prevalence: float | None = None) -> np.ndarray:
    """``1 - Brier / (ybar (1 - ybar))``: 0 for predicting the prevalence to everyone, 1 for perfect predictions."""
    t = population(ties, prevalence)
    ybar = t.n_pos / (t.n_pos + t.n_neg)
    return 1.0 - brier(t) / (ybar * (1.0 - ybar))


def spiegelhalter_z(ties: TieTable) -> np.ndarray:
    r"""Spiegelhalter's (1986) :math:`z`: :math:`\sum (y - p)(1 - 2p)` over its null standard deviation.

    NaN where the null variance is 0 (every prediction 0, 1/2 or 1).
    """
    p = ties.score
    numerator = ties.segment_sum((ties.pos * (1.0 - p) - ties.neg * p) * (1.0 - 2.0 * p))
    variance = ties.segment_sum((ties.pos + ties.neg) * (1.0 - 2.0 * p) ** 2 * p * (1.0 - p))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(variance > 0, numerator / np.sqrt(variance), np.nan)


def spiegelhalter_p(ties: TieTable) -> np.ndarray:
    """The two-sided p-value of Spiegelhalter's z (a test of calibration, not an estimate)."""
    z = spiegelhalter_z(ties)
    return 2.0 * normal_cdf(-np.abs(z))


# ------------------------------------------------------------------ the logit-scale fits
def logit_rows(ties: TieTable) -> tuple[TieTable, np.ndarray]:
    """The table with rows at probability 0 or 1 given zero counts, and the logit of every row (0 there).

    Rows with zero counts change no sum, so the table keeps its layout (and
    its segments) while those rows drop out of the fits.
    """
    return cached(ties, "logit_rows", lambda: _logit_rows(ties))


def _logit_rows(ties: TieTable) -> tuple[TieTable, np.ndarray]:
    p = ties.score
    finite = (p > 0.0) & (p < 1.0)
    if finite.all():
        return ties, logit(p)
    with np.errstate(divide="ignore"):
        x = np.where(finite, logit(np.clip(p, 1e-300, 1.0 - 1e-16)), 0.0)
    kept = TieTable(p, np.where(finite, ties.pos, 0), np.where(finite, ties.neg, 0), ties.offsets)
    return kept, x


def _holds_both(ties: TieTable) -> np.ndarray:
    return (ties.n_pos > 0) & (ties.n_neg > 0)


def citl(ties: TieTable, prevalence: float | None = None) -> np.ndarray:
    r"""Calibration-in-the-large: :math:`\alpha` of :math:`\mathrm{logit}\,P(Y=1) = \alpha + \mathrm{logit}\,p`."""
    return citl_fit(ties, prevalence).coef[:, 0]


def citl_fit(ties: TieTable, prevalence: float | None = None) -> LogisticFit:
    """The calibration-in-the-large fit of every segment (one coefficient, the logit as offset)."""
    def compute() -> LogisticFit:
        kept, x = logit_rows(population(ties, prevalence))
        return _fit_where(kept, _holds_both(kept), np.ones((kept.n_rows, 1)), x, np.zeros(1))
    return cached(ties, _key("citl", prevalence), compute)


def _fit_where(ties: TieTable, ok: np.ndarray, design: np.ndarray, offset: np.ndarray,
               start: np.ndarray) -> LogisticFit:
    """:func:`fit_logistic` on the segments where ``ok`` (NaN coefficients elsewhere)."""
    k = design.shape[1]
    coef = np.full((ties.n_segments, k), np.nan)
    information = np.full((ties.n_segments, k, k), np.nan)
    converged = np.zeros(ties.n_segments, dtype=bool)
    if ok.any():
        index = np.flatnonzero(ok)
        sub = ties if ok.all() else ties.take(index)
        rows = slice(None) if ok.all() else np.repeat(ok, ties.lengths)
        fit = fit_logistic(sub, design[rows], offset[rows], start)
        coef[index], information[index], converged[index] = fit.coef, fit.information, fit.converged
        coef[~converged] = np.nan
    return LogisticFit(coef, information, converged)


def recalibration(ties: TieTable, prevalence: float | None = None) -> LogisticFit:
    r"""The logistic recalibration :math:`\mathrm{logit}\,P(Y=1) = a + \beta\,\mathrm{logit}\,p` of every segment.

    NaN coefficients where the usable predictions are constant (:data:`CONSTANT`)
    or separate the classes (:data:`SEPARATED`).
    """
    def compute() -> LogisticFit:
        kept, x = logit_rows(population(ties, prevalence))
        ok = _holds_both(kept) & ~constant_prediction(kept, x) & ~separated(kept)
        design = np.column_stack([np.ones(kept.n_rows), x])
        return _fit_where(kept, ok, design, np.zeros(kept.n_rows), np.array([0.0, 1.0]))
    return cached(ties, _key("recalibration", prevalence), compute)


def constant_prediction(ties: TieTable, x: np.ndarray) -> np.ndarray:
    """Per segment: whether every row with a count holds the same logit."""
    counted = (ties.pos + ties.neg) > 0
    ids = ties.segment_ids()
    high = np.full(ties.n_segments, -np.inf)
    low = np.full(ties.n_segments, np.inf)
    np.maximum.at(high, ids[counted], x[counted])
    np.minimum.at(low, ids[counted], x[counted])
    return ~(high > low)


def calibration_slope(ties: TieTable, prevalence: float | None = None) -> np.ndarray:
    """The calibration slope (1 when calibrated; below 1: predictions too extreme, overfitting)."""
    return recalibration(ties, prevalence).coef[:, 1]


def calibration_intercept(ties: TieTable, prevalence: float | None = None) -> np.ndarray:
    """The intercept of the logistic recalibration, fitted jointly with the slope (rms' "Intercept")."""
    return recalibration(ties, prevalence).coef[:, 0]


def with_prevalence(function: Callable, prevalence: float | None) -> Callable:
    """``function`` evaluated at a stated prevalence (the keyword bound), with its name kept."""
    if prevalence is None:
        return function
    return functools.update_wrapper(functools.partial(function, prevalence=prevalence), function)
