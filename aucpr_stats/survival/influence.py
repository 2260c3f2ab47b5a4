r"""The influence-function (iid) variance of the censoring-weighted areas, estimation of :math:`\hat G` included.

Blanche, Dartigues & Jacqmin-Gadda (2013, section 3 and appendix) write
:math:`\widehat{\mathrm{AUC}}(t) - \mathrm{AUC}(t)` as a sum of independent
terms, one per subject, and so does every smooth function of
censoring-weighted sums. Each unit's term has two parts.

*The areas' own part.* With the weights held fixed, the area is a weighted
binary area, whose linearisation the library already has
(:mod:`aucpr_stats.intervals.linearisation`): a row in tie row :math:`k`
with censoring weight :math:`\omega_i` contributes
:math:`a_i = \omega_i\,\partial\theta/\partial p_k` as a case and
:math:`\omega_i\,\partial\theta/\partial n_k` as a control (DeLong's
placement values for AUC(t), the average precision gradient for AP(t)).

*The censoring part.* Every weight :math:`\omega_k = w_k/\hat G(s_k)`
(:math:`s_k = T_k-` for a case, :math:`t` for a control) moves with
:math:`\hat G`, and the Kaplan-Meier estimate is itself a sum over
subjects: for the cumulative censoring hazard,
:math:`\hat\Lambda_C(s) - \Lambda_C(s) \approx \sum_i w_i
\int_0^s dM^C_i(u)/Y(u)`, with the censoring martingale
:math:`dM^C_i(u) = dN^C_i(u) - R_i(u)\,d\hat\Lambda_C(u)`, :math:`R_i(u)`
whether unit :math:`i` is at risk of censoring at :math:`u` (before its own
time, and at it if it is censored there: events come first at tied times),
:math:`Y(u)` the weight at risk, and
:math:`d(1/\hat G(s)) = d\hat\Lambda_C(s)/\hat G(s)` to first order (the
Nelson-Aalen form of the representation, as Blanche et al. and
riskRegression write it). So unit :math:`i` adds

.. math::

    b_i = w_i \sum_k a_k \int_0^{s_k} \frac{dM^C_i(u)}{Y(u)}
        = w_i\Bigl[\frac{1-\delta_i}{Y(T_i)} A_{>}(T_i)
          - \tilde\Lambda(r_i)\,A_{\ge}(r_i) - \sum_{k:\,s_k < r_i} a_k \tilde\Lambda(s_k)\Bigr],

:math:`\tilde\Lambda(s) = \int_0^s d\hat\Lambda_C(u)/Y(u)`, :math:`r_i`
the end of the unit's time at risk, and :math:`A_{>}(T_i)`,
:math:`A_{\ge}(r_i)` the sums of :math:`a_k` over the weights whose
:math:`s_k` lies after :math:`T_i`, at or after :math:`r_i`: cumulative sums
over each cell's time grid, O(rows + times) per (score, horizon).
A censoring stratum
(``censoring_strata=``) has its own fit, so only the rows of its cell enter
a unit's :math:`b_i`.

Both parts add up to zero over the units (Euler's theorem for the first;
the martingale increments of every time add up to zero for the second), so

.. math::

    \widehat{\mathrm{Var}}(\hat\theta) = \frac{U}{U-1}\sum_{u} \Bigl(\sum_{i \in u} (a_i + b_i)\Bigr)^2

over the :math:`U` units of the group: rows, or clusters (``cluster=``).
The covariance of two areas of one group (two scores, two horizons) is the
same sum of products, which gives the paired comparison and the
simultaneous band. ``conservative=True`` leaves :math:`b_i` out (the
variance as if :math:`G` were known), as riskRegression's option of that name.

Assumptions: censoring independent of the event time and the scores (within
each censoring stratum), units independent, and enough cases and controls
for a first-order expansion and a normal approximation.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..intervals.linearisation import Gradient
from ..ties import segment_cumsum
from .areas import HorizonWeights, ScoreRanks, tie_rows_of
from .rows import SurvivalRows

__all__ = ["UnitTerms", "unit_terms"]


@attrs.frozen(eq=False)
class UnitTerms:
    """The influence terms of every unit for every (score, horizon) of its group.

    Attributes
    ----------
    terms : ndarray of float64, shape (n_scores, H, n_units)
        Each unit's term; the variance of an area is ``factor`` times the sum
        of the squares of its group's units.
    unit_group : ndarray of int64, shape (n_units,)
    factor : ndarray of float64, shape (n_groups,)
        ``U / (U - 1)`` (NaN below two units).
    n_units : ndarray of int64, shape (n_groups,)
    """

    terms: np.ndarray
    unit_group: np.ndarray
    factor: np.ndarray
    n_units: np.ndarray

    def covariance(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Per group: the covariance of the areas with unit terms ``first`` and ``second`` (each (..., n_units))."""
        n_groups = self.factor.size
        products = first * second
        sums = np.stack([np.bincount(self.unit_group, weights=p, minlength=n_groups)
                         for p in products.reshape(-1, products.shape[-1])])
        return (sums * self.factor).reshape(*products.shape[:-1], n_groups)


