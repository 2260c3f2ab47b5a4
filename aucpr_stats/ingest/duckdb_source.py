"""DuckDB relations and Parquet files as inputs: DuckDB reduces the rows, :mod:`.sql_source` does the rest.

A Parquet path (or glob) is opened with ``read_parquet`` in a private
in-memory DuckDB connection; a relation is queried in its own connection
(``DuckDBPyRelation.query``), so views, attached databases and settings such
as ``memory_limit`` of the caller's connection apply. Results of queries
come back through Arrow (pyarrow) as polars frames.
"""

from __future__ import annotations

import os
from typing import Any

import polars as pl

from ..exceptions import InputError, InputTypeError
from .backends import is_parquet_path
from .sql_table import TABLE, Dialect, SqlTable

__all__ = ["DUCKDB", "duckdb_table"]


def _quote(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _literal(value: Any) -> str:
    """A level of the outcome as a DuckDB literal."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise InputTypeError(f"a level of type {type(value).__name__} cannot be compared in DuckDB; got {value!r}")


#: DuckDB's SQL: quantile_cont is the interpolated median; row_number() OVER () follows the scan order.
DUCKDB = Dialect(name="DuckDB", quote=_quote, literal=_literal, median="median({})",
                 row_number="(row_number() OVER () - 1)")


def _enum_levels(relation: Any) -> dict[str, list[str]]:
    """The declared levels of the relation's ENUM columns, by column name."""
    out = {}
    for name, kind in zip(relation.columns, relation.types):
        if getattr(kind, "id", None) == "enum":
            children = dict(kind.children)
            out[name] = [str(level) for level in children.get("values", [])]
    return out


def duckdb_table(data: Any, max_tie_rows: int) -> SqlTable:
    """The :class:`SqlTable` of a DuckDB relation, or of Parquet files read through DuckDB."""
    import duckdb

    if is_parquet_path(data):
        path = os.fspath(data)
        try:
            relation = duckdb.connect().read_parquet(path)
        except duckdb.Error as exc:
            raise InputError(f"`data` {path!r} could not be read as Parquet by DuckDB: {exc}") from exc
    else:
        relation = data
    enums = _enum_levels(relation)
    schema = {name: pl.Enum(enums[name]) if name in enums else dtype
              for name, dtype in relation.limit(0).pl().schema.items()}

    def run(sql: str) -> pl.DataFrame:
        frame = relation.query(TABLE, sql).pl()
        # DuckDB ENUM columns arrive as polars Categorical: give them back their declared levels and order
        cast = {name: pl.Enum(levels) for name, levels in enums.items() if name in frame.columns
                and frame.schema[name] == pl.Categorical}
        return frame.cast(cast) if cast else frame

    return SqlTable(schema=pl.Schema(schema), dialect=DUCKDB, run=run, max_tie_rows=max_tie_rows)
