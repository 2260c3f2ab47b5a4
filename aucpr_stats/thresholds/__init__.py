"""Cut-offs: sensitivity, specificity and predictive values at thresholds, and the best threshold.

:func:`cutoffs` gives pROC's ``coords`` numbers per group, with intervals
(:mod:`.proportions`), from the counts at every threshold that the tie table
gives at once (:mod:`.points`). See ``docs/cutoffs.md``.
"""

from __future__ import annotations

from .cutoffs import CRITERIA, DIRECTION_ALIASES, DIRECTIONS, cutoffs
from .points import ThresholdPoints, all_thresholds, counts_at
from .proportions import (
    PROPORTION_METHODS,
    bayes_interval,
    clopper_pearson_interval,
    proportion_interval,
)
from .measures import MEASURES
from .result import CUTOFF_COLUMNS, CutoffResult

__all__ = [
    "CRITERIA",
    "CUTOFF_COLUMNS",
    "DIRECTIONS",
    "DIRECTION_ALIASES",
    "MEASURES",
    "PROPORTION_METHODS",
    "CutoffResult",
    "ThresholdPoints",
    "all_thresholds",
    "bayes_interval",
    "clopper_pearson_interval",
    "counts_at",
    "cutoffs",
    "proportion_interval",
]
