"""Weighted tie tables (``weights=``): counts that are sums of case weights, and the cells behind them.

A weight column turns every count of the tie table into a sum of weights:
``pos`` at a score is the total weight of the positives with that score, and
likewise ``neg`` (so :class:`~aucpr_stats.ties.TieTable` holds float64 counts).
The reader reduces the rows by one group-by on (keys, score, weight): a cell
holds the rows of one class count for each distinct (score, weight) pair.
:func:`weighted_tables` merges the cells of a score into the weighted table;
the cells themselves are kept for the weighted bootstrap, which resamples
rows with their weights (:class:`WeightedCells`). :class:`WeightSums` holds
the Kish effective sizes closed-form intervals use.
"""

from __future__ import annotations

import attrs
import numpy as np
import polars as pl

from ..ties import TieTable
from .runs import run_starts, segment_offsets

__all__ = ["WEIGHT", "WeightedCells", "WeightSums", "weighted_tables", "power_of_two_scaled"]

#: The internal name of the weight column in the reader's queries and the cells.
WEIGHT = "__aucpr_w"


@attrs.frozen(eq=False)
class WeightedCells:
    """The rows of each group counted per (score, weight) cell, for the weighted bootstrap.

    Attributes
    ----------
    cells : TieTable
        One segment per group (as the weighted table); rows are the distinct
        (score, weight) cells in descending score order (a score repeats on
        consecutive rows when its rows have different weights); ``pos`` and
        ``neg`` are numbers of rows (int64).
    weight : ndarray of float64, shape (cells.n_rows,)
        The weight of the rows of each cell.
    target : ndarray of int64, shape (cells.n_rows,)
        The row of the weighted table that holds each cell's score.
    """

    cells: TieTable
    weight: np.ndarray
    target: np.ndarray


@attrs.frozen(eq=False)
class WeightSums:
    """Per group and class: rows, total weight and sum of squared weights.

    The Kish (1965) effective sample size of a class is ``W^2 / Q`` (``W``
    the total weight, ``Q`` the sum of squared weights): the number of
    unweighted rows that would give a mean the same variance. Closed-form
    intervals that need a count use it in place of the number of rows.
    """

    rows_pos: np.ndarray
    rows_neg: np.ndarray
    weight_pos: np.ndarray
    weight_neg: np.ndarray
    square_pos: np.ndarray
    square_neg: np.ndarray

    @classmethod
    def of_cells(cls, weighted: "WeightedCells", group: np.ndarray, n_groups: int) -> "WeightSums":
        """The sums of each group from its cells (``group``: the group of each cell)."""
        cells, w = weighted.cells, weighted.weight

        def total(values):
            return np.bincount(group, weights=values, minlength=n_groups)

        return cls(total(cells.pos).astype(np.int64), total(cells.neg).astype(np.int64), total(cells.pos * w),
                   total(cells.neg * w), total(cells.pos * w * w), total(cells.neg * w * w))

    def merged(self, group: np.ndarray, n_groups: int) -> "WeightSums":
        """The sums of coarser groups: ``group`` gives the coarse group of each of these."""
        arrays = [np.bincount(group, weights=a, minlength=n_groups) for a in attrs.astuple(self, recurse=False)]
        return WeightSums(arrays[0].astype(np.int64), arrays[1].astype(np.int64), *arrays[2:])

    def moved(self, old_lengths: np.ndarray, new_lengths: np.ndarray) -> "WeightSums":
        """The sums after empty groups were added or dropped (the groups with rows keep their order)."""
        old, new = np.flatnonzero(old_lengths > 0), np.flatnonzero(new_lengths > 0)
        out = []
        for values in attrs.astuple(self, recurse=False):
            moved = np.zeros(new_lengths.size, dtype=values.dtype)
            moved[new] = values[old]
            out.append(moved)
        return WeightSums(*out)

    @property
    def effective_pos(self) -> np.ndarray:
        """Kish effective number of positives per group."""
        return _kish(self.weight_pos, self.square_pos)

    @property
    def effective_neg(self) -> np.ndarray:
        """Kish effective number of negatives per group."""
        return _kish(self.weight_neg, self.square_neg)


def _kish(total: np.ndarray, squares: np.ndarray) -> np.ndarray:
    return np.divide(total * total, squares, out=np.zeros(total.shape), where=squares > 0)


def power_of_two_scaled(weight: np.ndarray) -> np.ndarray:
    """Weights far from 1 times the power of two that puts the largest in [0.5, 1): the same ratios, exactly.

    Every statistic reads weights only through their ratios, but sums of
    squares (Kish's effective numbers, the sandwich variances) overflow from
    weights of about 1e154 and subnormal weights (below 2.2e-308) have lost
    their digits: weights all equal to 1e160 gave a NaN AUROC interval, and
    to 5e-324 an average precision of 0.261 for 0.413. A power of two scales
    without rounding, so a result does not depend on the weights' scale, nor
    on the other groups' weights (only a weight below 2^-1074 of the largest
    underflows to 0). Weights whose largest lies in [2^-500, 2^500] are kept
    as they are: integer weights then still give exactly the result of
    replicating rows, for the estimators that read counts as frequencies too
    (the binormal fit, the expected average precision).
    """
    positive = weight[np.isfinite(weight) & (weight > 0)]
    if positive.size == 0:
        return weight
    _, exponent = np.frexp(positive.max())
    if -500 <= exponent <= 500:
        return weight
    return np.ldexp(weight, -int(exponent))


def weighted_tables(cells: pl.DataFrame, group: np.ndarray, n_groups: int, score: str, positives: str,
                    size: str) -> tuple[TieTable, WeightedCells]:
    """The weighted tie table and its cells, from one row per (group, score, weight) cell.

    Parameters
    ----------
    cells : polars.DataFrame
        Sorted by group, then score descending; columns ``score``, ``WEIGHT``,
        ``positives`` (rows of the positive class) and ``size`` (all rows).
    group : ndarray of int64
        The group of each cell (non-decreasing).
    n_groups : int
    """
    score_values = cells[score].to_numpy()
    weight = power_of_two_scaled(cells[WEIGHT].to_numpy().astype(np.float64))
    pos = cells[positives].to_numpy().astype(np.int64)
    neg = cells[size].to_numpy().astype(np.int64) - pos
    offsets = segment_offsets(group, n_groups)
    # one weighted row per (group, score): a run of cells with the same score and group
    new_run = run_starts(group, score_values)
    starts = np.flatnonzero(new_run)
    target = np.cumsum(new_run) - 1
    weighted_offsets = segment_offsets(group[starts], n_groups)
    weighted = TieTable(score_values[starts], np.bincount(target, weights=pos * weight, minlength=starts.size),
                        np.bincount(target, weights=neg * weight, minlength=starts.size), weighted_offsets)
    return weighted, WeightedCells(TieTable(score_values, pos, neg, offsets), weight, target)

