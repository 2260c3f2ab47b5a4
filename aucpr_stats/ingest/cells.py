"""The engine road: the rows reduced by the engine to cells, and what reaches Python bounded.

For data an engine holds (DuckDB, Spark, ibis, dask, polars scanning files),
the tie step is one query per score column that groups the rows into
*cells*: one row per (keys, unit, score value) with the usable positives,
the usable rows and the rows with something missing (the score grouped on in
its own type: an integer beyond 2**53 or a decimal is never rounded before
grouping; :mod:`.exact_scores` labels the values once collected). The keys
frame is the cells' sum per group. Everything after the cells is the
in-memory code, so a result equals the in-memory result on the same data.

Two reductions run in the engine, with window sums over each group's cells
in the score's order, so that fewer rows reach Python:

* :func:`collapsed`: every run of cells without positives merged into one
  (the table of :meth:`TieTable.collapsed <aucpr_stats.ties.TieTable.collapsed>`,
  about two rows per score holding a positive), when every statistic asked
  for reads the negatives only through their counts;
* :func:`thinned`: the cells of :meth:`TieTable.thinned
  <aucpr_stats.ties.TieTable.thinned>` for a curve's ``grid=`` (at most
  ``8 grid + 1`` per group), in exact integer arithmetic.

Each query is cut at ``max_tie_rows + 1`` rows; a table over the limit is
refused with :class:`~aucpr_stats.exceptions.TieTableTooLarge`.
"""

from __future__ import annotations

from typing import Callable, Sequence

import narwhals as nw
import numpy as np
import polars as pl

from .._validate import ColumnSpec
from ..exceptions import InputError, TieTableTooLarge
from ..tables import WEIGHT, group_of_rows, paired_scores
from .coding import Coding, indicator

__all__ = ["cells_query", "collapsed", "thinned", "paired_query", "paired_tables", "collect_bounded",
           "too_large", "keys_of_cells", "window_sum", "S", "P", "N", "M"]

S, P, N, M = "__aucpr_s", "__aucpr_pos", "__aucpr_n", "__aucpr_m"
_RUN, _HP, _SN, _U, _X, _KEEP = "__aucpr_run", "__aucpr_hp", "__aucpr_sn", "__aucpr_u", "__aucpr_x", "__aucpr_keep"
_ONE = "__aucpr_one"


def _int(expr: nw.Expr) -> nw.Expr:
    return indicator(expr, nw.Int64)


def cells_query(lf: nw.LazyFrame, coding: Coding, name: str, group_cols: Sequence[str],
                weight: bool = False, counts: str | None = None) -> nw.LazyFrame:
    """One row per (keys, score value): usable positives, usable rows, rows with something missing.

    A missing score groups as null, so the missing rows add at most one cell
    per group. With ``weight``, one cell per (keys, score, weight). With
    ``counts``, a column of integer case counts, each row counts that many cases.
    """
    missing = coding.y_missing | coding.s_missing[name]

    def cases(condition: nw.Expr) -> nw.Expr:
        return _int(condition) if counts is None else _int(condition) * nw.col(counts).cast(nw.Int64)

    rows = lf.select(
        *group_cols,
        nw.when(~coding.s_missing[name]).then(nw.col(name)).alias(S),
        *([coding.weight.alias(WEIGHT)] if weight else []),
        cases(~missing & coding.positive.fill_null(False)).alias(P),
        cases(~missing).alias(N),
        cases(missing).alias(M),
    )
    keys = [*group_cols, S, *([WEIGHT] if weight else [])]
    # 64-bit counts: DuckDB sums a BIGINT to a 128-bit HUGEINT, which doubles the cost of every window after
    return (rows.group_by(keys).agg(nw.col(P).sum(), nw.col(N).sum(), nw.col(M).sum())
            .with_columns(nw.col(P, N, M).cast(nw.Int64)))


def window_sum(expr: nw.Expr, keys: Sequence[str], direction: str) -> nw.Expr:
    """The running sum of ``expr`` down a group's cells in the score's order, inclusive (missing scores last)."""
    # descending scores ("higher") are an ascending order read in reverse; a count fits 64 bits (see cells_query)
    return expr.cum_sum(reverse=direction == "higher").over(*keys, order_by=S).cast(nw.Int64)


def _lowest(direction: str) -> nw.Expr:
    """The last score of a run in the score's order: its minimum for ``"higher"``, maximum for ``"lower"``."""
    return nw.col(S).min() if direction == "higher" else nw.col(S).max()


