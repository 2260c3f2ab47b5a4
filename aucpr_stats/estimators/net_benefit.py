r"""Net benefit at risk thresholds, read off the tie table: decision curve analysis.

A patient is treated when the predicted risk is at least the threshold
:math:`t` (``p >= t``; dcurves and rmda). With the threshold odds
:math:`w = t / (1 - t)` (the harm of treating a non-event, in units of the
benefit of treating an event, that a threshold of :math:`t` expresses), the
**net benefit** of the model (Vickers & Elkin 2006, Eq. 1) is

.. math::

    \mathrm{NB}(t) = \frac{TP(t)}{n} - \frac{FP(t)}{n}\, w - h ,

with :math:`h` the harm of the test itself (``harm=``, default 0). The
**opt-out** policy (Kerr et al. 2016), for decisions to withhold a default
treatment, counts true negatives: :math:`\mathrm{NB}_{\mathrm{out}}(t) =
TN(t)/n - FN(t)/n \cdot w^{-1} - h`. The references are the strategies that
ignore the model: under opt-in, treat none (0) and treat all,
:math:`\pi - (1 - \pi)\,w`; under opt-out, treat all (0) and treat none,
:math:`(1 - \pi) - \pi / w`. The **standardised net benefit** divides by
the largest value a perfect model reaches, :math:`\pi` (opt-in) or
:math:`1 - \pi` (opt-out); the **net interventions avoided per 100**
is :math:`100\,(\mathrm{NB} - \mathrm{NB}_{\mathrm{all}})/w = 100\,(TN/n -
FN/n \cdot w^{-1} - h/w)`, the same under either policy (it is the opt-out
net benefit, per 100).

Every one of them is a ratio of linear sums over the rows: each row
contributes a constant that depends on its class and on whether its risk is
above the threshold (``coefficients``), so the counts at every threshold of
every group, one binary search per tie row (:func:`threshold_counts`),
give all of them at once; weights enter as counts. At a stated population
prevalence :math:`\pi` (a case-control sample; rmda's
``population.prevalence``) the events' and non-events' sums are read as
proportions within their class and combined with :math:`\pi` and
:math:`1 - \pi`.

References
----------
Vickers, A. J., Elkin, E. B. (2006). Decision curve analysis: a novel method
for evaluating prediction models. Med Decis Making 26, 565-574.
Kerr, K. F., Brown, M. D., Zhu, K., Janes, H. (2016). Assessing the clinical
impact of risk prediction models with decision curves: guidance for correct
interpretation and appropriate use. J Clin Oncol 34, 2534-2540.
Vickers, A. J., Van Calster, B., Steyerberg, E. W. (2016). Net benefit
approaches to the evaluation of prediction models, molecular markers, and
diagnostic tests. BMJ 352, i6.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import numpy as np

from .._validate import shown
from ..exceptions import InputError
from ..ties import TieTable

__all__ = ["POLICIES", "NET_BENEFIT_STATISTICS", "DEFAULT_THRESHOLDS", "Rule", "RuleSet", "ThresholdCounts", "rule",
           "threshold_counts", "coefficients", "linear_statistic", "references", "rule_column", "thresholds_iv"]

#: ``policy=``: treat those at or above the threshold (opt-in), or withhold a default treatment below it (opt-out).
POLICIES = ("opt-in", "opt-out")
#: The statistics with an estimate and an interval at each threshold, in display order.
NET_BENEFIT_STATISTICS = ("net_benefit", "standardized_net_benefit", "interventions_avoided")
#: 1% to 99% by 1% (dcurves' grid without its threshold of 0, where the odds are 0).
DEFAULT_THRESHOLDS = tuple(np.round(np.arange(1, 100) / 100.0, 2).tolist())


@attrs.frozen
class Rule:
    """One statistic at one threshold as a ratio of sums: each row's term by class and side of the threshold.

    The statistic of a group is ``scale * A / B`` with
    ``A = sum(pos_above) * a1 + sum(pos_below) * a0 + sum(neg_above) * b1 + sum(neg_below) * b0`` and
    ``B = alpha * sum(pos) + beta * sum(neg)`` (a cohort); at a stated prevalence
    ``pi`` it is ``scale * (pi * A_pos / P + (1 - pi) * A_neg / N) / (alpha * pi + beta * (1 - pi))``.
    """

    threshold: float
    a1: float
    a0: float
    b1: float
    b0: float
    alpha: float = 1.0
    beta: float = 1.0
    scale: float = 1.0


def rule(statistic: str, threshold: float, policy: str = "opt-in", harm: float = 0.0) -> Rule:
    """The :class:`Rule` of ``statistic`` at ``threshold`` under ``policy``, the test's ``harm`` subtracted."""
    w = threshold / (1.0 - threshold)
    if statistic == "interventions_avoided":  # 100 (TN - FN / w) / n - 100 h / w, whatever the policy
        return Rule(threshold, 0.0 - harm / w, -1.0 / w - harm / w, -harm / w, 1.0 - harm / w, scale=100.0)
    if policy == "opt-in":
        terms = (1.0 - harm, -harm, -w - harm, -harm)
    else:
        terms = (-harm, -1.0 / w - harm, -harm, 1.0 - harm)
    if statistic == "net_benefit":
        return Rule(threshold, *terms)
    if statistic == "standardized_net_benefit":  # over the largest net benefit: pi (opt-in), 1 - pi (opt-out)
        alpha, beta = (1.0, 0.0) if policy == "opt-in" else (0.0, 1.0)
        return Rule(threshold, *terms, alpha=alpha, beta=beta)
    raise ValueError(f"unknown net benefit statistic {statistic!r}")


