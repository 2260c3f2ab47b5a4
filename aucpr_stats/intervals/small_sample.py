"""The small-sample rule: rows below the number of positives (or clusters) a method needs to hold its coverage.

The minimum is a fact of the method, kept on its registry record:
``min_positives`` (and ``min_clusters``) of an interval method's
:class:`~aucpr_stats.intervals.IntervalMethod` for ``conf_int``, and of a
comparison method's :class:`~aucpr_stats.compare.ComparisonMethod` for the
tests of ``compare``. Below it a method's rows carry a note and the call
raises one :class:`~aucpr_stats.exceptions.SmallSampleWarning`
(:func:`small_sample_mask`, :func:`small_sample_note`, :func:`warn_small_sample`).

The minimums are the smallest number of positives from which the method's
coverage (or the test's size) stays within 2 percentage points of nominal in
the validation report (``benchmarks/validation.py``, ``docs/validation.md``:
1,000 data sets per cell, binormal scores, prevalence 0.1 and 0.01, 2-500
positives): for each method the largest, over the estimators validated (the
default and ``average_precision`` for AUCPR), of the smallest number of
positives from which coverage stays at least 93% (a test's size at most 7%)
at every larger size. ``math.inf`` marks a method that under-covers at every
size measured (the per-positive interval; cross-validation with average
precision).
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from typing import Any

import numpy as np

from ..exceptions import BiasedEstimatorWarning, SmallSampleWarning

__all__ = ["FLAG_PHRASES", "is_flagged", "small_sample_mask", "small_sample_note", "cluster_mask", "cluster_note", "boundary_mask",
           "boundary_note", "warn_biased_estimator", "control_weight_mask", "control_weight_note", "withheld_note", "warn_small_sample"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def small_sample_mask(record: Any, n_pos) -> np.ndarray:
    """Rows (by ``n_pos``) below ``record.min_positives``.

    Rows with fewer than two positives are left out: no interval is formed
    there at all (their note says so instead).
    """
    n_pos = np.asarray(n_pos)
    return (n_pos >= 2) & (n_pos < record.min_positives)


def small_sample_note(record: Any, compare: bool = False) -> str:
    """The note of a row below the method's minimum number of positives."""
    minimum = record.min_positives
    what = "test may not hold its size" if compare else "interval may under-cover"
    if math.isinf(minimum):
        return f"small sample: the {record.name} {what} at every size validated (docs/validation.md)"
    return f"small sample: fewer than {minimum:g} positives, the {record.name} {what} (docs/validation.md)"


def cluster_mask(record: Any, n_clusters) -> np.ndarray:
    """Rows (by their number of clusters) below ``record.min_clusters``; all False when it is None."""
    n_clusters = np.asarray(n_clusters)
    if getattr(record, "min_clusters", None) is None:
        return np.zeros(n_clusters.shape, dtype=bool)
    return n_clusters < record.min_clusters


def cluster_note(record: Any) -> str:
    """The note of a row below the method's minimum number of clusters."""
    return (f"small sample: fewer than {record.min_clusters} clusters, the {record.name} interval may under-cover "
            "(docs/designs.md)")


def boundary_mask(record: Any, estimate, n_pos, n_neg) -> np.ndarray:
    """Rows too close to an area of 1 for their counts: ``min(n_pos, n_neg) (1 - estimate)`` below the record's
    ``min_boundary_count`` (all False when it is None; NaN estimates are never flagged)."""
    estimate = np.asarray(estimate, dtype=np.float64)
    if getattr(record, "min_boundary_count", None) is None:
        return np.zeros(estimate.shape, dtype=bool)
    smaller = np.minimum(np.asarray(n_pos, dtype=np.float64), np.asarray(n_neg, dtype=np.float64))
    with np.errstate(invalid="ignore"):
        return np.isfinite(estimate) & (smaller * (1.0 - estimate) < record.min_boundary_count)


#: The phrases of the notes that flag an interval the validation grid found under-covering (small sample,
#: few clusters, near the boundary, a sparse case-control sample, a biased estimator): a row with one of them
#: is "flagged" (a table mark and a warning); the coverage studies report the unflagged rows apart.
FLAG_PHRASES = ("small sample:", "near the boundary:", "case-control sample at a stated prevalence",
                "on the validation grid")


