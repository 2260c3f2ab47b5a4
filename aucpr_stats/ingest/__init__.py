"""The reader: one request in, the tie tables of every group out, the data read once and checked first.

:func:`read` takes a :class:`~aucpr_stats.request.Request` (the front door
built it) and reads the data through narwhals, whatever holds it
(:mod:`.source`): one set of expressions (:mod:`.coding`, :mod:`.stats`)
counts what the checks need (:mod:`.checks`: missing values, infinite
scores, outcome levels, weights), and the tie step follows one of two roads:

* **in memory** (:mod:`.rows`): the rows, read by polars together with the
  checks in one ``collect_all``, go to the table factory's fast sorts;
* **an engine** (:mod:`.cells`, :mod:`.sums`): the engine reduces the rows
  to cells (runs of negatives collapsed, a curve thinned, or the partial
  sums, as the request's :class:`~aucpr_stats.request.Reduction` allows);
  at most ``max_tie_rows`` rows reach Python.

Both end in the same tables (:mod:`aucpr_stats.tables`), so a result is the
same whatever the input. What comes back (:class:`Ingested`): one table
segment per group (and per score, and per level of ``between``), the keys,
the units (folds, clusters) and weighted cells where asked for, the notes of
groups without both classes; the warnings of the call are raised here.
"""

from __future__ import annotations

from typing import Any

import attrs
import narwhals as nw
import numpy as np
import polars as pl

from .._validate import SCORE_KEY, ColumnSpec
from ..exceptions import InputError, InputTypeError, TieTableTooLarge
from ..tables import (keep_segments, merge_units, regroup_cells, spread_paired, spread_segments, summed_table,
                      ties_from_cells)
from ..request import ROW_ID
from ..ties import TieTable
from ..estimators.from_sums import statistics_from_sums
from . import cells as engine_cells
from .checks import NO_ROWS, check_stats
from .coding import Coding, check_score_types, coding_of
from .direction import warn_auto_direction
from .exact_scores import float_expressions, needs_bounds
from .levels import DROPPED_NOTE, UNUSED_NOTE, expand_levels, warn_missing_keys
from .notes import group_notes, warn_degenerate, zero_weight_notes
from .rows import K, TieQueries, build_tables, score_rows, tie_queries
from .source import MAX_TIE_ROWS, PARTIAL_SUMS, Source, SqlInput, detect, is_data, sql_input
from .stats import exact_levels, level_counts, read_stats, stats_query
from .sums import summed_rows, sums_query
from .weights import check_weights

__all__ = ["Ingested", "FoldTables", "read", "detect", "is_data", "sql_input", "SqlInput", "Source",
           "MAX_TIE_ROWS", "PARTIAL_SUMS"]


@attrs.frozen(eq=False)
class FoldTables:
    """Tie tables per (group, unit): the caller's folds, or the clusters.

    Attributes
    ----------
    ties : TieTable
        One segment per (group, unit) combination present in the data.
    group : ndarray of int64
        Group (row of the result's keys) of each segment.
    fold : polars.Series
        The unit's label of each segment.
    column : str
        Name of the fold (or cluster) column.
    """

    ties: TieTable
    group: np.ndarray
    fold: pl.Series
    column: str


@attrs.frozen(eq=False)
class Ingested:
    """The tables of one request.

    Attributes
    ----------
    ties : TieTable or None
        One segment per group, in the row order of ``keys`` (None for paired
        comparisons, whose tables are in ``paired``).
    keys : polars.DataFrame
        The group key columns (in ``by`` order, then ``between``, sorted
        ascending, nulls last; then ``score`` in the order given when there
        are several scores) and ``n_missing``, the rows dropped per group.
    spec : ColumnSpec
    kind : Output
        The caller's frame type, for frames handed back.
    folds, clusters : FoldTables, optional
        With ``fold=`` (``cluster=``): the tie tables per (group, unit).
    paired : PairedScores, optional
        For paired comparisons: the tables of every score on the complete rows.
    notes : tuple
        Per group, why it has no estimate (no positives, no negatives), or None.
    unused : ndarray of bool, optional
        Per group, True for a group made only by a declared level absent from the data.
    missing_keys : tuple
        (column, rows) for each ``by`` column with missing values.
    directions : dict
        The direction each score was read in (``"higher"`` or ``"lower"``).
    weighted_cells : WeightedCells, optional
        With ``weights=`` (and no unit): the rows per (score, weight) cell of each group.
    weight_sums : WeightSums, optional
        With ``weights=``: rows, total and squared weights per group and class.
    """

    ties: TieTable | None
    keys: pl.DataFrame
    spec: ColumnSpec
    kind: Any
    folds: FoldTables | None = None
    paired: Any = None
    notes: tuple = ()
    unused: np.ndarray | None = None
    missing_keys: tuple = ()
    directions: dict = attrs.field(factory=dict)
    clusters: FoldTables | None = None
    weighted_cells: Any = None
    weight_sums: Any = None

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The key columns of ``keys`` in order (``by``, ``between``, then ``score``): results use these."""
        return tuple(c for c in self.keys.columns if c != "n_missing")

    @property
    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Positives and negatives per group."""
        table = self.ties if self.ties is not None else self.paired.tables[0]
        return table.n_pos, table.n_neg


