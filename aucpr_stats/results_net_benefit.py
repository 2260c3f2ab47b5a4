"""The result of :func:`aucpr_stats.net_benefit`: net benefit per group, score, statistic and threshold."""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import attrs
import numpy as np
import polars as pl

from . import _frames, _validate
from .estimators.net_benefit import references
from .intervals.net_benefit_band import simultaneous_band
from .plot.decision_curve import DecisionCurve
from .results import EstimateResult

__all__ = ["NetBenefitResult"]


@attrs.frozen(eq=False, repr=False)
class NetBenefitResult(EstimateResult):
    """Net benefit of predicted risks at thresholds, per group (decision curve analysis).

    Returned by :func:`aucpr_stats.net_benefit`. Frames have one row per
    group, statistic (``estimator``) and ``threshold``, with the reference
    strategies ``treat_all`` and ``treat_none`` at that threshold.
    ``.conf_int(method=...)``: ``"wald"`` (default; the exact linearisation)
    or ``"bootstrap"``; ``.band()`` adds a simultaneous band over a range of
    thresholds; ``.plot()`` draws the decision curves; ``.heterogeneity()``
    tests that net benefit at each threshold is the same in every subgroup.
    """

    metric: ClassVar[str] = "net_benefit"
    metric_label: ClassVar[str] = "Net benefit"

    #: ``"opt-in"`` or ``"opt-out"``.
    policy: str = attrs.field(default="opt-in", kw_only=True)
    #: The harm of the test, subtracted from every net benefit (``harm=``; one value per score in ``harms``).
    harm: float = attrs.field(default=0.0, kw_only=True)

    @property
    def thresholds(self) -> np.ndarray:
        """The distinct thresholds, ascending."""
        return np.unique([record.threshold for record in self.records])

    def _references(self) -> tuple[np.ndarray, np.ndarray]:
        """(treat all, treat none) of every group at every record's threshold: (groups, records) each."""
        thresholds = np.array([record.threshold for record in self.records], dtype=np.float64)
        return references(self.ties.n_pos, self.ties.n_neg, thresholds, self.policy, self.stated_prevalence)

    def _split(self, frame: pl.DataFrame, per_record: int = 1) -> pl.DataFrame:
        """``estimator`` ``"net_benefit@0.1"`` as ``estimator`` ``"net_benefit"`` and ``threshold`` 0.1, with the
        references. Rows are group-major, then record, then ``per_record`` rows (methods) each."""
        n_records = len(self.records)
        record = np.tile(np.repeat(np.arange(n_records), per_record), self.n_groups)
        statistic = np.array([r.statistic for r in self.records], dtype=object)[record]
        threshold = np.array([r.threshold for r in self.records], dtype=np.float64)[record]
        treat_all, treat_none = self._references()
        at = np.repeat(np.arange(treat_all.size), per_record)
        position = frame.columns.index("estimator")
        frame = frame.with_columns(pl.Series("estimator", statistic, dtype=pl.String))
        frame = frame.insert_column(position + 1, pl.Series("threshold", threshold))
        after = frame.columns.index("estimate") + 1
        return frame.insert_column(after, pl.Series("treat_all", treat_all.ravel()[at])).insert_column(
            after + 1, pl.Series("treat_none", treat_none.ravel()[at]))

    def _frame_polars(self) -> pl.DataFrame:
        return self._split(super()._frame_polars())

    def to_frame(self):
        """One row per group, statistic and threshold, in the caller's frame type.

        Columns: the group keys, ``estimator`` (the statistic), ``threshold``,
        ``estimate``, ``treat_all`` and ``treat_none`` (the net benefit of the
        reference strategies at that threshold, under the result's policy;
        for the standardised net benefit and interventions avoided they are
        the net benefit all the same), ``n_pos``, ``n_neg``, ``prevalence``,
        ``stated_prevalence`` (with ``prevalence=``), ``note``, ``n_missing``.
        """
        return _frames.to_caller(self._frame_polars(), self.frame_kind)

    def conf_int_polars(self, method: str | Sequence[str] | None = None, level: float = 0.95, **options: Any):
        """:meth:`conf_int` as polars DataFrames, with the ``threshold`` column."""
        out = super().conf_int_polars(method=method, level=level, **options)
        frame = out[0] if isinstance(out, tuple) else out
        per_record = frame.height // max(self.estimates.size, 1)
        frame = self._split(frame, per_record)
        return (frame, *out[1:]) if isinstance(out, tuple) else frame

    def band(self, low: float | None = None, high: float | None = None, level: float = 0.95, *,
             statistic: str = "net_benefit", n_draws: int = 100_000, rng: Any = None, seed: Any = None):
        """Pointwise Wald intervals and a simultaneous (sup-t) band over the thresholds from ``low`` to ``high``.

        The band holds at every threshold of the range at once with
        probability ``level``: the Wald intervals widened by the ``level``
        quantile of the largest absolute coordinate of a normal vector with
        the correlation of the estimates across thresholds (from counts,
        :mod:`aucpr_stats.intervals.net_benefit_band`), drawn ``n_draws``
        times with ``rng`` (alias ``seed``).

        Returns
        -------
        frame
            The rows of ``statistic`` within the range: keys, ``threshold``,
            ``estimate``, ``se``, ``lower``, ``upper`` (pointwise),
            ``lower_band``, ``upper_band``, ``critical`` (the sup-t quantile,
            per group), ``level``, ``note``.
        """
        frame = simultaneous_band(self, low, high, _validate.level_iv(level), statistic=statistic,
                                  n_draws=_validate.integer_iv(n_draws, "n_draws", minimum=1000),
                                  rng=_validate.rng_iv(rng, seed))
        return _frames.to_caller(frame, self.frame_kind)

    def plot(self, ax=None, *, band: bool = True, level: float = 0.95, **options: Any):
        """The decision curves: net benefit against threshold per score, with treat all and treat none.

        One panel per group (``by=``), every score of a group in its panel;
        pointwise Wald bands (``band=True``); the y-axis clipped below at
        ``-0.05`` or at the lowest curve within the thresholds where a model
        beats treating none, as dcurves does. See
        :class:`aucpr_stats.plot.decision_curve.DecisionCurve`.
        """
        return DecisionCurve.of(self, level=level if band else None).plot(ax=ax, **options)

    def curve(self, level: float | None = 0.95) -> DecisionCurve:
        """The decision curves as data: ``.to_frame()``, ``.plot()``
        (:class:`~aucpr_stats.plot.decision_curve.DecisionCurve`)."""
        return DecisionCurve.of(self, level=level)
