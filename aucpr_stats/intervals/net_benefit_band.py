r"""A simultaneous band for net benefit over a range of thresholds (sup-t), from counts.

The Wald intervals of :mod:`.net_benefit` hold at each threshold; "the model
beats treating all from 5% to 20%" is a statement about every threshold at
once. The estimates at thresholds :math:`t_1 < \dots < t_T` are, to first
order, sums over the rows of their linearisations :math:`g_{ij}`, which
depend on the row's class and on which of the three regions of a pair of
thresholds its risk lies in (below both, between, above both). Their
covariance

.. math::

    \widehat{\mathrm{Cov}}(\hat\theta_j, \hat\theta_k) = \frac{n}{n-1}\sum_i w_i^2\, g_{ij}\, g_{ik}

therefore needs only the counts (or sums of squared weights) of each class
above each threshold, and with ``cluster=`` the terms summed per cluster.
The band is :math:`\hat\theta_j \pm c\,\widehat{se}_j` with :math:`c` the
``level`` quantile of :math:`\max_j |Z_j|`, :math:`Z \sim N(0, R)` and
:math:`R` the estimated correlation (the sup-t band of Montiel Olea &
Plagborg-Møller 2019; Hothorn, Bretz & Westfall 2008 for the max-t
quantile), drawn by Monte Carlo with one random stream per group. Thresholds
whose estimate has no variance (every row on one side) are held at their
estimate and left out of the maximum.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from ..distributions import normal_quantile
from ..estimators.net_benefit import threshold_counts
from ..exceptions import InputError
from ..resample import Streams
from .net_benefit import MIN_EQUIVALENT_COUNT, equivalent_count, net_benefit_linearisation, squared_cells, unit_factor

__all__ = ["simultaneous_band", "threshold_covariance", "sup_t_quantile"]

_SHAKY = ("the range holds thresholds where the estimate rests on few informative rows or has no variance "
          "(conf_int's notes say which): there the band is held near the estimate and may not hold its level")


def _pair_sums(count: np.ndarray, total: np.ndarray, above: np.ndarray, below: np.ndarray,
               thresholds: np.ndarray) -> np.ndarray:
    """sum over one class's rows of g_j g_k: (groups, T, T), from the counts above each threshold."""
    low_first = thresholds[:, None] <= thresholds[None, :]  # t_j <= t_k: the rows between are above t_j
    c_j, c_k = count[:, :, None], count[:, None, :]
    c_high = np.where(low_first, c_k, c_j)  # above both
    c_low = np.where(low_first, c_j, c_k)  # above the lower one
    between = c_low - c_high
    g_j_between = np.where(low_first, above[:, :, None], below[:, :, None])
    g_k_between = np.where(low_first, below[:, None, :], above[:, None, :])
    return (c_high * above[:, :, None] * above[:, None, :] + between * g_j_between * g_k_between
            + (total[:, None, None] - c_low) * below[:, :, None] * below[:, None, :])


def threshold_covariance(result, records, prevalence: float | None) -> np.ndarray:
    """The covariance of the estimates of ``records`` (one statistic, thresholds ascending): (groups, T, T)."""
    lin = net_benefit_linearisation(result.ties, records, result.policy, result.harm, prevalence)
    thresholds = lin.thresholds[lin.column]
    clusters = getattr(result, "clusters", None)
    n_groups = result.ties.n_segments
    if clusters is not None:
        per = threshold_counts(clusters.ties, lin.thresholds)
        g = clusters.group
        tp, fp = per.tp[:, lin.column], per.fp[:, lin.column]
        a = tp * lin.pos_above[g] + (per.n_pos[:, None] - tp) * lin.pos_below[g]
        b = fp * lin.neg_above[g] + (per.n_neg[:, None] - fp) * lin.neg_below[g]
        units = np.bincount(g, minlength=n_groups)
        out = np.zeros((n_groups, thresholds.size, thresholds.size))
        for k in np.unique(g):  # one small matrix product per group: its clusters' terms
            u = (a + b)[g == k]
            out[k] = u.T @ u
        return unit_factor(units)[:, None, None] * out
    cells = getattr(result, "weighted_cells", None)
    squares = threshold_counts(result.ties if cells is None else squared_cells(cells), lin.thresholds)
    rows = result.ties if cells is None else cells.cells
    pos = _pair_sums(squares.tp[:, lin.column], squares.n_pos, lin.pos_above, lin.pos_below, thresholds)
    neg = _pair_sums(squares.fp[:, lin.column], squares.n_neg, lin.neg_above, lin.neg_below, thresholds)
    if prevalence is None:
        return unit_factor(rows.n_pos + rows.n_neg)[:, None, None] * (pos + neg)
    return unit_factor(rows.n_pos)[:, None, None] * pos + unit_factor(rows.n_neg)[:, None, None] * neg


