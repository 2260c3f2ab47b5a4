"""Interpolated estimators (max, mean, median), Boyd, Eng & Page (2013) section 3.1.

The precisions of the empirical PR points at each distinct recall are
summarised into one point; consecutive points are joined by the
Davis-Goadrich interpolation (Theorem 1, Eq. 5) and the area is its closed-form
integral (the corrected formula below Theorem 1), see
:func:`~aucpr_stats.estimators.pr_points.dg_area`.
"""

from __future__ import annotations

import numpy as np

from ..ties import TieTable
from .recall_runs import pairwise_area, recall_runs, run_crossings
from .tie_blocks import DEFAULT_TIES

__all__ = ["interpolated_max", "interpolated_mean", "interpolated_median"]


def _interpolated(ties: TieTable, summary: str, tie_blocks: str) -> np.ndarray:
    runs = recall_runs(ties)
    precision = getattr(runs, summary)
    # the piece from recall 0 to the first positive recall is a rectangle at that
    # recall's precision: dg_area gives exactly this when r1 = 0
    crossings = run_crossings(ties) if tie_blocks == "interpolate" else None
    return pairwise_area(runs.recall, precision, precision, runs.offsets, "dg", crossings)


def interpolated_max(ties: TieTable, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    r"""Interpolated AUCPR through the largest precision at each distinct recall.

    .. math:: \hat\theta = \sum_i \int_{r_i}^{r_{i+1}} \frac{r'}{a_i r' + b_i}\,dr'

    with ``(a_i, b_i)`` of Theorem 1 (Eq. 5) through ``(r_i, p_i^{max})`` and
    ``(r_{i+1}, p_{i+1}^{max})``, over the distinct recalls
    ``0 = r_0 < r_1 < ... < 1`` of the empirical PR points. The piece from
    recall 0 to ``r_1`` is a rectangle of height ``p_1^{max}``.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive.
    tie_blocks : {"interpolate", "published"}
        ``"interpolate"``: the piece into a tie block holding both classes is
        its Davis-Goadrich crossing from the counts before the block
        (:mod:`aucpr_stats.estimators.tie_blocks`), not from the run's
        summary precision; ``"published"``: Boyd et al.'s convention. The two
        agree when no tie holds both classes.

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, section 3.1,
    Theorem 1 (Eq. 5) and the corrected integral below it.
    Davis, J., Goadrich, M. (2006). The relationship between precision-recall
    and ROC curves. ICML.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[2.0, 1.0], pos=[2, 0], neg=[0, 3], offsets=[0, 2])
    >>> float(interpolated_max(t)[0])  # perfect separation
    1.0
    """
    return _interpolated(ties, "p_max", tie_blocks)


def interpolated_mean(ties: TieTable, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    r"""Interpolated AUCPR through the mean precision at each distinct recall.

    As :func:`interpolated_max`, with the precisions of the points at each
    distinct recall summarised by their mean (Boyd et al. 2013, section 3.1).

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive.
    tie_blocks : {"interpolate", "published"}
        As in :func:`interpolated_max`.

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, section 3.1,
    Theorem 1 (Eq. 5) and the corrected integral below it.
    Davis, J., Goadrich, M. (2006). The relationship between precision-recall
    and ROC curves. ICML.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 0, 1], neg=[0, 1, 0], offsets=[0, 3])
    >>> round(float(interpolated_mean(t)[0]), 6)
    0.723656
    """
    return _interpolated(ties, "p_mean", tie_blocks)


def interpolated_median(ties: TieTable, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    r"""Interpolated AUCPR through the median precision at each distinct recall.

    As :func:`interpolated_max`, with the precisions of the points at each
    distinct recall summarised by their median (the mean of the two middle
    values for an even count). One of the three estimators Boyd et al. (2013)
    found nearly unbiased and robust.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive.
    tie_blocks : {"interpolate", "published"}
        As in :func:`interpolated_max`.

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, section 3.1,
    Theorem 1 (Eq. 5) and the corrected integral below it.
    Davis, J., Goadrich, M. (2006). The relationship between precision-recall
    and ROC curves. ICML.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 0, 1], neg=[0, 1, 0], offsets=[0, 3])
    >>> round(float(interpolated_median(t)[0]), 6)
    0.723656
    """
    return _interpolated(ties, "p_median", tie_blocks)
