r"""The flexible calibration curve and its summaries: ICI, E50, E90, Emax (Austin & Steyerberg 2019).

The curve :math:`\hat c(p)` is a logistic regression of the outcome on a
restricted cubic spline of :math:`x = \mathrm{logit}\,p` (Harrell 2015,
section 2.4.5): linear beyond the outer knots, with ``K`` knots at Harrell's
quantiles of ``x`` over the rows (:data:`KNOT_QUANTILES`; with fewer than 100
rows the outer knots move to the 5th smallest and largest values, as
``Hmisc::rcspline.eval`` places them). Fitted by maximum likelihood on the tie
table (:mod:`.logistic_fit`), it is exact, weighted, the same for a group
alone or among 10^5, and costs O(distinct predictions) per iteration.

Why a spline and not loess: a loess curve is a local fit around every row
(O(n^2) unless interpolated on a grid, as R's default surface is), has no
likelihood for weights or clusters, and its span is tuned by eye; the
spline fit is a GLM, so it reads the tie table directly and its
uncertainty comes from the same bootstrap as everything else. Austin &
Steyerberg (2019, Stat Med 38:4051) found the ICI from restricted cubic
splines and from loess close. rms' ``val.prob`` computes its Eavg, E90 and
Emax from ``lowess``: those three agree with the values here only
approximately (the reference tests say by how much).

The summaries are over the rows (each tie row counted with its events and
non-events): ICI is the mean of :math:`|\hat c(p) - p|`, E50 and E90 its
median and 90th percentile (R's default quantile, type 7, with integer
counts), Emax its maximum.
"""

from __future__ import annotations

import numpy as np

from ..distributions import expit
from ..ties import TieTable
from .calibration import cached, logit_rows, population
from .logistic_fit import LogisticFit, fit_logistic

__all__ = ["KNOT_QUANTILES", "DEFAULT_KNOTS", "knots_of", "spline_basis", "calibration_curve", "curve_at",
           "ici", "e50", "e90", "emax", "segment_quantile", "FEW_DISTINCT"]

#: Harrell's knot quantiles for 3 to 7 knots (Harrell 2015, Table 2.3; ``Hmisc::rcspline.eval``).
KNOT_QUANTILES = {
    3: (0.1, 0.5, 0.9),
    4: (0.05, 0.35, 0.65, 0.95),
    5: (0.05, 0.275, 0.5, 0.725, 0.95),
    6: (0.05, 0.23, 0.41, 0.59, 0.77, 0.95),
    7: (0.025, 0.1833, 0.3417, 0.5, 0.6583, 0.8167, 0.975),
}
#: Four knots: Harrell's default for a moderate sample (3 for small ones, 5 for large).
DEFAULT_KNOTS = 4
FEW_DISTINCT = "too few distinct predictions for a flexible calibration curve with {k} knots"


class _Sorted:
    """One segment-wise sort of ``values`` with their counts, read for any order statistic or quantile."""

    def __init__(self, values: np.ndarray, counts: np.ndarray, ties: TieTable, ascending_order=None):
        order = np.lexsort((values, ties.segment_ids())) if ascending_order is None else ascending_order
        self.values = values[order]
        self.running = np.cumsum(counts[order].astype(np.float64))
        self.base = np.concatenate([[0.0], self.running])[ties.offsets[:-1]]  # counts before each segment
        self.total = ties.segment_sum(counts.astype(np.float64))

    def kth(self, j: np.ndarray) -> np.ndarray:
        """The ``j``-th (0-based) smallest counted value of each segment, ``j`` clipped into the segment."""
        j = np.clip(np.broadcast_to(np.asarray(j, dtype=np.float64), self.total.shape), 0.0,
                    np.maximum(self.total - 1.0, 0.0))
        at = np.searchsorted(self.running, self.base + j, side="right")
        return self.values[np.minimum(at, self.values.size - 1)]

    def quantile(self, q: float, weighted: bool) -> np.ndarray:
        total = self.total
        out = np.full(total.shape, np.nan)
        if weighted:  # the first counted row whose running share reaches q (q = 0: the smallest counted value)
            ok = total > 0.0
            target = self.base[ok] + np.maximum(q * total[ok], np.finfo(np.float64).tiny)
            at = np.searchsorted(self.running, target * (1.0 - 1e-12), side="left")
            out[ok] = self.values[np.minimum(at, self.values.size - 1)]
            return out
        ok = total >= 1.0
        h = (total - 1.0) * q
        low = np.floor(h)
        lower, upper = self.kth(low), self.kth(low + 1.0)
        out[ok] = (lower + (h - low) * (upper - lower))[ok]
        return out


