"""Paired comparisons: two or more scores on the same rows.

Two scores measured on the same patients are correlated: a hard case is hard
for both. A paired comparison accounts for that correlation, which is
usually positive and then makes the difference far more precise than two
separate intervals suggest.

* ``metric="auroc"``, ``method="delong"``: DeLong, DeLong & Clarke-Pearson's
  (1988) test; the covariance of the two AUCs comes from the per-row
  placement values of both scores (:func:`delong_paired`).
* ``method="bootstrap"`` (any metric): the paired stratified bootstrap, the
  same resampled rows for every score. Resampling rows within each class is
  drawing the counts of the distinct (group, class, tie row of every score)
  cells multinomially (:func:`joint_cells`), so it runs on
  :mod:`aucpr_stats.resample` like every other bootstrap, each group from its
  own stream.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Sequence

import attrs
import numpy as np
import polars as pl

from ..estimators.average_precision import average_precision_replicates
from ..estimators.engine import evaluate
from ..estimators.roc import delong_components, placement_values
from ..estimators.tie_blocks import DEFAULT_TIES, crossing_precision
from ..exceptions import InputError
from ..ingest import Ingested
from ..tables import PairedScores
from ..progress import progress_bar
from ..resample import Streams, check_allocation
from ..resample.counts import replicate_producers
from ..resample.threads import drain
from ..ties import TieTable
from .statistics import difference_columns, paired_block, warn_small_rows, with_edge_notes, withhold_below_minimum

__all__ = ["delong_paired", "joint_cells", "paired_bootstrap", "compare_paired", "score_pairs", "paired_risks_iv"]


# =================================================================== kernels
def delong_paired(ties_a: TieTable, row_a: np.ndarray, ties_b: TieTable, row_b: np.ndarray,
                  group: np.ndarray, positive: np.ndarray):
    r"""DeLong's covariance of two AUCs measured on the same rows, per group.

    With :math:`V^{(r)}_{10}(X_i)` and :math:`V^{(r)}_{01}(Y_j)` the placement
    values of test ``r`` (:func:`aucpr_stats.estimators.roc.placement_values`),
    DeLong, DeLong & Clarke-Pearson (1988) estimate

    .. math::

        S_{10}^{(r,s)} = \frac{1}{m-1}\sum_{i=1}^{m}\big(V^{(r)}_{10}(X_i) - \hat\theta^{(r)}\big)
                                                \big(V^{(s)}_{10}(X_i) - \hat\theta^{(s)}\big),

    likewise :math:`S_{01}^{(r,s)}` over the ``n`` negatives, and
    :math:`\mathrm{Cov}(\hat\theta^{(r)}, \hat\theta^{(s)}) = S_{10}^{(r,s)}/m + S_{01}^{(r,s)}/n`.
    The variance of the difference is
    :math:`\mathrm{Var}_r + \mathrm{Var}_s - 2\,\mathrm{Cov}_{rs}` (their Eq. 5 with
    the contrast :math:`L = (1, -1)`).

    Parameters
    ----------
    ties_a, ties_b : TieTable
        One segment per group for each score (rows in any order).
    row_a, row_b : ndarray of int, shape (n,)
        The tie row (global index) of every data row in each table.
    group : ndarray of int, shape (n,)
        Group (segment) index of every row.
    positive : ndarray of bool, shape (n,)

    Returns
    -------
    auc_a, auc_b, var_a, var_b, cov : ndarray of float64, shape (n_groups,)
        NaN where a group has fewer than two positives or two negatives.
    """
    n_groups = ties_a.n_segments
    deviations, aucs = [], []
    for ties, rows in ((ties_a, row_a), (ties_b, row_b)):
        auc, _, _ = delong_components(ties)
        v10, v01 = placement_values(ties)
        # every data row carries the placement value of its tie row (midranks)
        value = np.where(positive, v10[rows], v01[rows])
        deviations.append(value - auc[group])
        aucs.append(auc)
    cls = 2 * group + positive  # (group, class) cell of every row
    counts = np.bincount(cls, minlength=2 * n_groups).reshape(n_groups, 2)
    n_neg, n_pos = counts[:, 0], counts[:, 1]

    def covariance(d1, d2):
        sums = np.bincount(cls, weights=d1 * d2, minlength=2 * n_groups).reshape(n_groups, 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            s10 = np.where(n_pos > 1, sums[:, 1] / (n_pos - 1), np.nan)
            s01 = np.where(n_neg > 1, sums[:, 0] / (n_neg - 1), np.nan)
            return s10 / n_pos + s01 / n_neg

    da, db = deviations
    return aucs[0], aucs[1], covariance(da, da), covariance(db, db), covariance(da, db)



def joint_cells(group, positive, rows: list[np.ndarray], n_groups: int):
    """Distinct (group, class, tie row of every score) cells with their row counts.

    Resampling rows within each class is the same as drawing the cell counts
    multinomially within each class, so the paired bootstrap runs on this
    table: it is as small as the data allow (ties shared by all scores merge).
    """
    keys = [*rows[::-1], positive, group]  # lexsort: last key is the primary one
    order = np.lexsort(keys)
    start = np.zeros(order.size, dtype=bool)
    start[0] = True
    for key in keys:
        k = key[order]
        start[1:] |= k[1:] != k[:-1]
    first = np.flatnonzero(start)
    size = np.diff(np.append(first, order.size))
    lead = order[first]
    cell_group, cell_pos = group[lead], positive[lead]
    per_group = np.bincount(cell_group, minlength=n_groups)
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(per_group, out=offsets[1:])
    table = TieTable(
        score=-np.arange(first.size, dtype=np.float64),  # placeholder: only counts are resampled
        pos=np.where(cell_pos, size, 0),
        neg=np.where(cell_pos, 0, size),
        offsets=offsets,
    )
    return table, [r[lead] for r in rows]



#: Chunks with at most this many runs of one group's replicates build their tables run by run (tiled).
TILED_RUNS_MAX = 8


# ------------------------------------------- average precision straight from the joint cells
def average_precision_blocks(kernel: Any) -> str | None:
    """``tie_blocks`` of ``kernel`` when it is the average precision replicate kernel (else None)."""
    if kernel is average_precision_replicates:
        return DEFAULT_TIES
    if (isinstance(kernel, functools.partial) and kernel.func is average_precision_replicates and not kernel.args
            and set(kernel.keywords) <= {"tie_blocks"}):
        return kernel.keywords.get("tie_blocks", DEFAULT_TIES)
    return None


@attrs.frozen(eq=False)
class PositiveRowMap:
    """Where one score's positive tie rows sit among the joint cells of each group (fixed across replicates).

    The cells of a group are its negative cells, then its positive cells
    (:func:`joint_cells` sorts by class first). Arrays of cells are CSR over
    groups with ``pos_offsets`` / ``neg_offsets``; arrays of positive rows
    (tie rows of this score holding a positive cell, in descending score)
    with ``row_offsets``.

    Attributes
    ----------
    pos_take, neg_take : ndarray of int64
        Per group, its positive (negative) cells in this score's row order,
        as indices within the group's block of cells (negatives first).
    pos_in_order, neg_in_order : ndarray of bool
        Per group: its positive (negative) cells are already in row order
        (the first score's, by the sort of :func:`joint_cells`).
    mixed_rows : ndarray of bool
        Per group: some tie row of this score holds cells of both classes.
    end : ndarray of int64
        Per positive row: index, in the sorted positive cells of its group,
        of the row's last cell (its running positive count is read there).
    upto, before : ndarray of int64
        Per positive row: how many negative cells of its group lie at or
        above the row, and strictly above it.
    row : ndarray of int64
        Per positive row: its tie row within the group's segment.
    """

    pos_take: np.ndarray
    neg_take: np.ndarray
    pos_in_order: np.ndarray
    neg_in_order: np.ndarray
    mixed_rows: np.ndarray
    end: np.ndarray
    upto: np.ndarray
    before: np.ndarray
    row: np.ndarray
    row_offsets: np.ndarray
    pos_offsets: np.ndarray
    neg_offsets: np.ndarray

    @classmethod
    def build(cls, local_row: np.ndarray, cell_group: np.ndarray, is_pos: np.ndarray, n_groups: int):
        def offsets_of(groups):
            out = np.zeros(n_groups + 1, dtype=np.int64)
            np.cumsum(np.bincount(groups, minlength=n_groups), out=out[1:])
            return out

        sorted_cells = []
        for cells in (np.flatnonzero(is_pos), np.flatnonzero(~is_pos)):
            order = np.lexsort((local_row[cells], cell_group[cells]))  # by group, then tie row
            group = cell_group[cells][order]
            offsets = offsets_of(group)
            moved = np.bincount(group, weights=order != np.arange(order.size), minlength=n_groups)
            sorted_cells.append((order - offsets[group], group, local_row[cells][order], offsets, moved == 0))
        (pos_take, p_group, p_row, pos_offsets, pos_in_order), (neg_take, n_group, n_row, neg_offsets,
                                                                 neg_in_order) = sorted_cells
        pos_take += (neg_offsets[1:] - neg_offsets[:-1])[p_group]  # a group's positive cells follow its negatives
        last = np.ones(p_row.size, dtype=bool)  # the last positive cell of each (group, tie row)
        last[:-1] = (p_row[1:] != p_row[:-1]) | (p_group[1:] != p_group[:-1])
        ends = np.flatnonzero(last)
        row_group, row = p_group[ends], p_row[ends]
        width = int(local_row.max()) + 2 if local_row.size else 1
        neg_key, row_key = n_group * width + n_row, row_group * width + row  # sorted (group, row) keys
        start = neg_offsets[row_group]
        upto = np.searchsorted(neg_key, row_key, side="right") - start
        before = np.searchsorted(neg_key, row_key, side="left") - start
        return cls(pos_take=pos_take, neg_take=neg_take, pos_in_order=pos_in_order, neg_in_order=neg_in_order,
                   mixed_rows=np.bincount(row_group, weights=upto > before, minlength=n_groups) > 0,
                   end=ends - pos_offsets[row_group], upto=upto, before=before,
                   row=row, row_offsets=offsets_of(row_group), pos_offsets=pos_offsets, neg_offsets=neg_offsets)

    def average_precision(self, s: int, pos_counts: np.ndarray, neg_counts: np.ndarray, width: int,
                          n_pos: int, tie_blocks: str) -> np.ndarray:
        """Average precision of replicates of group ``s``: the bits of the replicate kernel on their tables.

        ``pos_counts`` and ``neg_counts`` (replicates, cells of ``s``) are the
        drawn counts in cell order (any integer type: the negatives are
        gathered once per score, so a narrow type keeps them in cache);
        ``width`` is the number of tie rows of ``s`` in this score's table.
        The running sums of the kernel (exact integers) are read only at the
        rows holding positives; the precision sum of every tie row, zero
        elsewhere, is then summed per replicate by the same ``np.add.reduceat``
        over the same row layout as
        :func:`~aucpr_stats.estimators.average_precision.average_precision_replicates`,
        so the values are the same bits (Boyd et al. 2013, Eq. 9).
        """
        reps = pos_counts.shape[0]
        rows = slice(self.row_offsets[s], self.row_offsets[s + 1])
        lo, hi = self.pos_offsets[s], self.pos_offsets[s + 1]
        n_neg = int(self.neg_offsets[s + 1] - self.neg_offsets[s])
        # the positive cells in this score's row order (a gather, unless they are in order already)
        ordered = (pos_counts[:, n_neg:] if self.pos_in_order[s]
                   else np.take(pos_counts, self.pos_take[lo:hi], axis=1))
        tp = np.take(np.cumsum(ordered, axis=1), self.end[rows], axis=1)  # TP at the bottom of each row
        b = np.diff(tp, axis=1, prepend=0)  # the row's positives
        lo, hi = self.neg_offsets[s], self.neg_offsets[s + 1]
        ordered = (neg_counts[:, :n_neg] if self.neg_in_order[s]
                   else np.take(neg_counts, self.neg_take[lo:hi], axis=1))
        running = ordered.astype(np.int64)  # int64 to int64: numpy's fast running sum, in place
        np.cumsum(running, axis=1, out=running)

        def negatives(first: np.ndarray) -> np.ndarray:
            """Negatives among the ``first`` negative cells in row order (0 for none)."""
            if n_neg == 0:
                return np.zeros((reps, first.size), dtype=np.int64)
            return np.where(first > 0, np.take(running, np.maximum(first - 1, 0), axis=1), 0)

        fp = negatives(self.upto[rows])
        admitted = tp + fp
        precision_sum = np.divide(b * tp, admitted, out=np.zeros(b.shape), where=b > 0)
        if tie_blocks == "interpolate" and self.mixed_rows[s]:  # rows holding both classes: the crossing
            own = fp - negatives(self.before[rows])
            mixed = np.flatnonzero((b > 0) & (own > 0))
            if mixed.size:
                bm, nm = b.ravel()[mixed], own.ravel()[mixed]
                a = tp.ravel()[mixed] - bm
                precision_sum.ravel()[mixed] = bm * crossing_precision(a, admitted.ravel()[mixed] - a - bm - nm,
                                                                       bm, nm)
        target = (self.row[rows][None, :] + (np.arange(reps, dtype=np.int64) * width)[:, None]).ravel()
        every_row = _zeros(reps * width)  # zero but at the rows holding positives, as in the kernel
        every_row[target] = precision_sum.ravel()
        try:
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.add.reduceat(every_row, np.arange(reps, dtype=np.int64) * width) / n_pos
        finally:
            every_row[target] = 0.0  # back to zeros for the next call on this thread


_scratch = threading.local()


def _zeros(size: int) -> np.ndarray:
    """A float64 array of ``size`` zeros owned by this thread (reused: the caller puts the zeros back)."""
    buffer = getattr(_scratch, "zeros", None)
    if buffer is None or buffer.size < size:
        buffer = _scratch.zeros = np.zeros(max(size, 1 << 16))
    return buffer[:size]


def _narrow(counts: np.ndarray) -> np.ndarray:
    """``counts`` (non-negative integers) in the narrowest unsigned type that holds them."""
    top = int(counts.max()) if counts.size else 0
    for dtype in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dtype).max:
            return counts.astype(dtype)
    return counts


def paired_bootstrap(paired: PairedScores, estimators: Sequence[Any], n_boot: int, streams: Streams,
                     progress: bool | None = False, *, tiled_runs_max: int = TILED_RUNS_MAX,
                     direct: bool = True) -> np.ndarray:
    """Replicate estimates, shape (n_scores, n_estimators, n_groups, n_boot), all scores on the same draws.

    ``progress``: a bar counting (group, replicate) pairs (:mod:`aucpr_stats.progress`). The roads, which
    give the same bits: chunks of at most ``tiled_runs_max`` runs of one group's replicates build their
    tables run by run (tiled), others cell by cell; with ``direct``, average precision is read straight
    from the drawn cell counts (:class:`PositiveRowMap`), else from replicate tables by its kernel.
    """
    tables = paired.tables
    n_groups = tables[0].n_segments
    cells, cell_rows = joint_cells(paired.group, paired.positive, list(paired.rows), n_groups)
    check_allocation(len(tables) * len(estimators) * n_groups * n_boot,
                     f"a paired bootstrap of {len(tables)} scores x {n_groups:,} groups x {n_boot:,} replicates")
    out = np.full((len(tables), len(estimators), n_groups, n_boot), np.nan)
    # each cell's tie row within its group's segment, for every score (fixed across replicates)
    cell_group = cells.segment_ids()
    local_rows = [cell_row - ties.offsets[:-1][cell_group] for ties, cell_row in zip(tables, cell_rows)]
    kernels = [getattr(e, "replicate_kernel", None) or e for e in estimators]  # same values, faster on replicates

    def rows_of_runs(source: np.ndarray, runs: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(target tie row of each drawn cell, scores, offsets) of score ``k``'s replicate tables, built run
        by run: a run's replicates share one group, so its cell-to-row map and its scores are tiled."""
        ties, local_row = tables[k], local_rows[k]
        lengths = ties.lengths[source]
        offsets = np.zeros(source.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        targets, scores = [], []
        for first, stop in zip(runs, [*runs[1:], source.size]):
            s, reps = int(source[first]), int(stop - first)
            width = int(ties.lengths[s])
            run_rows = local_row[cells.offsets[s]: cells.offsets[s + 1]]
            targets.append((run_rows[None, :] + (offsets[first] + np.arange(reps) * width)[:, None]).ravel())
            scores.append(np.tile(ties.score[ties.offsets[s]: ties.offsets[s + 1]], reps))
        return np.concatenate(targets), np.concatenate(scores), offsets

    def rows_of_cells(source: np.ndarray, cell: np.ndarray, segment_of_cell: np.ndarray, k: int):
        """The same as :func:`rows_of_runs`, cell by cell (chunks of many small groups)."""
        ties, local_row = tables[k], local_rows[k]
        lengths = ties.lengths[source]
        offsets = np.zeros(source.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        target = offsets[:-1][segment_of_cell]
        target += local_row[cell]
        within = np.arange(offsets[-1], dtype=np.int64) - np.repeat(offsets[:-1], lengths)
        return target, ties.score[np.repeat(ties.offsets[:-1][source], lengths) + within], offsets

    # average precision is read straight from the drawn cell counts (the kernel's bits, no replicate tables)
    blocks = [average_precision_blocks(kernel) if direct else None for kernel in kernels]
    reads_cells = [j for j, b in enumerate(blocks) if b is not None]
    if reads_cells:
        is_pos = cells.pos > 0
        maps = [PositiveRowMap.build(local_row, cell_group, is_pos, n_groups) for local_row in local_rows]

    def evaluate_runs(chunk, runs: np.ndarray) -> None:
        """The estimators read from the cells on a chunk of few runs, run by run."""
        pos, neg, offsets = chunk.table.pos, chunk.table.neg, chunk.table.offsets
        for first, stop in zip(runs, [*runs[1:], chunk.segment.size]):
            s, reps = int(chunk.segment[first]), int(stop - first)
            shape = (reps, int(cells.lengths[s]))
            counts = slice(offsets[first], offsets[stop])
            pos_counts, neg_counts = pos[counts].reshape(shape), _narrow(neg[counts]).reshape(shape)
            replicate = chunk.replicate[first:stop]
            for k, ties in enumerate(tables):
                width = int(ties.lengths[s])
                if width == 0:  # an empty group: NaN, as the kernel gives
                    continue
                for j in reads_cells:
                    out[k, j, s, replicate] = maps[k].average_precision(s, pos_counts, neg_counts, width,
                                                                        int(ties.n_pos[s]), blocks[j])

    def evaluate(chunk) -> None:  # writes only this chunk's (group, replicate) cells of `out`
        source = chunk.segment
        runs = np.flatnonzero(np.concatenate(([True], source[1:] != source[:-1])))
        on_tables = range(len(kernels))
        if reads_cells and runs.size <= tiled_runs_max:
            evaluate_runs(chunk, runs)
            on_tables = [j for j in on_tables if j not in reads_cells]
            if not on_tables:
                bar_update(source.size)
                return
        if runs.size > tiled_runs_max:
            # each drawn cell: its source cell, then its tie row in each score's table
            cell = np.repeat(cells.offsets[:-1][source] - chunk.table.offsets[:-1], cells.lengths[source])
            cell += np.arange(chunk.table.n_rows, dtype=np.int64)
            segment_of_cell = np.repeat(np.arange(source.size), cells.lengths[source])
        for k in range(len(tables)):
            if runs.size > tiled_runs_max:
                target, score, offsets = rows_of_cells(source, cell, segment_of_cell, k)
            else:
                target, score, offsets = rows_of_runs(source, runs, k)
            pos = np.bincount(target, weights=chunk.table.pos, minlength=offsets[-1]).astype(np.int64)
            neg = np.bincount(target, weights=chunk.table.neg, minlength=offsets[-1]).astype(np.int64)
            table = TieTable(score, pos, neg, offsets)
            for j in on_tables:
                with np.errstate(all="ignore"):
                    out[k, j, source, chunk.replicate] = np.asarray(kernels[j](table), dtype=np.float64)
        bar_update(source.size)

    bar = progress_bar(n_groups * n_boot, "paired bootstrap", progress)
    lock = threading.Lock()

    def bar_update(n: int) -> None:
        with lock:
            bar.update(n)

    # each range of groups is drawn by one thread at a time from the groups' own streams (the same numbers
    # for any number of threads); the chunks are evaluated on whichever thread is free
    drain(replicate_producers(cells, n_boot, streams), evaluate)
    bar.close()
    return out


def paired_risks_iv(ingested, reference: Any, what: str) -> None:
    """Check a paired comparison of predicted risks: two or more scores, a known ``reference``, values in [0, 1]."""
    spec, paired = ingested.spec, ingested.paired
    if len(spec.scores) < 2:
        raise InputError(f"`score` must name at least two columns for a paired comparison; got {list(spec.scores)}")
    if reference is not None and reference not in spec.scores:
        raise InputError(f"`reference` must be one of `score` {list(spec.scores)}; got {reference!r}")
    for name, table in zip(spec.scores, paired.tables):
        if ((table.score < 0.0) | (table.score > 1.0)).any():
            raise InputError(f"{what} needs predicted probabilities in [0, 1]; score column {name!r} holds "
                             f"values from {table.score.min():g} to {table.score.max():g}")


def score_pairs(labels: Sequence[Any], reference: Any) -> list[tuple[int, int]]:
    """The (a, b) indices compared: every pair, or each label against ``reference``, in table order."""
    if reference is None:
        return [(i, j) for i in range(len(labels)) for j in range(i + 1, len(labels))]
    r = list(labels).index(reference)
    return [(i, r) for i in range(len(labels)) if i != r]


def compare_paired(ingested: Ingested, estimators: Sequence[Any], seed: Any, common: dict,
                   progress: bool | None = None) -> pl.DataFrame:
    """The comparison table of every pair of scores, per group and estimator."""
    paired, spec = ingested.paired, ingested.spec
    tables = paired.tables
    keys, notes = ingested.keys, list(ingested.notes)
    n_pos, n_neg = tables[0].n_pos, tables[0].n_neg
    usable = tables[0].has_both_classes()
    level, names, method = common["level"], common["estimators"], common["method"]
    estimates = np.stack([evaluate(t, estimators).T for t in tables])  # (scores, estimators, groups)
    if method == "bootstrap":
        streams = Streams.for_keys(seed, keys, spec.by, "compare")
        replicates = paired_bootstrap(paired, estimators, common["n_boot"], streams, progress)
    blocks, flagged = [], {}
    for a, b in score_pairs(spec.scores, common["reference"]):
        if method == "delong":
            _, _, var_a, var_b, cov = delong_paired(tables[a], paired.rows[a], tables[b], paired.rows[b],
                                                    paired.group, paired.positive)
        for j in range(len(estimators)):
            diff = estimates[a, j] - estimates[b, j]
            note = list(notes)
            if method == "delong":
                with np.errstate(invalid="ignore", divide="ignore"):
                    columns = difference_columns(diff, method, level, variance=var_a + var_b - 2.0 * cov,
                                                 correlation=cov / np.sqrt(var_a * var_b))
                for g in np.flatnonzero(usable & np.isnan(columns["se"])):
                    note[g] = "DeLong variance needs >= 2 positives and >= 2 negatives"
                for g in np.flatnonzero(usable & (columns["se"] == 0)):
                    note[g] = "the two scores order every pair alike: difference and SE are 0"
            else:
                columns = difference_columns(diff, method, level, replicates=(replicates[a, j], replicates[b, j]))
                note = withhold_below_minimum(columns, note, common["metric"], method, n_pos)
            note = with_edge_notes(columns, note, common["metric"], method, n_pos, flagged)
            blocks.append(paired_block(keys, spec.by, spec.scores[a], spec.scores[b], names[j], estimates[a, j],
                                       estimates[b, j], columns, n_pos, n_neg, note))
    warn_small_rows(flagged)
    return pl.concat(blocks).sort("__group", maintain_order=True).drop("__group")
