"""Distinct recalls of the empirical PR points: runs of points with equal TP.

Several estimators of Boyd, Eng & Page (2013) first reduce the PR points to
one value per distinct recall (smallest, largest, mean or median precision),
then sum a piece of area between consecutive distinct recalls. Both steps are
written here once, on flat CSR arrays, for all segments at once.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..ties import TieTable
from .pr_points import dg_area, pr_point_counts, remember_last
from .tie_blocks import crossing_precision

__all__ = ["RecallRuns", "recall_runs", "run_crossings", "runs_of", "segment_total", "pairwise_area"]


@attrs.frozen(eq=False)
class RecallRuns:
    """PR points grouped into runs of equal recall (CSR over runs).

    Attributes
    ----------
    recall : ndarray, shape (n_runs,)
        The distinct recall of each run, increasing within a segment; the
        first run of every segment has recall 0 and holds the start point.
    start, stop : ndarray of int64, shape (n_runs,)
        The run's points are ``precision[start:stop]``; precision decreases
        within a run (more negatives admitted at the same recall).
    precision : ndarray, shape (n_points,)
        Precision of every point (1 at the start point).
    offsets : ndarray of int64, shape (n_segments + 1,)
        Segment ``k`` owns runs ``offsets[k]:offsets[k+1]``.
    """

    recall: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    precision: np.ndarray
    offsets: np.ndarray

    @property
    def p_max(self) -> np.ndarray:
        """Largest precision at each distinct recall (the run's first point)."""
        return self.precision[self.start]

    @property
    def p_min(self) -> np.ndarray:
        """Smallest precision at each distinct recall (the run's last point)."""
        return self.precision[self.stop - 1]

    @property
    def p_mean(self) -> np.ndarray:
        """Mean precision at each distinct recall."""
        return np.add.reduceat(self.precision, self.start) / (self.stop - self.start)

    @property
    def p_median(self) -> np.ndarray:
        """Median precision at each distinct recall (precisions are sorted in a run)."""
        length = self.stop - self.start
        lower = self.precision[self.start + (length - 1) // 2]
        upper = self.precision[self.start + length // 2]
        return 0.5 * (lower + upper)


def runs_of(tp: np.ndarray, precision: np.ndarray, n_pos: np.ndarray, offsets: np.ndarray) -> RecallRuns:
    """Group points (given by their true positives, CSR ``offsets``) into runs of equal recall.

    Every segment must hold at least one point; ``n_pos`` is per segment.
    """
    n = tp.size
    new_run = np.ones(n, dtype=bool)
    np.not_equal(tp[1:], tp[:-1], out=new_run[1:])
    new_run[offsets[:-1]] = True
    start = np.flatnonzero(new_run)
    stop = np.append(start[1:], n)
    # runs per segment: the run starts falling inside each segment
    run_offsets = np.searchsorted(start, offsets).astype(np.int64)
    seg_n_pos = np.repeat(n_pos, np.diff(run_offsets))
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = tp[start] / seg_n_pos
    return RecallRuns(recall, start.astype(np.int64), stop.astype(np.int64), precision, run_offsets)


@remember_last
def recall_runs(ties: TieTable) -> RecallRuns:
    """The empirical PR points of every segment, grouped by distinct recall (arrays read-only)."""
    tp, fp, offsets = pr_point_counts(ties)
    n_pos = tp[offsets[1:] - 1]
    admitted = tp + fp
    precision = np.divide(tp, admitted, out=np.ones(tp.size), where=admitted > 0)
    runs = runs_of(tp, precision, n_pos, offsets)
    for array in (runs.recall, runs.start, runs.stop, runs.precision, runs.offsets):
        array.setflags(write=False)
    return runs


@remember_last
def run_crossings(ties: TieTable) -> tuple[np.ndarray, np.ndarray]:
    """For each run of :func:`recall_runs`: entered by a tie block holding both classes, and that crossing's area.

    A run's first point is admitted by one tie row; when that row holds
    positives and negatives, the piece of area from the previous run is the
    Davis-Goadrich crossing of the block (:mod:`.tie_blocks`), between the
    counts before and after it: ``(b / n_pos) * crossing_precision``.

    Returns
    -------
    crossed : ndarray of bool, shape (n_runs,)
    area : ndarray of float64, shape (n_runs,)
        NaN where not crossed.
    """
    tp, fp, _ = pr_point_counts(ties)
    runs = recall_runs(ties)
    first = runs.start
    before = np.maximum(first - 1, 0)
    opens_segment = np.zeros(first.size, dtype=bool)
    nonempty = runs.offsets[1:] > runs.offsets[:-1]
    opens_segment[runs.offsets[:-1][nonempty]] = True
    gained_pos, gained_neg = tp[first] - tp[before], fp[first] - fp[before]
    crossed = ~opens_segment & (gained_pos > 0) & (gained_neg > 0)
    n_pos = np.repeat(_segment_n_pos(tp, runs), np.diff(runs.offsets))
    area = np.full(first.size, np.nan)
    if crossed.any():
        area[crossed] = gained_pos[crossed] / n_pos[crossed] * crossing_precision(
            tp[before][crossed], fp[before][crossed], gained_pos[crossed], gained_neg[crossed])
    for array in (crossed, area):
        array.setflags(write=False)
    return crossed, area


def _segment_n_pos(tp: np.ndarray, runs: RecallRuns) -> np.ndarray:
    """Positives of each segment: the true positives at its last point."""
    last_run = runs.offsets[1:] - 1
    out = np.zeros(runs.offsets.size - 1, dtype=tp.dtype)
    nonempty = runs.offsets[1:] > runs.offsets[:-1]
    out[nonempty] = tp[runs.stop[last_run[nonempty]] - 1]
    return out


def segment_total(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of ``values`` within each CSR segment (0 for empty segments)."""
    seg = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    return np.bincount(seg, weights=values, minlength=offsets.size - 1)


def _consecutive(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, i + 1)`` of consecutive items that share a segment, and the segment of each pair."""
    lengths = np.diff(offsets)
    pairs = np.maximum(lengths - 1, 0)
    pair_offsets = np.zeros(offsets.size, dtype=np.int64)
    np.cumsum(pairs, out=pair_offsets[1:])
    seg = np.repeat(np.arange(offsets.size - 1), pairs)
    left = np.arange(pair_offsets[-1], dtype=np.int64) - pair_offsets[:-1][seg] + offsets[:-1][seg]
    return left, seg


def pairwise_area(recall: np.ndarray, p_left: np.ndarray, p_right: np.ndarray, offsets: np.ndarray,
                  kind: str, crossings: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Sum over consecutive distinct recalls of one piece of area, per segment.

    ``kind="trapezoid"``: ``(p_left[i] + p_right[i+1]) / 2 * (r[i+1] - r[i])``
    (Boyd et al. Eq. 3 and 4). ``kind="dg"``: the Davis-Goadrich area between
    ``(r[i], p_left[i])`` and ``(r[i+1], p_right[i+1])``, a rectangle at
    ``p_right[i+1]`` when ``r[i] = 0``. With ``crossings`` (of
    :func:`run_crossings`), the piece into a run entered by a tie block
    holding both classes is that block's crossing area instead.
    """
    left, seg = _consecutive(offsets)
    right = left + 1
    r1, r2 = recall[left], recall[right]
    if kind == "trapezoid":
        piece = 0.5 * (p_left[left] + p_right[right]) * (r2 - r1)
    else:
        piece = dg_area(r1, p_left[left], r2, p_right[right])
    if crossings is not None:
        crossed, area = crossings
        piece = np.where(crossed[right], area[right], piece)
    return np.bincount(seg, weights=piece, minlength=offsets.size - 1)
