"""Ingest: read the caller's frame once, check it, and build the tie tables every statistic needs.

One function serves every entry point (:func:`read` for the public ones,
:func:`ingest` below it): ``aucpr``, ``auroc``, ``pr_curve``, ``roc_curve``,
``compare`` (paired and unpaired) and ``aucpr(..., fold=)``. A *source*
reads the data once (:func:`source_for`; pandas and polars frames are read
by :mod:`.polars_source` in one ``polars.collect_all``, so a LazyFrame is
collected once) and returns the counts of the data checks and a way to build
the tables; the checks (:mod:`.checks`: missing values, infinite scores,
outcome levels) raise before any table is built or statistic runs.

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

from typing import Any, Callable, Sequence

import attrs
import numpy as np
import polars as pl

from .. import _frames, _validate
from .._validate import SCORE_KEY, ColumnSpec
from ..exceptions import InputError
from ..formula import resolve
from ..ties import TieTable
from .backends import is_backend_input, read_backend, sql_input
from .build import tie_table_from_counts
from .checks import NO_ROWS, check_key_names, check_stats
from .direction import warn_auto_direction
from .levels import DROPPED_NOTE, UNUSED_NOTE, expand_levels, spread_paired, spread_segments, warn_missing_keys
from .notes import group_notes, warn_degenerate, zero_weight_notes
from .paired import PairedScores
from .polars_source import Collected, read_polars

__all__ = ["Ingested", "FoldTables", "PairedScores", "Collected", "read", "ingest", "source_for", "sql_input"]

_G = "__aucpr_g"


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
    unused : ndarray of bool, optional
        Per group, True for a group made only by a declared level absent from
        the data (an empty segment; see :mod:`.levels`).
    missing_keys : tuple
        (column, rows) for each ``by`` column with missing values.
    directions : dict
        The direction each score was read in (``"higher"`` or ``"lower"``).
    clusters : FoldTables, optional
        With ``cluster=``: the tie tables per (group, cluster), the units of
        the cluster bootstrap and of the cluster-robust variance.
    weighted_cells : WeightedCells, optional
        With ``weights=`` (and no ``cluster=``): the rows per (score, weight)
        cell of each group, for the weighted bootstrap (:mod:`.weights`).
    weight_sums : WeightSums, optional
        With ``weights=``: rows, total and squared weights per group and
        class (Kish effective sizes).
    """

    ties: TieTable | None
    keys: pl.DataFrame
    spec: ColumnSpec
    kind: str
    folds: FoldTables | None = None
    paired: PairedScores | None = None
    notes: tuple = ()
    unused: np.ndarray | None = None
    missing_keys: tuple = ()
    directions: dict = attrs.field(factory=dict)
    clusters: FoldTables | None = None
    weighted_cells: Any = None
    weight_sums: Any = None

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
         negative: Any = None, direction: Any = "higher", unused_levels: Any = "keep",
         weights: Any = None, cluster: Any = None, collapse: bool = False, sums_ties: str | None = None,
         thin: int | None = None, stacklevel: int = 3) -> Ingested:
    """The start of every public entry point: resolve a formula, check the columns, ingest, note degenerate groups.

    Parameters
    ----------
    function : str
        The entry point's name, for messages.
    data_or_formula, data, outcome, score, by
        As the entry point received them (see :func:`aucpr_stats.formula.resolve`).
    positive, missing
        The outcome's positive level and the missing-value policy.
    negative : scalar or list, optional
        The outcome's negative level(s); other levels are then missing outcomes.
    direction : {"higher", "lower", "auto"}
        Which way the scores point (:mod:`.direction`).
    unused_levels : {"keep", "drop"}
        Keep a group for every declared level (and combination) without rows,
        or drop the groups without rows (:mod:`.levels`).
    fold, between : str, optional
        A fold column (per-fold tables too) or a column whose levels are
        compared (one more key, before ``score``).
    weights, cluster : str, optional
        A column of case weights (weighted counts, :mod:`.weights`), and a
        column of cluster ids (tables per (group, cluster) too).
    paired : bool
        Several scores compared on their complete rows (:class:`PairedScores`).
    collapse, sums_ties, thin
        As for :func:`ingest`.
    stacklevel : int
        Of the degenerate-group warning, counted from the entry point (2 = its caller).

    Returns
    -------
    Ingested
        With ``notes`` filled in; one :class:`~aucpr_stats.exceptions.DegenerateGroupWarning`
        is raised for the groups without both classes, one
        :class:`~aucpr_stats.ingest.levels.MissingKeyWarning` for missing keys
        and one :class:`~aucpr_stats.ingest.direction.DirectionWarning` for
        ``direction="auto"``.
    """
    data, outcome, score, by = resolve(data_or_formula, data, outcome, score, by, function=function)
    spec = _validate.column_spec_iv(data, outcome, score, by, positive, missing, negative=negative,
                                    direction=direction)
    unused_levels = _validate.choice_iv(unused_levels, "unused_levels", _validate.UNUSED_LEVELS)
    if fold is not None:
        fold = _validate.extra_column_iv(data, fold, "fold", spec)
    if between is not None:
        between = _validate.extra_column_iv(data, between, "between", spec)
    if weights is not None:
        spec = attrs.evolve(spec, weights=_validate.extra_column_iv(data, weights, "weights", spec))
    if cluster is not None:
        cluster = _validate.extra_column_iv(data, cluster, "cluster", spec)
        if fold is not None:
            raise InputError("`fold=` and `cluster=` cannot be combined yet: pass the fold column only, with folds "
                             "made of whole clusters")
        if cluster == spec.weights:
            raise InputError(f"`cluster` and `weights` name the same column {cluster!r}")
    ingested = ingest(data, spec, extra_keys=(between,) if between is not None else (), fold=fold, paired=paired,
                      unused_levels=unused_levels, cluster=cluster, collapse=collapse,
                      sums_ties=sums_ties, thin=thin)
    n_pos, n_neg = ingested.counts
    notes = group_notes(n_pos, n_neg)
    if ingested.weight_sums is not None:
        notes = zero_weight_notes(notes, ingested.weight_sums)
    if ingested.unused is not None:
        notes = [UNUSED_NOTE if unused else note for note, unused in zip(notes, ingested.unused)]
    if "n_missing" in ingested.keys.columns:  # a group whose rows were all dropped says so
        dropped = ingested.keys["n_missing"].to_numpy() > 0
        notes = [DROPPED_NOTE if note == "no rows" and gone else note for note, gone in zip(notes, dropped)]
    warn_auto_direction(ingested.directions, stacklevel=stacklevel + 2)
    warn_missing_keys(ingested.missing_keys, stacklevel=stacklevel + 2)
    warn_degenerate(ingested.keys, ingested.key_columns, notes, stacklevel=stacklevel + 2)
    directions = {k: v for k, v in ingested.directions.items() if not k.startswith("__")}
    return attrs.evolve(ingested, notes=tuple(notes), directions=directions)


