r"""Confidence bands and pointwise intervals for the ROC curve (the stratified bootstrap).

The curve is the empirical ROC curve with straight lines between its points
(:func:`~aucpr_stats.curves.points.roc_interpolated`; a tie block holding
both classes is crossed by its straight segment, as pROC draws it), read at
a grid of false positive rates :math:`f` (sensitivity at specificity
:math:`1 - f`), or the other way round (specificity at fixed sensitivities).

A replicate is a stratified bootstrap draw of the group's tie table
(:func:`aucpr_stats.resample.replicate_chunks`: each class resampled with
replacement at its own size, as multinomial counts, from the group's own
random stream), and the curve is read on it by the same function.

``roc_band``: simultaneous (sup-norm) band
    :math:`\widehat{TPR}(f) \pm c`, where :math:`c` is the ``level``
    quantile of :math:`\sup_f |\widehat{TPR}^*(f) - \widehat{TPR}(f)|` over
    the replicates, clipped to [0, 1] (the construction of the PR band's
    ``method="bootstrap"``, :mod:`.bands`, on the ROC curve). It covers the
    whole curve on the grid at once, with a constant width: wider than needed
    near the corners, where the curve is pinned.
``roc_intervals``: pointwise percentile intervals
    Of the sensitivity at fixed specificities, or the specificity at fixed
    sensitivities: the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles of
    the replicates at each point, as pROC's ``ci.se`` and ``ci.sp`` (the same
    reading of the curve as pROC's ``coords``; the limits agree with pROC's
    within Monte Carlo error, the random streams differ). Each interval covers
    its own point; together they are not a band.

Coverage of both is measured in ``benchmarks/roc_band_coverage.py``
(binormal data with a known true curve; ``docs/roc.md``).
"""

from __future__ import annotations

import threading

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames
from .._validate import level_iv, n_boot_iv, rng_iv
from ..exceptions import InputError, InputTypeError
from ..report.display import TabularResult
from ..progress import progress_bar, progress_iv
from ..resample import Streams, check_allocation, evaluate_chunks, replicate_chunks
from ..resample.designs import ClusterUnits
from ..grouped import GroupedResult
from ..ties import TieTable
from .points import grid_iv, roc_interpolated

__all__ = ["RocBandResult", "roc_band", "roc_intervals", "sensitivity_at_specificity", "specificity_at_sensitivity"]

def sensitivity_at_specificity(ties: TieTable, specificity: np.ndarray) -> np.ndarray:
    """Sensitivity of the straight-line ROC curve at each specificity, shape (n_segments, m).

    At a specificity where the curve is vertical (tied negatives admitted at
    once are a horizontal run; positives admitted without negatives a vertical
    one) the highest sensitivity, as pROC's ``coords(input="specificity")``.
    NaN for segments without both classes.
    """
    return roc_interpolated(ties, 1.0 - np.asarray(specificity, dtype=np.float64))


def specificity_at_sensitivity(ties: TieTable, sensitivity: np.ndarray) -> np.ndarray:
    """Specificity of the straight-line ROC curve at each sensitivity, shape (n_segments, m).

    The mirror image of :func:`sensitivity_at_specificity`: the classes and
    the direction of the score swapped, so the curve is read along the
    sensitivity axis; where it is horizontal, the highest specificity.
    """
    n = ties.n_rows
    # reversing each segment's rows and swapping the classes maps (FPR, TPR) to (1 - TPR, 1 - FPR)
    seg = ties.segment_ids()
    order = np.lexsort((-np.arange(n), seg))
    mirrored = TieTable(-ties.score[order], ties.neg[order], ties.pos[order], ties.offsets)
    return roc_interpolated(mirrored, 1.0 - np.asarray(sensitivity, dtype=np.float64))


def _reader(reading: str):
    return sensitivity_at_specificity if reading == "sensitivity" else specificity_at_sensitivity


def _replicates(ties: TieTable, usable: np.ndarray, streams: Streams, n_boot: int, read, grid: np.ndarray,
                clusters: Any = None, progress: Any = None):
    """(usable groups, n_boot, m): the curve read on every bootstrap replicate of every usable group.

    Stratified by class, or with ``clusters`` (:class:`~aucpr_stats.ingest.FoldTables`) whole clusters
    resampled within each group (the cluster bootstrap of :mod:`aucpr_stats.resample.designs`).
    """
    check_allocation(usable.size * n_boot * grid.size, f"a ROC band of {usable.size} group(s) x {n_boot} replicates "
                     f"x {grid.size} grid points", "lower `n_boot` or `grid`, or band fewer groups per call")
    out = np.full((usable.size, n_boot, grid.size), np.nan)
    if clusters is not None:
        chunks = ClusterUnits(ties, clusters.ties, clusters.group).take(usable).replicate_chunks(n_boot, streams)
    else:
        table = ties.take(usable).collapsed()  # the straight-line curve reads negatives by runs only: exact
        chunks = replicate_chunks(table, n_boot, streams)

    lock = threading.Lock()

    def evaluate(chunk) -> None:  # this chunk's (group, replicate) cells only; on the pool's threads
        with np.errstate(all="ignore"):
            out[chunk.segment, chunk.replicate] = read(chunk.table, grid)
        with lock:
            bar.update(len(chunk.segment))

    with progress_bar(usable.size * n_boot, "ROC band", progress) as bar:  # a bar, or a time estimate if long
        evaluate_chunks(chunks, evaluate)
    return out


