"""What the driver does to every method's intervals at the edges: one place, arrays only.

For each requested method, after it computed its (groups, estimators) arrays,
:func:`at_the_edges` applies in this order:

1. **cannot be formed**: a group with one positive gets NaN bounds (no
   variance between positives can be estimated, and a bootstrap of one
   positive only resamples the negatives), note :data:`.boundaries.CANNOT_FORM_NOTE`;
2. **boundary fallback** (methods with ``fallback=True``: every Wald-type
   method and the percentile bootstrap): where the method formed an
   interval, an estimate of 0 or 1, a standard error of 0, an interval of
   zero width, or (AUCPR) a group whose positives all outscore its negatives
   gets the metric's score interval
   (:data:`BOUNDARY_METHOD`: Wilson's on the positives for AUCPR, Newcombe's
   Method 5 for AUROC), note :data:`.boundaries.BOUNDARY_NOTE`;
3. **truncation** to [0, 1], note :data:`.boundaries.TRUNCATED_NOTE`;
4. **small samples**: fewer positives than the method's record gives
   (``min_positives``; a boundary row: the score interval's), or fewer
   clusters (``min_clusters``, with ``cluster=``): a note; the driver
   raises one :class:`~aucpr_stats.exceptions.SmallSampleWarning` per call.
"""

from __future__ import annotations

import numpy as np

from ..estimators.partial import is_partial
from ..estimators.pr_points import remember_last
from ..estimators.roc import a_prime
from ..ties import TieTable
from .boundaries import (BOUNDARY_NOTE, CANNOT_FORM_NOTE, TRUNCATED_NOTE, join_notes, newcombe_interval, truncate,
                         wilson_interval)
from .registry import INTERVAL_METHODS
from .small_sample import (boundary_mask, boundary_note, cluster_mask, cluster_note, control_weight_mask,
                           control_weight_note, small_sample_mask, small_sample_note)

__all__ = ["BOUNDARY_METHOD", "boundary_interval", "at_the_edges"]

#: The score interval each metric falls back on at the boundary.
BOUNDARY_METHOD = {"aucpr": "wilson", "auroc": "newcombe"}


def perfectly_separated(result) -> np.ndarray:
    """Per group: every positive scored above every negative (A' = 1), shape (groups, 1)."""
    return _separated(result.ties)[:, None]


@remember_last  # several methods, and the arms of a coverage study, ask it of one table in turn
def _separated(ties: TieTable) -> np.ndarray:
    out = np.zeros(ties.n_segments, dtype=bool)
    usable = np.flatnonzero(ties.has_both_classes())
    if usable.size:
        table = ties.collapsed()  # A' reads the negatives by runs: a deferred table stays unmerged
        table = table if usable.size == ties.n_segments else table.take(usable)
        out[usable] = a_prime(table) == 1.0
    out.setflags(write=False)
    return out


