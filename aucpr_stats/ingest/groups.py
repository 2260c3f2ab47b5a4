"""The tables a request gets: units merged into their groups, declared levels expanded or empty groups dropped.

:class:`Ingested` is what the reader returns (:func:`aucpr_stats.ingest.read`);
:func:`assemble` makes it from the tables of a road (:class:`~.rows.Built`):
the tables of each unit (the caller's folds, or the clusters) merged into
their group's table and kept (:class:`FoldTables`), a group for every
declared level of a grouping column (``unused_levels="keep"``) or only the
groups with rows (``"drop"``), and the ``score`` key of several scores.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import polars as pl

from .._validate import SCORE_KEY, ColumnSpec
from ..exceptions import InputError
from ..tables import keep_segments, merge_units, regroup_cells, spread_paired, spread_segments
from ..ties import TieTable
from .levels import expand_levels
from .rows import K, Built

__all__ = ["FoldTables", "Ingested", "assemble", "named_scores"]


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


def named_scores(keys: pl.DataFrame, spec: ColumnSpec) -> pl.DataFrame:
    """The score index of several scores as the ``score`` key column (their names, in the order given)."""
    if not spec.multi_score or K not in keys.columns:
        return keys
    # the score's position (an engine), or an Enum of the scores in the order given (in memory)
    position = keys[K].to_physical() if isinstance(keys.schema[K], pl.Enum) else keys[K]
    names = pl.Series(list(spec.scores), dtype=pl.String)
    return keys.with_columns(names.gather(position).alias(K)).rename({K: SCORE_KEY})



def assemble(request: Any, built: Built, directions: dict) -> Ingested:
    """Units merged into their groups, declared levels expanded or empty groups dropped, the :class:`Ingested`."""
    spec, paired = request.columns, request.paired
    tables = built.ties
    keys = named_scores(built.keys, spec)
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
        raise InputError(f"`{role}` column {unit!r} has {rows} missing (null or NaN) value{'s' * (rows != 1)}; "
                         f"every row needs a {role}")
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
