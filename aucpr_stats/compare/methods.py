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
    min_positives_unpaired : float, optional
        The minimum for an unpaired comparison (``between=``, positives of the
        smaller sample) when it differs from the paired one; below it the rows
        are flagged (never withheld).
    """

    name: str
    min_positives: float
    withheld_below_minimum: bool = False
    min_clusters: int | None = None
    min_positives_unpaired: float | None = None

    def unpaired(self) -> "ComparisonMethod":
        """The record as an unpaired comparison reads it (its own minimum, if any)."""
        if self.min_positives_unpaired is None:
            return self
        return attrs.evolve(self, min_positives=self.min_positives_unpaired)


#: Comparison methods per metric; the first is the default. The paired AUCPR bootstrap with the default
#: estimator at the 5% level, prevalence 0.01, rejects a true null 24.5% of the time at 2 positives, 18.8% at 3,
#: 9.9% at 5 (benchmarks/paired_test_size.py): withheld below its minimum.
#: Unpaired bootstrap tests from weak to near-perfect and ordinal scores (docs/validation.md): 7.7% at 50 positives
#: (AUCPR, 5-level ordinal at AUROC 0.98, prevalence 0.5) and 8.0% (AUROC, the same score at prevalence 0.1),
#: at most 6.9% from 100: flagged below 100.
COMPARISON_METHODS: dict[str, dict[str, ComparisonMethod]] = {
    "auroc": {"delong": ComparisonMethod("delong", 20),
              "bootstrap": ComparisonMethod("bootstrap", 50, min_positives_unpaired=100)},
    "aucpr": {"bootstrap": ComparisonMethod("bootstrap", 20, withheld_below_minimum=True, min_positives_unpaired=100)},
}
