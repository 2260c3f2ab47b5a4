"""The request's columns as narwhals expressions: the outcome's coding, missing and infinite values, weights.

Written once for every input: polars, DuckDB, Spark, ibis and dask evaluate
the same expressions (:class:`Coding`). Types are checked here, before any
pass over the data, with the messages the reader has always given.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import attrs
import narwhals as nw
import numpy as np

from .._validate import ColumnSpec
from ..exceptions import InputTypeError, OutcomeError

__all__ = ["Coding", "coding_of", "check_score_types", "is_text", "is_wide", "indicator"]


def indicator(condition: nw.Expr, dtype: Any = nw.Int8) -> nw.Expr:
    """1 where ``condition`` holds, else 0 (null too): what counts are sums of.

    Every engine sums it (Spark refuses to sum booleans, dask concatenates
    them). 8-bit: polars evaluates it at the cost of a boolean sum (a 64-bit
    mark cost 40% more on a streamed Parquet scan, a cast a pass of its own),
    and every engine sums 8-bit integers in at least 64 bits (polars casts
    them to Int64 before summing, DuckDB to HUGEINT, Spark, pyarrow and
    pandas to int64), so a count never wraps. The engine road's cells and
    window sums ask for ``nw.Int64`` (as measured there, ``benchmarks/README.md``).
    """
    return nw.when(condition).then(nw.lit(1, dtype)).otherwise(nw.lit(0, dtype))


def is_text(dtype: Any) -> bool:
    """String, Categorical and Enum outcomes (levels named by strings)."""
    return dtype == nw.String or isinstance(dtype, (nw.Categorical, nw.Enum)) or dtype in (nw.Categorical,
                                                                                           nw.Enum)


def is_wide(dtype: Any) -> bool:
    """Score types whose cast to float64 can round distinct values to one (see :mod:`.exact_scores`)."""
    return dtype in (nw.Int64, nw.UInt64, nw.Int128, nw.UInt128) or isinstance(dtype, nw.Decimal) or (
        dtype == nw.Decimal)


def _fits(level: Any, dtype: Any) -> bool:
    """Whether ``level`` can name a level of an outcome of type ``dtype``."""
    if dtype == nw.Boolean:
        return isinstance(level, (bool, np.bool_))
    if dtype.is_numeric():
        return isinstance(level, (int, float, np.number)) and not isinstance(level, (bool, np.bool_))
    if is_text(dtype):
        return isinstance(level, str)
    return True


def _finite_check(dtype: Any) -> bool:
    return dtype.is_float()


@attrs.frozen(eq=False)
class Coding:
    """The expressions of one request's columns.

    Attributes
    ----------
    positive : Expr
        True for a positive outcome (null where the outcome is null).
    positive_level : object
        The level ``positive`` stands for (1, True, or the ``positive=`` level).
    negative : Expr or None
        True for the ``negative=`` levels.
    y_null, y_neither, y_missing : Expr
        A missing outcome (null, NaN); one neither positive nor negative (with
        ``negative=``; None without it: there is none); either, or a missing weight.
    s_missing, s_infinite : dict of Expr
        Per score column (``s_infinite`` None for a type without infinities).
    weight : Expr or None
        The weight as float64 (``weights=``).
    w_masks : dict of Expr
        ``w_missing``, ``w_negative``, ``w_infinite``.
    row_missing : Expr
        Any of the row's outcome or scores missing.
    boolean_outcome : bool
    """

    positive: nw.Expr
    positive_level: Any
    negative: nw.Expr | None
    y_null: nw.Expr
    y_neither: nw.Expr | None
    y_missing: nw.Expr
    s_missing: dict
    s_infinite: dict
    weight: nw.Expr | None
    w_masks: dict
    row_missing: nw.Expr
    boolean_outcome: bool

    def usable(self, name: str) -> nw.Expr:
        """A row whose outcome and score ``name`` are present (and weight, with weights)."""
        return ~(self.y_missing | self.s_missing[name])


def check_score_types(schema: Any, spec: ColumnSpec) -> list[str]:
    """The score columns that are not numeric (their type error is raised once rows are known to exist)."""
    return [name for name in spec.scores if not (schema[name].is_numeric() or schema[name] == nw.Boolean)]


def _outcome(spec: ColumnSpec, dtype: Any, shown: str) -> tuple[nw.Expr, Any]:
    """Expression that is True for positives, and the positive level it uses (``shown``: the column's name)."""
    col = nw.col(spec.outcome)
    positive = spec.positive
    if positive is None:
        if dtype == nw.Boolean:
            return col, True
        if dtype.is_numeric():
            return col == 1, 1
        raise OutcomeError(
            f"`outcome` column {shown!r} has type {dtype}; pass `positive=` to name the positive "
            "level (outcomes without it must be boolean or 0/1)"
        )
    if not _fits(positive, dtype):
        raise OutcomeError(
            f"`positive`={positive!r} ({type(positive).__name__}) cannot name a level of `outcome` "
            f"column {shown!r}, which has type {dtype}"
        )
    return col == nw.lit(positive), positive


def _negative(spec: ColumnSpec, dtype: Any, shown: str) -> nw.Expr | None:
    """Expression that is True for the ``negative=`` levels (None without ``negative=``)."""
    if spec.negative is None:
        return None
    for level in spec.negative:
        if not _fits(level, dtype):
            raise OutcomeError(
                f"`negative` level {level!r} ({type(level).__name__}) cannot name a level of `outcome` "
                f"column {shown!r}, which has type {dtype}"
            )
    col = nw.col(spec.outcome)
    if isinstance(dtype, (nw.Categorical, nw.Enum)) or dtype in (nw.Categorical, nw.Enum):
        col = col.cast(nw.String)  # an Enum refuses a level it does not declare
    # one equality per level, as for `positive=`: `is_in` refuses a float level on an integer column
    matches = [col == nw.lit(level) for level in dict.fromkeys(spec.negative)]
    return functools.reduce(operator.or_, matches)


def _infinite(name: str) -> nw.Expr:
    col = nw.col(name)
    return (~col.is_finite() & ~col.is_nan()).fill_null(False)


def coding_of(spec: ColumnSpec, schema: Any, shown: dict | None = None) -> Coding:
    """The :class:`Coding` of ``spec`` on data of ``schema`` (narwhals dtypes); type errors raised here.

    ``shown`` maps the column names of ``spec`` (the reader's internal names) to the caller's, for messages.
    """
    shown = shown or {}
    y_type = schema[spec.outcome]
    outcome = shown.get(spec.outcome, spec.outcome)
    positive, positive_level = _outcome(spec, y_type, outcome)
    negative = _negative(spec, y_type, outcome)
    y_null = nw.col(spec.outcome).is_null()
    if y_type.is_float():
        y_null = y_null | nw.col(spec.outcome).is_nan()
    # with `negative=`, an outcome that is neither positive nor negative counts as a missing outcome
    y_neither = None if negative is None else (~y_null & ~positive & ~negative).fill_null(False)
    y_missing = y_null if y_neither is None else y_null | y_neither
    s_missing, s_infinite = {}, {}
    for name in spec.scores:
        s_missing[name] = nw.col(name).is_null()
        s_infinite[name] = None
        if _finite_check(schema[name]):
            s_missing[name] = s_missing[name] | nw.col(name).is_nan()
            s_infinite[name] = _infinite(name)
    weight, w_masks = None, {}
    if spec.weights is not None:
        w_type = schema[spec.weights]
        if not w_type.is_numeric() or w_type == nw.Boolean:
            raise InputTypeError(f"`weights` column {shown.get(spec.weights, spec.weights)!r} must be numeric; got "
                                 f"type {w_type}")
        weight = nw.col(spec.weights).cast(nw.Float64)
        w_missing = weight.is_null() | weight.is_nan()
        w_masks = {"w_missing": w_missing, "w_negative": (weight < 0).fill_null(False),
                   "w_infinite": (~weight.is_finite() & ~weight.is_nan()).fill_null(False)}
        y_missing = y_missing | w_missing  # a row without a weight is dropped like a row without an outcome
    row_missing = y_missing
    for name in spec.scores:
        row_missing = row_missing | s_missing[name]
    return Coding(positive=positive, positive_level=positive_level, negative=negative, y_null=y_null,
                  y_neither=y_neither, y_missing=y_missing, s_missing=s_missing, s_infinite=s_infinite,
                  weight=weight, w_masks=w_masks, row_missing=row_missing,
                  boolean_outcome=y_type == nw.Boolean)
