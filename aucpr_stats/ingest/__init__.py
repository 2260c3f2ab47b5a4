"""Ingest: read the caller's frame once, check it, and build the tie tables every statistic needs.

One function serves every entry point (:func:`read` for the public ones,
:func:`ingest` below it): ``aucpr``, ``auroc``, ``pr_curve``, ``roc_curve``,
``compare`` (paired and unpaired) and ``aucpr(..., fold=)``. The data checks
(missing values, infinite scores, outcome levels) and the tie tables are
planned as lazy polars queries and collected together with
``polars.collect_all``, so a LazyFrame is collected once. Errors are raised
after the collect, before any statistic runs.

What comes back (:class:`Ingested`):

* ``ties``: one segment per group (and per score when several are given, and
  per level of ``between`` for unpaired comparisons);
* ``folds``: with ``fold=``, the tie tables per (group, fold) too; the group
  tables are their merge, so the data are read once;
* ``paired``: for paired comparisons, one table per score on the complete
  rows and, for every row, its tie row in each (:class:`PairedScores`).

An input backend (DuckDB, Spark) is one more way to produce these tables;
see ``docs/architecture.md``.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import numpy as np
import polars as pl

from .. import _frames, _validate
from .._validate import SCORE_KEY, ColumnSpec
from ..exceptions import InputError, InputTypeError
from ..formula import resolve
from ..ties import TieTable
from .build import tie_table_from_counts, tie_table_from_rows
from .checks import check_stats, outcome_coding
from .class_sort import PARALLEL_MIN_ROWS, pivots_from_sample, sort_classes
from .keys import group_index, integer_like, ties_from_cells
from .notes import group_notes, warn_degenerate
from .paired import PairedScores, paired_scores

__all__ = ["Ingested", "FoldTables", "PairedScores", "read", "ingest"]

_Y = "__aucpr_y"
_S = "__aucpr_s"
_G = "__aucpr_g"
_P = "__aucpr_pos"
_N = "__aucpr_n"
_K = "__aucpr_k"
_MY = "__aucpr_my"
_OK = "__aucpr_ok"


@attrs.frozen(eq=False)
class FoldTables:
    """Tie tables per (group, fold) from the caller's fold column.

    Attributes
    ----------
    ties : TieTable
        One segment per (group, fold) combination present in the data.
    group : ndarray of int64
        Group (row of the result's keys) of each segment.
    fold : polars.Series
        Fold label of each segment.
    column : str
        Name of the fold column.
    """

    ties: TieTable
    group: np.ndarray
    fold: pl.Series
    column: str


@attrs.frozen(eq=False)
class Ingested:
    """What every entry point needs after ingest.

    Attributes
    ----------
    ties : TieTable or None
        One segment per group, in the row order of ``keys`` (None for paired
        comparisons, whose tables are in ``paired``).
    keys : polars.DataFrame
        The group key columns (in ``by`` order, sorted ascending, nulls last;
        then ``score`` in the order given when there are several scores)
        and ``n_missing``, the rows dropped per group for missing values.
        Ungrouped data has one row and only ``n_missing``.
    spec : ColumnSpec
    kind : {"pandas", "polars"}
        The caller's frame type, for frames handed back.
    folds : FoldTables, optional
        With ``fold=``: the tie tables per (group, fold).
    paired : PairedScores, optional
        For paired comparisons: the tables of every score on the complete rows.
    notes : tuple
        Per group, why it has no estimate (no positives, no negatives), or None.
    """

    ties: TieTable | None
    keys: pl.DataFrame
    spec: ColumnSpec
    kind: str
    folds: FoldTables | None = None
    paired: PairedScores | None = None
    notes: tuple = ()

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The key columns of ``keys`` in order: ``by`` (and extra columns), then
        ``score`` when several scores were given. Results use these as their keys."""
        return tuple(c for c in self.keys.columns if c != "n_missing")

    @property
    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Positives and negatives per group."""
        table = self.ties if self.ties is not None else self.paired.tables[0]
        return table.n_pos, table.n_neg


def read(function: str, data_or_formula: Any, data: Any, outcome: Any, score: Any, by: Any, *, positive: Any,
         missing: Any, fold: Any = None, between: Any = None, paired: bool = False,
         stacklevel: int = 3) -> Ingested:
    """The start of every public entry point: resolve a formula, check the columns, ingest, note degenerate groups.

    Parameters
    ----------
    function : str
        The entry point's name, for messages.
    data_or_formula, data, outcome, score, by
        As the entry point received them (see :func:`aucpr_stats.formula.resolve`).
    positive, missing
        The outcome's positive level and the missing-value policy.
    fold, between : str, optional
        A fold column (per-fold tables too) or a column whose levels are
        compared (one more key, before ``score``).
    paired : bool
        Several scores compared on their complete rows (:class:`PairedScores`).
    stacklevel : int
        Of the degenerate-group warning, counted from the entry point (2 = its caller).

    Returns
    -------
    Ingested
        With ``notes`` filled in; one :class:`~aucpr_stats.exceptions.DegenerateGroupWarning`
        is raised for the groups without both classes.
    """
    data, outcome, score, by = resolve(data_or_formula, data, outcome, score, by, function=function)
    spec = _validate.column_spec_iv(data, outcome, score, by, positive, missing)
    if fold is not None:
        fold = _validate.extra_column_iv(data, fold, "fold", spec)
    if between is not None:
        between = _validate.extra_column_iv(data, between, "between", spec)
    ingested = ingest(data, spec, extra_keys=(between,) if between is not None else (), fold=fold, paired=paired)
    n_pos, n_neg = ingested.counts
    notes = group_notes(n_pos, n_neg)
    warn_degenerate(ingested.keys, ingested.key_columns, notes, stacklevel=stacklevel + 2)
    return attrs.evolve(ingested, notes=tuple(notes))


def _scans_files(data: Any) -> bool:
    """True for a LazyFrame whose plan reads files (CSV, Parquet, IPC, ...).

    Such a frame may be larger than memory, so the tie table is reduced in
    polars' streaming engine (to (keys, score) cells, or for one group with
    mostly distinct scores to the scores of each class). A LazyFrame over
    in-memory data takes the faster in-memory path; all paths give the same
    table.
    """
    return isinstance(data, pl.LazyFrame) and "SCAN" in data.explain(optimized=False)


def ingest(data: Any, spec: ColumnSpec, *, extra_keys: Sequence[str] = (), fold: str | None = None,
           paired: bool = False) -> Ingested:
    """Check ``data`` against ``spec`` and build the tie tables of all groups, collecting the data once.

    With several score columns (``spec.score`` a tuple) the scores are
    unpivoted inside the lazy query into (score name, value) pairs, so the tie
    table has one segment per (group, score) and ``keys`` gains a ``score``
    column after the ``by`` keys (scores in the order given). Missing values
    are then judged per score: with ``missing="drop"`` a row with a missing
    ``s1`` but a present ``s2`` leaves only the ``s1`` segment. With
    ``paired=True`` the scores stay side by side and a row counts only if the
    outcome and every score are present (complete cases).

    Parameters
    ----------
    data : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
    spec : ColumnSpec
        Checked column roles (names already checked to exist).
    extra_keys : sequence of str
        Further grouping columns after ``spec.by`` (the ``between`` column).
    fold : str, optional
        A fold column: tables per (group, fold) are built too, and merged into the group tables.
    paired : bool
        Build :class:`PairedScores` instead of ``ties`` (several scores on the same rows).

    Raises
    ------
    InputError, InputTypeError
        Empty data, missing values (``missing="error"``), infinite scores,
        non-numeric scores, outcomes that are not binary, missing fold labels.
        The message names the column at fault.
    """
    scores = spec.scores
    by = tuple(dict.fromkeys(spec.by + tuple(extra_keys)))
    lf, kind = _frames.to_lazy(data, columns=[spec.outcome, *scores, *by, *((fold,) if fold else ())])
    schema = lf.collect_schema()
    for name in scores:
        s_type = schema[name]
        if not (s_type.is_numeric() or s_type == pl.Boolean):
            raise InputTypeError(f"`score` column {name!r} must be numeric; got type {s_type}")
    y_type = schema[spec.outcome]
    coding, positive_level = outcome_coding(spec, y_type)

    y_missing = pl.col(spec.outcome).is_null()
    if y_type.is_float():
        y_missing = y_missing | pl.col(spec.outcome).is_nan()
    s_missing, s_infinite = {}, {}
    for name in scores:
        s_missing[name] = pl.col(name).is_null()
        s_infinite[name] = pl.lit(False)
        if schema[name].is_float():
            s_missing[name] = s_missing[name] | pl.col(name).is_nan()
            s_infinite[name] = pl.col(name).is_infinite()
    row_missing = y_missing | pl.any_horizontal(*s_missing.values())

    levels = pl.col(spec.outcome).filter(~y_missing)
    # the outcome's levels from min / max and a count (one cheap pass); the
    # exact distinct count (a hash, ~1 s at 1e7 rows) only if needed, below.
    # A query of its own: mixed with the counts below in one select, polars'
    # streaming engine materialises the whole scan (a LazyFrame larger than memory)
    levels_q = lf.select(
        y_min=levels.min(),
        y_max=levels.max(),
        n_min_max=((levels == levels.min()) | (levels == levels.max())).sum(),
        n_positive=coding.filter(~y_missing).sum(),
    )
    # a boolean outcome has its levels in its count of True values (no query of its own)
    boolean_outcome = y_type == pl.Boolean
    stats_q = lf.select(
        **({"n_true": pl.col(spec.outcome).sum().cast(pl.Int64)} if boolean_outcome else {}),
        n_rows=pl.len(),
        y_missing=y_missing.sum(),
        row_missing=row_missing.sum(),
        **{f"s_missing_{i}": s_missing[name].sum() for i, name in enumerate(scores)},
        **{f"s_infinite_{i}": s_infinite[name].sum() for i, name in enumerate(scores)},
        **{f"s_usable_{i}": (~(y_missing | s_missing[name])).sum() for i, name in enumerate(scores)},
    )

    if paired:
        # the scores side by side, a row kept when the outcome and every score are present
        rows = lf.select(*by, (~row_missing).alias(_OK), coding.fill_null(False).alias(_Y),
                         *[pl.col(s).cast(pl.Float64) for s in scores])
        keys_q = (rows.group_by(list(by)).agg(n_missing=(~pl.col(_OK)).sum(), n_rows=pl.len())
                  .sort(list(by), nulls_last=True)) if by else None
        tie_q, keys_by, cells, threads = [rows], list(by), False, 1
    else:
        rows, keys_by, keys_q, tie_q, cells, threads = _tie_queries(data, lf, spec, by, fold, coding, y_missing)

    queries = [stats_q] + ([] if boolean_outcome else [levels_q]) + ([keys_q] if keys_q is not None else []) + tie_q
    stats, *rest = pl.collect_all(queries, engine="streaming" if _scans_files(data) else "auto")
    stats = stats.row(0, named=True)
    if not boolean_outcome:
        stats |= rest.pop(0).row(0, named=True)
    keys = rest.pop(0) if keys_q is not None else pl.DataFrame(
        {"n_missing": [stats["row_missing"]], "n_rows": [stats["n_rows"]]})
    tie_rows = rest
    del rest
    stats.update(_levels(stats, positive_level, boolean_outcome, lf, levels))
    check_stats(stats, spec, lf, s_infinite, y_missing, s_missing)
    keys = keys.with_columns(pl.col("n_missing").cast(pl.Int64))

    if paired:
        frame = tie_rows[0]
        group = _group_of_rows(keys, frame, keys_by)
        ok = frame[_OK].to_numpy()
        if not ok.any():
            raise InputError("no rows have the outcome and every score present; a paired comparison needs "
                             "complete rows")
        positive = frame[_Y].to_numpy().astype(bool)[ok]
        table_scores = [frame[s].to_numpy()[ok] for s in scores]
        return Ingested(ties=None, keys=keys.drop("n_rows"), spec=spec, kind=kind,
                        paired=paired_scores(group[ok], positive, table_scores, keys.height))

    if cells:
        ties = ties_from_cells(keys, tie_rows[0], keys_by, _S, _P, _N, spec.missing == "drop")
    elif keys_by:
        frame = tie_rows[0]
        group = _group_of_rows(keys, frame, keys_by)
        ties = tie_table_from_rows(group, frame[_S].to_numpy(), frame[_Y].to_numpy(), keys.height)
    else:
        # each range of each class is copied into its place in one numpy buffer
        # per class and sorted there; the merged table is built only if read
        pos_parts = [[chunk.to_numpy() for chunk in part[_S].get_chunks()] for part in tie_rows[0::2]]
        neg_parts = [[chunk.to_numpy() for chunk in part[_S].get_chunks()] for part in tie_rows[1::2]]
        del tie_rows
        ties = TieTable.deferred(sort_classes(pos_parts, neg_parts, threads=threads))

    folds = None
    if fold is not None:
        ties, keys, folds = _merge_folds(ties, keys, fold, [c for c in keys_by if c != fold])
    if spec.multi_score:
        keys = keys.with_columns(pl.col(_K).cast(pl.String)).rename({_K: SCORE_KEY})
    return Ingested(ties=ties, keys=keys.drop("n_rows"), spec=spec, kind=kind, folds=folds)


def _tie_queries(data: Any, lf: pl.LazyFrame, spec: ColumnSpec, by: tuple, fold: str | None, coding: pl.Expr,
                 y_missing: pl.Expr):
    """The queries of the tie-table step: (rows, key columns, keys query, tie queries, cells?, threads)."""
    scores = spec.scores
    # One row per (case, score): the outcome's missingness travels as its own
    # column because the 0/1 coding of a NaN outcome is False, not null.
    rows = lf.select(
        *by, *((fold,) if fold else ()),
        y_missing.alias(_MY),
        coding.alias(_Y),
        *[pl.col(name).cast(pl.Float64).alias(name if spec.multi_score else _S) for name in scores],
    )
    keys_by = list(by)
    if spec.multi_score:
        index = [*by, *((fold,) if fold else ()), _MY, _Y]
        rows = rows.unpivot(on=list(scores), index=index, variable_name=_K, value_name=_S)
        rows = rows.with_columns(pl.col(_K).cast(pl.Enum(list(scores))))
        keys_by.append(_K)
    if fold:
        keys_by.append(fold)  # last: the folds of a group are adjacent in the sorted keys
    missing_expr = pl.col(_MY) | pl.col(_S).is_null() | pl.col(_S).is_nan()
    keys_q = None
    if keys_by:
        keys_q = (rows.group_by(keys_by).agg(n_missing=missing_expr.sum(), n_rows=pl.len())
                  .sort(keys_by, nulls_last=True))
    if spec.missing == "drop":
        rows = rows.filter(~missing_expr)

    # --- the sort and tie-table step (the one O(n log n) step) ---
    streaming = _scans_files(data)
    # a LazyFrame reading files may be larger than memory: the streaming engine reduces the
    # rows to one cell per (keys, score) with its counts, so memory grows with the number
    # of distinct scores, not of rows. For one group whose scores are mostly distinct the
    # cells save nothing, and the scores of each class (8 bytes a row) take less memory
    # than polars' hash table of cells (several times that)
    cells = streaming and (bool(keys_by) or not _mostly_distinct(rows))
    threads = 1
    if cells:
        tie_q = [rows.group_by([*keys_by, _S]).agg(pl.col(_Y).sum().alias(_P), pl.len().alias(_N))]
    elif keys_by:
        # rows in any order: each row's group index (numpy codes for integer,
        # boolean and enum keys, a hash join otherwise), then one uint64 argsort
        # of (group, score) in tie_table_from_rows; no multi-column sort
        tie_q = [rows.select(*keys_by, _S, _Y)]
    else:
        # one segment: the scores of each class in a few ranges of values (one
        # per thread), unsorted; numpy value-sorts each range in its own thread
        # (several times cheaper than sorting rows), see class_sort
        pivots = _score_pivots(rows, data)
        threads = pivots.size + 1
        tie_q = []
        for in_range in _value_ranges(pl.col(_S), pivots):
            tie_q += [rows.filter(pl.col(_Y) & in_range).select(_S), rows.filter(~pl.col(_Y) & in_range).select(_S)]
    return rows, keys_by, keys_q, tie_q, cells, threads


def _levels(stats: dict, positive_level: Any, boolean_outcome: bool, lf: pl.LazyFrame, levels: pl.Expr) -> dict:
    """The outcome's levels (at most 12 shown), their number, and the count of positives."""
    if boolean_outcome:
        n_valid, n_true = stats["n_rows"] - stats["y_missing"], stats["n_true"] or 0
        found = [level for level, count in ((False, n_valid - n_true), (True, n_true)) if count]
        return {"levels": found, "n_levels": len(found),
                "n_positive": n_true if bool(positive_level) else n_valid - n_true}
    if stats["n_rows"] and stats["y_min"] is not None and stats["n_min_max"] == stats["n_rows"] - stats["y_missing"]:
        # every outcome is its minimum or its maximum: at most two levels
        found = sorted({stats["y_min"], stats["y_max"]})
        return {"levels": found, "n_levels": len(found)}
    exact = lf.select(n_levels=levels.n_unique(), levels=levels.unique().sort().head(12).implode()).collect()
    return exact.row(0, named=True)


