"""Ingest: validate the data and build tie tables for all groups in one query.

The data checks (missing values, infinite scores, outcome levels) and the tie
table are planned as lazy polars queries and collected together with
``polars.collect_all``, so a LazyFrame source is scanned once. Errors are
raised after the collect, before any estimator runs.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from . import _frames
from ._class_sort import PARALLEL_MIN_ROWS, pivots_from_sample, sort_classes
from ._ties import TieTable, tie_table_from_rows
from ._validate import SCORE_KEY, ColumnSpec
from .exceptions import InputError, InputTypeError, MissingValueError, OutcomeError

__all__ = ["Ingested", "ingest"]

_Y = "__aucpr_y"
_S = "__aucpr_s"
_G = "__aucpr_g"
_P = "__aucpr_pos"
_N = "__aucpr_n"
_K = "__aucpr_k"
_MY = "__aucpr_my"


@attrs.frozen(eq=False)
class Ingested:
    """What every entry point needs after ingest.

    Attributes
    ----------
    ties : TieTable
        One segment per group, in the row order of ``keys``.
    keys : polars.DataFrame
        The group key columns (in ``by`` order, sorted ascending, nulls last;
        then ``score`` in the order given when there are several scores)
        and ``n_missing``, the rows dropped per group for missing values.
        Ungrouped data has one row and only ``n_missing``.
    spec : ColumnSpec
    kind : {"pandas", "polars"}
        The caller's frame type, for frames handed back.
    """

    ties: TieTable
    keys: pl.DataFrame
    spec: ColumnSpec
    kind: str

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The key columns of ``keys`` in order: ``by`` (and extra columns), then
        ``score`` when several scores were given. Results use these as their keys."""
        return tuple(c for c in self.keys.columns if c != "n_missing")


def _scans_files(data: Any) -> bool:
    """True for a LazyFrame whose plan reads files (CSV, Parquet, IPC, ...).

    Such a frame may be larger than memory, so the tie table is reduced in
    polars' streaming engine (to (keys, score) cells, or for one group with
    mostly distinct scores to the scores of each class). A LazyFrame over
    in-memory data takes the faster in-memory path; all paths give the same
    table.
    """
    return isinstance(data, pl.LazyFrame) and "SCAN" in data.explain(optimized=False)


def _is_float(dtype: pl.DataType) -> bool:
    return dtype.is_float()


def _outcome_coding(spec: ColumnSpec, dtype: pl.DataType) -> tuple[pl.Expr, Any]:
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
    if dtype == pl.Boolean:
        ok = isinstance(positive, (bool, np.bool_))
    elif dtype.is_numeric():
        ok = isinstance(positive, (int, float, np.number)) and not isinstance(positive, (bool, np.bool_))
    elif dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Categorical, pl.Enum)):
        ok = isinstance(positive, str)
    else:
        ok = True
    if not ok:
        raise OutcomeError(
            f"`positive`={positive!r} ({type(positive).__name__}) cannot name a level of `outcome` "
            f"column {spec.outcome!r}, which has type {dtype}"
        )
    return col == pl.lit(positive), positive


def _example_rows(lf: pl.LazyFrame, mask: pl.Expr, limit: int = 5) -> list[int]:
    """Row numbers (0-based) of the first rows where ``mask`` holds; only used for messages."""
    rows = lf.with_row_index("__row").filter(mask).select("__row").head(limit).collect()
    return rows["__row"].to_list()


