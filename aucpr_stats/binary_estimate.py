"""The areas of a binary outcome from the caller's arguments: check, read, estimate, pool.

:func:`binary_areas` is what :func:`~aucpr_stats.aucpr` and
:func:`~aucpr_stats.auroc` run for a binary outcome (the multiclass and
time-to-event outcomes have their own packages): the records chosen, the
front door, :func:`estimate` over every group at once, Rubin's rules over
imputations.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import _validate
from .estimators import ESTIMATORS
from .estimators.registry import records
from .estimators.tie_blocks import DEFAULT_TIES, ties_iv
from .estimators.engine import evaluate
from .estimators.partial import partial_iv
from .exceptions import DegenerateGroupWarning, InputError
from .front_door import front_door
from .ingest import read
from .request import Request
from .pooling.imputed import pooled_over_imputations
from .results import AucprResult, AurocResult, EstimateResult

__all__ = ["binary_areas", "estimate", "warn_undefined"]

_RESULTS = {"aucpr": AucprResult, "auroc": AurocResult}


def binary_areas(metric: str, estimator: Any, data_or_formula: Any, data: Any, outcome: Any, score: Any, by: Any, *,
              positive: Any, missing: Any, fold: Any = None, ties: Any = DEFAULT_TIES,
              partial: dict | None = None, negative: Any = None, direction: Any = "higher",
              unused_levels: Any = "keep", prevalence: Any = None, weights: Any = None,
              cluster: Any = None, imputation: Any = None) -> EstimateResult:
    """Check, ingest, run the estimators over every group at once, and assemble the result.

    Written once for every metric: groups without both classes get NaN, a
    note and one warning (raised at the caller of the public function).
    """
    registry = ESTIMATORS[metric]
    names = _validate.names_or_all_iv(estimator, "estimator", list(registry))
    ties = ties_iv(ties)
    if isinstance(prevalence, str):  # "overall": one common base rate, the data's own, for every group
        prevalence = _overall_prevalence(prevalence, weights, lambda: binary_areas(
            metric, estimator, data_or_formula, data, outcome, score, by, positive=positive, missing=missing,
            fold=fold, ties=ties, partial=partial, negative=negative, direction=direction,
            unused_levels=unused_levels, weights=None, cluster=cluster, imputation=imputation))
    if prevalence is not None:
        prevalence = _validate.probability_iv(prevalence, "prevalence")
    window = partial_iv(metric, **(partial or {}))  # a partial area: its record carries the window
    chosen = records(metric, names, ties, prevalence=prevalence, window=window)
    names = tuple(record.name for record in chosen)  # a partial area's label ("a_prime, specificity 0.8-1")
    # what the records need from the data (an engine may collapse runs of negatives, or add up partial sums)
    request = front_door(metric, data_or_formula, data, outcome, score, by, positive=positive, missing=missing,
                         fold=fold, negative=negative, direction=direction, unused_levels=unused_levels,
                         weights=weights, cluster=cluster, prevalence=prevalence, metric=metric, records=chosen,
                         ties=ties, imputation=imputation)
    return pooled_over_imputations(estimate(request, stacklevel=4))


def _overall_prevalence(spelling: str, weights: Any, unstated: Any) -> float:
    """``prevalence="overall"``: the share of positives among the usable rows of every group together.

    ``unstated()`` is the same call without a stated prevalence (its
    warnings are those of the second pass, so they are silenced here).
    """
    if spelling != "overall":
        raise InputError(f"`prevalence` must be a number in (0, 1) or 'overall' (the data's own share of "
                         f"positives, for every group); got {spelling!r}")
    if weights is not None:
        raise InputError("prevalence='overall' with weights=: give the weighted prevalence as a number")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        counts = unstated()
    n_pos, n_neg = float(np.sum(counts.n_pos)), float(np.sum(counts.n_neg))
    if n_pos == 0 or n_neg == 0:
        raise InputError(f"prevalence='overall': the data hold {n_pos:g} positives and {n_neg:g} negatives, so "
                         "there is no prevalence between 0 and 1 to state")
    return n_pos / (n_pos + n_neg)


def estimate(request: Request, stacklevel: int = 2) -> EstimateResult:
    """The result of a request: its records over every group of its data (the step after the front door).

    :func:`aucpr` and :func:`auroc` are :func:`~aucpr_stats.front_door.front_door`
    then this; a test or a tool that builds its own request (another
    :class:`~aucpr_stats.tables.Tuning`, say) gets the same result type.

    Parameters
    ----------
    request : Request
        With a metric and its estimator records.
    stacklevel : int
        Of the warnings (degenerate groups, missing keys, the direction chosen), as
        :func:`warnings.warn` counts it from the caller of the reader.
    """
    ingested = read(request, stacklevel=stacklevel)
    chosen = request.records
    result = _RESULTS[request.metric](
        ties=ingested.ties,
        keys=ingested.keys,
        by=ingested.key_columns,
        estimators=tuple(record.name for record in chosen),
        estimates=evaluate(ingested.ties, chosen),
        records=chosen,
        notes=ingested.notes,
        frame_kind=ingested.kind,
        outcome=ingested.spec.outcome,
        score=ingested.spec.score,
        request=request,
        directions=ingested.directions,
        clusters=ingested.clusters,
        weighted_cells=ingested.weighted_cells,
        weight_sums=ingested.weight_sums,
        **({} if ingested.folds is None else {"folds": ingested.folds}),  # aucpr(fold=): the caller's folds
    )
    warn_undefined(result, stacklevel=stacklevel)
    return result


def warn_undefined(result: EstimateResult, stacklevel: int) -> None:
    """One warning for the estimates that are NaN in groups holding both classes, with their notes."""
    holds_both = np.array([note is None for note in result.notes], dtype=bool)
    undefined = np.isnan(result.estimates) & holds_both[:, None]
    if not undefined.any():
        return
    notes = result.estimate_notes()
    reasons = sorted({str(notes[g, e]) for g, e in zip(*np.nonzero(undefined))})
    warnings.warn(f"{int(undefined.sum())} estimate{'s' * (int(undefined.sum()) != 1)} undefined in groups "
                  f"holding both classes (NaN; see the `note` column): {'; '.join(reasons)}",
                  DegenerateGroupWarning, stacklevel=stacklevel + 1)  # counted from estimate's caller
