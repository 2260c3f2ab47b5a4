"""The data checks of ingest: outcome coding and the errors raised after the one collect.

Every message names the column at fault, says what was wrong and how many
rows, and shows the first row numbers where that helps.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .._validate import ColumnSpec
from ..exceptions import InputError, MissingValueError, OutcomeError

__all__ = ["outcome_coding", "check_stats"]


def outcome_coding(spec: ColumnSpec, dtype: pl.DataType) -> tuple[pl.Expr, Any]:
    """Expression that is True for positives, and the positive level it uses."""
    col = pl.col(spec.outcome)
    positive = spec.positive
    if positive is None:
        if dtype == pl.Boolean:
            return col, True
        if dtype.is_numeric():
            return col == 1, 1
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has type {dtype}; pass `positive=` to name the positive "
            "level (outcomes without it must be boolean or 0/1)"
        )
    if dtype == pl.Boolean:
        ok = isinstance(positive, (bool, np.bool_))
    elif dtype.is_numeric():
        ok = isinstance(positive, (int, float, np.number)) and not isinstance(positive, (bool, np.bool_))
    elif dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Categorical, pl.Enum)):
        ok = isinstance(positive, str)
    else:
        ok = True
    if not ok:
        raise OutcomeError(
            f"`positive`={positive!r} ({type(positive).__name__}) cannot name a level of `outcome` "
            f"column {spec.outcome!r}, which has type {dtype}"
        )
    return col == pl.lit(positive), positive


def example_rows(lf: pl.LazyFrame, mask: pl.Expr, limit: int = 5) -> list[int]:
    """Row numbers (0-based) of the first rows where ``mask`` holds; only used for messages."""
    rows = lf.with_row_index("__row").filter(mask).select("__row").head(limit).collect()
    return rows["__row"].to_list()


def check_stats(stats: dict, spec: ColumnSpec, lf: pl.LazyFrame, s_infinite: dict, y_missing: pl.Expr,
                s_missing: dict) -> None:
    """Raise the first applicable input error, naming column, problem and row count."""
    n_rows = stats["n_rows"]
    if n_rows == 0:
        raise InputError("`data` has no rows")
    for i, name in enumerate(spec.scores):
        count = stats[f"s_infinite_{i}"]
        if count:
            examples = example_rows(lf, s_infinite[name])
            raise InputError(
                f"`score` column {name!r} has {count} infinite value{'s' * (count != 1)} "
                f"(first rows: {examples}); scores must be finite"
            )
    if stats["row_missing"]:
        if spec.missing == "error":
            parts = []
            if stats["y_missing"]:
                parts.append(f"`outcome` column {spec.outcome!r}: {stats['y_missing']}")
            for i, name in enumerate(spec.scores):
                if stats[f"s_missing_{i}"]:
                    parts.append(f"`score` column {name!r}: {stats[f's_missing_{i}']}")
            examples = example_rows(lf, pl.any_horizontal(y_missing, *s_missing.values()))
            what = "outcome or score" if not spec.multi_score else "outcome or score (in any score column)"
            raise MissingValueError(
                f"{stats['row_missing']} of {n_rows} rows have a missing (null or NaN) {what} "
                f"({'; '.join(parts)}; first rows: {examples}). Pass missing='drop' to drop them; "
                "the result then records how many were dropped per group"
            )
        if stats["row_missing"] == n_rows and not spec.multi_score:
            raise InputError(f"`data` has no rows left after dropping {n_rows} rows with missing values")
        for i, name in enumerate(spec.scores if spec.multi_score else ()):
            if stats[f"s_usable_{i}"] == 0:
                raise InputError(
                    f"`score` column {name!r} has no rows left after dropping rows with a missing "
                    "outcome or score"
                )

    levels = list(stats["levels"])
    n_levels = stats["n_levels"]
    shown = f"{levels}{' ...' if n_levels > len(levels) else ''}"
    if spec.positive is not None and stats["n_positive"] == 0:
        raise OutcomeError(
            f"`positive`={spec.positive!r} does not occur in `outcome` column {spec.outcome!r}; "
            f"its levels are {shown}"
        )
    if n_levels < 2:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has a single level {shown}; "
            "an AUC needs both positives and negatives"
        )
    if spec.positive is None and n_levels > 2:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has {n_levels} levels {shown}; "
            "pass `positive=` to name the positive level (all others are negative)"
        )
    if spec.positive is None and not set(levels) <= {0, 1, True, False}:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has levels {shown}, not 0/1; "
            "pass `positive=` to name the positive level"
        )
