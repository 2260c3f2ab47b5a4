"""Public entry points that take a data frame and column names."""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from . import _engine, _validate
from ._ingest import ingest
from .estimators import DEFAULT_PR_ESTIMATOR, PR_ESTIMATORS
from .exceptions import InputError, InputTypeError
from .formula import resolve
from .estimators.roc import DEFAULT_ROC_ESTIMATOR, ROC_ESTIMATORS
from .results import AucprResult, AurocResult, EstimateResult

__all__ = ["aucpr", "auroc"]


def estimators_iv(estimator: Any, registry: dict, argument: str = "estimator") -> tuple[str, ...]:
    """Normalise ``estimator`` (a name, a list of names, or ``"all"``) to a tuple of names."""
    choices = list(registry)
    if isinstance(estimator, str):
        if estimator == "all":
            return tuple(choices)
        names: Sequence[Any] = [estimator]
    elif isinstance(estimator, (list, tuple)):
        names = estimator
        if not names:
            raise InputError(f"`{argument}` must name at least one estimator; got an empty list")
    else:
        raise InputTypeError(
            f"`{argument}` must be a name, a list of names or 'all'; got {type(estimator).__name__}"
        )
    for name in names:
        if name not in registry:
            raise InputError(f"`{argument}` must be one of {choices} or 'all'; got {name!r}")
    return tuple(dict.fromkeys(names))


def _estimate(result_class, registry: dict, names: tuple[str, ...], data: Any, spec) -> EstimateResult:
    """Ingest, run the estimators over every group at once, and assemble the result.

    Written once for every metric: degenerate groups get NaN, a note and one
    warning (raised at the caller of the public function).
    """
    ingested = ingest(data, spec)
    ties = ingested.ties
    estimates = _engine.evaluate(ties, registry, names)
    notes = _engine.group_notes(ties.n_pos, ties.n_neg)
    _engine.warn_degenerate(ingested.keys, ingested.key_columns, notes, stacklevel=4)
    return result_class(
        ties=ties,
        keys=ingested.keys,
        by=ingested.key_columns,
        estimators=names,
        estimates=estimates,
        notes=tuple(notes),
        frame_kind=ingested.kind,
        outcome=spec.outcome,
        score=spec.score,
        options={"positive": spec.positive, "missing": spec.missing},
    )


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
) -> AucprResult:
    """Area under the precision-recall curve, per group.

    Parameters
    ----------
    data_or_formula : pandas.DataFrame, polars.DataFrame, polars.LazyFrame or str
        The data (one row per case), or an R-style formula
        ``"outcome ~ score1 + score2 | group1 + group2"`` with the data in
        ``data=`` (see :mod:`aucpr_stats.formula`).
    outcome : str
        Binary outcome column: boolean, 0/1, or any column with ``positive=``
        naming the positive level (all other levels are negative).
    score : str or list of str
        Numeric score column; larger values predict the positive class.
        Several columns give one estimate per score, identified by a
        ``score`` key column after the ``by`` keys.
    by : str or list of str, optional
        Grouping columns; one estimate per combination of their values.
    data : frame, optional
        The data, when the first argument is a formula (or as a keyword).
    estimator : str, list of str or "all"
        AUCPR estimator(s), see :data:`aucpr_stats.estimators.PR_ESTIMATORS`.
    positive : scalar, optional
        The positive level of ``outcome``. Required unless ``outcome`` is
        boolean or 0/1.
    missing : {"error", "drop"}
        Rows with a null or NaN outcome or score raise an error (default), or
        are dropped and counted per group in the ``n_missing`` column.
    fold : str, optional
        A fold column (e.g. the fold of each out-of-fold prediction of the
        caller's cross-validation). The result then also keeps a tie table per
        group and fold, for ``.conf_int(method="cross_validation")`` over
        these folds. The estimates do not depend on it.

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
    data, outcome, score, by = resolve(data_or_formula, data, outcome, score, by, function="aucpr")
    spec = _validate.column_spec_iv(data, outcome, score, by, positive, missing)
    names = estimators_iv(estimator, PR_ESTIMATORS)
    if fold is not None:
        from .intervals.cross_validation import fold_column_iv, fold_tables

        fold = fold_column_iv(data, fold, spec)
    result = _estimate(AucprResult, PR_ESTIMATORS, names, data, spec)
    if fold is None:
        return result
    # per-fold tie tables, for cross-validation intervals over the caller's folds (issue 4)
    folds = fold_tables(data, spec, fold, result.keys, result.by)
    return attrs.evolve(result, options={**result.options, "fold": fold}, folds=folds)


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
        Binary outcome column: boolean, 0/1, or any column with ``positive=``
        naming the positive level (all other levels are negative).
    score : str or list of str
        Numeric score column; larger values predict the positive class.
        Several columns give one estimate per score, identified by a
        ``score`` key column after the ``by`` keys.
    by : str or list of str, optional
        Grouping columns; one estimate per combination of their values.
    data : frame, optional
        The data, when the first argument is a formula (or as a keyword).
    estimator : str, list of str or "all"
        ROC AUC estimator(s), see
        :data:`aucpr_stats.estimators.roc.ROC_ESTIMATORS` (``"a_prime"``).
    positive : scalar, optional
        The positive level of ``outcome``. Required unless ``outcome`` is
        boolean or 0/1.
    missing : {"error", "drop"}
        Rows with a null or NaN outcome or score raise an error (default), or
        are dropped and counted per group in the ``n_missing`` column.

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
    data, outcome, score, by = resolve(data_or_formula, data, outcome, score, by, function="auroc")
    spec = _validate.column_spec_iv(data, outcome, score, by, positive, missing)
    names = estimators_iv(estimator, ROC_ESTIMATORS)
    return _estimate(AurocResult, ROC_ESTIMATORS, names, data, spec)