def _group_of_rows(keys: pl.DataFrame, frame: pl.DataFrame, keys_by: list[str]) -> np.ndarray:
    """The row of ``keys`` of every row of ``frame`` (numpy codes, or a join for other key types)."""
    if not keys_by:
        return np.zeros(frame.height, dtype=np.int64)
    schema = frame.schema
    group = group_index(keys, frame, keys_by) if all(integer_like(schema[c]) for c in keys_by) else None
    if group is None:  # other key types, or codes too wide for 64 bits
        joined = frame.select(keys_by).join(keys.select(keys_by).with_row_index(_G), on=keys_by, how="left",
                                            nulls_equal=True, maintain_order="left")
        group = joined[_G].to_numpy()
    return np.asarray(group, dtype=np.int64)


def _merge_folds(ties: TieTable, keys: pl.DataFrame, fold: str, group_columns: list[str]):
    """Group tables as the merge of their (group, fold) tables; the fold tables kept for cross-validation."""
    if keys[fold].null_count():
        raise InputError(f"`fold` column {fold!r} has missing values; every row needs a fold")
    if group_columns:
        # keys are sorted with the fold last: a group's folds are adjacent
        starts = keys.select(pl.any_horizontal(
            [pl.col(c).ne_missing(pl.col(c).shift(1)) for c in group_columns]).fill_null(True))[:, 0].to_numpy()
        starts[0] = True
        group = np.cumsum(starts) - 1
    else:
        group = np.zeros(keys.height, dtype=np.int64)
    n_groups = int(group[-1]) + 1 if group.size else 0
    fold_keys = keys
    keys = (keys.with_columns(pl.Series(_G, group)).group_by(_G, maintain_order=True)
            .agg(*[pl.col(c).first() for c in group_columns], pl.col("n_missing").sum(), pl.col("n_rows").sum())
            .drop(_G))
    merged = tie_table_from_counts(group[ties.segment_ids()], ties.score, ties.pos, ties.neg, n_groups)
    return merged, keys, FoldTables(ties=ties, group=group, fold=fold_keys[fold], column=fold)


