"""The engine road: cells (collapsed, thinned) under the limit, or the engine's partial sums.

:class:`EngineRoad` runs the tie step of a request whose data an engine holds
(:mod:`.cells`, :mod:`.sums`), after the checks' pass (:mod:`.reader`): the
exact counts of that pass decide the order (``docs/backends.md``). An engine
without ordered window sums (dask) gets plain cells.
"""

from __future__ import annotations

from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from ..estimators.from_sums import statistics_from_sums
from ..exceptions import InputError, TieTableTooLarge
from ..tables import summed_table, ties_from_cells
from . import cells as engine_cells
from .exact_scores import float_expressions, refuse_beyond_int128
from .groups import named_scores
from .rows import K, Built, TieQueries, build_tables
from .sums import summed_rows, sums_query

__all__ = ["EngineRoad"]


_NOT_SUMMED = ("partial_sums='always' (aucpr_stats.sql_input) serves only statistics that are sums over the "
               "tie rows: aucpr(estimator='average_precision' or 'lower_trapezoid', without recall= or "
               "prevalence=) and auroc() of the full area, without fold=, cluster= or weights=; this call needs "
               "the tie table")

_COLLAPSED = ("tie table with runs of negatives collapsed (rows holding positives, and one per run of negatives "
              "between them)")


class EngineRoad:
    """The tie step on an engine: cells (collapsed, thinned) under the limit, or the partial sums."""

    def __init__(self, reader: Any, stats: dict, directions: dict):
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

    def tables(self) -> tuple[Built, pl.DataFrame]:
        source = self.source
        # scores of 2**127 and more in an unsigned 128-bit column reach Python wrapped around: refused here,
        # where the engine still compares them exactly
        refuse_beyond_int128(self.reader.lf, self.reader.schema, self.spec.scores, self.reader.collect,
                             self.reader.shown)
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

    def _cells(self) -> tuple[Built, pl.DataFrame]:
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
        keys = named_scores(keys, reader.original)
        return Built(ties, keys, *extra), keys

    def _paired(self) -> tuple[Built, pl.DataFrame]:
        reader = self.reader
        query = engine_cells.paired_query(reader.lf, self.spec, reader.coding, reader.by)
        combos = engine_cells.collect_bounded(
            query, self.limit, reader.collect,
            lambda: engine_cells.too_large(self.source.engine.name, self.limit,
                                           "paired rows (distinct (group, outcome, scores) combinations)"))
        paired, keys = engine_cells.paired_tables(combos, self.spec, reader.by, self._relabel)
        return Built(paired, keys), keys

    def _summed_unless_collapsed_fits(self) -> tuple[Built, pl.DataFrame]:
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

    def _summed(self, reason: str) -> tuple[Built, pl.DataFrame]:
        tables, keys, _ = self._sums(reason)
        return tables, keys

    def _sums(self, reason: str) -> tuple[Built, pl.DataFrame, int]:
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
        keys = named_scores(keys, reader.original)
        table = summed_table(n_pos, n_neg, values, reason, _SERVED)
        return Built(table, keys), keys, int(sum(sums["positive_cells"]))


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


