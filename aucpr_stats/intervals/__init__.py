"""Confidence intervals for AUCPR (Boyd, Eng & Page 2013, section 3.2; the addendum).

``result.conf_int(method=..., level=0.95, **options)`` on an
:class:`~aucpr_stats.results.AucprResult` dispatches to :func:`pr_conf_int`.
The methods, one module each, with array-level kernels callable on their own:

==================== ==========================================================
``logit`` (default)  :func:`~.closed_form.logit_interval`: Wald interval on the
                     logit scale, delta-method SE, mapped back; inside [0, 1]
``binomial``         :func:`~.closed_form.binomial_interval`: estimate ± z·SE
``bootstrap``        :mod:`.bootstrap`: stratified, multinomial counts of the
                     tie table, percentile interval
``cross_validation`` :mod:`.cross_validation`: stratified random folds or the
                     caller's fold column; mean ± t·sd/sqrt(k)
``per_positive``     :mod:`.per_positive`: SE of a mean of per-positive
                     contributions (average_precision, threshold_trapezoid)
==================== ==========================================================

ROC AUC intervals live in :mod:`aucpr_stats.intervals.roc`. See
``docs/intervals.md`` for the formulas and the evidence behind the default.
"""

from __future__ import annotations

from .bootstrap import bootstrap_estimates, iter_replicates, percentile_interval, stratified_counts
from .closed_form import binomial_interval, logit_interval, normal_quantile
from .cross_validation import cv_interval, stratified_folds
from .per_positive import PER_POSITIVE_ESTIMATORS, per_positive_interval
from .pr import DEFAULT_PR_METHOD, PR_METHODS, fold_estimates, pr_conf_int

__all__ = [
    "pr_conf_int",
    "fold_estimates",
    "PR_METHODS",
    "DEFAULT_PR_METHOD",
    "binomial_interval",
    "logit_interval",
    "normal_quantile",
    "bootstrap_estimates",
    "iter_replicates",
    "stratified_counts",
    "percentile_interval",
    "stratified_folds",
    "cv_interval",
    "per_positive_interval",
    "PER_POSITIVE_ESTIMATORS",
]
