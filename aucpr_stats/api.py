"""Public entry points that take a data frame and column names: the areas per group."""

from __future__ import annotations

from typing import Any, Sequence

from .binary_estimate import binary_areas, estimate
from .estimators import DEFAULT_PR_ESTIMATOR, DEFAULT_ROC_ESTIMATOR
from .estimators.tie_blocks import DEFAULT_TIES
from .multiclass import multiclass_areas, refuse_binary_arguments
from .results import AucprResult, AurocResult
from .exceptions import InputError
from .formula import is_survival_formula
from .survival import time_dependent_call

__all__ = ["aucpr", "auroc", "estimate"]


def _refuse_survival_options(**given: Any) -> None:
    """``horizon=`` and ``censoring_strata=`` without a time-to-event outcome."""
    for name, value in given.items():
        if value is not None:
            raise InputError(f"`{name}` belongs to a time-to-event outcome: give `time` and `event` columns (or a "
                             "formula 'Surv(time, event) ~ score') with it")


def aucpr(
    data_or_formula: Any = None,
    /,
    outcome: str | None = None,
    score: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    *,
    data: Any = None,
    estimator: str | Sequence[str] = DEFAULT_PR_ESTIMATOR,
    positive: Any = None,
    missing: str = "error",
    fold: str | None = None,
    ties: str = DEFAULT_TIES,
    recall: Sequence[float] | None = None,
    standardized: bool = False,
    negative: Any = None,
    direction: str = "higher",
    unused_levels: str = "keep",
    prevalence: float | None = None,
    weights: str | None = None,
    cluster: str | None = None,
    imputation: str | None = None,
    multiclass: str | None = None,
    average: Any = None,
    time: str | None = None,
    event: str | None = None,
    horizon: Any = None,
    censoring_strata: str | None = None,
) -> AucprResult:
    """Area under the precision-recall curve, per group.

    Parameters
    ----------
    data_or_formula : pandas.DataFrame, polars.DataFrame, polars.LazyFrame or str
        The data (one row per case), or an R-style formula
        ``"outcome ~ score1 + score2 | group1 + group2"`` with the data in
        ``data=`` (see :mod:`aucpr_stats.formula`).
    outcome : str
        Binary outcome column: boolean, 0/1, or a column of two levels with
        ``positive=`` naming the positive one. An outcome with more levels
        needs ``negative=`` too.
    score : str or list of str
        Numeric score column; larger values predict the positive class
        (see ``direction``).
        Several columns give one estimate per score, identified by a
        ``score`` key column after the ``by`` keys.
    by : str or list of str, optional
        Grouping columns; one estimate per combination of their values.
    data : frame, optional
        The data, when the first argument is a formula (or as a keyword).
    estimator : str, list of str or "all"
        AUCPR estimator(s), see :data:`aucpr_stats.estimators.PR_ESTIMATORS`
        (``"all"`` for every one).
    positive : scalar, optional
        The positive level of ``outcome``. Required unless ``outcome`` is
        boolean or 0/1.
    missing : {"error", "drop"}
        Rows with a null or NaN outcome or score raise an error (default), or
        are dropped and counted per group in the ``n_missing`` column.
        With ``negative=``, an outcome that is neither positive nor negative
        counts as missing.
    fold : str, optional
        A fold column (e.g. the fold of each out-of-fold prediction of the
        caller's cross-validation). The result then also keeps a tie table per
        group and fold, for ``.conf_int(method="cross_validation")`` over
        these folds. The estimates do not depend on it.
    ties : {"interpolate", "published"}
        How a tie block holding both positives and negatives is crossed.
        ``"interpolate"`` (default): as a random order of its rows would cross
        it on average, along the Davis-Goadrich interpolation; a mixed top
        block starts the curve at its own precision and a constant score gives
        the prevalence (:mod:`aucpr_stats.estimators.tie_blocks`).
        ``"published"``: the literal conventions of Boyd et al. (2013) and
        scikit-learn (straight lines in PR space, a start at precision 1, the
        precision at a block's bottom for average precision), to reproduce
        numbers computed with them. Both agree when no tie holds both classes.
    recall : (lo, hi), optional
        A partial area: the estimator's curve integrated over recalls in
        ``[lo, hi]`` only, unnormalised (at most ``hi - lo``). Defined for
        ``lower_trapezoid``, ``upper_trapezoid``, ``average_precision`` and the
        ``interpolated_*`` estimators (:mod:`aucpr_stats.estimators.partial_pr`);
        the estimator column reads e.g. ``"interpolated_median, recall 0.5-1"``.
        Intervals: ``"bootstrap"`` and ``"cross_validation"``.
    standardized : bool
        With ``recall=``: divide the partial area by ``hi - lo`` (the mean
        precision over the window, on the 0-1 scale).

    negative : scalar or list, optional
        The negative level(s) of ``outcome``. Needed when ``outcome`` has more
        than two levels (without it such an outcome raises
        :class:`~aucpr_stats.exceptions.OutcomeError`); rows whose outcome is
        neither ``positive`` nor in ``negative`` are then missing outcomes
        (see ``missing``).
    direction : {"higher", "lower", "auto"}
        ``"higher"`` (default): larger scores predict the positive class.
        ``"lower"``: smaller scores do (the score is negated, exactly).
        ``"auto"``: chosen per score column from the data by pROC's rule (the
        score points up when the median score of the negatives is at most
        that of the positives), pooled over groups, reported in a
        ``DirectionWarning`` and in ``result.direction``; choosing
        it from the data biases the area upward.
    unused_levels : {"keep", "drop"}
        ``"keep"`` (default): a grouping column with declared levels (a pandas
        Categorical or a polars Enum) gives a row for every level in its
        declared order, a level absent from the data with zero counts, a NaN
        estimate and the note ``"no rows: level not in the data"``; several
        key columns give every combination (as pandas'
        ``groupby(observed=False)``). ``"drop"``: only groups with rows left.
    prevalence : float in (0, 1) or "overall", optional
        A population prevalence to report the area at (Boyd et al. 2013,
        section 3.1: "the skew is assumed to be given"), for samples whose
        prevalence is not the population's (case-control and nested
        case-control studies). Each group's negatives are reweighted so that
        positives make up ``prevalence`` of the weight
        (:mod:`aucpr_stats.estimators.prevalence`); the prevalence is then
        treated as known by every interval (the bootstrap keeps class sizes).
        The frame gains a ``stated_prevalence`` column; ``prevalence`` stays
        the sample's. It assumes the sampled negatives represent the
        population's negatives (controls sampled at random, or within strata
        with weights). ``"overall"``: the share of positives among the usable
        rows of all groups together, stated for every group, so that
        subgroups of different prevalence are compared at one base rate (the
        data are read twice; not with ``weights=``).

    imputation : str, optional
        A column numbering multiply imputed data sets stacked in long format
        (mice's ``.imp``; drop its ``0``, the incomplete original data): each
        statistic is estimated on every imputed data set and pooled by Rubin's
        rules (on the logit scale for areas), giving an
        :class:`~aucpr_stats.pooling.ImputedResult` (``docs/pooling.md``).
    multiclass : {"ovr", "ovo", "hand_till"}, optional
        An outcome with more than two classes and ``score`` one column per
        class (a dict ``{level: column}``, a template ``"p_{level}"``, or
        ``{model: ...}`` for several models): per-class (one-vs-rest) or
        per-pair areas and their ``average``, as a
        :class:`~aucpr_stats.multiclass.MulticlassResult` (``docs/multiclass.md``).
    average : {"macro", "weighted", "micro", "all"} or list, optional
        With ``multiclass=``: the averages reported beside the classes.
    time, event : str, optional
        A time-to-event outcome (instead of ``outcome``; or a formula
        ``"Surv(time, event) ~ score | group"``): the follow-up time (>= 0)
        and the event indicator (1 event, 0 censored). With ``horizon=``,
        the cumulative/dynamic AP(t) (Yuan et al. 2018) at each horizon t: cases are the events
        by t, controls the rows event-free after t, weighted by the inverse
        probability of not being censored (Kaplan-Meier), giving a
        :class:`~aucpr_stats.survival.TimeDependentResult` with a row per
        horizon (``docs/time_to_event.md``).
    horizon : float or list of float
        With ``time=``: the horizon(s) t.
    censoring_strata : str, optional
        With ``time=``: a column within whose levels the censoring
        distribution is fitted separately (censoring that differs by centre,
        say); by default one Kaplan-Meier fit per group.

    Returns
    -------
    AucprResult
        ``.to_frame()``, ``.summary()``, ``.conf_int()``; ``.estimate`` when
        ungrouped with one estimator.

    Raises
    ------
    ColumnNotFoundError
        A named column is not in ``data``.
    InputTypeError
        ``data`` is not a supported frame, or ``score`` is not numeric.
    MissingValueError
        Missing values with ``missing="error"``.
    OutcomeError
        ``outcome`` is not binary or ``positive`` is absent.
    InputError
        Empty data, infinite scores, unknown estimator.

    Warns
    -----
    DegenerateGroupWarning
        Some groups have no positives or no negatives; their estimate is NaN
        and their ``note`` says why. The other groups are computed normally.

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats import aucpr
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 1], "s": [0.9, 0.8, 0.7, 0.2, 0.1]})
    >>> round(aucpr(df, "y", "s", estimator="average_precision").estimate, 4)
    0.7556
    >>> round(aucpr("y ~ s", data=df, estimator="average_precision").estimate, 4)
    0.7556
    """
    if time is not None or event is not None or is_survival_formula(data_or_formula, outcome):
        return time_dependent_call("aucpr", data_or_formula, data, outcome, score, by, time=time, event=event,
                                   horizon=horizon, estimator=estimator, ties=ties, weights=weights,
                                   cluster=cluster, censoring_strata=censoring_strata, missing=missing,
                                   direction=direction, refused=dict(
                                       positive=positive, negative=negative, fold=fold, recall=recall,
                                       prevalence=prevalence, imputation=imputation, multiclass=multiclass,
                                       average=average))
    _refuse_survival_options(horizon=horizon, censoring_strata=censoring_strata)
    if multiclass is not None:
        refuse_binary_arguments(positive=positive, negative=negative, fold=fold, recall=recall,
                                prevalence=prevalence, imputation=imputation, direction=direction)
        return multiclass_areas("aucpr", data_or_formula, data, outcome, score, by, multiclass=multiclass,
                                average=average, estimator=estimator, ties=ties, weights=weights, cluster=cluster,
                                missing=missing)
    return binary_areas("aucpr", estimator, data_or_formula, data, outcome, score, by, positive=positive,
                     missing=missing, fold=fold, ties=ties,
                     partial={"recall": recall, "standardized": standardized},
                     negative=negative, direction=direction, unused_levels=unused_levels, prevalence=prevalence,
                     weights=weights, cluster=cluster, imputation=imputation)


