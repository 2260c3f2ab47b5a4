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

__all__ = ["DirectionWarning", "warn_auto_direction"]


class DirectionWarning(UserWarning):
    """``direction="auto"`` chose which way a score points from the data it scores (the area is biased upward)."""


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
