"""Smoothed ROC curves per group and the area under them, with a bootstrap interval (pROC's ``smooth()``).

:func:`smooth_roc` reads the data through the front door like
:func:`aucpr_stats.roc_curve` and smooths each group's curve by one of
pROC's methods (the kernels on tie tables are in :mod:`.smooth_roc_fit`):
``"binormal"`` (pROC's default), ``"density"`` (kernel density estimates
of both classes, as R's ``density()``) or ``"fitdistr"`` (fitted
parametric densities). :class:`SmoothRocResult` keeps the tie tables and
the smoothed curves: ``.to_frame()`` the points, ``.auc()`` the areas,
``.conf_int()`` the stratified bootstrap percentile interval of the area in
which every replicate is smoothed again, as pROC's ``ci.auc()`` of a
smoothed curve.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames, _validate
from ..exceptions import DegenerateGroupWarning, InputError, InputTypeError
from ..front_door import open_data
from ..grouped import GroupedResult, direction_signs
from ..report.display import TabularResult, direction_phrase
from ..resample import Streams, replicate_chunks
from ..ties import TieTable
from .smooth_roc_fit import (
    BANDWIDTHS,
    DISTRIBUTIONS,
    KERNELS,
    REASONS,
    SMOOTH_METHODS,
    Smoothed,
    smooth_tables,
)

__all__ = ["SMOOTH_METHODS", "SmoothRocResult", "SmoothSettings", "smooth_roc"]

#: The largest ``n`` (points of a smoothed curve).
MAX_POINTS = 10**6
#: Replicates of :meth:`SmoothRocResult.conf_int` by default, as pROC's ``boot.n``.
SMOOTH_N_BOOT = 2000


#: What the coverage study found for the smoothed areas' intervals (benchmarks/smooth_roc_coverage_results.md,
#: 300 data sets per cell): binormal 92.7-97.3% on binormal and log-normal scores; density biased toward 0.5
#: (17-94%: 17% with skewed scores at AUROC 0.9 and 300 per class); fitdistr 54-86% when its family is wrong.
COVERAGE_CAVEATS = {
    "density": ("the density-smoothed area is biased toward 0.5, more with strong or skewed scores: its interval "
                "covered the true area in 17-94% of simulated studies (docs/roc.md); prefer 'binormal' or the "
                "empirical AUROC"),
    "fitdistr": ("the fitted families must hold: with skewed scores fitted as normal the interval covered the "
                 "true area in 54-86% of simulated studies (docs/roc.md)"),
}

@attrs.frozen
class SmoothSettings:
    """The smoothing arguments of a call (checked), applied again to every bootstrap replicate."""

    method: str = "binormal"
    n: int = 512
    bandwidth: str | float = "nrd0"
    adjust: float = 1.0
    kernel: str = "gaussian"
    distributions: tuple[str, str] = ("normal", "normal")

    def apply(self, ties: TieTable, lower: np.ndarray) -> Smoothed:
        return smooth_tables(ties, self.method, self.n, lower=lower, bandwidth=self.bandwidth, adjust=self.adjust,
                             kernel=self.kernel, distributions=self.distributions)


def _settings_iv(method, n, bandwidth, adjust, kernel, distributions) -> SmoothSettings:
    if method in ("logcondens", "logcondens.smooth"):
        raise InputError(f"`method` {method!r} (log-concave densities) is not offered; use one of "
                         f"{list(SMOOTH_METHODS)}")
    method = _validate.choice_iv(method, "method", SMOOTH_METHODS)
    n = _validate.integer_iv(n, "n", 2, MAX_POINTS)
    if isinstance(bandwidth, str):
        if bandwidth.lower() not in BANDWIDTHS:
            raise InputError(f"`bandwidth` must be one of {list(BANDWIDTHS)} or a positive number; got {bandwidth!r}")
        bandwidth = bandwidth.lower()
    else:
        bandwidth = _validate.number_iv(bandwidth, "bandwidth", low=0.0, what="a positive finite number")
    adjust = _validate.number_iv(adjust, "adjust", low=0.0, what="a positive finite number")
    kernel = _validate.choice_iv(kernel, "kernel", KERNELS)
    if isinstance(distributions, str):
        distributions = (distributions, distributions)
    if not isinstance(distributions, (tuple, list)) or len(distributions) != 2:
        raise InputTypeError("`distributions` must be a family name or a pair (negatives, positives) of names from "
                             f"{list(DISTRIBUTIONS)}; got {_validate.shown(distributions)}")
    distributions = tuple(_validate.choice_iv(d, "distributions", DISTRIBUTIONS) for d in distributions)
    return SmoothSettings(method, n, bandwidth, adjust, kernel, distributions)


def smooth_roc(data_or_formula: Any = None, /, outcome: str | None = None, score: str | Sequence[str] | None = None,
               by: str | Sequence[str] | None = None, *, data: Any = None, method: str = "binormal", n: int = 512,
               bandwidth: str | float = "nrd0", adjust: float = 1.0, kernel: str = "gaussian",
               distributions: str | tuple[str, str] = ("normal", "normal"), positive: Any = None,
               negative: Any = None, missing: str = "error", direction: str = "higher",
               unused_levels: str = "keep") -> SmoothRocResult:
    r"""Smoothed ROC curve of every group and the area under it, as pROC's ``smooth()`` and ``auc()``.

    Same column interface as :func:`aucpr_stats.roc_curve`:
    ``smooth_roc(df, "y", "s", by="site", method="density")`` or a formula.

    Parameters
    ----------
    data_or_formula, outcome, score, by, data, positive, negative, missing, direction, unused_levels
        As in :func:`aucpr_stats.roc_curve` (no ``weights``, ``cluster`` or
        ``prevalence``: pROC's smoothing reads unweighted, independent rows).
    method : {"binormal", "density", "fitdistr"}
        ``"binormal"`` (default, as pROC): the least-squares line through the
        empirical ROC points on probit axes, :math:`\Phi^{-1}(sp) = a + b
        \Phi^{-1}(se)`, its area :math:`\Phi(a/\sqrt{1+b^2})`;
        ``"density"``: each class's kernel density estimate with the pooled
        bandwidth; ``"fitdistr"``: each class's maximum-likelihood density.
        pROC's ``"logcondens"`` methods are not offered.
    n : int
        Points of the smoothed curve (at least 2), before the end points
        (0, 1) and (1, 0) are added: 512 as pROC.
    bandwidth : {"nrd0", "nrd"} or float
        ``"density"`` only (pROC's ``bw``): Silverman's rule ``"nrd0"``
        (default), Scott's ``"nrd"`` (both on the pooled scores of the
        group), or a bandwidth on the scores' scale.
    adjust : float
        ``"density"`` only: the bandwidth is multiplied by it.
    kernel : {"gaussian", "epanechnikov", "rectangular", "triangular", "biweight", "cosine", "optcosine"}
        ``"density"`` only: R's kernels, scaled so that ``bandwidth`` is their standard deviation.
    distributions : str or (str, str)
        ``"fitdistr"`` only: the family of the negatives and of the positives
        (pROC's ``density.controls``, ``density.cases``), each ``"normal"``,
        ``"lognormal"`` (positive scores) or ``"exponential"`` (scores >= 0);
        one name for both. Their fits are closed forms, as ``MASS::fitdistr``.

    Returns
    -------
    SmoothRocResult
        ``.to_frame()`` (the points), ``.auc()`` (the areas),
        ``.conf_int(level, n_boot, rng)``, ``.summary()``.

    Raises
    ------
    ColumnNotFoundError, InputTypeError, MissingValueError, OutcomeError, InputError
        As :func:`aucpr_stats.roc_curve`; an unknown ``method``, ``kernel``,
        ``bandwidth`` rule or family, ``n`` below 2, ``adjust`` not positive.

    Warns
    -----
    DegenerateGroupWarning
        Groups without both classes, and groups the method cannot smooth
        (binormal: fewer than two ROC points inside the unit square;
        fitdistr: a class without spread, or scores outside the family's
        support): their row is NaN with a ``note``.

    References
    ----------
    Robin, X. et al. (2011). pROC: an open-source package for R and S+ to
    analyze and compare ROC curves. BMC Bioinformatics 12, 77.
    Metz, C. E., Herman, B. A., Shen, J.-H. (1998). Statistics in Medicine 17, 1033-1053.

    Examples
    --------
    >>> import polars as pl
    >>> from aucpr_stats.curves.smooth_roc import smooth_roc
    >>> df = pl.DataFrame({"y": [1, 1, 0, 1, 0, 1, 0, 0], "s": [8.0, 7, 6, 5, 4, 3, 2, 1]})
    >>> smooth_roc(df, "y", "s").auc()["estimate"].round(4).to_list()  # pROC: auc(smooth(roc(y, s)))
    [0.7268]
    >>> smooth_roc(df, "y", "s", method="density").auc()["estimate"].round(4).to_list()
    [0.7635]
    """
    settings = _settings_iv(method, n, bandwidth, adjust, kernel, distributions)
    request, ingested = open_data("smooth_roc", data_or_formula, data, outcome, score, by, positive=positive,
                                  missing=missing, negative=negative, direction=direction,
                                  unused_levels=unused_levels, stacklevel=2)
    result = SmoothRocResult(ties=ingested.ties, keys=ingested.keys, by=ingested.key_columns, notes=ingested.notes,
                             frame_kind=ingested.kind, outcome=ingested.spec.outcome, score=ingested.spec.score,
                             settings=settings, request=request, directions=ingested.directions)
    unsmoothable = np.flatnonzero(result.smoothed.reason >= 2)
    if unsmoothable.size:
        warnings.warn(f"{unsmoothable.size} group{'s' * (unsmoothable.size != 1)} cannot be smoothed by "
                      f"method={settings.method!r}; their estimate is NaN: "
                      f"{REASONS[int(result.smoothed.reason[unsmoothable[0]])]}", DegenerateGroupWarning,
                      stacklevel=2)
    return result


@attrs.frozen(eq=False, repr=False)
class SmoothRocResult(TabularResult, GroupedResult):
    """Smoothed ROC curves and their areas, one per group (made by :func:`smooth_roc`; keeps the tie tables)."""

    ties: TieTable
    keys: pl.DataFrame
    by: tuple[str, ...]
    notes: tuple
    frame_kind: Any
    outcome: str
    score: Any
    settings: SmoothSettings
    request: Any = attrs.field(default=None, kw_only=True)
    directions: dict = attrs.field(factory=dict, kw_only=True)
    smoothed: Smoothed = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "smoothed", self.settings.apply(self.ties, self._lower()))

    def _lower(self) -> np.ndarray:
        """Per group, True where the score was read ``direction="lower"`` (densities on the caller's scale)."""
        return direction_signs(self.direction, self.keys, self.score) < 0

    @property
    def method(self) -> str:
        return self.settings.method

    def _notes(self) -> list:
        reason = self.smoothed.reason
        return [self.notes[k] if k < len(self.notes) and self.notes[k] else
                (REASONS[int(reason[k])] if reason[k] else None) for k in range(self.n_groups)]

    # ---------------------------------------------------------------- frames
    def to_polars(self) -> pl.DataFrame:
        """The frame of :meth:`to_frame` as a polars DataFrame."""
        s = self.smoothed
        points = s.sensitivity.shape[1]
        groups = np.repeat(np.arange(self.n_groups), points)
        body = pl.DataFrame({"method": [self.method] * groups.size, "threshold": s.threshold.ravel(),
                             "specificity": s.specificity.ravel(), "sensitivity": s.sensitivity.ravel()})
        return self.with_keys(body, groups)

    def to_frame(self):
        """The smoothed curves, ``n + 2`` points per group by increasing specificity, in the caller's frame type.

        Columns: group keys, ``method``, ``threshold`` (density and fitdistr:
        the grid score at which the point is read, on the caller's scale,
        a case called positive at or above it, at or below it for
        ``direction="lower"``; NaN for the binormal curve; infinite at the
        end points), ``specificity``, ``sensitivity``. pROC's
        ``smooth(roc)$specificities`` and ``$sensitivities``.
        """
        return _frames.to_caller(self.to_polars(), self.frame_kind)

    def _areas_polars(self) -> pl.DataFrame:
        body = pl.DataFrame({"method": [self.method] * self.n_groups, "estimate": self.smoothed.auc,
                             "n_pos": self.n_pos.astype(np.int64), "n_neg": self.n_neg.astype(np.int64),
                             "note": pl.Series(self._notes(), dtype=pl.String)})
        return self.with_keys(body, np.arange(self.n_groups))

    def auc(self):
        """The area under each smoothed curve: group keys, ``method``, ``estimate``, ``n_pos``, ``n_neg``, ``note``.

        Binormal: :math:`\\Phi(a / \\sqrt{1 + b^2})`; density and fitdistr:
        the trapezoid rule over the ``n + 2`` points (pROC's ``auc()`` of a
        smoothed curve).
        """
        return _frames.to_caller(self._areas_polars(), self.frame_kind)

    @property
    def areas(self):
        """The frame of :meth:`auc`."""
        return self.auc()

    @property
    def parameters(self) -> dict:
        """Per group: the binormal ``intercept`` and ``slope``, the density ``bandwidth``, or the fitted parameters."""
        return dict(self.smoothed.parameters)

    # ---------------------------------------------------------------- interval
    def conf_int(self, level: float = 0.95, n_boot: int = SMOOTH_N_BOOT, rng: Any = None, *, seed: Any = None):
        """Stratified bootstrap percentile interval of each smoothed area (pROC's ``ci.auc`` of a smoothed curve).

        Each replicate resamples the positives and the negatives of a group
        with replacement (multinomial counts on its tie table), smooths the
        replicate's curve with the same arguments (a ``"nrd0"`` bandwidth is
        chosen again on the replicate) and takes its area; replicates that
        cannot be smoothed are left out (``n_failed``), as pROC does. The
        bounds are the type 7 quantiles of the areas at ``(1 - level) / 2``
        and ``(1 + level) / 2``.

        Parameters
        ----------
        level : float
            Confidence level, in (0, 1).
        n_boot : int
            Replicates per group (2000 as pROC's ``boot.n``).
        rng, seed : int, SeedSequence or Generator, optional
            The randomness (``seed`` is an alias); every group draws from its own stream.

        Returns
        -------
        frame
            Group keys, ``method``, ``estimate``, ``lower``, ``upper``,
            ``level``, ``n_boot``, ``n_failed``, ``note``.
        """
        level = _validate.level_iv(level)
        n_boot = _validate.n_boot_iv(n_boot)
        rng = _validate.rng_iv(rng, seed)
        valid = np.flatnonzero(self.smoothed.reason == 0)
        areas = np.full((self.n_groups, n_boot), np.nan)
        if valid.size:
            table, lower = self.ties.take(valid), self._lower()[valid]
            streams = Streams.for_keys(rng, self.keys[valid.tolist()], self.by, "smooth_roc")
            for chunk in replicate_chunks(table, n_boot, streams):
                values = self.settings.apply(chunk.table, lower[chunk.segment]).auc
                areas[valid[chunk.segment], chunk.replicate] = values
        failed = np.sum(np.isnan(areas), axis=1)
        alpha = (1 - level) / 2
        bounds = np.full((self.n_groups, 2), np.nan)
        some = failed < n_boot
        if some.any():
            bounds[some] = np.nanquantile(areas[some], [alpha, 1 - alpha], axis=1).T
        notes = self._notes()
        failed = np.where(self.smoothed.reason == 0, failed, 0)
        notes = [note if note or not failed[k] else f"{failed[k]} replicates could not be smoothed and were left out"
                 for k, note in enumerate(notes)]
        caveat = COVERAGE_CAVEATS.get(self.method)
        if caveat is not None:  # the method's interval aims at a smoothed area, not the population's
            notes = [f"{n}; {caveat}" if n else caveat for n in notes]
        body = pl.DataFrame({"method": [self.method] * self.n_groups, "estimate": self.smoothed.auc,
                             "lower": bounds[:, 0], "upper": bounds[:, 1], "level": [level] * self.n_groups,
                             "n_boot": [n_boot] * self.n_groups, "n_failed": failed.astype(np.int64),
                             "note": pl.Series(notes, dtype=pl.String)})
        return _frames.to_caller(self.with_keys(body, np.arange(self.n_groups)), self.frame_kind)

    # ---------------------------------------------------------------- display
    def _title(self) -> str:
        several = isinstance(self.score, tuple)
        groups = [c for c in self.by if not (several and c == "score")]
        scores = ", ".join(self.score) if several else self.score
        grouping = f", by {', '.join(groups)}" if groups else ""
        return (f"Smoothed ROC curve{'s' * several} ({self.method}) of {scores} for outcome {self.outcome}"
                f"{grouping}{direction_phrase(self.direction)}")

    def _shown(self, digits: int) -> pl.DataFrame:
        """The summary: one line per group, its smoothed area (the points are in ``to_frame()``)."""
        frame = self._areas_polars()
        return frame.drop("note") if frame["note"].null_count() == frame.height else frame

    def __repr__(self) -> str:
        return (f"SmoothRocResult(method={self.method!r}, by={list(self.by)}, groups={self.n_groups}, "
                f"n_pos={int(self.n_pos.sum())}, n_neg={int(self.n_neg.sum())})")
