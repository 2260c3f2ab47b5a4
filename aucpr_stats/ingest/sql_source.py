"""Inputs an SQL engine reduces (DuckDB, Spark): only the tie table reaches Python.

:func:`read_sql` plays the part :func:`~aucpr_stats.ingest.polars_source.read_polars`
plays for frames in memory, for a table that an engine can query
(:class:`SqlTable`: its column types, its SQL dialect and a function that runs
a query and returns a small polars frame). The engine does every pass over
the rows:

1. one query counts what the data checks read (rows, missing and infinite
   values per column, the outcome's levels and positives; for
   ``direction="auto"`` the class medians of each score);
2. once the checks passed, one query per score column reduces the rows to
   *cells*: one row per (keys, fold, score value) with the number of usable
   rows, of usable positives and of rows with a missing outcome or score.
   The cells are the tie table before sorting; the keys frame (rows and
   missing rows per group) is their sum per group.

The score is grouped on in its own type (an integer beyond 2**53 or a
decimal is never rounded before grouping); the distinct values reach Python
in that type and are given float64 labels exactly as the polars path gives
them (:mod:`.exact_scores`). Everything after the cells (every estimator,
interval, curve and the bootstrap, which draws multinomial counts on the tie
table) is the in-memory code, so a result equals the in-memory result on the
same data.

What reaches Python is one row per cell, which is bounded by
``max_tie_rows`` (:func:`~aucpr_stats.ingest.backends.sql_input`): a larger
tie table (continuous scores on many rows) is refused before it is collected,
with a message saying how many rows would have come. Paired comparisons need
every row's score under each score column, so they collect one row per
distinct (keys, outcome, scores) combination with its count, under the same
limit.

When the collapsed table of a call whose statistics are all sums over the
tie rows (average precision, the lower trapezoid, A' with DeLong's
components) is over the limit, the engine computes those sums instead and
only one row per group reaches Python (:mod:`.engine_sums`); the
``partial_sums`` option of :func:`~aucpr_stats.ingest.backends.sql_input`
chooses when.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import SCORE_KEY, ColumnSpec
from ..exceptions import InputError, InputTypeError
from .checks import NO_ROWS
from .exact_scores import score_expressions
from .keys import group_index, integer_like, ties_from_cells
from .paired import paired_scores
from .polars_source import Collected, negative_coding, outcome_coding
from .sql_reductions import CELL_MISSING as _M
from .sql_reductions import CELL_POSITIVES as _P
from .sql_reductions import CELL_ROWS as _N
from .sql_reductions import CELL_SCORE as _S
from .sql_reductions import collapsed_query, thinned_query
from .sql_table import PARTIAL_SUMS, SCORE_INDEX, TABLE, Dialect, SqlTable, TieTableTooLarge

__all__ = ["Dialect", "SqlTable", "TieTableTooLarge", "read_sql", "sql_conditions", "TABLE", "SCORE_INDEX",
           "PARTIAL_SUMS"]

_K = SCORE_INDEX
_Y = "__aucpr_y"
_OK = "__aucpr_ok"


def _count(condition: str) -> str:
    return f"CAST(COALESCE(SUM(CASE WHEN {condition} THEN 1 ELSE 0 END), 0) AS BIGINT)"


@attrs.frozen
class _Sql:
    """The SQL conditions of one input: outcome coding, missing and infinite values."""

    y_null: str
    positive: str        # true for a positive outcome (false for a missing one)
    negative: str | None
    neither: str
    y_missing: str
    s_missing: dict
    s_infinite: dict
    row_missing: str


def sql_conditions(table: SqlTable, spec: ColumnSpec) -> _Sql:
    """The SQL conditions of the outcome coding and of missing and infinite values."""
    q, lit = table.dialect.quote, table.dialect.literal
    schema = table.schema
    y = q(spec.outcome)
    y_type = schema[spec.outcome]
    y_null = f"({y} IS NULL OR isnan({y}))" if y_type.is_float() else f"({y} IS NULL)"
    if spec.positive is None:
        coding = y if y_type == pl.Boolean else f"({y} = 1)"
    else:
        coding = f"({y} = {lit(spec.positive)})"
    positive = f"COALESCE({coding}, FALSE)"
    negative = neither = None
    if spec.negative is not None:
        negative = f"COALESCE({y} IN ({', '.join(lit(v) for v in spec.negative)}), FALSE)"
        neither = f"(NOT {y_null} AND NOT {positive} AND NOT {negative})"
    y_missing = f"({y_null} OR {neither})" if neither else y_null
    s_missing, s_infinite = {}, {}
    for name in spec.scores:
        s = q(name)
        floating = schema[name].is_float()
        s_missing[name] = f"({s} IS NULL OR isnan({s}))" if floating else f"({s} IS NULL)"
        s_infinite[name] = (f"({s} = CAST('Infinity' AS DOUBLE) OR {s} = CAST('-Infinity' AS DOUBLE))"
                            if floating else "FALSE")
    row_missing = "(" + " OR ".join([y_missing, *s_missing.values()]) + ")"
    return _Sql(y_null=y_null, positive=positive, negative=negative, neither=neither or "FALSE",
                y_missing=y_missing, s_missing=s_missing, s_infinite=s_infinite, row_missing=row_missing)


def _check_types(table: SqlTable, spec: ColumnSpec) -> None:
    """The polars path's type errors, with its messages (no rows is said first, as there)."""
    for name in spec.scores:
        s_type = table.schema[name]
        if not (s_type.is_numeric() or s_type == pl.Boolean):
            if table.run(f"SELECT COUNT(*) AS n FROM {TABLE}")["n"][0] == 0:
                raise InputError(NO_ROWS)
            raise InputTypeError(f"`score` column {name!r} must be numeric; got type {s_type}")
    y_type = table.schema[spec.outcome]
    outcome_coding(spec, y_type)
    negative_coding(spec, y_type)


