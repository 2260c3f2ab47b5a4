"""What differs between the engines that run the reader's queries: one small, named hook each.

The reader writes every query once, in narwhals expressions (:mod:`.queries`).
Three steps cannot be written that way, so each engine has a hook for them,
and nothing else:

* **collecting several queries in one pass** (:meth:`Engine.collect`):
  polars plans them together in one ``polars.collect_all``, so a LazyFrame
  is read once and shared subplans are computed once (narwhals collects one
  query at a time); files are read by polars' streaming engine;
* **the row numbers in messages** (:meth:`Engine.example_rows`): narwhals
  numbers rows only along a given order, and a message needs the caller's
  own: polars keeps it, DuckDB numbers rows in its scan order
  (``row_number() OVER ()``); Spark, ibis and dask tables have no row order;
* **the in-memory sort's value ranges** (:meth:`Engine.value_pivots`,
  polars in memory only): a sample of the scores, read by ``gather_every``,
  cuts one group's scores into ranges sorted on their own threads;
* **naming the columns** (:meth:`Engine.renamed`): the reader works on
  internal column names (a caller's names may hold anything); Spark parses
  the names narwhals hands it (``a.b`` is a field of ``a``, a backtick
  quotes), so Spark renames the columns by their exact names itself.

Every other engine narwhals reads (ibis, dask, Spark Connect, SQLFrame ...)
uses :data:`GENERIC` and needs no code here.
"""

from __future__ import annotations

import contextlib
from typing import Any

import attrs
import narwhals as nw
import numpy as np
import polars as pl

from ..exceptions import InputError
from ..tables import pivots_from_sample

__all__ = ["Engine", "PolarsEngine", "DuckDBEngine", "SparkEngine", "GENERIC", "DUCKDB", "SPARK", "POLARS_MEMORY",
           "POLARS_STREAMING", "open_parquet", "ROW"]

#: The internal name of the row-number column.
ROW = "__aucpr_row"


def _with_declared_levels(frame: nw.LazyFrame, collected: pl.DataFrame) -> pl.DataFrame:
    """Enum columns (DuckDB ``ENUM``) come back as polars Categorical: give them back their declared levels."""
    schema = frame.collect_schema()
    cast = {name: pl.Enum(list(dtype.categories)) for name, dtype in schema.items()
            if isinstance(dtype, nw.Enum) and name in collected.columns
            and not isinstance(collected.schema[name], pl.Enum)}
    return collected.cast(cast) if cast else collected


@attrs.frozen
class Engine:
    """The hooks of an engine that reduces the rows itself (every engine narwhals reads).

    Attributes
    ----------
    name : str
        For messages ("Spark", "DuckDB", "ibis" ...).
    """

    name: str = "the engine"

    def named(self, name: str) -> "Engine":
        return attrs.evolve(self, name=name)

    def collect(self, frames: list[nw.LazyFrame]) -> list[pl.DataFrame]:
        """Each query's result as a polars DataFrame (one query at a time)."""
        return [_with_declared_levels(f, f.collect(backend="polars").to_native()) for f in frames]

    def session(self) -> contextlib.AbstractContextManager:
        """The context of one read of the caller's data (every query built and run inside it)."""
        return contextlib.nullcontext()

    def example_rows(self, frame: nw.LazyFrame, mask: nw.Expr, limit: int = 5) -> list[int] | str:
        """The first row numbers (0-based) where ``mask`` holds, or why there are none to show."""
        return f"not numbered, {self.name} tables have no row order"

    def value_pivots(self, frame: nw.LazyFrame, n_rows: int, threads: int) -> np.ndarray:
        """Pivots cutting one group's scores into ranges sorted on their own threads (none here)."""
        return np.empty(0)

    def renamed(self, frame: nw.LazyFrame, names: dict[str, str]) -> nw.LazyFrame:
        """The columns ``names`` holds (caller's name -> internal name), under their internal names."""
        return frame.select([nw.col(name).alias(internal) for name, internal in names.items()])


