"""The rows of the tie step: what the in-memory road collects, and the tables built from it.

For data in this process (and for polars reading files), the tie step
collects rows, not cells, and the table factory sorts them
(:mod:`aucpr_stats.tables`):

* grouped rows: each row's group, score and class (:func:`~aucpr_stats.tables.deferred_tie_table`);
* one group: the scores of each class, in a few ranges of values sorted on
  their own threads (:func:`~aucpr_stats.tables.sort_classes`);
* weighted rows: one cell per (keys, score, weight) with its row counts
  (:func:`~aucpr_stats.tables.weighted_tables`);
* several scores on the same rows (paired comparisons): the complete rows
  (:func:`~aucpr_stats.tables.paired_scores`).

:func:`tie_queries` plans these queries (narwhals, run with the checks in one
collect); :func:`build_tables` turns what they return into tie tables.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import narwhals as nw
import numpy as np
import polars as pl

from .._validate import ColumnSpec
from ..exceptions import InputError
from ..tables import (WEIGHT, DEFAULT_TUNING, Tuning, WeightSums, deferred_tie_table, group_of_rows,
                      paired_scores, sort_classes, tie_table_from_rows, ties_from_cells, weighted_tables)
from ..ties import TieTable
from .coding import Coding, indicator

__all__ = ["TieQueries", "tie_queries", "build_tables", "S", "Y", "MY", "K", "P", "N", "OK"]

S, Y, MY, K, P, N, OK = "__aucpr_s", "__aucpr_y", "__aucpr_my", "__aucpr_k", "__aucpr_pos", "__aucpr_n", "__aucpr_ok"


@attrs.frozen(eq=False)
class TieQueries:
    """The queries of the tie step and how to read what they return.

    Attributes
    ----------
    keys : narwhals LazyFrame or None
        Rows and missing rows per group (sorted keys, nulls last); None ungrouped.
    tie : list of narwhals LazyFrame
        The rows, cells or class scores (see the module docstring).
    keys_by : list of str
        The key columns of the tables (``by``, the score index, the unit).
    road : {"paired", "weighted", "cells", "rows", "classes"}
    threads : int
        Ranges of values of one group's classes (``"classes"``).
    """

    keys: Any
    tie: list
    keys_by: list
    road: str
    threads: int = 1
    unit: str | None = None


def score_rows(lf: nw.LazyFrame, spec: ColumnSpec, by: Sequence[str], unit: str | None, coding: Coding,
               as_float: dict) -> tuple[nw.LazyFrame, list[str], nw.Expr]:
    """One row per (case, score): keys, unit, outcome missing, class, weight, the score as float64.

    Several scores are unpivoted into (score index, value) pairs. Returns the
    rows, the key columns and the expression of a row with anything missing.
    """
    scores = spec.scores
    rows = lf.select(
        *by, *((unit,) if unit else ()),
        coding.y_missing.alias(MY),
        coding.positive.alias(Y),
        *([] if coding.weight is None else [coding.weight.alias(WEIGHT)]),
        *[as_float[name].alias(name if spec.multi_score else S) for name in scores],
    )
    keys_by = list(by)
    if spec.multi_score:
        index = [*by, *((unit,) if unit else ()), MY, Y, *([] if coding.weight is None else [WEIGHT])]
        rows = rows.unpivot(on=list(scores), index=index, variable_name=K, value_name=S)
        rows = rows.with_columns(nw.col(K).cast(nw.Enum(list(scores))))
        keys_by.append(K)
    if unit:
        keys_by.append(unit)  # last: the units of a group are adjacent in the sorted keys
    missing = nw.col(MY) | nw.col(S).is_null() | nw.col(S).is_nan()
    return rows, keys_by, missing


def keys_query(rows: nw.LazyFrame, keys_by: list[str], missing: nw.Expr) -> nw.LazyFrame:
    """Rows and rows with something missing per group, keys sorted ascending with nulls last."""
    return (rows.group_by(keys_by).agg(indicator(missing).sum().alias("n_missing"),
                                       nw.len().alias("n_rows"))
            .sort(keys_by, nulls_last=True))


def tie_queries(lf: nw.LazyFrame, spec: ColumnSpec, by: Sequence[str], unit: str | None, paired: bool,
                coding: Coding, as_float: dict, engine: Any, n_rows: int | None, tuning: Tuning = DEFAULT_TUNING,
                cells: bool = False) -> TieQueries:
    """The queries of the tie step on rows in memory (``cells=True``: one cell per (keys, score) instead)."""
    if paired:
        if coding.weight is not None:
            raise InputError("`weights=` is not supported by paired comparisons yet; compare the scores one by "
                             "one with aucpr()/auroc(..., weights=)")
        rows = lf.select(*by, (~coding.row_missing).alias(OK), coding.positive.fill_null(False).alias(Y),
                         *[as_float[s] for s in spec.scores])
        keys = (rows.group_by(list(by)).agg(indicator(~nw.col(OK)).sum().alias("n_missing"),
                                            nw.len().alias("n_rows"))
                .sort(list(by), nulls_last=True)) if by else None
        return TieQueries(keys, [rows], list(by), "paired")
    rows, keys_by, missing = score_rows(lf, spec, by, unit, coding, as_float)
    keys = keys_query(rows, keys_by, missing) if keys_by else None
    if spec.missing == "drop":
        rows = rows.filter(~missing)
    if coding.weight is not None:
        # one cell per (keys, score, weight) with its row counts: the weighted table and the weighted bootstrap
        tie = rows.group_by([*keys_by, S, WEIGHT]).agg(indicator(nw.col(Y)).sum().alias(P),
                                                        nw.len().alias(N))
        return TieQueries(keys, [tie], keys_by, "weighted")
    if cells:
        tie = rows.group_by([*keys_by, S]).agg(indicator(nw.col(Y)).sum().alias(P), nw.len().alias(N))
        return TieQueries(keys, [tie], keys_by, "cells")
    if keys_by:
        # rows in any order: each row's group index (numpy codes for integer, boolean and enum keys, a
        # hash join otherwise), then the table factory's sorts; no multi-column sort
        return TieQueries(keys, [rows.select(*keys_by, S, Y)], keys_by, "rows", unit=unit)
    # one segment: the scores of each class in a few ranges of values (one per thread), unsorted; each
    # range is value-sorted on its own thread (several times cheaper than sorting rows)
    threads = min(tuning.value_ranges or pl.thread_pool_size(), 16)
    pivots = (engine.value_pivots(rows, n_rows, threads)
              if n_rows is not None and n_rows >= tuning.class_sort_parallel_min_rows and threads > 1
              else np.empty(0))
    tie = []
    for in_range in _value_ranges(nw.col(S), pivots):
        tie += [rows.filter(nw.col(Y) & in_range).select(S), rows.filter(~nw.col(Y) & in_range).select(S)]
    return TieQueries(keys, tie, keys_by, "classes", pivots.size + 1)


def _value_ranges(score: nw.Expr, pivots: np.ndarray) -> list[nw.Expr]:
    """One condition per range of values cut at the pivots; a score equal to a pivot goes to the upper range."""
    if pivots.size == 0:
        return [nw.lit(True)]
    edges = [float(p) for p in pivots]
    ranges = [score < edges[0]]
    ranges += [(score >= lo) & (score < hi) for lo, hi in zip(edges[:-1], edges[1:])]
    ranges.append(score >= edges[-1])
    return ranges


@attrs.frozen(eq=False)
class Built:
    """The tables of the tie step: ``ties`` (or ``paired``), and with weights the cells and sums."""

    ties: Any
    keys: pl.DataFrame
    weighted_cells: Any = None
    weight_sums: Any = None


def build_tables(queries: TieQueries, keys: pl.DataFrame, tie_rows: list[pl.DataFrame], spec: ColumnSpec,
                 tuning: Tuning = DEFAULT_TUNING) -> Built:
    """The tie tables from what :func:`tie_queries` collected (``keys``: the keys frame)."""
    keys_by, drop = queries.keys_by, spec.missing == "drop"
    if queries.road == "paired":
        return Built(_paired(tie_rows[0], keys, keys_by, spec.scores), keys)
    if queries.road == "weighted":
        cells = tie_rows[0].sort([*keys_by, S, WEIGHT], descending=[False] * len(keys_by) + [True, False],
                                 nulls_last=True)  # a fixed order: the draws do not depend on the row order
        group = _cell_groups(keys, cells, keys_by, drop)
        table, weighted = weighted_tables(cells, group, keys.height, S, P, N)
        return Built(table, keys, weighted, WeightSums.of_cells(weighted, group, keys.height))
    if queries.road == "cells":
        return Built(ties_from_cells(keys, tie_rows[0], keys_by, S, P, N, drop), keys)
    if queries.road == "rows":
        frame = tie_rows[0]
        group = group_of_rows(keys, frame, keys_by)
        # a unit (fold, cluster) is merged into its group at once: no deferred merge of the classes
        builder = tie_table_from_rows if queries.unit else deferred_tie_table
        return Built(builder(group, frame[S].to_numpy(), frame[Y].to_numpy(), keys.height, tuning), keys)
    # one group: each range of each class copied into its place in one buffer per class and sorted there
    pos_parts = [[chunk.to_numpy() for chunk in part[S].get_chunks()] for part in tie_rows[0::2]]
    neg_parts = [[chunk.to_numpy() for chunk in part[S].get_chunks()] for part in tie_rows[1::2]]
    tie_rows.clear()  # the class buffers are the only copy of the scores from here on
    return Built(TieTable.deferred(sort_classes(pos_parts, neg_parts, threads=queries.threads)), keys)


def _cell_groups(keys: pl.DataFrame, cells: pl.DataFrame, keys_by: list[str], drop_missing: bool) -> np.ndarray:
    """The group of each cell (cells sorted by keys): the groups with rows left, in order."""
    if not keys_by:
        return np.zeros(cells.height, dtype=np.int64)
    kept = (keys["n_rows"] - keys["n_missing"]).to_numpy() if drop_missing else keys["n_rows"].to_numpy()
    return np.flatnonzero(kept > 0)[cells.select(pl.struct(keys_by).rle_id())[:, 0].to_numpy()]


def _paired(frame: pl.DataFrame, keys: pl.DataFrame, keys_by: list[str], scores: tuple):
    """The tables of several scores on the complete rows, and every row's tie row in each."""
    group = group_of_rows(keys, frame, keys_by)
    ok = frame[OK].to_numpy()
    if not ok.any():
        raise InputError("no rows have the outcome and every score present; a paired comparison needs complete rows")
    positive = frame[Y].to_numpy().astype(bool)[ok]
    return paired_scores(group[ok], positive, [frame[s].to_numpy()[ok] for s in scores], keys.height)
