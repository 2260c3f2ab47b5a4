"""Spark DataFrames as inputs (classic and Spark Connect): Spark reduces the rows, :mod:`.sql_source` does the rest.

The DataFrame is registered as a temporary view of its own session and
queried with Spark SQL; only the counts of the checks and the cells of the
tie table come back to the driver (through Arrow). Nothing here imports
pyspark until a Spark DataFrame is given.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ..exceptions import InputTypeError
from .sql_table import TABLE, Dialect, SqlTable

__all__ = ["SPARK", "spark_table", "polars_type"]


def _quote(name: str) -> str:
    return "`" + str(name).replace("`", "``") + "`"


def _literal(value: Any) -> str:
    """A level of the outcome as a Spark SQL literal (backslash escapes in strings)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        return f"CAST({value!r} AS DOUBLE)"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    raise InputTypeError(f"a level of type {type(value).__name__} cannot be compared in Spark; got {value!r}")


#: Spark SQL: percentile() is exact and interpolates; a DataFrame has no row order, so messages show no row numbers.
SPARK = Dialect(name="Spark", quote=_quote, literal=_literal, median="percentile({}, 0.5)", row_number=None,
                wide_integer="DECIMAL(38, 0)", integer_division="({0} div {1})")

_SIMPLE = {
    "double": pl.Float64, "float": pl.Float32, "bigint": pl.Int64, "int": pl.Int32, "smallint": pl.Int16,
    "tinyint": pl.Int8, "boolean": pl.Boolean, "string": pl.String, "date": pl.Date,
    "timestamp": pl.Datetime("us", "UTC"), "timestamp_ntz": pl.Datetime("us"), "binary": pl.Binary,
}


def polars_type(data_type: Any) -> pl.DataType:
    """The polars type a Spark column converts to (its Arrow type), for the checks and messages."""
    text = data_type.simpleString()
    if text.startswith("decimal"):
        return pl.Decimal(data_type.precision, data_type.scale)
    if text.startswith(("varchar", "char")):
        return pl.String
    return _SIMPLE.get(text, pl.Object)


def _to_polars(frame: Any) -> pl.DataFrame:
    if hasattr(frame, "toArrow"):  # Spark 4
        return pl.from_arrow(frame.toArrow())
    return pl.from_pandas(frame.toPandas())  # pragma: no cover - Spark 3.5


def spark_table(data: Any, max_tie_rows: int) -> SqlTable:
    """The :class:`SqlTable` of a Spark DataFrame, queried through a temporary view of its session."""
    session = data.sparkSession
    schema = pl.Schema({field.name: polars_type(field.dataType) for field in data.schema.fields})

    def run(sql: str) -> pl.DataFrame:
        data.createOrReplaceTempView(TABLE)  # again before each query: another input may have taken the name
        return _to_polars(session.sql(sql))

    return SqlTable(schema=schema, dialect=SPARK, run=run, max_tie_rows=max_tie_rows)
