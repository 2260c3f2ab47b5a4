r"""The bootstrap seen through a few order statistics (for the confidence bands of the PR curve).

A step curve such as Eq. (3) of Clémençon & Vayatis (2009) reads a replicate
only at a few places: at each grid recall, an order statistic of the
positives' resample (the threshold) and the fraction of the negatives'
resample above it. Both are drawn *exactly in distribution* without drawing
the ``n`` scores:

* order statistics of an i.i.d. sample from a cdf :math:`F` are
  :math:`F^{-1}(U_{(r)})`, and uniform order statistics at ranks
  :math:`r_1 \le \dots \le r_m` are ratios of partial sums of independent
  Gamma variables with shapes :math:`r_1, r_2 - r_1, \dots, n + 1 - r_m`;
* given the thresholds, the numbers of draws of the other class between
  consecutive thresholds are multinomial with cell probabilities
  :math:`H(t_k) - H(t_{k-1})`.

So a replicate costs O(grid) instead of O(n). With the empirical cdfs of the
two classes this is the stratified bootstrap of :mod:`.counts` restricted to
what the curve reads; with kernel-smoothed cdfs it is the smoothed bootstrap
of Algorithm 1. The caller supplies the other class's cdf read at the
quantile class's quantiles, :math:`H(F^{-1}(u))` (with ties between the
classes split as a random order of the tied rows would split them, when the
caller wants that).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["exceedance_at_order_statistics"]


def exceedance_at_order_statistics(rng: np.random.Generator, ranks: np.ndarray, n_quantile: np.ndarray,
                                   n_other: np.ndarray,
                                   cdf_at_quantile: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Fraction of the other class above each order statistic of the quantile class, per replicate.

    Parameters
    ----------
    rng : numpy.random.Generator
    ranks : ndarray of int, shape (b, m)
        Ascending ranks (1 = smallest) of the order statistics of each of
        ``b`` replicates, non-decreasing along each row; rank 0 stands for a
        threshold of ``-inf`` (every draw of the other class is above it).
    n_quantile, n_other : ndarray of int, shape (b,)
        Sizes of the two classes in each replicate (at least 1 each).
    cdf_at_quantile : callable
        ``u -> H(F^{-1}(u))``: the share of the other class at or below the
        quantile class's ``u``-quantile (non-decreasing in ``u``).

    Returns
    -------
    ndarray, shape (b, m)
        :math:`\\hat\\alpha`: the fraction of the other class's draws strictly
        above each threshold.
    """
    m = ranks.shape[1]
    shapes = np.diff(ranks, axis=1, prepend=0, append=(n_quantile + 1)[:, None]).astype(np.float64)
    # uniform order statistics U_(r) as ratios of partial sums of Gamma spacings
    partial = np.cumsum(rng.standard_gamma(shapes), axis=1)
    uniforms = partial[:, :m] / partial[:, m:]
    below = cdf_at_quantile(uniforms)
    below = np.where(ranks == 0, 0.0, below)  # threshold -inf: every draw of the other class is above it
    cells = np.diff(below, axis=1, prepend=0.0, append=1.0)
    np.clip(cells, 0.0, None, out=cells)
    cells /= cells.sum(axis=1, keepdims=True)
    counts = rng.multinomial(n_other, cells)
    return 1.0 - np.cumsum(counts[:, :m], axis=1) / n_other[:, None]
