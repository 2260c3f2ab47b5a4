"""Average precision, Boyd, Eng & Page (2013) Eq. (9): the estimator, its per-positive contributions
and its kernel on chunks of bootstrap replicates."""

from __future__ import annotations

import numpy as np

from ..scratch import work_array
from ..ties import TieTable, segment_cumsum
from .tie_blocks import DEFAULT_TIES, crossing_precision

__all__ = ["average_precision", "average_precision_contributions", "average_precision_replicates"]


def average_precision(ties: TieTable, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    r"""Average precision of each segment of a tie table.

    .. math:: \hat\theta_A = \frac{1}{n}\sum_{i=1}^{n} \widehat{Prec}(Y_i)

    Boyd, Eng & Page (2013), Eq. (9): the mean over the ``n`` positives of the
    precision at the threshold that admits that positive. Tied scores form one
    block that is admitted at once, so all positives of a block share the
    precision ``TP / (TP + FP)`` counted at the bottom of the block. This is
    the definition of ``sklearn.metrics.average_precision_score``
    (``tie_blocks="published"``).

    With ``tie_blocks="interpolate"`` (the default) the positives of a block
    that also holds negatives get instead the mean precision along the
    block's Davis-Goadrich crossing, the path a random order of its rows
    follows on average (:mod:`aucpr_stats.estimators.tie_blocks`); a
    constant score then gives the prevalence. Blocks of one class, and so
    data without ties across classes, give scikit-learn's value.
    :func:`~aucpr_stats.estimators.tie_blocks.expected_average_precision`
    is the exact mean over random orders of the tied rows.

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive (others give NaN).
    tie_blocks : {"interpolate", "published"}

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    Boyd, K., Eng, K. H., Page, C. D. (2013). Area under the precision-recall
    curve: point estimates and confidence intervals. ECML PKDD, Eq. (9).

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 0, 1], neg=[0, 1, 0], offsets=[0, 3])
    >>> float(average_precision(t)[0])  # (1/1 + 2/3) / 2
    0.8333333333333333
    """
    # Only rows holding positives contribute; every positive of a row shares
    # the precision TP / (TP + FP) counted down to the bottom of its tie block.
    if ties.n_segments == 1 and tie_blocks == "published":
        weight, tp, fp = ties.positive_rows()
        if not weight.size:
            return np.array([np.nan])
        # reduceat and n_pos, as segment_sum_at below: the bits the group gets among other groups
        # (np.sum groups the additions otherwise)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.add.reduceat(weight * (tp / (tp + fp)), [0]) / ties.n_pos
    if ties.is_deferred:
        # the collapsed table has the same positive rows and the same running counts
        # there (integers): the same bits, without merging the classes
        ties = ties.collapsed()
    # TP is the running sum of the positive counts of those rows, FP the
    # running sum of the negatives of all rows, read at those rows
    pos, neg = ties.pos, ties.neg
    rows = np.flatnonzero(pos > 0)
    weight = pos[rows]
    if ties.n_segments > 1 and "f" in (pos.dtype.kind, neg.dtype.kind):
        # weighted counts: each segment's running sums start at its own first row, so no
        # rounding error of an earlier segment reaches it (the bits of the segment alone)
        tp = segment_cumsum(weight, ties.rows_at_offsets(rows))
        fp = ties.segment_cumsum(neg)[rows]
    else:
        tp = np.cumsum(weight)
        fp = np.cumsum(neg)[rows]
        if ties.n_segments > 1:
            # the running sums cross segments: subtract the counts of earlier segments (exact integers)
            n_pos, n_neg = ties.segment_sum(pos), ties.segment_sum(neg)
            segment = np.repeat(np.arange(ties.n_segments), np.diff(ties.rows_at_offsets(rows)))
            tp -= (np.cumsum(n_pos) - n_pos)[segment]
            fp -= (np.cumsum(n_neg) - n_neg)[segment]
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = tp / (tp + fp)
    if tie_blocks == "interpolate":
        own_neg = neg[rows]
        mixed = np.flatnonzero(own_neg > 0)
        precision[mixed] = crossing_precision(tp[mixed] - weight[mixed], fp[mixed] - own_neg[mixed],
                                              weight[mixed], own_neg[mixed])
    # one sum per segment over its positive rows (the same bits whatever the other rows)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ties.segment_sum_at(rows, weight * precision) / ties.n_pos


def average_precision_contributions(ties: TieTable, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    """Contribution of a positive in each tie row: the precision ``TP / (TP + FP)`` at the bottom of that row.

    With ``tie_blocks="interpolate"``, in a row holding both classes the mean
    precision along its Davis-Goadrich crossing instead. Average precision is
    the mean of these over the positives (Eq. 9), so its per-positive
    standard error is that of a mean (the addendum).
    """
    tp, fp = ties.tp(), ties.fp()
    admitted = tp + fp
    out = np.divide(tp, admitted, out=np.zeros(ties.n_rows), where=admitted > 0)
    if tie_blocks == "interpolate":
        pos, neg = ties.pos, ties.neg
        mixed = np.flatnonzero((pos > 0) & (neg > 0))
        out[mixed] = crossing_precision(tp[mixed] - pos[mixed], fp[mixed] - neg[mixed], pos[mixed], neg[mixed])
    return out


def _crossing_rows(precision_sum, mixed, pos, neg, tp, admitted) -> None:
    """The precision sums of the rows ``mixed`` holding both classes (their counts and running sums given)."""
    a = tp - pos
    precision_sum[mixed] = pos * crossing_precision(a, admitted - a - pos - neg, pos, neg)


def _one_group_precision_sums(table: TieTable, shape: tuple[int, int], tie_blocks: str) -> np.ndarray:
    """Each row's ``pos * TP / (TP + FP)`` in a chunk of replicates of one group (integer counts).

    Running sums along the rows of a (replicate, row) view, the same integers
    as the segment-restarted sums, into this thread's work arrays
    (:mod:`aucpr_stats.scratch`). Where a row has no positive its product is
    0 and the divisor is raised to at least 1 (it is 0 only above the first
    row with a count), so the quotient is the 0 the general path writes
    there, and every other quotient is the same division of the same
    integers. Returns a work array: read it before the next call.
    """
    pos, neg = table.pos, table.neg
    tp = np.cumsum(pos.reshape(shape), axis=1, out=work_array("average_precision:tp", shape, pos.dtype)).ravel()
    admitted = np.cumsum(neg.reshape(shape), axis=1,
                         out=work_array("average_precision:admitted", shape, np.result_type(pos, neg))).ravel()
    admitted += tp
    mixed = ()
    if tie_blocks == "interpolate":
        both = np.greater(pos, 0, out=work_array("average_precision:has_pos", pos.shape, bool))
        both &= np.greater(neg, 0, out=work_array("average_precision:has_neg", pos.shape, bool))
        if both.any():
            mixed = np.flatnonzero(both)
            crossing = (pos[mixed], neg[mixed], tp[mixed], admitted[mixed])  # before tp is overwritten
    np.multiply(pos, tp, out=tp)
    np.maximum(admitted, 1, out=admitted)
    precision_sum = np.divide(tp, admitted, out=work_array("average_precision:precision_sum", pos.shape, np.float64))
    if len(mixed):
        _crossing_rows(precision_sum, mixed, *crossing)
    return precision_sum


def average_precision_replicates(table: TieTable, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    """Average precision of many segments (bootstrap replicates), the same values as :func:`average_precision`.

    Written for chunks of replicates: one segment-restarted running sum per
    class over every row (exact integers), the precision sum of each row
    holding positives, and one sum per segment, with no search of segment
    boundaries. A segment's value depends on its own rows only (the same bits
    whatever else the chunk holds), which keeps a group's bootstrap
    independent of the other groups.
    """
    pos, lengths = table.pos, table.lengths
    if lengths.size and lengths.min() == lengths.max() > 0 and pos.dtype.kind == "i" == table.neg.dtype.kind:
        precision_sum = _one_group_precision_sums(table, (lengths.size, int(lengths[0])), tie_blocks)
    else:
        tp = table.segment_cumsum(pos)
        admitted = table.segment_cumsum(table.neg)
        admitted += tp
        precision_sum = np.divide(pos * tp, admitted, out=np.zeros(pos.shape), where=pos > 0)
        mixed = np.flatnonzero((pos > 0) & (table.neg > 0)) if tie_blocks == "interpolate" else ()
        if len(mixed):
            _crossing_rows(precision_sum, mixed, pos[mixed], table.neg[mixed], tp[mixed], admitted[mixed])
    starts = table.offsets[:-1]
    nonempty = np.flatnonzero(starts < table.offsets[1:])
    out = np.full(table.n_segments, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[nonempty] = np.add.reduceat(precision_sum, starts[nonempty]) / table.n_pos[nonempty]
    return out
