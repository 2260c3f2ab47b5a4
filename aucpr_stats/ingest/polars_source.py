"""Reading pandas and polars frames (and LazyFrames) in one collect: the in-memory and streaming roads.

:func:`read_polars` plans the data checks and the tie-table step as lazy
polars queries and collects them together with ``polars.collect_all``; it
returns a :class:`Collected` whose counts the shared checks read
(:func:`aucpr_stats.ingest.checks.check_stats`) before :meth:`Collected.build`
makes the tables. Roads to the tie table:

* grouped rows in memory: each row's group index (numpy codes for integer,
  boolean and enum keys, a hash join otherwise), then the scores of each class
  sorted per group, the merge deferred (:func:`.class_sort.deferred_tie_table`),
  or for many small groups one packed-key argsort
  (:func:`~aucpr_stats.ingest.build.tie_table_from_rows`);
* one group in memory: the scores of each class in ranges of values, sorted
  per range in parallel (:mod:`.class_sort`); the merged table is deferred;
* a LazyFrame that reads files: polars' streaming engine reduces the rows to
  one cell per (keys, score), or, for one group with mostly distinct scores,
  to the scores of each class;
* several scores on the same rows (paired comparisons): the complete rows,
  one table per score (:mod:`.paired`).
"""

from __future__ import annotations

from typing import Any, Callable

import attrs
import numpy as np
import polars as pl

from .. import _frames
from .._validate import SCORE_KEY, ColumnSpec
from ..exceptions import InputError, InputTypeError, OutcomeError
from ..ties import TieTable
from .build import tie_table_from_rows
from .class_sort import PARALLEL_MIN_ROWS, deferred_tie_table, pivots_from_sample, sort_classes
from .direction import score_directions
from .exact_scores import score_expressions
from .keys import group_index, integer_like, ties_from_cells
from .paired import paired_scores
from .weights import WEIGHT, WeightSums, check_weights, weight_expression, weight_stats, weighted_tables

__all__ = ["Collected", "read_polars", "outcome_coding"]

_Y = "__aucpr_y"
_S = "__aucpr_s"
_G = "__aucpr_g"
_P = "__aucpr_pos"
_N = "__aucpr_n"
_K = "__aucpr_k"
_MY = "__aucpr_my"
_OK = "__aucpr_ok"


@attrs.frozen(eq=False)
class Collected:
    """What a source hands to ingest after its one read of the data.

    Attributes
    ----------
    kind : {"pandas", "polars"}
        The caller's frame type, for frames handed back.
    stats : dict
        The counts :func:`~aucpr_stats.ingest.checks.check_stats` reads: ``n_rows``,
        ``y_missing`` (with ``negative=``, also the outcomes neither positive
        nor negative), ``y_neither``, ``row_missing``, per score ``s_missing_i``, ``s_infinite_i``,
        ``s_usable_i``, and the outcome's ``levels``, ``n_levels``, ``n_positive``.
    examples : callable
        ``examples(which, column)``: the first row numbers with an infinite
        score in ``column`` (``which="infinite"``) or a missing outcome or
        score (``which="missing"``), for messages.
    build : callable
        ``build() -> (tables, keys)``, called once the checks passed: a
        :class:`~aucpr_stats.ties.TieTable` (or
        :class:`~aucpr_stats.ingest.paired.PairedScores` when paired) and the
        keys, one row per segment: the key columns sorted ascending with nulls
        last (``by``, then ``score`` for several scores, then the fold column),
        ``n_missing`` and ``n_rows``.
    level_counts : callable, optional
        ``level_counts(which)``: (level, rows) pairs of the outcome's levels
        (``"all"``) or of the levels neither positive nor negative
        (``"neither"``), at most 12; computed only for an error message.
    directions : dict
        The direction each score was read in (``"higher"`` or ``"lower"``),
        by score column; ``direction="auto"`` resolved.
    """

    kind: str
    stats: dict
    examples: Callable[[str, Any], list]
    build: Callable[[], tuple]
    level_counts: Callable[[str], list] | None = None
    directions: dict = attrs.field(factory=dict)
    #: Filled by ``build()``: ``"weighted_cells"`` (:class:`~aucpr_stats.ingest.weights.WeightedCells`) with weights.
    side: dict = attrs.field(factory=dict)


