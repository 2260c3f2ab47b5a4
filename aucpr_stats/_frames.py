"""Convert at the boundary: any supported frame in, polars inside, the caller's type out.

pandas is imported only when the caller handed us a pandas object, so a
polars-only user never pays for it.
"""

from __future__ import annotations

import sys
from typing import Any, Literal

import polars as pl

from .exceptions import InputTypeError

FrameKind = Literal["pandas", "polars"]

__all__ = ["FrameKind", "to_lazy", "to_caller"]


def is_pandas_frame(data: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(data, pd.DataFrame)


def to_lazy(data: Any, columns: list[str] | None = None) -> tuple[pl.LazyFrame, FrameKind]:
    """Normalise ``data`` to a polars LazyFrame and remember the caller's frame type.

    Parameters
    ----------
    data : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
        The caller's data.
    columns : list of str, optional
        For pandas input, only these columns are converted (they must exist;
        the caller validates names first). Avoids copying unused columns.

    Returns
    -------
    lazy : polars.LazyFrame
    kind : {"pandas", "polars"}
        ``"pandas"`` for pandas input; ``"polars"`` for polars DataFrame and LazyFrame.
    """
    if isinstance(data, pl.LazyFrame):
        return data, "polars"
    if isinstance(data, pl.DataFrame):
        return data.lazy(), "polars"
    if is_pandas_frame(data):
        frame = data if columns is None else data.loc[:, list(dict.fromkeys(columns))]
        try:
            try:
                converted = pl.from_pandas(frame, include_index=False)
            except ImportError:  # pyarrow absent and an extension dtype present
                converted = pl.DataFrame([_series_without_pyarrow(str(c), frame[c]) for c in frame.columns])
        except Exception as exc:  # mixed-type object columns and the like
            raise InputTypeError(
                f"`data` could not be converted from pandas to polars: {exc}. "
                "Check that the outcome, score and grouping columns hold one type each."
            ) from exc
        return converted.lazy(), "pandas"
    raise InputTypeError(
        "`data` must be a pandas DataFrame, a polars DataFrame or a polars LazyFrame; "
        f"got {type(data).__name__}"
    )


def _series_without_pyarrow(name: str, series) -> pl.Series:
    """Convert one pandas column to polars without pyarrow.

    Plain numpy-backed columns convert directly; nullable extension dtypes
    (``Int64``, ``boolean``, ``Float64``), pandas 3's default ``str`` dtype and
    categoricals go through numpy with their missing-value mask.
    """
    import pandas as pd

    try:
        return pl.from_pandas(series).rename(name)
    except ImportError:
        pass
    missing = series.isna().to_numpy()
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        categories = _series_without_pyarrow(name, pd.Series(dtype.categories))
        codes = pl.Series(series.cat.codes.to_numpy().astype("int64"))
        codes = codes.scatter(missing.nonzero()[0], None) if missing.any() else codes
        return categories.gather(codes).rename(name)
    if pd.api.types.is_bool_dtype(dtype):
        values = pl.Series(name, series.to_numpy(dtype=bool, na_value=False))
    elif pd.api.types.is_integer_dtype(dtype):
        values = pl.Series(name, series.to_numpy(dtype="int64", na_value=0))
    elif pd.api.types.is_float_dtype(dtype):
        values = pl.Series(name, series.to_numpy(dtype="float64", na_value=float("nan")))
    else:
        values = pl.Series(name, series.to_numpy(dtype=object, na_value=None))
    return values.scatter(missing.nonzero()[0], None) if missing.any() else values


def column_names(data: Any) -> list[str]:
    """Column names of a supported frame without materialising a LazyFrame."""
    if isinstance(data, pl.LazyFrame):
        return data.collect_schema().names()
    if isinstance(data, pl.DataFrame):
        return data.columns
    if is_pandas_frame(data):
        return list(data.columns)
    raise InputTypeError(
        "`data` must be a pandas DataFrame, a polars DataFrame or a polars LazyFrame; "
        f"got {type(data).__name__}"
    )


def to_caller(frame: pl.DataFrame, kind: FrameKind):
    """Return ``frame`` as the caller's frame type (pandas in, pandas out)."""
    if kind == "polars":
        return frame
    import pandas as pd

    try:
        return frame.to_pandas()
    except ModuleNotFoundError:  # pyarrow absent: build column by column
        return pd.DataFrame({name: frame[name].to_numpy() for name in frame.columns})
