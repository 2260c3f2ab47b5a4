r"""Estimates at a stated population prevalence, by reweighting the negatives.

Boyd, Eng & Page (2013), section 3.1: "The skew :math:`\pi` is assumed to be
given or is set to n/(n+m)". Precision depends on the prevalence and recall
does not:

.. math::

    \mathrm{prec}(c) = \frac{\pi\,\mathrm{TPR}(c)}{\pi\,\mathrm{TPR}(c) + (1-\pi)\,\mathrm{FPR}(c)}

so the PR curve at a population prevalence :math:`\pi` is the sample's curve
with every negative counted :math:`w = n(1-\pi) / (m\pi)` times (``n``
positives, ``m`` negatives in the group): then ``TP / (TP + w FP)`` is the
precision above. This is the reweighting of a case-control sample whose
controls were drawn at a known fraction (Boyd et al.'s "given" skew); with
case weights the counts are weighted sums and ``w`` uses them.

Every estimator reads the reweighted table as counts (float64, see
:class:`~aucpr_stats.ties.TieTable`); the weight is recomputed from each table
it is handed (a bootstrap replicate, a fold), so the prevalence is held fixed
at the stated value everywhere: intervals treat it as known.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import numpy as np

from .._validate import probability_iv
from ..ties import TieTable

__all__ = ["at_prevalence", "negative_weight", "prevalence_records"]


def negative_weight(ties: TieTable, prevalence: float) -> np.ndarray:
    """The weight ``n (1 - pi) / (m pi)`` of every negative, per segment (1 where a class is absent)."""
    n_pos, n_neg = ties.n_pos.astype(np.float64), ties.n_neg.astype(np.float64)
    both = (n_pos > 0) & (n_neg > 0)
    weight = np.ones(ties.n_segments)
    weight[both] = n_pos[both] * (1.0 - prevalence) / (n_neg[both] * prevalence)
    return weight


def at_prevalence(ties: TieTable, prevalence: float) -> TieTable:
    """The table with each segment's negatives reweighted so that positives make up ``prevalence`` of the weight.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable([2.0, 1.0], [4, 0], [0, 1], [0, 2])  # 4 positives, 1 negative: sample prevalence 0.8
    >>> at_prevalence(t, 0.2).neg.tolist()  # the negative now weighs as 16
    [0.0, 16.0]
    """
    weight = negative_weight(ties, prevalence)
    lengths = ties.lengths
    neg = ties.neg * (weight[0] if ties.n_segments == 1 else np.repeat(weight, lengths))
    return TieTable(ties.score, ties.pos.astype(np.float64), neg, ties.offsets)


def _reweighting(function, prevalence: float):
    if function is None:
        return None

    def reweighted(ties: TieTable) -> np.ndarray:
        return function(at_prevalence(ties, prevalence))

    reweighted.__doc__ = getattr(function, "__doc__", None)
    return reweighted


def prevalence_records(records: Sequence[Any], prevalence: Any) -> list[Any]:
    """The records evaluated at a stated prevalence (unchanged when ``prevalence`` is None).

    The reweighting scales each segment's negatives by one factor, so it
    commutes with the reductions of :func:`~aucpr_stats.estimators.registry.reduction_for`
    (the records keep their ``reads``) and with the stratified bootstrap,
    whose replicates keep the class sizes. A reweighted record is not a sum
    an engine can add up (``summable=False``) and has no partial form of its
    own (a partial area's record is reweighted after its window is applied).
    """
    if prevalence is None:
        return list(records)
    prevalence = probability_iv(prevalence, "prevalence")
    return [attrs.evolve(record, function=_reweighting(record.function, prevalence),
                         contributions=_reweighting(record.contributions, prevalence),
                         replicate_kernel=_reweighting(record.replicate_kernel, prevalence),
                         published=None, summable=False, partial=None) for record in records]