@attrs.frozen(eq=False)
class _Tables:
    """What a road returns: the tables, their keys (with ``n_missing`` and ``n_rows``), and with weights more."""

    ties: Any
    keys: pl.DataFrame
    weighted_cells: Any = None
    weight_sums: Any = None


def read(request: Any, stacklevel: int = 3) -> Ingested:
    """The tables of ``request``: check the data, build the tie tables, note (and warn about) degenerate groups.

    ``stacklevel`` of the warnings: as :func:`warnings.warn` counts it from this function's caller.

    Raises
    ------
    InputError, InputTypeError, MissingValueError, OutcomeError
        Empty data, missing values (``missing="error"``), infinite scores,
        non-numeric scores, outcomes that are not binary, missing units. The
        message names the column at fault.
    TieTableTooLarge
        An engine's table over ``max_tie_rows`` (see :func:`sql_input`).
    """
    reader = _Reader(request)
    built, keys, directions = reader.tables()
    keys, directions = reader.caller_names(keys, directions)
    ingested = _assemble(request, attrs.evolve(built, keys=keys), keys, directions)
    n_pos, n_neg = ingested.counts
    notes = group_notes(n_pos, n_neg)
    if ingested.weight_sums is not None:
        notes = zero_weight_notes(notes, ingested.weight_sums)
    if ingested.unused is not None:
        notes = [UNUSED_NOTE if unused else note for note, unused in zip(notes, ingested.unused)]
    if "n_missing" in ingested.keys.columns:  # a group whose rows were all dropped says so
        dropped = ingested.keys["n_missing"].to_numpy() > 0
        notes = [DROPPED_NOTE if note == "no rows" and gone else note for note, gone in zip(notes, dropped)]
    warn_auto_direction(directions, stacklevel=stacklevel + 2)
    warn_missing_keys(ingested.missing_keys, stacklevel=stacklevel + 2)
    warn_degenerate(ingested.keys, ingested.key_columns, notes, stacklevel=stacklevel + 2)
    directions = {k: v for k, v in directions.items() if not k.startswith("__")}
    return attrs.evolve(ingested, notes=tuple(notes), directions=directions)