def boundary_interval(request, estimate: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The metric's score interval for every group and estimator of the request: (lower, upper, se).

    For AUCPR, a perfectly separated group gets the interval of an estimate
    of 1 whatever the estimator returned (the interpolated median, for one,
    stays below 1 there: its last recall run holds the trailing negatives).
    """
    result = request.result
    estimate = result.estimates if estimate is None else estimate
    n_pos = result.effective_n_pos[:, None].astype(np.float64)
    if result.metric == "auroc":
        return newcombe_interval(estimate, n_pos, result.effective_n_neg[:, None], request.level)
    return wilson_interval(estimate, n_pos, request.level)


def _boundary_reason(estimate: np.ndarray, se: np.ndarray, separated: np.ndarray) -> np.ndarray:
    reason = np.full(estimate.shape, "an interval of zero width", dtype=object)
    reason[np.broadcast_to(separated, estimate.shape)] = "perfect separation"
    reason[se == 0] = "a standard error of 0"
    reason[estimate == 1.0] = "an estimate of 1"
    reason[estimate == 0.0] = "an estimate of 0"
    return reason


def at_the_edges(request, method, out: dict) -> dict:
    """``out`` with bounds formed, fallen back, truncated; adds ``edge_note``, ``edge_only``, ``small_sample``
    and ``few_clusters``.

    ``edge_note`` (object array, None = no note) is joined to the method's
    own note by the driver, or replaces it where ``edge_only`` (an interval
    that cannot be formed).
    """
    result = request.result
    shape = request.shape
    lower = np.array(out["lower"], dtype=np.float64, copy=True)
    upper = np.array(out["upper"], dtype=np.float64, copy=True)
    se = np.broadcast_to(np.asarray(out["se"], dtype=np.float64), shape)
    estimate = result.estimates
    n_pos = np.broadcast_to(result.n_pos[:, None], shape)  # rows (one positive row: no interval)
    notes = np.full(shape, None, dtype=object)

    single = n_pos < 2
    lower[single] = np.nan
    upper[single] = np.nan
    notes[single] = CANNOT_FORM_NOTE

    edge = np.zeros(shape, dtype=bool)
    if method.fallback:
        separated = perfectly_separated(result) if result.metric == "aucpr" else np.zeros((shape[0], 1), bool)
        with np.errstate(invalid="ignore"):
            # only where the method formed an interval: a NaN on purpose (too few folds, ...) stays NaN
            edge = (np.isfinite(estimate) & np.isfinite(lower) & np.isfinite(upper)
                    & ((estimate <= 0.0) | (estimate >= 1.0) | (se == 0.0) | (lower == upper) | separated))
        # the score intervals are for the full area: a partial area keeps its own interval at the edges
        edge &= np.array([not is_partial(record) for record in request.estimators], dtype=bool)[None, :]
        if edge.any():
            b_lower, b_upper, _ = boundary_interval(request, np.where(separated, 1.0, estimate))
            lower[edge], upper[edge] = b_lower[edge], b_upper[edge]
            name = BOUNDARY_METHOD[result.metric]
            reason = _boundary_reason(estimate, se, separated)[edge]
            head, tail = BOUNDARY_NOTE.format(reason="\0", method=name).split("\0")
            notes[edge] = np.char.add(np.char.add(head, reason.astype(str)), tail).astype(object)

    # an area lies in [0, 1]; a partial area in its attainable range (PartialRange.attainable)
    ranges = [record.window.attainable() if is_partial(record) else record.bounds for record in request.estimators]
    lo, hi = (np.array(bounds, dtype=np.float64)[None, :] for bounds in zip(*ranges))
    lower, upper, truncated = truncate(lower, upper, lo, hi)
    range_notes = np.array([TRUNCATED_NOTE.format(lo=a, hi=b) for a, b in ranges], dtype=object)[None, :]
    notes = join_notes(notes, np.where(truncated, range_notes, None))

    # a boundary row holds the score interval: its own minimum applies
    own = small_sample_mask(method, n_pos) & ~edge
    other = np.zeros(shape, dtype=bool)
    if edge.any():
        fallback = INTERVAL_METHODS[result.metric][BOUNDARY_METHOD[result.metric]]
        other = small_sample_mask(fallback, n_pos) & edge
    small = (own | other) & np.isfinite(estimate)
    notes = join_notes(notes, np.where(own & small, small_sample_note(method), None))
    if other.any():
        notes = join_notes(notes, np.where(other & small, small_sample_note(fallback), None))
    # near an area of 1 some intervals under-cover unless the counts are large (the record's rule)
    near = boundary_mask(method, estimate, n_pos, np.broadcast_to(result.n_neg[:, None], shape))
    near &= ~edge & ~single & ~own & np.isfinite(lower)
    if near.any():
        notes = join_notes(notes, np.where(near, boundary_note(method, result.metric), None))
    # an estimator whose intervals under-cover over the grid whatever the method (its record's caveat)
    caveat = np.array([record.coverage_caveat for record in request.estimators], dtype=object)
    biased = np.not_equal(caveat, None)[None, :] & np.isfinite(lower) & ~single
    if biased.any():
        notes = join_notes(notes, np.where(biased, np.broadcast_to(caveat[None, :], shape), None))
    few = np.zeros(shape, dtype=bool)
    clusters = getattr(result, "clusters", None)
    if clusters is not None and method.min_clusters is not None:
        n_clusters = np.bincount(clusters.group, minlength=result.n_groups)
        few = cluster_mask(method, n_clusters)[:, None] & np.isfinite(estimate) & ~single
        notes = join_notes(notes, np.where(few, cluster_note(method), None))
    # a case-control sample at a stated prevalence with too few controls per case (the record's rule)
    stated = result.stated_prevalence
    sparse = control_weight_mask(method, stated, result.n_pos, result.n_neg)[:, None] & np.isfinite(estimate) & ~single
    if sparse.any():
        notes = join_notes(notes, np.where(sparse, control_weight_note(method, stated), None))
    return {**out, "lower": lower, "upper": upper, "edge_note": notes, "edge_only": single,
            "small_sample": small | few | near | sparse, "few_clusters": few, "near_boundary": near,
            "sparse_controls": sparse, "biased_estimator": biased}
