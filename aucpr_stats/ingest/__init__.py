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
from .._validate import ColumnSpec
from ..exceptions import InputError
from ..formula import resolve
from ..ties import TieTable
from .build import tie_table_from_counts
from .checks import NO_ROWS, check_key_names, check_stats
from .notes import group_notes, warn_degenerate
from .paired import PairedScores
from .polars_source import Collected, read_polars

__all__ = ["Ingested", "FoldTables", "PairedScores", "Collected", "read", "ingest", "source_for"]

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


def source_for(data: Any) -> Callable[..., Collected]:
    """The reader of a kind of input: ``reader(data, spec, by, fold, paired) -> Collected``.

    pandas and polars frames and LazyFrames are read by polars
    (:func:`~aucpr_stats.ingest.polars_source.read_polars`); an input backend
    adds its type here (``docs/architecture.md``).
    """
    return read_polars


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
    by = tuple(dict.fromkeys(spec.by + tuple(extra_keys)))
    check_key_names(spec.by, fold, tuple(extra_keys))
    if _has_no_rows(data, spec):
        raise InputError(NO_ROWS)
    collected = source_for(data)(data, spec, by, fold, paired)
    check_stats(collected.stats, spec, collected.examples)
    tables, keys = collected.build()
    if paired:
        return Ingested(ties=None, keys=keys.drop("n_rows"), spec=spec, kind=collected.kind, paired=tables)
    folds = None
    if fold is not None:
        tables, keys, folds = _merge_folds(tables, keys, fold, [c for c in keys.columns
                                                                 if c not in (fold, "n_missing", "n_rows")])
    return Ingested(ties=tables, keys=keys.drop("n_rows"), spec=spec, kind=collected.kind, folds=folds)


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


