r"""DeLong's variance for many areas on the same rows: one-vs-rest, pairs, their averages and differences.

The ``K`` one-vs-rest areas of a model (and the ``K(K-1)`` ordered pairs)
are computed on the same rows: a row is a case of its own class's area and
a control of every other. Each area :math:`\hat A_a` is a two-sample
U-statistic, and its linearisation (DeLong, DeLong & Clarke-Pearson 1988,
section 2) is a sum over rows of placement-value deviations,

.. math::

    \hat A_a - A_a \approx \sum_{i \in P_a} \frac{w_i (V_{10}^a(i) - \hat A_a)}{W_{P_a}}
        + \sum_{l \in N_a} \frac{w_l (V_{01}^a(l) - \hat A_a)}{W_{N_a}},

so any weighted sum of areas (a macro or weighted average, a pair's mean of
its two directions, the difference between two models) has the
linearisation :math:`\sum_i \phi_i` with :math:`\phi_i` the same weighted
sum of row ``i``'s cell terms, and its variance is read off the rows (or
clusters) as independent units. Written per unit as a case part :math:`U_i`
and a control part :math:`L_i`:

.. math::

    \widehat{\mathrm{Var}} = f_U \sum_i U_i^2 + f_L \sum_i L_i^2 + 2 f_{UL} \sum_i U_i L_i.

For one area without clusters :math:`f_U = n_P/(n_P - 1)`,
:math:`f_L = n_N/(n_N - 1)` and :math:`U_i L_i = 0`: DeLong's variance
exactly (and the difference of two models on one area, DeLong's paired
test); with ``cluster=`` the factors are Obuchowski's (1997)
:math:`I_{10}/(I_{10}-1)`, :math:`I_{01}/(I_{01}-1)`, :math:`I/(I-1)` and the
per-cluster sums, his variance exactly. For a sum of several areas, whose
units are cases of one area and controls of another, every factor is
:math:`I/(I-1)` (``I`` units). The micro average is one area over the
``nK`` cells, its units the rows.

The class counts are held fixed, as the class-stratified bootstrap holds
them: the weighted average is the average at the sample's class mix, its
weights constants (with random class counts it would gain a term for the
shares' own variation).
"""

from __future__ import annotations

import attrs
import numpy as np

from ..estimators.roc import placement_values
from ..tables.multiclass import AreaCells
from .rows import Rows
from .statistics import Layout

__all__ = ["Linearisation", "linearise", "variance"]


@attrs.frozen(eq=False)
class Linearisation:
    """Per unit (row or cluster), the case and control parts of every reported row of every model.

    Attributes
    ----------
    u, l : ndarray of float64, shape (n_units, n_models, n_rows)
    unit_group : ndarray of int64, shape (n_units,)
    f_u, f_l, f_ul : ndarray of float64, shape (n_groups, n_rows)
        The small-sample factors (see the module docstring).
    """

    u: np.ndarray
    l: np.ndarray
    unit_group: np.ndarray
    f_u: np.ndarray
    f_l: np.ndarray
    f_ul: np.ndarray


