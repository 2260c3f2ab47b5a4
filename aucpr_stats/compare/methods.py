"""The comparison methods of :func:`aucpr_stats.compare`: one record per metric and method.

A record holds what the rest of the package needs to know about a test: its
name and the smallest number of positives at which it holds its size (the
validation report, ``docs/validation.md``; paired and unpaired, the larger).
Below it the rows get a note and the call one
:class:`~aucpr_stats.exceptions.SmallSampleWarning`; a test whose record says
``withheld_below_minimum`` gives no p-value or interval there.
"""

from __future__ import annotations

import attrs

__all__ = ["ComparisonMethod", "COMPARISON_METHODS"]


@attrs.frozen
class ComparisonMethod:
    """One test of a difference of areas.

    Attributes
    ----------
    name : str
        The name accepted by ``compare(method=...)``.
    min_positives : float
        The smallest number of positives (of the smaller sample) at which the
        test holds its size (at most 7% at the 5% level, docs/validation.md).
    withheld_below_minimum : bool
        Below ``min_positives`` the p-value, z, SE and interval are NaN with a
        note (the difference stays), because the test rejects a true null far
        more often than its level there; otherwise the rows are only flagged.
    min_clusters : int, optional
        The smallest number of clusters at which it holds its size; None until
        a study measures one.
    """

    name: str
    min_positives: float
    withheld_below_minimum: bool = False
    min_clusters: int | None = None


#: Comparison methods per metric; the first is the default. The paired AUCPR bootstrap with the default
#: estimator at the 5% level, prevalence 0.01, rejects a true null 24.5% of the time at 2 positives, 18.8% at 3,
#: 9.9% at 5 (benchmarks/paired_test_size.py): withheld below its minimum.
COMPARISON_METHODS: dict[str, dict[str, ComparisonMethod]] = {
    "auroc": {"delong": ComparisonMethod("delong", 20), "bootstrap": ComparisonMethod("bootstrap", 50)},
    "aucpr": {"bootstrap": ComparisonMethod("bootstrap", 20, withheld_below_minimum=True)},
}
