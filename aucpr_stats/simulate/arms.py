"""The interval arms of the coverage study: one interval per simulated data set (segment).

Each arm is ``fn(ties, estimates, estimator, level, rng, options) -> (lower,
upper, location)`` with ``estimator`` a registry record
(:class:`~aucpr_stats.estimators.registry.Estimator`). The location is what
the interval is centred on (Boyd et al. 2013, Fig. 8): the estimate for
binomial and logit, the median of the bootstrap replicates, the mean of the
fold estimates for cross-validation. The arms call the same kernels as
``result.conf_int()``: the closed forms, :mod:`aucpr_stats.resample` for the
bootstrap replicates and the folds (each data set from its own stream).
"""

from __future__ import annotations

from typing import Any, Callable


from ..estimators import reduction_for
from ..estimators.engine import evaluate
from ..intervals import binomial_interval, binomial_se, cv_interval, logit_interval, percentile_interval, replicate_summary
from ..resample import bootstrap_estimates, stratified_folds

__all__ = ["INTERVAL_METHODS"]


def _binomial(ties, estimates, estimator, level, rng, options):
    lower, upper, _ = binomial_interval(estimates, ties.n_pos, level)
    return lower, upper, estimates


def _logit(ties, estimates, estimator, level, rng, options):
    lower, upper, _ = logit_interval(estimates, binomial_se(estimates, ties.n_pos), level)
    return lower, upper, estimates


def _bootstrap(ties, estimates, estimator, level, rng, options):
    """Percentile interval of ``n_boot`` (1000) replicates; ``reduce_table=False`` resamples the full table."""
    options = dict(options)
    if options.pop("reduce_table", True):  # the exact reduction the estimator's record allows
        ties = reduction_for([estimator])(ties)
    replicates = bootstrap_estimates(ties, estimator, seed=rng, **options)
    lower, upper = percentile_interval(replicates, level)
    return lower, upper, replicate_summary(replicates)["boot_median"]


def _cross_validation(ties, estimates, estimator, level, rng, options):
    """Stratified random ``folds`` (10); ``quantile`` "t" (default) or "normal" (the paper's)."""
    k = int(options.get("folds", 10))
    values = evaluate(stratified_folds(ties, k, seed=rng), [estimator])[:, 0]
    out = cv_interval(values.reshape(ties.n_segments, k), level, options.get("quantile", "t"))
    return out["lower"], out["upper"], out["mean"]


#: Interval arms of :func:`aucpr_stats.simulate.coverage_study`, by method name.
INTERVAL_METHODS: dict[str, Callable[..., Any]] = {
    "binomial": _binomial,
    "logit": _logit,
    "bootstrap": _bootstrap,
    "cross_validation": _cross_validation,
}
