"""Curve results: the empirical PR and ROC curves of every group, read on request.

They keep the tie tables, like the area results: ``.to_frame()`` lists the
empirical points, ``.evaluate(grid, method=)`` reads the curves at chosen
recalls or false positive rates (:mod:`.points`), ``.band()`` builds the
Clémençon & Vayatis (2009) confidence bands (:mod:`.bands`) and ``.plot()``
draws them.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import attrs
import numpy as np
import polars as pl

from .. import _frames, _validate
from ..exceptions import InputError
from ..report.display import TabularResult, direction_phrase, html_display
from ..grouped import GroupedResult, direction_signs
from ..plot.curves import plot_curve
from ..ties import TieTable
from .bands import BandResult, pr_band
from .points import CURVE_METHODS, grid_iv, point_thresholds, pr_interpolated, pr_step, roc_interpolated, roc_step
from .roc_band import RocBandResult, roc_band, roc_intervals

__all__ = ["PrCurveResult", "RocCurveResult"]


@attrs.frozen(eq=False, repr=False)
class _CurveResult(TabularResult, GroupedResult):
    """Common part of the PR and ROC curve results (keeps the tie tables).

    ``to_frame()`` and ``to_polars()`` list the empirical points;
    ``summary()`` is one line per group (its counts and number of points),
    the notebook display shows the points.
    """

    curve: ClassVar[str] = "curve"
    #: Names of the grid (x) and value (y) columns of ``.evaluate()``.
    axes: ClassVar[tuple[str, str]] = ("x", "y")

    ties: TieTable
    keys: pl.DataFrame
    by: tuple[str, ...]
    notes: tuple
    frame_kind: str
    outcome: str
    score: str
    #: The call's checked data arguments (:class:`~aucpr_stats.request.Request`): design, ``ties=``, ``grid=``.
    request: Any = attrs.field(default=None, kw_only=True)
    #: The direction each score was read in (``direction=``).
    directions: dict = attrs.field(factory=dict, kw_only=True)
    #: With ``cluster=``: tie tables per (group, cluster) (:class:`aucpr_stats.ingest.FoldTables`), for ROC bands.
    clusters: Any = attrs.field(default=None, kw_only=True)

    def values_at(self, grid: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray | None]:
        raise NotImplementedError  # pragma: no cover - defined by the subclasses

    def _points_frame(self, columns) -> pl.DataFrame:
        """The empirical points, with ``columns(tp, fp, n_pos, n_neg)`` giving the curve's own columns."""
        threshold, tp, fp, offsets = point_thresholds(self.ties)
        lengths = np.diff(offsets)
        n_pos, n_neg = np.repeat(self.n_pos, lengths), np.repeat(self.n_neg, lengths)
        threshold = self._caller_thresholds(threshold, np.repeat(np.arange(self.n_groups), lengths))
        with np.errstate(invalid="ignore", divide="ignore"):
            body = pl.DataFrame({"threshold": threshold, "tp": tp, "fp": fp, **columns(tp, fp, n_pos, n_neg)})
        return self.with_keys(body, np.repeat(np.arange(self.n_groups), lengths))

    def _caller_thresholds(self, threshold: np.ndarray, groups: np.ndarray) -> np.ndarray:
        """Thresholds of the tie table back on the caller's scores: negated for a score read ``direction="lower"``."""
        signs = direction_signs(self.direction, self.keys, self.score)
        if np.all(signs > 0):
            return threshold
        reversed_rows = signs[groups] < 0
        return np.where(reversed_rows, -threshold + 0.0, threshold)  # + 0.0: no -0.0 for a threshold of 0

    def evaluate(self, grid, method: str = "step"):
        """The curve of every group at the given grid values (see the subclasses)."""
        x_name, y_name = self.axes
        grid = grid_iv(grid, x_name)
        method = _validate.choice_iv(method, "method", CURVE_METHODS)
        values, threshold = self.values_at(grid, method)
        m = grid.size
        columns = {"method": [method] * (self.n_groups * m), x_name: np.tile(grid, self.n_groups),
                   y_name: values.ravel()}
        if threshold is not None:
            columns["threshold"] = self._caller_thresholds(threshold.ravel(), np.repeat(np.arange(self.n_groups), m))
        body = self.with_keys(pl.DataFrame(columns), np.repeat(np.arange(self.n_groups), m))
        return _frames.to_caller(body, self.frame_kind)

    def plot(self, ax=None, **kwargs):
        """Plot the curve of every group; see :func:`aucpr_stats.plot.curves.plot_curve`."""
        return plot_curve(self, ax=ax, **kwargs)

    def _title(self) -> str:
        """A heading in words: "Precision-recall curve of s for outcome y, by site"."""
        label = {"pr": "Precision-recall curve", "roc": "ROC curve"}.get(self.curve, "Curve")
        several = isinstance(self.score, tuple)
        groups = [c for c in self.by if not (several and c == "score")]
        scores = ", ".join(self.score) if several else self.score
        grouping = f", by {', '.join(groups)}" if groups else ""
        direction = direction_phrase(self.direction)
        return f"{label}{'s' * several} of {scores} for outcome {self.outcome}{grouping}{direction}"

    def groups_frame(self):
        """One row per group: keys, ``n_pos``, ``n_neg``, ``prevalence``, ``n_points`` (of the curve), ``note``."""
        return _frames.to_caller(self._groups_polars(), self.frame_kind)

    def _groups_polars(self) -> pl.DataFrame:
        _, _, _, offsets = point_thresholds(self.ties)
        body = pl.DataFrame({
            "n_pos": self.n_pos, "n_neg": self.n_neg, "prevalence": self.prevalence,
            "n_points": np.diff(offsets).astype(np.int64),
            "note": pl.Series(list(self.notes), dtype=pl.String),
        })
        return self.with_keys(body, np.arange(self.n_groups))

    def _shown(self, digits: int) -> pl.DataFrame:
        """The summary: one line per group (a curve's points are in ``to_frame()``)."""
        frame = self._groups_polars()
        return frame.drop("note") if frame["note"].null_count() == frame.height else frame

    def _repr_html_(self) -> str:
        """The notebook display: the heading and the curve's points."""
        return html_display(self._title(), self.to_polars())

    def __repr__(self) -> str:
        name = type(self).__name__
        return (f"{name}(by={list(self.by)}, groups={self.n_groups}, "
                f"n_pos={int(self.n_pos.sum())}, n_neg={int(self.n_neg.sum())})")


