"""Subgroup levels: declared levels without rows, and missing keys.

A grouping column with declared levels (a polars ``Enum``, or a pandas
Categorical, which the reader (:mod:`.source`) turns into an Enum of
its categories) gives one group per level, used or not, in the declared
order. With several key columns the groups are the product of every key
column's levels (the declared levels of an Enum; the values present in the
data for any other column, a missing value included), as pandas'
``groupby(observed=False, dropna=False)`` gives them. A group without rows is
an *empty segment* of the tie table (zero rows), so every estimator,
interval and curve sees it as a group with no positives and no negatives: a
NaN estimate and the note :data:`UNUSED_NOTE`.

Rows whose key is missing (null, or NaN in pandas) form a group of their
own, sorted last; :func:`warn_missing_keys` says so once per call.
"""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import polars as pl

from ..exceptions import InputError

__all__ = ["MissingKeyWarning", "UNUSED_NOTE", "DROPPED_NOTE", "MAX_GROUPS", "expand_levels", "warn_missing_keys"]

#: The note of a group made only by a declared level absent from the data.
UNUSED_NOTE = "no rows: level not in the data"

#: The note of a group whose rows were all dropped for missing values (``missing="drop"``).
DROPPED_NOTE = "no rows left after dropping missing values"

#: The most groups the expansion to every declared level may make (beyond it: an error naming ``unused_levels``).
MAX_GROUPS = 1_000_000

_I = "__aucpr_i"


class MissingKeyWarning(UserWarning):
    """Rows with a missing value in a grouping column; they form a group of their own (sorted last)."""


def warn_missing_keys(missing_keys: Sequence[tuple], stacklevel: int) -> None:
    """One warning naming each grouping column with missing values and how many rows have one.

    ``missing_keys`` holds (column, rows) pairs.
    """
    parts = [f"{rows} row{'s' * (rows != 1)} {'have' if rows != 1 else 'has'} a missing value in `by` column "
             f"{name!r}" for name, rows in missing_keys if rows]
    if parts:
        warnings.warn(
            f"{'; '.join(parts)}; such rows form a group of their own (a missing key, sorted last)",
            MissingKeyWarning,
            stacklevel=stacklevel,
        )


def _levels(keys: pl.DataFrame, name: str, fixed: dict) -> pl.Series:
    """The levels of one key column, in the order of the sorted keys (nulls last)."""
    column = keys[name]
    if name in fixed:
        present = set(column.to_list())
        return pl.Series(name, [v for v in fixed[name] if v in present], dtype=column.dtype)
    if isinstance(column.dtype, pl.Enum):
        levels = pl.Series(name, column.dtype.categories.to_list(), dtype=column.dtype)
        return pl.concat([levels, pl.Series(name, [None], dtype=column.dtype)]) if column.null_count() else levels
    return column.unique().sort(nulls_last=True)


def _level_index(keys: pl.DataFrame, name: str, levels: pl.Series) -> np.ndarray:
    """The index among ``levels`` of each key row's value of column ``name``."""
    table = levels.to_frame(name).with_row_index(_I)
    joined = keys.select(name).join(table, on=name, how="left", nulls_equal=True, maintain_order="left")
    return joined[_I].to_numpy().astype(np.int64)


def expand_levels(keys: pl.DataFrame, columns: Sequence[str], fixed: dict | None = None):
    """Keys with a row for every combination of levels, and where each present key row went.

    Parameters
    ----------
    keys : polars.DataFrame
        The sorted keys (key columns, ``n_missing``, ``n_rows``), one row per segment.
    columns : sequence of str
        The key columns.
    fixed : dict, optional
        Column name -> its levels in order, for key columns whose order is not
        their sort order on the frame's dtype (the ``score`` key: the order given).

    Returns
    -------
    (keys, position, unused) or None
        None when no key column declares levels (no polars ``Enum``) or every
        combination is present; else the expanded keys (``n_missing`` and
        ``n_rows`` 0 for the new rows), the new row of each old row
        (increasing) and a mask of the new rows.
    """
    fixed = fixed or {}
    if not columns or not any(isinstance(keys.schema[c], pl.Enum) for c in columns if c not in fixed):
        return None
    levels = [_levels(keys, name, fixed) for name in columns]
    sizes = [s.len() for s in levels]
    total = int(np.prod(sizes, dtype=np.float64))
    if total == keys.height:
        return None
    if total > MAX_GROUPS:
        raise InputError(
            f"every combination of the levels of the grouping columns {list(columns)} would make {total:,} "
            f"groups (more than {MAX_GROUPS:,}); pass unused_levels='drop' to keep only the combinations "
            "present in the data"
        )
    code = np.zeros(keys.height, dtype=np.int64)
    for name, series, size in zip(columns, levels, sizes):
        code = code * size + _level_index(keys, name, series)
    if np.any(code[1:] <= code[:-1]):  # pragma: no cover - keys are sorted and distinct
        raise RuntimeError("internal error: group keys are not in the order of their levels")
    grid = np.indices(sizes).reshape(len(sizes), -1)  # C order: the lexicographic order of the levels
    expanded = pl.DataFrame([series.gather(grid[i]) for i, series in enumerate(levels)])
    counts = np.zeros((2, total), dtype=np.int64)
    counts[0, code] = keys["n_missing"].to_numpy()
    counts[1, code] = keys["n_rows"].to_numpy()
    expanded = expanded.with_columns(pl.Series("n_missing", counts[0]), pl.Series("n_rows", counts[1]))
    extra = [c for c in keys.columns if c not in expanded.columns]
    if extra:  # pragma: no cover - keys hold only key columns and counts
        raise RuntimeError(f"internal error: unexpected key columns {extra}")
    unused = np.ones(total, dtype=bool)
    unused[code] = False
    return expanded.select(keys.columns), code, unused
