"""Confidence intervals for AUCPR (Boyd et al. 2013, section 3.2; the addendum).

Not yet implemented: issue 4.
"""

from __future__ import annotations


def pr_conf_int(result, method="logit", level=0.95, **options):
    """Confidence intervals for an :class:`~aucpr_stats.results.AucprResult` (issue 4)."""
    raise NotImplementedError("AUCPR confidence intervals are not implemented yet")