def _censoring_part(rows: SurvivalRows, weights: HorizonWeights, horizons: np.ndarray, a: np.ndarray) -> np.ndarray:
    """:math:`b_i` of every row for every (score, horizon), shape like ``a`` (module docstring)."""
    fit = weights.fit
    n_scores, n_horizons, n = a.shape
    at_risk, hazard = fit.at_risk[0], fit.hazard[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        per_risk = np.where(at_risk > 0, hazard / at_risk, 0.0)
    n_cells = fit.n_cells
    base = fit.offsets[:-1] + np.arange(n_cells)  # slots: cell c owns base[c] .. base[c] + L_c
    slot_offsets = np.append(base, fit.offsets[-1] + n_cells)
    n_slots = int(slot_offsets[-1])
    # Lambda~ at slot j of a cell: the sum of dLambda/Y over the cell's first j times
    lam = np.zeros(n_slots)
    grid_slot = np.arange(fit.times.size) + np.repeat(np.arange(n_cells), np.diff(fit.offsets)) + 1
    lam[grid_slot] = segment_cumsum(per_risk, fit.offsets)
    position = fit.row_index - fit.offsets[rows.cell]  # times of the row's cell strictly before its own
    is_case = rows.event[None, :] & (rows.time[None, :] <= horizons[:, None])
    reach = np.where(is_case, position[None, :], fit.counts_up_to(horizons)[:, rows.cell])  # (H, n)
    slot = base[rows.cell][None, :] + reach
    flat = (np.arange(n_scores * n_horizons)[:, None] * n_slots + np.tile(slot, (n_scores, 1))).ravel()
    hist = np.bincount(flat, weights=a.ravel(), minlength=n_scores * n_horizons * n_slots)
    hist = hist.reshape(n_scores * n_horizons, n_slots)
    up_to = segment_cumsum(hist, slot_offsets)  # sum of a_k with reach <= j, within the cell
    weighted_up_to = segment_cumsum(hist * lam[None, :], slot_offsets)
    own = base[rows.cell] + position
    # a unit is at risk of censoring at the times before its own, and at its own if it is censored there
    at_risk_to = own + np.where(rows.event, 0, 1)  # slot of Lambda~ over the times the unit is at risk
    total = up_to[:, slot_offsets[1:] - 1][:, rows.cell]
    below = np.where(at_risk_to > base[rows.cell], up_to[:, np.maximum(at_risk_to - 1, 0)], 0.0)
    weighted_below = np.where(at_risk_to > base[rows.cell], weighted_up_to[:, np.maximum(at_risk_to - 1, 0)], 0.0)
    beyond = total - up_to[:, own]  # A_>: reach after the unit's own time
    own_risk = at_risk[fit.row_index]
    censored_term = np.where(rows.event | (own_risk <= 0), 0.0, 1.0 / np.where(own_risk > 0, own_risk, 1.0))
    b = beyond * censored_term[None, :] - (total - below) * lam[at_risk_to][None, :] - weighted_below
    return (rows.unit_weights[None, :] * b).reshape(a.shape)


def unit_terms(rows: SurvivalRows, ranks: ScoreRanks, weights: HorizonWeights, horizons: np.ndarray,
               gradient: Gradient, conservative: bool = False) -> UnitTerms:
    """The influence terms per unit (rows, or clusters) for one weighting (see the module docstring).

    Parameters
    ----------
    rows, ranks, weights
        As for :func:`~aucpr_stats.survival.areas.ipcw_tables` (one weighting: the data's own).
    horizons : ndarray of float64
    gradient : Gradient
        Of the estimator on that table (:func:`~aucpr_stats.intervals.linearisation.a_prime_gradient` or
        :func:`~aucpr_stats.intervals.linearisation.average_precision_gradient`).
    conservative : bool
        Leave out the estimation of :math:`\\hat G`.
    """
    tie_row = tie_rows_of(rows, ranks, horizons.size)
    g_pos, g_neg = np.nan_to_num(gradient.pos), np.nan_to_num(gradient.neg)
    a = weights.case[0][None] * g_pos[tie_row] + weights.control[0][None] * g_neg[tie_row]
    terms = a if conservative else a + _censoring_part(rows, weights, horizons, a)
    if rows.cluster is None:
        unit_group = rows.group
    else:
        n_units = int(rows.cluster.max()) + 1
        unit_group = np.zeros(n_units, dtype=np.int64)
        unit_group[rows.cluster] = rows.group
        flat = terms.reshape(-1, terms.shape[-1])
        terms = np.stack([np.bincount(rows.cluster, weights=t, minlength=n_units) for t in flat]).reshape(
            *terms.shape[:-1], n_units)
    n_units = np.bincount(unit_group, minlength=rows.n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(n_units >= 2, n_units / (n_units - 1.0), np.nan)
    return UnitTerms(terms=terms, unit_group=unit_group, factor=factor, n_units=n_units)
