"""The interval registry: per metric, one record per interval method, and nothing else records what a method can do.

``result.conf_int(method=...)`` dispatches through these records
(:mod:`.driver`). A record names the method's function (one per method
family, in the modules of this package), its options (a typed spec the
method carries, :mod:`.options`), the extra columns it adds to the frame, its
notes, which estimators and designs it serves, whether it needs the tie
table's rows, its small-sample minimums, and what its interval is centred on.
The coverage engine (:mod:`aucpr_stats.simulate`) and the validation report
(``benchmarks/validation.py``) read the same records. Adding a method is one
function and one record (``docs/architecture.md``).
"""

from __future__ import annotations

import math
from typing import Callable

import attrs
import numpy as np

from ..estimators.partial import is_partial
from ..estimators.partial_variance import partial_auroc_se
from .bootstrap import Bootstrap, bootstrap_method, bootstrap_note
from .calibration import (PROFILE_STATISTICS, WALD_STATISTICS, calibration_bootstrap, profile_method, profile_note,
                          wald_method, wald_note)
from .net_benefit import (bootstrap_skew_note, net_benefit_bootstrap, wald_method as net_benefit_wald,
                          wald_note as net_benefit_wald_note)
from .boundaries import newcombe_interval, wilson_interval
from .closed_form import binomial_interval, binomial_se, logit_interval, wald_interval
from .cross_validation import CrossValidation, cross_validation_method, cross_validation_note
from .delong import delong_se
from .hanley_mcneil import hanley_mcneil_se
from .linearisation import influence_method, influence_note, weighted_delong_se
from .obuchowski import ObuchowskiComponents, obuchowski_components
from .options import MethodOptions
from .per_positive import per_positive_method, per_positive_note

__all__ = ["IntervalMethod", "INTERVAL_METHODS", "DEFAULT_METHOD", "PR_METHODS", "ROC_METHODS", "DESIGNS",
           "design_of", "default_method"]

#: Events below which the net-benefit intervals are flagged: the smallest size studied
#: (benchmarks/net_benefit_coverage_results.md); the row notes of the equivalent count say more.
NET_BENEFIT_MIN_EVENTS = 20

#: The sampling designs a result can have: independent rows, weighted rows (``weights=``), clusters (``cluster=``).
DESIGNS = ("rows", "weights", "cluster")


