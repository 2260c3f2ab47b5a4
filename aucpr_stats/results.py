"""Typed, immutable result objects that compute intervals on request.

Results keep the tie tables, so ``.conf_int()`` needs no raw data: the
scipy.stats pattern of small result objects with methods (STYLE.md, item 1).
Frames come back in the caller's type (pandas in, pandas out).
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import attrs
import numpy as np
import polars as pl

from . import _frames
from .compare.heterogeneity import heterogeneity
from .pooling.meta import meta
from .exceptions import InputError
from .grouped import GroupedResult
from . import _validate
from .intervals import conf_int_frame
from .intervals.calibration_band import curve_band
from .plot.calibration import CalibrationCurve
from .report.ard import result_ard
from .report.display import direction_phrase, html_display
from .report.publication import publication_table
from .report.text import text_table
from .ties import TieTable

__all__ = ["EstimateResult", "AucprResult", "AurocResult", "CalibrationResult"]


@attrs.frozen(eq=False, repr=False)
class EstimateResult(GroupedResult):
    """Per-group point estimates of one metric, with the tie tables behind them.

    Attributes
    ----------
    ties : TieTable
        One segment per group, in the row order of ``keys``.
    keys : polars.DataFrame
        Group key columns (``by`` order) and ``n_missing``.
    by : tuple of str
        Grouping columns (empty when ungrouped).
    estimators : tuple of str
        Estimator names, one column of ``estimates`` each.
    estimates : ndarray, shape (n_groups, n_estimators)
        NaN for groups without both classes.
    notes : tuple
        Per group, why the estimate is NaN (``"no positives"`` ...), or None.
    frame_kind : {"pandas", "polars"}
        The caller's frame type; frames are returned in it.
    outcome : str
        Outcome column name, for labels.
    score : str or tuple of str
        Score column name; a tuple when several scores were given (then
        ``by`` ends with the ``score`` key column).
    request : Request, optional
        The call's checked data arguments (:class:`~aucpr_stats.request.Request`):
        its design (weights, clusters, folds, a stated prevalence), ``ties=``,
        the outcome's levels. None for a result built from tables by hand.
    directions : dict
        The direction each score was read in (``direction=``; ``"auto"`` resolved).
    records : tuple of Estimator
        The registry records of ``estimators``, as chosen when estimating
        (under ``ties=``, at a stated prevalence, over a partial area's
        window): :meth:`estimator_records`.
    """

    metric: ClassVar[str] = "estimate"
    metric_label: ClassVar[str] = "Estimate"

    ties: TieTable
    keys: pl.DataFrame
    by: tuple[str, ...]
    estimators: tuple[str, ...]
    estimates: np.ndarray
    notes: tuple
    frame_kind: str
    outcome: str
    score: str
    records: tuple = attrs.field(kw_only=True, converter=tuple)
    request: Any = attrs.field(default=None, kw_only=True)
    directions: dict = attrs.field(factory=dict, kw_only=True)
    #: With ``cluster=``: tie tables per (group, cluster) (:class:`aucpr_stats.ingest.FoldTables`), else None.
    clusters: Any = attrs.field(default=None, kw_only=True)
    #: With ``weights=``: the rows per (score, weight) cell (:class:`aucpr_stats.ingest.weights.WeightedCells`).
    weighted_cells: Any = attrs.field(default=None, kw_only=True)
    #: With ``weights=``: rows and weights per group and class (:class:`aucpr_stats.ingest.weights.WeightSums`).
    weight_sums: Any = attrs.field(default=None, kw_only=True)

    @property
    def n_pos(self) -> np.ndarray:
        """Positives per group: rows (with ``weights=`` too; their total weight is in ``ties.n_pos``)."""
        return self.ties.n_pos if self.weight_sums is None else self.weight_sums.rows_pos

    @property
    def n_neg(self) -> np.ndarray:
        """Negatives per group: rows (with ``weights=`` too)."""
        return self.ties.n_neg if self.weight_sums is None else self.weight_sums.rows_neg

    @property
    def prevalence(self) -> np.ndarray:
        """Proportion of positives per group, weighted with ``weights=`` (NaN for an empty group)."""
        pos, neg = self.ties.n_pos, self.ties.n_neg
        total = pos + neg
        return np.divide(pos, total, out=np.full(total.shape, np.nan), where=total > 0)

    @property
    def effective_n_pos(self) -> np.ndarray:
        """The count closed-form intervals use: positives, or their Kish effective number with ``weights=``."""
        return self.n_pos if self.weight_sums is None else self.weight_sums.effective_pos

    @property
    def effective_n_neg(self) -> np.ndarray:
        """Negatives, or their Kish effective number with ``weights=``."""
        return self.n_neg if self.weight_sums is None else self.weight_sums.effective_neg

    def __attrs_post_init__(self) -> None:
        names = tuple(record.name for record in self.records)
        if names != tuple(self.estimators):
            raise InputError(f"`records` must be the records of the estimators {list(self.estimators)}; got the "
                             f"records of {list(names)}")

    def estimator_records(self) -> list:
        """The registry records of the result's estimators, as chosen when estimating (:attr:`records`)."""
        return list(self.records)

    @property
    def estimate(self) -> float:
        """The estimate as a float, for an ungrouped result with one estimator."""
        if self.by:
            raise AttributeError(
                f"`.estimate` is defined for ungrouped results; this one is grouped by {list(self.by)}: "
                "use `.to_frame()`"
            )
        if len(self.estimators) != 1:
            raise AttributeError(
                f"`.estimate` needs a single estimator; this result has {list(self.estimators)}: "
                "use `.to_frame()`"
            )
        return float(self.estimates[0, 0])

    def estimate_notes(self) -> np.ndarray:
        """(groups, estimators) notes of the estimates: the group's own (no rows, one class), else why a NaN
        estimate is undefined (its record's ``undefined``), else None."""
        notes = np.full(self.estimates.shape, None, dtype=object)
        reasons = np.array([record.undefined or "no estimate" for record in self.records], dtype=object)
        undefined = np.isnan(self.estimates)
        notes[undefined] = np.broadcast_to(reasons, notes.shape)[undefined]
        group_notes = np.asarray(self.notes, dtype=object)
        degenerate = np.flatnonzero([note is not None for note in self.notes])
        notes[degenerate] = group_notes[degenerate, None]
        return notes

    # ------------------------------------------------------------ frames
    def _long_index(self) -> tuple[np.ndarray, np.ndarray]:
        """(group index, estimator index) of each long-format row, group-major."""
        n_est = len(self.estimators)
        groups = np.repeat(np.arange(self.n_groups), n_est)
        ests = np.tile(np.arange(n_est), self.n_groups)
        return groups, ests

    def _frame_polars(self) -> pl.DataFrame:
        groups, ests = self._long_index()
        body = pl.DataFrame(
            {
                "estimator": np.asarray(self.estimators, dtype=object)[ests].tolist(),
                "estimate": self.estimates[groups, ests],
                "n_pos": self.n_pos[groups],
                "n_neg": self.n_neg[groups],
                "prevalence": self.prevalence[groups],
                **self._stated_prevalence(groups.size),
                "note": pl.Series(self.estimate_notes()[groups, ests].tolist(), dtype=pl.String),
                "n_missing": self.keys["n_missing"].to_numpy()[groups],
            }
        )
        return self.with_keys(body, groups)

    def _stated_prevalence(self, n_rows: int) -> dict:
        """A ``stated_prevalence`` column when the estimates are at a stated population prevalence."""
        stated = self.stated_prevalence
        return {} if stated is None else {"stated_prevalence": np.full(n_rows, float(stated))}

    def to_polars(self) -> pl.DataFrame:
        """The frame of :meth:`to_frame` as a polars DataFrame, whatever the caller's frame type."""
        return self._frame_polars()

    def to_frame(self):
        """One row per group and estimator, in the caller's frame type.

        Columns: the group keys (in ``by`` order), ``estimator``, ``estimate``,
        ``n_pos``, ``n_neg``, ``prevalence`` (of the sample), ``stated_prevalence``
        (with ``prevalence=``: the population prevalence the estimates are
        computed at), ``note`` (why an estimate is NaN),
        ``n_missing`` (rows dropped for missing values with ``missing="drop"``).
        """
        return _frames.to_caller(self._frame_polars(), self.frame_kind)

    def summary(self, digits: int = 4) -> str:
        """A readable text table of the estimates, with a title line."""
        frame = self._frame_polars()
        if frame["n_missing"].sum() == 0:
            frame = frame.drop("n_missing")
        if frame["note"].null_count() == frame.height:
            frame = frame.drop("note")
        return f"{self._title()}\n{text_table(frame, digits=digits)}"

    def _title(self) -> str:
        """The summary's heading, in words: "AUCPR of s1, s2 for outcome y, by site"."""
        several = isinstance(self.score, tuple)  # several scores: a `score` key column
        groups = [c for c in self.by if not (several and c == "score")]
        grouping = f", by {', '.join(groups)}" if groups else ""
        scores = ", ".join(self.score) if several else self.score
        stated = self.stated_prevalence
        at = "" if stated is None else f", at a stated prevalence of {stated:g}"
        return (f"{self.metric_label} of {scores} for outcome {self.outcome}{grouping}{at}"
                f"{self._direction_text()}")

    def _direction_text(self) -> str:
        """``"; lower scores predict the positive outcome"`` when a score was read reversed (``direction=``)."""
        return direction_phrase(self.direction)

    def _repr_html_(self) -> str:
        """The notebook display: the heading and the table of estimates."""
        return html_display(self._title(), self._frame_polars())

    def table(self, *others: "EstimateResult", **options: Any):
        """A publication table of this result (and ``others``, e.g. an AUROC result).

        One row per group with counts of positives and negatives and
        ``"estimate (lower–upper)"`` cells; see
        :func:`aucpr_stats.report.publication_table` for the options
        (``method=``, ``level=``, ``digits=``, ``labels=`` ...).
        """
        return publication_table([self, *others], **options)

    def __repr__(self) -> str:
        name = type(self).__name__
        if not self.by and len(self.estimators) == 1:
            return (
                f"{name}({self.estimators[0]}={self.estimates[0, 0]:.4f}, "
                f"n_pos={int(self.n_pos[0])}, n_neg={int(self.n_neg[0])})"
            )
        return (f"{name}(estimators={list(self.estimators)}, by={list(self.by)}, groups={self.n_groups}, "
                f"{self._counts_repr()})")

    def _counts_repr(self) -> str:
        """Rows counted once: with several scores the counts are per score (the rows are the same rows)."""
        if "score" not in self.by:
            return f"n_pos={int(self.n_pos.sum())}, n_neg={int(self.n_neg.sum())}"
        score = self.keys["score"].to_numpy()
        per = {s: (int(self.n_pos[score == s].sum()), int(self.n_neg[score == s].sum()))
               for s in dict.fromkeys(score.tolist())}
        if len(set(per.values())) == 1:
            n_pos, n_neg = next(iter(per.values()))
            return f"n_pos={n_pos}, n_neg={n_neg} (each of {len(per)} scores)"
        return ", ".join(f"{s}: n_pos={p}, n_neg={q}" for s, (p, q) in per.items())

    def conf_int(self, method: str | Sequence[str] | None = None, level: float = 0.95, **options: Any):
        """Confidence intervals for every group and estimator.

        Parameters
        ----------
        method : str, list of str or "all", optional
            AUCPR: ``"logit"`` (default; Boyd et al. 2013 found it valid and
            it stays in [0, 1]), ``"binomial"``, ``"wilson"``, ``"bootstrap"``,
            ``"cross_validation"``, ``"per_positive"``. AUROC: ``"delong"``
            (default), ``"logit"``, ``"hanley_mcneil"``, ``"newcombe"``,
            ``"bootstrap"``.
        level : float
            Confidence level.
        **options
            ``n_boot``, ``rng`` (or its alias ``seed``), ``chunk_size``
            (bootstrap); ``folds`` (10, or ``"column"``), ``rng``
            (``seed``), ``quantile``, ``return_folds`` (cross-validation);
            ``progress`` (any method: None shows a bar on a terminal for
            work longer than 2 seconds, True always, False never). A method
            object carries its own: ``method=Bootstrap(n_boot=200, rng=1)``
            (:mod:`aucpr_stats.intervals.options`).

        Returns
        -------
        frame
            The caller's frame type, one row per group, estimator and method:
            keys, ``estimator``, ``estimate``, ``method``, ``level``,
            ``lower``, ``upper``, ``se``, method columns, ``n_pos``, ``n_neg``,
            ``note``. At the edges the ``note`` says what was done: one
            positive gives NaN; an estimate of 0 or 1, a standard error of 0
            or a zero-width interval gets the score interval (Wilson for
            AUCPR, Newcombe for AUROC); a bound outside [0, 1] is truncated;
            a method used below the number of positives it needs to keep its
            coverage is flagged (``docs/validation.md``). See
            :func:`aucpr_stats.intervals.conf_int`.

        Warns
        -----
        SmallSampleWarning
            Once per call, when some rows use a method below its minimum
            number of positives (its record's ``min_positives``, :data:`aucpr_stats.intervals.INTERVAL_METHODS`).
        """
        out = self.conf_int_polars(method=method, level=level, **options)
        if isinstance(out, tuple):
            return tuple(_frames.to_caller(frame, self.frame_kind) for frame in out)
        return _frames.to_caller(out, self.frame_kind)

    def conf_int_polars(self, method: str | Sequence[str] | None = None, level: float = 0.95, **options: Any):
        """:meth:`conf_int` as polars DataFrames, whatever the caller's frame type."""
        frame, folds = conf_int_frame(self, method, level, **options)
        return frame if folds is None else (frame, folds)

    __str__ = summary

    def to_ard(self, method: str | None = None, level: float = 0.95, **options: Any) -> pl.DataFrame:
        """Long {cards} ARD of :meth:`to_polars`, or with ``method=`` of :meth:`conf_int_polars` (report/ard.py)."""
        return result_ard(self, method=method, level=level, **options)

    def heterogeneity(self, method: str | None = None, *, scale: str | None = None, across: Any = None,
                      **options: Any):
        """Test that the area is the same in every subgroup, with I².

        ``method``: where the variances come from. AUROC: ``"delong"`` (the
        default; Obuchowski's with ``cluster=``), ``"logit"`` or
        ``"bootstrap"``, Cochran's Q against chi-square with k - 1 df. AUCPR:
        ``"jackknife"`` (the default: leave-one-out variances per positive
        pooled over groups on the logit scale, Q/(k - 1) against an F
        distribution; it holds its size where the others do not), ``"logit"``
        or ``"bootstrap"``; with ``weights=`` the default is ``"logit"`` and
        with ``cluster=`` the (cluster) ``"bootstrap"``. ``across``: the
        grouping columns compared (default all); ``**options``: ``n_boot``,
        ``seed``, ``progress`` for the bootstrap, ``pooled``, ``max_units``,
        ``seed`` for the jackknife. One row per score and estimator. See
        :func:`aucpr_stats.compare.heterogeneity.heterogeneity`.

        Returns
        -------
        HeterogeneityResult
            ``.statistic``, ``.df``, ``.p_value`` (one test), ``.to_frame()``,
            ``.groups_frame()`` (the groups used and left out, with why).
        """
        return heterogeneity(self, method, scale=scale, across=across, **options)

    def meta(self, method: str = "REML", *, ci: str = "hksj", prediction_interval: bool = True, level: float = 0.95,
             variance: str | None = None, scale: str | None = None, across: Any = None, **options: Any):
        """Random-effects meta-analysis across the sites (the groups): pooled value, tau², I², prediction interval.

        ``method``: ``"REML"`` (default), ``"DL"`` or ``"PM"`` for tau²;
        ``ci``: ``"hksj"`` (Hartung-Knapp-Sidik-Jonkman, default), ``"hksj_adhoc"``
        or ``"wald"``; ``variance``: where each site's variance comes from (as
        ``heterogeneity``'s ``method``); ``scale``: the pooling scale (logit for
        areas by default). See :func:`aucpr_stats.pooling.meta.meta` and
        ``docs/pooling.md``.

        Returns
        -------
        MetaResult
            ``.to_frame()`` (one row per analysis), ``.sites_frame()``,
            ``.leave_one_out()``, ``.plot()`` (forest plot with the pooled
            diamond and the prediction interval).
        """
        return meta(self, method, ci=ci, prediction_interval=prediction_interval, level=level, variance=variance,
                    scale=scale, across=across, **options)