def _fits(level: Any, dtype: pl.DataType) -> bool:
    """Whether ``level`` can name a level of an outcome of type ``dtype``."""
    if dtype == pl.Boolean:
        return isinstance(level, (bool, np.bool_))
    if dtype.is_numeric():
        return isinstance(level, (int, float, np.number)) and not isinstance(level, (bool, np.bool_))
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return isinstance(level, str)
    return True


def outcome_coding(spec: ColumnSpec, dtype: pl.DataType) -> tuple[pl.Expr, Any]:
    """Expression that is True for positives, and the positive level it uses."""
    col = pl.col(spec.outcome)
    positive = spec.positive
    if positive is None:
        if dtype == pl.Boolean:
            return col, True
        if dtype.is_numeric():
            return col == 1, 1
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has type {dtype}; pass `positive=` to name the positive "
            "level (outcomes without it must be boolean or 0/1)"
        )
    if not _fits(positive, dtype):
        raise OutcomeError(
            f"`positive`={positive!r} ({type(positive).__name__}) cannot name a level of `outcome` "
            f"column {spec.outcome!r}, which has type {dtype}"
        )
    return col == pl.lit(positive), positive


def negative_coding(spec: ColumnSpec, dtype: pl.DataType) -> pl.Expr | None:
    """Expression that is True for the ``negative=`` levels (None without ``negative=``)."""
    if spec.negative is None:
        return None
    for level in spec.negative:
        if not _fits(level, dtype):
            raise OutcomeError(
                f"`negative` level {level!r} ({type(level).__name__}) cannot name a level of `outcome` "
                f"column {spec.outcome!r}, which has type {dtype}"
            )
    col = pl.col(spec.outcome)
    if isinstance(dtype, (pl.Categorical, pl.Enum)):
        col = col.cast(pl.String)  # an Enum refuses a level it does not declare
    return col.is_in(list(spec.negative))


def example_rows(lf: pl.LazyFrame, mask: pl.Expr, limit: int = 5) -> list[int]:
    """Row numbers (0-based) of the first rows where ``mask`` holds; only used for messages."""
    rows = lf.with_row_index("__row").filter(mask).select("__row").head(limit).collect()
    return rows["__row"].to_list()


def _positional(index: Any) -> bool:
    """True for pandas' default index 0, 1, 2, ... (its labels are the row numbers)."""
    start, step = getattr(index, "start", None), getattr(index, "step", None)
    return start == 0 and step == 1


def _scans_files(data: Any) -> bool:
    """True for a LazyFrame whose plan reads files (CSV, Parquet, IPC, ...).

    Such a frame may be larger than memory, so the tie table is reduced in
    polars' streaming engine (to (keys, score) cells, or for one group with
    mostly distinct scores to the scores of each class). A LazyFrame over
    in-memory data takes the faster in-memory path; all paths give the same
    table.
    """
    return isinstance(data, pl.LazyFrame) and "SCAN" in data.explain(optimized=False)


