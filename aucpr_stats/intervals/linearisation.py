r"""Linearisation (influence-function) variances of average precision and A' for rows, weights and clusters.

An estimate :math:`\hat\theta = \theta(\mathbf p, \mathbf n)` that is a smooth
function of the (weighted) counts of the tie table is, to first order, a sum
over the units that make up those counts:

.. math::

    \hat\theta - \theta \approx \sum_r u_r, \qquad
    u_r = w_r\, g_{c_r}(k_r), \qquad
    g_{\mathrm{pos}}(k) = \frac{\partial\theta}{\partial p_k}, \quad
    g_{\mathrm{neg}}(k) = \frac{\partial\theta}{\partial n_k},

where unit ``r`` has weight :math:`w_r` (1 without ``weights=``), class
:math:`c_r` and lies in tie row :math:`k_r`. The gradient is the Gateaux
derivative of the weighted functional in the direction of one unit (its
influence function, Deville 1999; Binder 1983). Both estimators are
invariant to scaling every count by one factor, so by Euler's theorem the
:math:`u_r` add up to zero and no centring is needed. The variance is the
sum of the squared unit terms with the ``n/(n-1)`` factor of each class:

.. math::

    \widehat{\mathrm{Var}}(\hat\theta) = \frac{n_P}{n_P-1}\sum_{r\,\mathrm{pos}} u_r^2
        + \frac{n_N}{n_N-1}\sum_{r\,\mathrm{neg}} u_r^2

(``n_P``, ``n_N`` rows of each class). With ``cluster=`` the unit is the
cluster: :math:`a_i` and :math:`b_i` sum the terms of its positives and
negatives, and

.. math::

    \widehat{\mathrm{Var}} = \frac{I_{10}}{I_{10}-1}\sum_i a_i^2 + \frac{I_{01}}{I_{01}-1}\sum_i b_i^2
        + 2\frac{I}{I-1}\sum_i a_i b_i

(``I10``, ``I01``, ``I``: clusters holding positives, negatives, any row).
For A', :math:`g_{\mathrm{pos}}(k) = (V_{10}(k) - A)/P` and
:math:`g_{\mathrm{neg}}(k) = (V_{01}(k) - A)/N` with the (weighted)
placement values, so the row variance is DeLong's (DeLong, DeLong &
Clarke-Pearson 1988) with unit weights and the cluster variance is
Obuchowski's (1997) exactly: this module is their weighted generalisation.

**Average precision** (Boyd, Eng & Page 2013, Eq. 9),
:math:`\theta = S/P`, :math:`S = \sum_k p_k\,\mathrm{Prec}_k(a_k, f_k, p_k, n_k)`
with :math:`a_k, f_k` the positives and negatives above row ``k``. A
positive added at row ``j`` raises its own row's term and the ``a`` of every
row below; a negative raises its row's ``n`` and the ``f`` of every row below:

.. math::

    \frac{\partial S}{\partial p_j} = \mathrm{Prec}_j + p_j \partial_b \mathrm{Prec}_j
        + \sum_{k > j} p_k \partial_a \mathrm{Prec}_k, \qquad
    \frac{\partial S}{\partial n_j} = p_j \partial_n \mathrm{Prec}_j + \sum_{k > j} p_k \partial_f \mathrm{Prec}_k,

and :math:`g_{\mathrm{pos}} = (\partial S/\partial p - \theta)/P`,
:math:`g_{\mathrm{neg}} = (\partial S/\partial n)/P`: reversed cumulative
sums per segment, O(rows) for every group at once. At the bottom of a block
:math:`\mathrm{Prec} = (a+b)/(a+b+f+n)`. For a block holding both classes
under ``ties="interpolate"`` the Davis-Goadrich crossing
:math:`\bar p = \int_0^1 (a+bt)/(c+dt)\,dt` (:mod:`aucpr_stats.estimators.tie_blocks`)
is linearised exactly: with :math:`I_j = \int_0^1 t^j/(c+dt)^2\,dt`,

.. math::

    \partial_a \bar p = f I_0 + n I_1, \quad \partial_f \bar p = -(a I_0 + b I_1), \quad
    \partial_b \bar p = f I_1 + n I_2, \quad \partial_n \bar p = -(a I_1 + b I_2).

**At a stated prevalence** :math:`\pi` the estimate reads the negatives
weighted by :math:`\lambda = P(1-\pi)/(N\pi)`
(:mod:`aucpr_stats.estimators.prevalence`). By the chain rule, with
:math:`g'` the gradient on the reweighted table and
:math:`G = \sum_k \lambda n_k g'_{\mathrm{neg}}(k)`,
:math:`g_{\mathrm{pos}} = g'_{\mathrm{pos}} + G/P` and
:math:`g_{\mathrm{neg}} = \lambda g'_{\mathrm{neg}} - G/N`: every negative's
term is amplified by :math:`\lambda`, and each class's terms add up to zero
(the prevalence is held known).

Assumptions: units (rows, or clusters) independent, and enough of them for
a first-order expansion and a normal approximation; weights known (design
weights, not estimated); no finite-population correction. Without a stated
prevalence the class of a unit is random, so the variance includes that of
the (weighted) sample prevalence, on which average precision depends.

References
----------
Binder, D. A. (1983). On the variances of asymptotically normal estimators
from complex surveys. International Statistical Review 51, 279-292.
Deville, J.-C. (1999). Variance estimation for complex statistics and
estimators: linearization and residual techniques. Survey Methodology 25, 193-203.
DeLong, E. R., DeLong, D. M., Clarke-Pearson, D. L. (1988). Comparing the
areas under two or more correlated ROC curves. Biometrics 44, 837-845.
Obuchowski, N. A. (1997). Nonparametric analysis of clustered ROC curve
data. Biometrics 53, 567-578.
Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
curve: point estimates and confidence intervals. ECML PKDD, Eq. (9).
"""

