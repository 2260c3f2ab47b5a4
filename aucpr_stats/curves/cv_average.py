"""ROC and PR curves averaged over cross-validation folds (vertical averaging, as precrec does).

Each fold's curve is read at a common grid of x values (the false positive
rate for ROC, recall for PR), and at every x the fold values give a mean, a
between-fold standard error and a pointwise band; each fold's area is
estimated by the package's estimators, and the fold areas give a mean, a
standard deviation and a t interval. This is the averaging of several data
sets ("dsids") of precrec (Saito & Rehmsmeier 2015, 2017), on the caller's
own fold column read through the front door.

The curve of one fold at a grid value
--------------------------------------
The grid holds ``x_j = j / B`` for ``j = 0, ..., B`` (``B = grid - 1``; precrec's
``x_bins``). Between two consecutive empirical points both curves are
straight lines in ROC space (Fawcett 2006 for ROC; Davis & Goadrich 2006,
Theorem 1, for PR: the true and false positives grow linearly between the
points, so precision follows :func:`~aucpr_stats.estimators.pr_points.dg_interpolate`,
never a straight line in PR space, and a tie block holding both classes is
crossed along that line). Where the curve jumps at ``x_j`` (a vertical run of
the ROC curve; a drop of precision at a fixed recall) the value read is the
curve's right limit, the end of the jump; at ``x = 1`` the last point. As
precrec does, each end of the grid has two rows: at ``x = 0`` first the
start of the curve (ROC: true positive rate 0; PR: the same right limit,
precrec's precision at recall 0 being that of the first threshold), then
the right limit; at ``x = 1`` first the first point reaching it (ROC: the
lowest true positive rate at false positive rate 1; PR: the highest
precision at full recall), then the last point (1; the prevalence).

Grid values are compared with the points in whole numbers: the point
``(tp, fp)`` lies at or left of ``x_j`` when ``count * B <= j * total``, so a
point exactly on the grid is found whatever the rounding of ``j / B``
(precrec compares within ``1e-8``). Every fold of every group is read in one
numpy pass over the fold tie tables (one CSR segment per (group, fold)).

The band
--------
At each grid value the ``k`` fold values give the mean, the sample standard
deviation ``s`` and ``se = s / sqrt(k)``; precrec's band is
``mean ± z se`` with ``z`` the normal quantile, not clipped to [0, 1].
The areas use ``mean ± t_{k-1} se`` (precrec's ``auc_ci(dtype="t")``, which
clips to [0, 1]; these bounds are not clipped).

References
----------
Saito, T., Rehmsmeier, M. (2015). The precision-recall plot is more
informative than the ROC plot when evaluating binary classifiers on
imbalanced datasets. PLoS ONE 10(3), e0118432.
Saito, T., Rehmsmeier, M. (2017). Precrec: fast and accurate
precision-recall and ROC curve calculations in R. Bioinformatics 33(1),
145-147 (the averaged curves with confidence bands).
Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition
Letters 27, 861-874, section 10 (vertical averaging).
Davis, J., Goadrich, M. (2006). The relationship between precision-recall
and ROC curves. ICML, Theorem 1.
Bengio, Y., Grandvalet, Y. (2004). No unbiased estimator of the variance of
K-fold cross-validation. JMLR 5, 1089-1105.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from .. import _validate
from ..estimators import ESTIMATORS
from ..estimators.engine import evaluate
from ..estimators.pr_points import pr_point_counts
from ..estimators.registry import DEFAULT_ESTIMATOR, records
from ..estimators.tie_blocks import DEFAULT_TIES
from ..exceptions import DegenerateGroupWarning, InputError
from ..front_door import open_data
from ..resample import check_allocation
from ..ties import TieTable
from .cv_average_result import CvCurvesResult

__all__ = ["cv_curves", "CvCurvesResult", "fold_curve_values", "grid_values", "CV_CURVES", "MAX_CV_GRID"]

#: The curves :func:`cv_curves` averages, and the area each one estimates.
CV_CURVES = {"roc": "auroc", "pr": "aucpr"}
#: The largest ``grid=`` (distinct x values) of :func:`cv_curves`.
MAX_CV_GRID = 10**6


def grid_values(bins: int) -> np.ndarray:
    """The x values of the averaged curve: ``0, 0, 1/B, ..., (B-1)/B, 1, 1`` (``B + 3`` values; see the module)."""
    x = np.empty(bins + 3)
    x[:2] = 0.0
    x[2:bins + 1] = np.arange(1, bins) / bins
    x[bins + 1:] = 1.0
    return x


def _last_at_or_left(count: np.ndarray, total: np.ndarray, seg: np.ndarray, offsets: np.ndarray,
                     bins: int) -> np.ndarray:
    """Per segment and ``j = 0..B``: the index of the last point with ``count * B <= j * total``, shape (n_seg, B+1).

    A point's first grid index is ``ceil(count B / total)``; counting the
    points of each segment per first index and summing along the grid gives
    how many lie at or left of each ``x_j``, in whole numbers (no rounding).
    """
    n_seg = offsets.size - 1
    safe = np.maximum(total, 1)
    first = -((-count * bins) // safe)  # ceil(count * B / total), in integers
    first = np.minimum(first, bins)
    hist = np.bincount(seg * (bins + 1) + first, minlength=n_seg * (bins + 1)).reshape(n_seg, bins + 1)
    return offsets[:-1, None] + np.cumsum(hist, axis=1) - 1


def _first_reaching(count: np.ndarray, total: np.ndarray, seg: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per segment, the index of its first point with ``count == total`` (x = 1 reached)."""
    below = np.bincount(seg, weights=(count < total).astype(np.float64), minlength=offsets.size - 1)
    return offsets[:-1] + below.astype(np.int64)


