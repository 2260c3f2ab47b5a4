"""Tables regrouped after they are built: empty groups added or dropped, finer units merged into groups.

* :func:`spread_segments` / :func:`spread_paired`: every declared level of a
  grouping column gets a group, empty where the data has no rows (the
  reader's ``unused_levels="keep"``);
* :func:`keep_segments`: only the groups with rows (``unused_levels="drop"``);
* :func:`merge_units`: the tables of each group from the tables of its units
  (folds, clusters), which are kept for the intervals that resample them;
* :func:`regroup_cells`: the weighted cells follow their table's groups.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..ties import TieTable
from .build import tie_table_from_counts

__all__ = ["spread_segments", "spread_paired", "keep_segments", "merge_units", "regroup_cells"]


def spread_segments(ties: TieTable, position: np.ndarray, n_groups: int) -> TieTable:
    """The same tie rows with segment ``i`` moved to ``position[i]`` (increasing) and empty segments between.

    A table of engine sums (:mod:`.sums`) moves its groups' statistics.
    """
    if ties.stored_sums:
        return TieTable.deferred(ties.source.spread(position, n_groups))
    lengths = np.zeros(n_groups, dtype=np.int64)
    lengths[position] = np.diff(ties.offsets)
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return TieTable(ties.score, ties.pos, ties.neg, offsets)


def spread_paired(paired, position: np.ndarray, n_groups: int):
    """:class:`~aucpr_stats.tables.paired.PairedScores` with the groups moved as :func:`spread_segments` does."""
    return attrs.evolve(paired, tables=tuple(spread_segments(t, position, n_groups) for t in paired.tables),
                        group=position[paired.group])


def keep_segments(ties: TieTable, keep: np.ndarray) -> TieTable:
    """The segments of ``ties`` where ``keep`` holds, in order (a table of engine sums: its groups)."""
    if ties.stored_sums:
        return ties.take(np.flatnonzero(keep))
    return TieTable(ties.score, ties.pos, ties.neg, ties.offsets[np.r_[0, np.flatnonzero(keep) + 1]])


def merge_units(ties: TieTable, group: np.ndarray, n_groups: int) -> TieTable:
    """The table of each group as the merge (by score) of the tables of its units; ``group[k]``: unit k's group."""
    return tie_table_from_counts(np.asarray(group)[ties.segment_ids()], ties.score, ties.pos, ties.neg, n_groups)


def regroup_cells(cells, ties: TieTable):
    """The weighted cells with the groups of ``ties`` (unused levels added or empty groups dropped).

    Adding or dropping empty segments keeps the order of the rows, so each
    segment of the cells takes the place of the segment with the same rows.
    """
    rows_per_group = np.bincount(ties.segment_ids()[cells.target], minlength=ties.n_segments)
    offsets = np.zeros(ties.n_segments + 1, dtype=np.int64)
    np.cumsum(rows_per_group, out=offsets[1:])
    table = TieTable(cells.cells.score, cells.cells.pos, cells.cells.neg, offsets)
    return attrs.evolve(cells, cells=table)
