r"""Tie blocks that hold both classes, crossed as a random order of their rows would cross them.

A threshold never splits tied scores, so a tie row holding ``b`` positives and
``n`` negatives is admitted at once: the empirical curve jumps from the point
before it, ``(TP, FP) = (a, f)``, to ``(a + b, f + n)``. Published conventions
join the two points by a straight line in PR space (the trapezoids) or start
the curve at precision 1 above a mixed top block; both are optimistic.

If the rows of the block were put in a random order, the expected ROC path
across the block is the straight line between the two points, and its image
in PR space is the Davis & Goadrich (2006) interpolation (Boyd, Eng & Page
2013, Theorem 1)

.. math:: TP(t) = a + b\,t, \qquad FP(t) = f + n\,t, \qquad 0 \le t \le 1.

Along it the recall grows by ``b / n_pos`` and the mean precision is

.. math:: \bar p = \int_0^1 \frac{a + b t}{c + d t}\,dt
          = \frac{a\,\varphi_1(u) + b\,\varphi_2(u)}{c},
          \qquad c = a + f,\ d = b + n,\ u = d / c,

with :math:`\varphi_1(u) = \log(1+u)/u` and
:math:`\varphi_2(u) = (u - \log(1+u))/u^2`; when nothing is admitted before
the block (``c = 0``) the precision is constant, :math:`\bar p = b/d`. The
area of the crossing is :math:`(b / n_{pos})\,\bar p`. So a constant score
(one block) gives exactly the prevalence, and a block holding one class is
crossed as before (the estimators are unchanged on data without ties across
classes).

:func:`expected_average_precision` is the exact expectation of average
precision over random orders of every tie block (McSherry & Najork 2008),
a discrete sum over the block's positions written in closed form with the
digamma function.
"""

from __future__ import annotations

import numpy as np

from ..distributions import digamma
from ..exceptions import InputError
from ..ties import TieTable

__all__ = ["TIES", "DEFAULT_TIES", "ties_iv", "mixed_rows", "crossing_precision", "harmonic_difference",
           "expected_average_precision"]

#: The values of ``ties=``: ``"interpolate"`` crosses a block holding both classes along the
#: Davis-Goadrich interpolation; ``"published"`` keeps the literal conventions of Boyd et al.
#: (2013) and scikit-learn.
TIES = ("interpolate", "published")
DEFAULT_TIES = "interpolate"


def ties_iv(ties) -> str:
    """Check ``ties=``: one of :data:`TIES` (an error naming the argument otherwise)."""
    if not isinstance(ties, str) or ties not in TIES:
        raise InputError(f"`ties` must be one of {list(TIES)}; got {ties!r}")
    return ties


def mixed_rows(ties: TieTable) -> np.ndarray:
    """Boolean mask of the tie rows holding both positives and negatives."""
    return (ties.pos > 0) & (ties.neg > 0)


def _log_ratio(u: np.ndarray) -> np.ndarray:
    """``phi_1(u) = log(1 + u) / u``, 1 at ``u = 0``."""
    small = u < 0.05
    series = 1.0 + u * (-1 / 2 + u * (1 / 3 + u * (-1 / 4 + u * (1 / 5 + u * (-1 / 6 + u * (1 / 7 + u * (
        -1 / 8 + u * (1 / 9 + u * (-1 / 10 + u * (1 / 11 + u * (-1 / 12)))))))))))
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = np.log1p(u) / u
    return np.where(small, series, direct)


def _excess_log_ratio(u: np.ndarray) -> np.ndarray:
    """``phi_2(u) = (u - log(1 + u)) / u^2``, 1/2 at ``u = 0`` (a series below 0.05)."""
    small = u < 0.05
    series = 1 / 2 + u * (-1 / 3 + u * (1 / 4 + u * (-1 / 5 + u * (1 / 6 + u * (-1 / 7 + u * (1 / 8 + u * (
        -1 / 9 + u * (1 / 10 + u * (-1 / 11 + u * (1 / 12 + u * (-1 / 13)))))))))))
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = (u - np.log1p(u)) / (u * u)
    return np.where(small, series, direct)


