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

from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

import numpy as np
import polars as pl

from ..estimators.engine import evaluate
from ..estimators.roc import delong_components, placement_values
from ..ingest import Ingested, PairedScores
from ..progress import progress_bar
from ..resample import Streams, check_allocation, replicate_chunks
from ..resample.threads import worker_threads
from ..ties import TieTable
from .statistics import difference_columns, warn_small_rows, with_edge_notes, withhold_below_minimum

__all__ = ["delong_paired", "joint_cells", "paired_bootstrap", "compare_paired"]


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


def paired_bootstrap(paired: PairedScores, estimators: Sequence[Any], n_boot: int, streams: Streams,
                     progress: bool | None = False) -> np.ndarray:
    """Replicate estimates, shape (n_scores, n_estimators, n_groups, n_boot), all scores on the same draws.

    ``progress``: a bar counting (group, replicate) pairs (:mod:`aucpr_stats.progress`).
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

    def evaluate(chunk) -> None:  # writes only this chunk's (group, replicate) cells of `out`
        source = chunk.segment
        runs = np.flatnonzero(np.concatenate(([True], source[1:] != source[:-1])))
        if runs.size > TILED_RUNS_MAX:
            # each drawn cell: its source cell, then its tie row in each score's table
            cell = np.repeat(cells.offsets[:-1][source] - chunk.table.offsets[:-1], cells.lengths[source])
            cell += np.arange(chunk.table.n_rows, dtype=np.int64)
            segment_of_cell = np.repeat(np.arange(source.size), cells.lengths[source])
        for k in range(len(tables)):
            if runs.size > TILED_RUNS_MAX:
                target, score, offsets = rows_of_cells(source, cell, segment_of_cell, k)
            else:
                target, score, offsets = rows_of_runs(source, runs, k)
            pos = np.bincount(target, weights=chunk.table.pos, minlength=offsets[-1]).astype(np.int64)
            neg = np.bincount(target, weights=chunk.table.neg, minlength=offsets[-1]).astype(np.int64)
            table = TieTable(score, pos, neg, offsets)
            for j, kernel in enumerate(kernels):
                with np.errstate(all="ignore"):
                    out[k, j, source, chunk.replicate] = np.asarray(kernel(table), dtype=np.float64)

    bar = progress_bar(n_groups * n_boot, "paired bootstrap", progress)
    # draws on this thread in a fixed order; the replicates are evaluated on worker threads meanwhile
    threads = worker_threads()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        waiting: deque = deque()
        for chunk in replicate_chunks(cells, n_boot, streams):
            bar.update(chunk.segment.size)
            if threads < 2:
                evaluate(chunk)
                continue
            waiting.append(pool.submit(evaluate, chunk))
            while len(waiting) > threads:
                waiting.popleft().result()
        for future in waiting:
            future.result()
    bar.close()
    return out


def _pairs(labels: Sequence[Any], reference: Any) -> list[tuple[int, int]]:
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
    n_groups = keys.height
    n_pos, n_neg = tables[0].n_pos, tables[0].n_neg
    usable = tables[0].has_both_classes()
    level, names, method = common["level"], common["estimators"], common["method"]
    estimates = np.stack([evaluate(t, estimators).T for t in tables])  # (scores, estimators, groups)
    if method == "bootstrap":
        streams = Streams.for_keys(seed, keys, spec.by, "compare")
        replicates = paired_bootstrap(paired, estimators, common["n_boot"], streams, progress)
    blocks, flagged = [], {}
    for a, b in _pairs(spec.scores, common["reference"]):
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
            block = pl.DataFrame({
                "score_a": [spec.scores[a]] * n_groups,
                "score_b": [spec.scores[b]] * n_groups,
                "estimator": [names[j]] * n_groups,
                "estimate_a": estimates[a, j],
                "estimate_b": estimates[b, j],
                **columns,
                "n_pos": n_pos,
                "n_neg": n_neg,
                "n_missing": keys["n_missing"].to_numpy().astype(np.int64),
                "note": pl.Series(note, dtype=pl.String),
            })
            if spec.by:
                block = pl.concat([keys.select(spec.by), block], how="horizontal")
            blocks.append(block.with_columns(pl.Series("__group", np.arange(n_groups))))
    warn_small_rows(flagged)
    return pl.concat(blocks).sort("__group", maintain_order=True).drop("__group")
