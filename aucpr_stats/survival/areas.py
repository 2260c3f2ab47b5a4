r"""Censoring-weighted tie tables: the cumulative/dynamic areas at each horizon as weighted binary areas.

At horizon :math:`t` a row is a *case* if it had the event by then
(:math:`T_i \le t`, :math:`\delta_i = 1`), a *control* if it is still
event-free after it (:math:`T_j > t`), and neither if it was censored
before or at :math:`t`. Cases are weighted :math:`1/\hat G(T_i-)`, controls
:math:`1/\hat G(t)` (times the caller's weights), which undoes the loss of
the censored rows (Uno et al. 2007; Hung & Chiang 2010; Blanche, Dartigues
& Jacqmin-Gadda 2013, Eq. 3):

.. math::

    \widehat{\mathrm{AUC}}(t) = \frac{\sum_i\sum_j w_i w_j\,
        \{1(M_i > M_j) + \tfrac12 1(M_i = M_j)\}}{\sum_i w_i \sum_j w_j},

the weighted A' of the cases against the controls, and the time-dependent
average precision AP(t) (Yuan, Zhou, Li & Cai 2018) is the weighted average
precision of the same table: the precision at a threshold is the
censoring-weighted share of cases among those scoring above it,
:math:`\hat P(T \le t \mid M > c)`, averaged over the cases' scores. So the
library's weighted tie tables and estimator records compute both, with its
tie conventions, for every (group, score, horizon) at once: each is one
segment of one table. The control weight cancels from AUC(t) but not from
AP(t), whose precision compares the weight of cases with that of controls.

Tables are built for a matrix of weightings (rows of ``weights``): the
bootstrap passes its replicates' multiplicities, each with its own
re-fitted :math:`\hat G`.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..ties import TieTable
from .censoring import CensoringFit, fit_censoring
from .rows import SurvivalRows

__all__ = ["ScoreRanks", "HorizonWeights", "score_ranks", "horizon_weights", "ipcw_tables", "tie_rows_of"]


@attrs.frozen(eq=False)
class ScoreRanks:
    """Every row's place in the tie tables of its group, per score column.

    Attributes
    ----------
    local : ndarray of int64, shape (n_scores, n)
        The row's distinct-score index within its group (0 = the highest score).
    scores : list of ndarray
        Per score column, the distinct scores of every group, descending, group after group.
    counts : ndarray of int64, shape (n_groups, n_scores)
        Distinct scores per group and column.
    """

    local: np.ndarray
    scores: list
    counts: np.ndarray


def score_ranks(rows: SurvivalRows) -> ScoreRanks:
    """The distinct scores of each group and column, and each row's index among them."""
    n_scores, n = rows.scores.shape
    local = np.empty((n_scores, n), dtype=np.int64)
    counts = np.zeros((rows.n_groups, n_scores), dtype=np.int64)
    distinct = []
    for m in range(n_scores):
        order = np.lexsort((-rows.scores[m], rows.group))
        s, g = rows.scores[m, order], rows.group[order]
        new = np.ones(n, dtype=bool)
        new[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
        running = np.cumsum(new) - 1
        first_of_group = np.searchsorted(g, g)  # rows are sorted by group here
        local[m, order] = running - running[first_of_group]
        counts[:, m] = np.bincount(g[new], minlength=rows.n_groups)
        distinct.append(s[new])
    return ScoreRanks(local=local, scores=distinct, counts=counts)


@attrs.frozen(eq=False)
class HorizonWeights:
    """Each row's weight as a case and as a control at each horizon, per weighting.

    Attributes
    ----------
    case, control : ndarray of float64, shape (R, H, n)
    fit : CensoringFit
    g_horizon : ndarray of float64, shape (R, H, n_cells)
        :math:`\\hat G(t)` per cell.
    """

    case: np.ndarray
    control: np.ndarray
    fit: CensoringFit
    g_horizon: np.ndarray


def horizon_weights(rows: SurvivalRows, horizons: np.ndarray, multiplicity: np.ndarray | None = None
                    ) -> HorizonWeights:
    """The censoring weights of every row at every horizon (``multiplicity``: bootstrap counts, shape (R, n))."""
    w = rows.unit_weights[None, :]
    if multiplicity is not None:
        w = w * multiplicity
    fit = fit_censoring(rows.cell, rows.time, rows.event, w)
    g_before = fit.before_rows()
    g_horizon = fit.at_horizons(horizons)
    by_row = g_horizon[:, :, rows.cell]
    is_case = rows.event[None, :] & (rows.time[None, :] <= horizons[:, None])
    is_control = rows.time[None, :] > horizons[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        case = np.where(is_case[None], (w / g_before)[:, None, :], 0.0)
        control = np.where(is_control[None] & (by_row > 0), w[:, None, :] / by_row, 0.0)
    return HorizonWeights(case=case, control=control, fit=fit, g_horizon=g_horizon)


def ipcw_tables(rows: SurvivalRows, ranks: ScoreRanks, weights: HorizonWeights) -> TieTable:
    """One tie table whose segments are (weighting, group, score, horizon), in that order.

    Every segment of a (group, score) holds all of the group's distinct
    scores for that column; a score whose rows are neither cases nor
    controls at a horizon keeps a row of zero weight.
    """
    n_reps, n_horizons, n = weights.case.shape
    n_groups, n_scores = ranks.counts.shape
    sizes = np.repeat(ranks.counts.ravel(), n_horizons)  # segments (g, m, h)
    seg_offsets = np.concatenate([[0], np.cumsum(sizes)])
    per_rep = int(seg_offsets[-1])
    pos = np.zeros(n_reps * per_rep)
    neg = np.zeros(n_reps * per_rep)
    reps = (np.arange(n_reps) * per_rep)[:, None, None]
    for index in tie_rows_of(rows, ranks, n_horizons):
        index = (reps + index[None]).ravel()
        pos += np.bincount(index, weights=weights.case.ravel(), minlength=pos.size)
        neg += np.bincount(index, weights=weights.control.ravel(), minlength=neg.size)
    score_blocks = []
    starts = np.vstack([np.zeros((1, n_scores), np.int64), np.cumsum(ranks.counts, axis=0)])  # per column: the groups' first distinct score
    for g in range(n_groups):
        for m in range(n_scores):
            values = ranks.scores[m][starts[g, m]:starts[g + 1, m]]
            score_blocks.append(np.tile(values, n_horizons))
    score = np.tile(np.concatenate(score_blocks) if score_blocks else np.zeros(0), n_reps)
    offsets = np.concatenate([(seg_offsets[:-1][None, :] + per_rep * np.arange(n_reps)[:, None]).ravel(),
                              [n_reps * per_rep]])
    return TieTable(score, pos, neg, offsets)


def tie_rows_of(rows: SurvivalRows, ranks: ScoreRanks, n_horizons: int) -> np.ndarray:
    """Each row's tie row in every (score, horizon) segment of its group, shape (n_scores, H, n) (one weighting)."""
    n_groups, n_scores = ranks.counts.shape
    sizes = np.repeat(ranks.counts.ravel(), n_horizons)
    block = np.concatenate([[0], np.cumsum(sizes)])[:-1].reshape(n_groups, n_scores, n_horizons)[:, :, 0]
    out = np.empty((n_scores, n_horizons, rows.time.size), dtype=np.int64)
    for m in range(n_scores):
        counts = ranks.counts[rows.group, m]
        out[m] = block[rows.group, m][None] + np.arange(n_horizons)[:, None] * counts[None] + ranks.local[m][None]
    return out
