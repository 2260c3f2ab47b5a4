"""The table factory: the only place that turns collected data into :class:`~aucpr_stats.ties.TieTable`.

The reader (:mod:`aucpr_stats.ingest`) collects numpy arrays (rows, cells
with counts, the scores of each class, an engine's partial sums) and hands
them here; every builder returns a :class:`~aucpr_stats.ties.TieTable`,
the contract every kernel takes. The roads differ in speed, never in the
table: every road gives the same arrays, bit for bit (``tests/test_tables_*``).

* rows in memory: :func:`tie_table_from_rows` (few large groups: (group,
  class) buckets and value sorts, :mod:`.buckets`; many small groups: one
  packed-key argsort), :func:`deferred_tie_table` (the same, each group's
  classes sorted and merged only when read, :mod:`.grouped`),
  :func:`sort_classes` (one group's classes sorted in parallel ranges of
  values, :mod:`.class_sort`), :func:`tie_table_from_sorted`;
* cells (rows that carry counts: a group-by, an engine's reduction):
  :func:`ties_from_cells`, :func:`tie_table_from_counts`,
  :func:`weighted_tables` (``weights=``);
* several scores on the same rows: :func:`paired_scores`;
* an engine's partial sums: :func:`summed_table`;
* regrouping: :mod:`.regroup`.

Where the roads switch is a :class:`Tuning`, a parameter of the builders.
"""

from __future__ import annotations

from .build import tie_table_from_counts, tie_table_from_rows, tie_table_from_sorted
from .cells import group_index, group_of_rows, integer_like, ties_from_cells
from .class_merge import merge_sorted_classes, tie_table_from_class_buffers, tie_table_from_classes
from .buckets import bucket_order
from .class_sort import SortedClasses, collapsed_rows, pivots_from_sample, rank_among, sort_classes
from .grouped import GroupedClasses, deferred_tie_table
from .paired import PairedScores, paired_scores
from .regroup import keep_segments, merge_units, regroup_cells, spread_paired, spread_segments
from .sums import EngineSums, summed_table
from .tuning import DEFAULT_TUNING, Tuning
from .weighted import WEIGHT, WeightedCells, WeightSums, weighted_tables

__all__ = [
    "Tuning", "DEFAULT_TUNING",
    "tie_table_from_rows", "tie_table_from_sorted", "tie_table_from_counts", "tie_table_from_classes",
    "tie_table_from_class_buffers", "merge_sorted_classes", "deferred_tie_table", "sort_classes",
    "pivots_from_sample", "rank_among", "SortedClasses", "GroupedClasses", "collapsed_rows", "bucket_order",
    "ties_from_cells", "group_index", "group_of_rows", "integer_like",
    "paired_scores", "PairedScores",
    "WEIGHT", "weighted_tables", "WeightedCells", "WeightSums",
    "summed_table", "EngineSums",
    "spread_segments", "spread_paired", "keep_segments", "merge_units", "regroup_cells",
]