class _Reader:
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
    def tables(self) -> tuple[_Tables, pl.DataFrame, dict]:
        if self.source.in_memory:
            return self._in_memory()
        return self._engine()

    def _in_memory(self) -> tuple[_Tables, pl.DataFrame, dict]:
        spec, request = self.spec, self.request
        plain = {name: nw.col(name).cast(nw.Float64) for name in spec.scores}
        if spec.direction == "auto" or self.bounds:
            # the medians (or the range of wide integer scores) decide the tie step's expressions: checked first
            stats, directions = self._check(self.collect([self._stats_query(plain)])[0].row(0, named=True))
            queries = self._tie_queries(self._float_scores(directions))
            collected = self.collect(_planned(queries))
        else:
            directions = {name: spec.direction for name in spec.scores}
            queries = self._tie_queries(self._float_scores(directions))
            stats_row, *collected = self.collect([self._stats_query(plain), *_planned(queries)])
            stats, directions = self._check(stats_row.row(0, named=True))
        keys = collected.pop(0) if queries.keys is not None else _ungrouped_keys(stats)
        built = build_tables(queries, keys.with_columns(pl.col("n_missing").cast(pl.Int64)), collected, spec,
                             request.tuning)
        ties = built.ties
        grid = request.reduction.grid
        if grid is not None and self.unit is None and not request.paired:
            ties = ties.thinned(grid)
        return _Tables(ties, built.keys, built.weighted_cells, built.weight_sums), built.keys, directions

    def _stats_query(self, as_float: dict) -> nw.LazyFrame:
        return stats_query(self.lf, self.spec, self.coding, as_float, self.bounds)

    def _tie_queries(self, as_float: dict, cells: bool = False) -> TieQueries:
        return tie_queries(self.lf, self.spec, self.by, self.unit, self.request.paired, self.coding, as_float,
                           self.source.engine, self.source.n_rows_known(), self.request.tuning, cells=cells)

    def _engine(self) -> tuple[_Tables, pl.DataFrame, dict]:
        plain = {name: nw.col(name).cast(nw.Float64) for name in self.spec.scores}
        stats, directions = self._check(self.collect([self._stats_query(plain)])[0].row(0, named=True))
        self.stats = stats
        if self.source.max_tie_rows is None:  # polars reading files: its streaming engine, no limit
            return self._streaming(directions) + (directions,)
        return _EngineRoad(self, stats, directions).tables() + (directions,)

    def _streaming(self, directions: dict) -> tuple[_Tables, pl.DataFrame]:
        """polars' streaming engine: one cell per (keys, score), or one group's class scores when mostly distinct."""
        as_float = self._float_scores(directions)
        one_group = not self.by and not self.unit and not self.spec.multi_score and not self.request.paired
        cells = not (one_group and self.spec.weights is None and self._mostly_distinct(as_float))
        queries = self._tie_queries(as_float, cells=cells and not self.request.paired)
        collected = self.collect(_planned(queries))
        keys = collected.pop(0) if queries.keys is not None else _ungrouped_keys(self.stats)
        built = build_tables(queries, keys.with_columns(pl.col("n_missing").cast(pl.Int64)), collected, self.spec,
                             self.request.tuning)
        ties = built.ties
        if self.request.reduction.grid is not None and self.unit is None and not self.request.paired:
            ties = ties.thinned(self.request.reduction.grid)
        return _Tables(ties, built.keys, built.weighted_cells, built.weight_sums), built.keys

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


# ------------------------------------------------------------------ the engine road
_NOT_SUMMED = ("partial_sums='always' (aucpr_stats.sql_input) serves only statistics that are sums over the "
               "tie rows: aucpr(estimator='average_precision' or 'lower_trapezoid', without recall= or "
               "prevalence=) and auroc() of the full area, without fold=, cluster= or weights=; this call needs "
               "the tie table")

_COLLAPSED = ("tie table with runs of negatives collapsed (rows holding positives, and one per run of negatives "
              "between them)")