def ingest(data: Any, spec: ColumnSpec, extra_columns: tuple[str, ...] = ()) -> Ingested:
    """Validate ``data`` against ``spec`` and build the tie tables of all groups.

    With several score columns (``spec.score`` a tuple) the scores are
    unpivoted inside the lazy query into (score name, value) pairs, so the tie
    table has one segment per (group, score) and ``keys`` gains a ``score``
    column after the ``by`` keys (scores in the order given). Missing values
    are then judged per score: with ``missing="drop"`` a row with a missing
    ``s1`` but a present ``s2`` leaves only the ``s1`` segment.

    Parameters
    ----------
    data : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
    spec : ColumnSpec
        Validated column roles (names already checked to exist).
    extra_columns : tuple of str
        Further grouping columns appended after ``spec.by`` (e.g. a fold column).

    Raises
    ------
    InputError, InputTypeError
        Empty data, missing values (``missing="error"``), infinite scores,
        non-numeric scores, outcomes that are not binary. The message names
        the score column at fault.
    """
    scores = spec.scores
    by = spec.by + tuple(c for c in extra_columns if c not in spec.by)
    lf, kind = _frames.to_lazy(data, columns=[spec.outcome, *scores, *by])
    schema = lf.collect_schema()
    y_type = schema[spec.outcome]
    for name in scores:
        s_type = schema[name]
        if not (s_type.is_numeric() or s_type == pl.Boolean):
            raise InputTypeError(f"`score` column {name!r} must be numeric; got type {s_type}")
    coding, positive_level = _outcome_coding(spec, y_type)

    y_missing = pl.col(spec.outcome).is_null()
    if _is_float(y_type):
        y_missing = y_missing | pl.col(spec.outcome).is_nan()
    s_missing, s_infinite = {}, {}
    for name in scores:
        s_missing[name] = pl.col(name).is_null()
        s_infinite[name] = pl.lit(False)
        if _is_float(schema[name]):
            s_missing[name] = s_missing[name] | pl.col(name).is_nan()
            s_infinite[name] = pl.col(name).is_infinite()
    any_s_missing = pl.any_horizontal(*s_missing.values())
    row_missing = y_missing | any_s_missing

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

    # One row per (case, score): the outcome's missingness travels as its own
    # column because the 0/1 coding of a NaN outcome is False, not null.
    rows = lf.select(
        *by,
        y_missing.alias(_MY),
        coding.alias(_Y),
        *[pl.col(name).cast(pl.Float64).alias(name if spec.multi_score else _S) for name in scores],
    )
    keys_by = list(by)
    if spec.multi_score:
        rows = rows.unpivot(on=list(scores), index=[*by, _MY, _Y], variable_name=_K, value_name=_S)
        rows = rows.with_columns(pl.col(_K).cast(pl.Enum(list(scores))))
        keys_by.append(_K)
    missing_expr = pl.col(_MY) | pl.col(_S).is_null() | pl.col(_S).is_nan()
    if keys_by:
        keys_q = (
            rows.group_by(keys_by)
            .agg(n_missing=missing_expr.sum(), n_rows=pl.len())
            .sort(keys_by, nulls_last=True)
        )
    else:  # one group: its counts are in the statistics query
        keys_q = None
    if spec.missing == "drop":
        rows = rows.filter(~missing_expr)

    # --- the sort and tie-table step (the one O(n log n) step) ---
    row_schema = rows.collect_schema()
    integer_keys = all(_integer_like(row_schema[c]) for c in keys_by)
    streaming = _scans_files(data)
    # a LazyFrame reading files may be larger than memory: the streaming engine reduces the
    # rows to one cell per (keys, score) with its counts, so memory grows with the number
    # of distinct scores, not of rows. For one group whose scores are mostly distinct the
    # cells save nothing, and the scores of each class (8 bytes a row) take less memory
    # than polars' hash table of cells (several times that)
    cells = streaming and (bool(keys_by) or not _mostly_distinct(rows))
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
        # (several times cheaper than sorting rows), see _class_sort
        pivots = _score_pivots(rows, data)
        threads = pivots.size + 1
        tie_q = []
        for in_range in _value_ranges(pl.col(_S), pivots):
            tie_q += [rows.filter(pl.col(_Y) & in_range).select(_S), rows.filter(~pl.col(_Y) & in_range).select(_S)]

    queries = [stats_q] + ([] if boolean_outcome else [levels_q]) + ([keys_q] if keys_by else []) + tie_q
    stats, *rest = pl.collect_all(queries, engine="streaming" if streaming else "auto")
    stats = stats.row(0, named=True)
    if not boolean_outcome:
        stats |= rest.pop(0).row(0, named=True)
    if keys_by:
        keys = rest.pop(0)
    else:
        keys = pl.DataFrame({"n_missing": [stats["row_missing"]], "n_rows": [stats["n_rows"]]})
    tie_rows = rest
    del rest
    if boolean_outcome:
        n_valid, n_true = stats["n_rows"] - stats["y_missing"], stats["n_true"] or 0
        stats["levels"] = [level for level, count in ((False, n_valid - n_true), (True, n_true)) if count]
        stats["n_levels"] = len(stats["levels"])
        stats["n_positive"] = n_true if bool(positive_level) else n_valid - n_true
    elif stats["n_rows"] and stats["y_min"] is not None and stats["n_min_max"] == stats["n_rows"] - stats["y_missing"]:
        # every outcome is its minimum or its maximum: at most two levels
        stats["levels"] = sorted({stats["y_min"], stats["y_max"]})
        stats["n_levels"] = len(stats["levels"])
    else:
        exact = lf.select(n_levels=levels.n_unique(), levels=levels.unique().sort().head(12).implode()).collect()
        stats.update(exact.row(0, named=True))
    _check_stats(stats, spec, lf, positive_level, s_infinite, y_missing, s_missing)

    keys = keys.with_columns(pl.col("n_missing").cast(pl.Int64))
    if cells:
        ties = _ties_from_cells(keys, tie_rows[0], keys_by, spec)
    elif keys_by:
        frame = tie_rows[0]
        group = _group_index(keys, frame, keys_by) if integer_keys else None
        if group is None:  # other key types, or codes too wide for 64 bits
            frame = frame.join(keys.select(keys_by).with_row_index(_G), on=keys_by, how="left", nulls_equal=True)
            group = frame[_G].to_numpy()
        ties = tie_table_from_rows(group, frame[_S].to_numpy(), frame[_Y].to_numpy(), keys.height)
    else:
        # each range of each class is copied into its place in one numpy buffer
        # per class and sorted there; the merged table is built only if read
        pos_parts = [_chunks(frame) for frame in tie_rows[0::2]]
        neg_parts = [_chunks(frame) for frame in tie_rows[1::2]]
        del tie_rows
        ties = TieTable.deferred(sort_classes(pos_parts, neg_parts, threads=threads))
    # --- end of the tie-table step ---
    if spec.multi_score:
        keys = keys.with_columns(pl.col(_K).cast(pl.String)).rename({_K: SCORE_KEY})
    return Ingested(ties=ties, keys=keys.drop("n_rows"), spec=spec, kind=kind)