@attrs.frozen(eq=False, repr=False)
class AucprResult(EstimateResult):
    """Area under the precision-recall curve per group and estimator.

    Returned by :func:`aucpr_stats.aucpr`. Use ``.to_frame()`` for the table,
    ``.summary()`` for text, ``.estimate`` for an ungrouped single estimate,
    and ``.conf_int(method=...)`` for confidence intervals.
    """

    metric: ClassVar[str] = "aucpr"
    metric_label: ClassVar[str] = "AUCPR"

    #: Tie tables per (group, fold) when ``aucpr(..., fold=)`` named a fold
    #: column (:class:`aucpr_stats.ingest.FoldTables`), else None.
    folds: Any = attrs.field(default=None, kw_only=True)


@attrs.frozen(eq=False, repr=False)
class AurocResult(EstimateResult):
    """Area under the ROC curve (A', ties counted one half) per group.

    Returned by :func:`aucpr_stats.auroc`. Use ``.to_frame()`` for the table,
    ``.summary()`` for text, ``.estimate`` for an ungrouped single estimate,
    and ``.conf_int(method=...)`` for confidence intervals (``"delong"``,
    ``"logit"``, ``"hanley_mcneil"``, ``"bootstrap"``).
    """

    metric: ClassVar[str] = "auroc"
    metric_label: ClassVar[str] = "AUROC"


