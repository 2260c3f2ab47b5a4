"""Comparing the AUCs of scores: paired (same rows) and unpaired (independent groups).

* **Paired** (default, :mod:`.paired`): two or more score columns on the same
  rows, compared on the rows where all are present. DeLong's test for
  AUROC; the paired stratified bootstrap for any metric.
* **Unpaired** (:mod:`.unpaired`): ``between="site"`` compares the levels of
  a column (different rows): the two AUCs are independent.

The statistics of a difference are in :mod:`.statistics`; the result in
:mod:`.result`; tests across subgroups (heterogeneity of an area,
interaction of a difference: Cochran's Q) in :mod:`.heterogeneity`.
"""

from __future__ import annotations

from typing import Any, Sequence

import polars as pl

from .. import _validate
from ..estimators import DEFAULT_ESTIMATOR, ESTIMATORS
from ..exceptions import InputError
from ..estimators.net_benefit import DEFAULT_THRESHOLDS, thresholds_iv
from ..estimators.partial import partial_iv
from ..estimators.registry import records
from ..estimators.tie_blocks import DEFAULT_TIES, ties_iv
from ..front_door import open_data
from ..progress import progress_iv
from ..resample import DEFAULT_N_BOOT
from .calibration import compare_calibration
from .net_benefit import compare_net_benefit
from .clustered import compare_paired_clustered
from .paired import compare_paired, delong_paired, score_pairs
from .heterogeneity import HeterogeneityResult, heterogeneity
from .imputed import pool_comparisons
from .interaction import LevelTables, PairedRows, interaction
from .methods import COMPARISON_METHODS, ComparisonMethod
from .result import ComparisonResult
from .statistics import ADJUST_METHODS, UNSEEDED_COMPARISON, adjust_p_values, bootstrap_p_value
from .unpaired import compare_unpaired

__all__ = ["compare", "ComparisonResult", "DEFAULT_METRIC", "METRICS", "METHODS", "COMPARISON_METHODS",
           "ComparisonMethod", "delong_paired", "bootstrap_p_value", "heterogeneity", "interaction",
           "HeterogeneityResult", "ADJUST_METHODS"]

#: Metrics that :func:`compare` compares.
METRICS = ("auroc", "aucpr")

#: The metric of :func:`compare`, :func:`aucpr_stats.power` and :func:`aucpr_stats.sample_size` when none is
#: named: the library's namesake. AUROC is always one argument away, ``metric="auroc"``.
DEFAULT_METRIC = "aucpr"

#: Comparison method names per metric, the first the default (their records: :data:`COMPARISON_METHODS`).
METHODS = {metric: tuple(methods) for metric, methods in COMPARISON_METHODS.items()}

#: Arguments that belong to one metric only, and the metric they belong to.
_METRIC_ARGUMENTS = {"specificity": "auroc", "sensitivity": "auroc", "recall": "aucpr", "prevalence": "aucpr"}


def _compare_iv(metric, method, estimator, scores, between, reference, level, n_boot):
    metric = _validate.choice_iv(metric, "metric", METRICS)
    methods = tuple(COMPARISON_METHODS[metric])
    if method is not None and method not in methods and any(method in m for m in METHODS.values()):
        other = next(name for name, m in METHODS.items() if method in m)
        raise InputError(f"`method` must be one of {list(methods)}; got {method!r}, which compares "
                         f"{other.upper()}: pass metric={other!r} (the default metric is {DEFAULT_METRIC!r})")
    method = methods[0] if method is None else _validate.choice_iv(method, "method", methods)
    names = _validate.names_or_all_iv(DEFAULT_ESTIMATOR[metric] if estimator is None else estimator, "estimator",
                                      list(ESTIMATORS[metric]))
    score_names = None if scores is None else _validate.names_iv(scores, "score", allow_none=False)
    if between is None and score_names is not None and len(score_names) < 2:
        raise InputError(
            f"`score` must name at least two columns for a paired comparison; got {list(score_names)}. "
            "To compare one score between independent groups, pass `between=` (e.g. between='site')"
        )
    return metric, method, names, score_names, _validate.level_iv(level), _validate.n_boot_iv(n_boot)


