"""Columns read row by row for the verbs that need the rows themselves (multiclass, time-to-event).

Most calls reduce the data to tie tables in the engine; a multiclass area or
a censoring-weighted one needs the rows (a row is a case of one class and a
control of another, or its weight depends on a Kaplan-Meier fit of the
others). These helpers turn the collected columns into numbered arrays with
messages that name the column, the problem and how many rows.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import polars as pl

from ..exceptions import InputError, InputTypeError, MissingValueError

__all__ = ["row_numbers", "weight_column", "group_codes", "cluster_codes", "plural"]


def plural(n: int, word: str, suffix: str = "s") -> str:
    """``"1 row"``, ``"3 rows"``."""
    return f"{n} {word}{suffix * (int(n) != 1)}"


def row_numbers(mask: np.ndarray, limit: int = 5) -> str:
    """The first row numbers where ``mask`` holds, for a message (``"2, 7, ..."``)."""
    rows = np.flatnonzero(mask)[:limit]
    return ", ".join(str(int(r)) for r in rows) + (", ..." if mask.sum() > limit else "")


def weight_column(frame: pl.DataFrame, column: Sequence[str]) -> np.ndarray | None:
    """The ``weights=`` column as float64 (NaN where missing), or None; negative or infinite weights refused."""
    if not column:
        return None
    name = column[0]
    if not frame.schema[name].is_numeric():
        raise InputTypeError(f"weights column {name!r} must be numeric; it holds {frame.schema[name]}")
    w = frame.get_column(name).cast(pl.Float64).fill_null(np.nan).to_numpy()
    bad = (w < 0) | np.isinf(w)
    if bad.any():
        raise InputError(f"weights column {name!r} holds {plural(int(bad.sum()), 'negative or infinite value')} "
                         f"(rows {row_numbers(bad)}); weights must be finite and >= 0")
    return w


def group_codes(frame: pl.DataFrame, by: Sequence[str]) -> tuple[pl.DataFrame, np.ndarray]:
    """The groups (sorted, nulls last) and each row's group index."""
    if not by:
        return pl.DataFrame(), np.zeros(frame.height, dtype=np.int64)
    keys_of_rows = frame.select(by)
    keys = keys_of_rows.unique().sort(list(by), nulls_last=True)
    numbered = keys.with_row_index("__group")
    joined = keys_of_rows.with_row_index("__row").join(numbered, on=list(by), how="left", nulls_equal=True)
    group = np.empty(frame.height, dtype=np.int64)
    group[joined.get_column("__row").to_numpy()] = joined.get_column("__group").to_numpy()
    return keys, group


def cluster_codes(frame: pl.DataFrame, column: Sequence[str], group: np.ndarray, rows: np.ndarray,
                  what: str = "cluster") -> np.ndarray | None:
    """Ids of ``column`` as integer codes, unique within group (an id split across groups counts in each).

    A missing id is refused (every row needs one), for every frame type alike.
    """
    if not column:
        return None
    series = frame.get_column(column[0])[rows]
    if series.null_count() or (series.dtype.is_float() and series.is_nan().any()):
        n = series.null_count() + (int(series.is_nan().sum()) if series.dtype.is_float() else 0)
        raise MissingValueError(f"{what} column {column[0]!r} holds {plural(n, 'missing id')}; every row "
                                f"needs its {what}")
    pairs = pl.DataFrame({"g": group[rows], "c": series})
    return pairs.select(pl.struct("g", "c").rank("dense")).to_series().to_numpy().astype(np.int64) - 1
