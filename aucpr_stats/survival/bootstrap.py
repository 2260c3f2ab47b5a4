r"""The bootstrap of the censoring-weighted areas: rows resampled, :math:`\hat G` re-fitted in every replicate.

A replicate draws the rows of each group with replacement (or whole
clusters with ``cluster=``), re-fits the Kaplan-Meier estimate of the
censoring within each cell on the drawn rows, recomputes every row's case
and control weights, and re-estimates every (score, horizon) area on the
same draw, which keeps their covariance (paired comparisons, bands over
horizons). Cases and controls are not fixed in a time-to-event sample (a
row's status at a horizon is random), so the draw is not stratified.

A replicate's row multiplicities are a weighting
(:func:`~aucpr_stats.survival.areas.horizon_weights`): no row is copied, and
a chunk of replicates is one set of Kaplan-Meier fits and one tie table
whose segments are (replicate, group, score, horizon).

**Memory and reproducibility.** Each group draws from its own stream
(:mod:`aucpr_stats.resample.streams`) in the canonical row order, in blocks
of replicates whose size depends on the group's own rows only: a *small*
group (all its replicates' weights fit in :data:`CHUNK_VALUES`) draws every
replicate at once and is estimated together with other small groups; a
large group is estimated alone, block after block. So a group's numbers do
not depend on the other groups, the row order or the frame type, and no
array grows past :data:`CHUNK_VALUES` values whatever the data's size.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ..estimators.engine import evaluate
from ..estimators.registry import Estimator
from ..progress import progress_bar
from ..resample.streams import Streams
from .areas import horizon_weights, ipcw_tables, score_ranks
from .rows import SurvivalRows

__all__ = ["bootstrap_areas", "CHUNK_VALUES"]

#: Row weights held at once (replicates x horizons x rows): about 16 MB per array of them.
CHUNK_VALUES = 2_000_000


def _counts(rng: np.random.Generator, n_rows: int, cluster: np.ndarray | None, n_reps: int) -> np.ndarray:
    """Row multiplicities of ``n_reps`` replicates of one group, shape (n_reps, n_rows)."""
    if cluster is None:
        draws = rng.integers(0, n_rows, size=(n_reps, n_rows))
        flat = (np.arange(n_reps)[:, None] * n_rows + draws).ravel()
        return np.bincount(flat, minlength=n_reps * n_rows).reshape(n_reps, n_rows).astype(np.float64)
    codes = np.unique(cluster, return_inverse=True)[1]
    n_clusters = int(codes.max()) + 1
    draws = rng.integers(0, n_clusters, size=(n_reps, n_clusters))
    flat = (np.arange(n_reps)[:, None] * n_clusters + draws).ravel()
    per_cluster = np.bincount(flat, minlength=n_reps * n_clusters).reshape(n_reps, n_clusters)
    return per_cluster[:, codes].astype(np.float64)


def _batches(rows: SurvivalRows, n_boot: int, n_horizons: int) -> Iterator[tuple[int, int, int]]:
    """Runs of groups estimated together, with their block of replicates: (first, last + 1, block)."""
    sizes = np.diff(rows.group_bounds()) * n_horizons
    g, n_groups = 0, rows.n_groups
    while g < n_groups:
        if sizes[g] * n_boot > CHUNK_VALUES:  # a large group: alone, in blocks of its own size
            yield g, g + 1, max(1, CHUNK_VALUES // max(1, int(sizes[g])))
            g += 1
            continue
        end, total = g, 0
        while end < n_groups and sizes[end] * n_boot <= CHUNK_VALUES and (total + sizes[end]) * n_boot <= \
                CHUNK_VALUES:
            total += int(sizes[end])
            end += 1
        end = max(end, g + 1)
        yield g, end, n_boot
        g = end


def bootstrap_areas(rows: SurvivalRows, horizons: np.ndarray, record: Estimator, *,
                    n_boot: int, seed: Any, progress: Any = None) -> np.ndarray:
    """Replicates of every area, shape (n_groups, n_scores, H, n_boot); NaN where a replicate leaves it undefined.

    Parameters
    ----------
    rows
        The result's rows (each batch of groups ranks its own).
    horizons : ndarray of float64
    record : Estimator
        The estimator (its registry record).
    n_boot : int
    seed
        A checked seed (:func:`aucpr_stats._validate.rng_iv`).
    progress : bool, optional
    """
    n_horizons = horizons.size
    streams = Streams.for_keys(seed, rows.keys, rows.by, "bootstrap")
    out = np.full((rows.n_groups, rows.n_scores, n_horizons, n_boot), np.nan)
    bounds = rows.group_bounds()
    with progress_bar(n_boot * rows.n_groups, "time-dependent bootstrap", progress) as bar:
        for first, last, block in _batches(rows, n_boot, n_horizons):
            part = rows.take_groups(first, last)
            if part.time.size == 0:  # groups without usable rows: no replicate either
                bar.update(n_boot * (last - first))
                continue
            part_ranks = score_ranks(part)
            local = part.group_bounds()
            for start in range(0, n_boot, block):
                size = min(block, n_boot - start)
                counts = np.zeros((size, part.time.size))
                for g in range(first, last):
                    a, b = int(local[g - first]), int(local[g - first + 1])
                    cluster = None if rows.cluster is None else rows.cluster[bounds[g]:bounds[g + 1]]
                    counts[:, a:b] = _counts(streams[g], b - a, cluster, size)
                weights = horizon_weights(part, horizons, counts)
                values = evaluate(ipcw_tables(part, part_ranks, weights), [record])[:, 0]
                values = values.reshape(size, last - first, rows.n_scores, n_horizons)
                out[first:last, :, :, start:start + size] = np.moveaxis(values, 0, -1)
                bar.update(size * (last - first))
    return out
