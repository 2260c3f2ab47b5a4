"""The caller's data, detected once: which library holds it, where it is read, and what type comes back.

:func:`detect` is the one place that looks at the type of ``data``
(``is_data`` asks the same question for the formula interface). Every input
becomes a narwhals LazyFrame (:meth:`Source.frame`), which the reader
(:mod:`aucpr_stats.ingest`) queries with one set of expressions:

* **in memory** (pandas, polars DataFrames and LazyFrames over memory,
  pyarrow Tables, and any eager frame narwhals reads: modin, cudf): read by
  polars. pandas is converted at the boundary, a Categorical key becoming a
  polars Enum of its categories' text forms, so its declared levels and order
  survive (:class:`~aucpr_stats._frames.Output` restores the caller's dtype);
  the rows reach the table factory's fast in-memory sorts; so does any
  object that exports Arrow data (the Arrow PyCapsule interface,
  ``__arrow_c_stream__``), read once by polars;
* **an engine** (DuckDB relations, Parquet paths read by DuckDB, Spark
  DataFrames classic and Connect, ibis tables, dask DataFrames, a polars
  LazyFrame that scans files, and any lazy frame narwhals reads): the engine
  reduces the rows, and only the tie table's cells (or fewer rows: runs of
  negatives collapsed, a curve thinned, or the partial sums) reach Python,
  at most ``max_tie_rows`` of them (:func:`sql_input`).
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Sequence

import attrs
import narwhals as nw
import numpy as np
import polars as pl

from .._frames import POLARS, Output
from .._validate import choice_iv, integer_iv
from ..exceptions import InputTypeError
from .engines import DUCKDB, GENERIC, POLARS_MEMORY, POLARS_STREAMING, SPARK, Engine, open_parquet

__all__ = ["Source", "SqlInput", "sql_input", "detect", "is_data", "is_parquet_path", "MAX_TIE_ROWS",
           "PARTIAL_SUMS"]

#: The default limit on the rows of the tie table collected from an engine (about 40 bytes a row in Python).
MAX_TIE_ROWS = 5_000_000

#: The values of ``partial_sums``: when the engine's partial sums replace the collected tie table.
PARTIAL_SUMS = ("auto", "always", "never")

#: What ``data`` may be, for messages.
ACCEPTED = ("a pandas or polars DataFrame, a polars LazyFrame, a pyarrow Table, a DuckDB relation, a Parquet "
            "path, a Spark DataFrame, an ibis table, a dask DataFrame, another frame narwhals reads, or an object "
            "that exports Arrow data (__arrow_c_stream__)")


@attrs.frozen(eq=False)
class SqlInput:
    """An engine's table with the limit on what is collected from it (made by :func:`sql_input`)."""

    data: Any
    max_tie_rows: int = MAX_TIE_ROWS
    partial_sums: str = "auto"


