"""Groups without both classes: a note per group and one warning per call.

A degenerate group keeps its row in every result, with NaN numbers and a
note saying why; the caller hears about all of them in one warning.
"""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import polars as pl

from ..exceptions import DegenerateGroupWarning

__all__ = ["group_notes", "describe_keys", "warn_degenerate"]


def group_notes(n_pos: np.ndarray, n_neg: np.ndarray) -> list[str | None]:
    """Why a group has no estimate (``"no rows"``, ``"no positives"``, ``"no negatives"``), or None."""
    notes: list[str | None] = [None] * n_pos.size
    for i in np.flatnonzero((n_pos == 0) | (n_neg == 0)):  # only the degenerate groups
        if n_pos[i] == 0 and n_neg[i] == 0:
            notes[i] = "no rows"
        elif n_pos[i] == 0:
            notes[i] = "no positives"
        else:
            notes[i] = "no negatives"
    return notes


def zero_weight_notes(notes: list, sums) -> list:
    """With ``weights=``: a class that has rows but zero total weight says so (its estimate is NaN)."""
    notes = list(notes)
    for i in np.flatnonzero(((sums.rows_pos > 0) & (sums.weight_pos == 0))
                            | ((sums.rows_neg > 0) & (sums.weight_neg == 0))):
        zero = [name for name, rows, weight in (("positives", sums.rows_pos[i], sums.weight_pos[i]),
                                                ("negatives", sums.rows_neg[i], sums.weight_neg[i]))
                if rows > 0 and weight == 0]
        notes[i] = f"all weights zero among the {' and '.join(zero)}"
    return notes


def describe_keys(keys: pl.DataFrame, by: Sequence[str], rows: Sequence[int]) -> list[str]:
    """Human-readable labels such as ``site='B', sex='F'`` for some key rows (``"all rows"`` ungrouped)."""
    if not by:
        return ["all rows"] * len(rows)
    picked = keys.select(list(by))[list(rows)]
    return [", ".join(f"{k}={v!r}" for k, v in zip(by, row)) for row in picked.iter_rows()]


def warn_degenerate(keys: pl.DataFrame, by: Sequence[str], notes: Sequence[str | None], stacklevel: int = 3) -> None:
    """One warning listing every group whose estimate is NaN, and why."""
    bad = np.flatnonzero([note is not None for note in notes])
    if bad.size == 0:
        return
    labels = describe_keys(keys, by, bad[:20].tolist())
    listed = "; ".join(f"{label} ({notes[i]})" for label, i in zip(labels, bad[:20]))
    more = f"; and {bad.size - 20} more" if bad.size > 20 else ""
    warnings.warn(
        f"{bad.size} group{'s' * (bad.size != 1)} without both classes; their estimate is NaN: {listed}{more}",
        DegenerateGroupWarning,
        stacklevel=stacklevel,
    )
