"""The two exact samplers of a class's bootstrap counts (see :mod:`.counts` for the replicates they make).

* *unit by unit* (:class:`UnitSampler`): each of the ``N`` resampled units
  picks one of the ``N`` original units uniformly at random
  (``Generator.integers``) and the picks are counted per tie row; cost O(N)
  per replicate. Used when rows hold one or two units each (continuous scores);
* *Poisson with completion* (:class:`PoissonFillSampler`): independent
  Poisson counts per tie row, completed unit by unit to exactly ``N``; cost
  O(tie rows) per replicate. Used when rows hold many units (ties, or the
  reduced tables of :mod:`aucpr_stats.estimators.registry`).

:class:`ClassCounts` picks the cheaper one per segment. Each sampler's
``draw_later`` makes the random draws at once, in stream order, and returns a
function that counts them: the counting (a gather and a ``bincount``, about
twice the cost of the draws) then runs on whichever thread evaluates the
replicates, while the next draws are made.
"""

from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from ..distributions import poisson_cdf
from ..scratch import work_array
from ..ties import TieTable

__all__ = ["UnitSampler", "PoissonFillSampler", "ClassCounts"]


class UnitSampler:
    """Replicate counts of one class, segment by segment, by resampling its units one by one.

    Each of the ``N`` resampled units of a segment picks one of the segment's
    ``N`` original units (rows of this class) uniformly at random; the picks
    are counted per tie row. Cost O(N) per replicate.
    """

    def __init__(self, ties: TieTable, counts: np.ndarray):
        self.offsets = ties.offsets
        self.totals = ties.segment_sum(counts)

        # unit u of segment s is the u-th unit of this class in s, at row unit_row[u] of s
        local_row = np.arange(ties.n_rows, dtype=np.int64) - np.repeat(ties.offsets[:-1], ties.lengths)
        self.unit_row = np.repeat(local_row, counts)
        self.unit_start = np.zeros(ties.n_segments + 1, dtype=np.int64)
        np.cumsum(self.totals, out=self.unit_start[1:])

    def _rows(self, s: int, picks: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Tie row (within segment ``s``) of each picked unit of segment ``s``; ``picks`` is consumed."""
        if self.unit_start[s]:
            picks += self.unit_start[s]
        if out is None:
            return self.unit_row[picks]
        return np.take(self.unit_row, picks, out=out, mode="clip")  # every pick is in range: no check

    def draw(self, s: int, rng: np.random.Generator, n_rep: int) -> np.ndarray:
        """Counts of ``n_rep`` replicates of segment ``s``, shape (n_rep, rows of s)."""
        return self.draw_later(s, rng, n_rep)()

    def draw_later(self, s: int, rng: np.random.Generator, n_rep: int) -> Callable[[], np.ndarray]:
        """The random draws of :meth:`draw` now, their counting when the returned function is called.

        The draws are what must happen in stream order; counting them per tie
        row (a gather and a ``bincount``, about twice the cost of the draws)
        may then run on whichever thread evaluates the replicates.
        """
        total = int(self.totals[s])
        picks = rng.integers(0, total, size=(n_rep, total)) if total else None
        return functools.partial(self._count, s, picks, n_rep)

    def _count(self, s: int, picks: np.ndarray | None, n_rep: int) -> np.ndarray:
        width = int(self.offsets[s + 1] - self.offsets[s])
        if picks is None:
            return np.zeros((n_rep, width), dtype=np.int64)
        rows = self._rows(s, picks, out=work_array("UnitSampler._count:rows", picks.shape, np.int64))
        rows += (np.arange(n_rep, dtype=np.int64) * width)[:, None]
        return np.bincount(rows.ravel(), minlength=n_rep * width).reshape(n_rep, width)

    def draw_some(self, s: int, rng: np.random.Generator, deficit: np.ndarray) -> np.ndarray:
        """``deficit[b]`` extra units of segment ``s`` for replicate ``b``; counts (n_rep, rows of s)."""
        width = int(self.offsets[s + 1] - self.offsets[s])
        n_rep = deficit.size
        which = np.repeat(np.arange(n_rep, dtype=np.int64), deficit)
        if which.size == 0:
            return np.zeros((n_rep, width), dtype=np.int64)
        rows = self._rows(s, rng.integers(0, int(self.totals[s]), size=which.size)) + which * width
        return np.bincount(rows, minlength=n_rep * width).reshape(n_rep, width)


class PoissonFillSampler:
    r"""Replicate counts of one class in O(tie rows), for segments whose rows hold many units.

    Multinomial counts by Poissonisation with completion. Draw independent
    :math:`C_k \sim \mathrm{Poisson}(\lambda c_k)` for the rows of a segment
    (``c_k`` the row's count, :math:`\lambda = 1 - 3/\sqrt N`), so that
    :math:`S = \sum_k C_k` is a little below ``N``. Given ``S``, the vector
    ``C`` is Multinomial(S; c/N); adding ``N - S`` units drawn one by one from
    the same probabilities makes it exactly Multinomial(N; c/N). When
    ``S > N`` (probability about 0.1%) the replicate's draw is discarded and
    all ``N`` units are drawn one by one, which is also exactly multinomial,
    so the result is exact whatever ``S`` is.

    Poisson variates come from inversion of the Poisson CDF with one uniform
    each: a guide table over 256 cells of [0, 1) per distinct mean points to a
    starting count, followed by a short vectorised search (Devroye 1986,
    section III.2.4). Means above 64 (or too many distinct means) use
    :meth:`numpy.random.Generator.poisson`. The tables are built once for all
    segments; draws are made segment by segment.
    """

    CELLS = 256
    MAX_MEAN = 64.0
    MAX_DISTINCT = 2048

    def __init__(self, ties: TieTable, counts: np.ndarray, units: UnitSampler, segments: np.ndarray):
        self.units = units
        self.offsets = ties.offsets
        self.totals = units.totals
        seg_of_row = ties.segment_ids()
        lam = np.where(self.totals >= 16, 1.0 - 3.0 / np.sqrt(np.maximum(self.totals, 1)), 0.0)
        chosen = np.zeros(ties.n_segments, dtype=bool)
        chosen[segments] = True
        mean = np.where(chosen[seg_of_row], lam[seg_of_row] * counts, 0.0)
        active = np.flatnonzero(mean > 0)
        mean = mean[active]
        small = mean <= self.MAX_MEAN
        values, inverse = np.unique(mean[small], return_inverse=True)
        if values.size > self.MAX_DISTINCT:
            small[:] = False
            values, inverse = values[:0], inverse[:0]
        self.rows_small, self.rows_large = active[small], active[~small]
        self.mean_large = mean[~small]
        # the small and large rows of segment s: [small_at[s], small_at[s + 1]) and likewise
        self.small_at = np.searchsorted(self.rows_small, self.offsets)
        self.large_at = np.searchsorted(self.rows_large, self.offsets)
        if values.size:
            width = int(np.ceil(values.max() + 12.0 * np.sqrt(values.max()) + 40.0))
            cdf = poisson_cdf(np.arange(width)[None, :], values[:, None])
            cdf[:, -1] = 2.0  # sentinel above every uniform; the mass beyond is < 1e-30
            grid = np.arange(self.CELLS) / self.CELLS
            # guide[d, i] = number of CDF values <= i / CELLS: the count at the cell's lower edge
            guide = np.stack([np.searchsorted(row, grid, side="right") for row in cdf])
            self.cdf = cdf.ravel()
            self.cdf_base = inverse.astype(np.int64) * width
            self.guide = guide.ravel().astype(np.int64)
            self.guide_base = inverse.astype(np.int64) * self.CELLS

    def _poisson_by_guide(self, rng: np.random.Generator, n_rep: int, lo: int, hi: int) -> np.ndarray:
        """Poisson counts of the small-mean rows ``rows_small[lo:hi]``, shape (n_rep, hi - lo)."""
        u = rng.random((n_rep, hi - lo))
        cell = (u * self.CELLS).astype(np.int64)
        cell += self.guide_base[lo:hi]
        index = self.guide[cell]
        index += self.cdf_base[lo:hi]
        # walk up while F(count) <= u: most draws stop within a step or two,
        # so each pass only revisits the draws still walking
        flat_index, flat_u = index.reshape(-1), u.reshape(-1)
        walking = np.flatnonzero(self.cdf[flat_index] <= flat_u)
        while walking.size:
            flat_index[walking] += 1
            walking = walking[self.cdf[flat_index[walking]] <= flat_u[walking]]
        index -= self.cdf_base[lo:hi]
        return index

    def draw(self, s: int, rng: np.random.Generator, n_rep: int) -> np.ndarray:
        """Counts of ``n_rep`` replicates of segment ``s``, shape (n_rep, rows of s)."""
        first = int(self.offsets[s])
        counts = np.zeros((n_rep, int(self.offsets[s + 1]) - first), dtype=np.int64)
        lo, hi = int(self.small_at[s]), int(self.small_at[s + 1])
        if hi > lo:
            counts[:, self.rows_small[lo:hi] - first] = self._poisson_by_guide(rng, n_rep, lo, hi)
        lo, hi = int(self.large_at[s]), int(self.large_at[s + 1])
        if hi > lo:
            counts[:, self.rows_large[lo:hi] - first] = rng.poisson(self.mean_large[lo:hi], size=(n_rep, hi - lo))
        # the total S of each replicate; the deficit N - S is completed unit by unit
        deficit = int(self.totals[s]) - counts.sum(axis=1)
        over = deficit < 0
        if over.any():  # S > N: discard and draw the whole replicate unit by unit
            counts[over] = 0
            deficit[over] = int(self.totals[s])
        counts += self.units.draw_some(s, rng, deficit)
        return counts


class ClassCounts:
    """The cheaper exact sampler of one class, chosen per segment from that segment's own table."""

    def __init__(self, ties: TieTable, counts: np.ndarray):
        self.units = UnitSampler(ties, counts)
        busy = ties.segment_sum((counts > 0).astype(np.int64))
        totals = self.units.totals
        # ~12 ns per unit against ~30 ns per busy row (numpy 2.4)
        self.by_poisson = (totals > 2.5 * busy) & (totals >= 64)
        chosen = np.flatnonzero(self.by_poisson)
        self.poisson = PoissonFillSampler(ties, counts, self.units, chosen) if chosen.size else None

    def draw_later(self, s: int, rng: np.random.Generator, n_rep: int) -> Callable[[], np.ndarray]:
        """The draws of ``n_rep`` replicates of segment ``s`` now; their counts, shape (n_rep, rows of s), when the
        returned function is called."""
        if self.by_poisson[s]:  # its completion draws depend on the counts: all now, in stream order
            return functools.partial(_identity, self.poisson.draw(s, rng, n_rep))
        return self.units.draw_later(s, rng, n_rep)


def _identity(value):
    return value
