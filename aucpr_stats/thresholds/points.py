"""Counts at every threshold of every group at once, read off the tie table.

A threshold ``t`` calls a case positive when its score is ``>= t`` (pROC's
``direction = "<"``, "controls < cases"). With the distinct scores of a group
in descending order, ``s_1 > s_2 > ... > s_k``, the running sums of the tie
table give the true and false positives below each distinct score, so a group
has exactly ``k + 1`` different classifications:

* ``t = +inf``: nobody is called positive (``tp = fp = 0``);
* ``t`` between ``s_{i+1}`` and ``s_i``: the cases scoring ``>= s_i``;
* ``t = -inf``: everybody.

pROC reports the threshold between two distinct scores as their midpoint
(``roc_utils_thresholds``): ``(s_i + s_{i+1}) / 2``, computed as
``s_i / 2 + s_{i+1} / 2`` when the sum is beyond ``1e100`` in magnitude, and
moved to ``s_i`` when rounding puts the midpoint on the lower score (two
adjacent floating-point numbers), so that ``score >= t`` keeps its meaning.
The kernels below reproduce those numbers bit for bit, vectorised over the
segments (groups) of a :class:`~aucpr_stats.ties.TieTable`: no loop over
groups or thresholds.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..ties import TieTable, segment_cumsum

__all__ = ["ThresholdPoints", "all_thresholds", "best_mask", "counts_at", "criterion", "midpoints"]


@attrs.frozen(eq=False)
class ThresholdPoints:
    """Thresholds with their counts, in CSR layout over groups.

    Attributes
    ----------
    group : ndarray of int64
        Group (segment of the tie table) of each threshold.
    threshold : ndarray of float64
        The threshold (a case is called positive when its score is ``>= threshold``).
    tp, fp : ndarray of int64
        Positives and negatives called positive at that threshold.
    n_pos, n_neg : ndarray of int64
        Positives and negatives of the threshold's group.
    """

    group: np.ndarray
    threshold: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray

    @property
    def sensitivity(self) -> np.ndarray:
        """``tp / n_pos`` (NaN without positives), as pROC computes it."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.tp / np.where(self.n_pos > 0, self.n_pos, np.nan)

    @property
    def specificity(self) -> np.ndarray:
        """``(n_neg - fp) / n_neg`` (NaN without negatives), as pROC computes it."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return (self.n_neg - self.fp) / np.where(self.n_neg > 0, self.n_neg, np.nan)

    def take(self, index: np.ndarray) -> ThresholdPoints:
        """The thresholds at ``index``."""
        return ThresholdPoints(*(getattr(self, f.name)[index] for f in attrs.fields(ThresholdPoints)))


def midpoints(upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """pROC's threshold between two adjacent distinct scores ``upper > lower``.

    The midpoint ``(upper + lower) / 2``; ``upper / 2 + lower / 2`` where that
    is beyond 1e100 in magnitude (no overflow); ``upper`` where rounding put
    the midpoint on ``lower`` (so ``score >= t`` still separates the two).
    """
    upper = np.asarray(upper, dtype=np.float64)
    lower = np.asarray(lower, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        mid = (upper + lower) / 2.0
        mid = np.where(np.abs(mid) > 1e100, upper / 2.0 + lower / 2.0, mid)
    return np.where(mid == lower, upper, mid)


def all_thresholds(ties: TieTable) -> ThresholdPoints:
    """Every threshold of every group (pROC's ``coords(roc, "all")``), in descending order of threshold.

    Group ``g`` with ``k`` distinct scores gets ``k + 1`` thresholds: ``+inf``,
    the ``k - 1`` midpoints between adjacent distinct scores, and ``-inf``.
    A group without rows gets the single threshold ``+inf`` with zero counts.
    """
    n_seg = ties.n_segments
    lengths = ties.lengths
    seg = ties.segment_ids()
    total = ties.n_rows + n_seg
    # each group's first threshold (+inf) sits before its tie rows: row r of segment g moves to r + g + 1
    row_pos = np.arange(ties.n_rows, dtype=np.int64) + seg + 1
    tp = np.zeros(total, dtype=ties.pos.dtype)  # float64 for weighted counts (int64 would truncate them)
    fp = np.zeros(total, dtype=ties.neg.dtype)
    tp[row_pos] = ties.tp()
    fp[row_pos] = ties.fp()
    threshold = np.full(total, np.inf)
    score = ties.score
    last = np.zeros(ties.n_rows, dtype=bool)
    last[(ties.offsets[1:] - 1)[lengths > 0]] = True  # each group's lowest score: below it, -inf
    inner = np.flatnonzero(~last)
    threshold[row_pos[inner]] = midpoints(score[inner], score[inner + 1])
    threshold[row_pos[last]] = -np.inf
    group = np.repeat(np.arange(n_seg, dtype=np.int64), lengths + 1)
    return ThresholdPoints(group, threshold, tp, fp, ties.n_pos[group], ties.n_neg[group])


def counts_at(ties: TieTable, values: np.ndarray) -> ThresholdPoints:
    """Counts at given thresholds, the same ``values`` in every group (pROC's ``coords(roc, x=values)``).

    A case is called positive when its score is ``>= value``; ``values`` may
    lie outside the scores (all or none called positive) or be infinite.
    ``values`` of shape (n_segments, m) give each group its own ``m``
    thresholds (e.g. negated for the groups of a score read the other way).
    One sort of the tie rows and the thresholds together (by group, then
    value descending, a score before an equal threshold) and running sums
    give every count at once.

    Returns
    -------
    ThresholdPoints
        Group-major: the thresholds of group 0 in the order of ``values``, then group 1 ...
    """
    values = np.asarray(values, dtype=np.float64)
    n_seg = ties.n_segments
    if values.ndim == 2:
        if values.shape[0] != n_seg:
            raise ValueError(f"`values` of shape {values.shape} must have one row per group ({n_seg})")
        n_val, q_value = values.shape[1], values.ravel()
    else:
        values = values.ravel()
        n_val, q_value = values.size, np.tile(values, n_seg)
    q_group = np.repeat(np.arange(n_seg, dtype=np.int64), n_val)
    group = np.concatenate([ties.segment_ids(), q_group])
    value = np.concatenate([ties.score, q_value])
    kind = np.concatenate([np.zeros(ties.n_rows, dtype=np.int8), np.ones(q_group.size, dtype=np.int8)])
    pos = np.concatenate([ties.pos, np.zeros(q_group.size, dtype=np.int64)])
    neg = np.concatenate([ties.neg, np.zeros(q_group.size, dtype=np.int64)])
    order = np.lexsort((kind, -value, group))
    # running sums restarted at each group (its rows and thresholds are contiguous in ``order``): weighted
    # counts then carry no rounding of the groups sorted ahead of it
    bounds = np.concatenate(([0], np.cumsum(ties.lengths + n_val)))
    cum_pos, cum_neg = segment_cumsum(pos[order], bounds), segment_cumsum(neg[order], bounds)
    where = np.empty(order.size, dtype=np.int64)
    where[order] = np.arange(order.size)
    q_at = where[ties.n_rows:]
    tp = cum_pos[q_at]
    fp = cum_neg[q_at]
    return ThresholdPoints(q_group, q_value, tp, fp, ties.n_pos[q_group], ties.n_neg[q_group])


def criterion(points: ThresholdPoints, method: str, weights: tuple[float, float] = (1.0, 0.5)) -> np.ndarray:
    """pROC's ``optim.crit`` (larger is better): Youden ``se + r sp`` or ``-((1 - se)^2 + r (1 - sp)^2)``.

    A target (``"sensitivity>=0.9"``, ``"specificity>=0.95"``): the other
    measure where the target is reached, ``-inf`` elsewhere, so the best
    threshold is the most specific (sensitive) one that reaches it.

    ``r = (1 - w2) / (w1 w2)`` from ``weights = (w1, w2)`` (pROC's
    ``best.weights``: the relative cost of a false negative and the
    prevalence); 1 by default. Written as pROC writes it, so that equal
    criteria (ties between thresholds) are equal here too.
    """
    se, sp = points.sensitivity, points.specificity
    target = target_of(method)
    if target is not None:  # "sensitivity>=0.9": the most specific threshold reaching that sensitivity
        measure, value = target
        reached, other = (se, sp) if measure == "sensitivity" else (sp, se)
        with np.errstate(invalid="ignore"):
            return np.where(reached >= value - 1e-12, other, -np.inf)
    r = (1.0 - weights[1]) / (weights[0] * weights[1])
    if method == "youden":
        return se + r * sp
    return -((1.0 - se) ** 2 + r * (1.0 - sp) ** 2)


def target_of(method: str) -> tuple[str, float] | None:
    """``("sensitivity", 0.9)`` for the criterion ``"sensitivity>=0.9"`` (likewise specificity); else None."""
    for measure in ("sensitivity", "specificity"):
        prefix = f"{measure}>="
        if isinstance(method, str) and method.startswith(prefix):
            try:
                return measure, float(method[len(prefix):])
            except ValueError:
                return None
    return None


def best_mask(points: ThresholdPoints, crit: np.ndarray, n_groups: int) -> np.ndarray:
    """The thresholds whose criterion equals their group's maximum (every one of a tie, as pROC returns them).

    ``points`` must hold every threshold of each group (:func:`all_thresholds`),
    grouped. Groups whose criterion is NaN (one class only) get none.
    """
    best = np.full(n_groups, -np.inf)
    finite = np.isfinite(crit)
    np.maximum.at(best, points.group[finite], crit[finite])
    return finite & (crit == best[points.group])
