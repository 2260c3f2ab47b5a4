"""Each subgroup's estimate and variance on a test's or a pooling's scale, with the reason a group has none.

The tests across subgroups (:mod:`.heterogeneity`, :mod:`.interaction`) and
the random-effects meta-analysis of sites (:mod:`aucpr_stats.pooling`) read
the same thing off a grouped result: per (group, estimator) the estimate
:math:`\\hat\\theta`, its variance from an interval method (DeLong,
Obuchowski's cluster-robust DeLong, the logit interval's binomial variance,
the bootstrap, the jackknife of the logit, the calibration and net-benefit
Wald variances), carried to the natural, logit or log scale by the delta
method, and why a group has no usable variance (one class missing, an
estimate of 0 or 1 on the logit scale, a variance of 0, an interval that fell
back on a score interval).
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import choice_iv
from ..distributions import logit
from ..exceptions import InputError, SmallSampleWarning
from ..intervals.boundaries import BOUNDARY_NOTE
from ..intervals.registry import design_of
from .jackknife import result_jackknife

__all__ = ["DEFAULT_SCALE", "HETEROGENEITY_METHODS", "SCALES", "SiteValues", "none_mask", "site_values"]

#: Variance sources per metric (the first is the default): the interval methods of ``conf_int`` whose
#: standard error is used, and for AUCPR the jackknife of :mod:`.jackknife`.
HETEROGENEITY_METHODS = {"auroc": ("delong", "logit", "bootstrap"), "aucpr": ("jackknife", "logit", "bootstrap"),
                         "calibration": ("wald", "bootstrap"), "net_benefit": ("wald", "bootstrap")}

#: The scale of a heterogeneity test when ``scale`` is not given, per (metric, method).
DEFAULT_SCALE = {("auroc", "delong"): "natural", ("auroc", "logit"): "logit", ("auroc", "bootstrap"): "natural",
                 ("aucpr", "jackknife"): "logit", ("aucpr", "logit"): "logit", ("aucpr", "bootstrap"): "logit",
                 # calibration: CITL, slope and intercept are logistic coefficients (natural scale); the Wald
                 # standard errors of O/E and Brier are on the statistic's own scale too
                 ("calibration", "wald"): "natural", ("calibration", "bootstrap"): "natural",
                 # net benefit: a difference of proportions, unbounded, its Wald variance exact
                 ("net_benefit", "wald"): "natural", ("net_benefit", "bootstrap"): "natural"}

#: The scales a variance can be carried to.
SCALES = ("natural", "logit", "log")

#: The reason in the interval driver's note on a boundary row (perfect separation, an estimate of 0 or 1 ...).
_BOUNDARY = "(?:^|; )" + re.escape(BOUNDARY_NOTE.split("{reason}")[0]) + "(.*?)" + re.escape(
    BOUNDARY_NOTE.split("{reason}")[1].split("{method}")[0])


def none_mask(values: np.ndarray) -> np.ndarray:
    """Elementwise ``is None`` of an object array, as booleans."""
    return np.asarray(np.equal(values, None), dtype=bool)


@attrs.frozen(eq=False)
class SiteValues:
    """Per (group, estimator), group-major: the estimate, and its value and variance on the chosen scale."""

    #: The variance source and the scale (one word, or one per row when a pooling chose per statistic).
    method: str
    scale: Any
    #: Key columns, ``estimator`` and ``value`` (the estimate on its natural scale), one row per entry.
    rows: pl.DataFrame
    theta: np.ndarray
    variance: np.ndarray
    #: Why an entry has no usable variance (None where it has one).
    reason: np.ndarray
    n_pos: np.ndarray
    #: The group of each entry; the jackknife's degrees of freedom (Welch) and whether it pooled per positive.
    group: np.ndarray
    nu: np.ndarray | None = None
    pooled: bool = False


def _scaled(estimate: np.ndarray, se: np.ndarray, scale: np.ndarray, logit_variance: Any, reason: np.ndarray):
    """The estimate and its variance on each row's scale (the delta method), noting where a scale has none."""
    with np.errstate(all="ignore"):
        on_logit, on_log = scale == "logit", scale == "log"
        theta = np.where(on_logit, logit(estimate), np.where(on_log, np.log(estimate), estimate))
        logit_delta = (se / (estimate * (1.0 - estimate))) ** 2
        if logit_variance is not None:
            # the jackknife of the logit itself; the delta method where a leave-one-out estimate is 0 or 1
            logit_delta = np.where(np.isfinite(logit_variance), logit_variance, logit_delta)
        variance = np.where(on_logit, logit_delta, np.where(on_log, (se / estimate) ** 2, se ** 2))
    reason[on_logit & (estimate <= 0)] = "an estimate of 0: no variance on the logit scale"
    reason[on_logit & (estimate >= 1)] = "an estimate of 1: no variance on the logit scale"
    reason[on_log & (estimate <= 0)] = "an estimate of 0: no variance on the log scale"
    return theta, variance


