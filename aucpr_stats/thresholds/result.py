"""The result of :func:`aucpr_stats.cutoffs`: one row per group and threshold."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .. import _frames
from ..report.cells import format_cell, level_text
from ..report.text import text_table
from ..results import GroupedResult, html_display
from ..ties import TieTable

__all__ = ["CUTOFF_COLUMNS", "CutoffResult"]

#: The columns of :meth:`CutoffResult.to_frame` after the group keys, in order.
CUTOFF_COLUMNS = (
    "criterion", "threshold", "tp", "fp", "tn", "fn",
    "sensitivity", "sensitivity_lower", "sensitivity_upper",
    "specificity", "specificity_lower", "specificity_upper",
    "ppv", "ppv_lower", "ppv_upper", "npv", "npv_lower", "npv_upper",
    "youden", "closest_topleft", "prevalence", "method", "level", "n_pos", "n_neg", "note",
)

_METHOD_LABELS = {"wilson": "Wilson", "clopper_pearson": "Clopper-Pearson"}


@attrs.frozen(eq=False, repr=False)
class CutoffResult(GroupedResult):
    """Sensitivity, specificity and predictive values at thresholds, per group.

    Returned by :func:`aucpr_stats.cutoffs`. ``.to_frame()`` gives one row per
    group and threshold (every tied best threshold has its own row);
    ``.summary()`` a text table with ``"estimate (lower–upper)"`` cells.

    Attributes
    ----------
    ties : TieTable
        One segment per group (scores as given, whatever the direction).
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
    options : dict
        ``threshold``, ``level``, ``method``, ``prevalence``, ``direction``, ``best_weights``.
    """

    ties: TieTable
    keys: pl.DataFrame
    by: tuple[str, ...]
    groups: np.ndarray
    body: pl.DataFrame = attrs.field(eq=False)
    frame_kind: str
    outcome: str
    score: Any
    options: dict = attrs.field(factory=dict)

    def to_polars(self) -> pl.DataFrame:
        """The frame of :meth:`to_frame` as a polars DataFrame."""
        frame = self.with_keys(self.body, self.groups)
        return frame.with_columns(pl.Series("n_missing", self.keys["n_missing"].to_numpy()[self.groups]))

    def to_frame(self):
        """One row per group and threshold, in the caller's frame type.

        Columns: the group keys, then ``criterion`` (``"youden"``,
        ``"closest_topleft"``, ``"value"`` for a given number, ``"all"``),
        ``threshold`` (a case is called positive when its score is ``>=`` it;
        ``<=`` with ``direction=">"``), the counts ``tp, fp, tn, fn``,
        ``sensitivity``, ``specificity``, ``ppv``, ``npv`` each with
        ``_lower`` and ``_upper``, ``youden`` (Se + Sp - 1),
        ``closest_topleft`` ((1 - Se)² + (1 - Sp)²), ``prevalence`` (the one
        the predictive values are at), ``method``, ``level``, ``n_pos``,
        ``n_neg``, ``note``, ``n_missing``.
        """
        return _frames.to_caller(self.to_polars(), self.frame_kind)

    @property
    def n_rows(self) -> int:
        """Number of rows (group and threshold pairs)."""
        return self.body.height

    def _title(self) -> str:
        several = isinstance(self.score, tuple)
        groups = [c for c in self.by if not (several and c == "score")]
        scores = ", ".join(self.score) if several else self.score
        grouping = f", by {', '.join(groups)}" if groups else ""
        method = _METHOD_LABELS[self.options["method"]]
        prevalence = self.options.get("prevalence")
        at = "observed prevalence" if prevalence is None else f"prevalence {prevalence:g}"
        return (f"Cut-offs of {scores} for outcome {self.outcome}{grouping} "
                f"({method} {level_text(self.options['level'])} intervals; PPV and NPV at {at})")

    def summary(self, digits: int = 3) -> str:
        """A text table: keys, criterion, threshold, counts and ``"estimate (lower–upper)"`` cells."""
        return f"{self._title()}\n{text_table(self._display(digits), digits=digits)}"

    def _display(self, digits: int) -> pl.DataFrame:
        frame = self.to_polars()
        cells = {
            name: [format_cell(e, lo, hi, digits=digits) for e, lo, hi in
                   zip(frame[name], frame[f"{name}_lower"], frame[f"{name}_upper"])]
            for name in ("sensitivity", "specificity", "ppv", "npv")
        }
        shown = frame.select([*self.by, "criterion", "threshold", "tp", "fp", "tn", "fn"]).with_columns(
            pl.Series(name, values, dtype=pl.String) for name, values in cells.items())
        if frame["note"].null_count() < frame.height:
            shown = shown.with_columns(frame["note"])
        return shown

    def _repr_html_(self) -> str:
        return html_display(self._title(), self._display(3))

    def __repr__(self) -> str:
        return (f"CutoffResult(threshold={self.options['threshold']!r}, by={list(self.by)}, groups={self.n_groups}, "
                f"rows={self.n_rows}, method={self.options['method']!r}, level={self.options['level']})")

    __str__ = summary
