"""AUCPR point estimators: pure functions of a tie table, vectorised over segments.

Each estimator takes a :class:`~aucpr_stats._ties.TieTable` whose segments all
hold at least one positive and one negative (the engine sets degenerate groups
aside) and returns one float per segment. Rows with zero counts may be present
(bootstrap draws) and must not change the result.

Adding an estimator is adding one pure function and one line in
:data:`PR_ESTIMATORS`.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._ties import TieTable
from .average_precision import average_precision
from .binormal import binormal
from .convex import interpolated_convex
from .interpolated import interpolated_max, interpolated_mean, interpolated_median
from .threshold_trapezoid import threshold_trapezoid
from .trapezoid import lower_trapezoid, upper_trapezoid

Estimator = Callable[[TieTable], np.ndarray]

#: Registry of AUCPR estimators by public name, in display order.
PR_ESTIMATORS: dict[str, Estimator] = {
    "lower_trapezoid": lower_trapezoid,
    "upper_trapezoid": upper_trapezoid,
    "average_precision": average_precision,
    "interpolated_max": interpolated_max,
    "interpolated_mean": interpolated_mean,
    "interpolated_median": interpolated_median,
    "interpolated_convex": interpolated_convex,
    "binormal": binormal,
    "threshold_trapezoid": threshold_trapezoid,  # the addendum's curve (issue 4)
}

#: The default estimator of :func:`aucpr_stats.aucpr`.
DEFAULT_PR_ESTIMATOR = "lower_trapezoid"

__all__ = [
    "PR_ESTIMATORS",
    "DEFAULT_PR_ESTIMATOR",
    "Estimator",
    "average_precision",
    "binormal",
    "interpolated_convex",
    "interpolated_max",
    "interpolated_mean",
    "interpolated_median",
    "lower_trapezoid",
    "upper_trapezoid",
]