class _EngineRoad:
    """The tie step on an engine: cells (collapsed, thinned) under the limit, or the partial sums."""

    def __init__(self, reader: _Reader, stats: dict, directions: dict):
        self.reader, self.stats, self.directions = reader, stats, directions
        self.request, self.spec, self.source = reader.request, reader.spec, reader.source
        self.limit = self.source.max_tie_rows
        reduction = self.request.reduction
        # the reductions need ordered window sums in the engine (not every engine narwhals reads has them: dask)
        plain = self.request.design.unit is None and not self.request.paired and _ordered_windows(reader.lf)
        self.collapse = reduction.collapse and plain
        self.grid = reduction.grid if plain else None
        self.sums = (reduction.sums_ties is not None and plain and self.spec.weights is None
                     and self.source.partial_sums != "never")

    def tables(self) -> tuple[_Tables, pl.DataFrame]:
        source = self.source
        if source.partial_sums == "always" and not self.sums:
            if self.request.reduction.sums_ties is not None and not _ordered_windows(self.reader.lf):
                raise InputError(f"partial_sums='always': {source.engine.name} has no ordered window sums (narwhals "
                                 "cannot express them there), so the partial sums cannot be computed; collect the "
                                 "tie table under max_tie_rows instead")
            raise InputError(_NOT_SUMMED)
        if self.request.paired:
            return self._paired()
        if source.partial_sums == "always":
            return self._summed("partial_sums='always' was asked for")
        if self.sums and self.collapse and self.stats["n_positive"] > self.limit:
            # more positives than the limit: the collapsed table is likely over it; the sums count its rows
            return self._summed_unless_collapsed_fits()
        try:
            return self._cells()
        except Exception as error:
            if not self.sums or not _too_large(error):
                raise
            return self._summed(f"its collapsed tie table has more than max_tie_rows={self.limit:,} rows")

    def _relabel(self, frame: pl.DataFrame, column: str, score: str) -> pl.DataFrame:
        """A collected score column as float64 labels in the score's order, negated where it points down."""
        exprs = float_expressions(nw.from_native(frame), nw.from_native(frame).collect_schema(), [column],
                                  lambda queries: [q.collect().to_native() for q in queries])
        expression = exprs[column]
        if self.directions[score] == "lower":
            expression = -expression + 0.0  # -0.0 folded into 0.0, as for frames
        return nw.from_native(frame).with_columns(expression.alias(column)).to_native()

    def _cells(self) -> tuple[_Tables, pl.DataFrame]:
        reader, spec = self.reader, self.spec
        unit = self.reader.unit
        group_cols = [*reader.by, *((unit,) if unit else ())]
        weighted = spec.weights is not None
        parts = []
        for k, name in enumerate(spec.scores):
            query = engine_cells.cells_query(reader.lf, reader.coding, name, group_cols, weight=weighted)
            what = "tie table (distinct (group, score) pairs)"
            if self.collapse and not weighted:
                query, what = engine_cells.collapsed(query, group_cols, self.directions[name]), _COLLAPSED
            elif self.grid is not None and not weighted:
                query = engine_cells.thinned(query, group_cols, self.directions[name], self.grid)
                what = f"curve thinned to grid={self.grid} (at most {8 * self.grid + 1:,} points per group)"
            cells = engine_cells.collect_bounded(
                query, self.limit, reader.collect,
                lambda what=what: engine_cells.too_large(self.source.engine.name, self.limit, what))
            cells = self._relabel(cells, engine_cells.S, name)
            parts.append(cells.with_columns(pl.lit(k, dtype=pl.UInt32).alias(K)) if spec.multi_score else cells)
        cells = pl.concat(parts, how="vertical_relaxed") if len(parts) > 1 else parts[0]
        if cells.height > self.limit:
            raise engine_cells.too_large(self.source.engine.name, self.limit,
                                         "tie table (distinct (group, score) pairs)")
        keys_by = [*reader.by, *((K,) if spec.multi_score else ()), *((unit,) if unit else ())]
        keys = engine_cells.keys_of_cells(cells, keys_by, self.stats["n_rows"], self.stats["row_missing"])
        usable = cells.filter(pl.col(engine_cells.N) > 0)
        if weighted:
            queries = TieQueries(None, [], keys_by, "weighted", unit=unit)
            built = build_tables(queries, keys, [usable], spec)
            ties, extra = built.ties, (built.weighted_cells, built.weight_sums)
        else:
            ties = ties_from_cells(keys, usable, keys_by, engine_cells.S, engine_cells.P, engine_cells.N,
                                   spec.missing == "drop")
            extra = (None, None)
        keys = _named_scores(keys, reader.original)
        return _Tables(ties, keys, *extra), keys

    def _paired(self) -> tuple[_Tables, pl.DataFrame]:
        reader = self.reader
        query = engine_cells.paired_query(reader.lf, self.spec, reader.coding, reader.by)
        combos = engine_cells.collect_bounded(
            query, self.limit, reader.collect,
            lambda: engine_cells.too_large(self.source.engine.name, self.limit,
                                           "paired rows (distinct (group, outcome, scores) combinations)"))
        paired, keys = engine_cells.paired_tables(combos, self.spec, reader.by, self._relabel)
        return _Tables(paired, keys), keys

    def _summed_unless_collapsed_fits(self) -> tuple[_Tables, pl.DataFrame]:
        tables, keys, positive_cells = self._sums(f"its collapsed tie table has more than max_tie_rows="
                                                  f"{self.limit:,} rows")
        # a collapsed table has a row per cell holding a positive and at most one more per run of negatives
        if positive_cells <= self.limit:
            try:
                return self._cells()
            except Exception as error:
                if not _too_large(error):
                    raise
        return tables, keys

    def _summed(self, reason: str) -> tuple[_Tables, pl.DataFrame]:
        tables, keys, _ = self._sums(reason)
        return tables, keys

    def _sums(self, reason: str) -> tuple[_Tables, pl.DataFrame, int]:
        """The deferred table of the engine's partial sums per group (one query per score)."""
        reader, spec = self.reader, self.spec
        by = list(reader.by)
        parts = []
        for k, name in enumerate(spec.scores):
            frame = reader.collect([sums_query(reader.lf, reader.coding, name, by, self.directions[name],
                                               self.request.reduction.sums_ties, reader.counts)])[0]
            parts.append(frame.with_columns(pl.lit(k, dtype=pl.UInt32).alias(K)) if spec.multi_score else frame)
        keys_by = [*by, *((K,) if spec.multi_score else ())]
        frame = pl.concat(parts, how="vertical_relaxed") if len(parts) > 1 else parts[0]
        if keys_by:
            frame = frame.sort(keys_by, nulls_last=True)
        sums = summed_rows(frame)
        stats = statistics_from_sums(sums["n_pos"], sums["n_neg"], sums["u"], sums["q"], sums["r"],
                                     sums["ap_sum"], sums["lt_sum"])
        values = {"a_prime": stats["a_prime"], "delong_s10": stats["delong_s10"],
                  "delong_s01": stats["delong_s01"]}
        for record in self.request.records:
            if record.name in stats:
                values[record] = stats[record.name]
        n_missing = np.array(sums["n_missing"], dtype=np.int64)
        n_pos, n_neg = np.array(sums["n_pos"], dtype=np.int64), np.array(sums["n_neg"], dtype=np.int64)
        counts = pl.DataFrame([pl.Series("n_missing", n_missing, dtype=pl.Int64),
                               pl.Series("n_rows", n_pos + n_neg + n_missing, dtype=pl.Int64)])
        keys = pl.concat([frame.select(keys_by), counts], how="horizontal") if keys_by else counts
        keys = _named_scores(keys, reader.original)
        table = summed_table(n_pos, n_neg, values, reason, _SERVED)
        return _Tables(table, keys), keys, int(sum(sums["positive_cells"]))