def _chunks(frame: pl.DataFrame) -> list[np.ndarray]:
    """The score column of a collected frame as numpy views of its chunks (no copy)."""
    return [chunk.to_numpy() for chunk in frame[_S].get_chunks()]


def _mostly_distinct(rows: pl.LazyFrame) -> bool:
    """True when more than a quarter of the scores are distinct (HyperLogLog estimate, one streaming pass)."""
    counts = rows.select(n=pl.len(), distinct=pl.col(_S).approx_n_unique()).collect(engine="streaming")
    return 4 * counts["distinct"][0] > counts["n"][0]


def _score_pivots(rows: pl.LazyFrame, data: Any) -> np.ndarray:
    """Pivots splitting one group's scores into one range per polars thread (none when sorted in one range).

    Only in-memory data of at least :data:`PARALLEL_MIN_ROWS` rows is split: a
    LazyFrame would be evaluated twice (once for the sample). The pivots come
    from a sample of 4,096 rows per range.
    """
    if isinstance(data, pl.DataFrame):
        n = data.height
    elif _frames._is_pandas_frame(data):
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


def _integer_like(dtype: pl.DataType) -> bool:
    return dtype.is_integer() or dtype == pl.Boolean or isinstance(dtype, pl.Enum)


def _key_values(series: pl.Series) -> np.ndarray:
    """Integer physical values of a key column, nulls coded above every value (keys sort nulls last)."""
    values = series.to_physical().cast(pl.Int64)
    if values.null_count():
        values = values.fill_null(int(values.max() or 0) + 1)
    return values.to_numpy()


def _group_index(keys: pl.DataFrame, rows: pl.DataFrame, by: list[str]) -> np.ndarray | None:
    """Row index in ``keys`` (sorted ascending, nulls last) of every row; None if the codes overflow.

    Each key column is coded by its rank among the key table's values of that
    column, and the columns are combined in mixed radix, which preserves the
    lexicographic order of ``keys``.
    """
    key_code = np.zeros(keys.height, dtype=np.int64)
    row_code = np.zeros(rows.height, dtype=np.int64)
    width = 1
    for name in by:
        # code nulls the same way in both frames: above the largest key value
        both = _key_values(pl.concat([keys[name], rows[name]]))
        key_values, row_values = both[: keys.height], both[keys.height:]
        distinct = np.unique(key_values)
        width *= distinct.size
        if width >= 2**62:
            return None
        key_code = key_code * distinct.size + np.searchsorted(distinct, key_values)
        low, high = int(distinct[0]), int(distinct[-1])
        if high - low < max(4 * rows.height, 1 << 16):
            lookup = np.zeros(high - low + 1, dtype=np.int64)
            lookup[distinct - low] = np.arange(distinct.size)
            rank = lookup[row_values - low]
        else:
            rank = np.searchsorted(distinct, row_values)
        row_code = row_code * distinct.size + rank
    if np.any(key_code[1:] <= key_code[:-1]):  # pragma: no cover - keys are sorted and distinct
        raise RuntimeError("internal error: group keys are not in ascending order")
    if len(by) == 1:
        return row_code  # one column: its rank among the (distinct, sorted) keys is the row index
    if width <= max(4 * rows.height, 1 << 16):
        lookup = np.zeros(width, dtype=np.int64)
        lookup[key_code] = np.arange(keys.height)
        return lookup[row_code]
    return np.searchsorted(key_code, row_code)