from __future__ import annotations

import attrs
import numpy as np

from ..estimators.prevalence import at_prevalence, negative_weight
from ..estimators.roc import a_prime, placement_values
from ..estimators.tie_blocks import DEFAULT_TIES, crossing_precision
from ..resample.designs import target_rows
from ..ties import TieTable
from .closed_form import logit_interval

__all__ = ["Gradient", "InfluenceVariance", "a_prime_gradient", "average_precision_gradient", "design_variance",
           "influence_method", "influence_note", "influence_variance", "weighted_delong_se"]

# Series of psi_1(u) = c^2 I_1 and psi_2(u) = c^2 I_2 in u = d / c, for small u where the closed
# forms cancel: psi_1 = sum_{k>=2} (-1)^k (k-1)/k u^(k-2), psi_2 = sum_{k>=3} (-1)^(k+1) (k-2)/k u^(k-3).
_SMALL = 0.05
_PSI1 = np.array([(-1) ** k * (k - 1) / k for k in range(2, 18)])[::-1]
_PSI2 = np.array([(-1) ** (k + 1) * (k - 2) / k for k in range(3, 19)])[::-1]


@attrs.frozen(eq=False)
class Gradient:
    """The estimate and its derivatives with respect to the counts of every tie row.

    Attributes
    ----------
    estimate : ndarray of float64, shape (n_segments,)
    pos, neg : ndarray of float64, shape (n_rows,)
        :math:`\\partial\\theta/\\partial p_k` and :math:`\\partial\\theta/\\partial n_k`:
        a unit of weight ``w`` in row ``k`` contributes ``w * pos[k]`` (a
        positive) or ``w * neg[k]`` (a negative) to the linearisation.
    """

    estimate: np.ndarray
    pos: np.ndarray
    neg: np.ndarray