@attrs.frozen(eq=False)
class IntervalMethod:
    """One interval method of one metric.

    Attributes
    ----------
    name : str
        The name accepted by ``method=``.
    compute : callable
        ``compute(request) -> dict`` of (groups, estimators) arrays:
        ``lower``, ``upper``, ``se`` and the extra ``columns``
        (:class:`~aucpr_stats.intervals.request.IntervalRequest`;
        ``request.options`` is an instance of ``options``).
    min_positives : float
        The smallest number of positives at which its coverage holds in the
        validation report (``docs/validation.md``); below it the rows get a
        note and the call one ``SmallSampleWarning``. 0: never flagged;
        ``math.inf``: under-covers at every size validated.
    options : type
        Its options: a :class:`~.options.MethodOptions` subclass whose fields
        are the options of ``conf_int`` it accepts, with their defaults,
        checks and documentation (:class:`~.bootstrap.Bootstrap`); an
        instance is a method object, ``conf_int(method=Bootstrap(n_boot=200))``.
        :class:`~.options.MethodOptions` itself: no options.
    columns : tuple of str
        Extra columns of the interval frame, null on other methods' rows.
    note : callable, optional
        ``note(request, computed) -> object array`` of per-row notes (None: no note).
    serves : callable, optional
        ``serves(estimator_record) -> bool``; None serves every estimator.
    needs : str
        What an estimator needs for this method (for the error message).
    fallback : bool
        Whether the driver replaces a boundary row (estimate 0 or 1, standard
        error 0, zero width) by the metric's score interval
        (:mod:`.edges`): True for the Wald-type methods and the percentile
        bootstrap, False for the score intervals themselves.
    designs : tuple of str
        The designs (:data:`DESIGNS`) the method is valid for: a method that
        treats rows as independent does not serve clustered rows.
    needs_rows : bool
        Whether it needs the tie table's rows. False for a method that reads
        only the estimate, its standard error and the class counts: it
        serves a result of an engine's partial sums (``result.ties.stored_sums``).
    min_clusters : int, optional
        With ``cluster=``, the smallest number of clusters per group at which
        its coverage holds; None until a coverage study measures one.
    min_boundary_count : float, optional
        AUROC near 1: the smallest ``min(n_pos, n_neg) * (1 - estimate)``
        (the smaller class's size times the estimated share of discordant
        pairs) from which its coverage holds (``benchmarks/auroc_boundary.py``);
        below it the rows get a note and the call a ``SmallSampleWarning``.
        None: no such rule.
    max_control_weight : float, optional
        AUCPR at a stated prevalence ``pi`` (a case-control sample): the
        largest number of cohort controls one sampled control may stand for,
        ``(1 - pi) / pi * n_pos / n_neg``, at which its coverage holds; at or
        above it the rows get a note with the controls per case a cohort
        would have, and the call a ``SmallSampleWarning``. None: no such rule.
    location : str
        The column its interval is centred on, for the coverage studies'
        location ratio (Boyd et al. 2013, Fig. 8): ``"estimate"``, or an
        extra column (``"boot_median"``, ``"fold_mean"``).
    citation : str
        What the interval is and where it comes from, one phrase with its
        reference: the methods text of a report is written from it.
    """

    name: str
    compute: Callable
    min_positives: float = attrs.field(kw_only=True)
    options: type[MethodOptions] = MethodOptions
    columns: tuple[str, ...] = ()
    note: Callable | None = None
    serves: Callable | None = None
    needs: str = ""
    fallback: bool = True
    designs: tuple[str, ...] = ("rows", "weights")
    needs_rows: bool = True
    min_clusters: int | None = None
    min_boundary_count: float | None = None
    max_control_weight: float | None = None
    location: str = "estimate"
    citation: str = attrs.field(default="", kw_only=True)

    @property
    def random(self) -> bool:
        """Whether it draws random numbers (its options take ``rng=``)."""
        return "rng" in self.options.names()


def _closed(kernel: Callable) -> Callable:
    """A closed-form method: ``kernel(estimates, request) -> (lower, upper, se)`` on every group."""
    def compute(request) -> dict:
        with np.errstate(invalid="ignore"):
            lower, upper, se = kernel(request.result.estimates, request)
        return {"lower": lower, "upper": upper, "se": se}

    return compute


def _binomial_se(request) -> np.ndarray:
    return binomial_se(request.result.estimates, request.result.effective_n_pos[:, None])


def _delong_se(request) -> np.ndarray:
    """DeLong's SE of every usable group and estimator: A''s, or the clipped placements' of a partial area."""
    se = request.blank()
    if request.usable.size and design_of(request.result) == "weights":
        # the weighted DeLong: the linearisation of A' over weighted rows (intervals/linearisation.py);
        # a partial area has no weighted form here (NaN, with a note)
        weighted = weighted_delong_se(request.result)
        for j, record in enumerate(request.estimators):
            if not is_partial(record):
                se[request.usable, j] = weighted[request.usable]
        return se
    if request.usable.size:
        full = None
        for j, record in enumerate(request.estimators):
            if is_partial(record):
                w = record.window
                se[request.usable, j] = partial_auroc_se(request.ties, w.focus, w.lo, w.hi, w.standardized)
            else:
                full = delong_se(request.ties)[1] if full is None else full
                se[request.usable, j] = full
    return se


def _obuchowski(request) -> ObuchowskiComponents:
    """Obuchowski's (1997) components of every group, computed once per request."""
    if "obuchowski" not in request.extras:
        clusters = request.result.clusters
        request.extras["obuchowski"] = obuchowski_components(request.result.ties, clusters.ties, clusters.group)
    return request.extras["obuchowski"]


