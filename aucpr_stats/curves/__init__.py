"""Empirical PR and ROC curves per group, evaluated on a grid, with confidence bands.

:func:`pr_curve` and :func:`roc_curve` take the same arguments as
:func:`aucpr_stats.aucpr` and return typed results that keep the tie tables
(:mod:`.results`): ``.to_frame()`` lists the empirical points,
``.evaluate(grid, method=)`` reads the curve at chosen recalls (false positive
rates for ROC; :mod:`.points` has the exact conventions), and
:meth:`PrCurveResult.band` builds the Clémençon & Vayatis (2009) confidence
bands (:mod:`.bands`, with the non-random pieces in :mod:`.smoothing`);
:meth:`RocCurveResult.band` and :meth:`RocCurveResult.intervals` the ROC
curve's bootstrap band and pointwise intervals (:mod:`.roc_band`).
"""

from __future__ import annotations

from typing import Any, Sequence

from .._validate import integer_iv, probability_iv
from ..exceptions import InputError
from ..estimators.prevalence import at_prevalence
from ..estimators.tie_blocks import DEFAULT_TIES, ties_iv
from ..front_door import open_data
from .bands import BAND_METHODS, BandResult
from .points import CURVE_METHODS, pr_step, roc_step
from .results import PrCurveResult, RocCurveResult
from .roc_band import RocBandResult, roc_band, roc_intervals

__all__ = ["pr_curve", "roc_curve", "PrCurveResult", "RocCurveResult", "BandResult", "RocBandResult", "roc_band",
           "roc_intervals", "BAND_METHODS",
           "CURVE_METHODS", "pr_step", "roc_step"]


#: The largest ``grid=`` of a curve (at most ``8 grid + 1`` points per group are kept).
MAX_GRID = 10**6


def _curve(cls, function, data_or_formula, data, outcome, score, by, positive, missing, ties=DEFAULT_TIES,
           negative=None, unused_levels="keep", weights=None, prevalence=None, cluster=None, grid=None,
           direction="higher"):
    ties = ties_iv(ties)
    if prevalence is not None:
        prevalence = probability_iv(prevalence, "prevalence")
    if grid is not None:
        grid = integer_iv(grid, "grid", 1)
        if grid > MAX_GRID:
            raise InputError(f"`grid` must be at most {MAX_GRID:,} (a curve of every point: grid=None); got {grid:,}")
        if cluster is not None:
            raise InputError("`grid=` and `cluster=` cannot be combined: the cluster ids serve the ROC band and "
                             "intervals, which need the curve's every point (make the curve without `grid=`)")
    request, ingested = open_data(function, data_or_formula, data, outcome, score, by, positive=positive,
                                  missing=missing, negative=negative, direction=direction,
                                  unused_levels=unused_levels, weights=weights, cluster=cluster,
                                  prevalence=prevalence, ties=ties, grid=grid, stacklevel=3)
    # weighted counts (weights=) or negatives reweighted to the stated prevalence: the curve is read off them
    table = ingested.ties if prevalence is None else at_prevalence(ingested.ties, prevalence)
    return cls(ties=table, keys=ingested.keys, by=ingested.key_columns, notes=ingested.notes,
               frame_kind=ingested.kind, outcome=ingested.spec.outcome, score=ingested.spec.score, request=request,
               directions=ingested.directions, clusters=ingested.clusters)