@attrs.frozen(eq=False)
class ThresholdCounts:
    """Counts above each threshold of each group, and the class totals.

    Attributes
    ----------
    thresholds : ndarray, shape (T,)
    tp, fp : ndarray, shape (n_segments, T)
        Events and non-events (their weight) with a risk ``>= threshold``.
    n_pos, n_neg : ndarray, shape (n_segments,)
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray

    @property
    def fn(self) -> np.ndarray:
        return self.n_pos[:, None] - self.tp

    @property
    def tn(self) -> np.ndarray:
        return self.n_neg[:, None] - self.fp


def threshold_counts(ties: TieTable, thresholds: Sequence[float]) -> ThresholdCounts:
    r""":class:`ThresholdCounts` of every segment at ``thresholds`` (ascending, distinct).

    Each tie row's bin is the number of thresholds at or below its score
    (one binary search per row, exact: floats compared, never rounded); the
    counts per (segment, bin), summed from the top bin down, are the counts
    at or above every threshold: :math:`O(\text{rows} \log T + \text{segments} \cdot T)`.
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    n_t, n_seg = thresholds.size, ties.n_segments
    n_pos, n_neg = ties.n_pos.astype(np.float64), ties.n_neg.astype(np.float64)
    buckets = ties.class_buckets()
    if buckets is not None:  # a deferred table: each class's sorted scores, read without merging them
        values, bounds = buckets
        bins = np.searchsorted(thresholds, values, side="right")  # a score is at or above t_j when j < bin
        bucket = np.repeat(np.arange(2 * n_seg), np.diff(bounds))
        cells = np.bincount(bucket * (n_t + 1) + bins, minlength=2 * n_seg * (n_t + 1))
        above = _above(cells.reshape(n_seg, 2, n_t + 1).astype(np.float64))
        return ThresholdCounts(thresholds, above[:, 1], above[:, 0], n_pos, n_neg)
    bins = np.searchsorted(thresholds, ties.score, side="right")
    cell = ties.segment_ids() * (n_t + 1) + bins

    def counted(counts: np.ndarray) -> np.ndarray:
        return _above(np.bincount(cell, weights=counts, minlength=n_seg * (n_t + 1)).reshape(n_seg, n_t + 1))

    return ThresholdCounts(thresholds, counted(ties.pos), counted(ties.neg), n_pos, n_neg)


def _above(histogram: np.ndarray) -> np.ndarray:
    """Counts in the bins above each threshold: the sum over bins ``> j`` along the last axis."""
    return np.cumsum(histogram[..., ::-1], axis=-1)[..., ::-1][..., 1:]


