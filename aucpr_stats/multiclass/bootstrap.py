"""The joint bootstrap of a multiclass result: rows resampled once, every area and average re-estimated.

The areas of one group share its rows, so a replicate resamples the rows
(within each class: the class-stratified bootstrap, class counts kept; or
whole clusters with ``cluster=``) and every area of every model is read off
the same draw, which keeps the covariance between classes, between pairs
and between models (a paired comparison). A replicate's counts reach the
tie tables through each cell's tie row
(:class:`~aucpr_stats.tables.multiclass.AreaCells`): no re-sort, one sparse
product per chunk of replicates, and the estimator records evaluate every
(replicate, model, area) segment at once.

Each group draws from its own stream (:mod:`aucpr_stats.resample.streams`),
in chunks whose size depends on that group's rows only, so a group's
interval does not depend on the other groups, their order or the frame type.
A replicate in which an area is undefined (a cluster bootstrap that drew no
row of a class) gives NaN for it and for the averages that use it; the
interval is read off the others and the result's note counts them.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

import numpy as np

from ..estimators.engine import evaluate
from ..estimators.registry import Estimator
from ..progress import progress_bar
from ..resample.budget import check_allocation
from ..resample.streams import Streams
from ..resample.threads import drain
from ..tables.multiclass import AreaCells
from ..ties import TieTable
from .rows import Rows
from .statistics import Layout

__all__ = ["bootstrap_replicates", "CHUNK_VALUES"]

#: Row multiplicities drawn per chunk of one group (replicates x rows); the chunk size depends on the group only.
CHUNK_VALUES = 4_000_000


class _GroupCells:
    """One group's cells of one table: sparse maps from its rows to its tie rows, for cases and controls."""

    def __init__(self, cells: AreaCells, g: int, segments_per_group: int, r0: int, n_rows: int,
                 weights: np.ndarray | None):
        from scipy import sparse  # lazy: `import aucpr_stats` never loads scipy

        ties = cells.ties
        s0, s1 = g * segments_per_group, (g + 1) * segments_per_group
        t0, t1 = int(ties.offsets[s0]), int(ties.offsets[s1])
        c0, c1 = np.searchsorted(cells.segment, [s0, s1])
        rows, tie_rows, positive = cells.row[c0:c1] - r0, cells.tie_row[c0:c1] - t0, cells.positive[c0:c1]
        # integer counts without weights: the tie tables' exact integer road
        w = np.ones(rows.size, dtype=np.int64) if weights is None else weights[rows + r0]
        shape = (n_rows, t1 - t0)
        self.cases = sparse.csr_matrix((np.where(positive, w, 0), (rows, tie_rows)), shape=shape)
        self.controls = sparse.csr_matrix((np.where(positive, 0, w), (rows, tie_rows)), shape=shape)
        self.score = ties.score[t0:t1]
        self.offsets = ties.offsets[s0:s1 + 1] - t0
        self.n_segments = segments_per_group

    def table(self, multiplicity: np.ndarray) -> TieTable:
        """The tie tables of a chunk of replicates (rows of ``multiplicity``), replicate after replicate."""
        b = multiplicity.shape[0]
        n_ties = self.score.size
        pos = np.ascontiguousarray((self.cases.T @ multiplicity.T).T).ravel()
        neg = np.ascontiguousarray((self.controls.T @ multiplicity.T).T).ravel()
        offsets = (self.offsets[:-1][None, :] + n_ties * np.arange(b)[:, None]).ravel()
        return TieTable(np.tile(self.score, b), pos, neg, np.append(offsets, b * n_ties))


def _draw(rng: np.random.Generator, y: np.ndarray, cluster: np.ndarray | None, b: int, n_levels: int,
          canonical: np.ndarray | None) -> np.ndarray:
    """Row multiplicities of ``b`` replicates: within each class (drawn in the canonical order), or whole clusters."""
    if cluster is not None:
        local = cluster - cluster.min()
        n_clusters = int(local.max()) + 1
        counts = rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=b)
        return counts[:, local]
    out = np.zeros((b, y.size), dtype=np.int64)
    for c in range(n_levels):
        at = canonical[y[canonical] == c]
        if at.size:
            out[:, at] = rng.multinomial(at.size, np.full(at.size, 1.0 / at.size), size=b)
    return out