def is_flagged(note: str | None) -> bool:
    """Whether a ``note`` carries one of the :data:`FLAG_PHRASES`."""
    return note is not None and any(phrase in note for phrase in FLAG_PHRASES)


#: The closed form that holds near 1 (benchmarks/auroc_boundary_results.md, aucpr_boundary_results.md).
HOLDS_NEAR_ONE = {"auroc": "newcombe", "aucpr": "logit"}


def boundary_note(record: Any, metric: str = "auroc") -> str:
    """The note of a row too close to 1 for the method (:func:`boundary_mask`)."""
    return (f"near the boundary: min(positives, negatives) x (1 - estimate) below {record.min_boundary_count:g}, "
            f"the {record.name} interval may under-cover ({HOLDS_NEAR_ONE[metric]} holds there; docs/intervals.md)")


def control_weight_mask(record: Any, stated: float | None, n_pos, n_neg) -> np.ndarray:
    """Groups of a case-control sample at a stated prevalence whose controls each stand for too many cohort
    controls: ``(1 - stated) / stated * n_pos / n_neg`` at or above the record's ``max_control_weight``."""
    n_pos = np.asarray(n_pos, dtype=np.float64)
    if stated is None or getattr(record, "max_control_weight", None) is None:
        return np.zeros(n_pos.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = (1.0 - stated) / stated * n_pos / np.asarray(n_neg, dtype=np.float64)
    return np.isfinite(weight) & (weight >= record.max_control_weight)


def control_weight_note(record: Any, stated: float) -> str:
    """The note of a group flagged by :func:`control_weight_mask`, with the advice."""
    cohort = (1.0 - stated) / stated
    return (f"case-control sample at a stated prevalence of {stated:g}: each control stands for "
            f"{record.max_control_weight:g} or more cohort controls, so the estimate is biased and the "
            f"{record.name} interval under-covers (docs/designs.md); a cohort has {cohort:.3g} controls per case, "
            f"sample at least {cohort / record.max_control_weight:.3g} per case")


def withheld_note(metric: str, record: Any) -> str:
    """The note of a paired test withheld below its minimum number of positives."""
    return (f"no test: fewer than {record.min_positives:g} positives, the paired {metric.upper()} {record.name} test "
            f"rejects a true null far more often than its level (docs/validation.md)")


def warn_small_sample(counts: dict[str, int], compare: bool = False, clusters: bool = False,
                      boundary: bool = False, case_control: bool = False) -> None:
    """One :class:`SmallSampleWarning` naming the methods (with their row counts) used below their minimum.

    ``clusters``: some rows are below a minimum number of clusters;
    ``boundary``: some are too close to an AUROC of 1 for their counts;
    ``case_control``: some are case-control samples with too few controls
    per case at a stated prevalence (the message then says so).

    The warning points at the caller's line: the first frame outside this
    package, however deep the call came from (``conf_int``,
    ``conf_int_polars``, a publication table, ``compare``).
    """
    below = {name: count for name, count in counts.items() if count}
    if not below:
        return
    listed = ", ".join(f"{name} ({count} row{'s' * (count > 1)})" for name, count in below.items())
    units = "positives or clusters" if clusters else "positives"
    if boundary:
        units += " (or the distance from 1 for their counts)"
    if case_control:
        units += " (or controls per case at the stated prevalence)"
    what = f"tests below the number of {units} they need to hold their size" if compare else (
        f"intervals below the number of {units} their method needs to keep its coverage")
    warnings.warn(f"{what}: {listed}; see the `note` column and docs/validation.md", SmallSampleWarning,
                  stacklevel=_caller_level())


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside this package (the user's line)."""
    level, frame = 2, sys._getframe(2)  # the warner's caller: stacklevel 2 of the warner's warnings.warn
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        level, frame = level + 1, frame.f_back
    return level


def warn_biased_estimator() -> None:
    """One :class:`BiasedEstimatorWarning`: some intervals are around an estimator with a coverage caveat."""
    warnings.warn("intervals around an estimator or statistic that under-covers in its validation whatever the "
                  "method or sample size (the `note` column says how much and what holds)", BiasedEstimatorWarning,
                  stacklevel=_caller_level())
