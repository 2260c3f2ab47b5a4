r"""Partial AUCPR: the area under an estimator's PR curve over recalls in ``[lo, hi]``.

Each supported estimator of Boyd, Eng & Page (2013) is the area under a curve
drawn through the empirical PR points; the partial area is the same curve
integrated over the window only. It is **not normalised**: at most
``hi - lo``; ``standardized=True`` divides by the width, giving the mean
precision over the window, on the 0-1 scale of the full area (the
"standardised pAUC" of precrec).

How each estimator reads the window:

* ``interpolated_max``/``_mean``/``_median``: the Davis-Goadrich curve
  between the summarised points at consecutive distinct recalls (Theorem 1).
  A sub-piece of that curve is the Davis-Goadrich curve between its own end
  points (it is the image of a straight ROC segment), so a piece clipped to
  the window is :func:`~.pr_points.dg_area` between the clipped ends, read by
  :func:`~.pr_points.dg_interpolate`. The piece from recall 0 is a rectangle
  at the first run's precision.
* ``lower_trapezoid``/``upper_trapezoid``: straight lines in PR space
  (Eq. 3 and 4), clipped linearly.
* ``average_precision``: the step curve of Eq. (9): over the recall gained
  by a tie row holding positives, the precision at the row's bottom.
* With ``ties="interpolate"``, a piece entering a tie block that holds both
  classes is the block's Davis-Goadrich crossing (:mod:`.tie_blocks`) in
  every estimator; a window cutting the crossing at fractions
  :math:`t_1 < t_2` of the block gives the crossing of the sub-block
  :math:`(a + b t_1, f + n t_1)` to :math:`(a + b t_2, f + n t_2)`, whose mean
  precision is :func:`~.tie_blocks.crossing_precision` with fractional counts.

Each such estimator's registry record names its curve (a :class:`PrCurve`,
the record's ``partial`` form). Over ``[0, 1]`` each partial area equals its
estimator (tested). The other estimators (``interpolated_convex``,
``binormal``, ``expected_average_precision``, ``threshold_trapezoid``) have
no partial form and are refused: they are not the area under a curve read at
every recall of the data.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from ..ties import TieTable
from .pr_points import dg_area, dg_interpolate, pr_point_counts
from .recall_runs import recall_runs, run_crossings
from .tie_blocks import DEFAULT_TIES, crossing_precision

__all__ = ["PrCurve", "LOWER_TRAPEZOID", "UPPER_TRAPEZOID", "INTERPOLATED_MAX", "INTERPOLATED_MEAN",
           "INTERPOLATED_MEDIAN", "AVERAGE_PRECISION_STEPS", "pr_partial_area"]

#: How a :class:`PrCurve` joins the points of consecutive distinct recalls.
KINDS = ("trapezoid", "dg", "steps")


@attrs.frozen
class PrCurve:
    """An estimator's PR curve, as its partial area reads it: the estimator record's partial-area form.

    Calling it gives the area under the curve over a recall window
    (``window.lo``, ``window.hi``; divided by the width when
    ``window.standardized``), per segment.

    Attributes
    ----------
    kind : {"trapezoid", "dg", "steps"}
        Straight lines in PR space (Eq. 3 and 4), the Davis-Goadrich curve
        (Theorem 1), or average precision's step curve (Eq. 9).
    left, right : str
        The summary precision of a recall run (``"p_min"``, ``"p_max"``,
        ``"p_mean"``, ``"p_median"`` of :func:`~.recall_runs.recall_runs`)
        at the left and right end of each piece; unused by ``"steps"``.
    """

    kind: str = attrs.field(validator=attrs.validators.in_(KINDS))
    left: str = ""
    right: str = ""

    def __call__(self, ties: TieTable, window: Any, tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
        area = pr_partial_area(ties, self, window.lo, window.hi, tie_blocks)
        return area / window.width if window.standardized else area


#: The curves of the estimators that have a partial AUCPR (their registry records name them).
LOWER_TRAPEZOID = PrCurve("trapezoid", "p_min", "p_max")
UPPER_TRAPEZOID = PrCurve("trapezoid", "p_max", "p_max")
INTERPOLATED_MAX = PrCurve("dg", "p_max", "p_max")
INTERPOLATED_MEAN = PrCurve("dg", "p_mean", "p_mean")
INTERPOLATED_MEDIAN = PrCurve("dg", "p_median", "p_median")
AVERAGE_PRECISION_STEPS = PrCurve("steps")


def pr_partial_area(ties: TieTable, curve: PrCurve, lo: float, hi: float,
                    tie_blocks: str = DEFAULT_TIES) -> np.ndarray:
    r"""Area under ``curve`` over recalls in ``[lo, hi]``, per segment (unnormalised).

    Parameters
    ----------
    ties : TieTable
        Segments with at least one positive and one negative.
    curve : PrCurve
        The estimator's curve: its registry record's ``partial`` form
        (``PR_ESTIMATORS["average_precision"].partial``), or one of the
        constants of this module.
    lo, hi : float
        ``0 <= lo < hi <= 1``.
    tie_blocks : {"interpolate", "published"}

    Returns
    -------
    ndarray of float64, shape (n_segments,)

    Examples
    --------
    >>> from aucpr_stats.ties import TieTable
    >>> t = TieTable(score=[3.0, 2.0, 1.0], pos=[1, 0, 1], neg=[0, 1, 0], offsets=[0, 3])
    >>> float(pr_partial_area(t, AVERAGE_PRECISION_STEPS, 0.5, 1.0)[0])  # the second positive's precision 2/3, times 1/2
    0.3333333333333333
    """
    if curve.kind == "steps":
        return _average_precision(ties, lo, hi, tie_blocks)
    left_summary, right_summary, kind = curve.left, curve.right, curve.kind
    runs = recall_runs(ties)
    n_runs = runs.recall.size
    n_seg = runs.offsets.size - 1
    # pairs (i, i + 1) of consecutive runs of one segment
    pair = np.ones(max(n_runs - 1, 0), dtype=bool)
    last = runs.offsets[1:] - 1
    last = last[(last >= 0) & (last < pair.size)]
    pair[last] = False
    left = np.flatnonzero(pair)
    right = left + 1
    r1, r2 = runs.recall[left], runs.recall[right]
    p1 = getattr(runs, left_summary)[left]
    p2 = getattr(runs, right_summary)[right]
    c1, c2 = np.maximum(r1, lo), np.minimum(r2, hi)
    inside = c2 > c1
    piece = np.zeros(left.size)
    if kind == "trapezoid":
        with np.errstate(invalid="ignore", divide="ignore"):
            slope = (p2 - p1) / (r2 - r1)
            heights = 2 * p1 + slope * ((c1 - r1) + (c2 - r1))
        piece[inside] = (0.5 * (c2 - c1) * heights)[inside]
    else:
        # the piece from recall 0 is a rectangle at p2 (the line leaves the ROC origin)
        rect = np.flatnonzero(inside & (r1 == 0))
        piece[rect] = (c2[rect] - c1[rect]) * p2[rect]
        i = np.flatnonzero(inside & (r1 > 0))
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            q1 = dg_interpolate(r1[i], p1[i], r2[i], p2[i], c1[i])
            q2 = dg_interpolate(r1[i], p1[i], r2[i], p2[i], c2[i])
            piece[i] = dg_area(c1[i], q1, c2[i], q2)
    if tie_blocks == "interpolate":
        crossed = run_crossings(ties)[0][right] & inside
        if crossed.any():
            tp, fp, _ = pr_point_counts(ties)
            first = runs.start[right[crossed]]
            before = first - 1
            run_segment = np.repeat(np.arange(n_seg), np.diff(runs.offsets))
            n_pos = ties.n_pos.astype(np.float64)[run_segment[right[crossed]]]
            piece[crossed] = _crossing_part(tp[before], fp[before], tp[first] - tp[before], fp[first] - fp[before],
                                            n_pos, c1[crossed], c2[crossed])
    segment = np.repeat(np.arange(n_seg), np.diff(runs.offsets))[left]
    return np.bincount(segment, weights=piece, minlength=n_seg)


def _crossing_part(a, f, b, n, n_pos, c1, c2) -> np.ndarray:
    """Area of the part of a tie block's crossing between recalls ``c1 < c2`` (inside the block)."""
    a, f, b, n = (np.asarray(x, dtype=np.float64) for x in (a, f, b, n))
    t1 = np.clip((c1 * n_pos - a) / b, 0.0, 1.0)
    t2 = np.clip((c2 * n_pos - a) / b, 0.0, 1.0)
    span = t2 - t1
    mean = crossing_precision(a + b * t1, f + n * t1, b * span, n * span)
    return b * span / n_pos * mean