@attrs.frozen(eq=False, repr=False)
class CalibrationResult(EstimateResult):
    """Calibration statistics of predicted probabilities per group (the ``estimator`` column names the statistic).

    Returned by :func:`aucpr_stats.calibration`: observed/expected,
    calibration-in-the-large, slope and joint intercept, Brier and scaled
    Brier, ICI/E50/E90/Emax of a flexible calibration curve, Spiegelhalter's
    z and p (:data:`aucpr_stats.estimators.registry.CALIBRATION_STATISTICS`).
    ``.conf_int(method=...)``: ``"wald"`` (default), ``"profile"``,
    ``"bootstrap"``; ``.heterogeneity()`` tests that a statistic is the same
    in every subgroup.
    """

    metric: ClassVar[str] = "calibration"
    metric_label: ClassVar[str] = "Calibration"

    #: Rows per group with a predicted probability of exactly 0 or 1 (left out of the logit-scale fits).
    extreme_rows: Any = attrs.field(default=None, kw_only=True)
    #: Knots of the flexible calibration curve.
    knots: int = attrs.field(default=4, kw_only=True)

    def remarks(self) -> np.ndarray:
        """(groups, statistics): on the logit-scale statistics of a group holding predictions of exactly 0 or 1,
        how many were left out of the fit (None elsewhere). Joined to the ``note`` of every frame."""
        remarks = np.full(self.estimates.shape, None, dtype=object)
        if self.extreme_rows is None or not np.any(self.extreme_rows):
            return remarks
        logit_scale = np.array([name in _LOGIT_SCALE for name in self.estimators])
        for g in np.flatnonzero(self.extreme_rows > 0):
            count = self.extreme_rows[g]
            remarks[g, logit_scale] = (f"{count:g} row{'s' * bool(count != 1)} with a prediction of exactly 0 or 1 "
                                       "left out of this logit-scale fit (infinite logit)")
        return remarks

    def _frame_polars(self) -> pl.DataFrame:
        frame = super()._frame_polars()
        return _with_remarks(frame, self.remarks().ravel())

    def conf_int_polars(self, method: str | Sequence[str] | None = None, level: float = 0.95, **options: Any):
        """:meth:`conf_int` as polars DataFrames, the remarks on predictions of 0 or 1 joined to ``note``."""
        out = super().conf_int_polars(method=method, level=level, **options)
        frame = out[0] if isinstance(out, tuple) else out
        remarks = self.remarks().ravel()
        per_row = frame.height // max(remarks.size, 1)  # rows are group-major, then statistic, then method
        frame = _with_remarks(frame, np.repeat(remarks, per_row))
        return (frame, *out[1:]) if isinstance(out, tuple) else frame

    def curve(self, n_points: int = 101, level: float = 0.95):
        """The flexible calibration curve of every group on a grid of predicted risks, with its bands.

        The restricted cubic spline logistic fit behind ICI/E50/E90/Emax
        (``knots=`` of the call), read at ``n_points`` risks from each group's
        smallest to its largest prediction, with a pointwise and a
        simultaneous (Scheffé) band at ``level``
        (:mod:`aucpr_stats.intervals.calibration_band`); ``.plot()`` draws
        it with the distribution of predicted risks beneath.

        Returns
        -------
        CalibrationCurve
            ``.to_frame()``, ``.plot()``.
        """
        n_points = _validate.integer_iv(n_points, "n_points", minimum=2)
        level = _validate.level_iv(level)
        banded = self.design.kind == "rows" and self.stated_prevalence is None
        band = curve_band(self.ties, self.knots, n_points, level, self.stated_prevalence, bands=banded,
                          weighted=self.weight_sums is not None)
        groups = np.repeat(np.arange(self.n_groups), n_points)
        note = None if banded else ("no band with weights=, cluster= or prevalence=: the inverse information is "
                                    "not the estimator's variance there")
        notes = np.array([note] * groups.size, dtype=object)
        for g, reason in enumerate(self.notes):
            if reason is not None:
                notes[groups == g] = reason
        body = pl.DataFrame({
            "risk": band.risk.ravel(), "calibrated": band.calibrated.ravel(),
            "lower": band.pointwise[0].ravel(), "upper": band.pointwise[1].ravel(),
            "lower_simultaneous": band.simultaneous[0].ravel(), "upper_simultaneous": band.simultaneous[1].ravel(),
            "level": np.full(groups.size, level), "note": pl.Series(notes.tolist(), dtype=pl.String)})
        return CalibrationCurve(self.with_keys(body, groups), self)


def _with_remarks(frame: pl.DataFrame, remarks: np.ndarray) -> pl.DataFrame:
    """``frame`` with each row's remark (or None) joined to its ``note`` by "; "."""
    if not any(r is not None for r in remarks):
        return frame
    remark = pl.Series("__remark", remarks.tolist(), dtype=pl.String)
    joined = (pl.when(pl.col("note").is_null()).then(remark)
              .when(remark.is_null()).then(pl.col("note"))
              .otherwise(pl.concat_str([pl.col("note"), pl.lit("; "), remark])))
    return frame.with_columns(joined.alias("note"))


#: The statistics fitted on the logit of the predictions (rows at 0 or 1 left out).
_LOGIT_SCALE = ("citl", "slope", "intercept", "ici", "e50", "e90", "emax")
