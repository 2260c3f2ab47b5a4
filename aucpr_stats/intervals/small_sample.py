"""The smallest number of positives at which each interval method and test holds its coverage.

One table, :data:`MIN_POSITIVES` for the intervals of ``conf_int`` and
:data:`MIN_POSITIVES_COMPARE` for the tests of ``compare``, keyed by
``(metric, method)``. Below its entry a method's rows carry a note and the
call raises one :class:`~aucpr_stats.exceptions.SmallSampleWarning`
(:func:`small_sample_mask`). The entries are the smallest number of
positives from which the method's coverage (or the test's size) stays
within 2 percentage points of nominal in the validation report
(``benchmarks/validation.py``, ``docs/validation.md``).

**The values below are provisional** (from the coverage study of
``docs/simulation.md``, the boundary study of ``docs/intervals.md`` and the
small-sample figures quoted in issue 14: at 2 positives DeLong covers 64%
and the AUCPR bootstrap 60%); they are to be replaced by the validation
report's. ``math.inf`` marks a method that under-covers at every size
measured (the per-positive interval).
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

#: (metric, interval method) -> the smallest number of positives at which its coverage holds (provisional).
MIN_POSITIVES: dict[tuple[str, str], float] = {
    ("aucpr", "logit"): 20,
    ("aucpr", "binomial"): 20,
    ("aucpr", "wilson"): 10,
    ("aucpr", "bootstrap"): 20,
    ("aucpr", "cross_validation"): 50,
    ("aucpr", "per_positive"): math.inf,
    ("auroc", "delong"): 20,
    ("auroc", "logit"): 20,
    ("auroc", "hanley_mcneil"): 20,
    ("auroc", "newcombe"): 10,
    ("auroc", "bootstrap"): 20,
}

#: (metric, comparison method) -> the smallest number of positives at which the test holds its size (provisional).
MIN_POSITIVES_COMPARE: dict[tuple[str, str], float] = {
    ("auroc", "delong"): 20,
    ("auroc", "bootstrap"): 20,
    ("aucpr", "bootstrap"): 20,
}


#: Paired tests whose p-value and interval are withheld (NaN, with a note) below their minimum, because
#: the validation report shows them rejecting a true null far more often than their level there (the
#: paired AUCPR bootstrap: about 46% at 2 positives, 12-18% at 3-10, at the 5% level); the others are
#: flagged only.
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