def _cell_terms(cells: AreaCells, estimates: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's case term and control term (one of them 0): ``w (V - A) / W_side``."""
    v10, v01 = placement_values(cells.ties)
    seg = cells.segment
    theta = estimates[seg]
    w = 1.0 if weights is None else weights[cells.row]
    with np.errstate(invalid="ignore", divide="ignore"):
        case = np.where(cells.positive, w * (v10[cells.tie_row] - theta) / cells.ties.n_pos[seg], 0.0)
        control = np.where(cells.positive, 0.0, w * (v01[cells.tie_row] - theta) / cells.ties.n_neg[seg])
    return np.nan_to_num(case), np.nan_to_num(control)


def _units_per_side(cells: AreaCells, unit: np.ndarray | None, n_segments: int) -> tuple[np.ndarray, ...]:
    """Distinct units holding cases, controls and either, per segment (``unit`` None: every row its own)."""
    out = []
    for mask in (cells.positive, ~cells.positive, None):
        segment = cells.segment if mask is None else cells.segment[mask]
        if unit is None:  # a row is one cell of each of its areas: the cells are the units
            out.append(np.bincount(segment, minlength=n_segments).astype(np.float64))
            continue
        units = unit[cells.row if mask is None else cells.row[mask]]
        key = np.unique(segment.astype(np.int64) * (int(unit.max()) + 1) + units)
        out.append(np.bincount(key // (int(unit.max()) + 1), minlength=n_segments).astype(np.float64))
    return tuple(out)


def _factor(n: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 1, n / (n - 1), np.nan)


def linearise(rows: Rows, cells: AreaCells, layout: Layout, area_estimates: np.ndarray,
              micro: AreaCells | None = None, micro_estimates: np.ndarray | None = None) -> Linearisation:
    """The linearisation of every reported row (see the module docstring).

    Parameters
    ----------
    area_estimates : ndarray, shape (n_groups, n_models, n_areas)
    micro_estimates : ndarray, shape (n_groups, n_models), optional
    """
    n_groups, n_models, n_areas = area_estimates.shape
    unit = np.arange(rows.y.size) if rows.cluster is None else rows.cluster
    n_units = int(unit.max()) + 1 if unit.size else 0
    unit_group = np.zeros(n_units, dtype=np.int64)
    unit_group[unit] = rows.group
    case, control = _cell_terms(cells, area_estimates.ravel(), rows.weights)
    g, rem = np.divmod(cells.segment, n_models * n_areas)
    m, a = np.divmod(rem, n_areas)
    n_out = layout.n_rows
    u = np.zeros((n_units, n_models, n_out))
    l = np.zeros((n_units, n_models, n_out))
    cell_unit = unit[cells.row]
    n_summed = layout.coefficients.shape[1]
    for r in range(n_summed):
        coefficient = layout.coefficients[g, r, a]
        for model in range(n_models):
            at = m == model
            u[:, model, r] = np.bincount(cell_unit[at], weights=(coefficient * case)[at], minlength=n_units)
            l[:, model, r] = np.bincount(cell_unit[at], weights=(coefficient * control)[at], minlength=n_units)
    if layout.micro and micro is not None:
        mcase, mcontrol = _cell_terms(micro, micro_estimates.ravel(), rows.weights)
        mg, mm = np.divmod(micro.segment, n_models)
        micro_unit = unit[micro.row]
        for model in range(n_models):
            at = mm == model
            u[:, model, -1] = np.bincount(micro_unit[at], weights=mcase[at], minlength=n_units)
            l[:, model, -1] = np.bincount(micro_unit[at], weights=mcontrol[at], minlength=n_units)
    f_u, f_l, f_ul = _factors(rows, cells, layout, unit, n_units, unit_group, n_models, n_areas)
    return Linearisation(u, l, unit_group, f_u, f_l, f_ul)


def _factors(rows: Rows, cells: AreaCells, layout: Layout, unit: np.ndarray, n_units: int,
             unit_group: np.ndarray, n_models: int, n_areas: int) -> tuple[np.ndarray, ...]:
    """The small-sample factors of every reported row: per side for one area, units/(units - 1) otherwise."""
    n_groups = rows.n_groups
    per_group = _factor(np.bincount(unit_group, minlength=n_groups).astype(np.float64))
    f = np.repeat(per_group[:, None], layout.n_rows, axis=1)
    f_u, f_l, f_ul = f.copy(), f.copy(), f.copy()
    cases, controls, either = _units_per_side(cells, rows.cluster, n_groups * n_models * n_areas)
    shape = (n_groups, n_models, n_areas)
    cases, controls, either = (x.reshape(shape)[:, 0, :] for x in (cases, controls, either))
    for r, kind in enumerate(layout.kind):
        if kind != "area" or r >= layout.coefficients.shape[1]:
            continue
        used = np.flatnonzero(layout.coefficients[0, r])
        if used.size == 1:  # one area: DeLong's (or Obuchowski's) own factors
            f_u[:, r] = _factor(cases[:, used[0]])
            f_l[:, r] = _factor(controls[:, used[0]])
            f_ul[:, r] = _factor(either[:, used[0]])
    return f_u, f_l, f_ul


def variance(lin: Linearisation, u: np.ndarray | None = None, l: np.ndarray | None = None) -> np.ndarray:
    """Per group and reported row (and model), the variance from unit parts ``u``, ``l`` (default: the models').

    ``u`` and ``l`` of shape (n_units, ..., n_rows); returns (n_groups, ..., n_rows).
    """
    u = lin.u if u is None else u
    l = lin.l if l is None else l
    n_groups = lin.f_u.shape[0]
    flat = u.shape[1:]

    starts = np.searchsorted(lin.unit_group, np.arange(n_groups))  # units are numbered group by group
    held = np.flatnonzero(np.diff(np.append(starts, lin.unit_group.size)) > 0)

    def summed(x: np.ndarray) -> np.ndarray:
        out = np.zeros((n_groups, int(np.prod(flat))))
        if held.size:
            out[held] = np.add.reduceat(x.reshape(x.shape[0], -1), starts[held], axis=0)
        return out.reshape((n_groups, *flat))

    expand = (slice(None),) + (None,) * (len(flat) - 1) + (slice(None),)
    return (lin.f_u[expand] * summed(u * u) + lin.f_l[expand] * summed(l * l)
            + 2 * lin.f_ul[expand] * summed(u * l))
