r"""The Kaplan-Meier estimate of the censoring distribution, within each censoring cell, for one or many weightings.

The censoring-weighted areas weight a case (an event at :math:`T_i \le t`)
by :math:`1/\hat G(T_i-)` and a control (:math:`T_j > t`) by
:math:`1/\hat G(t)`, with :math:`\hat G` the Kaplan-Meier estimate of the
survival function of the censoring time (Uno et al. 2007; Blanche,
Dartigues & Jacqmin-Gadda 2013, section 2.2):

.. math::

    \hat G(s) = \prod_{u \le s} \Bigl(1 - \frac{\Delta N^C(u)}{Y(u)}\Bigr),

where :math:`\Delta N^C(u)` is the (weighted) number censored at time
:math:`u` and :math:`Y(u)` the (weighted) number still at risk of being
censored there: at a time shared by events and censorings the events count
as happening first, so :math:`Y(u)` holds the rows with :math:`T > u` and
those censored at :math:`u`, not the events at :math:`u` (the convention of
riskRegression and prodlim's reverse Kaplan-Meier).

A *cell* is a group, or a group and a censoring stratum
(``censoring_strata=``): each cell gets its own fit. The fit is made for a
matrix of weightings at once (the rows of ``weights``), which is how the
bootstrap re-fits :math:`\hat G` in every replicate: a replicate's row
multiplicities times the caller's weights are one weighting.

Rows must be sorted by cell, then time (:mod:`aucpr_stats.survival.rows`).
"""

from __future__ import annotations

import attrs
import numpy as np

from ..ties import segment_cumsum

__all__ = ["CensoringFit", "fit_censoring"]


@attrs.frozen(eq=False)
class CensoringFit:
    """Kaplan-Meier fits of the censoring distribution, one per cell and weighting.

    Attributes
    ----------
    times : ndarray of float64, shape (L,)
        The distinct observed times of each cell, ascending, cell after cell.
    offsets : ndarray of int64, shape (n_cells + 1,)
        Cell ``c`` owns ``times[offsets[c]:offsets[c+1]]``.
    row_index : ndarray of int64, shape (n,)
        Each row's time as an index into ``times``.
    at_risk : ndarray of float64, shape (R, L)
        :math:`Y(u)`, the weight at risk of being censored at :math:`u`
        (:math:`T > u`, or censored at :math:`u`).
    hazard : ndarray of float64, shape (R, L)
        :math:`\\Delta N^C(u) / Y(u)` (0 where nobody is at risk).
    survival : ndarray of float64, shape (R, L)
        :math:`\\hat G(u)`, just after each time.
    """

    times: np.ndarray
    offsets: np.ndarray
    row_index: np.ndarray
    at_risk: np.ndarray
    hazard: np.ndarray
    survival: np.ndarray

    @property
    def n_cells(self) -> int:
        return self.offsets.size - 1

    def grid_cell(self) -> np.ndarray:
        """The cell of every grid time, shape (L,)."""
        return np.repeat(np.arange(self.n_cells), np.diff(self.offsets))

    def before_rows(self) -> np.ndarray:
        r""":math:`\hat G(T_i-)` of every row, shape (R, n): the fit just before the row's own time."""
        previous = self.row_index - 1
        first = self.row_index == self.offsets[self.grid_cell()[self.row_index]]
        values = self.survival[:, np.maximum(previous, 0)]
        values[:, first] = 1.0
        return values

    def counts_up_to(self, horizons: np.ndarray) -> np.ndarray:
        """Per horizon and cell, how many of the cell's grid times are at or before it, shape (H, n_cells)."""
        starts = self.offsets[:-1]
        return np.stack([np.add.reduceat((self.times <= t).astype(np.int64), starts) for t in horizons])

    def at_horizons(self, horizons: np.ndarray) -> np.ndarray:
        r""":math:`\hat G(t)` per weighting, horizon and cell, shape (R, H, n_cells)."""
        counts = self.counts_up_to(horizons)
        index = self.offsets[:-1][None, :] + counts - 1
        values = self.survival[:, np.maximum(index, 0)]
        values[:, counts == 0] = 1.0
        return values


def fit_censoring(cell: np.ndarray, time: np.ndarray, event: np.ndarray, weights: np.ndarray) -> CensoringFit:
    """Kaplan-Meier fits of the censoring survival function per cell, for every row of ``weights``.

    Parameters
    ----------
    cell : ndarray of int64, shape (n,)
        Cell codes 0..n_cells-1, rows sorted by cell then time; every cell has rows.
    time : ndarray of float64, shape (n,)
    event : ndarray of bool, shape (n,)
        True for an event, False for a censored time.
    weights : ndarray of float64, shape (R, n)
        One weighting per row (the caller's weights, times bootstrap multiplicities).

    Returns
    -------
    CensoringFit

    Examples
    --------
    >>> import numpy as np
    >>> fit = fit_censoring(np.zeros(4, int), np.array([1.0, 2.0, 2.0, 3.0]),
    ...                     np.array([True, False, True, False]), np.ones((1, 4)))
    >>> fit.survival.round(4).tolist()  # 1 - 1/2 at time 2 (the event there first: two at risk), 0 at 3
    [[1.0, 0.5, 0.0]]
    """
    n = time.size
    new = np.ones(n, dtype=bool)
    new[1:] = (cell[1:] != cell[:-1]) | (time[1:] != time[:-1])
    starts = np.flatnonzero(new)
    row_index = np.cumsum(new) - 1
    grid_cell = cell[starts]
    offsets = np.searchsorted(grid_cell, np.arange(int(cell.max(initial=-1)) + 2))
    weights = np.atleast_2d(weights)
    total = np.add.reduceat(weights, starts, axis=1)
    censored = np.add.reduceat(weights * ~event, starts, axis=1)
    # the weight at times >= u within the cell, summed from the cell's last time (each cell alone), less the
    # events at u: they happen first and are no longer at risk of being censored
    reversed_offsets = offsets[-1] - offsets[::-1]
    at_risk = segment_cumsum(total[:, ::-1], reversed_offsets)[:, ::-1] - (total - censored)
    at_risk[at_risk < 0] = 0.0  # rounding of a difference of sums: nobody left
    with np.errstate(divide="ignore", invalid="ignore"):
        hazard = np.where(at_risk > 0, censored / at_risk, 0.0)
    hazard = np.minimum(hazard, 1.0)
    return CensoringFit(times=time[starts], offsets=offsets, row_index=row_index, at_risk=at_risk, hazard=hazard,
                        survival=_product_within(1.0 - hazard, offsets))


def _product_within(factors: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running products of ``factors`` along axis 1, restarted at every cell.

    A factor is 0 only where everybody left at risk is censored; the product
    is 0 from there on, and the logarithms are summed without it.
    """
    zero = factors <= 0.0
    product = np.exp(segment_cumsum(np.log(np.where(zero, 1.0, factors)), offsets))
    product[segment_cumsum(zero.astype(np.float64), offsets) > 0] = 0.0
    return product