#: What a result of partial sums serves (docs/backends.md).
_SERVED = ("From the partial sums this result can give: AUCPR estimators average_precision, lower_trapezoid with "
           "the intervals logit, binomial, wilson; AUROC (a_prime) with delong, logit, hanley_mcneil, newcombe")


def _ordered_windows(lf: nw.LazyFrame) -> bool:
    """Whether the engine computes running sums in a given order (``over(order_by=)``), asked without running."""
    try:
        lf.select(nw.lit(1).alias("__aucpr_w")).with_columns(
            nw.col("__aucpr_w").cum_sum(reverse=True).over(order_by="__aucpr_w"))
    except NotImplementedError:
        return False
    return True


def _too_large(error: Exception) -> bool:
    return isinstance(error, TieTableTooLarge)


def _named_scores(keys: pl.DataFrame, spec: ColumnSpec) -> pl.DataFrame:
    """The score index of several scores as the ``score`` key column (their names, in the order given)."""
    if not spec.multi_score or K not in keys.columns:
        return keys
    # the score's position (an engine), or an Enum of the scores in the order given (in memory)
    position = keys[K].to_physical() if isinstance(keys.schema[K], pl.Enum) else keys[K]
    names = pl.Series(list(spec.scores), dtype=pl.String)
    return keys.with_columns(names.gather(position).alias(K)).rename({K: SCORE_KEY})