def auroc(
    data_or_formula: Any = None,
    /,
    outcome: str | None = None,
    score: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    *,
    data: Any = None,
    estimator: str | Sequence[str] = DEFAULT_ROC_ESTIMATOR,
    positive: Any = None,
    missing: str = "error",
    specificity: Sequence[float] | None = None,
    sensitivity: Sequence[float] | None = None,
    standardized: bool = False,
    negative: Any = None,
    direction: str = "higher",
    unused_levels: str = "keep",
    weights: str | None = None,
    cluster: str | None = None,
    imputation: str | None = None,
    multiclass: str | None = None,
    average: Any = None,
    time: str | None = None,
    event: str | None = None,
    horizon: Any = None,
    censoring_strata: str | None = None,
) -> AurocResult:
    """Area under the ROC curve (A', ties counted one half), per group.

    A' is the probability that a random positive scores higher than a random
    negative, a tie counting one half (Radcliffe 2013, Eq. 3), computed from
    the tie table in O(distinct scores) per group. It equals the Mann-Whitney
    U statistic divided by ``n_pos * n_neg`` and
    ``sklearn.metrics.roc_auc_score``.

    Parameters
    ----------
    data_or_formula : pandas.DataFrame, polars.DataFrame, polars.LazyFrame or str
        The data (one row per case), or an R-style formula
        ``"outcome ~ score1 + score2 | group1 + group2"`` with the data in
        ``data=`` (see :mod:`aucpr_stats.formula`).
    outcome : str
        Binary outcome column: boolean, 0/1, or a column of two levels with
        ``positive=`` naming the positive one. An outcome with more levels
        needs ``negative=`` too.
    score : str or list of str
        Numeric score column; larger values predict the positive class
        (see ``direction``).
        Several columns give one estimate per score, identified by a
        ``score`` key column after the ``by`` keys.
    by : str or list of str, optional
        Grouping columns; one estimate per combination of their values.
    data : frame, optional
        The data, when the first argument is a formula (or as a keyword).
    estimator : str, list of str or "all"
        ROC AUC estimator(s), see
        :data:`aucpr_stats.estimators.ROC_ESTIMATORS` (``"a_prime"``).
    positive : scalar, optional
        The positive level of ``outcome``. Required unless ``outcome`` is
        boolean or 0/1.
    missing : {"error", "drop"}
        Rows with a null or NaN outcome or score raise an error (default), or
        are dropped and counted per group in the ``n_missing`` column.
        With ``negative=``, an outcome that is neither positive nor negative
        counts as missing.
    specificity, sensitivity : (lo, hi), optional
        A partial area (one of the two): the area under the empirical ROC
        curve (straight lines between its points) over specificities, or
        sensitivities, in ``[lo, hi]``, equal to pROC's ``auc(roc,
        partial.auc=c(hi, lo), partial.auc.focus=...)``
        (:mod:`aucpr_stats.estimators.partial`). The estimator column reads
        e.g. ``"a_prime, specificity 0.8-1"``. Intervals: ``"bootstrap"``
        (the default for a partial area) and ``"delong"`` (placement values
        clipped to the window, :mod:`aucpr_stats.estimators.partial_variance`);
        the other closed forms are refused.
    standardized : bool
        With a partial range: McClish's standardisation (pROC's
        ``partial.auc.correct=TRUE``), 1/2 for the diagonal and 1 for a perfect
        test; NaN where the curve's partial area is below the diagonal's.

    negative : scalar or list, optional
        The negative level(s) of ``outcome``. Needed when ``outcome`` has more
        than two levels (without it such an outcome raises
        :class:`~aucpr_stats.exceptions.OutcomeError`); rows whose outcome is
        neither ``positive`` nor in ``negative`` are then missing outcomes
        (see ``missing``).
    direction : {"higher", "lower", "auto"}
        ``"higher"`` (default): larger scores predict the positive class.
        ``"lower"``: smaller scores do (the score is negated, exactly).
        ``"auto"``: chosen per score column from the data by pROC's rule (the
        score points up when the median score of the negatives is at most
        that of the positives), pooled over groups, reported in a
        ``DirectionWarning`` and in ``result.direction``; choosing
        it from the data biases the area upward.
    unused_levels : {"keep", "drop"}
        ``"keep"`` (default): a grouping column with declared levels (a pandas
        Categorical or a polars Enum) gives a row for every level in its
        declared order, a level absent from the data with zero counts, a NaN
        estimate and the note ``"no rows: level not in the data"``; several
        key columns give every combination (as pandas'
        ``groupby(observed=False)``). ``"drop"``: only groups with rows left.

    imputation : str, optional
        A column numbering multiply imputed data sets stacked in long format
        (mice's ``.imp``; drop its ``0``, the incomplete original data): each
        statistic is estimated on every imputed data set and pooled by Rubin's
        rules (on the logit scale for areas), giving an
        :class:`~aucpr_stats.pooling.ImputedResult` (``docs/pooling.md``).
    multiclass : {"ovr", "ovo", "hand_till"}, optional
        An outcome with more than two classes and ``score`` one column per
        class (a dict ``{level: column}``, a template ``"p_{level}"``, or
        ``{model: ...}`` for several models): per-class (one-vs-rest) or
        per-pair areas and their ``average``, as a
        :class:`~aucpr_stats.multiclass.MulticlassResult` (``docs/multiclass.md``).
    average : {"macro", "weighted", "micro", "all"} or list, optional
        With ``multiclass=``: the averages reported beside the classes.
    time, event : str, optional
        A time-to-event outcome (instead of ``outcome``; or a formula
        ``"Surv(time, event) ~ score | group"``): the follow-up time (>= 0)
        and the event indicator (1 event, 0 censored). With ``horizon=``,
        the cumulative/dynamic AUC(t) (Uno et al. 2007; Blanche et al. 2013) at each horizon t: cases are the events
        by t, controls the rows event-free after t, weighted by the inverse
        probability of not being censored (Kaplan-Meier), giving a
        :class:`~aucpr_stats.survival.TimeDependentResult` with a row per
        horizon (``docs/time_to_event.md``).
    horizon : float or list of float
        With ``time=``: the horizon(s) t.
    censoring_strata : str, optional
        With ``time=``: a column within whose levels the censoring
        distribution is fitted separately (censoring that differs by centre,
        say); by default one Kaplan-Meier fit per group.

    Returns
    -------
    AurocResult
        ``.to_frame()``, ``.summary()``, ``.conf_int()`` (``"delong"``,
        ``"logit"``, ``"hanley_mcneil"``, ``"bootstrap"``); ``.estimate`` when
        ungrouped with one estimator.

    Raises
    ------
    ColumnNotFoundError
        A named column is not in ``data``.
    InputTypeError
        ``data`` is not a supported frame, or ``score`` is not numeric.
    MissingValueError
        Missing values with ``missing="error"``.
    OutcomeError
        ``outcome`` is not binary or ``positive`` is absent.
    InputError
        Empty data, infinite scores, unknown estimator.

    Warns
    -----
    DegenerateGroupWarning
        Some groups have no positives or no negatives; their estimate is NaN
        and their ``note`` says why. The other groups are computed normally.

    References
    ----------
    Radcliffe, D. (2013). Efficient computation of the A' statistic, Eq. (3).
    DeLong, E. R., DeLong, D. M., Clarke-Pearson, D. L. (1988). Comparing the
    areas under two or more correlated receiver operating characteristic
    curves: a nonparametric approach. Biometrics 44, 837-845.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats.api import auroc
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 1], "s": [0.9, 0.8, 0.7, 0.7, 0.1]})
    >>> auroc(df, "y", "s").estimate  # positives beat (2 + 1/2 + 0) of 2 negatives each
    0.4166666666666667
    """
    if time is not None or event is not None or is_survival_formula(data_or_formula, outcome):
        return time_dependent_call("auroc", data_or_formula, data, outcome, score, by, time=time, event=event,
                                   horizon=horizon, estimator=estimator, ties=DEFAULT_TIES, weights=weights,
                                   cluster=cluster, censoring_strata=censoring_strata, missing=missing,
                                   direction=direction, refused=dict(
                                       positive=positive, negative=negative, specificity=specificity,
                                       sensitivity=sensitivity, imputation=imputation, multiclass=multiclass,
                                       average=average))
    _refuse_survival_options(horizon=horizon, censoring_strata=censoring_strata)
    if multiclass is not None:
        refuse_binary_arguments(positive=positive, negative=negative, specificity=specificity,
                                sensitivity=sensitivity, imputation=imputation, direction=direction)
        return multiclass_areas("auroc", data_or_formula, data, outcome, score, by, multiclass=multiclass,
                                average=average, estimator=estimator, ties=DEFAULT_TIES, weights=weights,
                                cluster=cluster, missing=missing)
    return binary_areas("auroc", estimator, data_or_formula, data, outcome, score, by, positive=positive,
                     missing=missing,
                     partial={"specificity": specificity, "sensitivity": sensitivity, "standardized": standardized},
                     negative=negative, direction=direction, unused_levels=unused_levels, weights=weights,
                     cluster=cluster, imputation=imputation)