def segment_quantile(values: np.ndarray, counts: np.ndarray, ties: TieTable, q: float,
                     ascending_order: np.ndarray | None = None, weighted: bool = False) -> np.ndarray:
    """The quantile ``q`` of ``values`` (one per row, each counted ``counts`` times) in every segment.

    Counts of rows: R's default (type 7), interpolating between order
    statistics. Weights (``weighted=True``): the smallest value whose
    cumulative share of the weight reaches ``q`` (the weighted inverse
    distribution function), which does not change when every weight is
    multiplied by one factor. ``ascending_order``: the row indices that sort
    ``values`` ascending within each segment; computed when omitted.
    """
    return _Sorted(values, counts, ties, ascending_order).quantile(q, weighted)


def knots_of(ties: TieTable, x: np.ndarray, k: int, weighted: bool = False) -> np.ndarray:
    """(segments, k) knots at Harrell's quantiles of the logits ``x`` over each segment's counted rows.

    With weights the weighted quantiles, and no small-sample rule (it counts rows).
    """
    sorted_x = _Sorted(x, (ties.pos + ties.neg).astype(np.float64), ties)  # one sort for every knot
    knots = np.column_stack([sorted_x.quantile(q, weighted) for q in KNOT_QUANTILES[k]])
    small = (sorted_x.total < 100) & (not weighted)  # Hmisc: the outer knots at the 5th smallest and largest
    if small.any():
        knots[small, 0] = sorted_x.kth(4.0)[small]
        knots[small, -1] = sorted_x.kth(sorted_x.total - 5.0)[small]
    return knots


def spline_basis(x: np.ndarray, knots: np.ndarray) -> np.ndarray:
    """Harrell's restricted cubic spline terms of ``x`` (one row of ``knots`` per entry): shape (n, k - 2).

    Divided by the squared range of the knots (``Hmisc``'s ``norm=2``), which changes no fitted value.
    """
    t = knots
    k = t.shape[1]
    last, before = t[:, -1], t[:, -2]
    span = last - before

    def cube(u: np.ndarray) -> np.ndarray:
        return np.maximum(u, 0.0) ** 3

    terms = [(cube(x - t[:, j]) - cube(x - before) * (last - t[:, j]) / span
              + cube(x - last) * (before - t[:, j]) / span) / (last - t[:, 0]) ** 2 for j in range(k - 2)]
    return np.column_stack(terms) if terms else np.zeros((x.size, 0))


