"""The request: one call's data arguments, checked, as one frozen, typed object.

:func:`aucpr_stats.front_door.front_door` builds a :class:`Request` for every
data verb; the reader (:func:`aucpr_stats.ingest.read`) takes it and nothing
else, and results keep it, so nothing downstream re-derives a design, a
default or a record from a string. This module holds the types only (it
imports nothing of the package but the argument checks), so every layer can
read a request.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from ._validate import ColumnSpec
from .estimators.tie_blocks import DEFAULT_TIES
from .tables import DEFAULT_TUNING, Tuning

__all__ = ["Request", "Design", "Reduction", "reduction_of", "DESIGNS", "ROW_ID"]

#: The unit column of a weighted paired comparison: every row its own cluster, numbered in memory.
ROW_ID = "row_id_of_aucpr_stats"

#: The sampling designs a request can have: independent rows, weighted rows, clusters.
DESIGNS = ("rows", "weights", "cluster")


@attrs.frozen
class Design:
    """How the rows were sampled: weights, clusters (or folds of the caller's cross-validation), a prevalence.

    Attributes
    ----------
    weights : str or None
        A column of case weights.
    cluster : str or None
        A column of cluster ids (several rows per patient).
    fold : str or None
        A column of the caller's folds (tables per fold are kept too).
    prevalence : float or None
        A population prevalence the areas are reported at (case-control samples).
    rows_as_clusters : bool
        Every row its own cluster (a weighted paired comparison resamples rows with their weights).
    counts : str or None
        A column of integer case counts (aggregated data: each row stands for
        that many cases); read by an engine's partial sums (:func:`aucpr_stats.sql_sums`).
    imputation : str or None
        A column numbering multiply imputed data sets: the last key column of
        the per-imputation result, pooled over by Rubin's rules.
    """

    weights: str | None = None
    cluster: str | None = None
    fold: str | None = None
    prevalence: float | None = None
    rows_as_clusters: bool = False
    counts: str | None = None
    imputation: str | None = None

    @property
    def kind(self) -> str:
        """``"cluster"`` (``cluster=``, with or without weights), ``"weights"`` or ``"rows"``."""
        if self.cluster is not None or self.rows_as_clusters:
            return "cluster"
        return "weights" if self.weights is not None else "rows"

    @property
    def unit(self) -> str | None:
        """The column whose levels are units within a group (tables per unit are kept): fold or cluster."""
        if self.rows_as_clusters:
            return ROW_ID
        return self.fold or self.cluster

    @property
    def unit_role(self) -> str | None:
        return None if self.unit is None else ("fold" if self.fold is not None else "cluster")


@attrs.frozen
class Reduction:
    """What an engine may reduce the rows to before they reach Python (computed from the records).

    Attributes
    ----------
    collapse : bool
        Every statistic asked for reads the negatives only through their
        counts between positive rows (runs of negatives may be collapsed).
    sums_ties : {"interpolate", "published"} or None
        Every statistic asked for is a partial sum an engine can add up, under this ``ties=`` rule.
    grid : int or None
        A curve's ``grid=``: the table thinned to it.
    """

    collapse: bool = False
    sums_ties: str | None = None
    grid: int | None = None


@attrs.frozen(eq=False)
class Request:
    """One call's data arguments, checked, and what its statistics need from the data.

    Attributes
    ----------
    function : str
        The entry point, for messages.
    source : Source
        The caller's data, detected once.
    columns : ColumnSpec
        Outcome, score(s), ``by``, positive and negative levels, missing-value policy, direction, weights.
    between : str or None
        A column whose levels are compared (an unpaired comparison): one more key.
    design : Design
    paired : bool
        Several scores compared on the same (complete) rows.
    unused_levels : {"keep", "drop"}
    ties : {"interpolate", "published"}
    metric : str or None
    records : tuple of Estimator
        The estimators asked for (registry records, under ``ties`` and the design's prevalence).
    reduction : Reduction
    tuning : Tuning
        Where the table factory switches roads (a test may pass its own).
    """

    function: str
    source: Any
    columns: ColumnSpec
    between: str | None = None
    design: Design = Design()
    paired: bool = False
    unused_levels: str = "keep"
    ties: str = DEFAULT_TIES
    metric: str | None = None
    records: tuple = ()
    reduction: Reduction = Reduction()
    tuning: Tuning = DEFAULT_TUNING

    @property
    def keys(self) -> tuple[str, ...]:
        """The grouping columns of the tables: ``by``, then ``between``."""
        return tuple(dict.fromkeys(self.columns.by + ((self.between,) if self.between else ())))

    @property
    def output(self):
        """The type of the frames results hand back (:class:`~aucpr_stats._frames.Output`)."""
        return self.source.output


def reduction_of(records: Sequence[Any], ties: str, grid: int | None = None) -> Reduction:
    """What the records let an engine reduce the rows to (each record says what it reads and whether it sums)."""
    if grid is not None:
        return Reduction(grid=grid)
    if not records:
        return Reduction()
    # no estimator reads the negatives one by one: an engine may collapse their runs before collecting
    collapse = all(record.reads != "every_row" for record in records)
    # every estimator is a sum over tie rows an engine can add up (not a partial area, not at a stated prevalence)
    return Reduction(collapse=collapse, sums_ties=ties if all(record.summable for record in records) else None)
