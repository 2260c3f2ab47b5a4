"""The smallest number of positives at which each interval method and test holds its coverage.

One table, :data:`MIN_POSITIVES` for the intervals of ``conf_int`` and
:data:`MIN_POSITIVES_COMPARE` for the tests of ``compare``, keyed by
``(metric, method)``. Below its entry a method's rows carry a note and the
call raises one :class:`~aucpr_stats.exceptions.SmallSampleWarning`
(:func:`small_sample_mask`). The entries are the smallest number of
positives from which the method's coverage (or the test's size) stays
within 2 percentage points of nominal in the validation report
(``benchmarks/validation.py``, ``docs/validation.md``).

The values are those of the validation report (1,000 data sets per cell,
binormal scores, prevalence 0.1 and 0.01, 2-500 positives): for each
method the largest, over the estimators validated (the default and
``average_precision`` for AUCPR), of the smallest number of positives from
which coverage stays at least 93% (a test's size at most 7%) at every larger
size. ``math.inf`` marks a method that under-covers at every size measured
(the per-positive interval; cross-validation with average precision).
"""

from __future__ import annotations

import math
import os
import sys
import warnings

import numpy as np

from ..exceptions import SmallSampleWarning

__all__ = ["MIN_POSITIVES", "MIN_POSITIVES_COMPARE", "WITHHELD_BELOW_MINIMUM", "small_sample_mask",
           "small_sample_note", "withheld_note", "warn_small_sample"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: (metric, interval method) -> the smallest number of positives at which its coverage holds (docs/validation.md).
MIN_POSITIVES: dict[tuple[str, str], float] = {
    ("aucpr", "logit"): 10,
    ("aucpr", "binomial"): 3,
    ("aucpr", "wilson"): 20,
    ("aucpr", "bootstrap"): 100,
    ("aucpr", "cross_validation"): math.inf,
    ("aucpr", "per_positive"): math.inf,
    ("auroc", "delong"): 50,
    ("auroc", "logit"): 50,
    ("auroc", "hanley_mcneil"): 5,
    ("auroc", "newcombe"): 2,
    ("auroc", "bootstrap"): 50,
    # DeLong's minimum; coverage shown at 150 clusters of 4 rows (benchmarks/cluster_coverage.md)
    ("auroc", "obuchowski"): 50,
    # benchmarks/design_coverage.md: >= 93% from 50 positives with independent rows (prevalence 0.01: 91.6% at 20),
    # 92.3% (MC se 1.1) at 58 weighted positives under informative weights, 94.2% at 291. At a stated
    # prevalence with few controls per case it under-covers further (the estimator's bias, not its variance).
    ("aucpr", "influence"): 60,
}

#: (metric, comparison method) -> the smallest number of positives at which the test holds its size
#: (docs/validation.md; paired and unpaired, the larger).
MIN_POSITIVES_COMPARE: dict[tuple[str, str], float] = {
    ("auroc", "delong"): 20,
    ("auroc", "bootstrap"): 50,
    ("aucpr", "bootstrap"): 20,
}

#: Paired tests whose p-value and interval are withheld (NaN, with a note) below their minimum, because
#: they reject a true null far more often than their level there (the paired AUCPR bootstrap with the
#: default estimator at the 5% level, prevalence 0.01: 24.5% at 2 positives, 18.8% at 3, 9.9% at 5;
#: benchmarks/paired_test_size.py); the others are flagged only.
WITHHELD_BELOW_MINIMUM: frozenset[tuple[str, str]] = frozenset({("aucpr", "bootstrap")})


def withheld_note(metric: str, method: str) -> str:
    """The note of a paired test withheld below its minimum number of positives."""
    minimum = MIN_POSITIVES_COMPARE.get((metric, method), 0)
    return (f"no test: fewer than {minimum:g} positives, the paired {metric.upper()} {method} test rejects a true "
            f"null far more often than its level (docs/validation.md)")


def small_sample_mask(metric: str, method: str, n_pos, compare: bool = False) -> np.ndarray:
    """Rows (by ``n_pos``) below the method's minimum; all False for a method without an entry.

    Rows with fewer than two positives are left out: no interval is formed
    there at all (their note says so instead).
    """
    table = MIN_POSITIVES_COMPARE if compare else MIN_POSITIVES
    minimum = table.get((metric, method), 0)
    n_pos = np.asarray(n_pos)
    return (n_pos >= 2) & (n_pos < minimum)


def small_sample_note(metric: str, method: str, compare: bool = False) -> str:
    """The note of a row below the method's minimum number of positives."""
    table = MIN_POSITIVES_COMPARE if compare else MIN_POSITIVES
    minimum = table.get((metric, method), 0)
    what = "test may not hold its size" if compare else "interval may under-cover"
    if math.isinf(minimum):
        return f"small sample: the {method} {what} at every size validated (docs/validation.md)"
    return f"small sample: fewer than {minimum:g} positives, the {method} {what} (docs/validation.md)"


def warn_small_sample(counts: dict[str, int], compare: bool = False) -> None:
    """One :class:`SmallSampleWarning` naming the methods (with their row counts) used below their minimum.

    The warning points at the caller's line: the first frame outside this
    package, however deep the call came from (``conf_int``,
    ``conf_int_polars``, a publication table, ``compare``).
    """
    below = {name: count for name, count in counts.items() if count}
    if not below:
        return
    listed = ", ".join(f"{name} ({count} row{'s' * (count > 1)})" for name, count in below.items())
    what = "tests below the number of positives they need to hold their size" if compare else (
        "intervals below the number of positives their method needs to keep its coverage")
    level, frame = 2, sys._getframe(1)  # stacklevel 2 is our caller
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        level, frame = level + 1, frame.f_back
    warnings.warn(f"{what}: {listed}; see the `note` column and docs/validation.md", SmallSampleWarning,
                  stacklevel=level)
