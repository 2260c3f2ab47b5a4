"""A time-to-event call from the caller's arguments to its result: read, weight, tabulate, estimate, note.

:func:`time_dependent_areas` is what ``aucpr(..., time=, event=, horizon=)``
and ``auroc(...)`` with those arguments run: the cumulative/dynamic AUC(t)
and AP(t) of every (group, score, horizon), as weighted binary areas
(:mod:`.areas`) read by the library's estimator records.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._validate import names_or_all_iv, shown
from ..estimators import ESTIMATORS
from ..estimators.engine import evaluate
from ..estimators.registry import records
from ..estimators.tie_blocks import ties_iv
from ..exceptions import DegenerateGroupWarning, InputError, InputTypeError
from ..formula import is_survival_formula, resolve
from ..ingest.source import is_data
from ..ingest.row_columns import plural
from .areas import horizon_weights, ipcw_tables, score_ranks
from .result import TimeDependentResult
from .rows import SurvivalRows, read_survival_rows

__all__ = ["time_dependent_call", "time_dependent_areas", "horizons_iv", "SUPPORTED"]

#: The estimators with a censoring-weighted linearisation (the influence variance needs it).
SUPPORTED = {"aucpr": ("average_precision",), "auroc": ("a_prime",)}

#: The most horizons of one call (a curve over t is well drawn with a few dozen).
MAX_HORIZONS = 1000


def horizons_iv(horizon: Any) -> np.ndarray:
    """One horizon or several: finite, positive, sorted and without repeats."""
    if horizon is None:
        raise InputError("a time-to-event call needs `horizon=`: the time t (or times) at which cases are the "
                         "events by t and controls the rows still event-free after t")
    values = [horizon] if isinstance(horizon, (int, float, np.integer, np.floating)) else horizon
    try:
        array = np.asarray(list(values), dtype=np.float64)
    except (TypeError, ValueError):
        raise InputTypeError(f"`horizon` must be a number or a list of numbers; got {shown(horizon)}") from None
    if isinstance(horizon, bool) or array.ndim != 1 or array.size == 0:
        raise InputTypeError(f"`horizon` must be a number or a non-empty list of numbers; got {shown(horizon)}")
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise InputError(f"`horizon` must be finite and > 0; got {shown(array.tolist())}")
    if array.size > MAX_HORIZONS:
        raise InputError(f"`horizon` holds {array.size} times, more than {MAX_HORIZONS}; a curve over t needs "
                         "far fewer")
    return np.unique(array)


def time_dependent_call(metric: str, data_or_formula: Any, data: Any, outcome: Any, score: Any, by: Any, *,
                        time: Any, event: Any, refused: dict, **options: Any) -> TimeDependentResult:
    """A verb's time-to-event call: ``time=``/``event=`` columns or a ``Surv(time, event) ~ ...`` formula.

    ``refused`` holds the verb's arguments that only a binary outcome takes
    (a partial area, ``positive``, ``imputation``, ...): each must be unset.
    """
    for name, value in refused.items():
        if value is not None:
            raise InputError(f"`{name}` is not defined for a time-to-event outcome (time=, event=, horizon=): "
                             "cases and controls are set by the horizon; leave it out")
    if is_survival_formula(data_or_formula, outcome):
        data, outcome, score, by = resolve(data_or_formula, data, outcome, score, by, function=metric,
                                           is_data=is_data, survival=True)
        if time is not None or event is not None:
            raise InputError(f"the formula gives {outcome}; do not pass time= or event= as well")
        time, event = outcome.time, outcome.event
    else:
        if outcome is not None:
            raise InputError(f"with time= and event=, leave `outcome` out (got {shown(outcome)}): the outcome at "
                             "each horizon is made from them")
        if time is None or event is None:
            raise InputError("a time-to-event call needs both `time` and `event` columns (or a formula "
                             "'Surv(time, event) ~ score')")
        if data_or_formula is not None and data is not None:
            raise InputTypeError(f"{metric}() got `data` twice: as the first argument and as data=")
        data = data if data is not None else data_or_formula
        if data is None:
            raise InputTypeError(f"{metric}() needs `data`")
    if score is None:
        raise InputTypeError(f"{metric}() needs `score`: the column(s) whose time-dependent area is wanted")
    return time_dependent_areas(metric, data, score, by, time=time, event=event, stacklevel=4, **options)


def time_dependent_areas(metric: str, data: Any, score: Any, by: Any, *, time: Any, event: Any, horizon: Any,
                         estimator: Any, ties: Any, weights: Any, cluster: Any, censoring_strata: Any,
                         missing: Any, direction: Any, stacklevel: int = 3) -> TimeDependentResult:
    """The time-dependent result of one call (see :func:`aucpr_stats.aucpr`, ``time=``)."""
    horizons = horizons_iv(horizon)
    names = names_or_all_iv(estimator, "estimator", list(ESTIMATORS[metric]))
    if len(names) != 1 or names[0] not in SUPPORTED[metric]:
        raise InputError(f"a time-dependent {metric} is estimated with {SUPPORTED[metric][0]!r} (the estimator "
                         f"whose censoring-weighted variance is derived); got estimator={shown(list(names))}")
    record = records(metric, names, ties_iv(ties))[0]
    rows = read_survival_rows(data, time, event, score, by, weights=weights, cluster=cluster,
                              censoring_strata=censoring_strata, missing=missing, direction=direction)
    last = float(rows.time.max(initial=-math.inf))
    if horizons[0] >= last:
        raise InputError(f"every horizon ({shown(horizons.tolist())}) is at or after the last observed time "
                         f"({last:g}): nobody is known to be event-free after it, so no area is defined")
    ranks = score_ranks(rows)
    weights_at = horizon_weights(rows, horizons)
    table = ipcw_tables(rows, ranks, weights_at)
    estimates = evaluate(table, [record])[:, 0].reshape(rows.n_groups, rows.n_scores, horizons.size)
    counts = _counts(rows, weights_at, horizons)
    notes = _notes(rows, horizons, counts, weights_at.g_horizon[0], estimates)
    result = TimeDependentResult(metric=metric, rows=rows, horizons=horizons, record=record, ranks=ranks,
                                 weights=weights_at, ties=table, estimates=estimates, counts=counts, notes=notes)
    undefined = int(np.isnan(estimates).sum())
    if undefined:
        reasons = sorted({n for n, e in zip(notes.ravel(), estimates.ravel()) if n and np.isnan(e)})
        warnings.warn(f"{plural(undefined, 'time-dependent estimate')} undefined (NaN; see the `note` column): "
                      f"{'; '.join(reasons[:3])}{' ...' if len(reasons) > 3 else ''}",
                      DegenerateGroupWarning, stacklevel=stacklevel)
    return result


def _counts(rows: SurvivalRows, weights_at, horizons: np.ndarray) -> dict[str, np.ndarray]:
    """Per (group, horizon): rows, cases, controls, rows censored by the horizon, the weighted cumulative incidence."""
    n_groups = rows.n_groups
    is_case = rows.event[None, :] & (rows.time[None, :] <= horizons[:, None])
    is_control = rows.time[None, :] > horizons[:, None]

    def per_group(values: np.ndarray) -> np.ndarray:
        return np.stack([np.bincount(rows.group, weights=v, minlength=n_groups) for v in values], axis=1)

    case_weight, control_weight = per_group(weights_at.case[0]), per_group(weights_at.control[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        incidence = case_weight / (case_weight + control_weight)
    n = np.bincount(rows.group, minlength=n_groups).astype(np.int64)
    return {"n": np.repeat(n[:, None], horizons.size, axis=1),
            "n_cases": per_group(is_case.astype(np.float64)).astype(np.int64),
            "n_controls": per_group(is_control.astype(np.float64)).astype(np.int64),
            "n_censored": per_group((~is_case & ~is_control).astype(np.float64)).astype(np.int64),
            "incidence": incidence}


def _notes(rows: SurvivalRows, horizons: np.ndarray, counts: dict, g_cells: np.ndarray,
           estimates: np.ndarray) -> np.ndarray:
    """Why an area is NaN, or what to keep in mind (a stratum whose censoring reached every row)."""
    notes = np.full(estimates.shape, None, dtype=object)
    bounds = rows.group_bounds()
    cell_group = np.zeros(int(rows.cell.max(initial=-1)) + 1, dtype=np.int64)
    cell_group[rows.cell] = rows.group
    for g in range(rows.n_groups):
        a, b = int(bounds[g]), int(bounds[g + 1])
        if a == b:
            notes[g] = "no rows" + (f" ({int(rows.n_missing[g])} missing)" if rows.n_missing[g] else "")
            continue
        last = float(rows.time[a:b].max())
        for h, t in enumerate(horizons):
            if counts["n_cases"][g, h] == 0:
                text = f"no events by the horizon {t:g}"
            elif counts["n_controls"][g, h] == 0:
                text = (f"horizon {t:g} at or after the group's last time ({last:g}): nobody known event-free "
                        "after it")
            else:
                lost = np.flatnonzero((cell_group == g) & (g_cells[h] <= 0))
                strata = "1 censoring stratum" if lost.size == 1 else f"{lost.size} censoring strata"
                text = (f"{strata} censored entirely by {t:g} (event-free rows there are lost)"
                        if lost.size else None)
            notes[g, :, h] = text
    return notes