def _stats(table: SqlTable, spec: ColumnSpec, sql: _Sql, extra: tuple = ()) -> tuple[dict, dict]:
    """One query for the counts :func:`~.checks.check_stats` reads, and the directions of the scores.

    ``extra``: more ``expression AS name`` items for the same pass (the estimated size of the tie table).
    """
    q = table.dialect.quote
    y = q(spec.outcome)
    valid_y = f"CASE WHEN NOT {sql.y_missing} THEN {y} END"
    parts = [
        "COUNT(*) AS n_rows", f"{_count(sql.y_missing)} AS y_missing", f"{_count(sql.neither)} AS y_neither",
        f"{_count(sql.row_missing)} AS row_missing",
        f"{_count(f'{sql.positive} AND NOT {sql.y_missing}')} AS n_positive",
        f"COUNT(DISTINCT {valid_y}) AS n_levels", f"MIN({valid_y}) AS y_min", f"MAX({valid_y}) AS y_max",
    ]
    if sql.negative is not None:
        parts.append(f"{_count(f'{sql.negative} AND NOT {sql.y_missing}')} AS n_negative")
    for i, name in enumerate(spec.scores):
        usable = f"NOT ({sql.y_missing} OR {sql.s_missing[name]})"
        parts += [f"{_count(sql.s_missing[name])} AS s_missing_{i}", f"{_count(sql.s_infinite[name])} AS s_infinite_{i}",
                  f"{_count(usable)} AS s_usable_{i}"]
        if spec.direction == "auto":
            value = f"CAST({q(name)} AS DOUBLE)"
            for kind, cls in (("neg", f"NOT {sql.positive}"), ("pos", sql.positive)):
                parts.append(table.dialect.median.format(f"CASE WHEN {usable} AND {cls} THEN {value} END")
                             + f" AS {kind}_{i}")
    stats = table.run(f"SELECT {', '.join([*parts, *extra])} FROM {TABLE}").row(0, named=True)
    # counts as Python ints (engines may return decimals); levels and medians as they are
    stats = {k: v if v is None or k in ("y_min", "y_max") or k.startswith(("neg_", "pos_")) else int(v)
             for k, v in stats.items()}
    if stats["n_levels"] <= 2:
        stats["levels"] = sorted({v for v in (stats["y_min"], stats["y_max"]) if v is not None})
    else:
        levels = table.run(f"SELECT {y} AS level FROM {TABLE} WHERE NOT {sql.y_missing} "
                           f"GROUP BY {y} ORDER BY {y} LIMIT 12")
        stats["levels"] = levels["level"].to_list()
    directions = {name: spec.direction for name in spec.scores}
    if spec.direction == "auto":
        shown = {}
        for i, name in enumerate(spec.scores):
            neg, pos = stats.pop(f"neg_{i}"), stats.pop(f"pos_{i}")
            # pROC's rule, as for frames (see .direction): higher scores positive unless median(neg) > median(pos)
            directions[name] = "lower" if neg is not None and pos is not None and neg > pos else "higher"
            shown[name] = (neg, pos)
        directions["__medians"] = shown
    return stats, directions


