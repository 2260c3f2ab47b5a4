"""Which inputs an SQL engine reads (DuckDB relations, Parquet files, Spark DataFrames), told apart without importing it.

Every entry point (``aucpr``, ``auroc``, ``compare``, ``pr_curve``,
``roc_curve``) accepts, in place of a pandas or polars frame:

* a DuckDB relation (``duckdb.DuckDBPyRelation``, e.g. ``con.sql("FROM t")``);
* a path (``str`` or ``pathlib.Path``) of a Parquet file, or a glob of
  Parquet files, ending in ``.parquet``: read by DuckDB's ``read_parquet``;
* a Spark DataFrame (classic or Spark Connect).

The engine reduces the rows to the tie table (:mod:`.sql_source`); results
come back as polars frames. :func:`sql_input` sets the limit on what is
collected into Python.
"""

from __future__ import annotations

import os
from typing import Any

import attrs

from .._validate import choice_iv, integer_iv
from ..exceptions import InputError
from .sql_table import PARTIAL_SUMS

__all__ = ["SqlInput", "sql_input", "backend_of", "is_backend_input", "is_parquet_path", "backend_columns",
           "sql_table", "read_backend", "MAX_TIE_ROWS"]

#: The default limit on the rows of the tie table collected from an engine (about 40 bytes a row in Python).
MAX_TIE_ROWS = 5_000_000


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


def backend_of(data: Any) -> str | None:
    """``"duckdb"``, ``"parquet"``, ``"spark"`` or None, from the type's module and name (no import)."""
    if isinstance(data, SqlInput):
        data = data.data
    if is_parquet_path(data):
        return "parquet"
    module, name = type(data).__module__, type(data).__name__
    if module.startswith("duckdb") and name == "DuckDBPyRelation":
        return "duckdb"
    if module.startswith("pyspark.sql") and name == "DataFrame":
        return "spark"
    return None


def is_backend_input(data: Any) -> bool:
    """True for the inputs :func:`sql_table` reads."""
    return backend_of(data) is not None


def sql_input(data: Any, *, max_tie_rows: int = MAX_TIE_ROWS, partial_sums: str = "auto") -> SqlInput:
    """An engine's table with a limit on the rows of the tie table collected from it.

    The engine reduces the rows to one row per (group, distinct score); at
    most ``max_tie_rows`` such rows are brought into Python (about 40 bytes
    each), and a larger table is refused with
    :class:`~aucpr_stats.ingest.sql_source.TieTableTooLarge` before it is
    collected. Pass the returned object wherever the entry points take data.

    Statistics that are sums over the tie rows need no table: ``aucpr`` with
    ``estimator="average_precision"`` and/or ``"lower_trapezoid"``, and
    ``auroc`` (A'), of the full area, without ``fold=``, ``cluster=``,
    ``weights=`` or ``prevalence=``. For them the engine can add up the sums
    itself and return one row per group (:mod:`.engine_sums`), exactly; the
    result then serves the intervals that need only those sums (AUCPR
    ``"logit"``, ``"binomial"``, ``"wilson"``; AUROC ``"delong"``,
    ``"logit"``, ``"hanley_mcneil"``, ``"newcombe"``) and refuses the rest
    (the bootstrap, curves) with a message.

    Parameters
    ----------
    data : duckdb.DuckDBPyRelation, Parquet path or pyspark.sql.DataFrame
    max_tie_rows : int
        At least 1; default :data:`MAX_TIE_ROWS` (5,000,000).
    partial_sums : {"auto", "always", "never"}
        ``"auto"`` (default): partial sums when the collapsed table of such a
        call is over ``max_tie_rows``: found from an estimate in the pass of
        the data checks when clearly over (nothing else is collected), else
        by the collapsed query's limit (one more pass).
        ``"always"``: partial sums for every call, one pass, nothing per
        score value collected (other calls are refused). ``"never"``: refuse
        a table over the limit.

    Examples
    --------
    >>> import duckdb
    >>> from aucpr_stats import auroc
    >>> from aucpr_stats.ingest import sql_input
    >>> rel = duckdb.sql("SELECT i % 2 AS y, i % 7 AS s FROM range(100) t(i)")
    >>> auroc(sql_input(rel, max_tie_rows=1_000), "y", "s").to_frame()["n_pos"][0]
    50
    """
    if not is_backend_input(data) or isinstance(data, SqlInput):
        raise TypeError(
            "`data` of sql_input() must be a DuckDB relation, a Parquet path or a Spark DataFrame; "
            f"got {type(data).__name__}"
        )
    return SqlInput(data, integer_iv(max_tie_rows, "max_tie_rows", 1),
                    choice_iv(partial_sums, "partial_sums", PARTIAL_SUMS))


def sql_table(data: Any):
    """The :class:`~aucpr_stats.ingest.sql_table.SqlTable` of an input :func:`backend_of` recognises."""
    limit, partial_sums = MAX_TIE_ROWS, "auto"
    if isinstance(data, SqlInput):
        data, limit, partial_sums = data.data, data.max_tie_rows, data.partial_sums
    if backend_of(data) == "spark":
        from .spark_source import spark_table

        table = spark_table(data, limit)
    else:
        from .duckdb_source import duckdb_table

        table = duckdb_table(data, limit)
    return attrs.evolve(table, partial_sums=partial_sums)


def backend_columns(data: Any) -> list[str]:
    """Column names of an engine's table (a Parquet file's schema is read, not its rows)."""
    return list(sql_table(data).schema.names())


def read_backend(data: Any, spec, by: tuple, fold: str | None, paired: bool, collapse: bool = False,
                 sums_ties: str | None = None, thin: int | None = None):
    """The reader :func:`~aucpr_stats.ingest.source_for` returns for these inputs (:func:`.sql_source.read_sql`).

    ``collapse``: the statistics asked for read runs of negatives only through their counts, so the engine
    may collapse them (a table of about two rows per score holding a positive). ``sums_ties``: every statistic
    asked for is an engine sum (:mod:`.engine_sums`), under this ``ties=`` option. ``thin``: a curve's ``grid=``
    (the engine thins the table, :meth:`~aucpr_stats.ties.TieTable.thinned`).
    """
    from .sql_source import read_sql

    if spec.weights is not None:
        raise InputError("`weights=` is not supported for DuckDB, Parquet or Spark inputs yet; collect the rows "
                         "(e.g. `relation.pl()`) or aggregate the weights per (group, score) first")
    return read_sql(sql_table(data), spec, by, fold, paired, collapse=collapse, sums_ties=sums_ties, thin=thin)