def fold_curve_values(ties: TieTable, curve: str, bins: int) -> np.ndarray:
    """Every segment's curve at the grid :func:`grid_values` (``bins`` = B), shape (n_segments, B + 3).

    ROC: the true positive rate; PR: the precision, linear in the counts
    between points (Davis-Goadrich). NaN for segments without both classes.
    One pass over all segments; see the module docstring for the rows at
    ``x = 0`` and ``x = 1`` and the right limits at jumps.

    Parameters
    ----------
    ties : TieTable
        One segment per (group, fold).
    curve : {"roc", "pr"}
    bins : int
        ``B >= 1``: the grid is ``j / B``.

    Examples
    --------
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 0, 1], neg=[0, 1, 1], offsets=[0, 3])
    >>> fold_curve_values(t, "roc", 2).tolist()   # x = 0, 0, 0.5, 1, 1; points (0, 0), (0, .5), (.5, .5), (1, 1)
    [[0.0, 0.5, 0.5, 1.0, 1.0]]
    """
    tp, fp, offsets = pr_point_counts(ties)
    tp, fp = tp.astype(np.int64), fp.astype(np.int64)
    lengths = np.diff(offsets)
    n_seg = lengths.size
    seg = np.repeat(np.arange(n_seg), lengths)
    n_pos, n_neg = ties.n_pos.astype(np.int64), ties.n_neg.astype(np.int64)
    usable = ties.has_both_classes()
    out = np.full((n_seg, bins + 3), np.nan)
    if not usable.any():
        return out
    j = np.arange(bins + 1, dtype=np.int64)[None, :]
    last = offsets[1:, None] - 1
    if curve == "roc":
        lo = _last_at_or_left(fp, n_neg[seg], seg, offsets, bins)
        hi = np.minimum(lo + 1, last)
        run = (fp[hi] - fp[lo]) * bins
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.where(run > 0, (j * n_neg[:, None] - fp[lo] * bins) / run, 0.0)
            values = (tp[lo] + t * (tp[hi] - tp[lo])) / n_pos[:, None]
            start = np.zeros(n_seg)
            reaching = tp[_first_reaching(fp, n_neg[seg], seg, offsets)] / n_pos
    else:
        lo = _last_at_or_left(tp, n_pos[seg], seg, offsets, bins)
        hi = np.minimum(lo + 1, last)
        gained = tp[hi] - tp[lo]
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.where(gained > 0, (j * n_pos[:, None] - tp[lo] * bins) / (gained * bins), 0.0)
            false_pos = fp[lo] + t * (fp[hi] - fp[lo])
            target = j * n_pos[:, None] / bins
            values = target / (target + false_pos)
            # recall 0: the right limit, the precision of the first piece (0 once negatives were admitted)
            limit = np.where(fp[lo[:, 0]] > 0, 0.0, gained[:, 0] / (gained[:, 0] + fp[hi[:, 0]] - fp[lo[:, 0]]))
            values[:, 0] = limit
            start = limit
            first = _first_reaching(tp, n_pos[seg], seg, offsets)
            reaching = tp[first] / (tp[first] + fp[first])
    out[:, 0] = start
    out[:, 1:bins + 1] = values[:, :bins]
    out[:, bins + 1] = reaching
    out[:, bins + 2] = values[:, bins]
    out[~usable] = np.nan
    return out


