r"""Empirical PR and ROC curves per group, evaluated on a grid, with confidence bands.

:func:`pr_curve` and :func:`roc_curve` take the same arguments as
:func:`aucpr_stats.aucpr` and return typed results that keep the tie tables:
``.to_frame()`` lists the empirical points, ``.evaluate(grid, method=)`` reads
the curve at chosen recalls (false positive rates for ROC), and
:meth:`PrCurveResult.band` builds the Clémençon & Vayatis (2009) confidence
bands of :mod:`aucpr_stats.bands`.

Points
    The points of :func:`aucpr_stats.estimators._pr_points.pr_points`, shared
    with every AUCPR estimator: a start point (nothing admitted: recall 0,
    precision 1, threshold ``+inf``), then one point per distinct score from
    the highest down, admitting all rows with ``score >= threshold`` (ties
    never split).

Step evaluation (Clémençon & Vayatis 2009, section 2.3, Eq. 3)
    .. math:: \widehat{PR}(\beta) = \frac{n_+\beta}{n_+\beta + n_-\hat\alpha(\beta)},
              \qquad \hat\alpha(\beta) = 1 - \hat H\big(\hat G^{-1}(1-\beta)\big),

    with :math:`\hat G^{-1}(u) = \inf\{x : \hat G(x) \ge u\}`. The quantile
    :math:`t = \hat G^{-1}(1-\beta)` is the :math:`j`-th highest positive score,
    :math:`j = \lfloor n_+\beta\rfloor + 1`, and :math:`\hat\alpha(\beta)` is the
    fraction of negatives scored **strictly above** :math:`t` (the cdf
    :math:`\hat H` counts ties as below). So on
    :math:`[(j-1)/n_+,\ j/n_+)` the false positive rate is constant, equal to
    that of the negatives ranked above the :math:`j`-th positive (negatives
    tied with it are not counted): the curve is right-continuous (càd-làg),
    taking at each jump the value of the step that starts there. At
    :math:`\beta = 1`, :math:`t = -\infty` and the precision is :math:`n_+/n`;
    at :math:`\beta = 0` the formula's right limit (1 if no negative is
    above the top positive, else 0). Note that the numerator uses
    :math:`n_+\beta`, not the positives actually above :math:`t`. Eq. (3)
    is written for continuous scores: with ties across classes it does not
    count negatives tied with the threshold, so it is optimistic on heavily
    tied scores, where ``"interpolated"`` (ties admitted together) is the
    better reading.

Interpolated evaluation (Davis & Goadrich 2006; Boyd et al. 2013, Theorem 1)
    Between the last point with recall below :math:`\beta` and the first point
    with recall :math:`\ge \beta`, the straight ROC segment seen in PR space
    (:func:`~aucpr_stats.estimators._pr_points.dg_interpolate`). At a recall
    reached by several points (a vertical drop caused by negatives) the
    value is that of the first, highest, point. Recall 0 gives 1.

ROC
    :func:`roc_curve` has the same shape: points (threshold, tp, fp, fpr, tpr)
    and ``.evaluate(fpr_grid, method=)`` with ``"step"`` the same convention
    applied to the ROC curve of Remark 1,
    :math:`\widehat{ROC}(\alpha) = 1 - \hat G(\hat H^{-1}(1-\alpha))` (fraction of
    positives strictly above the :math:`(\lfloor n_-\alpha\rfloor+1)`-th highest
    negative), and ``"interpolated"`` the straight line between ROC points
    (at a false positive rate reached by several points, the highest).
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import attrs
import numpy as np
import polars as pl

from . import _engine, _frames, _validate
from ._ingest import ingest
from ._ties import TieTable
from .bands import BandResult, band_iv, pr_band, step_quantile_rank
from .estimators._pr_points import dg_interpolate, pr_point_counts
from .exceptions import InputError, InputTypeError
from .results import GroupCounts
from .formula import resolve

__all__ = ["pr_curve", "roc_curve", "PrCurveResult", "RocCurveResult", "pr_step", "roc_step"]

CURVE_METHODS = ("step", "interpolated")


# ------------------------------------------------------------------ kernels
def _strict_exceedance(ties: TieTable, quantile_counts: np.ndarray, other_counts: np.ndarray,
                       rate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Threshold and exceedance rate behind the step curves, for every segment and grid value.

    The threshold is the ``j``-th highest score of the "quantile" class,
    ``j = floor(n_q * rate) + 1`` (:func:`~aucpr_stats.bands.step_quantile_rank`);
    the exceedance rate is the fraction of the other class scored strictly
    above it. ``j > n_q`` means a threshold of ``-inf`` (rate 1).

    Returns
    -------
    threshold, exceed : ndarray, shape (n_segments, n_grid)
        NaN for segments without rows of either class.
    """
    n_q = ties.segment_sum(quantile_counts)
    n_o = ties.segment_sum(other_counts)
    j = step_quantile_rank(n_q[:, None], rate[None, :])
    cum_q = np.cumsum(quantile_counts)
    cum_o = np.cumsum(other_counts)
    starts = ties.offsets[:-1]
    base_q = np.where(starts > 0, cum_q[np.maximum(starts - 1, 0)], 0)
    base_o = np.where(starts > 0, cum_o[np.maximum(starts - 1, 0)], 0)
    # first row of the segment whose running count of the quantile class reaches j
    row = np.searchsorted(cum_q, base_q[:, None] + j, side="left")
    inside = j <= n_q[:, None]
    row = np.minimum(row, max(ties.n_rows - 1, 0))
    if ties.n_rows:
        threshold = np.where(inside, ties.score[row], -np.inf)
        above = np.where(inside, cum_o[row] - other_counts[row] - base_o[:, None], n_o[:, None])
    else:
        threshold = np.full(j.shape, -np.inf)
        above = np.zeros(j.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        exceed = above / n_o[:, None]
    bad = (n_q == 0) | (n_o == 0)
    threshold = np.where(bad[:, None], np.nan, threshold)
    exceed = np.where(bad[:, None], np.nan, exceed)
    return threshold, exceed


def pr_step(ties: TieTable, recall: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The empirical PR curve of Eq. (3) at the given recalls, for every segment.

    .. math:: \widehat{PR}(\beta) = \frac{n_+\beta}{n_+\beta + n_-\hat\alpha(\beta)}

    Parameters
    ----------
    ties : TieTable
    recall : ndarray of float in [0, 1], shape (m,)

    Returns
    -------
    precision, threshold : ndarray, shape (n_segments, m)
        ``threshold`` is :math:`\hat G^{-1}(1-\beta)` (``-inf`` at recall 1).
        NaN for segments without both classes.

    References
    ----------
    Clémençon, S., Vayatis, N. (2009). Nonparametric estimation of the
    precision-recall curve. ICML, section 2.3, Eq. (3).
    """
    recall = np.asarray(recall, dtype=np.float64)
    threshold, alpha = _strict_exceedance(ties, ties.pos, ties.neg, recall)
    n_pos = ties.n_pos[:, None].astype(np.float64)
    n_neg = ties.n_neg[:, None].astype(np.float64)
    numerator = n_pos * recall[None, :]
    denominator = numerator + n_neg * alpha
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = numerator / denominator
    # recall 0: the right limit, 1 when no negative lies above the top positive
    precision = np.where((numerator == 0) & (alpha == 0), 1.0, precision)
    return precision, threshold


def roc_step(ties: TieTable, fpr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The empirical ROC curve :math:`1 - \hat G(\hat H^{-1}(1-\alpha))` (Remark 1) at the given false positive rates.

    Returns
    -------
    tpr, threshold : ndarray, shape (n_segments, m)
    """
    threshold, tpr = _strict_exceedance(ties, ties.neg, ties.pos, np.asarray(fpr, dtype=np.float64))
    return tpr, threshold


def _segment_lookup(x: np.ndarray, offsets: np.ndarray, grid: np.ndarray, side: str) -> np.ndarray:
    """Global index of ``searchsorted(x[segment], grid, side)`` for each segment, shape (n_segments, m).

    ``x`` lies in [0, 1] and is non-decreasing within each segment, so
    ``2 * segment + x`` is non-decreasing overall and one search serves all.
    """
    n_seg = offsets.size - 1
    seg = np.repeat(np.arange(n_seg), np.diff(offsets))
    key = 2.0 * seg + x
    return np.searchsorted(key, 2.0 * np.arange(n_seg)[:, None] + grid[None, :], side=side)


def _grid_iv(values: Any, argument: str) -> np.ndarray:
    try:
        grid = np.atleast_1d(np.asarray(values, dtype=np.float64))
    except (TypeError, ValueError):
        raise InputTypeError(f"`{argument}` must be an array of numbers in [0, 1]; got {values!r}") from None
    if grid.ndim != 1 or grid.size == 0:
        raise InputError(f"`{argument}` must be a non-empty 1-D array; got shape {grid.shape}")
    if np.any(~np.isfinite(grid)) or np.any((grid < 0) | (grid > 1)):
        raise InputError(f"`{argument}` values must lie in [0, 1]; got values in [{np.nanmin(grid)}, {np.nanmax(grid)}]")
    return grid


# ------------------------------------------------------------------ results
@attrs.frozen(eq=False, repr=False)
class _CurveResult(GroupCounts):
    """Common part of the PR and ROC curve results (keeps the tie tables)."""

    curve: ClassVar[str] = "curve"

    ties: TieTable
    keys: pl.DataFrame
    by: tuple[str, ...]
    notes: tuple
    frame_kind: str
    outcome: str
    score: str
    options: dict = attrs.field(factory=dict)

    def _point_counts(self):
        """(threshold, tp, fp, offsets) of every point, start point first in each segment."""
        tp, fp, offsets = pr_point_counts(self.ties)
        compact = self.ties.compact()
        threshold = np.full(tp.size, np.inf)
        is_start = np.zeros(tp.size, dtype=bool)
        is_start[offsets[:-1]] = True
        threshold[~is_start] = compact.score
        return threshold, tp, fp, offsets

    def _with_keys(self, body: pl.DataFrame, lengths: np.ndarray) -> pl.DataFrame:
        if not self.by:
            return body
        rows = np.repeat(np.arange(self.n_groups), lengths)
        return pl.concat([self.keys.select(self.by)[rows.tolist()], body], how="horizontal")

    def _method_iv(self, method: Any) -> str:
        return _validate.choice_iv(method, "method", CURVE_METHODS)

    def __repr__(self) -> str:
        name = type(self).__name__
        return (f"{name}(by={list(self.by)}, groups={self.n_groups}, "
                f"n_pos={int(self.n_pos.sum())}, n_neg={int(self.n_neg.sum())})")


@attrs.frozen(eq=False, repr=False)
class PrCurveResult(_CurveResult):
    """Empirical precision-recall curves, one per group.

    Returned by :func:`pr_curve`. ``.to_frame()`` lists the points,
    ``.evaluate(recall, method=)`` reads the curve on a recall grid,
    ``.band(...)`` builds a confidence band, ``.plot()`` draws it.
    """

    curve: ClassVar[str] = "pr"

    def to_frame(self):
        """The empirical PR points per group, in the caller's frame type.

        Columns: group keys, ``threshold`` (rows with ``score >= threshold``
        are called positive; ``inf`` for the start point), ``tp``, ``fp``,
        ``recall`` (``tp / n_pos``) and ``precision`` (``tp / (tp + fp)``,
        1 at the start point). The points are those of every AUCPR estimator.
        """
        threshold, tp, fp, offsets = self._point_counts()
        n_pos = np.repeat(self.n_pos, np.diff(offsets))
        admitted = tp + fp
        with np.errstate(invalid="ignore", divide="ignore"):
            recall = np.where(n_pos > 0, tp / np.maximum(n_pos, 1), np.nan)
        precision = np.divide(tp, admitted, out=np.ones(tp.size), where=admitted > 0)
        body = pl.DataFrame({"threshold": threshold, "tp": tp, "fp": fp, "recall": recall, "precision": precision})
        return _frames.to_caller(self._with_keys(body, np.diff(offsets)), self.frame_kind)

    def _evaluate_arrays(self, recall: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray | None]:
        if method == "step":
            return pr_step(self.ties, recall)
        tp, fp, offsets = pr_point_counts(self.ties)
        n_pos = np.repeat(self.n_pos, np.diff(offsets)).astype(np.float64)
        usable = np.repeat(_engine.usable_segments(self.ties), np.diff(offsets))
        admitted = tp + fp
        r = np.where(usable, tp / np.maximum(n_pos, 1), 0.0)
        p = np.divide(tp, admitted, out=np.ones(tp.size), where=admitted > 0)
        # first point with recall >= beta, interpolated from the point before it
        hi = _segment_lookup(r, offsets, recall, side="left")
        hi = np.maximum(hi, offsets[:-1, None] + 1)  # recall 0: the start point and the next
        hi = np.minimum(hi, offsets[1:, None] - 1)  # segments without positives (NaN below)
        lo = hi - 1
        out = dg_interpolate(r[lo], p[lo], r[hi], p[hi], np.broadcast_to(recall, hi.shape))
        out = np.where(recall[None, :] == 0, 1.0, out)
        out[~_engine.usable_segments(self.ties)] = np.nan
        return out, None

    def evaluate(self, recall, method: str = "step"):
        """The PR curve of every group at the given recalls.

        Parameters
        ----------
        recall : array_like of float in [0, 1]
        method : {"step", "interpolated"}
            ``"step"``: Clémençon & Vayatis (2009) Eq. (3), right-continuous
            (see the module docstring for the exact convention);
            ``"interpolated"``: Davis & Goadrich (2006) interpolation between
            the empirical points.

        Returns
        -------
        frame
            Group keys, ``method``, ``recall``, ``precision`` and, for
            ``"step"``, ``threshold`` (the quantile :math:`\\hat G^{-1}(1-\\beta)`).
        """
        grid = _grid_iv(recall, "recall")
        method = self._method_iv(method)
        precision, threshold = self._evaluate_arrays(grid, method)
        m = grid.size
        columns = {"method": [method] * (self.n_groups * m), "recall": np.tile(grid, self.n_groups),
                   "precision": precision.ravel()}
        if threshold is not None:
            columns["threshold"] = threshold.ravel()
        body = pl.DataFrame(columns)
        return _frames.to_caller(self._with_keys(body, np.full(self.n_groups, m)), self.frame_kind)

    def band(self, level: float = 0.95, method: str = "smoothed_bootstrap", n_boot: int = 2000,
             bandwidth: float | tuple[float, float] | None = None, p_tilde: float | None = None,
             eps: float = 0.05, grid: int | Sequence[float] = 201, seed: Any = None,
             studentize: bool = False) -> BandResult:
        r"""Confidence band for the PR curve of every group (Clémençon & Vayatis 2009, Algorithm 1).

        Parameters
        ----------
        level : float
            Confidence level :math:`1-\delta`.
        method : {"smoothed_bootstrap", "bootstrap", "pointwise"}
            ``"smoothed_bootstrap"``: Algorithm 1 (smoothed resampling,
            importance sampling of the class proportion, sup-norm band).
            ``"bootstrap"``: plain stratified bootstrap, same sup-norm band.
            ``"pointwise"``: pointwise normal intervals from Eq. (9)
            (corrected, see :func:`aucpr_stats.bands.pointwise_variance`).
        n_boot : int
            Bootstrap replicates per group.
        bandwidth : float or (float, float), optional
            Gaussian kernel bandwidth for the positives and negatives. Default:
            Silverman's rule per class, :math:`0.9\min(s, \mathrm{IQR}/1.349)\,n_c^{-1/5}`
            (Remark 5: :math:`h \sim n^{-1/5}`). 0 turns smoothing off for a class.
        p_tilde : float, optional
            Instrumental proportion of positives in the resampling. Default: the
            value maximising the expected effective sample size, which is the
            observed proportion unless a replicate could plausibly lack a
            positive (:func:`aucpr_stats.bands.default_p_tilde`).
        eps : float
            The band covers recalls in :math:`[\varepsilon, 1-\varepsilon]`.
        grid : int or array_like
            Number of evenly spaced recalls in :math:`[\varepsilon, 1-\varepsilon]`,
            or the recalls themselves. The supremum is taken over the grid.
        seed : int, numpy Generator or None
        studentize : bool
            Extension, not in Algorithm 1: divide the bootstrap process by its
            bootstrap standard deviation at each recall before taking the
            supremum, so the band's width follows the curve's variability
            (``estimate +- r_delta * sigma*(recall) / sqrt(n)``) instead of being
            set everywhere by the noisiest recall. Bootstrap methods only.

        Returns
        -------
        BandResult
            ``.to_frame()`` (group keys, method, level, recall, estimate,
            lower, upper), ``.r_delta``, ``.ess``, ``.groups_frame()``, ``.plot()``.

        Warns
        -----
        LowEffectiveSampleSizeWarning
            The importance weights leave an effective sample below a quarter
            of ``n_boot`` (e.g. ``p_tilde=0.5`` with rare positives).

        References
        ----------
        Clémençon, S., Vayatis, N. (2009). Nonparametric estimation of the
        precision-recall curve. ICML, Algorithm 1, Remarks 3-5.
        """
        options = band_iv(level, method, n_boot, bandwidth, p_tilde, eps, grid, seed, studentize)
        estimate, _ = pr_step(self.ties, options["grid"])
        return pr_band(self.ties, estimate, grid=options["grid"], level=options["level"],
                       method=options["method"], n_boot=options["n_boot"], bandwidth=options["bandwidth"],
                       p_tilde=options["p_tilde"], eps=options["eps"], rng=options["rng"], keys=self.keys,
                       by=self.by, frame_kind=self.frame_kind, studentize=options["studentize"], stacklevel=3)

    def plot(self, ax=None, **kwargs):
        """Plot the curve of every group with its prevalence line; see :func:`aucpr_stats.plot.curves.plot_curve`."""
        from .plot.curves import plot_curve

        return plot_curve(self, ax=ax, **kwargs)


@attrs.frozen(eq=False, repr=False)
class RocCurveResult(_CurveResult):
    """Empirical ROC curves, one per group. Returned by :func:`roc_curve`."""

    curve: ClassVar[str] = "roc"

    def to_frame(self):
        """The empirical ROC points per group: group keys, ``threshold``, ``tp``, ``fp``, ``fpr``, ``tpr``."""
        threshold, tp, fp, offsets = self._point_counts()
        lengths = np.diff(offsets)
        n_pos = np.repeat(self.n_pos, lengths)
        n_neg = np.repeat(self.n_neg, lengths)
        with np.errstate(invalid="ignore", divide="ignore"):
            tpr = np.where(n_pos > 0, tp / np.maximum(n_pos, 1), np.nan)
            fpr = np.where(n_neg > 0, fp / np.maximum(n_neg, 1), np.nan)
        body = pl.DataFrame({"threshold": threshold, "tp": tp, "fp": fp, "fpr": fpr, "tpr": tpr})
        return _frames.to_caller(self._with_keys(body, lengths), self.frame_kind)

    def _evaluate_arrays(self, fpr: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray | None]:
        if method == "step":
            return roc_step(self.ties, fpr)
        tp, fp, offsets = pr_point_counts(self.ties)
        lengths = np.diff(offsets)
        usable = _engine.usable_segments(self.ties)
        x = np.where(np.repeat(usable, lengths), fp / np.maximum(np.repeat(self.n_neg, lengths), 1), 0.0)
        y = np.where(np.repeat(usable, lengths), tp / np.maximum(np.repeat(self.n_pos, lengths), 1), 0.0)
        # last point with fpr <= alpha (the top of a vertical run), then the line to the next point
        lo = _segment_lookup(x, offsets, fpr, side="right") - 1
        lo = np.clip(lo, offsets[:-1, None], offsets[1:, None] - 1)
        hi = np.minimum(lo + 1, offsets[1:, None] - 1)
        width = x[hi] - x[lo]
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.where(width > 0, (fpr[None, :] - x[lo]) / width, 0.0)
        out = y[lo] + np.clip(t, 0.0, 1.0) * (y[hi] - y[lo])
        out[~usable] = np.nan
        return out, None

    def evaluate(self, fpr, method: str = "step"):
        """The ROC curve of every group at the given false positive rates.

        Returns a frame with group keys, ``method``, ``fpr``, ``tpr`` and, for
        ``"step"``, ``threshold`` (the quantile :math:`\\hat H^{-1}(1-\\alpha)`).
        """
        grid = _grid_iv(fpr, "fpr")
        method = self._method_iv(method)
        tpr, threshold = self._evaluate_arrays(grid, method)
        m = grid.size
        columns = {"method": [method] * (self.n_groups * m), "fpr": np.tile(grid, self.n_groups),
                   "tpr": tpr.ravel()}
        if threshold is not None:
            columns["threshold"] = threshold.ravel()
        body = pl.DataFrame(columns)
        return _frames.to_caller(self._with_keys(body, np.full(self.n_groups, m)), self.frame_kind)

    def plot(self, ax=None, **kwargs):
        """Plot the ROC curve of every group with the chance diagonal; see :func:`aucpr_stats.plot.curves.plot_curve`."""
        from .plot.curves import plot_curve

        return plot_curve(self, ax=ax, **kwargs)


# -------------------------------------------------------------- entry points
def _build(cls, function, data_or_formula, data, outcome, score, by, positive, missing):
    data, outcome, score, by = resolve(data_or_formula, data, outcome, score, by, function=function)
    spec = _validate.column_spec_iv(data, outcome, score, by, positive, missing)
    ingested = ingest(data, spec)
    ties = ingested.ties
    notes = _engine.group_notes(ties.n_pos, ties.n_neg)
    _engine.warn_degenerate(ingested.keys, ingested.key_columns, notes, stacklevel=4)
    return cls(ties=ties, keys=ingested.keys, by=ingested.key_columns, notes=tuple(notes), frame_kind=ingested.kind,
               outcome=spec.outcome, score=spec.score, options={"positive": positive, "missing": missing})


def pr_curve(data_or_formula: Any = None, /, outcome: str | None = None, score: str | Sequence[str] | None = None,
             by: str | Sequence[str] | None = None, *, data: Any = None, positive: Any = None,
             missing: str = "error") -> PrCurveResult:
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
    >>> from aucpr_stats.curves import pr_curve
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 1], "s": [0.9, 0.8, 0.7, 0.2, 0.1]})
    >>> curve = pr_curve(df, "y", "s")
    >>> curve.to_frame()["precision"].round(3).to_list()
    [1.0, 1.0, 0.5, 0.667, 0.5, 0.6]
    >>> curve.evaluate([0.5], method="step")["precision"].round(3).to_list()  # 1.5 / (1.5 + 2 * 1/2)
    [0.6]
    """
    return _build(PrCurveResult, "pr_curve", data_or_formula, data, outcome, score, by, positive, missing)


def roc_curve(data_or_formula: Any = None, /, outcome: str | None = None, score: str | Sequence[str] | None = None,
              by: str | Sequence[str] | None = None, *, data: Any = None, positive: Any = None,
              missing: str = "error") -> RocCurveResult:
    """Empirical ROC curve, per group; same arguments as :func:`pr_curve`.

    Returns
    -------
    RocCurveResult
        ``.to_frame()`` (threshold, tp, fp, fpr, tpr), ``.evaluate(fpr, method=)``, ``.plot()``.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats.curves import roc_curve
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0, 1], "s": [0.9, 0.8, 0.7, 0.2, 0.1]})
    >>> roc_curve(df, "y", "s").to_frame()["tpr"].round(3).to_list()
    [0.0, 0.333, 0.333, 0.667, 0.667, 1.0]
    """
    return _build(RocCurveResult, "roc_curve", data_or_formula, data, outcome, score, by, positive, missing)
