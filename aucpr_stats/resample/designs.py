r"""Bootstrap replicates for weighted rows and for clustered rows, as group tie tables.

Both designs yield :class:`~aucpr_stats.resample.counts.ReplicateChunk`\ s
whose tables have the *group* table's scores and rows (the layout
:func:`~aucpr_stats.resample.counts.replicate_chunks` gives for the group
table), so every estimator and replicate kernel runs on them unchanged; only
the law of the counts differs.

* :class:`WeightedRows`, the weighted stratified bootstrap: the data rows of
  each (group, class) are resampled with replacement, ``n`` positives and
  ``m`` negatives as in the unweighted bootstrap (Boyd, Eng & Page 2013,
  section 3.2), and each drawn row carries its own weight. Rows are grouped
  into cells of equal (score, weight); a replicate draws multinomial row
  counts per cell (by :func:`~aucpr_stats.resample.counts.replicate_chunks`
  on the cell table), multiplies them by the cells' weights and adds them up
  per score. The class's number of rows is fixed; its weighted total varies.
* :class:`ClusterUnits`, the cluster bootstrap (Davison & Hinkley 1997,
  section 3.8; Field & Welsh 2007): the clusters of each group are resampled
  with replacement, as many as it holds. A drawn cluster brings all its
  rows, so the dependence within clusters is kept. By default
  (``strata="none"``) all clusters are drawn together and a replicate
  missing a class is drawn again; ``strata="composition"`` draws within the
  clusters holding positives only, negatives only and both (clusters of
  one row then give back the stratified row bootstrap), but under-covers
  when the composition goes with the scores (see the class).

Randomness: a group's replicates come from its own stream
(:mod:`.streams`), in blocks whose size depends on that group alone (or on
``chunk_size``), so they are the same whatever the other groups, the batch
of groups (:meth:`WeightedRows.take`, :meth:`ClusterUnits.take` with
:meth:`Streams.take <aucpr_stats.resample.streams.Streams.take>`) and the
number of threads. Chunks hold about 2**20 array elements.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs
import numpy as np

from ..exceptions import InputError
from ..ties import TieTable
from .clusters import ClusterUnits
from .counts import ReplicateChunk, cohort_chunks, estimates_of_chunks, replicate_chunks
from .streams import Streams
from .units import check_counts_match, check_stream_count, local_rows, target_rows

__all__ = ["ClusterUnits", "WeightedRows", "design_bootstrap_estimates", "target_rows"]


# ------------------------------------------------------------------ weights
@attrs.frozen(eq=False)
class WeightedRows:
    """The weighted stratified bootstrap: rows resampled within (group, class), each with its weight.

    Parameters
    ----------
    group_ties : TieTable
        One segment per group: the weighted positives and negatives (float64)
        at each distinct score.
    cells : TieTable
        One segment per group (the same groups, in order): one row per
        distinct (score, weight) cell in descending score order (a score
        repeats on consecutive rows when its rows carry several weights);
        ``pos`` and ``neg`` (int64) count the data rows of each class in the
        cell.
    cell_weight : ndarray of float64, shape (cells.n_rows,)
        The weight of the rows of each cell (finite, non-negative).
    target : ndarray of int64, shape (cells.n_rows,), optional
        The row of ``group_ties`` holding each cell's score; found by
        :func:`target_rows` when not given.
    stratified : bool
        True: the rows of each class resampled within it (the areas); False:
        the rows of a group resampled whatever their class
        (:func:`~aucpr_stats.resample.counts.cohort_chunks`; calibration).

    Notes
    -----
    *Rows carry their weights.* A replicate draws ``n`` positive and ``m``
    negative rows (the numbers of data rows) with replacement; a row of
    weight ``w`` adds ``w`` to its score's count each time it is drawn. That
    is not the bootstrap of a data set in which the row is replicated ``w``
    times: there the class would have ``n - 1 + w`` rows, drawn one by one,
    so a weight of 3 contributes 3 independent draws (variance of the
    weighted count about ``3 p``) rather than one draw of 3 (variance about
    ``9 p``). Frequency weights that stand for repeated identical rows
    should therefore be expanded into rows (or given as counts) before
    resampling; sampling and inverse-probability weights are the case for
    this design (Rao & Wu 1988; the row, not the weight unit, is the
    sampled unit). The weighted totals of each class vary between
    replicates, around the observed totals.

    With all weights 1 the replicates are exactly those of
    :func:`~aucpr_stats.resample.counts.replicate_chunks` on the unweighted
    group table (same streams and chunk size; as float64).
    """

    group_ties: TieTable
    cells: TieTable
    cell_weight: np.ndarray = attrs.field(converter=lambda w: np.ascontiguousarray(w, dtype=np.float64))
    target: np.ndarray | None = None
    stratified: bool = True
    _local_target: np.ndarray = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        group_ties, cells = self.group_ties, self.cells
        if cells.n_segments != group_ties.n_segments:
            raise InputError(f"`cells` must have one segment per group: {group_ties.n_segments:,} groups, "
                             f"{cells.n_segments:,} segments")
        if cells.pos.dtype.kind != "i" or cells.neg.dtype.kind != "i":
            raise InputError("`cells` must hold whole numbers of rows (int64 counts), got float counts")
        weight = self.cell_weight
        if weight.shape != (cells.n_rows,):
            raise InputError(f"`cell_weight` must have one value per cell row ({cells.n_rows:,}), "
                             f"got shape {weight.shape}")
        bad = ~np.isfinite(weight) | (weight < 0)
        if bad.any():
            raise InputError(f"`cell_weight` must be finite and non-negative; {int(bad.sum()):,} cell(s) are not")
        target = self.target
        if target is None:
            target = target_rows(group_ties, cells.segment_ids(), cells.score)
        else:
            target = np.ascontiguousarray(target, dtype=np.int64)
            if target.shape != (cells.n_rows,):
                raise InputError(f"`target` must have one row index per cell row ({cells.n_rows:,})")
        check_counts_match(group_ties, target, cells.pos * weight, cells.neg * weight, "cells")
        object.__setattr__(self, "target", target)
        seg = cells.segment_ids()
        object.__setattr__(self, "_local_target", target - group_ties.offsets[:-1][seg])

    @property
    def n_groups(self) -> int:
        return self.group_ties.n_segments

    def take(self, groups) -> WeightedRows:
        """The design of some groups, in the given order (draw with ``streams.take(groups)``)."""
        groups = np.asarray(groups, dtype=np.int64)
        cell_rows, _ = local_rows(self.cells.offsets, self.cells.lengths, groups)
        return WeightedRows(self.group_ties.take(groups), self.cells.take(groups), self.cell_weight[cell_rows],
                            stratified=self.stratified)

    def replicate_chunks(self, n_boot: int, streams: Streams, chunk_size: int | None = None
                         ) -> Iterator[ReplicateChunk]:
        """Replicates of every group, chunk by chunk (see :func:`~aucpr_stats.resample.counts.replicate_chunks`).

        The row counts of each cell are the stratified multinomial draws of
        :func:`~aucpr_stats.resample.counts.replicate_chunks` on ``cells``
        (group ``g`` from ``streams[g]``); each is multiplied by its cell's
        weight and added into the row of its score with one
        :func:`numpy.bincount` per chunk.

        Yields
        ------
        ReplicateChunk
            Tables with the group table's scores and float64 counts.
        """
        check_stream_count(self.group_ties, streams)
        draw = replicate_chunks if self.stratified else cohort_chunks
        for chunk in draw(self.cells, n_boot, streams, chunk_size):
            yield self._weighted(chunk)

    def _weighted(self, chunk: ReplicateChunk) -> ReplicateChunk:
        group_ties, cells = self.group_ties, self.cells
        segment = chunk.segment
        cell_rows, _ = local_rows(cells.offsets, cells.lengths, segment)
        group_rows, offsets = local_rows(group_ties.offsets, group_ties.lengths, segment)
        # the output row of each chunk row: its replicate's first row + its score's row within the group
        out = np.repeat(offsets[:-1], cells.lengths[segment]) + self._local_target[cell_rows]
        weight = self.cell_weight[cell_rows]
        n_out = int(offsets[-1])
        pos = np.bincount(out, weights=chunk.table.pos * weight, minlength=n_out)
        neg = np.bincount(out, weights=chunk.table.neg * weight, minlength=n_out)
        return ReplicateChunk(TieTable(group_ties.score[group_rows], pos, neg, offsets), segment, chunk.replicate)


# ------------------------------------------------------------------ estimates
def design_bootstrap_estimates(design: WeightedRows | ClusterUnits, estimators: Any, n_boot: int,
                               streams: Streams, chunk_size: int | None = None,
                               threads: int | None = None, on_chunk: Any = None) -> np.ndarray:
    """Statistics of the replicates of a weighted or clustered design, per group.

    As :func:`~aucpr_stats.resample.counts.bootstrap_estimates`, with the
    replicates of ``design`` in place of the stratified row bootstrap.

    Parameters
    ----------
    design : WeightedRows or ClusterUnits
    estimators : callable or sequence of callables
        ``fn(TieTable) -> ndarray[n_segments]`` or registry records (whose
        ``replicate_kernel`` is then used); all see the same replicates.
        They must accept the design's counts (float64 for weights).
    n_boot : int
    streams : Streams
        One stream per group of ``design``.
    chunk_size : int, optional
        Replicates per draw, see :meth:`ClusterUnits.replicate_chunks`.
    threads : int, optional
        Threads evaluating the estimators while this thread draws (the
        numbers do not depend on it).
    on_chunk : callable, optional
        Told the number of cells of each chunk (a progress bar's ``update``).

    Returns
    -------
    ndarray, shape (n_groups, n_boot), or (len(estimators), n_groups, n_boot)
        when ``estimators`` is a sequence. Replicates on which an estimator
        is undefined are NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from aucpr_stats.ties import TieTable
    >>> from aucpr_stats.estimators import a_prime
    >>> from aucpr_stats.resample import Streams
    >>> group = TieTable([3.0, 2.0, 1.0], [1, 2, 0], [0, 1, 2], [0, 3])
    >>> units = TieTable([3.0, 2.0, 2.0, 1.0, 1.0], [1, 1, 1, 0, 0], [0, 0, 1, 1, 1], [0, 2, 4, 5])  # 3 clusters
    >>> design = ClusterUnits(group, units, np.zeros(3, dtype=np.int64))
    >>> design_bootstrap_estimates(design, a_prime, 100, Streams.for_segments(1, 1, "bootstrap")).shape
    (1, 100)
    """
    return estimates_of_chunks(design.replicate_chunks(n_boot, streams, chunk_size), estimators,
                               design.group_ties.n_segments, n_boot, threads, on_chunk)
