"""Convert at the boundary: any supported frame in, polars inside, the caller's type out.

pandas is imported only when the caller handed us a pandas object, so a
polars-only user never pays for it.
"""

from __future__ import annotations

import sys
from typing import Any, Literal

import numpy as np
import polars as pl

from .exceptions import InputTypeError

FrameKind = Literal["pandas", "polars"]

__all__ = ["FrameKind", "to_lazy", "to_caller"]


def is_pandas_frame(data: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(data, pd.DataFrame)


#: The pandas categorical dtype behind each polars Enum made by :func:`to_lazy`, by (column name, Enum)
#: and by Enum alone (the latest), so that :func:`to_caller` hands back the caller's own dtype.
_PANDAS_CATEGORIES: dict = {}


def to_lazy(data: Any, columns: list[str] | None = None,
            keys: tuple[str, ...] = ()) -> tuple[pl.LazyFrame, FrameKind]:
    """Normalise ``data`` to a polars LazyFrame and remember the caller's frame type.

    Parameters
    ----------
    data : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
        The caller's data.
    columns : list of str, optional
        For pandas input, only these columns are converted (they must exist;
        the caller validates names first). Avoids copying unused columns.
    keys : tuple of str
        For pandas input, the grouping columns: a pandas Categorical among
        them becomes a polars ``Enum`` of its categories' text forms, which
        keeps the declared order (and the unused categories) through the
        pipeline; :func:`to_caller` turns it back into the same pandas dtype.

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
        enums = {name: _enum_from_categorical(name, frame[name]) for name in dict.fromkeys(keys)
                 if name in frame.columns and isinstance(getattr(frame[name], "dtype", None), _categorical_dtype())}
        enums = {name: series for name, series in enums.items() if series is not None}
        order = [str(c) for c in frame.columns]
        frame = frame.drop(columns=list(enums)) if enums else frame
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
        if enums:
            converted = converted.with_columns(list(enums.values())).select(order)
        return converted.lazy(), "pandas"
    raise InputTypeError(
        "`data` must be a pandas DataFrame, a polars DataFrame or a polars LazyFrame; "
        f"got {type(data).__name__}"
    )


def _categorical_dtype():
    import pandas as pd

    return pd.CategoricalDtype


def _enum_from_categorical(name: str, series) -> pl.Series | None:
    """A pandas Categorical as a polars Enum of its categories' text forms (None if two forms coincide).

    The Enum keeps the declared order of the categories, and all of them,
    used or not; the pandas dtype is remembered for :func:`to_caller`.
    """
    dtype = series.dtype
    labels = [str(c) for c in dtype.categories]
    if len(set(labels)) != len(labels):
        return None  # e.g. 1 and "1": the text forms would merge two categories
    enum = pl.Enum(labels)
    codes = series.cat.codes.to_numpy().astype(np.int64)
    index = pl.Series(codes)
    if (codes < 0).any():  # NaN in pandas: a null key
        index = index.scatter(np.flatnonzero(codes < 0), None)
    _PANDAS_CATEGORIES[(name, enum)] = dtype
    _PANDAS_CATEGORIES[(None, enum)] = dtype
    return pl.Series(labels, dtype=enum).gather(index).rename(name)


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
    from .ingest.backends import backend_columns, is_backend_input  # DuckDB, Parquet, Spark (docs/backends.md)

    if is_backend_input(data):
        return backend_columns(data)
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
        out = frame.to_pandas()
    except ModuleNotFoundError:  # pyarrow absent: build column by column
        out = pd.DataFrame({name: frame[name].to_numpy() for name in frame.columns})
    for name, dtype in frame.schema.items():
        if isinstance(dtype, pl.Enum):
            categorical = _PANDAS_CATEGORIES.get((name, dtype), _PANDAS_CATEGORIES.get((None, dtype)))
            if categorical is not None:  # the caller's own categorical dtype, by codes
                codes = frame[name].to_physical().cast(pl.Int64).fill_null(-1).to_numpy()
                out[name] = pd.Categorical.from_codes(codes, dtype=categorical)
    return out