def is_parquet_path(value: Any) -> bool:
    """True for a ``str`` or ``os.PathLike`` naming Parquet files (ending in ``.parquet``; globs allowed)."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    return isinstance(value, str) and value.lower().endswith(".parquet") and "~" not in value


def _is_pandas(data: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(data, pd.DataFrame)


def _narwhals(data: Any) -> Any:
    """``data`` as a narwhals frame, or None for an object narwhals does not read (no import of engines)."""
    with warnings.catch_warnings():
        # narwhals announces that dask support moves to a plugin: nothing a caller can act on here
        warnings.simplefilter("ignore", FutureWarning)
        frame = nw.from_native(data, pass_through=True)
    return None if frame is data or isinstance(frame, nw.Series) else frame


def is_data(value: Any) -> bool:
    """True for anything :func:`detect` reads (a frame, a Parquet path), False for a formula or a column name."""
    if isinstance(value, (SqlInput, pl.DataFrame, pl.LazyFrame)) or is_parquet_path(value) or _is_pandas(value):
        return True
    if isinstance(value, (str, bytes, list, tuple, dict)):
        return False
    return _narwhals(value) is not None or hasattr(value, "__arrow_c_stream__")


def sql_input(data: Any, *, max_tie_rows: int = MAX_TIE_ROWS, partial_sums: str = "auto") -> SqlInput:
    """An engine's table with a limit on the rows of the tie table collected from it.

    The engine (DuckDB, Spark, ibis, dask, or polars scanning files) reduces
    the rows to one row per (group, distinct score); at most
    ``max_tie_rows`` such rows are brought into Python (about 40 bytes each),
    and a larger table is refused with
    :class:`~aucpr_stats.exceptions.TieTableTooLarge`. Pass the returned
    object wherever the entry points take data.

    Statistics that are sums over the tie rows need no table: ``aucpr`` with
    ``estimator="average_precision"`` and/or ``"lower_trapezoid"``, and
    ``auroc`` (A'), of the full area, without ``fold=``, ``cluster=``,
    ``weights=`` or ``prevalence=``. For them the engine adds up the sums
    itself and returns one row per group, exactly; the result then serves
    the intervals that need only those sums and refuses the rest (the
    bootstrap, curves) with a message (``docs/backends.md``).

    Parameters
    ----------
    data : an engine's table
        A DuckDB relation, a Parquet path, a Spark DataFrame, an ibis table,
        a dask DataFrame or a polars LazyFrame.
    max_tie_rows : int
        At least 1; default :data:`MAX_TIE_ROWS` (5,000,000).
    partial_sums : {"auto", "always", "never"}
        ``"auto"`` (default): partial sums when the collapsed table of such a
        call is over ``max_tie_rows``. ``"always"``: partial sums for every
        call, one pass, nothing per score value collected (other calls are
        refused). ``"never"``: refuse a table over the limit.

    Examples
    --------
    >>> import duckdb
    >>> from aucpr_stats import auroc, sql_input
    >>> rel = duckdb.sql("SELECT i % 2 AS y, i % 7 AS s FROM range(100) t(i)")
    >>> int(auroc(sql_input(rel, max_tie_rows=1_000), "y", "s").to_frame()["n_pos"][0])
    50
    """
    if isinstance(data, SqlInput) or not is_data(data) or detect(data).in_memory and not isinstance(
            data, pl.LazyFrame):
        raise InputTypeError(
            "`data` of sql_input() must be an engine's table (a DuckDB relation, a Parquet path, a Spark "
            f"DataFrame, an ibis table, a dask DataFrame or a polars LazyFrame); got {type(data).__name__}"
        )
    return SqlInput(data, integer_iv(max_tie_rows, "max_tie_rows", 1),
                    choice_iv(partial_sums, "partial_sums", PARTIAL_SUMS))


@attrs.frozen(eq=False)
class Source:
    """The caller's data, detected once.

    Attributes
    ----------
    native : object
        The caller's object (a DuckDB relation for a Parquet path).
    backend : str
        The library that holds it (``"pandas"``, ``"polars"``, ``"pyarrow"``,
        ``"duckdb"``, ``"pyspark"``, ``"ibis"``, ``"dask"``, ...).
    in_memory : bool
        Read by polars in this process (the rows reach the table factory), or
        by an engine (the engine reduces them first).
    engine : Engine
        The hooks of the engine that runs the queries (:mod:`.engines`).
    output : Output
        The type of the frames results hand back.
    columns : tuple of str
        The column names (read without the rows).
    max_tie_rows : int or None
        The most cells collected from an engine (None: no limit, polars reads it).
    partial_sums : {"auto", "always", "never"}
    """

    native: Any
    backend: str
    in_memory: bool
    engine: Engine
    output: Output
    columns: tuple[str, ...]
    max_tie_rows: int | None = None
    partial_sums: str = "auto"
    #: The narwhals LazyFrame of the data (None for pandas, converted on each :meth:`frame` call).
    lazy: Any = None

    def frame(self, columns: Sequence[str], keys: Sequence[str] = (), names: dict | None = None) -> nw.LazyFrame:
        """The data's ``columns`` as a narwhals LazyFrame (pandas converted here, only those columns).

        ``names`` renames them (caller's name -> internal name): the reader's
        queries then never spell a caller's name, whatever it holds.
        """
        columns = list(dict.fromkeys(columns))
        names = {name: (names or {}).get(name, name) for name in columns}
        if self.backend == "pandas":
            return nw.from_native(_pandas_to_polars(self.native, columns, keys).rename(names).lazy())
        if self.lazy is not None:
            return self.engine.renamed(self.lazy, names)
        # another eager frame (pyarrow, modin ...): the columns needed, read by polars
        return nw.from_native(_narwhals(self.native).select(columns).to_polars().rename(names).lazy())

    def n_rows_known(self) -> int | None:
        """The number of rows when it is known without a pass over the data (in-memory frames)."""
        if self.backend == "pandas":
            return len(self.native)
        if isinstance(self.native, pl.DataFrame):
            return self.native.height
        if self.in_memory and self.lazy is None:
            return len(_narwhals(self.native))
        return None


def detect(data: Any) -> Source:
    """The :class:`Source` of ``data``; a clear error for anything that is not a frame this package reads."""
    limit, partial_sums = MAX_TIE_ROWS, "auto"
    if isinstance(data, SqlInput):
        data, limit, partial_sums = data.data, data.max_tie_rows, data.partial_sums
    if is_parquet_path(data):
        relation = open_parquet(os.fspath(data))
        return Source(relation, "duckdb", False, DUCKDB, POLARS, tuple(relation.columns), limit,
                      partial_sums, lazy=nw.from_native(relation))
    if _is_pandas(data):
        categories = {str(name): dtype for name, dtype in data.dtypes.items() if str(dtype) == "category"}
        return Source(data, "pandas", True, POLARS_MEMORY, Output("pandas", categories),
                      tuple(str(c) for c in data.columns))
    if isinstance(data, pl.DataFrame):
        return Source(data, "polars", True, POLARS_MEMORY, POLARS, tuple(data.columns),
                      lazy=nw.from_native(data.lazy()))
    if isinstance(data, pl.LazyFrame):
        names = tuple(data.collect_schema().names())
        if _scans_files(data):  # may be larger than memory: polars' streaming engine reduces it
            return Source(data, "polars", False, POLARS_STREAMING, POLARS, names, None, "never",
                          lazy=nw.from_native(data))
        return Source(data, "polars", True, POLARS_MEMORY, POLARS, names, lazy=nw.from_native(data))
    frame = _narwhals(data)
    if frame is None and hasattr(data, "__arrow_c_stream__"):  # any object that exports Arrow data (PyCapsule)
        polars_frame = pl.DataFrame(data)  # read once: a stream may be consumed by reading it
        return Source(data, "arrow", True, POLARS_MEMORY, POLARS, tuple(polars_frame.columns),
                      lazy=nw.from_native(polars_frame.lazy()))
    if frame is None:
        raise InputTypeError(f"`data` must be {ACCEPTED}; got {type(data).__name__}")
    implementation = frame.implementation
    backend = str(implementation.name).lower()
    if isinstance(frame, nw.DataFrame):  # an eager frame (pyarrow, modin, cudf ...): read by polars
        kind = "pyarrow" if implementation.is_pyarrow() else backend
        names = tuple(frame.collect_schema().names())
        return Source(data, backend, True, POLARS_MEMORY, Output(kind, {}, implementation), names)
    if implementation.is_duckdb():
        engine = DUCKDB
    elif implementation.is_pyspark() or implementation.is_pyspark_connect():
        engine = SPARK
    else:
        engine = GENERIC.named(_ENGINE_NAMES.get(backend, backend))
    with engine.session():  # a closed or busy connection fails here first: the engine's own message
        names = tuple(frame.collect_schema().names())
    return Source(data, backend, False, engine, POLARS, names, limit, partial_sums, lazy=frame)


_ENGINE_NAMES = {"pyspark": "Spark", "pyspark_connect": "Spark", "sqlframe": "SQLFrame", "ibis": "ibis",
                 "dask": "dask", "duckdb": "DuckDB"}


def _scans_files(data: pl.LazyFrame) -> bool:
    """True for a LazyFrame whose plan reads files (CSV, Parquet, IPC, ...): it may be larger than memory."""
    return "SCAN" in data.explain(optimized=False)


# ------------------------------------------------------------------ pandas at the boundary
def _pandas_to_polars(data: Any, columns: list[str], keys: Sequence[str]) -> pl.DataFrame:
    """The ``columns`` of a pandas frame as polars; a Categorical key becomes an Enum of its categories' text."""
    frame = data.loc[:, columns]
    enums = {name: _enum_from_categorical(name, frame[name]) for name in dict.fromkeys(keys)
             if name in frame.columns and str(frame[name].dtype) == "category"}
    enums = {name: series for name, series in enums.items() if series is not None}
    order = [str(c) for c in frame.columns]
    frame = frame.drop(columns=list(enums)) if enums else frame
    try:
        try:
            converted = pl.from_pandas(frame, include_index=False)
        except ImportError:  # pyarrow absent and an extension dtype present
            converted = pl.DataFrame([_series_without_pyarrow(str(c), frame[c]) for c in frame.columns])
    except Exception as exc:  # mixed-type object columns and the like
        culprit = _unconvertible_column(frame)
        where = f"column {culprit!r}" if culprit is not None else "its columns"
        raise InputTypeError(
            f"`data` could not be converted from pandas to polars, {where}: {exc}. "
            "Check that the outcome, score and grouping columns hold one type each."
        ) from exc
    if enums:
        converted = converted.with_columns(list(enums.values())).select(order)
    return converted


def _unconvertible_column(frame: Any) -> str | None:
    """The first column polars cannot convert on its own (for the message; None if only their mix fails)."""
    for name in frame.columns:
        try:
            pl.from_pandas(frame[[name]], include_index=False)
        except Exception:  # the same conversion, one column at a time
            return str(name)
    return None


def _enum_from_categorical(name: str, series: Any) -> pl.Series | None:
    """A pandas Categorical as a polars Enum of its categories' text forms (None if two forms coincide).

    The Enum keeps the declared order of the categories, and all of them, used or not.
    """
    labels = [str(c) for c in series.dtype.categories]
    if len(set(labels)) != len(labels):
        return None  # e.g. 1 and "1": the text forms would merge two categories
    codes = series.cat.codes.to_numpy().astype(np.int64)
    index = pl.Series(codes)
    if (codes < 0).any():  # NaN in pandas: a null key
        index = index.scatter(np.flatnonzero(codes < 0), None)
    return pl.Series(labels, dtype=pl.Enum(labels)).gather(index).rename(name)


def _series_without_pyarrow(name: str, series: Any) -> pl.Series:
    """One pandas column as polars without pyarrow: numpy columns directly, extension dtypes with their mask."""
    import pandas as pd  # a lazy load: only a pandas caller gets here

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
