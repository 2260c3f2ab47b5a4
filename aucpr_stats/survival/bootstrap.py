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
whose segments are (replicate, group, score, horizon). Each group draws from
its own stream (:mod:`aucpr_stats.resample.streams`), all its replicates at
once, in the canonical row order, so a group's numbers do not depend on the
other groups, the row order or the frame type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..estimators.engine import evaluate
from ..estimators.registry import Estimator
from ..progress import progress_bar
from ..resample.budget import check_allocation
from ..resample.streams import Streams
from .areas import ScoreRanks, horizon_weights, ipcw_tables
from .rows import SurvivalRows

__all__ = ["bootstrap_areas", "CHUNK_VALUES"]

#: Row weights held per chunk of replicates (replicates x horizons x rows).
CHUNK_VALUES = 2_000_000


def _multiplicities(rows: SurvivalRows, streams: Streams, n_boot: int) -> np.ndarray:
    """Row multiplicities of every replicate, shape (n_boot, n): each group from its own stream."""
    out = np.zeros((n_boot, rows.time.size), dtype=np.float64)
    bounds = rows.group_bounds()
    for g in range(rows.n_groups):
        a, b = int(bounds[g]), int(bounds[g + 1])
        if b == a:
            continue
        rng = streams[g]
        if rows.cluster is None:
            draws = rng.integers(0, b - a, size=(n_boot, b - a))
            out[:, a:b] = np.stack([np.bincount(d, minlength=b - a) for d in draws])
        else:
            codes = np.unique(rows.cluster[a:b], return_inverse=True)[1]
            n_clusters = int(codes.max()) + 1
            draws = rng.integers(0, n_clusters, size=(n_boot, n_clusters))
            counts = np.stack([np.bincount(d, minlength=n_clusters) for d in draws])
            out[:, a:b] = counts[:, codes]
    return out


def bootstrap_areas(rows: SurvivalRows, ranks: ScoreRanks, horizons: np.ndarray, record: Estimator, *,
                    n_boot: int, seed: Any, progress: Any = None) -> np.ndarray:
    """Replicates of every area, shape (n_groups, n_scores, H, n_boot); NaN where a replicate leaves it undefined.

    Parameters
    ----------
    rows, ranks
        The result's rows and their tie-table places.
    horizons : ndarray of float64
    record : Estimator
        The estimator (its registry record).
    n_boot : int
    seed
        A checked seed (:func:`aucpr_stats._validate.rng_iv`).
    progress : bool, optional
    """
    n = rows.time.size
    n_horizons = horizons.size
    check_allocation(n_boot * n, "the time-dependent bootstrap")
    streams = Streams.for_keys(seed, rows.keys, rows.by, "bootstrap")
    counts = _multiplicities(rows, streams, n_boot)
    chunk = max(1, CHUNK_VALUES // max(1, n * n_horizons))
    out = np.empty((n_boot, rows.n_groups * rows.n_scores * n_horizons))
    with progress_bar(n_boot, "time-dependent bootstrap", progress) as bar:
        for start in range(0, n_boot, chunk):
            part = counts[start:start + chunk]
            weights = horizon_weights(rows, horizons, part)
            ties = ipcw_tables(rows, ranks, weights)
            out[start:start + part.shape[0]] = evaluate(ties, [record])[:, 0].reshape(part.shape[0], -1)
            bar.update(part.shape[0])
    return out.T.reshape(rows.n_groups, rows.n_scores, n_horizons, n_boot)