def _obuchowski_se(request) -> np.ndarray:
    """The cluster-robust standard error of A' (the same for every full-area estimator column)."""
    return np.broadcast_to(_obuchowski(request).se[:, None], request.shape)


def _obuchowski_note(request, out) -> np.ndarray:
    notes = np.full(request.shape, None, dtype=object)
    reason = _obuchowski(request).note
    for g in np.flatnonzero(reason != ""):
        notes[g, :] = str(reason[g])
    return notes


def _delong_note(request, out) -> np.ndarray:
    notes = np.full(request.shape, None, dtype=object)
    notes[np.isnan(out["se"])] = "DeLong variance needs >= 2 positives and >= 2 negatives"
    if design_of(request.result) == "weights":
        partial = [j for j, record in enumerate(request.estimators) if is_partial(record)]
        notes[:, partial] = "no weighted DeLong variance for a partial area: use method='bootstrap'"
    return notes


def _full_area(record) -> bool:
    """Closed forms are for the full area: a partial area (``specificity=``, ``recall=``) has none here."""
    return not is_partial(record)


#: What the closed-form methods need (for the error naming a partial area).
_FULL = dict(serves=_full_area, needs="the full area (a partial AUROC has the 'delong' and 'bootstrap' intervals, "
                                      "a partial AUCPR 'bootstrap' and 'cross_validation')")

def _bootstrap(min_positives: float, min_clusters: int | None = None,
               min_boundary_count: float | None = None) -> IntervalMethod:
    """The stratified (cluster, weighted) bootstrap of a metric: one method, its minimums per metric."""
    return IntervalMethod("bootstrap", bootstrap_method, min_positives=min_positives, options=Bootstrap,
                          columns=("n_boot", "boot_mean", "boot_median"), note=bootstrap_note, designs=DESIGNS,
                          location="boot_median", min_clusters=min_clusters, min_boundary_count=min_boundary_count,
                          citation="the percentile interval of the stratified bootstrap, cases and controls resampled "
                                   "within themselves (Efron & Tibshirani 1993)")


