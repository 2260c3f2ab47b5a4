"""Tie tables of a multiclass outcome: one segment per group, model and binary area, with each cell's place kept.

A multiclass area is built from binary ones: class ``j`` against the rest
(one-vs-rest), or class ``j`` against class ``k`` on the rows of those two
classes (one pair, one direction), scored by one class's column. Every row
of the caller's data enters an area as one *cell*: a positive (its class is
the area's positive class) or a negative. The micro average stacks every
row's ``K`` cells, each class's column against that class's indicator, into
one area.

:func:`cells_table` sorts the cells once and makes the tie table of every
(group, model, area) segment, and keeps, per cell, its row and its row of
the tie table: the placement values of a tie row reach the rows of the data
(the covariance of areas that share rows), and a bootstrap's row counts
reach the tie rows (a joint resample of the areas).
"""

from __future__ import annotations

import attrs
import numpy as np
import polars as pl

from ..ties import TieTable

__all__ = ["AreaCells", "Areas", "cells_table", "area_cells", "micro_cells", "descending_within"]


@attrs.frozen
class Areas:
    """Binary areas over a ``K``-class outcome: area ``a`` scores ``column[a]``, cases of ``positive[a]``.

    ``negative[a]`` is the class of the controls, or -1 for every other class.
    """

    column: np.ndarray
    positive: np.ndarray
    negative: np.ndarray

    @classmethod
    def one_vs_rest(cls, n_levels: int) -> "Areas":
        k = np.arange(n_levels)
        return cls(k, k, np.full(n_levels, -1))

    @classmethod
    def ordered_pairs(cls, n_levels: int) -> "Areas":
        """Every ordered pair ``(j, k)``, ``j != k``: class ``j``'s column separating ``j`` from ``k``."""
        j, k = np.nonzero(~np.eye(n_levels, dtype=bool))
        return cls(j, j, k)

    def __len__(self) -> int:
        return int(self.column.size)


@attrs.frozen(eq=False)
class AreaCells:
    """The tie tables of every segment, and each cell's row and tie row (cells in table order).

    Attributes
    ----------
    ties : TieTable
        One segment per (group, model, area), in that nesting order.
    row : ndarray of int64
        Each cell's row of the data.
    tie_row : ndarray of int64
        Each cell's row of ``ties``.
    positive : ndarray of bool
        Whether the cell is a case of its area.
    segment : ndarray of int64
        Each cell's segment.
    """

    ties: TieTable
    row: np.ndarray
    tie_row: np.ndarray
    positive: np.ndarray
    segment: np.ndarray


def descending_within(segment: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The order of cells by segment, then score descending (polars' sort, on every core)."""
    if segment.size == 0 or segment[0] == segment[-1] == segment.min() == segment.max():  # one segment
        return pl.Series(score).arg_sort(descending=True).to_numpy()
    return pl.DataFrame({"segment": segment, "score": score}).select(
        pl.arg_sort_by(["segment", "score"], descending=[False, True])).to_series().to_numpy()


def cells_table(segment: np.ndarray, row: np.ndarray, score: np.ndarray, positive: np.ndarray,
                weight: np.ndarray | None, n_segments: int, order: np.ndarray | slice | None = None) -> AreaCells:
    """Sort the cells by segment, then score descending, and count each segment's tie rows.

    ``order``, when the caller has it, is that sort. Counts are integers, or
    the weights' sums (float64) when ``weight`` is given.
    """
    if order is None:
        order = descending_within(segment, score)
    if not isinstance(order, slice):  # a slice: the cells are in that order already
        segment, row, score, positive = segment[order], row[order], score[order], positive[order]
    starts = np.ones(score.size, dtype=bool)
    starts[1:] = (segment[1:] != segment[:-1]) | (score[1:] != score[:-1])
    tie_row = np.cumsum(starts) - 1
    n_rows = int(tie_row[-1]) + 1 if tie_row.size else 0
    w = np.ones(score.size, dtype=np.int64) if weight is None else weight[row]
    pos = np.bincount(tie_row, weights=np.where(positive, w, 0), minlength=n_rows)
    neg = np.bincount(tie_row, weights=np.where(positive, 0, w), minlength=n_rows)
    if weight is None:
        pos, neg = pos.astype(np.int64), neg.astype(np.int64)
    first = np.flatnonzero(starts)
    offsets = np.searchsorted(segment[first], np.arange(n_segments + 1), side="left")
    ties = TieTable(score[first], pos, neg, offsets)
    return AreaCells(ties, row, tie_row, positive, segment)


def area_cells(group: np.ndarray, y: np.ndarray, scores: np.ndarray, weights: np.ndarray | None,
               n_groups: int, areas: Areas) -> AreaCells:
    """The cells of every (group, model, area) segment, ``scores`` of shape (n_models, K, n).

    Each score column is sorted once (by group, then score descending) and
    every area it scores takes its rows in that order; the areas' blocks are
    then merged by segment (a stable sort of already sorted runs).
    """
    n_models = scores.shape[0]
    n_areas = len(areas)
    parts, sorted_columns = [], {}
    for m in range(n_models):
        for a in range(n_areas):
            column = int(areas.column[a])
            if (m, column) not in sorted_columns:
                sorted_columns[m, column] = descending_within(group, scores[m, column])
            rows = sorted_columns[m, column]
            if areas.negative[a] >= 0:  # one class against another: the rows of the two
                rows = rows[(y[rows] == areas.positive[a]) | (y[rows] == areas.negative[a])]
            segment = (group[rows] * n_models + m) * n_areas + a
            parts.append((segment, rows, scores[m, column, rows], y[rows] == areas.positive[a]))
    segment, row, score, positive = (np.concatenate(p) for p in zip(*parts))
    if segment.size < 2 or bool(np.all(segment[1:] >= segment[:-1])):  # one group: the blocks come in order
        order = slice(None)
    else:
        order = np.argsort(segment, kind="stable")  # merges the blocks, each sorted within its segments
    return cells_table(segment, row, score, positive, weights, n_groups * n_models * n_areas, order)


def micro_cells(group: np.ndarray, y: np.ndarray, scores: np.ndarray, weights: np.ndarray | None,
                n_groups: int) -> AreaCells:
    """The micro average's cells: each row's ``K`` class scores against its class indicator, one segment
    per (group, model)."""
    n_models, n_levels, n = scores.shape
    rows = np.tile(np.arange(n), n_levels)
    level = np.repeat(np.arange(n_levels), n)
    parts = [((group[rows] * n_models + m), rows, scores[m].ravel(), y[rows] == level) for m in range(n_models)]
    return cells_table(*(np.concatenate(p) for p in zip(*parts)), weights, n_groups * n_models)
