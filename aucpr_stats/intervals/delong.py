"""DeLong's standard error of A' (DeLong, DeLong & Clarke-Pearson 1988)."""

from __future__ import annotations

import numpy as np

from ..estimators.roc import delong_components
from ..ties import TieTable

__all__ = ["delong_se"]


def delong_se(ties: TieTable) -> tuple[np.ndarray, np.ndarray]:
    r"""A' and its DeLong standard error, per segment.

    :math:`SE = \sqrt{S_{10}/n_P + S_{01}/n_N}` with the structural-component
    variances of :func:`aucpr_stats.estimators.roc.delong_components`
    (DeLong, DeLong & Clarke-Pearson 1988, Eqs. 2-4). NaN when a segment has
    fewer than two positives or two negatives. The Wald interval
    ``A' ± z SE`` is not truncated: near A' = 1 or with few cases it can
    leave [0, 1]; the logit interval cannot.

    Returns
    -------
    auc, se : ndarray of float64, shape (n_segments,)
    """
    auc, s10, s01 = delong_components(ties)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(s10 / ties.n_pos + s01 / ties.n_neg)
    return auc, se
