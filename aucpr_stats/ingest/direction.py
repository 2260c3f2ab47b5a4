"""Which way a score points: ``direction="higher"``, ``"lower"`` or ``"auto"`` (pROC's rule).

Every statistic of the package reads a larger score as more likely positive.
``direction="lower"`` reads the score the other way round by negating it
(after its exact float64 cast, :mod:`.exact_scores`, so distinct scores stay
distinct and ties stay ties; ``-0.0`` is folded into ``0.0``). For AUROC this
gives ``1 - A'``; for AUCPR it puts the lowest scores at the top of the list.

``direction="auto"`` follows pROC's ``roc(direction="auto")`` (Robin et al.
2011): the score points up when the median score of the negatives is at most
the median of the positives (pROC's ``controls < cases``), down otherwise. It
is decided once per score column on all the rows whose outcome and score are
present, pooled over the groups, so that every subgroup reads the score the
same way (a subgroup where the model is worse than chance then shows an area
below one half, as it should, instead of being flipped on its own). Choosing
the direction from the data that are then scored biases the area upward (most
for small samples and areas near one half); pROC warns about the same. The
choice is reported in one :class:`DirectionWarning` and recorded in the
result's ``options["direction"]``.
"""

from __future__ import annotations

import warnings
from typing import Any

import polars as pl

from .._validate import ColumnSpec

__all__ = ["DirectionWarning", "score_directions", "warn_auto_direction"]


class DirectionWarning(UserWarning):
    """``direction="auto"`` chose which way a score points from the data it scores (the area is biased upward)."""


def score_directions(spec: ColumnSpec, lf: pl.LazyFrame, positive: pl.Expr, y_missing: pl.Expr,
                     s_missing: dict, as_float: dict, engine: str) -> dict[str, Any]:
    """The direction of each score column: ``"higher"`` or ``"lower"``; ``"auto"`` decided by the class medians.

    For ``"auto"`` the returned dict also holds, under ``"__medians"``, the
    (negative median, positive median) of each score, for the report.
    """
    if spec.direction != "auto":
        return {name: spec.direction for name in spec.scores}
    medians = lf.select(**{
        f"{kind}_{i}": as_float[name].filter(~(y_missing | s_missing[name]) & cls).median()
        for i, name in enumerate(spec.scores)
        for kind, cls in (("neg", ~positive.fill_null(False)), ("pos", positive.fill_null(False)))
    }).collect(engine=engine).row(0, named=True)
    out: dict[str, Any] = {}
    shown = {}
    for i, name in enumerate(spec.scores):
        neg, pos = medians[f"neg_{i}"], medians[f"pos_{i}"]
        # pROC: "<" (controls < cases, larger = positive) when median(controls) <= median(cases)
        out[name] = "lower" if neg is not None and pos is not None and neg > pos else "higher"
        shown[name] = (neg, pos)
    out["__medians"] = shown
    return out


def warn_auto_direction(directions: dict, stacklevel: int) -> None:
    """One warning saying which way ``direction="auto"`` read each score, and that the area is biased upward."""
    medians = directions.get("__medians")
    if medians is None:
        return
    parts = []
    for name, (neg, pos) in medians.items():
        rule = ("higher scores predict the positive class" if directions[name] == "higher"
                else "lower scores predict the positive class")
        parts.append(f"{name!r}: {rule} (median score of negatives {_number(neg)}, of positives {_number(pos)})")
    warnings.warn(
        f"direction='auto' chose, from the data: {'; '.join(parts)}. Choosing the direction from the data "
        "being scored biases the area upward; pass direction='higher' or 'lower' when the direction is known "
        "(and always for resampling or simulation)",
        DirectionWarning,
        stacklevel=stacklevel,
    )


def _number(value: Any) -> str:
    return "none" if value is None else f"{value:.4g}"
