"""ROC AUC from the tie table: A' (Radcliffe 2013) and DeLong's placement values.

Both are O(distinct scores) per segment and vectorised over segments, like
every estimator here. Counts stay in int64 until the final division, so A' is
exact (one rounding) and lies in [0, 1] by construction, also at n = 10^6 and
far beyond (the integer numerator is at most ``2 * n_pos * n_neg``, which fits
in int64 for up to about 4 * 10^9 rows per group).

Segments are ordered by descending score (see :class:`~aucpr_stats.ties.TieTable`);
"below" means "with a smaller score".
"""

from __future__ import annotations

import numpy as np

from ..scratch import work_array
from ..ties import TieTable

__all__ = [
    "a_prime",
    "a_prime_replicates",
    "placement_values",
    "delong_components",
]


def _class_counts(ties: TieTable):
    """Per tie row: negatives scored strictly below, positives strictly above; class totals.

    One inclusive cumulative sum per class, from the top score down; the
    totals are read off the last row of each segment, so no count is summed twice.
    """
    if ties.n_segments == 1:
        tp, fp = np.cumsum(ties.pos), np.cumsum(ties.neg)
    else:
        tp, fp = ties.tp(), ties.fp()
    n_pos = np.zeros(ties.n_segments, dtype=tp.dtype)  # float64 for weighted counts
    n_neg = np.zeros(ties.n_segments, dtype=fp.dtype)
    nonempty = ties.offsets[1:] > ties.offsets[:-1]
    last = ties.offsets[1:][nonempty] - 1
    n_pos[nonempty], n_neg[nonempty] = tp[last], fp[last]
    lengths = ties.lengths
    if ties.n_segments == 1:  # broadcasting instead of a repeat
        neg_total, pos_total = n_neg, n_pos
    else:
        neg_total, pos_total = np.repeat(n_neg, lengths), np.repeat(n_pos, lengths)
    neg_below = neg_total - fp
    pos_above = tp - ties.pos
    return neg_below, pos_above, n_pos, n_neg, neg_total, pos_total


def a_prime(ties: TieTable) -> np.ndarray:
    r"""A', the ROC AUC with ties counted one half, per segment.

    .. math::

        A' = \frac{1}{PN} \sum_{i=1}^{r} p_i \left(N_i + \frac{n_i}{2}\right)

    Radcliffe (2013), Eq. (3): ``p_i`` and ``n_i`` are the positives and
    negatives at the i-th distinct score, ``N_i`` the negatives scored below
    it, ``P`` and ``N`` the class totals. It equals the pairwise definition
    (the probability that a random positive outscores a random negative, a tie
    counting one half), the Mann-Whitney U statistic divided by ``PN``, and
    ``sklearn.metrics.roc_auc_score``.

    The numerator ``sum p_i (2 N_i + n_i)`` is accumulated in int64, so the
    only rounding is the final division and the result is always in [0, 1].

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive and one negative (others give NaN).
        Rows with zero counts (bootstrap draws) do not change the result.

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    References
    ----------
    Radcliffe, D. (2013). Efficient computation of the A' statistic, Eq. (3).
    Hanley, J. A., McNeil, B. J. (1982). The meaning and use of the area under
    a receiver operating characteristic (ROC) curve. Radiology 143, 29-36.

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 1, 0], neg=[0, 1, 1], offsets=[0, 3])
    >>> float(a_prime(t)[0])  # pairs: (3,2) 1, (3,1) 1, (2,2) 1/2, (2,1) 1 -> 3.5 / 4
    0.875
    """
    stored = ties.stored("a_prime")  # summed by an engine (ingest/sums.py), the same formula
    if stored is not None:
        return stored
    neg_below, _, n_pos, n_neg, _, _ = _class_counts(ties)
    return _a_prime_from(ties, neg_below, n_pos, n_neg)


def a_prime_replicates(table: TieTable) -> np.ndarray:
    r"""A' of many segments (bootstrap replicates), the same values as :func:`a_prime`.

    Written for chunks of replicates of one group, whose segments all have
    the group's rows: the running sum of negatives runs along the rows of a
    (replicate, row) view, with no segment boundaries to search. With ``C_i``
    the negatives at or above the i-th score and ``N`` their total, the
    negatives below are ``N - C_i``, so Eq. (3)'s doubled numerator is

    .. math:: \sum_i p_i (2 N_i + n_i) = 2PN - \sum_i p_i (2 C_i - n_i),

    the same integer as :func:`a_prime` computes, divided the same way (so
    the same bits). Other chunks go to :func:`a_prime`. A segment's value
    depends on its own rows only.
    """
    lengths = table.lengths
    if not (lengths.size and lengths.min() == lengths.max() > 0) or table.pos.dtype.kind == "f":
        return a_prime(table)
    shape = (lengths.size, int(lengths[0]))
    pos, neg = table.pos.reshape(shape), table.neg.reshape(shape)
    above = np.cumsum(neg, axis=1, out=work_array("a_prime_replicates:above", shape, neg.dtype))  # C_i, inclusive
    n_neg = above[:, -1].copy()
    n_pos = pos.sum(axis=1)
    above *= 2
    above -= neg
    twice = 2 * n_pos * n_neg - np.einsum("ij,ij->i", pos, above)
    pairs = n_pos.astype(np.float64) * n_neg.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return twice / (2.0 * pairs)