def _fold_notes(fold_ties: TieTable, group: np.ndarray, n_groups: int, notes: tuple) -> tuple:
    """Per group, why its averaged curve and area summary are NaN (its own note, or folds lacking a class)."""
    lacking = np.bincount(group, weights=(~fold_ties.has_both_classes()).astype(np.float64), minlength=n_groups)
    total = np.bincount(group, minlength=n_groups)
    out = []
    for g in range(n_groups):  # one entry per group (not per row)
        if notes and notes[g] is not None:
            out.append(notes[g])
        elif total[g] == 0:
            out.append("no rows")
        elif lacking[g] > 0:
            out.append(f"{int(lacking[g])} of {int(total[g])} folds lack a class: no average over the folds "
                       f"(use fewer folds than positives and negatives)")
        else:
            out.append(None)
    return tuple(out)


def _check_folds(group: np.ndarray, n_groups: int, fold: str) -> None:
    total = np.bincount(group, minlength=n_groups)
    single = np.flatnonzero(total == 1)
    if single.size:
        where = "the data have" if n_groups == 1 else f"{single.size} of {n_groups} groups have"
        raise InputError(f"`fold` column {fold!r}: averaging over folds needs at least two folds per group; "
                         f"{where} only one fold")


def cv_curves(data_or_formula: Any = None, /, outcome: str | None = None, score: str | Sequence[str] | None = None,
              fold: str | None = None, by: str | Sequence[str] | None = None, *, data: Any = None,
              curve: str = "roc", grid: int = 101, level: float = 0.95, estimator: Any = None,
              positive: Any = None, negative: Any = None, missing: str = "error",
              direction: str = "higher") -> CvCurvesResult:
    """ROC or PR curves and their areas averaged over the caller's cross-validation folds (precrec's averaging).

    Each fold's curve is read at the grid ``x = j / (grid - 1)`` (the false
    positive rate for ROC, recall for PR; straight lines in ROC space
    between the empirical points, so PR follows the Davis-Goadrich
    interpolation; a jump read at its end), and the fold values give at
    every x the mean, ``se = sd / sqrt(k)`` and the band ``mean ± z se``
    (``z`` the normal quantile of ``level``), as precrec's ``evalmod`` with
    several data sets. Each fold's area is estimated by the package's
    ``estimator``; the ``k`` fold areas give their mean, standard deviation
    and the interval ``mean ± t_{k-1} sd / sqrt(k)``.

    The folds are not independent samples: they share training data, and
    no unbiased estimator of the variance of a k-fold mean exists (Bengio
    & Grandvalet 2004). The band and the t interval describe the spread
    between folds; they are not confidence intervals for the performance
    of the model fitted on all the data, and they tend to be too narrow.

    Parameters
    ----------
    data_or_formula : frame or str
        The data (one row per case, each scored by the model that did not
        see it: out-of-fold predictions), or a formula ``"y ~ s | site"``
        (then pass ``data=``).
    outcome, score, by
        As in :func:`aucpr_stats.aucpr`; several scores give one averaged
        curve per score (a ``score`` key column).
    fold : str
        The column naming each row's fold; at least two folds per group. For
        repeated splits (repeated k-fold, Monte Carlo cross-validation) stack
        the test rows of every split and name each split in this column
        (``"r2-f3"``): every split is then one curve of the average.
    data : frame, optional
        The data, when the first argument is a formula.
    curve : {"roc", "pr"}
        The curve averaged; its area is AUROC or AUCPR.
    grid : int
        The number of distinct x values, ``grid - 1`` intervals (precrec's
        ``x_bins + 1``); the frame has ``grid + 2`` rows per group, the ends
        doubled as precrec's (see :mod:`aucpr_stats.curves.cv_average`).
    level : float
        Of the pointwise band and of the areas' interval.
    estimator : str, list of str or "all", optional
        The area estimator(s) applied to each fold: those of
        :func:`aucpr_stats.auroc` (``curve="roc"``, default ``"a_prime"``) or
        :func:`aucpr_stats.aucpr` (``curve="pr"``, default ``"average_precision"``).
    positive, negative, missing, direction
        As in :func:`aucpr_stats.aucpr`.

    Returns
    -------
    CvCurvesResult
        ``.to_frame()`` the averaged curve (keys, ``x``, ``mean``, ``se``,
        ``lower``, ``upper``, ``level``, ``n_folds``, ``note``); ``.folds``
        each fold's curve at the grid; ``.areas()`` each fold's area and
        their summary; ``.summary()``; ``.plot()``.

    Raises
    ------
    InputError
        ``fold`` not given, a group with one fold only, a bad ``curve``,
        ``grid`` or ``level``; and the errors of :func:`aucpr_stats.aucpr`.

    Warns
    -----
    DegenerateGroupWarning
        Folds without both classes: their curve and area are NaN, and so is
        their group's average (a note says why).

    References
    ----------
    Saito, T., Rehmsmeier, M. (2017). Precrec: fast and accurate
    precision-recall and ROC curve calculations in R. Bioinformatics 33(1).
    Fawcett, T. (2006). An introduction to ROC analysis, section 10.
    Bengio, Y., Grandvalet, Y. (2004). No unbiased estimator of the variance
    of K-fold cross-validation. JMLR 5, 1089-1105.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats.curves.cv_average import cv_curves
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 1, 0, 0, 1], "s": [0.9, 0.8, 0.7, 0.1, 0.6, 0.5, 0.4, 0.3],
    ...                    "f": [1, 1, 1, 1, 2, 2, 2, 2]})
    >>> result = cv_curves(df, "y", "s", "f", grid=3)
    >>> result.to_frame()["mean"].to_list()   # x = 0, 0, 0.5, 1, 1: fold 1 reads 0, .5, 1, 1, 1; fold 2 0, .5, .5, .5, 1
    [0.0, 0.5, 0.75, 0.75, 1.0]
    >>> result.areas().filter(pl.col("statistic") == "mean")["estimate"].to_list()
    [0.625]
    """
    kind = _validate.choice_iv(curve, "curve", tuple(CV_CURVES))
    metric = CV_CURVES[kind]
    grid = _validate.integer_iv(grid, "grid", 2, MAX_CV_GRID)
    level = _validate.level_iv(level)
    names = _validate.names_or_all_iv(DEFAULT_ESTIMATOR[metric] if estimator is None else estimator, "estimator",
                                      list(ESTIMATORS[metric]))
    chosen = records(metric, names, DEFAULT_TIES)
    if fold is None:
        raise InputError("`fold` is required: the column naming each row's cross-validation fold "
                         "(cv_curves(data, outcome, score, fold='fold'))")
    _, ingested = open_data("cv_curves", data_or_formula, data, outcome, score, by, positive=positive,
                            missing=missing, negative=negative, direction=direction, fold=fold, stacklevel=2)
    folds = ingested.folds
    n_groups = ingested.keys.height
    _check_folds(folds.group, n_groups, folds.column)
    check_allocation(folds.ties.n_segments * (grid + 2) * 3, f"cv_curves with grid={grid:,}",
                     "use a smaller `grid` (101 is usual)")
    values = fold_curve_values(folds.ties, kind, grid - 1)
    areas = evaluate(folds.ties, chosen)
    notes = _fold_notes(folds.ties, folds.group, n_groups, ingested.notes)
    lacking = [n for n, own in zip(notes, ingested.notes or (None,) * n_groups) if n is not None and own is None]
    if lacking:
        warnings.warn(f"{len(lacking)} group(s) have folds without both classes; their averages are NaN: "
                      f"{lacking[0]}", DegenerateGroupWarning, stacklevel=2)
    return CvCurvesResult(ties=ingested.ties, keys=ingested.keys, by=ingested.key_columns, notes=notes,
                          frame_kind=ingested.kind, outcome=ingested.spec.outcome, score=ingested.spec.score,
                          curve=kind, x=grid_values(grid - 1), fold_tables=folds, fold_values=values,
                          fold_areas=areas, estimators=tuple(record.name for record in chosen), level=level,
                          directions=ingested.directions)
