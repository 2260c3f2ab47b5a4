"""Intervals at the edges of the parameter space: score intervals, truncation and their notes.

Three things keep every interval of an area inside [0, 1] and informative
where a Wald interval is not:

* :func:`wilson_interval` (AUCPR, ``method="wilson"``): Wilson's score
  interval with the estimate read as a proportion over the ``n`` positives,
  the score counterpart of Boyd et al.'s binomial interval;
* :func:`newcombe_interval` (AUROC, ``method="newcombe"``): Newcombe's (2006)
  Method 5, the score (Wilson-type) interval with a Hanley-McNeil-type
  variance;
* :func:`truncate`: the Wald-type intervals clipped to the parameter space,
  as pROC does, with a mask saying which rows were clipped.

The driver (:mod:`.driver`) uses the two score intervals as the **boundary
fallback** of every Wald-type method (and of the percentile bootstrap): an
estimate of exactly 0 or 1, or a standard error of 0 (perfect separation,
every score tied), makes a Wald interval of zero width, and the logit
interval its uninformative limit [0, 1]; those rows get the score interval
of the same level instead, and their note says so (:data:`BOUNDARY_NOTE`).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from .closed_form import normal_quantile

__all__ = ["wilson_interval", "newcombe_variance", "newcombe_interval", "truncate", "join_notes",
           "TRUNCATED_NOTE", "BOUNDARY_NOTE", "CANNOT_FORM_NOTE", "UNSEEDED_NOTE"]

#: Note of a row whose Wald-type interval crossed a bound and was clipped (the tables footnote it).
TRUNCATED_NOTE = "truncated to [{lo:g}, {hi:g}]"

#: Note of a row whose interval is the boundary fallback (``{method}`` the score interval's name).
BOUNDARY_NOTE = "boundary fallback: {reason}, so the {method} score interval"

#: Note of a row whose interval was drawn at random without a seed (``rng=None``).
UNSEEDED_NOTE = "no seed set (rng=None): rerunning gives other limits"

#: Note of a row whose interval cannot be formed (fewer than two positives).
CANNOT_FORM_NOTE = "1 positive: no interval can be formed"


def wilson_interval(estimate, n, level: float = 0.95):
    r"""Wilson's score interval for a proportion; returns (lower, upper, se).

    The set of :math:`\theta` with :math:`|\hat\theta - \theta| \le z\sqrt{\theta(1-\theta)/n}`:

    .. math::

        \frac{\hat\theta + \frac{z^2}{2n} \pm z\sqrt{\frac{\hat\theta(1-\hat\theta)}{n} + \frac{z^2}{4n^2}}}
             {1 + z^2/n}.

    For AUCPR the estimate is read as a proportion over the ``n`` positives,
    as in Boyd et al.'s binomial interval (the number of distinct recall
    values). The interval always lies in [0, 1] and never has zero width for
    a finite ``n``: at :math:`\hat\theta = 1` it is :math:`[n/(n + z^2), 1]`
    (0.912 for 40 positives at 95%).

    Parameters
    ----------
    estimate : array_like
        Estimates in [0, 1]; NaN propagates.
    n : array_like
        Sample sizes (positives), broadcast against ``estimate``; NaN where ``n < 1``.
    level : float
        Confidence level, e.g. 0.95.

    Returns
    -------
    lower, upper, se : ndarray
        The bounds and the binomial standard error :math:`\sqrt{\hat\theta(1-\hat\theta)/n}`.

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and
    statistical inference. Journal of the American Statistical Association
    22, 209-212.
    Newcombe, R. G. (1998). Two-sided confidence intervals for the single
    proportion: comparison of seven methods. Statistics in Medicine 17,
    857-872 (method 3).

    Examples
    --------
    >>> lower, upper, se = wilson_interval([1.0], [40])
    >>> round(float(lower[0]), 4), float(upper[0])
    (0.9124, 1.0)
    """
    theta, n = np.broadcast_arrays(np.asarray(estimate, dtype=np.float64), np.asarray(n, dtype=np.float64))
    z2 = normal_quantile(level) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        n = np.where(n >= 1, n, np.nan)
        var = np.clip(theta * (1.0 - theta), 0.0, None) / n
        centre = (theta + z2 / (2.0 * n)) / (1.0 + z2 / n)
        half = np.sqrt(z2 * var + z2 * z2 / (4.0 * n * n)) / (1.0 + z2 / n)
        lower = np.clip(centre - half, 0.0, 1.0)
        upper = np.clip(centre + half, 0.0, 1.0)
    # the exact bound at the edge (no rounding residue): [0, z2/(n+z2)] and [n/(n+z2), 1]
    lower = np.where(theta == 0.0, 0.0, lower)
    upper = np.where(theta == 1.0, 1.0, upper)
    return lower, upper, np.sqrt(var)


def newcombe_variance(theta, n_pos, n_neg) -> np.ndarray:
    r"""Newcombe's (2006) Hanley-McNeil-type variance of the AUC at :math:`\theta`.

    .. math::

        V(\theta) = \frac{\theta(1-\theta)}{mn}\left[1 + n^*\left(\frac{1-\theta}{2-\theta}
                    + \frac{\theta}{1+\theta}\right)\right], \qquad n^* = \frac{m+n}{2} - 1,

    Hanley & McNeil's (1982) variance with both class sizes replaced by
    their mean, so that it is symmetric in the two classes (Newcombe 2006,
    Methods 4 and 5). It vanishes at :math:`\theta = 0` and 1.
    """
    t, m, n = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (theta, n_pos, n_neg)))
    n_star = (m + n) / 2.0 - 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return t * (1.0 - t) / (m * n) * (1.0 + n_star * ((1.0 - t) / (2.0 - t) + t / (1.0 + t)))


def _outermost_root(f, a: np.ndarray, b: np.ndarray, grid: int = 64, steps: int = 60) -> np.ndarray:
    """Per row, the root of ``f`` in [a, b] farthest from ``a``, where ``f(a) <= 0 <= f(b)``.

    A grid of ``grid`` points locates the last sign change (so the score
    interval is the whole set where ``f <= 0``, not its first piece), then
    ``steps`` bisections refine it, all rows at once.
    """
    u = np.linspace(0.0, 1.0, grid + 1)
    x = a[:, None] + (b - a)[:, None] * u[None, :]
    inside = f(x, slice(None)) <= 0.0  # (rows, grid + 1); column 0 is inside
    last = grid - np.argmax(inside[:, ::-1], axis=1)  # last grid point inside
    last = np.minimum(last, grid - 1)
    lo = x[np.arange(x.shape[0]), last]
    hi = x[np.arange(x.shape[0]), last + 1]
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        ok = f(mid[:, None], slice(None))[:, 0] <= 0.0
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
    return 0.5 * (lo + hi)


def newcombe_interval(estimate, n_pos, n_neg, level: float = 0.95):
    r"""Newcombe's (2006) score interval for the AUC (his Method 5); returns (lower, upper, se).

    The interval is the set of :math:`\theta` with

    .. math:: (\hat\theta - \theta)^2 \le z^2\, V(\theta),

    :math:`V` the variance of :func:`newcombe_variance` evaluated at the
    candidate :math:`\theta`, not at the estimate: as Wilson's interval
    does for a proportion. Its bounds are the roots of a quartic in
    :math:`\theta` on each side of :math:`\hat\theta`, found here by a grid
    and bisection for every row at once (the outermost root on each side).
    The interval lies in [0, 1], is never of zero width (at
    :math:`\hat\theta = 1` the lower bound is below 1, at
    :math:`\hat\theta = 1/2` with every score tied it is symmetric about
    1/2), and Newcombe found it close to nominal coverage up to
    :math:`\theta` near 1, where Wald intervals (DeLong, Hanley-McNeil)
    under-cover and degenerate.

    Parameters
    ----------
    estimate : array_like
        AUC estimates in [0, 1]; NaN propagates.
    n_pos, n_neg : array_like
        Class sizes ``m`` and ``n`` (broadcast against ``estimate``).
    level : float
        Confidence level.

    Returns
    -------
    lower, upper, se : ndarray
        The bounds and :math:`\sqrt{V(\hat\theta)}` (Newcombe's Method 4
        standard error).

    References
    ----------
    Newcombe, R. G. (2006). Confidence intervals for an effect size measure
    based on the Mann-Whitney statistic. Part 2: asymptotic methods and
    evaluation. Statistics in Medicine 25, 559-573 (Methods 4 and 5).
    Hanley, J. A., McNeil, B. J. (1982). The meaning and use of the area
    under a receiver operating characteristic (ROC) curve. Radiology 143, 29-36.

    Examples
    --------
    >>> lower, upper, se = newcombe_interval([1.0, 0.5], [20, 20], [80, 80])
    >>> [round(float(x), 4) for x in lower], [round(float(x), 4) for x in upper]
    ([0.9379, 0.3643], [1.0, 0.6357])
    """
    theta, m, n = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (estimate, n_pos, n_neg)))
    shape = theta.shape
    theta, m, n = theta.ravel(), m.ravel(), n.ravel()
    z2 = normal_quantile(level) ** 2
    lower = np.full(theta.shape, np.nan)
    upper = np.full(theta.shape, np.nan)
    ok = np.isfinite(theta) & (theta >= 0) & (theta <= 1) & (m >= 1) & (n >= 1)
    if ok.any():
        t, mm, nn = theta[ok], m[ok], n[ok]

        def gap(x, _):  # (θ̂ - x)² - z² V(x): <= 0 inside the interval
            return (t[:, None] - x) ** 2 - z2 * newcombe_variance(x, mm[:, None], nn[:, None])

        with np.errstate(invalid="ignore", divide="ignore"):
            upper[ok] = np.where(t < 1.0, _outermost_root(gap, t, np.ones_like(t)), 1.0)
            lower[ok] = np.where(t > 0.0, _outermost_root(gap, t, np.zeros_like(t)), 0.0)
    with np.errstate(invalid="ignore"):
        se = np.sqrt(np.clip(newcombe_variance(theta, m, n), 0.0, None))
    return lower.reshape(shape), upper.reshape(shape), se.reshape(shape)


def truncate(lower, upper, lo=0.0, hi=1.0):
    """Clip interval bounds to ``[lo, hi]`` (scalars, or arrays that broadcast); returns (lower, upper, truncated).

    A row is truncated when either bound was outside; NaN bounds stay NaN and
    are not flagged. pROC truncates its DeLong intervals the same way.

    Examples
    --------
    >>> truncate([-0.1, 0.2], [0.9, 1.3])
    (array([0. , 0.2]), array([0.9, 1. ]), array([ True,  True]))
    """
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    flagged = (lower < lo) | (upper > hi)  # False for NaN
    return np.where(lower < lo, lo, lower), np.where(upper > hi, hi, upper), flagged


def join_notes(first, second, sep: str = "; ") -> np.ndarray:
    """Join two object arrays of notes (``None`` = no note) element by element, without a Python loop over rows."""
    a = np.asarray(first, dtype=object)
    b = np.broadcast_to(np.asarray(second, dtype=object), a.shape)
    has_a = a != None  # noqa: E711 - elementwise on object arrays
    has_b = b != None  # noqa: E711
    joined = np.where(has_a, a, b)  # one note or none: taken as it is
    both = has_a & has_b
    if both.any():  # only the entries with two notes are joined as text (polars: no fixed-width copies)
        text = pl.Series(a[both].tolist(), dtype=pl.String) + sep + pl.Series(b[both].tolist(), dtype=pl.String)
        joined[both] = np.asarray(text.to_list(), dtype=object)
    return joined