def source_for(data: Any) -> Callable[..., Collected]:
    """The reader of a kind of input: ``reader(data, spec, by, fold, paired) -> Collected``.

    pandas and polars frames and LazyFrames are read by polars
    (:func:`~aucpr_stats.ingest.polars_source.read_polars`); DuckDB relations,
    Parquet paths and Spark DataFrames by their engine
    (:func:`~aucpr_stats.ingest.backends.read_backend`, see ``docs/backends.md``).
    """
    if is_backend_input(data):
        return read_backend
    return read_polars


def ingest(data: Any, spec: ColumnSpec, *, extra_keys: Sequence[str] = (), fold: str | None = None,
           paired: bool = False, unused_levels: str | None = None, cluster: str | None = None,
           collapse: bool = False, sums_ties: str | None = None, thin: int | None = None) -> Ingested:
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
    unused_levels : {"keep", "drop"}, optional
        ``"keep"``: a group for every combination of declared levels (a key
        column of type Enum, or a pandas Categorical), empty when absent from
        the data. ``"drop"``: only groups with rows left (also drops the
        groups whose rows were all dropped for missing values). None
        (default): the key combinations present in the data (:func:`read`
        passes ``"keep"`` unless told otherwise).
    cluster : str, optional
        A cluster id column: tables per (group, cluster) are built as for
        ``fold`` and merged into the group tables; they are kept in
        ``clusters``. A cluster may span groups (its rows in each group are
        a unit of that group).
    collapse : bool
        Every statistic the caller will compute reads the negatives only
        through their counts between positive rows: an engine input (DuckDB,
        Spark) then collapses runs of negatives before collecting
        (:meth:`TieTable.collapsed`); in-memory frames are read as usual.
    sums_ties : {"interpolate", "published"}, optional
        Every statistic the caller will compute is a sum over the tie rows
        (:data:`~aucpr_stats.ingest.engine_sums.SUMMED_ESTIMATORS`, under this
        ``ties=`` option): an engine input whose collapsed table is over its
        limit then gives a table of the engine's partial sums per group
        (:mod:`.engine_sums`), which holds no rows.
    thin : int, optional
        A curve's ``grid=``: the tables are thinned to the rows where recall
        or the false positive rate crosses a multiple of ``1/thin``
        (:meth:`TieTable.thinned`); an engine does it before collecting.
        Not with ``fold``, ``cluster`` or ``paired``.

    Raises
    ------
    InputError, InputTypeError
        Empty data, missing values (``missing="error"``), infinite scores,
        non-numeric scores, outcomes that are not binary, missing fold labels.
        The message names the column at fault.
    """
    by = tuple(dict.fromkeys(spec.by + tuple(extra_keys)))
    check_key_names(spec.by, fold or cluster, tuple(extra_keys))
    if _has_no_rows(data, spec):
        raise InputError(NO_ROWS)
    if cluster is not None and paired:
        raise InputError("`cluster=` is not supported by paired comparisons yet")
    unit = fold or cluster  # one more key, last: tables per (group, fold or cluster)
    reader = source_for(data)
    # an engine may collapse runs of negatives when no statistic asked for reads them one by one
    # (not with folds or clusters: their tables are merged by score, so their runs must stay apart)
    engine = reader is read_backend and unit is None and not paired
    if collapse and engine:
        collected = reader(data, spec, by, unit, paired, collapse=True, sums_ties=sums_ties)
    elif thin is not None and engine:
        collected = reader(data, spec, by, unit, paired, thin=thin)
    else:
        collected = reader(data, spec, by, unit, paired)
    check_stats(collected.stats, spec, collected.examples, collected.level_counts)
    tables, keys = collected.build()
    if thin is not None and not engine and unit is None and not paired:
        tables = tables.thinned(thin)  # (an engine thinned its cells; thinning twice changes nothing)
    folds = None
    if unit is not None and not paired:
        tables, keys, folds = _merge_folds(tables, keys, unit, [c for c in keys.columns
                                                                 if c not in (unit, "n_missing", "n_rows")],
                                           role="cluster" if cluster is not None else "fold")
    cells = collected.side.get("weighted_cells") if unit is None else None
    sums = collected.side.get("weight_sums")
    if sums is not None and unit is not None:
        sums = sums.merged(folds.group, tables.n_segments)
    lengths = tables.lengths if sums is not None else None  # (reading a deferred table's lengths merges it)
    tables, keys, folds, unused = _levels_of_groups(tables, keys, folds, spec, paired, unused_levels)
    if cells is not None and (unused is not None or tables.n_segments != cells.cells.n_segments):
        cells = _regroup_cells(cells, tables)
    if sums is not None and (unused is not None or tables.n_segments != lengths.size):
        sums = sums.moved(lengths, tables.lengths)
    missing_keys = tuple((name, int(keys.filter(pl.col(name).is_null())["n_rows"].sum()))
                         for name in by if keys[name].null_count())
    common = dict(keys=keys.drop("n_rows"), spec=spec, kind=collected.kind, unused=unused,
                  missing_keys=missing_keys, directions=collected.directions)
    if paired:
        return Ingested(ties=None, paired=tables, **common)
    if cluster is not None:
        return Ingested(ties=tables, clusters=folds, weight_sums=sums, **common)
    return Ingested(ties=tables, folds=folds, weighted_cells=cells, weight_sums=sums, **common)


def _regroup_cells(cells, ties: TieTable):
    """The weighted cells with the groups of ``ties`` (unused levels added or empty groups dropped).

    Adding or dropping empty segments keeps the order of the rows, so each
    segment of the cells takes the place of the segment with the same rows.
    """
    rows_per_group = np.bincount(ties.segment_ids()[cells.target], minlength=ties.n_segments)
    offsets = np.zeros(ties.n_segments + 1, dtype=np.int64)
    np.cumsum(rows_per_group, out=offsets[1:])
    table = TieTable(cells.cells.score, cells.cells.pos, cells.cells.neg, offsets)
    return attrs.evolve(cells, cells=table)


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
                  else spread_segments(tables, position, n_groups))  # (a table of engine sums: its groups)
        if folds is not None:
            folds = attrs.evolve(folds, group=position[folds.group])
        return tables, keys, folds, unused
    first = tables.tables[0] if paired else tables
    if first.stored_sums:  # a table of engine sums holds no rows: a group without cases is dropped
        kept = (first.n_pos + first.n_neg) > 0
        return (tables, keys, folds, None) if kept.all() else (
            tables.take(np.flatnonzero(kept)), keys.filter(pl.Series(kept)), folds, None)
    kept = np.diff(first.offsets) > 0
    if kept.all():
        return tables, keys, folds, None
    position = np.cumsum(kept) - 1
    keys = keys.filter(pl.Series(kept))
    offsets_of = (lambda t: TieTable(t.score, t.pos, t.neg, t.offsets[np.r_[0, np.flatnonzero(kept) + 1]]))
    if paired:
        tables = attrs.evolve(tables, tables=tuple(offsets_of(t) for t in tables.tables),
                              group=position[tables.group])
    else:
        tables = offsets_of(tables)
    if folds is not None:
        keep_fold = kept[folds.group]
        folds = attrs.evolve(folds, ties=_keep_segments(folds.ties, keep_fold),
                             group=position[folds.group[keep_fold]], fold=folds.fold.filter(pl.Series(keep_fold)))
    return tables, keys, folds, None


def _keep_segments(ties: TieTable, keep: np.ndarray) -> TieTable:
    """The segments of ``ties`` where ``keep`` holds (the others are empty)."""
    return TieTable(ties.score, ties.pos, ties.neg, ties.offsets[np.r_[0, np.flatnonzero(keep) + 1]])


def _has_no_rows(data: Any, spec: ColumnSpec) -> bool:
    """True for a frame with columns but no rows, said before any dtype check.

    Without rows a column has no values to give it a type (a CSV with only a
    header reads as text columns), so the "no rows" message must come first.
    In-memory frames know their height; a LazyFrame is counted only when a
    score column is not numeric, where the dtype check would fail anyway.
    """
    if isinstance(data, pl.DataFrame):
        return data.height == 0
    if isinstance(data, pl.LazyFrame):
        schema = data.collect_schema()
        if all(schema[s].is_numeric() or schema[s] == pl.Boolean for s in spec.scores):
            return False  # the source counts the rows in its one read
        return data.select(pl.len()).collect().item() == 0
    if _frames.is_pandas_frame(data):
        return len(data) == 0
    return False  # another backend counts its rows itself


def _merge_folds(ties: TieTable, keys: pl.DataFrame, fold: str, group_columns: list[str], role: str = "fold"):
    """Group tables as the merge of their (group, fold) tables; the fold (or cluster) tables kept."""
    if keys[fold].null_count():
        rows = int(keys.filter(pl.col(fold).is_null())["n_rows"].sum())
        raise InputError(f"`{role}` column {fold!r} has {rows} missing value{'s' * (rows != 1)}; every row needs "
                         f"a {role}")
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


