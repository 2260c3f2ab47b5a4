"""A multiclass call from the caller's arguments to its result: read, tabulate, estimate, note.

:func:`multiclass_areas` is what ``aucpr(..., multiclass=...)`` and
``auroc(..., multiclass=...)`` run. Each model's per-class (or per-pair)
areas are binary areas read by the library's estimator records, with its
one tie convention (``ties="published"`` reproduces scikit-learn's average
precision); the averages are weighted sums of them
(:mod:`.statistics`), the micro average one more binary area.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._validate import names_or_all_iv
from ..estimators import ESTIMATORS
from ..estimators.engine import evaluate
from ..estimators.registry import records
from ..estimators.tie_blocks import ties_iv
from ..exceptions import DegenerateGroupWarning, InputError
from ..formula import resolve
from ..ingest.source import is_data
from ..tables.multiclass import area_cells, micro_cells
from .result import MulticlassResult
from .rows import Rows, read_rows
from .spec import averages_iv, level_text, scheme_iv
from .statistics import Layout, layout_of

__all__ = ["multiclass_areas"]


def multiclass_areas(metric: str, data_or_formula: Any, data: Any, outcome: Any, score: Any, by: Any, *,
                     multiclass: Any, average: Any, estimator: Any, ties: Any, weights: Any, cluster: Any,
                     missing: Any, stacklevel: int = 3) -> MulticlassResult:
    """The multiclass result of one call (see :func:`aucpr_stats.aucpr`, ``multiclass=``)."""
    data, outcome, score, by = resolve(data_or_formula, data, outcome, score, by, function=metric, is_data=is_data)
    if isinstance(score, tuple):
        score = list(score)
    scheme = scheme_iv(multiclass, metric)
    chosen_averages = averages_iv(average, scheme)
    names = names_or_all_iv(estimator, "estimator", list(ESTIMATORS[metric]))
    if len(names) != 1:
        raise InputError(f"a multiclass call takes one estimator; got {len(names)} ({', '.join(names)}): "
                         "call once per estimator")
    chosen = records(metric, names, ties_iv(ties))
    if not isinstance(outcome, str):
        raise InputError(f"`outcome` must be one column name; got {outcome!r}")
    rows = read_rows(data, outcome, score, by, weights=weights, cluster=cluster, missing=missing)
    layout = layout_of(scheme, chosen_averages, rows.levels, rows.class_weights())
    n_groups, n_models, n_areas = rows.n_groups, len(rows.models.names), len(layout.areas)
    cells = area_cells(rows.group, rows.y, rows.scores, rows.weights, n_groups, layout.areas)
    area_values = evaluate(cells.ties, chosen)[:, 0].reshape(n_groups, n_models, n_areas)
    reported = layout.combine(area_values)
    micro = None
    if layout.micro:
        micro = micro_cells(rows.group, rows.y, rows.scores, rows.weights, n_groups)
        reported[..., -1] = evaluate(micro.ties, chosen)[:, 0].reshape(n_groups, n_models)
        # with one class only, the cells rank other classes' scores of the same rows: not a discrimination
        reported[(rows.class_counts() > 0).sum(axis=1) < 2, :, -1] = np.nan
    notes = _notes(rows, layout, reported)
    result = MulticlassResult(metric=metric, scheme=scheme, outcome=outcome, rows=rows, layout=layout,
                              cells=cells, micro=micro, records=tuple(chosen), area_values=area_values,
                              estimates=reported, notes=notes)
    undefined = int(np.isnan(reported).sum())
    if undefined:
        reasons = sorted({n for n in notes.ravel() if n})
        warnings.warn(f"{undefined} multiclass estimate{'s' * (undefined != 1)} undefined (NaN; see the `note` "
                      f"column): {'; '.join(reasons[:3])}{' ...' if len(reasons) > 3 else ''}",
                      DegenerateGroupWarning, stacklevel=stacklevel)
    return result


def _notes(rows: Rows, layout: Layout, reported: np.ndarray) -> np.ndarray:
    """Why a value is NaN (a class without rows, a group without rows), and the micro average's caveat."""
    counts = rows.class_counts()
    texts = [level_text(v) for v in rows.levels]
    n_models = reported.shape[1]
    notes = np.full(reported.shape, None, dtype=object)
    for g in range(rows.n_groups):
        absent = [texts[c] for c in range(rows.n_levels) if counts[g, c] == 0]
        if counts[g].sum() == 0:
            notes[g] = "no rows" + (f" ({int(rows.n_missing[g])} missing)" if rows.n_missing[g] else "")
            continue
        for r, label in enumerate(layout.labels):
            if not np.isnan(reported[g, :, r]).any():
                continue
            first, second = int(layout.first[r]), int(layout.second[r])
            if layout.kind[r] == "area":
                involved = [c for c in (first, second) if c >= 0 and counts[g, c] == 0]
                if second < 0 and counts[g, first] == counts[g].sum():
                    notes[g, :, r] = f"only class {texts[first]!r} in the group"
                elif involved:
                    notes[g, :, r] = f"no rows of class {texts[involved[0]]!r}"
            else:
                notes[g, :, r] = f"undefined: no rows of class{'es' * (len(absent) > 1)} {', '.join(map(repr, absent))}"
        if layout.micro:
            for m in range(n_models):
                off = int(rows.off_simplex[m, g])
                if len(absent) >= rows.n_levels - 1:
                    notes[g, m, -1] = "undefined: fewer than two classes with rows"
                elif absent:
                    notes[g, m, -1] = (f"no rows of class{'es' * (len(absent) > 1)} {', '.join(map(repr, absent))} "
                                       "(their cells are all controls)")
                elif off and notes[g, m, -1] is None:
                    notes[g, m, -1] = (f"{off} row{'s' * (off != 1)} not probabilities summing to 1: the micro "
                                       "average ranks different classes' scores together")
    return notes