def _crossing_integrals(c: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r""":math:`I_j = \int_0^1 t^j/(c+dt)^2\,dt` for ``j = 0, 1, 2`` and ``c > 0``, ``d >= 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        u = d / c
        log1p = np.log1p(u)
        # closed forms: c^2 I_1 = (log(1+u) - u/(1+u)) / u^2, c^2 I_2 = (u - 2 log(1+u) + u/(1+u)) / u^3
        psi1 = np.where(u < _SMALL, np.polyval(_PSI1, u), (log1p - u / (1 + u)) / (u * u))
        psi2 = np.where(u < _SMALL, np.polyval(_PSI2, u), (u - 2 * log1p + u / (1 + u)) / (u * u * u))
        c2 = c * c
        return 1.0 / (c2 * (1.0 + u)), psi1 / c2, psi2 / c2


def _suffix_below(ties: TieTable, values: np.ndarray) -> np.ndarray:
    """Per row, the sum of ``values`` over the rows strictly below it in its segment."""
    total = ties.segment_sum(values)
    below = (total[0] if ties.n_segments == 1 else np.repeat(total, ties.lengths)) - ties.segment_cumsum(values)
    return below


def _precision_partials(ties: TieTable, tie_blocks: str):
    """Per row: the precision a positive there gets, and its partials in ``a, f, b, n``."""
    pos, neg = ties.pos.astype(np.float64), ties.neg.astype(np.float64)
    # running sums started at each segment's first row (TieTable.segment_cumsum), so the counts above
    # a segment's top rows are exactly 0 (c = 0 below), whatever the segments before it hold
    tp, fp = ties.tp().astype(np.float64), ties.fp().astype(np.float64)
    admitted = tp + fp
    with np.errstate(divide="ignore", invalid="ignore"):
        # the bottom of the block: Prec = (a + b) / (a + b + f + n); d/da = d/db, d/df = d/dn
        prec = np.where(admitted > 0, tp / admitted, 0.0)
        d_tp = np.where(admitted > 0, fp / (admitted * admitted), 0.0)
        d_fp = np.where(admitted > 0, -tp / (admitted * admitted), 0.0)
    d_a, d_b, d_f, d_n = d_tp, d_tp.copy(), d_fp, d_fp.copy()
    if tie_blocks == "interpolate":
        mixed = np.flatnonzero((pos > 0) & (neg > 0))
        b, n = pos[mixed], neg[mixed]
        a, f = tp[mixed] - b, fp[mixed] - n
        c, d = a + f, b + n
        prec[mixed] = crossing_precision(a, f, b, n)
        inside = c > 0
        i0, i1, i2 = _crossing_integrals(np.where(inside, c, 1.0), d)
        # a block at the top (c = 0) has precision b / d; no unit lies above it, so d/da = d/df = 0 there
        d_a[mixed] = np.where(inside, f * i0 + n * i1, 0.0)
        d_f[mixed] = np.where(inside, -(a * i0 + b * i1), 0.0)
        d_b[mixed] = np.where(inside, f * i1 + n * i2, n / (d * d))
        d_n[mixed] = np.where(inside, -(a * i1 + b * i2), -b / (d * d))
    return prec, d_a, d_b, d_f, d_n


def _ap_gradient(ties: TieTable, tie_blocks: str) -> Gradient:
    pos = ties.pos.astype(np.float64)
    n_pos = ties.segment_sum(pos)
    prec, d_a, d_b, d_f, d_n = _precision_partials(ties, tie_blocks)
    own = np.where(pos > 0, pos * prec, 0.0)
    estimate = np.divide(ties.segment_sum(own), n_pos, out=np.full(n_pos.shape, np.nan), where=n_pos > 0)
    # dS/dp_j and dS/dn_j: the row's own term, then every row below through its a (or f)
    ds_pos = prec + pos * d_b + _suffix_below(ties, pos * d_a)
    ds_neg = pos * d_n + _suffix_below(ties, pos * d_f)
    per_row = ties.segment_ids() if ties.n_segments > 1 else np.zeros(ties.n_rows, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = 1.0 / n_pos
        g_pos = (ds_pos - estimate[per_row]) * scale[per_row]
        g_neg = ds_neg * scale[per_row]
    return Gradient(estimate, g_pos, g_neg)


def average_precision_gradient(ties: TieTable, tie_blocks: str = DEFAULT_TIES,
                               prevalence: float | None = None) -> Gradient:
    r"""Average precision (Eq. 9) of each segment and its gradient in the counts of every row.

    Parameters
    ----------
    ties : TieTable
        Integer or weighted (float64) counts, one segment per group.
    tie_blocks : {"interpolate", "published"}
        How a block holding both classes is crossed, as
        :func:`~aucpr_stats.estimators.average_precision`; ``"interpolate"``
        linearises the Davis-Goadrich crossing exactly (module docstring).
    prevalence : float, optional
        A stated population prevalence: the estimate and gradient of the
        reweighted estimator (:mod:`aucpr_stats.estimators.prevalence`).

    Returns
    -------
    Gradient

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable([3.0, 2.0, 1.0], [1, 0, 1], [0, 1, 0], [0, 3])
    >>> g = average_precision_gradient(t)
    >>> float(g.estimate[0]), round(float(g.neg[1]), 6)  # (1 + 2/3) / 2; one more negative in the middle
    (0.8333333333333333, -0.111111)
    """
    if prevalence is None:
        return _ap_gradient(ties, tie_blocks)
    # chain rule through lambda = P (1 - pi) / (N pi): d lambda/dp = lambda / P, d lambda/dn = -lambda / N
    weight = negative_weight(ties, prevalence)
    inner = _ap_gradient(at_prevalence(ties, prevalence), tie_blocks)
    lam = weight if ties.n_segments == 1 else np.repeat(weight, ties.lengths)
    reweighted_neg = ties.neg * lam
    big_g = ties.segment_sum(reweighted_neg * np.nan_to_num(inner.neg))
    per_row = ties.segment_ids()
    with np.errstate(divide="ignore", invalid="ignore"):
        g_pos = inner.pos + (big_g / ties.n_pos)[per_row]
        g_neg = lam * inner.neg - (big_g / ties.n_neg)[per_row]
    return Gradient(inner.estimate, g_pos, g_neg)


def a_prime_gradient(ties: TieTable) -> Gradient:
    r"""A' of each segment and its gradient: :math:`(V_{10}-A)/P` per positive, :math:`(V_{01}-A)/N` per negative.

    The placement values are the (weighted) midrank placements of
    :func:`~aucpr_stats.estimators.roc.placement_values`; ``P`` and ``N``
    the (weighted) class totals.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable([3.0, 2.0, 1.0], [1, 1, 0], [0, 1, 1], [0, 3])
    >>> g = a_prime_gradient(t)
    >>> float(g.estimate[0]), float(g.pos[0]), float(g.neg[2])  # A' = 0.875; (1 - .875)/2; (1 - .875)/2
    (0.875, 0.0625, 0.0625)
    """
    auc = a_prime(ties)
    v10, v01 = placement_values(ties)
    per_row = ties.segment_ids()
    with np.errstate(divide="ignore", invalid="ignore"):
        g_pos = (v10 - auc[per_row]) / ties.n_pos[per_row]
        g_neg = (v01 - auc[per_row]) / ties.n_neg[per_row]
    return Gradient(auc, g_pos, g_neg)


@attrs.frozen(eq=False)
class InfluenceVariance:
    """The linearisation variance of one estimate per group, and its units.

    Attributes
    ----------
    variance : ndarray of float64, shape (n_groups,)
        NaN where a class has fewer than two units (see ``note``).
    units_pos, units_neg : ndarray of int64, shape (n_groups,)
        Units holding positives, negatives (rows, or clusters).
    note : ndarray of str, shape (n_groups,)
        Why the variance is NaN, or ``""``.
    """

    variance: np.ndarray
    units_pos: np.ndarray
    units_neg: np.ndarray
    note: np.ndarray

    @property
    def se(self) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.sqrt(self.variance)


def _factor(count: np.ndarray) -> np.ndarray:
    """``n / (n - 1)``, NaN below two units."""
    count = np.asarray(count, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count >= 2, count / (count - 1.0), np.nan)


def _notes(units_pos, units_neg, unit: str) -> np.ndarray:
    note = np.full(units_pos.size, "", dtype=object)
    note[units_neg < 2] = f"the influence variance needs >= 2 {unit} holding negatives"
    note[units_pos < 2] = f"the influence variance needs >= 2 {unit} holding positives"
    return note.astype(str)


def influence_variance(ties: TieTable, gradient: Gradient, *, cells=None, clusters: TieTable | None = None,
                       cluster_group=None) -> InfluenceVariance:
    r"""The sum of squared unit terms with the ``n/(n-1)`` factors (module docstring), per group.

    Parameters
    ----------
    ties : TieTable
        One segment per group: the table the gradient was taken on (weighted
        counts with ``weights=``).
    gradient : Gradient
        From :func:`average_precision_gradient` or :func:`a_prime_gradient` on ``ties``.
    cells : WeightedCells, optional
        With ``weights=`` (``result.weighted_cells``): rows counted per
        (score, weight) cell; a cell of ``k`` rows of weight ``w`` adds
        :math:`k w^2 g^2`, and the factors count rows.
    clusters, cluster_group : TieTable and array of int, optional
        With ``cluster=`` (``result.clusters.ties`` and ``.group``): one
        segment per (group, cluster), weighted or not; the unit is the
        cluster.

    Returns
    -------
    InfluenceVariance
    """
    n_groups = ties.n_segments
    g_pos, g_neg = np.nan_to_num(gradient.pos), np.nan_to_num(gradient.neg)
    if clusters is not None:
        unit_group = np.asarray(cluster_group, dtype=np.int64)
        target = target_rows(ties, np.repeat(unit_group, clusters.lengths), clusters.score)
        # per cluster: the sum of its positives' (negatives') terms, weights inside the counts
        a = clusters.segment_sum(clusters.pos * g_pos[target])
        b = clusters.segment_sum(clusters.neg * g_neg[target])
        m, n = clusters.n_pos, clusters.n_neg

        def per_group(values):
            return np.bincount(unit_group, weights=values, minlength=n_groups)

        units_pos = per_group(m > 0).astype(np.int64)
        units_neg = per_group(n > 0).astype(np.int64)
        units = per_group((m > 0) | (n > 0))
        with np.errstate(invalid="ignore"):
            variance = (_factor(units_pos) * per_group(a * a) + _factor(units_neg) * per_group(b * b)
                        + 2.0 * _factor(units) * per_group(a * b))
        unit = "clusters"
    elif cells is not None:
        table, w = cells.cells, cells.weight
        g = cells.target
        units_pos, units_neg = table.n_pos.astype(np.int64), table.n_neg.astype(np.int64)
        with np.errstate(invalid="ignore"):
            variance = (_factor(units_pos) * table.segment_sum(table.pos * (w * g_pos[g]) ** 2)
                        + _factor(units_neg) * table.segment_sum(table.neg * (w * g_neg[g]) ** 2))
        unit = "rows"
    else:
        units_pos = np.rint(ties.n_pos).astype(np.int64)
        units_neg = np.rint(ties.n_neg).astype(np.int64)
        with np.errstate(invalid="ignore"):
            variance = (_factor(units_pos) * ties.segment_sum(ties.pos * g_pos ** 2)
                        + _factor(units_neg) * ties.segment_sum(ties.neg * g_neg ** 2))
        unit = "rows"
    note = _notes(units_pos, units_neg, unit)
    variance = np.where(note == "", np.maximum(variance, 0.0), np.nan)
    return InfluenceVariance(variance, units_pos, units_neg, note)


def design_variance(result, gradient: Gradient) -> InfluenceVariance:
    """:func:`influence_variance` for a result's design: clusters (``cluster=``), weighted rows, or rows."""
    clusters = getattr(result, "clusters", None)
    if clusters is not None:
        return influence_variance(result.ties, gradient, clusters=clusters.ties, cluster_group=clusters.group)
    return influence_variance(result.ties, gradient, cells=getattr(result, "weighted_cells", None))


def _ap_design_variance(request) -> InfluenceVariance:
    """Average precision's linearisation variance for the request's result, computed once per request.

    The tie convention is that of the result's average precision record (the
    method serves only it).
    """
    if "influence" not in request.extras:
        result = request.result
        prevalence = result.stated_prevalence
        tie_blocks = request.estimators[0].ties  # served: average precision only, one record
        gradient = average_precision_gradient(result.ties, tie_blocks,
                                              None if prevalence is None else float(prevalence))
        request.extras["influence"] = design_variance(result, gradient)
    return request.extras["influence"]


def influence_method(request) -> dict:
    r"""The ``"influence"`` interval of average precision: logit-scale Wald with the linearisation SE.

    :math:`\mathrm{logit}(\hat\theta) \pm z\,\widehat{se}/(\hat\theta(1-\hat\theta))`,
    mapped back (:func:`~aucpr_stats.intervals.closed_form.logit_interval`).
    """
    se = request.blank()
    if request.usable.size:
        variance = _ap_design_variance(request)
        se[request.usable, :] = variance.se[request.usable, None]
    with np.errstate(invalid="ignore"):
        lower, upper, se = logit_interval(request.result.estimates, se, request.level)
    return {"lower": lower, "upper": upper, "se": se}


def influence_note(request, computed) -> np.ndarray:
    """Per-row notes: why the linearisation variance is undefined."""
    notes = np.full(request.shape, None, dtype=object)
    if request.usable.size:
        reason = _ap_design_variance(request).note
        for g in request.usable[reason[request.usable] != ""]:
            notes[g, :] = str(reason[g])
    return notes


def weighted_delong_se(result) -> np.ndarray:
    """DeLong's standard error of A' from the weighted table and cells, per group (the weighted DeLong)."""
    return design_variance(result, a_prime_gradient(result.ties)).se
