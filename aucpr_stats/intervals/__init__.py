"""Confidence intervals for AUCPR and AUROC, per group and estimator.

``result.conf_int(method=..., level=0.95, **options)`` calls :func:`conf_int_frame`,
one driver for every metric (:mod:`.driver`), which dispatches through the
per-metric registry of methods (:mod:`.registry`). One module per method
family, with array-level kernels callable on their own:

==================== ==========================================================
AUCPR
``logit`` (default)  :func:`~.closed_form.logit_interval` with the binomial SE:
                     Wald interval on the logit scale, mapped back; in [0, 1]
``binomial``         :func:`~.closed_form.binomial_interval`: estimate ± z·SE
``wilson``           :func:`~.boundaries.wilson_interval`: Wilson's score
                     interval on the positives; the boundary fallback
``bootstrap``        :mod:`.bootstrap`: stratified, multinomial counts of the
                     tie table, percentile interval
``cross_validation`` :mod:`.cross_validation`: stratified random folds or the
                     caller's fold column; mean ± t·sd/sqrt(k)
``per_positive``     :mod:`.per_positive`: SE of a mean of per-positive
                     contributions (average_precision, threshold_trapezoid)
``influence``        :mod:`.linearisation`: logit interval with the
                     linearisation (influence-function) SE of
                     average_precision; rows, weights, clusters, prevalence=
AUROC
``delong``           :mod:`.delong`: A' ± z·SE with DeLong's SE (weighted
                     DeLong with ``weights=``, :mod:`.linearisation`);
                     flagged near 1 (``min_boundary_count``)
``logit``            :func:`~.closed_form.logit_interval` with DeLong's SE
``hanley_mcneil``    :mod:`.hanley_mcneil`: A' ± z·SE, exponential model
``newcombe``         :func:`~.boundaries.newcombe_interval`: Newcombe (2006)
  (default)          Method 5 score interval; the boundary fallback
``bootstrap``        as for AUCPR
==================== ==========================================================

Each method's record in :data:`INTERVAL_METHODS` carries its options as a
typed spec (:mod:`.options`: :class:`Bootstrap`, :class:`CrossValidation`;
an instance is a method object, ``conf_int(method=Bootstrap(n_boot=200,
rng=1))``), its minimum number of positives, whether it needs the tie
table's rows, and which estimators and designs it serves.

Every method's rows then go through :mod:`.edges` (one positive: NaN; an
estimate of 0 or 1 or a zero SE: the score interval; bounds truncated to
[0, 1]; small samples flagged, :mod:`.small_sample`). See
``docs/intervals.md`` and ``docs/roc.md`` for the formulas, and
``docs/simulation.md`` for the measured coverage.
"""

from __future__ import annotations

from .bootstrap import Bootstrap, percentile_interval, replicate_summary
from .boundaries import newcombe_interval, truncate, wilson_interval
from .closed_form import binomial_interval, binomial_se, logit_interval, normal_quantile, t_quantile, wald_interval
from .cross_validation import CrossValidation, cv_interval, folds_matrix
from .delong import delong_se
from .driver import conf_int_frame, fold_estimates
from .hanley_mcneil import hanley_mcneil_se
from .linearisation import (Gradient, InfluenceVariance, a_prime_gradient, average_precision_gradient,
                            influence_variance, weighted_delong_se)
from .obuchowski import ObuchowskiComponents, obuchowski_components, obuchowski_covariance
from .options import MethodOptions
from .per_positive import per_positive_interval, per_positive_se
from .registry import DEFAULT_METHOD, INTERVAL_METHODS, PR_METHODS, ROC_METHODS, IntervalMethod

__all__ = [
    "conf_int_frame",
    "fold_estimates",
    "INTERVAL_METHODS",
    "DEFAULT_METHOD",
    "PR_METHODS",
    "ROC_METHODS",
    "IntervalMethod",
    "MethodOptions",
    "Bootstrap",
    "CrossValidation",
    "normal_quantile",
    "t_quantile",
    "wald_interval",
    "binomial_se",
    "binomial_interval",
    "wilson_interval",
    "newcombe_interval",
    "truncate",
    "logit_interval",
    "delong_se",
    "hanley_mcneil_se",
    "ObuchowskiComponents",
    "obuchowski_components",
    "obuchowski_covariance",
    "percentile_interval",
    "replicate_summary",
    "cv_interval",
    "folds_matrix",
    "per_positive_se",
    "per_positive_interval",
    "Gradient",
    "InfluenceVariance",
    "average_precision_gradient",
    "a_prime_gradient",
    "influence_variance",
    "weighted_delong_se",
]
