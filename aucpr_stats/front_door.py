"""The front door: every entry point's arguments, checked once, as one frozen :class:`~aucpr_stats.request.Request`.

Every data verb (``aucpr``, ``auroc``, ``pr_curve``, ``roc_curve``,
``compare``, ``cutoffs``, ``sql_sums``, the array entry points and the
command line) calls :func:`front_door` first. It resolves a formula, detects
the input once (:func:`aucpr_stats.ingest.detect`), checks every data
argument against the data's columns, and records what the chosen estimators
need from the data (:class:`~aucpr_stats.request.Reduction`, from their
registry records). :func:`open_data` then reads the request
(:func:`aucpr_stats.ingest.read`).
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from . import _validate
from .estimators.registry import Estimator
from .estimators.tie_blocks import DEFAULT_TIES
from .exceptions import InputError
from .formula import resolve
from .ingest import Ingested, read
from .ingest.checks import check_key_names
from .ingest.source import detect, is_data
from .request import Design, Request, reduction_of
from .tables import DEFAULT_TUNING, Tuning

__all__ = ["front_door", "open_data"]


def front_door(function: str, data_or_formula: Any, data: Any, outcome: Any, score: Any, by: Any, *,
               positive: Any = None, missing: Any = "error", negative: Any = None, direction: Any = "higher",
               unused_levels: Any = "keep", weights: Any = None, cluster: Any = None, fold: Any = None,
               imputation: Any = None, between: Any = None, paired: bool = False, rows_as_clusters: bool = False,
               counts: Any = None,
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
    imputation : str, optional
        A column numbering multiply imputed data sets (mice's long format,
        ``.imp``): it becomes the last grouping column, and the verb pools
        over it (:mod:`aucpr_stats.pooling.imputed`).
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
    if imputation is not None:  # one more key: every statistic per imputed data set, pooled by the verb
        imputation = _validate.extra_column_iv(source.columns, imputation, "imputation", spec)
        if imputation in (fold, between):
            raise InputError(f"`imputation` column {imputation!r} has another role in this call")
        spec = attrs.evolve(spec, by=(*spec.by, imputation))
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
    if imputation is not None and imputation in (spec.weights, cluster, counts):
        raise InputError(f"`imputation` column {imputation!r} has another role in this call")
    design = Design(weights=spec.weights, cluster=cluster, fold=fold, prevalence=prevalence,
                    rows_as_clusters=rows_as_clusters, counts=counts, imputation=imputation)
    check_key_names(spec.by, design.unit if not rows_as_clusters else None, (between,) if between else ())
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