def _average_precision(ties: TieTable, lo: float, hi: float, tie_blocks: str) -> np.ndarray:
    """The step curve of average precision over the window (mixed blocks crossed under ``"interpolate"``)."""
    table = ties
    rows = np.flatnonzero(table.pos > 0)
    b = table.pos[rows].astype(np.float64)
    n = table.neg[rows].astype(np.float64)
    tp = table.tp()[rows].astype(np.float64)
    fp = table.fp()[rows].astype(np.float64)
    segment = np.repeat(np.arange(table.n_segments), table.lengths)[rows]
    n_pos = table.n_pos.astype(np.float64)[segment]
    r1, r2 = (tp - b) / n_pos, tp / n_pos
    c1, c2 = np.maximum(r1, lo), np.minimum(r2, hi)
    inside = c2 > c1
    piece = np.where(inside, (c2 - c1) * tp / (tp + fp), 0.0)
    if tie_blocks == "interpolate":
        mixed = inside & (n > 0)
        if mixed.any():
            piece[mixed] = _crossing_part(tp[mixed] - b[mixed], fp[mixed] - n[mixed], b[mixed], n[mixed],
                                          n_pos[mixed], c1[mixed], c2[mixed])
    return np.bincount(segment, weights=piece, minlength=table.n_segments)