@attrs.frozen(eq=False, repr=False)
class RocBandResult(TabularResult, GroupedResult):
    """A simultaneous band, or pointwise intervals, for the ROC curve of every group.

    Returned by :meth:`RocCurveResult.band <aucpr_stats.curves.RocCurveResult.band>`
    (``method="bootstrap"``, simultaneous) and
    :meth:`RocCurveResult.intervals <aucpr_stats.curves.RocCurveResult.intervals>`
    (``method="pointwise"``).

    Attributes
    ----------
    method : {"bootstrap", "pointwise"}
    level : float
    axis : {"fpr", "specificity", "sensitivity"}
        What the grid holds: false positive rates (band), or the fixed
        specificities (sensitivity read, ``ci.se``) or sensitivities
        (specificity read, ``ci.sp``).
    grid : ndarray, shape (m,)
    estimate, lower, upper : ndarray, shape (n_groups, m)
        The curve read at the grid (TPR for the band; sensitivity or
        specificity for the intervals) and its limits; NaN for degenerate groups.
    boot_median : ndarray, shape (n_groups, m)
        The replicates' median (pROC's middle column).
    half_width : ndarray, shape (n_groups,)
        The band's constant half-width ``c`` (NaN for pointwise intervals).
    n_boot : int
    ties, keys, by, frame_kind
        As in every grouped result.
    """

    method: str
    level: float
    axis: str
    grid: np.ndarray = attrs.field(eq=False)
    estimate: np.ndarray = attrs.field(eq=False)
    lower: np.ndarray = attrs.field(eq=False)
    upper: np.ndarray = attrs.field(eq=False)
    boot_median: np.ndarray = attrs.field(eq=False)
    half_width: np.ndarray = attrs.field(eq=False)
    n_boot: int
    ties: TieTable = attrs.field(eq=False)
    keys: pl.DataFrame = attrs.field(eq=False)
    by: tuple
    frame_kind: str = "polars"

    @property
    def value_name(self) -> str:
        """The column of the curve's value: ``tpr`` (band), ``sensitivity`` or ``specificity`` (intervals)."""
        return {"fpr": "tpr", "specificity": "sensitivity", "sensitivity": "specificity"}[self.axis]

    def to_polars(self) -> pl.DataFrame:
        """The frame of :meth:`to_frame` as a polars DataFrame."""
        m = self.grid.size
        body = pl.DataFrame({
            "method": [self.method] * (self.n_groups * m),
            "level": np.full(self.n_groups * m, self.level),
            self.axis: np.tile(self.grid, self.n_groups),
            "estimate": self.estimate.ravel(),
            "lower": self.lower.ravel(),
            "upper": self.upper.ravel(),
            "boot_median": self.boot_median.ravel(),
        })
        return self.with_keys(body, np.repeat(np.arange(self.n_groups), m))

    def to_frame(self):
        """One row per group and grid point, in the caller's frame type.

        Columns: group keys, ``method``, ``level``, the grid (``fpr``,
        ``specificity`` or ``sensitivity``), ``estimate`` (the curve there),
        ``lower``, ``upper``, ``boot_median``.
        """
        return _frames.to_caller(self.to_polars(), self.frame_kind)

    def _title(self) -> str:
        grouping = f", by {', '.join(self.by)}" if self.by else ""
        if self.method == "bootstrap":
            return f"{self.level:.0%} simultaneous bootstrap band of the ROC curve{grouping}"
        return f"{self.level:.0%} pointwise bootstrap intervals of the {self.value_name} at fixed {self.axis}{grouping}"

    def __repr__(self) -> str:
        extra = f", half_width={np.round(self.half_width, 4).tolist()}" if self.method == "bootstrap" else ""
        return (f"RocBandResult(method={self.method!r}, level={self.level}, groups={self.n_groups}, "
                f"{self.axis}={self.grid.size} points in [{self.grid[0]:.3g}, {self.grid[-1]:.3g}], "
                f"n_boot={self.n_boot}{extra})")

    def plot(self, ax=None, *, shade_alpha: float = 0.22, title: str | None = None, legend: bool = True):
        """The curve with its band (or pointwise intervals as error bars), one colour per group, on ROC axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 4.5))
        cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
        labels = (["all rows"] * self.n_groups if not self.by else
                  [", ".join(str(v) for v in row) for row in self.keys.select(list(self.by)).iter_rows()])
        for k in range(self.n_groups):
            if not np.isfinite(self.estimate[k]).any():
                continue
            colour = cycle[k % len(cycle)]
            if self.axis == "fpr":
                x, y, lo, hi = self.grid, self.estimate[k], self.lower[k], self.upper[k]
            elif self.axis == "specificity":  # sensitivity at fixed specificities: vertical bars
                x, y, lo, hi = 1 - self.grid, self.estimate[k], self.lower[k], self.upper[k]
            else:  # specificity at fixed sensitivities: horizontal bars, on the FPR axis
                x, y = 1 - self.estimate[k], self.grid
            label = labels[k] if self.by else None
            if self.method == "bootstrap":
                ax.fill_between(x, lo, hi, color=colour, alpha=shade_alpha, lw=0)
                ax.plot(x, y, color=colour, lw=1.6, label=label)
            elif self.axis == "specificity":
                ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="o", ms=3, color=colour, capsize=3, label=label)
            else:
                ax.errorbar(x, y, xerr=[self.upper[k] - self.estimate[k], self.estimate[k] - self.lower[k]],
                            fmt="o", ms=3, color=colour, capsize=3, label=label)
        ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls=":")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("False positive rate (1 - specificity)")
        ax.set_ylabel("True positive rate (sensitivity)")
        ax.set_title(self._title() if title is None else title, fontsize="small")
        if legend and self.by:
            ax.legend(loc="lower right", fontsize="small", frameon=False)
        return ax


def _grid_iv(grid: Any, argument: str) -> np.ndarray:
    if isinstance(grid, (int, np.integer)) and not isinstance(grid, bool):
        if grid < 2:
            raise InputError(f"`{argument}` must be at least 2 points or an array of rates; got {grid!r}")
        return np.linspace(0.01, 0.99, int(grid))
    return np.unique(grid_iv(grid, argument))


def _bootstrap(curve: Any, reading: str, grid: np.ndarray, n_boot: int, rng: Any, progress: Any = None):
    """Estimates (groups, m) and replicates (usable groups, n_boot, m), with the usable groups."""
    ties = curve.ties
    read = _reader(reading)
    estimate = read(ties, grid)
    usable = np.flatnonzero(ties.has_both_classes())
    if usable.size == 0:
        return estimate, usable, np.empty((0, n_boot, grid.size))
    streams = Streams.for_keys(rng, curve.keys[usable.tolist()], curve.by, "band")
    return estimate, usable, _replicates(ties, usable, streams, n_boot, read, grid, curve.clusters, progress)


def roc_band(curve: Any, *, level: Any = 0.95, n_boot: Any = 2000, grid: Any = 99, seed: Any = None,
             rng: Any = None, progress: Any = None) -> RocBandResult:
    r"""Simultaneous sup-norm bootstrap band of the ROC curve of every group (see the module docstring).

    Parameters
    ----------
    curve : RocCurveResult
    level : float
        Simultaneous coverage of the band over the grid.
    n_boot : int
        Stratified bootstrap replicates per group.
    grid : int or array of float
        False positive rates: a number of equally spaced points over
        [0.01, 0.99] (default 99), or the rates themselves (in [0, 1]). At a
        false positive rate of 0 the empirical curve stands at the top of its
        first vertical run (the positives scored above every negative), while
        a continuous true curve starts at 0: no band centred on the empirical
        curve covers that point reliably, so the default grid leaves it out.
    seed : None, int, Generator or SeedSequence
        The alias of ``rng`` (the same value, the same band); give one of the two.
    rng : None, int, Generator or SeedSequence
        The randomness (SPEC 7): each group draws from its own stream, derived
        from ``rng`` and the group's key.
    progress : bool or None
        A progress bar (:mod:`aucpr_stats.progress`); without one, a band
        projected to run over a minute says so in a ``LongComputationWarning``.

    Returns
    -------
    RocBandResult
        ``axis="fpr"``; ``half_width`` per group.

    Examples
    --------
    >>> import numpy as np, polars as pl
    >>> from aucpr_stats import roc_curve
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(300) < 0.4
    >>> band = roc_curve(pl.DataFrame({"y": y, "s": rng.normal(size=300) + y}), "y", "s").band(n_boot=200, rng=1)
    >>> bool((band.lower <= band.estimate).all() and (band.estimate <= band.upper).all())
    True
    """
    level, n_boot, rng = level_iv(level), n_boot_iv(n_boot), rng_iv(rng, seed)
    grid = _grid_iv(grid, "grid")
    estimate, usable, replicates = _bootstrap(curve, "sensitivity", 1.0 - grid, n_boot, rng, progress_iv(progress))
    n_groups = curve.ties.n_segments
    lower = np.full((n_groups, grid.size), np.nan)
    upper = np.full((n_groups, grid.size), np.nan)
    half = np.full(n_groups, np.nan)
    median = np.full((n_groups, grid.size), np.nan)
    if usable.size:
        sups = np.max(np.abs(replicates - estimate[usable][:, None, :]), axis=2)  # (groups, n_boot)
        half[usable] = np.quantile(sups, level, axis=1)
        lower[usable] = np.clip(estimate[usable] - half[usable, None], 0.0, 1.0)
        upper[usable] = np.clip(estimate[usable] + half[usable, None], 0.0, 1.0)
        median[usable] = np.median(replicates, axis=1)
    return RocBandResult(method="bootstrap", level=level, axis="fpr", grid=grid, estimate=estimate, lower=lower,
                         upper=upper, boot_median=median, half_width=half, n_boot=n_boot, ties=curve.ties,
                         keys=curve.keys, by=tuple(curve.by), frame_kind=curve.frame_kind)


def roc_intervals(curve: Any, *, specificity: Sequence[float] | None = None, sensitivity: Sequence[float] | None = None,
                  level: Any = 0.95, n_boot: Any = 2000, seed: Any = None, rng: Any = None,
                  progress: Any = None) -> RocBandResult:
    r"""Pointwise bootstrap percentile intervals of the sensitivity at fixed specificities, or the reverse.

    ``specificity=[...]`` gives pROC's ``ci.se`` (sensitivity at those
    specificities); ``sensitivity=[...]`` gives ``ci.sp``. Give one.

    Parameters
    ----------
    curve : RocCurveResult
    specificity, sensitivity : array of float in [0, 1]
    level : float
    n_boot : int
    seed : None, int, Generator or SeedSequence
        The alias of ``rng``; give one of the two.
    rng : None, int, Generator or SeedSequence
        The randomness (SPEC 7), one stream per group.
    progress : bool or None
        A progress bar (:mod:`aucpr_stats.progress`).

    Returns
    -------
    RocBandResult
        ``method="pointwise"``; ``axis`` is the argument given.

    Raises
    ------
    InputError
        Neither or both of ``specificity`` and ``sensitivity``; values outside [0, 1].

    Examples
    --------
    >>> import numpy as np, polars as pl
    >>> from aucpr_stats import roc_curve
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(300) < 0.4
    >>> curve = roc_curve(pl.DataFrame({"y": y, "s": rng.normal(size=300) + y}), "y", "s")
    >>> ci = curve.intervals(specificity=[0.8, 0.9], n_boot=200, rng=1).to_frame()
    >>> ci.columns[:4]
    ['method', 'level', 'specificity', 'estimate']
    """
    if (specificity is None) == (sensitivity is None):
        raise InputError("give one of `specificity` (sensitivity read there, as pROC's ci.se) and `sensitivity` "
                         "(specificity read there, as ci.sp)")
    axis = "specificity" if specificity is not None else "sensitivity"
    values = specificity if specificity is not None else sensitivity
    if isinstance(values, (str, bytes)):
        raise InputTypeError(f"`{axis}` must be numbers in [0, 1]; got {values!r}")
    grid = np.unique(grid_iv(values, axis))
    level, n_boot, rng = level_iv(level), n_boot_iv(n_boot), rng_iv(rng, seed)
    reading = "sensitivity" if axis == "specificity" else "specificity"
    estimate, usable, replicates = _bootstrap(curve, reading, grid, n_boot, rng, progress_iv(progress))
    n_groups = curve.ties.n_segments
    lower = np.full((n_groups, grid.size), np.nan)
    upper = np.full((n_groups, grid.size), np.nan)
    median = np.full((n_groups, grid.size), np.nan)
    if usable.size:
        alpha = (1.0 - level) / 2.0
        lower[usable], median[usable], upper[usable] = np.quantile(replicates, [alpha, 0.5, 1.0 - alpha], axis=1)
    return RocBandResult(method="pointwise", level=level, axis=axis, grid=grid, estimate=estimate, lower=lower,
                         upper=upper, boot_median=median, half_width=np.full(n_groups, np.nan), n_boot=n_boot,
                         ties=curve.ties, keys=curve.keys, by=tuple(curve.by), frame_kind=curve.frame_kind)