#: Interval methods per metric, in display order; the first is not necessarily the default. The minimum
#: numbers of positives are those of the validation report (docs/validation.md, :mod:`.small_sample`).
INTERVAL_METHODS: dict[str, dict[str, IntervalMethod]] = {
    "aucpr": {
        # from weak to near-perfect scores (benchmarks/aucpr_boundary_results.md): the logit interval of average
        # precision covers 91.5-91.8% with 5-10 positives at prevalence 0.01 and a weak score, >= 93% from 20
        # (one cell at 92.1 +- 0.7 was 94.1 +- 0.4 on 4,000 fresh data sets); the binomial 89.5% at 20 positives
        # near AUCPR 1 (prevalence 0.01), >= 91.7% from 30; neither is helped by a boundary rule
        "logit": IntervalMethod("logit", _closed(lambda est, r: logit_interval(est, _binomial_se(r), r.level)),
                                min_positives=20, needs_rows=False, **_FULL,
                                citation="a Wald interval on the logit scale with the binomial standard error of the "
                                         "positives (Boyd, Eng & Page 2013, section 3.2)"),
        "binomial": IntervalMethod("binomial", _closed(lambda est, r: binomial_interval(est, r.result.effective_n_pos[:, None],
                                                                                        r.level)),
                                   min_positives=30, needs_rows=False, **_FULL),
        "wilson": IntervalMethod("wilson", _closed(lambda est, r: wilson_interval(est, r.result.effective_n_pos[:, None],
                                                                                  r.level)),
                                 min_positives=20, fallback=False, needs_rows=False, **_FULL),
        # independent rows, weak to near-perfect scores (docs/validation.md): the percentile interval sits 1-3
        # points short up to 200 positives (92.2-93.0% at 100-200 on the weak binormal), 92.6-94.6% at 500;
        # near 1 it sits above the truth (84.5-88.5% at AUROC 0.995-0.999 with 100-500 positives): flagged below
        # min(P, N)(1 - AP) = 20. Clusters: the cluster bootstrap of average precision covers 91.4% with 15
        # clusters, >= 93.1% from 30 (benchmarks/cluster_count_coverage_results.md)
        "bootstrap": _bootstrap(300, min_clusters=30, min_boundary_count=20),
        # linearisation of average precision over rows, weighted rows or clusters (intervals/linearisation.py);
        # benchmarks/design_coverage.md: >= 93% from 50 positives with independent rows (prevalence 0.01: 91.6% at
        # 20), 92.3% (MC se 1.1) at 58 weighted positives under informative weights, 94.2% at 291. At a stated
        # prevalence with few controls per case it under-covers further (the estimator's bias, not its variance).
        # near 1 the linearisation under-covers (89.5% at AUCPR 0.993 with 100 positives): flagged below
        # min(P, N)(1 - AP) = 10, the worst unflagged coverage over the grid is then 93.0%
        # (benchmarks/aucpr_boundary_results.md)
        "influence": IntervalMethod(
            "influence", influence_method, min_positives=60, note=influence_note, min_boundary_count=10,
            serves=lambda record: record.name == "average_precision",
            needs="average precision (the linearised estimator)", designs=DESIGNS),
        "cross_validation": IntervalMethod(
            "cross_validation", cross_validation_method, min_positives=math.inf, options=CrossValidation,
            columns=("folds", "fold_mean"), note=cross_validation_note, designs=("rows",), location="fold_mean"),
        "per_positive": IntervalMethod(
            "per_positive", per_positive_method, min_positives=math.inf, note=per_positive_note,
            serves=lambda record: record.contributions is not None,
            needs="an estimator that is a mean of per-positive contributions", designs=("rows",)),
    },
    "auroc": {
        # a partial area too: DeLong-type placements clipped to its window (estimators/partial_variance.py)
        # near 1 a Wald interval on DeLong's SE under-covers (66-94% at AUROC 0.98-0.999 with 50-1000
        # positives): flagged below these counts (benchmarks/auroc_boundary.py, docs/intervals.md)
        "delong": IntervalMethod("delong", _closed(lambda est, r: wald_interval(est, _delong_se(r), r.level)),
                                 min_positives=50, note=_delong_note, designs=("rows", "weights"), needs_rows=False,
                                 min_boundary_count=10,
                                 citation="a Wald interval with DeLong's structural-component variance (DeLong, "
                                          "DeLong & Clarke-Pearson 1988)"),
        "logit": IntervalMethod("logit", _closed(lambda est, r: logit_interval(est, _delong_se(r), r.level)),
                                min_positives=50, note=_delong_note, designs=("rows", "weights"), needs_rows=False,
                                min_boundary_count=8, **_FULL),
        # from weak to near-perfect scores (docs/validation.md): Hanley-McNeil 90.2% with 20 positives at
        # AUROC 0.9 and prevalence 0.5, >= 93% from 50; Newcombe 91.1% with 2 positives, >= 93% from 3
        "hanley_mcneil": IntervalMethod(
            "hanley_mcneil", _closed(lambda est, r: wald_interval(
                est, hanley_mcneil_se(est, r.result.effective_n_pos[:, None], r.result.effective_n_neg[:, None]), r.level)),
            min_positives=50, needs_rows=False, **_FULL),
        "newcombe": IntervalMethod(
            "newcombe", _closed(lambda est, r: newcombe_interval(est, r.result.effective_n_pos[:, None],
                                                                 r.result.effective_n_neg[:, None], r.level)),
            min_positives=3, fallback=False, needs_rows=False, **_FULL,
            citation="Newcombe's score interval, inside [0, 1] by construction (Newcombe 2006, method 5)"),
        # near 1 the percentile interval under-covers (78.5% at AUROC 0.999 with 100 positives): flagged below
        # min(P, N)(1 - A') = 10, as DeLong; the worst unflagged coverage is then 92.8% (docs/validation.md)
        "bootstrap": _bootstrap(50, min_boundary_count=10),
        # DeLong's minimum of positives, and of clusters: 88.7% with 15 clusters of 4 rows, 92.9-93.0% with 30-50,
        # >= 93.7% from 100 (benchmarks/cluster_count_coverage_results.md); an outside audit with a stronger
        # within-cluster dependence found 91.0% at 30 clusters, so the count is set at 50
        "obuchowski": IntervalMethod("obuchowski", _closed(lambda est, r: wald_interval(est, _obuchowski_se(r), r.level)),
                                     min_positives=50, note=_obuchowski_note, designs=("cluster",), min_clusters=50,
                                     **_FULL),
    },
}

