"""Group keys: the index of each row's group among the sorted keys, and tie tables from cells.

Keys are sorted ascending with nulls last, in ``by`` order; every road of the
reader maps rows (or cells) to that order.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..ties import TieTable
from .runs import segment_offsets

__all__ = ["integer_like", "group_index", "group_of_rows", "ties_from_cells"]


def integer_like(dtype: pl.DataType) -> bool:
    """Key types whose physical values are integers (numpy codes instead of a hash join)."""
    return dtype.is_integer() or dtype == pl.Boolean or isinstance(dtype, pl.Enum)


def _key_values(series: pl.Series) -> np.ndarray:
    """Integer physical values of a key column, nulls coded above every value (keys sort nulls last)."""
    values = series.to_physical()
    if values.dtype.is_integer() and values.dtype != pl.Int64 and (
            (values.max() or 0) > 2**63 - 2 or (values.min() or 0) < -(2**63)):
        # uint64 of 2**63 or more, int128: their dense ranks keep the order and fit int64
        values = values.rank("dense")
    values = values.cast(pl.Int64)
    if values.null_count() and values.max() == 2**63 - 1:
        values = values.rank("dense").cast(pl.Int64)  # room above the largest value for the nulls
    if values.null_count():
        values = values.fill_null(int(values.max() or 0) + 1)
    return values.to_numpy()


def group_index(keys: pl.DataFrame, rows: pl.DataFrame, by: list[str]) -> np.ndarray | None:
    """Row index in ``keys`` (sorted ascending, nulls last) of every row; None if the codes overflow.

    Each key column is coded by its rank among the key table's values of that
    column, and the columns are combined in mixed radix, which preserves the
    lexicographic order of ``keys``.
    """
    key_code = np.zeros(keys.height, dtype=np.int64)
    row_code = np.zeros(rows.height, dtype=np.int64)
    width = 1
    for name in by:
        # code nulls the same way in both frames: above the largest key value
        both = _key_values(pl.concat([keys[name], rows[name]]))
        key_values, row_values = both[: keys.height], both[keys.height:]
        distinct = np.unique(key_values)
        width *= distinct.size
        if width >= 2**62:
            return None
        key_code = key_code * distinct.size + np.searchsorted(distinct, key_values)
        low, high = int(distinct[0]), int(distinct[-1])
        if high - low < max(4 * rows.height, 1 << 16):
            lookup = np.zeros(high - low + 1, dtype=np.int64)
            lookup[distinct - low] = np.arange(distinct.size)
            rank = lookup[row_values - low]
        else:
            rank = np.searchsorted(distinct, row_values)
        row_code = row_code * distinct.size + rank
    if np.any(key_code[1:] <= key_code[:-1]):  # pragma: no cover - keys are sorted and distinct
        raise RuntimeError("internal error: group keys are not in ascending order")
    if len(by) == 1:
        return row_code  # one column: its rank among the (distinct, sorted) keys is the row index
    if width <= max(4 * rows.height, 1 << 16):
        lookup = np.zeros(width, dtype=np.int64)
        lookup[key_code] = np.arange(keys.height)
        return lookup[row_code]
    return np.searchsorted(key_code, row_code)


def group_of_rows(keys: pl.DataFrame, frame: pl.DataFrame, by: list[str]) -> np.ndarray:
    """The row of ``keys`` of every row of ``frame``: numpy codes for integer-like keys, else a join."""
    if not by:
        return np.zeros(frame.height, dtype=np.int64)
    group = group_index(keys, frame, by) if all(integer_like(frame.schema[c]) for c in by) else None
    if group is None:  # other key types, or codes too wide for 64 bits
        joined = frame.select(by).join(keys.select(by).with_row_index("__aucpr_g"), on=by, how="left",
                                       nulls_equal=True, maintain_order="left")
        group = joined["__aucpr_g"].to_numpy()
    return np.asarray(group, dtype=np.int64)


def ties_from_cells(keys: pl.DataFrame, cells: pl.DataFrame, by: list[str], score: str, positives: str,
                    size: str, drop_missing: bool) -> TieTable:
    """Tie table from one row per (keys, score) cell with its positive and row counts, in any order."""
    if not by:
        order = np.argsort(-cells[score].to_numpy(), kind="stable")
        pos = cells[positives].to_numpy().astype(np.int64)[order]
        return TieTable(cells[score].to_numpy()[order], pos, cells[size].to_numpy().astype(np.int64)[order] - pos,
                        [0, cells.height])
    cells = cells.sort([*by, score], descending=[False] * len(by) + [True], nulls_last=True)
    kept = (keys["n_rows"] - keys["n_missing"]).to_numpy() if drop_missing else keys["n_rows"].to_numpy()
    present = np.flatnonzero(kept > 0)
    group = present[cells.select(pl.struct(by).rle_id())[:, 0].to_numpy()]
    offsets = segment_offsets(group, keys.height)
    pos = cells[positives].to_numpy().astype(np.int64)
    return TieTable(cells[score].to_numpy(), pos, cells[size].to_numpy().astype(np.int64) - pos, offsets)
