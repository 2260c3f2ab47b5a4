"""Multiclass outcomes: one-vs-rest, pairwise and Hand & Till areas, with intervals and comparisons.

``aucpr(..., multiclass="ovr")`` and ``auroc(..., multiclass="ovr" | "ovo" |
"hand_till")`` run :func:`multiclass_areas` (``docs/multiclass.md``). The
layout of the package: what the call asks for (``spec.py``), the rows
(``rows.py``), the reported rows as weights on binary areas
(``statistics.py``), the estimates (``estimate.py``), the result
(``result.py``), its intervals (``intervals.py``: multivariate DeLong in
``delong.py``, the joint bootstrap in ``bootstrap.py``) and the paired
comparison of two models (``compare.py``).
"""

from .compare import MulticlassComparison
from .estimate import multiclass_areas
from .intervals import MulticlassIntervals
from .result import MulticlassResult
from .spec import AVERAGES, SCHEMES, refuse_binary_arguments

__all__ = ["multiclass_areas", "MulticlassResult", "MulticlassIntervals", "MulticlassComparison", "SCHEMES",
           "AVERAGES", "refuse_binary_arguments"]