def _mostly_distinct(rows: pl.LazyFrame) -> bool:
    """True when more than a quarter of the scores are distinct (HyperLogLog estimate, one streaming pass)."""
    counts = rows.select(n=pl.len(), distinct=pl.col(_S).approx_n_unique()).collect(engine="streaming")
    return 4 * counts["distinct"][0] > counts["n"][0]


def _score_pivots(rows: pl.LazyFrame, data: Any) -> np.ndarray:
    """Pivots splitting one group's scores into one range per polars thread (none when sorted in one range).

    Only in-memory data of at least :data:`~.class_sort.PARALLEL_MIN_ROWS` rows is split: a
    LazyFrame would be evaluated twice (once for the sample). The pivots come
    from a sample of 4,096 rows per range.
    """
    if isinstance(data, pl.DataFrame):
        n = data.height
    elif _frames.is_pandas_frame(data):
        n = len(data)
    else:
        return np.empty(0)
    threads = min(pl.thread_pool_size(), 16)
    if n < PARALLEL_MIN_ROWS or threads < 2:
        return np.empty(0)
    step = max(n // (4096 * threads), 1)
    sample = rows.select(pl.col(_S).gather_every(step), pl.col(_Y).gather_every(step)).collect()
    return pivots_from_sample(sample[_S].to_numpy(), sample[_Y].fill_null(False).to_numpy(), threads)


def _value_ranges(score: pl.Expr, pivots: np.ndarray) -> list[pl.Expr]:
    """One condition per range of values cut at the pivots; a score equal to a pivot goes to the upper range."""
    if pivots.size == 0:
        return [pl.lit(True)]
    edges = [float(p) for p in pivots]
    ranges = [score < edges[0]]
    ranges += [(score >= lo) & (score < hi) for lo, hi in zip(edges[:-1], edges[1:])]
    ranges.append(score >= edges[-1])
    return ranges