def refuse_weighted_band(curve) -> None:
    """Bands resample rows of each class: not defined here for weighted or reweighted curves (nor PR bands of clusters).

    Nor for a curve thinned to a grid (``grid=``): the resampling needs every tie row.
    """
    grid = curve.request.reduction.grid if curve.request is not None else None
    if grid is not None:
        raise InputError(f"bands and intervals resample every point of the curve, and this curve keeps only the "
                         f"points at a grid (grid={grid}); make the curve without `grid=` "
                         "(on an engine, under max_tie_rows: aucpr_stats.sql_input)")
    design = [f"`{name}=`" for name, value in (("weights", curve.design.weights),
                                               ("prevalence", curve.design.prevalence)) if value is not None]
    if curve.clusters is not None and curve.curve == "pr":
        design.append("`cluster=`")
    if design:
        raise InputError(f"bands are not available for {'PR ' if 'cluster' in design[-1] else ''}curves made "
                         f"with {' and '.join(design)} (the band's resampling reads unweighted, independent "
                         "rows); make the curve without it for a band (ROC bands resample clusters)")


@attrs.frozen(eq=False, repr=False)
class PrCurveResult(_CurveResult):
    """Empirical precision-recall curves, one per group.

    Returned by :func:`aucpr_stats.pr_curve`. ``.to_frame()`` lists the points,
    ``.evaluate(recall, method=)`` reads the curve on a recall grid,
    ``.band(...)`` builds a confidence band, ``.plot()`` draws it (with each
    group's prevalence line).
    """

    curve: ClassVar[str] = "pr"
    axes: ClassVar[tuple[str, str]] = ("recall", "precision")

    def to_frame(self):
        """The empirical PR points per group, in the caller's frame type.

        Columns: group keys, ``threshold`` (rows with ``score >= threshold``
        are called positive, ``score <= threshold`` for a score read with
        ``direction="lower"``; ``inf`` for the start point, ``-inf`` when
        reversed), ``tp``, ``fp``, ``recall`` (``tp / n_pos``) and
        ``precision`` (``tp / (tp + fp)``, 1 at the start point). The points
        are those of every AUCPR estimator.
        """
        return _frames.to_caller(self.to_polars(), self.frame_kind)

    def to_polars(self) -> pl.DataFrame:
        """The frame of :meth:`to_frame` as a polars DataFrame, whatever the caller's frame type."""
        def columns(tp, fp, n_pos, n_neg):
            admitted = tp + fp
            return {"recall": np.where(n_pos > 0, tp / np.maximum(n_pos, 1), np.nan),
                    "precision": np.divide(tp, admitted, out=np.ones(tp.size), where=admitted > 0)}

        return self._points_frame(columns)

    @property
    def tie_blocks(self) -> str:
        """The ``ties=`` option the curve was made with (``"interpolate"`` by default)."""
        return self.ties_rule

    def values_at(self, recall: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray | None]:
        if method == "step":
            return pr_step(self.ties, recall, self.tie_blocks)
        return pr_interpolated(self.ties, recall, self.tie_blocks), None

    def evaluate(self, recall, method: str = "step"):
        """The PR curve of every group at the given recalls.

        Parameters
        ----------
        recall : array_like of float in [0, 1]
        method : {"step", "interpolated"}
            ``"step"``: Clémençon & Vayatis (2009) Eq. (3), right-continuous
            (see :mod:`aucpr_stats.curves.points` for the exact convention);
            ``"interpolated"``: Davis & Goadrich (2006) interpolation between
            the empirical points.

        Returns
        -------
        frame
            Group keys, ``method``, ``recall``, ``precision`` and, for
            ``"step"``, ``threshold`` (the quantile :math:`\\hat G^{-1}(1-\\beta)`).
        """
        return super().evaluate(recall, method)

    def band(self, level: float = 0.95, method: str = "smoothed_bootstrap", n_boot: int = 2000,
             bandwidth: float | tuple[float, float] | None = None, p_tilde: float | None = None,
             eps: float = 0.05, grid: int | Sequence[float] = 201, seed: Any = None,
             studentize: bool = False, progress: bool | None = None, *, rng: Any = None) -> BandResult:
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
            (corrected, see :func:`aucpr_stats.curves.smoothing.pointwise_variance`).
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
            positive (:func:`aucpr_stats.curves.smoothing.default_p_tilde`).
        eps : float
            The band covers recalls in :math:`[\varepsilon, 1-\varepsilon]`.
        grid : int or array_like
            Number of evenly spaced recalls in :math:`[\varepsilon, 1-\varepsilon]`,
            or the recalls themselves. The supremum is taken over the grid.
        seed : None, int >= 0, numpy Generator or SeedSequence
            The alias of ``rng`` (the same value gives the same band); give one of the two.
        studentize : bool
            Extension, not in Algorithm 1: divide the bootstrap process by its
            bootstrap standard deviation at each recall before taking the
            supremum, so the band's width follows the curve's variability
            (``estimate +- r_delta * sigma*(recall) / sqrt(n)``) instead of being
            set everywhere by the noisiest recall. Bootstrap methods only.
        progress : bool or None
            A progress bar: None on a terminal for work longer than 2
            seconds, True always, False never (:mod:`aucpr_stats.progress`).
        rng : None, int >= 0, numpy Generator or SeedSequence
            The randomness of the bootstrap (SPEC 7). Each group draws from its
            own stream, derived from ``rng`` and the group's key.

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
        rng = _validate.rng_iv(rng, seed)
        refuse_weighted_band(self)
        return pr_band(self, level=level, method=method, n_boot=n_boot, bandwidth=bandwidth, p_tilde=p_tilde,
                       eps=eps, grid=grid, rng=rng, studentize=studentize, progress=progress)



