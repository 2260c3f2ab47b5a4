r"""Cut-off intervals for weighted or clustered rows: proportions on an effective number of cases.

Sensitivity, specificity, PPV and NPV at a threshold are ratios of sums
over sampling units (rows with their weights, or clusters of rows):
:math:`\hat p = \sum_u x_u / \sum_u m_u`, with :math:`x_u` the unit's
(weighted) cases counted in the numerator and :math:`m_u` those in the
denominator. Their linearisation (ratio-estimator) variance is

.. math:: \widehat{\mathrm{Var}}(\hat p) = \frac{I}{I-1}
          \frac{\sum_u (x_u - \hat p\, m_u)^2}{(\sum_u m_u)^2}

over the :math:`I` units with :math:`m_u > 0` (Cochran 1977, section 6.4;
for clusters of one unweighted row it is the binomial variance times
:math:`n/(n-1)`). The Wilson or Clopper-Pearson interval is then computed
on the effective numbers :math:`n^* = \hat p(1-\hat p)/\widehat{\mathrm{Var}}`
and :math:`k^* = \hat p\, n^*` (Korn & Graubard 1998), so it keeps its
shape at the boundaries.

Everything is computed from tie tables: the units' tables per (group,
cluster), or for weighted rows the (score, weight) cells, each a unit type
standing for as many rows as it counts. Pairs of (unit row, requested
threshold of its group) are formed once, with no loop per row, unit or
group.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from ..ties import TieTable

__all__ = ["CutoffUnits", "cutoff_units", "effective_counts"]


@attrs.frozen(eq=False)
class CutoffUnits:
    """Sampling units as rows of scores, in the cut-off table's orientation.

    Attributes
    ----------
    score, pos, neg : ndarray, shape (n_rows,)
        One row per (unit, distinct score): the unit's (weighted) positives
        and negatives at that score.
    unit : ndarray of int64, shape (n_rows,)
        The unit of each row (units numbered by group, then in order).
    unit_group : ndarray of int64, shape (n_units,)
        The group of each unit (non-decreasing).
    multiplicity : ndarray of float64, shape (n_units,)
        How many identical units each stands for (the rows of a weighted cell; 1 for a cluster).
    """

    score: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    unit: np.ndarray
    unit_group: np.ndarray
    multiplicity: np.ndarray


def cutoff_units(clusters: Any, weighted_cells: Any, sign: float) -> CutoffUnits | None:
    """The units of a result read with ``cluster=`` or ``weights=`` (None for independent unweighted rows).

    ``sign`` is -1 when the cut-offs read the scores reversed (``direction=">"``).
    """
    if clusters is not None:
        units: TieTable = clusters.ties
        unit = units.segment_ids()
        return CutoffUnits(sign * units.score, units.pos.astype(np.float64), units.neg.astype(np.float64), unit,
                           np.asarray(clusters.group, dtype=np.int64), np.ones(units.n_segments))
    if weighted_cells is None:
        return None
    cells, weight = weighted_cells.cells, weighted_cells.weight
    group = cells.segment_ids()
    # one unit type per (cell, class) holding rows: the positive rows of a cell, then its negative rows
    score = np.repeat(cells.score, 2)
    pos = np.column_stack([weight, np.zeros_like(weight)]).ravel()
    neg = np.column_stack([np.zeros_like(weight), weight]).ravel()
    multiplicity = np.column_stack([cells.pos, cells.neg]).ravel().astype(np.float64)
    keep = multiplicity > 0
    unit_group = np.repeat(group, 2)[keep]
    return CutoffUnits(sign * score[keep], pos[keep], neg[keep], np.arange(int(keep.sum())), unit_group,
                       multiplicity[keep])


def effective_counts(units: CutoffUnits, group: np.ndarray, threshold: np.ndarray, n_groups: int) -> dict:
    """Per requested row (``group``, ``threshold``; rows sorted by group): effective (k, n) of each proportion.

    A case is called positive when its oriented score is ``>= threshold``.
    Returns ``{"sensitivity": (k, n), "specificity": ..., "ppv": ..., "npv": ...}``
    with arrays of shape (n_requests,); NaN where a proportion or its
    variance is undefined; ``n`` is the (weighted) count itself where the
    variance is 0 (every unit alike: 0 or 1), the number of units.
    """
    n_req = group.size
    finite = np.isfinite(threshold)
    # pairs (unit row, request of the same group), unit-row major
    req_start = np.searchsorted(group, np.arange(n_groups), side="left")
    req_count = np.bincount(group, minlength=n_groups)
    row_group = units.unit_group[units.unit]
    per_row = req_count[row_group]
    row_of_pair = np.repeat(np.arange(units.score.size), per_row)
    first = np.repeat(req_start[row_group], per_row)
    within = np.arange(row_of_pair.size) - np.repeat(np.cumsum(per_row) - per_row, per_row)
    request = first + within
    called = units.score[row_of_pair] >= threshold[request]
    # sums per (request, unit): the unit's positives and negatives called positive
    unit = units.unit[row_of_pair]
    key, inverse = np.unique(request * (units.unit_group.size + 1) + unit, return_inverse=True)
    pair_request = key // (units.unit_group.size + 1)
    pair_unit = key % (units.unit_group.size + 1)
    tp_u = np.bincount(inverse, weights=units.pos[row_of_pair] * called, minlength=key.size)
    fp_u = np.bincount(inverse, weights=units.neg[row_of_pair] * called, minlength=key.size)
    pos_u = np.bincount(units.unit, weights=units.pos, minlength=units.unit_group.size)[pair_unit]
    neg_u = np.bincount(units.unit, weights=units.neg, minlength=units.unit_group.size)[pair_unit]
    mult = units.multiplicity[pair_unit]
    tn_u, fn_u = neg_u - fp_u, pos_u - tp_u
    out = {}
    for name, (x, m) in {"sensitivity": (tp_u, pos_u), "specificity": (tn_u, neg_u),
                         "ppv": (tp_u, tp_u + fp_u), "npv": (tn_u, tn_u + fn_u)}.items():
        out[name] = _ratio_effective(x, m, mult, pair_request, n_req, finite)
    return out


def _ratio_effective(x, m, mult, pair_request, n_req, finite) -> tuple[np.ndarray, np.ndarray]:
    """Effective (k, n) of the ratio sum(x)/sum(m) per request, from the units' linearisation variance."""
    def total(values):
        return np.bincount(pair_request, weights=values, minlength=n_req)

    holds = m > 0
    units = total(mult * holds)
    sum_x, sum_m = total(mult * x), total(mult * m)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = sum_x / sum_m
        spread = total(mult * holds * (x - p[pair_request] * m) ** 2)
        variance = units / (units - 1.0) * spread / sum_m ** 2
        n = np.where(variance > 0, p * (1.0 - p) / variance, units)  # every unit alike: the units themselves
    ok = finite & (sum_m > 0) & (units >= 2)
    n = np.where(ok, n, np.nan)
    return np.where(ok, p * n, np.nan), n