def read_polars(data: Any, spec: ColumnSpec, by: tuple, fold: str | None, paired: bool) -> Collected:
    """Plan and collect, in one ``collect_all``, the counts of the checks and the rows of the tie-table step.

    ``by`` holds every grouping column (``spec.by`` and ``between``); ``fold``
    is grouped on last; ``paired`` keeps the scores side by side.
    """
    scores = spec.scores
    weights = (spec.weights,) if spec.weights else ()
    lf, kind = _frames.to_lazy(data, columns=[spec.outcome, *scores, *by, *((fold,) if fold else ()), *weights],
                               keys=by)
    schema = lf.collect_schema()
    for name in scores:
        s_type = schema[name]
        if not (s_type.is_numeric() or s_type == pl.Boolean):
            raise InputTypeError(f"`score` column {name!r} must be numeric; got type {s_type}")
    y_type = schema[spec.outcome]
    coding, positive_level = outcome_coding(spec, y_type)
    negative = negative_coding(spec, y_type)
    engine = "streaming" if _scans_files(data) else "auto"
    # each score as float64, ranked on its own type first where the cast would merge distinct values
    as_float = score_expressions(lf, schema, scores, engine=engine)

    y_null = pl.col(spec.outcome).is_null()
    if y_type.is_float():
        y_null = y_null | pl.col(spec.outcome).is_nan()
    # with `negative=`, an outcome that is neither positive nor negative counts as a missing outcome
    y_neither = pl.lit(False) if negative is None else (~y_null & ~coding & ~negative).fill_null(False)
    y_missing = y_null | y_neither
    s_missing, s_infinite = {}, {}
    for name in scores:
        s_missing[name] = pl.col(name).is_null()
        s_infinite[name] = pl.lit(False)
        if schema[name].is_float():
            s_missing[name] = s_missing[name] | pl.col(name).is_nan()
            s_infinite[name] = pl.col(name).is_infinite()
    w_masks: dict[str, pl.Expr] = {}
    weight = None
    if spec.weights:
        if paired:
            raise InputError("`weights=` is not supported by paired comparisons yet; compare the scores one by "
                             "one with aucpr()/auroc(..., weights=)")
        weight = weight_expression(schema, spec.weights)
        w_missing, w_masks = weight_stats(weight)
        y_missing = y_missing | w_missing  # a row without a weight is dropped like a row without an outcome
    row_missing = y_missing | pl.any_horizontal(*s_missing.values())
    directions = score_directions(spec, lf, coding, y_missing, s_missing, as_float, engine)
    for name, direction in directions.items():
        if direction == "lower":  # negated as float64 (exact); + 0.0 turns -0.0 into 0.0, one tie with 0.0
            as_float[name] = -as_float[name] + 0.0

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
        y_neither=y_neither.sum(),
        **({"n_negative": (negative.fill_null(False) & ~y_missing).sum()} if negative is not None else {}),
        row_missing=row_missing.sum(),
        **{f"s_missing_{i}": s_missing[name].sum() for i, name in enumerate(scores)},
        **{f"s_infinite_{i}": s_infinite[name].sum() for i, name in enumerate(scores)},
        **{f"s_usable_{i}": (~(y_missing | s_missing[name])).sum() for i, name in enumerate(scores)},
        **{key: mask.sum() for key, mask in w_masks.items()},
    )

    if paired:
        # the scores side by side, a row kept when the outcome and every score are present
        rows = lf.select(*by, (~row_missing).alias(_OK), coding.fill_null(False).alias(_Y),
                         *[as_float[s] for s in scores])
        keys_q = (rows.group_by(list(by)).agg(n_missing=(~pl.col(_OK)).sum(), n_rows=pl.len())
                  .sort(list(by), nulls_last=True)) if by else None
        tie_q, keys_by, cells, threads = [rows], list(by), False, 1
    else:
        rows, keys_by, keys_q, tie_q, cells, threads = _tie_queries(data, lf, spec, by, fold, coding, y_missing,
                                                                    as_float, weight)

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
    keys = keys.with_columns(pl.col("n_missing").cast(pl.Int64))

    side: dict = {}  # what build() makes besides the tables (the weighted cells)

    def examples(which: str, column: Any = None) -> list | str:
        if which in w_masks:
            mask = w_masks[which]
        else:
            mask = s_infinite[column] if which == "infinite" else pl.any_horizontal(y_missing, *s_missing.values())
        rows = example_rows(lf, mask)
        if kind == "pandas" and not _positional(data.index):  # the labels pandas users look rows up by
            return f"index labels {data.index[rows].tolist()}"
        return rows

    def level_counts(which: str) -> list[tuple]:
        """(level, rows) of the outcome's levels (``"all"``) or of those neither positive nor negative."""
        mask = ~y_null if which == "all" else y_neither
        counts = lf.filter(mask).group_by(spec.outcome).len().sort(spec.outcome).head(12).collect()
        return [tuple(row) for row in counts.iter_rows()]

    def build() -> tuple:
        if paired:
            return _paired(tie_rows[0], keys, keys_by, scores), keys
        if weight is not None:
            ties = _weighted(keys, tie_rows[0], keys_by, spec.missing == "drop", side)
        elif cells:
            ties = ties_from_cells(keys, tie_rows[0], keys_by, _S, _P, _N, spec.missing == "drop")
        elif keys_by:
            frame = tie_rows[0]
            group = _group_of_rows(keys, frame, keys_by)
            # without folds or clusters (whose tables are merged at once) the merge of each
            # group's classes is deferred until a statistic reads the full table
            builder = tie_table_from_rows if fold else deferred_tie_table
            ties = builder(group, frame[_S].to_numpy(), frame[_Y].to_numpy(), keys.height)
        else:
            # each range of each class is copied into its place in one numpy buffer
            # per class and sorted there; the merged table is built only if read
            pos_parts = [[chunk.to_numpy() for chunk in part[_S].get_chunks()] for part in tie_rows[0::2]]
            neg_parts = [[chunk.to_numpy() for chunk in part[_S].get_chunks()] for part in tie_rows[1::2]]
            tie_rows.clear()  # the class buffers are the only copy of the scores from here on
            ties = TieTable.deferred(sort_classes(pos_parts, neg_parts, threads=threads))
        if spec.multi_score:
            return ties, keys.with_columns(pl.col(_K).cast(pl.String)).rename({_K: SCORE_KEY})
        return ties, keys

    if spec.weights:
        check_weights(stats, spec.weights, spec.missing, examples)
    return Collected(kind=kind, stats=stats, examples=examples, build=build, level_counts=level_counts,
                     directions=directions, side=side)


