"""The result of :func:`aucpr_stats.cutoffs`: one row per group and threshold, intervals on request."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames, _validate
from ..exceptions import InputError
from ..report.cells import format_cell, level_text
from ..report.display import TabularResult, direction_phrase
from ..report.table import PublicationTable
from ..grouped import GroupedResult
from ..ties import TieTable
from .bootstrap import ThresholdBootstrap, bootstrap_thresholds
from .measures import MEASURES, PREVALENCE_METHOD, CutoffCounts, long_frame, methods_iv

__all__ = ["CUTOFF_COLUMNS", "CutoffResult"]

#: The columns of :meth:`CutoffResult.to_frame` after the group keys, in order (``n_missing`` last).
CUTOFF_COLUMNS = (
    "criterion", "threshold", "direction", "tp", "fp", "tn", "fn",
    "sensitivity", "specificity", "ppv", "npv",
    "youden", "closest_topleft", "prevalence", "n_pos", "n_neg", "note",
)

_METHOD_LABELS = {"wilson": "Wilson", "clopper_pearson": "Clopper-Pearson", PREVALENCE_METHOD: "logit"}
_MEASURE_LABELS = {"sensitivity": "Sensitivity", "specificity": "Specificity", "ppv": "PPV", "npv": "NPV"}


@attrs.frozen
class CutoffSettings:
    """The cut-off call's own arguments, checked: what ``conf_int()``, ``summary()`` and ``table()`` default to.

    Attributes
    ----------
    threshold : tuple
        The thresholds asked for (criteria and numbers), in order.
    level : float
    method : {"wilson", "clopper_pearson"}
    prevalence : float or None
        The prevalence PPV and NPV are reported at (None: the observed one).
    best_weights : (float, float)
        pROC's ``best.weights`` (cost, prevalence).
    """

    threshold: Any
    level: float
    method: str
    prevalence: float | None
    best_weights: tuple

    def as_dict(self) -> dict:
        return attrs.asdict(self, recurse=False)


@attrs.frozen(eq=False, repr=False)
class CutoffResult(TabularResult, GroupedResult):
    """Sensitivity, specificity and predictive values at thresholds, per group.

    Returned by :func:`aucpr_stats.cutoffs`. ``.to_frame()`` gives one row per
    group and threshold (every tied best threshold has its own row) with the
    counts and the point values; ``.conf_int(method=, level=)`` their
    intervals in the library's long shape (one row per group, threshold and
    measure, with ``lower`` and ``upper``); ``.summary()`` and ``.table()``
    show ``"estimate (lower–upper)"`` cells.

    Attributes
    ----------
    ties : TieTable
        One segment per group (a score read ``direction="lower"`` negated).
    keys : polars.DataFrame
        Group key columns and ``n_missing``.
    by : tuple of str
        Key columns (empty when ungrouped).
    groups : ndarray of int64
        The group (row of ``keys``) of each row of ``body``.
    body : polars.DataFrame
        The columns of :data:`CUTOFF_COLUMNS`, one row per group and threshold.
    frame_kind : {"pandas", "polars"}
    outcome : str
    score : str or tuple of str
    settings : CutoffSettings
        ``threshold``, ``level``, ``method``, ``prevalence``, ``best_weights``.
    request : Request, optional
        The call's checked data arguments (design, outcome levels).
    directions : dict
        The direction each score was read in (:attr:`direction`: ``"higher"``
        or ``"lower"``, a dict by score when ``"auto"`` read them different ways).
    counts : CutoffCounts
        What the intervals are computed from (:mod:`.measures`).
    """

    ties: TieTable
    keys: pl.DataFrame
    by: tuple[str, ...]
    groups: np.ndarray
    body: pl.DataFrame = attrs.field(eq=False)
    frame_kind: str
    outcome: str
    score: Any
    settings: CutoffSettings
    request: Any = attrs.field(default=None, kw_only=True)
    directions: dict = attrs.field(factory=dict, kw_only=True)
    counts: CutoffCounts | None = attrs.field(default=None, eq=False, kw_only=True)

    def to_polars(self) -> pl.DataFrame:
        """The frame of :meth:`to_frame` as a polars DataFrame."""
        frame = self.with_keys(self.body, self.groups)
        return frame.with_columns(pl.Series("n_missing", self.keys["n_missing"].to_numpy()[self.groups]))

    def to_frame(self):
        """One row per group and threshold, in the caller's frame type.

        Columns: the group keys, then ``criterion`` (``"youden"``,
        ``"closest_topleft"``, ``"value"`` for a given number, ``"all"``),
        ``threshold``, ``direction`` (``"higher"``: a case is called positive
        when its score is ``>= threshold``; ``"lower"``: ``<=``), the counts
        ``tp, fp, tn, fn``, ``sensitivity``, ``specificity``, ``ppv``,
        ``npv``, ``youden`` (Se + Sp - 1), ``closest_topleft``
        ((1 - Se)² + (1 - Sp)²), ``prevalence`` (the one the predictive
        values are at), ``n_pos``, ``n_neg``, ``note``, ``n_missing``. The
        intervals are in :meth:`conf_int`.
        """
        return _frames.to_caller(self.to_polars(), self.frame_kind)

    def conf_int_polars(self, method: str | Sequence[str] | None = None, level: float | None = None) -> pl.DataFrame:
        """:meth:`conf_int` as a polars DataFrame, whatever the caller's frame type."""
        methods = methods_iv(method, self.settings.method)
        level = self.settings.level if level is None else _validate.level_iv(level)
        keys = self.key_frame(self.groups) if self.by else None
        return long_frame(self.body, self.counts, methods, level, self.settings.prevalence, keys)

    def conf_int(self, method: str | Sequence[str] | None = None, level: float | None = None):
        """Intervals of sensitivity, specificity, PPV and NPV: one row per group, threshold, measure and method.

        Parameters
        ----------
        method : {"wilson", "clopper_pearson"}, list of them or "all", optional
            Default: the ``method=`` of the :func:`~aucpr_stats.cutoffs` call.
            PPV and NPV at a stated ``prevalence=`` always get the logit
            interval of Mercaldo et al. (2007) (``method`` reads ``"logit"``).
        level : float, optional
            Default: the ``level=`` of the call.

        Returns
        -------
        frame
            The caller's frame type: group keys, ``criterion``, ``threshold``,
            ``measure`` (``sensitivity``, ``specificity``, ``ppv``, ``npv``),
            ``estimate``, ``method``, ``level``, ``lower``, ``upper``,
            ``n_pos``, ``n_neg`` (of the group), ``note`` (the row's note, and
            a zero count given 0.5 for a logit interval).
        """
        return _frames.to_caller(self.conf_int_polars(method, level), self.frame_kind)

    @property
    def n_rows(self) -> int:
        """Number of rows (group and threshold pairs)."""
        return self.body.height

    def _title(self, method: str | None = None, level: float | None = None) -> str:
        several = isinstance(self.score, tuple)
        groups = [c for c in self.by if not (several and c == "score")]
        scores = ", ".join(self.score) if several else self.score
        grouping = f", by {', '.join(groups)}" if groups else ""
        method = _METHOD_LABELS[method or self.settings.method]
        level = self.settings.level if level is None else level
        prevalence = self.settings.prevalence
        at = "observed prevalence" if prevalence is None else f"prevalence {prevalence:g} (logit intervals)"
        direction = direction_phrase(self.direction)
        return (f"Cut-offs of {scores} for outcome {self.outcome}{grouping}{direction} "
                f"({method} {level_text(level)} intervals; PPV and NPV at {at})")

    def _cells(self, digits: int, method: str | None, level: float | None, sep: str = "\u2013") -> pl.DataFrame:
        """Keys, criterion, threshold, counts and one ``"estimate (lower–upper)"`` column per measure."""
        method = methods_iv(method, self.settings.method)
        if len(method) != 1:
            raise InputError(f"`method` must name one interval method for a table; got {list(method)}")
        long = self.conf_int_polars(method[0], level)
        k = len(MEASURES)
        cells = {name: [format_cell(e, lo, hi, digits=digits, sep=sep) for e, lo, hi in
                        zip(long["estimate"][j::k], long["lower"][j::k], long["upper"][j::k])]
                 for j, name in enumerate(MEASURES)}
        frame = self.to_polars()
        shown = frame.select([*self.by, "criterion", "threshold", "tp", "fp", "tn", "fn"]).with_columns(
            pl.Series(name, values, dtype=pl.String) for name, values in cells.items())
        if frame["note"].null_count() < frame.height:
            shown = shown.with_columns(frame["note"])
        return shown

    def _shown(self, digits: int) -> pl.DataFrame:
        return self._cells(digits, None, None)

    display_digits = 3

    def table(self, method: str | None = None, level: float | None = None, *, digits: int = 2,
              sep: str = "\u2013") -> PublicationTable:
        """A publication table: one row per group and threshold, ``"estimate (lower–upper)"`` cells per measure.

        ``method`` and ``level`` default to those of the call; ``digits`` and
        ``sep`` as in :func:`aucpr_stats.publication_table`. Render it with
        ``.to_markdown()``, ``.to_latex()``, ``.to_html()`` ...
        """
        level = self.settings.level if level is None else _validate.level_iv(level)
        digits = _validate.digits_iv(digits)
        cells = self._cells(digits, method, level, sep)
        ci = f" ({level_text(level)} CI)"
        labels = {"criterion": "Criterion", "threshold": "Threshold", "tp": "TP", "fp": "FP", "tn": "TN",
                  "fn": "FN", "note": "Note", **{m: _MEASURE_LABELS[m] + ci for m in MEASURES}}
        cells = cells.with_columns(pl.Series("threshold", [_threshold_text(t) for t in cells["threshold"]],
                                             dtype=pl.String))
        cells = cells.rename({c: labels.get(c, c) for c in cells.columns})
        numeric = ["Threshold", "TP", "FP", "TN", "FN", *(_MEASURE_LABELS[m] + ci for m in MEASURES)]
        note = self._title(method if isinstance(method, str) else None, level)
        return PublicationTable(cells=cells, key_columns=tuple(self.by), numeric_columns=tuple(numeric), note=note,
                                frame_kind=self.frame_kind)

    def bootstrap(self, n_boot: int = 2000, *, level: float | None = None, rng: Any = None, seed: Any = None,
                  ties: str = "random", progress: bool | None = None) -> ThresholdBootstrap:
        """Bootstrap intervals of the chosen thresholds and their sensitivity and specificity.

        pROC's ``ci.coords(roc, x="best", ret=c("threshold", "sensitivity",
        "specificity"))``: every stratified replicate chooses its own best
        threshold by this result's criterion and ``best_weights``, so the
        intervals include the uncertainty of the choice (the Wilson intervals
        of :meth:`conf_int` treat the threshold as fixed in advance). A
        threshold given as a number stays fixed (pROC's ``ci.thresholds``).
        See :mod:`aucpr_stats.thresholds.bootstrap`.

        Parameters
        ----------
        n_boot : int
            Replicates (pROC's ``boot.n``, 2000).
        level : float, optional
            Confidence level (default: the result's).
        rng : None, int, numpy Generator or SeedSequence
            The randomness (SPEC 7; ``seed`` is its alias): each group draws
            from its own stream, derived from ``rng`` and its key.
        ties : {"random", "omit"}
            A replicate whose best criterion is reached at several thresholds:
            one of them at random (pROC's ``best.policy="random"``) or the
            replicate left out.
        progress : bool, optional
            Show a progress bar (default: on a terminal for long runs).

        Returns
        -------
        ThresholdBootstrap
            One row per group, threshold and measure (``threshold``,
            ``sensitivity``, ``specificity``): ``estimate``, ``median``,
            ``lower``, ``upper``, ``n_used`` ...
        """
        return bootstrap_thresholds(self, n_boot=n_boot, level=level, rng=rng, seed=seed, ties=ties,
                                    progress=progress)

    def __repr__(self) -> str:
        return (f"CutoffResult(threshold={self.settings.threshold!r}, by={list(self.by)}, groups={self.n_groups}, "
                f"rows={self.n_rows}, method={self.settings.method!r}, level={self.settings.level})")


def _threshold_text(value: Any) -> str:
    """A threshold in a table: six significant digits (``"inf"`` where nobody or everybody is called positive)."""
    if value is None or value != value:  # noqa: PLR0124 (NaN test)
        return "NA"
    return f"{value:g}"
