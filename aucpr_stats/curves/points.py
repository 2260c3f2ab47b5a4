r"""The empirical PR and ROC curves read at chosen recalls (false positive rates), for every segment at once.

Points
    The points of :func:`aucpr_stats.estimators.pr_points.pr_points`, shared
    with every AUCPR estimator: a start point (nothing admitted: recall 0,
    precision 1, threshold ``+inf``), then one point per distinct score from
    the highest down, admitting all rows with ``score >= threshold`` (ties
    never split).

Step evaluation (Clémençon & Vayatis 2009, section 2.3, Eq. 3)
    .. math:: \widehat{PR}(\beta) = \frac{n_+\beta}{n_+\beta + n_-\hat\alpha(\beta)},
              \qquad \hat\alpha(\beta) = 1 - \hat H\big(\hat G^{-1}(1-\beta)\big),

    with :math:`\hat G^{-1}(u) = \inf\{x : \hat G(x) \ge u\}`. The quantile
    :math:`t = \hat G^{-1}(1-\beta)` is the :math:`j`-th highest positive score,
    :math:`j = \lfloor n_+\beta\rfloor + 1` (:func:`step_quantile_rank`), and
    :math:`\hat\alpha(\beta)` is the fraction of negatives scored **strictly
    above** :math:`t` (the cdf :math:`\hat H` counts ties as below). So on
    :math:`[(j-1)/n_+,\ j/n_+)` the false positive rate is constant, equal to
    that of the negatives ranked above the :math:`j`-th positive (negatives
    tied with it are not counted): the curve is right-continuous (càd-làg),
    taking at each jump the value of the step that starts there. At
    :math:`\beta = 1`, :math:`t = -\infty` and the precision is :math:`n_+/n`;
    at :math:`\beta = 0` the formula's right limit (1 if no negative is
    above the top positive, else 0). Note that the numerator uses
    :math:`n_+\beta`, not the positives actually above :math:`t`. Eq. (3)
    is written for continuous scores: with ties across classes it does not
    count negatives tied with the threshold, so it is optimistic on heavily
    tied scores, where ``"interpolated"`` (ties admitted together) is the
    better reading.

Interpolated evaluation (Davis & Goadrich 2006; Boyd et al. 2013, Theorem 1)
    Between the last point with recall below :math:`\beta` and the first point
    with recall :math:`\ge \beta`, the straight ROC segment seen in PR space
    (:func:`~aucpr_stats.estimators.pr_points.dg_interpolate`). At a recall
    reached by several points (a vertical drop caused by negatives) the
    value is that of the first, highest, point. Recall 0 gives 1.

ROC
    The same conventions: ``"step"`` is the ROC curve of Remark 1,
    :math:`\widehat{ROC}(\alpha) = 1 - \hat G(\hat H^{-1}(1-\alpha))` (fraction of
    positives strictly above the :math:`(\lfloor n_-\alpha\rfloor+1)`-th highest
    negative), and ``"interpolated"`` the straight line between ROC points
    (at a false positive rate reached by several points, the highest).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..estimators.pr_points import dg_interpolate, pr_point_counts
from ..exceptions import InputError, InputTypeError
from ..ties import TieTable

__all__ = ["CURVE_METHODS", "step_quantile_rank", "pr_step", "roc_step", "pr_interpolated", "roc_interpolated",
           "point_thresholds", "grid_iv"]

CURVE_METHODS = ("step", "interpolated")


#: Tolerance added before ``floor(n * beta)`` so that ``n * beta`` computed as
#: 4.999999999 for an exact 5 lands on the intended step.
_RANK_TOL = 1e-9


# --------------------------------------------------------------------- ranks
def step_quantile_rank(n: np.ndarray, beta: np.ndarray) -> np.ndarray:
    r"""Descending rank ``j`` of the class quantile behind Eq. (3) at recall ``beta``.

    :math:`\hat G^{-1}(1-\beta)` with :math:`\hat G^{-1}(u) = \inf\{x: \hat G(x) \ge u\}`
    is the ascending order statistic of rank :math:`\lceil n(1-\beta)\rceil`,
    that is the :math:`j`-th highest score with :math:`j = \lfloor n\beta\rfloor + 1`.
    ``j = n + 1`` (only at ``beta = 1``) stands for :math:`-\infty`.
    """
    n = np.asarray(n, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    return (np.floor(n * beta + _RANK_TOL) + 1).astype(np.int64)



# ------------------------------------------------------------------ kernels
def _strict_exceedance(ties: TieTable, quantile_counts: np.ndarray, other_counts: np.ndarray,
                       rate: np.ndarray, split_ties: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Threshold and exceedance rate behind the step curves, for every segment and grid value.

    The threshold is the ``j``-th highest score of the "quantile" class,
    ``j = floor(n_q * rate) + 1`` (:func:`step_quantile_rank`);
    the exceedance rate is the fraction of the other class scored strictly
    above it. ``j > n_q`` means a threshold of ``-inf`` (rate 1).

    With ``split_ties`` the other class's rows tied with the threshold count
    in the proportion of the quantile class's tied rows already passed,
    ``s = (n_q * rate - above_q) / tied_q``: the exceedance a random order of
    the tied rows gives on average (linear in ``rate`` across the tie block,
    the Davis-Goadrich interpolation).

    Returns
    -------
    threshold, exceed : ndarray, shape (n_segments, n_grid)
        NaN for segments without rows of either class.
    """
    n_q = ties.segment_sum(quantile_counts)
    n_o = ties.segment_sum(other_counts)
    j = step_quantile_rank(n_q[:, None], rate[None, :])
    # running counts started at each segment's first row (weighted counts: no rounding of earlier segments)
    cum_q = ties.segment_cumsum(quantile_counts)
    cum_o = ties.segment_cumsum(other_counts)
    inside = j <= n_q[:, None]
    starts, ends = ties.offsets[:-1], ties.offsets[1:]
    # the segment's own running total (which may differ from n_q in the last bit for weighted counts):
    # a rank between the two reads the segment's last row reaching its total, never the next segment
    reached = np.where(ends > starts, cum_q[np.maximum(ends - 1, 0)] if ties.n_rows else 0, 0)
    row = _segment_lookup(cum_q, ties.offsets, np.minimum(j, reached[:, None]), side="left")
    row = np.minimum(row, max(ties.n_rows - 1, 0))
    if ties.n_rows:
        threshold = np.where(inside, ties.score[row], -np.inf)
        above = np.where(inside, cum_o[row] - other_counts[row], n_o[:, None])
        if split_ties:
            tied_q = quantile_counts[row]
            above_q = cum_q[row] - tied_q
            with np.errstate(invalid="ignore", divide="ignore"):
                passed = np.clip((n_q[:, None] * rate[None, :] - above_q) / tied_q, 0.0, 1.0)
            above = np.where(inside & (tied_q > 0), above + passed * other_counts[row], above)
    else:
        threshold = np.full(j.shape, -np.inf)
        above = np.zeros(j.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        exceed = above / n_o[:, None]
    bad = (n_q == 0) | (n_o == 0)
    threshold = np.where(bad[:, None], np.nan, threshold)
    exceed = np.where(bad[:, None], np.nan, exceed)
    return threshold, exceed



def pr_step(ties: TieTable, recall: np.ndarray, tie_blocks: str = "interpolate") -> tuple[np.ndarray, np.ndarray]:
    r"""The empirical PR curve of Eq. (3) at the given recalls, for every segment.

    .. math:: \widehat{PR}(\beta) = \frac{n_+\beta}{n_+\beta + n_-\hat\alpha(\beta)}

    With ``tie_blocks="interpolate"`` (the default), the negatives tied with
    the threshold count in the proportion of the tied positives already
    passed, so a tie block holding both classes is crossed along the
    Davis-Goadrich interpolation and a constant score reads the prevalence
    at every recall (recall 0 included: a mixed top block's own precision).
    ``"published"`` is Eq. (3) as written (tied negatives not counted). The
    two agree on scores without ties across classes.

    Parameters
    ----------
    ties : TieTable
    recall : ndarray of float in [0, 1], shape (m,)
    tie_blocks : {"interpolate", "published"}

    Returns
    -------
    precision, threshold : ndarray, shape (n_segments, m)
        ``threshold`` is :math:`\hat G^{-1}(1-\beta)` (``-inf`` at recall 1).
        NaN for segments without both classes.

    References
    ----------
    Clémençon, S., Vayatis, N. (2009). Nonparametric estimation of the
    precision-recall curve. ICML, section 2.3, Eq. (3).
    """
    recall = np.asarray(recall, dtype=np.float64)
    split = tie_blocks == "interpolate"
    threshold, alpha = _strict_exceedance(ties, ties.pos, ties.neg, recall, split_ties=split)
    n_pos = ties.n_pos[:, None].astype(np.float64)
    n_neg = ties.n_neg[:, None].astype(np.float64)
    numerator = n_pos * recall[None, :]
    denominator = numerator + n_neg * alpha
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = numerator / denominator
    # recall 0: the right limit, 1 when no negative lies above the top positive
    # (with split ties: the top positive row's own precision)
    at_zero = (numerator == 0) & (alpha == 0)
    precision = np.where(at_zero, _top_block_precision(ties)[:, None] if split else 1.0, precision)
    return precision, threshold


def _top_block_precision(ties: TieTable) -> np.ndarray:
    """Per segment, the precision of its first row holding positives (1 when no negative is tied with it)."""
    out = np.full(ties.n_segments, np.nan)
    rows = np.flatnonzero(ties.pos > 0)
    if rows.size:
        segment = np.searchsorted(ties.offsets, rows, side="right") - 1
        first = np.unique(segment, return_index=True)
        row = rows[first[1]]
        out[first[0]] = ties.pos[row] / (ties.pos[row] + ties.neg[row])
    return out



def roc_step(ties: TieTable, fpr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The empirical ROC curve :math:`1 - \hat G(\hat H^{-1}(1-\alpha))` (Remark 1) at the given false positive rates.

    Returns
    -------
    tpr, threshold : ndarray, shape (n_segments, m)
    """
    threshold, tpr = _strict_exceedance(ties, ties.neg, ties.pos, np.asarray(fpr, dtype=np.float64))
    return tpr, threshold



def _segment_lookup(x: np.ndarray, offsets: np.ndarray, grid: np.ndarray, side: str) -> np.ndarray:
    """Global index of ``searchsorted(x[segment], grid, side)`` for each segment, shape (n_segments, m).

    ``x`` is non-decreasing within each segment; ``grid`` is one row of
    values for every segment (shape (m,)) or one per segment (shape
    (n_segments, m)). The keys are the complex numbers ``segment + i x``,
    which numpy orders by real part, then imaginary part: non-decreasing
    overall, so one search serves all, and every comparison is the exact
    one of ``x`` with ``grid`` (a real key ``2 * segment + x`` would round
    ``x`` to the spacing of the segment's index, so a segment's values would
    depend on its position).
    """
    n_seg = offsets.size - 1
    seg = np.repeat(np.arange(n_seg, dtype=np.float64), np.diff(offsets))
    key = seg + 1j * np.asarray(x, dtype=np.float64)
    query = np.arange(n_seg, dtype=np.float64)[:, None] + 1j * np.asarray(grid, dtype=np.float64)
    return np.searchsorted(key, query, side=side)



def pr_interpolated(ties: TieTable, recall: np.ndarray, tie_blocks: str = "interpolate") -> np.ndarray:
    """The Davis-Goadrich interpolation of the PR points at the given recalls, shape (n_segments, m).

    With ``tie_blocks="interpolate"`` (the default) the interpolation is
    linear in the counts (TP, FP) between consecutive points, so a piece
    that starts at recall 0 after negatives keeps their count, and recall 0
    reads the right limit of the curve (a mixed top block's own precision,
    0 after negatives); ``"published"`` interpolates in PR space with the
    start point at precision 1. They agree when no tie holds both classes
    and no negative precedes the first positive.

    NaN for segments without both classes.
    """
    tp, fp, offsets = pr_point_counts(ties)
    usable = ties.has_both_classes()
    n_pos = np.repeat(ties.n_pos, np.diff(offsets)).astype(np.float64)
    admitted = tp + fp
    r = np.where(np.repeat(usable, np.diff(offsets)), tp / np.maximum(n_pos, 1), 0.0)
    p = np.divide(tp, admitted, out=np.ones(tp.size), where=admitted > 0)
    # first point with recall >= beta, interpolated from the point before it
    hi = _segment_lookup(r, offsets, recall, side="left")
    hi = np.maximum(hi, offsets[:-1, None] + 1)  # recall 0: the start point and the next
    hi = np.minimum(hi, offsets[1:, None] - 1)  # segments without positives (NaN below)
    lo = hi - 1
    if tie_blocks == "interpolate":
        out = _count_interpolation(tp, fp, lo, hi, n_pos[hi], recall)
    else:
        out = dg_interpolate(r[lo], p[lo], r[hi], p[hi], np.broadcast_to(recall, hi.shape))
        out = np.where(recall[None, :] == 0, 1.0, out)
    out[~usable] = np.nan
    return out


def _count_interpolation(tp, fp, lo, hi, n_pos, recall) -> np.ndarray:
    """Precision on the straight ROC segment from point ``lo`` to ``hi`` (counts), at each recall.

    At recall 0 the right limit: the segment's precision when it starts at
    the origin, 0 when negatives were admitted before it.
    """
    target = np.broadcast_to(recall[None, :] * n_pos, hi.shape)
    gained = tp[hi] - tp[lo]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.clip(np.where(gained > 0, (target - tp[lo]) / gained, 1.0), 0.0, 1.0)
        false_pos = fp[lo] + t * (fp[hi] - fp[lo])
        out = target / (target + false_pos)
        limit = np.where(fp[lo] > 0, 0.0, gained / (gained + fp[hi] - fp[lo]))
    return np.where(target == 0, limit, out)


def roc_interpolated(ties: TieTable, fpr: np.ndarray) -> np.ndarray:
    """The straight lines between ROC points at the given false positive rates, shape (n_segments, m).

    NaN for segments without both classes.
    """
    rows = ties.lengths
    if rows.size and rows.min() == rows.max() > 0 and ties.pos.dtype.kind == "i" == ties.neg.dtype.kind:
        tp, fp, offsets = _chunk_point_counts(ties, (rows.size, int(rows[0])))
    else:
        tp, fp, offsets = pr_point_counts(ties)
    lengths = np.diff(offsets)
    usable = np.repeat(ties.has_both_classes(), lengths)
    x = np.where(usable, fp / np.maximum(np.repeat(ties.n_neg, lengths), 1), 0.0)
    y = np.where(usable, tp / np.maximum(np.repeat(ties.n_pos, lengths), 1), 0.0)
    # last point with fpr <= alpha (the top of a vertical run), then the line to the next point
    lo = _segment_lookup(x, offsets, fpr, side="right") - 1
    lo = np.clip(lo, offsets[:-1, None], offsets[1:, None] - 1)
    hi = np.minimum(lo + 1, offsets[1:, None] - 1)
    width = x[hi] - x[lo]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(width > 0, (fpr[None, :] - x[lo]) / width, 0.0)
    out = y[lo] + np.clip(t, 0.0, 1.0) * (y[hi] - y[lo])
    out[~ties.has_both_classes()] = np.nan
    return out


def _chunk_point_counts(ties: TieTable, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ROC points of segments of one length (bootstrap replicates of one group), zero-count rows kept.

    A row without counts repeats the point before it, which changes no
    straight line between the points: the lookup of
    :func:`roc_interpolated` takes the last point at or below a rate and the
    next one, the same two points (the same numbers) as on the table
    without such rows, which :func:`~aucpr_stats.estimators.pr_points.pr_point_counts`
    drops at the cost of a copy of every row.
    """
    n_seg, width = shape
    tp = np.zeros((n_seg, width + 1), dtype=np.int64)
    fp = np.zeros((n_seg, width + 1), dtype=np.int64)
    np.cumsum(ties.pos.reshape(shape), axis=1, out=tp[:, 1:])
    np.cumsum(ties.neg.reshape(shape), axis=1, out=fp[:, 1:])
    return tp.ravel(), fp.ravel(), np.arange(n_seg + 1, dtype=np.int64) * (width + 1)


def point_thresholds(ties: TieTable) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(threshold, tp, fp, offsets) of every empirical point, the start point (threshold ``+inf``) first."""
    tp, fp, offsets = pr_point_counts(ties)
    threshold = np.full(tp.size, np.inf)
    is_start = np.zeros(tp.size, dtype=bool)
    is_start[offsets[:-1]] = True
    threshold[~is_start] = ties.compact().score
    return threshold, tp, fp, offsets


def grid_iv(values: Any, argument: str) -> np.ndarray:
    try:
        grid = np.atleast_1d(np.asarray(values, dtype=np.float64))
    except (TypeError, ValueError):
        raise InputTypeError(f"`{argument}` must be an array of numbers in [0, 1]; got {values!r}") from None
    if grid.ndim != 1 or grid.size == 0:
        raise InputError(f"`{argument}` must be a non-empty 1-D array; got shape {grid.shape}")
    if np.any(~np.isfinite(grid)) or np.any((grid < 0) | (grid > 1)):
        raise InputError(f"`{argument}` values must lie in [0, 1]; got values in [{np.nanmin(grid)}, {np.nanmax(grid)}]")
    return grid

