"""The statistics of a difference: a normal (DeLong) test and the bootstrap's percentile interval and p-value."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from ..intervals import normal_quantile, percentile_interval

__all__ = ["bootstrap_p_value", "normal_test", "bootstrap_summary", "difference_columns"]


def bootstrap_p_value(replicates: np.ndarray) -> np.ndarray:
    r"""Two-sided bootstrap p-value of "difference = 0", over the last axis.

    The p-value of the percentile interval: the smallest :math:`\alpha` for
    which the :math:`1-\alpha` percentile interval of the replicated
    differences :math:`\Delta^*_b` excludes 0, with the usual add-one
    correction so that it is never 0:

    .. math::

        p = \min\left(1,\ 2\,\frac{1 + \min\big(\#\{\Delta^*_b \le 0\},\ \#\{\Delta^*_b \ge 0\}\big)}{B + 1}\right).

    Replicates equal to 0 count on both sides (conservative with ties). NaN
    replicates are ignored; NaN when none is left.
    """
    replicates = np.asarray(replicates, dtype=np.float64)
    finite = ~np.isnan(replicates)
    n = finite.sum(axis=-1)
    below = np.sum(finite & (replicates <= 0), axis=-1)
    above = np.sum(finite & (replicates >= 0), axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.minimum(1.0, 2.0 * (1.0 + np.minimum(below, above)) / (n + 1.0))
    return np.where(n > 0, p, np.nan)



def normal_test(diff, var, level):
    """SE, z, two-sided p-value and Wald interval of a difference with variance ``var``."""
    z_crit = normal_quantile(level)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.maximum(var, 0.0))
        z = np.where(se > 0, diff / se, np.nan)
        p = np.where(se > 0, 2.0 * ndtr(-np.abs(z)), np.where(diff == 0, 1.0, np.nan))
    return se, z, p, diff - z_crit * se, diff + z_crit * se



def bootstrap_summary(rep_a, rep_b, level):
    """Difference statistics from paired or independent replicates (last axis = replicates)."""
    delta = rep_a - rep_b
    lower, upper = percentile_interval(delta, level)
    finite = ~np.isnan(delta)
    n = finite.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, delta, 0.0).sum(axis=-1) / n
        se = np.sqrt(np.where(finite, (delta - mean[..., None]) ** 2, 0.0).sum(axis=-1) / (n - 1))
        ma = np.nanmean(np.where(finite, rep_a, np.nan), axis=-1)
        mb = np.nanmean(np.where(finite, rep_b, np.nan), axis=-1)
        da, db = np.where(finite, rep_a - ma[..., None], 0.0), np.where(finite, rep_b - mb[..., None], 0.0)
        corr = (da * db).sum(axis=-1) / np.sqrt((da * da).sum(axis=-1) * (db * db).sum(axis=-1))
    return se, lower, upper, bootstrap_p_value(delta), corr



def difference_columns(diff: np.ndarray, method: str, level: float, *, variance: np.ndarray | None = None,
                       replicates: tuple | None = None, correlation: np.ndarray | None = None) -> dict:
    """The columns of a comparison table that describe the difference ``a - b``, in table order.

    DeLong (``variance`` of the difference given): :func:`normal_test`.
    Bootstrap (``replicates = (rep_a, rep_b)``): :func:`bootstrap_summary`,
    with ``z = difference / se``. ``correlation`` of the two estimates: given
    (DeLong), or that of the replicates unless NaN is passed (independent groups).
    """
    if method == "delong":
        se, z, p, lower, upper = normal_test(diff, variance, level)
    else:
        se, lower, upper, p, replicate_correlation = bootstrap_summary(*replicates, level)
        correlation = replicate_correlation if correlation is None else correlation
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(se > 0, diff / se, np.nan)
    return {"difference": diff, "se": se, "z": z, "p_value": p, "method": [method] * diff.size,
            "level": [level] * diff.size, "lower": lower, "upper": upper,
            "correlation": np.broadcast_to(correlation, diff.shape)}
