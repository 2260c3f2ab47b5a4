"""The grouped engine: run estimators over every group of a tie table at once.

Written once for every statistic (yardstick's single summariser): degenerate
groups are set aside and annotated here, so estimators only ever see segments
with at least one positive and one negative.
"""

from __future__ import annotations

import warnings
from typing import Mapping, Sequence

import numpy as np
import polars as pl

from ._ties import TieTable
from .estimators import Estimator
from .exceptions import DegenerateGroupWarning

__all__ = ["evaluate", "group_notes", "warn_degenerate", "usable_segments"]


def usable_segments(ties: TieTable) -> np.ndarray:
    """Boolean mask of segments with at least one positive and one negative."""
    return (ties.n_pos > 0) & (ties.n_neg > 0)


def evaluate(ties: TieTable, registry: Mapping[str, Estimator], names: Sequence[str]) -> np.ndarray:
    """Estimates of shape (n_segments, len(names)); NaN for degenerate segments."""
    ok = usable_segments(ties)
    out = np.full((ties.n_segments, len(names)), np.nan)
    if not ok.any():
        return out
    usable = ties if ok.all() else ties.take(np.flatnonzero(ok))
    for j, name in enumerate(names):
        estimator = registry[name]
        # estimators that read only the positive rows take a deferred table as
        # it is; those that read the negatives only between positive rows take
        # the collapsed table (either way a deferred table never merges)
        if getattr(estimator, "positive_rows_only", False) or not getattr(estimator, "negative_runs_invariant", False):
            table = usable
        else:
            table = usable.collapsed()
        with np.errstate(all="ignore"):
            out[ok, j] = estimator(table)
    return out


def group_notes(n_pos: np.ndarray, n_neg: np.ndarray) -> list[str | None]:
    """Why a group has no estimate, or None when it has one."""
    notes: list[str | None] = [None] * n_pos.size
    for i in np.flatnonzero((n_pos == 0) | (n_neg == 0)):
        if n_pos[i] == 0 and n_neg[i] == 0:
            notes[i] = "no rows"
        elif n_pos[i] == 0:
            notes[i] = "no positives"
        else:
            notes[i] = "no negatives"
    return notes


def describe_keys(keys: pl.DataFrame, by: Sequence[str], rows: np.ndarray) -> list[str]:
    """Human-readable labels such as ``site='B', sex='F'`` for some key rows."""
    if not by:
        return ["all rows"]
    picked = keys.select(by)[rows.tolist()]
    return [", ".join(f"{k}={v!r}" for k, v in zip(by, row)) for row in picked.iter_rows()]


def warn_degenerate(keys: pl.DataFrame, by: Sequence[str], notes: Sequence[str | None], stacklevel: int = 3) -> None:
    """One warning listing every group whose estimate is NaN, and why."""
    bad = np.flatnonzero([note is not None for note in notes])
    if bad.size == 0:
        return
    labels = describe_keys(keys, by, bad)
    listed = "; ".join(f"{label} ({notes[i]})" for label, i in zip(labels[:20], bad[:20]))
    more = f"; and {bad.size - 20} more" if bad.size > 20 else ""
    warnings.warn(
        f"{bad.size} group{'s' * (bad.size != 1)} without both classes; their estimate is NaN: {listed}{more}",
        DegenerateGroupWarning,
        stacklevel=stacklevel,
    )