def crossing_precision(tp_before, fp_before, pos, neg) -> np.ndarray:
    r"""Mean precision along the Davis-Goadrich crossing of tie blocks (see the module docstring).

    Parameters
    ----------
    tp_before, fp_before : array_like of int
        Positives ``a`` and negatives ``f`` admitted above each block.
    pos, neg : array_like of int
        The block's positives ``b >= 1`` and negatives ``n``.

    Returns
    -------
    ndarray of float64
        :math:`\bar p = \int_0^1 (a + bt)/(c + dt)\,dt`; ``b / d`` when ``c = 0``.
        For ``n = 0`` it is the mean precision of the straight ROC segment, not
        the precision at the block's bottom (callers keep the published value
        for blocks of one class).

    Examples
    --------
    >>> float(crossing_precision(0, 0, 3, 7))  # a block at the top: its own precision
    0.3
    >>> round(float(crossing_precision(1, 1, 1, 1)), 12)  # int_0^1 (1+t)/(2+2t) dt
    0.5
    """
    a, f, b, n = (np.asarray(x, dtype=np.float64) for x in (tp_before, fp_before, pos, neg))
    c, d = a + f, b + n
    with np.errstate(divide="ignore", invalid="ignore"):
        u = d / c
        inside = (a * _log_ratio(u) + b * _excess_log_ratio(u)) / c
        top = b / d
    return np.where(c > 0, inside, top)


def _digamma_difference(x: np.ndarray, d: np.ndarray) -> np.ndarray:
    r""":math:`\psi(x + d) - \psi(x) = \sum_{i=0}^{d-1} 1/(x+i)` for ``x >= 1``, accurate when ``d << x``.

    For large ``x`` the asymptotic series of the digamma function is
    differenced term by term (no cancellation between two large values).
    """
    y = x + d
    large = x >= 64
    with np.errstate(divide="ignore", invalid="ignore"):
        # psi(x) ~ log x - 1/(2x) - 1/(12x^2) + 1/(120x^4) - 1/(252x^6) + 1/(240x^8)
        series = (np.log1p(d / x) + d / (2 * x * y) + d * (x + y) / (12 * x * x * y * y)
                  + (y ** -4 - x ** -4) / 120 - (y ** -6 - x ** -6) / 252 + (y ** -8 - x ** -8) / 240)
    direct = digamma(y) - digamma(np.where(large, 1.0, x))
    return np.where(large, series, direct)


def harmonic_difference(c, d) -> np.ndarray:
    r""":math:`\sum_{i=1}^{d} 1/(c + i)` for integers ``c >= 0``, ``d >= 0`` (elementwise)."""
    c = np.asarray(c, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    return _digamma_difference(c + 1.0, d)


def expected_average_precision(ties: TieTable) -> np.ndarray:
    r"""Average precision averaged over every order of the tied rows (McSherry & Najork 2008).

    Each tie block is put in random order, every order equally likely, and
    average precision (Boyd et al. 2013, Eq. 9) is taken on the resulting
    strict ranking; this is its exact expectation. In a block of ``d`` rows,
    ``b`` of them positive, below ``c = a + f`` admitted rows (``a``
    positive), position ``i`` holds a positive with probability ``b/d``, and
    given that, the positives up to it number on average
    ``a + 1 + (i - 1)(b - 1)/(d - 1)``; the precision's denominator
    ``c + i`` is fixed. So the block adds

    .. math:: \frac{b}{d}\sum_{i=1}^{d}\frac{\alpha + \beta i}{c + i}
              = \frac{b}{d}\Big[\beta d + (\alpha - \beta c)\,(\psi(c+d+1) - \psi(c+1))\Big],

    with :math:`\beta = (b-1)/(d-1)` (0 when ``d = 1``) and
    :math:`\alpha = a + 1 - \beta`, to the sum of the positives' precisions;
    O(1) per tie row.

    Without ties it equals :func:`~aucpr_stats.estimators.average_precision`
    (scikit-learn). With ties it is the value a random tie-break gives on
    average, which for a score without information is *not* the prevalence:
    a constant score over ``n`` positives among ``N`` rows gives
    :math:`(n-1)/(N-1) + H_N (N-n)/(N(N-1))` (``H_N`` the harmonic number),
    the known expected average precision of a random ranking; use
    :func:`~aucpr_stats.estimators.average_precision` with
    ``ties="interpolate"`` for an estimate of the area that gives the
    prevalence there.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive (others give NaN).

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    McSherry, F., Najork, M. (2008). Computing information retrieval
    performance measures efficiently in the presence of tied scores. ECIR,
    LNCS 4956, 414-421.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[1.0], pos=[1], neg=[1], offsets=[0, 1])
    >>> float(expected_average_precision(t)[0])  # orders PN and NP: (1 + 1/2) / 2
    0.75
    """
    rows = np.flatnonzero(ties.pos > 0)
    b, n = ties.pos[rows], ties.neg[rows]
    tp, fp = ties.tp()[rows], ties.fp()[rows]
    a, c = tp - b, tp + fp - b - n
    d = b + n
    beta = np.where(d > 1, (b - 1) / np.maximum(d - 1, 1), 0.0)
    alpha = a + 1.0 - beta
    block = b / d * (beta * d + (alpha - beta * c) * harmonic_difference(c, d))
    with np.errstate(divide="ignore", invalid="ignore"):
        return ties.segment_sum_at(rows, block) / ties.n_pos