# ------------------------------------------------------------------ groups, units, levels
def _assemble(request: Any, built: _Tables, keys: pl.DataFrame, directions: dict) -> Ingested:
    """Units merged into their groups, declared levels expanded or empty groups dropped, the :class:`Ingested`."""
    spec, paired = request.columns, request.paired
    tables = built.ties
    keys = _named_scores(built.keys, spec)
    unit = request.design.unit
    folds = None
    if unit is not None and not paired:
        tables, keys, folds = _merge_units(tables, keys, unit, request.design.unit_role)
    cells = built.weighted_cells if unit is None else None
    sums = built.weight_sums
    if sums is not None and unit is not None:
        sums = sums.merged(folds.group, tables.n_segments)
    lengths = tables.lengths if sums is not None else None  # (reading a deferred table's lengths merges it)
    tables, keys, folds, unused = _levels_of_groups(tables, keys, folds, spec, paired, request.unused_levels)
    if cells is not None and (unused is not None or tables.n_segments != cells.cells.n_segments):
        cells = regroup_cells(cells, tables)
    if sums is not None and (unused is not None or tables.n_segments != lengths.size):
        sums = sums.moved(lengths, tables.lengths)
    by = request.keys
    missing_keys = tuple((name, int(keys.filter(pl.col(name).is_null())["n_rows"].sum()))
                         for name in by if keys[name].null_count())
    common = dict(keys=keys.drop("n_rows"), spec=spec, kind=request.source.output, unused=unused,
                  missing_keys=missing_keys, directions=directions)
    if paired:
        return Ingested(ties=None, paired=tables, **common)
    if request.design.unit_role == "cluster":
        return Ingested(ties=tables, clusters=folds, weight_sums=sums, **common)
    return Ingested(ties=tables, folds=folds, weighted_cells=cells, weight_sums=sums, **common)


def _merge_units(ties: TieTable, keys: pl.DataFrame, unit: str, role: str):
    """Group tables as the merge of their (group, unit) tables; the unit tables kept."""
    if keys[unit].null_count():
        rows = int(keys.filter(pl.col(unit).is_null())["n_rows"].sum())
        raise InputError(f"`{role}` column {unit!r} has {rows} missing value{'s' * (rows != 1)}; every row needs "
                         f"a {role}")
    group_columns = [c for c in keys.columns if c not in (unit, "n_missing", "n_rows")]
    if group_columns:
        # keys are sorted with the unit last: a group's units are adjacent
        starts = keys.select(pl.any_horizontal(
            [pl.col(c).ne_missing(pl.col(c).shift(1)) for c in group_columns]).fill_null(True))[:, 0].to_numpy()
        starts[0] = True
        group = np.cumsum(starts) - 1
    else:
        group = np.zeros(keys.height, dtype=np.int64)
    n_groups = int(group[-1]) + 1 if group.size else 0
    unit_keys = keys
    keys = (keys.with_columns(pl.Series("__aucpr_g", group)).group_by("__aucpr_g", maintain_order=True)
            .agg(*[pl.col(c).first() for c in group_columns], pl.col("n_missing").sum(), pl.col("n_rows").sum())
            .drop("__aucpr_g"))
    merged = merge_units(ties, group, n_groups)
    return merged, keys, FoldTables(ties=ties, group=group, fold=unit_keys[unit], column=unit)


def _levels_of_groups(tables, keys: pl.DataFrame, folds: FoldTables | None, spec: ColumnSpec, paired: bool,
                      unused_levels: str):
    """Groups for every declared level (``"keep"``), or only the groups with rows (``"drop"``)."""
    columns = [c for c in keys.columns if c not in ("n_missing", "n_rows")]
    if not columns or unused_levels is None:
        return tables, keys, folds, None
    if unused_levels == "keep":
        fixed = {SCORE_KEY: list(spec.scores)} if spec.multi_score else {}
        grown = expand_levels(keys, columns, fixed)
        if grown is None:
            return tables, keys, folds, None
        keys, position, unused = grown
        n_groups = keys.height
        tables = (spread_paired(tables, position, n_groups) if paired
                  else spread_segments(tables, position, n_groups))
        if folds is not None:
            folds = attrs.evolve(folds, group=position[folds.group])
        return tables, keys, folds, unused
    first = tables.tables[0] if paired else tables
    kept = ((first.n_pos + first.n_neg) > 0) if first.stored_sums else (np.diff(first.offsets) > 0)
    if kept.all():
        return tables, keys, folds, None
    keys = keys.filter(pl.Series(kept))
    if paired:
        position = np.cumsum(kept) - 1
        tables = attrs.evolve(tables, tables=tuple(keep_segments(t, kept) for t in tables.tables),
                              group=position[tables.group])
    else:
        tables = keep_segments(tables, kept)
    if folds is not None:
        position = np.cumsum(kept) - 1
        keep_fold = kept[folds.group]
        folds = attrs.evolve(folds, ties=keep_segments(folds.ties, keep_fold),
                             group=position[folds.group[keep_fold]], fold=folds.fold.filter(pl.Series(keep_fold)))
    return tables, keys, folds, None