def sup_t_quantile(covariance: np.ndarray, level: float, n_draws: int, rng: np.random.Generator) -> float:
    """The ``level`` quantile of max_j |Z_j| / sd_j, Z ~ N(0, covariance), over the thresholds with a variance."""
    sd = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    keep = np.isfinite(sd) & (sd > 0)
    if not keep.any():
        return np.nan
    if keep.sum() == 1:
        return float(normal_quantile(0.5 + level / 2.0))
    corr = covariance[np.ix_(keep, keep)] / np.outer(sd[keep], sd[keep])
    values, vectors = np.linalg.eigh(corr)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))  # corr = root @ root.T (rank-deficient allowed)
    draws = np.abs(rng.standard_normal((n_draws, root.shape[1])) @ root.T).max(axis=1)
    return float(np.quantile(draws, level))


def simultaneous_band(result, low: float | None, high: float | None, level: float, *, statistic: str,
                      n_draws: int, rng: Any) -> pl.DataFrame:
    """The band frame of :meth:`aucpr_stats.results_net_benefit.NetBenefitResult.band`."""
    chosen = [j for j, r in enumerate(result.records) if r.statistic == statistic]
    if not chosen:
        raise InputError(f"`statistic` must be one the result holds {sorted({r.statistic for r in result.records})}; "
                         f"got {statistic!r}")
    thresholds = np.array([result.records[j].threshold for j in chosen])
    low = thresholds.min() if low is None else float(low)
    high = thresholds.max() if high is None else float(high)
    inside = [j for j, t in zip(chosen, thresholds) if low <= t <= high]
    if len(inside) < 2:
        raise InputError(f"a band needs at least two of the result's thresholds from {low:g} to {high:g}; "
                         f"got {len(inside)}")
    inside = sorted(inside, key=lambda j: result.records[j].threshold)
    records = [result.records[j] for j in inside]
    prevalence = result.stated_prevalence
    covariance = threshold_covariance(result, records, prevalence)
    estimate = result.estimates[:, inside]
    se = np.sqrt(np.clip(np.diagonal(covariance, axis1=1, axis2=2), 0.0, None))
    streams = Streams.for_keys(rng, result.keys, result.by, "net benefit band")
    usable = result.ties.has_both_classes()
    critical = np.full(result.n_groups, np.nan)
    for k in np.flatnonzero(usable):
        critical[k] = sup_t_quantile(covariance[k], level, n_draws, streams[k])
    z = float(normal_quantile(0.5 + level / 2.0))
    n_t = len(inside)
    groups = np.repeat(np.arange(result.n_groups), n_t)
    notes = np.array([result.notes[g] for g in groups], dtype=object)
    with np.errstate(invalid="ignore"):
        skewed = ((equivalent_count(result, records) < MIN_EQUIVALENT_COUNT) | (se == 0)) & np.isfinite(estimate)
    shaky = np.repeat(skewed.any(axis=1), n_t) & np.equal(notes, None)
    notes[shaky] = _SHAKY
    body = pl.DataFrame({
        "threshold": np.tile([r.threshold for r in records], result.n_groups),
        "estimate": estimate.ravel(), "se": se.ravel(),
        "lower": (estimate - z * se).ravel(), "upper": (estimate + z * se).ravel(),
        "lower_band": (estimate - critical[:, None] * se).ravel(),
        "upper_band": (estimate + critical[:, None] * se).ravel(),
        "critical": critical[groups], "level": np.full(groups.size, level),
        "note": pl.Series(notes.tolist(), dtype=pl.String)})
    return result.with_keys(body.insert_column(0, pl.Series("estimator", [statistic] * groups.size)), groups)
