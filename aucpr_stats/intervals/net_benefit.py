r"""Intervals of net benefit: the exact linearisation (Wald) from counts, and the bootstrap.

Each net-benefit statistic (:mod:`aucpr_stats.estimators.net_benefit`) is
a ratio :math:`\theta = A/B` of sums over the rows in which a row's term
depends only on its class and on which side of the threshold its risk lies
(:class:`~aucpr_stats.estimators.net_benefit.Rule`). Its linearisation is
therefore one of four constants per group and threshold,

.. math::

    g = \frac{c - \theta\,d}{B}, \qquad
    c \in \{a_1, a_0, b_1, b_0\}, \quad d \in \{\alpha, \beta\},

and the variance :math:`\frac{n}{n-1}\sum_i w_i^2 g_i^2` (independent rows,
the number of events random: a cohort) needs only the number of rows, or the
sum of their squared weights, in each class on each side of each threshold:
counts, read in the same pass over the tie table as the estimate. With ``cluster=`` the terms
are summed within clusters first (:math:`\frac{C}{C-1}\sum_c (\sum_{i\in c}
w_i g_i)^2`, the cluster-robust sandwich). At a stated prevalence (a
case-control sample) each class is a sample of its own: the terms are
centred within the class, :math:`g = \pi (c - \bar A_1)/(P K)` for an event
and :math:`(1 - \pi)(c - \bar A_0)/(N K)` for a non-event, with the factors
:math:`m/(m-1)` of each class (Pepe, Janes & Longton 2013 for the variance of
the case-control net benefit; rmda's bootstrap resamples the same way).
For net benefit itself (a difference of proportions, linear in the counts) the
linearisation is exact and the interval is the Wald interval of a mean.

The bootstrap resamples rows whatever their class (the cohort), weighted
rows or whole clusters, or each class within itself at a stated prevalence
(:func:`~.bootstrap.bootstrap_method`), and re-reads the counts of every
replicate at every threshold in one pass.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..distributions import normal_quantile
from ..estimators.net_benefit import coefficients, rule, threshold_counts
from ..ties import TieTable
from .boundaries import join_notes
from .bootstrap import bootstrap_method, bootstrap_note

__all__ = ["Linearisation", "net_benefit_linearisation", "net_benefit_variance", "wald_method", "wald_note",
           "squared_cells", "unit_factor", "net_benefit_bootstrap", "bootstrap_skew_note", "equivalent_count",
           "moments_count", "MIN_EQUIVALENT_COUNT", "SKEWED_NOTE"]


@attrs.frozen(eq=False)
class Linearisation:
    """The four terms of every group and rule: an event or a non-event, at or above the threshold or below.

    Attributes
    ----------
    pos_above, pos_below, neg_above, neg_below : ndarray, shape (n_groups, n_rules)
    thresholds : ndarray, shape (T,)
        The distinct thresholds, ascending.
    column : ndarray of int, shape (n_rules,)
        The threshold of each rule (an index into ``thresholds``).
    """

    pos_above: np.ndarray
    pos_below: np.ndarray
    neg_above: np.ndarray
    neg_below: np.ndarray
    thresholds: np.ndarray
    column: np.ndarray


def net_benefit_linearisation(ties: TieTable, records, policy: str, harm: float,
                              prevalence: float | None) -> Linearisation:
    """The linearisation of every record (statistic at a threshold) in every segment of ``ties``."""
    rules = [rule(r.statistic, r.threshold, policy, harm) for r in records]
    thresholds = np.unique(np.array([r.threshold for r in rules], dtype=np.float64))
    column = np.searchsorted(thresholds, [r.threshold for r in rules])
    counts = threshold_counts(ties, thresholds)
    tp, fp = counts.tp[:, column], counts.fp[:, column]
    p, n = counts.n_pos[:, None], counts.n_neg[:, None]
    a1, a0, b1, b0, alpha, beta, scale = coefficients(rules)
    sum_pos, sum_neg = tp * a1 + (p - tp) * a0, fp * b1 + (n - fp) * b0
    with np.errstate(invalid="ignore", divide="ignore"):
        if prevalence is None:  # theta = scale * (sum_pos + sum_neg) / B
            b = alpha * p + beta * n
            raw = (sum_pos + sum_neg) / b
            cells = ((a1 - raw * alpha) / b, (a0 - raw * alpha) / b, (b1 - raw * beta) / b, (b0 - raw * beta) / b)
        else:  # theta = scale * (pi * sum_pos / P + (1 - pi) * sum_neg / N) / K; classes sampled apart
            pi = prevalence
            k = alpha * pi + beta * (1.0 - pi)
            mean_pos, mean_neg = sum_pos / p, sum_neg / n
            cells = (pi * (a1 - mean_pos) / (p * k), pi * (a0 - mean_pos) / (p * k),
                     (1.0 - pi) * (b1 - mean_neg) / (n * k), (1.0 - pi) * (b0 - mean_neg) / (n * k))
    return Linearisation(*(scale * c for c in cells), thresholds, column)


def unit_factor(count) -> np.ndarray:
    """``m / (m - 1)``, NaN below two units."""
    count = np.asarray(count, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count >= 2, count / (count - 1.0), np.nan)


def squared_cells(cells) -> TieTable:
    """The weighted cells as a table whose counts are the sums of the squared weights."""
    table, w2 = cells.cells, cells.weight ** 2
    return TieTable(table.score, table.pos * w2, table.neg * w2, table.offsets)


def net_benefit_variance(result, records, prevalence: float | None) -> tuple[np.ndarray, Linearisation]:
    """(variance, linearisation) of every group and record of a net-benefit result, for its design."""
    lin = net_benefit_linearisation(result.ties, records, result.policy, result.harm, prevalence)
    column, thresholds = lin.column, lin.thresholds
    clusters = getattr(result, "clusters", None)
    if clusters is not None:
        per = threshold_counts(clusters.ties, thresholds)
        g = clusters.group
        tp, fp = per.tp[:, column], per.fp[:, column]
        fn, tn = per.n_pos[:, None] - tp, per.n_neg[:, None] - fp
        a = tp * lin.pos_above[g] + fn * lin.pos_below[g]
        b = fp * lin.neg_above[g] + tn * lin.neg_below[g]
        n_groups = result.ties.n_segments

        def per_group(values: np.ndarray) -> np.ndarray:
            out = np.zeros((n_groups, values.shape[1]))
            np.add.at(out, g, values)
            return out

        units_pos = np.bincount(g, weights=per.n_pos > 0, minlength=n_groups)[:, None]
        units_neg = np.bincount(g, weights=per.n_neg > 0, minlength=n_groups)[:, None]
        units = np.bincount(g, minlength=n_groups)[:, None]
        with np.errstate(invalid="ignore"):
            if prevalence is None:
                variance = unit_factor(units) * per_group((a + b) ** 2)
            else:
                variance = (unit_factor(units_pos) * per_group(a * a) + unit_factor(units_neg) * per_group(b * b)
                            + 2.0 * unit_factor(units) * per_group(a * b))
        return variance, lin
    cells = getattr(result, "weighted_cells", None)
    if cells is not None:
        squares = threshold_counts(squared_cells(cells), thresholds)
        rows_pos, rows_neg = cells.cells.n_pos, cells.cells.n_neg
    else:
        squares = threshold_counts(result.ties, thresholds)
        rows_pos, rows_neg = result.ties.n_pos, result.ties.n_neg
    tp2, fp2 = squares.tp[:, column], squares.fp[:, column]
    fn2, tn2 = squares.n_pos[:, None] - tp2, squares.n_neg[:, None] - fp2
    pos = tp2 * lin.pos_above ** 2 + fn2 * lin.pos_below ** 2
    neg = fp2 * lin.neg_above ** 2 + tn2 * lin.neg_below ** 2
    with np.errstate(invalid="ignore"):
        if prevalence is None:
            variance = unit_factor(rows_pos + rows_neg)[:, None] * (pos + neg)
        else:
            variance = unit_factor(rows_pos)[:, None] * pos + unit_factor(rows_neg)[:, None] * neg
    return variance, lin


def wald_method(request) -> dict:
    """Wald intervals of every statistic at every threshold: estimate +- z * se (module docstring)."""
    result = request.result
    variance, _ = net_benefit_variance(result, request.estimators, result.stated_prevalence)
    with np.errstate(invalid="ignore"):
        se = np.sqrt(np.maximum(variance, 0.0))
    z = float(normal_quantile(0.5 + request.level / 2.0))
    estimate = result.estimates
    return {"lower": estimate - z * se, "upper": estimate + z * se, "se": se}


#: Below this equivalent count the Wald and bootstrap intervals under-cover: 54.9-92.3% (mean 79.6-92.3%) for
#: counts below 10 on the grid of benchmarks/net_benefit_coverage_results.md, at least 92.0% (mean 94.2-94.6%)
#: from 10 on.
MIN_EQUIVALENT_COUNT = 10.0
SKEWED_NOTE = ("few informative rows: the estimate is as skewed as a count below 10 (rows treated, or events "
               "left untreated, are few), so its interval may under-cover (benchmarks/net_benefit_coverage_results.md)")
_SE_ZERO = "a standard error of 0 (every row on one side of the threshold): the interval has no width"


def moments_count(n, second, third, fourth) -> np.ndarray:
    """The equivalent count ``n / max(skewness^2, excess kurtosis)`` of a mean of ``n`` centred terms.

    ``second``, ``third``, ``fourth``: the sums of the terms' powers. A
    Poisson count of mean ``m`` has skewness ``1/sqrt(m)`` and excess
    kurtosis ``1/m``; the mean of ``n`` terms of skewness ``g`` and excess
    kurtosis ``k`` has ``g/sqrt(n)`` and ``k/n``: the same as a count of
    ``n / max(g^2, k)``. 0 where the terms have no variance.
    """
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        m2, m3, m4 = second / n, third / n, fourth / n
        shape = np.maximum(m3 ** 2 / m2 ** 3, m4 / m2 ** 2 - 3.0)
        return np.where(m2 > 0, n / shape, 0.0)


def equivalent_count(result, records) -> np.ndarray:
    """(groups, records): the equivalent count of each estimate (:func:`moments_count`) from its four row terms.

    Rows are counted as rows (weights and clusters left aside): a measure of
    how many rows the estimate rests on, not of its variance. Every cell
    counts one row more than it holds, so that a cell the sample left empty
    still weighs (its term is the one that would skew the estimate).
    """
    lin = net_benefit_linearisation(result.ties, records, result.policy, result.harm, result.stated_prevalence)
    cells = getattr(result, "weighted_cells", None)
    counts = threshold_counts(result.ties if cells is None else cells.cells, lin.thresholds)
    tp, fp = counts.tp[:, lin.column], counts.fp[:, lin.column]
    # one more row in every cell: a cell the sample left empty (no treated non-event at a high threshold, no
    # untreated event at a low one) is where the skewness hides (benchmarks/net_benefit_coverage_results.md)
    frequency = (tp + 1.0, counts.n_pos[:, None] - tp + 1.0, fp + 1.0, counts.n_neg[:, None] - fp + 1.0)
    values = (lin.pos_above, lin.pos_below, lin.neg_above, lin.neg_below)
    n = (counts.n_pos + counts.n_neg)[:, None] + 4.0
    with np.errstate(invalid="ignore"):
        centre = sum(f * v for f, v in zip(frequency, values)) / n
        powers = [sum(f * (v - centre) ** k for f, v in zip(frequency, values)) for k in (2, 3, 4)]
    return moments_count(n, *powers)


def skew_notes(request, computed) -> np.ndarray:
    """The note of every row whose estimate has no variance or rests on few informative rows."""
    notes = np.full(request.shape, None, dtype=object)
    with np.errstate(invalid="ignore"):
        count = equivalent_count(request.result, request.estimators)
        notes[(count < MIN_EQUIVALENT_COUNT) & np.isfinite(request.result.estimates)] = SKEWED_NOTE
    notes[np.asarray(computed["se"]) == 0.0] = _SE_ZERO
    return notes


def wald_note(request, computed) -> np.ndarray:
    return skew_notes(request, computed)


def bootstrap_skew_note(request, computed) -> np.ndarray:
    """The bootstrap's own notes (replicates left out) and :func:`skew_notes`."""
    return join_notes(bootstrap_note(request, computed), skew_notes(request, computed))


def net_benefit_bootstrap(request) -> dict:
    """The net-benefit bootstrap: rows (weighted rows, clusters) whatever their class; at a stated prevalence,
    as a case-control sample was drawn, each class within itself."""
    return bootstrap_method(request, stratified=request.result.stated_prevalence is not None)