def _weighted(keys: pl.DataFrame, cells: pl.DataFrame, keys_by: list[str], drop_missing: bool, side: dict
              ) -> TieTable:
    """The weighted tie table from (keys, score, weight) cells; the cells ride along for the weighted bootstrap."""
    # cells in a fixed order (the weights ascending within a score): the draws do not depend on the row order
    cells = cells.sort([*keys_by, _S, WEIGHT], descending=[False] * len(keys_by) + [True, False], nulls_last=True)
    if keys_by:
        kept = (keys["n_rows"] - keys["n_missing"]).to_numpy() if drop_missing else keys["n_rows"].to_numpy()
        group = np.flatnonzero(kept > 0)[cells.select(pl.struct(keys_by).rle_id())[:, 0].to_numpy()]
    else:
        group = np.zeros(cells.height, dtype=np.int64)
    table, weighted_cells = weighted_tables(cells, group, keys.height, _S, _P, _N)
    side["weighted_cells"] = weighted_cells
    side["weight_sums"] = WeightSums.of_cells(weighted_cells, group, keys.height)
    return table


def _paired(frame: pl.DataFrame, keys: pl.DataFrame, keys_by: list[str], scores: tuple):
    """The tables of several scores on the complete rows, and every row's tie row in each."""
    group = _group_of_rows(keys, frame, keys_by)
    ok = frame[_OK].to_numpy()
    if not ok.any():
        raise InputError("no rows have the outcome and every score present; a paired comparison needs complete rows")
    positive = frame[_Y].to_numpy().astype(bool)[ok]
    return paired_scores(group[ok], positive, [frame[s].to_numpy()[ok] for s in scores], keys.height)


def _tie_queries(data: Any, lf: pl.LazyFrame, spec: ColumnSpec, by: tuple, fold: str | None, coding: pl.Expr,
                 y_missing: pl.Expr, as_float: dict, weight: pl.Expr | None = None):
    """The queries of the tie-table step: (rows, key columns, keys query, tie queries, cells?, threads)."""
    scores = spec.scores
    # One row per (case, score): the outcome's missingness travels as its own
    # column because the 0/1 coding of a NaN outcome is False, not null.
    rows = lf.select(
        *by, *((fold,) if fold else ()),
        y_missing.alias(_MY),
        coding.alias(_Y),
        *([] if weight is None else [weight.alias(WEIGHT)]),
        *[as_float[name].alias(name if spec.multi_score else _S) for name in scores],
    )
    keys_by = list(by)
    if spec.multi_score:
        index = [*by, *((fold,) if fold else ()), _MY, _Y, *([] if weight is None else [WEIGHT])]
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
    if weight is not None:
        # one cell per (keys, score, weight) with its row counts: the weighted table and the weighted bootstrap
        tie_q = [rows.group_by([*keys_by, _S, WEIGHT]).agg(pl.col(_Y).sum().alias(_P), pl.len().alias(_N))]
        cells = True
    elif cells:
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
