"""One request's pass over the data: the checks, then the tie step of its road (in memory, or an engine).

:class:`Reader` names the request's columns internally (a caller's name may
hold a dot or a backtick an engine would parse), builds the expressions of
the checks (:mod:`.coding`, :mod:`.stats`), and runs them: in memory together
with the rows of the tie step in one collect (:mod:`.rows`); on an engine
first, then the engine road (:mod:`.engine_road`); polars reading files
through its streaming engine.
"""

from __future__ import annotations

from typing import Any

import attrs
import narwhals as nw
import polars as pl

from .._validate import ColumnSpec
from ..exceptions import InputError, InputTypeError
from ..request import ROW_ID
from .checks import NO_ROWS, check_stats
from .coding import Coding, check_score_types, coding_of
from .engine_road import EngineRoad
from .exact_scores import float_expressions, needs_bounds
from .rows import Built, TieQueries, build_tables, score_rows, tie_queries
from .source import Source
from .stats import exact_levels, level_counts, read_stats, stats_query
from .weights import check_weights

__all__ = ["Reader"]


class Reader:
    """One request's pass over the data: the checks, then the tie step of its road."""

    def __init__(self, request: Any):
        self.request = request
        self.source: Source = request.source
        self.original: ColumnSpec = request.columns
        self.collect = self.source.engine.collect
        spec, unit, counts = request.columns, request.design.unit, request.design.counts
        columns = list(dict.fromkeys([spec.outcome, *spec.scores, *request.keys,
                                      *((unit,) if unit and unit != ROW_ID else ()),
                                      *((spec.weights,) if spec.weights else ()), *((counts,) if counts else ())]))
        if self.source.n_rows_known() == 0:  # without rows a column has no type to check (a header-only CSV)
            raise InputError(NO_ROWS)
        # the queries name the columns by internal names: a caller's name may hold anything (a dot, a backtick)
        self.names = {name: f"__aucpr_c{i}" for i, name in enumerate(columns)}
        self.shown = {internal: name for name, internal in self.names.items()}
        internal = self.names.get
        self.spec = attrs.evolve(spec, outcome=internal(spec.outcome), by=tuple(map(internal, spec.by)),
                                 score=tuple(map(internal, spec.scores)) if spec.multi_score else internal(spec.score),
                                 weights=None if spec.weights is None else internal(spec.weights))
        self.by = tuple(map(internal, request.keys))
        self.unit = ROW_ID if unit == ROW_ID else (None if unit is None else internal(unit))
        self.counts = None if counts is None else internal(counts)
        lf = self.source.frame(columns, keys=request.keys, names=self.names)
        if unit == ROW_ID:  # every row its own cluster: the rows in memory, numbered
            lf = nw.from_native(lf.to_native().with_row_index(ROW_ID))
        schema = lf.collect_schema()
        # a NaN id in a floating-point key or unit column is a missing id, whatever the frame type (polars
        # kept it as a level of its own, pandas read it as missing): one rule for every input
        float_ids = [c for c in (*self.by, *((self.unit,) if self.unit and self.unit != ROW_ID else ()))
                     if schema[c].is_float()]
        if float_ids:
            lf = lf.with_columns(*[nw.when(~nw.col(c).is_nan()).then(nw.col(c)).alias(c) for c in float_ids])
        self.lf = lf
        self.schema = lf.collect_schema()
        not_numeric = check_score_types(self.schema, self.spec)
        if not_numeric:
            if self.collect([lf.select(nw.len().alias("n"))])[0]["n"][0] == 0:
                raise InputError(NO_ROWS)
            name = not_numeric[0]
            raise InputTypeError(f"`score` column {self.shown[name]!r} must be numeric; got type {self.schema[name]}")
        self.coding: Coding = coding_of(self.spec, self.schema, shown=self.shown)
        self.bounds = needs_bounds(self.schema, self.spec.scores)
        if counts is not None and not self.schema[self.counts].is_integer():
            raise InputTypeError(f"`counts` column {counts!r} must hold integers; got type "
                                 f"{self.schema[self.counts]}")

    def caller_names(self, keys: pl.DataFrame, directions: dict) -> tuple[pl.DataFrame, dict]:
        """The keys frame and the directions under the caller's column names again."""
        keys = keys.rename({c: self.shown[c] for c in keys.columns if c in self.shown})
        directions = {self.shown.get(k, k): v for k, v in directions.items()}
        if "__medians" in directions:
            directions["__medians"] = {self.shown.get(k, k): v for k, v in directions["__medians"].items()}
        return keys, directions

    # ------------------------------------------------------------------ the checks
    def _examples(self, which: str, column: Any = None) -> list | str:
        coding = self.coding
        if which in coding.w_masks:
            mask = coding.w_masks[which]
        elif which == "infinite":  # (the checks name a score by the caller's name)
            infinite = coding.s_infinite[self.names.get(column, column)]
            mask = infinite if infinite is not None else nw.lit(False)
        else:
            mask = coding.row_missing
        rows = self.source.engine.example_rows(self.lf, mask)
        native = self.source.native
        if self.source.backend == "pandas" and isinstance(rows, list) and not _positional(native.index):
            return f"index labels {native.index[rows].tolist()}"  # the labels pandas users look rows up by
        return rows

    def _check(self, row: dict) -> tuple[dict, dict]:
        stats, directions, extremes = read_stats(row, self.spec, self.coding, self.bounds)
        if stats["levels"] is None:
            stats |= exact_levels(self.lf, self.collect, self.spec, self.coding)
        if self.spec.weights:  # a missing weight is named as such, before the rows it makes missing
            check_weights(stats, self.original.weights, self.spec.missing, self._examples)
        check_stats(stats, self.original, self._examples,
                    lambda which: level_counts(self.lf, self.collect, self.spec, self.coding, which))
        self.extremes = extremes
        return stats, directions

    def _float_scores(self, directions: dict) -> dict:
        """Each score as float64 (exact labels for wide types), negated where it points down."""
        as_float = float_expressions(self.lf, self.schema, self.spec.scores, self.collect,
                                     getattr(self, "extremes", None))
        for name, direction in directions.items():
            if direction == "lower" and name in as_float:  # negated (exact); + 0.0 turns -0.0 into 0.0
                as_float[name] = -as_float[name] + 0.0
        return as_float

    # ------------------------------------------------------------------ the roads
    def tables(self) -> tuple[Built, pl.DataFrame, dict]:
        if self.source.in_memory:
            return self._polars()
        if self.source.max_tie_rows is None:  # polars reading files: its streaming engine, no limit
            # one cell per (keys, score), or one group's class scores when they are mostly distinct
            one_group = not self.by and not self.unit and not self.spec.multi_score and not self.request.paired
            plain = {name: nw.col(name).cast(nw.Float64) for name in self.spec.scores}
            distinct = one_group and self.spec.weights is None and self._mostly_distinct(plain)
            return self._polars(cells=not distinct and not self.request.paired)
        return self._engine()

    def _polars(self, cells: bool = False) -> tuple[Built, pl.DataFrame, dict]:
        """The checks and the rows (or cells) of the tie step in one collect of polars (in memory, or files)."""
        spec, request = self.spec, self.request
        plain = {name: nw.col(name).cast(nw.Float64) for name in spec.scores}
        if spec.direction == "auto" or self.bounds:
            # the medians (or the range of wide integer scores) decide the tie step's expressions: checked first
            stats, directions = self._check(self.collect([self._stats_query(plain)])[0].row(0, named=True))
            queries = self._tie_queries(self._float_scores(directions), cells=cells)
            collected = self.collect(_planned(queries))
        else:
            directions = {name: spec.direction for name in spec.scores}
            queries = self._tie_queries(self._float_scores(directions), cells=cells)
            stats_row, *collected = self.collect([self._stats_query(plain), *_planned(queries)])
            stats, directions = self._check(stats_row.row(0, named=True))
        keys = collected.pop(0) if queries.keys is not None else _ungrouped_keys(stats)
        built = build_tables(queries, keys.with_columns(pl.col("n_missing").cast(pl.Int64)), collected, spec,
                             request.tuning)
        ties = built.ties
        grid = request.reduction.grid
        if grid is not None and self.unit is None and not request.paired:
            ties = ties.thinned(grid)
        return Built(ties, built.keys, built.weighted_cells, built.weight_sums), built.keys, directions

    def _stats_query(self, as_float: dict) -> nw.LazyFrame:
        return stats_query(self.lf, self.spec, self.coding, as_float, self.bounds)

    def _tie_queries(self, as_float: dict, cells: bool = False) -> TieQueries:
        return tie_queries(self.lf, self.spec, self.by, self.unit, self.request.paired, self.coding, as_float,
                           self.source.engine, self.source.n_rows_known(), self.request.tuning, cells=cells)

    def _engine(self) -> tuple[Built, pl.DataFrame, dict]:
        """An engine with a limit: the checks first, then the engine road under the limit."""
        plain = {name: nw.col(name).cast(nw.Float64) for name in self.spec.scores}
        stats, directions = self._check(self.collect([self._stats_query(plain)])[0].row(0, named=True))
        self.stats = stats
        return EngineRoad(self, stats, directions).tables() + (directions,)

    def _mostly_distinct(self, as_float: dict) -> bool:
        """More than a quarter of the scores distinct (HyperLogLog, one streaming pass): the class scores road."""
        rows, _, _ = score_rows(self.lf, self.spec, self.by, self.unit, self.coding, as_float)
        native = rows.to_native().select(n=pl.len(), distinct=pl.col("__aucpr_s").approx_n_unique())
        counts = native.collect(engine="streaming")
        return 4 * counts["distinct"][0] > counts["n"][0]


def _planned(queries: TieQueries) -> list:
    return ([queries.keys] if queries.keys is not None else []) + list(queries.tie)


def _ungrouped_keys(stats: dict) -> pl.DataFrame:
    return pl.DataFrame({"n_missing": [stats["row_missing"]], "n_rows": [stats["n_rows"]]},
                        schema={"n_missing": pl.Int64, "n_rows": pl.Int64})


def _positional(index: Any) -> bool:
    """True for pandas' default index 0, 1, 2, ... (its labels are the row numbers)."""
    return getattr(index, "start", None) == 0 and getattr(index, "step", None) == 1