def _ties_from_cells(keys: pl.DataFrame, cells: pl.DataFrame, by: list[str], spec: ColumnSpec) -> TieTable:
    """Tie table from one row per (keys, score) cell with its positive and row counts, in any order."""
    if not by:
        order = np.argsort(-cells[_S].to_numpy(), kind="stable")
        pos = cells[_P].to_numpy().astype(np.int64)[order]
        return TieTable(cells[_S].to_numpy()[order], pos, cells[_N].to_numpy().astype(np.int64)[order] - pos,
                        [0, cells.height])
    cells = cells.sort([*by, _S], descending=[False] * len(by) + [True], nulls_last=True)
    kept = (keys["n_rows"] - keys["n_missing"]).to_numpy() if spec.missing == "drop" else keys["n_rows"].to_numpy()
    present = np.flatnonzero(kept > 0)
    group = present[cells.select(pl.struct(by).rle_id())[:, 0].to_numpy()]
    offsets = np.zeros(keys.height + 1, dtype=np.int64)
    np.cumsum(np.bincount(group, minlength=keys.height), out=offsets[1:])
    pos = cells[_P].to_numpy().astype(np.int64)
    return TieTable(cells[_S].to_numpy(), pos, cells[_N].to_numpy().astype(np.int64) - pos, offsets)


def _check_stats(stats: dict, spec: ColumnSpec, lf: pl.LazyFrame, positive_level: Any,
                 s_infinite: dict, y_missing: pl.Expr, s_missing: dict) -> None:
    """Raise the first applicable input error, naming column, problem and row count."""
    n_rows = stats["n_rows"]
    if n_rows == 0:
        raise InputError("`data` has no rows")
    for i, name in enumerate(spec.scores):
        count = stats[f"s_infinite_{i}"]
        if count:
            examples = _example_rows(lf, s_infinite[name])
            raise InputError(
                f"`score` column {name!r} has {count} infinite value{'s' * (count != 1)} "
                f"(first rows: {examples}); scores must be finite"
            )
    if stats["row_missing"]:
        if spec.missing == "error":
            parts = []
            if stats["y_missing"]:
                parts.append(f"`outcome` column {spec.outcome!r}: {stats['y_missing']}")
            for i, name in enumerate(spec.scores):
                if stats[f"s_missing_{i}"]:
                    parts.append(f"`score` column {name!r}: {stats[f's_missing_{i}']}")
            examples = _example_rows(lf, pl.any_horizontal(y_missing, *s_missing.values()))
            what = "outcome or score" if not spec.multi_score else "outcome or score (in any score column)"
            raise MissingValueError(
                f"{stats['row_missing']} of {n_rows} rows have a missing (null or NaN) {what} "
                f"({'; '.join(parts)}; first rows: {examples}). Pass missing='drop' to drop them; "
                "the result then records how many were dropped per group"
            )
        if stats["row_missing"] == n_rows and not spec.multi_score:
            raise InputError(f"`data` has no rows left after dropping {n_rows} rows with missing values")
        for i, name in enumerate(spec.scores if spec.multi_score else ()):
            if stats[f"s_usable_{i}"] == 0:
                raise InputError(
                    f"`score` column {name!r} has no rows left after dropping rows with a missing "
                    "outcome or score"
                )

    levels = list(stats["levels"])
    n_levels = stats["n_levels"]
    shown = f"{levels}{' ...' if n_levels > len(levels) else ''}"
    if spec.positive is not None and stats["n_positive"] == 0:
        raise OutcomeError(
            f"`positive`={spec.positive!r} does not occur in `outcome` column {spec.outcome!r}; "
            f"its levels are {shown}"
        )
    if n_levels < 2:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has a single level {shown}; "
            "an AUC needs both positives and negatives"
        )
    if spec.positive is None and n_levels > 2:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has {n_levels} levels {shown}; "
            "pass `positive=` to name the positive level (all others are negative)"
        )
    if spec.positive is None and not set(levels) <= {0, 1, True, False}:
        raise OutcomeError(
            f"`outcome` column {spec.outcome!r} has levels {shown}, not 0/1; "
            "pass `positive=` to name the positive level"
        )
