"""Matched case-control studies: the within-matched-set (conditional) AUROC, its variance and intervals.

``matched_auroc(df, "case", "marker", matched_set="stratum")`` compares each
case only with the controls of its own matched set (:mod:`.verb`); the
kernels on arrays (win counts per set, the estimate, the sandwich and
jackknife variances over sets, the intervals) are in :mod:`.estimate`.
"""

from .estimate import (SetCounts, jackknife_variance, leave_one_set_out, matched_estimate, matched_interval,
                       sandwich_variance, set_counts, set_influence, table_set_counts)
from .verb import METHODS, MatchedAurocIntervals, MatchedAurocResult, matched_auroc

__all__ = ["matched_auroc", "MatchedAurocResult", "MatchedAurocIntervals", "METHODS", "SetCounts", "set_counts",
           "table_set_counts", "matched_estimate", "set_influence", "sandwich_variance", "jackknife_variance",
           "leave_one_set_out", "matched_interval"]
