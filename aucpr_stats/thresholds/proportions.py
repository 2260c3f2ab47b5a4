"""Intervals for sensitivity, specificity and the predictive values at a threshold.

Sensitivity ``tp / n_pos`` and specificity ``tn / n_neg`` are binomial
proportions given the class counts: :func:`proportion_interval` gives
Wilson's score interval (default) or the Clopper-Pearson "exact" interval.

The predictive values have two readings:

* **at the observed prevalence** (a cohort or cross-sectional sample): the
  PPV ``tp / (tp + fp)`` and NPV ``tn / (tn + fn)`` are again proportions,
  of the cases called positive and negative, and get the same interval;
* **at a given prevalence** ``p`` (a case-control sample, or a target
  population whose prevalence differs from the sample's), by Bayes' theorem

  .. math:: PPV = \\frac{p\\,Se}{p\\,Se + (1-p)(1-Sp)}, \\qquad
            NPV = \\frac{(1-p)\\,Sp}{(1-p)\\,Sp + p\\,(1-Se)},

  with :func:`bayes_interval`: the delta method on the logit scale, where
  ``logit PPV = logit p + log Se - log(1 - Sp)`` is a sum of two independent
  log-proportions (Mercaldo, Lau & Zhou 2007, the "logit" interval), mapped
  back; it stays in (0, 1). A zero count among ``tp, fn, tn, fp`` makes the
  variance infinite, so 0.5 is then added to each of the four counts of that
  row for the interval (the point estimate keeps the raw counts), and an
  estimate of exactly 0 or 1 gets 0 or 1 as the bound on its side. The given
  prevalence is taken as known (no uncertainty).

Coverage of each interval is measured in ``benchmarks/cutoff_coverage.py``
(``docs/cutoffs.md``).
"""

from __future__ import annotations

import numpy as np

from ..distributions import beta_quantile, expit, logit
from ..intervals import normal_quantile, wilson_interval

__all__ = [
    "PROPORTION_METHODS",
    "bayes_interval",
    "bayes_values",
    "clopper_pearson_interval",
    "proportion_interval",
]

#: Interval methods for a proportion (sensitivity, specificity, PPV and NPV at the observed prevalence).
PROPORTION_METHODS = ("wilson", "clopper_pearson")


