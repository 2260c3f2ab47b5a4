"""Time-to-event outcomes: cumulative/dynamic AUC(t) and AP(t) with censoring weights, intervals and comparisons.

``auroc(df, score="s", time="t", event="d", horizon=[1, 3, 5])`` and the
same on :func:`~aucpr_stats.aucpr` run :func:`time_dependent_areas`: the rows
are read once (:mod:`.rows`), the censoring distribution fitted by
Kaplan-Meier (:mod:`.censoring`), every (group, score, horizon) area
estimated as a censoring-weighted binary area (:mod:`.areas`), with
influence-function (:mod:`.influence`) and bootstrap (:mod:`.bootstrap`)
intervals, bands (:mod:`.intervals`) and paired comparisons (:mod:`.compare`).
"""

from .estimate import horizons_iv, time_dependent_areas, time_dependent_call
from .compare import TimeDependentComparison
from .intervals import TimeDependentIntervals
from .result import TimeDependentResult

__all__ = ["time_dependent_call", "time_dependent_areas", "horizons_iv", "TimeDependentResult",
           "TimeDependentIntervals", "TimeDependentComparison"]
