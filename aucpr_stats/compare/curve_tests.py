r"""Tests of two whole ROC curves and of one point on them: the kernels, on arrays.

Two questions that an AUC comparison does not answer:

* **Are the two curves the same?** Two curves can cross and have one area.
  Venkatraman & Begg (1996, paired scores on the same subjects) and
  Venkatraman (2000, two independent samples) measure the distance between
  the curves by the area between their error curves over every cut-off and
  refer it to its permutation distribution.
* **Is the sensitivity at a fixed specificity the same** (or the specificity
  at a fixed sensitivity)? The point is read off each empirical curve with
  linear interpolation between its points and the difference is tested with
  the stratified bootstrap's standard error (the z test of pROC's
  ``roc.test(method = "specificity" / "sensitivity")``; Robin et al. 2011).

Every function here takes numpy arrays of one group; the verb
(:mod:`.curve_tests_verb`) reads the data, runs them per group and frames
the result. The permutations and the bootstrap run in blocks of replicates,
each block one array (no Python loop over replicates or rows).

**Ranks and ties.** As in pROC (``ties.method = "first"``), a score's ranks
break ties by the order of the rows: rows are given in data order and sorted
stably (:func:`first_order`). Within a permutation the ranks of the two
scores are mixed and the ties that this creates are broken at random
(pROC's jitter by a uniform in (-1/2, 1/2)).

References
----------
Venkatraman, E. S., Begg, C. B. (1996). A distribution-free procedure for
comparing receiver operating characteristic curves from a paired experiment.
Biometrika 83, 835-848.

Venkatraman, E. S. (2000). A permutation test to compare receiver operating
characteristic curves. Biometrics 56, 1134-1138.

Robin, X., Turck, N., Hainard, A., et al. (2011). pROC: an open-source
package for R and S+ to analyze and compare ROC curves. BMC Bioinformatics
12, 77.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = [
    "POINT_TESTS",
    "block_size",
    "bootstrap_points",
    "curve_point",
    "first_order",
    "permutation_p_value",
    "point_cells",
    "venkatraman_paired_permutations",
    "venkatraman_paired_statistic",
    "venkatraman_unpaired_permutations",
    "venkatraman_unpaired_statistic",
]

#: The point tests: the coordinate compared, read at a fixed value of the other coordinate.
POINT_TESTS = {"sensitivity": "specificity", "specificity": "sensitivity"}

#: Entries of one block's working array (replicates x rows): bounds the memory of a block.
BLOCK_ENTRIES = 1 << 22


def block_size(n_replicates: int, width: int) -> int:
    """Replicates per block so that a block's (replicates, ``width``) array has about :data:`BLOCK_ENTRIES` entries."""
    return int(max(1, min(n_replicates, BLOCK_ENTRIES // max(int(width), 1))))


def first_order(key: np.ndarray, group: np.ndarray | None = None) -> np.ndarray:
    """Rows by group, then ascending ``key``, ties in row order: the order of pROC's ``rank(ties.method="first")``."""
    key = np.asarray(key)
    if group is None:
        return np.argsort(key, kind="stable")
    return np.lexsort((key, np.asarray(group)))


# ======================================================================= Venkatraman & Begg (1996): paired
def venkatraman_paired_statistic(case_a: np.ndarray, case_b: np.ndarray) -> np.ndarray:
    r"""Venkatraman & Begg's (1996) distance between two paired ROC curves, from the classes in rank order.

    With the ``n`` subjects ranked by each score (ranks ``1..n``), the errors
    of the cut-off "positive when the rank exceeds ``x``" are the false
    negatives :math:`\#\{\text{cases with rank} \le x\}` plus the false
    positives :math:`\#\{\text{controls with rank} > x\}`; the statistic is

    .. math::

        E = \sum_{x=1}^{n} \big|\,e_b(x) - e_a(x)\,\big|,

    their Section 2 (pROC's ``E``). As :math:`e(x) = n_0 + C(x)` with
    :math:`C(x)` the number of cases minus the number of controls among the
    ``x`` lowest ranks, ``E`` is the sum of :math:`|C_b(x) - C_a(x)|`.

    Parameters
    ----------
    case_a, case_b : ndarray of bool, shape (..., n)
        Whether the subject at each rank (ascending) is a case, under each score.

    Returns
    -------
    ndarray of float64, shape (...)
    """
    sign_a = np.where(case_a, 1, -1).astype(np.int32)
    sign_b = np.where(case_b, 1, -1).astype(np.int32)
    return np.abs(np.cumsum(sign_b, axis=-1) - np.cumsum(sign_a, axis=-1)).sum(axis=-1).astype(np.float64)


def _scattered_classes(key: np.ndarray, sign: np.ndarray, width: int) -> np.ndarray:
    """Signs (+1 case, -1 control) at distinct integer ``key`` positions of each replicate, read back in key order."""
    n_rep, n = key.shape
    board = np.zeros((n_rep, width), dtype=np.int8)
    np.put_along_axis(board, key, np.broadcast_to(sign, key.shape), axis=1)
    return board[board != 0].reshape(n_rep, n) > 0


def venkatraman_paired_permutations(rank_a: np.ndarray, rank_b: np.ndarray, positive: np.ndarray, n_perm: int,
                                    rng: np.random.Generator,
                                    on_block: Callable[[int], None] | None = None) -> np.ndarray:
    r"""The permutation distribution of :func:`venkatraman_paired_statistic` (Venkatraman & Begg 1996, Sec. 3).

    Under the null hypothesis that the two scores' curves are the same, the
    two ranks of a subject are exchangeable: each permutation swaps the pair
    of ranks of every subject with probability 1/2 and ranks the resulting
    values again. A swapped rank equal to an unswapped one is ordered at
    random (pROC: the unswapped ranks jittered by a uniform in (-1/2, 1/2)).
    Here an unswapped rank ``r`` becomes ``4r`` or ``4r + 2`` by a fair
    coin and a swapped rank ``s`` becomes ``4s + 1``: distinct integers in the same
    order as the jittered values, so each replicate is ordered by a scatter
    (no sort).

    Parameters
    ----------
    rank_a, rank_b : ndarray of int, shape (n,)
        The 0-based ranks of every subject under each score (each a permutation of ``0..n-1``).
    positive : ndarray of bool, shape (n,)
    n_perm : int
    rng : numpy.random.Generator
    on_block : callable, optional
        Called with the number of replicates of each finished block (a progress bar).

    Returns
    -------
    ndarray of float64, shape (n_perm,)
    """
    four_a = 4 * np.asarray(rank_a, dtype=np.int32)
    four_b = 4 * np.asarray(rank_b, dtype=np.int32)
    sign = np.where(positive, 1, -1).astype(np.int8)
    n = four_a.size
    width = 4 * n + 2
    out = np.empty(n_perm)
    block = block_size(n_perm, width)
    for start in range(0, n_perm, block):
        size = min(block, n_perm - start)
        bits = rng.integers(0, 8, size=(size, n), dtype=np.uint8)  # swap, side of a's jitter, side of b's
        swap = (bits & 1).astype(bool)
        # positions (shifted by one): a swapped rank r at 4r + 1, an unswapped one at 4r or 4r + 2
        key_a = np.where(swap, four_b + 1, four_a + (bits & 2))
        key_b = np.where(swap, four_a + 1, four_b + ((bits >> 1) & 2))
        out[start:start + size] = venkatraman_paired_statistic(_scattered_classes(key_a, sign, width),
                                                               _scattered_classes(key_b, sign, width))
        if on_block is not None:
            on_block(size)
    return out


# ======================================================================= Venkatraman (2000): unpaired
def _error_curve(case: np.ndarray, mp: float):
    """Each sample's mixture quantile p and expected error at every rank (Venkatraman 2000, Sec. 2)."""
    n_case = case.sum(axis=-1, keepdims=True)
    n_control = case.shape[-1] - n_case
    with np.errstate(invalid="ignore", divide="ignore"):
        fx = np.cumsum(case, axis=-1, dtype=np.int32) / n_case
        gx = np.cumsum(~case, axis=-1, dtype=np.int32) / n_control
    return mp * fx + (1.0 - mp) * gx, mp * fx + (1.0 - mp) * (1.0 - gx)


def _curve_at(p: np.ndarray, e: np.ndarray, x: np.ndarray, first_ge: np.ndarray) -> np.ndarray:
    """The piecewise-linear curve through (p, e) at ``x`` (NaN outside [p_1, p_n]), given the first index with p >= x."""
    n = p.shape[-1]
    hi = np.minimum(first_ge, n - 1)
    lo = np.maximum(hi - 1, 0)
    p_hi, p_lo = np.take_along_axis(p, hi, -1), np.take_along_axis(p, lo, -1)
    e_hi, e_lo = np.take_along_axis(e, hi, -1), np.take_along_axis(e, lo, -1)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = e_lo + (e_hi - e_lo) * ((x - p_lo) / (p_hi - p_lo))
    value = np.where(p_hi == x, e_hi, value)
    outside = (first_ge >= n) | ((first_ge == 0) & (p_hi != x))
    return np.where(outside, np.nan, value)


def venkatraman_unpaired_statistic(case_1: np.ndarray, case_2: np.ndarray, mp: float) -> np.ndarray:
    r"""Venkatraman's (2000) distance between the ROC curves of two independent samples.

    For a sample ranked by its score, :math:`F(x)` and :math:`G(x)` are the
    shares of its cases and of its controls with rank at most ``x``. With the
    mixing proportion :math:`\pi` (the share of cases), each rank is placed
    at the mixture quantile :math:`p(x) = \pi F(x) + (1 - \pi) G(x)` and
    carries the expected error :math:`\epsilon(x) = \pi F(x) + (1 - \pi)(1 - G(x))`
    of the cut-off there. Joining each sample's points :math:`(p, \epsilon)`
    by straight lines, the statistic is the area between the two error
    curves over the p they share,

    .. math::

        E = \int \big|\,\epsilon_1(p) - \epsilon_2(p)\,\big|\, dp,

    computed as pROC does: by the trapezoidal rule over the union of both
    samples' points, a piece counted only where both curves are defined.

    Parameters
    ----------
    case_1 : ndarray of bool, shape (..., n)
        Whether the row at each rank (ascending) of sample 1 is a case.
    case_2 : ndarray of bool, shape (..., m)
    mp : float
        The mixing proportion :math:`\pi`.

    Returns
    -------
    ndarray of float64, shape (...)
    """
    case_1, case_2 = np.atleast_2d(case_1), np.atleast_2d(case_2)
    n = case_1.shape[-1]
    p1, e1 = _error_curve(case_1, mp)
    p2, e2 = _error_curve(case_2, mp)
    p = np.concatenate([p1, p2], axis=-1)
    order = np.argsort(p, axis=-1, kind="stable")  # equal values: sample 1's first
    x = np.take_along_axis(p, order, -1)
    from1 = order < n
    seen1 = np.cumsum(from1, axis=-1, dtype=np.int32)  # sample-1 points at or before each position
    seen2 = np.cumsum(~from1, axis=-1, dtype=np.int32)
    # a sample-1 point: sample 2 has seen2 points strictly below it; a sample-2 point: sample 1 has seen1 at or
    # below it, of which the last may equal it
    last1 = np.take_along_axis(p1, np.maximum(seen1 - 1, 0), -1)
    first_ge_1 = np.where(~from1 & (seen1 > 0) & (last1 == x), seen1 - 1, seen1)
    on_1 = _curve_at(p1, e1, x, first_ge_1)
    on_2 = _curve_at(p2, e2, x, seen2)
    own_1 = np.take_along_axis(e1, np.minimum(order, n - 1), -1)
    own_2 = np.take_along_axis(e2, np.maximum(order - n, 0), -1)
    y = np.abs(np.where(from1, own_1, on_1) - np.where(from1, on_2, own_2))
    pieces = (y[..., 1:] + y[..., :-1]) * np.diff(x, axis=-1) / 2.0
    return np.where(np.isnan(pieces), 0.0, pieces).sum(axis=-1)


def venkatraman_unpaired_permutations(rank_1: np.ndarray, case_1: np.ndarray, rank_2: np.ndarray,
                                      case_2: np.ndarray, mp: float, n_perm: int, rng: np.random.Generator,
                                      on_block: Callable[[int], None] | None = None) -> np.ndarray:
    r"""The permutation distribution of :func:`venkatraman_unpaired_statistic` (Venkatraman 2000, Sec. 3).

    Under the null hypothesis the two samples' curves are the same, so the
    (jittered) ranks of the controls of both samples are exchangeable, and
    those of the cases: each permutation shuffles the controls' ranks across
    the two samples, and the cases' ranks, and ranks each sample again
    (pROC's procedure, the ranks jittered by a uniform in (-1/2, 1/2)).

    Parameters
    ----------
    rank_1, rank_2 : ndarray of int, shape (n,), (m,)
        The 1-based ranks within each sample (ties broken by row order).
    case_1, case_2 : ndarray of bool
    mp : float
    n_perm : int
    rng : numpy.random.Generator
    on_block : callable, optional

    Returns
    -------
    ndarray of float64, shape (n_perm,)
    """
    case_1, case_2 = np.asarray(case_1, bool), np.asarray(case_2, bool)
    cases = np.concatenate([rank_1[case_1], rank_2[case_2]]).astype(np.float64)
    controls = np.concatenate([rank_1[~case_1], rank_2[~case_2]]).astype(np.float64)
    k1, j1 = int(case_1.sum()), int((~case_1).sum())
    labels_1 = np.r_[np.ones(k1, bool), np.zeros(j1, bool)]
    labels_2 = np.r_[np.ones(cases.size - k1, bool), np.zeros(controls.size - j1, bool)]
    out = np.empty(n_perm)
    block = block_size(n_perm, 4 * (cases.size + controls.size))
    for start in range(0, n_perm, block):
        size = min(block, n_perm - start)
        jit_cases = rng.permuted(cases + rng.random((size, cases.size)) - 0.5, axis=1)
        jit_controls = rng.permuted(controls + rng.random((size, controls.size)) - 0.5, axis=1)
        values_1 = np.concatenate([jit_cases[:, :k1], jit_controls[:, :j1]], axis=1)
        values_2 = np.concatenate([jit_cases[:, k1:], jit_controls[:, j1:]], axis=1)
        seq_1 = labels_1[np.argsort(values_1, axis=1)]
        seq_2 = labels_2[np.argsort(values_2, axis=1)]
        out[start:start + size] = venkatraman_unpaired_statistic(seq_1, seq_2, mp)
        if on_block is not None:
            on_block(size)
    return out


def permutation_p_value(observed: float, permuted: np.ndarray) -> float:
    r"""The permutation p-value :math:`(1 + \#\{E^* \ge E\}) / (1 + B)` (Phipson & Smyth 2010).

    pROC reports :math:`\#\{E^* \ge E\}/B`, which can be 0; the two differ by
    less than :math:`1/B`. ``E*`` within a relative 1e-12 of ``E`` counts as
    equal (the unpaired statistic is a sum of floating-point pieces).
    """
    permuted = np.asarray(permuted, dtype=np.float64)
    if np.isnan(observed) or permuted.size == 0:
        return float("nan")
    tolerance = 1e-12 * max(1.0, abs(observed))
    return float((1 + np.count_nonzero(permuted >= observed - tolerance)) / (1 + permuted.size))


# ======================================================================= a point on each curve
def curve_point(tp: np.ndarray, fp: np.ndarray, n_pos: int, n_neg: int, test: str, at: float) -> np.ndarray:
    r"""The sensitivity at specificity ``at`` (``test="sensitivity"``) or the specificity at sensitivity ``at``.

    The empirical curve's points are the origin and, for every distinct score
    (descending), the cut-off "positive when the score is at least it":
    sensitivity :math:`tp/n_1` and specificity :math:`(n_0 - fp)/n_0`. As
    pROC's ``coords(input = ...)``: where points lie exactly at ``at``, the
    best of them (the highest sensitivity at that specificity, the highest
    specificity at that sensitivity); else the straight line between the two
    neighbouring points. The coordinates are computed in floating point as
    pROC computes them, so "exactly" means what it means there.

    Parameters
    ----------
    tp, fp : ndarray of int, shape (..., K)
        Cumulative positives and negatives at or above each distinct score, descending.
    n_pos, n_neg : int
    test : {"sensitivity", "specificity"}
        The coordinate read off.
    at : float in (0, 1)
        The value of the other coordinate.

    Returns
    -------
    ndarray of float64, shape (...)
    """
    tp, fp = np.atleast_2d(tp), np.atleast_2d(fp)
    zero = np.zeros(tp.shape[:-1] + (1,), dtype=np.float64)
    se = np.concatenate([zero, tp / n_pos], axis=-1)
    sp = np.concatenate([zero + 1.0, (n_neg - fp) / n_neg], axis=-1)
    if test == "sensitivity":  # read at sp: sp falls along the curve
        given, wanted = sp, se
        beyond = np.count_nonzero(sp > at, axis=-1)  # points before `at` (sp = 1 at the origin is one)
        exact_at = np.count_nonzero(sp >= at, axis=-1) - 1  # the last point at `at` (the best sensitivity)
        exact = exact_at >= beyond
    else:  # read at se: se rises along the curve
        given, wanted = se, sp
        beyond = np.count_nonzero(se < at, axis=-1)
        exact_at = beyond  # the first point at `at` (the best specificity)
        exact = np.count_nonzero(se <= at, axis=-1) > beyond
    j = (beyond - 1)[..., None]
    k = np.minimum(beyond, given.shape[-1] - 1)[..., None]
    g_j, g_k = np.take_along_axis(given, j, -1)[..., 0], np.take_along_axis(given, k, -1)[..., 0]
    w_j, w_k = np.take_along_axis(wanted, j, -1)[..., 0], np.take_along_axis(wanted, k, -1)[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        between = w_j + (at - g_j) / (g_k - g_j) * (w_k - w_j)
    on_point = np.take_along_axis(wanted, np.minimum(exact_at, given.shape[-1] - 1)[..., None], -1)[..., 0]
    return np.where(exact, on_point, between)


def point_cells(rows: list[np.ndarray], positive: np.ndarray):
    """The distinct (tie row of every score, class) cells of one group's rows, with their row counts.

    Resampling the rows of each class is drawing these cells' counts
    multinomially (the same rows for every score: a paired bootstrap).

    Returns
    -------
    cell_rows : list of ndarray of int64
        Per score, every cell's tie row.
    is_pos : ndarray of bool
    count : ndarray of int64
    """
    keys = np.stack([*[np.asarray(r, dtype=np.int64) for r in rows], np.asarray(positive, dtype=np.int64)], axis=1)
    cells, count = np.unique(keys, axis=0, return_counts=True)
    return [cells[:, i] for i in range(len(rows))], cells[:, -1].astype(bool), count.astype(np.int64)


def _cumulative_by_row(counts: np.ndarray, cell_row: np.ndarray) -> np.ndarray:
    """Counts summed over the cells at or above each distinct tie row (tie rows ascend as scores descend)."""
    order = np.argsort(cell_row, kind="stable")
    sorted_rows = cell_row[order]
    ends = np.flatnonzero(np.r_[sorted_rows[1:] != sorted_rows[:-1], True])
    return np.cumsum(counts[..., order], axis=-1)[..., ends]


def bootstrap_points(cell_rows: list[np.ndarray], is_pos: np.ndarray, count: np.ndarray, test: str, at: float,
                     n_boot: int, rng: np.random.Generator,
                     on_block: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Each score's point (:func:`curve_point`) on the data and on ``n_boot`` stratified bootstrap replicates.

    A replicate draws :math:`n_1` rows from the positives and :math:`n_0`
    from the negatives with replacement (pROC's ``boot.stratified = TRUE``),
    as multinomial counts of the cells (:func:`point_cells`), the same draw
    for every score; all replicates of a block are one array.

    Returns
    -------
    estimates : ndarray of float64, shape (n_scores,)
    replicates : ndarray of float64, shape (n_scores, n_boot)
    """
    pos_cells, neg_cells = np.flatnonzero(is_pos), np.flatnonzero(~is_pos)
    n_pos, n_neg = int(count[pos_cells].sum()), int(count[neg_cells].sum())
    n_cells = count.size

    def points(pos_counts, neg_counts):
        return np.stack([curve_point(_cumulative_by_row(pos_counts, r), _cumulative_by_row(neg_counts, r),
                                     n_pos, n_neg, test, at) for r in cell_rows])

    observed = points(np.where(is_pos, count, 0)[None], np.where(is_pos, 0, count)[None])[:, 0]
    replicates = np.empty((len(cell_rows), n_boot))
    block = block_size(n_boot, 4 * n_cells)
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        pos_counts = np.zeros((size, n_cells), dtype=np.int64)
        neg_counts = np.zeros((size, n_cells), dtype=np.int64)
        pos_counts[:, pos_cells] = rng.multinomial(n_pos, count[pos_cells] / n_pos, size=size)
        neg_counts[:, neg_cells] = rng.multinomial(n_neg, count[neg_cells] / n_neg, size=size)
        replicates[:, start:start + size] = points(pos_counts, neg_counts)
        if on_block is not None:
            on_block(size)
    return observed, replicates
