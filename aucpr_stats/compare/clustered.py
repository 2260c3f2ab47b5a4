"""Comparisons on clustered rows (``compare(..., cluster="patient")``).

Paired: two scores on the same rows, several rows per patient. Every score
has its tie table per (group, cluster); the cluster bootstrap draws the same
clusters for every score of a group (each group's stream is shared by its
scores), so the replicates are paired, and Obuchowski's (1997) covariance of
two A's gives the cluster-robust DeLong test for AUROC.

Unpaired (``between=``): the levels hold different clusters, so each
(group, level) cell is resampled from its own stream; for AUROC the
variances of the two areas are Obuchowski's.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import polars as pl

from ..estimators.engine import evaluate
from ..exceptions import InputError
from ..ingest import Ingested
from ..intervals.obuchowski import obuchowski_components, obuchowski_covariance
from ..resample import Streams
from ..resample.designs import ClusterUnits, WeightedRows, design_bootstrap_estimates
from ..ties import TieTable
from .statistics import (difference_columns, paired_block, warn_small_rows, with_edge_notes,
                         withhold_below_minimum)

__all__ = ["compare_paired_clustered", "segment_variances", "cluster_design", "weighted_design"]

def _pairs(n: int, reference: int | None) -> list[tuple[int, int]]:
    if reference is None:
        return [(i, j) for i in range(n) for j in range(i + 1, n)]
    return [(i, reference) for i in range(n) if i != reference]


def _units_of(ingested: Ingested, segments: np.ndarray) -> tuple[TieTable, np.ndarray]:
    """The (segment, cluster) tables of some segments, and the new segment index of each unit."""
    clusters = ingested.clusters
    chosen = np.isin(clusters.group, segments)
    position = np.full(ingested.ties.n_segments, -1, dtype=np.int64)
    position[segments] = np.arange(segments.size)
    units = clusters.ties.take(np.flatnonzero(chosen))
    return units, position[clusters.group[chosen]]


def cluster_design(ingested: Ingested, segments: np.ndarray, strata: str = "none") -> ClusterUnits:
    """The cluster bootstrap of the given segments (in that order).

    ``strata="composition"`` with clusters of one row is the stratified row
    bootstrap (the rows of each class resampled within it), each row with its
    weight: the weighted bootstrap of a paired comparison.
    """
    units, unit_segment = _units_of(ingested, segments)
    return ClusterUnits(ingested.ties.take(segments), units, unit_segment, strata=strata)


def weighted_design(ingested: Ingested, segments: np.ndarray) -> WeightedRows:
    """The weighted bootstrap (rows resampled with their weights within each class) of the given segments."""
    cells = ingested.weighted_cells
    return WeightedRows(ingested.ties, cells.cells, cells.weight, cells.target).take(segments)


def segment_variances(ingested: Ingested, segments: np.ndarray):
    """Obuchowski's components of the given segments (A' per segment and its cluster-robust variance)."""
    units, unit_segment = _units_of(ingested, segments)
    return obuchowski_components(ingested.ties.take(segments), units, unit_segment)


def compare_paired_clustered(ingested: Ingested, estimators: Sequence[Any], seed: Any, common: dict,
                             rows_as_clusters: bool = False) -> pl.DataFrame:
    """The comparison table of every pair of scores per group, with clusters resampled or Obuchowski's covariance.

    ``ingested`` holds one segment per (group, score), scores last, read with
    ``cluster=``; every score must have the same rows (complete cases).
    ``rows_as_clusters``: the clusters are the rows (a weighted comparison
    without clusters): the bootstrap is then stratified by class, and
    Obuchowski's covariance is the weighted DeLong covariance.
    """
    spec = ingested.spec
    scores = spec.scores
    k = len(scores)
    ties, keys = ingested.ties, ingested.keys
    n_groups = ties.n_segments // k
    segment = np.arange(ties.n_segments).reshape(n_groups, k)  # segment of (group, score)
    n_pos, n_neg = ties.n_pos.reshape(n_groups, k), ties.n_neg.reshape(n_groups, k)
    if not (np.allclose(n_pos, n_pos[:, :1]) and np.allclose(n_neg, n_neg[:, :1])):
        raise InputError(f"a paired comparison with `{'weights' if rows_as_clusters else 'cluster'}=` needs the "
                         "same rows for every score; some rows have a missing score: drop them first (complete "
                         "cases)")
    units = ingested.clusters
    per_group_units = [np.bincount(units.group, minlength=ties.n_segments).reshape(n_groups, k)]
    if not np.all(per_group_units[0] == per_group_units[0][:, :1]):
        raise InputError("a paired comparison with `cluster=` needs the same clusters for every score")
    notes = np.asarray(ingested.notes, dtype=object).reshape(n_groups, k)[:, 0]
    usable = (n_pos[:, 0] > 0) & (n_neg[:, 0] > 0)
    group_keys = keys[segment[:, 0].tolist()]
    names, method, level = common["estimators"], common["method"], common["level"]
    estimates = evaluate(ties, estimators).T.reshape(len(estimators), n_groups, k)
    if method == "bootstrap":
        replicates = np.full((len(estimators), n_groups, k, common["n_boot"]), np.nan)
        groups = np.flatnonzero(usable)
        if groups.size:
            chosen = segment[groups].ravel()  # group-major, the scores of a group together
            design = cluster_design(ingested, chosen, strata="composition" if rows_as_clusters else "none")
            # one stream per group, shared by its scores: every score sees the same resampled clusters
            streams = Streams.for_keys(seed, group_keys, spec.by, "compare").take(np.repeat(groups, k))
            values = design_bootstrap_estimates(design, list(estimators), common["n_boot"], streams)
            replicates[:, groups] = values.reshape(len(estimators), groups.size, k, common["n_boot"])
    else:
        per_score = [segment_variances(ingested, segment[:, s]) for s in range(k)]
    blocks, flagged = [], {}
    for a, b in _pairs(k, None if common["reference"] is None else scores.index(common["reference"])):
        for j in range(len(estimators)):
            diff = estimates[j, :, a] - estimates[j, :, b]
            note = list(notes)
            if method == "bootstrap":
                columns = difference_columns(diff, method, level,
                                             replicates=(replicates[j, :, a], replicates[j, :, b]))
                note = withhold_below_minimum(columns, note, common["metric"], method, n_pos[:, 0])
            else:
                cov = obuchowski_covariance(per_score[a], per_score[b])
                var_a, var_b = per_score[a].variance, per_score[b].variance
                with np.errstate(invalid="ignore", divide="ignore"):
                    columns = difference_columns(diff, "delong", level, variance=var_a + var_b - 2.0 * cov,
                                                 correlation=cov / np.sqrt(var_a * var_b))
                columns["method"] = ["delong" if rows_as_clusters else "obuchowski"] * n_groups
                for g in np.flatnonzero(usable & np.isnan(columns["se"])):
                    note[g] = "Obuchowski's variance needs >= 2 clusters holding each class"
            note = with_edge_notes(columns, note, common["metric"], method, n_pos[:, 0], flagged)
            blocks.append(paired_block(group_keys, spec.by, scores[a], scores[b], names[j], estimates[j, :, a],
                                       estimates[j, :, b], columns, n_pos[:, 0], n_neg[:, 0], note))
    warn_small_rows(flagged)
    return pl.concat(blocks).sort("__group", maintain_order=True).drop("__group")