def _float_scores(cells: pl.DataFrame, column: str, direction: str) -> pl.DataFrame:
    """The score column as float64 labels in the score's order (:mod:`.exact_scores`), negated for ``"lower"``."""
    expression = score_expressions(cells.lazy(), cells.schema, [column])[column]
    if direction == "lower":
        expression = -expression + 0.0  # -0.0 folded into 0.0, as for frames
    return cells.with_columns(expression.alias(column))


def _cell_estimate(table: SqlTable, spec: ColumnSpec, sql: _Sql, by: list[str], paired: bool) -> list[str]:
    """``approx_count_distinct`` items estimating the rows the tables would collect (HyperLogLog, same pass).

    Per score: the distinct (keys, score) cells, and those holding a usable
    positive (a collapsed table has at least one row for each, and at most
    about twice as many).
    """
    q = table.dialect.quote
    if paired:
        return [f"approx_count_distinct(hash({', '.join(q(c) for c in [*by, spec.outcome, *spec.scores])})) "
                "AS __aucpr_cells_0"]
    items = []
    for i, name in enumerate(spec.scores):
        cell = f"hash({', '.join(q(c) for c in [*by, name])})"
        usable_positive = f"NOT ({sql.y_missing} OR {sql.s_missing[name]}) AND {sql.positive}"
        items += [f"approx_count_distinct({cell}) AS __aucpr_cells_{i}",
                  f"approx_count_distinct(CASE WHEN {usable_positive} THEN {cell} END) AS __aucpr_poscells_{i}"]
    return items


def _too_large(table: SqlTable, what: str, estimate: int | None = None) -> TieTableTooLarge:
    limit = table.max_tie_rows
    size = f"about {estimate:,} rows (estimated)" if estimate else f"more than {limit:,} rows"
    return TieTableTooLarge(
        f"the {what} of this {table.dialect.name} input has {size}, over max_tie_rows={limit:,}: refused"
        f"{' before collecting it' if estimate else ''}. Raise the limit with "
        "aucpr_stats.ingest.sql_input(data, max_tie_rows=...) if the driver has the memory (about 40 bytes a "
        "row), or coarsen the scores (e.g. round them) in the engine first. Estimators that read the negatives "
        "only between positive rows (average_precision, the trapezoids, interpolated_max, A') collect the "
        "table with runs of negatives collapsed, about two rows per score holding a positive; when even that is "
        "over the limit, average_precision, lower_trapezoid and a_prime come from the engine's partial sums, "
        "one row per group (with the logit, binomial, wilson and DeLong intervals); pr_curve and roc_curve "
        "take grid= to collect at most 8 grid + 1 points per group"
    )


_COLLAPSED = ("tie table with runs of negatives collapsed (rows holding positives, and one per run of negatives "
              "between them)")

#: Why ``partial_sums="always"`` is refused for a call that needs more than the sums.
_NOT_SUMMED = ("partial_sums='always' (aucpr_stats.ingest.sql_input) serves only statistics that are sums over the "
               "tie rows: aucpr(estimator='average_precision' or 'lower_trapezoid', without recall= or "
               "prevalence=) and auroc() of the full area, without fold=, cluster= or weights=; this call needs "
               "the tie table")