@attrs.frozen
class PolarsEngine(Engine):
    """polars: several queries in one ``collect_all``; files through the streaming engine."""

    streaming: bool = False

    def collect(self, frames: list[nw.LazyFrame]) -> list[pl.DataFrame]:
        if not self.streaming:
            return pl.collect_all([f.to_native() for f in frames])
        # the queries of one pass share their scan; polars' common-subplan elimination would cache that scan
        # for all of them (+110 MiB on 5e7 Parquet rows of 9,614 distinct scores, benchmarks/README.md)
        # where each query streams it on its own within its morsels
        optimizations = pl.QueryOptFlags()
        optimizations.comm_subplan_elim = False
        return pl.collect_all([f.to_native() for f in frames], engine="streaming", optimizations=optimizations)

    def example_rows(self, frame: nw.LazyFrame, mask: nw.Expr, limit: int = 5) -> list[int] | str:
        numbered = nw.from_native(frame.to_native().with_row_index(ROW))
        rows = numbered.filter(mask).select(ROW).head(limit).collect().to_native()
        return rows[ROW].to_list()

    def value_pivots(self, frame: nw.LazyFrame, n_rows: int, threads: int) -> np.ndarray:
        """Pivots from a sample of 4,096 rows per range of the scores ``__aucpr_s`` and classes ``__aucpr_y``."""
        step = max(n_rows // (4096 * threads), 1)
        sample = frame.to_native().select(pl.col("__aucpr_s").gather_every(step),
                                          pl.col("__aucpr_y").gather_every(step)).collect()
        return pivots_from_sample(sample["__aucpr_s"].to_numpy(), sample["__aucpr_y"].fill_null(False).to_numpy(),
                                  threads)


@attrs.frozen
class DuckDBEngine(Engine):
    """DuckDB: row numbers in its scan order; one call at a time per connection."""

    def session(self) -> contextlib.AbstractContextManager:
        """A connection running another call refuses this one (threads sharing it): say what to do."""
        return _connection_not_shared()

    def example_rows(self, frame: nw.LazyFrame, mask: nw.Expr, limit: int = 5) -> list[int] | str:
        numbered = nw.from_native(frame.to_native().project(f"*, row_number() OVER () - 1 AS {ROW}"))
        rows = numbered.filter(mask).select(ROW).sort(ROW).head(limit).collect(backend="polars").to_native()
        return [int(r) for r in rows[ROW]]


@contextlib.contextmanager
def _connection_not_shared():
    """DuckDB refuses a second call on a connection still running one (threads sharing it): say what to do."""
    import duckdb  # DuckDB is an optional dependency: this engine only runs when it is installed

    try:
        yield
    except duckdb.ResourceInUseException as exc:
        raise InputError("`data`: its DuckDB connection is running another call (threads sharing one "
                         "connection?); DuckDB runs one call per connection at a time and refuses the others. "
                         "Give each thread its own connection, `con.cursor()`, and build the relation from it "
                         f"(DuckDB: {exc})") from None
    except duckdb.ConnectionException as exc:
        raise InputError("`data`: its DuckDB connection is closed (or broken), so the relation cannot be read; "
                         f"build it again from an open connection (DuckDB: {exc})") from None


@attrs.frozen
class SparkEngine(Engine):
    """Spark (classic and Connect): the columns renamed by their exact names (Spark parses what narwhals passes)."""

    def renamed(self, frame: nw.LazyFrame, names: dict[str, str]) -> nw.LazyFrame:
        native = frame.to_native().withColumnsRenamed(dict(names))
        return nw.from_native(native).select(list(names.values()))


#: Engines narwhals reads with nothing of their own.
GENERIC = Engine()

#: polars over data in memory, and over files (streaming); DuckDB.
POLARS_MEMORY = PolarsEngine("polars")
POLARS_STREAMING = PolarsEngine("polars", streaming=True)
DUCKDB = DuckDBEngine("DuckDB")
SPARK = SparkEngine("Spark")


def open_parquet(path: str) -> Any:
    """Parquet files (a path or glob) as a DuckDB relation of a private in-memory connection."""
    import duckdb

    try:
        return duckdb.connect().read_parquet(path)
    except duckdb.Error as exc:
        raise InputError(f"`data` {path!r} could not be read as Parquet by DuckDB: {exc}") from exc