def bootstrap_replicates(rows: Rows, cells: AreaCells, micro: AreaCells | None, layout: Layout,
                         records: Sequence[Estimator], n_boot: int, seed: Any, progress: Any = None,
                         purpose: str = "multiclass bootstrap") -> np.ndarray:
    """Replicated reported values, shape (n_groups, n_models, n_rows, n_boot).

    Each group's draws are made in order from its own stream (one producer
    per group); the chunks are evaluated on every core
    (:func:`aucpr_stats.resample.threads.drain`), so the numbers do not
    depend on the number of threads.
    """
    n_groups, n_models = rows.n_groups, len(rows.models.names)
    n_areas, n_out, k = len(layout.areas), layout.n_rows, rows.n_levels
    out = np.full((n_groups, n_models, n_out, n_boot), np.nan)
    check_allocation(out.size, "the multiclass bootstrap")
    streams = Streams.for_keys(seed, rows.keys, rows.by, purpose)
    starts = np.searchsorted(rows.group, np.arange(n_groups + 1))
    canonical = rows.canonical_order() if rows.cluster is None else None
    lock = threading.Lock()

    def draws(g: int):
        """The chunks of group ``g``: its tables' maps and each chunk's row multiplicities, in stream order."""
        r0, r1 = int(starts[g]), int(starts[g + 1])
        if r1 == r0:
            yield g, None, 0, np.zeros((n_boot, 0))
            return
        y = rows.y[r0:r1]
        cluster = None if rows.cluster is None else rows.cluster[r0:r1]
        order = None if canonical is None else canonical[r0:r1] - r0
        group = _Group(cells, micro, g, n_models, n_areas, r0, r1, rows, k)
        chunk = max(1, min(n_boot, CHUNK_VALUES // (r1 - r0)))
        for first in range(0, n_boot, chunk):
            yield g, group, first, _draw(streams[g], y, cluster, min(chunk, n_boot - first), k, order)

    def evaluate_chunk(item) -> None:
        g, group, first, multiplicity = item
        b = multiplicity.shape[0]
        if group is not None:
            out[g, :, :, first:first + b] = np.moveaxis(group.reported(multiplicity, layout, records), 0, -1)
        with lock:
            bar.update(b)

    with progress_bar(n_groups * n_boot, "multiclass bootstrap", progress) as bar:
        drain([draws(g) for g in range(n_groups)], evaluate_chunk)
    return out


class _Group:
    """One group's tables (areas and micro cells) and what a chunk of replicates reads off them."""

    def __init__(self, cells: AreaCells, micro: AreaCells | None, g: int, n_models: int, n_areas: int, r0: int,
                 r1: int, rows: Rows, n_levels: int):
        self.n_models, self.n_areas, self.g = n_models, n_areas, g
        self.areas = _GroupCells(cells, g, n_models * n_areas, r0, r1 - r0, rows.weights)
        self.pooled = None if micro is None else _GroupCells(micro, g, n_models, r0, r1 - r0, rows.weights)
        w = None if rows.weights is None else rows.weights[r0:r1]
        self.onehot = np.zeros((r1 - r0, n_levels))
        self.onehot[np.arange(r1 - r0), rows.y[r0:r1]] = 1.0 if w is None else w

    def reported(self, multiplicity: np.ndarray, layout: Layout, records: Sequence[Estimator]) -> np.ndarray:
        """The reported values of each replicate, shape (b, n_models, n_rows)."""
        b = multiplicity.shape[0]
        values = evaluate(self.areas.table(multiplicity), records)[:, 0].reshape(b, self.n_models, self.n_areas)
        reported = layout.combine(values, self.g)  # area rows and the fixed-weight averages
        if "weighted" in layout.labels:  # the class shares of the replicate (they move with weights or clusters)
            share = multiplicity @ self.onehot
            share = share / share.sum(axis=1, keepdims=True)
            reported[:, :, layout.labels.index("weighted")] = np.einsum("bk,bmk->bm", share,
                                                                        layout.class_values(values))
        if self.pooled is not None:
            reported[:, :, -1] = evaluate(self.pooled.table(multiplicity), records)[:, 0].reshape(b, self.n_models)
        return reported