def _cells(table: SqlTable, spec: ColumnSpec, sql: _Sql, name: str, group_cols: list[str],
           collapse_direction: str | None = None, thin: tuple[int, str] | None = None) -> pl.DataFrame:
    """One row per (keys, score value): usable rows, usable positives, and rows with something missing.

    With ``collapse_direction`` (the score's direction), every run of cells
    without positives (in the score's order, within a group) comes back as
    one cell at the run's lowest score: the table of
    :meth:`~aucpr_stats.ties.TieTable.collapsed`, computed by the engine, so
    that only about two cells per score holding a positive reach Python.
    With ``thin`` (a grid and the score's direction), the cells of
    :meth:`~aucpr_stats.ties.TieTable.thinned` come back instead (at most
    ``8 grid + 1`` per group).
    """
    q = table.dialect.quote
    missing = f"({sql.y_missing} OR {sql.s_missing[name]})"
    keys = [f"{q(c)} AS {q(c)}" for c in group_cols]
    # a missing score groups as NULL, so the cells of missing rows add at most one cell per group
    score = f"CASE WHEN {sql.s_missing[name]} THEN NULL ELSE {q(name)} END"
    query = (f"SELECT {', '.join([*keys, f'{score} AS {_S}'])}, "
             f"{_count(f'NOT {missing} AND {sql.positive}')} AS {_P}, {_count(f'NOT {missing}')} AS {_N}, "
             f"{_count(missing)} AS {_M} FROM {TABLE} GROUP BY {', '.join([*[q(c) for c in group_cols], score])}")
    if collapse_direction is not None:
        query = collapsed_query(query, [q(c) for c in group_cols], collapse_direction)
    elif thin is not None:
        query = thinned_query(query, [q(c) for c in group_cols], thin[1], thin[0], table.dialect)
    cells = table.run(f"{query} LIMIT {table.max_tie_rows + 1}")
    if cells.height > table.max_tie_rows:
        what = (_COLLAPSED if collapse_direction
                else f"curve thinned to grid={thin[0]} (at most {8 * thin[0] + 1:,} points per group)" if thin
                else "tie table (distinct (group, score) pairs)")
        raise _too_large(table, what)
    return cells


def _group_of_rows(keys: pl.DataFrame, frame: pl.DataFrame, keys_by: list[str]) -> np.ndarray:
    """The row of ``keys`` of every row of ``frame``."""
    if not keys_by:
        return np.zeros(frame.height, dtype=np.int64)
    group = (group_index(keys, frame, keys_by) if all(integer_like(frame.schema[c]) for c in keys_by) else None)
    if group is None:
        joined = frame.select(keys_by).join(keys.select(keys_by).with_row_index("__aucpr_g"), on=keys_by,
                                            how="left", nulls_equal=True, maintain_order="left")
        group = joined["__aucpr_g"].to_numpy()
    return np.asarray(group, dtype=np.int64)


def _keys_of(cells: pl.DataFrame, keys_by: list[str], n_rows: int, n_missing: int) -> pl.DataFrame:
    """The keys frame (sorted ascending, nulls last) with ``n_missing`` and ``n_rows``, summed from the cells."""
    if not keys_by:
        return pl.DataFrame({"n_missing": [n_missing], "n_rows": [n_rows]}, schema={"n_missing": pl.Int64,
                                                                                   "n_rows": pl.Int64})
    return (cells.group_by(keys_by).agg(n_missing=pl.col(_M).sum().cast(pl.Int64),
                                        n_rows=(pl.col(_M) + pl.col(_N)).sum().cast(pl.Int64))
            .sort(keys_by, nulls_last=True))


