"""Lower and upper trapezoid estimators, Boyd, Eng & Page (2013) Eq. (3) and (4)."""

from __future__ import annotations

import numpy as np

from ..ties import TieTable
from .recall_runs import pairwise_area, recall_runs, run_crossings
from .tie_blocks import DEFAULT_TIES

__all__ = ["lower_trapezoid", "upper_trapezoid"]


def lower_trapezoid(ties: TieTable, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    r"""Lower trapezoid estimate of AUCPR for each segment of a tie table.

    .. math:: \hat\theta_{LT} = \sum_i \frac{p_i^{min} + p_{i+1}^{max}}{2}\,(r_{i+1} - r_i)

    Boyd, Eng & Page (2013), Eq. (3). The sum runs over the distinct recalls
    ``0 = r_0 < r_1 < ... < 1`` of the empirical PR points (start point
    (0, 1), then one point per threshold between distinct scores);
    ``p_i^{min}`` and ``p_i^{max}`` are the smallest and largest precision
    among the points at recall ``r_i``. The start point counts at recall 0,
    so ``p_0^{max} = 1`` and ``p_0^{min} = 0`` when negatives head the ranking.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive.
    tie_blocks : {"interpolate", "published"}
        ``"interpolate"``: the piece into a tie block holding both classes is
        its Davis-Goadrich crossing (:mod:`aucpr_stats.estimators.tie_blocks`),
        so the curve starts at a mixed top block's precision; ``"published"``:
        the straight line of Eq. (3), from (0, 1). The two agree when no tie
        holds both classes.

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, Eq. (3).

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 0, 1], neg=[0, 1, 0], offsets=[0, 3])
    >>> # recalls 0, 1/2, 1 with (p_min, p_max) = (1, 1), (1/2, 1), (2/3, 2/3)
    >>> float(lower_trapezoid(t)[0])  # (1 + 1)/2 * 1/2 + (1/2 + 2/3)/2 * 1/2
    0.7916666666666666
    """
    runs = recall_runs(ties)
    crossings = run_crossings(ties) if tie_blocks == "interpolate" else None
    return pairwise_area(runs.recall, runs.p_min, runs.p_max, runs.offsets, "trapezoid", crossings)


def upper_trapezoid(ties: TieTable, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    r"""Upper trapezoid estimate of AUCPR for each segment of a tie table.

    .. math:: \hat\theta_{UT} = \sum_i \frac{p_i^{max} + p_{i+1}^{max}}{2}\,(r_{i+1} - r_i)

    Boyd, Eng & Page (2013), Eq. (4), with the conventions of
    :func:`lower_trapezoid`. Linear interpolation in PR space is overly
    optimistic (Davis & Goadrich 2006); Boyd et al. found this estimator
    biased upwards and include it for comparison only.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive.
    tie_blocks : {"interpolate", "published"}
        As in :func:`lower_trapezoid` (the published line is that of Eq. 4).

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, Eq. (4).

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 0, 1], neg=[0, 1, 0], offsets=[0, 3])
    >>> float(upper_trapezoid(t)[0])  # (1 + 1)/2 * 1/2 + (1 + 2/3)/2 * 1/2
    0.9166666666666666
    """
    runs = recall_runs(ties)
    crossings = run_crossings(ties) if tie_blocks == "interpolate" else None
    return pairwise_area(runs.recall, runs.p_max, runs.p_max, runs.offsets, "trapezoid", crossings)
