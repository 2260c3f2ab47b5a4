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

The same function serves rows in memory (before the tie step) and an
engine's cells (after they are collected, grouped on the score's own type).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import narwhals as nw
import numpy as np
import polars as pl

from ..exceptions import InputError
from .coding import is_wide

__all__ = ["float_expressions", "strictly_increasing", "needs_bounds", "EXACT_INTEGER", "refuse_beyond_int128"]

#: Integers of magnitude up to this are exact in float64.
EXACT_INTEGER = 2**53

_MAGNITUDE = np.int64(0x7FFF_FFFF_FFFF_FFFF)


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


def needs_bounds(schema: Any, scores: Sequence[str]) -> list[str]:
    """The integer score columns whose minimum and maximum decide whether their float64 cast is exact."""
    return [name for name in dict.fromkeys(scores) if is_wide(schema[name]) and schema[name].is_integer()]


#: Unsigned 128-bit values from 2**127 on: DuckDB hands them to Arrow as decimal128(38, 0), where they wrap
#: around to negative numbers (a score ranked backwards); the float64 cast still orders them.
_INT128_LIMIT = 2.0**127


def refuse_beyond_int128(lf, schema: Any, scores: Sequence[str], collect: Callable[[list], list],
                         shown: dict | None = None) -> None:
    """Refuse unsigned 128-bit scores of 2**127 or more, whose exact values cannot reach Python unwrapped.

    The test runs in the engine on the float64 cast, so the few values within
    2**73 below 2**127 (which round up to it) are refused too. ``shown`` maps the query's column names to the caller's, for the message.
    """
    unsigned = [name for name in dict.fromkeys(scores) if schema[name] == nw.UInt128]
    if not unsigned:
        return
    row = collect([lf.lazy().select(*[(nw.col(n).cast(nw.Float64) >= _INT128_LIMIT).sum().alias(f"n_{i}")
                                      for i, n in enumerate(unsigned)])])[0]
    for i, name in enumerate(unsigned):
        count = int(row[f"n_{i}"][0] or 0)
        if count:
            raise InputError(f"score column {(shown or {}).get(name, name)!r} (unsigned 128-bit) has {count:,} value{'s' * (count != 1)} of "
                             "2**127 or more, which reach Python only as wrapped 128-bit decimals (negative "
                             "numbers): their order would be lost. Cast the column to DOUBLE (approximate), or "
                             "subtract an offset below 2**127 in the query")


def float_expressions(lf: nw.LazyFrame | nw.DataFrame, schema: Any, scores: Sequence[str],
                      collect: Callable[[list], list], extremes: dict | None = None) -> dict[str, nw.Expr]:
    """Per score column, the float64 expression the tie table is built from.

    A plain cast unless the column's type may round distinct values together
    and its values do: an integer column within ``±2**53`` (its ``extremes``,
    (minimum, maximum), read in the pass of the checks or here) casts exactly;
    beyond it, and for decimals, the distinct values are sorted on the
    column's type and mapped to :func:`strictly_increasing` labels.
    ``collect`` runs a list of queries on the data's engine.
    """
    out = {name: nw.col(name).cast(nw.Float64) for name in scores}
    wide = [name for name in dict.fromkeys(scores) if is_wide(schema[name])]
    integers = [name for name in wide if schema[name].is_integer()]
    extremes = dict(extremes or {})
    missing = [name for name in integers if name not in extremes]
    if missing:
        row = collect([lf.lazy().select(*[nw.col(n).min().alias(f"min_{i}") for i, n in enumerate(missing)],
                                        *[nw.col(n).max().alias(f"max_{i}") for i, n in enumerate(missing)])])[0]
        extremes |= {n: (row[f"min_{i}"][0], row[f"max_{i}"][0]) for i, n in enumerate(missing)}
    fits = {name for name in integers if extremes[name][0] is None
            or (-EXACT_INTEGER <= extremes[name][0] and extremes[name][1] <= EXACT_INTEGER)}
    wide = [name for name in wide if name not in fits]
    if not wide:
        return out
    distinct = collect([lf.lazy().select(nw.col(n)).drop_nulls().unique().sort(n) for n in wide])
    for name, values in zip(wide, distinct):
        values = values[name]
        rounded = values.cast(pl.Float64).to_numpy()
        if rounded.size < 2 or bool(np.all(rounded[1:] > rounded[:-1])):
            continue  # the cast keeps every value distinct
        labels = strictly_increasing(rounded)
        # the values as collected, in the column's own type (a decimal keeps its precision and scale)
        out[name] = nw.col(name).replace_strict(values, labels.tolist(), return_dtype=nw.Float64)
    return out