def read_sql(table: SqlTable, spec: ColumnSpec, by: tuple, fold: str | None, paired: bool, *,
             estimate_cells: bool = True, collapse: bool = False, sums_ties: str | None = None,
             thin: int | None = None) -> Collected:
    """Check counts in one query; the tables, once the checks passed, from the engine's cells.

    Parameters
    ----------
    table : SqlTable
    spec : ColumnSpec
    by : tuple of str
        Every grouping column (``spec.by`` and ``between``).
    fold : str, optional
        Grouped on last.
    paired : bool
        Several scores on the same rows (paired comparisons).
    estimate_cells : bool
        Estimate the size of the tie table in the pass of the checks (HyperLogLog), so that
        ``build()`` refuses a table clearly over the limit before running the cell queries.
    collapse : bool
        Every statistic asked for reads the negatives only through their
        counts between positive rows (``"negative_runs"`` estimators): the
        engine collapses each run of negatives into one cell, and only that
        table (its size bounded by ``max_tie_rows``) is collected.
    sums_ties : {"interpolate", "published"}, optional
        Given when every statistic asked for is one of the engine's partial
        sums (:data:`~aucpr_stats.ingest.engine_sums.SUMMED_ESTIMATORS`), under
        this ``ties=`` option: ``build()`` then returns the deferred table of
        those sums (:func:`~aucpr_stats.ingest.engine_sums.summed_tables`)
        when the collapsed table is over the limit (``partial_sums="auto"``)
        or always (``"always"``).
    thin : int, optional
        A curve's ``grid=``: the engine thins each group's cells to the rows
        where recall or the false positive rate crosses a multiple of
        ``1/thin`` (:meth:`~aucpr_stats.ties.TieTable.thinned`), so at most
        ``8 thin + 1`` rows per group are collected.

    Returns
    -------
    Collected
        Frames come back as polars frames (``kind="polars"``).

    Raises
    ------
    InputTypeError, OutcomeError
        As for frames (a non-numeric score, an outcome type without ``positive=``).
    TieTableTooLarge
        From ``build()``: more than ``table.max_tie_rows`` cells (or paired rows).
    """
    _check_types(table, spec)
    sql = sql_conditions(table, spec)
    extra = _cell_estimate(table, spec, sql, [*by, *((fold,) if fold else ())], paired) if estimate_cells else []
    stats, directions = _stats(table, spec, sql, tuple(extra))
    estimate = sum(int(stats.pop(k) or 0) for k in [k for k in stats if k.startswith("__aucpr_cells_")])
    # a collapsed table has at least a row per cell holding a positive
    positive_estimate = sum(int(stats.pop(k) or 0) for k in [k for k in stats if k.startswith("__aucpr_poscells_")])
    q = table.dialect.quote
    group_cols = [*by, *((fold,) if fold else ())]

    def examples(which: str, column: Any = None) -> list | str:
        if table.dialect.row_number is None:
            return f"not numbered, {table.dialect.name} tables have no row order"
        mask = sql.s_infinite[column] if which == "infinite" else sql.row_missing
        rows = table.run(f"SELECT __aucpr_row FROM (SELECT {table.dialect.row_number} AS __aucpr_row, * "
                         f"FROM {TABLE}) AS numbered WHERE {mask} ORDER BY __aucpr_row LIMIT 5")
        return [int(r) for r in rows["__aucpr_row"]]

    def level_counts(which: str) -> list[tuple]:
        y = q(spec.outcome)
        mask = f"NOT {sql.y_null}" if which == "all" else sql.neither
        counts = table.run(f"SELECT {y} AS level, COUNT(*) AS n FROM {TABLE} WHERE {mask} GROUP BY {y} "
                           f"ORDER BY {y} LIMIT 12")
        return [(level, int(n)) for level, n in counts.iter_rows()]

    def tie_table(keys_by: list[str]) -> tuple:
        parts = []
        for k, name in enumerate(spec.scores):
            collapse_direction = directions[name] if collapse else None
            thinned = (thin, directions[name]) if thin and not fold else None
            cells = _float_scores(_cells(table, spec, sql, name, group_cols, collapse_direction, thinned), _S,
                                  directions[name])
            parts.append(cells.with_columns(pl.lit(k, dtype=pl.UInt32).alias(_K)) if spec.multi_score else cells)
        cells = pl.concat(parts, how="vertical_relaxed") if len(parts) > 1 else parts[0]
        if len(cells) > table.max_tie_rows:
            raise _too_large(table, "tie table (distinct (group, score) pairs)")
        keys = _keys_of(cells, keys_by, stats["n_rows"], stats["row_missing"])
        usable = cells.filter(pl.col(_N) > 0)
        return ties_from_cells(keys, usable, keys_by, _S, _P, _N, spec.missing == "drop"), keys

    def partial_sums(reason: str) -> tuple:
        from .engine_sums import summed_tables

        return summed_tables(table, spec, sql, list(by), directions, sums_ties, reason)

    def build() -> tuple:
        # refused before any cell is collected when the estimate is clearly over the limit (HyperLogLog errs
        # by a few percent); the LIMIT of the cell queries is the exact check
        if estimate > 1.1 * table.max_tie_rows and not ((collapse or thin) and not paired):
            raise _too_large(table, "paired rows (distinct (group, outcome, scores) combinations)" if paired
                             else "tie table (distinct (group, score) pairs)", estimate)
        if table.partial_sums == "always" and sums_ties is None:
            raise InputError(_NOT_SUMMED)
        if paired:
            return _paired(table, spec, sql, by, directions)
        keys_by = [*by, *((_K,) if spec.multi_score else ()), *((fold,) if fold else ())]
        clearly_over = collapse and positive_estimate > 1.1 * table.max_tie_rows
        if table.partial_sums == "always":
            ties, keys = partial_sums("partial_sums='always' was asked for")
        elif clearly_over and sums_ties is not None and table.partial_sums == "auto":
            # no pass is spent on a collapsed table that cannot be collected
            ties, keys = partial_sums(f"its collapsed tie table has about {positive_estimate:,} rows or more "
                                      f"(estimated), over max_tie_rows={table.max_tie_rows:,}")
        elif clearly_over:
            raise _too_large(table, _COLLAPSED, positive_estimate)
        else:
            try:
                ties, keys = tie_table(keys_by)
            except TieTableTooLarge:
                if sums_ties is None or table.partial_sums == "never":
                    raise
                ties, keys = partial_sums(f"its collapsed tie table has more than max_tie_rows="
                                          f"{table.max_tie_rows:,} rows")
        if spec.multi_score:
            names = pl.Series(list(spec.scores), dtype=pl.String)
            keys = keys.with_columns(names.gather(keys[_K]).alias(_K)).rename({_K: SCORE_KEY})
        return ties, keys

    return Collected(kind="polars", stats=stats, examples=examples, build=build, level_counts=level_counts,
                     directions=directions)


