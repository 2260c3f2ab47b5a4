"""Point estimators of AUCPR and AUROC: pure functions of a tie table, vectorised over segments.

Each estimator takes a :class:`~aucpr_stats.ties.TieTable` whose segments all
hold at least one positive and one negative (the engine sets degenerate
groups aside) and returns one float per segment. Rows with zero counts may be
present (bootstrap draws) and must not change the result.

:mod:`.registry` holds one record per estimator (what it reads, its
per-positive contributions, its bootstrap kernel); :mod:`.engine` runs the
records over every group at once. Adding an estimator is one pure function
and one record (``docs/architecture.md``).
"""

from __future__ import annotations

from .average_precision import average_precision
from .binormal import binormal
from .convex import interpolated_convex
from .interpolated import interpolated_max, interpolated_mean, interpolated_median
from .registry import (
    DEFAULT_ESTIMATOR,
    DEFAULT_PR_ESTIMATOR,
    DEFAULT_ROC_ESTIMATOR,
    ESTIMATORS,
    PR_ESTIMATORS,
    ROC_ESTIMATORS,
    Estimator,
    reduction_for,
)
from .roc import a_prime
from .tie_blocks import DEFAULT_TIES, TIES, expected_average_precision
from .threshold_trapezoid import threshold_trapezoid
from .trapezoid import lower_trapezoid, upper_trapezoid

__all__ = [
    "PR_ESTIMATORS",
    "ROC_ESTIMATORS",
    "ESTIMATORS",
    "DEFAULT_ESTIMATOR",
    "DEFAULT_PR_ESTIMATOR",
    "DEFAULT_ROC_ESTIMATOR",
    "Estimator",
    "reduction_for",
    "TIES",
    "DEFAULT_TIES",
    "a_prime",
    "average_precision",
    "expected_average_precision",
    "binormal",
    "interpolated_convex",
    "interpolated_max",
    "interpolated_mean",
    "interpolated_median",
    "lower_trapezoid",
    "threshold_trapezoid",
    "upper_trapezoid",
]