@attrs.frozen(eq=False)
class RuleSet:
    """The rules of one call (every statistic at every threshold) and its stated prevalence.

    Hashed by identity: the values of every rule on a table are computed
    once and kept in the table's ``__dict__`` under this key (:func:`rule_column`).
    """

    rules: tuple
    prevalence: float | None = None

    @property
    def thresholds(self) -> np.ndarray:
        """The distinct thresholds of the rules, ascending."""
        return np.unique(np.array([r.threshold for r in self.rules], dtype=np.float64))


def rule_column(ties: TieTable, rules: RuleSet, j: int) -> np.ndarray:
    """The value of rule ``j`` of ``rules`` in every segment; every rule computed once per table."""
    store = vars(ties).setdefault("net_benefit_values", {})
    if rules not in store:
        thresholds = rules.thresholds
        counts = threshold_counts(ties, thresholds)
        at = np.searchsorted(thresholds, [r.threshold for r in rules.rules])
        store[rules] = linear_statistic(counts, rules.rules, rules.prevalence, columns=at)
    return store[rules][:, j]


def coefficients(rules: Sequence[Rule]) -> tuple[np.ndarray, ...]:
    """``(a1, a0, b1, b0, alpha, beta, scale)`` of ``rules``, each an array with one value per rule."""
    return tuple(np.array([getattr(r, f) for r in rules], dtype=np.float64)
                 for f in ("a1", "a0", "b1", "b0", "alpha", "beta", "scale"))


def linear_statistic(counts: ThresholdCounts, rules: Sequence[Rule], prevalence: float | None = None,
                     columns: np.ndarray | None = None) -> np.ndarray:
    """The statistics of ``rules`` for every segment: (n_segments, len(rules)).

    Rule ``k`` reads the counts at threshold column ``columns[k]`` (default: ``k``).
    """
    if columns is not None:
        counts = ThresholdCounts(counts.thresholds[columns], counts.tp[:, columns], counts.fp[:, columns],
                                 counts.n_pos, counts.n_neg)
    a1, a0, b1, b0, alpha, beta, scale = coefficients(rules)
    pos_sum = counts.tp * a1 + counts.fn * a0
    neg_sum = counts.fp * b1 + counts.tn * b0
    p, n = counts.n_pos[:, None], counts.n_neg[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        if prevalence is None:
            return scale * (pos_sum + neg_sum) / (alpha * p + beta * n)
        pi = prevalence
        return scale * (pi * pos_sum / p + (1.0 - pi) * neg_sum / n) / (alpha * pi + beta * (1.0 - pi))


def references(n_pos: np.ndarray, n_neg: np.ndarray, thresholds: np.ndarray, policy: str = "opt-in",
               prevalence: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(treat all, treat none) net benefit of every group at every threshold: (n_segments, T) each."""
    n_pos, n_neg = np.asarray(n_pos, dtype=np.float64), np.asarray(n_neg, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = (n_pos / (n_pos + n_neg) if prevalence is None else np.full(n_pos.shape, prevalence))[:, None]
    w = (thresholds / (1.0 - thresholds))[None, :]
    zero = np.zeros((n_pos.size, thresholds.size))
    if policy == "opt-in":
        return pi - (1.0 - pi) * w, zero
    return zero, (1.0 - pi) - pi / w


def thresholds_iv(thresholds: Any) -> tuple[float, ...]:
    """``thresholds``: risk thresholds strictly between 0 and 1, returned ascending and distinct."""
    try:
        values = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
    except (TypeError, ValueError):
        raise InputError(f"`thresholds` must be numbers strictly between 0 and 1; got {shown(thresholds)}"
                         ) from None
    if values.ndim != 1 or values.size == 0:
        raise InputError(f"`thresholds` must be one number or a sequence of numbers; got {shown(thresholds)}")
    bad = ~((values > 0.0) & (values < 1.0))
    if bad.any():
        raise InputError(f"`thresholds` must lie strictly between 0 and 1 (a threshold of 0 or 1 has no odds "
                         f"t / (1 - t)); got {int(bad.sum())} outside, e.g. {float(values[bad][0])!r}")
    return tuple(np.unique(values).tolist())