def calibration_curve(ties: TieTable, k: int = DEFAULT_KNOTS, weighted: bool = False,
                      prevalence: float | None = None) -> tuple[LogisticFit, np.ndarray, np.ndarray]:
    """The spline fit of every segment, its knots (segments, k), and the fitted logit at every tie row.

    NaN where a segment has fewer than ``k`` distinct knots or the fit does
    not converge (quasi-separation).
    """
    def compute():
        kept, x = logit_rows(population(ties, prevalence))  # at a stated prevalence: the controls reweighted
        knots = knots_of(kept, x, k, weighted or prevalence is not None)
        ok = (kept.n_pos > 0) & (kept.n_neg > 0) & np.all(np.diff(knots, axis=1) > 0, axis=1)
        per_row = np.repeat(np.where(ok[:, None], knots, np.linspace(-1.0, 1.0, k)[None, :]), kept.lengths, axis=0)
        design = np.column_stack([np.ones(kept.n_rows), x, spline_basis(x, per_row)])
        start = np.concatenate([[0.0, 1.0], np.zeros(k - 2)])
        coef = np.full((kept.n_segments, k), np.nan)
        information = np.full((kept.n_segments, k, k), np.nan)
        converged = np.zeros(kept.n_segments, dtype=bool)
        if ok.any():
            keep_rows = np.repeat(ok, kept.lengths)
            sub = kept if ok.all() else kept.take(np.flatnonzero(ok))
            fit = fit_logistic(sub, design[keep_rows], np.zeros(sub.n_rows), start)
            coef[ok], information[ok], converged[ok] = fit.coef, fit.information, fit.converged
        coef[~converged] = np.nan
        fitted = np.einsum("rk,rk->r", design, np.repeat(coef, kept.lengths, axis=0))
        return LogisticFit(coef, information, converged), knots, fitted
    return cached(ties, f"curve{k}{'w' * weighted}@{prevalence!r}", compute)


def curve_at(ties: TieTable, k: int, prevalence: float | None = None, weighted: bool = False) -> np.ndarray:
    """The calibrated probability :math:`\\hat c(p)` at every tie row (fitted at a stated prevalence)."""
    _, _, fitted = calibration_curve(ties, k, weighted, prevalence)
    return expit(fitted)


def _errors(ties: TieTable, k: int, prevalence: float | None, weighted: bool) -> tuple[np.ndarray, np.ndarray]:
    """:math:`|\\hat c(p) - p|` at every row, and its count (0 at p of 0 or 1; non-events reweighted at a prevalence)."""
    p = ties.score
    usable = (p > 0.0) & (p < 1.0)
    table = population(ties, prevalence)
    counts = np.where(usable, table.pos + table.neg, 0.0)
    return np.abs(curve_at(ties, k, prevalence, weighted) - p), counts


def _summary(ties: TieTable, k: int, prevalence: float | None, q: float | None, weighted: bool) -> np.ndarray:
    fit, _, _ = calibration_curve(ties, k, weighted, prevalence)
    d, counts = _errors(ties, k, prevalence, weighted)
    d = np.where(np.isfinite(d), d, 0.0)
    if q is None:
        value = ties.segment_sum(counts * d) / ties.segment_sum(counts)
    elif q == 1.0:
        value = np.full(ties.n_segments, -np.inf)
        counted = counts > 0
        np.maximum.at(value, ties.segment_ids()[counted], d[counted])
    else:
        value = segment_quantile(d, counts, ties, q, weighted=weighted)
    return np.where(fit.converged, value, np.nan)


def ici(ties: TieTable, prevalence: float | None = None, knots: int = DEFAULT_KNOTS,
        weighted: bool = False) -> np.ndarray:
    """The integrated calibration index: the mean of :math:`|\\hat c(p) - p|` over the rows."""
    return _summary(ties, knots, prevalence, None, weighted)


def e50(ties: TieTable, prevalence: float | None = None, knots: int = DEFAULT_KNOTS,
        weighted: bool = False) -> np.ndarray:
    """The median of :math:`|\\hat c(p) - p|` over the rows."""
    return _summary(ties, knots, prevalence, 0.5, weighted)


def e90(ties: TieTable, prevalence: float | None = None, knots: int = DEFAULT_KNOTS,
        weighted: bool = False) -> np.ndarray:
    """The 90th percentile of :math:`|\\hat c(p) - p|` over the rows."""
    return _summary(ties, knots, prevalence, 0.9, weighted)


def emax(ties: TieTable, prevalence: float | None = None, knots: int = DEFAULT_KNOTS,
        weighted: bool = False) -> np.ndarray:
    """The largest :math:`|\\hat c(p) - p|` over the rows."""
    return _summary(ties, knots, prevalence, 1.0, weighted)