def compare(
    data_or_formula: Any = None,
    /,
    outcome: str | None = None,
    score: Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    *,
    data: Any = None,
    scores: Sequence[str] | None = None,
    metric: str = DEFAULT_METRIC,
    method: str | None = None,
    reference: Any = None,
    estimator: str | Sequence[str] | None = None,
    between: str | None = None,
    level: float = 0.95,
    n_boot: int = DEFAULT_N_BOOT,
    seed: Any = None,
    positive: Any = None,
    missing: str = "error",
    ties: str = DEFAULT_TIES,
    adjust: str | None = None,
    progress: bool | None = None,
    specificity: Sequence[float] | None = None,
    sensitivity: Sequence[float] | None = None,
    recall: Sequence[float] | None = None,
    standardized: bool = False,
    negative: Any = None,
    direction: str = "higher",
    unused_levels: str = "keep",
    prevalence: float | None = None,
    cluster: str | None = None,
    weights: str | None = None,
    rng: Any = None,
    thresholds: Any = None,
    policy: str = "opt-in",
    harm: float = 0.0,
    band: Any = None,
    imputation: str | None = None,
) -> ComparisonResult:
    """Compare the AUCPR or AUROC of scores, paired on the same rows or between independent groups.

    The metric compared is AUCPR unless ``metric="auroc"`` says otherwise:
    the library's one default, shared with :func:`aucpr_stats.power` and
    :func:`aucpr_stats.sample_size` (:data:`DEFAULT_METRIC`).

    Parameters
    ----------
    data_or_formula : frame or str
        The data (pandas / polars DataFrame or LazyFrame), or a formula
        ``"y ~ s1 + s2 | site"`` with the data in ``data=``.
    outcome : str
        Binary outcome column (boolean, 0/1, or with ``positive=``).
    score : list of str
        Score columns, spelled as in :func:`aucpr_stats.aucpr`. Paired (no
        ``between``): two or more, compared on the rows where all of them are
        present. Unpaired: one or more, each compared between the levels of
        ``between``.
    scores : list of str, optional
        The same, under its earlier name (kept so existing code runs; give
        one of ``score`` and ``scores``).
    by : str or list of str, optional
        Grouping columns: one set of comparisons per group.
    metric : {"aucpr", "auroc", "calibration", "net_benefit"}
        The area compared: ``"aucpr"`` (default, the library's namesake) or
        ``"auroc"``; or calibration statistics (the paired Wald comparison,
        :mod:`aucpr_stats.compare.calibration`); or net benefit at
        ``thresholds`` (default 1%-99%) under ``policy`` with the test's
        ``harm``, the paired Wald difference at each threshold and with
        ``band=(low, high)`` a simultaneous sup-t band over that range
        (:mod:`aucpr_stats.compare.net_benefit`; ``estimator=`` picks the
        net-benefit statistics, ``rng=`` seeds the band's draws).
    method : {"bootstrap", "delong"}, optional
        ``"bootstrap"`` (the only method for AUCPR, so the default call is
        the paired bootstrap of AUCPR): the stratified bootstrap, paired (the same
        resampled rows for every score) or, with ``between``, independent per
        group; percentile interval of the difference and the p-value of
        :func:`bootstrap_p_value`. ``"delong"`` (the default for
        ``metric="auroc"``): DeLong, DeLong & Clarke-Pearson's (1988) normal
        test with their covariance.
    reference : optional
        Compare every other score (paired) or level of ``between`` (unpaired)
        with this one; by default all pairs. The difference is
        ``other - reference``.
    estimator : str or list of str, optional
        The estimator(s) of ``metric`` (default ``"a_prime"`` for AUROC and
        the default of :func:`aucpr_stats.aucpr` for AUCPR; any registered
        AUCPR estimator, a list of them, or ``"all"`` works with the bootstrap).
    between : str, optional
        Unpaired comparison: a column whose levels are independent groups of
        rows (sites, data sets); the AUCs of the levels are compared.
    level : float
        Confidence level of the interval of the difference.
    n_boot : int
        Bootstrap replicates.
    seed : None, int, numpy.random.Generator or SeedSequence
        The alias of ``rng`` (the same value gives the same numbers); give one of the two.
    positive : scalar, optional
        The positive level of ``outcome``.
    missing : {"error", "drop"}
        Missing values raise (default) or are dropped; a paired comparison
        drops a row when any of its scores is missing (complete cases) and
        reports the count per group in ``n_missing``.
    ties : {"interpolate", "published"}
        How AUCPR estimators cross a tie block holding both classes (see
        :func:`aucpr_stats.aucpr`); AUROC (A') counts ties one half either way.
    adjust : {"holm", "bonferroni", "bh"}, optional
        Adjust the p-values for multiplicity (default: no adjustment) and add
        a ``p_adjusted`` column after ``p_value``. The family is the pairs
        compared within one group: the rows that share the ``by`` keys, the
        score (unpaired comparisons of several scores) and the estimator.
        ``"holm"``: Holm's step-down (family-wise error);
        ``"bonferroni"``; ``"bh"``: Benjamini-Hochberg (false discovery
        rate). NaN p-values stay NaN and are not counted. See
        :func:`aucpr_stats.compare.statistics.adjust_p_values`.
    progress : bool, optional
        A progress bar for the bootstrap: None (default) on a terminal once
        the work has run 2 seconds, True always, False never
        (:mod:`aucpr_stats.progress`).
    specificity, sensitivity : (lo, hi), optional
        AUROC: compare partial areas over this range (as
        :func:`aucpr_stats.auroc`), with the paired bootstrap (the default
        then; DeLong's test is for the full area and is refused).
    recall : (lo, hi), optional
        AUCPR: compare partial areas over this recall range (as
        :func:`aucpr_stats.aucpr`).
    standardized : bool
        With a partial range: McClish's standardisation (AUROC) or the
        partial area divided by its width (AUCPR).
    negative : scalar or list, optional
        The negative level(s) of an outcome with more than two levels, as in
        :func:`aucpr_stats.aucpr`.
    direction : {"higher", "lower", "auto"}
        Which way the scores point, as in :func:`aucpr_stats.aucpr`; with
        ``"auto"`` each score is read its own way (pROC's rule, pooled over
        groups) and the choice is reported in a warning.
    unused_levels : {"keep", "drop"}
        Declared levels of ``by`` (and ``between``) without rows: rows with
        NaN numbers and a note (default), or dropped; as in
        :func:`aucpr_stats.aucpr`.
    prevalence : float in (0, 1), optional
        AUCPR: compare the areas at a stated population prevalence (the
        negatives reweighted, as in :func:`aucpr_stats.aucpr`); the bootstrap
        holds it fixed.
    cluster : str, optional
        A cluster id column (several rows per patient). Paired: the cluster
        bootstrap draws the same patients for every score, and for AUROC the
        DeLong-type test uses Obuchowski's (1997) cluster-robust covariance
        (``method`` reads ``"obuchowski"``); every score needs the same rows.
        Unpaired (``between=``): each level's clusters are resampled on their
        own, and the AUROC variances are Obuchowski's. See ``docs/designs.md``.
    weights : str, optional
        A column of case weights (as in :func:`aucpr_stats.aucpr`). Paired:
        the bootstrap resamples the rows of each class, each with its weight
        and the same rows for every score; the AUROC test uses the weighted
        DeLong covariance (Obuchowski's with one row per cluster). With
        ``cluster=`` too, whole clusters with their weighted counts.
        Unpaired: the weighted bootstrap of each level (AUROC: ``method="bootstrap"``).
    rng : None, int, numpy.random.Generator or SeedSequence
        The randomness of the bootstrap (SPEC 7): each group draws from its
        own stream, derived from ``rng`` and its key; the same ``rng`` gives
        the same result.
    imputation : str, optional
        A column numbering multiply imputed data sets (mice's ``.imp``): each
        difference is computed on every imputed data set and pooled by
        Rubin's rules (:mod:`aucpr_stats.compare.imputed`); the frame gains
        ``df``, ``riv``, ``fmi``, ``m`` and the test is a t test.

    Returns
    -------
    ComparisonResult
        ``.to_frame()`` columns: the ``by`` keys; ``score_a``, ``score_b``
        (paired) or ``score`` (several scores), ``<between>_a``,
        ``<between>_b`` (unpaired); ``estimator``, ``estimate_a``,
        ``estimate_b``, ``difference`` (a - b), ``se``, ``z``, ``p_value``,
        ``method``, ``level``, ``lower``, ``upper`` (interval of the
        difference), ``correlation`` (of the two estimates; NaN unpaired),
        ``n_pos``, ``n_neg``, ``n_missing`` (paired) or ``n_pos_a``,
        ``n_neg_a``, ``n_pos_b``, ``n_neg_b`` (unpaired), ``note``; with
        ``adjust``, ``p_adjusted`` after ``p_value``. ``.interaction()`` tests
        whether the difference is the same in every group; ``.table()`` is
        the publication table (:func:`aucpr_stats.comparison_table`).

    Raises
    ------
    ColumnNotFoundError, InputTypeError, MissingValueError, OutcomeError, InputError
        As for :func:`aucpr_stats.aucpr`; also fewer than two scores without
        ``between``, a ``reference`` that is not a score or level, a method
        the metric does not offer.

    References
    ----------
    DeLong, E. R., DeLong, D. M., Clarke-Pearson, D. L. (1988). Comparing the
    areas under two or more correlated receiver operating characteristic
    curves: a nonparametric approach. Biometrics 44, 837-845.

    Examples
    --------
    >>> import numpy as np, polars as pl
    >>> from aucpr_stats import compare
    >>> gen = np.random.default_rng(1)
    >>> y = gen.random(400) < 0.3
    >>> df = pl.DataFrame({"y": y, "a": gen.normal(size=400) + y, "b": gen.normal(size=400) + 0.5 * y})
    >>> result = compare(df, "y", ["a", "b"], n_boot=500, rng=1)  # AUCPR, the paired bootstrap
    >>> result.method, result.difference > 0
    ('bootstrap', True)
    >>> compare(df, "y", ["a", "b"], metric="auroc").method  # AUROC, DeLong's test
    'delong'
    """
    if scores is not None:
        if score is not None:
            raise InputError(f"give the score columns once, as `score` (or its earlier name `scores`); got "
                             f"score={score!r} and scores={scores!r}")
        score = scores
    scores = score
    if imputation is not None and metric not in METRICS:
        raise InputError(f"`imputation=` pools comparisons of AUROC or AUCPR; metric={metric!r} does not take it yet")
    if metric == "calibration":  # a paired Wald comparison of the statistics (compare/calibration.py)
        given = {name: value for name, value in (("between", between), ("cluster", cluster), ("weights", weights),
                                                 ("prevalence", prevalence), ("specificity", specificity),
                                                 ("sensitivity", sensitivity), ("recall", recall),
                                                 ("adjust", adjust)) if value is not None}
        if given or method not in (None, "wald"):
            refused = sorted(given) + ([f"method={method!r}"] if method not in (None, "wald") else [])
            raise InputError(f"compare(metric='calibration') is the paired Wald comparison of independent rows; "
                             f"it does not take {refused} yet")
        return compare_calibration(data_or_formula, data, outcome, scores, by, statistic=estimator,
                                   reference=reference, level=level, positive=positive, missing=missing,
                                   negative=negative, unused_levels=unused_levels)
    if metric == "net_benefit":  # the paired Wald difference at each threshold (compare/net_benefit.py)
        given = {name: value for name, value in (("between", between), ("cluster", cluster), ("weights", weights),
                                                 ("specificity", specificity), ("sensitivity", sensitivity),
                                                 ("recall", recall), ("adjust", adjust)) if value is not None}
        if given or method not in (None, "wald"):
            refused = sorted(given) + ([f"method={method!r}"] if method not in (None, "wald") else [])
            raise InputError(f"compare(metric='net_benefit') is the paired Wald comparison of independent rows; "
                             f"it does not take {refused} yet")
        if prevalence is not None:
            prevalence = _validate.probability_iv(prevalence, "prevalence")
        return compare_net_benefit(
            data_or_formula, data, outcome, scores, by, statistic=estimator or "net_benefit",
            thresholds=thresholds_iv(DEFAULT_THRESHOLDS if thresholds is None else thresholds), policy=policy,
            harm=_validate.number_iv(harm, "harm"), prevalence=prevalence, band=band,
            rng=_validate.rng_iv(rng, seed), reference=reference, level=level, positive=positive, missing=missing,
            negative=negative, unused_levels=unused_levels)
    if thresholds is not None or band is not None:
        raise InputError("`thresholds=` and `band=` apply to metric='net_benefit'")
    requested_method = method
    for name, value in (("specificity", specificity), ("sensitivity", sensitivity), ("recall", recall),
                        ("prevalence", prevalence)):
        owner = _METRIC_ARGUMENTS[name]
        if value is not None and metric != owner and metric in METRICS:
            raise InputError(f"`{name}=` applies to {owner.upper()}; got metric={metric!r}: pass metric={owner!r}")
    metric, method, names, score_names, level, n_boot = _compare_iv(
        metric, method, estimator, scores, between, reference, level, n_boot)
    window = partial_iv(metric, specificity=specificity, sensitivity=sensitivity, recall=recall,
                        standardized=standardized)
    if window is not None:  # a partial area (its record carries the window): only the bootstrap applies
        if requested_method is not None and method != "bootstrap":
            raise InputError(f"method {method!r} compares full areas; compare partial areas with "
                             "method='bootstrap' (the paired stratified bootstrap)")
        method = "bootstrap"
    seed = _validate.rng_iv(rng, seed)
    adjust = None if adjust is None else _validate.choice_iv(adjust, "adjust", ADJUST_METHODS)
    progress = progress_iv(progress)
    if prevalence is not None:
        prevalence = _validate.probability_iv(prevalence, "prevalence")
    estimators = records(metric, names, ties_iv(ties), prevalence=prevalence, window=window)
    names = tuple(record.name for record in estimators)  # a partial area's label
    score = list(score_names) if score_names is not None and len(score_names) > 1 else scores
    rows_as_clusters = weights is not None and cluster is None and between is None
    # weighted pairs: every row its own cluster (the front door numbers the rows), so the rows carry their weights
    if weights is not None and between is not None and method == "delong":
        raise InputError("an unpaired weighted comparison of AUROC uses method='bootstrap' (the weighted "
                         "bootstrap of each level)")
    # clustered pairs: one table per (group, score) with its clusters, instead of the paired rows
    request, ingested = open_data("compare", data_or_formula, data, outcome, score, by, positive=positive,
                                  missing=missing, between=between,
                                  paired=between is None and cluster is None and not rows_as_clusters,
                                  negative=negative, direction=direction, unused_levels=unused_levels,
                                  cluster=cluster, weights=weights,
                                  rows_as_clusters=rows_as_clusters, prevalence=prevalence, metric=metric,
                                  records=estimators, ties=ties_iv(ties), imputation=imputation, stacklevel=3)
    spec = ingested.spec
    if between is None and len(spec.scores) < 2:
        raise InputError(
            f"`score` must name at least two columns for a paired comparison; got {list(spec.scores)}. "
            "To compare one score between independent groups, pass `between=` (e.g. between='site')"
        )
    if between is None and reference is not None and reference not in spec.scores:
        raise InputError(f"`reference` must be one of `score` {list(spec.scores)}; got {reference!r}")
    common = dict(metric=metric, method=method, level=level, reference=reference, estimators=names,
                  n_boot=n_boot if method == "bootstrap" else None)
    if between is None and (cluster is not None or rows_as_clusters):
        table = compare_paired_clustered(ingested, estimators, seed, common, rows_as_clusters)
    elif between is None:
        table = compare_paired(ingested, estimators, seed, common, progress)
    else:
        between = ingested.key_columns[len(spec.by)]
        table, seg_a, seg_b = compare_unpaired(ingested, between, estimators, seed, common, progress)
    by = spec.by
    if imputation is not None:  # each imputation's difference and standard error, pooled by Rubin's rules
        imputation = request.design.imputation
        table = pool_comparisons(table, imputation, level)
        by = tuple(c for c in spec.by if c != imputation)
    if adjust is not None:  # one family per group (by keys, unpaired score) and estimator
        family = [c for c in (*by, "score") if c in table.columns and c != between] + ["estimator"]
        adjusted = pl.Series("p_adjusted", adjust_p_values(table, list(dict.fromkeys(family)), adjust))
        table = table.insert_column(table.columns.index("p_value") + 1, adjusted)
    design = {k: v for k, v in (("cluster", None if rows_as_clusters else cluster), ("prevalence", prevalence),
                                ("weights", weights)) if v is not None}
    if method == "bootstrap" and seed is None:  # another run gives another interval and p-value: say so
        table = table.with_columns(pl.when(pl.col("note").is_null()).then(pl.lit(UNSEEDED_COMPARISON))
                                   .otherwise(pl.col("note") + "; " + UNSEEDED_COMPARISON).alias("note"))
    # a comparison of independent rows keeps its tables, for the jackknife of `.interaction()`
    source = None
    if imputation is not None:
        pass  # the interaction's jackknife reads one data set's rows; a pooled comparison has m
    elif ingested.paired is not None and weights is None:
        source = PairedRows(ingested.paired, estimators, ingested.keys, spec.by, score_pairs(spec.scores, reference))
    elif between is not None and cluster is None and weights is None:
        source = LevelTables(ingested.ties, estimators, ingested.keys, list(ingested.key_columns), seg_a, seg_b)
    return ComparisonResult(table=table, frame_kind=ingested.kind, paired=between is None, by=by,
                            between=between, outcome=spec.outcome, scores=spec.scores, adjust=adjust,
                            design=design, jackknife_source=source, seed=seed, records=estimators,
                            **common)
