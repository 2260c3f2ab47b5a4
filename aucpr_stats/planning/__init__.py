"""Study planning: how many positives and negatives a study needs, and the power it will have.

:func:`sample_size` and :func:`power` for AUROC follow Obuchowski's
variance exactly as pROC's ``power.roc.test`` does (:mod:`.obuchowski`); for
AUCPR, :func:`sample_size` searches over the size of simulated studies whose
true curve is known (:mod:`.simulated`, on :mod:`aucpr_stats.simulate`).
Comparisons of two AUROCs (:mod:`.two_curves`, :mod:`.comparisons`): pROC's
``power.roc.test(roc1, roc2)`` from a pilot or the binormal model, and the
smallest detectable AUC (:func:`detectable_auc`). See ``docs/planning.md``.
"""

from __future__ import annotations

from .api import power, sample_size
from .comparisons import detectable_auc
from .result import PlanResult

__all__ = ["PlanResult", "detectable_auc", "power", "sample_size"]