def _merged(cells: nw.LazyFrame, keys: Sequence[str], direction: str, group: Sequence[str]) -> nw.LazyFrame:
    """The cells summed per ``group`` (and keys), at the run's lowest score in ``direction``."""
    return (cells.group_by([*keys, *group]).agg(_lowest(direction).alias(S), nw.col(P).sum(), nw.col(N).sum(),
                                                nw.col(M).sum())
            .select(*keys, S, nw.col(P, N, M).cast(nw.Int64)))  # 64-bit counts, as in cells_query


def collapsed(cells: nw.LazyFrame, keys: Sequence[str], direction: str) -> nw.LazyFrame:
    """The cells with each run of positive-free cells merged into one at its lowest score (in ``direction``)."""
    # run: the number of cells holding positives at or above a cell; a positive-free run shares it with the
    # positive cell above it, so (run, holds positives) tells them apart; missing scores (last) stay apart
    marked = cells.with_columns(window_sum(_int(nw.col(P) > 0), keys, direction).alias(_RUN),
                                (nw.col(P) > 0).alias(_HP), nw.col(S).is_null().alias(_SN))
    return _merged(marked, keys, direction, [_RUN, _HP, _SN])


def thinned(cells: nw.LazyFrame, keys: Sequence[str], direction: str, grid: int) -> nw.LazyFrame:
    """The cells of :meth:`TieTable.thinned <aucpr_stats.ties.TieTable.thinned>`, in exact integer arithmetic.

    A cell crosses when ``floor`` or ``ceil`` of its class's running count
    times ``grid`` over the class total changes; crossing cells, the cell
    above each and every group's last cell are kept, and each run of other
    cells is merged into the kept cell below it (at that cell's score). Cells
    without usable rows (missing scores or outcomes) are windowed apart and
    come back as one cell per group: they only count missing rows.
    """
    negatives = nw.col(N) - nw.col(P)
    constant = not keys
    if constant:
        # one group: a constant key, so that DuckDB sums the totals in the running sums' window (a total over
        # the whole frame is a window of its own there, a second pass over every cell)
        cells, keys = cells.with_columns(nw.lit(0, nw.Int8).alias(_ONE)), [_ONE]
    usable_keys = [*keys, _U]

    def total(expr: nw.Expr) -> nw.Expr:
        return expr.sum().over(*keys).cast(nw.Int64)

    run = cells.with_columns(
        (nw.col(N) > 0).alias(_U),
        window_sum(nw.col(P), keys, direction).alias("__aucpr_tp"),
        window_sum(negatives, keys, direction).alias("__aucpr_fp"),
        total(nw.col(P)).alias("__aucpr_bp"), total(negatives).alias("__aucpr_bn"))

    def crosses(running: str, own: nw.Expr, whole: str) -> nw.Expr:
        count, size = nw.col(running), nw.col(whole)
        safe = nw.when(size > 0).then(size).otherwise(1)
        now, then = count * grid, (count - own) * grid
        up = (lambda x: (x + safe - 1) // safe)
        return ((size > 0) & (((now // safe) > (then // safe)) | (up(now) > up(then)))).fill_null(False)

    crossed = run.with_columns((crosses("__aucpr_tp", nw.col(P), "__aucpr_bp")
                                | crosses("__aucpr_fp", negatives, "__aucpr_bn")).alias(_X))
    # kept: a crossing, the usable cell above one, or a group's last usable cell (no usable cell below);
    # the cell below in descending order is the one before in ascending order
    below = nw.col(_X).shift(1 if direction == "higher" else -1).over(*usable_keys, order_by=S)
    kept = crossed.with_columns((nw.col(_X) | below.fill_null(True)).alias(_KEEP))
    # a cell's run: the number of kept cells above it (a kept cell closes its run)
    kept_int = _int(nw.col(_KEEP))
    runs = kept.with_columns((window_sum(kept_int, usable_keys, direction) - kept_int).alias(_RUN))
    runs = runs.with_columns(nw.when(nw.col(_U)).then(nw.col(_RUN)).otherwise(-1).alias(_RUN))
    merged = _merged(runs, keys, direction, [_U, _RUN])
    return merged.drop(_ONE) if constant else merged


def too_large(engine_name: str, limit: int, what: str, estimate: int | None = None) -> TieTableTooLarge:
    """The refusal of a table over ``max_tie_rows``, with what can be computed instead."""
    size = f"about {estimate:,} rows" if estimate else f"more than {limit:,} rows"
    return TieTableTooLarge(
        f"the {what} of this {engine_name} input has {size}, over max_tie_rows={limit:,}: refused. Raise the "
        "limit with aucpr_stats.sql_input(data, max_tie_rows=...) if the driver has the memory (about 40 bytes "
        "a row), or coarsen the scores (e.g. round them) in the engine first. Estimators that read the "
        "negatives only between positive rows (average_precision, the trapezoids, interpolated_max, A') "
        "collect the table with runs of negatives collapsed, about two rows per score holding a positive; when "
        "even that is over the limit, average_precision, lower_trapezoid and a_prime come from the engine's "
        "partial sums, one row per group (with the logit, binomial, wilson and DeLong intervals); pr_curve and "
        "roc_curve take grid= to collect at most 8 grid + 1 points per group"
    )


def collect_bounded(query: nw.LazyFrame, limit: int | None, collect: Callable, refusal: Callable[[], Exception]
                    ) -> pl.DataFrame:
    """The query's rows, at most ``limit`` (it is cut at ``limit + 1``; more is refused)."""
    if limit is None:
        return collect([query])[0]
    rows = collect([query.head(limit + 1)])[0]
    if rows.height > limit:
        raise refusal()
    return rows


# ------------------------------------------------------------------ paired scores on an engine
_OK, _Y = "__aucpr_ok", "__aucpr_y"


def paired_query(lf: nw.LazyFrame, spec: ColumnSpec, coding: Coding, by: Sequence[str]) -> nw.LazyFrame:
    """One row per distinct (keys, complete?, outcome, scores) with its count (the paired rows, summarised)."""
    names = [f"__aucpr_s{i}" for i in range(len(spec.scores))]
    rows = lf.select(*by, (~coding.row_missing).alias(_OK), coding.positive.fill_null(False).alias(_Y),
                     *[nw.col(s).alias(n) for s, n in zip(spec.scores, names)])
    return rows.group_by([*by, _OK, _Y, *names]).agg(nw.len().alias(N))


def paired_tables(combos: pl.DataFrame, spec: ColumnSpec, by: Sequence[str], relabel: Callable):
    """The paired scores and the keys frame from the engine's distinct combinations with their counts.

    ``relabel(frame, column, score)`` gives the float64 labels of a score column (:mod:`.exact_scores`).
    """
    keys_by = list(by)
    counts = pl.col(N).cast(pl.Int64)
    if keys_by:
        keys = (combos.group_by(keys_by).agg(n_missing=counts.filter(~pl.col(_OK)).sum(), n_rows=counts.sum())
                .sort(keys_by, nulls_last=True))
    else:
        keys = pl.DataFrame({"n_missing": [int(combos.filter(~pl.col(_OK))[N].sum())],
                             "n_rows": [int(combos[N].sum())]}, schema={"n_missing": pl.Int64, "n_rows": pl.Int64})
    combos = combos.filter(pl.col(_OK))
    if combos.height == 0:
        raise InputError("no rows have the outcome and every score present; a paired comparison needs complete rows")
    names = [f"__aucpr_s{i}" for i in range(len(spec.scores))]
    for column, score in zip(names, spec.scores):
        combos = relabel(combos, column, score)
    # one entry per row: each combination repeated by its count (rows of equal values are interchangeable)
    repeat = np.repeat(np.arange(combos.height), combos[N].to_numpy().astype(np.int64))
    group = group_of_rows(keys, combos, keys_by)[repeat]
    positive = combos[_Y].to_numpy().astype(bool)[repeat]
    scores = [combos[n].to_numpy()[repeat] for n in names]
    return paired_scores(group, positive, scores, keys.height), keys


def keys_of_cells(cells: pl.DataFrame, keys_by: list[str], n_rows: int, n_missing: int) -> pl.DataFrame:
    """The keys frame (sorted ascending, nulls last) with ``n_missing`` and ``n_rows``, summed from the cells."""
    if not keys_by:
        return pl.DataFrame({"n_missing": [n_missing], "n_rows": [n_rows]},
                            schema={"n_missing": pl.Int64, "n_rows": pl.Int64})
    return (cells.group_by(keys_by).agg(n_missing=pl.col(M).sum().cast(pl.Int64),
                                        n_rows=(pl.col(N) + pl.col(M)).sum().cast(pl.Int64))
            .sort(keys_by, nulls_last=True))