def pr_curve(data_or_formula: Any = None, /, outcome: str | None = None, score: str | Sequence[str] | None = None,
             by: str | Sequence[str] | None = None, *, data: Any = None, positive: Any = None,
             missing: str = "error", ties: str = DEFAULT_TIES, negative: Any = None, direction: str = "higher",
             unused_levels: str = "keep", weights: str | None = None,
             prevalence: float | None = None, cluster: str | None = None, grid: int | None = None) -> PrCurveResult:
    """Empirical precision-recall curve, per group.

    Same column interface as :func:`aucpr_stats.aucpr`: ``pr_curve(df, "y", "s", by="site")``
    or a formula ``pr_curve("y ~ s | site", data=df)``.

    Parameters
    ----------
    data_or_formula : pandas.DataFrame, polars.DataFrame, polars.LazyFrame or str
        The data (one row per case), or a formula (then pass ``data=``).
    outcome : str
        Binary outcome column.
    score : str or list of str
        Numeric score column (larger = more positive); several columns give one
        curve per score, keyed by a ``score`` column.
    by : str or list of str, optional
        Grouping columns; one curve per combination of their values.
    data : frame, optional
        The data, when the first argument is a formula.
    positive : scalar, optional
        The positive level of ``outcome`` (required unless boolean or 0/1).
    missing : {"error", "drop"}
        What to do with rows with a missing outcome or score.
    negative : scalar or list, optional
        The negative level(s) of an outcome with more than two levels, as in
        :func:`aucpr_stats.aucpr`.
    direction : {"higher", "lower", "auto"}
        Which way the scores point, exactly as in :func:`aucpr_stats.aucpr`:
        ``"higher"`` (default) larger scores predict the positive class,
        ``"lower"`` smaller ones do (the curve of the negated score; the
        ``threshold`` column stays on the caller's scale, a case called
        positive when its score is ``<= threshold``), ``"auto"`` pROC's rule,
        reported in a ``DirectionWarning``. The direction read is in
        ``result.direction``.
    unused_levels : {"keep", "drop"}
        Declared levels of the grouping columns without rows: a NaN curve
        with a note (default), or dropped; as in :func:`aucpr_stats.aucpr`.
    weights : str, optional
        A column of case weights: the curve of the weighted counts (as
        scikit-learn's ``sample_weight``), see :func:`aucpr_stats.aucpr`.
    prevalence : float in (0, 1), optional
        The curve at a stated population prevalence: each group's negatives
        reweighted so that positives make up ``prevalence`` of the weight
        (recall unchanged, precision at the population's prevalence).
        Bands are not available for weighted or reweighted curves.
    cluster : str, optional
        A cluster id column (several rows per patient). The curve does not
        change; PR bands are refused (their resampling assumes independent
        rows), ROC bands and intervals resample whole clusters.
    ties : {"interpolate", "published"}
        How the curve crosses a tie block holding both classes, as in
        :func:`aucpr_stats.aucpr`: ``"interpolate"`` (default) along the
        Davis-Goadrich interpolation, starting at a mixed top block's
        precision, in ``.evaluate()`` and ``.band()``; ``"published"``: Eq. (3)
        of Clémençon & Vayatis and the start point (0, 1) as written.
    grid : int, optional
        Keep only the points where recall or the false positive rate
        crosses a multiple of ``1/grid``, and the point just before each
        (:meth:`TieTable.thinned <aucpr_stats.ties.TieTable.thinned>`): at
        most ``8 grid + 1`` points per group, each a point of the full
        curve, and ``.evaluate()`` at recalls ``m / grid`` equal to the full
        curve's (both methods). Between those recalls the curve is that of
        the thresholds kept. For plots and tables of curves of many rows; on
        DuckDB and Spark the engine thins the curve before anything is
        collected (docs/backends.md). Bands need every point and are refused.

    Returns
    -------
    PrCurveResult
        ``.to_frame()`` (points), ``.evaluate(recall, method="step"|"interpolated")``,
        ``.band(...)``, ``.plot()``.

    Raises
    ------
    ColumnNotFoundError, InputTypeError, MissingValueError, OutcomeError, InputError
        As :func:`aucpr_stats.aucpr`.

    Warns
    -----
    DegenerateGroupWarning
        Groups without both classes (their curve is NaN).

    References
    ----------
    Clémençon, S., Vayatis, N. (2009). Nonparametric estimation of the
    precision-recall curve. ICML, section 2.3.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats import pr_curve
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 1], "s": [0.9, 0.8, 0.7, 0.2, 0.1]})
    >>> curve = pr_curve(df, "y", "s")
    >>> curve.to_frame()["precision"].round(3).to_list()
    [1.0, 1.0, 0.5, 0.667, 0.5, 0.6]
    >>> curve.evaluate([0.5], method="step")["precision"].round(3).to_list()  # 1.5 / (1.5 + 2 * 1/2)
    [0.6]
    """
    return _curve(PrCurveResult, "pr_curve", data_or_formula, data, outcome, score, by, positive, missing, ties,
                  negative, unused_levels, weights, prevalence, cluster, grid, direction)



def roc_curve(data_or_formula: Any = None, /, outcome: str | None = None, score: str | Sequence[str] | None = None,
              by: str | Sequence[str] | None = None, *, data: Any = None, positive: Any = None,
              missing: str = "error", negative: Any = None, direction: str = "higher", unused_levels: str = "keep",
              weights: str | None = None, cluster: str | None = None, grid: int | None = None) -> RocCurveResult:
    """Empirical ROC curve, per group; the arguments of :func:`pr_curve` (no ``prevalence``: ROC does not depend on it).

    ``direction="lower"`` gives the curve of the negated score (the
    ``threshold`` column stays on the caller's scale); ``"auto"`` chooses it
    by pROC's rule, as :func:`aucpr_stats.auroc` does.

    With ``grid=``, ``.evaluate()`` at false positive rates ``m / grid``
    equals the full curve's (the band and intervals are refused).

    Returns
    -------
    RocCurveResult
        ``.to_frame()`` (threshold, tp, fp, fpr, tpr), ``.evaluate(fpr, method=)``, ``.plot()``,
        ``.band()`` (simultaneous bootstrap band), ``.intervals(specificity=)`` (pROC's ``ci.se``/``ci.sp``).

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats import roc_curve
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 1], "s": [0.9, 0.8, 0.7, 0.2, 0.1]})
    >>> roc_curve(df, "y", "s").to_frame()["tpr"].round(3).to_list()
    [0.0, 0.333, 0.333, 0.667, 0.667, 1.0]
    """
    return _curve(RocCurveResult, "roc_curve", data_or_formula, data, outcome, score, by, positive, missing,
                  negative=negative, unused_levels=unused_levels, weights=weights, cluster=cluster, grid=grid,
                  direction=direction)