# Calibration (aucpr_stats.calibration): the statistics of a cohort, whose number of events is random, so the
# bootstrap resamples rows whatever their class (resample/counts.cohort_chunks), weighted rows or whole clusters;
# at a stated prevalence each class within itself. Minimum events from benchmarks/calibration_coverage_results.md
# (3 models from calibrated to over- and underfitted, prevalence 0.5-0.01, 20-1,000 events): Wald >= 93% in every
# cell of 500-1,000 data sets from 20 events but the Brier score (92.4% at 20 events, prevalence 0.5, an
# overfitted model), so 50; the scaled Brier has its own note below 200 (intervals/calibration.py). Profile: >= 93%
# in every cell of 400-1,000 data sets from 20 events (CITL on the robust likelihood). Bootstrap (percentile): the
# slope covers 86.7-89.7% with 20 and 91.7% with 50 events (300 data sets), so 200. Clusters: the sandwich covers
# 93.5% (CITL) and 92.7% (slope) with 40 sites where ignoring them gives 88.5%; the cluster bootstrap takes the
# areas' 30 clusters. A stated prevalence (benchmarks/calibration_case_control_results.md, prevalence 0.01, 400
# samples per cell): with 200 cases and 10 controls per case (each control weighing 9.9) the stratified bootstrap
# covers 92.0-95.0%; with 4 per case (24.8) 86.0-94.5% (the Brier score lowest), with 1 per case 74-93%: flagged
# from a control weight of 10.
INTERVAL_METHODS["calibration"] = {
    "wald": IntervalMethod("wald", wald_method, min_positives=50, note=wald_note, fallback=False, designs=DESIGNS,
                           needs=f"a statistic with a Wald interval {list(WALD_STATISTICS)}", needs_rows=True,
                           citation="a Wald interval from the statistic's linearisation (the delta method; the "
                                    "logistic recalibration's sandwich for the intercept and slope, Van Calster "
                                    "et al. 2016)"),
    "profile": IntervalMethod("profile", profile_method, min_positives=20, note=profile_note, fallback=False,
                              designs=("rows",), needs=f"a logistic coefficient {list(PROFILE_STATISTICS)}"),
    "bootstrap": IntervalMethod("bootstrap", calibration_bootstrap,
                                min_positives=200, options=Bootstrap, columns=("n_boot", "boot_mean", "boot_median"),
                                note=bootstrap_note, designs=DESIGNS, location="boot_median",
                                fallback=False, min_clusters=30, max_control_weight=10.0),
}

# Net benefit (aucpr_stats.net_benefit): a difference of proportions at each threshold, its Wald interval
# the exact linearisation from counts (intervals/net_benefit.py). benchmarks/net_benefit_coverage_results.md
# (3 models, prevalence 0.5-0.01, 20-1,000 events, 5-9 thresholds, 400-2,000 data sets per cell): what decides
# coverage is not the number of events but the equivalent count of each estimate (>= 92.0% from 10, down to
# 54.9% below), noted row by row (intervals/net_benefit.py); 20 events is the smallest size studied. The
# percentile bootstrap is 0-2.3 points below Wald on the same data sets.
INTERVAL_METHODS["net_benefit"] = {
    "wald": IntervalMethod("wald", net_benefit_wald, min_positives=NET_BENEFIT_MIN_EVENTS, note=net_benefit_wald_note,
                           fallback=False, designs=DESIGNS, needs_rows=True,
                           citation="a Wald interval from the exact linearisation of net benefit as a difference "
                                    "of proportions (Vickers, Cronin, Elkin et al. 2008)"),
    "bootstrap": IntervalMethod("bootstrap", net_benefit_bootstrap,
                                min_positives=NET_BENEFIT_MIN_EVENTS, options=Bootstrap,
                                columns=("n_boot", "boot_mean", "boot_median"), note=bootstrap_skew_note,
                                designs=DESIGNS, location="boot_median", fallback=False),
}

