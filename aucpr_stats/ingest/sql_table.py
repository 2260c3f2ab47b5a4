"""What every engine's table is to the SQL reader: its dialect, its limits, and the refusal of a table too large.

:class:`SqlTable` is made by each backend (:mod:`.duckdb_source`,
:mod:`.spark_source`) and read by :mod:`.sql_source`, :mod:`.sql_reductions`
and :mod:`.sql_sums`.
"""

from __future__ import annotations

from typing import Any, Callable

import attrs
import polars as pl

from ..exceptions import TieTableTooLarge  # moved to exceptions.py; re-exported from its old place

__all__ = ["Dialect", "SqlTable", "TieTableTooLarge", "TABLE", "PARTIAL_SUMS", "SCORE_INDEX"]

#: The name queries give the caller's table; each backend binds it to the data.
TABLE = "__aucpr_t"

#: The key column of the score's position when several scores are read (renamed ``score`` at the end).
SCORE_INDEX = "__aucpr_k"

#: The values of ``partial_sums``: when the engine's partial sums replace the collected tie table.
PARTIAL_SUMS = ("auto", "always", "never")


@attrs.frozen
class Dialect:
    """What differs between the SQL of two engines.

    Attributes
    ----------
    name : str
        The engine's name, for messages.
    quote : callable
        ``quote(name)``: a column name as an SQL identifier.
    literal : callable
        ``literal(value)``: a Python str, bool, int or float as an SQL literal.
    median : str
        Format string of the interpolated median of ``{}`` (nulls ignored).
    row_number : str or None
        An expression numbering the rows of the table from 0 in their order
        (used only for the row numbers shown in error messages); None for an
        engine whose tables have no row order (Spark).
    wide_integer : str
        A 128-bit integer type, for sums that overflow 64 bits (:mod:`.sql_sums`).
    integer_division : str
        Format string of the floor of ``{0} / {1}`` for non-negative integers.
    """

    name: str
    quote: Callable[[str], str]
    literal: Callable[[Any], str]
    median: str
    row_number: str | None
    wide_integer: str = "HUGEINT"
    integer_division: str = "({0} // {1})"


@attrs.frozen(eq=False)
class SqlTable:
    """A table an engine can query.

    Attributes
    ----------
    schema : polars.Schema
        The polars type of every column (as the table would convert to polars).
    dialect : Dialect
    run : callable
        ``run(sql) -> polars.DataFrame``: runs a query in which the table is
        named :data:`TABLE`.
    max_tie_rows : int
        The most cells (rows of the tie table) collected into Python.
    partial_sums : {"auto", "always", "never"}
        When the engine's partial sums per group replace the tie table
        (:data:`PARTIAL_SUMS`, :func:`~aucpr_stats.ingest.backends.sql_input`).
    """

    schema: pl.Schema
    dialect: Dialect
    run: Callable[[str], pl.DataFrame]
    max_tie_rows: int
    partial_sums: str = "auto"
