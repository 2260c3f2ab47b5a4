"""Resampling: every random draw of the package, written once.

* :mod:`.streams`: one random stream per group, derived from the seed and
  the group's key;
* :mod:`.counts`: the stratified bootstrap as multinomial draws of tie-table
  counts (interval bootstraps, paired and unpaired comparisons);
* :mod:`.designs`: the weighted stratified bootstrap (rows carry their
  weights) and the cluster bootstrap, as replicate tables of the groups;
* :mod:`.folds`: stratified random folds on the same counts
  (cross-validation intervals);
* :mod:`.quantiles`: the same bootstrap read through a few order
  statistics, exactly in distribution (confidence bands of the PR curve);
* :mod:`.budget`: how much replicate storage a call may hold (batches of
  groups; an estimate checked before a large allocation).
* :mod:`.threads`: how many worker threads the bootstraps and the grouped
  builder use (``AUCPR_STATS_THREADS``); the numbers never depend on it.
"""

from __future__ import annotations

from .budget import REPLICATE_BUDGET, check_allocation, group_batches
from .counts import (DEFAULT_N_BOOT, ReplicateChunk, bootstrap_estimates, evaluate_chunks, replicate_chunks,
                     stratified_counts)
from .designs import ClusterUnits, WeightedRows, design_bootstrap_estimates, target_rows
from .folds import stratified_folds
from .quantiles import exceedance_at_order_statistics
from .streams import Streams, key_words, root_sequence

__all__ = [
    "DEFAULT_N_BOOT",
    "REPLICATE_BUDGET",
    "check_allocation",
    "group_batches",
    "Streams",
    "root_sequence",
    "key_words",
    "ReplicateChunk",
    "replicate_chunks",
    "evaluate_chunks",
    "bootstrap_estimates",
    "stratified_counts",
    "WeightedRows",
    "ClusterUnits",
    "design_bootstrap_estimates",
    "target_rows",
    "stratified_folds",
    "exceedance_at_order_statistics",
]
