"""Pooling results: random-effects meta-analysis across sites and Rubin's rules across imputations.

* :mod:`.meta`, :mod:`.meta_result`: ``result.meta()`` on a per-site result
  and its :class:`MetaResult` (the mathematics in
  :mod:`aucpr_stats.combine.random_effects`).
* :mod:`.imputed`, :mod:`.imputed_heterogeneity`: ``imputation=`` on the
  verbs, the :class:`ImputedResult` they return (Rubin's rules,
  :mod:`aucpr_stats.combine.rubin`) and its pooled heterogeneity tests.
"""

from .imputed import ImputedResult
from .meta import meta
from .meta_result import MetaResult

__all__ = ["ImputedResult", "MetaResult", "meta"]
