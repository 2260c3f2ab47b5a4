"""Scores of any numeric type as float64 without merging distinct values.

The tie table carries its scores as float64 (:class:`~aucpr_stats.ties.TieTable`).
For float64, float32, float16, booleans and integers of at most 32 bits the
cast is exact. Integers beyond 2**53 (int64, uint64, int128) and decimals can
round two distinct values to one float64, which would merge them into one tie
(scores 2**53 and 2**53 + 1 gave A' = 0.5 instead of 1).

For such a column the distinct values are sorted on the column's own type
(exactly), and each is given a float64 *label*: its rounded value where that
is distinct from its neighbours', otherwise the next float64 above the label
below it. The labels are strictly increasing, so ranking and grouping on them
is ranking and grouping on the exact values; each label is within a few units
in the last place of the value it stands for (it is a label, not the value).
A column whose cast merges nothing is cast as before.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import polars as pl

__all__ = ["score_expressions", "strictly_increasing"]

#: Integers of magnitude up to this are exact in float64.
EXACT_INTEGER = 2**53

_MAGNITUDE = np.int64(0x7FFF_FFFF_FFFF_FFFF)


def _may_merge(dtype: pl.DataType) -> bool:
    """Types whose cast to float64 can round distinct values to one."""
    wide_integers = {getattr(pl, name) for name in ("Int64", "UInt64", "Int128", "UInt128") if hasattr(pl, name)}
    return dtype in wide_integers or isinstance(dtype, pl.Decimal)


def _ordered_bits(values: np.ndarray) -> np.ndarray:
    """int64 keys whose order is the order of the (finite) float64 values; -0.0 just below +0.0."""
    key = values.view(np.int64).copy()
    negative = key < 0
    key[negative] ^= _MAGNITUDE
    return key


def _from_ordered_bits(key: np.ndarray) -> np.ndarray:
    key = key.copy()
    negative = key < 0
    key[negative] ^= _MAGNITUDE
    return key.view(np.float64)


def strictly_increasing(rounded: np.ndarray) -> np.ndarray:
    """Strictly increasing float64 labels from the non-decreasing roundings of distinct sorted values.

    ``label[k] = max(rounded[k], next float64 above label[k-1])``: with the
    float64s numbered in order (``_ordered_bits``) this is
    ``max_{j<=k}(key[j] - j) + k``, one running maximum.
    """
    key = _ordered_bits(np.ascontiguousarray(rounded, dtype=np.float64))
    step = np.arange(key.size, dtype=np.int64)
    key -= step
    np.maximum.accumulate(key, out=key)
    key += step
    return _from_ordered_bits(key)


def score_expressions(lf: pl.LazyFrame, schema: pl.Schema, scores: Sequence[str],
                      engine: str = "auto") -> dict[str, pl.Expr]:
    """Per score column, the float64 expression the tie table is built from.

    A plain cast unless the column's type may round distinct values together
    (:func:`_may_merge`) and its values do: integers are first checked by
    their minimum and maximum (one cheap pass); beyond 2**53, and for
    decimals, the distinct values are sorted on the column's type and mapped
    to :func:`strictly_increasing` labels.
    """
    out = {name: pl.col(name).cast(pl.Float64) for name in scores}
    wide = [name for name in dict.fromkeys(scores) if _may_merge(schema[name])]
    integers = [name for name in wide if schema[name].is_integer()]
    if integers:
        bounds = lf.select(*[pl.col(n).min().alias(f"min_{i}") for i, n in enumerate(integers)],
                           *[pl.col(n).max().alias(f"max_{i}") for i, n in enumerate(integers)]).collect(engine=engine)
        row = bounds.row(0)
        k = len(integers)
        fits = {n for i, n in enumerate(integers)
                if row[i] is None or (-EXACT_INTEGER <= row[i] and row[k + i] <= EXACT_INTEGER)}
        wide = [name for name in wide if name not in fits]
    if not wide:
        return out
    distinct = pl.collect_all([lf.select(pl.col(n).drop_nulls().unique().sort()) for n in wide], engine=engine)
    for name, values in zip(wide, distinct):
        values = values.to_series()
        rounded = values.cast(pl.Float64).to_numpy()
        if rounded.size < 2 or bool(np.all(rounded[1:] > rounded[:-1])):
            continue  # the cast keeps every value distinct
        labels = pl.Series(strictly_increasing(rounded))
        out[name] = pl.col(name).replace_strict(values, labels, return_dtype=pl.Float64)
    return out