def site_values(result: Any, method: str | None, scale: Any, options: dict, *,
                scales: tuple = ("natural", "logit")) -> SiteValues:
    """Each (group, estimator)'s estimate and variance on ``scale`` from the variance source ``method``.

    Parameters
    ----------
    result : AurocResult, AucprResult, CalibrationResult or NetBenefitResult
    method : str or None
        One of :data:`HETEROGENEITY_METHODS` for the metric (default: the
        first; with weights AUCPR uses ``"logit"``, with clusters
        ``"bootstrap"``; clustered AUROC reads DeLong's variance made
        cluster-robust, Obuchowski 1997).
    scale : str, ndarray of str (one per entry) or None
        None: :data:`DEFAULT_SCALE` of (metric, method).
    options : dict
        ``conf_int`` options of the method, or the jackknife's
        (:func:`~aucpr_stats.compare.jackknife.result_jackknife`).
    scales : tuple of str
        The scales the caller allows for a word ``scale``.
    """
    metric = result.metric
    methods = HETEROGENEITY_METHODS[metric]
    design = design_of(result)
    # weighted or clustered rows: the jackknife leaves out rows, so its default gives way (docs/designs.md)
    default = (methods[0] if design == "rows" or metric == "auroc"
               else {"weights": "logit", "cluster": "bootstrap"}[design])
    method = default if method is None else choice_iv(method, "method", methods)
    if method == "jackknife" and design != "rows":
        raise InputError(f"method='jackknife' leaves out single rows, which `{design}=` does not allow; use "
                         "method='bootstrap' (or 'logit' with weights)")
    if scale is None:
        scale = DEFAULT_SCALE[(metric, method)]
    elif isinstance(scale, str):
        scale = choice_iv(scale, "scale", scales)
    n_groups, n_est = result.estimates.shape
    group = np.repeat(np.arange(n_groups), n_est)
    nu = logit_variance = None
    pooled = False
    if method == "jackknife":
        se, logit_variance, units, pooled = result_jackknife(result, options)
        nu = np.maximum(units[group] - 1.0, 0.0)  # Welch: a group's variance has (positive units - 1) df
        boundary = np.full(se.size, None, dtype=object)
    else:
        if method != "bootstrap" and options:
            raise InputError(f"options {sorted(options)} apply to method='bootstrap' or 'jackknife' only; "
                             f"got method={method!r}")
        with warnings.catch_warnings():  # the intervals' small-sample flags: the callers have their own notes
            warnings.simplefilter("ignore", SmallSampleWarning)
            frame = result.conf_int_polars(method="obuchowski" if design == "cluster" and method == "delong"
                                           else method, **options)
        # the driver's rows are group-major, then estimator (one method)
        se = frame["se"].to_numpy().astype(np.float64).reshape(n_groups, n_est).ravel()
        boundary = np.asarray(frame["note"].str.extract(_BOUNDARY, 1).to_list(), dtype=object)
    estimate = result.estimates.ravel()
    n_pos = result.n_pos[group]
    reason = np.full(estimate.size, None, dtype=object)
    reason[se == 0] = "a standard error of 0"
    theta, variance = _scaled(estimate, se, np.broadcast_to(np.asarray(scale, dtype=object), estimate.shape),
                              logit_variance, reason)
    reason[~np.isfinite(variance) & none_mask(reason)] = "no variance"
    # where the interval driver fell back on a score interval (perfect separation, an estimate of 0
    # or 1, ...), the method's standard error is not a usable variance either
    fell_back = ~none_mask(boundary) & none_mask(reason)
    reason[fell_back] = [f"{why}: the interval fell back on a score interval, no usable variance"
                         for why in boundary[fell_back]]
    reason[n_pos < 2] = "fewer than 2 positives"
    own = np.asarray(result.notes, dtype=object)[group]
    reason[~none_mask(own)] = own[~none_mask(own)]  # the group's own note (no positives ...)
    reason[np.isnan(estimate) & none_mask(reason)] = "no estimate"
    keys = result.key_frame(group)
    rows = keys.with_columns(pl.Series("estimator", np.asarray(result.estimators, dtype=object)[
        np.tile(np.arange(n_est), n_groups)].tolist(), dtype=pl.String), pl.Series("value", estimate))
    return SiteValues(method=method, scale=scale, rows=rows, theta=theta, variance=variance, reason=reason,
                      n_pos=n_pos, group=group, nu=nu, pooled=pooled)
