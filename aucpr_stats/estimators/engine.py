"""The grouped engine: run estimators over every group of a tie table at once.

Written once for every statistic (yardstick's single summariser): groups
without both classes are set aside here, so estimators only ever see
segments with at least one positive and one negative, and each estimator is
handed the smallest table its registry record says it may read.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..distributions import within_unit_interval
from ..ties import TieTable
from .registry import Estimator

__all__ = ["evaluate"]


def evaluate(ties: TieTable, estimators: Sequence[Estimator]) -> np.ndarray:
    """Estimates of shape (n_segments, len(estimators)); NaN for segments without both classes.

    Parameters
    ----------
    ties : TieTable
    estimators : sequence of Estimator
        Registry records (:mod:`aucpr_stats.estimators.registry`).
    """
    ok = ties.has_both_classes()
    out = np.full((ties.n_segments, len(estimators)), np.nan)
    if not ok.any():
        return out
    usable = ties if ok.all() else ties.take(np.flatnonzero(ok))
    for j, estimator in enumerate(estimators):
        stored = usable.stored(estimator)  # a table of engine sums holds the value (ingest/sums.py)
        if stored is not None:
            out[ok, j] = stored
            continue
        fitted = estimator.for_table(usable)  # the same values, the cheaper convention where they agree
        with np.errstate(all="ignore"):
            out[ok, j] = within_unit_interval(fitted(fitted.view(usable)), estimator)
    return out
