"""The front door: every entry point's arguments, checked once, as one frozen :class:`Request`.

Every data verb (``aucpr``, ``auroc``, ``pr_curve``, ``roc_curve``,
``compare``, ``cutoffs``, the array entry points and the command line)
calls :func:`front_door` first. It resolves a formula, detects the input
once (:func:`aucpr_stats.ingest.source.detect`), checks every data argument
against the data's columns, and records what the chosen estimators need from
the data (:class:`Reduction`, from their registry records). The reader
(:func:`aucpr_stats.ingest.read`) takes the request and nothing else; results
keep it, so nothing downstream re-derives a design, a default or a record
from a string.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from . import _validate
from ._validate import SCORE_KEY, ColumnSpec
from .estimators.registry import Estimator
from .estimators.tie_blocks import DEFAULT_TIES, ties_iv
from .exceptions import InputError
from .formula import resolve
from .ingest import ROW_ID, Ingested, read
from .ingest.checks import check_key_names
from .ingest.source import Source, detect, is_data
from .tables import DEFAULT_TUNING, Tuning

__all__ = ["Request", "Design", "Reduction", "front_door", "open_data", "reduction_of", "DESIGNS", "ROW_ID"]

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
    """

    weights: str | None = None
    cluster: str | None = None
    fold: str | None = None
    prevalence: float | None = None
    rows_as_clusters: bool = False
    counts: str | None = None

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
    source: Source
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


def reduction_of(records: Sequence[Estimator], ties: str, grid: int | None = None) -> Reduction:
    """What the records let an engine reduce the rows to (each record says what it reads and whether it sums)."""
    if grid is not None:
        return Reduction(grid=grid)
    if not records:
        return Reduction()
    # no estimator reads the negatives one by one: an engine may collapse their runs before collecting
    collapse = all(record.reads != "every_row" for record in records)
    # every estimator is a sum over tie rows an engine can add up (not a partial area, not at a stated prevalence)
    return Reduction(collapse=collapse, sums_ties=ties if all(record.summable for record in records) else None)


def front_door(function: str, data_or_formula: Any, data: Any, outcome: Any, score: Any, by: Any, *,
               positive: Any = None, missing: Any = "error", negative: Any = None, direction: Any = "higher",
               unused_levels: Any = "keep", weights: Any = None, cluster: Any = None, fold: Any = None,
               between: Any = None, paired: bool = False, rows_as_clusters: bool = False, counts: Any = None,
               prevalence: float | None = None, metric: str | None = None, records: Sequence[Estimator] = (),
               ties: str = DEFAULT_TIES, grid: int | None = None,
               tuning: Tuning = DEFAULT_TUNING) -> Request:
    """Check one call's data arguments and build its :class:`Request` (the data detected once).

    Parameters
    ----------
    function : str
        The entry point's name, for messages.
    data_or_formula, data, outcome, score, by
        As the entry point received them (see :func:`aucpr_stats.formula.resolve`).
    positive, missing, negative, direction, unused_levels, weights, cluster, fold, between
        The data arguments every verb shares (see :func:`aucpr_stats.aucpr`).
    paired : bool
        Several scores compared on their complete rows.
    rows_as_clusters : bool
        Every row its own cluster (a weighted paired comparison).
    counts : str, optional
        A column of integer case counts (only :func:`aucpr_stats.sql_sums` reads it).
    prevalence : float, optional
        Already checked by the caller.
    metric, records, ties
        The statistics asked for: the reduction an engine may apply is computed from their records.
    grid : int, optional
        A curve's ``grid=``.
    tuning : Tuning
        Where the table factory switches roads.
    """
    data, outcome, score, by = resolve(data_or_formula, data, outcome, score, by, function=function,
                                       is_data=is_data)
    source = detect(data)
    spec = _validate.column_spec_iv(source.columns, outcome, score, by, positive, missing, negative=negative,
                                    direction=direction)
    if unused_levels is not None:  # None: the groups present in the data (sql_sums)
        unused_levels = _validate.choice_iv(unused_levels, "unused_levels", _validate.UNUSED_LEVELS)
    if fold is not None:
        fold = _validate.extra_column_iv(source.columns, fold, "fold", spec)
    if between is not None:
        between = _validate.extra_column_iv(source.columns, between, "between", spec)
    if weights is not None:
        spec = attrs.evolve(spec, weights=_validate.extra_column_iv(source.columns, weights, "weights", spec))
    if cluster is not None:
        cluster = _validate.extra_column_iv(source.columns, cluster, "cluster", spec)
        if fold is not None:
            raise InputError("`fold=` and `cluster=` cannot be combined yet: pass the fold column only, with folds "
                             "made of whole clusters")
        if cluster == spec.weights:
            raise InputError(f"`cluster` and `weights` name the same column {cluster!r}")
        if paired:
            raise InputError("`cluster=` is not supported by paired comparisons yet")
    if rows_as_clusters and not source.in_memory:
        raise InputError(f"a weighted paired comparison needs the rows in memory (a pandas, polars or pyarrow "
                         f"frame); this input is read by {source.engine.name}")
    if counts is not None:
        counts = _validate.extra_column_iv(source.columns, counts, "counts", spec)
    design = Design(weights=spec.weights, cluster=cluster, fold=fold, prevalence=prevalence,
                    rows_as_clusters=rows_as_clusters, counts=counts)
    check_key_names(spec.by, design.unit if not rows_as_clusters else None, (between,) if between else ())
    if between is not None and between == SCORE_KEY and spec.multi_score:  # pragma: no cover - refused above
        raise InputError(f"`between` must not be named {SCORE_KEY!r}")
    records = tuple(records)
    return Request(function=function, source=source, columns=spec, between=between, design=design, paired=paired,
                   unused_levels=unused_levels, ties=ties, metric=metric, records=records,
                   reduction=reduction_of(records, ties, grid), tuning=tuning)


def open_data(function: str, data_or_formula: Any, data: Any, outcome: Any, score: Any, by: Any, *,
              stacklevel: int = 3, **arguments: Any) -> tuple[Request, Ingested]:
    """:func:`front_door`, then :func:`aucpr_stats.ingest.read`: the request and its tables.

    ``stacklevel`` of the warnings (degenerate groups, missing keys, the
    direction chosen), as :func:`warnings.warn` counts it from this function's caller, less one (3 for
    an entry point that calls this through one helper).
    """
    request = front_door(function, data_or_formula, data, outcome, score, by, **arguments)
    return request, read(request, stacklevel=stacklevel + 1)


def ties_option(ties: Any) -> str:
    """The checked ``ties=`` option (the one rule for tie blocks holding both classes)."""
    return ties_iv(ties)
