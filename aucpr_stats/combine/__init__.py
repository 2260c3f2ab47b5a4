"""Combining estimates: pure functions of arrays, below every result type.

* :mod:`.rubin`: Rubin's rules across imputations (Barnard-Rubin degrees of
  freedom, the fraction of missing information) and the pooled tests D1, D2.
* :mod:`.random_effects`: random-effects meta-analysis (tau² by REML,
  DerSimonian-Laird, Paule-Mandel; Hartung-Knapp-Sidik-Jonkman and Wald
  intervals; prediction interval; Q-profile interval of tau²; I², H²), for
  many analyses at once.

The verbs that read them off results are in :mod:`aucpr_stats.pooling`
(``result.meta()``, ``imputation=``) and :mod:`aucpr_stats.compare`
(comparisons pooled over imputations).
"""

from .random_effects import CI_METHODS, TAU2_METHODS, random_effects
from .rubin import d1_test, d2_test, rubin

__all__ = ["CI_METHODS", "TAU2_METHODS", "d1_test", "d2_test", "random_effects", "rubin"]