@attrs.frozen(eq=False, repr=False)
class RocCurveResult(_CurveResult):
    """Empirical ROC curves, one per group. Returned by :func:`aucpr_stats.roc_curve`."""

    curve: ClassVar[str] = "roc"
    axes: ClassVar[tuple[str, str]] = ("fpr", "tpr")

    def to_frame(self):
        """The empirical ROC points per group: group keys, ``threshold``, ``tp``, ``fp``, ``fpr``, ``tpr``.

        ``threshold`` is on the caller's scores (with ``direction="lower"`` a
        case is called positive when its score is ``<= threshold``).
        """
        return _frames.to_caller(self.to_polars(), self.frame_kind)

    def to_polars(self) -> pl.DataFrame:
        """The frame of :meth:`to_frame` as a polars DataFrame, whatever the caller's frame type."""
        def columns(tp, fp, n_pos, n_neg):
            return {"fpr": np.where(n_neg > 0, fp / np.maximum(n_neg, 1), np.nan),
                    "tpr": np.where(n_pos > 0, tp / np.maximum(n_pos, 1), np.nan)}

        return self._points_frame(columns)

    def values_at(self, fpr: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray | None]:
        if method == "step":
            return roc_step(self.ties, fpr)
        return roc_interpolated(self.ties, fpr), None

    def evaluate(self, fpr, method: str = "step"):
        """The ROC curve of every group at the given false positive rates.

        Returns a frame with group keys, ``method``, ``fpr``, ``tpr`` and, for
        ``"step"``, ``threshold`` (the quantile :math:`\\hat H^{-1}(1-\\alpha)`).
        """
        return super().evaluate(fpr, method)

    def band(self, level: float = 0.95, n_boot: int = 2000, grid: int | Sequence[float] = 99,
             seed: Any = None, *, rng: Any = None, progress: bool | None = None) -> RocBandResult:
        """Simultaneous (sup-norm) stratified bootstrap band of the ROC curve of every group.

        The curve is read with straight lines between its points at ``grid``
        false positive rates (a number of equally spaced points over
        [0.01, 0.99], or the rates); the band is ``tpr +- c`` with ``c`` the
        ``level`` quantile of the replicates' largest deviation over the
        grid, clipped to [0, 1]. ``rng`` (SPEC 7; ``seed`` is its alias): the
        randomness of the bootstrap, each group drawing from its own stream.
        ``progress``: a progress bar (:mod:`aucpr_stats.progress`).
        See :func:`aucpr_stats.curves.roc_band.roc_band`.

        Returns
        -------
        RocBandResult
            ``.to_frame()`` (group keys, method, level, fpr, estimate, lower,
            upper, boot_median), ``.half_width``, ``.plot()``.
        """
        rng = _validate.rng_iv(rng, seed)
        refuse_weighted_band(self)
        return roc_band(self, level=level, n_boot=n_boot, grid=grid, rng=rng, progress=progress)

    def intervals(self, specificity: Sequence[float] | None = None, sensitivity: Sequence[float] | None = None,
                  level: float = 0.95, n_boot: int = 2000, seed: Any = None, *, rng: Any = None,
                  progress: bool | None = None) -> RocBandResult:
        """Pointwise bootstrap percentile intervals: sensitivity at fixed specificities, or the reverse.

        ``specificity=[0.8, 0.9]`` is pROC's ``ci.se``; ``sensitivity=[...]``
        its ``ci.sp``. ``rng`` (SPEC 7; ``seed`` is its alias): the randomness
        of the bootstrap. See :func:`aucpr_stats.curves.roc_band.roc_intervals`.
        """
        rng = _validate.rng_iv(rng, seed)
        refuse_weighted_band(self)
        return roc_intervals(self, specificity=specificity, sensitivity=sensitivity, level=level, n_boot=n_boot,
                             rng=rng, progress=progress)