def _a_prime_from(ties: TieTable, neg_below, n_pos, n_neg) -> np.ndarray:
    # twice the numerator of Eq. (3), exact in int64: sum_i p_i (2 N_i + n_i)
    twice = ties.segment_sum(ties.pos * (2 * neg_below + ties.neg))
    pairs = n_pos.astype(np.float64) * n_neg.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return twice / (2.0 * pairs)


def placement_values(ties: TieTable) -> tuple[np.ndarray, np.ndarray]:
    r"""DeLong's structural components (placement values) of every tie row.

    For a positive with score ``s`` (DeLong, DeLong & Clarke-Pearson 1988,
    section 2, with the kernel :math:`\psi(x, y) = 1, 1/2, 0` for
    :math:`x > y, x = y, x < y`):

    .. math::

        V_{10}(s) = \frac{1}{N} \sum_{j} \psi(s, Y_j)
                  = \frac{\#\{Y_j < s\} + \tfrac12 \#\{Y_j = s\}}{N},

    and for a negative with score ``s``

    .. math::

        V_{01}(s) = \frac{1}{P} \sum_{i} \psi(X_i, s)
                  = \frac{\#\{X_i > s\} + \tfrac12 \#\{X_i = s\}}{P}.

    These are midrank placements: every positive (negative) in a tie row has
    the same value, so the whole set of ``P + N`` components is carried by
    the ``r`` rows of the table with their counts as weights.

    Parameters
    ----------
    ties : TieTable

    Returns
    -------
    v10, v01 : ndarray of float64, shape (n_rows,)
        Placement value of a positive, and of a negative, at each tie row.
    """
    neg_below, pos_above, _, _, neg_total, pos_total = _class_counts(ties)
    return _placements_from(ties, neg_below, pos_above, neg_total, pos_total)


def _placements_from(ties: TieTable, neg_below, pos_above, neg_total, pos_total):
    with np.errstate(invalid="ignore", divide="ignore"):
        v10 = (neg_below + 0.5 * ties.neg) / neg_total
        v01 = (pos_above + 0.5 * ties.pos) / pos_total
    return v10, v01


def delong_components(ties: TieTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""A' with DeLong's variance components ``S10`` and ``S01``, per segment.

    .. math::

        S_{10} = \frac{1}{P-1} \sum_{i} \big(V_{10}(X_i) - A'\big)^2, \qquad
        S_{01} = \frac{1}{N-1} \sum_{j} \big(V_{01}(Y_j) - A'\big)^2,

    and :math:`\widehat{\mathrm{Var}}(A') = S_{10}/P + S_{01}/N`
    (DeLong, DeLong & Clarke-Pearson 1988, Eqs. 2-4 for one test). The sums
    over cases are sums over tie rows weighted by the counts, so the cost is
    O(distinct scores) after the sort that built the table.

    Returns
    -------
    auc, s10, s01 : ndarray of float64, shape (n_segments,)
        ``s10`` is NaN when a segment has one positive, ``s01`` when it has one
        negative (the variance cannot be estimated from a single case).
    """
    if ties.stored_sums:  # summed by an engine from the same placements (ingest/sums.py)
        return ties.stored("a_prime"), ties.stored("delong_s10"), ties.stored("delong_s01")
    neg_below, pos_above, n_pos, n_neg, neg_total, pos_total = _class_counts(ties)
    auc = _a_prime_from(ties, neg_below, n_pos, n_neg)
    v10, v01 = _placements_from(ties, neg_below, pos_above, neg_total, pos_total)
    centre = auc if ties.n_segments == 1 else np.repeat(auc, ties.lengths)
    # weights are the counts; rows without positives (negatives) carry no V10 (V01)
    d10 = v10 - centre
    d01 = v01 - centre
    with np.errstate(invalid="ignore", divide="ignore"):
        s10 = ties.segment_sum(ties.pos * (d10 * d10)) / (n_pos - 1)
        s01 = ties.segment_sum(ties.neg * (d01 * d01)) / (n_neg - 1)
    s10 = np.where(n_pos > 1, s10, np.nan)
    s01 = np.where(n_neg > 1, s01, np.nan)
    return auc, s10, s01