def _paired(table: SqlTable, spec: ColumnSpec, sql: _Sql, by: tuple, directions: dict):
    """Paired scores from one row per distinct (keys, complete?, outcome, scores) with its count."""
    q = table.dialect.quote
    ok = f"NOT {sql.row_missing}"
    columns = [*[q(c) for c in by], ok, sql.positive, *[q(s) for s in spec.scores]]
    names = [*[q(c) for c in by], _OK, _Y, *[f"__aucpr_s{i}" for i in range(len(spec.scores))]]
    selected = ", ".join(f"{c} AS {n}" for c, n in zip(columns, names))
    combos = table.run(f"SELECT {selected}, COUNT(*) AS {_N} FROM {TABLE} GROUP BY {', '.join(columns)} "
                       f"LIMIT {table.max_tie_rows + 1}")
    if combos.height > table.max_tie_rows:
        raise _too_large(table, "paired rows (distinct (group, outcome, scores) combinations)")
    keys_by = list(by)
    if keys_by:
        keys = (combos.group_by(keys_by)
                .agg(n_missing=pl.col(_N).filter(~pl.col(_OK)).sum().cast(pl.Int64),
                     n_rows=pl.col(_N).sum().cast(pl.Int64))
                .sort(keys_by, nulls_last=True))
    else:
        keys = pl.DataFrame({"n_missing": [int(combos.filter(~pl.col(_OK))[_N].sum())],
                             "n_rows": [int(combos[_N].sum())]}, schema={"n_missing": pl.Int64, "n_rows": pl.Int64})
    combos = combos.filter(pl.col(_OK))
    if combos.height == 0:
        raise InputError("no rows have the outcome and every score present; a paired comparison needs complete rows")
    for i, name in enumerate(spec.scores):
        combos = _float_scores(combos, f"__aucpr_s{i}", directions[name])
    # one entry per row: each combination repeated by its count (rows of equal values are interchangeable)
    repeat = np.repeat(np.arange(combos.height), combos[_N].to_numpy().astype(np.int64))
    group = _group_of_rows(keys, combos, keys_by)[repeat]
    positive = combos[_Y].to_numpy().astype(bool)[repeat]
    scores = [combos[f"__aucpr_s{i}"].to_numpy()[repeat] for i in range(len(spec.scores))]
    return paired_scores(group, positive, scores, keys.height), keys