def clopper_pearson_interval(k, n, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson interval for ``k`` successes in ``n`` trials (beta quantiles); NaN where ``n < 1``.

    ``[B(a/2; k, n-k+1), B(1-a/2; k+1, n-k)]`` with ``a = 1 - level``, the
    lower bound 0 at ``k = 0`` and the upper bound 1 at ``k = n``.

    References
    ----------
    Clopper, C. J., Pearson, E. S. (1934). The use of confidence or fiducial
    limits illustrated in the case of the binomial. Biometrika 26, 404-413.
    """
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    alpha = 1.0 - level
    ok = n >= 1
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = np.where(k > 0, beta_quantile(np.maximum(k, 1e-300), n - k + 1.0, alpha / 2.0), 0.0)
        upper = np.where(k < n, beta_quantile(k + 1.0, np.maximum(n - k, 1e-300), 1.0 - alpha / 2.0), 1.0)
    return np.where(ok, lower, np.nan), np.where(ok, upper, np.nan)


def proportion_interval(k, n, level: float = 0.95, method: str = "wilson") -> tuple[np.ndarray, np.ndarray]:
    """Interval for the proportion ``k / n``: ``"wilson"`` (score) or ``"clopper_pearson"``; NaN where ``n = 0``."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    if method == "clopper_pearson":
        return clopper_pearson_interval(k, n, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        lower, upper, _ = wilson_interval(np.where(n > 0, k / n, np.nan), n, level)
    return lower, upper


def bayes_values(se, sp, prevalence) -> tuple[np.ndarray, np.ndarray]:
    """PPV and NPV at ``prevalence`` from sensitivity and specificity (Bayes' theorem); NaN for 0/0."""
    se, sp, p = (np.asarray(x, dtype=np.float64) for x in (se, sp, prevalence))
    with np.errstate(invalid="ignore", divide="ignore"):
        ppv = p * se / (p * se + (1.0 - p) * (1.0 - sp))
        npv = (1.0 - p) * sp / ((1.0 - p) * sp + p * (1.0 - se))
    return ppv, npv


def bayes_interval(tp, fn, tn, fp, prevalence, level: float = 0.95):
    """Logit (delta-method) intervals of PPV and NPV at a given prevalence.

    .. math::

        \\operatorname{logit} PPV = \\operatorname{logit} p + \\log Se - \\log(1 - Sp), \\qquad
        \\widehat{\\operatorname{Var}} = \\frac{fn}{tp\\,(tp + fn)} + \\frac{tn}{fp\\,(tn + fp)},

        \\operatorname{logit} NPV = \\operatorname{logit}(1 - p) + \\log Sp - \\log(1 - Se), \\qquad
        \\widehat{\\operatorname{Var}} = \\frac{fp}{tn\\,(tn + fp)} + \\frac{tp}{fn\\,(tp + fn)},

    the limits ``expit(logit ± z sqrt(Var))``. Rows with a zero count among
    the four get 0.5 added to each (for the interval only); a predictive
    value of exactly 0 (``tp = 0`` for PPV, ``tn = 0`` for NPV) gets the
    lower bound 0, one of exactly 1 the upper bound 1.

    Returns
    -------
    ppv_lower, ppv_upper, npv_lower, npv_upper, adjusted : ndarray
        ``adjusted`` marks the rows whose counts got the 0.5.

    References
    ----------
    Mercaldo, N. D., Lau, K. F., Zhou, X. H. (2007). Confidence intervals for
    predictive values with an emphasis to case-control studies. Statistics in
    Medicine 26, 2170-2183 (the logit interval, section 2.3).
    """
    tp, fn, tn, fp = (np.asarray(x, dtype=np.float64) for x in (tp, fn, tn, fp))
    raw = tp, fn, tn, fp
    adjusted = (np.minimum(np.minimum(tp, fn), np.minimum(tn, fp)) == 0) & (tp + fn > 0) & (tn + fp > 0)
    add = np.where(adjusted, 0.5, 0.0)
    tp, fn, tn, fp = tp + add, fn + add, tn + add, fp + add
    z = normal_quantile(level)
    p = float(prevalence)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = tp / (tp + fn)
        sp = tn / (tn + fp)
        logit_ppv = logit(p) + np.log(se) - np.log1p(-sp)
        var_ppv = fn / (tp * (tp + fn)) + tn / (fp * (tn + fp))
        logit_npv = logit(1.0 - p) + np.log(sp) - np.log1p(-se)
        var_npv = fp / (tn * (tn + fp)) + tp / (fn * (tp + fn))
        half_ppv, half_npv = z * np.sqrt(var_ppv), z * np.sqrt(var_npv)
        ppv_lo, ppv_hi = expit(logit_ppv - half_ppv), expit(logit_ppv + half_ppv)
        npv_lo, npv_hi = expit(logit_npv - half_npv), expit(logit_npv + half_npv)
    # an estimate of exactly 0 or 1 (a zero count) stays inside its interval: the bound at that edge is the edge
    tp, fn, tn, fp = raw
    both = (tp + fn > 0) & (tn + fp > 0)
    nan = np.full(both.shape, np.nan)
    ppv_lo = np.where(both, np.where((tp == 0) & (fp > 0), 0.0, ppv_lo), nan)
    ppv_hi = np.where(both, np.where((fp == 0) & (tp > 0), 1.0, ppv_hi), nan)
    npv_lo = np.where(both, np.where((tn == 0) & (fn > 0), 0.0, npv_lo), nan)
    npv_hi = np.where(both, np.where((fn == 0) & (tn > 0), 1.0, npv_hi), nan)
    return ppv_lo, ppv_hi, npv_lo, npv_hi, adjusted