# AUCPR at a stated prevalence from a case-control sample: the estimate is biased upward and the intervals
# under-cover when each control stands for many cohort controls. benchmarks/case_control_grid_results.md (the
# default estimator, 2-20 controls per case, prevalence 0.01-0.1, 50-1,000 cases, 1,000 samples per cell): the
# bootstrap covers 91.0-92.4% at weights 1.9-2.45 with 200-1,000 cases, >= 92.8% below 1 (from 200 cases), and
# 43.8-83% from weight 5 whatever the method. Flagged from 1.5.
INTERVAL_METHODS["aucpr"] = {name: attrs.evolve(method, max_control_weight=1.5)
                             for name, method in INTERVAL_METHODS["aucpr"].items()}

#: The default method of each metric: Boyd et al. (2013) found the logit interval valid (at least
#: nominal coverage) in every case study, and it stays inside [0, 1]. For AUROC Newcombe's (2006) score
#: interval: the best worst-case coverage of the closed forms from weak to near-perfect scores (93.2%
#: in every cell, where DeLong's falls to 66% near AUROC 0.999; benchmarks/auroc_boundary_results.md),
#: inside [0, 1] by construction, and faster than DeLong's (no placement values).
DEFAULT_METHOD = {"aucpr": "logit", "auroc": "newcombe", "calibration": "wald", "net_benefit": "wald"}

PR_METHODS = tuple(INTERVAL_METHODS["aucpr"])


def design_of(result) -> str:
    """The result's design: ``"cluster"`` (``cluster=``, with or without weights), ``"weights"`` or ``"rows"``.

    Read off the request the result keeps (:attr:`~aucpr_stats.grouped.GroupedResult.design`).
    """
    return result.design.kind


def default_method(result) -> str:
    """The method ``conf_int()`` uses when none is named, for this result's metric, estimators and design.

    The metric's default (:data:`DEFAULT_METHOD`) for independent rows; the
    bootstrap for a partial area (no closed form) and at a stated prevalence
    (the logit interval ignores the variability of the reweighted negatives,
    benchmarks/prevalence_coverage.md); for weighted rows the logit interval
    (AUCPR on Kish's effective positives, at or above nominal coverage under
    informative weights where the weighted bootstrap is 82-91%; AUROC on
    the weighted DeLong variance, benchmarks/design_coverage_results.md);
    for clustered rows the cluster bootstrap (AUCPR) or Obuchowski's
    cluster-robust variance (AUROC).
    """
    design = design_of(result)
    if result.metric == "net_benefit":  # exact linearisation in every design (intervals/net_benefit.py)
        return "wald"
    if result.metric == "calibration":  # the bootstrap at a stated prevalence (the reweighted controls vary)
        return "bootstrap" if result.stated_prevalence is not None else "wald"
    if any(is_partial(record) for record in result.estimator_records()):
        return "bootstrap"
    if result.stated_prevalence is not None and result.metric == "aucpr":
        return "bootstrap"
    if design == "cluster":
        return "obuchowski" if result.metric == "auroc" else "bootstrap"
    if design == "weights":
        return "logit"
    return DEFAULT_METHOD[result.metric]


ROC_METHODS = tuple(INTERVAL_METHODS["auroc"])
#: the methods that draw random numbers (their options take ``rng=``), over both metrics
RANDOM_METHODS = tuple(dict.fromkeys(name for methods in INTERVAL_METHODS.values()
                                     for name, method in methods.items() if method.random))
